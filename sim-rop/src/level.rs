//! Compression metadata and the level that uses it: an encode level under the ROP tile caches
//! (tiles compressed on their way to memory) and a decode level for readers that understand the
//! metadata. A reader that does not go through it reads the raw slots.
//!
//! # Design
//! [`Metadata`] keeps 4 bits of [`TileState`] per tile slot of every compressible region, and
//! the provenance of each compressed tile's texels (compressed bytes cannot carry one tag per
//! decoded word, so the tags travel beside the metadata, as the bytes' meaning does). A region is
//! what an image with compression enables; with a granularity of 65536 (the seed profiles:
//! metadata per 64 KiB page, `bufferImageGranularity` 65536) it is widened to whole pages, so a
//! buffer placed in the same page is read through that page's metadata, which is why the
//! granularity exists. With a granularity of 1 the metadata is the image's own.
//!
//! [`Codec`] is a [`MemoryLevel`] over the next level (device memory, or an L2): an access
//! outside every region passes through; inside one it is cut at tile slots. A read of a tile
//! reads the slot's used bytes (none for a fast-clear state) and decodes them. A write of a
//! whole slot (what a ROP tile cache with 256-byte lines writes back) encodes it; a write of
//! part of a slot decodes the tile, updates it and encodes it again (the seed's
//! read-decompress-modify-compress). Only the used bytes of a slot are written: the rest keeps
//! whatever it held, which is what a raw reader of a compressed tile sees.

use std::collections::{BTreeMap, HashMap};

use bitvec::prelude::*;
use sim_caches::{AccessError, AccessReport, MemoryLevel, Tag, Tags, word_span};

use crate::codec::{self, TileState};

/// A region of compressible tile slots.
#[derive(Clone, Debug)]
struct Region {
    /// One past its last byte.
    end: u64,
    /// Bytes a slot takes.
    slot: u64,
    /// Bytes a texel takes.
    texel: usize,
    /// The fast-clear values as texel bytes.
    clear: Vec<Vec<u8>>,
    /// Per slot, the 4-bit state code.
    states: Vec<u8>,
    /// Per slot not raw, the tags of its words as last written.
    tags: HashMap<u64, Vec<Tag>>,
}

/// A region the metadata cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// It overlaps a region of another slot or texel size.
    #[error("bytes [{base}, {end}) overlap compressed memory laid out in {other}-byte slots, not {slot}: keep them bufferImageGranularity ({granularity}) apart")]
    Overlap {
        /// Start.
        base: u64,
        /// End.
        end: u64,
        /// This region's slot size.
        slot: u64,
        /// The other's.
        other: u64,
        /// The granularity.
        granularity: u64,
    },
    /// The slot size does not divide the region or the granularity.
    #[error("a {slot}-byte slot size does not fit metadata kept per {granularity} bytes")]
    Slot {
        /// The slot size.
        slot: u64,
        /// The granularity.
        granularity: u64,
    },
}

/// Compression metadata of the whole address space.
#[derive(Clone, Debug)]
pub struct Metadata {
    granularity: u64,
    regions: BTreeMap<u64, Region>,
}

/// What [`Metadata::tile`] says of an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileInfo {
    /// The slot's first byte.
    pub slot_addr: u64,
    /// Its size.
    pub slot: u64,
    /// Bytes a texel takes.
    pub texel: usize,
    /// Its state.
    pub state: TileState,
}

impl Metadata {
    /// Metadata kept per `granularity` bytes (65536: per page; 1: per image).
    pub fn new(granularity: u64) -> Metadata {
        Metadata { granularity: granularity.max(1), regions: BTreeMap::new() }
    }

    /// The granularity.
    pub fn granularity(&self) -> u64 {
        self.granularity
    }

    /// Whether no memory is compressible (every access passes through).
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The compressible regions, `(start, end)`, in address order.
    pub fn regions(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.regions.iter().map(|(&s, r)| (s, r.end))
    }

    /// Makes `[base, base + len)` compressible in `slot`-byte slots of `texel`-byte texels, its
    /// tiles raw (a metadata initialisation: no data moves); `clear` lists the fast-clear values
    /// as texel bytes. The region is widened to the granularity.
    pub fn enable(&mut self, base: u64, len: u64, slot: u64, texel: usize, clear: Vec<Vec<u8>>) -> Result<(), MetadataError> {
        let g = self.granularity;
        if slot == 0 || (g > 1 && !g.is_multiple_of(slot)) {
            return Err(MetadataError::Slot { slot, granularity: g });
        }
        let start = base / g * g;
        let end = (base + len).div_ceil(g) * g;
        // Regions it overlaps must agree on the slot size; they are merged into one.
        let overlapping: Vec<u64> = self.regions.range(..end).filter(|(_, r)| r.end > start).map(|(&s, _)| s).collect();
        for s in &overlapping {
            let r = &self.regions[s];
            if r.slot != slot || r.texel != texel {
                return Err(MetadataError::Overlap { base, end: base + len, slot, other: r.slot, granularity: g });
            }
        }
        let (mut lo, mut hi) = (start, end);
        for s in &overlapping {
            lo = lo.min(*s);
            hi = hi.max(self.regions[s].end);
        }
        let lo = lo / slot * slot;
        let mut merged = Region { end: hi, slot, texel, clear, states: vec![0; (hi - lo).div_ceil(slot) as usize], tags: HashMap::new() };
        for s in overlapping {
            let old = self.regions.remove(&s).expect("listed above");
            let first = ((s - lo) / slot) as usize;
            merged.states[first..first + old.states.len()].copy_from_slice(&old.states);
            merged.tags.extend(old.tags);
        }
        self.regions.insert(lo, merged);
        Ok(())
    }

    /// The region holding `addr`: (start, region).
    fn region(&self, addr: u64) -> Option<(u64, &Region)> {
        self.regions.range(..=addr).next_back().filter(|(_, r)| addr < r.end).map(|(&s, r)| (s, r))
    }

    fn region_mut(&mut self, addr: u64) -> Option<(u64, &mut Region)> {
        self.regions.range_mut(..=addr).next_back().filter(|(_, r)| addr < r.end).map(|(&s, r)| (s, r))
    }

    /// The tile slot holding `addr`, when it lies in compressible memory.
    pub fn tile(&self, addr: u64) -> Option<TileInfo> {
        let (start, r) = self.region(addr)?;
        let k = (addr - start) / r.slot;
        Some(TileInfo { slot_addr: start + k * r.slot, slot: r.slot, texel: r.texel, state: TileState::from_code(r.states[k as usize]) })
    }

    /// The start of the next region after `addr`, if any (where a pass-through access stops).
    fn next_region(&self, addr: u64) -> Option<u64> {
        self.regions.range(addr + 1..).next().map(|(&s, _)| s)
    }

    /// Sets the state of the slot at `slot_addr` and the tags of its words (`None`: raw, the tags
    /// are in memory).
    fn set(&mut self, slot_addr: u64, state: TileState, tags: Option<Vec<Tag>>) {
        if let Some((start, r)) = self.region_mut(slot_addr) {
            let k = (slot_addr - start) / r.slot;
            r.states[k as usize] = state.code();
            match tags {
                Some(t) => {
                    r.tags.insert(slot_addr, t);
                }
                None => {
                    r.tags.remove(&slot_addr);
                }
            }
        }
    }

    /// A fast clear of the slot at `slot_addr` to clear value `k`: metadata only, no data moves.
    /// `tag` is the clear's provenance for every word.
    pub fn fast_clear(&mut self, slot_addr: u64, k: u8, tag: Tag) {
        if let Some(t) = self.tile(slot_addr) {
            self.set(t.slot_addr, TileState::Clear(k), Some(vec![tag; (t.slot / 4) as usize]));
        }
    }

    /// Every tile of `[base, base + len)` marked raw again without moving data: what a
    /// transition from UNDEFINED does (the contents are undefined; whatever the slots hold is
    /// what is read).
    pub fn discard(&mut self, base: u64, len: u64) {
        for slot_addr in self.slots(base, len) {
            self.set(slot_addr, TileState::Raw, None);
        }
    }

    /// Every tile of `[base, base + len)` given the state its metadata bits happen to hold when
    /// nothing initialized them: a state drawn from the slot's address and `salt` (never raw,
    /// so a reader sees that the bits were left as they were). What metadata memory holds
    /// before a driver's metadata initialization, and what the metadata of a page's bytes
    /// outside any image holds.
    pub fn leave_undefined(&mut self, base: u64, len: u64, salt: u64) {
        for slot_addr in self.slots(base, len) {
            let Some((_, r)) = self.region(slot_addr) else { continue };
            let states = 3 + r.clear.len() as u64;
            let mut x = slot_addr ^ salt.rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15;
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^= x >> 31;
            self.set(slot_addr, TileState::from_code(1 + (x % states) as u8), None);
        }
    }

    /// The slot addresses of compressible memory in `[base, base + len)`.
    pub fn slots(&self, base: u64, len: u64) -> Vec<u64> {
        let end = base.saturating_add(len);
        let mut out = Vec::new();
        for (&s, r) in self.regions.range(..end).filter(|(_, r)| r.end > base) {
            let mut a = s + base.saturating_sub(s) / r.slot * r.slot;
            while a < end.min(r.end) {
                out.push(a);
                a += r.slot;
            }
        }
        out
    }

    /// How many tiles of `[base, base + len)` are in each state: (raw, compressed, cleared).
    pub fn census(&self, base: u64, len: u64) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        for a in self.slots(base, len) {
            match self.tile(a).map(|t| t.state) {
                Some(TileState::Raw) | None => c.0 += 1,
                Some(TileState::Compressed(_)) => c.1 += 1,
                Some(TileState::Clear(_)) => c.2 += 1,
            }
        }
        c
    }
}

/// The encode/decode level: [`Metadata`] over the next level.
pub struct Codec<'a, N: MemoryLevel + ?Sized> {
    /// The metadata.
    pub meta: &'a mut Metadata,
    /// The level below (device memory or an L2).
    pub next: &'a mut N,
    /// Whether the unit reading through it understands fast-cleared tiles: one that does not
    /// (a texture unit that needs a fast-clear eliminate first) reads their raw slots.
    pub clears: bool,
}

/// What a tile decodes to: its bytes and the tags of its words.
struct Decoded {
    bytes: Vec<u8>,
    tags: Vec<Tag>,
}

impl<'a, N: MemoryLevel + ?Sized> Codec<'a, N> {
    /// `meta` over `next`, for a unit that understands every state.
    pub fn new(meta: &'a mut Metadata, next: &'a mut N) -> Codec<'a, N> {
        Codec { meta, next, clears: true }
    }

    /// Reads and decodes the tile `t`.
    fn load(&mut self, t: &TileInfo, report: &mut AccessReport) -> Result<Decoded, AccessError> {
        let slot = t.slot as usize;
        let words = slot / 4;
        if t.state == TileState::Raw || (!self.clears && matches!(t.state, TileState::Clear(_))) {
            let mut bytes = vec![0; slot];
            let mut tags = vec![0; words];
            report.merge(&self.next.read(t.slot_addr, &mut bytes, &mut tags)?);
            return Ok(Decoded { bytes, tags });
        }
        let used = t.state.bytes_used(slot);
        let mut payload = vec![0; used];
        if used > 0 {
            let mut ptags = vec![0; word_span(t.slot_addr, used)];
            report.merge(&self.next.read(t.slot_addr, &mut payload, &mut ptags)?);
        }
        let clear = self.meta.region(t.slot_addr).map(|(_, r)| r.clear.clone()).unwrap_or_default();
        // Bytes that are not a compressed form (a writer that ignored the metadata overwrote
        // them) decode to garbage, as they would in hardware: the used bytes repeated.
        let bytes = codec::decode(t.state, &payload, slot, t.texel, &clear).unwrap_or_else(|| payload.iter().copied().chain(std::iter::repeat(0)).cycle().take(slot).collect());
        let tags = self.meta.region(t.slot_addr).and_then(|(_, r)| r.tags.get(&t.slot_addr).cloned()).unwrap_or_else(|| vec![0; words]);
        Ok(Decoded { bytes, tags })
    }

    /// Encodes `d` into the slot of `t` and records its state. A write compresses; only a fast
    /// clear ([`Metadata::fast_clear`]) puts a tile in a clear state.
    fn store(&mut self, t: &TileInfo, d: Decoded, report: &mut AccessReport) -> Result<(), AccessError> {
        let e = codec::encode(&d.bytes, t.texel, &[]);
        match e.state {
            TileState::Raw => {
                report.merge(&self.next.write(t.slot_addr, &e.payload, Tags::Words(&d.tags), None)?);
                self.meta.set(t.slot_addr, TileState::Raw, None);
            }
            state => {
                if !e.payload.is_empty() {
                    // The compressed bytes are the tile's writer's (its first word's).
                    report.merge(&self.next.write(t.slot_addr, &e.payload, Tags::One(d.tags[0]), None)?);
                }
                self.meta.set(t.slot_addr, state, Some(d.tags));
            }
        }
        Ok(())
    }

    /// Writes every compressed or cleared tile of `[base, base + len)` back raw and marks it so:
    /// a decompression (the layout transitions that need one). Returns the tiles it rewrote.
    pub fn decompress(&mut self, base: u64, len: u64) -> Result<(u64, AccessReport), AccessError> {
        self.rewrite(base, len, |s| s != TileState::Raw, |c, t, d, report| {
            report.merge(&c.next.write(t.slot_addr, &d.bytes, Tags::Words(&d.tags), None)?);
            c.meta.set(t.slot_addr, TileState::Raw, None);
            Ok(())
        })
    }

    /// Writes every fast-cleared tile of `[base, base + len)` as its compressed form, so that
    /// units that do not understand fast clears read it (AMD's fast-clear eliminate). Returns
    /// the tiles it rewrote.
    pub fn eliminate_fast_clears(&mut self, base: u64, len: u64) -> Result<(u64, AccessReport), AccessError> {
        self.rewrite(base, len, |s| matches!(s, TileState::Clear(_)), |c, t, d, report| c.store(t, d, report))
    }

    /// Decodes every tile of `[base, base + len)` whose state `wanted` picks and hands it to
    /// `write` to store again: the loop a decompression and an eliminate share. Returns the
    /// tiles rewritten.
    fn rewrite(
        &mut self,
        base: u64,
        len: u64,
        wanted: impl Fn(TileState) -> bool,
        mut write: impl FnMut(&mut Self, &TileInfo, Decoded, &mut AccessReport) -> Result<(), AccessError>,
    ) -> Result<(u64, AccessReport), AccessError> {
        let mut report = AccessReport::default();
        let mut n = 0;
        for a in self.meta.slots(base, len) {
            let Some(t) = self.meta.tile(a) else { continue };
            if !wanted(t.state) {
                continue;
            }
            let d = self.load(&t, &mut report)?;
            write(self, &t, d, &mut report)?;
            n += 1;
        }
        Ok((n, report))
    }

    /// The next piece of an access at `addr` of `len` bytes: (length, the tile it lies in).
    fn piece(&self, addr: u64, len: usize) -> (usize, Option<TileInfo>) {
        match self.meta.tile(addr) {
            Some(t) => (((t.slot_addr + t.slot - addr) as usize).min(len), Some(t)),
            None => {
                let stop = self.meta.next_region(addr).map_or(len, |s| ((s - addr) as usize).min(len));
                (stop.max(1), None)
            }
        }
    }
}

/// The index of the word holding `a` among those an access from `start` spans.
fn word_of(start: u64, a: u64) -> usize {
    (a / 4 - start / 4) as usize
}

impl<N: MemoryLevel + ?Sized> MemoryLevel for Codec<'_, N> {
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        Tags::Words(&*tags).check_len(addr, data.len())?;
        let mut report = AccessReport::default();
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let (n, tile) = self.piece(a, data.len() - done);
            let w = word_of(addr, a);
            let span = word_span(a, n);
            match tile {
                None => report.merge(&self.next.read(a, &mut data[done..done + n], &mut tags[w..w + span])?),
                Some(t) => {
                    let d = self.load(&t, &mut report)?;
                    let off = (a - t.slot_addr) as usize;
                    data[done..done + n].copy_from_slice(&d.bytes[off..off + n]);
                    let first = off / 4;
                    tags[w..w + span].copy_from_slice(&d.tags[first..first + span]);
                }
            }
            done += n;
        }
        Ok(report)
    }

    fn write(&mut self, addr: u64, data: &[u8], tags: Tags<'_>, mask: Option<&BitSlice<u64, Lsb0>>) -> Result<AccessReport, AccessError> {
        tags.check_len(addr, data.len())?;
        let mut report = AccessReport::default();
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let (n, tile) = self.piece(a, data.len() - done);
            let w = word_of(addr, a);
            let span = word_span(a, n);
            let part_mask = mask.map(|m| &m[done..done + n]);
            match tile {
                None => {
                    let sub = match tags {
                        Tags::One(t) => Tags::One(t),
                        Tags::Words(ws) => Tags::Words(&ws[w..w + span]),
                    };
                    report.merge(&self.next.write(a, &data[done..done + n], sub, part_mask)?);
                }
                Some(t) => {
                    let whole = n as u64 == t.slot && part_mask.is_none_or(|m| m.all());
                    let mut d = if whole {
                        Decoded { bytes: vec![0; n], tags: vec![0; n / 4] }
                    } else {
                        self.load(&t, &mut report)?
                    };
                    let off = (a - t.slot_addr) as usize;
                    for k in 0..n {
                        if part_mask.is_none_or(|m| m[k]) {
                            d.bytes[off + k] = data[done + k];
                            d.tags[(off + k) / 4] = tags.get(word_of(addr, a + k as u64));
                        }
                    }
                    self.store(&t, d, &mut report)?;
                }
            }
            done += n;
        }
        Ok(report)
    }
}

/// Length checks the levels of `sim-caches` make, for a level outside it.
trait CheckLen {
    fn check_len(&self, addr: u64, len: usize) -> Result<(), AccessError>;
}

impl CheckLen for Tags<'_> {
    fn check_len(&self, addr: u64, len: usize) -> Result<(), AccessError> {
        if addr.checked_add(len as u64).is_none() {
            return Err(AccessError::OutOfRange { addr, len, size: u64::MAX });
        }
        if let Tags::Words(w) = self
            && w.len() != word_span(addr, len)
        {
            return Err(AccessError::TagLength { want: word_span(addr, len), got: w.len() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_caches::BackingStore;

    fn memory() -> BackingStore {
        BackingStore::new(1 << 24, 1, 256).unwrap()
    }

    #[test]
    fn a_compressed_tile_reads_back_decoded_and_raw_readers_see_garbage() {
        let mut vram = memory();
        // Garbage in the slot before the image is compressed there.
        vram.poke(0x10000, &[0xee; 256], 1).unwrap();
        let mut meta = Metadata::new(65536);
        meta.enable(0x10000, 256, 256, 4, vec![vec![0, 0, 0, 0]]).unwrap();
        let tile: Vec<u8> = (0..64).flat_map(|i| if i % 2 == 0 { [1, 2, 3, 4] } else { [5, 6, 7, 8] }).collect();
        let mut codec = Codec::new(&mut meta, &mut vram);
        codec.write(0x10000, &tile, Tags::One(7), None).unwrap();
        assert_eq!(codec.meta.tile(0x10000).unwrap().state, TileState::Compressed(8));
        let (mut back, mut tags) = (vec![0; 256], vec![0; 64]);
        codec.read(0x10000, &mut back, &mut tags).unwrap();
        assert_eq!(back, tile);
        assert!(tags.iter().all(|&t| t == 7));
        // A reader that bypasses the metadata: 32 compressed bytes, then the old garbage.
        let (mut raw, mut rtags) = (vec![0; 256], vec![0; 64]);
        vram.peek(0x10000, &mut raw, &mut rtags).unwrap();
        assert_ne!(raw, tile);
        assert!(raw[32..].iter().all(|&b| b == 0xee));
    }

    #[test]
    fn a_buffer_in_a_compressed_page_is_read_through_its_metadata() {
        let mut vram = memory();
        let mut meta = Metadata::new(65536);
        // An image of one tile at the page's start; the rest of the page becomes compressible.
        meta.enable(0x20000, 256, 256, 4, vec![vec![0; 4]]).unwrap();
        assert!(meta.tile(0x20000 + 4096).is_some(), "the whole page is compressible");
        assert!(meta.tile(0x30000).is_none(), "the next page is not");
        // Per image: only the image's bytes.
        let mut own = Metadata::new(1);
        own.enable(0x20000, 256, 256, 4, vec![]).unwrap();
        assert!(own.tile(0x20000 + 4096).is_none());
        // A buffer written at 0x24000 by a path that knows nothing of the metadata (a copy
        // straight to memory), then a fast clear of the slot it lies in: read through the
        // metadata, the buffer's bytes are now the clear colour.
        vram.poke(0x24000, &[9; 16], 3).unwrap();
        meta.fast_clear(0x24000, 0, 5);
        let mut codec = Codec::new(&mut meta, &mut vram);
        let (mut b, mut t) = (vec![0; 16], vec![0; 4]);
        codec.read(0x24000, &mut b, &mut t).unwrap();
        assert_eq!(b, vec![0; 16]);
        assert_eq!(t, vec![5; 4]);
    }

    /// A write never makes a fast-clear state, even of a clear colour (only a fast clear does);
    /// an eliminate writes fast-cleared tiles in their compressed form, readable by a unit that
    /// does not understand fast clears, which read the raw slot before.
    #[test]
    fn fast_clears_come_only_from_fast_clears_and_an_eliminate_makes_them_readable() {
        let mut vram = memory();
        vram.poke(0, &[0xab; 512], 1).unwrap();
        let mut meta = Metadata::new(1);
        meta.enable(0, 512, 256, 4, vec![vec![0xff; 4]]).unwrap();
        let mut codec = Codec::new(&mut meta, &mut vram);
        codec.write(0, &[0xff; 256], Tags::One(2), None).unwrap();
        assert_eq!(codec.meta.tile(0).unwrap().state, TileState::Compressed(8));
        codec.meta.fast_clear(256, 0, 3);
        // A reader without fast-clear support sees the slot's stored bytes.
        let (mut b, mut t) = (vec![0; 256], vec![0; 64]);
        Codec { meta: &mut meta, next: &mut vram, clears: false }.read(256, &mut b, &mut t).unwrap();
        assert_eq!(b, vec![0xab; 256]);
        let (n, _) = Codec::new(&mut meta, &mut vram).eliminate_fast_clears(0, 512).unwrap();
        assert_eq!(n, 1, "only the fast-cleared tile is rewritten");
        assert_eq!(meta.tile(256).unwrap().state, TileState::Compressed(8));
        Codec { meta: &mut meta, next: &mut vram, clears: false }.read(256, &mut b, &mut t).unwrap();
        assert_eq!(b, vec![0xff; 256]);
        assert_eq!(t, vec![3; 64], "the clear's provenance survives the eliminate");
    }

    /// Metadata nobody initialized holds states that are not raw, the same for the same slot and
    /// salt; a discard (a metadata initialization) makes them raw.
    #[test]
    fn undefined_metadata_is_garbage_until_initialized() {
        let mut meta = Metadata::new(65536);
        meta.enable(0, 4096, 256, 4, vec![vec![0; 4]; 4]).unwrap();
        meta.leave_undefined(0, 65536, 7);
        let states: Vec<TileState> = meta.slots(0, 65536).iter().map(|&a| meta.tile(a).unwrap().state).collect();
        assert_eq!(states.len(), 256);
        assert!(states.iter().all(|&s| s != TileState::Raw));
        assert!(states.iter().any(|s| matches!(s, TileState::Clear(_))) && states.iter().any(|s| matches!(s, TileState::Compressed(_))));
        let mut again = Metadata::new(65536);
        again.enable(0, 4096, 256, 4, vec![vec![0; 4]; 4]).unwrap();
        again.leave_undefined(0, 65536, 7);
        assert!(meta.slots(0, 65536).iter().all(|&a| meta.tile(a) == again.tile(a)));
        meta.discard(0, 65536);
        assert_eq!(meta.census(0, 65536), (256, 0, 0));
    }

    #[test]
    fn a_partial_write_decodes_updates_and_encodes_the_tile() {
        let mut vram = memory();
        let mut meta = Metadata::new(1);
        meta.enable(0, 512, 256, 4, vec![vec![0; 4]]).unwrap();
        meta.fast_clear(0, 0, 1);
        let mut codec = Codec::new(&mut meta, &mut vram);
        codec.write(8, &[1, 1, 1, 1], Tags::One(2), None).unwrap();
        // One texel differs from the clear: two colours, 8:1.
        assert_eq!(codec.meta.tile(0).unwrap().state, TileState::Compressed(8));
        let (mut b, mut t) = (vec![0; 16], vec![0; 4]);
        codec.read(0, &mut b, &mut t).unwrap();
        assert_eq!(b, vec![0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]);
        assert_eq!(t, vec![1, 1, 2, 1]);
        // A read across two tiles and past the region.
        let (mut b, mut t) = (vec![0; 600], vec![0; 150]);
        codec.read(0, &mut b, &mut t).unwrap();
        assert_eq!(b[8], 1);
        // Decompression writes every non-raw tile raw.
        let (n, _) = codec.decompress(0, 512).unwrap();
        assert_eq!(n, 1);
        assert_eq!(codec.meta.census(0, 512), (2, 0, 0));
        let (mut raw, mut rt) = (vec![0; 16], vec![0; 4]);
        vram.peek(0, &mut raw, &mut rt).unwrap();
        assert_eq!(raw, b[..16].to_vec());
        assert_eq!(rt, vec![1, 1, 2, 1]);
    }

    #[test]
    fn regions_of_other_slot_sizes_may_not_share_a_page() {
        let mut meta = Metadata::new(65536);
        meta.enable(0, 256, 256, 4, vec![]).unwrap();
        let e = meta.enable(4096, 1024, 1024, 16, vec![]).unwrap_err();
        assert!(matches!(e, MetadataError::Overlap { .. }), "{e}");
        assert!(e.to_string().contains("bufferImageGranularity (65536)"), "{e}");
        meta.enable(65536, 1024, 1024, 16, vec![]).unwrap();
    }
}
