//! Reading GFXReconstruct captures (`.gfxr` files): the file layer of `gpusim import`.
//!
//! LunarG's GFXReconstruct capture layer records every Vulkan call an application makes, with
//! its parameters and the bytes it writes into mapped memory, as a stream of blocks. This crate
//! reads that stream safely and hands out its blocks; turning calls into a gpusim trace is a
//! later layer's job.
//!
//! How the parts fit:
//! - `format` holds the file format's constants (fourcc, block types, meta-data types,
//!   compression types) and this reader's limits ([`format::MAX_BLOCK_SIZE`]);
//! - `reader` reads the file header and then one [`Block`] at a time from any `Read`
//!   ([`CaptureReader`]), decompressing LZ4 and Zstandard payloads, checking every size before allocating;
//! - `ids` names API call ids (the whole Vulkan table of `api_call_id.h`);
//! - `summary` counts blocks by kind and calls by name ([`Summary`]);
//! - `error` is the one error type, [`CaptureError`], whose block errors carry the block index
//!   and byte offset.
//!
//! The reader never panics on any input and never allocates from a number it has not checked:
//! that is what its tests exercise, on a real capture and on every truncation and random
//! mutation of it.

#![warn(missing_docs)]

mod error;
pub mod format;
pub mod ids;
mod reader;
mod summary;

pub use error::CaptureError;
pub use reader::{Block, BlockKind, CaptureReader, FileHeader, FillMemory, read_all};
pub use summary::Summary;
