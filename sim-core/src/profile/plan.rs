//! The barrier planner: a pure function from (barrier, profile) to the ordered cache operations
//! the barrier performs.
//!
//! For each scope the planner takes the barrier's access scope as usages
//! ([`MemoryBarrier2::first_usages`]: writes only; [`MemoryBarrier2::second_usages`]: reads and
//! writes), fires every table row one of those usages matches (see [`super::table`]), and
//! collects the row's operations for that side. It then normalizes them:
//! - a flush of a read-only cache (T$, U$, or any cache whose spec is `read-only`) is dropped:
//!   it has nothing to write back, so it is free; a flush-invalidate of one becomes an invalidate;
//! - operations on one cache within one scope merge: flush and invalidate (or anything with
//!   flush-invalidate) become one flush-invalidate, so a flush of X always precedes the
//!   invalidate of X and no cache is walked twice;
//! - operations are ordered by cache, closest to the requesters first: ROP, L1, T$, U$, HOST,
//!   then L2. Upper caches write back into L2 (or memory) before L2 is written back or dropped,
//!   which is what chained caches need.
//!
//! All first-scope operations come before all second-scope ones. Planning cannot fail: a profile
//! that names a cache its machine lacks is rejected when it is loaded.

use serde::Serialize;

use super::Profile;
use super::table::{CacheAction, CacheName, DriverPoint, RangeMode};
use crate::sync::{MemoryBarrier2, PipelineStageFlags2, Scope, UsageSet};

/// The part of a cache an operation walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum OpRange {
    /// Every line of the cache.
    WholeCache,
    /// Only lines overlapping `[addr, addr + size)` (device addresses, bytes).
    Lines {
        /// First byte.
        addr: u64,
        /// Length in bytes.
        size: u64,
    },
}

impl OpRange {
    /// As `sim_caches::Cache::maintain` takes it: `None` for the whole cache.
    pub fn as_maintain_range(self) -> Option<(u64, u64)> {
        match self {
            OpRange::WholeCache => None,
            OpRange::Lines { addr, size } => Some((addr, size)),
        }
    }
}

/// One cache operation of a barrier. "L1" means every CU's L1 (likewise T$, U$, ROP): fanning
/// out to the instances is the engine's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CacheOp {
    /// Which half of the barrier asked for it.
    pub scope: Scope,
    /// The cache.
    pub cache: CacheName,
    /// What to do. `Invalidate` writes dirty lines back first unless the cache's spec says
    /// `dirty_on_invalidate = "discard"` (dropped) or `"keep"` (left in place).
    pub action: CacheAction,
    /// Which lines.
    pub range: OpRange,
}

/// The (cache, action) pairs a set of usages asks for on one side, before normalization.
fn raw_ops(profile: &Profile, scope: Scope, usages: UsageSet) -> Vec<(CacheName, CacheAction)> {
    let mut out = Vec::new();
    if usages.is_empty() {
        return out;
    }
    for row in &profile.barriers.rows {
        let parts = row.access_parts();
        let filter = row.stage_filter();
        let fires = usages.iter().any(|u| parts.contains(u.access()) && filter.is_none_or(|f| f.contains(u.stage())));
        if fires {
            for op in row.ops(scope) {
                for c in &op.caches {
                    out.push((*c, op.action));
                }
            }
        }
    }
    out
}

/// Normalizes and orders the operations of one scope (see the module documentation).
fn normalize(profile: &Profile, scope: Scope, raw: &[(CacheName, CacheAction)], range: OpRange) -> Vec<CacheOp> {
    let mut ops = Vec::new();
    for cache in CacheName::ALL {
        let read_only = profile.cache_is_read_only(cache);
        let mut flush = false;
        let mut invalidate = false;
        for (c, a) in raw {
            if *c != cache {
                continue;
            }
            match a {
                CacheAction::Flush => flush = true,
                CacheAction::Invalidate => invalidate = true,
                CacheAction::FlushInvalidate => {
                    flush = true;
                    invalidate = true;
                }
            }
        }
        if read_only {
            flush = false;
        }
        let action = match (flush, invalidate) {
            (true, true) => CacheAction::FlushInvalidate,
            (true, false) => CacheAction::Flush,
            (false, true) => CacheAction::Invalidate,
            (false, false) => continue,
        };
        ops.push(CacheOp { scope, cache, action, range });
    }
    ops
}

/// The ordered cache operations of one scope, for a set of usages already computed.
pub fn plan_scope(profile: &Profile, scope: Scope, usages: UsageSet, range: Option<(u64, u64)>) -> Vec<CacheOp> {
    let op_range = match (profile.barriers.range, range) {
        (RangeMode::BarrierRange, Some((addr, size))) => OpRange::Lines { addr, size },
        _ => OpRange::WholeCache,
    };
    normalize(profile, scope, &raw_ops(profile, scope, usages), op_range)
}

/// The ordered cache operations a barrier performs on `profile`'s machine: first-scope
/// (flush-side) operations, then second-scope (invalidate-side) ones. `range` is a buffer or
/// image barrier's `(device address, size)`; it limits the operations only when the profile's
/// `barriers.range` is `barrier-range`.
pub fn plan_barrier(profile: &Profile, barrier: &MemoryBarrier2, range: Option<(u64, u64)>) -> Vec<CacheOp> {
    let mut ops = plan_scope(profile, Scope::First, barrier.first_usages(), range);
    ops.extend(plan_scope(profile, Scope::Second, barrier.second_usages(), range));
    ops
}

/// The ordered operations the driver performs at `point` outside any barrier
/// ([`super::BarrierTable::submit`], [`super::BarrierTable::signal`]), on whole caches.
pub fn plan_driver_point(profile: &Profile, point: DriverPoint) -> Vec<CacheOp> {
    let raw: Vec<(CacheName, CacheAction)> = profile.barriers.driver_ops(point).iter().flat_map(|op| op.caches.iter().map(move |c| (*c, op.action))).collect();
    let scope = match point {
        DriverPoint::Submit => Scope::Second,
        DriverPoint::Signal => Scope::First,
    };
    normalize(profile, scope, &raw, OpRange::WholeCache)
}

/// The rows of `profile`'s layout transitions that a transition of `aspect` from `old` to
/// `new` matches, in the table's order: their metadata work and cache operations are what
/// the driver does there.
pub fn transition_rows(profile: &Profile, aspect: super::Aspect, old: super::ImageLayout, new: super::ImageLayout) -> Vec<&super::LayoutTransition> {
    use super::ImageLayout as L;
    let has = |list: &[L], l: L| list.iter().any(|&x| x == l || x == L::Any);
    profile.barriers.layout_transitions.iter().filter(|t| t.aspect == aspect && has(&t.from, old) && has(&t.to, new)).collect()
}

/// The ordered cache operations of a layout transition's matched `rows`, on the image's bytes
/// `(addr, size)` where the profile's barriers act on ranges.
pub fn plan_transition_ops(profile: &Profile, rows: &[&super::LayoutTransition], range: (u64, u64)) -> Vec<CacheOp> {
    let raw: Vec<(CacheName, CacheAction)> = rows.iter().flat_map(|t| t.ops.iter()).flat_map(|op| op.caches.iter().map(move |c| (*c, op.action))).collect();
    let op_range = match profile.barriers.range {
        RangeMode::BarrierRange => OpRange::Lines { addr: range.0, size: range.1 },
        RangeMode::WholeCache => OpRange::WholeCache,
    };
    normalize(profile, Scope::First, &raw, op_range)
}

/// A semaphore signal: the flush side of `MEMORY_WRITE` at `ALL_COMMANDS`.
pub fn plan_semaphore_signal(profile: &Profile) -> Vec<CacheOp> {
    plan_barrier(profile, &MemoryBarrier2::semaphore_signal(), None)
}

/// A semaphore wait: the invalidate side of `MEMORY_READ|MEMORY_WRITE` at the wait stages.
pub fn plan_semaphore_wait(profile: &Profile, wait_stage_mask: PipelineStageFlags2) -> Vec<CacheOp> {
    plan_barrier(profile, &MemoryBarrier2::semaphore_wait(wait_stage_mask), None)
}

/// A fence signal: availability of every device write (same operations as a semaphore signal).
pub fn plan_fence_signal(profile: &Profile) -> Vec<CacheOp> {
    plan_barrier(profile, &MemoryBarrier2::fence_signal(), None)
}

/// vkQueueSubmit's host→device domain operation: the `HOST_WRITE` rows' first-scope operations,
/// then the second-scope operations of every device read and write.
pub fn plan_queue_submit(profile: &Profile) -> Vec<CacheOp> {
    plan_barrier(profile, &MemoryBarrier2::queue_submit_host_to_device(), None)
}
