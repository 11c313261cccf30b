//! The host: the timeline's operations in program order, each when the one before it is done
//! (a wait for a fence, a queue or the device holds it back until the device gets there), and
//! the mapped memory objects with their memory types, as `sim-host` models them.
//!
//! # Design
//! A host operation costs the bus latency plus what `sim-host` reports it moved; a queue
//! submission, a fence operation or a host vkSetEvent is a device-visible event that first
//! drains the write-combining buffers of coherent mappings. A submission puts the nodes the
//! stream lowered for it on their queues; a host vkSetEvent opens the host gates waiting for it;
//! a host read is told to the observers (the truth oracle judges it).

use crate::api::error::WorkloadError;
use crate::api::program::Program;
use crate::api::workload::HostOp;
use crate::engine::machine::Machine;
use crate::engine::units::{Cx, exec_err};
use crate::engine::mapped::{bus, host_ranges, host_side};
use crate::profile::Profile;

/// The host unit: where it is in the timeline, and its side of mapped memory.
pub(crate) struct HostUnit {
    side: sim_host::HostSide,
    /// The next timeline operation.
    pc: usize,
    /// The cycle it may be performed.
    ready_at: u64,
    /// Per fence: the node of its pending signal (for vkResetFences' check).
    fence_item: Vec<Option<usize>>,
}

impl HostUnit {
    /// The host of a run of `prog` on `profile`, drawing from `seed`.
    pub(crate) fn new(prog: &Program<'_>, profile: &Profile, seed: u64) -> Result<HostUnit, WorkloadError> {
        Ok(HostUnit { side: host_side(prog, profile, seed)?, pc: 0, ready_at: 0, fence_item: vec![None; prog.workload.fences.len()] })
    }

    /// The next timeline operation (the timeline's length when all are done).
    pub(crate) fn pc(&self) -> usize {
        self.pc
    }

    /// Performs the operations that can be performed now, one after another.
    pub(crate) fn advance(&mut self, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let w = cx.prog.workload;
        while self.pc < w.timeline.len() && cx.now() >= self.ready_at {
            let t = self.pc;
            match self.op(t, cx)? {
                Some(c) => self.ready_at = cx.now() + c.max(1),
                None => return Ok(()),
            }
            self.pc += 1;
            cx.wake_host(self.ready_at);
        }
        Ok(())
    }

    /// Performs host operation `t`; `None` when it must wait (a fence not yet signalled, a
    /// queue not yet idle), else the cycles it took.
    fn op(&mut self, t: usize, cx: &mut Cx<'_, '_, '_>) -> Result<Option<u64>, WorkloadError> {
        let w = cx.prog.workload;
        let at = || format!("timeline[{t}]");
        let host_err = |e: sim_host::HostError| WorkloadError::Invalid { at: format!("timeline[{t}]"), message: e.to_string() };
        let base = u64::from(cx.profile.timing.host_bus_latency_cycles);
        let timing = bus(&cx.profile.timing);
        // Queue submission, fence and event operations are device-visible events: they drain
        // the write-combining buffers of coherent mappings.
        let drain = matches!(w.timeline[t], HostOp::QueueSubmit { .. } | HostOp::WaitForFences(_) | HostOp::ResetFences(_) | HostOp::SetEvent(_));
        let mut cycles = base;
        if drain {
            let r = self.side.device_visible_event(&mut cx.machine.host_memory()).map_err(host_err)?;
            cycles += timing.cycles(&r);
        }
        let push_nodes = |cx: &mut Cx<'_, '_, '_>| cx.cp.push(cx.stream, t, cx.clock.now, cx.profile, cx.profile.policies);
        match &w.timeline[t] {
            HostOp::QueueSubmit { fence, .. } => {
                push_nodes(cx);
                if let Some(f) = fence {
                    self.fence_item[*f] = cx.stream.fence_signal[t];
                }
            }
            HostOp::WaitForFences(_) => {
                if cx.stream.host_waits[t].iter().any(|&i| !cx.cp.done(i)) {
                    return Ok(None);
                }
            }
            HostOp::ResetFences(fs) => {
                for &f in fs {
                    if let Some(i) = self.fence_item[f]
                        && !cx.cp.done(i)
                    {
                        return Err(WorkloadError::Invalid { at: at(), message: format!("vkResetFences on fence `{}` while its submission is still pending", w.fences[f]) });
                    }
                    self.fence_item[f] = None;
                }
            }
            // A fence signal on the queue (or on every queue), then a wait for it and for
            // everything else on the queue.
            HostOp::QueueWaitIdle(q) => {
                push_nodes(cx);
                if cx.cp.busy(*q) {
                    return Ok(None);
                }
            }
            HostOp::DeviceWaitIdle => {
                push_nodes(cx);
                if cx.cp.any_busy() {
                    return Ok(None);
                }
            }
            HostOp::HostWrite { memory, offset, data } => {
                cx.observers.writes.push((cx.prog.host_tags[t], cx.prog.memory_base[*memory] + offset, data.len() as u64));
                cx.observers.tell_writes();
                let r = self.side.write(*memory, *offset, data, cx.prog.host_tags[t], &mut cx.machine.host_memory()).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
            HostOp::HostRead { memory, offset, size, .. } => {
                let mut bytes = vec![0u8; *size as usize];
                let mut tags = vec![0; *size as usize];
                let r = self.side.read(*memory, *offset, &mut bytes, &mut tags, &mut cx.machine.host_memory()).map_err(host_err)?;
                cycles += timing.cycles(&r);
                cx.observers.host_read(t, bytes, &tags).map_err(|m| exec_err(format!("timeline[{t}]"), m))?;
            }
            HostOp::SetEvent(_) => {
                for &g in &cx.stream.opens[t] {
                    cx.finish(g);
                }
            }
            HostOp::FlushMappedMemoryRanges(r) => {
                let r = self.side.flush_mapped_ranges(&host_ranges(r), &mut cx.machine.host_memory()).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
            HostOp::InvalidateMappedMemoryRanges(r) => {
                let r = self.side.invalidate_mapped_ranges(&host_ranges(r), &mut cx.machine.host_memory()).map_err(host_err)?;
                cycles += timing.cycles(&r);
            }
        }
        Ok(Some(cycles))
    }

    /// The end of the run: what the host still holds reaches memory. Write-combining buffers of
    /// HOST_COHERENT memory go out on their own in finite time, and no command could have been
    /// missing to send them: the end drains them, as a device-visible event would. What the host
    /// holds of non-coherent memory (its cache's dirty lines, its write-combining buffers)
    /// reaches memory in the end too, on eviction: final memory is what the host's writes leave
    /// there. A host write never flushed then counts only where it lands over a later device
    /// write, the lost update a real eviction would make.
    pub(crate) fn end(&mut self, prog: &Program<'_>, machine: &mut Machine) -> Result<(), WorkloadError> {
        self.side.device_visible_event(&mut machine.host_memory()).map_err(|e| exec_err("end of run", e))?;
        machine.drain().map_err(|e| exec_err("end of run", e))?;
        let held: Vec<sim_host::MappedRange> = prog
            .workload
            .memories
            .iter()
            .enumerate()
            .filter(|(_, m)| m.properties.host_visible && !m.properties.host_coherent)
            .map(|(i, _)| sim_host::MappedRange::new(i, 0, sim_host::WHOLE_SIZE))
            .collect();
        if !held.is_empty() {
            self.side.flush_mapped_ranges(&held, &mut machine.host_memory()).map_err(|e| exec_err("end of run", e))?;
        }
        Ok(())
    }
}

/// The Vulkan name of a host operation.
pub(crate) fn host_op_name(op: &HostOp) -> &'static str {
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
