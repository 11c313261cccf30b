// A 3-tap horizontal blur with textureLoad (through a function taking the texture), written
// with textureStore, beside a textureSampleLevel of the same texture at each texel's centre.
// GLSL twin: tests/spirv/image_blur.comp (and its SPIR-V, image_blur.spv).
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var blurred: texture_storage_2d<rgba32float, write>;
@group(0) @binding(3) var sampled: texture_storage_2d<rgba32float, write>;

fn tap(t: texture_2d<f32>, p: vec2<i32>, size: vec2<i32>) -> vec4<f32> {
    return textureLoad(t, clamp(p, vec2<i32>(0), size - 1), 0);
}

@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(src));
    let p = vec2<i32>(id.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    let acc = tap(src, p - vec2<i32>(1, 0), size) + tap(src, p, size) + tap(src, p + vec2<i32>(1, 0), size);
    textureStore(blurred, p, acc / 3.0);
    let uv = (vec2<f32>(p) + 0.5) / vec2<f32>(size);
    textureStore(sampled, p, textureSampleLevel(src, smp, uv, f32(p.x) * 0.25));
}
