//! The compute units' dispatcher: which workgroup of which dispatch goes to which CU, when.
//!
//! # Design
//! A dispatch's workgroups are placed in order, each on a CU with a free workgroup slot chosen
//! from the dispatcher's own random stream of the seed; a workgroup's subgroups start after the
//! launch latency plus their CU's own jitter. The dispatcher owns the dispatches, the slots and
//! each CU's free-slot count; the event loop steps the subgroups it placed.

use std::sync::Arc;

use sim_shader::{ComputePipeline, Workgroup, WorkgroupConfig};

use crate::engine::bindings::Bound;
use crate::engine::rng::Rng;

/// A dispatch the compute units are running.
pub(crate) struct DispatchRun {
    pub(crate) item: usize,
    pub(crate) inst: usize,
    pub(crate) pipeline: Arc<ComputePipeline>,
    pub(crate) bound: Arc<Vec<Bound>>,
    pub(crate) sizes: Vec<u64>,
    pub(crate) push: Vec<u8>,
    pub(crate) group_count: [u32; 3],
    pub(crate) base_group: [u32; 3],
    pub(crate) next_wg: u64,
    pub(crate) total_wg: u64,
    pub(crate) done_wg: u64,
}

/// Where a subgroup is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SgState {
    Running,
    AtBarrier,
    Done,
}

/// A workgroup slot of a CU, holding a workgroup.
pub(crate) struct Slot {
    pub(crate) dispatch: usize,
    pub(crate) wg_index: u64,
    pub(crate) cu: usize,
    pub(crate) wg: Option<Workgroup>,
    pub(crate) sg_state: Vec<SgState>,
    pub(crate) loads: Vec<u32>,
    pub(crate) instr_seen: Vec<u64>,
    /// Per subgroup: workgroup-memory lane accesses already charged.
    pub(crate) shared_seen: Vec<u64>,
    pub(crate) start: u64,
    /// Per subgroup: what it does when its compute is done (the interpreter ran ahead).
    pub(crate) deferred: Vec<Deferred>,
}

/// What a subgroup does once the instructions it ran before it are paid for: the interpreter
/// runs to the next memory operation, barrier or end at once, and the engine performs that
/// operation at the cycle the compute before it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deferred {
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
pub(crate) type Start = (usize, usize, u64);

/// The compute units' dispatcher and what it placed.
pub(crate) struct ComputeUnits {
    /// Every dispatch started, by index.
    pub(crate) dispatches: Vec<DispatchRun>,
    /// Dispatches with workgroups still to finish.
    active: Vec<usize>,
    /// Workgroup slots in use or free to reuse.
    pub(crate) slots: Vec<Slot>,
    /// Slots free to reuse.
    pub(crate) free: Vec<usize>,
    /// Per CU: workgroup slots free.
    cu_free: Vec<u32>,
    /// Which CU a workgroup lands on: the dispatcher's own stream.
    placement: Rng,
    /// Per CU: its own stream (latency jitter of its accesses and launches).
    pub(crate) cu_rng: Vec<Rng>,
    /// Lanes per subgroup.
    pub(crate) subgroup_size: u32,
    /// Cycles per shader instruction of a subgroup.
    pub(crate) cycles_per_instruction: u64,
    /// Cycles per subgroup-wide access to workgroup (shared) memory.
    pub(crate) shared_memory_cycles: u64,
    launch_cycles: u64,
    jitter_cycles: u64,
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
        }
    }

    /// Takes a dispatch; false when it has no workgroups (it is done at once).
    pub(crate) fn start(&mut self, run: DispatchRun) -> bool {
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
    pub(crate) fn place(&mut self, now: u64, max_instructions: u64) -> Result<Vec<Start>, (usize, sim_shader::ShaderError)> {
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
    pub(crate) fn workgroup_done(&mut self, s: usize) -> Option<usize> {
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
}
