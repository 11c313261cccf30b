//! Every example trace gives its expected outcome: `examples/traces/NAME.expect.json` names
//! the profiles, schedules, exit status, finding kinds, the stale reads grouped by mistake
//! (reader, buffer, cache, write seen, write expected, hazard, reads and merged ranges, and why
//! compressed image memory explains them, exactly), the program's hazards, and for image
//! examples each image's compression state at the end; this test runs the binary on each, and
//! checks that a hazard (or compressed memory read as a buffer) explains every wrong byte,
//! except on the profiles a sidecar marks `machine_at_fault` (hardware experiments that break
//! the memory model), where something must be left unexplained.

use std::path::Path;
use std::process::Command;

fn check(trace: &Path, failures: &mut Vec<String>) {
    let expect_path = trace.with_extension("expect.json");
    let expect: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&expect_path).unwrap_or_else(|e| panic!("{}: {e}", expect_path.display()))).unwrap();
    for run in expect["runs"].as_array().expect("runs") {
        let profile = run["profile"].as_str().unwrap();
        let schedules = run["schedules"].as_u64().unwrap_or(1).to_string();
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
            .args(["run", trace.to_str().unwrap(), "--profile", profile, "--schedules", &schedules, "--report", "json"])
            .output()
            .unwrap();
        let name = format!("{} on {profile}", trace.file_name().unwrap().to_string_lossy());
        let code = out.status.code();
        if code != Some(run["exit"].as_i64().unwrap() as i32) {
            failures.push(format!("{name}: exit {code:?}, expected {}; stderr: {}", run["exit"], String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // The program's hazards, whatever the profile: exactly those the sidecar lists.
        let key = |h: &serde_json::Value| ["id", "at", "usage", "resource", "prior", "prior_usage"].iter().map(|k| h[*k].to_string()).collect::<Vec<_>>().join(" ");
        let got: Vec<String> = report["hazards"].as_array().unwrap().iter().map(key).collect();
        let want: Vec<String> = expect["hazards"].as_array().expect("a `hazards` list in the sidecar").iter().map(key).collect();
        if got != want {
            failures.push(format!("{name}: hazards {got:?}, expected {want:?}"));
        }
        // Host reads with expectations are checked against the reference run.
        for h in report["host_reads"].as_array().unwrap() {
            if h["reference_meets_expectation"] == serde_json::Value::Bool(false) {
                failures.push(format!("{name}: the reference run does not meet the expectation of host read {}", h["label"]));
            }
        }
        // The stale reads grouped by mistake, exactly as the sidecar pins them: reader, buffer,
        // cache, write seen, write expected, hazard, how many reads, and the merged ranges.
        let pin = |m: &serde_json::Value| {
            let mut v = serde_json::Map::new();
            for k in ["at", "resource", "via", "seen_write", "expected_write", "hazard", "reads", "ranges", "aliasing"] {
                if let Some(x) = m.get(k) {
                    v.insert(k.to_string(), x.clone());
                }
            }
            serde_json::Value::Object(v)
        };
        let got: Vec<serde_json::Value> = report["corruption"]["mistakes"].as_array().unwrap().iter().map(pin).collect();
        let want: Vec<serde_json::Value> = run["mistakes"].as_array().map(|m| m.iter().map(pin).collect()).unwrap_or_default();
        if got != want {
            failures.push(format!("{name}: mistakes\n  {}\nexpected\n  {}", serde_json::Value::from(got), serde_json::Value::from(want)));
        }
        // Every wrong byte is explained: by a hazard, or by compressed image memory read as a
        // buffer (which no barrier fixes). Anything else blames the machine.
        let explained = |v: &serde_json::Value| !v["hazard"].is_null() || v.get("aliasing").is_some_and(|a| !a.is_null());
        let unexplained = report["corruption"]["findings"].as_array().unwrap().iter().chain(report["corruption"]["final_memory"].as_array().unwrap()).filter(|v| !explained(v)).count()
            + report["host_reads"].as_array().unwrap().iter().filter(|h| h["differing_bytes"].as_u64().unwrap_or(0) > 0 && !explained(h)).count();
        // A profile that breaks the memory model on purpose (`machine_at_fault` in the
        // sidecar) must be blamed for it.
        let at_fault = run["machine_at_fault"].as_bool().unwrap_or(false);
        if (unexplained > 0) != at_fault {
            failures.push(format!("{name}: {unexplained} stale read(s), final byte run(s) or host read(s) that no hazard explains, expected {}", if at_fault { "some" } else { "none" }));
        }
        // Images, where the sidecar pins them: compression, tiles by state, texels that differ.
        if let Some(want) = run.get("images") {
            let pin = |i: &serde_json::Value| serde_json::json!([i["image"], i["compressed"], i["tiles"], i["texels_differing"]]);
            let got: Vec<_> = report["images"].as_array().map(|v| v.iter().map(pin).collect()).unwrap_or_default();
            let want: Vec<_> = want.as_array().unwrap().iter().map(pin).collect();
            if got != want {
                failures.push(format!("{name}: images {got:?}, expected {want:?}"));
            }
        }
        let kinds: Vec<&str> = run["kinds"].as_array().map(|k| k.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
        for kind in kinds {
            let present = match kind {
                "stale_read" => !report["corruption"]["findings"].as_array().unwrap().is_empty(),
                "corrupted_bytes" => report["corruption"]["corrupted_bytes"].as_u64().unwrap() > 0,
                "host_read" => report["host_reads"].as_array().unwrap().iter().any(|h| h["differing_bytes"].as_u64().unwrap() > 0),
                other => panic!("{name}: unknown finding kind `{other}`"),
            };
            if !present {
                failures.push(format!("{name}: expected a `{kind}` finding"));
            }
        }
    }
}

/// The traces of an examples folder (their sidecars left out), in name order.
fn traces_in(folder: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut traces: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    traces.sort();
    traces
}

/// The image examples (examples/images), which `gpusim replay` does not take yet, by the same
/// sidecars.
#[test]
fn every_image_example_gives_its_expected_outcome() {
    let traces = traces_in("examples/images");
    assert!(traces.len() >= 2, "expected the image examples, found {}", traces.len());
    let mut failures = Vec::new();
    for t in &traces {
        assert!(t.with_extension("expect.json").exists(), "{} has no .expect.json sidecar", t.display());
        check(t, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The graphics examples (examples/graphics), by the same sidecars.
#[test]
fn every_graphics_example_gives_its_expected_outcome() {
    let traces = traces_in("examples/graphics");
    assert!(traces.len() >= 6, "expected the graphics examples, found {}", traces.len());
    let mut failures = Vec::new();
    for t in &traces {
        assert!(t.with_extension("expect.json").exists(), "{} has no .expect.json sidecar", t.display());
        check(t, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_example_trace_gives_its_expected_outcome() {
    let traces = traces_in("examples/traces");
    assert!(traces.len() >= 25, "expected the 15 compute and 10 host example traces, found {}", traces.len());
    let mut failures = Vec::new();
    for t in &traces {
        assert!(t.with_extension("expect.json").exists(), "{} has no .expect.json sidecar", t.display());
        check(t, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
