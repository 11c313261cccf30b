//! The compute GPU's scenarios: each missing-synchronization variant must read stale bytes on
//! the profile named (for at least one of 32 seeds), and each correct variant must match the
//! reference on every built-in profile for all 32 seeds.

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::generators::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};
use sim_caches::WritePolicy;

const SEEDS: u64 = 32;
const N: u64 = 4096; // bytes per buffer: 1024 u32 words
/// A buffer filled while a dispatch may already be reading it: large enough that the fill is
/// still running when an unordered dispatch reads its last `N` bytes (the fill reaches them
/// last).
const BIG_FILL: u64 = 1 << 20;

/// Binds the last `N` bytes of a `BIG_FILL` buffer.
fn tail(set_binding: (u32, u32), buffer: BufferId) -> BufferBinding {
    BufferBinding { set: set_binding.0, binding: set_binding.1, buffer, offset: BIG_FILL - N, range: Some(N) }
}

use samples::ADD_ONE_WGSL as ADD_ONE;
use samples::WRITE_VALUE_WGSL as WRITE_VALUE;

/// `dst[i] = u.v[i % 16].x`, read through the uniform cache: the example traces' shader.
const READ_UNIFORM: &str = include_str!("../../examples/traces/shaders/read_uniform.wgsl");

fn storage(set_binding: (u32, u32), buffer: BufferId) -> BufferBinding {
    BufferBinding { set: set_binding.0, binding: set_binding.1, buffer, offset: 0, range: None }
}

fn dispatch(pipeline: PipelineId, groups: u32, bindings: Vec<BufferBinding>, _unused: u32) -> Command {
    Command::Dispatch { pipeline, group_count: [groups, 1, 1], base_group: [0; 3], bindings, push_constants: Vec::new(), images: Vec::new() }
}

fn barrier(src: S, src_access: A, dst: S, dst_access: A) -> Command {
    Command::PipelineBarrier(DependencyInfo::memory(src, src_access, dst, dst_access))
}

fn finish(mut w: Workload, cmds: Vec<Command>) -> Workload {
    let cb = w.command_buffer("cb0", cmds);
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

/// Seeds (of 32) whose run differs from the reference.
fn corrupt_seeds(w: &Workload, profile: &str) -> Vec<u64> {
    let p = Profile::builtin(profile).unwrap();
    (0..SEEDS).filter(|&s| run_workload(w, &p, s).unwrap().corrupted()).collect()
}

fn assert_shows_corruption(w: &Workload, profile: &str) {
    let bad = corrupt_seeds(w, profile);
    assert!(!bad.is_empty(), "{}: expected stale reads on {profile} for some seed", w.name);
}

fn assert_clean_everywhere(w: &Workload) {
    for profile in Profile::builtin_names() {
        let bad = corrupt_seeds(w, profile);
        assert!(bad.is_empty(), "{}: correctly synchronized, yet corrupted on {profile} with seeds {bad:?}", w.name);
    }
}

/// 1. vkCmdFillBuffer, then a dispatch that reads the buffer. Without a barrier nothing orders
///    the dispatch after the fill (on any profile, seed-l2 included): workgroups read before the
///    transfer engine has written, and see the initial zeroes.
fn s1(with_barrier: bool) -> Workload {
    fill_then_dispatch("fill-then-dispatch", ("add_one", ADD_ONE), 7, with_barrier)
}

/// Fills A with `data`, with or without the barrier that makes the fill visible, then a
/// dispatch of `shader` (id, WGSL) reads A at binding 0 and writes B at binding 1.
fn fill_then_dispatch(name: &str, (id, wgsl): (&str, &str), data: u32, with_barrier: bool) -> Workload {
    let mut w = Workload::new(name);
    let a = w.device_buffer("A", N);
    let b = w.device_buffer("B", N);
    let p = w.wgsl_pipeline(id, wgsl, "main").unwrap();
    let mut c = vec![Command::FillBuffer { dst: a, offset: 0, size: None, data }];
    if with_barrier {
        c.push(barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ));
    }
    c.push(dispatch(p, 16, vec![storage((0, 0), a), storage((0, 1), b)], 0));
    finish(w, c)
}

#[test]
fn s1_fill_then_dispatch() {
    assert_shows_corruption(&s1(false), "seed-l2");
    assert_clean_everywhere(&s1(true));
}

/// 2. A dispatch writes B that the next dispatch reads as a uniform buffer. Every CU's U$ holds
///    B from an earlier uniform read. Under seed-l2 the barrier must name UNIFORM_READ to
///    invalidate U$; one naming only SHADER_STORAGE_READ invalidates L1 and T$ and leaves U$ stale.
fn s2(dst_access: A) -> Workload {
    let mut w = Workload::new("storage-write-then-uniform-read");
    let b = w.device_buffer("B", 256);
    let out0 = w.device_buffer("OUT0", N * 4);
    let out1 = w.device_buffer("OUT1", N * 4);
    let read_u = w.wgsl_pipeline("read_uniform", READ_UNIFORM, "main").unwrap();
    let write = w.wgsl_pipeline("write_value", WRITE_VALUE, "main").unwrap();
    let ub = |o| vec![BufferBinding { set: 0, binding: 0, buffer: b, offset: 0, range: None }, storage((0, 1), o)];
    let c = vec![
        dispatch(read_u, 64, ub(out0), 0),
        barrier(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE),
        dispatch(write, 1, vec![storage((0, 0), b)], 1000),
        barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::COMPUTE_SHADER, dst_access),
        dispatch(read_u, 64, ub(out1), 0),
    ];
    finish(w, c)
}

#[test]
fn s2_uniform_cache_goes_stale() {
    assert_shows_corruption(&s2(A::SHADER_STORAGE_READ), "seed-l2");
    assert_clean_everywhere(&s2(A::UNIFORM_READ));
}

/// 3. A dispatch writes B, then vkCmdCopyBuffer copies B to C. Under seed-vram the transfer
///    engine reads VRAM directly, and the shader's writes sit dirty in the per-line L2 until a
///    barrier with SHADER_WRITE in its first scope flushes L2: an execution-only barrier orders
///    the commands but the copy still reads the old bytes.
fn s3(src_access: A) -> Workload {
    let mut w = Workload::new("dispatch-then-copy");
    let b = w.device_buffer("B", N);
    let c_buf = w.device_buffer("C", N);
    let write = w.wgsl_pipeline("write_value", WRITE_VALUE, "main").unwrap();
    let c = vec![
        dispatch(write, 16, vec![storage((0, 0), b)], 5),
        barrier(S::COMPUTE_SHADER, src_access, S::COPY, A::TRANSFER_READ),
        Command::CopyBuffer { src: b, dst: c_buf, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: N }] },
    ];
    finish(w, c)
}

#[test]
fn s3_copy_reads_vram_behind_dirty_l2() {
    assert_shows_corruption(&s3(A::NONE), "seed-vram");
    assert_clean_everywhere(&s3(A::SHADER_STORAGE_WRITE));
}

/// 4. Write-after-read: a dispatch reads A while a later copy overwrites A. With no execution
///    dependency the copy runs beside the dispatch (on any profile, seed-l2 included) and some
///    reads see the new bytes. An execution-only barrier is enough for a WAR hazard.
fn s4(with_barrier: bool) -> Workload {
    let mut w = Workload::new("write-after-read");
    let (mut c, copy) = war_reads_and_copy(&mut w);
    if with_barrier {
        c.push(barrier(S::COMPUTE_SHADER, A::NONE, S::COPY, A::NONE));
    }
    c.push(copy);
    finish(w, c)
}

/// The write-after-read scenarios' commands: SRC filled, then a dispatch reading A (128
/// workgroups on 32 slots, so later waves read A while a copy may be writing it), released
/// together with whatever copies next; and that copy, of SRC over the last quarter of A, which
/// the dispatch's last wave reads.
fn war_reads_and_copy(w: &mut Workload) -> (Vec<Command>, Command) {
    const BIG: u64 = 128 * 64 * 4;
    let a = w.device_buffer("A", BIG);
    let src = w.device_buffer("SRC", BIG);
    let out = w.device_buffer("OUT", BIG);
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    let reads = vec![
        Command::FillBuffer { dst: src, offset: 0, size: None, data: 99 },
        // Releases the dispatch and the copy together, so they overlap.
        barrier(S::CLEAR, A::TRANSFER_WRITE, S::COPY | S::COMPUTE_SHADER, A::TRANSFER_READ),
        dispatch(p, 128, vec![storage((0, 0), a), storage((0, 1), out)], 0),
    ];
    (reads, Command::CopyBuffer { src, dst: a, regions: vec![BufferCopy { src_offset: 0, dst_offset: BIG / 4 * 3, size: BIG / 4 }] })
}

#[test]
fn s4_write_after_read() {
    assert_shows_corruption(&s4(false), "seed-l2");
    assert_clean_everywhere(&s4(true));
}

/// 4b. The same write-after-read across two submissions with no wait between them, the first
///    ending in a barrier to HOST/HOST_READ: HOST in a second scope orders host operations after
///    a host wait, not the next submission's commands, so the copy still overtakes the reads.
fn s4_two_submissions(semaphore: bool) -> Workload {
    let mut w = Workload::new("write-after-read-two-submissions");
    let s = w.semaphore("s0");
    let (mut reads, copy) = war_reads_and_copy(&mut w);
    reads.push(barrier(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ));
    let reads = w.command_buffer("reads", reads);
    let copy = w.command_buffer("copy", vec![copy]);
    let f = w.fence("f0");
    let signal = if semaphore { vec![(s, S::ALL_COMMANDS)] } else { vec![] };
    w.host(HostOp::QueueSubmit { queue: 0, batches: vec![SubmitBatch { command_buffers: vec![reads], signal_semaphores: signal, ..Default::default() }], fence: None });
    let wait = if semaphore { vec![(s, S::COPY)] } else { vec![] };
    w.host(HostOp::QueueSubmit { queue: 0, batches: vec![SubmitBatch { command_buffers: vec![copy], wait_semaphores: wait, ..Default::default() }], fence: Some(f) });
    w.host(HostOp::DeviceWaitIdle);
    w
}

#[test]
fn s4b_a_barrier_to_host_does_not_order_the_next_submission() {
    assert_shows_corruption(&s4_two_submissions(false), "seed-l2");
    assert_clean_everywhere(&s4_two_submissions(true));
}

/// 5. Writes to neighbouring bytes: a dispatch writes the first half of every 64-byte line of B
///    and fills write the second half, with no barrier between them. Vulkan needs none: a memory
///    operation "must not affect memory at a memory location not within its set of memory
///    locations" (the memory model), and the two sets do not overlap. So every built-in profile
///    must keep both halves. The seed's partial-line problem is what a profile that breaks this
///    looks like: under seed-vram the fill goes straight to VRAM while the L2 holds the lines
///    (brought in by an earlier read of B); with one dirty bit per line instead of a mask per
///    byte, the L2's later write-back sends whole lines, stale halves included, over the fill.
fn s5() -> Workload {
    let mut w = Workload::new("neighbouring-writes");
    let b = w.device_buffer("B", N);
    let out = w.device_buffer("OUT", N);
    let read = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    // Words 0..8 of each 16-word line.
    let p = w.wgsl_pipeline("half_lines", random::FIRST_HALVES, "main").unwrap();
    let mut c = vec![
        dispatch(read, 16, vec![storage((0, 0), b), storage((0, 1), out)], 0),
        barrier(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE),
        dispatch(p, 8, vec![storage((0, 0), b)], 0),
    ];
    // Fill the second half of every line, one update per line.
    for line in 0..N / 64 {
        c.push(Command::FillBuffer { dst: b, offset: line * 64 + 32, size: Some(32), data: 0x5555_5555 });
    }
    finish(w, c)
}

#[test]
fn s5_writes_to_neighbouring_bytes_need_no_barrier() {
    assert_clean_everywhere(&s5());
    // The same machine with a dirty bit per L2 line is not a conforming implementation: it loses
    // the fill's bytes.
    let mut p = Profile::builtin("seed-vram").unwrap();
    let l2 = p.machine.l2.cache.as_mut().unwrap();
    l2.write_policy = WritePolicy::WriteBackLineDirty;
    let lost = (0..SEEDS).map(|s| run_workload(&s5(), &p, s).unwrap()).find(|r| r.corrupted_bytes > 0);
    assert!(lost.is_some(), "a per-line-dirty L2 beside direct-to-VRAM fills should put stale bytes over the fill's");
}

/// 6. A split barrier: vkCmdSetEvent2 after a fill, vkCmdWaitEvents2 before a dispatch. With
///    the fill's stage (CLEAR) in the set's first scope nothing goes wrong; a set whose stage
///    mask names COMPUTE_SHADER instead does not wait for the fill (on any profile, seed-l2
///    included), so the dispatch reads zeroes where the fill has not yet reached.
fn s6(set_stage: S) -> Workload {
    let mut w = Workload::new("split-barrier");
    let a = w.device_buffer("A", BIG_FILL);
    let b = w.device_buffer("B", N);
    let e = w.event("e0");
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    // TRANSFER_WRITE only where the stage performs it: Vulkan forbids it beside COMPUTE_SHADER.
    let src_access = if set_stage.contains(S::CLEAR) { A::TRANSFER_WRITE } else { A::NONE };
    let dep_set = DependencyInfo::memory(set_stage, src_access, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ);
    let dep_wait = DependencyInfo::memory(set_stage, src_access, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ);
    let c = vec![
        Command::FillBuffer { dst: a, offset: 0, size: None, data: 3 },
        Command::SetEvent { event: e, dependency: dep_set },
        Command::WaitEvents { events: vec![e], dependency: dep_wait },
        dispatch(p, 16, vec![tail((0, 0), a), storage((0, 1), b)], 0),
    ];
    finish(w, c)
}

#[test]
fn s6_split_barrier_stage_masks() {
    assert_shows_corruption(&s6(S::COMPUTE_SHADER), "seed-l2");
    assert_clean_everywhere(&s6(S::CLEAR));
}

/// 7. Two queues: q0 fills A, q1 dispatches a read of A. Without a semaphore nothing orders
///    the two submissions (on any profile, seed-l2 included); with one (signal on q0, wait at
///    COMPUTE_SHADER on q1) the read sees the fill.
fn s7(with_semaphore: bool) -> Workload {
    let mut w = Workload::new("two-queues");
    let q1 = w.queue("q1");
    let a = w.device_buffer("A", BIG_FILL);
    let b = w.device_buffer("B", N);
    let s = w.semaphore("s0");
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    let producer = w.command_buffer("producer", vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 11 }]);
    let consumer = w.command_buffer("consumer", vec![dispatch(p, 16, vec![tail((0, 0), a), storage((0, 1), b)], 0)]);
    let f = w.fence("f0");
    let sem = |v: bool| if v { vec![(s, S::ALL_COMMANDS)] } else { vec![] };
    w.host(HostOp::QueueSubmit { queue: 0, batches: vec![SubmitBatch { command_buffers: vec![producer], signal_semaphores: sem(with_semaphore), ..Default::default() }], fence: None });
    w.host(HostOp::QueueSubmit {
        queue: q1,
        batches: vec![SubmitBatch {
            command_buffers: vec![consumer],
            wait_semaphores: if with_semaphore { vec![(s, S::COMPUTE_SHADER)] } else { vec![] },
            ..Default::default()
        }],
        fence: Some(f),
    });
    w.host(HostOp::DeviceWaitIdle);
    w
}

#[test]
fn s7_semaphore_between_queues() {
    assert_shows_corruption(&s7(false), "seed-l2");
    assert_clean_everywhere(&s7(true));
}

/// A finding names the command, the buffer, the bytes, the cache and both writes.
#[test]
fn findings_explain_the_stale_read() {
    let p = Profile::builtin("seed-l2").unwrap();
    let r = run_workload(&s1(false), &p, 0).unwrap();
    let f = r.findings.first().expect("a finding");
    assert_eq!(f.at.command_buffer, "cb0");
    assert_eq!(f.at.command, 1, "the dispatch read");
    assert_eq!(f.resource, "A");
    assert_eq!(f.seen_write, Writer::Initial);
    assert_eq!(f.expected_write, Writer::Command(CommandRef { submit: 0, batch: 0, command_buffer: "cb0".into(), command: 0 }));
    assert_eq!(f.expected[..4], 7u32.to_le_bytes());
    assert_eq!(f.expected.len() as u64, f.size.min(16), "a merged finding shows up to 16 of its bytes");
    assert_eq!(f.expected[4..8], 7u32.to_le_bytes());
    assert!(f.size >= 4 && f.offset.is_multiple_of(4));
}

/// Same workload, profile and seed: the same result, however many threads run runs at once.
#[test]
fn runs_are_deterministic_across_threads() {
    let p = Profile::builtin("seed-l2").unwrap();
    let w = s2(A::SHADER_STORAGE_READ);
    let one = |s| {
        let r = run_workload(&w, &p, s).unwrap();
        (r.cycles, r.stale_reads, r.corrupted_bytes, r.findings.clone(), format!("{:?}", r.caches))
    };
    let serial: Vec<_> = (0..4).map(one).collect();
    let parallel: Vec<_> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4).map(|s| sc.spawn(move || one(s))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(serial, parallel);
    assert_ne!(serial[0].0, 0);
}

/// Bad API use is an error naming the place, never a panic.
#[test]
fn api_misuse_is_a_located_error() {
    let mut w = Workload::new("bad");
    let a = w.device_buffer("A", 64);
    let f = w.fence("f0");
    let cb = w.command_buffer("cb0", vec![Command::FillBuffer { dst: a, offset: 60, size: Some(8), data: 0 }]);
    w.submit(0, vec![cb], Some(f));
    let err = run_workload(&w, &Profile::builtin("ideal").unwrap(), 0).unwrap_err();
    assert!(err.to_string().contains("cb0") && err.to_string().contains("outside buffer `A`"), "{err}");

    // Workgroup memory past the profile's maxComputeSharedMemorySize, and a dispatch base past
    // maxComputeWorkGroupCount.
    const BIG_SHARED: &str = "@group(0) @binding(0) var<storage, read_write> dst: array<u32>;\nvar<workgroup> w: array<u32, 10240>;\n@compute @workgroup_size(1) fn main() { w[1] = 2u; dst[0] = w[1]; }";
    for (shader, base) in [(BIG_SHARED, 0), (ADD_ONE, 65535)] {
        let mut w = Workload::new("bad-dispatch");
        let a = w.device_buffer("A", 4096);
        let b = w.device_buffer("B", 4096);
        let p = w.wgsl_pipeline("p", shader, "main").unwrap();
        let bindings = if base == 0 { vec![storage((0, 0), a)] } else { vec![storage((0, 0), a), storage((0, 1), b)] };
        let mut d = dispatch(p, 1, bindings, 0);
        if let Command::Dispatch { base_group, .. } = &mut d {
            base_group[0] = base;
        }
        let cb = w.command_buffer("cb0", vec![d]);
        w.submit(0, vec![cb], None);
        let err = run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap_err().to_string();
        let want = if base == 0 { "40960 bytes of workgroup memory exceed maxComputeSharedMemorySize = 32768" } else { "base_group[0] + group_count[0] = 65535 + 1 exceeds" };
        assert!(err.contains("cb0") && err.contains(want), "{err}");
    }

    let mut w = Workload::new("never-signalled");
    let f = w.fence("f0");
    w.host(HostOp::WaitForFences(vec![f]));
    let err = run_workload(&w, &Profile::builtin("ideal").unwrap(), 0).unwrap_err();
    assert!(err.to_string().contains("timeline[0]") && err.to_string().contains("f0"), "{err}");
}


/// The built-in sample workloads are correctly synchronized and compute the right thing.
#[test]
fn samples_match_the_reference_and_plain_rust() {
    let p = Profile::builtin("seed-l2").unwrap();
    let r = run_workload(&samples::matmul(32).unwrap(), &p, 1).unwrap();
    assert!(!r.corrupted(), "{r:?}");
    // C[0][j] = sum_k A[0][k] * B[k][j], with A[i][k] = ((i*32+k) % 17) * 0.25.
    let v = |i: u32| ((i % 17) as f32) * 0.25;
    let c01: f32 = (0..32u32).fold(0.0, |acc, k| v(k).mul_add(v(k * 32 + 1), acc));
    let got = f32::from_le_bytes(r.host_reads[0].data[4..8].try_into().unwrap());
    assert_eq!(got, c01);
    let r = run_workload(&samples::stream(64 * 1024).unwrap(), &Profile::builtin("seed-vram").unwrap(), 2).unwrap();
    assert!(!r.corrupted());
    assert!(r.lane_ops > 16 * 1024 * 5, "lane ops {}", r.lane_ops);
}

/// When the host sets the event a command buffer waits on. Only before the submission is valid:
/// the device then reads what the host wrote before vkSetEvent (HOST_WRITE in the wait's first
/// access scope), correct everywhere. Setting it while the command buffer is pending is
/// forbidden (VUID-vkSetEvent-event-09543; an NVIDIA H200 did not honour such a gate), and a
/// wait that is never set would wait forever: both are located errors.
#[derive(Clone, Copy, PartialEq)]
enum HostSet {
    BeforeSubmission,
    WhilePending,
    Never,
}

fn host_set_event(when: HostSet) -> Workload {
    let mut w = Workload::new("host-set-event");
    let (mem, input) = w.host_buffer("IN", N);
    let out = w.device_buffer("OUT", N);
    let e = w.event("e0");
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    let dep = DependencyInfo::memory(S::HOST, A::HOST_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ);
    let cb = w.command_buffer(
        "cb0",
        vec![Command::WaitEvents { events: vec![e], dependency: dep }, dispatch(p, 16, vec![storage((0, 0), input), storage((0, 1), out)], 0)],
    );
    let f = w.fence("f0");
    w.host(HostOp::HostWrite { memory: mem, offset: 0, data: (0..N as u32 / 4).flat_map(|i| (i * 5).to_le_bytes()).collect() });
    if when == HostSet::BeforeSubmission {
        w.host(HostOp::SetEvent(e));
    }
    w.submit(0, vec![cb], Some(f));
    if when == HostSet::WhilePending {
        w.host(HostOp::SetEvent(e));
    }
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

#[test]
fn host_set_event_before_submission_only() {
    assert_clean_everywhere(&host_set_event(HostSet::BeforeSubmission));
    let p = Profile::builtin("seed-l2").unwrap();
    let err = run_workload(&host_set_event(HostSet::WhilePending), &p, 0).unwrap_err().to_string();
    assert!(err.contains("VUID-vkSetEvent-event-09543"), "{err}");
    let err = run_workload(&host_set_event(HostSet::Never), &p, 0).unwrap_err().to_string();
    assert!(err.contains("would wait forever"), "{err}");
}

/// atomicLoad and atomicStore are performed at the coherence point, like read-modify-write
/// atomics: a CU whose L1 still holds an old copy of the line must not return it. Dispatch 1
/// loads the counters into every CU's L1; dispatch 2 adds to them atomically (at L2); dispatch 3
/// reads them with atomicLoad after an execution-only barrier and stores what it saw.
#[test]
fn atomic_loads_and_stores_are_coherent() {
    const FILL_L1: &str = r#"
    @group(0) @binding(0) var<storage, read> c: array<u32>;
    @group(0) @binding(1) var<storage, read_write> out: array<u32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = c[id.x % 64u]; }
    "#;
    const ADD: &str = r#"
    @group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>>;
    @compute @workgroup_size(64)
    fn main(@builtin(local_invocation_index) i: u32) { atomicAdd(&c[i], 10u); atomicStore(&c[64u + i], 7u); }
    "#;
    const LOAD: &str = r#"
    @group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>>;
    @group(0) @binding(1) var<storage, read_write> out: array<u32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) id: vec3<u32>) {
        out[id.x] = atomicLoad(&c[id.x % 64u]) + atomicLoad(&c[64u + id.x % 64u]);
    }
    "#;
    let mut w = Workload::new("coherent-atomics");
    let c = w.device_buffer("C", 512);
    let out1 = w.device_buffer("OUT1", N * 4);
    let out3 = w.device_buffer("OUT3", N * 4);
    let fill = w.wgsl_pipeline("fill_l1", FILL_L1, "main").unwrap();
    let add = w.wgsl_pipeline("add", ADD, "main").unwrap();
    let load = w.wgsl_pipeline("load", LOAD, "main").unwrap();
    let exec_only = || barrier(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE);
    let c_cmds = vec![
        dispatch(fill, 64, vec![storage((0, 0), c), storage((0, 1), out1)], 0),
        exec_only(),
        dispatch(add, 1, vec![storage((0, 0), c)], 0),
        exec_only(),
        dispatch(load, 64, vec![storage((0, 0), c), storage((0, 1), out3)], 0),
    ];
    let w = finish(w, c_cmds);
    for name in Profile::builtin_names() {
        let p = Profile::builtin(name).unwrap();
        for seed in 0..4 {
            let r = run_workload(&w, &p, seed).unwrap();
            assert_eq!(r.corrupted_bytes, 0, "{name} seed {seed}: atomicLoad saw a stale L1 copy");
        }
    }
}

/// Submitting a command buffer again while an earlier submission of it may still be pending
/// (no host wait covers it) needs SIMULTANEOUS_USE; a fence wait in between makes it legal.
#[test]
fn resubmitting_a_pending_command_buffer_needs_simultaneous_use() {
    let build = |wait_between: bool, simultaneous: bool| {
        let mut w = Workload::new("resubmit");
        let a = w.device_buffer("A", N);
        let cb = w.command_buffer("cb0", vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 1 }]);
        w.command_buffers[cb].simultaneous_use = simultaneous;
        let f = w.fence("f0");
        w.submit(0, vec![cb], Some(f));
        if wait_between {
            w.host(HostOp::WaitForFences(vec![f]));
            w.host(HostOp::ResetFences(vec![f]));
        }
        w.submit(0, vec![cb], None);
        w.host(HostOp::DeviceWaitIdle);
        w
    };
    let p = Profile::builtin("ideal").unwrap();
    let err = run_workload(&build(false, false), &p, 0).unwrap_err().to_string();
    assert!(err.contains("timeline[1]") && err.contains("`cb0`") && err.contains("SIMULTANEOUS_USE"), "{err}");
    assert!(run_workload(&build(true, false), &p, 0).is_ok());
    assert!(run_workload(&build(false, true), &p, 0).is_ok());
}

/// A timeline's workgroup spans are recorded only when asked for, as many as asked for; the
/// rest are counted. Recording changes nothing simulated.
#[test]
fn workgroup_spans_are_recorded_as_asked() {
    let p = Profile::builtin("seed-l2").unwrap();
    let w = s1(true);
    let plain = run_workload(&w, &p, 3).unwrap();
    assert!(plain.workgroups.is_empty() && plain.workgroups_not_recorded == 0);
    let all = run_workload_with(&w, &p, 3, &RunOptions { workgroup_spans: MAX_TIMELINE_WORKGROUPS, ..RunOptions::default() }).unwrap();
    assert_eq!((all.workgroups.len(), all.workgroups_not_recorded), (16, 0));
    assert_eq!(all.workgroup_commands.len(), 1);
    let mut seen: Vec<u64> = all.workgroups.iter().map(|g| g.workgroup).collect();
    seen.sort();
    assert_eq!(seen, (0..16).collect::<Vec<_>>());
    for g in &all.workgroups {
        assert!(g.command == 0 && g.cu < p.machine.compute_units as usize && g.start < g.end && g.end <= all.cycles, "{g:?}");
    }
    let some = run_workload_with(&w, &p, 3, &RunOptions { workgroup_spans: 5, ..RunOptions::default() }).unwrap();
    assert_eq!((some.workgroups.len(), some.workgroups_not_recorded), (5, 11));
    assert_eq!(some.workgroups[..], all.workgroups[..5]);
    assert_eq!((some.cycles, some.stale_reads, &some.findings), (plain.cycles, plain.stale_reads, &plain.findings));
}

/// The run's budgets are exact: a run fits a budget of exactly the instructions, cycles and
/// transfer bytes it takes, and one less stops it with an error that names the budget (the
/// reference run counts the same instructions, and is stopped the same way).
#[test]
fn run_budgets_are_exact() {
    let p = Profile::builtin("seed-l2").unwrap();
    let w = s1(true);
    let r = run_workload(&w, &p, 0).unwrap();
    assert!(r.instructions > 0 && r.cycles > 0);
    assert_eq!(r.reference_instructions, r.instructions);
    let with = |max_cycles, max_instructions, max_transfer_bytes| {
        run_workload_with(&w, &p, 0, &RunOptions { limits: RunLimits { max_cycles, max_instructions, max_transfer_bytes }, ..RunOptions::default() })
    };
    let fits = with(r.cycles, r.instructions, N).unwrap();
    assert_eq!((fits.cycles, fits.instructions), (r.cycles, r.instructions));
    let budget_error = |res: Result<RunResult, WorkloadError>, kind: Budget| match res {
        Err(WorkloadError::Budget { budget, at, message }) if budget == kind => format!("{at}: {message}"),
        other => panic!("expected the {kind:?} budget to stop the run: {other:?}"),
    };
    let e = budget_error(with(r.cycles, r.instructions - 1, N), Budget::Instructions);
    assert!(e.contains(&format!("the reference run executed more than its budget of {} shader instructions", r.instructions - 1)), "{e}");
    let e = budget_error(with(r.cycles - 1, r.instructions, N), Budget::Cycles);
    assert!(e.starts_with("run: ") && e.contains(&format!("the simulated run (seed 0) went past its budget of {} cycles", r.cycles - 1)), "{e}");
    // The fill of N bytes is all the trace moves.
    let e = budget_error(with(r.cycles, r.instructions, N - 1), Budget::TransferBytes);
    assert!(e.contains(&format!("more than the budget of {} bytes", N - 1)) && e.contains("--max-transfer-bytes"), "{e}");
    for bad in [(0, 1, 1), (MAX_CYCLES + 1, 1, 1), (1, 0, 1), (1, 1, 0)] {
        assert!(matches!(with(bad.0, bad.1, bad.2), Err(WorkloadError::Invalid { .. })), "{bad:?}");
    }
}

/// A loop bound read stale changes how many instructions the simulated run executes: the
/// report gives both runs' counts, and a budget between them stops the run that needs more,
/// naming it (and, for the simulated run, the stale reads that explain it).
#[test]
fn a_stale_loop_bound_is_told_apart_from_a_runaway_shader() {
    // Each invocation loops `100 - a[i]` times; A is filled with 100 with no barrier, so a
    // stale read of the initial zeroes makes the simulated run loop 100 times where the
    // reference run does not loop at all.
    const LOOP: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = 100u - a[id.x];
    var i = 0u;
    loop { if (i >= n) { break; } i = i + 1u; }
    b[id.x] = i;
}
"#;
    let stale_loop_bound = |with_barrier: bool| fill_then_dispatch("stale-loop-bound", ("loop", LOOP), 100, with_barrier);
    let w = stale_loop_bound(false);
    let p = Profile::builtin("seed-l2").unwrap();
    let (seed, r) = (0..SEEDS).map(|s| (s, run_workload(&w, &p, s).unwrap())).find(|(_, r)| r.stale_reads > 0).expect("a seed with stale reads");
    assert!(r.instructions > r.reference_instructions, "{} vs {}", r.instructions, r.reference_instructions);
    // Stopped by its instruction budget after stale reads, the simulated run is a finding, not
    // an error: the stale reads it made, and where and why it was stopped.
    let limits = RunLimits { max_instructions: r.reference_instructions, ..RunLimits::default() };
    let stopped = run_workload_with(&w, &p, seed, &RunOptions { limits, ..RunOptions::default() }).expect("a stopped run is a result");
    let why = stopped.stopped.as_ref().expect("the run was stopped");
    assert!(why.message.contains(&format!("the simulated run (seed {seed}) executed more than its budget")) && why.message.contains("stale read"), "{why:?}");
    assert!(stopped.corrupted() && stopped.stale_reads > 0 && !stopped.findings.is_empty());
    assert_eq!(stopped.corrupted_bytes, 0, "a stopped run's memory is not compared");
    // Its counts include the workgroups in flight when it stopped, so they pass the budget.
    assert!(stopped.instructions > limits.max_instructions && stopped.instructions < r.instructions, "{} of {}", stopped.instructions, r.instructions);
    assert!(stopped.lane_ops > 0 && stopped.lane_ops < r.lane_ops);
    // A cycle budget proves no runaway (the reference run has no cycles): still an error.
    let limits = RunLimits { max_cycles: r.cycles - 1, ..RunLimits::default() };
    match run_workload_with(&w, &p, seed, &RunOptions { limits, ..RunOptions::default() }) {
        Err(WorkloadError::Budget { budget: Budget::Cycles, message, .. }) => assert!(message.contains("cycles") && message.contains("stale read"), "{message}"),
        other => panic!("expected the cycle budget to stop the run: {other:?}"),
    }
    // A budget the reference run itself spends is an error: nothing was found, the run could
    // not be made.
    let limits = RunLimits { max_instructions: r.reference_instructions - 1, ..RunLimits::default() };
    match run_workload_with(&w, &p, seed, &RunOptions { limits, ..RunOptions::default() }) {
        Err(WorkloadError::Budget { budget: Budget::Instructions, message, .. }) => assert!(message.contains("the reference run"), "{message}"),
        other => panic!("expected the reference run to spend its budget: {other:?}"),
    }
    // And a run that read nothing stale (the barrier is there) and spends a budget is an
    // error with no stale reads to tell of.
    let fixed = stale_loop_bound(true);
    let clean = run_workload(&fixed, &p, seed).unwrap();
    assert_eq!((clean.stale_reads, clean.instructions), (0, clean.reference_instructions));
    let limits = RunLimits { max_cycles: clean.cycles - 1, ..RunLimits::default() };
    match run_workload_with(&fixed, &p, seed, &RunOptions { limits, ..RunOptions::default() }) {
        Err(WorkloadError::Budget { budget: Budget::Cycles, message, .. }) => assert!(message.contains("cycles") && !message.contains("stale"), "{message}"),
        other => panic!("expected the cycle budget to stop the clean run: {other:?}"),
    }
}

/// A SPIR-V pipeline from the example corpus (`examples/traces/shaders`, GLSL beside it).
fn spirv_pipeline(w: &mut Workload, name: &str, spv: &[u8]) -> PipelineId {
    let module = sim_shader::Module::from_spirv(spv, name).unwrap();
    w.pipeline(name, std::sync::Arc::new(sim_shader::ComputePipeline::new(&module, "main").unwrap()))
}

/// 9. Legacy SPIR-V `Coherent` buffers. A dispatch reads X (every CU's L1 keeps its lines), the
///    next overwrites X, the last reads it again, with barriers that order execution only (no
///    access masks). With plain buffers that is a missing barrier, and seed-l2's L1s hand the
///    last dispatch the first one's bytes. Declared `coherent` (as glslang writes it: on the
///    block's member), each access carries its own device-scope availability and visibility,
///    the program is correct, and every profile must run it clean.
fn s9(coherent: bool) -> Workload {
    let (read, write): (&[u8], &[u8]) = if coherent {
        (include_bytes!("../../examples/traces/shaders/read_x_coherent.spv"), include_bytes!("../../examples/traces/shaders/write_x_coherent.spv"))
    } else {
        (include_bytes!("../../examples/traces/shaders/read_x.spv"), include_bytes!("../../examples/traces/shaders/write_x.spv"))
    };
    read_write_read(if coherent { "coherent-buffer" } else { "plain-buffer" }, read, write, N)
}

/// S9's program: X filled, then `read` (X into OUT0), `write` (X) and `read` again (X into
/// OUT1), with execution-only dependencies between them; each dispatch covers `bytes` of X.
fn read_write_read(name: &str, read: &[u8], write: &[u8], bytes: u64) -> Workload {
    let mut w = Workload::new(name);
    let x = w.device_buffer("X", N);
    let out0 = w.device_buffer("OUT0", bytes);
    let out1 = w.device_buffer("OUT1", bytes);
    let read = spirv_pipeline(&mut w, "read", read);
    let write = spirv_pipeline(&mut w, "write", write);
    let groups = (bytes / 4 / 64) as u32;
    let exec_only = || barrier(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE);
    let c = vec![
        Command::FillBuffer { dst: x, offset: 0, size: None, data: 7 },
        barrier(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE),
        dispatch(read, groups, vec![storage((0, 0), x), storage((0, 1), out0)], 0),
        exec_only(),
        dispatch(write, groups, vec![storage((0, 0), x)], 0),
        exec_only(),
        dispatch(read, groups, vec![storage((0, 0), x), storage((0, 1), out1)], 0),
    ];
    finish(w, c)
}

#[test]
fn s9_coherent_buffers_need_only_execution_dependencies() {
    assert_shows_corruption(&s9(false), "seed-l2");
    assert_clean_everywhere(&s9(true));
}

/// S9 on a block of which only one member is `Coherent` (GLSL `buffer X { uint b[512];
/// coherent uint a[]; }`): the same read, write, read with execution-only dependencies, on the
/// coherent member `a` or on the plain member `b`.
fn s9_member(member: char) -> Workload {
    let (read, write): (&[u8], &[u8]) = match member {
        'a' => (include_bytes!("spirv/member_read_a.spv"), include_bytes!("spirv/member_write_a.spv")),
        _ => (include_bytes!("spirv/member_read_b.spv"), include_bytes!("spirv/member_write_b.spv")),
    };
    // Each member is half of X: 512 words.
    read_write_read(&format!("coherent-member-{member}"), read, write, N / 2)
}

#[test]
fn s9_only_the_coherent_members_of_a_block_need_only_execution_dependencies() {
    assert_clean_everywhere(&s9_member('a'));
    assert_shows_corruption(&s9_member('b'), "seed-l2");
}

/// Transfers nothing orders overlap: the transfer engine moves the chunks of every command it
/// has started interleaved, so the second of two independent fills starts before the first ends,
/// on every built-in profile.
#[test]
fn independent_transfers_overlap() {
    let mut w = Workload::new("two-fills");
    let a = w.device_buffer("A", 64 * 1024);
    let b = w.device_buffer("B", 64 * 1024);
    let w = finish(w, vec![
        Command::FillBuffer { dst: a, offset: 0, size: None, data: 1 },
        Command::FillBuffer { dst: b, offset: 0, size: None, data: 2 },
    ]);
    for name in Profile::builtin_names() {
        let r = run_workload(&w, &Profile::builtin(name).unwrap(), 0).unwrap();
        assert!(!r.corrupted(), "{name}");
        let (s0, e0) = (r.spans[0].1, r.spans[0].2);
        let s1 = r.spans[1].1;
        assert!(s1 < e0 && s0 <= s1, "{name}: the second fill started at {s1}, the first ran [{s0}, {e0})");
    }
}
