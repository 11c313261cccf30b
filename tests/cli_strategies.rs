//! `gpusim strategies`: on the shipped task graphs every strategy is proven (no hazard, no
//! corruption on any built-in profile) and timed, the full-barrier strategy never holds its
//! queue for less than the minimal global barriers (per pair, or one per pass) do, the written
//! traces check clean; a
//! strategy that is wrong is reported as wrong, not timed; and what is not a task graph is
//! refused with the reason.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const STRATEGIES: [&str; 7] = ["full", "per-pair", "buffer-ranges", "batched", "split-events", "tracker", "queue-per-pass"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).current_dir(root()).output().expect("run gpusim")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpusim-cli-strategies-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The fields of one CSV line (RFC 4180: a quoted field may hold commas and doubled quotes).
fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `strategies.csv` as (strategy, profile) → its columns by name.
fn table(dir: &Path) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("strategies.csv")).expect("strategies.csv");
    let mut lines = text.lines();
    let header = split_csv(lines.next().expect("header"));
    lines
        .map(|l| {
            let cells: BTreeMap<String, String> = header.iter().cloned().zip(split_csv(l)).collect();
            ((cells["strategy"].clone(), cells["profile"].clone()), cells)
        })
        .collect()
}

#[test]
fn every_strategy_is_proven_and_timed_on_the_shipped_task_graphs() {
    let profiles = String::from_utf8(gpusim(&["profile", "list"]).stdout).unwrap();
    for graph in ["compute-post-chain", "streaming-upload"] {
        let d = scratch(graph);
        let out = gpusim(&["strategies", &format!("examples/taskgraphs/{graph}.json"), "--out", d.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{graph}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let t = table(&d);
        let names: Vec<String> = t.keys().map(|k| k.1.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        assert_eq!(names.len(), 8, "every built-in profile: {names:?}");
        assert!(names.iter().all(|n| profiles.contains(n.as_str())));
        for s in STRATEGIES {
            for p in &names {
                let row = &t[&(s.to_string(), p.clone())];
                assert_eq!(row["verdict"], "proven", "{graph}: {s} on {p}");
                let n = |c: &str| -> u64 { row[c].parse().unwrap_or_else(|_| panic!("{graph} {s} {p} {c}: {}", row[c])) };
                // One queue is held at most the whole run (queue-per-pass holds two).
                assert!(n("cycles") > 0 && (s == "queue-per-pass" || n("barrier_stall_cycles") <= n("cycles")), "{graph}: {s} on {p}: {row:?}");
            }
            // The strategy's trace is an ordinary trace, clean under the hazard detector.
            let trace = d.join(format!("traces/{graph}-{s}.json"));
            let check = gpusim(&["check", trace.to_str().unwrap()]);
            assert_eq!(check.status.code(), Some(0), "{}: {}", trace.display(), String::from_utf8_lossy(&check.stdout));
        }
        for p in &names {
            let stall = |s: &str| -> u64 { t[&(s.to_string(), p.clone())]["barrier_stall_cycles"].parse().unwrap() };
            for minimal in ["batched", "per-pair"] {
                assert!(stall("full") >= stall(minimal), "{graph} on {p}: the full barrier held its queue {} cycles, {minimal} {}", stall("full"), stall(minimal));
            }
        }
        // A chart per measure: a group of bars per profile, a legend entry per strategy.
        for (file, what) in [("cycles.svg", "cycles"), ("barrier_stall_cycles.svg", "barrier stall cycles"), ("bytes_flushed.svg", "bytes flushed")] {
            let svg = std::fs::read_to_string(d.join(file)).expect(file);
            assert!(svg.contains(&format!("{graph}: {what} by strategy")), "{file} names the graph and the measure");
            for name in STRATEGIES.iter().copied().chain(names.iter().map(String::as_str)) {
                assert!(svg.contains(&format!("\n{name}\n</text>")), "{file}: {name}");
            }
        }
        assert!(std::fs::read_to_string(d.join("bytes_flushed.svg")).unwrap().contains(" KiB\n</text>"), "bytes in KiB");
    }
}

#[test]
fn a_wrong_strategy_is_reported_not_timed() {
    // Two buffers over one allocation: the tracker follows buffers, the dependency is in bytes.
    let d = scratch("aliased");
    let out = gpusim(&["strategies", "tests/corpus/taskgraphs/aliased-buffers.json", "--out", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "a wrong strategy: exit 1");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tracker              0  WRONG: 1 hazard(s), the first SYNC-HAZARD-READ-AFTER-WRITE at submit 1 cb0[1]"), "{text}");
    let t = table(&d);
    for ((s, p), row) in &t {
        if s == "tracker" {
            assert!(row["verdict"].starts_with("wrong: 1 hazard(s), the first SYNC-HAZARD-READ-AFTER-WRITE") && row["cycles"].is_empty(), "{p}: {row:?}");
        } else {
            assert_eq!(row["verdict"], "proven", "{s} on {p}");
        }
    }
}

#[test]
fn what_is_not_a_task_graph_is_refused() {
    for (trace, says) in [
        ("examples/traces/fill-then-dispatch-correct.json", "commands[1]: vkCmdPipelineBarrier2 in a task graph; its passes carry no synchronization"),
        ("examples/traces/two-queues-correct.json", "a task graph has one queue_submit; this trace has 2"),
    ] {
        let out = gpusim(&["strategies", trace, "--out", scratch("refused").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{trace}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says), "{trace}: {e}");
    }
}

/// The Khronos validation layer, replaying the strategies' traces on a real Vulkan driver, is a
/// second witness: it finds no hazard in any strategy gpusim proved, and finds the one in the
/// tracker's trace of the aliased buffers that gpusim reported.
#[test]
fn the_validation_layer_agrees_with_the_proofs() {
    if let Some(reason) = support::vulkan::unavailable() {
        return support::vulkan::skip("the_validation_layer_agrees_with_the_proofs", &reason);
    }
    for (graph, wrong) in [("examples/taskgraphs/streaming-upload.json", None), ("tests/corpus/taskgraphs/aliased-buffers.json", Some("tracker"))] {
        let d = scratch(&format!("layer-{}", Path::new(graph).file_stem().unwrap().to_string_lossy()));
        gpusim(&["strategies", graph, "--out", d.to_str().unwrap(), "--prove-schedules", "1", "--schedules", "1"]);
        let name = Path::new(graph).file_stem().unwrap().to_string_lossy().into_owned();
        for s in STRATEGIES {
            let trace = d.join(format!("traces/{name}-{s}.json"));
            let out = gpusim(&["replay", "--validate", "--iterations", "1", "--report", "json", trace.to_str().unwrap()]);
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: {e}: {}", trace.display(), String::from_utf8_lossy(&out.stderr)));
            let hazards: Vec<&str> = r["hazards"].as_array().expect("hazards").iter().filter_map(|h| h["id"].as_str()).collect();
            assert_eq!(r["validation_errors"].as_array().map(Vec::len), Some(0), "{name} {s}: {r}");
            if Some(s) == wrong {
                assert_eq!(hazards, ["SYNC-HAZARD-READ-AFTER-WRITE"], "{name} {s}");
            } else {
                assert!(hazards.is_empty(), "{name} {s}: {hazards:?}");
            }
        }
    }
}

#[test]
fn profiles_given_are_the_groups_and_the_columns() {
    let d = scratch("two-profiles");
    let out = gpusim(&["strategies", "examples/taskgraphs/compute-post-chain.json", "--profile", "seed-l2", "--profile", "examples/profiles/seed-l2-write-back-l1.toml", "--out", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("clean on each of 2 profiles") && text.contains("seed-l2 seed-l2-write-back-l1\n"), "{text}");
    let t = table(&d);
    let profiles: std::collections::BTreeSet<&str> = t.keys().map(|k| k.1.as_str()).collect();
    assert_eq!(profiles.into_iter().collect::<Vec<_>>(), ["seed-l2", "seed-l2-write-back-l1"]);
    assert_eq!(t.len(), 2 * STRATEGIES.len());
    for file in ["cycles.svg", "barrier_stall_cycles.svg", "bytes_flushed.svg"] {
        let svg = std::fs::read_to_string(d.join(file)).unwrap();
        for group in ["seed-l2", "seed-l2-write-back-l1"] {
            assert!(svg.contains(&format!("\n{group}\n</text>")), "{file}: the group of {group}");
        }
        assert!(!svg.contains("\nradv-gfx9\n</text>"), "{file}: only the profiles given");
    }
}

#[test]
fn a_bad_profile_is_refused_before_anything_runs() {
    for (profile, says) in [
        ("nope", "--profile nope: not a built-in profile (seed-l2, "),
        ("examples/profiles/nope.toml", "--profile examples/profiles/nope.toml: not a built-in profile"),
        ("tests/cli_strategies.rs", "--profile tests/cli_strategies.rs:"),
    ] {
        let d = scratch("bad-profile");
        let out = gpusim(&["strategies", "examples/taskgraphs/streaming-upload.json", "--profile", "seed-l2", "--profile", profile, "--out", d.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{profile}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says) && e.lines().count() == 1, "{profile}: {e}");
        assert!(!d.exists(), "{profile}: nothing written");
    }
    let out = gpusim(&["strategies", "examples/taskgraphs/streaming-upload.json", "--profile", "ideal", "--profile", "ideal", "--out", scratch("twice").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a profile named `ideal` is given already"));
}
