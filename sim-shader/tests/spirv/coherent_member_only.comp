#version 450
// A block with one coherent member (glslangValidator -V --target-env vulkan1.1 coherent_member_only.comp -o coherent_member_only.spv).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer X { coherent uint a[64]; uint b[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() { uint i = gl_GlobalInvocationID.x; o[i] = b[i]; }
