//! A streaming reader of the `.gfxr` block stream.
//!
//! [`CaptureReader`] reads the file header when it is made, then one block per call of
//! [`CaptureReader::next_block`] (or per step of its iterator), returning each as a [`Block`]
//! whose payload is already decompressed. It keeps nothing but the current block, so a capture
//! of any length can be walked in constant memory.
//!
//! Every number taken from the file is checked before it is used:
//! - a block's declared size is checked against [`MAX_BLOCK_SIZE`] and, when the file's length
//!   is known (a slice or an opened file), against the bytes left, before any buffer is made;
//!   with a plain `Read` of unknown length the body is read through `Read::take`, so the buffer
//!   grows only with bytes that really arrive;
//! - a compressed block's uncompressed size is checked against the cap and, for LZ4, against
//!   the most that its compressed bytes could decode to ([`lz4_max_output`]) before the output
//!   buffer is made; LZ4 decodes into exactly that buffer, and Zstandard (whose ratio has no
//!   useful bound) into a buffer that grows with the decoded bytes, stopping one byte past the
//!   claim, after its frame header has been checked against the claim (the decoder reserves
//!   the frame's window up front), so a lying size is an error, not an overflow or a huge
//!   allocation;
//! - fixed fields are read through a bounds-checked cursor, so a short body is an error.
//!
//! After the first error the reader is finished: it returns `None` from then on, since
//! nothing after a broken block header can be trusted to be a block boundary.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use crate::error::CaptureError;
use crate::format::{
    self, ANNOTATION_BLOCK, BLOCK_HEADER_SIZE, COMPRESSED_BLOCK_BIT, Compression, FILE_HEADER_SIZE,
    FILE_OPTION_COMPRESSION_TYPE, FILE_OPTION_SIZE, FRAME_MARKER_BLOCK, FUNCTION_CALL_BLOCK,
    MAX_BLOCK_SIZE, MAX_FILE_OPTIONS, META_DATA_BLOCK, META_FILL_MEMORY, META_INIT_BUFFER,
    METHOD_CALL_BLOCK, STATE_MARKER_BLOCK, lz4_max_output,
};
use crate::ids;

/// How much body a reader of unknown length reserves up front; past this the buffer grows
/// with the bytes actually read.
const UNKNOWN_LENGTH_RESERVE: u64 = 64 * 1024;

/// The file header: version and options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// File-format major version.
    pub major_version: u32,
    /// File-format minor version.
    pub minor_version: u32,
    /// The compression type of compressed blocks.
    pub compression: Compression,
    /// Every option as written (key, value), including ones this reader does not interpret.
    pub options: Vec<(u32, u32)>,
}

impl FileHeader {
    /// Bytes the header and its options take at the start of the file.
    pub fn len(&self) -> u64 {
        (FILE_HEADER_SIZE + self.options.len() * FILE_OPTION_SIZE) as u64
    }

    /// Always false: a header has at least its 16 fixed bytes (present for clippy's
    /// `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// What a block is, with the fixed fields of its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    /// A Vulkan (or other API) function call; the payload is its encoded parameters.
    FunctionCall {
        /// API call id (see [`crate::ids`]).
        api_call_id: u32,
        /// Id of the capturing thread.
        thread_id: u64,
    },
    /// A method call on an object (D3D12/DXGI); the payload is its encoded parameters.
    MethodCall {
        /// API call id.
        api_call_id: u32,
        /// Id of the object the method was called on.
        object_id: u64,
        /// Id of the capturing thread.
        thread_id: u64,
    },
    /// A meta-data command; the payload is everything after the meta-data id (for a
    /// compressed block: its fixed fields followed by the decompressed data, so it reads the
    /// same as the uncompressed form).
    MetaData {
        /// API family (high half) and meta-data type (low half).
        meta_data_id: u32,
    },
    /// A frame begin/end marker; the payload is whatever follows its fields (normally empty).
    FrameMarker {
        /// 1 = begin, 2 = end.
        marker_type: u32,
        /// The frame number.
        frame_number: u64,
    },
    /// A state-snapshot begin/end marker; the payload is whatever follows its fields.
    StateMarker {
        /// 1 = begin, 2 = end.
        marker_type: u32,
        /// The frame number the snapshot belongs to.
        frame_number: u64,
    },
    /// An annotation; the payload is the label followed by the data.
    Annotation {
        /// 1 = text, 2 = JSON, 3 = XML.
        annotation_type: u32,
        /// Bytes of label at the start of the payload.
        label_length: u32,
        /// Bytes of data after the label.
        data_length: u64,
    },
}

impl BlockKind {
    /// A short name of the kind, for summaries and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Self::FunctionCall { .. } => "FunctionCall",
            Self::MethodCall { .. } => "MethodCall",
            Self::MetaData { .. } => "MetaData",
            Self::FrameMarker { .. } => "FrameMarker",
            Self::StateMarker { .. } => "StateMarker",
            Self::Annotation { .. } => "Annotation",
        }
    }
}

/// One block of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Index in the file, from 0 (as `gfxrecon-convert` numbers blocks).
    pub index: u64,
    /// Byte offset of the block header in the file.
    pub offset: u64,
    /// The body size the header declares (compressed size for compressed blocks).
    pub size: u64,
    /// Whether the block was stored compressed.
    pub compressed: bool,
    /// The block's type and fixed fields.
    pub kind: BlockKind,
    /// The variable part of the body, decompressed (see each [`BlockKind`] for what it holds).
    pub payload: Vec<u8>,
}

/// The fields of a FillMemory meta-data command: bytes the application wrote into mapped memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillMemory<'a> {
    /// Id of the thread that wrote the block.
    pub thread_id: u64,
    /// Capture id of the `VkDeviceMemory`.
    pub memory_id: u64,
    /// Offset from the start of the mapped range (not of the memory object).
    pub memory_offset: u64,
    /// The bytes written.
    pub data: &'a [u8],
}

impl Block {
    /// The API call id of a function- or method-call block.
    pub fn api_call_id(&self) -> Option<u32> {
        match self.kind {
            BlockKind::FunctionCall { api_call_id, .. }
            | BlockKind::MethodCall { api_call_id, .. } => Some(api_call_id),
            _ => None,
        }
    }

    /// The Vulkan function name of a call block, when the id is a known Vulkan call.
    pub fn call_name(&self) -> Option<&'static str> {
        self.api_call_id().and_then(ids::call_name)
    }

    /// The capturing thread of a call block.
    pub fn thread_id(&self) -> Option<u64> {
        match self.kind {
            BlockKind::FunctionCall { thread_id, .. } | BlockKind::MethodCall { thread_id, .. } => {
                Some(thread_id)
            }
            _ => None,
        }
    }

    /// The meta-data type (low half of the meta-data id) of a meta-data block.
    pub fn meta_data_type(&self) -> Option<u16> {
        match self.kind {
            BlockKind::MetaData { meta_data_id } => Some(meta_data_id as u16),
            _ => None,
        }
    }

    /// The fields of a FillMemory meta-data block, or `None` for any other block or one whose
    /// payload is too short or whose declared size does not match its data.
    pub fn fill_memory(&self) -> Option<FillMemory<'_>> {
        if self.meta_data_type() != Some(META_FILL_MEMORY) {
            return None;
        }
        let mut c = Cursor::new(&self.payload);
        let thread_id = c.u64()?;
        let memory_id = c.u64()?;
        let memory_offset = c.u64()?;
        let size = c.u64()?;
        let data = c.rest();
        (data.len() as u64 == size).then_some(FillMemory {
            thread_id,
            memory_id,
            memory_offset,
            data,
        })
    }

    /// The label and data of an annotation block.
    pub fn annotation(&self) -> Option<(&[u8], &[u8])> {
        match self.kind {
            BlockKind::Annotation {
                label_length,
                data_length,
                ..
            } => {
                let label_end = usize::try_from(label_length).ok()?;
                let data_end = label_end.checked_add(usize::try_from(data_length).ok()?)?;
                Some((
                    self.payload.get(..label_end)?,
                    self.payload.get(label_end..data_end)?,
                ))
            }
            _ => None,
        }
    }
}

/// A little-endian cursor over a block body that returns `None` instead of reading past it.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.at.checked_add(N)?;
        let out = self.bytes.get(self.at..end)?.try_into().ok()?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }

    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at.min(self.bytes.len())..]
    }
}

/// Reads a capture's blocks from any `Read`, one at a time.
///
/// Captures compressed with LZ4 (the layer's default), Zstandard or nothing are read; zlib
/// captures are refused when the header is read.
#[derive(Debug)]
pub struct CaptureReader<R> {
    inner: R,
    header: FileHeader,
    /// Bytes consumed so far: the offset of the next block header.
    pos: u64,
    /// The file's total length, when known, for checking declared sizes before reading.
    len: Option<u64>,
    next_index: u64,
    finished: bool,
}

/// Reads until `buf` is full or the reader ends; returns how many bytes were read.
fn fill(inner: &mut impl Read, buf: &mut [u8], pos: u64) -> Result<usize, CaptureError> {
    let mut got = 0;
    while got < buf.len() {
        match inner.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(CaptureError::Io {
                    offset: pos + got as u64,
                    source,
                });
            }
        }
    }
    Ok(got)
}

impl<'a> CaptureReader<&'a [u8]> {
    /// A reader over a whole capture in memory (its length is known, so every declared size
    /// is checked against the bytes left).
    pub fn from_slice(bytes: &'a [u8]) -> Result<Self, CaptureError> {
        Self::with_len(bytes, bytes.len() as u64)
    }
}

impl CaptureReader<BufReader<File>> {
    /// Opens a capture file. A regular file's length is taken from the file system, so every
    /// declared size is checked against it; a pipe or device is read as a stream of unknown
    /// length (its reported length, often 0, means nothing).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CaptureError> {
        let file = File::open(path).map_err(|source| CaptureError::Io { offset: 0, source })?;
        let metadata = file
            .metadata()
            .map_err(|source| CaptureError::Io { offset: 0, source })?;
        let len = metadata.is_file().then_some(metadata.len());
        Self::start(BufReader::new(file), len)
    }
}

impl<R: Read> CaptureReader<R> {
    /// Reads the file header from a stream of unknown length.
    pub fn new(inner: R) -> Result<Self, CaptureError> {
        Self::start(inner, None)
    }

    /// Reads the file header from a stream of `len` bytes in all (the file header included).
    ///
    /// The length is trusted: a block whose declared size fits in it (and under
    /// [`MAX_BLOCK_SIZE`]) has its buffer reserved before it is read, and one that does not is
    /// refused with [`CaptureError::BlockPastEnd`] without reading.
    pub fn with_len(inner: R, len: u64) -> Result<Self, CaptureError> {
        Self::start(inner, Some(len))
    }

    fn start(mut inner: R, len: Option<u64>) -> Result<Self, CaptureError> {
        let mut fixed = [0u8; FILE_HEADER_SIZE];
        let got = fill(&mut inner, &mut fixed, 0)?;
        // The fourcc is checked on whatever arrived, so that a short non-capture is named as
        // such rather than as a truncated capture.
        if got >= 4 && fixed[..4] != format::FOURCC {
            return Err(CaptureError::BadFourcc {
                found: fixed[..4].try_into().expect("4 bytes"),
            });
        }
        if got < FILE_HEADER_SIZE {
            return Err(CaptureError::TruncatedFileHeader {
                got: got as u64,
                need: FILE_HEADER_SIZE as u64,
            });
        }
        let mut c = Cursor::new(&fixed[4..]);
        let (major_version, minor_version, num_options) = (
            c.u32().expect("12 bytes"),
            c.u32().expect("12 bytes"),
            c.u32().expect("12 bytes"),
        );
        if major_version != format::SUPPORTED_MAJOR_VERSION {
            return Err(CaptureError::UnsupportedVersion {
                major: major_version,
                minor: minor_version,
            });
        }
        if num_options > MAX_FILE_OPTIONS {
            return Err(CaptureError::TooManyOptions {
                count: num_options,
                max: MAX_FILE_OPTIONS,
            });
        }
        let need = (FILE_HEADER_SIZE + num_options as usize * FILE_OPTION_SIZE) as u64;
        let mut options = Vec::with_capacity(num_options as usize);
        let mut compression = Compression::None;
        for i in 0..num_options as u64 {
            let mut pair = [0u8; FILE_OPTION_SIZE];
            let at = FILE_HEADER_SIZE as u64 + i * FILE_OPTION_SIZE as u64;
            let got = fill(&mut inner, &mut pair, at)?;
            if got < FILE_OPTION_SIZE {
                return Err(CaptureError::TruncatedFileHeader {
                    got: at + got as u64,
                    need,
                });
            }
            let mut c = Cursor::new(&pair);
            let (key, value) = (c.u32().expect("8 bytes"), c.u32().expect("8 bytes"));
            if key == FILE_OPTION_COMPRESSION_TYPE {
                compression = Compression::from_option(value)
                    .ok_or(CaptureError::UnknownCompression { value })?;
            }
            options.push((key, value));
        }
        // zlib is refused here, before any block, since no block of the file could be read.
        if compression == Compression::Zlib {
            return Err(CaptureError::UnsupportedCompression {
                name: compression.name(),
            });
        }
        let header = FileHeader {
            major_version,
            minor_version,
            compression,
            options,
        };
        Ok(Self {
            inner,
            pos: header.len(),
            header,
            len,
            next_index: 0,
            finished: false,
        })
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// The next block, `Ok(None)` at a clean end of file (the end falls exactly on a block
    /// boundary), or the first error. After an error or the end, always `Ok(None)`.
    pub fn next_block(&mut self) -> Result<Option<Block>, CaptureError> {
        if self.finished {
            return Ok(None);
        }
        let result = self.read_block();
        if !matches!(result, Ok(Some(_))) {
            self.finished = true;
        }
        result
    }

    fn read_block(&mut self) -> Result<Option<Block>, CaptureError> {
        let (index, offset) = (self.next_index, self.pos);
        let mut raw = [0u8; BLOCK_HEADER_SIZE];
        let got = fill(&mut self.inner, &mut raw, offset)?;
        if got == 0 {
            return Ok(None);
        }
        if got < BLOCK_HEADER_SIZE {
            return Err(CaptureError::TruncatedBlockHeader {
                index,
                offset,
                got: got as u64,
            });
        }
        let mut c = Cursor::new(&raw);
        let (size, block_type) = (c.u64().expect("12 bytes"), c.u32().expect("12 bytes"));
        let compressed = block_type & COMPRESSED_BLOCK_BIT != 0;
        let base = block_type & !COMPRESSED_BLOCK_BIT;
        let known = match base {
            FRAME_MARKER_BLOCK | STATE_MARKER_BLOCK | ANNOTATION_BLOCK => !compressed,
            META_DATA_BLOCK | FUNCTION_CALL_BLOCK | METHOD_CALL_BLOCK => true,
            _ => false,
        };
        if !known {
            return Err(CaptureError::UnknownBlockType {
                index,
                offset,
                block_type,
            });
        }
        if size > MAX_BLOCK_SIZE {
            return Err(CaptureError::BlockTooLarge {
                index,
                offset,
                size,
                cap: MAX_BLOCK_SIZE,
            });
        }
        let body_start = offset + BLOCK_HEADER_SIZE as u64;
        let reserve = match self.len {
            Some(len) => {
                let remaining = len.saturating_sub(body_start);
                if size > remaining {
                    return Err(CaptureError::BlockPastEnd {
                        index,
                        offset,
                        size,
                        remaining,
                    });
                }
                size
            }
            None => size.min(UNKNOWN_LENGTH_RESERVE),
        };
        // `reserve` is at most MAX_BLOCK_SIZE and, with a known length, at most what is left
        // of the file, so this allocation is bounded by checked numbers only.
        let mut body = Vec::with_capacity(reserve as usize);
        (&mut self.inner)
            .take(size)
            .read_to_end(&mut body)
            .map_err(|source| CaptureError::Io {
                offset: body_start + body.len() as u64,
                source,
            })?;
        if (body.len() as u64) < size {
            return Err(CaptureError::TruncatedBlock {
                index,
                offset,
                size,
                got: body.len() as u64,
            });
        }
        self.pos = body_start + size;
        self.next_index += 1;
        let at = At {
            index,
            offset,
            size,
            compression: self.header.compression,
        };
        let (kind, payload) = at.parse(base, compressed, &body)?;
        Ok(Some(Block {
            index,
            offset,
            size,
            compressed,
            kind,
            payload,
        }))
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<Block, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_block().transpose()
    }
}

impl<R: Read> std::iter::FusedIterator for CaptureReader<R> {}

/// Where a block is, for parsing its body and naming it in errors.
struct At {
    index: u64,
    offset: u64,
    size: u64,
    compression: Compression,
}

impl At {
    fn too_small(&self, what: &'static str, need: usize) -> CaptureError {
        CaptureError::BlockTooSmall {
            index: self.index,
            offset: self.offset,
            what,
            size: self.size,
            need: need as u64,
        }
    }

    /// Splits a body into its kind's fixed fields and payload.
    fn parse(
        &self,
        base: u32,
        compressed: bool,
        body: &[u8],
    ) -> Result<(BlockKind, Vec<u8>), CaptureError> {
        let mut c = Cursor::new(body);
        match base {
            FUNCTION_CALL_BLOCK => {
                let what = "function call header";
                let need = if compressed { 20 } else { 12 };
                let (Some(api_call_id), Some(thread_id)) = (c.u32(), c.u64()) else {
                    return Err(self.too_small(what, need));
                };
                let payload = self.parameters(&mut c, compressed, what, need)?;
                Ok((
                    BlockKind::FunctionCall {
                        api_call_id,
                        thread_id,
                    },
                    payload,
                ))
            }
            METHOD_CALL_BLOCK => {
                let what = "method call header";
                let need = if compressed { 28 } else { 20 };
                let (Some(api_call_id), Some(object_id), Some(thread_id)) =
                    (c.u32(), c.u64(), c.u64())
                else {
                    return Err(self.too_small(what, need));
                };
                let payload = self.parameters(&mut c, compressed, what, need)?;
                Ok((
                    BlockKind::MethodCall {
                        api_call_id,
                        object_id,
                        thread_id,
                    },
                    payload,
                ))
            }
            FRAME_MARKER_BLOCK | STATE_MARKER_BLOCK => {
                let (Some(marker_type), Some(frame_number)) = (c.u32(), c.u64()) else {
                    return Err(self.too_small("marker", 12));
                };
                let kind = if base == FRAME_MARKER_BLOCK {
                    BlockKind::FrameMarker {
                        marker_type,
                        frame_number,
                    }
                } else {
                    BlockKind::StateMarker {
                        marker_type,
                        frame_number,
                    }
                };
                Ok((kind, c.rest().to_vec()))
            }
            ANNOTATION_BLOCK => {
                let (Some(annotation_type), Some(label_length), Some(data_length)) =
                    (c.u32(), c.u32(), c.u64())
                else {
                    return Err(self.too_small("annotation header", 16));
                };
                let available = c.rest().len() as u64;
                if u64::from(label_length)
                    .checked_add(data_length)
                    .is_none_or(|n| n > available)
                {
                    return Err(CaptureError::BadAnnotation {
                        index: self.index,
                        offset: self.offset,
                        label_length,
                        data_length,
                        available,
                    });
                }
                Ok((
                    BlockKind::Annotation {
                        annotation_type,
                        label_length,
                        data_length,
                    },
                    c.rest().to_vec(),
                ))
            }
            META_DATA_BLOCK => {
                let Some(meta_data_id) = c.u32() else {
                    return Err(self.too_small("meta-data id", 4));
                };
                let kind = BlockKind::MetaData { meta_data_id };
                if !compressed {
                    return Ok((kind, c.rest().to_vec()));
                }
                // Compressed meta-data keeps its fixed fields plain and compresses only the data
                // after them, whose uncompressed size is the last fixed field. Only the layouts
                // below are known here; for FillMemory and InitBuffer both are 4 u64s.
                let meta_data_type = meta_data_id as u16;
                if !matches!(meta_data_type, META_FILL_MEMORY | META_INIT_BUFFER) {
                    return Err(CaptureError::UnsupportedCompressedMetaData {
                        index: self.index,
                        offset: self.offset,
                        meta_data_type,
                    });
                }
                let fixed_start = c.at;
                let (Some(_), Some(_), Some(_), Some(data_size)) =
                    (c.u64(), c.u64(), c.u64(), c.u64())
                else {
                    return Err(self.too_small("compressed meta-data header", 36));
                };
                let mut payload = body[fixed_start..c.at].to_vec();
                payload.extend_from_slice(&self.decompress(c.rest(), data_size)?);
                Ok((kind, payload))
            }
            _ => unreachable!("block types are checked before parsing"),
        }
    }

    /// The parameter buffer of a call block: the rest of the body, or for a compressed block
    /// an uncompressed size followed by the compressed bytes.
    fn parameters(
        &self,
        c: &mut Cursor<'_>,
        compressed: bool,
        what: &'static str,
        need: usize,
    ) -> Result<Vec<u8>, CaptureError> {
        if !compressed {
            return Ok(c.rest().to_vec());
        }
        let Some(uncompressed_size) = c.u64() else {
            return Err(self.too_small(what, need));
        };
        self.decompress(c.rest(), uncompressed_size)
    }

    /// Decodes `src` into exactly `claimed` bytes, refusing sizes no honest block has.
    fn decompress(&self, src: &[u8], claimed: u64) -> Result<Vec<u8>, CaptureError> {
        let (index, offset) = (self.index, self.offset);
        let bound = match self.compression {
            Compression::Lz4 => lz4_max_output(src.len() as u64).min(MAX_BLOCK_SIZE),
            // Zstandard's RLE blocks let a few bytes stand for 128 KiB, so no useful ratio
            // bound exists; the output is grown as it is decoded instead (below).
            Compression::Zstd => MAX_BLOCK_SIZE,
            Compression::None => {
                return Err(CaptureError::CompressedWithoutCompression { index, offset });
            }
            // Refused when the header was read; kept as an error rather than a panic.
            Compression::Zlib => {
                return Err(CaptureError::UnsupportedCompression {
                    name: self.compression.name(),
                });
            }
        };
        if claimed > bound {
            return Err(CaptureError::UncompressedSizeTooLarge {
                index,
                offset,
                claimed,
                compressed: src.len() as u64,
                bound,
            });
        }
        let corrupt = |detail: String| CaptureError::Decompress {
            index,
            offset,
            claimed,
            detail,
        };
        let out = match self.compression {
            Compression::Lz4 => {
                // The LZ4 block decoder needs its whole output buffer up front; `claimed` is
                // within 256 times the compressed bytes present, so this is bounded by the file.
                let mut out = vec![0u8; claimed as usize];
                let n = lz4_flex::block::decompress_into(src, &mut out)
                    .map_err(|e| corrupt(e.to_string()))?;
                out.truncate(n);
                out
            }
            _ => {
                // A zstd frame (GFXReconstruct calls ZSTD_compress) decoded as a stream, one byte
                // past the claim so that a longer output is caught, into a buffer that grows only
                // with bytes actually decoded.
                // The decoder reserves the frame's window size up front, so the frame header is
                // checked against the claim first (see `zstd_frame_check`).
                zstd_frame_check(src, claimed).map_err(corrupt)?;
                let mut input = src;
                let decoder = ruzstd::decoding::StreamingDecoder::new(&mut input)
                    .map_err(|e| corrupt(e.to_string()))?;
                let mut out = Vec::with_capacity(claimed.min(UNKNOWN_LENGTH_RESERVE) as usize);
                decoder
                    .take(claimed + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| corrupt(e.to_string()))?;
                out
            }
        };
        if out.len() as u64 != claimed {
            return Err(corrupt(format!("decoded to {} bytes", out.len())));
        }
        Ok(out)
    }
}

/// Checks a Zstandard frame header (RFC 8878, section 3.1.1.1) against a block's claimed
/// uncompressed size before the decoder sees it.
///
/// The decoder reserves the frame's window size before decoding anything, and that size is
/// just a number in the file. `ZSTD_compress` with a known source size (as GFXReconstruct calls
/// it) writes the content size and shrinks the window to the smallest power of two (at least
/// 1 KiB) that holds the source, or uses the content size itself as the window of a
/// single-segment frame. So an honest frame's content size equals the claim and its window is
/// at most the claim rounded up to a power of two; anything else is refused here, which keeps
/// the reservation within twice the (capped) claim.
fn zstd_frame_check(src: &[u8], claimed: u64) -> Result<(), String> {
    const MAGIC: u32 = 0xFD2F_B528;
    let mut c = Cursor::new(src);
    let magic = c.u32().ok_or("no zstd frame header")?;
    if magic != MAGIC {
        return Err(format!("zstd frame magic 0x{magic:08x}, not 0x{MAGIC:08x}"));
    }
    let [descriptor] = c.take::<1>().ok_or("truncated zstd frame header")?;
    let single_segment = descriptor & 0x20 != 0;
    let window = if single_segment {
        None
    } else {
        let [wd] = c.take::<1>().ok_or("truncated zstd frame header")?;
        let base = 1u64 << (10 + (wd >> 3));
        Some(base + (base / 8) * u64::from(wd & 7))
    };
    if descriptor & 0x03 != 0 {
        return Err("zstd frame needs a dictionary".to_owned());
    }
    let content_size = match (descriptor >> 6, single_segment) {
        (0, false) => None,
        (0, true) => c.take::<1>().map(|[b]| u64::from(b)),
        (1, _) => c
            .take::<2>()
            .map(|b| u64::from(u16::from_le_bytes(b)) + 256),
        (2, _) => c.u32().map(u64::from),
        _ => c.u64(),
    };
    let content_size = match (descriptor >> 6, single_segment, content_size) {
        (0, false, _) => None,
        (_, _, None) => return Err("truncated zstd frame header".to_owned()),
        (_, _, Some(n)) => Some(n),
    };
    if let Some(n) = content_size
        && n != claimed
    {
        return Err(format!("zstd frame content size {n}"));
    }
    let window = window.or(content_size).unwrap_or(0);
    let allowed = claimed.max(1024).next_power_of_two();
    if window > allowed {
        return Err(format!("zstd window of {window} bytes"));
    }
    Ok(())
}

/// Reads a whole in-memory capture: its header and every block, or the first error.
pub fn read_all(bytes: &[u8]) -> Result<(FileHeader, Vec<Block>), CaptureError> {
    let mut reader = CaptureReader::from_slice(bytes)?;
    let header = reader.header().clone();
    let blocks = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((header, blocks))
}
