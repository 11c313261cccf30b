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

/// Host writes to non-coherent memory invalidated before any flush are undefined: a hazard at
/// the invalidate says so, its fix flushes first, and every machine that loses the writes names
/// that hazard rather than blaming itself.
#[test]
fn an_invalidate_before_the_flush_is_a_hazard_that_explains_the_lost_writes() {
    let t = trace("host-invalidate-before-flush");
    assert_eq!(hazard_ids(&t), ["GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH"]);
    let mut lost = 0;
    for profile in ["seed-l2", "seed-vram", "ideal", "nvidia-like", "radv-gfx10", "radv-gfx9", "turnip-a6xx", "anv-gen12"] {
        let out = gpusim(&["run", &t, "--profile", profile, "--report", "json"]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{profile}: {}", String::from_utf8_lossy(&out.stderr)));
        let findings = r["corruption"]["findings"].as_array().expect("findings");
        lost += usize::from(!findings.is_empty());
        assert!(findings.iter().all(|f| f["hazard"] == 0), "{profile}: {findings:?}");
    }
    assert!(lost >= 7, "the invalidate discards the writes on the machines with a host cache");
    let fixed = std::env::temp_dir().join(format!("gpusim-regression-invalidate-{}.json", std::process::id()));
    let f = fixed.to_str().expect("utf-8");
    gpusim(&["check", &t, "--fix", "-o", f]);
    assert_eq!(hazard_ids(f), Vec::<String>::new(), "the fixed trace checks clean");
    let _ = std::fs::remove_file(&fixed);
}

/// The barriers of one vkCmdPipelineBarrier2 do not chain: COMPUTE_SHADER→COPY beside
/// COPY→COMPUTE_SHADER orders no dispatch after another. The detector says why, and the
/// engine no longer merges the two into one dependency that hides the race: a schedule shows
/// it on every profile whose driver does not wait for idle at a barrier.
#[test]
fn barriers_of_one_command_do_not_chain() {
    let t = trace("two-barriers-of-one-command-do-not-chain");
    assert_eq!(hazard_ids(&t), ["SYNC-HAZARD-READ-AFTER-WRITE"]);
    let check: serde_json::Value = serde_json::from_slice(&gpusim(&["check", &t, "--report", "json"]).stdout).expect("json");
    let why = check["hazards"][0]["diagnosis"].as_str().expect("diagnosis");
    assert!(why.contains("barriers do not chain with each other"), "{why}");
    for profile in ["seed-l2", "seed-vram", "radv-gfx10", "anv-gen12"] {
        let out = gpusim(&["run", &t, "--profile", profile, "--schedules", "4", "--report", "json"]);
        assert_eq!(out.status.code(), Some(1), "{profile}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let findings = r["corruption"]["findings"].as_array().expect("findings");
        assert!(!findings.is_empty() && findings.iter().all(|f| f["hazard"] == 0), "{profile}: {findings:?}");
    }
}

/// A missing srcAccessMask between two dispatches: no built-in machine needs a first-scope
/// operation to make a shader write available to another dispatch (write-through L1s, or an
/// invalidate that writes dirty lines back), and the report says so; a write-back L1 that keeps
/// dirty lines through an invalidate shows it.
#[test]
fn a_missing_src_access_between_dispatches_shows_on_a_write_back_l1() {
    let t = trace("dispatch-src-access-none");
    assert_eq!(hazard_ids(&t), ["SYNC-HAZARD-READ-AFTER-WRITE"]);
    let out = gpusim(&["run", &t, "--profile", "seed-l2", "--report", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let why = r["hazards"][0]["not_shown_because"].as_str().expect("why not shown");
    assert!(why.contains("needs no operation to be made available on seed-l2"), "{why}");
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/profiles/seed-l2-write-back-l1.toml");
    let out = gpusim(&["run", &t, "--profile", profile.to_str().expect("utf-8"), "--schedules", "4", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = r["corruption"]["findings"].as_array().expect("findings");
    assert!(!findings.is_empty() && findings.iter().all(|f| f["hazard"] == 0), "{findings:?}");
}

/// A fence's signal makes available only the writes no earlier signal made available: after a
/// fill submitted, fenced and waited for, the later fence no longer re-runs TRANSFER_WRITE's
/// "invalidate L2" on seed-l2 (which wrote the dispatch's dirty lines back and hid the missing
/// HOST_READ barrier), and the stale host read shows there as it does without the fill.
#[test]
fn an_earlier_fenced_fill_does_not_hide_a_missing_host_read_barrier() {
    let t = trace("host-read-barrier-missing-after-a-fenced-fill");
    let out = gpusim(&["run", &t, "--profile", "seed-l2", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let differing = r["host_reads"].as_array().expect("host reads").iter().filter(|h| h["differing_bytes"].as_u64() > Some(0)).count();
    assert_eq!(differing, 1, "{}", r["host_reads"]);
}

/// A missing invalidate before a host read of memory that is neither HOST_COHERENT nor
/// HOST_CACHED: a hazard all the same, which no machine can show (the host reads uncached), and
/// the report says so.
#[test]
fn a_missing_invalidate_of_uncached_memory_says_why_it_cannot_show() {
    let t = trace("host-uncached-readback-missing-invalidate");
    assert_eq!(hazard_ids(&t), ["GPUSIM-HOST-MISSING-INVALIDATE"]);
    let out = gpusim(&["run", &t, "--profile", "seed-l2", "--report", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let why = r["hazards"][0]["not_shown_because"].as_str().expect("why not shown");
    assert!(why.contains("is not HOST_CACHED, so the host reads it uncached"), "{why}");
}
