//! The `nvidia-like` profile against what a real H100 did (`docs/hardware/H100_PROBE.md`,
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
/// always corrupts differed in at least 99% of the iterations there (a TOP_OF_PIPE source stage
/// is itself a race, probe item 13: it was clean in 1 of 200), and every shape it never
/// corrupts in none.
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
        let (seen, of) = (r["iterations_with_corruption"].as_u64().expect("count"), r["iterations"].as_u64().expect("iterations"));
        if expect["corrupted_schedules"] == expect["schedules"] {
            assert!(seen * 100 >= of * 99, "{name}: {seen} of {of} iterations differed; {}", expect["h100"]);
        } else {
            assert_eq!(seen, 0, "{name}: {}", expect["h100"]);
        }
    }
}

/// The probe's races (closing list items 2, 19-21), written by `scripts/generate-probe-races`
/// into `tests/corpus/h100-probe/races/`: on the H100 a missing barrier between two commands of
/// one command buffer corrupted depending on size and timing, and a model that always or never
/// corrupts is wrong. Each race's configurations together must corrupt in every one of 16
/// seeded schedules in some, in none in others, and (item 2) in part of them somewhere. A
/// vkCmdCopyBuffer before a dispatch never corrupted, and the right barrier never does: those
/// expect an exact count. Every corrupting run's wrong output elements come in whole 128-byte
/// units (item 4).
#[test]
fn the_races_depend_on_size_and_timing() {
    let traces = support::traces("tests/corpus/h100-probe/races");
    assert!(traces.len() >= 20, "{} race traces", traces.len());
    let mut groups: std::collections::BTreeMap<String, Vec<(String, u64, u64)>> = Default::default();
    let mut seen = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for t in &traces {
        let name = t.file_stem().expect("stem").to_string_lossy().into_owned();
        let expect: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(t.with_extension("expect.json")).expect("sidecar")).expect("json");
        let schedules = expect["schedules"].as_u64().expect("schedules");
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
            .args(["run", "--profile", expect["profile"].as_str().expect("profile"), "--schedules", &schedules.to_string(), "--report", "json", "--max-memory-differences", "1000000"])
            .arg(t)
            .output()
            .expect("run gpusim");
        assert!(out.status.code().is_some_and(|c| c < 2), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
        let corrupted = r["schedules_with_corruption"].as_u64().expect("count");
        seen.insert(name.clone(), format!("{corrupted}/{schedules}"));
        if let Some(want) = expect["corrupted_schedules"].as_u64()
            && corrupted != want
        {
            failures.push(format!("{name} (probe item {}, {}): {corrupted} of {schedules} schedules corrupted, expected {want}", expect["probe_item"], expect["h100"]));
        }
        if let Some(race) = expect["race"].as_str() {
            groups.entry(race.to_string()).or_default().push((name.clone(), corrupted, schedules));
        }
        // Item 4: whole 128-byte units of the consumer's output Y.
        assert_eq!(r["corruption"]["final_memory_truncated"], false, "{name}");
        let mut wrong = std::collections::BTreeSet::new();
        for run in r["corruption"]["final_memory"].as_array().expect("final memory") {
            if run["buffer"] == "Y" {
                let (o, n) = (run["buffer_offset"].as_u64().expect("offset"), run["size"].as_u64().expect("size"));
                wrong.extend((o / 4)..(o + n).div_ceil(4));
            }
        }
        let blocks: std::collections::BTreeSet<u64> = wrong.iter().map(|e| e / 32).collect();
        if wrong.len() as u64 != blocks.len() as u64 * 32 {
            failures.push(format!("{name}: {} wrong elements of Y are not whole 128-byte units", wrong.len()));
        }
    }
    let mut partial = false;
    for (race, runs) in &groups {
        let text = || runs.iter().map(|(n, c, s)| format!("{n}: {c}/{s}")).collect::<Vec<_>>().join(", ");
        if !runs.iter().any(|&(_, c, s)| c == s) || !runs.iter().any(|&(_, c, _)| c == 0) {
            failures.push(format!("race {race} must corrupt always in some configuration and never in another: {}", text()));
        }
        partial |= runs.iter().any(|&(_, c, s)| c > 0 && c < s);
    }
    assert!(groups.len() >= 5, "races: {:?}", groups.keys());
    // docs/REPLAY_NVIDIA.md's table of the races: nvidia-like's count as run here, and the H200's
    // as recorded in docs/hardware/h200-2026-11-26/races/.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let h200: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("docs/hardware/h200-2026-11-26/races/summary.json")).expect("races summary")).expect("json");
    let doc = std::fs::read_to_string(root.join("docs/REPLAY_NVIDIA.md")).expect("REPLAY_NVIDIA.md");
    let mut rows = 0;
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`');
        let Some(sim) = seen.get(name) else { continue };
        rows += 1;
        let r = &h200[name];
        assert_eq!(r["device"]["name"], "NVIDIA H200", "{name}");
        let hw = format!("{}/{}", r["iterations_with_corruption"], r["iterations"]);
        assert_eq!((cells[3], cells[4]), (sim.as_str(), hw.as_str()), "docs/REPLAY_NVIDIA.md row of {name}: nvidia-like, H200");
    }
    assert_eq!(rows, seen.len(), "docs/REPLAY_NVIDIA.md has a row for every race trace");
    assert!(partial, "some configuration must corrupt in part of its schedules: {groups:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Item 23, what synchronization costs, on the probe's small compute -> compute pair
/// (`tests/corpus/h100-probe/timing/`): on the H100 a barrier added 1.8 us (5.1 -> 6.9 us), an
/// execution-only barrier cost as much as the right one, two command buffers and two batches
/// cost the same, and two submissions more, a semaphore between them more again. Cycles are the
/// median of three seeded schedules, converted at the profile's clock.
#[test]
fn synchronization_costs_what_it_cost_on_the_h100() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let profile = std::fs::read_to_string(root.join("sim-core/profiles/nvidia-like.toml")).expect("profile");
    let mhz: f64 = profile.lines().find_map(|l| l.strip_prefix("core_clock_mhz = ")).expect("clock").trim().parse().expect("number");
    let cycles = |mode: &str| -> f64 {
        let mut v: Vec<u64> = (0..3)
            .map(|seed| {
                let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
                    .args(["run", "--profile", "nvidia-like", "--seed", &seed.to_string(), "--report", "json"])
                    .arg(root.join(format!("tests/corpus/h100-probe/timing/{mode}.json")))
                    .output()
                    .expect("run gpusim");
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
                r["cycles"].as_u64().expect("cycles")
            })
            .collect();
        v.sort();
        v[1] as f64
    };
    let us = |c: f64| c / mhz;
    let [missing, ok, execonly, xcb, xbatch, xsubmit, xsubmit_sem] = ["missing", "ok", "execonly", "xcb", "xbatch", "xsubmit", "xsubmit_sem"].map(cycles);
    let barrier = us(ok - missing);
    assert!((1.8 * 0.75..=1.8 * 1.33).contains(&barrier), "a barrier costs {barrier:.2} us; the H100's cost 1.8 us");
    assert!((ok - execonly).abs() <= 0.1 * (ok - missing), "execution-only {execonly} and full {ok} barriers cost the same on the H100");
    assert_eq!(xcb, xbatch, "two command buffers and two batches cost the same on the H100");
    assert!(xcb >= execonly, "a command-buffer boundary waits like a barrier: {xcb} < {execonly}");
    assert!(xsubmit > xcb && xsubmit_sem > xsubmit, "submissions cost more ({xcb}, {xsubmit}, {xsubmit_sem})");
}
