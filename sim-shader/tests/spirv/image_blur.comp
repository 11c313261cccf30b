#version 450
// GLSL twin of tests/corpus/image_blur.wgsl; image_blur.spv is this, compiled by glslang
// (`glslangValidator -V image_blur.comp -o image_blur.spv`).
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform texture2D src;
layout(set = 0, binding = 1) uniform sampler smp;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D blurred;
layout(set = 0, binding = 3, rgba32f) uniform writeonly image2D sampled;

vec4 tap(ivec2 p, ivec2 size) {
    return texelFetch(sampler2D(src, smp), clamp(p, ivec2(0), size - 1), 0);
}

void main() {
    ivec2 size = textureSize(sampler2D(src, smp), 0);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    vec4 acc = tap(p - ivec2(1, 0), size) + tap(p, size) + tap(p + ivec2(1, 0), size);
    imageStore(blurred, p, acc / 3.0);
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    imageStore(sampled, p, textureLod(sampler2D(src, smp), uv, float(p.x) * 0.25));
}
