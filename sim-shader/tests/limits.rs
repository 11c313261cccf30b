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
