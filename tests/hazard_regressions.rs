//! Programs that once fooled the hazard detector or its fixer (`tests/corpus/regressions/`).

use std::path::Path;
use std::process::{Command, Output};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("run gpusim")
}

fn trace(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/regressions").join(format!("{name}.json")).to_string_lossy().into_owned()
}

fn hazard_ids(t: &str) -> Vec<String> {
    let out = gpusim(&["check", t, "--report", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{t}: {}", String::from_utf8_lossy(&out.stderr)));
    r["hazards"].as_array().expect("hazards").iter().map(|h| h["id"].as_str().expect("id").to_string()).collect()
}

/// Correct host reads: a barrier to the host that a semaphore's copy of the state must not
/// hide, and one in a later submission after the fence wait.
#[test]
fn correct_host_reads_have_no_hazard() {
    for name in ["host-read-after-semaphore-copy", "host-read-barrier-in-later-submission"] {
        let t = trace(name);
        assert_eq!(hazard_ids(&t), Vec::<String>::new(), "{name}");
        for profile in ["seed-l2", "seed-vram", "ideal"] {
            assert_eq!(gpusim(&["run", &t, "--profile", profile]).status.code(), Some(0), "{name} on {profile}");
        }
    }
}

/// The missing flush's fix flushes the upload's atoms, not the device-written region beside it.
#[test]
fn a_flush_fix_covers_only_the_host_writes_atoms() {
    let t = trace("missing-flush-beside-device-region");
    assert_eq!(hazard_ids(&t), ["GPUSIM-HOST-MISSING-FLUSH"]);
    let fixed = std::env::temp_dir().join(format!("gpusim-regression-flush-{}.json", std::process::id()));
    let f = fixed.to_str().expect("utf-8");
    gpusim(&["check", &t, "--fix", "-o", f]);
    assert_eq!(hazard_ids(f), Vec::<String>::new(), "the fixed trace checks clean");
    let _ = std::fs::remove_file(&fixed);
}

/// Two writes ordered only by accident of a held-back queue race; no semaphore can fix it.
#[test]
fn a_race_behind_a_held_back_queue_is_reported_not_fixed() {
    let t = trace("racing-write-after-held-back-queue");
    assert_eq!(hazard_ids(&t), ["SYNC-HAZARD-WRITE-RACING-WRITE"]);
    let fixed = std::env::temp_dir().join(format!("gpusim-regression-race-{}.json", std::process::id()));
    let out = gpusim(&["check", &t, "--fix", "-o", fixed.to_str().expect("utf-8")]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not fixed"), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_file(&fixed);
}

/// Visibility does not pass from one read to the next: a fill made visible to a copy's
/// TRANSFER_READ, then an execution-only barrier from the copy to a dispatch, leaves the fill
/// invisible to the dispatch's storage reads. The validation layer's most-recent-access rule
/// skips that read (ordered after a read it checked); gpusim reports it, and a run that shows
/// the stale L1 lines names it rather than blaming the machine.
#[test]
fn visibility_does_not_pass_between_reads() {
    let t = trace("visibility-does-not-pass-between-reads");
    assert_eq!(hazard_ids(&t), ["SYNC-HAZARD-READ-AFTER-WRITE"]);
    let check: serde_json::Value = serde_json::from_slice(&gpusim(&["check", &t, "--report", "json"]).stdout).expect("json");
    let why = check["hazards"][0]["diagnosis"].as_str().expect("diagnosis");
    assert!(why.contains("visibility does not pass along the chain") && why.contains("SHADER_STORAGE_READ"), "{why}");
    let out = gpusim(&["run", &t, "--profile", "seed-vram", "--report", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = r["corruption"]["findings"].as_array().expect("findings");
    assert!(!findings.is_empty(), "the second dispatch reads the L1 lines from before the fill");
    assert!(findings.iter().all(|f| f["hazard"] == 0), "{findings:?}");
}

/// The built-in profiles, as `gpusim profile list` names them.
fn built_in_profiles() -> Vec<String> {
    let out = gpusim(&["profile", "list"]);
    let list: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect();
    assert!(list.len() >= 8, "{list:?}");
    list
}

/// Two dispatches, or two submissions of one, that touch a word only through atomics: two
/// mutually-ordered atomic operations are no data race (the memory model), and the layer's
/// positive tests (`AtomicAccessFromTwoDispatches`, `AtomicAccessFromTwoSubmits`) expect
/// silence. Neither `gpusim check` (whole bound ranges, the shader's atomic-only binding) nor
/// `gpusim run` (the bytes the reference run accessed) reports a hazard, and no built-in
/// machine corrupts them (atomics are performed at the coherence point).
#[test]
fn atomics_from_two_dispatches_or_submissions_are_no_hazard() {
    let profiles = built_in_profiles();
    for name in ["atomic-access-from-two-dispatches", "atomic-access-from-two-submits"] {
        let t = trace(name);
        assert_eq!(hazard_ids(&t), Vec::<String>::new(), "{name}");
        for profile in &profiles {
            let out = gpusim(&["run", &t, "--profile", profile, "--schedules", "8", "--report", "json"]);
            assert_eq!(out.status.code(), Some(0), "{name} on {profile}: {}", String::from_utf8_lossy(&out.stderr));
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(r["hazards"], serde_json::json!([]), "{name} on {profile}");
            assert_eq!(r["corruption"]["findings"], serde_json::json!([]), "{name} on {profile}");
            assert_eq!(r["corruption"]["final_memory"], serde_json::json!([]), "{name} on {profile}");
        }
    }
}

/// An atomic is a data race with a plain access beside it: an atomic after a plain store, and
/// a plain load after an atomic, are still hazards; the atomic after the atomic between them is
/// not.
#[test]
fn atomics_beside_plain_accesses_are_still_hazards() {
    let t = trace("atomics-beside-plain-accesses");
    let key = |h: &serde_json::Value| format!("{} cb0[{}] <- cb0[{}]", h["id"].as_str().unwrap_or(""), h["at"]["command"], h["prior"]["command"]);
    let want = ["SYNC-HAZARD-WRITE-AFTER-WRITE cb0[1] <- cb0[0]", "SYNC-HAZARD-READ-AFTER-WRITE cb0[3] <- cb0[2]"];
    let check: serde_json::Value = serde_json::from_slice(&gpusim(&["check", &t, "--report", "json"]).stdout).expect("json");
    assert_eq!(check["hazards"].as_array().expect("hazards").iter().map(key).collect::<Vec<_>>(), want, "check");
    let run: serde_json::Value = serde_json::from_slice(&gpusim(&["run", &t, "--profile", "seed-vram", "--report", "json"]).stdout).expect("json");
    assert_eq!(run["hazards"].as_array().expect("hazards").iter().map(key).collect::<Vec<_>>(), want, "run");
}

/// The diagnosis of the one hazard `gpusim check` finds in `t`.
fn only_diagnosis(t: &str) -> String {
    let check: serde_json::Value = serde_json::from_slice(&gpusim(&["check", t, "--report", "json"]).stdout).expect("json");
    let hazards = check["hazards"].as_array().expect("hazards");
    assert_eq!(hazards.len(), 1, "{t}: {hazards:?}");
    hazards[0]["diagnosis"].as_str().expect("diagnosis").to_string()
}

/// BOTTOM_OF_PIPE in a first scope and TOP_OF_PIPE in a second perform no memory access, so
/// MEMORY_WRITE or MEMORY_READ beside them names none: the diagnosis blames the stage mask,
/// not the access mask, and the fix names the accesses' stages.
#[test]
fn access_masks_at_stages_that_access_nothing_blame_the_stage() {
    let why = only_diagnosis(&trace("bottom-of-pipe-memory-write-src"));
    assert!(why.contains("srcStageMask BOTTOM_OF_PIPE, a stage that performs no memory access") && why.contains("srcAccessMask MEMORY_WRITE names no access there"), "{why}");
    assert!(why.contains("must name COMPUTE_SHADER") && !why.contains("which does not include"), "{why}");
    let why = only_diagnosis(&trace("top-of-pipe-memory-read-dst"));
    assert!(why.contains("dstStageMask TOP_OF_PIPE, a stage that performs no memory access") && why.contains("dstAccessMask MEMORY_READ names no access there"), "{why}");
    assert!(why.contains("must name COMPUTE_SHADER") && !why.contains("but the access is"), "{why}");
}

/// A write after write whose earlier write was made available, only not visible: the memory
/// model asks no more, and the diagnosis says that gpusim follows the layer and the seed there.
#[test]
fn a_write_after_write_beyond_the_memory_model_says_so() {
    let t = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/syncval/rec-availability-without-visibility-waw.json");
    let why = only_diagnosis(t.to_str().expect("utf-8"));
    assert!(why.contains("dstAccessMask NONE") && why.contains("the memory model asks only that the earlier write be made available"), "{why}");
    // A read after write asks for visibility in the memory model too: no such clause.
    let why = only_diagnosis(&trace("top-of-pipe-memory-read-dst"));
    assert!(!why.contains("memory model"), "{why}");
}
