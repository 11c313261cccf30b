//! Every timing parameter and driver policy of a profile does something: changing it changes
//! the cycles, or the cache operations, of a workload that exercises it, and correct programs
//! stay correct.

use sim_core::api::*;
use sim_core::engine::*;
use sim_core::generators::*;
use sim_core::profile::{AtomicsAt, CuCacheWalks, EventFirstScope, Profile, SignalAvailability};
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

/// The cycles of `w` on seed-l2 changed by `edit`, with the run's result otherwise clean.
fn cycles(w: &Workload, edit: impl Fn(&mut Profile)) -> u64 {
    let mut p = Profile::builtin("seed-l2").unwrap();
    edit(&mut p);
    let r = run_workload(w, &p, 0).unwrap();
    assert!(!r.corrupted(), "{}: {r:?}", w.name);
    r.cycles
}

fn uniform_reads() -> Workload {
    let mut w = Workload::new("uniform-reads");
    let u = w.device_buffer("U", 256);
    let out = w.device_buffer("OUT", 1 << 16);
    let p = w.wgsl_pipeline("read_uniform", include_str!("../../examples/traces/shaders/read_uniform.wgsl"), "main").unwrap();
    let f = w.fence("f");
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: u, offset: 0, size: None, data: 3 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::UNIFORM_READ)),
            Command::Dispatch {
                pipeline: p,
                group_count: [64, 1, 1],
                base_group: [0; 3],
                bindings: vec![
                    BufferBinding { set: 0, binding: 0, buffer: u, offset: 0, range: None },
                    BufferBinding { set: 0, binding: 1, buffer: out, offset: 0, range: None },
                ],
                push_constants: vec![],
                images: Vec::new(),
            },
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

#[test]
fn uniform_hit_cycles_time_uniform_loads() {
    let w = uniform_reads();
    let (fast, slow) = (cycles(&w, |p| p.timing.uniform_hit_cycles = 20), cycles(&w, |p| p.timing.uniform_hit_cycles = 5000));
    assert!(slow > fast + 5000, "a 5000-cycle U$ hit: {fast} -> {slow}");
}

/// A 64 KiB copy of X into Y, unrelated to anything after it, then `uniform_reads`' commands.
fn copy_then_uniform_reads() -> Workload {
    let mut w = uniform_reads();
    let (x, y) = (w.device_buffer("X", 1 << 16), w.device_buffer("Y", 1 << 16));
    let copy = Command::CopyBuffer { src: x, dst: y, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: 1 << 16 }] };
    w.command_buffers[0].commands.insert(0, copy);
    w
}

#[test]
fn transfer_launch_cycles_delay_a_transfer_and_the_command_after_it() {
    let w = uniform_reads();
    let (now, later) = (cycles(&w, |p| p.timing.transfer_launch_cycles = 0), cycles(&w, |p| p.timing.transfer_launch_cycles = 5000));
    assert!(later >= now + 5000, "a copy engine that starts 5000 cycles late: {now} -> {later}");
}

#[test]
fn transfer_chunks_in_flight_hide_a_transfers_latency() {
    let w = copy_then_uniform_reads();
    let (one, many) = (cycles(&w, |p| p.timing.transfer_chunks_in_flight = 1), cycles(&w, |p| p.timing.transfer_chunks_in_flight = 32));
    assert!(one > many, "one chunk in flight against 32: {one} vs {many}");
}

#[test]
fn wait_after_copy_holds_the_next_command_until_the_copy_is_done() {
    // Nothing orders the dispatch after the copy; a driver that waits after copies serializes them.
    let w = copy_then_uniform_reads();
    let run = |wait: bool| {
        let mut p = Profile::builtin("seed-l2").unwrap();
        p.policies.wait_after_copy = wait;
        run_workload(&w, &p, 0).unwrap()
    };
    let (overlapped, waited) = (run(false), run(true));
    assert!(!overlapped.corrupted() && !waited.corrupted());
    assert!(waited.cycles > overlapped.cycles, "{} vs {}", overlapped.cycles, waited.cycles);
    assert!(waited.syncs.iter().any(|e| e.label.contains("the driver waits for the copy")), "the wait is in the sync log");
}

#[test]
fn shared_memory_cycles_time_workgroup_memory() {
    // The tiled matmul stages its tiles through workgroup memory.
    let w = samples::matmul(32).unwrap();
    let (fast, slow) = (cycles(&w, |p| p.timing.shared_memory_cycles = 0), cycles(&w, |p| p.timing.shared_memory_cycles = 400));
    assert!(slow > fast, "shared memory at 400 cycles: {fast} -> {slow}");
}

#[test]
fn bank_interleave_bytes_spreads_l2_traffic() {
    // A stream through the L2: with one bank's worth of interleave spanning the whole buffer,
    // every access queues at one bank.
    let w = samples::stream(1 << 18).unwrap();
    let spread = cycles(&w, |p| p.machine.l2.bank_interleave_bytes = 256);
    let one_bank = cycles(&w, |p| p.machine.l2.bank_interleave_bytes = 1 << 20);
    assert!(one_bank > spread, "all traffic in one bank: {spread} -> {one_bank}");
}

/// `rop_hit_cycles` starts the latency of a write through a ROP's tile cache: ANV's fills are
/// BLORP operations that write through the render target cache.
#[test]
fn rop_hit_cycles_time_writes_through_the_tile_caches() {
    let mut w = Workload::new("fill");
    let a = w.device_buffer("A", 4096);
    let f = w.fence("f");
    let cb = w.command_buffer("cb", vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 }]);
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    let cycles = |rop_hit_cycles| {
        let mut p = Profile::builtin("anv-gen12").unwrap();
        p.timing.rop_hit_cycles = rop_hit_cycles;
        let r = run_workload(&w, &p, 0).unwrap();
        assert!(!r.corrupted());
        r.cycles
    };
    let (fast, slow) = (cycles(40), cycles(2000));
    assert!(slow > fast, "a tile cache hit of 2000 cycles: {fast} -> {slow}");
}

/// A fill, a set of event `e` naming TRANSFER_WRITE, its wait, and a dispatch reading the fill.
fn split_barrier() -> Workload {
    let mut w = Workload::new("split-barrier");
    let a = w.device_buffer("A", 4096);
    let b = w.device_buffer("B", 4096);
    let p = w.wgsl_pipeline("add_one", samples::ADD_ONE_WGSL, "main").unwrap();
    let e = w.event("e");
    let f = w.fence("f");
    let dep = DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ);
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 },
            Command::SetEvent { event: e, dependency: dep.clone() },
            Command::WaitEvents { events: vec![e], dependency: dep },
            Command::Dispatch { pipeline: p, group_count: [16, 1, 1], base_group: [0; 3], bindings: vec![bind(0, a), bind(1, b)], push_constants: vec![], images: Vec::new() },
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

/// The cache operations of the sync nodes whose label starts with `what`.
fn ops_of(r: &RunResult, what: &str) -> usize {
    r.syncs.iter().filter(|s| s.label.starts_with(what)).map(|s| s.ops.len()).sum()
}

#[test]
fn event_first_scope_moves_the_flush_side_to_the_wait() {
    let w = split_barrier();
    let run = |policy| {
        let mut p = Profile::builtin("seed-l2").unwrap();
        p.policies.event_first_scope = policy;
        let r = run_workload(&w, &p, 0).unwrap();
        assert!(!r.corrupted(), "{policy:?}: {r:?}");
        r
    };
    let (at_set, at_wait) = (run(EventFirstScope::Set), run(EventFirstScope::Wait));
    // seed-l2's TRANSFER_WRITE row: "invalidate L2" on the flush side.
    assert!(ops_of(&at_set, "vkCmdSetEvent2") > 0 && ops_of(&at_wait, "vkCmdSetEvent2") == 0);
    assert!(ops_of(&at_wait, "vkCmdWaitEvents2") > ops_of(&at_set, "vkCmdWaitEvents2"));
}

#[test]
fn signal_availability_plans_the_stages_that_ran_or_all() {
    // Only a dispatch runs: its SHADER_WRITE row has no flush side on seed-l2, while
    // MEMORY_WRITE at ALL_COMMANDS fires the TRANSFER_WRITE and HOST_WRITE rows too.
    let w = samples::stream(1 << 16).unwrap();
    let run = |policy| {
        let mut p = Profile::builtin("seed-l2").unwrap();
        p.policies.signal_availability = policy;
        let r = run_workload(&w, &p, 0).unwrap();
        assert!(!r.corrupted(), "{policy:?}: {r:?}");
        ops_of(&r, "fence")
    };
    assert!(run(SignalAvailability::AllStages) > run(SignalAvailability::StagesThatRan));
}

#[test]
fn cu_cache_walks_serial_charges_every_cu() {
    let w = split_barrier();
    let walk = |policy| {
        let mut p = Profile::builtin("seed-l2").unwrap();
        p.policies.cu_cache_walks = policy;
        let r = run_workload(&w, &p, 0).unwrap();
        r.syncs.iter().flat_map(|s| &s.ops).filter(|o| o.op.target == CacheTarget::L1).map(|o| o.cycles).sum::<u64>()
    };
    let (parallel, serial) = (walk(CuCacheWalks::Parallel), walk(CuCacheWalks::Serial));
    assert!(serial > parallel, "{parallel} vs {serial}");
}

/// Each unit of the machine draws from its own random stream of the seed: a profile without a
/// texture cache (which compute work never reads) makes the same choices, seed for seed, as one
/// with it; the only difference is the cost of the barriers' T$ walks, which shifts the whole
/// run. Once, removing it shifted every later draw (every cache's, placement's, jitter's).
#[test]
fn removing_an_unused_cache_reshuffles_nothing() {
    let w = split_barrier();
    let mut missing = w.clone();
    // The racing variant: timing decides what it reads.
    missing.command_buffers[0].commands.remove(2);
    missing.command_buffers[0].commands.remove(1);
    // What a run chose: what it read, and how long each command took.
    let choices = |r: &RunResult| {
        let findings: Vec<_> = r.findings.iter().map(|f| (f.offset, f.size, f.key, f.seen.clone(), f.via.clone())).collect();
        let spans: Vec<_> = r.spans.iter().map(|(c, s, e)| (c.clone(), e - s)).collect();
        (r.stale_reads, findings, spans)
    };
    for seed in 0..8 {
        let with = Profile::builtin("seed-l2").unwrap();
        let mut without = with.clone();
        without.machine.cu.texture_cache = None;
        let (a, b) = (run_workload(&missing, &with, seed).unwrap(), run_workload(&missing, &without, seed).unwrap());
        assert_eq!(choices(&a), choices(&b), "seed {seed}");
    }
}

/// The machine's named paths follow the profile: a CU without a U$ sends uniform loads down
/// the storage path, a transfer engine that writes VRAM has no L2 on its path, sampled reads
/// start at the T$.
#[test]
fn paths_are_built_from_the_profile() {
    use sim_core::engine::machine::{LevelId::*, Machine, Path, PathName};
    let machine = |p: &Profile| Machine::new(p, 1 << 20, 0).unwrap();
    let l2 = Profile::builtin("seed-l2").unwrap();
    let m = machine(&l2);
    assert_eq!(m.path(PathName::Storage), Path::new(&[L1, L2, Vram]));
    assert_eq!(m.path(PathName::Uniform), Path::new(&[Uniform, L2, Vram]));
    assert_eq!(m.path(PathName::Sampled), Path::new(&[Texture, L2, Vram]));
    assert_eq!(m.path(PathName::Coherent), Path::new(&[L2, Vram]));
    assert_eq!(m.path(PathName::Transfer), Path::new(&[Vram]));
    let through = machine(&Profile::builtin("nvidia-like").unwrap());
    assert_eq!(through.path(PathName::Transfer), Path::new(&[L2, Vram]));
    // RADV's meta shaders read through the vector L0 (and write on the storage path), Turnip's
    // blits read through the UCHE alone.
    let radv = machine(&Profile::builtin("radv-gfx10").unwrap());
    assert_eq!(radv.path(PathName::ShaderTransferRead), Path::new(&[L1, L2, Vram]));
    assert_eq!(radv.path(PathName::Storage), Path::new(&[L1, L2, Vram]));
    let turnip = machine(&Profile::builtin("turnip-a6xx").unwrap());
    assert_eq!(turnip.path(PathName::ShaderTransferRead), Path::new(&[L2, Vram]));
    let anv = machine(&Profile::builtin("anv-gen12").unwrap());
    assert_eq!(anv.path(PathName::ShaderTransferRead), Path::new(&[Texture, L2, Vram]));
    // ANV's render target cache writes back into the L3; Turnip's CCU beside the UCHE.
    assert_eq!(anv.path(PathName::Rop), Path::new(&[Rop, L2, Vram]));
    assert_eq!(turnip.path(PathName::Rop), Path::new(&[Rop, Vram]));
    let mut no_uniform = l2.clone();
    no_uniform.machine.cu.uniform_cache = None;
    assert_eq!(machine(&no_uniform).path(PathName::Uniform), machine(&no_uniform).path(PathName::Storage));
    let vram = machine(&Profile::builtin("seed-vram").unwrap());
    assert_eq!(vram.path(PathName::Transfer), Path::new(&[Vram]));
    let ideal = machine(&Profile::builtin("ideal").unwrap());
    assert_eq!(ideal.path(PathName::Storage), Path::new(&[Vram]));
    assert_eq!(ideal.path(PathName::Rop), Path::new(&[Vram]));
}

/// A table row naming the ROPs' tile caches maintains every ROP's tile cache, and costs the
/// walk of its lines; a machine without tile caches has nothing there to walk.
#[test]
fn rop_rows_maintain_the_tile_caches() {
    let w = split_barrier();
    let rop_cycles = |p: &Profile| {
        let r = run_workload(&w, p, 0).unwrap();
        let ops: Vec<_> = r.syncs.iter().flat_map(|s| &s.ops).filter(|o| o.op.target == CacheTarget::Rop).collect();
        assert!(!ops.is_empty(), "seed-l2's submission invalidates the ROPs (COLOR_ATTACHMENT rows)");
        (ops.iter().map(|o| o.cycles).sum::<u64>(), r.caches.iter().filter(|(n, _)| n.starts_with("ROP$")).map(|(_, s)| s.invalidations).sum::<u64>())
    };
    let with = Profile::builtin("seed-l2").unwrap();
    let mut without = with.clone();
    without.machine.rop.tile_cache = None;
    let (cycles, invalidations) = rop_cycles(&with);
    assert!(cycles > 0 && invalidations >= u64::from(with.machine.rop.units), "{cycles} cycles, {invalidations} invalidations");
    assert_eq!(rop_cycles(&without), (0, 0));
}

/// Atomics performed at memory instead of the L2: the L2 performs none, and programs whose
/// workgroups race for an atomic counter stay correct.
#[test]
fn atomics_at_memory_bypass_the_l2() {
    const COUNT: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@compute @workgroup_size(64)
fn main() {
    atomicAdd(&counter, 1u);
}
"#;
    let mut w = Workload::new("count");
    let (m, c) = w.host_buffer("C", 256);
    let p = w.wgsl_pipeline("count", COUNT, "main").unwrap();
    let f = w.fence("f");
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::Dispatch { pipeline: p, group_count: [16, 1, 1], base_group: [0; 3], bindings: vec![BufferBinding { set: 0, binding: 0, buffer: c, offset: 0, range: None }], push_constants: vec![], images: Vec::new() },
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)),
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::HostRead { memory: m, offset: 0, size: 4, label: "count".into(), expect: Some(1024u32.to_le_bytes().to_vec()) });
    for (policy, l2_atomics) in [(AtomicsAt::L2, true), (AtomicsAt::Memory, false)] {
        let mut profile = Profile::builtin("seed-l2").unwrap();
        profile.policies.atomics_at = policy;
        for seed in 0..4 {
            let r = run_workload(&w, &profile, seed).unwrap();
            assert!(!r.corrupted(), "{policy:?} seed {seed}: {r:?}");
            assert_eq!(r.host_reads[0].data, 1024u32.to_le_bytes());
            let at_l2 = r.caches.iter().find(|(n, _)| n == "L2").unwrap().1.atomics;
            assert_eq!(at_l2 > 0, l2_atomics, "{policy:?}: {at_l2} atomics at the L2");
        }
    }
}
