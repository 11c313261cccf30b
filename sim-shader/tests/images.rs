//! Images and samplers: reflection of each binding kind, the image request protocol driven by
//! hand, the flat driver with a small nearest-texel handler, image queries, and what is refused
//! at load. WGSL shaders with GLSL and SPIR-V twins where naga's front ends accept them.

use sim_shader::*;

fn dir(sub: &str) -> String {
    format!("{}/tests/{sub}", env!("CARGO_MANIFEST_DIR"))
}

fn wgsl(src: &str) -> ComputePipeline {
    let m = Module::from_wgsl(src, "test.wgsl").unwrap_or_else(|e| panic!("{e}"));
    ComputePipeline::new(&m, "main").unwrap()
}

fn glsl(src: &str) -> ComputePipeline {
    let m = Module::from_glsl(src, "test.comp").unwrap_or_else(|e| panic!("{e}"));
    ComputePipeline::new(&m, "main").unwrap()
}

fn spirv(file: &str) -> ComputePipeline {
    let bytes = std::fs::read(dir(&format!("spirv/{file}"))).unwrap();
    let m = Module::from_spirv(&bytes, file).unwrap_or_else(|e| panic!("{e}"));
    ComputePipeline::new(&m, "main").unwrap()
}

fn cfg<'a>(sizes: &'a [u64], shapes: &'a [ImageShape], subgroup_size: u32) -> WorkgroupConfig<'a> {
    WorkgroupConfig {
        workgroup_id: [0; 3],
        num_workgroups: [1, 1, 1],
        subgroup_size,
        push_constants: &[],
        binding_sizes: sizes,
        image_shapes: shapes,
        max_instructions: DEFAULT_MAX_INSTRUCTIONS,
    }
}

fn shape(extent: [u32; 3], levels: u32, layers: u32) -> ImageShape {
    ImageShape { extent, levels, layers }
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn kinds(p: &ComputePipeline) -> Vec<(u32, u32, BindingKind, bool)> {
    p.bindings().iter().map(|b| (b.group, b.binding, b.kind, b.written)).collect()
}

// ----- reflection ---------------------------------------------------------------------------

#[test]
fn reflection_of_each_binding_kind() {
    let p = wgsl(
        "@group(0) @binding(0) var t1: texture_1d<f32>;
@group(0) @binding(1) var t2: texture_2d<u32>;
@group(0) @binding(2) var t2a: texture_2d_array<i32>;
@group(0) @binding(3) var t3: texture_3d<f32>;
@group(0) @binding(4) var smp: sampler;
@group(1) @binding(0) var w: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var rw: texture_storage_2d_array<r32uint, read_write>;
@group(1) @binding(2) var r: texture_storage_1d<rgba32float, read>;
@group(1) @binding(3) var rw_read_only: texture_storage_3d<rgba16float, read_write>;
@group(1) @binding(4) var bgra: texture_storage_2d<bgra8unorm, write>;
@group(2) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    var acc = textureLoad(t1, 0, 0) + textureSampleLevel(t3, smp, vec3<f32>(0.5), 0.0);
    acc += vec4<f32>(textureLoad(t2, vec2<i32>(0), 0)) + vec4<f32>(textureLoad(t2a, vec2<i32>(0), 1, 0));
    acc += vec4<f32>(textureLoad(rw, vec2<i32>(0), 0)) + textureLoad(r, 0) + textureLoad(rw_read_only, vec3<i32>(0));
    textureStore(w, vec2<i32>(0), acc);
    textureStore(rw, vec2<i32>(0), 0, vec4<u32>(1u));
    textureStore(bgra, vec2<i32>(0), acc);
    out[0] = acc;
}",
    );
    use BindingKind::*;
    use ImageDim::*;
    let want = vec![
        (0, 0, SampledImage { dim: D1, arrayed: false, sample: SampleKind::Float }, false),
        (0, 1, SampledImage { dim: D2, arrayed: false, sample: SampleKind::Uint }, false),
        (0, 2, SampledImage { dim: D2, arrayed: true, sample: SampleKind::Sint }, false),
        (0, 3, SampledImage { dim: D3, arrayed: false, sample: SampleKind::Float }, false),
        (0, 4, Sampler, false),
        (1, 0, StorageImage { dim: D2, arrayed: false, format: StorageFormat::Rgba8Unorm, access: StorageAccess::Write }, true),
        (1, 1, StorageImage { dim: D2, arrayed: true, format: StorageFormat::R32Uint, access: StorageAccess::ReadWrite }, true),
        (1, 2, StorageImage { dim: D1, arrayed: false, format: StorageFormat::Rgba32Float, access: StorageAccess::Read }, false),
        // Writable, never written: only read.
        (1, 3, StorageImage { dim: D3, arrayed: false, format: StorageFormat::Rgba16Float, access: StorageAccess::ReadWrite }, false),
        (1, 4, StorageImage { dim: D2, arrayed: false, format: StorageFormat::Bgra8Unorm, access: StorageAccess::Write }, true),
        (2, 0, StorageBuffer { read_only: false }, true),
    ];
    assert_eq!(kinds(&p), want);
    for b in &p.bindings()[..10] {
        assert_eq!((b.static_size, b.runtime_stride, b.atomic_only, b.coherent), (0, None, false, false), "{b:?}");
        assert!(b.coherent_ranges.is_empty());
    }
    let names: Vec<_> = p.bindings().iter().map(|b| b.name.clone().unwrap()).collect();
    assert_eq!(names, ["t1", "t2", "t2a", "t3", "smp", "w", "rw", "r", "rw_read_only", "bgra", "out"]);
    let formats = [
        (StorageFormat::Rgba8Unorm, "R8G8B8A8_UNORM"),
        (StorageFormat::Rgba8Uint, "R8G8B8A8_UINT"),
        (StorageFormat::Rgba8Sint, "R8G8B8A8_SINT"),
        (StorageFormat::R32Uint, "R32_UINT"),
        (StorageFormat::R32Sint, "R32_SINT"),
        (StorageFormat::R32Float, "R32_SFLOAT"),
        (StorageFormat::Rg32Float, "R32G32_SFLOAT"),
        (StorageFormat::Rgba16Float, "R16G16B16A16_SFLOAT"),
        (StorageFormat::Rgba32Float, "R32G32B32A32_SFLOAT"),
        (StorageFormat::Rgba32Uint, "R32G32B32A32_UINT"),
        (StorageFormat::Rgba32Sint, "R32G32B32A32_SINT"),
        (StorageFormat::Bgra8Unorm, "B8G8R8A8_UNORM"),
    ];
    for (format, name) in formats {
        assert_eq!(format.vk_name(), name);
    }
}

/// Every supported storage format is accepted, with the kind of words the shader gives it.
#[test]
fn every_supported_storage_format_loads() {
    for (wgsl_name, format, texel) in [
        ("rgba8unorm", StorageFormat::Rgba8Unorm, "vec4<f32>"),
        ("rgba8uint", StorageFormat::Rgba8Uint, "vec4<u32>"),
        ("rgba8sint", StorageFormat::Rgba8Sint, "vec4<i32>"),
        ("r32uint", StorageFormat::R32Uint, "vec4<u32>"),
        ("r32sint", StorageFormat::R32Sint, "vec4<i32>"),
        ("r32float", StorageFormat::R32Float, "vec4<f32>"),
        ("rg32float", StorageFormat::Rg32Float, "vec4<f32>"),
        ("rgba16float", StorageFormat::Rgba16Float, "vec4<f32>"),
        ("rgba32float", StorageFormat::Rgba32Float, "vec4<f32>"),
        ("rgba32uint", StorageFormat::Rgba32Uint, "vec4<u32>"),
        ("rgba32sint", StorageFormat::Rgba32Sint, "vec4<i32>"),
        ("bgra8unorm", StorageFormat::Bgra8Unorm, "vec4<f32>"),
    ] {
        let p = wgsl(&format!(
            "@group(0) @binding(0) var img: texture_storage_2d<{wgsl_name}, write>;\n@compute @workgroup_size(1) fn main() {{ textureStore(img, vec2<i32>(0), {texel}(1)); }}"
        ));
        assert_eq!(p.bindings()[0].kind, BindingKind::StorageImage { dim: ImageDim::D2, arrayed: false, format, access: StorageAccess::Write });
    }
}

#[test]
fn glsl_reflection_twin() {
    let p = glsl(
        "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform texture2D t;
layout(set = 0, binding = 1) uniform sampler s;
layout(set = 0, binding = 2) uniform utexture2DArray tu;
layout(set = 0, binding = 3) uniform itexture3D ti;
layout(set = 0, binding = 4) uniform texture1D t1;
layout(set = 1, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 1, binding = 1, rgba32f) uniform writeonly image2D dst;
layout(set = 1, binding = 2, r32ui) uniform uimage2DArray counts;
layout(set = 1, binding = 3, r32i) uniform iimage1D loaded_only;
void main() {
    vec4 a = texelFetch(sampler2D(t, s), ivec2(0), 0) + textureLod(sampler2D(t, s), vec2(0.5), 0.0);
    uvec4 u = texelFetch(usampler2DArray(tu, s), ivec3(0), 0) + imageLoad(counts, ivec3(1));
    ivec4 i = texelFetch(isampler3D(ti, s), ivec3(0), 0) + imageLoad(loaded_only, 2);
    a += texelFetch(sampler1D(t1, s), 0, 0);
    imageStore(counts, ivec3(1), u + 1u);
    imageStore(dst, ivec2(0), a + imageLoad(src, ivec2(0)) + vec4(i));
}",
    );
    use BindingKind::*;
    use ImageDim::*;
    let want = vec![
        (0, 0, SampledImage { dim: D2, arrayed: false, sample: SampleKind::Float }, false),
        (0, 1, Sampler, false),
        (0, 2, SampledImage { dim: D2, arrayed: true, sample: SampleKind::Uint }, false),
        (0, 3, SampledImage { dim: D3, arrayed: false, sample: SampleKind::Sint }, false),
        (0, 4, SampledImage { dim: D1, arrayed: false, sample: SampleKind::Float }, false),
        (1, 0, StorageImage { dim: D2, arrayed: false, format: StorageFormat::Rgba8Unorm, access: StorageAccess::Read }, false),
        (1, 1, StorageImage { dim: D2, arrayed: false, format: StorageFormat::Rgba32Float, access: StorageAccess::Write }, true),
        (1, 2, StorageImage { dim: D2, arrayed: true, format: StorageFormat::R32Uint, access: StorageAccess::ReadWrite }, true),
        (1, 3, StorageImage { dim: D1, arrayed: false, format: StorageFormat::R32Sint, access: StorageAccess::ReadWrite }, false),
    ];
    assert_eq!(kinds(&p), want);
}

// ----- the protocol by hand -----------------------------------------------------------------

const PROTOCOL: &str = "@group(0) @binding(0) var src: texture_2d_array<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba32uint, write>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    if (i == 5u) {
        return;
    }
    let v = textureLoad(src, vec2<i32>(i32(i) - 2, 1), i32(i % 3u), 1);
    out[i] = v;
    let s = textureSampleLevel(src, smp, vec2<f32>(f32(i) * 0.125, 0.5), i32(i) - 3, f32(i) * 0.5);
    out[i + 8u] = s;
    textureStore(dst, vec2<u32>(i, 0u), vec4<u32>(i, i * 2u, 7u, 9u));
}";

#[test]
fn image_protocol_by_hand() {
    let p = wgsl(PROTOCOL);
    // Level 0 is 8 x 4, so level 1 is 4 x 2; two layers. The storage image is 6 x 1.
    let shapes = [shape([8, 4, 1], 2, 2), ImageShape::default(), shape([6, 1, 1], 1, 1), ImageShape::default()];
    let sizes = [0, 0, 0, 16 * 16];
    let mut wg = p.workgroup(&cfg(&sizes, &shapes, 8)).unwrap();
    assert_eq!(wg.num_subgroups(), 1);

    // textureLoad: lane 5 returned; lanes 0 and 1 have x < 0; lanes 6 and 7 x = 4, 5 past the
    // level's width 4; lane 2 layer 2 of 2. Lanes 3 (x 1, layer 0) and 4 (x 2, layer 1) remain.
    let Step::Image(req) = wg.step(0).unwrap() else { panic!("expected an image request") };
    assert_eq!(req.op, ImageOp::Load);
    assert_eq!((req.binding_index, req.group, req.binding), (0, 0, 0));
    assert_eq!(req.kind, BindingKind::SampledImage { dim: ImageDim::D2, arrayed: true, sample: SampleKind::Float });
    let got: Vec<(u32, [u32; 3], u32, u32)> = req.lanes.iter().map(|l| (l.lane, l.texel, l.layer, l.level)).collect();
    assert_eq!(got, vec![(3, [1, 1, 0], 0, 1), (4, [2, 1, 0], 1, 1)]);
    assert!(req.lanes.iter().all(|l| l.coords == [0.0; 3] && l.lod == 0.0));
    assert!(req.values.is_empty());
    assert_eq!(wg.stats().image_out_of_bounds, 5);
    assert!(wg.pending_image(0).is_some());
    assert!(wg.pending_request(0).is_none());
    // Stepping a waiting subgroup, completing with the wrong count or through complete(): all
    // protocol errors that leave the request pending.
    assert!(matches!(wg.step(0), Err(ShaderError::Protocol(_))));
    assert!(matches!(wg.complete_image(0, &[[0; 4]]), Err(ShaderError::Protocol(_))));
    assert!(matches!(wg.complete_image(0, &[[0; 4]; 3]), Err(ShaderError::Protocol(_))));
    assert!(matches!(wg.complete(0, &[]), Err(ShaderError::Protocol(_))));
    wg.complete_image(0, &[[f(3.0), f(3.5), f(3.25), f(1.0)], [f(4.0), f(4.5), f(4.25), f(1.0)]]).unwrap();
    assert!(wg.pending_image(0).is_none());
    assert!(matches!(wg.complete_image(0, &[]), Err(ShaderError::Protocol(_))));

    // out[i] = v: the dropped lanes read zero.
    let Step::Memory(req) = wg.step(0).unwrap() else { panic!("expected the buffer store") };
    assert_eq!(req.op, MemOp::Store);
    let words: Vec<f32> = req.data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let lanes: Vec<u32> = req.lanes.iter().map(|l| l.lane).collect();
    assert_eq!(lanes, [0, 1, 2, 3, 4, 6, 7]);
    let mut want = vec![0.0; 12];
    want.extend([3.0, 3.5, 3.25, 1.0, 4.0, 4.5, 4.25, 1.0]);
    want.extend([0.0; 8]);
    assert_eq!(words, want);
    // A buffer request is not completed as an image request.
    assert!(matches!(wg.complete_image(0, &[]), Err(ShaderError::Protocol(_))));
    wg.complete(0, &[]).unwrap();

    // textureSampleLevel: every active lane; the integer layer i - 3 clamped to [0, 1].
    let Step::Image(req) = wg.step(0).unwrap() else { panic!("expected a sample") };
    assert_eq!(req.op, ImageOp::SampleLevel { sampler: 1 });
    assert_eq!(p.bindings()[1].kind, BindingKind::Sampler);
    let lanes: Vec<u32> = req.lanes.iter().map(|l| l.lane).collect();
    assert_eq!(lanes, [0, 1, 2, 3, 4, 6, 7]);
    for l in &req.lanes {
        let i = l.lane as f32;
        assert_eq!(l.coords, [i * 0.125, 0.5, 0.0], "lane {}", l.lane);
        assert_eq!(l.lod, i * 0.5);
        assert_eq!(l.layer, (l.lane as i32 - 3).clamp(0, 1) as u32);
        assert_eq!((l.texel, l.level), ([0; 3], 0));
    }
    let texels: Vec<[u32; 4]> = req.lanes.iter().map(|l| [f(l.lane as f32), 0, 0, 0]).collect();
    wg.complete_image(0, &texels).unwrap();
    let Step::Memory(req) = wg.step(0).unwrap() else { panic!("expected the buffer store") };
    let firsts: Vec<f32> = req.data.chunks(16).map(|c| f32::from_le_bytes(c[..4].try_into().unwrap())).collect();
    assert_eq!(firsts, [0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0]);
    wg.complete(0, &[]).unwrap();

    // textureStore: lanes 6 and 7 are past the width 6; the values as the shader gave them.
    let Step::Image(req) = wg.step(0).unwrap() else { panic!("expected a store") };
    assert_eq!(req.op, ImageOp::Store);
    assert_eq!((req.binding_index, req.binding), (2, 2));
    let got: Vec<(u32, [u32; 3], u32, u32)> = req.lanes.iter().map(|l| (l.lane, l.texel, l.layer, l.level)).collect();
    assert_eq!(got, vec![(0, [0, 0, 0], 0, 0), (1, [1, 0, 0], 0, 0), (2, [2, 0, 0], 0, 0), (3, [3, 0, 0], 0, 0), (4, [4, 0, 0], 0, 0)]);
    assert_eq!(req.values, (0..5u32).map(|i| [i, 2 * i, 7, 9]).collect::<Vec<_>>());
    assert!(matches!(wg.complete_image(0, &[[0; 4]]), Err(ShaderError::Protocol(_))));
    wg.complete_image(0, &[]).unwrap();
    assert!(matches!(wg.step(0).unwrap(), Step::Done));
    let s = wg.stats();
    assert_eq!((s.image_requests, s.image_out_of_bounds, s.memory_requests), (3, 5 + 2, 2));
}

/// An image access none of whose lanes is in range is no request at all: loads read zero.
#[test]
fn image_access_with_no_lane_in_range_does_not_yield() {
    let p = wgsl(
        "@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(1) var dst: texture_storage_1d<r32uint, write>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = textureLoad(src, vec2<u32>(i + 10u, 0u), 0);
    textureStore(dst, 100u + i, vec4<u32>(1u));
    out[i] = out[i] + textureLoad(src, vec2<u32>(0u, 0u), 3);
}",
    );
    let shapes = [shape([4, 4, 1], 2, 1), shape([4, 1, 1], 1, 1), ImageShape::default()];
    let mut wg = p.workgroup(&cfg(&[0, 0, 64], &shapes, 4)).unwrap();
    let Step::Memory(req) = wg.step(0).unwrap() else { panic!("expected the buffer store, not an image request") };
    assert_eq!(req.op, MemOp::Store);
    assert!(req.data.iter().all(|&b| b == 0));
    wg.complete(0, &[]).unwrap();
    // The store is dropped; the level-3 load too (2 levels); then out[i] is read back.
    let Step::Memory(req) = wg.step(0).unwrap() else { panic!("expected the buffer load") };
    assert_eq!(req.op, MemOp::Load);
    let len = req.result_len();
    wg.complete(0, &vec![0; len]).unwrap();
    let Step::Memory(_) = wg.step(0).unwrap() else { panic!("expected the buffer store") };
    wg.complete(0, &[]).unwrap();
    assert!(matches!(wg.step(0).unwrap(), Step::Done));
    let s = wg.stats();
    assert_eq!((s.image_requests, s.image_out_of_bounds), (0, 12));
}

/// Sampling an arrayed texture from GLSL and its SPIR-V: the float layer, which naga's front
/// ends truncate to an integer, is rounded to nearest even as Vulkan does, and clamped.
#[test]
fn float_layers_round_to_nearest_even() {
    let src = std::fs::read_to_string(dir("spirv/image_layers.comp")).unwrap();
    for p in [glsl(&src), spirv("image_layers.spv")] {
        assert_eq!(p.bindings()[0].kind, BindingKind::SampledImage { dim: ImageDim::D2, arrayed: true, sample: SampleKind::Float });
        assert_eq!(p.bindings()[1].kind, BindingKind::Sampler);
        let shapes = [shape([16, 16, 1], 3, 3), ImageShape::default(), ImageShape::default()];
        let mut wg = p.workgroup(&cfg(&[0, 0, 128], &shapes, 8)).unwrap();
        let Step::Image(req) = wg.step(0).unwrap() else { panic!("expected a sample") };
        assert_eq!(req.op, ImageOp::SampleLevel { sampler: 1 });
        // Layers -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3 of 3.
        let layers: Vec<u32> = req.lanes.iter().map(|l| l.layer).collect();
        assert_eq!(layers, [0, 0, 0, 1, 2, 2, 2, 2]);
        assert!(req.lanes.iter().all(|l| l.coords == [0.25, 0.75, 0.0] && l.lod == 1.5), "{:?}", req.lanes);
        let texels: Vec<[u32; 4]> = req.lanes.iter().map(|l| [l.layer, 0, 0, 0]).collect();
        wg.complete_image(0, &texels).unwrap();
        let Step::Memory(req) = wg.step(0).unwrap() else { panic!("expected the buffer store") };
        assert_eq!(req.lanes.len(), 8);
        wg.complete(0, &[]).unwrap();
        assert!(matches!(wg.step(0).unwrap(), Step::Done));
    }
}

// ----- the flat driver ----------------------------------------------------------------------

/// A nearest-texel image store for the flat driver: per binding, per level, texels in
/// `((layer * depth + z) * height + y) * width + x` order. A sample answers each lane with
/// (u, v, lod, layer) so that a test can check what the shader asked.
struct TestImages {
    shapes: Vec<ImageShape>,
    texels: Vec<Vec<Vec<[u32; 4]>>>,
    samplers: Vec<u32>,
}

impl TestImages {
    fn new(shapes: Vec<ImageShape>) -> TestImages {
        let texels = shapes
            .iter()
            .map(|s| (0..s.levels).map(|l| vec![[0; 4]; Self::level_len(s, l)]).collect())
            .collect();
        TestImages { shapes, texels, samplers: Vec::new() }
    }

    fn level_size(s: &ImageShape, level: u32) -> [usize; 3] {
        s.extent.map(|e| (e >> level).max(1) as usize)
    }

    fn level_len(s: &ImageShape, level: u32) -> usize {
        let [w, h, d] = Self::level_size(s, level);
        w * h * d * s.layers as usize
    }

    fn at(&self, b: usize, level: u32, t: [u32; 3], layer: u32) -> usize {
        let [w, h, d] = Self::level_size(&self.shapes[b], level);
        ((layer as usize * d + t[2] as usize) * h + t[1] as usize) * w + t[0] as usize
    }

    fn handle(&mut self, req: &ImageRequest) -> Result<Vec<[u32; 4]>, ShaderError> {
        let b = req.binding_index as usize;
        Ok(match req.op {
            ImageOp::Load => req.lanes.iter().map(|l| self.texels[b][l.level as usize][self.at(b, l.level, l.texel, l.layer)]).collect(),
            ImageOp::Store => {
                for (l, v) in req.lanes.iter().zip(&req.values) {
                    let i = self.at(b, 0, l.texel, l.layer);
                    self.texels[b][0][i] = *v;
                }
                Vec::new()
            }
            ImageOp::SampleLevel { sampler } => {
                self.samplers.push(sampler);
                req.lanes.iter().map(|l| [f(l.coords[0]), f(l.coords[1]), f(l.lod), f(l.layer as f32)]).collect()
            }
        })
    }

    fn run(&mut self, p: &ComputePipeline, groups: [u32; 3], subgroup_size: u32) -> Result<FlatStats, ShaderError> {
        let shapes = self.shapes.clone();
        let mut handler = |req: &ImageRequest| self.handle(req);
        let images = FlatImages { shapes: &shapes, handler: Some(&mut handler) };
        let options = FlatOptions { subgroup_size, ..FlatOptions::default() };
        run_dispatch_flat_images(p, groups, &mut [], &[], &options, images)
    }
}

/// The blur shader, as WGSL, GLSL and SPIR-V: the blurred image is the 3-tap mean of the
/// source's texels; the sampled one holds what the handler derived from each lane's
/// coordinates, level of detail and layer.
#[test]
fn flat_driver_runs_a_blur_with_a_test_handler() {
    let (w, h) = (6u32, 5u32);
    let wgsl_src = std::fs::read_to_string(dir("corpus/image_blur.wgsl")).unwrap();
    let glsl_src = std::fs::read_to_string(dir("spirv/image_blur.comp")).unwrap();
    for (name, p) in [("wgsl", wgsl(&wgsl_src)), ("glsl", glsl(&glsl_src)), ("spirv", spirv("image_blur.spv"))] {
        let b = p.bindings();
        assert_eq!(b.len(), 4, "{name}");
        assert_eq!(b[1].kind, BindingKind::Sampler, "{name}");
        assert_eq!((b[2].written, b[3].written), (true, true), "{name}");
        let src_shape = shape([w, h, 1], 2, 1);
        let dst_shape = shape([w, h, 1], 1, 1);
        let mut images = TestImages::new(vec![src_shape, ImageShape::default(), dst_shape, dst_shape]);
        let value = |x: u32, y: u32| [x as f32 * 10.0 + y as f32, y as f32, 1.0, 0.5];
        for y in 0..h {
            for x in 0..w {
                let i = images.at(0, 0, [x, y, 0], 0);
                images.texels[0][0][i] = value(x, y).map(f);
            }
        }
        // Two 4 x 4 workgroups each way cover 8 x 8: lanes past 6 x 5 return early.
        let stats = images.run(&p, [2, 2, 1], 8).unwrap_or_else(|e| panic!("{name}: {e}"));
        for y in 0..h {
            for x in 0..w {
                let tap = |dx: i32| value((x as i32 + dx).clamp(0, w as i32 - 1) as u32, y);
                let (a, b, c) = (tap(-1), tap(0), tap(1));
                let want: [f32; 4] = std::array::from_fn(|k| (a[k] + b[k] + c[k]) / 3.0);
                let got = images.texels[2][0][images.at(2, 0, [x, y, 0], 0)].map(f32::from_bits);
                assert_eq!(got, want, "{name}: blurred ({x}, {y})");
                let uv = [(x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32];
                let got = images.texels[3][0][images.at(3, 0, [x, y, 0], 0)].map(f32::from_bits);
                assert_eq!(got, [uv[0], uv[1], x as f32 * 0.25, 0.0], "{name}: sampled ({x}, {y})");
            }
        }
        assert!(images.samplers.iter().all(|&s| s == 1), "{name}");
        // Three loads, two stores and a sample for each subgroup of 8 lanes (2 rows of 4) with a
        // lane inside the 6 x 5 image: 4 + 2 of the 8 subgroups (the last row of workgroups has
        // its rows 4..8, so only its first subgroup, rows 4 and 5, reaches them).
        assert_eq!(stats.exec.image_requests, 6 * 6, "{name}");
        assert_eq!(stats.exec.image_out_of_bounds, 0, "{name}");
    }
}

#[test]
fn flat_driver_without_a_handler_or_shapes_is_an_error() {
    let p = wgsl(&std::fs::read_to_string(dir("corpus/image_blur.wgsl")).unwrap());
    let shapes = [shape([4, 4, 1], 1, 1), ImageShape::default(), shape([4, 4, 1], 1, 1), shape([4, 4, 1], 1, 1)];
    let images = FlatImages { shapes: &shapes, handler: None };
    let e = run_dispatch_flat_images(&p, [1, 1, 1], &mut [], &[], &FlatOptions::default(), images).unwrap_err();
    assert!(matches!(&e, ShaderError::Dispatch(m) if m.contains("no image handler")), "{e}");
    // No shapes at all (the plain flat driver), or an empty one, is a dispatch error.
    let e = run_dispatch_flat(&p, [1, 1, 1], &mut [], &[], 32).unwrap_err();
    assert!(matches!(&e, ShaderError::Dispatch(m) if m.contains("image shapes")), "{e}");
    let bad = [shape([4, 0, 1], 1, 1), ImageShape::default(), shape([4, 4, 1], 1, 1), shape([4, 4, 1], 1, 1)];
    let e = p.workgroup(&cfg(&[0; 4], &bad, 32)).err().unwrap();
    assert!(matches!(&e, ShaderError::Dispatch(m) if m.contains("empty shape")), "{e}");
}

// ----- queries ------------------------------------------------------------------------------

#[test]
fn image_queries_come_from_the_shapes() {
    let wgsl_src = "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var ta: texture_2d_array<u32>;
@group(0) @binding(2) var t1: texture_1d<f32>;
@group(0) @binding(3) var t3: texture_3d<i32>;
@group(0) @binding(4) var st: texture_storage_2d<r32float, write>;
@group(0) @binding(5) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    let d = textureDimensions(t, i);
    out[i * 8u] = d.x;
    out[i * 8u + 1u] = d.y;
    out[i * 8u + 2u] = textureNumLevels(t);
    out[i * 8u + 3u] = textureNumLayers(ta);
    out[i * 8u + 4u] = textureDimensions(t1);
    out[i * 8u + 5u] = textureDimensions(t3, 1).z;
    out[i * 8u + 6u] = textureDimensions(st).x;
    out[i * 8u + 7u] = textureDimensions(ta).y;
}";
    let glsl_src = "#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform texture2D t;
layout(set = 0, binding = 1) uniform utexture2DArray ta;
layout(set = 0, binding = 2) uniform texture1D t1;
layout(set = 0, binding = 3) uniform itexture3D t3;
layout(set = 0, binding = 4, r32f) uniform writeonly image2D st;
layout(set = 0, binding = 5, std430) buffer Out { uint o[]; };
layout(set = 0, binding = 6) uniform sampler s;
void main() {
    uint i = gl_LocalInvocationID.x;
    ivec2 d = textureSize(sampler2D(t, s), int(i));
    o[i * 8u] = uint(d.x);
    o[i * 8u + 1u] = uint(d.y);
    o[i * 8u + 2u] = uint(textureQueryLevels(sampler2D(t, s)));
    o[i * 8u + 3u] = uint(textureSize(usampler2DArray(ta, s), 0).z);
    o[i * 8u + 4u] = uint(textureSize(sampler1D(t1, s), 0));
    o[i * 8u + 5u] = uint(textureSize(isampler3D(t3, s), 1).z);
    o[i * 8u + 6u] = uint(imageSize(st).x);
    o[i * 8u + 7u] = uint(textureSize(usampler2DArray(ta, s), 0).y);
}";
    for (name, p) in [("wgsl", wgsl(wgsl_src)), ("glsl", glsl(glsl_src))] {
        let shapes = vec![shape([13, 6, 1], 4, 1), shape([5, 7, 1], 1, 9), shape([33, 1, 1], 1, 1), shape([8, 8, 5], 2, 1), shape([21, 3, 1], 1, 1), ImageShape::default()];
        let mut buffers = [FlatBinding::new(0, 5, vec![0; 8 * 8 * 4])];
        let images = FlatImages { shapes: &shapes, handler: None };
        let options = FlatOptions { subgroup_size: 8, ..FlatOptions::default() };
        let stats = run_dispatch_flat_images(&p, [1, 1, 1], &mut buffers, &[], &options, images).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(stats.exec.image_requests, 0);
        let out: Vec<u32> = buffers[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        // Level L of 13 x 6: max(1, 13 >> L) x max(1, 6 >> L), past the last level too.
        let dims = [(13, 6), (6, 3), (3, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)];
        for (i, row) in out.chunks(8).enumerate() {
            assert_eq!(row, [dims[i].0, dims[i].1, 4, 9, 33, 2, 21, 7], "{name}: invocation {i}");
        }
    }
}

// ----- refusals -----------------------------------------------------------------------------

fn refusal(src: &str) -> (String, String) {
    match Module::from_wgsl(src, "refused.wgsl") {
        Err(ShaderError::Unsupported { construct, location, .. }) => (construct, location),
        Err(e) => panic!("expected an unsupported construct, got {e}"),
        Ok(_) => panic!("loaded"),
    }
}

const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;\n";

#[test]
fn unsupported_image_constructs_are_refused_where_they_are() {
    let cases = [
        // (declarations, body, construct, location): a call where the call is (line 5, after
        // `out[0] = `), a type at the declaration of its variable (line 2 or 3, at `var`).
        ("@group(1) @binding(0) var t: texture_2d<f32>;\n@group(1) @binding(1) var s: sampler;\n", "out[0] = textureGather(0, t, s, vec2<f32>(0.5));", "textureGather", "5:14"),
        ("@group(1) @binding(0) var t: texture_cube<f32>;\n@group(1) @binding(1) var s: sampler;\n", "out[0] = textureSampleLevel(t, s, vec3<f32>(1.0), 0.0);", "cube texture", "2:23"),
        ("@group(1) @binding(0) var t: texture_storage_2d<rgba8snorm, write>;\n", "textureStore(t, vec2<i32>(0), vec4<f32>(1.0));", "storage texture format rgba8snorm", "2:23"),
        ("@group(1) @binding(0) var t: texture_storage_2d<rg32uint, read>;\n", "out[0] = vec4<f32>(textureLoad(t, vec2<i32>(0)));", "storage texture format rg32uint", "2:23"),
        ("@group(1) @binding(0) var t: texture_depth_2d;\n@group(1) @binding(1) var s: sampler_comparison;\n", "out[0] = vec4<f32>(textureSampleCompareLevel(t, s, vec2<f32>(0.5), 0.5));", "depth texture", "2:23"),
        ("@group(1) @binding(0) var t: texture_2d<f32>;\n@group(1) @binding(1) var s: sampler_comparison;\n", "out[0] = textureLoad(t, vec2<i32>(0), 0);\n_ = s;", "sampler_comparison", "3:23"),
        ("@group(1) @binding(0) var t: texture_multisampled_2d<f32>;\n", "out[0] = textureLoad(t, vec2<i32>(0), 0);", "multisampled texture", "2:23"),
        ("@group(1) @binding(0) var t: texture_2d<f32>;\n@group(1) @binding(1) var s: sampler;\n", "out[0] = textureSampleGrad(t, s, vec2<f32>(0.5), vec2<f32>(0.0), vec2<f32>(0.0));", "textureSampleGrad", "5:14"),
        ("@group(1) @binding(0) var t: texture_2d<f32>;\n@group(1) @binding(1) var s: sampler;\n", "out[0] = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0, vec2<i32>(1, 0));", "offset", "5:14"),
        ("@group(1) @binding(0) var t: texture_2d<f32>;\n@group(1) @binding(1) var s: sampler;\n", "out[0] = textureSampleBaseClampToEdge(t, s, vec2<f32>(0.5));", "textureSampleBaseClampToEdge", "5:14"),
        ("@group(1) @binding(0) var t: texture_storage_2d<r32uint, atomic>;\n", "textureAtomicAdd(t, vec2<i32>(0), 1u);", "atomic", "2:23"),
        ("@group(1) @binding(0) var t: texture_external;\n", "out[0] = textureLoad(t, vec2<i32>(0));", "external texture", "2:23"),
    ];
    for (decls, body, construct, location) in cases {
        let src = format!("{HEAD}{decls}@compute @workgroup_size(1) fn main() {{\n    {body}\n}}\n");
        let (got, at) = refusal(&src);
        assert!(got.contains(construct), "{construct}: got `{got}` at {at}");
        assert_eq!(at, location, "{construct}: got `{got}`");
    }
    // A binding array of textures.
    let (got, at) = refusal(&format!(
        "enable wgpu_binding_array;\n{HEAD}@group(1) @binding(0) var t: binding_array<texture_2d<f32>, 4>;\n@compute @workgroup_size(1) fn main() {{ out[0] = textureLoad(t[1], vec2<i32>(0), 0); }}\n"
    ));
    assert!(got.contains("binding array") && at == "3:23", "got `{got}` at {at}");
    // The message names the shader, the construct and the place.
    let src = format!("{HEAD}@group(1) @binding(0) var t: texture_storage_2d<rgba8snorm, write>;\n@compute @workgroup_size(1) fn main() {{ textureStore(t, vec2<i32>(0), vec4<f32>(1.0)); }}\n");
    let e = Module::from_wgsl(&src, "refused.wgsl").unwrap_err().to_string();
    assert!(e.contains("refused.wgsl") && e.contains("unsupported storage texture format rgba8snorm") && e.contains("at 2:23"), "{e}");
}

/// GLSL twins of refusals naga's GLSL front end lets through to the IR.
#[test]
fn glsl_image_refusals() {
    for (decl, body, construct) in [
        ("uniform textureCube t;", "o[0] = textureLod(samplerCube(t, s), vec3(1.0), 0.0);", "cube texture"),
        ("layout(rgba8_snorm) uniform writeonly image2D t;", "imageStore(t, ivec2(0), vec4(1.0)); o[0] = vec4(0.0);", "storage texture format rgba8snorm"),
        ("uniform texture2D t;", "o[0] = textureGrad(sampler2D(t, s), vec2(0.5), vec2(0.0), vec2(0.0));", "textureSampleGrad"),
        ("uniform texture2D t;", "o[0] = textureLodOffset(sampler2D(t, s), vec2(0.5), 0.0, ivec2(1));", "offset"),
    ] {
        let src = format!(
            "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer Out {{ vec4 o[]; }};\nlayout(set = 0, binding = 1) uniform sampler s;\nlayout(set = 0, binding = 2) {decl}\nvoid main() {{\n    {body}\n}}\n"
        );
        match Module::from_glsl(&src, "refused.comp") {
            Err(ShaderError::Unsupported { construct: got, location, .. }) => {
                assert!(got.contains(construct), "{construct}: got `{got}`");
                assert!(location.contains(':'), "{construct}: {location}");
            }
            Err(e) => panic!("{construct}: {e}"),
            Ok(_) => panic!("{construct}: loaded"),
        }
    }
}

/// What naga's front ends do not accept at all: `texture()` (an implicit level of detail) in a
/// compute shader fails validation; a combined image sampler is refused by the GLSL front end,
/// and its SPIR-V (from glslang) fails in the SPIR-V front end.
#[test]
fn front_end_limits() {
    let implicit = "@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n@group(0) @binding(2) var<storage, read_write> o: array<vec4<f32>>;\n@compute @workgroup_size(1) fn main() { o[0] = textureSample(t, s, vec2<f32>(0.5)); }";
    assert!(matches!(Module::from_wgsl(implicit, "t.wgsl"), Err(ShaderError::Validation { .. })));
    let bias = implicit.replace("textureSample(t, s, vec2<f32>(0.5))", "textureSampleBias(t, s, vec2<f32>(0.5), 1.0)");
    assert!(matches!(Module::from_wgsl(&bias, "t.wgsl"), Err(ShaderError::Validation { .. })));
    let glsl_implicit = "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) uniform texture2D t;\nlayout(set = 0, binding = 1) uniform sampler s;\nlayout(set = 0, binding = 2) buffer Out { vec4 o[]; };\nvoid main() { o[0] = texture(sampler2D(t, s), vec2(0.5)); }\n";
    assert!(matches!(Module::from_glsl(glsl_implicit, "t.comp"), Err(ShaderError::Validation { .. })));
    let combined = std::fs::read_to_string(dir("spirv/combined_sampler.comp")).unwrap();
    let e = Module::from_glsl(&combined, "combined_sampler.comp").unwrap_err();
    assert!(matches!(&e, ShaderError::Parse { message, .. } if message.contains("sampler2D")), "{e}");
    let bytes = std::fs::read(dir("spirv/combined_sampler.spv")).unwrap();
    let e = Module::from_spirv(&bytes, "combined_sampler.spv").unwrap_err();
    assert!(matches!(e, ShaderError::SpirV { .. }), "{e}");
}
