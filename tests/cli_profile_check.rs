//! `gpusim profile check`: every built-in profile is sound for a fixed, bounded set of random
//! correctly synchronized programs; the non-conforming example profiles and a table with rows
//! left out are caught, with a shrunk program and what it showed.

use std::process::{Command, Output};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("run gpusim")
}

#[test]
fn every_builtin_profile_is_sound() {
    let list = String::from_utf8(gpusim(&["profile", "list"]).stdout).expect("utf-8");
    let names: Vec<&str> = list.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.len() >= 4, "{list}");
    for p in names {
        let out = gpusim(&["profile", "check", p, "--seed", "0", "--programs", "48", "--report", "json"]);
        assert_eq!(out.status.code(), Some(0), "{p}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(r["sound"], true);
        assert_eq!(r["programs"], 48);
        // Every row is judged, needed or not.
        let rows = r["rows"].as_array().expect("rows");
        let table: serde_json::Value = serde_json::from_slice(&gpusim(&["profile", "show", p, "--json"]).stdout).expect("json");
        assert_eq!(rows.len(), table["profile"]["barriers"]["rows"].as_array().map_or(0, Vec::len), "{p}");
    }
    // seed-l2's L1 must be invalidated for shader reads: some program needs that row.
    let out = gpusim(&["profile", "check", "seed-l2", "--programs", "48", "--report", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let read = r["rows"].as_array().unwrap().iter().find(|x| x["access"] == "SHADER_READ").expect("a SHADER_READ row");
    assert_eq!(read["needed"], true, "{r}");
}

#[test]
fn the_line_dirty_profiles_are_caught() {
    for (file, shows) in [("seed-l2-line-dirty-l2.toml", "first half of each 64-byte line"), ("seed-vram-line-dirty-l2.toml", "first half of each 64-byte line")] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/profiles/").to_string() + file;
        let out = gpusim(&["profile", "check", &path, "--programs", "48", "--no-rows"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{file}: {text}");
        assert!(text.contains("UNSOUND: program") && text.contains("shrunk from"), "{text}");
        assert!(text.contains(shows), "{file}: the shrunk program names the neighbouring writes: {text}");
    }
}

#[test]
fn a_table_missing_rows_is_caught_with_the_rows_involved() {
    let dir = std::env::temp_dir().join(format!("gpusim-profile-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("no-l1-invalidate.toml");
    // seed-l2 with only its uniform-cache row: shader reads never invalidate the L1.
    std::fs::write(&file, "name = \"no-l1-invalidate\"\nbase = \"seed-l2\"\n\n[[barriers.rows]]\naccess = \"UNIFORM_READ\"\ndst = [\"invalidate U$\"]\n").unwrap();
    let out = gpusim(&["profile", "check", file.to_str().unwrap(), "--programs", "64", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["sound"], false);
    let ops = r["unsound"]["ops"].as_array().expect("ops");
    assert!(!ops.is_empty() && ops.len() <= r["unsound"]["original_ops"].as_u64().unwrap() as usize);
    let why = r["unsound"]["explanation"].as_array().expect("explanation").iter().map(|l| l.as_str().unwrap_or_default()).collect::<Vec<_>>().join(" ");
    // Which difference the shrunk program shows depends on the random programs; every one
    // names the rows involved.
    assert!(why.contains("Table rows involved"), "{why}");
    assert_eq!(r["rows"], serde_json::Value::Null, "no row search on an unsound table");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_exit_2() {
    for args in [&["profile", "check", "seed-l2", "--programs", "0"][..], &["profile", "check", "seed-l2", "--ops", "0"], &["profile", "check", "no-such-profile"]] {
        let out = gpusim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("gpusim: error:"), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// On a terminal, `profile check` shows its progress (programs run), and clears it before the
/// report; piped, it prints the report alone. The terminal is `script`'s (util-linux), where
/// there is one.
#[test]
fn profile_check_shows_progress_on_a_terminal() {
    let gpusim = env!("CARGO_BIN_EXE_gpusim");
    let command = format!("{gpusim} profile check ideal --programs 8 --no-rows");
    let Ok(out) = std::process::Command::new("script").args(["-qec", &command, "/dev/null"]).output() else {
        eprintln!("skipping profile_check_shows_progress_on_a_terminal: no `script` here");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("programs 8/8"), "{text}");
    assert!(text.contains("SOUND"), "{text}");
    let piped = std::process::Command::new(gpusim).args(["profile", "check", "ideal", "--programs", "8", "--no-rows"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("programs 8/8"));
}

/// `--save-counterexample` writes the shrunk program as a trace that `run` shows corrupting on
/// the same profile and schedule seed, and that `check` and `graph` take; on a sound table it
/// writes nothing, and a file in a folder that does not exist is refused before anything runs.
#[test]
fn the_counterexample_is_saved_as_a_trace() {
    let dir = std::env::temp_dir().join(format!("gpusim-counterexample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/profiles/seed-vram-line-dirty-l2.toml");
    let file = dir.join("counterexample.json");
    let f = file.to_str().unwrap();
    let out = gpusim(&["profile", "check", profile, "--programs", "48", "--no-rows", "--report", "json", "--save-counterexample", f]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let seed = r["unsound"]["schedule_seed"].as_u64().expect("schedule_seed").to_string();
    assert!(String::from_utf8_lossy(&out.stderr).contains("counterexample written to"), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).expect("a JSON trace");
    assert_eq!(trace["gpusim_trace"], 1);
    assert_eq!(trace["name"], "counterexample");
    let run = gpusim(&["run", f, "--profile", profile, "--seed", &seed, "--report", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(report["hazards"], serde_json::json!([]), "a correctly synchronized program: no hazard explains it");
    // A built-in profile is sound for it.
    assert_eq!(gpusim(&["run", f, "--profile", "seed-vram", "--schedules", "2"]).status.code(), Some(0));
    assert_ne!(gpusim(&["check", f]).status.code(), Some(2));
    assert_eq!(gpusim(&["graph", f, "-o", dir.join("g.dot").to_str().unwrap()]).status.code(), Some(0));
    let none = dir.join("none.json");
    let out = gpusim(&["profile", "check", "ideal", "--programs", "4", "--no-rows", "--save-counterexample", none.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!none.exists());
    let missing = dir.join("no-such-folder/ce.json");
    let out = gpusim(&["profile", "check", "ideal", "--save-counterexample", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
