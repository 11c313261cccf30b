//! `gpusim replay`: what it reports on lavapipe, and a one-line error with exit status 2 for
//! everything that keeps a replay from running.

mod support;

use std::process::{Command, Output};

use serde_json::Value;

fn gpusim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpusim"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run gpusim")
}

/// Asserts exit status 2 and one line on stderr containing every one of `parts`.
fn refused(out: &Output, parts: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("gpusim: error:")).collect();
    assert_eq!(lines.len(), 1, "one error line: {err}");
    for p in parts {
        assert!(lines[0].contains(p), "`{p}` not in: {}", lines[0]);
    }
    assert!(!err.contains("panicked"), "{err}");
}

const TRACE: &str = "examples/traces/dispatch-then-copy-missing.json";

#[test]
fn a_missing_loader_is_one_line() {
    let out = gpusim(&["replay", TRACE], &[("GPUSIM_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")]);
    refused(&out, &["no Vulkan loader", "GPUSIM_VULKAN_LOADER=/nonexistent/libvulkan.so.1"]);
}

#[test]
fn bad_arguments_and_invalid_traces_are_one_line() {
    refused(&gpusim(&["replay", TRACE, "--iterations", "0"], &[]), &["--iterations", "0 is not between 1 and"]);
    refused(&gpusim(&["replay", "examples/traces/no-such-trace.json"], &[]), &["no-such-trace.json"]);
}

fn write_trace(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write trace");
    p
}

#[test]
fn what_the_device_cannot_do_is_one_line() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("what_the_device_cannot_do_is_one_line", &reason);
        return;
    }
    refused(&gpusim(&["replay", TRACE, "--device", "no such GPU"], &[]), &["no Vulkan device is named like `no such GPU`", "0: "]);
    // No driver found by the loader.
    refused(&gpusim(&["replay", TRACE], &[("VK_ICD_FILENAMES", "/nonexistent/icd.json"), ("VK_DRIVER_FILES", "/nonexistent/icd.json")]), &["no Vulkan device"]);
    // The layer is not where the loader looks.
    let empty = std::env::temp_dir().join(format!("gpusim-no-layers-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("dir");
    refused(&gpusim(&["replay", TRACE, "--validate"], &[("VK_LAYER_PATH", empty.to_str().expect("utf-8")), ("VK_ADD_LAYER_PATH", "")]), &["VK_LAYER_KHRONOS_validation", "not installed"]);
    // More workgroups than the device dispatches at once (65535 on lavapipe and most GPUs).
    let groups = write_trace(
        "groups.json",
        r#"{"gpusim_trace": 1, "name": "groups",
            "shaders": [{"id": "nothing", "wgsl": "@compute @workgroup_size(1) fn main() {}"}],
            "fences": ["f0"],
            "command_buffers": [{"id": "cb0", "commands": [{"cmd": "dispatch", "shader": "nothing", "group_count": [70000, 1, 1]}]}],
            "timeline": [{"op": "queue_submit", "command_buffers": ["cb0"], "fence": "f0"}, {"op": "wait_for_fences", "fences": ["f0"]}]}"#,
    );
    refused(&gpusim(&["replay", groups.to_str().expect("utf-8")], &[]), &["command_buffers[cb0].commands[0]", "maxComputeWorkGroupCount"]);
    // A storage binding at an offset the device does not align to.
    let offset = write_trace(
        "offset.json",
        r#"{"gpusim_trace": 1, "name": "offset",
            "memory": [{"id": "m", "size": 4096, "properties": "DEVICE_LOCAL"}],
            "buffers": [{"id": "A", "memory": "m", "size": 4096}],
            "shaders": [{"id": "w", "wgsl": "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n@compute @workgroup_size(1) fn main() { a[0] = 1u; }"}],
            "fences": ["f0"],
            "command_buffers": [{"id": "cb0", "commands": [{"cmd": "dispatch", "shader": "w", "group_count": [1, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "A", "offset": 4, "range": 64}]}]}],
            "timeline": [{"op": "queue_submit", "command_buffers": ["cb0"], "fence": "f0"}, {"op": "wait_for_fences", "fences": ["f0"]}]}"#,
    );
    refused(&gpusim(&["replay", offset.to_str().expect("utf-8")], &[]), &["bindings[0].offset", "minStorageBufferOffsetAlignment"]);
}

#[test]
fn a_replay_reports_the_device_the_layer_and_the_reference_comparison() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("a_replay_reports_the_device_the_layer_and_the_reference_comparison", &reason);
        return;
    }
    let out = gpusim(&["replay", "examples/traces/two-queues-missing.json", "--validate", "--iterations", "3", "--report", "json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    let d = &r["replay"]["device"];
    for field in ["name", "driver", "api_version", "device_type"] {
        assert!(d[field].as_str().is_some_and(|s| !s.is_empty()), "device.{field}: {d}");
    }
    assert!(r["replay"]["validation_layer"].as_str().is_some_and(|l| l.starts_with("VK_LAYER_KHRONOS_validation 1.")), "{}", r["replay"]);
    assert_eq!(r["iterations"], 3);
    // The hazard found at submission, once, seen in every iteration.
    let h = &r["hazards"][0];
    assert_eq!(h["id"], "SYNC-HAZARD-READ-AFTER-WRITE");
    assert_eq!(h["found"], "submit");
    assert_eq!(h["iterations"], 3);
    assert_eq!(h["at"], serde_json::json!({"submit": 1, "command_buffer": "consumer", "command": 0}));
    assert_eq!(h["prior"], serde_json::json!({"submit": 0, "command_buffer": "producer", "command": 0}));
    assert_eq!(h["usage"], "COMPUTE_SHADER_SHADER_STORAGE_READ");
    assert_eq!(r["hazards"].as_array().map(Vec::len), Some(1));
    // Without --validate: no layer, exit 0 when the device's bytes match.
    let out = gpusim(&["replay", "examples/traces/two-queues-correct.json"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("No corruption"), "{text}");
    assert!(!text.contains("Validation layer"), "{text}");
    // A correct program's host read is the reference run's, byte for byte.
    let out = gpusim(&["replay", "examples/traces/host-read-barrier-correct.json", "--report", "json"], &[]);
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(r["host_reads"].as_array().is_some_and(|h| !h.is_empty()));
    assert_eq!(r["host_reads"][0]["differing_iterations"], 0);
}
