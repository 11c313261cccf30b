//! The framebuffer-compression codec: tiles encoded and decoded per second, for tiles that
//! compress 8:1 (two colours), 2:1 (sixteen) and not at all (64 distinct texels); and whole
//! tiles written and read back through the encode/decode level over device memory.
//!
//! `cargo bench -p gpusim --bench rop`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_caches::{BackingStore, MemoryLevel, Tags};
use sim_rop::codec::{decode, encode};
use sim_rop::level::{Codec, Metadata};

/// A 256-byte tile of 32-bit texels drawing on `colours` distinct values.
fn tile(colours: u32) -> Vec<u8> {
    (0..64u32).flat_map(|i| (0x0100_0000 + (i * 7 + i / 8) % colours).to_le_bytes()).collect()
}

fn codec(c: &mut Criterion) {
    let mut g = c.benchmark_group("rop/codec");
    g.throughput(Throughput::Elements(1));
    for (name, colours) in [("two_colours", 2), ("sixteen_colours", 16), ("raw", 64)] {
        let t = tile(colours);
        let e = encode(&t, 4, &[]);
        g.bench_function(format!("encode_{name}"), |b| b.iter(|| black_box(encode(black_box(&t), 4, &[]).state)));
        g.bench_function(format!("decode_{name}"), |b| b.iter(|| black_box(decode(e.state, black_box(&e.payload), 256, 4, &[]).map(|v| v.len()))));
    }
    g.finish();
}

fn level(c: &mut Criterion) {
    const TILES: u64 = 1024;
    let mut vram = BackingStore::new(1 << 24, 4, 256).expect("memory");
    let mut meta = Metadata::new(65536);
    meta.enable(0, TILES * 256, 256, 4, vec![vec![0; 4]]).expect("region");
    let tiles: Vec<Vec<u8>> = (0..TILES).map(|k| tile(1 + (k % 20) as u32)).collect();
    let mut g = c.benchmark_group("rop/level");
    g.throughput(Throughput::Elements(TILES));
    g.bench_function("write_then_read_1024_tiles", |b| {
        b.iter(|| {
            let mut level = Codec::new(&mut meta, &mut vram);
            let (mut back, mut tags) = (vec![0; 256], vec![0; 64]);
            for (k, t) in tiles.iter().enumerate() {
                level.write(k as u64 * 256, t, Tags::One(1), None).expect("write");
            }
            for k in 0..TILES {
                level.read(k * 256, &mut back, &mut tags).expect("read");
            }
            black_box(back[0])
        })
    });
    g.finish();
}

criterion_group!(benches, codec, level);
criterion_main!(benches);
