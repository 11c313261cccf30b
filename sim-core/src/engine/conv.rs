//! The profile as the engine takes it: planned cache operations as engine operations, the
//! barrier table as the command processors' [`BarrierPlanner`], and the machine's
//! [`MachineConfig`].

use sim_caches::Maintenance;

use crate::engine::machine::{self, CacheOp, CacheTarget, MachineConfig, TransferPath};
use crate::engine::units::cp::BarrierPlanner;
use crate::profile::Profile;
use crate::profile::plan::{OpRange, plan_scope};
use crate::profile::table::{CacheAction, CacheName};
use crate::sync::{MemoryBarrier2, Scope};

/// A planned operation as the engine performs it (host caches, which no table row names, have
/// no engine operation).
pub(crate) fn engine_ops(ops: Vec<crate::profile::plan::CacheOp>) -> Vec<CacheOp> {
    ops.into_iter()
        .filter_map(|op| {
            let target = match op.cache {
                CacheName::L1 => CacheTarget::L1,
                CacheName::Texture => CacheTarget::Texture,
                CacheName::Uniform => CacheTarget::Uniform,
                CacheName::L2 => CacheTarget::L2,
                CacheName::Rop => CacheTarget::Rop,
                // Host caches are maintained by vkFlush/InvalidateMappedMemoryRanges;
                // `OpSpec::parse` rejects a table row that names one.
                CacheName::Host => return None,
            };
            let action = match op.action {
                CacheAction::Flush => Maintenance::Flush,
                CacheAction::Invalidate => Maintenance::Invalidate,
                CacheAction::FlushInvalidate => Maintenance::FlushInvalidate,
            };
            let range = match op.range {
                OpRange::WholeCache => None,
                OpRange::Lines { addr, size } => Some((addr, size)),
            };
            Some(CacheOp { target, action, range })
        })
        .collect()
}

impl BarrierPlanner for Profile {
    fn plan(&self, barrier: &MemoryBarrier2, range: Option<(u64, u64)>) -> (Vec<CacheOp>, Vec<CacheOp>) {
        (
            engine_ops(plan_scope(self, Scope::First, barrier.first_usages(), range)),
            engine_ops(plan_scope(self, Scope::Second, barrier.second_usages(), range)),
        )
    }

    fn driver_ops(&self, point: crate::profile::DriverPoint) -> Vec<CacheOp> {
        engine_ops(crate::profile::plan_driver_point(self, point))
    }
}

/// The engine's view of a profile's machine and timing.
pub fn machine_config(p: &Profile) -> MachineConfig {
    let m = &p.machine;
    let t = &p.timing;
    MachineConfig {
        compute_units: m.compute_units,
        workgroup_slots_per_cu: m.cu.workgroup_slots,
        subgroup_size: m.cu.subgroup_size,
        l1: m.cu.l1.clone(),
        texture: m.cu.texture_cache.clone(),
        uniform: m.cu.uniform_cache.clone(),
        l2: m.l2.cache.clone(),
        rop_tile_cache: m.rop.tile_cache.clone(),
        rop_units: m.rop.units,
        l2_banks: m.l2.banks,
        l2_bank_interleave_bytes: m.l2.bank_interleave_bytes,
        vram_channels: m.vram.channels,
        vram_interleave_bytes: m.vram.channel_interleave_bytes,
        transfer_path: match m.transfer.path {
            crate::profile::machine::TransferPath::ThroughL2 => TransferPath::ThroughL2,
            crate::profile::machine::TransferPath::DirectToVram => TransferPath::DirectToVram,
        },
        shader_transfers: m.transfer.shader_min_bytes.map(|min_bytes| machine::ShaderTransfers { min_bytes, reads: m.transfer.shader_reads, writes: m.transfer.shader_writes }),
        rop_l2_client: m.rop.l2_client,
        l1_hit_cycles: t.l1_hit_cycles as u64,
        uniform_hit_cycles: t.uniform_hit_cycles as u64,
        shared_memory_cycles: t.shared_memory_cycles as u64,
        l2_hit_cycles: t.l2_hit_cycles as u64,
        vram_cycles: t.vram_latency_cycles as u64,
        cycles_per_instruction: 1,
        l2_bank_bytes_per_cycle: t.l2_bank_bytes_per_cycle as u64,
        vram_channel_bytes_per_cycle: t.vram_channel_bytes_per_cycle as u64,
        transfer_bytes_per_cycle: t.transfer_bytes_per_cycle as u64,
        transfer_launch_cycles: t.transfer_launch_cycles as u64,
        transfer_chunks_in_flight: t.transfer_chunks_in_flight as u64,
        maintenance_cycles_per_line: t.maintenance_cycles_per_line as u64,
        barrier_cycles: t.barrier_cycles as u64,
        workgroup_launch_cycles: t.dispatch_launch_cycles as u64,
        latency_jitter_cycles: t.latency_jitter_cycles as u64,
        host_access_cycles: t.host_bus_latency_cycles as u64,
        host: sim_host::HostSpec {
            write_combining_buffers: m.host.write_combining_buffers,
            write_combining_buffer_bytes: m.host.write_combining_buffer_bytes,
            cache: m.host.cache.clone(),
            non_coherent_atom_size: p.limits.non_coherent_atom_size,
        },
        host_timing: sim_host::HostTiming { bus_latency_cycles: t.host_bus_latency_cycles, bus_bytes_per_cycle: t.host_bus_bytes_per_cycle },
        policies: p.policies,
    }
}
