//! The constants of the `.gfxr` file format, as `framework/format/format.h` defines them.
//!
//! Everything is little-endian and packed to 4 bytes (`#pragma pack(4)`), so a block header is
//! 12 bytes (a `u64` size then a `u32` type), not 16. The layout is:
//!
//! ```text
//! file header   fourcc "GFXR" | major u32 | minor u32 | num_options u32
//! options       num_options x (key u32, value u32)      key 1 = compression type
//! blocks        size u64 | type u32 | `size` bytes of body
//! ```
//!
//! The high bit of a block type marks a body whose trailing data is compressed with the
//! file's compression type; only meta-data, function-call and method-call blocks have
//! compressed variants. The limits at the bottom are this reader's own: they exist so that no
//! number read from a file can make it allocate more than it can check.

/// The first four bytes of every capture.
pub const FOURCC: [u8; 4] = *b"GFXR";
/// The only file-format major version this reader understands. GFXReconstruct 0.9.18 writes
/// 0.0 and current releases 0.1 (0.1 only changes how frame boundaries are inferred, not the
/// block layout), so every 0.x file has the same blocks.
pub const SUPPORTED_MAJOR_VERSION: u32 = 0;
/// Bytes in the fixed part of the file header.
pub const FILE_HEADER_SIZE: usize = 16;
/// Bytes in one file option (key, value).
pub const FILE_OPTION_SIZE: usize = 8;
/// Bytes in a block header (`size` u64, `type` u32, packed).
pub const BLOCK_HEADER_SIZE: usize = 12;

/// File option key: the compression type of the capture's compressed blocks.
pub const FILE_OPTION_COMPRESSION_TYPE: u32 = 1;

/// The bit a block type carries when its trailing data is compressed.
pub const COMPRESSED_BLOCK_BIT: u32 = 0x8000_0000;
/// Block type: a frame begin/end marker.
pub const FRAME_MARKER_BLOCK: u32 = 1;
/// Block type: a state-snapshot begin/end marker.
pub const STATE_MARKER_BLOCK: u32 = 2;
/// Block type: a meta-data command (memory fills, device properties, ...).
pub const META_DATA_BLOCK: u32 = 3;
/// Block type: an API function call with its encoded parameters.
pub const FUNCTION_CALL_BLOCK: u32 = 4;
/// Block type: an annotation (a label and text, JSON or XML data).
pub const ANNOTATION_BLOCK: u32 = 5;
/// Block type: a method call on an object (D3D12 and DXGI only).
pub const METHOD_CALL_BLOCK: u32 = 6;

/// Meta-data type: a write of host-mapped memory (memory id, offset, size, bytes).
pub const META_FILL_MEMORY: u16 = 2;
/// Meta-data type: the initial contents of a buffer in a state snapshot.
pub const META_INIT_BUFFER: u16 = 7;

/// The names of the meta-data types of `MetaDataType` in format.h, by number.
const META_DATA_TYPE_NAMES: &[&str] = &[
    "Unknown",
    "DisplayMessage",
    "FillMemory",
    "ResizeWindow",
    "SetSwapchainImageState",
    "BeginResourceInit",
    "EndResourceInit",
    "InitBuffer",
    "InitImage",
    "CreateHardwareBuffer_deprecated",
    "DestroyHardwareBuffer",
    "SetDeviceProperties",
    "SetDeviceMemoryProperties",
    "ResizeWindow2",
    "SetOpaqueAddress",
    "SetRayTracingShaderGroupHandles",
    "CreateHeapAllocation",
    "InitSubresource",
    "ExeFileInfo",
    "InitDx12AccelerationStructure_deprecated",
    "FillMemoryResourceValue",
    "DxgiAdapterInfo",
    "DriverInfo",
    "Reserved23",
    "CreateHardwareBuffer_deprecated2",
    "Reserved25",
    "Dx12RuntimeInfo",
    "ParentToChildDependency",
    "VulkanBuildAccelerationStructures",
    "VulkanCopyAccelerationStructures",
    "VulkanWriteAccelerationStructuresProperties",
    "Reserved31",
    "SetEnvironmentVariables",
    "ViewRelativeLocation",
    "ExecuteBlocksFromFile",
    "CreateHardwareBuffer",
    "InitializeMeta",
    "SetOpaqueCaptureDescriptorData",
    "InitDx12AccelerationStructure2",
    "InitTensor",
];

/// The name of a meta-data type (the low half of a meta-data id), or `None` for a number
/// this table does not know.
pub fn meta_data_type_name(meta_data_type: u16) -> Option<&'static str> {
    META_DATA_TYPE_NAMES
        .get(usize::from(meta_data_type))
        .copied()
}

/// How a capture's compressed blocks are compressed (file option 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// No compression: the file has no compressed blocks.
    None,
    /// LZ4 block format (`LZ4_compress_fast` / `LZ4_decompress_safe`, no frame header).
    Lz4,
    /// zlib; not read by this crate (captures are refused with the type's name).
    Zlib,
    /// Zstandard frames (`ZSTD_compress`), one per compressed block.
    Zstd,
}

impl Compression {
    /// The compression type a file option value names, or `None` for an unknown value.
    pub fn from_option(value: u32) -> Option<Self> {
        match value {
            0 => Some(Self::None),
            1 => Some(Self::Lz4),
            2 => Some(Self::Zlib),
            3 => Some(Self::Zstd),
            _ => None,
        }
    }

    /// The name `gfxrecon-compress` uses for this compression type.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "NONE",
            Self::Lz4 => "LZ4",
            Self::Zlib => "ZLIB",
            Self::Zstd => "ZSTD",
        }
    }
}

/// The largest block body this reader accepts. GFXReconstruct's own blocks are bounded by the
/// largest parameter buffer or memory fill an application makes; gpusim's workloads are far
/// below this, and a larger number in a file is taken as corruption rather than allocated.
pub const MAX_BLOCK_SIZE: u64 = 256 * 1024 * 1024;

/// The most file options a header may declare. Releases write one; the cap only keeps a
/// corrupt count from making the reader loop over billions of options.
pub const MAX_FILE_OPTIONS: u32 = 1024;

/// The largest output an LZ4 block of `compressed_len` bytes can decode to. LZ4's best case
/// is a run of 255-valued match-length bytes, each worth 255 output bytes, so no honest block
/// expands by more than 255 times (plus a few bytes of the final literals); the margin here is
/// generous. A block claiming more is lying about its uncompressed size, which is then refused
/// before anything is allocated for it.
pub fn lz4_max_output(compressed_len: u64) -> u64 {
    compressed_len.saturating_mul(256).saturating_add(64)
}
