//! Barrier strategies: one task graph, the synchronization placed by several strategies, each
//! proven correct before it is timed.
//!
//! # Design
//! A task graph is an ordinary trace whose one submission runs one command buffer of passes
//! (dispatches, copies, fills, updates) with no synchronization between them; whatever the host
//! does after the submission's fence (host reads) stays as it is. [`TaskGraph::load`] derives
//! each pass's accesses as the hazard detector counts them
//! ([`sim_core::hazard::command_accesses`]) and from them the dependencies a correct program
//! needs ([`Dep`]): per byte, the latest write and the reads since it, as the layer tracks them.
//!
//! A [`Strategy`] turns the dependencies into synchronization and writes an ordinary trace (the
//! task graph's JSON with commands, events, queues or submissions added). Each trace is then
//! proven ([`prove`]): the hazard detector finds no hazard, and no seeded schedule on any of the
//! profiles (every built-in one, unless `gpusim strategies --profile` names others) reads a
//! byte the reference run did not. Only a proven strategy is timed;
//! a wrong one is reported as wrong, with what showed it.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde_json::{Value, json};
use sim_core::api::workload::Command;
use sim_core::engine::{RunOptions, run_workload_with};
use sim_core::api::{Program};
use sim_core::hazard::{CommandAccess, RangeMap, command_accesses};
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S, StageAccess};
use sim_core::trace::LoadedTrace;

use crate::ExperimentError;
use crate::sweep::RunRecord;

/// A scope's (stages, accesses).
type Scope = (S, A);
/// A memory barrier's first and second scopes.
type Pair = (Scope, Scope);

/// The kind of dependency between two passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// A read after a write.
    ReadAfterWrite,
    /// A write after a write.
    WriteAfterWrite,
    /// A write after a read: an execution dependency is enough.
    WriteAfterRead,
}

/// A dependency a correct program must keep: pass `from` before pass `to`, over `range` of
/// buffer `buffer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dep {
    /// The earlier pass.
    pub from: usize,
    /// The later pass.
    pub to: usize,
    /// What kind.
    pub kind: DepKind,
    /// The earlier pass's usage.
    pub src: StageAccess,
    /// The later pass's usage.
    pub dst: StageAccess,
    /// The buffer (of the later pass's access).
    pub buffer: usize,
    /// Device-address range of the overlap.
    pub range: Range<u64>,
}

impl Dep {
    /// The (stages, accesses) of the first scope: the writer's access, or none for a read.
    fn src_scope(&self) -> (S, A) {
        (self.src.stage(), if self.kind == DepKind::WriteAfterRead { A::NONE } else { self.src.access() })
    }
    /// The (stages, accesses) of the second scope: the later access, or none for a write after
    /// a read (an execution dependency orders it).
    fn dst_scope(&self) -> (S, A) {
        (self.dst.stage(), if self.kind == DepKind::WriteAfterRead { A::NONE } else { self.dst.access() })
    }
}

/// The state of a byte range while dependencies are found: the latest write and the reads since.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ByteState {
    write: Option<(usize, StageAccess)>,
    reads: Vec<(usize, StageAccess)>,
}

/// A task graph: a trace's passes and the dependencies between them.
pub struct TaskGraph {
    /// The trace.
    pub trace: LoadedTrace,
    /// Its JSON, which strategies add synchronization to.
    json: Value,
    /// Index of the passes' command buffer in the JSON's `command_buffers`.
    cb: usize,
    /// Index of its submission in the JSON's `timeline`.
    submit: usize,
    /// Per pass (command of the command buffer): its accesses; then one more, the host's reads
    /// after the submission's fence.
    pub passes: Vec<Vec<CommandAccess>>,
    /// The dependencies, in order of their later pass.
    pub deps: Vec<Dep>,
    /// Each buffer's device address.
    buffer_base: Vec<u64>,
}

impl TaskGraph {
    /// Loads the task graph at `path`: a trace with one submission of one command buffer of
    /// passes and no synchronization in it.
    pub fn load(path: &Path) -> Result<TaskGraph, ExperimentError> {
        let origin = path.display().to_string();
        let err = |m: String| ExperimentError::new(&origin, m);
        let trace = sim_core::trace::load(path).map_err(|e| ExperimentError::new(&origin, e.to_string()))?;
        let json: Value = serde_json::from_str(&trace.text).map_err(|e| err(e.to_string()))?;
        let w = &trace.workload;
        let submits: Vec<usize> = json["timeline"].as_array().map(|t| t.iter().enumerate().filter(|(_, o)| o["op"] == "queue_submit").map(|(i, _)| i).collect()).unwrap_or_default();
        let [submit] = submits[..] else {
            return Err(err(format!("a task graph has one queue_submit; this trace has {}", submits.len())));
        };
        let op = &json["timeline"][submit];
        if op.get("batches").is_some() || op.get("wait_semaphores").is_some() || op.get("signal_semaphores").is_some() {
            return Err(err(format!("timeline[{submit}]: a task graph's submission is one command buffer, without batches or semaphores")));
        }
        let cbs = op["command_buffers"].as_array().cloned().unwrap_or_default();
        let [cb_name] = &cbs[..] else {
            return Err(err(format!("timeline[{submit}]: a task graph submits one command buffer; this submission has {}", cbs.len())));
        };
        let cb = json["command_buffers"].as_array().and_then(|v| v.iter().position(|c| &c["id"] == cb_name)).ok_or_else(|| err(format!("no command buffer {cb_name}")))?;
        let cb_index = w.command_buffers.iter().position(|c| Value::String(c.name.clone()) == *cb_name).ok_or_else(|| err(format!("no command buffer {cb_name}")))?;
        let commands = &w.command_buffers[cb_index].commands;
        if let Some((i, c)) = commands.iter().enumerate().find(|(_, c)| !matches!(c, Command::Dispatch { .. } | Command::CopyBuffer { .. } | Command::FillBuffer { .. } | Command::UpdateBuffer { .. })) {
            return Err(err(format!(
                "command_buffers[{cb}].commands[{i}]: {} in a task graph; its passes carry no synchronization (the strategies place it)",
                c.vk_name()
            )));
        }
        let prog = Program::new(w).map_err(|e| err(trace.locate_engine_error(&e).to_string()))?;
        let mut passes: Vec<Vec<CommandAccess>> = (0..commands.len()).map(|i| command_accesses(&prog, cb_index, i)).collect();
        // The host's reads after the submission: one more "pass", at HOST.
        let host_read = StageAccess::new(S::HOST, A::HOST_READ).expect("a legal usage");
        let mut host = Vec::new();
        for op in json["timeline"].as_array().map(|t| &t[submit + 1..]).unwrap_or_default().iter().filter(|o| o["op"] == "host_read") {
            let Some(m) = w.memories.iter().position(|m| op["memory"] == m.name.as_str()) else { continue };
            let offset = op["offset"].as_u64().unwrap_or(0);
            let size = op["size"].as_u64().unwrap_or(w.memories[m].size.saturating_sub(offset));
            let range = prog.memory_base[m] + offset..prog.memory_base[m] + offset + size;
            for (b, buf) in w.buffers.iter().enumerate().filter(|(_, b)| b.memory == m) {
                let start = prog.buffer_addr(b, 0);
                let r = range.start.max(start)..range.end.min(start + buf.size);
                if r.start < r.end {
                    host.push(CommandAccess { buffer: b, range: r, usage: host_read });
                }
            }
        }
        passes.push(host);
        let deps = dependencies(&passes);
        let buffer_base = (0..w.buffers.len()).map(|b| prog.buffer_addr(b, 0)).collect();
        Ok(TaskGraph { trace, json, cb, submit, passes, deps, buffer_base })
    }

    /// The name of buffer `b`.
    fn buffer_name(&self, b: usize) -> &str {
        &self.trace.workload.buffers[b].name
    }
}

/// The dependencies of `passes` (their accesses, in order): per byte, a read depends on the
/// latest write, a write on the latest write and every read since.
pub fn dependencies(passes: &[Vec<CommandAccess>]) -> Vec<Dep> {
    let mut state: RangeMap<ByteState> = RangeMap::new();
    let mut deps = Vec::new();
    for (j, accesses) in passes.iter().enumerate() {
        let mut found: BTreeMap<(usize, DepKind, StageAccess, StageAccess, usize), Range<u64>> = BTreeMap::new();
        for a in accesses {
            let write = a.usage.is_write();
            for (r, s) in state.overlapping(a.range.clone()) {
                let mut add = |from: usize, kind: DepKind, src: StageAccess| {
                    if from == j {
                        return;
                    }
                    let e = found.entry((from, kind, src, a.usage, a.buffer)).or_insert(r.clone());
                    *e = e.start.min(r.start)..e.end.max(r.end);
                };
                if let Some((i, u)) = s.write {
                    add(i, if write { DepKind::WriteAfterWrite } else { DepKind::ReadAfterWrite }, u);
                }
                if write {
                    for &(i, u) in &s.reads {
                        add(i, DepKind::WriteAfterRead, u);
                    }
                }
            }
        }
        for a in accesses {
            if a.usage.is_write() {
                state.update(a.range.clone(), |s| *s = ByteState { write: Some((j, a.usage)), reads: Vec::new() });
            }
        }
        for a in accesses.iter().filter(|a| !a.usage.is_write()) {
            state.update(a.range.clone(), |s| s.reads.push((j, a.usage)));
        }
        deps.extend(found.into_iter().map(|((from, kind, src, dst, buffer), range)| Dep { from, to: j, kind, src, dst, buffer, range }));
    }
    deps
}

/// A way of placing the synchronization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One ALL_COMMANDS / MEMORY_WRITE → ALL_COMMANDS / MEMORY_READ|MEMORY_WRITE barrier after
    /// every pass.
    Full,
    /// Before each pass, one global memory barrier per dependency, with exactly its stages and
    /// accesses.
    PerPair,
    /// Before each pass, one buffer memory barrier per dependency, over exactly its range.
    BufferRanges,
    /// Before each pass, one global memory barrier: the union of its dependencies' scopes.
    Batched,
    /// A split barrier per producer: vkCmdSetEvent2 after it, vkCmdWaitEvents2 before its first
    /// consumer.
    SplitEvents,
    /// A render-graph tracker in the style of wgpu-core's: each buffer's whole state, a buffer
    /// barrier from the previous usage to the next whenever either writes.
    Tracker,
    /// Each pass its own submission, dispatches on one queue and transfers on another, binary
    /// semaphores for the dependencies.
    QueuePerPass,
}

impl Strategy {
    /// Every strategy, in the order tables list them.
    pub const ALL: [Strategy; 7] = [Strategy::Full, Strategy::PerPair, Strategy::BufferRanges, Strategy::Batched, Strategy::SplitEvents, Strategy::Tracker, Strategy::QueuePerPass];

    /// Its name in tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Full => "full",
            Strategy::PerPair => "per-pair",
            Strategy::BufferRanges => "buffer-ranges",
            Strategy::Batched => "batched",
            Strategy::SplitEvents => "split-events",
            Strategy::Tracker => "tracker",
            Strategy::QueuePerPass => "queue-per-pass",
        }
    }

    /// The trace `g` becomes with this strategy's synchronization.
    pub fn apply(self, g: &TaskGraph) -> Value {
        let mut out = g.json.clone();
        out["name"] = json!(format!("{}-{}", g.trace.name, self.name()));
        let passes: Vec<Value> = g.json["command_buffers"][g.cb]["commands"].as_array().cloned().unwrap_or_default();
        let n = passes.len();
        let deps_to = |j: usize| g.deps.iter().filter(move |d| d.to == j);
        let mut cmds: Vec<Value> = Vec::new();
        match self {
            Strategy::Full => {
                for (j, p) in passes.into_iter().enumerate() {
                    cmds.push(p);
                    if j + 1 < n {
                        cmds.push(global(&[((S::ALL_COMMANDS, A::MEMORY_WRITE), (S::ALL_COMMANDS, A::MEMORY_READ | A::MEMORY_WRITE))]));
                    }
                }
                if deps_to(n).next().is_some() {
                    cmds.push(global(&[((S::ALL_COMMANDS, A::MEMORY_WRITE), (S::HOST, A::HOST_READ))]));
                }
            }
            Strategy::PerPair | Strategy::Batched => {
                for (j, p) in passes.into_iter().map(Some).chain([None]).enumerate() {
                    let mut pairs: Vec<Pair> = deps_to(j).map(|d| (d.src_scope(), d.dst_scope())).collect();
                    pairs.dedup();
                    if self == Strategy::Batched && !pairs.is_empty() {
                        pairs = vec![union(pairs)];
                    }
                    if !pairs.is_empty() {
                        cmds.push(global(&pairs));
                    }
                    cmds.extend(p);
                }
            }
            Strategy::BufferRanges => {
                for (j, p) in passes.into_iter().map(Some).chain([None]).enumerate() {
                    let barriers: Vec<Value> = deps_to(j)
                        .map(|d| {
                            let offset = d.range.start - g.buffer_base[d.buffer];
                            buffer_barrier((d.src_scope(), d.dst_scope()), g.buffer_name(d.buffer), offset, json!(d.range.end - d.range.start))
                        })
                        .collect();
                    if !barriers.is_empty() {
                        cmds.push(json!({"cmd": "pipeline_barrier", "buffer_memory_barriers": barriers}));
                    }
                    cmds.extend(p);
                }
            }
            Strategy::SplitEvents => {
                // One event per producer, set right after it with the union of what its
                // consumers need, waited before the first of them.
                let mut events: Vec<String> = Vec::new();
                let mut waits: BTreeMap<usize, Vec<(String, Value)>> = BTreeMap::new();
                let mut sets: BTreeMap<usize, (String, Value)> = BTreeMap::new();
                for i in 0..n {
                    // The host waits on the fence, not on an event: its reads get a barrier at the end.
                    let out_deps: Vec<&Dep> = g.deps.iter().filter(|d| d.from == i && d.to < n).collect();
                    let Some(first) = out_deps.iter().map(|d| d.to).min() else { continue };
                    let name = format!("pass{i}_done");
                    let dependency = json!({"memory_barriers": [barrier_json(union(out_deps.iter().map(|d| (d.src_scope(), d.dst_scope()))))]});
                    events.push(name.clone());
                    sets.insert(i, (name.clone(), dependency.clone()));
                    waits.entry(first).or_default().push((name, dependency));
                }
                for (j, p) in passes.into_iter().enumerate() {
                    if let Some(w) = waits.remove(&j) {
                        let names: Vec<&String> = w.iter().map(|(n, _)| n).collect();
                        let deps: Vec<&Value> = w.iter().map(|(_, d)| d).collect();
                        cmds.push(json!({"cmd": "wait_events", "events": names, "dependencies": deps}));
                    }
                    cmds.push(p);
                    if let Some((name, dependency)) = sets.remove(&j) {
                        cmds.push(json!({"cmd": "set_event", "event": name, "dependency": dependency}));
                    }
                }
                let host: Vec<Pair> = deps_to(n).map(|d| (d.src_scope(), d.dst_scope())).collect();
                if !host.is_empty() {
                    cmds.push(global(&host));
                }
                let mut all = out["events"].as_array().cloned().unwrap_or_default();
                all.extend(events.into_iter().map(Value::String));
                out["events"] = Value::Array(all);
            }
            Strategy::Tracker => {
                // Per buffer: the usages since the last barrier on it (reads merge; a write is alone).
                let mut current: BTreeMap<usize, (S, A, bool)> = BTreeMap::new();
                for (j, p) in passes.into_iter().map(Some).chain([None]).enumerate() {
                    let mut uses: BTreeMap<usize, (S, A, bool)> = BTreeMap::new();
                    for a in &g.passes[j] {
                        let e = uses.entry(a.buffer).or_insert((S::NONE, A::NONE, false));
                        e.0 |= a.usage.stage();
                        e.1 |= a.usage.access();
                        e.2 |= a.usage.is_write();
                    }
                    let mut barriers = Vec::new();
                    for (&b, &(s, acc, write)) in &uses {
                        match current.get(&b).copied() {
                            Some((ps, pa, pw)) if pw || write => {
                                let src_access = if pw { pa & A::ALL_WRITES } else { A::NONE };
                                let dst_access = if pw { acc } else { A::NONE };
                                barriers.push(buffer_barrier(((ps, src_access), (s, dst_access)), g.buffer_name(b), 0, json!("WHOLE_SIZE")));
                                current.insert(b, (s, acc, write));
                            }
                            Some((ps, pa, false)) => {
                                current.insert(b, (ps | s, pa | acc, false));
                            }
                            _ => {
                                current.insert(b, (s, acc, write));
                            }
                        }
                    }
                    if !barriers.is_empty() {
                        cmds.push(json!({"cmd": "pipeline_barrier", "buffer_memory_barriers": barriers}));
                    }
                    cmds.extend(p);
                }
            }
            Strategy::QueuePerPass => return queue_per_pass(g, out, passes),
        }
        out["command_buffers"][g.cb]["commands"] = Value::Array(cmds);
        out
    }
}

/// One barrier's scopes covering all of `pairs`: the union of their stages and accesses.
fn union(pairs: impl IntoIterator<Item = Pair>) -> Pair {
    pairs.into_iter().fold(((S::NONE, A::NONE), (S::NONE, A::NONE)), |((ss, sa), (ds, da)), ((s1, a1), (s2, a2))| ((ss | s1, sa | a1), (ds | s2, da | a2)))
}

/// A memory barrier's JSON.
fn barrier_json(((ss, sa), (ds, da)): Pair) -> Value {
    json!({"src_stage_mask": ss.to_string(), "src_access_mask": sa.to_string(), "dst_stage_mask": ds.to_string(), "dst_access_mask": da.to_string()})
}

/// A buffer memory barrier's JSON: `pair`'s scopes over `size` bytes of `buffer` from `offset`.
fn buffer_barrier(pair: Pair, buffer: &str, offset: u64, size: Value) -> Value {
    let mut b = barrier_json(pair);
    b["buffer"] = json!(buffer);
    b["offset"] = json!(offset);
    b["size"] = size;
    b
}

/// A pipeline barrier of global memory barriers.
fn global(pairs: &[Pair]) -> Value {
    json!({"cmd": "pipeline_barrier", "memory_barriers": pairs.iter().map(|&p| barrier_json(p)).collect::<Vec<_>>()})
}

/// [`Strategy::QueuePerPass`]: each pass its own command buffer and submission, dispatches on
/// queue `compute`, transfers on queue `transfer`; a binary semaphore per dependency, waited at
/// the later pass's stage; the task graph's fence on the last submission, after a wait for
/// every pass that nothing after it waited for.
fn queue_per_pass(g: &TaskGraph, mut out: Value, passes: Vec<Value>) -> Value {
    let n = passes.len();
    let queue_of = |p: &Value| if p["cmd"] == "dispatch" { "compute" } else { "transfer" };
    let cb_name = out["command_buffers"][g.cb]["id"].as_str().unwrap_or("cb").to_string();
    let mut cbs: Vec<Value> = out["command_buffers"].as_array().cloned().unwrap_or_default();
    cbs.remove(g.cb);
    let mut semaphores: Vec<Value> = out["semaphores"].as_array().cloned().unwrap_or_default();
    let mut submits = Vec::new();
    let mut edges: Vec<(usize, usize, S)> = g.deps.iter().filter(|d| d.to < n).map(|d| (d.from, d.to, d.dst.stage())).collect();
    edges.sort_by_key(|e| (e.0, e.1));
    edges.dedup_by_key(|e| (e.0, e.1));
    // The last pass on the fence's queue must come after every pass: passes that no dependency
    // orders before it get an edge to a final wait.
    let fence = g.json["timeline"][g.submit]["fence"].clone();
    for (j, p) in passes.into_iter().enumerate() {
        let name = format!("{cb_name}_pass{j}");
        // The host reads what this pass wrote after the fence: a barrier to HOST_READ after it.
        let to_host: Vec<Pair> = g.deps.iter().filter(|d| d.from == j && d.to == n).map(|d| (d.src_scope(), d.dst_scope())).collect();
        let mut commands = vec![p.clone()];
        if !to_host.is_empty() {
            commands.push(global(&to_host));
        }
        cbs.push(json!({"id": name, "commands": commands}));
        let waits: Vec<Value> = edges.iter().filter(|e| e.1 == j).map(|e| json!({"semaphore": format!("s{}_{}", e.0, e.1), "stage_mask": e.2.to_string()})).collect();
        let mut signals: Vec<Value> = edges.iter().filter(|e| e.0 == j).map(|e| json!(format!("s{}_{}", e.0, e.1))).collect();
        signals.push(json!(format!("s{j}_end")));
        semaphores.extend(signals.iter().cloned());
        let mut op = json!({"op": "queue_submit", "queue": queue_of(&p), "command_buffers": [name]});
        if !waits.is_empty() {
            op["wait_semaphores"] = Value::Array(waits);
        }
        if !signals.is_empty() {
            op["signal_semaphores"] = Value::Array(signals);
        }
        submits.push(op);
    }
    // A last submission, of no command buffer, on the compute queue waits for every pass's end
    // and signals the fence: the host's wait then covers every queue.
    let mut last = json!({"op": "queue_submit", "queue": "compute", "command_buffers": [], "wait_semaphores": (0..n).map(|j| json!({"semaphore": format!("s{j}_end"), "stage_mask": "ALL_COMMANDS"})).collect::<Vec<_>>()});
    if !fence.is_null() {
        last["fence"] = fence;
    }
    submits.push(last);
    let mut timeline: Vec<Value> = out["timeline"].as_array().cloned().unwrap_or_default();
    timeline.splice(g.submit..=g.submit, submits);
    let mut queues: Vec<Value> = out["queues"].as_array().cloned().unwrap_or_default();
    for q in ["compute", "transfer"] {
        if !queues.iter().any(|x| x == q) {
            queues.push(json!(q));
        }
    }
    out["queues"] = Value::Array(queues);
    out["semaphores"] = Value::Array(semaphores);
    out["command_buffers"] = Value::Array(cbs);
    out["timeline"] = Value::Array(timeline);
    out
}

/// What proving a strategy's trace found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No hazard, and no schedule on any of the profiles corrupted: per profile, in their order,
    /// the median run (by cycles) of the timed schedules.
    Proven(Vec<RunRecord>),
    /// Wrong: why (the first hazard, or the profile and seed that corrupted).
    Wrong(String),
}

/// Proves the strategy trace `t` and times it: no hazard, and on each of `profiles` the first
/// `prove` seeded schedules, and the first `time` (the same runs where they overlap, every one
/// of them checked), clean; the median of the first `time` is the profile's timing.
pub fn prove(t: &LoadedTrace, profiles: &[Profile], prove: u64, time: u64) -> Result<Verdict, ExperimentError> {
    let hazards = sim_core::hazard::detect(&t.workload).map_err(|e| ExperimentError::new(&t.name, t.locate_engine_error(&e).to_string()))?;
    if let Some(h) = hazards.first() {
        let at = match &h.at {
            sim_core::hazard::Place::Command(c) => c.to_string(),
            sim_core::hazard::Place::Host { timeline } => format!("the host's timeline[{timeline}]"),
        };
        return Ok(Verdict::Wrong(format!("{} hazard(s), the first {} at {at}", hazards.len(), h.id)));
    }
    let mut timings = Vec::with_capacity(profiles.len());
    for p in profiles {
        let mut runs: Vec<RunRecord> = Vec::new();
        for seed in 0..prove.max(time).max(1) {
            let r = run_workload_with(&t.workload, p, seed, &RunOptions::default()).map_err(|e| ExperimentError::new(&t.name, t.locate_engine_error(&e).to_string()))?;
            if r.corrupted() {
                return Ok(Verdict::Wrong(format!("corrupted on {} with seed {seed} ({} stale reads)", p.name, r.stale_reads)));
            }
            runs.push(RunRecord::of(seed, &r));
        }
        runs.truncate(time.max(1) as usize);
        runs.sort_by_key(|r| r.cycles);
        timings.push(runs.swap_remove((runs.len() - 1) / 2));
    }
    Ok(Verdict::Proven(timings))
}
