// dst[i] = u.v[i % 16].x, read through the uniform cache
struct U { v: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    dst[id.x] = u.v[l % 16u].x;
}
