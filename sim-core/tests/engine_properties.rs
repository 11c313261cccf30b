//! Properties of the engine over random programs:
//! - a program whose dependent commands are all correctly synchronized (each hazard covered by
//!   a barrier naming exactly the stages and accesses involved; across a hand-off to another
//!   submission, a host wait on a fence or an idle queue or device, and perhaps a vkSetEvent that
//!   releases a submission made earlier on the other queue) matches the reference run on every
//!   built-in profile and several seeds, with one event set, waited and reset again and again
//!   (across command buffers too), atomics that pick which workgroup reads and which
//!   buffer a workgroup reads, host scratch memory the device never touches (flushed,
//!   invalidated and read back), and images cleared, uploaded, blitted, sampled and read back
//!   through layout transitions (compressed, fast-cleared and decompressed as each profile
//!   does);
//! - results are byte-identical whatever the number of host threads running them.

use proptest::prelude::*;
use rayon::prelude::*;
use sim_core::api::*;
use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::generators::random::{BUFFERS, IMAGES, Op, Wait, Weaken, WORDS, build, build_weakened};

fn op() -> impl Strategy<Value = Op> {
    let b = 0..BUFFERS;
    let pair = (b.clone(), b.clone()).prop_filter("distinct", |(s, d)| s != d);
    prop_oneof![
        (b.clone(), any::<u32>()).prop_map(|(dst, value)| Op::Fill { dst, value }),
        (b.clone(), 0..WORDS, any::<u32>()).prop_map(|(dst, word, value)| Op::Update { dst, word, value }),
        pair.clone().prop_map(|(src, dst)| Op::Copy { src, dst }),
        pair.clone().prop_map(|(src, dst)| Op::Add { src, dst }),
        pair.clone().prop_map(|(src, dst)| Op::Uniform { src, dst }),
        pair.clone().prop_map(|(src, dst)| Op::Winner { src, dst }),
        (b.clone(), b.clone(), b.clone()).prop_filter("dst apart", |(a, x, d)| a != d && x != d).prop_map(|(a, b, dst)| Op::Pick { a, b, dst }),
        pair.prop_map(|(src, dst)| Op::Halves { src, dst }),
        Just(Op::HostBeside),
        any::<bool>().prop_map(|across| Op::ViaEvent { across }),
        Just(Op::Split),
        (0..IMAGES, 0..4usize).prop_map(|(img, colour)| Op::ClearImage { img, colour }),
        (b.clone(), 0..IMAGES).prop_map(|(src, img)| Op::ToImage { src, img }),
        (0..IMAGES, b.clone()).prop_map(|(img, dst)| Op::FromImage { img, dst }),
        (0..IMAGES, b.clone()).prop_map(|(img, dst)| Op::SampleImage { img, dst }),
        (b.clone(), b.clone(), 0..IMAGES).prop_map(|(verts, src, img)| Op::Draw { verts, src, img }),
        (0..IMAGES, any::<bool>(), any::<bool>()).prop_map(|(src, mirror, linear)| Op::BlitImage { src, dst: (src + 1) % IMAGES, mirror, linear }),
        (0..2usize, prop_oneof![Just(Wait::Fence), Just(Wait::QueueIdle), Just(Wait::DeviceIdle)], any::<bool>())
            .prop_map(|(queue, wait, gated)| Op::Handoff { queue, wait: if gated { Wait::Fence } else { wait }, gated: gated && queue == 1 }),
    ]
}

/// Cases per property: `GPUSIM_PROPTEST_CASES` for a deeper run, else 12 in CI and 48 here.
fn cases() -> u32 {
    if let Some(n) = std::env::var("GPUSIM_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()) {
        return n;
    }
    if std::env::var("CI").is_ok() { 12 } else { 48 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn synchronized_programs_match_the_reference(ops in prop::collection::vec(op(), 1..12), seed in 0u64..1000) {
        let w = build(&ops);
        // A correctly synchronized program has no hazard, by the bytes accessed; by the bound
        // ranges too, unless a dispatch writes half of each line beside another writer (the
        // bound range takes the whole buffer as written, as the validation layer does).
        let halves = ops.iter().any(|o| matches!(o, Op::Halves { .. } | Op::HostBeside));
        let hazards = sim_core::hazard::detect(&w).unwrap();
        prop_assert!(halves || hazards.is_empty(), "hazards in a synchronized program: {hazards:?}\nops: {ops:?}");
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).unwrap();
            for s in [seed, seed + 1, seed + 2] {
                let r = run_workload(&w, &p, s).unwrap();
                prop_assert!(r.hazards.is_empty(), "{name} seed {s}: hazards {:?}\nops: {ops:?}", r.hazards);
                prop_assert!(!r.corrupted(), "{name} seed {s}: {} stale reads, {} corrupted bytes, first finding {:?}\nops: {ops:?}",
                    r.stale_reads, r.corrupted_bytes, r.findings.first());
            }
        }
    }
}

fn weaken() -> impl Strategy<Value = Weaken> {
    prop_oneof![Just(Weaken::Keep), Just(Weaken::Drop), Just(Weaken::NoSrcAccess), Just(Weaken::NoDstAccess)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Programs with barriers dropped or weakened: whatever a seeded or directed schedule shows,
    /// every read that differs from the reference is explained by one of the program's hazards
    /// (never blamed on the machine), and a run corrupts only where there are hazards.
    #[test]
    fn every_corruption_of_a_weakened_program_is_explained_by_a_hazard(
        ops in prop::collection::vec(op(), 1..10),
        weak in prop::collection::vec(weaken(), 1..4),
        seed in 0u64..1000,
    ) {
        let w = build_weakened(&ops, &weak);
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).unwrap();
            let plain = run_workload(&w, &p, seed).unwrap();
            let directions = plain.hazards.len().min(4);
            for directed in std::iter::once(None).chain((0..directions).map(Some)) {
                let r = if directed.is_none() { plain.clone() } else {
                    run_workload_with(&w, &p, seed, &RunOptions { directed, ..RunOptions::default() }).unwrap()
                };
                prop_assert!(!r.corrupted() || !r.hazards.is_empty(), "{name} seed {seed} {directed:?}: corruption without a hazard\nops: {ops:?} {weak:?}");
                for f in &r.findings {
                    prop_assert!(f.hazard.is_some(), "{name} seed {seed} directed {directed:?} ({:?}): a finding no hazard explains: {f:?}\nhazards: {:?}\nops: {ops:?} {weak:?}", r.direction, r.hazards);
                }
            }
        }
    }
}

fn fingerprint_of(r: &RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // A racy program (no barriers at all), so the schedule matters and the seed decides it.
    let mut ops = vec![Op::Fill { dst: 0, value: 5 }, Op::Add { src: 0, dst: 1 }, Op::Copy { src: 1, dst: 2 }, Op::Uniform { src: 2, dst: 3 }];
    ops.extend([Op::Fill { dst: 1, value: 9 }, Op::Add { src: 3, dst: 0 }]);
    let mut w = build(&ops);
    for cb in &mut w.command_buffers {
        cb.commands.retain(|c| !matches!(c, Command::PipelineBarrier(_)));
    }
    let p = Profile::builtin("seed-l2").unwrap();
    let run_all = |threads: usize| -> Vec<String> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| (0..16u64).into_par_iter().map(|s| fingerprint_of(&run_workload(&w, &p, s).unwrap())).collect())
    };
    let one = run_all(1);
    let four = run_all(4);
    assert_eq!(one, four);
    // The seeds really do explore different executions.
    assert!(one.iter().any(|r| r != &one[0]), "16 seeds gave identical runs");
}

/// One event reused: set and waited in one submission, reset, then set in one submission and
/// waited in the next. Correct on every profile; with the set's access masks left out, a hazard.
#[test]
fn a_reused_event_synchronizes_like_a_barrier() {
    let ops = [Op::Fill { dst: 0, value: 7 }, Op::ViaEvent { across: false }, Op::Add { src: 0, dst: 1 }, Op::ViaEvent { across: true }, Op::Copy { src: 1, dst: 2 }];
    let w = build(&ops);
    let count = |f: fn(&Command) -> bool| w.command_buffers.iter().flat_map(|cb| &cb.commands).filter(|c| f(c)).count();
    assert_eq!(count(|c| matches!(c, Command::SetEvent { .. })), 2);
    assert_eq!(count(|c| matches!(c, Command::WaitEvents { .. })), 2);
    assert_eq!(count(|c| matches!(c, Command::ResetEvent { .. })), 2);
    assert_eq!(w.events.len(), 1, "one event, reused");
    assert!(sim_core::hazard::detect(&w).unwrap().is_empty());
    for name in Profile::builtin_names() {
        let p = Profile::builtin(name).unwrap();
        for seed in 0..4 {
            let r = run_workload(&w, &p, seed).unwrap();
            assert!(!r.corrupted() && r.hazards.is_empty(), "{name} seed {seed}: {:?}", r.findings.first());
        }
    }
    let weak = build_weakened(&ops, &[Weaken::NoSrcAccess]);
    assert!(!sim_core::hazard::detect(&weak).unwrap().is_empty(), "a set with no access scope leaves a hazard");
}

/// A program that draws between transfers, dispatches and sampling: clean on every profile and
/// seed as built, and with its barriers dropped some machine corrupts, every stale read and
/// every wrong final byte explained by a hazard.
#[test]
fn draws_are_clean_synchronized_and_explained_when_not() {
    let ops = [
        Op::Fill { dst: 0, value: 0x8040_2010 },
        Op::Fill { dst: 1, value: 0xFF00_FF00 },
        Op::Draw { verts: 1, src: 0, img: 0 },
        Op::FromImage { img: 0, dst: 2 },
        Op::Add { src: 2, dst: 3 },
        Op::Draw { verts: 3, src: 2, img: 1 },
        Op::SampleImage { img: 1, dst: 0 },
        Op::Draw { verts: 0, src: 0, img: 0 },
        Op::FromImage { img: 0, dst: 1 },
    ];
    let w = build(&ops);
    assert!(sim_core::hazard::detect(&w).unwrap().is_empty());
    let mut corrupted_somewhere = false;
    for name in Profile::builtin_names() {
        let p = Profile::builtin(name).unwrap();
        for seed in 0..4 {
            let r = run_workload(&w, &p, seed).unwrap();
            assert!(!r.corrupted(), "{name} seed {seed}: {} stale reads, first {:?}", r.stale_reads, r.findings.first());
        }
        let weak = build_weakened(&ops, &[Weaken::Drop]);
        for seed in 0..4 {
            let r = run_workload(&weak, &p, seed).unwrap();
            corrupted_somewhere |= r.corrupted();
            assert!(r.findings.iter().all(|f| f.hazard.is_some()), "{name} seed {seed}: a stale read no hazard explains: {:?}", r.findings.iter().find(|f| f.hazard.is_none()));
            assert!(r.memory_differences.iter().all(|d| d.hazard.is_some() || d.aliasing.is_some()), "{name} seed {seed}: final bytes no hazard explains");
        }
    }
    assert!(corrupted_somewhere, "dropping every barrier of a program that draws corrupts on no machine");
}
