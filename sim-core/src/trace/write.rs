//! Writing a [`Workload`] as a version-1 trace (`docs/TRACE_FORMAT.md`): the inverse of
//! [`super::load`], so that a workload built in code (a random program `gpusim profile check`
//! shrank, a generated sample) can be run, checked, drawn and replayed like any trace.
//!
//! # What is written
//! Every object keeps its name as its id, in the workload's order, so the loaded trace numbers
//! everything as the workload does and runs to the same report. Synchronization commands keep
//! their shape: a dependency recorded in the synchronization1 shape is written in it (stage
//! masks on the command) when it can be, else in the synchronization2 one. Shaders are written
//! as they were given: WGSL and GLSL inline, a SPIR-V binary as a file beside the trace (the
//! format has no inline SPIR-V); [`WrittenTrace::files`] holds those. Payloads are written as
//! `u32` words when short and whole words, else as hex.
//!
//! The layout is for people: objects holding only scalars (a buffer, a region, a barrier) on
//! one line when short enough, everything else one member or item a line.

use std::path::Path;

use sim_shader::ShaderSource;

use crate::api::workload::{Command, DependencyInfo, HostOp, MappedRange, SubmitBatch, Workload};
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
            J::Obj(ms) => ms.iter().all(|(_, v)| matches!(v, J::Str(_) | J::Num(_) | J::Bool(_)) || matches!(v, J::Arr(a) if a.iter().all(|x| !matches!(x, J::Obj(_) | J::Arr(_))))),
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
            ShaderSource::Spirv(words) => {
                // A file name of the shader's id, made safe, and not taken by another.
                let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
                let mut file = format!("{stem}.{safe}.spv");
                let mut n = 1;
                while files.iter().any(|(f, _)| *f == file) {
                    n += 1;
                    file = format!("{stem}.{safe}-{n}.spv");
                }
                files.push((file.clone(), words.iter().flat_map(|x| x.to_le_bytes()).collect()));
                ("spirv_file", J::s(file))
            }
        };
        shaders.push(J::Obj(vec![("id", J::s(name.as_str())), ("stage", J::s("COMPUTE")), ("entry_point", J::s(p.entry_point())), source]));
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
    let lists: [(&str, Vec<&str>); 9] = [
        ("memory object", w.memories.iter().map(|m| m.name.as_str()).collect()),
        ("buffer", w.buffers.iter().map(|b| b.name.as_str()).collect()),
        ("image", w.images.iter().map(|b| b.name.as_str()).collect()),
        ("shader", w.pipelines.iter().map(|p| p.0.as_str()).collect()),
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
        | Command::ClearAttachments { .. } => J::Obj(vec![cmd(c.vk_name())]),
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
            let mut bindings: Vec<J> = bindings
                .iter()
                .map(|b| members(vec![("set", Some(J::Num(b.set as u64))), ("binding", Some(J::Num(b.binding as u64))), ("buffer", Some(buf(b.buffer))), ("offset", (b.offset != 0).then_some(J::Num(b.offset))), ("range", b.range.map(J::Num))]))
                .collect();
            bindings.extend(images.iter().map(|d| {
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
            let (pk, pv) = payload("push_constants", push_constants);
            members(vec![
                ("cmd", Some(J::s("dispatch"))),
                ("shader", Some(J::s(w.pipelines[*pipeline].0.as_str()))),
                ("group_count", Some(xyz(group_count))),
                ("base_group", (*base_group != [0; 3]).then(|| xyz(base_group))),
                ("bindings", Some(J::Arr(bindings))),
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
