//! Every example trace against the table in `docs/REPLAY.md`: the built-in profiles on which
//! `gpusim run` finds corruption, and the hazards the validation layer reports when the trace is
//! replayed on a real driver; on lavapipe (in order, coherent) the device's bytes must equal the
//! reference run's in every iteration.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const PROFILES: [&str; 8] = ["seed-l2", "seed-vram", "ideal", "nvidia-like", "radv-gfx10", "radv-gfx9", "turnip-a6xx", "anv-gen12"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    support::traces("examples/traces")
}

/// The table's rows: example name -> (gpusim's corruption column, gpusim's hazards column, the
/// layer's column, why they differ).
fn table() -> BTreeMap<String, (String, String, String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/REPLAY.md")).expect("docs/REPLAY.md");
    let mut rows = BTreeMap::new();
    let section = doc.lines().skip_while(|l| !l.starts_with("| example |")).take_while(|l| !l.is_empty());
    for line in section.filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let name = cells[0].trim_start_matches("| `").trim_end_matches('`').to_string();
        assert!(rows.insert(name.clone(), (cells[1].to_string(), cells[2].to_string(), cells[3].to_string(), cells.get(4).map_or(String::new(), |c| c.trim_end_matches(" |").to_string()))).is_none(), "{name} is in the table twice");
    }
    rows
}

fn stem(p: &Path) -> String {
    p.file_stem().expect("stem").to_string_lossy().into_owned()
}

#[test]
fn the_table_lists_every_example_with_gpusims_verdicts() {
    let rows = table();
    let names: Vec<String> = examples().iter().map(|p| stem(p)).collect();
    assert_eq!(rows.keys().cloned().collect::<Vec<_>>(), names, "docs/REPLAY.md's table and examples/traces differ");
    for t in examples() {
        let corrupt: Vec<&str> = PROFILES
            .iter()
            .copied()
            .filter(|p| {
                let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", "--profile", p, "--report", "json"]).arg(&t).output().expect("run gpusim");
                assert!(out.status.code().is_some_and(|c| c < 2), "{}: {}", t.display(), String::from_utf8_lossy(&out.stderr));
                // Corruption (stale reads, final memory, host reads), not hazards.
                let r: Value = serde_json::from_slice(&out.stdout).expect("json report");
                r["corruption"]["stale_reads"].as_u64() > Some(0)
                    || r["corruption"]["corrupted_bytes"].as_u64() > Some(0)
                    || r["host_reads"].as_array().is_some_and(|h| h.iter().any(|h| h["differing_bytes"].as_u64() > Some(0)))
            })
            .collect();
        let cell = if corrupt.is_empty() { "—".to_string() } else { corrupt.join(", ") };
        assert_eq!(rows[&stem(&t)].0, cell, "{}: gpusim column", t.display());
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", "--report", "json"]).arg(&t).output().expect("run gpusim");
        let r: Value = serde_json::from_slice(&out.stdout).expect("json report");
        assert_eq!(rows[&stem(&t)].1, hazards_cell(&r), "{}: gpusim hazards column", t.display());
    }
}

/// A report's hazards as the table writes them: `RAW cb0[2]; WAW cb0[3..66]; RAW timeline[3]`.
fn hazards_cell(report: &Value) -> String {
    let short = |id: &str| match id {
        "SYNC-HAZARD-READ-AFTER-WRITE" => "RAW".to_string(),
        "SYNC-HAZARD-WRITE-AFTER-READ" => "WAR".to_string(),
        "SYNC-HAZARD-WRITE-AFTER-WRITE" => "WAW".to_string(),
        "SYNC-HAZARD-READ-RACING-WRITE" => "RRW".to_string(),
        "SYNC-HAZARD-WRITE-RACING-WRITE" => "WRW".to_string(),
        "SYNC-HAZARD-WRITE-RACING-READ" => "WRR".to_string(),
        other => other.trim_start_matches("GPUSIM-HOST-").to_string(),
    };
    // Runs of one id on consecutive commands of one command buffer are written as a range.
    let mut runs: Vec<(String, String, u64, u64)> = Vec::new();
    for h in report["hazards"].as_array().expect("hazards") {
        let id = short(h["id"].as_str().expect("id"));
        let (cb, k) = match h["at"]["command_buffer"].as_str() {
            Some(cb) => (cb.to_string(), h["at"]["command"].as_u64().expect("command")),
            None => ("timeline".to_string(), h["at"]["timeline"].as_u64().expect("timeline")),
        };
        match runs.last_mut() {
            Some(r) if r.0 == id && r.1 == cb && r.3 + 1 == k => r.3 = k,
            _ => runs.push((id, cb, k, k)),
        }
    }
    if runs.is_empty() {
        return "—".into();
    }
    runs.iter().map(|(id, cb, a, b)| if a == b { format!("{id} {cb}[{a}]") } else { format!("{id} {cb}[{a}..{b}]") }).collect::<Vec<_>>().join("; ")
}

#[test]
fn every_example_replays_under_the_layer_as_the_table_says() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("every_example_replays_under_the_layer_as_the_table_says", &reason);
        return;
    }
    let rows = table();
    for t in examples() {
        let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["replay", "--validate", "--iterations", "2", "--report", "json"]).arg(&t).output().expect("run gpusim");
        assert!(out.status.code().is_some_and(|c| c < 2), "{}: {}", t.display(), String::from_utf8_lossy(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).expect("json report");
        assert_eq!(r["iterations"], 2);
        // The table records Debian 12's layer; another version's verdicts are only noted.
        if r["replay"]["validation_layer"] == "VK_LAYER_KHRONOS_validation 1.3.239" {
            assert_eq!(rows[&stem(&t)].2, hazards_cell(&r), "{}: layer column", t.display());
        } else if rows[&stem(&t)].2 != hazards_cell(&r) {
            support::vulkan::note(&format!("{}: {} reports {}, the table (1.3.239) {}", t.display(), r["replay"]["validation_layer"], hazards_cell(&r), rows[&stem(&t)].2));
        }
        // Each layer hazard carries gpusim's call on it; where they part, the table's last
        // column gives the same reason.
        let why = &rows[&stem(&t)].3;
        for h in r["hazards"].as_array().expect("hazards") {
            let call = h["gpusim"]["call"].as_str().unwrap_or_else(|| panic!("{}: no gpusim call on {h}", t.display()));
            let said: &[&str] = match call {
                "agrees" => continue,
                "fill_stage" => &["fill stage", "at the COPY stage"],
                "coherent" => &["`Coherent`"],
                "bound_range" => &["whole bound range"],
                other => panic!("{}: gpusim {other} with the layer on {h}", t.display()),
            };
            assert!(said.iter().any(|s| why.contains(s)), "{}: gpusim calls {h} `{call}`, the table says {why:?}", t.display());
        }
        for g in r["gpusim_check"].as_array().expect("gpusim_check") {
            if g["on_accessed_bytes"] == true && g["layer"] == "the layer does not check host accesses" {
                assert!(why.contains("host accesses"), "{}: {g}; the table says {why:?}", t.display());
            }
        }
        assert_eq!(r["validation_errors"].as_array().map(Vec::len), Some(0), "{}: {}", t.display(), r["validation_errors"]);
        if r["replay"]["device"]["driver"] == "llvmpipe" {
            // In order and coherent: what the device read is what the reference run read.
            assert_eq!(r["iterations_with_corruption"], 0, "{}: {}", t.display(), r["corruption"]);
            for h in r["host_reads"].as_array().expect("host reads") {
                assert_eq!(h["differing_iterations"], 0, "{}: {h}", t.display());
            }
        }
    }
}

/// `examples/traces/README.md` names, for each `-missing` example, the built-in machines on which
/// it corrupts: the same as `docs/REPLAY.md`'s column (checked against the runs above). None
/// comes back clean everywhere, and each shows on the default machine, seed-vram, unless its row
/// says why it cannot there.
#[test]
fn the_examples_readme_names_where_each_mistake_shows() {
    let readme = std::fs::read_to_string(root().join("examples/traces/README.md")).expect("examples/traces/README.md");
    let mut named = BTreeMap::new();
    for line in readme.lines().filter(|l| l.starts_with("| ") && l.matches(" | ").count() == 2) {
        let cells: Vec<&str> = line.trim_start_matches("| ").trim_end_matches(" |").split(" | ").collect();
        let first = cells[0].split(" / ").next().unwrap_or_default().to_string();
        if first.ends_with("-missing") || first.contains("-missing-") {
            named.insert(first, (cells[1].to_string(), cells[2].to_string()));
        }
    }
    let rows = table();
    let missing: Vec<String> = examples().iter().map(|p| stem(p)).filter(|n| n.contains("-missing")).collect();
    assert_eq!(named.keys().cloned().collect::<Vec<_>>(), missing, "every -missing example has a row in examples/traces/README.md");
    for (name, (what, shows_on)) in &named {
        assert_eq!(shows_on, &rows[name].0, "{name}: examples/traces/README.md and docs/REPLAY.md differ");
        assert_ne!(shows_on, "—", "{name} corrupts on no built-in machine");
        assert!(shows_on.split(", ").any(|p| p == "seed-vram") || what.contains("does not show there"), "{name}: not shown on the default machine, and the row does not say why");
    }
}
