//! Render-pass instances as the queue sees them: each command buffer is walked once with the
//! state a recording keeps (the render pass or dynamic rendering begun, the subpass, bound
//! vertex and index buffers, viewport and scissor), the valid usage that depends on that state
//! is checked, and the graphics commands are lowered:
//!
//! ```text
//!   begin_render_pass / next_subpass   sync (dependencies into the subpass, layout transitions)
//!                                      then an action: the load operations of the attachments
//!                                      the subpass uses first
//!   draw, clear_attachments            an action: the draw's fetches, shaders and attachments
//!   end_render_pass                    an action: the store operations, then sync (the
//!                                      dependencies to EXTERNAL, the final layout transitions)
//!   begin_rendering / end_rendering    the load / store operations (no dependency, no transition)
//! ```
//!
//! # Design
//! A subpass dependency is a pipeline barrier whose scopes are limited to the subpasses it
//! names; the queue has no finer scope than "before" and "after", so each becomes a
//! [`MemoryBarrier2`] of a sync node where its destination subpass begins (a dependency to
//! EXTERNAL where the render pass ends). A render pass without a dependency from EXTERNAL into
//! the subpass that first uses an attachment has the implicit one Vulkan defines (first scope
//! empty), and likewise at the end; one explicit dependency replaces only the implicit one of
//! its own side. The automatic layout transitions are image memory barriers of the
//! dependency that governs them, so they are checked, performed and explained as any other.
//! Load operations happen at the first subpass that uses the attachment and store operations
//! when the render pass ends. Attachment accesses of one render-pass instance are in
//! rasterization order: each such action depends on the one before it
//! (`RenderLowered::after_previous`), and the hazard detector orders them as the
//! synchronization-validation design does ([`crate::api::action::Ordering`]).

use sim_rop::{Aspect, ClearValue, Format};

use crate::api::action::{Action, Ordering, Usage, Work};
use crate::api::graphics::*;
use crate::api::error::WorkloadError;
use crate::api::workload::{BufferId, Command, DependencyInfo, ImageMemoryBarrier, Workload};
use crate::fixed_function as ff;
use crate::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, StageAccess};

/// Where a program placed its resources: what lowering needs of the checked program
/// ([`Program`](crate::api::Program) implements it).
pub(crate) trait Places<'w> {
    /// The workload.
    fn workload(&self) -> &'w Workload;
    /// Device address of byte `offset` of resource `r` (buffers, then images).
    fn buffer_addr(&self, r: usize, offset: u64) -> u64;
    /// The resource index of image `i`.
    fn image_resource(&self, i: usize) -> usize;
}

/// What a graphics command lowers to.
#[derive(Clone, Debug, Default)]
pub(crate) struct RenderLowered<'w> {
    /// The dependency performed at it (begin, next subpass: before its action; end: after).
    pub sync: Option<DependencyInfo>,
    /// Its action.
    pub action: Option<Action<'w>>,
    /// Its action depends on the previous attachment action of the same render-pass instance
    /// (rasterization order), and an end's dependency on its store action.
    pub after_previous: bool,
    /// The sync comes after the action (an end of a render pass).
    pub sync_last: bool,
}

/// The render-pass instance being recorded.
struct Pass {
    /// Per attachment: its target, and what the instance does to it.
    attachments: Vec<PassAttachment>,
    area: ff::Rect2D,
    extent: [u32; 2],
    subpass: u32,
    kind: PassKind,
}

#[derive(Clone, Copy)]
enum PassKind {
    RenderPass(RenderPassId),
    Dynamic,
}

#[derive(Clone)]
struct PassAttachment {
    target: Target,
    desc: AttachmentDescription,
    clear: Option<ClearValue>,
    /// The layout it is in now (within the instance).
    layout: String,
}

/// The recording state of one command buffer.
#[derive(Default)]
struct Recording {
    pass: Option<Pass>,
    vertex_buffers: Vec<(u32, BufferId, u64)>,
    index_buffer: Option<(BufferId, u64, ff::IndexType)>,
    viewport: Option<ff::Viewport>,
    scissor: Option<ff::Rect2D>,
}

fn target<'w>(w: &Workload, prog: &impl Places<'w>, v: &AttachmentView) -> Target {
    Target { image: v.image, resource: prog.image_resource(v.image), level: v.level, layer: v.base_layer, format: w.images[v.image].layout.desc.format }
}

fn range_of(t: &Target, w: &Workload) -> sim_rop::SubresourceRange {
    let format = w.images[t.image].layout.desc.format;
    let mut aspects = [false; 3];
    for &a in format.aspects() {
        aspects[a as usize] = true;
    }
    sim_rop::SubresourceRange { aspects, base_mip_level: t.level, level_count: 1, base_array_layer: t.layer, layer_count: 1 }
}

/// The stage and access of an attachment operation on `format`'s aspect, reading or writing.
fn attachment_usage(depth: bool, write: bool, store: bool) -> StageAccess {
    let (s, a) = match (depth, write) {
        (false, false) => (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_READ),
        (false, true) => (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE),
        (true, false) => (S::EARLY_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_READ),
        (true, true) if store => (S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE),
        (true, true) => (S::EARLY_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE),
    };
    StageAccess::new(s, a).expect("a legal attachment usage")
}

/// The bytes of `t`'s level and layer (every aspect), as usages.
fn target_usages<'w>(prog: &impl Places<'w>, t: &Target, usage: StageAccess, ordering: Ordering) -> Vec<Usage> {
    let w = prog.workload();
    let base = prog.buffer_addr(t.resource, 0);
    w.images[t.image]
        .layout
        .range_bytes(&range_of(t, w))
        .unwrap_or_default()
        .into_iter()
        .map(|(o, n)| Usage { buffer: t.resource, range: base + o..base + o + n, usage, coherent: false, atomic_only: false, ordering })
        .collect()
}

fn is_depth(f: Format) -> bool {
    f.is_depth_stencil()
}

/// The load-operation action of `attachments` (indices into the pass) over `area`.
fn load_action<'w>(prog: &impl Places<'w>, pass: &Pass, which: &[usize]) -> Option<Action<'w>> {
    let mut ops = Vec::new();
    let mut usages = Vec::new();
    let mut stages = S::NONE;
    for &k in which {
        let a = &pass.attachments[k];
        let depth = is_depth(a.target.format);
        for &aspect in a.target.format.aspects() {
            let op = if aspect == Aspect::Stencil { a.desc.stencil_load_op } else { a.desc.load_op };
            let kind = match op {
                LoadOp::Load => AttachmentOpKind::Load,
                LoadOp::Clear => AttachmentOpKind::Clear(a.clear.unwrap_or(ClearValue::Float([0.0; 4]))),
                LoadOp::DontCare => AttachmentOpKind::DontCare,
                LoadOp::None => continue,
            };
            let usage = attachment_usage(depth, op != LoadOp::Load, false);
            stages |= usage.stage();
            // Load operations are checked against what came before the instance: no ordering.
            usages.extend(target_usages(prog, &a.target, usage, Ordering::None));
            ops.push(AttachmentOp { target: a.target, aspect, rect: pass.area, kind });
        }
    }
    (!ops.is_empty()).then_some(Action { vk_name: "load operations", stages, usages, work: Work::Attachments(ops) })
}

/// The store-operation action of every attachment of the pass.
fn store_action<'w>(prog: &impl Places<'w>, pass: &Pass) -> Option<Action<'w>> {
    let mut ops = Vec::new();
    let mut usages = Vec::new();
    let mut stages = S::NONE;
    for a in &pass.attachments {
        let depth = is_depth(a.target.format);
        for &aspect in a.target.format.aspects() {
            let op = if aspect == Aspect::Stencil { a.desc.stencil_store_op } else { a.desc.store_op };
            let kind = match op {
                StoreOp::Store => AttachmentOpKind::Store,
                StoreOp::DontCare => AttachmentOpKind::StoreDontCare,
                StoreOp::None => continue,
            };
            let usage = attachment_usage(depth, true, true);
            stages |= usage.stage();
            // Ordered after the instance's own attachment accesses (the store happens after
            // every command that accesses the sample in the last subpass using it).
            usages.extend(target_usages(prog, &a.target, usage, Ordering::Raster));
            ops.push(AttachmentOp { target: a.target, aspect, rect: pass.area, kind });
        }
    }
    (!ops.is_empty()).then_some(Action { vk_name: "store operations", stages, usages, work: Work::Attachments(ops) })
}

/// The access scope of the implicit dependency into a render pass: every attachment access.
fn attachment_accesses() -> A {
    A::INPUT_ATTACHMENT_READ | A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE | A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE
}

fn barrier_of(d: &SubpassDependency) -> MemoryBarrier2 {
    MemoryBarrier2::new(d.src_stage_mask, d.src_access_mask, d.dst_stage_mask, d.dst_access_mask)
}

/// The dependency performed as subpass `k` of `rp` begins, and the layout transitions into it.
fn into_subpass(w: &Workload, rp: &RenderPassDesc, pass: &mut Pass, k: u32) -> DependencyInfo {
    let mut dep = DependencyInfo::default();
    let explicit_external = rp.dependencies.iter().find(|d| d.src_subpass == SubpassRef::External && d.dst_subpass == SubpassRef::Index(k));
    // The implicit dependency from EXTERNAL, where an attachment is first used here and no
    // explicit one replaces it.
    let implicit = MemoryBarrier2::new(S::NONE, A::NONE, S::ALL_COMMANDS, attachment_accesses());
    let first_here = (0..rp.attachments.len() as u32).any(|a| rp.first_use(a) == Some(k));
    for d in rp.dependencies.iter().filter(|d| d.dst_subpass == SubpassRef::Index(k)) {
        dep.memory_barriers.push(barrier_of(d));
    }
    if explicit_external.is_none() && first_here {
        dep.memory_barriers.push(implicit);
    }
    for (a, att) in pass.attachments.iter_mut().enumerate() {
        let Some(layout) = rp.layout_in(k, a as u32) else { continue };
        if att.layout == layout {
            continue;
        }
        // The dependency that governs the transition: from EXTERNAL at the first use, else from
        // the subpass that used it last (or every stage, where the render pass gives none).
        let barrier = if rp.first_use(a as u32) == Some(k) {
            explicit_external.map_or(implicit, barrier_of)
        } else {
            let prev = (0..k).rev().find(|&j| rp.layout_in(j, a as u32).is_some());
            prev.and_then(|j| rp.dependencies.iter().find(|d| d.src_subpass == SubpassRef::Index(j) && d.dst_subpass == SubpassRef::Index(k)))
                .map_or(MemoryBarrier2::new(S::ALL_COMMANDS, attachment_accesses(), S::ALL_COMMANDS, attachment_accesses()), barrier_of)
        };
        dep.image_memory_barriers.push(ImageMemoryBarrier { barrier, image: att.target.image, old_layout: att.layout.clone(), new_layout: layout.to_string(), range: range_of(&att.target, w) });
        att.layout = layout.to_string();
    }
    dep
}

/// The dependency performed as `rp` ends: the dependencies to EXTERNAL (or the implicit one)
/// and the transitions to each attachment's final layout.
fn out_of_pass(w: &Workload, rp: &RenderPassDesc, pass: &mut Pass) -> DependencyInfo {
    let mut dep = DependencyInfo::default();
    let implicit = MemoryBarrier2::new(S::ALL_COMMANDS, A::COLOR_ATTACHMENT_WRITE | A::DEPTH_STENCIL_ATTACHMENT_WRITE, S::NONE, A::NONE);
    let explicit: Vec<&SubpassDependency> = rp.dependencies.iter().filter(|d| d.dst_subpass == SubpassRef::External).collect();
    dep.memory_barriers.extend(explicit.iter().map(|d| barrier_of(d)));
    if explicit.is_empty() {
        dep.memory_barriers.push(implicit);
    }
    for (a, att) in pass.attachments.iter_mut().enumerate() {
        if att.layout == att.desc.final_layout {
            continue;
        }
        let last = rp.last_use(a as u32);
        let barrier = explicit.iter().find(|d| last.is_some_and(|l| d.src_subpass == SubpassRef::Index(l))).map_or(implicit, |d| barrier_of(d));
        dep.image_memory_barriers.push(ImageMemoryBarrier { barrier, image: att.target.image, old_layout: att.layout.clone(), new_layout: att.desc.final_layout.clone(), range: range_of(&att.target, w) });
        att.layout = att.desc.final_layout.clone();
    }
    dep
}

/// Per command buffer, per command: what each graphics command lowers to.
pub(crate) type Lowered<'w> = Vec<Vec<Option<RenderLowered<'w>>>>;

/// Walks every command buffer of `prog`: the valid usage that depends on recording state, and
/// each graphics command lowered. `Err` is (command buffer, command index, message).
pub(crate) fn lower_all<'w>(prog: &impl Places<'w>) -> Result<Lowered<'w>, (usize, usize, String)> {
    let w = prog.workload();
    let mut out = Vec::with_capacity(w.command_buffers.len());
    for (cb, desc) in w.command_buffers.iter().enumerate() {
        let mut rec = Recording::default();
        let mut lowered = Vec::with_capacity(desc.commands.len());
        for (k, c) in desc.commands.iter().enumerate() {
            lowered.push(lower_one(prog, &mut rec, c).map_err(|m| (cb, k, m))?);
        }
        if rec.pass.is_some() {
            let k = desc.commands.len();
            return Err((cb, k.saturating_sub(1), "VUID-vkEndCommandBuffer-commandBuffer-00060: the command buffer ends inside a render pass instance (end_render_pass or end_rendering is missing)".into()));
        }
        out.push(lowered);
    }
    Ok(out)
}

fn lower_one<'w>(prog: &impl Places<'w>, rec: &mut Recording, c: &'w Command) -> Result<Option<RenderLowered<'w>>, String> {
    let w = prog.workload();
    let inside = rec.pass.is_some();
    Ok(match c {
        Command::BeginRenderPass { render_pass, framebuffer, render_area, clear_values } => {
            if inside {
                return Err("VUID-vkCmdBeginRenderPass2-renderpass: a render pass instance is already active".into());
            }
            let rp = w.render_passes.get(*render_pass).ok_or("unknown render pass")?;
            let fb = w.framebuffers.get(*framebuffer).ok_or("unknown framebuffer")?;
            if fb.attachments.len() != rp.attachments.len() {
                return Err(format!("VUID-VkRenderPassBeginInfo-renderPass-00904: framebuffer `{}` has {} attachments and render pass `{}` {}", fb.name, fb.attachments.len(), rp.name, rp.attachments.len()));
            }
            if render_area.x < 0 || render_area.y < 0 || render_area.x as u64 + render_area.width as u64 > fb.width as u64 || render_area.y as u64 + render_area.height as u64 > fb.height as u64 {
                return Err(format!("VUID-VkRenderPassBeginInfo-pNext-02852: the render area {render_area:?} is not within framebuffer `{}` ({}x{})", fb.name, fb.width, fb.height));
            }
            let attachments = rp
                .attachments
                .iter()
                .zip(&fb.attachments)
                .enumerate()
                .map(|(a, (d, v))| PassAttachment { target: target(w, prog, v), desc: d.clone(), clear: clear_values.get(a).copied().flatten(), layout: d.initial_layout.clone() })
                .collect();
            let mut pass = Pass { attachments, area: *render_area, extent: [fb.width, fb.height], subpass: 0, kind: PassKind::RenderPass(*render_pass) };
            let sync = into_subpass(w, rp, &mut pass, 0);
            let first: Vec<usize> = (0..rp.attachments.len()).filter(|&a| rp.first_use(a as u32) == Some(0)).collect();
            let action = load_action(prog, &pass, &first);
            rec.pass = Some(pass);
            Some(RenderLowered { sync: Some(sync), action, after_previous: false, sync_last: false })
        }
        Command::NextSubpass => {
            let Some(pass) = rec.pass.as_mut() else { return Err("VUID-vkCmdNextSubpass2-renderpass: no render pass instance is active".into()) };
            let PassKind::RenderPass(r) = pass.kind else { return Err("VUID-vkCmdNextSubpass2-None-06197: the active instance was begun with begin_rendering, which has no subpasses".into()) };
            let rp = &w.render_passes[r];
            if pass.subpass + 1 >= rp.subpasses.len() as u32 {
                return Err(format!("VUID-vkCmdNextSubpass2-None-03102: render pass `{}` has {} subpasses and subpass {} is the last", rp.name, rp.subpasses.len(), pass.subpass));
            }
            pass.subpass += 1;
            let k = pass.subpass;
            let sync = into_subpass(w, rp, pass, k);
            let first: Vec<usize> = (0..rp.attachments.len()).filter(|&a| rp.first_use(a as u32) == Some(k)).collect();
            let action = load_action(prog, pass, &first);
            Some(RenderLowered { sync: Some(sync), action, after_previous: true, sync_last: false })
        }
        Command::EndRenderPass => {
            let Some(mut pass) = rec.pass.take() else { return Err("VUID-vkCmdEndRenderPass2-renderpass: no render pass instance is active".into()) };
            let PassKind::RenderPass(r) = pass.kind else { return Err("VUID-vkCmdEndRenderPass2-None-06171: the active instance was begun with begin_rendering; end it with end_rendering".into()) };
            let rp = &w.render_passes[r];
            if pass.subpass + 1 != rp.subpasses.len() as u32 {
                return Err(format!("VUID-vkCmdEndRenderPass2-None-03103: render pass `{}` has {} subpasses and subpass {} is not the last", rp.name, rp.subpasses.len(), pass.subpass));
            }
            let action = store_action(prog, &pass);
            let sync = out_of_pass(w, rp, &mut pass);
            Some(RenderLowered { sync: Some(sync), action, after_previous: true, sync_last: true })
        }
        Command::BeginRendering(info) => {
            if inside {
                return Err("VUID-vkCmdBeginRendering-renderpass: a render pass instance is already active".into());
            }
            let mut attachments = Vec::new();
            let mut extent = [u32::MAX, u32::MAX];
            let all = info.color_attachments.iter().flatten().chain(info.depth_attachment.iter()).chain(info.stencil_attachment.iter());
            for ra in all {
                let im = w.images.get(ra.view.image).ok_or("unknown image")?;
                let e = im.layout.desc.level_extent(ra.view.level);
                extent = [extent[0].min(e[0]), extent[1].min(e[1])];
                let desc = AttachmentDescription {
                    format: im.layout.desc.format,
                    samples: 1,
                    load_op: ra.load_op,
                    store_op: ra.store_op,
                    stencil_load_op: ra.load_op,
                    stencil_store_op: ra.store_op,
                    initial_layout: ra.layout.clone(),
                    final_layout: ra.layout.clone(),
                };
                attachments.push(PassAttachment { target: target(w, prog, &ra.view), desc, clear: ra.clear_value, layout: ra.layout.clone() });
            }
            // A depth/stencil image given as both the depth and the stencil attachment is one
            // attachment.
            attachments.dedup_by(|a, b| a.target == b.target);
            let area = info.render_area;
            if extent[0] != u32::MAX && (area.x < 0 || area.y < 0 || area.x as u64 + area.width as u64 > extent[0] as u64 || area.y as u64 + area.height as u64 > extent[1] as u64) {
                return Err(format!("VUID-VkRenderingInfo-pNext-06079: the render area {area:?} is not within the attachments ({}x{})", extent[0], extent[1]));
            }
            let extent = if extent[0] == u32::MAX { [area.x.max(0) as u32 + area.width, area.y.max(0) as u32 + area.height] } else { extent };
            let pass = Pass { attachments, area, extent, subpass: 0, kind: PassKind::Dynamic };
            let all: Vec<usize> = (0..pass.attachments.len()).collect();
            let action = load_action(prog, &pass, &all);
            rec.pass = Some(pass);
            Some(RenderLowered { sync: None, action, after_previous: false, sync_last: false })
        }
        Command::EndRendering => {
            let Some(pass) = rec.pass.take() else { return Err("VUID-vkCmdEndRendering-renderpass: no render pass instance is active".into()) };
            if let PassKind::RenderPass(_) = pass.kind {
                return Err("VUID-vkCmdEndRendering-None-06161: the active instance was begun with begin_render_pass; end it with end_render_pass".into());
            }
            Some(RenderLowered { sync: None, action: store_action(prog, &pass), after_previous: true, sync_last: false })
        }
        Command::BindVertexBuffers { first_binding, buffers } => {
            for (k, &(b, offset)) in buffers.iter().enumerate() {
                let buf = w.buffers.get(b).ok_or("unknown buffer")?;
                if offset >= buf.size {
                    return Err(format!("VUID-vkCmdBindVertexBuffers-pOffsets-00626: offset {offset} is not below the size of buffer `{}` ({} bytes)", buf.name, buf.size));
                }
                let binding = first_binding.saturating_add(k as u32);
                rec.vertex_buffers.retain(|v| v.0 != binding);
                rec.vertex_buffers.push((binding, b, offset));
            }
            None
        }
        Command::BindIndexBuffer { buffer, offset, index_type } => {
            let buf = w.buffers.get(*buffer).ok_or("unknown buffer")?;
            if *offset >= buf.size {
                return Err(format!("VUID-vkCmdBindIndexBuffer-offset-08782: offset {offset} is not below the size of buffer `{}` ({} bytes)", buf.name, buf.size));
            }
            if !offset.is_multiple_of(u64::from(index_type.size())) {
                return Err(format!("VUID-vkCmdBindIndexBuffer-offset-08783: offset {offset} is not a multiple of the index size {}", index_type.size()));
            }
            rec.index_buffer = Some((*buffer, *offset, *index_type));
            None
        }
        Command::SetViewport(v) => {
            v.validate().map_err(|e| format!("VUID-VkViewport-width-01770: {e}"))?;
            rec.viewport = Some(*v);
            None
        }
        Command::SetScissor(s) => {
            if s.x < 0 || s.y < 0 {
                return Err(format!("VUID-vkCmdSetScissor-x-00595: the scissor's offset ({}, {}) is negative", s.x, s.y));
            }
            rec.scissor = Some(*s);
            None
        }
        Command::Draw { pipeline, kind, bindings, push_constants, images } => {
            let vk = kind.vk_name();
            let Some(pass) = rec.pass.as_ref() else { return Err(format!("VUID-{vk}-renderpass: {vk} outside a render pass instance")) };
            let p = w.graphics_pipelines.get(*pipeline).ok_or("unknown graphics pipeline")?;
            check_pipeline(w, p, pass, vk)?;
            check_input_attachments(w, images, pass, vk)?;
            let (colors, depth) = draw_targets(w, pass);
            for b in p.vertex_input.bindings() {
                if !rec.vertex_buffers.iter().any(|v| v.0 == b.binding) {
                    return Err(format!("VUID-{vk}-None-04007: pipeline `{}` reads vertex binding {}, and no vertex buffer is bound there", p.name, b.binding));
                }
            }
            if kind.indexed() && rec.index_buffer.is_none() {
                return Err(format!("VUID-{vk}-None-07312: an indexed draw with no index buffer bound"));
            }
            check_fetch(w, p, kind, &rec.vertex_buffers, rec.index_buffer, vk)?;
            let viewport = rec.viewport.unwrap_or(ff::Viewport { x: pass.area.x as f32, y: pass.area.y as f32, width: pass.area.width as f32, height: pass.area.height as f32, min_depth: 0.0, max_depth: 1.0 });
            let scissor = intersect(rec.scissor.unwrap_or(pass.area), pass.area);
            let draw = DrawWork {
                pipeline: *pipeline,
                kind: *kind,
                vertex_buffers: rec.vertex_buffers.clone(),
                index_buffer: rec.index_buffer,
                viewport,
                scissor,
                extent: pass.extent,
                colors,
                depth,
                bindings,
                push_constants,
                images,
            };
            let (stages, usages) = draw_usages(prog, p, &draw);
            Some(RenderLowered { sync: None, action: Some(Action { vk_name: vk, stages, usages, work: Work::Draw(Box::new(draw)) }), after_previous: true, sync_last: false })
        }
        Command::ClearAttachments { attachments, rects } => {
            let Some(pass) = rec.pass.as_ref() else { return Err("VUID-vkCmdClearAttachments-renderpass: vkCmdClearAttachments outside a render pass instance".into()) };
            let (colors, depth) = draw_targets(w, pass);
            let mut ops = Vec::new();
            let mut usages = Vec::new();
            let mut stages = S::NONE;
            for (i, ca) in attachments.iter().enumerate() {
                let (t, aspects, value) = match *ca {
                    ClearAttachment::Color { attachment, value } => {
                        let t = colors.get(attachment as usize).copied().flatten().ok_or_else(|| format!("VUID-vkCmdClearAttachments-aspectMask-07271: attachments[{i}]: colour attachment {attachment} is not an attachment of the current subpass"))?;
                        (t, vec![Aspect::Color], value)
                    }
                    ClearAttachment::DepthStencil { depth: d, stencil, value } => {
                        let t = depth.ok_or_else(|| format!("VUID-vkCmdClearAttachments-aspectMask-02502: attachments[{i}]: the current subpass has no depth/stencil attachment"))?;
                        let aspects = t.format.aspects().iter().copied().filter(|&a| (a == Aspect::Depth && d) || (a == Aspect::Stencil && stencil)).collect();
                        (t, aspects, value)
                    }
                };
                let usage = attachment_usage(is_depth(t.format), true, false);
                stages |= usage.stage();
                usages.extend(target_usages(prog, &t, usage, if is_depth(t.format) { Ordering::DepthStencil } else { Ordering::Color }));
                for (j, r) in rects.iter().enumerate() {
                    if r.base_array_layer != 0 || r.layer_count != 1 {
                        return Err(format!("VUID-vkCmdClearAttachments-pRects-06937: rects[{j}]: layers {}..+{} are not the render pass instance's one layer", r.base_array_layer, r.layer_count));
                    }
                    let inside = intersect(r.rect, pass.area) == r.rect;
                    if !inside || r.rect.width == 0 || r.rect.height == 0 {
                        return Err(format!("VUID-vkCmdClearAttachments-pRects-00016: rects[{j}]: {:?} is not within the render area {:?}", r.rect, pass.area));
                    }
                    for &aspect in &aspects {
                        ops.push(AttachmentOp { target: t, aspect, rect: r.rect, kind: AttachmentOpKind::Clear(value) });
                    }
                }
            }
            let action = (!ops.is_empty()).then(|| Action { vk_name: c.vk_name(), stages, usages, work: Work::Attachments(ops) });
            Some(RenderLowered { sync: None, action, after_previous: true, sync_last: false })
        }
        // Outside a render pass only (barriers inside one need a self-dependency).
        Command::PipelineBarrier(_) | Command::SetEvent { .. } | Command::WaitEvents { .. } | Command::ResetEvent { .. } if inside => {
            return Err(format!("VUID-{}-None-07889: {} inside a render pass instance (a pipeline barrier there needs a subpass self-dependency, which is not supported yet by the engine)", c.vk_name(), c.vk_name()));
        }
        _ if inside => return Err(format!("VUID-{}-renderpass: {} inside a render pass instance", c.vk_name(), c.vk_name())),
        _ => None,
    })
}

fn invalid(at: impl Into<String>, message: impl Into<String>) -> WorkloadError {
    WorkloadError::Invalid { at: at.into(), message: message.into() }
}

/// Checks that every id the graphics half of `w` names exists, and the counts that must agree
/// (a framebuffer's attachments and its render pass's, a subpass index, push-constant bytes),
/// so that nothing after indexes past a table (the trace loader checks the same with the
/// trace's places and VUIDs; a workload built in Rust meets these).
pub(crate) fn check_objects(w: &Workload) -> Result<(), WorkloadError> {
    let view = |v: &AttachmentView, at: &str| -> Result<(), WorkloadError> {
        let im = w.images.get(v.image).ok_or_else(|| invalid(at, format!("unknown image index {}", v.image)))?;
        let d = &im.layout.desc;
        if v.level >= d.mip_levels || v.layer_count == 0 || u64::from(v.base_layer) + u64::from(v.layer_count) > u64::from(d.array_layers) {
            return Err(invalid(at, format!("the view (level {}, layers {}..+{}) names subresources image `{}` does not have", v.level, v.base_layer, v.layer_count, im.name)));
        }
        Ok(())
    };
    for rp in &w.render_passes {
        let at = format!("render_passes[{}]", rp.name);
        if rp.subpasses.is_empty() {
            return Err(invalid(&at, "a render pass needs at least one subpass"));
        }
        let n = rp.attachments.len() as u32;
        for (s, sp) in rp.subpasses.iter().enumerate() {
            if let Some(r) = sp.used().find(|r| r.attachment >= n) {
                return Err(invalid(format!("{at}.subpasses[{s}]"), format!("attachment {} is not one of the render pass's {n}", r.attachment)));
            }
            if let Some(a) = sp.preserve_attachments.iter().find(|&&a| a >= n) {
                return Err(invalid(format!("{at}.subpasses[{s}].preserve_attachments"), format!("attachment {a} is not one of the render pass's {n}")));
            }
        }
        for (i, d) in rp.dependencies.iter().enumerate() {
            for s in [d.src_subpass, d.dst_subpass] {
                if let SubpassRef::Index(s) = s
                    && s as usize >= rp.subpasses.len()
                {
                    return Err(invalid(format!("{at}.dependencies[{i}]"), format!("subpass {s} is not one of the render pass's {}", rp.subpasses.len())));
                }
            }
        }
    }
    for fb in &w.framebuffers {
        let at = format!("framebuffers[{}]", fb.name);
        let rp = w.render_passes.get(fb.render_pass).ok_or_else(|| invalid(&at, format!("unknown render pass index {}", fb.render_pass)))?;
        if fb.attachments.len() != rp.attachments.len() {
            return Err(invalid(&at, format!("{} attachments for render pass `{}`, which has {}", fb.attachments.len(), rp.name, rp.attachments.len())));
        }
        for (i, v) in fb.attachments.iter().enumerate() {
            view(v, &format!("{at}.attachments[{i}]"))?;
        }
    }
    for gp in &w.graphics_pipelines {
        let at = format!("pipelines[{}]", gp.name);
        if let PipelineTarget::RenderPass { render_pass, subpass } = gp.target {
            let rp = w.render_passes.get(render_pass).ok_or_else(|| invalid(&at, format!("unknown render pass index {render_pass}")))?;
            if subpass as usize >= rp.subpasses.len() {
                return Err(invalid(&at, format!("subpass {subpass} is not one of render pass `{}`'s {}", rp.name, rp.subpasses.len())));
            }
        }
        if !gp.topology.is_triangles() {
            return Err(invalid(&at, format!("{:?} is not supported yet by the engine: its rasterizer draws triangles (lists, strips and fans) only", gp.topology)));
        }
        if gp.vertex.stage() != sim_shader::ShaderStage::Vertex || gp.fragment.as_ref().is_some_and(|f| f.stage() != sim_shader::ShaderStage::Fragment) {
            return Err(invalid(&at, "the vertex shader must be a vertex entry point and the fragment shader a fragment one"));
        }
    }
    let buffer = |b: usize, at: &str| if b < w.buffers.len() { Ok(()) } else { Err(invalid(at, format!("unknown buffer index {b}"))) };
    for cb in &w.command_buffers {
        for (k, c) in cb.commands.iter().enumerate() {
            let at = format!("command_buffers[{}].commands[{k}]", cb.name);
            match c {
                Command::BeginRenderPass { render_pass, framebuffer, .. } => {
                    if *render_pass >= w.render_passes.len() {
                        return Err(invalid(&at, format!("unknown render pass index {render_pass}")));
                    }
                    if *framebuffer >= w.framebuffers.len() {
                        return Err(invalid(&at, format!("unknown framebuffer index {framebuffer}")));
                    }
                }
                Command::BeginRendering(info) => {
                    let all = info.color_attachments.iter().flatten().chain(&info.depth_attachment).chain(&info.stencil_attachment);
                    for a in all {
                        view(&a.view, &at)?;
                    }
                }
                Command::BindVertexBuffers { buffers, .. } => {
                    for &(b, _) in buffers {
                        buffer(b, &at)?;
                    }
                }
                Command::BindIndexBuffer { buffer: b, .. } => buffer(*b, &at)?,
                Command::Draw { pipeline, kind, bindings, push_constants, images } => {
                    let gp = w.graphics_pipelines.get(*pipeline).ok_or_else(|| invalid(&at, format!("unknown graphics pipeline index {pipeline}")))?;
                    if let DrawKind::Indirect { buffer: b, .. } = kind {
                        buffer(*b, &at)?;
                    }
                    for b in bindings {
                        buffer(b.buffer, &at)?;
                    }
                    for (i, d) in images.iter().enumerate() {
                        if d.image.is_some_and(|im| im >= w.images.len()) || d.sampler.is_some_and(|s| s >= w.samplers.len()) {
                            return Err(invalid(format!("{at}.images[{i}]"), "unknown image or sampler index"));
                        }
                    }
                    let size = gp.vertex.push_constant_size().max(gp.fragment.as_ref().map_or(0, |f| f.push_constant_size()));
                    if push_constants.len() as u64 > u64::from(size) {
                        return Err(invalid(&at, format!("{} bytes of push constants, but pipeline `{}`'s shaders declare {size}", push_constants.len(), gp.name)));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Where a command stands in a render-pass instance of its command buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassPlace {
    /// The index of the instance's begin_render_pass or begin_rendering.
    pub begin: usize,
    /// The index of its end (`None`: the command buffer ends first).
    pub end: Option<usize>,
    /// The render pass (`None`: dynamic rendering).
    pub render_pass: Option<RenderPassId>,
    /// The subpass the command is in.
    pub subpass: u32,
}

/// The render-pass instance command `index` of command buffer `cb` is in (its begin and end
/// included), if any.
pub fn pass_of(w: &Workload, cb: usize, index: usize) -> Option<PassPlace> {
    let commands = &w.command_buffers.get(cb)?.commands;
    let mut open: Option<PassPlace> = None;
    for (k, c) in commands.iter().enumerate() {
        match c {
            Command::BeginRenderPass { render_pass, .. } => open = Some(PassPlace { begin: k, end: None, render_pass: Some(*render_pass), subpass: 0 }),
            Command::BeginRendering(_) => open = Some(PassPlace { begin: k, end: None, render_pass: None, subpass: 0 }),
            Command::NextSubpass if k <= index => {
                if let Some(p) = open.as_mut() {
                    p.subpass += 1;
                }
            }
            Command::EndRenderPass | Command::EndRendering => {
                if let Some(p) = open.as_mut() {
                    p.end = Some(k);
                }
                if k >= index {
                    return open.filter(|p| p.begin <= index);
                }
                open = None;
            }
            _ => {}
        }
        if k == index && open.is_none() {
            return None;
        }
    }
    open.filter(|p| p.begin <= index)
}

/// The fetches a draw's own counts decide stay within the bound buffers: the indices of an
/// indexed draw, each per-vertex binding's elements of a non-indexed one, and each per-instance
/// binding's (what the vertices of an indexed draw fetch is known when it runs, and checked
/// there).
fn check_fetch(w: &Workload, p: &GraphicsPipelineDesc, kind: &DrawKind, vertex_buffers: &[(u32, BufferId, u64)], index: Option<(BufferId, u64, ff::IndexType)>, vk: &str) -> Result<(), String> {
    let (vertices, instances, indexed) = match *kind {
        DrawKind::Direct { vertex_count, instance_count, first_vertex, first_instance } => ((vertex_count > 0).then(|| u64::from(first_vertex) + u64::from(vertex_count) - 1), (instance_count > 0).then(|| u64::from(first_instance) + u64::from(instance_count) - 1), None),
        DrawKind::Indexed { index_count, instance_count, first_index, first_instance, .. } => (None, (instance_count > 0).then(|| u64::from(first_instance) + u64::from(instance_count) - 1), Some((first_index, index_count))),
        DrawKind::Indirect { .. } => return Ok(()),
    };
    if let (Some((first, count)), Some((buffer, offset, ty))) = (indexed, index) {
        let end = offset + (u64::from(first) + u64::from(count)) * u64::from(ty.size());
        let b = &w.buffers[buffer];
        if count > 0 && end > b.size {
            return Err(format!("VUID-{vk}-robustBufferAccess2-08798: indices {first}..+{count} of {} bytes each from offset {offset} reach byte {end} of index buffer `{}`, which has {}", ty.size(), b.name, b.size));
        }
    }
    for binding in p.vertex_input.bindings() {
        let Some(&(_, buffer, offset)) = vertex_buffers.iter().find(|v| v.0 == binding.binding) else { continue };
        let last = match binding.input_rate {
            ff::VertexInputRate::Vertex => vertices,
            ff::VertexInputRate::Instance => instances,
        };
        let Some(last) = last else { continue };
        let end = p.vertex_input.attributes().iter().filter(|a| a.binding == binding.binding).map(|a| u64::from(a.offset) + u64::from(ff::fetch::vertex_format_size(a.format).unwrap_or(4))).max();
        let Some(end) = end else { continue };
        let need = offset + last * u64::from(binding.stride) + end;
        let b = &w.buffers[buffer];
        if need > b.size {
            return Err(format!("VUID-{vk}-None-02721: element {last} of vertex binding {} fetches up to byte {need} of buffer `{}`, which has {}", binding.binding, b.name, b.size));
        }
    }
    Ok(())
}

/// The overlap of two rectangles (an empty one where they do not meet).
fn intersect(a: ff::Rect2D, b: ff::Rect2D) -> ff::Rect2D {
    let x0 = i64::from(a.x).max(i64::from(b.x));
    let y0 = i64::from(a.y).max(i64::from(b.y));
    let x1 = (i64::from(a.x) + i64::from(a.width)).min(i64::from(b.x) + i64::from(b.width));
    let y1 = (i64::from(a.y) + i64::from(a.height)).min(i64::from(b.y) + i64::from(b.height));
    ff::Rect2D { x: x0 as i32, y: y0 as i32, width: (x1 - x0).max(0) as u32, height: (y1 - y0).max(0) as u32 }
}

/// The colour targets by location and the depth target of the current subpass.
fn draw_targets(w: &Workload, pass: &Pass) -> (Vec<Option<Target>>, Option<Target>) {
    match pass.kind {
        PassKind::RenderPass(r) => {
            let sp = &w.render_passes[r].subpasses[pass.subpass as usize];
            let colors = sp.color_attachments.iter().map(|a| a.as_ref().map(|a| pass.attachments[a.attachment as usize].target)).collect();
            let depth = sp.depth_stencil_attachment.as_ref().map(|a| pass.attachments[a.attachment as usize].target);
            (colors, depth)
        }
        PassKind::Dynamic => {
            let colors = pass.attachments.iter().filter(|a| !is_depth(a.target.format)).map(|a| Some(a.target)).collect();
            let depth = pass.attachments.iter().find(|a| is_depth(a.target.format)).map(|a| a.target);
            (colors, depth)
        }
    }
}

/// An INPUT_ATTACHMENT descriptor views one of the current subpass's input attachments, in the
/// layout its reference gives: the fragment reads that attachment at its own pixel.
fn check_input_attachments(w: &Workload, images: &[crate::api::ImageDescriptor], pass: &Pass, vk: &str) -> Result<(), String> {
    for d in images.iter().filter(|d| d.descriptor_type == crate::api::ImageDescriptorType::InputAttachment) {
        let PassKind::RenderPass(r) = pass.kind else {
            return Err(format!("{vk}: an INPUT_ATTACHMENT descriptor inside dynamic rendering needs VK_KHR_dynamic_rendering_local_read, which is not supported yet by the engine"));
        };
        let sp = &w.render_passes[r].subpasses[pass.subpass as usize];
        let found = sp.input_attachments.iter().flatten().find(|a| Some(pass.attachments[a.attachment as usize].target.image) == d.image);
        let name = d.image.map_or("?", |i| w.images[i].name.as_str());
        match found {
            None => return Err(format!("{vk}: the INPUT_ATTACHMENT descriptor at (set {}, binding {}) views image `{name}`, which is not an input attachment of subpass {} of render pass `{}` (an input attachment descriptor reads the subpass's own input attachment)", d.set, d.binding, pass.subpass, w.render_passes[r].name)),
            Some(a) if a.layout != d.layout => {
                return Err(format!("{vk}: the INPUT_ATTACHMENT descriptor at (set {}, binding {}) is in layout {}, and subpass {} uses image `{name}` as an input attachment in layout {}", d.set, d.binding, d.layout, pass.subpass, a.layout));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// A pipeline must have been made for the current subpass (or rendering formats).
fn check_pipeline(w: &Workload, p: &GraphicsPipelineDesc, pass: &Pass, vk: &str) -> Result<(), String> {
    match (&p.target, pass.kind) {
        (PipelineTarget::RenderPass { render_pass, subpass }, PassKind::RenderPass(r)) => {
            let (a, b) = (&w.render_passes[*render_pass], &w.render_passes[r]);
            let compatible = *render_pass == r || (a.subpasses.len() == b.subpasses.len() && a.attachments.iter().map(|x| x.format).eq(b.attachments.iter().map(|x| x.format)));
            if !compatible {
                return Err(format!("VUID-{vk}-renderPass-02684: pipeline `{}` was made for render pass `{}`, which is not compatible with `{}` of the current instance", p.name, a.name, b.name));
            }
            if *subpass != pass.subpass {
                return Err(format!("VUID-{vk}-subpass-02685: pipeline `{}` was made for subpass {subpass}, and the current subpass is {}", p.name, pass.subpass));
            }
        }
        (PipelineTarget::Rendering { color_formats, depth_format, .. }, PassKind::Dynamic) => {
            let (colors, depth) = draw_targets(w, pass);
            let have: Vec<Option<Format>> = colors.iter().map(|t| t.map(|t| t.format)).collect();
            if have != *color_formats {
                return Err(format!("VUID-{vk}-colorAttachmentCount-06180: pipeline `{}` renders to colour formats {:?}, and the current instance's are {:?}", p.name, color_formats, have));
            }
            if depth.map(|t| t.format) != *depth_format {
                return Err(format!("VUID-{vk}-pDepthAttachment-06181: pipeline `{}` has depth format {:?}, and the current instance's depth attachment is {:?}", p.name, depth_format, depth.map(|t| t.format)));
            }
        }
        (PipelineTarget::RenderPass { .. }, PassKind::Dynamic) => return Err(format!("VUID-{vk}-renderPass-06198: pipeline `{}` was made for a render pass, and the current instance was begun with begin_rendering", p.name)),
        (PipelineTarget::Rendering { .. }, PassKind::RenderPass(_)) => return Err(format!("VUID-{vk}-renderPass-02684: pipeline `{}` was made for dynamic rendering, and the current instance is a render pass", p.name)),
    }
    Ok(())
}

/// The stages a draw runs in and what it uses: indirect records, indices, vertex ranges (the
/// whole bound range from its offset: which vertices a draw fetches is known when it runs), the
/// descriptors (in the stages whose shaders declare them) and the attachments.
fn draw_usages<'w>(prog: &impl Places<'w>, p: &GraphicsPipelineDesc, d: &DrawWork<'_>) -> (S, Vec<Usage>) {
    let w = prog.workload();
    let sa = |s: S, a: A| StageAccess::new(s, a).expect("a legal draw usage");
    let plain = |buffer: usize, start: u64, len: u64, usage: StageAccess| Usage { buffer, range: prog.buffer_addr(buffer, start)..prog.buffer_addr(buffer, start) + len, usage, coherent: false, atomic_only: false, ordering: Ordering::None };
    let mut stages = S::VERTEX_ATTRIBUTE_INPUT | S::VERTEX_SHADER | S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS | S::COLOR_ATTACHMENT_OUTPUT;
    let mut usages = Vec::new();
    if let DrawKind::Indirect { buffer, offset, draw_count, stride, indexed } = d.kind {
        stages |= S::DRAW_INDIRECT;
        let record = if indexed { 20 } else { 16 };
        let len = if draw_count == 0 { 0 } else { u64::from(draw_count - 1) * u64::from(stride) + record };
        usages.push(plain(buffer, offset, len, sa(S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ)));
    }
    if let Some((buffer, offset, ty)) = d.index_buffer.filter(|_| d.kind.indexed()) {
        stages |= S::INDEX_INPUT;
        let size = w.buffers[buffer].size;
        let (start, len) = match d.kind {
            DrawKind::Indexed { index_count, first_index, .. } => {
                let start = offset.saturating_add(u64::from(first_index) * u64::from(ty.size())).min(size);
                (start, (u64::from(index_count) * u64::from(ty.size())).min(size - start))
            }
            _ => (offset, size - offset),
        };
        usages.push(plain(buffer, start, len, sa(S::INDEX_INPUT, A::INDEX_READ)));
    }
    for &(binding, buffer, offset) in &d.vertex_buffers {
        if p.vertex_input.bindings().iter().any(|b| b.binding == binding) {
            usages.push(plain(buffer, offset, w.buffers[buffer].size - offset, sa(S::VERTEX_ATTRIBUTE_INPUT, A::VERTEX_ATTRIBUTE_READ)));
        }
    }
    let shaders = std::iter::once((S::VERTEX_SHADER, &p.vertex)).chain(p.fragment.iter().map(|f| (S::FRAGMENT_SHADER, f)));
    for (stage, shader) in shaders {
        stages |= stage;
        let info = shader.bindings();
        for b in d.bindings {
            let Some(i) = info.iter().find(|i| i.group == b.set && i.binding == b.binding) else { continue };
            let access = match i.kind {
                sim_shader::BindingKind::UniformBuffer => A::UNIFORM_READ,
                sim_shader::BindingKind::StorageBuffer { .. } if i.written => A::SHADER_STORAGE_WRITE,
                sim_shader::BindingKind::StorageBuffer { .. } => A::SHADER_STORAGE_READ,
                _ => continue,
            };
            let len = b.range.unwrap_or(w.buffers[b.buffer].size.saturating_sub(b.offset));
            usages.push(Usage { buffer: b.buffer, range: prog.buffer_addr(b.buffer, b.offset)..prog.buffer_addr(b.buffer, b.offset) + len, usage: sa(stage, access), coherent: i.coherent || i.atomic_only, atomic_only: i.atomic_only, ordering: Ordering::None });
        }
        for im in d.images {
            let (Some(image), Some(i)) = (im.image, info.iter().find(|i| i.group == im.set && i.binding == im.binding)) else { continue };
            let access = match i.kind {
                sim_shader::BindingKind::SampledImage { .. } if im.descriptor_type == crate::api::ImageDescriptorType::InputAttachment => A::INPUT_ATTACHMENT_READ,
                sim_shader::BindingKind::SampledImage { .. } => A::SHADER_SAMPLED_READ,
                sim_shader::BindingKind::StorageImage { .. } if i.written => A::SHADER_STORAGE_WRITE,
                sim_shader::BindingKind::StorageImage { .. } => A::SHADER_STORAGE_READ,
                _ => continue,
            };
            let r = prog.image_resource(image);
            let base = prog.buffer_addr(r, 0);
            for (o, n) in w.images[image].layout.range_bytes(&im.range).unwrap_or_default() {
                usages.push(Usage { buffer: r, range: base + o..base + o + n, usage: sa(stage, access), coherent: false, atomic_only: false, ordering: Ordering::None });
            }
        }
    }
    for (loc, t) in d.colors.iter().enumerate() {
        let Some(t) = t else { continue };
        let blend = p.blend.get(loc).copied().unwrap_or(sim_rop::fragment::BlendState::REPLACE);
        if blend.enable {
            usages.extend(target_usages(prog, t, sa(S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_READ), Ordering::Color));
        }
        usages.extend(target_usages(prog, t, sa(S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE), Ordering::Color));
    }
    if let Some(t) = &d.depth {
        let ds = &p.depth_stencil;
        if ds.depth_test {
            usages.extend(target_usages(prog, t, sa(S::EARLY_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_READ), Ordering::DepthStencil));
        }
        if ds.depth_test && ds.depth_write {
            usages.extend(target_usages(prog, t, sa(S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE), Ordering::DepthStencil));
        }
    }
    (stages, usages)
}
