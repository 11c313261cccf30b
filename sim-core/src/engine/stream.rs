//! The lowered command stream: a program as the queues see it, once, for every reader.
//!
//! # Design
//! [`Stream::lower`] walks the timeline in host program order and puts on each queue the
//! *nodes* a submission (or a queue or device wait) adds: action commands (fills, updates,
//! copies, dispatches) and sync nodes (pipeline barriers, event set and wait halves, semaphore
//! signal and wait operations, fence signals, vkQueueSubmit's host→device domain operation, and
//! the fence signal that vkQueueWaitIdle / vkDeviceWaitIdle perform), plus a *host gate* for
//! each vkCmdWaitEvents2 on an event the host sets later. Everything that depends only on the
//! program is decided here: which event a wait waits for, which semaphore signal a wait
//! consumes, which fence a host wait means, which stages a signal makes writes available from.
//! The timed engine, the reference executor, the dependency graph and the memory-model oracle
//! read this one stream, so the dependency rules below exist once.
//!
//! # The dependency rules (the execution-dependency formalization)
//! ```text
//!   queue q:  ... A(stage s) ... Y(src S, dst D) ... A'(stage s') ...
//!
//!   sync node Y  waits for every earlier node X on q with
//!                  X an action whose stage is in S, or X a sync node whose D(X) meets S
//!                (S without HOST: host operations are done before anything is submitted)
//!   action A'    waits for every earlier sync node Y on q whose D(Y) holds s'
//!   explicit     set_event / host gate -> wait_events, semaphore signal -> semaphore wait
//!   launch       A' starts no earlier than the action before it on q started (in-order
//!                launch: it orders starts, not completions, so it is no dependency)
//! ```
//! These rules are kept implicit, as (queue, family, stage bit) lists ([`Stream::family`]), so
//! that a program of many commands costs linear memory: "every earlier action of stage s on q"
//! is a prefix of one list. [`Stream::deps`] spells a node's dependencies out (for the graph);
//! `order.rs` answers happens-before from the same lists.

use std::ops::Range;

use crate::api::error::WorkloadError;
use crate::api::action::{SyncCommand, Work};
use crate::api::program::Program;
use crate::api::workload::{Command, DependencyInfo, HostOp};
use crate::profile::{ExecutionOrder, Policies};
use crate::sync::{MemoryBarrier2, PipelineStageFlags2 as S, first_scope_stages, second_scope_stages};

/// A barrier of a sync node, with the device-address range of a buffer barrier.
pub type RangedBarrier = (MemoryBarrier2, Option<(u64, u64)>);

/// What a node of the stream is.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// An action command: a command instance, and the one stage it runs in.
    Action {
        /// The command instance ([`Program::instances`]).
        inst: usize,
        /// Its stage (CLEAR, COPY, COMPUTE_SHADER).
        stage: S,
    },
    /// A sync node.
    Sync(SyncNode),
    /// The device's view of a vkSetEvent the host performs later: a wait on an event not set
    /// when it is submitted depends on this gate, which the host's vkSetEvent opens.
    HostGate {
        /// The event.
        event: usize,
        /// Timeline index of the vkSetEvent that opens it (`None`: nothing does).
        opened_at: Option<usize>,
    },
}

/// What made a sync node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncRole {
    /// vkQueueSubmit's host→device domain operation.
    Submit,
    /// A semaphore wait operation.
    SemaphoreWait,
    /// A semaphore or fence signal operation (a queue or device wait's too).
    Signal,
    /// vkCmdPipelineBarrier2.
    Barrier,
    /// vkCmdSetEvent2's half.
    SetEvent,
    /// vkCmdWaitEvents2's half.
    WaitEvents,
}

/// A sync node: the stages it waits for and holds back, and the barriers whose cache
/// operations it performs when it fires.
#[derive(Clone, Debug)]
pub struct SyncNode {
    /// What made it.
    pub role: SyncRole,
    /// What it is, for reports and timelines (`"vkCmdPipelineBarrier2 submit 0 cb0[1]"`).
    pub label: String,
    /// First-scope stages, expanded (logically earlier stages included); HOST is kept for
    /// display, and ignored for chaining.
    pub src: S,
    /// Second-scope stages, expanded.
    pub dst: S,
    /// The barriers the profile's table plans cache operations for.
    pub barriers: Vec<RangedBarrier>,
    /// Whether the first-scope (flush side) operations are performed here.
    pub first: bool,
    /// Whether the second-scope (invalidate side) operations are performed here.
    pub second: bool,
    /// The command instance of a vkCmdPipelineBarrier2, vkCmdSetEvent2 or vkCmdWaitEvents2
    /// node; none for the nodes of a submission or a driver's own waits.
    pub inst: Option<usize>,
}

impl SyncNode {
    /// First-scope stages that order device work: `src` without HOST (host operations are
    /// already done when anything is submitted, and HOST in a second scope orders host
    /// operations after a host wait, not later submissions).
    pub fn device_src(&self) -> S {
        S(self.src.0 & !S::HOST.0)
    }
}

/// One node of a queue.
#[derive(Clone, Debug)]
pub struct Node {
    /// The queue.
    pub queue: usize,
    /// What it is.
    pub kind: NodeKind,
    /// Explicit dependencies: the set_event half or host gate a wait waits for, the semaphore
    /// signal a semaphore wait consumes.
    pub explicit: Vec<usize>,
    /// The action before it on its queue: an action may start once that one started
    /// ([`Node::start_after`]); a sync node's stall is measured from that start.
    pub prev_action: Option<usize>,
    /// Timeline index of the host operation that put it on its queue.
    pub from: usize,
    /// The first node of its command: for the sync nodes of one vkCmdPipelineBarrier2's
    /// independent dependencies, the first of them (they do not chain with each other, so none
    /// waits on an earlier one); its own index otherwise.
    pub siblings_from: usize,
}

impl Node {
    /// The action before it on its queue, for an action: it may start once that one started
    /// (in-order launch; it orders starts, not completions).
    pub fn start_after(&self) -> Option<usize> {
        if matches!(self.kind, NodeKind::Action { .. }) { self.prev_action } else { None }
    }
}

/// Which of a queue's lists a node is in: actions by their stage, sync nodes by each of
/// their second-scope stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Action commands, by stage.
    Actions = 0,
    /// Sync nodes, by second-scope stage.
    Syncs = 1,
}

/// The program lowered to queues.
pub struct Stream {
    /// Every node, in the order the host timeline puts them on their queues.
    pub nodes: Vec<Node>,
    /// Per timeline index, the nodes that host operation adds.
    pub added: Vec<Range<usize>>,
    /// Per timeline index, the nodes a host wait there waits for (the fence signals of
    /// vkWaitForFences, the idle fence signals of vkQueueWaitIdle / vkDeviceWaitIdle).
    pub host_waits: Vec<Vec<usize>>,
    /// Per timeline index of a vkSetEvent, the host gates it opens.
    pub opens: Vec<Vec<usize>>,
    /// Per timeline index of a submission with a fence, that fence's signal node.
    pub fence_signal: Vec<Option<usize>>,
    /// Per queue, per family, per stage bit: the nodes in that list, in order.
    lists: Vec<[Vec<Vec<usize>>; 2]>,
    /// Number of queues.
    pub queues: usize,
    /// Per (command instance, index among its dependency's image memory barriers), for an image
    /// barrier whose old layout is UNDEFINED: the one layout every subresource it transitions
    /// was in (what its old_layout would say to keep their contents), when not UNDEFINED.
    pub layouts_before: std::collections::HashMap<(usize, usize), String>,
}

/// The stage bits of a mask, as indices 0..64.
pub fn bits(s: S) -> impl Iterator<Item = usize> {
    let mut m = s.0;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            b
        })
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EventState {
    Unset,
    /// Set by the host before the wait was submitted.
    Host,
    /// Set by this node (a vkCmdSetEvent2 half, or a host gate).
    Node(usize),
}

/// The lowering's state while it walks the timeline.
struct Lowering<'p, 'w> {
    prog: &'p Program<'w>,
    s: Stream,
    /// What the driver orders beyond the program's dependencies.
    order: ExecutionOrder,
    /// Whether the command after a copy waits for it ([`Policies::wait_after_copy`]).
    wait_after_copy: bool,
    last_action: Vec<Option<usize>>,
    /// Queues that have had any node.
    used: Vec<bool>,
    /// Per queue: the stages that ran work whose writes no global barrier has made available
    /// since (what a signal operation makes available).
    queue_stages: Vec<S>,
    sem_pending: Vec<Option<usize>>,
    fence_node: Vec<Option<usize>>,
    event_state: Vec<EventState>,
    /// While a pipeline barrier's dependencies are pushed: the first one's node.
    siblings_from: Option<usize>,
    /// Host gates not yet opened, per event.
    gates: Vec<Vec<usize>>,
    /// Per image, per (plane, layer, level) in [`sim_rop::ImageLayout`]'s order: the layout it
    /// is in, in submission order (what the validation layer checks at vkQueueSubmit).
    layouts: Vec<Vec<String>>,
    /// Per queue: the last attachment action of the render-pass instance being executed.
    pass_last: Vec<Option<usize>>,
    now: usize,
}

/// The (aspect, level, layer) subresources of `range` in `im`, as indices into its layout list.
fn subresources(im: &crate::api::ImageBinding, range: &sim_rop::SubresourceRange) -> Vec<(usize, sim_rop::Aspect, u32, u32)> {
    let d = &im.layout.desc;
    let mut out = Vec::new();
    for (p, &a) in d.format.aspects().iter().enumerate() {
        if !range.aspects[a as usize] {
            continue;
        }
        for layer in range.base_array_layer..range.base_array_layer + range.layer_count {
            for level in range.base_mip_level..range.base_mip_level + range.level_count {
                out.push((((p as u32 * d.array_layers + layer) * d.mip_levels + level) as usize, a, level, layer));
            }
        }
    }
    out
}

impl Stream {
    /// Lowers `prog`'s timeline. Fails on what no timing can fix: a semaphore wait with no
    /// signal before it, a binary semaphore signalled twice, a fence submitted again without a
    /// reset, a host wait on a fence nothing signals, an event wait nothing signals before it, a
    /// host vkSetEvent of an event a pending command buffer waits on
    /// (VUID-vkSetEvent-event-09543), a synchronization1 wait on a host-set event without HOST
    /// in its srcStageMask (VUID-vkCmdWaitEvents-srcStageMask-01158).
    pub fn lower(prog: &Program<'_>) -> Result<Stream, WorkloadError> {
        Stream::lower_with(prog, Policies::default())
    }

    /// [`Stream::lower`] for a driver that orders more than the program asks ([`ExecutionOrder`],
    /// [`Policies::wait_after_copy`]): with `Serial`, a pipeline barrier whose first scope holds
    /// a stage becomes a wait for all earlier work that holds all later work, a submission's
    /// domain operation waits for the queue's earlier work, and a wait with no cache operation
    /// goes between the command buffers of a submission; with `wait_after_copy`, such a wait
    /// follows every copy.
    pub fn lower_with(prog: &Program<'_>, policies: Policies) -> Result<Stream, WorkloadError> {
        let order = policies.execution_order;
        let w = prog.workload;
        let nq = w.queues.len();
        let mut l = Lowering {
            prog,
            order,
            wait_after_copy: policies.wait_after_copy,
            s: Stream {
                nodes: Vec::new(),
                added: Vec::with_capacity(w.timeline.len()),
                host_waits: vec![Vec::new(); w.timeline.len()],
                opens: vec![Vec::new(); w.timeline.len()],
                fence_signal: vec![None; w.timeline.len()],
                lists: (0..nq).map(|_| [vec![Vec::new(); 64], vec![Vec::new(); 64]]).collect(),
                queues: nq,
                layouts_before: std::collections::HashMap::new(),
            },
            last_action: vec![None; nq],
            used: vec![false; nq],
            queue_stages: vec![S::NONE; nq],
            sem_pending: vec![None; w.semaphores.len()],
            fence_node: vec![None; w.fences.len()],
            event_state: vec![EventState::Unset; w.events.len()],
            siblings_from: None,
            gates: vec![Vec::new(); w.events.len()],
            layouts: w.images.iter().map(|im| vec![im.initial_layout.clone(); im.layout.desc.format.aspects().len() * (im.layout.desc.mip_levels * im.layout.desc.array_layers) as usize]).collect(),
            pass_last: vec![None; nq],
            now: 0,
        };
        for (t, op) in w.timeline.iter().enumerate() {
            l.now = t;
            let start = l.s.nodes.len();
            l.host_op(t, op)?;
            l.s.added.push(start..l.s.nodes.len());
        }
        // A wait that found its event unset: nothing later may set it (a device set comes after
        // the wait on its queue, or on another queue; the host may not set an event a pending
        // command buffer waits on), so it would wait forever.
        if let Some((e, &g)) = l.gates.iter().enumerate().find_map(|(e, gs)| gs.first().map(|g| (e, g))) {
            let from = l.s.nodes[g].from;
            return Err(WorkloadError::Deadlock {
                at: format!("timeline[{from}]"),
                message: format!(
                    "a command buffer of this submission waits on event `{}` (vkCmdWaitEvents2), which no vkCmdSetEvent2 before it on its queue and no vkSetEvent before the submission signals: it would wait forever",
                    w.events[e]
                ),
            });
        }
        Ok(l.s)
    }

    /// The lists node `i` is a member of: an action by its stage, a sync node by each of its
    /// second-scope stages; a host gate is in none.
    pub fn membership(&self, i: usize) -> Option<(Family, S)> {
        match &self.nodes[i].kind {
            NodeKind::Action { stage, .. } => Some((Family::Actions, *stage)),
            NodeKind::Sync(y) => Some((Family::Syncs, y.dst)),
            NodeKind::HostGate { .. } => None,
        }
    }

    /// The list of queue `q`, family `f`, stage bit `b`.
    pub fn family(&self, q: usize, f: Family, b: usize) -> &[usize] {
        &self.lists[q][f as usize][b]
    }

    /// What node `i` waits for on its own queue: (family, stage bits) whose earlier members it
    /// depends on. Explicit edges are in [`Node::explicit`].
    pub fn waits_for(&self, i: usize) -> [(Family, S); 2] {
        match &self.nodes[i].kind {
            NodeKind::Action { stage, .. } => [(Family::Syncs, *stage), (Family::Actions, S::NONE)],
            NodeKind::Sync(y) => [(Family::Actions, y.device_src()), (Family::Syncs, y.device_src())],
            NodeKind::HostGate { .. } => [(Family::Actions, S::NONE), (Family::Syncs, S::NONE)],
        }
    }

    /// Node `i` depends on the members of its lists of family `f` below this index: itself for
    /// every node but a sync node of a vkCmdPipelineBarrier2 with several independent
    /// dependencies, which does not wait on its siblings (barriers of one command do not chain).
    pub fn bound(&self, i: usize, f: Family) -> usize {
        match f {
            Family::Syncs => self.nodes[i].siblings_from,
            Family::Actions => i,
        }
    }

    /// Every node `i` depends on directly, in index order: the rules of the module
    /// documentation spelled out (explicit edges included). Costs a scan of the lists it
    /// names: for graphs and tests, not for the engine.
    pub fn deps(&self, i: usize) -> Vec<usize> {
        let q = self.nodes[i].queue;
        let mut out: Vec<usize> = self.nodes[i].explicit.clone();
        for (f, stages) in self.waits_for(i) {
            let bound = self.bound(i, f);
            for b in bits(stages) {
                let list = self.family(q, f, b);
                out.extend(list[..list.partition_point(|&j| j < bound)].iter().copied());
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Per stage bit, every write usage legal at that stage, worked out once: what a barrier's first
/// access scope must hold to make all of that stage's writes available.
fn stage_writes() -> &'static [crate::sync::UsageSet; 64] {
    static WRITES: std::sync::OnceLock<[crate::sync::UsageSet; 64]> = std::sync::OnceLock::new();
    WRITES.get_or_init(|| {
        let mut by_stage = [crate::sync::UsageSet::EMPTY; 64];
        for u in crate::sync::all_usages().filter(|u| u.is_write()) {
            for k in bits(u.stage()) {
                by_stage[k].insert(u);
            }
        }
        by_stage
    })
}

/// Every device stage: what a wait for idle waits for and holds.
fn all_device_stages() -> S {
    S(first_scope_stages(S::ALL_COMMANDS, None).0 & !S::HOST.0)
}

/// The barriers of one vkCmdPipelineBarrier2 as separate dependencies, one per distinct pair
/// of (first, second) scope stages.
///
/// Each barrier of one command is its own dependency: the barriers do not chain with each
/// other (they act together, on what came before the command). One sync node for all of them
/// would order COPY before CLEAR for a command holding COPY→COMPUTE_SHADER and
/// COMPUTE_SHADER→CLEAR, an order the program never asked for. The sync nodes of one command
/// never wait on each other ([`Node::siblings_from`]); they still go in an order where no
/// earlier one's second scope meets a later one's first where such an order exists (the order
/// the nodes fire in, kept for reports), and in the program's order where each reaches into
/// the other (COMPUTE_SHADER→COPY beside COPY→COMPUTE_SHADER does not order two dispatches).
fn independent_dependencies(barriers: Vec<RangedBarrier>) -> Vec<Vec<RangedBarrier>> {
    let scopes = |b: &MemoryBarrier2| (S(first_scope_stages(b.src_stage_mask, None).0 & !S::HOST.0), second_scope_stages(b.dst_stage_mask, None));
    let mut groups: Vec<((S, S), Vec<RangedBarrier>)> = Vec::new();
    for rb in barriers {
        let key = scopes(&rb.0);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(rb),
            None => groups.push((key, vec![rb])),
        }
    }
    if groups.len() < 2 {
        return groups.into_iter().map(|(_, g)| g).collect();
    }
    // Group j must go before group i when i's second scope meets j's first (i first would
    // chain j after i): a topological order, or one node on a cycle.
    let n = groups.len();
    let before = |j: usize, i: usize| i != j && (groups[i].0.1.0 & groups[j].0.0.0) != 0;
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let Some(next) = (0..n).find(|&i| !placed[i] && (0..n).all(|j| placed[j] || !before(j, i))) else {
            return groups.into_iter().map(|(_, g)| g).collect();
        };
        placed[next] = true;
        order.push(next);
    }
    let mut slots: Vec<Option<Vec<RangedBarrier>>> = groups.into_iter().map(|(_, g)| Some(g)).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

impl Lowering<'_, '_> {
    fn push(&mut self, queue: usize, kind: NodeKind, explicit: Vec<usize>) -> usize {
        let i = self.s.nodes.len();
        let prev_action = self.last_action[queue];
        if let NodeKind::Action { stage, .. } = &kind {
            self.last_action[queue] = Some(i);
            self.queue_stages[queue] |= *stage;
        }
        // A pipeline barrier's global memory barriers made every write of the stages in their
        // first access scope available: a later signal has nothing left to do for them.
        if let NodeKind::Sync(y) = &kind
            && y.role == SyncRole::Barrier
            && y.first
        {
            let writes = stage_writes();
            for (b, _) in y.barriers.iter().filter(|(_, range)| range.is_none()) {
                let first = b.first_usages().0;
                let covered = bits(self.queue_stages[queue]).filter(|&k| writes[k].0 & !first == 0).fold(0u64, |m, k| m | (1u64 << k));
                self.queue_stages[queue] = S(self.queue_stages[queue].0 & !covered);
            }
        }
        self.used[queue] = true;
        self.s.nodes.push(Node { queue, kind, explicit, prev_action, from: self.now, siblings_from: self.siblings_from.unwrap_or(i) });
        if let Some((f, stages)) = self.s.membership(i) {
            for b in bits(stages) {
                self.s.lists[queue][f as usize][b].push(i);
            }
        }
        i
    }

    /// Whether `command` is a vkCmdSetEvent2 of an event already signalled, in submission
    /// order, by a set (the host's, or a device set no vkCmdResetEvent2 followed).
    fn sync(&self, role: SyncRole, label: String, barriers: Vec<RangedBarrier>, first: bool, second: bool) -> NodeKind {
        let mut src = S::NONE;
        let mut dst = S::NONE;
        for (b, _) in &barriers {
            if first {
                src |= first_scope_stages(b.src_stage_mask, None);
            }
            if second {
                dst |= second_scope_stages(b.dst_stage_mask, None);
            }
        }
        NodeKind::Sync(SyncNode { role, label, src, dst, barriers, first, second, inst: None })
    }

    /// A semaphore or fence signal operation: it waits for every earlier command in
    /// `stage_mask`'s first scope, and makes available the writes of the stages that ran work on
    /// this queue since a global barrier last made their writes available (stages without such
    /// work have nothing to make available; planning MEMORY_WRITE over every stage would fire
    /// table rows, such as seed-l2's TRANSFER_WRITE "invalidate L2", for writes that never
    /// happened or were made available already, and write back lines a missing HOST_READ
    /// barrier leaves dirty).
    fn signal(&mut self, label: String, queue: usize, stage_mask: S) -> NodeKind {
        let src = first_scope_stages(stage_mask, None);
        let mut barrier = MemoryBarrier2::semaphore_signal();
        barrier.src_stage_mask = S(src.0 & self.queue_stages[queue].0);
        // The signal makes those stages' writes available: a later signal has nothing left to
        // do for them (re-running their rows, seed-l2's TRANSFER_WRITE "invalidate L2" for a
        // retired fill, would write back lines a missing HOST_READ barrier leaves dirty).
        self.queue_stages[queue] = S(self.queue_stages[queue].0 & !src.0);
        let barriers = if barrier.src_stage_mask.is_empty() { Vec::new() } else { vec![(barrier, None)] };
        NodeKind::Sync(SyncNode { role: SyncRole::Signal, label, src, dst: S::NONE, barriers, first: true, second: false, inst: None })
    }

    /// A node that waits for all earlier work on `queue` and holds all later work, with no cache
    /// operation: what a driver that serializes ([`ExecutionOrder::Serial`]) puts there.
    fn serial_wait(&mut self, queue: usize, label: String) {
        let k = NodeKind::Sync(SyncNode { role: SyncRole::Barrier, label, src: all_device_stages(), dst: all_device_stages(), barriers: Vec::new(), first: true, second: true, inst: None });
        self.push(queue, k, Vec::new());
    }

    fn barrier_list(&self, dep: &DependencyInfo) -> Vec<RangedBarrier> {
        let mut v: Vec<_> = dep.memory_barriers.iter().map(|b| (*b, None)).collect();
        for bb in &dep.buffer_memory_barriers {
            let buf = &self.prog.workload.buffers[bb.buffer];
            let size = bb.size.unwrap_or(buf.size - bb.offset);
            v.push((bb.barrier, Some((self.prog.buffer_addr(bb.buffer, bb.offset), size))));
        }
        // An image barrier acts on the bytes of its subresources.
        for ib in &dep.image_memory_barriers {
            let im = &self.prog.workload.images[ib.image];
            let base = self.prog.buffer_addr(self.prog.image_resource(ib.image), 0);
            for (o, n) in im.layout.range_bytes(&ib.range).unwrap_or_default() {
                v.push((ib.barrier, Some((base + o, n))));
            }
        }
        v
    }

    /// Performs the layout transitions of `dep`'s image barriers (of command instance `inst`),
    /// in submission order: each subresource must be in the barrier's old layout, or the old
    /// layout is UNDEFINED (its contents may be discarded; the layout they were in is kept in
    /// [`Stream::layouts_before`]).
    fn transition(&mut self, inst: usize, dep: &DependencyInfo, at: &str, when: &str) -> Result<(), WorkloadError> {
        let w = self.prog.workload;
        for (i, ib) in dep.image_memory_barriers.iter().enumerate() {
            let im = &w.images[ib.image];
            if ib.old_layout == "UNDEFINED" && ib.new_layout != "UNDEFINED" {
                let mut held = subresources(im, &ib.range).into_iter().map(|(k, ..)| &self.layouts[ib.image][k]);
                if let Some(first) = held.next()
                    && first != "UNDEFINED"
                    && held.all(|l| l == first)
                {
                    self.s.layouts_before.insert((inst, i), first.clone());
                }
            }
            for (k, a, level, layer) in subresources(im, &ib.range) {
                let now = &mut self.layouts[ib.image][k];
                if ib.old_layout != "UNDEFINED" && *now != ib.old_layout {
                    return Err(WorkloadError::Invalid {
                        at: at.to_string(),
                        message: format!("VUID-VkImageMemoryBarrier2-oldLayout-01197: the barrier's old_layout is {}, but image `{}` ({} level {level} layer {layer}) is in {now} when {when} runs", ib.old_layout, im.name, a.vk_name()),
                    });
                }
                *now = ib.new_layout.clone();
            }
        }
        Ok(())
    }

    /// Refuses an image command whose image is not in the layout it names (checked in
    /// submission order, as the layer checks it at vkQueueSubmit).
    fn check_layout(&self, cmd: &Command, at: &str, when: &str) -> Result<(), WorkloadError> {
        let w = self.prog.workload;
        let check = |image: usize, layout: &str, range: sim_rop::SubresourceRange, vuid: &str| -> Result<(), WorkloadError> {
            let im = &w.images[image];
            for (k, a, level, layer) in subresources(im, &range) {
                let now = &self.layouts[image][k];
                if now != layout {
                    return Err(WorkloadError::Invalid {
                        at: at.to_string(),
                        message: format!("{vuid}: image `{}` ({} level {level} layer {layer}) is in {now} when {} {when} runs, not in {layout} as the command says (an image memory barrier transitions it)", im.name, a.vk_name(), cmd.vk_name()),
                    });
                }
            }
            Ok(())
        };
        let of = |r: &crate::api::BufferImageCopy| r.subresource.range();
        match cmd {
            Command::CopyBufferToImage { dst, dst_layout, regions, .. } => regions.iter().try_for_each(|r| check(*dst, dst_layout, of(r), "VUID-vkCmdCopyBufferToImage-dstImageLayout-00180")),
            Command::CopyImageToBuffer { src, src_layout, regions, .. } => regions.iter().try_for_each(|r| check(*src, src_layout, of(r), "VUID-vkCmdCopyImageToBuffer-srcImageLayout-00189")),
            Command::CopyImage { src, src_layout, dst, dst_layout, regions } => regions.iter().try_for_each(|r| {
                check(*src, src_layout, r.src_subresource.range(), "VUID-vkCmdCopyImage-srcImageLayout-00128")?;
                check(*dst, dst_layout, r.dst_subresource.range(), "VUID-vkCmdCopyImage-dstImageLayout-00133")
            }),
            Command::BlitImage { src, src_layout, dst, dst_layout, regions, .. } => regions.iter().try_for_each(|r| {
                check(*src, src_layout, r.src_subresource.range(), "VUID-vkCmdBlitImage-srcImageLayout-00221")?;
                check(*dst, dst_layout, r.dst_subresource.range(), "VUID-vkCmdBlitImage-dstImageLayout-00226")
            }),
            Command::ClearColorImage { image, layout, ranges, .. } => ranges.iter().try_for_each(|r| check(*image, layout, *r, "VUID-vkCmdClearColorImage-imageLayout-00004")),
            Command::ClearDepthStencilImage { image, layout, ranges, .. } => ranges.iter().try_for_each(|r| check(*image, layout, *r, "VUID-vkCmdClearDepthStencilImage-imageLayout-00011")),
            // A view the shader uses must be in the layout its descriptor names.
            Command::Dispatch { pipeline, images, .. } => {
                let info = w.pipelines[*pipeline].1.bindings();
                images
                    .iter()
                    .filter(|d| info.iter().any(|i| i.group == d.set && i.binding == d.binding))
                    .filter_map(|d| d.image.map(|image| (image, d)))
                    .try_for_each(|(image, d)| check(image, &d.layout, d.range, "VUID-vkCmdDispatch-None-09600"))
            }
            Command::Draw { pipeline, images, kind, .. } => {
                let p = &w.graphics_pipelines[*pipeline];
                let declared = |d: &&crate::api::ImageDescriptor| std::iter::once(&p.vertex).chain(p.fragment.iter()).any(|s| s.bindings().iter().any(|i| i.group == d.set && i.binding == d.binding));
                let vuid = format!("VUID-{}-None-09600", kind.vk_name());
                images.iter().filter(declared).filter_map(|d| d.image.map(|image| (image, d))).try_for_each(|(image, d)| check(image, &d.layout, d.range, &vuid))
            }
            Command::BeginRendering(info) => {
                let all = info.color_attachments.iter().flatten().chain(info.depth_attachment.iter()).chain(info.stencil_attachment.iter());
                all.into_iter().try_for_each(|a| {
                    let im = &w.images[a.view.image];
                    let mut aspects = [false; 3];
                    im.layout.desc.format.aspects().iter().for_each(|&x| aspects[x as usize] = true);
                    let range = sim_rop::SubresourceRange { aspects, base_mip_level: a.view.level, level_count: 1, base_array_layer: a.view.base_layer, layer_count: 1 };
                    check(a.view.image, &a.layout, range, "UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout")
                })
            }
            _ => Ok(()),
        }
    }

    fn host_op(&mut self, t: usize, op: &HostOp) -> Result<(), WorkloadError> {
        let w = self.prog.workload;
        let at = || format!("timeline[{t}]");
        match op {
            HostOp::QueueSubmit { queue, batches, fence } => {
                let queue = *queue;
                if let Some(f) = *fence
                    && self.fence_node[f].is_some()
                {
                    return Err(WorkloadError::Invalid { at: at(), message: format!("fence `{}` is submitted again without vkResetFences", w.fences[f]) });
                }
                // vkQueueSubmit: a host→device domain operation and a visibility operation.
                let mut k = self.sync(SyncRole::Submit, format!("vkQueueSubmit timeline[{t}] (host→device domain operation)"), vec![(MemoryBarrier2::queue_submit_host_to_device(), None)], true, true);
                // A driver that serializes submissions performs it after the queue's earlier
                // work, whose caches it then refreshes.
                if let (ExecutionOrder::Serial, NodeKind::Sync(y)) = (self.order, &mut k) {
                    y.src |= all_device_stages();
                }
                self.push(queue, k, Vec::new());
                for (b, batch) in batches.iter().enumerate() {
                    for &(s, stages) in &batch.wait_semaphores {
                        let Some(signal) = self.sem_pending[s].take() else {
                            return Err(WorkloadError::Deadlock { at: at(), message: format!("batch {b} waits on semaphore `{}`, which no earlier submission signals", w.semaphores[s]) });
                        };
                        let k = self.sync(SyncRole::SemaphoreWait, format!("semaphore `{}` wait (timeline[{t}])", w.semaphores[s]), vec![(MemoryBarrier2::semaphore_wait(stages), None)], false, true);
                        self.push(queue, k, vec![signal]);
                    }
                    for inst in self.prog.submit_batches[t][b].clone() {
                        // A later command buffer of the submission waits for the earlier ones.
                        let at = &self.prog.instances[inst].at;
                        if self.order == ExecutionOrder::Serial && at.command == 0 && (b > 0 || inst != self.prog.submit_batches[t][b].start) {
                            let label = format!("{} starts (the driver waits for the submission's earlier command buffers)", at.command_buffer);
                            self.serial_wait(queue, label);
                        }
                        self.command(queue, inst)?;
                    }
                    for &(s, stages) in &batch.signal_semaphores {
                        if self.sem_pending[s].is_some() {
                            return Err(WorkloadError::Invalid { at: at(), message: format!("binary semaphore `{}` is signalled again before any wait on it", w.semaphores[s]) });
                        }
                        let k = self.signal(format!("semaphore `{}` signal (timeline[{t}])", w.semaphores[s]), queue, stages);
                        let i = self.push(queue, k, Vec::new());
                        self.sem_pending[s] = Some(i);
                    }
                }
                if let Some(f) = *fence {
                    let k = self.signal(format!("fence `{}` signal (timeline[{t}])", w.fences[f]), queue, MemoryBarrier2::fence_signal().src_stage_mask);
                    let i = self.push(queue, k, Vec::new());
                    self.fence_node[f] = Some(i);
                    self.s.fence_signal[t] = Some(i);
                }
            }
            HostOp::WaitForFences(fs) => {
                for &f in fs {
                    let Some(i) = self.fence_node[f] else {
                        return Err(WorkloadError::Deadlock { at: at(), message: format!("vkWaitForFences on fence `{}`, which no submission signals", w.fences[f]) });
                    };
                    self.s.host_waits[t].push(i);
                }
            }
            HostOp::ResetFences(fs) => fs.iter().for_each(|&f| self.fence_node[f] = None),
            // vkQueueWaitIdle is a fence signal and a wait for it (the spec's definition): the
            // signal's availability operation is what makes the queue's writes available.
            HostOp::QueueWaitIdle(q) => self.idle(t, &[*q], "vkQueueWaitIdle"),
            HostOp::DeviceWaitIdle => {
                let used: Vec<usize> = (0..self.s.queues).filter(|&q| self.used[q]).collect();
                self.idle(t, &used, "vkDeviceWaitIdle");
            }
            HostOp::SetEvent(e) => {
                // A wait that found the event unset was submitted before this set, and cannot
                // complete before it: a command buffer in the pending state waits on the event.
                if let Some(&g) = self.gates[*e].first() {
                    return Err(WorkloadError::Invalid {
                        at: at(),
                        message: format!(
                            "VUID-vkSetEvent-event-09543: vkSetEvent of `{}` while a command buffer submitted at timeline[{}] waits on it and is pending; set the event before that submission, or signal it on the device (vkCmdSetEvent2)",
                            w.events[*e],
                            self.s.nodes[g].from
                        ),
                    });
                }
                self.s.opens[t] = std::mem::take(&mut self.gates[*e]);
                for &g in &self.s.opens[t] {
                    if let NodeKind::HostGate { opened_at, .. } = &mut self.s.nodes[g].kind {
                        *opened_at = Some(t);
                    }
                }
                // A vkSetEvent of an event already signalled has no effect.
                if self.event_state[*e] == EventState::Unset {
                    self.event_state[*e] = EventState::Host;
                }
            }
            HostOp::HostWrite { .. } | HostOp::HostRead { .. } | HostOp::FlushMappedMemoryRanges(_) | HostOp::InvalidateMappedMemoryRanges(_) => {}
        }
        Ok(())
    }

    /// The fence signal of a queue or device wait on each of `queues`, which the host waits for.
    fn idle(&mut self, t: usize, queues: &[usize], what: &str) {
        for &q in queues {
            let name = &self.prog.workload.queues[q];
            let k = self.signal(format!("{what} timeline[{t}] (fence signal on `{name}`)"), q, MemoryBarrier2::fence_signal().src_stage_mask);
            let i = self.push(q, k, Vec::new());
            self.s.host_waits[t].push(i);
        }
    }

    /// Pushes the sync nodes of `dep` (a pipeline barrier's, or a render pass's dependency) for
    /// command instance `inst`, each waiting explicitly for `explicit` too; their indices.
    fn barrier_nodes(&mut self, queue: usize, inst: usize, dep: &DependencyInfo, label: String, explicit: Vec<usize>) -> Vec<usize> {
        let barriers = self.barrier_list(dep);
        if self.order == ExecutionOrder::Serial && !barriers.iter().all(|(b, _)| first_scope_stages(b.src_stage_mask, None).is_empty()) {
            // A wait for idle: all earlier work, all later work, the barriers' cache
            // operations.
            let mut k = self.sync(SyncRole::Barrier, label, barriers, true, true);
            if let NodeKind::Sync(y) = &mut k {
                (y.src, y.dst) = (all_device_stages(), all_device_stages());
                y.inst = Some(inst);
            }
            return vec![self.push(queue, k, explicit)];
        }
        let groups = independent_dependencies(barriers);
        let n = groups.len();
        let mut out = Vec::with_capacity(n);
        for (k, group) in groups.into_iter().enumerate() {
            let label = if n > 1 { format!("{label} (dependency {} of {n})", k + 1) } else { label.clone() };
            let mut k = self.sync(SyncRole::Barrier, label, group, true, true);
            if let NodeKind::Sync(y) = &mut k {
                y.inst = Some(inst);
            }
            let i = self.push(queue, k, explicit.clone());
            self.siblings_from.get_or_insert(i);
            out.push(i);
        }
        self.siblings_from = None;
        out
    }

    /// A graphics command (`api/render.rs`): a render pass's dependency before its load
    /// operations (begin, next subpass) or after its store operations (end), and its action,
    /// which waits for the previous attachment action of its render-pass instance
    /// (rasterization order) and for the dependency performed before it.
    fn render_command(&mut self, queue: usize, inst: usize, r: &crate::api::render::RenderLowered<'_>, label: &str, place: &str) -> Result<(), WorkloadError> {
        let mut explicit: Vec<usize> = if r.after_previous { self.pass_last[queue].into_iter().collect() } else { Vec::new() };
        if let (Some(dep), false) = (&r.sync, r.sync_last) {
            self.transition(inst, dep, place, label)?;
            explicit.extend(self.barrier_nodes(queue, inst, dep, format!("{label} (dependencies into the subpass)"), Vec::new()));
        }
        let w = self.prog.workload;
        let cmd = &w.command_buffers[self.prog.instances[inst].cb].commands[self.prog.instances[inst].index];
        self.check_layout(cmd, place, label)?;
        if let Some(action) = self.prog.action(inst) {
            let i = self.push(queue, NodeKind::Action { inst, stage: action.stage() }, explicit.clone());
            self.pass_last[queue] = Some(i);
            explicit = vec![i];
        }
        if let (Some(dep), true) = (&r.sync, r.sync_last) {
            self.transition(inst, dep, place, label)?;
            self.barrier_nodes(queue, inst, dep, format!("{label} (dependencies to EXTERNAL)"), explicit);
        }
        if matches!(cmd, Command::EndRenderPass | Command::EndRendering) {
            self.pass_last[queue] = None;
        }
        Ok(())
    }

    fn command(&mut self, queue: usize, inst: usize) -> Result<(), WorkloadError> {
        let prog = self.prog;
        let ins = &prog.instances[inst];
        let cmd = &prog.workload.command_buffers[ins.cb].commands[ins.index];
        let label = format!("{} {}", cmd.vk_name(), ins.at);
        let place = format!("command_buffers[{}].commands[{}]", ins.at.command_buffer, ins.index);
        self.check_layout(cmd, &place, &ins.at.to_string())?;
        if let Some(r) = prog.render_lowered(ins.cb, ins.index) {
            return self.render_command(queue, inst, r, &label, &place);
        }
        if let Some(action) = prog.action(inst) {
            self.push(queue, NodeKind::Action { inst, stage: action.stage() }, Vec::new());
            if self.wait_after_copy && matches!(action.work, Work::Copy { .. }) {
                self.serial_wait(queue, format!("after {label} (the driver waits for the copy)"));
            }
            return Ok(());
        }
        // Every command that is not an action is a synchronization command.
        let Some(sync) = prog.sync_command(inst) else { return Ok(()) };
        if let SyncCommand::Barrier(dep) | SyncCommand::WaitEvents { dependency: dep, .. } = sync {
            self.transition(inst, dep, &place, &label)?;
        }
        match sync {
            SyncCommand::Barrier(dep) => {
                self.barrier_nodes(queue, inst, dep, label, Vec::new());
            }
            // "If event is already in the signaled state when vkCmdSetEvent2 is executed on
            // the device, then vkCmdSetEvent2 has no effect, no event signal operation occurs,
            // and no dependency is generated": a wait after it still waits for the first set.
            SyncCommand::SetEvent { event, .. } if self.event_state[event] != EventState::Unset => {}
            SyncCommand::SetEvent { event, dependency } => {
                let mut k = self.sync(SyncRole::SetEvent, label, self.barrier_list(dependency), true, false);
                if let NodeKind::Sync(y) = &mut k {
                    y.inst = Some(inst);
                }
                let i = self.push(queue, k, Vec::new());
                self.event_state[event] = EventState::Node(i);
            }
            SyncCommand::WaitEvents { events, dependency } => {
                let mut explicit = Vec::new();
                // The wait performs the first scope's operations where no set did: an event the
                // host sets has no device-side set node (HOST_WRITE availability), and
                // vkCmdSetEvent (synchronization1) names only stages, the access scope coming
                // from the wait's barriers (Mesa's common vkCmdSetEvent passes no access masks;
                // RADV flushes at the wait). A synchronization2 set performed them already, and
                // its wait must repeat the same dependency.
                let mut first_at_wait = false;
                for &e in events {
                    if dependency.sync1 && self.event_state[e] == EventState::Host && !dependency.src_stages().contains(S::HOST) {
                        return Err(WorkloadError::Invalid {
                            at: format!("command_buffers[{}].commands[{}]", ins.at.command_buffer, ins.index),
                            message: format!(
                                "VUID-vkCmdWaitEvents-srcStageMask-01158: event `{}` was set by the host (vkSetEvent), so srcStageMask must include HOST; it is {}",
                                prog.workload.events[e],
                                dependency.src_stages()
                            ),
                        });
                    }
                    match self.event_state[e] {
                        EventState::Node(i) => {
                            explicit.push(i);
                            // A set that names only stages (vkCmdSetEvent) made nothing
                            // available; a host gate stands for the host's vkSetEvent.
                            first_at_wait |= match &self.s.nodes[i].kind {
                                NodeKind::Sync(y) => y.barriers.iter().all(|(b, _)| b.src_access_mask.is_empty()),
                                NodeKind::HostGate { .. } | NodeKind::Action { .. } => true,
                            };
                        }
                        EventState::Host => first_at_wait = true,
                        EventState::Unset => {
                            // Not set yet: the host may set it later (vkSetEvent). The wait
                            // depends on a gate that only the host's vkSetEvent opens; if it
                            // never does, the run ends with the wait reported as unsatisfied.
                            let g = self.push(queue, NodeKind::HostGate { event: e, opened_at: None }, Vec::new());
                            self.gates[e].push(g);
                            self.event_state[e] = EventState::Node(g);
                            explicit.push(g);
                            first_at_wait = true;
                        }
                    }
                }
                let mut k = self.sync(SyncRole::WaitEvents, label, self.barrier_list(dependency), first_at_wait, true);
                // The wait is ordered after its sets' first scopes through the sets themselves
                // (`explicit`), not after every earlier command of those stages: commands
                // recorded between the set and the wait are outside the dependency.
                if let NodeKind::Sync(y) = &mut k {
                    y.src = S::NONE;
                    y.inst = Some(inst);
                }
                self.push(queue, k, explicit);
            }
            SyncCommand::ResetEvent { event } => self.event_state[event] = EventState::Unset,
        }
        Ok(())
    }
}
