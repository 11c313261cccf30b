//! The trace's JSON shape, as serde structs mirroring docs/TRACE_FORMAT.md. Every struct denies
//! unknown fields (a typo must not be silently ignored).
//!
//! Commands and timeline operations are *flat* structs (every field of every command, each
//! optional) rather than a serde enum tagged by `cmd`: serde buffers an internally tagged enum
//! before deserializing it, which loses the position of a bad field. Flat structs keep serde's
//! line and column on every type error; the loader then checks which fields each `cmd` allows.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::sync::{AccessFlags2, PipelineStageFlags2};

/// A size in bytes, or `"WHOLE_SIZE"` (VK_WHOLE_SIZE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// A byte count.
    Bytes(u64),
    /// VK_WHOLE_SIZE.
    Whole,
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte count (a non-negative integer) or \"WHOLE_SIZE\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                Ok(Size::Bytes(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                u64::try_from(v).map(Size::Bytes).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                match v {
                    "WHOLE_SIZE" | "VK_WHOLE_SIZE" => Ok(Size::Whole),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// An id, or an object with an id and more (queues, semaphores).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Declared<T> {
    /// Just the id.
    Id(String),
    /// The full form.
    Full(T),
}

/// The whole trace.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    /// Format version: 1.
    pub gpusim_trace: u64,
    /// Name for reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text for people; ignored.
    #[serde(default)]
    pub description: Option<String>,
    /// VkDeviceMemory allocations.
    #[serde(default)]
    pub memory: Vec<Memory>,
    /// Buffers.
    #[serde(default)]
    pub buffers: Vec<Buffer>,
    /// Images, bound to memory (placed with the profile's tiling).
    #[serde(default)]
    pub images: Vec<Image>,
    /// Samplers.
    #[serde(default)]
    pub samplers: Vec<Sampler>,
    /// Shaders.
    #[serde(default)]
    pub shaders: Vec<Shader>,
    /// Event ids.
    #[serde(default)]
    pub events: Vec<String>,
    /// Semaphores.
    #[serde(default)]
    pub semaphores: Vec<Declared<SemaphoreDecl>>,
    /// Fence ids.
    #[serde(default)]
    pub fences: Vec<String>,
    /// Queues (default: one queue `q0`).
    #[serde(default)]
    pub queues: Option<Vec<Declared<QueueDecl>>>,
    /// Command buffers.
    #[serde(default)]
    pub command_buffers: Vec<CommandBuffer>,
    /// Host operations and submissions.
    #[serde(default)]
    pub timeline: Vec<TimelineOp>,
}

/// A queue in full form.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueDecl {
    /// Id.
    pub id: String,
    /// Queue family index (informational: the engine has one family; its capabilities come from
    /// `flags`).
    #[serde(default)]
    pub family: Option<u32>,
    /// VkQueueFlags names (GRAPHICS, COMPUTE, TRANSFER, ...): what may be submitted to the
    /// queue. None given: all three.
    #[serde(default)]
    pub flags: Option<serde_json::Value>,
}

/// A semaphore in full form.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemaphoreDecl {
    /// Id.
    pub id: String,
    /// BINARY or TIMELINE.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Timeline semaphores' initial value.
    #[serde(default)]
    pub initial_value: Option<u64>,
}

/// An image bound to memory (`VkImageCreateInfo` in snake_case, plus the binding).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// Id.
    pub id: String,
    /// The memory it is bound to.
    pub memory: String,
    /// Offset of the binding in the memory.
    pub offset: u64,
    /// `1D`, `2D` (default) or `3D`.
    #[serde(default)]
    pub image_type: Option<String>,
    /// The texel format (`R8G8B8A8_UNORM`).
    pub format: String,
    /// Width, height, depth.
    pub extent: Vec<u32>,
    /// Mip levels (default 1).
    #[serde(default)]
    pub mip_levels: Option<u32>,
    /// Array layers (default 1).
    #[serde(default)]
    pub array_layers: Option<u32>,
    /// Samples per texel (default 1).
    #[serde(default)]
    pub samples: Option<u32>,
    /// `OPTIMAL` (default) or `LINEAR`.
    #[serde(default)]
    pub tiling: Option<String>,
    /// VkImageUsageFlags names.
    #[serde(default)]
    pub usage: Option<Flags>,
    /// `UNDEFINED` (default) or `PREINITIALIZED`.
    #[serde(default)]
    pub initial_layout: Option<String>,
    /// VkImageCreateFlags names.
    #[serde(default)]
    pub flags: Option<Flags>,
}

/// A sampler (`VkSamplerCreateInfo` in snake_case).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampler {
    /// Id.
    pub id: String,
    /// NEAREST (default) or LINEAR.
    #[serde(default)]
    pub mag_filter: Option<String>,
    /// NEAREST (default) or LINEAR.
    #[serde(default)]
    pub min_filter: Option<String>,
    /// NEAREST (default) or LINEAR.
    #[serde(default)]
    pub mipmap_mode: Option<String>,
    /// REPEAT (default), MIRRORED_REPEAT, CLAMP_TO_EDGE, CLAMP_TO_BORDER, MIRROR_CLAMP_TO_EDGE.
    #[serde(default)]
    pub address_mode_u: Option<String>,
    /// As `address_mode_u`.
    #[serde(default)]
    pub address_mode_v: Option<String>,
    /// As `address_mode_u`.
    #[serde(default)]
    pub address_mode_w: Option<String>,
    /// Added to the level of detail (default 0).
    #[serde(default)]
    pub mip_lod_bias: Option<f64>,
    /// Lowest level of detail (default 0).
    #[serde(default)]
    pub min_lod: Option<f64>,
    /// Highest level of detail (default VK_LOD_CLAMP_NONE, 1000).
    #[serde(default)]
    pub max_lod: Option<f64>,
    /// FLOAT_TRANSPARENT_BLACK (default), INT_TRANSPARENT_BLACK, FLOAT_OPAQUE_BLACK, ...
    #[serde(default)]
    pub border_color: Option<String>,
    /// Anisotropic filtering (only false is accepted).
    #[serde(default)]
    pub anisotropy_enable: Option<bool>,
    /// Ignored unless `anisotropy_enable`.
    #[serde(default)]
    pub max_anisotropy: Option<f32>,
    /// Depth comparison (only false is accepted).
    #[serde(default)]
    pub compare_enable: Option<bool>,
    /// Ignored unless `compare_enable`.
    #[serde(default)]
    pub compare_op: Option<String>,
    /// Unnormalized coordinates (only false is accepted).
    #[serde(default)]
    pub unnormalized_coordinates: Option<bool>,
}

/// A memory allocation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Id.
    pub id: String,
    /// Size in bytes.
    pub size: u64,
    /// VkMemoryPropertyFlags.
    pub properties: Flags,
    /// Whether final contents are compared with the reference run (default true).
    #[serde(default)]
    pub compare: Option<bool>,
}

/// Flag names as a string `A|B` or an array of names (parsed later, by the right vocabulary).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Flags {
    /// `A|B`.
    Text(String),
    /// `["A", "B"]`.
    List(Vec<String>),
}

impl Flags {
    /// The names joined by `|`.
    pub fn joined(&self) -> String {
        match self {
            Flags::Text(t) => t.clone(),
            Flags::List(l) => l.join("|"),
        }
    }
}

/// A buffer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// Id.
    pub id: String,
    /// The memory it is bound to.
    pub memory: String,
    /// Offset of the binding (default 0).
    #[serde(default)]
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// VkBufferUsageFlags (checked for known names).
    #[serde(default)]
    pub usage: Option<Flags>,
    /// `false` leaves the buffer's memory object out of the final comparison.
    #[serde(default)]
    pub compare: Option<bool>,
    /// Its bytes are texels: how `--pictures` shows them.
    #[serde(default)]
    pub image_view: Option<BufferImageView>,
}

/// A buffer's bytes seen as texels, laid out as a buffer-image copy lays them out.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferImageView {
    /// A colour format (`R8G8B8A8_UNORM`).
    pub format: String,
    /// Width and height in texels.
    pub extent: Vec<u32>,
    /// Texels from a row to the next (default, or 0: the width), as `buffer_row_length`.
    #[serde(default)]
    pub row_length: Option<u32>,
}

/// A shader.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shader {
    /// Id.
    pub id: String,
    /// Shader stage (COMPUTE is the only one the engine runs).
    #[serde(default)]
    pub stage: Option<String>,
    /// Entry point (default `main`).
    #[serde(default)]
    pub entry_point: Option<String>,
    /// Inline WGSL.
    #[serde(default)]
    pub wgsl: Option<String>,
    /// WGSL file, relative to the trace.
    #[serde(default)]
    pub wgsl_file: Option<String>,
    /// SPIR-V file, relative to the trace.
    #[serde(default)]
    pub spirv_file: Option<String>,
    /// GLSL file, relative to the trace.
    #[serde(default)]
    pub glsl_file: Option<String>,
    /// Inline GLSL (extension).
    #[serde(default)]
    pub glsl: Option<String>,
}

/// A command buffer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandBuffer {
    /// Id.
    pub id: String,
    /// VkCommandBufferUsageFlags (ONE_TIME_SUBMIT, SIMULTANEOUS_USE).
    #[serde(default)]
    pub usage: Option<Flags>,
    /// Commands.
    #[serde(default)]
    pub commands: Vec<Cmd>,
}

/// A global memory barrier: the four masks (sync2), or only the access masks (sync1 shape).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Barrier {
    /// srcStageMask.
    #[serde(default)]
    pub src_stage_mask: Option<PipelineStageFlags2>,
    /// srcAccessMask.
    #[serde(default)]
    pub src_access_mask: Option<AccessFlags2>,
    /// dstStageMask.
    #[serde(default)]
    pub dst_stage_mask: Option<PipelineStageFlags2>,
    /// dstAccessMask.
    #[serde(default)]
    pub dst_access_mask: Option<AccessFlags2>,
}

/// A buffer memory barrier.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferBarrier {
    /// srcStageMask.
    #[serde(default)]
    pub src_stage_mask: Option<PipelineStageFlags2>,
    /// srcAccessMask.
    #[serde(default)]
    pub src_access_mask: Option<AccessFlags2>,
    /// dstStageMask.
    #[serde(default)]
    pub dst_stage_mask: Option<PipelineStageFlags2>,
    /// dstAccessMask.
    #[serde(default)]
    pub dst_access_mask: Option<AccessFlags2>,
    /// srcQueueFamilyIndex (ownership transfers are not modelled; must be absent or equal).
    #[serde(default)]
    pub src_queue_family_index: Option<serde_json::Value>,
    /// dstQueueFamilyIndex.
    #[serde(default)]
    pub dst_queue_family_index: Option<serde_json::Value>,
    /// The buffer.
    pub buffer: String,
    /// Offset (default 0).
    #[serde(default)]
    pub offset: u64,
    /// Size (default WHOLE_SIZE).
    #[serde(default)]
    pub size: Option<Size>,
}

/// A VkImageMemoryBarrier2.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageBarrier {
    /// srcStageMask.
    #[serde(default)]
    pub src_stage_mask: Option<PipelineStageFlags2>,
    /// srcAccessMask.
    #[serde(default)]
    pub src_access_mask: Option<AccessFlags2>,
    /// dstStageMask.
    #[serde(default)]
    pub dst_stage_mask: Option<PipelineStageFlags2>,
    /// dstAccessMask.
    #[serde(default)]
    pub dst_access_mask: Option<AccessFlags2>,
    /// srcQueueFamilyIndex (ownership transfers are not modelled; must be absent or equal).
    #[serde(default)]
    pub src_queue_family_index: Option<serde_json::Value>,
    /// dstQueueFamilyIndex.
    #[serde(default)]
    pub dst_queue_family_index: Option<serde_json::Value>,
    /// oldLayout.
    pub old_layout: String,
    /// newLayout.
    pub new_layout: String,
    /// The image.
    pub image: String,
    /// The subresources (default: all of them).
    #[serde(default)]
    pub subresource_range: Option<SubresourceRange>,
}

/// A VkImageSubresourceRange.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubresourceRange {
    /// COLOR, DEPTH, STENCIL (`|`-joined or a list).
    pub aspect_mask: Flags,
    /// First level (default 0).
    #[serde(default)]
    pub base_mip_level: u32,
    /// Levels (default, or `"WHOLE_SIZE"`: the rest, as VK_REMAINING_MIP_LEVELS).
    #[serde(default)]
    pub level_count: Option<Size>,
    /// First layer (default 0).
    #[serde(default)]
    pub base_array_layer: u32,
    /// Layers (default, or `"WHOLE_SIZE"`: the rest, as VK_REMAINING_ARRAY_LAYERS).
    #[serde(default)]
    pub layer_count: Option<Size>,
}

/// A VkImageSubresourceLayers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubresourceLayers {
    /// COLOR, DEPTH or STENCIL.
    pub aspect_mask: Flags,
    /// The level.
    #[serde(default)]
    pub mip_level: u32,
    /// First layer (default 0).
    #[serde(default)]
    pub base_array_layer: u32,
    /// Layers (default 1).
    #[serde(default)]
    pub layer_count: Option<u32>,
}

/// A clear colour: exactly one of the three.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearColor {
    /// For UNORM, SRGB and SFLOAT formats.
    #[serde(default)]
    pub float32: Option<[f32; 4]>,
    /// For UINT formats.
    #[serde(default)]
    pub uint32: Option<[u32; 4]>,
    /// For SINT formats.
    #[serde(default)]
    pub int32: Option<[i32; 4]>,
}

/// A VkClearDepthStencilValue.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearDepthStencil {
    /// Depth, 0..=1.
    pub depth: f32,
    /// Stencil (default 0).
    #[serde(default)]
    pub stencil: u32,
}

/// A VkDependencyInfo.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dependency {
    /// dependencyFlags (BY_REGION, ...): accepted, no effect on a compute-only engine.
    #[serde(default)]
    pub dependency_flags: Option<Flags>,
    /// Global memory barriers.
    #[serde(default)]
    pub memory_barriers: Vec<Barrier>,
    /// Buffer memory barriers.
    #[serde(default)]
    pub buffer_memory_barriers: Vec<BufferBarrier>,
    /// Image memory barriers.
    #[serde(default)]
    pub image_memory_barriers: Vec<ImageBarrier>,
}

/// A region of a copy: a buffer copy's (`src_offset`, `dst_offset`, `size`) or a buffer-image
/// copy's (`buffer_offset`, `buffer_row_length`, `buffer_image_height`, `image_subresource`,
/// `image_offset`, `image_extent`); the command checks which fields it was given.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// srcOffset: bytes (a buffer copy) or texels (an image copy).
    #[serde(default)]
    pub src_offset: Option<Offset>,
    /// dstOffset, as `src_offset`.
    #[serde(default)]
    pub dst_offset: Option<Offset>,
    /// srcSubresource (an image copy).
    #[serde(default)]
    pub src_subresource: Option<SubresourceLayers>,
    /// dstSubresource (an image copy).
    #[serde(default)]
    pub dst_subresource: Option<SubresourceLayers>,
    /// extent (an image copy).
    #[serde(default)]
    pub extent: Option<[u32; 3]>,
    /// size.
    #[serde(default)]
    pub size: Option<u64>,
    /// bufferOffset.
    #[serde(default)]
    pub buffer_offset: Option<u64>,
    /// bufferRowLength (0: tightly packed).
    #[serde(default)]
    pub buffer_row_length: Option<u32>,
    /// bufferImageHeight (0: tightly packed).
    #[serde(default)]
    pub buffer_image_height: Option<u32>,
    /// imageSubresource.
    #[serde(default)]
    pub image_subresource: Option<SubresourceLayers>,
    /// imageOffset.
    #[serde(default)]
    pub image_offset: Option<[u32; 3]>,
    /// imageExtent.
    #[serde(default)]
    pub image_extent: Option<[u32; 3]>,
    /// srcOffsets (a blit): the source box's two corners.
    #[serde(default)]
    pub src_offsets: Option<[[i64; 3]; 2]>,
    /// dstOffsets (a blit).
    #[serde(default)]
    pub dst_offsets: Option<[[i64; 3]; 2]>,
}

/// A copy region's offset: a byte count (VkBufferCopy) or a texel (VkImageCopy's x, y, z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Offset {
    /// Bytes.
    Bytes(u64),
    /// A texel.
    Texel([u32; 3]),
}

/// A descriptor binding of a dispatch.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// Descriptor set (default 0).
    #[serde(default)]
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// The buffer bound.
    #[serde(default)]
    pub buffer: Option<String>,
    /// An image viewed.
    #[serde(default)]
    pub image: Option<String>,
    /// Image layout (images only).
    #[serde(default)]
    pub layout: Option<String>,
    /// A sampler (a sampler alone, or with `image` a combined image sampler).
    #[serde(default)]
    pub sampler: Option<String>,
    /// The subresources an image binding views (default: the whole image).
    #[serde(default)]
    pub subresource_range: Option<SubresourceRange>,
    /// The view's type (`2D`, `2D_ARRAY`, ...; default from the image and the shader).
    #[serde(default)]
    pub view_type: Option<String>,
    /// The view's format (only the image's own format is accepted).
    #[serde(default)]
    pub format: Option<String>,
    /// Offset (default 0).
    #[serde(default)]
    pub offset: u64,
    /// Range (default WHOLE_SIZE).
    #[serde(default)]
    pub range: Option<Size>,
    /// STORAGE_BUFFER, UNIFORM_BUFFER, SAMPLED_IMAGE, STORAGE_IMAGE, COMBINED_IMAGE_SAMPLER or
    /// SAMPLER; checked against the shader.
    #[serde(default)]
    pub descriptor_type: Option<String>,
}

/// One command, flat: `cmd` says which fields apply.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Cmd {
    /// The command (`fill_buffer`, `dispatch`, ...).
    pub cmd: String,
    pub dst_buffer: Option<String>,
    pub src_buffer: Option<String>,
    pub dst_offset: Option<u64>,
    pub size: Option<Size>,
    pub data: Option<u32>,
    pub data_u32: Option<Vec<u32>>,
    pub data_f32: Option<Vec<f32>>,
    pub data_hex: Option<String>,
    pub data_file: Option<String>,
    pub regions: Option<Vec<Region>>,
    pub src_stage_mask: Option<PipelineStageFlags2>,
    pub dst_stage_mask: Option<PipelineStageFlags2>,
    pub dependency_flags: Option<Flags>,
    pub memory_barriers: Option<Vec<Barrier>>,
    pub buffer_memory_barriers: Option<Vec<BufferBarrier>>,
    pub image_memory_barriers: Option<Vec<ImageBarrier>>,
    pub src_image: Option<String>,
    pub dst_image: Option<String>,
    pub src_image_layout: Option<String>,
    pub dst_image_layout: Option<String>,
    pub image: Option<String>,
    pub image_layout: Option<String>,
    pub color: Option<ClearColor>,
    pub depth_stencil: Option<ClearDepthStencil>,
    pub ranges: Option<Vec<SubresourceRange>>,
    pub shader: Option<String>,
    pub group_count: Option<[u32; 3]>,
    pub base_group: Option<[u32; 3]>,
    pub bindings: Option<Vec<Binding>>,
    pub push_constants_u32: Option<Vec<u32>>,
    pub push_constants_f32: Option<Vec<f32>>,
    pub push_constants_hex: Option<String>,
    pub event: Option<String>,
    pub events: Option<Vec<String>>,
    pub dependency: Option<Dependency>,
    pub dependencies: Option<Vec<Dependency>>,
    pub stage_mask: Option<PipelineStageFlags2>,
    pub filter: Option<String>,
}

/// A semaphore wait of a submission.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemaphoreWait {
    /// The semaphore.
    pub semaphore: String,
    /// Stages that wait (default ALL_COMMANDS).
    #[serde(default)]
    pub stage_mask: Option<PipelineStageFlags2>,
    /// Timeline value (timeline semaphores only).
    #[serde(default)]
    pub value: Option<u64>,
}

/// A batch of a vkQueueSubmit2.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// Command buffers.
    #[serde(default)]
    pub command_buffers: Vec<String>,
    /// Waits.
    #[serde(default)]
    pub wait_semaphores: Vec<SemaphoreWait>,
    /// Signals.
    #[serde(default)]
    pub signal_semaphores: Vec<Declared<SemaphoreWait>>,
}

/// A VkMappedMemoryRange.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// The memory.
    pub memory: String,
    /// Offset (default 0).
    #[serde(default)]
    pub offset: u64,
    /// Size (default WHOLE_SIZE).
    #[serde(default)]
    pub size: Option<Size>,
}

/// One timeline entry, flat: `op` says which fields apply.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TimelineOp {
    /// The operation (`queue_submit`, `host_write`, ...).
    pub op: String,
    pub queue: Option<String>,
    pub command_buffers: Option<Vec<String>>,
    pub wait_semaphores: Option<Vec<SemaphoreWait>>,
    pub signal_semaphores: Option<Vec<Declared<SemaphoreWait>>>,
    pub batches: Option<Vec<Batch>>,
    pub fence: Option<String>,
    pub fences: Option<Vec<String>>,
    pub wait_all: Option<bool>,
    pub timeout: Option<u64>,
    pub memory: Option<String>,
    pub offset: Option<u64>,
    pub size: Option<Size>,
    pub data_u32: Option<Vec<u32>>,
    pub data_f32: Option<Vec<f32>>,
    pub data_hex: Option<String>,
    pub data_file: Option<String>,
    pub expect_u32: Option<Vec<u32>>,
    pub expect_f32: Option<Vec<f32>>,
    pub expect_hex: Option<String>,
    pub expect_file: Option<String>,
    pub label: Option<String>,
    pub ranges: Option<Vec<Range>>,
    pub event: Option<String>,
    pub semaphore: Option<String>,
    pub semaphores: Option<Vec<SemaphoreWait>>,
    pub value: Option<u64>,
}
