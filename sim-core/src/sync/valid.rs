//! Valid usage of synchronization commands that the loader and [`Program`] enforce, with the
//! Vulkan specification's VUIDs:
//! - **Accesses a barrier's stages can perform.** An access type in an access mask must be
//!   performed by at least one stage of the matching stage mask (the specification's table of
//!   supported access types, `VkAccessFlagBits2`): [`check_access_stages`], [`unsupported_access`].
//! - **Events stay on one queue.** vkCmdWaitEvents / vkCmdWaitEvents2 must not wait on an event
//!   signal operation that occurs on another queue; only the same queue or the host may signal
//!   what a device wait waits on: [`EventQueues`].
//!
//! [`Program`]: crate::api::program::Program

use std::fmt;

use super::barrier::MemoryBarrier2;
use super::flags::{AccessFlags2 as A, PipelineStageFlags2 as S};

/// Stage bits of extensions gpusim has no name for (a trace can still give them in hex): only
/// so that an access they perform is not refused beside them.
mod ext {
    use super::S;
    pub const RAY_TRACING_SHADER: S = S(1 << 21);
    pub const FRAGMENT_DENSITY_PROCESS: S = S(1 << 23);
    pub const ACCELERATION_STRUCTURE_BUILD: S = S(1 << 25);
    pub const ACCELERATION_STRUCTURE_COPY: S = S(1 << 28);
    pub const MICROMAP_BUILD: S = S(1 << 30);
    pub const SUBPASS_SHADER: S = S(1 << 39);
    pub const INVOCATION_MASK: S = S(1 << 40);
    pub const CLUSTER_CULLING_SHADER: S = S(1 << 41);
    pub const CONVERT_COOPERATIVE_VECTOR_MATRIX: S = S(1 << 44);
    pub const COPY_INDIRECT: S = S(1 << 46);
}

/// Every `VK_PIPELINE_STAGE_*_SHADER_BIT` stage.
const SHADER_STAGES: S = S(S::VERTEX_SHADER.0
    | S::TESSELLATION_CONTROL_SHADER.0
    | S::TESSELLATION_EVALUATION_SHADER.0
    | S::GEOMETRY_SHADER.0
    | S::FRAGMENT_SHADER.0
    | S::COMPUTE_SHADER.0
    | S::TASK_SHADER.0
    | S::MESH_SHADER.0
    | ext::RAY_TRACING_SHADER.0
    | ext::SUBPASS_SHADER.0
    | ext::CLUSTER_CULLING_SHADER.0);

/// The stages `ALL_GRAPHICS` stands for (vk.xml's `syncequivalent` of the bit).
const ALL_GRAPHICS_STAGES: S = S(S::DRAW_INDIRECT.0
    | ext::COPY_INDIRECT.0
    | S::TASK_SHADER.0
    | S::MESH_SHADER.0
    | S::INDEX_INPUT.0
    | S::VERTEX_ATTRIBUTE_INPUT.0
    | S::VERTEX_SHADER.0
    | S::TESSELLATION_CONTROL_SHADER.0
    | S::TESSELLATION_EVALUATION_SHADER.0
    | S::GEOMETRY_SHADER.0
    | S::FRAGMENT_SHADER.0
    | S::EARLY_FRAGMENT_TESTS.0
    | S::LATE_FRAGMENT_TESTS.0
    | S::COLOR_ATTACHMENT_OUTPUT.0
    | S::CONDITIONAL_RENDERING.0
    | S::TRANSFORM_FEEDBACK.0
    | S::FRAGMENT_SHADING_RATE_ATTACHMENT.0
    | ext::FRAGMENT_DENSITY_PROCESS.0
    | ext::SUBPASS_SHADER.0
    | ext::INVOCATION_MASK.0
    | ext::CLUSTER_CULLING_SHADER.0);

/// One row of the table of supported access types: the access, the number of its
/// `VUID-VkMemoryBarrier2-srcAccessMask-NNNNN` (and siblings; `None` where the specification
/// gives the row no VUID of its own), the stages that perform it (meta stages expanded), and
/// how a message says so.
struct Row {
    access: A,
    vuid: Option<&'static str>,
    stages: S,
    text: &'static str,
}

const SHADERS_TEXT: &str = "a shader stage (VERTEX_SHADER, TESSELLATION_CONTROL_SHADER, TESSELLATION_EVALUATION_SHADER, GEOMETRY_SHADER, \
     FRAGMENT_SHADER, COMPUTE_SHADER, TASK_SHADER, MESH_SHADER), PRE_RASTERIZATION_SHADERS, ALL_GRAPHICS or ALL_COMMANDS";

/// The specification's table of supported access types (vk.xml's `syncaccess` entries) for
/// every access flag gpusim names. MEMORY_READ and MEMORY_WRITE are valid with any stage and
/// have no row.
const TABLE: &[Row] = &[
    Row {
        access: A::INDIRECT_COMMAND_READ,
        vuid: Some("03900"),
        stages: S(S::DRAW_INDIRECT.0 | ext::ACCELERATION_STRUCTURE_BUILD.0 | ext::COPY_INDIRECT.0),
        text: "DRAW_INDIRECT, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row { access: A::INDEX_READ, vuid: Some("03901"), stages: S::INDEX_INPUT, text: "INDEX_INPUT, VERTEX_INPUT, ALL_GRAPHICS or ALL_COMMANDS" },
    Row {
        access: A::VERTEX_ATTRIBUTE_READ,
        vuid: Some("03902"),
        stages: S::VERTEX_ATTRIBUTE_INPUT,
        text: "VERTEX_ATTRIBUTE_INPUT, VERTEX_INPUT, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row { access: A::UNIFORM_READ, vuid: Some("03904"), stages: SHADER_STAGES, text: SHADERS_TEXT },
    Row {
        access: A::INPUT_ATTACHMENT_READ,
        vuid: Some("03903"),
        stages: S(S::FRAGMENT_SHADER.0 | ext::SUBPASS_SHADER.0),
        text: "FRAGMENT_SHADER, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::SHADER_READ,
        vuid: Some("03908"),
        stages: S(SHADER_STAGES.0 | ext::ACCELERATION_STRUCTURE_BUILD.0 | ext::MICROMAP_BUILD.0),
        text: "a shader stage (VERTEX_SHADER, TESSELLATION_CONTROL_SHADER, TESSELLATION_EVALUATION_SHADER, GEOMETRY_SHADER, \
               FRAGMENT_SHADER, COMPUTE_SHADER, TASK_SHADER, MESH_SHADER), PRE_RASTERIZATION_SHADERS, ACCELERATION_STRUCTURE_BUILD, \
               ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row { access: A::SHADER_WRITE, vuid: Some("03909"), stages: SHADER_STAGES, text: SHADERS_TEXT },
    Row {
        access: A::COLOR_ATTACHMENT_READ,
        vuid: Some("03910"),
        // FRAGMENT_SHADER: tile image reads (VK_EXT_shader_tile_image).
        stages: S(S::COLOR_ATTACHMENT_OUTPUT.0 | S::FRAGMENT_SHADER.0),
        text: "COLOR_ATTACHMENT_OUTPUT, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::COLOR_ATTACHMENT_WRITE,
        vuid: Some("03911"),
        stages: S::COLOR_ATTACHMENT_OUTPUT,
        text: "COLOR_ATTACHMENT_OUTPUT, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::DEPTH_STENCIL_ATTACHMENT_READ,
        vuid: Some("03912"),
        // FRAGMENT_SHADER: tile image reads (VK_EXT_shader_tile_image).
        stages: S(S::EARLY_FRAGMENT_TESTS.0 | S::LATE_FRAGMENT_TESTS.0 | S::FRAGMENT_SHADER.0),
        text: "EARLY_FRAGMENT_TESTS, LATE_FRAGMENT_TESTS, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::DEPTH_STENCIL_ATTACHMENT_WRITE,
        vuid: Some("03913"),
        stages: S(S::EARLY_FRAGMENT_TESTS.0 | S::LATE_FRAGMENT_TESTS.0),
        text: "EARLY_FRAGMENT_TESTS, LATE_FRAGMENT_TESTS, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::TRANSFER_READ,
        vuid: Some("03914"),
        stages: S(S::COPY.0
            | S::BLIT.0
            | S::RESOLVE.0
            | ext::ACCELERATION_STRUCTURE_BUILD.0
            | ext::ACCELERATION_STRUCTURE_COPY.0
            | ext::MICROMAP_BUILD.0
            | ext::CONVERT_COOPERATIVE_VECTOR_MATRIX.0),
        text: "COPY, BLIT, RESOLVE, ALL_TRANSFER (TRANSFER) or ALL_COMMANDS",
    },
    Row {
        access: A::TRANSFER_WRITE,
        vuid: Some("03915"),
        stages: S(S::COPY.0
            | S::BLIT.0
            | S::RESOLVE.0
            | S::CLEAR.0
            | ext::ACCELERATION_STRUCTURE_BUILD.0
            | ext::ACCELERATION_STRUCTURE_COPY.0
            | ext::MICROMAP_BUILD.0
            | ext::CONVERT_COOPERATIVE_VECTOR_MATRIX.0),
        text: "COPY, BLIT, RESOLVE, CLEAR, ALL_TRANSFER (TRANSFER) or ALL_COMMANDS",
    },
    Row { access: A::HOST_READ, vuid: Some("03916"), stages: S::HOST, text: "HOST (ALL_COMMANDS does not include it)" },
    Row { access: A::HOST_WRITE, vuid: Some("03917"), stages: S::HOST, text: "HOST (ALL_COMMANDS does not include it)" },
    Row {
        access: A::CONDITIONAL_RENDERING_READ,
        vuid: Some("03918"),
        stages: S::CONDITIONAL_RENDERING,
        text: "CONDITIONAL_RENDERING, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::FRAGMENT_SHADING_RATE_ATTACHMENT_READ,
        vuid: None,
        stages: S::FRAGMENT_SHADING_RATE_ATTACHMENT,
        text: "FRAGMENT_SHADING_RATE_ATTACHMENT, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::TRANSFORM_FEEDBACK_WRITE,
        vuid: Some("03920"),
        stages: S::TRANSFORM_FEEDBACK,
        text: "TRANSFORM_FEEDBACK, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::TRANSFORM_FEEDBACK_COUNTER_READ,
        vuid: Some("04747"),
        stages: S(S::DRAW_INDIRECT.0 | S::TRANSFORM_FEEDBACK.0),
        text: "DRAW_INDIRECT, TRANSFORM_FEEDBACK, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row {
        access: A::TRANSFORM_FEEDBACK_COUNTER_WRITE,
        vuid: Some("03922"),
        stages: S::TRANSFORM_FEEDBACK,
        text: "TRANSFORM_FEEDBACK, ALL_GRAPHICS or ALL_COMMANDS",
    },
    Row { access: A::SHADER_SAMPLED_READ, vuid: Some("03905"), stages: SHADER_STAGES, text: SHADERS_TEXT },
    Row { access: A::SHADER_STORAGE_READ, vuid: Some("03906"), stages: SHADER_STAGES, text: SHADERS_TEXT },
    Row { access: A::SHADER_STORAGE_WRITE, vuid: Some("03907"), stages: SHADER_STAGES, text: SHADERS_TEXT },
];

fn row(access: A) -> Option<&'static Row> {
    TABLE.iter().find(|r| r.access == access)
}

/// `stages` with its meta stages replaced by the stages they stand for, for the table of
/// supported access types: ALL_GRAPHICS, ALL_TRANSFER, VERTEX_INPUT and
/// PRE_RASTERIZATION_SHADERS by their members (ALL_COMMANDS is handled by the caller: it allows
/// every device access). TOP_OF_PIPE and BOTTOM_OF_PIPE perform no access.
fn performing_stages(stages: S) -> S {
    let mut out = stages | crate::sync::scope::grouped_stage_members(stages);
    if stages.contains(S::ALL_GRAPHICS) {
        out |= ALL_GRAPHICS_STAGES;
    }
    // Extension members the core expansion leaves out.
    if stages.contains(S::ALL_TRANSFER) {
        out |= ext::ACCELERATION_STRUCTURE_COPY;
    }
    if stages.contains(S::PRE_RASTERIZATION_SHADERS) {
        out |= ext::CLUSTER_CULLING_SHADER;
    }
    out
}

/// True when some stage of `stages` performs `access` (one bit), by the specification's table
/// of supported access types. MEMORY_READ and MEMORY_WRITE are valid with any stage, every
/// access but HOST_READ and HOST_WRITE with ALL_COMMANDS; an access bit gpusim has no name for
/// is not judged (true).
pub fn stage_supports(stages: S, access: A) -> bool {
    if access == A::MEMORY_READ || access == A::MEMORY_WRITE {
        return true;
    }
    let Some(r) = row(access) else { return true };
    if stages.contains(S::ALL_COMMANDS) && r.stages != S::HOST {
        return true;
    }
    performing_stages(stages).intersects(r.stages)
}

/// The first access (lowest bit) of `access` that no stage of `stages` performs.
pub fn unsupported_access(stages: S, access: A) -> Option<A> {
    access.iter().find(|&a| !stage_supports(stages, a))
}

/// The stages the specification lists for `access` (one bit), as a message says them; `None`
/// for MEMORY_READ, MEMORY_WRITE (any stage) and unnamed bits.
pub fn supported_stages_text(access: A) -> Option<&'static str> {
    row(access).map(|r| r.text)
}

/// Which half of a barrier a mask belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `src_stage_mask` / `src_access_mask`.
    Src,
    /// `dst_stage_mask` / `dst_access_mask`.
    Dst,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Src => "src",
            Side::Dst => "dst",
        }
    }
}

/// The kind of barrier structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierKind {
    /// VkMemoryBarrier2 / VkMemoryBarrier.
    Memory,
    /// VkBufferMemoryBarrier2 / VkBufferMemoryBarrier.
    Buffer,
    /// VkImageMemoryBarrier2 / VkImageMemoryBarrier.
    Image,
}

/// How the barrier was given: in synchronization2's structures (the masks inside each barrier)
/// or in synchronization1's shape (the stage masks on the command), which has VUIDs of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// VkMemoryBarrier2 / VkBufferMemoryBarrier2 (vkCmdPipelineBarrier2, vkCmdSetEvent2,
    /// vkCmdWaitEvents2).
    Sync2,
    /// vkCmdPipelineBarrier with the stage masks on the command.
    Sync1PipelineBarrier,
    /// vkCmdWaitEvents with the stage masks on the command.
    Sync1WaitEvents,
}

/// An access in a barrier's access mask that no stage of its stage mask performs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessStageError {
    /// The half of the barrier.
    pub side: Side,
    /// The access (one bit).
    pub access: A,
    /// The stage mask it was paired with.
    pub stages: S,
    /// The rule broken, e.g. `VUID-VkMemoryBarrier2-srcAccessMask-03909`.
    pub vuid: String,
    /// True for the synchronization1 shape (the stage mask is the command's).
    pub sync1: bool,
}

impl AccessStageError {
    /// The trace field holding the access: `src_access_mask` or `dst_access_mask`.
    pub fn field(&self) -> &'static str {
        match self.side {
            Side::Src => "src_access_mask",
            Side::Dst => "dst_access_mask",
        }
    }
}

impl fmt::Display for AccessStageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = self.side.name();
        let whose = if self.sync1 { "the command's " } else { "" };
        write!(f, "{}: {side}_access_mask has {}, which no stage in {whose}{side}_stage_mask ({}) performs", self.vuid, self.access, self.stages)?;
        if let Some(text) = supported_stages_text(self.access) {
            write!(f, "; {} is performed only by {text}", self.access)?;
        }
        Ok(())
    }
}

fn vuid(shape: Shape, kind: BarrierKind, side: Side, access: A) -> String {
    let mask = match side {
        Side::Src => "srcAccessMask",
        Side::Dst => "dstAccessMask",
    };
    match shape {
        Shape::Sync2 => {
            let structure = match kind {
                BarrierKind::Memory => "VkMemoryBarrier2",
                BarrierKind::Buffer => "VkBufferMemoryBarrier2",
                BarrierKind::Image => "VkImageMemoryBarrier2",
            };
            match row(access).and_then(|r| r.vuid) {
                Some(n) => format!("VUID-{structure}-{mask}-{n}"),
                None => format!("{structure}::{mask} (the table of supported access types, VkAccessFlagBits2)"),
            }
        }
        Shape::Sync1PipelineBarrier | Shape::Sync1WaitEvents => {
            let command = if shape == Shape::Sync1PipelineBarrier { "vkCmdPipelineBarrier" } else { "vkCmdWaitEvents" };
            let which = match (kind, side) {
                (BarrierKind::Memory, Side::Src) => "srcAccessMask-02815",
                (BarrierKind::Memory, Side::Dst) => "dstAccessMask-02816",
                (BarrierKind::Buffer, Side::Src) => "pBufferMemoryBarriers-02817",
                (BarrierKind::Buffer, Side::Dst) => "pBufferMemoryBarriers-02818",
                (BarrierKind::Image, Side::Src) => "pImageMemoryBarriers-02819",
                (BarrierKind::Image, Side::Dst) => "pImageMemoryBarriers-02820",
            };
            format!("VUID-{command}-{which}")
        }
    }
}

/// Checks that every access of the barrier's two access masks is performed by some stage of
/// the matching stage mask (the source half first), naming the VUID of `shape` and `kind`.
pub fn check_access_stages(b: &MemoryBarrier2, kind: BarrierKind, shape: Shape) -> Result<(), AccessStageError> {
    for (side, stages, access) in [(Side::Src, b.src_stage_mask, b.src_access_mask), (Side::Dst, b.dst_stage_mask, b.dst_access_mask)] {
        if let Some(a) = unsupported_access(stages, access) {
            return Err(AccessStageError { side, access: a, stages, vuid: vuid(shape, kind, side, a), sync1: shape != Shape::Sync2 });
        }
    }
    Ok(())
}

/// Where a device event operation is: the submission (timeline index), its queue, and the
/// command (command buffer name, index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSite {
    /// Index of the queue_submit in the timeline.
    pub timeline: usize,
    /// The queue it was submitted to.
    pub queue: usize,
    /// The command buffer's name.
    pub command_buffer: String,
    /// The command's index in it.
    pub command: usize,
}

/// The signal operation an event's state comes from, as far as the timeline says.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Signal {
    /// Unsignaled (never set, or reset by a command).
    None,
    /// vkSetEvent on the host.
    Host,
    /// vkCmdSetEvent(2) in a submission.
    Device(EventSite),
}

/// A vkCmdWaitEvents(2) that waits on an event signal operation of another queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventQueueError {
    /// The event.
    pub event: usize,
    /// The set on one queue.
    pub set: EventSite,
    /// The wait on another.
    pub wait: EventSite,
}

impl EventQueueError {
    /// The message, with the trace's queue and event names.
    pub fn message(&self, queues: &[String], events: &[String]) -> String {
        let name = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_else(|| i.to_string());
        let (s, w) = (&self.set, &self.wait);
        let order = if s.timeline <= w.timeline { "" } else { " later" };
        format!(
            "vkCmdWaitEvents2 in {}[{}], submitted to queue `{}`, waits on event `{}`, which vkCmdSetEvent2 in {}[{}] sets on queue `{}` \
             (submitted{order} at timeline[{}]): vkCmdWaitEvents must not be used to wait on event signal operations occurring on other \
             queues (the Vulkan specification, vkCmdWaitEvents and vkCmdWaitEvents2; the validation layers' \
             UNASSIGNED-SubmitValidation-WaitEvents-WrongQueue); events order work within one queue or after the host, \
             use a semaphore between queues",
            w.command_buffer,
            w.command,
            name(queues, w.queue),
            name(events, self.event),
            s.command_buffer,
            s.command,
            name(queues, s.queue),
            s.timeline,
        )
    }
}

/// Follows events through the timeline (in host order, which is each queue's submission order)
/// to find device waits on event signal operations of another queue. A wait submitted while its
/// event is signaled checks the queue of the signal operation that signaled it (none for the
/// host); a wait submitted while it is unsignaled waits for the next signal operation, which
/// must then be the host's or its own queue's.
#[derive(Clone, Debug)]
pub struct EventQueues {
    last: Vec<Signal>,
    pending: Vec<Vec<EventSite>>,
}

impl EventQueues {
    /// No event signaled yet.
    pub fn new(events: usize) -> EventQueues {
        EventQueues { last: vec![Signal::None; events], pending: vec![Vec::new(); events] }
    }

    /// vkSetEvent on the host: it satisfies the waits pending on the event; of an event already
    /// signaled, it has no effect.
    pub fn host_set(&mut self, event: usize) {
        if let Some(l) = self.last.get_mut(event)
            && matches!(l, Signal::None)
        {
            *l = Signal::Host;
            self.pending[event].clear();
        }
    }

    /// vkCmdSetEvent(2) at `site`: an error when a wait pending on the event is on another queue;
    /// nothing when the event is signaled already.
    pub fn device_set(&mut self, event: usize, site: EventSite) -> Result<(), EventQueueError> {
        let Some(l) = self.last.get_mut(event) else { return Ok(()) };
        // A set of an event already signaled has no effect: no signal operation occurs.
        if !matches!(l, Signal::None) {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending[event]);
        if let Some(wait) = pending.into_iter().find(|w| w.queue != site.queue) {
            return Err(EventQueueError { event, set: site, wait });
        }
        *l = Signal::Device(site);
        Ok(())
    }

    /// vkCmdResetEvent(2): the event is unsignaled.
    pub fn device_reset(&mut self, event: usize) {
        if let Some(l) = self.last.get_mut(event) {
            *l = Signal::None;
        }
    }

    /// vkCmdWaitEvents(2) at `site`: an error when the event's signal operation is another
    /// queue's.
    pub fn device_wait(&mut self, event: usize, site: EventSite) -> Result<(), EventQueueError> {
        match self.last.get(event) {
            Some(Signal::Device(set)) if set.queue != site.queue => Err(EventQueueError { event, set: set.clone(), wait: site }),
            Some(Signal::None) => {
                self.pending[event].push(site);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn barrier(src: S, src_access: A, dst: S, dst_access: A) -> MemoryBarrier2 {
        MemoryBarrier2::new(src, src_access, dst, dst_access)
    }

    #[test]
    fn accesses_need_a_stage_that_performs_them() {
        // The brief's three cases.
        assert!(!stage_supports(S::TOP_OF_PIPE, A::SHADER_WRITE));
        assert!(!stage_supports(S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_WRITE));
        assert!(!stage_supports(S::COMPUTE_SHADER, A::TRANSFER_WRITE));
        // Shader accesses: any shader stage, PRE_RASTERIZATION_SHADERS, ALL_GRAPHICS, ALL_COMMANDS.
        for s in [S::VERTEX_SHADER, S::FRAGMENT_SHADER, S::COMPUTE_SHADER, S::MESH_SHADER, S::PRE_RASTERIZATION_SHADERS, S::ALL_GRAPHICS, S::ALL_COMMANDS] {
            for a in [A::SHADER_READ, A::SHADER_WRITE, A::UNIFORM_READ, A::SHADER_STORAGE_READ, A::SHADER_STORAGE_WRITE, A::SHADER_SAMPLED_READ] {
                assert!(stage_supports(s, a), "{s} {a}");
            }
        }
        // SHADER_READ also with ACCELERATION_STRUCTURE_BUILD (in hex), SHADER_WRITE not.
        assert!(stage_supports(ext::ACCELERATION_STRUCTURE_BUILD, A::SHADER_READ));
        assert!(!stage_supports(ext::ACCELERATION_STRUCTURE_BUILD, A::SHADER_WRITE));
        // Transfers: COPY/BLIT/RESOLVE read and write, CLEAR only writes; ALL_TRANSFER both.
        assert!(stage_supports(S::COPY, A::TRANSFER_READ) && stage_supports(S::COPY, A::TRANSFER_WRITE));
        assert!(stage_supports(S::CLEAR, A::TRANSFER_WRITE) && !stage_supports(S::CLEAR, A::TRANSFER_READ));
        assert!(stage_supports(S::ALL_TRANSFER, A::TRANSFER_READ | A::TRANSFER_WRITE));
        assert!(!stage_supports(S::ALL_GRAPHICS, A::TRANSFER_WRITE));
        // Host accesses: HOST only, not ALL_COMMANDS.
        assert!(stage_supports(S::HOST, A::HOST_READ) && stage_supports(S::HOST, A::HOST_WRITE));
        assert!(!stage_supports(S::ALL_COMMANDS, A::HOST_READ) && !stage_supports(S::COMPUTE_SHADER, A::HOST_WRITE));
        assert!(!stage_supports(S::HOST, A::SHADER_READ));
        // MEMORY_READ / MEMORY_WRITE with any stage, even none.
        for s in [S::NONE, S::TOP_OF_PIPE, S::HOST, S::COPY, S::COMPUTE_SHADER] {
            assert!(stage_supports(s, A::MEMORY_READ) && stage_supports(s, A::MEMORY_WRITE), "{s}");
        }
        // Graphics accesses with ALL_GRAPHICS; vertex input's meta stage.
        for a in [A::COLOR_ATTACHMENT_WRITE, A::DEPTH_STENCIL_ATTACHMENT_WRITE, A::INDEX_READ, A::VERTEX_ATTRIBUTE_READ, A::INDIRECT_COMMAND_READ, A::INPUT_ATTACHMENT_READ] {
            assert!(stage_supports(S::ALL_GRAPHICS, a) && stage_supports(S::ALL_COMMANDS, a), "{a}");
            assert!(!stage_supports(S::COMPUTE_SHADER, a), "{a}");
        }
        assert!(stage_supports(S::VERTEX_INPUT, A::INDEX_READ | A::VERTEX_ATTRIBUTE_READ));
        assert!(stage_supports(S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ));
        // Any stage of the mask will do.
        assert!(stage_supports(S::TOP_OF_PIPE | S::COMPUTE_SHADER, A::SHADER_WRITE));
        assert_eq!(unsupported_access(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE | A::TRANSFER_WRITE | A::HOST_READ), Some(A::TRANSFER_WRITE));
        assert_eq!(unsupported_access(S::NONE, A::NONE), None);
        // An access bit without a name is not judged.
        assert!(stage_supports(S::COMPUTE_SHADER, A::from_bits(1 << 21)));
    }

    #[test]
    fn every_named_access_but_memory_has_a_row() {
        for (name, a) in A::NAMED {
            assert!(row(*a).is_some() != (*a == A::MEMORY_READ || *a == A::MEMORY_WRITE), "{name}");
        }
    }

    #[test]
    fn errors_name_the_vuid_of_the_shape() {
        let b = barrier(S::TOP_OF_PIPE, A::SHADER_WRITE, S::COMPUTE_SHADER, A::SHADER_READ);
        let e = check_access_stages(&b, BarrierKind::Memory, Shape::Sync2).unwrap_err();
        assert_eq!((e.side, e.access, e.field()), (Side::Src, A::SHADER_WRITE, "src_access_mask"));
        assert_eq!(e.vuid, "VUID-VkMemoryBarrier2-srcAccessMask-03909");
        let m = e.to_string();
        assert!(m.starts_with("VUID-VkMemoryBarrier2-srcAccessMask-03909: src_access_mask has SHADER_WRITE, which no stage in src_stage_mask (TOP_OF_PIPE) performs; SHADER_WRITE is performed only by a shader stage"), "{m}");
        let b = barrier(S::COMPUTE_SHADER, A::SHADER_WRITE, S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_WRITE);
        let e = check_access_stages(&b, BarrierKind::Buffer, Shape::Sync2).unwrap_err();
        assert_eq!(e.vuid, "VUID-VkBufferMemoryBarrier2-dstAccessMask-03911");
        assert_eq!(e.field(), "dst_access_mask");
        let b = barrier(S::COMPUTE_SHADER, A::TRANSFER_WRITE, S::ALL_TRANSFER, A::TRANSFER_READ);
        let e = check_access_stages(&b, BarrierKind::Memory, Shape::Sync1PipelineBarrier).unwrap_err();
        assert_eq!(e.vuid, "VUID-vkCmdPipelineBarrier-srcAccessMask-02815");
        assert!(e.to_string().contains("no stage in the command's src_stage_mask (COMPUTE_SHADER)"), "{e}");
        let b = barrier(S::COMPUTE_SHADER, A::SHADER_WRITE, S::ALL_TRANSFER, A::HOST_READ);
        let e = check_access_stages(&b, BarrierKind::Buffer, Shape::Sync1WaitEvents).unwrap_err();
        assert_eq!(e.vuid, "VUID-vkCmdWaitEvents-pBufferMemoryBarriers-02818");
        assert_eq!(check_access_stages(&b, BarrierKind::Memory, Shape::Sync1PipelineBarrier).unwrap_err().vuid, "VUID-vkCmdPipelineBarrier-dstAccessMask-02816");
        let b = barrier(S::CLEAR, A::TRANSFER_READ, S::HOST, A::HOST_WRITE);
        assert_eq!(check_access_stages(&b, BarrierKind::Buffer, Shape::Sync1PipelineBarrier).unwrap_err().vuid, "VUID-vkCmdPipelineBarrier-pBufferMemoryBarriers-02817");
        // Valid barriers pass, in every shape.
        for b in [
            barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ | A::UNIFORM_READ),
            barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ),
            barrier(S::ALL_COMMANDS, A::MEMORY_WRITE, S::ALL_COMMANDS, A::MEMORY_READ | A::MEMORY_WRITE),
            barrier(S::COMPUTE_SHADER, A::NONE, S::COPY, A::NONE),
            barrier(S::NONE, A::NONE, S::NONE, A::NONE),
        ] {
            for shape in [Shape::Sync2, Shape::Sync1PipelineBarrier, Shape::Sync1WaitEvents] {
                assert_eq!(check_access_stages(&b, BarrierKind::Memory, shape), Ok(()), "{b:?}");
            }
        }
    }

    fn site(timeline: usize, queue: usize) -> EventSite {
        EventSite { timeline, queue, command_buffer: format!("cb{timeline}"), command: 0 }
    }

    #[test]
    fn events_are_waited_on_the_queue_that_set_them() {
        // Set on queue 0, waited on queue 1: refused, naming both.
        let mut q = EventQueues::new(1);
        q.device_set(0, site(0, 0)).unwrap();
        let e = q.device_wait(0, site(1, 1)).unwrap_err();
        assert_eq!((e.set.queue, e.wait.queue, e.set.timeline, e.wait.timeline), (0, 1, 0, 1));
        let m = e.message(&["q0".into(), "q1".into()], &["e0".into()]);
        assert!(m.contains("vkCmdWaitEvents2 in cb1[0], submitted to queue `q1`, waits on event `e0`, which vkCmdSetEvent2 in cb0[0] sets on queue `q0` (submitted at timeline[0])"), "{m}");
        assert!(m.contains("must not be used to wait on event signal operations occurring on other queues"), "{m}");
        // The same queue is fine; the host's set after another queue's has no effect (the
        // event is signaled already), so a wait on a third queue still waits on that queue's.
        let mut q = EventQueues::new(1);
        q.device_set(0, site(0, 0)).unwrap();
        q.device_wait(0, site(1, 0)).unwrap();
        q.host_set(0);
        assert!(q.device_wait(0, site(2, 1)).is_err());
        // A host set of an unsignaled event may be waited on any queue.
        let mut q = EventQueues::new(1);
        q.host_set(0);
        q.device_wait(0, site(0, 1)).unwrap();
        // A device set of an event already signaled has no effect.
        let mut q = EventQueues::new(1);
        q.device_set(0, site(0, 0)).unwrap();
        q.device_set(0, site(1, 1)).unwrap();
        assert!(q.device_wait(0, site(2, 1)).is_err(), "the signal is still queue 0's");
        // A wait submitted before the set (the event unsignaled) waits for the next signal.
        let mut q = EventQueues::new(1);
        q.device_wait(0, site(0, 1)).unwrap();
        let e = q.device_set(0, site(1, 0)).unwrap_err();
        assert_eq!((e.set.timeline, e.wait.timeline), (1, 0));
        assert!(e.message(&["q0".into(), "q1".into()], &["e0".into()]).contains("(submitted later at timeline[1])"));
        let mut q = EventQueues::new(1);
        q.device_wait(0, site(0, 1)).unwrap();
        q.host_set(0);
        q.device_set(0, site(2, 0)).unwrap();
        // A reset leaves the event unsignaled: the set before it no longer counts.
        let mut q = EventQueues::new(1);
        q.device_set(0, site(0, 0)).unwrap();
        q.device_reset(0);
        q.device_wait(0, site(1, 1)).unwrap();
        assert!(q.device_set(0, site(2, 1)).is_ok());
    }
}
