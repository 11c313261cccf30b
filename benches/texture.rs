//! Sampled texel reads per host second through the texture cache (T$) against storage-buffer
//! reads through the L1, on the same footprint, side by side in one criterion group.
//!
//! Each workload uploads 256 KiB of f32s through a host-visible buffer, copies them into the
//! read-only source (a 256x256 R32_SFLOAT image, or a 256 KiB device-local storage buffer),
//! then runs `DISPATCHES` dispatches of 32x32 workgroups of 8x8 invocations; every invocation
//! reads its texel (or word) and writes one f32 to an output storage buffer of its own
//! dispatch. Three shaders:
//!
//! - `tcache_load`: `textureLoad` of a sampled image (the T$ path, one texel a lane);
//! - `tcache_sample_linear`: `textureSampleLevel` with a LINEAR sampler at the corner of four
//!   texels (the T$ path, four taps a lane, filtered);
//! - `l1_storage`: `src[i]` from a storage buffer (the L1 path, one word a lane).
//!
//! Throughput is in elements = lanes' reads (`DISPATCHES` x 65,536; the linear sample's taps
//! are four times that). What is timed is the simulated run alone (as `simulated_run` in
//! `benches/engine.rs`, profile `seed-l2`, seed 0); the upload and the copy are the same size
//! in all three and are timed too (the `setup_only` rows: the same workload with no dispatch).
//!
//! `cargo bench -p gpusim --bench texture`

use std::collections::HashSet;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use sim_core::api::{Program, Workload};
use sim_core::engine::stream::Stream;
use sim_core::engine::{reference, run, run_workload};
use sim_core::profile::Profile;

/// The image's side in texels.
const SIDE: u32 = 256;
/// Dispatches reading the source after the one upload.
const DISPATCHES: u32 = 8;

#[derive(Clone, Copy, PartialEq)]
enum Path {
    TextureLoad,
    TextureSampleLinear,
    StorageBuffer,
    /// Upload and copy into the image, no dispatch.
    SetupImage,
    /// Upload and copy into the buffer, no dispatch.
    SetupBuffer,
}

const LOAD_WGSL: &str = "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    out[id.y * SIDEu + id.x] = textureLoad(src, vec2<i32>(id.xy), 0).x;
}
";

const SAMPLE_WGSL: &str = "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // The corner shared by texels (x, y) and (x + 1, y + 1): four taps, each weighted 1/4.
    let uv = (vec2<f32>(id.xy) + vec2<f32>(1.0)) / SIDE.0;
    out[id.y * SIDEu + id.x] = textureSampleLevel(src, smp, uv, 0.0).x;
}
";

const STORAGE_WGSL: &str = "@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.y * SIDEu + id.x;
    out[i] = src[i];
}
";

/// The trace of one workload, as JSON.
fn trace(path: Path) -> Value {
    let texels = (SIDE * SIDE) as u64;
    let bytes = texels * 4;
    let image = matches!(path, Path::TextureLoad | Path::TextureSampleLinear | Path::SetupImage);
    let dispatches = if matches!(path, Path::SetupImage | Path::SetupBuffer) { 0 } else { DISPATCHES };
    // Small, exact floats (multiples of 1/64 below 64), so filtering is exact enough to compare.
    let data: Vec<f32> = (0..texels).map(|i| ((i.wrapping_mul(2_654_435_761) >> 7) % 4096) as f32 / 64.0).collect();
    let mut buffers = vec![json!({"id": "upload", "memory": "upload", "offset": 0, "size": bytes, "usage": "TRANSFER_SRC"})];
    if !image {
        buffers.push(json!({"id": "src", "memory": "vram", "offset": 0, "size": bytes, "usage": "STORAGE_BUFFER|TRANSFER_DST"}));
    }
    for d in 0..dispatches as u64 {
        buffers.push(json!({"id": format!("out{d}"), "memory": "vram", "offset": (1 + d) * bytes, "size": bytes, "usage": "STORAGE_BUFFER"}));
    }
    let mut commands = Vec::new();
    if image {
        let sub = json!({"aspect_mask": "COLOR", "mip_level": 0, "base_array_layer": 0, "layer_count": 1});
        commands.push(json!({"cmd": "pipeline_barrier", "image_memory_barriers": [{
            "src_stage_mask": "NONE", "src_access_mask": "NONE", "dst_stage_mask": "COPY", "dst_access_mask": "TRANSFER_WRITE",
            "old_layout": "UNDEFINED", "new_layout": "TRANSFER_DST_OPTIMAL", "image": "picture"}]}));
        commands.push(json!({"cmd": "copy_buffer_to_image", "src_buffer": "upload", "dst_image": "picture", "dst_image_layout": "TRANSFER_DST_OPTIMAL",
            "regions": [{"buffer_offset": 0, "buffer_row_length": 0, "buffer_image_height": 0, "image_subresource": sub,
                         "image_offset": [0, 0, 0], "image_extent": [SIDE, SIDE, 1]}]}));
        commands.push(json!({"cmd": "pipeline_barrier", "image_memory_barriers": [{
            "src_stage_mask": "COPY", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_SAMPLED_READ",
            "old_layout": "TRANSFER_DST_OPTIMAL", "new_layout": "SHADER_READ_ONLY_OPTIMAL", "image": "picture"}]}));
    } else {
        commands.push(json!({"cmd": "copy_buffer", "src_buffer": "upload", "dst_buffer": "src", "regions": [{"src_offset": 0, "dst_offset": 0, "size": bytes}]}));
        commands.push(json!({"cmd": "pipeline_barrier", "memory_barriers": [{
            "src_stage_mask": "COPY", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_STORAGE_READ"}]}));
    }
    for d in 0..dispatches {
        let out = format!("out{d}");
        let (shader, bindings) = match path {
            Path::TextureLoad => ("load", json!([{"set": 0, "binding": 0, "image": "picture", "layout": "SHADER_READ_ONLY_OPTIMAL"}, {"set": 0, "binding": 1, "buffer": out}])),
            Path::TextureSampleLinear => (
                "sample",
                json!([{"set": 0, "binding": 0, "image": "picture", "layout": "SHADER_READ_ONLY_OPTIMAL"}, {"set": 0, "binding": 1, "sampler": "linear"}, {"set": 0, "binding": 2, "buffer": out}]),
            ),
            Path::StorageBuffer => ("storage", json!([{"set": 0, "binding": 0, "buffer": "src"}, {"set": 0, "binding": 1, "buffer": out}])),
            Path::SetupImage | Path::SetupBuffer => unreachable!(),
        };
        commands.push(json!({"cmd": "dispatch", "shader": shader, "group_count": [SIDE / 8, SIDE / 8, 1], "bindings": bindings}));
    }
    let wgsl = |s: &str| s.replace("SIDE", &SIDE.to_string());
    let mut t = json!({
        "gpusim_trace": 1,
        "name": "texture-bench",
        "memory": [
            {"id": "upload", "size": bytes, "properties": "HOST_VISIBLE|HOST_COHERENT"},
            {"id": "vram", "size": (1 + DISPATCHES as u64) * bytes, "properties": "DEVICE_LOCAL"},
            {"id": "imagemem", "size": 2 * bytes, "properties": "DEVICE_LOCAL"}
        ],
        "buffers": buffers,
        "samplers": [{"id": "linear", "mag_filter": "LINEAR", "min_filter": "LINEAR", "address_mode_u": "CLAMP_TO_EDGE", "address_mode_v": "CLAMP_TO_EDGE"}],
        "shaders": [
            {"id": "load", "stage": "COMPUTE", "entry_point": "main", "wgsl": wgsl(LOAD_WGSL)},
            {"id": "sample", "stage": "COMPUTE", "entry_point": "main", "wgsl": wgsl(SAMPLE_WGSL)},
            {"id": "storage", "stage": "COMPUTE", "entry_point": "main", "wgsl": wgsl(STORAGE_WGSL)}
        ],
        "command_buffers": [{"id": "cb0", "commands": commands}],
        "fences": ["f0"],
        "timeline": [
            {"op": "host_write", "memory": "upload", "offset": 0, "data_f32": data},
            {"op": "queue_submit", "queue": "q0", "command_buffers": ["cb0"], "fence": "f0"},
            {"op": "wait_for_fences", "fences": ["f0"]}
        ]
    });
    if image {
        t["images"] = json!([{"id": "picture", "memory": "imagemem", "offset": 0, "format": "R32_SFLOAT", "extent": [SIDE, SIDE, 1], "usage": "TRANSFER_DST|SAMPLED"}]);
    }
    t
}

fn workload(path: Path) -> Workload {
    sim_core::trace::load_str(&trace(path).to_string(), None).unwrap_or_else(|e| panic!("texture bench trace: {e}")).workload
}

fn texture(c: &mut Criterion) {
    let profile = Profile::builtin("seed-l2").expect("built-in profile");
    let reads = DISPATCHES as u64 * (SIDE * SIDE) as u64;
    let mut g = c.benchmark_group("texture");
    g.sample_size(10);
    for (name, path) in [
        ("tcache_load", Path::TextureLoad),
        ("tcache_sample_linear", Path::TextureSampleLinear),
        ("l1_storage", Path::StorageBuffer),
        ("setup_only_image", Path::SetupImage),
        ("setup_only_buffer", Path::SetupBuffer),
    ] {
        let w = workload(path);
        // One whole run first: the simulation must match its reference, so what is timed is a
        // real run of the workload.
        let probe = run_workload(&w, &profile, 0).expect("workload runs");
        assert!(!probe.corrupted(), "texture/{name} must match its reference");
        eprintln!("texture/{name}: {} lane-ops, {} instructions, {} simulated cycles", probe.lane_ops, probe.instructions, probe.cycles);
        let prog = Program::new(&w).expect("valid workload");
        let stream = Stream::lower(&prog).expect("stream");
        let truth = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &HashSet::new()).expect("reference runs").truth;
        // Elements: the lanes' reads (the setup rows count the same, for a like-for-like time).
        g.throughput(Throughput::Elements(reads));
        g.bench_function(name, |b| b.iter(|| black_box(run::Sim::new(&prog, &stream, &profile, Some(&truth), 0).expect("sim").run().expect("run").cycles)));
    }
    g.finish();
}

criterion_group!(benches, texture);
criterion_main!(benches);
