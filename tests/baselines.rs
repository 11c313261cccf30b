//! The benchmark baselines (`benches/common/`) are only a fair measure of what the host can do
//! if they do the same work as the caches they stand beside: these tests run both on the same
//! loads and require the same bytes, the same provenance and the same hit, miss and eviction
//! counts, access by access. The host's line-copy baseline, which has no cache, must at least
//! copy the lines it is said to copy.

use gpusim::caches::{BackingStore, Cache, CacheSpec, Chained, Replacement, Tag, WritePolicy};

#[path = "../benches/common/minimal_l1.rs"]
mod minimal_l1;
#[path = "../benches/common/minimal_two_level.rs"]
mod minimal_two_level;
#[path = "../benches/common/line_copy.rs"]
mod line_copy;
use minimal_l1::MinimalL1;
use minimal_two_level::MinimalTwoLevel;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// `size` bytes of device memory, written so that provenance varies at every grain the store
/// keeps: a different tag every 64 bytes, and in the first 64 KiB every 16 bytes.
fn memory(size: u64) -> BackingStore {
    let mut vram = BackingStore::new(size, 8, 256).unwrap();
    let chunk: Vec<u8> = (0..64).map(|i| (i * 7 + 3) as u8).collect();
    for (n, addr) in (0..size).step_by(64).enumerate() {
        vram.poke(addr, &chunk, n as Tag + 1).unwrap();
    }
    for (n, addr) in (0..size.min(64 * KIB)).step_by(16).enumerate() {
        vram.poke(addr, &(n as u128).to_le_bytes(), 1_000_000 + n as Tag).unwrap();
    }
    vram
}

/// Aligned 8-byte load addresses below `range`: a third streaming, the rest random.
fn addresses(range: u64, count: u64, seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed | 1;
    (0..count).map(move |i| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        if i % 3 == 0 { (i * 8) % range } else { (s % (range / 8)) * 8 }
    })
}

fn l1() -> Cache {
    Cache::new("L1", &CacheSpec::new(32 * KIB, 64, 8, Replacement::Lru, WritePolicy::WriteThroughAllocate), 1).unwrap()
}

/// The two-level baseline returns what the L1 + L2 pair returns and counts what it counts, over
/// ranges that fit the L1, fit the L2, and overflow both, hinted or not.
#[test]
fn minimal_two_level_matches_the_cache_pair() {
    let size = 8 * MIB;
    for range in [16 * KIB, 768 * KIB, 8 * MIB] {
        let mut vram = memory(size);
        let mut l1 = l1();
        let mut l2 = Cache::new("L2", &CacheSpec::new(MIB, 64, 16, Replacement::Lru, WritePolicy::WriteBackLineDirty), 2).unwrap();
        let mut minimal = MinimalTwoLevel::default();
        let (mut data, mut tags) = ([0u8; 8], [0 as Tag; 2]);
        for (i, a) in addresses(range, 150_000, range).enumerate() {
            l1.read(&mut Chained { cache: &mut l2, next: &mut vram }, a, &mut data, &mut tags).unwrap();
            // Every other access hinted first, as the `_prefetch` rows hint: nothing it returns
            // or counts may change.
            if i % 2 == 0 {
                minimal.prefetch(&vram, a);
            }
            assert_eq!(minimal.load8(&mut vram, a), (data, tags), "range {range}, access {i} at {a:#x}");
        }
        let (s1, s2) = (l1.stats(), l2.stats());
        let counts = [s1.read_hits, s1.read_misses, s1.evictions, s2.read_hits, s2.read_misses, s2.evictions];
        assert_eq!(minimal.stats, counts, "range {range}: L1 and L2 hits, misses, evictions");
        assert!(s2.read_misses > 0 && (range > 2 * MIB) == (s2.evictions > 0), "range {range}: the ranges exercise what they are for");
    }
}

/// The streaming baseline returns what the L1 returns and counts what it counts.
#[test]
fn minimal_l1_matches_the_cache() {
    let size = 4 * MIB;
    for range in [16 * KIB, 4 * MIB] {
        let mut vram = memory(size);
        let mut l1 = l1();
        let mut minimal = MinimalL1::default();
        let (mut data, mut tags) = ([0u8; 8], [0 as Tag; 2]);
        for (i, a) in addresses(range, 150_000, range).enumerate() {
            l1.read(&mut vram, a, &mut data, &mut tags).unwrap();
            assert_eq!(minimal.load8(&mut vram, a), (data, tags), "range {range}, access {i} at {a:#x}");
        }
        let s = l1.stats();
        assert_eq!(minimal.stats, [s.read_hits, s.read_misses, s.evictions], "range {range}: hits, misses, evictions");
    }
}

/// `line_copies` reads each address's line, not some other bytes: with no arithmetic beside
/// the copies (its four chains then cancel out) its checksum is the sum of the 8-byte words at
/// the addresses, with the host prefetch or without.
#[test]
fn the_line_copy_baseline_copies_the_lines_it_names() {
    let memory: Vec<u8> = (0..MIB).map(|i| (i * 7 + 3 + (i >> 12)) as u8).collect();
    let random: Vec<u64> = addresses(MIB, 10_000, 0xC0FFEE).map(|a| a + a % 7).collect();
    let want = random.iter().fold(0u64, |sum, &a| {
        let at = (a & !7) as usize;
        sum.wrapping_add(u64::from_le_bytes(memory[at..at + 8].try_into().unwrap()))
    });
    assert_eq!(line_copy::line_copies(&memory, &random, 0, 0), want);
    assert_eq!(line_copy::line_copies(&memory, &random, 0, 16), want);
    // The arithmetic changes the checksum and the prefetch still does not.
    let worked = line_copy::line_copies(&memory, &random, 3, 0);
    assert_ne!(worked, want);
    assert_eq!(line_copy::line_copies(&memory, &random, 3, 16), worked);
}
