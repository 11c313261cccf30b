//! The profile as the engine takes it: planned cache operations as engine operations, and the
//! barrier table as the command processors' [`BarrierPlanner`]. (The machine and its units are
//! built from the profile's own sections.)

use sim_caches::Maintenance;

use crate::engine::machine::{CacheOp, CacheTarget};
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

    fn transition_ops(&self, rows: &[&crate::profile::LayoutTransition], range: (u64, u64)) -> Vec<CacheOp> {
        engine_ops(crate::profile::plan::plan_transition_ops(self, rows, range))
    }
}
