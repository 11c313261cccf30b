//! Driver choices that are not rows of the barrier table: when and how the engine applies
//! what a barrier, an event or a signal asks for. Each is named, documented and has the
//! built-in profiles' choice as its default.

use serde::{Deserialize, Serialize};

/// Where a vkCmdSetEvent2's first-scope cache operations are performed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventFirstScope {
    /// At the set when it names accesses (synchronization2); at the wait when it names only
    /// stages (vkCmdSetEvent) or the host set the event, since only the wait knows the accesses.
    #[default]
    Set,
    /// Always at the wait, whole (RADV's vkCmdWaitEvents2 performs the whole barrier there; the
    /// set only writes the event after its stages).
    Wait,
}

/// What a fence or semaphore signal operation makes available.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignalAvailability {
    /// The writes of the stages that ran work on the queue since a global memory barrier last
    /// made their writes available: MEMORY_WRITE planned over those stages only (planning it
    /// over every stage would fire rows, such as the coherency-at-L2 table's TRANSFER_WRITE
    /// "invalidate L2", for writes that never happened or were made available already, and so
    /// write back lines that a missing HOST_READ barrier leaves dirty).
    #[default]
    StagesThatRan,
    /// MEMORY_WRITE at ALL_COMMANDS, whatever ran.
    AllStages,
}

/// How the cycles of a maintenance operation on the per-CU caches are charged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CuCacheWalks {
    /// The CUs walk their caches at once: one CU's walk is charged (every written-back byte is).
    #[default]
    Parallel,
    /// One CU after another: every CU's walk is charged.
    Serial,
}

/// Where atomics and coherent accesses are performed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtomicsAt {
    /// At the L2, the device's coherence point (VRAM without an L2).
    #[default]
    L2,
    /// At memory: the L2 writes back and drops its copy of the bytes first (as system-scope
    /// atomics are performed on some hardware).
    Memory,
}

/// What orders the work of a queue beyond the program's own execution dependencies. A driver may
/// order more than Vulkan asks, never less.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExecutionOrder {
    /// Exactly the program's execution dependencies.
    #[default]
    Dependencies,
    /// A pipeline barrier whose first scope holds any stage waits for all earlier work on its
    /// queue and holds all later work, whatever stages it names (a wait for idle); command
    /// buffers of one submission run one after another, and so do submissions. A first scope of
    /// TOP_OF_PIPE alone still orders nothing. Measured on an NVIDIA H100
    /// (`docs/hardware/H100_PROBE.md`, items 6, 11, 15, 16).
    Serial,
}

/// The driver policies of a profile (`[policies]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policies {
    /// Where an event's first scope is performed.
    pub event_first_scope: EventFirstScope,
    /// What a fence or semaphore signal makes available.
    pub signal_availability: SignalAvailability,
    /// How per-CU cache maintenance is charged.
    pub cu_cache_walks: CuCacheWalks,
    /// Where atomics and coherent accesses are performed.
    pub atomics_at: AtomicsAt,
    /// What orders a queue's work beyond the program's dependencies.
    pub execution_order: ExecutionOrder,
    /// Whether the command after a vkCmdCopyBuffer waits for the copy to finish (a wait the
    /// driver or the hardware adds; the program's dependencies are unchanged). Default false.
    /// Measured on an NVIDIA H100 (`docs/hardware/H100_PROBE.md`, item 19: a dispatch never
    /// overlapped a preceding copy, though it did overlap a preceding fill, and a copy did
    /// overlap a preceding dispatch).
    pub wait_after_copy: bool,
}
