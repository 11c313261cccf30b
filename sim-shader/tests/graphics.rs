//! Vertex and fragment entry points: their inputs and outputs laid out in words, vertex waves
//! a lane per vertex, fragment waves in 2x2 quads with derivatives, helper invocations and
//! `discard`.

use sim_shader::{GraphicsShader, Interpolation, IoBinding, IoScalar, Module, ShaderStage, Step, Workgroup, WorkgroupConfig};

fn config(subgroup_size: u32) -> WorkgroupConfig<'static> {
    WorkgroupConfig { workgroup_id: [0; 3], num_workgroups: [1; 3], subgroup_size, push_constants: &[], binding_sizes: &[], image_shapes: &[], max_instructions: 1 << 20 }
}

/// Steps every subgroup of `wave` to the end (the shaders here make no memory access).
fn finish(wave: &mut Workgroup) {
    for sg in 0..wave.num_subgroups() {
        let step = wave.step(sg).expect("steps");
        assert!(matches!(step, Step::Done), "unexpected step {step:?}");
    }
}

const VERTEX: &str = r#"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) colour: vec3<f32>,
    @location(1) @interpolate(flat) id: u32,
}

@vertex
fn vs(@location(0) p: vec2<f32>, @location(1) c: vec3<f32>, @builtin(vertex_index) vi: u32) -> Out {
    var o: Out;
    o.position = vec4<f32>(p * 2.0, 0.5, 1.0);
    o.colour = c.zyx;
    o.id = vi * 10u + 1u;
    return o;
}

@fragment
fn fs(@builtin(position) frag: vec4<f32>, @location(0) v: f32) -> @location(0) vec4<f32> {
    if v < 0.0 {
        discard;
    }
    return vec4<f32>(dpdx(v), dpdy(v), dpdxFine(v * v), fwidth(v) + frag.x * 0.0);
}
"#;

#[test]
fn a_vertex_wave_reads_its_attributes_and_writes_its_outputs() {
    let module = Module::from_wgsl(VERTEX, "graphics.wgsl").expect("compiles");
    let stages: Vec<(&str, ShaderStage)> = module.stages().collect();
    assert_eq!(stages, [("vs", ShaderStage::Vertex), ("fs", ShaderStage::Fragment)]);
    assert_eq!(module.entry_points().count(), 0, "no compute entry point");
    let vs = GraphicsShader::new(&module, "vs").expect("vertex entry point");
    assert_eq!(vs.stage(), ShaderStage::Vertex);
    let inputs: Vec<(IoBinding, u32, u32, IoScalar)> = vs.inputs().iter().map(|v| (v.binding, v.components, v.word, v.scalar)).collect();
    assert_eq!(inputs, [(IoBinding::Location(0), 2, 0, IoScalar::Float), (IoBinding::Location(1), 3, 2, IoScalar::Float), (IoBinding::VertexIndex, 1, 5, IoScalar::Uint)]);
    let outputs: Vec<(IoBinding, u32, u32, Interpolation)> = vs.outputs().iter().map(|v| (v.binding, v.components, v.word, v.interpolation)).collect();
    assert_eq!(outputs, [(IoBinding::Position, 4, 0, Interpolation::Linear), (IoBinding::Location(0), 3, 4, Interpolation::Perspective), (IoBinding::Location(1), 1, 7, Interpolation::Flat)]);
    // Five vertices over two subgroups of four lanes.
    let mut inputs = Vec::new();
    for i in 0..5u32 {
        let f = i as f32;
        inputs.extend([f, -f].map(f32::to_bits));
        inputs.extend([0.25 * f, 0.5, 1.0].map(f32::to_bits));
        inputs.push(i + 100);
    }
    let mut wave = vs.wave(&config(4), 5, &inputs, &[]).expect("a wave");
    finish(&mut wave);
    let mut out = Vec::new();
    for i in 0..5u32 {
        let f = i as f32;
        assert!(wave.outputs(i as usize, &mut out));
        let floats: Vec<f32> = out[..7].iter().map(|&w| f32::from_bits(w)).collect();
        assert_eq!(floats, [2.0 * f, -2.0 * f, 0.5, 1.0, 1.0, 0.5, 0.25 * f]);
        assert_eq!(out[7], (i + 100) * 10 + 1);
    }
    assert!(!wave.outputs(5, &mut out), "no sixth invocation");
    // Wrong input sizes are refused.
    assert!(vs.wave(&config(4), 5, &inputs[1..], &[]).is_err());
}

#[test]
fn a_fragment_wave_runs_in_quads_with_derivatives_helpers_and_discard() {
    let module = Module::from_wgsl(VERTEX, "graphics.wgsl").expect("compiles");
    let fs = GraphicsShader::new(&module, "fs").expect("fragment entry point");
    assert_eq!(fs.stage(), ShaderStage::Fragment);
    let inputs: Vec<(IoBinding, u32, u32)> = fs.inputs().iter().map(|v| (v.binding, v.components, v.word)).collect();
    assert_eq!(inputs, [(IoBinding::Position, 4, 0), (IoBinding::Location(0), 1, 4)]);
    // Two quads: v = x + 2y over pixels (0,0), (1,0), (0,1), (1,1); the second quad's
    // first pixel discards (v < 0), its last is a helper of the first quad's shape.
    let v = [0.0f32, 1.0, 2.0, 3.0, -1.0, 5.0, 6.0, 7.0];
    let mut words = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        words.extend([(i % 2) as f32 + 0.5, ((i % 4) / 2) as f32 + 0.5, 0.5, 1.0].map(f32::to_bits));
        words.push(x.to_bits());
    }
    let helpers = [false, false, false, true, false, false, false, false];
    let mut wave = fs.wave(&config(8), 8, &words, &helpers).expect("a wave");
    finish(&mut wave);
    let mut out = Vec::new();
    let read = |wave: &Workgroup, i: usize, out: &mut Vec<u32>| wave.outputs(i, out).then(|| out.iter().map(|&w| f32::from_bits(w)).collect::<Vec<f32>>());
    // dpdx = 1, dpdy = 2 (coarse: the quad's first row and column); dpdxFine(v²) within each
    // lane's row: 1 - 0 on the first row, 9 - 4 on the second; fwidth = |1| + |2|.
    assert_eq!(read(&wave, 0, &mut out), Some(vec![1.0, 2.0, 1.0, 3.0]));
    assert_eq!(read(&wave, 1, &mut out), Some(vec![1.0, 2.0, 1.0, 3.0]));
    assert_eq!(read(&wave, 2, &mut out), Some(vec![1.0, 2.0, 5.0, 3.0]));
    assert_eq!(read(&wave, 3, &mut out), None, "a helper has no outputs");
    assert_eq!(read(&wave, 4, &mut out), None, "a discarded fragment has no outputs");
    // The discarded lane left with its value: the quad's derivatives still read it
    // (v = -1, 5, 6, 7: dpdx 5 - -1, dpdy 6 - -1, dpdxFine(v²) 25 - 1).
    assert_eq!(read(&wave, 5, &mut out), Some(vec![6.0, 7.0, 24.0, 13.0]));
    // A fragment wave runs in quads: its subgroups hold whole quads.
    assert!(fs.wave(&config(6), 8, &words, &helpers).is_err());
}

#[test]
fn stage_only_constructs_are_refused_elsewhere() {
    let compute = "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(1) fn main() { b[0] = dpdx(b[1]); }";
    // naga's validator refuses derivatives outside fragment shaders.
    let err = Module::from_wgsl(compute, "c.wgsl").expect_err("refused").to_string();
    assert!(err.contains("forbidden at this stage"), "{err}");
    // A vertex or fragment entry point that does not compile is refused when it is selected;
    // the module still serves its compute entry points.
    let mixed = "@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n@compute @workgroup_size(1) fn main() { b[0] = 1u; }\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(f32(b[0])); }\n@group(0) @binding(1) var t: texture_2d<f32>;\n@group(0) @binding(2) var s: sampler;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureSampleGrad(t, s, vec2<f32>(0.5), vec2<f32>(0.1), vec2<f32>(0.1)); }";
    let m = Module::from_wgsl(mixed, "mixed.wgsl").expect("loads for its compute entry point");
    assert!(sim_shader::ComputePipeline::new(&m, "main").is_ok());
    assert!(GraphicsShader::new(&m, "vs").is_ok());
    let err = GraphicsShader::new(&m, "fs").expect_err("refused").to_string();
    assert!(err.contains("textureSampleGrad"), "{err}");
}

/// `textureSample` in a fragment shader takes its level of detail from the quad: λ = log2 of
/// the larger of the texel-space scale factors along x and y (the quad's first row and
/// column), plus a bias for `textureSampleBias`; the request is a sample at that LOD.
#[test]
fn implicit_lod_comes_from_the_quad() {
    let src = r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment
fn plain(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> { return textureSample(t, s, uv); }
@fragment
fn biased(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> { return textureSampleBias(t, s, uv, 0.5); }
"#;
    let module = Module::from_wgsl(src, "lod.wgsl").expect("compiles");
    // A 64x64 image; uv steps 2 texels a pixel in x and 1 in y: ρ = 2, λ = 1.
    let shapes = [sim_shader::ImageShape { extent: [64, 64, 1], levels: 7, layers: 1 }, sim_shader::ImageShape::default()];
    let sizes = [0u64, 0];
    let cfg = WorkgroupConfig { workgroup_id: [0; 3], num_workgroups: [1; 3], subgroup_size: 4, push_constants: &[], binding_sizes: &sizes, image_shapes: &shapes, max_instructions: 1 << 20 };
    let words: Vec<u32> = (0..4).flat_map(|k| [((k % 2) as f32 * 2.0 + 0.5) / 64.0, ((k / 2) as f32 + 0.5) / 64.0].map(f32::to_bits)).collect();
    for (entry, lod) in [("plain", 1.0f32), ("biased", 1.5)] {
        let fs = GraphicsShader::new(&module, entry).expect("entry point");
        let mut wave = fs.wave(&cfg, 4, &words, &[]).expect("a wave");
        let Step::Image(req) = wave.step(0).expect("steps") else { panic!("a sample") };
        assert_eq!(req.lanes.len(), 4, "{entry}");
        for lane in &req.lanes {
            assert!((lane.lod - lod).abs() < 1e-6, "{entry}: {lane:?}");
        }
    }
}

/// GLSL vertex and fragment shaders load one stage a file, `main` their entry point, with
/// `in`/`out` variables as their inputs and outputs.
#[test]
fn glsl_stages_load_with_their_interfaces() {
    let vs = "#version 450\nlayout(location = 0) in vec3 p;\nlayout(location = 0) out vec2 uv;\nvoid main() { uv = p.xy * 0.5; gl_Position = vec4(p, 1.0); }\n";
    let m = Module::from_glsl_stage(vs, "v.vert", ShaderStage::Vertex).expect("compiles");
    let v = GraphicsShader::new(&m, "main").expect("the vertex entry point");
    assert_eq!(v.stage(), ShaderStage::Vertex);
    assert_eq!(v.inputs().iter().map(|i| (i.binding, i.components)).collect::<Vec<_>>(), [(IoBinding::Location(0), 3)]);
    let outputs: Vec<IoBinding> = v.outputs().iter().map(|o| o.binding).collect();
    assert!(outputs.contains(&IoBinding::Position) && outputs.contains(&IoBinding::Location(0)), "{outputs:?}");
    let mut wave = v.wave(&config(4), 1, &[1.0f32, 2.0, 3.0].map(f32::to_bits), &[]).expect("a wave");
    finish(&mut wave);
    let mut out = Vec::new();
    assert!(wave.outputs(0, &mut out));
    let at = |b: IoBinding| v.outputs().iter().find(|o| o.binding == b).map(|o| o.word as usize).expect("bound");
    let word = |k: usize| f32::from_bits(out[k]);
    assert_eq!((word(at(IoBinding::Location(0))), word(at(IoBinding::Location(0)) + 1)), (0.5, 1.0));
    assert_eq!(word(at(IoBinding::Position) + 3), 1.0);
    let fs = "#version 450\nlayout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 colour;\nvoid main() { colour = vec4(uv, dFdx(uv.x), 1.0); }\n";
    let m = Module::from_glsl_stage(fs, "f.frag", ShaderStage::Fragment).expect("compiles");
    assert_eq!(GraphicsShader::new(&m, "main").expect("the fragment entry point").stage(), ShaderStage::Fragment);
}

/// A vertex and a fragment shader link when every fragment input is a vertex output of the same
/// type, at least as wide, interpolated alike; the error names the location.
#[test]
fn interfaces_are_checked_as_vulkan_matches_them() {
    let src = r#"
struct V { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32>, @location(1) @interpolate(flat) id: u32 }
@vertex fn vs() -> V { var v: V; v.p = vec4<f32>(0.0); v.uv = vec2<f32>(0.0); v.id = 0u; return v; }
@fragment fn ok(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> { return vec4<f32>(uv, 0.0, 1.0); }
@fragment fn narrower(@location(0) u: f32, @location(1) @interpolate(flat) id: u32) -> @location(0) vec4<f32> { return vec4<f32>(u, f32(id), 0.0, 1.0); }
@fragment fn missing(@location(2) w: f32) -> @location(0) vec4<f32> { return vec4<f32>(w); }
@fragment fn wrong_type(@location(1) @interpolate(flat) id: i32) -> @location(0) vec4<f32> { return vec4<f32>(f32(id)); }
@fragment fn wrong_interpolation(@location(0) @interpolate(linear) uv: vec2<f32>) -> @location(0) vec4<f32> { return vec4<f32>(uv, 0.0, 1.0); }
"#;
    let m = Module::from_wgsl(src, "link.wgsl").expect("compiles");
    let vs = GraphicsShader::new(&m, "vs").unwrap();
    let fs = |name: &str| GraphicsShader::new(&m, name).unwrap();
    assert_eq!(vs.check_interface(&fs("ok")), Ok(()));
    assert_eq!(vs.check_interface(&fs("narrower")), Ok(()));
    let err = vs.check_interface(&fs("missing")).unwrap_err();
    assert!(err.contains("location 2") && err.contains("08743"), "{err}");
    let err = vs.check_interface(&fs("wrong_type")).unwrap_err();
    assert!(err.contains("location 1") && err.contains("07754"), "{err}");
    let err = vs.check_interface(&fs("wrong_interpolation")).unwrap_err();
    assert!(err.contains("location 0") && err.contains("07754"), "{err}");
    assert!(fs("ok").check_interface(&vs).is_err(), "the stages in order");
}
