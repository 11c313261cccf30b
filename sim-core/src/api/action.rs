//! What an action command does, lowered once from its [`Command`](crate::api::Command) when the program is checked:
//! the stages it runs in, the resources it uses (which bytes, with which stage and access), and
//! the work a unit performs ([`Work`]). Every reader after validation (the command processors
//! and units, the reference run, the hazard detector, directed schedules, budgets, the CLI's
//! timeline and table checker) reads this, so what a command does is decided in one place.
//!
//! # Design
//! An action belongs to a command of a command buffer, not to a submission of it: every
//! instance of the command (each submission) does the same work on the same device addresses,
//! so [`Program::action`](crate::api::Program::action) finds it through the instance's command.
//! Usages are the layer's model of the command ("what it may touch"): a transfer's regions, a
//! dispatch's whole bound range per descriptor. What a dispatch touched in a run is the
//! reference run's business.

use std::ops::Range;

use crate::api::workload::{BufferBinding, DependencyInfo, EventId};
use crate::sync::{PipelineStageFlags2 as S, StageAccess};

/// One resource usage of an action: a byte range of a buffer or image, with the stage and access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// The resource whose range or region it is: an index into the workload's buffers, or past
    /// them an image ([`Program::image_resource`](crate::api::Program::image_resource)).
    pub buffer: usize,
    /// Device-address range (buffers aliasing one allocation overlap as their bytes do).
    pub range: Range<u64>,
    /// The stage and access.
    pub usage: StageAccess,
    /// Made at the coherence point: a `Coherent` storage buffer, or one only accessed atomically.
    pub coherent: bool,
    /// The shader accesses this binding only atomically (so the whole range is an atomic access
    /// as far as the layer's model can know).
    pub atomic_only: bool,
    /// The ordering guarantee it has over earlier accesses of the same queue (rasterization
    /// order for attachment accesses).
    pub ordering: Ordering,
}

/// An ordering guarantee of an attachment access (the synchronization-validation design's
/// "accesses with ordering guarantees"): an earlier access of the same queue whose stage and
/// access are in the guarantee's scope needs no dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ordering {
    /// None: every earlier access needs a dependency.
    #[default]
    None,
    /// Colour attachment accesses by draws: COLOR_ATTACHMENT_OUTPUT's colour reads and writes.
    Color,
    /// Depth/stencil attachment accesses by draws: the fragment tests' reads and writes.
    DepthStencil,
    /// Store operations: both of the above, and input attachment reads (a store happens-after
    /// every access of the sample in the last subpass that uses the attachment).
    Raster,
}

impl Ordering {
    /// The earlier usages this guarantee orders an access after.
    pub fn scope(self) -> crate::sync::UsageSet {
        use crate::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};
        let mut set = crate::sync::UsageSet::EMPTY;
        let color = [(S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_READ), (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE)];
        let depth = [
            (S::EARLY_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_READ),
            (S::EARLY_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE),
            (S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_READ),
            (S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE),
        ];
        let pairs: &[(S, A)] = match self {
            Ordering::None => &[],
            Ordering::Color => &color,
            Ordering::DepthStencil => &depth,
            Ordering::Raster => &[color[0], color[1], depth[0], depth[1], depth[2], depth[3], (S::FRAGMENT_SHADER, A::INPUT_ATTACHMENT_READ)],
        };
        for &(s, a) in pairs {
            if let Some(u) = StageAccess::new(s, a) {
                set.insert(u);
            }
        }
        set
    }
}

/// One region of a buffer copy, in device addresses and buffer offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyRange {
    /// Device address of the first source byte.
    pub src_addr: u64,
    /// Offset of the first source byte in the source buffer.
    pub src_offset: u64,
    /// Device address of the first destination byte.
    pub dst_addr: u64,
    /// Bytes.
    pub size: u64,
}

/// Bytes one transfer-engine step moves (the engine's chunk; a blit's run is at most this).
pub const TRANSFER_CHUNK: u64 = 256;

/// Texels of one row of a blit's destination whose bytes are contiguous (a tile's edge or the
/// row's end closes a run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlitRun {
    /// The region.
    pub region: u32,
    /// The layer, counted from the region's first.
    pub layer: u32,
    /// The run's first texel in the destination level.
    pub texel: [u32; 3],
    /// Texels in the run.
    pub count: u32,
    /// Device address of its first byte.
    pub dst_addr: u64,
    /// Bytes.
    pub size: u64,
}

/// A span of an image's plane a clear sets: every texel to the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearSpan {
    /// Device address of the first byte.
    pub addr: u64,
    /// Bytes.
    pub size: u64,
    /// One texel of the plane (its first `texel_bytes` bytes).
    pub texel: [u8; 16],
    /// Bytes of a texel: 1, 4, 8 or 16 (each divides a transfer chunk, so every chunk of the
    /// span starts on a texel).
    pub texel_bytes: u8,
}

/// The work a unit performs for an action.
#[derive(Clone, Debug)]
pub enum Work<'w> {
    /// vkCmdFillBuffer: `size` bytes from `addr`, the 32-bit `pattern` repeated.
    Fill {
        /// The destination buffer.
        dst: usize,
        /// Device address of the first byte.
        addr: u64,
        /// Bytes (VK_WHOLE_SIZE resolved).
        size: u64,
        /// The pattern.
        pattern: u32,
    },
    /// vkCmdUpdateBuffer: `data` written from `addr`.
    Update {
        /// The destination buffer.
        dst: usize,
        /// Device address of the first byte.
        addr: u64,
        /// The inline bytes.
        data: &'w [u8],
    },
    /// vkCmdCopyBuffer, vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer: each region (a run of
    /// contiguous bytes on both sides) in order.
    Copy {
        /// The source (a resource index: buffers, then images).
        src: usize,
        /// The destination (a resource index).
        dst: usize,
        /// The regions.
        regions: Vec<CopyRange>,
    },
    /// vkCmdBlitImage: runs of destination texels, each computed from the source texels its
    /// filter reads (`engine/blit.rs`).
    Blit {
        /// The source (a resource index: buffers, then images).
        src: usize,
        /// The destination (a resource index).
        dst: usize,
        /// The source image.
        src_image: usize,
        /// The destination image.
        dst_image: usize,
        /// The regions, as the command has them.
        regions: &'w [crate::api::workload::ImageBlit],
        /// NEAREST or LINEAR.
        filter: sim_rop::Filter,
        /// The destination texels, in runs of contiguous bytes.
        runs: Vec<BlitRun>,
    },
    /// vkCmdClearColorImage, vkCmdClearDepthStencilImage: each span of device addresses set to
    /// its plane's texel, repeated.
    Clear {
        /// The image (a resource index: buffers, then images).
        dst: usize,
        /// Each span, in address order.
        spans: Vec<ClearSpan>,
    },
    /// A draw, with the state recorded before it resolved (`api/render.rs`).
    Draw(Box<crate::api::graphics::DrawWork<'w>>),
    /// Load and store operations, and vkCmdClearAttachments: what happens to attachment texels
    /// outside draws.
    Attachments(Vec<crate::api::graphics::AttachmentOp>),
    /// vkCmdDispatch / vkCmdDispatchBase.
    Dispatch {
        /// The pipeline.
        pipeline: usize,
        /// Workgroup counts.
        group_count: [u32; 3],
        /// First workgroup id.
        base_group: [u32; 3],
        /// Descriptor bindings.
        bindings: &'w [BufferBinding],
        /// Push-constant bytes.
        push_constants: &'w [u8],
        /// Image and sampler descriptors.
        images: &'w [crate::api::workload::ImageDescriptor],
    },
}

impl Work<'_> {
    /// Whether the transfer engine (or a driver shader standing in for it) runs this work.
    pub fn is_transfer(&self) -> bool {
        !matches!(self, Work::Dispatch { .. } | Work::Draw(_) | Work::Attachments(_))
    }

    /// Whether the graphics units run this work (a draw, attachment operations).
    pub fn is_graphics(&self) -> bool {
        matches!(self, Work::Draw(_) | Work::Attachments(_))
    }

    /// The size of each piece a transfer moves as one (a fill, an update, each copy region;
    /// none for a dispatch): what decides whether a driver runs it as a shader.
    pub fn transfer_sizes(&self) -> Vec<u64> {
        match self {
            Work::Fill { size, .. } => vec![*size],
            Work::Update { data, .. } => vec![data.len() as u64],
            Work::Copy { regions, .. } => regions.iter().map(|r| r.size).collect(),
            Work::Clear { spans, .. } => spans.iter().map(|s| s.size).collect(),
            Work::Blit { runs, .. } => runs.iter().map(|r| r.size).collect(),
            Work::Dispatch { .. } | Work::Draw(_) | Work::Attachments(_) => Vec::new(),
        }
    }

    /// Bytes a transfer moves (0 for a dispatch): what the transfer budget counts.
    pub fn transfer_bytes(&self) -> u64 {
        match self {
            Work::Fill { size, .. } => *size,
            Work::Update { data, .. } => data.len() as u64,
            Work::Copy { regions, .. } => regions.iter().fold(0u64, |a, r| a.saturating_add(r.size)),
            Work::Clear { spans, .. } => spans.iter().fold(0u64, |a, s| a.saturating_add(s.size)),
            Work::Blit { runs, .. } => runs.iter().fold(0u64, |a, r| a.saturating_add(r.size)),
            Work::Dispatch { .. } | Work::Draw(_) | Work::Attachments(_) => 0,
        }
    }
}

/// An action command, lowered.
#[derive(Clone, Debug)]
pub struct Action<'w> {
    /// The command's Vulkan name (`vkCmdCopyBuffer`).
    pub vk_name: &'static str,
    /// The stages it runs in (one for transfers and dispatches; a draw's several).
    pub stages: S,
    /// The resources it uses, in the order the layer records them.
    pub usages: Vec<Usage>,
    /// The work a unit performs.
    pub work: Work<'w>,
}

impl Action<'_> {
    /// The stages of the action (one, but for graphics work).
    pub fn stage(&self) -> S {
        self.stages
    }

    /// Whether it uses any byte of device addresses `range`.
    pub fn touches(&self, range: &Range<u64>) -> bool {
        self.usages.iter().any(|u| u.range.start < range.end && range.start < u.range.end)
    }
}

/// A synchronization command, as readers after validation see it: what it depends on and
/// which events it names.
#[derive(Clone, Copy, Debug)]
pub enum SyncCommand<'w> {
    /// vkCmdPipelineBarrier2.
    Barrier(&'w DependencyInfo),
    /// vkCmdSetEvent2.
    SetEvent {
        /// The event.
        event: EventId,
        /// Its first scope (the second is the wait's).
        dependency: &'w DependencyInfo,
    },
    /// vkCmdWaitEvents2.
    WaitEvents {
        /// The events, in the command's order.
        events: &'w [EventId],
        /// The dependency of each.
        dependency: &'w DependencyInfo,
    },
    /// vkCmdResetEvent2.
    ResetEvent {
        /// The event.
        event: EventId,
    },
}
