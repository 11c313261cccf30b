//! Hazard detection as the Khronos synchronization-validation design describes it
//! (Vulkan-ValidationLayers, `docs/syncval_design.md`:
//! <https://github.com/KhronosGroup/Vulkan-ValidationLayers/blob/main/docs/syncval_design.md>),
//! over a whole program at once.
//!
//! # Design
//! Every memory object sits at its device address (the program's numbering), so buffers that
//! alias one allocation overlap as their bytes do. Each queue keeps an *access context*: a
//! [`RangeMap`] of [`AccessState`] holding, per range, the most recent write and the reads since,
//! with the barriers applied to each. The host timeline is walked in order, and each
//! submission's work runs as the lowered stream (`engine/stream.rs`, the engine's one model of
//! submission semantics) puts it on its queue: a queue's next node runs when what it explicitly
//! waits for has run (the semaphore signal a wait consumes, the event set the stream paired a
//! wait with, a host gate the host's vkSetEvent opens), the earliest submitted first:
//!
//! - each command of a submitted command buffer is checked against its queue's context (read
//!   after write, write after read, write after write, with the most-recent-access rules), and
//!   against every other queue's accesses this queue is not ordered after (the racing hazards);
//!   then recorded. Barriers update the context, events record the ranges their first scope
//!   held at vkCmdSetEvent2 and apply the wait's barriers to those alone. An image barrier that
//!   changes the layout (from UNDEFINED too) also writes its subresources' bytes, as the layer's
//!   `SYNC_IMAGE_LAYOUT_TRANSITION` does ([`StageAccess::IMAGE_LAYOUT_TRANSITION`]): checked at
//!   the barrier against what its first scope does not hold, then their most recent write,
//!   visible to its second scope;
//! - a semaphore signal keeps a copy of the queue's context; the wait imports it, every access in
//!   the signal's first scope given the wait's second scopes, and the rest none;
//! - a fence wait, vkQueueWaitIdle and vkDeviceWaitIdle retire the accesses they wait for from
//!   every context (and remember device writes the host cannot see yet);
//! - host writes and reads are accesses too (beyond the validation layer): a host access racing
//!   device work it did not wait for is a hazard, a host read of a device write no barrier made
//!   available to HOST_READ is a read after write, and non-coherent memory adds
//!   `GPUSIM-HOST-MISSING-FLUSH`, `GPUSIM-HOST-MISSING-INVALIDATE` and
//!   `GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH` (host writes invalidated before they were flushed:
//!   their bytes are undefined);
//! - contents are tracked too (beyond the validation layer): every byte's latest write, never
//!   retired. A transition from UNDEFINED marks the written bytes it covers discarded until
//!   something writes them again, and a read of discarded bytes is [`READ_AFTER_DISCARD`].
//!
//! A dispatch accesses the whole bound range of each descriptor (the layer's model: the bytes a
//! shader touches are known only when it runs): a storage buffer the shader may write is a
//! SHADER_STORAGE_WRITE, a read-only one a SHADER_STORAGE_READ, a uniform buffer a
//! UNIFORM_READ; one the shader accesses only through atomics is accessed atomically, and two
//! atomic accesses of the same bytes through the same buffer are never a hazard (the memory
//! model's mutually-ordered atomics). Fills and updates are clear commands
//! (CLEAR_TRANSFER_WRITE), copies read and write at the COPY stage. An image a shader samples is
//! a SHADER_SAMPLED_READ of its view's bytes, one it stores to a SHADER_STORAGE_WRITE. An image
//! barrier whose layouts differ (UNDEFINED included) transitions the layout: a write of its
//! subresources' bytes at the barrier (IMAGE_LAYOUT_TRANSITION), checked against what its first
//! scope does not hold (a write after write or after read there, as the layer reports it), and
//! then the bytes' latest write, visible to its second scope.

pub mod diagnose;
pub mod range_map;
pub mod state;

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;

use serde::Serialize;

use crate::api::action::{Usage, Work};
use crate::api::program::{CommandRef, Program, Writer};
use crate::api::action::SyncCommand;
use crate::api::workload::{DependencyInfo, HostOp, MemoryId, Workload};
use crate::engine::stream::{NodeKind, Stream, SyncRole};
use crate::api::WorkloadError;
use crate::engine::reference::DispatchAccesses;
use crate::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, StageAccess, UsageSet, first_scope_stages, second_scope_stages};
pub use range_map::RangeMap;
pub use state::{AccessState, HazardKind, QueueId, Scopes, Tag};
use state::{Conflict, HOST};

/// The byte ranges a command's layout transitions write, each with the scopes of the barrier
/// that transitions it.
type Transitioned = Vec<(Range<u64>, Scopes)>;

/// Where an access was made.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum Place {
    /// A command of a submitted command buffer.
    Command(CommandRef),
    /// A host operation, by timeline index.
    Host {
        /// Index in the timeline.
        timeline: usize,
    },
}

impl Place {
    /// Where a write was made (`None`: the initial zeroes).
    pub fn of_writer(w: &Writer) -> Option<Place> {
        match w {
            Writer::Initial => None,
            Writer::Command(c) => Some(Place::Command(c.clone())),
            Writer::Host { timeline } => Some(Place::Host { timeline: *timeline }),
        }
    }
}

/// A synchronization hazard in the program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hazard {
    /// `SYNC-HAZARD-READ-AFTER-WRITE`, ..., `GPUSIM-HOST-MISSING-FLUSH`.
    pub id: &'static str,
    /// The access that is hazardous.
    pub at: Place,
    /// Its stage and access (`COPY_TRANSFER_READ`).
    pub usage: StageAccess,
    /// The buffer (or, for host accesses, the memory object) it accesses.
    pub resource: String,
    /// The first hazardous byte, from the start of the resource.
    pub offset: u64,
    /// Bytes from `offset` to the end of the last hazardous byte of this access.
    pub size: u64,
    /// The earlier access it conflicts with.
    pub prior: Place,
    /// That access's stage and access.
    pub prior_usage: StageAccess,
    /// True when the earlier access is in the same command buffer submission (the layer finds
    /// these while recording); false when it was found across command buffers, submissions,
    /// queues or the host (at vkQueueSubmit2, or beyond the layer).
    #[serde(skip)]
    pub within_command_buffer: bool,
    /// For a host access: the device access it conflicts with had not been waited for (no
    /// fence, queue or device wait retired it); false when it had, and only a barrier to the
    /// host, a flush or an invalidate was missing.
    #[serde(skip)]
    pub not_waited: bool,
    /// The earlier access is a write a barrier made available (only not visible to this
    /// access): it reached the point of coherence, so no schedule may hold it back.
    #[serde(skip)]
    pub prior_made_available: bool,
    /// For [`READ_AFTER_DISCARD`]: the write whose contents the layout transition discarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded: Option<Discarded>,
}

/// The id of a read of bytes a layout transition from UNDEFINED discarded after they were
/// written (beyond the validation layer: the layer tracks no contents). Its prior access is the
/// transition.
pub const READ_AFTER_DISCARD: &str = "GPUSIM-READ-AFTER-DISCARD";

/// What a layout transition from UNDEFINED discarded: "the contents of the image subresource
/// are undefined" after it (Vulkan's image layout transitions), whatever was written before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Discarded {
    /// The image.
    pub image: String,
    /// The write whose bytes it discarded (the most recent on the hazard's first byte).
    pub write: Place,
    /// That write's stage and access.
    pub write_usage: StageAccess,
    /// The image barrier's index in its dependency's `image_memory_barriers`.
    pub barrier: usize,
    /// The layout the subresources were in, which the barrier's old_layout would name to keep
    /// them (absent when they were in several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

/// Bytes a layout transition from UNDEFINED discarded, until something writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DiscardMark {
    /// The transition's tag.
    transition: Tag,
    /// The write it discarded.
    write: Tag,
    /// That write's usage.
    write_usage: StageAccess,
    /// The image and the barrier's index in its dependency's image memory barriers.
    image: usize,
    barrier: usize,
    /// The command instance of the barrier.
    inst: usize,
}

impl Hazard {
    /// The device addresses of the hazard's bytes, `(start, size)`: in its buffer or image, or
    /// for a host access in its memory object.
    pub fn device_range(&self, prog: &Program<'_>) -> Option<(u64, u64)> {
        let w = prog.workload;
        let base = match self.at {
            Place::Host { .. } => prog.memory_base[w.memories.iter().position(|m| m.name == self.resource)?],
            Place::Command(_) => prog.buffer_addr(prog.resource_by_name(&self.resource)?, 0),
        };
        Some((base + self.offset, self.size))
    }
}

/// The usages the detector assigns, looked up once.
struct Usages {
    storage_read: StageAccess,
    storage_write: StageAccess,
    uniform_read: StageAccess,
    sampled_read: StageAccess,
    host_read: StageAccess,
    host_write: StageAccess,
    /// Every device usage: what vkQueueSubmit makes host writes visible to.
    all_device: UsageSet,
}

impl Usages {
    fn new() -> Usages {
        let u = |s, a| StageAccess::new(s, a).expect("a legal usage");
        let all_device = crate::sync::all_usages().filter(|x| x.stage() != S::HOST).fold(UsageSet::EMPTY, |mut set, x| {
            set.insert(x);
            set
        });
        Usages {
            storage_read: u(S::COMPUTE_SHADER, A::SHADER_STORAGE_READ),
            storage_write: u(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE),
            uniform_read: u(S::COMPUTE_SHADER, A::UNIFORM_READ),
            sampled_read: u(S::COMPUTE_SHADER, A::SHADER_SAMPLED_READ),
            host_read: u(S::HOST, A::HOST_READ),
            host_write: u(S::HOST, A::HOST_WRITE),
            all_device,
        }
    }
}

/// Which of the host's pending device writes a host access checks.
#[derive(Clone, Copy)]
enum Pending {
    /// Retired, but no barrier made them available to HOST_READ.
    Unavailable,
    /// Retired in non-coherent memory, not invalidated since.
    Invalidate,
}

/// Where an access was made, as the walk records it (turned into a [`Place`] for reports).
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// A command instance.
    Instance(usize),
    /// A host operation (timeline index).
    Host(usize),
}

/// One access of a command: the address range, the usage, and the resource it names.
struct Access {
    range: Range<u64>,
    usage: StageAccess,
    /// Buffer index (for naming).
    buffer: usize,
    /// Made at the coherence point: through a `Coherent` storage buffer, or an atomic.
    coherent: bool,
    /// An atomic operation, through this buffer.
    atomic: state::Atomic,
    /// Its ordering guarantee over earlier accesses of the same queue (rasterization order).
    ordering: crate::api::action::Ordering,
}

impl From<&Usage> for Access {
    /// An action's usage as the detector records it: a binding accessed only atomically is
    /// accessed atomically throughout its range (that much the layer's model can know).
    fn from(u: &Usage) -> Access {
        Access { range: u.range.clone(), usage: u.usage, buffer: u.buffer, coherent: u.coherent, atomic: u.atomic_only.then_some(u.buffer), ordering: u.ordering }
    }
}

/// One access a command makes ([`command_accesses`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandAccess {
    /// The buffer (index into the workload's buffers) whose bound range or region it is.
    pub buffer: usize,
    /// Device-address range (buffers aliasing one allocation overlap as their bytes do).
    pub range: Range<u64>,
    /// The stage and access.
    pub usage: StageAccess,
}

/// The accesses command `index` of command buffer `cb` makes, as the hazard detector counts
/// them without a reference run: what a barrier placed by hand (or by a strategy) must cover.
pub fn command_accesses(prog: &Program<'_>, cb: usize, index: usize) -> Vec<CommandAccess> {
    prog.command_action(cb, index).map_or(Vec::new(), |a| a.usages.iter().map(|u| CommandAccess { buffer: u.buffer, range: u.range.clone(), usage: u.usage }).collect())
}

/// The ranges an event's vkCmdSetEvent2 had in its first scope.
#[derive(Clone, Debug, Default)]
struct EventScope {
    /// Tag of the set: only accesses before it are covered.
    tag: Tag,
    /// Per range: the write tag in scope (if the write was) and the read stages in scope.
    map: RangeMap<ScopeEntry>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ScopeEntry {
    write: Option<Tag>,
    reads: S,
}

struct Signal {
    context: RangeMap<AccessState>,
    queue: QueueId,
    src_exec: S,
    known: Vec<Tag>,
}


struct Queue {
    context: RangeMap<AccessState>,
    /// Per queue: the last tag of that queue's accesses this one is ordered after.
    known: Vec<Tag>,
}

/// The detector's walk over a program.
struct Walk<'p, 'w> {
    prog: &'p Program<'w>,
    exact: Option<&'p HashMap<usize, DispatchAccesses>>,
    u: Usages,
    /// The lowered stream: which nodes each submission puts on which queue, and what each waits
    /// for (the semaphore signal a wait consumes, the event set a wait waits for).
    stream: &'p Stream,
    queues: Vec<Queue>,
    /// Per queue: the nodes submitted and not run yet, in order.
    queued: Vec<VecDeque<usize>>,
    /// Per node: whether it has run (a host gate: whether the host opened it).
    ran: Vec<bool>,
    /// The queue's context at each semaphore signal node a wait consumes, until it does.
    signals: HashMap<usize, Signal>,
    /// Per queue, the last tag each fence signal node comes after (for the host's fence waits).
    fence_known: HashMap<usize, Vec<Tag>>,
    /// What each vkCmdSetEvent2 node had in its first scope.
    event_scopes: HashMap<usize, EventScope>,
    /// Signal nodes whose context a semaphore wait imports.
    consumed: HashSet<usize>,
    /// Fence signal nodes the host waits on.
    host_waited: HashSet<usize>,
    /// Where each tag's access was made.
    places: Vec<Origin>,
    /// Barrier scopes already expanded, by their four masks (a program repeats a few barriers).
    scope_cache: HashMap<MemoryBarrier2, Scopes>,
    /// Device writes retired by a host wait that no barrier made visible to HOST_READ.
    host_unavailable: RangeMap<Option<(Tag, StageAccess)>>,
    /// For each such write (by tag), the queue it was made on: a later barrier there with the
    /// write in its first scope and HOST_READ in its second still makes it available.
    unavailable_queue: HashMap<Tag, QueueId>,
    /// nonCoherentAtomSize: a flush writes whole atoms back.
    atom: u64,
    /// Device writes to non-coherent memory retired by a host wait, not invalidated since.
    needs_invalidate: RangeMap<Option<(Tag, StageAccess)>>,
    /// Host writes to non-coherent memory not flushed yet.
    unflushed: RangeMap<Option<Tag>>,
    /// The most recent write of every byte ever written (by the host or the device; layout
    /// transitions are not writes of contents), never retired.
    written: RangeMap<Option<(Tag, StageAccess)>>,
    /// Bytes a layout transition from UNDEFINED discarded and nothing wrote since.
    discarded: RangeMap<Option<DiscardMark>>,
    hazards: Vec<Hazard>,
    /// Hazards found within a command buffer, by (command buffer, command, prior command, id,
    /// usage, buffer): reported once (for the first submission of the command buffer, and once
    /// per access rather than per noted range), as an index into `hazards`.
    seen_within: std::collections::HashMap<(String, usize, usize, &'static str, StageAccess, usize), usize>,
}

/// Finds every synchronization hazard of `w`, in timeline order, taking each dispatch to access
/// the whole bound range of each descriptor (nothing runs).
pub fn detect(w: &Workload) -> Result<Vec<Hazard>, WorkloadError> {
    let prog = Program::new(w)?;
    let stream = Stream::lower(&prog)?;
    Ok(detect_program(&prog, &stream, None, DEFAULT_ATOM))
}

/// The nonCoherentAtomSize assumed when no profile says otherwise (the built-in profiles' and
/// most devices').
pub const DEFAULT_ATOM: u64 = 64;

/// [`detect`] on a numbered program; with `exact`, the bytes each dispatch instance accessed in
/// the reference run replace its bound ranges (neighbouring bytes written by a dispatch and a
/// fill are then no hazard, as they are none), except for a dispatch that performed atomics,
/// whose accesses may depend on which invocation won.
/// `atom` is the device's nonCoherentAtomSize (what a flush writes back whole).
pub fn detect_program(prog: &Program<'_>, stream: &Stream, exact: Option<&HashMap<usize, DispatchAccesses>>, atom: u64) -> Vec<Hazard> {
    let w = prog.workload;
    let n = w.queues.len();
    // The signals whose state a later wait reads: semaphore signals a wait consumes, fence
    // signals the host waits on. Only those keep a copy of their queue's context.
    let mut consumed: HashSet<usize> = HashSet::new();
    for node in &stream.nodes {
        if let NodeKind::Sync(y) = &node.kind
            && y.role == SyncRole::SemaphoreWait
        {
            consumed.extend(node.explicit.iter().copied());
        }
    }
    let mut walk = Walk {
        prog,
        exact,
        u: Usages::new(),
        stream,
        queues: (0..n).map(|_| Queue { context: RangeMap::new(), known: vec![0; n] }).collect(),
        queued: vec![VecDeque::new(); n],
        ran: vec![false; stream.nodes.len()],
        signals: HashMap::new(),
        fence_known: HashMap::new(),
        event_scopes: HashMap::new(),
        consumed,
        host_waited: stream.host_waits.iter().flatten().copied().collect(),
        places: vec![Origin::Host(0)],
        scope_cache: HashMap::new(),
        host_unavailable: RangeMap::new(),
        unavailable_queue: HashMap::new(),
        atom: atom.max(1),
        needs_invalidate: RangeMap::new(),
        unflushed: RangeMap::new(),
        written: RangeMap::new(),
        discarded: RangeMap::new(),
        hazards: Vec::new(),
        seen_within: std::collections::HashMap::new(),
    };
    for (t, op) in w.timeline.iter().enumerate() {
        walk.host_op(t, op);
    }
    walk.hazards
}

/// The hull of the pieces of a range map that hold a value, with the first piece's value.
fn first_over_hull<'a, V: Copy + 'a>(pieces: impl Iterator<Item = (Range<u64>, &'a Option<V>)>) -> Option<(Range<u64>, V)> {
    pieces.filter_map(|(r, v)| v.map(|x| (r, x))).fold(None, |acc, (r, x)| match acc {
        Some((a, first)) => Some((a.start.min(r.start)..a.end.max(r.end), first)),
        None => Some((r, x)),
    })
}

fn scopes(b: &MemoryBarrier2) -> Scopes {
    Scopes {
        src_exec: first_scope_stages(b.src_stage_mask, None),
        src_usages: b.first_usages(),
        dst_exec: second_scope_stages(b.dst_stage_mask, None),
        dst_usages: b.second_usages(),
    }
}

impl Walk<'_, '_> {
    fn new_tag(&mut self, origin: Origin) -> Tag {
        self.places.push(origin);
        (self.places.len() - 1) as Tag
    }

    /// Where tag `t`'s access was made.
    fn place(&self, t: Tag) -> Place {
        match self.places[t as usize] {
            Origin::Instance(i) => Place::Command(self.prog.instances[i].at.clone()),
            Origin::Host(timeline) => Place::Host { timeline },
        }
    }

    /// The scopes of a barrier, expanded once per distinct barrier.
    fn scopes(&mut self, b: &MemoryBarrier2) -> Scopes {
        *self.scope_cache.entry(*b).or_insert_with(|| scopes(b))
    }

    /// The nodes at the front of queue `q` that run together, if they can run now: a
    /// submission's semaphore waits of one batch (run when all can), its signals, the sync
    /// nodes of one command; else the front node alone. A node can run when every node it waits
    /// for explicitly has run (a semaphore signal, an event set, a host gate the host opened).
    fn runnable_head(&self, q: usize) -> Option<usize> {
        let queue = &self.queued[q];
        let first = *queue.front()?;
        let group = |i: usize| -> (usize, Option<SyncRole>, Option<usize>) {
            let n = &self.stream.nodes[i];
            match &n.kind {
                NodeKind::Sync(y) => (n.from, Some(y.role), y.inst),
                _ => (n.from, None, None),
            }
        };
        let key = group(first);
        let len = match key {
            (_, Some(SyncRole::SemaphoreWait | SyncRole::Signal), _) | (_, Some(_), Some(_)) => queue.iter().take_while(|&&i| group(i) == key).count(),
            _ => 1,
        };
        queue.iter().take(len).all(|&i| self.stream.nodes[i].explicit.iter().all(|&d| self.ran[d])).then_some(len)
    }

    /// Runs submitted nodes, the earliest submitted runnable front first, until none can run.
    fn run_queues(&mut self) {
        loop {
            let next = (0..self.queued.len()).filter_map(|q| self.runnable_head(q).map(|len| (q, len))).min_by_key(|&(q, _)| self.queued[q].front().copied());
            let Some((q, len)) = next else { return };
            let group: Vec<usize> = self.queued[q].drain(..len).collect();
            self.run_nodes(q as QueueId, &group);
            for i in group {
                self.ran[i] = true;
            }
        }
    }

    /// Runs the nodes of one group on queue `q`.
    fn run_nodes(&mut self, q: QueueId, group: &[usize]) {
        let first = group[0];
        match &self.stream.nodes[first].kind {
            NodeKind::Action { inst, .. } => self.action(q, *inst),
            NodeKind::HostGate { .. } => {}
            NodeKind::Sync(y) => match (y.role, y.inst) {
                (SyncRole::SemaphoreWait, _) => {
                    for &i in group {
                        let NodeKind::Sync(w) = &self.stream.nodes[i].kind else { continue };
                        let stages = w.barriers.first().map_or(S::NONE, |(b, _)| b.dst_stage_mask);
                        let signal = self.stream.nodes[i].explicit.first().and_then(|s| self.signals.remove(s));
                        if let Some(sig) = signal {
                            self.import(sig, q, stages);
                        }
                    }
                }
                (SyncRole::Signal, _) => {
                    let mut known = self.queues[q as usize].known.clone();
                    known[q as usize] = self.last_tag();
                    for &i in group {
                        let NodeKind::Sync(sig) = &self.stream.nodes[i].kind else { continue };
                        if self.consumed.contains(&i) {
                            self.signals.insert(i, Signal { context: self.queues[q as usize].context.clone(), queue: q, src_exec: sig.src, known: known.clone() });
                        }
                        if self.host_waited.contains(&i) {
                            self.fence_known.insert(i, known.clone());
                        }
                    }
                }
                (_, Some(inst)) => self.sync_command(q, first, inst),
                // A submission's domain operation, a driver's own waits: no access, no scope.
                (_, None) => {}
            },
        }
    }

    fn host_op(&mut self, t: usize, op: &HostOp) {
        self.run_queues();
        self.host_action(t, op);
        self.run_queues();
    }

    fn host_action(&mut self, t: usize, op: &HostOp) {
        match op {
            HostOp::QueueSubmit { .. } => {
                // Queued, to run when nothing holds its queue back (a wait on an event the host
                // sets later, a semaphore whose signal has not run).
                self.enqueue(t);
                self.run_queues();
            }
            HostOp::WaitForFences(_) => {
                for node in &self.stream.host_waits[t] {
                    if let Some(known) = self.fence_known.get(node).cloned() {
                        self.retire(|queue, tag| queue != HOST && tag <= known[queue as usize]);
                    }
                }
            }
            HostOp::ResetFences(_) => {}
            HostOp::QueueWaitIdle(q) => {
                self.enqueue(t);
                let mut known = self.queues[*q].known.clone();
                known[*q] = Tag::MAX;
                self.retire(|queue, tag| queue != HOST && tag <= known[queue as usize]);
            }
            HostOp::DeviceWaitIdle => {
                self.enqueue(t);
                self.retire(|queue, _| queue != HOST);
            }
            HostOp::HostWrite { memory, offset, data } => self.host_write(t, *memory, *offset, data.len() as u64),
            HostOp::HostRead { memory, offset, size, .. } => self.host_read(t, *memory, *offset, *size),
            HostOp::SetEvent(_) => {
                // A host vkSetEvent's first scope holds host operations only: it opens the gates
                // of the waits submitted before it, and covers no device access.
                for &g in &self.stream.opens[t] {
                    self.ran[g] = true;
                }
            }
            HostOp::FlushMappedMemoryRanges(ranges) => {
                for r in ranges {
                    let range = self.mapped_range(r.memory, r.offset, r.size);
                    self.flush(t, r.memory, range.clone());
                    self.unflushed.update(range, |v| *v = None);
                }
            }
            HostOp::InvalidateMappedMemoryRanges(ranges) => {
                for r in ranges {
                    let range = self.mapped_range(r.memory, r.offset, r.size);
                    // "If a range of non-coherent memory is written by the host and then
                    // invalidated without first being flushed, its contents are undefined."
                    let discarded = first_over_hull(self.unflushed.overlapping(range.clone()));
                    if let Some((lost, prior)) = discarded {
                        let usage = self.u.host_write;
                        self.push_host("GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH", t, r.memory, usage, Conflict { kind: HazardKind::WriteAfterWrite, prior, prior_usage: usage, available: false }, lost);
                    }
                    self.unflushed.update(range.clone(), |v| *v = None);
                    self.needs_invalidate.update(range, |v| *v = None);
                }
            }
        }
    }

    fn last_tag(&self) -> Tag {
        (self.places.len() - 1) as Tag
    }

    fn mapped_range(&self, memory: MemoryId, offset: u64, size: Option<u64>) -> Range<u64> {
        let base = self.prog.memory_base[memory];
        let total = self.prog.workload.memories[memory].size;
        let end = size.map_or(total, |s| (offset + s).min(total));
        base + offset.min(total)..base + end
    }

    /// Imports a semaphore signal into queue `q` waiting at `stages`.
    fn import(&mut self, sig: Signal, q: QueueId, stages: S) {
        // The wait's second access scope is every device access (the specification), within
        // its second execution scope.
        let dst_exec = second_scope_stages(stages, None);
        let dst_usages = crate::sync::all_usages().filter(|u| u.stage() != S::HOST && dst_exec.intersects(u.stage())).fold(UsageSet::EMPTY, |mut set, u| {
            set.insert(u);
            set
        });
        let queue = &mut self.queues[q as usize];
        for (range, state) in sig.context.iter() {
            let theirs = state.imported(sig.queue, sig.src_exec, q, dst_exec, dst_usages);
            queue.context.update(range, |mine| mine.resolve(&theirs));
        }
        for (k, t) in sig.known.iter().enumerate() {
            queue.known[k] = queue.known[k].max(*t);
        }
    }

    /// Retires the accesses `done` says completed, from every context; device writes become
    /// pending for the host (not visible without a HOST_READ barrier; needing an invalidate in
    /// non-coherent memory).
    fn retire(&mut self, done: impl Fn(QueueId, Tag) -> bool + Copy) {
        let host_read = self.u.host_read;
        let mut retired: Vec<(Range<u64>, state::WriteAccess)> = Vec::new();
        for queue in &mut self.queues {
            let ranges: Vec<Range<u64>> = queue.context.iter().map(|(r, _)| r).collect();
            for r in ranges {
                queue.context.update(r.clone(), |s| {
                    if let Some(w) = s.retire(done) {
                        retired.push((r.clone(), w));
                    }
                });
            }
        }
        for sig in self.signals.values_mut() {
            sig.context.update_all(|s| {
                s.retire(done);
            });
        }
        // One write may sit in several contexts (a semaphore copied it): available to the host if
        // any copy was made so.
        let visible: std::collections::HashSet<Tag> = retired.iter().filter(|(_, w)| w.barriers.contains(host_read)).map(|(_, w)| w.tag).collect();
        for (r, w) in retired {
            let visible = visible.contains(&w.tag);
            if !visible {
                self.unavailable_queue.insert(w.tag, w.queue);
            }
            self.host_unavailable.update(r.clone(), |v| *v = if visible { None } else { Some((w.tag, w.usage)) });
            if !self.coherent(r.start) {
                self.needs_invalidate.update(r, |v| *v = Some((w.tag, w.usage)));
            }
        }
    }

    fn coherent(&self, addr: u64) -> bool {
        self.prog.memory_at(addr).is_none_or(|(m, _)| self.prog.workload.memories[m].properties.host_coherent)
    }

    /// A flush of non-coherent memory writes the host's view of every byte of the range (whole
    /// atoms), not only the bytes the host wrote: where the device wrote since the host last
    /// invalidated, the flush puts stale bytes over the device's (a write after write).
    fn flush(&mut self, t: usize, memory: MemoryId, range: Range<u64>) {
        if self.prog.workload.memories[memory].properties.host_coherent {
            return;
        }
        let usage = self.u.host_write;
        // What the flush writes back: the whole atoms holding host writes not flushed yet.
        let atom = self.atom;
        let atoms: Vec<Range<u64>> = self
            .unflushed
            .overlapping(range.clone())
            .filter(|(_, v)| v.is_some())
            .map(|(r, _)| (r.start / atom * atom).max(range.start)..r.end.div_ceil(atom).saturating_mul(atom).min(range.end))
            .collect();
        for a in atoms {
            if let Some((c, r)) = self.device_write_before_host(a, HazardKind::WriteAfterWrite, Pending::Invalidate) {
                self.report_host(t, memory, usage, c, r);
                return;
            }
        }
    }

    /// The first device write to `range` the host has not caught up with: one no wait has
    /// retired, else one retired but still `pending` for the host (not made available to it, or
    /// not invalidated), as a conflict of `kind`.
    fn device_write_before_host(&self, range: Range<u64>, kind: HazardKind, pending: Pending) -> Option<(Conflict, Range<u64>)> {
        let in_flight = self.queues.iter().find_map(|queue| {
            queue.context.overlapping(range.clone()).find_map(|(r, s)| s.write.filter(|w| w.queue != HOST).map(|w| (Conflict { kind, prior: w.tag, prior_usage: w.usage, available: false }, r)))
        });
        let map = match pending {
            Pending::Unavailable => &self.host_unavailable,
            Pending::Invalidate => &self.needs_invalidate,
        };
        in_flight.or_else(|| map.overlapping(range).find_map(|(r, v)| v.map(|(prior, prior_usage)| (Conflict { kind, prior, prior_usage, available: false }, r))))
    }

    fn host_write(&mut self, t: usize, memory: MemoryId, offset: u64, len: u64) {
        let base = self.prog.memory_base[memory];
        let range = base + offset..base + offset + len;
        let usage = self.u.host_write;
        let tag = self.new_tag(Origin::Host(t));
        // Device work the host did not wait for may still access these bytes: whatever its
        // barriers, only a host wait orders it before a host access.
        let mut found: Option<(Conflict, Range<u64>)> = None;
        for queue in &self.queues {
            for (r, s) in queue.context.overlapping(range.clone()) {
                let c = match (s.write.filter(|w| w.queue != HOST), s.reads.iter().find(|x| x.queue != HOST)) {
                    (_, Some(rd)) => Conflict { kind: HazardKind::WriteAfterRead, prior: rd.tag, prior_usage: rd.usage, available: false },
                    (Some(wr), None) => Conflict { kind: HazardKind::WriteAfterWrite, prior: wr.tag, prior_usage: wr.usage, available: false },
                    (None, None) => continue,
                };
                found = found.or(Some((c, r)));
            }
        }
        if let Some((c, r)) = found {
            self.report_host(t, memory, usage, c, r);
        }
        let all = self.u.all_device;
        for queue in &mut self.queues {
            queue.context.update(range.clone(), |s| {
                s.record(usage, tag, HOST, false, None);
                if let Some(w) = s.write.as_mut() {
                    // vkQueueSubmit's implicit dependency makes it visible to later device work.
                    w.barriers = all;
                    w.chain = S::ALL_COMMANDS | crate::sync::scope::all_device_stages();
                }
            });
        }
        self.host_unavailable.update(range.clone(), |v| *v = None);
        self.needs_invalidate.update(range.clone(), |v| *v = None);
        self.wrote(range.clone(), tag, usage);
        if !self.prog.workload.memories[memory].properties.host_coherent {
            self.unflushed.update(range, |v| *v = Some(tag));
        }
    }

    fn host_read(&mut self, t: usize, memory: MemoryId, offset: u64, len: u64) {
        let base = self.prog.memory_base[memory];
        let range = base + offset..base + offset + len;
        let usage = self.u.host_read;
        let _ = self.new_tag(Origin::Host(t));
        // A device write no wait has retired (the host reads while it may be in flight), or
        // one no barrier made available to the host.
        if let Some((c, r)) = self.device_write_before_host(range.clone(), HazardKind::ReadAfterWrite, Pending::Unavailable) {
            self.report_host(t, memory, usage, c, r);
            return;
        }
        let missing = self.needs_invalidate.overlapping(range.clone()).find_map(|(r, v)| v.map(|(prior, prior_usage)| (r, prior, prior_usage)));
        if let Some((r, prior, prior_usage)) = missing {
            self.push_host("GPUSIM-HOST-MISSING-INVALIDATE", t, memory, usage, Conflict { kind: HazardKind::ReadAfterWrite, prior, prior_usage, available: false }, r);
            return;
        }
        // Bytes a layout transition discarded (a linear image's, read through a mapping).
        let lost = first_over_hull(self.discarded.overlapping(range));
        if let Some((r, d)) = lost {
            let before = self.hazards.len();
            self.push_host(READ_AFTER_DISCARD, t, memory, usage, Conflict { kind: HazardKind::ReadAfterWrite, prior: d.transition, prior_usage: StageAccess::IMAGE_LAYOUT_TRANSITION, available: true }, r);
            self.note_discards(before);
        }
    }

    fn report_host(&mut self, t: usize, memory: MemoryId, usage: StageAccess, c: Conflict, r: Range<u64>) {
        self.push_host(c.kind.id(), t, memory, usage, c, r.clone());
        // A device access still in a queue's context was never retired by a host wait.
        let waited = !self.queues.iter().any(|q| q.context.overlapping(r.clone()).any(|(_, s)| s.write.is_some_and(|w| w.tag == c.prior) || s.reads.iter().any(|x| x.tag == c.prior)));
        if let Some(h) = self.hazards.last_mut() {
            h.not_waited = !waited;
        }
    }

    fn push_host(&mut self, id: &'static str, t: usize, memory: MemoryId, usage: StageAccess, c: Conflict, r: Range<u64>) {
        let base = self.prog.memory_base[memory];
        self.hazards.push(Hazard {
            id,
            at: Place::Host { timeline: t },
            usage,
            resource: self.prog.workload.memories[memory].name.clone(),
            offset: r.start - base,
            size: r.end - r.start,
            prior: self.place(c.prior),
            prior_usage: c.prior_usage,
            within_command_buffer: false,
            not_waited: false,
            prior_made_available: false,
            discarded: None,
        });
    }

    /// The accesses of command instance `inst`.
    fn accesses(&self, inst: usize) -> Vec<Access> {
        let p = self.prog;
        let w = p.workload;
        let Some(action) = p.action(inst) else { return Vec::new() };
        match &action.work {
            // A dispatch with atomics may access other bytes in another execution: its bound
            // ranges, as without a run.
            Work::Dispatch { bindings, images, .. } if self.exact.is_some() && !self.exact.and_then(|e| e.get(&inst)).is_some_and(|d| d.atomics()) => {
                let Some(noted) = self.exact.and_then(|e| e.get(&inst)) else { return Vec::new() };
                // Atomic accesses first: where the dispatch also accessed the same bytes plainly,
                // the plain access is recorded after them and is what later accesses meet.
                let kinds = [
                    (&noted.atomic_reads, self.u.storage_read, true, true),
                    (&noted.atomic_writes, self.u.storage_write, true, true),
                    (&noted.uniform_reads, self.u.uniform_read, false, false),
                    (&noted.storage_reads, self.u.storage_read, false, false),
                    (&noted.sampled_reads, self.u.sampled_read, false, false),
                    (&noted.storage_writes, self.u.storage_write, false, false),
                    (&noted.coherent_reads, self.u.storage_read, true, false),
                    (&noted.coherent_writes, self.u.storage_write, true, false),
                ];
                let mut out = Vec::new();
                for (set, usage, coherent, atomic) in kinds {
                    for r in set.iter() {
                        // Named after the binding whose bound range holds it (the first, when
                        // bindings alias), or the image whose view it is.
                        let mut pos = r.start;
                        while pos < r.end {
                            let owner = bindings
                                .iter()
                                .find_map(|b| {
                                    let len = b.range.unwrap_or(w.buffers[b.buffer].size.saturating_sub(b.offset));
                                    let start = p.buffer_addr(b.buffer, b.offset);
                                    (start <= pos && pos < start + len).then_some((b.buffer, start + len))
                                })
                                .or_else(|| {
                                    images.iter().filter_map(|d| d.image).find_map(|i| {
                                        let r = p.image_resource(i);
                                        let start = p.buffer_addr(r, 0);
                                        (start <= pos && pos < start + w.images[i].layout.size).then_some((r, start + w.images[i].layout.size))
                                    })
                                });
                            let Some((buffer, end)) = owner else { break };
                            let end = end.min(r.end);
                            out.push(Access { range: pos..end, usage, buffer, coherent, atomic: atomic.then_some(buffer), ordering: crate::api::action::Ordering::None });
                            pos = end;
                        }
                    }
                }
                out
            }
            _ => action.usages.iter().map(Access::from).collect(),
        }
    }

    /// Puts the nodes host operation `t` adds on their queues (a host gate is opened by the
    /// host, never queued).
    fn enqueue(&mut self, t: usize) {
        for i in self.stream.added[t].clone() {
            let node = &self.stream.nodes[i];
            if !matches!(node.kind, NodeKind::HostGate { .. }) {
                self.queued[node.queue].push_back(i);
            }
        }
    }

    /// The sync nodes of synchronization command instance `inst` on queue `q`, the first of
    /// them `node`. A set of an event already signalled made no node (it has no effect); a wait
    /// waits for the sets the stream paired it with (a host set covers no device access).
    fn sync_command(&mut self, q: QueueId, node: usize, inst: usize) {
        match self.prog.sync_command(inst) {
            Some(SyncCommand::Barrier(dep)) => self.barrier(q, dep, None, inst),
            Some(SyncCommand::SetEvent { dependency, .. }) => {
                let tag = self.new_tag(Origin::Instance(inst));
                let scope = self.set_event(q, dependency, tag);
                self.event_scopes.insert(node, scope);
            }
            Some(SyncCommand::WaitEvents { dependency, .. }) => {
                let mut waited = false;
                for set in self.stream.nodes[node].explicit.clone() {
                    if let Some(scope) = self.event_scopes.get(&set).cloned() {
                        self.barrier(q, dependency, Some(&scope), inst);
                        waited = true;
                    }
                }
                if !waited && dependency.image_memory_barriers.iter().any(|b| b.old_layout != b.new_layout) {
                    // A wait on an event no device command set (the host set it): its first
                    // scope holds no device access, but its layout transitions still happen.
                    self.barrier(q, dependency, Some(&EventScope::default()), inst);
                }
            }
            Some(SyncCommand::ResetEvent { .. }) | None => {}
        }
    }

    /// Action command instance `i` on queue `q`: its accesses checked, then recorded.
    fn action(&mut self, q: QueueId, i: usize) {
        let accesses = self.accesses(i);
        let tag = self.new_tag(Origin::Instance(i));
        // Every access of the command is checked before any is recorded (a copy's
        // source and destination are each checked against what came before).
        let mut found: Vec<(usize, Conflict, Range<u64>, &'static str)> = Vec::new();
        for (k, a) in accesses.iter().enumerate() {
            let ordered = (a.ordering != crate::api::action::Ordering::None).then(|| (q, a.ordering.scope()));
            for (r, s) in self.queues[q as usize].context.overlapping(a.range.clone()) {
                if let Some(c) = s.detect(a.usage, a.coherent, a.atomic, ordered) {
                    found.push((k, c, r, c.kind.id()));
                }
            }
            for (p, other) in self.queues.iter().enumerate() {
                if p == q as usize {
                    continue;
                }
                let known = self.queues[q as usize].known[p];
                for (r, s) in other.context.overlapping(a.range.clone()) {
                    if let Some(c) = s.detect_racing(a.usage, p as QueueId, known, a.atomic) {
                        found.push((k, c, r, c.kind.id()));
                    }
                }
            }
            // A device read of host writes to non-coherent memory never flushed.
            if !a.usage.is_write() {
                for (r, v) in self.unflushed.overlapping(a.range.clone()) {
                    if let Some(t) = *v {
                        found.push((k, Conflict { kind: HazardKind::ReadAfterWrite, prior: t, prior_usage: self.u.host_write, available: false }, r, "GPUSIM-HOST-MISSING-FLUSH"));
                    }
                }
                for (r, v) in self.discarded.overlapping(a.range.clone()) {
                    if let Some(d) = *v {
                        found.push((k, Conflict { kind: HazardKind::ReadAfterWrite, prior: d.transition, prior_usage: StageAccess::IMAGE_LAYOUT_TRANSITION, available: true }, r, READ_AFTER_DISCARD));
                    }
                }
            }
        }
        if !found.is_empty() {
            let at = self.prog.instances[i].at.clone();
            let before = self.hazards.len();
            self.report(&at, &accesses, &found);
            self.note_discards(before);
        }
        for a in &accesses {
            self.queues[q as usize].context.update(a.range.clone(), |s| s.record(a.usage, tag, q, a.coherent, a.atomic));
            if a.usage.is_write() {
                self.wrote(a.range.clone(), tag, a.usage);
            }
        }
    }

    /// Records that `tag` wrote `range` (contents again, whatever a transition discarded).
    fn wrote(&mut self, range: Range<u64>, tag: Tag, usage: StageAccess) {
        self.written.update(range.clone(), |v| *v = Some((tag, usage)));
        self.discarded.update(range, |v| *v = None);
    }

    /// Fills in what each [`READ_AFTER_DISCARD`] hazard pushed from index `from` on read: the
    /// discard on its first byte.
    fn note_discards(&mut self, from: usize) {
        for k in from..self.hazards.len() {
            let h = &self.hazards[k];
            if h.id != READ_AFTER_DISCARD || h.discarded.is_some() {
                continue;
            }
            let Some((start, _)) = h.device_range(self.prog) else { continue };
            let Some(d) = self.discarded.overlapping(start..start + h.size).find_map(|(_, v)| *v) else { continue };
            let layout = self.stream.layouts_before.get(&(d.inst, d.barrier)).cloned();
            let discarded = Discarded { image: self.prog.workload.images[d.image].name.clone(), write: self.place(d.write), write_usage: d.write_usage, barrier: d.barrier, layout };
            self.hazards[k].discarded = Some(discarded);
        }
    }

    fn report(&mut self, at: &CommandRef, accesses: &[Access], found: &[(usize, Conflict, Range<u64>, &'static str)]) {
        // One hazard per access and kind, spanning its hazardous bytes.
        let mut merged: Vec<(usize, Conflict, Range<u64>, &'static str)> = Vec::new();
        for &(k, c, ref r, id) in found {
            match merged.iter_mut().find(|m| m.0 == k && m.3 == id) {
                Some(m) => m.2 = m.2.start.min(r.start)..m.2.end.max(r.end),
                None => merged.push((k, c, r.clone(), id)),
            }
        }
        for (k, c, r, id) in merged {
            let a = &accesses[k];
            let prior = self.place(c.prior);
            let within = matches!(&prior, Place::Command(p) if p.submit == at.submit && p.batch == at.batch && p.command_buffer == at.command_buffer && p.command < at.command);
            if within {
                let key = (at.command_buffer.clone(), at.command, match &prior { Place::Command(p) => p.command, _ => 0 }, id, a.usage, a.buffer);
                // Reported once; a later range of the same access (a dispatch's noted bytes come
                // as several) widens it, so that it spans every hazardous byte.
                if let Some(&h) = self.seen_within.get(&key) {
                    let base = self.prog.buffer_addr(a.buffer, 0);
                    let hz = &mut self.hazards[h];
                    let (start, end) = ((r.start - base).min(hz.offset), (r.end - base).max(hz.offset + hz.size));
                    (hz.offset, hz.size) = (start, end - start);
                    continue;
                }
                self.seen_within.insert(key, self.hazards.len());
            }
            let base = self.prog.buffer_addr(a.buffer, 0);
            self.hazards.push(Hazard {
                id,
                at: Place::Command(at.clone()),
                usage: a.usage,
                resource: self.prog.resource_name(a.buffer).to_string(),
                offset: r.start - base,
                size: r.end - r.start,
                prior,
                prior_usage: c.prior_usage,
                within_command_buffer: within,
                not_waited: false,
                prior_made_available: c.available,
                discarded: None,
            });
        }
    }

    /// Applies a dependency's barriers on queue `q` (limited to an event's recorded first scope
    /// when `event` is given). All barriers of the command act on the state as it was before it:
    /// the stored ranges are cut at every barrier's and the event scope's edges, and each piece
    /// gets the barriers covering it at once.
    ///
    /// An image barrier whose old layout differs from its new one also transitions the layout
    /// of its subresources (the layer's `SYNC_IMAGE_LAYOUT_TRANSITION`): a write of their bytes
    /// by the command `inst`, checked against the accesses before it as the barrier's first
    /// scope holds them (a write not in its first access scope is a write after write, a read
    /// not in its first execution scope a write after read, reported at the barrier), then
    /// recorded as their most recent write, made available and visible to its second scope.
    fn barrier(&mut self, q: QueueId, dep: &DependencyInfo, event: Option<&EventScope>, inst: usize) {
        let transitions = self.transitions(q, dep, event, inst);
        self.apply_barrier(q, dep, event);
        if let Some((tag, list)) = transitions {
            let ctx = &mut self.queues[q as usize].context;
            for (range, b) in list {
                ctx.update(range, |s| s.record_transition(tag, q, b.dst_exec, b.dst_usages));
            }
        }
    }

    /// The layout transitions of `dep` (see [`Walk::barrier`]): checked against the state
    /// before the command, hazards reported; the tag they are recorded with and, per range, the
    /// scopes of the barrier that transitions it (`None`: no transition).
    fn transitions(&mut self, q: QueueId, dep: &DependencyInfo, event: Option<&EventScope>, inst: usize) -> Option<(Tag, Transitioned)> {
        let prog = self.prog;
        let mut accesses: Vec<Access> = Vec::new();
        let mut list: Vec<(usize, Range<u64>, Scopes)> = Vec::new();
        for b in dep.image_memory_barriers.iter().filter(|b| b.old_layout != b.new_layout) {
            let im = &prog.workload.images[b.image];
            let resource = prog.image_resource(b.image);
            let base = prog.buffer_addr(resource, 0);
            let scopes = self.scopes(&b.barrier);
            let bytes = im.layout.range_bytes(&b.range).unwrap_or_default();
            if bytes.is_empty() {
                continue;
            }
            let start = bytes.iter().map(|(o, _)| base + o).min().unwrap_or(base);
            let end = bytes.iter().map(|(o, n)| base + o + n).max().unwrap_or(base);
            let k = accesses.len();
            accesses.push(Access { range: start..end, usage: StageAccess::IMAGE_LAYOUT_TRANSITION, buffer: resource, coherent: false, atomic: None, ordering: crate::api::action::Ordering::None });
            for (o, n) in bytes {
                list.push((k, base + o..base + o + n, scopes));
            }
        }
        if list.is_empty() {
            return None;
        }
        let usage = StageAccess::IMAGE_LAYOUT_TRANSITION;
        let mut found: Vec<(usize, Conflict, Range<u64>, &'static str)> = Vec::new();
        for (k, range, b) in &list {
            for (r, s) in self.queues[q as usize].context.overlapping(range.clone()) {
                let conflict = match event {
                    None => s.detect_transition(q, b, |_| true, |_| true),
                    Some(scope) => {
                        // Only what the set had in its first scope, made before it.
                        let entry = scope.map.overlapping(r.clone()).map(|(_, v)| *v).next().unwrap_or_default();
                        s.detect_transition(q, b, |w| w.tag < scope.tag && entry.write == Some(w.tag), |rd| rd.tag < scope.tag && entry.reads.intersects(rd.usage.stage()))
                    }
                };
                if let Some(c) = conflict {
                    found.push((*k, c, r, c.kind.id()));
                }
            }
            for (p, other) in self.queues.iter().enumerate() {
                if p == q as usize {
                    continue;
                }
                let known = self.queues[q as usize].known[p];
                for (r, s) in other.context.overlapping(range.clone()) {
                    if let Some(c) = s.detect_racing(usage, p as QueueId, known, None) {
                        found.push((*k, c, r, c.kind.id()));
                    }
                }
            }
        }
        if !found.is_empty() {
            let at = prog.instances[inst].at.clone();
            self.report(&at, &accesses, &found);
        }
        let tag = self.new_tag(Origin::Instance(inst));
        // From UNDEFINED, the contents are discarded: what was written there is undefined
        // until written again.
        for (index, b) in dep.image_memory_barriers.iter().enumerate().filter(|(_, b)| b.old_layout == "UNDEFINED" && b.new_layout != "UNDEFINED") {
            let base = prog.buffer_addr(prog.image_resource(b.image), 0);
            for (o, n) in prog.workload.images[b.image].layout.range_bytes(&b.range).unwrap_or_default() {
                let pieces: Vec<(Range<u64>, (Tag, StageAccess))> = self.written.overlapping(base + o..base + o + n).filter_map(|(r, v)| v.map(|w| (r, w))).collect();
                for (r, (write, write_usage)) in pieces {
                    let mark = DiscardMark { transition: tag, write, write_usage, image: b.image, barrier: index, inst };
                    self.discarded.update(r, |v| *v = Some(mark));
                }
            }
        }
        Some((tag, list.into_iter().map(|(_, r, b)| (r, b)).collect()))
    }

    /// The memory dependencies of [`Walk::barrier`].
    fn apply_barrier(&mut self, q: QueueId, dep: &DependencyInfo, event: Option<&EventScope>) {
        let mut barriers: Vec<(Option<Range<u64>>, Scopes)> = dep.memory_barriers.iter().map(|b| (None, self.scopes(b))).collect();
        for b in &dep.buffer_memory_barriers {
            let size = b.size.unwrap_or(self.prog.workload.buffers[b.buffer].size.saturating_sub(b.offset));
            let start = self.prog.buffer_addr(b.buffer, b.offset);
            let full = self.scopes(&b.barrier);
            barriers.push((Some(start..start + size), full));
            // Its execution dependency orders every access of its stages, not only the range's.
            barriers.push((None, Scopes { src_usages: UsageSet::EMPTY, dst_usages: UsageSet::EMPTY, ..full }));
        }
        // An image barrier: its memory dependency on the bytes of its subresources.
        for b in &dep.image_memory_barriers {
            let im = &self.prog.workload.images[b.image];
            let base = self.prog.buffer_addr(self.prog.image_resource(b.image), 0);
            let full = self.scopes(&b.barrier);
            for (o, n) in im.layout.range_bytes(&b.range).unwrap_or_default() {
                barriers.push((Some(base + o..base + o + n), full));
            }
            barriers.push((None, Scopes { src_usages: UsageSet::EMPTY, dst_usages: UsageSet::EMPTY, ..full }));
        }
        // A write the host waited for before this barrier ran is still in its first scope
        // (submission order): with HOST_READ in the second, it becomes available to the host.
        let host_read = self.u.host_read;
        if event.is_none() && !self.unavailable_queue.is_empty() {
            for (range, b) in barriers.iter().filter(|(_, b)| b.dst_usages.contains(host_read)) {
                let r = range.clone().unwrap_or(0..u64::MAX);
                let queues = &self.unavailable_queue;
                self.host_unavailable.update_existing(r, |v| {
                    if v.is_some_and(|(tag, usage)| queues.get(&tag) == Some(&q) && b.src_usages.contains(usage)) {
                        *v = None;
                    }
                });
            }
        }
        let ctx = &mut self.queues[q as usize].context;
        if event.is_none() && barriers.iter().all(|(r, _)| r.is_none()) {
            // Global barriers only: every stored range at once.
            let bs: Vec<Scopes> = barriers.into_iter().map(|(_, b)| b).collect();
            ctx.update_all(|s| s.apply_barriers(q, &bs, |_| true));
            return;
        }
        let mut cuts: Vec<u64> = barriers.iter().filter_map(|(r, _)| r.clone()).flat_map(|r| [r.start, r.end]).collect();
        if let Some(scope) = event {
            cuts.extend(scope.map.iter().flat_map(|(r, _)| [r.start, r.end]));
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut changes: Vec<(Range<u64>, AccessState)> = Vec::new();
        for (range, state) in ctx.iter() {
            let inner = cuts.iter().copied().filter(|&c| c > range.start && c < range.end);
            let mut edges: Vec<u64> = std::iter::once(range.start).chain(inner).chain(std::iter::once(range.end)).collect();
            edges.dedup();
            for piece in edges.windows(2).map(|w| w[0]..w[1]) {
                let applicable: Vec<Scopes> = barriers.iter().filter(|(r, _)| r.as_ref().is_none_or(|r| r.start <= piece.start && piece.end <= r.end)).map(|(_, s)| *s).collect();
                if applicable.is_empty() {
                    continue;
                }
                let mut next = state.clone();
                match event {
                    None => next.apply_barriers(q, &applicable, |_| true),
                    Some(scope) => {
                        // Only the accesses the set had in its first scope, made before it.
                        let Some(entry) = scope.map.overlapping(piece.clone()).map(|(_, v)| *v).next() else { continue };
                        next.apply_barriers(q, &applicable, |t| t < scope.tag);
                        if next.write.map(|w| Some(w.tag)) != Some(entry.write) {
                            next.write = state.write;
                        }
                        for (n, before) in next.reads.iter_mut().zip(state.reads.iter()) {
                            if !entry.reads.intersects(before.usage.stage()) {
                                *n = *before;
                            }
                        }
                        next.read_barriers = state.read_barriers | next.reads.iter().fold(S::NONE, |m, r| m | r.barriers);
                    }
                }
                if next != *state {
                    changes.push((piece, next));
                }
            }
        }
        for (piece, next) in changes {
            ctx.update(piece, |v| *v = next.clone());
        }
    }

    /// What an event's set had in its first scope.
    fn set_event(&mut self, q: QueueId, dep: &DependencyInfo, tag: Tag) -> EventScope {
        // The first execution scope; the access scopes act at the wait, from its barriers.
        let src_exec = first_scope_stages(dep.src_stages(), None);
        let mut map = RangeMap::new();
        for (r, s) in self.queues[q as usize].context.iter() {
            let write = s.write.filter(|w| (w.queue == q && src_exec.intersects(w.usage.stage())) || w.chain.intersects(src_exec)).map(|w| w.tag);
            let reads = s.reads.iter().filter(|r| (r.queue == q && src_exec.intersects(r.usage.stage())) || r.barriers.intersects(src_exec)).fold(S::NONE, |m, r| m | r.usage.stage());
            let entry = ScopeEntry { write, reads };
            if entry != ScopeEntry::default() {
                map.update(r, |v| *v = entry);
            }
        }
        EventScope { tag, map }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace of one command buffer on one 32x32 colour image (and a buffer `out`), the
    /// commands given.
    fn hazards(commands: &str) -> Vec<Hazard> {
        let text = format!(
            r#"{{"gpusim_trace": 1, "memory": [{{"id": "vram", "size": 65536, "properties": "DEVICE_LOCAL"}}],
            "buffers": [{{"id": "out", "memory": "vram", "offset": 0, "size": 4096, "usage": "TRANSFER_DST"}}],
            "images": [{{"id": "img", "memory": "vram", "offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [32, 32, 1], "usage": "TRANSFER_DST|TRANSFER_SRC"}}],
            "events": ["e"],
            "command_buffers": [{{"id": "cb", "commands": [{commands}]}}],
            "timeline": [{{"op": "queue_submit", "command_buffers": ["cb"]}}]}}"#
        );
        let t = crate::trace::load_str(&text, None).expect("loads");
        detect(&t.workload).expect("detects")
    }

    /// The fix `check` names for the one hazard of `commands`: the image barrier to widen.
    fn widening(commands: &str) -> Option<diagnose::ImageWidening> {
        let text = format!(
            r#"{{"gpusim_trace": 1, "memory": [{{"id": "vram", "size": 65536, "properties": "DEVICE_LOCAL"}}],
            "buffers": [{{"id": "out", "memory": "vram", "offset": 0, "size": 4096, "usage": "TRANSFER_DST"}}],
            "images": [{{"id": "img", "memory": "vram", "offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [32, 32, 1], "usage": "TRANSFER_DST|TRANSFER_SRC"}}],
            "command_buffers": [{{"id": "cb", "commands": [{commands}]}}],
            "timeline": [{{"op": "queue_submit", "command_buffers": ["cb"]}}]}}"#
        );
        let t = crate::trace::load_str(&text, None).expect("loads");
        let prog = Program::new(&t.workload).expect("program");
        let h = detect(&t.workload).expect("detects");
        assert_eq!(h.len(), 1, "{h:?}");
        diagnose::image_widening(&prog, &h[0])
    }

    fn barrier(src: &str, src_access: &str, dst: &str, dst_access: &str, old: &str, new: &str) -> String {
        format!(
            r#"{{"cmd": "pipeline_barrier", "image_memory_barriers": [{{"src_stage_mask": "{src}", "src_access_mask": "{src_access}", "dst_stage_mask": "{dst}", "dst_access_mask": "{dst_access}", "old_layout": "{old}", "new_layout": "{new}", "image": "img"}}]}}"#
        )
    }

    const CLEAR: &str = r#"{"cmd": "clear_color_image", "image": "img", "image_layout": "TRANSFER_DST_OPTIMAL", "color": {"float32": [1, 0, 0, 1]}, "ranges": [{"aspect_mask": "COLOR"}]}"#;
    const COPY: &str = r#"{"cmd": "copy_image_to_buffer", "src_image": "img", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_buffer": "out", "regions": [{"image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [32, 32, 1]}]}"#;

    fn first() -> String {
        barrier("NONE", "NONE", "CLEAR", "TRANSFER_WRITE", "UNDEFINED", "TRANSFER_DST_OPTIMAL")
    }

    /// A transition that does not wait for the clear is a write after write at its barrier; the
    /// copy after it, in the barrier's second scope, is clean (the transition is the latest
    /// write, visible to it).
    #[test]
    fn a_transition_outside_the_first_scope_is_a_write_after_write_at_the_barrier() {
        let h = hazards(&[first(), CLEAR.into(), barrier("NONE", "NONE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL"), COPY.into()].join(","));
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!((h[0].id, h[0].usage.to_string(), h[0].prior_usage.to_string()), ("SYNC-HAZARD-WRITE-AFTER-WRITE", "IMAGE_LAYOUT_TRANSITION".to_string(), "CLEAR_TRANSFER_WRITE".to_string()));
        assert!(matches!(&h[0].at, Place::Command(c) if c.command == 2), "{h:?}");
        assert!(matches!(&h[0].prior, Place::Command(c) if c.command == 1), "{h:?}");
        assert_eq!((h[0].resource.as_str(), h[0].offset, h[0].size), ("img", 0, 4096));
        // The stage without the access: not made available before the transition.
        let h = hazards(&[first(), CLEAR.into(), barrier("CLEAR", "NONE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL"), COPY.into()].join(","));
        assert_eq!(h.iter().map(|h| h.id).collect::<Vec<_>>(), ["SYNC-HAZARD-WRITE-AFTER-WRITE"]);
        assert!(h[0].usage.is_layout_transition());
        // The fix: the transition's own barrier, widened by the clear's stage and access.
        let w = widening(&[first(), CLEAR.into(), barrier("NONE", "NONE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL"), COPY.into()].join(",")).expect("a widening");
        assert_eq!((w.command.command, w.dependency, w.index), (2, None, 0));
        assert_eq!(w.add, MemoryBarrier2::new(S::CLEAR, A::TRANSFER_WRITE, S::NONE, A::NONE));
        // Both: clean.
        assert!(hazards(&[first(), CLEAR.into(), barrier("CLEAR", "TRANSFER_WRITE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL"), COPY.into()].join(",")).is_empty());
    }

    /// A copy outside the transition's second scope reads after the transition's write; a
    /// transition after a read not in its first execution scope is a write after read; one from
    /// UNDEFINED writes too; a barrier that keeps the layout is no transition.
    #[test]
    fn transitions_conflict_as_writes() {
        let to_src = |dst: &str, access: &str| barrier("CLEAR", "TRANSFER_WRITE", dst, access, "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL");
        let h = hazards(&[first(), CLEAR.into(), to_src("COMPUTE_SHADER", "SHADER_SAMPLED_READ"), COPY.into()].join(","));
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!((h[0].id, h[0].prior_usage), ("SYNC-HAZARD-READ-AFTER-WRITE", StageAccess::IMAGE_LAYOUT_TRANSITION));
        // The fix: the transition's second scope widened to the copy.
        let w = widening(&[first(), CLEAR.into(), to_src("COMPUTE_SHADER", "SHADER_SAMPLED_READ"), COPY.into()].join(",")).expect("a widening");
        assert_eq!(w.add, MemoryBarrier2::new(S::NONE, A::NONE, S::COPY, A::TRANSFER_READ));
        // The copy reads; a transition back to TRANSFER_DST that does not wait for it.
        let back = |src: &str| barrier(src, "NONE", "CLEAR", "TRANSFER_WRITE", "TRANSFER_SRC_OPTIMAL", "TRANSFER_DST_OPTIMAL");
        let h = hazards(&[first(), CLEAR.into(), to_src("COPY", "TRANSFER_READ"), COPY.into(), back("NONE")].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage.to_string(), h.prior_usage.to_string())).collect::<Vec<_>>(), [("SYNC-HAZARD-WRITE-AFTER-READ", "IMAGE_LAYOUT_TRANSITION".into(), "COPY_TRANSFER_READ".into())]);
        assert!(hazards(&[first(), CLEAR.into(), to_src("COPY", "TRANSFER_READ"), COPY.into(), back("COPY")].join(",")).is_empty());
        // From UNDEFINED: the contents are discarded, a write all the same.
        let discard = barrier("NONE", "NONE", "CLEAR", "TRANSFER_WRITE", "UNDEFINED", "TRANSFER_DST_OPTIMAL");
        let h = hazards(&[first(), CLEAR.into(), discard, CLEAR.into()].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage)).collect::<Vec<_>>(), [("SYNC-HAZARD-WRITE-AFTER-WRITE", StageAccess::IMAGE_LAYOUT_TRANSITION)]);
        // The same layout: a memory dependency alone (here none), so the second clear meets the first.
        let keep = barrier("NONE", "NONE", "CLEAR", "TRANSFER_WRITE", "TRANSFER_DST_OPTIMAL", "TRANSFER_DST_OPTIMAL");
        let h = hazards(&[first(), CLEAR.into(), keep, CLEAR.into()].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage.to_string())).collect::<Vec<_>>(), [("SYNC-HAZARD-WRITE-AFTER-WRITE", "CLEAR_TRANSFER_WRITE".into())]);
        // Two transitions in a row on one queue are ordered (submission order).
        let again = barrier("NONE", "NONE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL");
        assert!(hazards(&[first(), again, COPY.into()].join(",")).is_empty());
    }

    /// A read of bytes a transition from UNDEFINED discarded after they were written is a
    /// [`READ_AFTER_DISCARD`], with the write and the layout that would have kept them; a write
    /// after the transition gives the bytes contents again, and a transition from the layout
    /// the image is in discards nothing.
    #[test]
    fn reads_of_contents_a_transition_from_undefined_discarded() {
        let discard = barrier("CLEAR", "TRANSFER_WRITE", "COPY", "TRANSFER_READ", "UNDEFINED", "TRANSFER_SRC_OPTIMAL");
        let h = hazards(&[first(), CLEAR.into(), discard.clone(), COPY.into()].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage.to_string(), h.prior_usage)).collect::<Vec<_>>(), [(READ_AFTER_DISCARD, "COPY_TRANSFER_READ".to_string(), StageAccess::IMAGE_LAYOUT_TRANSITION)]);
        assert!(matches!(&h[0].at, Place::Command(c) if c.command == 3), "{h:?}");
        assert!(matches!(&h[0].prior, Place::Command(c) if c.command == 2), "{h:?}");
        let d = h[0].discarded.as_ref().expect("what was discarded");
        assert!(matches!(&d.write, Place::Command(c) if c.command == 1), "{d:?}");
        assert_eq!((d.image.as_str(), d.write_usage.to_string(), d.barrier, d.layout.as_deref()), ("img", "CLEAR_TRANSFER_WRITE".to_string(), 0, Some("TRANSFER_DST_OPTIMAL")));
        // Written again after the transition: contents again.
        let clear_src = r#"{"cmd": "clear_color_image", "image": "img", "image_layout": "TRANSFER_DST_OPTIMAL", "color": {"float32": [0, 1, 0, 1]}, "ranges": [{"aspect_mask": "COLOR"}]}"#;
        let to_dst = barrier("CLEAR", "TRANSFER_WRITE", "CLEAR", "TRANSFER_WRITE", "UNDEFINED", "TRANSFER_DST_OPTIMAL");
        let to_src = barrier("CLEAR", "TRANSFER_WRITE", "COPY", "TRANSFER_READ", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL");
        assert!(hazards(&[first(), CLEAR.into(), to_dst, clear_src.into(), to_src.clone(), COPY.into()].join(",")).is_empty());
        // The layout it is in: nothing discarded.
        assert!(hazards(&[first(), CLEAR.into(), to_src, COPY.into()].join(",")).is_empty());
        // Nothing written before it: nothing to discard (the first transition of every image).
        assert!(hazards(&[barrier("NONE", "NONE", "COPY", "TRANSFER_READ", "UNDEFINED", "TRANSFER_SRC_OPTIMAL"), COPY.into()].join(",")).is_empty());
        // The fix names the layout the image is in.
        let text = format!(
            r#"{{"gpusim_trace": 1, "memory": [{{"id": "vram", "size": 65536, "properties": "DEVICE_LOCAL"}}],
            "buffers": [{{"id": "out", "memory": "vram", "offset": 0, "size": 4096, "usage": "TRANSFER_DST"}}],
            "images": [{{"id": "img", "memory": "vram", "offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [32, 32, 1], "usage": "TRANSFER_DST|TRANSFER_SRC"}}],
            "command_buffers": [{{"id": "cb", "commands": [{}]}}],
            "timeline": [{{"op": "queue_submit", "command_buffers": ["cb"]}}]}}"#,
            [first(), CLEAR.into(), discard, COPY.into()].join(",")
        );
        let t = crate::trace::load_str(&text, None).expect("loads");
        let prog = Program::new(&t.workload).expect("program");
        let h = detect(&t.workload).expect("detects");
        let d = diagnose::diagnose(&prog, &h[0]);
        assert!(matches!(&d.suggested, diagnose::Suggestion::OldLayout { command, image_barrier: 0, old_layout: Some(l) } if command.command == 2 && l == "TRANSFER_DST_OPTIMAL"), "{d:?}");
    }

    /// An event wait transitions the layout too, its first scope what the set had before it.
    #[test]
    fn an_event_wait_transitions_within_the_set_first_scope() {
        let dep = |src: &str, access: &str| {
            format!(
                r#"{{"image_memory_barriers": [{{"src_stage_mask": "{src}", "src_access_mask": "{access}", "dst_stage_mask": "COPY", "dst_access_mask": "TRANSFER_READ", "old_layout": "TRANSFER_DST_OPTIMAL", "new_layout": "TRANSFER_SRC_OPTIMAL", "image": "img"}}]}}"#
            )
        };
        let set = |d: &str| format!(r#"{{"cmd": "set_event", "event": "e", "dependency": {d}}}"#);
        let wait = |d: &str| format!(r#"{{"cmd": "wait_events", "events": ["e"], "dependencies": [{d}]}}"#);
        let good = dep("CLEAR", "TRANSFER_WRITE");
        assert!(hazards(&[first(), CLEAR.into(), set(&good), wait(&good), COPY.into()].join(",")).is_empty());
        // The clear after the set: outside the wait's first scope.
        let h = hazards(&[first(), set(&good), CLEAR.into(), wait(&good), COPY.into()].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage)).collect::<Vec<_>>(), [("SYNC-HAZARD-WRITE-AFTER-WRITE", StageAccess::IMAGE_LAYOUT_TRANSITION)]);
        assert!(matches!(&h[0].at, Place::Command(c) if c.command == 3), "{h:?}");
        let narrow = dep("CLEAR", "NONE");
        let h = hazards(&[first(), CLEAR.into(), set(&narrow), wait(&narrow), COPY.into()].join(","));
        assert_eq!(h.iter().map(|h| (h.id, h.usage)).collect::<Vec<_>>(), [("SYNC-HAZARD-WRITE-AFTER-WRITE", StageAccess::IMAGE_LAYOUT_TRANSITION)]);
    }
}
