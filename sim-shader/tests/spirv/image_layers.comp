#version 450
// Sampling an arrayed texture at float layers -0.5, 0.0, 0.5, ... 3.0 (one per invocation):
// Vulkan rounds a layer to nearest even and clamps it. image_layers.spv is this, compiled by
// glslang (`glslangValidator -V image_layers.comp -o image_layers.spv`).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform texture2DArray t;
layout(set = 0, binding = 1) uniform sampler s;
layout(set = 0, binding = 2, std430) buffer Out { vec4 o[]; };

void main() {
    uint i = gl_LocalInvocationID.x;
    float layer = float(i) * 0.5 - 0.5;
    o[i] = textureLod(sampler2DArray(t, s), vec3(0.25, 0.75, layer), 1.5);
}
