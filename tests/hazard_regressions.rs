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

/// A wait matches the set that signalled its event, the last before it in submission order that
/// found it unsignalled: a set in a later command buffer, with another dependency, waited in the
/// one after, is valid and correct.
#[test]
fn an_event_set_again_in_a_later_command_buffer_is_waited_with_that_sets_dependency() {
    let t = trace("event-set-again-in-a-later-command-buffer");
    assert_eq!(hazard_ids(&t), Vec::<String>::new());
    for profile in built_in_profiles() {
        let out = gpusim(&["run", &t, "--profile", &profile, "--schedules", "4"]);
        assert_eq!(out.status.code(), Some(0), "{profile}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
}

/// A set of an event already signalled has no effect: the wait after it covers only what came
/// before the first set, so the dispatch between the two sets races the copy. The detector says
/// why, and schedules show it.
#[test]
fn a_set_of_a_signalled_event_has_no_effect() {
    let t = trace("event-set-twice-without-reset");
    assert_eq!(hazard_ids(&t), ["SYNC-HAZARD-READ-AFTER-WRITE"]);
    let check: serde_json::Value = serde_json::from_slice(&gpusim(&["check", &t, "--report", "json"]).stdout).expect("json");
    let why = check["hazards"][0]["diagnosis"].as_str().expect("diagnosis");
    assert!(why.contains("found the event already signalled"), "{why}");
    let out = gpusim(&["run", &t, "--profile", "seed-l2", "--schedules", "4", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = r["corruption"]["findings"].as_array().expect("findings");
    assert!(!findings.is_empty() && findings.iter().all(|f| f["hazard"] == 0), "{findings:?}");
}
