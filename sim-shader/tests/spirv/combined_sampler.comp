#version 450
// A combined image sampler (`sampler2D` uniform), which naga's GLSL front end refuses and its
// SPIR-V front end cannot sample through. combined_sampler.spv is this, compiled by glslang
// (`glslangValidator -V combined_sampler.comp -o combined_sampler.spv`).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D comb;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;

void main() {
    imageStore(dst, ivec2(gl_GlobalInvocationID.xy), textureLod(comb, vec2(0.5), 0.0));
}
