//! Built-in workloads with real memory traffic: what benchmarks, memory measurements and the
//! demo run. Each is correctly synchronized, so on every profile it must match the reference.

use crate::api::error::WorkloadError;
use crate::api::workload::*;
use crate::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

/// Host-visible device-local memory (a BAR mapping): the host fills inputs directly.
const BAR: MemoryProperties = MemoryProperties { device_local: true, host_visible: true, host_coherent: true, host_cached: false };

/// `dst[i] = src[i] + 1`: the smallest kernel that reads one buffer and writes another, the
/// consumer in most missing-barrier stories.
pub const ADD_ONE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] + 1u;
}
"#;

/// `dst[i] = 1000 + i`: a dispatch that writes values of its own, for scenarios whose reader
/// must see them.
pub const WRITE_VALUE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = 1000u + id.x;
}
"#;

/// The tiled matrix multiply: 16x16 tiles staged through workgroup memory with barriers.
pub const MATMUL_WGSL: &str = r#"
struct Dims { n: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = dims.n;
    var acc = 0.0;
    for (var t = 0u; t < n / 16u; t++) {
        tile_a[lid.y][lid.x] = a[gid.y * n + t * 16u + lid.x];
        tile_b[lid.y][lid.x] = b[(t * 16u + lid.y) * n + gid.x];
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            acc = fma(tile_a[lid.y][k], tile_b[k][lid.x], acc);
        }
        workgroupBarrier();
    }
    c[gid.y * n + gid.x] = acc;
}
"#;

/// A streaming kernel: `c[i] = a[i] * 3 + b[i]`, one word per invocation.
pub const STREAM_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 65535u * 64u;
    if (i < arrayLength(&c)) {
        c[i] = a[i] * 3u + b[i];
    }
}
"#;

/// A gather: each invocation adds up four words of a table at hashed (uniformly spread)
/// indices, so that a subgroup's loads land far apart: the access pattern of hash tables and
/// sparse data, and the one that misses every cache.
pub const GATHER_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> table: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&table);
    var h = id.x;
    var sum = 0u;
    for (var k = 0u; k < 4u; k++) {
        h = (h ^ (h >> 15u)) * 2246822519u + 374761393u;
        sum = sum + table[h % n];
    }
    sums[id.x] = sum;
}
"#;

fn pattern(words: u64, mul: u32) -> Vec<u8> {
    (0..words as u32).flat_map(|i| i.wrapping_mul(mul).wrapping_add(1).to_le_bytes()).collect()
}

/// `C = A * B` for `n x n` f32 matrices (`n` a multiple of 16), inputs written by the host,
/// result read back by the host after a fence.
pub fn matmul(n: u32) -> Result<Workload, WorkloadError> {
    let mut w = Workload::new(format!("matmul-{n}"));
    let bytes = n as u64 * n as u64 * 4;
    let mem = w.memory("matrices", bytes * 3 + 256, BAR);
    let a = w.buffer("A", mem, 0, bytes);
    let b = w.buffer("B", mem, bytes, bytes);
    let c = w.buffer("C", mem, 2 * bytes, bytes);
    let dims = w.device_buffer("dims", 256);
    let p = w.wgsl_pipeline("matmul", MATMUL_WGSL, "main")?;
    let f: Vec<u8> = (0..n * n).flat_map(|i| ((i % 17) as f32 * 0.25).to_le_bytes()).collect();
    w.host(HostOp::HostWrite { memory: mem, offset: 0, data: f.clone() });
    w.host(HostOp::HostWrite { memory: mem, offset: bytes, data: f });
    let bind = |set, binding, buffer| BufferBinding { set, binding, buffer, offset: 0, range: None };
    let cb = w.command_buffer(
        "cb0",
        vec![
            Command::UpdateBuffer { dst: dims, offset: 0, data: n.to_le_bytes().to_vec() },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::UNIFORM_READ)),
            Command::Dispatch {
                pipeline: p,
                group_count: [n / 16, n / 16, 1],
                base_group: [0; 3],
                bindings: vec![bind(0, 0, a), bind(0, 1, b), bind(0, 2, c), bind(0, 3, dims)],
                push_constants: Vec::new(),
                images: Vec::new(),
            },
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)),
        ],
    );
    let fence = w.fence("f0");
    w.submit(0, vec![cb], Some(fence));
    w.host(HostOp::WaitForFences(vec![fence]));
    w.host(HostOp::HostRead { memory: mem, offset: 2 * bytes, size: bytes.min(4096), label: "C".into(), expect: None });
    Ok(w)
}

/// `C[i] = A[i] * 3 + B[i]` over `bytes` per buffer (a multiple of 256): a streaming kernel
/// touching `3 * bytes` of memory.
pub fn stream(bytes: u64) -> Result<Workload, WorkloadError> {
    let mut w = Workload::new(format!("stream-{}KiB", bytes / 1024));
    let words = bytes / 4;
    let mem = w.memory("inputs", 2 * bytes, BAR);
    let a = w.buffer("A", mem, 0, bytes);
    let b = w.buffer("B", mem, bytes, bytes);
    let c = w.device_buffer("C", bytes);
    let p = w.wgsl_pipeline("stream", STREAM_WGSL, "main")?;
    w.host(HostOp::HostWrite { memory: mem, offset: 0, data: pattern(words, 2654435761) });
    w.host(HostOp::HostWrite { memory: mem, offset: bytes, data: pattern(words, 40503) });
    let groups = words.div_ceil(64);
    let (gx, gy) = if groups <= 65535 { (groups as u32, 1) } else { (65535, groups.div_ceil(65535) as u32) };
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    let cb = w.command_buffer(
        "cb0",
        vec![Command::Dispatch { pipeline: p, group_count: [gx, gy, 1], base_group: [0; 3], bindings: vec![bind(0, a), bind(1, b), bind(2, c)], push_constants: Vec::new(), images: Vec::new() }],
    );
    let fence = w.fence("f0");
    w.submit(0, vec![cb], Some(fence));
    w.host(HostOp::WaitForFences(vec![fence]));
    Ok(w)
}

/// [`GATHER_WGSL`] over a table of `table_bytes` (a multiple of 4) that a fill writes, with
/// `invocations` (a multiple of 64) invocations: `4 * invocations` loads spread over the table.
pub fn gather(table_bytes: u64, invocations: u32) -> Result<Workload, WorkloadError> {
    let mut w = Workload::new(format!("gather-{}KiB", table_bytes / 1024));
    let table = w.device_buffer("table", table_bytes);
    let sums = w.device_buffer("sums", invocations as u64 * 4);
    let p = w.wgsl_pipeline("gather", GATHER_WGSL, "main")?;
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    let cb = w.command_buffer(
        "cb0",
        vec![
            Command::FillBuffer { dst: table, offset: 0, size: None, data: 0x0102_0304 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)),
            Command::Dispatch { pipeline: p, group_count: [invocations / 64, 1, 1], base_group: [0; 3], bindings: vec![bind(0, table), bind(1, sums)], push_constants: Vec::new(), images: Vec::new() },
        ],
    );
    let fence = w.fence("f0");
    w.submit(0, vec![cb], Some(fence));
    w.host(HostOp::WaitForFences(vec![fence]));
    Ok(w)
}
