//! The compute units' dispatcher: which workgroup of which dispatch goes to which CU, when.
//!
//! # Design
//! A dispatch's workgroups are placed in order, each on a CU with a free workgroup slot chosen
//! from the dispatcher's own random stream of the seed; a workgroup's subgroups start after the
//! launch latency plus their CU's own jitter. The dispatcher owns the dispatches, the slots and
//! each CU's free-slot count.
//!
//! A subgroup steps on its CU: the interpreter runs ahead to its next memory operation,
//! barrier or end, and the unit performs that at the cycle the instructions before it are
//! paid for (one cycle each, plus workgroup-memory latency), then the memory request through
//! the machine's named path with the CU's own jitter. Control barriers release a workgroup's
//! subgroups together; the last subgroup of the last workgroup finishes the dispatch's queue
//! item.

use std::sync::Arc;

use sim_caches::{AccessError, Tag};
use sim_shader::{BindingKind, ComputePipeline, ImageShape, MemOp, Step, Workgroup, WorkgroupConfig};

use crate::api::action::Work;
use crate::api::error::WorkloadError;
use crate::engine::bindings::{Bound, resolve};
use crate::engine::exec::{Port, Scratch, perform};
use crate::engine::texture::{TexScratch, perform_image};
use crate::engine::machine::{Machine, PathName, Served};
use crate::engine::oracle::Load;
use crate::engine::record::ReadKey;
use crate::engine::rng::Rng;
use crate::engine::units::{Cx, Ev, exec_err};

/// A dispatch the compute units are running.
struct DispatchRun {
    item: usize,
    inst: usize,
    pipeline: Arc<ComputePipeline>,
    bound: Arc<Vec<Bound>>,
    sizes: Vec<u64>,
    shapes: Vec<ImageShape>,
    push: Vec<u8>,
    group_count: [u32; 3],
    base_group: [u32; 3],
    next_wg: u64,
    total_wg: u64,
    done_wg: u64,
}

/// Where a subgroup is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SgState {
    Running,
    AtBarrier,
    Done,
}

/// A workgroup slot of a CU, holding a workgroup.
struct Slot {
    dispatch: usize,
    wg_index: u64,
    cu: usize,
    wg: Option<Workgroup>,
    sg_state: Vec<SgState>,
    loads: Vec<u32>,
    instr_seen: Vec<u64>,
    /// Per subgroup: workgroup-memory lane accesses already charged.
    shared_seen: Vec<u64>,
    start: u64,
    /// Per subgroup: what it does when its compute is done (the interpreter ran ahead).
    deferred: Vec<Deferred>,
}

/// What a subgroup does once the instructions it ran before it are paid for: the interpreter
/// runs to the next memory operation, barrier or end at once, and the engine performs that
/// operation at the cycle the compute before it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deferred {
    /// Nothing pending: step the interpreter.
    None,
    /// Perform the memory request it yielded.
    Memory,
    /// Arrive at the control barrier it reached.
    Barrier,
    /// Finish.
    Done,
}


/// A subgroup placed: (slot, subgroup, cycle of its first step).
type Start = (usize, usize, u64);

/// The compute units' dispatcher and what it placed.
pub(crate) struct ComputeUnits {
    /// Every dispatch started, by index.
    dispatches: Vec<DispatchRun>,
    /// Dispatches with workgroups still to finish.
    active: Vec<usize>,
    /// Workgroup slots in use or free to reuse.
    slots: Vec<Slot>,
    /// Slots free to reuse.
    free: Vec<usize>,
    /// Per CU: workgroup slots free.
    cu_free: Vec<u32>,
    /// Which CU a workgroup lands on: the dispatcher's own stream.
    placement: Rng,
    /// Per CU: its own stream (latency jitter of its accesses and launches).
    cu_rng: Vec<Rng>,
    /// Lanes per subgroup.
    subgroup_size: u32,
    /// Cycles per shader instruction of a subgroup.
    cycles_per_instruction: u64,
    /// Cycles per subgroup-wide access to workgroup (shared) memory.
    shared_memory_cycles: u64,
    launch_cycles: u64,
    jitter_cycles: u64,
    /// A memory request's lanes and results, reused from request to request.
    scratch: Scratch,
    tex: TexScratch,
    /// Shader instructions executed (summed over subgroups) by finished workgroups.
    instructions: u64,
    /// Lane-operations executed by finished workgroups.
    lane_ops: u64,
}

impl ComputeUnits {
    /// The profile's `compute_units` idle CUs as its `[machine.cu]` section describes them, at
    /// its timing, drawing from `seed`.
    pub(crate) fn new(machine: &crate::profile::Machine, timing: &crate::profile::Timing, seed: u64) -> ComputeUnits {
        let cus = machine.compute_units;
        ComputeUnits {
            dispatches: Vec::new(),
            active: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            cu_free: vec![machine.cu.workgroup_slots; cus as usize],
            placement: Rng::for_unit(seed, "placement"),
            cu_rng: (0..cus).map(|c| Rng::for_unit(seed, &format!("cu{c}"))).collect(),
            subgroup_size: machine.cu.subgroup_size,
            // The interpreter's instructions are one issue each.
            cycles_per_instruction: 1,
            shared_memory_cycles: u64::from(timing.shared_memory_cycles),
            launch_cycles: u64::from(timing.dispatch_launch_cycles),
            jitter_cycles: u64::from(timing.latency_jitter_cycles),
            scratch: Scratch::default(),
            tex: TexScratch::default(),
            instructions: 0,
            lane_ops: 0,
        }
    }

    /// Takes a dispatch; false when it has no workgroups (it is done at once).
    fn start(&mut self, run: DispatchRun) -> bool {
        let has_work = run.total_wg > 0;
        self.dispatches.push(run);
        if has_work {
            self.active.push(self.dispatches.len() - 1);
        }
        has_work
    }

    /// Places workgroups on free slots at cycle `now` while there are both, each subgroup
    /// limited to `max_instructions`: the (slot, subgroup, cycle) of each subgroup's first step.
    /// A workgroup that cannot be built is an error of its dispatch's instance.
    fn place(&mut self, now: u64, max_instructions: u64) -> Result<Vec<Start>, (usize, sim_shader::ShaderError)> {
        let mut starts = Vec::new();
        loop {
            let Some(&d) = self.active.iter().find(|&&d| self.dispatches[d].next_wg < self.dispatches[d].total_wg) else {
                return Ok(starts);
            };
            let free: Vec<usize> = (0..self.cu_free.len()).filter(|&c| self.cu_free[c] > 0).collect();
            if free.is_empty() {
                return Ok(starts);
            }
            // Which CU a workgroup lands on is the hardware's choice: the seed decides.
            let cu = free[self.placement.below(free.len() as u64) as usize];
            self.cu_free[cu] -= 1;
            let dr = &mut self.dispatches[d];
            let wg_index = dr.next_wg;
            dr.next_wg += 1;
            let cfg = WorkgroupConfig {
                workgroup_id: crate::engine::bindings::workgroup_id(wg_index, dr.group_count, dr.base_group),
                num_workgroups: dr.group_count,
                subgroup_size: self.subgroup_size,
                push_constants: &dr.push,
                binding_sizes: &dr.sizes,
                image_shapes: &dr.shapes,
                max_instructions,
            };
            let wg = dr.pipeline.workgroup(&cfg).map_err(|e| (dr.inst, e))?;
            let n = wg.num_subgroups();
            let slot = Slot {
                dispatch: d,
                wg_index,
                cu,
                wg: Some(wg),
                sg_state: vec![SgState::Running; n],
                loads: vec![0; n],
                instr_seen: vec![0; n],
                shared_seen: vec![0; n],
                start: now,
                deferred: vec![Deferred::None; n],
            };
            let s = match self.free.pop() {
                Some(s) => {
                    self.slots[s] = slot;
                    s
                }
                None => {
                    self.slots.push(slot);
                    self.slots.len() - 1
                }
            };
            for sg in 0..n {
                let j = self.cu_rng[cu].below(self.jitter_cycles + 1);
                starts.push((s, sg, now + self.launch_cycles + j));
            }
        }
    }

    /// The workgroup in slot `s` finished: its slot is free; the queue item of its dispatch
    /// when that was its last workgroup.
    fn free_slot(&mut self, s: usize) -> Option<usize> {
        let slot = &self.slots[s];
        let d = slot.dispatch;
        self.cu_free[slot.cu] += 1;
        self.free.push(s);
        let dr = &mut self.dispatches[d];
        dr.done_wg += 1;
        if dr.done_wg == dr.total_wg {
            let item = dr.item;
            self.active.retain(|&x| x != d);
            return Some(item);
        }
        None
    }
    /// Shader instructions (summed over subgroups) and lane-operations executed.
    pub(crate) fn executed(&self) -> (u64, u64) {
        (self.instructions, self.lane_ops)
    }

    /// Starts dispatch `work` of command instance `inst`, queue item `i`: its workgroups are
    /// placed as slots free up; an empty dispatch is released at once.
    pub(crate) fn start_action(&mut self, i: usize, inst: usize, work: &Work<'_>, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let Work::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images } = work else { return Ok(()) };
        let ins = &cx.prog.instances[inst];
        let p = cx.prog.workload.pipelines[*pipeline].1.clone();
        let bound = resolve(cx.prog, p.bindings(), bindings, images).map_err(|m| WorkloadError::Invalid { at: ins.at.to_string(), message: m })?;
        let total_wg = group_count.iter().map(|&g| g as u64).product();
        let sizes = bound.iter().map(|b| b.range).collect();
        let shapes = bound.iter().map(|b| b.view.as_ref().map(|v| v.shape()).unwrap_or_default()).collect();
        let has_work = self.start(DispatchRun {
            item: i,
            inst,
            pipeline: p,
            bound: Arc::new(bound),
            sizes,
            shapes,
            push: push_constants.to_vec(),
            group_count: *group_count,
            base_group: *base_group,
            next_wg: 0,
            total_wg,
            done_wg: 0,
        });
        if !has_work {
            cx.release(cx.now(), i);
        }
        Ok(())
    }

    /// Places workgroups on free slots now, and schedules their subgroups' first steps.
    pub(crate) fn place_workgroups(&mut self, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let limit = cx.budget.instructions.subgroup_limit();
        let starts = self.place(cx.now(), limit).map_err(|(inst, e)| exec_err(cx.prog.instances[inst].at.to_string(), e))?;
        for (s, sg, at) in starts {
            self.schedule_step(cx, at, s, sg);
        }
        Ok(())
    }

    fn schedule_step(&self, cx: &mut Cx<'_, '_, '_>, at: u64, s: usize, sg: usize) {
        let unit = cx.clock.units.cu(self.slots[s].cu);
        cx.clock.schedule(at, unit, Ev::Step(s, sg));
    }

    /// Steps subgroup `sg` of the workgroup in slot `s`.
    pub(crate) fn step(&mut self, s: usize, sg: usize, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let mut wg = self.slots[s].wg.take().expect("a scheduled slot holds its workgroup");
        let result = self.step_inner(s, sg, &mut wg, cx);
        self.slots[s].wg = Some(wg);
        result
    }

    fn step_inner(&mut self, s: usize, sg: usize, wg: &mut Workgroup, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let d = self.slots[s].dispatch;
        let inst = self.dispatches[d].inst;
        let at = || cx.prog.instances[inst].at.to_string();
        let cpi = self.cycles_per_instruction;
        let deferred = std::mem::replace(&mut self.slots[s].deferred[sg], Deferred::None);
        let step = match deferred {
            Deferred::Memory => return self.perform_request(s, sg, wg, cx),
            Deferred::Barrier => {
                self.slots[s].sg_state[sg] = SgState::AtBarrier;
                self.release_barrier(s, cx);
                return Ok(());
            }
            Deferred::Done => {
                self.subgroup_done(s, sg, wg, cx);
                return Ok(());
            }
            Deferred::None => match wg.step(sg) {
                Ok(step) => step,
                Err(e) => {
                    cx.budget.spent_in = Some(inst);
                    return Err(cx.budget.instructions.shader_error(e, at, cx.observers.stale_count()));
                }
            },
        };
        // What the subgroup reached happens when the instructions before it are done.
        let (compute, next) = match step {
            Step::Memory(_) | Step::Image(_) => (self.compute_cycles(s, sg, wg, cpi, cx)?, Deferred::Memory),
            Step::Barrier { control: false, .. } => {
                let compute = self.compute_cycles(s, sg, wg, cpi, cx)?;
                self.schedule_step(cx, cx.now() + 1 + compute, s, sg);
                return Ok(());
            }
            Step::Barrier { control: true, .. } | Step::Blocked => (self.compute_cycles(s, sg, wg, cpi, cx)?, Deferred::Barrier),
            Step::Done => (self.compute_cycles(s, sg, wg, cpi, cx)?, Deferred::Done),
        };
        if compute > 0 {
            self.slots[s].deferred[sg] = next;
            self.schedule_step(cx, cx.now() + compute, s, sg);
            return Ok(());
        }
        self.slots[s].deferred[sg] = next;
        self.step_inner(s, sg, wg, cx)
    }

    /// Finishes subgroup `sg` of slot `s`, and its workgroup when it was the last.
    fn subgroup_done(&mut self, s: usize, sg: usize, wg: &Workgroup, cx: &mut Cx<'_, '_, '_>) {
        self.slots[s].sg_state[sg] = SgState::Done;
        if self.slots[s].sg_state.iter().all(|&x| x == SgState::Done) {
            self.workgroup_done(s, wg, cx);
        } else {
            self.release_barrier(s, cx);
        }
    }

    /// Performs the memory request subgroup `sg` yielded, now that its compute is done.
    fn perform_request(&mut self, s: usize, sg: usize, wg: &mut Workgroup, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let d = self.slots[s].dispatch;
        let inst = self.dispatches[d].inst;
        let at = || cx.prog.instances[inst].at.to_string();
        let tag = cx.prog.instances[inst].tag;
        let bound = self.dispatches[d].bound.clone();
        let cu = self.slots[s].cu;
        let now = cx.now();
        let mut port = SimPort { m: cx.machine, now, rng: &mut self.cu_rng[cu], writes: &mut cx.observers.writes };
        // An image request is performed as the byte request it lowers to, and observed as one.
        let (performed, req, image) = match wg.pending_image(sg) {
            Some(ir) => {
                let performed = perform_image(&mut port, cu, ir, &bound, tag, &mut self.scratch, &mut self.tex).map_err(|e| exec_err(at(), e))?;
                (performed, self.tex.req.as_ref().expect("lowered"), true)
            }
            None => {
                let req = wg.pending_request(sg).ok_or_else(|| exec_err(at(), "a deferred memory request is gone"))?;
                (perform(&mut port, cu, req, &bound, tag, &mut self.scratch).map_err(|e| exec_err(at(), e))?, req, false)
            }
        };
        cx.observers.tell_writes();
        if req.op == MemOp::Load && !req.atomic {
            let slot = &mut self.slots[s];
            let key = ReadKey { inst: inst as u32, a: slot.wg_index as u32, b: sg as u32, c: slot.loads[sg], d: 0 };
            slot.loads[sg] += 1;
            let load = Load { key, inst, req, bound: &bound, scratch: &self.scratch, performed: &performed, cycle: now };
            cx.observers.load(&load);
        }
        if image {
            wg.complete_image(sg, &self.tex.words).map_err(|e| exec_err(cx.prog.instances[inst].at.to_string(), e))?;
        } else {
            wg.complete(sg, &self.scratch.results).map_err(|e| exec_err(cx.prog.instances[inst].at.to_string(), e))?;
        }
        self.schedule_step(cx, now + performed.latency.max(1), s, sg);
        Ok(())
    }

    /// The cycles of the instructions subgroup `sg` ran since it was last stepped, counted
    /// against the run's instruction budget.
    fn compute_cycles(&mut self, s: usize, sg: usize, wg: &Workgroup, cpi: u64, cx: &mut Cx<'_, '_, '_>) -> Result<u64, WorkloadError> {
        let st = wg.subgroup_stats(sg);
        let delta = st.instructions - self.slots[s].instr_seen[sg];
        self.slots[s].instr_seen[sg] = st.instructions;
        // Workgroup memory: its latency once per subgroup-wide access (a subgroup's lanes access
        // it together; the statistics count lanes).
        let shared = st.workgroup_accesses - std::mem::replace(&mut self.slots[s].shared_seen[sg], st.workgroup_accesses);
        let shared_cycles = shared.div_ceil(u64::from(self.subgroup_size.max(1))).saturating_mul(self.shared_memory_cycles);
        if cx.budget.instructions.spend(delta) {
            let inst = self.dispatches[self.slots[s].dispatch].inst;
            cx.budget.spent_in = Some(inst);
            return Err(cx.budget.instructions.spent(cx.prog.instances[inst].at.to_string(), cx.observers.stale_count()));
        }
        Ok(delta.saturating_mul(cpi).saturating_add(shared_cycles))
    }

    fn release_barrier(&mut self, s: usize, cx: &mut Cx<'_, '_, '_>) {
        let states = &self.slots[s].sg_state;
        if states.iter().all(|&x| x != SgState::Running) && states.contains(&SgState::AtBarrier) {
            for sg in 0..states.len() {
                if self.slots[s].sg_state[sg] == SgState::AtBarrier {
                    self.slots[s].sg_state[sg] = SgState::Running;
                    self.schedule_step(cx, cx.now() + 1, s, sg);
                }
            }
        }
    }

    /// Tells the observers that the workgroup in slot `s` ran until now.
    fn record_workgroup(&self, s: usize, cx: &mut Cx<'_, '_, '_>) {
        let slot = &self.slots[s];
        let span = (self.dispatches[slot.dispatch].inst, slot.wg_index, slot.cu, slot.start, cx.now());
        cx.observers.workgroup(span);
    }

    fn workgroup_done(&mut self, s: usize, wg: &Workgroup, cx: &mut Cx<'_, '_, '_>) {
        let st = wg.stats();
        self.instructions += st.instructions;
        self.lane_ops += st.lane_ops;
        self.record_workgroup(s, cx);
        if let Some(item) = self.free_slot(s) {
            cx.finish(item);
        }
        cx.clock.dirty = true;
    }

    /// The run stopped: the workgroups in flight did work too, so the counts pass the budget
    /// that stopped it, and their spans end at the stop.
    pub(crate) fn stop(&mut self, cx: &mut Cx<'_, '_, '_>) {
        let free: std::collections::HashSet<usize> = self.free.iter().copied().collect();
        for s in 0..self.slots.len() {
            if let (false, Some(wg)) = (free.contains(&s), &self.slots[s].wg) {
                let st = wg.stats();
                self.instructions += st.instructions;
                self.lane_ops += st.lane_ops;
                self.record_workgroup(s, cx);
            }
        }
    }
}

/// The machine as a CU's memory requests reach it: each access with the CU's own jitter, the
/// writes noted for the observers.
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
            kind => self.m.load(path_of(kind), cu, self.now, addr, data, tags, j)?,
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
        let path = if coherent { PathName::Coherent } else { path_of(kind) };
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

/// The path a shader load through a binding of `kind` takes: a uniform buffer the U$'s, a sampled
/// image the texture path, a storage buffer or image the storage path.
pub(crate) fn path_of(kind: BindingKind) -> PathName {
    match kind {
        BindingKind::UniformBuffer => PathName::Uniform,
        BindingKind::SampledImage { .. } => PathName::Sampled,
        _ => PathName::Storage,
    }
}
