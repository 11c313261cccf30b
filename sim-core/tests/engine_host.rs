//! The host side in whole runs: mapped memory through write-combining buffers or the host
//! cache, vkFlushMappedMemoryRanges / vkInvalidateMappedMemoryRanges, and the memory-domain
//! operations of barriers naming HOST. Each scenario shows the stale bytes, and its fixed
//! variant is clean on every built-in profile.

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::generators::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const CACHED: MemoryProperties = MemoryProperties { device_local: false, host_visible: true, host_coherent: false, host_cached: true };
const COHERENT: MemoryProperties = MemoryProperties::HOST_COHERENT;
const N: u64 = 1024;

use samples::ADD_ONE_WGSL as ADD_ONE;

fn words(n: u64, base: u32) -> Vec<u8> {
    (0..n as u32).flat_map(|i| (base + i).to_le_bytes()).collect()
}

fn bind(binding: u32, buffer: BufferId) -> BufferBinding {
    BufferBinding { set: 0, binding, buffer, offset: 0, range: None }
}

fn whole(memory: MemoryId) -> MappedRange {
    MappedRange { memory, offset: 0, size: None }
}

fn run(w: &Workload, profile: &str, seed: u64) -> RunResult {
    run_workload(w, &Profile::builtin(profile).unwrap(), seed).unwrap()
}

fn clean_everywhere(w: &Workload) {
    for p in Profile::builtin_names() {
        for seed in 0..8 {
            let r = run(w, p, seed);
            assert!(!r.corrupted(), "{} on {p} seed {seed}: {} stale reads, {} corrupted bytes, {:?}", w.name, r.stale_reads, r.corrupted_bytes, r.findings.first());
        }
    }
}

/// A dispatch reading `input` (in `memory`) into a device-local buffer, and the host reading
/// the result back after a fence, with the right barrier to HOST_READ.
fn upload_and_add(props: MemoryProperties, flush: bool) -> Workload {
    let mut w = Workload::new("host-upload");
    let mem = w.memory("upload", N, props);
    let input = w.buffer("IN", mem, 0, N);
    let (out_mem, out) = w.host_buffer("OUT", N);
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    w.host(HostOp::HostWrite { memory: mem, offset: 0, data: words(N / 4, 100) });
    if flush {
        w.host(HostOp::FlushMappedMemoryRanges(vec![whole(mem)]));
    }
    let cb = w.command_buffer(
        "cb0",
        vec![
            Command::Dispatch { pipeline: p, group_count: [(N / 256) as u32, 1, 1], base_group: [0; 3], bindings: vec![bind(0, input), bind(1, out)], push_constants: vec![], images: Vec::new() },
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)),
        ],
    );
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::HostRead { memory: out_mem, offset: 0, size: N, label: "result".into(), expect: Some(words(N / 4, 101)) });
    w
}

/// 1. The host writes HOST_CACHED memory and submits without vkFlushMappedMemoryRanges: the
///    writes sit in the host cache and the GPU reads the old (zero) bytes.
#[test]
fn s1_cached_upload_without_flush_reads_old_bytes() {
    let w = upload_and_add(CACHED, false);
    let r = run(&w, "seed-l2", 0);
    assert!(r.stale_reads > 0);
    let f = r.findings.first().expect("a finding");
    assert_eq!(f.resource, "IN");
    assert_eq!(f.seen_write, Writer::Initial);
    assert_eq!(f.expected_write, Writer::Host { timeline: 0 });
    assert_eq!(r.host_reads[0].reference_meets_expectation, Some(true));
    assert!(r.host_reads[0].differing_bytes > 0);
    clean_everywhere(&upload_and_add(CACHED, true));
}

/// 5. HOST_COHERENT (write-combined) uploads need no flush: queue submission is a
///    device-visible event that drains the write-combining buffers.
#[test]
fn s5_coherent_write_combined_upload_needs_no_flush() {
    clean_everywhere(&upload_and_add(COHERENT, false));
}

/// The GPU writes `OUT` in `props` memory; the host reads it after the fence.
/// `cache_first`: the host reads OUT before the submission (so a host cache holds it);
/// `barrier`: a barrier to HOST/HOST_READ ends the command buffer; `invalidate`: the host calls
/// vkInvalidateMappedMemoryRanges before reading.
fn gpu_to_host(props: MemoryProperties, cache_first: bool, barrier: bool, invalidate: bool) -> Workload {
    let mut w = Workload::new("gpu-to-host");
    let (in_mem, input) = w.host_buffer("IN", N);
    let mem = w.memory("readback", N, props);
    let out = w.buffer("OUT", mem, 0, N);
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
    w.host(HostOp::HostWrite { memory: in_mem, offset: 0, data: words(N / 4, 7) });
    if cache_first {
        w.host(HostOp::HostRead { memory: mem, offset: 0, size: N, label: "before".into(), expect: None });
    }
    let mut cmds = vec![Command::Dispatch { pipeline: p, group_count: [(N / 256) as u32, 1, 1], base_group: [0; 3], bindings: vec![bind(0, input), bind(1, out)], push_constants: vec![], images: Vec::new() }];
    if barrier {
        cmds.push(Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)));
    }
    let cb = w.command_buffer("cb0", cmds);
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    if invalidate {
        w.host(HostOp::InvalidateMappedMemoryRanges(vec![whole(mem)]));
    }
    w.host(HostOp::HostRead { memory: mem, offset: 0, size: N, label: "result".into(), expect: Some(words(N / 4, 8)) });
    w
}

fn result_read(r: &RunResult) -> &HostReadResult {
    r.host_reads.iter().find(|h| h.label == "result").unwrap()
}

/// 2. The GPU writes; the host, which had the lines in its cache, reads HOST_CACHED memory
///    after the fence without vkInvalidateMappedMemoryRanges: it sees its old cached bytes.
#[test]
fn s2_cached_readback_without_invalidate_reads_old_bytes() {
    let r = run(&gpu_to_host(CACHED, true, true, false), "seed-l2", 0);
    let h = result_read(&r);
    assert!(h.data.iter().all(|&b| b == 0), "every word still holds the host's cached zeroes");
    assert!(h.differing_bytes >= N / 4, "each word differs in at least one byte");
    let (_, seen, expected) = h.first_difference.clone().unwrap();
    assert_eq!(seen, Writer::Initial);
    assert!(matches!(expected, Writer::Command(_)));
    clean_everywhere(&gpu_to_host(CACHED, true, true, true));
}

/// 3. The GPU writes with no barrier to HOST/HOST_READ before the fence. Under seed-l2 the
///    fence makes the writes available only at L2 (the coherence point of the device): they sit
///    dirty there while the host reads old VRAM. The barrier's HOST_READ row ("flush L2") fixes it.
#[test]
fn s3_no_host_read_barrier_leaves_data_dirty_in_l2() {
    let r = run(&gpu_to_host(COHERENT, false, false, false), "seed-l2", 0);
    let h = result_read(&r);
    assert!(h.differing_bytes > 0, "the host read old VRAM");
    assert_eq!(h.reference_meets_expectation, Some(true));
    clean_everywhere(&gpu_to_host(COHERENT, false, true, false));
}

/// 4. Partial lines: the host writes the first 4 bytes of a 64-byte atom of HOST_CACHED memory
///    (the write miss fetches the whole line), the GPU writes the rest of that atom, and the
///    host's flush of its atom writes the whole line back — stale bytes over the GPU's. Writing
///    and flushing only whole atoms of its own (atom 0) while the GPU writes atom 1 is safe.
fn partial_line(share_atom: bool) -> Workload {
    // Words 1..16 of its 64-byte buffer (the host's atom), or all 16 words (its own atom).
    let first = if share_atom { 1 } else { 0 };
    let write_tail = format!(
        "@group(0) @binding(0) var<storage, read_write> dst: array<u32, 16>;
         @compute @workgroup_size(16)
         fn main(@builtin(local_invocation_index) i: u32) {{ if (i >= {first}u) {{ dst[i] = 0xD0D0D000u + i; }} }}"
    );
    let mut w = Workload::new("partial-line");
    let mem = w.memory("shared", 256, CACHED);
    let gpu_part = w.buffer("GPU", mem, if share_atom { 0 } else { 64 }, 64);
    let p = w.wgsl_pipeline("write_tail", &write_tail, "main").unwrap();
    // The host writes 4 bytes of atom 0 (whole atom 0 when the atoms are not shared).
    let host_bytes = if share_atom { 4 } else { 64 };
    w.host(HostOp::HostWrite { memory: mem, offset: 0, data: vec![0xAB; host_bytes] });
    let cb = w.command_buffer(
        "cb0",
        vec![
            Command::Dispatch { pipeline: p, group_count: [1, 1, 1], base_group: [0; 3], bindings: vec![bind(0, gpu_part)], push_constants: vec![], images: Vec::new() },
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ | A::HOST_WRITE)),
        ],
    );
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::FlushMappedMemoryRanges(vec![MappedRange { memory: mem, offset: 0, size: Some(64) }]));
    w.host(HostOp::InvalidateMappedMemoryRanges(vec![whole(mem)]));
    w.host(HostOp::HostRead { memory: mem, offset: 0, size: 128, label: "result".into(), expect: None });
    w
}

#[test]
fn s4_flushing_a_shared_atom_clobbers_device_bytes() {
    let r = run(&partial_line(true), "seed-l2", 0);
    assert_eq!(r.corrupted_bytes, 60, "the GPU's 60 bytes of atom 0 were overwritten by the host's stale line");
    let h = result_read(&r);
    assert_eq!(&h.data[..4], &[0xAB; 4]);
    assert_eq!(&h.data[4..8], &[0; 4], "the GPU's word 1 is gone");
    clean_everywhere(&partial_line(false));
}

/// Flush and invalidate ranges follow the Vulkan rules: a misaligned one is an error naming
/// the rule and the place, before anything runs.
#[test]
fn misaligned_mapped_ranges_are_errors() {
    let mut w = upload_and_add(CACHED, false);
    w.timeline.insert(1, HostOp::FlushMappedMemoryRanges(vec![MappedRange { memory: 0, offset: 4, size: Some(64) }]));
    let err = run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap_err().to_string();
    assert!(err.contains("timeline[1]") && err.contains("nonCoherentAtomSize"), "{err}");
    let mut w = upload_and_add(CACHED, false);
    w.timeline.insert(1, HostOp::InvalidateMappedMemoryRanges(vec![MappedRange { memory: 0, offset: 0, size: Some(4096) }]));
    let err = run_workload(&w, &Profile::builtin("seed-l2").unwrap(), 0).unwrap_err().to_string();
    assert!(err.contains("timeline[1]"), "{err}");
}


/// A fence makes available only what no global barrier already did: after a fill, a barrier
/// that makes it available to the dispatch, and the dispatch, the fence does not run the fill's
/// TRANSFER_WRITE row again (on seed-l2, "invalidate L2", which would write back the dispatch's
/// dirty lines), so the missing HOST_READ barrier shows there; with the barrier, it is clean.
#[test]
fn a_fence_after_a_handled_transfer_does_not_hide_a_missing_host_read_barrier() {
    let build = |host_barrier: bool| {
        let mut w = Workload::new("fill-dispatch-readback");
        let src = w.device_buffer("src", N);
        let mem = w.memory("readback", N, COHERENT);
        let dst = w.buffer("dst", mem, 0, N);
        let add = w.wgsl_pipeline("add_one", ADD_ONE, "main").unwrap();
        let mut cmds = vec![
            Command::FillBuffer { dst: src, offset: 0, size: None, data: 7 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)),
            Command::Dispatch { pipeline: add, group_count: [(N / 4 / 64) as u32, 1, 1], base_group: [0; 3], bindings: vec![bind(0, src), bind(1, dst)], push_constants: vec![], images: Vec::new() },
        ];
        if host_barrier {
            cmds.push(Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)));
        }
        let cb = w.command_buffer("cb0", cmds);
        let f = w.fence("f");
        w.submit(0, vec![cb], Some(f));
        w.host(HostOp::WaitForFences(vec![f]));
        w.host(HostOp::HostRead { memory: mem, offset: 0, size: N, label: "readback".into(), expect: None });
        w
    };
    let missing = run(&build(false), "seed-l2", 0);
    assert!(missing.host_reads.iter().any(|h| h.differing_bytes > 0), "the dispatch's lines stay dirty in the L2");
    clean_everywhere(&build(true));
}
