//! The graphics half of a workload replayed on a real Vulkan device through `sim_vulkan::replay`:
//! render passes and dynamic rendering, vertex and index buffers, direct, indexed and indirect
//! draws, dynamic viewport and scissor, and the readback of the attachment through a copy into
//! a host-visible buffer. Each picture is compared with `sim_core::engine::draw::draw_flat` on
//! the same inputs (coverage exactly, colours within one unit per channel, as the rasterizer
//! conformance test compares them), and the validation layer, with synchronization validation,
//! must report nothing for these correct programs.
//!
//! The device is lavapipe (a device named `llvmpipe`; `GPUSIM_RASTER_DEVICE` names another by
//! part of its name). Where there is no Vulkan loader, device or validation layer the tests
//! print why and pass, unless `GPUSIM_REQUIRE_VULKAN=1` says Vulkan must be there.
//!
//! Run: `cargo test -p sim-vulkan --test graphics_replay -- --nocapture`.

use std::sync::Arc;

use sim_core::api::{
    BufferImageCopy, ClearRect, Command, DependencyInfo, DepthStencilState, DrawKind, GraphicsPipelineDesc, HostOp, ImageBinding, ImageId, ImageMemoryBarrier, LoadOp,
    MemoryProperties, PipelineTarget, RenderPassDesc, RenderingAttachment, RenderingInfo, StoreOp, SubpassDependency, SubpassDescription, SubpassRef, SubresourceLayers, Workload,
};
use sim_core::api::{AttachmentDescription, AttachmentReference, AttachmentView, FramebufferDesc};
use sim_core::engine::RunLimits;
use sim_core::engine::draw::{ColorTarget, DepthTarget, DrawCounts, DrawState, draw_flat};
use sim_core::fixed_function as ff;
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};
use sim_rop::fragment::{BlendState, CompareOp};
use sim_rop::{Aspect, ClearValue, Format};
use sim_shader::{FlatImages, GraphicsShader, Module};
use sim_vulkan::{ReplayError, ReplayOptions};

/// The attachments' width and height.
const SIDE: u32 = 64;
/// Texels of an attachment.
const TEXELS: usize = (SIDE * SIDE) as usize;
/// The clear colour: no draw writes a texel of all zeros.
const CLEAR: [u8; 4] = [0, 0, 0, 0];

/// Vertex shaders passing a clip-space position through with a colour, and fragment shaders
/// writing it flat (depth-tested scenes: the same surface wins at every texel, so colours are
/// exact) or smooth (interpolated: within one unit). Each pair's interface matches exactly, so
/// the layer has no unconsumed output to warn about.
const SHADERS: &str = r#"
struct Flat { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) c: vec4<f32> }
struct Smooth { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs_flat(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> Flat {
    var v: Flat;
    v.p = p;
    v.c = c;
    return v;
}
@vertex fn vs_smooth(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> Smooth {
    var v: Smooth;
    v.p = p;
    v.c = c;
    return v;
}
@fragment fn fs_flat(@location(0) @interpolate(flat) c: vec4<f32>) -> @location(0) vec4<f32> { return c; }
@fragment fn fs_smooth(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return c; }
"#;

/// The vertex shader paired with fragment shader `fs`.
fn vertex_for(fs: &str) -> String {
    fs.replace("fs_", "vs_")
}

/// A vertex: clip-space position, colour. 32 bytes, two R32G32B32A32_SFLOAT attributes.
type Vertex = ([f32; 4], [f32; 4]);

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

fn at_z(x: f32, y: f32, z: f32) -> [f32; 4] {
    [x, y, z, 1.0]
}

fn shader(entry: &str) -> Arc<GraphicsShader> {
    let module = Module::from_wgsl(SHADERS, "graphics_replay.wgsl").expect("the shaders compile");
    Arc::new(GraphicsShader::new(&module, entry).expect("entry point"))
}

fn input_state() -> ff::VertexInputState {
    ff::VertexInputState::new(
        vec![ff::VertexBinding { binding: 0, stride: 32, input_rate: ff::VertexInputRate::Vertex }],
        vec![
            ff::VertexAttribute { location: 0, binding: 0, format: Format::R32G32B32A32_SFLOAT, offset: 0 },
            ff::VertexAttribute { location: 1, binding: 0, format: Format::R32G32B32A32_SFLOAT, offset: 16 },
        ],
    )
    .expect("a valid input state")
}

fn vertex_bytes(vertices: &[Vertex]) -> Vec<u8> {
    vertices.iter().flat_map(|(p, c)| p.iter().chain(c.iter()).flat_map(|v| v.to_le_bytes())).collect()
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------------------------
// Building the workloads
// ---------------------------------------------------------------------------------------------

/// A 64x64 optimal 2D image of `format` in a DEVICE_LOCAL memory object of its own.
fn image(w: &mut Workload, name: &str, format: Format, usage: &str) -> ImageId {
    image_of_side(w, name, format, usage, SIDE)
}

/// A `side`x`side` optimal 2D image of `format` in a DEVICE_LOCAL memory object of its own.
fn image_of_side(w: &mut Workload, name: &str, format: Format, usage: &str, side: u32) -> ImageId {
    let desc = sim_rop::ImageDesc { image_type: sim_rop::ImageType::D2, format, extent: [side, side, 1], mip_levels: 1, array_layers: 1, tiling: sim_rop::Tiling::Optimal };
    let layout = sim_rop::ImageLayout::new(desc, &sim_rop::TilingParams::default()).expect("a valid image");
    let memory = w.memory(format!("{name}.memory"), layout.size, MemoryProperties::DEVICE_LOCAL);
    w.images.push(ImageBinding { name: name.into(), memory, offset: 0, layout, usage: usage.into(), initial_layout: "UNDEFINED".into() });
    w.images.len() - 1
}

fn view(image: ImageId) -> AttachmentView {
    AttachmentView { image, level: 0, base_layer: 0, layer_count: 1 }
}

fn whole(aspect: Aspect) -> sim_rop::SubresourceRange {
    let mut aspects = [false; 3];
    aspects[aspect as usize] = true;
    sim_rop::SubresourceRange { aspects, base_mip_level: 0, level_count: 1, base_array_layer: 0, layer_count: 1 }
}

fn image_barrier(image: ImageId, aspect: Aspect, old: &str, new: &str, src: (S, A), dst: (S, A)) -> ImageMemoryBarrier {
    ImageMemoryBarrier { barrier: MemoryBarrier2::new(src.0, src.1, dst.0, dst.1), image, old_layout: old.into(), new_layout: new.into(), range: whole(aspect) }
}

fn barrier(images: Vec<ImageMemoryBarrier>, memory: Vec<MemoryBarrier2>) -> Command {
    Command::PipelineBarrier(DependencyInfo { memory_barriers: memory, image_memory_barriers: images, ..DependencyInfo::default() })
}

fn render_area() -> ff::Rect2D {
    ff::Rect2D { x: 0, y: 0, width: SIDE, height: SIDE }
}

/// A pipeline drawing with fragment shader `fs` into `target`, depth-tested (LESS, writing)
/// when `depth`.
fn pipeline(name: &str, fs: &str, target: PipelineTarget, depth: bool) -> GraphicsPipelineDesc {
    GraphicsPipelineDesc {
        name: name.into(),
        vertex: shader(&vertex_for(fs)),
        fragment: Some(shader(fs)),
        vertex_shader: vertex_for(fs),
        fragment_shader: Some(fs.into()),
        vertex_input: input_state(),
        topology: ff::PrimitiveTopology::TriangleList,
        raster: ff::RasterState::default(),
        depth_stencil: if depth { DepthStencilState { depth_test: true, depth_write: true, depth_compare: CompareOp::Less, ..DepthStencilState::default() } } else { DepthStencilState::default() },
        blend: vec![BlendState::REPLACE],
        blend_constants: [0.0; 4],
        target,
    }
}

/// The colour attachment's copy into the host-visible readback buffer, after its last
/// attachment write, and the host's read of it (the timeline: write the vertex data, submit,
/// wait, read).
struct Readback {
    memory: usize,
    buffer: usize,
}

fn readback(w: &mut Workload) -> Readback {
    let (memory, buffer) = w.host_buffer("readback", (TEXELS * 4) as u64);
    Readback { memory, buffer }
}

/// The commands that end a frame: the colour attachment to a transfer source (from layout
/// `from`, by a pipeline barrier; `None`: the render pass left it there), copied into the
/// readback buffer, made visible to the host.
fn copy_out(colour: ImageId, from: Option<&str>, rb: &Readback) -> Vec<Command> {
    let mut commands = Vec::new();
    if let Some(layout) = from {
        commands.push(barrier(vec![image_barrier(colour, Aspect::Color, layout, "TRANSFER_SRC_OPTIMAL", (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE), (S::COPY, A::TRANSFER_READ))], vec![]));
    }
    commands.extend([
        Command::CopyImageToBuffer {
            src: colour,
            src_layout: "TRANSFER_SRC_OPTIMAL".into(),
            dst: rb.buffer,
            regions: vec![BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: 0,
                buffer_image_height: 0,
                subresource: SubresourceLayers { aspect: Aspect::Color, mip_level: 0, base_array_layer: 0, layer_count: 1 },
                image_offset: [0; 3],
                image_extent: [SIDE, SIDE, 1],
            }],
        },
        barrier(vec![], vec![MemoryBarrier2::new(S::COPY, A::TRANSFER_WRITE, S::HOST, A::HOST_READ)]),
    ]);
    commands
}

/// Host writes of each buffer's bytes, one submission of `cb` with a fence, the wait, and the
/// host read of the readback buffer.
fn timeline(w: &mut Workload, writes: Vec<(usize, Vec<u8>)>, cb: usize, rb: &Readback) {
    for (memory, data) in writes {
        w.host(HostOp::HostWrite { memory, offset: 0, data });
    }
    let fence = w.fence("done");
    w.submit(0, vec![cb], Some(fence));
    w.host(HostOp::WaitForFences(vec![fence]));
    w.host(HostOp::HostRead { memory: rb.memory, offset: 0, size: (TEXELS * 4) as u64, label: "picture".into(), expect: None });
}

/// A host-visible vertex buffer holding `bytes` (written by the host before the submission).
fn host_data(w: &mut Workload, name: &str, bytes: Vec<u8>, writes: &mut Vec<(usize, Vec<u8>)>) -> usize {
    let (memory, buffer) = w.host_buffer(name, bytes.len() as u64);
    writes.push((memory, bytes));
    buffer
}

/// The depth scene: a large red triangle behind a smaller green one, the green one drawn first,
/// so the depth test (LESS) keeps green where they overlap, and a blue one crossing both at a
/// slant (in front of red, partly behind green).
fn depth_scene() -> Vec<Vertex> {
    let tri = |p: [[f32; 4]; 3], c: [f32; 4]| p.map(|p| (p, c));
    let green = tri([at_z(-0.6, -0.7, 0.3), at_z(-0.5, 0.6, 0.3), at_z(0.5, -0.2, 0.3)], GREEN);
    let red = tri([at_z(-0.9, -0.9, 0.6), at_z(-0.8, 0.9, 0.6), at_z(0.9, 0.1, 0.6)], RED);
    let blue = tri([at_z(-0.2, 0.8, 0.1), at_z(0.8, 0.7, 0.5), at_z(0.1, -0.9, 0.5)], BLUE);
    [green, red, blue].concat()
}

/// How the attachments are begun and ended.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    RenderPass,
    Rendering,
}

/// The depth scene drawn into a cleared colour attachment with a D32_SFLOAT depth attachment,
/// in a render pass or with dynamic rendering, then copied out.
fn depth_workload(target: Target) -> (Workload, Vec<Vertex>) {
    let mut w = Workload::new(if target == Target::RenderPass { "render-pass-depth" } else { "dynamic-rendering-depth" });
    let colour = image(&mut w, "colour", Format::R8G8B8A8_UNORM, "COLOR_ATTACHMENT|TRANSFER_SRC");
    let depth = image(&mut w, "depth", Format::D32_SFLOAT, "DEPTH_STENCIL_ATTACHMENT");
    let rb = readback(&mut w);
    let vertices = depth_scene();
    let mut writes = Vec::new();
    let vb = host_data(&mut w, "vertices", vertex_bytes(&vertices), &mut writes);
    let clear_colour = ClearValue::Float([0.0; 4]);
    let clear_depth = ClearValue::DepthStencil { depth: 1.0, stencil: 0 };
    let draw = Command::Draw {
        pipeline: 0,
        kind: DrawKind::Direct { vertex_count: vertices.len() as u32, instance_count: 1, first_vertex: 0, first_instance: 0 },
        bindings: vec![],
        push_constants: vec![],
        images: vec![],
    };
    let bind = Command::BindVertexBuffers { first_binding: 0, buffers: vec![(vb, 0)] };
    let mut commands = Vec::new();
    match target {
        Target::RenderPass => {
            let attachment = |format, load_op, store_op, final_layout: &str| AttachmentDescription {
                format,
                samples: 1,
                load_op,
                store_op,
                stencil_load_op: LoadOp::DontCare,
                stencil_store_op: StoreOp::DontCare,
                initial_layout: "UNDEFINED".into(),
                final_layout: final_layout.into(),
            };
            // Work of an earlier submission (a previous iteration's copy and attachment
            // writes) before this render pass's attachment accesses and layout transitions.
            let from_before = SubpassDependency {
                src_subpass: SubpassRef::External,
                dst_subpass: SubpassRef::Index(0),
                src_stage_mask: S::COPY | S::COLOR_ATTACHMENT_OUTPUT | S::LATE_FRAGMENT_TESTS,
                dst_stage_mask: S::COLOR_ATTACHMENT_OUTPUT | S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
                src_access_mask: A::COLOR_ATTACHMENT_WRITE | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
                dst_access_mask: A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
                by_region: false,
            };
            w.render_passes.push(RenderPassDesc {
                name: "main_pass".into(),
                attachments: vec![
                    attachment(Format::R8G8B8A8_UNORM, LoadOp::Clear, StoreOp::Store, "COLOR_ATTACHMENT_OPTIMAL"),
                    attachment(Format::D32_SFLOAT, LoadOp::Clear, StoreOp::DontCare, "DEPTH_STENCIL_ATTACHMENT_OPTIMAL"),
                ],
                subpasses: vec![SubpassDescription {
                    color_attachments: vec![Some(AttachmentReference { attachment: 0, layout: "COLOR_ATTACHMENT_OPTIMAL".into() })],
                    depth_stencil_attachment: Some(AttachmentReference { attachment: 1, layout: "DEPTH_STENCIL_ATTACHMENT_OPTIMAL".into() }),
                    input_attachments: vec![],
                    preserve_attachments: vec![],
                }],
                dependencies: vec![from_before],
            });
            w.framebuffers.push(FramebufferDesc { name: "main_fb".into(), render_pass: 0, attachments: vec![view(colour), view(depth)], width: SIDE, height: SIDE, layers: 1 });
            w.graphics_pipelines.push(pipeline("mesh", "fs_flat", PipelineTarget::RenderPass { render_pass: 0, subpass: 0 }, true));
            commands.push(Command::BeginRenderPass { render_pass: 0, framebuffer: 0, render_area: render_area(), clear_values: vec![Some(clear_colour), Some(clear_depth)] });
            commands.extend([bind, draw, Command::EndRenderPass]);
        }
        Target::Rendering => {
            w.graphics_pipelines.push(pipeline(
                "mesh",
                "fs_flat",
                PipelineTarget::Rendering { color_formats: vec![Some(Format::R8G8B8A8_UNORM)], depth_format: Some(Format::D32_SFLOAT), stencil_format: None },
                true,
            ));
            commands.push(barrier(
                vec![
                    image_barrier(colour, Aspect::Color, "UNDEFINED", "COLOR_ATTACHMENT_OPTIMAL", (S::COPY, A::NONE), (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE)),
                    image_barrier(
                        depth,
                        Aspect::Depth,
                        "UNDEFINED",
                        "DEPTH_ATTACHMENT_OPTIMAL",
                        (S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_WRITE),
                        (S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS, A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE),
                    ),
                ],
                vec![],
            ));
            let attachment = |image, layout: &str, store_op, clear_value| RenderingAttachment { view: view(image), layout: layout.into(), load_op: LoadOp::Clear, store_op, clear_value: Some(clear_value) };
            commands.push(Command::BeginRendering(RenderingInfo {
                render_area: render_area(),
                layer_count: 1,
                color_attachments: vec![Some(attachment(colour, "COLOR_ATTACHMENT_OPTIMAL", StoreOp::Store, clear_colour))],
                depth_attachment: Some(attachment(depth, "DEPTH_ATTACHMENT_OPTIMAL", StoreOp::DontCare, clear_depth)),
                stencil_attachment: None,
            }));
            commands.extend([bind, draw, Command::EndRendering]);
        }
    }
    commands.extend(copy_out(colour, Some("COLOR_ATTACHMENT_OPTIMAL"), &rb));
    let cb = w.command_buffer("frame", commands);
    timeline(&mut w, writes, cb, &rb);
    (w, vertices)
}

/// A render pass of one colour attachment, cleared, left in TRANSFER_SRC_OPTIMAL for the copy
/// that follows (an explicit dependency to EXTERNAL covers the colour writes and the final
/// transition), with no depth attachment.
fn colour_pass() -> RenderPassDesc {
    RenderPassDesc {
        name: "colour_pass".into(),
        attachments: vec![AttachmentDescription {
            format: Format::R8G8B8A8_UNORM,
            samples: 1,
            load_op: LoadOp::Clear,
            store_op: StoreOp::Store,
            stencil_load_op: LoadOp::DontCare,
            stencil_store_op: StoreOp::DontCare,
            initial_layout: "UNDEFINED".into(),
            final_layout: "TRANSFER_SRC_OPTIMAL".into(),
        }],
        subpasses: vec![SubpassDescription { color_attachments: vec![Some(AttachmentReference { attachment: 0, layout: "COLOR_ATTACHMENT_OPTIMAL".into() })], ..SubpassDescription::default() }],
        dependencies: vec![
            SubpassDependency {
                src_subpass: SubpassRef::External,
                dst_subpass: SubpassRef::Index(0),
                src_stage_mask: S::COPY,
                dst_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
                src_access_mask: A::NONE,
                dst_access_mask: A::COLOR_ATTACHMENT_WRITE,
                by_region: false,
            },
            // The final transition and the colour writes before the copy that follows.
            SubpassDependency {
                src_subpass: SubpassRef::Index(0),
                dst_subpass: SubpassRef::External,
                src_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
                dst_stage_mask: S::COPY,
                src_access_mask: A::COLOR_ATTACHMENT_WRITE,
                dst_access_mask: A::TRANSFER_READ,
                by_region: false,
            },
        ],
    }
}

/// The indexed scene: a quad of four vertices drawn from six UINT16 indices (smooth colours),
/// then, through a scissor, a triangle by vkCmdDrawIndirect (its record written by
/// vkCmdUpdateBuffer) and another by vkCmdDrawIndexedIndirect, reusing the index buffer with a
/// vertex offset; no depth attachment.
struct IndexedScene {
    vertices: Vec<Vertex>,
    indices: Vec<u16>,
    /// The scissor of the indirect draws.
    scissor: ff::Rect2D,
    /// The direct record (vertex count, instance count, first vertex, first instance).
    direct: [u32; 4],
    /// The indexed record (index count, instance count, first index, vertex offset, first
    /// instance).
    indexed: [u32; 5],
}

fn indexed_scene() -> IndexedScene {
    let quad = [([-0.8, -0.8, 0.5, 1.0], RED), ([-0.8, 0.2, 0.5, 1.0], GREEN), ([0.2, -0.8, 0.5, 1.0], BLUE), ([0.2, 0.2, 0.5, 1.0], [1.0, 1.0, 0.0, 1.0])];
    let tri = [([0.0, -0.9, 0.5, 1.0], BLUE), ([-0.4, 0.9, 0.5, 1.0], GREEN), ([0.9, 0.6, 0.5, 1.0], [1.0, 0.0, 1.0, 1.0])];
    // Three more, reached by the indexed indirect draw through indices 0, 1, 2 and a vertex
    // offset of 7.
    let small = [([0.3, -0.9, 0.5, 1.0], [0.0, 1.0, 1.0, 1.0]), ([0.3, -0.3, 0.5, 1.0], [0.5, 0.5, 0.5, 1.0]), ([0.9, -0.9, 0.5, 1.0], [1.0, 0.5, 0.0, 1.0])];
    IndexedScene {
        vertices: [&quad[..], &tri[..], &small[..]].concat(),
        indices: vec![0, 1, 2, 2, 1, 3],
        scissor: ff::Rect2D { x: 8, y: 4, width: 40, height: 44 },
        direct: [3, 1, 4, 0],
        indexed: [3, 1, 0, 7, 0],
    }
}

fn indexed_workload(s: &IndexedScene) -> Workload {
    let mut w = Workload::new("indexed-and-indirect");
    let colour = image(&mut w, "colour", Format::R8G8B8A8_UNORM, "COLOR_ATTACHMENT|TRANSFER_SRC");
    let rb = readback(&mut w);
    let mut writes = Vec::new();
    let vb = host_data(&mut w, "vertices", vertex_bytes(&s.vertices), &mut writes);
    let ib = host_data(&mut w, "indices", s.indices.iter().flat_map(|i| i.to_le_bytes()).collect(), &mut writes);
    let args = w.device_buffer("draw_args", 64);
    w.render_passes.push(colour_pass());
    w.framebuffers.push(FramebufferDesc { name: "colour_fb".into(), render_pass: 0, attachments: vec![view(colour)], width: SIDE, height: SIDE, layers: 1 });
    w.graphics_pipelines.push(pipeline("mesh", "fs_smooth", PipelineTarget::RenderPass { render_pass: 0, subpass: 0 }, false));
    let draw = |kind| Command::Draw { pipeline: 0, kind, bindings: vec![], push_constants: vec![], images: vec![] };
    let mut commands = vec![
        // The indirect records: 16 bytes of VkDrawIndirectCommand at 0, 20 of
        // VkDrawIndexedIndirectCommand at 16.
        Command::UpdateBuffer { dst: args, offset: 0, data: [words(&s.direct), words(&s.indexed)].concat() },
        // ALL_TRANSFER: vkCmdUpdateBuffer is a clear command in synchronization2's terms, and
        // a copy in the validation layer's (1.3.239); this barrier waits for it either way.
        barrier(vec![], vec![MemoryBarrier2::new(S::ALL_TRANSFER, A::TRANSFER_WRITE, S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ)]),
        Command::BeginRenderPass { render_pass: 0, framebuffer: 0, render_area: render_area(), clear_values: vec![Some(ClearValue::Float([0.0; 4]))] },
        Command::BindVertexBuffers { first_binding: 0, buffers: vec![(vb, 0)] },
        Command::BindIndexBuffer { buffer: ib, offset: 0, index_type: ff::IndexType::Uint16 },
        draw(DrawKind::Indexed { index_count: s.indices.len() as u32, instance_count: 1, first_index: 0, vertex_offset: 0, first_instance: 0 }),
        Command::SetScissor(s.scissor),
        draw(DrawKind::Indirect { indexed: false, buffer: args, offset: 0, draw_count: 1, stride: 16 }),
        draw(DrawKind::Indirect { indexed: true, buffer: args, offset: 16, draw_count: 1, stride: 20 }),
        Command::EndRenderPass,
    ];
    commands.extend(copy_out(colour, None, &rb));
    let cb = w.command_buffer("frame", commands);
    timeline(&mut w, writes, cb, &rb);
    w
}

/// Shaders that use descriptors and push constants in both stages: a uniform buffer both
/// read (its offset moves the vertices; its `w`, 0, is added to the colour), a sampled image
/// the fragment shader loads a texel of per 16x16 block of pixels, and a push-constant tint.
const TEXTURED: &str = r#"
struct Offset { d: vec4<f32> }
@group(0) @binding(0) var<uniform> offset: Offset;
@group(0) @binding(1) var tex: texture_2d<f32>;
var<immediate> tint: vec4<f32>;
struct V { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) c: vec4<f32> }
@vertex fn vs_offset(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> V {
    var v: V;
    v.p = p + offset.d;
    v.c = c;
    return v;
}
@fragment fn fs_textured(@builtin(position) f: vec4<f32>, @location(0) @interpolate(flat) c: vec4<f32>) -> @location(0) vec4<f32> {
    let t = textureLoad(tex, vec2<i32>(i32(f.x) / 16, i32(f.y) / 16), 0);
    return t * tint * c + vec4<f32>(offset.d.w);
}
"#;

/// The textured scene's inputs: two triangles covering most of the framebuffer (one white,
/// one yellow), the uniform offset, the tint and the 4x4 texture's texels.
struct TexturedScene {
    vertices: Vec<Vertex>,
    offset: [f32; 4],
    tint: [f32; 4],
    texels: Vec<u8>,
}

fn textured_scene() -> TexturedScene {
    let white = [1.0; 4];
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let vertices = vec![
        ([-0.9, -0.9, 0.5, 1.0], white),
        ([-0.9, 0.7, 0.5, 1.0], white),
        ([0.6, -0.9, 0.5, 1.0], white),
        ([0.6, -0.9, 0.5, 1.0], yellow),
        ([-0.9, 0.7, 0.5, 1.0], yellow),
        ([0.6, 0.7, 0.5, 1.0], yellow),
    ];
    let texels = (0..16u32).flat_map(|i| [(i % 4 * 60 + 20) as u8, (i / 4 * 60 + 20) as u8, 200, 255]).collect();
    TexturedScene { vertices, offset: [0.25, 0.125, 0.0, 0.0], tint: [1.0, 0.5, 1.0, 1.0], texels }
}

fn textured_shader(entry: &str) -> Arc<GraphicsShader> {
    let module = Module::from_wgsl(TEXTURED, "textured.wgsl").expect("the textured shaders compile");
    Arc::new(GraphicsShader::new(&module, entry).expect("entry point"))
}

fn textured_workload(s: &TexturedScene) -> Workload {
    let mut w = Workload::new("descriptors-and-push-constants");
    let colour = image(&mut w, "colour", Format::R8G8B8A8_UNORM, "COLOR_ATTACHMENT|TRANSFER_SRC");
    let tex = image_of_side(&mut w, "texture", Format::R8G8B8A8_UNORM, "SAMPLED|TRANSFER_DST", 4);
    let rb = readback(&mut w);
    let mut writes = Vec::new();
    let vb = host_data(&mut w, "vertices", vertex_bytes(&s.vertices), &mut writes);
    let ub = host_data(&mut w, "offset", s.offset.iter().flat_map(|v| v.to_le_bytes()).collect(), &mut writes);
    let staging = host_data(&mut w, "texels", s.texels.clone(), &mut writes);
    w.render_passes.push(colour_pass());
    w.framebuffers.push(FramebufferDesc { name: "colour_fb".into(), render_pass: 0, attachments: vec![view(colour)], width: SIDE, height: SIDE, layers: 1 });
    w.graphics_pipelines.push(GraphicsPipelineDesc {
        vertex: textured_shader("vs_offset"),
        fragment: Some(textured_shader("fs_textured")),
        vertex_shader: "vs_offset".into(),
        fragment_shader: Some("fs_textured".into()),
        ..pipeline("textured", "fs_flat", PipelineTarget::RenderPass { render_pass: 0, subpass: 0 }, false)
    });
    let upload = BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        subresource: SubresourceLayers { aspect: Aspect::Color, mip_level: 0, base_array_layer: 0, layer_count: 1 },
        image_offset: [0; 3],
        image_extent: [4, 4, 1],
    };
    let mut commands = vec![
        barrier(vec![image_barrier(tex, Aspect::Color, "UNDEFINED", "TRANSFER_DST_OPTIMAL", (S::FRAGMENT_SHADER, A::NONE), (S::COPY, A::TRANSFER_WRITE))], vec![]),
        Command::CopyBufferToImage { src: staging, dst: tex, dst_layout: "TRANSFER_DST_OPTIMAL".into(), regions: vec![upload] },
        barrier(vec![image_barrier(tex, Aspect::Color, "TRANSFER_DST_OPTIMAL", "SHADER_READ_ONLY_OPTIMAL", (S::COPY, A::TRANSFER_WRITE), (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ))], vec![]),
        Command::BeginRenderPass { render_pass: 0, framebuffer: 0, render_area: render_area(), clear_values: vec![Some(ClearValue::Float([0.0; 4]))] },
        Command::BindVertexBuffers { first_binding: 0, buffers: vec![(vb, 0)] },
        Command::Draw {
            pipeline: 0,
            kind: DrawKind::Direct { vertex_count: s.vertices.len() as u32, instance_count: 1, first_vertex: 0, first_instance: 0 },
            bindings: vec![sim_core::api::BufferBinding { set: 0, binding: 0, buffer: ub, offset: 0, range: None }],
            push_constants: s.tint.iter().flat_map(|v| v.to_le_bytes()).collect(),
            images: vec![sim_core::api::ImageDescriptor {
                set: 0,
                binding: 1,
                descriptor_type: sim_core::api::ImageDescriptorType::SampledImage,
                image: Some(tex),
                layout: "SHADER_READ_ONLY_OPTIMAL".into(),
                range: whole(Aspect::Color),
                sampler: None,
            }],
        },
        Command::EndRenderPass,
    ];
    commands.extend(copy_out(colour, None, &rb));
    let cb = w.command_buffer("frame", commands);
    timeline(&mut w, writes, cb, &rb);
    w
}

/// The textured scene drawn by `draw_flat`: the uniform buffer as a flat binding, the texture's
/// loads served from its texels, the tint as push constants.
fn simulate_textured(s: &TexturedScene) -> Vec<u8> {
    let mut colour = CLEAR.repeat(TEXELS);
    let inputs = input_state();
    let bytes = vertex_bytes(&s.vertices);
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
    let (vs, fs) = (textured_shader("vs_offset"), textured_shader("fs_textured"));
    let push: Vec<u8> = s.tint.iter().flat_map(|v| v.to_le_bytes()).collect();
    let state = DrawState {
        vertex: &vs,
        fragment: Some(&fs),
        vertex_input: &inputs,
        vertex_buffers: &buffers,
        index_buffer: None,
        topology: ff::PrimitiveTopology::TriangleList,
        raster: ff::RasterState::default(),
        viewport: ff::Viewport::full(SIDE, SIDE),
        scissor: None,
        push_constants: &push,
        blend_constants: [0.0; 4],
        subgroup_size: 16,
    };
    let mut bindings = [sim_shader::FlatBinding::new(0, 0, s.offset.iter().flat_map(|v| v.to_le_bytes()).collect())];
    let shapes: Vec<sim_shader::ImageShape> = fs
        .bindings()
        .iter()
        .map(|b| match b.kind {
            sim_shader::BindingKind::SampledImage { .. } => sim_shader::ImageShape { extent: [4, 4, 1], levels: 1, layers: 1 },
            _ => sim_shader::ImageShape::default(),
        })
        .collect();
    let mut handler = |req: &sim_shader::ImageRequest| -> Result<Vec<[u32; 4]>, sim_shader::ShaderError> {
        Ok(req.lanes.iter().map(|l| std::array::from_fn(|k| (f32::from(s.texels[4 * (l.texel[1] * 4 + l.texel[0]) as usize + k]) / 255.0).to_bits())).collect())
    };
    let mut images = FlatImages { shapes: &shapes, handler: Some(&mut handler) };
    let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: &mut colour, blend: BlendState::REPLACE }];
    let counts = DrawCounts { count: s.vertices.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
    draw_flat(&state, counts, &mut targets, None, &mut bindings, &mut images).expect("draw_flat");
    colour
}

// ---------------------------------------------------------------------------------------------
// gpusim's side
// ---------------------------------------------------------------------------------------------

/// One draw for `draw_flat`: its fragment shader, counts, scissor, and whether it is indexed.
struct FlatDraw<'a> {
    fragment: &'a str,
    counts: DrawCounts,
    indexed: bool,
    scissor: Option<ff::Rect2D>,
}

/// The draws drawn by `draw_flat` into a colour attachment cleared to `CLEAR` and (when
/// `depth`) a depth attachment cleared to 1.0, tested LESS with writes.
fn simulate(vertices: &[Vertex], indices: &[u16], draws: &[FlatDraw<'_>], depth: bool) -> Vec<u8> {
    let mut colour = CLEAR.repeat(TEXELS);
    let mut depth_texels = 1f32.to_le_bytes().repeat(TEXELS);
    let inputs = input_state();
    let bytes = vertex_bytes(vertices);
    let index_bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
    for d in draws {
        let (vs, fs) = (shader(&vertex_for(d.fragment)), shader(d.fragment));
        let state = DrawState {
            vertex: &vs,
            fragment: Some(&fs),
            vertex_input: &inputs,
            vertex_buffers: &buffers,
            index_buffer: d.indexed.then_some((&index_bytes[..], ff::IndexType::Uint16)),
            topology: ff::PrimitiveTopology::TriangleList,
            raster: ff::RasterState::default(),
            viewport: ff::Viewport::full(SIDE, SIDE),
            scissor: d.scissor,
            push_constants: &[],
            blend_constants: [0.0; 4],
            subgroup_size: 16,
        };
        let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: &mut colour, blend: BlendState::REPLACE }];
        let mut target = DepthTarget { format: Format::D32_SFLOAT, extent: [SIDE, SIDE], texels: &mut depth_texels, test: true, write: true, compare: CompareOp::Less };
        draw_flat(&state, d.counts, &mut targets, depth.then_some(&mut target), &mut [], &mut FlatImages::default()).expect("draw_flat");
    }
    colour
}

// ---------------------------------------------------------------------------------------------
// The replay and the comparison
// ---------------------------------------------------------------------------------------------

/// Prints past the test harness's capture (a skip and the comparison must be seen).
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Replays `w` on lavapipe under the validation layer (`iterations` times), or `None` (printed)
/// where Vulkan, the device or the layer is not here.
fn replay_on_device(w: &Workload, iterations: u32) -> Option<sim_vulkan::Replay> {
    let device = std::env::var("GPUSIM_RASTER_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    let options = ReplayOptions { device: Some(device), validate: true, iterations, limits: RunLimits::default() };
    match sim_vulkan::replay(w, &options) {
        Ok(r) => Some(r),
        Err(e @ (ReplayError::NoLoader(_) | ReplayError::NoDevice | ReplayError::NoLayer | ReplayError::UnknownDevice { .. })) => {
            if std::env::var("GPUSIM_REQUIRE_VULKAN").is_ok_and(|v| v == "1") {
                panic!("GPUSIM_REQUIRE_VULKAN=1 but {} cannot be replayed here: {e}", w.name);
            }
            say(&format!("skipping graphics_replay::{}: {e}", w.name));
            None
        }
        Err(e) => panic!("{}: replay failed: {e}", w.name),
    }
}

/// What a replay of a scene read back.
struct Picture {
    /// The bytes of the host read of the readback buffer.
    bytes: Vec<u8>,
    /// Where the engine ran the scene too (a reference run): the bytes of the picture that
    /// differed from the reference run's in the first iteration that differed (0: none).
    reference_differences: Option<u64>,
}

/// Replays `w` as [`replay_on_device`] does and checks that the layer found nothing, and that
/// final memory other than the picture is the reference run's where there is one.
fn replay(w: &Workload, iterations: u32) -> Option<Picture> {
    let r = replay_on_device(w, iterations)?;
    say(&format!("graphics_replay::{} on {} ({}), {} iteration(s); notes: {}", w.name, r.device.name, r.layer.as_deref().unwrap_or("no layer"), r.observed.iterations, r.notes.join("; ")));
    // The validation layer, with synchronization validation, finds nothing in these programs.
    let errors: Vec<String> = r.validation_errors.iter().map(|e| e.summary()).collect();
    assert!(errors.is_empty(), "{}: the layer reports {} error(s):\n{}", w.name, errors.len(), errors.join("\n"));
    let hazards: Vec<String> = r.hazards.iter().map(|h| h.summary()).collect();
    assert!(hazards.is_empty(), "{}: the layer reports {} hazard(s):\n{}", w.name, hazards.len(), hazards.join("\n"));
    assert_eq!(r.observed.host_reads.len(), 1);
    // Where the engine runs the draws too, memory other than the picture's is the reference
    // run's; the picture may differ where a colour is rounded the other way ([`compare`]).
    for m in r.observed.memories.iter().filter(|m| m.memory != "readback.memory") {
        assert_eq!(m.differences.differing_iterations, 0, "{}: memory `{}` differs from the reference run: {:?}", w.name, m.memory, m.differences);
    }
    let data = r.observed.host_reads[0].data.clone();
    assert_eq!(data.len(), TEXELS * 4, "{}: the picture's bytes", w.name);
    // Final memory is read back as well: the readback buffer's memory holds the same picture.
    let readback = r.observed.memories.iter().find(|m| m.memory == "readback.memory").expect("the readback buffer's memory");
    assert_eq!(readback.data, data, "{}: final memory and the host read agree", w.name);
    let reference_differences = r.observed.compared.then_some(r.observed.host_reads[0].differences.differing_bytes);
    if let Some(n) = reference_differences {
        say(&format!("graphics_replay::{}: {n} bytes of the picture differ from the engine's reference run", w.name));
    }
    Some(Picture { bytes: data, reference_differences })
}

fn texel(t: &[u8], i: usize) -> [u8; 4] {
    [t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]]
}

/// Coverage exactly (a texel one side wrote and the other did not), colours within one unit;
/// and where the replay compared the picture with the engine's reference run, it found no more
/// differing bytes than there are channels one unit apart from `draw_flat`'s.
fn compare(name: &str, sim: &[u8], picture: &Picture) {
    let dev = &picture.bytes[..];
    let (mut coverage, mut colour, mut largest) = (Vec::new(), Vec::new(), 0u8);
    let one_apart = sim.iter().zip(dev).filter(|(a, b)| a.abs_diff(**b) == 1).count() as u64;
    for i in 0..TEXELS {
        let (x, y) = ((i as u32) % SIDE, (i as u32) / SIDE);
        let (a, b) = (texel(sim, i), texel(dev, i));
        if (a == CLEAR) != (b == CLEAR) {
            coverage.push((x, y, a, b));
            continue;
        }
        let d = (0..4).map(|k| a[k].abs_diff(b[k])).max().unwrap_or(0);
        largest = largest.max(d);
        if d > 1 {
            colour.push((x, y, a, b));
        }
    }
    let written = |t: &[u8]| t.chunks(4).filter(|t| *t != CLEAR).count();
    say(&format!(
        "graphics_replay::{name}: {} texels written by gpusim, {} by the device; {} coverage mismatches, {} colour mismatches beyond 1; largest channel difference {largest}",
        written(sim),
        written(dev),
        coverage.len(),
        colour.len()
    ));
    let listing = |v: &[(u32, u32, [u8; 4], [u8; 4])]| v.iter().take(12).map(|(x, y, a, b)| format!("({x}, {y}) gpusim {a:?} device {b:?}")).collect::<Vec<_>>().join("; ");
    assert!(written(sim) > 0, "{name}: the scene draws something");
    assert!(coverage.is_empty(), "{name}: coverage differs at {} texels: {}", coverage.len(), listing(&coverage));
    assert!(colour.is_empty(), "{name}: colours differ by more than 1 at {} texels: {}", colour.len(), listing(&colour));
    if let Some(n) = picture.reference_differences {
        assert!(n <= one_apart, "{name}: {n} bytes differ from the reference run, but only {one_apart} are one unit from draw_flat's");
    }
}

fn depth_reference(vertices: &[Vertex]) -> Vec<u8> {
    let counts = DrawCounts { count: vertices.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
    simulate(vertices, &[], &[FlatDraw { fragment: "fs_flat", counts, indexed: false, scissor: None }], true)
}

/// (1) A render pass clears the colour and depth attachments, draws overlapping triangles with
/// the depth test, and the colour attachment is copied out after a pipeline barrier.
#[test]
fn render_pass_with_depth_test() {
    let (w, vertices) = depth_workload(Target::RenderPass);
    let Some(dev) = replay(&w, 2) else { return };
    compare(&w.name, &depth_reference(&vertices), &dev);
}

/// (2) The same scene with dynamic rendering (vkCmdBeginRendering), the attachments moved to
/// their layouts by a barrier.
#[test]
fn dynamic_rendering_with_depth_test() {
    let (w, vertices) = depth_workload(Target::Rendering);
    let Some(dev) = replay(&w, 2) else { return };
    compare(&w.name, &depth_reference(&vertices), &dev);
}

/// (3) An indexed draw, then through a scissor an indirect and an indexed indirect draw whose
/// records a vkCmdUpdateBuffer wrote.
#[test]
fn indexed_and_indirect_draws() {
    let s = indexed_scene();
    let w = indexed_workload(&s);
    let Some(dev) = replay(&w, 2) else { return };
    let [count, instance_count, first, first_instance] = s.direct;
    let [icount, iinstances, ifirst, ioffset, ifirst_instance] = s.indexed;
    let draws = [
        FlatDraw { fragment: "fs_smooth", counts: DrawCounts { count: s.indices.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 }, indexed: true, scissor: None },
        FlatDraw { fragment: "fs_smooth", counts: DrawCounts { count, instance_count, first, vertex_offset: 0, first_instance }, indexed: false, scissor: Some(s.scissor) },
        FlatDraw {
            fragment: "fs_smooth",
            counts: DrawCounts { count: icount, instance_count: iinstances, first: ifirst, vertex_offset: ioffset as i32, first_instance: ifirst_instance },
            indexed: true,
            scissor: Some(s.scissor),
        },
    ];
    compare(&w.name, &simulate(&s.vertices, &s.indices, &draws, false), &dev);
}

/// The layer watches these replays: without the barrier between the vkCmdUpdateBuffer that
/// writes the indirect records and the draws that read them, it reports the read after write
/// at the first indirect draw, named by its trace place.
#[test]
fn a_missing_barrier_before_an_indirect_draw_is_reported() {
    let s = indexed_scene();
    let mut w = indexed_workload(&s);
    w.name = "indexed-and-indirect-without-barrier".into();
    let commands = &mut w.command_buffers[0].commands;
    assert!(matches!(commands[1], Command::PipelineBarrier(_)));
    commands.remove(1);
    let Some(r) = replay_on_device(&w, 1) else { return };
    let indirect = w.command_buffers[0].commands.iter().position(|c| matches!(c, Command::Draw { kind: DrawKind::Indirect { .. }, .. })).expect("an indirect draw");
    let summaries: Vec<String> = r.hazards.iter().map(|h| h.summary()).collect();
    say(&format!("graphics_replay::{}: {}", w.name, summaries.join("; ")));
    assert!(
        r.hazards.iter().any(|h| h.id == "SYNC-HAZARD-READ-AFTER-WRITE" && h.at.command == indirect && h.resource.as_deref() == Some("draw_args")),
        "the read after write at command {indirect}: {summaries:?}"
    );
    assert!(r.validation_errors.is_empty(), "{:?}", r.validation_errors.iter().map(|e| e.summary()).collect::<Vec<_>>());
}

/// A draw with a uniform buffer both stages read (its descriptor visible to both), a sampled
/// image the fragment shader loads, and push constants only the fragment shader declares.
#[test]
fn descriptors_and_push_constants_in_both_stages() {
    let s = textured_scene();
    let w = textured_workload(&s);
    let Some(dev) = replay(&w, 2) else { return };
    compare(&w.name, &simulate_textured(&s), &dev);
}

/// Two subpasses of one render pass, each drawing into the colour attachment with its own
/// pipeline, a BY_REGION dependency between them (its masks chained as a VkMemoryBarrier2):
/// the second subpass's triangle lies over the first's.
#[test]
fn two_subpasses_with_a_dependency() {
    let mut w = Workload::new("two-subpasses");
    let colour = image(&mut w, "colour", Format::R8G8B8A8_UNORM, "COLOR_ATTACHMENT|TRANSFER_SRC");
    let rb = readback(&mut w);
    let tri = |p: [[f32; 4]; 3], c: [f32; 4]| p.map(|p| (p, c));
    let vertices = [tri([at_z(-0.9, -0.8, 0.5), at_z(-0.7, 0.9, 0.5), at_z(0.6, -0.6, 0.5)], RED), tri([at_z(-0.3, -0.9, 0.5), at_z(0.1, 0.8, 0.5), at_z(0.9, 0.2, 0.5)], GREEN)].concat();
    let mut writes = Vec::new();
    let vb = host_data(&mut w, "vertices", vertex_bytes(&vertices), &mut writes);
    let mut pass = colour_pass();
    pass.name = "two_subpasses".into();
    pass.subpasses.push(pass.subpasses[0].clone());
    for d in &mut pass.dependencies {
        if d.src_subpass == SubpassRef::Index(0) {
            d.src_subpass = SubpassRef::Index(1);
        }
    }
    pass.dependencies.push(SubpassDependency {
        src_subpass: SubpassRef::Index(0),
        dst_subpass: SubpassRef::Index(1),
        src_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
        src_access_mask: A::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
        by_region: true,
    });
    w.render_passes.push(pass);
    w.framebuffers.push(FramebufferDesc { name: "colour_fb".into(), render_pass: 0, attachments: vec![view(colour)], width: SIDE, height: SIDE, layers: 1 });
    for subpass in 0..2 {
        w.graphics_pipelines.push(pipeline(&format!("subpass{subpass}"), "fs_flat", PipelineTarget::RenderPass { render_pass: 0, subpass }, false));
    }
    let draw = |pipeline: usize, first_vertex| Command::Draw {
        pipeline,
        kind: DrawKind::Direct { vertex_count: 3, instance_count: 1, first_vertex, first_instance: 0 },
        bindings: vec![],
        push_constants: vec![],
        images: vec![],
    };
    let mut commands = vec![
        Command::BeginRenderPass { render_pass: 0, framebuffer: 0, render_area: render_area(), clear_values: vec![Some(ClearValue::Float([0.0; 4]))] },
        Command::BindVertexBuffers { first_binding: 0, buffers: vec![(vb, 0)] },
        draw(0, 0),
        Command::NextSubpass,
        draw(1, 3),
        Command::EndRenderPass,
    ];
    commands.extend(copy_out(colour, None, &rb));
    let cb = w.command_buffer("frame", commands);
    timeline(&mut w, writes, cb, &rb);
    let Some(dev) = replay(&w, 2) else { return };
    let flat = |first| FlatDraw { fragment: "fs_flat", counts: DrawCounts { count: 3, instance_count: 1, first, vertex_offset: 0, first_instance: 0 }, indexed: false, scissor: None };
    compare(&w.name, &simulate(&vertices, &[], &[flat(0), flat(3)], false), &dev);
}

/// (4) Beside the layer's silence on every scene above: a clear of part of the colour
/// attachment inside the render pass (vkCmdClearAttachments) and a viewport the command buffer
/// sets, which the draw uses instead of the render area; the picture is the cleared rectangle
/// and the depth scene drawn through the smaller viewport.
#[test]
fn clear_attachments_and_viewport_are_valid() {
    let (mut w, vertices) = depth_workload(Target::RenderPass);
    w.name = "clear-attachments-and-viewport".into();
    let viewport = ff::Viewport { x: 8.0, y: 16.0, width: 48.0, height: 40.0, min_depth: 0.0, max_depth: 1.0 };
    let rect = ClearRect { rect: ff::Rect2D { x: 0, y: 0, width: 16, height: 8 }, base_array_layer: 0, layer_count: 1 };
    let grey = [0.5, 0.5, 0.5, 1.0];
    let commands = &mut w.command_buffers[0].commands;
    let draw_at = commands.iter().position(|c| matches!(c, Command::Draw { .. })).expect("a draw");
    commands.insert(draw_at, Command::SetViewport(viewport));
    commands.insert(draw_at, Command::ClearAttachments { attachments: vec![sim_core::api::ClearAttachment::Color { attachment: 0, value: ClearValue::Float(grey) }], rects: vec![rect] });
    let Some(dev) = replay(&w, 1) else { return };
    // gpusim's side: the cleared rectangle first, then the draw through the viewport.
    let sim = {
        let counts = DrawCounts { count: vertices.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
        let mut colour = CLEAR.repeat(TEXELS);
        for y in 0..8 {
            for x in 0..16 {
                let i = 4 * (y * SIDE + x) as usize;
                colour[i..i + 4].copy_from_slice(&[128, 128, 128, 255]);
            }
        }
        let mut depth = 1f32.to_le_bytes().repeat(TEXELS);
        let inputs = input_state();
        let bytes = vertex_bytes(&vertices);
        let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
        let (vs, fs) = (shader("vs_flat"), shader("fs_flat"));
        let state = DrawState {
            vertex: &vs,
            fragment: Some(&fs),
            vertex_input: &inputs,
            vertex_buffers: &buffers,
            index_buffer: None,
            topology: ff::PrimitiveTopology::TriangleList,
            raster: ff::RasterState::default(),
            viewport,
            scissor: None,
            push_constants: &[],
            blend_constants: [0.0; 4],
            subgroup_size: 16,
        };
        let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: &mut colour, blend: BlendState::REPLACE }];
        let mut target = DepthTarget { format: Format::D32_SFLOAT, extent: [SIDE, SIDE], texels: &mut depth, test: true, write: true, compare: CompareOp::Less };
        draw_flat(&state, counts, &mut targets, Some(&mut target), &mut [], &mut FlatImages::default()).expect("draw_flat");
        colour
    };
    // 0.5 is 127.5 in UNORM: either rounding is within the tolerance.
    compare(&w.name, &sim, &dev);
}
