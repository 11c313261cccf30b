//! Recording the trace's command buffers: each command becomes the Vulkan command the trace
//! names, barriers in the synchronization shape the trace used, and each dispatch and draw gets
//! its descriptor sets and push constants (graphics commands: [`crate::graphics::Recorder`]).

use std::collections::HashMap;

use ash::vk;
use sim_core::api::{Command, CommandBufferDesc, DependencyInfo, Workload};
use sim_core::sync::MemoryBarrier2;

use crate::error::{ReplayError, VkContext};
use crate::layer::Phase;
use crate::objects::Objects;

fn stages2(m: sim_core::sync::PipelineStageFlags2) -> vk::PipelineStageFlags2 {
    vk::PipelineStageFlags2::from_raw(m.bits())
}

fn access2(m: sim_core::sync::AccessFlags2) -> vk::AccessFlags2 {
    vk::AccessFlags2::from_raw(m.bits())
}

/// A synchronization1 mask: the 32-bit legacy flags, which share their values with the
/// synchronization2 ones (the loader refuses synchronization2-only bits in this shape).
fn stages1(m: sim_core::sync::PipelineStageFlags2) -> vk::PipelineStageFlags {
    vk::PipelineStageFlags::from_raw(m.bits() as u32)
}

fn access1(m: sim_core::sync::AccessFlags2) -> vk::AccessFlags {
    vk::AccessFlags::from_raw(m.bits() as u32)
}

fn memory_barrier2(b: &MemoryBarrier2) -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(stages2(b.src_stage_mask))
        .src_access_mask(access2(b.src_access_mask))
        .dst_stage_mask(stages2(b.dst_stage_mask))
        .dst_access_mask(access2(b.dst_access_mask))
}

/// The barriers of a dependency as synchronization2 structures: memory, buffer, image.
type Barriers2 = (Vec<vk::MemoryBarrier2<'static>>, Vec<vk::BufferMemoryBarrier2<'static>>, Vec<vk::ImageMemoryBarrier2<'static>>);

/// The barriers of `dep`, as synchronization2 structures.
fn barriers2(o: &Objects<'_>, dep: &DependencyInfo, at: &str) -> Result<Barriers2, ReplayError> {
    let mem = dep.memory_barriers.iter().map(memory_barrier2).collect();
    let buf = dep
        .buffer_memory_barriers
        .iter()
        .map(|b| {
            vk::BufferMemoryBarrier2::default()
                .src_stage_mask(stages2(b.barrier.src_stage_mask))
                .src_access_mask(access2(b.barrier.src_access_mask))
                .dst_stage_mask(stages2(b.barrier.dst_stage_mask))
                .dst_access_mask(access2(b.barrier.dst_access_mask))
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(o.buffers[b.buffer])
                .offset(b.offset)
                .size(b.size.unwrap_or(vk::WHOLE_SIZE))
        })
        .collect();
    let img = dep.image_memory_barriers.iter().map(|b| crate::images::barrier2(b, o.images[b.image], at)).collect::<Result<_, _>>()?;
    Ok((mem, buf, img))
}

/// The barriers of a dependency in the synchronization1 shape: the command's two stage masks,
/// then memory, buffer and image barriers.
type Barriers1 = (vk::PipelineStageFlags, vk::PipelineStageFlags, Vec<vk::MemoryBarrier<'static>>, Vec<vk::BufferMemoryBarrier<'static>>, Vec<vk::ImageMemoryBarrier<'static>>);

/// The barriers of `dep` in the synchronization1 shape, with the command's two stage masks.
fn barriers1(o: &Objects<'_>, dep: &DependencyInfo, at: &str) -> Result<Barriers1, ReplayError> {
    let (src, dst) = (stages1(dep.src_stages()), stages1(dep.dst_stages()));
    let mem = dep.memory_barriers.iter().map(|b| vk::MemoryBarrier::default().src_access_mask(access1(b.src_access_mask)).dst_access_mask(access1(b.dst_access_mask))).collect();
    let buf = dep
        .buffer_memory_barriers
        .iter()
        .map(|b| {
            vk::BufferMemoryBarrier::default()
                .src_access_mask(access1(b.barrier.src_access_mask))
                .dst_access_mask(access1(b.barrier.dst_access_mask))
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(o.buffers[b.buffer])
                .offset(b.offset)
                .size(b.size.unwrap_or(vk::WHOLE_SIZE))
        })
        .collect();
    let img = dep.image_memory_barriers.iter().map(|b| crate::images::barrier1(b, o.images[b.image], at)).collect::<Result<_, _>>()?;
    Ok((src, dst, mem, buf, img))
}

/// Records every command buffer of `w` once for each queue family it is submitted to (every
/// command buffer at least once, on the first trace queue's family, so that the layer checks
/// the ones never submitted too).
pub(crate) fn record_all(o: &Objects<'_>, w: &Workload) -> Result<HashMap<(usize, u32), vk::CommandBuffer>, ReplayError> {
    let mut wanted: Vec<(usize, u32)> = Vec::new();
    for op in &w.timeline {
        if let sim_core::api::HostOp::QueueSubmit { queue, batches, .. } = op {
            let family = o.s.queues[*queue].1;
            for &cb in batches.iter().flat_map(|b| &b.command_buffers) {
                if !wanted.contains(&(cb, family)) {
                    wanted.push((cb, family));
                }
            }
        }
    }
    for cb in 0..w.command_buffers.len() {
        if !wanted.iter().any(|&(c, _)| c == cb) {
            wanted.push((cb, o.s.queues[0].1));
        }
    }
    let mut out = HashMap::new();
    for (cb, family) in wanted {
        let info = vk::CommandBufferAllocateInfo::default().command_pool(o.command_pools[&family]).level(vk::CommandBufferLevel::PRIMARY).command_buffer_count(1);
        let desc = &w.command_buffers[cb];
        // SAFETY: the pool is live; command buffers are freed with it.
        let handle = unsafe { o.s.device.allocate_command_buffers(&info) }.call_at("vkAllocateCommandBuffers", format!("command_buffers[{}]", desc.name))?[0];
        o.s.name(handle, &desc.name);
        record(o, w, cb, desc, handle)?;
        out.insert((cb, family), handle);
    }
    o.s.capture.set_phase(Phase::Setup);
    Ok(out)
}


fn record(o: &Objects<'_>, w: &Workload, cb: usize, desc: &CommandBufferDesc, handle: vk::CommandBuffer) -> Result<(), ReplayError> {
    let d = &o.s.device;
    let flags = if desc.simultaneous_use { vk::CommandBufferUsageFlags::SIMULTANEOUS_USE } else { vk::CommandBufferUsageFlags::empty() };
    let at = |k: usize| format!("command_buffers[{}].commands[{k}]", desc.name);
    // SAFETY: a fresh primary command buffer.
    unsafe { d.begin_command_buffer(handle, &vk::CommandBufferBeginInfo::default().flags(flags)) }.call_at("vkBeginCommandBuffer", format!("command_buffers[{}]", desc.name))?;
    let mut graphics = crate::graphics::Recorder::default();
    for (k, c) in desc.commands.iter().enumerate() {
        o.s.capture.set_phase(Phase::Recording { command_buffer: cb, command: k });
        let needs_sync2 = match c {
            Command::PipelineBarrier(dep) | Command::SetEvent { dependency: dep, .. } | Command::WaitEvents { dependency: dep, .. } => !dep.sync1,
            // vkCmdResetEvent takes 32-bit stages: synchronization2 is needed only beyond them.
            Command::ResetEvent { stage_mask, .. } => stage_mask.bits() >> 32 != 0,
            _ => false,
        };
        if needs_sync2 && !o.s.sync2 {
            return Err(ReplayError::Unsupported { at: at(k), message: format!("{} needs synchronization2, which the device does not support", c.vk_name()) });
        }
        // SAFETY (each arm): recording into a command buffer in the recording state, with
        // live handles made by `Objects` and arrays that outlive the call.
        match c {
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
            | Command::ClearAttachments { .. } => graphics.record(o, w, handle, c, &at(k))?,
            Command::CopyBufferToImage { src, dst, dst_layout, regions } => {
                let r: Vec<vk::BufferImageCopy> = regions.iter().map(crate::images::copy_region).collect();
                let l = crate::images::layout(dst_layout, &at(k))?;
                unsafe { d.cmd_copy_buffer_to_image(handle, o.buffers[*src], o.images[*dst], l, &r) }
            }
            Command::CopyImageToBuffer { src, src_layout, dst, regions } => {
                let r: Vec<vk::BufferImageCopy> = regions.iter().map(crate::images::copy_region).collect();
                let l = crate::images::layout(src_layout, &at(k))?;
                unsafe { d.cmd_copy_image_to_buffer(handle, o.images[*src], l, o.buffers[*dst], &r) }
            }
            Command::CopyImage { src, src_layout, dst, dst_layout, regions } => {
                let r: Vec<vk::ImageCopy> = regions.iter().map(crate::images::image_copy).collect();
                let (sl, dl) = (crate::images::layout(src_layout, &at(k))?, crate::images::layout(dst_layout, &at(k))?);
                unsafe { d.cmd_copy_image(handle, o.images[*src], sl, o.images[*dst], dl, &r) }
            }
            Command::BlitImage { src, src_layout, dst, dst_layout, regions, filter } => {
                let r: Vec<vk::ImageBlit> = regions.iter().map(crate::images::image_blit).collect();
                let (sl, dl) = (crate::images::layout(src_layout, &at(k))?, crate::images::layout(dst_layout, &at(k))?);
                let f = if *filter == sim_rop::Filter::Linear { vk::Filter::LINEAR } else { vk::Filter::NEAREST };
                unsafe { d.cmd_blit_image(handle, o.images[*src], sl, o.images[*dst], dl, &r, f) }
            }
            Command::ClearColorImage { image, layout, texel, ranges } => {
                let colour = crate::images::clear_color(w.images[*image].layout.desc.format, texel);
                let r: Vec<vk::ImageSubresourceRange> = ranges.iter().map(crate::images::range).collect();
                let l = crate::images::layout(layout, &at(k))?;
                unsafe { d.cmd_clear_color_image(handle, o.images[*image], l, &colour, &r) }
            }
            Command::ClearDepthStencilImage { image, layout, depth, stencil, ranges } => {
                let value = vk::ClearDepthStencilValue { depth: *depth, stencil: *stencil };
                let r: Vec<vk::ImageSubresourceRange> = ranges.iter().map(crate::images::range).collect();
                let l = crate::images::layout(layout, &at(k))?;
                unsafe { d.cmd_clear_depth_stencil_image(handle, o.images[*image], l, &value, &r) }
            }
            Command::FillBuffer { dst, offset, size, data } => unsafe { d.cmd_fill_buffer(handle, o.buffers[*dst], *offset, size.unwrap_or(vk::WHOLE_SIZE), *data) },
            Command::UpdateBuffer { dst, offset, data } => unsafe { d.cmd_update_buffer(handle, o.buffers[*dst], *offset, data) },
            Command::CopyBuffer { src, dst, regions } => {
                let r: Vec<vk::BufferCopy> = regions.iter().map(|r| vk::BufferCopy { src_offset: r.src_offset, dst_offset: r.dst_offset, size: r.size }).collect();
                unsafe { d.cmd_copy_buffer(handle, o.buffers[*src], o.buffers[*dst], &r) }
            }
            Command::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images } => {
                let l = &o.s.limits;
                for k2 in 0..3 {
                    if group_count[k2] > l.max_compute_work_group_count[k2] {
                        return Err(ReplayError::Unsupported { at: at(k), message: format!("group_count {group_count:?} exceeds the device's maxComputeWorkGroupCount {:?}", l.max_compute_work_group_count) });
                    }
                }
                let p = &o.pipelines[*pipeline];
                unsafe { d.cmd_bind_pipeline(handle, vk::PipelineBindPoint::COMPUTE, p.pipeline) };
                crate::descriptors::bind_descriptors(o, w, handle, vk::PipelineBindPoint::COMPUTE, p, bindings, images, &at(k))?;
                if !push_constants.is_empty() {
                    unsafe { d.cmd_push_constants(handle, p.layout, vk::ShaderStageFlags::COMPUTE, 0, push_constants) };
                }
                if base_group.iter().any(|&b| b != 0) {
                    unsafe { d.cmd_dispatch_base(handle, base_group[0], base_group[1], base_group[2], group_count[0], group_count[1], group_count[2]) };
                } else {
                    unsafe { d.cmd_dispatch(handle, group_count[0], group_count[1], group_count[2]) };
                }
            }
            Command::PipelineBarrier(dep) if dep.sync1 => {
                let (src, dst, mem, buf, img) = barriers1(o, dep, &at(k))?;
                unsafe { d.cmd_pipeline_barrier(handle, src, dst, vk::DependencyFlags::empty(), &mem, &buf, &img) };
            }
            Command::PipelineBarrier(dep) => {
                let (mem, buf, img) = barriers2(o, dep, &at(k))?;
                let info = vk::DependencyInfo::default().memory_barriers(&mem).buffer_memory_barriers(&buf).image_memory_barriers(&img);
                unsafe { d.cmd_pipeline_barrier2(handle, &info) };
            }
            Command::SetEvent { event, dependency } if dependency.sync1 => unsafe { d.cmd_set_event(handle, o.events[*event], stages1(dependency.src_stages())) },
            Command::SetEvent { event, dependency } => {
                let (mem, buf, img) = barriers2(o, dependency, &at(k))?;
                let info = vk::DependencyInfo::default().memory_barriers(&mem).buffer_memory_barriers(&buf).image_memory_barriers(&img);
                unsafe { d.cmd_set_event2(handle, o.events[*event], &info) };
            }
            Command::WaitEvents { events, dependency } if dependency.sync1 => {
                let (src, dst, mem, buf, img) = barriers1(o, dependency, &at(k))?;
                let ev: Vec<vk::Event> = events.iter().map(|&e| o.events[e]).collect();
                unsafe { d.cmd_wait_events(handle, &ev, src, dst, &mem, &buf, &img) };
            }
            Command::WaitEvents { events, dependency } => {
                let (mem, buf, img) = barriers2(o, dependency, &at(k))?;
                let ev: Vec<vk::Event> = events.iter().map(|&e| o.events[e]).collect();
                // One VkDependencyInfo per event, split as the trace gave them.
                let split: Vec<(usize, usize, usize)> = if dependency.per_event.len() == events.len() { dependency.per_event.clone() } else { vec![(mem.len(), buf.len(), img.len())] };
                let (mut mi, mut bi, mut ii) = (0, 0, 0);
                let mut infos = Vec::new();
                for &(m, b, i) in &split {
                    infos.push(vk::DependencyInfo::default().memory_barriers(&mem[mi..mi + m]).buffer_memory_barriers(&buf[bi..bi + b]).image_memory_barriers(&img[ii..ii + i]));
                    mi += m;
                    bi += b;
                    ii += i;
                }
                while infos.len() < ev.len() {
                    infos.push(infos[0]);
                }
                unsafe { d.cmd_wait_events2(handle, &ev, &infos) };
            }
            Command::ResetEvent { event, stage_mask } if !o.s.sync2 => unsafe { d.cmd_reset_event(handle, o.events[*event], stages1(*stage_mask)) },
            Command::ResetEvent { event, stage_mask } => unsafe { d.cmd_reset_event2(handle, o.events[*event], stages2(*stage_mask)) },
        }
    }
    // SAFETY: as above.
    unsafe { d.end_command_buffer(handle) }.call_at("vkEndCommandBuffer", format!("command_buffers[{}]", desc.name))?;
    Ok(())
}
