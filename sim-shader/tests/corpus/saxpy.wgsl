// y = alpha * x + y in f32, alpha and n from a uniform block.
struct Params {
    alpha: f32,
    n: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i < params.n {
        y[i] = params.alpha * x[i] + y[i];
    }
}
