//! Everything that can be wrong with a capture file, as one error type.
//!
//! A capture is untrusted input: it may be truncated (the application crashed while
//! capturing), corrupted, or not a capture at all. Each variant names what was wrong and,
//! for anything inside the block stream, the block's index (counted from 0, as
//! `gfxrecon-convert` counts them) and the byte offset of its header, so that a message can be
//! checked against `gfxrecon-info` or a hex dump.

/// An error reading a GFXReconstruct capture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// The underlying reader failed (not an end of file: those are truncation errors).
    #[error("I/O error at byte {offset}: {source}")]
    Io {
        /// Bytes of the file consumed before the failure.
        offset: u64,
        /// The reader's error.
        source: std::io::Error,
    },
    /// The file ends inside its header or its option list.
    #[error("truncated file header: the file ends after {got} bytes, the header needs {need}")]
    TruncatedFileHeader {
        /// Bytes present.
        got: u64,
        /// Bytes the header (with its options) needs.
        need: u64,
    },
    /// The first four bytes are not `GFXR`.
    #[error("not a GFXReconstruct capture: the file starts with {found:02x?}, not \"GFXR\"")]
    BadFourcc {
        /// The first four bytes.
        found: [u8; 4],
    },
    /// A file-format major version this reader does not know.
    #[error("unsupported capture file version {major}.{minor}: only major version 0 is read")]
    UnsupportedVersion {
        /// The major version.
        major: u32,
        /// The minor version.
        minor: u32,
    },
    /// The header declares more options than [`MAX_FILE_OPTIONS`](crate::format::MAX_FILE_OPTIONS).
    #[error("the file header declares {count} options, more than the {max} accepted")]
    TooManyOptions {
        /// The declared count.
        count: u32,
        /// The cap.
        max: u32,
    },
    /// The compression option has a value no release defines.
    #[error("unknown compression type {value} in the file header")]
    UnknownCompression {
        /// The option's value.
        value: u32,
    },
    /// The capture is compressed with a type this crate does not decode.
    #[error(
        "unsupported compression: the capture is compressed with {name}; only LZ4, ZSTD and NONE are read \
         (recompress it with `gfxrecon-compress IN OUT LZ4`)"
    )]
    UnsupportedCompression {
        /// `gfxrecon-compress`'s name for the type (`ZSTD`, `ZLIB`).
        name: &'static str,
    },
    /// The file ends inside a block header.
    #[error("block {index} at byte {offset}: truncated block header ({got} of 12 bytes)")]
    TruncatedBlockHeader {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// Header bytes present.
        got: u64,
    },
    /// A block type no release writes (or a compressed variant of a type that has none).
    #[error("block {index} at byte {offset}: unknown block type 0x{block_type:08x}")]
    UnknownBlockType {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The type field.
        block_type: u32,
    },
    /// A block declares a body larger than [`MAX_BLOCK_SIZE`](crate::format::MAX_BLOCK_SIZE).
    #[error("block {index} at byte {offset}: declared size {size} is over the {cap}-byte cap")]
    BlockTooLarge {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The declared body size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A block declares a body longer than what is left of the file (length known up front).
    #[error(
        "block {index} at byte {offset}: declared size {size} runs past the end of the file ({remaining} bytes left)"
    )]
    BlockPastEnd {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The declared body size.
        size: u64,
        /// Bytes left after the block header.
        remaining: u64,
    },
    /// The stream ended inside a block body (length not known up front).
    #[error("block {index} at byte {offset}: truncated block, {got} of its {size} bytes present")]
    TruncatedBlock {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The declared body size.
        size: u64,
        /// Body bytes present.
        got: u64,
    },
    /// A block body too short for the fixed fields its type requires.
    #[error("block {index} at byte {offset}: {what} needs {need} bytes, the block has {size}")]
    BlockTooSmall {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// What was being read.
        what: &'static str,
        /// The body size.
        size: u64,
        /// Bytes needed.
        need: u64,
    },
    /// A compressed block in a file whose header says it is not compressed.
    #[error("block {index} at byte {offset}: compressed block in a capture with compression NONE")]
    CompressedWithoutCompression {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
    },
    /// A compressed block claims an uncompressed size no honest block could have.
    #[error(
        "block {index} at byte {offset}: uncompressed size {claimed} is impossible for {compressed} \
         compressed bytes (at most {bound})"
    )]
    UncompressedSizeTooLarge {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The claimed uncompressed size.
        claimed: u64,
        /// Compressed bytes present.
        compressed: u64,
        /// The largest size accepted for them.
        bound: u64,
    },
    /// The compressed data is corrupt or does not decode to the claimed size.
    #[error(
        "block {index} at byte {offset}: corrupt compressed data ({detail}; {claimed} bytes claimed)"
    )]
    Decompress {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The claimed uncompressed size.
        claimed: u64,
        /// What the decoder reported.
        detail: String,
    },
    /// A compressed meta-data block of a type whose fixed fields this reader does not know.
    #[error(
        "block {index} at byte {offset}: compressed meta-data of type {meta_data_type} is not supported"
    )]
    UnsupportedCompressedMetaData {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The meta-data type (low half of the meta-data id).
        meta_data_type: u16,
    },
    /// An annotation whose label and data lengths do not fit in its block.
    #[error(
        "block {index} at byte {offset}: annotation label {label_length} + data {data_length} bytes \
         exceed the {available} bytes present"
    )]
    BadAnnotation {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The declared label length.
        label_length: u32,
        /// The declared data length.
        data_length: u64,
        /// Bytes present after the annotation header.
        available: u64,
    },
    /// A call's (or a meta-data command's) parameters that do not decode: too short, a count
    /// past the end, a pointer or structure type other than the call encodes, or bytes left
    /// over.
    #[error(
        "block {index} at byte {offset}: {call}: parameters do not decode at byte {at} of {size}: {detail}"
    )]
    BadParameters {
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// The call's name (or the meta-data command's).
        call: &'static str,
        /// Byte offset in the (decompressed) parameter buffer where decoding failed.
        at: u64,
        /// Bytes in the parameter buffer.
        size: u64,
        /// What was wrong.
        detail: String,
    },
}

impl CaptureError {
    /// The block index and header offset the error is about, for errors inside the block
    /// stream; `None` for file-header and I/O errors.
    pub fn block_position(&self) -> Option<(u64, u64)> {
        use CaptureError::*;
        match *self {
            TruncatedBlockHeader { index, offset, .. }
            | UnknownBlockType { index, offset, .. }
            | BlockTooLarge { index, offset, .. }
            | BlockPastEnd { index, offset, .. }
            | TruncatedBlock { index, offset, .. }
            | BlockTooSmall { index, offset, .. }
            | CompressedWithoutCompression { index, offset }
            | UncompressedSizeTooLarge { index, offset, .. }
            | Decompress { index, offset, .. }
            | UnsupportedCompressedMetaData { index, offset, .. }
            | BadAnnotation { index, offset, .. }
            | BadParameters { index, offset, .. } => Some((index, offset)),
            Io { .. }
            | TruncatedFileHeader { .. }
            | BadFourcc { .. }
            | UnsupportedVersion { .. }
            | TooManyOptions { .. }
            | UnknownCompression { .. }
            | UnsupportedCompression { .. } => None,
        }
    }
}
