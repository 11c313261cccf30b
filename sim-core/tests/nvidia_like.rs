//! The `nvidia-like` profile against what a real H100 did (`../shared/hardware/H100_PROBE.md`,
//! the closing list; `[probe N]` below): each probe shape as a program, run on seeded schedules
//! (the machine's own executions, not schedules directed at hazards), must corrupt in every
//! schedule where the H100 always did and in none where it never did.

use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};

const SEEDS: u64 = 8;
/// The producer's buffer: 64 words, 16 `vec4`s (one uniform block).
const BYTES: u64 = 256;
/// Workgroups of the warm read and the consumer: enough that every SM has read the buffer, as
/// the probe's large dispatches did.
const GROUPS: u32 = 64;
const OUT_BYTES: u64 = GROUPS as u64 * 64 * 4;

const READ_UNIFORM: &str = include_str!("../../examples/traces/shaders/read_uniform.wgsl");

/// Every workgroup reads the whole 64-word buffer as read-only storage.
const READ_STORAGE: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x % 64u] + 1u;
}
"#;

/// How the consumer reads what the producer wrote.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reader {
    /// Through the uniform cache.
    Uniform,
    /// As a read-only storage buffer (the L1).
    Storage,
}

/// What stands between the producer and the consumer.
#[derive(Clone, Debug)]
enum Between {
    Barrier(MemoryBarrier2),
    /// A buffer barrier covering only the first half of the buffer.
    HalfRange(MemoryBarrier2),
    /// The consumer in a second command buffer of the same submission.
    SecondCommandBuffer,
    /// The consumer in a second vkQueueSubmit.
    SecondSubmit,
}

fn b(src: S, sa: A, dst: S, da: A) -> MemoryBarrier2 {
    MemoryBarrier2 { src_stage_mask: src, src_access_mask: sa, dst_stage_mask: dst, dst_access_mask: da }
}

/// `warm`: the consumer's path reads the buffer first (its cache holds the old bytes); then the
/// producer writes it, `between` happens, and the consumer reads it.
fn probe(warm: bool, reader: Reader, between: Between) -> Workload {
    let mut w = Workload::new("probe");
    let data = w.device_buffer("B", BYTES);
    let out_warm = w.device_buffer("warm_out", OUT_BYTES);
    let out = w.device_buffer("out", OUT_BYTES);
    let write = w.wgsl_pipeline("write_value", samples::WRITE_VALUE_WGSL, "main").unwrap();
    let consumer = match reader {
        Reader::Uniform => w.wgsl_pipeline("read_uniform", READ_UNIFORM, "main").unwrap(),
        Reader::Storage => w.wgsl_pipeline("read_storage", READ_STORAGE, "main").unwrap(),
    };
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    let read = |dst| Command::Dispatch { pipeline: consumer, group_count: [GROUPS, 1, 1], base_group: [0; 3], bindings: vec![bind(0, data), bind(1, dst)], push_constants: vec![] };
    let mut first = Vec::new();
    if warm {
        first.push(read(out_warm));
        // The warm read before the write: a write after read needs an execution dependency.
        first.push(Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::NONE, S::COMPUTE_SHADER, A::NONE)));
    }
    first.push(Command::Dispatch { pipeline: write, group_count: [1, 1, 1], base_group: [0; 3], bindings: vec![bind(0, data)], push_constants: vec![] });
    let mut second = Vec::new();
    match &between {
        Between::SecondCommandBuffer | Between::SecondSubmit => {}
        Between::Barrier(x) => first.push(Command::PipelineBarrier(DependencyInfo { memory_barriers: vec![*x], ..Default::default() })),
        Between::HalfRange(x) => first.push(Command::PipelineBarrier(DependencyInfo {
            buffer_memory_barriers: vec![BufferMemoryBarrier { barrier: *x, buffer: data, offset: 0, size: Some(BYTES / 2) }],
            ..Default::default()
        })),
    }
    match between {
        Between::SecondCommandBuffer | Between::SecondSubmit => second.push(read(out)),
        _ => first.push(read(out)),
    }
    let f = w.fence("f");
    let cb0 = w.command_buffer("cb0", first);
    match between {
        Between::SecondCommandBuffer => {
            let cb1 = w.command_buffer("cb1", second);
            w.submit(0, vec![cb0, cb1], Some(f));
        }
        Between::SecondSubmit => {
            let cb1 = w.command_buffer("cb1", second);
            w.submit(0, vec![cb0], None);
            w.submit(0, vec![cb1], Some(f));
        }
        _ => w.submit(0, vec![cb0], Some(f)),
    }
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

/// How many of the seeded schedules corrupt on `profile`.
fn corrupted(w: &Workload, profile: &str) -> u64 {
    let p = Profile::builtin(profile).unwrap();
    (0..SEEDS).filter(|&s| run_workload(w, &p, s).unwrap().corrupted()).count() as u64
}

fn always(what: &str, w: &Workload) {
    assert_eq!(corrupted(w, "nvidia-like"), SEEDS, "{what}: the H100 corrupted every iteration");
}

fn never(what: &str, w: &Workload) {
    assert_eq!(corrupted(w, "nvidia-like"), 0, "{what}: the H100 never corrupted");
}

const CS: S = S::COMPUTE_SHADER;

#[test]
fn a_correct_barrier_gives_correct_data() {
    // [probe 1]
    for reader in [Reader::Uniform, Reader::Storage] {
        let da = if reader == Reader::Uniform { A::UNIFORM_READ } else { A::SHADER_STORAGE_READ };
        never("ok", &probe(true, reader, Between::Barrier(b(CS, A::SHADER_WRITE, CS, da))));
        never("ok", &probe(false, reader, Between::Barrier(b(CS, A::SHADER_WRITE, CS, da))));
    }
}

#[test]
fn execution_only_is_enough_until_the_consumer_has_read_before() {
    let exec = b(CS, A::NONE, CS, A::NONE);
    // [probe 7]
    never("execonly, no warm read", &probe(false, Reader::Uniform, Between::Barrier(exec)));
    never("execonly, no warm read", &probe(false, Reader::Storage, Between::Barrier(exec)));
    // [probe 8, 17]
    always("execonly after a warm uniform read", &probe(true, Reader::Uniform, Between::Barrier(exec)));
    always("execonly after a warm storage read", &probe(true, Reader::Storage, Between::Barrier(exec)));
}

#[test]
fn only_the_destination_access_invalidates() {
    // [probe 9]
    always("srconly, warm uniform", &probe(true, Reader::Uniform, Between::Barrier(b(CS, A::SHADER_WRITE, CS, A::NONE))));
    never("dstonly, warm uniform", &probe(true, Reader::Uniform, Between::Barrier(b(CS, A::NONE, CS, A::UNIFORM_READ))));
    // [probe 10]
    always("SHADER_READ for a warm uniform reader", &probe(true, Reader::Uniform, Between::Barrier(b(CS, A::SHADER_WRITE, CS, A::SHADER_READ))));
    always("UNIFORM_READ for a warm storage reader", &probe(true, Reader::Storage, Between::Barrier(b(CS, A::SHADER_WRITE, CS, A::UNIFORM_READ))));
    // [probe 12]
    always("bottomdst, warm uniform", &probe(true, Reader::Uniform, Between::Barrier(b(CS, A::SHADER_WRITE, S::BOTTOM_OF_PIPE, A::NONE))));
    never("bottomdst, no warm read", &probe(false, Reader::Storage, Between::Barrier(b(CS, A::SHADER_WRITE, S::BOTTOM_OF_PIPE, A::NONE))));
}

#[test]
fn any_barrier_but_top_of_pipe_waits_for_everything() {
    // [probe 6]: the wrong stages still wait (the spec would not order these).
    never("wrongsrcstage", &probe(true, Reader::Uniform, Between::Barrier(b(S::FRAGMENT_SHADER, A::SHADER_WRITE, CS, A::UNIFORM_READ))));
    // [probe 11]: the invalidation follows the access bit, not the stage.
    never("wrongdststage", &probe(true, Reader::Uniform, Between::Barrier(b(CS, A::SHADER_WRITE, S::FRAGMENT_SHADER, A::UNIFORM_READ))));
    // The same programs are hazards a conforming machine may show: the default machine does.
    let p = Profile::builtin("seed-vram").unwrap();
    let w = probe(true, Reader::Uniform, Between::Barrier(b(S::FRAGMENT_SHADER, A::SHADER_WRITE, CS, A::UNIFORM_READ)));
    assert!(!run_workload(&w, &p, 0).unwrap().hazards.is_empty());
    // [probe 5, 13]: TOP_OF_PIPE as the source orders nothing: the invalidation comes before the
    // writer is done.
    always("topsrc, warm uniform", &probe(true, Reader::Uniform, Between::Barrier(b(S::TOP_OF_PIPE, A::NONE, CS, A::UNIFORM_READ))));
}

#[test]
fn buffer_barrier_ranges_are_ignored() {
    // [probe 14]
    never("halfrange", &probe(true, Reader::Uniform, Between::HalfRange(b(CS, A::SHADER_WRITE, CS, A::UNIFORM_READ))));
}

#[test]
fn submissions_order_and_invalidate_command_buffers_only_order() {
    // [probe 15]
    never("xsubmit, warm uniform", &probe(true, Reader::Uniform, Between::SecondSubmit));
    never("xsubmit, no warm read", &probe(false, Reader::Storage, Between::SecondSubmit));
    // [probe 16]
    never("xcb, no warm read", &probe(false, Reader::Storage, Between::SecondCommandBuffer));
    always("xcb, warm uniform", &probe(true, Reader::Uniform, Between::SecondCommandBuffer));
}

#[test]
fn the_host_sees_device_writes_after_the_fence_without_a_host_read_barrier() {
    // [probe 22]
    let mut w = Workload::new("d2h");
    let mem = w.memory("readback", BYTES, MemoryProperties::parse("HOST_VISIBLE|HOST_COHERENT").unwrap());
    let buf = w.buffer("R", mem, 0, BYTES);
    let write = w.wgsl_pipeline("write_value", samples::WRITE_VALUE_WGSL, "main").unwrap();
    let cb = w.command_buffer("cb0", vec![Command::Dispatch {
        pipeline: write,
        group_count: [1, 1, 1],
        base_group: [0; 3],
        bindings: vec![BufferBinding { set: 0, binding: 0, buffer: buf, offset: 0, range: None }],
        push_constants: vec![],
    }]);
    let f = w.fence("f");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::HostRead { memory: mem, offset: 0, size: BYTES, label: "readback".into(), expect: None });
    let p = Profile::builtin("nvidia-like").unwrap();
    for s in 0..SEEDS {
        let r = run_workload(&w, &p, s).unwrap();
        assert!(!r.hazards.is_empty(), "a missing HOST_READ barrier is a hazard all the same");
        assert!(r.host_reads.iter().all(|h| h.differing_bytes == 0), "seed {s}: the H100 never showed it");
    }
    // seed-l2, whose device domain ends at its L2, does.
    assert!(run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap().host_reads.iter().any(|h| h.differing_bytes > 0));
}
