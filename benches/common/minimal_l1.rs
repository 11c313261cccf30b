//! A cache built for nothing but the streaming benchmark, shared by `benches/caches.rs` and
//! `examples/cache_loop.rs`: the baseline that shows how far the general [`Cache`] is from what
//! this host can do for that pattern at all.
//!
//! [`Cache`]: gpusim::caches::Cache

use gpusim::caches::{BackingStore, MemoryLevel, Tag};

/// A cache built for nothing but the streaming case: the benchmark's L1 geometry (32 KiB, 8 ways
/// of 64-byte lines, LRU) fixed at compile time, aligned 8-byte loads only, lines always fully
/// valid, no writes, no maintenance, no per-access report. It still carries the bytes and their
/// provenance, fills from the same [`BackingStore`], and counts hits, misses and evictions, so
/// that it does the work the target asks for and nothing more.
pub struct MinimalL1 {
    lines: Vec<u64>,
    stamps: Vec<u64>,
    data: Vec<[u8; 64]>,
    tags: Vec<[Tag; 16]>,
    clock: u64,
    /// The line used last and its slot: the fast path, as in `Cache`.
    mru: (u64, usize),
    /// Hits, misses and evictions.
    pub stats: [u64; 3],
}

impl Default for MinimalL1 {
    fn default() -> Self {
        const SLOTS: usize = 512;
        MinimalL1 {
            lines: vec![u64::MAX; SLOTS],
            stamps: vec![0; SLOTS],
            data: vec![[0; 64]; SLOTS],
            tags: vec![[0; 16]; SLOTS],
            clock: 0,
            mru: (u64::MAX, 0),
            stats: [0; 3],
        }
    }
}

impl MinimalL1 {
    /// An 8-byte load (the address rounded down to 8): its bytes and its two words' provenance.
    #[inline(always)]
    pub fn load8(&mut self, store: &mut BackingStore, addr: u64) -> ([u8; 8], [Tag; 2]) {
        let (line, off) = (addr >> 6, (addr & 63) as usize & !7);
        let slot = if line == self.mru.0 {
            self.stats[0] += 1;
            self.mru.1
        } else {
            self.miss(store, line)
        };
        let data = self.data[slot][off..off + 8].try_into().unwrap();
        let tags = self.tags[slot][off / 4..off / 4 + 2].try_into().unwrap();
        (data, tags)
    }

    /// A load outside the line used last: the way holding `line`, else the LRU victim filled
    /// from `store`. Returns the slot.
    #[inline(never)]
    fn miss(&mut self, store: &mut BackingStore, line: u64) -> usize {
        let base = (line & 63) as usize * 8;
        let ways: &[u64; 8] = self.lines[base..base + 8].try_into().unwrap();
        let slot = match ways.iter().position(|&l| l == line) {
            Some(w) => {
                self.stats[0] += 1;
                base + w
            }
            None => {
                self.stats[1] += 1;
                let stamps: &[u64; 8] = self.stamps[base..base + 8].try_into().unwrap();
                let mut way = 0;
                for w in 1..8 {
                    if stamps[w] < stamps[way] {
                        way = w;
                    }
                }
                let slot = base + way;
                if self.lines[slot] != u64::MAX {
                    self.stats[2] += 1;
                }
                self.lines[slot] = line;
                store.read(line << 6, &mut self.data[slot], &mut self.tags[slot]).unwrap();
                slot
            }
        };
        self.clock += 1;
        self.stamps[slot] = self.clock;
        self.mru = (line, slot);
        slot
    }
}
