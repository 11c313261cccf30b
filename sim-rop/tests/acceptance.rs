//! Random acceptance of ROP tile caches with the codec against a flat decoded model: whatever
//! is written through a tile cache whose next level compresses, read back through it (or, after
//! a flush, through the decode level alone) is exactly the bytes and tags last written, for any
//! mix of whole-tile and partial writes, flushes, invalidations and fast clears, at page and
//! per-image metadata granularity. And a raw reader sees the compressed slots, not the texels.

use proptest::prelude::*;
use sim_caches::{BackingStore, Cache, CacheSpec, MemoryLevel, Tag, Tags, WritePolicy};
use sim_rop::codec::TileState;
use sim_rop::level::{Codec, Metadata};

/// The image: 8 tiles of 256 bytes at 64 KiB; bytes past it are a buffer in the same page.
const BASE: u64 = 0x10000;
const TILES: u64 = 8;
const SPAN: u64 = TILES * 256 + 512;

#[derive(Clone, Debug)]
enum Op {
    /// Writes `len` bytes at `off` of colour `c` (a small palette, so tiles compress).
    Write { off: u64, len: u64, c: u8 },
    /// Writes a whole tile of a pattern of `n` colours.
    Tile { tile: u64, n: u8 },
    /// Reads `len` bytes at `off`.
    Read { off: u64, len: u64 },
    /// Flushes the tile cache.
    Flush,
    /// Flushes and invalidates the tile cache.
    FlushInvalidate,
    /// Fast-clears a tile to clear value 0 (after flushing and dropping its lines, as a driver
    /// does before a clear that bypasses the ROPs).
    Clear { tile: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..SPAN - 1, 1..600u64, 0..4u8).prop_map(|(off, len, c)| Op::Write { off, len: len.min(SPAN - off), c }),
        2 => (0..TILES, 1..20u8).prop_map(|(tile, n)| Op::Tile { tile, n }),
        4 => (0..SPAN - 1, 1..700u64).prop_map(|(off, len)| Op::Read { off, len: len.min(SPAN - off) }),
        1 => Just(Op::Flush),
        1 => Just(Op::FlushInvalidate),
        1 => (0..TILES).prop_map(|tile| Op::Clear { tile }),
    ]
}

fn colour(c: u8) -> [u8; 4] {
    [c, c.wrapping_mul(3), 255 - c, 255]
}

fn run(ops: &[Op], granularity: u64) {
    let spec = CacheSpec { size_bytes: 1024, line_bytes: 256, ways: 2, write_policy: WritePolicy::WriteBackLineDirty, ..CacheSpec::default() };
    let mut rop = Cache::new("ROP$", &spec, 1).unwrap();
    let mut vram = BackingStore::new(1 << 20, 1, 256).unwrap();
    let mut meta = Metadata::new(granularity);
    let clear = vec![colour(0).to_vec()];
    meta.enable(BASE, TILES * 256, 256, 4, clear.clone()).unwrap();
    // The model: decoded bytes and the tag of each word.
    let mut bytes = vec![0u8; SPAN as usize];
    let mut tags: Vec<Tag> = vec![0; (SPAN / 4) as usize];
    let mut tag: Tag = 1;
    for op in ops {
        tag += 1;
        match *op {
            Op::Write { off, len, c } => {
                let data: Vec<u8> = (0..len).map(|k| colour(c)[((off + k) % 4) as usize]).collect();
                let mut codec = Codec::new(&mut meta, &mut vram);
                rop.write(&mut codec, BASE + off, &data, Tags::One(tag), None).unwrap();
                bytes[off as usize..(off + len) as usize].copy_from_slice(&data);
                for w in off / 4..(off + len).div_ceil(4) {
                    tags[w as usize] = tag;
                }
            }
            Op::Tile { tile, n } => {
                let data: Vec<u8> = (0..64u64).flat_map(|i| colour((i % u64::from(n)) as u8 + 1)).collect();
                let mut codec = Codec::new(&mut meta, &mut vram);
                rop.write(&mut codec, BASE + tile * 256, &data, Tags::One(tag), None).unwrap();
                bytes[(tile * 256) as usize..(tile * 256 + 256) as usize].copy_from_slice(&data);
                tags[(tile * 64) as usize..(tile * 64 + 64) as usize].fill(tag);
            }
            Op::Read { off, len } => {
                let (mut got, mut got_tags) = (vec![0; len as usize], vec![0; sim_caches::word_span(BASE + off, len as usize)]);
                let mut codec = Codec::new(&mut meta, &mut vram);
                rop.read(&mut codec, BASE + off, &mut got, &mut got_tags).unwrap();
                assert_eq!(got, bytes[off as usize..(off + len) as usize], "{op:?}");
                assert_eq!(got_tags, tags[(off / 4) as usize..(off + len).div_ceil(4) as usize], "{op:?}");
            }
            Op::Flush => {
                rop.flush(&mut Codec::new(&mut meta, &mut vram), None).unwrap();
            }
            Op::FlushInvalidate => {
                rop.flush_invalidate(&mut Codec::new(&mut meta, &mut vram), None).unwrap();
            }
            Op::Clear { tile } => {
                let a = BASE + tile * 256;
                rop.flush_invalidate(&mut Codec::new(&mut meta, &mut vram), Some((a, 256))).unwrap();
                meta.fast_clear(a, 0, tag);
                bytes[(tile * 256) as usize..(tile * 256 + 256) as usize].copy_from_slice(&colour(0).repeat(64));
                tags[(tile * 64) as usize..(tile * 64 + 64) as usize].fill(tag);
            }
        }
    }
    // Everything flushed, the decode level alone reads the model.
    rop.flush(&mut Codec::new(&mut meta, &mut vram), None).unwrap();
    let (mut got, mut got_tags) = (vec![0; SPAN as usize], vec![0; (SPAN / 4) as usize]);
    Codec::new(&mut meta, &mut vram).read(BASE, &mut got, &mut got_tags).unwrap();
    assert_eq!(got, bytes);
    assert_eq!(got_tags, tags);
    // Raw slots: a raw tile's bytes are the texels; a compressed one's are not (its palette
    // form differs from its texels unless the tile is a single colour that happens to match).
    for t in 0..TILES {
        let info = meta.tile(BASE + t * 256).unwrap();
        let (mut raw, mut rt) = (vec![0; 256], vec![0; 64]);
        vram.peek(info.slot_addr, &mut raw, &mut rt).unwrap();
        if info.state == TileState::Raw {
            assert_eq!(raw, bytes[(t * 256) as usize..(t * 256 + 256) as usize]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn rop_tile_caches_with_compression_agree_with_a_flat_model(ops in proptest::collection::vec(op(), 1..40)) {
        run(&ops, 65536);
        run(&ops, 1);
    }
}

/// The seed's numbers: a fast-cleared tile costs no slot bytes, a two-colour tile an eighth of
/// its slot, and a reader that ignores the metadata reads garbage past the compressed bytes.
#[test]
fn compression_saves_the_bandwidth_the_seed_promises() {
    let mut vram = BackingStore::new(1 << 20, 1, 256).unwrap();
    vram.poke(BASE, &[0xab; 1024], 1).unwrap();
    let mut meta = Metadata::new(65536);
    meta.enable(BASE, 1024, 256, 4, vec![vec![0; 4]]).unwrap();
    let two: Vec<u8> = (0..64).flat_map(|i| colour((i / 32) as u8 + 1)).collect();
    let mut codec = Codec::new(&mut meta, &mut vram);
    let r = codec.write(BASE, &two, Tags::One(2), None).unwrap();
    assert_eq!(r.dram_write_transactions, 1, "32 bytes: one transaction");
    meta.fast_clear(BASE + 256, 0, 3);
    let mut codec = Codec::new(&mut meta, &mut vram);
    let (mut b, mut t) = (vec![0; 512], vec![0; 128]);
    let r = codec.read(BASE, &mut b, &mut t).unwrap();
    assert_eq!(r.dram_read_transactions, 1, "the compressed tile's 32 bytes; the cleared one reads nothing");
    assert_eq!(&b[..256], &two[..]);
    assert!(b[256..].iter().all(|&x| x == 0));
    let (mut raw, mut rt) = (vec![0; 256], vec![0; 64]);
    vram.peek(BASE, &mut raw, &mut rt).unwrap();
    assert!(raw[32..].iter().all(|&x| x == 0xab), "past the compressed bytes, what was there before");
}
