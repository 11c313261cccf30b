//! gpusim: a GPU simulator whose caches hold real bytes.
//!
//! This facade re-exports the workspace's crates under one name: [`caches`] for the memory
//! hierarchy building blocks, [`sim`] for the synchronization vocabulary, profiles and the
//! engine.

pub use sim_caches as caches;
pub use sim_core as sim;
