//! What the host side *is* ([`HostSpec`]) and what its bus costs ([`HostTiming`]), kept apart
//! as in the rest of the simulator: the spec decides what happens to bytes, the timing only
//! prices it.

use serde::{Deserialize, Serialize};
use sim_caches::{CacheSpec, SpecError, WritePolicy};

/// The largest number of write-combining buffers a spec may ask for (the profile's limit too).
pub const MAX_WRITE_COMBINING_BUFFERS: u32 = 64;
/// The largest nonCoherentAtomSize: the Vulkan spec caps the limit at 256 (docs/PROFILES.md).
pub const MAX_NON_COHERENT_ATOM_SIZE: u64 = 256;

/// The host CPU's side of mapped memory.
///
/// In TOML (every field optional, defaults as documented; a missing `[cache]` table keeps the
/// default cache, so "no host cache" is spelled in code, or by the profile that builds this):
/// ```toml
/// write_combining_buffers = 10
/// write_combining_buffer_bytes = 64
/// non_coherent_atom_size = 64
/// [cache]
/// size_bytes = 32768
/// line_bytes = 64
/// ways = 8
/// write_policy = "write-back-line-dirty"
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostSpec {
    /// Write-combining buffers of the host core: how many. Default 10 (the line-fill buffers of
    /// Nehalem–Broadwell; the count is not architectural, docs/PROFILES.md). 0 means host
    /// writes to write-combined memory go straight to device memory, one transaction each.
    pub write_combining_buffers: u32,
    /// Bytes per write-combining buffer, a power of two from 4 to 4096. Default 64 (x86 since
    /// the Pentium 4, Intel SDM Vol. 3A §11.3.1). It is also the line of uncached reads: one bus
    /// round trip per such line touched.
    pub write_combining_buffer_bytes: u32,
    /// The host CPU cache used for HOST_CACHED (non-coherent) mappings, `None` for none: then
    /// HOST_CACHED mappings behave like HOST_CACHED|HOST_COHERENT ones (accesses at the device
    /// level at once). Default 32 KiB, 64-byte lines (x86 `coherency_line_size`), 8 ways,
    /// write-back with a dirty bit per line: CPUs have no per-byte dirty masks (seed, "Host
    /// CPU accesses"). Its `dirty_on_invalidate` is not consulted: see
    /// [`crate::HostSide::invalidate_mapped_ranges`].
    pub cache: Option<CacheSpec>,
    /// VkPhysicalDeviceLimits::nonCoherentAtomSize: the granularity that
    /// vkFlushMappedMemoryRanges and vkInvalidateMappedMemoryRanges ranges must respect, a power
    /// of two from 1 to 256. Default 64 (RADV, ANV, Turnip, NVIDIA; docs/PROFILES.md).
    pub non_coherent_atom_size: u64,
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            write_combining_buffers: 10,
            write_combining_buffer_bytes: 64,
            cache: Some(CacheSpec::new(32 * 1024, 64, 8, sim_caches::Replacement::Lru, WritePolicy::WriteBackLineDirty)),
            non_coherent_atom_size: 64,
        }
    }
}

impl HostSpec {
    /// Checks that a host side can be built from the spec, naming the field at fault.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.write_combining_buffers > MAX_WRITE_COMBINING_BUFFERS {
            return Err(SpecError {
                field: "write_combining_buffers",
                reason: format!("{} is more than {MAX_WRITE_COMBINING_BUFFERS}", self.write_combining_buffers),
            });
        }
        let b = self.write_combining_buffer_bytes;
        if !b.is_power_of_two() || !(4..=4096).contains(&b) {
            return Err(SpecError {
                field: "write_combining_buffer_bytes",
                reason: format!("{b} is not a power of two between 4 and 4096"),
            });
        }
        let a = self.non_coherent_atom_size;
        if !a.is_power_of_two() || a > MAX_NON_COHERENT_ATOM_SIZE {
            return Err(SpecError {
                field: "non_coherent_atom_size",
                reason: format!("{a} is not a power of two between 1 and {MAX_NON_COHERENT_ATOM_SIZE}"),
            });
        }
        if let Some(cache) = &self.cache {
            cache.validate().map_err(|e| SpecError { field: "cache", reason: e.to_string() })?;
            if cache.write_policy == WritePolicy::ReadOnly {
                return Err(SpecError {
                    field: "cache",
                    reason: "the host writes through its cache: it cannot be read-only".into(),
                });
            }
        }
        Ok(())
    }
}

/// What the host–device bus costs, in GPU core cycles (the same clock as the rest of the
/// machine's timing). The cost of an operation is a pure function of its [`crate::HostReport`]
/// ([`HostTiming::cycles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostTiming {
    /// One round trip over the host–device bus, cycles: what an uncached read of a line, or a
    /// host cache line fill, waits for. Default 1500 (about 1 µs of PCIe round trip at 1.5 GHz).
    pub bus_latency_cycles: u32,
    /// Bus bandwidth, bytes per cycle (0 is read as 1). Default 16.
    pub bus_bytes_per_cycle: u32,
}

impl Default for HostTiming {
    fn default() -> Self {
        HostTiming { bus_latency_cycles: 1500, bus_bytes_per_cycle: 16 }
    }
}

impl HostTiming {
    /// Cycles the host spends on an operation that did what `report` says.
    ///
    /// - Every round trip (an uncached read of one line, a host cache line fill) waits the full
    ///   bus latency: the host core stalls on reads, one after another.
    /// - Writes are posted: draining write-combining buffers, writing back cache lines and
    ///   snooped (HOST_CACHED|HOST_COHERENT) accesses cost only their bytes over the bandwidth.
    /// - Writes that stay in a write-combining buffer or in the host cache cost nothing on the
    ///   bus: they are cheap until drained.
    pub fn cycles(&self, report: &crate::HostReport) -> u64 {
        let bw = self.bus_bytes_per_cycle.max(1) as u64;
        let bytes = report.bytes_to_device.saturating_add(report.bytes_from_device);
        report.round_trips.saturating_mul(self.bus_latency_cycles as u64).saturating_add(bytes.div_ceil(bw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_spec_is_valid_and_round_trips_through_toml() {
        let spec = HostSpec::default();
        spec.validate().unwrap();
        let text = toml::to_string(&spec).unwrap();
        let back: HostSpec = toml::from_str(&text).unwrap();
        assert_eq!(spec, back);
    }

    #[test]
    fn bad_fields_are_named() {
        let s = HostSpec { write_combining_buffer_bytes: 48, ..HostSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "write_combining_buffer_bytes");
        let s = HostSpec { non_coherent_atom_size: 512, ..HostSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "non_coherent_atom_size");
        let s = HostSpec { non_coherent_atom_size: 0, ..HostSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "non_coherent_atom_size");
        let s = HostSpec { write_combining_buffers: 65, ..HostSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "write_combining_buffers");
        let mut s = HostSpec::default();
        if let Some(c) = &mut s.cache {
            c.write_policy = WritePolicy::ReadOnly;
        }
        assert_eq!(s.validate().unwrap_err().field, "cache");
        assert!(toml::from_str::<HostSpec>("write_combining_bufers = 3").is_err());
    }
}
