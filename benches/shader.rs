//! Lane-operations per second of the shader interpreter on flat memory: the tiled matrix
//! multiply and the inclusive prefix sum from sim-shader's corpus, subgroups of 32 lanes.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_shader::{ComputePipeline, FlatBinding, Module, run_dispatch_flat};

fn pipeline(name: &str) -> ComputePipeline {
    let path = format!("{}/sim-shader/tests/corpus/{name}.wgsl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(path).expect("corpus shader");
    let module = Module::from_wgsl(&src, name).expect("shader loads");
    ComputePipeline::new(&module, "main").expect("entry point")
}

fn matmul_bindings(n: usize) -> Vec<FlatBinding> {
    let a: Vec<u8> = (0..n * n).flat_map(|i| ((i % 17) as f32 * 0.25).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n * n).flat_map(|i| ((i % 13) as f32 * 0.5).to_le_bytes()).collect();
    vec![
        FlatBinding::new(0, 0, a),
        FlatBinding::new(0, 1, b),
        FlatBinding::new(0, 2, vec![0; 4 * n * n]),
        FlatBinding::new(0, 3, (n as u32).to_le_bytes().to_vec()),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("shader");
    group.sample_size(10);

    let n = 64usize;
    let matmul = pipeline("matmul");
    let groups = [(n / 16) as u32, (n / 16) as u32, 1];
    let mut binds = matmul_bindings(n);
    let lane_ops = run_dispatch_flat(&matmul, groups, &mut binds, &[], 32).expect("runs").exec.lane_ops;
    group.throughput(Throughput::Elements(lane_ops));
    group.bench_function("matmul_64x64_lane_ops", |bench| {
        bench.iter(|| run_dispatch_flat(&matmul, groups, &mut binds, &[], 32).expect("runs"))
    });

    let scan = pipeline("prefix_sum");
    let blocks = 64u32;
    let data: Vec<u8> = (0..256 * blocks as i32).flat_map(|i| (i % 7 - 3).to_le_bytes()).collect();
    let mut binds = vec![FlatBinding::new(0, 0, data)];
    let lane_ops = run_dispatch_flat(&scan, [blocks, 1, 1], &mut binds, &[], 32).expect("runs").exec.lane_ops;
    group.throughput(Throughput::Elements(lane_ops));
    group.bench_function("prefix_sum_64x256_lane_ops", |bench| {
        bench.iter(|| run_dispatch_flat(&scan, [blocks, 1, 1], &mut binds, &[], 32).expect("runs"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
