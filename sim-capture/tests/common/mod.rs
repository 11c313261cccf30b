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
