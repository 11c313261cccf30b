//! The host CPU's view of mapped device memory.
//!
//! A Vulkan program writes and reads device memory through pointers from vkMapMemory, and what
//! its bytes go through on the way depends on the memory type: HOST_COHERENT memory is mapped
//! write-combined, so stores collect in the core's write-combining buffers until a
//! device-visible event (a queue submission, a fence or semaphore operation) sends them out;
//! HOST_CACHED memory goes through the CPU caches, and only vkFlushMappedMemoryRanges and
//! vkInvalidateMappedMemoryRanges move data between them and the device, a whole line at a
//! time, at nonCoherentAtomSize granularity; HOST_CACHED|HOST_COHERENT memory is snooped. This
//! crate models exactly that, with real bytes, so a missing flush, a missing invalidate or a
//! partial-line write leaves stale bytes where the GPU (or the host) will read them.
//!
//! How the parts fit:
//! - [`HostMemoryKind`] (in `kind`) turns VkMemoryPropertyFlags into one of four host paths;
//! - [`HostSpec`] says what the host side is (write-combining buffers, the host cache as a
//!   `sim_caches::CacheSpec`, nonCoherentAtomSize) and [`HostTiming`] what the bus costs;
//! - [`HostSide`] holds the mappings, the write-combining buffers (module `wc`) and the host
//!   cache (a `sim_caches::Cache`), and performs host writes and reads, the two Vulkan range
//!   calls (checked against their VUIDs, [`HostError`]) and device-visible events;
//! - every operation returns a [`HostReport`] of what it moved and what it cost.
//!
//! The host side never owns device memory: each call takes the device level as an argument
//! (anything implementing `sim_caches::MemoryLevel`: VRAM, or whatever the GPU puts in front of
//! it), so the engine keeps one machine and lends its memory per call. Provenance travels with
//! the bytes: a host write's tag sticks to its words in write-combining buffers and in the host
//! cache, and reaches device memory with them, so a stale-bytes report can name the host write.
//! Everything is deterministic: buffers are evicted oldest first, mappings are kept in a
//! `BTreeMap`, and the only randomness (a random-replacement host cache) comes from the seed.

#![warn(missing_docs)]

pub mod error;
pub mod host;
pub mod kind;
pub mod report;
pub mod spec;
mod wc;

/// Identifies a VkDeviceMemory object (the engine's memory index).
pub type MemoryId = usize;

pub use error::HostError;
pub use host::{HostSide, MappedRange, Mapping, PendingWrite, WHOLE_SIZE};
pub use kind::{
    HostMemoryKind, MEMORY_PROPERTY_DEVICE_LOCAL, MEMORY_PROPERTY_HOST_CACHED, MEMORY_PROPERTY_HOST_COHERENT,
    MEMORY_PROPERTY_HOST_VISIBLE,
};
pub use report::HostReport;
pub use spec::{HostSpec, HostTiming};
