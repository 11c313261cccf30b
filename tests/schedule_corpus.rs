//! Schedule exploration on the synchronization corpus (`tests/corpus/syncval/`), against the
//! table of `docs/SCHEDULES.md`:
//! - every hazard case whose bytes can differ between legal orders corrupts on some built-in
//!   profile within 16 schedules (seeded, then directed at its hazards), at least 95% of them,
//!   and the table says on which profile first, or why not; the same for the corpus with every
//!   buffer filled with its own bytes first (as transcribed, most buffers stay zero, so most
//!   hazards cannot change a byte);
//! - every correctly synchronized case stays clean on every built-in profile over 64 seeds, as
//!   transcribed and filled.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// In the order they are tried: the default first.
const PROFILES: [&str; 3] = ["seed-vram", "seed-l2", "ideal"];

fn run(trace: &Path, profile: &str, schedules: u32) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(["run", "--profile", profile, "--schedules", &schedules.to_string(), "--report", "json"])
        .arg(trace)
        .output()
        .expect("run gpusim");
    let code = out.status.code().expect("an exit status");
    assert!(code < 2, "{} on {profile}: {}", trace.display(), String::from_utf8_lossy(&out.stderr));
    (code, serde_json::from_slice(&out.stdout).expect("a JSON report"))
}

fn corrupted(r: &Value) -> bool {
    r["corruption"]["stale_reads"].as_u64() > Some(0)
        || r["corruption"]["corrupted_bytes"].as_u64() > Some(0)
        || r["host_reads"].as_array().is_some_and(|h| h.iter().any(|h| h["differing_bytes"].as_u64() > Some(0)))
}

/// The table's rows: case -> [(bytes can differ, corrupts on); 2], as transcribed and with
/// the buffers filled first.
fn table() -> BTreeMap<String, [(String, String); 2]> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SCHEDULES.md")).expect("docs/SCHEDULES.md");
    let mut rows = BTreeMap::new();
    let section = doc.lines().skip_while(|l| !l.starts_with("| case |")).take_while(|l| !l.is_empty());
    for line in section.filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_end_matches(" |").split(" | ").collect();
        assert_eq!(cells.len(), 6, "{line}");
        let name = cells[0].trim_start_matches("| `").trim_end_matches('`').to_string();
        let row = [(cells[2].to_string(), cells[3].to_string()), (cells[4].to_string(), cells[5].to_string())];
        assert!(rows.insert(name.clone(), row).is_none(), "{name} is in the table twice");
    }
    rows
}

/// The corpus's traces, as transcribed (`filled` false) or with a first submission that fills
/// every buffer with its own 32-bit pattern and waits for it (written to a temporary directory).
fn corpus(filled: bool) -> Vec<(String, PathBuf, bool)> {
    // A directory per call: the tests run at once, and must not read each other's half-written files.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("gpusim-schedule-corpus-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    support::traces("tests/corpus/syncval")
        .into_iter()
        .map(|t| {
            let name = t.file_stem().expect("stem").to_string_lossy().into_owned();
            let expect: Value = serde_json::from_str(&std::fs::read_to_string(t.with_extension("expect.json")).expect("sidecar")).expect("json");
            let hazardous = expect["hazards"].as_array().is_some_and(|h| !h.is_empty());
            if !filled {
                return (name, t, hazardous);
            }
            let mut trace: Value = serde_json::from_str(&std::fs::read_to_string(&t).expect("trace")).expect("json");
            let fills: Vec<Value> = trace["buffers"]
                .as_array()
                .expect("buffers")
                .iter()
                .enumerate()
                .map(|(k, b)| serde_json::json!({"cmd": "fill_buffer", "dst_buffer": b["id"], "dst_offset": 0, "size": "WHOLE_SIZE", "data": ((k as u32 + 1) * 0x0101_0101) ^ 0x8040_2010}))
                .collect();
            trace["command_buffers"].as_array_mut().expect("command buffers").push(serde_json::json!({"id": "gpusim_fill", "commands": fills}));
            if trace.get("fences").is_none() {
                trace["fences"] = serde_json::json!([]);
            }
            trace["fences"].as_array_mut().expect("fences").push("gpusim_fill_f".into());
            let timeline = trace["timeline"].as_array_mut().expect("timeline");
            let queue = timeline.iter().find(|op| op["op"] == "queue_submit").expect("a submission")["queue"].clone();
            timeline.insert(0, serde_json::json!({"op": "wait_for_fences", "fences": ["gpusim_fill_f"]}));
            timeline.insert(0, serde_json::json!({"op": "queue_submit", "queue": queue, "command_buffers": ["gpusim_fill"], "fence": "gpusim_fill_f"}));
            let path = dir.join(format!("{name}.json"));
            std::fs::write(&path, serde_json::to_string(&trace).expect("json")).expect("write the filled trace");
            (name, path, hazardous)
        })
        .collect()
}

/// For each hazard case: whether some hazard's bytes can differ, and the first built-in profile
/// (with how its schedule was made) on which a run within 16 schedules corrupts.
fn explore(filled: bool) -> BTreeMap<String, (bool, Option<String>)> {
    let mut out = BTreeMap::new();
    for (name, t, hazardous) in corpus(filled) {
        if !hazardous {
            continue;
        }
        let mut differ = false;
        let mut shows_on = None;
        for p in PROFILES {
            let (code, r) = run(&t, p, 16);
            assert_eq!(code, 1, "{name} on {p}: a program with hazards exits 1");
            differ = r["hazards"].as_array().expect("hazards").iter().any(|h| h["bytes_can_differ"] == true);
            if corrupted(&r) {
                let how = match r["direction"]["how"].as_str() {
                    Some(how) => format!(" (directed: {how})"),
                    None => " (seeded)".to_string(),
                };
                shows_on = Some(format!("{p}{how}"));
                break;
            }
        }
        assert!(differ || shows_on.is_none(), "{name}: no hazard can change a byte, yet a run differed from the reference");
        out.insert(name, (differ, shows_on));
    }
    out
}

#[test]
fn hazard_cases_whose_bytes_can_differ_corrupt_within_16_schedules() {
    let rows = table();
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SCHEDULES.md")).expect("docs/SCHEDULES.md");
    for (col, filled) in [(0, false), (1, true)] {
        let found = explore(filled);
        assert_eq!(rows.keys().collect::<Vec<_>>(), found.keys().collect::<Vec<_>>(), "docs/SCHEDULES.md lists exactly the corpus's hazard cases");
        for (name, (differ, shows_on)) in &found {
            let (d, on) = &rows[name][col];
            assert_eq!(d.starts_with("yes"), *differ, "{name} (filled: {filled}): bytes-can-differ column `{d}`");
            match shows_on {
                Some(s) => assert_eq!(on, s, "{name} (filled: {filled}): corrupts-on column"),
                None => assert!(on.starts_with("none"), "{name} (filled: {filled}): the table says `{on}`, but no built-in profile corrupts"),
            }
        }
        let can_differ = found.values().filter(|v| v.0).count();
        let shown = found.values().filter(|v| v.0 && v.1.is_some()).count();
        assert!(shown * 100 >= can_differ * 95, "{shown} of {can_differ} hazard cases whose bytes can differ corrupt (filled: {filled}): under 95%");
        let figure = format!("**{shown} of {can_differ}**");
        assert!(doc.contains(&figure), "docs/SCHEDULES.md must state the figure {figure} (filled: {filled})");
    }
}

#[test]
fn correct_cases_stay_clean_on_every_profile_over_64_seeds() {
    for filled in [false, true] {
        let mut clean = 0;
        for (name, t, hazardous) in corpus(filled) {
            if hazardous {
                continue;
            }
            clean += 1;
            for p in PROFILES {
                let (code, r) = run(&t, p, 64);
                assert_eq!((code, &r["schedules_with_corruption"]), (0, &Value::from(0)), "{name} on {p} (filled: {filled}): {}", r["corruption"]);
                assert_eq!(r["schedules"], 64);
            }
        }
        assert_eq!(clean, 23, "the corpus's correctly synchronized cases");
    }
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SCHEDULES.md")).expect("docs/SCHEDULES.md");
    assert!(doc.contains("**23 correctly synchronized cases**"), "docs/SCHEDULES.md must state the clean figure");
}

/// Counting every schedule, seeded and directed: on the default machine, each case that can
/// corrupt does so with one seeded schedule and the schedules directed at its hazards (two in
/// all, in the corpus).
#[test]
fn every_case_that_can_corrupt_does_on_the_default_machine_within_two_schedules() {
    for filled in [false, true] {
        for (name, t, hazardous) in corpus(filled) {
            if !hazardous {
                continue;
            }
            let (_, r) = run(&t, "seed-vram", 1);
            if !r["hazards"].as_array().expect("hazards").iter().any(|h| h["bytes_can_differ"] == true) {
                continue;
            }
            assert!(corrupted(&r), "{name} (filled: {filled}): clean with one seeded schedule and {} directed", r["directed_schedules"]);
            // One seeded schedule and at most one directed: two in all.
            assert!(r["directed_schedules"].as_u64().unwrap() <= 1, "{name} (filled: {filled}): {} directed schedules", r["directed_schedules"]);
        }
    }
}
