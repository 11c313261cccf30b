//! What one host operation did, for the timing model to price and for statistics.

use serde::Serialize;
use sim_caches::AccessReport;

/// What one host operation did. Counts only: [`crate::HostTiming::cycles`] prices them, and
/// `cycles` holds that price as computed by the [`crate::HostSide`] that did the work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostReport {
    /// Bytes that reached the device level (write-combining drains, cache write-backs, direct
    /// writes). Masked-out bytes of a partial write-combining buffer are not counted.
    pub bytes_to_device: u64,
    /// Bytes fetched from the device level (uncached reads, cache line fills, snooped reads).
    pub bytes_from_device: u64,
    /// Host-bus transactions: one per write-combining buffer drained (a full buffer is one
    /// burst, a partial one a single masked transaction), per line read uncached, per cache line
    /// filled or written back, per direct (snooped or unbuffered) access.
    pub bus_transactions: u64,
    /// Round trips the host core waited for: uncached line reads and cache line fills.
    pub round_trips: u64,
    /// Whether the operation included an uncached read (of write-combined memory).
    pub uncached_read: bool,
    /// Write-combining buffers sent to the device level.
    pub wc_buffers_drained: u32,
    /// Write-combining buffers taken by this operation (free or by eviction).
    pub wc_buffers_allocated: u32,
    /// What the host cache reported (hits, misses, fills, write-backs, lines examined by a
    /// flush or invalidate), with the device level's transactions folded in.
    pub cache: AccessReport,
    /// 32-byte transactions the device level read (as it reported them).
    pub device_read_transactions: u64,
    /// 32-byte transactions the device level wrote (as it reported them).
    pub device_write_transactions: u64,
    /// Cycles the operation cost the host ([`crate::HostTiming::cycles`] of this report).
    pub cycles: u64,
}

impl HostReport {
    /// Adds another report's counts (the parts of one operation, or operations of a batch).
    pub fn merge(&mut self, other: &HostReport) {
        self.bytes_to_device += other.bytes_to_device;
        self.bytes_from_device += other.bytes_from_device;
        self.bus_transactions += other.bus_transactions;
        self.round_trips += other.round_trips;
        self.uncached_read |= other.uncached_read;
        self.wc_buffers_drained += other.wc_buffers_drained;
        self.wc_buffers_allocated += other.wc_buffers_allocated;
        self.cache.merge(&other.cache);
        self.device_read_transactions += other.device_read_transactions;
        self.device_write_transactions += other.device_write_transactions;
        self.cycles += other.cycles;
    }

    /// Folds in what the device level reported for an access made directly to it.
    pub(crate) fn absorb_device(&mut self, below: &AccessReport) {
        self.device_read_transactions += u64::from(below.dram_read_transactions);
        self.device_write_transactions += u64::from(below.dram_write_transactions);
    }
}
