//! A fixed amount of cache work for counting instructions: the access patterns of
//! `benches/caches.rs` (8-byte loads and stores through a 32 KiB 8-way 64-byte-line LRU L1, alone
//! or in front of a 1 MiB 16-way write-back L2, over 64 MiB of written device memory), run for a
//! given number of rounds of 262,144 accesses. Wall-clock time on a shared machine swings; the
//! instruction count under callgrind does not, so two builds compare exactly:
//!
//! ```text
//! cargo build --release --example cache_loop
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/cache_loop stream 4
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/cache_loop stream 12
//! ```
//!
//! The difference of the two totals divided by 8 × 262,144 is the instructions per access, set-up
//! excluded. Patterns: `stream` (L1 alone, consecutive loads), `minimal` (the same loads through
//! the benchmark's baseline cache built for that pattern alone, `benches/common/minimal_l1.rs`),
//! `stream2` (consecutive loads through L1 and L2), `random` (L1 alone, uniformly random loads),
//! `random2` (L1 + L2), `random2-prefetch` (the same with a prefetch hint 16 accesses ahead),
//! `minimal2` (the `random2` loads through the benchmark's baseline two-level cache built for
//! that pattern alone, `benches/common/minimal_two_level.rs`), `minimal2-prefetch` (the same with
//! the hint), `store` (L1 alone, write-through, random stores), `store2-wb` (a byte-mask write-back L1 + L2, random stores), and
//! `line-copy[-wWORK][-prefetch|-hot]` (no cache: the `random` addresses' 64-byte lines copied
//! out of a flat array, each with WORK rounds of register arithmetic beside it, optionally with a
//! host prefetch 16 copies ahead, or with the addresses folded into the first 32 KiB so that
//! only the arithmetic's rate is left; `benches/common/line_copy.rs`); a `-huge` suffix puts the
//! flat array on host huge pages, as the backing store's pages are.
//!
//! With `--best-of N` it also times the rounds, N times over, and prints the best and the median
//! rate in accesses per second. On a host shared with other work, where a criterion mean moves
//! with whatever else runs, the best of many short runs is the figure that repeats: it is what
//! the code does when nothing interferes.
//!
//! ```text
//! cargo run --release --example cache_loop -- stream 1 --best-of 40
//! ```

use std::time::Instant;

use gpusim::caches::huge::HugeBuf;
use gpusim::caches::{AccessError, BackingStore, Cache, CacheSpec, Chained, MemoryLevel, Replacement, Tag, Tags, WritePolicy};

#[path = "../benches/common/minimal_l1.rs"]
mod minimal_l1;
#[path = "../benches/common/minimal_two_level.rs"]
mod minimal_two_level;
#[path = "../benches/common/line_copy.rs"]
mod line_copy;
use minimal_l1::MinimalL1;
use minimal_two_level::MinimalTwoLevel;
use line_copy::line_copies;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const RANGE: u64 = 64 * MIB;
const ACCESSES: usize = 1 << 18;

/// splitmix64, as in the benchmark.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: cache_loop stream|minimal|stream2|random|random2|random2-prefetch|minimal2[-prefetch]|store|store2-wb|line-copy[-wWORK][-prefetch|-hot][-huge] ROUNDS [--best-of N]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pattern = args.first().ok_or(usage)?.clone();
    let rounds: u64 = args.get(1).ok_or(usage)?.parse().map_err(|e| format!("ROUNDS: {e}"))?;
    let repeats: u32 = match args.get(2).map(String::as_str) {
        None => 1,
        Some("--best-of") => match args.get(3).ok_or(usage)?.parse() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("--best-of: `{}` is not a positive whole number", args[3]).into()),
        },
        Some(other) => return Err(format!("unexpected argument `{other}`; {usage}").into()),
    };
    if args.len() > 4 {
        return Err(usage.into());
    }
    let line_copy = parse_line_copy(&pattern).map_err(|e| format!("{e}; {usage}"))?;
    let mut vram = BackingStore::new(RANGE, 8, 256)?;
    let chunk: Vec<u8> = (0..64 * KIB).map(|i| (i * 7 + 3) as u8).collect();
    for (n, addr) in (0..RANGE).step_by(chunk.len()).enumerate() {
        vram.poke(addr, &chunk, n as Tag + 1)?;
    }
    let l1_policy = if pattern == "store2-wb" { WritePolicy::WriteBackByteMask } else { WritePolicy::WriteThroughAllocate };
    let mut l1 = Cache::new("L1", &CacheSpec::new(32 * KIB, 64, 8, Replacement::Lru, l1_policy), 1)?;
    let mut l2 = Cache::new("L2", &CacheSpec::new(MIB, 64, 16, Replacement::Lru, WritePolicy::WriteBackLineDirty), 2)?;
    let mut minimal = MinimalL1::default();
    let mut minimal2 = MinimalTwoLevel::default();
    let mut s = 0x5EED;
    let random: Vec<u64> = (0..ACCESSES).map(|_| (splitmix(&mut s) % (RANGE / 8)) * 8).collect();
    // The line-copy patterns read the same bytes from one flat array instead of the store.
    let flat = match line_copy {
        Some(c) => {
            let mut flat = if c.huge { Flat::Huge(HugeBuf::zeroed(RANGE as usize)) } else { Flat::Plain(vec![0; RANGE as usize]) };
            for (i, b) in flat.iter_mut().enumerate() {
                *b = (i * 7 + 3) as u8;
            }
            flat
        }
        None => Flat::Plain(Vec::new()),
    };
    let hot: Vec<u64> = if line_copy.is_some_and(|c| c.hot) { random.iter().map(|a| a % (32 * KIB)).collect() } else { Vec::new() };
    let mut sum = 0u64;
    // The streaming patterns continue through the range from run to run, as the benchmark's do.
    let mut round = 0u64;
    let mut rates = Vec::new();
    for _ in 0..repeats {
        let start = Instant::now();
        for _ in 0..rounds {
            let base = round * ACCESSES as u64 * 8 % RANGE;
            let checksum = if let Some(c) = line_copy {
                line_copies(&flat, if c.hot { &hot } else { &random }, c.work, c.ahead)
            } else {
                match pattern.as_str() {
                    "stream" => stream(&mut l1, &mut vram, base)?,
                    "stream2" => stream(&mut l1, &mut Chained { cache: &mut l2, next: &mut vram }, base)?,
                    "minimal" => minimal_stream(&mut minimal, &mut vram, base),
                    "random" => random_loads(&mut l1, &mut vram, &random)?,
                    "random2" => random_loads(&mut l1, &mut Chained { cache: &mut l2, next: &mut vram }, &random)?,
                    "random2-prefetch" => random_loads_prefetched(&mut l1, &mut l2, &mut vram, &random)?,
                    "minimal2" => minimal_random(&mut minimal2, &mut vram, &random),
                    "minimal2-prefetch" => minimal_random_prefetched(&mut minimal2, &mut vram, &random),
                    "store" => random_stores(&mut l1, &mut vram, &random)?,
                    "store2-wb" => random_stores(&mut l1, &mut Chained { cache: &mut l2, next: &mut vram }, &random)?,
                    other => return Err(format!("unknown pattern `{other}`; {usage}").into()),
                }
            };
            sum = sum.wrapping_add(checksum);
            round += 1;
        }
        rates.push((rounds * ACCESSES as u64) as f64 / start.elapsed().as_secs_f64() / 1e6);
    }
    println!("{pattern}: {rounds} rounds of {ACCESSES} accesses, checksum {sum:#x}");
    if repeats > 1 {
        rates.sort_by(f64::total_cmp);
        let best = rates[rates.len() - 1];
        let median = rates[rates.len() / 2];
        println!("{pattern}: best {best:.1} M accesses/s, median {median:.1} M accesses/s over {repeats} runs");
    }
    Ok(())
}

/// How a `line-copy[-wWORK][-prefetch|-hot]` pattern runs.
#[derive(Clone, Copy)]
struct LineCopy {
    /// Rounds of register arithmetic beside each copy.
    work: u32,
    /// How many copies ahead the host prefetch is (16, as in `random2-prefetch`), or 0.
    ahead: usize,
    /// Whether the addresses are folded into the first 32 KiB, so that every line is in the
    /// host's own L1: the arithmetic's rate with no memory latency.
    hot: bool,
    /// Whether the flat array is on host huge pages.
    huge: bool,
}

/// The flat array of the line-copy patterns, on ordinary or on huge host pages.
enum Flat {
    Plain(Vec<u8>),
    Huge(HugeBuf<u8>),
}

impl std::ops::Deref for Flat {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Flat::Plain(v) => v,
            Flat::Huge(h) => h,
        }
    }
}

impl std::ops::DerefMut for Flat {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Flat::Plain(v) => v,
            Flat::Huge(h) => h,
        }
    }
}

/// The [`LineCopy`] a pattern names; `None` for any other pattern.
fn parse_line_copy(pattern: &str) -> Result<Option<LineCopy>, String> {
    let Some(rest) = pattern.strip_prefix("line-copy") else { return Ok(None) };
    let (rest, huge) = match rest.strip_suffix("-huge") {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    let (rest, ahead, hot) = if let Some(rest) = rest.strip_suffix("-prefetch") {
        (rest, 16, false)
    } else if let Some(rest) = rest.strip_suffix("-hot") {
        (rest, 0, true)
    } else {
        (rest, 0, false)
    };
    let work = match rest {
        "" => 0,
        _ => match rest.strip_prefix("-w").map(str::parse) {
            Some(Ok(w)) if w <= 1 << 16 => w,
            _ => return Err(format!("`{pattern}`: expected line-copy, then optionally -w and a work count up to 65536, then optionally -prefetch or -hot, then optionally -huge")),
        },
    };
    Ok(Some(LineCopy { work, ahead, hot, huge }))
}

// One round of each pattern, each in a function of its own, so that a pattern's loop is compiled
// the same whatever the others are (its instruction count then compares builds of the cache, not
// of this file). Each returns a checksum of what its loads returned.

/// Consecutive 8-byte loads from `base` on.
#[inline(never)]
fn stream<N: MemoryLevel>(l1: &mut Cache, next: &mut N, base: u64) -> Result<u64, AccessError> {
    let (mut data, mut tags, mut sum) = ([0u8; 8], [0 as Tag; 2], 0u64);
    for i in 0..ACCESSES as u64 {
        l1.read(next, base + i * 8, &mut data, &mut tags)?;
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    Ok(sum)
}

/// [`stream`] through [`MinimalL1`].
#[inline(never)]
fn minimal_stream(minimal: &mut MinimalL1, vram: &mut BackingStore, base: u64) -> u64 {
    let mut sum = 0u64;
    for i in 0..ACCESSES as u64 {
        let (data, tags) = minimal.load8(vram, base + i * 8);
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    sum
}

/// 8-byte loads at the addresses `random`.
#[inline(never)]
fn random_loads<N: MemoryLevel>(l1: &mut Cache, next: &mut N, random: &[u64]) -> Result<u64, AccessError> {
    let (mut data, mut tags, mut sum) = ([0u8; 8], [0 as Tag; 2], 0u64);
    for &a in random {
        l1.read(next, a, &mut data, &mut tags)?;
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    Ok(sum)
}

/// [`random_loads`] through L1 and L2, with a prefetch hint 16 accesses ahead.
#[inline(never)]
fn random_loads_prefetched(l1: &mut Cache, l2: &mut Cache, vram: &mut BackingStore, random: &[u64]) -> Result<u64, AccessError> {
    let (mut data, mut tags, mut sum) = ([0u8; 8], [0 as Tag; 2], 0u64);
    for (i, &a) in random.iter().enumerate() {
        let mut next = Chained { cache: &mut *l2, next: &mut *vram };
        if let Some(&ahead) = random.get(i + 16) {
            l1.prefetch(&next, ahead);
        }
        l1.read(&mut next, a, &mut data, &mut tags)?;
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    Ok(sum)
}

/// [`random_loads`] through [`MinimalTwoLevel`].
#[inline(never)]
fn minimal_random(minimal: &mut MinimalTwoLevel, vram: &mut BackingStore, random: &[u64]) -> u64 {
    let mut sum = 0u64;
    for &a in random {
        let (data, tags) = minimal.load8(vram, a);
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    sum
}

/// [`minimal_random`] with a prefetch hint 16 accesses ahead, as in `random2-prefetch`.
#[inline(never)]
fn minimal_random_prefetched(minimal: &mut MinimalTwoLevel, vram: &mut BackingStore, random: &[u64]) -> u64 {
    let mut sum = 0u64;
    for (i, &a) in random.iter().enumerate() {
        if let Some(&ahead) = random.get(i + 16) {
            minimal.prefetch(vram, ahead);
        }
        let (data, tags) = minimal.load8(vram, a);
        sum = sum.wrapping_add(u64::from_le_bytes(data) ^ tags[0] as u64);
    }
    sum
}

/// 8-byte stores at the addresses `random`, each its own address as data and tag.
#[inline(never)]
fn random_stores<N: MemoryLevel>(l1: &mut Cache, next: &mut N, random: &[u64]) -> Result<u64, AccessError> {
    for &a in random {
        l1.write(next, a, &a.to_le_bytes(), Tags::One(a as Tag), None)?;
    }
    Ok(0)
}
