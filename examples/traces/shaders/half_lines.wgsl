// Writes words 0..8 of each 16-word (64-byte) line.
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[(id.x / 8u) * 16u + id.x % 8u] = 0xABCD0000u + id.x;
}
