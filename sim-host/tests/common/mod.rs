//! Shared set-up: a host side in front of a `BackingStore` that stands in for device memory.
//! Direct `poke`s to the store stand in for GPU writes; `peek`s show what the GPU would read.

#![allow(dead_code)]

use sim_caches::{BackingStore, Tag};
use sim_host::{HostMemoryKind, HostSide, HostSpec, HostTiming, MemoryId};

/// The memory object every test maps.
pub const MEM: MemoryId = 0;
/// Its device address.
pub const BASE: u64 = 0x1000;
/// Its size.
pub const SIZE: u64 = 4096;

/// Tag of the GPU's first write of a test.
pub const GPU: Tag = 100;
/// Tag of the host's first write of a test.
pub const HOST: Tag = 1;

/// Device memory: 1 MiB, one channel.
pub fn device() -> BackingStore {
    BackingStore::new(1 << 20, 1, 256).unwrap()
}

/// A host side with the default spec and timing, `MEM` mapped whole as `kind`.
pub fn host(kind: HostMemoryKind) -> HostSide {
    host_with(&HostSpec::default(), kind)
}

/// A host side with `spec`, `MEM` mapped whole as `kind`.
pub fn host_with(spec: &HostSpec, kind: HostMemoryKind) -> HostSide {
    let mut h = HostSide::new(spec, HostTiming::default(), 7).unwrap();
    h.map(MEM, BASE, SIZE, kind).unwrap();
    h
}

/// What the GPU would read at `offset` of `MEM`: bytes and one tag per 4-byte word.
pub fn gpu_sees(dev: &BackingStore, offset: u64, len: usize) -> (Vec<u8>, Vec<Tag>) {
    let addr = BASE + offset;
    let mut d = vec![0; len];
    let mut t = vec![0; sim_caches::word_span(addr, len)];
    dev.peek(addr, &mut d, &mut t).unwrap();
    (d, t)
}

/// A GPU write of `len` copies of `byte` at `offset` of `MEM`.
pub fn gpu_writes(dev: &mut BackingStore, offset: u64, len: usize, byte: u8, tag: Tag) {
    dev.poke(BASE + offset, &vec![byte; len], tag).unwrap();
}

/// A host read of `len` bytes at `offset` of `MEM`: bytes and one tag per byte.
pub fn host_reads(h: &mut HostSide, dev: &mut BackingStore, offset: u64, len: usize) -> (Vec<u8>, Vec<Tag>) {
    let mut d = vec![0; len];
    let mut t = vec![0; len];
    h.read(MEM, offset, &mut d, &mut t, dev).unwrap();
    (d, t)
}

/// `n` copies of `b`, for comparing byte runs.
pub fn run(b: u8, n: usize) -> Vec<u8> {
    vec![b; n]
}

/// Concatenates byte runs.
pub fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}
