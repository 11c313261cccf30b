//! The Rust API for building a workload: memory, buffers, pipelines, command buffers and the
//! host timeline, in Vulkan's vocabulary. The trace loader is a thin layer over this.

use std::sync::Arc;

use sim_shader::ComputePipeline;

use crate::api::error::WorkloadError;
use crate::sync::{AccessFlags2, MemoryBarrier2, PipelineStageFlags2};

/// Index of a memory object in its workload.
pub type MemoryId = usize;
/// Index of a buffer in its workload.
pub type BufferId = usize;
/// Index of a compute pipeline in its workload.
pub type PipelineId = usize;
/// Index of a command buffer in its workload.
pub type CommandBufferId = usize;
/// Index of a queue in its workload.
pub type QueueId = usize;
/// Index of an event in its workload.
pub type EventId = usize;
/// Index of a semaphore in its workload.
pub type SemaphoreId = usize;
/// Index of a fence in its workload.
pub type FenceId = usize;

/// The largest memory object a workload may allocate (4 GiB): larger numbers are typos.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;
/// The largest total of all memory objects (16 GiB of simulated address space).
pub const MAX_TOTAL_MEMORY_BYTES: u64 = 16 << 30;

/// Memory property flags of a memory type (VkMemoryPropertyFlags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemoryProperties {
    /// VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.
    pub device_local: bool,
    /// VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.
    pub host_visible: bool,
    /// VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.
    pub host_coherent: bool,
    /// VK_MEMORY_PROPERTY_HOST_CACHED_BIT.
    pub host_cached: bool,
}

impl MemoryProperties {
    /// DEVICE_LOCAL only.
    pub const DEVICE_LOCAL: MemoryProperties =
        MemoryProperties { device_local: true, host_visible: false, host_coherent: false, host_cached: false };
    /// HOST_VISIBLE | HOST_COHERENT (write-combined on the host).
    pub const HOST_COHERENT: MemoryProperties =
        MemoryProperties { device_local: false, host_visible: true, host_coherent: true, host_cached: false };

    /// Parses `DEVICE_LOCAL|HOST_VISIBLE|...` (short or `VK_MEMORY_PROPERTY_..._BIT` names).
    pub fn parse(text: &str) -> Result<MemoryProperties, String> {
        let mut p = MemoryProperties::default();
        for raw in text.split('|').map(str::trim).filter(|s| !s.is_empty()) {
            let name = raw.strip_prefix("VK_MEMORY_PROPERTY_").unwrap_or(raw);
            let name = name.strip_suffix("_BIT").unwrap_or(name);
            match name {
                "DEVICE_LOCAL" => p.device_local = true,
                "HOST_VISIBLE" => p.host_visible = true,
                "HOST_COHERENT" => p.host_coherent = true,
                "HOST_CACHED" => p.host_cached = true,
                "NONE" => {}
                _ => {
                    return Err(format!(
                        "unknown memory property `{raw}` (expected DEVICE_LOCAL, HOST_VISIBLE, HOST_COHERENT, HOST_CACHED)"
                    ));
                }
            }
        }
        if (p.host_coherent || p.host_cached) && !p.host_visible {
            return Err("HOST_COHERENT and HOST_CACHED need HOST_VISIBLE".into());
        }
        Ok(p)
    }
}

/// A VkDeviceMemory allocation.
#[derive(Clone, Debug)]
pub struct MemoryDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Property flags of its memory type.
    pub properties: MemoryProperties,
    /// Whether its final contents are compared with the reference run.
    pub compare: bool,
}

/// A VkBuffer bound to a memory object at an offset.
#[derive(Clone, Debug)]
pub struct BufferDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// The memory it is bound to.
    pub memory: MemoryId,
    /// Offset of the binding in the memory object, in bytes.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// The texels its bytes hold, when the trace says how to see them as a picture.
    pub picture: Option<BufferPicture>,
}

/// A buffer's bytes seen as a picture (the trace's `image_view` of a buffer): rows of texels of
/// one format from its first byte, as a buffer-image copy lays them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferPicture {
    /// The texel format (a colour format).
    pub format: sim_rop::Format,
    /// Width and height in texels.
    pub extent: [u32; 2],
    /// Texels from the start of a row to the next (at least the width).
    pub row_length: u32,
}

/// A VkImage bound to a memory object at an offset, placed by its layout.
#[derive(Clone, Debug)]
pub struct ImageBinding {
    /// Its id in traces and reports.
    pub name: String,
    /// The memory it is bound to.
    pub memory: MemoryId,
    /// Offset of the binding in the memory object, in bytes.
    pub offset: u64,
    /// Where its texels lie (`layout.size` bytes from `offset`).
    pub layout: sim_rop::ImageLayout,
    /// Its usage flags, as the trace names them (`TRANSFER_DST|SAMPLED`).
    pub usage: String,
    /// `UNDEFINED` or `PREINITIALIZED`.
    pub initial_layout: String,
}

impl ImageBinding {
    /// Whether its usage names `usage` (`STORAGE`; the trace may spell it
    /// `VK_IMAGE_USAGE_STORAGE_BIT`).
    pub fn has_usage(&self, usage: &str) -> bool {
        self.usage.split('|').map(|u| u.trim().trim_start_matches("VK_IMAGE_USAGE_").trim_end_matches("_BIT")).any(|u| u == usage)
    }
}

/// How a dispatch binding is accessed (VkDescriptorType).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// VK_DESCRIPTOR_TYPE_STORAGE_BUFFER.
    StorageBuffer,
    /// VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER.
    UniformBuffer,
}

/// One descriptor of a dispatch: a buffer range bound at (set, binding).
#[derive(Clone, Debug)]
pub struct BufferBinding {
    /// Descriptor set index (WGSL `@group`).
    pub set: u32,
    /// Binding index.
    pub binding: u32,
    /// The buffer bound.
    pub buffer: BufferId,
    /// Offset into the buffer, in bytes.
    pub offset: u64,
    /// Range in bytes; `None` is VK_WHOLE_SIZE.
    pub range: Option<u64>,
}

/// Index of a sampler in [`Workload::samplers`].
pub type SamplerId = usize;

/// A VkSampler: its name in traces and reports, and its state.
#[derive(Clone, Debug)]
pub struct SamplerDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// Filters, address modes, level-of-detail clamps and border colour.
    pub sampler: sim_rop::Sampler,
}

/// How an image descriptor is accessed (VkDescriptorType).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDescriptorType {
    /// VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: read through the texture path.
    SampledImage,
    /// VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: read and written through the storage path.
    StorageImage,
    /// VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: a sampled image and its sampler.
    CombinedImageSampler,
    /// VK_DESCRIPTOR_TYPE_SAMPLER: a sampler alone.
    Sampler,
    /// VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT: an input attachment of the draw's subpass, read at
    /// the fragment's own pixel (in WGSL a `texture_2d` read with `textureLoad`), through the
    /// texture path.
    InputAttachment,
}

impl ImageDescriptorType {
    /// Vulkan's name without `VK_DESCRIPTOR_TYPE_`.
    pub fn vk_name(self) -> &'static str {
        match self {
            ImageDescriptorType::SampledImage => "SAMPLED_IMAGE",
            ImageDescriptorType::StorageImage => "STORAGE_IMAGE",
            ImageDescriptorType::CombinedImageSampler => "COMBINED_IMAGE_SAMPLER",
            ImageDescriptorType::Sampler => "SAMPLER",
            ImageDescriptorType::InputAttachment => "INPUT_ATTACHMENT",
        }
    }
}

/// One image or sampler descriptor of a dispatch: an image view (its image, the subresources
/// it views and the layout it is accessed in), a sampler, or both.
#[derive(Clone, Debug)]
pub struct ImageDescriptor {
    /// Descriptor set index (WGSL `@group`).
    pub set: u32,
    /// Binding index.
    pub binding: u32,
    /// How it is accessed.
    pub descriptor_type: ImageDescriptorType,
    /// The image viewed (none for a sampler alone).
    pub image: Option<ImageId>,
    /// The layout the view is accessed in (empty for a sampler alone).
    pub layout: String,
    /// The subresources the view covers: its first level and levels, first layer and layers.
    pub range: sim_rop::SubresourceRange,
    /// The sampler (a sampler or a combined image sampler).
    pub sampler: Option<SamplerId>,
}

/// A region of vkCmdCopyBuffer (VkBufferCopy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferCopy {
    /// Offset in the source buffer.
    pub src_offset: u64,
    /// Offset in the destination buffer.
    pub dst_offset: u64,
    /// Bytes to copy.
    pub size: u64,
}

/// A VkBufferMemoryBarrier2: a memory barrier restricted to a buffer range.
#[derive(Clone, Debug)]
pub struct BufferMemoryBarrier {
    /// Stages and accesses.
    pub barrier: MemoryBarrier2,
    /// The buffer.
    pub buffer: BufferId,
    /// Offset into the buffer, in bytes.
    pub offset: u64,
    /// Size in bytes; `None` is VK_WHOLE_SIZE.
    pub size: Option<u64>,
}

/// Index of an image in [`Workload::images`].
pub type ImageId = usize;

/// A VkImageMemoryBarrier2: a barrier on some subresources of an image, with a layout
/// transition.
#[derive(Clone, Debug)]
pub struct ImageMemoryBarrier {
    /// Stages and accesses.
    pub barrier: MemoryBarrier2,
    /// The image.
    pub image: ImageId,
    /// oldLayout (Vulkan's name without `VK_IMAGE_LAYOUT_`).
    pub old_layout: String,
    /// newLayout.
    pub new_layout: String,
    /// The subresources.
    pub range: sim_rop::SubresourceRange,
}

/// A VkImageSubresourceLayers: one aspect of one level, some layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubresourceLayers {
    /// The aspect.
    pub aspect: sim_rop::Aspect,
    /// The level.
    pub mip_level: u32,
    /// First layer.
    pub base_array_layer: u32,
    /// Layers.
    pub layer_count: u32,
}

impl SubresourceLayers {
    /// The same subresources as a range: its aspect, its one level, its layers.
    pub fn range(&self) -> sim_rop::SubresourceRange {
        let mut aspects = [false; 3];
        aspects[self.aspect as usize] = true;
        sim_rop::SubresourceRange { aspects, base_mip_level: self.mip_level, level_count: 1, base_array_layer: self.base_array_layer, layer_count: self.layer_count }
    }
}

/// A VkBufferImageCopy region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferImageCopy {
    /// Offset of the first texel in the buffer.
    pub buffer_offset: u64,
    /// Texels from a row to the next in the buffer (0: the extent's width).
    pub buffer_row_length: u32,
    /// Rows from a slice to the next in the buffer (0: the extent's height).
    pub buffer_image_height: u32,
    /// The image's subresources.
    pub subresource: SubresourceLayers,
    /// First texel in the image.
    pub image_offset: [u32; 3],
    /// Texels copied.
    pub image_extent: [u32; 3],
}

/// A VkImageCopy region: texels of one subresource of the source to one of the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageCopy {
    /// The source's subresources.
    pub src_subresource: SubresourceLayers,
    /// First texel in the source.
    pub src_offset: [u32; 3],
    /// The destination's subresources (as many layers as the source's).
    pub dst_subresource: SubresourceLayers,
    /// First texel in the destination.
    pub dst_offset: [u32; 3],
    /// Texels copied.
    pub extent: [u32; 3],
}

/// A VkImageBlit region: the texels of a box of one subresource of the source scaled (and
/// mirrored, where an offset pair is reversed) onto a box of one of the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageBlit {
    /// The source's subresources.
    pub src_subresource: SubresourceLayers,
    /// The source box's corners (srcOffsets), each coordinate within its level (0 to the
    /// level's size).
    pub src_offsets: [[u32; 3]; 2],
    /// The destination's subresources (as many layers as the source's).
    pub dst_subresource: SubresourceLayers,
    /// The destination box's corners (dstOffsets).
    pub dst_offsets: [[u32; 3]; 2],
}

/// A VkDependencyInfo: the barriers of a pipeline barrier, set_event or wait_events.
#[derive(Clone, Debug, Default)]
pub struct DependencyInfo {
    /// Global memory barriers.
    pub memory_barriers: Vec<MemoryBarrier2>,
    /// Buffer memory barriers.
    pub buffer_memory_barriers: Vec<BufferMemoryBarrier>,
    /// Image memory barriers.
    pub image_memory_barriers: Vec<ImageMemoryBarrier>,
    /// Recorded in the synchronization1 shape (vkCmdPipelineBarrier, vkCmdSetEvent with a stage
    /// mask, vkCmdWaitEvents): the same dependency, kept so that a real device is given the
    /// command the trace names. Every barrier then has the command's two stage masks.
    pub sync1: bool,
    /// For a vkCmdWaitEvents2 of several events, the trace's one VkDependencyInfo per event,
    /// merged above: how many memory, buffer and image barriers each had, in order. Empty
    /// otherwise.
    pub per_event: Vec<(usize, usize, usize)>,
}

impl DependencyInfo {
    /// A dependency of one global memory barrier.
    pub fn memory(src_stage: PipelineStageFlags2, src_access: AccessFlags2, dst_stage: PipelineStageFlags2, dst_access: AccessFlags2) -> Self {
        DependencyInfo {
            memory_barriers: vec![MemoryBarrier2 {
                src_stage_mask: src_stage,
                src_access_mask: src_access,
                dst_stage_mask: dst_stage,
                dst_access_mask: dst_access,
            }],
            buffer_memory_barriers: Vec::new(),
            image_memory_barriers: Vec::new(),
            sync1: false,
            per_event: Vec::new(),
        }
    }

    /// Union of the source stage masks of all barriers.
    pub fn src_stages(&self) -> PipelineStageFlags2 {
        self.barriers().fold(PipelineStageFlags2::NONE, |a, b| a | b.src_stage_mask)
    }

    /// Union of the destination stage masks of all barriers.
    pub fn dst_stages(&self) -> PipelineStageFlags2 {
        self.barriers().fold(PipelineStageFlags2::NONE, |a, b| a | b.dst_stage_mask)
    }

    /// Every barrier of the dependency: memory, buffer, then image barriers.
    pub fn barriers(&self) -> impl Iterator<Item = &MemoryBarrier2> {
        self.memory_barriers.iter().chain(self.buffer_memory_barriers.iter().map(|b| &b.barrier)).chain(self.image_memory_barriers.iter().map(|b| &b.barrier))
    }
}

/// A command recorded in a command buffer.
#[derive(Clone, Debug)]
pub enum Command {
    /// vkCmdFillBuffer: `size` bytes (a multiple of 4; `None` = to the end, rounded down to 4)
    /// at `offset` set to the repeated 32-bit `data`.
    FillBuffer {
        /// Destination buffer.
        dst: BufferId,
        /// Offset in bytes (a multiple of 4).
        offset: u64,
        /// Size in bytes, or VK_WHOLE_SIZE.
        size: Option<u64>,
        /// The 32-bit pattern.
        data: u32,
    },
    /// vkCmdUpdateBuffer: inline bytes (a multiple of 4, at most the device limit).
    UpdateBuffer {
        /// Destination buffer.
        dst: BufferId,
        /// Offset in bytes (a multiple of 4).
        offset: u64,
        /// The bytes.
        data: Vec<u8>,
    },
    /// vkCmdCopyBuffer.
    CopyBuffer {
        /// Source buffer.
        src: BufferId,
        /// Destination buffer.
        dst: BufferId,
        /// The regions.
        regions: Vec<BufferCopy>,
    },
    /// vkCmdCopyBufferToImage.
    CopyBufferToImage {
        /// Source buffer.
        src: BufferId,
        /// Destination image.
        dst: ImageId,
        /// The layout the image is in.
        dst_layout: String,
        /// The regions.
        regions: Vec<BufferImageCopy>,
    },
    /// vkCmdCopyImageToBuffer.
    CopyImageToBuffer {
        /// Source image.
        src: ImageId,
        /// The layout the image is in.
        src_layout: String,
        /// Destination buffer.
        dst: BufferId,
        /// The regions.
        regions: Vec<BufferImageCopy>,
    },
    /// vkCmdCopyImage.
    CopyImage {
        /// Source image.
        src: ImageId,
        /// The layout the source is in.
        src_layout: String,
        /// Destination image.
        dst: ImageId,
        /// The layout the destination is in.
        dst_layout: String,
        /// The regions.
        regions: Vec<ImageCopy>,
    },
    /// vkCmdBlitImage.
    BlitImage {
        /// Source image.
        src: ImageId,
        /// The layout the source is in.
        src_layout: String,
        /// Destination image.
        dst: ImageId,
        /// The layout the destination is in.
        dst_layout: String,
        /// The regions.
        regions: Vec<ImageBlit>,
        /// NEAREST or LINEAR.
        filter: sim_rop::Filter,
    },
    /// vkCmdClearColorImage.
    ClearColorImage {
        /// The image.
        image: ImageId,
        /// The layout it is in.
        layout: String,
        /// One texel of the clear colour, as the image's format encodes it.
        texel: Vec<u8>,
        /// The subresources cleared.
        ranges: Vec<sim_rop::SubresourceRange>,
    },
    /// vkCmdClearDepthStencilImage.
    ClearDepthStencilImage {
        /// The image.
        image: ImageId,
        /// The layout it is in.
        layout: String,
        /// The depth, 0..=1.
        depth: f32,
        /// The stencil value.
        stencil: u32,
        /// The subresources cleared (their aspects say which of the two).
        ranges: Vec<sim_rop::SubresourceRange>,
    },
    /// vkCmdDispatch (vkCmdDispatchBase with a non-zero base) of a compute pipeline.
    Dispatch {
        /// The pipeline.
        pipeline: PipelineId,
        /// Workgroup counts.
        group_count: [u32; 3],
        /// First workgroup id (vkCmdDispatchBase).
        base_group: [u32; 3],
        /// Descriptor bindings.
        bindings: Vec<BufferBinding>,
        /// Push-constant bytes.
        push_constants: Vec<u8>,
        /// Image and sampler descriptors.
        images: Vec<ImageDescriptor>,
    },
    /// vkCmdPipelineBarrier2.
    PipelineBarrier(DependencyInfo),
    /// vkCmdSetEvent2.
    SetEvent {
        /// The event.
        event: EventId,
        /// Its dependency (only the first scope acts here).
        dependency: DependencyInfo,
    },
    /// vkCmdWaitEvents2 (one dependency per event, merged; the second scope acts here).
    WaitEvents {
        /// The events.
        events: Vec<EventId>,
        /// The dependency.
        dependency: DependencyInfo,
    },
    /// vkCmdResetEvent2.
    ResetEvent {
        /// The event.
        event: EventId,
        /// Stage mask of the reset.
        stage_mask: PipelineStageFlags2,
    },
    /// vkCmdBeginRenderPass2: the first subpass begins (its load operations, the dependencies
    /// from EXTERNAL and the layout transitions into it).
    BeginRenderPass {
        /// The render pass.
        render_pass: crate::api::RenderPassId,
        /// The framebuffer.
        framebuffer: crate::api::FramebufferId,
        /// The render area.
        render_area: crate::fixed_function::Rect2D,
        /// Per attachment, its clear value (`None` where it is not cleared).
        clear_values: Vec<Option<sim_rop::ClearValue>>,
    },
    /// vkCmdNextSubpass2.
    NextSubpass,
    /// vkCmdEndRenderPass2: the store operations, the dependencies to EXTERNAL and the final
    /// layout transitions.
    EndRenderPass,
    /// vkCmdBeginRendering (dynamic rendering).
    BeginRendering(crate::api::RenderingInfo),
    /// vkCmdEndRendering.
    EndRendering,
    /// vkCmdBindVertexBuffers: buffers and offsets bound from `first_binding` on, until the
    /// end of the command buffer or the next bind of the same binding.
    BindVertexBuffers {
        /// The first binding.
        first_binding: u32,
        /// Each binding's buffer and offset.
        buffers: Vec<(BufferId, u64)>,
    },
    /// vkCmdBindIndexBuffer.
    BindIndexBuffer {
        /// The buffer.
        buffer: BufferId,
        /// Offset of index 0.
        offset: u64,
        /// UINT16 or UINT32.
        index_type: crate::fixed_function::IndexType,
    },
    /// vkCmdSetViewport (viewport 0): until the end of the command buffer.
    SetViewport(crate::fixed_function::Viewport),
    /// vkCmdSetScissor (scissor 0): until the end of the command buffer.
    SetScissor(crate::fixed_function::Rect2D),
    /// vkCmdDraw, vkCmdDrawIndexed, vkCmdDrawIndirect, vkCmdDrawIndexedIndirect.
    Draw {
        /// The graphics pipeline.
        pipeline: crate::api::GraphicsPipelineId,
        /// The counts, or where they are read.
        kind: crate::api::DrawKind,
        /// Buffer descriptors.
        bindings: Vec<BufferBinding>,
        /// Push-constant bytes.
        push_constants: Vec<u8>,
        /// Image and sampler descriptors.
        images: Vec<ImageDescriptor>,
    },
    /// vkCmdClearAttachments.
    ClearAttachments {
        /// The attachments cleared.
        attachments: Vec<crate::api::ClearAttachment>,
        /// The rectangles.
        rects: Vec<crate::api::ClearRect>,
    },
}

impl Command {
    /// Whether it is a graphics command (a render pass's, dynamic rendering's, a draw's or its
    /// state's): one only a queue of a graphics family may record.
    pub fn is_graphics(&self) -> bool {
        matches!(
            self,
            Command::BeginRenderPass { .. }
                | Command::NextSubpass
                | Command::EndRenderPass
                | Command::BeginRendering(_)
                | Command::EndRendering
                | Command::BindVertexBuffers { .. }
                | Command::BindIndexBuffer { .. }
                | Command::SetViewport(_)
                | Command::SetScissor(_)
                | Command::Draw { .. }
                | Command::ClearAttachments { .. }
        )
    }

    /// The Vulkan command's name, for reports.
    pub fn vk_name(&self) -> &'static str {
        match self {
            Command::FillBuffer { .. } => "vkCmdFillBuffer",
            Command::UpdateBuffer { .. } => "vkCmdUpdateBuffer",
            Command::CopyBuffer { .. } => "vkCmdCopyBuffer",
            Command::CopyBufferToImage { .. } => "vkCmdCopyBufferToImage",
            Command::CopyImageToBuffer { .. } => "vkCmdCopyImageToBuffer",
            Command::CopyImage { .. } => "vkCmdCopyImage",
            Command::BlitImage { .. } => "vkCmdBlitImage",
            Command::ClearColorImage { .. } => "vkCmdClearColorImage",
            Command::ClearDepthStencilImage { .. } => "vkCmdClearDepthStencilImage",
            Command::Dispatch { .. } => "vkCmdDispatch",
            Command::PipelineBarrier(_) => "vkCmdPipelineBarrier2",
            Command::SetEvent { .. } => "vkCmdSetEvent2",
            Command::WaitEvents { .. } => "vkCmdWaitEvents2",
            Command::ResetEvent { .. } => "vkCmdResetEvent2",
            Command::BeginRenderPass { .. } => "vkCmdBeginRenderPass2",
            Command::NextSubpass => "vkCmdNextSubpass2",
            Command::EndRenderPass => "vkCmdEndRenderPass2",
            Command::BeginRendering(_) => "vkCmdBeginRendering",
            Command::EndRendering => "vkCmdEndRendering",
            Command::BindVertexBuffers { .. } => "vkCmdBindVertexBuffers",
            Command::BindIndexBuffer { .. } => "vkCmdBindIndexBuffer",
            Command::SetViewport(_) => "vkCmdSetViewport",
            Command::SetScissor(_) => "vkCmdSetScissor",
            Command::Draw { kind, .. } => kind.vk_name(),
            Command::ClearAttachments { .. } => "vkCmdClearAttachments",
        }
    }
}

/// A command buffer: a name and its commands.
#[derive(Clone, Debug)]
pub struct CommandBufferDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// Commands in recording order.
    pub commands: Vec<Command>,
    /// Recorded with VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT: it may be submitted again
    /// while a previous submission of it is still pending.
    pub simultaneous_use: bool,
}

/// One batch of a vkQueueSubmit2 (VkSubmitInfo2).
#[derive(Clone, Debug, Default)]
pub struct SubmitBatch {
    /// Command buffers, executed in order.
    pub command_buffers: Vec<CommandBufferId>,
    /// Semaphores waited on, each with its stage mask.
    pub wait_semaphores: Vec<(SemaphoreId, PipelineStageFlags2)>,
    /// Semaphores signalled, each with its stage mask.
    pub signal_semaphores: Vec<(SemaphoreId, PipelineStageFlags2)>,
}

/// A host operation or submission, in host program order.
#[derive(Clone, Debug)]
pub enum HostOp {
    /// vkQueueSubmit2.
    QueueSubmit {
        /// The queue.
        queue: QueueId,
        /// Its batches.
        batches: Vec<SubmitBatch>,
        /// Fence signalled when everything submitted completes.
        fence: Option<FenceId>,
    },
    /// vkWaitForFences (wait all).
    WaitForFences(Vec<FenceId>),
    /// vkResetFences.
    ResetFences(Vec<FenceId>),
    /// vkQueueWaitIdle.
    QueueWaitIdle(QueueId),
    /// vkDeviceWaitIdle.
    DeviceWaitIdle,
    /// A host write through a mapping.
    HostWrite {
        /// The memory object.
        memory: MemoryId,
        /// Offset in bytes.
        offset: u64,
        /// The bytes.
        data: Vec<u8>,
    },
    /// A host read through a mapping.
    HostRead {
        /// The memory object.
        memory: MemoryId,
        /// Offset in bytes.
        offset: u64,
        /// Size in bytes.
        size: u64,
        /// Label for reports (unique).
        label: String,
        /// Bytes the program is meant to produce, if stated.
        expect: Option<Vec<u8>>,
    },
    /// vkSetEvent from the host.
    SetEvent(EventId),
    /// vkFlushMappedMemoryRanges: makes host writes to non-coherent memory available.
    FlushMappedMemoryRanges(Vec<MappedRange>),
    /// vkInvalidateMappedMemoryRanges: makes device writes visible to the host.
    InvalidateMappedMemoryRanges(Vec<MappedRange>),
}

/// A VkMappedMemoryRange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MappedRange {
    /// The memory object.
    pub memory: MemoryId,
    /// Offset in bytes from the start of the memory object.
    pub offset: u64,
    /// Size in bytes; `None` is VK_WHOLE_SIZE.
    pub size: Option<u64>,
}

/// What a queue's family was declared able to do (VkQueueFlags); a queue declared without
/// flags can do everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueFlags {
    /// VK_QUEUE_GRAPHICS_BIT.
    pub graphics: bool,
    /// VK_QUEUE_COMPUTE_BIT.
    pub compute: bool,
    /// VK_QUEUE_TRANSFER_BIT.
    pub transfer: bool,
}

impl QueueFlags {
    /// Graphics, compute and transfer: a queue declared without flags.
    pub const ALL: QueueFlags = QueueFlags { graphics: true, compute: true, transfer: true };
}

/// A complete program for the simulated GPU.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// Its name, for reports.
    pub name: String,
    /// Memory objects.
    pub memories: Vec<MemoryDesc>,
    /// Buffers.
    pub buffers: Vec<BufferDesc>,
    /// Images.
    pub images: Vec<ImageBinding>,
    /// Samplers.
    pub samplers: Vec<SamplerDesc>,
    /// Compute pipelines, each with a name.
    pub pipelines: Vec<(String, Arc<ComputePipeline>)>,
    /// Render passes.
    pub render_passes: Vec<crate::api::RenderPassDesc>,
    /// Framebuffers.
    pub framebuffers: Vec<crate::api::FramebufferDesc>,
    /// Graphics pipelines.
    pub graphics_pipelines: Vec<crate::api::GraphicsPipelineDesc>,
    /// Command buffers.
    pub command_buffers: Vec<CommandBufferDesc>,
    /// Queue names (at least one).
    pub queues: Vec<String>,
    /// The declared flags of each queue's family, by queue index; a queue past the end (or a
    /// workload built without them) has [`QueueFlags::ALL`]. The engine runs every queue
    /// alike; a real device's replay picks families by them.
    pub queue_flags: Vec<QueueFlags>,
    /// Event names.
    pub events: Vec<String>,
    /// Binary semaphore names.
    pub semaphores: Vec<String>,
    /// Fence names.
    pub fences: Vec<String>,
    /// Host operations and submissions in host program order.
    pub timeline: Vec<HostOp>,
}

impl Workload {
    /// An empty workload with one queue, `q0`.
    pub fn new(name: impl Into<String>) -> Workload {
        Workload { name: name.into(), queues: vec!["q0".into()], ..Workload::default() }
    }

    /// Allocates a memory object.
    pub fn memory(&mut self, name: impl Into<String>, size: u64, properties: MemoryProperties) -> MemoryId {
        self.memories.push(MemoryDesc { name: name.into(), size, properties, compare: true });
        self.memories.len() - 1
    }

    /// Creates a buffer bound to `memory` at `offset`.
    pub fn buffer(&mut self, name: impl Into<String>, memory: MemoryId, offset: u64, size: u64) -> BufferId {
        self.buffers.push(BufferDesc { name: name.into(), memory, offset, size, picture: None });
        self.buffers.len() - 1
    }

    /// A DEVICE_LOCAL memory object with one buffer covering it: the common case.
    pub fn device_buffer(&mut self, name: impl Into<String>, size: u64) -> BufferId {
        let name = name.into();
        let m = self.memory(format!("{name}.memory"), size, MemoryProperties::DEVICE_LOCAL);
        self.buffer(name, m, 0, size)
    }

    /// A HOST_VISIBLE|HOST_COHERENT memory object with one buffer covering it.
    pub fn host_buffer(&mut self, name: impl Into<String>, size: u64) -> (MemoryId, BufferId) {
        let name = name.into();
        let m = self.memory(format!("{name}.memory"), size, MemoryProperties::HOST_COHERENT);
        (m, self.buffer(name, m, 0, size))
    }

    /// Adds a compute pipeline.
    pub fn pipeline(&mut self, name: impl Into<String>, pipeline: Arc<ComputePipeline>) -> PipelineId {
        self.pipelines.push((name.into(), pipeline));
        self.pipelines.len() - 1
    }

    /// Compiles WGSL and adds its compute entry point as a pipeline.
    pub fn wgsl_pipeline(&mut self, name: impl Into<String>, source: &str, entry_point: &str) -> Result<PipelineId, WorkloadError> {
        let name = name.into();
        let module = sim_shader::Module::from_wgsl(source, &name).map_err(|e| WorkloadError::Shader { shader: name.clone(), message: e.to_string() })?;
        let pipeline = ComputePipeline::new(&module, entry_point).map_err(|e| WorkloadError::Shader { shader: name.clone(), message: e.to_string() })?;
        Ok(self.pipeline(name, Arc::new(pipeline)))
    }

    /// Records a command buffer.
    pub fn command_buffer(&mut self, name: impl Into<String>, commands: Vec<Command>) -> CommandBufferId {
        self.command_buffers.push(CommandBufferDesc { name: name.into(), commands, simultaneous_use: false });
        self.command_buffers.len() - 1
    }

    /// Adds a queue.
    pub fn queue(&mut self, name: impl Into<String>) -> QueueId {
        self.queues.push(name.into());
        self.queues.len() - 1
    }

    /// Adds an event.
    pub fn event(&mut self, name: impl Into<String>) -> EventId {
        self.events.push(name.into());
        self.events.len() - 1
    }

    /// Adds a binary semaphore.
    pub fn semaphore(&mut self, name: impl Into<String>) -> SemaphoreId {
        self.semaphores.push(name.into());
        self.semaphores.len() - 1
    }

    /// Adds a fence.
    pub fn fence(&mut self, name: impl Into<String>) -> FenceId {
        self.fences.push(name.into());
        self.fences.len() - 1
    }

    /// Submits command buffers to a queue as one batch, with an optional fence.
    pub fn submit(&mut self, queue: QueueId, command_buffers: Vec<CommandBufferId>, fence: Option<FenceId>) {
        self.timeline.push(HostOp::QueueSubmit {
            queue,
            batches: vec![SubmitBatch { command_buffers, ..SubmitBatch::default() }],
            fence,
        });
    }

    /// Appends any host operation.
    pub fn host(&mut self, op: HostOp) {
        self.timeline.push(op);
    }
}
