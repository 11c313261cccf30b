//! `gpusim demo`: the whole idea in one screen. A compute program forgets one barrier; on the
//! seed profiles the simulated GPU reads stale bytes, and the report says which command read
//! which bytes through which cache, and what it should have seen. Then the fixed program runs
//! clean.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Args;
use sim_core::engine::{RunResult, run_workload};
use sim_core::api::{BufferBinding, Command, DependencyInfo, HostOp, Workload};
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

use super::CliError;
use super::report::{corrupted, found_something, mistake_text};

/// Arguments of `gpusim demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Seeds tried per profile until one shows the corruption.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
}

const ADD_ONE: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { dst[id.x] = src[id.x] + 1u; }
"#;

/// The story's program: fill A with 7, (barrier), dispatch B[i] = A[i] + 1, read B back.
pub fn story(with_barrier: bool) -> Result<Workload, CliError> {
    let mut w = Workload::new(if with_barrier { "fill-then-dispatch (fixed)" } else { "fill-then-dispatch (missing barrier)" });
    let a = w.device_buffer("A", 4096);
    let (out_mem, b) = w.host_buffer("B", 4096);
    let p = w.wgsl_pipeline("add_one", ADD_ONE, "main")?;
    let mut cmds = vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 }];
    if with_barrier {
        cmds.push(Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)));
    }
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    cmds.push(Command::Dispatch { pipeline: p, group_count: [16, 1, 1], base_group: [0; 3], bindings: vec![bind(0, a), bind(1, b)], push_constants: vec![], images: Vec::new() });
    cmds.push(Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::HOST, A::HOST_READ)));
    let cb = w.command_buffer("cb0", cmds);
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    let expect: Vec<u8> = std::iter::repeat_n(8u32.to_le_bytes(), 1024).flatten().collect();
    w.host(HostOp::HostRead { memory: out_mem, offset: 0, size: 4096, label: "B".into(), expect: Some(expect) });
    Ok(w)
}

fn first_corrupt(w: &Workload, p: &Profile, seeds: u64) -> Result<(RunResult, u64), CliError> {
    let mut last = None;
    for seed in 0..seeds {
        let r = run_workload(w, p, seed)?;
        if corrupted(&r) {
            return Ok((r, seed));
        }
        last = Some((r, seed));
    }
    last.ok_or_else(|| "no seed ran".into())
}

/// Runs `gpusim demo`.
pub fn run(args: DemoArgs) -> Result<ExitCode, CliError> {
    let mut o = String::new();
    let _ = writeln!(o, "gpusim simulates a GPU whose caches hold real bytes: a missing barrier makes it read stale data.\n");
    let _ = writeln!(o, "The program (one command buffer, one vkQueueSubmit, then vkWaitForFences and a host read):");
    let _ = writeln!(o, "  [0] vkCmdFillBuffer(A, 0, VK_WHOLE_SIZE, 7)          A[i] = 7");
    let _ = writeln!(o, "  [1] vkCmdDispatch(add_one, 16 workgroups)            B[i] = A[i] + 1   (expect 8)");
    let _ = writeln!(o, "  [2] vkCmdPipelineBarrier2(COMPUTE_SHADER/SHADER_STORAGE_WRITE -> HOST/HOST_READ)");
    let _ = writeln!(o, "Nothing orders the dispatch after the fill: the barrier between them is missing.\n");
    let broken = story(false)?;
    let fixed = story(true)?;
    let mut ok = true;
    for name in ["seed-l2", "seed-vram"] {
        let p = Profile::builtin(name).ok_or_else(|| format!("built-in profile `{name}` is missing"))?;
        let (r, seed) = first_corrupt(&broken, &p, args.seeds)?;
        let _ = writeln!(o, "== {name}, seed {seed}: {}", p.description.lines().next().unwrap_or(""));
        if corrupted(&r) {
            let _ = writeln!(o, "STALE DATA: {} read(s) differ from the reference run, as {} mistake(s). The first:", r.stale_reads, r.mistakes.len());
            if let Some(m) = r.mistakes.first() {
                for line in mistake_text(&broken, m, &mut Vec::new(), 1).lines() {
                    let _ = writeln!(o, "  {line}");
                }
            }
            if let Some(h) = r.host_reads.first() {
                let _ = writeln!(o, "  The host then read B: {} of 4096 bytes wrong.", h.differing_bytes);
            }
        } else {
            let _ = writeln!(o, "no corruption in {} seed(s) this time", args.seeds);
        }
        let rf = run_workload(&fixed, &p, seed)?;
        let clean = !found_something(&rf);
        ok &= clean;
        let _ = writeln!(o, "Fixed: + vkCmdPipelineBarrier2(srcStageMask=CLEAR, srcAccessMask=TRANSFER_WRITE,");
        let _ = writeln!(o, "                               dstStageMask=COMPUTE_SHADER, dstAccessMask=SHADER_STORAGE_READ)");
        let _ = writeln!(o, "  -> {} ({} cycles)\n", if clean { "clean: every read matches the reference run, B[i] = 8" } else { "STILL CORRUPTED (a simulator bug)" }, rf.cycles);
    }
    let _ = writeln!(o, "Next: gpusim run examples/traces/fill-then-dispatch-missing.json --profile seed-l2");
    super::print_out(&o)?;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
