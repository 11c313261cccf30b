//! From parsed trace structs to a [`Workload`]: ids resolved, ranges and caps checked, shaders
//! compiled. Every error is `(JSON path, message)`; the caller adds line and column.

use crate::api::{BufferId, MemoryId};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use sim_shader::{BindingKind, ComputePipeline, GraphicsShader, IoBinding, Module, ShaderStage};

use super::schema::{self, Barrier, BufferBarrier, Cmd, Declared, Size, TimelineOp};
use super::{MAX_LIST_LEN, MAX_PAYLOAD_BYTES, MAX_TOTAL_HOST_READ_BYTES, MAX_TOTAL_PAYLOAD_BYTES, MAX_SHADER_FILE_BYTES, MAX_TRACE_MEMORY_BYTES, MAX_TRACE_TOTAL_MEMORY_BYTES};
use crate::api::program::{MAX_UPDATE_BYTES, MAX_WORKGROUPS_PER_DISPATCH};
use crate::api::{BufferBinding, BufferCopy, BufferMemoryBarrier, Command, DependencyInfo, HostOp, MappedRange, MemoryDesc, MemoryProperties, SubmitBatch, Workload};
use crate::api::{
    AttachmentDescription, AttachmentReference, AttachmentView, ClearAttachment, ClearRect, DepthStencilState, DrawKind, FramebufferDesc, GraphicsPipelineDesc, LoadOp, PipelineTarget, RenderPassDesc,
    RenderingAttachment, RenderingInfo, StoreOp, SubpassDependency, SubpassDescription, SubpassRef,
};
use crate::fixed_function as ff;
use crate::sync::valid::{BarrierKind, Shape, check_access_stages};
use crate::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};

/// A load error: the JSON path and the message.
pub type Fail = (String, String);
type R<T> = Result<T, Fail>;

fn fail<T>(path: impl Into<String>, message: impl Into<String>) -> R<T> {
    Err((path.into(), message.into()))
}

/// Commands of Vulkan the trace format names but the engine cannot run yet.
pub const NOT_YET_COMMANDS: &[&str] = &["resolve_image", "dispatch_indirect", "execute_commands"];

/// The commands the engine runs.
pub const COMMANDS: &[&str] = &[
    "fill_buffer",
    "update_buffer",
    "copy_buffer",
    "copy_buffer_to_image",
    "copy_image_to_buffer",
    "copy_image",
    "clear_color_image",
    "clear_depth_stencil_image",
    "pipeline_barrier",
    "dispatch",
    "set_event",
    "wait_events",
    "reset_event",
    "begin_render_pass",
    "next_subpass",
    "end_render_pass",
    "begin_rendering",
    "end_rendering",
    "bind_vertex_buffers",
    "bind_index_buffer",
    "set_viewport",
    "set_scissor",
    "draw",
    "draw_indexed",
    "draw_indirect",
    "draw_indexed_indirect",
    "clear_attachments",
];

/// The host operations the engine runs.
pub const OPERATIONS: &[&str] = &[
    "queue_submit",
    "wait_for_fences",
    "reset_fences",
    "queue_wait_idle",
    "device_wait_idle",
    "host_write",
    "host_read",
    "flush_mapped_memory_ranges",
    "invalidate_mapped_memory_ranges",
    "set_event",
];

/// The Vulkan name of a trace command, for VUIDs.
fn vk_cmd(cmd: &str) -> &'static str {
    match cmd {
        "copy_buffer_to_image" => "vkCmdCopyBufferToImage",
        "copy_image_to_buffer" => "vkCmdCopyImageToBuffer",
        "copy_image" => "vkCmdCopyImage",
        _ => "vkCmd",
    }
}

/// Refuses fields of a copy region that belong to the other kind of copy.
fn region_fields(r: &schema::Region, rp: &str, cmd: &str, allowed: &[&str]) -> R<()> {
    let present = [
        ("src_offset", r.src_offset.is_some()),
        ("dst_offset", r.dst_offset.is_some()),
        ("src_subresource", r.src_subresource.is_some()),
        ("dst_subresource", r.dst_subresource.is_some()),
        ("extent", r.extent.is_some()),
        ("size", r.size.is_some()),
        ("buffer_offset", r.buffer_offset.is_some()),
        ("buffer_row_length", r.buffer_row_length.is_some()),
        ("buffer_image_height", r.buffer_image_height.is_some()),
        ("image_subresource", r.image_subresource.is_some()),
        ("image_offset", r.image_offset.is_some()),
        ("image_extent", r.image_extent.is_some()),
        ("src_offsets", r.src_offsets.is_some()),
        ("dst_offsets", r.dst_offsets.is_some()),
    ];
    for (f, on) in present {
        if on && !allowed.contains(&f) {
            return fail(format!("{rp}.{f}"), format!("field `{f}` does not belong to a {cmd} region (its fields: {})", allowed.join(", ")));
        }
    }
    Ok(())
}

/// The layout field `f` of `cmd` (vkCmdCopyImage, vkCmdBlitImage) at `path`, without Vulkan's
/// prefix: `want` or GENERAL, as VUID `vuid` allows.
fn image_to_image_layout(l: &Option<String>, path: &str, cmd: &str, f: &str, want: &str, vuid: &str) -> R<String> {
    let l = l.as_ref().ok_or_else(|| (path.to_string(), format!("`{cmd}` needs `{f}`")))?.trim_start_matches("VK_IMAGE_LAYOUT_").to_string();
    if l != want && l != "GENERAL" {
        return fail(format!("{path}.{f}"), format!("`{l}` is not a layout {cmd} takes here ({want} or GENERAL: {vuid})"));
    }
    Ok(l)
}

/// The aspects an aspect mask names, each one the image's format has.
fn aspect_mask(f: &schema::Flags, format: sim_rop::Format, at: &str) -> R<[bool; 3]> {
    let mut aspects = [false; 3];
    for n in f.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
        let a = match n.trim_start_matches("VK_IMAGE_ASPECT_").trim_end_matches("_BIT") {
            "COLOR" => sim_rop::Aspect::Color,
            "DEPTH" => sim_rop::Aspect::Depth,
            "STENCIL" => sim_rop::Aspect::Stencil,
            other => return fail(at, format!("unknown or unsupported aspect `{other}` (COLOR, DEPTH, STENCIL)")),
        };
        if !format.aspects().contains(&a) {
            return fail(at, format!("a {format} image has no {} aspect (VUID-VkImageSubresourceRange-aspectMask-01670)", a.vk_name()));
        }
        aspects[a as usize] = true;
    }
    if aspects == [false; 3] {
        return fail(at, "an aspect mask names at least one aspect (VUID-VkImageSubresourceRange-aspectMask-requiredbitmask)");
    }
    Ok(aspects)
}

/// Image layouts a trace may name.
const IMAGE_LAYOUTS: &[&str] = &[
    "UNDEFINED",
    "GENERAL",
    "COLOR_ATTACHMENT_OPTIMAL",
    "DEPTH_STENCIL_ATTACHMENT_OPTIMAL",
    "DEPTH_STENCIL_READ_ONLY_OPTIMAL",
    "SHADER_READ_ONLY_OPTIMAL",
    "TRANSFER_SRC_OPTIMAL",
    "TRANSFER_DST_OPTIMAL",
    "PREINITIALIZED",
    "DEPTH_ATTACHMENT_OPTIMAL",
    "DEPTH_READ_ONLY_OPTIMAL",
    "STENCIL_ATTACHMENT_OPTIMAL",
    "STENCIL_READ_ONLY_OPTIMAL",
    "READ_ONLY_OPTIMAL",
    "ATTACHMENT_OPTIMAL",
    "PRESENT_SRC_KHR",
];

/// The simulator's maxSamplerLodBias (every built-in profile's device reports at least 15).
const MAX_SAMPLER_LOD_BIAS: f32 = 15.0;

/// Image usages a trace may name.
const IMAGE_USAGES: &[&str] = &["TRANSFER_SRC", "TRANSFER_DST", "SAMPLED", "STORAGE", "COLOR_ATTACHMENT", "DEPTH_STENCIL_ATTACHMENT", "TRANSIENT_ATTACHMENT", "INPUT_ATTACHMENT"];

const BUFFER_USAGES: &[&str] = &[
    "TRANSFER_SRC",
    "TRANSFER_DST",
    "UNIFORM_TEXEL_BUFFER",
    "STORAGE_TEXEL_BUFFER",
    "UNIFORM_BUFFER",
    "STORAGE_BUFFER",
    "INDEX_BUFFER",
    "VERTEX_BUFFER",
    "INDIRECT_BUFFER",
    "SHADER_DEVICE_ADDRESS",
];

/// `offset + size <= limit` without overflow.
fn fits(offset: u64, size: u64, limit: u64) -> bool {
    offset.checked_add(size).is_some_and(|e| e <= limit)
}

fn ids<'a>(list: impl Iterator<Item = &'a str>, path: &str, what: &str) -> R<HashMap<String, usize>> {
    let mut m = HashMap::new();
    for (i, id) in list.enumerate() {
        if i >= MAX_LIST_LEN {
            return fail(path, format!("more than {MAX_LIST_LEN} entries"));
        }
        if id.is_empty() {
            return fail(format!("{path}[{i}]"), format!("a {what} id must not be empty"));
        }
        check_printable(id, &format!("{path}[{i}]"), &format!("a {what} id"))?;
        if m.insert(id.to_string(), i).is_some() {
            return fail(format!("{path}[{i}]"), format!("duplicate {what} id `{id}`"));
        }
    }
    Ok(m)
}

/// Refuses a name that holds control characters (a newline, a terminal escape): names are
/// printed in reports, where they would break lines or drive the reader's terminal.
fn check_printable(text: &str, path: &str, what: &str) -> R<()> {
    match text.chars().find(|c| c.is_control()) {
        Some(c) => fail(path, format!("{what} must not hold control characters ({:?} found)", c)),
        None => Ok(()),
    }
}

fn lookup(m: &HashMap<String, usize>, id: &str, path: &str, what: &str) -> R<usize> {
    m.get(id).copied().ok_or_else(|| {
        let mut known: Vec<&str> = m.keys().map(String::as_str).collect();
        known.sort_unstable();
        known.truncate(12);
        let hint = if known.is_empty() { format!("no {what} is declared") } else { format!("declared: {}", known.join(", ")) };
        (path.to_string(), format!("unknown {what} `{id}` ({hint})"))
    })
}

fn check_len<T>(v: &[T], path: &str) -> R<()> {
    if v.len() > MAX_LIST_LEN {
        return fail(path, format!("more than {MAX_LIST_LEN} entries"));
    }
    Ok(())
}

struct Builder<'a> {
    base: Option<&'a Path>,
    w: Workload,
    mems: HashMap<String, usize>,
    bufs: HashMap<String, usize>,
    /// Compute shaders: id to compute pipeline index.
    shaders: HashMap<String, usize>,
    /// Vertex and fragment shaders, by id: they are stages of graphics pipelines, not
    /// pipelines of their own.
    graphics: HashMap<String, Arc<GraphicsShader>>,
    render_passes: HashMap<String, usize>,
    framebuffers: HashMap<String, usize>,
    graphics_pipelines: HashMap<String, usize>,
    events: HashMap<String, usize>,
    sems: HashMap<String, usize>,
    fences: HashMap<String, usize>,
    queues: HashMap<String, usize>,
    /// Per queue, the capabilities its declared `flags` give (all, when it declares none).
    queue_caps: Vec<QueueCaps>,
    cbs: HashMap<String, usize>,
    /// Per event: the sync2 dependencies of its set_event commands, with (cb, command).
    set_deps: HashMap<usize, Vec<(usize, usize, Option<DependencyInfo>)>>,
    /// Bytes of every payload so far, against [`MAX_TOTAL_PAYLOAD_BYTES`]: one payload file may
    /// be named by any number of operations, and each is held in memory.
    payload_total: std::cell::Cell<u64>,
    /// Bytes of every host read so far, against [`MAX_TOTAL_HOST_READ_BYTES`].
    host_read_total: std::cell::Cell<u64>,
}

/// Builds the workload of a parsed trace; returns it with the trace's name.
pub fn build(t: &schema::Trace, base: Option<&Path>, stem: &str) -> R<(Workload, String)> {
    if t.gpusim_trace != 1 {
        return fail("gpusim_trace", format!("unsupported trace version {} (this gpusim reads version 1)", t.gpusim_trace));
    }
    if let Some(name) = &t.name {
        check_printable(name, "name", "the trace's name")?;
    }
    let name = t.name.clone().unwrap_or_else(|| stem.to_string());
    let mut b = Builder {
        base,
        w: Workload::new(name.clone()),
        mems: ids(t.memory.iter().map(|m| m.id.as_str()), "memory", "memory")?,
        bufs: ids(t.buffers.iter().map(|m| m.id.as_str()), "buffers", "buffer")?,
        shaders: ids(t.shaders.iter().map(|m| m.id.as_str()), "shaders", "shader")?,
        graphics: HashMap::new(),
        render_passes: HashMap::new(),
        framebuffers: HashMap::new(),
        graphics_pipelines: HashMap::new(),
        events: ids(t.events.iter().map(String::as_str), "events", "event")?,
        sems: HashMap::new(),
        fences: ids(t.fences.iter().map(String::as_str), "fences", "fence")?,
        queues: HashMap::new(),
        queue_caps: Vec::new(),
        cbs: ids(t.command_buffers.iter().map(|m| m.id.as_str()), "command_buffers", "command buffer")?,
        set_deps: HashMap::new(),
        payload_total: Default::default(),
        host_read_total: Default::default(),
    };
    b.memory(t)?;
    b.buffers(t)?;
    b.images(t)?;
    b.samplers(t)?;
    b.shader_list(t)?;
    b.render_pass_list(t)?;
    b.framebuffer_list(t)?;
    b.graphics_pipeline_list(t)?;
    b.w.events = t.events.clone();
    b.w.fences = t.fences.clone();
    let mut sem_names = Vec::new();
    for (i, s) in t.semaphores.iter().enumerate() {
        let path = format!("semaphores[{i}]");
        let id = match s {
            Declared::Id(id) => id.clone(),
            Declared::Full(d) => {
                let kind = d.kind.as_deref().unwrap_or("BINARY");
                match kind.trim_start_matches("VK_SEMAPHORE_TYPE_") {
                    "BINARY" => {}
                    "TIMELINE" => return fail(format!("{path}.type"), "timeline semaphores are not supported yet by the engine (binary semaphores only)"),
                    other => return fail(format!("{path}.type"), format!("unknown semaphore type `{other}` (expected BINARY or TIMELINE)")),
                }
                if d.initial_value.is_some() {
                    return fail(format!("{path}.initial_value"), "initial_value is for timeline semaphores, which are not supported yet by the engine");
                }
                d.id.clone()
            }
        };
        sem_names.push(id);
    }
    b.sems = ids(sem_names.iter().map(String::as_str), "semaphores", "semaphore")?;
    b.w.semaphores = sem_names;
    if let Some(qs) = &t.queues {
        if qs.is_empty() {
            return fail("queues", "at least one queue is needed (omit `queues` for the default `q0`)");
        }
        let names: Vec<String> = qs
            .iter()
            .map(|q| match q {
                Declared::Id(id) => id.clone(),
                Declared::Full(d) => d.id.clone(),
            })
            .collect();
        for (i, q) in qs.iter().enumerate() {
            let flags = match q {
                Declared::Full(d) => d.flags.as_ref(),
                Declared::Id(_) => None,
            };
            b.queue_caps.push(match flags {
                Some(f) => QueueCaps::parse(f).map_err(|m| (format!("queues[{i}].flags"), m))?,
                None => QueueCaps::ALL,
            });
        }
        b.queues = ids(names.iter().map(String::as_str), "queues", "queue")?;
        b.w.queues = names;
        b.w.queue_flags = b.queue_caps.iter().map(|c| crate::api::QueueFlags { graphics: c.graphics, compute: c.compute, transfer: c.transfer }).collect();
    } else {
        b.queues = ids(["q0"].into_iter(), "queues", "queue")?;
        b.queue_caps.push(QueueCaps::ALL);
    }
    for (i, cb) in t.command_buffers.iter().enumerate() {
        let path = format!("command_buffers[{i}]");
        if let Some(u) = &cb.usage {
            for n in u.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                let short = n.trim_start_matches("VK_COMMAND_BUFFER_USAGE_").trim_end_matches("_BIT");
                if !matches!(short, "ONE_TIME_SUBMIT" | "SIMULTANEOUS_USE" | "RENDER_PASS_CONTINUE") {
                    return fail(format!("{path}.usage"), format!("unknown command buffer usage `{n}` (expected ONE_TIME_SUBMIT, SIMULTANEOUS_USE)"));
                }
            }
        }
        check_len(&cb.commands, &format!("{path}.commands"))?;
        let mut cmds = Vec::with_capacity(cb.commands.len());
        for (k, c) in cb.commands.iter().enumerate() {
            cmds.push(b.command(c, i, k, &format!("{path}.commands[{k}]"))?);
        }
        let id = b.w.command_buffer(cb.id.clone(), cmds);
        b.w.command_buffers[id].simultaneous_use = cb.usage.as_ref().is_some_and(|u| u.joined().contains("SIMULTANEOUS_USE"));
    }
    check_len(&t.timeline, "timeline")?;
    let mut labels = HashMap::new();
    for (i, op) in t.timeline.iter().enumerate() {
        let h = b.host_op(op, i, &format!("timeline[{i}]"))?;
        if let HostOp::HostRead { label, .. } = &h
            && let Some(prev) = labels.insert(label.clone(), i)
        {
            return fail(format!("timeline[{i}].label"), format!("host_read label `{label}` is already used by timeline[{prev}]"));
        }
        b.w.timeline.push(h);
    }
    b.check_wait_events(t)?;
    Ok((b.w, name))
}

impl Builder<'_> {
    fn memory(&mut self, t: &schema::Trace) -> R<()> {
        let mut total = 0u64;
        for (i, m) in t.memory.iter().enumerate() {
            let path = format!("memory[{i}]");
            if m.size == 0 || m.size > MAX_TRACE_MEMORY_BYTES {
                return fail(format!("{path}.size"), format!("size {} is not between 1 and the cap of {MAX_TRACE_MEMORY_BYTES} bytes (256 MiB)", m.size));
            }
            total += m.size;
            if total > MAX_TRACE_TOTAL_MEMORY_BYTES {
                return fail(format!("{path}.size"), format!("the memory objects total more than the cap of {MAX_TRACE_TOTAL_MEMORY_BYTES} bytes (1 GiB)"));
            }
            let properties = MemoryProperties::parse(&m.properties.joined()).map_err(|e| (format!("{path}.properties"), e))?;
            self.w.memories.push(MemoryDesc { name: m.id.clone(), size: m.size, properties, compare: m.compare.unwrap_or(true) });
        }
        Ok(())
    }

    fn buffers(&mut self, t: &schema::Trace) -> R<()> {
        for (i, b) in t.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            let m = lookup(&self.mems, &b.memory, &format!("{path}.memory"), "memory")?;
            let msize = self.w.memories[m].size;
            if b.size == 0 {
                return fail(format!("{path}.size"), "a buffer's size must not be zero");
            }
            if b.offset > msize {
                return fail(format!("{path}.offset"), format!("offset {} is outside memory `{}` of {msize} bytes", b.offset, b.memory));
            }
            if !fits(b.offset, b.size, msize) {
                return fail(format!("{path}.size"), format!("range [{}, {}+{}) is outside memory `{}` of {msize} bytes", b.offset, b.offset, b.size, b.memory));
            }
            if let Some(u) = &b.usage {
                for n in u.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                    let short = n.trim_start_matches("VK_BUFFER_USAGE_").trim_end_matches("_BIT");
                    if !BUFFER_USAGES.contains(&short) {
                        return fail(format!("{path}.usage"), format!("unknown buffer usage `{n}` (expected names like STORAGE_BUFFER, UNIFORM_BUFFER, TRANSFER_SRC, TRANSFER_DST)"));
                    }
                }
            }
            if b.compare == Some(false) {
                // The engine compares whole memory objects: leave out the one holding it.
                self.w.memories[m].compare = false;
            }
            let k = self.w.buffer(b.id.clone(), m, b.offset, b.size);
            if let Some(v) = &b.image_view {
                self.w.buffers[k].picture = Some(buffer_picture(v, b.size, &format!("{path}.image_view"))?);
            }
        }
        Ok(())
    }

    /// Images: described as `VkImageCreateInfo` is (checked as its valid usage checks it),
    /// placed with the tiling, and bound as `vkBindImageMemory` binds (offset aligned, the
    /// whole image inside the memory).
    fn images(&mut self, t: &schema::Trace) -> R<()> {
        ids(t.images.iter().map(|i| i.id.as_str()), "images", "image")?;
        for (i, im) in t.images.iter().enumerate() {
            let path = format!("images[{i}]");
            if self.bufs.contains_key(&im.id) {
                return fail(format!("{path}.id"), format!("`{}` is already the id of a buffer", im.id));
            }
            let m = lookup(&self.mems, &im.memory, &format!("{path}.memory"), "memory")?;
            let format = sim_rop::Format::parse(&im.format).ok_or_else(|| {
                let names: Vec<&str> = sim_rop::format::FORMATS.iter().map(|f| f.name()).collect();
                (format!("{path}.format"), format!("unknown or unsupported format `{}` (supported: {})", im.format, names.join(", ")))
            })?;
            let image_type = match im.image_type.as_deref().map(|t| t.trim_start_matches("VK_IMAGE_TYPE_")) {
                None | Some("2D") => sim_rop::ImageType::D2,
                Some("1D") => sim_rop::ImageType::D1,
                Some("3D") => sim_rop::ImageType::D3,
                Some(other) => return fail(format!("{path}.image_type"), format!("unknown image type `{other}` (expected 1D, 2D or 3D)")),
            };
            let extent: [u32; 3] = im.extent.as_slice().try_into().map_err(|_| (format!("{path}.extent"), format!("an extent is [width, height, depth], not {} numbers", im.extent.len())))?;
            if im.samples.unwrap_or(1) != 1 {
                return fail(format!("{path}.samples"), "multisampled images are not supported yet by the engine (samples 1 only)");
            }
            let tiling = match im.tiling.as_deref().map(|t| t.trim_start_matches("VK_IMAGE_TILING_")) {
                None | Some("OPTIMAL") => sim_rop::Tiling::Optimal,
                Some("LINEAR") => sim_rop::Tiling::Linear,
                Some(other) => return fail(format!("{path}.tiling"), format!("unknown tiling `{other}` (expected OPTIMAL or LINEAR)")),
            };
            let usage = im.usage.as_ref().map(|u| u.joined()).unwrap_or_default();
            for n in usage.split('|').map(str::trim).filter(|s| !s.is_empty()) {
                let short = n.trim_start_matches("VK_IMAGE_USAGE_").trim_end_matches("_BIT");
                if !IMAGE_USAGES.contains(&short) {
                    return fail(format!("{path}.usage"), format!("unknown image usage `{n}` (expected names like TRANSFER_SRC, TRANSFER_DST, SAMPLED, STORAGE, COLOR_ATTACHMENT)"));
                }
            }
            if usage.trim().is_empty() {
                return fail(format!("{path}.usage"), "an image needs at least one usage (VUID-VkImageCreateInfo-usage-requiredbitmask)");
            }
            if let Some(f) = &im.flags {
                for n in f.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                    let short = n.trim_start_matches("VK_IMAGE_CREATE_").trim_end_matches("_BIT");
                    if !matches!(short, "ALIAS" | "MUTABLE_FORMAT" | "EXTENDED_USAGE") {
                        return fail(format!("{path}.flags"), format!("image create flag `{n}` is not supported (ALIAS, MUTABLE_FORMAT, EXTENDED_USAGE)"));
                    }
                }
            }
            let initial_layout = match im.initial_layout.as_deref().map(|l| l.trim_start_matches("VK_IMAGE_LAYOUT_")) {
                None | Some("UNDEFINED") => "UNDEFINED",
                Some("PREINITIALIZED") => "PREINITIALIZED",
                Some(other) => return fail(format!("{path}.initial_layout"), format!("an image is created in UNDEFINED or PREINITIALIZED, not `{other}` (VUID-VkImageCreateInfo-initialLayout-00993)")),
            };
            let desc = sim_rop::ImageDesc { image_type, format, extent, mip_levels: im.mip_levels.unwrap_or(1), array_layers: im.array_layers.unwrap_or(1), tiling };
            let layout = sim_rop::ImageLayout::new(desc, &sim_rop::TilingParams::default()).map_err(|e| (path.clone(), e.to_string()))?;
            let msize = self.w.memories[m].size;
            if im.offset % layout.alignment != 0 {
                return fail(format!("{path}.offset"), format!("offset {} is not a multiple of the image's alignment, {} (it needs {} bytes aligned to {}: VUID-vkBindImageMemory-memoryOffset-01048)", im.offset, layout.alignment, layout.size, layout.alignment));
            }
            if !fits(im.offset, layout.size, msize) {
                return fail(format!("{path}.offset"), format!("the image needs {} bytes from offset {}, past the end of memory `{}` of {msize} bytes (VUID-vkBindImageMemory-size-01049)", layout.size, im.offset, im.memory));
            }
            self.w.images.push(crate::api::ImageBinding { name: im.id.clone(), memory: m, offset: im.offset, layout, usage, initial_layout: initial_layout.into() });
        }
        Ok(())
    }

    fn read_file(&self, rel: &str, cap: u64, path: &str) -> R<Vec<u8>> {
        let Some(base) = self.base else {
            return fail(path, format!("file `{rel}` cannot be found: the trace was given as text, without a directory"));
        };
        let p = base.join(rel);
        crate::io::read_capped(&p, cap).map_err(|e| (path.to_string(), format!("cannot read `{}`: {e}", p.display())))
    }

    fn shader_list(&mut self, t: &schema::Trace) -> R<()> {
        // Filled again with the compute shaders alone, each with its pipeline's index.
        self.shaders.clear();
        for (i, s) in t.shaders.iter().enumerate() {
            let path = format!("shaders[{i}]");
            let stage = match &s.stage {
                None => ShaderStage::Compute,
                Some(stage) => match stage.trim_start_matches("VK_SHADER_STAGE_").replace("_BIT", "").as_str() {
                    "COMPUTE" => ShaderStage::Compute,
                    "VERTEX" => ShaderStage::Vertex,
                    "FRAGMENT" => ShaderStage::Fragment,
                    "TESSELLATION_CONTROL" | "TESSELLATION_EVALUATION" | "GEOMETRY" | "TASK" | "TASK_EXT" | "TASK_NV" | "MESH" | "MESH_EXT" | "MESH_NV" | "RAYGEN_KHR" | "ANY_HIT_KHR" | "CLOSEST_HIT_KHR" | "MISS_KHR" | "INTERSECTION_KHR"
                    | "CALLABLE_KHR" | "SUBPASS_SHADING_HUAWEI" | "CLUSTER_CULLING_HUAWEI" => {
                        return fail(format!("{path}.stage"), format!("shader stage `{stage}` is not supported yet by the engine (COMPUTE, VERTEX and FRAGMENT are)"));
                    }
                    _ => return fail(format!("{path}.stage"), format!("unknown shader stage `{stage}` (expected COMPUTE, VERTEX or FRAGMENT)")),
                },
            };
            let sources = [s.wgsl.is_some(), s.wgsl_file.is_some(), s.spirv_file.is_some(), s.glsl_file.is_some(), s.glsl.is_some()];
            if sources.iter().filter(|&&x| x).count() != 1 {
                return fail(path, "a shader needs exactly one of `wgsl`, `wgsl_file`, `spirv_file`, `glsl_file`, `glsl`");
            }
            let text = |bytes: Vec<u8>, p: &str| String::from_utf8(bytes).map_err(|_| (p.to_string(), "the shader file is not UTF-8 text".to_string()));
            // GLSL holds one stage a source, which the front end must be told.
            let glsl = |src: &str, name: &str| if stage == ShaderStage::Compute { Module::from_glsl(src, name) } else { Module::from_glsl_stage(src, name, stage) };
            let module = if let Some(src) = &s.wgsl {
                Module::from_wgsl(src, &s.id).map_err(|e| (format!("{path}.wgsl"), format!("shader `{}` does not compile: {e}", s.id)))?
            } else if let Some(f) = &s.wgsl_file {
                let p = format!("{path}.wgsl_file");
                let src = text(self.read_file(f, MAX_SHADER_FILE_BYTES, &p)?, &p)?;
                Module::from_wgsl(&src, f).map_err(|e| (p.clone(), format!("shader `{}` does not compile: {e}", s.id)))?
            } else if let Some(f) = &s.spirv_file {
                let p = format!("{path}.spirv_file");
                let bytes = self.read_file(f, MAX_SHADER_FILE_BYTES, &p)?;
                Module::from_spirv(&bytes, f).map_err(|e| (p.clone(), format!("shader `{}` does not load: {e}", s.id)))?
            } else if let Some(f) = &s.glsl_file {
                let p = format!("{path}.glsl_file");
                let src = text(self.read_file(f, MAX_SHADER_FILE_BYTES, &p)?, &p)?;
                glsl(&src, f).map_err(|e| (p.clone(), format!("shader `{}` does not compile: {e}", s.id)))?
            } else {
                let src = s.glsl.as_deref().unwrap_or_default();
                glsl(src, &s.id).map_err(|e| (format!("{path}.glsl"), format!("shader `{}` does not compile: {e}", s.id)))?
            };
            let entry = s.entry_point.as_deref().unwrap_or("main");
            if stage == ShaderStage::Compute {
                let pipeline = ComputePipeline::new(&module, entry).map_err(|e| (format!("{path}.entry_point"), format!("shader `{}`: {e}", s.id)))?;
                let k = self.w.pipeline(s.id.clone(), Arc::new(pipeline));
                self.shaders.insert(s.id.clone(), k);
                continue;
            }
            let shader = GraphicsShader::new(&module, entry).map_err(|e| (format!("{path}.entry_point"), format!("shader `{}`: {e}", s.id)))?;
            if shader.stage() != stage {
                return fail(
                    format!("{path}.stage"),
                    format!("VUID-VkPipelineShaderStageCreateInfo-pName-00707: entry point `{entry}` of shader `{}` is a {} shader, and `stage` says {}", s.id, shader.stage().vk_name(), stage.vk_name()),
                );
            }
            self.graphics.insert(s.id.clone(), Arc::new(shader));
        }
        Ok(())
    }

    fn buffer_range(&self, buffer: usize, offset: u64, size: Option<Size>, path_off: &str, path_size: &str) -> R<u64> {
        let b = &self.w.buffers[buffer];
        if offset > b.size {
            return fail(path_off, format!("offset {offset} is outside buffer `{}` of {} bytes", b.name, b.size));
        }
        match size {
            None | Some(Size::Whole) => Ok(b.size - offset),
            Some(Size::Bytes(n)) => {
                if offset.checked_add(n).is_none() {
                    return fail(path_size, format!("offset {offset} + size {n} overflows 64 bits"));
                }
                if !fits(offset, n, b.size) {
                    return fail(path_size, format!("range [{offset}, {offset}+{n}) is outside buffer `{}` of {} bytes", b.name, b.size));
                }
                Ok(n)
            }
        }
    }

    /// A payload (`PREFIX_u32`, `_f32`, `_hex` or `_file`), if one is given, counted against
    /// the trace's total.
    fn payload(&self, u32s: &Option<Vec<u32>>, f32s: &Option<Vec<f32>>, hex: &Option<String>, file: &Option<String>, path: &str, prefix: &str) -> R<Option<Vec<u8>>> {
        let over = || fail(path, format!("the trace's payloads total more than the cap of {MAX_TOTAL_PAYLOAD_BYTES} bytes (1 GiB)"));
        // A file's size is known before it is read: a trace naming one file many times stops
        // before it reads past the cap.
        if let (Some(f), Some(base)) = (file, self.base)
            && let Ok(m) = std::fs::metadata(base.join(f))
            && m.len() <= MAX_PAYLOAD_BYTES
            && self.payload_total.get() + m.len() > MAX_TOTAL_PAYLOAD_BYTES
        {
            return over();
        }
        let data = self.payload_one(u32s, f32s, hex, file, path, prefix)?;
        let total = self.payload_total.get() + data.as_ref().map_or(0, |d| d.len() as u64);
        if total > MAX_TOTAL_PAYLOAD_BYTES {
            return over();
        }
        self.payload_total.set(total);
        Ok(data)
    }

    fn payload_one(&self, u32s: &Option<Vec<u32>>, f32s: &Option<Vec<f32>>, hex: &Option<String>, file: &Option<String>, path: &str, prefix: &str) -> R<Option<Vec<u8>>> {
        let n = [u32s.is_some(), f32s.is_some(), hex.is_some(), file.is_some()].iter().filter(|&&x| x).count();
        if n > 1 {
            return fail(path, format!("give only one of `{prefix}_u32`, `{prefix}_f32`, `{prefix}_hex`, `{prefix}_file`"));
        }
        let too_big = |len: u64, p: String| -> R<()> {
            if len > MAX_PAYLOAD_BYTES { fail(p, format!("{len} bytes of data exceed the cap of {MAX_PAYLOAD_BYTES} bytes (64 MiB)")) } else { Ok(()) }
        };
        if let Some(v) = u32s {
            too_big(v.len() as u64 * 4, format!("{path}.{prefix}_u32"))?;
            return Ok(Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()));
        }
        if let Some(v) = f32s {
            too_big(v.len() as u64 * 4, format!("{path}.{prefix}_f32"))?;
            return Ok(Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()));
        }
        if let Some(h) = hex {
            let p = format!("{path}.{prefix}_hex");
            let digits: Vec<u8> = h.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'_').collect();
            too_big(digits.len() as u64 / 2, p.clone())?;
            if !digits.len().is_multiple_of(2) {
                return fail(p, "hex data needs an even number of digits (two per byte)");
            }
            let mut out = Vec::with_capacity(digits.len() / 2);
            for pair in digits.chunks(2) {
                let s = std::str::from_utf8(pair).unwrap_or("??");
                out.push(u8::from_str_radix(s, 16).map_err(|_| (p.clone(), format!("`{s}` is not a hex byte")))?);
            }
            return Ok(Some(out));
        }
        if let Some(f) = file {
            return Ok(Some(self.read_file(f, MAX_PAYLOAD_BYTES, &format!("{path}.{prefix}_file"))?));
        }
        Ok(None)
    }

    fn barrier(&self, b: &Barrier, cmd_stages: Option<(S, S)>, path: &str) -> R<MemoryBarrier2> {
        let (src, dst) = match cmd_stages {
            Some(st) => {
                if b.src_stage_mask.is_some() || b.dst_stage_mask.is_some() {
                    return fail(path, "in the synchronization1 shape the stage masks belong to the command, not to the barrier");
                }
                st
            }
            None => (b.src_stage_mask.unwrap_or(S::NONE), b.dst_stage_mask.unwrap_or(S::NONE)),
        };
        Ok(MemoryBarrier2::new(src, b.src_access_mask.unwrap_or(A::NONE), dst, b.dst_access_mask.unwrap_or(A::NONE)))
    }

    fn buffer_barrier(&self, b: &BufferBarrier, cmd_stages: Option<(S, S)>, path: &str) -> R<BufferMemoryBarrier> {
        let g = Barrier { src_stage_mask: b.src_stage_mask, src_access_mask: b.src_access_mask, dst_stage_mask: b.dst_stage_mask, dst_access_mask: b.dst_access_mask };
        let barrier = self.barrier(&g, cmd_stages, path)?;
        if b.src_queue_family_index != b.dst_queue_family_index {
            return fail(path, "queue family ownership transfers are not supported yet by the engine (src and dst queue family indices must be equal)");
        }
        let buffer = lookup(&self.bufs, &b.buffer, &format!("{path}.buffer"), "buffer")?;
        self.buffer_range(buffer, b.offset, b.size, &format!("{path}.offset"), &format!("{path}.size"))?;
        let size = match b.size {
            None | Some(Size::Whole) => None,
            Some(Size::Bytes(n)) => Some(n),
        };
        Ok(BufferMemoryBarrier { barrier, buffer, offset: b.offset, size })
    }

    /// The samplers, checked as Vulkan's valid usage checks `VkSamplerCreateInfo` (what the
    /// simulator does not model, anisotropy, depth comparison and unnormalized coordinates, is
    /// refused by name).
    fn samplers(&mut self, t: &schema::Trace) -> R<()> {
        ids(t.samplers.iter().map(|s| s.id.as_str()), "samplers", "sampler")?;
        for (i, s) in t.samplers.iter().enumerate() {
            let path = format!("samplers[{i}]");
            if let Some(other) = self.bufs.get(&s.id).map(|_| "a buffer").or(self.w.images.iter().any(|im| im.name == s.id).then_some("an image")) {
                return fail(format!("{path}.id"), format!("`{}` is already the id of {other}", s.id));
            }
            fn pick<T>(v: &Option<String>, default: T, parse: fn(&str) -> Option<T>, at: String, expected: &str) -> R<T> {
                match v {
                    None => Ok(default),
                    Some(n) => parse(n.trim_start_matches("VK_FILTER_").trim_start_matches("VK_SAMPLER_MIPMAP_MODE_").trim_start_matches("VK_SAMPLER_ADDRESS_MODE_").trim_start_matches("VK_BORDER_COLOR_"))
                        .ok_or_else(|| (at, format!("unknown value `{n}` (expected {expected})"))),
                }
            }
            use sim_rop::{AddressMode, BorderColor, Filter, MipmapMode};
            // Read as f64 so that a value past f32's range is named as the limit it breaks.
            let lod = |v: Option<f64>, default: f32, f: &str| -> R<f32> {
                match v {
                    None => Ok(default),
                    Some(v) if f == "mip_lod_bias" && v.abs() > f64::from(MAX_SAMPLER_LOD_BIAS) => {
                        fail(format!("{path}.{f}"), format!("|{v}| exceeds maxSamplerLodBias, {MAX_SAMPLER_LOD_BIAS} (VUID-VkSamplerCreateInfo-mipLodBias-01069)"))
                    }
                    Some(v) if v.abs() > f64::from(sim_rop::sampler::LOD_CLAMP_NONE) => {
                        fail(format!("{path}.{f}"), format!("{f} {v} is beyond VK_LOD_CLAMP_NONE ({}), the largest level of detail that means anything", sim_rop::sampler::LOD_CLAMP_NONE))
                    }
                    Some(v) => Ok(v as f32),
                }
            };
            let filters = "NEAREST or LINEAR";
            let modes = "REPEAT, MIRRORED_REPEAT, CLAMP_TO_EDGE, CLAMP_TO_BORDER or MIRROR_CLAMP_TO_EDGE";
            let d = sim_rop::Sampler::default();
            let sampler = sim_rop::Sampler {
                mag_filter: pick(&s.mag_filter, d.mag_filter, Filter::parse, format!("{path}.mag_filter"), filters)?,
                min_filter: pick(&s.min_filter, d.min_filter, Filter::parse, format!("{path}.min_filter"), filters)?,
                mipmap_mode: pick(&s.mipmap_mode, d.mipmap_mode, MipmapMode::parse, format!("{path}.mipmap_mode"), filters)?,
                address_mode: [
                    pick(&s.address_mode_u, d.address_mode[0], AddressMode::parse, format!("{path}.address_mode_u"), modes)?,
                    pick(&s.address_mode_v, d.address_mode[1], AddressMode::parse, format!("{path}.address_mode_v"), modes)?,
                    pick(&s.address_mode_w, d.address_mode[2], AddressMode::parse, format!("{path}.address_mode_w"), modes)?,
                ],
                mip_lod_bias: lod(s.mip_lod_bias, d.mip_lod_bias, "mip_lod_bias")?,
                min_lod: lod(s.min_lod, d.min_lod, "min_lod")?,
                max_lod: lod(s.max_lod, d.max_lod, "max_lod")?,
                border_color: pick(&s.border_color, d.border_color, BorderColor::parse, format!("{path}.border_color"), "FLOAT_TRANSPARENT_BLACK, INT_TRANSPARENT_BLACK, FLOAT_OPAQUE_BLACK, INT_OPAQUE_BLACK, FLOAT_OPAQUE_WHITE or INT_OPAQUE_WHITE")?,
            };
            if sampler.max_lod < sampler.min_lod {
                return fail(format!("{path}.max_lod"), format!("max_lod {} is below min_lod {} (VUID-VkSamplerCreateInfo-maxLod-01973)", sampler.max_lod, sampler.min_lod));
            }
            for (on, f, what) in [(s.anisotropy_enable, "anisotropy_enable", "anisotropic filtering"), (s.compare_enable, "compare_enable", "depth comparison"), (s.unnormalized_coordinates, "unnormalized_coordinates", "unnormalized coordinates")] {
                if on == Some(true) {
                    return fail(format!("{path}.{f}"), format!("{what} is not supported yet by the engine"));
                }
            }
            self.w.samplers.push(crate::api::SamplerDesc { name: s.id.clone(), sampler });
        }
        Ok(())
    }

    /// An image memory barrier: its masks, image, layouts (a known layout; not PREINITIALIZED or
    /// UNDEFINED as the new one) and subresource range.
    fn image_barrier(&self, b: &schema::ImageBarrier, cmd_stages: Option<(S, S)>, path: &str) -> R<crate::api::ImageMemoryBarrier> {
        let g = Barrier { src_stage_mask: b.src_stage_mask, src_access_mask: b.src_access_mask, dst_stage_mask: b.dst_stage_mask, dst_access_mask: b.dst_access_mask };
        let barrier = self.barrier(&g, cmd_stages, path)?;
        if b.src_queue_family_index != b.dst_queue_family_index {
            return fail(path, "queue family ownership transfers are not supported yet by the engine (src and dst queue family indices must be equal)");
        }
        let image = self.image(&Some(b.image.clone()), &format!("{path}.image"), path, "an image memory barrier", "image")?;
        let layout = |l: &str, f: &str| -> R<String> {
            let l = l.trim_start_matches("VK_IMAGE_LAYOUT_");
            if !IMAGE_LAYOUTS.contains(&l) {
                return fail(format!("{path}.{f}"), format!("unknown image layout `{l}` (expected one of {})", IMAGE_LAYOUTS.join(", ")));
            }
            Ok(l.to_string())
        };
        let old_layout = layout(&b.old_layout, "old_layout")?;
        let new_layout = layout(&b.new_layout, "new_layout")?;
        if new_layout == "UNDEFINED" || new_layout == "PREINITIALIZED" {
            return fail(format!("{path}.new_layout"), format!("an image cannot be transitioned to {new_layout} (VUID-VkImageMemoryBarrier2-newLayout-01198)"));
        }
        let range = match &b.subresource_range {
            Some(r) => self.subresource_range(image, r, &format!("{path}.subresource_range"))?,
            None => sim_rop::SubresourceRange::whole(&self.w.images[image].layout.desc),
        };
        Ok(crate::api::ImageMemoryBarrier { barrier, image, old_layout, new_layout, range })
    }

    /// The image `id` names (`what` needs it as `field`).
    fn image(&self, id: &Option<String>, at: &str, path: &str, what: &str, field: &str) -> R<usize> {
        let Some(id) = id else { return fail(path, format!("`{what}` needs `{field}`")) };
        match self.w.images.iter().position(|i| &i.name == id) {
            Some(k) => Ok(k),
            None if self.bufs.contains_key(id) => fail(at, format!("`{id}` is a buffer, not an image")),
            None => fail(at, format!("unknown image `{id}`")),
        }
    }

    /// Refuses a command on an image created without the usage it needs.
    fn image_usage(&self, image: usize, usage: &str, at: &str, vuid: &str) -> R<()> {
        let im = &self.w.images[image];
        if im.has_usage(usage) {
            Ok(())
        } else {
            fail(at, format!("image `{}` was created without {usage} in its usage ({}: {vuid})", im.name, im.usage))
        }
    }

    /// A subresource range of `image`, checked against it.
    fn subresource_range(&self, image: usize, r: &schema::SubresourceRange, path: &str) -> R<sim_rop::SubresourceRange> {
        let desc = &self.w.images[image].layout.desc;
        let aspects = aspect_mask(&r.aspect_mask, desc.format, &format!("{path}.aspect_mask"))?;
        // (base field, count field, what, the VUID of a base past the end, of a zero count)
        let count = |c: &Option<Size>, base: u32, total: u32, f: (&str, &str, &str, &str, &str)| -> R<u32> {
            let (base_field, count_field, what, past, zero) = f;
            if base >= total {
                return fail(format!("{path}.{base_field}"), format!("{what} {base} is past the image's {total} ({past})"));
            }
            match c {
                None | Some(Size::Whole) => Ok(total - base),
                Some(Size::Bytes(0)) => fail(format!("{path}.{count_field}"), format!("a count of 0 {what}s names nothing ({zero}; \"WHOLE_SIZE\" or leaving it out means the rest, as VK_REMAINING_*)")),
                Some(Size::Bytes(n)) if base as u64 + n > total as u64 => fail(format!("{path}.{count_field}"), format!("{n} {what}s from {base} are not within the image's {total} ({past})")),
                Some(Size::Bytes(n)) => Ok(*n as u32),
            }
        };
        let level_count = count(&r.level_count, r.base_mip_level, desc.mip_levels, ("base_mip_level", "level_count", "level", "VUID-VkImageSubresourceRange-baseMipLevel-01486", "VUID-VkImageSubresourceRange-levelCount-01720"))?;
        let layer_count = count(&r.layer_count, r.base_array_layer, desc.array_layers, ("base_array_layer", "layer_count", "layer", "VUID-VkImageSubresourceRange-baseArrayLayer-01488", "VUID-VkImageSubresourceRange-layerCount-01721"))?;
        Ok(sim_rop::SubresourceRange { aspects, base_mip_level: r.base_mip_level, level_count, base_array_layer: r.base_array_layer, layer_count })
    }

    /// An image's subresource layers as a copy region names them: one aspect the format has, a
    /// level and layers it has (`vuids`: the one-aspect rule, then the level's and the layers'
    /// rules of `cmd`).
    fn subresource_layers(&self, image: usize, sub: &schema::SubresourceLayers, sp: &str, cmd: &str, vuids: (&str, &str, &str)) -> R<crate::api::SubresourceLayers> {
        let desc = self.w.images[image].layout.desc;
        let aspects = aspect_mask(&sub.aspect_mask, desc.format, &format!("{sp}.aspect_mask"))?;
        let aspect = match aspects {
            [true, false, false] => sim_rop::Aspect::Color,
            [false, true, false] => sim_rop::Aspect::Depth,
            [false, false, true] => sim_rop::Aspect::Stencil,
            _ => return fail(format!("{sp}.aspect_mask"), format!("a copy region names one aspect ({})", vuids.0)),
        };
        if sub.mip_level >= desc.mip_levels {
            return fail(format!("{sp}.mip_level"), format!("level {} is past the image's {} (VUID-{}-{})", sub.mip_level, desc.mip_levels, vk_cmd(cmd), vuids.1));
        }
        let layers = sub.layer_count.unwrap_or(1);
        if layers == 0 || sub.base_array_layer as u64 + layers as u64 > desc.array_layers as u64 {
            return fail(format!("{sp}.layer_count"), format!("layers [{}, +{layers}) are not within the image's {} (VUID-{}-{})", sub.base_array_layer, desc.array_layers, vk_cmd(cmd), vuids.2));
        }
        Ok(crate::api::SubresourceLayers { aspect, mip_level: sub.mip_level, base_array_layer: sub.base_array_layer, layer_count: layers })
    }

    /// One region of vkCmdCopyImage, checked as Vulkan's valid usage checks `VkImageCopy`
    /// against both images: one aspect each, the same on both sides, as many layers, and texels
    /// within each side's level.
    fn image_copy_region(&self, r: &schema::Region, src: usize, dst: usize, rp: &str) -> R<crate::api::ImageCopy> {
        region_fields(r, rp, "copy_image", &["src_subresource", "src_offset", "dst_subresource", "dst_offset", "extent"])?;
        let side = |f: &str, sub: &Option<schema::SubresourceLayers>, image: usize, vuids| -> R<crate::api::SubresourceLayers> {
            let sub = sub.as_ref().ok_or_else(|| (rp.to_string(), format!("a copy_image region needs `{f}`")))?;
            self.subresource_layers(image, sub, &format!("{rp}.{f}"), "copy_image", vuids)
        };
        let s = side("src_subresource", &r.src_subresource, src, ("VUID-VkImageCopy-aspectMask-00142", "srcSubresource-07967", "srcSubresource-07968"))?;
        let d = side("dst_subresource", &r.dst_subresource, dst, ("VUID-VkImageCopy-aspectMask-00143", "dstSubresource-07967", "dstSubresource-07968"))?;
        if s.aspect != d.aspect {
            return fail(format!("{rp}.dst_subresource.aspect_mask"), format!("the source's aspect is {} and the destination's {} (VUID-VkImageCopy-srcSubresource-01699's same-aspect copy)", s.aspect.vk_name(), d.aspect.vk_name()));
        }
        if s.layer_count != d.layer_count {
            return fail(format!("{rp}.dst_subresource.layer_count"), format!("{} layers from {} source layers (VUID-VkImageCopy-layerCount-08794)", d.layer_count, s.layer_count));
        }
        let texel = |o: Option<schema::Offset>, f: &str| match o {
            None => Ok([0; 3]),
            Some(schema::Offset::Texel(t)) => Ok(t),
            Some(schema::Offset::Bytes(_)) => fail(format!("{rp}.{f}"), format!("a copy_image region's `{f}` is a texel [x, y, z], not a byte count")),
        };
        let (so, dof) = (texel(r.src_offset, "src_offset")?, texel(r.dst_offset, "dst_offset")?);
        let extent = r.extent.ok_or_else(|| (rp.to_string(), "a copy_image region needs `extent`".to_string()))?;
        for (image, sub, offset, f, vuid) in [(src, &s, so, "src_offset", "VUID-vkCmdCopyImage-srcOffset-00144"), (dst, &d, dof, "dst_offset", "VUID-vkCmdCopyImage-dstOffset-00150")] {
            let level = self.w.images[image].layout.desc.level_extent(sub.mip_level);
            if (0..3).any(|k| extent[k] == 0 || offset[k] as u64 + extent[k] as u64 > level[k] as u64) {
                return fail(format!("{rp}.{f}"), format!("texels [{offset:?}, +{extent:?}) are not within level {}'s {level:?} of image `{}` ({vuid})", sub.mip_level, self.w.images[image].name));
            }
        }
        Ok(crate::api::ImageCopy { src_subresource: s, src_offset: so, dst_subresource: d, dst_offset: dof, extent })
    }

    /// One region of vkCmdBlitImage, checked as Vulkan's valid usage checks `VkImageBlit`
    /// against both images: one colour aspect each, as many layers, and each offset within its
    /// level (z 0 and 1 for an image that is not 3D).
    fn image_blit_region(&self, r: &schema::Region, src: usize, dst: usize, rp: &str) -> R<crate::api::ImageBlit> {
        region_fields(r, rp, "blit_image", &["src_subresource", "src_offsets", "dst_subresource", "dst_offsets"])?;
        let side = |f: &str, sub: &Option<schema::SubresourceLayers>, image: usize, vuids| -> R<crate::api::SubresourceLayers> {
            let sub = sub.as_ref().ok_or_else(|| (rp.to_string(), format!("a blit_image region needs `{f}`")))?;
            self.subresource_layers(image, sub, &format!("{rp}.{f}"), "blit_image", vuids)
        };
        let s = side("src_subresource", &r.src_subresource, src, ("VUID-VkImageBlit-aspectMask-00238", "srcSubresource-01705", "srcSubresource-01707"))?;
        let d = side("dst_subresource", &r.dst_subresource, dst, ("VUID-VkImageBlit-aspectMask-00238", "dstSubresource-01706", "dstSubresource-01708"))?;
        if s.layer_count != d.layer_count {
            return fail(format!("{rp}.dst_subresource.layer_count"), format!("{} layers from {} source layers (VUID-VkImageBlit-layerCount-08800)", d.layer_count, s.layer_count));
        }
        // VUIDs: each axis within the level (x, y, z), then y and z of a flat image.
        let corners = |f: &str, o: Option<[[i64; 3]; 2]>, image: usize, sub: &crate::api::SubresourceLayers, vuids: [&str; 5]| -> R<[[u32; 3]; 2]> {
            let o = o.ok_or_else(|| (rp.to_string(), format!("a blit_image region needs `{f}` (two corners [x, y, z])")))?;
            let desc = self.w.images[image].layout.desc;
            let level = desc.level_extent(sub.mip_level);
            let mut out = [[0u32; 3]; 2];
            for (c, corner) in o.iter().enumerate() {
                for k in 0..3 {
                    if corner[k] < 0 || corner[k] > i64::from(level[k]) {
                        return fail(format!("{rp}.{f}[{c}]"), format!("{} {} is not within 0..={} of level {} of image `{}` ({})", ["x", "y", "z"][k], corner[k], level[k], sub.mip_level, self.w.images[image].name, vuids[k]));
                    }
                    out[c][k] = corner[k] as u32;
                }
            }
            // A 1D image's y and a 1D or 2D image's z span exactly [0, 1).
            let flat = match desc.image_type {
                sim_rop::ImageType::D1 => 1,
                sim_rop::ImageType::D2 => 2,
                sim_rop::ImageType::D3 => 3,
            };
            for k in flat..3 {
                if out[0][k] != 0 || out[1][k] != 1 {
                    return fail(format!("{rp}.{f}"), format!("a {}D image's {} corners must be 0 and 1 ({})", flat, ["x", "y", "z"][k], vuids[k + 2]));
                }
            }
            Ok(out)
        };
        let so = corners("src_offsets", r.src_offsets, src, &s, ["VUID-vkCmdBlitImage-srcOffset-00243", "VUID-vkCmdBlitImage-srcOffset-00244", "VUID-vkCmdBlitImage-srcOffset-00246", "VUID-vkCmdBlitImage-srcImage-00245", "VUID-vkCmdBlitImage-srcImage-00247"])?;
        let dof = corners("dst_offsets", r.dst_offsets, dst, &d, ["VUID-vkCmdBlitImage-dstOffset-00248", "VUID-vkCmdBlitImage-dstOffset-00249", "VUID-vkCmdBlitImage-dstOffset-00251", "VUID-vkCmdBlitImage-dstImage-00250", "VUID-vkCmdBlitImage-dstImage-00252"])?;
        Ok(crate::api::ImageBlit { src_subresource: s, src_offsets: so, dst_subresource: d, dst_offsets: dof })
    }

    /// One region of a copy between a buffer and an image, checked as Vulkan's valid usage
    /// checks `VkBufferImageCopy` against both.
    fn buffer_image_region(&self, r: &schema::Region, buffer: usize, image: usize, rp: &str, cmd: &str) -> R<crate::api::BufferImageCopy> {
        region_fields(r, rp, cmd, &["buffer_offset", "buffer_row_length", "buffer_image_height", "image_subresource", "image_offset", "image_extent"])?;
        let desc = self.w.images[image].layout.desc;
        let sub = r.image_subresource.as_ref().ok_or_else(|| (rp.to_string(), format!("a {cmd} region needs `image_subresource`")))?;
        let sp = format!("{rp}.image_subresource");
        let layers = self.subresource_layers(image, sub, &sp, cmd, ("VUID-VkBufferImageCopy-aspectMask-09103", "imageSubresource-07967", "imageSubresource-07968"))?;
        let (aspect, layers) = (layers.aspect, layers.layer_count);
        let offset = r.image_offset.unwrap_or([0; 3]);
        let extent = r.image_extent.ok_or_else(|| (rp.to_string(), format!("a {cmd} region needs `image_extent`")))?;
        let level = desc.level_extent(sub.mip_level);
        for k in 0..3 {
            if extent[k] == 0 || offset[k] as u64 + extent[k] as u64 > level[k] as u64 {
                return fail(format!("{rp}.image_extent"), format!("texels [{:?}, +{:?}) are not within level {}'s {:?} (VUID-{}-imageSubresource-07971)", offset, extent, sub.mip_level, level, vk_cmd(cmd)));
            }
        }
        let row = r.buffer_row_length.unwrap_or(0);
        let height = r.buffer_image_height.unwrap_or(0);
        if row != 0 && row < extent[0] {
            return fail(format!("{rp}.buffer_row_length"), format!("{row} is less than the width {} (VUID-VkBufferImageCopy-bufferRowLength-09101)", extent[0]));
        }
        if height != 0 && height < extent[1] {
            return fail(format!("{rp}.buffer_image_height"), format!("{height} is less than the height {} (VUID-VkBufferImageCopy-bufferImageHeight-09102)", extent[1]));
        }
        let texel = u64::from(desc.format.plane_bytes(aspect).unwrap_or(1));
        let buffer_offset = r.buffer_offset.unwrap_or(0);
        if !buffer_offset.is_multiple_of(texel.max(4)) && aspect == sim_rop::Aspect::Color {
            return fail(format!("{rp}.buffer_offset"), format!("{buffer_offset} is not a multiple of the texel size, {texel} (VUID-{}-pRegions-07273)", vk_cmd(cmd)));
        }
        // The bytes the region spans in the buffer: up to the last texel of the last row.
        let (w, h) = (u64::from(if row == 0 { extent[0] } else { row }), u64::from(if height == 0 { extent[1] } else { height }));
        let slices = u64::from(extent[2]) * u64::from(layers);
        let span = ((slices - 1) * h * w + (u64::from(extent[1]) - 1) * w + u64::from(extent[0])) * texel;
        let bsize = self.w.buffers[buffer].size;
        if !fits(buffer_offset, span, bsize) {
            return fail(format!("{rp}.buffer_offset"), format!("the region spans bytes [{buffer_offset}, +{span}) of buffer `{}`, which has {bsize} (VUID-{}-pRegions-00171)", self.w.buffers[buffer].name, vk_cmd(cmd)));
        }
        Ok(crate::api::BufferImageCopy {
            buffer_offset,
            buffer_row_length: row,
            buffer_image_height: height,
            subresource: crate::api::SubresourceLayers { aspect, mip_level: sub.mip_level, base_array_layer: sub.base_array_layer, layer_count: layers },
            image_offset: offset,
            image_extent: extent,
        })
    }

    /// The dependency of command `cmd` (`pipeline_barrier`, `set_event` or `wait_events`),
    /// each barrier checked for accesses its stages do not perform (with the VUIDs of the
    /// synchronization1 shape when `cmd_stages` is given).
    fn dependency(&self, cmd: &str, cmd_stages: Option<(S, S)>, mem: &[Barrier], bufs: &[BufferBarrier], images: &[schema::ImageBarrier], path: &str) -> R<DependencyInfo> {
        check_len(mem, path)?;
        check_len(images, path)?;
        check_len(bufs, path)?;
        let (shape, vk) = match (cmd_stages.is_some(), cmd) {
            (true, "wait_events") => (Shape::Sync1WaitEvents, "vkCmdWaitEvents"),
            (true, _) => (Shape::Sync1PipelineBarrier, "vkCmdPipelineBarrier"),
            (false, "wait_events") => (Shape::Sync2, "vkCmdWaitEvents2"),
            (false, "set_event") => (Shape::Sync2, "vkCmdSetEvent2"),
            (false, _) => (Shape::Sync2, "vkCmdPipelineBarrier2"),
        };
        let accesses = |b: &MemoryBarrier2, kind: BarrierKind, p: String| -> R<()> {
            if shape != Shape::Sync2 {
                sync1_bits(b, &p, vk)?;
            }
            check_access_stages(b, kind, shape).or_else(|e| fail(format!("{p}.{}", e.field()), format!("{vk}: {e}")))
        };
        let mut d = DependencyInfo { sync1: cmd_stages.is_some(), ..DependencyInfo::default() };
        for (i, b) in mem.iter().enumerate() {
            let p = format!("{path}.memory_barriers[{i}]");
            let barrier = self.barrier(b, cmd_stages, &p)?;
            accesses(&barrier, BarrierKind::Memory, p)?;
            d.memory_barriers.push(barrier);
        }
        for (i, b) in bufs.iter().enumerate() {
            let p = format!("{path}.buffer_memory_barriers[{i}]");
            let barrier = self.buffer_barrier(b, cmd_stages, &p)?;
            accesses(&barrier.barrier, BarrierKind::Buffer, p)?;
            d.buffer_memory_barriers.push(barrier);
        }
        for (i, b) in images.iter().enumerate() {
            let p = format!("{path}.image_memory_barriers[{i}]");
            let barrier = self.image_barrier(b, cmd_stages, &p)?;
            accesses(&barrier.barrier, BarrierKind::Image, p)?;
            d.image_memory_barriers.push(barrier);
        }
        if let Some((src, dst)) = cmd_stages
            && mem.is_empty()
            && bufs.is_empty()
            && images.is_empty()
        {
            // Synchronization1 with no barriers: an execution dependency only.
            let b = MemoryBarrier2::new(src, A::NONE, dst, A::NONE);
            sync1_bits(&b, path, vk)?;
            d.memory_barriers.push(b);
        }
        Ok(d)
    }

    fn command(&mut self, c: &Cmd, cb: usize, k: usize, path: &str) -> R<Command> {
        let name = c.cmd.as_str();
        if NOT_YET_COMMANDS.contains(&name) {
            return fail(format!("{path}.cmd"), format!("`{name}` is not supported yet by the engine"));
        }
        let allowed: &[&str] = match name {
            "fill_buffer" => &["dst_buffer", "dst_offset", "size", "data"],
            "update_buffer" => &["dst_buffer", "dst_offset", "data_u32", "data_f32", "data_hex", "data_file"],
            "copy_buffer" => &["src_buffer", "dst_buffer", "regions"],
            "copy_buffer_to_image" => &["src_buffer", "dst_image", "dst_image_layout", "regions"],
            "copy_image_to_buffer" => &["src_image", "src_image_layout", "dst_buffer", "regions"],
            "copy_image" => &["src_image", "src_image_layout", "dst_image", "dst_image_layout", "regions"],
            "blit_image" => &["src_image", "src_image_layout", "dst_image", "dst_image_layout", "regions", "filter"],
            "clear_color_image" => &["image", "image_layout", "color", "ranges"],
            "clear_depth_stencil_image" => &["image", "image_layout", "depth_stencil", "ranges"],
            "pipeline_barrier" => &["src_stage_mask", "dst_stage_mask", "dependency_flags", "memory_barriers", "buffer_memory_barriers", "image_memory_barriers"],
            "dispatch" => &["shader", "group_count", "base_group", "bindings", "push_constants_u32", "push_constants_f32", "push_constants_hex"],
            "set_event" => &["event", "dependency", "stage_mask"],
            "wait_events" => &["events", "dependencies", "src_stage_mask", "dst_stage_mask", "memory_barriers", "buffer_memory_barriers", "image_memory_barriers"],
            "reset_event" => &["event", "stage_mask"],
            "begin_render_pass" => &["render_pass", "framebuffer", "render_area", "clear_values"],
            "next_subpass" | "end_render_pass" | "end_rendering" => &[],
            "begin_rendering" => &["render_area", "layer_count", "color_attachments", "depth_attachment", "stencil_attachment"],
            "bind_vertex_buffers" => &["first_binding", "buffers", "offsets"],
            "bind_index_buffer" => &["buffer", "offset", "index_type"],
            "set_viewport" => &["viewport"],
            "set_scissor" => &["scissor"],
            "draw" => &["pipeline", "vertex_count", "instance_count", "first_vertex", "first_instance", "bindings", "push_constants_u32", "push_constants_f32", "push_constants_hex"],
            "draw_indexed" => &["pipeline", "index_count", "instance_count", "first_index", "vertex_offset", "first_instance", "bindings", "push_constants_u32", "push_constants_f32", "push_constants_hex"],
            "draw_indirect" | "draw_indexed_indirect" => &["pipeline", "buffer", "offset", "draw_count", "stride", "bindings", "push_constants_u32", "push_constants_f32", "push_constants_hex"],
            "clear_attachments" => &["attachments", "rects"],
            _ => return fail(format!("{path}.cmd"), format!("unknown command `{name}` (expected one of {})", COMMANDS.join(", "))),
        };
        for f in present_cmd_fields(c) {
            if !allowed.contains(&f) {
                return fail(format!("{path}.{f}"), format!("field `{f}` does not belong to `{name}` (its fields: {})", allowed.join(", ")));
            }
        }
        let need = |v: bool, f: &str| -> R<()> { if v { Ok(()) } else { fail(path, format!("`{name}` needs `{f}`")) } };
        let buf = |id: &Option<String>, f: &str| -> R<usize> {
            match id {
                Some(id) => lookup(&self.bufs, id, &format!("{path}.{f}"), "buffer"),
                None => fail(path, format!("`{name}` needs `{f}`")),
            }
        };
        Ok(match name {
            "fill_buffer" => {
                let dst = buf(&c.dst_buffer, "dst_buffer")?;
                need(c.data.is_some(), "data")?;
                let offset = c.dst_offset.unwrap_or(0);
                let n = self.buffer_range(dst, offset, c.size, &format!("{path}.dst_offset"), &format!("{path}.size"))?;
                if !offset.is_multiple_of(4) {
                    return fail(format!("{path}.dst_offset"), format!("dst_offset {offset} must be a multiple of 4"));
                }
                if matches!(c.size, Some(Size::Bytes(0))) {
                    return fail(format!("{path}.size"), "size must not be zero (give WHOLE_SIZE for the rest of the buffer)");
                }
                if matches!(c.size, Some(Size::Bytes(_))) && n % 4 != 0 {
                    return fail(format!("{path}.size"), format!("size {n} must be a multiple of 4 (or WHOLE_SIZE)"));
                }
                let size = match c.size {
                    Some(Size::Bytes(n)) => Some(n),
                    _ => None,
                };
                Command::FillBuffer { dst, offset, size, data: c.data.unwrap_or(0) }
            }
            "update_buffer" => {
                let dst = buf(&c.dst_buffer, "dst_buffer")?;
                let data = self.payload(&c.data_u32, &c.data_f32, &c.data_hex, &c.data_file, path, "data")?.ok_or_else(|| (path.to_string(), "`update_buffer` needs one of `data_u32`, `data_f32`, `data_hex`, `data_file`".to_string()))?;
                let offset = c.dst_offset.unwrap_or(0);
                if data.is_empty() || data.len() % 4 != 0 || data.len() > MAX_UPDATE_BYTES {
                    return fail(path, format!("vkCmdUpdateBuffer takes a non-zero multiple of 4 bytes, at most {MAX_UPDATE_BYTES}; this one has {}", data.len()));
                }
                if !offset.is_multiple_of(4) {
                    return fail(format!("{path}.dst_offset"), format!("dst_offset {offset} must be a multiple of 4"));
                }
                self.buffer_range(dst, offset, Some(Size::Bytes(data.len() as u64)), &format!("{path}.dst_offset"), &format!("{path}.dst_offset"))?;
                Command::UpdateBuffer { dst, offset, data }
            }
            "copy_buffer" => {
                let src = buf(&c.src_buffer, "src_buffer")?;
                let dst = buf(&c.dst_buffer, "dst_buffer")?;
                let regions = c.regions.as_deref().unwrap_or_default();
                if regions.is_empty() {
                    return fail(path, "`copy_buffer` needs at least one region in `regions`");
                }
                check_len(regions, &format!("{path}.regions"))?;
                let mut out = Vec::new();
                for (i, r) in regions.iter().enumerate() {
                    let rp = format!("{path}.regions[{i}]");
                    region_fields(r, &rp, "copy_buffer", &["src_offset", "dst_offset", "size"])?;
                    let bytes = |o: Option<schema::Offset>, f: &str| match o {
                        None => Ok(0),
                        Some(schema::Offset::Bytes(b)) => Ok(b),
                        Some(schema::Offset::Texel(_)) => fail(format!("{rp}.{f}"), format!("a copy_buffer region's `{f}` is a byte count, not a texel")),
                    };
                    let (src_offset, dst_offset) = (bytes(r.src_offset, "src_offset")?, bytes(r.dst_offset, "dst_offset")?);
                    let size = r.size.ok_or_else(|| (rp.clone(), "a copy_buffer region needs `size`".to_string()))?;
                    if size == 0 {
                        return fail(format!("{rp}.size"), "a copy region's size must not be zero");
                    }
                    self.buffer_range(src, src_offset, Some(Size::Bytes(size)), &format!("{rp}.src_offset"), &format!("{rp}.size"))?;
                    self.buffer_range(dst, dst_offset, Some(Size::Bytes(size)), &format!("{rp}.dst_offset"), &format!("{rp}.size"))?;
                    out.push(BufferCopy { src_offset, dst_offset, size });
                }
                // "The union of the source regions, and the union of the destination regions,
                // must not overlap in memory": compared as places in their memory objects, so
                // that two buffers aliasing one memory count too.
                let place = |b: BufferId, off: u64| (self.w.buffers[b].memory, self.w.buffers[b].offset + off);
                // (start, end, whether a destination, region) of every range.
                type Place = (MemoryId, u64);
                let mut ends: Vec<(Place, Place, bool, usize)> = Vec::with_capacity(2 * out.len());
                for (i, r) in out.iter().enumerate() {
                    ends.push((place(src, r.src_offset), place(src, r.src_offset + r.size), false, i));
                    ends.push((place(dst, r.dst_offset), place(dst, r.dst_offset + r.size), true, i));
                }
                ends.sort_unstable();
                // Swept in order of start: a range overlaps an earlier one of the other side if it
                // starts before the furthest end seen on that side.
                let mut furthest: [Option<(Place, usize)>; 2] = [None, None];
                for &(start, end, is_dst, i) in &ends {
                    if let Some((other_end, j)) = furthest[usize::from(!is_dst)]
                        && start < other_end
                    {
                        let (s, d) = if is_dst { (j, i) } else { (i, j) };
                        return fail(format!("{path}.regions[{i}]"), format!("source region {s} and destination region {d} overlap in memory (vkCmdCopyBuffer: the source and destination regions must not overlap)"));
                    }
                    let f = &mut furthest[usize::from(is_dst)];
                    if f.is_none_or(|(e, _)| end > e) {
                        *f = Some((end, i));
                    }
                }
                Command::CopyBuffer { src, dst, regions: out }
            }
            "copy_buffer_to_image" | "copy_image_to_buffer" => {
                let to_image = name == "copy_buffer_to_image";
                let (bf, imf, lf) = if to_image { ("src_buffer", "dst_image", "dst_image_layout") } else { ("dst_buffer", "src_image", "src_image_layout") };
                let buffer = buf(if to_image { &c.src_buffer } else { &c.dst_buffer }, bf)?;
                let image = self.image(if to_image { &c.dst_image } else { &c.src_image }, &format!("{path}.{imf}"), path, name, imf)?;
                let layout = c.dst_image_layout.as_ref().or(c.src_image_layout.as_ref()).ok_or_else(|| (path.to_string(), format!("`{name}` needs `{lf}`")))?;
                let layout = layout.trim_start_matches("VK_IMAGE_LAYOUT_").to_string();
                let (want, usage, vuid_layout, vuid_usage) = if to_image {
                    ("TRANSFER_DST_OPTIMAL", "TRANSFER_DST", "VUID-vkCmdCopyBufferToImage-dstImageLayout-01396", "VUID-vkCmdCopyBufferToImage-dstImage-00177")
                } else {
                    ("TRANSFER_SRC_OPTIMAL", "TRANSFER_SRC", "VUID-vkCmdCopyImageToBuffer-srcImageLayout-01397", "VUID-vkCmdCopyImageToBuffer-srcImage-00186")
                };
                if layout != want && layout != "GENERAL" {
                    return fail(format!("{path}.{lf}"), format!("`{layout}` is not a layout {name} takes ({want} or GENERAL: {vuid_layout})"));
                }
                self.image_usage(image, usage, &format!("{path}.{imf}"), vuid_usage)?;
                let regions = c.regions.as_deref().unwrap_or_default();
                if regions.is_empty() {
                    return fail(path, format!("`{name}` needs at least one region in `regions`"));
                }
                check_len(regions, &format!("{path}.regions"))?;
                let mut out = Vec::new();
                for (i, r) in regions.iter().enumerate() {
                    let rp = format!("{path}.regions[{i}]");
                    out.push(self.buffer_image_region(r, buffer, image, &rp, name)?);
                }
                if to_image {
                    Command::CopyBufferToImage { src: buffer, dst: image, dst_layout: layout, regions: out }
                } else {
                    Command::CopyImageToBuffer { src: image, src_layout: layout, dst: buffer, regions: out }
                }
            }
            "copy_image" => {
                let src = self.image(&c.src_image, &format!("{path}.src_image"), path, name, "src_image")?;
                let dst = self.image(&c.dst_image, &format!("{path}.dst_image"), path, name, "dst_image")?;
                let layout = |l: &Option<String>, f: &str, want: &str, vuid: &str| image_to_image_layout(l, path, name, f, want, vuid);
                let src_layout = layout(&c.src_image_layout, "src_image_layout", "TRANSFER_SRC_OPTIMAL", "VUID-vkCmdCopyImage-srcImageLayout-01917")?;
                let dst_layout = layout(&c.dst_image_layout, "dst_image_layout", "TRANSFER_DST_OPTIMAL", "VUID-vkCmdCopyImage-dstImageLayout-01395")?;
                self.image_usage(src, "TRANSFER_SRC", &format!("{path}.src_image"), "VUID-vkCmdCopyImage-srcImage-00126")?;
                self.image_usage(dst, "TRANSFER_DST", &format!("{path}.dst_image"), "VUID-vkCmdCopyImage-dstImage-00131")?;
                let (sf, df) = (self.w.images[src].layout.desc.format, self.w.images[dst].layout.desc.format);
                // Size-compatible: the same bytes a texel (gpusim's formats have one plane size each).
                if sf.plane_bytes(sim_rop::Aspect::Color) != df.plane_bytes(sim_rop::Aspect::Color) || sf.is_depth_stencil() != df.is_depth_stencil() || (sf.is_depth_stencil() && sf != df) {
                    return fail(format!("{path}.dst_image"), format!("{sf} and {df} are not size-compatible (VUID-vkCmdCopyImage-srcImage-01548)"));
                }
                let regions = c.regions.as_deref().unwrap_or_default();
                if regions.is_empty() {
                    return fail(path, "`copy_image` needs at least one region in `regions`");
                }
                check_len(regions, &format!("{path}.regions"))?;
                let mut out: Vec<crate::api::ImageCopy> = Vec::new();
                for (i, r) in regions.iter().enumerate() {
                    let rp = format!("{path}.regions[{i}]");
                    let region = self.image_copy_region(r, src, dst, &rp)?;
                    // Within one image, the source and destination texels must not overlap.
                    if src == dst {
                        for (j, other) in out.iter().chain(std::iter::once(&region)).enumerate() {
                            let same = region.src_subresource.aspect == other.dst_subresource.aspect
                                && region.src_subresource.mip_level == other.dst_subresource.mip_level
                                && region.src_subresource.base_array_layer < other.dst_subresource.base_array_layer + other.dst_subresource.layer_count
                                && other.dst_subresource.base_array_layer < region.src_subresource.base_array_layer + region.src_subresource.layer_count;
                            let meets = (0..3).all(|k| region.src_offset[k] < other.dst_offset[k] + other.extent[k] && other.dst_offset[k] < region.src_offset[k] + region.extent[k]);
                            if same && meets {
                                return fail(rp, format!("its source texels overlap region {j}'s destination texels in image `{}` (VUID-vkCmdCopyImage-pRegions-00124)", self.w.images[src].name));
                            }
                        }
                    }
                    out.push(region);
                }
                Command::CopyImage { src, src_layout, dst, dst_layout, regions: out }
            }
            "blit_image" => {
                let src = self.image(&c.src_image, &format!("{path}.src_image"), path, name, "src_image")?;
                let dst = self.image(&c.dst_image, &format!("{path}.dst_image"), path, name, "dst_image")?;
                let layout = |l: &Option<String>, f: &str, want: &str, vuid: &str| image_to_image_layout(l, path, name, f, want, vuid);
                let src_layout = layout(&c.src_image_layout, "src_image_layout", "TRANSFER_SRC_OPTIMAL", "VUID-vkCmdBlitImage-srcImageLayout-01398")?;
                let dst_layout = layout(&c.dst_image_layout, "dst_image_layout", "TRANSFER_DST_OPTIMAL", "VUID-vkCmdBlitImage-dstImageLayout-01399")?;
                self.image_usage(src, "TRANSFER_SRC", &format!("{path}.src_image"), "VUID-vkCmdBlitImage-srcImage-00219")?;
                self.image_usage(dst, "TRANSFER_DST", &format!("{path}.dst_image"), "VUID-vkCmdBlitImage-dstImage-00224")?;
                let (sf, df) = (self.w.images[src].layout.desc.format, self.w.images[dst].layout.desc.format);
                for (f, side, vuid, feature) in [(sf, "src_image", "VUID-vkCmdBlitImage-srcImage-01999", "BLIT_SRC"), (df, "dst_image", "VUID-vkCmdBlitImage-dstImage-02000", "BLIT_DST")] {
                    if f.is_depth_stencil() {
                        return fail(format!("{path}.{side}"), format!("blits of depth/stencil images ({f}) are not supported yet by the engine"));
                    }
                    if f == sim_rop::Format::R32G32B32_SFLOAT {
                        return fail(format!("{path}.{side}"), format!("{f} has no {feature} format feature on gpusim's devices, as on most ({vuid})"));
                    }
                }
                let int = |f: sim_rop::Format| f.class(sim_rop::Aspect::Color) == sim_rop::format::NumericClass::Uint;
                if int(sf) != int(df) {
                    return fail(format!("{path}.dst_image"), format!("a blit between {sf} and {df}: an unsigned integer format blits to an unsigned integer format only (VUID-vkCmdBlitImage-srcImage-00230)"));
                }
                let filter = match c.filter.as_deref().map(|f| f.trim_start_matches("VK_FILTER_")) {
                    Some("NEAREST") => sim_rop::Filter::Nearest,
                    Some("LINEAR") => sim_rop::Filter::Linear,
                    Some(other) => return fail(format!("{path}.filter"), format!("unknown filter `{other}` (NEAREST or LINEAR; CUBIC_EXT is not supported)")),
                    None => return fail(path, "`blit_image` needs `filter` (NEAREST or LINEAR)"),
                };
                if filter == sim_rop::Filter::Linear && int(sf) {
                    return fail(format!("{path}.filter"), format!("{sf} cannot be filtered linearly: it has no SAMPLED_IMAGE_FILTER_LINEAR format feature (VUID-vkCmdBlitImage-filter-02001)"));
                }
                let regions = c.regions.as_deref().unwrap_or_default();
                if regions.is_empty() {
                    return fail(path, "`blit_image` needs at least one region in `regions`");
                }
                check_len(regions, &format!("{path}.regions"))?;
                let mut out: Vec<crate::api::ImageBlit> = Vec::new();
                for (i, r) in regions.iter().enumerate() {
                    let rp = format!("{path}.regions[{i}]");
                    let region = self.image_blit_region(r, src, dst, &rp)?;
                    // Within one image, the source and destination boxes must not overlap.
                    if src == dst {
                        let boxed = |o: &[[u32; 3]; 2]| (0..3).map(|k| (o[0][k].min(o[1][k]), o[0][k].max(o[1][k]))).collect::<Vec<_>>();
                        for (j, other) in out.iter().chain(std::iter::once(&region)).enumerate() {
                            let (a, b) = (&region.src_subresource, &other.dst_subresource);
                            let same = a.mip_level == b.mip_level && a.base_array_layer < b.base_array_layer + b.layer_count && b.base_array_layer < a.base_array_layer + a.layer_count;
                            let (sa, da) = (boxed(&region.src_offsets), boxed(&other.dst_offsets));
                            if same && (0..3).all(|k| sa[k].0 < da[k].1 && da[k].0 < sa[k].1) {
                                return fail(rp, format!("its source box overlaps region {j}'s destination box in image `{}` (VUID-vkCmdBlitImage-pRegions-00217)", self.w.images[src].name));
                            }
                        }
                    }
                    out.push(region);
                }
                Command::BlitImage { src, src_layout, dst, dst_layout, regions: out, filter }
            }
            "clear_color_image" => {
                let image = self.image(&c.image, &format!("{path}.image"), path, name, "image")?;
                let layout = c.image_layout.as_ref().ok_or_else(|| (path.to_string(), "`clear_color_image` needs `image_layout`".to_string()))?.trim_start_matches("VK_IMAGE_LAYOUT_").to_string();
                if layout != "TRANSFER_DST_OPTIMAL" && layout != "GENERAL" {
                    return fail(format!("{path}.image_layout"), format!("`{layout}` is not a layout clear_color_image takes (TRANSFER_DST_OPTIMAL or GENERAL: VUID-vkCmdClearColorImage-imageLayout-01394)"));
                }
                self.image_usage(image, "TRANSFER_DST", &format!("{path}.image"), "VUID-vkCmdClearColorImage-image-00002")?;
                let format = self.w.images[image].layout.desc.format;
                if format.is_depth_stencil() {
                    return fail(format!("{path}.image"), format!("{format} is a depth/stencil format: clear it with clear_depth_stencil_image (VUID-vkCmdClearColorImage-image-00007)"));
                }
                let color = c.color.as_ref().ok_or_else(|| (path.to_string(), "`clear_color_image` needs `color`".to_string()))?;
                let value = match (color.float32, color.uint32, color.int32) {
                    (Some(f), None, None) => sim_rop::ClearValue::Float(f),
                    (None, Some(u), None) => sim_rop::ClearValue::Uint(u),
                    (None, None, Some(i)) => sim_rop::ClearValue::Int(i),
                    _ => return fail(format!("{path}.color"), "a clear colour is exactly one of float32, uint32, int32"),
                };
                let bytes = format.encode(sim_rop::Aspect::Color, &value).ok_or_else(|| (format!("{path}.color"), format!("a {} colour does not clear a {format} image (float32 for UNORM, SRGB and SFLOAT formats, uint32 for UINT)", match value { sim_rop::ClearValue::Float(_) => "float32", sim_rop::ClearValue::Uint(_) => "uint32", _ => "int32" })))?;
                let ranges = c.ranges.as_deref().unwrap_or_default();
                if ranges.is_empty() {
                    return fail(path, "`clear_color_image` needs at least one range in `ranges`");
                }
                check_len(ranges, &format!("{path}.ranges"))?;
                let ranges = ranges.iter().enumerate().map(|(i, r)| self.subresource_range(image, r, &format!("{path}.ranges[{i}]"))).collect::<R<Vec<_>>>()?;
                Command::ClearColorImage { image, layout, texel: bytes, ranges }
            }
            "clear_depth_stencil_image" => {
                let image = self.image(&c.image, &format!("{path}.image"), path, name, "image")?;
                let layout = c.image_layout.as_ref().ok_or_else(|| (path.to_string(), "`clear_depth_stencil_image` needs `image_layout`".to_string()))?.trim_start_matches("VK_IMAGE_LAYOUT_").to_string();
                if layout != "TRANSFER_DST_OPTIMAL" && layout != "GENERAL" {
                    return fail(format!("{path}.image_layout"), format!("`{layout}` is not a layout clear_depth_stencil_image takes (TRANSFER_DST_OPTIMAL or GENERAL: VUID-vkCmdClearDepthStencilImage-imageLayout-00012)"));
                }
                self.image_usage(image, "TRANSFER_DST", &format!("{path}.image"), "VUID-vkCmdClearDepthStencilImage-pRanges-02659")?;
                let format = self.w.images[image].layout.desc.format;
                if !format.is_depth_stencil() {
                    return fail(format!("{path}.image"), format!("{format} is not a depth/stencil format: clear it with clear_color_image (VUID-vkCmdClearDepthStencilImage-image-00014)"));
                }
                let v = c.depth_stencil.as_ref().ok_or_else(|| (path.to_string(), "`clear_depth_stencil_image` needs `depth_stencil`".to_string()))?;
                if !(0.0..=1.0).contains(&v.depth) {
                    return fail(format!("{path}.depth_stencil.depth"), format!("depth {} is not between 0 and 1 (VUID-VkClearDepthStencilValue-depth-00022)", v.depth));
                }
                let ranges = c.ranges.as_deref().unwrap_or_default();
                if ranges.is_empty() {
                    return fail(path, "`clear_depth_stencil_image` needs at least one range in `ranges`");
                }
                check_len(ranges, &format!("{path}.ranges"))?;
                let ranges = ranges.iter().enumerate().map(|(i, r)| self.subresource_range(image, r, &format!("{path}.ranges[{i}]"))).collect::<R<Vec<_>>>()?;
                Command::ClearDepthStencilImage { image, layout, depth: v.depth, stencil: v.stencil, ranges }
            }
            "pipeline_barrier" => {
                let stages = sync1_stages(c, path)?;
                Command::PipelineBarrier(self.dependency(
                    name,
                    stages,
                    c.memory_barriers.as_deref().unwrap_or_default(),
                    c.buffer_memory_barriers.as_deref().unwrap_or_default(),
                    c.image_memory_barriers.as_deref().unwrap_or_default(),
                    path,
                )?)
            }
            "dispatch" => self.dispatch(c, path)?,
            "set_event" => {
                let ev = match &c.event {
                    Some(e) => lookup(&self.events, e, &format!("{path}.event"), "event")?,
                    None => return fail(path, "`set_event` needs `event`"),
                };
                let (dependency, sync2) = match (&c.dependency, c.stage_mask) {
                    (Some(_), Some(_)) => return fail(path, "give `dependency` (synchronization2) or `stage_mask` (synchronization1), not both"),
                    (Some(d), None) => {
                        let p = format!("{path}.dependency");
                        let dep = self.dependency(name, None, &d.memory_barriers, &d.buffer_memory_barriers, &d.image_memory_barriers, &p)?;
                        (dep.clone(), Some(dep))
                    }
                    // vkCmdSetEvent has only a stage mask: an execution dependency's first
                    // scope. The access scope is the wait's barriers', whose first-scope
                    // operations the wait performs.
                    (None, Some(st)) => {
                        let dep = DependencyInfo { sync1: true, ..DependencyInfo::memory(st, A::NONE, S::NONE, A::NONE) };
                        sync1_bits(&dep.memory_barriers[0], &format!("{path}.x"), "vkCmdSetEvent").map_err(|(_, m)| (format!("{path}.stage_mask"), m))?;
                        (dep, None)
                    }
                    (None, None) => return fail(path, "`set_event` needs `dependency` (synchronization2) or `stage_mask` (synchronization1)"),
                };
                self.set_deps.entry(ev).or_default().push((cb, k, sync2));
                Command::SetEvent { event: ev, dependency }
            }
            "wait_events" => {
                let events = c.events.as_deref().unwrap_or_default();
                if events.is_empty() {
                    return fail(path, "`wait_events` needs a non-empty `events`");
                }
                check_len(events, &format!("{path}.events"))?;
                let mut ev = Vec::new();
                for (i, e) in events.iter().enumerate() {
                    ev.push(lookup(&self.events, e, &format!("{path}.events[{i}]"), "event")?);
                }
                let stages = sync1_stages(c, path)?;
                let dependency = match (&c.dependencies, stages) {
                    (Some(_), Some(_)) => return fail(path, "give `dependencies` (synchronization2) or command-level stage masks (synchronization1), not both"),
                    (Some(ds), None) => {
                        if c.memory_barriers.is_some() || c.buffer_memory_barriers.is_some() {
                            return fail(path, "in the synchronization2 shape the barriers go inside `dependencies`");
                        }
                        if ds.len() != events.len() {
                            return fail(format!("{path}.dependencies"), format!("{} dependencies for {} events: vkCmdWaitEvents2 takes one per event", ds.len(), events.len()));
                        }
                        let mut merged = DependencyInfo::default();
                        for (i, d) in ds.iter().enumerate() {
                            let dep = self.dependency(name, None, &d.memory_barriers, &d.buffer_memory_barriers, &d.image_memory_barriers, &format!("{path}.dependencies[{i}]"))?;
                            merged.per_event.push((dep.memory_barriers.len(), dep.buffer_memory_barriers.len(), dep.image_memory_barriers.len()));
                            merged.memory_barriers.extend(dep.memory_barriers);
                            merged.buffer_memory_barriers.extend(dep.buffer_memory_barriers);
                            merged.image_memory_barriers.extend(dep.image_memory_barriers);
                        }
                        merged
                    }
                    (None, Some(_)) => self.dependency(
                        name,
                        stages,
                        c.memory_barriers.as_deref().unwrap_or_default(),
                        c.buffer_memory_barriers.as_deref().unwrap_or_default(),
                        c.image_memory_barriers.as_deref().unwrap_or_default(),
                        path,
                    )?,
                    (None, None) => return fail(path, "`wait_events` needs `dependencies` (synchronization2) or `src_stage_mask` and `dst_stage_mask` (synchronization1)"),
                };
                Command::WaitEvents { events: ev, dependency }
            }
            "reset_event" => {
                let ev = match &c.event {
                    Some(e) => lookup(&self.events, e, &format!("{path}.event"), "event")?,
                    None => return fail(path, "`reset_event` needs `event`"),
                };
                Command::ResetEvent { event: ev, stage_mask: c.stage_mask.unwrap_or(S::ALL_COMMANDS) }
            }
            "begin_render_pass" => self.begin_render_pass(c, path)?,
            "next_subpass" => Command::NextSubpass,
            "end_render_pass" => Command::EndRenderPass,
            "begin_rendering" => self.begin_rendering(c, path)?,
            "end_rendering" => Command::EndRendering,
            "bind_vertex_buffers" => self.bind_vertex_buffers(c, path)?,
            "bind_index_buffer" => self.bind_index_buffer(c, path)?,
            "set_viewport" => self.set_viewport(c, path)?,
            "set_scissor" => self.set_scissor(c, path)?,
            "draw" | "draw_indexed" | "draw_indirect" | "draw_indexed_indirect" => self.draw(c, name, path)?,
            "clear_attachments" => self.clear_attachments(c, path)?,
            _ => unreachable_command(path, name)?,
        })
    }

    fn dispatch(&self, c: &Cmd, path: &str) -> R<Command> {
        let pipeline = match &c.shader {
            Some(s) if self.graphics.contains_key(s) => {
                return fail(format!("{path}.shader"), format!("shader `{s}` is a {} shader: `dispatch` takes a COMPUTE shader", self.graphics[s].stage().vk_name()));
            }
            Some(s) => lookup(&self.shaders, s, &format!("{path}.shader"), "shader")?,
            None => return fail(path, "`dispatch` needs `shader`"),
        };
        let Some(group_count) = c.group_count else { return fail(path, "`dispatch` needs `group_count`") };
        // In u128: three u32 counts can pass 2^64.
        let groups: u128 = group_count.iter().map(|&g| g as u128).product();
        if groups > MAX_WORKGROUPS_PER_DISPATCH as u128 {
            return fail(format!("{path}.group_count"), format!("{groups} workgroups exceed the simulator's cap of {MAX_WORKGROUPS_PER_DISPATCH} per dispatch"));
        }
        let base_group = c.base_group.unwrap_or([0; 3]);
        for d in 0..3 {
            if base_group[d].checked_add(group_count[d]).is_none() {
                return fail(format!("{path}.base_group"), format!("base_group[{d}] + group_count[{d}] overflows 32 bits"));
            }
        }
        let p = &self.w.pipelines[pipeline].1;
        let declared = |set: u32, binding: u32| p.bindings().iter().find(|x| x.group == set && x.binding == binding).map(|x| x.kind);
        let (bindings, images) = self.descriptors(c.bindings.as_deref().unwrap_or_default(), &declared, "vkCmdDispatch", path)?;
        let push_constants = self.push_constants(c, path)?;
        Ok(Command::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images })
    }

    /// The descriptors of a dispatch or draw (`vk`, for VUIDs): buffer bindings and image and
    /// sampler bindings, each checked against what the shaders declare at its (set, binding)
    /// (`declared`; `None` where they do not use it).
    fn descriptors(&self, list: &[schema::Binding], declared: &dyn Fn(u32, u32) -> Option<BindingKind>, vk: &str, path: &str) -> R<(Vec<BufferBinding>, Vec<crate::api::ImageDescriptor>)> {
        check_len(list, &format!("{path}.bindings"))?;
        let mut bindings = Vec::new();
        let mut images = Vec::new();
        for (i, b) in list.iter().enumerate() {
            let bp = format!("{path}.bindings[{i}]");
            let declared = declared(b.set, b.binding);
            let image_type = b.descriptor_type.as_deref().map(|t| t.trim_start_matches("VK_DESCRIPTOR_TYPE_")).is_some_and(|t| matches!(t, "SAMPLED_IMAGE" | "STORAGE_IMAGE" | "COMBINED_IMAGE_SAMPLER" | "SAMPLER"));
            if b.image.is_some() || b.sampler.is_some() || b.layout.is_some() || image_type {
                images.push(self.image_descriptor(b, declared, vk, &bp)?);
                continue;
            }
            for (set, f) in [(b.subresource_range.is_some(), "subresource_range"), (b.view_type.is_some(), "view_type"), (b.format.is_some(), "format")] {
                if set {
                    return fail(format!("{bp}.{f}"), format!("`{f}` belongs to an image binding, and this one binds a buffer"));
                }
            }
            let Some(id) = &b.buffer else { return fail(bp, "a binding needs `buffer`, or `image` or `sampler`") };
            if let Some(d) = declared
                && !matches!(d, BindingKind::StorageBuffer { .. } | BindingKind::UniformBuffer)
            {
                return fail(format!("{bp}.buffer"), format!("the shader declares (set {}, binding {}) as {}, and this binding names a buffer", b.set, b.binding, kind_name(d)));
            }
            let buffer = lookup(&self.bufs, id, &format!("{bp}.buffer"), "buffer")?;
            let range = self.buffer_range(buffer, b.offset, b.range, &format!("{bp}.offset"), &format!("{bp}.range"))?;
            if range == 0 {
                return fail(format!("{bp}.range"), "the bound range is empty");
            }
            if let Some(t) = &b.descriptor_type {
                let short = t.trim_start_matches("VK_DESCRIPTOR_TYPE_");
                let kind_ok = match short {
                    "STORAGE_BUFFER" => declared.is_none_or(|d| matches!(d, BindingKind::StorageBuffer { .. })),
                    "UNIFORM_BUFFER" => declared.is_none_or(|d| matches!(d, BindingKind::UniformBuffer)),
                    "INPUT_ATTACHMENT" => return fail(format!("{bp}.descriptor_type"), "descriptor type `INPUT_ATTACHMENT` binds an image (an input attachment of a draw's subpass), and this binding names a buffer"),
                    "STORAGE_BUFFER_DYNAMIC" | "UNIFORM_BUFFER_DYNAMIC" | "UNIFORM_TEXEL_BUFFER" | "STORAGE_TEXEL_BUFFER" => {
                        return fail(format!("{bp}.descriptor_type"), format!("descriptor type `{t}` is not supported yet by the engine (STORAGE_BUFFER, UNIFORM_BUFFER, SAMPLED_IMAGE, STORAGE_IMAGE, COMBINED_IMAGE_SAMPLER and SAMPLER are)"));
                    }
                    _ => return fail(format!("{bp}.descriptor_type"), format!("unknown descriptor type `{t}` (expected STORAGE_BUFFER, UNIFORM_BUFFER, SAMPLED_IMAGE, STORAGE_IMAGE, COMBINED_IMAGE_SAMPLER or SAMPLER)")),
                };
                if !kind_ok {
                    return fail(format!("{bp}.descriptor_type"), format!("descriptor type `{t}` does not match the shader's declaration of (set {}, binding {})", b.set, b.binding));
                }
            }
            let range = match b.range {
                Some(Size::Bytes(_)) => Some(range),
                _ => None,
            };
            bindings.push(BufferBinding { set: b.set, binding: b.binding, buffer, offset: b.offset, range });
        }
        Ok((bindings, images))
    }

    /// The push constants of a dispatch or draw: whole words, at most 256 bytes.
    fn push_constants(&self, c: &Cmd, path: &str) -> R<Vec<u8>> {
        let push_constants = match (&c.push_constants_u32, &c.push_constants_f32, &c.push_constants_hex) {
            (None, None, None) => Vec::new(),
            (Some(v), None, None) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            (None, Some(v), None) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            (None, None, Some(_)) => self.payload(&None, &None, &c.push_constants_hex, &None, path, "push_constants")?.unwrap_or_default(),
            _ => return fail(path, "give only one of `push_constants_u32`, `push_constants_f32`, `push_constants_hex`"),
        };
        if !push_constants.len().is_multiple_of(4) {
            return fail(path, format!("{} bytes of push constants: vkCmdPushConstants takes a multiple of 4", push_constants.len()));
        }
        if push_constants.len() > 256 {
            return fail(path, format!("{} bytes of push constants exceed the cap of 256", push_constants.len()));
        }
        Ok(push_constants)
    }

    /// An image or sampler binding of a dispatch, checked as Vulkan's valid usage checks
    /// `VkWriteDescriptorSet` (layouts and usages) and the dispatch (the view's type and numeric
    /// format against the shader's declaration, `declared`, when the entry point uses it).
    fn image_descriptor(&self, b: &schema::Binding, declared: Option<BindingKind>, vk: &str, bp: &str) -> R<crate::api::ImageDescriptor> {
        use crate::api::ImageDescriptorType as T;
        if b.buffer.is_some() || b.range.is_some() || b.offset != 0 {
            return fail(bp, "an image or sampler binding names no buffer, offset or range");
        }
        let given = match b.descriptor_type.as_deref().map(|t| t.trim_start_matches("VK_DESCRIPTOR_TYPE_")) {
            Some("SAMPLED_IMAGE") => Some(T::SampledImage),
            Some("STORAGE_IMAGE") => Some(T::StorageImage),
            Some("COMBINED_IMAGE_SAMPLER") => Some(T::CombinedImageSampler),
            Some("SAMPLER") => Some(T::Sampler),
            Some(other @ ("STORAGE_BUFFER" | "UNIFORM_BUFFER" | "STORAGE_BUFFER_DYNAMIC" | "UNIFORM_BUFFER_DYNAMIC" | "UNIFORM_TEXEL_BUFFER" | "STORAGE_TEXEL_BUFFER")) => {
                return fail(format!("{bp}.descriptor_type"), format!("descriptor type `{other}` binds a buffer, and this binding names an image or sampler"));
            }
            Some("INPUT_ATTACHMENT") if vk.starts_with("vkCmdDraw") => Some(T::InputAttachment),
            Some("INPUT_ATTACHMENT") => return fail(format!("{bp}.descriptor_type"), format!("an INPUT_ATTACHMENT descriptor is read by a fragment shader in a render pass, not by {vk}")),
            Some(other) => return fail(format!("{bp}.descriptor_type"), format!("unknown descriptor type `{other}` (expected SAMPLED_IMAGE, STORAGE_IMAGE, COMBINED_IMAGE_SAMPLER or SAMPLER for an image or sampler binding)")),
            None => None,
        };
        // From the shader when the trace does not say: an image with a sampler is a combined
        // image sampler.
        let kind = match (given, declared, b.image.is_some(), b.sampler.is_some()) {
            (Some(t), ..) => t,
            (None, _, true, true) => T::CombinedImageSampler,
            (None, _, false, true) => T::Sampler,
            (None, Some(BindingKind::StorageImage { .. }), ..) => T::StorageImage,
            (None, Some(BindingKind::SampledImage { .. }), ..) => T::SampledImage,
            (None, None, ..) => {
                return fail(bp, "give `descriptor_type` (SAMPLED_IMAGE or STORAGE_IMAGE): the shader does not use this binding, so it cannot tell")
            }
            (None, Some(d), ..) => return fail(bp, format!("the shader declares (set {}, binding {}) as {}, and this binding names an image", b.set, b.binding, kind_name(d))),
        };
        let matches = match (kind, declared) {
            (_, None) => true,
            (T::SampledImage | T::CombinedImageSampler | T::InputAttachment, Some(BindingKind::SampledImage { .. })) => true,
            // A SPIR-V combined image sampler is an image and a sampler at one binding.
            (T::CombinedImageSampler | T::Sampler, Some(BindingKind::Sampler)) => true,
            (T::StorageImage, Some(BindingKind::StorageImage { .. })) => true,
            _ => false,
        };
        if let (false, Some(d)) = (matches, declared) {
            // Where the trace gave the type, the type is wrong; where it did not, what it binds.
            let (at, what) = match given {
                Some(_) => (format!("{bp}.descriptor_type"), format!("descriptor type {}", kind.vk_name())),
                None => (bp.to_string(), format!("this binding (a {} by what it names)", kind.vk_name())),
            };
            return fail(at, format!("{what} does not match the shader's declaration of (set {}, binding {}) as {}", b.set, b.binding, kind_name(d)));
        }
        let sampler = match (&b.sampler, kind) {
            (Some(id), T::Sampler | T::CombinedImageSampler) => match self.w.samplers.iter().position(|s| &s.name == id) {
                Some(k) => Some(k),
                None => return fail(format!("{bp}.sampler"), format!("unknown sampler `{id}`")),
            },
            (None, T::Sampler | T::CombinedImageSampler) => return fail(bp, format!("a {} binding needs `sampler`", kind.vk_name())),
            (Some(_), _) => return fail(format!("{bp}.sampler"), format!("a {} binding takes no sampler", kind.vk_name())),
            (None, _) => None,
        };
        if kind == T::Sampler {
            for (set, f) in [(b.image.is_some(), "image"), (b.layout.is_some(), "layout"), (b.subresource_range.is_some(), "subresource_range"), (b.view_type.is_some(), "view_type"), (b.format.is_some(), "format")] {
                if set {
                    return fail(format!("{bp}.{f}"), format!("a SAMPLER binding takes no `{f}`"));
                }
            }
            return Ok(crate::api::ImageDescriptor { set: b.set, binding: b.binding, descriptor_type: kind, image: None, layout: String::new(), range: sim_rop::SubresourceRange { aspects: [true, false, false], base_mip_level: 0, level_count: 0, base_array_layer: 0, layer_count: 0 }, sampler });
        }
        if b.image.is_none() {
            return fail(bp, format!("a {} binding needs `image`", kind.vk_name()));
        }
        let image = self.image(&b.image, &format!("{bp}.image"), bp, "image binding", "image")?;
        let im = &self.w.images[image];
        let desc = im.layout.desc;
        let Some(layout) = &b.layout else { return fail(bp, format!("a {} binding needs `layout`, the layout the image is in when the shader reads it", kind.vk_name())) };
        let layout = layout.trim_start_matches("VK_IMAGE_LAYOUT_").to_string();
        let (layouts, vuid_layout, usage, vuid_usage): (&[&str], _, _, _) = match kind {
            T::StorageImage => (&["GENERAL"], "VUID-VkWriteDescriptorSet-descriptorType-04152", "STORAGE", "VUID-VkWriteDescriptorSet-descriptorType-00339"),
            T::SampledImage => (&["SHADER_READ_ONLY_OPTIMAL", "READ_ONLY_OPTIMAL", "GENERAL", "DEPTH_STENCIL_READ_ONLY_OPTIMAL", "DEPTH_READ_ONLY_OPTIMAL", "STENCIL_READ_ONLY_OPTIMAL"], "VUID-VkWriteDescriptorSet-descriptorType-04149", "SAMPLED", "VUID-VkWriteDescriptorSet-descriptorType-00337"),
            T::InputAttachment => (&["SHADER_READ_ONLY_OPTIMAL", "READ_ONLY_OPTIMAL", "GENERAL", "DEPTH_STENCIL_READ_ONLY_OPTIMAL", "DEPTH_READ_ONLY_OPTIMAL", "STENCIL_READ_ONLY_OPTIMAL"], "VUID-VkWriteDescriptorSet-descriptorType-04151", "INPUT_ATTACHMENT", "VUID-VkWriteDescriptorSet-descriptorType-00338"),
            _ => (&["SHADER_READ_ONLY_OPTIMAL", "READ_ONLY_OPTIMAL", "GENERAL", "DEPTH_STENCIL_READ_ONLY_OPTIMAL", "DEPTH_READ_ONLY_OPTIMAL", "STENCIL_READ_ONLY_OPTIMAL"], "VUID-VkWriteDescriptorSet-descriptorType-04150", "SAMPLED", "VUID-VkWriteDescriptorSet-descriptorType-00337"),
        };
        if !layouts.contains(&layout.as_str()) {
            return fail(format!("{bp}.layout"), format!("`{layout}` is not a layout a {} descriptor takes ({}: {vuid_layout})", kind.vk_name(), layouts.join(", ")));
        }
        self.image_usage(image, usage, &format!("{bp}.image"), vuid_usage)?;
        if let Some(f) = &b.format {
            let f = f.trim_start_matches("VK_FORMAT_");
            if f != desc.format.name() {
                return fail(format!("{bp}.format"), format!("a view of format {f} on a {} image is not supported yet by the engine (views take their image's format)", desc.format));
            }
        }
        let range = match &b.subresource_range {
            Some(r) => self.subresource_range(image, r, &format!("{bp}.subresource_range"))?,
            None => sim_rop::SubresourceRange::whole(&desc),
        };
        if range.aspects != [true, false, false] {
            return fail(format!("{bp}.subresource_range"), "a shader reads the colour aspect of a colour image; depth and stencil images in shaders are not supported yet by the engine");
        }
        if kind == T::StorageImage && range.level_count != 1 {
            return fail(format!("{bp}.subresource_range"), format!("a storage image descriptor views one level, not {} (Vulkan's storage image descriptors take views of one level)", range.level_count));
        }
        // The view's type: as the trace says, else as the shader declares, else as the image is.
        let image_dim = match desc.image_type {
            sim_rop::ImageType::D1 => sim_shader::ImageDim::D1,
            sim_rop::ImageType::D2 => sim_shader::ImageDim::D2,
            sim_rop::ImageType::D3 => sim_shader::ImageDim::D3,
        };
        let shader = match declared {
            Some(BindingKind::SampledImage { dim, arrayed, .. } | BindingKind::StorageImage { dim, arrayed, .. }) => Some((dim, arrayed)),
            _ => None,
        };
        let view = match &b.view_type {
            Some(v) => match v.trim_start_matches("VK_IMAGE_VIEW_TYPE_") {
                "1D" => (sim_shader::ImageDim::D1, false),
                "2D" => (sim_shader::ImageDim::D2, false),
                "3D" => (sim_shader::ImageDim::D3, false),
                "1D_ARRAY" => (sim_shader::ImageDim::D1, true),
                "2D_ARRAY" => (sim_shader::ImageDim::D2, true),
                "CUBE" | "CUBE_ARRAY" => return fail(format!("{bp}.view_type"), "cube views are not supported yet by the engine"),
                other => return fail(format!("{bp}.view_type"), format!("unknown view type `{other}` (expected 1D, 2D, 3D, 1D_ARRAY or 2D_ARRAY)")),
            },
            None => shader.unwrap_or((image_dim, range.layer_count > 1)),
        };
        if view.0 != image_dim {
            return fail(format!("{bp}.view_type"), format!("a {} view of a {} image is not supported (VUID-VkImageViewCreateInfo-subResourceRange-01021)", view_name(view), view_name((image_dim, false))));
        }
        if !view.1 && range.layer_count != 1 {
            let at = if b.subresource_range.is_some() { format!("{bp}.subresource_range") } else { bp.to_string() };
            let how = if shader.is_some_and(|(_, arrayed)| !arrayed) { "name one layer in `subresource_range`, or declare the shader's image an array" } else { "name one layer in `subresource_range`, or give `view_type` an array type" };
            return fail(at, format!("a {} view views one layer, and this one views {} of image `{}` (VUID-VkImageViewCreateInfo-imageViewType-04973): {how}", view_name(view), range.layer_count, im.name));
        }
        if let Some(declared) = shader
            && declared != view
        {
            return fail(bp, format!("the shader declares (set {}, binding {}) as a {} image, and the view is {} (VUID-{vk}-viewType-07752)", b.set, b.binding, view_name(declared), view_name(view)));
        }
        // The view's numeric format against the shader's sampled type or storage format.
        let class = desc.format.class(sim_rop::Aspect::Color);
        match declared {
            Some(BindingKind::SampledImage { sample, .. }) => {
                let ok = match sample {
                    sim_shader::SampleKind::Float => class != sim_rop::format::NumericClass::Uint,
                    sim_shader::SampleKind::Uint => class == sim_rop::format::NumericClass::Uint,
                    sim_shader::SampleKind::Sint => false,
                };
                if !ok {
                    return fail(bp, format!("the shader reads (set {}, binding {}) as {sample:?} texels, and image `{}` is {} (VUID-{vk}-format-07753)", b.set, b.binding, im.name, desc.format));
                }
            }
            Some(BindingKind::StorageImage { format, .. }) if format.vk_name() != desc.format.name() => {
                return fail(bp, format!("the shader declares (set {}, binding {}) as a {} storage image, and image `{}` is {} (the view's format must be the shader's: VUID-{vk}-format-07753)", b.set, b.binding, format.vk_name(), im.name, desc.format));
            }
            _ => {}
        }
        Ok(crate::api::ImageDescriptor { set: b.set, binding: b.binding, descriptor_type: kind, image: Some(image), layout, range, sampler })
    }

    /// Every command submitted to `queue` must be one its family supports: vkCmdDispatch needs
    /// COMPUTE; render passes, dynamic rendering, draws and the state they use (vertex and index
    /// buffers, viewport, scissor) and attachment clears need GRAPHICS; fills, updates and copies
    /// need GRAPHICS, COMPUTE or TRANSFER.
    fn check_queue_caps(&self, queue: usize, batches: &[SubmitBatch], path: &str) -> R<()> {
        let caps = self.queue_caps.get(queue).copied().unwrap_or(QueueCaps::ALL);
        for &cb in batches.iter().flat_map(|b| &b.command_buffers) {
            let desc = &self.w.command_buffers[cb];
            for (k, c) in desc.commands.iter().enumerate() {
                let needs = match c {
                    Command::Dispatch { .. } if !caps.compute => "COMPUTE",
                    c if c.is_graphics() && !caps.graphics => "GRAPHICS",
                    Command::FillBuffer { .. } | Command::UpdateBuffer { .. } | Command::CopyBuffer { .. } if !caps.transfer() => "GRAPHICS, COMPUTE or TRANSFER",
                    _ => continue,
                };
                return fail(
                    path,
                    format!("command buffer `{}` is submitted to queue `{}`, whose flags lack {needs}, which its commands[{k}] ({}) needs", desc.name, self.w.queues[queue], c.vk_name()),
                );
            }
        }
        Ok(())
    }

    /// A synchronization2 wait_events dependency must equal the one of the vkCmdSetEvent2 that
    /// signalled the event: the last set before the wait in submission order that found the
    /// event unsignalled ("If event is already in the signaled state when vkCmdSetEvent2 is
    /// executed on the device, then vkCmdSetEvent2 has no effect"; vkCmdResetEvent2 unsignals
    /// it). Submitted command buffers are followed in timeline order, each submission of one
    /// checked; one never submitted is checked against the sets recorded before the wait in it.
    fn check_wait_events(&self, t: &schema::Trace) -> R<()> {
        #[derive(Clone, Copy, PartialEq)]
        enum Signal {
            Unset,
            Host,
            Device(usize, usize),
        }
        let mut state = vec![Signal::Unset; self.w.events.len()];
        let mut submitted = vec![false; self.w.command_buffers.len()];
        let walk = |ci: usize, state: &mut Vec<Signal>| -> R<()> {
            for (k, c) in self.w.command_buffers[ci].commands.iter().enumerate() {
                match c {
                    Command::SetEvent { event, .. } if state[*event] == Signal::Unset => state[*event] = Signal::Device(ci, k),
                    Command::ResetEvent { event, .. } => state[*event] = Signal::Unset,
                    Command::WaitEvents { events, .. } => {
                        for (i, &e) in events.iter().enumerate() {
                            if let Signal::Device(sc, sk) = state[e] {
                                self.check_wait_matches_set(t, (ci, k, i), e, (sc, sk))?;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        };
        for op in &self.w.timeline {
            match op {
                HostOp::QueueSubmit { batches, .. } => {
                    for ci in batches.iter().flat_map(|b| &b.command_buffers) {
                        submitted[*ci] = true;
                        walk(*ci, &mut state)?;
                    }
                }
                HostOp::SetEvent(e) if state[*e] == Signal::Unset => state[*e] = Signal::Host,
                _ => {}
            }
        }
        for ci in (0..self.w.command_buffers.len()).filter(|&ci| !submitted[ci]) {
            walk(ci, &mut vec![Signal::Unset; self.w.events.len()])?;
        }
        Ok(())
    }

    /// Checks the dependency of event `i` of the wait at (command buffer `ci`, command `k`)
    /// against the one of the set of `event` at (`sc`, `sk`).
    fn check_wait_matches_set(&self, t: &schema::Trace, (ci, k, i): (usize, usize, usize), event: usize, (sc, sk): (usize, usize)) -> R<()> {
        let Some(ds) = &t.command_buffers[ci].commands[k].dependencies else { return Ok(()) };
        let Some(Some(set_dep)) = self.set_deps.get(&event).and_then(|sets| sets.iter().find(|(c, n, _)| (*c, *n) == (sc, sk))).map(|(_, _, d)| d.as_ref()) else {
            return Ok(());
        };
        let path = format!("command_buffers[{ci}].commands[{k}].dependencies[{i}]");
        let Some(d) = ds.get(i) else { return Ok(()) };
        let dep = self.dependency("wait_events", None, &d.memory_barriers, &d.buffer_memory_barriers, &d.image_memory_barriers, &path)?;
        if !same_dependency(&dep, set_dep) {
            return fail(
                path,
                format!(
                    "this dependency differs from the one of the set_event of `{}` that signalled it (command_buffers[{sc}].commands[{sk}], the last set before this wait in submission order that found it unsignalled); vkCmdWaitEvents2 requires them to be equal",
                    t.events[event]
                ),
            );
        }
        Ok(())
    }

    fn ranges(&self, rs: &[schema::Range], path: &str) -> R<Vec<MappedRange>> {
        check_len(rs, path)?;
        let mut out = Vec::new();
        for (i, r) in rs.iter().enumerate() {
            let rp = format!("{path}[{i}]");
            let m = lookup(&self.mems, &r.memory, &format!("{rp}.memory"), "memory")?;
            let desc = &self.w.memories[m];
            if !desc.properties.host_visible {
                return fail(format!("{rp}.memory"), format!("memory `{}` is not HOST_VISIBLE, so it cannot be mapped", desc.name));
            }
            let size = match r.size {
                None | Some(Size::Whole) => None,
                Some(Size::Bytes(n)) => Some(n),
            };
            if r.offset > desc.size || size.is_some_and(|n| !fits(r.offset, n, desc.size)) {
                return fail(rp, format!("range [{}, +{}) is outside memory `{}` of {} bytes", r.offset, size.map_or("WHOLE_SIZE".into(), |n| n.to_string()), desc.name, desc.size));
            }
            out.push(MappedRange { memory: m, offset: r.offset, size });
        }
        Ok(out)
    }

    fn host_memory(&self, op: &TimelineOp, path: &str) -> R<usize> {
        let Some(id) = &op.memory else { return fail(path, format!("`{}` needs `memory`", op.op)) };
        let m = lookup(&self.mems, id, &format!("{path}.memory"), "memory")?;
        if !self.w.memories[m].properties.host_visible {
            return fail(format!("{path}.memory"), format!("memory `{id}` is not HOST_VISIBLE, so the host cannot map it"));
        }
        Ok(m)
    }

    fn sem_waits(&self, ws: &[schema::SemaphoreWait], path: &str) -> R<Vec<(usize, S)>> {
        let mut v = Vec::new();
        for (i, s) in ws.iter().enumerate() {
            let p = format!("{path}[{i}]");
            if s.value.is_some() {
                return fail(format!("{p}.value"), "semaphore values are for timeline semaphores, which are not supported yet by the engine");
            }
            v.push((lookup(&self.sems, &s.semaphore, &format!("{p}.semaphore"), "semaphore")?, s.stage_mask.unwrap_or(S::ALL_COMMANDS)));
        }
        Ok(v)
    }

    fn sem_signals(&self, ss: &[Declared<schema::SemaphoreWait>], path: &str) -> R<Vec<(usize, S)>> {
        let mut v = Vec::new();
        for (i, s) in ss.iter().enumerate() {
            let p = format!("{path}[{i}]");
            match s {
                Declared::Id(id) => v.push((lookup(&self.sems, id, &p, "semaphore")?, S::ALL_COMMANDS)),
                Declared::Full(w) => {
                    if w.value.is_some() {
                        return fail(format!("{p}.value"), "semaphore values are for timeline semaphores, which are not supported yet by the engine");
                    }
                    v.push((lookup(&self.sems, &w.semaphore, &format!("{p}.semaphore"), "semaphore")?, w.stage_mask.unwrap_or(S::ALL_COMMANDS)));
                }
            }
        }
        Ok(v)
    }

    fn batch(&self, cbs: &[String], waits: &[schema::SemaphoreWait], signals: &[Declared<schema::SemaphoreWait>], path: &str) -> R<SubmitBatch> {
        check_len(cbs, path)?;
        let mut command_buffers = Vec::new();
        for (i, c) in cbs.iter().enumerate() {
            command_buffers.push(lookup(&self.cbs, c, &format!("{path}.command_buffers[{i}]"), "command buffer")?);
        }
        Ok(SubmitBatch {
            command_buffers,
            wait_semaphores: self.sem_waits(waits, &format!("{path}.wait_semaphores"))?,
            signal_semaphores: self.sem_signals(signals, &format!("{path}.signal_semaphores"))?,
        })
    }

    fn host_op(&self, op: &TimelineOp, i: usize, path: &str) -> R<HostOp> {
        let name = op.op.as_str();
        if matches!(name, "signal_semaphore" | "wait_semaphores") {
            return fail(format!("{path}.op"), format!("`{name}` is not supported yet by the engine (it is for timeline semaphores)"));
        }
        if matches!(name, "reset_event" | "get_event_status" | "get_fence_status" | "queue_bind_sparse") {
            return fail(format!("{path}.op"), format!("`{name}` is not supported yet by the engine"));
        }
        let allowed: &[&str] = match name {
            "queue_submit" => &["queue", "command_buffers", "wait_semaphores", "signal_semaphores", "batches", "fence"],
            "wait_for_fences" => &["fences", "wait_all", "timeout"],
            "reset_fences" => &["fences"],
            "queue_wait_idle" => &["queue"],
            "device_wait_idle" => &[],
            "host_write" => &["memory", "offset", "data_u32", "data_f32", "data_hex", "data_file"],
            "host_read" => &["memory", "offset", "size", "label", "expect_u32", "expect_f32", "expect_hex", "expect_file"],
            "flush_mapped_memory_ranges" | "invalidate_mapped_memory_ranges" => &["ranges"],
            "set_event" => &["event"],
            _ => return fail(format!("{path}.op"), format!("unknown operation `{name}` (expected one of {})", OPERATIONS.join(", "))),
        };
        for f in present_op_fields(op) {
            if !allowed.contains(&f) {
                return fail(format!("{path}.{f}"), format!("field `{f}` does not belong to `{name}` (its fields: {})", allowed.join(", ")));
            }
        }
        let fences = |list: &Option<Vec<String>>| -> R<Vec<usize>> {
            let list = list.as_deref().unwrap_or_default();
            if list.is_empty() {
                return fail(path, format!("`{name}` needs a non-empty `fences`"));
            }
            check_len(list, &format!("{path}.fences"))?;
            list.iter().enumerate().map(|(k, f)| lookup(&self.fences, f, &format!("{path}.fences[{k}]"), "fence")).collect()
        };
        let queue = |q: &Option<String>| -> R<usize> {
            match q {
                Some(q) => lookup(&self.queues, q, &format!("{path}.queue"), "queue"),
                None => Ok(0),
            }
        };
        Ok(match name {
            "queue_submit" => {
                let queue = queue(&op.queue)?;
                let single = op.command_buffers.is_some() || op.wait_semaphores.is_some() || op.signal_semaphores.is_some();
                let batches = match (&op.batches, single) {
                    (Some(_), true) => return fail(path, "give `batches`, or `command_buffers` and semaphores for one batch, not both"),
                    (Some(bs), false) => {
                        check_len(bs, &format!("{path}.batches"))?;
                        bs.iter()
                            .enumerate()
                            .map(|(k, b)| self.batch(&b.command_buffers, &b.wait_semaphores, &b.signal_semaphores, &format!("{path}.batches[{k}]")))
                            .collect::<R<Vec<_>>>()?
                    }
                    (None, _) => vec![self.batch(
                        op.command_buffers.as_deref().unwrap_or_default(),
                        op.wait_semaphores.as_deref().unwrap_or_default(),
                        op.signal_semaphores.as_deref().unwrap_or_default(),
                        path,
                    )?],
                };
                let fence = match &op.fence {
                    Some(f) => Some(lookup(&self.fences, f, &format!("{path}.fence"), "fence")?),
                    None => None,
                };
                self.check_queue_caps(queue, &batches, path)?;
                HostOp::QueueSubmit { queue, batches, fence }
            }
            "wait_for_fences" => {
                let fs = fences(&op.fences)?;
                if op.wait_all == Some(false) && fs.len() > 1 {
                    return fail(format!("{path}.wait_all"), "waiting for any one of several fences is not supported yet by the engine (wait_all: true)");
                }
                HostOp::WaitForFences(fs)
            }
            "reset_fences" => HostOp::ResetFences(fences(&op.fences)?),
            "queue_wait_idle" => HostOp::QueueWaitIdle(queue(&op.queue)?),
            "device_wait_idle" => HostOp::DeviceWaitIdle,
            "host_write" => {
                let memory = self.host_memory(op, path)?;
                let offset = op.offset.unwrap_or(0);
                let data = self.payload(&op.data_u32, &op.data_f32, &op.data_hex, &op.data_file, path, "data")?.ok_or_else(|| (path.to_string(), "`host_write` needs one of `data_u32`, `data_f32`, `data_hex`, `data_file`".to_string()))?;
                let m = &self.w.memories[memory];
                if !fits(offset, data.len() as u64, m.size) {
                    return fail(format!("{path}.offset"), format!("write [{offset}, {offset}+{}) is outside memory `{}` of {} bytes", data.len(), m.name, m.size));
                }
                HostOp::HostWrite { memory, offset, data }
            }
            "host_read" => {
                let memory = self.host_memory(op, path)?;
                let offset = op.offset.unwrap_or(0);
                let m = &self.w.memories[memory];
                if offset > m.size {
                    return fail(format!("{path}.offset"), format!("offset {offset} is outside memory `{}` of {} bytes", m.name, m.size));
                }
                let size = match op.size {
                    Some(Size::Bytes(n)) => n,
                    Some(Size::Whole) => m.size - offset,
                    None => return fail(path, "`host_read` needs `size`"),
                };
                if size == 0 {
                    return fail(format!("{path}.size"), "a host read's size must not be zero");
                }
                if !fits(offset, size, m.size) {
                    return fail(format!("{path}.size"), format!("read [{offset}, {offset}+{size}) is outside memory `{}` of {} bytes", m.name, m.size));
                }
                if size > MAX_PAYLOAD_BYTES {
                    return fail(format!("{path}.size"), format!("a host read of {size} bytes exceeds the cap of {MAX_PAYLOAD_BYTES} bytes (64 MiB)"));
                }
                // Each read is kept, as the simulated and the reference run saw it, until the
                // two are compared.
                self.host_read_total.set(self.host_read_total.get() + size);
                if self.host_read_total.get() > MAX_TOTAL_HOST_READ_BYTES {
                    return fail(format!("{path}.size"), format!("the trace's host reads total more than the cap of {MAX_TOTAL_HOST_READ_BYTES} bytes (256 MiB)"));
                }
                let expect = self.payload(&op.expect_u32, &op.expect_f32, &op.expect_hex, &op.expect_file, path, "expect")?;
                if let Some(e) = &expect
                    && e.len() as u64 != size
                {
                    return fail(path, format!("the expectation has {} bytes but the read has {size}", e.len()));
                }
                if let Some(label) = &op.label {
                    check_printable(label, &format!("{path}.label"), "a host_read label")?;
                }
                HostOp::HostRead { memory, offset, size, label: op.label.clone().unwrap_or_else(|| format!("timeline[{i}]")), expect }
            }
            "flush_mapped_memory_ranges" | "invalidate_mapped_memory_ranges" => {
                let rs = op.ranges.as_deref().unwrap_or_default();
                if rs.is_empty() {
                    return fail(path, format!("`{name}` needs a non-empty `ranges`"));
                }
                let r = self.ranges(rs, &format!("{path}.ranges"))?;
                if name == "flush_mapped_memory_ranges" { HostOp::FlushMappedMemoryRanges(r) } else { HostOp::InvalidateMappedMemoryRanges(r) }
            }
            "set_event" => match &op.event {
                Some(e) => HostOp::SetEvent(lookup(&self.events, e, &format!("{path}.event"), "event")?),
                None => return fail(path, "`set_event` needs `event`"),
            },
            _ => return fail(format!("{path}.op"), format!("unknown operation `{name}`")),
        })
    }
}

fn unreachable_command(path: &str, name: &str) -> R<Command> {
    fail(format!("{path}.cmd"), format!("unknown command `{name}`"))
}

/// The synchronization1 shape has 32-bit masks (VkPipelineStageFlags, VkAccessFlags): a
/// synchronization2-only bit (COPY, CLEAR, SHADER_STORAGE_WRITE, ...) cannot be given in it, and
/// a real driver would never see it.
fn sync1_bits(b: &MemoryBarrier2, path: &str, vk: &str) -> R<()> {
    let stages = [("src_stage_mask", b.src_stage_mask), ("dst_stage_mask", b.dst_stage_mask)];
    for (field, m) in stages {
        let high = S::from_bits(m.bits() & !0xffff_ffff);
        if !high.is_empty() {
            let at = if path.contains("memory_barriers[") { path.rsplit_once('.').map_or(path, |(p, _)| p).to_string() } else { path.to_string() };
            return fail(format!("{at}.{field}"), format!("{vk} takes VkPipelineStageFlags (32 bits): {high} exists only in synchronization2 (use its synchronization1 equivalent, such as TRANSFER, or the synchronization2 shape)"));
        }
    }
    for (field, m) in [("src_access_mask", b.src_access_mask), ("dst_access_mask", b.dst_access_mask)] {
        let high = A::from_bits(m.bits() & !0xffff_ffff);
        if !high.is_empty() {
            return fail(format!("{path}.{field}"), format!("{vk} takes VkAccessFlags (32 bits): {high} exists only in synchronization2 (use SHADER_READ or SHADER_WRITE, or the synchronization2 shape)"));
        }
    }
    Ok(())
}

fn sync1_stages(c: &Cmd, path: &str) -> R<Option<(S, S)>> {
    match (c.src_stage_mask, c.dst_stage_mask) {
        (None, None) => Ok(None),
        (Some(s), Some(d)) => Ok(Some((s, d))),
        _ => fail(path, "the synchronization1 shape needs both `src_stage_mask` and `dst_stage_mask` on the command"),
    }
}

fn same_dependency(a: &DependencyInfo, b: &DependencyInfo) -> bool {
    a.memory_barriers == b.memory_barriers
        && a.buffer_memory_barriers.len() == b.buffer_memory_barriers.len()
        && a.buffer_memory_barriers
            .iter()
            .zip(&b.buffer_memory_barriers)
            .all(|(x, y)| x.barrier == y.barrier && x.buffer == y.buffer && x.offset == y.offset && x.size == y.size)
}

macro_rules! present {
    ($v:expr; $($f:ident),*) => {{
        let mut out: Vec<&'static str> = Vec::new();
        $(if $v.$f.is_some() { out.push(stringify!($f)); })*
        out
    }};
}

fn present_cmd_fields(c: &Cmd) -> Vec<&'static str> {
    present!(c; dst_buffer, src_buffer, dst_offset, size, data, data_u32, data_f32, data_hex, data_file, regions, src_stage_mask, dst_stage_mask,
        dependency_flags, memory_barriers, buffer_memory_barriers, image_memory_barriers, src_image, dst_image, src_image_layout, dst_image_layout,
        image, image_layout, color, depth_stencil, ranges, shader, group_count, base_group, bindings,
        push_constants_u32, push_constants_f32, push_constants_hex, event, events, dependency, dependencies, stage_mask, filter, render_pass, framebuffer,
        render_area, clear_values, layer_count, color_attachments, depth_attachment, stencil_attachment, first_binding, buffers, offsets, buffer, offset,
        index_type, viewport, scissor, pipeline, vertex_count, instance_count, first_vertex, first_instance, index_count, first_index, vertex_offset,
        draw_count, stride, attachments, rects)
}

fn present_op_fields(o: &TimelineOp) -> Vec<&'static str> {
    present!(o; queue, command_buffers, wait_semaphores, signal_semaphores, batches, fence, fences, wait_all, timeout, memory, offset, size,
        data_u32, data_f32, data_hex, data_file, expect_u32, expect_f32, expect_hex, expect_file, label, ranges, event, semaphore, semaphores, value)
}

/// What a queue family can do, from its declared VkQueueFlags.
#[derive(Clone, Copy, Debug, Default)]
struct QueueCaps {
    graphics: bool,
    compute: bool,
    transfer: bool,
}

impl QueueCaps {
    /// A queue declared without flags: the default family has all three.
    const ALL: QueueCaps = QueueCaps { graphics: true, compute: true, transfer: true };

    /// Parses `"GRAPHICS|COMPUTE"` or `["GRAPHICS", "COMPUTE"]` (names short or in full,
    /// `VK_QUEUE_COMPUTE_BIT`; `NONE` is no flag).
    fn parse(flags: &serde_json::Value) -> Result<QueueCaps, String> {
        let names: Vec<&str> = match flags {
            serde_json::Value::String(s) => s.split('|').collect(),
            serde_json::Value::Array(a) => a.iter().map(|v| v.as_str().ok_or_else(|| format!("expected a flag name, found {v}"))).collect::<Result<_, _>>()?,
            other => return Err(format!("expected queue flags as `A|B` or a list of names, found {other}")),
        };
        let mut caps = QueueCaps::default();
        for name in names {
            let short = name.trim().trim_start_matches("VK_QUEUE_").trim_end_matches("_BIT");
            match short {
                "GRAPHICS" => caps.graphics = true,
                "COMPUTE" => caps.compute = true,
                "TRANSFER" => caps.transfer = true,
                "NONE" | "SPARSE_BINDING" | "PROTECTED" | "VIDEO_DECODE_KHR" | "VIDEO_ENCODE_KHR" | "OPTICAL_FLOW_NV" => {}
                _ => return Err(format!("unknown queue flag `{name}` (expected GRAPHICS, COMPUTE, TRANSFER, SPARSE_BINDING, PROTECTED, ...)")),
            }
        }
        Ok(caps)
    }

    /// Whether transfer commands run here: any of GRAPHICS, COMPUTE and TRANSFER allows them.
    fn transfer(self) -> bool {
        self.graphics || self.compute || self.transfer
    }
}

/// Vulkan's name of an image view type (`2D`, `2D_ARRAY`), for messages.
fn view_name((dim, arrayed): (sim_shader::ImageDim, bool)) -> &'static str {
    use sim_shader::ImageDim::*;
    match (dim, arrayed) {
        (D1, false) => "1D",
        (D1, true) => "1D_ARRAY",
        (D2, false) => "2D",
        (D2, true) => "2D_ARRAY",
        (D3, false) => "3D",
        (D3, true) => "3D_ARRAY",
    }
}

/// What a shader declares at a binding, for messages: `a storage buffer`, `a sampled 2D image`.
fn kind_name(kind: BindingKind) -> String {
    match kind {
        BindingKind::StorageBuffer { .. } => "a storage buffer".into(),
        BindingKind::UniformBuffer => "a uniform buffer".into(),
        BindingKind::SampledImage { dim, arrayed, .. } => format!("a sampled {} image", view_name((dim, arrayed))),
        BindingKind::StorageImage { dim, arrayed, format, .. } => format!("a {} storage {} image", format.vk_name(), view_name((dim, arrayed))),
        BindingKind::Sampler => "a sampler".into(),
    }
}

/// A buffer's `image_view`: a colour format, a non-empty extent whose rows fit in the buffer.
fn buffer_picture(v: &schema::BufferImageView, size: u64, path: &str) -> R<crate::api::BufferPicture> {
    let format = sim_rop::Format::parse(v.format.trim_start_matches("VK_FORMAT_")).ok_or_else(|| (format!("{path}.format"), format!("unknown or unsupported format `{}`", v.format)))?;
    if format.is_depth_stencil() {
        return fail(format!("{path}.format"), format!("a buffer's picture takes a colour format, not {format}"));
    }
    let extent: [u32; 2] = v.extent.as_slice().try_into().map_err(|_| (format!("{path}.extent"), format!("a picture's extent is [width, height], not {} numbers", v.extent.len())))?;
    if extent.contains(&0) {
        return fail(format!("{path}.extent"), "a picture's width and height must not be zero");
    }
    let row_length = match v.row_length {
        None | Some(0) => extent[0],
        Some(r) if r < extent[0] => return fail(format!("{path}.row_length"), format!("a row of {r} texels is shorter than the width, {}", extent[0])),
        Some(r) => r,
    };
    let texel = u64::from(format.plane_bytes(sim_rop::Aspect::Color).unwrap_or(4));
    let need = (u64::from(extent[1]) - 1) * u64::from(row_length) * texel + u64::from(extent[0]) * texel;
    if need > size {
        return fail(format!("{path}.extent"), format!("{}x{} texels of {format} at {row_length} texels a row need {need} bytes; the buffer has {size}", extent[0], extent[1]));
    }
    Ok(crate::api::BufferPicture { format, extent, row_length })
}

// ---------------------------------------------------------------------------------------------
// Graphics: render passes, framebuffers, graphics pipelines and the graphics commands.

/// maxColorAttachments, as the common desktop drivers report it.
const MAX_COLOR_ATTACHMENTS: usize = 8;

/// How a subpass uses an attachment it references.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AttachmentUse {
    Color,
    DepthStencil,
    Input,
}

impl AttachmentUse {
    fn name(self) -> &'static str {
        match self {
            AttachmentUse::Color => "colour",
            AttachmentUse::DepthStencil => "depth/stencil",
            AttachmentUse::Input => "input",
        }
    }

    /// Layouts a reference of this use cannot name, each with its VUID (VkSubpassDescription2's
    /// common valid usage).
    fn forbidden_layouts(self) -> &'static [(&'static str, &'static str)] {
        match self {
            AttachmentUse::Color => &[
                ("DEPTH_STENCIL_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06913"),
                ("SHADER_READ_ONLY_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06913"),
                ("DEPTH_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06919"),
                ("DEPTH_READ_ONLY_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06919"),
                ("STENCIL_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06919"),
                ("STENCIL_READ_ONLY_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06919"),
                ("READ_ONLY_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06922"),
            ],
            AttachmentUse::DepthStencil => &[("COLOR_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06915"), ("SHADER_READ_ONLY_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06915")],
            AttachmentUse::Input => &[
                ("COLOR_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06912"),
                ("DEPTH_STENCIL_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06912"),
                ("DEPTH_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06918"),
                ("STENCIL_ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06918"),
                ("ATTACHMENT_OPTIMAL", "VUID-VkSubpassDescription2-attachment-06921"),
            ],
        }
    }
}

/// Whether a format can be a colour attachment (COLOR_ATTACHMENT format feature): colour
/// formats but the three-channel one, which is for vertex input.
fn renderable_color(f: sim_rop::Format) -> bool {
    !f.is_depth_stencil() && f != sim_rop::Format::R32G32B32_SFLOAT
}

/// A format by name (with or without `VK_FORMAT_`).
fn parse_format(name: &str, at: &str) -> R<sim_rop::Format> {
    sim_rop::Format::parse(name).ok_or_else(|| {
        let names: Vec<&str> = sim_rop::format::FORMATS.iter().map(|f| f.name()).collect();
        (at.to_string(), format!("unknown or unsupported format `{name}` (supported: {})", names.join(", ")))
    })
}

/// An image layout the trace may name, without `VK_IMAGE_LAYOUT_`.
fn known_layout(l: &str, at: &str) -> R<String> {
    let l = l.trim_start_matches("VK_IMAGE_LAYOUT_");
    if !IMAGE_LAYOUTS.contains(&l) {
        return fail(at, format!("unknown image layout `{l}` (expected one of {})", IMAGE_LAYOUTS.join(", ")));
    }
    Ok(l.to_string())
}

fn parse_load_op(s: &str, at: &str) -> R<LoadOp> {
    match s.trim_start_matches("VK_ATTACHMENT_LOAD_OP_") {
        "LOAD" => Ok(LoadOp::Load),
        "CLEAR" => Ok(LoadOp::Clear),
        "DONT_CARE" => Ok(LoadOp::DontCare),
        "NONE" | "NONE_KHR" | "NONE_EXT" => Ok(LoadOp::None),
        other => fail(at, format!("unknown load op `{other}` (expected LOAD, CLEAR, DONT_CARE or NONE)")),
    }
}

fn parse_store_op(s: &str, at: &str) -> R<StoreOp> {
    match s.trim_start_matches("VK_ATTACHMENT_STORE_OP_") {
        "STORE" => Ok(StoreOp::Store),
        "DONT_CARE" => Ok(StoreOp::DontCare),
        "NONE" | "NONE_KHR" | "NONE_EXT" | "NONE_QCOM" => Ok(StoreOp::None),
        other => fail(at, format!("unknown store op `{other}` (expected STORE, DONT_CARE or NONE)")),
    }
}

fn parse_compare_op(s: &str, at: &str) -> R<sim_rop::fragment::CompareOp> {
    use sim_rop::fragment::CompareOp as C;
    Ok(match s.trim_start_matches("VK_COMPARE_OP_") {
        "NEVER" => C::Never,
        "LESS" => C::Less,
        "EQUAL" => C::Equal,
        "LESS_OR_EQUAL" => C::LessOrEqual,
        "GREATER" => C::Greater,
        "NOT_EQUAL" => C::NotEqual,
        "GREATER_OR_EQUAL" => C::GreaterOrEqual,
        "ALWAYS" => C::Always,
        other => return fail(at, format!("unknown compare op `{other}` (expected NEVER, LESS, EQUAL, LESS_OR_EQUAL, GREATER, NOT_EQUAL, GREATER_OR_EQUAL or ALWAYS)")),
    })
}

fn parse_blend_factor(s: &str, at: &str) -> R<sim_rop::fragment::BlendFactor> {
    use sim_rop::fragment::BlendFactor as F;
    Ok(match s.trim_start_matches("VK_BLEND_FACTOR_") {
        "ZERO" => F::Zero,
        "ONE" => F::One,
        "SRC_COLOR" => F::SrcColor,
        "ONE_MINUS_SRC_COLOR" => F::OneMinusSrcColor,
        "DST_COLOR" => F::DstColor,
        "ONE_MINUS_DST_COLOR" => F::OneMinusDstColor,
        "SRC_ALPHA" => F::SrcAlpha,
        "ONE_MINUS_SRC_ALPHA" => F::OneMinusSrcAlpha,
        "DST_ALPHA" => F::DstAlpha,
        "ONE_MINUS_DST_ALPHA" => F::OneMinusDstAlpha,
        "CONSTANT_COLOR" => F::ConstantColor,
        "ONE_MINUS_CONSTANT_COLOR" => F::OneMinusConstantColor,
        "CONSTANT_ALPHA" => F::ConstantAlpha,
        "ONE_MINUS_CONSTANT_ALPHA" => F::OneMinusConstantAlpha,
        "SRC_ALPHA_SATURATE" => F::SrcAlphaSaturate,
        f @ ("SRC1_COLOR" | "ONE_MINUS_SRC1_COLOR" | "SRC1_ALPHA" | "ONE_MINUS_SRC1_ALPHA") => return fail(at, format!("blend factor `{f}` (dual-source blending) is not supported yet by the engine")),
        other => return fail(at, format!("unknown blend factor `{other}` (expected ZERO, ONE, SRC_COLOR, ONE_MINUS_SRC_COLOR, DST_COLOR, ..., SRC_ALPHA_SATURATE)")),
    })
}

fn parse_blend_op(s: &str, at: &str) -> R<sim_rop::fragment::BlendOp> {
    use sim_rop::fragment::BlendOp as O;
    Ok(match s.trim_start_matches("VK_BLEND_OP_") {
        "ADD" => O::Add,
        "SUBTRACT" => O::Subtract,
        "REVERSE_SUBTRACT" => O::ReverseSubtract,
        "MIN" => O::Min,
        "MAX" => O::Max,
        other if other.ends_with("_EXT") => return fail(at, format!("blend op `{other}` (advanced blending) is not supported yet by the engine (ADD, SUBTRACT, REVERSE_SUBTRACT, MIN, MAX)")),
        other => return fail(at, format!("unknown blend op `{other}` (expected ADD, SUBTRACT, REVERSE_SUBTRACT, MIN or MAX)")),
    })
}

/// Vulkan's render pass compatibility ("Render Pass Compatibility"): the same attachments
/// (format and samples), corresponding references to compatible attachments, and otherwise
/// identical but for layouts and load and store operations.
fn compatible(a: &RenderPassDesc, b: &RenderPassDesc) -> bool {
    let same_attachments = a.attachments.len() == b.attachments.len() && a.attachments.iter().zip(&b.attachments).all(|(x, y)| x.format == y.format && x.samples == y.samples);
    let described = |rp: &RenderPassDesc, r: Option<&AttachmentReference>| r.and_then(|r| rp.attachments.get(r.attachment as usize)).map(|d| (d.format, d.samples));
    let refs = |x: &[Option<AttachmentReference>], y: &[Option<AttachmentReference>]| (0..x.len().max(y.len())).all(|i| described(a, x.get(i).and_then(Option::as_ref)) == described(b, y.get(i).and_then(Option::as_ref)));
    same_attachments
        && a.subpasses.len() == b.subpasses.len()
        && a.subpasses.iter().zip(&b.subpasses).all(|(x, y)| {
            refs(&x.color_attachments, &y.color_attachments)
                && refs(&x.input_attachments, &y.input_attachments)
                && described(a, x.depth_stencil_attachment.as_ref()) == described(b, y.depth_stencil_attachment.as_ref())
                && x.preserve_attachments == y.preserve_attachments
        })
        && a.dependencies == b.dependencies
}

/// The name of a clear value's kind, for messages.
fn clear_kind(v: &sim_rop::ClearValue) -> &'static str {
    match v {
        sim_rop::ClearValue::Float(_) => "float32",
        sim_rop::ClearValue::Uint(_) => "uint32",
        sim_rop::ClearValue::Int(_) => "int32",
        sim_rop::ClearValue::DepthStencil { .. } => "depth_stencil",
    }
}

/// A clear value in its long form (`{"color": {...}}`, `{"depth_stencil": {...}}`) or its
/// short one (`{"float32": [...]}`, `{"depth": d, "stencil": s}`).
fn clear_value(v: &schema::ClearValue, at: &str) -> R<sim_rop::ClearValue> {
    let short_color = v.float32.is_some() || v.uint32.is_some() || v.int32.is_some();
    let short_depth = v.depth.is_some() || v.stencil.is_some();
    let forms = [v.color.is_some(), v.depth_stencil.is_some(), short_color, short_depth];
    if forms.iter().filter(|&&f| f).count() != 1 {
        return fail(at, "a clear value is one of {\"color\": {\"float32\" | \"uint32\" | \"int32\": [4 values]}} and {\"depth_stencil\": {\"depth\": d, \"stencil\": s}} (or the short forms {\"float32\": [...]}, {\"depth\": d, \"stencil\": s})");
    }
    let color = |f: Option<[f32; 4]>, u: Option<[u32; 4]>, i: Option<[i32; 4]>, at: &str| match (f, u, i) {
        // A number past f32's range reads as infinity, which no trace can write back.
        (Some(f), None, None) if f.iter().any(|v| !v.is_finite()) => fail(at, format!("clear colour {f:?} is not four finite numbers")),
        (Some(f), None, None) => Ok(sim_rop::ClearValue::Float(f)),
        (None, Some(u), None) => Ok(sim_rop::ClearValue::Uint(u)),
        (None, None, Some(i)) => Ok(sim_rop::ClearValue::Int(i)),
        _ => fail(at, "a clear colour is exactly one of float32, uint32, int32"),
    };
    let depth_stencil = |depth: f32, stencil: u32, at: String| {
        if !(0.0..=1.0).contains(&depth) {
            return fail(at, format!("depth {depth} is not between 0 and 1 (VUID-VkClearDepthStencilValue-depth-00022)"));
        }
        Ok(sim_rop::ClearValue::DepthStencil { depth, stencil })
    };
    if let Some(c) = &v.color {
        return color(c.float32, c.uint32, c.int32, &format!("{at}.color"));
    }
    if let Some(d) = &v.depth_stencil {
        return depth_stencil(d.depth, d.stencil, format!("{at}.depth_stencil.depth"));
    }
    if short_color {
        return color(v.float32, v.uint32, v.int32, at);
    }
    let Some(depth) = v.depth else { return fail(at, "a depth/stencil clear value needs `depth`") };
    depth_stencil(depth, v.stencil.unwrap_or(0), format!("{at}.depth"))
}

/// Refuses a clear value of the wrong kind for `format`: float32 for UNORM, SRGB and SFLOAT
/// formats, uint32 for UINT, int32 for SINT, depth_stencil for depth/stencil formats.
fn check_clear_kind(v: &sim_rop::ClearValue, format: sim_rop::Format, at: &str) -> R<()> {
    use sim_rop::format::NumericClass as N;
    let ok = match v {
        sim_rop::ClearValue::DepthStencil { .. } => format.is_depth_stencil(),
        sim_rop::ClearValue::Float(_) => !format.is_depth_stencil() && matches!(format.class(sim_rop::Aspect::Color), N::Unorm | N::Sfloat),
        sim_rop::ClearValue::Uint(_) => !format.is_depth_stencil() && format.class(sim_rop::Aspect::Color) == N::Uint,
        // gpusim has no SINT format.
        sim_rop::ClearValue::Int(_) => false,
    };
    if ok {
        Ok(())
    } else {
        fail(at, format!("a {} clear value does not clear a {format} attachment (float32 for UNORM, SRGB and SFLOAT formats, uint32 for UINT, int32 for SINT, depth_stencil for depth/stencil formats)", clear_kind(v)))
    }
}

/// A rectangle (`render_area`, `scissor`, a clear rectangle) as given.
fn rect(r: &schema::Rect) -> ff::Rect2D {
    let [x, y] = r.offset.unwrap_or([0, 0]);
    ff::Rect2D { x, y, width: r.extent[0], height: r.extent[1] }
}

/// A render area at `at`, checked: offsets not negative, extents not zero, and within `limit`
/// (`vuids`: those four rules' VUIDs, x then y each, and the two limits').
fn render_area(r: &schema::Rect, at: &str, limit: [u32; 2], limit_what: &str, vuids: [&str; 6]) -> R<ff::Rect2D> {
    let a = rect(r);
    for (k, (o, e)) in [(a.x, a.width), (a.y, a.height)].into_iter().enumerate() {
        let axis = ["x", "y"][k];
        if o < 0 {
            return fail(format!("{at}.offset"), format!("{}: the render area's {axis} offset {o} is negative", vuids[k]));
        }
        if e == 0 {
            return fail(format!("{at}.extent"), format!("{}: the render area's {} is 0", vuids[2 + k], ["width", "height"][k]));
        }
        if i64::from(o) + i64::from(e) > i64::from(limit[k]) {
            return fail(format!("{at}.extent"), format!("{}: the render area's {axis} offset {o} plus {} {e} passes {limit_what}'s {}", vuids[4 + k], ["width", "height"][k], limit[k]));
        }
    }
    Ok(a)
}

/// The paths of a pipeline's vertex input state, for the errors of
/// [`ff::VertexInputState::new`].
fn vertex_input_error(e: &ff::FetchError, vi: &schema::VertexInput, vp: &str) -> Fail {
    let nth_binding = |b: u32, n: usize| vi.bindings.iter().enumerate().filter(|(_, x)| x.binding == b).nth(n).map_or(0, |(k, _)| k);
    let nth_location = |l: u32, n: usize| vi.attributes.iter().enumerate().filter(|(_, x)| x.location == l).nth(n).map_or(0, |(k, _)| k);
    let (at, vuid) = match *e {
        ff::FetchError::TooMany { what: "bindings", .. } => (format!("{vp}.bindings"), "VUID-VkPipelineVertexInputStateCreateInfo-vertexBindingDescriptionCount-00613"),
        ff::FetchError::TooMany { .. } => (format!("{vp}.attributes"), "VUID-VkPipelineVertexInputStateCreateInfo-vertexAttributeDescriptionCount-00614"),
        ff::FetchError::DuplicateBinding { binding } => (format!("{vp}.bindings[{}].binding", nth_binding(binding, 1)), "VUID-VkPipelineVertexInputStateCreateInfo-pVertexBindingDescriptions-00616"),
        ff::FetchError::StrideTooLarge { binding, .. } => (format!("{vp}.bindings[{}].stride", nth_binding(binding, 0)), "VUID-VkVertexInputBindingDescription-stride-00619"),
        ff::FetchError::DuplicateLocation { location } => (format!("{vp}.attributes[{}].location", nth_location(location, 1)), "VUID-VkPipelineVertexInputStateCreateInfo-pVertexAttributeDescriptions-00617"),
        ff::FetchError::OffsetTooLarge { location, .. } => (format!("{vp}.attributes[{}].offset", nth_location(location, 0)), "VUID-VkVertexInputAttributeDescription-offset-00622"),
        ff::FetchError::UnknownBinding { location, .. } => (format!("{vp}.attributes[{}].binding", nth_location(location, 0)), "VUID-VkPipelineVertexInputStateCreateInfo-binding-00615"),
        ff::FetchError::UnsupportedFormat { location, .. } => (format!("{vp}.attributes[{}].format", nth_location(location, 0)), "VUID-VkVertexInputAttributeDescription-format-00623"),
        _ => (vp.to_string(), ""),
    };
    let message = if vuid.is_empty() { e.to_string() } else { format!("{vuid}: {e}") };
    (at, message)
}

impl Builder<'_> {
    /// The render passes, checked as Vulkan's valid usage checks `VkRenderPassCreateInfo2`.
    fn render_pass_list(&mut self, t: &schema::Trace) -> R<()> {
        self.render_passes = ids(t.render_passes.iter().map(|r| r.id.as_str()), "render_passes", "render pass")?;
        for (i, rp) in t.render_passes.iter().enumerate() {
            let desc = self.render_pass(rp, &format!("render_passes[{i}]"))?;
            self.w.render_passes.push(desc);
        }
        Ok(())
    }

    fn render_pass(&self, rp: &schema::RenderPass, path: &str) -> R<RenderPassDesc> {
        check_len(&rp.attachments, &format!("{path}.attachments"))?;
        check_len(&rp.subpasses, &format!("{path}.subpasses"))?;
        check_len(&rp.dependencies, &format!("{path}.dependencies"))?;
        let mut attachments = Vec::with_capacity(rp.attachments.len());
        for (k, a) in rp.attachments.iter().enumerate() {
            let ap = format!("{path}.attachments[{k}]");
            let format = parse_format(&a.format, &format!("{ap}.format"))?;
            if a.samples.unwrap_or(1) != 1 {
                return fail(format!("{ap}.samples"), "multisampling is not supported yet by the engine (samples 1 only)");
            }
            let load_op = parse_load_op(&a.load_op, &format!("{ap}.load_op"))?;
            let store_op = parse_store_op(&a.store_op, &format!("{ap}.store_op"))?;
            let stencil_load_op = a.stencil_load_op.as_deref().map_or(Ok(LoadOp::DontCare), |s| parse_load_op(s, &format!("{ap}.stencil_load_op")))?;
            let stencil_store_op = a.stencil_store_op.as_deref().map_or(Ok(StoreOp::DontCare), |s| parse_store_op(s, &format!("{ap}.stencil_store_op")))?;
            let initial_layout = known_layout(&a.initial_layout, &format!("{ap}.initial_layout"))?;
            let final_layout = known_layout(&a.final_layout, &format!("{ap}.final_layout"))?;
            if matches!(final_layout.as_str(), "UNDEFINED" | "PREINITIALIZED") {
                return fail(format!("{ap}.final_layout"), format!("VUID-VkAttachmentDescription2-finalLayout-00843: an attachment's final layout cannot be {final_layout}"));
            }
            for (l, f, vuid_color, vuid_depth) in [(&initial_layout, "initial_layout", "03280", "03281"), (&final_layout, "final_layout", "03282", "03283")] {
                if !format.is_depth_stencil() && matches!(l.as_str(), "DEPTH_STENCIL_ATTACHMENT_OPTIMAL" | "DEPTH_STENCIL_READ_ONLY_OPTIMAL") {
                    return fail(format!("{ap}.{f}"), format!("VUID-VkAttachmentDescription2-format-{vuid_color}: {format} is a colour format, and {l} is a depth/stencil layout"));
                }
                if format.is_depth_stencil() && l == "COLOR_ATTACHMENT_OPTIMAL" {
                    return fail(format!("{ap}.{f}"), format!("VUID-VkAttachmentDescription2-format-{vuid_depth}: {format} is a depth/stencil format, and {l} is a colour layout"));
                }
            }
            if load_op == LoadOp::Load && initial_layout == "UNDEFINED" {
                return fail(format!("{ap}.initial_layout"), "VUID-VkAttachmentDescription2-format-06699: an attachment whose load_op is LOAD cannot start in UNDEFINED (its contents would be discarded)");
            }
            attachments.push(AttachmentDescription { format, samples: 1, load_op, store_op, stencil_load_op, stencil_store_op, initial_layout, final_layout });
        }
        if rp.subpasses.is_empty() {
            return fail(format!("{path}.subpasses"), "VUID-VkRenderPassCreateInfo2-subpassCount-arraylength: a render pass has at least one subpass");
        }
        let mut subpasses = Vec::with_capacity(rp.subpasses.len());
        for (s, sp) in rp.subpasses.iter().enumerate() {
            subpasses.push(self.subpass(sp, &attachments, &format!("{path}.subpasses[{s}]"))?);
        }
        let mut dependencies = Vec::with_capacity(rp.dependencies.len());
        for (k, d) in rp.dependencies.iter().enumerate() {
            dependencies.push(self.subpass_dependency(d, subpasses.len(), &format!("{path}.dependencies[{k}]"))?);
        }
        Ok(RenderPassDesc { name: rp.id.clone(), attachments, subpasses, dependencies })
    }

    /// One subpass: its references checked against the attachments (index, layout, format)
    /// and against each other.
    fn subpass(&self, sp: &schema::Subpass, attachments: &[AttachmentDescription], path: &str) -> R<SubpassDescription> {
        check_len(&sp.color_attachments, &format!("{path}.color_attachments"))?;
        check_len(&sp.input_attachments, &format!("{path}.input_attachments"))?;
        check_len(&sp.preserve_attachments, &format!("{path}.preserve_attachments"))?;
        if sp.color_attachments.len() > MAX_COLOR_ATTACHMENTS {
            return fail(format!("{path}.color_attachments"), format!("VUID-VkSubpassDescription2-colorAttachmentCount-00845: {} colour attachments exceed maxColorAttachments, {MAX_COLOR_ATTACHMENTS}", sp.color_attachments.len()));
        }
        // Every reference so far: (attachment, layout, its path).
        let mut seen: Vec<(u32, String, String)> = Vec::new();
        let mut reference = |r: &schema::AttachmentReference, rp: String, use_: AttachmentUse| -> R<Option<AttachmentReference>> {
            let a = match r.attachment {
                schema::AttachmentIndex::Unused => return Ok(None),
                schema::AttachmentIndex::Index(a) => a,
            };
            let Some(desc) = attachments.get(a as usize) else {
                return fail(format!("{rp}.attachment"), format!("VUID-VkRenderPassCreateInfo2-attachment-03051: attachment {a} is not one of the render pass's {} attachments", attachments.len()));
            };
            let Some(layout) = &r.layout else { return fail(rp, "an attachment reference needs `layout`") };
            let layout = known_layout(layout, &format!("{rp}.layout"))?;
            if matches!(layout.as_str(), "UNDEFINED" | "PREINITIALIZED" | "PRESENT_SRC_KHR") {
                return fail(format!("{rp}.layout"), format!("VUID-VkAttachmentReference2-layout-03077: a subpass cannot use an attachment in {layout}"));
            }
            if let Some((_, vuid)) = use_.forbidden_layouts().iter().find(|(l, _)| *l == layout) {
                return fail(format!("{rp}.layout"), format!("{vuid}: a {} attachment cannot be in {layout}", use_.name()));
            }
            let format = desc.format;
            match use_ {
                AttachmentUse::Color if !renderable_color(format) => {
                    return fail(format!("{rp}.attachment"), format!("VUID-VkSubpassDescription2-pColorAttachments-02898: attachment {a} is {format}, which has no COLOR_ATTACHMENT format feature"));
                }
                AttachmentUse::DepthStencil if !format.is_depth_stencil() => {
                    return fail(format!("{rp}.attachment"), format!("VUID-VkSubpassDescription2-pDepthStencilAttachment-02900: attachment {a} is {format}, which has no DEPTH_STENCIL_ATTACHMENT format feature"));
                }
                AttachmentUse::Input if format == sim_rop::Format::R32G32B32_SFLOAT => {
                    return fail(format!("{rp}.attachment"), format!("VUID-VkSubpassDescription2-pInputAttachments-02897: attachment {a} is {format}, which has neither COLOR_ATTACHMENT nor DEPTH_STENCIL_ATTACHMENT format features"));
                }
                _ => {}
            }
            if let Some((_, other, at)) = seen.iter().find(|(x, l, _)| *x == a && *l != layout) {
                return fail(format!("{rp}.layout"), format!("VUID-VkSubpassDescription2-layout-02528: attachment {a} is used in {layout} here and in {other} at {at}: every use in a subpass has the same layout"));
            }
            seen.push((a, layout.clone(), rp));
            Ok(Some(AttachmentReference { attachment: a, layout }))
        };
        let mut color_attachments = Vec::with_capacity(sp.color_attachments.len());
        for (k, r) in sp.color_attachments.iter().enumerate() {
            let rp = format!("{path}.color_attachments[{k}]");
            let got = reference(r, rp.clone(), AttachmentUse::Color)?;
            if let Some(g) = &got
                && let Some(j) = color_attachments.iter().position(|c: &Option<AttachmentReference>| c.as_ref().is_some_and(|c| c.attachment == g.attachment))
            {
                return fail(
                    format!("{rp}.attachment"),
                    format!("attachment {} is already colour attachment {j} of this subpass: an attachment is used at most once as a colour or depth/stencil attachment of a subpass (the Render Pass chapter's rule; it has no VUID)", g.attachment),
                );
            }
            color_attachments.push(got);
        }
        let depth_stencil_attachment = match &sp.depth_stencil_attachment {
            Some(r) => {
                let rp = format!("{path}.depth_stencil_attachment");
                let got = reference(r, rp.clone(), AttachmentUse::DepthStencil)?;
                if let Some(g) = &got
                    && color_attachments.iter().flatten().any(|c| c.attachment == g.attachment)
                {
                    return fail(format!("{rp}.attachment"), format!("VUID-VkSubpassDescription2-pDepthStencilAttachment-04440: attachment {} is a colour attachment of this subpass too", g.attachment));
                }
                got
            }
            None => None,
        };
        let mut input_attachments = Vec::with_capacity(sp.input_attachments.len());
        for (k, r) in sp.input_attachments.iter().enumerate() {
            input_attachments.push(reference(r, format!("{path}.input_attachments[{k}]"), AttachmentUse::Input)?);
        }
        let desc = SubpassDescription { color_attachments, depth_stencil_attachment, input_attachments, preserve_attachments: Vec::new() };
        let mut preserve_attachments = Vec::with_capacity(sp.preserve_attachments.len());
        for (k, &a) in sp.preserve_attachments.iter().enumerate() {
            let at = format!("{path}.preserve_attachments[{k}]");
            if a == u32::MAX {
                return fail(at, "VUID-VkSubpassDescription2-attachment-03073: a preserved attachment cannot be VK_ATTACHMENT_UNUSED");
            }
            if a as usize >= attachments.len() {
                return fail(at, format!("VUID-VkRenderPassCreateInfo2-attachment-03051: attachment {a} is not one of the render pass's {} attachments", attachments.len()));
            }
            if desc.used().any(|r| r.attachment == a) || preserve_attachments.contains(&a) {
                return fail(at, format!("VUID-VkSubpassDescription2-pPreserveAttachments-03074: attachment {a} is preserved and used by this subpass too"));
            }
            preserve_attachments.push(a);
        }
        Ok(SubpassDescription { preserve_attachments, ..desc })
    }

    fn subpass_dependency(&self, d: &schema::SubpassDependency, subpasses: usize, path: &str) -> R<SubpassDependency> {
        let side = |x: schema::SubpassIndex, f: &str, vuid: &str| -> R<SubpassRef> {
            match x {
                schema::SubpassIndex::External => Ok(SubpassRef::External),
                schema::SubpassIndex::Index(s) if s as usize >= subpasses => fail(format!("{path}.{f}"), format!("{vuid}: subpass {s} is not one of the render pass's {subpasses} subpasses")),
                schema::SubpassIndex::Index(s) => Ok(SubpassRef::Index(s)),
            }
        };
        let src_subpass = side(d.src_subpass, "src_subpass", "VUID-VkRenderPassCreateInfo2-srcSubpass-02526")?;
        let dst_subpass = side(d.dst_subpass, "dst_subpass", "VUID-VkRenderPassCreateInfo2-dstSubpass-02527")?;
        match (src_subpass, dst_subpass) {
            (SubpassRef::External, SubpassRef::External) => return fail(path, "VUID-VkSubpassDependency2-srcSubpass-03085: src_subpass and dst_subpass cannot both be EXTERNAL"),
            (SubpassRef::Index(s), SubpassRef::Index(t)) if s > t => {
                return fail(format!("{path}.src_subpass"), format!("VUID-VkSubpassDependency2-srcSubpass-03084: subpass {s} comes after subpass {t}: a dependency goes from an earlier subpass to a later one (or the same)"));
            }
            _ => {}
        }
        let barrier = MemoryBarrier2::new(d.src_stage_mask.unwrap_or(S::NONE), d.src_access_mask.unwrap_or(A::NONE), d.dst_stage_mask.unwrap_or(S::NONE), d.dst_access_mask.unwrap_or(A::NONE));
        check_access_stages(&barrier, BarrierKind::Memory, Shape::Sync2).or_else(|e| fail(format!("{path}.{}", e.field()), e.to_string()))?;
        let mut by_region = false;
        if let Some(f) = &d.dependency_flags {
            for n in f.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                match n.trim_start_matches("VK_DEPENDENCY_").replace("_BIT", "").as_str() {
                    "BY_REGION" => by_region = true,
                    "NONE" => {}
                    "VIEW_LOCAL" | "VIEW_LOCAL_KHR" | "DEVICE_GROUP" | "DEVICE_GROUP_KHR" | "FEEDBACK_LOOP_EXT" | "QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_KHR" | "ASYMMETRIC_EVENT_KHR" => {
                        return fail(format!("{path}.dependency_flags"), format!("dependency flag `{n}` is not supported yet by the engine (BY_REGION is)"));
                    }
                    _ => return fail(format!("{path}.dependency_flags"), format!("unknown dependency flag `{n}` (expected BY_REGION)")),
                }
            }
        }
        Ok(SubpassDependency {
            src_subpass,
            dst_subpass,
            src_stage_mask: barrier.src_stage_mask,
            dst_stage_mask: barrier.dst_stage_mask,
            src_access_mask: barrier.src_access_mask,
            dst_access_mask: barrier.dst_access_mask,
            by_region,
        })
    }

    /// An image used as an attachment (a framebuffer's, or a rendering attachment's): one
    /// level and layer of a 1D or 2D image, checked as `VkImageViewCreateInfo` is.
    fn attachment_view(&self, v: &schema::ViewRef, vp: &str) -> R<AttachmentView> {
        let (id, level, base, count, sub) = match v {
            schema::ViewRef::Image(id) => (id, 0, 0, 1, None),
            schema::ViewRef::View(a) => (&a.image, a.mip_level.unwrap_or(0), a.base_array_layer.unwrap_or(0), a.layer_count.unwrap_or(1), Some(vp)),
        };
        let at = |f: &str| sub.map_or_else(|| vp.to_string(), |p| format!("{p}.{f}"));
        let image = self.image(&Some(id.clone()), &at("image"), vp, "an attachment", "image")?;
        let im = &self.w.images[image];
        let desc = im.layout.desc;
        if desc.image_type == sim_rop::ImageType::D3 {
            return fail(at("image"), format!("image `{}` is 3D: 3D images as attachments are not supported yet by the engine", im.name));
        }
        if level >= desc.mip_levels {
            return fail(at("mip_level"), format!("VUID-VkImageViewCreateInfo-subresourceRange-01478: level {level} is past image `{}`'s {} levels", im.name, desc.mip_levels));
        }
        if base >= desc.array_layers {
            return fail(at("base_array_layer"), format!("VUID-VkImageViewCreateInfo-image-06724: layer {base} is past image `{}`'s {} layers", im.name, desc.array_layers));
        }
        if count == 0 || u64::from(base) + u64::from(count) > u64::from(desc.array_layers) {
            return fail(at("layer_count"), format!("VUID-VkImageViewCreateInfo-subresourceRange-06725: layers [{base}, +{count}) are not within image `{}`'s {} layers", im.name, desc.array_layers));
        }
        if count != 1 {
            return fail(at("layer_count"), format!("a view of {count} layers: layered rendering is not supported yet by the engine (layer_count 1)"));
        }
        Ok(AttachmentView { image, level, base_layer: base, layer_count: count })
    }

    /// The framebuffers, checked as Vulkan's valid usage checks `VkFramebufferCreateInfo`
    /// against their render pass and images.
    fn framebuffer_list(&mut self, t: &schema::Trace) -> R<()> {
        self.framebuffers = ids(t.framebuffers.iter().map(|f| f.id.as_str()), "framebuffers", "framebuffer")?;
        for (i, fb) in t.framebuffers.iter().enumerate() {
            let desc = self.framebuffer(fb, &format!("framebuffers[{i}]"))?;
            self.w.framebuffers.push(desc);
        }
        Ok(())
    }

    fn framebuffer(&self, fb: &schema::Framebuffer, path: &str) -> R<FramebufferDesc> {
        let render_pass = lookup(&self.render_passes, &fb.render_pass, &format!("{path}.render_pass"), "render pass")?;
        let rp = &self.w.render_passes[render_pass];
        let max = ff::MAX_FRAMEBUFFER_EXTENT;
        let layers = fb.layers.unwrap_or(1);
        for (v, f, zero, above) in [(fb.width, "width", "VUID-VkFramebufferCreateInfo-width-00885", "VUID-VkFramebufferCreateInfo-width-00886"), (fb.height, "height", "VUID-VkFramebufferCreateInfo-height-00887", "VUID-VkFramebufferCreateInfo-height-00888")] {
            if v == 0 {
                return fail(format!("{path}.{f}"), format!("{zero}: a framebuffer's {f} is at least 1"));
            }
            if v > max {
                return fail(format!("{path}.{f}"), format!("{above}: {f} {v} passes maxFramebuffer{}, {max}", if f == "width" { "Width" } else { "Height" }));
            }
        }
        if layers == 0 {
            return fail(format!("{path}.layers"), "VUID-VkFramebufferCreateInfo-layers-00889: a framebuffer has at least one layer");
        }
        if layers != 1 {
            return fail(format!("{path}.layers"), format!("{layers} layers: layered rendering is not supported yet by the engine (layers 1)"));
        }
        check_len(&fb.attachments, &format!("{path}.attachments"))?;
        if fb.attachments.len() != rp.attachments.len() {
            return fail(format!("{path}.attachments"), format!("VUID-VkFramebufferCreateInfo-attachmentCount-00876: {} attachments for render pass `{}`, which has {}", fb.attachments.len(), rp.name, rp.attachments.len()));
        }
        let mut attachments = Vec::with_capacity(fb.attachments.len());
        for (k, v) in fb.attachments.iter().enumerate() {
            let vp = format!("{path}.attachments[{k}]");
            let view = self.attachment_view(v, &vp)?;
            let im = &self.w.images[view.image];
            let want = rp.attachments[k].format;
            if im.layout.desc.format != want {
                return fail(vp, format!("VUID-VkFramebufferCreateInfo-pAttachments-00880: image `{}` is {}, and attachment {k} of render pass `{}` is {want}", im.name, im.layout.desc.format, rp.name));
            }
            let a = k as u32;
            let used = |pick: fn(&SubpassDescription) -> Vec<u32>| rp.subpasses.iter().any(|s| pick(s).contains(&a));
            if used(|s| s.color_attachments.iter().flatten().map(|r| r.attachment).collect()) {
                self.image_usage(view.image, "COLOR_ATTACHMENT", &vp, "VUID-VkFramebufferCreateInfo-pAttachments-00877")?;
            }
            if used(|s| s.depth_stencil_attachment.iter().map(|r| r.attachment).collect()) {
                self.image_usage(view.image, "DEPTH_STENCIL_ATTACHMENT", &vp, "VUID-VkFramebufferCreateInfo-pAttachments-02633")?;
            }
            if used(|s| s.input_attachments.iter().flatten().map(|r| r.attachment).collect()) {
                self.image_usage(view.image, "INPUT_ATTACHMENT", &vp, "VUID-VkFramebufferCreateInfo-pAttachments-00879")?;
            }
            let e = im.layout.desc.level_extent(view.level);
            if e[0] < fb.width {
                return fail(vp, format!("VUID-VkFramebufferCreateInfo-flags-04533: level {} of image `{}` is {} wide, narrower than the framebuffer's {}", view.level, im.name, e[0], fb.width));
            }
            if e[1] < fb.height {
                return fail(vp, format!("VUID-VkFramebufferCreateInfo-flags-04534: level {} of image `{}` is {} high, lower than the framebuffer's {}", view.level, im.name, e[1], fb.height));
            }
            if view.layer_count < layers {
                return fail(vp, format!("VUID-VkFramebufferCreateInfo-flags-04535: the view has {} layers, fewer than the framebuffer's {layers}", view.layer_count));
            }
            attachments.push(view);
        }
        Ok(FramebufferDesc { name: fb.id.clone(), render_pass, attachments, width: fb.width, height: fb.height, layers })
    }

    /// The graphics shader `id` names as the `field` (`vertex_shader`, `fragment_shader`) of a
    /// pipeline, which takes a `want` shader (`vuid`: the rule that says so, or empty).
    fn stage_shader(&self, id: &str, at: &str, field: &str, want: ShaderStage, vuid: &str) -> R<Arc<GraphicsShader>> {
        let prefix = if vuid.is_empty() { String::new() } else { format!("{vuid}: ") };
        match self.graphics.get(id) {
            Some(s) if s.stage() == want => Ok(s.clone()),
            Some(s) => fail(at, format!("{prefix}shader `{id}` is a {} shader, and `{field}` names a {} shader", s.stage().vk_name(), want.vk_name())),
            None if self.shaders.contains_key(id) => fail(at, format!("{prefix}shader `{id}` is a COMPUTE shader, and `{field}` names a {} shader", want.vk_name())),
            None => {
                let mut known: Vec<&str> = self.graphics.keys().map(String::as_str).collect();
                known.sort_unstable();
                known.truncate(12);
                let hint = if known.is_empty() { "no VERTEX or FRAGMENT shader is declared".to_string() } else { format!("declared: {}", known.join(", ")) };
                fail(at, format!("unknown shader `{id}` ({hint})"))
            }
        }
    }

    /// The graphics pipelines, checked as Vulkan's valid usage checks
    /// `VkGraphicsPipelineCreateInfo`.
    fn graphics_pipeline_list(&mut self, t: &schema::Trace) -> R<()> {
        self.graphics_pipelines = ids(t.pipelines.iter().map(|p| p.id.as_str()), "pipelines", "pipeline")?;
        for (i, p) in t.pipelines.iter().enumerate() {
            let desc = self.graphics_pipeline(p, &format!("pipelines[{i}]"))?;
            self.w.graphics_pipelines.push(desc);
        }
        Ok(())
    }

    fn graphics_pipeline(&self, p: &schema::Pipeline, path: &str) -> R<GraphicsPipelineDesc> {
        match p.kind.as_deref().map(|k| k.trim_start_matches("VK_PIPELINE_BIND_POINT_")) {
            Some("GRAPHICS") => {}
            Some("COMPUTE") => return fail(format!("{path}.type"), "a compute pipeline is a `shaders` entry that `dispatch` names: `pipelines` holds graphics pipelines only"),
            Some(other @ ("RAY_TRACING_KHR" | "RAY_TRACING_NV" | "EXECUTION_GRAPH_AMDX" | "DATA_GRAPH_ARM")) => return fail(format!("{path}.type"), format!("pipeline type `{other}` is not supported yet by the engine (GRAPHICS is)")),
            Some(other) => return fail(format!("{path}.type"), format!("unknown pipeline type `{other}` (expected GRAPHICS)")),
            None => return fail(path, "a pipeline needs `type`: GRAPHICS"),
        }
        let Some(vs_id) = &p.vertex_shader else { return fail(path, "VUID-VkGraphicsPipelineCreateInfo-stage-02096: a graphics pipeline needs `vertex_shader`") };
        let vertex = self.stage_shader(vs_id, &format!("{path}.vertex_shader"), "vertex_shader", ShaderStage::Vertex, "VUID-VkGraphicsPipelineCreateInfo-stage-02096")?;
        let fragment = match &p.fragment_shader {
            Some(id) => Some(self.stage_shader(id, &format!("{path}.fragment_shader"), "fragment_shader", ShaderStage::Fragment, "")?),
            None => None,
        };
        if let Some(fs) = &fragment {
            vertex.check_interface(fs).map_err(|m| (path.to_string(), m))?;
            // One pipeline layout serves both stages: a (set, binding) both declare is one
            // descriptor, of one type.
            let class = |k: BindingKind| match k {
                BindingKind::StorageBuffer { .. } => 0,
                BindingKind::UniformBuffer => 1,
                // A combined image sampler is a sampled image and a sampler at one binding.
                BindingKind::SampledImage { .. } | BindingKind::Sampler => 2,
                BindingKind::StorageImage { .. } => 3,
            };
            for v in vertex.bindings() {
                if let Some(f) = fs.bindings().iter().find(|f| f.group == v.group && f.binding == v.binding && class(f.kind) != class(v.kind)) {
                    return fail(path, format!("VUID-VkGraphicsPipelineCreateInfo-layout-07990: the vertex shader declares (set {}, binding {}) as {} and the fragment shader as {}", v.group, v.binding, kind_name(v.kind), kind_name(f.kind)));
                }
            }
        }
        let vertex_input = self.vertex_input(p.vertex_input.as_ref(), &format!("{path}.vertex_input"))?;
        for input in vertex.inputs() {
            if let IoBinding::Location(l) = input.binding
                && !vertex_input.attributes().iter().any(|a| a.location == l)
            {
                let at = if p.vertex_input.is_some() { format!("{path}.vertex_input") } else { path.to_string() };
                return fail(at, format!("VUID-VkGraphicsPipelineCreateInfo-Input-07904: the vertex shader `{vs_id}` reads location {l}, and no vertex attribute has that location"));
            }
        }
        let topology = match p.topology.as_deref().map(|t| t.trim_start_matches("VK_PRIMITIVE_TOPOLOGY_")) {
            None | Some("TRIANGLE_LIST") => ff::PrimitiveTopology::TriangleList,
            Some("POINT_LIST") => ff::PrimitiveTopology::PointList,
            Some("LINE_LIST") => ff::PrimitiveTopology::LineList,
            Some("TRIANGLE_STRIP") => ff::PrimitiveTopology::TriangleStrip,
            Some("TRIANGLE_FAN") => ff::PrimitiveTopology::TriangleFan,
            Some(t @ ("LINE_STRIP" | "LINE_LIST_WITH_ADJACENCY" | "LINE_STRIP_WITH_ADJACENCY" | "TRIANGLE_LIST_WITH_ADJACENCY" | "TRIANGLE_STRIP_WITH_ADJACENCY" | "PATCH_LIST")) => {
                return fail(format!("{path}.topology"), format!("topology `{t}` is not supported yet by the engine (POINT_LIST, LINE_LIST, TRIANGLE_LIST, TRIANGLE_STRIP, TRIANGLE_FAN are)"));
            }
            Some(t) => return fail(format!("{path}.topology"), format!("unknown topology `{t}` (expected POINT_LIST, LINE_LIST, TRIANGLE_LIST, TRIANGLE_STRIP or TRIANGLE_FAN)")),
        };
        let raster = match &p.rasterization {
            None => ff::RasterState::default(),
            Some(r) => self.rasterization(r, &format!("{path}.rasterization"))?,
        };
        let depth_stencil = match &p.depth_stencil {
            None => DepthStencilState::default(),
            Some(d) => {
                let dp = format!("{path}.depth_stencil");
                if d.stencil_test_enable == Some(true) {
                    return fail(format!("{dp}.stencil_test_enable"), "the stencil test is not supported yet by the engine");
                }
                let depth_test = d.depth_test_enable.unwrap_or(false);
                let depth_compare = match &d.depth_compare_op {
                    Some(op) => parse_compare_op(op, &format!("{dp}.depth_compare_op"))?,
                    None if depth_test => return fail(dp, "with `depth_test_enable` true, `depth_compare_op` is needed"),
                    None => DepthStencilState::default().depth_compare,
                };
                DepthStencilState { depth_test, depth_write: d.depth_write_enable.unwrap_or(false), depth_compare, ..DepthStencilState::default() }
            }
        };
        // What it renders into, and how many colour attachments that has.
        let (target, colors) = match (&p.render_pass, &p.rendering) {
            (Some(_), Some(_)) => return fail(format!("{path}.rendering"), "give `render_pass` and `subpass`, or `rendering`, not both"),
            (None, None) => return fail(path, "a graphics pipeline renders in a subpass (`render_pass` and `subpass`) or with dynamic rendering (`rendering`)"),
            (Some(id), None) => {
                let render_pass = lookup(&self.render_passes, id, &format!("{path}.render_pass"), "render pass")?;
                let rp = &self.w.render_passes[render_pass];
                let subpass = p.subpass.unwrap_or(0);
                let Some(sp) = rp.subpasses.get(subpass as usize) else {
                    return fail(format!("{path}.subpass"), format!("VUID-VkGraphicsPipelineCreateInfo-renderPass-06046: render pass `{}` has {} subpasses, and this is subpass {subpass}", rp.name, rp.subpasses.len()));
                };
                (PipelineTarget::RenderPass { render_pass, subpass }, sp.color_attachments.len())
            }
            (None, Some(r)) => {
                if p.subpass.is_some() {
                    return fail(format!("{path}.subpass"), "`subpass` belongs with `render_pass`, and this pipeline uses dynamic rendering");
                }
                let target = self.pipeline_rendering(r, &format!("{path}.rendering"))?;
                let n = match &target {
                    PipelineTarget::Rendering { color_formats, .. } => color_formats.len(),
                    PipelineTarget::RenderPass { .. } => 0,
                };
                (target, n)
            }
        };
        let (blend, blend_constants) = match &p.color_blend {
            None => (vec![sim_rop::fragment::BlendState::REPLACE; colors], [0.0; 4]),
            Some(cb) => self.color_blend(cb, colors, p.render_pass.is_some(), &format!("{path}.color_blend"))?,
        };
        Ok(GraphicsPipelineDesc {
            name: p.id.clone(),
            vertex,
            fragment,
            vertex_shader: vs_id.clone(),
            fragment_shader: p.fragment_shader.clone(),
            vertex_input,
            topology,
            raster,
            depth_stencil,
            blend,
            blend_constants,
            target,
        })
    }

    fn vertex_input(&self, vi: Option<&schema::VertexInput>, vp: &str) -> R<ff::VertexInputState> {
        let Some(vi) = vi else { return ff::VertexInputState::new(Vec::new(), Vec::new()).map_err(|e| (vp.to_string(), e.to_string())) };
        check_len(&vi.bindings, &format!("{vp}.bindings"))?;
        check_len(&vi.attributes, &format!("{vp}.attributes"))?;
        let max = ff::fetch::MAX_VERTEX_INPUT_BINDINGS as u32;
        let mut bindings = Vec::with_capacity(vi.bindings.len());
        for (k, b) in vi.bindings.iter().enumerate() {
            let bp = format!("{vp}.bindings[{k}]");
            if b.binding >= max {
                return fail(format!("{bp}.binding"), format!("VUID-VkVertexInputBindingDescription-binding-00618: binding {} is not below maxVertexInputBindings, {max}", b.binding));
            }
            let input_rate = match b.input_rate.as_deref().map(|r| r.trim_start_matches("VK_VERTEX_INPUT_RATE_")) {
                None | Some("VERTEX") => ff::VertexInputRate::Vertex,
                Some("INSTANCE") => ff::VertexInputRate::Instance,
                Some(other) => return fail(format!("{bp}.input_rate"), format!("unknown input rate `{other}` (expected VERTEX or INSTANCE)")),
            };
            bindings.push(ff::VertexBinding { binding: b.binding, stride: b.stride, input_rate });
        }
        let max_attributes = ff::fetch::MAX_VERTEX_INPUT_ATTRIBUTES as u32;
        let mut attributes = Vec::with_capacity(vi.attributes.len());
        for (k, a) in vi.attributes.iter().enumerate() {
            let ap = format!("{vp}.attributes[{k}]");
            if a.location >= max_attributes {
                return fail(format!("{ap}.location"), format!("VUID-VkVertexInputAttributeDescription-location-00620: location {} is not below maxVertexInputAttributes, {max_attributes}", a.location));
            }
            if a.binding >= max {
                return fail(format!("{ap}.binding"), format!("VUID-VkVertexInputAttributeDescription-binding-00621: binding {} is not below maxVertexInputBindings, {max}", a.binding));
            }
            let format = parse_format(&a.format, &format!("{ap}.format"))?;
            attributes.push(ff::VertexAttribute { location: a.location, binding: a.binding, format, offset: a.offset });
        }
        ff::VertexInputState::new(bindings, attributes).map_err(|e| vertex_input_error(&e, vi, vp))
    }

    fn rasterization(&self, r: &schema::Rasterization, rp: &str) -> R<ff::RasterState> {
        match r.polygon_mode.as_deref().map(|m| m.trim_start_matches("VK_POLYGON_MODE_")) {
            None | Some("FILL") => {}
            Some(m @ ("LINE" | "POINT" | "FILL_RECTANGLE_NV")) => return fail(format!("{rp}.polygon_mode"), format!("polygon mode `{m}` is not supported yet by the engine (FILL only)")),
            Some(m) => return fail(format!("{rp}.polygon_mode"), format!("unknown polygon mode `{m}` (expected FILL)")),
        }
        let (mut front, mut back) = (false, false);
        if let Some(c) = &r.cull_mode {
            for n in c.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                match n.trim_start_matches("VK_CULL_MODE_").trim_end_matches("_BIT") {
                    "NONE" => {}
                    "FRONT" => front = true,
                    "BACK" => back = true,
                    "FRONT_AND_BACK" => (front, back) = (true, true),
                    other => return fail(format!("{rp}.cull_mode"), format!("unknown cull mode `{other}` (expected NONE, FRONT, BACK or FRONT_AND_BACK)")),
                }
            }
        }
        let cull_mode = match (front, back) {
            (false, false) => ff::CullMode::None,
            (true, false) => ff::CullMode::Front,
            (false, true) => ff::CullMode::Back,
            (true, true) => ff::CullMode::FrontAndBack,
        };
        let front_face = match r.front_face.as_deref().map(|f| f.trim_start_matches("VK_FRONT_FACE_")) {
            None | Some("COUNTER_CLOCKWISE") => ff::FrontFace::CounterClockwise,
            Some("CLOCKWISE") => ff::FrontFace::Clockwise,
            Some(other) => return fail(format!("{rp}.front_face"), format!("unknown front face `{other}` (expected COUNTER_CLOCKWISE or CLOCKWISE)")),
        };
        Ok(ff::RasterState { front_face, cull_mode })
    }

    /// `VkPipelineRenderingCreateInfo`: colour formats that can be rendered to, and a depth and
    /// a stencil format that have those aspects (the same format when both are given).
    fn pipeline_rendering(&self, r: &schema::PipelineRendering, rp: &str) -> R<PipelineTarget> {
        check_len(&r.color_attachment_formats, &format!("{rp}.color_attachment_formats"))?;
        if r.color_attachment_formats.len() > MAX_COLOR_ATTACHMENTS {
            return fail(format!("{rp}.color_attachment_formats"), format!("VUID-VkPipelineRenderingCreateInfo-colorAttachmentCount-09533: {} colour attachments exceed maxColorAttachments, {MAX_COLOR_ATTACHMENTS}", r.color_attachment_formats.len()));
        }
        let undefined = |f: &Option<String>| f.as_deref().is_none_or(|f| f.trim_start_matches("VK_FORMAT_") == "UNDEFINED");
        let mut color_formats = Vec::with_capacity(r.color_attachment_formats.len());
        for (k, f) in r.color_attachment_formats.iter().enumerate() {
            let at = format!("{rp}.color_attachment_formats[{k}]");
            color_formats.push(match f {
                _ if undefined(f) => None,
                Some(name) => {
                    let format = parse_format(name, &at)?;
                    if !renderable_color(format) {
                        return fail(at, format!("VUID-VkGraphicsPipelineCreateInfo-renderPass-06582: {format} has no COLOR_ATTACHMENT format feature"));
                    }
                    Some(format)
                }
                None => None,
            });
        }
        let aspect_format = |f: &Option<String>, field: &str, aspect: sim_rop::Aspect, vuid: &str| -> R<Option<sim_rop::Format>> {
            if undefined(f) {
                return Ok(None);
            }
            let at = format!("{rp}.{field}");
            let format = parse_format(f.as_deref().unwrap_or_default(), &at)?;
            if !format.aspects().contains(&aspect) {
                return fail(at, format!("{vuid}: {format} has no {} component", aspect.vk_name()));
            }
            Ok(Some(format))
        };
        let depth_format = aspect_format(&r.depth_attachment_format, "depth_attachment_format", sim_rop::Aspect::Depth, "VUID-VkGraphicsPipelineCreateInfo-renderPass-06587")?;
        let stencil_format = aspect_format(&r.stencil_attachment_format, "stencil_attachment_format", sim_rop::Aspect::Stencil, "VUID-VkGraphicsPipelineCreateInfo-renderPass-06588")?;
        if let (Some(d), Some(s)) = (depth_format, stencil_format)
            && d != s
        {
            return fail(format!("{rp}.stencil_attachment_format"), format!("VUID-VkGraphicsPipelineCreateInfo-renderPass-06589: the depth format is {d} and the stencil format {s}: they are one attachment's"));
        }
        Ok(PipelineTarget::Rendering { color_formats, depth_format, stencil_format })
    }

    /// `VkPipelineColorBlendStateCreateInfo`: one state per colour attachment (`colors` of
    /// them), one REPLACE state each when no list is given.
    fn color_blend(&self, cb: &schema::ColorBlend, colors: usize, render_pass: bool, cp: &str) -> R<(Vec<sim_rop::fragment::BlendState>, [f32; 4])> {
        let blend = match &cb.attachments {
            None => vec![sim_rop::fragment::BlendState::REPLACE; colors],
            Some(list) => {
                check_len(list, &format!("{cp}.attachments"))?;
                if list.len() != colors {
                    let (vuid, what) = if render_pass { ("VUID-VkGraphicsPipelineCreateInfo-renderPass-07609", "the subpass has") } else { ("VUID-VkGraphicsPipelineCreateInfo-renderPass-06055", "`rendering` gives") };
                    // Vulkan ignores the count when the subpass has no colour attachment; an
                    // ignored list would be written back as nothing, so it is refused.
                    let prefix = if render_pass && colors == 0 { String::new() } else { format!("{vuid}: ") };
                    return fail(format!("{cp}.attachments"), format!("{prefix}{} blend attachment states, and {what} {colors} colour attachments", list.len()));
                }
                let mut out = Vec::with_capacity(list.len());
                for (k, a) in list.iter().enumerate() {
                    out.push(self.blend_attachment(a, &format!("{cp}.attachments[{k}]"))?);
                }
                out
            }
        };
        let constants = cb.blend_constants.unwrap_or([0.0; 4]);
        if constants.iter().any(|c| !c.is_finite()) {
            return fail(format!("{cp}.blend_constants"), "blend constants are finite numbers");
        }
        Ok((blend, constants))
    }

    fn blend_attachment(&self, a: &schema::BlendAttachment, ap: &str) -> R<sim_rop::fragment::BlendState> {
        let enable = a.blend_enable.unwrap_or(false);
        let d = sim_rop::fragment::BlendState::REPLACE;
        let factor = |v: &Option<String>, f: &str, default| -> R<sim_rop::fragment::BlendFactor> {
            match v {
                Some(v) => parse_blend_factor(v, &format!("{ap}.{f}")),
                None if enable => fail(ap, format!("with `blend_enable` true, `{f}` is needed")),
                None => Ok(default),
            }
        };
        let op = |v: &Option<String>, f: &str, default| -> R<sim_rop::fragment::BlendOp> {
            match v {
                Some(v) => parse_blend_op(v, &format!("{ap}.{f}")),
                None if enable => fail(ap, format!("with `blend_enable` true, `{f}` is needed")),
                None => Ok(default),
            }
        };
        let mut write_mask = 0xf;
        if let Some(m) = &a.color_write_mask {
            write_mask = 0;
            for n in m.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                write_mask |= match n.trim_start_matches("VK_COLOR_COMPONENT_").trim_end_matches("_BIT") {
                    "R" => 1,
                    "G" => 2,
                    "B" => 4,
                    "A" => 8,
                    "NONE" => 0,
                    other => return fail(format!("{ap}.color_write_mask"), format!("unknown colour component `{other}` (expected R, G, B, A)")),
                };
            }
        }
        Ok(sim_rop::fragment::BlendState {
            enable,
            src_color: factor(&a.src_color_blend_factor, "src_color_blend_factor", d.src_color)?,
            dst_color: factor(&a.dst_color_blend_factor, "dst_color_blend_factor", d.dst_color)?,
            color_op: op(&a.color_blend_op, "color_blend_op", d.color_op)?,
            src_alpha: factor(&a.src_alpha_blend_factor, "src_alpha_blend_factor", d.src_alpha)?,
            dst_alpha: factor(&a.dst_alpha_blend_factor, "dst_alpha_blend_factor", d.dst_alpha)?,
            alpha_op: op(&a.alpha_blend_op, "alpha_blend_op", d.alpha_op)?,
            write_mask,
        })
    }

    /// vkCmdBeginRenderPass2: a render pass and a framebuffer made for a compatible one, a
    /// render area within the framebuffer, and a clear value for each attachment it clears.
    fn begin_render_pass(&self, c: &Cmd, path: &str) -> R<Command> {
        let render_pass = match &c.render_pass {
            Some(id) => lookup(&self.render_passes, id, &format!("{path}.render_pass"), "render pass")?,
            None => return fail(path, "`begin_render_pass` needs `render_pass`"),
        };
        let framebuffer = match &c.framebuffer {
            Some(id) => lookup(&self.framebuffers, id, &format!("{path}.framebuffer"), "framebuffer")?,
            None => return fail(path, "`begin_render_pass` needs `framebuffer`"),
        };
        let (rp, fb) = (&self.w.render_passes[render_pass], &self.w.framebuffers[framebuffer]);
        let made_for = &self.w.render_passes[fb.render_pass];
        if !compatible(rp, made_for) {
            return fail(
                format!("{path}.framebuffer"),
                format!("VUID-VkRenderPassBeginInfo-renderPass-00904: framebuffer `{}` was made for render pass `{}`, which is not compatible with `{}`", fb.name, made_for.name, rp.name),
            );
        }
        let render_area = match &c.render_area {
            Some(r) => render_area(
                r,
                &format!("{path}.render_area"),
                [fb.width, fb.height],
                &format!("framebuffer `{}`", fb.name),
                [
                    "VUID-VkRenderPassBeginInfo-pNext-02850",
                    "VUID-VkRenderPassBeginInfo-pNext-02851",
                    "VUID-VkRenderPassBeginInfo-None-08996",
                    "VUID-VkRenderPassBeginInfo-None-08997",
                    "VUID-VkRenderPassBeginInfo-pNext-02852",
                    "VUID-VkRenderPassBeginInfo-pNext-02853",
                ],
            )?,
            None => ff::Rect2D { x: 0, y: 0, width: fb.width, height: fb.height },
        };
        // "or stencilLoadOp, if the attachment has a depth/stencil format".
        let cleared = |a: &AttachmentDescription| a.load_op == LoadOp::Clear || (a.format.is_depth_stencil() && a.stencil_load_op == LoadOp::Clear);
        let need = rp.attachments.iter().rposition(cleared).map_or(0, |k| k + 1);
        let given = c.clear_values.as_deref().unwrap_or_default();
        check_len(given, &format!("{path}.clear_values"))?;
        if given.len() < need {
            let at = if c.clear_values.is_some() { format!("{path}.clear_values") } else { path.to_string() };
            return fail(at, format!("VUID-VkRenderPassBeginInfo-clearValueCount-00902: attachment {} of render pass `{}` is cleared, so `clear_values` needs {need} entries, and it has {}", need - 1, rp.name, given.len()));
        }
        let mut clear_values = vec![None; rp.attachments.len()];
        for (k, v) in given.iter().enumerate() {
            let Some(v) = v else { continue };
            let at = format!("{path}.clear_values[{k}]");
            let value = clear_value(v, &at)?;
            // Entries of attachments that are not cleared are read by nothing.
            if let Some(a) = rp.attachments.get(k).filter(|a| cleared(a)) {
                check_clear_kind(&value, a.format, &at)?;
                clear_values[k] = Some(value);
            }
        }
        Ok(Command::BeginRenderPass { render_pass, framebuffer, render_area, clear_values })
    }

    /// vkCmdBeginRendering: a render area within the device's limits and every attachment's
    /// level, and each attachment checked as `VkRenderingInfo` checks it.
    fn begin_rendering(&self, c: &Cmd, path: &str) -> R<Command> {
        let Some(area) = &c.render_area else { return fail(path, "`begin_rendering` needs `render_area`") };
        let layer_count = c.layer_count.unwrap_or(1);
        if layer_count == 0 {
            return fail(format!("{path}.layer_count"), "VUID-VkRenderingInfo-viewMask-06069: layer_count is at least 1 (multiview is not used)");
        }
        if layer_count != 1 {
            return fail(format!("{path}.layer_count"), format!("{layer_count} layers: layered rendering is not supported yet by the engine (layer_count 1)"));
        }
        let max = ff::MAX_FRAMEBUFFER_EXTENT;
        let render_area = render_area(
            area,
            &format!("{path}.render_area"),
            [max, max],
            "maxFramebufferWidth/Height",
            ["VUID-VkRenderingInfo-pNext-06077", "VUID-VkRenderingInfo-pNext-06078", "VUID-VkRenderingInfo-None-08994", "VUID-VkRenderingInfo-None-08995", "VUID-VkRenderingInfo-pNext-07815", "VUID-VkRenderingInfo-pNext-07816"],
        )?;
        let list = c.color_attachments.as_deref().unwrap_or_default();
        check_len(list, &format!("{path}.color_attachments"))?;
        if list.len() > MAX_COLOR_ATTACHMENTS {
            return fail(format!("{path}.color_attachments"), format!("VUID-VkRenderingInfo-colorAttachmentCount-06106: {} colour attachments exceed maxColorAttachments, {MAX_COLOR_ATTACHMENTS}", list.len()));
        }
        let mut color_attachments = Vec::with_capacity(list.len());
        for (k, a) in list.iter().enumerate() {
            color_attachments.push(match a {
                Some(a) => Some(self.rendering_attachment(a, &format!("{path}.color_attachments[{k}]"), sim_rop::Aspect::Color, &render_area)?),
                None => None,
            });
        }
        let depth_attachment = match &c.depth_attachment {
            Some(a) => Some(self.rendering_attachment(a, &format!("{path}.depth_attachment"), sim_rop::Aspect::Depth, &render_area)?),
            None => None,
        };
        let stencil_attachment = match &c.stencil_attachment {
            Some(a) => Some(self.rendering_attachment(a, &format!("{path}.stencil_attachment"), sim_rop::Aspect::Stencil, &render_area)?),
            None => None,
        };
        if let (Some(d), Some(s)) = (&depth_attachment, &stencil_attachment)
            && d.view != s.view
        {
            return fail(format!("{path}.stencil_attachment.image"), "VUID-VkRenderingInfo-pDepthAttachment-06085: the depth and the stencil attachment are one view, and these two differ");
        }
        Ok(Command::BeginRendering(RenderingInfo { render_area, layer_count, color_attachments, depth_attachment, stencil_attachment }))
    }

    /// One `VkRenderingAttachmentInfo` for the `aspect` slot (colour, depth or stencil).
    fn rendering_attachment(&self, a: &schema::RenderingAttachment, ap: &str, aspect: sim_rop::Aspect, area: &ff::Rect2D) -> R<RenderingAttachment> {
        use sim_rop::Aspect as X;
        let ip = format!("{ap}.image");
        let view = self.attachment_view(&a.image, &ip)?;
        let im = &self.w.images[view.image];
        let format = im.layout.desc.format;
        let (usage, vuid_usage) = match aspect {
            X::Color => {
                if !renderable_color(format) {
                    return fail(ip, format!("image `{}` is {format}, which has no COLOR_ATTACHMENT format feature: a colour attachment's view has a colour format", im.name));
                }
                ("COLOR_ATTACHMENT", "VUID-VkRenderingInfo-colorAttachmentCount-06087")
            }
            X::Depth | X::Stencil => {
                let vuid = if aspect == X::Depth { "VUID-VkRenderingInfo-pDepthAttachment-06547" } else { "VUID-VkRenderingInfo-pStencilAttachment-06548" };
                if !format.aspects().contains(&aspect) {
                    return fail(ip, format!("{vuid}: image `{}` is {format}, which has no {} component", im.name, aspect.vk_name()));
                }
                ("DEPTH_STENCIL_ATTACHMENT", if aspect == X::Depth { "VUID-VkRenderingInfo-pDepthAttachment-06088" } else { "VUID-VkRenderingInfo-pStencilAttachment-06089" })
            }
        };
        self.image_usage(view.image, usage, &ip, vuid_usage)?;
        let layout = known_layout(&a.image_layout, &format!("{ap}.image_layout"))?;
        if matches!(layout.as_str(), "UNDEFINED" | "SHADER_READ_ONLY_OPTIMAL" | "TRANSFER_SRC_OPTIMAL" | "TRANSFER_DST_OPTIMAL" | "PREINITIALIZED") {
            return fail(format!("{ap}.image_layout"), format!("VUID-VkRenderingAttachmentInfo-imageView-06135: an attachment cannot be rendered in {layout}"));
        }
        let wrong = match aspect {
            X::Color => matches!(layout.as_str(), "DEPTH_STENCIL_ATTACHMENT_OPTIMAL" | "DEPTH_STENCIL_READ_ONLY_OPTIMAL").then_some("VUID-VkRenderingInfo-colorAttachmentCount-06090"),
            X::Depth => (layout == "COLOR_ATTACHMENT_OPTIMAL").then_some("VUID-VkRenderingInfo-pDepthAttachment-06092"),
            X::Stencil => (layout == "COLOR_ATTACHMENT_OPTIMAL").then_some("VUID-VkRenderingInfo-pStencilAttachment-06094"),
        };
        if let Some(vuid) = wrong {
            return fail(format!("{ap}.image_layout"), format!("{vuid}: a {} attachment cannot be in {layout}", aspect.vk_name()));
        }
        let load_op = parse_load_op(&a.load_op, &format!("{ap}.load_op"))?;
        let store_op = parse_store_op(&a.store_op, &format!("{ap}.store_op"))?;
        let clear_value = match (&a.clear_value, load_op) {
            (Some(v), LoadOp::Clear) => {
                let at = format!("{ap}.clear_value");
                let value = clear_value(v, &at)?;
                check_clear_kind(&value, format, &at)?;
                Some(value)
            }
            (None, LoadOp::Clear) => return fail(ap, "an attachment whose load_op is CLEAR needs `clear_value`"),
            // Read by nothing, but checked like any other value.
            (Some(v), _) => clear_value(v, &format!("{ap}.clear_value")).map(|_| None)?,
            (None, _) => None,
        };
        let e = im.layout.desc.level_extent(view.level);
        for (k, vuid) in [(0, "VUID-VkRenderingInfo-pNext-06079"), (1, "VUID-VkRenderingInfo-pNext-06080")] {
            let (o, n) = if k == 0 { (area.x, area.width) } else { (area.y, area.height) };
            if i64::from(o) + i64::from(n) > i64::from(e[k]) {
                return fail(ip, format!("{vuid}: the render area reaches {} {}, and level {} of image `{}` is {} {}", ["x", "y"][k], i64::from(o) + i64::from(n), view.level, im.name, e[k], ["wide", "high"][k]));
            }
        }
        Ok(RenderingAttachment { view, layout, load_op, store_op, clear_value })
    }

    /// vkCmdBindVertexBuffers: one offset per buffer (all 0 when `offsets` is left out), each
    /// within its buffer, the bindings within maxVertexInputBindings.
    fn bind_vertex_buffers(&self, c: &Cmd, path: &str) -> R<Command> {
        let first_binding = c.first_binding.unwrap_or(0);
        let list = c.buffers.as_deref().unwrap_or_default();
        if list.is_empty() {
            return fail(path, "VUID-vkCmdBindVertexBuffers-bindingCount-arraylength: `bind_vertex_buffers` needs at least one buffer in `buffers`");
        }
        check_len(list, &format!("{path}.buffers"))?;
        let max = ff::fetch::MAX_VERTEX_INPUT_BINDINGS as u64;
        if u64::from(first_binding) >= max {
            return fail(format!("{path}.first_binding"), format!("VUID-vkCmdBindVertexBuffers-firstBinding-00624: first_binding {first_binding} is not below maxVertexInputBindings, {max}"));
        }
        if u64::from(first_binding) + list.len() as u64 > max {
            return fail(format!("{path}.buffers"), format!("VUID-vkCmdBindVertexBuffers-firstBinding-00625: bindings {first_binding} to {} pass maxVertexInputBindings, {max}", u64::from(first_binding) + list.len() as u64 - 1));
        }
        if let Some(o) = &c.offsets
            && o.len() != list.len()
        {
            return fail(format!("{path}.offsets"), format!("{} offsets for {} buffers: one per buffer", o.len(), list.len()));
        }
        let mut buffers = Vec::with_capacity(list.len());
        for (k, id) in list.iter().enumerate() {
            let b = lookup(&self.bufs, id, &format!("{path}.buffers[{k}]"), "buffer")?;
            let offset = c.offsets.as_ref().map_or(0, |o| o[k]);
            let desc = &self.w.buffers[b];
            if offset >= desc.size {
                return fail(format!("{path}.offsets[{k}]"), format!("VUID-vkCmdBindVertexBuffers-pOffsets-00626: offset {offset} is not within buffer `{}` of {} bytes", desc.name, desc.size));
            }
            buffers.push((b, offset));
        }
        Ok(Command::BindVertexBuffers { first_binding, buffers })
    }

    fn bind_index_buffer(&self, c: &Cmd, path: &str) -> R<Command> {
        let buffer = match &c.buffer {
            Some(id) => lookup(&self.bufs, id, &format!("{path}.buffer"), "buffer")?,
            None => return fail(path, "`bind_index_buffer` needs `buffer`"),
        };
        let index_type = match c.index_type.as_deref().map(|t| t.trim_start_matches("VK_INDEX_TYPE_")) {
            Some("UINT16") => ff::IndexType::Uint16,
            Some("UINT32") => ff::IndexType::Uint32,
            Some(t @ ("UINT8" | "UINT8_EXT" | "UINT8_KHR")) => return fail(format!("{path}.index_type"), format!("index type `{t}` is not supported yet by the engine (UINT16, UINT32)")),
            Some(t @ ("NONE_KHR" | "NONE_NV")) => return fail(format!("{path}.index_type"), format!("VUID-vkCmdBindIndexBuffer-indexType-08786: index type `{t}` does not index")),
            Some(t) => return fail(format!("{path}.index_type"), format!("unknown index type `{t}` (expected UINT16 or UINT32)")),
            None => return fail(path, "`bind_index_buffer` needs `index_type` (UINT16 or UINT32)"),
        };
        let offset = c.offset.unwrap_or(0);
        let desc = &self.w.buffers[buffer];
        if offset >= desc.size {
            return fail(format!("{path}.offset"), format!("VUID-vkCmdBindIndexBuffer-offset-08782: offset {offset} is not within buffer `{}` of {} bytes", desc.name, desc.size));
        }
        // The buffer's place in its memory counts too: the rule is about the address.
        if !(desc.offset + offset).is_multiple_of(u64::from(index_type.size())) {
            return fail(format!("{path}.offset"), format!("VUID-vkCmdBindIndexBuffer-offset-08783: offset {offset} in buffer `{}` (bound at {} in its memory) is not a multiple of the index size, {}", desc.name, desc.offset, index_type.size()));
        }
        Ok(Command::BindIndexBuffer { buffer, offset, index_type })
    }

    fn set_viewport(&self, c: &Cmd, path: &str) -> R<Command> {
        let Some(v) = &c.viewport else { return fail(path, "`set_viewport` needs `viewport`") };
        let viewport = ff::Viewport { x: v.x, y: v.y, width: v.width, height: v.height, min_depth: v.min_depth.unwrap_or(0.0), max_depth: v.max_depth.unwrap_or(1.0) };
        viewport.validate().map_err(|e| (format!("{path}.viewport"), format!("{e} (VkViewport's valid usage)")))?;
        Ok(Command::SetViewport(viewport))
    }

    fn set_scissor(&self, c: &Cmd, path: &str) -> R<Command> {
        let Some(r) = &c.scissor else { return fail(path, "`set_scissor` needs `scissor`") };
        let s = rect(r);
        if s.x < 0 || s.y < 0 {
            return fail(format!("{path}.scissor.offset"), format!("VUID-vkCmdSetScissor-x-00595: the scissor's offset ({}, {}) is negative", s.x, s.y));
        }
        for (k, (o, e), vuid) in [(0, (s.x, s.width), "VUID-vkCmdSetScissor-offset-00596"), (1, (s.y, s.height), "VUID-vkCmdSetScissor-offset-00597")] {
            if i64::from(o) + i64::from(e) > i64::from(i32::MAX) {
                return fail(format!("{path}.scissor.extent"), format!("{vuid}: {} offset {o} plus {} {e} overflows a signed 32-bit integer", ["x", "y"][k], ["width", "height"][k]));
            }
        }
        Ok(Command::SetScissor(s))
    }

    /// vkCmdDraw, vkCmdDrawIndexed and the indirect draws: the counts or the records' place,
    /// and the descriptors, checked against what the pipeline's two shaders declare.
    fn draw(&self, c: &Cmd, name: &str, path: &str) -> R<Command> {
        let pipeline = match &c.pipeline {
            Some(id) => lookup(&self.graphics_pipelines, id, &format!("{path}.pipeline"), "graphics pipeline")?,
            None => return fail(path, format!("`{name}` needs `pipeline`")),
        };
        let need = |v: Option<u32>, f: &str| v.ok_or_else(|| (path.to_string(), format!("`{name}` needs `{f}`")));
        let kind = match name {
            "draw" => DrawKind::Direct {
                vertex_count: need(c.vertex_count, "vertex_count")?,
                instance_count: c.instance_count.unwrap_or(1),
                first_vertex: c.first_vertex.unwrap_or(0),
                first_instance: c.first_instance.unwrap_or(0),
            },
            "draw_indexed" => DrawKind::Indexed {
                index_count: need(c.index_count, "index_count")?,
                instance_count: c.instance_count.unwrap_or(1),
                first_index: c.first_index.unwrap_or(0),
                vertex_offset: c.vertex_offset.unwrap_or(0),
                first_instance: c.first_instance.unwrap_or(0),
            },
            _ => {
                let indexed = name == "draw_indexed_indirect";
                let vk = if indexed { "vkCmdDrawIndexedIndirect" } else { "vkCmdDrawIndirect" };
                let (record, vuids) = if indexed { (20u32, ["00528", "00539", "00540"]) } else { (16, ["00476", "00487", "00488"]) };
                let buffer = match &c.buffer {
                    Some(id) => lookup(&self.bufs, id, &format!("{path}.buffer"), "buffer")?,
                    None => return fail(path, format!("`{name}` needs `buffer`")),
                };
                let offset = c.offset.unwrap_or(0);
                let draw_count = c.draw_count.unwrap_or(1);
                let stride = c.stride.unwrap_or(record);
                if !offset.is_multiple_of(4) {
                    return fail(format!("{path}.offset"), format!("VUID-{vk}-offset-02710: offset {offset} is not a multiple of 4"));
                }
                if draw_count > 1 && (stride < record || !stride.is_multiple_of(4)) {
                    return fail(format!("{path}.stride"), format!("VUID-{vk}-drawCount-{}: with {draw_count} draws, stride {stride} is a multiple of 4 of at least {record} bytes", vuids[0]));
                }
                // In u128: a count and a stride of 32 bits and a 64-bit offset.
                let end = u128::from(offset) + u128::from(draw_count.saturating_sub(1)) * u128::from(stride) + u128::from(record);
                let size = self.w.buffers[buffer].size;
                if draw_count > 0 && end > u128::from(size) {
                    let vuid = if draw_count == 1 { vuids[1] } else { vuids[2] };
                    return fail(format!("{path}.offset"), format!("VUID-{vk}-drawCount-{vuid}: {draw_count} records of {record} bytes from offset {offset}, {stride} apart, end at {end}, past buffer `{}` of {size} bytes", self.w.buffers[buffer].name));
                }
                DrawKind::Indirect { indexed, buffer, offset, draw_count, stride }
            }
        };
        let p = &self.w.graphics_pipelines[pipeline];
        let declared = |set: u32, binding: u32| p.vertex.bindings().iter().chain(p.fragment.iter().flat_map(|f| f.bindings())).find(|x| x.group == set && x.binding == binding).map(|x| x.kind);
        let (bindings, images) = self.descriptors(c.bindings.as_deref().unwrap_or_default(), &declared, kind.vk_name(), path)?;
        let push_constants = self.push_constants(c, path)?;
        Ok(Command::Draw { pipeline, kind, bindings, push_constants, images })
    }

    /// vkCmdClearAttachments: colour attachments by index with a colour, or the depth/stencil
    /// attachment's aspects with a depth and stencil; rectangles of at least one texel and layer.
    fn clear_attachments(&self, c: &Cmd, path: &str) -> R<Command> {
        let list = c.attachments.as_deref().unwrap_or_default();
        if list.is_empty() {
            return fail(path, "VUID-vkCmdClearAttachments-attachmentCount-arraylength: `clear_attachments` needs at least one entry in `attachments`");
        }
        let rects = c.rects.as_deref().unwrap_or_default();
        if rects.is_empty() {
            return fail(path, "VUID-vkCmdClearAttachments-rectCount-arraylength: `clear_attachments` needs at least one entry in `rects`");
        }
        check_len(list, &format!("{path}.attachments"))?;
        check_len(rects, &format!("{path}.rects"))?;
        let mut attachments = Vec::with_capacity(list.len());
        for (k, a) in list.iter().enumerate() {
            let ap = format!("{path}.attachments[{k}]");
            let (mut color, mut depth, mut stencil) = (false, false, false);
            for n in a.aspect_mask.joined().split('|').map(str::trim).filter(|s| !s.is_empty()) {
                match n.trim_start_matches("VK_IMAGE_ASPECT_").trim_end_matches("_BIT") {
                    "COLOR" => color = true,
                    "DEPTH" => depth = true,
                    "STENCIL" => stencil = true,
                    "METADATA" => return fail(format!("{ap}.aspect_mask"), "VUID-VkClearAttachment-aspectMask-00020: METADATA cannot be cleared"),
                    other => return fail(format!("{ap}.aspect_mask"), format!("unknown or unsupported aspect `{other}` (COLOR, DEPTH, STENCIL)")),
                }
            }
            if !(color || depth || stencil) {
                return fail(format!("{ap}.aspect_mask"), "VUID-VkClearAttachment-aspectMask-requiredbitmask: an aspect mask names at least one aspect");
            }
            if color && (depth || stencil) {
                return fail(format!("{ap}.aspect_mask"), "VUID-VkClearAttachment-aspectMask-00019: COLOR is cleared alone, without DEPTH or STENCIL");
            }
            let Some(v) = &a.clear_value else { return fail(ap, "a clear attachment needs `clear_value`") };
            let vp = format!("{ap}.clear_value");
            let value = clear_value(v, &vp)?;
            attachments.push(if color {
                let Some(attachment) = a.color_attachment else { return fail(ap, "a COLOR clear needs `color_attachment`, the colour attachment's index") };
                if matches!(value, sim_rop::ClearValue::DepthStencil { .. }) {
                    return fail(vp, "a COLOR clear takes a colour value (float32, uint32 or int32)");
                }
                ClearAttachment::Color { attachment, value }
            } else {
                if a.color_attachment.is_some() {
                    return fail(format!("{ap}.color_attachment"), "`color_attachment` belongs to a COLOR clear");
                }
                if !matches!(value, sim_rop::ClearValue::DepthStencil { .. }) {
                    return fail(vp, "a DEPTH or STENCIL clear takes a depth_stencil value");
                }
                ClearAttachment::DepthStencil { depth, stencil, value }
            });
        }
        let mut out = Vec::with_capacity(rects.len());
        for (k, r) in rects.iter().enumerate() {
            let rp = format!("{path}.rects[{k}]");
            let area = rect(&r.rect);
            if area.width == 0 {
                return fail(format!("{rp}.rect.extent"), "VUID-vkCmdClearAttachments-rect-02682: a clear rectangle's width is at least 1");
            }
            if area.height == 0 {
                return fail(format!("{rp}.rect.extent"), "VUID-vkCmdClearAttachments-rect-02683: a clear rectangle's height is at least 1");
            }
            let layer_count = r.layer_count.unwrap_or(1);
            if layer_count == 0 {
                return fail(format!("{rp}.layer_count"), "VUID-vkCmdClearAttachments-layerCount-01934: a clear rectangle has at least one layer");
            }
            out.push(ClearRect { rect: area, base_array_layer: r.base_array_layer.unwrap_or(0), layer_count });
        }
        Ok(Command::ClearAttachments { attachments, rects: out })
    }
}
