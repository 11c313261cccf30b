//! The `nvidia-like` profile against what a real H100 did (`../shared/hardware/H100_PROBE.md`,
//! its closing list): `tests/corpus/h100-probe/` holds each probe shape as a trace, and its
//! `NAME.expect.json` the item, the H100's verdict and how many of 8 seeded schedules must
//! corrupt on nvidia-like (8 where the H100 always corrupted, 0 where it never did). Seeded
//! schedules are the machine's own executions; schedules directed at hazards are not counted.

mod support;

use std::process::Command;

#[test]
fn every_probe_shape_corrupts_as_the_h100_did() {
    let traces = support::traces("tests/corpus/h100-probe");
    assert!(traces.len() >= 20, "{} probe traces", traces.len());
    let mut failures = Vec::new();
    for t in &traces {
        let expect: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(t.with_extension("expect.json")).expect("sidecar")).expect("json");
        let (profile, schedules) = (expect["profile"].as_str().expect("profile"), expect["schedules"].as_u64().expect("schedules"));
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
            .args(["run", "--profile", profile, "--schedules", &schedules.to_string(), "--report", "json"])
            .arg(t)
            .output()
            .expect("run gpusim");
        assert!(out.status.code().is_some_and(|c| c < 2), "{}: {}", t.display(), String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
        if r["schedules_with_corruption"] != expect["corrupted_schedules"] {
            failures.push(format!("{} (probe item {}, {}): {} of {schedules} schedules corrupted, expected {}", t.display(), expect["probe_item"], expect["h100"], r["schedules_with_corruption"], expect["corrupted_schedules"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The shapes the H100 never corrupted are still hazards a conforming machine may show where
/// the spec does not order them: the wrong source stage does corrupt on the default machine.
#[test]
fn a_wrong_source_stage_is_a_hazard_all_the_same() {
    let t = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/h100-probe/wrongsrcstage-warm-uniform.json");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", "--report", "json"]).arg(&t).output().expect("run gpusim");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    assert_eq!(r["profile"], "seed-vram");
    assert!(!r["hazards"].as_array().expect("hazards").is_empty());
    assert!(r["corruption"]["stale_reads"].as_u64() > Some(0), "a schedule directed at it shows it: {}", r["corruption"]);
}

/// The same traces replayed on a real NVIDIA H200 (`scripts/replay-probe-on-device.sh`, 200
/// iterations each, recorded in `docs/hardware/h200-2026-11-26/`): every shape nvidia-like
/// always corrupts differed in every iteration there, and every shape it never corrupts in none.
#[test]
fn the_recorded_h200_replays_agree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("docs/hardware/h200-2026-11-26/summary.json")).expect("summary")).expect("json");
    let traces = support::traces("tests/corpus/h100-probe");
    assert_eq!(summary.as_object().map(|m| m.len()), Some(traces.len()), "a recorded replay for every probe trace");
    for t in &traces {
        let name = t.file_stem().expect("stem").to_string_lossy().into_owned();
        let expect: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(t.with_extension("expect.json")).expect("sidecar")).expect("json");
        let r = &summary[&name];
        assert_eq!(r["device"]["name"], "NVIDIA H200", "{name}");
        let want = if expect["corrupted_schedules"] == expect["schedules"] { r["iterations"].clone() } else { 0.into() };
        assert_eq!(r["iterations_with_corruption"], want, "{name}: {}", expect["h100"]);
    }
}
