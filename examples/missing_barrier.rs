//! Build a workload with the Rust API, leave out one barrier, and print what went wrong.
//!
//! `cargo run --example missing_barrier`

use gpusim::sim::api::*;
use gpusim::sim::engine::*;
use gpusim::sim::profile::Profile;
use gpusim::sim::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

use gpusim::sim::generators::samples::ADD_ONE_WGSL as ADD_ONE;

fn workload(with_barrier: bool) -> Result<Workload, WorkloadError> {
    let mut w = Workload::new("fill-then-dispatch");
    let a = w.device_buffer("A", 4096);
    let b = w.device_buffer("B", 4096);
    let add_one = w.wgsl_pipeline("add_one", ADD_ONE, "main")?;
    let mut commands = vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 }];
    if with_barrier {
        // vkCmdPipelineBarrier2: CLEAR/TRANSFER_WRITE -> COMPUTE_SHADER/SHADER_STORAGE_READ
        commands.push(Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)));
    }
    commands.push(Command::Dispatch {
        pipeline: add_one,
        group_count: [16, 1, 1],
        base_group: [0; 3],
        bindings: vec![
            BufferBinding { set: 0, binding: 0, buffer: a, offset: 0, range: None },
            BufferBinding { set: 0, binding: 1, buffer: b, offset: 0, range: None },
        ],
        push_constants: vec![],
        images: Vec::new(),
    });
    let cb = w.command_buffer("cb0", commands);
    let fence = w.fence("f0");
    w.submit(0, vec![cb], Some(fence));
    w.host(HostOp::WaitForFences(vec![fence]));
    Ok(w)
}

/// What the example prints: both runs, with the first three findings of each. (A function of its
/// own so that `tests/doc_outputs.rs` can check the output README.md shows.)
pub fn report() -> Result<String, Box<dyn std::error::Error>> {
    use std::fmt::Write as _;
    let profile = Profile::builtin("seed-l2").ok_or("no built-in profile seed-l2")?;
    let mut out = String::new();
    for with_barrier in [false, true] {
        let result = run_workload(&workload(with_barrier)?, &profile, 0)?;
        writeln!(out, "barrier: {with_barrier}: {} stale reads, {} corrupted bytes, {} cycles", result.stale_reads, result.corrupted_bytes, result.cycles)?;
        for f in result.findings.iter().take(3) {
            writeln!(
                out,
                "  {} read bytes [{}, {}) of {} through {}: saw {}, expected {}",
                f.at, f.offset, f.offset + f.size, f.resource, f.via, f.seen_write, f.expected_write
            )?;
        }
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", report()?);
    Ok(())
}
