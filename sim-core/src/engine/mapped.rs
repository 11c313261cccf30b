//! Mapped memory as `sim-host` takes it: the host's side built from a profile (write-combining
//! buffers, cache, bus timing, nonCoherentAtomSize) with every HOST_VISIBLE memory object
//! mapped, and a trace's VkMappedMemoryRanges converted. The host unit runs on it; the checks
//! before a run ask it whether the program's ranges are legal.

use crate::api::error::WorkloadError;
use crate::api::program::Program;
use crate::api::workload::MappedRange;
use crate::profile::{Profile, Timing};

/// The host CPU's side of mapped memory as `profile` describes it: its write-combining buffers
/// and cache (`[machine.host]`), and the flush/invalidate granularity (`nonCoherentAtomSize`).
pub fn host_spec(profile: &Profile) -> sim_host::HostSpec {
    let h = &profile.machine.host;
    sim_host::HostSpec {
        write_combining_buffers: h.write_combining_buffers,
        write_combining_buffer_bytes: h.write_combining_buffer_bytes,
        cache: h.cache.clone(),
        non_coherent_atom_size: profile.limits.non_coherent_atom_size,
    }
}

/// The host–device bus of `timing`: its latency and bandwidth.
pub fn bus(timing: &Timing) -> sim_host::HostTiming {
    sim_host::HostTiming { bus_latency_cycles: timing.host_bus_latency_cycles, bus_bytes_per_cycle: timing.host_bus_bytes_per_cycle }
}

/// The host side of a run: every HOST_VISIBLE memory object mapped whole, with the memory
/// type its property flags select (write-combined, cached, or cached and snooped).
pub fn host_side(prog: &Program<'_>, profile: &Profile, seed: u64) -> Result<sim_host::HostSide, WorkloadError> {
    let bad = |e: sim_host::HostError| WorkloadError::Invalid { at: "profile.machine.host".into(), message: e.to_string() };
    let mut host = sim_host::HostSide::new(&host_spec(profile), bus(&profile.timing), seed).map_err(bad)?;
    for (m, desc) in prog.workload.memories.iter().enumerate() {
        let p = desc.properties;
        if p.host_visible {
            let kind = sim_host::HostMemoryKind::from_properties(true, p.host_coherent, p.host_cached)
                .map_err(|e| WorkloadError::Invalid { at: format!("memory[{}]", desc.name), message: e.to_string() })?;
            host.map(m, prog.memory_base[m], desc.size, kind)
                .map_err(|e| WorkloadError::Invalid { at: format!("memory[{}]", desc.name), message: e.to_string() })?;
        }
    }
    Ok(host)
}

/// A trace's VkMappedMemoryRanges as the host side takes them.
pub fn host_ranges(ranges: &[MappedRange]) -> Vec<sim_host::MappedRange> {
    ranges.iter().map(|r| sim_host::MappedRange::new(r.memory, r.offset, r.size.unwrap_or(sim_host::WHOLE_SIZE))).collect()
}
