//! Shared by the integration tests: the committed fixtures, a builder of small synthetic
//! captures, and a reader that hands out bytes a few at a time like a slow pipe.

#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::io::Read;
use std::path::PathBuf;

/// Bytes of a committed fixture.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The LZ4-compressed capture, as the layer wrote it.
pub fn lz4_fixture() -> Vec<u8> {
    fixture("fill-then-dispatch.lz4.gfxr")
}

/// The same capture with compression removed by `gfxrecon-compress ... NONE`.
pub fn none_fixture() -> Vec<u8> {
    fixture("fill-then-dispatch.none.gfxr")
}

/// The same capture recompressed by `gfxrecon-compress ... ZSTD`.
pub fn zstd_fixture() -> Vec<u8> {
    fixture("fill-then-dispatch.zstd.gfxr")
}

/// A `Read` that returns at most `chunk` bytes per call, so that reads across block
/// boundaries and partial reads are exercised, and that does not reveal its length.
pub struct Trickle<'a> {
    pub bytes: &'a [u8],
    pub chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Builds a capture by hand: a file header with a compression option, then raw blocks.
pub struct Builder {
    pub bytes: Vec<u8>,
}

impl Builder {
    /// A version 0.1 header with one option: compression type `compression`.
    pub fn new(compression: u32) -> Self {
        let mut bytes = b"GFXR".to_vec();
        for v in [0u32, 1, 1, 1, compression] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        Self { bytes }
    }

    /// Appends a block whose header declares exactly the body's length.
    pub fn block(mut self, block_type: u32, body: &[u8]) -> Self {
        self.bytes
            .extend_from_slice(&(body.len() as u64).to_le_bytes());
        self.bytes.extend_from_slice(&block_type.to_le_bytes());
        self.bytes.extend_from_slice(body);
        self
    }

    /// Offset the next block would have.
    pub fn offset(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// Little-endian concatenation of fields, for block bodies.
#[derive(Default)]
pub struct Body(pub Vec<u8>);

impl Body {
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
}

/// A global allocator that records the largest single allocation this thread made since
/// [`reset_largest_allocation`]: a test binary that checks no damaged capture makes the reader
/// allocate beyond what the file justifies installs it with
/// `#[global_allocator] static ALLOCATOR: common::Counting = common::Counting;`.
pub struct Counting;

thread_local! {
    // A `const` Cell without a destructor: reading it from inside the allocator allocates nothing.
    static LARGEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
}

/// Forgets the allocations recorded so far on this thread.
pub fn reset_largest_allocation() {
    LARGEST.with(|m| m.set(0));
}

/// The largest single allocation this thread made since the last reset.
pub fn largest_allocation() -> usize {
    LARGEST.with(std::cell::Cell::get)
}

// SAFETY: every call is forwarded unchanged to the system allocator; `note` only records a size.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: the caller's contract for `realloc` is passed on as is.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on as is.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

/// Panics unless [`Counting`] is this binary's global allocator and counts: a bound checked
/// against [`largest_allocation`] would otherwise hold for nothing.
pub fn assert_counting() {
    reset_largest_allocation();
    let probe: Vec<u8> = Vec::with_capacity(4096);
    std::hint::black_box(&probe);
    assert!(largest_allocation() >= 4096, "the counting allocator is not installed");
    drop(probe);
}
