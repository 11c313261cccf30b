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
    // The dropped calls are listed, each once, with where the first was.
    assert!(stderr(&o).contains("dropped 1 x vkCreateInstance (first at call"), "{}", stderr(&o));
    out
}

#[test]
fn captures_import_and_agree_with_the_validation_layer() {
    let sidecars = sidecars();
    assert_eq!(sidecars.len(), 7, "tests/captures holds seven programs");
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
