//! The reference run: the same program executed in submission order, one command at a time, on
//! flat coherent memory (no caches, no overlap), workgroups in linear id order and subgroups
//! round-robin one step at a time. A correctly synchronized program must read and leave exactly
//! what this run does, on every profile and seed.

use std::collections::{HashMap, HashSet, VecDeque};

use sim_caches::{AccessError, BackingStore, MemoryLevel, Tag, Tags, word_span};
use sim_shader::{BindingKind, ImageShape, MemOp, Step, WorkgroupConfig};

use crate::engine::bindings::resolve;
use crate::api::error::WorkloadError;
use crate::engine::exec::{Port, Scratch, lane_reads, perform, tags_fingerprint};
use crate::engine::texture::{TexScratch, perform_image};
use crate::engine::machine::Served;
use crate::api::program::Program;
use crate::engine::stream::{NodeKind, Stream};
use crate::engine::rng::fingerprint;
use crate::engine::chunks::{ChunkData, transfer_chunks};
use crate::engine::limits::{InstructionBudget, RunLimits};
use crate::engine::record::{ReadKey, ReadPrint, ReadTruth, ReferenceHostRead};
use crate::api::action::Work;
use crate::api::workload::HostOp;

/// What the reference run produced.
pub struct Reference {
    /// Device memory at the end.
    pub memory: BackingStore,
    /// Every read's fingerprint, the details asked for, and every host read.
    pub truth: ReadTruth,
    /// Shader instructions executed (summed over subgroups).
    pub instructions: u64,
    /// The bytes each dispatch instance accessed, when asked for.
    pub accesses: HashMap<usize, DispatchAccesses>,
}

/// The bytes one dispatch's shaders accessed in the reference run, as coalesced address
/// ranges per kind of access: what the hazard detector checks instead of the whole bound ranges
/// when the program has run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchAccesses {
    /// Loads through uniform buffers.
    pub uniform_reads: RangeSet,
    /// Loads through storage buffers and storage images.
    pub storage_reads: RangeSet,
    /// Texel reads through sampled images (the texture path).
    pub sampled_reads: RangeSet,
    /// Plain stores through storage buffers and storage images.
    pub storage_writes: RangeSet,
    /// Plain loads at the coherence point (`Coherent` buffers).
    pub coherent_reads: RangeSet,
    /// Plain stores at the coherence point (`Coherent` buffers).
    pub coherent_writes: RangeSet,
    /// Atomic loads (made at the coherence point). Kept apart from the plain accesses: two
    /// atomic operations on the same bytes are never a data race.
    pub atomic_reads: RangeSet,
    /// Atomic stores and read-modify-writes (made at the coherence point).
    pub atomic_writes: RangeSet,
}

impl DispatchAccesses {
    /// Every set, plain and atomic.
    pub fn sets(&self) -> [&RangeSet; 8] {
        [&self.uniform_reads, &self.storage_reads, &self.sampled_reads, &self.storage_writes, &self.coherent_reads, &self.coherent_writes, &self.atomic_reads, &self.atomic_writes]
    }

    /// Whether the dispatch performed an atomic: what it accessed may then depend on which
    /// invocation won (a ticket that picks the buffer read), so another execution may access
    /// bytes this one did not, and the hazard detector takes its bound ranges instead.
    pub fn atomics(&self) -> bool {
        !self.atomic_reads.is_empty() || !self.atomic_writes.is_empty()
    }
}

/// Disjoint, non-touching address ranges, merged as they are added (a subgroup's lanes
/// touching consecutive words extend the last range without a search). Past
/// [`RangeSet::MAX_RANGES`] ranges (a gather over a large buffer) it keeps only their hull: a
/// superset of the bytes, so the hazards found from it are never fewer, and adding stays cheap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: std::collections::BTreeMap<u64, u64>,
    last: Option<(u64, u64)>,
    hull: Option<(u64, u64)>,
}

impl RangeSet {
    /// The most separate ranges kept before the set becomes their hull.
    pub const MAX_RANGES: usize = 1024;

    /// Adds `[start, end)`.
    pub fn add(&mut self, start: u64, end: u64) {
        if let Some((s, e)) = self.hull.as_mut() {
            *s = (*s).min(start);
            *e = (*e).max(end);
            return;
        }
        self.add_exact(start, end);
        if self.ranges.len() > Self::MAX_RANGES {
            let lo = self.ranges.keys().next().copied().unwrap_or(start);
            let hi = self.ranges.values().copied().max().unwrap_or(end);
            self.ranges.clear();
            self.last = None;
            self.hull = Some((lo, hi));
        }
    }

    fn add_exact(&mut self, start: u64, end: u64) {
        if let Some((s, e)) = self.last
            && start <= e
            && start >= s
        {
            if end > e {
                self.last = Some((s, end));
                self.ranges.insert(s, end);
                self.merge_from(s);
            }
            return;
        }
        // Merge with every range it touches.
        let mut s = start;
        let mut e = end;
        if let Some((&ps, &pe)) = self.ranges.range(..=start).next_back()
            && pe >= start
        {
            s = ps;
            e = e.max(pe);
        }
        let overlapped: Vec<u64> = self.ranges.range(s..=e).map(|(&k, _)| k).collect();
        for k in overlapped {
            let v = self.ranges.remove(&k).unwrap_or(k);
            e = e.max(v);
        }
        self.ranges.insert(s, e);
        self.last = Some((s, e));
    }

    fn merge_from(&mut self, s: u64) {
        let Some(&e) = self.ranges.get(&s) else { return };
        let mut end = e;
        let next: Vec<(u64, u64)> = self.ranges.range(s + 1..=end).map(|(&k, &v)| (k, v)).collect();
        for (k, v) in next {
            self.ranges.remove(&k);
            end = end.max(v);
        }
        self.ranges.insert(s, end);
        self.last = Some((s, end));
    }

    /// The ranges, in address order (one, the hull, past [`RangeSet::MAX_RANGES`]).
    pub fn iter(&self) -> Box<dyn Iterator<Item = std::ops::Range<u64>> + '_> {
        match self.hull {
            Some((s, e)) => Box::new(std::iter::once(s..e)),
            None => Box::new(self.ranges.iter().map(|(&s, &e)| s..e)),
        }
    }

    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty() && self.hull.is_none()
    }
}

struct Flat<'a>(&'a mut BackingStore);

/// [`Flat`], noting each access in a [`DispatchAccesses`].
struct Noting<'a> {
    flat: Flat<'a>,
    log: &'a mut DispatchAccesses,
    /// The request is an atomic load or store (the port sees only that it is coherent).
    atomic: bool,
}

impl Port for Noting<'_> {
    fn load(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
        let set = match (kind, coherent) {
            _ if self.atomic => &mut self.log.atomic_reads,
            (_, true) => &mut self.log.coherent_reads,
            (BindingKind::UniformBuffer, false) => &mut self.log.uniform_reads,
            (BindingKind::SampledImage { .. }, false) => &mut self.log.sampled_reads,
            (_, false) => &mut self.log.storage_reads,
        };
        set.add(addr, addr + data.len() as u64);
        self.flat.load(cu, kind, coherent, addr, data, tags)
    }

    fn store(&mut self, cu: usize, coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError> {
        let set = match coherent {
            _ if self.atomic => &mut self.log.atomic_writes,
            true => &mut self.log.coherent_writes,
            false => &mut self.log.storage_writes,
        };
        set.add(addr, addr + data.len() as u64);
        self.flat.store(cu, coherent, addr, data, tag)
    }

    fn atomic(&mut self, cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
        self.log.atomic_writes.add(addr, addr + 4);
        self.flat.atomic(cu, addr, old, tag, new)
    }
}

impl Port for Flat<'_> {
    fn load(&mut self, _cu: usize, _kind: BindingKind, _coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
        self.0.read(addr, data, tags)?;
        Ok((0, Served::default()))
    }

    fn store(&mut self, _cu: usize, _coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError> {
        self.0.write(addr, data, Tags::One(tag), None)?;
        Ok(0)
    }

    fn atomic(&mut self, _cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
        let mut t = [0; 1];
        self.0.read(addr, old, &mut t)?;
        let v = new(u32::from_le_bytes(*old));
        self.0.write(addr, &v.to_le_bytes(), Tags::One(tag), None)?;
        Ok(0)
    }
}

/// Runs the reference; `capture` names the reads whose lane-level detail to keep. The budget
/// is [`RunLimits::default`]'s.
pub fn reference_run(prog: &Program<'_>, stream: &Stream, subgroup_size: u32, capture: &HashSet<ReadKey>) -> Result<Reference, WorkloadError> {
    reference_run_with(prog, stream, subgroup_size, capture, &RunLimits::default())
}

/// [`reference_run`] stopped at `limits.max_instructions` shader instructions (it has no
/// cycles).
///
/// Each queue runs its nodes in order, one command at a time, and the queues take turns in
/// submission order; a node whose explicit dependency has not run (a vkCmdWaitEvents2 on an
/// event the host sets later, a semaphore wait whose signal is held back) holds back its own
/// queue only, until the host's vkSetEvent (or the other queue) lets it go.
pub fn reference_run_with(prog: &Program<'_>, stream: &Stream, subgroup_size: u32, capture: &HashSet<ReadKey>, limits: &RunLimits) -> Result<Reference, WorkloadError> {
    reference_run_noting(prog, stream, subgroup_size, capture, limits, false)
}

/// [`reference_run_with`], also noting the bytes each dispatch accessed when `note_accesses`
/// ([`Reference::accesses`]).
pub fn reference_run_noting(prog: &Program<'_>, stream: &Stream, subgroup_size: u32, capture: &HashSet<ReadKey>, limits: &RunLimits, note_accesses: bool) -> Result<Reference, WorkloadError> {
    reference_run_inner(prog, stream, subgroup_size, capture, limits, note_accesses, None, ExecutionOrder::Linear)
}

/// [`reference_run_noting`] in another legal `order` of each dispatch's invocations.
pub fn reference_run_ordered(prog: &Program<'_>, stream: &Stream, subgroup_size: u32, limits: &RunLimits, note_accesses: bool, order: ExecutionOrder) -> Result<Reference, WorkloadError> {
    reference_run_inner(prog, stream, subgroup_size, &HashSet::new(), limits, note_accesses, None, order)
}

/// Where a [`Watch`] looks: just before and just after a command instance, or a host
/// operation (by timeline index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WatchPoint {
    /// A command instance ([`Program::instances`]).
    Command(usize),
    /// A host operation of the timeline.
    Host(usize),
}

/// Byte ranges the reference run hashes just before and just after given commands and host
/// operations: what tells whether a hazard's two accesses could ever leave different bytes
/// (a write that stores the bytes already there cannot).
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// The device address ranges to hash at each point.
    pub ranges: std::collections::BTreeMap<WatchPoint, Vec<std::ops::Range<u64>>>,
    /// The hashes found: (point, after?, range) -> hash of the range's bytes.
    pub hashes: HashMap<(WatchPoint, bool, std::ops::Range<u64>), u64>,
}

impl Watch {
    /// Asks for `range` to be hashed around `point`.
    pub fn add(&mut self, point: WatchPoint, range: std::ops::Range<u64>) {
        let v = self.ranges.entry(point).or_default();
        if !v.contains(&range) {
            v.push(range);
        }
    }

    /// The hash of `range` before (`after` false) or after `point`, once the run has made it.
    pub fn hash(&self, point: WatchPoint, after: bool, range: &std::ops::Range<u64>) -> Option<u64> {
        self.hashes.get(&(point, after, range.clone())).copied()
    }

    fn look(&mut self, mem: &BackingStore, point: WatchPoint, after: bool) -> Result<(), AccessError> {
        let Some(ranges) = self.ranges.get(&point) else { return Ok(()) };
        let mut buf = vec![0u8; 1 << 16];
        let mut tags = vec![0 as Tag; (1 << 14) + 1];
        for r in ranges {
            // The bytes in 64 KiB pieces, hashed as they go: a hazard's range may be large.
            let mut h = 0u64;
            let mut pos = r.start;
            while pos < r.end {
                let n = (r.end - pos).min(1 << 16) as usize;
                let span = word_span(pos, n);
                mem.peek(pos, &mut buf[..n], &mut tags[..span])?;
                h = fingerprint(h, &buf[..n]);
                pos += n as u64;
            }
            self.hashes.insert((point, after, r.clone()), h);
        }
        Ok(())
    }
}

/// [`reference_run_with`], hashing the ranges `watch` names around its points.
pub fn reference_run_watching(prog: &Program<'_>, stream: &Stream, subgroup_size: u32, limits: &RunLimits, watch: &mut Watch) -> Result<(), WorkloadError> {
    reference_run_inner(prog, stream, subgroup_size, &HashSet::new(), limits, false, Some(watch), ExecutionOrder::Linear).map(|_| ())
}

#[allow(clippy::too_many_arguments)]
fn reference_run_inner(
    prog: &Program<'_>,
    stream: &Stream,
    subgroup_size: u32,
    capture: &HashSet<ReadKey>,
    limits: &RunLimits,
    note_accesses: bool,
    mut watch: Option<&mut Watch>,
    order: ExecutionOrder,
) -> Result<Reference, WorkloadError> {
    let w = prog.workload;
    let mut mem = BackingStore::new(prog.address_space.max(1 << 16), 1, 256).map_err(|e| WorkloadError::Invalid { at: "memory".into(), message: e.to_string() })?;
    let mut truth = ReadTruth::default();
    let mut ctx = Ctx {
        capture,
        subgroup_size,
        scratch: Scratch { atomics_last_lane_first: order == ExecutionOrder::Reversed, ..Scratch::default() },
        tex: TexScratch::default(),
        budget: InstructionBudget::new(limits, "the reference run".into()),
        accesses: note_accesses.then(HashMap::new),
        order,
    };
    let mut queues: Vec<VecDeque<usize>> = vec![VecDeque::new(); stream.queues];
    let mut done = vec![false; stream.nodes.len()];
    for (t, op) in w.timeline.iter().enumerate() {
        let err = |e: AccessError| WorkloadError::Execution { at: format!("timeline[{t}]"), message: e.to_string() };
        for i in stream.added[t].clone() {
            // A host gate is the host's vkSetEvent: it runs when the host sets the event.
            if !matches!(stream.nodes[i].kind, NodeKind::HostGate { .. }) {
                queues[stream.nodes[i].queue].push_back(i);
            }
        }
        for &g in &stream.opens[t] {
            done[g] = true;
        }
        if let Some(watch) = watch.as_deref_mut() {
            watch.look(&mem, WatchPoint::Host(t), false).map_err(err)?;
        }
        match op {
            HostOp::HostWrite { memory, offset, data } => {
                mem.write(prog.memory_base[*memory] + offset, data, Tags::One(prog.host_tags[t]), None).map_err(err)?;
            }
            HostOp::HostRead { memory, offset, size, .. } => {
                let addr = prog.memory_base[*memory] + offset;
                let mut bytes = vec![0u8; *size as usize];
                let mut word_tags = vec![0; word_span(addr, bytes.len())];
                mem.read(addr, &mut bytes, &mut word_tags).map_err(err)?;
                truth.host_reads.insert(t, ReferenceHostRead { addr, bytes, word_tags });
            }
            _ => {}
        }
        if let Some(watch) = watch.as_deref_mut() {
            watch.look(&mem, WatchPoint::Host(t), true).map_err(err)?;
        }
        // Run what can run: the earliest-submitted head of a queue whose explicit dependencies
        // have run, until none can.
        loop {
            let next = queues.iter().filter_map(|q| q.front().copied()).filter(|&i| stream.nodes[i].explicit.iter().all(|&d| done[d])).min();
            let Some(i) = next else { break };
            queues[stream.nodes[i].queue].pop_front();
            if let NodeKind::Action { inst, .. } = stream.nodes[i].kind {
                if let Some(watch) = watch.as_deref_mut() {
                    watch.look(&mem, WatchPoint::Command(inst), false).map_err(err)?;
                }
                run_command(prog, inst, &mut mem, &mut truth, &mut ctx)?;
                if let Some(watch) = watch.as_deref_mut() {
                    watch.look(&mem, WatchPoint::Command(inst), true).map_err(err)?;
                }
            }
            done[i] = true;
        }
    }
    Ok(Reference { memory: mem, truth, instructions: ctx.budget.used(), accesses: ctx.accesses.unwrap_or_default() })
}

/// What every command of a reference run shares: which reads to capture in detail, the
/// subgroup size, buffers reused from one memory request to the next, and the instruction
/// budget.
struct Ctx<'c> {
    capture: &'c HashSet<ReadKey>,
    subgroup_size: u32,
    scratch: Scratch,
    tex: TexScratch,
    budget: InstructionBudget,
    /// Where to note each dispatch's accesses, when asked.
    accesses: Option<HashMap<usize, DispatchAccesses>>,
    /// The order workgroups, subgroups and atomic lanes take.
    order: ExecutionOrder,
}

/// An order in which the reference run executes a dispatch's invocations. Every one is a legal
/// execution of a correctly synchronized program; bytes that differ between them depend on
/// timing (which invocation an atomic picks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExecutionOrder {
    /// Workgroups by linear id, subgroups round-robin from the first, atomics lane by lane
    /// ascending: the reference run.
    #[default]
    Linear,
    /// Everything from the last: workgroups, subgroups and atomic lanes.
    Reversed,
    /// Workgroups from the middle one on, wrapping around; subgroups from the last.
    Rotated,
}

fn run_command(
    prog: &Program<'_>,
    inst: usize,
    mem: &mut BackingStore,
    truth: &mut ReadTruth,
    ctx: &mut Ctx<'_>,
) -> Result<(), WorkloadError> {
    let Ctx { capture, subgroup_size, scratch, tex, budget, accesses, order } = ctx;
    let order = *order;
    let (capture, subgroup_size) = (*capture, *subgroup_size);
    let w = prog.workload;
    let ins = &prog.instances[inst];
    let exec = |e: &dyn std::fmt::Display| WorkloadError::Execution { at: ins.at.to_string(), message: e.to_string() };
    // Synchronization orders nothing here: this run is already in order and coherent.
    let Some(action) = prog.action(inst) else { return Ok(()) };
    match &action.work {
        work @ (Work::Fill { .. } | Work::Update { .. } | Work::Copy { .. } | Work::Clear { .. } | Work::Blit { .. }) => {
            let (mut data, mut tags) = (Vec::new(), Vec::new());
            for c in transfer_chunks(inst, work) {
                c.bytes_into(work, &mut data);
                match c.data {
                    ChunkData::Pattern(_) | ChunkData::Texel(..) | ChunkData::Inline(_) => {}
                    // Each source segment a read, as a copy chunk's is.
                    ChunkData::Blit(run) => {
                        let Work::Blit { src, .. } = work else { unreachable!("a blit's chunk") };
                        let src = *src;
                        crate::engine::blit::run_bytes(
                            prog,
                            work,
                            run,
                            &mut |segment, s, buf| {
                                let key = crate::engine::blit::segment_key(inst, run, segment);
                                read_transfer_source(mem, truth, capture, key, (src, s.offset, s.addr), buf, &mut tags, &ins.at)
                            },
                            &mut data,
                        )?;
                    }
                    ChunkData::Copy => {
                        let (addr, buffer, offset) = c.src.expect("copy chunks have a source");
                        read_transfer_source(mem, truth, capture, c.key, (buffer, offset, addr), &mut data, &mut tags, &ins.at)?;
                    }
                }
                mem.write(c.dst, &data, Tags::One(ins.tag), None).map_err(|e| exec(&e))?;
            }
        }
        work @ (Work::Draw(_) | Work::Attachments(_)) => {
            let mut port = RefGraphics { mem, truth, capture, at: &ins.at };
            crate::engine::graphics::run_graphics(prog, inst, work, &mut port, subgroup_size)?;
        }
        Work::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images } => {
            let p = &w.pipelines[*pipeline].1;
            let bound = resolve(prog, p.bindings(), bindings, images).map_err(|m| WorkloadError::Invalid { at: ins.at.to_string(), message: m })?;
            let sizes: Vec<u64> = bound.iter().map(|b| b.range).collect();
            let shapes: Vec<ImageShape> = bound.iter().map(|b| b.view.as_ref().map(|v| v.shape()).unwrap_or_default()).collect();
            let mut noted = accesses.as_ref().map(|_| DispatchAccesses::default());
            let [gx, gy, gz] = *group_count;
            let total = gx as u64 * gy as u64 * gz as u64;
            for k in 0..total {
                let wg_index = match order {
                    ExecutionOrder::Linear => k,
                    ExecutionOrder::Reversed => total - 1 - k,
                    ExecutionOrder::Rotated => (k + total / 2) % total,
                };
                let cfg = WorkgroupConfig {
                    workgroup_id: crate::engine::bindings::workgroup_id(wg_index, *group_count, *base_group),
                    num_workgroups: *group_count,
                    subgroup_size,
                    push_constants,
                    binding_sizes: &sizes,
                    image_shapes: &shapes,
                    max_instructions: budget.subgroup_limit(),
                };
                let mut wg = p.workgroup(&cfg).map_err(|e| exec(&e))?;
                let n = wg.num_subgroups();
                let mut loads = vec![0u32; n];
                let mut done = vec![false; n];
                let mut seen = vec![0u64; n];
                while done.iter().any(|d| !d) {
                    for j in 0..n {
                        let sg = if order == ExecutionOrder::Linear { j } else { n - 1 - j };
                        if done[sg] {
                            continue;
                        }
                        match wg.step(sg).map_err(|e| budget.shader_error(e, || ins.at.to_string(), 0))? {
                            Step::Memory(req) => {
                                let performed = match noted.as_mut() {
                                    Some(log) => perform(&mut Noting { flat: Flat(mem), log, atomic: req.atomic }, 0, req, &bound, ins.tag, scratch),
                                    None => perform(&mut Flat(mem), 0, req, &bound, ins.tag, scratch),
                                }
                                .map_err(|e| exec(&e))?;
                                if req.op == MemOp::Load && !req.atomic {
                                    let key = ReadKey { inst: inst as u32, a: wg_index as u32, b: sg as u32, c: loads[sg], d: 0 };
                                    loads[sg] += 1;
                                    note_load(truth, capture, key, &performed, req, &bound, scratch, &|| ins.at.to_string())?;
                                }
                                wg.complete(sg, &scratch.results).map_err(|e| exec(&e))?;
                            }
                            // An image request is recorded as the byte request it lowers to.
                            Step::Image(ir) => {
                                let performed = match noted.as_mut() {
                                    Some(log) => perform_image(&mut Noting { flat: Flat(mem), log, atomic: false }, 0, ir, &bound, ins.tag, scratch, tex),
                                    None => perform_image(&mut Flat(mem), 0, ir, &bound, ins.tag, scratch, tex),
                                }
                                .map_err(|e| exec(&e))?;
                                let req = tex.req.as_ref().expect("lowered");
                                if req.op == MemOp::Load {
                                    let key = ReadKey { inst: inst as u32, a: wg_index as u32, b: sg as u32, c: loads[sg], d: 0 };
                                    loads[sg] += 1;
                                    note_load(truth, capture, key, &performed, req, &bound, scratch, &|| ins.at.to_string())?;
                                }
                                wg.complete_image(sg, &tex.words).map_err(|e| exec(&e))?;
                            }
                            Step::Done => done[sg] = true,
                            Step::Barrier { .. } | Step::Blocked => {}
                        }
                        let ran = wg.subgroup_stats(sg).instructions;
                        if budget.spend(ran - seen[sg]) {
                            return Err(budget.spent(ins.at.to_string(), 0));
                        }
                        seen[sg] = ran;
                    }
                }
            }
            if let (Some(map), Some(log)) = (accesses.as_mut(), noted) {
                map.insert(inst, log);
            }
        }
    }
    Ok(())
}

/// Flat memory as graphics work reaches it in the reference run: every read recorded.
struct RefGraphics<'a> {
    mem: &'a mut BackingStore,
    truth: &'a mut ReadTruth,
    capture: &'a HashSet<ReadKey>,
    at: &'a crate::api::program::CommandRef,
}

impl Port for RefGraphics<'_> {
    fn load(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
        Flat(self.mem).load(cu, kind, coherent, addr, data, tags)
    }

    fn store(&mut self, cu: usize, coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError> {
        Flat(self.mem).store(cu, coherent, addr, data, tag)
    }

    fn atomic(&mut self, cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
        Flat(self.mem).atomic(cu, addr, old, tag, new)
    }
}

impl crate::engine::graphics::GraphicsPort for RefGraphics<'_> {
    fn fixed_read(&mut self, key: ReadKey, resource: usize, offset: u64, addr: u64, buf: &mut [u8], _what: crate::engine::graphics::Fixed) -> Result<u64, WorkloadError> {
        let mut tags = Vec::new();
        read_transfer_source(self.mem, self.truth, self.capture, key, (resource, offset, addr), buf, &mut tags, self.at)?;
        Ok(0)
    }

    fn rop_write(&mut self, addr: u64, data: &[u8], tag: Tag) -> Result<u64, WorkloadError> {
        self.mem.write(addr, data, Tags::One(tag), None).map_err(|e| WorkloadError::Execution { at: self.at.to_string(), message: e.to_string() })?;
        Ok(0)
    }

    fn shader_load(&mut self, key: ReadKey, performed: &crate::engine::exec::Performed, req: &sim_shader::MemRequest, bound: &[crate::engine::bindings::Bound], scratch: &Scratch) -> Result<(), WorkloadError> {
        let at = self.at;
        note_load(self.truth, self.capture, key, performed, req, bound, scratch, &|| at.to_string())
    }

    fn strict(&self) -> bool {
        true
    }
}

/// Records load `key` of a dispatch (`at` names its command): its fingerprint, and its lanes'
/// reads when `capture` asks for them.
#[allow(clippy::too_many_arguments)]
fn note_load(truth: &mut ReadTruth, capture: &HashSet<ReadKey>, key: ReadKey, performed: &crate::engine::exec::Performed, req: &sim_shader::MemRequest, bound: &[crate::engine::bindings::Bound], scratch: &Scratch, at: &dyn Fn() -> String) -> Result<(), WorkloadError> {
    let print = ReadPrint { bytes: performed.fingerprint, addrs: performed.addrs, writers: tags_fingerprint(performed.addrs, &scratch.tags) };
    record_read(truth, key, print, MAX_RECORDED_READS, at, "a shader that never ends?")?;
    if capture.contains(&key) {
        truth.captured.insert(key, lane_reads(req, bound, scratch));
    }
    Ok(())
}

/// The most reads the reference run records (each subgroup load request and each copy chunk,
/// a fingerprint the simulated run's same read is compared with): 2^23, at most about 650 MB of
/// table while it grows.
/// A shader that never ends reaches it long before its instruction budget when it loads in its
/// loop, which once grew the table until an allocation of 3 GB failed (2^24 reads peaked at
/// 1.2 GB).
pub const MAX_RECORDED_READS: usize = 1 << 23;

/// Records the fingerprint of the read `key`, keeping at most `max` reads ([`MAX_RECORDED_READS`]);
/// `at` names the command for the error, and `guess` what may have led there.
/// A transfer's read of its source (a copy chunk, a blit segment) at `(buffer, offset in it,
/// device address)` into `buf`: read from `mem`, its fingerprint recorded under `key`, and its
/// bytes kept where `capture` asks for them.
#[allow(clippy::too_many_arguments)]
fn read_transfer_source(
    mem: &mut BackingStore,
    truth: &mut ReadTruth,
    capture: &HashSet<ReadKey>,
    key: ReadKey,
    (buffer, offset, addr): (usize, u64, u64),
    buf: &mut [u8],
    tags: &mut Vec<Tag>,
    at: &crate::api::program::CommandRef,
) -> Result<(), WorkloadError> {
    tags.clear();
    tags.resize(word_span(addr, buf.len()), 0);
    mem.read(addr, buf, tags).map_err(|e| WorkloadError::Execution { at: at.to_string(), message: e.to_string() })?;
    let print = ReadPrint { bytes: fingerprint(0, buf), addrs: 0, writers: tags_fingerprint(0, tags) };
    record_read(truth, key, print, MAX_RECORDED_READS, || at.to_string(), "copies of more than 2 GiB in all?")?;
    if capture.contains(&key) {
        let byte_tags = crate::engine::exec::byte_tags(tags, addr, addr, buf.len() as u64);
        truth.captured.insert(key, vec![crate::engine::exec::LaneRead { lane: 0, buffer, offset, bytes: buf.to_vec(), byte_tags, via: "" }]);
    }
    Ok(())
}

fn record_read(truth: &mut ReadTruth, key: ReadKey, fp: ReadPrint, max: usize, at: impl FnOnce() -> String, guess: &str) -> Result<(), WorkloadError> {
    if truth.fingerprints.len() >= max && !truth.fingerprints.contains_key(&key) {
        return Err(WorkloadError::Execution {
            at: at(),
            message: format!("the reference run recorded {max} reads (subgroup load requests, and copy chunks of 256 bytes), the most it keeps to compare the simulated run with, and was stopped; {guess}"),
        });
    }
    truth.fingerprints.insert(key, fp);
    Ok(())
}

/// Whether command instance `x` accesses any byte of device addresses `range` (`accesses`: what
/// each dispatch accessed in the reference run; a dispatch without a record counts as touching).
pub(crate) fn instance_touches(prog: &Program<'_>, accesses: &HashMap<usize, DispatchAccesses>, x: usize, range: (u64, u64)) -> bool {
    let (lo, hi) = (range.0, range.0 + range.1);
    let meets = |r: std::ops::Range<u64>| r.start < hi && lo < r.end;
    match prog.action(x) {
        Some(a) if !a.work.is_transfer() => accesses.get(&x).is_none_or(|d| d.sets().iter().any(|set| set.iter().any(&meets))),
        Some(a) => a.touches(&(lo..hi)),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_sets_merge_and_fall_back_to_their_hull() {
        let mut r = RangeSet::default();
        r.add(0, 4);
        r.add(4, 8);
        r.add(16, 20);
        r.add(6, 18);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![0..20]);
        let mut g = RangeSet::default();
        for k in 0..(RangeSet::MAX_RANGES as u64 + 10) {
            g.add(1000 + 8 * k, 1000 + 8 * k + 4);
        }
        let ranges: Vec<_> = g.iter().collect();
        assert_eq!(ranges.len(), 1, "past the cap: the hull");
        assert_eq!(ranges[0], 1000..1000 + 8 * (RangeSet::MAX_RANGES as u64 + 9) + 4);
    }

    /// The table of reads stops growing at its cap with an error naming the command; a read
    /// already recorded may be recorded again.
    #[test]
    fn recorded_reads_are_capped() {
        let mut truth = ReadTruth::default();
        let key = |c| ReadKey { inst: 0, a: 0, b: 0, c, d: 0 };
        let print = |bytes| ReadPrint { bytes, addrs: 0, writers: 0 };
        for c in 0..3 {
            record_read(&mut truth, key(c), print(u64::from(c)), 3, || unreachable!(), "").unwrap();
        }
        record_read(&mut truth, key(1), print(7), 3, || unreachable!(), "").unwrap();
        let e = record_read(&mut truth, key(3), print(0), 3, || "submit 0 cb0[2]".into(), "a shader that never ends?").unwrap_err().to_string();
        assert!(e.contains("submit 0 cb0[2]") && e.contains("recorded 3 reads") && e.ends_with("a shader that never ends?"), "{e}");
        assert_eq!(truth.fingerprints.len(), 3);
    }
}
