//! The machine parts the driver profiles brought: transfers a driver runs as shaders (RADV's
//! meta shaders through the vector L0, Turnip's blits through the CCU), and the operations a
//! driver or kernel performs outside any barrier (at a submission's start, at a signal).

use std::path::Path;

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const WORDS: u64 = 1024;

/// A dispatch reads A on every CU (each CU's L1 keeps A's lines), the fill overwrites A, and a
/// copy of `copy_bytes` reads A behind a barrier whose second scope is `dst_access`.
fn read_fill_copy(copy_bytes: u64, dst_access: A) -> Workload {
    let mut w = Workload::new("read-fill-copy");
    let a = w.device_buffer("A", WORDS * 4);
    let b = w.device_buffer("B", WORDS * 4);
    let c = w.device_buffer("C", WORDS * 4);
    let p = w.wgsl_pipeline("add_one", include_str!("../../examples/traces/shaders/add_one.wgsl"), "main").unwrap();
    let f = w.fence("f");
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: a, offset: 0, size: None, data: 1 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)),
            Command::Dispatch {
                pipeline: p,
                group_count: [(WORDS / 64) as u32, 1, 1],
                base_group: [0; 3],
                bindings: vec![
                    BufferBinding { set: 0, binding: 0, buffer: a, offset: 0, range: None },
                    BufferBinding { set: 0, binding: 1, buffer: b, offset: 0, range: None },
                ],
                push_constants: vec![],
                images: Vec::new(),
            },
            // The fill overwrites what the dispatch read: an execution dependency is enough.
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::NONE, S::CLEAR, A::NONE)),
            Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COPY, dst_access)),
            Command::CopyBuffer { src: a, dst: c, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: copy_bytes }] },
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

fn corrupt_seeds(w: &Workload, p: &Profile) -> usize {
    (0..8).filter(|&s| run_workload(w, p, s).unwrap().corrupted()).count()
}

#[test]
fn radv_runs_large_copies_as_compute_shaders_through_the_vector_cache() {
    let p = Profile::builtin("radv-gfx10").unwrap();
    assert_eq!(p.machine.transfer.shader_min_bytes, Some(4096));
    // A copy of 4096 bytes is a meta shader: without TRANSFER_READ in the second scope, its
    // workgroups read the bytes from before the fill out of their CUs' L0.
    assert!(corrupt_seeds(&read_fill_copy(4096, A::NONE), &p) > 0, "a meta-shader copy behind a barrier with no dstAccessMask");
    assert_eq!(corrupt_seeds(&read_fill_copy(4096, A::TRANSFER_READ), &p), 0, "TRANSFER_READ invalidates the L0 (INV_VCACHE)");
    // Below RADV_BUFFER_OPS_CS_THRESHOLD the copy is CP DMA, through the L2: nothing stale.
    assert_eq!(corrupt_seeds(&read_fill_copy(2048, A::NONE), &p), 0, "a CP DMA copy reads through the L2");
}

#[test]
fn turnip_blits_write_through_the_ccu_beside_the_uche() {
    let p = Profile::builtin("turnip-a6xx").unwrap();
    let correct = read_fill_copy(4096, A::TRANSFER_READ);
    for s in 0..4 {
        let r = run_workload(&correct, &p, s).unwrap();
        assert!(!r.corrupted(), "seed {s}");
        // The fills and the copy wrote through the CCU, which wrote back to memory.
        let rop_writebacks: u64 = r.caches.iter().filter(|(n, _)| n.starts_with("ROP$")).map(|(_, c)| c.writebacks).sum();
        assert!(rop_writebacks > 0, "seed {s}: {:?}", r.caches);
    }
    // Without the barrier's first scope the fill stays in the CCU and the copy reads memory
    // through the UCHE.
    let mut w = read_fill_copy(4096, A::TRANSFER_READ);
    let cmds = &mut w.command_buffers[0].commands;
    cmds[5] = Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::NONE, S::COPY, A::TRANSFER_READ));
    assert!(corrupt_seeds(&w, &p) > 0);
}

/// The host reads what a dispatch wrote, after a fence, with no HOST_READ barrier.
fn host_read_without_barrier() -> sim_core::trace::LoadedTrace {
    sim_core::trace::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/traces/host-read-barrier-missing.json")).unwrap()
}

#[test]
fn the_kernels_fence_writes_the_l2_back() {
    // Turnip's UCHE and ANV's L3 keep a shader's writes dirty through every row a fence's
    // availability operation fires; the kernel's end-of-submission flush writes them back.
    let t = host_read_without_barrier();
    for name in ["turnip-a6xx", "anv-gen12"] {
        let p = Profile::builtin(name).unwrap();
        assert!(!run_workload(&t.workload, &p, 0).unwrap().corrupted(), "{name}: the signal's own operations write the L2 back");
        let mut without = p.clone();
        without.barriers.signal.clear();
        assert!(run_workload(&t.workload, &without, 0).unwrap().corrupted(), "{name} without its signal operations");
    }
}

/// The operations the node labelled with `what` performed, as (cache, action).
fn ops_of(r: &RunResult, what: &str) -> Vec<(CacheTarget, sim_caches::Maintenance)> {
    r.syncs.iter().filter(|y| y.label.contains(what)).flat_map(|y| y.ops.iter().map(|o| (o.op.target, o.op.action))).collect()
}

#[test]
fn the_drivers_own_operations_run_at_each_submission_and_signal() {
    use sim_caches::Maintenance::*;
    let t = host_read_without_barrier();
    let p = Profile::builtin("radv-gfx10").unwrap();
    let r = run_workload(&t.workload, &p, 0).unwrap();
    // RADV's preamble: INV_VCACHE, INV_SCACHE, INV_L2 (a write-back and an invalidate).
    let submit = ops_of(&r, "vkQueueSubmit");
    for op in [(CacheTarget::L1, Invalidate), (CacheTarget::Uniform, Invalidate), (CacheTarget::L2, FlushInvalidate)] {
        assert!(submit.contains(&op), "{op:?} in {submit:?}");
    }
    // The amdgpu fence's GL2_WB, after the signal's own availability operation.
    assert_eq!(ops_of(&r, "fence").last(), Some(&(CacheTarget::L2, Flush)));
    let mut bare = p.clone();
    bare.barriers.submit.clear();
    bare.barriers.signal.clear();
    let r = run_workload(&t.workload, &bare, 0).unwrap();
    assert!(!ops_of(&r, "vkQueueSubmit").contains(&(CacheTarget::L2, FlushInvalidate)));
    assert_ne!(ops_of(&r, "fence").last(), Some(&(CacheTarget::L2, Flush)));
}

/// The drivers' layout-transition work is written as data for images (not yet exercised):
/// RADV decompresses DCC for GENERAL (and the GFX9 variant inherits it), Turnip cleans the CCU
/// after UNDEFINED, ANV resolves CCS for presentation; the seed profiles have none.
#[test]
fn layout_transitions_are_written_as_data() {
    use sim_core::profile::{Aspect, ImageLayout as L, ImageWork as W};
    let has = |name: &str, aspect: Aspect, from: L, to: L, work: Option<W>| {
        let p = Profile::builtin(name).unwrap();
        p.barriers.layout_transitions.iter().any(|t| t.aspect == aspect && t.from.contains(&from) && (t.to.contains(&to) || t.to.contains(&L::Any)) && work.is_none_or(|w| t.work.contains(&w)))
    };
    for radv in ["radv-gfx10", "radv-gfx9"] {
        assert!(has(radv, Aspect::Color, L::ColorAttachmentOptimal, L::General, Some(W::DccDecompress)), "{radv}");
        assert!(has(radv, Aspect::Depth, L::DepthStencilAttachmentOptimal, L::General, Some(W::HtileExpand)), "{radv}");
    }
    assert!(has("turnip-a6xx", Aspect::Color, L::Undefined, L::General, None));
    assert!(Profile::builtin("turnip-a6xx").unwrap().barriers.layout_transitions.iter().all(|t| !t.ops.is_empty()), "Turnip's are cache operations");
    assert!(has("anv-gen12", Aspect::Color, L::ColorAttachmentOptimal, L::PresentSrcKhr, Some(W::CcsResolve)));
    // The seed machines initialize metadata from UNDEFINED, the seed's cheap transition, and need
    // nothing else: every unit reads through metadata kept per page.
    for seed in ["seed-l2", "seed-vram"] {
        let p = Profile::builtin(seed).unwrap();
        assert!(has(seed, Aspect::Color, L::Undefined, L::ShaderReadOnlyOptimal, Some(W::MetadataInit)));
        assert_eq!(p.barriers.layout_transitions.len(), 1, "{seed}");
        assert_eq!(p.machine.rop.compression.metadata, sim_core::profile::MetadataPlacement::PerPage);
    }
    // Machines without compression: whatever rows they inherit do no metadata work.
    for none in ["ideal", "nvidia-like"] {
        assert!(!Profile::builtin(none).unwrap().machine.rop.compression.enabled(), "{none}");
    }
    for hidden in ["radv-gfx10", "radv-gfx9", "anv-gen12", "turnip-a6xx"] {
        assert_eq!(Profile::builtin(hidden).unwrap().machine.rop.compression.metadata, sim_core::profile::MetadataPlacement::PerImage, "{hidden}");
    }
}
