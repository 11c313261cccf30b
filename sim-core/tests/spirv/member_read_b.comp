#version 450
// member_read_b: reads b into Out. Only the block's member a is coherent, so only accesses to a are made
// at the device's coherence point.
// glslangValidator -V --target-env vulkan1.1 member_read_b.comp -o member_read_b.spv
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer X { uint b[512]; coherent uint a[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = b[i];
}
