//! A two-level cache built for nothing but the random-load benchmark, shared by
//! `benches/caches.rs` and `examples/cache_loop.rs`: the baseline that shows how far the general
//! [`Cache`] pair is from what this host can do for that pattern at all.
//!
//! [`Cache`]: gpusim::caches::Cache

use gpusim::caches::{BackingStore, MemoryLevel, Tag};

// Every crate that includes this file includes `line_copy.rs` beside it, as `line_copy`.
use crate::line_copy::prefetch_line;

/// One level of [`MinimalTwoLevel`]: `SETS` sets of `WAYS` (at most 16) 64-byte lines, LRU,
/// lines always fully valid and clean.
struct Level<const SETS: usize, const WAYS: usize> {
    /// Line numbers, 32 bits each (enough for the benchmark's 64 MiB, so that a set's compares
    /// are vector compares on any x86-64), `u32::MAX` when empty.
    lines: Vec<[u32; WAYS]>,
    /// Each set's ways from most to least recently used, four bits a way.
    order: Vec<u64>,
    /// Each slot's bytes (slot `set * WAYS + way`).
    data: Vec<[u8; 64]>,
    /// Each slot's provenance, a tag per 4-byte word.
    tags: Vec<[Tag; 16]>,
}

/// The nibbles below position `k` of an LRU order.
fn below(k: usize) -> u64 {
    if k >= 16 { u64::MAX } else { (1 << (4 * k)) - 1 }
}

/// The ways of `ways` holding `line`, one bit a way: four ways to a vector compare on x86-64.
#[inline(always)]
fn ways_holding<const WAYS: usize>(ways: &[u32; WAYS], line: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if WAYS.is_multiple_of(4) {
        use std::arch::x86_64::{_mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32};
        let mut hits = 0;
        for (k, four) in ways.chunks_exact(4).enumerate() {
            // SAFETY: the load reads the four `u32`s of `four`; SSE2 is part of x86-64.
            let m = unsafe { _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128(four.as_ptr().cast()), _mm_set1_epi32(line as i32)))) };
            hits |= (m as u32) << (4 * k);
        }
        return hits;
    }
    ways.iter().enumerate().fold(0, |m, (w, &l)| m | u32::from(l == line) << w)
}

impl<const SETS: usize, const WAYS: usize> Level<SETS, WAYS> {
    /// An empty level.
    fn new() -> Self {
        // Way `w` at position `w`: the empty ways are replaced last to first, each once.
        let order = (0..WAYS as u64).fold(0, |o, w| o | w << (4 * w));
        Level { lines: vec![[u32::MAX; WAYS]; SETS], order: vec![order; SETS], data: vec![[0; 64]; SETS * WAYS], tags: vec![[0; 16]; SETS * WAYS] }
    }

    /// The slot holding `line` and `true`, else the least recently used slot of its set (now
    /// assigned to `line`), `false`, and whether that slot held a line. Either way the slot is
    /// now the most recently used of its set.
    #[inline(always)]
    fn find_or_replace(&mut self, line: u64) -> (usize, bool, bool) {
        let set = line as usize % SETS;
        let line = u32::try_from(line).ok().filter(|&l| l != u32::MAX).expect("an address below 256 GiB");
        let (ways, order) = (&mut self.lines[set], &mut self.order[set]);
        let hits = ways_holding(ways, line);
        if hits != 0 {
            let w = hits.trailing_zeros() as u64;
            let p = (0..WAYS).position(|p| (*order >> (4 * p)) & 0xF == w).expect("every way has a place in the order");
            *order = (*order & !below(p + 1)) | (*order & below(p)) << 4 | w;
            return (set * WAYS + w as usize, true, false);
        }
        let w = (*order >> (4 * (WAYS - 1))) & 0xF;
        *order = (*order << 4 | w) & below(WAYS);
        let evicted = ways[w as usize] != u32::MAX;
        ways[w as usize] = line;
        (set * WAYS + w as usize, false, evicted)
    }

    /// Hints the host to fetch what a miss of `line` here would touch: the set's line numbers
    /// and order, and the bytes and tags of the slot it would replace as the set stands now.
    #[inline(always)]
    fn prefetch(&self, line: u64) {
        let set = line as usize % SETS;
        let victim = set * WAYS + ((self.order[set] >> (4 * (WAYS - 1))) & 0xF) as usize;
        prefetch_line(&self.lines[set]);
        prefetch_line(&self.order[set]);
        prefetch_line(&self.data[victim]);
        prefetch_line(&self.tags[victim]);
    }
}

/// The benchmark's hierarchy built for aligned 8-byte loads and nothing else: a 32 KiB 8-way
/// L1 in front of a 1 MiB 16-way L2, 64-byte lines, LRU, the geometry fixed at compile time; no
/// writes (so no write-back), no maintenance, no per-access report. It still carries the bytes
/// and their provenance through both levels, fills the L2 from the same [`BackingStore`]
/// (which counts the traffic), and counts each level's hits, misses and evictions, so that it
/// does the work the target asks for and nothing more.
pub struct MinimalTwoLevel {
    l1: Level<64, 8>,
    l2: Level<1024, 16>,
    /// L1 hits, misses and evictions, then the L2's.
    pub stats: [u64; 6],
}

impl Default for MinimalTwoLevel {
    fn default() -> Self {
        MinimalTwoLevel { l1: Level::new(), l2: Level::new(), stats: [0; 6] }
    }
}

impl MinimalTwoLevel {
    /// Hints the host to fetch what a load at `addr` would touch beyond the L1 (which fits the
    /// host's own L1): the L2 set's state and victim slot, and the backing store's line. As
    /// [`Cache::prefetch`] does for the `Cache` pair; changes nothing simulated.
    ///
    /// [`Cache::prefetch`]: gpusim::caches::Cache::prefetch
    #[inline(always)]
    pub fn prefetch(&self, store: &BackingStore, addr: u64) {
        self.l2.prefetch(addr >> 6);
        store.prefetch(addr);
    }

    /// An 8-byte load (the address rounded down to 8): its bytes and its two words' provenance.
    #[inline(always)]
    pub fn load8(&mut self, store: &mut BackingStore, addr: u64) -> ([u8; 8], [Tag; 2]) {
        let (line, off) = (addr >> 6, (addr & 63) as usize & !7);
        let (s1, hit1, evicted1) = self.l1.find_or_replace(line);
        if hit1 {
            self.stats[0] += 1;
        } else {
            self.stats[1] += 1;
            self.stats[2] += evicted1 as u64;
            let (s2, hit2, evicted2) = self.l2.find_or_replace(line);
            if hit2 {
                self.stats[3] += 1;
            } else {
                self.stats[4] += 1;
                self.stats[5] += evicted2 as u64;
                store.read(line << 6, &mut self.l2.data[s2], &mut self.l2.tags[s2]).unwrap();
            }
            self.l1.data[s1] = self.l2.data[s2];
            self.l1.tags[s1] = self.l2.tags[s2];
        }
        let data = self.l1.data[s1][off..off + 8].try_into().unwrap();
        let tags = self.l1.tags[s1][off / 4..off / 4 + 2].try_into().unwrap();
        (data, tags)
    }
}
