//! `MemoryBarrier2`, and the barriers that stand for Vulkan's implicit synchronization.

use serde::{Deserialize, Serialize};

use super::flags::{AccessFlags2, PipelineStageFlags2};
use super::scope::{UsageSet, first_access_scope, second_access_scope};

/// `VkMemoryBarrier2`: a memory dependency between the first scope (`src_*`: writes to make
/// available) and the second scope (`dst_*`: accesses to make them visible to). Buffer and image
/// barriers carry the same four masks plus a range, which the planner takes separately.
///
/// JSON/TOML fields are the trace format's snake_case names; each mask is a string `A|B` or an
/// array of names, and defaults to `NONE` when absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryBarrier2 {
    /// Stages whose work the dependency waits for (first synchronization scope).
    pub src_stage_mask: PipelineStageFlags2,
    /// Accesses in those stages to make available (first access scope).
    pub src_access_mask: AccessFlags2,
    /// Stages that wait (second synchronization scope).
    pub dst_stage_mask: PipelineStageFlags2,
    /// Accesses in those stages the writes are made visible to (second access scope).
    pub dst_access_mask: AccessFlags2,
}

impl MemoryBarrier2 {
    /// A barrier from its four masks.
    pub fn new(src_stage_mask: PipelineStageFlags2, src_access_mask: AccessFlags2, dst_stage_mask: PipelineStageFlags2, dst_access_mask: AccessFlags2) -> Self {
        MemoryBarrier2 { src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask }
    }

    /// The first access scope as usages (writes only).
    pub fn first_usages(&self) -> UsageSet {
        first_access_scope(self.src_stage_mask, self.src_access_mask)
    }

    /// The second access scope as usages.
    pub fn second_usages(&self) -> UsageSet {
        second_access_scope(self.dst_stage_mask, self.dst_access_mask)
    }

    /// A semaphore signal operation's memory dependency: its first access scope is every device
    /// write (`MEMORY_WRITE` at `ALL_COMMANDS`); it has no second access scope of its own.
    pub fn semaphore_signal() -> Self {
        Self::new(PipelineStageFlags2::ALL_COMMANDS, AccessFlags2::MEMORY_WRITE, PipelineStageFlags2::NONE, AccessFlags2::NONE)
    }

    /// A semaphore wait operation's memory dependency: every access (`MEMORY_READ|MEMORY_WRITE`)
    /// in the wait stage mask is in its second access scope.
    pub fn semaphore_wait(wait_stage_mask: PipelineStageFlags2) -> Self {
        Self::new(PipelineStageFlags2::NONE, AccessFlags2::NONE, wait_stage_mask, AccessFlags2::MEMORY_READ | AccessFlags2::MEMORY_WRITE)
    }

    /// A fence signal operation: availability of every device write, and nothing more (the host
    /// sees the writes only if a barrier with `HOST_READ` in its second scope ran before).
    pub fn fence_signal() -> Self {
        Self::semaphore_signal()
    }

    /// vkQueueSubmit's implicit host→device dependency: host writes made available (the
    /// `HOST_WRITE` rows' first-scope operations) and visible to every device access (the
    /// second-scope operations of `MEMORY_READ|MEMORY_WRITE` at `ALL_COMMANDS`).
    pub fn queue_submit_host_to_device() -> Self {
        Self::new(
            PipelineStageFlags2::HOST,
            AccessFlags2::HOST_WRITE,
            PipelineStageFlags2::ALL_COMMANDS,
            AccessFlags2::MEMORY_READ | AccessFlags2::MEMORY_WRITE,
        )
    }
}
