//! Reads through a CU's texture cache (T$) are timed and named as the T$'s: ANV runs buffer
//! copies as BLORP operations that sample their source, so a copy reads its source through the
//! T$ of the CU its workgroup runs on.

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const BYTES: u64 = 4096;

/// Copies A to B (the T$ keeps A's lines), fills A, then copies A to C behind an execution-only
/// barrier: the second copy's reads hit the T$ and see A from before the fill.
fn copy_fill_copy() -> Workload {
    let mut w = Workload::new("copy-fill-copy");
    let a = w.device_buffer("A", BYTES);
    let b = w.device_buffer("B", BYTES);
    let c = w.device_buffer("C", BYTES);
    let f = w.fence("f");
    let copy = |src, dst| Command::CopyBuffer { src, dst, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: BYTES }] };
    let execution_only = |src, dst| Command::PipelineBarrier(DependencyInfo::memory(src, A::NONE, dst, A::NONE));
    let cb = w.command_buffer(
        "cb",
        vec![
            copy(a, b),
            execution_only(S::COPY, S::CLEAR),
            Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 },
            // No TRANSFER_WRITE → TRANSFER_READ: the T$ is not invalidated.
            execution_only(S::CLEAR, S::COPY),
            copy(a, c),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

/// ANV on one CU (every copy workgroup uses the same T$), with the T$ and L1 hit latencies given.
fn anv(texture_hit_cycles: u32, l1_hit_cycles: u32) -> Profile {
    let mut p = Profile::builtin("anv-gen12").unwrap();
    p.machine.compute_units = 1;
    p.timing.texture_hit_cycles = texture_hit_cycles;
    p.timing.l1_hit_cycles = l1_hit_cycles;
    p
}

#[test]
fn a_texture_cache_hit_is_named_and_timed_as_the_texture_cache() {
    let w = copy_fill_copy();
    let p = anv(40, 40);
    let r = run_workload(&w, &p, 0).unwrap();
    let stale: Vec<_> = r.findings.iter().filter(|f| f.resource == "A").collect();
    assert!(!stale.is_empty(), "the second copy reads A from before the fill: {:?}", r.findings);
    for f in &stale {
        assert_eq!(f.via, "T$", "the copy's stale bytes came from the T$: {f:?}");
    }
    // The cycles follow the T$'s hit latency, not the L1's.
    let cycles = |texture, l1| run_workload(&w, &anv(texture, l1), 0).unwrap().cycles;
    assert_eq!(r.cycles, cycles(40, 40));
    assert!(cycles(1000, 40) > r.cycles, "a slower T$ hit makes the copies slower");
    assert_eq!(cycles(40, 1000), r.cycles, "no read or write here goes through an L1");
}
