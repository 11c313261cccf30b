//! The graphics part of the trace contract (docs/TRACE_FORMAT.md, "Graphics"): render passes,
//! framebuffers, graphics pipelines and the graphics commands load into the workload's
//! graphics types, are written back by the trace writer to the same workload, and every
//! structural mistake is a located error naming the Vulkan rule it breaks.

use serde_json::{Value, json};
use sim_core::api::{ClearAttachment, Command, DrawKind, LoadOp, PipelineTarget, StoreOp, SubpassRef, Workload};
use sim_core::fixed_function::{CullMode, IndexType, PrimitiveTopology, Rect2D, VertexInputRate};
use sim_core::trace::{TraceError, load_str, write};
use sim_rop::fragment::{BlendFactor, CompareOp};
use sim_rop::{ClearValue, Format};

/// A vertex and a fragment shader reading a uniform buffer, a sampled image and a sampler.
const SHADER: &str = "struct U { offset: vec2<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var smp: sampler;
struct VOut { @builtin(position) pos: vec4<f32>, @location(0) colour: vec3<f32> }
@vertex fn vs(@location(0) p: vec2<f32>, @location(1) c: vec3<f32>) -> VOut {
    var o: VOut;
    o.pos = vec4<f32>(p + u.offset, 0.5, 1.0);
    o.colour = c;
    return o;
}
@fragment fn fs(@location(0) c: vec3<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(c, 1.0) * textureSample(tex, smp, vec2<f32>(0.5, 0.5));
}";

/// A trace with a render pass of two subpasses, its framebuffer, a graphics pipeline and every
/// graphics command.
fn full() -> Value {
    json!({
        "gpusim_trace": 1,
        "name": "graphics",
        "memory": [{"id": "vram", "size": 1048576, "properties": "DEVICE_LOCAL"},
                   {"id": "bufs", "size": 65536, "properties": "DEVICE_LOCAL"}],
        "buffers": [
            {"id": "vertices", "memory": "bufs", "offset": 0, "size": 4096, "usage": "VERTEX_BUFFER"},
            {"id": "indices", "memory": "bufs", "offset": 4096, "size": 4096, "usage": "INDEX_BUFFER"},
            {"id": "uniforms", "memory": "bufs", "offset": 8192, "size": 256, "usage": "UNIFORM_BUFFER"},
            {"id": "draw_args", "memory": "bufs", "offset": 12288, "size": 256, "usage": "INDIRECT_BUFFER"}
        ],
        "images": [
            {"id": "colour", "memory": "vram", "offset": 0, "format": "R8G8B8A8_UNORM", "extent": [32, 32, 1],
             "usage": "COLOR_ATTACHMENT|INPUT_ATTACHMENT|TRANSFER_SRC"},
            {"id": "depth", "memory": "vram", "offset": 65536, "format": "D32_SFLOAT", "extent": [32, 32, 1],
             "usage": "DEPTH_STENCIL_ATTACHMENT"},
            {"id": "second", "memory": "vram", "offset": 131072, "format": "R32_UINT", "extent": [64, 64, 1], "mip_levels": 2,
             "usage": "COLOR_ATTACHMENT"},
            {"id": "albedo", "memory": "vram", "offset": 262144, "format": "R8G8B8A8_UNORM", "extent": [8, 8, 1],
             "usage": "SAMPLED|TRANSFER_DST"}
        ],
        "samplers": [{"id": "bilinear", "mag_filter": "LINEAR", "min_filter": "LINEAR"}],
        "shaders": [
            {"id": "mesh_vs", "stage": "VERTEX", "entry_point": "vs", "wgsl": SHADER},
            {"id": "mesh_fs", "stage": "VK_SHADER_STAGE_FRAGMENT_BIT", "entry_point": "fs", "wgsl": SHADER}
        ],
        "render_passes": [{"id": "main_pass",
            "attachments": [
                {"format": "R8G8B8A8_UNORM", "samples": 1, "load_op": "CLEAR", "store_op": "STORE",
                 "stencil_load_op": "DONT_CARE", "stencil_store_op": "DONT_CARE",
                 "initial_layout": "UNDEFINED", "final_layout": "SHADER_READ_ONLY_OPTIMAL"},
                {"format": "D32_SFLOAT", "load_op": "VK_ATTACHMENT_LOAD_OP_CLEAR", "store_op": "DONT_CARE",
                 "initial_layout": "UNDEFINED", "final_layout": "DEPTH_STENCIL_ATTACHMENT_OPTIMAL"},
                {"format": "R32_UINT", "load_op": "CLEAR", "store_op": "STORE",
                 "initial_layout": "UNDEFINED", "final_layout": "TRANSFER_SRC_OPTIMAL"}],
            "subpasses": [
                {"color_attachments": [{"attachment": 0, "layout": "COLOR_ATTACHMENT_OPTIMAL"}, {"attachment": "UNUSED"}],
                 "depth_stencil_attachment": {"attachment": 1, "layout": "DEPTH_STENCIL_ATTACHMENT_OPTIMAL"},
                 "input_attachments": [], "preserve_attachments": []},
                {"color_attachments": [{"attachment": 2, "layout": "COLOR_ATTACHMENT_OPTIMAL"}],
                 "input_attachments": [{"attachment": 0, "layout": "SHADER_READ_ONLY_OPTIMAL"}],
                 "preserve_attachments": [1]}],
            "dependencies": [
                {"src_subpass": "EXTERNAL", "dst_subpass": 0,
                 "src_stage_mask": "COLOR_ATTACHMENT_OUTPUT", "src_access_mask": "NONE",
                 "dst_stage_mask": "COLOR_ATTACHMENT_OUTPUT|EARLY_FRAGMENT_TESTS", "dst_access_mask": "COLOR_ATTACHMENT_WRITE|DEPTH_STENCIL_ATTACHMENT_WRITE",
                 "dependency_flags": "BY_REGION"},
                {"src_subpass": 0, "dst_subpass": 1,
                 "src_stage_mask": "COLOR_ATTACHMENT_OUTPUT", "src_access_mask": "COLOR_ATTACHMENT_WRITE",
                 "dst_stage_mask": "FRAGMENT_SHADER", "dst_access_mask": "INPUT_ATTACHMENT_READ",
                 "dependency_flags": "VK_DEPENDENCY_BY_REGION_BIT"},
                {"src_subpass": 1, "dst_subpass": "VK_SUBPASS_EXTERNAL",
                 "src_stage_mask": "COLOR_ATTACHMENT_OUTPUT", "src_access_mask": "COLOR_ATTACHMENT_WRITE",
                 "dst_stage_mask": "COPY", "dst_access_mask": "TRANSFER_READ"}]}],
        "framebuffers": [{"id": "main_fb", "render_pass": "main_pass",
                          "attachments": ["colour", "depth", {"image": "second", "mip_level": 1}],
                          "width": 32, "height": 32, "layers": 1}],
        "pipelines": [{"id": "mesh", "type": "GRAPHICS", "vertex_shader": "mesh_vs", "fragment_shader": "mesh_fs",
            "vertex_input": {"bindings": [{"binding": 0, "stride": 20, "input_rate": "VERTEX"}],
                             "attributes": [{"location": 0, "binding": 0, "format": "R32G32_SFLOAT", "offset": 0},
                                            {"location": 1, "binding": 0, "format": "R32G32B32_SFLOAT", "offset": 8}]},
            "topology": "TRIANGLE_LIST",
            "rasterization": {"polygon_mode": "FILL", "cull_mode": "BACK", "front_face": "CLOCKWISE"},
            "depth_stencil": {"depth_test_enable": true, "depth_write_enable": true, "depth_compare_op": "LESS_OR_EQUAL",
                              "stencil_test_enable": false},
            "color_blend": {"attachments": [
                {"blend_enable": true, "color_write_mask": "R|G|B",
                 "src_color_blend_factor": "SRC_ALPHA", "dst_color_blend_factor": "ONE_MINUS_SRC_ALPHA", "color_blend_op": "ADD",
                 "src_alpha_blend_factor": "ONE", "dst_alpha_blend_factor": "ZERO", "alpha_blend_op": "MAX"},
                {"blend_enable": false}],
                "blend_constants": [0.25, 0.5, 0.75, 1.0]},
            "render_pass": "main_pass", "subpass": 0}],
        "command_buffers": [{"id": "cb0", "commands": [
            {"cmd": "begin_render_pass", "render_pass": "main_pass", "framebuffer": "main_fb",
             "render_area": {"offset": [0, 0], "extent": [32, 32]},
             "clear_values": [{"color": {"float32": [0, 0, 0, 1]}}, {"depth_stencil": {"depth": 1.0, "stencil": 0}}, {"uint32": [7, 0, 0, 0]}]},
            {"cmd": "bind_vertex_buffers", "first_binding": 0, "buffers": ["vertices"], "offsets": [0]},
            {"cmd": "bind_index_buffer", "buffer": "indices", "offset": 0, "index_type": "UINT16"},
            {"cmd": "set_viewport", "viewport": {"x": 0, "y": 0, "width": 32, "height": 32, "min_depth": 0, "max_depth": 1}},
            {"cmd": "set_scissor", "scissor": {"offset": [0, 0], "extent": [32, 32]}},
            {"cmd": "draw", "pipeline": "mesh", "vertex_count": 3, "instance_count": 1, "first_vertex": 0, "first_instance": 0,
             "bindings": [{"set": 0, "binding": 0, "buffer": "uniforms"},
                          {"set": 0, "binding": 1, "image": "albedo", "layout": "SHADER_READ_ONLY_OPTIMAL"},
                          {"set": 0, "binding": 2, "sampler": "bilinear"}],
             "push_constants_u32": [1, 2]},
            {"cmd": "draw_indexed", "pipeline": "mesh", "index_count": 6, "instance_count": 2, "first_index": 3,
             "vertex_offset": -1, "first_instance": 1, "bindings": []},
            {"cmd": "draw_indirect", "pipeline": "mesh", "buffer": "draw_args", "offset": 0, "draw_count": 2, "stride": 16, "bindings": []},
            {"cmd": "draw_indexed_indirect", "pipeline": "mesh", "buffer": "draw_args", "offset": 64, "bindings": []},
            {"cmd": "clear_attachments",
             "attachments": [{"aspect_mask": "COLOR", "color_attachment": 0, "clear_value": {"float32": [1, 0, 0, 1]}},
                             {"aspect_mask": "DEPTH", "clear_value": {"depth": 0.5}}],
             "rects": [{"rect": {"offset": [0, 0], "extent": [16, 16]}, "base_array_layer": 0, "layer_count": 1}]},
            {"cmd": "next_subpass"},
            {"cmd": "end_render_pass"}
        ]}],
        "timeline": [{"op": "queue_submit", "queue": "q0", "command_buffers": ["cb0"]}]
    })
}

/// A trace with dynamic rendering: a pipeline for its formats, and begin_rendering with a
/// colour, an unused colour slot and a depth attachment.
fn dynamic() -> Value {
    let mut t = full();
    t["render_passes"] = json!([]);
    t["framebuffers"] = json!([]);
    t["pipelines"][0].as_object_mut().unwrap().remove("render_pass");
    t["pipelines"][0].as_object_mut().unwrap().remove("subpass");
    t["pipelines"][0]["rendering"] = json!({"color_attachment_formats": ["R8G8B8A8_UNORM", null], "depth_attachment_format": "D32_SFLOAT"});
    t["command_buffers"][0]["commands"] = json!([
        {"cmd": "begin_rendering", "render_area": {"offset": [0, 0], "extent": [32, 32]},
         "color_attachments": [{"image": "colour", "image_layout": "COLOR_ATTACHMENT_OPTIMAL", "load_op": "CLEAR",
                                "store_op": "STORE", "clear_value": {"float32": [0, 0, 0, 1]}},
                               null],
         "depth_attachment": {"image": {"image": "depth", "mip_level": 0}, "image_layout": "DEPTH_ATTACHMENT_OPTIMAL", "load_op": "CLEAR",
                              "store_op": "STORE", "clear_value": {"depth": 1.0}}},
        {"cmd": "bind_vertex_buffers", "buffers": ["vertices"]},
        {"cmd": "draw", "pipeline": "mesh", "vertex_count": 3,
         "bindings": [{"set": 0, "binding": 0, "buffer": "uniforms"},
                      {"set": 0, "binding": 1, "image": "albedo", "layout": "SHADER_READ_ONLY_OPTIMAL"},
                      {"set": 0, "binding": 2, "sampler": "bilinear"}]},
        {"cmd": "end_rendering"}
    ]);
    t
}

fn load(t: &Value) -> Workload {
    load_str(&t.to_string(), None).unwrap_or_else(|e| panic!("{e}")).workload
}

/// The error loading `t` gives.
fn error(t: &Value) -> TraceError {
    match load_str(&t.to_string(), None) {
        Ok(_) => panic!("the trace loads:\n{t:#}"),
        Err(e) => e,
    }
}

/// `full()` changed by `f` is refused at `path` with a message starting with `start`.
#[track_caller]
fn refused(f: impl FnOnce(&mut Value), path: &str, start: &str) {
    let mut t = full();
    f(&mut t);
    let e = error(&t);
    assert_eq!(e.path, path, "{e}");
    assert!(e.message.starts_with(start), "expected a message starting with {start:?}, got {e}");
    assert!(e.position.is_some(), "{e} has no line and column");
}

/// Everything of a workload but what its shaders compiled to, which a written trace holds as
/// SPIR-V rather than the source it was given: equal for a workload and its written trace.
fn without_shaders(w: &Workload) -> String {
    let pipelines: Vec<String> = w
        .graphics_pipelines
        .iter()
        .map(|p| {
            format!(
                "{} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} stages {:?} {} {:?}",
                p.name,
                p.vertex_shader,
                p.fragment_shader,
                p.vertex_input,
                p.topology,
                p.raster,
                p.depth_stencil,
                p.blend,
                p.blend_constants,
                p.target,
                p.vertex.bindings(),
                p.vertex.stage(),
                p.vertex.entry_point(),
                p.fragment.as_ref().map(|f| (f.stage(), f.entry_point().to_string(), f.bindings().to_vec())),
            )
        })
        .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{pipelines:?}\n{:?}\n{:?}\n{:?}",
        w.name, w.memories, w.buffers, w.images, w.samplers, w.render_passes, w.framebuffers, w.command_buffers, w.queues, w.timeline
    )
}

/// `w` written as a trace and loaded back (its SPIR-V files in a folder of their own).
fn round_trip(w: &Workload, tag: &str) -> (write::WrittenTrace, Workload) {
    let written = write::to_trace(w, "t", None).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("gpusim-graphics-trace-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in &written.files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let back = load_str(&written.text, Some(&dir)).unwrap_or_else(|e| panic!("{e}\n{}", written.text)).workload;
    let _ = std::fs::remove_dir_all(&dir);
    (written, back)
}

#[test]
fn a_render_pass_trace_loads_into_the_graphics_workload() {
    let w = load(&full());
    assert!(w.pipelines.is_empty(), "vertex and fragment shaders are not compute pipelines");

    let rp = &w.render_passes[0];
    assert_eq!(rp.name, "main_pass");
    assert_eq!(rp.attachments.len(), 3);
    assert_eq!((rp.attachments[0].format, rp.attachments[0].load_op, rp.attachments[0].store_op), (Format::R8G8B8A8_UNORM, LoadOp::Clear, StoreOp::Store));
    assert_eq!((rp.attachments[1].load_op, rp.attachments[1].stencil_load_op, rp.attachments[1].stencil_store_op), (LoadOp::Clear, LoadOp::DontCare, StoreOp::DontCare));
    assert_eq!(rp.attachments[0].final_layout, "SHADER_READ_ONLY_OPTIMAL");
    assert_eq!(rp.subpasses.len(), 2);
    assert_eq!(rp.subpasses[0].color_attachments.len(), 2);
    assert_eq!(rp.subpasses[0].color_attachments[0].as_ref().map(|r| (r.attachment, r.layout.as_str())), Some((0, "COLOR_ATTACHMENT_OPTIMAL")));
    assert!(rp.subpasses[0].color_attachments[1].is_none(), "UNUSED");
    assert_eq!(rp.subpasses[0].depth_stencil_attachment.as_ref().map(|r| r.attachment), Some(1));
    assert_eq!(rp.subpasses[1].input_attachments[0].as_ref().map(|r| r.layout.as_str()), Some("SHADER_READ_ONLY_OPTIMAL"));
    assert_eq!(rp.subpasses[1].preserve_attachments, [1]);
    assert_eq!(rp.first_use(0), Some(0));
    assert_eq!(rp.last_use(0), Some(1));
    let d = &rp.dependencies;
    assert_eq!((d[0].src_subpass, d[0].dst_subpass, d[0].by_region), (SubpassRef::External, SubpassRef::Index(0), true));
    assert_eq!((d[1].src_subpass, d[1].dst_subpass, d[1].by_region), (SubpassRef::Index(0), SubpassRef::Index(1), true));
    assert_eq!((d[2].dst_subpass, d[2].by_region), (SubpassRef::External, false));
    assert_eq!(d[1].dst_access_mask.to_string(), "INPUT_ATTACHMENT_READ");
    assert_eq!(d[0].dst_stage_mask.to_string(), "EARLY_FRAGMENT_TESTS|COLOR_ATTACHMENT_OUTPUT");

    let fb = &w.framebuffers[0];
    assert_eq!((fb.name.as_str(), fb.render_pass, fb.width, fb.height, fb.layers), ("main_fb", 0, 32, 32, 1));
    assert_eq!((fb.attachments[0].image, fb.attachments[0].level), (0, 0));
    assert_eq!((fb.attachments[2].image, fb.attachments[2].level, fb.attachments[2].base_layer, fb.attachments[2].layer_count), (2, 1, 0, 1));

    let p = &w.graphics_pipelines[0];
    assert_eq!((p.name.as_str(), p.vertex_shader.as_str(), p.fragment_shader.as_deref()), ("mesh", "mesh_vs", Some("mesh_fs")));
    assert_eq!(p.vertex.entry_point(), "vs");
    assert_eq!(p.fragment.as_ref().map(|f| f.entry_point()), Some("fs"));
    assert_eq!(p.vertex_input.bindings()[0].stride, 20);
    assert_eq!(p.vertex_input.bindings()[0].input_rate, VertexInputRate::Vertex);
    assert_eq!(p.vertex_input.attributes()[1].format, Format::R32G32B32_SFLOAT);
    assert_eq!(p.topology, PrimitiveTopology::TriangleList);
    assert_eq!(p.raster.cull_mode, CullMode::Back);
    assert!(p.depth_stencil.depth_test && p.depth_stencil.depth_write && !p.depth_stencil.stencil_test);
    assert_eq!(p.depth_stencil.depth_compare, CompareOp::LessOrEqual);
    assert_eq!(p.blend.len(), 2);
    assert!(p.blend[0].enable);
    assert_eq!((p.blend[0].src_color, p.blend[0].dst_color, p.blend[0].write_mask), (BlendFactor::SrcAlpha, BlendFactor::OneMinusSrcAlpha, 0b0111));
    assert_eq!(p.blend[1], sim_rop::fragment::BlendState::REPLACE);
    assert_eq!(p.blend_constants, [0.25, 0.5, 0.75, 1.0]);
    assert_eq!(p.target, PipelineTarget::RenderPass { render_pass: 0, subpass: 0 });

    let c = &w.command_buffers[0].commands;
    assert_eq!(c.len(), 12);
    match &c[0] {
        Command::BeginRenderPass { render_pass, framebuffer, render_area, clear_values } => {
            assert_eq!((*render_pass, *framebuffer), (0, 0));
            assert_eq!(*render_area, Rect2D { x: 0, y: 0, width: 32, height: 32 });
            assert_eq!(clear_values.as_slice(), [Some(ClearValue::Float([0.0, 0.0, 0.0, 1.0])), Some(ClearValue::DepthStencil { depth: 1.0, stencil: 0 }), Some(ClearValue::Uint([7, 0, 0, 0]))]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&c[1], Command::BindVertexBuffers { first_binding: 0, buffers } if buffers.as_slice() == [(0, 0)]));
    assert!(matches!(c[2], Command::BindIndexBuffer { buffer: 1, offset: 0, index_type: IndexType::Uint16 }));
    assert!(matches!(c[3], Command::SetViewport(v) if v.width == 32.0 && v.max_depth == 1.0));
    assert!(matches!(c[4], Command::SetScissor(Rect2D { x: 0, y: 0, width: 32, height: 32 })));
    match &c[5] {
        Command::Draw { pipeline: 0, kind, bindings, push_constants, images } => {
            assert_eq!(*kind, DrawKind::Direct { vertex_count: 3, instance_count: 1, first_vertex: 0, first_instance: 0 });
            assert_eq!((bindings.len(), bindings[0].buffer, bindings[0].binding), (1, 2, 0));
            assert_eq!(images.len(), 2);
            assert_eq!((images[0].binding, images[0].image, images[0].descriptor_type), (1, Some(3), sim_core::api::ImageDescriptorType::SampledImage));
            assert_eq!((images[1].binding, images[1].sampler), (2, Some(0)));
            assert_eq!(push_constants.as_slice(), [1, 0, 0, 0, 2, 0, 0, 0]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&c[6], Command::Draw { kind: DrawKind::Indexed { index_count: 6, instance_count: 2, first_index: 3, vertex_offset: -1, first_instance: 1 }, .. }));
    assert!(matches!(&c[7], Command::Draw { kind: DrawKind::Indirect { indexed: false, buffer: 3, offset: 0, draw_count: 2, stride: 16 }, .. }));
    assert!(matches!(&c[8], Command::Draw { kind: DrawKind::Indirect { indexed: true, buffer: 3, offset: 64, draw_count: 1, stride: 20 }, .. }));
    match &c[9] {
        Command::ClearAttachments { attachments, rects } => {
            assert_eq!(attachments[0], ClearAttachment::Color { attachment: 0, value: ClearValue::Float([1.0, 0.0, 0.0, 1.0]) });
            assert_eq!(attachments[1], ClearAttachment::DepthStencil { depth: true, stencil: false, value: ClearValue::DepthStencil { depth: 0.5, stencil: 0 } });
            assert_eq!((rects[0].rect.width, rects[0].base_array_layer, rects[0].layer_count), (16, 0, 1));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(c[10], Command::NextSubpass));
    assert!(matches!(c[11], Command::EndRenderPass));
}

#[test]
fn a_render_pass_trace_survives_the_writer() {
    let w = load(&full());
    let (written, back) = round_trip(&w, "full");
    assert_eq!(without_shaders(&back), without_shaders(&w), "{}", written.text);
    // The shaders come back as SPIR-V files, one per shader, with their stages.
    assert_eq!(written.files.len(), 2);
    assert!(written.text.contains("\"stage\": \"VERTEX\"") && written.text.contains("\"stage\": \"FRAGMENT\""), "{}", written.text);
    // Written again, the trace is the same, files included.
    let (again, _) = round_trip(&back, "full-again");
    assert_eq!(again, written);
}

#[test]
fn a_dynamic_rendering_trace_loads_and_survives_the_writer() {
    let w = load(&dynamic());
    match &w.graphics_pipelines[0].target {
        PipelineTarget::Rendering { color_formats, depth_format, stencil_format } => {
            assert_eq!(color_formats.as_slice(), [Some(Format::R8G8B8A8_UNORM), None]);
            assert_eq!((*depth_format, *stencil_format), (Some(Format::D32_SFLOAT), None));
        }
        other => panic!("{other:?}"),
    }
    match &w.command_buffers[0].commands[0] {
        Command::BeginRendering(info) => {
            assert_eq!((info.render_area.width, info.layer_count), (32, 1));
            assert_eq!(info.color_attachments.len(), 2);
            let c = info.color_attachments[0].as_ref().expect("a colour attachment");
            assert_eq!((c.view.image, c.layout.as_str(), c.load_op, c.clear_value), (0, "COLOR_ATTACHMENT_OPTIMAL", LoadOp::Clear, Some(ClearValue::Float([0.0, 0.0, 0.0, 1.0]))));
            assert!(info.color_attachments[1].is_none());
            let d = info.depth_attachment.as_ref().expect("a depth attachment");
            assert_eq!((d.view.image, d.clear_value), (1, Some(ClearValue::DepthStencil { depth: 1.0, stencil: 0 })));
            assert!(info.stencil_attachment.is_none());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&w.command_buffers[0].commands[1], Command::BindVertexBuffers { first_binding: 0, buffers } if buffers.as_slice() == [(0, 0)]));
    assert!(matches!(w.command_buffers[0].commands[3], Command::EndRendering));
    let (written, back) = round_trip(&w, "dynamic");
    assert_eq!(without_shaders(&back), without_shaders(&w), "{}", written.text);
}

#[test]
fn glsl_stages_and_depth_only_pipelines_load() {
    let mut t = dynamic();
    t["shaders"] = json!([
        {"id": "vs", "stage": "VERTEX", "glsl": "#version 450\nlayout(location = 0) in vec2 p;\nvoid main() { gl_Position = vec4(p, 0.0, 1.0); }"},
    ]);
    let p = &mut t["pipelines"][0];
    p["vertex_shader"] = json!("vs");
    p.as_object_mut().unwrap().remove("fragment_shader");
    p.as_object_mut().unwrap().remove("color_blend");
    p["vertex_input"]["attributes"] = json!([{"location": 0, "binding": 0, "format": "R32G32_SFLOAT"}]);
    p["rendering"] = json!({"depth_attachment_format": "D32_SFLOAT"});
    t["command_buffers"][0]["commands"] = json!([
        {"cmd": "begin_rendering", "render_area": {"extent": [32, 32]},
         "depth_attachment": {"image": "depth", "image_layout": "DEPTH_ATTACHMENT_OPTIMAL", "load_op": "LOAD", "store_op": "STORE"}},
        {"cmd": "bind_vertex_buffers", "buffers": ["vertices"]},
        {"cmd": "draw", "pipeline": "mesh", "vertex_count": 3},
        {"cmd": "end_rendering"}
    ]);
    let w = load(&t);
    let p = &w.graphics_pipelines[0];
    assert!(p.fragment.is_none() && p.blend.is_empty());
    let (written, back) = round_trip(&w, "glsl");
    assert_eq!(without_shaders(&back), without_shaders(&w), "{}", written.text);
}

#[test]
fn the_default_blend_state_is_one_replace_per_colour_attachment() {
    let mut t = full();
    t["pipelines"][0].as_object_mut().unwrap().remove("color_blend");
    let w = load(&t);
    assert_eq!(w.graphics_pipelines[0].blend, vec![sim_rop::fragment::BlendState::REPLACE; 2]);
    // Clear values of attachments that are not cleared are read by nothing.
    let mut t = full();
    t["render_passes"][0]["attachments"][2]["load_op"] = json!("LOAD");
    t["render_passes"][0]["attachments"][2]["initial_layout"] = json!("COLOR_ATTACHMENT_OPTIMAL");
    let w = load(&t);
    assert!(matches!(&w.command_buffers[0].commands[0], Command::BeginRenderPass { clear_values, .. } if clear_values[2].is_none()));
}

// ---- Structural errors: each at its JSON path, the message starting with its VUID. --------

#[test]
fn render_pass_errors_name_their_vuids() {
    let sub = "render_passes[0].subpasses";
    refused(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["attachment"] = json!(3), &format!("{sub}[0].color_attachments[0].attachment"), "VUID-VkRenderPassCreateInfo2-attachment-03051");
    refused(|t| t["render_passes"][0]["subpasses"][1]["preserve_attachments"] = json!([5]), &format!("{sub}[1].preserve_attachments[0]"), "VUID-VkRenderPassCreateInfo2-attachment-03051");
    refused(|t| t["render_passes"][0]["dependencies"][1]["src_subpass"] = json!(2), "render_passes[0].dependencies[1].src_subpass", "VUID-VkRenderPassCreateInfo2-srcSubpass-02526");
    refused(|t| t["render_passes"][0]["dependencies"][1]["dst_subpass"] = json!(9), "render_passes[0].dependencies[1].dst_subpass", "VUID-VkRenderPassCreateInfo2-dstSubpass-02527");
    refused(|t| t["render_passes"][0]["dependencies"][0]["dst_subpass"] = json!("EXTERNAL"), "render_passes[0].dependencies[0]", "VUID-VkSubpassDependency2-srcSubpass-03085");
    refused(
        |t| {
            t["render_passes"][0]["dependencies"][1]["src_subpass"] = json!(1);
            t["render_passes"][0]["dependencies"][1]["dst_subpass"] = json!(0);
        },
        "render_passes[0].dependencies[1].src_subpass",
        "VUID-VkSubpassDependency2-srcSubpass-03084",
    );
    refused(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["attachment"] = json!(1), &format!("{sub}[0].color_attachments[0].attachment"), "VUID-VkSubpassDescription2-pColorAttachments-02898");
    refused(|t| t["render_passes"][0]["subpasses"][0]["depth_stencil_attachment"]["attachment"] = json!(2), &format!("{sub}[0].depth_stencil_attachment.attachment"), "VUID-VkSubpassDescription2-pDepthStencilAttachment-02900");
    refused(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["layout"] = json!("UNDEFINED"), &format!("{sub}[0].color_attachments[0].layout"), "VUID-VkAttachmentReference2-layout-03077");
    refused(|t| t["render_passes"][0]["subpasses"][1]["input_attachments"][0]["layout"] = json!("PREINITIALIZED"), &format!("{sub}[1].input_attachments[0].layout"), "VUID-VkAttachmentReference2-layout-03077");
    refused(|t| t["render_passes"][0]["attachments"][0]["final_layout"] = json!("UNDEFINED"), "render_passes[0].attachments[0].final_layout", "VUID-VkAttachmentDescription2-finalLayout-00843");
    refused(|t| t["render_passes"][0]["attachments"][2]["final_layout"] = json!("VK_IMAGE_LAYOUT_PREINITIALIZED"), "render_passes[0].attachments[2].final_layout", "VUID-VkAttachmentDescription2-finalLayout-00843");
    refused(|t| t["render_passes"][0]["subpasses"] = json!([]), sub, "VUID-VkRenderPassCreateInfo2-subpassCount-arraylength");
    refused(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][1] = json!({"attachment": 0, "layout": "COLOR_ATTACHMENT_OPTIMAL"}), &format!("{sub}[0].color_attachments[1].attachment"), "attachment 0 is already colour attachment 0");
    refused(|t| t["render_passes"][0]["subpasses"][0]["depth_stencil_attachment"]["attachment"] = json!(0), &format!("{sub}[0].depth_stencil_attachment.attachment"), "VUID-VkSubpassDescription2-pDepthStencilAttachment-02900");
    refused(|t| t["render_passes"][0]["subpasses"][1]["preserve_attachments"] = json!([2]), &format!("{sub}[1].preserve_attachments[0]"), "VUID-VkSubpassDescription2-pPreserveAttachments-03074");
    refused(
        |t| {
            t["render_passes"][0]["subpasses"][1]["input_attachments"] = json!([{"attachment": 2, "layout": "GENERAL"}]);
        },
        &format!("{sub}[1].input_attachments[0].layout"),
        "VUID-VkSubpassDescription2-layout-02528",
    );
    refused(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["layout"] = json!("SHADER_READ_ONLY_OPTIMAL"), &format!("{sub}[0].color_attachments[0].layout"), "VUID-VkSubpassDescription2-attachment-06913");
    refused(|t| t["render_passes"][0]["attachments"][0]["samples"] = json!(4), "render_passes[0].attachments[0].samples", "multisampling is not supported yet by the engine");
    refused(|t| t["render_passes"][0]["attachments"][0]["load_op"] = json!("LOAD"), "render_passes[0].attachments[0].initial_layout", "VUID-VkAttachmentDescription2-format-06699");
    refused(|t| t["render_passes"][0]["attachments"][0]["load_op"] = json!("KEEP"), "render_passes[0].attachments[0].load_op", "unknown load op `KEEP`");
    refused(|t| t["render_passes"][0]["dependencies"][0]["dependency_flags"] = json!("VIEW_LOCAL"), "render_passes[0].dependencies[0].dependency_flags", "dependency flag `VIEW_LOCAL` is not supported yet by the engine");
    refused(|t| t["render_passes"][0]["dependencies"][1]["dst_access_mask"] = json!("TRANSFER_WRITE"), "render_passes[0].dependencies[1].dst_access_mask", "VUID-VkMemoryBarrier2-dstAccessMask-");
}

#[test]
fn framebuffer_errors_name_their_vuids() {
    refused(|t| t["framebuffers"][0]["attachments"] = json!(["colour", "depth"]), "framebuffers[0].attachments", "VUID-VkFramebufferCreateInfo-attachmentCount-00876");
    refused(|t| t["framebuffers"][0]["attachments"][1] = json!("colour"), "framebuffers[0].attachments[1]", "VUID-VkFramebufferCreateInfo-pAttachments-00880");
    refused(|t| t["images"][0]["usage"] = json!("INPUT_ATTACHMENT"), "framebuffers[0].attachments[0]", "image `colour` was created without COLOR_ATTACHMENT");
    refused(|t| t["images"][1]["usage"] = json!("SAMPLED"), "framebuffers[0].attachments[1]", "image `depth` was created without DEPTH_STENCIL_ATTACHMENT");
    refused(|t| t["images"][0]["usage"] = json!("COLOR_ATTACHMENT"), "framebuffers[0].attachments[0]", "image `colour` was created without INPUT_ATTACHMENT");
    let e = {
        let mut t = full();
        t["images"][0]["usage"] = json!("SAMPLED");
        error(&t)
    };
    assert!(e.message.contains("VUID-VkFramebufferCreateInfo-pAttachments-00877"), "{e}");
    refused(|t| t["framebuffers"][0]["width"] = json!(0), "framebuffers[0].width", "VUID-VkFramebufferCreateInfo-width-00885");
    refused(|t| t["framebuffers"][0]["height"] = json!(20000), "framebuffers[0].height", "VUID-VkFramebufferCreateInfo-height-00888");
    refused(|t| t["framebuffers"][0]["layers"] = json!(0), "framebuffers[0].layers", "VUID-VkFramebufferCreateInfo-layers-00889");
    refused(|t| t["framebuffers"][0]["layers"] = json!(2), "framebuffers[0].layers", "2 layers: layered rendering is not supported yet by the engine");
    refused(|t| t["framebuffers"][0]["width"] = json!(33), "framebuffers[0].attachments[0]", "VUID-VkFramebufferCreateInfo-flags-04533");
    refused(|t| t["framebuffers"][0]["height"] = json!(33), "framebuffers[0].attachments[0]", "VUID-VkFramebufferCreateInfo-flags-04534");
    refused(|t| t["framebuffers"][0]["attachments"][2]["mip_level"] = json!(2), "framebuffers[0].attachments[2].mip_level", "VUID-VkImageViewCreateInfo-subresourceRange-01478");
    refused(|t| t["framebuffers"][0]["attachments"][2]["base_array_layer"] = json!(1), "framebuffers[0].attachments[2].base_array_layer", "VUID-VkImageViewCreateInfo-image-06724");
    refused(|t| t["framebuffers"][0]["attachments"][2]["layer_count"] = json!(0), "framebuffers[0].attachments[2].layer_count", "VUID-VkImageViewCreateInfo-subresourceRange-06725");
    refused(|t| t["framebuffers"][0]["attachments"][0] = json!("nope"), "framebuffers[0].attachments[0]", "unknown image `nope`");
    refused(|t| t["framebuffers"][0]["render_pass"] = json!("nope"), "framebuffers[0].render_pass", "unknown render pass `nope`");
}

#[test]
fn pipeline_errors_name_their_vuids() {
    refused(|t| t["pipelines"][0]["subpass"] = json!(2), "pipelines[0].subpass", "VUID-VkGraphicsPipelineCreateInfo-renderPass-06046");
    refused(|t| t["pipelines"][0]["depth_stencil"]["stencil_test_enable"] = json!(true), "pipelines[0].depth_stencil.stencil_test_enable", "the stencil test is not supported yet by the engine");
    refused(|t| t["pipelines"][0]["color_blend"]["attachments"] = json!([{"blend_enable": false}]), "pipelines[0].color_blend.attachments", "VUID-VkGraphicsPipelineCreateInfo-renderPass-07609");
    refused(|t| t["pipelines"][0]["vertex_input"]["attributes"] = json!([{"location": 0, "binding": 0, "format": "R32G32_SFLOAT"}]), "pipelines[0].vertex_input", "VUID-VkGraphicsPipelineCreateInfo-Input-07904");
    refused(|t| t["pipelines"][0]["vertex_input"]["attributes"][1]["location"] = json!(0), "pipelines[0].vertex_input.attributes[1].location", "VUID-VkPipelineVertexInputStateCreateInfo-pVertexAttributeDescriptions-00617");
    refused(|t| t["pipelines"][0]["vertex_input"]["attributes"][1]["binding"] = json!(3), "pipelines[0].vertex_input.attributes[1].binding", "VUID-VkPipelineVertexInputStateCreateInfo-binding-00615");
    refused(|t| t["pipelines"][0]["vertex_input"]["attributes"][1]["format"] = json!("D32_SFLOAT"), "pipelines[0].vertex_input.attributes[1].format", "VUID-VkVertexInputAttributeDescription-format-00623");
    refused(|t| t["pipelines"][0]["vertex_input"]["bindings"][0]["stride"] = json!(4096), "pipelines[0].vertex_input.bindings[0].stride", "VUID-VkVertexInputBindingDescription-stride-00619");
    refused(|t| t["pipelines"][0]["vertex_input"]["bindings"][0]["binding"] = json!(32), "pipelines[0].vertex_input.bindings[0].binding", "VUID-VkVertexInputBindingDescription-binding-00618");
    refused(|t| t["pipelines"][0]["vertex_shader"] = json!("mesh_fs"), "pipelines[0].vertex_shader", "VUID-VkGraphicsPipelineCreateInfo-stage-02096");
    refused(|t| t["pipelines"][0].as_object_mut().unwrap().remove("vertex_shader").map(|_| ()).unwrap(), "pipelines[0]", "VUID-VkGraphicsPipelineCreateInfo-stage-02096");
    refused(|t| t["pipelines"][0]["fragment_shader"] = json!("mesh_vs"), "pipelines[0].fragment_shader", "shader `mesh_vs` is a VERTEX shader");
    refused(|t| t["pipelines"][0]["type"] = json!("COMPUTE"), "pipelines[0].type", "a compute pipeline is a `shaders` entry");
    refused(|t| t["pipelines"][0]["rasterization"]["polygon_mode"] = json!("LINE"), "pipelines[0].rasterization.polygon_mode", "polygon mode `LINE` is not supported yet by the engine");
    refused(|t| t["pipelines"][0]["topology"] = json!("LINE_STRIP"), "pipelines[0].topology", "topology `LINE_STRIP` is not supported yet by the engine");
    refused(|t| t["pipelines"][0]["rendering"] = json!({}), "pipelines[0].rendering", "give `render_pass` and `subpass`, or `rendering`, not both");
    refused(|t| t["pipelines"][0]["color_blend"]["attachments"][0]["src_color_blend_factor"] = json!("SRC1_COLOR"), "pipelines[0].color_blend.attachments[0].src_color_blend_factor", "blend factor `SRC1_COLOR` (dual-source blending) is not supported yet");
    // A shader whose fragment input no vertex output writes: the interface check's VUID.
    refused(
        |t| {
            let fs = "@fragment fn fs(@location(3) c: vec3<f32>) -> @location(0) vec4<f32> { return vec4<f32>(c, 1.0); }";
            t["shaders"][1]["wgsl"] = json!(fs);
        },
        "pipelines[0]",
        "fragment input location 3 is not written",
    );
    // Dynamic rendering: the blend count against the formats, and format aspects.
    let mut t = dynamic();
    t["pipelines"][0]["rendering"]["color_attachment_formats"] = json!(["R8G8B8A8_UNORM"]);
    let e = error(&t);
    assert_eq!(e.path, "pipelines[0].color_blend.attachments", "{e}");
    assert!(e.message.starts_with("VUID-VkGraphicsPipelineCreateInfo-renderPass-06055"), "{e}");
    let mut t = dynamic();
    t["pipelines"][0]["rendering"]["depth_attachment_format"] = json!("R32_SFLOAT");
    let e = error(&t);
    assert_eq!(e.path, "pipelines[0].rendering.depth_attachment_format", "{e}");
    assert!(e.message.starts_with("VUID-VkGraphicsPipelineCreateInfo-renderPass-06587"), "{e}");
    let mut t = dynamic();
    t["pipelines"][0]["rendering"]["color_attachment_formats"][0] = json!("D32_SFLOAT");
    let e = error(&t);
    assert!(e.message.starts_with("VUID-VkGraphicsPipelineCreateInfo-renderPass-06582"), "{e}");
}

#[test]
fn shader_stage_errors() {
    refused(|t| t["shaders"][0]["stage"] = json!("GEOMETRY"), "shaders[0].stage", "shader stage `GEOMETRY` is not supported yet by the engine");
    refused(|t| t["shaders"][0]["stage"] = json!("FRAGMENT"), "shaders[0].stage", "VUID-VkPipelineShaderStageCreateInfo-pName-00707");
    refused(|t| t["shaders"][0]["stage"] = json!("COMPUTE"), "shaders[0].entry_point", "shader `mesh_vs`");
    refused(|t| t["shaders"][0]["stage"] = json!("VERTEXX"), "shaders[0].stage", "unknown shader stage `VERTEXX`");
    // A dispatch naming a graphics shader.
    refused(
        |t| t["command_buffers"][0]["commands"] = json!([{"cmd": "dispatch", "shader": "mesh_vs", "group_count": [1, 1, 1]}]),
        "command_buffers[0].commands[0].shader",
        "shader `mesh_vs` is a VERTEX shader: `dispatch` takes a COMPUTE shader",
    );
}

#[test]
fn command_errors_name_their_vuids() {
    let cmd = |k: usize| format!("command_buffers[0].commands[{k}]");
    refused(|t| t["command_buffers"][0]["commands"][0]["clear_values"] = json!([{"float32": [0, 0, 0, 1]}]), &format!("{}.clear_values", cmd(0)), "VUID-VkRenderPassBeginInfo-clearValueCount-00902");
    refused(|t| t["command_buffers"][0]["commands"][0].as_object_mut().unwrap().remove("clear_values").map(|_| ()).unwrap(), &cmd(0), "VUID-VkRenderPassBeginInfo-clearValueCount-00902");
    refused(|t| t["command_buffers"][0]["commands"][0]["clear_values"][0] = json!({"uint32": [1, 2, 3, 4]}), &format!("{}.clear_values[0]", cmd(0)), "a uint32 clear value does not clear a R8G8B8A8_UNORM attachment");
    refused(|t| t["command_buffers"][0]["commands"][0]["clear_values"][1] = json!({"float32": [1, 0, 0, 0]}), &format!("{}.clear_values[1]", cmd(0)), "a float32 clear value does not clear a D32_SFLOAT attachment");
    refused(|t| t["command_buffers"][0]["commands"][0]["clear_values"][1] = json!({"depth": 2.0}), &format!("{}.clear_values[1].depth", cmd(0)), "depth 2 is not between 0 and 1");
    refused(|t| t["command_buffers"][0]["commands"][0]["clear_values"][0] = json!({"color": {"float32": [0, 0, 0, 1]}, "depth": 1.0}), &format!("{}.clear_values[0]", cmd(0)), "a clear value is one of");
    refused(|t| t["command_buffers"][0]["commands"][0]["render_area"]["extent"] = json!([33, 32]), &format!("{}.render_area.extent", cmd(0)), "VUID-VkRenderPassBeginInfo-pNext-02852");
    refused(|t| t["command_buffers"][0]["commands"][0]["render_area"]["offset"] = json!([0, -1]), &format!("{}.render_area.offset", cmd(0)), "VUID-VkRenderPassBeginInfo-pNext-02851");
    refused(|t| t["command_buffers"][0]["commands"][0]["render_area"]["extent"] = json!([0, 32]), &format!("{}.render_area.extent", cmd(0)), "VUID-VkRenderPassBeginInfo-None-08996");
    refused(
        |t| {
            // A framebuffer made for a render pass of other formats.
            let mut other = t["render_passes"][0].clone();
            other["id"] = json!("other");
            other["attachments"][2]["format"] = json!("R32_SFLOAT");
            t["render_passes"].as_array_mut().unwrap().push(other);
            t["command_buffers"][0]["commands"][0]["render_pass"] = json!("other");
        },
        &format!("{}.framebuffer", cmd(0)),
        "VUID-VkRenderPassBeginInfo-renderPass-00904",
    );
    refused(|t| t["command_buffers"][0]["commands"][1]["offsets"] = json!([4096]), &format!("{}.offsets[0]", cmd(1)), "VUID-vkCmdBindVertexBuffers-pOffsets-00626");
    refused(|t| t["command_buffers"][0]["commands"][1]["first_binding"] = json!(32), &format!("{}.first_binding", cmd(1)), "VUID-vkCmdBindVertexBuffers-firstBinding-00624");
    refused(|t| t["command_buffers"][0]["commands"][1]["offsets"] = json!([0, 0]), &format!("{}.offsets", cmd(1)), "2 offsets for 1 buffers");
    refused(|t| t["command_buffers"][0]["commands"][2]["offset"] = json!(3), &format!("{}.offset", cmd(2)), "VUID-vkCmdBindIndexBuffer-offset-08783");
    refused(|t| t["command_buffers"][0]["commands"][2]["offset"] = json!(4096), &format!("{}.offset", cmd(2)), "VUID-vkCmdBindIndexBuffer-offset-08782");
    refused(|t| t["command_buffers"][0]["commands"][2]["index_type"] = json!("UINT8"), &format!("{}.index_type", cmd(2)), "index type `UINT8` is not supported yet by the engine");
    refused(|t| t["command_buffers"][0]["commands"][3]["viewport"]["width"] = json!(0), &format!("{}.viewport", cmd(3)), "viewport width 0");
    refused(|t| t["command_buffers"][0]["commands"][4]["scissor"]["offset"] = json!([-1, 0]), &format!("{}.scissor.offset", cmd(4)), "VUID-vkCmdSetScissor-x-00595");
    refused(|t| t["command_buffers"][0]["commands"][4]["scissor"] = json!({"offset": [2147483647, 0], "extent": [2, 1]}), &format!("{}.scissor.extent", cmd(4)), "VUID-vkCmdSetScissor-offset-00596");
    refused(|t| t["command_buffers"][0]["commands"][5]["pipeline"] = json!("nope"), &format!("{}.pipeline", cmd(5)), "unknown graphics pipeline `nope`");
    refused(|t| t["command_buffers"][0]["commands"][5].as_object_mut().unwrap().remove("vertex_count").map(|_| ()).unwrap(), &cmd(5), "`draw` needs `vertex_count`");
    refused(|t| t["command_buffers"][0]["commands"][5]["bindings"][0]["binding"] = json!(1), &format!("{}.bindings[0].buffer", cmd(5)), "the shader declares (set 0, binding 1) as a sampled 2D image");
    refused(|t| t["command_buffers"][0]["commands"][5]["bindings"][1]["image"] = json!("colour"), &format!("{}.bindings[1].image", cmd(5)), "image `colour` was created without SAMPLED");
    refused(|t| t["command_buffers"][0]["commands"][5]["index_count"] = json!(3), &format!("{}.index_count", cmd(5)), "field `index_count` does not belong to `draw`");
    refused(|t| t["command_buffers"][0]["commands"][7]["offset"] = json!(2), &format!("{}.offset", cmd(7)), "VUID-vkCmdDrawIndirect-offset-02710");
    refused(|t| t["command_buffers"][0]["commands"][7]["stride"] = json!(8), &format!("{}.stride", cmd(7)), "VUID-vkCmdDrawIndirect-drawCount-00476");
    refused(|t| t["command_buffers"][0]["commands"][7]["draw_count"] = json!(100), &format!("{}.offset", cmd(7)), "VUID-vkCmdDrawIndirect-drawCount-00488");
    refused(|t| t["command_buffers"][0]["commands"][8]["offset"] = json!(240), &format!("{}.offset", cmd(8)), "VUID-vkCmdDrawIndexedIndirect-drawCount-00539");
    refused(|t| t["command_buffers"][0]["commands"][9]["attachments"][0]["aspect_mask"] = json!("COLOR|DEPTH"), &format!("{}.attachments[0].aspect_mask", cmd(9)), "VUID-VkClearAttachment-aspectMask-00019");
    refused(|t| t["command_buffers"][0]["commands"][9]["rects"][0]["layer_count"] = json!(0), &format!("{}.rects[0].layer_count", cmd(9)), "VUID-vkCmdClearAttachments-layerCount-01934");
    refused(|t| t["command_buffers"][0]["commands"][9]["rects"][0]["rect"]["extent"] = json!([16, 0]), &format!("{}.rects[0].rect.extent", cmd(9)), "VUID-vkCmdClearAttachments-rect-02683");
    refused(|t| t["command_buffers"][0]["commands"][9]["rects"] = json!([]), &cmd(9), "VUID-vkCmdClearAttachments-rectCount-arraylength");
    refused(|t| t["command_buffers"][0]["commands"][9]["attachments"][1]["clear_value"] = json!({"float32": [0, 0, 0, 0]}), &format!("{}.attachments[1].clear_value", cmd(9)), "a DEPTH or STENCIL clear takes a depth_stencil value");
    refused(|t| t["command_buffers"][0]["commands"][10]["render_pass"] = json!("main_pass"), &format!("{}.render_pass", cmd(10)), "field `render_pass` does not belong to `next_subpass`");
    // Graphics commands need a GRAPHICS queue.
    refused(|t| t["queues"] = json!([{"id": "q0", "flags": "COMPUTE|TRANSFER"}]), "timeline[0]", "command buffer `cb0` is submitted to queue `q0`, whose flags lack GRAPHICS");
}

#[test]
fn dynamic_rendering_errors_name_their_vuids() {
    let at = "command_buffers[0].commands[0]";
    let rendering = |f: &dyn Fn(&mut Value), path: &str, start: &str| {
        let mut t = dynamic();
        f(&mut t);
        let e = error(&t);
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.starts_with(start), "expected {start:?}, got {e}");
    };
    rendering(&|t| t["command_buffers"][0]["commands"][0]["layer_count"] = json!(0), &format!("{at}.layer_count"), "VUID-VkRenderingInfo-viewMask-06069");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["render_area"]["extent"] = json!([64, 32]), &format!("{at}.color_attachments[0].image"), "VUID-VkRenderingInfo-pNext-06079");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["render_area"]["offset"] = json!([-4, 0]), &format!("{at}.render_area.offset"), "VUID-VkRenderingInfo-pNext-06077");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["color_attachments"][0]["image"] = json!("depth"), &format!("{at}.color_attachments[0].image"), "image `depth` is D32_SFLOAT, which has no COLOR_ATTACHMENT");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["depth_attachment"]["image"] = json!("colour"), &format!("{at}.depth_attachment.image"), "VUID-VkRenderingInfo-pDepthAttachment-06547");
    rendering(
        &|t| t["command_buffers"][0]["commands"][0]["stencil_attachment"] = t["command_buffers"][0]["commands"][0]["depth_attachment"].clone(),
        &format!("{at}.stencil_attachment.image"),
        "VUID-VkRenderingInfo-pStencilAttachment-06548",
    );
    rendering(&|t| t["command_buffers"][0]["commands"][0]["color_attachments"][0]["image_layout"] = json!("TRANSFER_DST_OPTIMAL"), &format!("{at}.color_attachments[0].image_layout"), "VUID-VkRenderingAttachmentInfo-imageView-06135");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["depth_attachment"]["image_layout"] = json!("COLOR_ATTACHMENT_OPTIMAL"), &format!("{at}.depth_attachment.image_layout"), "VUID-VkRenderingInfo-pDepthAttachment-06092");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["color_attachments"][0].as_object_mut().unwrap().remove("clear_value").map(|_| ()).unwrap(), &format!("{at}.color_attachments[0]"), "an attachment whose load_op is CLEAR needs `clear_value`");
    rendering(&|t| t["images"][0]["usage"] = json!("SAMPLED"), &format!("{at}.color_attachments[0].image"), "image `colour` was created without COLOR_ATTACHMENT");
    rendering(&|t| t["command_buffers"][0]["commands"][0]["depth_attachment"]["image"] = json!({"image": "depth", "layer_count": 2}), &format!("{at}.depth_attachment.image.layer_count"), "VUID-VkImageViewCreateInfo-subresourceRange-06725");
}

/// Malformed graphics input (wrong types, huge numbers, hostile nesting) is an error, never a
/// panic.
#[test]
fn garbage_gives_errors() {
    type Change = Box<dyn Fn(&mut Value)>;
    let cases: Vec<Change> = vec![
        Box::new(|t| t["render_passes"] = json!({"id": "x"})),
        Box::new(|t| t["render_passes"][0]["attachments"][0]["samples"] = json!(1e30)),
        Box::new(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["attachment"] = json!(4294967296u64)),
        Box::new(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["attachment"] = json!(-1)),
        Box::new(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"][0]["attachment"] = json!(4294967295u32)),
        Box::new(|t| t["render_passes"][0]["subpasses"][1]["preserve_attachments"] = json!([4294967295u32])),
        Box::new(|t| t["render_passes"][0]["subpasses"][0]["color_attachments"] = json!(vec![json!({"attachment": 0, "layout": "GENERAL"}); 100])),
        Box::new(|t| t["render_passes"][0]["dependencies"][0]["src_subpass"] = json!("INTERNAL")),
        Box::new(|t| t["render_passes"][0]["dependencies"][0]["src_stage_mask"] = json!(7)),
        Box::new(|t| t["framebuffers"][0]["attachments"][0] = json!(5)),
        Box::new(|t| t["framebuffers"][0]["attachments"][2] = json!({"image": "second", "mip_levl": 1})),
        Box::new(|t| t["framebuffers"][0]["width"] = json!(4294967295u32)),
        Box::new(|t| t["framebuffers"][0]["attachments"][2]["layer_count"] = json!(4294967295u32)),
        Box::new(|t| t["framebuffers"][0]["attachments"][2]["base_array_layer"] = json!(4294967295u32)),
        Box::new(|t| t["pipelines"][0]["vertex_input"]["bindings"] = json!(vec![json!({"binding": 1, "stride": 4}); 40])),
        Box::new(|t| t["pipelines"][0]["vertex_input"]["attributes"][0]["offset"] = json!(4294967295u32)),
        Box::new(|t| t["pipelines"][0]["color_blend"]["blend_constants"] = json!([1e39, 0, 0, 0])),
        Box::new(|t| t["pipelines"][0]["color_blend"]["attachments"][0]["color_write_mask"] = json!("RGBA")),
        Box::new(|t| t["pipelines"][0]["subpass"] = json!(4294967295u32)),
        Box::new(|t| t["pipelines"][0]["type"] = json!(null)),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["render_area"] = json!({"offset": [2147483647, 2147483647], "extent": [4294967295u32, 4294967295u32]})),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["clear_values"] = json!([{"color": {"float32": [1e39, 0, 0, 0]}}, null, null])),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["clear_values"] = json!([{"color": {"float32": [0, 0, 0]}}])),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["clear_values"] = json!([{"color": {}}])),
        Box::new(|t| t["command_buffers"][0]["commands"][3]["viewport"] = json!({"x": 1e39, "y": 0, "width": 1, "height": 1})),
        Box::new(|t| t["command_buffers"][0]["commands"][3]["viewport"] = json!({"x": 0, "y": 0, "width": 1, "height": 1, "min_depth": -1})),
        Box::new(|t| t["command_buffers"][0]["commands"][5]["vertex_count"] = json!(-3)),
        Box::new(|t| t["command_buffers"][0]["commands"][6]["vertex_offset"] = json!(4294967295u32)),
        Box::new(|t| t["command_buffers"][0]["commands"][7]["offset"] = json!(18446744073709551612u64)),
        Box::new(|t| t["command_buffers"][0]["commands"][7]["draw_count"] = json!(4294967295u32)),
        Box::new(|t| {
            t["command_buffers"][0]["commands"][8]["stride"] = json!(4294967292u32);
            t["command_buffers"][0]["commands"][8]["draw_count"] = json!(3);
        }),
        Box::new(|t| {
            t["command_buffers"][0]["commands"][8]["offset"] = json!(232);
            t["command_buffers"][0]["commands"][8]["draw_count"] = json!(2);
        }),
        Box::new(|t| t["command_buffers"][0]["commands"][1]["first_binding"] = json!(4294967295u32)),
        Box::new(|t| t["command_buffers"][0]["commands"][1]["offsets"] = json!([18446744073709551615u64])),
        Box::new(|t| t["command_buffers"][0]["commands"][9]["attachments"][0]["aspect_mask"] = json!(["METADATA"])),
        Box::new(|t| t["command_buffers"][0]["commands"][9]["attachments"][0]["aspect_mask"] = json!("")),
        Box::new(|t| t["command_buffers"][0]["commands"][9]["attachments"] = json!("COLOR")),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["color_attachments"] = json!([null])),
        Box::new(|t| t["command_buffers"][0]["commands"][0]["cmd"] = json!("begin_renderpass")),
        Box::new(|t| t["command_buffers"][0]["commands"][4]["scissor"] = json!({"offset": [0, 0]})),
    ];
    for (i, f) in cases.iter().enumerate() {
        let mut t = full();
        f(&mut t);
        let result = std::panic::catch_unwind(|| load_str(&t.to_string(), None).map(|_| ()));
        match result {
            Ok(Err(e)) => assert!(!e.message.is_empty(), "case {i}"),
            Ok(Ok(())) => panic!("case {i} loads:\n{t:#}"),
            Err(_) => panic!("case {i} panics"),
        }
    }
}
