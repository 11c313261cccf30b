//! Booleans in the interpreter's own memory: naga lowers short-circuit `||` and `&&` into bool
//! local variables, and lays bools out as single bytes, while the interpreter moves 32-bit
//! words. These shaders must compute what plain Rust does.

use sim_shader::*;

fn run(body: &str) -> Vec<u32> {
    let src = format!(
        r#"
    @group(0) @binding(0) var<storage, read_write> dst: array<u32>;
    var<private> pv: vec2<bool>;
    @compute @workgroup_size(16)
    fn main(@builtin(local_invocation_index) i: u32) {{ {body} }}"#
    );
    let m = Module::from_wgsl(&src, "booleans").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 64] }];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 8).unwrap();
    b[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn expect(f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..16).map(f).collect()
}

#[test]
fn short_circuit_or_and_and() {
    assert_eq!(run("if (i >= 10u || i == 3u) { dst[i] = 5u; }"), expect(|i| if i >= 10 || i == 3 { 5 } else { 0 }));
    assert_eq!(run("if (i >= 4u && i % 2u == 0u) { dst[i] = 7u; }"), expect(|i| if i >= 4 && i % 2 == 0 { 7 } else { 0 }));
    assert_eq!(
        run("if ((i < 2u || i > 13u) && !(i == 15u)) { dst[i] = 1u; } else { dst[i] = 2u; }"),
        expect(|i| if !(2..=13).contains(&i) && i != 15 { 1 } else { 2 })
    );
}

#[test]
fn bool_locals_and_private_vectors() {
    assert_eq!(run("var t = false; if (i > 8u) { t = true; } dst[i] = select(0u, 9u, t);"), expect(|i| if i > 8 { 9 } else { 0 }));
    assert_eq!(
        run("pv = vec2<bool>(i % 2u == 0u, i % 3u == 0u); dst[i] = select(0u, 1u, pv.x) + select(0u, 2u, pv.y);"),
        expect(|i| (i % 2 == 0) as u32 + 2 * (i % 3 == 0) as u32)
    );
}

/// Initialisers of bool variables: naga's layout gives a bool one byte, so sizing the initial
/// words by it stored none, and `true` read as `false` (or a `false` read its neighbour's word).
#[test]
fn bool_variables_start_at_their_initialisers() {
    assert_eq!(run("var b = true; dst[i] = select(0u, 1u, b);"), expect(|_| 1));
    assert_eq!(run("var v = vec2<bool>(false, false); var k = 5u; dst[i] = select(0u, 1u, v.y) + k;"), expect(|_| 5));
    assert_eq!(run("var v = vec3<bool>(true, false, true); dst[i] = select(0u, 1u, v.x) + select(0u, 2u, v.y) + select(0u, 4u, v.z);"), expect(|_| 5));
    let src = r#"
    @group(0) @binding(0) var<storage, read_write> dst: array<u32>;
    var<private> p: bool = true;
    var<private> q: vec2<bool> = vec2<bool>(false, true);
    @compute @workgroup_size(4)
    fn main(@builtin(local_invocation_index) i: u32) { dst[i] = select(0u, 1u, p) + select(0u, 2u, q.x) + select(0u, 4u, q.y); }"#;
    let m = Module::from_wgsl(src, "bool_private").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 16] }];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 8).unwrap();
    assert_eq!(b[0].bytes, [5u8, 0, 0, 0].repeat(4));
    let glsl = "#version 450\nlayout(local_size_x = 4) in;\nlayout(set = 0, binding = 0) buffer B { uint dst[]; };\nvoid main() { bool b = true; dst[gl_LocalInvocationIndex] = b ? 3u : 0u; }\n";
    let m = Module::from_glsl(glsl, "bool_glsl").unwrap();
    let p = ComputePipeline::new(&m, "main").unwrap();
    let mut b = vec![FlatBinding { group: 0, binding: 0, bytes: vec![0u8; 16] }];
    run_dispatch_flat(&p, [1, 1, 1], &mut b, &[], 8).unwrap();
    assert_eq!(b[0].bytes, [3u8, 0, 0, 0].repeat(4));
}

#[test]
fn bool_arrays_in_local_memory_are_rejected_clearly() {
    let src = r#"
    @group(0) @binding(0) var<storage, read_write> dst: array<u32>;
    @compute @workgroup_size(1)
    fn main() { var flags: array<bool, 4>; flags[1] = true; dst[0] = select(0u, 1u, flags[1]); }"#;
    let err = Module::from_wgsl(src, "bool_array").and_then(|m| ComputePipeline::new(&m, "main").map(|_| ())).unwrap_err();
    assert!(err.to_string().contains("bool inside an array or struct"), "{err}");
}
