// Writes words 1..16 of its 64-byte buffer.
@group(0) @binding(0) var<storage, read_write> dst: array<u32, 16>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) i: u32) {
    if (i >= 1u) { dst[i] = 0xD0D0D000u + i; }
}
