//! Every timing parameter of a profile does something: changing it changes the cycles of a
//! workload that exercises it (and nothing else about the run).

use sim_core::engine::*;
use sim_core::profile::Profile;
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

/// The texture cache's and the ROP tile caches' hit latencies are not profile fields until a
/// sampled read or a ROP exists to take them: a profile that sets one is told so.
#[test]
fn latencies_of_parts_not_simulated_are_refused() {
    for field in ["texture_hit_cycles", "rop_hit_cycles"] {
        let text = format!("name = \"t\"\ndescription = \"t\"\n[timing]\n{field} = 60\n");
        let e = Profile::from_toml_str(&text, "test.toml").map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}
