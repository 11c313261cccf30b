//! Shared helpers of the integration tests.

#![allow(dead_code)]

pub mod vulkan;

use std::path::{Path, PathBuf};

/// The traces (`*.json`, not `*.expect.json`) of a directory under the workspace root, sorted.
pub fn traces(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    v.sort();
    v
}

/// Decodes the RGB PNG at `path`: (width, height, RGB bytes).
pub fn png_rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Writes the trace at `path` back with gpusim's trace writer (as `name`) and loads what it
/// wrote: both run on `profile` (seed 3) to the same report, and writing the reloaded trace
/// gives the same text. Returns the written text.
pub fn round_trip(path: &Path, name: &str, profile: &str) -> String {
    let t = sim_core::trace::load(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let written = sim_core::trace::write::to_trace(&t.workload, name, None).unwrap().text;
    let again = sim_core::trace::load_str(&written, None).unwrap_or_else(|e| panic!("{name}: {e}\n{written}"));
    assert_eq!(sim_core::trace::write::to_trace(&again.workload, name, None).unwrap().text, written, "{name}: written twice, the same text");
    let p = sim_core::profile::Profile::builtin(profile).unwrap();
    let report = |w: &sim_core::api::Workload| serde_json::to_string(&sim_core::engine::run_workload(w, &p, 3).unwrap()).unwrap();
    assert_eq!(report(&again.workload), report(&t.workload), "{name}: the same report");
    written
}
