//! Random operation sequences: correctly synchronized host and device accesses always agree
//! with a flat map of known values, for every memory kind; and the same sequence gives the same
//! bytes, tags and reports every time.

mod common;

use common::*;
use sim_caches::{BackingStore, CacheSpec, Replacement, Tag, WritePolicy};
use sim_host::{HostMemoryKind, HostReport, HostSide, HostSpec, HostTiming, MappedRange};

/// xorshift64: small, seeded, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A small host cache (4 lines) and 3 write-combining buffers, so evictions happen constantly.
fn small_spec() -> HostSpec {
    HostSpec {
        write_combining_buffers: 3,
        cache: Some(CacheSpec::new(256, 64, 2, Replacement::Random, WritePolicy::WriteBackLineDirty)),
        ..HostSpec::default()
    }
}

/// Runs `ops` random phases on `kind` memory, following Vulkan's rules: host writes are flushed
/// (and a submission happens) before the device reads; the device's writes are made visible by
/// an invalidate before the host reads; host and device never write the same atom in the same
/// phase. Checks every host read and every device read against the model, and returns the final
/// device bytes, tags and the host's totals.
fn synchronized_run(kind: HostMemoryKind, seed: u64, ops: usize) -> (Vec<u8>, Vec<Tag>, HostReport) {
    let mut rng = Rng(seed | 1);
    let mut dev: BackingStore = device();
    let mut h = HostSide::new(&small_spec(), HostTiming::default(), seed).unwrap();
    h.map(MEM, BASE, SIZE, kind).unwrap();
    let mut model = vec![0u8; SIZE as usize];
    let mut tag: Tag = 1;
    for _ in 0..ops {
        // Phase 1: the host writes and reads atoms 0..32; the device writes atoms 32..64.
        // (Which half is whose alternates with the seed's draws.)
        let host_half = rng.below(2);
        for _ in 0..rng.below(6) + 1 {
            let atom = host_half * 32 + rng.below(32);
            let off = atom * 64 + rng.below(60);
            let len = (rng.below(16) + 1).min(atom * 64 + 64 - off) as usize;
            let byte = rng.below(256) as u8;
            if rng.below(3) == 0 {
                let (d, _) = host_reads(&mut h, &mut dev, off, len);
                assert_eq!(d, model[off as usize..off as usize + len], "host read at {off} (seed {seed})");
            } else {
                h.write(MEM, off, &vec![byte; len], tag, &mut dev).unwrap();
                model[off as usize..off as usize + len].fill(byte);
                tag += 1;
            }
        }
        for _ in 0..rng.below(4) {
            let atom = (1 - host_half) * 32 + rng.below(32);
            let off = atom * 64 + rng.below(48);
            let len = (rng.below(16) + 1) as usize;
            let byte = rng.below(256) as u8;
            gpu_writes(&mut dev, off, len, byte, 1_000_000 + tag);
            model[off as usize..off as usize + len].fill(byte);
            tag += 1;
        }
        // Synchronize: the host flushes its half and submits; the device work completes; the
        // host invalidates the device's half before reading it.
        let host_range = MappedRange::new(MEM, host_half * 2048, 2048);
        let dev_range = MappedRange::new(MEM, (1 - host_half) * 2048, 2048);
        h.flush_mapped_ranges(&[host_range], &mut dev).unwrap();
        h.device_visible_event(&mut dev).unwrap();
        h.invalidate_mapped_ranges(&[dev_range], &mut dev).unwrap();
        // The device now sees the host's half.
        let (d, _) = gpu_sees(&dev, host_half * 2048, 2048);
        assert_eq!(d, model[(host_half * 2048) as usize..][..2048], "device view (seed {seed})");
    }
    let (d, _) = host_reads(&mut h, &mut dev, 0, SIZE as usize);
    assert_eq!(d, model, "final host view (seed {seed})");
    let (bytes, tags) = gpu_sees(&dev, 0, SIZE as usize);
    (bytes, tags, *h.totals())
}

#[test]
fn synchronized_programs_read_what_was_written_on_every_kind() {
    for kind in [
        HostMemoryKind::WriteCombined,
        HostMemoryKind::WriteCombinedNonCoherent,
        HostMemoryKind::Cached,
        HostMemoryKind::CachedCoherent,
    ] {
        for seed in 1..=4 {
            synchronized_run(kind, seed * 7919, 60);
        }
    }
}

#[test]
fn same_seed_same_bytes_tags_and_reports() {
    for kind in [HostMemoryKind::WriteCombinedNonCoherent, HostMemoryKind::Cached] {
        let a = synchronized_run(kind, 42, 80);
        let b = synchronized_run(kind, 42, 80);
        assert_eq!(a, b);
        assert!(a.2.cycles > 0);
    }
}
