//! `gpusim run --timeline`: every thread of the timeline holds slices that nest properly (any
//! two are disjoint or one contains the other, as a viewer needs), workgroups sit on their CU's
//! slots, commands and sync nodes that ran at once on one queue get lanes of their own, and
//! each finding is an instant event at the cycle of its stale read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().unwrap()
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces").join(name).to_string_lossy().into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpusim-cli-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A time of the timeline in whole nanoseconds, as Perfetto reads it (`llround(µs * 1000)`).
fn ns(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 1000.0).round() as i64
}

/// A run's JSON report and its timeline.
fn run(trace: &str, name: &str, extra: &[&str]) -> (Value, Value) {
    let path = tmp(name);
    let mut args = vec!["run", trace, "--report", "json", "--timeline", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = gpusim(&args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let timeline: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (report, timeline)
}

/// A slice: (start, end, event), times in nanoseconds.
type Slice<'a> = (i64, i64, &'a Value);

/// The slices of each (pid, tid).
fn slices(timeline: &Value) -> BTreeMap<(u64, u64), Vec<Slice<'_>>> {
    let mut by_thread: BTreeMap<(u64, u64), Vec<Slice<'_>>> = BTreeMap::new();
    for e in timeline["traceEvents"].as_array().unwrap() {
        if e["ph"] == "X" {
            let (start, dur) = (ns(&e["ts"]), ns(&e["dur"]));
            assert!(dur >= 0, "{e}");
            by_thread.entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap())).or_default().push((start, start + dur, e));
        }
    }
    by_thread
}

/// Thread names by (pid, tid).
fn thread_names(timeline: &Value) -> BTreeMap<(u64, u64), String> {
    timeline["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| ((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()), e["args"]["name"].as_str().unwrap().to_string()))
        .collect()
}

/// Pairs of slices of one thread that partly overlap: each starts inside the other.
fn partly_overlapping(timeline: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    for (thread, mut v) in slices(timeline) {
        // By start, the longer first: a slice that contains the next comes before it.
        v.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        // The slices still open at each start, innermost last.
        let mut open: Vec<(i64, i64, &Value)> = Vec::new();
        for (s, e, ev) in v {
            while open.last().is_some_and(|&(_, end, _)| end <= s) {
                open.pop();
            }
            if let Some(&(os, oe, oev)) = open.last()
                && e > oe
            {
                bad.push(format!("{thread:?}: [{os}, {oe}) {} and [{s}, {e}) {}", oev["name"], ev["name"]));
                continue;
            }
            open.push((s, e, ev));
        }
    }
    bad
}

/// Every slice's thread is named, no two slices of a thread partly overlap, and each cache
/// operation lies inside a barrier slice of its thread.
fn check_threads(timeline: &Value) {
    let names = thread_names(timeline);
    let all = slices(timeline);
    for thread in all.keys() {
        assert!(names.contains_key(thread), "thread {thread:?} has slices but no name");
    }
    let bad = partly_overlapping(timeline);
    assert!(bad.is_empty(), "{} pairs of slices partly overlap, e.g. {:?}", bad.len(), &bad[..bad.len().min(5)]);
    for (thread, v) in &all {
        for &(s, e, op) in v.iter().filter(|(_, _, ev)| ev["cat"] == "cache-op") {
            assert!(v.iter().any(|&(bs, be, b)| b["cat"] == "barrier" && bs <= s && e <= be), "{thread:?}: cache operation outside every barrier: {op}");
        }
    }
}

/// One `finding` instant per finding of the report, at its cycle, saying what was read.
fn check_findings(report: &Value, timeline: &Value) {
    let mhz = timeline["otherData"]["core_clock_mhz"].as_f64().unwrap();
    let findings = report["corruption"]["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "the run shows no findings: {report}");
    let events = timeline["traceEvents"].as_array().unwrap();
    let marks: Vec<&Value> = events.iter().filter(|e| e["ph"] == "i" && e["cat"] == "finding").collect();
    assert_eq!(marks.len(), findings.len(), "one instant per finding");
    let names = thread_names(timeline);
    let mut unmatched: Vec<&Value> = marks.clone();
    for f in findings {
        let cycle = f["cycle"].as_u64().unwrap();
        let at = (cycle as f64 * 1000.0 / mhz).round() as i64;
        let found = unmatched.iter().position(|m| {
            let a = &m["args"];
            a["cycle"] == f["cycle"] && a["resource"] == f["resource"] && a["offset"] == f["offset"] && a["size"] == f["size"] && a["via"] == f["via"] && a["expected_hex"] == f["expected_hex"] && a["seen_hex"] == f["seen_hex"]
        });
        let m = unmatched.remove(found.unwrap_or_else(|| panic!("no instant for finding {f}")));
        assert_eq!(ns(&m["ts"]), at, "finding at cycle {cycle} ({mhz} MHz): {m}");
        assert!(m["s"] == "t" || m["s"] == "g", "{m}");
        let thread = (m["pid"].as_u64().unwrap(), m["tid"].as_u64().unwrap());
        assert_eq!(names.get(&thread).map(String::as_str), Some("findings"), "{m}");
        let command = m["args"]["command"].as_str().unwrap();
        assert!(command.starts_with(f["command"].as_str().unwrap()), "{m} for {f}");
        assert!(m["name"].as_str().unwrap().contains(f["resource"].as_str().unwrap()), "{m}");
        for k in ["saw", "expected"] {
            assert!(m["args"][k].is_string(), "{m} lacks args.{k}");
        }
    }
}

#[test]
fn a_stale_read_is_marked_and_slices_nest() {
    let (report, timeline) = run(&example("fill-then-dispatch-missing.json"), "fill-then-dispatch-missing.json", &["--profile", "seed-l2"]);
    check_threads(&timeline);
    check_findings(&report, &timeline);
    // The fill and the dispatch ran at once on q0: each on a lane of its own.
    let names = thread_names(&timeline);
    let events = timeline["traceEvents"].as_array().unwrap();
    let command_threads: BTreeSet<String> = events.iter().filter(|e| e["cat"] == "command").map(|e| names[&(e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap())].clone()).collect();
    assert_eq!(command_threads, BTreeSet::from(["q0".to_string(), "q0 (overlap 1)".to_string()]));
    // The first submitted takes the first lane.
    let fill = events.iter().find(|e| e["cat"] == "command" && e["name"] == "vkCmdFillBuffer").unwrap();
    assert_eq!(names[&(fill["pid"].as_u64().unwrap(), fill["tid"].as_u64().unwrap())], "q0");
}

#[test]
fn two_queues_get_their_own_lanes() {
    let (report, timeline) = run(&example("two-queues-missing.json"), "two-queues-missing.json", &[]);
    check_threads(&timeline);
    check_findings(&report, &timeline);
}

#[test]
fn a_clean_run_has_no_findings_thread() {
    let (report, timeline) = run(&example("dispatch-then-copy-correct.json"), "dispatch-then-copy-correct.json", &["--profile", "seed-vram"]);
    assert_eq!(report["corruption"]["findings"], serde_json::json!([]));
    check_threads(&timeline);
    assert!(timeline["traceEvents"].as_array().unwrap().iter().all(|e| e["ph"] != "i"), "instants in a clean run");
}

/// A 1 MiB fill and a dispatch of 4,096 workgroups reading it with no barrier between: each CU
/// holds several workgroups at once, and many reads are stale.
#[test]
fn many_workgroups_on_one_cu_each_get_a_slot() {
    let shader = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces/shaders/add_one.wgsl");
    let trace = format!(
        r#"{{"gpusim_trace": 1, "name": "big-fill-then-dispatch-missing",
  "memory": [{{"id": "A_mem", "size": 1048576, "properties": "DEVICE_LOCAL"}}, {{"id": "B_mem", "size": 1048576, "properties": "DEVICE_LOCAL"}}],
  "buffers": [{{"id": "A", "memory": "A_mem", "size": 1048576}}, {{"id": "B", "memory": "B_mem", "size": 1048576}}],
  "shaders": [{{"id": "add_one", "wgsl_file": {:?}}}],
  "fences": ["f0"],
  "command_buffers": [{{"id": "cb0", "commands": [
    {{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 0, "size": "WHOLE_SIZE", "data": 7}},
    {{"cmd": "dispatch", "shader": "add_one", "group_count": [4096, 1, 1], "bindings": [{{"set": 0, "binding": 0, "buffer": "A"}}, {{"set": 0, "binding": 1, "buffer": "B"}}]}}
  ]}}],
  "timeline": [{{"op": "queue_submit", "queue": "q0", "command_buffers": ["cb0"], "fence": "f0"}}, {{"op": "wait_for_fences", "fences": ["f0"]}}]}}"#,
        shader.to_string_lossy()
    );
    let path = tmp("big.json");
    std::fs::write(&path, trace).unwrap();
    let (report, timeline) = run(path.to_str().unwrap(), "big-timeline.json", &["--profile", "seed-l2"]);
    check_threads(&timeline);
    check_findings(&report, &timeline);
    let names = thread_names(&timeline);
    let all = slices(&timeline);
    let workgroups: Vec<(&(u64, u64), &Slice)> = all.iter().flat_map(|(t, v)| v.iter().filter(|s| s.2["cat"] == "workgroup").map(move |s| (t, s))).collect();
    assert_eq!(workgroups.len(), 4096);
    // Each workgroup on a thread `CU c slot s`, s below the profile's 4 slots; on one CU, the
    // slots' slices overlapped in time (several workgroups at once).
    let mut by_cu: BTreeMap<u64, Vec<(i64, i64)>> = BTreeMap::new();
    let mut slots_used = BTreeSet::new();
    for (thread, (s, e, _)) in &workgroups {
        let name = &names[thread];
        let rest = name.strip_prefix("CU ").unwrap_or_else(|| panic!("workgroup on `{name}`"));
        let (cu, slot) = rest.split_once(" slot ").unwrap();
        let (cu, slot): (u64, u64) = (cu.parse().unwrap(), slot.parse().unwrap());
        assert!(slot < 4, "{name}");
        slots_used.insert(slot);
        by_cu.entry(cu).or_default().push((*s, *e));
    }
    assert!(slots_used.len() > 1, "every workgroup on slot 0");
    let most_at_once = by_cu
        .values()
        .map(|v| {
            let mut points: Vec<(i64, i32)> = v.iter().flat_map(|&(s, e)| [(s, 1), (e, -1)]).collect();
            points.sort();
            points.iter().scan(0, |n, &(_, d)| {
                *n += d;
                Some(*n)
            }).max().unwrap_or(0)
        })
        .max()
        .unwrap();
    assert!(most_at_once > 1, "no CU held two workgroups at once");
}

/// A draw's two phases nest in its slice on its queue's thread: its reads (front end, shaders,
/// attachment tiles), then its ROP writes, one after the other, in cycles that meet.
#[test]
fn a_draw_shows_its_reads_then_its_rop_writes() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/graphics/textured-scene-correct.json");
    let (_, timeline) = run(trace.to_str().unwrap(), "textured-scene-correct.json", &["--profile", "seed-l2"]);
    check_threads(&timeline);
    let events = timeline["traceEvents"].as_array().unwrap();
    let draws: Vec<&Value> = events.iter().filter(|e| e["cat"] == "command" && e["name"] == "vkCmdDraw").collect();
    assert_eq!(draws.len(), 6, "two frames of three draws");
    for d in draws {
        let (start, end) = (ns(&d["ts"]), ns(&d["ts"]) + ns(&d["dur"]));
        let inside = |name: &str| {
            events
                .iter()
                .find(|e| e["cat"] == "graphics" && e["name"] == name && e["tid"] == d["tid"] && ns(&e["ts"]) >= start && ns(&e["ts"]) + ns(&e["dur"]) <= end)
                .unwrap_or_else(|| panic!("no `{name}` slice inside the draw at {start} ns"))
        };
        let (reads, writes) = (inside("fetch, shade, read tiles"), inside("ROP writes"));
        assert_eq!(reads["args"]["from_cycle"], d["args"]["start_cycle"]);
        assert_eq!(reads["args"]["to_cycle"], writes["args"]["from_cycle"]);
        assert!(writes["args"]["to_cycle"].as_u64() > writes["args"]["from_cycle"].as_u64());
    }
}
