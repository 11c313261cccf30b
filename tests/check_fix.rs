//! `gpusim check --fix`: for every example and corpus scenario with hazards, the corrected
//! trace checks clean and runs clean on every built-in profile (the fix is the diagnosis's
//! suggested barrier, semaphore or host operation; a hazard no synchronization fixes is named on
//! stderr and left).

mod support;

use std::path::Path;
use std::process::{Command, Output};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("run gpusim")
}


#[test]
fn fixed_traces_check_and_run_clean() {
    let out_dir = std::env::temp_dir().join(format!("gpusim-fix-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut failures = Vec::new();
    let (mut fixed, mut unfixable) = (0, 0);
    for t in support::traces("examples/traces").into_iter().chain(support::traces("tests/corpus/syncval")) {
        let t = t.to_str().expect("utf-8");
        if gpusim(&["check", t]).status.code() == Some(0) {
            continue;
        }
        let name = Path::new(t).file_name().expect("name").to_string_lossy().into_owned();
        let out = out_dir.join(&name);
        let o = out.to_str().expect("utf-8");
        let fix = gpusim(&["check", t, "--fix", "-o", o]);
        assert_eq!(fix.status.code(), Some(1), "{name}: {}", String::from_utf8_lossy(&fix.stderr));
        if String::from_utf8_lossy(&fix.stderr).contains("not fixed") {
            unfixable += 1;
            continue;
        }
        fixed += 1;
        let check = gpusim(&["check", o]);
        if check.status.code() != Some(0) {
            failures.push(format!("{name}: the fixed trace still has hazards:\n{}", String::from_utf8_lossy(&check.stdout)));
            continue;
        }
        for profile in ["seed-l2", "seed-vram", "ideal"] {
            let run = gpusim(&["run", o, "--profile", profile, "--schedules", "2"]);
            if run.status.code() != Some(0) {
                failures.push(format!("{name} on {profile}: exit {:?}\n{}{}", run.status.code(), String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr)));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(fixed >= 50, "{fixed} traces fixed");
    assert_eq!(unfixable, 1, "only the partial-atom flush has no synchronization fix");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
