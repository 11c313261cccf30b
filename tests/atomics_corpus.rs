//! Correct programs whose bytes an atomic decides (`tests/corpus/atomics/`): which workgroup
//! lands in which slot, which one wins a compare-exchange, which buffer a workgroup writes. They
//! are clean on every built-in profile, the reference run knows which of their bytes depend on
//! timing, and a device that left other values in those bytes only is not reported corrupt.

mod support;

use std::path::Path;
use std::process::Command;

use sim_core::engine::{RunLimits, reference_outcome};

fn gpusim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("run gpusim")
}

fn trace(name: &str) -> sim_core::trace::LoadedTrace {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/atomics").join(format!("{name}.json"));
    sim_core::trace::load(&p).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn atomic_outcomes_are_no_hazard_and_no_corruption_on_any_profile() {
    let traces = support::traces("tests/corpus/atomics");
    assert_eq!(traces.len(), 4);
    let profiles = String::from_utf8(gpusim(&["profile", "list"]).stdout).expect("utf-8");
    let profiles: Vec<&str> = profiles.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(profiles.len() >= 8, "{profiles:?}");
    for t in &traces {
        let t = t.to_str().expect("utf-8");
        let check = gpusim(&["check", t]);
        assert_eq!(check.status.code(), Some(0), "{t}: {}", String::from_utf8_lossy(&check.stdout));
        for p in &profiles {
            let out = gpusim(&["run", t, "--profile", p, "--schedules", "8"]);
            assert_eq!(out.status.code(), Some(0), "{t} on {p}: {}", String::from_utf8_lossy(&out.stdout));
        }
    }
}

/// The reference run marks the bytes an atomic decides, and only those: slots a ticket picks, the
/// compare-exchange's winner; not the count every workgroup adds to, not bytes no one writes.
#[test]
fn the_reference_knows_which_bytes_depend_on_timing() {
    let limits = RunLimits::default();
    let memory = |t: &sim_core::trace::LoadedTrace, name: &str| t.workload.memories.iter().position(|m| m.name == name).expect("memory");

    let t = trace("ticket-picks-the-slot");
    let r = reference_outcome(&t.workload, 32, &limits).unwrap();
    let out = memory(&t, "out_mem");
    let marked: Vec<usize> = (0..4096).filter(|&k| r.memory_timing_dependent(out, k)).collect();
    assert!(!marked.is_empty() && marked.iter().all(|&k| k < 16 * 4), "the 16 slots, nothing past them: {marked:?}");
    assert!((0..256).all(|k| !r.memory_timing_dependent(memory(&t, "ctr_mem"), k)), "the counter ends at 16 in every order");
    assert!(r.host_read_timing_dependent(2, 0), "the host read of the slots");

    let t = trace("compare-exchange-elects-a-winner");
    let r = reference_outcome(&t.workload, 32, &limits).unwrap();
    let out = memory(&t, "out_mem");
    assert!(r.memory_timing_dependent(out, 0), "the winner's id");
    assert!((4..8).all(|k| !r.memory_timing_dependent(out, k)), "the count of workgroups");

    // Without atomics, nothing depends on timing.
    let plain = sim_core::trace::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/fill-then-dispatch-correct.json")).unwrap();
    let r = reference_outcome(&plain.workload, 32, &limits).unwrap();
    assert!(r.memory_timing.iter().all(Vec::is_empty) && r.host_read_timing.is_empty());
}

/// What a replay counts: a device that left other values in the timing-dependent bytes only is
/// not corrupt; one byte elsewhere is.
#[test]
fn a_replay_counts_only_bytes_that_do_not_depend_on_timing() {
    let t = trace("compare-exchange-elects-a-winner");
    let r = reference_outcome(&t.workload, 32, &RunLimits::default()).unwrap();
    let out = t.workload.memories.iter().position(|m| m.name == "out_mem").expect("memory");
    let read = r.memories[out].as_ref().expect("compared");
    let mut seen = read.bytes.clone();
    seen[0] ^= 0x0f;
    let (n, first, timing, _) = sim_vulkan::run::compare(&r, read, &seen, 0, |k| r.memory_timing_dependent(out, k));
    assert_eq!((n, timing), (0, 1), "another winner is a legal outcome");
    assert!(first.is_none());
    seen[4] ^= 1;
    let (n, first, timing, _) = sim_vulkan::run::compare(&r, read, &seen, 0, |k| r.memory_timing_dependent(out, k));
    assert_eq!((n, timing), (1, 1), "a wrong count is corruption");
    assert_eq!(first.map(|f| f.0), Some(4));
}

/// On a real driver (lavapipe in CI) under the validation layer: no iteration corrupt, whatever
/// winner each took.
#[test]
fn replays_of_atomic_outcomes_are_not_corrupt() {
    if let Some(reason) = support::vulkan::unavailable() {
        support::vulkan::skip("replays_of_atomic_outcomes_are_not_corrupt", &reason);
        return;
    }
    for t in support::traces("tests/corpus/atomics") {
        let t = t.to_str().expect("utf-8");
        let out = gpusim(&["replay", t, "--iterations", "20", "--report", "json"]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{t}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(r["iterations_with_corruption"], 0, "{t}: {r}");
    }
}
