//! The seed's stories about caches, each showing concretely which bytes go stale or get lost.
//! (The seed gpu-memory-architecture-and-barriers: write-through and write-back caches, per-byte
//! dirty masks, the partial-line problem, "WRITE in dstAccessMask".)

use sim_caches::*;

const KIB: u64 = 1024;

fn vram() -> BackingStore {
    BackingStore::new(1 << 20, 4, 256).unwrap()
}

fn l1_spec() -> CacheSpec {
    CacheSpec::new(16 * KIB, 64, 4, Replacement::Lru, WritePolicy::WriteThroughAllocate)
}

fn l2_spec(policy: WritePolicy) -> CacheSpec {
    CacheSpec::new(256 * KIB, 64, 16, Replacement::Lru, policy)
}

fn read_u32(cache: &mut Cache, next: &mut impl MemoryLevel, addr: u64) -> (u32, Tag) {
    let mut b = [0u8; 4];
    let mut t = [0; 1];
    cache.read(next, addr, &mut b, &mut t).unwrap();
    (u32::from_le_bytes(b), t[0])
}

/// Story 1: agent A's L1 holds a line; agent B writes the same bytes through the shared L2;
/// A keeps reading the old bytes until its L1 is invalidated.
#[test]
fn stale_l1_until_invalidated() {
    let mut vram = vram();
    let mut l2 = Cache::new("L2", &l2_spec(WritePolicy::WriteBackLineDirty), 0).unwrap();
    let mut l1_a = Cache::new("L1[A]", &l1_spec(), 0).unwrap();
    let mut l1_b = Cache::new("L1[B]", &l1_spec(), 0).unwrap();
    vram.poke(0x100, &11u32.to_le_bytes(), 1).unwrap();

    // A reads the value: its L1 now holds the line.
    let (v, t) = read_u32(&mut l1_a, &mut Chained { cache: &mut l2, next: &mut vram }, 0x100);
    assert_eq!((v, t), (11, 1));

    // B writes 22 through its own write-through L1 into the shared L2.
    l1_b.write(&mut Chained { cache: &mut l2, next: &mut vram }, 0x100, &22u32.to_le_bytes(), Tags::One(2), None)
        .unwrap();
    let (v, _) = read_u32(&mut l2, &mut vram, 0x100);
    assert_eq!(v, 22, "L2 has B's write");

    // A still sees its stale copy, with the old write's provenance.
    let (v, t) = read_u32(&mut l1_a, &mut Chained { cache: &mut l2, next: &mut vram }, 0x100);
    assert_eq!((v, t), (11, 1), "A's L1 returns the stale bytes of write 1");

    // After invalidating A's L1, A sees B's bytes.
    let r = l1_a.invalidate(&mut Chained { cache: &mut l2, next: &mut vram }, None).unwrap();
    assert_eq!(r.writeback_lines, 0, "a write-through L1 has nothing to write back");
    let (v, t) = read_u32(&mut l1_a, &mut Chained { cache: &mut l2, next: &mut vram }, 0x100);
    assert_eq!((v, t), (22, 2));
}

/// Story 2: an L2 with per-line dirty bits holds a stale copy of a line; another path (the
/// transfer engine) writes neighbouring bytes straight to VRAM; a partial write into the L2 line
/// and its later write-back clobber them. With a per-byte dirty mask, or with an invalidate
/// before the write, they survive.
fn partial_line_story(policy: WritePolicy, invalidate_before_write: bool) -> [u8; 64] {
    let mut vram = vram();
    let mut l2 = Cache::new("L2", &l2_spec(policy), 0).unwrap();
    // The line starts as 0xAA and the L2 reads it, so it holds a copy.
    vram.poke(0x1000, &[0xAA; 64], 1).unwrap();
    let mut line = [0u8; 64];
    let mut tags = [0; 16];
    l2.read(&mut vram, 0x1000, &mut line, &mut tags).unwrap();

    // The transfer engine writes bytes 32..64 directly to VRAM: the L2's copy is now stale.
    vram.write(0x1020, &[0xBB; 32], Tags::One(2), None).unwrap();

    if invalidate_before_write {
        l2.invalidate(&mut vram, Some((0x1000, 64))).unwrap();
    }
    // A shader writes bytes 0..4 through the L2, then the L2 is flushed.
    l2.write(&mut vram, 0x1000, &[0xCC; 4], Tags::One(3), None).unwrap();
    l2.flush(&mut vram, None).unwrap();

    let mut out = [0u8; 64];
    let mut out_tags = [0; 16];
    vram.peek(0x1000, &mut out, &mut out_tags).unwrap();
    out
}

#[test]
fn per_line_dirty_write_back_clobbers_neighbouring_bytes() {
    let out = partial_line_story(WritePolicy::WriteBackLineDirty, false);
    assert_eq!(&out[0..4], &[0xCC; 4]);
    assert_eq!(&out[32..64], &[0xAA; 32], "the transfer's 0xBB bytes were overwritten with the stale 0xAA copy");
}

#[test]
fn per_byte_dirty_mask_keeps_neighbouring_bytes() {
    let out = partial_line_story(WritePolicy::WriteBackByteMask, false);
    assert_eq!(&out[0..4], &[0xCC; 4]);
    assert_eq!(&out[4..32], &[0xAA; 28]);
    assert_eq!(&out[32..64], &[0xBB; 32], "only the dirty bytes were written back");
}

#[test]
fn invalidate_before_the_write_keeps_neighbouring_bytes() {
    let out = partial_line_story(WritePolicy::WriteBackLineDirty, true);
    assert_eq!(&out[0..4], &[0xCC; 4]);
    assert_eq!(&out[32..64], &[0xBB; 32], "the line was re-fetched after the transfer's write");
}

/// Story 3: a read-only cache refuses writes; an invalidate of a clean line costs no write-back.
#[test]
fn read_only_refuses_writes_and_clean_invalidate_is_free() {
    let mut vram = vram();
    let spec = CacheSpec::new(16 * KIB, 64, 4, Replacement::Lru, WritePolicy::ReadOnly);
    let mut tex = Cache::new("T$", &spec, 0).unwrap();
    vram.poke(0, &[7; 64], 1).unwrap();
    let mut b = [0u8; 8];
    let mut t = [0; 2];
    tex.read(&mut vram, 0, &mut b, &mut t).unwrap();
    let before = *vram.channel_stats().first().unwrap();

    let err = tex.write(&mut vram, 0, &[1; 4], Tags::One(2), None).unwrap_err();
    assert!(matches!(err, AccessError::WriteToReadOnly { .. }), "{err}");
    assert!(err.to_string().contains("T$"), "{err}");
    let mut old = [0u8; 4];
    assert!(tex.read_modify_write(&mut vram, 0, &mut old, 3, |o, n| n.copy_from_slice(o)).is_err());
    // The refused write changed nothing.
    tex.read(&mut vram, 0, &mut b, &mut t).unwrap();
    assert_eq!(b, [7; 8]);

    let r = tex.invalidate(&mut vram, None).unwrap();
    assert_eq!(r.writeback_lines, 0);
    assert_eq!(r.writeback_bytes, 0);
    assert_eq!(r.dram_write_transactions, 0);
    assert_eq!(vram.channel_stats()[0].write_transactions, before.write_transactions);
    assert_eq!(tex.resident_lines(), 0);
    assert_eq!(tex.stats().lines_invalidated, 1);

    // Same for a write-back cache whose line was only read.
    let mut l2 = Cache::new("L2", &l2_spec(WritePolicy::WriteBackLineDirty), 0).unwrap();
    l2.read(&mut vram, 0, &mut b, &mut t).unwrap();
    let r = l2.invalidate(&mut vram, None).unwrap();
    assert_eq!((r.writeback_lines, r.dram_write_transactions), (0, 0));
}

/// The unsafe `discard` switch drops dirty data on invalidate; the default flushes it first.
#[test]
fn invalidate_of_dirty_data_flushes_unless_discard() {
    for (mode, expect) in [(DirtyOnInvalidate::Flush, 0x55u8), (DirtyOnInvalidate::Discard, 0u8)] {
        let mut vram = vram();
        let mut spec = l2_spec(WritePolicy::WriteBackByteMask);
        spec.dirty_on_invalidate = mode;
        let mut l2 = Cache::new("L2", &spec, 0).unwrap();
        l2.write(&mut vram, 64, &[0x55; 8], Tags::One(9), None).unwrap();
        l2.invalidate(&mut vram, Some((64, 8))).unwrap();
        let mut b = [0u8; 8];
        let mut t = [0; 2];
        vram.peek(64, &mut b, &mut t).unwrap();
        assert_eq!(b, [expect; 8], "{mode:?}");
        assert_eq!(l2.stats().lines_discarded, (mode == DirtyOnInvalidate::Discard) as u64);
    }
}

/// `keep`: an invalidate drops clean lines and leaves dirty ones where they are, neither written
/// back nor lost; a flush then writes them back.
#[test]
fn invalidate_keeps_dirty_lines_when_asked() {
    let mut vram = vram();
    let mut spec = l2_spec(WritePolicy::WriteBackByteMask);
    spec.dirty_on_invalidate = DirtyOnInvalidate::Keep;
    let mut l2 = Cache::new("L2", &spec, 0).unwrap();
    let (mut b, mut t) = ([0u8; 8], [0; 2]);
    l2.read(&mut vram, 0, &mut b, &mut t).unwrap();
    l2.write(&mut vram, 64, &[0x55; 8], Tags::One(9), None).unwrap();
    let r = l2.invalidate(&mut vram, None).unwrap();
    assert_eq!(r.writeback_lines, 0, "nothing written back");
    assert!(!l2.contains(0), "the clean line is dropped");
    assert!(l2.contains(64), "the dirty line stays");
    vram.peek(64, &mut b, &mut t).unwrap();
    assert_eq!(b, [0; 8], "not in VRAM yet");
    l2.flush(&mut vram, None).unwrap();
    vram.peek(64, &mut b, &mut t).unwrap();
    assert_eq!(b, [0x55; 8]);
    assert_eq!(l2.stats().lines_discarded, 0);
}
