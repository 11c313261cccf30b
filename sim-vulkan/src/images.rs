//! The trace's images as Vulkan takes them: formats, usages, layouts, subresources, copy
//! regions, clear values and image barriers.
//!
//! A real driver lays an image out its own way, so the replay never compares an image's bytes
//! with the reference run's: what a trace copies out of an image into a buffer is compared, as
//! any buffer is ([`crate::run`] leaves image bytes out of the memory comparison).

use ash::vk;
use sim_core::api::{BufferImageCopy, ImageBinding, ImageMemoryBarrier};
use sim_rop::{Aspect, Format, ImageType, SubresourceRange, Texel, Tiling};

use crate::error::ReplayError;

/// The Vulkan format of a trace format.
pub(crate) fn format(f: Format) -> vk::Format {
    match f {
        Format::R8G8B8A8_UNORM => vk::Format::R8G8B8A8_UNORM,
        Format::R8G8B8A8_SRGB => vk::Format::R8G8B8A8_SRGB,
        Format::B8G8R8A8_UNORM => vk::Format::B8G8R8A8_UNORM,
        Format::R32_UINT => vk::Format::R32_UINT,
        Format::R32_SFLOAT => vk::Format::R32_SFLOAT,
        Format::R32G32_SFLOAT => vk::Format::R32G32_SFLOAT,
        Format::R32G32B32_SFLOAT => vk::Format::R32G32B32_SFLOAT,
        Format::R32G32B32A32_SFLOAT => vk::Format::R32G32B32A32_SFLOAT,
        Format::R16G16B16A16_SFLOAT => vk::Format::R16G16B16A16_SFLOAT,
        Format::D32_SFLOAT => vk::Format::D32_SFLOAT,
        Format::D24_UNORM_S8_UINT => vk::Format::D24_UNORM_S8_UINT,
        Format::D32_SFLOAT_S8_UINT => vk::Format::D32_SFLOAT_S8_UINT,
    }
}

/// The usage flags a trace names (`TRANSFER_DST|SAMPLED`).
pub(crate) fn usage(names: &str) -> vk::ImageUsageFlags {
    names.split('|').map(|u| u.trim().trim_start_matches("VK_IMAGE_USAGE_").trim_end_matches("_BIT")).fold(vk::ImageUsageFlags::empty(), |acc, u| {
        acc | match u {
            "TRANSFER_SRC" => vk::ImageUsageFlags::TRANSFER_SRC,
            "TRANSFER_DST" => vk::ImageUsageFlags::TRANSFER_DST,
            "SAMPLED" => vk::ImageUsageFlags::SAMPLED,
            "STORAGE" => vk::ImageUsageFlags::STORAGE,
            "COLOR_ATTACHMENT" => vk::ImageUsageFlags::COLOR_ATTACHMENT,
            "DEPTH_STENCIL_ATTACHMENT" => vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            "TRANSIENT_ATTACHMENT" => vk::ImageUsageFlags::TRANSIENT_ATTACHMENT,
            "INPUT_ATTACHMENT" => vk::ImageUsageFlags::INPUT_ATTACHMENT,
            _ => vk::ImageUsageFlags::empty(),
        }
    })
}

/// The Vulkan layout a trace names (the loader accepts only these names).
pub(crate) fn layout(name: &str, at: &str) -> Result<vk::ImageLayout, ReplayError> {
    Ok(match name {
        "UNDEFINED" => vk::ImageLayout::UNDEFINED,
        "GENERAL" => vk::ImageLayout::GENERAL,
        "COLOR_ATTACHMENT_OPTIMAL" => vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        "DEPTH_STENCIL_ATTACHMENT_OPTIMAL" => vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        "DEPTH_STENCIL_READ_ONLY_OPTIMAL" => vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
        "SHADER_READ_ONLY_OPTIMAL" => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        "TRANSFER_SRC_OPTIMAL" => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        "TRANSFER_DST_OPTIMAL" => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        "PREINITIALIZED" => vk::ImageLayout::PREINITIALIZED,
        "DEPTH_ATTACHMENT_OPTIMAL" => vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
        "DEPTH_READ_ONLY_OPTIMAL" => vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
        "STENCIL_ATTACHMENT_OPTIMAL" => vk::ImageLayout::STENCIL_ATTACHMENT_OPTIMAL,
        "STENCIL_READ_ONLY_OPTIMAL" => vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL,
        "READ_ONLY_OPTIMAL" => vk::ImageLayout::READ_ONLY_OPTIMAL,
        "ATTACHMENT_OPTIMAL" => vk::ImageLayout::ATTACHMENT_OPTIMAL,
        "PRESENT_SRC_KHR" => vk::ImageLayout::PRESENT_SRC_KHR,
        other => return Err(ReplayError::Unsupported { at: at.to_string(), message: format!("layout {other} is not one the replay knows") }),
    })
}

/// The aspect flag of one aspect.
fn aspect(a: Aspect) -> vk::ImageAspectFlags {
    match a {
        Aspect::Color => vk::ImageAspectFlags::COLOR,
        Aspect::Depth => vk::ImageAspectFlags::DEPTH,
        Aspect::Stencil => vk::ImageAspectFlags::STENCIL,
    }
}

/// A subresource range as Vulkan takes it.
pub(crate) fn range(r: &SubresourceRange) -> vk::ImageSubresourceRange {
    let mask = [Aspect::Color, Aspect::Depth, Aspect::Stencil].into_iter().filter(|&a| r.aspects[a as usize]).fold(vk::ImageAspectFlags::empty(), |m, a| m | aspect(a));
    vk::ImageSubresourceRange { aspect_mask: mask, base_mip_level: r.base_mip_level, level_count: r.level_count, base_array_layer: r.base_array_layer, layer_count: r.layer_count }
}

/// A buffer-image copy region as Vulkan takes it.
pub(crate) fn copy_region(r: &BufferImageCopy) -> vk::BufferImageCopy {
    let s = &r.subresource;
    vk::BufferImageCopy {
        buffer_offset: r.buffer_offset,
        buffer_row_length: r.buffer_row_length,
        buffer_image_height: r.buffer_image_height,
        image_subresource: layers(s),
        image_offset: vk::Offset3D { x: r.image_offset[0] as i32, y: r.image_offset[1] as i32, z: r.image_offset[2] as i32 },
        image_extent: vk::Extent3D { width: r.image_extent[0], height: r.image_extent[1], depth: r.image_extent[2] },
    }
}

/// A VkImageSubresourceLayers.
fn layers(s: &sim_core::api::SubresourceLayers) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers { aspect_mask: aspect(s.aspect), mip_level: s.mip_level, base_array_layer: s.base_array_layer, layer_count: s.layer_count }
}

/// A region of vkCmdCopyImage.
pub(crate) fn image_copy(r: &sim_core::api::ImageCopy) -> vk::ImageCopy {
    let offset = |o: [u32; 3]| vk::Offset3D { x: o[0] as i32, y: o[1] as i32, z: o[2] as i32 };
    vk::ImageCopy {
        src_subresource: layers(&r.src_subresource),
        src_offset: offset(r.src_offset),
        dst_subresource: layers(&r.dst_subresource),
        dst_offset: offset(r.dst_offset),
        extent: vk::Extent3D { width: r.extent[0], height: r.extent[1], depth: r.extent[2] },
    }
}

/// A region of vkCmdBlitImage.
pub(crate) fn image_blit(r: &sim_core::api::ImageBlit) -> vk::ImageBlit {
    let offset = |o: [u32; 3]| vk::Offset3D { x: o[0] as i32, y: o[1] as i32, z: o[2] as i32 };
    vk::ImageBlit {
        src_subresource: layers(&r.src_subresource),
        src_offsets: [offset(r.src_offsets[0]), offset(r.src_offsets[1])],
        dst_subresource: layers(&r.dst_subresource),
        dst_offsets: [offset(r.dst_offsets[0]), offset(r.dst_offsets[1])],
    }
}

/// The clear colour whose encoding in `f` is `texel`: its values as the format decodes them
/// (floats for normalized and float formats, which the driver encodes back to the same bytes;
/// integers for integer formats).
pub(crate) fn clear_color(f: Format, texel: &[u8]) -> vk::ClearColorValue {
    match f.decode(Aspect::Color, texel) {
        Texel::Uint(u) => vk::ClearColorValue { uint32: u },
        Texel::Float(v) => vk::ClearColorValue { float32: v },
        Texel::Stencil(s) => vk::ClearColorValue { uint32: [u32::from(s), 0, 0, 0] },
    }
}

/// The create info of image `im` (its queue families exclusive; initial layout as the trace
/// gives it).
pub(crate) fn create_info(im: &ImageBinding) -> vk::ImageCreateInfo<'static> {
    let d = &im.layout.desc;
    let image_type = match d.image_type {
        ImageType::D1 => vk::ImageType::TYPE_1D,
        ImageType::D2 => vk::ImageType::TYPE_2D,
        ImageType::D3 => vk::ImageType::TYPE_3D,
    };
    vk::ImageCreateInfo::default()
        .image_type(image_type)
        .format(format(d.format))
        .extent(vk::Extent3D { width: d.extent[0], height: d.extent[1], depth: d.extent[2] })
        .mip_levels(d.mip_levels)
        .array_layers(d.array_layers)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(if d.tiling == Tiling::Linear { vk::ImageTiling::LINEAR } else { vk::ImageTiling::OPTIMAL })
        .usage(usage(&im.usage))
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(if im.initial_layout == "PREINITIALIZED" { vk::ImageLayout::PREINITIALIZED } else { vk::ImageLayout::UNDEFINED })
}

/// The create info of a view of `image` (`im` in the trace) over `range`, an array view when
/// `arrayed`, in the image's format.
pub(crate) fn view_info(im: &ImageBinding, image: vk::Image, range: &SubresourceRange, arrayed: bool) -> vk::ImageViewCreateInfo<'static> {
    let view_type = match (im.layout.desc.image_type, arrayed) {
        (ImageType::D1, false) => vk::ImageViewType::TYPE_1D,
        (ImageType::D1, true) => vk::ImageViewType::TYPE_1D_ARRAY,
        (ImageType::D2, false) => vk::ImageViewType::TYPE_2D,
        (ImageType::D2, true) => vk::ImageViewType::TYPE_2D_ARRAY,
        (ImageType::D3, _) => vk::ImageViewType::TYPE_3D,
    };
    vk::ImageViewCreateInfo::default().image(image).view_type(view_type).format(format(im.layout.desc.format)).subresource_range(self::range(range))
}

/// The create info of a sampler.
pub(crate) fn sampler_info(s: &sim_rop::Sampler) -> vk::SamplerCreateInfo<'static> {
    use sim_rop::{AddressMode, BorderColor, Filter, MipmapMode};
    let filter = |f: Filter| if f == Filter::Linear { vk::Filter::LINEAR } else { vk::Filter::NEAREST };
    let mode = |m: AddressMode| match m {
        AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
        AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        AddressMode::MirrorClampToEdge => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
    };
    let border = match s.border_color {
        BorderColor::FloatTransparentBlack => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        BorderColor::IntTransparentBlack => vk::BorderColor::INT_TRANSPARENT_BLACK,
        BorderColor::FloatOpaqueBlack => vk::BorderColor::FLOAT_OPAQUE_BLACK,
        BorderColor::IntOpaqueBlack => vk::BorderColor::INT_OPAQUE_BLACK,
        BorderColor::FloatOpaqueWhite => vk::BorderColor::FLOAT_OPAQUE_WHITE,
        BorderColor::IntOpaqueWhite => vk::BorderColor::INT_OPAQUE_WHITE,
    };
    vk::SamplerCreateInfo::default()
        .mag_filter(filter(s.mag_filter))
        .min_filter(filter(s.min_filter))
        .mipmap_mode(if s.mipmap_mode == MipmapMode::Linear { vk::SamplerMipmapMode::LINEAR } else { vk::SamplerMipmapMode::NEAREST })
        .address_mode_u(mode(s.address_mode[0]))
        .address_mode_v(mode(s.address_mode[1]))
        .address_mode_w(mode(s.address_mode[2]))
        .mip_lod_bias(s.mip_lod_bias)
        .min_lod(s.min_lod)
        .max_lod(s.max_lod)
        .border_color(border)
}

/// An image barrier's old and new layouts and its subresources, as both shapes take them.
fn transition(b: &ImageMemoryBarrier, at: &str) -> Result<(vk::ImageLayout, vk::ImageLayout, vk::ImageSubresourceRange), ReplayError> {
    Ok((layout(&b.old_layout, at)?, layout(&b.new_layout, at)?, range(&b.range)))
}

/// An image barrier in the synchronization2 shape.
pub(crate) fn barrier2(b: &ImageMemoryBarrier, image: vk::Image, at: &str) -> Result<vk::ImageMemoryBarrier2<'static>, ReplayError> {
    let (old, new, subresources) = transition(b, at)?;
    Ok(vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::from_raw(b.barrier.src_stage_mask.bits()))
        .src_access_mask(vk::AccessFlags2::from_raw(b.barrier.src_access_mask.bits()))
        .dst_stage_mask(vk::PipelineStageFlags2::from_raw(b.barrier.dst_stage_mask.bits()))
        .dst_access_mask(vk::AccessFlags2::from_raw(b.barrier.dst_access_mask.bits()))
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(subresources))
}

/// An image barrier in the synchronization1 shape (the command carries the stage masks).
pub(crate) fn barrier1(b: &ImageMemoryBarrier, image: vk::Image, at: &str) -> Result<vk::ImageMemoryBarrier<'static>, ReplayError> {
    let (old, new, subresources) = transition(b, at)?;
    let ignored = vk::QUEUE_FAMILY_IGNORED;
    Ok(vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::from_raw(b.barrier.src_access_mask.bits() as u32))
        .dst_access_mask(vk::AccessFlags::from_raw(b.barrier.dst_access_mask.bits() as u32))
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(ignored)
        .dst_queue_family_index(ignored)
        .image(image)
        .subresource_range(subresources))
}
