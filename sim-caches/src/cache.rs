//! The set-associative cache that holds real bytes.
//!
//! # Data layout
//! A cache of `S` sets and `W` ways has `S * W` slots, stored structure-of-arrays: the line
//! number held by each slot (`INVALID` when empty), a one-byte hash of it (so that a lookup in
//! a set of 4, 8 or 16 ways compares all of the set's hint bytes in one vector compare and line
//! numbers only where a byte matches), the line's bytes, one provenance tag per 4-byte word, and
//! two byte masks per slot, *valid* and *dirty* (`line_bytes / 64` words each, at least one).
//! Slots are numbered set by set, except for bytes and tags, which are kept way by way (see
//! `Cache::frame`) so that a streaming access fills them in address order. Bytes, tags, line
//! numbers and hints start on host cache lines, so that a 64-byte frame is one host line.
//! Replacement state is per set: for LRU the ways in order of use packed four bits each into one
//! word, with a bit mask of the occupied ways beside it (per-slot stamps instead when a set has
//! more than 16 ways); for tree-PLRU the tree's bits.
//!
//! # Policies in terms of the masks
//! - A line filled from the next level is fully valid. Only the per-byte write-back policy can
//!   hold a partly valid line: its write misses allocate without fetching, so a later read that
//!   needs bytes not yet valid fetches the line and merges it *under* the valid bytes.
//! - Per-byte dirty: the dirty mask is exactly the bytes written. Per-line dirty: any write sets
//!   the whole mask, so a write-back sends the whole line, stale bytes included.
//! - A write-back sends the dirty bytes with their mask (or the whole line when all are dirty).
//!
//! The cache does not own its next level: every operation takes it as an argument (anything
//! implementing [`MemoryLevel`]), so many L1s can share one L2 without shared ownership, and
//! [`Chained`] bundles a cache with its next level into a level of its own.

use std::ops::Range;

use bitvec::prelude::*;
use serde::Serialize;

use crate::error::{AccessError, SpecError};
use crate::huge::HugeBuf;
use crate::level::{AccessReport, MemoryLevel, TAG_GRANULE, Tag, Tags, copy, host_prefetch_at, word_span};
use crate::spec::{CacheSpec, DirtyOnInvalidate, Replacement, WritePolicy};

const INVALID: u64 = u64::MAX;

/// The host's cache line: frames' bytes and tags start on one, so that a 64-byte frame is one
/// host line, not two (an allocator's large blocks start 16 bytes past a page).
const HOST_LINE_BYTES: usize = 64;

/// The most bytes of lines a cache may hold and still get no hint of its own state from
/// [`Cache::prefetch`] (its next level still gets one). Such a cache (a GPU L1 or texture cache)
/// has arrays that stay in the host core's own caches under any traffic, so hinting them spends
/// instructions for nothing: on the two-level random loads of `benches/caches.rs`, leaving the
/// 32 KiB L1's state unhinted ran them about 7% faster (BENCHMARKS.md, ninth round).
pub const OWN_HINT_MAX_BYTES: u64 = 64 * 1024;

/// Calls `$cache.$method::<N, LB, W>(args)` with the cache's line size `LB` and associativity
/// `W` as constants for the geometries that get code of their own (0 for what is not constant):
/// 64-byte lines of 4, 8 or 16 ways, 128-byte lines of 8 or 16 ways (GPU L1s and L2s), 32-byte
/// lines of any associativity. One dispatch, on the [`Geometry`] a cache records when it is
/// built, so that reads and writes agree on it (and the acceptance test's geometries cover it).
macro_rules! by_geometry {
    ($cache:ident, $method:ident::<$n:ty>($($arg:expr),*)) => {
        match $cache.geometry {
            Geometry::L64W4 => $cache.$method::<$n, 64, 4>($($arg),*),
            Geometry::L64W8 => $cache.$method::<$n, 64, 8>($($arg),*),
            Geometry::L64W16 => $cache.$method::<$n, 64, 16>($($arg),*),
            Geometry::L128W8 => $cache.$method::<$n, 128, 8>($($arg),*),
            Geometry::L128W16 => $cache.$method::<$n, 128, 16>($($arg),*),
            Geometry::L32 => $cache.$method::<$n, 32, 0>($($arg),*),
            Geometry::Other => $cache.$method::<$n, 0, 0>($($arg),*),
        }
    };
}

/// The geometries [`by_geometry!`] compiles code of its own for, decided once when the cache is
/// built (one jump on a byte per access, instead of comparing line size and ways each time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Geometry {
    /// 64-byte lines, 4 ways.
    L64W4,
    /// 64-byte lines, 8 ways.
    L64W8,
    /// 64-byte lines, 16 ways.
    L64W16,
    /// 128-byte lines, 8 ways.
    L128W8,
    /// 128-byte lines, 16 ways.
    L128W16,
    /// 32-byte lines, any associativity.
    L32,
    /// Everything else: line size and associativity read from the cache.
    Other,
}

impl Geometry {
    /// The geometry of a cache of `line_bytes`-byte lines and `ways` ways.
    fn of(line_bytes: usize, ways: usize) -> Geometry {
        match (line_bytes, ways) {
            (64, 4) => Geometry::L64W4,
            (64, 8) => Geometry::L64W8,
            (64, 16) => Geometry::L64W16,
            (128, 8) => Geometry::L128W8,
            (128, 16) => Geometry::L128W16,
            (32, _) => Geometry::L32,
            _ => Geometry::Other,
        }
    }
}
/// The most ways whose LRU order fits one word, four bits a way.
const LRU_ORDER_WAYS: usize = 16;

/// The LRU state of a set of at most 16 ways.
#[derive(Clone, Copy)]
struct LruSet {
    /// The ways from most to least recently used, four bits a way. Nibbles past the set's ways
    /// hold values no way has.
    order: u64,
    /// The occupied ways, one bit a way.
    occupied: u64,
}

impl LruSet {
    /// An empty set: way `w` at position `w` (the order of empty ways does not matter: an empty
    /// way is filled before any occupied one is replaced, and moves to the front when it is).
    const EMPTY: LruSet = LruSet { order: 0xFEDC_BA98_7654_3210, occupied: 0 };

    /// The way a miss in this set of `ways` ways replaces: the first empty way, else the last
    /// in the order (the least recently used); and whether it is empty.
    #[inline(always)]
    fn victim_way(&self, ways: usize) -> (usize, bool) {
        let all = u64::MAX >> (64 - ways);
        if self.occupied != all { ((!self.occupied).trailing_zeros() as usize, true) } else { ((self.order >> (4 * (ways - 1))) as usize & 0xF, false) }
    }
}

/// Statistics of one cache, accumulated over its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Read operations issued to this cache.
    pub reads: u64,
    /// Write operations issued to this cache.
    pub writes: u64,
    /// Read-modify-write (atomic) operations performed at this cache.
    pub atomics: u64,
    /// Lines that reads found present with the bytes they needed.
    pub read_hits: u64,
    /// Lines that reads needed and did not find (or found only partly valid).
    pub read_misses: u64,
    /// Lines that writes found present.
    pub write_hits: u64,
    /// Lines that writes did not find.
    pub write_misses: u64,
    /// Lines fetched from the next level.
    pub fills: u64,
    /// Valid lines dropped to make room.
    pub evictions: u64,
    /// Lines written back to the next level, for any reason.
    pub writebacks: u64,
    /// Bytes those write-backs carried.
    pub writeback_bytes: u64,
    /// Bytes passed down by the write-through policy.
    pub write_through_bytes: u64,
    /// Flush operations (including the flush half of flush+invalidate).
    pub flushes: u64,
    /// Invalidate operations (including flush+invalidate).
    pub invalidations: u64,
    /// Lines dropped by invalidations.
    pub lines_invalidated: u64,
    /// Dirty lines dropped without write-back by an invalidate (the unsafe `discard` setting).
    pub lines_discarded: u64,
}

impl CacheStats {
    /// Hits of reads and writes together.
    pub fn hits(&self) -> u64 {
        self.read_hits + self.write_hits
    }

    /// Misses of reads and writes together.
    pub fn misses(&self) -> u64 {
        self.read_misses + self.write_misses
    }
}

/// What a maintenance operation does to each line it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Maintenance {
    /// Write dirty data back; keep the (now clean) line.
    Flush,
    /// Drop the line. Dirty data is written back first unless the spec says `discard`.
    Invalidate,
    /// Write dirty data back and drop the line.
    FlushInvalidate,
}

/// A set-associative cache holding real bytes and their provenance.
pub struct Cache {
    name: String,
    spec: CacheSpec,
    line_bytes: usize,
    line_shift: u32,
    mask_words: usize,
    last_mask_word: u64,
    set_mask: u64,
    /// `log2` of the number of sets (a power of two).
    set_shift: u32,
    ways: usize,
    /// Which compiled-in geometry `line_bytes` and `ways` are ([`by_geometry!`]).
    geometry: Geometry,
    plru_levels: u32,
    lines: HugeBuf<u64>,
    /// Beside `lines`: a hash of each slot's line ([`line_hint`]), so that a lookup compares one
    /// byte per way, all of a set's at once, before it compares line numbers. An empty slot
    /// keeps whatever hint it had: its line number (`INVALID`) never matches.
    way_hints: HugeBuf<u8>,
    data: HugeBuf<u8>,
    tags: HugeBuf<Tag>,
    valid: Vec<u64>,
    dirty: Vec<u64>,
    /// LRU over more than 16 ways: the time of each slot's last use (0: empty).
    stamps: Vec<u64>,
    /// LRU over at most 16 ways: each set's order of use and occupied ways, side by side (one
    /// bounds check and one host cache line for both).
    lru: Vec<LruSet>,
    plru: Vec<u64>,
    rng: u64,
    clock: u64,
    /// The line used last while it is fully valid, for the fast path of [`Cache::read`]: its
    /// first address and its length (0: none, so that no address falls in it); `mru_slot` holds
    /// it and `mru_at` is where its bytes start in `data`.
    mru_addr: u64,
    mru_len: usize,
    mru_slot: usize,
    mru_at: usize,
    /// Reads served by that fast path: counted apart (one increment instead of two) and folded
    /// into `reads` and `read_hits` by [`Cache::stats`].
    mru_hits: u64,
    /// Whether [`Cache::prefetch`] hints this cache's own state: it holds more than
    /// [`OWN_HINT_MAX_BYTES`] of lines.
    hint_own: bool,
    resident: usize,
    fill_data: Vec<u8>,
    fill_tags: Vec<Tag>,
    stats: CacheStats,
}

impl Cache {
    /// Builds an empty cache. `seed` drives the random replacement policy (and nothing else).
    pub fn new(name: impl Into<String>, spec: &CacheSpec, seed: u64) -> Result<Cache, SpecError> {
        spec.validate()?;
        let sets = spec.sets() as usize;
        let ways = spec.ways as usize;
        let slots = sets * ways;
        let line_bytes = spec.line_bytes as usize;
        let mask_words = line_bytes.div_ceil(64);
        let last_mask_word = if line_bytes.is_multiple_of(64) { u64::MAX } else { (1u64 << (line_bytes % 64)) - 1 };
        Ok(Cache {
            name: name.into(),
            spec: spec.clone(),
            line_bytes,
            line_shift: spec.line_bytes.trailing_zeros(),
            mask_words,
            last_mask_word,
            set_mask: sets as u64 - 1,
            set_shift: sets.trailing_zeros(),
            ways,
            geometry: Geometry::of(line_bytes, ways),
            plru_levels: spec.ways.trailing_zeros(),
            lines: { let mut l = HugeBuf::zeroed_aligned(slots, HOST_LINE_BYTES); l.fill(INVALID); l },
            way_hints: HugeBuf::zeroed_aligned(slots, HOST_LINE_BYTES),
            data: HugeBuf::zeroed_aligned(slots * line_bytes, HOST_LINE_BYTES),
            tags: HugeBuf::zeroed_aligned(slots * line_bytes / TAG_GRANULE as usize, HOST_LINE_BYTES),
            valid: vec![0; slots * mask_words],
            dirty: vec![0; slots * mask_words],
            stamps: if spec.replacement == Replacement::Lru && ways > LRU_ORDER_WAYS { vec![0; slots] } else { Vec::new() },
            lru: if spec.replacement == Replacement::Lru && ways <= LRU_ORDER_WAYS { vec![LruSet::EMPTY; sets] } else { Vec::new() },
            plru: if spec.replacement == Replacement::TreePlru { vec![0; sets] } else { Vec::new() },
            // xorshift must not start at zero.
            rng: seed ^ 0x9E37_79B9_7F4A_7C15 | 1,
            clock: 0,
            mru_addr: 0,
            mru_len: 0,
            mru_slot: 0,
            mru_at: 0,
            mru_hits: 0,
            hint_own: spec.size_bytes > OWN_HINT_MAX_BYTES,
            resident: 0,
            fill_data: vec![0; line_bytes],
            fill_tags: vec![0; line_bytes / TAG_GRANULE as usize],
            stats: CacheStats::default(),
        })
    }

    /// The cache's name, as used in reports (`"L1[3]"`, `"L2"`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The spec it was built from.
    pub fn spec(&self) -> &CacheSpec {
        &self.spec
    }

    /// Statistics so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats { reads: self.stats.reads + self.mru_hits, read_hits: self.stats.read_hits + self.mru_hits, ..self.stats }
    }

    /// Number of valid lines.
    pub fn resident_lines(&self) -> usize {
        self.resident
    }

    /// Number of lines holding dirty bytes.
    pub fn dirty_lines(&self) -> usize {
        (0..self.lines.len()).filter(|&s| self.lines[s] != INVALID && self.is_dirty::<0>(s)).count()
    }

    /// Whether the line holding `addr` is present (valid in any byte).
    pub fn contains(&self, addr: u64) -> bool {
        self.lookup(addr >> self.line_shift).is_some()
    }

    /// Reads the bytes and provenance this cache holds for `[addr, addr + data.len())` without
    /// side effects, or `None` when a byte is not held. For reports and tests.
    pub fn probe(&self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Option<()> {
        if addr.checked_add(data.len() as u64).is_none() || tags.len() != word_span(addr, data.len()) {
            return None;
        }
        for seg in self.segments(addr, data.len()) {
            let slot = self.lookup(seg.line)?;
            if !self.covers::<0>(&self.valid, slot, seg.off, seg.n) {
                return None;
            }
            self.copy_segment_out(self.frame::<0>(slot), &seg, addr, data, tags);
        }
        Some(())
    }

    /// Hints that an access at `addr` is coming (see [`MemoryLevel::prefetch`]): brings the
    /// host cache lines holding its set's hints and replacement state, the slot a miss there
    /// would replace as the set stands now (with LRU of at most 16 ways: its line number, bytes,
    /// tags and masks) and whatever `next` would read for it, towards the host CPU. A cache of
    /// at most [`OWN_HINT_MAX_BYTES`] of lines hints only `next`. Changes nothing simulated.
    #[inline(always)]
    pub fn prefetch<N: MemoryLevel + ?Sized>(&self, next: &N, addr: u64) {
        if !self.hint_own {
            return next.prefetch(addr);
        }
        // Compiled per geometry, as reads are: with the line size and ways constants, the places
        // are shifts and adds (with them read from the cache, the hint cost about 70 instructions
        // a level, a third of an L1 miss's).
        by_geometry!(self, prefetch_in::<N>(next, addr))
    }

    /// [`Cache::prefetch`] with the line size `LB` and associativity `W` known at compile time
    /// (0: read from the cache).
    #[inline(always)]
    fn prefetch_in<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(&self, next: &N, addr: u64) {
        let lb = if LB == 0 { self.line_bytes } else { LB };
        let ways = if W == 0 { self.ways } else { W };
        let shift = if LB == 0 { self.line_shift } else { LB.trailing_zeros() };
        let set = ((addr >> shift) & self.set_mask) as usize;
        let base = set * ways;
        // Places are computed, not indexed: a prefetch reads nothing and never faults, so a
        // place outside an array costs a wasted hint, where a bounds check on each of the eight
        // places was a third of what the hint cost.
        host_prefetch_at(self.way_hints.as_ptr().wrapping_add(base));
        if let Some(o) = self.lru.get(set) {
            // A miss at `addr` writes the victim's bytes, tags and masks, which in a large cache
            // are far from the set's state and found only once the victim is chosen. An access
            // to the same set before `addr`'s can change the victim; the hint is then wasted,
            // never wrong.
            let way = o.victim_way(ways).0;
            let slot = base + way;
            // `Cache::frame` of a slot whose set and way are known.
            let f = (way << self.set_shift) | set;
            let wpl = lb / TAG_GRANULE as usize;
            let (mw, _) = self.mask_shape::<LB>();
            host_prefetch_at(self.lines.as_ptr().wrapping_add(slot));
            // A frame's bytes, and its tags (as many bytes again), start on a host line (see
            // `HOST_LINE_BYTES`): one host line each up to 64-byte lines, else the first and the
            // last.
            let (bytes, tags) = (self.data.as_ptr().wrapping_add(f * lb), self.tags.as_ptr().wrapping_add(f * wpl));
            host_prefetch_at(bytes);
            host_prefetch_at(tags);
            if lb > HOST_LINE_BYTES {
                host_prefetch_at(bytes.wrapping_add(lb - 1));
                host_prefetch_at(tags.wrapping_add(wpl - 1));
            }
            host_prefetch_at(self.valid.as_ptr().wrapping_add(slot * mw));
            host_prefetch_at(self.dirty.as_ptr().wrapping_add(slot * mw));
        } else {
            host_prefetch_at(self.lines.as_ptr().wrapping_add(base));
            host_prefetch_at(self.stamps.as_ptr().wrapping_add(base));
        }
        next.prefetch(addr);
    }

    /// The line-sized pieces of the access `[addr, addr + len)`, in address order. Borrows
    /// nothing from the cache, so a loop over them may change it.
    #[inline]
    fn segments(&self, addr: u64, len: usize) -> impl Iterator<Item = Segment> + use<> {
        let (line_bytes, line_shift) = (self.line_bytes, self.line_shift);
        let mut pos = 0;
        std::iter::from_fn(move || {
            (pos < len).then(|| {
                let a = addr + pos as u64;
                let off = a as usize & (line_bytes - 1);
                let n = (line_bytes - off).min(len - pos);
                let segment = Segment { pos, addr: a, line: a >> line_shift, off, n };
                pos += n;
                segment
            })
        })
    }

    // ----- lookup and replacement -------------------------------------------------------------

    #[inline(always)]
    fn lookup(&self, line: u64) -> Option<usize> {
        self.lookup_w::<0>(line)
    }

    /// [`Cache::lookup`] with the associativity `W` known at compile time (0: read from the
    /// cache): for 4, 8 or 16 ways a scan of the set's hint bytes, else a fixed sequence of
    /// compares.
    #[inline(always)]
    fn lookup_w<const W: usize>(&self, line: u64) -> Option<usize> {
        let ways = if W == 0 { self.ways } else { W };
        let base = (line & self.set_mask) as usize * ways;
        if (W == 4 || W == 8 || W == 16)
            && let Ok(hints) = <&[u8; W]>::try_from(&self.way_hints[base..base + W])
        {
            // The set's hint bytes first, all at once: only a way whose hint matches can hold the
            // line, and a miss (what a cache is timed on) usually has none to check.
            let mut candidates = ways_hinting(hints, line_hint(line));
            while candidates != 0 {
                let slot = base + candidates.trailing_zeros() as usize;
                if self.lines[slot] == line {
                    return Some(slot);
                }
                candidates &= candidates - 1;
            }
            return None;
        }
        let set = &self.lines[base..base + ways];
        let hits = match <&[u64; W]>::try_from(set) {
            Ok(set) if W != 0 => ways_matching_n(set, line),
            _ => ways_matching(set, line),
        };
        (hits != 0).then(|| base + hits.trailing_zeros() as usize)
    }

    /// The set and way of `slot`: `W` is the associativity when known at compile time, else 0;
    /// shifts for a power-of-two associativity (nearly every cache), a division otherwise.
    #[inline(always)]
    fn set_and_way<const W: usize>(&self, slot: usize) -> (usize, usize) {
        if let Some(set) = slot.checked_div(W) {
            return (set, slot % W);
        }
        if self.ways.is_power_of_two() {
            (slot >> self.ways.trailing_zeros(), slot & (self.ways - 1))
        } else {
            (slot / self.ways, slot % self.ways)
        }
    }

    /// Records a use of `slot` for replacement. The MRU fast path of [`Cache::read`] skips this
    /// for the line used last, which is only sound while that line *is* the one used last: a
    /// use of any other slot ends its MRU standing.
    #[inline(always)]
    fn touch(&mut self, slot: usize) {
        self.touch_w::<0>(slot)
    }

    /// [`Cache::touch`] with the associativity `W` known at compile time (0: read from the
    /// cache).
    #[inline(always)]
    fn touch_w<const W: usize>(&mut self, slot: usize) {
        if slot != self.mru_slot {
            self.mru_len = 0;
        }
        match self.spec.replacement {
            Replacement::Lru => {
                let ways = if W == 0 { self.ways } else { W };
                if ways <= LRU_ORDER_WAYS {
                    let (set, way) = self.set_and_way::<W>(slot);
                    self.lru[set].order = move_to_front(self.lru[set].order, way);
                } else {
                    self.clock += 1;
                    self.stamps[slot] = self.clock;
                }
            }
            Replacement::TreePlru => {
                // Tree-PLRU has a power-of-two number of ways: shifts, not divisions.
                let set = slot >> self.plru_levels;
                let way = slot & (self.ways - 1);
                let mut bits = self.plru[set];
                let mut node = 1usize;
                for level in (0..self.plru_levels).rev() {
                    let dir = (way >> level) & 1;
                    // Point the node away from the way just used.
                    if dir == 0 {
                        bits |= 1 << node;
                    } else {
                        bits &= !(1 << node);
                    }
                    node = node * 2 + dir;
                }
                self.plru[set] = bits;
            }
            Replacement::Random => {}
        }
    }

    /// The slot of `set` to fill next. `W` is the associativity when known at compile time, else
    /// 0. Under LRU of at most 16 ways it also marks the way occupied and most recently used: the
    /// caller fills it (and `drop_slot` clears the mark again if that fails), and need not touch
    /// it (see [`Cache::victim_is_touched`]).
    #[inline(always)]
    fn victim<const W: usize>(&mut self, set: usize) -> usize {
        let ways = if W == 0 { self.ways } else { W };
        let base = set * ways;
        if self.victim_is_touched::<W>() {
            // LRU of at most 16 ways. The first empty way, else the last in the order: no pass over
            // the ways.
            let LruSet { order, occupied } = self.lru[set];
            let (way, empty) = self.lru[set].victim_way(ways);
            let order = if empty {
                move_to_front(order, way)
            } else {
                // The last way in the order moves to the front: the others move back one place
                // (the nibbles past the set's ways stay).
                let ours = u64::MAX >> (64 - 4 * ways);
                (order & !ours) | (order << 4 & ours) | way as u64
            };
            self.lru[set] = LruSet { order, occupied: occupied | 1 << way };
            return base + way;
        }
        if self.spec.replacement == Replacement::Lru {
            // More than 16 ways. An empty slot has stamp 0 (`drop_slot` resets it) and a valid
            // one a stamp of at least 1, all different: the first smallest stamp is the first
            // empty way, else the least recently used one.
            return base + argmin(&self.stamps[base..base + ways]);
        }
        if let Some(w) = self.lines[base..base + self.ways].iter().position(|&l| l == INVALID) {
            return base + w;
        }
        match self.spec.replacement {
            Replacement::Lru => unreachable!("handled above"),
            Replacement::TreePlru => {
                let bits = self.plru[set];
                let mut node = 1usize;
                for _ in 0..self.plru_levels {
                    node = node * 2 + ((bits >> node) & 1) as usize;
                }
                base + (node - self.ways)
            }
            Replacement::Random => {
                // xorshift64*: cheap, seeded, and the same sequence on every host.
                let mut x = self.rng;
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                self.rng = x;
                base + (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % self.ways
            }
        }
    }

    /// Whether [`Cache::victim`] leaves the way it picks most recently used, so that a fill needs
    /// no [`Cache::touch`]. `W` as there.
    #[inline(always)]
    fn victim_is_touched<const W: usize>(&self) -> bool {
        let ways = if W == 0 { self.ways } else { W };
        self.spec.replacement == Replacement::Lru && ways <= LRU_ORDER_WAYS
    }

    // ----- masks --------------------------------------------------------------------------------

    /// Where slot `slot`'s bytes and tags are kept: its *frame*, numbered way-major (way `w` of
    /// set `s` is frame `w * sets + s`; slots are numbered set-major, `s * ways + w`). Line
    /// numbers and hints are scanned a set at a time, so they are kept set-major; bytes and tags
    /// are only ever reached through one slot, and way-major they lie in address order for a
    /// streaming access, whose consecutive lines go to consecutive sets and, in step, the same
    /// way: the fills then write host memory sequentially instead of a line every `ways` lines.
    /// Frame `f`'s bytes are `data[f * line_bytes..]` and its tags `tags[f * line_bytes / 4..]`.
    /// `W` as in [`Cache::set_and_way`].
    #[inline(always)]
    fn frame<const W: usize>(&self, slot: usize) -> usize {
        let (set, way) = self.set_and_way::<W>(slot);
        (way << self.set_shift) | set
    }

    // The three accessors below reach several arrays at one index with one bounds check for
    // arrays whose lengths are tied, instead of one per array. `Cache::new` gives `lines` and
    // `way_hints` one entry per slot, `valid` and `dirty` the same number of words, and `tags`
    // one tag per 4 bytes of `data`, and no method ever resizes any of them. The checks do not
    // rely on `LB` being the cache's line size (which `by_geometry!` ensures), only on these
    // ties, so that a wrong `LB` can at worst panic or address the wrong bytes, never reach past
    // an array.

    /// Where frame `f`'s bytes lie in `data` and its tags in `tags`, checked to lie inside both:
    /// `(f + 1) * lb <= data.len()`, and `tags` holds `data.len() / 4` tags, so
    /// `(f + 1) * (lb / 4) <= tags.len()`. `LB` as in [`Cache::mask_shape`].
    #[inline(always)]
    fn frame_ranges<const LB: usize>(&self, f: usize) -> (Range<usize>, Range<usize>) {
        let lb = if LB == 0 { self.line_bytes } else { LB };
        let wpl = lb / TAG_GRANULE as usize;
        assert!(f < self.data.len() / lb, "frame {f} of {}", self.data.len() / lb);
        (f * lb..(f + 1) * lb, f * wpl..(f + 1) * wpl)
    }

    /// Frame `f`'s bytes and tags. `LB` as in [`Cache::mask_shape`].
    #[inline(always)]
    fn frame_data<const LB: usize>(&self, f: usize) -> (&[u8], &[Tag]) {
        let (bytes, words) = self.frame_ranges::<LB>(f);
        // SAFETY: `frame_ranges` checked both ranges against the arrays.
        unsafe { (self.data.get_unchecked(bytes), self.tags.get_unchecked(words)) }
    }

    /// [`Cache::frame_data`], to write.
    #[inline(always)]
    fn frame_data_mut<const LB: usize>(&mut self, f: usize) -> (&mut [u8], &mut [Tag]) {
        let (bytes, words) = self.frame_ranges::<LB>(f);
        // SAFETY: `frame_ranges` checked both ranges against the arrays; the two slices are of
        // different arrays.
        unsafe { (self.data.get_unchecked_mut(bytes), self.tags.get_unchecked_mut(words)) }
    }

    /// Slot `slot`'s line number, hint, and valid and dirty masks. `LB` as in
    /// [`Cache::mask_shape`].
    #[inline(always)]
    fn slot_state<const LB: usize>(&mut self, slot: usize) -> (&mut u64, &mut u8, &mut [u64], &mut [u64]) {
        let (mw, _) = self.mask_shape::<LB>();
        assert!(slot < self.lines.len() && slot < self.valid.len() / mw, "slot {slot} of {}", self.lines.len());
        // SAFETY: `slot` is below the length of `lines`, which `way_hints` shares, and
        // `(slot + 1) * mw` is at most the length of `valid`, which `dirty` shares (see above);
        // the four references are into different arrays.
        unsafe {
            (
                self.lines.get_unchecked_mut(slot),
                self.way_hints.get_unchecked_mut(slot),
                self.valid.get_unchecked_mut(slot * mw..(slot + 1) * mw),
                self.dirty.get_unchecked_mut(slot * mw..(slot + 1) * mw),
            )
        }
    }

    /// The words of a slot's byte mask and the value of a full last word: constants when the
    /// line size `LB` is (0: read from the cache).
    #[inline(always)]
    fn mask_shape<const LB: usize>(&self) -> (usize, u64) {
        match LB {
            0 => (self.mask_words, self.last_mask_word),
            _ if LB.is_multiple_of(64) => (LB / 64, u64::MAX),
            _ => (1, (1 << (LB % 64)) - 1),
        }
    }

    #[inline(always)]
    fn mask<'m>(&self, masks: &'m [u64], slot: usize) -> &'m [u64] {
        &masks[slot * self.mask_words..(slot + 1) * self.mask_words]
    }

    /// Whether every bit of the slot's mask is set. `LB` as in [`Cache::mask_shape`].
    #[inline(always)]
    fn is_full<const LB: usize>(&self, masks: &[u64], slot: usize) -> bool {
        let (mw, last) = self.mask_shape::<LB>();
        // Lines of up to 64 bytes (most caches) have a one-word mask: no loop.
        if mw == 1 {
            return masks[slot] == last;
        }
        let m = &masks[slot * mw..(slot + 1) * mw];
        m[..mw - 1].iter().all(|&w| w == u64::MAX) && m[mw - 1] == last
    }

    /// Whether the slot holds a dirty byte. `LB` as in [`Cache::mask_shape`].
    #[inline(always)]
    fn is_dirty<const LB: usize>(&self, slot: usize) -> bool {
        let (mw, _) = self.mask_shape::<LB>();
        if mw == 1 {
            return self.dirty[slot] != 0;
        }
        self.dirty[slot * mw..(slot + 1) * mw].iter().any(|&w| w != 0)
    }

    /// Whether every byte of `[off, off + n)` has its bit set, a 64-bit word at a time. `LB` as
    /// in [`Cache::mask_shape`].
    #[inline(always)]
    fn covers<const LB: usize>(&self, masks: &[u64], slot: usize, off: usize, n: usize) -> bool {
        if self.mask_shape::<LB>().0 == 1 {
            let bits = bit_range(off, off + n);
            return masks[slot] & bits == bits;
        }
        let m = self.mask(masks, slot);
        let end = off + n;
        let mut b = off;
        while b < end {
            let w = b / 64;
            let bits = bit_range(b % 64, (end - w * 64).min(64));
            if m[w] & bits != bits {
                return false;
            }
            b = (w + 1) * 64;
        }
        true
    }

    #[inline(always)]
    fn set_full(masks: &mut [u64], slot: usize, (mask_words, last): (usize, u64)) {
        if mask_words == 1 {
            masks[slot] = last;
            return;
        }
        fill_mask(&mut masks[slot * mask_words..(slot + 1) * mask_words], true, last);
    }

    #[inline(always)]
    fn clear(masks: &mut [u64], slot: usize, mask_words: usize) {
        if mask_words == 1 {
            masks[slot] = 0;
            return;
        }
        fill_mask(&mut masks[slot * mask_words..(slot + 1) * mask_words], false, 0);
    }

    /// Sets the bits of bytes `[off, off + n)` of the slot, restricted to the set bits of
    /// `src_mask` when given (indexed from `src_pos`).
    fn mark(&mut self, which: MaskKind, slot: usize, off: usize, n: usize, src_mask: Option<(&BitSlice<u64, Lsb0>, usize)>) {
        let mw = self.mask_words;
        let masks = match which {
            MaskKind::Valid => &mut self.valid,
            MaskKind::Dirty => &mut self.dirty,
        };
        let m = &mut masks[slot * mw..(slot + 1) * mw];
        // Sets the bits of bytes `b..end`, a 64-bit word at a time.
        let mut set = |mut b: usize, end: usize| {
            while b < end {
                let w = b / 64;
                m[w] |= bit_range(b % 64, (end - w * 64).min(64));
                b = (w + 1) * 64;
            }
        };
        match src_mask {
            None => set(off, off + n),
            Some((src, pos)) => for_each_run(&src[pos..pos + n], |i, j| set(off + i, off + j)),
        }
    }

    // ----- moving lines -------------------------------------------------------------------------

    /// Copies one segment of an access out of the slot whose frame is `f`: its bytes into
    /// `data[seg.pos..]` and the tags of the words they touch into their place in `tags` (the
    /// access's, which starts at `access_addr`).
    #[inline]
    fn copy_segment_out(&self, f: usize, seg: &Segment, access_addr: u64, data: &mut [u8], tags: &mut [Tag]) {
        let Segment { pos, addr: a, off, n, .. } = *seg;
        data[pos..pos + n].copy_from_slice(&self.data[f * self.line_bytes + off..][..n]);
        let wpl = self.line_bytes / TAG_GRANULE as usize;
        let w0 = off / TAG_GRANULE as usize;
        let wn = word_span(a, n);
        let dst = (a / TAG_GRANULE - access_addr / TAG_GRANULE) as usize;
        tags[dst..dst + wn].copy_from_slice(&self.tags[f * wpl + w0..f * wpl + w0 + wn]);
    }

    /// Writes the slot's dirty bytes to `next` and marks the slot clean. Kept out of line: the
    /// read path calls it only for a dirty victim, and inlined it would crowd that path.
    #[inline(never)]
    fn write_back<N: MemoryLevel + ?Sized>(&mut self, slot: usize, next: &mut N, report: &mut AccessReport) -> Result<(), AccessError> {
        if !self.is_dirty::<0>(slot) {
            return Ok(());
        }
        let addr = self.lines[slot] << self.line_shift;
        let (data, tags) = self.frame_data::<0>(self.frame::<0>(slot));
        let tags = Tags::Words(tags);
        let dirty = self.mask(&self.dirty, slot);
        let bytes: u64 = dirty.iter().map(|w| w.count_ones() as u64).sum();
        let below = if self.is_full::<0>(&self.dirty, slot) {
            next.write(addr, data, tags, None)?
        } else {
            next.write(addr, data, tags, Some(&dirty.view_bits::<Lsb0>()[..self.line_bytes]))?
        };
        Self::clear(&mut self.dirty, slot, self.mask_words);
        // A write-back is buffered: it costs bandwidth, not latency.
        report.dram_read_transactions = report.dram_read_transactions.saturating_add(below.dram_read_transactions);
        report.dram_write_transactions = report.dram_write_transactions.saturating_add(below.dram_write_transactions);
        report.writeback_lines += 1;
        report.writeback_bytes += bytes;
        self.stats.writebacks += 1;
        self.stats.writeback_bytes += bytes;
        Ok(())
    }

    fn drop_slot(&mut self, slot: usize) {
        if self.lines[slot] != INVALID {
            self.resident -= 1;
        }
        if self.mru_slot == slot {
            self.mru_len = 0;
        }
        self.lines[slot] = INVALID;
        if let Some(stamp) = self.stamps.get_mut(slot) {
            *stamp = 0;
        }
        if !self.lru.is_empty() {
            let (set, way) = self.set_and_way::<0>(slot);
            self.lru[set].occupied &= !(1 << way);
        }
        Self::clear(&mut self.valid, slot, self.mask_words);
        Self::clear(&mut self.dirty, slot, self.mask_words);
    }

    /// Finds room for `line` (evicting a victim, writing it back if dirty) and returns the
    /// slot now assigned to it, clean, and valid in every byte (`full`: the caller fills the whole
    /// line, or drops the slot if it cannot) or in none. The line used last may have been the
    /// victim: the caller either makes the new line the line used last (`remember`, as a read
    /// does) or ends that standing (`mru_len = 0`, as a write does) before the fast path of
    /// [`Cache::read`] runs again.
    #[inline(always)]
    fn allocate<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(&mut self, line: u64, next: &mut N, report: &mut AccessReport, full: bool) -> Result<usize, AccessError> {
        let set = (line & self.set_mask) as usize;
        let slot = self.victim::<W>(set);
        let (_, last) = self.mask_shape::<LB>();
        // The valid mask is set here, with the line number, under the slot's one bounds check.
        let take = |held: &mut u64, hint: &mut u8, valid: &mut [u64]| {
            (*held, *hint) = (line, line_hint(line));
            fill_mask(valid, full, last);
        };
        let (held, hint, valid, dirty) = self.slot_state::<LB>(slot);
        let occupied = *held != INVALID;
        if occupied && dirty.iter().any(|&w| w != 0) {
            // `write_back` finds the victim's address by its line number: replaced only after.
            self.write_back(slot, next, report)?;
            let (held, hint, valid, _) = self.slot_state::<LB>(slot);
            take(held, hint, valid);
        } else {
            // The common case: no write-back, so one bounds check covers the slot's state.
            take(held, hint, valid);
        }
        if occupied {
            report.evictions += 1;
            self.stats.evictions += 1;
            // The slot changes hands: what `drop_slot` does, less what the new line redid above
            // (its line number, hint and valid mask), the resident count (unchanged), the dirty
            // mask (clear after the write-back) and the standing of the line used last, which
            // the caller ends or gives to the new line (see the doc comment).
        } else {
            self.resident += 1;
        }
        Ok(slot)
    }

    /// Finds room for `line` and fills it from `next`: [`Cache::allocate`] then
    /// [`Cache::fill`], without the merge a partly valid line would need. Returns the slot and its
    /// frame. With `out` (`data`, `tags`, `off`), it also copies the line's bytes from `off` on
    /// into `data`, and their tags into `tags` ([`copy_out`]), from the frame while it is at hand
    /// (a second look at the frame would check its bounds again). `LB` and `W` are the line size
    /// and associativity when known at compile time, else 0.
    #[inline(always)]
    fn allocate_fill<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(&mut self, line: u64, next: &mut N, report: &mut AccessReport, out: Option<(&mut [u8], &mut [Tag], usize)>) -> Result<(usize, usize), AccessError> {
        let slot = self.allocate::<N, LB, W>(line, next, report, true)?;
        let f = self.frame::<W>(slot);
        // The next level overwrites the whole line in place (on an error, `drop_slot` clears the
        // valid mask `allocate` set). With the line size a constant, the address is visibly
        // line-aligned, which lets the level below drop its alignment arithmetic.
        let addr = if LB == 0 { line << self.line_shift } else { line << LB.trailing_zeros() };
        let (bytes, words) = self.frame_data_mut::<LB>(f);
        let below = next.read(addr, bytes, words);
        match below {
            Ok(below) => {
                report.absorb_below(&below);
                if let Some((data, tags, off)) = out {
                    copy_out(bytes, words, off, data, tags);
                }
            }
            Err(e) => {
                // A line that cannot be fetched (past the end of memory) must not stay behind
                // as an empty resident line.
                self.drop_slot(slot);
                return Err(e);
            }
        }
        report.fills += 1;
        self.stats.fills += 1;
        Ok((slot, f))
    }

    /// Fetches the slot's line from `next`, filling only the bytes not already valid.
    #[inline(never)]
    fn fill<N: MemoryLevel + ?Sized>(&mut self, slot: usize, next: &mut N, report: &mut AccessReport) -> Result<(), AccessError> {
        let addr = self.lines[slot] << self.line_shift;
        let lb = self.line_bytes;
        let wpl = lb / TAG_GRANULE as usize;
        if self.mask(&self.valid, slot).iter().all(|&w| w == 0) {
            // Nothing to keep: the next level writes straight into the slot (on an error the
            // slot holds no valid byte, so whatever was written there is never read).
            let (bytes, words) = self.frame_data_mut::<0>(self.frame::<0>(slot));
            let below = next.read(addr, bytes, words);
            match below {
                Ok(below) => report.absorb_below(&below),
                Err(e) => {
                    // A line that cannot be fetched (past the end of memory) must not stay
                    // behind as an empty resident line.
                    self.drop_slot(slot);
                    return Err(e);
                }
            }
        } else {
            let below = next.read(addr, &mut self.fill_data, &mut self.fill_tags)?;
            report.absorb_below(&below);
            // Merge under the valid bytes: they are newer than anything below.
            let f = self.frame::<0>(slot);
            for b in 0..lb {
                let valid = self.valid[slot * self.mask_words + b / 64] >> (b % 64) & 1 == 1;
                if !valid {
                    self.data[f * lb + b] = self.fill_data[b];
                }
            }
            for w in 0..wpl {
                let vm = (self.valid[slot * self.mask_words + (w * 4) / 64] >> ((w * 4) % 64)) & 0xF;
                if vm == 0 {
                    self.tags[f * wpl + w] = self.fill_tags[w];
                }
            }
        }
        report.fills += 1;
        self.stats.fills += 1;
        let shape = self.mask_shape::<0>();
        Self::set_full(&mut self.valid, slot, shape);
        Ok(())
    }

    // ----- reads and writes ---------------------------------------------------------------------

    /// Reads `data.len()` bytes at `addr` (any size and alignment; lines are filled from `next`
    /// on a miss) and their provenance into `tags` ([`word_span`] long).
    // Always inlined: the fast path is a handful of instructions, and a call would double them.
    #[inline(always)]
    pub fn read<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        let n = data.len();
        // Fast path: a hit in the line used last, which is fully valid (see `touch`). Touching it
        // again would change no replacement decision, so it is skipped. One subtraction places
        // the access in that line, and it fits when `off <= mru_len - n` (that is,
        // `off + n <= mru_len`, which with `n` a constant is one compare, and cannot overflow).
        // Only word-aligned accesses of whole words take it: their tag count is `n / 4`, which
        // a caller's fixed-size buffer makes a constant (the general count is not).
        let off = addr.wrapping_sub(self.mru_addr);
        if self.mru_len.checked_sub(n).is_some_and(|room| off <= room as u64) && n != 0 && (addr | n as u64).is_multiple_of(TAG_GRANULE) && tags.len() == n / TAG_GRANULE as usize {
            let at = self.mru_at + off as usize;
            let w0 = at / TAG_GRANULE as usize;
            debug_assert!(at + n <= self.data.len() && at.is_multiple_of(TAG_GRANULE as usize) && w0 + n / TAG_GRANULE as usize <= self.tags.len());
            // SAFETY: `remember` is the only place that makes `mru_len` non-zero, and it
            // sets `mru_at` and `mru_len` to the start and length of one frame's bytes, so
            // `mru_at + mru_len <= data.len()` and `(mru_at + mru_len) / 4 <= tags.len()` (one tag
            // per 4 bytes). The access lies inside that frame (`off + n <= mru_len`) and starts on a
            // word (`mru_at` is a multiple of the line size, `addr` and `n` of 4), so its bytes
            // `at..at + n` and its `n / 4` words from `at / 4` on are in bounds. The checks this
            // skips were a sixth of the streaming loop's instructions.
            // The same argument makes `at` a multiple of 4, which the compiler is told, so that
            // the words' place is `at` bytes into `tags`, without rounding `at` down first.
            let (bytes, words) = unsafe {
                std::hint::assert_unchecked(at.is_multiple_of(TAG_GRANULE as usize));
                (self.data.get_unchecked(at..at + n), self.tags.get_unchecked(w0..w0 + n / TAG_GRANULE as usize))
            };
            copy(data, bytes);
            copy(tags, words);
            self.mru_hits += 1;
            return Ok(AccessReport { hits: 1, ..AccessReport::default() });
        }
        // The common access sizes, with their tag counts, get a slow path compiled for their size
        // that takes the buffers as arrays: one register each and no length to check. Where the
        // sizes are constants (as in a caller's fixed-size buffers) the choice costs nothing.
        // The report is the caller's, filled in place: built in the slow path and returned from it,
        // it was zeroed there and then copied out, field by field, on every miss.
        let mut report = AccessReport::default();
        let result = if let Some((data, tags)) = as_arrays::<4, 1>(data, tags) {
            self.read_sized::<N, 4, 1>(next, addr, data, tags, &mut report)
        } else if let Some((data, tags)) = as_arrays::<8, 2>(data, tags) {
            self.read_sized::<N, 8, 2>(next, addr, data, tags, &mut report)
        } else if let Some((data, tags)) = as_arrays::<16, 4>(data, tags) {
            self.read_sized::<N, 16, 4>(next, addr, data, tags, &mut report)
        } else if let Some((data, tags)) = as_arrays::<64, 16>(data, tags) {
            // A 64-byte line's fill from the cache above.
            self.read_sized::<N, 64, 16>(next, addr, data, tags, &mut report)
        } else {
            self.read_slow(next, addr, data, tags, &mut report)
        };
        result.map_err(|e| *e)?;
        // A read of several lines recorded each line's depth; one of a single line has its own.
        if report.line_depths == 0 {
            report.set_line_depth(0, report.depth);
        }
        Ok(report)
    }

    /// A read of `B` bytes and their `T` tags (`T = B / 4`) that is not a hit in the line used
    /// last. Naturally aligned (as shader loads are), it lies inside one line and takes the
    /// straight path of [`Cache::read_in_line`] compiled for its size, so that the copies out are
    /// plain moves.
    #[inline(never)]
    fn read_sized<N: MemoryLevel + ?Sized, const B: usize, const T: usize>(&mut self, next: &mut N, addr: u64, data: &mut [u8; B], tags: &mut [Tag; T], report: &mut AccessReport) -> Result<(), Box<AccessError>> {
        const { assert!(B.is_multiple_of(TAG_GRANULE as usize) && T == B / TAG_GRANULE as usize) };
        by_geometry!(self, read_aligned::<N>(next, addr, data, tags, report))
    }

    /// [`Cache::read_sized`] with the line size `LB` and associativity `W` known at compile time
    /// (0: read from the cache): whether the access fits its line is then a constant, for the
    /// common geometries, instead of a compare before the dispatch.
    #[inline(always)]
    fn read_aligned<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(&mut self, next: &mut N, addr: u64, data: &mut [u8], tags: &mut [Tag], report: &mut AccessReport) -> Result<(), Box<AccessError>> {
        let lb = if LB == 0 { self.line_bytes } else { LB };
        if addr.is_multiple_of(data.len() as u64) && data.len() <= lb {
            return self.read_in_line::<N, LB, W>(next, addr, data, tags, report);
        }
        // Unaligned, or wider than a line: rare enough for the general path.
        self.read_slow(next, addr, data, tags, report)
    }

    /// A read that is not a hit in the line used last. A read inside one line (a miss, or a hit
    /// in another line) takes a straight path: one lookup, at most one fill, one copy out; for
    /// the common geometries that path is compiled with the line size and associativity as
    /// constants, so that a fill moves the line and its tags with plain moves and the way scan is
    /// a fixed run of compares. The error comes boxed: one register to return and test, where the
    /// error itself went through memory on every read.
    #[inline(never)]
    fn read_slow<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, addr: u64, data: &mut [u8], tags: &mut [Tag], report: &mut AccessReport) -> Result<(), Box<AccessError>> {
        let n = data.len();
        let off = addr as usize & (self.line_bytes - 1);
        if n == 0 || off + n > self.line_bytes || tags.len() != word_span(addr, n) {
            // Also where a wrong tag-slice length is reported.
            *report = self.read_lines(next, addr, data, tags)?;
            return Ok(());
        }
        by_geometry!(self, read_in_line::<N>(next, addr, data, tags, report))
    }

    /// [`Cache::read_slow`] of an access inside one line, `tags` of the right length, reported
    /// into a zeroed `report`. `LB` and `W` are the line size and associativity when known at
    /// compile time, else 0.
    #[inline(always)]
    fn read_in_line<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(&mut self, next: &mut N, addr: u64, data: &mut [u8], tags: &mut [Tag], report: &mut AccessReport) -> Result<(), Box<AccessError>> {
        let lb = if LB == 0 { self.line_bytes } else { LB };
        let n = data.len();
        let off = addr as usize & (lb - 1);
        self.stats.reads += 1;
        let line = addr >> self.line_shift;
        let (slot, f, allocated) = match self.lookup_w::<W>(line) {
            Some(s) if self.covers::<LB>(&self.valid, s, off, n) => {
                report.hits = 1;
                self.stats.read_hits += 1;
                (s, self.frame::<W>(s), false)
            }
            Some(s) => {
                report.misses = 1;
                self.stats.read_misses += 1;
                self.fill(s, next, report)?;
                (s, self.frame::<W>(s), false)
            }
            None => {
                report.misses = 1;
                self.stats.read_misses += 1;
                // Copied out as it is filled.
                let (s, f) = self.allocate_fill::<N, LB, W>(line, next, report, Some((&mut *data, &mut *tags, off)))?;
                (s, f, true)
            }
        };
        if !allocated {
            let (bytes, words) = self.frame_data::<LB>(f);
            copy_out(bytes, words, off, data, tags);
        }
        // A new line may already be the most recently used (see `victim`): then it becomes the
        // line used last below, which is all that `touch` would add.
        if !(allocated && self.victim_is_touched::<W>()) {
            self.touch_w::<W>(slot);
        }
        if allocated {
            // Just filled from the next level: fully valid.
            self.remember::<LB>(line, slot, f * lb);
        } else {
            self.remember_if_full::<LB>(line, slot, f * lb);
        }
        Ok(())
    }

    /// Makes `slot`, holding `line` and just touched, the line used last for the fast path of
    /// [`Cache::read`], if it is fully valid (a partly valid line must go the slow way).
    /// `frame_at` is where its bytes start in `data` (its frame times the line size, which the
    /// caller has computed). `LB` is the line size when known at compile time, else 0.
    #[inline(always)]
    fn remember_if_full<const LB: usize>(&mut self, line: u64, slot: usize, frame_at: usize) {
        if self.is_full::<LB>(&self.valid, slot) {
            self.remember::<LB>(line, slot, frame_at);
        }
    }

    /// [`Cache::remember_if_full`] of a slot known to be fully valid (just filled).
    #[inline(always)]
    fn remember<const LB: usize>(&mut self, line: u64, slot: usize, frame_at: usize) {
        debug_assert!(self.is_full::<LB>(&self.valid, slot));
        let lb = if LB == 0 { self.line_bytes } else { LB };
        self.mru_addr = line << lb.trailing_zeros();
        self.mru_len = lb;
        self.mru_slot = slot;
        self.mru_at = frame_at;
    }

    /// A read of any length, line by line.
    #[inline(never)]
    fn read_lines<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        Tags::Words(tags).check(addr, data.len())?;
        self.stats.reads += 1;
        let mut report = AccessReport::default();
        let first_line = addr >> self.line_shift;
        for seg in self.segments(addr, data.len()) {
            let Segment { line, off, n, .. } = seg;
            // Each line's own depth, the access's the deepest of them.
            let deepest = std::mem::take(&mut report.depth);
            let slot = match self.lookup(line) {
                Some(s) if self.covers::<0>(&self.valid, s, off, n) => {
                    report.hits += 1;
                    self.stats.read_hits += 1;
                    s
                }
                found => {
                    report.misses += 1;
                    self.stats.read_misses += 1;
                    let s = match found {
                        Some(s) => s,
                        None => self.allocate_fill::<N, 0, 0>(line, next, &mut report, None)?.0,
                    };
                    if found.is_some() {
                        self.fill(s, next, &mut report)?;
                    }
                    s
                }
            };
            report.set_line_depth((line - first_line) as usize, report.depth);
            report.depth = report.depth.max(deepest);
            let f = self.frame::<0>(slot);
            self.copy_segment_out(f, &seg, addr, data, tags);
            self.touch(slot);
            self.remember_if_full::<0>(line, slot, f * self.line_bytes);
        }
        Ok(report)
    }

    /// Writes `data` at `addr` (any size and alignment), under `mask` when given (one bit per
    /// byte of `data`), as the write policy says. A read-only cache refuses.
    pub fn write<N: MemoryLevel + ?Sized>(
        &mut self,
        next: &mut N,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError> {
        let policy = self.spec.write_policy;
        if policy == WritePolicy::ReadOnly {
            return Err(AccessError::WriteToReadOnly { cache: self.name.clone(), addr, len: data.len() });
        }
        tags.check(addr, data.len())?;
        if let Some(m) = mask
            && m.len() < data.len()
        {
            return Err(AccessError::TagLength { want: data.len(), got: m.len() });
        }
        self.stats.writes += 1;
        // As for reads, the common geometries get the line walk compiled with the line size and
        // associativity as constants.
        by_geometry!(self, write_lines::<N>(next, addr, data, tags, mask))
    }

    /// [`Cache::write`] once its arguments are checked: line by line, then the write-through.
    /// `LB` and `W` are the line size and associativity when known at compile time, else 0.
    #[inline(never)]
    fn write_lines<N: MemoryLevel + ?Sized, const LB: usize, const W: usize>(
        &mut self,
        next: &mut N,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError> {
        let policy = self.spec.write_policy;
        let mut report = AccessReport::default();
        for Segment { pos, addr: a, line, off, n } in self.segments(addr, data.len()) {
            let found = self.lookup_w::<W>(line);
            if found.is_some() {
                report.hits += 1;
                self.stats.write_hits += 1;
            } else {
                report.misses += 1;
                self.stats.write_misses += 1;
            }
            let slot = match (found, policy) {
                (Some(s), _) => Some(s),
                (None, WritePolicy::WriteThroughNoAllocate) => None,
                (None, WritePolicy::WriteBackByteMask) => {
                    Some(self.allocate::<N, LB, W>(line, next, &mut report, false)?)
                }
                (None, _) => Some(self.allocate_fill::<N, LB, W>(line, next, &mut report, None)?.0),
            };
            let touched = found.is_none() && self.victim_is_touched::<W>();
            if let Some(slot) = slot {
                let frame = self.frame::<W>(slot);
                self.update(frame, a, off, n, data, pos, addr, tags, mask);
                match policy {
                    WritePolicy::WriteBackByteMask => {
                        self.mark(MaskKind::Valid, slot, off, n, mask.map(|m| (m, pos)));
                        self.mark(MaskKind::Dirty, slot, off, n, mask.map(|m| (m, pos)));
                    }
                    WritePolicy::WriteBackLineDirty => {
                        let shape = self.mask_shape::<LB>();
                        Self::set_full(&mut self.dirty, slot, shape);
                    }
                    _ => {}
                }
                // A new line ends the standing of the line used last, whichever slot it took
                // (`allocate` leaves that to its caller). One made the most recently used by
                // `victim` needs nothing more that `touch` would do.
                if touched {
                    self.mru_len = 0;
                } else {
                    if found.is_none() {
                        self.mru_len = 0;
                    }
                    self.touch_w::<W>(slot);
                }
            }
        }
        if matches!(policy, WritePolicy::WriteThroughAllocate | WritePolicy::WriteThroughNoAllocate) {
            let below = next.write(addr, data, tags, mask)?;
            report.absorb_below(&below);
            let bytes = mask.map_or(data.len() as u64, |m| m[..data.len()].count_ones() as u64);
            report.write_through_bytes += bytes;
            self.stats.write_through_bytes += bytes;
        }
        Ok(report)
    }

    /// Copies the written bytes of one line segment into the slot whose frame is `f`, with their
    /// tags. Inlined for its unmasked half (every store the benchmarks and most engine stores
    /// make).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn update(&mut self, f: usize, a: u64, off: usize, n: usize, data: &[u8], pos: usize, addr: u64, tags: Tags<'_>, mask: Option<&BitSlice<u64, Lsb0>>) {
        let lb = self.line_bytes;
        let wpl = lb / TAG_GRANULE as usize;
        let first_word = addr / TAG_GRANULE;
        match mask {
            None => {
                copy(&mut self.data[f * lb + off..f * lb + off + n], &data[pos..pos + n]);
                let w0 = f * wpl + off / TAG_GRANULE as usize;
                let wn = word_span(a, n);
                let dst = &mut self.tags[w0..w0 + wn];
                match tags {
                    Tags::One(t) => dst.fill(t),
                    Tags::Words(w) => {
                        let src = (a / TAG_GRANULE - first_word) as usize;
                        copy(dst, &w[src..src + wn]);
                    }
                }
            }
            Some(m) => self.update_masked(f, a, off, n, data, pos, addr, tags, m),
        }
    }

    /// [`Cache::update`] under a byte mask: only the bytes whose bit is set, a run of set bits at
    /// a time (the mask read 64 bits at once), each written word taking its tag.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn update_masked(&mut self, f: usize, a: u64, off: usize, n: usize, data: &[u8], pos: usize, addr: u64, tags: Tags<'_>, m: &BitSlice<u64, Lsb0>) {
        let lb = self.line_bytes;
        let wpl = lb / TAG_GRANULE as usize;
        let first_word = addr / TAG_GRANULE;
        for_each_run(&m[pos..pos + n], |i, j| {
            self.data[f * lb + off + i..f * lb + off + j].copy_from_slice(&data[pos + i..pos + j]);
            for w in (a + i as u64) / TAG_GRANULE..=(a + j as u64 - 1) / TAG_GRANULE {
                self.tags[f * wpl + (w as usize % wpl)] = tags.get((w - first_word) as usize);
            }
        });
    }

    /// An atomic read-modify-write performed at this cache: reads the bytes at `addr` into
    /// `old` (filling the line on a miss), lets `op` compute the new bytes from them, and writes
    /// those with `tag`. Nothing else runs in between, which is what makes it atomic here.
    pub fn read_modify_write<N: MemoryLevel + ?Sized>(
        &mut self,
        next: &mut N,
        addr: u64,
        old: &mut [u8],
        tag: Tag,
        op: impl FnOnce(&[u8], &mut [u8]),
    ) -> Result<AccessReport, AccessError> {
        if self.spec.write_policy == WritePolicy::ReadOnly {
            return Err(AccessError::WriteToReadOnly { cache: self.name.clone(), addr, len: old.len() });
        }
        // Atomics are at most a few words: stack buffers, so an atomic allocates nothing.
        const SMALL: usize = 16;
        let span = word_span(addr, old.len());
        let (mut tag_buf, mut tag_vec) = ([0 as Tag; SMALL / 4 + 1], Vec::new());
        let old_tags = if span <= tag_buf.len() {
            &mut tag_buf[..span]
        } else {
            tag_vec.resize(span, 0);
            &mut tag_vec[..]
        };
        // Not `read`: its fast path counts into `mru_hits`, and the read counted here is undone below.
        let mut report = AccessReport::default();
        self.read_slow(next, addr, old, old_tags, &mut report).map_err(|e| *e)?;
        let (mut new_buf, mut new_vec) = ([0u8; SMALL], Vec::new());
        let new = if old.len() <= SMALL {
            let new = &mut new_buf[..old.len()];
            new.copy_from_slice(old);
            new
        } else {
            new_vec.extend_from_slice(old);
            &mut new_vec[..]
        };
        op(old, new);
        let w = self.write(next, addr, new, Tags::One(tag), None)?;
        report.merge(&w);
        self.stats.reads -= 1;
        self.stats.writes -= 1;
        self.stats.atomics += 1;
        Ok(report)
    }

    // ----- maintenance --------------------------------------------------------------------------

    /// Flushes, invalidates, or both, every line overlapping `range` (`(addr, size)`; `None`:
    /// the whole cache). An invalidate of a dirty line writes it back first unless the spec's
    /// `dirty_on_invalidate` is `discard` (it drops it) or `keep` (it leaves the line).
    pub fn maintain<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, op: Maintenance, range: Option<(u64, u64)>) -> Result<AccessReport, AccessError> {
        let mut report = AccessReport::default();
        match op {
            Maintenance::Flush => self.stats.flushes += 1,
            Maintenance::Invalidate => self.stats.invalidations += 1,
            Maintenance::FlushInvalidate => {
                self.stats.flushes += 1;
                self.stats.invalidations += 1;
            }
        }
        let slots = self.lines.len() as u64;
        match range {
            Some((_, 0)) => {}
            Some((addr, size)) if size.div_ceil(self.line_bytes as u64) < slots => {
                let first = addr >> self.line_shift;
                let last = addr.saturating_add(size - 1) >> self.line_shift;
                for line in first..=last {
                    report.lines_examined = report.lines_examined.saturating_add(1);
                    if let Some(slot) = self.lookup(line) {
                        self.maintain_slot(slot, next, op, &mut report)?;
                    }
                }
            }
            _ => {
                let (lo, hi) = match range {
                    Some((addr, size)) => (addr >> self.line_shift, addr.saturating_add(size - 1) >> self.line_shift),
                    None => (0, u64::MAX),
                };
                for slot in 0..self.lines.len() {
                    report.lines_examined = report.lines_examined.saturating_add(1);
                    let line = self.lines[slot];
                    if line != INVALID && line >= lo && line <= hi {
                        self.maintain_slot(slot, next, op, &mut report)?;
                    }
                }
            }
        }
        Ok(report)
    }

    fn maintain_slot<N: MemoryLevel + ?Sized>(&mut self, slot: usize, next: &mut N, op: Maintenance, report: &mut AccessReport) -> Result<(), AccessError> {
        let invalidate = op == Maintenance::Invalidate;
        if invalidate && self.spec.dirty_on_invalidate == DirtyOnInvalidate::Keep && self.is_dirty::<0>(slot) {
            return Ok(());
        }
        let discard = invalidate && self.spec.dirty_on_invalidate == DirtyOnInvalidate::Discard;
        if discard {
            if self.is_dirty::<0>(slot) {
                self.stats.lines_discarded += 1;
            }
        } else {
            self.write_back(slot, next, report)?;
        }
        if op != Maintenance::Flush {
            self.drop_slot(slot);
            self.stats.lines_invalidated += 1;
        }
        Ok(())
    }

    /// Writes back every dirty line overlapping `range` (`None`: the whole cache).
    pub fn flush<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, range: Option<(u64, u64)>) -> Result<AccessReport, AccessError> {
        self.maintain(next, Maintenance::Flush, range)
    }

    /// Drops every line overlapping `range` (dirty data written back first unless the spec
    /// says `discard`).
    pub fn invalidate<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, range: Option<(u64, u64)>) -> Result<AccessReport, AccessError> {
        self.maintain(next, Maintenance::Invalidate, range)
    }

    /// Writes back and drops every line overlapping `range`.
    pub fn flush_invalidate<N: MemoryLevel + ?Sized>(&mut self, next: &mut N, range: Option<(u64, u64)>) -> Result<AccessReport, AccessError> {
        self.maintain(next, Maintenance::FlushInvalidate, range)
    }
}

/// The ways of a set holding `line`, as a bit mask. A line sits in at most one way; the matches
/// are gathered without a branch per way (a miss must look at every way, and misses are what a
/// cache is timed on). The common associativities get a loop of fixed length, which unrolls.
#[inline(always)]
fn ways_matching(set: &[u64], line: u64) -> u64 {
    if let Ok(set) = <&[u64; 16]>::try_from(set) {
        ways_matching_n(set, line)
    } else if let Ok(set) = <&[u64; 8]>::try_from(set) {
        ways_matching_n(set, line)
    } else if let Ok(set) = <&[u64; 4]>::try_from(set) {
        ways_matching_n(set, line)
    } else {
        set.iter().enumerate().fold(0, |hits, (w, &l)| hits | ((l == line) as u64) << w)
    }
}

/// Sets one slot's byte mask `m` to every byte (`full`; `last` is the value of a full last word)
/// or to none.
#[inline(always)]
fn fill_mask(m: &mut [u64], full: bool, last: u64) {
    if let [w] = m {
        *w = if full { last } else { 0 };
    } else {
        m.fill(if full { u64::MAX } else { 0 });
        if full && let Some(w) = m.last_mut() {
            *w = last;
        }
    }
}

/// Copies bytes `off..off + data.len()` of a frame's `bytes` into `data`, and the tags of the
/// words they lie in, from the frame's `words`, into `tags` (as many as it holds).
#[inline(always)]
fn copy_out(bytes: &[u8], words: &[Tag], off: usize, data: &mut [u8], tags: &mut [Tag]) {
    copy(data, &bytes[off..off + data.len()]);
    let w0 = off / TAG_GRANULE as usize;
    copy(tags, &words[w0..w0 + tags.len()]);
}

/// `data` and `tags` as arrays of `B` bytes and `T` tags, when they are that long.
#[inline(always)]
fn as_arrays<'a, const B: usize, const T: usize>(data: &'a mut [u8], tags: &'a mut [Tag]) -> Option<(&'a mut [u8; B], &'a mut [Tag; T])> {
    Some((data.try_into().ok()?, tags.try_into().ok()?))
}

/// [`ways_matching`] of a set of `W` ways: a loop of fixed length, which unrolls.
#[inline(always)]
fn ways_matching_n<const W: usize>(set: &[u64; W], line: u64) -> u64 {
    let mut hits = 0u64;
    for (w, &l) in set.iter().enumerate() {
        hits |= ((l == line) as u64) << w;
    }
    hits
}

/// A line's byte in `way_hints`: the top byte of a multiplicative hash, so that lines a set holds
/// (which differ in their high bits) get different hints.
#[inline(always)]
fn line_hint(line: u64) -> u8 {
    (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
}

/// The ways of a set of `W` ways (at most 16) whose hint byte is `wanted`, one bit a way.
#[inline(always)]
fn ways_hinting<const W: usize>(hints: &[u8; W], wanted: u8) -> u32 {
    const { assert!(W <= 16, "a hint scan covers at most 16 ways") };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        let mut bytes = [0u8; 16];
        bytes[..W].copy_from_slice(hints);
        // One vector compare of all the ways' bytes. SAFETY: the load reads the 16 bytes of
        // `bytes`, and SSE2, which the others need, is part of x86-64.
        let equal = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(bytes.as_ptr().cast()), _mm_set1_epi8(wanted as i8))) };
        // Bytes past the set's ways are no candidates.
        equal as u32 & ((1u32 << W) - 1)
    }
    #[cfg(not(target_arch = "x86_64"))]
    ways_hinting_bytewise(hints, wanted)
}

/// [`ways_hinting`] a byte at a time: the definition, and the code on hosts other than x86-64.
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn ways_hinting_bytewise<const W: usize>(hints: &[u8; W], wanted: u8) -> u32 {
    hints.iter().enumerate().fold(0, |found, (w, &h)| found | u32::from(h == wanted) << w)
}

/// An LRU order (four bits a way, most recent first) with `way` moved to the front.
#[inline(always)]
fn move_to_front(order: u64, way: usize) -> u64 {
    // The position of `way` is the lowest zero nibble of `order ^ way-in-every-nibble`. (The
    // zero-nibble test can also flag nibbles above a true zero, never one below it.) Nibbles
    // past the set's ways hold values no way has, so they never match.
    let x = order ^ (way as u64).wrapping_mul(0x1111_1111_1111_1111);
    let zeros = x.wrapping_sub(0x1111_1111_1111_1111) & !x & 0x8888_8888_8888_8888;
    let shift = zeros.trailing_zeros() & !3;
    // The ways used more recently move back one place; the ones used less recently stay.
    let newer = (1u64 << shift) - 1;
    let older = !newer & !(0xF << shift);
    (order & older) | (order & newer) << 4 | way as u64
}

/// The index of the smallest of `stamps`, the first of equals.
#[inline(always)]
fn argmin(stamps: &[u64]) -> usize {
    let mut best = 0;
    let mut best_key = u64::MAX;
    for (w, &key) in stamps.iter().enumerate() {
        if key < best_key {
            best = w;
            best_key = key;
        }
    }
    best
}

/// Calls `f(i, j)` for each run `i..j` of set bits in `mask`, in order, reading the mask 64 bits
/// at a time.
#[inline(always)]
fn for_each_run(mask: &BitSlice<u64, Lsb0>, mut f: impl FnMut(usize, usize)) {
    let mut at = 0;
    while at < mask.len() {
        let take = (mask.len() - at).min(64);
        let mut bits: u64 = mask[at..at + take].load_le();
        while bits != 0 {
            let lo = bits.trailing_zeros() as usize;
            // Bits above `take` are zero, so a run ends by 64 at the latest.
            let len = (!(bits >> lo)).trailing_zeros() as usize;
            f(at + lo, at + lo + len);
            bits &= !bit_range(lo, lo + len);
        }
        at += take;
    }
}

/// The bits `lo..hi` of a mask word (`hi <= 64`).
#[inline]
fn bit_range(lo: usize, hi: usize) -> u64 {
    let width = hi - lo;
    if width >= 64 { u64::MAX } else { ((1u64 << width) - 1) << lo }
}

/// One line's part of an access: bytes `pos..pos + n` of the access, which lie at `addr`, `off`
/// bytes into line `line`.
#[derive(Clone, Copy)]
struct Segment {
    pos: usize,
    addr: u64,
    line: u64,
    off: usize,
    n: usize,
}

#[derive(Clone, Copy)]
enum MaskKind {
    Valid,
    Dirty,
}

/// A cache together with its next level: itself a [`MemoryLevel`], so levels chain
/// (`Chained { cache: &mut l2, next: &mut vram }` is what an L1 reads through).
pub struct Chained<'a, N: MemoryLevel + ?Sized> {
    /// The cache in front.
    pub cache: &'a mut Cache,
    /// Everything behind it.
    pub next: &'a mut N,
}

impl<N: MemoryLevel + ?Sized> MemoryLevel for Chained<'_, N> {
    // Always inlined, as `Cache::read` is: an upper level's fill then checks the line used last
    // here without a call.
    #[inline(always)]
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        self.cache.read(self.next, addr, data, tags)
    }

    #[inline]
    fn write(
        &mut self,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError> {
        self.cache.write(self.next, addr, data, tags, mask)
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        self.cache.prefetch(self.next, addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BackingStore, CacheSpec};

    /// The vector compare of hint bytes finds exactly the ways a byte-by-byte compare finds,
    /// for every associativity it serves, whatever the bytes (zero included). (On hosts other
    /// than x86-64 both sides are the byte-by-byte compare.)
    #[test]
    fn hint_scan_matches_a_bytewise_compare() {
        fn check<const W: usize>(rng: &mut u64) {
            for _ in 0..2000 {
                let mut hints = [0u8; W];
                for h in &mut hints {
                    *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    // Few distinct values, so that matches are common.
                    *h = (*rng >> 60) as u8 * 17;
                }
                for wanted in [0, 17, 34, 255] {
                    assert_eq!(ways_hinting(&hints, wanted), ways_hinting_bytewise(&hints, wanted), "{hints:?} {wanted}");
                }
            }
        }
        let mut rng = 1;
        check::<4>(&mut rng);
        check::<8>(&mut rng);
        check::<16>(&mut rng);
    }

    /// Lines of one set whose hint bytes are all equal (every way's hint matches every lookup):
    /// each is found with its own bytes, a line with the same hint that was never read is not,
    /// and replacement still picks the least recently used of them.
    #[test]
    fn lines_with_equal_hints_are_told_apart() {
        const SETS: u64 = 64;
        for ways in [4u32, 8, 16] {
            let spec = CacheSpec::new(SETS * 64 * ways as u64, 64, ways, Replacement::Lru, WritePolicy::WriteThroughAllocate);
            let mut cache = Cache::new("L1", &spec, 1).unwrap();
            let mut vram = BackingStore::new(1 << 30, 1, 256).unwrap();
            let lines: Vec<u64> = (1..).map(|k| k * SETS).filter(|&l| line_hint(l) == line_hint(SETS)).take(ways as usize + 1).collect();
            for (i, &line) in lines.iter().enumerate() {
                vram.poke(line * 64, &(i as u64 + 100).to_le_bytes(), i as Tag + 1).unwrap();
            }
            let (mut data, mut tags) = ([0u8; 8], [0 as Tag; 2]);
            let (held, extra) = lines.split_at(ways as usize);
            for _ in 0..2 {
                for (i, &line) in held.iter().enumerate() {
                    cache.read(&mut vram, line * 64, &mut data, &mut tags).unwrap();
                    assert_eq!((u64::from_le_bytes(data), tags), (i as u64 + 100, [i as Tag + 1; 2]), "{ways} ways, line {line:#x}");
                }
            }
            let s = cache.stats();
            assert_eq!((s.read_misses, s.read_hits), (ways as u64, ways as u64), "{ways} ways: the second pass hits every line");
            assert!(held.iter().all(|&l| cache.contains(l * 64)) && !cache.contains(extra[0] * 64), "{ways} ways");
            cache.read(&mut vram, extra[0] * 64, &mut data, &mut tags).unwrap();
            assert_eq!(u64::from_le_bytes(data), ways as u64 + 100, "{ways} ways: the extra line's own bytes");
            assert!(!cache.contains(held[0] * 64) && held[1..].iter().all(|&l| cache.contains(l * 64)), "{ways} ways: the least recently used line went");
        }
    }
}
