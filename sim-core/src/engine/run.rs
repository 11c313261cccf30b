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
//! its own stream of the seed (`Rng::for_unit`). The same program, machine and seed always
//! give the same run.

use crate::api::error::{Budget, WorkloadError};
use crate::api::program::Program;
use crate::engine::limits::{RunBudget, RunLimits};
use crate::engine::machine::{LevelId, Machine, PathName};
use crate::engine::oracle::{Observer, Observers, Oracle};
use crate::engine::record::{Divergence, HostReadSeen, ReadTruth, StaleRanges, StaleRead, Stopped, SyncLog};
use crate::engine::stream::{NodeKind, Stream};
use crate::engine::units::compute::ComputeUnits;
use crate::engine::units::cp::{self, CommandProcessors};
use crate::engine::units::host::HostUnit;
use crate::engine::units::transfer::TransferEngine;
use crate::engine::units::{Clock, Cx, Ev, Holds, Prime, Registry};
use crate::profile::Profile;
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

/// The most workgroup spans a timeline records; later workgroups are only counted
/// ([`SimOutcome::workgroups_not_recorded`]).
pub const MAX_TIMELINE_WORKGROUPS: usize = 1 << 20;

/// Everything a simulated run produced.
pub struct SimOutcome {
    /// Total cycles.
    pub cycles: u64,
    /// The machine at the end (caches drained into VRAM).
    pub machine: Machine,
    /// Reads that differed from the reference, in detail (at most `MAX_DETAILED_STALE_READS`, 256).
    pub stale: Vec<StaleRead>,
    /// Number of reads that differed.
    pub stale_count: u64,
    /// The bytes of every read that differed, merged per reader and buffer (complete, where
    /// `stale` stops at `MAX_DETAILED_STALE_READS`).
    pub stale_ranges: StaleRanges,
    /// Subgroups that diverged after a stale read (at most `MAX_DETAILED_STALE_READS`, 256).
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
    /// Graphics work that wrote attachments: (instance, start, the cycle its writes reached
    /// the ROPs, end).
    pub graphics_phases: Vec<(usize, u64, u64, u64)>,
    /// Shader instructions executed (summed over subgroups) and lane-operations.
    pub instructions: u64,
    /// Lane-operations executed.
    pub lane_ops: u64,
    /// Set when a budget stopped the run after it had read stale bytes (see [`Sim::run`]).
    pub stopped: Option<Stopped>,
}

/// The units the command processors hand actions to, and the host.
struct Units {
    host: HostUnit,
    transfer: TransferEngine,
    compute: ComputeUnits,
    graphics: crate::engine::units::graphics::GraphicsUnits,
}

/// One simulated run.
pub struct Sim<'p, 'w> {
    prog: &'p Program<'w>,
    stream: &'p Stream,
    /// The profile: the barrier planner, the policies and costs the units read.
    profile: &'p Profile,
    machine: Machine,
    clock: Clock,
    /// Everyone told of the run's reads, writes, sync nodes and spans: the truth oracle (when a
    /// reference run is there to judge against), the timeline's recorder, and any attached.
    observers: Observers<'p>,
    budget: RunBudget,
    /// A directed schedule's holds.
    holds: Holds,
    /// Each queue's command processor.
    cp: CommandProcessors,
    units: Units,
}

/// The units and the context they act through, borrowed apart from one [`Sim`].
macro_rules! split {
    ($sim:expr) => {{
        let s = &mut *$sim;
        (
            &mut s.units,
            Cx {
                prog: s.prog,
                stream: s.stream,
                profile: s.profile,
                machine: &mut s.machine,
                clock: &mut s.clock,
                observers: &mut s.observers,
                cp: &mut s.cp,
                budget: &mut s.budget,
                holds: &mut s.holds,
            },
        )
    }};
}

impl<'p, 'w> Sim<'p, 'w> {
    /// Prepares a run of `prog` on the machine `profile` describes, with `seed`.
    /// `truth`, the reference run's, lets the truth oracle judge every read; without it the run
    /// is timed alone (no read is judged, `stale_count` stays 0).
    pub fn new(prog: &'p Program<'w>, stream: &'p Stream, profile: &'p Profile, truth: Option<&'p ReadTruth>, seed: u64) -> Result<Self, WorkloadError> {
        let mut machine = Machine::new(profile, prog.address_space, seed).map_err(|e| WorkloadError::Invalid { at: "profile".into(), message: e })?;
        crate::engine::compression::bind(&mut machine, prog, profile, seed)?;
        let w = prog.workload;
        let registry = Registry::new(w.queues.len(), profile.machine.compute_units as usize);
        Ok(Sim {
            prog,
            stream,
            observers: Observers::new(truth.map(|t| Oracle::new(prog, stream, t))),
            profile,
            machine,
            clock: Clock::new(registry),
            cp: CommandProcessors::new(w.queues.len(), u64::from(profile.timing.transfer_launch_cycles)),
            units: Units {
                host: HostUnit::new(prog, profile, seed)?,
                transfer: TransferEngine::new(&profile.machine.transfer, &profile.timing, seed),
                compute: ComputeUnits::new(&profile.machine, &profile.timing, seed),
                graphics: crate::engine::units::graphics::GraphicsUnits::new(&profile.machine, seed),
            },
            budget: RunBudget::new(&RunLimits::default(), seed),
            holds: Holds::default(),
        })
    }

    /// Records the CU, start and end of the first `most` workgroups to finish (for timelines),
    /// and counts the rest.
    pub fn record_workgroups(mut self, most: usize) -> Self {
        self.observers.recorder.most_workgroups = most;
        self
    }

    /// A directed schedule: each node `.0` starts only after node `.1` is done, and actions
    /// launch in any order their dependencies allow.
    pub fn directed(mut self, holds: Vec<(usize, usize)>) -> Self {
        self.cp.direct(holds);
        self
    }

    /// A directed schedule: the reader caches of each `Prime` hold its bytes from just before
    /// its writer starts.
    pub fn primed(mut self, primes: Vec<Prime>) -> Self {
        self.holds.primes = primes;
        self
    }

    /// A directed schedule: the writes transfer command instance `inst` makes to device
    /// addresses `range` are held back until node `until` is done (they stay in flight: nothing
    /// made them available).
    pub fn hold_writes(mut self, inst: usize, range: (u64, u64), until: usize) -> Self {
        self.units.transfer.hold(inst, range.0, range.0 + range.1);
        self.holds.release_at = Some(until);
        self
    }

    /// The per-CU cache a read on `path` goes through first, if this machine has one there: the
    /// cache a `Prime` on that path fills.
    pub fn reader_cache(&self, path: PathName) -> Option<LevelId> {
        self.machine.path(path).cu_cache()
    }

    /// Stops the run at these budgets instead of the defaults.
    pub fn limits(mut self, limits: RunLimits) -> Self {
        self.budget = RunBudget::new(&limits, self.budget.seed);
        self
    }

    /// Attaches `observer`: it is told of every read, write and sync node of the run.
    pub fn observe(mut self, observer: &'p mut dyn Observer) -> Self {
        self.observers.attach(observer);
        self
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
            Err(WorkloadError::Budget { budget: Budget::Instructions, at, message }) if self.observers.stale_count() > 0 => {
                let command = self.budget.spent_in.map(|inst| self.prog.instances[inst].at.clone());
                Some(Stopped { at, command, message })
            }
            Err(e) => return Err(e),
        };
        if stopped.is_some() {
            // The workgroups in flight when the run stopped did work too: the report's counts
            // are of everything executed, so they pass the budget that stopped the run; and
            // their spans and their commands' end at the stop, so that the timeline shows what
            // ran on.
            let (units, mut cx) = split!(&mut self);
            units.compute.stop(&mut cx);
            for (inst, start) in cx.cp.running_actions(cx.stream) {
                cx.observers.span(inst, start, cx.clock.now);
            }
        }
        self.units.host.end(self.prog, &mut self.machine)?;
        let (judged, recorder, host_reads) = self.observers.finish();
        let (instructions, lane_ops) = self.units.compute.executed();
        let (stale, stale_count, stale_ranges, divergences, tainted, write_log_complete, write_log) = match judged {
            Some(j) => (j.stale, j.stale_count, j.stale_ranges, j.divergences, j.tainted, j.write_log_complete, Some(j.log)),
            None => (Vec::new(), 0, StaleRanges::default(), Vec::new(), Vec::new(), true, None),
        };
        Ok(SimOutcome {
            cycles: self.clock.now,
            machine: self.machine,
            stale,
            stale_count,
            stale_ranges,
            divergences,
            tainted,
            write_log_complete,
            write_log,
            host_reads,
            spans: recorder.spans,
            syncs: recorder.syncs,
            workgroups: recorder.workgroups,
            workgroups_not_recorded: recorder.workgroups_not_recorded,
            graphics_phases: std::mem::take(&mut self.units.graphics.phases),
            instructions,
            lane_ops,
            stopped,
        })
    }

    /// The event loop of [`Sim::run`]: each event to its unit.
    fn run_events(&mut self) -> Result<(), WorkloadError> {
        loop {
            if self.clock.dirty {
                self.clock.dirty = false;
                let (units, mut cx) = split!(self);
                units.host.advance(&mut cx)?;
                for i in cx.cp.take_ready(cx.stream, cx.clock.now) {
                    start_item(units, &mut cx, i)?;
                }
                units.compute.place_workgroups(&mut cx)?;
            }
            let Some((t, ev)) = self.clock.pop() else {
                if self.units.host.pc() >= self.prog.workload.timeline.len() && self.cp.nothing_waiting() {
                    break;
                }
                return Err(self.cp.deadlock(self.prog, self.stream, self.units.host.pc()));
            };
            if t > self.budget.max_cycles {
                return Err(self.budget.cycles_spent(self.observers.stale_count()));
            }
            self.clock.now = t;
            let (units, mut cx) = split!(self);
            match ev {
                Ev::Release(i) => cx.finish(i),
                Ev::Transfer(r) => units.transfer.on_step(r, &mut cx)?,
                Ev::Step(s, sg) => units.compute.step(s, sg, &mut cx)?,
                Ev::Host => cx.clock.dirty = true,
                Ev::Land(i) => units.graphics.land(i, &mut cx)?,
            }
            if cx.holds.due {
                units.transfer.release_held(&mut cx)?;
            }
        }
        // Writes still held (their release node never ran) land at the end.
        let (units, mut cx) = split!(self);
        units.transfer.release_held(&mut cx)
    }
}

/// Starts queue item `i`, which the command processors launched: a sync node fires; an action
/// goes to the unit that runs its work.
fn start_item(units: &mut Units, cx: &mut Cx<'_, '_, '_>, i: usize) -> Result<(), WorkloadError> {
    match &cx.stream.nodes[i].kind {
        // Host gates are opened by the host and never launched.
        NodeKind::HostGate { .. } => Ok(()),
        NodeKind::Sync(y) => cp::fire(cx, i, y),
        NodeKind::Action { inst, .. } => {
            let inst = *inst;
            // The command after it may launch then (in-order launch): look again.
            if cx.cp.work_from(i) > cx.now() {
                cx.wake_host(cx.cp.work_from(i));
            }
            cx.prime(i)?;
            let Some(action) = cx.prog.action(inst) else { return Ok(()) };
            if action.work.is_transfer() {
                units.transfer.start_action(i, inst, cx);
                Ok(())
            } else if action.work.is_graphics() {
                units.graphics.start_action(i, inst, &action.work, cx)
            } else {
                units.compute.start_action(i, inst, &action.work, cx)
            }
        }
    }
}
