// dst[2] = 77: bytes 8..12 of the buffer's first 64-byte line, nothing else.
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[2] = 77u;
}
