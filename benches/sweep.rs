//! A sweep's wall time on one worker and on two, as a user runs them: `gpusim sweep` processes of
//! one thread each (`RAYON_NUM_THREADS=1`, as two Slurm tasks or two GNU parallel jobs of one
//! CPU each would be), the two shards then merged. The ratio is how well sweeps scale out.
//!
//! `cargo bench -p gpusim --bench sweep`

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

const SWEEP: &str = "examples/sweeps/nvidia-race-jitter.toml";

fn gpusim(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpusim"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).env("RAYON_NUM_THREADS", "1").stdout(Stdio::null());
    c
}

fn bench(c: &mut Criterion) {
    let dir: PathBuf = std::env::temp_dir().join(format!("gpusim-bench-sweep-{}", std::process::id()));
    let out = |name: &str| dir.join(name).display().to_string();
    let mut g = c.benchmark_group("sweep_nvidia_race_jitter");
    g.sample_size(10);
    g.bench_function("one_worker", |b| {
        b.iter(|| assert!(gpusim(&["sweep", SWEEP, "--out", &out("one")]).status().expect("gpusim").success()))
    });
    g.bench_function("two_workers", |b| {
        b.iter(|| {
            let workers: Vec<_> = (0..2).map(|i| gpusim(&["sweep", SWEEP, "--shard", &format!("{i}/2"), "--out", &out("shards")]).spawn().expect("gpusim")).collect();
            for mut w in workers {
                assert!(w.wait().expect("worker").success());
            }
            let shards: Vec<String> = (0..2).map(|i| Path::new(&out("shards")).join(format!("shard-{i}-of-2.json")).display().to_string()).collect();
            assert!(gpusim(&["merge", &shards[0], &shards[1], "--out", &out("merged")]).status().expect("gpusim").success());
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
