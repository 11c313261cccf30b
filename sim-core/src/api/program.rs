//! A workload checked and numbered: every command instance (a command of a command buffer in
//! one submission) gets an index and a provenance tag, every host write a tag, every memory
//! object a device address. The simulated run and the reference run both walk this same
//! numbering, which is what lets "the same read" be found in both.

use serde::Serialize;
use sim_caches::Tag;
use sim_shader::{BindingKind, ComputePipeline};

use crate::api::action::{Action, ClearSpan, CopyRange, SyncCommand, Usage, Work};
use crate::api::error::WorkloadError;
use crate::api::workload::{BufferBinding, Command, HostOp, Workload};
use crate::sync::{AccessFlags2 as A, PipelineStageFlags2 as S, StageAccess};

/// Device addresses of memory objects are aligned to this (a VRAM page).
pub const MEMORY_ALIGNMENT: u64 = 64 * 1024;
/// The largest vkCmdUpdateBuffer payload (the Vulkan limit).
pub const MAX_UPDATE_BYTES: usize = 65536;
/// The most command instances a program may have: a bound on memory and time.
pub const MAX_COMMAND_INSTANCES: usize = 1 << 20;
/// The most workgroups one dispatch may launch.
pub const MAX_WORKGROUPS_PER_DISPATCH: u64 = 1 << 22;
/// The most vertices (indices) times instances one draw may shade: each shaded vertex of an
/// instance is kept until its triangles are drawn.
pub const MAX_DRAW_VERTICES: u64 = 1 << 22;
/// The most records one indirect draw may read.
pub const MAX_INDIRECT_DRAWS: u32 = 1 << 16;

/// Names a command instance the way reports do: its submission (timeline index), batch,
/// command buffer and command index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub struct CommandRef {
    /// Index of the queue_submit in the timeline.
    pub submit: usize,
    /// Batch within the submission (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub batch: usize,
    /// Command buffer id.
    pub command_buffer: String,
    /// Command index within the command buffer.
    pub command: usize,
}

fn is_zero(v: &usize) -> bool {
    *v == 0
}

impl std::fmt::Display for CommandRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.batch == 0 {
            write!(f, "submit {} {}[{}]", self.submit, self.command_buffer, self.command)
        } else {
            write!(f, "submit {} batch {} {}[{}]", self.submit, self.batch, self.command_buffer, self.command)
        }
    }
}

/// Names commands' places for a person, in Vulkan's terms: `cb0[1] (timeline[2], vkQueueSubmit
/// #1 on q0)`: the command buffer and command index, the timeline entry of the submission, and
/// which vkQueueSubmit2 of its queue that was (counted from 0; `batch 1` when not the first
/// batch). Each submission's count on its queue is worked out once, for reports that name many
/// commands (a timeline names every one).
pub struct PlaceNames {
    /// Per timeline entry: its queue and count among that queue's submissions (submissions only).
    submissions: Vec<Option<(usize, usize)>>,
}

impl PlaceNames {
    /// The names of `w`'s places.
    pub fn new(w: &crate::api::workload::Workload) -> PlaceNames {
        let mut counts = vec![0usize; w.queues.len()];
        let submissions = w
            .timeline
            .iter()
            .map(|op| match op {
                HostOp::QueueSubmit { queue, .. } if *queue < counts.len() => {
                    counts[*queue] += 1;
                    Some((*queue, counts[*queue] - 1))
                }
                _ => None,
            })
            .collect();
        PlaceNames { submissions }
    }

    /// The place of `at` in `w` (the workload these names were made for).
    pub fn text(&self, w: &crate::api::workload::Workload, at: &CommandRef) -> String {
        let Some(&Some((queue, ordinal))) = self.submissions.get(at.submit) else {
            return format!("{}[{}] (timeline[{}])", at.command_buffer, at.command, at.submit);
        };
        let batch = if at.batch == 0 { String::new() } else { format!(" batch {}", at.batch) };
        let name = w.queues.get(queue).map_or("?", String::as_str);
        format!("{}[{}] (timeline[{}], vkQueueSubmit #{ordinal}{batch} on {name})", at.command_buffer, at.command, at.submit)
    }
}

/// [`PlaceNames::text`] for one command.
pub fn place_text(w: &crate::api::workload::Workload, at: &CommandRef) -> String {
    PlaceNames::new(w).text(w, at)
}

/// Who produced a word of memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Writer {
    /// Nobody: memory starts zeroed.
    Initial,
    /// A device command.
    Command(CommandRef),
    /// A host write (timeline index).
    Host {
        /// Index of the host_write in the timeline.
        timeline: usize,
    },
}

impl std::fmt::Display for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Writer::Initial => write!(f, "the initial zeroes"),
            Writer::Command(c) => write!(f, "{c}"),
            Writer::Host { timeline } => write!(f, "host write timeline[{timeline}]"),
        }
    }
}

/// One command instance.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Where it comes from.
    pub at: CommandRef,
    /// The command buffer.
    pub cb: usize,
    /// The command's index in it.
    pub index: usize,
    /// Provenance tag of its writes.
    pub tag: Tag,
}

impl<'w> crate::api::render::Places<'w> for Program<'w> {
    fn workload(&self) -> &'w Workload {
        self.workload
    }

    fn buffer_addr(&self, r: usize, offset: u64) -> u64 {
        Program::buffer_addr(self, r, offset)
    }

    fn image_resource(&self, i: usize) -> usize {
        Program::image_resource(self, i)
    }
}

/// The numbered, checked workload.
pub struct Program<'w> {
    /// The workload.
    pub workload: &'w Workload,
    /// Command instances in timeline order.
    pub instances: Vec<Instance>,
    /// For each timeline entry that is a queue_submit: per batch, the range of instances.
    pub submit_batches: Vec<Vec<std::ops::Range<usize>>>,
    /// Tag of each timeline entry's host write (0 when not a host write).
    pub host_tags: Vec<Tag>,
    /// Writer of each tag.
    pub writers: Vec<Writer>,
    /// Device address of each memory object.
    pub memory_base: Vec<u64>,
    /// Size of the device address space.
    pub address_space: u64,
    /// The action of each command, per command buffer (`None` for a synchronization command).
    actions: Vec<Vec<Option<Action<'w>>>>,
    /// What each graphics command lowers to besides its action (`api/render.rs`).
    render: crate::api::render::Lowered<'w>,
}

fn invalid(at: impl Into<String>, message: impl Into<String>) -> WorkloadError {
    WorkloadError::Invalid { at: at.into(), message: message.into() }
}

/// `offset + size <= limit`, without overflow.
pub fn fits(offset: u64, size: u64, limit: u64) -> bool {
    offset.checked_add(size).is_some_and(|end| end <= limit)
}

impl<'w> Program<'w> {
    /// Checks the workload's ids and ranges and numbers it.
    pub fn new(w: &'w Workload) -> Result<Program<'w>, WorkloadError> {
        if w.queues.is_empty() {
            return Err(invalid("queues", "a workload needs at least one queue"));
        }
        let mut memory_base = Vec::new();
        let mut next = MEMORY_ALIGNMENT; // address 0 stays unused, like a null pointer
        let mut total = 0u64;
        for (i, m) in w.memories.iter().enumerate() {
            if m.size == 0 || m.size > crate::api::workload::MAX_MEMORY_BYTES {
                return Err(invalid(format!("memory[{}]", m.name), format!("size {} is not between 1 and {}", m.size, crate::api::workload::MAX_MEMORY_BYTES)));
            }
            total += m.size;
            if total > crate::api::workload::MAX_TOTAL_MEMORY_BYTES {
                return Err(invalid(format!("memory[{}]", m.name), "total memory exceeds 16 GiB"));
            }
            let _ = i;
            memory_base.push(next);
            next += m.size.div_ceil(MEMORY_ALIGNMENT) * MEMORY_ALIGNMENT;
        }
        for b in &w.buffers {
            let at = format!("buffers[{}]", b.name);
            let m = w.memories.get(b.memory).ok_or_else(|| invalid(&at, "unknown memory"))?;
            if b.size == 0 || !fits(b.offset, b.size, m.size) {
                return Err(invalid(at, format!("range [{}, +{}) is outside memory `{}` of {} bytes", b.offset, b.size, m.name, m.size)));
            }
        }
        crate::api::render::check_objects(w)?;
        let cbs = &w.command_buffers;
        for cb in cbs {
            for (i, c) in cb.commands.iter().enumerate() {
                check_command(w, c).map_err(|m| invalid(format!("command_buffers[{}].commands[{i}] ({})", cb.name, c.vk_name()), m))?;
            }
        }
        let mut instances = Vec::new();
        let mut submit_batches = Vec::new();
        let mut host_tags = vec![0; w.timeline.len()];
        let mut writers = vec![Writer::Initial];
        // For each command buffer, the (timeline index, queue) of a submission no host wait has
        // covered yet: submitting it again then needs SIMULTANEOUS_USE (Vulkan's pending state).
        let mut pending: Vec<Option<(usize, usize)>> = vec![None; cbs.len()];
        let mut fence_submit: Vec<Option<(usize, usize)>> = vec![None; w.fences.len()];
        // Which queue's signal operation each event's device waits wait on.
        let mut event_queues = crate::sync::valid::EventQueues::new(w.events.len());
        for (t, op) in w.timeline.iter().enumerate() {
            let at = format!("timeline[{t}]");
            match op {
                HostOp::WaitForFences(fs) => {
                    for &f in fs {
                        // A fence signals after all earlier work on its queue.
                        if let Some(&Some((tf, qf))) = fence_submit.get(f) {
                            pending.iter_mut().filter(|p| p.is_some_and(|(tp, qp)| qp == qf && tp <= tf)).for_each(|p| *p = None);
                        }
                    }
                }
                HostOp::QueueWaitIdle(q) => pending.iter_mut().filter(|p| p.is_some_and(|(_, qp)| qp == *q)).for_each(|p| *p = None),
                HostOp::DeviceWaitIdle => pending.iter_mut().for_each(|p| *p = None),
                _ => {}
            }
            match op {
                HostOp::QueueSubmit { queue, batches, fence } => {
                    if *queue >= w.queues.len() {
                        return Err(invalid(at, "unknown queue"));
                    }
                    if fence.is_some_and(|f| f >= w.fences.len()) {
                        return Err(invalid(at, "unknown fence"));
                    }
                    for &cb in batches.iter().flat_map(|b| &b.command_buffers) {
                        let Some(desc) = cbs.get(cb) else { continue };
                        if let Some((prev, _)) = pending[cb]
                            && !desc.simultaneous_use
                        {
                            let message = if prev == t {
                                format!("command buffer `{}` is listed more than once in this submission; record it with SIMULTANEOUS_USE", desc.name)
                            } else {
                                format!(
                                    "command buffer `{}` is submitted again while its submission at timeline[{prev}] may still be pending \
                                     (no fence, queue or device wait covers it); record it with SIMULTANEOUS_USE or wait for it first",
                                    desc.name
                                )
                            };
                            return Err(invalid(at, message));
                        }
                        pending[cb] = Some((t, *queue));
                    }
                    if let Some(f) = fence {
                        fence_submit[*f] = Some((t, *queue));
                    }
                    let mut ranges = Vec::new();
                    for (b, batch) in batches.iter().enumerate() {
                        for (s, _) in batch.wait_semaphores.iter().chain(&batch.signal_semaphores) {
                            if *s >= w.semaphores.len() {
                                return Err(invalid(&at, "unknown semaphore"));
                            }
                        }
                        let start = instances.len();
                        for &cb in &batch.command_buffers {
                            let desc = cbs.get(cb).ok_or_else(|| invalid(&at, "unknown command buffer"))?;
                            for index in 0..desc.commands.len() {
                                if instances.len() >= MAX_COMMAND_INSTANCES {
                                    return Err(invalid(&at, format!("more than {MAX_COMMAND_INSTANCES} command instances")));
                                }
                                let site = || crate::sync::valid::EventSite { timeline: t, queue: *queue, command_buffer: desc.name.clone(), command: index };
                                let cross = |e: crate::sync::valid::EventQueueError| invalid(format!("timeline[{}]", e.wait.timeline), e.message(&w.queues, &w.events));
                                match &desc.commands[index] {
                                    Command::SetEvent { event, .. } => event_queues.device_set(*event, site()).map_err(cross)?,
                                    Command::ResetEvent { event, .. } => event_queues.device_reset(*event),
                                    Command::WaitEvents { events, .. } => {
                                        for &e in events {
                                            event_queues.device_wait(e, site()).map_err(cross)?;
                                        }
                                    }
                                    _ => {}
                                }
                                let r = CommandRef { submit: t, batch: b, command_buffer: desc.name.clone(), command: index };
                                let tag = writers.len() as Tag;
                                writers.push(Writer::Command(r.clone()));
                                instances.push(Instance { at: r, cb, index, tag });
                            }
                        }
                        ranges.push(start..instances.len());
                    }
                    submit_batches.push(ranges);
                    continue;
                }
                HostOp::HostWrite { memory, offset, data } => {
                    let m = w.memories.get(*memory).ok_or_else(|| invalid(&at, "unknown memory"))?;
                    if !m.properties.host_visible {
                        return Err(invalid(at, format!("memory `{}` is not HOST_VISIBLE", m.name)));
                    }
                    if !fits(*offset, data.len() as u64, m.size) {
                        return Err(invalid(at, format!("write [{offset}, +{}) is outside memory `{}` of {} bytes", data.len(), m.name, m.size)));
                    }
                    host_tags[t] = writers.len() as Tag;
                    writers.push(Writer::Host { timeline: t });
                }
                HostOp::HostRead { memory, offset, size, .. } => {
                    let m = w.memories.get(*memory).ok_or_else(|| invalid(&at, "unknown memory"))?;
                    if !m.properties.host_visible {
                        return Err(invalid(at, format!("memory `{}` is not HOST_VISIBLE", m.name)));
                    }
                    if !fits(*offset, *size, m.size) {
                        return Err(invalid(at, format!("read [{offset}, +{size}) is outside memory `{}` of {} bytes", m.name, m.size)));
                    }
                }
                HostOp::WaitForFences(fs) | HostOp::ResetFences(fs) => {
                    if fs.iter().any(|&f| f >= w.fences.len()) {
                        return Err(invalid(at, "unknown fence"));
                    }
                }
                HostOp::QueueWaitIdle(q) => {
                    if *q >= w.queues.len() {
                        return Err(invalid(at, "unknown queue"));
                    }
                }
                HostOp::SetEvent(e) => {
                    if *e >= w.events.len() {
                        return Err(invalid(at, "unknown event"));
                    }
                    event_queues.host_set(*e);
                }
                HostOp::FlushMappedMemoryRanges(ranges) | HostOp::InvalidateMappedMemoryRanges(ranges) => {
                    for (i, r) in ranges.iter().enumerate() {
                        let m = w.memories.get(r.memory).ok_or_else(|| invalid(&at, format!("ranges[{i}]: unknown memory")))?;
                        if !m.properties.host_visible {
                            return Err(invalid(at, format!("ranges[{i}]: memory `{}` is not HOST_VISIBLE, so it cannot be mapped", m.name)));
                        }
                    }
                }
                HostOp::DeviceWaitIdle => {}
            }
            submit_batches.push(Vec::new());
        }
        let mut prog = Program { workload: w, instances, submit_batches, host_tags, writers, memory_base, address_space: next, actions: Vec::new(), render: Vec::new() };
        // Every command is checked: lower each once (graphics commands with the state recorded
        // before them).
        let mut render = crate::api::render::lower_all(&prog).map_err(|(cb, k, m)| {
            let desc = &w.command_buffers[cb];
            let name = desc.commands.get(k).map_or("vkEndCommandBuffer", |c| c.vk_name());
            invalid(format!("command_buffers[{}].commands[{k}] ({name})", desc.name), m)
        })?;
        prog.actions = w
            .command_buffers
            .iter()
            .enumerate()
            .map(|(i, cb)| cb.commands.iter().enumerate().map(|(k, c)| lower(&prog, c).or_else(|| render[i][k].as_mut().and_then(|r| r.action.take()))).collect())
            .collect();
        prog.render = render;
        Ok(prog)
    }

    /// The action command instance `inst` runs (`None` for a synchronization command).
    pub fn action(&self, inst: usize) -> Option<&Action<'w>> {
        let ins = &self.instances[inst];
        self.command_action(ins.cb, ins.index)
    }

    /// What graphics command `index` of command buffer `cb` lowers to besides its action.
    pub(crate) fn render_lowered(&self, cb: usize, index: usize) -> Option<&crate::api::render::RenderLowered<'w>> {
        self.render.get(cb)?.get(index)?.as_ref()
    }

    /// The synchronization command instance `inst` runs (`None` for an action command): a
    /// render pass's begin, next subpass and end perform a dependency too (`api/render.rs`).
    pub fn sync_command(&self, inst: usize) -> Option<SyncCommand<'_>> {
        let ins = &self.instances[inst];
        if let Some(dep) = self.render_lowered(ins.cb, ins.index).and_then(|r| r.sync.as_ref()) {
            return Some(SyncCommand::Barrier(dep));
        }
        Some(match &self.workload.command_buffers[ins.cb].commands[ins.index] {
            Command::PipelineBarrier(d) => SyncCommand::Barrier(d),
            Command::SetEvent { event, dependency } => SyncCommand::SetEvent { event: *event, dependency },
            Command::WaitEvents { events, dependency } => SyncCommand::WaitEvents { events, dependency },
            Command::ResetEvent { event, .. } => SyncCommand::ResetEvent { event: *event },
            Command::FillBuffer { .. }
            | Command::UpdateBuffer { .. }
            | Command::CopyBuffer { .. }
            | Command::CopyBufferToImage { .. }
            | Command::CopyImageToBuffer { .. }
            | Command::CopyImage { .. }
            | Command::BlitImage { .. }
            | Command::ClearColorImage { .. }
            | Command::ClearDepthStencilImage { .. }
            | Command::Dispatch { .. } => return None,
            Command::BeginRenderPass { .. }
            | Command::NextSubpass
            | Command::EndRenderPass
            | Command::BeginRendering(_)
            | Command::EndRendering
            | Command::BindVertexBuffers { .. }
            | Command::BindIndexBuffer { .. }
            | Command::SetViewport(_)
            | Command::SetScissor(_)
            | Command::Draw { .. }
            | Command::ClearAttachments { .. } => return None,
        })
    }

    /// The Vulkan name of command instance `inst`'s command (`vkCmdCopyBuffer`).
    pub fn vk_name(&self, inst: usize) -> &'static str {
        let ins = &self.instances[inst];
        self.workload.command_buffers[ins.cb].commands[ins.index].vk_name()
    }

    /// The action of command `index` of command buffer `cb` (`None` for a synchronization
    /// command).
    pub fn command_action(&self, cb: usize, index: usize) -> Option<&Action<'w>> {
        self.actions.get(cb)?.get(index)?.as_ref()
    }

    /// Device address of byte `offset` of resource `b`: a buffer (an index into the workload's
    /// buffers) or, past them, an image ([`Program::image_resource`]).
    pub fn buffer_addr(&self, b: usize, offset: u64) -> u64 {
        match self.workload.buffers.get(b) {
            Some(buf) => self.memory_base[buf.memory] + buf.offset + offset,
            None => {
                let im = &self.workload.images[b - self.workload.buffers.len()];
                self.memory_base[im.memory] + im.offset + offset
            }
        }
    }

    /// The resource index of image `i`: resources are the buffers, then the images, so that a
    /// usage, a copy's source and a finding name either.
    pub fn image_resource(&self, i: usize) -> usize {
        self.workload.buffers.len() + i
    }

    /// The image resource `r` is, if it is one (`None` for a buffer).
    pub fn resource_image(&self, r: usize) -> Option<usize> {
        r.checked_sub(self.workload.buffers.len()).filter(|&i| i < self.workload.images.len())
    }

    /// The name of resource `r` (a buffer's or an image's id).
    pub fn resource_name(&self, r: usize) -> &str {
        match self.workload.buffers.get(r) {
            Some(b) => &b.name,
            None => &self.workload.images[r - self.workload.buffers.len()].name,
        }
    }

    /// The resource (buffer, then image) named `name`.
    pub fn resource_by_name(&self, name: &str) -> Option<usize> {
        let w = self.workload;
        w.buffers.iter().position(|b| b.name == name).or_else(|| w.images.iter().position(|i| i.name == name).map(|i| w.buffers.len() + i))
    }

    /// The resource bound at `offset` of memory object `m` (a buffer first, then an image), and
    /// the offset in it.
    pub fn resource_at(&self, m: usize, offset: u64) -> Option<(usize, u64)> {
        let w = self.workload;
        if let Some(b) = w.buffers.iter().position(|b| b.memory == m && b.offset <= offset && offset < b.offset + b.size) {
            return Some((b, offset - w.buffers[b].offset));
        }
        let i = w.images.iter().position(|i| i.memory == m && i.offset <= offset && offset < i.offset + i.layout.size)?;
        Some((w.buffers.len() + i, offset - w.images[i].offset))
    }

    /// The size of resource `r` in bytes.
    pub fn resource_size(&self, r: usize) -> u64 {
        match self.workload.buffers.get(r) {
            Some(b) => b.size,
            None => self.workload.images[r - self.workload.buffers.len()].layout.size,
        }
    }

    /// The command instance `at` names, found among its submission batch's instances.
    pub fn instance_of(&self, at: &CommandRef) -> Option<usize> {
        let range = self.submit_batches.get(at.submit)?.get(at.batch)?.clone();
        range.into_iter().find(|&i| self.instances[i].at == *at)
    }

    /// The writer of a tag.
    pub fn writer(&self, tag: Tag) -> &Writer {
        self.writers.get(tag as usize).unwrap_or(&Writer::Initial)
    }

    /// The memory object holding device address `addr`, and the offset in it.
    pub fn memory_at(&self, addr: u64) -> Option<(usize, u64)> {
        let i = self.memory_base.partition_point(|&b| b <= addr).checked_sub(1)?;
        let off = addr - self.memory_base[i];
        (off < self.workload.memories[i].size).then_some((i, off))
    }
}

/// The size a fill covers (VK_WHOLE_SIZE: to the end of the buffer, rounded down to 4 bytes).
pub fn fill_size(buffer_size: u64, offset: u64, size: Option<u64>) -> u64 {
    size.unwrap_or_else(|| buffer_size.saturating_sub(offset) & !3)
}

fn check_command(w: &Workload, c: &Command) -> Result<(), String> {
    let buf = |b: usize| w.buffers.get(b).ok_or_else(|| format!("unknown buffer index {b}"));
    match c {
        Command::FillBuffer { dst, offset, size, .. } => {
            let b = buf(*dst)?;
            let n = fill_size(b.size, *offset, *size);
            if !offset.is_multiple_of(4) || !n.is_multiple_of(4) {
                return Err(format!("dst_offset {offset} and size {n} must be multiples of 4"));
            }
            if !fits(*offset, n, b.size) {
                return Err(format!("range [{offset}, +{n}) is outside buffer `{}` of {} bytes", b.name, b.size));
            }
        }
        Command::UpdateBuffer { dst, offset, data } => {
            let b = buf(*dst)?;
            if data.is_empty() || data.len() > MAX_UPDATE_BYTES || data.len() % 4 != 0 || offset % 4 != 0 {
                return Err(format!(
                    "data size {} must be a non-zero multiple of 4 of at most {MAX_UPDATE_BYTES} bytes, dst_offset ({offset}) a multiple of 4",
                    data.len()
                ));
            }
            if !fits(*offset, data.len() as u64, b.size) {
                return Err(format!("range [{offset}, +{}) is outside buffer `{}` of {} bytes", data.len(), b.name, b.size));
            }
        }
        Command::CopyBuffer { src, dst, regions } => {
            let (s, d) = (buf(*src)?, buf(*dst)?);
            if regions.is_empty() {
                return Err("a copy needs at least one region".into());
            }
            for (i, r) in regions.iter().enumerate() {
                if r.size == 0 {
                    return Err(format!("regions[{i}]: size must not be zero"));
                }
                if !fits(r.src_offset, r.size, s.size) {
                    return Err(format!("regions[{i}]: source range [{}, +{}) is outside buffer `{}` of {} bytes", r.src_offset, r.size, s.name, s.size));
                }
                if !fits(r.dst_offset, r.size, d.size) {
                    return Err(format!("regions[{i}]: destination range [{}, +{}) is outside buffer `{}` of {} bytes", r.dst_offset, r.size, d.name, d.size));
                }
            }
        }
        Command::CopyBufferToImage { src: b, dst: i, regions, .. } | Command::CopyImageToBuffer { src: i, dst: b, regions, .. } => {
            buf(*b)?;
            let im = w.images.get(*i).ok_or_else(|| format!("unknown image index {i}"))?;
            if regions.is_empty() {
                return Err("a copy needs at least one region".into());
            }
            for (k, r) in regions.iter().enumerate() {
                let s = r.subresource;
                let level = im.layout.desc.level_extent(s.mip_level);
                let inside = s.mip_level < im.layout.desc.mip_levels
                    && s.layer_count > 0
                    && s.base_array_layer as u64 + s.layer_count as u64 <= im.layout.desc.array_layers as u64
                    && (0..3).all(|d| r.image_extent[d] > 0 && r.image_offset[d] as u64 + r.image_extent[d] as u64 <= level[d] as u64);
                if !inside {
                    return Err(format!("regions[{k}]: the texels are not within image `{}`", im.name));
                }
            }
        }
        Command::BlitImage { src, dst, regions, .. } => {
            let (si, di) = (w.images.get(*src).ok_or_else(|| format!("unknown image index {src}"))?, w.images.get(*dst).ok_or_else(|| format!("unknown image index {dst}"))?);
            if regions.is_empty() {
                return Err("a blit needs at least one region".into());
            }
            if si.layout.desc.format.is_depth_stencil() || di.layout.desc.format.is_depth_stencil() {
                return Err("blits of depth/stencil images are not supported yet by the engine".into());
            }
            let inside = |im: &crate::api::ImageBinding, s: &crate::api::SubresourceLayers, o: &[[u32; 3]; 2]| {
                let level = im.layout.desc.level_extent(s.mip_level);
                s.mip_level < im.layout.desc.mip_levels
                    && s.layer_count > 0
                    && s.aspect == sim_rop::Aspect::Color
                    && s.base_array_layer as u64 + s.layer_count as u64 <= im.layout.desc.array_layers as u64
                    && o.iter().all(|c| (0..3).all(|d| c[d] <= level[d]))
            };
            for (k, r) in regions.iter().enumerate() {
                if r.src_subresource.layer_count != r.dst_subresource.layer_count {
                    return Err(format!("regions[{k}]: the source and the destination have different layer counts"));
                }
                if !inside(si, &r.src_subresource, &r.src_offsets) || !inside(di, &r.dst_subresource, &r.dst_offsets) {
                    return Err(format!("regions[{k}]: the offsets are not within images `{}` and `{}`", si.name, di.name));
                }
            }
        }
        Command::CopyImage { src, dst, regions, .. } => {
            let (si, di) = (w.images.get(*src).ok_or_else(|| format!("unknown image index {src}"))?, w.images.get(*dst).ok_or_else(|| format!("unknown image index {dst}"))?);
            if regions.is_empty() {
                return Err("a copy needs at least one region".into());
            }
            if si.layout.desc.format.plane_bytes(sim_rop::Aspect::Color) != di.layout.desc.format.plane_bytes(sim_rop::Aspect::Color) {
                return Err(format!("images `{}` and `{}` are not size-compatible", si.name, di.name));
            }
            let inside = |im: &crate::api::ImageBinding, s: &crate::api::SubresourceLayers, o: [u32; 3], e: [u32; 3]| {
                let level = im.layout.desc.level_extent(s.mip_level);
                s.mip_level < im.layout.desc.mip_levels
                    && s.layer_count > 0
                    && s.base_array_layer as u64 + s.layer_count as u64 <= im.layout.desc.array_layers as u64
                    && im.layout.desc.format.plane_bytes(s.aspect).is_some()
                    && (0..3).all(|d| e[d] > 0 && o[d] as u64 + e[d] as u64 <= level[d] as u64)
            };
            for (k, r) in regions.iter().enumerate() {
                if r.src_subresource.layer_count != r.dst_subresource.layer_count || r.src_subresource.aspect != r.dst_subresource.aspect {
                    return Err(format!("regions[{k}]: the source's and destination's subresources differ in aspect or layers"));
                }
                if !inside(si, &r.src_subresource, r.src_offset, r.extent) || !inside(di, &r.dst_subresource, r.dst_offset, r.extent) {
                    return Err(format!("regions[{k}]: the texels are not within images `{}` and `{}`", si.name, di.name));
                }
            }
        }
        Command::ClearColorImage { image, ranges, .. } | Command::ClearDepthStencilImage { image, ranges, .. } => {
            let im = w.images.get(*image).ok_or_else(|| format!("unknown image index {image}"))?;
            if ranges.iter().any(|r| im.layout.range_bytes(r).is_none()) {
                return Err(format!("a range names subresources image `{}` does not have", im.name));
            }
        }
        Command::Dispatch { pipeline, group_count, bindings, images, .. } => {
            let (name, p) = w.pipelines.get(*pipeline).ok_or_else(|| format!("unknown pipeline index {pipeline}"))?;
            // In u128: three u32 counts can pass 2^64, and a wrapped product would pass the cap.
            let groups = group_count.iter().map(|&g| g as u128).product::<u128>();
            if groups > MAX_WORKGROUPS_PER_DISPATCH as u128 {
                return Err(format!("{groups} workgroups exceed the simulator's cap of {MAX_WORKGROUPS_PER_DISPATCH}"));
            }
            check_descriptors(w, bindings, images)?;
            check_bindings(p, bindings, images).map_err(|m| format!("pipeline `{name}`: {m}"))?;
        }
        Command::PipelineBarrier(dep) | Command::SetEvent { dependency: dep, .. } | Command::WaitEvents { dependency: dep, .. } => {
            for b in &dep.image_memory_barriers {
                let im = w.images.get(b.image).ok_or_else(|| format!("unknown image index {}", b.image))?;
                if im.layout.range_bytes(&b.range).is_none() {
                    return Err(format!("an image barrier names subresources image `{}` does not have", im.name));
                }
            }
            for b in &dep.buffer_memory_barriers {
                let bb = buf(b.buffer)?;
                let size = b.size.unwrap_or(bb.size.saturating_sub(b.offset));
                if !fits(b.offset, size, bb.size) {
                    return Err(format!("buffer barrier range [{}, +{size}) is outside buffer `{}`", b.offset, bb.name));
                }
            }
            // Each access must be performed by a stage of its stage mask (the loader checks
            // traces first, with the synchronization1 shape's own VUIDs and the exact JSON path).
            use crate::sync::valid::{BarrierKind, Shape, check_access_stages};
            for (i, b) in dep.memory_barriers.iter().enumerate() {
                check_access_stages(b, BarrierKind::Memory, Shape::Sync2).map_err(|e| format!("memory_barriers[{i}]: {e}"))?;
            }
            for (i, b) in dep.buffer_memory_barriers.iter().enumerate() {
                check_access_stages(&b.barrier, BarrierKind::Buffer, Shape::Sync2).map_err(|e| format!("buffer_memory_barriers[{i}]: {e}"))?;
            }
            match c {
                Command::SetEvent { event, .. } if *event >= w.events.len() => return Err("unknown event".into()),
                Command::WaitEvents { events, .. } if events.iter().any(|&e| e >= w.events.len()) => return Err("unknown event".into()),
                _ => {}
            }
        }
        Command::ResetEvent { event, .. } => {
            if *event >= w.events.len() {
                return Err("unknown event".into());
            }
        }
        Command::BeginRenderPass { .. }
        | Command::NextSubpass
        | Command::EndRenderPass
        | Command::BeginRendering(_)
        | Command::EndRendering
        | Command::BindVertexBuffers { .. }
        | Command::BindIndexBuffer { .. }
        | Command::SetViewport(_)
        | Command::SetScissor(_)
        | Command::ClearAttachments { .. } => {}
        Command::Draw { pipeline, kind, bindings, images, .. } => {
            w.graphics_pipelines.get(*pipeline).ok_or_else(|| format!("unknown graphics pipeline index {pipeline}"))?;
            let counts = match *kind {
                crate::api::DrawKind::Direct { vertex_count, instance_count, .. } => u64::from(vertex_count) * u64::from(instance_count),
                crate::api::DrawKind::Indexed { index_count, instance_count, .. } => u64::from(index_count) * u64::from(instance_count),
                crate::api::DrawKind::Indirect { buffer, offset, draw_count, stride, indexed } => {
                    let b = buf(buffer)?;
                    let record = if indexed { 20 } else { 16 };
                    if draw_count > 1 && (stride < record || !stride.is_multiple_of(4)) {
                        return Err(format!("VUID-{}-drawCount-00476: stride {stride} is not a multiple of 4 of at least {record}", kind.vk_name()));
                    }
                    if !offset.is_multiple_of(4) {
                        return Err(format!("VUID-{}-offset-02710: offset {offset} is not a multiple of 4", kind.vk_name()));
                    }
                    let len = if draw_count == 0 { 0 } else { u64::from(draw_count - 1) * u64::from(stride) + u64::from(record) };
                    if !fits(offset, len, b.size) {
                        return Err(format!("VUID-{}-drawCount-00488: {draw_count} records of {record} bytes from offset {offset}, {stride} apart, are outside buffer `{}` of {} bytes", kind.vk_name(), b.name, b.size));
                    }
                    if draw_count > MAX_INDIRECT_DRAWS {
                        return Err(format!("draw_count {draw_count} exceeds the simulator's cap of {MAX_INDIRECT_DRAWS}"));
                    }
                    0
                }
            };
            if counts > MAX_DRAW_VERTICES {
                return Err(format!("{counts} vertices (counts times instances) exceed the simulator's cap of {MAX_DRAW_VERTICES} a draw"));
            }
            check_descriptors(w, bindings, images)?;
        }
    }
    Ok(())
}

/// A dispatch's or draw's descriptors: buffer ranges within their buffers, image views within
/// their images, samplers that exist, and an image exactly where the descriptor type takes one.
fn check_descriptors(w: &Workload, bindings: &[BufferBinding], images: &[crate::api::ImageDescriptor]) -> Result<(), String> {
    for (i, bd) in bindings.iter().enumerate() {
        let b = w.buffers.get(bd.buffer).ok_or_else(|| format!("unknown buffer index {}", bd.buffer))?;
        let range = bd.range.unwrap_or(b.size.saturating_sub(bd.offset));
        if range == 0 || !fits(bd.offset, range, b.size) {
            return Err(format!("bindings[{i}]: range [{}, +{range}) is outside buffer `{}` of {} bytes", bd.offset, b.name, b.size));
        }
    }
    for (i, d) in images.iter().enumerate() {
        if let Some(im) = d.image {
            let im = w.images.get(im).ok_or_else(|| format!("images[{i}]: unknown image index {im}"))?;
            if im.layout.range_bytes(&d.range).is_none() {
                return Err(format!("images[{i}]: the view names subresources image `{}` does not have", im.name));
            }
        }
        if d.sampler.is_some_and(|s| s >= w.samplers.len()) {
            return Err(format!("images[{i}]: unknown sampler index"));
        }
        if d.image.is_none() != (d.descriptor_type == crate::api::ImageDescriptorType::Sampler) {
            return Err(format!("images[{i}]: a {} descriptor {} an image", d.descriptor_type.vk_name(), if d.image.is_none() { "needs" } else { "takes no" }));
        }
    }
    Ok(())
}

/// Checks that every binding the pipeline uses is bound by exactly one descriptor whose range
/// is large enough. A descriptor for a binding the entry point does not use (declared but not
/// accessed, or not declared at all) is valid in Vulkan, whose pipeline layout may hold more
/// than a shader reads, and is ignored.
pub fn check_bindings(p: &ComputePipeline, bindings: &[BufferBinding], images: &[crate::api::ImageDescriptor]) -> Result<(), String> {
    for info in p.bindings() {
        let at = |set: u32, binding: u32| set == info.group && binding == info.binding;
        let buffers = bindings.iter().filter(|b| at(b.set, b.binding)).count();
        let views = images.iter().filter(|d| at(d.set, d.binding)).count();
        let found = buffers + views;
        if found == 0 {
            return Err(format!("binding (set {}, binding {}) used by the shader is not bound", info.group, info.binding));
        }
        if found > 1 {
            return Err(format!("binding (set {}, binding {}) is bound twice", info.group, info.binding));
        }
        let is_buffer = matches!(info.kind, BindingKind::StorageBuffer { .. } | BindingKind::UniformBuffer);
        if is_buffer != (buffers == 1) {
            let (declared, bound) = if is_buffer { ("a buffer", "an image or sampler") } else { ("an image or sampler", "a buffer") };
            return Err(format!("binding (set {}, binding {}) is {declared} in the shader, and {bound} is bound there", info.group, info.binding));
        }
    }
    Ok(())
}

fn stage_access(s: S, a: A) -> StageAccess {
    StageAccess::new(s, a).expect("a legal usage")
}

/// Lowers one command (already checked) of `w`; `None` for a synchronization command.
fn lower<'w>(prog: &Program<'w>, c: &'w Command) -> Option<Action<'w>> {
    let w: &Workload = prog.workload;
    let at = |b: usize, off: u64, len: u64| prog.buffer_addr(b, off)..prog.buffer_addr(b, off) + len;
    let plain = |buffer: usize, range: std::ops::Range<u64>, usage: StageAccess| Usage { buffer, range, usage, coherent: false, atomic_only: false, ordering: crate::api::action::Ordering::None };
    Some(match c {
        Command::FillBuffer { dst, offset, size, data } => {
            let n = fill_size(w.buffers[*dst].size, *offset, *size);
            Action { vk_name: c.vk_name(), stages: S::CLEAR, usages: vec![plain(*dst, at(*dst, *offset, n), stage_access(S::CLEAR, A::TRANSFER_WRITE))], work: Work::Fill { dst: *dst, addr: prog.buffer_addr(*dst, *offset), size: n, pattern: *data } }
        }
        Command::UpdateBuffer { dst, offset, data } => Action {
            vk_name: c.vk_name(),
            stages: S::CLEAR,
            usages: vec![plain(*dst, at(*dst, *offset, data.len() as u64), stage_access(S::CLEAR, A::TRANSFER_WRITE))],
            work: Work::Update { dst: *dst, addr: prog.buffer_addr(*dst, *offset), data },
        },
        Command::CopyBuffer { src, dst, regions } => Action {
            vk_name: c.vk_name(),
            stages: S::COPY,
            usages: regions
                .iter()
                .flat_map(|r| [plain(*src, at(*src, r.src_offset, r.size), stage_access(S::COPY, A::TRANSFER_READ)), plain(*dst, at(*dst, r.dst_offset, r.size), stage_access(S::COPY, A::TRANSFER_WRITE))])
                .collect(),
            work: Work::Copy {
                src: *src,
                dst: *dst,
                regions: regions.iter().map(|r| CopyRange { src_addr: prog.buffer_addr(*src, r.src_offset), src_offset: r.src_offset, dst_addr: prog.buffer_addr(*dst, r.dst_offset), size: r.size }).collect(),
            },
        },
        Command::Dispatch { pipeline, group_count, base_group, bindings, push_constants, images } => {
            let info = w.pipelines[*pipeline].1.bindings();
            // A storage buffer the entry point stores to is written (one write standing for its
            // reads too, as in the layer); one it never stores to is read; a uniform buffer is
            // read. A descriptor the entry point does not use is no usage.
            let usages = bindings
                .iter()
                .filter_map(|b| {
                    let i = info.iter().find(|i| i.group == b.set && i.binding == b.binding)?;
                    let access = match i.kind {
                        BindingKind::UniformBuffer => A::UNIFORM_READ,
                        BindingKind::StorageBuffer { .. } if i.written => A::SHADER_STORAGE_WRITE,
                        BindingKind::StorageBuffer { .. } => A::SHADER_STORAGE_READ,
                        // Images and samplers are bound by image descriptors, never here.
                        _ => return None,
                    };
                    let len = b.range.unwrap_or(w.buffers[b.buffer].size.saturating_sub(b.offset));
                    Some(Usage { buffer: b.buffer, range: at(b.buffer, b.offset, len), usage: stage_access(S::COMPUTE_SHADER, access), coherent: i.coherent || i.atomic_only, atomic_only: i.atomic_only, ordering: crate::api::action::Ordering::None })
                })
                .collect::<Vec<_>>();
            // An image the shader samples is a sampled read of the view's bytes; one it stores to
            // is a storage write (standing for its reads too, as for buffers); one it only loads
            // from is a storage read.
            let mut usages = usages;
            for d in images {
                let (Some(image), Some(i)) = (d.image, info.iter().find(|i| i.group == d.set && i.binding == d.binding)) else { continue };
                let access = match i.kind {
                    BindingKind::SampledImage { .. } => A::SHADER_SAMPLED_READ,
                    BindingKind::StorageImage { .. } if i.written => A::SHADER_STORAGE_WRITE,
                    BindingKind::StorageImage { .. } => A::SHADER_STORAGE_READ,
                    _ => continue,
                };
                let r = prog.image_resource(image);
                let base = prog.buffer_addr(r, 0);
                for (o, n) in w.images[image].layout.range_bytes(&d.range).unwrap_or_default() {
                    usages.push(Usage { buffer: r, range: base + o..base + o + n, usage: stage_access(S::COMPUTE_SHADER, access), coherent: false, atomic_only: false, ordering: crate::api::action::Ordering::None });
                }
            }
            Action { vk_name: c.vk_name(), stages: S::COMPUTE_SHADER, usages, work: Work::Dispatch { pipeline: *pipeline, group_count: *group_count, base_group: *base_group, bindings, push_constants, images } }
        }
        Command::CopyBufferToImage { src, dst, regions, .. } => {
            let (ranges, usages) = image_copy(prog, *src, *dst, regions, true);
            Action { vk_name: c.vk_name(), stages: S::COPY, usages, work: Work::Copy { src: *src, dst: prog.image_resource(*dst), regions: ranges } }
        }
        Command::CopyImageToBuffer { src, dst, regions, .. } => {
            let (ranges, usages) = image_copy(prog, *dst, *src, regions, false);
            Action { vk_name: c.vk_name(), stages: S::COPY, usages, work: Work::Copy { src: prog.image_resource(*src), dst: *dst, regions: ranges } }
        }
        Command::CopyImage { src, dst, regions, .. } => {
            let (ranges, usages) = copy_between_images(prog, *src, *dst, regions);
            Action { vk_name: c.vk_name(), stages: S::COPY, usages, work: Work::Copy { src: prog.image_resource(*src), dst: prog.image_resource(*dst), regions: ranges } }
        }
        Command::BlitImage { src, dst, regions, filter, .. } => {
            let (runs, usages) = blit_runs(prog, *src, *dst, regions);
            Action {
                vk_name: c.vk_name(),
                stages: S::BLIT,
                usages,
                work: Work::Blit { src: prog.image_resource(*src), dst: prog.image_resource(*dst), src_image: *src, dst_image: *dst, regions, filter: *filter, runs },
            }
        }
        Command::ClearColorImage { image, texel, ranges, .. } => {
            let planes = [(sim_rop::Aspect::Color, texel.clone())];
            clear_action(prog, c.vk_name(), *image, ranges, &planes)
        }
        Command::ClearDepthStencilImage { image, depth, stencil, ranges, .. } => {
            let format = w.images[*image].layout.desc.format;
            let value = sim_rop::ClearValue::DepthStencil { depth: *depth, stencil: *stencil };
            let planes: Vec<(sim_rop::Aspect, Vec<u8>)> = format.aspects().iter().filter_map(|&a| Some((a, format.encode(a, &value)?))).collect();
            clear_action(prog, c.vk_name(), *image, ranges, &planes)
        }
        Command::PipelineBarrier(_) | Command::SetEvent { .. } | Command::WaitEvents { .. } | Command::ResetEvent { .. } => return None,
        Command::BeginRenderPass { .. }
        | Command::NextSubpass
        | Command::EndRenderPass
        | Command::BeginRendering(_)
        | Command::EndRendering
        | Command::BindVertexBuffers { .. }
        | Command::BindIndexBuffer { .. }
        | Command::SetViewport(_)
        | Command::SetScissor(_)
        | Command::Draw { .. }
        | Command::ClearAttachments { .. } => return None,
    })
}

/// A clear of the subresources `ranges` of `image`: each plane of `planes` (aspect, one texel)
/// its range names set to its texel, as spans of device addresses in order.
fn clear_action<'w>(prog: &Program<'w>, vk_name: &'static str, image: usize, ranges: &[sim_rop::SubresourceRange], planes: &[(sim_rop::Aspect, Vec<u8>)]) -> Action<'w> {
    let im = &prog.workload.images[image];
    let r = prog.image_resource(image);
    let base = prog.buffer_addr(r, 0);
    let mut spans: Vec<ClearSpan> = Vec::new();
    for range in ranges {
        for (aspect, bytes) in planes {
            if !range.aspects[*aspect as usize] {
                continue;
            }
            let mut aspects = [false; 3];
            aspects[*aspect as usize] = true;
            let mut texel = [0u8; 16];
            let n = bytes.len().min(16);
            texel[..n].copy_from_slice(&bytes[..n]);
            for (o, size) in im.layout.range_bytes(&sim_rop::SubresourceRange { aspects, ..*range }).unwrap_or_default() {
                spans.push(ClearSpan { addr: base + o, size, texel, texel_bytes: n as u8 });
            }
        }
    }
    spans.sort_unstable_by_key(|s| (s.addr, s.size));
    spans.dedup();
    let usages = spans.iter().map(|s| Usage { buffer: r, range: s.addr..s.addr + s.size, usage: stage_access(S::CLEAR, A::TRANSFER_WRITE), coherent: false, atomic_only: false, ordering: crate::api::action::Ordering::None }).collect();
    Action { vk_name, stages: S::CLEAR, usages, work: Work::Clear { dst: r, spans } }
}

/// A copy between buffer `buffer` and image `image` (`to_image`: the buffer is the source) as
/// contiguous runs of bytes, and its usages: the buffer's bytes each region spans, and the
/// subresources each region names. A run of texels is contiguous in an optimal image up to a
/// tile's edge (8 texels) and in a linear one along its row; runs that continue each other on
/// both sides are joined.
fn image_copy(prog: &Program<'_>, buffer: usize, image: usize, regions: &[crate::api::BufferImageCopy], to_image: bool) -> (Vec<CopyRange>, Vec<Usage>) {
    let im = &prog.workload.images[image];
    let r = prog.image_resource(image);
    let image_base = prog.buffer_addr(r, 0);
    let optimal = im.layout.desc.tiling == sim_rop::Tiling::Optimal;
    let (mut runs, mut usages): (Vec<CopyRange>, Vec<Usage>) = (Vec::new(), Vec::new());
    let (read, write) = (stage_access(S::COPY, A::TRANSFER_READ), stage_access(S::COPY, A::TRANSFER_WRITE));
    for g in regions {
        let sub = g.subresource;
        let b = u64::from(im.layout.desc.format.plane_bytes(sub.aspect).unwrap_or(1));
        let [ox, oy, oz] = g.image_offset;
        let [ex, ey, ez] = g.image_extent;
        let w = u64::from(if g.buffer_row_length == 0 { ex } else { g.buffer_row_length });
        let h = u64::from(if g.buffer_image_height == 0 { ey } else { g.buffer_image_height });
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for l in 0..sub.layer_count {
            for z in 0..ez {
                for y in 0..ey {
                    let mut x = 0;
                    while x < ex {
                        // Texels to the tile's edge (optimal) or the row's end (linear).
                        let n = if optimal { (sim_rop::layout::TILE_DIM - (ox + x) % sim_rop::layout::TILE_DIM).min(ex - x) } else { ex - x };
                        let Some(img) = im.layout.texel_offset(sub.aspect, sub.mip_level, sub.base_array_layer + l, [ox + x, oy + y, oz + z]) else { break };
                        let slice = u64::from(l) * u64::from(ez) + u64::from(z);
                        let boff = g.buffer_offset + ((slice * h + u64::from(y)) * w + u64::from(x)) * b;
                        let size = u64::from(n) * b;
                        lo = lo.min(boff);
                        hi = hi.max(boff + size);
                        let (src_addr, src_offset, dst_addr) = if to_image { (prog.buffer_addr(buffer, boff), boff, image_base + img) } else { (image_base + img, img, prog.buffer_addr(buffer, boff)) };
                        match runs.last_mut() {
                            Some(p) if p.src_addr + p.size == src_addr && p.dst_addr + p.size == dst_addr => p.size += size,
                            _ => runs.push(CopyRange { src_addr, src_offset, dst_addr, size }),
                        }
                        x += n;
                    }
                }
            }
        }
        let buffer_usage = |u| Usage { buffer, range: prog.buffer_addr(buffer, lo)..prog.buffer_addr(buffer, hi), usage: u, coherent: false, atomic_only: false, ordering: crate::api::action::Ordering::None };
        let image_usages = layer_usages(im, r, image_base, sub, if to_image { write } else { read });
        if to_image {
            usages.push(buffer_usage(read));
            usages.extend(image_usages);
        } else {
            usages.extend(image_usages);
            usages.push(buffer_usage(write));
        }
    }
    (runs, usages)
}

/// The usages `usage` of image `im` (resource `resource`, its first byte at device address
/// `base`) over the bytes of subresources `sub`.
fn layer_usages(im: &crate::api::ImageBinding, resource: usize, base: u64, sub: crate::api::SubresourceLayers, usage: StageAccess) -> Vec<Usage> {
    im.layout.range_bytes(&sub.range()).unwrap_or_default().into_iter().map(|(o, n)| Usage { buffer: resource, range: base + o..base + o + n, usage, coherent: false, atomic_only: false, ordering: crate::api::action::Ordering::None }).collect()
}

/// A vkCmdBlitImage's destination texels as runs of contiguous bytes (a run ends at a tile's
/// edge of an optimal destination, a row's end, or after [`crate::api::action::TRANSFER_CHUNK`]
/// bytes), in the order of the regions, layers, slices, rows and texels; and its usages: the
/// source's subresources read, the destination's written, at BLIT.
fn blit_runs(prog: &Program<'_>, src: usize, dst: usize, regions: &[crate::api::ImageBlit]) -> (Vec<crate::api::action::BlitRun>, Vec<Usage>) {
    let (si, di) = (&prog.workload.images[src], &prog.workload.images[dst]);
    let (sr, dr) = (prog.image_resource(src), prog.image_resource(dst));
    let (sbase, dbase) = (prog.buffer_addr(sr, 0), prog.buffer_addr(dr, 0));
    let tile = sim_rop::layout::TILE_DIM;
    let texel = di.layout.desc.format.plane_bytes(sim_rop::Aspect::Color).unwrap_or(4).max(1);
    let most = (crate::api::action::TRANSFER_CHUNK / u64::from(texel)).max(1) as u32;
    let (mut runs, mut usages) = (Vec::new(), Vec::new());
    for (ri, g) in regions.iter().enumerate() {
        let d = g.dst_subresource;
        let lo = |k: usize| g.dst_offsets[0][k].min(g.dst_offsets[1][k]);
        let hi = |k: usize| g.dst_offsets[0][k].max(g.dst_offsets[1][k]);
        for l in 0..d.layer_count {
            for z in lo(2)..hi(2) {
                for y in lo(1)..hi(1) {
                    let mut x = lo(0);
                    while x < hi(0) {
                        let left = hi(0) - x;
                        let n = if di.layout.desc.tiling == sim_rop::Tiling::Optimal { (tile - x % tile).min(left) } else { left }.min(most);
                        let Some(off) = di.layout.texel_offset(d.aspect, d.mip_level, d.base_array_layer + l, [x, y, z]) else { break };
                        runs.push(crate::api::action::BlitRun { region: ri as u32, layer: l, texel: [x, y, z], count: n, dst_addr: dbase + off, size: u64::from(n) * u64::from(texel) });
                        x += n;
                    }
                }
            }
        }
        let (read, write) = (stage_access(S::BLIT, A::TRANSFER_READ), stage_access(S::BLIT, A::TRANSFER_WRITE));
        for (im, r, base, sub, u) in [(si, sr, sbase, g.src_subresource, read), (di, dr, dbase, d, write)] {
            usages.extend(layer_usages(im, r, base, sub, u));
        }
    }
    (runs, usages)
}

/// A vkCmdCopyImage as runs of contiguous bytes on both sides (a run ends at a tile's edge of
/// either optimal image, or a row's end), in the order of the regions, layers, slices, rows and
/// texels; and its usages: the source's subresources read, the destination's written.
fn copy_between_images(prog: &Program<'_>, src: usize, dst: usize, regions: &[crate::api::ImageCopy]) -> (Vec<CopyRange>, Vec<Usage>) {
    let (si, di) = (&prog.workload.images[src], &prog.workload.images[dst]);
    let (sr, dr) = (prog.image_resource(src), prog.image_resource(dst));
    let (sbase, dbase) = (prog.buffer_addr(sr, 0), prog.buffer_addr(dr, 0));
    let tile = sim_rop::layout::TILE_DIM;
    // Texels from x to the end of its run: a tile's edge in an optimal image, else the row's end.
    let run = |im: &crate::api::ImageBinding, x: u32, left: u32| if im.layout.desc.tiling == sim_rop::Tiling::Optimal { (tile - x % tile).min(left) } else { left };
    let (mut runs, mut usages): (Vec<CopyRange>, Vec<Usage>) = (Vec::new(), Vec::new());
    let (read, write) = (stage_access(S::COPY, A::TRANSFER_READ), stage_access(S::COPY, A::TRANSFER_WRITE));
    for g in regions {
        let (s, d) = (g.src_subresource, g.dst_subresource);
        let b = u64::from(si.layout.desc.format.plane_bytes(s.aspect).unwrap_or(1));
        let [ex, ey, ez] = g.extent;
        for l in 0..s.layer_count {
            for z in 0..ez {
                for y in 0..ey {
                    let mut x = 0;
                    while x < ex {
                        let (sx, dx) = (g.src_offset[0] + x, g.dst_offset[0] + x);
                        let n = run(si, sx, ex - x).min(run(di, dx, ex - x));
                        let (Some(so), Some(dof)) = (
                            si.layout.texel_offset(s.aspect, s.mip_level, s.base_array_layer + l, [sx, g.src_offset[1] + y, g.src_offset[2] + z]),
                            di.layout.texel_offset(d.aspect, d.mip_level, d.base_array_layer + l, [dx, g.dst_offset[1] + y, g.dst_offset[2] + z]),
                        ) else {
                            break;
                        };
                        let size = u64::from(n) * b;
                        match runs.last_mut() {
                            Some(p) if p.src_addr + p.size == sbase + so && p.dst_addr + p.size == dbase + dof => p.size += size,
                            _ => runs.push(CopyRange { src_addr: sbase + so, src_offset: so, dst_addr: dbase + dof, size }),
                        }
                        x += n;
                    }
                }
            }
        }
        for (im, r, base, sub, u) in [(si, sr, sbase, s, read), (di, dr, dbase, d, write)] {
            usages.extend(layer_usages(im, r, base, sub, u));
        }
    }
    (runs, usages)
}
