//! The decoders of each call a compute or transfer program makes, one function per call,
//! each reading the parameters in the order `generated_vulkan_api_call_encoders.cpp` (0.9.18)
//! writes them, return value last, and each struct in the order of
//! `generated_vulkan_struct_encoders.cpp` (`VkWriteDescriptorSet` as
//! `custom_vulkan_struct_encoders.cpp` writes it).
//!
//! Only what a gpusim trace can use is kept; every other member is still read, so that the
//! position stays in step and the final `finish` can check that the whole buffer was consumed.

use crate::decode::params::{PResult, Params};
use crate::decode::*;

/// `VkStructureType` values of the structs decoded here.
mod s_type {
    pub const SUBMIT_INFO: u32 = 4;
    pub const MEMORY_ALLOCATE_INFO: u32 = 5;
    pub const MAPPED_MEMORY_RANGE: u32 = 6;
    pub const FENCE_CREATE_INFO: u32 = 8;
    pub const SEMAPHORE_CREATE_INFO: u32 = 9;
    pub const EVENT_CREATE_INFO: u32 = 10;
    pub const BUFFER_CREATE_INFO: u32 = 12;
    pub const IMAGE_CREATE_INFO: u32 = 14;
    pub const IMAGE_VIEW_CREATE_INFO: u32 = 15;
    pub const SHADER_MODULE_CREATE_INFO: u32 = 16;
    pub const PIPELINE_SHADER_STAGE_CREATE_INFO: u32 = 18;
    pub const COMPUTE_PIPELINE_CREATE_INFO: u32 = 29;
    pub const SAMPLER_CREATE_INFO: u32 = 31;
    pub const PIPELINE_LAYOUT_CREATE_INFO: u32 = 30;
    pub const DESCRIPTOR_SET_LAYOUT_CREATE_INFO: u32 = 32;
    pub const DESCRIPTOR_POOL_CREATE_INFO: u32 = 33;
    pub const DESCRIPTOR_SET_ALLOCATE_INFO: u32 = 34;
    pub const WRITE_DESCRIPTOR_SET: u32 = 35;
    pub const COPY_DESCRIPTOR_SET: u32 = 36;
    pub const COMMAND_POOL_CREATE_INFO: u32 = 39;
    pub const COMMAND_BUFFER_ALLOCATE_INFO: u32 = 40;
    pub const COMMAND_BUFFER_INHERITANCE_INFO: u32 = 41;
    pub const COMMAND_BUFFER_BEGIN_INFO: u32 = 42;
    pub const BUFFER_MEMORY_BARRIER: u32 = 44;
    pub const IMAGE_MEMORY_BARRIER: u32 = 45;
    pub const MEMORY_BARRIER: u32 = 46;
    pub const PHYSICAL_DEVICE_MEMORY_PROPERTIES_2: u32 = 1_000_059_006;
    pub const DEVICE_QUEUE_INFO_2: u32 = 1_000_145_003;
    pub const BIND_BUFFER_MEMORY_INFO: u32 = 1_000_157_000;
    pub const BIND_IMAGE_MEMORY_INFO: u32 = 1_000_157_001;
    pub const MEMORY_BARRIER_2: u32 = 1_000_314_000;
    pub const BUFFER_MEMORY_BARRIER_2: u32 = 1_000_314_001;
    pub const IMAGE_MEMORY_BARRIER_2: u32 = 1_000_314_002;
    pub const DEPENDENCY_INFO: u32 = 1_000_314_003;
    pub const SUBMIT_INFO_2: u32 = 1_000_314_004;
    pub const SEMAPHORE_SUBMIT_INFO: u32 = 1_000_314_005;
    pub const COMMAND_BUFFER_SUBMIT_INFO: u32 = 1_000_314_006;
}

/// `VkAllocationCallbacks*`: six addresses when present, of no use to a trace.
fn allocator(p: &mut Params<'_>) -> PResult<()> {
    p.struct_ptr("pAllocator", |p| {
        for _ in 0..6 {
            p.u64()?;
        }
        Ok(())
    })?;
    Ok(())
}

/// An output handle (`VkBuffer*` and the like): `None` when the call failed and the layer
/// omitted it.
fn out_handle(p: &mut Params<'_>, what: &str) -> PResult<Option<u64>> {
    p.u64_ptr(what)
}

/// A `VkDeviceMemory`/`VkBuffer`/... created by a `vkCreate*`-shaped call: device, create
/// info (decoded by `info`), allocator, output handle, result.
fn create<T>(
    p: &mut Params<'_>,
    what: &str,
    info: impl FnOnce(&mut Params<'_>) -> PResult<T>,
) -> PResult<Created<T>> {
    p.handle()?;
    let info = p
        .struct_ptr(what, info)?
        .ok_or_else(|| p.error(format!("{what} is null")))?;
    allocator(p)?;
    let handle = out_handle(p, "output handle")?;
    let result = p.i32()?;
    Ok(Created {
        info,
        handle,
        result,
    })
}

fn memory_barrier(p: &mut Params<'_>) -> PResult<MemoryBarrier> {
    let next = p.s_type_and_next(s_type::MEMORY_BARRIER, "VkMemoryBarrier")?;
    no_next(p, &next, "VkMemoryBarrier")?;
    Ok(MemoryBarrier {
        src_stage_mask: 0,
        src_access_mask: u64::from(p.u32()?),
        dst_stage_mask: 0,
        dst_access_mask: u64::from(p.u32()?),
    })
}

fn buffer_memory_barrier(p: &mut Params<'_>) -> PResult<BufferMemoryBarrier> {
    let next = p.s_type_and_next(s_type::BUFFER_MEMORY_BARRIER, "VkBufferMemoryBarrier")?;
    no_next(p, &next, "VkBufferMemoryBarrier")?;
    let src_access_mask = u64::from(p.u32()?);
    let dst_access_mask = u64::from(p.u32()?);
    Ok(BufferMemoryBarrier {
        barrier: MemoryBarrier {
            src_stage_mask: 0,
            src_access_mask,
            dst_stage_mask: 0,
            dst_access_mask,
        },
        src_queue_family_index: p.u32()?,
        dst_queue_family_index: p.u32()?,
        buffer: p.handle()?,
        offset: p.u64()?,
        size: p.u64()?,
    })
}

/// `VkImageSubresourceRange`: five 32-bit members.
fn subresource_range(p: &mut Params<'_>) -> PResult<ImageSubresourceRange> {
    Ok(ImageSubresourceRange {
        aspect_mask: p.u32()?,
        base_mip_level: p.u32()?,
        level_count: p.u32()?,
        base_array_layer: p.u32()?,
        layer_count: p.u32()?,
    })
}

/// `VkImageSubresourceLayers`: four 32-bit members.
fn subresource_layers(p: &mut Params<'_>) -> PResult<ImageSubresourceLayers> {
    Ok(ImageSubresourceLayers {
        aspect_mask: p.u32()?,
        mip_level: p.u32()?,
        base_array_layer: p.u32()?,
        layer_count: p.u32()?,
    })
}

/// `VkOffset3D`.
fn offset3d(p: &mut Params<'_>) -> PResult<[i32; 3]> {
    Ok([p.i32()?, p.i32()?, p.i32()?])
}

/// `VkExtent3D`.
fn extent3d(p: &mut Params<'_>) -> PResult<[u32; 3]> {
    Ok([p.u32()?, p.u32()?, p.u32()?])
}

/// `VkBufferImageCopy`: 56 bytes.
fn buffer_image_copy(p: &mut Params<'_>) -> PResult<BufferImageCopy> {
    Ok(BufferImageCopy {
        buffer_offset: p.u64()?,
        buffer_row_length: p.u32()?,
        buffer_image_height: p.u32()?,
        image_subresource: subresource_layers(p)?,
        image_offset: offset3d(p)?,
        image_extent: extent3d(p)?,
    })
}

/// A `VkOffset3D[2]` member (`srcOffsets`, `dstOffsets`), which the encoder writes as an array
/// of two structs behind a pointer preamble.
fn two_offsets(p: &mut Params<'_>, what: &str) -> PResult<[[i32; 3]; 2]> {
    let v = p.struct_array(what, 12, offset3d)?.unwrap_or_default();
    match v[..] {
        [a, b] => Ok([a, b]),
        _ => Err(p.error(format!("{what}: {} offsets, expected 2", v.len()))),
    }
}

/// The part of an image memory barrier after its masks, either version.
fn image_barrier_tail(p: &mut Params<'_>, barrier: MemoryBarrier) -> PResult<ImageMemoryBarrier> {
    Ok(ImageMemoryBarrier {
        barrier,
        old_layout: p.u32()?,
        new_layout: p.u32()?,
        src_queue_family_index: p.u32()?,
        dst_queue_family_index: p.u32()?,
        image: p.handle()?,
        subresource_range: subresource_range(p)?,
    })
}

fn image_memory_barrier(p: &mut Params<'_>) -> PResult<ImageMemoryBarrier> {
    let next = p.s_type_and_next(s_type::IMAGE_MEMORY_BARRIER, "VkImageMemoryBarrier")?;
    no_next(p, &next, "VkImageMemoryBarrier")?;
    let src_access_mask = u64::from(p.u32()?);
    let dst_access_mask = u64::from(p.u32()?);
    image_barrier_tail(
        p,
        MemoryBarrier {
            src_stage_mask: 0,
            src_access_mask,
            dst_stage_mask: 0,
            dst_access_mask,
        },
    )
}

fn memory_barrier2(p: &mut Params<'_>) -> PResult<MemoryBarrier> {
    let next = p.s_type_and_next(s_type::MEMORY_BARRIER_2, "VkMemoryBarrier2")?;
    no_next(p, &next, "VkMemoryBarrier2")?;
    Ok(MemoryBarrier {
        src_stage_mask: p.u64()?,
        src_access_mask: p.u64()?,
        dst_stage_mask: p.u64()?,
        dst_access_mask: p.u64()?,
    })
}

fn buffer_memory_barrier2(p: &mut Params<'_>) -> PResult<BufferMemoryBarrier> {
    let next = p.s_type_and_next(s_type::BUFFER_MEMORY_BARRIER_2, "VkBufferMemoryBarrier2")?;
    no_next(p, &next, "VkBufferMemoryBarrier2")?;
    Ok(BufferMemoryBarrier {
        barrier: MemoryBarrier {
            src_stage_mask: p.u64()?,
            src_access_mask: p.u64()?,
            dst_stage_mask: p.u64()?,
            dst_access_mask: p.u64()?,
        },
        src_queue_family_index: p.u32()?,
        dst_queue_family_index: p.u32()?,
        buffer: p.handle()?,
        offset: p.u64()?,
        size: p.u64()?,
    })
}

fn image_memory_barrier2(p: &mut Params<'_>) -> PResult<ImageMemoryBarrier> {
    let next = p.s_type_and_next(s_type::IMAGE_MEMORY_BARRIER_2, "VkImageMemoryBarrier2")?;
    no_next(p, &next, "VkImageMemoryBarrier2")?;
    let barrier = MemoryBarrier {
        src_stage_mask: p.u64()?,
        src_access_mask: p.u64()?,
        dst_stage_mask: p.u64()?,
        dst_access_mask: p.u64()?,
    };
    image_barrier_tail(p, barrier)
}

/// `VkDependencyInfo`.
fn dependency_info(p: &mut Params<'_>) -> PResult<Dependency> {
    let next = p.s_type_and_next(s_type::DEPENDENCY_INFO, "VkDependencyInfo")?;
    no_next(p, &next, "VkDependencyInfo")?;
    let dependency_flags = p.u32()?;
    p.u32()?;
    let memory_barriers = p
        .struct_array("pMemoryBarriers", 8, memory_barrier2)?
        .unwrap_or_default();
    p.u32()?;
    let buffer_memory_barriers = p
        .struct_array("pBufferMemoryBarriers", 8, buffer_memory_barrier2)?
        .unwrap_or_default();
    p.u32()?;
    let image_memory_barriers = p
        .struct_array("pImageMemoryBarriers", 8, image_memory_barrier2)?
        .unwrap_or_default();
    Ok(Dependency {
        src_stage_mask: 0,
        dst_stage_mask: 0,
        dependency_flags,
        memory_barriers,
        buffer_memory_barriers,
        image_memory_barriers,
    })
}

/// The three barrier arrays of `vkCmdPipelineBarrier` and `vkCmdWaitEvents`, each after its
/// count.
fn barrier_arrays(p: &mut Params<'_>, dep: &mut Dependency) -> PResult<()> {
    p.u32()?;
    dep.memory_barriers = p
        .struct_array("pMemoryBarriers", 8, memory_barrier)?
        .unwrap_or_default();
    p.u32()?;
    dep.buffer_memory_barriers = p
        .struct_array("pBufferMemoryBarriers", 8, buffer_memory_barrier)?
        .unwrap_or_default();
    p.u32()?;
    dep.image_memory_barriers = p
        .struct_array("pImageMemoryBarriers", 8, image_memory_barrier)?
        .unwrap_or_default();
    Ok(())
}

/// Refuses a `pNext` chain on a struct whose extensions would change what a trace says.
fn no_next(p: &Params<'_>, next: &[PNext], what: &str) -> PResult<()> {
    match next.first() {
        None => Ok(()),
        Some(n) => Err(p.error(format!("{what}: pNext {n:?} is not expected here"))),
    }
}

fn mapped_range(p: &mut Params<'_>) -> PResult<MappedMemoryRange> {
    let next = p.s_type_and_next(s_type::MAPPED_MEMORY_RANGE, "VkMappedMemoryRange")?;
    no_next(p, &next, "VkMappedMemoryRange")?;
    Ok(MappedMemoryRange {
        memory: p.handle()?,
        offset: p.u64()?,
        size: p.u64()?,
    })
}

fn flags_create(p: &mut Params<'_>, s_type: u32, what: &str) -> PResult<(u32, Vec<PNext>)> {
    let next = p.s_type_and_next(s_type, what)?;
    Ok((p.u32()?, next))
}

fn shader_stage(p: &mut Params<'_>) -> PResult<ShaderStage> {
    let next = p.s_type_and_next(
        s_type::PIPELINE_SHADER_STAGE_CREATE_INFO,
        "VkPipelineShaderStageCreateInfo",
    )?;
    no_next(p, &next, "VkPipelineShaderStageCreateInfo")?;
    let flags = p.u32()?;
    let stage = p.u32()?;
    let module = p.handle()?;
    let name = p.string("pName")?.unwrap_or_default();
    let specialization = p.struct_ptr("pSpecializationInfo", |p| {
        p.u32()?;
        let map_entries = p
            .struct_array("pMapEntries", 16, |p| {
                Ok(SpecializationMapEntry {
                    constant_id: p.u32()?,
                    offset: p.u32()?,
                    size: p.u64()?,
                })
            })?
            .unwrap_or_default();
        p.u64()?;
        let data = p.byte_array("pData")?.unwrap_or_default();
        Ok(Specialization { map_entries, data })
    })?;
    Ok(ShaderStage {
        flags,
        stage,
        module,
        name,
        specialization,
    })
}

fn submit_info(p: &mut Params<'_>) -> PResult<Submit> {
    let next = p.s_type_and_next(s_type::SUBMIT_INFO, "VkSubmitInfo")?;
    p.u32()?;
    let wait = p.handle_array("pWaitSemaphores")?.unwrap_or_default();
    let stages = p.u32_array("pWaitDstStageMask")?.unwrap_or_default();
    if stages.len() != wait.len() {
        return Err(p.error(format!(
            "VkSubmitInfo: {} wait semaphores but {} stage masks",
            wait.len(),
            stages.len()
        )));
    }
    p.u32()?;
    let command_buffers = p.handle_array("pCommandBuffers")?.unwrap_or_default();
    p.u32()?;
    let signal = p.handle_array("pSignalSemaphores")?.unwrap_or_default();
    Ok(Submit {
        flags: 0,
        wait_semaphores: wait
            .into_iter()
            .zip(stages)
            .map(|(semaphore, stage)| SemaphoreSubmit {
                semaphore,
                value: 0,
                stage_mask: u64::from(stage),
            })
            .collect(),
        command_buffers,
        signal_semaphores: signal
            .into_iter()
            .map(|semaphore| SemaphoreSubmit {
                semaphore,
                value: 0,
                // vkQueueSubmit signals once all the batch's commands complete.
                stage_mask: ALL_COMMANDS,
            })
            .collect(),
        next,
    })
}

fn semaphore_submit(p: &mut Params<'_>) -> PResult<SemaphoreSubmit> {
    let next = p.s_type_and_next(s_type::SEMAPHORE_SUBMIT_INFO, "VkSemaphoreSubmitInfo")?;
    no_next(p, &next, "VkSemaphoreSubmitInfo")?;
    let semaphore = p.handle()?;
    let value = p.u64()?;
    let stage_mask = p.u64()?;
    p.u32()?;
    Ok(SemaphoreSubmit {
        semaphore,
        value,
        stage_mask,
    })
}

fn submit_info2(p: &mut Params<'_>) -> PResult<Submit> {
    let next = p.s_type_and_next(s_type::SUBMIT_INFO_2, "VkSubmitInfo2")?;
    let flags = p.u32()?;
    p.u32()?;
    let wait_semaphores = p
        .struct_array("pWaitSemaphoreInfos", 8, semaphore_submit)?
        .unwrap_or_default();
    p.u32()?;
    let command_buffers = p
        .struct_array("pCommandBufferInfos", 8, |p| {
            let next = p.s_type_and_next(
                s_type::COMMAND_BUFFER_SUBMIT_INFO,
                "VkCommandBufferSubmitInfo",
            )?;
            no_next(p, &next, "VkCommandBufferSubmitInfo")?;
            let cb = p.handle()?;
            p.u32()?;
            Ok(cb)
        })?
        .unwrap_or_default();
    p.u32()?;
    let signal_semaphores = p
        .struct_array("pSignalSemaphoreInfos", 8, semaphore_submit)?
        .unwrap_or_default();
    Ok(Submit {
        flags,
        wait_semaphores,
        command_buffers,
        signal_semaphores,
        next,
    })
}

fn memory_properties(p: &mut Params<'_>) -> PResult<MemoryProperties> {
    p.u32()?;
    let memory_types = p
        .struct_array("memoryTypes", 8, |p| {
            Ok(MemoryType {
                property_flags: p.u32()?,
                heap_index: p.u32()?,
            })
        })?
        .unwrap_or_default();
    p.u32()?;
    let heaps = p
        .struct_array("memoryHeaps", 12, |p| {
            let size = p.u64()?;
            p.u32()?;
            Ok(size)
        })?
        .unwrap_or_default();
    Ok(MemoryProperties {
        memory_types,
        heap_sizes: heaps,
    })
}

fn write_descriptor_set(p: &mut Params<'_>) -> PResult<WriteDescriptorSet> {
    let next = p.s_type_and_next(s_type::WRITE_DESCRIPTOR_SET, "VkWriteDescriptorSet")?;
    no_next(p, &next, "VkWriteDescriptorSet")?;
    let dst_set = p.handle()?;
    let dst_binding = p.u32()?;
    let dst_array_element = p.u32()?;
    let descriptor_count = p.u32()?;
    let descriptor_type = p.u32()?;
    // Image infos: sampler, image view (8 bytes each) and layout (4), written only for image
    // and sampler descriptor types.
    let image_info = p
        .struct_array("pImageInfo", 20, |p| {
            Ok(DescriptorImageInfo {
                sampler: p.handle()?,
                image_view: p.handle()?,
                image_layout: p.u32()?,
            })
        })?
        .unwrap_or_default();
    let buffer_info = p
        .struct_array("pBufferInfo", 24, |p| {
            Ok(DescriptorBufferInfo {
                buffer: p.handle()?,
                offset: p.u64()?,
                range: p.u64()?,
            })
        })?
        .unwrap_or_default();
    let texel_buffer_views = p.handle_array("pTexelBufferView")?.map_or(0, |v| v.len());
    Ok(WriteDescriptorSet {
        dst_set,
        dst_binding,
        dst_array_element,
        descriptor_count,
        descriptor_type,
        buffer_info,
        image_info,
        texel_buffer_views,
    })
}

/// Decodes the parameters of the call named `name`, or `None` for a call this module does
/// not decode (the converter decides whether to drop or refuse it).
pub(crate) fn decode(name: &str, p: &mut Params<'_>) -> PResult<Option<Call>> {
    use Call as C;
    let call = match name {
        "vkGetDeviceQueue" => {
            p.handle()?;
            let queue_family_index = p.u32()?;
            let queue_index = p.u32()?;
            let queue = out_handle(p, "pQueue")?;
            C::GetDeviceQueue {
                queue_family_index,
                queue_index,
                queue,
            }
        }
        "vkGetDeviceQueue2" => {
            p.handle()?;
            let (flags, queue_family_index, queue_index) = p
                .struct_ptr("pQueueInfo", |p| {
                    let next =
                        p.s_type_and_next(s_type::DEVICE_QUEUE_INFO_2, "VkDeviceQueueInfo2")?;
                    no_next(p, &next, "VkDeviceQueueInfo2")?;
                    Ok((p.u32()?, p.u32()?, p.u32()?))
                })?
                .ok_or_else(|| p.error("pQueueInfo is null"))?;
            let queue = out_handle(p, "pQueue")?;
            if flags != 0 {
                return Err(p.error(format!(
                    "VkDeviceQueueInfo2: flags 0x{flags:x} (protected queues are not imported)"
                )));
            }
            C::GetDeviceQueue {
                queue_family_index,
                queue_index,
                queue,
            }
        }
        "vkGetPhysicalDeviceMemoryProperties" => {
            p.handle()?;
            let props = p
                .struct_ptr("pMemoryProperties", memory_properties)?
                .unwrap_or_default();
            C::MemoryProperties(props)
        }
        "vkGetPhysicalDeviceMemoryProperties2" | "vkGetPhysicalDeviceMemoryProperties2KHR" => {
            p.handle()?;
            let props = p
                .struct_ptr("pMemoryProperties", |p| {
                    // Output chains (VkPhysicalDeviceMemoryBudgetPropertiesEXT) are not
                    // decoded; a chain here is refused by `pnext` with its type.
                    p.s_type_and_next(
                        s_type::PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                        "VkPhysicalDeviceMemoryProperties2",
                    )?;
                    memory_properties(p)
                })?
                .unwrap_or_default();
            C::MemoryProperties(props)
        }
        "vkAllocateMemory" => {
            let c = create(p, "pAllocateInfo", |p| {
                let next =
                    p.s_type_and_next(s_type::MEMORY_ALLOCATE_INFO, "VkMemoryAllocateInfo")?;
                Ok(MemoryAllocateInfo {
                    allocation_size: p.u64()?,
                    memory_type_index: p.u32()?,
                    next,
                })
            })?;
            C::AllocateMemory(c)
        }
        "vkFreeMemory" => {
            p.handle()?;
            let memory = p.handle()?;
            allocator(p)?;
            C::FreeMemory { memory }
        }
        "vkMapMemory" => {
            p.handle()?;
            let memory = p.handle()?;
            let offset = p.u64()?;
            let size = p.u64()?;
            let flags = p.u32()?;
            let data = p.u64_ptr("ppData")?;
            let result = p.i32()?;
            C::MapMemory {
                memory,
                offset,
                size,
                flags,
                data,
                result,
            }
        }
        "vkUnmapMemory" => {
            p.handle()?;
            C::UnmapMemory {
                memory: p.handle()?,
            }
        }
        "vkFlushMappedMemoryRanges" | "vkInvalidateMappedMemoryRanges" => {
            p.handle()?;
            p.u32()?;
            let ranges = p
                .struct_array("pMemoryRanges", 8, mapped_range)?
                .unwrap_or_default();
            let result = p.i32()?;
            if name == "vkFlushMappedMemoryRanges" {
                C::FlushMappedMemoryRanges { ranges, result }
            } else {
                C::InvalidateMappedMemoryRanges { ranges, result }
            }
        }
        "vkCreateBuffer" => C::CreateBuffer(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(s_type::BUFFER_CREATE_INFO, "VkBufferCreateInfo")?;
            let flags = p.u32()?;
            let size = p.u64()?;
            let usage = p.u32()?;
            let sharing_mode = p.u32()?;
            p.u32()?;
            p.u32_array("pQueueFamilyIndices")?;
            Ok(BufferCreateInfo {
                flags,
                size,
                usage,
                sharing_mode,
                next,
            })
        })?),
        "vkBindBufferMemory" => {
            p.handle()?;
            let bind = BindBufferMemory {
                buffer: p.handle()?,
                memory: p.handle()?,
                memory_offset: p.u64()?,
            };
            let result = p.i32()?;
            C::BindBufferMemory {
                binds: vec![bind],
                result,
            }
        }
        "vkBindBufferMemory2" | "vkBindBufferMemory2KHR" => {
            p.handle()?;
            p.u32()?;
            let binds = p
                .struct_array("pBindInfos", 8, |p| {
                    let next = p.s_type_and_next(
                        s_type::BIND_BUFFER_MEMORY_INFO,
                        "VkBindBufferMemoryInfo",
                    )?;
                    no_next(p, &next, "VkBindBufferMemoryInfo")?;
                    Ok(BindBufferMemory {
                        buffer: p.handle()?,
                        memory: p.handle()?,
                        memory_offset: p.u64()?,
                    })
                })?
                .unwrap_or_default();
            let result = p.i32()?;
            C::BindBufferMemory { binds, result }
        }
        "vkCreateImage" => C::CreateImage(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(s_type::IMAGE_CREATE_INFO, "VkImageCreateInfo")?;
            let flags = p.u32()?;
            let image_type = p.u32()?;
            let format = p.u32()?;
            let extent = extent3d(p)?;
            let mip_levels = p.u32()?;
            let array_layers = p.u32()?;
            let samples = p.u32()?;
            let tiling = p.u32()?;
            let usage = p.u32()?;
            let sharing_mode = p.u32()?;
            p.u32()?;
            p.u32_array("pQueueFamilyIndices")?;
            Ok(ImageCreateInfo {
                flags,
                image_type,
                format,
                extent,
                mip_levels,
                array_layers,
                samples,
                tiling,
                usage,
                sharing_mode,
                initial_layout: p.u32()?,
                next,
            })
        })?),
        "vkBindImageMemory" => {
            p.handle()?;
            let bind = BindImageMemory {
                image: p.handle()?,
                memory: p.handle()?,
                memory_offset: p.u64()?,
            };
            let result = p.i32()?;
            C::BindImageMemory {
                binds: vec![bind],
                result,
            }
        }
        "vkBindImageMemory2" | "vkBindImageMemory2KHR" => {
            p.handle()?;
            p.u32()?;
            let binds = p
                .struct_array("pBindInfos", 8, |p| {
                    let next =
                        p.s_type_and_next(s_type::BIND_IMAGE_MEMORY_INFO, "VkBindImageMemoryInfo")?;
                    no_next(p, &next, "VkBindImageMemoryInfo")?;
                    Ok(BindImageMemory {
                        image: p.handle()?,
                        memory: p.handle()?,
                        memory_offset: p.u64()?,
                    })
                })?
                .unwrap_or_default();
            let result = p.i32()?;
            C::BindImageMemory { binds, result }
        }
        "vkCreateImageView" => C::CreateImageView(create(p, "pCreateInfo", |p| {
            let next =
                p.s_type_and_next(s_type::IMAGE_VIEW_CREATE_INFO, "VkImageViewCreateInfo")?;
            no_next(p, &next, "VkImageViewCreateInfo")?;
            Ok(ImageViewCreateInfo {
                flags: p.u32()?,
                image: p.handle()?,
                view_type: p.u32()?,
                format: p.u32()?,
                components: [p.u32()?, p.u32()?, p.u32()?, p.u32()?],
                subresource_range: subresource_range(p)?,
            })
        })?),
        "vkCreateSampler" => C::CreateSampler(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(s_type::SAMPLER_CREATE_INFO, "VkSamplerCreateInfo")?;
            no_next(p, &next, "VkSamplerCreateInfo")?;
            Ok(SamplerCreateInfo {
                flags: p.u32()?,
                mag_filter: p.u32()?,
                min_filter: p.u32()?,
                mipmap_mode: p.u32()?,
                address_modes: [p.u32()?, p.u32()?, p.u32()?],
                mip_lod_bias: p.u32()?,
                anisotropy_enable: p.u32()?,
                max_anisotropy: p.u32()?,
                compare_enable: p.u32()?,
                compare_op: p.u32()?,
                min_lod: p.u32()?,
                max_lod: p.u32()?,
                border_color: p.u32()?,
                unnormalized_coordinates: p.u32()?,
            })
        })?),
        "vkCmdClearColorImage" => {
            let command_buffer = p.handle()?;
            let image = p.handle()?;
            let image_layout = p.u32()?;
            // VkClearColorValue is a union, which the layer writes as its `uint32[4]` view.
            let words = p
                .struct_ptr("pColor", |p| p.u32_array("pColor->uint32"))?
                .flatten()
                .ok_or_else(|| p.error("pColor is null"))?;
            let color: [u32; 4] = words
                .as_slice()
                .try_into()
                .map_err(|_| p.error(format!("pColor holds {} words, expected 4", words.len())))?;
            p.u32()?;
            let ranges = p
                .struct_array("pRanges", 20, subresource_range)?
                .unwrap_or_default();
            C::CmdClearColorImage {
                command_buffer,
                image,
                image_layout,
                color,
                ranges,
            }
        }
        "vkCmdClearDepthStencilImage" => {
            let command_buffer = p.handle()?;
            let image = p.handle()?;
            let image_layout = p.u32()?;
            let depth_stencil = p
                .struct_ptr("pDepthStencil", |p| Ok((p.u32()?, p.u32()?)))?
                .ok_or_else(|| p.error("pDepthStencil is null"))?;
            p.u32()?;
            let ranges = p
                .struct_array("pRanges", 20, subresource_range)?
                .unwrap_or_default();
            C::CmdClearDepthStencilImage {
                command_buffer,
                image,
                image_layout,
                depth_stencil,
                ranges,
            }
        }
        "vkCmdCopyBufferToImage" => {
            let command_buffer = p.handle()?;
            let src_buffer = p.handle()?;
            let dst_image = p.handle()?;
            let dst_image_layout = p.u32()?;
            p.u32()?;
            let regions = p
                .struct_array("pRegions", 56, buffer_image_copy)?
                .unwrap_or_default();
            C::CmdCopyBufferToImage {
                command_buffer,
                src_buffer,
                dst_image,
                dst_image_layout,
                regions,
            }
        }
        "vkCmdCopyImageToBuffer" => {
            let command_buffer = p.handle()?;
            let src_image = p.handle()?;
            let src_image_layout = p.u32()?;
            let dst_buffer = p.handle()?;
            p.u32()?;
            let regions = p
                .struct_array("pRegions", 56, buffer_image_copy)?
                .unwrap_or_default();
            C::CmdCopyImageToBuffer {
                command_buffer,
                src_image,
                src_image_layout,
                dst_buffer,
                regions,
            }
        }
        "vkCmdCopyImage" => {
            let command_buffer = p.handle()?;
            let src_image = p.handle()?;
            let src_image_layout = p.u32()?;
            let dst_image = p.handle()?;
            let dst_image_layout = p.u32()?;
            p.u32()?;
            let regions = p
                .struct_array("pRegions", 68, |p| {
                    Ok(ImageCopy {
                        src_subresource: subresource_layers(p)?,
                        src_offset: offset3d(p)?,
                        dst_subresource: subresource_layers(p)?,
                        dst_offset: offset3d(p)?,
                        extent: extent3d(p)?,
                    })
                })?
                .unwrap_or_default();
            C::CmdCopyImage {
                command_buffer,
                src_image,
                src_image_layout,
                dst_image,
                dst_image_layout,
                regions,
            }
        }
        "vkCmdBlitImage" => {
            let command_buffer = p.handle()?;
            let src_image = p.handle()?;
            let src_image_layout = p.u32()?;
            let dst_image = p.handle()?;
            let dst_image_layout = p.u32()?;
            p.u32()?;
            let regions = p
                .struct_array("pRegions", 32, |p| {
                    Ok(ImageBlit {
                        src_subresource: subresource_layers(p)?,
                        src_offsets: two_offsets(p, "srcOffsets")?,
                        dst_subresource: subresource_layers(p)?,
                        dst_offsets: two_offsets(p, "dstOffsets")?,
                    })
                })?
                .unwrap_or_default();
            let filter = p.u32()?;
            C::CmdBlitImage {
                command_buffer,
                src_image,
                src_image_layout,
                dst_image,
                dst_image_layout,
                regions,
                filter,
            }
        }
        "vkCreateShaderModule" => C::CreateShaderModule(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(
                s_type::SHADER_MODULE_CREATE_INFO,
                "VkShaderModuleCreateInfo",
            )?;
            no_next(p, &next, "VkShaderModuleCreateInfo")?;
            p.u32()?;
            let code_size = p.u64()?;
            let code = p.u32_array("pCode")?.unwrap_or_default();
            if code.len() as u64 != code_size / 4 {
                return Err(p.error(format!(
                    "codeSize {code_size} but {} words of pCode",
                    code.len()
                )));
            }
            Ok(code)
        })?),
        "vkCreateDescriptorSetLayout" => {
            C::CreateDescriptorSetLayout(create(p, "pCreateInfo", |p| {
                let next = p.s_type_and_next(
                    s_type::DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                    "VkDescriptorSetLayoutCreateInfo",
                )?;
                no_next(p, &next, "VkDescriptorSetLayoutCreateInfo")?;
                p.u32()?;
                p.u32()?;
                let bindings = p
                    .struct_array("pBindings", 20, |p| {
                        let binding = DescriptorSetLayoutBinding {
                            binding: p.u32()?,
                            descriptor_type: p.u32()?,
                            descriptor_count: p.u32()?,
                            stage_flags: p.u32()?,
                        };
                        p.handle_array("pImmutableSamplers")?;
                        Ok(binding)
                    })?
                    .unwrap_or_default();
                Ok(bindings)
            })?)
        }
        "vkCreatePipelineLayout" => C::CreatePipelineLayout(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(
                s_type::PIPELINE_LAYOUT_CREATE_INFO,
                "VkPipelineLayoutCreateInfo",
            )?;
            no_next(p, &next, "VkPipelineLayoutCreateInfo")?;
            p.u32()?;
            p.u32()?;
            let set_layouts = p.handle_array("pSetLayouts")?.unwrap_or_default();
            p.u32()?;
            let push_constant_ranges = p
                .struct_array("pPushConstantRanges", 12, |p| {
                    Ok(PushConstantRange {
                        stage_flags: p.u32()?,
                        offset: p.u32()?,
                        size: p.u32()?,
                    })
                })?
                .unwrap_or_default();
            Ok(PipelineLayoutCreateInfo {
                set_layouts,
                push_constant_ranges,
            })
        })?),
        "vkCreateComputePipelines" => {
            p.handle()?;
            p.handle()?;
            p.u32()?;
            let infos = p
                .struct_array("pCreateInfos", 8, |p| {
                    let next = p.s_type_and_next(
                        s_type::COMPUTE_PIPELINE_CREATE_INFO,
                        "VkComputePipelineCreateInfo",
                    )?;
                    no_next(p, &next, "VkComputePipelineCreateInfo")?;
                    let flags = p.u32()?;
                    let stage = shader_stage(p)?;
                    let layout = p.handle()?;
                    p.handle()?;
                    p.i32()?;
                    Ok(ComputePipelineCreateInfo {
                        flags,
                        stage,
                        layout,
                    })
                })?
                .unwrap_or_default();
            allocator(p)?;
            let pipelines = p.handle_array("pPipelines")?.unwrap_or_default();
            let result = p.i32()?;
            C::CreateComputePipelines {
                infos,
                pipelines,
                result,
            }
        }
        "vkCreateDescriptorPool" => C::CreateDescriptorPool(create(p, "pCreateInfo", |p| {
            let next = p.s_type_and_next(
                s_type::DESCRIPTOR_POOL_CREATE_INFO,
                "VkDescriptorPoolCreateInfo",
            )?;
            no_next(p, &next, "VkDescriptorPoolCreateInfo")?;
            let flags = p.u32()?;
            p.u32()?;
            p.u32()?;
            p.struct_array("pPoolSizes", 8, |p| Ok((p.u32()?, p.u32()?)))?;
            Ok(flags)
        })?),
        "vkAllocateDescriptorSets" => {
            p.handle()?;
            let (pool, set_layouts) = p
                .struct_ptr("pAllocateInfo", |p| {
                    let next = p.s_type_and_next(
                        s_type::DESCRIPTOR_SET_ALLOCATE_INFO,
                        "VkDescriptorSetAllocateInfo",
                    )?;
                    no_next(p, &next, "VkDescriptorSetAllocateInfo")?;
                    let pool = p.handle()?;
                    p.u32()?;
                    Ok((pool, p.handle_array("pSetLayouts")?.unwrap_or_default()))
                })?
                .ok_or_else(|| p.error("pAllocateInfo is null"))?;
            let sets = p.handle_array("pDescriptorSets")?.unwrap_or_default();
            let result = p.i32()?;
            C::AllocateDescriptorSets {
                pool,
                set_layouts,
                sets,
                result,
            }
        }
        "vkUpdateDescriptorSets" => {
            p.handle()?;
            p.u32()?;
            let writes = p
                .struct_array("pDescriptorWrites", 8, write_descriptor_set)?
                .unwrap_or_default();
            p.u32()?;
            let copies = p
                .struct_array("pDescriptorCopies", 8, |p| {
                    let next =
                        p.s_type_and_next(s_type::COPY_DESCRIPTOR_SET, "VkCopyDescriptorSet")?;
                    no_next(p, &next, "VkCopyDescriptorSet")?;
                    Ok(CopyDescriptorSet {
                        src_set: p.handle()?,
                        src_binding: p.u32()?,
                        src_array_element: p.u32()?,
                        dst_set: p.handle()?,
                        dst_binding: p.u32()?,
                        dst_array_element: p.u32()?,
                        descriptor_count: p.u32()?,
                    })
                })?
                .unwrap_or_default();
            C::UpdateDescriptorSets { writes, copies }
        }
        "vkCreateCommandPool" => C::CreateCommandPool(create(p, "pCreateInfo", |p| {
            let (flags, next) = flags_create(
                p,
                s_type::COMMAND_POOL_CREATE_INFO,
                "VkCommandPoolCreateInfo",
            )?;
            no_next(p, &next, "VkCommandPoolCreateInfo")?;
            Ok((flags, p.u32()?))
        })?),
        "vkAllocateCommandBuffers" => {
            p.handle()?;
            let (pool, level) = p
                .struct_ptr("pAllocateInfo", |p| {
                    let next = p.s_type_and_next(
                        s_type::COMMAND_BUFFER_ALLOCATE_INFO,
                        "VkCommandBufferAllocateInfo",
                    )?;
                    no_next(p, &next, "VkCommandBufferAllocateInfo")?;
                    let pool = p.handle()?;
                    let level = p.u32()?;
                    p.u32()?;
                    Ok((pool, level))
                })?
                .ok_or_else(|| p.error("pAllocateInfo is null"))?;
            let command_buffers = p.handle_array("pCommandBuffers")?.unwrap_or_default();
            let result = p.i32()?;
            C::AllocateCommandBuffers {
                pool,
                level,
                command_buffers,
                result,
            }
        }
        "vkBeginCommandBuffer" => {
            let command_buffer = p.handle()?;
            let (flags, inheritance) = p
                .struct_ptr("pBeginInfo", |p| {
                    let next = p.s_type_and_next(
                        s_type::COMMAND_BUFFER_BEGIN_INFO,
                        "VkCommandBufferBeginInfo",
                    )?;
                    no_next(p, &next, "VkCommandBufferBeginInfo")?;
                    let flags = p.u32()?;
                    let inheritance = p.struct_ptr("pInheritanceInfo", |p| {
                        let next = p.s_type_and_next(
                            s_type::COMMAND_BUFFER_INHERITANCE_INFO,
                            "VkCommandBufferInheritanceInfo",
                        )?;
                        no_next(p, &next, "VkCommandBufferInheritanceInfo")?;
                        p.handle()?;
                        p.u32()?;
                        p.handle()?;
                        for _ in 0..3 {
                            p.u32()?;
                        }
                        Ok(())
                    })?;
                    Ok((flags, inheritance.is_some()))
                })?
                .ok_or_else(|| p.error("pBeginInfo is null"))?;
            p.i32()?;
            C::BeginCommandBuffer {
                command_buffer,
                flags,
                inheritance,
            }
        }
        "vkEndCommandBuffer" => {
            let command_buffer = p.handle()?;
            p.i32()?;
            C::EndCommandBuffer { command_buffer }
        }
        "vkCmdBindPipeline" => C::CmdBindPipeline {
            command_buffer: p.handle()?,
            bind_point: p.u32()?,
            pipeline: p.handle()?,
        },
        "vkCmdBindDescriptorSets" => {
            let command_buffer = p.handle()?;
            let bind_point = p.u32()?;
            let layout = p.handle()?;
            let first_set = p.u32()?;
            p.u32()?;
            let sets = p.handle_array("pDescriptorSets")?.unwrap_or_default();
            p.u32()?;
            let dynamic_offsets = p.u32_array("pDynamicOffsets")?.unwrap_or_default();
            C::CmdBindDescriptorSets {
                command_buffer,
                bind_point,
                layout,
                first_set,
                sets,
                dynamic_offsets,
            }
        }
        "vkCmdPushConstants" => {
            let command_buffer = p.handle()?;
            let layout = p.handle()?;
            let stage_flags = p.u32()?;
            let offset = p.u32()?;
            let size = p.u32()?;
            let values = p.byte_array("pValues")?.unwrap_or_default();
            if values.len() as u64 != u64::from(size) {
                return Err(p.error(format!("size {size} but {} bytes of pValues", values.len())));
            }
            C::CmdPushConstants {
                command_buffer,
                layout,
                stage_flags,
                offset,
                values,
            }
        }
        "vkCmdDispatch" => C::CmdDispatch {
            command_buffer: p.handle()?,
            base_group: [0; 3],
            group_count: [p.u32()?, p.u32()?, p.u32()?],
        },
        "vkCmdDispatchBase" | "vkCmdDispatchBaseKHR" => C::CmdDispatch {
            command_buffer: p.handle()?,
            base_group: [p.u32()?, p.u32()?, p.u32()?],
            group_count: [p.u32()?, p.u32()?, p.u32()?],
        },
        "vkCmdFillBuffer" => C::CmdFillBuffer {
            command_buffer: p.handle()?,
            dst_buffer: p.handle()?,
            dst_offset: p.u64()?,
            size: p.u64()?,
            data: p.u32()?,
        },
        "vkCmdUpdateBuffer" => {
            let command_buffer = p.handle()?;
            let dst_buffer = p.handle()?;
            let dst_offset = p.u64()?;
            let data_size = p.u64()?;
            let data = p.byte_array("pData")?.unwrap_or_default();
            if data.len() as u64 != data_size {
                return Err(p.error(format!(
                    "dataSize {data_size} but {} bytes of pData",
                    data.len()
                )));
            }
            C::CmdUpdateBuffer {
                command_buffer,
                dst_buffer,
                dst_offset,
                data,
            }
        }
        "vkCmdCopyBuffer" => {
            let command_buffer = p.handle()?;
            let src_buffer = p.handle()?;
            let dst_buffer = p.handle()?;
            p.u32()?;
            let regions = p
                .struct_array("pRegions", 24, |p| {
                    Ok(BufferCopy {
                        src_offset: p.u64()?,
                        dst_offset: p.u64()?,
                        size: p.u64()?,
                    })
                })?
                .unwrap_or_default();
            C::CmdCopyBuffer {
                command_buffer,
                src_buffer,
                dst_buffer,
                regions,
            }
        }
        "vkCmdPipelineBarrier" => {
            let command_buffer = p.handle()?;
            let mut dependency = Dependency {
                src_stage_mask: u64::from(p.u32()?),
                dst_stage_mask: u64::from(p.u32()?),
                dependency_flags: p.u32()?,
                ..Dependency::default()
            };
            barrier_arrays(p, &mut dependency)?;
            C::CmdPipelineBarrier {
                command_buffer,
                dependency,
                sync2: false,
            }
        }
        "vkCmdPipelineBarrier2" | "vkCmdPipelineBarrier2KHR" => {
            let command_buffer = p.handle()?;
            let dependency = p
                .struct_ptr("pDependencyInfo", dependency_info)?
                .ok_or_else(|| p.error("pDependencyInfo is null"))?;
            C::CmdPipelineBarrier {
                command_buffer,
                dependency,
                sync2: true,
            }
        }
        "vkCmdSetEvent" | "vkCmdResetEvent" => {
            let command_buffer = p.handle()?;
            let event = p.handle()?;
            let stage_mask = u64::from(p.u32()?);
            if name == "vkCmdSetEvent" {
                C::CmdSetEvent {
                    command_buffer,
                    event,
                    stage_mask,
                    dependency: None,
                }
            } else {
                C::CmdResetEvent {
                    command_buffer,
                    event,
                    stage_mask,
                }
            }
        }
        "vkCmdResetEvent2" | "vkCmdResetEvent2KHR" => C::CmdResetEvent {
            command_buffer: p.handle()?,
            event: p.handle()?,
            stage_mask: p.u64()?,
        },
        "vkCmdSetEvent2" | "vkCmdSetEvent2KHR" => {
            let command_buffer = p.handle()?;
            let event = p.handle()?;
            let dependency = p
                .struct_ptr("pDependencyInfo", dependency_info)?
                .ok_or_else(|| p.error("pDependencyInfo is null"))?;
            C::CmdSetEvent {
                command_buffer,
                event,
                stage_mask: 0,
                dependency: Some(dependency),
            }
        }
        "vkCmdWaitEvents" => {
            let command_buffer = p.handle()?;
            p.u32()?;
            let events = p.handle_array("pEvents")?.unwrap_or_default();
            let mut dependency = Dependency {
                src_stage_mask: u64::from(p.u32()?),
                dst_stage_mask: u64::from(p.u32()?),
                ..Dependency::default()
            };
            barrier_arrays(p, &mut dependency)?;
            C::CmdWaitEvents {
                command_buffer,
                events,
                dependencies: vec![dependency],
                sync2: false,
            }
        }
        "vkCmdWaitEvents2" | "vkCmdWaitEvents2KHR" => {
            let command_buffer = p.handle()?;
            p.u32()?;
            let events = p.handle_array("pEvents")?.unwrap_or_default();
            let dependencies = p
                .struct_array("pDependencyInfos", 8, dependency_info)?
                .unwrap_or_default();
            C::CmdWaitEvents {
                command_buffer,
                events,
                dependencies,
                sync2: true,
            }
        }
        "vkQueueSubmit" | "vkQueueSubmit2" | "vkQueueSubmit2KHR" => {
            let queue = p.handle()?;
            p.u32()?;
            let submits = if name == "vkQueueSubmit" {
                p.struct_array("pSubmits", 8, submit_info)?
            } else {
                p.struct_array("pSubmits", 8, submit_info2)?
            }
            .unwrap_or_default();
            let fence = p.handle()?;
            let result = p.i32()?;
            C::QueueSubmit {
                queue,
                submits,
                fence,
                result,
            }
        }
        "vkCreateFence" => C::CreateFence(create(p, "pCreateInfo", |p| {
            let (flags, next) = flags_create(p, s_type::FENCE_CREATE_INFO, "VkFenceCreateInfo")?;
            no_next(p, &next, "VkFenceCreateInfo")?;
            Ok(flags)
        })?),
        "vkCreateSemaphore" => C::CreateSemaphore(create(p, "pCreateInfo", |p| {
            let (_, next) =
                flags_create(p, s_type::SEMAPHORE_CREATE_INFO, "VkSemaphoreCreateInfo")?;
            Ok(next)
        })?),
        "vkCreateEvent" => C::CreateEvent(create(p, "pCreateInfo", |p| {
            let (flags, next) = flags_create(p, s_type::EVENT_CREATE_INFO, "VkEventCreateInfo")?;
            no_next(p, &next, "VkEventCreateInfo")?;
            Ok(flags)
        })?),
        "vkWaitForFences" => {
            p.handle()?;
            p.u32()?;
            let fences = p.handle_array("pFences")?.unwrap_or_default();
            let wait_all = p.u32()? != 0;
            let timeout = p.u64()?;
            let result = p.i32()?;
            C::WaitForFences {
                fences,
                wait_all,
                timeout,
                result,
            }
        }
        "vkGetFenceStatus" => {
            p.handle()?;
            let fence = p.handle()?;
            let result = p.i32()?;
            C::WaitForFences {
                fences: vec![fence],
                wait_all: true,
                timeout: 0,
                result,
            }
        }
        "vkResetFences" => {
            p.handle()?;
            p.u32()?;
            let fences = p.handle_array("pFences")?.unwrap_or_default();
            p.i32()?;
            C::ResetFences { fences }
        }
        "vkSetEvent" | "vkResetEvent" => {
            p.handle()?;
            let event = p.handle()?;
            p.i32()?;
            if name == "vkSetEvent" {
                C::SetEvent { event }
            } else {
                C::ResetEvent { event }
            }
        }
        "vkQueueWaitIdle" => {
            let queue = p.handle()?;
            let result = p.i32()?;
            C::QueueWaitIdle { queue, result }
        }
        "vkDeviceWaitIdle" => {
            p.handle()?;
            let result = p.i32()?;
            C::DeviceWaitIdle { result }
        }
        _ => return Ok(None),
    };
    p.finish()?;
    Ok(Some(call))
}
