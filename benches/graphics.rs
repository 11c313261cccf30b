//! Fragment shading against compute shading on the same interpreter, side by side in one
//! criterion group: the same arithmetic (`ITERATIONS` multiply-adds an invocation) run for
//! 65,536 invocations, as a compute dispatch on flat memory (`run_dispatch_flat`, 256
//! workgroups of 256 invocations) and as the fragments of a full-screen quad of 256x256 pixels
//! through the functional draw (`draw_flat`: vertex fetch and shading, clipping, setup,
//! scanning into quads, interpolation, the fragment waves, and the colour writes). Throughput
//! is in invocations, the same work per invocation on both, so the ratio of the two rows is the
//! ratio of their lane-operations per second (the quad's fragments have no helpers).
//!
//! The `frame_512` group simulates a whole frame from a trace: 2,048 depth-tested triangles at
//! 512x512 whose vertices a dispatch computes (`benches/data/frame-512.json`, written by
//! `scripts/generate-graphics-examples`), its reference run and its simulated run on
//! nvidia-like side by side. The same trace runs on lavapipe with `gpusim replay`, for its time
//! beside these (BENCHMARKS.md).
//!
//! `cargo bench -p gpusim --bench graphics`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_core::engine::draw::{ColorTarget, DrawCounts, DrawState, draw_flat};
use sim_core::fixed_function as ff;
use sim_rop::Format;
use sim_rop::fragment::BlendState;
use sim_shader::{ComputePipeline, FlatBinding, FlatImages, GraphicsShader, Module, run_dispatch_flat};

/// Framebuffer side; the compute dispatch runs as many invocations.
const SIDE: u32 = 256;
/// Multiply-adds an invocation.
const ITERATIONS: u32 = 32;

fn shaders() -> String {
    format!(
        "
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

fn work(seed: f32) -> f32 {{
    var x = seed;
    for (var i = 0u; i < {ITERATIONS}u; i = i + 1u) {{
        x = x * 0.999 + 0.25;
    }}
    return x;
}}

@compute @workgroup_size(256)
fn cs(@builtin(global_invocation_id) id: vec3<u32>) {{
    out[id.x] = work(f32(id.x));
}}

struct V {{ @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }}

@vertex
fn vs(@location(0) p: vec2<f32>) -> V {{
    var v: V;
    v.p = vec4<f32>(p, 0.5, 1.0);
    v.uv = p;
    return v;
}}

@fragment
fn fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {{
    return vec4<f32>(work(uv.x), uv.y, 0.0, 1.0);
}}
"
    )
}

fn bench(c: &mut Criterion) {
    let src = shaders();
    let module = Module::from_wgsl(&src, "graphics.wgsl").expect("compiles");
    let cs = ComputePipeline::new(&module, "cs").expect("compute entry point");
    let (vs, fs) = (GraphicsShader::new(&module, "vs").expect("vertex"), GraphicsShader::new(&module, "fs").expect("fragment"));
    let invocations = u64::from(SIDE * SIDE);

    let mut group = c.benchmark_group("graphics");
    group.sample_size(10);
    group.throughput(Throughput::Elements(invocations));

    let mut out = vec![FlatBinding::new(0, 0, vec![0; 4 * invocations as usize])];
    group.bench_function("compute_invocations", |b| b.iter(|| black_box(run_dispatch_flat(&cs, [SIDE * SIDE / 256, 1, 1], &mut out, &[], 32).expect("runs"))));

    let corners: Vec<u8> = [(-1.0f32, -1.0f32), (-1.0, 1.0), (1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].iter().flat_map(|&(x, y)| [x, y]).flat_map(f32::to_le_bytes).collect();
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &corners }];
    let inputs = ff::VertexInputState::new(
        vec![ff::VertexBinding { binding: 0, stride: 8, input_rate: ff::VertexInputRate::Vertex }],
        vec![ff::VertexAttribute { location: 0, binding: 0, format: Format::R32G32_SFLOAT, offset: 0 }],
    )
    .expect("input state");
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
        push_constants: &[],
        blend_constants: [0.0; 4],
        subgroup_size: 32,
    };
    let counts = DrawCounts { count: 6, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
    let mut texels = vec![0u8; 4 * invocations as usize];
    let mut bindings = [FlatBinding::new(0, 0, vec![0; 4])];
    let stats = {
        let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: &mut texels, blend: BlendState::REPLACE }];
        draw_flat(&state, counts, &mut targets, None, &mut bindings, &mut FlatImages::default()).expect("draws")
    };
    assert_eq!(stats.fragments, invocations, "every pixel once");
    group.bench_function("fragment_invocations", |b| {
        b.iter(|| {
            let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: &mut texels, blend: BlendState::REPLACE }];
            black_box(draw_flat(&state, counts, &mut targets, None, &mut bindings, &mut FlatImages::default()).expect("draws"))
        })
    });
    group.finish();
}

fn frame(c: &mut Criterion) {
    use std::collections::HashSet;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/frame-512.json");
    let text = std::fs::read_to_string(&path).expect("the frame's trace");
    let w = sim_core::trace::load_str(&text, path.parent()).expect("the frame's trace loads").workload;
    let profile = sim_core::profile::Profile::builtin("nvidia-like").expect("built-in profile");
    let probe = sim_core::engine::run_workload(&w, &profile, 0).expect("the frame runs");
    assert!(!probe.corrupted(), "the frame is correctly synchronized");
    let prog = sim_core::api::Program::new(&w).expect("valid");
    let stream = sim_core::engine::stream::Stream::lower(&prog).expect("stream");
    let subgroup = profile.machine.cu.subgroup_size;
    let truth = sim_core::engine::reference::reference_run(&prog, &stream, subgroup, &HashSet::new()).expect("reference").truth;
    let mut group = c.benchmark_group("frame_512");
    group.sample_size(10);
    group.bench_function("reference_run", |b| b.iter(|| black_box(sim_core::engine::reference::reference_run(&prog, &stream, subgroup, &HashSet::new()).expect("reference").instructions)));
    group.bench_function("simulated_run", |b| b.iter(|| black_box(sim_core::engine::run::Sim::new(&prog, &stream, &profile, Some(&truth), 0).expect("sim").run().expect("run").cycles)));
    group.finish();
}

criterion_group!(benches, bench, frame);
criterion_main!(benches);
