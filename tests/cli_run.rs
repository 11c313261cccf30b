//! `gpusim run`, `demo`, `graph`: the JSON report's structure, determinism of `--schedules`
//! across thread counts, the timeline as valid trace-event JSON, and the demo's story.

use std::path::PathBuf;
use std::process::{Command, Output};

fn gpusim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpusim"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces").join(name).to_string_lossy().into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpusim-cli-run-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn json_report_has_the_contract_fields() {
    let out = gpusim(&["run", &example("fill-then-dispatch-missing.json"), "--schedules", "8", "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in ["gpusim_report", "trace", "profile", "seed", "schedules", "schedules_with_corruption", "corrupt_seed", "cycles", "corruption", "hazards", "host_reads", "caches"] {
        assert!(r.get(field).is_some(), "missing `{field}`");
    }
    assert_eq!(r["gpusim_report"], 1);
    assert_eq!(r["trace"], "fill-then-dispatch-missing");
    assert_eq!(r["profile"], "seed-vram", "the default machine");
    assert_eq!(r["schedules"], 8);
    assert!(r["schedules_with_corruption"].as_u64().unwrap() >= 1);
    assert!(r["corruption"]["stale_reads"].as_u64().unwrap() > 0);
    let f = &r["corruption"]["findings"][0];
    assert_eq!(f["at"]["command_buffer"], "cb0");
    assert_eq!(f["at"]["command"], 1);
    assert!(f["at"].get("batch").is_none(), "batch 0 is omitted");
    assert_eq!(f["resource"], "A");
    assert_eq!(f["expected_write"]["command"], 0);
    for k in ["offset", "size", "seen_write", "via"] {
        assert!(f.get(k).is_some(), "finding lacks `{k}`");
    }
    // The missing barrier is a hazard of the program, in the contract's shape.
    let h = &r["hazards"][0];
    assert_eq!(h["id"], "SYNC-HAZARD-READ-AFTER-WRITE");
    assert_eq!(h["at"], f["at"]);
    assert_eq!(h["usage"], "COMPUTE_SHADER_SHADER_STORAGE_READ");
    assert_eq!(h["resource"], "A");
    assert_eq!((h["offset"].as_u64(), h["size"].as_u64()), (Some(0), Some(4096)));
    assert_eq!(h["prior"], f["expected_write"]);
    assert_eq!(h["prior_usage"], "CLEAR_TRANSFER_WRITE");
    assert_eq!(f["hazard"], 0, "the finding names the hazard that explains it");
    let rows = f["table_rows"].as_str().expect("what the profile's table does for the two accesses");
    assert!(rows.starts_with("on seed-vram, the bytes came through") && rows.contains("CLEAR_TRANSFER_WRITE") && rows.contains("COMPUTE_SHADER_SHADER_STORAGE_READ"), "{rows}");
    // Said as what the missing barrier would have done: no barrier ran.
    assert!(rows.contains("a barrier from CLEAR_TRANSFER_WRITE to COMPUTE_SHADER_SHADER_STORAGE_READ would have performed, by the barrier table,"), "{rows}");
    let l2 = &r["caches"]["L2"];
    for k in ["hits", "misses", "writebacks", "flushes", "invalidations"] {
        assert!(l2[k].is_u64(), "caches.L2.{k}");
    }
}

#[test]
fn text_report_explains_findings_and_clean_runs_exit_0() {
    let out = gpusim(&["run", &example("fill-then-dispatch-missing.json"), "--schedules", "8"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(text.contains("vkCmdDispatch cb0[1] (timeline[0], vkQueueSubmit #0 on q0) read "), "{text}");
    assert!(text.contains("the reference run saw vkCmdFillBuffer cb0[0] (timeline[0], vkQueueSubmit #0 on q0)"), "{text}");
    assert!(text.contains("Cycles:") && text.contains("invalidations"), "{text}");
    let out = gpusim(&["run", &example("fill-then-dispatch-correct.json"), "--profile", "seed-vram"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No corruption"));
}

#[test]
fn schedules_are_identical_whatever_the_thread_count() {
    let args = ["run", &example("write-after-read-missing.json"), "--schedules", "12", "--seed", "3", "--report", "json"];
    let one = gpusim(&args, &[("RAYON_NUM_THREADS", "1")]);
    let four = gpusim(&args, &[("RAYON_NUM_THREADS", "4")]);
    assert_eq!(one.status.code(), four.status.code());
    assert_eq!(one.stdout, four.stdout);
    let r: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(r["seed"], 3);
}

#[test]
fn too_many_schedules_is_an_error() {
    let out = gpusim(&["run", &example("fill-then-dispatch-correct.json"), "--schedules", "1000000"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--schedules"));
}

#[test]
fn timeline_is_valid_trace_event_json() {
    let path = tmp("timeline.json");
    let out = gpusim(&["run", &example("dispatch-then-copy-correct.json"), "--profile", "seed-vram", "--timeline", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    assert_eq!(doc["otherData"]["workgroups_not_recorded"], 0, "{}", doc["otherData"]);
    let mut cats = std::collections::BTreeSet::new();
    for e in events {
        for k in ["ph", "ts", "pid", "tid", "name"] {
            assert!(e.get(k).is_some(), "event lacks `{k}`: {e}");
        }
        assert!(e["ts"].as_f64().unwrap() >= 0.0);
        if e["ph"] == "X" {
            assert!(e["dur"].as_f64().unwrap() >= 0.0);
            cats.insert(e["cat"].as_str().unwrap().to_string());
        } else {
            assert_eq!(e["ph"], "M");
        }
    }
    for c in ["command", "workgroup", "transfer", "barrier"] {
        assert!(cats.contains(c), "no `{c}` events: {cats:?}");
    }
    let barrier = events.iter().find(|e| e["cat"] == "barrier" && e["name"].as_str().unwrap().starts_with("vkCmdPipelineBarrier2")).expect("a pipeline barrier");
    assert!(barrier["args"]["operations"].as_array().is_some_and(|o| !o.is_empty()), "{barrier}");
    // Every cache operation that took time is a slice inside a barrier slice of its track, and
    // a barrier's operations never take longer than the barrier.
    let ops: Vec<_> = events.iter().filter(|e| e["cat"] == "cache-op").collect();
    assert!(!ops.is_empty(), "no cache-op slices");
    let span = |e: &serde_json::Value| (e["ts"].as_f64().unwrap(), e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap());
    for op in ops {
        let (a, b) = span(op);
        assert!(
            events.iter().any(|e| e["cat"] == "barrier" && e["tid"] == op["tid"] && span(e).0 <= a + 1e-9 && b <= span(e).1 + 1e-9),
            "cache operation outside every barrier: {op}"
        );
        assert!(op["args"]["cycles"].as_u64().unwrap() > 0);
    }
}

#[test]
fn out_dir_gets_reports_and_timeline() {
    let dir = tmp("out");
    let out = gpusim(&["run", &example("two-queues-correct.json"), "--out", dir.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0));
    for f in ["report.json", "report.txt", "timeline.json"] {
        assert!(dir.join(f).exists(), "{f}");
    }
}

#[test]
fn demo_tells_the_story() {
    let out = gpusim(&["demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for phrase in ["seed-l2", "seed-vram", "STALE DATA", "vkCmdDispatch", "the reference run saw vkCmdFillBuffer", "Fixed:", "clean"] {
        assert!(text.contains(phrase), "demo output lacks `{phrase}`:\n{text}");
    }
    assert!(text.lines().count() <= 40, "demo output is {} lines", text.lines().count());
}

#[test]
fn graph_writes_dot() {
    let path = tmp("g.dot");
    let out = gpusim(&["graph", &example("split-barrier-correct.json"), "-o", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let dot = std::fs::read_to_string(&path).unwrap();
    assert!(dot.starts_with("digraph"));
    assert!(dot.contains("vkCmdFillBuffer") && dot.contains("vkCmdSetEvent2") && dot.contains("signal/set → wait"), "{dot}");
    // The fill's CLEAR stage feeds the set_event's source stage.
    assert!(dot.contains("_src_CLEAR;"), "{dot}");
}

/// The synchronization1 shape: command-level stage masks, barriers with access masks only,
/// sync1 names (TRANSFER, SHADER_READ) meaning what they mean in synchronization2.
#[test]
fn synchronization1_barriers_order_and_make_visible() {
    let shader = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces/shaders/add_one.wgsl");
    let trace = format!(
        r#"{{"gpusim_trace": 1, "name": "sync1",
  "memory": [{{"id": "dev", "size": 8192, "properties": "DEVICE_LOCAL"}}],
  "buffers": [{{"id": "A", "memory": "dev", "size": 4096}}, {{"id": "B", "memory": "dev", "offset": 4096, "size": 4096}}],
  "shaders": [{{"id": "add_one", "wgsl_file": {:?}}}],
  "events": ["e0"], "fences": ["f0"],
  "command_buffers": [{{"id": "cb0", "commands": [
    {{"cmd": "fill_buffer", "dst_buffer": "A", "data": 7}},
    {{"cmd": "pipeline_barrier", "src_stage_mask": "TRANSFER", "dst_stage_mask": "COMPUTE_SHADER", "dependency_flags": "BY_REGION",
      "memory_barriers": [{{"src_access_mask": "TRANSFER_WRITE", "dst_access_mask": "SHADER_READ"}}]}},
    {{"cmd": "dispatch", "shader": "add_one", "group_count": [16, 1, 1], "bindings": [{{"binding": 0, "buffer": "A"}}, {{"binding": 1, "buffer": "B"}}]}},
    {{"cmd": "set_event", "event": "e0", "stage_mask": "COMPUTE_SHADER"}},
    {{"cmd": "wait_events", "events": ["e0"], "src_stage_mask": "COMPUTE_SHADER", "dst_stage_mask": "TRANSFER",
      "buffer_memory_barriers": [{{"src_access_mask": "SHADER_WRITE", "dst_access_mask": "TRANSFER_READ", "buffer": "B"}}]}},
    {{"cmd": "copy_buffer", "src_buffer": "B", "dst_buffer": "A", "regions": [{{"size": 4096}}]}}
  ]}}],
  "timeline": [{{"op": "queue_submit", "command_buffers": ["cb0"], "fence": "f0"}}, {{"op": "wait_for_fences", "fences": ["f0"]}}]}}"#,
        shader.to_string_lossy()
    );
    let path = tmp("sync1.json");
    std::fs::write(&path, trace).unwrap();
    for profile in ["ideal", "seed-l2", "seed-vram"] {
        let out = gpusim(&["run", path.to_str().unwrap(), "--profile", profile, "--schedules", "6"], &[]);
        assert_eq!(out.status.code(), Some(0), "{profile}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
}

/// A host write to HOST_COHERENT memory that nothing follows is no corruption: its
/// write-combining buffer goes out on its own, and no command could have been missing. The end
/// of the run drains it on every profile (it once stayed buffered and the final memory differed).
#[test]
fn a_lone_coherent_host_write_reaches_memory() {
    let trace = tmp("lone-coherent-write.json");
    std::fs::write(
        &trace,
        r#"{"gpusim_trace": 1, "name": "lone-coherent-write",
 "memory": [{"id": "up", "size": 4096, "properties": "HOST_VISIBLE|HOST_COHERENT"}],
 "timeline": [{"op": "host_write", "memory": "up", "offset": 0, "data_u32": [1]}]}"#,
    )
    .unwrap();
    for profile in ["seed-l2", "seed-vram", "ideal"] {
        let out = gpusim(&["run", trace.to_str().unwrap(), "--profile", profile, "--report", "json"], &[]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{profile}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(report["corruption"]["corrupted_bytes"], 0, "{profile}: {report}");
        assert_eq!(out.status.code(), Some(0), "{profile}");
    }
}

/// A descriptor for a binding the shader declares but never accesses is valid Vulkan (the
/// pipeline layout may hold more than a shader reads): the dispatch runs, the binding ignored.
#[test]
fn a_bound_but_unused_binding_is_no_error() {
    let trace = tmp("unused-binding.json");
    std::fs::write(
        &trace,
        r#"{"gpusim_trace": 1, "name": "unused-binding",
 "memory": [{"id": "dev", "size": 65536, "properties": "DEVICE_LOCAL"}],
 "buffers": [{"id": "A", "memory": "dev", "offset": 0, "size": 4096}, {"id": "B", "memory": "dev", "offset": 4096, "size": 4096}],
 "shaders": [{"id": "s", "wgsl": "@group(0) @binding(0) var<storage, read> a: array<u32>; @group(0) @binding(1) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { b[id.x] = 1u; }"}],
 "fences": ["f0"],
 "command_buffers": [{"id": "cb0", "commands": [{"cmd": "dispatch", "shader": "s", "group_count": [1, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}, {"set": 1, "binding": 7, "buffer": "A"}]}]}],
 "timeline": [{"op": "queue_submit", "command_buffers": ["cb0"], "fence": "f0"}, {"op": "wait_for_fences", "fences": ["f0"]}]}"#,
    )
    .unwrap();
    let out = gpusim(&["run", trace.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Final memory that differs is listed by buffer, range and writers, with the hazard that
/// explains it; on a non-conforming machine running a correct program, with none.
#[test]
fn final_memory_differences_name_buffer_range_writers_and_hazard() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let trace = root.join("examples/traces/neighbouring-writes.json");
    let profile = root.join("examples/profiles/seed-vram-line-dirty-l2.toml");
    let out = gpusim(&["run", trace.to_str().unwrap(), "--profile", profile.to_str().unwrap(), "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diffs = r["corruption"]["final_memory"].as_array().unwrap();
    assert!(!diffs.is_empty());
    let total: u64 = diffs.iter().map(|d| d["size"].as_u64().unwrap()).sum();
    assert_eq!(total, r["corruption"]["corrupted_bytes"].as_u64().unwrap(), "the ranges cover every differing byte");
    for d in diffs {
        assert_eq!(d["buffer"], "B");
        assert!(d["expected_write"]["command_buffer"] == "cb0", "{d}");
        assert!(d.get("hazard").is_none(), "a correct program: no hazard explains it: {d}");
    }
    assert_eq!(r["hazards"], serde_json::json!([]));
    // A missing barrier: the bytes the dispatch wrote from stale reads name its hazard.
    let trace = root.join("examples/traces/fill-then-dispatch-missing.json");
    let out = gpusim(&["run", trace.to_str().unwrap(), "--report", "json", "--schedules", "8"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diffs = r["corruption"]["final_memory"].as_array().unwrap();
    assert!(!diffs.is_empty(), "{}", r["corruption"]);
    assert!(diffs.iter().all(|d| d["hazard"] == 0), "{diffs:?}");
}

/// When the seeded schedules show nothing, `gpusim run` directs a schedule at each hazard: the
/// prior command held until the hazardous one is done, where nothing orders them. A missing
/// compute-to-compute barrier then reads stale bytes; its correct twin has no hazard and no
/// directed schedule.
#[test]
fn schedules_are_directed_at_hazards() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let missing = root.join("tests/corpus/syncval/ex-compute-raw-missing.json");
    let out = gpusim(&["run", missing.to_str().unwrap(), "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["directed_at_hazard"], 0, "{}", r["corruption"]);
    assert!(r["corruption"]["stale_reads"].as_u64().unwrap() > 0);
    assert_eq!(r["corruption"]["findings"][0]["hazard"], 0);
    let text = String::from_utf8(gpusim(&["run", missing.to_str().unwrap()], &[]).stdout).unwrap();
    assert!(text.contains("This schedule is directed at hazard H1:"), "{text}");
    // The re-run command is pasteable: run as printed, it gives the same corruption.
    let rerun = text.lines().find_map(|l| l.strip_prefix("Re-run the reported schedule: gpusim ")).expect("a re-run command");
    assert_eq!(rerun, format!("run {} --profile seed-vram --seed 0 --direct-at-hazard 0", missing.display()));
    let mut args: Vec<&str> = rerun.split(' ').collect();
    args.extend(["--report", "json"]);
    let pasted: serde_json::Value = serde_json::from_slice(&gpusim(&args, &[]).stdout).unwrap();
    assert_eq!(pasted["corruption"], r["corruption"]);
    // The named schedule re-runs alone, to the same report.
    let again = gpusim(&["run", missing.to_str().unwrap(), "--seed", "0", "--direct-at-hazard", "0", "--report", "json"], &[]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["corruption"], r["corruption"]);
    let none = gpusim(&["run", missing.to_str().unwrap(), "--direct-at-hazard", "5"], &[]);
    assert_eq!(none.status.code(), Some(2));
    // A hazard this machine cannot show names the built-in machine that does.
    let elsewhere = root.join("examples/traces/host-read-barrier-missing.json");
    let out = gpusim(&["run", elsewhere.to_str().unwrap(), "--report", "json"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["corruption"]["stale_reads"], 0, "seed-vram's fence writes L2 back to VRAM, where the host reads");
    assert_eq!(r["corrupts_on"]["profile"], "seed-l2", "{r}");
    let correct = root.join("tests/corpus/syncval/ex-compute-raw-barrier.json");
    let out = gpusim(&["run", correct.to_str().unwrap(), "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["directed_schedules"], 0);
    assert_eq!(r["corrupts_on"], serde_json::Value::Null);
}

/// A write after read shown by a directed schedule: the reader (the hazard's prior command) ran
/// after the write, and the finding names that hazard, not the machine.
#[test]
fn a_shown_write_after_read_is_the_programs_fault() {
    let t = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/syncval/ex-compute-war-missing.json");
    let out = gpusim(&["run", t.to_str().unwrap(), "--direct-at-hazard", "0", "--report", "json"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = r["corruption"]["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "{}", r["corruption"]);
    assert!(findings.iter().all(|f| f["hazard"] == 0), "{findings:?}");
    assert!(r["corruption"]["final_memory"].as_array().unwrap().iter().all(|d| d["hazard"] == 0));
    assert_eq!(r["schedules_with_corruption"], 0, "the counters cover seeded schedules");
    assert_eq!(r["directed_at_hazard"], 0);
}

/// A read after write that an execution dependency orders but no barrier makes visible: the
/// schedule directed at it leaves the bytes from before the write in the reader's cache (here
/// the U$ a barrier naming SHADER_STORAGE_READ does not invalidate), and the report says so.
#[test]
fn an_ordered_read_after_write_is_shown_through_the_readers_cache() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let t = root.join("tests/corpus/syncval/ex-uniform-read-storage-only-barrier.json");
    for profile in ["seed-l2", "seed-vram"] {
        let out = gpusim(&["run", t.to_str().unwrap(), "--profile", profile, "--report", "json"], &[]);
        assert_eq!(out.status.code(), Some(1));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["directed_at_hazard"], 0, "{profile}: {}", r["corruption"]);
        assert_eq!(r["direction"], serde_json::json!({"how": "prime", "cache": "U$"}), "{profile}");
        let f = &r["corruption"]["findings"][0];
        assert_eq!(f["via"], "U$", "{f}");
        assert_eq!(f["hazard"], 0);
    }
    let text = String::from_utf8(gpusim(&["run", t.to_str().unwrap()], &[]).stdout).unwrap();
    assert!(text.contains("every CU's U$ held the bytes"), "{text}");
    // The correct twin, with the same priming, stays clean: its barrier names UNIFORM_READ.
    let correct = root.join("tests/corpus/syncval/ex-compute-raw-barrier.json");
    let out = gpusim(&["run", correct.to_str().unwrap(), "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(0));
}

/// Each hazard says whether any order could change its bytes: a copy of zeroes over zeroes
/// cannot, and no schedule is spent on it.
#[test]
fn hazards_that_cannot_change_a_byte_say_so() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let t = root.join("tests/corpus/syncval/rec-copy-war.json");
    let out = gpusim(&["run", t.to_str().unwrap(), "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(1), "a hazard all the same");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["hazards"][0]["bytes_can_differ"], false);
    assert!(r["hazards"][0]["why_bytes_cannot_differ"].as_str().unwrap().contains("the write stores the bytes the read saw"));
    assert_eq!(r["directed_schedules"], 0);
    let text = String::from_utf8(gpusim(&["run", t.to_str().unwrap()], &[]).stdout).unwrap();
    assert!(text.contains("No schedule can show it as wrong bytes: the write stores the bytes the read saw"), "{text}");
    let shown = root.join("tests/corpus/syncval/rec-independent-barriers-war.json");
    let out = gpusim(&["run", shown.to_str().unwrap(), "--report", "json"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["hazards"][0]["bytes_can_differ"], true);
    assert!(r["corruption"]["stale_reads"].as_u64().unwrap() > 0, "the fill ran before the copy that reads its bytes");
}

/// Host reads and final memory that differ are linked to the host hazards that explain them
/// (a missing barrier to HOST_READ, a missing invalidate, a flush over device-written bytes),
/// never blamed on the machine.
#[test]
fn host_differences_name_the_host_hazard_that_explains_them() {
    let cases = [
        ("host-read-barrier-missing.json", "seed-l2", "SYNC-HAZARD-READ-AFTER-WRITE"),
        ("host-cached-readback-missing-invalidate.json", "seed-l2", "GPUSIM-HOST-MISSING-INVALIDATE"),
        ("host-cached-readback-missing-invalidate.json", "anv-gen12", "GPUSIM-HOST-MISSING-INVALIDATE"),
        ("host-partial-atom-flush-missing.json", "seed-vram", "SYNC-HAZARD-WRITE-AFTER-WRITE"),
    ];
    for (trace, profile, id) in cases {
        let what = format!("{trace} on {profile}");
        let out = gpusim(&["run", &example(trace), "--profile", profile, "--report", "json"], &[]);
        assert_eq!(out.status.code(), Some(1), "{what}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let differing: Vec<&serde_json::Value> = r["host_reads"].as_array().unwrap().iter().filter(|h| h["differing_bytes"].as_u64() > Some(0)).collect();
        let memory = r["corruption"]["final_memory"].as_array().unwrap();
        assert!(!differing.is_empty() || !memory.is_empty(), "{what}: nothing differs");
        for d in differing.iter().copied().chain(memory) {
            let k = d["hazard"].as_u64().unwrap_or_else(|| panic!("{what}: no hazard explains {d}"));
            assert_eq!(r["hazards"][k as usize]["id"], id, "{what}: {d}");
        }
        let text = String::from_utf8_lossy(&gpusim(&["run", &example(trace), "--profile", profile], &[]).stdout).into_owned();
        assert!(!text.contains("No hazard explains") && !text.contains("no hazard explains"), "{what}:\n{text}");
        assert!(text.contains("hazard H1 explains it"), "{what}:\n{text}");
    }
}

/// A negative seed is told what a seed is, not taken for an option with advice to pass it after
/// `--` (which would make it the trace).
#[test]
fn a_negative_seed_is_refused_as_a_seed() {
    for cmd in [&["run", "TRACE"][..], &["graph", "TRACE", "-o", "-"][..]] {
        let trace = example("fill-then-copy-missing.json");
        let mut args: Vec<&str> = cmd.iter().map(|a| if *a == "TRACE" { trace.as_str() } else { a }).collect();
        args.extend(["--seed", "-1"]);
        let out = gpusim(&args, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("a seed is a whole number from 0 to 18446744073709551615, not `-1`"), "{err}");
        assert!(!err.contains("--  -1") && !err.contains("'-- -1'"), "no advice to pass it after --: {err}");
    }
    let out = gpusim(&["profile", "check", "seed-vram", "--seed", "-3", "--programs", "1"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not `-3`"));
}

/// An output file that cannot be written is refused before the run, not after it: nothing is
/// printed, nothing runs.
#[test]
fn output_paths_are_checked_before_the_run() {
    let trace = example("fill-then-copy-missing.json");
    let missing = tmp("no-such-folder/t.json");
    let folder = tmp("a-folder");
    std::fs::create_dir_all(&folder).unwrap();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["run".into(), trace.clone(), "--timeline".into(), missing.display().to_string()], format!("--timeline {}: the folder {} does not exist", missing.display(), missing.parent().unwrap().display())),
        (vec!["run".into(), trace.clone(), "--timeline".into(), folder.display().to_string()], format!("--timeline {}: is a folder, not a file", folder.display())),
        (vec!["graph".into(), trace.clone(), "-o".into(), missing.display().to_string()], format!("-o {}: the folder", missing.display())),
        (vec!["check".into(), trace.clone(), "--fix".into(), "-o".into(), missing.display().to_string()], format!("-o {}: the folder", missing.display())),
    ];
    for (args, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = gpusim(&args, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&message), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing runs, nothing is reported: {}", String::from_utf8_lossy(&out.stdout));
    }
}

/// A missing barrier over 1 MiB: the findings explain the first 256 stale reads and say they
/// stop there; the merged ranges of every stale read are whole in the JSON, the text and the
/// graph's label.
#[test]
fn a_large_stale_range_is_reported_whole() {
    let mut t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(example("fill-then-dispatch-missing.json")).unwrap()).unwrap();
    t["name"] = "fill-then-dispatch-missing-1mib".into();
    for m in t["memory"].as_array_mut().unwrap() {
        m["size"] = (1u64 << 20).into();
    }
    for b in t["buffers"].as_array_mut().unwrap() {
        b["size"] = (1u64 << 20).into();
    }
    t["command_buffers"][0]["commands"][1]["group_count"] = serde_json::json!([4096, 1, 1]);
    // With a copy of the shader the example names by a relative path.
    let path = tmp("large/fill-then-dispatch-missing-1mib.json");
    std::fs::create_dir_all(path.parent().unwrap().join("shaders")).unwrap();
    std::fs::copy(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces/shaders/add_one.wgsl"), path.parent().unwrap().join("shaders/add_one.wgsl")).unwrap();
    std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
    let trace = path.to_string_lossy().into_owned();
    let json = gpusim(&["run", &trace, "--report", "json"], &[]);
    let text = gpusim(&["run", &trace], &[]);
    let graph = gpusim(&["graph", &trace, "-o", "-"], &[]);
    assert_eq!(json.status.code(), Some(1), "{}", String::from_utf8_lossy(&json.stderr));
    let r: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let c = &r["corruption"];
    assert!(c["stale_reads"].as_u64().unwrap() > 256);
    assert_eq!(c["findings_truncated"], true);
    let ranges = c["stale_ranges"].as_array().unwrap();
    assert_eq!(ranges.len(), 1, "one reader, one buffer: {ranges:?}");
    let stale: u64 = ranges[0]["ranges"].as_array().unwrap().iter().map(|r| r[1].as_u64().unwrap()).sum();
    let explained: u64 = c["findings"].as_array().unwrap().iter().map(|f| f["size"].as_u64().unwrap()).sum();
    assert!(stale > 1_000_000, "the merged ranges hold every stale read: {stale} bytes");
    assert!(explained < stale / 4, "the findings explain the first reads only: {explained} bytes");
    let text = String::from_utf8_lossy(&text.stdout);
    let last = ranges[0]["ranges"].as_array().unwrap().last().unwrap();
    let last = format!("[{}, +{})", last[0], last[1]);
    assert!(text.contains(&format!("Only the first 256 of {} stale reads", c["stale_reads"])) && text.contains(&last), "{text}");
    assert!(text.contains("mistake(s) (from the first 256 stale reads, explained in detail)"), "{text}");
    assert_eq!(c["mistakes_truncated"], true);
    assert!(!text.contains("all are in --report json"), "{text}");
    let dot = String::from_utf8_lossy(&graph.stdout);
    assert!(dot.lines().any(|l| l.contains("missing: A") && l.contains(&last)), "{dot}");
    // A small run explains every stale read, and says nothing of truncation.
    let small = gpusim(&["run", &example("fill-then-dispatch-missing.json"), "--report", "json"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&small.stdout).unwrap();
    assert_eq!(r["corruption"]["findings_truncated"], false);
}

/// A host read that differs shows the values read against the trace's own expectation.
#[test]
fn a_host_read_shows_its_values_against_the_expectation() {
    let out = gpusim(&["run", &example("host-read-barrier-missing.json"), "--profile", "seed-l2"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // The count of stale reads says who made them, so it agrees with the lists below it.
    assert!(text.contains("CORRUPTION: 1 host read(s) returned bytes that differ"), "{text}");
    let line = text.lines().find(|l| l.contains("`result`")).expect("the host read's line");
    assert!(line.contains("from offset 0 the host read 00000000 00000000") && line.contains("where the trace expects 08000000 09000000 0a000000 0b000000"), "{line}");
    // A read that meets its expectation says nothing of values.
    let out = gpusim(&["run", &example("host-read-barrier-correct.json"), "--profile", "seed-l2"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("where the trace expects"), "{text}");
}

/// Final memory that differs is one line per mistake: one dispatch that wrote from stale bytes
/// leaves every fourth byte of its output different, which is one line (not 896), saying that
/// both runs' bytes come from it.
#[test]
fn final_memory_is_one_line_per_mistake() {
    let out = gpusim(&["run", &example("fill-then-dispatch-missing.json"), "--profile", "seed-l2"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    let section: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Final memory differs")).skip(1).take_while(|l| l.starts_with("  ")).collect();
    assert_eq!(section.len(), 1, "{section:?}");
    assert!(section[0].contains("buffer B, bytes [0, ") && section[0].contains("byte(s) in") && section[0].contains("both runs left them from vkCmdDispatch cb0[1]"), "{}", section[0]);
    // With the values: the first bytes left, against the reference run's (A[i] + 1 of a stale
    // 0 is 1, where the fill's 7 gives 8).
    assert!(section[0].contains("(from byte 0: 01 where the reference run left 08)"), "{}", section[0]);
    let json: serde_json::Value = serde_json::from_slice(&gpusim(&["run", &example("fill-then-dispatch-missing.json"), "--profile", "seed-l2", "--report", "json"], &[]).stdout).unwrap();
    let first = &json["corruption"]["final_memory"][0];
    assert_eq!((first["seen_hex"].as_str(), first["expected_hex"].as_str()), (Some("01"), Some("08")), "{first}");
}

/// One missing barrier is one mistake: the uniform reads of every subgroup (each lane of a
/// subgroup reading the same word) are one paragraph counting every read, with merged ranges;
/// the JSON has no duplicate findings and each mistake lists its findings.
#[test]
fn one_missing_barrier_is_one_mistake() {
    let json = gpusim(&["run", &example("uniform-read-after-storage-write-missing.json"), "--report", "json"], &[]);
    let r: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let c = &r["corruption"];
    let findings = c["findings"].as_array().unwrap();
    let mut keys: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
    keys.sort();
    let before = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), before, "duplicate findings");
    let mistakes = c["mistakes"].as_array().unwrap();
    assert_eq!(mistakes.len(), 1, "{mistakes:?}");
    let m = &mistakes[0];
    assert_eq!(m["reads"], c["stale_reads"], "every stale read is in the one mistake");
    let listed: Vec<u64> = m["findings"].as_array().unwrap().iter().map(|k| k.as_u64().unwrap()).collect();
    assert_eq!(listed, (0..findings.len() as u64).collect::<Vec<_>>());
    // Ranges sorted by offset and merged: each starts past the end of the one before.
    let ranges: Vec<(u64, u64)> = m["ranges"].as_array().unwrap().iter().map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap())).collect();
    assert!(ranges.windows(2).all(|w| w[0].0 + w[0].1 < w[1].0), "{ranges:?}");
    assert_eq!(m["bytes"].as_u64().unwrap(), ranges.iter().map(|r| r.1).sum::<u64>());
    let text = String::from_utf8_lossy(&gpusim(&["run", &example("uniform-read-after-storage-write-missing.json")], &[]).stdout).into_owned();
    let paragraphs = text.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(". vkCmd")).count();
    assert_eq!(paragraphs, 1, "{text}");
    assert!(text.contains(&format!("in {} reads, in {} ranges: ", c["stale_reads"], ranges.len())), "{text}");
    assert_eq!(text.matches("by the barrier table").count(), 1, "{text}");
    // --verbose keeps the per-read detail: one line per finding under the mistake.
    let verbose = String::from_utf8_lossy(&gpusim(&["run", &example("uniform-read-after-storage-write-missing.json"), "--verbose"], &[]).stdout).into_owned();
    let lines = verbose.lines().filter(|l| l.starts_with("     [") && l.contains(" at cycle ")).count();
    assert_eq!(lines, findings.len(), "{verbose}");
}

/// `--profile all`: one row per built-in profile; a cell that shows a hazard gives a command
/// that, pasted, shows it; a cell that does not says why; the output is the same whatever the
/// thread count.
#[test]
fn profile_all_is_a_matrix_of_profiles_by_hazards() {
    let trace = example("write-after-read-missing.json");
    let args = ["run", trace.as_str(), "--profile", "all", "--schedules", "2", "--report", "json"];
    let out = gpusim(&args, &[("RAYON_NUM_THREADS", "1")]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(gpusim(&args, &[("RAYON_NUM_THREADS", "3")]).stdout, out.stdout);
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = m["profiles"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["profile"].as_str().unwrap()).collect();
    let listed = String::from_utf8_lossy(&gpusim(&["profile", "list"], &[]).stdout).into_owned();
    assert!(names.len() >= 8 && names.iter().all(|n| listed.contains(n)), "{names:?}");
    let (mut shown, mut not) = (0, 0);
    for r in rows {
        let cell = &r["hazards"][0];
        if cell["shows"].is_null() {
            assert!(cell["why_not"].as_str().is_some_and(|w| w.len() > 20), "{cell}");
            not += 1;
            continue;
        }
        shown += 1;
        let rerun = cell["rerun"].as_str().unwrap();
        let mut a: Vec<&str> = rerun.strip_prefix("gpusim ").unwrap().split(' ').collect();
        a.extend(["--report", "json"]);
        let r: serde_json::Value = serde_json::from_slice(&gpusim(&a, &[]).stdout).unwrap();
        assert!(r["corruption"]["findings"].as_array().unwrap().iter().any(|f| f["hazard"] == 0), "{rerun}");
    }
    assert!(shown > 0 && not > 0, "this trace shows on some machines and not on others: {m}");
    let text = String::from_utf8_lossy(&gpusim(&["run", trace.as_str(), "--profile", "all", "--schedules", "2"], &[]).stdout).into_owned();
    for n in &names {
        assert!(text.lines().any(|l| l.starts_with(&format!("{n} "))), "{text}");
    }
    assert!(text.contains("Where a hazard does not show, why:") && text.contains("To see H1: gpusim run "), "{text}");
    // A run on one profile's options make no sense with all of them.
    let out = gpusim(&["run", trace.as_str(), "--profile", "all", "--direct-at-hazard", "0"], &[]);
    assert_eq!(out.status.code(), Some(2));
}
