//! What a report costs as stale reads grow: grouping findings into mistakes (sorting their
//! ranges, O(n log n) in the findings), and a whole missing-barrier run whose stale reads grow
//! with its buffer (each read costs one ordered-map update of the merged ranges, O(log n)).
//!
//! `cargo bench -p gpusim --bench report`

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sim_core::api::{CommandRef, Writer};
use sim_core::engine::{Finding, ReadKey, mistakes, run_workload};
use sim_core::profile::Profile;

/// `n` findings of one dispatch, four words each, over eight (writer seen, cache) pairs, in the
/// scattered order subgroups finish in.
fn findings(n: usize) -> Vec<Finding> {
    let at = CommandRef { submit: 0, batch: 0, command_buffer: "cb0".into(), command: 1 };
    let writer = |k: usize| if k == 0 { Writer::Initial } else { Writer::Command(CommandRef { command: k, ..at.clone() }) };
    (0..n)
        .map(|i| {
            // A multiplicative hash of i: offsets in no order, none repeated.
            let slot = (i as u64).wrapping_mul(0x9E37_79B9) % (n as u64 * 2);
            Finding {
                at: at.clone(),
                resource: "A".into(),
                offset: slot * 16,
                size: 16,
                seen_write: writer(i % 4),
                expected_write: writer(9),
                via: if i % 8 < 4 { "L1".into() } else { "L2".into() },
                key: ReadKey { inst: 1, a: (i / 64) as u32, b: (i / 32 % 2) as u32, c: 0, d: 0 },
                seen: vec![0; 16],
                expected: vec![7; 16],
                cycle: i as u64,
                kind: "race",
                diverged: false,
                hazard: Some(0),
                table_rows: None,
                aliasing: None,
            }
        })
        .collect()
}

fn group_mistakes(c: &mut Criterion) {
    let mut g = c.benchmark_group("report/mistakes");
    for n in [1 << 10, 1 << 13, 1 << 16] {
        let f = findings(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &f, |b, f| b.iter(|| black_box(mistakes(f).len())));
    }
    g.finish();
}

/// examples/traces/fill-then-dispatch-missing.json with its buffers grown to `bytes`.
fn missing_barrier(bytes: u64) -> sim_core::api::Workload {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("examples/traces/fill-then-dispatch-missing.json")).expect("example")).expect("json");
    for list in ["memory", "buffers"] {
        for m in t[list].as_array_mut().expect("list") {
            m["size"] = bytes.into();
        }
    }
    t["command_buffers"][0]["commands"][1]["group_count"] = serde_json::json!([bytes / 256, 1, 1]);
    let dir = std::env::temp_dir().join(format!("gpusim-bench-report-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("shaders")).expect("temp dir");
    std::fs::copy(root.join("examples/traces/shaders/add_one.wgsl"), dir.join("shaders/add_one.wgsl")).expect("shader");
    let path = dir.join("trace.json");
    std::fs::write(&path, t.to_string()).expect("trace");
    sim_core::trace::load(&path).expect("loads").workload
}

fn whole_run(c: &mut Criterion) {
    let profile = Profile::builtin("seed-l2").expect("built-in profile");
    let mut g = c.benchmark_group("report/missing_barrier_run");
    g.sample_size(10);
    for kib in [64u64, 256, 1024] {
        let w = missing_barrier(kib << 10);
        let probe = run_workload(&w, &profile, 0).expect("runs");
        eprintln!("{kib} KiB: {} stale reads, {} findings, {} mistakes, {} bytes in merged ranges", probe.stale_reads, probe.findings.len(), probe.mistakes.len(), probe.stale_ranges.iter().flat_map(|s| &s.ranges).map(|r| r.1).sum::<u64>());
        g.throughput(Throughput::Elements(probe.stale_reads));
        g.bench_with_input(BenchmarkId::from_parameter(format!("{kib}KiB")), &w, |b, w| b.iter(|| black_box(run_workload(w, &profile, 0).expect("runs").stale_reads)));
    }
    g.finish();
}

criterion_group!(benches, group_mistakes, whole_run);
criterion_main!(benches);
