//! Writing a [`Workload`] as a version-1 trace (`docs/TRACE_FORMAT.md`): the inverse of
//! [`super::load`], so that a workload built in code (a random program `gpusim profile check`
//! shrank, a generated sample) can be run, checked, drawn and replayed like any trace.
//!
//! # What is written
//! Every object keeps its name as its id, in the workload's order, so the loaded trace numbers
//! everything as the workload does and runs to the same report. Synchronization commands keep
//! their shape: a dependency recorded in the synchronization1 shape is written in it (stage
//! masks on the command) when it can be, else in the synchronization2 one. Compute shaders are
//! written as they were given: WGSL and GLSL inline, a SPIR-V binary as a file beside the trace
//! (the format has no inline SPIR-V); [`WrittenTrace::files`] holds those. A vertex or fragment
//! shader keeps no source text, so it is written as the SPIR-V of its entry point, a file too;
//! only the shaders of graphics pipelines are written. Payloads are written as `u32` words when
//! short and whole words, else as hex. Clear values are written in their long form
//! (`{"color": {"float32": [...]}}`, `{"depth_stencil": {...}}`).
//!
//! The layout is for people: objects holding only scalars (a buffer, a region, a barrier) on
//! one line when short enough, everything else one member or item a line.

use std::path::Path;

use sim_rop::fragment::{BlendFactor, BlendOp, CompareOp};
use sim_shader::{GraphicsShader, ShaderSource};

use crate::api::workload::{BufferBinding, Command, DependencyInfo, HostOp, ImageDescriptor, MappedRange, SubmitBatch, Workload};
use crate::api::{AttachmentView, FramebufferDesc, GraphicsPipelineDesc, LoadOp, PipelineTarget, RenderPassDesc, RenderingAttachment, StoreOp, SubpassRef};
use crate::sync::{MemoryBarrier2, PipelineStageFlags2 as S};

/// A workload written as a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenTrace {
    /// The trace: JSON, ending with a line break.
    pub text: String,
    /// The files the trace names (SPIR-V shaders), as (name relative to the trace's folder,
    /// bytes).
    pub files: Vec<(String, Vec<u8>)>,
}

/// A workload that cannot be written as a trace, or a trace file that cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WriteError(pub String);

/// Payloads at most this long that are whole 32-bit words are written as `*_u32` lists; longer
/// ones as hex, one string rather than a list of thousands of numbers.
const MAX_WORDS_BYTES: usize = 256;

/// Objects and lists of scalars whose one-line form is at most this wide stay on one line.
const LINE_WIDTH: usize = 100;

/// A JSON value whose objects keep their members in the order given (the format's order, not
/// the alphabetical one of `serde_json::Value`).
#[derive(Clone, Debug)]
enum J {
    Obj(Vec<(&'static str, J)>),
    Arr(Vec<J>),
    Str(String),
    Num(u64),
    /// A signed integer (offsets that may be negative).
    Int(i64),
    /// `null` (an unused slot of a list).
    Null,
    /// A float, written as the shortest text that reads back to the same value.
    Float(f32),
    Bool(bool),
}

impl J {
    fn s(text: impl Into<String>) -> J {
        J::Str(text.into())
    }

    fn strs<'a>(items: impl IntoIterator<Item = &'a String>) -> J {
        J::Arr(items.into_iter().map(|s| J::s(s.as_str())).collect())
    }

    /// Whether it holds only scalars (or is one).
    fn flat(&self) -> bool {
        match self {
            J::Obj(ms) => ms.iter().all(|(_, v)| matches!(v, J::Str(_) | J::Num(_) | J::Int(_) | J::Null | J::Bool(_) | J::Float(_)) || matches!(v, J::Arr(a) if a.iter().all(|x| !matches!(x, J::Obj(_) | J::Arr(_))))),
            J::Arr(a) => a.iter().all(|x| !matches!(x, J::Obj(_) | J::Arr(_))),
            _ => true,
        }
    }

    fn one_line(&self) -> String {
        match self {
            J::Obj(ms) => format!("{{{}}}", ms.iter().map(|(k, v)| format!("\"{k}\": {}", v.one_line())).collect::<Vec<_>>().join(", ")),
            J::Arr(a) => format!("[{}]", a.iter().map(J::one_line).collect::<Vec<_>>().join(", ")),
            J::Str(s) => serde_json::Value::from(s.as_str()).to_string(),
            J::Num(n) => n.to_string(),
            J::Int(n) => n.to_string(),
            J::Null => "null".to_string(),
            J::Float(v) => format!("{v:?}"),
            J::Bool(b) => b.to_string(),
        }
    }

    /// The value at `indent` (its first line not indented: it follows a key or a line's
    /// indentation).
    fn write(&self, indent: usize, out: &mut String) {
        let line = self.one_line();
        let empty = matches!(self, J::Obj(m) if m.is_empty()) || matches!(self, J::Arr(a) if a.is_empty());
        if empty || (self.flat() && indent + line.len() <= LINE_WIDTH) {
            out.push_str(&line);
            return;
        }
        let pad = " ".repeat(indent + 2);
        match self {
            J::Obj(ms) => {
                out.push_str("{\n");
                for (i, (k, v)) in ms.iter().enumerate() {
                    out.push_str(&format!("{pad}\"{k}\": "));
                    v.write(indent + 2, out);
                    out.push_str(if i + 1 < ms.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{}}}", " ".repeat(indent)));
            }
            J::Arr(a) => {
                out.push_str("[\n");
                for (i, v) in a.iter().enumerate() {
                    out.push_str(&pad);
                    v.write(indent + 2, out);
                    out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{}]", " ".repeat(indent)));
            }
            _ => out.push_str(&line),
        }
    }
}

/// A `Vec` of members, leaving out those given as `None`.
fn members(list: Vec<(&'static str, Option<J>)>) -> J {
    J::Obj(list.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect())
}

/// A payload as `PREFIX_u32` words or `PREFIX_hex`.
fn payload(prefix: &'static str, data: &[u8]) -> (&'static str, J) {
    if data.len().is_multiple_of(4) && !data.is_empty() && data.len() <= MAX_WORDS_BYTES {
        let key = match prefix {
            "data" => "data_u32",
            "expect" => "expect_u32",
            _ => "push_constants_u32",
        };
        (key, J::Arr(data.chunks_exact(4).map(|w| J::Num(u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64)).collect()))
    } else {
        let key = match prefix {
            "data" => "data_hex",
            "expect" => "expect_hex",
            _ => "push_constants_hex",
        };
        (key, J::s(data.iter().map(|b| format!("{b:02x}")).collect::<String>()))
    }
}

fn size(s: Option<u64>) -> J {
    s.map_or_else(|| J::s("WHOLE_SIZE"), J::Num)
}

/// Writes `w` as a trace. `stem` names the files written beside it (`STEM.SHADER.spv`);
/// `description`, when given, is the trace's `description`.
pub fn to_trace(w: &Workload, stem: &str, description: Option<&str>) -> Result<WrittenTrace, WriteError> {
    check_names(w)?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let buf = |b: usize| J::s(w.buffers[b].name.as_str());
    let mut shaders = Vec::new();
    for (name, p) in &w.pipelines {
        let source = match p.source() {
            ShaderSource::Wgsl(t) => ("wgsl", J::s(t)),
            ShaderSource::Glsl(t) => ("glsl", J::s(t)),
            ShaderSource::Spirv(words) => ("spirv_file", J::s(spirv_file(&mut files, stem, name, words))),
        };
        shaders.push(J::Obj(vec![("id", J::s(name.as_str())), ("stage", J::s("COMPUTE")), ("entry_point", J::s(p.entry_point())), source]));
    }
    for (name, shader) in graphics_shaders(w)? {
        let words = shader.spirv().map_err(|e| WriteError(format!("shader `{name}` cannot be written: {e}")))?;
        let file = spirv_file(&mut files, stem, name, &words);
        shaders.push(J::Obj(vec![("id", J::s(name)), ("stage", J::s(shader.stage().vk_name())), ("entry_point", J::s(shader.entry_point())), ("spirv_file", J::s(file))]));
    }
    for p in &w.graphics_pipelines {
        if p.depth_stencil.stencil_test {
            return Err(WriteError(format!("pipeline `{}` has the stencil test on, which a trace cannot hold yet", p.name)));
        }
    }
    let memory = w
        .memories
        .iter()
        .map(|m| {
            let p = m.properties;
            let props: Vec<&str> = [(p.device_local, "DEVICE_LOCAL"), (p.host_visible, "HOST_VISIBLE"), (p.host_coherent, "HOST_COHERENT"), (p.host_cached, "HOST_CACHED")].iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect();
            let props = if props.is_empty() { "NONE".to_string() } else { props.join("|") };
            members(vec![("id", Some(J::s(m.name.as_str()))), ("size", Some(J::Num(m.size))), ("properties", Some(J::s(props))), ("compare", (!m.compare).then_some(J::Bool(false)))])
        })
        .collect();
    let buffers = w
        .buffers
        .iter()
        .map(|b| {
            let picture = b.picture.map(|p| {
                J::Obj(vec![
                    ("format", J::s(p.format.name())),
                    ("extent", J::Arr(p.extent.iter().map(|&x| J::Num(u64::from(x))).collect())),
                    ("row_length", J::Num(u64::from(p.row_length))),
                ])
            });
            members(vec![
                ("id", Some(J::s(b.name.as_str()))),
                ("memory", Some(J::s(w.memories[b.memory].name.as_str()))),
                ("offset", (b.offset != 0).then_some(J::Num(b.offset))),
                ("size", Some(J::Num(b.size))),
                ("image_view", picture),
            ])
        })
        .collect();
    let images = w
        .images
        .iter()
        .map(|im| {
            let d = &im.layout.desc;
            let image_type = match d.image_type {
                sim_rop::ImageType::D1 => "1D",
                sim_rop::ImageType::D2 => "2D",
                sim_rop::ImageType::D3 => "3D",
            };
            let tiling = if d.tiling == sim_rop::Tiling::Linear { "LINEAR" } else { "OPTIMAL" };
            members(vec![
                ("id", Some(J::s(im.name.as_str()))),
                ("memory", Some(J::s(w.memories[im.memory].name.as_str()))),
                ("offset", Some(J::Num(im.offset))),
                ("image_type", Some(J::s(image_type))),
                ("format", Some(J::s(d.format.name()))),
                ("extent", Some(J::Arr(d.extent.iter().map(|&x| J::Num(u64::from(x))).collect()))),
                ("mip_levels", Some(J::Num(u64::from(d.mip_levels)))),
                ("array_layers", Some(J::Num(u64::from(d.array_layers)))),
                ("tiling", Some(J::s(tiling))),
                ("usage", Some(J::s(im.usage.as_str()))),
                ("initial_layout", Some(J::s(im.initial_layout.as_str()))),
            ])
        })
        .collect();
    let queues = w
        .queues
        .iter()
        .enumerate()
        .map(|(i, q)| match w.queue_flags.get(i) {
            Some(f) if *f != crate::api::workload::QueueFlags::ALL => {
                let names: Vec<&str> = [(f.graphics, "GRAPHICS"), (f.compute, "COMPUTE"), (f.transfer, "TRANSFER")].iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect();
                J::Obj(vec![("id", J::s(q.as_str())), ("flags", J::s(if names.is_empty() { "NONE".to_string() } else { names.join("|") }))])
            }
            _ => J::s(q.as_str()),
        })
        .collect();
    let command_buffers = w
        .command_buffers
        .iter()
        .map(|cb| {
            let commands = cb.commands.iter().map(|c| command(w, c, &buf)).collect();
            members(vec![("id", Some(J::s(cb.name.as_str()))), ("usage", cb.simultaneous_use.then(|| J::s("SIMULTANEOUS_USE"))), ("commands", Some(J::Arr(commands)))])
        })
        .collect();
    let timeline = w.timeline.iter().map(|op| host_op(w, op)).collect();
    let trace = members(vec![
        ("gpusim_trace", Some(J::Num(1))),
        ("name", Some(J::s(w.name.as_str()))),
        ("description", description.map(J::s)),
        ("memory", Some(J::Arr(memory))),
        ("buffers", Some(J::Arr(buffers))),
        ("images", (!w.images.is_empty()).then_some(J::Arr(images))),
        ("samplers", (!w.samplers.is_empty()).then(|| J::Arr(w.samplers.iter().map(sampler).collect()))),
        ("shaders", Some(J::Arr(shaders))),
        ("render_passes", (!w.render_passes.is_empty()).then(|| J::Arr(w.render_passes.iter().map(render_pass).collect()))),
        ("framebuffers", (!w.framebuffers.is_empty()).then(|| J::Arr(w.framebuffers.iter().map(|f| framebuffer(w, f)).collect()))),
        ("pipelines", (!w.graphics_pipelines.is_empty()).then(|| J::Arr(w.graphics_pipelines.iter().map(|p| graphics_pipeline(w, p)).collect()))),
        ("events", Some(J::strs(&w.events))),
        ("semaphores", Some(J::strs(&w.semaphores))),
        ("fences", Some(J::strs(&w.fences))),
        ("queues", Some(J::Arr(queues))),
        ("command_buffers", Some(J::Arr(command_buffers))),
        ("timeline", Some(J::Arr(timeline))),
    ]);
    let mut text = String::new();
    trace.write(0, &mut text);
    text.push('\n');
    Ok(WrittenTrace { text, files })
}

/// Writes `w` as the trace file `path`, with the files it names beside it, and loads it back:
/// a workload the trace format cannot hold (a name it refuses, push constants that are not
/// whole words, ...) is an error naming the problem, not a file that fails later.
pub fn save(w: &Workload, path: &Path, description: Option<&str>) -> Result<(), WriteError> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into());
    let written = to_trace(w, &stem, description)?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    for (name, bytes) in &written.files {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(|e| WriteError(format!("cannot write {}: {e}", p.display())))?;
    }
    std::fs::write(path, &written.text).map_err(|e| WriteError(format!("cannot write {}: {e}", path.display())))?;
    super::load(path).map_err(|e| WriteError(format!("the workload cannot be written as a trace: {e}")))?;
    Ok(())
}

/// Refuses names the loader would refuse: empty, holding control characters, or repeated
/// within their list.
fn check_names(w: &Workload) -> Result<(), WriteError> {
    let shaders = w.pipelines.iter().map(|p| p.0.as_str()).chain(graphics_shaders(w)?.into_iter().map(|(n, _)| n)).collect();
    let lists: [(&str, Vec<&str>); 12] = [
        ("memory object", w.memories.iter().map(|m| m.name.as_str()).collect()),
        ("buffer", w.buffers.iter().map(|b| b.name.as_str()).collect()),
        ("image", w.images.iter().map(|b| b.name.as_str()).collect()),
        ("shader", shaders),
        ("render pass", w.render_passes.iter().map(|r| r.name.as_str()).collect()),
        ("framebuffer", w.framebuffers.iter().map(|f| f.name.as_str()).collect()),
        ("pipeline", w.graphics_pipelines.iter().map(|p| p.name.as_str()).collect()),
        ("event", w.events.iter().map(String::as_str).collect()),
        ("semaphore", w.semaphores.iter().map(String::as_str).collect()),
        ("fence", w.fences.iter().map(String::as_str).collect()),
        ("queue", w.queues.iter().map(String::as_str).collect()),
        ("command buffer", w.command_buffers.iter().map(|c| c.name.as_str()).collect()),
    ];
    for (what, names) in lists {
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() || n.chars().any(char::is_control) {
                return Err(WriteError(format!("{what} {i} has the name {n:?}, which a trace cannot hold (ids are non-empty, without control characters)")));
            }
            if names[..i].contains(n) {
                return Err(WriteError(format!("two {what}s are named `{n}`: a trace's ids are unique within their list")));
            }
        }
    }
    if w.name.chars().any(char::is_control) {
        return Err(WriteError(format!("the workload's name {:?} holds control characters, which a trace cannot hold", w.name)));
    }
    Ok(())
}

/// The four masks of a synchronization2 barrier.
fn masks2(b: &MemoryBarrier2) -> Vec<(&'static str, J)> {
    vec![
        ("src_stage_mask", J::s(b.src_stage_mask.to_string())),
        ("src_access_mask", J::s(b.src_access_mask.to_string())),
        ("dst_stage_mask", J::s(b.dst_stage_mask.to_string())),
        ("dst_access_mask", J::s(b.dst_access_mask.to_string())),
    ]
}

/// The barrier lists of `dep`, each barrier with its four masks (synchronization2), or with its
/// access masks alone when `sync1` (the stage masks go on the command).
fn barrier_lists(w: &Workload, dep: &DependencyInfo, sync1: bool) -> Vec<(&'static str, J)> {
    let masks = |b: &MemoryBarrier2| if sync1 { vec![("src_access_mask", J::s(b.src_access_mask.to_string())), ("dst_access_mask", J::s(b.dst_access_mask.to_string()))] } else { masks2(b) };
    let mut out = Vec::new();
    if !dep.memory_barriers.is_empty() {
        out.push(("memory_barriers", J::Arr(dep.memory_barriers.iter().map(|b| J::Obj(masks(b))).collect())));
    }
    if !dep.buffer_memory_barriers.is_empty() {
        let list = dep
            .buffer_memory_barriers
            .iter()
            .map(|b| {
                let mut m = masks(&b.barrier);
                m.extend([("buffer", J::s(w.buffers[b.buffer].name.as_str())), ("offset", J::Num(b.offset)), ("size", size(b.size))]);
                J::Obj(m)
            })
            .collect();
        out.push(("buffer_memory_barriers", J::Arr(list)));
    }
    if !dep.image_memory_barriers.is_empty() {
        let list = dep
            .image_memory_barriers
            .iter()
            .map(|b| {
                let mut m = masks(&b.barrier);
                m.extend([
                    ("old_layout", J::s(b.old_layout.as_str())),
                    ("new_layout", J::s(b.new_layout.as_str())),
                    ("image", J::s(w.images[b.image].name.as_str())),
                    ("subresource_range", subresource_range(&b.range)),
                ]);
                J::Obj(m)
            })
            .collect();
        out.push(("image_memory_barriers", J::Arr(list)));
    }
    out
}

/// The aspect mask of a set of aspects (`COLOR`, `DEPTH|STENCIL`).
fn aspect_mask(aspects: [bool; 3]) -> J {
    let names: Vec<&str> = [sim_rop::Aspect::Color, sim_rop::Aspect::Depth, sim_rop::Aspect::Stencil].iter().filter(|a| aspects[**a as usize]).map(|a| a.vk_name()).collect();
    J::s(names.join("|"))
}

/// A VkImageSubresourceRange.
fn subresource_range(r: &sim_rop::SubresourceRange) -> J {
    J::Obj(vec![
        ("aspect_mask", aspect_mask(r.aspects)),
        ("base_mip_level", J::Num(u64::from(r.base_mip_level))),
        ("level_count", J::Num(u64::from(r.level_count))),
        ("base_array_layer", J::Num(u64::from(r.base_array_layer))),
        ("layer_count", J::Num(u64::from(r.layer_count))),
    ])
}

/// A VkSamplerCreateInfo: every field, so the trace says what it samples with.
fn sampler(s: &crate::api::SamplerDesc) -> J {
    let v = &s.sampler;
    J::Obj(vec![
        ("id", J::s(s.name.as_str())),
        ("mag_filter", J::s(v.mag_filter.vk_name())),
        ("min_filter", J::s(v.min_filter.vk_name())),
        ("mipmap_mode", J::s(v.mipmap_mode.vk_name())),
        ("address_mode_u", J::s(v.address_mode[0].vk_name())),
        ("address_mode_v", J::s(v.address_mode[1].vk_name())),
        ("address_mode_w", J::s(v.address_mode[2].vk_name())),
        ("mip_lod_bias", J::Float(v.mip_lod_bias)),
        ("min_lod", J::Float(v.min_lod)),
        ("max_lod", J::Float(v.max_lod)),
        ("border_color", J::s(v.border_color.vk_name())),
    ])
}

/// A VkImageSubresourceLayers.
fn subresource_layers(s: &crate::api::SubresourceLayers) -> J {
    J::Obj(vec![
        ("aspect_mask", aspect_mask(s.range().aspects)),
        ("mip_level", J::Num(u64::from(s.mip_level))),
        ("base_array_layer", J::Num(u64::from(s.base_array_layer))),
        ("layer_count", J::Num(u64::from(s.layer_count))),
    ])
}

/// A VkImageCopy.
fn image_copy_region(r: &crate::api::ImageCopy) -> J {
    let xyz = |v: &[u32; 3]| J::Arr(v.iter().map(|&x| J::Num(u64::from(x))).collect());
    J::Obj(vec![
        ("src_subresource", subresource_layers(&r.src_subresource)),
        ("src_offset", xyz(&r.src_offset)),
        ("dst_subresource", subresource_layers(&r.dst_subresource)),
        ("dst_offset", xyz(&r.dst_offset)),
        ("extent", xyz(&r.extent)),
    ])
}

/// A VkBufferImageCopy.
fn buffer_image_region(r: &crate::api::BufferImageCopy) -> J {
    let xyz = |v: &[u32; 3]| J::Arr(v.iter().map(|&x| J::Num(u64::from(x))).collect());
    J::Obj(vec![
        ("buffer_offset", J::Num(r.buffer_offset)),
        ("buffer_row_length", J::Num(u64::from(r.buffer_row_length))),
        ("buffer_image_height", J::Num(u64::from(r.buffer_image_height))),
        ("image_subresource", subresource_layers(&r.subresource)),
        ("image_offset", xyz(&r.image_offset)),
        ("image_extent", xyz(&r.image_extent)),
    ])
}

/// The command-level stage masks of a dependency recorded in the synchronization1 shape, when it
/// can be written in it: every barrier has the same two stage masks, of 32-bit stages and
/// accesses (what vkCmdPipelineBarrier and vkCmdWaitEvents take).
fn sync1_stages(dep: &DependencyInfo) -> Option<(S, S)> {
    if !dep.sync1 {
        return None;
    }
    let all: Vec<&MemoryBarrier2> = dep.barriers().collect();
    let first = all.first()?;
    let narrow = |b: &MemoryBarrier2| [b.src_stage_mask.bits(), b.dst_stage_mask.bits(), b.src_access_mask.bits(), b.dst_access_mask.bits()].iter().all(|&x| x <= 0xffff_ffff);
    all.iter().all(|b| b.src_stage_mask == first.src_stage_mask && b.dst_stage_mask == first.dst_stage_mask && narrow(b)).then_some((first.src_stage_mask, first.dst_stage_mask))
}

/// The members of a synchronization command holding `dep`: the synchronization1 shape's stage
/// masks and barriers (leaving out the one barrier without access masks an execution-only
/// dependency is made of), or the synchronization2 shape's barriers.
fn dependency_members(w: &Workload, dep: &DependencyInfo) -> Vec<(&'static str, J)> {
    match sync1_stages(dep) {
        Some((src, dst)) => {
            let mut out = vec![("src_stage_mask", J::s(src.to_string())), ("dst_stage_mask", J::s(dst.to_string()))];
            let execution_only = dep.buffer_memory_barriers.is_empty() && dep.image_memory_barriers.is_empty() && dep.memory_barriers.len() == 1 && dep.memory_barriers[0].src_access_mask.is_empty() && dep.memory_barriers[0].dst_access_mask.is_empty();
            if !execution_only {
                out.extend(barrier_lists(w, dep, true));
            }
            out
        }
        None => barrier_lists(w, dep, false),
    }
}

fn command(w: &Workload, c: &Command, buf: &dyn Fn(usize) -> J) -> J {
    let cmd = |name: &str| ("cmd", J::s(name));
    match c {
        Command::BeginRenderPass { render_pass, framebuffer, render_area, clear_values } => {
            // Up to the last value given: the loader needs no more, and pads with none.
            let n = clear_values.iter().rposition(Option::is_some).map_or(0, |k| k + 1);
            let values = clear_values[..n].iter().map(|v| v.as_ref().map_or(J::Null, clear_value)).collect();
            members(vec![
                ("cmd", Some(J::s("begin_render_pass"))),
                ("render_pass", Some(J::s(w.render_passes[*render_pass].name.as_str()))),
                ("framebuffer", Some(J::s(w.framebuffers[*framebuffer].name.as_str()))),
                ("render_area", Some(rect(render_area))),
                ("clear_values", (n > 0).then_some(J::Arr(values))),
            ])
        }
        Command::NextSubpass => J::Obj(vec![cmd("next_subpass")]),
        Command::EndRenderPass => J::Obj(vec![cmd("end_render_pass")]),
        Command::BeginRendering(info) => members(vec![
            ("cmd", Some(J::s("begin_rendering"))),
            ("render_area", Some(rect(&info.render_area))),
            ("layer_count", Some(J::Num(u64::from(info.layer_count)))),
            ("color_attachments", (!info.color_attachments.is_empty()).then(|| J::Arr(info.color_attachments.iter().map(|a| a.as_ref().map_or(J::Null, |a| rendering_attachment(w, a))).collect()))),
            ("depth_attachment", info.depth_attachment.as_ref().map(|a| rendering_attachment(w, a))),
            ("stencil_attachment", info.stencil_attachment.as_ref().map(|a| rendering_attachment(w, a))),
        ]),
        Command::EndRendering => J::Obj(vec![cmd("end_rendering")]),
        Command::BindVertexBuffers { first_binding, buffers } => J::Obj(vec![
            cmd("bind_vertex_buffers"),
            ("first_binding", J::Num(u64::from(*first_binding))),
            ("buffers", J::Arr(buffers.iter().map(|(b, _)| buf(*b)).collect())),
            ("offsets", J::Arr(buffers.iter().map(|(_, o)| J::Num(*o)).collect())),
        ]),
        Command::BindIndexBuffer { buffer, offset, index_type } => J::Obj(vec![
            cmd("bind_index_buffer"),
            ("buffer", buf(*buffer)),
            ("offset", J::Num(*offset)),
            ("index_type", J::s(match index_type {
                crate::fixed_function::IndexType::Uint16 => "UINT16",
                crate::fixed_function::IndexType::Uint32 => "UINT32",
            })),
        ]),
        Command::SetViewport(v) => J::Obj(vec![
            cmd("set_viewport"),
            (
                "viewport",
                J::Obj(vec![("x", J::Float(v.x)), ("y", J::Float(v.y)), ("width", J::Float(v.width)), ("height", J::Float(v.height)), ("min_depth", J::Float(v.min_depth)), ("max_depth", J::Float(v.max_depth))]),
            ),
        ]),
        Command::SetScissor(r) => J::Obj(vec![cmd("set_scissor"), ("scissor", rect(r))]),
        Command::Draw { pipeline, kind, bindings, push_constants, images } => {
            use crate::api::DrawKind;
            let n = |v: u32| Some(J::Num(u64::from(v)));
            let mut m = vec![("cmd", None), ("pipeline", Some(J::s(w.graphics_pipelines[*pipeline].name.as_str())))];
            m[0].1 = Some(J::s(match kind {
                DrawKind::Direct { .. } => "draw",
                DrawKind::Indexed { .. } => "draw_indexed",
                DrawKind::Indirect { indexed: false, .. } => "draw_indirect",
                DrawKind::Indirect { indexed: true, .. } => "draw_indexed_indirect",
            }));
            match *kind {
                DrawKind::Direct { vertex_count, instance_count, first_vertex, first_instance } => {
                    m.extend([("vertex_count", n(vertex_count)), ("instance_count", n(instance_count)), ("first_vertex", n(first_vertex)), ("first_instance", n(first_instance))]);
                }
                DrawKind::Indexed { index_count, instance_count, first_index, vertex_offset, first_instance } => m.extend([
                    ("index_count", n(index_count)),
                    ("instance_count", n(instance_count)),
                    ("first_index", n(first_index)),
                    ("vertex_offset", Some(J::Int(i64::from(vertex_offset)))),
                    ("first_instance", n(first_instance)),
                ]),
                DrawKind::Indirect { buffer, offset, draw_count, stride, .. } => {
                    m.extend([("buffer", Some(buf(buffer))), ("offset", Some(J::Num(offset))), ("draw_count", n(draw_count)), ("stride", n(stride))]);
                }
            }
            let (pk, pv) = payload("push_constants", push_constants);
            m.extend([("bindings", Some(descriptors(w, bindings, images, buf))), (pk, (!push_constants.is_empty()).then_some(pv))]);
            members(m)
        }
        Command::ClearAttachments { attachments, rects } => {
            use crate::api::ClearAttachment;
            let attachments = attachments
                .iter()
                .map(|a| match a {
                    ClearAttachment::Color { attachment, value } => J::Obj(vec![("aspect_mask", J::s("COLOR")), ("color_attachment", J::Num(u64::from(*attachment))), ("clear_value", clear_value(value))]),
                    ClearAttachment::DepthStencil { depth, stencil, value } => {
                        J::Obj(vec![("aspect_mask", aspect_mask([false, *depth, *stencil])), ("clear_value", clear_value(value))])
                    }
                })
                .collect();
            let rects = rects
                .iter()
                .map(|r| J::Obj(vec![("rect", rect(&r.rect)), ("base_array_layer", J::Num(u64::from(r.base_array_layer))), ("layer_count", J::Num(u64::from(r.layer_count)))]))
                .collect();
            J::Obj(vec![cmd("clear_attachments"), ("attachments", J::Arr(attachments)), ("rects", J::Arr(rects))])
        }
        Command::FillBuffer { dst, offset, size: s, data } => J::Obj(vec![cmd("fill_buffer"), ("dst_buffer", buf(*dst)), ("dst_offset", J::Num(*offset)), ("size", size(*s)), ("data", J::Num(*data as u64))]),
        Command::UpdateBuffer { dst, offset, data } => J::Obj(vec![cmd("update_buffer"), ("dst_buffer", buf(*dst)), ("dst_offset", J::Num(*offset)), payload("data", data)]),
        Command::CopyBuffer { src, dst, regions } => J::Obj(vec![
            cmd("copy_buffer"),
            ("src_buffer", buf(*src)),
            ("dst_buffer", buf(*dst)),
            ("regions", J::Arr(regions.iter().map(|r| J::Obj(vec![("src_offset", J::Num(r.src_offset)), ("dst_offset", J::Num(r.dst_offset)), ("size", J::Num(r.size))])).collect())),
        ]),
        Command::CopyBufferToImage { src, dst, dst_layout, regions } => J::Obj(vec![
            cmd("copy_buffer_to_image"),
            ("src_buffer", buf(*src)),
            ("dst_image", J::s(w.images[*dst].name.as_str())),
            ("dst_image_layout", J::s(dst_layout.as_str())),
            ("regions", J::Arr(regions.iter().map(buffer_image_region).collect())),
        ]),
        Command::CopyImage { src, src_layout, dst, dst_layout, regions } => J::Obj(vec![
            cmd("copy_image"),
            ("src_image", J::s(w.images[*src].name.as_str())),
            ("src_image_layout", J::s(src_layout.as_str())),
            ("dst_image", J::s(w.images[*dst].name.as_str())),
            ("dst_image_layout", J::s(dst_layout.as_str())),
            ("regions", J::Arr(regions.iter().map(image_copy_region).collect())),
        ]),
        Command::BlitImage { src, src_layout, dst, dst_layout, regions, filter } => {
            let corners = |o: &[[u32; 3]; 2]| J::Arr(o.iter().map(|c| J::Arr(c.iter().map(|&v| J::Num(u64::from(v))).collect())).collect());
            J::Obj(vec![
                cmd("blit_image"),
                ("src_image", J::s(w.images[*src].name.as_str())),
                ("src_image_layout", J::s(src_layout.as_str())),
                ("dst_image", J::s(w.images[*dst].name.as_str())),
                ("dst_image_layout", J::s(dst_layout.as_str())),
                (
                    "regions",
                    J::Arr(
                        regions
                            .iter()
                            .map(|r| J::Obj(vec![("src_subresource", subresource_layers(&r.src_subresource)), ("src_offsets", corners(&r.src_offsets)), ("dst_subresource", subresource_layers(&r.dst_subresource)), ("dst_offsets", corners(&r.dst_offsets))]))
                            .collect(),
                    ),
                ),
                ("filter", J::s(filter.vk_name())),
            ])
        }
        Command::CopyImageToBuffer { src, src_layout, dst, regions } => J::Obj(vec![
            cmd("copy_image_to_buffer"),
            ("src_image", J::s(w.images[*src].name.as_str())),
            ("src_image_layout", J::s(src_layout.as_str())),
            ("dst_buffer", buf(*dst)),
            ("regions", J::Arr(regions.iter().map(buffer_image_region).collect())),
        ]),
        Command::ClearColorImage { image, layout, texel, ranges } => {
            // The texel written back as the colour that encodes to it: its channels as uint32
            // for an integer format, else as the float32 values its bytes decode to.
            let format = w.images[*image].layout.desc.format;
            let color = match format.decode(sim_rop::Aspect::Color, texel) {
                sim_rop::Texel::Uint(u) => J::Obj(vec![("uint32", J::Arr(u.iter().map(|&x| J::Num(u64::from(x))).collect()))]),
                sim_rop::Texel::Float(f) => J::Obj(vec![("float32", J::Arr(f.iter().map(|&x| J::Float(x)).collect()))]),
                sim_rop::Texel::Stencil(v) => J::Obj(vec![("uint32", J::Arr(vec![J::Num(u64::from(v)), J::Num(0), J::Num(0), J::Num(0)]))]),
            };
            J::Obj(vec![
                cmd("clear_color_image"),
                ("image", J::s(w.images[*image].name.as_str())),
                ("image_layout", J::s(layout.as_str())),
                ("color", color),
                ("ranges", J::Arr(ranges.iter().map(subresource_range).collect())),
            ])
        }
        Command::ClearDepthStencilImage { image, layout, depth, stencil, ranges } => J::Obj(vec![
            cmd("clear_depth_stencil_image"),
            ("image", J::s(w.images[*image].name.as_str())),
            ("image_layout", J::s(layout.as_str())),
            ("depth_stencil", J::Obj(vec![("depth", J::Float(*depth)), ("stencil", J::Num(u64::from(*stencil)))])),
            ("ranges", J::Arr(ranges.iter().map(subresource_range).collect())),
        ]),
        Command::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images } => {
            let xyz = |v: &[u32; 3]| J::Arr(v.iter().map(|&x| J::Num(x as u64)).collect());
            let (pk, pv) = payload("push_constants", push_constants);
            members(vec![
                ("cmd", Some(J::s("dispatch"))),
                ("shader", Some(J::s(w.pipelines[*pipeline].0.as_str()))),
                ("group_count", Some(xyz(group_count))),
                ("base_group", (*base_group != [0; 3]).then(|| xyz(base_group))),
                ("bindings", Some(descriptors(w, bindings, images, buf))),
                (pk, (!push_constants.is_empty()).then_some(pv)),
            ])
        }
        Command::PipelineBarrier(dep) => {
            let mut m = vec![cmd("pipeline_barrier")];
            m.extend(dependency_members(w, dep));
            J::Obj(m)
        }
        Command::SetEvent { event, dependency } => {
            let ev = ("event", J::s(w.events[*event].as_str()));
            // vkCmdSetEvent: its stage mask alone.
            let stage_only = dependency.sync1 && dependency.buffer_memory_barriers.is_empty() && dependency.image_memory_barriers.is_empty() && matches!(dependency.memory_barriers.as_slice(), [b] if b.src_access_mask.is_empty() && b.dst_stage_mask.is_empty() && b.dst_access_mask.is_empty() && b.src_stage_mask.bits() <= 0xffff_ffff);
            if stage_only {
                J::Obj(vec![cmd("set_event"), ev, ("stage_mask", J::s(dependency.memory_barriers[0].src_stage_mask.to_string()))])
            } else {
                J::Obj(vec![cmd("set_event"), ev, ("dependency", J::Obj(barrier_lists(w, dependency, false)))])
            }
        }
        Command::WaitEvents { events, dependency } => {
            let mut m = vec![cmd("wait_events"), ("events", J::Arr(events.iter().map(|&e| J::s(w.events[e].as_str())).collect()))];
            if sync1_stages(dependency).is_some() {
                m.extend(dependency_members(w, dependency));
            } else {
                // One dependency per event: the parts the trace gave, or all of it for the first.
                let mut parts = Vec::new();
                let (mut mi, mut bi, mut ii) = (0, 0, 0);
                for k in 0..events.len() {
                    let (nm, nb, ni) = match dependency.per_event.get(k) {
                        Some(&p) if dependency.per_event.len() == events.len() => p,
                        _ if k == 0 => (dependency.memory_barriers.len(), dependency.buffer_memory_barriers.len(), dependency.image_memory_barriers.len()),
                        _ => (0, 0, 0),
                    };
                    let part = DependencyInfo {
                        memory_barriers: dependency.memory_barriers[mi..(mi + nm).min(dependency.memory_barriers.len())].to_vec(),
                        buffer_memory_barriers: dependency.buffer_memory_barriers[bi..(bi + nb).min(dependency.buffer_memory_barriers.len())].to_vec(),
                        image_memory_barriers: dependency.image_memory_barriers[ii..(ii + ni).min(dependency.image_memory_barriers.len())].to_vec(),
                        ..DependencyInfo::default()
                    };
                    (mi, bi, ii) = (mi + nm, bi + nb, ii + ni);
                    parts.push(J::Obj(barrier_lists(w, &part, false)));
                }
                m.push(("dependencies", J::Arr(parts)));
            }
            J::Obj(m)
        }
        Command::ResetEvent { event, stage_mask } => J::Obj(vec![cmd("reset_event"), ("event", J::s(w.events[*event].as_str())), ("stage_mask", J::s(stage_mask.to_string()))]),
    }
}

/// The `bindings` of a dispatch or draw: its buffer descriptors, then its image and sampler
/// descriptors.
fn descriptors(w: &Workload, bindings: &[BufferBinding], images: &[ImageDescriptor], buf: &dyn Fn(usize) -> J) -> J {
    let mut out: Vec<J> = bindings
        .iter()
        .map(|b| members(vec![("set", Some(J::Num(b.set as u64))), ("binding", Some(J::Num(b.binding as u64))), ("buffer", Some(buf(b.buffer))), ("offset", (b.offset != 0).then_some(J::Num(b.offset))), ("range", b.range.map(J::Num))]))
        .collect();
    out.extend(images.iter().map(|d| {
        members(vec![
            ("set", Some(J::Num(u64::from(d.set)))),
            ("binding", Some(J::Num(u64::from(d.binding)))),
            ("descriptor_type", Some(J::s(d.descriptor_type.vk_name()))),
            ("image", d.image.map(|i| J::s(w.images[i].name.as_str()))),
            ("layout", d.image.map(|_| J::s(d.layout.as_str()))),
            ("subresource_range", d.image.map(|_| subresource_range(&d.range))),
            ("sampler", d.sampler.map(|s| J::s(w.samplers[s].name.as_str()))),
        ])
    }));
    J::Arr(out)
}

/// A file name for the SPIR-V of shader `name` (its id, made safe, not taken by another
/// file), with the words added to `files`.
fn spirv_file(files: &mut Vec<(String, Vec<u8>)>, stem: &str, name: &str, words: &[u32]) -> String {
    let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    let mut file = format!("{stem}.{safe}.spv");
    let mut n = 1;
    while files.iter().any(|(f, _)| *f == file) {
        n += 1;
        file = format!("{stem}.{safe}-{n}.spv");
    }
    files.push((file.clone(), words.iter().flat_map(|x| x.to_le_bytes()).collect()));
    file
}

/// The vertex and fragment shaders the graphics pipelines name, each id once, in the order
/// the pipelines first name them. One id naming two different shaders cannot be written.
fn graphics_shaders(w: &Workload) -> Result<Vec<(&str, &GraphicsShader)>, WriteError> {
    let mut out: Vec<(&str, &GraphicsShader)> = Vec::new();
    for p in &w.graphics_pipelines {
        let stages = std::iter::once((p.vertex_shader.as_str(), &*p.vertex)).chain(p.fragment_shader.as_deref().zip(p.fragment.as_deref()));
        for (name, shader) in stages {
            match out.iter().find(|(n, _)| *n == name) {
                Some((_, s)) if s.stage() != shader.stage() || s.entry_point() != shader.entry_point() => {
                    return Err(WriteError(format!("two different shaders are named `{name}`: a trace's ids are unique within their list")));
                }
                Some(_) => {}
                None => out.push((name, shader)),
            }
        }
    }
    Ok(out)
}

fn load_op(op: LoadOp) -> J {
    J::s(match op {
        LoadOp::Load => "LOAD",
        LoadOp::Clear => "CLEAR",
        LoadOp::DontCare => "DONT_CARE",
        LoadOp::None => "NONE",
    })
}

fn store_op(op: StoreOp) -> J {
    J::s(match op {
        StoreOp::Store => "STORE",
        StoreOp::DontCare => "DONT_CARE",
        StoreOp::None => "NONE",
    })
}

/// A `VkRect2D`.
fn rect(r: &crate::fixed_function::Rect2D) -> J {
    J::Obj(vec![("offset", J::Arr(vec![J::Int(i64::from(r.x)), J::Int(i64::from(r.y))])), ("extent", J::Arr(vec![J::Num(u64::from(r.width)), J::Num(u64::from(r.height))]))])
}

/// A clear value in its long form.
fn clear_value(v: &sim_rop::ClearValue) -> J {
    let color = |key: &'static str, values: Vec<J>| J::Obj(vec![("color", J::Obj(vec![(key, J::Arr(values))]))]);
    match *v {
        sim_rop::ClearValue::Float(f) => color("float32", f.iter().map(|&x| J::Float(x)).collect()),
        sim_rop::ClearValue::Uint(u) => color("uint32", u.iter().map(|&x| J::Num(u64::from(x))).collect()),
        sim_rop::ClearValue::Int(i) => color("int32", i.iter().map(|&x| J::Int(i64::from(x))).collect()),
        sim_rop::ClearValue::DepthStencil { depth, stencil } => J::Obj(vec![("depth_stencil", J::Obj(vec![("depth", J::Float(depth)), ("stencil", J::Num(u64::from(stencil)))]))]),
    }
}

/// An attachment's view: the image's id when it is level 0 and layer 0 alone, else the object.
fn attachment_view(w: &Workload, v: &AttachmentView) -> J {
    let image = J::s(w.images[v.image].name.as_str());
    if v.level == 0 && v.base_layer == 0 && v.layer_count == 1 {
        return image;
    }
    J::Obj(vec![("image", image), ("mip_level", J::Num(u64::from(v.level))), ("base_array_layer", J::Num(u64::from(v.base_layer))), ("layer_count", J::Num(u64::from(v.layer_count)))])
}

/// A `VkRenderingAttachmentInfo`.
fn rendering_attachment(w: &Workload, a: &RenderingAttachment) -> J {
    members(vec![
        ("image", Some(attachment_view(w, &a.view))),
        ("image_layout", Some(J::s(a.layout.as_str()))),
        ("load_op", Some(load_op(a.load_op))),
        ("store_op", Some(store_op(a.store_op))),
        ("clear_value", a.clear_value.as_ref().map(clear_value)),
    ])
}

/// A `VkRenderPass`: every field, the optional ones too, so the trace says what it does.
fn render_pass(rp: &RenderPassDesc) -> J {
    let attachments = rp
        .attachments
        .iter()
        .map(|a| {
            J::Obj(vec![
                ("format", J::s(a.format.name())),
                ("samples", J::Num(u64::from(a.samples))),
                ("load_op", load_op(a.load_op)),
                ("store_op", store_op(a.store_op)),
                ("stencil_load_op", load_op(a.stencil_load_op)),
                ("stencil_store_op", store_op(a.stencil_store_op)),
                ("initial_layout", J::s(a.initial_layout.as_str())),
                ("final_layout", J::s(a.final_layout.as_str())),
            ])
        })
        .collect();
    let reference = |r: &Option<crate::api::AttachmentReference>| match r {
        Some(r) => J::Obj(vec![("attachment", J::Num(u64::from(r.attachment))), ("layout", J::s(r.layout.as_str()))]),
        None => J::Obj(vec![("attachment", J::s("UNUSED"))]),
    };
    let subpasses = rp
        .subpasses
        .iter()
        .map(|s| {
            members(vec![
                ("color_attachments", Some(J::Arr(s.color_attachments.iter().map(reference).collect()))),
                ("depth_stencil_attachment", s.depth_stencil_attachment.as_ref().map(|r| reference(&Some(r.clone())))),
                ("input_attachments", (!s.input_attachments.is_empty()).then(|| J::Arr(s.input_attachments.iter().map(reference).collect()))),
                ("preserve_attachments", (!s.preserve_attachments.is_empty()).then(|| J::Arr(s.preserve_attachments.iter().map(|&a| J::Num(u64::from(a))).collect()))),
            ])
        })
        .collect();
    let subpass = |s: SubpassRef| match s {
        SubpassRef::External => J::s("EXTERNAL"),
        SubpassRef::Index(i) => J::Num(u64::from(i)),
    };
    let dependencies = rp
        .dependencies
        .iter()
        .map(|d| {
            members(vec![
                ("src_subpass", Some(subpass(d.src_subpass))),
                ("dst_subpass", Some(subpass(d.dst_subpass))),
                ("src_stage_mask", Some(J::s(d.src_stage_mask.to_string()))),
                ("src_access_mask", Some(J::s(d.src_access_mask.to_string()))),
                ("dst_stage_mask", Some(J::s(d.dst_stage_mask.to_string()))),
                ("dst_access_mask", Some(J::s(d.dst_access_mask.to_string()))),
                ("dependency_flags", d.by_region.then(|| J::s("BY_REGION"))),
            ])
        })
        .collect();
    members(vec![
        ("id", Some(J::s(rp.name.as_str()))),
        ("attachments", Some(J::Arr(attachments))),
        ("subpasses", Some(J::Arr(subpasses))),
        ("dependencies", (!rp.dependencies.is_empty()).then_some(J::Arr(dependencies))),
    ])
}

/// A `VkFramebuffer`.
fn framebuffer(w: &Workload, f: &FramebufferDesc) -> J {
    J::Obj(vec![
        ("id", J::s(f.name.as_str())),
        ("render_pass", J::s(w.render_passes[f.render_pass].name.as_str())),
        ("attachments", J::Arr(f.attachments.iter().map(|v| attachment_view(w, v)).collect())),
        ("width", J::Num(u64::from(f.width))),
        ("height", J::Num(u64::from(f.height))),
        ("layers", J::Num(u64::from(f.layers))),
    ])
}

fn blend_factor(f: BlendFactor) -> J {
    J::s(match f {
        BlendFactor::Zero => "ZERO",
        BlendFactor::One => "ONE",
        BlendFactor::SrcColor => "SRC_COLOR",
        BlendFactor::OneMinusSrcColor => "ONE_MINUS_SRC_COLOR",
        BlendFactor::DstColor => "DST_COLOR",
        BlendFactor::OneMinusDstColor => "ONE_MINUS_DST_COLOR",
        BlendFactor::SrcAlpha => "SRC_ALPHA",
        BlendFactor::OneMinusSrcAlpha => "ONE_MINUS_SRC_ALPHA",
        BlendFactor::DstAlpha => "DST_ALPHA",
        BlendFactor::OneMinusDstAlpha => "ONE_MINUS_DST_ALPHA",
        BlendFactor::ConstantColor => "CONSTANT_COLOR",
        BlendFactor::OneMinusConstantColor => "ONE_MINUS_CONSTANT_COLOR",
        BlendFactor::ConstantAlpha => "CONSTANT_ALPHA",
        BlendFactor::OneMinusConstantAlpha => "ONE_MINUS_CONSTANT_ALPHA",
        BlendFactor::SrcAlphaSaturate => "SRC_ALPHA_SATURATE",
    })
}

fn blend_op(o: BlendOp) -> J {
    J::s(match o {
        BlendOp::Add => "ADD",
        BlendOp::Subtract => "SUBTRACT",
        BlendOp::ReverseSubtract => "REVERSE_SUBTRACT",
        BlendOp::Min => "MIN",
        BlendOp::Max => "MAX",
    })
}

fn compare_op(c: CompareOp) -> J {
    J::s(match c {
        CompareOp::Never => "NEVER",
        CompareOp::Less => "LESS",
        CompareOp::Equal => "EQUAL",
        CompareOp::LessOrEqual => "LESS_OR_EQUAL",
        CompareOp::Greater => "GREATER",
        CompareOp::NotEqual => "NOT_EQUAL",
        CompareOp::GreaterOrEqual => "GREATER_OR_EQUAL",
        CompareOp::Always => "ALWAYS",
    })
}

/// A graphics pipeline: every state it has, the defaults too, so the trace says what it does.
fn graphics_pipeline(w: &Workload, p: &GraphicsPipelineDesc) -> J {
    use crate::fixed_function::{CullMode, FrontFace, PrimitiveTopology, VertexInputRate};
    let vi = &p.vertex_input;
    let vertex_input = (!vi.bindings().is_empty() || !vi.attributes().is_empty()).then(|| {
        let bindings = vi
            .bindings()
            .iter()
            .map(|b| J::Obj(vec![("binding", J::Num(u64::from(b.binding))), ("stride", J::Num(u64::from(b.stride))), ("input_rate", J::s(if b.input_rate == VertexInputRate::Instance { "INSTANCE" } else { "VERTEX" }))]))
            .collect();
        let attributes = vi
            .attributes()
            .iter()
            .map(|a| J::Obj(vec![("location", J::Num(u64::from(a.location))), ("binding", J::Num(u64::from(a.binding))), ("format", J::s(a.format.name())), ("offset", J::Num(u64::from(a.offset)))]))
            .collect();
        J::Obj(vec![("bindings", J::Arr(bindings)), ("attributes", J::Arr(attributes))])
    });
    let topology = match p.topology {
        PrimitiveTopology::PointList => "POINT_LIST",
        PrimitiveTopology::LineList => "LINE_LIST",
        PrimitiveTopology::TriangleList => "TRIANGLE_LIST",
        PrimitiveTopology::TriangleStrip => "TRIANGLE_STRIP",
        PrimitiveTopology::TriangleFan => "TRIANGLE_FAN",
    };
    let cull = match p.raster.cull_mode {
        CullMode::None => "NONE",
        CullMode::Front => "FRONT",
        CullMode::Back => "BACK",
        CullMode::FrontAndBack => "FRONT_AND_BACK",
    };
    let front = if p.raster.front_face == FrontFace::Clockwise { "CLOCKWISE" } else { "COUNTER_CLOCKWISE" };
    let ds = &p.depth_stencil;
    let blends = p
        .blend
        .iter()
        .map(|b| {
            let names: Vec<&str> = ["R", "G", "B", "A"].iter().enumerate().filter(|(k, _)| b.write_mask & (1 << k) != 0).map(|(_, n)| *n).collect();
            let mut m = vec![("blend_enable", J::Bool(b.enable)), ("color_write_mask", J::s(if names.is_empty() { "NONE".to_string() } else { names.join("|") }))];
            // The factors when they mean something, or when they are not the defaults (kept
            // for a workload that sets them with blending off).
            let r = sim_rop::fragment::BlendState::REPLACE;
            if b.enable || (b.src_color, b.dst_color, b.color_op, b.src_alpha, b.dst_alpha, b.alpha_op) != (r.src_color, r.dst_color, r.color_op, r.src_alpha, r.dst_alpha, r.alpha_op) {
                m.extend([
                    ("src_color_blend_factor", blend_factor(b.src_color)),
                    ("dst_color_blend_factor", blend_factor(b.dst_color)),
                    ("color_blend_op", blend_op(b.color_op)),
                    ("src_alpha_blend_factor", blend_factor(b.src_alpha)),
                    ("dst_alpha_blend_factor", blend_factor(b.dst_alpha)),
                    ("alpha_blend_op", blend_op(b.alpha_op)),
                ]);
            }
            J::Obj(m)
        })
        .collect();
    let mut m = vec![
        ("id", Some(J::s(p.name.as_str()))),
        ("type", Some(J::s("GRAPHICS"))),
        ("vertex_shader", Some(J::s(p.vertex_shader.as_str()))),
        ("fragment_shader", p.fragment_shader.as_deref().map(J::s)),
        ("vertex_input", vertex_input),
        ("topology", Some(J::s(topology))),
        ("rasterization", Some(J::Obj(vec![("polygon_mode", J::s("FILL")), ("cull_mode", J::s(cull)), ("front_face", J::s(front))]))),
        (
            "depth_stencil",
            Some(J::Obj(vec![
                ("depth_test_enable", J::Bool(ds.depth_test)),
                ("depth_write_enable", J::Bool(ds.depth_write)),
                ("depth_compare_op", compare_op(ds.depth_compare)),
                ("stencil_test_enable", J::Bool(ds.stencil_test)),
            ])),
        ),
        (
            "color_blend",
            Some(members(vec![("attachments", Some(J::Arr(blends))), ("blend_constants", (p.blend_constants != [0.0; 4]).then(|| J::Arr(p.blend_constants.iter().map(|&c| J::Float(c)).collect())))])),
        ),
    ];
    match &p.target {
        PipelineTarget::RenderPass { render_pass, subpass } => {
            m.extend([("render_pass", Some(J::s(w.render_passes[*render_pass].name.as_str()))), ("subpass", Some(J::Num(u64::from(*subpass))))]);
        }
        PipelineTarget::Rendering { color_formats, depth_format, stencil_format } => m.push((
            "rendering",
            Some(members(vec![
                ("color_attachment_formats", Some(J::Arr(color_formats.iter().map(|f| f.map_or(J::Null, |f| J::s(f.name()))).collect()))),
                ("depth_attachment_format", depth_format.map(|f| J::s(f.name()))),
                ("stencil_attachment_format", stencil_format.map(|f| J::s(f.name()))),
            ])),
        )),
    }
    members(m)
}

fn ranges(w: &Workload, rs: &[MappedRange]) -> J {
    J::Arr(rs.iter().map(|r| J::Obj(vec![("memory", J::s(w.memories[r.memory].name.as_str())), ("offset", J::Num(r.offset)), ("size", size(r.size))])).collect())
}

/// The members of one batch of a submission.
fn batch(w: &Workload, b: &SubmitBatch) -> Vec<(&'static str, Option<J>)> {
    let sems = |list: &[(usize, S)]| J::Arr(list.iter().map(|(s, m)| J::Obj(vec![("semaphore", J::s(w.semaphores[*s].as_str())), ("stage_mask", J::s(m.to_string()))])).collect());
    vec![
        ("command_buffers", Some(J::Arr(b.command_buffers.iter().map(|&c| J::s(w.command_buffers[c].name.as_str())).collect()))),
        ("wait_semaphores", (!b.wait_semaphores.is_empty()).then(|| sems(&b.wait_semaphores))),
        ("signal_semaphores", (!b.signal_semaphores.is_empty()).then(|| sems(&b.signal_semaphores))),
    ]
}

fn host_op(w: &Workload, op: &HostOp) -> J {
    let name = |n: &str| ("op", Some(J::s(n)));
    let mem = |m: usize| Some(J::s(w.memories[m].name.as_str()));
    let fences = |fs: &[usize]| Some(J::Arr(fs.iter().map(|&f| J::s(w.fences[f].as_str())).collect()));
    match op {
        HostOp::QueueSubmit { queue, batches, fence } => {
            let mut m = vec![name("queue_submit"), ("queue", Some(J::s(w.queues[*queue].as_str())))];
            match batches.as_slice() {
                [one] => m.extend(batch(w, one)),
                many => m.push(("batches", Some(J::Arr(many.iter().map(|b| members(batch(w, b))).collect())))),
            }
            m.push(("fence", fence.map(|f| J::s(w.fences[f].as_str()))));
            members(m)
        }
        HostOp::WaitForFences(fs) => members(vec![name("wait_for_fences"), ("fences", fences(fs))]),
        HostOp::ResetFences(fs) => members(vec![name("reset_fences"), ("fences", fences(fs))]),
        HostOp::QueueWaitIdle(q) => members(vec![name("queue_wait_idle"), ("queue", Some(J::s(w.queues[*q].as_str())))]),
        HostOp::DeviceWaitIdle => members(vec![name("device_wait_idle")]),
        HostOp::HostWrite { memory, offset, data } => {
            let (k, v) = payload("data", data);
            members(vec![name("host_write"), ("memory", mem(*memory)), ("offset", Some(J::Num(*offset))), (k, Some(v))])
        }
        HostOp::HostRead { memory, offset, size: n, label, expect } => {
            let mut m = vec![name("host_read"), ("memory", mem(*memory)), ("offset", Some(J::Num(*offset))), ("size", Some(J::Num(*n))), ("label", Some(J::s(label.as_str())))];
            if let Some(e) = expect {
                let (k, v) = payload("expect", e);
                m.push((k, Some(v)));
            }
            members(m)
        }
        HostOp::SetEvent(e) => members(vec![name("set_event"), ("event", Some(J::s(w.events[*e].as_str())))]),
        HostOp::FlushMappedMemoryRanges(rs) => members(vec![name("flush_mapped_memory_ranges"), ("ranges", Some(ranges(w, rs)))]),
        HostOp::InvalidateMappedMemoryRanges(rs) => members(vec![name("invalidate_mapped_memory_ranges"), ("ranges", Some(ranges(w, rs)))]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run_workload;
    use crate::generators::random::{build, build_weakened, random_ops, Weaken};
    use crate::profile::Profile;

    /// Loads a written trace (its files, if any, in a folder of their own).
    fn load(written: &WrittenTrace, tag: &str) -> crate::trace::LoadedTrace {
        if written.files.is_empty() {
            return crate::trace::load_str(&written.text, None).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
        }
        let dir = std::env::temp_dir().join(format!("gpusim-write-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &written.files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let t = crate::trace::load_str(&written.text, Some(&dir)).unwrap_or_else(|e| panic!("{e}\n{}", written.text));
        let _ = std::fs::remove_dir_all(&dir);
        t
    }

    /// The report of `w` on `profile` and `seed`, with its hazards: what must not change.
    fn report(w: &Workload, profile: &Profile, seed: u64) -> String {
        let r = run_workload(w, profile, seed).expect("runs");
        let hazards = crate::hazard::detect(w).expect("detects");
        format!("{}\n{}", serde_json::to_string(&r).unwrap(), serde_json::to_string(&hazards).unwrap())
    }

    /// Random programs, correctly synchronized and with barriers dropped or narrowed: each
    /// written and loaded back runs to the same report, byte for byte, and writes the same
    /// trace again.
    #[test]
    fn written_workloads_load_back_and_run_the_same() {
        let profiles = [Profile::builtin("seed-l2").unwrap(), Profile::builtin("seed-vram").unwrap()];
        let weakenings = [vec![Weaken::Keep], vec![Weaken::Drop, Weaken::Keep], vec![Weaken::NoSrcAccess], vec![Weaken::NoDstAccess, Weaken::Keep]];
        for i in 0..24u64 {
            let mut rng = crate::engine::rng::Rng::for_unit(11, &format!("write {i}"));
            let ops = random_ops(&mut rng, 1 + (i as usize % 10));
            let w = if i % 3 == 0 { build(&ops) } else { build_weakened(&ops, &weakenings[i as usize % weakenings.len()]) };
            let written = to_trace(&w, "t", None).unwrap();
            let back = load(&written, "random").workload;
            let profile = &profiles[i as usize % 2];
            assert_eq!(report(&back, profile, i), report(&w, profile, i), "program {i}: {ops:?}\n{}", written.text);
            assert_eq!(to_trace(&back, "t", None).unwrap(), written, "program {i}");
        }
    }

    /// The built-in sample workloads run the same written and loaded back.
    #[test]
    fn sample_workloads_survive_a_round_trip() {
        use crate::generators::samples;
        let profile = Profile::builtin("seed-l2").unwrap();
        for w in [samples::matmul(16).unwrap(), samples::stream(1 << 14).unwrap(), samples::gather(1 << 12, 256).unwrap()] {
            let written = to_trace(&w, "t", None).unwrap();
            let back = load(&written, &w.name).workload;
            assert_eq!(report(&back, &profile, 3), report(&w, &profile, 3), "{}", w.name);
        }
    }

    /// Every example trace and the validation layer's scenarios, loaded, written and loaded
    /// again, are the same workloads: each writes the same trace and runs to the same report
    /// (shaders from files come back inline, SPIR-V as files beside the trace;
    /// synchronization1 commands stay synchronization1, waits of several events keep one
    /// dependency per event).
    #[test]
    fn traces_survive_a_round_trip() {
        let profile = Profile::builtin("seed-vram").unwrap();
        let mut n = 0;
        for dir in ["../examples/traces", "../tests/corpus/syncval", "../tests/corpus/regressions"] {
            for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if !name.ends_with(".json") || name.ends_with(".expect.json") {
                    continue;
                }
                let t = crate::trace::load(&p).unwrap();
                let written = to_trace(&t.workload, "t", None).unwrap();
                let back = load(&written, &name).workload;
                assert_eq!(to_trace(&back, "t", None).unwrap(), written, "{name}");
                assert_eq!(report(&back, &profile, 0), report(&t.workload, &profile, 0), "{name}");
                n += 1;
            }
        }
        assert!(n >= 100, "{n} traces");
    }

    /// A name the format cannot hold is an error naming it, not a trace that fails to load.
    #[test]
    fn names_a_trace_cannot_hold_are_refused() {
        let mut w = Workload::new("w");
        let m = w.memory("m", 512, crate::api::workload::MemoryProperties::DEVICE_LOCAL);
        w.buffer("A", m, 0, 256);
        w.buffer("A", m, 256, 256);
        let e = to_trace(&w, "t", None).unwrap_err();
        assert!(e.0.contains("two buffers are named `A`"), "{e}");
        let mut w = Workload::new("w");
        w.device_buffer("line\nbreak", 256);
        assert!(to_trace(&w, "t", None).unwrap_err().0.contains("cannot hold"));
    }
}
