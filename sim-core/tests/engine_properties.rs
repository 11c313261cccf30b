//! Properties of the engine over random programs:
//! - a program whose dependent commands are all correctly synchronized (each hazard covered by
//!   a barrier naming exactly the stages and accesses involved; across a hand-off to another
//!   submission, a host wait on a fence or an idle queue or device, and perhaps a vkSetEvent that
//!   releases a submission made earlier on the other queue) matches the reference run on every
//!   built-in profile and several seeds, with atomics that pick which workgroup reads and host
//!   scratch memory the device never touches;
//! - results are byte-identical whatever the number of host threads running them.

use proptest::prelude::*;
use rayon::prelude::*;
use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const WORDS: u64 = 256;
const BYTES: u64 = WORDS * 4;
const BUFFERS: usize = 4;

const ADD: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] * 3u + id.x;
}
"#;

const UNIFORM: &str = r#"
struct U { v: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = u.v[id.x % 16u].y + dst[id.x];
}
"#;

/// Workgroups race for a counter; the one that gets 0 sums `src` and writes the sum and its id.
const WINNER: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li == 0u {
        if atomicAdd(&counter, 1u) == 0u {
            var s = 0u;
            for (var i = 0u; i < 64u; i++) { s += src[i]; }
            dst[0] = s;
            dst[1] = wg.x;
        }
    }
}
"#;

/// The counter `Winner` uses: one more buffer, zeroed before each use.
const COUNTER: usize = BUFFERS;

/// How the host hands work from one submission to the next.
#[derive(Clone, Copy, Debug)]
enum Wait {
    Fence,
    QueueIdle,
    DeviceIdle,
}

/// One random operation on the buffers.
#[derive(Clone, Debug)]
enum Op {
    Fill { dst: usize, value: u32 },
    Update { dst: usize, word: u64, value: u32 },
    Copy { src: usize, dst: usize },
    Add { src: usize, dst: usize },
    Uniform { src: usize, dst: usize },
    /// Atomics pick the workgroup that reads `src` and writes `dst`.
    Winner { src: usize, dst: usize },
    /// Start a new submission on the same queue.
    Split,
    /// Start a new submission on `queue` after a host wait for the last one; `gated`: submit it
    /// before that wait, held by an event the host sets after it.
    Handoff { queue: usize, wait: Wait, gated: bool },
}

fn op() -> impl Strategy<Value = Op> {
    let b = 0..BUFFERS;
    prop_oneof![
        (b.clone(), any::<u32>()).prop_map(|(dst, value)| Op::Fill { dst, value }),
        (b.clone(), 0..WORDS, any::<u32>()).prop_map(|(dst, word, value)| Op::Update { dst, word, value }),
        (b.clone(), b.clone()).prop_filter("distinct", |(s, d)| s != d).prop_map(|(src, dst)| Op::Copy { src, dst }),
        (b.clone(), b.clone()).prop_filter("distinct", |(s, d)| s != d).prop_map(|(src, dst)| Op::Add { src, dst }),
        (b.clone(), b.clone()).prop_filter("distinct", |(s, d)| s != d).prop_map(|(src, dst)| Op::Uniform { src, dst }),
        (b.clone(), b).prop_filter("distinct", |(s, d)| s != d).prop_map(|(src, dst)| Op::Winner { src, dst }),
        Just(Op::Split),
        (0..2usize, prop_oneof![Just(Wait::Fence), Just(Wait::QueueIdle), Just(Wait::DeviceIdle)], any::<bool>())
            .prop_map(|(queue, wait, gated)| Op::Handoff { queue, wait: if gated { Wait::Fence } else { wait }, gated: gated && queue == 1 }),
    ]
}

/// (stage, read accesses, write accesses) of an operation on a buffer it reads / writes.
fn usage(op: &Op) -> (S, A, A) {
    match op {
        Op::Fill { .. } | Op::Update { .. } => (S::CLEAR, A::NONE, A::TRANSFER_WRITE),
        Op::Copy { .. } => (S::COPY, A::TRANSFER_READ, A::TRANSFER_WRITE),
        Op::Add { .. } => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ, A::SHADER_STORAGE_WRITE),
        Op::Uniform { .. } => (S::COMPUTE_SHADER, A::UNIFORM_READ, A::SHADER_STORAGE_WRITE),
        Op::Winner { .. } => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ, A::SHADER_STORAGE_WRITE),
        Op::Split | Op::Handoff { .. } => (S::NONE, A::NONE, A::NONE),
    }
}

/// Builds the program with a precise barrier before every command that depends on an earlier
/// one: RAW and WAW make the earlier writes available and visible, WAR orders execution. A
/// hand-off starts afresh: the host's wait for the last submission (a fence signal, whose
/// availability operation covers every write) and the new submission's visibility operation
/// (or its wait for the host's event) cover everything before.
fn build(ops: &[Op]) -> Workload {
    build_weakened(ops, &[Weaken::Keep])
}

/// What becomes of a barrier in a weakened program.
#[derive(Clone, Copy, Debug)]
enum Weaken {
    Keep,
    Drop,
    NoSrcAccess,
    NoDstAccess,
}

/// [`build`], with the k-th barrier weakened as `weaken[k % len]` says.
fn build_weakened(ops: &[Op], weaken: &[Weaken]) -> Workload {
    let mut barrier_count = 0usize;
    let mut w = Workload::new("random-synchronized");
    let mut bufs: Vec<BufferId> = (0..BUFFERS).map(|i| w.device_buffer(format!("B{i}"), BYTES)).collect();
    bufs.push(w.device_buffer("counter", 256));
    let add = w.wgsl_pipeline("add", ADD, "main").unwrap();
    let uni = w.wgsl_pipeline("uniform", UNIFORM, "main").unwrap();
    let winner = w.wgsl_pipeline("winner", WINNER, "main").unwrap();
    w.queue("q1");
    // Host scratch the device never touches, written and never flushed.
    let scratch = w.memory("scratch", 4096, MemoryProperties::parse("HOST_VISIBLE|HOST_CACHED").unwrap());
    w.host(HostOp::HostWrite { memory: scratch, offset: 100, data: vec![0xA5; 300] });
    // Per buffer: last writer (stage, write access) and readers since (stage).
    let mut writer: Vec<Option<(S, A)>> = vec![None; BUFFERS + 1];
    let mut readers: Vec<S> = vec![S::NONE; BUFFERS + 1];
    // Segments: (queue, how the host waits for the one before, gated, commands).
    let mut segs: Vec<(usize, Wait, bool, Vec<Vec<Command>>)> = vec![(0, Wait::Fence, false, vec![Vec::new()])];
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    // A winner is a zeroing fill of the counter, then the dispatch.
    let mut expanded = Vec::new();
    for op in ops {
        if let Op::Winner { .. } = op {
            expanded.push(Op::Fill { dst: COUNTER, value: 0 });
        }
        expanded.push(op.clone());
    }
    for op in &expanded {
        match *op {
            Op::Split => {
                segs.last_mut().unwrap().3.push(Vec::new());
                continue;
            }
            Op::Handoff { queue, wait, gated } => {
                segs.push((queue, wait, gated, vec![Vec::new()]));
                writer.iter_mut().for_each(|x| *x = None);
                readers.iter_mut().for_each(|x| *x = S::NONE);
                continue;
            }
            _ => {}
        }
        let (stage, read_access, write_access) = usage(op);
        let (reads, writes): (Vec<usize>, Vec<usize>) = match *op {
            Op::Fill { dst, .. } | Op::Update { dst, .. } => (vec![], vec![dst]),
            Op::Copy { src, dst } | Op::Add { src, dst } => (vec![src], vec![dst]),
            Op::Uniform { src, dst } => (vec![src, dst], vec![dst]),
            Op::Winner { src, dst } => (vec![src, COUNTER], vec![dst, COUNTER]),
            Op::Split | Op::Handoff { .. } => unreachable!(),
        };
        let (mut src_stage, mut src_access, mut dst_access) = (S::NONE, A::NONE, A::NONE);
        for &b in &reads {
            if let Some((s, a)) = writer[b] {
                src_stage |= s;
                src_access |= a;
                // The uniform kernel reads its source through U$ and its destination as storage.
                dst_access |= match *op {
                    Op::Uniform { src, .. } if src == b => A::UNIFORM_READ,
                    Op::Uniform { .. } => A::SHADER_STORAGE_READ,
                    _ => read_access,
                };
            }
        }
        for &b in &writes {
            if let Some((s, a)) = writer[b] {
                src_stage |= s;
                src_access |= a;
                dst_access |= write_access;
            }
            src_stage |= readers[b];
        }
        let cbs = &mut segs.last_mut().unwrap().3;
        if !src_stage.is_empty() {
            let how = weaken[barrier_count % weaken.len()];
            barrier_count += 1;
            let (sa, da) = match how {
                Weaken::Keep | Weaken::Drop => (src_access, dst_access),
                Weaken::NoSrcAccess => (A::NONE, dst_access),
                Weaken::NoDstAccess => (src_access, A::NONE),
            };
            if !matches!(how, Weaken::Drop) {
                cbs.last_mut().unwrap().push(Command::PipelineBarrier(DependencyInfo::memory(src_stage, sa, stage, da)));
            }
        }
        for &b in &reads {
            readers[b] |= stage;
        }
        for &b in &writes {
            writer[b] = Some((stage, write_access));
            readers[b] = S::NONE;
        }
        let groups = [(WORDS / 64) as u32, 1, 1];
        let cmd = match *op {
            Op::Fill { dst, value } => Command::FillBuffer { dst: bufs[dst], offset: 0, size: None, data: value },
            Op::Update { dst, word, value } => Command::UpdateBuffer { dst: bufs[dst], offset: word * 4, data: value.to_le_bytes().to_vec() },
            Op::Copy { src, dst } => Command::CopyBuffer { src: bufs[src], dst: bufs[dst], regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: BYTES }] },
            Op::Add { src, dst } => Command::Dispatch { pipeline: add, group_count: groups, base_group: [0; 3], bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst])], push_constants: vec![] },
            Op::Uniform { src, dst } => Command::Dispatch { pipeline: uni, group_count: groups, base_group: [0; 3], bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst])], push_constants: vec![] },
            Op::Winner { src, dst } => Command::Dispatch {
                pipeline: winner,
                group_count: groups,
                base_group: [0; 3],
                bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst]), bind(2, bufs[COUNTER])],
                push_constants: vec![],
            },
            Op::Split | Op::Handoff { .. } => unreachable!(),
        };
        cbs.last_mut().unwrap().push(cmd);
    }
    // Each segment: its submissions on its queue, the last with a fence; the host waits for
    // the segment before it first (a gated one is submitted before that wait and released by
    // an event the host sets after it).
    let mut last_fence: Option<FenceId> = None;
    let mut prev_queue = 0;
    for (k, (queue, wait, gated, cbs)) in segs.into_iter().enumerate() {
        let fence = w.fence(format!("f{k}"));
        let event = gated.then(|| w.event(format!("e{k}")));
        let n = cbs.len();
        let mut subs = Vec::new();
        for (i, mut cmds) in cbs.into_iter().enumerate() {
            if i == 0
                && let Some(e) = event
            {
                cmds.insert(0, Command::WaitEvents {
                    events: vec![e],
                    dependency: DependencyInfo::memory(S::HOST, A::HOST_WRITE, S::ALL_COMMANDS, A::MEMORY_READ | A::MEMORY_WRITE),
                });
            }
            let cb = w.command_buffer(format!("s{k}cb{i}"), cmds);
            subs.push((cb, (i + 1 == n).then_some(fence)));
        }
        let host_wait = |w: &mut Workload| match (last_fence, wait) {
            (None, _) => {}
            (Some(f), Wait::Fence) => w.host(HostOp::WaitForFences(vec![f])),
            (Some(_), Wait::QueueIdle) => w.host(HostOp::QueueWaitIdle(prev_queue)),
            (Some(_), Wait::DeviceIdle) => w.host(HostOp::DeviceWaitIdle),
        };
        if let Some(e) = event {
            for (cb, f) in subs {
                w.submit(queue, vec![cb], f);
            }
            host_wait(&mut w);
            w.host(HostOp::SetEvent(e));
        } else {
            host_wait(&mut w);
            for (cb, f) in subs {
                w.submit(queue, vec![cb], f);
            }
        }
        last_fence = Some(fence);
        prev_queue = queue;
    }
    w.host(HostOp::WaitForFences(vec![last_fence.unwrap()]));
    w.host(HostOp::HostWrite { memory: scratch, offset: 2000, data: vec![0x5A; 64] });
    w
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
        // A correctly synchronized program has no hazard, by the bound ranges or by the bytes.
        let hazards = sim_core::hazard::detect(&w).unwrap();
        prop_assert!(hazards.is_empty(), "hazards in a synchronized program: {hazards:?}\nops: {ops:?}");
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
