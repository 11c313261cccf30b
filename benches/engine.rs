//! Whole-simulator throughput: simulated thread-instructions (lane-operations) per host second
//! on workloads with real memory traffic, the reference run's cost measured separately.
//!
//! `cargo bench -p gpusim --bench engine`

use std::collections::HashSet;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_core::engine::stream::Stream;
use sim_core::engine::{reference, run, run_workload};
use sim_core::generators::samples;
use sim_core::api::{Program, Workload};
use sim_core::profile::Profile;

fn bench_workload(c: &mut Criterion, name: &str, w: &Workload) {
    let profile = Profile::builtin("seed-l2").expect("built-in profile");
    let probe = run_workload(w, &profile, 0).expect("workload runs");
    assert!(!probe.corrupted(), "{name} must match its reference");
    eprintln!("{name}: {} lane-ops, {} instructions, {} simulated cycles", probe.lane_ops, probe.instructions, probe.cycles);

    let prog = Program::new(w).expect("valid workload");
    let stream = Stream::lower(&prog).expect("stream");
    let truth = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &HashSet::new()).expect("reference runs").truth;

    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.throughput(Throughput::Elements(probe.lane_ops));
    // The simulated run alone: the figure of merit.
    g.bench_function("simulated_run", |b| {
        b.iter(|| black_box(run::Sim::new(&prog, &stream, &profile, Some(&truth), 0).expect("sim").run().expect("run").cycles))
    });
    // The reference run alone, on flat memory.
    g.bench_function("reference_run", |b| {
        b.iter(|| black_box(reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &HashSet::new()).expect("reference").truth.fingerprints.len()))
    });
    // Everything a user waits for: reference, simulation, comparison.
    g.bench_function("run_workload", |b| b.iter(|| black_box(run_workload(w, &profile, 0).expect("run").cycles)));
    g.finish();

    // Simulated cycles per host second, from one timed run.
    let t = std::time::Instant::now();
    let cycles = run::Sim::new(&prog, &stream, &profile, Some(&truth), 0).expect("sim").run().expect("run").cycles;
    eprintln!("{name}: {:.1} M simulated cycles/s", cycles as f64 / t.elapsed().as_secs_f64() / 1e6);
}

fn engine(c: &mut Criterion) {
    bench_workload(c, "engine/matmul128", &samples::matmul(128).expect("matmul"));
    bench_workload(c, "engine/stream_4MiB", &samples::stream(4 << 20).expect("stream"));
    // 1,048,576 loads spread over 64 MiB: every one misses the L1 and nearly every one the L2
    // (the table's 64 MiB fill is about a third of the simulated run).
    bench_workload(c, "engine/gather_64MiB", &samples::gather(64 << 20, 1 << 18).expect("gather"));
}

criterion_group!(benches, engine);
criterion_main!(benches);
