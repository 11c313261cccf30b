//! `gpusim profile list|show`, run as a user would run them.

use std::process::Command;

fn gpusim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("gpusim runs")
}

#[test]
fn list_names_every_builtin_with_a_description() {
    let out = gpusim(&["profile", "list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["seed-l2", "seed-vram", "ideal"] {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} missing from:\n{text}"));
        assert!(line.len() > name.len() + 10, "{line}");
    }
}

/// `ideal` has no caches, so no stale copy can be read; but commands still overlap unless an
/// execution dependency orders them, so its description must not promise a clean run, and a
/// trace missing one is reported as corrupt there too.
#[test]
fn ideal_description_matches_what_it_does() {
    let out = gpusim(&["profile", "list"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("ideal")).expect("ideal listed");
    assert!(!line.contains("never corrupts"), "{line}");
    assert!(line.contains("only missing execution dependencies can corrupt"), "{line}");
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/traces/fill-then-dispatch-missing.json");
    let out = gpusim(&["run", trace, "--profile", "ideal"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn show_seed_l2_prints_the_grid() {
    let out = gpusim(&["profile", "show", "seed-l2", "--grid"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("L2 "), "{text}");
    assert!(text.contains("256 KiB, 64 B lines, 16 ways, lru, write-back-byte-mask"), "{text}");
    assert!(text.contains("non_coherent_atom_size"), "{text}");
    let header = text.lines().find(|l| l.starts_with("access ")).expect("grid header");
    for col in ["DRAW_INDIRECT", "VERTEX_INPUT", "VERTEX_SHADER", "FRAGMENT_SHADER", "EARLY/LATE_FRAGMENT_TESTS", "COLOR_ATTACHMENT_OUTPUT", "COMPUTE_SHADER", "TRANSFER", "HOST"] {
        assert!(header.contains(col), "{header}");
    }
    let cells = |access: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.split(" | ").next().map(str::trim) == Some(access)).unwrap_or_else(|| panic!("row {access}"));
        line.split(" | ").map(|c| c.trim().to_string()).collect()
    };
    let color = cells("COLOR_ATTACHMENT_WRITE");
    assert_eq!(color.len(), 10);
    assert_eq!(color[6], "src: flush ROP, invalidate L2 / dst: invalidate ROP, flush L2");
    assert_eq!(color[1], "-");
    let read = cells("SHADER_READ");
    assert_eq!(read[3], "dst: invalidate L1, T$");
    assert_eq!(read[4], "dst: invalidate L1, T$");
    assert_eq!(read[7], "dst: invalidate L1, T$", "COMPUTE_SHADER");
    assert_eq!(read[8], "-");
    let host = cells("HOST_WRITE");
    assert_eq!(host[9], "src: invalidate L2 / dst: flush L2");
}

/// The default text fits a 100-column terminal, for every built-in profile and the example
/// profiles, and names COMPUTE_SHADER among the stages of each shader access.
#[test]
fn show_fits_100_columns() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/profiles/");
    let list = String::from_utf8(gpusim(&["profile", "list"]).stdout).unwrap();
    let mut profiles: Vec<String> = list.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect();
    profiles.push(format!("{dir}seed-l2-line-dirty-l2.toml"));
    profiles.push(format!("{dir}seed-vram-line-dirty-l2.toml"));
    for p in &profiles {
        let out = gpusim(&["profile", "show", p]);
        assert!(out.status.success(), "{p}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{p}: a line of {} columns: {line}", line.chars().count());
        }
    }
    let text = String::from_utf8(gpusim(&["profile", "show", "seed-vram"]).stdout).unwrap();
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("barrier table")).collect();
    let at = rows.iter().position(|l| *l == "SHADER_WRITE").expect("a SHADER_WRITE row");
    assert_eq!(rows[at + 1], "  at VERTEX_SHADER, FRAGMENT_SHADER, COMPUTE_SHADER");
    assert_eq!(rows[at + 2], "    src  flush L2");
    assert_eq!(rows[at + 3], "    dst  invalidate L2");
}

/// `--toml` prints a complete profile: it loads back, on its own, to the same machine.
#[test]
fn show_toml_prints_a_complete_editable_profile() {
    let dir = std::env::temp_dir().join(format!("gpusim-profile-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/profiles/seed-vram-line-dirty-l2.toml");
    for p in ["seed-l2", "seed-vram", "ideal", "nvidia-like", examples] {
        let out = gpusim(&["profile", "show", p, "--toml"]);
        assert!(out.status.success(), "{p}: {}", String::from_utf8_lossy(&out.stderr));
        let file = dir.join("complete.toml");
        std::fs::write(&file, &out.stdout).unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("base = \"none\""), "{text}");
        let json = |what: &str| -> serde_json::Value {
            let mut v: serde_json::Value = serde_json::from_slice(&gpusim(&["profile", "show", what, "--json"]).stdout).expect("json");
            v["profile"]["base"] = serde_json::Value::Null;
            v
        };
        assert_eq!(json(file.to_str().unwrap()), json(p), "{p}: the printed profile loads back to the same one");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn show_json_parses() {
    let out = gpusim(&["profile", "show", "seed-vram", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["profile"]["name"], "seed-vram");
    assert_eq!(v["profile"]["machine"]["transfer"]["path"], "direct-to-vram");
    assert_eq!(v["barrier_grid"]["columns"].as_array().unwrap().len(), 9);
    let row = &v["barrier_grid"]["rows"][0];
    assert_eq!(row["access"], "SHADER_WRITE");
    assert_eq!(row["cells"][2]["src"][0], "flush L2");
}

#[test]
fn a_bad_profile_exits_2_with_a_located_message() {
    let dir = std::env::temp_dir().join(format!("gpusim-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(&file, "base = \"seed-l2\"\n\n[machine.l2.cache]\nline_bytes = 96\n").unwrap();
    let out = gpusim(&["profile", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad.toml:4:14: machine.l2.cache.line_bytes: 96 is not a power of two"), "{err}");
    let out = gpusim(&["profile", "show", "no-such-profile"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("not a built-in profile"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output that cannot be written is an error with exit status 2, not a panic (status 101); a
/// reader that closed the pipe early is no error at all.
#[cfg(target_os = "linux")]
#[test]
fn unwritable_output_is_an_error_not_a_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["profile", "show", "seed-l2"]).stdout(full).output().expect("gpusim runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("gpusim: error: cannot write to standard output: No space left on device"), "{err}");
    // The reader takes nothing and goes away: the listing ends quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(["profile", "show", "seed-l2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("gpusim runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("gpusim ends");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
