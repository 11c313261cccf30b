//! The WGSL corpus: every kernel in `tests/corpus/` run on the flat-memory driver with seeded
//! inputs, checked against a plain-Rust computation of the same result.

use sim_shader::{ComputePipeline, FlatBinding, FlatStats, Module, run_dispatch_flat};

/// Deterministic xorshift generator, so inputs are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn f32(&mut self) -> f32 {
        (self.next() % 2001) as f32 / 1000.0 - 1.0
    }
}

fn load(name: &str) -> ComputePipeline {
    let path = format!("{}/tests/corpus/{name}.wgsl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    let module = Module::from_wgsl(&src, name).unwrap_or_else(|e| panic!("{e}"));
    ComputePipeline::new(&module, "main").unwrap()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn to_f32(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
fn to_u32(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn run(p: &ComputePipeline, groups: [u32; 3], binds: &mut [FlatBinding], push: &[u8], sg: u32) -> FlatStats {
    run_dispatch_flat(p, groups, binds, push, sg).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn vector_add() {
    let p = load("vector_add");
    let n = 1000;
    let mut r = Rng(1);
    let a: Vec<f32> = (0..n).map(|_| r.f32()).collect();
    let b: Vec<f32> = (0..n).map(|_| r.f32()).collect();
    let mut binds = [FlatBinding::new(0, 0, f32s(&a)), FlatBinding::new(0, 1, f32s(&b)), FlatBinding::new(0, 2, vec![0; 4 * n])];
    run(&p, [(n as u32).div_ceil(64), 1, 1], &mut binds, &[], 32);
    let c = to_f32(&binds[2].bytes);
    for i in 0..n {
        assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "element {i}");
    }
}

#[test]
fn saxpy() {
    let p = load("saxpy");
    let n = 777usize;
    let mut r = Rng(2);
    let x: Vec<f32> = (0..n).map(|_| r.f32()).collect();
    let y: Vec<f32> = (0..n).map(|_| r.f32()).collect();
    let alpha = 1.75f32;
    let mut params = alpha.to_le_bytes().to_vec();
    params.extend((n as u32).to_le_bytes());
    let mut binds = [FlatBinding::new(0, 0, params), FlatBinding::new(0, 1, f32s(&x)), FlatBinding::new(0, 2, f32s(&y))];
    run(&p, [(n as u32).div_ceil(32), 1, 1], &mut binds, &[], 32);
    let out = to_f32(&binds[2].bytes);
    for i in 0..n {
        assert_eq!(out[i].to_bits(), (alpha * x[i] + y[i]).to_bits(), "element {i}");
    }
}

fn matmul_ref(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            c[row * n + col] = acc;
        }
    }
    c
}

#[test]
fn tiled_matmul() {
    let p = load("matmul");
    assert_eq!(p.workgroup_size(), [16, 16, 1]);
    assert_eq!(p.workgroup_memory_bytes(), 2 * 16 * 16 * 4);
    let n = 48usize;
    let mut r = Rng(3);
    let a: Vec<f32> = (0..n * n).map(|_| r.f32()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| r.f32()).collect();
    for sg in [32, 64, 16] {
        let mut binds = [
            FlatBinding::new(0, 0, f32s(&a)),
            FlatBinding::new(0, 1, f32s(&b)),
            FlatBinding::new(0, 2, vec![0; 4 * n * n]),
            FlatBinding::new(0, 3, (n as u32).to_le_bytes().to_vec()),
        ];
        let stats = run(&p, [(n / 16) as u32, (n / 16) as u32, 1], &mut binds, &[], sg);
        assert!(stats.exec.barriers > 0);
        let c = to_f32(&binds[2].bytes);
        let want = matmul_ref(&a, &b, n);
        for i in 0..n * n {
            assert_eq!(c[i].to_bits(), want[i].to_bits(), "element {i} with subgroup size {sg}");
        }
    }
}

#[test]
fn workgroup_reduction() {
    let p = load("reduce");
    let groups = 5;
    let mut r = Rng(4);
    let input: Vec<u32> = (0..256 * groups).map(|_| r.next() % 100_000).collect();
    let mut binds = [FlatBinding::new(0, 0, u32s(&input)), FlatBinding::new(0, 1, vec![0; 4 * groups])];
    run(&p, [groups as u32, 1, 1], &mut binds, &[], 32);
    let sums = to_u32(&binds[1].bytes);
    for g in 0..groups {
        let want: u32 = input[g * 256..(g + 1) * 256].iter().sum();
        assert_eq!(sums[g], want, "group {g}");
    }
}

#[test]
fn inclusive_prefix_sum() {
    let p = load("prefix_sum");
    let groups = 3;
    let mut r = Rng(5);
    let data: Vec<u32> = (0..256 * groups).map(|_| (r.next() % 2001) as i32 as u32).map(|v| (v as i32 - 1000) as u32).collect();
    let mut binds = [FlatBinding::new(0, 0, u32s(&data))];
    run(&p, [groups as u32, 1, 1], &mut binds, &[], 64);
    let out = to_u32(&binds[0].bytes);
    for g in 0..groups {
        let mut acc = 0i32;
        for i in 0..256 {
            acc = acc.wrapping_add(data[g * 256 + i] as i32);
            assert_eq!(out[g * 256 + i] as i32, acc, "group {g} index {i}");
        }
    }
}

#[test]
fn histogram_with_atomics() {
    let p = load("histogram");
    let n = 1000usize;
    let mut r = Rng(6);
    let values: Vec<u32> = (0..n).map(|_| r.next() & 0xff).collect();
    let mut binds = [FlatBinding::new(0, 0, u32s(&values)), FlatBinding::new(0, 1, vec![0; 64])];
    run(&p, [(n as u32).div_ceil(64), 1, 1], &mut binds, &[], 32);
    let bins = to_u32(&binds[1].bytes);
    let mut want = [0u32; 16];
    for v in &values {
        want[((v >> 4) & 15) as usize] += 1;
    }
    assert_eq!(bins, want);
}

#[test]
fn bitonic_sort_steps() {
    let p = load("bitonic");
    assert_eq!(p.push_constant_size(), 8);
    let n = 256u32;
    let mut r = Rng(7);
    let keys: Vec<u32> = (0..n).map(|_| r.next() % 1000).collect();
    let mut binds = [FlatBinding::new(0, 0, u32s(&keys))];
    let mut k = 2;
    while k <= n {
        let mut j = k / 2;
        while j > 0 {
            let mut push = k.to_le_bytes().to_vec();
            push.extend(j.to_le_bytes());
            run(&p, [n / 64, 1, 1], &mut binds, &push, 32);
            j /= 2;
        }
        k *= 2;
    }
    let mut want = keys.clone();
    want.sort();
    assert_eq!(to_u32(&binds[0].bytes), want);
}

#[test]
fn compare_exchange_counter() {
    let p = load("counter");
    let n = 256usize;
    let mut binds = [FlatBinding::new(0, 0, vec![0; 4]), FlatBinding::new(0, 1, vec![0xff; 4 * n])];
    run(&p, [(n / 64) as u32, 1, 1], &mut binds, &[], 32);
    assert_eq!(to_u32(&binds[0].bytes), vec![n as u32]);
    let mut owners = to_u32(&binds[1].bytes);
    owners.sort();
    assert_eq!(owners, (0..n as u32).collect::<Vec<_>>(), "every ticket taken exactly once");
}

fn divergent_ref(v: u32) -> u32 {
    if v % 7 == 3 {
        return 0xdead;
    }
    let mut acc = 0u32;
    let mut j = 0u32;
    loop {
        if j >= v % 13 {
            break;
        }
        j += 1;
        if j & 1 == 1 {
            continue;
        }
        let mut k = 0u32;
        loop {
            k += 1;
            if k > j {
                break;
            }
            if (k + v).is_multiple_of(3) {
                continue;
            }
            acc = acc.wrapping_add(k * j);
        }
    }
    match v % 4 {
        0 => acc += 1000,
        1 | 2 => acc *= 2,
        _ => acc ^= 0x55,
    }
    let mut steps = 0u32;
    let mut x = v % 50 + 1;
    let mut finished = false;
    for _ in 0..20 {
        if x == 1 {
            finished = true;
            break;
        }
        if x & 1 == 0 {
            x /= 2;
            steps += 1;
            continue;
        }
        x = 3 * x + 1;
        steps += 1;
    }
    if finished { acc + (steps << 16) } else { acc + 0x100_0000 }
}

#[test]
fn divergent_control_flow() {
    let p = load("divergent");
    let n = 256usize;
    let mut r = Rng(8);
    let input: Vec<u32> = (0..n).map(|i| if i < 100 { i as u32 } else { r.next() % 1000 }).collect();
    for sg in [32, 8, 1] {
        let mut binds = [FlatBinding::new(0, 0, u32s(&input)), FlatBinding::new(0, 1, vec![0; 4 * n])];
        run(&p, [(n / 32) as u32, 1, 1], &mut binds, &[], sg);
        let out = to_u32(&binds[1].bytes);
        for i in 0..n {
            assert_eq!(out[i], divergent_ref(input[i]), "input {} (index {i}, subgroup size {sg})", input[i]);
        }
    }
}

/// Every shader in the corpus folder loads (so a new file cannot be silently skipped).
#[test]
fn corpus_folder_loads() {
    let dir = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let src = std::fs::read_to_string(&path).unwrap();
            Module::from_wgsl(&src, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
    }
    assert!(count >= 9);
}
