//! Why a hazard is one, and the smallest synchronization that removes it.
//!
//! For two commands on one queue the diagnosis looks at the nearest synchronization command
//! between them (a pipeline barrier or an event wait) and names the first mask that falls short,
//! in the order the specification applies them: the first execution scope (srcStageMask), the
//! first access scope (srcAccessMask, for a write to be made available), the second execution
//! scope (dstStageMask), the second access scope (dstAccessMask, for it to be made visible), and
//! a buffer barrier's range. Commands on two queues need a semaphore; host accesses need a wait,
//! a barrier to HOST_READ, a flush or an invalidate.
//!
//! The suggestion is the minimal barrier: the prior access's stage (and, when it wrote, its
//! access) as the first scopes, the hazardous access's stage (and, after a write, its access) as
//! the second, placed just before the hazardous command (a barrier's first scope reaches back
//! to everything earlier on its queue), or just after the prior command when the second access is
//! the host's. `gpusim check --fix` (`src/cli/fix.rs`) writes those into the trace.
//!
//! Where a barrier or an event wait already stands between the two accesses and is only too
//! narrow, the diagnosis also says how to widen it ([`Diagnosis::amend`]): the bits to add to
//! one of its barriers' masks, or the range to widen a buffer barrier to, or a barrier to add to
//! the command. An event wait is widened together with the vkCmdSetEvent it waits for (the set's
//! stage mask holds the first execution scope, and a synchronization2 wait must equal its set).
//! A driver engineer reading the fixed trace then sees the barrier they wrote, corrected, rather
//! than a second barrier beside it.

use serde::Serialize;

use super::{Hazard, Place};
use crate::api::program::{CommandRef, Program};
use crate::api::action::SyncCommand;
use crate::api::workload::{DependencyInfo, HostOp};
use crate::sync::valid::{BarrierKind, Shape, check_access_stages};
use crate::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, StageAccess, first_scope_stages, second_scope_stages};

/// The [`Suggestion::HostOp`] `op` of a hazard no added synchronization removes (the program's
/// layout must change).
pub const NO_FIX: &str = "none: change which bytes the host writes";

/// What to add to remove a hazard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Suggestion {
    /// A pipeline barrier (synchronization2 masks), before or after a command.
    Barrier {
        /// Place it just before this command.
        #[serde(skip_serializing_if = "Option::is_none")]
        insert_before: Option<CommandRef>,
        /// Place it just after this command (when the second access is the host's).
        #[serde(skip_serializing_if = "Option::is_none")]
        insert_after: Option<CommandRef>,
        /// srcStageMask.
        src_stage_mask: String,
        /// srcAccessMask.
        src_access_mask: String,
        /// dstStageMask.
        dst_stage_mask: String,
        /// dstAccessMask.
        dst_access_mask: String,
    },
    /// An image barrier's old layout: the layout its image is in, instead of UNDEFINED, so
    /// that the transition keeps the contents a later access reads.
    OldLayout {
        /// The pipeline barrier or event wait.
        command: CommandRef,
        /// The image barrier's index in its dependency's `image_memory_barriers`.
        image_barrier: usize,
        /// The layout to name (`None`: the subresources were in several layouts, so no one
        /// old layout keeps them all; split the barrier).
        old_layout: Option<String>,
    },
    /// A subpass dependency of a render pass (added, or an existing one with the same two
    /// subpasses widened): what orders an access inside a render pass instance, or one after an
    /// automatic layout transition, where no pipeline barrier can.
    SubpassDependency {
        /// The render pass's id.
        render_pass: String,
        /// `EXTERNAL` or the subpass index.
        src_subpass: String,
        /// `EXTERNAL` or the subpass index.
        dst_subpass: String,
        /// srcStageMask.
        src_stage_mask: String,
        /// srcAccessMask.
        src_access_mask: String,
        /// dstStageMask.
        dst_stage_mask: String,
        /// dstAccessMask.
        dst_access_mask: String,
    },
    /// A binary semaphore signalled by one submission and waited by another.
    Semaphore {
        /// Timeline index of the submission that signals it.
        signal_submit: usize,
        /// Timeline index of the submission that waits.
        wait_submit: usize,
        /// The wait's stage mask.
        wait_stage_mask: String,
    },
    /// A host operation before a timeline entry (`wait_for_fences`/`device_wait_idle`, a flush,
    /// an invalidate).
    HostOp {
        /// The operation, as the trace writes it (`device_wait_idle`,
        /// `flush_mapped_memory_ranges`, `invalidate_mapped_memory_ranges`).
        op: &'static str,
        /// Place it just before this timeline entry.
        before_timeline: usize,
        /// The memory object, for flushes and invalidates.
        #[serde(skip_serializing_if = "Option::is_none")]
        memory: Option<String>,
        /// The range of the memory object, whole atoms (`None`: all of it).
        #[serde(skip_serializing_if = "Option::is_none")]
        range: Option<(u64, u64)>,
    },
}

/// A hazard explained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    /// The nearest synchronization command between the two accesses, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrier_at: Option<CommandRef>,
    /// One sentence: which mask of which command falls short, or what is missing.
    pub diagnosis: String,
    /// The synchronization that removes the hazard.
    pub suggested: Suggestion,
    /// How to widen the synchronization commands already in place so that they remove the
    /// hazard instead (empty: none can be, and [`Diagnosis::suggested`] is to be added). Not in
    /// the report: the suggestion is what the report names.
    #[serde(skip)]
    pub amend: Vec<Amendment>,
}

/// Which barrier of a synchronization command an [`Amendment`] widens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarrierTarget {
    /// Global memory barrier `index` of the dependency. In the synchronization1 shape, a
    /// command that lists no barriers has one, with no access masks, made of its stage masks.
    Memory(usize),
    /// Buffer memory barrier `index`.
    Buffer {
        /// Its index in the dependency's buffer memory barriers.
        index: usize,
        /// Its range widened to `(offset, size)` (`None`: VK_WHOLE_SIZE), when it misses the
        /// hazard's bytes.
        range: Option<(u64, Option<u64>)>,
    },
    /// A global memory barrier added to the command.
    NewMemory,
    /// A buffer memory barrier added to the command.
    NewBuffer {
        /// The buffer (index in the workload).
        buffer: usize,
        /// Offset in the buffer.
        offset: u64,
        /// Size (`None`: VK_WHOLE_SIZE).
        size: Option<u64>,
    },
    /// The stage mask of a synchronization1 vkCmdSetEvent (its first execution scope).
    SetEventStageMask,
}

/// A change to a synchronization command already in the program: bits added to the masks of
/// one of its barriers (or the masks of a barrier added to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amendment {
    /// The command (a pipeline barrier, an event wait, or the vkCmdSetEvent a wait waits for).
    pub command: CommandRef,
    /// For a synchronization2 vkCmdWaitEvents2: which event's dependency holds the barrier
    /// (`dependencies[k]` in the trace). `None` for other commands and the synchronization1
    /// shape.
    pub dependency: Option<usize>,
    /// Which barrier.
    pub target: BarrierTarget,
    /// The bits to add to each of its four masks (for a new barrier: its masks). Stage bits of
    /// a synchronization1 command go to the command's own stage masks.
    pub add: MemoryBarrier2,
}

fn name<T: std::fmt::Display>(m: T) -> String {
    // An empty mask is Vulkan's NONE, not an empty word in a sentence.
    let s = m.to_string();
    if s.is_empty() { "NONE".into() } else { s }
}

/// The queue a submission (timeline index) went to.
fn queue_of(prog: &Program<'_>, submit: usize) -> Option<usize> {
    match prog.workload.timeline.get(submit) {
        Some(HostOp::QueueSubmit { queue, .. }) => Some(*queue),
        _ => None,
    }
}


fn describe(prog: &Program<'_>, c: &CommandRef) -> String {
    let vk = prog.instance_of(c).map_or("command", |i| prog.vk_name(i));
    format!("{vk} {}", crate::api::program::place_text(prog.workload, c))
}

/// The masks each barrier element of a dependency has, with the buffer range it covers
/// (`None`: every address).
fn elements(prog: &Program<'_>, dep: &DependencyInfo) -> Vec<(MemoryBarrier2, Option<std::ops::Range<u64>>)> {
    let mut v: Vec<(MemoryBarrier2, Option<std::ops::Range<u64>>)> = dep.memory_barriers.iter().map(|b| (*b, None)).collect();
    for b in &dep.buffer_memory_barriers {
        let size = b.size.unwrap_or(prog.workload.buffers[b.buffer].size.saturating_sub(b.offset));
        let start = prog.buffer_addr(b.buffer, b.offset);
        v.push((b.barrier, Some(start..start + size)));
    }
    for b in &dep.image_memory_barriers {
        let base = prog.buffer_addr(prog.image_resource(b.image), 0);
        for (o, n) in prog.workload.images[b.image].layout.range_bytes(&b.range).unwrap_or_default() {
            v.push((b.barrier, Some(base + o..base + o + n)));
        }
    }
    v
}

/// Explains `h` and suggests its fix.
pub fn diagnose(prog: &Program<'_>, h: &Hazard) -> Diagnosis {
    let mut d = diagnose_commands(prog, h);
    if let Some(s) = render_pass_fix(prog, h) {
        d.suggested = s;
        d.amend.clear();
    }
    d
}

/// The fix of a hazard that a render pass decides: an access inside a render pass instance
/// (a draw, a load or store operation, a transition into a subpass) after one outside it is
/// ordered by a dependency from EXTERNAL (a pipeline barrier inside a render pass instance needs
/// a self-dependency, and one before it does not reach its automatic transitions), or, for
/// dynamic rendering, by a barrier before vkCmdBeginRendering; an access in a later subpass of
/// the same instance by a dependency between the two subpasses; an access after a render
/// pass's final layout transition by a dependency to EXTERNAL (nothing chains from an implicit
/// dependency's empty second scope). `None` where the general fix holds.
fn render_pass_fix(prog: &Program<'_>, h: &Hazard) -> Option<Suggestion> {
    let (Place::Command(p), Place::Command(a)) = (&h.prior, &h.at) else { return None };
    if queue_of(prog, p.submit) != queue_of(prog, a.submit) {
        return None;
    }
    let w = prog.workload;
    let (ip, ia) = (prog.instance_of(p)?, prog.instance_of(a)?);
    let (pi, ai) = (&prog.instances[ip], &prog.instances[ia]);
    let memory = h.prior_usage.is_write() && h.id != "SYNC-HAZARD-WRITE-AFTER-READ" && h.id != "SYNC-HAZARD-WRITE-RACING-READ";
    let attachment = |u: StageAccess| {
        // A transition stands for the attachment accesses of the render pass around it.
        if u.is_layout_transition() {
            let image = prog.resource_by_name(&h.resource).and_then(|r| prog.resource_image(r));
            let depth = image.is_some_and(|i| w.images[i].layout.desc.format.is_depth_stencil());
            if depth { (S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE) } else { (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE) }
        } else {
            (u.stage(), u.access())
        }
    };
    let (ps, pa) = attachment(h.prior_usage);
    let (us, ua) = attachment(h.usage);
    let (pa, ua) = if memory { (pa, ua) } else { (A::NONE, A::NONE) };
    let pass_a = crate::api::render::pass_of(w, ai.cb, ai.index);
    let pass_p = crate::api::render::pass_of(w, pi.cb, pi.index);
    // The later access is inside an instance the earlier one is not in.
    if let Some(pa_) = pass_a.filter(|x| !(pi.cb == ai.cb && pi.index >= x.begin && pass_p.is_some_and(|y| y.begin == x.begin))) {
        return Some(match pa_.render_pass {
            Some(rp) => Suggestion::SubpassDependency {
                render_pass: w.render_passes[rp].name.clone(),
                src_subpass: "EXTERNAL".into(),
                dst_subpass: pa_.subpass.to_string(),
                src_stage_mask: name(ps),
                src_access_mask: name(pa),
                dst_stage_mask: name(us),
                dst_access_mask: name(ua),
            },
            None => Suggestion::Barrier {
                insert_before: Some(crate::api::program::CommandRef { command: pa_.begin, ..a.clone() }),
                insert_after: None,
                src_stage_mask: name(ps),
                src_access_mask: name(pa),
                dst_stage_mask: name(us),
                dst_access_mask: name(ua),
            },
        });
    }
    // Both in one render pass instance, in two subpasses: a dependency between them.
    if let (Some(x), Some(y)) = (pass_p, pass_a)
        && pi.cb == ai.cb
        && x.begin == y.begin
        && x.subpass < y.subpass
        && let Some(rp) = x.render_pass
    {
        return Some(Suggestion::SubpassDependency {
            render_pass: w.render_passes[rp].name.clone(),
            src_subpass: x.subpass.to_string(),
            dst_subpass: y.subpass.to_string(),
            src_stage_mask: name(ps),
            src_access_mask: name(pa),
            dst_stage_mask: name(us),
            dst_access_mask: name(ua),
        });
    }
    // The earlier access is a render pass's final transition.
    if h.prior_usage.is_layout_transition()
        && let Some(x) = pass_p.filter(|x| x.render_pass.is_some() && x.end == Some(pi.index))
    {
        let rp = &w.render_passes[x.render_pass?];
        return Some(Suggestion::SubpassDependency {
            render_pass: rp.name.clone(),
            src_subpass: (rp.subpasses.len().saturating_sub(1)).to_string(),
            dst_subpass: "EXTERNAL".into(),
            src_stage_mask: name(ps),
            src_access_mask: name(if memory { pa } else { A::NONE }),
            dst_stage_mask: name(us),
            dst_access_mask: name(ua),
        });
    }
    None
}

/// Explains `h` from the synchronization commands between its two accesses.
fn diagnose_commands(prog: &Program<'_>, h: &Hazard) -> Diagnosis {
    let memory = h.prior_usage.is_write() && h.id != "SYNC-HAZARD-WRITE-AFTER-READ" && h.id != "SYNC-HAZARD-WRITE-RACING-READ";
    let (src_access, dst_access) = if memory { (h.prior_usage.access(), h.usage.access()) } else { (A::NONE, A::NONE) };
    let barrier = |before: Option<CommandRef>, after: Option<CommandRef>| Suggestion::Barrier {
        insert_before: before,
        insert_after: after,
        src_stage_mask: name(h.prior_usage.stage()),
        src_access_mask: name(src_access),
        dst_stage_mask: name(h.usage.stage()),
        dst_access_mask: name(dst_access),
    };
    if let (Some(d), Place::Command(t)) = (&h.discarded, &h.prior) {
        return discard(prog, h, d, t);
    }
    match (&h.prior, &h.at) {
        (Place::Command(p), Place::Command(a)) if h.usage.is_layout_transition() && queue_of(prog, p.submit) == queue_of(prog, a.submit) => {
            transition_after(prog, h, p, a, memory).unwrap_or_else(|| command_pair(prog, h, p, a, memory, barrier))
        }
        (Place::Command(p), Place::Command(a)) if h.prior_usage.is_layout_transition() && queue_of(prog, p.submit) == queue_of(prog, a.submit) => {
            transition_before(prog, h, p, a, memory).unwrap_or_else(|| command_pair(prog, h, p, a, memory, barrier))
        }
        (Place::Command(p), Place::Command(a)) => command_pair(prog, h, p, a, memory, barrier),
        (Place::Host { timeline }, Place::Command(a)) => {
            // A host write the device read without a flush: flush the atoms it wrote.
            let (memory_name, range) = match prog.workload.timeline.get(*timeline) {
                Some(HostOp::HostWrite { memory, offset, data }) => {
                    (Some(prog.workload.memories[*memory].name.clone()), Some(atoms(*offset, data.len() as u64, prog.workload.memories[*memory].size)))
                }
                _ => (None, None),
            };
            Diagnosis {
                amend: Vec::new(), barrier_at: None,
                diagnosis: format!(
                    "the host wrote {} at timeline[{timeline}] in memory that is not HOST_COHERENT and no vkFlushMappedMemoryRanges made the write available before {} was submitted",
                    h.resource,
                    describe(prog, a)
                ),
                suggested: Suggestion::HostOp { op: "flush_mapped_memory_ranges", before_timeline: a.submit, memory: memory_name, range },
            }
        }
        (Place::Command(p), Place::Host { timeline }) => {
            let is_flush = matches!(prog.workload.timeline.get(*timeline), Some(HostOp::FlushMappedMemoryRanges(_)));
            if h.not_waited {
                Diagnosis {
                    amend: Vec::new(), barrier_at: None,
                    diagnosis: format!("the host accesses {} at timeline[{timeline}] without waiting for {} (no fence wait, vkQueueWaitIdle or vkDeviceWaitIdle retires it first)", h.resource, describe(prog, p)),
                    suggested: Suggestion::HostOp { op: "device_wait_idle", before_timeline: *timeline, memory: None, range: None },
                }
            } else if is_flush {
                Diagnosis {
                    amend: Vec::new(), barrier_at: None,
                    diagnosis: format!(
                        "the flush at timeline[{timeline}] writes whole atoms of {} back, over bytes {} wrote: no synchronization fixes this, the host must keep its writes to atoms the device does not write",
                        h.resource,
                        describe(prog, p)
                    ),
                    suggested: Suggestion::HostOp { op: NO_FIX, before_timeline: *timeline, memory: Some(h.resource.clone()), range: None },
                }
            } else if h.id == "GPUSIM-HOST-MISSING-INVALIDATE" {
                Diagnosis {
                    amend: Vec::new(), barrier_at: None,
                    diagnosis: format!("{} is not HOST_COHERENT and no vkInvalidateMappedMemoryRanges after the wait made {}'s writes visible to the host read at timeline[{timeline}]", h.resource, describe(prog, p)),
                    suggested: Suggestion::HostOp {
                        op: "invalidate_mapped_memory_ranges",
                        before_timeline: *timeline,
                        memory: Some(h.resource.clone()),
                        range: prog.workload.memories.iter().find(|m| m.name == h.resource).map(|m| atoms(h.offset, h.size, m.size)),
                    },
                }
            } else {
                Diagnosis {
                    amend: host_read_amendment(prog, h, p),
                    barrier_at: None,
                    diagnosis: format!(
                        "no barrier after {} has dstStageMask HOST and dstAccessMask HOST_READ, so its writes are not made available to the host read at timeline[{timeline}] (a fence signal does not do it)",
                        describe(prog, p)
                    ),
                    suggested: Suggestion::Barrier {
                        insert_before: None,
                        insert_after: Some(p.clone()),
                        src_stage_mask: name(h.prior_usage.stage()),
                        src_access_mask: name(h.prior_usage.access()),
                        dst_stage_mask: name(S::HOST),
                        dst_access_mask: name(A::HOST_READ),
                    },
                }
            }
        }
        (Place::Host { timeline: wrote }, Place::Host { timeline }) if h.id == "GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH" => Diagnosis {
            amend: Vec::new(), barrier_at: None,
            diagnosis: format!(
                "the host wrote {} at timeline[{wrote}] in memory that is not HOST_COHERENT and invalidated those bytes at timeline[{timeline}] before any vkFlushMappedMemoryRanges: written and then invalidated without a flush, their contents are undefined (the host's cache may drop its writes)",
                h.resource
            ),
            suggested: Suggestion::HostOp {
                op: "flush_mapped_memory_ranges",
                before_timeline: *timeline,
                memory: Some(h.resource.clone()),
                range: prog.workload.memories.iter().find(|m| m.name == h.resource).map(|m| atoms(h.offset, h.size, m.size)),
            },
        },
        (Place::Host { .. }, Place::Host { timeline }) => Diagnosis {
            amend: Vec::new(), barrier_at: None,
            diagnosis: "two host accesses".into(),
            suggested: Suggestion::HostOp { op: "device_wait_idle", before_timeline: *timeline, memory: None, range: None },
        },
    }
}

/// A read of contents a transition from UNDEFINED (image barrier `d.barrier` of command `t`)
/// discarded: no dependency brings them back, the transition must name the layout they are in.
fn discard(prog: &Program<'_>, h: &Hazard, d: &crate::hazard::Discarded, t: &CommandRef) -> Diagnosis {
    let writer = match &d.write {
        Place::Command(c) => describe(prog, c),
        Place::Host { timeline } => format!("the host at timeline[{timeline}]"),
    };
    let reader = match &h.at {
        Place::Command(c) => describe(prog, c),
        Place::Host { timeline } => format!("the host read at timeline[{timeline}]"),
    };
    let keep = match &d.layout {
        Some(l) => format!("an old_layout of {l}, the layout it is in, keeps them"),
        None => "its subresources were in different layouts, so one barrier per layout, each naming its old layout, keeps them".to_string(),
    };
    Diagnosis {
        barrier_at: Some(t.clone()),
        diagnosis: format!(
            "image memory barrier {} of {} transitions image `{}` from UNDEFINED, which leaves its contents undefined (a driver may drop or reinitialize them), after {writer} wrote them and before {reader} reads them; {keep}",
            d.barrier,
            describe(prog, t),
            d.image
        ),
        suggested: Suggestion::OldLayout { command: t.clone(), image_barrier: d.barrier, old_layout: d.layout.clone() },
        amend: Vec::new(),
    }
}

/// Stages at which nothing accesses memory, so an access mask names nothing there: in a first
/// scope BOTTOM_OF_PIPE is ALL_COMMANDS with an access mask of 0, in a second TOP_OF_PIPE is
/// (synchronization2; TOP_OF_PIPE in a first scope and BOTTOM_OF_PIPE in a second are no stage
/// at all, which the stage masks' own sentences say).
const NO_ACCESS_STAGES: S = S::TOP_OF_PIPE.union(S::BOTTOM_OF_PIPE);

/// For a write after write whose earlier write was made available, what gpusim asks beyond the
/// memory model, in one clause (empty for other hazards).
fn beyond_memory_model(h: &Hazard) -> &'static str {
    if h.id == "SYNC-HAZARD-WRITE-AFTER-WRITE" {
        " (the memory model asks only that the earlier write be made available before a later write; gpusim, like the validation layer and the seed, also asks for the later write's access in dstAccessMask, for caches that write whole dirty lines back)"
    } else {
        ""
    }
}

fn command_pair(prog: &Program<'_>, h: &Hazard, p: &CommandRef, a: &CommandRef, memory: bool, barrier: impl Fn(Option<CommandRef>, Option<CommandRef>) -> Suggestion) -> Diagnosis {
    let (qp, qa) = (queue_of(prog, p.submit), queue_of(prog, a.submit));
    let queues = &prog.workload.queues;
    if qp != qa {
        let (qp, qa) = (qp.unwrap_or(0), qa.unwrap_or(0));
        if p.submit > a.submit {
            // The earlier access was submitted later (the queue that made it was held back by an
            // event): a binary semaphore cannot be waited before its signal is submitted.
            return Diagnosis {
                amend: Vec::new(), barrier_at: None,
                diagnosis: format!(
                    "{} on queue {} was submitted after {} on queue {}, and ran first only because the latter's queue was held back: nothing orders them, and a semaphore would have to be waited before its signal is submitted",
                    describe(prog, p),
                    queues[qp],
                    describe(prog, a),
                    queues[qa]
                ),
                suggested: Suggestion::HostOp { op: NO_FIX, before_timeline: a.submit, memory: None, range: None },
            };
        }
        return Diagnosis {
            amend: Vec::new(), barrier_at: None,
            diagnosis: format!(
                "{} runs on queue {} and {} on queue {}, and no semaphore signalled after the first submission is waited by the second with {} in its stage mask",
                describe(prog, p),
                queues[qp],
                describe(prog, a),
                queues[qa],
                h.usage.stage()
            ),
            suggested: Suggestion::Semaphore { signal_submit: p.submit, wait_submit: a.submit, wait_stage_mask: name(h.usage.stage()) },
        };
    }
    let (Some(ip), Some(ia)) = (prog.instance_of(p), prog.instance_of(a)) else {
        return Diagnosis { amend: Vec::new(), barrier_at: None, diagnosis: "no synchronization orders the two commands".into(), suggested: barrier(Some(a.clone()), None) };
    };
    // The synchronization commands between them on the queue, the nearest last.
    let same_queue = |i: usize| queue_of(prog, prog.instances[i].at.submit) == qa;
    // A render pass's begin performs its dependency before its own load operations, and its end
    // after its own store operations: those count as between the two accesses.
    let lowered = |i: usize| prog.render_lowered(prog.instances[i].cb, prog.instances[i].index).filter(|r| r.sync.is_some());
    let from = if lowered(ip).is_some_and(|r| r.sync_last) { ip } else { ip + 1 };
    let to = if lowered(ia).is_some_and(|r| !r.sync_last) { ia + 1 } else { ia };
    let between: Vec<usize> = (from..to).filter(|&i| same_queue(i) && matches!(prog.sync_command(i), Some(SyncCommand::Barrier(_) | SyncCommand::WaitEvents { .. }))).collect();
    let suggested = barrier(Some(a.clone()), None);
    let Some(&nearest) = between.last() else {
        let across = if p.submit != a.submit { " (a barrier's first scope reaches back to earlier submissions on the same queue)" } else { "" };
        return Diagnosis {
            amend: Vec::new(), barrier_at: None,
            diagnosis: format!("no pipeline barrier or event wait on queue {} comes between {} and {}{across}", queues[qa.unwrap_or(0)], describe(prog, p), describe(prog, a)),
            suggested,
        };
    };
    let at = prog.instances[nearest].at.clone();
    let (dep, wait) = match prog.sync_command(nearest) {
        Some(SyncCommand::WaitEvents { dependency, .. }) => (dependency, true),
        Some(SyncCommand::Barrier(d) | SyncCommand::SetEvent { dependency: d, .. }) => (d, false),
        // `between` holds barriers and event waits only.
        Some(SyncCommand::ResetEvent { .. }) | None => return Diagnosis { amend: Vec::new(), barrier_at: None, diagnosis: "no synchronization orders the two commands".into(), suggested },
    };
    let (prior_stage, stage) = (h.prior_usage.stage(), h.usage.stage());
    // A render pass's begin, next subpass and end perform its subpass dependencies (explicit or
    // implicit) and layout transitions: there is no barrier in the trace to widen, so the fix
    // is the barrier suggested (or a subpass dependency the report names).
    let render_pass = prog.render_lowered(prog.instances[nearest].cb, prog.instances[nearest].index).is_some_and(|r| r.sync.is_some());
    let this = if render_pass { format!("the subpass dependency {} performs (the render pass's own, or the implicit one Vulkan defines where it gives none)", describe(prog, &at)) } else { describe(prog, &at) };
    // A wait whose event a set after the earlier command found already signalled: that set had
    // no effect, and the wait's first scope ends at the set that signalled it, before.
    if let Some(SyncCommand::WaitEvents { events, .. }) = prog.sync_command(nearest) {
        let mut signalled: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut ignored: Vec<(usize, usize)> = Vec::new();
        for i in (0..nearest).filter(|&i| same_queue(i)) {
            match prog.sync_command(i) {
                Some(SyncCommand::SetEvent { event, .. }) if signalled.contains_key(&event) => ignored.push((event, i)),
                Some(SyncCommand::SetEvent { event, .. }) => {
                    signalled.insert(event, i);
                }
                Some(SyncCommand::ResetEvent { event }) => {
                    signalled.remove(&event);
                }
                _ => {}
            }
        }
        let late = ignored.iter().find(|(e, i)| events.contains(e) && *i > ip && signalled.get(e).is_some_and(|&s| s < ip));
        if let Some(&(e, i)) = late {
            let set = signalled[&e];
            return Diagnosis {
                amend: Vec::new(), barrier_at: Some(at),
                diagnosis: format!(
                    "{this} waits on event `{}`, which {} signalled before {}; {} found the event already signalled (no vkCmdResetEvent2 between) and so had no effect, and the wait's first scope ends at the set that signalled it",
                    prog.workload.events[e],
                    describe(prog, &prog.instances[set].at),
                    describe(prog, p),
                    describe(prog, &prog.instances[i].at)
                ),
                suggested,
            };
        }
    }
    let els_of = |d: &DependencyInfo| elements(prog, d);
    let elements = els_of(dep);
    let mask = |f: &dyn Fn(&MemoryBarrier2) -> String| {
        let mut names: Vec<String> = Vec::new();
        for (b, _) in &elements {
            let n = f(b);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names.join(", ")
    };
    // An earlier barrier between them that had the prior access in its first scope and that the
    // nearest chains after: the execution dependency is there, the visibility is not.
    let chained_from = between[..between.len() - 1].iter().rev().find_map(|&e| {
        let Some(SyncCommand::Barrier(d)) = prog.sync_command(e) else { return None };
        let els = els_of(d);
        let reaches = els.iter().any(|(b, _)| first_scope_stages(b.src_stage_mask, None).intersects(prior_stage));
        let chains = els.iter().any(|(b, _)| elements.iter().any(|(n, _)| second_scope_stages(b.dst_stage_mask, None).intersects(first_scope_stages(n.src_stage_mask, None))));
        (reaches && chains).then_some((e, els))
    });
    // The elements whose execution scopes hold each access.
    let src_holding: Vec<&MemoryBarrier2> = elements.iter().map(|(b, _)| b).filter(|b| first_scope_stages(b.src_stage_mask, None).intersects(prior_stage)).collect();
    let dst_holding: Vec<&MemoryBarrier2> = elements.iter().map(|(b, _)| b).filter(|b| second_scope_stages(b.dst_stage_mask, None).intersects(stage)).collect();
    // An access mask that would name the access, given only at a stage that performs none: the
    // stage mask is at fault, not the access mask.
    let src_no_access = !src_holding.is_empty()
        && src_holding.iter().all(|b| !b.src_stage_mask.is_empty() && NO_ACCESS_STAGES.contains(b.src_stage_mask))
        && src_holding.iter().any(|b| MemoryBarrier2::new(prior_stage, b.src_access_mask, S::NONE, A::NONE).first_usages().contains(h.prior_usage));
    let dst_no_access = !dst_holding.is_empty()
        && dst_holding.iter().all(|b| !b.dst_stage_mask.is_empty() && NO_ACCESS_STAGES.contains(b.dst_stage_mask))
        && dst_holding.iter().any(|b| MemoryBarrier2::new(S::NONE, A::NONE, stage, b.dst_access_mask).second_usages().contains(h.usage));
    let sentence = if let (Some((e, els)), true) = (&chained_from, memory && !elements.iter().any(|(b, _)| first_scope_stages(b.src_stage_mask, None).intersects(prior_stage))) {
        format!(
            "{this} is chained after {} (its srcStageMask {} meets that barrier's dstStageMask {}), so the two commands are ordered, but visibility does not pass along the chain: that barrier makes {}'s write visible to dstAccessMask {} only, and {this} has dstAccessMask {}, neither of which includes {}{}",
            describe(prog, &prog.instances[*e].at),
            mask(&|b| name(b.src_stage_mask)),
            els.iter().map(|(b, _)| name(b.dst_stage_mask)).collect::<Vec<_>>().join(", "),
            describe(prog, p),
            els.iter().map(|(b, _)| name(b.dst_access_mask)).collect::<Vec<_>>().join(", "),
            mask(&|b| name(b.dst_access_mask)),
            h.usage.access(),
            beyond_memory_model(h)
        )
    } else if !elements.iter().any(|(b, _)| first_scope_stages(b.src_stage_mask, None).intersects(prior_stage)) {
        format!("{this} has srcStageMask {}, which does not contain {prior_stage}, the stage of {}", mask(&|b| name(b.src_stage_mask)), describe(prog, p))
    } else if !elements.iter().any(|(b, _)| second_scope_stages(b.dst_stage_mask, None).intersects(stage)) {
        format!("{this} has dstStageMask {}, which does not contain {stage}, the stage of {}", mask(&|b| name(b.dst_stage_mask)), describe(prog, a))
    } else if elements.len() > 1 && !elements.iter().any(|(b, _)| first_scope_stages(b.src_stage_mask, None).intersects(prior_stage) && second_scope_stages(b.dst_stage_mask, None).intersects(stage)) {
        format!(
            "{this}'s barriers do not chain with each other: one has {prior_stage} (the stage of {}) in its first scope and another {stage} (the stage of {}) in its second, but no one barrier holds both, so nothing orders the two",
            describe(prog, p),
            describe(prog, a)
        )
    } else if memory && !elements.iter().any(|(b, _)| b.first_usages().contains(h.prior_usage)) && src_no_access {
        format!(
            "{this} has srcStageMask {}, a stage that performs no memory access (in a first scope it means ALL_COMMANDS with an access mask of 0), so srcAccessMask {} names no access there and {}'s {} is not made available: the stage mask, not the access mask, must name {prior_stage}",
            mask(&|b| name(b.src_stage_mask)),
            mask(&|b| name(b.src_access_mask)),
            describe(prog, p),
            h.prior_usage
        )
    } else if memory && !elements.iter().any(|(b, _)| b.first_usages().contains(h.prior_usage)) {
        format!(
            "{this} has srcAccessMask {}, which does not include {} ({}'s {}), so its writes are not made available",
            mask(&|b| name(b.src_access_mask)),
            h.prior_usage.access(),
            describe(prog, p),
            h.prior_usage
        )
    } else if memory && !elements.iter().any(|(b, _)| b.second_usages().contains(h.usage)) && dst_no_access {
        format!(
            "{this} has dstStageMask {}, a stage that performs no memory access (in a second scope it means ALL_COMMANDS with an access mask of 0), so dstAccessMask {} names no access there and the write is not made visible to {}: the stage mask, not the access mask, must name {stage}{}",
            mask(&|b| name(b.dst_stage_mask)),
            mask(&|b| name(b.dst_access_mask)),
            h.usage,
            beyond_memory_model(h)
        )
    } else if memory && !elements.iter().any(|(b, _)| b.second_usages().contains(h.usage)) {
        format!("{this} has dstAccessMask {}, but the access is {}: the write is not made visible to it{}", mask(&|b| name(b.dst_access_mask)), h.usage, beyond_memory_model(h))
    } else if memory {
        format!("{this}'s buffer barriers that name the right masks do not cover bytes [{}, {}) of {}", h.offset, h.offset + h.size, h.resource)
    } else if wait {
        format!("{this} waits on an event whose vkCmdSetEvent comes before {}, so the event does not cover it", describe(prog, p))
    } else {
        format!("{this} does not order {} before {}", describe(prog, p), describe(prog, a))
    };
    let sentence = if wait && sentence.starts_with(&this) { format!("{sentence} (the wait's masks; its first scope is also limited to what came before the matching vkCmdSetEvent)") } else { sentence };
    let amend = if render_pass { Vec::new() } else { amendments(prog, h, ip, &between, memory) };
    Diagnosis { amend, barrier_at: Some(at), diagnosis: sentence, suggested }
}

/// The image barriers of the synchronization command at `c` that transition the layout of
/// `h`'s image, on some of `h`'s bytes: for each, the index of the dependency part it is in (a
/// synchronization2 wait's event, `None` otherwise), its index within that part's image
/// barriers, and the barrier.
pub fn transitions_at<'p>(prog: &'p Program<'_>, c: &CommandRef, h: &Hazard) -> Vec<(Option<usize>, usize, &'p crate::api::workload::ImageMemoryBarrier)> {
    let Some(image) = prog.resource_by_name(&h.resource).and_then(|r| prog.resource_image(r)) else { return Vec::new() };
    let layout = &prog.workload.images[image].layout;
    let on_bytes = |b: &crate::api::workload::ImageMemoryBarrier| layout.range_bytes(&b.range).unwrap_or_default().iter().any(|&(o, n)| o < h.offset + h.size && h.offset < o + n);
    let Some(inst) = prog.instance_of(c) else { return Vec::new() };
    let (dep, wait) = match prog.sync_command(inst) {
        Some(SyncCommand::Barrier(d)) => (d, false),
        Some(SyncCommand::WaitEvents { dependency, .. }) => (dependency, true),
        _ => return Vec::new(),
    };
    // A synchronization2 wait lists each event's dependency in turn.
    let mut parts: Vec<(Option<usize>, usize)> = Vec::new();
    if wait && !dep.sync1 && !dep.per_event.is_empty() {
        for (k, &(_, _, n)) in dep.per_event.iter().enumerate() {
            parts.extend((0..n).map(|j| (Some(k), j)));
        }
    }
    dep.image_memory_barriers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.image == image && b.old_layout != b.new_layout && on_bytes(b))
        .map(|(i, b)| {
            let (part, index) = parts.get(i).copied().unwrap_or((None, i));
            (part, index, b)
        })
        .collect()
}

/// The bits to add to an image barrier's masks `b` so that its layout transition comes after
/// `h`'s prior access: that access's stage in its srcStageMask and, for a write, its access in
/// its srcAccessMask (the transition writes the image's bytes, so a write must be made
/// available first, a read only be done).
pub fn transition_widening(h: &Hazard, b: &MemoryBarrier2, memory: bool) -> MemoryBarrier2 {
    let (ps, pa) = (h.prior_usage.stage(), h.prior_usage.access());
    let stage = if first_scope_stages(b.src_stage_mask, None).intersects(ps) { S::NONE } else { ps };
    let access = if memory && !MemoryBarrier2::new(b.src_stage_mask | stage, b.src_access_mask, S::NONE, A::NONE).first_usages().contains(h.prior_usage) { pa } else { A::NONE };
    MemoryBarrier2::new(stage, access.difference(b.src_access_mask), S::NONE, A::NONE)
}

/// How to widen the image barrier whose layout transition is one of `h`'s accesses
/// ([`crate::sync::StageAccess::IMAGE_LAYOUT_TRANSITION`]): when it is the hazardous access (a
/// write after write or after read at a pipeline barrier or event wait), the transition's own
/// first scope must hold the earlier access; when it is the earlier one, its second scope must
/// hold the later access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageWidening {
    /// The command (a pipeline barrier or an event wait).
    pub command: CommandRef,
    /// For a synchronization2 vkCmdWaitEvents2 of several events: which event's dependency
    /// holds the image barrier (`dependencies[k]` in the trace).
    pub dependency: Option<usize>,
    /// The image barrier's index in that dependency's `image_memory_barriers`.
    pub index: usize,
    /// The bits to add to its masks.
    pub add: MemoryBarrier2,
}

/// The [`ImageWidening`] that removes `h`, when its hazardous access is a layout transition
/// on the queue of its earlier access (`None` otherwise; an event wait must be widened together
/// with the vkCmdSetEvent2 it waits for).
pub fn image_widening(prog: &Program<'_>, h: &Hazard) -> Option<ImageWidening> {
    let (Place::Command(p), Place::Command(a)) = (&h.prior, &h.at) else { return None };
    // A render pass's automatic transitions have no image barrier in the trace to widen.
    if render_pass_sync(prog, p) || render_pass_sync(prog, a) {
        return None;
    }
    if queue_of(prog, p.submit) != queue_of(prog, a.submit) {
        return None;
    }
    let memory = h.prior_usage.is_write() && h.id != "SYNC-HAZARD-WRITE-AFTER-READ" && h.id != "SYNC-HAZARD-WRITE-RACING-READ";
    let (at, add) = if h.usage.is_layout_transition() {
        let &(dependency, index, b) = transitions_at(prog, a, h).first()?;
        (ImageWidening { command: a.clone(), dependency, index, add: MemoryBarrier2::default() }, transition_widening(h, &b.barrier, memory))
    } else if h.prior_usage.is_layout_transition() {
        let &(dependency, index, b) = transitions_at(prog, p, h).first()?;
        (ImageWidening { command: p.clone(), dependency, index, add: MemoryBarrier2::default() }, transition_visible(h, &b.barrier, memory))
    } else {
        return None;
    };
    (add != MemoryBarrier2::default()).then_some(ImageWidening { add, ..at })
}

/// Whether the command at `c` is a render pass's begin, next subpass or end: its dependencies
/// and layout transitions are the render pass's, not barriers of the trace.
fn render_pass_sync(prog: &Program<'_>, c: &CommandRef) -> bool {
    prog.instance_of(c).is_some_and(|i| prog.render_lowered(prog.instances[i].cb, prog.instances[i].index).is_some_and(|r| r.sync.is_some()))
}

/// How a transition at `c` (image barrier `index`) is named in a sentence.
fn transition_name(prog: &Program<'_>, c: &CommandRef, index: usize, h: &Hazard, old: &str, new: &str) -> String {
    if render_pass_sync(prog, c) {
        format!("the automatic layout transition of {} from {old} to {new} that {} performs, under its subpass dependency (the render pass's own, or the implicit one Vulkan defines where it gives none)", h.resource, describe(prog, c))
    } else {
        format!("the image memory barrier {index} of {}, which transitions {} from {old} to {new}", describe(prog, c), h.resource)
    }
}

/// The bits to add to an image barrier's masks `b` so that the later access of `h` is in the
/// second scope of its layout transition (`h`'s prior access): its stage in the dstStageMask
/// and, after a write (the transition is one), its access in the dstAccessMask.
pub fn transition_visible(h: &Hazard, b: &MemoryBarrier2, memory: bool) -> MemoryBarrier2 {
    let (ds, da) = (h.usage.stage(), h.usage.access());
    let stage = if second_scope_stages(b.dst_stage_mask, None).intersects(ds) { S::NONE } else { ds };
    let access = if memory && !MemoryBarrier2::new(S::NONE, A::NONE, b.dst_stage_mask | stage, b.dst_access_mask).second_usages().contains(h.usage) { da } else { A::NONE };
    MemoryBarrier2::new(S::NONE, A::NONE, stage, access.difference(b.dst_access_mask))
}

/// An access (at `a`) not in the second scope of the layout transition it follows on its queue
/// (at `p`): the transition's write is made available and visible to its barrier's second scope
/// only. A barrier after it chains from that scope (its dstStageMask); the transition's own
/// barrier can be widened instead.
fn transition_before(prog: &Program<'_>, h: &Hazard, p: &CommandRef, a: &CommandRef, memory: bool) -> Option<Diagnosis> {
    let &(_, index, b) = transitions_at(prog, p, h).first()?;
    let m = &b.barrier;
    let add = transition_visible(h, m, memory);
    let what = transition_name(prog, p, index, h, &b.old_layout, &b.new_layout);
    let later = describe(prog, a);
    let mut sentence = if !add.dst_stage_mask.is_empty() {
        format!("{what}, has dstStageMask {}, which does not contain {}, the stage of {later}", name(m.dst_stage_mask), h.usage.stage())
    } else if !add.dst_access_mask.is_empty() {
        format!("{what}, has dstAccessMask {}, but the access is {}: the transition's write is not made visible to it", name(m.dst_access_mask), h.usage)
    } else {
        format!("{what}, does not order {later} after its transition")
    };
    sentence.push_str(": a layout transition is made available and visible to its barrier's second scope only, and no later barrier chained from that scope makes it visible to this access");
    let suggested = Suggestion::Barrier {
        insert_before: Some(a.clone()),
        insert_after: None,
        src_stage_mask: name(m.dst_stage_mask),
        src_access_mask: name(A::NONE),
        dst_stage_mask: name(h.usage.stage()),
        dst_access_mask: name(if memory { h.usage.access() } else { A::NONE }),
    };
    Some(Diagnosis { barrier_at: Some(p.clone()), diagnosis: sentence, suggested, amend: Vec::new() })
}

/// A layout transition (at the barrier or event wait `a`) not ordered after the earlier
/// access `p` on its queue: the transition's own barrier is what falls short, as the validation
/// layer checks it (its first scope, chained or not, must hold the earlier access).
fn transition_after(prog: &Program<'_>, h: &Hazard, p: &CommandRef, a: &CommandRef, memory: bool) -> Option<Diagnosis> {
    let &(_, index, b) = transitions_at(prog, a, h).first()?;
    let wait = matches!(prog.instance_of(a).and_then(|i| prog.sync_command(i)), Some(SyncCommand::WaitEvents { .. }));
    let m = &b.barrier;
    let add = transition_widening(h, m, memory);
    let what = transition_name(prog, a, index, h, &b.old_layout, &b.new_layout);
    let prior = describe(prog, p);
    let mut sentence = if !add.src_stage_mask.is_empty() {
        format!("{what}, has srcStageMask {}, which does not contain {}, the stage of {prior}", name(m.src_stage_mask), h.prior_usage.stage())
    } else if !add.src_access_mask.is_empty() {
        format!("{what}, has srcAccessMask {}, which does not include {} ({prior}'s {}), so the write is not made available before the transition", name(m.src_access_mask), h.prior_usage.access(), h.prior_usage)
    } else {
        format!("{what}, does not have {prior} in its first scope")
    };
    sentence.push_str(": a layout transition writes the image's bytes once its barrier's first scope is done, so it is ordered after no access outside that scope");
    if wait {
        sentence.push_str(" (an event wait's first scope is also limited to what came before the matching vkCmdSetEvent)");
    }
    let widen: Vec<String> = [("srcStageMask", name(add.src_stage_mask)), ("srcAccessMask", name(add.src_access_mask))].into_iter().filter(|(_, v)| v != "NONE").map(|(k, v)| format!("{v} to its {k}")).collect();
    if !widen.is_empty() && !render_pass_sync(prog, a) {
        sentence.push_str(&format!("; widen that image barrier: add {}", widen.join(" and ")));
    }
    // Inserted before the transition's barrier, a barrier from the earlier access to the
    // transition's first execution scope orders them through the chain (where that scope is
    // not empty; else only widening the image barrier does).
    let suggested = Suggestion::Barrier {
        insert_before: Some(a.clone()),
        insert_after: None,
        src_stage_mask: name(h.prior_usage.stage()),
        src_access_mask: name(if memory { h.prior_usage.access() } else { A::NONE }),
        dst_stage_mask: name(m.src_stage_mask),
        dst_access_mask: name(A::NONE),
    };
    Some(Diagnosis { barrier_at: Some(a.clone()), diagnosis: sentence, suggested, amend: Vec::new() })
}

/// `[offset, offset + size)` of a memory object of `total` bytes, widened to whole atoms of
/// [`super::DEFAULT_ATOM`] bytes (the end clipped to the object), as flushes and invalidates
/// take them.
fn atoms(offset: u64, size: u64, total: u64) -> (u64, u64) {
    let atom = super::DEFAULT_ATOM;
    let start = offset / atom * atom;
    let end = (offset + size).div_ceil(atom).saturating_mul(atom).min(total);
    (start, end - start)
}

/// The bits to add to `b`'s masks so that it orders `h`'s two accesses (and, for a memory
/// hazard, makes the earlier write available and visible to the later access), and how many
/// of its masks change; `None` when no mask needs a bit (the barrier is not what falls short)
/// or the widened barrier would name an access none of its stages performs.
fn widen(h: &Hazard, b: &MemoryBarrier2, memory: bool, kind: BarrierKind, shape: Shape) -> Option<(MemoryBarrier2, usize)> {
    let (ps, pa, ds, da) = (h.prior_usage.stage(), h.prior_usage.access(), h.usage.stage(), h.usage.access());
    // The fewest bits first: the access alone, the stage alone, then both.
    let (src_stage, src_access) = if memory {
        [(S::NONE, A::NONE), (S::NONE, pa), (ps, A::NONE), (ps, pa)]
            .into_iter()
            .find(|&(s, a)| MemoryBarrier2::new(b.src_stage_mask | s, b.src_access_mask | a, S::NONE, A::NONE).first_usages().contains(h.prior_usage))?
    } else if first_scope_stages(b.src_stage_mask, None).intersects(ps) {
        (S::NONE, A::NONE)
    } else {
        (ps, A::NONE)
    };
    let (dst_stage, dst_access) = if memory {
        [(S::NONE, A::NONE), (S::NONE, da), (ds, A::NONE), (ds, da)]
            .into_iter()
            .find(|&(s, a)| MemoryBarrier2::new(S::NONE, A::NONE, b.dst_stage_mask | s, b.dst_access_mask | a).second_usages().contains(h.usage))?
    } else if second_scope_stages(b.dst_stage_mask, None).intersects(ds) {
        (S::NONE, A::NONE)
    } else {
        (ds, A::NONE)
    };
    let add = MemoryBarrier2::new(src_stage.difference(b.src_stage_mask), src_access.difference(b.src_access_mask), dst_stage.difference(b.dst_stage_mask), dst_access.difference(b.dst_access_mask));
    let widened = MemoryBarrier2::new(b.src_stage_mask | add.src_stage_mask, b.src_access_mask | add.src_access_mask, b.dst_stage_mask | add.dst_stage_mask, b.dst_access_mask | add.dst_access_mask);
    check_access_stages(&widened, kind, shape).ok()?;
    let changed = [!add.src_stage_mask.is_empty(), !add.src_access_mask.is_empty(), !add.dst_stage_mask.is_empty(), !add.dst_access_mask.is_empty()].iter().filter(|&&c| c).count();
    Some((add, changed))
}

/// The masks a barrier added to a command needs for `h`: the earlier access's stage (and, for a
/// memory hazard, its access) in the first scope, the later one's in the second.
fn minimal(h: &Hazard, memory: bool) -> MemoryBarrier2 {
    let (pa, da) = if memory { (h.prior_usage.access(), h.usage.access()) } else { (A::NONE, A::NONE) };
    MemoryBarrier2::new(h.prior_usage.stage(), pa, h.usage.stage(), da)
}

/// The barrier of `dep` to widen for `h`, and how: among its global memory barriers
/// `mem` and buffer memory barriers `bufs` (index ranges: an event's part of a wait's merged
/// dependency), the one that needs the fewest changed masks, preferring one whose range holds
/// the hazard's bytes to one whose range must grow; a barrier added to the command when none
/// can be widened (a buffer barrier on another buffer, no barrier at all). Indices are within
/// the ranges given.
fn widen_dependency(prog: &Program<'_>, h: &Hazard, dep: &DependencyInfo, mem: std::ops::Range<usize>, bufs: std::ops::Range<usize>, memory: bool) -> Option<(BarrierTarget, MemoryBarrier2)> {
    let shape = if dep.sync1 { Shape::Sync1PipelineBarrier } else { Shape::Sync2 };
    let (start, size) = h.device_range(prog)?;
    let end = start + size;
    // (changed masks, whether the range grows, target, bits).
    let mut best: Option<(usize, bool, BarrierTarget, MemoryBarrier2)> = None;
    let mut consider = |cost: usize, grows: bool, target: BarrierTarget, add: MemoryBarrier2| {
        if best.as_ref().is_none_or(|(c, g, ..)| (cost + usize::from(grows), grows) < (*c + usize::from(*g), *g)) {
            best = Some((cost, grows, target, add));
        }
    };
    for (k, b) in dep.memory_barriers.get(mem.clone())?.iter().enumerate() {
        if let Some((add, cost)) = widen(h, b, memory, BarrierKind::Memory, shape) {
            consider(cost, false, BarrierTarget::Memory(k), add);
        }
    }
    // The hazard's buffer and bytes in it (a host access names a memory object: no buffer).
    let buffer = match h.at {
        Place::Command(_) => prog.workload.buffers.iter().position(|b| b.name == h.resource),
        Place::Host { .. } => None,
    };
    for (k, b) in dep.buffer_memory_barriers.get(bufs.clone())?.iter().enumerate() {
        let Some((add, cost)) = widen(h, &b.barrier, memory, BarrierKind::Buffer, shape) else { continue };
        let len = b.size.unwrap_or(prog.workload.buffers[b.buffer].size.saturating_sub(b.offset));
        let from = prog.buffer_addr(b.buffer, b.offset);
        // The execution dependency of a buffer barrier orders every access of its stages;
        // only its memory dependency is limited to its range.
        if !memory || (from <= start && end <= from + len) {
            consider(cost, false, BarrierTarget::Buffer { index: k, range: None }, add);
        } else if buffer == Some(b.buffer) {
            let whole = prog.workload.buffers[b.buffer].size;
            let offset = b.offset.min(h.offset);
            let last = (b.offset + len).max(h.offset + h.size);
            let size = if last >= whole { None } else { Some(last - offset) };
            consider(cost, true, BarrierTarget::Buffer { index: k, range: Some((offset, size)) }, add);
        }
    }
    if let Some((cost, grows, target, add)) = best {
        // A barrier that needs nothing is not what falls short.
        return (cost > 0 || grows).then_some((target, add));
    }
    let add = minimal(h, memory);
    let only_buffers = dep.memory_barriers.get(mem).is_some_and(<[_]>::is_empty) && !dep.buffer_memory_barriers.get(bufs).is_some_and(<[_]>::is_empty);
    match buffer {
        // Beside buffer barriers, a buffer barrier of the hazard's own bytes.
        Some(b) if only_buffers && memory => {
            let whole = prog.workload.buffers[b].size;
            let size = if h.offset + h.size >= whole { None } else { Some(h.size) };
            Some((BarrierTarget::NewBuffer { buffer: b, offset: h.offset, size }, add))
        }
        _ => Some((BarrierTarget::NewMemory, add)),
    }
}

/// The event-set state on the queue of `inst` just before it: per event, the instance of the
/// vkCmdSetEvent2 that signalled it (a set of an event already signalled has no effect; a reset
/// unsignals it).
fn signalled_before(prog: &Program<'_>, inst: usize) -> std::collections::HashMap<usize, usize> {
    let q = queue_of(prog, prog.instances[inst].at.submit);
    let mut signalled = std::collections::HashMap::new();
    for i in (0..inst).filter(|&i| queue_of(prog, prog.instances[i].at.submit) == q) {
        match prog.sync_command(i) {
            Some(SyncCommand::SetEvent { event, .. }) => {
                signalled.entry(event).or_insert(i);
            }
            Some(SyncCommand::ResetEvent { event }) => {
                signalled.remove(&event);
            }
            _ => {}
        }
    }
    signalled
}

/// How to widen the nearest of the synchronization commands `between` (instances between the
/// earlier access, instance `ip`, and the hazardous one, on their queue) that can be widened to
/// remove `h`. A pipeline barrier's first scope reaches back to everything before it; an event
/// wait's ends at the set that signalled its event, which must come after the earlier access,
/// and is widened with it.
fn amendments(prog: &Program<'_>, h: &Hazard, ip: usize, between: &[usize], memory: bool) -> Vec<Amendment> {
    for &c in between.iter().rev() {
        let at = prog.instances[c].at.clone();
        match prog.sync_command(c) {
            Some(SyncCommand::Barrier(dep)) => {
                if let Some((target, add)) = widen_dependency(prog, h, dep, 0..dep.memory_barriers.len(), 0..dep.buffer_memory_barriers.len(), memory) {
                    return vec![Amendment { command: at, dependency: None, target, add }];
                }
            }
            Some(SyncCommand::WaitEvents { events, dependency }) => {
                let signalled = signalled_before(prog, c);
                // The first event whose set came after the earlier access: that set's first scope
                // can hold it.
                let Some((k, set)) = events.iter().enumerate().find_map(|(k, e)| signalled.get(e).filter(|&&s| s > ip).map(|&s| (k, s))) else { continue };
                let Some(SyncCommand::SetEvent { dependency: set_dep, .. }) = prog.sync_command(set) else { continue };
                // The wait's part for event k: its own dependency in the synchronization2 shape.
                let (mem, bufs) = if dependency.sync1 || dependency.per_event.is_empty() {
                    (0..dependency.memory_barriers.len(), 0..dependency.buffer_memory_barriers.len())
                } else {
                    let (m0, b0) = dependency.per_event[..k].iter().fold((0, 0), |(m, b), &(x, y, _)| (m + x, b + y));
                    let (m, b, _) = dependency.per_event[k];
                    (m0..m0 + m, b0..b0 + b)
                };
                let Some((target, add)) = widen_dependency(prog, h, dependency, mem, bufs, memory) else { continue };
                let set_at = prog.instances[set].at.clone();
                let sync1_set = set_dep.sync1 && set_dep.memory_barriers.first().is_some_and(|b| b.dst_stage_mask.is_empty());
                let mut out = vec![Amendment { command: at, dependency: (!dependency.sync1 && !dependency.per_event.is_empty()).then_some(k), target: target.clone(), add }];
                if sync1_set {
                    // vkCmdSetEvent's stage mask is the first execution scope.
                    if !add.src_stage_mask.is_empty() {
                        out.push(Amendment { command: set_at, dependency: None, target: BarrierTarget::SetEventStageMask, add: MemoryBarrier2::new(add.src_stage_mask, A::NONE, S::NONE, A::NONE) });
                    }
                } else if !set_dep.sync1 {
                    // vkCmdWaitEvents2's dependency must equal its set's.
                    out.push(Amendment { command: set_at, dependency: None, target, add });
                } else {
                    continue;
                }
                return out;
            }
            _ => {}
        }
    }
    Vec::new()
}

/// For a host read of a device write no barrier made available to the host: how to widen a
/// pipeline barrier after the write, in the same submission (the host's wait covers it), so
/// that its second scope is HOST_READ. Of several, the one needing the fewest changes, the
/// latest on a tie.
fn host_read_amendment(prog: &Program<'_>, h: &Hazard, p: &CommandRef) -> Vec<Amendment> {
    let Some(ip) = prog.instance_of(p) else { return Vec::new() };
    let mut best: Option<(usize, Amendment)> = None;
    for c in ip + 1..prog.instances.len() {
        if prog.instances[c].at.submit != p.submit {
            break;
        }
        let Some(SyncCommand::Barrier(dep)) = prog.sync_command(c) else { continue };
        let Some((target, add)) = widen_dependency(prog, h, dep, 0..dep.memory_barriers.len(), 0..dep.buffer_memory_barriers.len(), true) else { continue };
        let cost = [!add.src_stage_mask.is_empty(), !add.src_access_mask.is_empty(), !add.dst_stage_mask.is_empty(), !add.dst_access_mask.is_empty()].iter().filter(|&&x| x).count()
            + usize::from(!matches!(target, BarrierTarget::Memory(_) | BarrierTarget::Buffer { range: None, .. })) * 4;
        if best.as_ref().is_none_or(|(b, _)| cost <= *b) {
            best = Some((cost, Amendment { command: prog.instances[c].at.clone(), dependency: None, target, add }));
        }
    }
    best.map(|(_, a)| vec![a]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(commands: &str) -> crate::trace::LoadedTrace {
        let text = format!(
            r#"{{"gpusim_trace": 1, "memory": [{{"id": "m", "size": 512, "properties": "DEVICE_LOCAL"}}],
            "buffers": [{{"id": "A", "memory": "m", "size": 256}}, {{"id": "B", "memory": "m", "offset": 256, "size": 256}}],
            "command_buffers": [{{"id": "cb", "commands": [{commands}]}}],
            "timeline": [{{"op": "queue_submit", "command_buffers": ["cb"]}}]}}"#
        );
        crate::trace::load_str(&text, None).expect("loads")
    }

    fn diagnoses(commands: &str) -> Vec<Diagnosis> {
        let t = trace(commands);
        let prog = Program::new(&t.workload).expect("program");
        crate::hazard::detect(&t.workload).expect("detect").iter().map(|h| diagnose(&prog, h)).collect()
    }

    const FILL: &str = r#"{"cmd": "fill_buffer", "dst_buffer": "A", "size": "WHOLE_SIZE", "data": 1}"#;
    const COPY: &str = r#"{"cmd": "copy_buffer", "src_buffer": "A", "dst_buffer": "B", "regions": [{"size": 256}]}"#;

    /// A barrier with the right stages and no dstAccessMask gets the access added; nothing else.
    #[test]
    fn a_narrow_barrier_is_widened_by_the_bits_it_lacks() {
        let d = diagnoses(&format!(
            r#"{FILL}, {{"cmd": "pipeline_barrier", "memory_barriers": [{{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COPY"}}]}}, {COPY}"#
        ));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].amend.len(), 1);
        let a = &d[0].amend[0];
        assert_eq!((a.command.command, &a.target, a.dependency), (1, &BarrierTarget::Memory(0), None));
        assert_eq!(a.add, MemoryBarrier2::new(S::NONE, A::NONE, S::NONE, A::TRANSFER_READ));
    }

    /// A buffer barrier of the right buffer whose range misses the bytes is widened to them; one
    /// of another buffer gets a barrier beside it.
    #[test]
    fn a_buffer_barrier_range_is_widened_or_joined() {
        let masks = r#""src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COPY", "dst_access_mask": "TRANSFER_READ""#;
        let d = diagnoses(&format!(r#"{FILL}, {{"cmd": "pipeline_barrier", "buffer_memory_barriers": [{{{masks}, "buffer": "A", "offset": 0, "size": 64}}]}}, {COPY}"#));
        assert_eq!(d[0].amend[0].target, BarrierTarget::Buffer { index: 0, range: Some((0, None)) });
        assert_eq!(d[0].amend[0].add, MemoryBarrier2::default());
        let d = diagnoses(&format!(r#"{FILL}, {{"cmd": "pipeline_barrier", "buffer_memory_barriers": [{{{masks}, "buffer": "B"}}]}}, {COPY}"#));
        assert_eq!(d[0].amend[0].target, BarrierTarget::NewBuffer { buffer: 0, offset: 0, size: None });
        assert_eq!(d[0].amend[0].add, MemoryBarrier2::new(S::CLEAR, A::TRANSFER_WRITE, S::COPY, A::TRANSFER_READ));
    }

    /// Without a barrier between the two commands there is nothing to widen.
    #[test]
    fn nothing_to_widen_without_a_barrier() {
        let d = diagnoses(&format!("{FILL}, {COPY}"));
        assert!(d[0].amend.is_empty());
    }
}
