#version 450
// One of the entry points of the linked modules: glslangValidator -V --target-env vulkan1.1 -e coherent_main --source-entrypoint main coherent_x.comp -o coherent_x.spv,
// then spirv-link coherent_x.spv plain_x.spv -o linked_coherent_plain.spv (uniform_x.spv for linked_coherent_uniform.spv).
// Reads X, declared coherent, into Out.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) coherent buffer X { uint x[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = x[i];
}
