//! Sizes a shader states must not decide an allocation, a compile time or a recursion depth
//! unchecked: each of these is an error naming the problem, not an abort.

use sim_shader::*;

fn compile_error(src: &str) -> String {
    match Module::from_wgsl(src, "limits") {
        Ok(_) => panic!("compiled:\n{src}"),
        Err(e) => e.to_string(),
    }
}

const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> dst: array<u32>;\n";

#[test]
fn private_memory_past_the_interpreter_limit() {
    let e = compile_error(&format!("{HEAD}var<private> p: array<u32, 268435456>;\n@compute @workgroup_size(1) fn main() {{ p[3] = 1u; dst[0] = p[3]; }}"));
    assert!(e.contains("private memory beyond 65536 bytes"), "{e}");
    let e = compile_error(&format!("{HEAD}@compute @workgroup_size(1) fn main() {{ var l: array<u32, 20000>; l[3] = 1u; dst[0] = l[3]; }}"));
    assert!(e.contains("beyond 65536 bytes per invocation"), "{e}");
}

#[test]
fn workgroup_memory_past_the_interpreter_limit() {
    let e = compile_error(&format!("{HEAD}var<workgroup> w: array<u32, 268435456>;\n@compute @workgroup_size(1) fn main() {{ w[3] = 1u; dst[0] = w[3]; }}"));
    assert!(e.contains("workgroup memory beyond 1048576 bytes"), "{e}");
}

#[test]
fn a_call_tree_that_inlines_to_too_much() {
    // f0 calls f1 twice, f1 calls f2 twice, ...: 2^21 inlined calls.
    let mut src = String::from(HEAD);
    for k in 0..20 {
        src += &format!("fn f{k}(x: u32) -> u32 {{ return f{n}(x) + f{n}(x + 1u); }}\n", n = k + 1);
    }
    src += "fn f20(x: u32) -> u32 { return x * 3u; }\n@compute @workgroup_size(1) fn main() { dst[0] = f0(1u); }";
    let e = compile_error(&src);
    assert!(e.contains("inlines to more than"), "{e}");
}

#[test]
fn nesting_past_the_front_end_limit() {
    let deep = format!("{}1u{}", "(".repeat(300), ")".repeat(300));
    let e = compile_error(&format!("{HEAD}@compute @workgroup_size(1) fn main() {{ dst[0] = {deep}; }}"));
    assert!(e.contains("nested more than 256 deep"), "{e}");
    // Within the limit it compiles.
    let ok = format!("{}1u{}", "(".repeat(100), ")".repeat(100));
    Module::from_wgsl(&format!("{HEAD}@compute @workgroup_size(1) fn main() {{ dst[0] = {ok}; }}"), "limits").unwrap();
}

/// Fifteen lines of GLSL macros, each naming the one before ten times, expand to 10^11 tokens:
/// refused before naga's preprocessor holds them, naming the line of the use.
#[test]
fn glsl_macros_expanding_past_the_limit() {
    let mut src = String::from("#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer D { uint dst[]; };\n#define M0 1u+\n");
    for i in 1..=11 {
        src += &format!("#define M{i} {}\n", vec![format!("M{}", i - 1); 10].join(" "));
    }
    src += "void main() { dst[0] = M11 1u; }\n";
    let e = Module::from_glsl(&src, "bomb.comp").unwrap_err().to_string();
    assert!(e.contains("bomb.comp:16: preprocessing makes more than 1048576 tokens"), "{e}");
}

/// Ordinary macro use passes the check and means what the preprocessor says: a function-like
/// macro nested in its own argument, a guard, and `#if` arithmetic and `defined` choosing a
/// branch.
#[test]
fn glsl_macros_within_the_limit_expand_as_written() {
    let src = "#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer D { uint dst[]; };
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#ifndef SCALE
#define SCALE 3
#endif
#if defined(SCALE) && (2 * 3 == 6) && !defined(NOPE)
#define OFFSET 100u
#else
#define OFFSET 0u
#endif
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst[i] = MAX(MAX(i, 4u), 9u - i) * SCALE + OFFSET;
}
";
    let m = Module::from_glsl(src, "macros.comp").unwrap_or_else(|e| panic!("{e}"));
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding::new(0, 0, vec![0; 64])];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 8).unwrap();
    let got: Vec<u32> = b[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let want: Vec<u32> = (0..16u32).map(|i| i.max(4).max(9u32.wrapping_sub(i)).wrapping_mul(3).wrapping_add(100)).collect();
    assert_eq!(got, want);
}

/// An array or struct held as a value is a register per component in every lane: a huge one is
/// refused where it is written, before its registers or its constant are built (a zero array
/// of 2^24 words once asked for 4 GiB of registers and aborted).
#[test]
fn values_past_the_register_limit() {
    let e = compile_error(&format!("{HEAD}@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {{ let x = array<u32, 16777216>(); dst[0] = x[i]; }}"));
    assert!(e.contains("value of more than 16384 32-bit components") && e.contains("at 2:"), "{e}");
    // A whole fixed-size buffer loaded into a value.
    let src = "@group(0) @binding(0) var<storage, read_write> dst: array<u32>;\n@group(0) @binding(1) var<storage, read> inp: array<u32, 1048576>;\n@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) { let x = inp; dst[0] = x[i]; }";
    let e = compile_error(src);
    assert!(e.contains("value of more than 16384 32-bit components") && e.contains("at 3:"), "{e}");
    // At the limit a value compiles and indexes correctly.
    let src = format!("{HEAD}@compute @workgroup_size(1) fn main() {{ var v = array<u32, 16384>(); v[16383] = 7u; let x = v; dst[0] = x[16383] + x[0]; }}");
    let m = Module::from_wgsl(&src, "limits").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 4] }];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 1).unwrap();
    assert_eq!(b[0].bytes, 7u32.to_le_bytes());
}

/// Many values each under the limit: the entry point's registers are bounded too, and so is what
/// one workgroup of many invocations holds.
#[test]
fn registers_past_the_entry_point_and_workgroup_limits() {
    let lets: String = (0..70).map(|k| format!("let a{k} = array<u32, 16000>(); s += a{k}[i];")).collect();
    let e = compile_error(&format!("{HEAD}@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {{ var s = 0u; {lets} dst[0] = s; }}"));
    assert!(e.contains("more than 1048576 32-bit registers per invocation"), "{e}");
    // 5 × 16,000 registers fit one invocation, but not 1024 of them in one workgroup (320 MB).
    let lets: String = (0..5).map(|k| format!("let a{k} = array<u32, 16000>(); s += a{k}[i % 16000u];")).collect();
    let src = format!("{HEAD}@compute @workgroup_size(1024) fn main(@builtin(local_invocation_index) i: u32) {{ var s = 0u; {lets} dst[i] = s; }}");
    let m = Module::from_wgsl(&src, "limits").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 4096] }];
    let e = run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 64).unwrap_err().to_string();
    assert!(e.contains("a workgroup of 1024 invocations needs") && e.contains(&format!("more than the {MAX_WORKGROUP_STATE_BYTES} allowed")), "{e}");
}

/// A chain of prefix operators is parsed and lowered one level per operator: 4 million `!`
/// overflowed the stack. Refused past 256, naming where; comments count for nothing.
#[test]
fn prefix_operators_past_the_front_end_limit() {
    let e = compile_error(&format!("{HEAD}@compute @workgroup_size(1) fn main() {{ let b = true; dst[0] = select(0u, 1u, {}b); }}", "!".repeat(300)));
    assert!(e.contains("prefix operators chained more than 256 deep") && e.contains("limits:2:"), "{e}");
    let glsl = format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer D {{ int dst[]; }};\nvoid main() {{ dst[0] = {}1; }}\n", "- ".repeat(300));
    let e = Module::from_glsl(&glsl, "neg.comp").unwrap_err().to_string();
    assert!(e.contains("prefix operators chained more than 256 deep") && e.contains("neg.comp:4:"), "{e}");
    // Within the limit the chain computes what it says; banners in comments are no chain.
    let src = format!(
        "{HEAD}// {dashes}\n/* {stars} ((((((((( */\n@compute @workgroup_size(1) fn main() {{ let x = 5i; dst[0] = u32({neg}x); dst[1] = select(0u, 1u, {not}(x == 5i)); }}",
        dashes = "-".repeat(400),
        stars = "*".repeat(400),
        neg = "- ".repeat(100),
        not = "!".repeat(101),
    );
    let m = Module::from_wgsl(&src, "limits").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 8] }];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 1).unwrap();
    assert_eq!(b[0].bytes, [5u32.to_le_bytes(), 0u32.to_le_bytes()].concat());
}

/// naga lays out an array sized by an override expression as empty, so every access to it was
/// out of bounds and read zero: refused where the variable is declared.
#[test]
fn arrays_sized_by_overrides_are_refused() {
    let e = compile_error(&format!(
        "{HEAD}override k: u32 = 3u;\nvar<workgroup> w: array<u32, k * 2u>;\n@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {{ w[i + 2u] = 9u; dst[0] = w[i + 2u]; }}"
    ));
    assert!(e.contains("unsupported array sized by a pipeline-overridable constant at 3:1"), "{e}");
}

/// naga's SPIR-V front end sets aside memory per element of an array for some instructions
/// (`OpCompositeInsert` into an array of 2^32 - 1 elements aborted asking for 16 GiB): a module
/// declaring such an array is refused before naga reads it, naming the type.
#[test]
fn spirv_arrays_past_the_front_end_limit() {
    let op = |code: u32, operands: &[u32]| [&[(operands.len() as u32 + 1) << 16 | code][..], operands].concat();
    let module = |inner: u32, outer: u32| -> Vec<u8> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        words.extend(op(21, &[1, 32, 0])); // %1 = OpTypeInt 32 0
        words.extend(op(43, &[1, 2, inner])); // %2 = OpConstant %1 inner
        words.extend(op(43, &[1, 3, outer])); // %3 = OpConstant %1 outer
        words.extend(op(28, &[4, 1, 2])); // %4 = OpTypeArray %1 %2
        words.extend(op(28, &[5, 4, 3])); // %5 = OpTypeArray %4 %3
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    };
    let e = Module::from_spirv(&module(u32::MAX, 1), "huge.spv").unwrap_err().to_string();
    assert!(e.contains("OpTypeArray %4 (word ") && e.contains("has 4294967295 elements"), "{e}");
    // Nested arrays multiply: 2048 × 1024 elements.
    let e = Module::from_spirv(&module(2048, 1024), "nested.spv").unwrap_err().to_string();
    assert!(e.contains("OpTypeArray %5") && e.contains("has 2097152 elements"), "{e}");
    // Within the limit the check lets the module through to naga (which finds no entry point
    // or other problems of its own, but not this one).
    let e = Module::from_spirv(&module(1024, 1024), "fits.spv").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(!e.contains("elements"), "{e}");
}

/// naga's front ends take time growing faster than the source (a 1.1 MB WGSL function took 21 s
/// to parse): a source past the cap is refused before any front end runs, whatever its language.
#[test]
fn sources_past_the_size_limit() {
    let statements = "dst[0] = 1u;\n".repeat(MAX_SOURCE_BYTES / 13);
    let src = format!("{HEAD}@compute @workgroup_size(1) fn main() {{\n{statements}}}\n");
    assert!(src.len() > MAX_SOURCE_BYTES);
    let e = compile_error(&src);
    assert!(e.contains(&format!("{} bytes of source, more than the {MAX_SOURCE_BYTES}", src.len())), "{e}");
    let e = Module::from_glsl(&format!("#version 450\n{}", " ".repeat(MAX_SOURCE_BYTES)), "big.comp").unwrap_err().to_string();
    assert!(e.contains("more than the 524288 a shader may have"), "{e}");
    let e = Module::from_spirv(&vec![0u8; MAX_SOURCE_BYTES + 4], "big.spv").unwrap_err().to_string();
    assert!(e.contains("more than the 524288 a shader may have"), "{e}");
}
