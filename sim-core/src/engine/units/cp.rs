//! The command processors: each queue's nodes of the stream, put on the queue as the host
//! submits them, started when their dependencies are done, launched in order.
//!
//! # Design
//! An item is a node of the lowered stream ([`Stream`]) on its queue: waiting, running or done.
//! Readiness follows the stream's rules: explicit dependencies done, every earlier member of
//! the (queue, family, stage) lists the node waits on done (each list's done prefix only grows,
//! so it is walked once), and the action before it on the queue started (in-order launch). A
//! sync node's cache operations are planned from the profile's barrier table when it is put on
//! its queue, as the profile's policies place them.

use std::collections::HashSet;

use crate::api::error::WorkloadError;
use crate::api::program::Program;
use crate::engine::machine::CacheOp;
use crate::engine::record::{ImageWorkLog, SyncLog, SyncOp};
use crate::engine::units::host::host_op_name;
use crate::engine::units::{Cx, exec_err};
use crate::engine::stream::{Family, NodeKind, Stream, SyncNode, SyncRole, bits};
use crate::profile::{DriverPoint, EventFirstScope, Policies, SignalAvailability};
use crate::sync::{MemoryBarrier2, PipelineStageFlags2 as S};

/// Where an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Not started.
    Waiting,
    /// Started, not done.
    Running,
    /// Done (a sync node released, an action finished, a host gate opened).
    Done,
}

/// A node of the stream on its queue.
struct Item {
    /// Its queue.
    queue: usize,
    /// Where it is.
    state: State,
    /// The cache operations a sync node performs when it fires.
    ops: Vec<CacheOp>,
    /// How many of `ops` are its first scope's: its image layout transitions come after them.
    first_ops: usize,
    /// Cycle it was put on its queue (from here to its start a sync node drains).
    pushed: u64,
    /// Cycle it started.
    start: u64,
    /// Cycle the next item on its queue may launch (in-order launch): its start, or for a
    /// transfer its start plus the transfer engine's start latency (the engine has begun).
    work_from: u64,
}

/// Every queue's command processor.
pub struct CommandProcessors {
    /// Every item put on a queue so far, by node index.
    items: Vec<Item>,
    /// Per queue, per family, per stage bit: how much of the stream's list is known done.
    done_prefix: Vec<[Vec<usize>; 2]>,
    /// Per queue: items on it not yet done.
    open: Vec<usize>,
    /// Items not started, in push order (host gates are opened, never started).
    waiting: Vec<usize>,
    /// Directed schedules: node `.0` does not start before node `.1` is done (a freedom Vulkan
    /// leaves when nothing orders the two).
    holds: Vec<(usize, usize)>,
    /// Launch any ready action, not only in queue order (what a directed schedule needs to run a
    /// later command before an earlier one; Vulkan orders neither).
    relaxed_launch: bool,
    /// The transfer engine's start latency: the action after a transfer on its queue launches
    /// no earlier than this after it.
    transfer_launch_cycles: u64,
}

impl CommandProcessors {
    /// Idle processors for `queues` queues, whose transfers begin `transfer_launch_cycles` after
    /// they start.
    pub fn new(queues: usize, transfer_launch_cycles: u64) -> CommandProcessors {
        CommandProcessors {
            items: Vec::new(),
            done_prefix: (0..queues).map(|_| [vec![0; 64], vec![0; 64]]).collect(),
            open: vec![0; queues],
            waiting: Vec::new(),
            holds: Vec::new(),
            relaxed_launch: false,
            transfer_launch_cycles,
        }
    }

    /// A directed schedule: each node `.0` starts only after node `.1` is done, and actions
    /// launch in any order their dependencies allow.
    pub fn direct(&mut self, holds: Vec<(usize, usize)>) {
        self.holds = holds;
        self.relaxed_launch = true;
    }

    /// The queue of item `i`.
    pub fn queue_of(&self, i: usize) -> usize {
        self.items[i].queue
    }

    /// The cycle item `i` started.
    pub fn start_of(&self, i: usize) -> u64 {
        self.items[i].start
    }

    /// The cycle the item after action `i` on its queue may launch (in-order launch).
    pub fn work_from(&self, i: usize) -> u64 {
        self.items[i].work_from
    }

    /// Whether every item pushed so far has started (host gates aside).
    pub fn nothing_waiting(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The actions running now, with the cycle each started.
    pub fn running_actions(&self, stream: &Stream) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            if let (State::Running, NodeKind::Action { inst, .. }) = (item.state, &stream.nodes[i].kind) {
                out.push((*inst, item.start));
            }
        }
        out
    }

    /// Whether queue `q` has items not done.
    pub fn busy(&self, q: usize) -> bool {
        self.open[q] > 0
    }

    /// Whether any queue has items not done.
    pub fn any_busy(&self) -> bool {
        self.open.iter().any(|&n| n > 0)
    }

    /// Whether item `i` is done.
    pub fn done(&self, i: usize) -> bool {
        self.items[i].state == State::Done
    }

    /// Puts the nodes host operation `t` adds on their queues at cycle `now` (once: a host wait
    /// that must wait is performed again later), planning each sync node's cache operations.
    pub fn push(&mut self, stream: &Stream, t: usize, now: u64, planner: &dyn BarrierPlanner, policies: Policies) {
        let added = stream.added[t].clone();
        if self.items.len() >= added.end {
            return;
        }
        for i in added {
            let node = &stream.nodes[i];
            let (ops, first_ops) = match &node.kind {
                NodeKind::Sync(y) => plan(y, planner, policies),
                _ => (Vec::new(), 0),
            };
            self.items.push(Item { queue: node.queue, state: State::Waiting, ops, first_ops, pushed: now, start: 0, work_from: 0 });
            self.open[node.queue] += 1;
            if !matches!(node.kind, NodeKind::HostGate { .. }) {
                self.waiting.push(i);
            }
        }
    }

    /// Item `i` is done.
    pub fn finish(&mut self, i: usize) {
        self.items[i].state = State::Done;
        self.open[self.items[i].queue] -= 1;
    }

    /// How much of list (queue `q`, family `f`, stage bit `b`) is done from its front: the
    /// recorded prefix, extended past items finished since.
    fn done_upto(&self, stream: &Stream, q: usize, f: Family, b: usize) -> usize {
        let list = stream.family(q, f, b);
        let mut p = self.done_prefix[q][f as usize][b];
        while p < list.len() && list[p] < self.items.len() && self.items[list[p]].state == State::Done {
            p += 1;
        }
        p
    }

    /// Whether every dependency of item `i` is done: its explicit ones, and every earlier member
    /// of the lists it waits on ([`Stream::waits_for`]).
    pub fn deps_done(&self, stream: &Stream, i: usize) -> bool {
        let node = &stream.nodes[i];
        if node.explicit.iter().any(|&d| self.items[d].state != State::Done) {
            return false;
        }
        stream.waits_for(i).into_iter().all(|(f, stages)| {
            let bound = stream.bound(i, f);
            bits(stages).all(|b| {
                let list = stream.family(node.queue, f, b);
                list.get(self.done_upto(stream, node.queue, f, b)).is_none_or(|&j| j >= bound)
            })
        })
    }

    fn ready(&mut self, stream: &Stream, i: usize, now: u64) -> bool {
        let q = stream.nodes[i].queue;
        for (f, stages) in stream.waits_for(i) {
            for b in bits(stages) {
                self.done_prefix[q][f as usize][b] = self.done_upto(stream, q, f, b);
            }
        }
        let held = self.holds.iter().any(|&(p, a)| p == i && self.items.get(a).is_none_or(|item| item.state != State::Done));
        !held && self.deps_done(stream, i) && (self.relaxed_launch || stream.nodes[i].start_after().is_none_or(|a| self.items[a].state != State::Waiting && self.items[a].work_from <= now))
    }

    /// Starts, at cycle `now`, every waiting item that is ready, in push order: the items to
    /// start. Starting an item can make only later items ready (in-order launch: an item's
    /// `start_after` is an earlier item, and a start finishes nothing), so one pass starts what
    /// rescanning from the front after each start would, in time linear in the waiting items.
    pub fn take_ready(&mut self, stream: &Stream, now: u64) -> Vec<usize> {
        let waiting = std::mem::take(&mut self.waiting);
        let mut started = Vec::new();
        for &i in &waiting {
            if self.ready(stream, i, now) {
                self.items[i].state = State::Running;
                self.items[i].start = now;
                let transfer = matches!(stream.nodes[i].kind, NodeKind::Action { stage, .. } if stage != S::COMPUTE_SHADER);
                self.items[i].work_from = if transfer { now + self.transfer_launch_cycles } else { now };
                started.push(i);
            } else {
                self.waiting.push(i);
            }
        }
        started
    }
}

/// Fires sync node `i` now: performs the cache operations planned for it, tells the observers,
/// and releases it after the cycles they cost.
pub(crate) fn fire(cx: &mut Cx<'_, '_, '_>, i: usize, y: &SyncNode) -> Result<(), WorkloadError> {
    let label = &y.label;
    let now = cx.now();
    let mut cycles = u64::from(cx.profile.timing.barrier_cycles);
    let mut log = Vec::new();
    let mut image_work = Vec::new();
    let first_ops = cx.cp.items[i].first_ops;
    for (k, op) in cx.cp.items[i].ops.clone().into_iter().enumerate() {
        if k == first_ops {
            cycles += transitions(cx, y, &mut log, &mut image_work)?;
        }
        let (c, lines, bytes) = cx.machine.perform(&op).map_err(|e| exec_err(label.clone(), e))?;
        cycles += c;
        log.push(SyncOp { op, lines_written_back: lines, bytes_written_back: bytes, cycles: c });
    }
    if first_ops >= cx.cp.items[i].ops.len() {
        cycles += transitions(cx, y, &mut log, &mut image_work)?;
    }
    let label = label.clone();
    let item = &cx.cp.items[i];
    let (queue, queued) = (item.queue, item.pushed);
    let prev_start = cx.stream.nodes[i].prev_action.filter(|&a| cx.cp.items[a].state != State::Waiting).map(|a| cx.cp.items[a].start);
    let reached = prev_start.unwrap_or(queued).max(queued).min(now);
    let log = SyncLog { label, queue, queued, reached, fired: now, released: now + cycles, ops: log, image_work };
    cx.observers.sync(&log);
    cx.release(now + cycles, i);
    Ok(())
}

/// The layout transitions of sync node `y`, where it performs its second scope (a barrier, an
/// event wait): between the first scope's operations and the second's, as Vulkan orders a
/// layout transition. Performs the cache operations of the rows they match, then their metadata
/// work; logs both; returns their cycles.
fn transitions(cx: &mut Cx<'_, '_, '_>, y: &SyncNode, log: &mut Vec<SyncOp>, image_work: &mut Vec<ImageWorkLog>) -> Result<u64, WorkloadError> {
    let Some(inst) = y.inst.filter(|_| y.second) else { return Ok(0) };
    let err = |e| exec_err(y.label.clone(), e);
    let mut cycles = 0;
    for t in crate::engine::compression::transitions(cx.prog, cx.profile, inst, &y.barriers) {
        for &range in &t.ranges {
            for op in cx.profile.transition_ops(&t.rows, range) {
                let (c, lines, bytes) = cx.machine.perform(&op).map_err(err)?;
                cycles += c;
                log.push(SyncOp { op, lines_written_back: lines, bytes_written_back: bytes, cycles: c });
            }
        }
        for w in crate::engine::compression::metadata_work(cx.machine, cx.prog, cx.profile, &t).map_err(err)? {
            cycles += w.cycles;
            image_work.push(w);
        }
    }
    Ok(cycles)
}

impl CommandProcessors {
    /// The host gate that item `i` is held behind, through waits and in-order launch, if any.
    fn gate_behind(&self, stream: &Stream, i: usize) -> Option<usize> {
        let mut seen = HashSet::new();
        let mut stack = vec![i];
        // Only on the way to an error, and bounded: a program of many commands gets the plainer
        // message rather than a long search.
        let mut work = 0usize;
        while let Some(j) = stack.pop() {
            if !seen.insert(j) || self.items.get(j).is_none_or(|it| it.state == State::Done) {
                continue;
            }
            if matches!(stream.nodes[j].kind, NodeKind::HostGate { .. }) {
                return Some(j);
            }
            let deps = stream.deps(j);
            work += deps.len() + 1;
            if work > 1 << 20 {
                return None;
            }
            stack.extend(deps);
            stack.extend(stream.nodes[j].start_after());
        }
        None
    }

    /// Why nothing can run any more: the host's next operation (timeline index `host_pc`, if
    /// any is left) and the first device item that waits, and what each waits for.
    pub(crate) fn deadlock(&self, prog: &Program<'_>, stream: &Stream, host_pc: usize) -> WorkloadError {
        // The first device item still waiting is where the chain of waits ends.
        let first = self.waiting.first().copied();
        let stuck = first.map(|i| node_text(prog, stream, i));
        if let Some(op) = prog.workload.timeline.get(host_pc) {
            // An action whose own dependencies are met but which the command processor cannot
            // launch: the action before it waits for a vkSetEvent the host has not reached.
            let in_order = self.waiting.iter().find_map(|&i| {
                let a = stream.nodes[i].start_after()?;
                if !self.deps_done(stream, i) || self.items[a].state != State::Waiting {
                    return None;
                }
                let gate = self.gate_behind(stream, a)?;
                Some((i, a, gate))
            });
            let device = match in_order {
                Some((i, a, gate)) => format!(
                    " (on the device, {} is ready but the command processor launches actions in order, and {} before it waits for {}, which the host performs only after this wait: a queue is blocked by a wait on an event the host sets later)",
                    node_text(prog, stream, i),
                    node_text(prog, stream, a),
                    node_text(prog, stream, gate)
                ),
                None => stuck.map(|s| format!(" (on the device, {s} waits for something never signalled)")).unwrap_or_default(),
            };
            let what = if in_order.is_some() { "what it waits for is held back by in-order launch" } else { "what it waits for is never signalled" };
            return WorkloadError::Deadlock { at: format!("timeline[{host_pc}]"), message: format!("{} can never be satisfied: {what}{device}", host_op_name(op)) };
        }
        WorkloadError::Deadlock { at: stuck.unwrap_or_default(), message: "waits for something that is never signalled".into() }
    }
}

/// What node `i` is, in a message.
fn node_text(prog: &Program<'_>, stream: &Stream, i: usize) -> String {
    match &stream.nodes[i].kind {
        NodeKind::Action { inst, .. } => format!("{} {}", prog.action(*inst).map_or("", |a| a.vk_name), prog.instances[*inst].at),
        NodeKind::Sync(y) => y.label.clone(),
        NodeKind::HostGate { event, .. } => format!("vkSetEvent `{}` from the host", prog.workload.events[*event]),
    }
}

/// `ops` (of one scope, each barrier's in the planner's order) with the whole-cache operations
/// on each cache merged into one (flush and invalidate together when both were asked), in the
/// planner's order of caches; ranged operations stay as they are, after the merged one of
/// their cache.
fn merge_whole_cache(ops: Vec<CacheOp>) -> Vec<CacheOp> {
    use crate::engine::machine::CacheTarget as T;
    use sim_caches::Maintenance as M;
    if ops.len() < 2 {
        return ops;
    }
    let mut out = Vec::with_capacity(ops.len());
    // The planner's order: the ROPs' and the CUs' caches, then the L2 they write into.
    for target in [T::Rop, T::L1, T::Texture, T::Uniform, T::L2] {
        let mine = ops.iter().filter(|o| o.target == target);
        let (mut flush, mut invalidate) = (false, false);
        for o in mine.clone().filter(|o| o.range.is_none()) {
            flush |= matches!(o.action, M::Flush | M::FlushInvalidate);
            invalidate |= matches!(o.action, M::Invalidate | M::FlushInvalidate);
        }
        let action = match (flush, invalidate) {
            (true, true) => Some(M::FlushInvalidate),
            (true, false) => Some(M::Flush),
            (false, true) => Some(M::Invalidate),
            (false, false) => None,
        };
        if let Some(action) = action {
            out.push(CacheOp { target, action, range: None });
        }
        out.extend(mine.filter(|o| o.range.is_some()).copied());
    }
    out
}

/// The cache operations of sync node `y`: the first scope's (flush side) for every barrier, then
/// the second's, as the profile's policies place them (where an event's first scope is
/// performed, what a signal makes available; the stream holds the default choices).
fn plan(y: &SyncNode, planner: &dyn BarrierPlanner, policies: Policies) -> (Vec<CacheOp>, usize) {
    let first = match (y.role, policies.event_first_scope) {
        (SyncRole::SetEvent, EventFirstScope::Wait) => false,
        (SyncRole::WaitEvents, EventFirstScope::Wait) => true,
        _ => y.first,
    };
    let all_stages = [(MemoryBarrier2::semaphore_signal(), None)];
    let barriers = match (y.role, policies.signal_availability) {
        (SyncRole::Signal, SignalAvailability::AllStages) => &all_stages[..],
        _ => &y.barriers[..],
    };
    let (mut ops, mut second) = (Vec::new(), Vec::new());
    for (b, range) in barriers {
        let (f, s) = planner.plan(b, *range);
        if first {
            ops.extend(f);
        }
        if y.second {
            second.extend(s);
        }
    }
    // The node's barriers are performed together, as a driver accumulates the flush and
    // invalidate bits of a command's barriers and emits them once: per scope, whole-cache
    // operations on one cache become one, in the planner's order.
    let mut ops = merge_whole_cache(ops);
    let first_ops = ops.len();
    ops.extend(merge_whole_cache(second));
    // What the driver adds outside any barrier: its submission preamble after the host→device
    // domain operation, its fence or kernel flush after a signal's availability operation.
    match y.role {
        SyncRole::Submit => ops.extend(planner.driver_ops(DriverPoint::Submit)),
        SyncRole::Signal => ops.extend(planner.driver_ops(DriverPoint::Signal)),
        _ => {}
    }
    (ops, first_ops)
}

/// Turns barriers into cache operations: the profile's barrier table.
pub trait BarrierPlanner: Sync {
    /// The cache operations of `barrier`'s first scope (flush side) and second scope
    /// (invalidate side), each in the order to perform them. `range` is the device-address
    /// range of a buffer barrier.
    fn plan(&self, barrier: &MemoryBarrier2, range: Option<(u64, u64)>) -> (Vec<CacheOp>, Vec<CacheOp>);

    /// The cache operations the driver performs at `point` outside any barrier (the start of a
    /// submission, a signal). Default none.
    fn driver_ops(&self, point: crate::profile::DriverPoint) -> Vec<CacheOp> {
        let _ = point;
        Vec::new()
    }

    /// The cache operations of an image layout transition's matched `rows` on the bytes
    /// `range` (the profile's `layout_transitions`). Default none.
    fn transition_ops(&self, rows: &[&crate::profile::LayoutTransition], range: (u64, u64)) -> Vec<CacheOp> {
        let _ = (rows, range);
        Vec::new()
    }
}
