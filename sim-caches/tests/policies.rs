//! Replacement policies checked by hand, statistics that must add up, and a sparse store.

use sim_caches::*;

const KIB: u64 = 1024;

/// One set of four 64-byte ways: every line competes for the same set, so each test below
/// picks its victims by hand.
fn one_set(replacement: Replacement) -> Cache {
    Cache::new("C", &CacheSpec::new(256, 64, 4, replacement, WritePolicy::WriteBackLineDirty), 0).unwrap()
}

/// Reads 4 bytes of line `n` (line `n` starts at `n * 64`).
fn touch(cache: &mut Cache, vram: &mut BackingStore, n: u64) -> AccessReport {
    let mut d = [0u8; 4];
    let mut t = [0; 1];
    cache.read(vram, n * 64, &mut d, &mut t).unwrap()
}

fn held(cache: &Cache, lines: &[u64]) -> Vec<bool> {
    lines.iter().map(|&n| cache.contains(n * 64)).collect()
}

const A: u64 = 0;
const B: u64 = 1;
const C: u64 = 2;
const D: u64 = 3;
const E: u64 = 4;
const F: u64 = 5;

#[test]
fn lru_evicts_the_least_recently_used_line() {
    let mut vram = BackingStore::new(64 * KIB, 1, 256).unwrap();
    let mut c = one_set(Replacement::Lru);
    for n in [A, B, C, D] {
        touch(&mut c, &mut vram, n);
    }
    // Use order, oldest first: C, B, A, D after these.
    for n in [B, A, D] {
        assert_eq!(touch(&mut c, &mut vram, n).hits, 1);
    }
    let r = touch(&mut c, &mut vram, E);
    assert_eq!((r.misses, r.evictions), (1, 1));
    assert_eq!(held(&c, &[A, B, C, D, E]), [true, true, false, true, true], "C was least recently used");
    // Now B, A, D, E: B goes next.
    touch(&mut c, &mut vram, F);
    assert_eq!(held(&c, &[A, B, D, E, F]), [true, false, true, true, true], "then B");
}

/// LRU against a model of itself: random reads, writes and single-line invalidations over a
/// small pool of lines, for associativities on both sides of the 16 ways whose order fits one
/// word (and an odd one), and after every operation the cache holds exactly the lines the model
/// holds. The model keeps each set's lines most recent first and drops the last when full.
#[test]
fn lru_matches_a_model_at_every_associativity() {
    for ways in [1u64, 2, 3, 4, 8, 16, 17, 32] {
        let sets = 4u64;
        let spec = CacheSpec::new(sets * ways * 64, 64, ways as u32, Replacement::Lru, WritePolicy::WriteBackLineDirty);
        let mut c = Cache::new("C", &spec, 0).unwrap();
        let mut vram = BackingStore::new(64 * KIB, 1, 256).unwrap();
        // Twice as many lines per set as there are ways: hits, misses and evictions all happen.
        let pool = sets * ways * 2;
        let mut model: Vec<Vec<u64>> = vec![Vec::new(); sets as usize];
        let mut rng = 0x1EA57_u64 ^ ways;
        for op in 0..4000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let line = rng % pool;
            let set = &mut model[(line % sets) as usize];
            let at = set.iter().position(|&l| l == line);
            match (rng >> 32) % 8 {
                0 => {
                    c.invalidate(&mut vram, Some((line * 64, 64))).unwrap();
                    if let Some(i) = at {
                        set.remove(i);
                    }
                }
                k => {
                    if k == 1 {
                        c.write(&mut vram, line * 64 + 8, &[k as u8; 4], Tags::One(7), None).unwrap();
                    } else {
                        touch(&mut c, &mut vram, line);
                    }
                    match at {
                        Some(i) => {
                            set.remove(i);
                        }
                        None if set.len() == ways as usize => {
                            set.pop();
                        }
                        None => {}
                    }
                    set.insert(0, line);
                }
            }
            for l in 0..pool {
                let want = model[(l % sets) as usize].contains(&l);
                assert_eq!(c.contains(l * 64), want, "{ways} ways, after operation {op}: line {l} held: {}, model: {want}", !want);
            }
        }
    }
}

#[test]
fn tree_plru_evicts_the_way_the_tree_points_to() {
    // Ways fill in order: A in way 0, B in 1, C in 2, D in 3. The tree has a root bit choosing
    // between ways {0,1} and {2,3}, and one bit under each half; each access points the bits on
    // its path away from its way.
    let mut vram = BackingStore::new(64 * KIB, 1, 256).unwrap();
    let mut c = one_set(Replacement::TreePlru);
    for n in [A, B, C, D] {
        touch(&mut c, &mut vram, n);
    }
    // A (way 0): root -> right, left bit -> way 1. B (way 1): root -> right, left bit -> way 0.
    // C (way 2): root -> left, right bit -> way 3. The tree now points left, then to way 0: it
    // evicts A although D, untouched since the fill, is the least recently used (true LRU would
    // evict D).
    for n in [A, B, C] {
        touch(&mut c, &mut vram, n);
    }
    touch(&mut c, &mut vram, E);
    assert_eq!(held(&c, &[A, B, C, D, E]), [false, true, true, true, true], "tree-PLRU evicts A, in way 0");
    // E went into way 0: root -> right, right bit still -> way 3. So D goes next.
    touch(&mut c, &mut vram, F);
    assert_eq!(held(&c, &[B, C, D, E, F]), [true, true, false, true, true], "then D, in way 3");

    // The same sequence under LRU evicts D first.
    let mut c = one_set(Replacement::Lru);
    for n in [A, B, C, D, A, B, C, E] {
        touch(&mut c, &mut vram, n);
    }
    assert_eq!(held(&c, &[A, D]), [true, false]);
}

/// Statistics of `seed`'s random-replacement cache after a fixed stream of traffic.
fn random_replacement_stats(seed: u64) -> CacheStats {
    let mut vram = BackingStore::new(256 * KIB, 1, 256).unwrap();
    let spec = CacheSpec::new(4 * KIB, 64, 8, Replacement::Random, WritePolicy::WriteBackByteMask);
    let mut c = Cache::new("C", &spec, seed).unwrap();
    let mut x = 1u64;
    for i in 0..20_000u32 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let addr = (x >> 33) % (16 * KIB);
        let mut d = [0u8; 8];
        let mut t = [0; 3];
        if i % 3 == 0 {
            c.write(&mut vram, addr, &d, Tags::One(i), None).unwrap();
        } else {
            c.read(&mut vram, addr, &mut d, &mut t[..word_span(addr, 8)]).unwrap();
        }
    }
    c.stats()
}

#[test]
fn random_replacement_is_deterministic_for_a_seed() {
    assert_eq!(random_replacement_stats(7), random_replacement_stats(7), "same seed, same traffic: same stats");
    assert_ne!(random_replacement_stats(7), random_replacement_stats(8), "another seed picks other victims");
}

#[test]
fn statistics_add_up() {
    let mut vram = BackingStore::new(1 << 20, 4, 256).unwrap();
    let spec = CacheSpec::new(4 * KIB, 64, 4, Replacement::Lru, WritePolicy::WriteThroughAllocate);
    let mut c = Cache::new("C", &spec, 0).unwrap();
    let (mut reads, mut writes, mut read_lines, mut write_lines) = (0, 0, 0u64, 0u64);
    let mut report_sum = AccessReport::default();
    let mut x = 3u64;
    for i in 0..50_000u32 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = 1 + ((x >> 20) % 100) as usize;
        let addr = (x >> 33) % (64 * KIB);
        let lines = (addr + len as u64 - 1) / 64 - addr / 64 + 1;
        let r = if i % 4 == 0 {
            writes += 1;
            write_lines += lines;
            c.write(&mut vram, addr, &vec![i as u8; len], Tags::One(i + 1), None).unwrap()
        } else {
            reads += 1;
            read_lines += lines;
            let mut d = vec![0u8; len];
            let mut t = vec![0; word_span(addr, len)];
            c.read(&mut vram, addr, &mut d, &mut t).unwrap()
        };
        assert_eq!((r.hits + r.misses) as u64, lines, "op {i}: each line of an access is a hit or a miss");
        report_sum.merge(&r);
        if i % 10_000 == 9_999 {
            report_sum.merge(&c.invalidate(&mut vram, Some((addr, 4 * KIB))).unwrap());
        }
    }
    let s = c.stats();
    assert_eq!((s.reads, s.writes), (reads, writes));
    assert_eq!(s.read_hits + s.read_misses, read_lines, "read hits + misses = lines read");
    assert_eq!(s.write_hits + s.write_misses, write_lines, "write hits + misses = lines written");
    assert_eq!(s.hits() + s.misses(), read_lines + write_lines);
    assert_eq!(report_sum.hits as u64, s.hits());
    assert_eq!(report_sum.misses as u64, s.misses());
    assert_eq!(report_sum.fills as u64, s.fills);
    assert_eq!(report_sum.evictions as u64, s.evictions);
    // Write-through-allocate fills every line it allocates, and every miss allocates.
    assert_eq!(s.fills, s.misses());
    assert_eq!(s.fills - s.evictions - s.lines_invalidated, c.resident_lines() as u64);
    assert_eq!(s.write_through_bytes, report_sum.write_through_bytes);
    assert_eq!(s.writebacks, 0, "a write-through cache never holds dirty data");
    // Device memory saw every fill and every written byte.
    let mem = vram.total_stats();
    assert_eq!(mem.read_bytes, s.fills * 64);
    assert_eq!(mem.write_bytes, s.write_through_bytes);
    assert_eq!(mem.read_transactions, u64::from(report_sum.dram_read_transactions));
    assert_eq!(mem.write_transactions, u64::from(report_sum.dram_write_transactions));
}

#[test]
fn a_4_gib_address_space_stays_small() {
    let mut vram = BackingStore::new(4 << 30, 8, 256).unwrap();
    let mut l2 = Cache::new("L2", &CacheSpec::new(64 * KIB, 64, 8, Replacement::Lru, WritePolicy::WriteBackByteMask), 0).unwrap();
    // A few writes scattered over the 4 GiB, written back by a flush.
    let addrs = [0u64, 1 << 30, (2 << 30) + 12345, (4 << 30) - 8];
    for (i, &a) in addrs.iter().enumerate() {
        l2.write(&mut vram, a, &[0xAB; 8], Tags::One(i as Tag + 1), None).unwrap();
    }
    l2.flush(&mut vram, None).unwrap();
    let resident = vram.resident_bytes();
    assert!(resident > 0 && resident <= addrs.len() as u64 * 128 * KIB, "{resident} bytes resident for 4 writes");
    // Reading untouched memory returns zeroes with tag 0 and allocates nothing.
    let mut d = [1u8; 16];
    let mut t = [9; 4];
    l2.read(&mut vram, 3 << 30, &mut d, &mut t).unwrap();
    assert_eq!((d, t), ([0; 16], [0; 4]));
    assert_eq!(vram.resident_bytes(), resident);
    // The last word of the address space holds its data.
    l2.invalidate(&mut vram, None).unwrap();
    let mut d = [0u8; 8];
    let mut t = [0; 2];
    l2.read(&mut vram, (4 << 30) - 8, &mut d, &mut t).unwrap();
    assert_eq!((d, t), ([0xAB; 8], [4, 4]));
    // And one byte past the end is an error, not a panic.
    assert!(matches!(l2.read(&mut vram, (4 << 30) - 4, &mut d, &mut t), Err(AccessError::OutOfRange { .. })));
    assert!(!l2.contains(4 << 30), "the line that could not be fetched is not left resident");
}

/// An access running past the end of the 64-bit address space is refused with an error under
/// every write policy, by reads and writes alike, before any level computes an address beyond
/// it (which would overflow), and leaves the cache as it was.
#[test]
fn an_access_past_the_end_of_the_address_space_is_an_error() {
    let policies = [
        WritePolicy::WriteThroughAllocate,
        WritePolicy::WriteThroughNoAllocate,
        WritePolicy::WriteBackByteMask,
        WritePolicy::WriteBackLineDirty,
    ];
    for policy in policies {
        let mut cache = Cache::new("C", &CacheSpec::new(4 * KIB, 64, 4, Replacement::Lru, policy), 0).unwrap();
        let mut vram = BackingStore::new(64 * KIB, 1, 256).unwrap();
        let addr = u64::MAX - 3;
        let w = cache.write(&mut vram, addr, &[1; 8], Tags::One(1), None);
        assert!(matches!(w, Err(AccessError::OutOfRange { addr: a, len: 8, .. }) if a == addr), "{policy:?}: write: {w:?}");
        let (mut d, mut t) = ([0u8; 8], [0; 3]);
        let r = cache.read(&mut vram, addr, &mut d, &mut t);
        assert!(matches!(r, Err(AccessError::OutOfRange { .. })), "{policy:?}: read: {r:?}");
        assert!(cache.probe(addr, &mut d, &mut t).is_none(), "{policy:?}: probe");
        assert_eq!(cache.resident_lines(), 0, "{policy:?}: a refused access left a line behind");
    }
}
