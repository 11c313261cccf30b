//! Peak resident memory of a whole run (reference run, simulated run, comparison) of a
//! streaming workload touching about N MiB (default 256): `C[i] = A[i] * 3 + B[i]`, each of the
//! three buffers N/3 MiB.
//!
//! `cargo run --release --example peak_rss -- 256` (add `--steps` for resident memory after each
//! step of a run instead, in a process of its own: freed memory stays resident afterwards).

use std::collections::HashSet;

use gpusim::sim::engine::stream::Stream;
use gpusim::sim::api::Program;
use gpusim::sim::engine::{reference, run, run_workload};
use gpusim::sim::generators::samples;
use gpusim::sim::profile::Profile;

/// A `/proc/self/status` figure in KiB: `VmHWM` (peak resident) or `VmRSS` (resident now).
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn vm_hwm_kib() -> Option<u64> {
    status_kib("VmHWM:")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mib: u64 = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(256);
    let steps = std::env::args().any(|a| a == "--steps");
    let per_buffer = (mib << 20) / 3 / 256 * 256;
    let w = samples::stream(per_buffer)?;
    let profile = Profile::builtin("seed-l2").ok_or("no built-in profile seed-l2")?;
    if steps {
        return show_steps(&w, &profile);
    }
    let before = vm_hwm_kib().unwrap_or(0);
    let t = std::time::Instant::now();
    let r = run_workload(&w, &profile, 0)?;
    let touched = 3 * per_buffer;
    let caches: u64 = profile.machine.cu.l1.iter().chain(&profile.machine.cu.texture_cache).chain(&profile.machine.cu.uniform_cache).map(|s| s.size_bytes).sum::<u64>()
        * profile.machine.compute_units as u64
        + profile.machine.l2.cache.as_ref().map_or(0, |s| s.size_bytes);
    let peak = vm_hwm_kib().ok_or("no /proc/self/status")? << 10;
    println!("workload: {} ({} MiB touched), corrupted: {}", w.name, touched >> 20, r.corrupted());
    println!("run time: {:.1} s, {} simulated cycles, {} lane-ops", t.elapsed().as_secs_f64(), r.cycles, r.lane_ops);
    println!("peak RSS of run_workload: {} MiB (before it: {} MiB, the workload's own host-write payloads)", peak >> 20, before >> 10);
    println!("bound 3 x touched + caches ({} KiB): {} MiB -> {}", caches >> 10, (3 * touched + caches) >> 20, if peak <= 3 * touched + caches { "within" } else { "over" });
    Ok(())
}

/// Resident memory after each step of a run: the workload, the reference run, the simulated run.
fn show_steps(w: &gpusim::sim::api::Workload, profile: &Profile) -> Result<(), Box<dyn std::error::Error>> {
    {
        let prog = Program::new(w)?;
        let stream = Stream::lower(&prog)?;
        let rss = || status_kib("VmRSS:").unwrap_or(0) >> 10;
        println!("resident with the workload built: {} MiB", rss());
        let r = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &HashSet::new())?;
        println!("after the reference run: {} MiB (its memory: {} MiB resident, {} reads fingerprinted)", rss(), r.memory.resident_bytes() >> 20, r.truth.fingerprints.len());
        let sim = run::Sim::new(&prog, &stream, profile, Some(&r.truth), 0)?.run()?;
        println!("after the simulated run: {} MiB (its VRAM: {} MiB resident)", rss(), sim.machine.vram.resident_bytes() >> 20);
    }
    Ok(())
}
