//! `gpusim check` on the synchronization corpus (`tests/corpus/syncval/`): every scenario's
//! expected hazards (transcribed from the Khronos validation layer's tests and the
//! synchronization examples) and none other: the same ids, commands, prior commands, usages,
//! and, for hazards across command buffers, the same submission.

mod support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn corpus() -> Vec<PathBuf> {
    support::traces("tests/corpus/syncval")
}

/// A hazard as the expectation writes it: `ID cb[k] <- cb[k] (usage <- prior usage) @submit`.
fn expected_key(h: &Value) -> String {
    let submit = h["submit"].as_u64().map(|s| format!(" @{s}")).unwrap_or_default();
    format!("{} {}[{}] <- {}[{}] ({} <- {}){submit}", h["id"].as_str().unwrap_or(""), h["command_buffer"].as_str().unwrap_or(""), h["command"], h["prior_command_buffer"].as_str().unwrap_or(""), h["prior_command"], h["usage"].as_str().unwrap_or(""), h["prior_usage"].as_str().unwrap_or(""))
}

fn reported_key(h: &Value) -> String {
    let submit = if h["found"] == "submit" { format!(" @{}", h["at"]["submit"]) } else { String::new() };
    format!(
        "{} {}[{}] <- {}[{}] ({} <- {}){submit}",
        h["id"].as_str().unwrap_or(""),
        h["at"]["command_buffer"].as_str().unwrap_or(""),
        h["at"]["command"],
        h["prior"]["command_buffer"].as_str().unwrap_or(""),
        h["prior"]["command"],
        h["usage"].as_str().unwrap_or(""),
        h["prior_usage"].as_str().unwrap_or("")
    )
}

#[test]
fn check_reports_the_expected_hazards_of_every_scenario() {
    let (mut hazard_cases, mut clean_cases) = (0, 0);
    let mut failures = Vec::new();
    for t in corpus() {
        let e: Value = serde_json::from_str(&std::fs::read_to_string(t.with_extension("expect.json")).expect("expectations")).expect("json");
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["check", "--report", "json"]).arg(&t).output().expect("run gpusim");
        let r: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}: {}", t.display(), String::from_utf8_lossy(&out.stderr)));
        let want: Vec<String> = {
            let mut v: Vec<String> = e["hazards"].as_array().expect("hazards").iter().map(expected_key).collect();
            v.sort();
            v
        };
        let got: Vec<String> = {
            let mut v: Vec<String> = r["hazards"].as_array().expect("hazards").iter().map(reported_key).collect();
            v.sort();
            v
        };
        if want.is_empty() {
            clean_cases += 1;
        } else {
            hazard_cases += 1;
        }
        assert_eq!(out.status.code(), Some(i32::from(!want.is_empty())), "{}: exit status", t.display());
        if want != got {
            failures.push(format!("{}:\n  expected {want:?}\n  reported {got:?}", t.display()));
        }
    }
    assert!(hazard_cases >= 40 && clean_cases >= 20, "{hazard_cases} hazard cases, {clean_cases} clean ones");
    assert!(failures.is_empty(), "{} of {} scenarios differ:\n{}", failures.len(), hazard_cases + clean_cases, failures.join("\n"));
}

/// The invalid traces (`tests/corpus/invalid/`): `gpusim run` and `gpusim check` refuse each
/// before anything runs (exit status 2), with the same located message, naming the VUID where
/// the specification has one.
#[test]
fn check_and_run_refuse_the_same_invalid_traces_alike() {
    let traces = support::traces("tests/corpus/invalid");
    assert!(traces.len() >= 6, "{traces:?}");
    for t in traces {
        let t = t.to_str().expect("utf-8");
        let run = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", t]).output().expect("run");
        let check = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["check", t]).output().expect("check");
        assert_eq!(run.status.code(), Some(2), "{t}: run: {}", String::from_utf8_lossy(&run.stdout));
        assert_eq!(check.status.code(), Some(2), "{t}: check: {}", String::from_utf8_lossy(&check.stdout));
        let (r, c) = (String::from_utf8_lossy(&run.stderr), String::from_utf8_lossy(&check.stderr));
        assert_eq!(r, c, "{t}: the two commands refuse it differently");
        assert!(r.contains(".json:") && r.contains(": timeline[") || r.contains(": command_buffers["), "{t}: not located: {r}");
        if t.contains("pending") {
            assert!(r.contains("VUID-vkSetEvent-event-09543"), "{r}");
        }
        // What the submissions break, `gpusim replay` refuses the same way before it opens a
        // device (so without one too).
        if t.contains("event") || t.contains("semaphore") {
            let replay = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["replay", t]).output().expect("replay");
            assert_eq!((replay.status.code(), String::from_utf8_lossy(&replay.stderr)), (Some(2), r.clone()), "{t}: replay");
        }
        if t.contains("without-host") {
            assert!(r.contains("VUID-vkCmdWaitEvents-srcStageMask-01158"), "{r}");
        }
    }
}
