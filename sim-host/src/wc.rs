//! The host core's write-combining buffers.
//!
//! # Model (x86 facts: docs/PROFILES.md, Intel SDM Vol. 3A §11.3.1)
//! - A fixed number of buffers of `line_bytes` (64) each, separate from the CPU caches and not
//!   snooped: nobody but this core sees their bytes until they go out.
//! - A host write to write-combined memory collects its bytes in the buffer of its line, with a
//!   byte mask of what was written and one provenance tag per 4-byte word; writes to the same
//!   bytes collapse, the last one wins.
//! - A write to a line without a buffer takes a free buffer, or evicts the *oldest* one (the
//!   buffer allocated first). Real eviction order is implementation-defined; oldest-first is a
//!   faithful, deterministic choice.
//! - A buffer going out ("drain") is one transaction to the device level: a full buffer as one
//!   burst, a partial one as one write carrying its byte mask, so only the written bytes change
//!   there and bytes the device wrote meanwhile around them survive. (The SDM allows a partial
//!   buffer to go out as several partial transactions; the bytes that land are the same.)
//! - A full buffer is *not* sent out early. Hardware may do so; keeping it is the stricter model
//!   (writes are available no earlier than the rules guarantee), which is what a simulator that
//!   hunts missing synchronization wants.
//!
//! Every buffer remembers whether its memory is HOST_COHERENT. Device-visible events drain only
//! those; buffers of non-coherent (plain HOST_VISIBLE) memory wait for a flush of their range.

use bitvec::prelude::*;
use sim_caches::{MemoryLevel, TAG_GRANULE, Tag, Tags};

use crate::MemoryId;
use crate::error::HostError;
use crate::report::HostReport;

/// One write-combining buffer.
#[derive(Clone, Debug)]
pub(crate) struct WcBuffer {
    /// Line number (device address / line bytes).
    pub line: u64,
    /// The memory object whose write allocated it.
    pub memory: MemoryId,
    /// Whether that memory is HOST_COHERENT (drained by device-visible events).
    pub coherent: bool,
    pub data: Vec<u8>,
    /// One tag per 4-byte word of the line.
    pub tags: Vec<Tag>,
    /// One bit per byte written.
    pub mask: BitVec<u64, Lsb0>,
}

/// The buffers of one host core, oldest first.
#[derive(Clone, Debug)]
pub(crate) struct WriteCombining {
    capacity: usize,
    line_bytes: u64,
    /// In allocation order: index 0 is the oldest, the first to be evicted.
    buffers: Vec<WcBuffer>,
}

impl WriteCombining {
    pub fn new(capacity: u32, line_bytes: u32) -> WriteCombining {
        WriteCombining { capacity: capacity as usize, line_bytes: line_bytes as u64, buffers: Vec::new() }
    }

    pub fn line_bytes(&self) -> u64 {
        self.line_bytes
    }

    pub fn buffers(&self) -> &[WcBuffer] {
        &self.buffers
    }

    /// Collects a host write of `data` at device address `addr`, reporting any buffer it
    /// evicted. Without any buffers (a spec of 0) the write goes straight to the device level,
    /// one transaction per line.
    pub fn write<N: MemoryLevel + ?Sized>(
        &mut self,
        memory: MemoryId,
        coherent: bool,
        addr: u64,
        data: &[u8],
        tag: Tag,
        device: &mut N,
    ) -> Result<HostReport, HostError> {
        let mut report = HostReport::default();
        let lb = self.line_bytes;
        let mut pos = 0usize;
        while pos < data.len() {
            let a = addr + pos as u64;
            let line = a / lb;
            let off = (a % lb) as usize;
            let n = (lb as usize - off).min(data.len() - pos);
            let chunk = &data[pos..pos + n];
            if self.capacity == 0 {
                let below = device.write(a, chunk, Tags::One(tag), None)?;
                report.absorb_device(&below);
                report.bytes_to_device += n as u64;
                report.bus_transactions += 1;
            } else {
                let i = match self.buffers.iter().position(|b| b.line == line) {
                    Some(i) => i,
                    None => {
                        if self.buffers.len() >= self.capacity {
                            // Removed only once sent: a device error leaves its bytes in place.
                            Self::send(&self.buffers[0], lb, device, &mut report)?;
                            self.buffers.remove(0);
                        }
                        self.buffers.push(WcBuffer {
                            line,
                            memory,
                            coherent,
                            data: vec![0; lb as usize],
                            tags: vec![0; (lb / TAG_GRANULE) as usize],
                            mask: bitvec![u64, Lsb0; 0; lb as usize],
                        });
                        report.wc_buffers_allocated += 1;
                        self.buffers.len() - 1
                    }
                };
                let b = &mut self.buffers[i];
                b.data[off..off + n].copy_from_slice(chunk);
                b.mask[off..off + n].fill(true);
                let w_lo = off / TAG_GRANULE as usize;
                let w_hi = (off + n - 1) / TAG_GRANULE as usize;
                b.tags[w_lo..=w_hi].fill(tag);
            }
            pos += n;
        }
        Ok(report)
    }

    /// Sends every buffer for which `which` holds to the device level, oldest first, and frees
    /// them.
    pub fn drain_where<N: MemoryLevel + ?Sized>(
        &mut self,
        device: &mut N,
        report: &mut HostReport,
        mut which: impl FnMut(&WcBuffer) -> bool,
    ) -> Result<(), HostError> {
        let lb = self.line_bytes;
        let mut i = 0;
        while i < self.buffers.len() {
            if which(&self.buffers[i]) {
                // Removed only once sent: a device error leaves the buffer (and its bytes) in place.
                Self::send(&self.buffers[i], lb, device, report)?;
                self.buffers.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Overlays the bytes this core still holds in buffers on `data` (read at device address
    /// `addr`, with one tag per byte in `byte_tags`): a core sees its own earlier writes.
    pub fn forward(&self, addr: u64, data: &mut [u8], byte_tags: &mut [Tag]) {
        let lb = self.line_bytes;
        let end = addr + data.len() as u64;
        for b in &self.buffers {
            let line_start = b.line * lb;
            let lo = line_start.max(addr);
            let hi = line_start.saturating_add(lb).min(end);
            for a in lo..hi {
                let off = (a - line_start) as usize;
                if b.mask[off] {
                    let k = (a - addr) as usize;
                    data[k] = b.data[off];
                    byte_tags[k] = b.tags[off / TAG_GRANULE as usize];
                }
            }
        }
    }

    fn send<N: MemoryLevel + ?Sized>(b: &WcBuffer, lb: u64, device: &mut N, report: &mut HostReport) -> Result<(), HostError> {
        let addr = b.line * lb;
        let full = b.mask.all();
        let bytes = b.mask.count_ones() as u64;
        let below = if full {
            device.write(addr, &b.data, Tags::Words(&b.tags), None)?
        } else {
            device.write(addr, &b.data, Tags::Words(&b.tags), Some(&b.mask))?
        };
        report.absorb_device(&below);
        report.bytes_to_device += bytes;
        report.bus_transactions += 1;
        report.wc_buffers_drained += 1;
        Ok(())
    }
}
