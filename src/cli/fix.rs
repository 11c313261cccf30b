//! `gpusim check TRACE --fix -o FIXED`: the trace with each hazard's synchronization fixed.
//!
//! A barrier or event wait that stands between the two accesses but is too narrow is widened
//! where it stands: the missing stage and access bits are added to its masks (in the spelling
//! the command already uses: synchronization2 or synchronization1 names, short or in full), a
//! buffer barrier's range is widened, or a barrier is added to the command; an event wait is
//! widened together with the vkCmdSetEvent it waits for. Where none stands between them, the
//! diagnosis's suggestion is added: a pipeline barrier (synchronization2) before the hazardous
//! command or after the prior one, a semaphore between submissions on two queues, a host wait,
//! flush or invalidate.
//!
//! The edits are spliced into the trace's text (`super::splice`), so that the rest stays as
//! written and `diff` shows only what changed. The result is checked again: a fix can bring
//! a hazard that the first one hid into view, and is then fixed in turn; should widening fail
//! to give a trace that checks clean, the suggestions are added instead.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use sim_core::api::{Program, Workload};
use sim_core::hazard::Hazard;
use sim_core::hazard::diagnose::{Amendment, BarrierTarget, NO_FIX, Suggestion, diagnose};
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};

use super::CliError;
use super::splice::{self, Edits, Node, V};

/// Rounds of fixing and checking again before giving up on a way of fixing.
const ROUNDS: usize = 4;

/// What `fix` did.
pub struct Fixed {
    /// The corrected trace's text.
    pub text: String,
    /// Hazards fixed.
    pub fixed: usize,
    /// Hazards no synchronization fixes, with why.
    pub unfixable: Vec<String>,
}

/// The trace `text` (loaded from `input`) with every hazard of `hazards` fixed, its relative
/// file names rewritten for a trace written to `output` (`None`: standard output, where they
/// stay as they are). `profile` is the device the fixed trace is checked against again.
pub fn fix(text: &str, input: &Path, output: Option<&Path>, profile: &Profile, prog: &Program<'_>, hazards: &[Hazard]) -> Result<Fixed, CliError> {
    let base = input.parent().map(Path::to_path_buf).unwrap_or_default();
    let (mut fixed_text, fixed, unfixable) = match fix_rounds(text, &base, profile, prog, hazards, true)? {
        Some(done) => done,
        // Widening did not give a trace that checks clean: add every suggestion instead.
        None => match fix_rounds(text, &base, profile, prog, hazards, false)? {
            Some(done) => done,
            None => fix_once(text, prog, hazards, false)?,
        },
    };
    if let Some(output) = output {
        fixed_text = rebase_text(&fixed_text, input, output)?;
    }
    Ok(Fixed { text: fixed_text, fixed, unfixable })
}

/// Fixes `text` and checks the result again, up to [`ROUNDS`] times; `None` when it still has
/// hazards some synchronization would fix, or no longer loads.
fn fix_rounds(text: &str, base: &Path, profile: &Profile, prog: &Program<'_>, hazards: &[Hazard], amend: bool) -> Result<Option<(String, usize, Vec<String>)>, CliError> {
    let (mut current, fixed, unfixable) = fix_once(text, prog, hazards, amend)?;
    for _ in 0..ROUNDS {
        let Ok(t) = sim_core::trace::load_str(&current, Some(base)) else { return Ok(None) };
        let Ok((p, stream)) = sim_core::engine::validate(&t.workload, profile, &sim_core::engine::RunLimits::default()) else { return Ok(None) };
        let left = sim_core::hazard::detect_program(&p, &stream, None, profile.limits.non_coherent_atom_size);
        if left.iter().all(|h| is_unfixable(&p, h)) {
            return Ok(Some((current, fixed, unfixable)));
        }
        current = fix_once(&current, &p, &left, amend)?.0;
    }
    Ok(None)
}

/// Whether no synchronization fixes `h`.
fn is_unfixable(prog: &Program<'_>, h: &Hazard) -> bool {
    matches!(diagnose(prog, h).suggested, Suggestion::HostOp { op: NO_FIX, .. } | Suggestion::OldLayout { old_layout: None, .. })
}

/// One round: every hazard's fix spliced into `text` (widening what stands between the two
/// accesses when `amend`), with how many were fixed and why the others were not.
fn fix_once(text: &str, prog: &Program<'_>, hazards: &[Hazard], amend: bool) -> Result<(String, usize, Vec<String>), CliError> {
    let root = splice::parse(text)?;
    let unit = splice::doc_unit(text, &root);
    let w = prog.workload;
    // (command buffer id, index) -> barrier commands to insert there, in order.
    let mut barriers: BTreeMap<(String, usize), Vec<V>> = BTreeMap::new();
    // Widened synchronization commands, as the hazards ask, each hazard's list together.
    let mut amendments: Vec<Vec<Amendment>> = Vec::new();
    // (signal submit, wait submit) -> wait stages.
    let mut semaphores: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    // timeline index -> host operations to insert before it.
    let mut host_ops: BTreeMap<usize, Vec<V>> = BTreeMap::new();
    let (mut fixed, mut unfixable) = (0, Vec::new());
    // Image barriers whose layout transitions must be ordered after an earlier access, or before
    // a later one: widened in place, since no barrier inserted beside one can reach into its
    // transition.
    let mut image_widenings: Vec<sim_core::hazard::diagnose::ImageWidening> = Vec::new();
    // (command buffer, command, image barrier) -> the old layout that keeps the contents.
    let mut old_layouts: BTreeMap<(String, usize, usize), String> = BTreeMap::new();
    // (render pass, src subpass, dst subpass) -> the masks a subpass dependency needs.
    let mut subpass_deps: BTreeMap<(String, String, String), MemoryBarrier2> = BTreeMap::new();
    for (i, h) in hazards.iter().enumerate() {
        if let Some(iw) = sim_core::hazard::diagnose::image_widening(prog, h) {
            let cmd = w.command_buffers.iter().find(|c| c.name == iw.command.command_buffer).and_then(|c| c.commands.get(iw.command.command));
            if matches!(cmd, Some(sim_core::api::Command::PipelineBarrier(_))) {
                image_widenings.push(iw);
                fixed += 1;
            } else {
                let d = diagnose(prog, h);
                unfixable.push(format!("H{}: {} (the transition is an event wait's: widen its image barrier, and its vkCmdSetEvent2's, by hand)", i + 1, d.diagnosis));
            }
            continue;
        }
        let d = diagnose(prog, h);
        match d.suggested {
            Suggestion::Barrier { .. } if amend && !d.amend.is_empty() => amendments.push(d.amend),
            Suggestion::Barrier { insert_before, insert_after, src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask } => {
                let (cb, index) = match (insert_before, insert_after) {
                    (Some(b), _) => (b.command_buffer, b.command),
                    (None, Some(a)) => (a.command_buffer, a.command + 1),
                    (None, None) => continue,
                };
                let masks = V::obj([
                    ("src_stage_mask", V::str(&src_stage_mask)),
                    ("src_access_mask", V::str(&src_access_mask)),
                    ("dst_stage_mask", V::str(&dst_stage_mask)),
                    ("dst_access_mask", V::str(&dst_access_mask)),
                ]);
                let list = barriers.entry((cb, index)).or_default();
                if !list.iter().any(|b| matches!(b, V::Obj(ms) if ms.iter().any(|(_, v)| matches!(v, V::Arr(items) if items.contains(&masks))))) {
                    list.push(V::obj([("cmd", V::str("pipeline_barrier")), ("memory_barriers", V::Arr(vec![masks]))]));
                }
            }
            Suggestion::OldLayout { command, image_barrier, old_layout } => {
                let cmd = w.command_buffers.iter().find(|c| c.name == command.command_buffer).and_then(|c| c.commands.get(command.command));
                match old_layout {
                    Some(l) if matches!(cmd, Some(sim_core::api::Command::PipelineBarrier(_))) => {
                        old_layouts.insert((command.command_buffer, command.command, image_barrier), l);
                    }
                    Some(_) => {
                        unfixable.push(format!("H{}: {} (the transition is an event wait's: change its old_layout by hand)", i + 1, d.diagnosis));
                        continue;
                    }
                    None => {
                        unfixable.push(format!("H{}: {}", i + 1, d.diagnosis));
                        continue;
                    }
                }
            }
            Suggestion::SubpassDependency { render_pass, src_subpass, dst_subpass, src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask } => {
                let parse = |st: &str, ac: &str| (S::parse(st).unwrap_or(S::NONE), A::parse(ac).unwrap_or(A::NONE));
                let ((ss, sa), (ds, da)) = (parse(&src_stage_mask, &src_access_mask), parse(&dst_stage_mask, &dst_access_mask));
                let e = subpass_deps.entry((render_pass, src_subpass, dst_subpass)).or_default();
                *e = or(*e, MemoryBarrier2::new(ss, sa, ds, da));
            }
            Suggestion::Semaphore { signal_submit, wait_submit, wait_stage_mask } => {
                let stages = semaphores.entry((signal_submit, wait_submit)).or_default();
                if !stages.contains(&wait_stage_mask) {
                    stages.push(wait_stage_mask);
                }
            }
            Suggestion::HostOp { op, before_timeline, memory, range } => {
                let v = match op {
                    "device_wait_idle" => V::obj([("op", V::str("device_wait_idle"))]),
                    NO_FIX => {
                        unfixable.push(format!("H{}: {}", i + 1, d.diagnosis));
                        continue;
                    }
                    other => {
                        // The hazard's own atoms; to the end of the object when they reach it.
                        let total = w.memories.iter().find(|m| Some(&m.name) == memory.as_ref()).map_or(0, |m| m.size);
                        let (offset, size) = range.unwrap_or((0, total));
                        let size = if offset + size >= total { V::str("WHOLE_SIZE") } else { V::num(size) };
                        let memory = memory.as_deref().map_or(V::Raw("null".into()), V::str);
                        V::obj([("op", V::str(other)), ("ranges", V::Arr(vec![V::obj([("memory", memory), ("offset", V::num(offset)), ("size", size)])]))])
                    }
                };
                let list = host_ops.entry(before_timeline).or_default();
                if !list.contains(&v) {
                    list.push(v);
                }
            }
        }
        fixed += 1;
    }
    let mut edits = Edits::default();
    widen_commands(text, &root, w, &amendments, &unit, &mut edits)?;
    widen_image_barriers(text, &root, &image_widenings, &unit, &mut edits)?;
    add_subpass_dependencies(text, &root, &subpass_deps, &unit, &mut edits)?;
    for ((cb, k, index), layout) in old_layouts {
        let cmd = command_buffer(&root, text, &cb)?.get("commands").and_then(|c| c.items().get(k)).ok_or_else(|| format!("command {k} of command buffer `{cb}` is not in the trace"))?;
        let value = cmd
            .get("image_memory_barriers")
            .and_then(|l| l.items().get(index))
            .and_then(|b| b.get("old_layout"))
            .ok_or_else(|| format!("command {k} of command buffer `{cb}` has no image memory barrier {index} with an old_layout"))?;
        // The trace's own spelling: with or without Vulkan's prefix.
        let prefix = if value.as_str(text).is_some_and(|v| v.starts_with("VK_IMAGE_LAYOUT_")) { "VK_IMAGE_LAYOUT_" } else { "" };
        edits.replace(value, serde_json::Value::from(format!("{prefix}{layout}")).to_string());
    }
    for ((cb, index), list) in barriers {
        let commands = command_buffer(&root, text, &cb)?.get("commands").filter(|c| c.is_array()).ok_or_else(|| format!("command buffer `{cb}` has no commands list"))?;
        splice::array_insert(text, commands, index, &list, &unit, &mut edits);
    }
    add_semaphores(text, &root, semaphores, &unit, &mut edits)?;
    if !host_ops.is_empty() {
        let timeline = root.get("timeline").filter(|t| t.is_array()).ok_or("the trace has no timeline")?;
        for (before, list) in host_ops {
            splice::array_insert(text, timeline, before, &list, &unit, &mut edits);
        }
    }
    Ok((edits.apply(text)?, fixed, unfixable))
}

/// The subpass dependencies of `deps` made in the trace's render passes: an existing dependency
/// between the same two subpasses widened (its masks take the missing bits), or a new one
/// appended to the render pass's `dependencies`.
fn add_subpass_dependencies(text: &str, root: &Node, deps: &BTreeMap<(String, String, String), MemoryBarrier2>, unit: &str, edits: &mut Edits) -> Result<(), CliError> {
    // The trace's own spelling of a subpass: a number, or EXTERNAL with or without the prefix.
    let same = |n: Option<&Node>, want: &str| match n {
        Some(n) => match n.as_str(text) {
            Some(s) => s.trim_start_matches("VK_SUBPASS_") == want,
            None => n.as_u64(text).is_some_and(|v| v.to_string() == want),
        },
        None => false,
    };
    let mut new: BTreeMap<String, Vec<V>> = BTreeMap::new();
    for ((rp, src, dst), add) in deps {
        let pass = root
            .get("render_passes")
            .and_then(|l| l.items().iter().find(|r| r.get("id").and_then(|i| i.as_str(text)).as_deref() == Some(rp.as_str())))
            .ok_or_else(|| format!("render pass `{rp}` is not in the trace"))?;
        let existing = pass.get("dependencies").and_then(|l| l.items().iter().find(|d| same(d.get("src_subpass"), src) && same(d.get("dst_subpass"), dst)));
        match existing {
            Some(d) => {
                let style = Style::of(text, d, false);
                mask_add(text, d, "src_stage_mask", Mask::Stage(add.src_stage_mask), style, unit, edits);
                mask_add(text, d, "src_access_mask", Mask::Access(add.src_access_mask), style, unit, edits);
                mask_add(text, d, "dst_stage_mask", Mask::Stage(add.dst_stage_mask), style, unit, edits);
                mask_add(text, d, "dst_access_mask", Mask::Access(add.dst_access_mask), style, unit, edits);
            }
            None => {
                let subpass = |s: &str| s.parse::<u64>().map_or_else(|_| V::str(s), V::num);
                let name = |n: String| V::str(if n.is_empty() { "NONE" } else { &n });
                new.entry(rp.clone()).or_default().push(V::obj([
                    ("src_subpass", subpass(src)),
                    ("dst_subpass", subpass(dst)),
                    ("src_stage_mask", name(add.src_stage_mask.to_string())),
                    ("src_access_mask", name(add.src_access_mask.to_string())),
                    ("dst_stage_mask", name(add.dst_stage_mask.to_string())),
                    ("dst_access_mask", name(add.dst_access_mask.to_string())),
                ]));
            }
        }
    }
    for (rp, values) in new {
        let pass = root
            .get("render_passes")
            .and_then(|l| l.items().iter().find(|r| r.get("id").and_then(|i| i.as_str(text)).as_deref() == Some(rp.as_str())))
            .ok_or_else(|| format!("render pass `{rp}` is not in the trace"))?;
        splice::array_push(text, pass, "dependencies", &values, unit, edits);
    }
    Ok(())
}

/// The command buffer `id` of the trace.
fn command_buffer<'n>(root: &'n Node, text: &str, id: &str) -> Result<&'n Node, CliError> {
    root.get("command_buffers")
        .and_then(|cbs| cbs.items().iter().find(|c| c.get("id").and_then(|i| i.as_str(text)).as_deref() == Some(id)))
        .ok_or_else(|| format!("command buffer `{id}` is not in the trace").into())
}

/// Binary semaphores between the submissions of `semaphores`: declared, signalled by the last
/// batch of the first submission and waited by the first batch of the second.
fn add_semaphores(text: &str, root: &Node, semaphores: BTreeMap<(usize, usize), Vec<String>>, unit: &str, edits: &mut Edits) -> Result<(), CliError> {
    if semaphores.is_empty() {
        return Ok(());
    }
    let taken: Vec<String> = root
        .get("semaphores")
        .map(|s| s.items().iter().filter_map(|x| x.as_str(text).or_else(|| x.get("id").and_then(|i| i.as_str(text)))).collect())
        .unwrap_or_default();
    let timeline = root.get("timeline").filter(|t| t.is_array()).ok_or("the trace has no timeline")?;
    let mut ids = Vec::new();
    // (timeline index, batch, list) -> entries to append; one edit per list.
    let mut pushes: BTreeMap<(usize, Option<usize>, &str), Vec<V>> = BTreeMap::new();
    let mut n = 0;
    for ((signal, wait), stages) in semaphores {
        while taken.contains(&format!("gpusim_fix_s{n}")) {
            n += 1;
        }
        let id = format!("gpusim_fix_s{n}");
        n += 1;
        let op = |t: usize| timeline.items().get(t).ok_or_else(|| format!("timeline[{t}] is not in the trace"));
        pushes.entry((signal, batch_of(op(signal)?, true), "signal_semaphores")).or_default().push(V::str(&id));
        pushes.entry((wait, batch_of(op(wait)?, false), "wait_semaphores")).or_default().push(V::obj([("semaphore", V::str(&id)), ("stage_mask", V::str(&stages.join("|")))]));
        ids.push(V::str(&id));
    }
    splice::array_push(text, root, "semaphores", &ids, unit, edits);
    for ((t, batch, key), values) in pushes {
        let Some(op) = timeline.items().get(t) else { continue };
        let target = match batch {
            Some(b) => op.get("batches").and_then(|bs| bs.items().get(b)).ok_or("a submission's batches went missing")?,
            None => op,
        };
        splice::array_push(text, target, key, &values, unit, edits);
    }
    Ok(())
}

/// Which batch of a `queue_submit` semaphores go to: its last (signals) or first (waits) entry
/// of `batches`, or `None` for the operation itself in the one-batch shape.
fn batch_of(op: &Node, last: bool) -> Option<usize> {
    let n = op.get("batches").map_or(0, |b| b.items().len());
    (n > 0).then(|| if last { n - 1 } else { 0 })
}

/// How mask names are spelt in a command.
#[derive(Clone, Copy, Debug, Default)]
struct Style {
    /// Synchronization1 names (`TRANSFER`, `SHADER_READ`, `SHADER_WRITE`): the command is in
    /// the synchronization1 shape, or already names them.
    legacy: bool,
    /// In full (`VK_PIPELINE_STAGE_2_COPY_BIT`).
    long: bool,
}

impl Style {
    /// The style of the masks written in `cmd` (every member whose key ends in `_mask`).
    fn of(text: &str, cmd: &Node, sync1: bool) -> Style {
        let mut names = Vec::new();
        collect_mask_names(text, cmd, &mut names);
        let legacy_name = |n: &str| {
            let u = n.trim().to_ascii_uppercase();
            matches!(u.as_str(), "TRANSFER" | "SHADER_READ" | "SHADER_WRITE")
                || (u.starts_with("VK_PIPELINE_STAGE_") && !u.starts_with("VK_PIPELINE_STAGE_2_"))
                || (u.starts_with("VK_ACCESS_") && !u.starts_with("VK_ACCESS_2_"))
        };
        Style { legacy: sync1 || names.iter().any(|n| legacy_name(n)), long: names.iter().any(|n| n.trim().to_ascii_uppercase().starts_with("VK_")) }
    }

    fn union(self, o: Style) -> Style {
        Style { legacy: self.legacy || o.legacy, long: self.long || o.long }
    }

    /// The name of stage bit `bit` (and the bits that name stands for).
    fn stage(self, bit: S) -> (String, S) {
        let (short, bits) = if self.legacy && (bit.intersects(S::COPY | S::CLEAR | S::BLIT | S::RESOLVE) || bit == S::ALL_TRANSFER) {
            ("TRANSFER".to_string(), S::ALL_TRANSFER)
        } else if self.legacy && bit.intersects(S::INDEX_INPUT | S::VERTEX_ATTRIBUTE_INPUT) {
            ("VERTEX_INPUT".to_string(), S::VERTEX_INPUT)
        } else {
            (bit.to_string(), bit)
        };
        let name = match (self.long, self.legacy) {
            (true, true) => format!("VK_PIPELINE_STAGE_{short}_BIT"),
            (true, false) => format!("VK_PIPELINE_STAGE_2_{short}_BIT"),
            (false, _) => short,
        };
        (name, bits)
    }

    /// The name of access bit `bit` (and the bits that name stands for).
    fn access(self, bit: A) -> (String, A) {
        let (short, bits) = if self.legacy && bit.intersects(A::SHADER_STORAGE_READ | A::SHADER_SAMPLED_READ) {
            ("SHADER_READ".to_string(), A::SHADER_READ)
        } else if self.legacy && bit == A::SHADER_STORAGE_WRITE {
            ("SHADER_WRITE".to_string(), A::SHADER_WRITE)
        } else {
            (bit.to_string(), bit)
        };
        let name = match (self.long, self.legacy) {
            (true, true) => format!("VK_ACCESS_{short}_BIT"),
            (true, false) => format!("VK_ACCESS_2_{short}_BIT"),
            (false, _) => short,
        };
        (name, bits)
    }
}

/// Every name in the masks (`*_mask` members) under `node`.
fn collect_mask_names(text: &str, node: &Node, out: &mut Vec<String>) {
    for m in node.members() {
        if m.key.ends_with("_mask") {
            if let Some(s) = m.value.as_str(text) {
                out.extend(s.split('|').map(str::to_string));
            }
            out.extend(m.value.items().iter().filter_map(|i| i.as_str(text)));
        } else {
            collect_mask_names(text, &m.value, out);
        }
    }
    for i in node.items() {
        collect_mask_names(text, i, out);
    }
}

/// Which mask of a barrier.
#[derive(Clone, Copy)]
enum Mask {
    Stage(S),
    Access(A),
}

/// Adds `add`'s bits that `obj`'s mask `key` lacks to it, named in `style`: appended to its
/// `A|B` string or its list of names (a `NONE` replaced), or the member added.
fn mask_add(text: &str, obj: &Node, key: &str, add: Mask, style: Style, unit: &str, edits: &mut Edits) {
    let node = obj.get(key);
    let written: Vec<String> = match node {
        Some(n) if n.is_array() => n.items().iter().filter_map(|i| i.as_str(text)).collect(),
        Some(n) => n.as_str(text).into_iter().collect(),
        None => Vec::new(),
    };
    let mut names: Vec<String> = Vec::new();
    // Whether the mask names no bit (`NONE`, `VK_ACCESS_2_NONE`, ``): replaced, not extended.
    let empty = match add {
        Mask::Stage(_) => written.iter().filter_map(|s| S::parse(s).ok()).all(|b| b.is_empty()),
        Mask::Access(_) => written.iter().filter_map(|s| A::parse(s).ok()).all(|b| b.is_empty()),
    };
    match add {
        Mask::Stage(bits) => {
            let mut have = written.iter().filter_map(|s| S::parse(s).ok()).fold(S::NONE, |a, b| a | b);
            for bit in bits.iter() {
                let (name, stands) = style.stage(bit);
                if !have.contains(stands) {
                    have |= stands;
                    names.push(name);
                }
            }
        }
        Mask::Access(bits) => {
            let mut have = written.iter().filter_map(|s| A::parse(s).ok()).fold(A::NONE, |a, b| a | b);
            for bit in bits.iter() {
                let (name, stands) = style.access(bit);
                if !have.contains(stands) {
                    have |= stands;
                    names.push(name);
                }
            }
        }
    }
    if names.is_empty() {
        return;
    }
    let values: Vec<V> = names.iter().map(|s| V::str(s)).collect();
    match node {
        Some(n) if n.is_array() && empty => edits.replace(n, V::Arr(values).text_compact()),
        Some(n) if n.is_array() => splice::array_insert(text, n, n.items().len(), &values, unit, edits),
        Some(n) => {
            let old = n.as_str(text).unwrap_or_default();
            let sep = if old.contains(" | ") { " | " } else { "|" };
            let new = if empty { names.join(sep) } else { format!("{old}{sep}{}", names.join(sep)) };
            edits.replace(n, V::str(&new).text_compact());
        }
        None => {
            // Beside the masks that come before it in the format's order.
            const ORDER: [&str; 4] = ["src_stage_mask", "src_access_mask", "dst_stage_mask", "dst_access_mask"];
            let before = &ORDER[..ORDER.iter().position(|k| *k == key).unwrap_or(0)];
            splice::object_set_after(text, obj, key, &V::str(&names.join("|")), before, unit, edits);
        }
    }
}

impl V {
    fn text_compact(&self) -> String {
        splice::render(self, &splice::Layout::Compact)
    }
}

/// What to do to one barrier of a command.
#[derive(Default)]
struct Widen {
    add: MemoryBarrier2,
    /// The range to widen a buffer barrier to (offset, end), or a new buffer barrier's.
    range: Option<(u64, u64)>,
}

/// Which barrier of a command (merged across hazards).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Elem {
    Memory(usize),
    Buffer(usize),
    NewMemory,
    NewBuffer(usize),
}

/// Every widening a command gets.
#[derive(Default)]
struct CommandPlan {
    /// (dependency, barrier) -> what it gets.
    elems: BTreeMap<(Option<usize>, Elem), Widen>,
    /// Bits for a synchronization1 vkCmdSetEvent's stage mask.
    set_stage: S,
    /// The spelling, unified with the paired command's.
    style: Option<Style>,
}

fn or(a: MemoryBarrier2, b: MemoryBarrier2) -> MemoryBarrier2 {
    MemoryBarrier2::new(a.src_stage_mask | b.src_stage_mask, a.src_access_mask | b.src_access_mask, a.dst_stage_mask | b.dst_stage_mask, a.dst_access_mask | b.dst_access_mask)
}

/// The edits that widen the synchronization commands `amendments` name, merged per barrier.
fn widen_commands(text: &str, root: &Node, w: &Workload, amendments: &[Vec<Amendment>], unit: &str, edits: &mut Edits) -> Result<(), CliError> {
    let mut plans: BTreeMap<(String, usize), CommandPlan> = BTreeMap::new();
    let command = |cb: &str, k: usize| -> Result<&Node, CliError> {
        command_buffer(root, text, cb)?.get("commands").and_then(|c| c.items().get(k)).ok_or_else(|| format!("command {k} of command buffer `{cb}` is not in the trace").into())
    };
    let sync1_of = |cmd: &Node| cmd.get("src_stage_mask").is_some() || cmd.get("stage_mask").is_some() && cmd.get("dependency").is_none();
    for list in amendments {
        // The commands of one hazard are spelt alike: a wait and its set must stay equal.
        let style = list.iter().map(|a| command(&a.command.command_buffer, a.command.command).map(|c| Style::of(text, c, sync1_of(c)))).collect::<Result<Vec<_>, _>>()?.into_iter().fold(Style::default(), Style::union);
        for a in list {
            let plan = plans.entry((a.command.command_buffer.clone(), a.command.command)).or_default();
            plan.style = Some(plan.style.map_or(style, |s| s.union(style)));
            let buffer_size = |b: usize| w.buffers.get(b).map_or(u64::MAX, |d| d.size);
            let (elem, range) = match &a.target {
                BarrierTarget::Memory(i) => (Elem::Memory(*i), None),
                BarrierTarget::Buffer { index, range } => {
                    let whole = w.command_buffers.iter().find(|c| c.name == a.command.command_buffer).and_then(|c| buffer_barrier(&c.commands[a.command.command], a.dependency, *index)).map_or(u64::MAX, buffer_size);
                    (Elem::Buffer(*index), range.map(|(o, s)| (o, s.map_or(whole, |s| o + s))))
                }
                BarrierTarget::NewMemory => (Elem::NewMemory, None),
                BarrierTarget::NewBuffer { buffer, offset, size } => (Elem::NewBuffer(*buffer), Some((*offset, size.map_or(buffer_size(*buffer), |s| offset + s)))),
                BarrierTarget::SetEventStageMask => {
                    plan.set_stage |= a.add.src_stage_mask;
                    continue;
                }
            };
            let e = plan.elems.entry((a.dependency, elem)).or_default();
            e.add = or(e.add, a.add);
            e.range = match (e.range, range) {
                (Some((o1, e1)), Some((o2, e2))) => Some((o1.min(o2), e1.max(e2))),
                (x, y) => x.or(y),
            };
        }
    }
    for ((cb, k), plan) in plans {
        let cmd = command(&cb, k)?;
        let sync1 = sync1_of(cmd);
        let style = plan.style.unwrap_or_default();
        let name = cmd.get("cmd").and_then(|c| c.as_str(text)).unwrap_or_default();
        if !plan.set_stage.is_empty() {
            mask_add(text, cmd, "stage_mask", Mask::Stage(plan.set_stage), style, unit, edits);
        }
        // Stage bits of a synchronization1 command go to its own two masks.
        let (mut cmd_src, mut cmd_dst) = (S::NONE, S::NONE);
        // (dependency, list) -> barriers to add.
        let mut added: BTreeMap<(Option<usize>, &str), Vec<V>> = BTreeMap::new();
        // Where a dependency's barrier lists are: in `dependency` of a synchronization2 set, in
        // `dependencies[k]` of a synchronization2 wait, else in the command.
        let dep_of = |dep_index: Option<usize>| -> Result<&Node, CliError> {
            match (name.as_str(), sync1) {
                ("set_event", false) => cmd.get("dependency"),
                ("wait_events", false) => cmd.get("dependencies").and_then(|d| d.items().get(dep_index.unwrap_or(0))),
                _ => Some(cmd),
            }
            .ok_or_else(|| format!("command {k} of command buffer `{cb}` has no dependency to widen").into())
        };
        for ((dep_index, elem), widen) in &plan.elems {
            let dep = dep_of(*dep_index)?;
            let add = widen.add;
            if sync1 {
                cmd_src |= add.src_stage_mask;
                cmd_dst |= add.dst_stage_mask;
            }
            let existing = match elem {
                Elem::Memory(i) => dep.get("memory_barriers").and_then(|l| l.items().get(*i)),
                Elem::Buffer(i) => dep.get("buffer_memory_barriers").and_then(|l| l.items().get(*i)),
                Elem::NewMemory | Elem::NewBuffer(_) => None,
            };
            let Some(el) = existing else {
                // A new barrier (or, in a synchronization1 command listing none, the one its
                // stage masks make, given access masks).
                let mut masks: Vec<(&str, V)> = Vec::new();
                let names_s = |m: S| if m.is_empty() { "NONE".to_string() } else { m.iter().map(|b| style.stage(b).0).collect::<Vec<_>>().join("|") };
                let names_a = |m: A| if m.is_empty() { "NONE".to_string() } else { m.iter().map(|b| style.access(b).0).collect::<Vec<_>>().join("|") };
                if !sync1 {
                    masks.push(("src_stage_mask", V::str(&names_s(add.src_stage_mask))));
                }
                masks.push(("src_access_mask", V::str(&names_a(add.src_access_mask))));
                if !sync1 {
                    masks.push(("dst_stage_mask", V::str(&names_s(add.dst_stage_mask))));
                }
                masks.push(("dst_access_mask", V::str(&names_a(add.dst_access_mask))));
                let list = match elem {
                    Elem::NewBuffer(b) => {
                        let (offset, end) = widen.range.unwrap_or((0, u64::MAX));
                        let desc = w.buffers.get(*b).ok_or("a buffer went missing")?;
                        masks.push(("buffer", V::str(&desc.name)));
                        masks.push(("offset", V::num(offset)));
                        masks.push(("size", if end >= desc.size { V::str("WHOLE_SIZE") } else { V::num(end - offset) }));
                        "buffer_memory_barriers"
                    }
                    _ if sync1 && add.src_access_mask.is_empty() && add.dst_access_mask.is_empty() => continue,
                    _ => "memory_barriers",
                };
                added.entry((*dep_index, list)).or_default().push(V::obj(masks));
                continue;
            };
            if !sync1 {
                mask_add(text, el, "src_stage_mask", Mask::Stage(add.src_stage_mask), style, unit, edits);
            }
            mask_add(text, el, "src_access_mask", Mask::Access(add.src_access_mask), style, unit, edits);
            if !sync1 {
                mask_add(text, el, "dst_stage_mask", Mask::Stage(add.dst_stage_mask), style, unit, edits);
            }
            mask_add(text, el, "dst_access_mask", Mask::Access(add.dst_access_mask), style, unit, edits);
            if let (Elem::Buffer(_), Some((offset, end))) = (elem, widen.range) {
                let size = el.get("size").and_then(|s| s.as_u64(text));
                let old_offset = el.get("offset").and_then(|o| o.as_u64(text)).unwrap_or(0);
                if offset != old_offset {
                    splice::object_set_after(text, el, "offset", &V::num(offset), &["buffer"], unit, edits);
                }
                let buffer = el.get("buffer").and_then(|b| b.as_str(text)).and_then(|b| w.buffers.iter().find(|d| d.name == b));
                let new_size = match buffer {
                    Some(d) if end >= d.size => None,
                    _ => Some(end - offset),
                };
                match (new_size, size) {
                    (None, None) => {}
                    (None, Some(_)) => splice::object_set(text, el, "size", &V::str("WHOLE_SIZE"), unit, edits),
                    (Some(n), old) if old != Some(n) => splice::object_set_after(text, el, "size", &V::num(n), &["buffer", "offset"], unit, edits),
                    _ => {}
                }
            }
        }
        for ((dep_index, list), values) in added {
            splice::array_push(text, dep_of(dep_index)?, list, &values, unit, edits);
        }
        if sync1 {
            mask_add(text, cmd, "src_stage_mask", Mask::Stage(cmd_src), style, unit, edits);
            mask_add(text, cmd, "dst_stage_mask", Mask::Stage(cmd_dst), style, unit, edits);
        }
    }
    Ok(())
}

/// Widens the image barriers of pipeline barriers as `widenings` say (those of one barrier
/// merged): their masks, or for a synchronization1 command the stage bits in its own two masks.
fn widen_image_barriers(text: &str, root: &Node, widenings: &[sim_core::hazard::diagnose::ImageWidening], unit: &str, edits: &mut Edits) -> Result<(), CliError> {
    let mut merged: BTreeMap<(String, usize, usize), MemoryBarrier2> = BTreeMap::new();
    for iw in widenings {
        let e = merged.entry((iw.command.command_buffer.clone(), iw.command.command, iw.index)).or_default();
        *e = or(*e, iw.add);
    }
    // Stage bits of a synchronization1 command, per command.
    let mut sync1: BTreeMap<(String, usize), (S, S)> = BTreeMap::new();
    for ((cb, k, index), add) in merged {
        let cmd = command_buffer(root, text, &cb)?.get("commands").and_then(|c| c.items().get(k)).ok_or_else(|| format!("command {k} of command buffer `{cb}` is not in the trace"))?;
        let is_sync1 = cmd.get("src_stage_mask").is_some();
        let style = Style::of(text, cmd, is_sync1);
        let el = cmd.get("image_memory_barriers").and_then(|l| l.items().get(index)).ok_or_else(|| format!("command {k} of command buffer `{cb}` has no image memory barrier {index}"))?;
        if is_sync1 {
            let e = sync1.entry((cb.clone(), k)).or_default();
            (e.0, e.1) = (e.0 | add.src_stage_mask, e.1 | add.dst_stage_mask);
        } else {
            mask_add(text, el, "src_stage_mask", Mask::Stage(add.src_stage_mask), style, unit, edits);
            mask_add(text, el, "dst_stage_mask", Mask::Stage(add.dst_stage_mask), style, unit, edits);
        }
        mask_add(text, el, "src_access_mask", Mask::Access(add.src_access_mask), style, unit, edits);
        mask_add(text, el, "dst_access_mask", Mask::Access(add.dst_access_mask), style, unit, edits);
    }
    for ((cb, k), (src, dst)) in sync1 {
        let cmd = command_buffer(root, text, &cb)?.get("commands").and_then(|c| c.items().get(k)).ok_or_else(|| format!("command {k} of command buffer `{cb}` is not in the trace"))?;
        let style = Style::of(text, cmd, true);
        mask_add(text, cmd, "src_stage_mask", Mask::Stage(src), style, unit, edits);
        mask_add(text, cmd, "dst_stage_mask", Mask::Stage(dst), style, unit, edits);
    }
    Ok(())
}

/// The buffer of buffer barrier `index` of a synchronization command (of event `dependency`'s
/// part, for a wait).
fn buffer_barrier(c: &sim_core::api::Command, dependency: Option<usize>, index: usize) -> Option<usize> {
    use sim_core::api::Command;
    let dep = match c {
        Command::PipelineBarrier(d) | Command::SetEvent { dependency: d, .. } | Command::WaitEvents { dependency: d, .. } => d,
        _ => return None,
    };
    let skip = match dependency {
        Some(k) if !dep.per_event.is_empty() => dep.per_event[..k.min(dep.per_event.len())].iter().map(|p| p.1).sum(),
        _ => 0,
    };
    dep.buffer_memory_barriers.get(skip + index).map(|b| b.buffer)
}

/// `text` with its relative file names (members whose key ends in `_file`) rewritten to name the
/// same files from `output`'s folder, relative to it.
fn rebase_text(text: &str, input: &Path, output: &Path) -> Result<String, CliError> {
    let (from, to) = (folder(input), folder(output));
    if from == to {
        return Ok(text.to_string());
    }
    let root = splice::parse(text)?;
    let mut edits = Edits::default();
    fn walk(text: &str, n: &Node, from: &Path, to: &Path, edits: &mut Edits) {
        for m in n.members() {
            match m.value.as_str(text) {
                Some(s) if m.key.ends_with("_file") && Path::new(&s).is_relative() => {
                    let new = relative_to(&from.join(&s), to).to_string_lossy().into_owned();
                    if new != s {
                        edits.replace(&m.value, serde_json::Value::from(new).to_string());
                    }
                }
                _ => walk(text, &m.value, from, to, edits),
            }
        }
        for i in n.items() {
            walk(text, i, from, to, edits);
        }
    }
    walk(text, &root, &from, &to, &mut edits);
    Ok(edits.apply(text)?)
}

/// The absolute folder of a file (resolved through links where it exists).
fn folder(file: &Path) -> PathBuf {
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::canonicalize(dir).unwrap_or_else(|_| std::env::current_dir().map(|c| c.join(dir)).unwrap_or_else(|_| dir.to_path_buf()))
}

/// `target` (absolute) as a path relative to folder `dir` (absolute).
fn relative_to(target: &Path, dir: &Path) -> PathBuf {
    let target = std::fs::canonicalize(target).unwrap_or_else(|_| normalize(target));
    let (t, d): (Vec<Component>, Vec<Component>) = (target.components().collect(), dir.components().collect());
    let common = t.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return target;
    }
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// `p` without `.` and with `..` applied to the names before it.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Rewrites the trace's relative file names (shaders, payloads) so that they still name the
/// same files from `to`'s folder, relative to it.
pub fn rebase_files(v: &mut Value, from: &Path, to: &Path) {
    let (from_dir, to_dir) = (folder(from), folder(to));
    if from_dir == to_dir {
        return;
    }
    fn walk(v: &mut Value, from: &Path, to: &Path) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k.ends_with("_file")
                        && let Value::String(s) = x
                        && Path::new(s.as_str()).is_relative()
                    {
                        *s = relative_to(&from.join(s.as_str()), to).to_string_lossy().into_owned();
                    } else {
                        walk(x, from, to);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, from, to)),
            _ => {}
        }
    }
    walk(v, &from_dir, &to_dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(relative_to(Path::new("/a/b/shaders/x.wgsl"), Path::new("/a/c")), PathBuf::from("../b/shaders/x.wgsl"));
        assert_eq!(relative_to(Path::new("/a/b/x.wgsl"), Path::new("/a/b")), PathBuf::from("x.wgsl"));
        assert_eq!(relative_to(Path::new("/a/b/../x.wgsl"), Path::new("/a/d/e")), PathBuf::from("../../x.wgsl"));
    }

    #[test]
    fn names_follow_the_command_spelling() {
        let sync2 = Style::default();
        assert_eq!(sync2.stage(S::CLEAR).0, "CLEAR");
        let legacy = Style { legacy: true, long: false };
        assert_eq!(legacy.stage(S::CLEAR), ("TRANSFER".to_string(), S::ALL_TRANSFER));
        assert_eq!(legacy.access(A::SHADER_STORAGE_WRITE).0, "SHADER_WRITE");
        let long = Style { legacy: false, long: true };
        assert_eq!(long.access(A::TRANSFER_WRITE).0, "VK_ACCESS_2_TRANSFER_WRITE_BIT");
        let long1 = Style { legacy: true, long: true };
        assert_eq!(long1.stage(S::COPY).0, "VK_PIPELINE_STAGE_TRANSFER_BIT");
    }
}
