//! `gpusim import` on the committed captures of `tests/captures/` (made by
//! `scripts/capture-fixtures/make.sh`; no Vulkan is needed here).
//!
//! Each capture imports, the trace loads with gpusim's loader, `gpusim check` finds exactly the
//! hazards its sidecar (`NAME.expect.json`) records from the Khronos validation layer, and
//! `gpusim run --profile all` corrupts on some built-in profile exactly when hazards are
//! expected, and on none otherwise. Then bad input: a truncated capture, a hostile array count,
//! and a call the trace cannot express each end with exit status 2 and a message naming the
//! block and its byte offset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn captures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures")
}

fn gpusim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).current_dir(dir).output().expect("gpusim runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The sidecars, by capture name.
fn sidecars() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(captures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.strip_suffix(".expect.json")?.to_owned();
            Some((name, serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Imports `capture` into `dir` as `NAME.json`, asserting success.
fn import(dir: &Path, capture: &Path, name: &str) -> PathBuf {
    let out = dir.join(format!("{name}.json"));
    let o = gpusim_in(dir, &["import", capture.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    // The dropped calls are listed in one line, each name once, with where the first was.
    let err = stderr(&o);
    let line = err.lines().find(|l| l.contains("that cannot change synchronization")).unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("1 x vkCreateInstance (first at call") && line.matches("vkCreateInstance").count() == 1, "{err}");
    out
}

#[test]
fn captures_import_and_agree_with_the_validation_layer() {
    let sidecars = sidecars();
    assert_eq!(sidecars.len(), 9, "tests/captures holds nine programs");
    let dir = temp_dir("fixtures");
    for (name, side) in &sidecars {
        let trace = import(&dir, &captures().join(side["capture"].as_str().unwrap()), name);
        let loaded = sim_core::trace::load(&trace).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!loaded.workload.buffers.is_empty(), "{name}");

        let expected: Vec<&str> = side["expect"]["hazards"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let layer: Vec<&str> = side["validation"]["sync_hazards"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        // Where gpusim and the layer differ, the sidecar says why.
        assert!(expected == layer || side["note"].is_string(), "{name}: expected {expected:?}, layer {layer:?}, no note");

        let o = gpusim_in(&dir, &["check", trace.to_str().unwrap(), "--report", "json"]);
        let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{name}: {e}: {}", stderr(&o)));
        let mut found: Vec<&str> = report["hazards"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
        found.sort();
        found.dedup();
        assert_eq!(found, expected, "{name}: gpusim check");
        assert_eq!(o.status.code(), Some(i32::from(!expected.is_empty())), "{name}");

        let o = gpusim_in(&dir, &["run", trace.to_str().unwrap(), "--profile", "all", "--report", "json"]);
        let matrix: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{name}: {e}: {}", stderr(&o)));
        let corrupted: Vec<&str> = matrix["profiles"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["schedules_with_corruption"].as_u64().unwrap() > 0)
            .map(|p| p["profile"].as_str().unwrap())
            .collect();
        assert_eq!(matrix["profiles"].as_array().unwrap().len(), 8, "{name}");
        if side["expect"]["corrupts_on_some_profile"].as_bool().unwrap() {
            assert!(!corrupted.is_empty(), "{name}: no built-in profile corrupts");
        } else {
            assert!(corrupted.is_empty(), "{name}: corrupts on {corrupted:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The image fixtures: their images (placed where the capture bound them), layout transitions,
/// clear, blit and copy come through as the trace's, and the sampler and view too.
#[test]
fn images_are_imported() {
    let dir = temp_dir("images");
    let trace = import(&dir, &captures().join("image-missing.gfxr"), "image-missing");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let images = t["images"].as_array().unwrap();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0]["format"], "R8G8B8A8_UNORM");
    assert_eq!(images[0]["extent"], serde_json::json!([32, 32, 1]));
    assert_eq!(images[0]["offset"], 0);
    assert_eq!(images[0]["usage"], "TRANSFER_SRC|TRANSFER_DST|SAMPLED");
    assert_eq!(t["samplers"][0]["mag_filter"], "LINEAR");
    let cmds: Vec<&str> = t["command_buffers"][0]["commands"].as_array().unwrap().iter().map(|c| c["cmd"].as_str().unwrap()).collect();
    assert_eq!(cmds, ["pipeline_barrier", "clear_color_image", "blit_image", "pipeline_barrier", "copy_image_to_buffer"]);
    let c = &t["command_buffers"][0]["commands"];
    // vkCmdPipelineBarrier2: the stages are on each barrier; vkCmdPipelineBarrier: on the command.
    assert_eq!(c[0]["image_memory_barriers"][1]["dst_stage_mask"], "BLIT");
    assert_eq!(c[0]["image_memory_barriers"][0]["new_layout"], "GENERAL");
    assert_eq!(c[1]["color"]["float32"], serde_json::json!([0.25, 0.5, 0.75, 1.0]));
    assert_eq!(c[3]["src_stage_mask"], "ALL_TRANSFER");
    assert_eq!(c[3]["image_memory_barriers"][0]["old_layout"], "TRANSFER_DST_OPTIMAL");
    let loaded = sim_core::trace::load(&trace).unwrap();
    assert_eq!(loaded.workload.images.len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each compute pipeline's SPIR-V is written beside the trace, named after it, and the trace
/// names that file.
#[test]
fn shaders_are_written_beside_the_trace() {
    let dir = temp_dir("shaders");
    let trace = import(&dir, &captures().join("inline-data.gfxr"), "imported");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert_eq!(t["shaders"][0]["spirv_file"], "imported.pipeline0.spv");
    let spv = std::fs::read(dir.join("imported.pipeline0.spv")).unwrap();
    assert_eq!(&spv[..4], &0x0723_0203u32.to_le_bytes());
    assert_eq!(t["name"], "imported");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Block offsets of a capture, by index (from sim-capture's reader).
fn blocks(bytes: &[u8]) -> Vec<sim_capture::Block> {
    sim_capture::read_all(bytes).unwrap().1
}

/// The fill-then-dispatch capture without compression, so that its parameters can be damaged.
fn uncompressed_capture() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("sim-capture/tests/fixtures/fill-then-dispatch.none.gfxr")).unwrap()
}

fn import_fails(name: &str, bytes: &[u8]) -> String {
    let dir = temp_dir(name);
    std::fs::write(dir.join("capture.gfxr"), bytes).unwrap();
    let o = gpusim_in(&dir, &["import", "capture.gfxr", "-o", "t.json"]);
    assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
    assert!(!dir.join("t.json").exists(), "{name}: a trace was written");
    assert!(!dir.join("t.pipeline0.spv").exists(), "{name}: a shader was left behind");
    let _ = std::fs::remove_dir_all(&dir);
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    e.trim_end().to_owned()
}

#[test]
fn a_truncated_capture_names_the_block_cut() {
    let bytes = std::fs::read(captures().join("barrier-missing.gfxr")).unwrap();
    let b = &blocks(&bytes)[40];
    let cut = b.offset as usize + 20;
    let e = import_fails("truncated", &bytes[..cut]);
    assert!(e.starts_with("gpusim: error: capture.gfxr: block 40 at byte "), "{e}");
    assert!(e.contains(&format!("block 40 at byte {}: declared size", b.offset)), "{e}");
}

#[test]
fn a_hostile_array_count_names_the_call_and_block() {
    let mut bytes = uncompressed_capture();
    let b = blocks(&bytes).into_iter().find(|b| b.call_name() == Some("vkCreateShaderModule")).unwrap();
    // Parameters: device (8), then pCreateInfo: attributes (4), address (8), sType (4), pNext
    // attributes (4), flags (4), codeSize (8), then pCode: attributes (4), address (8), count.
    let count_at = b.offset as usize + 24 + 8 + 4 + 8 + 4 + 4 + 4 + 8 + 4 + 8;
    let words = u64::from_le_bytes(bytes[count_at..count_at + 8].try_into().unwrap());
    assert!(words > 100 && words < 10_000, "the count is where the layout says: {words}");
    bytes[count_at..count_at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let e = import_fails("hostile-count", &bytes);
    assert!(
        e.starts_with(&format!("gpusim: error: capture.gfxr: block {} at byte {}: vkCreateShaderModule: parameters do not decode at byte 60 of", b.index, b.offset)),
        "{e}"
    );
    assert!(e.contains("pCode: 1099511627776 elements of 4 bytes run past the end"), "{e}");
}

#[test]
fn an_unsupported_call_is_refused_with_its_place() {
    let mut bytes = uncompressed_capture();
    let b = blocks(&bytes).into_iter().find(|b| b.call_name() == Some("vkCmdDispatch")).unwrap();
    let at = b.offset as usize + 12;
    bytes[at..at + 4].copy_from_slice(&sim_capture::ids::CMD_TRACE_RAYS_KHR.to_le_bytes());
    let e = import_fails("unsupported", &bytes);
    assert_eq!(
        e,
        format!("gpusim: error: capture.gfxr: unsupported: vkCmdTraceRaysKHR at call {} (block at byte {}): the trace format cannot express this call yet", b.index, b.offset)
    );
}

#[test]
fn a_file_that_is_not_a_capture_is_refused() {
    let e = import_fails("not-a-capture", b"{\"gpusim_trace\": 1}");
    assert_eq!(e, "gpusim: error: capture.gfxr: not a GFXReconstruct capture: the file starts with [7b, 22, 67, 70], not \"GFXR\"");
}

/// `gpusim check CAPTURE` imports the capture in memory and reports exactly what checking the
/// trace `gpusim import` writes reports: the same hazards, in the same words, the same status.
#[test]
fn check_takes_a_capture_as_it_takes_its_trace() {
    let dir = temp_dir("check-capture");
    let capture = captures().join("barrier-missing.gfxr");
    let trace = import(&dir, &capture, "barrier-missing");
    for report in ["json", "text"] {
        let direct = gpusim_in(&dir, &["check", capture.to_str().unwrap(), "--report", report]);
        let imported = gpusim_in(&dir, &["check", trace.to_str().unwrap(), "--report", report]);
        assert_eq!(direct.status.code(), Some(1), "{}", stderr(&direct));
        assert_eq!(direct.status.code(), imported.status.code());
        assert_eq!(String::from_utf8_lossy(&direct.stdout), String::from_utf8_lossy(&imported.stdout), "--report {report}");
        assert!(String::from_utf8_lossy(&direct.stdout).contains("SYNC-HAZARD-READ-AFTER-WRITE"));
    }
    // Nothing of the in-memory import is left behind beside the capture.
    assert!(!captures().join("barrier-missing.pipeline0.spv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gpusim run` and `gpusim graph` take a capture too; a correct program runs clean.
#[test]
fn run_and_graph_take_a_capture() {
    let dir = temp_dir("run-capture");
    let capture = captures().join("barrier-correct.gfxr");
    let o = gpusim_in(&dir, &["run", capture.to_str().unwrap(), "--profile", "seed-l2", "--report", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["trace"], "barrier-correct", "{report}");
    let o = gpusim_in(&dir, &["graph", capture.to_str().unwrap(), "-o", "g.dot"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(dir.join("g.dot")).unwrap().starts_with("digraph"));
    // A capture under another name is known by its fourcc.
    std::fs::copy(&capture, dir.join("capture.bin")).unwrap();
    let o = gpusim_in(&dir, &["check", "capture.bin"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // `--fix` edits a trace's text, which a capture does not have.
    let o = gpusim_in(&dir, &["check", capture.to_str().unwrap(), "--fix", "-o", "fixed.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("write its trace first (gpusim import"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged capture given to `run`, `check`, `graph` or `replay` is refused as `gpusim import`
/// refuses it: exit status 2 and one line naming the block and its byte offset.
#[test]
fn a_damaged_capture_is_refused_by_every_subcommand() {
    let bytes = std::fs::read(captures().join("barrier-missing.gfxr")).unwrap();
    let b = &blocks(&bytes)[40];
    let dir = temp_dir("damaged-run");
    std::fs::write(dir.join("capture.gfxr"), &bytes[..b.offset as usize + 20]).unwrap();
    for args in [&["check", "capture.gfxr"][..], &["run", "capture.gfxr", "--profile", "ideal"], &["graph", "capture.gfxr", "-o", "g.dot"], &["replay", "capture.gfxr"]] {
        let o = gpusim_in(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.starts_with(&format!("gpusim: error: capture.gfxr: block 40 at byte {}: declared size", b.offset)), "{args:?}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

mod support;

/// Each fixture, imported, replays on a real driver (lavapipe here) under the validation layer:
/// the replay runs (exit status 0 or 1), the driver's bytes match the reference run's where the
/// replay compares them, the layer reports no error (performance warnings, such as the
/// GENERAL layout of the image fixtures' blit, are not errors), and the hazards the layer
/// reports are those the sidecar expects, each of them one gpusim reports too. Captures have
/// no host reads, so what the program read cannot be compared beyond that. Skips where Vulkan
/// is not available, as the other replay tests do.
#[test]
fn imported_captures_replay_under_the_validation_layer() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("imported_captures_replay_under_the_validation_layer", &reason);
        return;
    }
    let dir = temp_dir("replay");
    for (name, side) in &sidecars() {
        let trace = import(&dir, &captures().join(side["capture"].as_str().unwrap()), name);
        let o = gpusim_in(&dir, &["replay", trace.to_str().unwrap(), "--validate", "--report", "json"]);
        assert!(o.status.code().is_some_and(|c| c < 2), "{name}: {}", stderr(&o));
        let r: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{name}: {e}: {}", stderr(&o)));
        assert_eq!(r["iterations_with_corruption"], 0, "{name}: lavapipe is in order and coherent");
        let errors: Vec<&Value> = r["validation_errors"].as_array().unwrap().iter().filter(|e| e["severity"] != "warning").collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let hazards = r["hazards"].as_array().unwrap();
        let mut ids: Vec<&str> = hazards.iter().map(|h| h["id"].as_str().unwrap()).collect();
        ids.sort();
        ids.dedup();
        // The sidecar's expected verdict: the capture-time layer's, except where its note says
        // why gpusim's differs (semaphore-missing: the replay's layer, with its queue-submit
        // checks, reports the read after write across the two submissions as gpusim does).
        let expected: Vec<&str> = side["expect"]["hazards"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(ids, expected, "{name}: the layer's hazards on the replay");
        for h in hazards {
            assert_eq!(h["gpusim"]["call"], "agrees", "{name}: {h}");
        }
        assert_eq!(o.status.code(), Some(i32::from(!hazards.is_empty() || !r["validation_errors"].as_array().unwrap().is_empty())), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
