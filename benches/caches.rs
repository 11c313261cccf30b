//! Throughput of the memory hierarchy carrying real data: accesses per second of 8-byte loads
//! and stores through a 32 KiB 8-way 64-byte-line LRU L1 alone (`single`: L1 over device
//! memory) and in front of a 1 MiB 16-way write-back L2 (`two_level`), over 64 MiB of
//! pre-populated device memory. The L1 is write-through-allocate, as AMD's vector L1 is; the
//! `_wb` cases repeat the stores with a write-back L1 with a per-byte dirty mask, the other L1
//! the design offers. The `_prefetch` cases repeat the random loads with a
//! [`MemoryLevel::prefetch`] hint 16 accesses ahead, as a trace replay that knows its next
//! accesses can give: the simulated results are the same, only the host's memory latency
//! overlaps.
//!
//! The `baseline` group measures the host: `random_load8_vec` and `chase_load8_vec` read a plain
//! 64 MiB `Vec<u8>` with the same random addresses (independent and dependent loads), to show how
//! much of the random cases is the host's own memory latency; `minimal_l1_stream_load8` runs the
//! streaming loads through a cache built for that one pattern, to show how much of
//! `single/stream_load8` is the host's own limit, and `minimal_two_level_random_load8` the
//! random loads through a two-level cache built for that one pattern, for `two_level/random_load8`
//! (and, hinted the same way, for `two_level/random_load8_prefetch`).
//! The `line_copy_vec` rows copy the random addresses' 64-byte lines out of the plain array with
//! no cache at all, alone and with the instruction count of a two-level access beside each
//! copy in register arithmetic (`benches/common/line_copy.rs`): what the host does for work of
//! that shape. The `_huge` rows repeat the line copies and the chase with the array on host
//! huge pages, as the backing store's pages are (`gpusim::caches::huge`): the host curve the
//! `Cache` rows are read against.
//!
//! Run: `cargo bench -p gpusim --bench caches -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main, measurement::WallTime};
use gpusim::caches::huge::HugeBuf;
use gpusim::caches::{BackingStore, Cache, CacheSpec, Chained, MemoryLevel, Replacement, Tag, Tags, WritePolicy};

#[path = "common/minimal_l1.rs"]
mod minimal_l1;
#[path = "common/minimal_two_level.rs"]
mod minimal_two_level;
#[path = "common/line_copy.rs"]
mod line_copy;
use minimal_l1::MinimalL1;
use minimal_two_level::MinimalTwoLevel;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
/// The address range the accesses cover, all of it holding real data.
const RANGE: u64 = 64 * MIB;
/// Accesses per timed iteration: large enough that loop overhead is nothing, and the streaming
/// pattern sweeps a fresh 2 MiB of the range each iteration.
const ACCESSES: usize = 1 << 18;
/// How many accesses ahead the `_prefetch` cases hint: enough to cover a host memory latency
/// (about 150 ns here) at the rates reached.
const PREFETCH_DISTANCE: usize = 16;

/// splitmix64: a fixed, seeded address sequence, the same on every run.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Device memory with all of `RANGE` written, one writer per 64 KiB (so every page is resident
/// and every fill moves real bytes and tags; the store keeps such a page's tags compactly).
fn populated_store() -> BackingStore {
    let mut store = BackingStore::new(RANGE, 8, 256).unwrap();
    let chunk: Vec<u8> = (0..64 * KIB).map(|i| (i * 7 + 3) as u8).collect();
    for (n, addr) in (0..RANGE).step_by(chunk.len()).enumerate() {
        store.poke(addr, &chunk, n as Tag + 1).unwrap();
    }
    store
}

fn l1_spec(policy: WritePolicy) -> CacheSpec {
    CacheSpec::new(32 * KIB, 64, 8, Replacement::Lru, policy)
}

fn l2_spec() -> CacheSpec {
    CacheSpec::new(MIB, 64, 16, Replacement::Lru, WritePolicy::WriteBackLineDirty)
}

/// One timed iteration's addresses: `ACCESSES` consecutive 8-byte words from 0 (the caller adds
/// a base that advances each iteration), or uniformly random 8-byte-aligned words in the range.
fn addresses(random: bool) -> Vec<u64> {
    let mut s = 0x5EED;
    (0..ACCESSES as u64).map(|i| if random { (splitmix(&mut s) % (RANGE / 8)) * 8 } else { i * 8 }).collect()
}

#[derive(Clone, Copy)]
enum Op {
    Load,
    /// Loads with a prefetch hint `PREFETCH_DISTANCE` accesses ahead.
    LoadPrefetch,
    Store,
}

/// Times `ACCESSES` operations per iteration through `l1` in front of `next`.
fn run<N: MemoryLevel>(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, l1: &mut Cache, next: &mut N, addrs: &[u64], stream: bool, op: Op) {
    let step = if stream { (ACCESSES as u64) * 8 } else { 0 };
    let mut base = 0u64;
    let mut tag: Tag = 1 << 20;
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut sum = 0u64;
            let mut data = [0u8; 8];
            let mut tags = [0 as Tag; 2];
            match op {
                Op::Load => {
                    for &a in addrs {
                        l1.read(next, base + a, &mut data, &mut tags).unwrap();
                        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
                    }
                }
                Op::LoadPrefetch => {
                    for (i, &a) in addrs.iter().enumerate() {
                        if let Some(&ahead) = addrs.get(i + PREFETCH_DISTANCE) {
                            l1.prefetch(next, base + ahead);
                        }
                        l1.read(next, base + a, &mut data, &mut tags).unwrap();
                        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
                    }
                }
                Op::Store => {
                    for &a in addrs {
                        tag = tag.wrapping_add(1);
                        let r = l1.write(next, base + a, &(a ^ sum).to_le_bytes(), Tags::One(tag), None).unwrap();
                        sum = sum.wrapping_add(r.hits as u64);
                    }
                }
            }
            base = (base + step) % RANGE;
            black_box(sum)
        })
    });
}

/// Ten samples of equal iteration counts: an iteration of the random cases takes a sizeable
/// fraction of a second, and criterion's default 100 growing samples would take many minutes.
fn configure(g: &mut BenchmarkGroup<'_, WallTime>) {
    g.throughput(Throughput::Elements(ACCESSES as u64));
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
}

fn caches(c: &mut Criterion) {
    let stream = addresses(false);
    let random = addresses(true);
    let cases: [(&str, &[u64], bool, Op); 4] = [
        ("stream_load8", &stream, true, Op::Load),
        ("random_load8", &random, false, Op::Load),
        ("random_load8_prefetch", &random, false, Op::LoadPrefetch),
        ("random_store8", &random, false, Op::Store),
    ];
    let mut store = populated_store();

    let mut g = c.benchmark_group("single");
    configure(&mut g);
    for &(name, addrs, is_stream, op) in &cases {
        let mut l1 = Cache::new("L1", &l1_spec(WritePolicy::WriteThroughAllocate), 1).unwrap();
        run(&mut g, name, &mut l1, &mut store, addrs, is_stream, op);
    }
    let mut l1 = Cache::new("L1", &l1_spec(WritePolicy::WriteBackByteMask), 1).unwrap();
    run(&mut g, "random_store8_wb", &mut l1, &mut store, &random, false, Op::Store);
    g.finish();
    // Fresh memory for the next group: the random stores above leave every page holding one
    // provenance tag per word (each store has its own tag), which would make the loads below
    // measure a different memory than the `single` loads did.
    drop(store);
    let mut store = populated_store();

    let mut g = c.benchmark_group("two_level");
    configure(&mut g);
    for &(name, addrs, is_stream, op) in &cases {
        let mut l1 = Cache::new("L1", &l1_spec(WritePolicy::WriteThroughAllocate), 1).unwrap();
        let mut l2 = Cache::new("L2", &l2_spec(), 2).unwrap();
        run(&mut g, name, &mut l1, &mut Chained { cache: &mut l2, next: &mut store }, addrs, is_stream, op);
    }
    let mut l1 = Cache::new("L1", &l1_spec(WritePolicy::WriteBackByteMask), 1).unwrap();
    let mut l2 = Cache::new("L2", &l2_spec(), 2).unwrap();
    run(&mut g, "random_store8_wb", &mut l1, &mut Chained { cache: &mut l2, next: &mut store }, &random, false, Op::Store);
    g.finish();
    drop(store);

    // The host alone: the same random addresses read from a plain 64 MiB buffer.
    let mut g = c.benchmark_group("baseline");
    configure(&mut g);
    // The least a cache carrying data must do for the streaming pattern, over the same device
    // memory: how far `single/stream_load8` is from what this host can do at all.
    let mut store = populated_store();
    let mut minimal = MinimalL1::default();
    let mut base = 0u64;
    g.bench_function("minimal_l1_stream_load8", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &a in &stream {
                let (data, tags) = minimal.load8(&mut store, base + a);
                sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
            }
            base = (base + ACCESSES as u64 * 8) % RANGE;
            black_box(sum)
        })
    });
    black_box(&minimal.stats);
    // The same for the two-level random loads.
    let mut minimal = MinimalTwoLevel::default();
    g.bench_function("minimal_two_level_random_load8", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &a in &random {
                let (data, tags) = minimal.load8(&mut store, a);
                sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
            }
            black_box(sum)
        })
    });
    // And with the prefetch hint of the `_prefetch` rows: how far `two_level/random_load8_prefetch`
    // is from what a cache built for this pattern does with the same hint.
    let mut minimal = MinimalTwoLevel::default();
    g.bench_function("minimal_two_level_random_load8_prefetch", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for (i, &a) in random.iter().enumerate() {
                if let Some(&ahead) = random.get(i + PREFETCH_DISTANCE) {
                    minimal.prefetch(&store, ahead);
                }
                let (data, tags) = minimal.load8(&mut store, a);
                sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
            }
            black_box(sum)
        })
    });
    black_box(&minimal.stats);
    drop(store);
    let vec: Vec<u8> = (0..RANGE).map(|i| (i * 7 + 3) as u8).collect();
    // Independent loads: the addresses are known up front, so the core overlaps the misses, as
    // it may overlap the simulator's fills.
    g.bench_function("random_load8_vec", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &a in &random {
                let a = a as usize;
                sum = sum.wrapping_add(u64::from_le_bytes(vec[a..a + 8].try_into().unwrap()));
            }
            black_box(sum)
        })
    });
    // Random 64-byte line copies with no cache, alone and with as many instructions of
    // register arithmetic beside each as the two-level baseline (24 rounds: about 238) and the
    // `Cache` pair (56 rounds: about 526) spend on an access: the host's own rate for that
    // shape of work, which the two-level random rows can be read against.
    for (name, work, ahead) in [("line_copy_vec", 0, 0), ("line_copy_vec_work24", 24, 0), ("line_copy_vec_work56", 56, 0), ("line_copy_vec_work56_prefetch", 56, PREFETCH_DISTANCE)] {
        g.bench_function(name, |b| b.iter(|| black_box(line_copy::line_copies(&vec, &random, work, ahead))));
    }
    drop(vec);
    // The same on host huge pages, as the backing store's frames are.
    let mut huge = HugeBuf::<u8>::zeroed(RANGE as usize);
    for (i, b) in huge.iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    for (name, work, ahead) in [("line_copy_huge", 0, 0), ("line_copy_huge_work56", 56, 0), ("line_copy_huge_work56_prefetch", 56, PREFETCH_DISTANCE)] {
        g.bench_function(name, |b| b.iter(|| black_box(line_copy::line_copies(&huge, &random, work, ahead))));
    }
    drop(huge);
    // Dependent loads (a pointer chase over one random cycle through the 64 MiB): each load
    // waits for the previous one, so this is the host's memory latency itself.
    let words = (RANGE / 8) as usize;
    let mut next: Vec<u64> = (0..words as u64).collect();
    let mut s = 0xC4A5E;
    // Sattolo's algorithm: a single cycle through every word.
    for i in (1..words).rev() {
        let j = (splitmix(&mut s) % i as u64) as usize;
        next.swap(i, j);
    }
    let mut at = 0usize;
    g.bench_function("chase_load8_vec", |b| {
        b.iter(|| {
            for _ in 0..ACCESSES {
                at = next[at] as usize;
            }
            black_box(at)
        })
    });
    let mut next_huge = HugeBuf::<u64>::zeroed(words);
    next_huge.copy_from_slice(&next);
    drop(next);
    g.bench_function("chase_load8_huge", |b| {
        b.iter(|| {
            for _ in 0..ACCESSES {
                at = next_huge[at] as usize;
            }
            black_box(at)
        })
    });
    g.finish();
}

criterion_group!(benches, caches);
criterion_main!(benches);
