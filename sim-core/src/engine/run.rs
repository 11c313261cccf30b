//! The event-driven simulation of a program on the machine.
//!
//! # Model
//! The queues hold the nodes of the lowered stream ([`crate::engine::stream`], which states the
//! dependency rules): action commands, sync nodes and host gates, put on their queues as the
//! host timeline reaches the operation that adds them. A sync node whose dependencies are done
//! *fires*: it performs the cache operations the profile's barrier table plans for it (first
//! scope, then second, as the profile's policies place them; the whole-cache operations its
//! barriers ask of one cache merged into one, as a driver accumulates a command's flush bits)
//! and is released after the cycles they cost. An action command starts once its dependencies
//! are released and the action before it on the queue has started (the command processor
//! launches in order; a transfer has started once the transfer engine has begun). Nothing else
//! orders commands: a dispatch runs beside the fill before it unless a barrier says otherwise,
//! and their memory requests interleave one subgroup step at a time. A subgroup's memory request
//! is performed when the instructions before it are done.
//!
//! Time advances through an event queue ordered by (cycle, unit, the unit's own count of events
//! it scheduled): units are the host, each queue's command processor, the transfer engine and
//! each CU, and no count is shared between them. The seed perturbs only what hardware leaves
//! open: which CU a workgroup lands on, latency jitter, random replacement; each unit draws from
//! its own stream of the seed ([`Rng::for_unit`]). The same program, machine and seed always
//! give the same run.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::sync::Arc;

use sim_caches::{AccessError, Tag, word_span};
use sim_shader::{BindingKind, MemOp, Step, Workgroup};

use crate::engine::bindings::resolve;
use crate::api::error::{Budget, WorkloadError};
use crate::engine::exec::{Port, Scratch, perform};
use crate::engine::oracle::{Load, Observer, Oracle, Recorder};
use crate::engine::machine::{LevelId, Machine, PathName, Served};
use crate::profile::Profile;
use crate::api::program::Program;
use crate::engine::rng::Rng;
use crate::engine::limits::{InstructionBudget, RunLimits, count, stale_note};
use crate::engine::record::{Divergence, HostReadSeen, ReadKey, ReadTruth, StaleRead, Stopped, SyncLog, SyncOp};
use crate::api::action::Work;
use crate::api::workload::HostOp;
use crate::engine::stream::{NodeKind, Stream};
use crate::engine::units::cp::{CommandProcessors, State};
use crate::engine::units::compute::{ComputeUnits, Deferred, DispatchRun, SgState};
use crate::engine::units::transfer::{TransferEngine, TransferStep};
use crate::sync::PipelineStageFlags2 as S;

/// One item of a queue in the execution-dependency graph: an action command, or a sync node
/// (barrier, event half, semaphore or fence operation, vkQueueSubmit's domain operation).
#[derive(Clone, Debug)]
pub struct GraphNode {
    /// Queue index.
    pub queue: usize,
    /// The command instance of an action command.
    pub inst: Option<usize>,
    /// Where that command comes from.
    pub at: Option<crate::api::program::CommandRef>,
    /// Its stage (action), or its first-scope stages (sync node).
    pub src: S,
    /// Second-scope stages of a sync node (empty for actions).
    pub dst: S,
    /// What the node is, for a sync node (`"vkCmdPipelineBarrier2 submit 0 cb0[1]"`, ...).
    pub label: String,
    /// Items it waits for ([`Stream::deps`]: the stream's rules, spelled out).
    pub deps: Vec<usize>,
    /// Explicit edges (set_event → wait_events, semaphore signal → wait), a subset of `deps`.
    pub explicit: Vec<usize>,
    /// The action command it launches after (in-order launch of the command processor).
    pub start_after: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Release(usize),
    Transfer(usize),
    Step(usize, usize),
    Host,
}

struct SimPort<'a> {
    m: &'a mut Machine,
    now: u64,
    rng: &'a mut Rng,
    /// Writes performed, (tag, address, bytes), for the observers.
    writes: &'a mut Vec<(Tag, u64, u64)>,
}

impl SimPort<'_> {
    fn jitter(&mut self) -> u64 {
        let j = u64::from(self.m.timing.latency_jitter_cycles);
        self.rng.below(j + 1)
    }
}

impl Port for SimPort<'_> {
    fn load(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
        let j = self.jitter();
        let (t, served) = match kind {
            _ if coherent => self.m.coherent(cu, self.now, addr, Some((data, tags)), None, j)?,
            BindingKind::UniformBuffer => self.m.load(PathName::Uniform, cu, self.now, addr, data, tags, j)?,
            BindingKind::StorageBuffer { .. } => self.m.load(PathName::Storage, cu, self.now, addr, data, tags, j)?,
        };
        Ok((t.latency, served))
    }

    fn store(&mut self, cu: usize, coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError> {
        let j = self.jitter();
        self.writes.push((tag, addr, data.len() as u64));
        if coherent {
            return Ok(self.m.coherent(cu, self.now, addr, None, Some((data, tag)), j)?.0.latency);
        }
        Ok(self.m.storage_store(cu, self.now, addr, data, tag, j)?.latency)
    }

    fn prefetch(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64) {
        let path = match kind {
            _ if coherent => PathName::Coherent,
            BindingKind::UniformBuffer => PathName::Uniform,
            BindingKind::StorageBuffer { .. } => PathName::Storage,
        };
        self.m.prefetch_load(path, cu, addr);
    }

    fn atomic(&mut self, cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
        let j = self.jitter();
        self.writes.push((tag, addr, 4));
        let t = self.m.atomic(cu, self.now, addr, old, tag, j, |o, n| {
            let v = new(u32::from_le_bytes([o[0], o[1], o[2], o[3]]));
            n.copy_from_slice(&v.to_le_bytes());
        })?;
        Ok(t.latency)
    }
}

/// The most workgroup spans a timeline records; later workgroups are only counted
/// ([`SimOutcome::workgroups_not_recorded`]).
pub const MAX_TIMELINE_WORKGROUPS: usize = 1 << 20;

/// Everything a simulated run produced.
pub struct SimOutcome {
    /// Total cycles.
    pub cycles: u64,
    /// The machine at the end (caches drained into VRAM).
    pub machine: Machine,
    /// Reads that differed from the reference, in detail (at most [`MAX_DETAILED_STALE_READS`]).
    pub stale: Vec<StaleRead>,
    /// Number of reads that differed.
    pub stale_count: u64,
    /// Subgroups that diverged after a stale read (at most [`MAX_DETAILED_STALE_READS`]).
    pub divergences: Vec<Divergence>,
    /// Per provenance tag: whether its writer read stale bytes (or bytes of such a writer), so
    /// that its output differing from the reference's is corruption, not timing.
    pub tainted: Vec<bool>,
    /// Whether every write was logged for the memory-model verdict.
    pub write_log_complete: bool,
    /// Every writer's words (with an oracle), for judging final memory by the memory model.
    pub write_log: Option<crate::engine::oracle::WriteLog>,
    /// Host reads, compared with the reference run's.
    pub host_reads: Vec<HostReadSeen>,
    /// Start and end cycle of each command instance that ran.
    pub spans: Vec<(usize, u64, u64)>,
    /// Sync nodes fired.
    pub syncs: Vec<SyncLog>,
    /// Workgroup placements, as many as [`Sim::record_workgroups`] asked for: (instance,
    /// workgroup, CU, start, end).
    pub workgroups: Vec<(usize, u64, usize, u64, u64)>,
    /// Workgroups that ran after as many as asked for were recorded.
    pub workgroups_not_recorded: u64,
    /// Shader instructions executed (summed over subgroups) and lane-operations.
    pub instructions: u64,
    /// Lane-operations executed.
    pub lane_ops: u64,
    /// Set when a budget stopped the run after it had read stale bytes (see [`Sim::run`]).
    pub stopped: Option<Stopped>,
}

/// One simulated run.
pub struct Sim<'p, 'w> {
    prog: &'p Program<'w>,
    stream: &'p Stream,
    /// The truth oracle, when a reference run is there to judge against.
    oracle: Option<Oracle<'p>>,
    /// Other observers of the run.
    observers: Vec<&'p mut dyn Observer>,
    /// Writes the last memory request performed, for the observers.
    writes: Vec<(Tag, u64, u64)>,
    /// The profile: the barrier planner, the policies and costs the units read.
    profile: &'p Profile,
    machine: Machine,
    now: u64,
    /// Per unit (host, each queue's command processor, the transfer engine, each CU): how many
    /// events it has scheduled. Events are ordered by (cycle, unit, that count): no count is
    /// shared between units.
    unit_seq: Vec<u64>,
    events: BinaryHeap<Reverse<(u64, u32, u64, Ev)>>,
    /// Each queue's command processor.
    cp: CommandProcessors,
    dirty: bool,
    host_pc: usize,
    host_ready_at: u64,
    /// Per fence: the node of its pending signal (for vkResetFences' check).
    fence_item: Vec<Option<usize>>,
    transfer: TransferEngine,
    compute: ComputeUnits,
    scratch: Scratch,
    host: sim_host::HostSide,
    /// How many workgroup spans to record (for timelines).
    /// The timeline's recording: an observer of its own.
    recorder: Recorder,
    max_cycles: u64,
    instructions: InstructionBudget,
    /// The command instance whose shader was running when the instruction budget ran out.
    budget_spent_in: Option<usize>,
    seed: u64,
    out: SimOutcomeParts,
    /// Directed schedules: when node `.node` starts, every CU's cache on `.path` reads `.range`
    /// first (a line read earlier, still resident).
    primes: Vec<Prime>,
    /// A directed schedule's held-back transfer writes reach the machine when this node is done.
    release_held_at: Option<usize>,
    /// That node is done: the event loop releases the writes.
    held_due: bool,
}

/// A directed choice: the caches a reader goes through hold a range's bytes from before a
/// write, as if something had read them just before the writer started (any cache may hold
/// any line it was never told to drop: a prefetch, or an earlier read of a neighbour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prime {
    /// The writer's node: the lines are read when it starts.
    pub node: usize,
    /// The reader's path: its per-CU cache is the one primed, on every CU.
    pub path: PathName,
    /// Device addresses.
    pub range: (u64, u64),
}

#[derive(Default)]
struct SimOutcomeParts {
    host_reads: Vec<HostReadSeen>,
    instructions: u64,
    lane_ops: u64,
}

fn exec_err(at: impl Into<String>, e: impl std::fmt::Display) -> WorkloadError {
    WorkloadError::Execution { at: at.into(), message: e.to_string() }
}

impl<'p, 'w> Sim<'p, 'w> {
    /// Prepares a run of `prog` on the machine `profile` describes, with `seed`.
    /// `truth`, the reference run's, lets the truth oracle judge every read; without it the run
    /// is timed alone (no read is judged, `stale_count` stays 0).
    pub fn new(prog: &'p Program<'w>, stream: &'p Stream, profile: &'p Profile, truth: Option<&'p ReadTruth>, seed: u64) -> Result<Self, WorkloadError> {
        let machine = Machine::new(profile, prog.address_space, seed).map_err(|e| WorkloadError::Invalid { at: "profile".into(), message: e })?;
        let w = prog.workload;
        Ok(Sim {
            prog,
            stream,
            oracle: truth.map(|t| Oracle::new(prog, stream, t)),
            observers: Vec::new(),
            writes: Vec::new(),
            profile,
            machine,
            now: 0,
            unit_seq: vec![0; 2 + w.queues.len() + profile.machine.compute_units as usize],
            events: BinaryHeap::new(),
            cp: CommandProcessors::new(w.queues.len(), u64::from(profile.timing.transfer_launch_cycles)),
            dirty: true,
            host_pc: 0,
            host_ready_at: 0,
            fence_item: vec![None; w.fences.len()],
            transfer: TransferEngine::new(&profile.machine.transfer, &profile.timing, seed),
            compute: ComputeUnits::new(&profile.machine, &profile.timing, seed),
            scratch: Scratch::default(),
            host: crate::engine::units::host::host_side(prog, profile, seed)?,
            recorder: Recorder::default(),
            max_cycles: RunLimits::default().max_cycles,
            instructions: InstructionBudget::new(&RunLimits::default(), format!("the simulated run (seed {seed})")),
            budget_spent_in: None,
            seed,
            out: SimOutcomeParts::default(),
            primes: Vec::new(),
            release_held_at: None,
            held_due: false,
        })
    }

    /// Records the CU, start and end of the first `most` workgroups to finish (for timelines),
    /// and counts the rest.
    pub fn record_workgroups(mut self, most: usize) -> Self {
        self.recorder.most_workgroups = most;
        self
    }

    /// A directed schedule: each node `.0` starts only after node `.1` is done, and actions
    /// launch in any order their dependencies allow.
    pub fn directed(mut self, holds: Vec<(usize, usize)>) -> Self {
        self.cp.holds = holds;
        self.cp.relaxed_launch = true;
        self
    }

    /// A directed schedule: the reader caches of each [`Prime`] hold its bytes from just before
    /// its writer starts.
    pub fn primed(mut self, primes: Vec<Prime>) -> Self {
        self.primes = primes;
        self
    }

    /// A directed schedule: the writes transfer command instance `inst` makes to device
    /// addresses `range` are held back until node `until` is done (they stay in flight: nothing
    /// made them available).
    pub fn hold_writes(mut self, inst: usize, range: (u64, u64), until: usize) -> Self {
        self.transfer.hold_writes = Some((inst, range.0, range.0 + range.1));
        self.release_held_at = Some(until);
        self
    }

    /// The per-CU cache a read on `path` goes through first, if this machine has one there: the
    /// cache a [`Prime`] on that path fills.
    pub fn reader_cache(&self, path: PathName) -> Option<LevelId> {
        self.machine.path(path).cu_cache()
    }

    /// Stops the run at these budgets instead of the defaults.
    pub fn limits(mut self, limits: RunLimits) -> Self {
        self.max_cycles = limits.max_cycles;
        self.instructions = InstructionBudget::new(&limits, format!("the simulated run (seed {})", self.seed));
        self
    }

    /// Attaches `observer`: it is told of every read, write and sync node of the run.
    pub fn observe(mut self, observer: &'p mut dyn Observer) -> Self {
        self.observers.push(observer);
        self
    }

    /// Stale reads so far (0 without a reference run).
    fn stale_count(&self) -> u64 {
        self.oracle.as_ref().map_or(0, Oracle::stale_count)
    }

    /// Tells the oracle and the observers of the writes the last request performed.
    fn tell_writes(&mut self) {
        for (tag, addr, len) in self.writes.drain(..) {
            if let Some(o) = self.oracle.as_mut() {
                o.on_write(tag, addr, len);
            }
            for o in &mut self.observers {
                o.on_write(tag, addr, len);
            }
        }
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        // Units: the host 0, queue q's command processor 1 + q, the transfer engine after them,
        // then the CUs.
        let queues = self.cp.queues();
        let unit = match ev {
            Ev::Host => 0,
            Ev::Release(i) => 1 + self.cp.items[i].queue,
            Ev::Transfer(_) => 1 + queues,
            Ev::Step(s, _) => 2 + queues + self.compute.slots[s].cu,
        };
        self.unit_seq[unit] += 1;
        self.events.push(Reverse((at, unit as u32, self.unit_seq[unit], ev)));
    }

    /// Runs to the end: every host operation done and the device idle. A run that spends one of
    /// its budgets after it has read stale bytes is not an error: it ends there, with
    /// [`SimOutcome::stopped`] saying where and why, as what the stale reads did (a loop bound or
    /// a flag read stale: the hang that real hardware may show). Without stale reads a spent
    /// budget is an error ([`WorkloadError::Budget`]).
    pub fn run(mut self) -> Result<SimOutcome, WorkloadError> {
        let stopped = match self.run_events() {
            Ok(()) => None,
            // Only the instruction budget proves a runaway (the reference run passed the same
            // one); the reference run has no cycles, so a cycle stop stays an error.
            Err(WorkloadError::Budget { budget: Budget::Instructions, at, message }) if self.stale_count() > 0 => {
                let command = self.budget_spent_in.map(|inst| self.prog.instances[inst].at.clone());
                Some(Stopped { at, command, message })
            }
            Err(e) => return Err(e),
        };
        if stopped.is_some() {
            // The workgroups in flight when the run stopped did work too: the report's counts
            // are of everything executed, so they pass the budget that stopped the run; and
            // their spans and their commands' end at the stop, so that the timeline shows what
            // ran on.
            let free: HashSet<usize> = self.compute.free.iter().copied().collect();
            for s in 0..self.compute.slots.len() {
                if let (false, Some(wg)) = (free.contains(&s), &self.compute.slots[s].wg) {
                    let st = wg.stats();
                    self.out.instructions += st.instructions;
                    self.out.lane_ops += st.lane_ops;
                    self.record_workgroup(s);
                }
            }
            let mut spans = Vec::new();
            for (i, item) in self.cp.items.iter().enumerate() {
                if let (State::Running, NodeKind::Action { inst, .. }) = (item.state, &self.stream.nodes[i].kind) {
                    spans.push((*inst, item.start));
                }
            }
            for (inst, start) in spans {
                self.span(inst, start);
            }
        }
        // Write-combining buffers of HOST_COHERENT memory go out on their own in finite time, and
        // no command could have been missing to send them: the end of the run drains them, as a
        // device-visible event would. Non-coherent memory's buffers and the host cache stay: only
        // vkFlushMappedMemoryRanges sends those.
        self.host.device_visible_event(&mut self.machine.vram).map_err(|e| WorkloadError::Execution { at: "end of run".into(), message: e.to_string() })?;
        self.machine.drain().map_err(|e| exec_err("end of run", e))?;
        // What the host still holds of non-coherent memory (its cache's dirty lines, its
        // write-combining buffers) reaches memory in the end too, on eviction: final memory is
        // what the host's writes leave there. A host write never flushed then counts only where
        // it lands over a later device write, the lost update a real eviction would make.
        let held: Vec<sim_host::MappedRange> = self
            .prog
            .workload
            .memories
            .iter()
            .enumerate()
            .filter(|(_, m)| m.properties.host_visible && !m.properties.host_coherent)
            .map(|(i, _)| sim_host::MappedRange::new(i, 0, sim_host::WHOLE_SIZE))
            .collect();
        if !held.is_empty() {
            self.host.flush_mapped_ranges(&held, &mut self.machine.vram).map_err(|e| exec_err("end of run", e))?;
        }
        let o = self.out;
        let judged = self.oracle.map(Oracle::judged);
        let (stale, stale_count, divergences, tainted, write_log_complete, write_log) = match judged {
            Some(j) => (j.stale, j.stale_count, j.divergences, j.tainted, j.write_log_complete, Some(j.log)),
            None => (Vec::new(), 0, Vec::new(), Vec::new(), true, None),
        };
        Ok(SimOutcome {
            cycles: self.now,
            machine: self.machine,
            stale,
            stale_count,
            divergences,
            tainted,
            write_log_complete,
            write_log,
            host_reads: o.host_reads,
            spans: self.recorder.spans,
            syncs: self.recorder.syncs,
            workgroups: self.recorder.workgroups,
            workgroups_not_recorded: self.recorder.workgroups_not_recorded,
            instructions: o.instructions,
            lane_ops: o.lane_ops,
            stopped,
        })
    }

    /// The event loop of [`Sim::run`].
    fn run_events(&mut self) -> Result<(), WorkloadError> {
        loop {
            if self.dirty {
                self.dirty = false;
                self.host_advance()?;
                self.start_ready()?;
                self.place_workgroups()?;
            }
            let Some(Reverse((t, _, _, ev))) = self.events.pop() else {
                if self.host_pc >= self.prog.workload.timeline.len() && self.cp.waiting.is_empty() {
                    break;
                }
                return Err(self.deadlock());
            };
            if t > self.max_cycles {
                return Err(WorkloadError::Budget {
                    budget: Budget::Cycles,
                    at: "run".into(),
                    message: format!(
                        "the simulated run (seed {}) went past its budget of {} and was stopped{} (raise the budget with --max-cycles)",
                        self.seed,
                        count(self.max_cycles, "cycle", "cycles"),
                        if self.stale_count() > 0 { format!("; {}", stale_note(self.stale_count())) } else { String::new() }
                    ),
                });
            }
            self.now = t;
            match ev {
                Ev::Release(i) => self.finish(i),
                Ev::Transfer(r) => self.transfer_step(r)?,
                Ev::Step(s, sg) => self.step(s, sg)?,
                Ev::Host => self.dirty = true,
            }
            if self.held_due {
                self.release_held()?;
            }
        }
        // Writes still held (their release node never ran) land at the end.
        self.release_held()
    }

    /// What a node is, in a message.
    fn node_text(&self, i: usize) -> String {
        match &self.stream.nodes[i].kind {
            NodeKind::Action { inst, .. } => format!("{} {}", self.prog.action(*inst).map_or("", |a| a.vk_name), self.prog.instances[*inst].at),
            NodeKind::Sync(y) => y.label.clone(),
            NodeKind::HostGate { event, .. } => format!("vkSetEvent `{}` from the host", self.prog.workload.events[*event]),
        }
    }

    /// The host gate that item `i` is held behind, through waits and in-order launch, if any.
    fn gate_behind(&self, i: usize) -> Option<usize> {
        let mut seen = HashSet::new();
        let mut stack = vec![i];
        // Only on the way to an error, and bounded: a program of many commands gets the plainer
        // message rather than a long search.
        let mut work = 0usize;
        while let Some(j) = stack.pop() {
            if !seen.insert(j) || self.cp.items.get(j).is_none_or(|it| it.state == State::Done) {
                continue;
            }
            if matches!(self.stream.nodes[j].kind, NodeKind::HostGate { .. }) {
                return Some(j);
            }
            let deps = self.stream.deps(j);
            work += deps.len() + 1;
            if work > 1 << 20 {
                return None;
            }
            stack.extend(deps);
            stack.extend(self.stream.nodes[j].start_after());
        }
        None
    }

    fn deadlock(&self) -> WorkloadError {
        // The first device item still waiting is where the chain of waits ends.
        let first = self.cp.waiting.first().copied();
        let stuck = first.map(|i| self.node_text(i));
        if let Some(op) = self.prog.workload.timeline.get(self.host_pc) {
            // An action whose own dependencies are met but which the command processor cannot
            // launch: the action before it waits for a vkSetEvent the host has not reached.
            let in_order = self.cp.waiting.iter().find_map(|&i| {
                let a = self.stream.nodes[i].start_after()?;
                if !self.cp.deps_done(self.stream, i) || self.cp.items[a].state != State::Waiting {
                    return None;
                }
                let gate = self.gate_behind(a)?;
                Some((i, a, gate))
            });
            let device = match in_order {
                Some((i, a, gate)) => format!(
                    " (on the device, {} is ready but the command processor launches actions in order, and {} before it waits for {}, which the host performs only after this wait: a queue is blocked by a wait on an event the host sets later)",
                    self.node_text(i),
                    self.node_text(a),
                    self.node_text(gate)
                ),
                None => stuck.map(|s| format!(" (on the device, {s} waits for something never signalled)")).unwrap_or_default(),
            };
            let what = if in_order.is_some() { "what it waits for is held back by in-order launch" } else { "what it waits for is never signalled" };
            return WorkloadError::Deadlock { at: format!("timeline[{}]", self.host_pc), message: format!("{} can never be satisfied: {what}{device}", host_op_name(op)) };
        }
        WorkloadError::Deadlock { at: stuck.unwrap_or_default(), message: "waits for something that is never signalled".into() }
    }

    fn finish(&mut self, i: usize) {
        self.cp.finish(i);
        // Held-back writes are released by the event loop, which can report an error.
        self.held_due |= self.release_held_at == Some(i);
        if let NodeKind::Action { inst, .. } = self.stream.nodes[i].kind {
            self.span(inst, self.cp.items[i].start);
        }
        self.dirty = true;
    }

    /// Lets a directed schedule's held-back transfer writes reach the machine, now.
    fn release_held(&mut self) -> Result<(), WorkloadError> {
        self.release_held_at = None;
        self.held_due = false;
        for (addr, data, tag, unit) in std::mem::take(&mut self.transfer.held) {
            self.machine.transfer_write(self.now, addr, &data, tag, unit).map_err(|e| exec_err("a directed schedule's held-back writes", e))?;
            self.writes.push((tag, addr, data.len() as u64));
        }
        self.transfer.hold_writes = None;
        self.tell_writes();
        Ok(())
    }

    // ----- host timeline ------------------------------------------------------------------------

    fn host_advance(&mut self) -> Result<(), WorkloadError> {
        let w = self.prog.workload;
        while self.host_pc < w.timeline.len() && self.now >= self.host_ready_at {
            let t = self.host_pc;
            let cost = self.host_op(t)?;
            match cost {
                Some(c) => self.host_ready_at = self.now + c.max(1),
                None => return Ok(()),
            }
            self.host_pc += 1;
            self.schedule(self.host_ready_at, Ev::Host);
        }
        Ok(())
    }

    /// Performs host operation `t`; `None` when it must wait (a fence not yet signalled, a
    /// queue not yet idle), else the cycles it took.
    fn host_op(&mut self, t: usize) -> Result<Option<u64>, WorkloadError> {
        let w = self.prog.workload;
        let at = || format!("timeline[{t}]");
        let host_err = |e: sim_host::HostError| WorkloadError::Invalid { at: format!("timeline[{t}]"), message: e.to_string() };
        let base = u64::from(self.profile.timing.host_bus_latency_cycles);
        let timing = crate::engine::units::host::bus(&self.profile.timing);
        let vram = &mut self.machine.vram;
        // Queue submission, fence and event operations are device-visible events: they drain
        // the write-combining buffers of coherent mappings.
        let drain = matches!(w.timeline[t], HostOp::QueueSubmit { .. } | HostOp::WaitForFences(_) | HostOp::ResetFences(_) | HostOp::SetEvent(_));
        let mut cycles = base;
        if drain {
            let r = self.host.device_visible_event(vram).map_err(host_err)?;
            cycles += timing.cycles(&r);
        }
        match &w.timeline[t] {
            HostOp::QueueSubmit { fence, .. } => {
                self.push_nodes(t);
                if let Some(f) = fence {
                    self.fence_item[*f] = self.stream.fence_signal[t];
                }
            }
            HostOp::WaitForFences(_) => {
                if self.stream.host_waits[t].iter().any(|&i| !self.cp.done(i)) {
                    return Ok(None);
                }
            }
            HostOp::ResetFences(fs) => {
                for &f in fs {
                    if let Some(i) = self.fence_item[f]
                        && !self.cp.done(i)
                    {
                        return Err(WorkloadError::Invalid { at: at(), message: format!("vkResetFences on fence `{}` while its submission is still pending", w.fences[f]) });
                    }
                    self.fence_item[f] = None;
                }
            }
            // A fence signal on the queue (or on every queue), then a wait for it and for
            // everything else on the queue.
            HostOp::QueueWaitIdle(q) => {
                self.push_nodes(t);
                if self.cp.busy(*q) {
                    return Ok(None);
                }
            }
            HostOp::DeviceWaitIdle => {
                self.push_nodes(t);
                if self.cp.any_busy() {
                    return Ok(None);
                }
            }
            HostOp::HostWrite { memory, offset, data } => {
                self.writes.push((self.prog.host_tags[t], self.prog.memory_base[*memory] + offset, data.len() as u64));
                self.tell_writes();
                let r = self.host.write(*memory, *offset, data, self.prog.host_tags[t], &mut self.machine.vram).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
            HostOp::HostRead { memory, offset, size, .. } => {
                let mut bytes = vec![0u8; *size as usize];
                let mut tags = vec![0; *size as usize];
                let r = self.host.read(*memory, *offset, &mut bytes, &mut tags, &mut self.machine.vram).map_err(host_err)?;
                cycles += timing.cycles(&r);
                let seen = match &mut self.oracle {
                    Some(o) => o.host_read(t, bytes, &tags).map_err(|m| exec_err(format!("timeline[{t}]"), m))?,
                    None => HostReadSeen { timeline: t, bytes, differing_bytes: 0, first_difference: None },
                };
                self.out.host_reads.push(seen);
            }
            HostOp::SetEvent(_) => {
                for &g in &self.stream.opens[t] {
                    self.finish(g);
                }
            }
            HostOp::FlushMappedMemoryRanges(r) => {
                let r = self.host.flush_mapped_ranges(&crate::engine::units::host::host_ranges(r), &mut self.machine.vram).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
            HostOp::InvalidateMappedMemoryRanges(r) => {
                let r = self.host.invalidate_mapped_ranges(&crate::engine::units::host::host_ranges(r), &mut self.machine.vram).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
        }
        Ok(Some(cycles))
    }

    /// Puts the nodes host operation `t` adds on their queues.
    fn push_nodes(&mut self, t: usize) {
        self.cp.push(self.stream, t, self.now, self.profile, self.profile.policies);
    }

    // ----- starting items -----------------------------------------------------------------------

    fn start_ready(&mut self) -> Result<(), WorkloadError> {
        for i in self.cp.take_ready(self.stream, self.now) {
            self.start_item(i)?;
        }
        Ok(())
    }

    /// Performs the primes of node `i`, which is starting: each CU's cache on the prime's path
    /// reads the range (at most that cache's size, from its end), untimed and unobserved.
    fn prime(&mut self, i: usize) -> Result<(), WorkloadError> {
        const PIECE: u64 = 64;
        for k in 0..self.primes.len() {
            let Prime { node, path, range: (addr, size) } = self.primes[k];
            if node != i {
                continue;
            }
            let Some(cache) = self.machine.path(path).cu_cache() else { continue };
            let capacity = self.machine.cus.first().and_then(|u| u.cache(cache)).map_or(0, |c| c.spec().size_bytes);
            let start = addr.max((addr + size).saturating_sub(capacity)) / PIECE * PIECE;
            let mut data = [0u8; PIECE as usize];
            let mut tags = [0 as Tag; PIECE as usize / 4 + 1];
            for cu in 0..self.machine.cus.len() {
                let mut a = start;
                while a < addr + size {
                    let span = word_span(a, PIECE as usize);
                    self.machine.load(path, cu, self.now, a, &mut data, &mut tags[..span], 0).map_err(|e| exec_err("a directed schedule's primed cache", e))?;
                    a += PIECE;
                }
            }
        }
        Ok(())
    }

    fn start_item(&mut self, i: usize) -> Result<(), WorkloadError> {
        match &self.stream.nodes[i].kind {
            NodeKind::HostGate { .. } => unreachable!("host gates are opened by the host, never started"),
            NodeKind::Sync(y) => {
                let label = &y.label;
                let mut cycles = u64::from(self.profile.timing.barrier_cycles);
                let mut log = Vec::new();
                for op in self.cp.items[i].ops.clone() {
                    let (c, lines, bytes) = self.machine.perform(&op).map_err(|e| exec_err(label.clone(), e))?;
                    cycles += c;
                    log.push(SyncOp { op, lines_written_back: lines, bytes_written_back: bytes, cycles: c });
                }
                let label = label.clone();
                let queue = self.cp.items[i].queue;
                let queued = self.cp.items[i].pushed;
                let prev_start = self.stream.nodes[i].prev_action.filter(|&a| self.cp.items[a].state != State::Waiting).map(|a| self.cp.items[a].start);
                let reached = prev_start.unwrap_or(queued).max(queued).min(self.now);
                let log = SyncLog { label, queue, queued, reached, fired: self.now, released: self.now + cycles, ops: log };
                self.recorder.on_sync(&log);
                for o in &mut self.observers {
                    o.on_sync(&log);
                }
                self.schedule(self.now + cycles, Ev::Release(i));
            }
            NodeKind::Action { inst, .. } => {
                let inst = *inst;
                // The command after it may launch then (in-order launch): look again.
                if self.cp.items[i].work_from > self.now {
                    self.schedule(self.cp.items[i].work_from, Ev::Host);
                }
                self.prime(i)?;
                let ins = &self.prog.instances[inst];
                let w = self.prog.workload;
                let work = &self.prog.action(inst).expect("an action node runs an action").work;
                if let Work::Dispatch { pipeline, group_count, base_group, bindings, push_constants } = work {
                    let p = w.pipelines[*pipeline].1.clone();
                    let bound = resolve(self.prog, &p, bindings).map_err(|m| WorkloadError::Invalid { at: ins.at.to_string(), message: m })?;
                    let total_wg = group_count.iter().map(|&g| g as u64).product();
                    let sizes = bound.iter().map(|b| b.range).collect();
                    let has_work = self.compute.start(DispatchRun {
                        item: i,
                        inst,
                        pipeline: p,
                        bound: Arc::new(bound),
                        sizes,
                        push: push_constants.to_vec(),
                        group_count: *group_count,
                        base_group: *base_group,
                        next_wg: 0,
                        total_wg,
                        done_wg: 0,
                    });
                    if !has_work {
                        self.schedule(self.now, Ev::Release(i));
                    }
                } else {
                    let (r, at) = self.transfer.start(self.prog, i, inst, self.now);
                    self.schedule(at, Ev::Transfer(r));
                }
            }
        }
        Ok(())
    }

    // ----- the transfer engine ------------------------------------------------------------------

    fn transfer_step(&mut self, r: usize) -> Result<(), WorkloadError> {
        let (read, write, next) = match self.transfer.step(r, self.now, &mut self.machine, self.prog)? {
            TransferStep::Finished { item } => {
                self.schedule(self.now, Ev::Release(item));
                return Ok(());
            }
            TransferStep::Moved { read, writes, next } => (read, writes, next),
        };
        if let Some(read) = read {
            tell_read(&self.machine, self.oracle.as_mut(), &mut self.observers, |o, via| o.on_copy_read(&read, via));
        }
        self.writes.extend(write.into_iter().flatten());
        self.tell_writes();
        self.schedule(next, Ev::Transfer(r));
        Ok(())
    }

    // ----- workgroups on CUs --------------------------------------------------------------------

    fn place_workgroups(&mut self) -> Result<(), WorkloadError> {
        let limit = self.instructions.subgroup_limit();
        let starts = self.compute.place(self.now, limit).map_err(|(inst, e)| exec_err(self.prog.instances[inst].at.to_string(), e))?;
        for (s, sg, at) in starts {
            self.schedule(at, Ev::Step(s, sg));
        }
        Ok(())
    }

    fn step(&mut self, s: usize, sg: usize) -> Result<(), WorkloadError> {
        let mut wg = self.compute.slots[s].wg.take().expect("a scheduled slot holds its workgroup");
        let result = self.step_inner(s, sg, &mut wg);
        self.compute.slots[s].wg = Some(wg);
        result
    }

    fn step_inner(&mut self, s: usize, sg: usize, wg: &mut Workgroup) -> Result<(), WorkloadError> {
        let d = self.compute.slots[s].dispatch;
        let inst = self.compute.dispatches[d].inst;
        let at = || self.prog.instances[inst].at.to_string();
        let cpi = self.compute.cycles_per_instruction;
        let deferred = std::mem::replace(&mut self.compute.slots[s].deferred[sg], Deferred::None);
        let step = match deferred {
            Deferred::Memory => return self.perform_request(s, sg, wg),
            Deferred::Barrier => {
                self.compute.slots[s].sg_state[sg] = SgState::AtBarrier;
                self.release_barrier(s);
                return Ok(());
            }
            Deferred::Done => {
                self.subgroup_done(s, sg, wg);
                return Ok(());
            }
            Deferred::None => match wg.step(sg) {
                Ok(step) => step,
                Err(e) => {
                    self.budget_spent_in = Some(inst);
                    return Err(self.instructions.shader_error(e, at, self.stale_count()));
                }
            },
        };
        // What the subgroup reached happens when the instructions before it are done.
        let (compute, next) = match step {
            Step::Memory(_) => (self.compute_cycles(s, sg, wg, cpi)?, Deferred::Memory),
            Step::Barrier { control: false, .. } => {
                let compute = self.compute_cycles(s, sg, wg, cpi)?;
                self.schedule(self.now + 1 + compute, Ev::Step(s, sg));
                return Ok(());
            }
            Step::Barrier { control: true, .. } | Step::Blocked => (self.compute_cycles(s, sg, wg, cpi)?, Deferred::Barrier),
            Step::Done => (self.compute_cycles(s, sg, wg, cpi)?, Deferred::Done),
        };
        if compute > 0 {
            self.compute.slots[s].deferred[sg] = next;
            self.schedule(self.now + compute, Ev::Step(s, sg));
            return Ok(());
        }
        self.compute.slots[s].deferred[sg] = next;
        self.step_inner(s, sg, wg)
    }

    /// Finishes subgroup `sg` of slot `s`, and its workgroup when it was the last.
    fn subgroup_done(&mut self, s: usize, sg: usize, wg: &Workgroup) {
        self.compute.slots[s].sg_state[sg] = SgState::Done;
        if self.compute.slots[s].sg_state.iter().all(|&x| x == SgState::Done) {
            self.workgroup_done(s, wg);
        } else {
            self.release_barrier(s);
        }
    }

    /// Performs the memory request subgroup `sg` yielded, now that its compute is done.
    fn perform_request(&mut self, s: usize, sg: usize, wg: &mut Workgroup) -> Result<(), WorkloadError> {
        let d = self.compute.slots[s].dispatch;
        let inst = self.compute.dispatches[d].inst;
        let at = || self.prog.instances[inst].at.to_string();
        let req = wg.pending_request(sg).ok_or_else(|| exec_err(at(), "a deferred memory request is gone"))?;
        let tag = self.prog.instances[inst].tag;
        let bound = self.compute.dispatches[d].bound.clone();
        let cu = self.compute.slots[s].cu;
        let mut port = SimPort { m: &mut self.machine, now: self.now, rng: &mut self.compute.cu_rng[cu], writes: &mut self.writes };
        let performed = perform(&mut port, cu, req, &bound, tag, &mut self.scratch).map_err(|e| exec_err(self.prog.instances[inst].at.to_string(), e))?;
        self.tell_writes();
        if req.op == MemOp::Load && !req.atomic {
            let slot = &mut self.compute.slots[s];
            let key = ReadKey { inst: inst as u32, a: slot.wg_index as u32, b: sg as u32, c: slot.loads[sg] };
            slot.loads[sg] += 1;
            let load = Load { key, inst, req, bound: &bound, scratch: &self.scratch, performed: &performed, cycle: self.now };
            tell_read(&self.machine, self.oracle.as_mut(), &mut self.observers, |o, via| o.on_load(&load, via));
        }
        wg.complete(sg, &self.scratch.results).map_err(|e| exec_err(at(), e))?;
        self.schedule(self.now + performed.latency.max(1), Ev::Step(s, sg));
        Ok(())
    }

    /// The cycles of the instructions subgroup `sg` ran since it was last stepped, counted
    /// against the run's instruction budget.
    fn compute_cycles(&mut self, s: usize, sg: usize, wg: &Workgroup, cpi: u64) -> Result<u64, WorkloadError> {
        let st = wg.subgroup_stats(sg);
        let delta = st.instructions - self.compute.slots[s].instr_seen[sg];
        self.compute.slots[s].instr_seen[sg] = st.instructions;
        // Workgroup memory: its latency once per subgroup-wide access (a subgroup's lanes access
        // it together; the statistics count lanes).
        let shared = st.workgroup_accesses - std::mem::replace(&mut self.compute.slots[s].shared_seen[sg], st.workgroup_accesses);
        let shared_cycles = shared.div_ceil(u64::from(self.compute.subgroup_size.max(1))).saturating_mul(self.compute.shared_memory_cycles);
        if self.instructions.spend(delta) {
            let inst = self.compute.dispatches[self.compute.slots[s].dispatch].inst;
            self.budget_spent_in = Some(inst);
            return Err(self.instructions.spent(self.prog.instances[inst].at.to_string(), self.stale_count()));
        }
        Ok(delta.saturating_mul(cpi).saturating_add(shared_cycles))
    }

    fn release_barrier(&mut self, s: usize) {
        let states = &self.compute.slots[s].sg_state;
        if states.iter().all(|&x| x != SgState::Running) && states.contains(&SgState::AtBarrier) {
            for sg in 0..states.len() {
                if self.compute.slots[s].sg_state[sg] == SgState::AtBarrier {
                    self.compute.slots[s].sg_state[sg] = SgState::Running;
                    self.schedule(self.now + 1, Ev::Step(s, sg));
                }
            }
        }
    }

    /// Tells the recorder and the observers that the workgroup in slot `s` ran until now.
    fn record_workgroup(&mut self, s: usize) {
        let slot = &self.compute.slots[s];
        let span = (self.compute.dispatches[slot.dispatch].inst, slot.wg_index, slot.cu, slot.start, self.now);
        self.recorder.on_workgroup(span);
        for o in &mut self.observers {
            o.on_workgroup(span);
        }
    }

    /// Tells the recorder and the observers that command instance `inst` ran from `start` until
    /// now.
    fn span(&mut self, inst: usize, start: u64) {
        self.recorder.on_span(inst, start, self.now);
        for o in &mut self.observers {
            o.on_span(inst, start, self.now);
        }
    }

    fn workgroup_done(&mut self, s: usize, wg: &Workgroup) {
        let st = wg.stats();
        self.out.instructions += st.instructions;
        self.out.lane_ops += st.lane_ops;
        self.record_workgroup(s);
        if let Some(item) = self.compute.workgroup_done(s) {
            self.finish(item);
        }
        self.dirty = true;
    }
}

/// Tells the oracle (when there is one) and every observer of a read, with how to name the level
/// that served a byte of it.
fn tell_read(machine: &Machine, oracle: Option<&mut Oracle<'_>>, observers: &mut [&mut dyn Observer], tell: impl Fn(&mut dyn Observer, &dyn Fn(&Served, u64, u64) -> &'static str)) {
    let via = |s: &Served, start: u64, a: u64| machine.via(s, start, a);
    if let Some(o) = oracle {
        tell(o, &via);
    }
    for o in observers.iter_mut() {
        tell(&mut **o, &via);
    }
}

fn host_op_name(op: &HostOp) -> &'static str {
    match op {
        HostOp::QueueSubmit { .. } => "vkQueueSubmit2",
        HostOp::WaitForFences(_) => "vkWaitForFences",
        HostOp::ResetFences(_) => "vkResetFences",
        HostOp::QueueWaitIdle(_) => "vkQueueWaitIdle",
        HostOp::DeviceWaitIdle => "vkDeviceWaitIdle",
        HostOp::HostWrite { .. } => "host write",
        HostOp::HostRead { .. } => "host read",
        HostOp::SetEvent(_) => "vkSetEvent",
        HostOp::FlushMappedMemoryRanges(_) => "vkFlushMappedMemoryRanges",
        HostOp::InvalidateMappedMemoryRanges(_) => "vkInvalidateMappedMemoryRanges",
    }
}
