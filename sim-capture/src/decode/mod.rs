//! Decoding the parameters of the Vulkan calls a compute or transfer program makes.
//!
//! A function-call block's payload is the call's parameters as GFXReconstruct's
//! `ParameterEncoder` wrote them: values little-endian, pointers as an attribute word, an
//! address, a count and the data (`params`). `calls` holds one decoder per call, reading the
//! parameters in the order the 0.9.18 encoders write them and keeping what a gpusim trace
//! needs; [`decode_call`] picks the decoder by the call's name and turns a decoding failure
//! into a [`CaptureError::BadParameters`] with the block's index and offset and the byte of
//! the parameter buffer where it failed.
//!
//! Why decode the `.gfxr` file rather than read `gfxrecon-convert`'s JSON: the JSON leaves out
//! the bytes that matter here (SPIR-V `pCode`, `vkCmdUpdateBuffer` data, push-constant values,
//! specialization data) and the host's writes to mapped memory, which are all in the file.
//!
//! Handles are kept as the capture's ids (`format::HandleId`, 0 for `VK_NULL_HANDLE`), which
//! are unique for the capture's whole life; the converter names them.
//!
//! Every decoder is total over untrusted input: no panic, counts checked against the bytes left
//! before any allocation, `pNext` chains bounded, and a buffer with bytes left over after the
//! last parameter refused (so a decoder out of step with the encoding cannot pass unnoticed).

mod calls;
mod params;

use crate::error::CaptureError;
use crate::reader::{Block, BlockKind};

/// `VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT`, the stage of a vkQueueSubmit signal.
pub const ALL_COMMANDS: u64 = 0x10000;

/// A struct of a `pNext` chain that the decoders know.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PNext {
    /// `VkMemoryAllocateFlagsInfo`.
    MemoryAllocateFlags {
        /// `VkMemoryAllocateFlags`.
        flags: u32,
        /// `deviceMask`.
        device_mask: u32,
    },
    /// `VkMemoryDedicatedAllocateInfo`.
    MemoryDedicatedAllocate {
        /// The image (0 if none).
        image: u64,
        /// The buffer (0 if none).
        buffer: u64,
    },
    /// `VkSemaphoreTypeCreateInfo`.
    SemaphoreType {
        /// `VkSemaphoreType`: 0 binary, 1 timeline.
        semaphore_type: u32,
        /// `initialValue`.
        initial_value: u64,
    },
    /// `VkTimelineSemaphoreSubmitInfo`.
    TimelineSemaphoreSubmit {
        /// `pWaitSemaphoreValues`.
        wait_values: Vec<u64>,
        /// `pSignalSemaphoreValues`.
        signal_values: Vec<u64>,
    },
}

impl PNext {
    /// `VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO`.
    pub const MEMORY_ALLOCATE_FLAGS_INFO: u32 = 1_000_060_000;
    /// `VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO`.
    pub const MEMORY_DEDICATED_ALLOCATE_INFO: u32 = 1_000_127_001;
    /// `VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO`.
    pub const SEMAPHORE_TYPE_CREATE_INFO: u32 = 1_000_207_002;
    /// `VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO`.
    pub const TIMELINE_SEMAPHORE_SUBMIT_INFO: u32 = 1_000_207_003;
}

/// What a `vkCreate*`-shaped call returned: its create info, the new handle and the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created<T> {
    /// The decoded create info.
    pub info: T,
    /// The handle created (`None` when the call failed and the layer omitted it).
    pub handle: Option<u64>,
    /// The `VkResult`.
    pub result: i32,
}

/// `VkMemoryAllocateInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryAllocateInfo {
    /// `allocationSize`.
    pub allocation_size: u64,
    /// `memoryTypeIndex`.
    pub memory_type_index: u32,
    /// Its `pNext` chain.
    pub next: Vec<PNext>,
}

/// `VkBufferCreateInfo` (queue family indices left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferCreateInfo {
    /// `VkBufferCreateFlags`.
    pub flags: u32,
    /// `size`.
    pub size: u64,
    /// `VkBufferUsageFlags`.
    pub usage: u32,
    /// `VkSharingMode`.
    pub sharing_mode: u32,
    /// Its `pNext` chain.
    pub next: Vec<PNext>,
}

/// One buffer binding of vkBindBufferMemory or `VkBindBufferMemoryInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindBufferMemory {
    /// The buffer.
    pub buffer: u64,
    /// The memory.
    pub memory: u64,
    /// `memoryOffset`.
    pub memory_offset: u64,
}

/// `VkImageCreateInfo` (queue family indices left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageCreateInfo {
    /// `VkImageCreateFlags`.
    pub flags: u32,
    /// `VkImageType`: 0 1D, 1 2D, 2 3D.
    pub image_type: u32,
    /// `VkFormat`.
    pub format: u32,
    /// `extent`: width, height, depth.
    pub extent: [u32; 3],
    /// `mipLevels`.
    pub mip_levels: u32,
    /// `arrayLayers`.
    pub array_layers: u32,
    /// `VkSampleCountFlagBits`.
    pub samples: u32,
    /// `VkImageTiling`: 0 optimal, 1 linear.
    pub tiling: u32,
    /// `VkImageUsageFlags`.
    pub usage: u32,
    /// `VkSharingMode`.
    pub sharing_mode: u32,
    /// `initialLayout`.
    pub initial_layout: u32,
    /// Its `pNext` chain.
    pub next: Vec<PNext>,
}

/// One image binding of vkBindImageMemory or `VkBindImageMemoryInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindImageMemory {
    /// The image.
    pub image: u64,
    /// The memory.
    pub memory: u64,
    /// `memoryOffset`.
    pub memory_offset: u64,
}

/// `VkImageSubresourceRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageSubresourceRange {
    /// `VkImageAspectFlags`.
    pub aspect_mask: u32,
    /// `baseMipLevel`.
    pub base_mip_level: u32,
    /// `levelCount` (`VK_REMAINING_MIP_LEVELS` is `u32::MAX`).
    pub level_count: u32,
    /// `baseArrayLayer`.
    pub base_array_layer: u32,
    /// `layerCount` (`VK_REMAINING_ARRAY_LAYERS` is `u32::MAX`).
    pub layer_count: u32,
}

/// `VkImageSubresourceLayers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageSubresourceLayers {
    /// `VkImageAspectFlags`.
    pub aspect_mask: u32,
    /// `mipLevel`.
    pub mip_level: u32,
    /// `baseArrayLayer`.
    pub base_array_layer: u32,
    /// `layerCount`.
    pub layer_count: u32,
}

/// `VkBufferImageCopy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferImageCopy {
    /// `bufferOffset`.
    pub buffer_offset: u64,
    /// `bufferRowLength` (0: tightly packed).
    pub buffer_row_length: u32,
    /// `bufferImageHeight` (0: tightly packed).
    pub buffer_image_height: u32,
    /// `imageSubresource`.
    pub image_subresource: ImageSubresourceLayers,
    /// `imageOffset`.
    pub image_offset: [i32; 3],
    /// `imageExtent`.
    pub image_extent: [u32; 3],
}

/// `VkImageCopy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageCopy {
    /// `srcSubresource`.
    pub src_subresource: ImageSubresourceLayers,
    /// `srcOffset`.
    pub src_offset: [i32; 3],
    /// `dstSubresource`.
    pub dst_subresource: ImageSubresourceLayers,
    /// `dstOffset`.
    pub dst_offset: [i32; 3],
    /// `extent`.
    pub extent: [u32; 3],
}

/// `VkImageBlit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageBlit {
    /// `srcSubresource`.
    pub src_subresource: ImageSubresourceLayers,
    /// `srcOffsets`: the source box's two corners.
    pub src_offsets: [[i32; 3]; 2],
    /// `dstSubresource`.
    pub dst_subresource: ImageSubresourceLayers,
    /// `dstOffsets`.
    pub dst_offsets: [[i32; 3]; 2],
}

/// `VkImageViewCreateInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageViewCreateInfo {
    /// `VkImageViewCreateFlags`.
    pub flags: u32,
    /// The image.
    pub image: u64,
    /// `VkImageViewType`.
    pub view_type: u32,
    /// `VkFormat`.
    pub format: u32,
    /// `components`: the `VkComponentSwizzle` of r, g, b and a.
    pub components: [u32; 4],
    /// `subresourceRange`.
    pub subresource_range: ImageSubresourceRange,
}

/// `VkSamplerCreateInfo`; its floats are kept as their bits, so that the struct compares
/// exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerCreateInfo {
    /// `VkSamplerCreateFlags`.
    pub flags: u32,
    /// `magFilter`.
    pub mag_filter: u32,
    /// `minFilter`.
    pub min_filter: u32,
    /// `mipmapMode`.
    pub mipmap_mode: u32,
    /// `addressModeU`, `addressModeV`, `addressModeW`.
    pub address_modes: [u32; 3],
    /// `mipLodBias` (the f32's bits).
    pub mip_lod_bias: u32,
    /// `anisotropyEnable`.
    pub anisotropy_enable: u32,
    /// `maxAnisotropy` (the f32's bits).
    pub max_anisotropy: u32,
    /// `compareEnable`.
    pub compare_enable: u32,
    /// `compareOp`.
    pub compare_op: u32,
    /// `minLod` (the f32's bits).
    pub min_lod: u32,
    /// `maxLod` (the f32's bits).
    pub max_lod: u32,
    /// `borderColor`.
    pub border_color: u32,
    /// `unnormalizedCoordinates`.
    pub unnormalized_coordinates: u32,
}

/// `VkDescriptorImageInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorImageInfo {
    /// The sampler (only meaningful for SAMPLER and COMBINED_IMAGE_SAMPLER descriptors: for
    /// others the layer writes the raw handle value, not a capture id).
    pub sampler: u64,
    /// The image view (not meaningful for SAMPLER descriptors, as `sampler` for others).
    pub image_view: u64,
    /// `imageLayout`.
    pub image_layout: u32,
}

/// An image memory barrier (`VkImageMemoryBarrier` or `VkImageMemoryBarrier2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageMemoryBarrier {
    /// The masks.
    pub barrier: MemoryBarrier,
    /// `oldLayout`.
    pub old_layout: u32,
    /// `newLayout`.
    pub new_layout: u32,
    /// `srcQueueFamilyIndex`.
    pub src_queue_family_index: u32,
    /// `dstQueueFamilyIndex`.
    pub dst_queue_family_index: u32,
    /// The image.
    pub image: u64,
    /// `subresourceRange`.
    pub subresource_range: ImageSubresourceRange,
}

/// `VkMappedMemoryRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappedMemoryRange {
    /// The memory.
    pub memory: u64,
    /// `offset` from the start of the memory object.
    pub offset: u64,
    /// `size` (`VK_WHOLE_SIZE` is `u64::MAX`).
    pub size: u64,
}

/// `VkDescriptorSetLayoutBinding` (immutable samplers left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorSetLayoutBinding {
    /// `binding`.
    pub binding: u32,
    /// `VkDescriptorType`.
    pub descriptor_type: u32,
    /// `descriptorCount`.
    pub descriptor_count: u32,
    /// `VkShaderStageFlags`.
    pub stage_flags: u32,
}

/// `VkPushConstantRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantRange {
    /// `VkShaderStageFlags`.
    pub stage_flags: u32,
    /// `offset`.
    pub offset: u32,
    /// `size`.
    pub size: u32,
}

/// `VkPipelineLayoutCreateInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineLayoutCreateInfo {
    /// `pSetLayouts`.
    pub set_layouts: Vec<u64>,
    /// `pPushConstantRanges`.
    pub push_constant_ranges: Vec<PushConstantRange>,
}

/// `VkSpecializationMapEntry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecializationMapEntry {
    /// `constantID`.
    pub constant_id: u32,
    /// `offset` into the data.
    pub offset: u32,
    /// `size` in bytes.
    pub size: u64,
}

/// `VkSpecializationInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specialization {
    /// `pMapEntries`.
    pub map_entries: Vec<SpecializationMapEntry>,
    /// `pData`.
    pub data: Vec<u8>,
}

/// `VkPipelineShaderStageCreateInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderStage {
    /// `VkPipelineShaderStageCreateFlags`.
    pub flags: u32,
    /// `VkShaderStageFlagBits`.
    pub stage: u32,
    /// The shader module.
    pub module: u64,
    /// `pName`, the entry point.
    pub name: String,
    /// `pSpecializationInfo`.
    pub specialization: Option<Specialization>,
}

/// `VkComputePipelineCreateInfo` (base pipeline left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputePipelineCreateInfo {
    /// `VkPipelineCreateFlags`.
    pub flags: u32,
    /// `stage`.
    pub stage: ShaderStage,
    /// The pipeline layout.
    pub layout: u64,
}

/// `VkDescriptorBufferInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorBufferInfo {
    /// The buffer.
    pub buffer: u64,
    /// `offset`.
    pub offset: u64,
    /// `range` (`VK_WHOLE_SIZE` is `u64::MAX`).
    pub range: u64,
}

/// `VkWriteDescriptorSet`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteDescriptorSet {
    /// `dstSet`.
    pub dst_set: u64,
    /// `dstBinding`.
    pub dst_binding: u32,
    /// `dstArrayElement`.
    pub dst_array_element: u32,
    /// `descriptorCount`.
    pub descriptor_count: u32,
    /// `VkDescriptorType`.
    pub descriptor_type: u32,
    /// `pBufferInfo` (buffer descriptor types).
    pub buffer_info: Vec<DescriptorBufferInfo>,
    /// `pImageInfo` (image and sampler descriptor types).
    pub image_info: Vec<DescriptorImageInfo>,
    /// How many `pTexelBufferView` entries were written (texel buffer descriptor types).
    pub texel_buffer_views: usize,
}

/// `VkCopyDescriptorSet`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyDescriptorSet {
    /// `srcSet`.
    pub src_set: u64,
    /// `srcBinding`.
    pub src_binding: u32,
    /// `srcArrayElement`.
    pub src_array_element: u32,
    /// `dstSet`.
    pub dst_set: u64,
    /// `dstBinding`.
    pub dst_binding: u32,
    /// `dstArrayElement`.
    pub dst_array_element: u32,
    /// `descriptorCount`.
    pub descriptor_count: u32,
}

/// `VkBufferCopy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferCopy {
    /// `srcOffset`.
    pub src_offset: u64,
    /// `dstOffset`.
    pub dst_offset: u64,
    /// `size`.
    pub size: u64,
}

/// A memory barrier in synchronization2's shape; a synchronization1 barrier has its stage
/// masks on the [`Dependency`] and 0 here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryBarrier {
    /// `srcStageMask` (synchronization2 only).
    pub src_stage_mask: u64,
    /// `srcAccessMask`.
    pub src_access_mask: u64,
    /// `dstStageMask` (synchronization2 only).
    pub dst_stage_mask: u64,
    /// `dstAccessMask`.
    pub dst_access_mask: u64,
}

/// A buffer memory barrier (`VkBufferMemoryBarrier` or `VkBufferMemoryBarrier2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferMemoryBarrier {
    /// The masks.
    pub barrier: MemoryBarrier,
    /// `srcQueueFamilyIndex`.
    pub src_queue_family_index: u32,
    /// `dstQueueFamilyIndex`.
    pub dst_queue_family_index: u32,
    /// The buffer.
    pub buffer: u64,
    /// `offset`.
    pub offset: u64,
    /// `size` (`VK_WHOLE_SIZE` is `u64::MAX`).
    pub size: u64,
}

/// The dependency of a barrier or event command: `VkDependencyInfo`, or the parameters of
/// vkCmdPipelineBarrier and vkCmdWaitEvents in the same shape.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dependency {
    /// `srcStageMask` of a synchronization1 command (0 for synchronization2).
    pub src_stage_mask: u64,
    /// `dstStageMask` of a synchronization1 command (0 for synchronization2).
    pub dst_stage_mask: u64,
    /// `VkDependencyFlags`.
    pub dependency_flags: u32,
    /// Global memory barriers.
    pub memory_barriers: Vec<MemoryBarrier>,
    /// Buffer memory barriers.
    pub buffer_memory_barriers: Vec<BufferMemoryBarrier>,
    /// Image memory barriers.
    pub image_memory_barriers: Vec<ImageMemoryBarrier>,
}

/// A semaphore wait or signal of a submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemaphoreSubmit {
    /// The semaphore.
    pub semaphore: u64,
    /// The timeline value (0 for binary semaphores and vkQueueSubmit).
    pub value: u64,
    /// The stage mask (`pWaitDstStageMask` for vkQueueSubmit waits; ALL_COMMANDS for its
    /// signals).
    pub stage_mask: u64,
}

/// One batch of a submission (`VkSubmitInfo` or `VkSubmitInfo2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submit {
    /// `VkSubmitFlags` (vkQueueSubmit2).
    pub flags: u32,
    /// Semaphores waited on.
    pub wait_semaphores: Vec<SemaphoreSubmit>,
    /// Command buffers, in order.
    pub command_buffers: Vec<u64>,
    /// Semaphores signalled.
    pub signal_semaphores: Vec<SemaphoreSubmit>,
    /// Its `pNext` chain (timeline semaphore values).
    pub next: Vec<PNext>,
}

/// A memory type: `VkMemoryType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryType {
    /// `VkMemoryPropertyFlags`.
    pub property_flags: u32,
    /// `heapIndex`.
    pub heap_index: u32,
}

/// `VkPhysicalDeviceMemoryProperties`, or the SetDeviceMemoryProperties meta-data command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryProperties {
    /// The memory types, by index.
    pub memory_types: Vec<MemoryType>,
    /// The heaps' sizes, by index.
    pub heap_sizes: Vec<u64>,
}

/// A decoded call: what a gpusim trace can use of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Call {
    /// vkGetDeviceQueue, vkGetDeviceQueue2.
    GetDeviceQueue {
        /// `queueFamilyIndex`.
        queue_family_index: u32,
        /// `queueIndex`.
        queue_index: u32,
        /// The queue.
        queue: Option<u64>,
    },
    /// vkGetPhysicalDeviceMemoryProperties(2).
    MemoryProperties(MemoryProperties),
    /// vkAllocateMemory.
    AllocateMemory(Created<MemoryAllocateInfo>),
    /// vkFreeMemory.
    FreeMemory {
        /// The memory.
        memory: u64,
    },
    /// vkMapMemory.
    MapMemory {
        /// The memory.
        memory: u64,
        /// `offset`.
        offset: u64,
        /// `size`.
        size: u64,
        /// `VkMemoryMapFlags`.
        flags: u32,
        /// The host address returned.
        data: Option<u64>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkUnmapMemory.
    UnmapMemory {
        /// The memory.
        memory: u64,
    },
    /// vkFlushMappedMemoryRanges.
    FlushMappedMemoryRanges {
        /// The ranges.
        ranges: Vec<MappedMemoryRange>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkInvalidateMappedMemoryRanges.
    InvalidateMappedMemoryRanges {
        /// The ranges.
        ranges: Vec<MappedMemoryRange>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkCreateBuffer.
    CreateBuffer(Created<BufferCreateInfo>),
    /// vkBindBufferMemory, vkBindBufferMemory2.
    BindBufferMemory {
        /// The bindings.
        binds: Vec<BindBufferMemory>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkCreateImage.
    CreateImage(Created<ImageCreateInfo>),
    /// vkBindImageMemory, vkBindImageMemory2.
    BindImageMemory {
        /// The bindings.
        binds: Vec<BindImageMemory>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkCreateImageView.
    CreateImageView(Created<ImageViewCreateInfo>),
    /// vkCreateSampler.
    CreateSampler(Created<SamplerCreateInfo>),
    /// vkCmdClearColorImage.
    CmdClearColorImage {
        /// The command buffer.
        command_buffer: u64,
        /// The image.
        image: u64,
        /// `imageLayout`.
        image_layout: u32,
        /// `pColor`, as its four 32-bit words (the union's `uint32` view).
        color: [u32; 4],
        /// `pRanges`.
        ranges: Vec<ImageSubresourceRange>,
    },
    /// vkCmdClearDepthStencilImage.
    CmdClearDepthStencilImage {
        /// The command buffer.
        command_buffer: u64,
        /// The image.
        image: u64,
        /// `imageLayout`.
        image_layout: u32,
        /// `pDepthStencil`: the depth's f32 bits and the stencil value.
        depth_stencil: (u32, u32),
        /// `pRanges`.
        ranges: Vec<ImageSubresourceRange>,
    },
    /// vkCmdCopyBufferToImage.
    CmdCopyBufferToImage {
        /// The command buffer.
        command_buffer: u64,
        /// The source.
        src_buffer: u64,
        /// The destination.
        dst_image: u64,
        /// `dstImageLayout`.
        dst_image_layout: u32,
        /// The regions.
        regions: Vec<BufferImageCopy>,
    },
    /// vkCmdCopyImageToBuffer.
    CmdCopyImageToBuffer {
        /// The command buffer.
        command_buffer: u64,
        /// The source.
        src_image: u64,
        /// `srcImageLayout`.
        src_image_layout: u32,
        /// The destination.
        dst_buffer: u64,
        /// The regions.
        regions: Vec<BufferImageCopy>,
    },
    /// vkCmdCopyImage.
    CmdCopyImage {
        /// The command buffer.
        command_buffer: u64,
        /// The source.
        src_image: u64,
        /// `srcImageLayout`.
        src_image_layout: u32,
        /// The destination.
        dst_image: u64,
        /// `dstImageLayout`.
        dst_image_layout: u32,
        /// The regions.
        regions: Vec<ImageCopy>,
    },
    /// vkCmdBlitImage.
    CmdBlitImage {
        /// The command buffer.
        command_buffer: u64,
        /// The source.
        src_image: u64,
        /// `srcImageLayout`.
        src_image_layout: u32,
        /// The destination.
        dst_image: u64,
        /// `dstImageLayout`.
        dst_image_layout: u32,
        /// The regions.
        regions: Vec<ImageBlit>,
        /// `VkFilter`.
        filter: u32,
    },
    /// vkCreateShaderModule: the SPIR-V words.
    CreateShaderModule(Created<Vec<u32>>),
    /// vkCreateDescriptorSetLayout: the bindings.
    CreateDescriptorSetLayout(Created<Vec<DescriptorSetLayoutBinding>>),
    /// vkCreatePipelineLayout.
    CreatePipelineLayout(Created<PipelineLayoutCreateInfo>),
    /// vkCreateComputePipelines.
    CreateComputePipelines {
        /// The create infos.
        infos: Vec<ComputePipelineCreateInfo>,
        /// The pipelines created, one per info.
        pipelines: Vec<u64>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkCreateDescriptorPool: its flags.
    CreateDescriptorPool(Created<u32>),
    /// vkAllocateDescriptorSets.
    AllocateDescriptorSets {
        /// The pool.
        pool: u64,
        /// The layout of each set.
        set_layouts: Vec<u64>,
        /// The sets allocated.
        sets: Vec<u64>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkUpdateDescriptorSets.
    UpdateDescriptorSets {
        /// The writes.
        writes: Vec<WriteDescriptorSet>,
        /// The copies.
        copies: Vec<CopyDescriptorSet>,
    },
    /// vkCreateCommandPool: flags and queue family.
    CreateCommandPool(Created<(u32, u32)>),
    /// vkAllocateCommandBuffers.
    AllocateCommandBuffers {
        /// The pool.
        pool: u64,
        /// `VkCommandBufferLevel`: 0 primary, 1 secondary.
        level: u32,
        /// The command buffers allocated.
        command_buffers: Vec<u64>,
        /// The `VkResult`.
        result: i32,
    },
    /// vkBeginCommandBuffer.
    BeginCommandBuffer {
        /// The command buffer.
        command_buffer: u64,
        /// `VkCommandBufferUsageFlags`.
        flags: u32,
        /// Whether inheritance info was given (secondary command buffers).
        inheritance: bool,
    },
    /// vkEndCommandBuffer.
    EndCommandBuffer {
        /// The command buffer.
        command_buffer: u64,
    },
    /// vkCmdBindPipeline.
    CmdBindPipeline {
        /// The command buffer.
        command_buffer: u64,
        /// `VkPipelineBindPoint`: 0 graphics, 1 compute.
        bind_point: u32,
        /// The pipeline.
        pipeline: u64,
    },
    /// vkCmdBindDescriptorSets.
    CmdBindDescriptorSets {
        /// The command buffer.
        command_buffer: u64,
        /// `VkPipelineBindPoint`.
        bind_point: u32,
        /// The pipeline layout.
        layout: u64,
        /// `firstSet`.
        first_set: u32,
        /// The sets.
        sets: Vec<u64>,
        /// `pDynamicOffsets`.
        dynamic_offsets: Vec<u32>,
    },
    /// vkCmdPushConstants.
    CmdPushConstants {
        /// The command buffer.
        command_buffer: u64,
        /// The pipeline layout.
        layout: u64,
        /// `VkShaderStageFlags`.
        stage_flags: u32,
        /// `offset`.
        offset: u32,
        /// `pValues`.
        values: Vec<u8>,
    },
    /// vkCmdDispatch, vkCmdDispatchBase.
    CmdDispatch {
        /// The command buffer.
        command_buffer: u64,
        /// `baseGroupX..Z` (0 for vkCmdDispatch).
        base_group: [u32; 3],
        /// `groupCountX..Z`.
        group_count: [u32; 3],
    },
    /// vkCmdFillBuffer.
    CmdFillBuffer {
        /// The command buffer.
        command_buffer: u64,
        /// The buffer.
        dst_buffer: u64,
        /// `dstOffset`.
        dst_offset: u64,
        /// `size` (`VK_WHOLE_SIZE` is `u64::MAX`).
        size: u64,
        /// The word written.
        data: u32,
    },
    /// vkCmdUpdateBuffer.
    CmdUpdateBuffer {
        /// The command buffer.
        command_buffer: u64,
        /// The buffer.
        dst_buffer: u64,
        /// `dstOffset`.
        dst_offset: u64,
        /// `pData`.
        data: Vec<u8>,
    },
    /// vkCmdCopyBuffer.
    CmdCopyBuffer {
        /// The command buffer.
        command_buffer: u64,
        /// The source.
        src_buffer: u64,
        /// The destination.
        dst_buffer: u64,
        /// The regions.
        regions: Vec<BufferCopy>,
    },
    /// vkCmdPipelineBarrier, vkCmdPipelineBarrier2.
    CmdPipelineBarrier {
        /// The command buffer.
        command_buffer: u64,
        /// The barriers.
        dependency: Dependency,
        /// Whether it was vkCmdPipelineBarrier2.
        sync2: bool,
    },
    /// vkCmdSetEvent, vkCmdSetEvent2.
    CmdSetEvent {
        /// The command buffer.
        command_buffer: u64,
        /// The event.
        event: u64,
        /// `stageMask` (vkCmdSetEvent).
        stage_mask: u64,
        /// `pDependencyInfo` (vkCmdSetEvent2).
        dependency: Option<Dependency>,
    },
    /// vkCmdResetEvent, vkCmdResetEvent2.
    CmdResetEvent {
        /// The command buffer.
        command_buffer: u64,
        /// The event.
        event: u64,
        /// `stageMask`.
        stage_mask: u64,
    },
    /// vkCmdWaitEvents, vkCmdWaitEvents2.
    CmdWaitEvents {
        /// The command buffer.
        command_buffer: u64,
        /// The events.
        events: Vec<u64>,
        /// One dependency for vkCmdWaitEvents, one per event for vkCmdWaitEvents2.
        dependencies: Vec<Dependency>,
        /// Whether it was vkCmdWaitEvents2.
        sync2: bool,
    },
    /// vkQueueSubmit, vkQueueSubmit2.
    QueueSubmit {
        /// The queue.
        queue: u64,
        /// The batches.
        submits: Vec<Submit>,
        /// The fence (0 if none).
        fence: u64,
        /// The `VkResult`.
        result: i32,
    },
    /// vkCreateFence: its flags.
    CreateFence(Created<u32>),
    /// vkCreateSemaphore: its `pNext` chain (the semaphore type).
    CreateSemaphore(Created<Vec<PNext>>),
    /// vkCreateEvent: its flags.
    CreateEvent(Created<u32>),
    /// vkWaitForFences, and vkGetFenceStatus as a wait of no time.
    WaitForFences {
        /// The fences.
        fences: Vec<u64>,
        /// `waitAll`.
        wait_all: bool,
        /// `timeout` in nanoseconds.
        timeout: u64,
        /// The `VkResult` (`VK_SUCCESS` when the fences were signalled).
        result: i32,
    },
    /// vkResetFences.
    ResetFences {
        /// The fences.
        fences: Vec<u64>,
    },
    /// vkSetEvent from the host.
    SetEvent {
        /// The event.
        event: u64,
    },
    /// vkResetEvent from the host.
    ResetEvent {
        /// The event.
        event: u64,
    },
    /// vkQueueWaitIdle.
    QueueWaitIdle {
        /// The queue.
        queue: u64,
        /// The `VkResult`.
        result: i32,
    },
    /// vkDeviceWaitIdle.
    DeviceWaitIdle {
        /// The `VkResult`.
        result: i32,
    },
}

/// Decodes a function-call block's parameters. `Ok(None)` for any other block and for a call
/// this module has no decoder for; an error, located, for parameters that do not decode.
pub fn decode_call(block: &Block) -> Result<Option<Call>, CaptureError> {
    let (BlockKind::FunctionCall { .. }, Some(name)) = (&block.kind, block.call_name()) else {
        return Ok(None);
    };
    let mut p = params::Params::new(&block.payload);
    calls::decode(name, &mut p).map_err(|e| CaptureError::BadParameters {
        index: block.index,
        offset: block.offset,
        call: name,
        at: e.at as u64,
        size: block.payload.len() as u64,
        detail: e.detail,
    })
}

/// Decodes a SetDeviceMemoryProperties meta-data block (format.h's
/// `SetDeviceMemoryPropertiesCommand`: thread id, physical device id, the two counts, then
/// 8-byte `DeviceMemoryType`s and 12-byte packed `DeviceMemoryHeap`s). `Ok(None)` for any
/// other block.
pub fn decode_memory_properties_meta(
    block: &Block,
) -> Result<Option<MemoryProperties>, CaptureError> {
    const SET_DEVICE_MEMORY_PROPERTIES: u16 = 12;
    if block.meta_data_type() != Some(SET_DEVICE_MEMORY_PROPERTIES) {
        return Ok(None);
    }
    let mut p = params::Params::new(&block.payload);
    let decoded = (|| {
        p.u64()?;
        p.u64()?;
        let types = p.u32()?;
        let heaps = p.u32()?;
        let need = u64::from(types) * 8 + u64::from(heaps) * 12;
        if need != p.remaining() as u64 {
            return Err(p.error(format!(
                "{types} memory types and {heaps} heaps need {need} bytes, {} are left",
                p.remaining()
            )));
        }
        let mut out = MemoryProperties::default();
        for _ in 0..types {
            out.memory_types.push(MemoryType {
                property_flags: p.u32()?,
                heap_index: p.u32()?,
            });
        }
        for _ in 0..heaps {
            out.heap_sizes.push(p.u64()?);
            p.u32()?;
        }
        Ok(out)
    })();
    decoded.map(Some).map_err(|e| CaptureError::BadParameters {
        index: block.index,
        offset: block.offset,
        call: "SetDeviceMemoryProperties",
        at: e.at as u64,
        size: block.payload.len() as u64,
        detail: e.detail,
    })
}
