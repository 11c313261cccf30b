// GLSL twin of tests/corpus/prefix_sum.wgsl: inclusive prefix sum of 256 ints per workgroup.
// Compiled with: glslangValidator -V --target-env vulkan1.1 prefix_sum.comp -o prefix_sum.spv
// The double buffer is one flat array because naga's GLSL front end (used by
// Module::from_glsl on this same file) reverses the dimensions of `int buf[2][256]`.
#version 450
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Data {
    int data[];
};

shared int buf[512];

void main() {
    uint li = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * 256u;
    buf[li] = data[base + li];
    barrier();
    uint src = 0u;
    for (uint offset = 1u; offset < 256u; offset *= 2u) {
        int v = buf[src * 256u + li];
        if (li >= offset) {
            v += buf[src * 256u + li - offset];
        }
        buf[(1u - src) * 256u + li] = v;
        src = 1u - src;
        barrier();
    }
    data[base + li] = buf[src * 256u + li];
}
