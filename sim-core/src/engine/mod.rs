//! The compute GPU: concurrent execution, barriers that flush and invalidate, and the truth
//! about every read.
//!
//! # How a run works
//! ```text
//!   Workload -> Program (checked, numbered) -> Stream (nodes per queue, dependency rules)
//!                                                  |                 |               |
//!                       reference run <------------+                 |          gpusim graph
//!                       (each queue in order,                        v
//!                        flat memory)            timed engine (run.rs: event loop, host timeline)
//!                             |                    units/cp.rs        command processors
//!                             |                    units/transfer.rs  transfer engine
//!                             |                    units/compute.rs   CU dispatcher -> subgroups
//!                             |                    machine.rs         named paths: L1/U$/T$ -> L2 -> VRAM
//!                             |                         |
//!                             |                         | every read, write, sync node
//!                             v                         v
//!                     fingerprints ----------> observers: the truth oracle (oracle.rs, with
//!                                                         order.rs and its write log), any other
//! ```
//! 1. [`Program`] checks a [`Workload`] and numbers it: command instances, provenance tags
//!    (one per command instance and host write), device addresses of memory objects.
//! 2. [`stream::Stream`] lowers it to queues once: action commands, sync nodes, host gates, and
//!    the one set of dependency rules every reader shares (`order::Order` answers
//!    happens-before from them).
//! 3. The reference run ([`reference::reference_run`]) executes the stream in submission order
//!    on flat memory, each queue held back only by its own unmet waits, and fingerprints every
//!    read: its bytes, where it read, and whose writes it saw.
//! 4. The simulated run ([`run::Sim`]) executes the stream on the machine a [`Profile`]
//!    describes: commands overlap unless synchronization orders them, barriers perform the
//!    profile's cache operations. Observers ([`oracle::Observer`]) are told of every read, write
//!    and sync node; the truth oracle ([`oracle::Oracle`]) is one, and judges every read: stale,
//!    racing, or different only because timing decided its writers' output or its very
//!    existence. A timed run needs no reference run (then no read is judged).
//! 5. `findings.rs`: if reads were stale, the reference runs once more to capture those reads in
//!    detail, and each becomes a [`Finding`]: which command read which bytes of which buffer,
//!    through which cache, whose write it saw and whose it should have seen. Final memory is
//!    compared byte for byte, by writer, and every difference is linked to the hazard that
//!    explains it.
//!
//! This file is the facade: it sequences those steps. The vocabulary they share is in
//! [`crate::api`] (the workload, the checked program and its lowered actions); budgets and
//! device limits in `limits.rs`; directed schedules in `directed.rs`; the profile's conversion
//! in `conv.rs`.
//!
//! Functional effect and timing stay apart: caches move bytes ([`machine`]); the timing model
//! turns what they report into cycles.

pub(crate) mod blit;
pub mod draw;
pub mod graphics;
pub(crate) mod chunks;
pub mod compression;
pub(crate) mod bindings;
pub(crate) mod conv;
pub(crate) mod directed;
pub(crate) mod findings;
pub(crate) mod limits;
pub(crate) mod mapped;
pub(crate) mod record;
pub(crate) mod exec;
pub(crate) mod texture;
pub mod machine;
pub mod oracle;
pub(crate) mod order;
pub mod reference;
pub(crate) mod rng;
pub mod run;
pub mod stream;
pub(crate) mod units;

use std::collections::HashSet;

use serde::Serialize;
use sim_caches::{CacheStats, Tag};

pub use machine::{CacheOp, CacheTarget, LevelId};
pub use directed::Direction;
pub use findings::{Finding, HostReadResult, MAX_MEMORY_DIFFERENCES, MemoryDifference, Mistake, StaleRange, mistakes};
pub use limits::{MAX_CYCLES, RunLimits, check_limits, check_mapped_ranges};
pub use exec::LaneRead;
pub use record::{HostReadSeen, MAX_DETAILED_STALE_READS, ReadKey, ReferenceHostRead, Stopped, SyncLog, SyncOp};
pub use run::{GraphNode, MAX_TIMELINE_WORKGROUPS};
pub use units::cp::BarrierPlanner;
pub use mapped::{host_ranges, host_side};
use crate::api::*;
use directed::direct;


use crate::profile::Profile;

/// The result of running a workload on a profile with a seed.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Profile name.
    pub profile: String,
    /// Seed.
    pub seed: u64,
    /// Total simulated cycles.
    pub cycles: u64,
    /// Reads whose bytes differ from the same read in the reference run (a shader load request
    /// of a subgroup, a transfer chunk, or a host read counts once).
    pub stale_reads: u64,
    /// Bytes of memory at the end that differ from the reference run.
    pub corrupted_bytes: u64,
    /// Every image at the end: its tiles by compression state and its texels that differ from
    /// the reference run's (compared as decoded texels).
    pub images: Vec<compression::ImageReport>,
    /// Each image's first subresource as the run and the reference run left it, when
    /// [`RunOptions::pictures`] asks (images larger than
    /// [`compression::MAX_PICTURE_TEXELS`] are left out).
    #[serde(skip)]
    pub pictures: Vec<compression::Picture>,
    /// Explained stale reads.
    pub findings: Vec<Finding>,
    /// The findings grouped by mistake ([`mistakes`]): what a report leads with.
    pub mistakes: Vec<Mistake>,
    /// Whether only the first stale reads (`MAX_DETAILED_STALE_READS`, 256) are explained in
    /// `findings`: more went stale, and `stale_ranges` has the bytes of all of them.
    pub findings_truncated: bool,
    /// The bytes every stale read returned, merged per reading command and buffer: complete.
    pub stale_ranges: Vec<StaleRange>,
    /// Host reads.
    pub host_reads: Vec<HostReadResult>,
    /// Statistics per cache instance.
    pub caches: Vec<(String, CacheStats)>,
    /// Per command instance: (command, start cycle, end cycle).
    pub spans: Vec<(CommandRef, u64, u64)>,
    /// Sync nodes fired: what they flushed and invalidated, when.
    #[serde(skip)]
    pub syncs: Vec<SyncLog>,
    /// Workgroups as they ran, as many as [`RunOptions::workgroup_spans`] asked for, in the
    /// order they finished.
    #[serde(skip)]
    pub workgroups: Vec<WorkgroupSpan>,
    /// The dispatches that [`WorkgroupSpan::command`] indexes.
    #[serde(skip)]
    pub workgroup_commands: Vec<CommandRef>,
    /// Workgroups that ran after the most a run records had been recorded.
    #[serde(skip)]
    pub workgroups_not_recorded: u64,
    /// Draws and attachment operations that wrote attachments, in two phases each (for
    /// timelines).
    #[serde(skip)]
    pub graphics_phases: Vec<GraphicsPhases>,
    /// Shader instructions executed (per subgroup).
    pub instructions: u64,
    /// Shader instructions the reference run executed: the same as `instructions` unless a
    /// stale read changed the simulated run's control flow.
    pub reference_instructions: u64,
    /// Lane-operations executed.
    pub lane_ops: u64,
    /// Set when one of the simulated run's budgets stopped it after it had read stale bytes: a
    /// loop bound or a flag read stale that made it run on (see [`run::Sim::run`]). Its
    /// `stale_reads`, `findings` and `host_reads` are those made until then, and final memory
    /// is not compared (`corrupted_bytes` is 0): the run never finished.
    pub stopped: Option<Stopped>,
    /// Whether every read the reference run did not make was judged by the memory model (false
    /// past its budgets: [`oracle::MAX_WRITE_LOG_RANGES`], [`oracle::MAX_MODEL_CHECKS`]; such
    /// reads are then taken as correct).
    pub memory_model_complete: bool,
    /// The hazard this run's schedule was directed at ([`RunOptions::directed`]), when the
    /// direction was legal and applied.
    pub directed: Option<usize>,
    /// How the schedule was directed at that hazard.
    pub direction: Option<Direction>,
    /// Where final memory differs from the reference run: runs of bytes with the same two
    /// writers, in memory and offset order, at most [`RunOptions::max_memory_differences`].
    pub memory_differences: Vec<MemoryDifference>,
    /// True when there were more runs than listed (the rest are counted in `corrupted_bytes`
    /// only).
    pub memory_differences_truncated: bool,
    /// The program's synchronization hazards (the detector of [`crate::hazard`], with each
    /// dispatch's accesses as the reference run made them), in timeline order.
    pub hazards: Vec<crate::hazard::Hazard>,
}

/// A draw or attachment operation as it ran, for timelines: its reads (fetches, shaders, tile
/// reads) from `start` to `land`, its ROP writes from `land` to `end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphicsPhases {
    /// The command.
    pub at: CommandRef,
    /// Cycle it started.
    pub start: u64,
    /// Cycle its attachment writes reached the ROPs.
    pub land: u64,
    /// Cycle it was done.
    pub end: u64,
}

/// A workgroup as it ran: for timelines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkgroupSpan {
    /// Its dispatch: an index into [`RunResult::workgroup_commands`].
    pub command: usize,
    /// Its linear index in the dispatch.
    pub workgroup: u64,
    /// The compute unit it ran on.
    pub cu: usize,
    /// Cycle it was placed on the CU.
    pub start: u64,
    /// Cycle its last subgroup finished.
    pub end: u64,
}

/// What a run records beyond its result, and where it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// How many workgroups to record the CU and span of ([`RunResult::workgroups`]), for a
    /// timeline: 0 for none; [`MAX_TIMELINE_WORKGROUPS`] is what `gpusim` records. Each costs
    /// 40 bytes until the run ends.
    pub workgroup_spans: usize,
    /// The run's budgets.
    pub limits: RunLimits,
    /// The most runs of differing final bytes listed ([`RunResult::memory_differences`]);
    /// [`MAX_MEMORY_DIFFERENCES`] by default.
    pub max_memory_differences: usize,
    /// Picture every image at the end ([`RunResult::pictures`]).
    pub pictures: bool,
    /// Direct the schedule at this hazard (an index into [`RunResult::hazards`]): its prior
    /// command is held until its hazardous command is done, and actions launch in any order
    /// their dependencies allow. Legal only when nothing orders the two; otherwise the run is
    /// not directed ([`RunResult::directed`] tells).
    pub directed: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { workgroup_spans: 0, limits: RunLimits::default(), max_memory_differences: MAX_MEMORY_DIFFERENCES, pictures: false, directed: None }
    }
}

impl RunResult {
    /// Whether the run differed from the reference in any read or final byte.
    pub fn corrupted(&self) -> bool {
        self.stale_reads > 0 || self.corrupted_bytes > 0
    }
}

/// Whether `workload` is a valid program for `profile`'s device, as [`run_workload_with`]
/// decides it before anything runs: the same checks, in the same order, with the same errors
/// (`gpusim check` and `gpusim run` refuse the same traces).
/// The checked program and its lowered stream are returned, for what runs on them next.
pub fn validate<'w>(workload: &'w Workload, profile: &Profile, limits: &RunLimits) -> Result<(Program<'w>, stream::Stream), WorkloadError> {
    let prog = checked_program(workload, profile, limits)?;
    let stream = stream::Stream::lower_with(&prog, profile.policies)?;
    Ok((prog, stream))
}

/// Runs `workload` on `profile` with `seed`: the reference run, the simulated run, and the
/// comparison of every read and of final memory.
pub fn run_workload(workload: &Workload, profile: &Profile, seed: u64) -> Result<RunResult, WorkloadError> {
    run_workload_with(workload, profile, seed, &RunOptions::default())
}

/// [`run_workload`] with what to record and where to stop.
pub fn run_workload_with(workload: &Workload, profile: &Profile, seed: u64, options: &RunOptions) -> Result<RunResult, WorkloadError> {
    let prog = checked_program(workload, profile, &options.limits)?;
    let subgroup_size = profile.machine.cu.subgroup_size;
    let stream = stream::Stream::lower_with(&prog, profile.policies)?;
    let mut reference = reference::reference_run_noting(&prog, &stream, subgroup_size, &HashSet::new(), &options.limits, true)?;
    // The program's hazards, from the bytes its dispatches accessed in the reference run.
    let hazards = crate::hazard::detect_program(&prog, &stream, Some(&reference.accesses), profile.limits.non_coherent_atom_size);
    let mut sim = run::Sim::new(&prog, &stream, profile, Some(&reference.truth), seed)?.limits(options.limits);
    // A directed schedule uses one freedom the hazard leaves: the prior command held until the
    // hazardous one is done (nothing orders the two); else, for a read after write, the bytes
    // from before the write kept in the reader's cache; else the prior transfer's writes, made
    // available to nothing, held in flight.
    let directed = options.directed.and_then(|k| direct(&prog, &stream, profile, &sim, &reference.accesses, &hazards, k));
    if let Some(d) = &directed {
        if let Some((np, na)) = d.hold {
            sim = sim.directed(vec![(np, na)]);
        }
        if let Some(prime) = d.prime {
            sim = sim.primed(vec![prime]);
        }
        if let Some((ip, range, until)) = d.delay {
            sim = sim.hold_writes(ip, range, until);
        }
    }
    if options.workgroup_spans > 0 {
        sim = sim.record_workgroups(options.workgroup_spans);
    }
    let mut sim = sim.run()?;
    // Images as texels before anything compares final memory (their tiles' states first, for
    // pictures).
    let tiles = if options.pictures { compression::tile_states(&sim.machine, &prog, profile) } else { Vec::new() };
    let mut images = compression::finish(&mut sim.machine, &prog, profile).map_err(|e| WorkloadError::Execution { at: "final memory".into(), message: e.to_string() })?;
    let reference_instructions = reference.instructions;
    let (mut host_reads, stale_reads) = findings::host_read_results(&prog, &reference.truth, std::mem::take(&mut sim.host_reads), sim.stale_count);
    let caches = sim.machine.cache_stats();
    let sim_vram = sim.machine.vram;
    let memory = findings::compare_final_memory(&prog, &stream, &sim.tainted, sim.write_log.take(), sim.stopped.is_some(), &sim_vram, &reference.memory, options.max_memory_differences)?;
    if sim.stopped.is_none() {
        compression::count_differing(&mut images, &prog, &sim_vram, &reference.memory).map_err(|e| WorkloadError::Execution { at: "final memory".into(), message: e.to_string() })?;
    }
    let pictures = if options.pictures { compression::pictures(&prog, &sim_vram, &reference.memory, tiles).map_err(|e| WorkloadError::Execution { at: "pictures".into(), message: e.to_string() })? } else { Vec::new() };
    // Everything compared: free both memories before the capture run needs one of its own.
    drop(sim_vram);
    let accesses = std::mem::take(&mut reference.accesses);
    drop(reference);

    let mut findings = findings::stale_read_findings(&prog, &stream, &sim.stale, &sim.divergences, subgroup_size, &options.limits)?;
    findings::explain(&mut findings, &prog, profile, &hazards, &accesses);
    // Each dispatch's name once, not once per workgroup.
    let mut command_of = std::collections::HashMap::new();
    let mut workgroup_commands = Vec::new();
    let workgroups = sim
        .workgroups
        .iter()
        .map(|&(i, workgroup, cu, start, end)| {
            let command = *command_of.entry(i).or_insert_with(|| {
                workgroup_commands.push(prog.instances[i].at.clone());
                workgroup_commands.len() - 1
            });
            WorkgroupSpan { command, workgroup, cu, start, end }
        })
        .collect();

    let memory_differences = findings::memory_differences(&prog, profile, &hazards, &findings, memory.runs);
    findings::explain_host_reads(&mut host_reads, &prog, &hazards, &findings, &memory_differences);
    Ok(RunResult {
        directed: directed.as_ref().map(|d| d.hazard),
        direction: directed.map(|d| d.direction),
        memory_differences,
        memory_differences_truncated: memory.truncated,
        profile: profile.name.clone(),
        seed,
        cycles: sim.cycles,
        stale_reads,
        corrupted_bytes: memory.corrupted_bytes,
        images,
        pictures,
        mistakes: mistakes(&findings),
        findings,
        findings_truncated: sim.stale_count > sim.stale.len() as u64,
        stale_ranges: findings::stale_ranges(&prog, &sim.stale_ranges),
        host_reads,
        caches,
        spans: sim.spans.iter().map(|&(i, s, e)| (prog.instances[i].at.clone(), s, e)).collect(),
        syncs: sim.syncs,
        workgroups,
        workgroup_commands,
        workgroups_not_recorded: sim.workgroups_not_recorded,
        graphics_phases: sim.graphics_phases.iter().map(|&(i, start, land, end)| GraphicsPhases { at: prog.instances[i].at.clone(), start, land, end }).collect(),
        instructions: sim.instructions,
        reference_instructions,
        lane_ops: sim.lane_ops,
        stopped: sim.stopped,
        memory_model_complete: sim.write_log_complete,
        hazards,
    })
}

/// For each hazard, why no execution the program allows could change a byte through it, or
/// `None` when one could: whether there is anything for a schedule to show.
///
/// The reference run hashes the hazard's bytes around its two accesses. A read after write can
/// show only if the write changed the bytes (a stale read sees those from before it); a write
/// after read only if the write changes what the read saw; a write after write only if the two
/// writes leave different bytes (the older landing last); a flush that writes the host's stale
/// atom back over a device write only if that write changed the bytes. Hazards whose two
/// accesses no single reference run reaches (the program stopped first) count as able to show.
pub fn unchangeable_hazards(workload: &Workload, profile: &Profile, hazards: &[crate::hazard::Hazard], limits: &RunLimits) -> Result<Vec<Option<&'static str>>, WorkloadError> {
    use crate::hazard::Place;
    use reference::{Watch, WatchPoint};
    if hazards.is_empty() {
        return Ok(Vec::new());
    }
    let prog = checked_program(workload, profile, limits)?;
    let stream = stream::Stream::lower(&prog)?;
    let point = |p: &Place| match p {
        Place::Command(c) => prog.instance_of(c).map(WatchPoint::Command),
        Place::Host { timeline } => Some(WatchPoint::Host(*timeline)),
    };
    // Each hazard's two points and its bytes' device addresses.
    let located: Vec<Option<(WatchPoint, WatchPoint, std::ops::Range<u64>)>> = hazards
        .iter()
        .map(|h| {
            let (addr, size) = h.device_range(&prog)?;
            Some((point(&h.prior)?, point(&h.at)?, addr..addr + size))
        })
        .collect();
    let mut watch = Watch::default();
    for (p, a, r) in located.iter().flatten() {
        watch.add(*p, r.clone());
        watch.add(*a, r.clone());
    }
    reference::reference_run_watching(&prog, &stream, profile.machine.cu.subgroup_size, limits, &mut watch)?;
    Ok(hazards
        .iter()
        .zip(&located)
        .map(|(h, l)| {
            let (p, a, r) = l.as_ref()?;
            // A layout transition keeps the bytes: what it makes available is older writes (a
            // render pass's end transitions after its draws, in the same command). Likewise a
            // store or load operation stands for the attachment's contents, which the draws of
            // its render pass instance wrote or read, not the command's own bytes.
            let attachment_op = |p: &Place| match p {
                Place::Command(c) => prog.instance_of(c).and_then(|i| prog.action(i)).is_some_and(|a| matches!(a.work, crate::api::action::Work::Attachments(_))),
                Place::Host { .. } => false,
            };
            if h.prior_usage.is_layout_transition() || attachment_op(&h.prior) || attachment_op(&h.at) {
                return None;
            }
            let hash = |at: WatchPoint, after: bool| watch.hash(at, after, r);
            let flush = matches!(h.at, Place::Host { timeline } if matches!(workload.timeline.get(timeline), Some(HostOp::FlushMappedMemoryRanges(_))));
            let (x, y, why) = match (h.prior_usage.is_write(), h.usage.is_write()) {
                _ if flush => ((*p, false), (*p, true), "the device write left the bytes the host's stale atom holds, so the flush puts back the same bytes"),
                (true, false) => ((*p, false), (*p, true), "the write stored the bytes that were already there, so the read sees the same bytes whether or not the write is visible to it"),
                (false, true) => ((*p, false), (*a, true), "the write stores the bytes the read saw, so the read sees the same bytes in either order"),
                (true, true) => ((*p, true), (*a, true), "both writes store the same bytes, so either may land last"),
                (false, false) => return None,
            };
            let (Some(x), Some(y)) = (hash(x.0, x.1), hash(y.0, y.1)) else { return None };
            (x == y).then_some(why)
        })
        .collect())
}

/// What a correctly synchronized execution of a workload leaves: the reference run's host reads
/// and final memory, with the writer of every word, for comparing a run made elsewhere (a real
/// Vulkan device) with.
pub struct ReferenceOutcome {
    /// Each host read by timeline index: what the reference run read.
    pub host_reads: std::collections::BTreeMap<usize, ReferenceHostRead>,
    /// Each memory object's final contents (`None` when the workload leaves it out of the
    /// comparison).
    pub memories: Vec<Option<ReferenceHostRead>>,
    /// The writer of each tag.
    pub writers: Vec<Writer>,
    /// Per host read (by timeline index), the bytes whose value depends on timing: they differ
    /// between legal executions of the program (which invocation an atomic picked decides them),
    /// so a device that reads other bytes there is not wrong. Empty when none do.
    pub host_read_timing: std::collections::BTreeMap<usize, Vec<bool>>,
    /// Per memory object, its final bytes whose value depends on timing (empty: none).
    pub memory_timing: Vec<Vec<bool>>,
}

impl ReferenceOutcome {
    /// Whether byte `k` of host read `t` depends on timing.
    pub fn host_read_timing_dependent(&self, t: usize, k: usize) -> bool {
        self.host_read_timing.get(&t).is_some_and(|m| m.get(k).copied().unwrap_or(false))
    }

    /// Whether byte `k` of memory object `m`'s final contents depends on timing.
    pub fn memory_timing_dependent(&self, m: usize, k: usize) -> bool {
        self.memory_timing.get(m).is_some_and(|v| v.get(k).copied().unwrap_or(false))
    }

    /// The writer of byte `k` of `read`.
    pub fn writer_of(&self, read: &ReferenceHostRead, k: usize) -> &Writer {
        self.writers.get(read.tag_of(k) as usize).unwrap_or(&Writer::Initial)
    }
}

/// Runs `workload`'s reference run alone (no profile, no caches) with `subgroup_size` lanes
/// per subgroup, and returns what it read and left.
pub fn reference_outcome(workload: &Workload, subgroup_size: u32, limits: &RunLimits) -> Result<ReferenceOutcome, WorkloadError> {
    limits.validate().map_err(|(field, message)| WorkloadError::Invalid { at: "run options".into(), message: format!("{field} {message}") })?;
    let prog = Program::new(workload)?;
    limits.check_transfers(&prog)?;
    let stream = stream::Stream::lower(&prog)?;
    let reference = reference::reference_run_noting(&prog, &stream, subgroup_size, &HashSet::new(), limits, true)?;
    let finals = |r: &reference::Reference| -> Result<Vec<Option<ReferenceHostRead>>, WorkloadError> {
        let mut memories = Vec::new();
        for (m, desc) in workload.memories.iter().enumerate() {
            if !desc.compare {
                memories.push(None);
                continue;
            }
            let addr = prog.memory_base[m];
            let mut bytes = vec![0u8; desc.size as usize];
            let mut word_tags = vec![0 as Tag; sim_caches::word_span(addr, bytes.len())];
            r.memory.peek(addr, &mut bytes, &mut word_tags).map_err(|e| WorkloadError::Execution { at: "final memory".into(), message: e.to_string() })?;
            memories.push(Some(ReferenceHostRead { addr, bytes, word_tags }));
        }
        Ok(memories)
    };
    let memories = finals(&reference)?;
    // Where atomics ran, the same program in other legal orders of its invocations: the bytes
    // that differ depend on which invocation an atomic picked. (Without atomics a correctly
    // synchronized program leaves the same bytes in every order.)
    let mut host_read_timing = std::collections::BTreeMap::new();
    let mut memory_timing = vec![Vec::new(); workload.memories.len()];
    if reference.accesses.values().any(|a| a.atomics()) {
        let mark = |mask: &mut Vec<bool>, a: &[u8], b: &[u8]| {
            if mask.is_empty() {
                mask.resize(a.len(), false);
            }
            for (k, (x, y)) in a.iter().zip(b).enumerate() {
                mask[k] |= x != y;
            }
        };
        for order in [reference::ExecutionOrder::Reversed, reference::ExecutionOrder::Rotated] {
            // An order the program cannot finish in, one command at a time (a workgroup that
            // waits for a later one), marks nothing: the marking is sound, not complete.
            let Ok(other) = reference::reference_run_ordered(&prog, &stream, subgroup_size, limits, false, order) else { continue };
            for (t, r) in &reference.truth.host_reads {
                if let Some(o) = other.truth.host_reads.get(t) {
                    mark(host_read_timing.entry(*t).or_default(), &r.bytes, &o.bytes);
                }
            }
            for (m, (a, b)) in memories.iter().zip(finals(&other)?).enumerate() {
                if let (Some(a), Some(b)) = (a, b) {
                    mark(&mut memory_timing[m], &a.bytes, &b.bytes);
                }
            }
        }
        host_read_timing.retain(|_, v: &mut Vec<bool>| v.iter().any(|&x| x));
        memory_timing.iter_mut().filter(|v| !v.iter().any(|&x| x)).for_each(Vec::clear);
    }
    Ok(ReferenceOutcome { host_reads: reference.truth.host_reads.into_iter().collect(), memories, writers: prog.writers.clone(), host_read_timing, memory_timing })
}

/// The execution-dependency graph of `workload`: every queue item (action command, sync node
/// or host gate) with the items it waits for, from the lowered stream that orders the run, so
/// the graph follows exactly the rules the engine follows. The workload is checked against
/// `profile` (its device limits) and `limits` as a run is; `seed` is not used (the graph does not
/// depend on timing) and kept so callers name a run the same way.
pub fn dependency_graph(workload: &Workload, profile: &Profile, seed: u64, limits: &RunLimits) -> Result<Vec<GraphNode>, WorkloadError> {
    let _ = seed;
    let prog = checked_program(workload, profile, limits)?;
    let stream = stream::Stream::lower(&prog)?;
    let nodes = stream
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (inst, at, src, dst, label) = match &n.kind {
                stream::NodeKind::Action { inst, stage } => (Some(*inst), Some(prog.instances[*inst].at.clone()), *stage, crate::sync::PipelineStageFlags2::NONE, String::new()),
                stream::NodeKind::Sync(y) => (None, None, y.src, y.dst, y.label.clone()),
                stream::NodeKind::HostGate { event, .. } => {
                    (None, None, crate::sync::PipelineStageFlags2::NONE, crate::sync::PipelineStageFlags2::NONE, format!("vkSetEvent `{}` from the host", workload.events[*event]))
                }
            };
            GraphNode { queue: n.queue, inst, at, src, dst, label, deps: stream.deps(i), explicit: n.explicit.clone(), start_after: n.start_after() }
        })
        .collect();
    Ok(nodes)
}

/// What every run checks before anything runs: the budgets, the workload itself, the profile's
/// device limits, the transfer budget and the mapped ranges. Returns the numbered program.
fn checked_program<'w>(workload: &'w Workload, profile: &Profile, limits: &RunLimits) -> Result<Program<'w>, WorkloadError> {
    limits.validate().map_err(|(field, message)| WorkloadError::Invalid { at: "run options".into(), message: format!("{field} {message}") })?;
    let prog = Program::new(workload)?;
    check_limits(&prog, profile)?;
    limits.check_transfers(&prog)?;
    check_mapped_ranges(&prog, profile)?;
    Ok(prog)
}
