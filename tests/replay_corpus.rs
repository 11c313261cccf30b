//! The synchronization corpus (`tests/corpus/syncval/`): scenarios transcribed from the Khronos
//! validation layer's synchronization tests and the Khronos synchronization examples, each a
//! trace with the hazards the specification (and the upstream test) expects, and the verdict of
//! the layer installed here, replayed on a real driver.
//!
//! - `corpus_expectations_are_confirmed_or_explained` (no Vulkan needed): every scenario's
//!   recorded layer verdict equals its expected hazards, or says why not (a layer version that
//!   predates a fix, a device with fewer queues than the scenario).
//! - `layer_verdicts_match_the_record`: replays every scenario under the layer and compares its
//!   hazards with the record. With `GPUSIM_REGENERATE_LAYER_VERDICTS=1` it rewrites the record
//!   instead (`scripts/regenerate-layer-verdicts`), keeping each hand-written `differs`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn corpus() -> Vec<PathBuf> {
    support::traces("tests/corpus/syncval")
}

fn expect_path(trace: &Path) -> PathBuf {
    trace.with_extension("expect.json")
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The fields a hazard is compared on: id, place, prior place, and the usages when given.
fn key(h: &Value, with_usage: bool) -> Value {
    let mut k = json!({
        "id": h["id"], "command_buffer": h["command_buffer"], "command": h["command"],
        "prior_command_buffer": h["prior_command_buffer"], "prior_command": h["prior_command"],
    });
    if !h["submit"].is_null() {
        k["submit"] = h["submit"].clone();
    }
    if with_usage {
        k["usage"] = h["usage"].clone();
        k["prior_usage"] = h["prior_usage"].clone();
    }
    k
}

/// Keys of `hazards`, sorted, comparing usages only where every expected hazard gives them.
fn keys(hazards: &Value, with_usage: bool, with_submit: &[bool]) -> Vec<String> {
    let mut v: Vec<String> = hazards
        .as_array()
        .expect("hazards array")
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut k = key(h, with_usage);
            if !with_submit.get(i).copied().unwrap_or(true) {
                k.as_object_mut().expect("object").remove("submit");
            }
            k.to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_has_at_least_60_scenarios_that_load() {
    let traces = corpus();
    assert!(traces.len() >= 60, "{} scenarios", traces.len());
    for t in &traces {
        sim_core::trace::load(t).unwrap_or_else(|e| panic!("{e}"));
        let e = read_json(&expect_path(t));
        assert!(e["source"].as_str().is_some_and(|s| !s.is_empty()), "{}: no source", t.display());
        assert!(e["hazards"].is_array(), "{}: no hazards list", t.display());
    }
}

#[test]
fn corpus_expectations_are_confirmed_or_explained() {
    let mut unexplained = Vec::new();
    let mut stale = Vec::new();
    let mut agree = 0;
    for t in corpus() {
        let e = read_json(&expect_path(&t));
        let layer = &e["layer"];
        assert!(layer["hazards"].is_array(), "{}: no recorded layer verdict (run scripts/regenerate-layer-verdicts)", t.display());
        let expected = &e["hazards"];
        let with_usage = expected.as_array().expect("array").iter().all(|h| h["usage"].is_string() && h["prior_usage"].is_string());
        // Compare submission indices only where the expectation gives one.
        let with_submit: Vec<bool> = expected.as_array().expect("array").iter().map(|h| !h["submit"].is_null()).collect();
        let mut layer_keys: Vec<String> = Vec::new();
        for h in layer["hazards"].as_array().expect("array") {
            let mut k = key(h, with_usage);
            let matching = expected.as_array().expect("array").iter().any(|x| x["id"] == h["id"] && x["command_buffer"] == h["command_buffer"] && x["command"] == h["command"] && !x["submit"].is_null());
            if !matching {
                k.as_object_mut().expect("object").remove("submit");
            }
            layer_keys.push(k.to_string());
        }
        layer_keys.sort();
        let same = keys(expected, with_usage, &with_submit) == layer_keys && layer["validation_errors"].as_array().is_none_or(|v| v.is_empty());
        let differs = layer["differs"].as_str().filter(|s| !s.is_empty());
        match (same, differs) {
            (true, None) => agree += 1,
            (true, Some(_)) => stale.push(t.display().to_string()),
            (false, None) => unexplained.push(format!("{}:\n  expected {:?}\n  layer    {:?}", t.display(), keys(expected, with_usage, &with_submit), layer_keys)),
            (false, Some(_)) => {}
        }
    }
    assert!(unexplained.is_empty(), "the layer's verdict differs from the expectation with no reason recorded:\n{}", unexplained.join("\n"));
    assert!(stale.is_empty(), "a `differs` reason is recorded where the layer agrees: {stale:?}");
    assert!(agree >= 48, "only {agree} scenarios confirmed by the layer");
}

/// The layer's hazards of one replay, in the record's shape.
fn replay_verdict(trace: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["replay", "--validate", "--report", "json"]).arg(trace).output().expect("run gpusim");
    assert!(out.status.code().is_some_and(|c| c < 2), "{}: {}", trace.display(), String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).expect("json report");
    let hazards: Vec<Value> = r["hazards"]
        .as_array()
        .expect("hazards")
        .iter()
        .map(|h| {
            let mut v = json!({"id": h["id"], "command_buffer": h["at"]["command_buffer"], "command": h["at"]["command"], "usage": h["usage"]});
            if h["found"] == "submit" {
                v["submit"] = h["at"]["submit"].clone();
            }
            v["prior_command_buffer"] = h["prior"]["command_buffer"].clone();
            v["prior_command"] = h["prior"]["command"].clone();
            v["prior_usage"] = h["prior_usage"].clone();
            v
        })
        .collect();
    let errors: Vec<Value> = r["validation_errors"].as_array().expect("errors").iter().map(|e| json!(format!("{} at {}", e["id"].as_str().unwrap_or(""), e["at"].as_str().unwrap_or("")))).collect();
    json!({"hazards": hazards, "validation_errors": errors, "device": r["replay"]["device"]["name"], "layer": r["replay"]["validation_layer"]})
}

/// The layer the verdicts were recorded with (Debian 12's). Another version reports what it
/// reports: there each verdict must equal the record or the specification's expectation.
const RECORDED_LAYER: &str = "VK_LAYER_KHRONOS_validation 1.3.239";

#[test]
fn layer_verdicts_match_the_record() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("layer_verdicts_match_the_record", &reason);
        return;
    }
    let regenerate = std::env::var("GPUSIM_REGENERATE_LAYER_VERDICTS").is_ok_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for t in corpus() {
        let path = expect_path(&t);
        let mut e = read_json(&path);
        let got = replay_verdict(&t);
        let recorded = &e["layer"];
        if regenerate {
            let mut layer = json!({"hazards": got["hazards"], "validation_errors": got["validation_errors"]});
            if let Some(d) = recorded["differs"].as_str() {
                layer["differs"] = json!(d);
            }
            e["layer"] = layer;
            std::fs::write(&path, serde_json::to_string_pretty(&e).expect("json") + "\n").expect("write");
            continue;
        }
        let same = got["hazards"] == recorded["hazards"] && got["validation_errors"] == recorded["validation_errors"];
        if !same && got["layer"] != RECORDED_LAYER {
            // Another layer version: its verdict must be the record's or the expectation's.
            let expected: Vec<String> = {
                let mut v: Vec<String> = e["hazards"].as_array().expect("hazards").iter().map(|h| format!("{} {}[{}]", h["id"], h["command_buffer"], h["command"])).collect();
                v.sort();
                v
            };
            let reported: Vec<String> = {
                let mut v: Vec<String> = got["hazards"].as_array().expect("hazards").iter().map(|h| format!("{} {}[{}]", h["id"], h["command_buffer"], h["command"])).collect();
                v.sort();
                v
            };
            if expected == reported && got["validation_errors"].as_array().is_some_and(|v| v.is_empty()) {
                support::vulkan::note(&format!("{}: {} agrees with the expectation where {RECORDED_LAYER} did not", t.display(), got["layer"]));
                continue;
            }
        }
        if !same {
            mismatches.push(format!("{}:\n  recorded {}\n  now      {}", t.display(), json!({"hazards": recorded["hazards"], "validation_errors": recorded["validation_errors"]}), json!({"hazards": got["hazards"], "validation_errors": got["validation_errors"]})));
        }
    }
    assert!(
        mismatches.is_empty(),
        "the layer's verdicts differ from the record (another layer version or device? rerun scripts/regenerate-layer-verdicts and review):\n{}",
        mismatches.join("\n")
    );
}
