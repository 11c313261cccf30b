//! Acceptance tests in the style of a random-traffic tester: one agent fires random reads and
//! writes (any size up to 130 bytes, unaligned, spanning lines, sometimes under a byte mask),
//! interleaved with flushes and invalidations at both levels, through an L1 over an L2 over
//! device memory, and every read's bytes and provenance are checked against a flat model.
//!
//! With one agent and the safe `dirty_on_invalidate = flush`, no write is ever lost and no copy
//! can go stale: every write passes through the L1, so the L1 holds the newest bytes of any
//! line it has, and whatever sits below it is at least as new as what lies below that. So every
//! read must return exactly the last bytes written, whatever the policies; after a full flush of
//! the L1 then the L2, device memory must equal the model.
//!
//! The seed is fixed per test and printed in every failure (`seed=… op=…`); `GPUSIM_SEED`
//! overrides it to replay or to explore.

use bitvec::prelude::*;
use proptest::prelude::*;
use sim_caches::*;
use sim_caches::cache::OWN_HINT_MAX_BYTES;

const KIB: u64 = 1024;
/// Device memory of the random-traffic runs: large against the caches, so sets conflict, small
/// enough that addresses repeat.
const RANGE: u64 = 1 << 20;
/// Random operations per run (maintenance operations not counted).
const OPS: usize = 100_000;
/// The longest access: more than two 64-byte lines, so an access can span three.
const MAX_LEN: usize = 130;

/// splitmix64: small, seeded, and the same sequence on every host.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `1 / n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// The seed of a run: `GPUSIM_SEED` when set, else one fixed per test so each test draws its
/// own traffic.
fn seed_for(test: &str) -> u64 {
    if let Ok(s) = std::env::var("GPUSIM_SEED") {
        return s.trim().parse().unwrap_or_else(|_| panic!("GPUSIM_SEED={s:?} is not a u64"));
    }
    test.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01B3))
}

/// Flat memory: the bytes of every address and the tag of every 4-byte word, as the last write
/// touching it left them.
struct Model {
    bytes: Vec<u8>,
    tags: Vec<Tag>,
}

impl Model {
    fn new(size: u64) -> Model {
        Model { bytes: vec![0; size as usize], tags: vec![0; (size / TAG_GRANULE) as usize] }
    }

    /// A write's effect: the bytes under the mask change, and a word's tag becomes the write's
    /// when any of its bytes is written.
    fn write(&mut self, addr: u64, data: &[u8], tag: Tag, mask: Option<&BitSlice<u64, Lsb0>>) {
        for (i, &b) in data.iter().enumerate() {
            if mask.is_none_or(|m| m[i]) {
                let a = addr as usize + i;
                self.bytes[a] = b;
                self.tags[a / TAG_GRANULE as usize] = tag;
            }
        }
    }

    fn bytes(&self, addr: u64, len: usize) -> &[u8] {
        &self.bytes[addr as usize..addr as usize + len]
    }

    fn tags(&self, addr: u64, len: usize) -> &[Tag] {
        let w = (addr / TAG_GRANULE) as usize;
        &self.tags[w..w + word_span(addr, len)]
    }
}

/// Lines of `line_bytes` that `[addr, addr + len)` touches.
fn line_span(addr: u64, len: usize, line_bytes: u64) -> u64 {
    if len == 0 { 0 } else { (addr + len as u64 - 1) / line_bytes - addr / line_bytes + 1 }
}

/// Where traffic goes: mostly into a small hot window that moves now and then (so lines are
/// reused, hit, and get dirty), sometimes anywhere (so sets conflict and lines are evicted),
/// sometimes at the very end of memory.
struct Traffic {
    rng: Rng,
    hot: u64,
}

impl Traffic {
    const HOT_BYTES: u64 = 8 * KIB;

    fn new(seed: u64) -> Traffic {
        Traffic { rng: Rng(seed), hot: 0 }
    }

    /// Half short accesses, a quarter of the sizes a shader loads (which `Cache::read` serves on
    /// paths compiled for their size), a quarter anything.
    fn len(&mut self) -> usize {
        match self.rng.below(4) {
            0 | 1 => 1 + self.rng.below(8) as usize,
            2 => [4, 8, 16, 64][self.rng.below(4) as usize],
            _ => 1 + self.rng.below(MAX_LEN as u64) as usize,
        }
    }

    fn addr(&mut self, len: usize) -> u64 {
        if self.rng.one_in(4000) {
            self.hot = self.rng.below(RANGE - Self::HOT_BYTES);
        }
        let max = RANGE - len as u64;
        match self.rng.below(10) {
            0..=6 => (self.hot + self.rng.below(Self::HOT_BYTES)).min(max),
            7 | 8 => self.rng.below(max + 1),
            _ => max - self.rng.below(256).min(max),
        }
    }

    /// A maintenance range: small, large (beyond what the cache holds, so the cache walks all
    /// its lines), or the whole cache.
    fn range(&mut self) -> Option<(u64, u64)> {
        match self.rng.below(4) {
            0 => None,
            1 => Some((self.rng.below(RANGE), 1 + self.rng.below(256 * KIB))),
            _ => {
                let len = 1 + self.rng.below(2 * KIB) as usize;
                Some((self.addr(len), len as u64))
            }
        }
    }
}

/// The two-level hierarchy under test.
struct Hierarchy {
    l1: Cache,
    l2: Cache,
    vram: BackingStore,
}

impl Hierarchy {
    fn new(l1: &CacheSpec, l2: &CacheSpec, seed: u64) -> Hierarchy {
        Hierarchy {
            l1: Cache::new("L1", l1, seed).unwrap(),
            l2: Cache::new("L2", l2, seed.wrapping_add(1)).unwrap(),
            vram: BackingStore::new(RANGE, 4, 256).unwrap(),
        }
    }

    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        self.l1.read(&mut Chained { cache: &mut self.l2, next: &mut self.vram }, addr, data, tags)
    }

    fn write(&mut self, addr: u64, data: &[u8], tag: Tag, mask: Option<&BitSlice<u64, Lsb0>>) -> Result<AccessReport, AccessError> {
        self.l1.write(&mut Chained { cache: &mut self.l2, next: &mut self.vram }, addr, data, Tags::One(tag), mask)
    }

    /// A flush, invalidate or both, of a range or everything, at the L1 or at the L2.
    fn maintain(&mut self, at_l2: bool, op: Maintenance, range: Option<(u64, u64)>) -> Result<AccessReport, AccessError> {
        if at_l2 {
            self.l2.maintain(&mut self.vram, op, range)
        } else {
            self.l1.maintain(&mut Chained { cache: &mut self.l2, next: &mut self.vram }, op, range)
        }
    }

    /// Flushes the L1 then the L2 and compares device memory, bytes and tags, with the model.
    fn flush_and_compare(&mut self, model: &Model, ctx: &str) {
        self.l1.flush(&mut Chained { cache: &mut self.l2, next: &mut self.vram }, None).unwrap();
        self.l2.flush(&mut self.vram, None).unwrap();
        assert_eq!(self.l1.dirty_lines(), 0, "{ctx}: L1 dirty after a full flush");
        assert_eq!(self.l2.dirty_lines(), 0, "{ctx}: L2 dirty after a full flush");
        let mut bytes = vec![0u8; RANGE as usize];
        let mut tags = vec![0; (RANGE / TAG_GRANULE) as usize];
        self.vram.peek(0, &mut bytes, &mut tags).unwrap();
        if let Some(i) = (0..bytes.len()).find(|&i| bytes[i] != model.bytes[i]) {
            panic!("{ctx}: after the final flush, device memory byte {i:#x} is {:#04x}, the model says {:#04x}", bytes[i], model.bytes[i]);
        }
        if let Some(w) = (0..tags.len()).find(|&w| tags[w] != model.tags[w]) {
            panic!("{ctx}: after the final flush, the word at {:#x} has tag {}, the model says {}", w * 4, tags[w], model.tags[w]);
        }
    }
}

const MAINTENANCE: [Maintenance; 3] = [Maintenance::Flush, Maintenance::Invalidate, Maintenance::FlushInvalidate];

/// Fires `OPS` random reads and writes (and occasional maintenance) through `l1` over `l2`,
/// checking every read against the model, then the flushed memory.
fn random_traffic(test: &str, l1: CacheSpec, l2: CacheSpec) {
    let seed = seed_for(test);
    let ctx = format!("{test}: seed={seed} (L1 {:?}/{:?}, L2 {:?})", l1.write_policy, l1.replacement, l2.write_policy);
    let l1_line = l1.line_bytes as u64;
    let mut h = Hierarchy::new(&l1, &l2, seed);
    let mut model = Model::new(RANGE);
    let mut t = Traffic::new(seed);
    let mut data = [0u8; MAX_LEN];
    let mut tags = [0 as Tag; MAX_LEN / 4 + 2];
    let mut next_tag: Tag = 1;
    let (mut reads, mut writes, mut read_lines, mut write_lines) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..OPS {
        if t.rng.one_in(400) {
            let at_l2 = t.rng.one_in(2);
            let op = MAINTENANCE[t.rng.below(3) as usize];
            let range = t.range();
            h.maintain(at_l2, op, range).unwrap_or_else(|e| panic!("{ctx} op={i}: {op:?} {range:?}: {e}"));
        }
        let len = t.len();
        let mut addr = t.addr(len);
        if len.is_power_of_two() && t.rng.one_in(2) {
            // Naturally aligned, as most loads and stores are: the fast paths.
            addr &= !(len as u64 - 1);
        }
        if t.rng.one_in(2) {
            let (d, w) = (&mut data[..len], &mut tags[..word_span(addr, len)]);
            let r = h.read(addr, d, w).unwrap_or_else(|e| panic!("{ctx} op={i}: read {len} at {addr:#x}: {e}"));
            assert_eq!(d, model.bytes(addr, len), "{ctx} op={i}: bytes of a read of {len} at {addr:#x}");
            assert_eq!(w, model.tags(addr, len), "{ctx} op={i}: tags of a read of {len} at {addr:#x}");
            let lines = line_span(addr, len, l1_line);
            assert_eq!((r.hits + r.misses) as u64, lines, "{ctx} op={i}: L1 lines looked up by a read of {len} at {addr:#x}");
            assert_eq!(r.depth == 0, r.misses == 0, "{ctx} op={i}: depth {} with {} misses", r.depth, r.misses);
            reads += 1;
            read_lines += lines;
        } else {
            for b in &mut data[..len] {
                *b = t.rng.next() as u8;
            }
            let mask: Option<BitVec<u64, Lsb0>> =
                t.rng.one_in(8).then(|| (0..len).map(|_| t.rng.one_in(2)).collect());
            let tag = next_tag;
            next_tag += 1;
            h.write(addr, &data[..len], tag, mask.as_deref())
                .unwrap_or_else(|e| panic!("{ctx} op={i}: write {len} at {addr:#x}: {e}"));
            model.write(addr, &data[..len], tag, mask.as_deref());
            writes += 1;
            write_lines += line_span(addr, len, l1_line);
        }
    }
    let s = h.l1.stats();
    assert_eq!((s.reads, s.writes), (reads, writes), "{ctx}: L1 operation counts");
    assert_eq!(s.read_hits + s.read_misses, read_lines, "{ctx}: L1 read hits + misses = lines read");
    assert_eq!(s.write_hits + s.write_misses, write_lines, "{ctx}: L1 write hits + misses = lines written");
    assert!(s.read_hits > OPS as u64 / 10 && s.read_misses > 1000 && s.evictions > 1000, "{ctx}: traffic too tame to test anything: {s:?}");
    assert!(h.l2.stats().evictions > 1000, "{ctx}: the L2 never evicted: {:?}", h.l2.stats());
    h.flush_and_compare(&model, &ctx);
}

fn l1_spec(policy: WritePolicy, replacement: Replacement, line_bytes: u32, ways: u32) -> CacheSpec {
    CacheSpec::new(4 * KIB, line_bytes, ways, replacement, policy)
}

/// Two runs per write policy and replacement: 64-byte L1 lines over a 128-byte-line L2 with one
/// dirty bit per line, and 128-byte L1 lines over a 64-byte-line L2 with per-byte dirty masks.
fn both_l2s(test: &str, policy: WritePolicy, replacement: Replacement) {
    random_traffic(
        &format!("{test}/l2-line-dirty"),
        l1_spec(policy, replacement, 64, 4),
        CacheSpec::new(32 * KIB, 128, 8, replacement, WritePolicy::WriteBackLineDirty),
    );
    random_traffic(
        &format!("{test}/l2-byte-mask"),
        l1_spec(policy, replacement, 128, 2),
        CacheSpec::new(32 * KIB, 64, 16, replacement, WritePolicy::WriteBackByteMask),
    );
}

macro_rules! traffic_tests {
    ($($name:ident: $policy:ident, $replacement:ident;)*) => {$(
        #[test]
        fn $name() {
            both_l2s(stringify!($name), WritePolicy::$policy, Replacement::$replacement);
        }
    )*};
}

traffic_tests! {
    write_through_allocate_lru: WriteThroughAllocate, Lru;
    write_through_allocate_tree_plru: WriteThroughAllocate, TreePlru;
    write_through_allocate_random: WriteThroughAllocate, Random;
    write_through_no_allocate_lru: WriteThroughNoAllocate, Lru;
    write_through_no_allocate_tree_plru: WriteThroughNoAllocate, TreePlru;
    write_through_no_allocate_random: WriteThroughNoAllocate, Random;
    write_back_byte_mask_lru: WriteBackByteMask, Lru;
    write_back_byte_mask_tree_plru: WriteBackByteMask, TreePlru;
    write_back_byte_mask_random: WriteBackByteMask, Random;
    write_back_line_dirty_lru: WriteBackLineDirty, Lru;
    write_back_line_dirty_tree_plru: WriteBackLineDirty, TreePlru;
    write_back_line_dirty_random: WriteBackLineDirty, Random;
}

/// Prefetch hints change nothing simulated, and the read and write paths compiled for each common
/// geometry (32-byte lines; 64-byte lines of 4, 8 or 16 ways; 128-byte lines of 8 or 16 ways)
/// keep the model's bytes as the general path does for any other (16- and 256-byte lines, 128
/// bytes of 4 ways): two hierarchies take the same random traffic, one of them told of each
/// access (and of a random address) before it comes; every read returns the model's bytes and
/// tags in both, with equal reports, and the statistics and the flushed memory end equal. (The
/// hints reach the L2 set's state, the slot a miss there would replace and the backing store's
/// line; the L1 is small enough to hint only its next level.)
#[test]
fn prefetch_hints_change_nothing_at_any_line_size() {
    for (line, l1_ways, l2_ways) in [(16u32, 4, 8), (32, 4, 8), (64, 4, 8), (64, 8, 16), (128, 4, 8), (128, 8, 16), (256, 4, 8)] {
        let test = format!("prefetch_hints_change_nothing/{line}x{l1_ways}-{l2_ways}");
        let seed = seed_for(&test);
        let ctx = format!("{test}: seed={seed}");
        let l1 = CacheSpec::new(4 * KIB, line, l1_ways, Replacement::Lru, WritePolicy::WriteThroughAllocate);
        // An L2 above `OWN_HINT_MAX_BYTES`, so that the hint reaches its state (the L1's is
        // never hinted), and still an eighth of the range.
        let l2 = CacheSpec::new(128 * KIB, line, l2_ways, Replacement::Lru, WritePolicy::WriteBackLineDirty);
        assert!(l2.size_bytes > OWN_HINT_MAX_BYTES && l1.size_bytes <= OWN_HINT_MAX_BYTES);
        let (mut plain, mut hinted) = (Hierarchy::new(&l1, &l2, seed), Hierarchy::new(&l1, &l2, seed));
        let mut model = Model::new(RANGE);
        let mut t = Traffic::new(seed);
        let (mut d1, mut d2) = ([0u8; MAX_LEN], [0u8; MAX_LEN]);
        let (mut w1, mut w2) = ([0 as Tag; MAX_LEN / 4 + 2], [0 as Tag; MAX_LEN / 4 + 2]);
        for i in 0..OPS / 5 {
            let len = t.len();
            let addr = t.addr(len);
            let elsewhere = t.rng.below(RANGE);
            hinted.l1.prefetch(&Chained { cache: &mut hinted.l2, next: &mut hinted.vram }, addr);
            hinted.l2.prefetch(&hinted.vram, elsewhere);
            // A hint past the end of memory is as harmless.
            hinted.l1.prefetch(&Chained { cache: &mut hinted.l2, next: &mut hinted.vram }, u64::MAX - elsewhere);
            if t.rng.one_in(2) {
                let span = word_span(addr, len);
                let r1 = plain.read(addr, &mut d1[..len], &mut w1[..span]).unwrap();
                let r2 = hinted.read(addr, &mut d2[..len], &mut w2[..span]).unwrap();
                assert_eq!(r1, r2, "{ctx} op={i}: reports of a read of {len} at {addr:#x}");
                assert_eq!(&d1[..len], model.bytes(addr, len), "{ctx} op={i}: bytes of a read of {len} at {addr:#x}");
                assert_eq!(&d2[..len], &d1[..len], "{ctx} op={i}: bytes of a read of {len} at {addr:#x}");
                assert_eq!(&w1[..span], model.tags(addr, len), "{ctx} op={i}: tags of a read of {len} at {addr:#x}");
                assert_eq!(&w2[..span], &w1[..span], "{ctx} op={i}: tags of a read of {len} at {addr:#x}");
            } else {
                for (b, x) in d1[..len].iter_mut().zip(t.rng.next().to_le_bytes().iter().cycle()) {
                    *b = *x;
                }
                let tag = i as Tag + 1;
                let r1 = plain.write(addr, &d1[..len], tag, None).unwrap();
                let r2 = hinted.write(addr, &d1[..len], tag, None).unwrap();
                assert_eq!(r1, r2, "{ctx} op={i}: reports of a write of {len} at {addr:#x}");
                model.write(addr, &d1[..len], tag, None);
            }
        }
        assert_eq!(plain.l1.stats(), hinted.l1.stats(), "{ctx}: L1 statistics");
        assert_eq!(plain.l2.stats(), hinted.l2.stats(), "{ctx}: L2 statistics");
        assert!(plain.l1.stats().read_hits > 1000 && plain.l2.stats().evictions > 100, "{ctx}: traffic too tame: {:?}", plain.l1.stats());
        plain.flush_and_compare(&model, &ctx);
        hinted.flush_and_compare(&model, &ctx);
    }
}

/// A read-only L1 (texture, uniform cache) over an L2 over device memory loaded up front:
/// random reads and maintenance return the loaded bytes and tags; every write is refused and
/// changes nothing; nothing is ever written back.
fn read_only_traffic(test: &str, replacement: Replacement) {
    let seed = seed_for(test);
    let ctx = format!("{test}: seed={seed}");
    let l1 = l1_spec(WritePolicy::ReadOnly, replacement, 64, 4);
    let l2 = CacheSpec::new(32 * KIB, 128, 8, replacement, WritePolicy::WriteBackLineDirty);
    let mut h = Hierarchy::new(&l1, &l2, seed);
    let mut model = Model::new(RANGE);
    let mut t = Traffic::new(seed);
    // Load memory in uneven pieces, each its own write, so tags vary along the range.
    let mut addr = 0u64;
    let mut tag: Tag = 1;
    while addr < RANGE {
        let len = (1 + t.rng.below(300)).min(RANGE - addr) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| t.rng.next() as u8).collect();
        h.vram.poke(addr, &bytes, tag).unwrap();
        model.write(addr, &bytes, tag, None);
        addr += len as u64;
        tag += 1;
    }
    let loaded = h.vram.total_stats();
    let mut data = [0u8; MAX_LEN];
    let mut tags = [0 as Tag; MAX_LEN / 4 + 2];
    for i in 0..OPS {
        if t.rng.one_in(400) {
            let at_l2 = t.rng.one_in(2);
            let op = MAINTENANCE[t.rng.below(3) as usize];
            let range = t.range();
            let r = h.maintain(at_l2, op, range).unwrap_or_else(|e| panic!("{ctx} op={i}: {op:?} {range:?}: {e}"));
            assert_eq!(r.writeback_lines, 0, "{ctx} op={i}: a clean hierarchy wrote back");
        }
        let len = t.len();
        let addr = t.addr(len);
        if t.rng.one_in(50) {
            let err = h.write(addr, &data[..len], 0xDEAD, None).unwrap_err();
            assert!(matches!(err, AccessError::WriteToReadOnly { .. }), "{ctx} op={i}: {err}");
            continue;
        }
        let (d, w) = (&mut data[..len], &mut tags[..word_span(addr, len)]);
        h.read(addr, d, w).unwrap_or_else(|e| panic!("{ctx} op={i}: read {len} at {addr:#x}: {e}"));
        assert_eq!(d, model.bytes(addr, len), "{ctx} op={i}: bytes of a read of {len} at {addr:#x}");
        assert_eq!(w, model.tags(addr, len), "{ctx} op={i}: tags of a read of {len} at {addr:#x}");
    }
    assert!(h.l1.stats().evictions > 1000, "{ctx}: {:?}", h.l1.stats());
    assert_eq!(h.vram.total_stats().write_transactions, loaded.write_transactions, "{ctx}: reads wrote to memory");
    h.flush_and_compare(&model, &ctx);
}

#[test]
fn read_only_lru() {
    read_only_traffic("read_only_lru", Replacement::Lru);
}

#[test]
fn read_only_tree_plru() {
    read_only_traffic("read_only_tree_plru", Replacement::TreePlru);
}

#[test]
fn read_only_random() {
    read_only_traffic("read_only_random", Replacement::Random);
}

// ----- one cache against a map, by proptest ---------------------------------------------------

/// Memory behind the single cache of the property test: 16 lines of the cache's 32 bytes, so a
/// 128-byte, 2-way cache is under constant pressure.
const SMALL: u64 = 512;

#[derive(Clone, Debug)]
enum Op {
    Read { addr: u64, len: usize },
    Write { addr: u64, data: Vec<u8>, mask: Option<Vec<bool>> },
    Maintain { op: Maintenance, range: Option<(u64, u64)> },
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let access = (0..SMALL, 1..=70usize).prop_map(|(addr, len)| (addr.min(SMALL - len as u64), len));
    prop_oneof![
        4 => access.clone().prop_map(|(addr, len)| Op::Read { addr, len }),
        4 => access.prop_flat_map(|(addr, len)| {
            (prop::collection::vec(any::<u8>(), len), prop::option::weighted(0.25, prop::collection::vec(any::<bool>(), len)))
                .prop_map(move |(data, mask)| Op::Write { addr, data, mask })
        }),
        1 => (0..3usize, prop::option::of((0..SMALL, 1..300u64)))
            .prop_map(|(op, range)| Op::Maintain { op: MAINTENANCE[op], range }),
    ]
}

fn policy_strategy() -> impl Strategy<Value = WritePolicy> {
    prop_oneof![
        Just(WritePolicy::WriteThroughAllocate),
        Just(WritePolicy::WriteThroughNoAllocate),
        Just(WritePolicy::WriteBackByteMask),
        Just(WritePolicy::WriteBackLineDirty),
        Just(WritePolicy::ReadOnly),
    ]
}

fn replacement_strategy() -> impl Strategy<Value = Replacement> {
    prop_oneof![Just(Replacement::Lru), Just(Replacement::TreePlru), Just(Replacement::Random)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if std::env::var("CI").is_ok() { 64 } else { 256 }))]

    /// One cache directly over device memory agrees with a map on every read, and after a flush
    /// device memory is the map. A read-only cache refuses every write and changes nothing.
    #[test]
    fn one_cache_agrees_with_a_map(
        policy in policy_strategy(),
        replacement in replacement_strategy(),
        seed in any::<u64>(),
        ops in prop::collection::vec(op_strategy(), 1..200),
    ) {
        let spec = CacheSpec::new(128, 32, 2, replacement, policy);
        let mut cache = Cache::new("C", &spec, seed).unwrap();
        let mut vram = BackingStore::new(SMALL, 2, 32).unwrap();
        let mut model = Model::new(SMALL);
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Read { addr, len } => {
                    let mut d = vec![0u8; *len];
                    let mut t = vec![0; word_span(*addr, *len)];
                    let r = cache.read(&mut vram, *addr, &mut d, &mut t).unwrap();
                    prop_assert_eq!(&d[..], model.bytes(*addr, *len), "op={} bytes", i);
                    prop_assert_eq!(&t[..], model.tags(*addr, *len), "op={} tags", i);
                    prop_assert_eq!((r.hits + r.misses) as u64, line_span(*addr, *len, 32));
                }
                Op::Write { addr, data, mask } => {
                    let mask: Option<BitVec<u64, Lsb0>> = mask.as_ref().map(|m| m.iter().collect());
                    let tag = i as Tag + 1;
                    let r = cache.write(&mut vram, *addr, data, Tags::One(tag), mask.as_deref());
                    if policy == WritePolicy::ReadOnly {
                        let refused = matches!(r, Err(AccessError::WriteToReadOnly { .. }));
                        prop_assert!(refused, "op={}: a read-only cache took a write", i);
                    } else {
                        r.unwrap();
                        model.write(*addr, data, tag, mask.as_deref());
                    }
                }
                Op::Maintain { op, range } => {
                    cache.maintain(&mut vram, *op, *range).unwrap();
                }
            }
        }
        cache.flush(&mut vram, None).unwrap();
        prop_assert_eq!(cache.dirty_lines(), 0);
        let mut bytes = vec![0u8; SMALL as usize];
        let mut tags = vec![0; (SMALL / TAG_GRANULE) as usize];
        vram.peek(0, &mut bytes, &mut tags).unwrap();
        prop_assert_eq!(bytes, model.bytes);
        prop_assert_eq!(tags, model.tags);
    }
}
