//! Performing the host timeline on the device, iteration after iteration, and comparing what
//! the host read and what memory holds at the end with the reference run.
//!
//! # Design
//! Each iteration starts from zeroed memory (as the simulator's does): host-visible memory is
//! zeroed through its mapping, device-local memory by a copy from a zeroed staging buffer.
//! Then every timeline entry is made as the trace says (vkQueueSubmit2 with its batches,
//! semaphores and fence, vkWaitForFences, vkSetEvent, host writes and reads through the
//! mapping, flushes and invalidates). Waits never block forever: a wait for the device is a
//! fence wait with a timeout first (an empty submission's fence for vkQueueWaitIdle and
//! vkDeviceWaitIdle, then the call itself, which returns at once), so a program that cannot
//! finish on this device is reported, not hung. After the iteration the device is idle and
//! final memory is read back.

use std::collections::HashMap;

use ash::vk;
use sim_core::engine::{ReferenceOutcome};
use sim_core::api::{HostOp, Workload, Writer};

use crate::error::{ReplayError, VkContext};
use crate::layer::Phase;
use crate::objects::Objects;

/// One host read over all iterations.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostReadReport {
    /// Timeline index.
    pub timeline: usize,
    /// Its label.
    pub label: String,
    /// Bytes read.
    pub size: u64,
    /// How its bytes differed from the reference run's.
    #[serde(flatten)]
    pub differences: Differences,
    /// Whether the reference run meets the trace's stated expectation (`None`: none stated, or
    /// no reference run).
    pub reference_meets_expectation: Option<bool>,
    /// The bytes the device gave in the first differing iteration (else the first).
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// One memory object's final contents over all iterations.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MemoryReport {
    /// The memory object's id.
    pub memory: String,
    /// How its final contents differed from the reference run's.
    #[serde(flatten)]
    pub differences: Differences,
    /// The final bytes the device left, in the first differing iteration (else the first).
    /// Memory bound to images holds the driver's own layout of their texels here.
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// How one read, or one memory object's final contents, differed from the reference run over
/// the iterations.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Differences {
    /// Iterations in which some byte differed.
    pub differing_iterations: u32,
    /// Differing bytes in the first such iteration (0 when none differed).
    pub differing_bytes: u64,
    /// The first differing byte of that iteration: its offset in the memory object and the
    /// reference run's writer of it.
    pub first_difference: Option<(u64, Writer)>,
    /// Iterations in which bytes the reference run knows to depend on timing differed (which
    /// invocation an atomic picked decides them: not corruption, and not counted above).
    pub timing_dependent_iterations: u32,
    /// The most such bytes that differed in one iteration.
    pub timing_dependent_bytes: u64,
    /// The largest difference between a differing byte and the reference run's, over every
    /// iteration: 1 where a driver rounds a UNORM channel the other way, more where bytes are
    /// wrong.
    pub largest_difference: u8,
}

impl Differences {
    /// Counts one iteration's comparison (`n` differing bytes, the first of them, and `timing`
    /// differing bytes that depend on timing); true when it differed beyond timing.
    fn count(&mut self, (n, first, timing, largest): (u64, Option<(u64, Writer)>, u64, u8)) -> bool {
        self.largest_difference = self.largest_difference.max(largest);
        if timing > 0 {
            self.timing_dependent_iterations += 1;
            self.timing_dependent_bytes = self.timing_dependent_bytes.max(timing);
        }
        if n == 0 {
            return false;
        }
        if self.differing_iterations == 0 {
            self.differing_bytes = n;
            self.first_difference = first;
        }
        self.differing_iterations += 1;
        true
    }
}

/// What the replay observed.
pub struct Observed {
    /// Iterations run.
    pub iterations: u32,
    /// Iterations in which some host read or final memory differed from the reference run.
    pub iterations_with_corruption: u32,
    /// Each host read.
    pub host_reads: Vec<HostReadReport>,
    /// Each compared memory object.
    pub memories: Vec<MemoryReport>,
    /// Whether there was a reference run to compare with (none: the engine does not run the
    /// workload's graphics commands yet; the bytes are read back and nothing is counted as
    /// differing).
    pub compared: bool,
}

/// How long a wait for the device may take before the replay gives up.
pub const WAIT_TIMEOUT_NS: u64 = 20_000_000_000;

/// Compares `seen` with the reference `read`: (differing bytes, first difference, differing
/// bytes that depend on timing, which `timing` says of byte `k` and which the others leave out,
/// and the largest difference of a differing byte from the reference's).
pub fn compare(reference: &ReferenceOutcome, read: &sim_core::engine::ReferenceHostRead, seen: &[u8], base_offset: u64, timing: impl Fn(usize) -> bool) -> (u64, Option<(u64, Writer)>, u64, u8) {
    let (mut n, mut t) = (0u64, 0u64);
    let mut first = None;
    let mut largest = 0u8;
    for (k, (a, b)) in seen.iter().zip(&read.bytes).enumerate() {
        if a != b {
            if timing(k) {
                t += 1;
                continue;
            }
            n += 1;
            largest = largest.max(a.abs_diff(*b));
            if first.is_none() {
                first = Some((base_offset + k as u64, reference.writer_of(read, k).clone()));
            }
        }
    }
    (n, first, t, largest)
}

pub(crate) struct Runner<'o, 's> {
    pub(crate) o: &'o mut Objects<'s>,
    pub(crate) cbs: HashMap<(usize, u32), vk::CommandBuffer>,
    /// A fence for the replay's own waits.
    fence: vk::Fence,
}

impl Drop for Runner<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: made in `new`; after an error an empty submission may still hold it, so the
        // device finishes first (waits on events were released when the error was found).
        unsafe {
            let _ = self.o.s.device.device_wait_idle();
            self.o.s.device.destroy_fence(self.fence, None);
        }
    }
}

impl<'o, 's> Runner<'o, 's> {
    pub(crate) fn new(o: &'o mut Objects<'s>, cbs: HashMap<(usize, u32), vk::CommandBuffer>) -> Result<Self, ReplayError> {
        // SAFETY: valid create info.
        let fence = unsafe { o.s.device.create_fence(&vk::FenceCreateInfo::default(), None) }.call("vkCreateFence")?;
        o.s.name(fence, "gpusim.wait");
        Ok(Runner { o, cbs, fence })
    }

    /// Waits for `fences` with the timeout; on a timeout, sets every event (so that nothing
    /// stays blocked on one) and reports where.
    fn wait(&self, fences: &[vk::Fence], at: &str, shared: bool) -> Result<(), ReplayError> {
        let d = &self.o.s.device;
        // SAFETY: live fences.
        match unsafe { d.wait_for_fences(fences, true, WAIT_TIMEOUT_NS) } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => {
                for &e in &self.o.events {
                    // SAFETY: live event; releases waits so the device can drain.
                    let _ = unsafe { d.set_event(e) };
                }
                let reason = if shared {
                    " (trace queues share a device queue here, see the notes: work waiting on an event the host sets later blocks what was submitted after it)".to_string()
                } else {
                    String::new()
                };
                Err(ReplayError::Hang { at: at.into(), seconds: WAIT_TIMEOUT_NS / 1_000_000_000, reason })
            }
            Err(e) => Err(ReplayError::Vulkan { call: "vkWaitForFences", result: e, at: Some(at.into()) }),
        }
    }

    /// Submits nothing with the replay's fence on each of `queues` in turn and waits for it:
    /// the device has finished what was submitted there.
    fn drain(&self, queues: &[vk::Queue], at: &str) -> Result<(), ReplayError> {
        let d = &self.o.s.device;
        let shared = self.shared();
        for &q in queues {
            // SAFETY: an empty submission with an unsignalled fence.
            unsafe { d.queue_submit2(q, &[], self.fence) }.call_at("vkQueueSubmit2", at)?;
            self.wait(&[self.fence], at, shared)?;
            unsafe { d.reset_fences(&[self.fence]) }.call_at("vkResetFences", at)?;
        }
        Ok(())
    }

    fn shared(&self) -> bool {
        let qs = &self.o.s.queues;
        (1..qs.len()).any(|i| qs[..i].iter().any(|p| p.0 == qs[i].0))
    }

    fn device_queues(&self) -> Vec<vk::Queue> {
        let mut v: Vec<vk::Queue> = Vec::new();
        for &(q, _) in &self.o.s.queues {
            if !v.contains(&q) {
                v.push(q);
            }
        }
        v
    }

    /// Runs `f` recording into a one-time command buffer on the first queue, and waits.
    fn one_time(&self, at: &str, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<(), ReplayError> {
        let d = &self.o.s.device;
        let (queue, family) = self.o.s.queues[0];
        let info = vk::CommandBufferAllocateInfo::default().command_pool(self.o.command_pools[&family]).level(vk::CommandBufferLevel::PRIMARY).command_buffer_count(1);
        // SAFETY: live pool; the command buffer is freed below after its fence signalled.
        let cb = unsafe { d.allocate_command_buffers(&info) }.call_at("vkAllocateCommandBuffers", at)?[0];
        self.o.s.name(cb, "gpusim.zero-or-readback");
        let result = (|| {
            unsafe { d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT)) }.call_at("vkBeginCommandBuffer", at)?;
            f(d, cb);
            unsafe { d.end_command_buffer(cb) }.call_at("vkEndCommandBuffer", at)?;
            let cbi = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
            let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cbi)];
            unsafe { d.queue_submit2(queue, &submit, self.fence) }.call_at("vkQueueSubmit2", at)?;
            self.wait(&[self.fence], at, false)?;
            unsafe { d.reset_fences(&[self.fence]) }.call_at("vkResetFences", at)
        })();
        // SAFETY: finished; after an error, the device finishes it first.
        unsafe {
            if result.is_err() {
                let _ = d.device_wait_idle();
            }
            d.free_command_buffers(self.o.command_pools[&family], &[cb]);
        }
        result
    }

    /// Zeroes every memory object.
    fn zero(&self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.o.s.device;
        self.o.s.capture.set_phase(Phase::Setup);
        let mut copies = Vec::new();
        for (m, mem) in self.o.memories.iter().enumerate() {
            match mem.ptr {
                Some(ptr) => {
                    // SAFETY: the mapping covers the whole allocation, at least `size` bytes.
                    unsafe { std::ptr::write_bytes(ptr, 0, mem.size as usize) };
                    if !mem.coherent {
                        let r = [vk::MappedMemoryRange::default().memory(mem.memory).offset(0).size(vk::WHOLE_SIZE)];
                        unsafe { d.flush_mapped_memory_ranges(&r) }.call_at("vkFlushMappedMemoryRanges", format!("zeroing memory[{}]", w.memories[m].name))?;
                    }
                }
                None => copies.push(m),
            }
        }
        if let (false, Some(st)) = (copies.is_empty(), &self.o.staging) {
            // SAFETY: the staging mapping covers `st.size` bytes.
            unsafe { std::ptr::write_bytes(st.ptr, 0, st.size as usize) };
            if !st.coherent {
                let r = [vk::MappedMemoryRange::default().memory(st.memory).offset(0).size(vk::WHOLE_SIZE)];
                unsafe { d.flush_mapped_memory_ranges(&r) }.call("vkFlushMappedMemoryRanges")?;
            }
            let mems = &self.o.memories;
            self.one_time("zeroing device-local memory", |d, cb| {
                host_to_transfer(d, cb);
                for &m in &copies {
                    let r = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: mems[m].size }];
                    // SAFETY: recording; both buffers are live and large enough.
                    unsafe { d.cmd_copy_buffer(cb, st.buffer, mems[m].whole, &r) };
                }
            })?;
        }
        Ok(())
    }

    /// Reads memory object `m` back (the device is idle).
    fn read_back(&self, m: usize) -> Result<Vec<u8>, ReplayError> {
        let d = &self.o.s.device;
        let mem = &self.o.memories[m];
        let mut out = vec![0u8; mem.size as usize];
        match mem.ptr {
            Some(ptr) => {
                if !mem.coherent {
                    let r = [vk::MappedMemoryRange::default().memory(mem.memory).offset(0).size(vk::WHOLE_SIZE)];
                    unsafe { d.invalidate_mapped_memory_ranges(&r) }.call("vkInvalidateMappedMemoryRanges")?;
                }
                // SAFETY: the mapping covers `size` bytes.
                unsafe { std::ptr::copy_nonoverlapping(ptr, out.as_mut_ptr(), out.len()) };
            }
            None => {
                let Some(st) = &self.o.staging else { return Ok(out) };
                self.one_time("reading device-local memory back", |d, cb| {
                    all_to_transfer(d, cb);
                    let r = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: mem.size }];
                    // SAFETY: recording; both buffers are live and large enough.
                    unsafe { d.cmd_copy_buffer(cb, mem.whole, st.buffer, &r) };
                    transfer_to_host(d, cb);
                })?;
                if !st.coherent {
                    let r = [vk::MappedMemoryRange::default().memory(st.memory).offset(0).size(vk::WHOLE_SIZE)];
                    unsafe { d.invalidate_mapped_memory_ranges(&r) }.call("vkInvalidateMappedMemoryRanges")?;
                }
                // SAFETY: the staging mapping covers at least `size` bytes.
                unsafe { std::ptr::copy_nonoverlapping(st.ptr, out.as_mut_ptr(), out.len()) };
            }
        }
        Ok(out)
    }

    /// Performs every timeline entry of `w` once; returns the host reads by timeline index.
    fn iteration(&mut self, w: &Workload, iteration: u32) -> Result<HashMap<usize, Vec<u8>>, ReplayError> {
        let d = self.o.s.device.clone();
        let mut reads = HashMap::new();
        let shared = self.shared();
        for (t, op) in w.timeline.iter().enumerate() {
            let at = format!("timeline[{t}]");
            self.o.s.capture.set_phase(Phase::Timeline { timeline: t, iteration });
            // SAFETY (each arm): live handles made by `Objects`, arrays that outlive the call.
            match op {
                HostOp::QueueSubmit { queue, batches, fence } => {
                    let (q, family) = self.o.s.queues[*queue];
                    let cbis: Vec<Vec<vk::CommandBufferSubmitInfo>> =
                        batches.iter().map(|b| b.command_buffers.iter().map(|&cb| vk::CommandBufferSubmitInfo::default().command_buffer(self.cbs[&(cb, family)])).collect()).collect();
                    let sem = |v: &Vec<(usize, sim_core::sync::PipelineStageFlags2)>| -> Vec<vk::SemaphoreSubmitInfo> {
                        v.iter().map(|&(s, st)| vk::SemaphoreSubmitInfo::default().semaphore(self.o.semaphores[s]).stage_mask(vk::PipelineStageFlags2::from_raw(st.bits()))).collect()
                    };
                    let waits: Vec<Vec<vk::SemaphoreSubmitInfo>> = batches.iter().map(|b| sem(&b.wait_semaphores)).collect();
                    let signals: Vec<Vec<vk::SemaphoreSubmitInfo>> = batches.iter().map(|b| sem(&b.signal_semaphores)).collect();
                    let infos: Vec<vk::SubmitInfo2> = (0..batches.len())
                        .map(|b| vk::SubmitInfo2::default().wait_semaphore_infos(&waits[b]).command_buffer_infos(&cbis[b]).signal_semaphore_infos(&signals[b]))
                        .collect();
                    let f = fence.map_or(vk::Fence::null(), |f| self.o.fences[f]);
                    unsafe { d.queue_submit2(q, &infos, f) }.call_at("vkQueueSubmit2", &at)?;
                }
                HostOp::WaitForFences(fs) => {
                    let fences: Vec<vk::Fence> = fs.iter().map(|&f| self.o.fences[f]).collect();
                    self.wait(&fences, &at, shared)?;
                }
                HostOp::ResetFences(fs) => {
                    let fences: Vec<vk::Fence> = fs.iter().map(|&f| self.o.fences[f]).collect();
                    unsafe { d.reset_fences(&fences) }.call_at("vkResetFences", &at)?;
                }
                HostOp::QueueWaitIdle(q) => {
                    let queue = self.o.s.queues[*q].0;
                    self.drain(&[queue], &at)?;
                    self.o.s.capture.set_phase(Phase::Timeline { timeline: t, iteration });
                    unsafe { d.queue_wait_idle(queue) }.call_at("vkQueueWaitIdle", &at)?;
                }
                HostOp::DeviceWaitIdle => {
                    self.drain(&self.device_queues(), &at)?;
                    self.o.s.capture.set_phase(Phase::Timeline { timeline: t, iteration });
                    unsafe { d.device_wait_idle() }.call_at("vkDeviceWaitIdle", &at)?;
                }
                HostOp::HostWrite { memory, offset, data } => {
                    let Some(ptr) = self.o.memories[*memory].ptr else {
                        return Err(ReplayError::Unsupported { at, message: "the memory is not mapped".into() });
                    };
                    // SAFETY: the loader checked the range against the memory's size.
                    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr.add(*offset as usize), data.len()) };
                }
                HostOp::HostRead { memory, offset, size, .. } => {
                    let Some(ptr) = self.o.memories[*memory].ptr else {
                        return Err(ReplayError::Unsupported { at, message: "the memory is not mapped".into() });
                    };
                    let mut out = vec![0u8; *size as usize];
                    // SAFETY: as for writes.
                    unsafe { std::ptr::copy_nonoverlapping(ptr.add(*offset as usize), out.as_mut_ptr(), out.len()) };
                    reads.insert(t, out);
                }
                HostOp::SetEvent(e) => unsafe { d.set_event(self.o.events[*e]) }.call_at("vkSetEvent", &at)?,
                HostOp::FlushMappedMemoryRanges(r) | HostOp::InvalidateMappedMemoryRanges(r) => {
                    let ranges: Vec<vk::MappedMemoryRange> =
                        r.iter().map(|r| vk::MappedMemoryRange::default().memory(self.o.memories[r.memory].memory).offset(r.offset).size(r.size.unwrap_or(vk::WHOLE_SIZE))).collect();
                    if matches!(op, HostOp::FlushMappedMemoryRanges(_)) {
                        unsafe { d.flush_mapped_memory_ranges(&ranges) }.call_at("vkFlushMappedMemoryRanges", &at)?;
                    } else {
                        unsafe { d.invalidate_mapped_memory_ranges(&ranges) }.call_at("vkInvalidateMappedMemoryRanges", &at)?;
                    }
                }
            }
        }
        // The program is over: let the device finish, then leave the objects as they started.
        self.o.s.capture.set_phase(Phase::Readback);
        self.drain(&self.device_queues(), "the end of the timeline")?;
        unsafe { d.device_wait_idle() }.call("vkDeviceWaitIdle")?;
        if !self.o.fences.is_empty() {
            unsafe { d.reset_fences(&self.o.fences) }.call("vkResetFences")?;
        }
        for &e in &self.o.events {
            unsafe { d.reset_event(e) }.call("vkResetEvent")?;
        }
        Ok(reads)
    }

    /// Runs `iterations` iterations and compares each with `reference` (none: reads back only).
    pub(crate) fn run(&mut self, w: &Workload, reference: Option<&ReferenceOutcome>, iterations: u32) -> Result<Observed, ReplayError> {
        let mut host_reads: Vec<HostReadReport> = Vec::new();
        for (t, op) in w.timeline.iter().enumerate() {
            if let HostOp::HostRead { size, label, expect, .. } = op {
                let reference_bytes = reference.and_then(|r| r.host_reads.get(&t)).map(|r| &r.bytes[..]);
                host_reads.push(HostReadReport {
                    timeline: t,
                    label: label.clone(),
                    size: *size,
                    differences: Differences::default(),
                    reference_meets_expectation: reference.and(expect.as_ref()).map(|e| Some(&e[..]) == reference_bytes),
                    data: Vec::new(),
                });
            }
        }
        let mut memories: Vec<MemoryReport> = w
            .memories
            .iter()
            .filter(|m| m.compare)
            .map(|m| MemoryReport { memory: m.name.clone(), differences: Differences::default(), data: Vec::new() })
            .collect();
        let mut corrupt = 0;
        for it in 0..iterations {
            if it > 0 {
                self.o.renew_semaphores(w)?;
            }
            self.zero(w)?;
            let reads = self.iteration(w, it)?;
            let mut differs = false;
            for h in &mut host_reads {
                let Some(seen) = reads.get(&h.timeline) else { continue };
                let Some((reference, read)) = reference.and_then(|r| Some((r, r.host_reads.get(&h.timeline)?))) else {
                    if h.data.is_empty() {
                        h.data = seen.clone();
                    }
                    continue;
                };
                let HostOp::HostRead { offset, .. } = &w.timeline[h.timeline] else { continue };
                let t = h.timeline;
                let c = compare(reference, read, seen, *offset, |k| reference.host_read_timing_dependent(t, k));
                if h.data.is_empty() || (c.0 > 0 && h.differences.differing_iterations == 0) {
                    h.data = seen.clone();
                }
                differs |= h.differences.count(c);
            }
            // Everything the program wrote, available to the host's reads of the mappings.
            self.one_time("making final memory available to the host", transfer_to_host)?;
            let mut k = 0;
            for (m, desc) in w.memories.iter().enumerate() {
                if !desc.compare {
                    continue;
                }
                let report = &mut memories[k];
                k += 1;
                let Some((reference, read)) = reference.and_then(|r| Some((r, r.memories.get(m)?.as_ref()?))) else {
                    if reference.is_none() && report.data.is_empty() {
                        report.data = self.read_back(m)?;
                    }
                    continue;
                };
                let raw = self.read_back(m)?;
                // A driver lays images out its own way: their bytes are not compared (what the
                // trace copies out of them into buffers is). The device's own bytes are kept.
                let masked = w.images.iter().any(|im| im.memory == m).then(|| {
                    let mut seen = raw.clone();
                    for im in w.images.iter().filter(|im| im.memory == m) {
                        let (a, b) = (im.offset as usize, ((im.offset + im.layout.size) as usize).min(seen.len()).min(read.bytes.len()));
                        if a < b {
                            seen[a..b].copy_from_slice(&read.bytes[a..b]);
                        }
                    }
                    seen
                });
                let seen = masked.as_deref().unwrap_or(&raw);
                let c = compare(reference, read, seen, 0, |k| reference.memory_timing_dependent(m, k));
                if report.data.is_empty() || (c.0 > 0 && report.differences.differing_iterations == 0) {
                    report.data = raw;
                }
                differs |= report.differences.count(c);
            }
            corrupt += u32::from(differs);
        }
        self.o.s.capture.set_phase(Phase::Setup);
        Ok(Observed { iterations, iterations_with_corruption: corrupt, host_reads, memories, compared: reference.is_some() })
    }
}

fn global_barrier(d: &ash::Device, cb: vk::CommandBuffer, src: vk::PipelineStageFlags2, sa: vk::AccessFlags2, dst: vk::PipelineStageFlags2, da: vk::AccessFlags2) {
    let b = [vk::MemoryBarrier2::default().src_stage_mask(src).src_access_mask(sa).dst_stage_mask(dst).dst_access_mask(da)];
    // SAFETY: recording.
    unsafe { d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&b)) };
}

/// Host writes to the staging buffer, visible to the copies that follow.
fn host_to_transfer(d: &ash::Device, cb: vk::CommandBuffer) {
    global_barrier(d, cb, vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_WRITE, vk::PipelineStageFlags2::ALL_COMMANDS, vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE);
}

/// Everything the program did, visible to the read-back copy.
fn all_to_transfer(d: &ash::Device, cb: vk::CommandBuffer) {
    global_barrier(d, cb, vk::PipelineStageFlags2::ALL_COMMANDS, vk::AccessFlags2::MEMORY_WRITE, vk::PipelineStageFlags2::ALL_COMMANDS, vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE);
}

/// The read-back copy, visible to the host.
fn transfer_to_host(d: &ash::Device, cb: vk::CommandBuffer) {
    global_barrier(d, cb, vk::PipelineStageFlags2::ALL_COMMANDS, vk::AccessFlags2::MEMORY_WRITE, vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ);
}
