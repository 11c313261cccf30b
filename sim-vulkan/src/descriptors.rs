//! Descriptor sets of one dispatch or draw: allocated from the replay's pool, written with the
//! trace's buffer, image and sampler descriptors, and bound (shared by `record.rs` and
//! `graphics.rs`).

use ash::vk;
use sim_core::api::{BufferBinding, ImageDescriptor, Workload};

use crate::error::{ReplayError, VkContext};
use crate::objects::{Objects, Pipeline};

/// Allocates descriptor sets for one dispatch or draw with pipeline `p`, writes its buffer
/// (`bindings`) and image and sampler (`images`) descriptors into them, and binds them at
/// `point`. Descriptors for bindings the pipeline's shaders do not declare are left out, as
/// Vulkan allows a layout to hold more than a shader reads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bind_descriptors(
    o: &Objects<'_>,
    w: &Workload,
    handle: vk::CommandBuffer,
    point: vk::PipelineBindPoint,
    p: &Pipeline,
    bindings: &[BufferBinding],
    images: &[ImageDescriptor],
    at: &str,
) -> Result<(), ReplayError> {
    if p.set_layouts.is_empty() {
        return Ok(());
    }
    let d = &o.s.device;
    let l = &o.s.limits;
    let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(o.descriptor_pool).set_layouts(&p.set_layouts);
    // SAFETY: a live pool sized for every dispatch and draw of every recording.
    let sets = unsafe { d.allocate_descriptor_sets(&info) }.call_at("vkAllocateDescriptorSets", at)?;
    let mut infos = Vec::new();
    let mut targets = Vec::new();
    for (i, b) in bindings.iter().enumerate() {
        let Some(&ty) = p.bindings.get(&(b.set, b.binding)) else { continue };
        let (align, max, what) = if ty == vk::DescriptorType::UNIFORM_BUFFER {
            (l.min_uniform_buffer_offset_alignment, l.max_uniform_buffer_range as u64, "Uniform")
        } else {
            (l.min_storage_buffer_offset_alignment, l.max_storage_buffer_range as u64, "Storage")
        };
        if b.offset % align.max(1) != 0 {
            return Err(ReplayError::Unsupported { at: format!("{at}.bindings[{i}].offset"), message: format!("offset {} is not a multiple of the device's min{what}BufferOffsetAlignment {align}", b.offset) });
        }
        let range = b.range.unwrap_or(w.buffers[b.buffer].size.saturating_sub(b.offset));
        if range > max {
            return Err(ReplayError::Unsupported { at: format!("{at}.bindings[{i}].range"), message: format!("range {range} exceeds the device's max{what}BufferRange {max}") });
        }
        infos.push([vk::DescriptorBufferInfo { buffer: o.buffers[b.buffer], offset: b.offset, range: b.range.unwrap_or(vk::WHOLE_SIZE) }]);
        targets.push((sets[b.set as usize], b.binding, ty));
    }
    let mut writes: Vec<vk::WriteDescriptorSet> =
        targets.iter().zip(&infos).map(|(&(set, binding, ty), info)| vk::WriteDescriptorSet::default().dst_set(set).dst_binding(binding).descriptor_type(ty).buffer_info(info)).collect();
    // Image and sampler descriptors: the view made for them, the layout they name.
    let mut image_infos = Vec::new();
    let mut image_targets = Vec::new();
    for (i, desc) in images.iter().enumerate() {
        let Some(&ty) = p.bindings.get(&(desc.set, desc.binding)) else { continue };
        if desc.descriptor_type == sim_core::api::ImageDescriptorType::InputAttachment {
            return Err(ReplayError::Unsupported {
                at: format!("{at}.images[{i}]"),
                message: "input attachments are not replayed yet (the replay's SPIR-V, written by naga, has no subpass inputs, and a sampled image in their place would change what the program does and what the layer checks)".into(),
            });
        }
        if desc.descriptor_type == sim_core::api::ImageDescriptorType::CombinedImageSampler {
            return Err(ReplayError::Unsupported { at: format!("{at}.images[{i}]"), message: "combined image samplers are not replayed yet (the replay's SPIR-V, written by naga, samples through separate images and samplers)".into() });
        }
        let mut info = vk::DescriptorImageInfo::default();
        if let Some(s) = desc.sampler {
            info = info.sampler(o.samplers[s]);
        }
        if let Some(key) = crate::objects::ViewKey::of(p, desc) {
            let view = *o.views.get(&key).ok_or_else(|| ReplayError::Unsupported { at: format!("{at}.images[{i}]"), message: "no view was made for this descriptor".into() })?;
            info = info.image_view(view).image_layout(crate::images::layout(&desc.layout, at)?);
        }
        image_infos.push([info]);
        image_targets.push((sets[desc.set as usize], desc.binding, ty));
    }
    writes.extend(image_targets.iter().zip(&image_infos).map(|(&(set, binding, ty), info)| vk::WriteDescriptorSet::default().dst_set(set).dst_binding(binding).descriptor_type(ty).image_info(info)));
    // SAFETY: the sets were just allocated; every info outlives the calls; recording.
    unsafe {
        d.update_descriptor_sets(&writes, &[]);
        d.cmd_bind_descriptor_sets(handle, point, p.layout, 0, &sets, &[]);
    }
    Ok(())
}
