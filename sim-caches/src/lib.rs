//! Memory-hierarchy building blocks whose caches hold real bytes.
//!
//! `sim-caches` knows nothing of GPUs. It provides a sparse, byte-accurate [`BackingStore`]
//! (device memory, counted in 32-byte transactions per channel) and a set-associative [`Cache`]
//! configured by a serde-able [`CacheSpec`] (geometry, replacement, write policy). Both take part
//! in [`MemoryLevel`], the small trait through which one level reaches the next: a cache never
//! owns its next level but takes it per operation, and [`Chained`] pairs a cache with its next
//! level so that an L1 reads through an L2 that reads through VRAM; a ROP tile cache or a host
//! cache chains the same way. A caller that knows its next accesses can hint them
//! ([`MemoryLevel::prefetch`], [`Cache::prefetch`]) so that the host's memory latency overlaps;
//! hints change nothing simulated. Data moves together with its provenance: one [`Tag`] per 4-byte
//! word naming the write that produced it, so a stale read can say whose bytes it saw. Two caches
//! over one backing store are *not* coherent with each other: that is the point of the simulator
//! built on top, and only explicit maintenance ([`Cache::flush`], [`Cache::invalidate`]) moves
//! data between them. The backing store keeps its pages on host huge pages where the host offers
//! them, and a cache's arrays start on host cache lines ([`huge`]); both change only how fast
//! random accesses run.

pub mod cache;
pub mod error;
pub mod huge;
pub mod level;
pub mod spec;
pub mod store;

pub use cache::{Cache, CacheStats, Chained, Maintenance};
pub use error::{AccessError, SpecError};
pub use level::{AccessReport, LINE_DEPTH_LINES, MemoryLevel, TAG_GRANULE, line_depth, TRANSACTION_BYTES, Tag, Tags, transaction_span, word_span};
pub use spec::{CacheSpec, DirtyOnInvalidate, MAX_CACHE_HOST_BYTES, Replacement, WritePolicy};
pub use store::{BackingStore, ChannelStats};
