//! SPIR-V (and GLSL) twins of corpus kernels give the same results as the WGSL originals.
//! The `.spv` binaries are checked in beside their `.comp` sources, so running this test needs
//! no shader compiler.

use sim_shader::{ComputePipeline, FlatBinding, Module, run_dispatch_flat};

fn dir(sub: &str) -> String {
    format!("{}/tests/{sub}", env!("CARGO_MANIFEST_DIR"))
}

fn prefix_input() -> Vec<u8> {
    let mut x = 0x9e37_79b9u32;
    (0..256 * 4)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            ((x % 2001) as i32 - 1000).to_le_bytes()
        })
        .collect()
}

fn run_prefix(p: &ComputePipeline, sg: u32) -> Vec<u8> {
    let mut binds = [FlatBinding::new(0, 0, prefix_input())];
    run_dispatch_flat(p, [4, 1, 1], &mut binds, &[], sg).unwrap_or_else(|e| panic!("{e}"));
    binds[0].bytes.clone()
}

fn expected() -> Vec<u8> {
    let input: Vec<i32> = prefix_input().chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut out = Vec::new();
    for g in input.chunks(256) {
        let mut acc = 0i32;
        for v in g {
            acc = acc.wrapping_add(*v);
            out.extend(acc.to_le_bytes());
        }
    }
    out
}

#[test]
fn spirv_prefix_sum_matches_wgsl_twin() {
    let spv = std::fs::read(dir("spirv/prefix_sum.spv")).unwrap();
    let m = Module::from_spirv(&spv, "prefix_sum.spv").unwrap_or_else(|e| panic!("{e}"));
    let p_spv = ComputePipeline::new(&m, "main").unwrap();
    assert_eq!(p_spv.workgroup_size(), [256, 1, 1]);
    assert_eq!(p_spv.bindings().len(), 1);

    let wgsl = std::fs::read_to_string(dir("corpus/prefix_sum.wgsl")).unwrap();
    let m = Module::from_wgsl(&wgsl, "prefix_sum.wgsl").unwrap();
    let p_wgsl = ComputePipeline::new(&m, "main").unwrap();

    let want = expected();
    for sg in [32, 64] {
        assert!(run_prefix(&p_spv, sg) == want, "SPIR-V, subgroup size {sg}");
        assert!(run_prefix(&p_wgsl, sg) == want, "WGSL, subgroup size {sg}");
    }
}

#[test]
fn glsl_prefix_sum_matches_wgsl_twin() {
    let src = std::fs::read_to_string(dir("spirv/prefix_sum.comp")).unwrap();
    let m = Module::from_glsl(&src, "prefix_sum.comp").unwrap_or_else(|e| panic!("{e}"));
    let p = ComputePipeline::new(&m, "main").unwrap();
    let got = run_prefix(&p, 32);
    let want = expected();
    let first_bad = got.chunks(4).zip(want.chunks(4)).position(|(a, b)| a != b);
    assert_eq!(first_bad, None, "first mismatching element");
}

/// A buffer glslang compiles from `coherent buffer` (the decoration on the block's member, which
/// naga's front end drops) is known to be coherent; the same buffer without the qualifier, and
/// the plain one beside it, are not.
#[test]
fn coherent_buffers_are_known_from_spirv() {
    let shaders = format!("{}/../examples/traces/shaders", env!("CARGO_MANIFEST_DIR"));
    for (file, want) in [("read_x_coherent.spv", vec![true, false]), ("read_x.spv", vec![false, false]), ("write_x_coherent.spv", vec![true]), ("write_x.spv", vec![false])] {
        let spv = std::fs::read(format!("{shaders}/{file}")).unwrap();
        let m = Module::from_spirv(&spv, file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let p = ComputePipeline::new(&m, "main").unwrap();
        let got: Vec<bool> = p.bindings().iter().map(|b| b.coherent).collect();
        assert_eq!(got, want, "{file}");
    }
    // A block with one coherent member (`coherent_member_only.comp`: `coherent uint a[64];
    // uint b[];`) is not coherent as a whole: only the member's 256 bytes are.
    let spv = std::fs::read(format!("{}/tests/spirv/coherent_member_only.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let m = Module::from_spirv(&spv, "coherent_member_only.spv").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let got: Vec<(bool, Vec<std::ops::Range<u32>>)> = p.bindings().iter().map(|b| (b.coherent, b.coherent_ranges.clone())).collect();
    assert_eq!(got, vec![(false, std::iter::once(0..256).collect()), (false, Vec::new())]);
    // The same with a `Coherent` decoration on a member the block does not have (index 5 of
    // two; naga accepts it): two decorations for two members must not make the block wholly
    // coherent, which would hide a missing barrier before `b`.
    let spv = std::fs::read(format!("{}/tests/spirv/malformed_member_index.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let m = Module::from_spirv(&spv, "malformed_member_index.spv").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let got: Vec<(bool, Vec<std::ops::Range<u32>>)> = p.bindings().iter().map(|b| (b.coherent, b.coherent_ranges.clone())).collect();
    assert_eq!(got, vec![(false, std::iter::once(0..256).collect()), (false, Vec::new())]);
    // Every choice errs towards showing a missing barrier: a binding that two entry points
    // linked into one module (spirv-link) declare differently; a coherent storage buffer and a
    // uniform block at the same binding load, the uniform block untouched.
    let tests = format!("{}/tests/spirv", env!("CARGO_MANIFEST_DIR"));
    for (file, entry, want) in [
        ("linked_coherent_plain.spv", "coherent_main", vec![false, false]),
        ("linked_coherent_plain.spv", "plain_main", vec![false, false]),
        ("linked_coherent_uniform.spv", "coherent_main", vec![false, false]),
        ("linked_coherent_uniform.spv", "uniform_main", vec![false, false]),
    ] {
        let spv = std::fs::read(format!("{tests}/{file}")).unwrap();
        let m = Module::from_spirv(&spv, file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let p = ComputePipeline::new(&m, entry).unwrap_or_else(|e| panic!("{file} {entry}: {e}"));
        let got: Vec<bool> = p.bindings().iter().map(|b| b.coherent).collect();
        assert_eq!(got, want, "{file} {entry}");
    }
    // GLSL source with the qualifier is refused by naga's GLSL front end, naming it, rather
    // than run as if it were not there: it must be compiled to SPIR-V first.
    let glsl = std::fs::read_to_string(format!("{shaders}/write_x_coherent.comp")).unwrap();
    let err = Module::from_glsl(&glsl, "write_x_coherent.comp").unwrap_err().to_string();
    assert!(err.contains("variable qualifier") && err.contains("coherent"), "{err}");
}

/// Malformed modules on which naga's SPIR-V front end panics (an index out of bounds in an
/// execution mode, an unwrap of a layout error; found by fuzzing) are an error naming the
/// shader, not a panic. The second declares an array of 1,235,200,905 elements, which is now
/// refused before naga reads the module.
#[test]
fn malformed_spirv_is_an_error_not_a_panic() {
    for (file, want) in [
        ("malformed_execution_mode.spv", "the SPIR-V front end failed on it"),
        ("malformed_layout.spv", "has 1235200905 elements"),
    ] {
        let spv = std::fs::read(dir(&format!("spirv/{file}"))).unwrap();
        match Module::from_spirv(&spv, file) {
            Err(e @ sim_shader::ShaderError::SpirV { .. }) => {
                let e = e.to_string();
                assert!(e.contains(file) && e.contains(want), "{e}");
            }
            Err(other) => panic!("{file}: expected the front end's failure, got {other}"),
            Ok(_) => panic!("{file}: a malformed module loaded"),
        }
    }
}

/// A pipeline gives back the source its module was loaded from, as given: WGSL and GLSL text,
/// SPIR-V words.
#[test]
fn pipelines_keep_their_source_as_given() {
    use sim_shader::ShaderSource;
    let wgsl = "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { v[id.x] = id.x; }\n";
    let p = ComputePipeline::new(&Module::from_wgsl(wgsl, "w").unwrap(), "main").unwrap();
    assert_eq!(p.source(), ShaderSource::Wgsl(wgsl));
    let glsl = std::fs::read_to_string(dir("spirv/prefix_sum.comp")).unwrap();
    let p = ComputePipeline::new(&Module::from_glsl(&glsl, "g").unwrap(), "main").unwrap();
    assert_eq!(p.source(), ShaderSource::Glsl(&glsl));
    let bytes = std::fs::read(dir("spirv/prefix_sum.spv")).unwrap();
    let p = ComputePipeline::new(&Module::from_spirv(&bytes, "s").unwrap(), "main").unwrap();
    let words: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    assert_eq!(p.source(), ShaderSource::Spirv(&words));
}
