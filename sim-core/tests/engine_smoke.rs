use sim_core::engine::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

const COPY_SHADER: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] + 1u;
}
"#;

fn fill_then_dispatch(barrier: bool) -> Workload {
    let mut w = Workload::new("fill-then-dispatch");
    let a = w.device_buffer("A", 16384);
    let b = w.device_buffer("B", 16384);
    let p = w.wgsl_pipeline("copy", COPY_SHADER, "main").unwrap();
    let mut cmds = vec![Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 }];
    if barrier {
        cmds.push(Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)));
    }
    cmds.push(Command::Dispatch {
        pipeline: p,
        group_count: [64, 1, 1],
        base_group: [0; 3],
        bindings: vec![
            BufferBinding { set: 0, binding: 0, buffer: a, offset: 0, range: None },
            BufferBinding { set: 0, binding: 1, buffer: b, offset: 0, range: None },
        ],
        push_constants: vec![],
    });
    let cb = w.command_buffer("cb0", cmds);
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

#[test]
fn smoke() {
    for name in ["seed-l2", "seed-vram", "ideal"] {
        let p = Profile::builtin(name).unwrap();
        for barrier in [false, true] {
            let mut corrupt = 0;
            for seed in 0..8 {
                let r = run_workload(&fill_then_dispatch(barrier), &p, seed).unwrap();
                if r.corrupted() {
                    corrupt += 1;
                }
                if seed == 0 {
                    eprintln!("{name} barrier={barrier}: cycles={} stale={} corrupted_bytes={} findings={}", r.cycles, r.stale_reads, r.corrupted_bytes, r.findings.len());
                    for f in r.findings.iter().take(2) {
                        eprintln!("   {f:?}");
                    }
                }
            }
            eprintln!("{name} barrier={barrier}: {corrupt}/8 corrupted");
        }
    }
}
