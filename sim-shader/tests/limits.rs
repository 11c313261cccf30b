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
