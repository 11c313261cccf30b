//! The synchronization vocabulary: pipeline stages, access flags, scopes and usages.
//!
//! Everything the engine, the barrier planner and hazard detection say about synchronization is
//! said with these types, so the Vulkan names live here and nowhere else:
//! - [`PipelineStageFlags2`] and [`AccessFlags2`]: synchronization2's masks with Vulkan's own bit
//!   values, parsed from and printed as `A|B` names ([`flags`]).
//! - Scope computation ([`scope`]): meta-stage substitution, the expansion of execution scopes to
//!   logically earlier/later stages per [`PipelineType`], the restriction of access scopes to the
//!   legal (stage, access) pairs, and the [`StageAccess`] usages and [`UsageSet`]s they yield.
//! - [`MemoryBarrier2`] and the barriers that model implicit synchronization (semaphores,
//!   fences, vkQueueSubmit).
//! - Valid usage the loader enforces ([`valid`]): accesses a barrier's stages can perform, and
//!   events waited on the queue that set them.

pub mod barrier;
pub mod flags;
pub mod scope;
pub mod valid;

pub use barrier::MemoryBarrier2;
pub use flags::{AccessFlags2, FlagParseError, PipelineStageFlags2};
pub use scope::{
    PipelineType, Scope, StageAccess, UsageSet, all_device_stages, all_graphics_stages, all_usages, first_access_scope,
    first_scope_stages, legal_accesses, legal_accesses_of_stage, second_access_scope, second_scope_stages,
    split_access_for_stage, substitute_meta_stages,
};
