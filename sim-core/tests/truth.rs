//! The central promise, tested where it once failed: a correctly synchronized program is clean
//! on every built-in profile and seed, however its reads depend on timing; and a race whose
//! producer computes before it stores still shows.

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::generators::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const SEEDS: u64 = 12;
const N: u64 = 4096;

fn storage(binding: u32, buffer: BufferId) -> BufferBinding {
    BufferBinding { set: 0, binding, buffer, offset: 0, range: None }
}

fn dispatch(pipeline: PipelineId, groups: u32, bindings: Vec<BufferBinding>) -> Command {
    Command::Dispatch { pipeline, group_count: [groups, 1, 1], base_group: [0; 3], bindings, push_constants: Vec::new(), images: Vec::new() }
}

fn barrier(src: S, src_access: A, dst: S, dst_access: A) -> Command {
    Command::PipelineBarrier(DependencyInfo::memory(src, src_access, dst, dst_access))
}

fn wait_host_event(event: EventId, dst: S, dst_access: A) -> Command {
    Command::WaitEvents { events: vec![event], dependency: DependencyInfo::memory(S::HOST, A::HOST_WRITE, dst, dst_access) }
}

fn copy(src: BufferId, dst: BufferId, size: u64) -> Command {
    Command::CopyBuffer { src, dst, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size }] }
}

fn host_cached() -> MemoryProperties {
    MemoryProperties::parse("HOST_VISIBLE|HOST_CACHED").unwrap()
}

/// Every (profile, seed) whose run differs from the reference, with what it found.
fn corrupt_runs(w: &Workload) -> Vec<String> {
    let mut bad = Vec::new();
    for name in Profile::builtin_names() {
        let p = Profile::builtin(name).unwrap();
        for seed in 0..SEEDS {
            let r = run_workload(w, &p, seed).unwrap_or_else(|e| panic!("{}: {name} seed {seed}: {e}", w.name));
            if r.corrupted() {
                bad.push(format!("{name} seed {seed}: {} stale reads, {} corrupted bytes, findings {:?}, host reads {:?}", r.stale_reads, r.corrupted_bytes, r.findings, r.host_reads));
            }
        }
    }
    bad
}

fn assert_clean_everywhere(w: &Workload) {
    let bad = corrupt_runs(w);
    assert!(bad.is_empty(), "{}: correctly synchronized, yet reported corrupt:\n{}", w.name, bad.join("\n"));
}

/// A copy on q1 waits for an event the host sets only after q0's fill has finished, the copy
/// submitted first: the host sets an event a pending command buffer waits on, which the
/// specification forbids (VUID-vkSetEvent-event-09543; an NVIDIA H200 did not honour such a
/// gate). The run refuses it, naming the rule, instead of holding the queue back.
#[test]
fn a_host_event_set_while_its_waiter_is_pending_is_refused() {
    let mut w = Workload::new("host-event-gates-another-queue");
    let a = w.device_buffer("A", N);
    let b = w.device_buffer("B", N);
    let q1 = w.queue("q1");
    let e = w.event("e");
    let f = w.fence("f");
    let consumer = w.command_buffer("consumer", vec![wait_host_event(e, S::COPY, A::TRANSFER_READ), copy(a, b, N)]);
    let producer = w.command_buffer("producer", vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 }]);
    w.submit(q1, vec![consumer], None);
    w.submit(0, vec![producer], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::SetEvent(e));
    w.host(HostOp::DeviceWaitIdle);
    let err = run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap_err().to_string();
    assert!(err.contains("VUID-vkSetEvent-event-09543") && err.contains("timeline[3]"), "{err}");
}

/// vkQueueWaitIdle and vkDeviceWaitIdle are a fence signal and a wait: the signal makes the
/// queue's writes available, so a later copy (waiting on an event the host sets after the idle
/// wait, or not) sees a dispatch's bytes even where the copy reads VRAM and the dispatch left
/// them dirty in the L2.
#[test]
fn idle_waits_make_writes_available() {
    for (idle, gated) in [(HostOp::QueueWaitIdle(0), true), (HostOp::QueueWaitIdle(0), false), (HostOp::DeviceWaitIdle, false)] {
        let mut w = Workload::new(format!("{idle:?}-then-{}copy", if gated { "gated-" } else { "" }));
        let a = w.device_buffer("A", N);
        let b = w.device_buffer("B", N);
        let p = w.wgsl_pipeline("write_value", samples::WRITE_VALUE_WGSL, "main").unwrap();
        let e = w.event("e");
        let q1 = w.queue("q1");
        let write = w.command_buffer("write", vec![dispatch(p, (N / 256) as u32, vec![storage(0, a)])]);
        let mut then = vec![copy(a, b, N)];
        if gated {
            then.insert(0, wait_host_event(e, S::COPY, A::TRANSFER_READ));
        }
        let read = w.command_buffer("copy", then);
        w.submit(0, vec![write], None);
        w.host(idle.clone());
        if gated {
            // On the other queue, after the host sets the event: only the idle wait's fence
            // signal made the dispatch's bytes available.
            w.host(HostOp::SetEvent(e));
            w.submit(q1, vec![read], None);
        } else {
            w.submit(0, vec![read], None);
        }
        w.host(HostOp::DeviceWaitIdle);
        assert_clean_everywhere(&w);
    }
}

/// Host-only scratch: written by the host, never flushed, never used by the device. Nothing
/// was lost: the final comparison must see the bytes as the host does.
#[test]
fn unflushed_host_only_scratch_is_no_lost_update() {
    for props in [host_cached(), MemoryProperties::parse("HOST_VISIBLE").unwrap()] {
        let mut w = Workload::new(format!("host-scratch-{props:?}"));
        let scratch = w.memory("scratch", N, props);
        let a = w.device_buffer("A", N);
        let f = w.fence("f");
        let cb = w.command_buffer("cb", vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 1 }]);
        w.host(HostOp::HostWrite { memory: scratch, offset: 64, data: vec![9; 200] });
        w.submit(0, vec![cb], Some(f));
        w.host(HostOp::WaitForFences(vec![f]));
        w.host(HostOp::HostWrite { memory: scratch, offset: 1024, data: vec![3; 8] });
        assert_clean_everywhere(&w);
    }
}

/// Workgroups race for an atomic counter; whoever gets 0 reads `data` (filled before, with a
/// barrier) and writes the sum and its own id. Which workgroup wins, and so which loads exist
/// at all, depends on timing: none of them is stale.
const WINNER: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li == 0u {
        let old = atomicAdd(&counter, 1u);
        if old == 0u {
            var s = 0u;
            for (var i = 0u; i < 64u; i++) { s += data[i]; }
            out[0] = s;
            out[1] = wg.x;
        }
    }
}
"#;

/// The last workgroup to arrive sums every workgroup's partial result (exchanged through
/// atomics: plain stores of other workgroups are not visible without them) and reads `data`
/// again: which workgroup makes those loads depends on timing.
const LAST_REDUCES: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read_write> partial: array<atomic<u32>>;
var<workgroup> sum: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    atomicAdd(&sum, data[wg.x * 64u + li]);
    workgroupBarrier();
    if li == 0u {
        atomicStore(&partial[wg.x], atomicLoad(&sum));
        let old = atomicAdd(&counter, 1u);
        if old == n.x - 1u {
            var s = 0u;
            for (var i = 0u; i < n.x; i++) { s += atomicLoad(&partial[i]) + data[i] - 3u; }
            out[0] = s;
            out[1] = wg.x;
        }
    }
}
"#;

fn atomic_winner(name: &str, shader: &str) -> (Workload, MemoryId) {
    let mut w = Workload::new(name);
    let counter = w.device_buffer("counter", 256);
    let data = w.device_buffer("data", N);
    let partial = w.device_buffer("partial", N);
    let out_mem = w.memory("out.memory", 256, MemoryProperties::HOST_COHERENT);
    let out = w.buffer("out", out_mem, 0, 256);
    let p = w.wgsl_pipeline(name, shader, "main").unwrap();
    let f = w.fence("f");
    let mut bindings = vec![storage(0, counter), storage(1, data), storage(2, out)];
    if shader.contains("partial") {
        bindings.push(storage(3, partial));
    }
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: data, offset: 0, size: None, data: 3 },
            barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ),
            dispatch(p, 16, bindings),
            barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::HostRead { memory: out_mem, offset: 0, size: 8, label: "out".into(), expect: None });
    (w, out_mem)
}

#[test]
fn reads_that_exist_by_timing_are_not_stale() {
    for (name, shader, reference_winner) in [("first-workgroup-wins", WINNER, 0u32), ("last-workgroup-reduces", LAST_REDUCES, 15)] {
        let (w, _) = atomic_winner(name, shader);
        assert_clean_everywhere(&w);
        // The test could fail: some run's winner is not the reference run's.
        let p = Profile::builtin("seed-l2").unwrap();
        let winners: Vec<u32> = (0..SEEDS).map(|s| {
            let r = run_workload(&w, &p, s).unwrap();
            u32::from_le_bytes(r.host_reads[0].data[4..8].try_into().unwrap())
        }).collect();
        assert!(winners.iter().any(|&x| x != reference_winner), "{name}: every run's winner was workgroup {reference_winner}: {winners:?}");
        let sums: Vec<u32> = (0..SEEDS).map(|s| u32::from_le_bytes(run_workload(&w, &p, s).unwrap().host_reads[0].data[..4].try_into().unwrap())).collect();
        let want = if name == "first-workgroup-wins" { 3 * 64 } else { 3 * 1024 };
        assert!(sums.iter().all(|&s| s == want), "{name}: sums {sums:?}, want {want}");
    }
}

/// A producer that computes for thousands of instructions before it stores, and a consumer not
/// ordered after it that starts a few hundred cycles later: the consumer's loads come long
/// before the producer's stores, and must see the old bytes.
#[test]
fn compute_before_a_store_delays_the_store() {
    const PRODUCE: &str = r#"
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var v = id.x;
    for (var i = 0u; i < 3000u; i++) { v = v * 1664525u + 1013904223u; }
    dst[id.x] = v | 1u;
}
"#;
    const CONSUME: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x];
}
"#;
    let mut w = Workload::new("long-producer-unordered-consumer");
    let a = w.device_buffer("A", 1024);
    let b = w.device_buffer("B", 1024);
    let produce = w.wgsl_pipeline("produce", PRODUCE, "main").unwrap();
    let consume = w.wgsl_pipeline("consume", CONSUME, "main").unwrap();
    let f = w.fence("f");
    let x = w.device_buffer("X", 256);
    // The consumer waits for a short fill (a few hundred cycles), not for the producer.
    let cb = w.command_buffer(
        "cb",
        vec![
            dispatch(produce, 4, vec![storage(0, a)]),
            Command::FillBuffer { dst: x, offset: 0, size: None, data: 1 },
            barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ),
            dispatch(consume, 4, vec![storage(0, a), storage(1, b)]),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    for name in ["seed-l2", "seed-vram", "ideal"] {
        let p = Profile::builtin(name).unwrap();
        let r = run_workload(&w, &p, 0).unwrap();
        assert!(r.stale_reads > 0, "{name}: the consumer read before the producer stored (spans {:?})", r.spans);
    }
}

/// A subgroup's load that spans two lines, one stale in the CU's L1 and one the L1 misses: the
/// stale bytes are named as served by the L1, not by the level the other line came from.
#[test]
fn via_names_the_cache_that_served_each_stale_line() {
    const WARM: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> sink: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li < 16u { sink[wg.x * 16u + li] = a[li]; }
}
"#;
    const READ_TWO_LINES: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    if li < 32u { out[li] = a[li]; }
}
"#;
    let mut w = Workload::new("stale-l1-line-beside-a-miss");
    let a = w.device_buffer("A", N);
    let sink = w.device_buffer("SINK", N);
    let out = w.device_buffer("OUT", N);
    let warm = w.wgsl_pipeline("warm", WARM, "main").unwrap();
    let write = w.wgsl_pipeline("write_value", samples::WRITE_VALUE_WGSL, "main").unwrap();
    let read = w.wgsl_pipeline("read", READ_TWO_LINES, "main").unwrap();
    let f = w.fence("f");
    let cb = w.command_buffer(
        "cb",
        vec![
            // Every CU's L1 holds A's first line (zeroes).
            dispatch(warm, 64, vec![storage(0, a), storage(1, sink)]),
            barrier(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE),
            dispatch(write, 1, vec![storage(0, a)]),
            // Names UNIFORM_READ, not SHADER_STORAGE_READ: the L1s are not invalidated.
            barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::COMPUTE_SHADER, A::UNIFORM_READ),
            dispatch(read, 1, vec![storage(0, a), storage(1, out)]),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    let p = Profile::builtin("seed-l2").unwrap();
    let mut stale_seen = 0;
    for seed in 0..SEEDS {
        let r = run_workload(&w, &p, seed).unwrap();
        for f in r.findings.iter().filter(|f| f.resource == "A") {
            // Only the L1 held the zeroes: the L2 has the write.
            assert_eq!(f.via, "L1", "seed {seed}: {f:?}");
            assert!(f.offset + f.size <= 64, "seed {seed}: only the first line was cached: {f:?}");
            stale_seen += 1;
        }
    }
    assert!(stale_seen > 0, "no seed read the stale L1 line");
}

/// A host wait that could never end because the command processor launches in order (a fill
/// outside a vkCmdWaitEvents2's scope behind a dispatch the wait holds, the host setting the
/// event only after waiting for that fill) is refused before it runs: the host sets an event a
/// pending command buffer waits on (VUID-vkSetEvent-event-09543).
#[test]
fn a_host_event_behind_in_order_launch_is_refused() {
    let mut w = Workload::new("in-order-launch-behind-a-host-event");
    let a = w.device_buffer("A", N);
    let b = w.device_buffer("B", N);
    let p = w.wgsl_pipeline("write_value", samples::WRITE_VALUE_WGSL, "main").unwrap();
    let e = w.event("e");
    let s = w.semaphore("s");
    let q1 = w.queue("q1");
    let f = w.fence("f");
    let gated = w.command_buffer(
        "gated",
        vec![wait_host_event(e, S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE), dispatch(p, 1, vec![storage(0, a)]), Command::FillBuffer { dst: b, offset: 0, size: None, data: 1 }],
    );
    let after = w.command_buffer("after", vec![Command::FillBuffer { dst: b, offset: 0, size: Some(256), data: 2 }]);
    w.host(HostOp::QueueSubmit { queue: 0, batches: vec![SubmitBatch { command_buffers: vec![gated], signal_semaphores: vec![(s, S::CLEAR)], ..SubmitBatch::default() }], fence: None });
    w.host(HostOp::QueueSubmit { queue: q1, batches: vec![SubmitBatch { command_buffers: vec![after], wait_semaphores: vec![(s, S::CLEAR)], ..SubmitBatch::default() }], fence: Some(f) });
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::SetEvent(e));
    let e = run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap_err().to_string();
    assert!(e.contains("VUID-vkSetEvent-event-09543"), "{e}");
}

/// A loop bound read stale: the invocation runs iterations the reference run never ran. Their
/// reads have no counterpart there; the report says once that the invocation diverged, instead
/// of a finding for every extra iteration.
#[test]
fn a_stale_loop_bound_is_one_divergence() {
    const SUM_N: &str = r#"
@group(0) @binding(0) var<storage, read> n: array<u32>;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    var s = 0u;
    let k = n[63];
    for (var i = 0u; i < k; i++) { s += data[i * 16u]; }
    out[0] = s;
}
"#;
    const BIG: u64 = 1 << 20;
    let mut w = Workload::new("stale-loop-bound");
    let n = w.device_buffer("N", BIG);
    let data = w.device_buffer("DATA", N);
    let out = w.device_buffer("OUT", 256);
    let p = w.wgsl_pipeline("sum_n", SUM_N, "main").unwrap();
    let f = w.fence("f");
    let tail = BufferBinding { set: 0, binding: 0, buffer: n, offset: BIG - 256, range: Some(256) };
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: n, offset: 0, size: None, data: 60 },
            Command::FillBuffer { dst: data, offset: 0, size: None, data: 1 },
            barrier(S::CLEAR, A::TRANSFER_WRITE, S::CLEAR | S::COMPUTE_SHADER, A::TRANSFER_WRITE | A::SHADER_STORAGE_READ),
            // Not ordered before the dispatch: its last bytes arrive long after the dispatch read.
            Command::FillBuffer { dst: n, offset: 0, size: None, data: 2 },
            dispatch(p, 1, vec![tail, storage(1, data), storage(2, out)]),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    let p = Profile::builtin("seed-l2").unwrap();
    let mut diverged = 0;
    for seed in 0..SEEDS {
        let r = run_workload(&w, &p, seed).unwrap();
        if r.findings.iter().any(|f| f.diverged) {
            diverged += 1;
            // The bound's read, and the first iterations' reads that the reference also made
            // (the same places, the same writers, so clean): no finding per extra iteration.
            assert!(r.stale_reads <= 2, "seed {seed}: {} stale reads, findings {:?}", r.stale_reads, r.findings);
            assert_eq!(r.findings.iter().filter(|f| f.diverged).count(), 1, "seed {seed}: {:?}", r.findings);
        }
    }
    assert!(diverged > 0, "no seed read the stale bound");
}

/// Each workgroup takes a ticket; an even ticket reads buffer A, an odd one buffer B, at the
/// same offsets (both filled before, with a barrier). Which buffer a workgroup reads depends
/// on timing, and the reads are not the reference's same reads: no read is stale.
const TICKET_PICKS_BUFFER: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
var<workgroup> ticket: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li == 0u { ticket = atomicAdd(&counter, 1u); }
    workgroupBarrier();
    let t = workgroupUniformLoad(&ticket);
    if t % 2u == 0u { out[wg.x * 64u + li] = a[li]; } else { out[wg.x * 64u + li] = b[li]; }
}
"#;

/// The first workgroup to swap the flag from 0 to 1 reads A; every other reads B, at the same
/// offsets.
const EXCHANGE_PICKS_BUFFER: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
var<workgroup> won: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li == 0u { won = select(0u, 1u, atomicCompareExchangeWeak(&counter, 0u, 1u).exchanged); }
    workgroupBarrier();
    let w = workgroupUniformLoad(&won);
    if w == 1u { out[wg.x * 64u + li] = a[li]; } else { out[wg.x * 64u + li] = b[li]; }
}
"#;

#[test]
fn an_atomic_that_picks_the_buffer_read_is_no_stale_read() {
    for (name, shader) in [("ticket-picks-buffer", TICKET_PICKS_BUFFER), ("exchange-picks-buffer", EXCHANGE_PICKS_BUFFER)] {
        let mut w = Workload::new(name);
        let counter = w.device_buffer("counter", 256);
        let a = w.device_buffer("A", 256);
        let b = w.device_buffer("B", 256);
        let out_mem = w.memory("out.memory", 16 * 256, MemoryProperties::HOST_COHERENT);
        let out = w.buffer("out", out_mem, 0, 16 * 256);
        let p = w.wgsl_pipeline(name, shader, "main").unwrap();
        let f = w.fence("f");
        let cb = w.command_buffer(
            "cb",
            vec![
                Command::FillBuffer { dst: a, offset: 0, size: None, data: 0xa },
                Command::FillBuffer { dst: b, offset: 0, size: None, data: 0xb },
                barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ),
                dispatch(p, 16, vec![storage(0, counter), storage(1, a), storage(2, b), storage(3, out)]),
                barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ),
            ],
        );
        w.submit(0, vec![cb], Some(f));
        w.host(HostOp::WaitForFences(vec![f]));
        w.host(HostOp::HostRead { memory: out_mem, offset: 0, size: 16 * 256, label: "out".into(), expect: None });
        assert_clean_everywhere(&w);
        // The test could fail: in some run a workgroup read the other buffer than in the reference.
        let p = Profile::builtin("seed-l2").unwrap();
        let reference = run_workload(&w, &p, 0).unwrap();
        let _ = reference;
        let picks: Vec<Vec<u8>> = (0..SEEDS).map(|s| run_workload(&w, &p, s).unwrap().host_reads[0].data.iter().step_by(256).copied().collect()).collect();
        assert!(picks.iter().any(|x| x != &picks[0]), "{name}: every run picked the same buffers: {picks:?}");
    }
}
