//! The host side: mapped memory objects, the host core's write-combining buffers and its cache,
//! and the Vulkan calls that move data between them and device memory.
//!
//! # Who moves host writes to the device, by memory kind
//! | kind | made available by | made visible to the host by |
//! |---|---|---|
//! | HOST_COHERENT (write-combined) | [`HostSide::device_visible_event`], buffer eviction | nothing needed: reads are uncached |
//! | plain HOST_VISIBLE (write-combined, non-coherent) | [`HostSide::flush_mapped_ranges`], buffer eviction | nothing needed: reads are uncached |
//! | HOST_CACHED | [`HostSide::flush_mapped_ranges`], cache eviction | [`HostSide::invalidate_mapped_ranges`] |
//! | HOST_CACHED + HOST_COHERENT | the write itself (snooped) | nothing needed (snooped) |
//!
//! Device memory is never owned here: every operation that may touch it takes the device level
//! as an argument (`&mut N` with `N: MemoryLevel + ?Sized`, so `&mut dyn MemoryLevel` works),
//! whatever the GPU side puts in front of VRAM. Addresses are device addresses: a mapped
//! memory object is registered with its base address, and host offsets are relative to the
//! start of the memory object, as in Vulkan.

use std::collections::BTreeMap;

use serde::Serialize;
use sim_caches::{AccessReport, Cache, DirtyOnInvalidate, MemoryLevel, TAG_GRANULE, Tag, Tags, word_span};

use crate::MemoryId;
use crate::error::HostError;
use crate::kind::HostMemoryKind;
use crate::report::HostReport;
use crate::spec::{HostSpec, HostTiming};
use crate::wc::WriteCombining;

/// VK_WHOLE_SIZE: as a [`MappedRange::size`], "to the end of the current mapping"; as a map
/// size, "to the end of the allocation".
pub const WHOLE_SIZE: u64 = u64::MAX;

/// A VkMappedMemoryRange: a range of a mapped memory object to flush or invalidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MappedRange {
    /// The memory object.
    pub memory: MemoryId,
    /// Offset from the start of the memory object (not of the mapping), bytes.
    pub offset: u64,
    /// Size in bytes, or [`WHOLE_SIZE`].
    pub size: u64,
}

impl MappedRange {
    /// The range `[offset, offset + size)` of `memory` (`size` may be [`WHOLE_SIZE`]).
    pub fn new(memory: MemoryId, offset: u64, size: u64) -> MappedRange {
        MappedRange { memory, offset, size }
    }

    /// From `offset` to the end of the current mapping of `memory` (size VK_WHOLE_SIZE).
    pub fn whole(memory: MemoryId, offset: u64) -> MappedRange {
        MappedRange { memory, offset, size: WHOLE_SIZE }
    }
}

/// A mapped memory object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mapping {
    /// Device address of the memory object's first byte.
    pub base: u64,
    /// Size of the memory object (VkMemoryAllocateInfo::allocationSize).
    pub allocation_size: u64,
    /// How the host reaches it.
    pub kind: HostMemoryKind,
    /// Start of the mapped range, from the start of the memory object.
    pub map_offset: u64,
    /// End (exclusive) of the mapped range, from the start of the memory object.
    pub map_end: u64,
}

/// Host writes still waiting in one write-combining buffer: not yet in device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PendingWrite {
    /// The memory object whose write took the buffer.
    pub memory: MemoryId,
    /// Device address of the buffer's line.
    pub line_addr: u64,
    /// Bytes of the line written so far.
    pub bytes: u32,
    /// Whether the next device-visible event will send it (HOST_COHERENT memory).
    pub coherent: bool,
}

/// The host CPU's view of mapped device memory (see the module and crate documentation).
pub struct HostSide {
    spec: HostSpec,
    timing: HostTiming,
    wc: WriteCombining,
    cache: Option<Cache>,
    mappings: BTreeMap<MemoryId, Mapping>,
    totals: HostReport,
}

impl HostSide {
    /// A host side with empty write-combining buffers and an empty cache. `seed` drives the
    /// host cache's random replacement, if the spec asks for it (nothing else is random).
    pub fn new(spec: &HostSpec, timing: HostTiming, seed: u64) -> Result<HostSide, HostError> {
        spec.validate()?;
        let cache = match &spec.cache {
            Some(c) => {
                // vkInvalidateMappedMemoryRanges discards unflushed host writes in the range:
                // Vulkan leaves them undefined, and losing them is the outcome that shows the
                // missing flush. The cache's own `dirty_on_invalidate` is therefore replaced.
                let mut c = c.clone();
                c.dirty_on_invalidate = DirtyOnInvalidate::Discard;
                Some(Cache::new("host", &c, seed)?)
            }
            None => None,
        };
        Ok(HostSide {
            spec: spec.clone(),
            timing,
            wc: WriteCombining::new(spec.write_combining_buffers, spec.write_combining_buffer_bytes),
            cache,
            mappings: BTreeMap::new(),
            totals: HostReport::default(),
        })
    }

    /// The spec it was built from.
    pub fn spec(&self) -> &HostSpec {
        &self.spec
    }

    /// The bus timing it prices operations with.
    pub fn timing(&self) -> &HostTiming {
        &self.timing
    }

    /// Everything done so far, summed.
    pub fn totals(&self) -> &HostReport {
        &self.totals
    }

    /// The host cache, if the spec has one (for statistics, probes and tests).
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// The mapping of `memory`, if it is mapped.
    pub fn mapping(&self, memory: MemoryId) -> Option<&Mapping> {
        self.mappings.get(&memory)
    }

    /// Host writes still held in write-combining buffers, oldest buffer first.
    pub fn pending_writes(&self) -> Vec<PendingWrite> {
        let lb = self.wc.line_bytes();
        self.wc
            .buffers()
            .iter()
            .map(|b| PendingWrite {
                memory: b.memory,
                line_addr: b.line * lb,
                bytes: b.mask.count_ones() as u32,
                coherent: b.coherent,
            })
            .collect()
    }

    // ----- mapping ------------------------------------------------------------------------------

    /// vkMapMemory of the whole memory object `memory` (device address `base`,
    /// `allocation_size` bytes, reached as `kind`).
    pub fn map(&mut self, memory: MemoryId, base: u64, allocation_size: u64, kind: HostMemoryKind) -> Result<(), HostError> {
        self.map_range(memory, base, allocation_size, kind, 0, WHOLE_SIZE)
    }

    /// vkMapMemory of `[offset, offset + size)` of the memory object (`size` may be
    /// [`WHOLE_SIZE`]: to the end of the allocation), checked against the vkMapMemory VUIDs.
    pub fn map_range(
        &mut self,
        memory: MemoryId,
        base: u64,
        allocation_size: u64,
        kind: HostMemoryKind,
        offset: u64,
        size: u64,
    ) -> Result<(), HostError> {
        if self.mappings.contains_key(&memory) {
            return Err(HostError::AlreadyMapped { memory });
        }
        if base.checked_add(allocation_size).is_none() {
            return Err(HostError::AddressWrap { memory, base, allocation_size });
        }
        if offset >= allocation_size {
            return Err(HostError::MapOffset { memory, offset, allocation_size });
        }
        let map_end = if size == WHOLE_SIZE {
            allocation_size
        } else {
            if size == 0 {
                return Err(HostError::MapSizeZero { memory });
            }
            match offset.checked_add(size) {
                Some(end) if end <= allocation_size => end,
                _ => return Err(HostError::MapSize { memory, offset, size, allocation_size }),
            }
        };
        self.mappings.insert(memory, Mapping { base, allocation_size, kind, map_offset: offset, map_end });
        Ok(())
    }

    /// vkUnmapMemory. Like Vulkan's, it flushes nothing: host writes still in write-combining
    /// buffers or dirty in the host cache stay there (they belong to physical lines, not to the
    /// mapping) and reach device memory only as they would have anyway (a device-visible event
    /// for HOST_COHERENT buffers, an eviction otherwise).
    pub fn unmap(&mut self, memory: MemoryId) -> Result<(), HostError> {
        self.mappings.remove(&memory).map(|_| ()).ok_or(HostError::NotMapped { memory })
    }

    /// The device address of a host access of `len` bytes at `offset`, if it lies inside the
    /// mapping.
    fn locate(&self, memory: MemoryId, offset: u64, len: usize) -> Result<(Mapping, u64), HostError> {
        let m = *self.mappings.get(&memory).ok_or(HostError::NotMapped { memory })?;
        match offset.checked_add(len as u64) {
            Some(end) if offset >= m.map_offset && end <= m.map_end => Ok((m, m.base + offset)),
            _ => Err(HostError::OutsideMapping { memory, offset, len: len as u64, map_offset: m.map_offset, map_end: m.map_end }),
        }
    }

    // ----- host accesses ------------------------------------------------------------------------

    /// A host store of `data` at `offset` of mapped `memory`, with provenance `tag` (the tag
    /// sticks to the written words in write-combining buffers and in the host cache, and
    /// travels with them to device memory).
    ///
    /// - Write-combined memory: the bytes collect in write-combining buffers; a write to a line
    ///   without a buffer may evict the oldest buffer to `device`.
    /// - HOST_CACHED: through the host cache; a partial-line write miss fetches the rest of the
    ///   line from `device` first; an eviction writes a dirty line back whole.
    /// - HOST_CACHED|HOST_COHERENT (or HOST_CACHED without a host cache): straight to `device`.
    pub fn write<N: MemoryLevel + ?Sized>(
        &mut self,
        memory: MemoryId,
        offset: u64,
        data: &[u8],
        tag: Tag,
        device: &mut N,
    ) -> Result<HostReport, HostError> {
        let (m, addr) = self.locate(memory, offset, data.len())?;
        let mut report = HostReport::default();
        if data.is_empty() {
            return Ok(report);
        }
        match (m.kind, self.cache.as_mut()) {
            (HostMemoryKind::WriteCombined | HostMemoryKind::WriteCombinedNonCoherent, _) => {
                report = self.wc.write(memory, m.kind.is_coherent(), addr, data, tag, device)?;
            }
            (HostMemoryKind::Cached, Some(cache)) => {
                let r = cache.write(device, addr, data, Tags::One(tag), None)?;
                fold_cache(cache, &r, &mut report);
            }
            (HostMemoryKind::Cached | HostMemoryKind::CachedCoherent, _) => {
                let below = device.write(addr, data, Tags::One(tag), None)?;
                report.absorb_device(&below);
                report.bytes_to_device += data.len() as u64;
                report.bus_transactions += 1;
            }
        }
        Ok(self.finish(report))
    }

    /// A host load of `data.len()` bytes at `offset` of mapped `memory`, with the provenance of
    /// every byte in `byte_tags` (exactly `data.len()` long: the tag of the write each byte
    /// came from).
    ///
    /// - Write-combined memory: uncached. Every line touched is read from `device` (one bus
    ///   round trip per [`HostSpec::write_combining_buffer_bytes`] line), then the bytes this
    ///   core still holds in write-combining buffers are laid over them: a core always sees its
    ///   own earlier stores. The read does *not* drain the buffers. The x86 drain triggers are
    ///   UC accesses, fences, locked and serializing instructions (docs/PROFILES.md), not a
    ///   WC-type read; and draining here would make writes available that the program never
    ///   flushed, hiding exactly the missing vkFlushMappedMemoryRanges this simulator exists to
    ///   show. (An uncached access to *other* device memory, a register write, is a
    ///   device-visible event: call [`HostSide::device_visible_event`] for it.)
    /// - HOST_CACHED: through the host cache, which may hold lines older than device memory
    ///   until [`HostSide::invalidate_mapped_ranges`] drops them.
    /// - HOST_CACHED|HOST_COHERENT: straight from `device` (snooped).
    pub fn read<N: MemoryLevel + ?Sized>(
        &mut self,
        memory: MemoryId,
        offset: u64,
        data: &mut [u8],
        byte_tags: &mut [Tag],
        device: &mut N,
    ) -> Result<HostReport, HostError> {
        if byte_tags.len() != data.len() {
            return Err(HostError::TagLength { want: data.len(), got: byte_tags.len() });
        }
        let (m, addr) = self.locate(memory, offset, data.len())?;
        let mut report = HostReport::default();
        if data.is_empty() {
            return Ok(report);
        }
        match (m.kind, self.cache.as_mut()) {
            (HostMemoryKind::WriteCombined | HostMemoryKind::WriteCombinedNonCoherent, _) => {
                let lb = self.wc.line_bytes();
                let mut words = Vec::new();
                let mut pos = 0usize;
                while pos < data.len() {
                    let a = addr + pos as u64;
                    let n = ((lb - a % lb) as usize).min(data.len() - pos);
                    words.clear();
                    words.resize(word_span(a, n), 0);
                    let below = device.read(a, &mut data[pos..pos + n], &mut words)?;
                    report.absorb_device(&below);
                    spread_tags(a, &words, &mut byte_tags[pos..pos + n]);
                    report.bytes_from_device += n as u64;
                    report.bus_transactions += 1;
                    report.round_trips += 1;
                    pos += n;
                }
                report.uncached_read = true;
                self.wc.forward(addr, data, byte_tags);
            }
            (HostMemoryKind::Cached, Some(cache)) => {
                let mut words = vec![0; word_span(addr, data.len())];
                let r = cache.read(device, addr, data, &mut words)?;
                fold_cache(cache, &r, &mut report);
                spread_tags(addr, &words, byte_tags);
            }
            (HostMemoryKind::Cached | HostMemoryKind::CachedCoherent, _) => {
                let mut words = vec![0; word_span(addr, data.len())];
                let below = device.read(addr, data, &mut words)?;
                report.absorb_device(&below);
                spread_tags(addr, &words, byte_tags);
                report.bytes_from_device += data.len() as u64;
                report.bus_transactions += 1;
            }
        }
        Ok(self.finish(report))
    }

    // ----- availability and visibility ----------------------------------------------------------

    /// A device-visible event of the host thread: vkQueueSubmit, fence and semaphore operations
    /// (vkSignalSemaphore, waits), vkSetEvent, atomics, uncached accesses, anything after which
    /// the device may look at memory. Every write-combining buffer of HOST_COHERENT memory goes
    /// out, oldest first, so the device never learns of work before its data has arrived (seed,
    /// "Host CPU accesses"). Buffers of plain HOST_VISIBLE (non-coherent) memory stay: they wait
    /// for [`HostSide::flush_mapped_ranges`]. The host cache is untouched: it is not coherent.
    ///
    /// The engine calls this before a submission's host→device domain operation takes effect,
    /// and at every other host operation that the device can observe.
    pub fn device_visible_event<N: MemoryLevel + ?Sized>(&mut self, device: &mut N) -> Result<HostReport, HostError> {
        let mut report = HostReport::default();
        self.wc.drain_where(device, &mut report, |b| b.coherent)?;
        Ok(self.finish(report))
    }

    /// Checks every range against the VkMappedMemoryRange VUIDs (and this host's
    /// nonCoherentAtomSize), returning the first violation. Flush and invalidate check the same
    /// way before doing anything, so a bad call changes nothing.
    pub fn check_ranges(&self, ranges: &[MappedRange]) -> Result<(), HostError> {
        for (i, r) in ranges.iter().enumerate() {
            self.resolve(i, r)?;
        }
        Ok(())
    }

    /// The kind, device address and length a valid range covers.
    fn resolve(&self, index: usize, r: &MappedRange) -> Result<(HostMemoryKind, u64, u64), HostError> {
        let memory = r.memory;
        let m = self.mappings.get(&memory).ok_or(HostError::RangeNotMapped { index, memory })?;
        let atom = self.spec.non_coherent_atom_size;
        if !r.offset.is_multiple_of(atom) {
            return Err(HostError::RangeOffsetAlignment { index, memory, offset: r.offset, atom });
        }
        let len = if r.size == WHOLE_SIZE {
            if r.offset < m.map_offset || r.offset >= m.map_end {
                return Err(HostError::WholeSizeOffsetOutsideMapping {
                    index,
                    memory,
                    offset: r.offset,
                    map_offset: m.map_offset,
                    map_end: m.map_end,
                });
            }
            if m.map_end % atom != 0 && m.map_end != m.allocation_size {
                return Err(HostError::WholeSizeMappingEnd {
                    index,
                    memory,
                    map_end: m.map_end,
                    atom,
                    allocation_size: m.allocation_size,
                });
            }
            m.map_end - r.offset
        } else {
            let end = r.offset.checked_add(r.size);
            if !r.size.is_multiple_of(atom) && end != Some(m.allocation_size) {
                return Err(HostError::RangeSizeAlignment {
                    index,
                    memory,
                    offset: r.offset,
                    size: r.size,
                    atom,
                    allocation_size: m.allocation_size,
                });
            }
            match end {
                Some(e) if r.offset >= m.map_offset && e <= m.map_end => {}
                _ => {
                    return Err(HostError::RangeOutsideMapping {
                        index,
                        memory,
                        offset: r.offset,
                        size: r.size,
                        map_offset: m.map_offset,
                        map_end: m.map_end,
                    });
                }
            }
            r.size
        };
        Ok((m.kind, m.base + r.offset, len))
    }

    fn resolve_all(&self, ranges: &[MappedRange]) -> Result<Vec<(HostMemoryKind, u64, u64)>, HostError> {
        ranges.iter().enumerate().map(|(i, r)| self.resolve(i, r)).collect()
    }

    /// vkFlushMappedMemoryRanges: an availability operation for host writes to the ranges.
    ///
    /// Every range is checked first ([`HostSide::check_ranges`]); then, per range:
    /// - HOST_CACHED: every host cache line overlapping the range is written back if dirty,
    ///   *whole*: a line the host wrote only partly carries its other bytes too, as they were
    ///   when the line was fetched, over whatever the device wrote there since (the partial-line
    ///   problem; per-line dirty bits, no byte masks). The lines stay cached, now clean.
    /// - plain HOST_VISIBLE (write-combined, non-coherent): every write-combining buffer whose
    ///   line overlaps the range goes out, with its byte mask.
    /// - HOST_COHERENT memory: allowed, does nothing.
    pub fn flush_mapped_ranges<N: MemoryLevel + ?Sized>(
        &mut self,
        ranges: &[MappedRange],
        device: &mut N,
    ) -> Result<HostReport, HostError> {
        let resolved = self.resolve_all(ranges)?;
        let mut report = HostReport::default();
        let lb = self.wc.line_bytes();
        for (kind, addr, len) in resolved {
            if len == 0 {
                continue;
            }
            match (kind, self.cache.as_mut()) {
                (HostMemoryKind::Cached, Some(cache)) => {
                    let r = cache.flush(device, Some((addr, len)))?;
                    fold_cache(cache, &r, &mut report);
                }
                (HostMemoryKind::WriteCombinedNonCoherent, _) => {
                    let end = addr.saturating_add(len);
                    self.wc.drain_where(device, &mut report, |b| b.line * lb < end && (b.line * lb).saturating_add(lb) > addr)?;
                }
                _ => {}
            }
        }
        Ok(self.finish(report))
    }

    /// vkInvalidateMappedMemoryRanges: a visibility operation of device writes to the host.
    ///
    /// Every range is checked first; then, for HOST_CACHED memory, every host cache line
    /// overlapping the range is dropped, so the next host read fetches it from device memory.
    /// A dropped line's unflushed host writes are *discarded*, not written back: Vulkan makes
    /// host writes to an invalidated range that were not flushed undefined, and losing them is
    /// the outcome that makes the missing flush visible. (The x86 `clflush` that some drivers
    /// use would write them back instead; the cache spec's `dirty_on_invalidate` is not
    /// consulted.) Like a flush, it works on whole lines: host writes in the part of a line
    /// outside the range are lost too when the line is wider than nonCoherentAtomSize.
    ///
    /// Write-combined memory has nothing to invalidate (its reads are uncached); buffers of
    /// pending host writes are left alone. HOST_COHERENT memory: allowed, does nothing.
    pub fn invalidate_mapped_ranges<N: MemoryLevel + ?Sized>(
        &mut self,
        ranges: &[MappedRange],
        device: &mut N,
    ) -> Result<HostReport, HostError> {
        let resolved = self.resolve_all(ranges)?;
        let mut report = HostReport::default();
        for (kind, addr, len) in resolved {
            if len == 0 {
                continue;
            }
            if let (HostMemoryKind::Cached, Some(cache)) = (kind, self.cache.as_mut()) {
                let r = cache.invalidate(device, Some((addr, len)))?;
                fold_cache(cache, &r, &mut report);
            }
        }
        Ok(self.finish(report))
    }

    /// Prices a finished report and adds it to the totals.
    fn finish(&mut self, mut report: HostReport) -> HostReport {
        report.cycles = self.timing.cycles(&report);
        self.totals.merge(&report);
        report
    }
}

/// Folds what the host cache reported into a host report: fills are round trips that bring
/// whole lines in, write-backs and write-through bytes go out.
fn fold_cache(cache: &Cache, r: &AccessReport, report: &mut HostReport) {
    let lb = cache.spec().line_bytes as u64;
    report.cache.merge(r);
    report.bytes_from_device += r.fills as u64 * lb;
    report.round_trips += r.fills as u64;
    report.bytes_to_device += r.writeback_bytes + r.write_through_bytes;
    report.bus_transactions += r.fills as u64 + r.writeback_lines as u64 + u64::from(r.write_through_bytes > 0);
    report.device_read_transactions += u64::from(r.dram_read_transactions);
    report.device_write_transactions += u64::from(r.dram_write_transactions);
}

/// Expands per-word provenance of the bytes at `addr` to one tag per byte.
fn spread_tags(addr: u64, words: &[Tag], byte_tags: &mut [Tag]) {
    let first = addr / TAG_GRANULE;
    for (k, t) in byte_tags.iter_mut().enumerate() {
        let w = ((addr + k as u64) / TAG_GRANULE - first) as usize;
        *t = words.get(w).copied().unwrap_or(0);
    }
}
