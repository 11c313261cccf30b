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

#[test]
fn bool_arrays_in_local_memory_are_rejected_clearly() {
    let src = r#"
    @group(0) @binding(0) var<storage, read_write> dst: array<u32>;
    @compute @workgroup_size(1)
    fn main() { var flags: array<bool, 4>; flags[1] = true; dst[0] = select(0u, 1u, flags[1]); }"#;
    let err = Module::from_wgsl(src, "bool_array").and_then(|m| ComputePipeline::new(&m, "main").map(|_| ())).unwrap_err();
    assert!(err.to_string().contains("bool inside an array or struct"), "{err}");
}
