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
    /// Render passes.
    #[serde(default)]
    pub render_passes: Vec<RenderPass>,
    /// Framebuffers.
    #[serde(default)]
    pub framebuffers: Vec<Framebuffer>,
    /// Graphics pipelines (compute shaders are `shaders`, named by `dispatch`).
    #[serde(default)]
    pub pipelines: Vec<Pipeline>,
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
    /// Shader stage: COMPUTE (the default), VERTEX or FRAGMENT.
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
    pub render_pass: Option<String>,
    pub framebuffer: Option<String>,
    pub render_area: Option<Rect>,
    pub clear_values: Option<Vec<Option<ClearValue>>>,
    pub layer_count: Option<u32>,
    pub color_attachments: Option<Vec<Option<RenderingAttachment>>>,
    pub depth_attachment: Option<RenderingAttachment>,
    pub stencil_attachment: Option<RenderingAttachment>,
    pub first_binding: Option<u32>,
    pub buffers: Option<Vec<String>>,
    pub offsets: Option<Vec<u64>>,
    pub buffer: Option<String>,
    pub offset: Option<u64>,
    pub index_type: Option<String>,
    pub viewport: Option<Viewport>,
    pub scissor: Option<Rect>,
    pub pipeline: Option<String>,
    pub vertex_count: Option<u32>,
    pub instance_count: Option<u32>,
    pub first_vertex: Option<u32>,
    pub first_instance: Option<u32>,
    pub index_count: Option<u32>,
    pub first_index: Option<u32>,
    pub vertex_offset: Option<i32>,
    pub draw_count: Option<u32>,
    pub stride: Option<u32>,
    pub attachments: Option<Vec<ClearAttachment>>,
    pub rects: Option<Vec<ClearRect>>,
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

/// An attachment index, or `"UNUSED"` (VK_ATTACHMENT_UNUSED).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachmentIndex {
    /// An index into the render pass's attachments.
    Index(u32),
    /// VK_ATTACHMENT_UNUSED.
    Unused,
}

impl<'de> Deserialize<'de> for AttachmentIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AttachmentIndex, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AttachmentIndex;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an attachment index (a non-negative integer) or \"UNUSED\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<AttachmentIndex, E> {
                u32::try_from(v).map(AttachmentIndex::Index).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AttachmentIndex, E> {
                u32::try_from(v).map(AttachmentIndex::Index).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AttachmentIndex, E> {
                match v {
                    "UNUSED" | "VK_ATTACHMENT_UNUSED" => Ok(AttachmentIndex::Unused),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A subpass index, or `"EXTERNAL"` (VK_SUBPASS_EXTERNAL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubpassIndex {
    /// A subpass of the render pass.
    Index(u32),
    /// VK_SUBPASS_EXTERNAL.
    External,
}

impl<'de> Deserialize<'de> for SubpassIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SubpassIndex, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = SubpassIndex;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a subpass index (a non-negative integer) or \"EXTERNAL\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SubpassIndex, E> {
                u32::try_from(v).map(SubpassIndex::Index).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<SubpassIndex, E> {
                u32::try_from(v).map(SubpassIndex::Index).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SubpassIndex, E> {
                match v {
                    "EXTERNAL" | "VK_SUBPASS_EXTERNAL" => Ok(SubpassIndex::External),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A `VkRenderPass` (`VkRenderPassCreateInfo` in snake_case).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderPass {
    /// Id.
    pub id: String,
    /// The attachments.
    #[serde(default)]
    pub attachments: Vec<AttachmentDescription>,
    /// The subpasses (at least one).
    #[serde(default)]
    pub subpasses: Vec<Subpass>,
    /// The explicit dependencies.
    #[serde(default)]
    pub dependencies: Vec<SubpassDependency>,
}

/// A `VkAttachmentDescription`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentDescription {
    /// Its format.
    pub format: String,
    /// Samples (default 1, the only value accepted).
    #[serde(default)]
    pub samples: Option<u32>,
    /// LOAD, CLEAR, DONT_CARE or NONE.
    pub load_op: String,
    /// STORE, DONT_CARE or NONE.
    pub store_op: String,
    /// As `load_op`, for the stencil aspect (default DONT_CARE).
    #[serde(default)]
    pub stencil_load_op: Option<String>,
    /// As `store_op`, for the stencil aspect (default DONT_CARE).
    #[serde(default)]
    pub stencil_store_op: Option<String>,
    /// The layout at the start of the render pass.
    pub initial_layout: String,
    /// The layout the render pass leaves the attachment in.
    pub final_layout: String,
}

/// A `VkAttachmentReference`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentReference {
    /// The attachment, or `"UNUSED"`.
    pub attachment: AttachmentIndex,
    /// The layout during the subpass (required unless the reference is unused).
    #[serde(default)]
    pub layout: Option<String>,
}

/// A `VkSubpassDescription`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subpass {
    /// Colour attachments, by fragment output location.
    #[serde(default)]
    pub color_attachments: Vec<AttachmentReference>,
    /// The depth/stencil attachment.
    #[serde(default)]
    pub depth_stencil_attachment: Option<AttachmentReference>,
    /// Input attachments, by input attachment index.
    #[serde(default)]
    pub input_attachments: Vec<AttachmentReference>,
    /// Attachments preserved through the subpass.
    #[serde(default)]
    pub preserve_attachments: Vec<u32>,
}

/// A `VkSubpassDependency` with synchronization2 masks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubpassDependency {
    /// A subpass index or `"EXTERNAL"`.
    pub src_subpass: SubpassIndex,
    /// A subpass index or `"EXTERNAL"`.
    pub dst_subpass: SubpassIndex,
    /// srcStageMask (default NONE).
    #[serde(default)]
    pub src_stage_mask: Option<PipelineStageFlags2>,
    /// srcAccessMask (default NONE).
    #[serde(default)]
    pub src_access_mask: Option<AccessFlags2>,
    /// dstStageMask (default NONE).
    #[serde(default)]
    pub dst_stage_mask: Option<PipelineStageFlags2>,
    /// dstAccessMask (default NONE).
    #[serde(default)]
    pub dst_access_mask: Option<AccessFlags2>,
    /// dependencyFlags (BY_REGION).
    #[serde(default)]
    pub dependency_flags: Option<Flags>,
}

/// An image used as an attachment: its id (level 0, layer 0, one layer) or a view of it.
#[derive(Clone, Debug)]
pub enum ViewRef {
    /// The image's id.
    Image(String),
    /// One level and some layers of an image.
    View(AttachmentView),
}

/// An attachment's view in full form.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentView {
    /// The image.
    pub image: String,
    /// The level (default 0).
    #[serde(default)]
    pub mip_level: Option<u32>,
    /// The first layer (default 0).
    #[serde(default)]
    pub base_array_layer: Option<u32>,
    /// Layers (default 1).
    #[serde(default)]
    pub layer_count: Option<u32>,
}

impl<'de> Deserialize<'de> for ViewRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ViewRef, D::Error> {
        // By hand rather than untagged: an error inside the object keeps its own message and
        // position instead of "did not match any variant".
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ViewRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an image id or {\"image\", \"mip_level\", \"base_array_layer\", \"layer_count\"}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ViewRef, E> {
                Ok(ViewRef::Image(v.to_string()))
            }
            fn visit_map<M: de::MapAccess<'de>>(self, m: M) -> Result<ViewRef, M::Error> {
                AttachmentView::deserialize(de::value::MapAccessDeserializer::new(m)).map(ViewRef::View)
            }
        }
        d.deserialize_any(V)
    }
}

/// A `VkFramebuffer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Framebuffer {
    /// Id.
    pub id: String,
    /// The render pass it is made for.
    pub render_pass: String,
    /// One view per attachment of the render pass.
    #[serde(default)]
    pub attachments: Vec<ViewRef>,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Layers (default 1).
    #[serde(default)]
    pub layers: Option<u32>,
}

/// A graphics pipeline (`VkGraphicsPipelineCreateInfo` in snake_case).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// Id.
    pub id: String,
    /// `GRAPHICS`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A VERTEX shader's id.
    #[serde(default)]
    pub vertex_shader: Option<String>,
    /// A FRAGMENT shader's id (none: a depth-only pipeline).
    #[serde(default)]
    pub fragment_shader: Option<String>,
    /// Vertex bindings and attributes (none: no vertex buffers).
    #[serde(default)]
    pub vertex_input: Option<VertexInput>,
    /// The primitive topology (default TRIANGLE_LIST).
    #[serde(default)]
    pub topology: Option<String>,
    /// Polygon mode, culling and front face.
    #[serde(default)]
    pub rasterization: Option<Rasterization>,
    /// Depth and stencil tests (none: off).
    #[serde(default)]
    pub depth_stencil: Option<DepthStencil>,
    /// Blending and write masks (none: no blending, every channel written).
    #[serde(default)]
    pub color_blend: Option<ColorBlend>,
    /// The render pass it renders in.
    #[serde(default)]
    pub render_pass: Option<String>,
    /// The subpass of `render_pass` (default 0).
    #[serde(default)]
    pub subpass: Option<u32>,
    /// Dynamic rendering's formats, in place of `render_pass`.
    #[serde(default)]
    pub rendering: Option<PipelineRendering>,
}

/// `VkPipelineVertexInputStateCreateInfo`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexInput {
    /// `VkVertexInputBindingDescription`s.
    #[serde(default)]
    pub bindings: Vec<VertexBinding>,
    /// `VkVertexInputAttributeDescription`s.
    #[serde(default)]
    pub attributes: Vec<VertexAttribute>,
}

/// A `VkVertexInputBindingDescription`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexBinding {
    /// The binding number.
    pub binding: u32,
    /// Bytes from one element to the next.
    pub stride: u32,
    /// VERTEX (default) or INSTANCE.
    #[serde(default)]
    pub input_rate: Option<String>,
}

/// A `VkVertexInputAttributeDescription`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexAttribute {
    /// The shader input location.
    pub location: u32,
    /// The binding it reads.
    pub binding: u32,
    /// Its format.
    pub format: String,
    /// Bytes from the start of the element (default 0).
    #[serde(default)]
    pub offset: u32,
}

/// `VkPipelineRasterizationStateCreateInfo`, the parts the engine has.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rasterization {
    /// FILL (the only one accepted).
    #[serde(default)]
    pub polygon_mode: Option<String>,
    /// NONE (default), FRONT, BACK or FRONT_AND_BACK.
    #[serde(default)]
    pub cull_mode: Option<Flags>,
    /// COUNTER_CLOCKWISE (default) or CLOCKWISE.
    #[serde(default)]
    pub front_face: Option<String>,
}

/// `VkPipelineDepthStencilStateCreateInfo`, the parts the engine has.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthStencil {
    /// Whether the depth test is on (default false).
    #[serde(default)]
    pub depth_test_enable: Option<bool>,
    /// Whether passing fragments write their depth (default false).
    #[serde(default)]
    pub depth_write_enable: Option<bool>,
    /// The depth comparison (required with the depth test on).
    #[serde(default)]
    pub depth_compare_op: Option<String>,
    /// Whether the stencil test is on (only false is accepted).
    #[serde(default)]
    pub stencil_test_enable: Option<bool>,
}

/// `VkPipelineColorBlendStateCreateInfo`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColorBlend {
    /// One state per colour attachment.
    #[serde(default)]
    pub attachments: Option<Vec<BlendAttachment>>,
    /// The blend constants (default 0).
    #[serde(default)]
    pub blend_constants: Option<[f32; 4]>,
}

/// A `VkPipelineColorBlendAttachmentState`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlendAttachment {
    /// Whether blending is on (default false).
    #[serde(default)]
    pub blend_enable: Option<bool>,
    /// Channels written, `R|G|B|A` (default all).
    #[serde(default)]
    pub color_write_mask: Option<Flags>,
    /// srcColorBlendFactor (required with blending on).
    #[serde(default)]
    pub src_color_blend_factor: Option<String>,
    /// dstColorBlendFactor.
    #[serde(default)]
    pub dst_color_blend_factor: Option<String>,
    /// colorBlendOp.
    #[serde(default)]
    pub color_blend_op: Option<String>,
    /// srcAlphaBlendFactor.
    #[serde(default)]
    pub src_alpha_blend_factor: Option<String>,
    /// dstAlphaBlendFactor.
    #[serde(default)]
    pub dst_alpha_blend_factor: Option<String>,
    /// alphaBlendOp.
    #[serde(default)]
    pub alpha_blend_op: Option<String>,
}

/// `VkPipelineRenderingCreateInfo`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineRendering {
    /// Colour attachment formats by location (`null` or `"UNDEFINED"`: none there).
    #[serde(default)]
    pub color_attachment_formats: Vec<Option<String>>,
    /// The depth attachment's format.
    #[serde(default)]
    pub depth_attachment_format: Option<String>,
    /// The stencil attachment's format.
    #[serde(default)]
    pub stencil_attachment_format: Option<String>,
}

/// A `VkRect2D`: `{"offset": [x, y], "extent": [w, h]}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    /// x, y (default 0, 0).
    #[serde(default)]
    pub offset: Option<[i32; 2]>,
    /// Width, height.
    pub extent: [u32; 2],
}

/// A `VkViewport`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Viewport {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height (negative flips y).
    pub height: f32,
    /// Depth at z = 0 (default 0).
    #[serde(default)]
    pub min_depth: Option<f32>,
    /// Depth at z = 1 (default 1).
    #[serde(default)]
    pub max_depth: Option<f32>,
}

/// A `VkClearValue`: `{"color": {"float32": [...]}}` or
/// `{"depth_stencil": {"depth": d, "stencil": s}}`, or the short forms `{"float32": [...]}`
/// (`uint32`, `int32`) and `{"depth": d, "stencil": s}`. One struct of every field, checked by
/// the loader, so that a misspelt member is an unknown field at its place.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearValue {
    /// The long form of a colour.
    pub color: Option<ClearColor>,
    /// The long form of a depth and stencil.
    pub depth_stencil: Option<ClearDepthStencil>,
    /// Short form: a float colour.
    pub float32: Option<[f32; 4]>,
    /// Short form: an unsigned integer colour.
    pub uint32: Option<[u32; 4]>,
    /// Short form: a signed integer colour.
    pub int32: Option<[i32; 4]>,
    /// Short form: the depth.
    pub depth: Option<f32>,
    /// Short form: the stencil value (default 0).
    pub stencil: Option<u32>,
}

/// A `VkRenderingAttachmentInfo`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderingAttachment {
    /// The image, or a view of it.
    pub image: ViewRef,
    /// The layout it is in during rendering.
    pub image_layout: String,
    /// LOAD, CLEAR, DONT_CARE or NONE.
    pub load_op: String,
    /// STORE, DONT_CARE or NONE.
    pub store_op: String,
    /// The clear value (required with CLEAR).
    #[serde(default)]
    pub clear_value: Option<ClearValue>,
}

/// A `VkClearAttachment`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearAttachment {
    /// COLOR, or DEPTH and/or STENCIL.
    pub aspect_mask: Flags,
    /// The colour attachment's index (COLOR).
    #[serde(default)]
    pub color_attachment: Option<u32>,
    /// The value.
    #[serde(default)]
    pub clear_value: Option<ClearValue>,
}

/// A `VkClearRect`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearRect {
    /// The rectangle.
    pub rect: Rect,
    /// First layer (default 0).
    #[serde(default)]
    pub base_array_layer: Option<u32>,
    /// Layers (default 1).
    #[serde(default)]
    pub layer_count: Option<u32>,
}
