//! `gpusim sweep` and `gpusim merge`: the example sweep's table, the same bytes whatever the
//! thread count and however it is sharded, and clear errors for bad sweeps, slices and shards.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SWEEP: &str = "examples/sweeps/l2-and-transfer-path.toml";
const FILES: [&str; 3] = ["sweep.csv", "cycles.svg", "corruption.svg"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn gpusim(args: &[&str], threads: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpusim"));
    c.args(args).current_dir(root());
    if let Some(n) = threads {
        c.env("RAYON_NUM_THREADS", n.to_string());
    }
    c.output().expect("run gpusim")
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fail(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpusim-cli-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    FILES.iter().map(|f| std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(f).display()))).collect()
}

/// The single-machine run of the example sweep, with `threads` threads, into scratch `name`.
fn whole(name: &str, threads: usize) -> PathBuf {
    let d = scratch(&format!("{name}-{threads}"));
    ok(&gpusim(&["sweep", SWEEP, "--out", d.to_str().unwrap()], Some(threads)));
    d
}

#[test]
fn the_example_sweep_tabulates_every_point() {
    let d = whole("table", 2);
    let csv = String::from_utf8(files(&d).remove(0)).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "point,trace,machine.l2.cache.size_bytes,machine.transfer.path,schedules,corrupted_schedules,cycles_min,cycles_median,cycles_max,stale_reads,corrupted_bytes,barrier_stall_cycles,bytes_flushed,lines_invalidated,\
             L1_hits,L1_misses,L1_hit_rate,T$_hits,T$_misses,T$_hit_rate,U$_hits,U$_misses,U$_hit_rate,L2_hits,L2_misses,L2_hit_rate,ROP$_hits,ROP$_misses,ROP$_hit_rate"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    for r in &rows {
        assert_eq!(r.len(), 29, "{r:?}");
        // Each cache's hit rate is its hits over its accesses, empty where nothing accessed it.
        for k in (14..29).step_by(3) {
            let (hits, misses): (u64, u64) = (r[k].parse().unwrap(), r[k + 1].parse().unwrap());
            if hits + misses == 0 {
                assert_eq!(r[k + 2], "", "{r:?}");
            } else {
                let rate: f64 = r[k + 2].parse().unwrap();
                assert!((rate - hits as f64 / (hits + misses) as f64).abs() < 5e-5, "column {k}: {r:?}");
            }
        }
        // Every dispatch's loads go through the L2, whose hits and misses a larger size moves.
        assert!(r[23].parse::<u64>().unwrap() + r[24].parse::<u64>().unwrap() > 0, "L2 accesses: {r:?}");
    }
    assert_eq!(rows.len(), 4 * 6, "4 traces x 3 sizes x 2 paths");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[0], i.to_string());
        let n = |k: usize| -> u64 { r[k].parse().unwrap() };
        assert_eq!(n(4), 4, "schedules");
        assert!(n(6) <= n(7) && n(7) <= n(8), "min <= median <= max: {r:?}");
        // A correct program is clean on every point; a missing barrier before a dispatch's read
        // corrupts on every one.
        if r[1].contains("-correct") {
            assert_eq!((n(5), n(9), n(10)), (0, 0, 0), "{r:?}");
        }
        if r[1].contains("fill-then-dispatch-missing") {
            assert_eq!(n(5), 4, "{r:?}");
        }
        // Nothing goes through the L2 to be written back when the transfer engine writes VRAM
        // and the program's only writer is the fill.
        if r[1].contains("fill-then-dispatch-correct") && r[3] == "direct-to-vram" {
            assert_eq!(n(12), 0, "{r:?}");
        }
    }
    // A bigger L2 has more lines for a barrier's maintenance to walk.
    let cycles = |size: &str, path: &str| -> u64 { rows.iter().find(|r| r[1].contains("write-after-read-correct") && r[2] == size && r[3] == path).unwrap()[7].parse().unwrap() };
    assert!(cycles("16384", "through-l2") < cycles("1048576", "through-l2"));
    for svg in &files(&d)[1..] {
        let text = std::str::from_utf8(svg).unwrap();
        assert!(text.starts_with("<svg") && text.contains("l2-and-transfer-path") && text.contains("write-after-read-correct"), "a chart with its title and legend");
    }
}

#[test]
fn the_thread_count_changes_no_byte() {
    assert_eq!(files(&whole("threads", 1)), files(&whole("threads", 2)));
}

#[test]
fn shards_merge_into_the_single_machine_run() {
    let single = whole("single", 2);
    let d = scratch("shards");
    let ds = d.to_str().unwrap();
    for i in 0..3 {
        let out = ok(&gpusim(&["sweep", SWEEP, "--shard", &format!("{i}/3"), "--out", ds], Some(1)));
        assert!(out.contains(&format!("shard {i}/3")), "{out}");
    }
    let shard = |i: usize| d.join(format!("shard-{i}-of-3.json")).display().to_string();
    let merged = scratch("merged");
    // In any order.
    ok(&gpusim(&["merge", &shard(2), &shard(0), &shard(1), "--out", merged.to_str().unwrap()], None));
    assert_eq!(files(&merged), files(&single), "merged tables and charts equal the single run's, byte for byte");

    // Every shard once, of one sweep.
    let e = fail(&gpusim(&["merge", &shard(0), &shard(1), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("shards missing: 2/3"), "{e}");
    let e = fail(&gpusim(&["merge", &shard(0), &shard(0), &shard(1), &shard(2), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("shard 0/3 again"), "{e}");
    let other = d.join("other.json");
    let text = std::fs::read_to_string(shard(1)).unwrap();
    let fp = serde_json::from_str::<serde_json::Value>(&text).unwrap()["fingerprint"].as_str().unwrap().to_string();
    std::fs::write(&other, text.replace(&fp, "0123456789abcdef")).unwrap();
    let e = fail(&gpusim(&["merge", &shard(0), other.to_str().unwrap(), &shard(2), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("fingerprint 0123456789abcdef") && e.contains("same traces, profile and gpusim"), "{e}");
    // A shard of the format before the records held cache hits (version 1, no `caches`).
    let mut old_format = serde_json::from_str::<serde_json::Value>(&text).unwrap();
    old_format["gpusim_sweep_shard"] = 1.into();
    for r in old_format["records"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("caches");
    }
    std::fs::write(&other, serde_json::to_string(&old_format).unwrap()).unwrap();
    let e = fail(&gpusim(&["merge", &shard(0), other.to_str().unwrap(), &shard(2), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("other.json: gpusim_sweep_shard 1 is not a format this gpusim reads (2)"), "{e}");
    std::fs::write(&other, "{\"gpusim_sweep_shard\": 1,").unwrap();
    let e = fail(&gpusim(&["merge", other.to_str().unwrap(), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("other.json:1:") && e.contains("not a shard file"), "{e}");
}

#[test]
fn bad_slices_are_refused() {
    for (slice, says) in [("3/3", "numbered from 0 to 2"), ("1/0", "0 slices"), ("a/2", "not a slice number"), ("2", "is not I/N")] {
        let out = gpusim(&["sweep", SWEEP, "--shard", slice], None);
        assert_eq!(out.status.code(), Some(2));
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says), "{slice}: {e}");
    }
}

/// A sweep file beside the example traces, with `body` after the name and base profile.
fn bad_sweep(name: &str, body: &str) -> String {
    let d = scratch(name);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("bad.toml");
    let traces = root().join("examples/traces/fill-then-dispatch-correct.json");
    std::fs::write(&p, format!("name = \"bad\"\nprofile = \"seed-l2\"\ntraces = [\"{}\"]\n{body}", traces.display())).unwrap();
    fail(&gpusim(&["sweep", p.to_str().unwrap(), "--out", d.join("out").to_str().unwrap()], None))
}

#[test]
fn bad_sweep_files_say_what_and_where() {
    let e = bad_sweep("unknown-key", "schedule = 3\n");
    assert!(e.contains("bad.toml:4:1: unknown field `schedule`"), "{e}");
    let e = bad_sweep("bad-path", "[[vary]]\nfield = \"machine.l3.size_bytes\"\nvalues = [1]\n");
    assert!(e.contains("point 0 (machine.l3.size_bytes = 1): `machine.l3` is not a table of the profile"), "{e}");
    let e = bad_sweep("unknown-leaf", "[[vary]]\nfield = \"machine.l2.cache.size_byts\"\nvalues = [1]\n");
    assert!(e.contains("size_byts") && e.contains("unknown field"), "{e}");
    let e = bad_sweep("bad-value", "[[vary]]\nfield = \"machine.l2.cache.line_bytes\"\nvalues = [64, 48]\n");
    assert!(e.contains("point 1 (machine.l2.cache.line_bytes = 48): machine.l2.cache.line_bytes: 48 is not a power of two"), "{e}");
    let e = bad_sweep("no-values", "[[vary]]\nfield = \"machine.l2.cache.line_bytes\"\nvalues = []\n");
    assert!(e.contains("vary[0].values: 0 values"), "{e}");
    let e = bad_sweep("too-many", "[[vary]]\nfield = \"seed\"\nvalues = [1,2,3,4,5,6,7,8,9,10]\n[[vary]]\nfield = \"timing.l1_hit_cycles\"\nvalues = [1,2,3,4,5,6,7,8,9,10]\n[[vary]]\nfield = \"timing.l2_hit_cycles\"\nvalues = [1,2,3,4,5,6,7,8,9,10]\n[[vary]]\nfield = \"timing.barrier_cycles\"\nvalues = [1,2,3,4,5,6,7,8,9,10]\n[[vary]]\nfield = \"timing.vram_latency_cycles\"\nvalues = [1,2,3,4,5,6,7,8,9,10,11]\n");
    assert!(e.contains("110000 points") && e.contains("at most 100000"), "{e}");
    let e = bad_sweep("schedules", "schedules = 0\n");
    assert!(e.contains("schedules: 0 is not between 1 and"), "{e}");
    let d = scratch("missing-trace");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("bad.toml"), "name = \"bad\"\nprofile = \"seed-l2\"\ntraces = [\"nope.json\"]\n").unwrap();
    let e = fail(&gpusim(&["sweep", d.join("bad.toml").to_str().unwrap()], None));
    assert!(e.contains("bad.toml: traces[0]: ") && e.contains("nope.json"), "{e}");
}

#[test]
fn run_shards_merge_into_the_single_runs_report() {
    let race = "tests/corpus/h100-probe/races/raw-dd-missing-256k-rev-spin0.json";
    let single = scratch("run-single");
    let one = gpusim(&["run", race, "--profile", "nvidia-like", "--schedules", "9", "--out", single.to_str().unwrap()], None);
    assert_eq!(one.status.code(), Some(1), "{}", String::from_utf8_lossy(&one.stderr));
    let d = scratch("run-shards");
    for i in 0..3 {
        ok(&gpusim(&["run", race, "--profile", "nvidia-like", "--schedules", "9", "--shard", &format!("{i}/3"), "--out", d.to_str().unwrap()], Some(1)));
    }
    let shard = |i: usize| d.join(format!("run-shard-{i}-of-3.json")).display().to_string();
    let merged = scratch("run-merged");
    let m = gpusim(&["merge", &shard(1), &shard(2), &shard(0), "--out", merged.to_str().unwrap()], None);
    assert_eq!(m.status.code(), Some(1), "{}", String::from_utf8_lossy(&m.stderr));
    assert_eq!(m.stdout, one.stdout, "the merged report on standard output");
    for f in ["report.json", "report.txt", "timeline.json"] {
        assert_eq!(std::fs::read(merged.join(f)).unwrap(), std::fs::read(single.join(f)).unwrap(), "{f}");
    }
    // A shard needs somewhere to go; shards of other explorations and sweeps do not mix.
    let e = fail(&gpusim(&["run", race, "--schedules", "9", "--shard", "0/3"], None));
    assert!(e.contains("give --out DIR"), "{e}");
    let other = scratch("run-other");
    ok(&gpusim(&["run", race, "--profile", "nvidia-like", "--schedules", "9", "--seed", "1", "--shard", "1/3", "--out", other.to_str().unwrap()], None));
    let e = fail(&gpusim(&["merge", &shard(0), other.join("run-shard-1-of-3.json").to_str().unwrap(), &shard(2), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("--seed 1") && e.contains("shards of one exploration merge"), "{e}");
    ok(&gpusim(&["sweep", SWEEP, "--shard", "0/2", "--out", other.to_str().unwrap()], None));
    let e = fail(&gpusim(&["merge", &shard(0), other.join("shard-0-of-2.json").to_str().unwrap(), "--out", merged.to_str().unwrap()], None));
    assert!(e.contains("not a shard file of gpusim run"), "{e}");
}
