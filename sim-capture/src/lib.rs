//! Reading GFXReconstruct captures (`.gfxr` files) and turning them into gpusim traces: the
//! crate behind `gpusim import`.
//!
//! LunarG's GFXReconstruct capture layer records every Vulkan call an application makes, with
//! its parameters and the bytes it writes into mapped memory, as a stream of blocks. This crate
//! reads that stream safely and hands out its blocks, decodes the parameters of the calls a
//! compute or transfer program makes, and converts them into a trace.
//!
//! How the parts fit:
//! - `format` holds the file format's constants (fourcc, block types, meta-data types,
//!   compression types) and this reader's limits ([`format::MAX_BLOCK_SIZE`]);
//! - `reader` reads the file header and then one [`Block`] at a time from any `Read`
//!   ([`CaptureReader`]), decompressing LZ4 and Zstandard payloads, checking every size before allocating;
//! - `ids` names API call ids (the whole Vulkan table of `api_call_id.h`);
//! - `summary` counts blocks by kind and calls by name ([`Summary`]);
//! - [`decode`] decodes a call block's parameters into a [`decode::Call`];
//! - [`convert`] turns the decoded calls of a whole capture into a trace ([`convert::import`]);
//! - `error` is the one error type, [`CaptureError`], whose block errors carry the block index
//!   and byte offset.
//!
//! The reader, the decoders and the converter never panic on any input and never allocate from
//! a number they have not checked: that is what the tests exercise, on real captures and on
//! every truncation and random mutation of them.

#![warn(missing_docs)]

pub mod convert;
pub mod decode;
mod error;
pub mod format;
pub mod ids;
mod reader;
mod summary;

pub use error::CaptureError;
pub use reader::{Block, BlockKind, CaptureReader, FileHeader, FillMemory, read_all};
pub use summary::Summary;
