//! The graphics half of a workload, in Vulkan's vocabulary: render passes and framebuffers,
//! graphics pipelines, and what the graphics commands carry. The commands themselves are
//! [`Command`](crate::api::Command) variants; the render-pass semantics (load and store
//! operations, subpass dependencies, the implicit dependencies, layout transitions) are lowered
//! in [`crate::api::program`].

use std::sync::Arc;

use sim_rop::fragment::{BlendState, CompareOp, StencilState};
use sim_rop::{ClearValue, Format};
use sim_shader::GraphicsShader;

use crate::api::workload::{BufferBinding, BufferId, ImageDescriptor, ImageId};
use sim_rop::Aspect;
use crate::fixed_function as ff;
use crate::sync::{AccessFlags2, PipelineStageFlags2};

/// Index of a render pass in [`Workload::render_passes`](crate::api::Workload::render_passes).
pub type RenderPassId = usize;
/// Index of a framebuffer in [`Workload::framebuffers`](crate::api::Workload::framebuffers).
pub type FramebufferId = usize;
/// Index of a graphics pipeline in
/// [`Workload::graphics_pipelines`](crate::api::Workload::graphics_pipelines).
pub type GraphicsPipelineId = usize;

/// `VkAttachmentLoadOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadOp {
    /// LOAD: the attachment's contents are read.
    Load,
    /// CLEAR: every texel of the render area is written with the clear value.
    Clear,
    /// DONT_CARE: the render area's contents become undefined (written, with garbage where
    /// the profile says).
    DontCare,
    /// NONE (VK_KHR_load_store_op_none): not accessed at all.
    None,
}

/// `VkAttachmentStoreOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreOp {
    /// STORE: the render area's contents are written to memory.
    Store,
    /// DONT_CARE: the render area's contents become undefined.
    DontCare,
    /// NONE: not accessed; the contents stay as they were.
    None,
}

/// `VkAttachmentDescription`: one attachment of a render pass.
#[derive(Clone, Debug, PartialEq)]
pub struct AttachmentDescription {
    /// Its format.
    pub format: Format,
    /// Samples (1: multisampling is not supported yet).
    pub samples: u32,
    /// What happens to the colour or depth aspect at the start.
    pub load_op: LoadOp,
    /// What happens to the colour or depth aspect at the end.
    pub store_op: StoreOp,
    /// What happens to the stencil aspect at the start.
    pub stencil_load_op: LoadOp,
    /// What happens to the stencil aspect at the end.
    pub stencil_store_op: StoreOp,
    /// The layout the image is in when the render pass begins (UNDEFINED: its contents are
    /// discarded).
    pub initial_layout: String,
    /// The layout the render pass leaves it in.
    pub final_layout: String,
}

/// `VkAttachmentReference`: an attachment a subpass uses, and the layout it uses it in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentReference {
    /// Index into the render pass's attachments.
    pub attachment: u32,
    /// The layout during the subpass.
    pub layout: String,
}

/// `VkSubpassDescription`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubpassDescription {
    /// Colour attachments by fragment output location (`None`: VK_ATTACHMENT_UNUSED).
    pub color_attachments: Vec<Option<AttachmentReference>>,
    /// The depth/stencil attachment.
    pub depth_stencil_attachment: Option<AttachmentReference>,
    /// Input attachments by input attachment index (`None`: VK_ATTACHMENT_UNUSED).
    pub input_attachments: Vec<Option<AttachmentReference>>,
    /// Attachments whose contents are preserved through the subpass.
    pub preserve_attachments: Vec<u32>,
}

impl SubpassDescription {
    /// Every attachment the subpass uses (colour, depth/stencil, input; not preserve), with its
    /// layout, in that order.
    pub fn used(&self) -> impl Iterator<Item = &AttachmentReference> {
        self.color_attachments.iter().flatten().chain(self.depth_stencil_attachment.iter()).chain(self.input_attachments.iter().flatten())
    }
}

/// `VK_SUBPASS_EXTERNAL`, or a subpass index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubpassRef {
    /// Commands before (as source) or after (as destination) the render pass instance.
    External,
    /// A subpass.
    Index(u32),
}

/// `VkSubpassDependency2` (its masks as synchronization2 flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubpassDependency {
    /// The source subpass.
    pub src_subpass: SubpassRef,
    /// The destination subpass.
    pub dst_subpass: SubpassRef,
    /// Source stages.
    pub src_stage_mask: PipelineStageFlags2,
    /// Destination stages.
    pub dst_stage_mask: PipelineStageFlags2,
    /// Source accesses.
    pub src_access_mask: AccessFlags2,
    /// Destination accesses.
    pub dst_access_mask: AccessFlags2,
    /// VK_DEPENDENCY_BY_REGION_BIT.
    pub by_region: bool,
}

/// A `VkRenderPass`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderPassDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// The attachments.
    pub attachments: Vec<AttachmentDescription>,
    /// The subpasses (at least one).
    pub subpasses: Vec<SubpassDescription>,
    /// The explicit dependencies.
    pub dependencies: Vec<SubpassDependency>,
}

impl RenderPassDesc {
    /// The first subpass that uses attachment `a` (colour, depth/stencil or input), if any.
    pub fn first_use(&self, a: u32) -> Option<u32> {
        self.subpasses.iter().position(|s| s.used().any(|r| r.attachment == a)).map(|i| i as u32)
    }

    /// The last subpass that uses attachment `a`, if any.
    pub fn last_use(&self, a: u32) -> Option<u32> {
        self.subpasses.iter().rposition(|s| s.used().any(|r| r.attachment == a)).map(|i| i as u32)
    }

    /// The layout subpass `s` uses attachment `a` in (the first reference's), if it uses it.
    pub fn layout_in(&self, s: u32, a: u32) -> Option<&str> {
        self.subpasses.get(s as usize)?.used().find(|r| r.attachment == a).map(|r| r.layout.as_str())
    }
}

/// An image view used as an attachment: one mip level and a range of layers of an image, in
/// the image's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachmentView {
    /// The image.
    pub image: ImageId,
    /// The mip level.
    pub level: u32,
    /// The first layer.
    pub base_layer: u32,
    /// Layers (1 unless layered rendering, which is not supported yet).
    pub layer_count: u32,
}

/// A `VkFramebuffer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FramebufferDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// The render pass it is compatible with.
    pub render_pass: RenderPassId,
    /// One view per attachment of the render pass.
    pub attachments: Vec<AttachmentView>,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Layers.
    pub layers: u32,
}

/// `VkPipelineDepthStencilStateCreateInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthStencilState {
    /// Whether the depth test is on.
    pub depth_test: bool,
    /// Whether passing fragments write their depth.
    pub depth_write: bool,
    /// The depth comparison.
    pub depth_compare: CompareOp,
    /// Whether the stencil test is on (its faces' state below).
    pub stencil_test: bool,
    /// Front faces' stencil state.
    pub front: StencilState,
    /// Back faces' stencil state.
    pub back: StencilState,
}

impl Default for DepthStencilState {
    /// Every test off.
    fn default() -> Self {
        let keep = StencilState {
            fail_op: sim_rop::fragment::StencilOp::Keep,
            pass_op: sim_rop::fragment::StencilOp::Keep,
            depth_fail_op: sim_rop::fragment::StencilOp::Keep,
            compare_op: CompareOp::Always,
            compare_mask: 0xff,
            write_mask: 0xff,
            reference: 0,
        };
        DepthStencilState { depth_test: false, depth_write: false, depth_compare: CompareOp::Less, stencil_test: false, front: keep, back: keep }
    }
}

/// What a graphics pipeline renders into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineTarget {
    /// A subpass of a render pass (and every compatible one).
    RenderPass {
        /// The render pass.
        render_pass: RenderPassId,
        /// The subpass.
        subpass: u32,
    },
    /// Dynamic rendering (`VkPipelineRenderingCreateInfo`).
    Rendering {
        /// Colour attachment formats by location (`None`: VK_FORMAT_UNDEFINED, no attachment).
        color_formats: Vec<Option<Format>>,
        /// The depth attachment's format.
        depth_format: Option<Format>,
        /// The stencil attachment's format.
        stencil_format: Option<Format>,
    },
}

/// A graphics `VkPipeline`.
#[derive(Clone, Debug)]
pub struct GraphicsPipelineDesc {
    /// Its id in traces and reports.
    pub name: String,
    /// The vertex shader.
    pub vertex: Arc<GraphicsShader>,
    /// The fragment shader (none: a depth-only pipeline).
    pub fragment: Option<Arc<GraphicsShader>>,
    /// The vertex shader's shader id in the trace (for reports and the writer).
    pub vertex_shader: String,
    /// The fragment shader's shader id.
    pub fragment_shader: Option<String>,
    /// Vertex bindings and attributes.
    pub vertex_input: ff::VertexInputState,
    /// The primitive topology.
    pub topology: ff::PrimitiveTopology,
    /// Culling and front face.
    pub raster: ff::RasterState,
    /// Depth and stencil tests.
    pub depth_stencil: DepthStencilState,
    /// Blending and write masks, one per colour attachment.
    pub blend: Vec<BlendState>,
    /// The blend constants.
    pub blend_constants: [f32; 4],
    /// What it renders into.
    pub target: PipelineTarget,
}

/// One attachment of `vkCmdBeginRendering` (`VkRenderingAttachmentInfo`).
#[derive(Clone, Debug, PartialEq)]
pub struct RenderingAttachment {
    /// The view.
    pub view: AttachmentView,
    /// The layout it is in during rendering.
    pub layout: String,
    /// What happens at the start.
    pub load_op: LoadOp,
    /// What happens at the end.
    pub store_op: StoreOp,
    /// The clear value (CLEAR).
    pub clear_value: Option<ClearValue>,
}

/// `VkRenderingInfo`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderingInfo {
    /// The render area.
    pub render_area: ff::Rect2D,
    /// Layers rendered (1).
    pub layer_count: u32,
    /// Colour attachments by location (`None`: no attachment there).
    pub color_attachments: Vec<Option<RenderingAttachment>>,
    /// The depth attachment.
    pub depth_attachment: Option<RenderingAttachment>,
    /// The stencil attachment.
    pub stencil_attachment: Option<RenderingAttachment>,
}

/// What a draw counts: its vertices or indices and instances, or where it reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawKind {
    /// vkCmdDraw.
    Direct {
        /// Vertices.
        vertex_count: u32,
        /// Instances.
        instance_count: u32,
        /// First vertex.
        first_vertex: u32,
        /// First instance.
        first_instance: u32,
    },
    /// vkCmdDrawIndexed.
    Indexed {
        /// Indices.
        index_count: u32,
        /// Instances.
        instance_count: u32,
        /// First index.
        first_index: u32,
        /// Added to each index.
        vertex_offset: i32,
        /// First instance.
        first_instance: u32,
    },
    /// vkCmdDrawIndirect / vkCmdDrawIndexedIndirect: `draw_count` records of `stride` bytes
    /// from `offset` of `buffer`, read at DRAW_INDIRECT.
    Indirect {
        /// Whether the records are `VkDrawIndexedIndirectCommand`s.
        indexed: bool,
        /// The buffer.
        buffer: BufferId,
        /// Offset of the first record.
        offset: u64,
        /// Records.
        draw_count: u32,
        /// Bytes from one record to the next.
        stride: u32,
    },
}

impl DrawKind {
    /// Vulkan's name of the command.
    pub fn vk_name(&self) -> &'static str {
        match self {
            DrawKind::Direct { .. } => "vkCmdDraw",
            DrawKind::Indexed { .. } => "vkCmdDrawIndexed",
            DrawKind::Indirect { indexed: false, .. } => "vkCmdDrawIndirect",
            DrawKind::Indirect { indexed: true, .. } => "vkCmdDrawIndexedIndirect",
        }
    }

    /// Whether it reads indices.
    pub fn indexed(&self) -> bool {
        matches!(self, DrawKind::Indexed { .. } | DrawKind::Indirect { indexed: true, .. })
    }
}

/// One attachment `vkCmdClearAttachments` clears.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClearAttachment {
    /// A colour attachment, by its index in the subpass (or rendering info), and its value.
    Color {
        /// The colour attachment index.
        attachment: u32,
        /// The clear value.
        value: ClearValue,
    },
    /// The depth and/or stencil aspect of the depth/stencil attachment.
    DepthStencil {
        /// Whether the depth aspect is cleared.
        depth: bool,
        /// Whether the stencil aspect is cleared.
        stencil: bool,
        /// The clear value ([`ClearValue::DepthStencil`]).
        value: ClearValue,
    },
}

/// `VkClearRect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearRect {
    /// The rectangle.
    pub rect: ff::Rect2D,
    /// First layer.
    pub base_array_layer: u32,
    /// Layers.
    pub layer_count: u32,
}

/// One attachment as a draw or an attachment operation sees it: a level and layer of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The image.
    pub image: ImageId,
    /// Its resource index (buffers, then images).
    pub resource: usize,
    /// The mip level.
    pub level: u32,
    /// The layer.
    pub layer: u32,
    /// The image's format.
    pub format: Format,
}

/// What an attachment operation does to the texels of its rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttachmentOpKind {
    /// LOAD: the texels are read (what the draws then read is in memory already).
    Load,
    /// CLEAR, or vkCmdClearAttachments: every texel written with the value.
    Clear(ClearValue),
    /// Load DONT_CARE: the texels become undefined; they are written with a fixed pattern
    /// ([`DONT_CARE_TEXEL`]) so that a program that reads them sees something no correct
    /// program relies on, the same in every run.
    DontCare,
    /// STORE: the texels are written to memory (where a tile cache holds them, it writes them
    /// back when it evicts them or a barrier flushes it).
    Store,
    /// Store DONT_CARE: the texels become undefined (left as they are).
    StoreDontCare,
}

/// The byte every byte of a texel becomes under a DONT_CARE load operation.
pub const DONT_CARE_TEXEL: u8 = 0xCD;

/// One attachment operation: an aspect of a target, over a rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttachmentOp {
    /// The attachment.
    pub target: Target,
    /// Its aspect.
    pub aspect: Aspect,
    /// The texels (within the attachment's level).
    pub rect: ff::Rect2D,
    /// What happens to them.
    pub kind: AttachmentOpKind,
}

/// A draw with the state recorded before it resolved.
#[derive(Clone, Debug)]
pub struct DrawWork<'w> {
    /// The graphics pipeline.
    pub pipeline: GraphicsPipelineId,
    /// The counts, or where they are read.
    pub kind: DrawKind,
    /// The bound vertex buffers: (binding, buffer, offset).
    pub vertex_buffers: Vec<(u32, BufferId, u64)>,
    /// The bound index buffer: (buffer, offset, type).
    pub index_buffer: Option<(BufferId, u64, ff::IndexType)>,
    /// The viewport.
    pub viewport: ff::Viewport,
    /// The scissor, within the render area.
    pub scissor: ff::Rect2D,
    /// The framebuffer's (or render area's) extent: what the rasterizer covers.
    pub extent: [u32; 2],
    /// Colour attachments by fragment output location.
    pub colors: Vec<Option<Target>>,
    /// The depth attachment.
    pub depth: Option<Target>,
    /// Buffer descriptors.
    pub bindings: &'w [BufferBinding],
    /// Push-constant bytes.
    pub push_constants: &'w [u8],
    /// Image descriptors.
    pub images: &'w [ImageDescriptor],
}

