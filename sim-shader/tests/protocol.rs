//! The step/complete protocol driven by hand, barriers parking subgroups, bounds checks,
//! and load-time and run-time errors.

use sim_shader::*;

fn pipeline(src: &str) -> ComputePipeline {
    let m = Module::from_wgsl(src, "test").unwrap_or_else(|e| panic!("{e}"));
    ComputePipeline::new(&m, "main").unwrap()
}

fn corpus(name: &str) -> ComputePipeline {
    let path = format!("{}/tests/corpus/{name}.wgsl", env!("CARGO_MANIFEST_DIR"));
    pipeline(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn step_protocol_by_hand() {
    let p = corpus("vector_add");
    let b = p.bindings();
    assert_eq!(b.len(), 3);
    assert_eq!((b[0].group, b[0].binding, b[0].kind), (0, 0, BindingKind::StorageBuffer { read_only: true }));
    assert_eq!(b[2].kind, BindingKind::StorageBuffer { read_only: false });
    assert_eq!(b[2].runtime_stride, Some(4));
    // 40 elements: the second subgroup of the workgroup has only 8 lanes in range.
    let sizes = [160u64, 160, 160];
    let cfg = WorkgroupConfig {
        workgroup_id: [0, 0, 0],
        num_workgroups: [1, 1, 1],
        subgroup_size: 32,
        push_constants: &[],
        binding_sizes: &sizes,
        image_shapes: &[],
        max_instructions: DEFAULT_MAX_INSTRUCTIONS,
    };
    let mut wg = p.workgroup(&cfg).unwrap();
    assert_eq!(wg.num_subgroups(), 2);

    // Subgroup 1: lanes 32..63 → global ids 32..63; arrayLength(c) = 40, so lanes 8.. return.
    let Step::Memory(req) = wg.step(1).unwrap() else { panic!("expected a load") };
    assert_eq!(req.op, MemOp::Load);
    assert_eq!((req.group, req.binding, req.binding_index), (0, 0, 0));
    let offs: Vec<u64> = req.lanes.iter().map(|l| l.offset).collect();
    assert_eq!(offs, (32..40).map(|i| 4 * i).collect::<Vec<u64>>());
    assert!(req.lanes.iter().all(|l| l.size == 4));
    // Stepping a waiting subgroup is a protocol error, as is a wrong-sized completion.
    assert!(matches!(wg.step(1), Err(ShaderError::Protocol(_))));
    assert!(matches!(wg.complete(1, &[0; 3]), Err(ShaderError::Protocol(_))));
    let a: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    wg.complete(1, &a).unwrap();
    let Step::Memory(req) = wg.step(1).unwrap() else { panic!("expected a load") };
    assert_eq!(req.binding, 1);
    let b: Vec<u8> = (0..8).flat_map(|_| 0.5f32.to_le_bytes()).collect();
    wg.complete(1, &b).unwrap();
    let Step::Memory(req) = wg.step(1).unwrap() else { panic!("expected a store") };
    assert_eq!(req.op, MemOp::Store);
    assert_eq!(req.binding, 2);
    assert_eq!(req.lanes.len(), 8);
    let stored: Vec<f32> = req.data.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(stored, (0..8).map(|i| i as f32 + 0.5).collect::<Vec<_>>());
    wg.complete(1, &[]).unwrap();
    assert!(matches!(wg.step(1).unwrap(), Step::Done));
    assert!(matches!(wg.step(1).unwrap(), Step::Done));
    assert!(!wg.is_done());
    let s = wg.subgroup_stats(1);
    assert_eq!(s.memory_requests, 3);
    assert!(s.lane_ops > s.instructions, "lane-ops count active lanes");
}

#[test]
fn control_barrier_parks_subgroups() {
    let p = corpus("reduce");
    let sizes = [1024u64, 16];
    let cfg = WorkgroupConfig {
        workgroup_id: [0, 0, 0],
        num_workgroups: [1, 1, 1],
        subgroup_size: 64,
        push_constants: &[],
        binding_sizes: &sizes,
        image_shapes: &[],
        max_instructions: DEFAULT_MAX_INSTRUCTIONS,
    };
    let mut wg = p.workgroup(&cfg).unwrap();
    assert_eq!(wg.num_subgroups(), 4);
    let ones = [1u8, 0, 0, 0].repeat(64);
    // Each subgroup loads its inputs, then reaches the first workgroupBarrier.
    let arrive = |wg: &mut Workgroup, i: usize| {
        let Step::Memory(_) = wg.step(i).unwrap() else { panic!("expected a load") };
        wg.complete(i, &ones).unwrap();
        match wg.step(i).unwrap() {
            Step::Barrier { control: true, flags } => assert!(flags.workgroup),
            other => panic!("expected a barrier, got {other:?}"),
        }
    };
    arrive(&mut wg, 0);
    assert!(matches!(wg.step(0).unwrap(), Step::Blocked));
    arrive(&mut wg, 1);
    arrive(&mut wg, 2);
    assert!(matches!(wg.step(1).unwrap(), Step::Blocked));
    arrive(&mut wg, 3);
    // All arrived: the next step releases the workgroup and runs on to the next barrier.
    assert!(matches!(wg.step(0).unwrap(), Step::Barrier { control: true, .. }));
    // Finish with the flat driver's loop.
    let mut done = [false; 4];
    let mut sum = None;
    while !done.iter().all(|d| *d) {
        for (i, d) in done.iter_mut().enumerate() {
            match wg.step(i).unwrap() {
                Step::Memory(req) => {
                    assert_eq!(req.op, MemOp::Store);
                    sum = Some(u32::from_le_bytes(req.data[..4].try_into().unwrap()));
                    wg.complete(i, &[]).unwrap();
                }
                Step::Done => *d = true,
                _ => {}
            }
        }
    }
    assert_eq!(sum, Some(256));
    assert!(wg.stats().workgroup_accesses > 0);
}

#[test]
fn memory_barrier_is_reported_and_continues() {
    let p = pipeline(
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
         @compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
             d[i] = i; storageBarrier(); d[i] = d[i] + 1u; }",
    );
    let mut binds = [FlatBinding::new(0, 0, vec![0; 16])];
    let stats = run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 4).unwrap();
    assert_eq!(stats.exec.barriers, 1);
    assert_eq!(binds[0].bytes.chunks(4).map(|c| c[0]).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
}

#[test]
fn out_of_bounds_loads_read_zero_and_stores_are_dropped() {
    let p = pipeline(
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
         @compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
             let v = d[i + 4u];
             d[i + 2u] = v + 1u; }",
    );
    let mut binds = [FlatBinding::new(0, 0, (10u32..18).flat_map(|v| v.to_le_bytes()).collect())];
    let stats = run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 8).unwrap();
    // Lanes 0..3 read d[4..8] = 14..17, lanes 4..7 read out of range (zero); stores to d[2..10]
    // land for lanes 0..5 only.
    let out: Vec<u32> = binds[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(out, vec![10, 11, 15, 16, 17, 18, 1, 1]);
    assert_eq!(stats.exec.out_of_bounds, 4 + 2);
}

#[test]
fn unsupported_texture_gather_is_a_load_error() {
    let src = "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureGather(1, t, s, vec2<f32>(0.5, 0.5));
}";
    let err = Module::from_wgsl(src, "sample.wgsl").unwrap_err();
    match &err {
        ShaderError::Unsupported { construct, location, .. } => {
            assert!(construct.contains("textureGather"), "{err}");
            assert!(location.starts_with("6:"), "{err}");
        }
        other => panic!("unexpected error {other}"),
    }
}

#[test]
fn unsupported_subgroup_operation_is_a_load_error() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = subgroupAdd(i);
}";
    let err = Module::from_wgsl(src, "subgroup.wgsl").unwrap_err();
    assert!(matches!(&err, ShaderError::Unsupported { construct, .. } if construct.contains("subgroup")), "{err}");
    assert!(err.to_string().contains("subgroup.wgsl"));
}

#[test]
fn malformed_spirv_is_a_load_error() {
    let err = Module::from_spirv(&[0x03, 0x02, 0x23, 0x07, 1, 2, 3, 4, 5, 6, 7, 8], "bad.spv").unwrap_err();
    assert!(matches!(err, ShaderError::SpirV { .. }), "{err}");
    let err = Module::from_spirv(&[1, 2, 3], "short.spv").unwrap_err();
    assert!(matches!(err, ShaderError::SpirV { .. }), "{err}");
    let err = Module::from_spirv(&[0xde, 0xad, 0xbe, 0xef].repeat(16), "garbage.spv").unwrap_err();
    assert!(matches!(err, ShaderError::SpirV { .. }), "{err}");
}

#[test]
fn wgsl_syntax_error_names_the_line() {
    let err = Module::from_wgsl("@compute @workgroup_size(1)\nfn main() {\n let x = ;\n}", "broken.wgsl").unwrap_err();
    assert!(matches!(err, ShaderError::Parse { .. }), "{err}");
    assert!(err.to_string().contains("broken.wgsl:3"), "{err}");
}

#[test]
fn missing_entry_point_and_binding() {
    let p = corpus("vector_add");
    let m = Module::from_wgsl("@compute @workgroup_size(1) fn main() {}", "empty").unwrap();
    assert!(matches!(ComputePipeline::new(&m, "other"), Err(ShaderError::EntryPointNotFound { .. })));
    let mut binds = [FlatBinding::new(0, 0, vec![0; 4])];
    assert!(matches!(run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 32), Err(ShaderError::Dispatch(_))));
    let mut binds = [FlatBinding::new(0, 0, vec![0; 4]), FlatBinding::new(0, 1, vec![0; 4]), FlatBinding::new(0, 2, vec![0; 4])];
    assert!(matches!(run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 65), Err(ShaderError::Dispatch(_))));
}

#[test]
fn runaway_loop_hits_the_step_limit() {
    let p = pipeline(
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
         @compute @workgroup_size(1) fn main() {
             var i = 0u;
             loop { if d[0] == 12345u { break; } i += 1u; }
             d[1] = i; }",
    );
    let mut binds = [FlatBinding::new(0, 0, vec![0; 8])];
    let opts = FlatOptions { subgroup_size: 32, max_instructions: 10_000 };
    let err = run_dispatch_flat_with(&p, [1, 1, 1], &mut binds, &[], &opts).unwrap_err();
    assert!(matches!(err, ShaderError::StepLimit { limit: 10_000, .. }), "{err}");
}

#[test]
fn integer_division_by_zero_follows_wgsl() {
    let p = pipeline(
        "@group(0) @binding(0) var<storage, read_write> d: array<i32>;
         @compute @workgroup_size(1) fn main() {
             let a = d[0]; let z = d[1];
             d[2] = a / z; d[3] = a % z; d[4] = i32(-2147483648) / d[5]; }",
    );
    let init: Vec<u8> = [7i32, 0, 0, 0, 0, -1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut binds = [FlatBinding::new(0, 0, init)];
    run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 1).unwrap();
    let out: Vec<i32> = binds[0].bytes.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(&out[2..5], &[7, 0, i32::MIN]);
}

#[test]
fn math_builtins_match_rust() {
    let p = pipeline(
        "@group(0) @binding(0) var<storage, read_write> f: array<f32>;
         @group(0) @binding(1) var<storage, read_write> u: array<u32>;
         @compute @workgroup_size(1) fn main() {
             let x = f[0]; let y = f[1];
             f[2] = sqrt(x); f[3] = inverseSqrt(x); f[4] = exp(y); f[5] = log2(x); f[6] = pow(x, y);
             f[7] = atan2(y, x); f[8] = smoothstep(0.0, 4.0, x); f[9] = mix(x, y, 0.25);
             f[10] = length(vec3<f32>(x, y, 1.0)); f[11] = dot(vec2<f32>(x, y), vec2<f32>(y, x));
             f[12] = cross(vec3<f32>(x, 0.0, 1.0), vec3<f32>(0.0, y, 1.0)).z; f[13] = round(2.5); f[14] = fract(-x);
             f[15] = clamp(y, -0.5, 0.5); f[16] = step(1.0, x); f[17] = fma(x, y, 1.0);
             f[18] = normalize(vec2<f32>(x, y)).y; f[19] = distance(vec2<f32>(x, 0.0), vec2<f32>(0.0, y));
             let v = u[0];
             u[1] = countOneBits(v); u[2] = reverseBits(v); u[3] = firstLeadingBit(v); u[4] = firstTrailingBit(v);
             u[5] = extractBits(v, 4u, 8u); u[6] = insertBits(v, 0xfu, 8u, 4u); u[7] = pack4x8unorm(vec4<f32>(0.0, 0.5, 1.0, 0.25));
             u[8] = u32(unpack2x16snorm(0x7fff8001u).x * 1000.0 + 2000.0); u[9] = bitcast<u32>(f32(i32(v) >> 2u));
             u[10] = u32(firstLeadingBit(-5)); u[11] = pack2x16float(vec2<f32>(1.5, -2.0)); }",
    );
    let (x, y) = (2.25f32, -0.75f32);
    let mut fb = vec![0u8; 4 * 20];
    fb[..4].copy_from_slice(&x.to_le_bytes());
    fb[4..8].copy_from_slice(&y.to_le_bytes());
    let v = 0x1234_5678u32;
    let mut ub = vec![0u8; 4 * 12];
    ub[..4].copy_from_slice(&v.to_le_bytes());
    let mut binds = [FlatBinding::new(0, 0, fb), FlatBinding::new(0, 1, ub)];
    run_dispatch_flat(&p, [1, 1, 1], &mut binds, &[], 1).unwrap();
    let f: Vec<f32> = binds[0].bytes.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let u: Vec<u32> = binds[1].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let t = ((x - 0.0) / 4.0f32).clamp(0.0, 1.0);
    let want = [
        x.sqrt(),
        1.0 / x.sqrt(),
        y.exp(),
        x.log2(),
        x.powf(y),
        y.atan2(x),
        t * t * (3.0 - 2.0 * t),
        x * 0.75 + y * 0.25,
        (x * x + y * y + 1.0).sqrt(),
        x * y + y * x,
        x * y,
        2.0,
        (-x) - (-x).floor(),
        0.5f32.min(y.max(-0.5)),
        1.0,
        x.mul_add(y, 1.0),
        y / (x * x + y * y).sqrt(),
        (x * x + y * y).sqrt(),
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(f[i + 2].to_bits(), w.to_bits(), "f[{}] = {} want {w}", i + 2, f[i + 2]);
    }
    assert_eq!(u[1], v.count_ones());
    assert_eq!(u[2], v.reverse_bits());
    assert_eq!(u[3], 31 - v.leading_zeros());
    assert_eq!(u[4], v.trailing_zeros());
    assert_eq!(u[5], (v >> 4) & 0xff);
    assert_eq!(u[6], (v & !0xf00) | 0xf00);
    assert_eq!(u[7], 0x40ff_8000);
    assert_eq!(u[8], 1000, "x is the low half, 0x8001 = -1.0");
    assert_eq!(u[9], ((v as i32 >> 2) as f32).to_bits());
    assert_eq!(u[10], 2);
    assert_eq!(u[11], 0xc000_3e00);
}

#[test]
fn flat_dispatch_is_deterministic() {
    let p = corpus("counter");
    let go = || {
        let mut binds = [FlatBinding::new(0, 0, vec![0; 4]), FlatBinding::new(0, 1, vec![0; 4 * 128])];
        let s = run_dispatch_flat(&p, [2, 1, 1], &mut binds, &[], 32).unwrap();
        (s, binds[1].bytes.clone())
    };
    assert_eq!(go(), go());
}

#[test]
fn pipelines_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ComputePipeline>();
    check::<Module>();
    check::<Workgroup>();
}

/// A binding is atomic-only when every access to it is an atomic (load, store or
/// read-modify-write): the hazard detector takes its whole bound range as atomic accesses.
#[test]
fn bindings_accessed_only_through_atomics_are_told_apart() {
    let p = pipeline(
        r#"
        @group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>>;
        @group(0) @binding(1) var<storage, read_write> mixed: array<atomic<u32>>;
        @group(0) @binding(2) var<storage, read_write> plain: array<u32>;
        @group(0) @binding(3) var<storage, read_write> loaded: array<atomic<u32>>;
        struct Half { a: atomic<u32>, b: u32 }
        @group(0) @binding(4) var<storage, read_write> half: Half;
        @compute @workgroup_size(1)
        fn main() {
            let i = atomicAdd(&counter[0], 1u);
            atomicStore(&mixed[0], 1u);
            plain[i] = atomicLoad(&loaded[0]) + atomicLoad(&mixed[1]);
            atomicAdd(&half.a, 1u);
            half.b = 2u;
        }"#,
    );
    let got: Vec<(u32, bool, bool)> = p.bindings().iter().map(|b| (b.binding, b.written, b.atomic_only)).collect();
    assert_eq!(got, [(0, true, true), (1, true, true), (2, true, false), (3, false, true), (4, true, false)]);
}
