//! The example sweep, and a schedule exploration of one trace (`gpusim run --schedules`), cut
//! into shards and run by real schedulers, merged back into exactly the single-machine result:
//! as a Slurm job array on the one-node cluster `.ci/run` starts
//! (`scripts/slurm-cluster.sh`, which exports `SLURM_CONF`), and as GNU parallel jobs. Where a
//! scheduler is missing the test says so and skips, unless `GPUSIM_REQUIRE_CLUSTER=1` (which
//! `.ci/run` sets once it has installed and started them): then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

const SWEEP: &str = "examples/sweeps/l2-and-transfer-path.toml";
const FILES: [&str; 3] = ["sweep.csv", "cycles.svg", "corruption.svg"];
/// A race that corrupts in some of its seeded schedules on nvidia-like.
const RACE: &str = "tests/corpus/h100-probe/races/raw-dd-missing-256k-rev-spin0.json";
const RUN_FILES: [&str; 3] = ["report.json", "report.txt", "timeline.json"];
const SEEDS: &str = "12";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpusim-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory");
    d
}

/// Skips (printing why) or, where the scheduler is required, fails.
fn unavailable(test: &str, why: &str) {
    if std::env::var("GPUSIM_REQUIRE_CLUSTER").is_ok_and(|v| v == "1") {
        panic!("GPUSIM_REQUIRE_CLUSTER=1 but {why}");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipping {test}: {why}");
}

fn run_ok(c: &mut Command) -> String {
    let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(out.status.success(), "{c:?}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The single-machine run's files (in scratch directory `tag`-single).
fn single(tag: &str) -> Vec<Vec<u8>> {
    let d = scratch(&format!("{tag}-single"));
    run_ok(Command::new(env!("CARGO_BIN_EXE_gpusim")).current_dir(root()).args(["sweep", SWEEP, "--out"]).arg(&d));
    FILES.iter().map(|f| std::fs::read(d.join(f)).expect("single-machine output")).collect()
}

/// Merges `n` shards in `shards` into a new directory; its files.
fn merged(shards: &Path, n: usize) -> Vec<Vec<u8>> {
    let out = shards.join("merged");
    let files: Vec<PathBuf> = (0..n).map(|i| shards.join(format!("shard-{i}-of-{n}.json"))).collect();
    run_ok(Command::new(env!("CARGO_BIN_EXE_gpusim")).arg("merge").args(&files).arg("--out").arg(&out));
    FILES.iter().map(|f| std::fs::read(out.join(f)).expect("merged output")).collect()
}

/// `gpusim run RACE --profile nvidia-like --schedules SEEDS` on one machine (in scratch
/// directory `tag`-single-run): its report on standard output, then its files.
fn single_run(tag: &str) -> Vec<Vec<u8>> {
    let d = scratch(&format!("{tag}-single-run"));
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).current_dir(root()).args(["run", RACE, "--profile", "nvidia-like", "--schedules", SEEDS, "--out"]).arg(&d).output().expect("run gpusim");
    assert_eq!(out.status.code(), Some(1), "the race corrupts in some schedule: {}", String::from_utf8_lossy(&out.stderr));
    std::iter::once(out.stdout).chain(RUN_FILES.iter().map(|f| std::fs::read(d.join(f)).expect("single run's output"))).collect()
}

/// Merges the `n` run shards in `shards`: the report on standard output, then the files.
fn merged_run(shards: &Path, n: usize) -> Vec<Vec<u8>> {
    let out = shards.join("merged-run");
    let files: Vec<PathBuf> = (0..n).map(|i| shards.join(format!("run-shard-{i}-of-{n}.json"))).collect();
    let o = Command::new(env!("CARGO_BIN_EXE_gpusim")).current_dir(root()).arg("merge").args(&files).arg("--out").arg(&out).output().expect("run gpusim");
    assert_eq!(o.status.code(), Some(1), "the merged run reports the corruption: {}", String::from_utf8_lossy(&o.stderr));
    std::iter::once(o.stdout).chain(RUN_FILES.iter().map(|f| std::fs::read(out.join(f)).expect("merged run's output"))).collect()
}

#[test]
fn a_slurm_job_array_gives_the_single_machine_result() {
    let up = Command::new("sinfo").args(["-h", "-o", "%t"]).output();
    let state = up.as_ref().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    if !up.as_ref().is_ok_and(|o| o.status.success()) || !state.lines().any(|l| ["idle", "mix", "alloc"].contains(&l.trim())) {
        let why = match &up {
            Err(e) => format!("sinfo cannot run ({e}); install slurm-wlm and start a cluster (scripts/slurm-cluster.sh start DIR)"),
            Ok(o) => format!("no Slurm node takes jobs here (sinfo: {}{})", String::from_utf8_lossy(&o.stdout).trim(), String::from_utf8_lossy(&o.stderr).trim()),
        };
        return unavailable("a_slurm_job_array_gives_the_single_machine_result", &why);
    }
    let d = scratch("slurm");
    let job = d.join("sweep.sbatch");
    let gpusim = env!("CARGO_BIN_EXE_gpusim");
    std::fs::write(
        &job,
        format!(
            "#!/bin/bash\n#SBATCH --array=0-2\n#SBATCH --output={dir}/slurm-%A_%a.out\n#SBATCH --cpus-per-task=1\nset -e\ncd {root}\nexport RAYON_NUM_THREADS=1\nslice=\"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\"\n{gpusim} sweep {SWEEP} --shard \"$slice\" --out {dir}\n{gpusim} run {RACE} --profile nvidia-like --schedules {SEEDS} --shard \"$slice\" --out {dir}\n",
            dir = d.display(),
            root = root().display()
        ),
    )
    .expect("job script");
    // --wait: sbatch returns when every task of the array is done, failing if one failed.
    let out = run_ok(Command::new("timeout").args(["600", "sbatch", "--parsable", "--wait"]).arg(&job));
    let logs: String = (0..3).filter_map(|i| std::fs::read_to_string(d.join(format!("slurm-{}_{i}.out", out.trim()))).ok()).collect();
    assert!(logs.contains("shard 0/3") && logs.contains("shard 2/3"), "the tasks' logs: {logs}");
    assert_eq!(merged(&d, 3), single("slurm"), "the merged job array's files equal the single-machine run's");
    assert_eq!(merged_run(&d, 3), single_run("slurm"), "the merged exploration's report and files equal the single-machine run's");
}

#[test]
fn gnu_parallel_jobs_give_the_single_machine_result() {
    if !Command::new("parallel").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return unavailable("gnu_parallel_jobs_give_the_single_machine_result", "GNU parallel is not installed (apt-get install parallel)");
    }
    let d = scratch("parallel");
    let gpusim = env!("CARGO_BIN_EXE_gpusim");
    run_ok(
        Command::new("parallel")
            .current_dir(root())
            .env("RAYON_NUM_THREADS", "1")
            .args(["--will-cite", "--halt", "now,fail=1", gpusim, "sweep", SWEEP, "--shard", "{}/4", "--out"])
            .arg(&d)
            .args([":::", "0", "1", "2", "3"]),
    );
    assert_eq!(merged(&d, 4), single("parallel"), "the merged GNU parallel shards equal the single-machine run's");
    run_ok(
        Command::new("parallel")
            .current_dir(root())
            .args(["--will-cite", "--halt", "now,fail=1", gpusim, "run", RACE, "--profile", "nvidia-like", "--schedules", SEEDS, "--shard", "{}/4", "--out"])
            .arg(&d)
            .args([":::", "0", "1", "2", "3"]),
    );
    assert_eq!(merged_run(&d, 4), single_run("parallel"), "the merged exploration's report and files equal the single-machine run's");
}
