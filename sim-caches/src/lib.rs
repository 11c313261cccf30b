//! Memory-hierarchy building blocks whose caches hold real bytes.
//!
//! `sim-caches` knows nothing of GPUs. It provides a sparse, byte-accurate [`BackingStore`]
//! (device memory, counted in 32-byte transactions per channel) and a set-associative [`Cache`]
//! configured by a serde-able [`CacheSpec`] (geometry, replacement, write policy). Both implement
//! [`MemoryLevel`], the small trait through which one level reaches the next, so an L1 chains to an
//! L2 that chains to VRAM, and a ROP tile cache or a host cache can chain the same way. Data moves
//! together with its provenance: one [`Tag`] per 4-byte word naming the write that produced it,
//! so a stale read can say whose bytes it saw. Two caches over one backing store are *not*
//! coherent with each other: that is the point of the simulator built on top.

pub mod error;
pub mod spec;

pub use error::{AccessError, SpecError};
pub use spec::{CacheSpec, DirtyOnInvalidate, Replacement, WritePolicy};
