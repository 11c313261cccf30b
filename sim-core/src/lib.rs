//! sim-core: the simulated GPU and the Vulkan semantics it runs.
//!
//! The crate is layered. [`sync`] is the vocabulary (pipeline stages, access flags, scopes and
//! stage/access usages, with Vulkan's names and bit values). [`profile`] describes a machine: its
//! caches (built from `sim-caches` specs), costs, device limits and the barrier table that turns
//! a barrier into cache flushes and invalidations, with [`profile::plan_barrier`] as the pure
//! function from (barrier, profile) to cache operations. [`api`] is the vocabulary of programs:
//! the workload, the checked program and each action command lowered once. The execution engine
//! ([`engine`]: command processors, compute units, transfer engine, reference run, findings)
//! builds on all three: it reads the machine from a profile and performs exactly the operations
//! the planner lists, so a missing barrier reads stale bytes. [`hazard`] is the synchronization
//! detector; [`trace`] reads traces; [`generators`] makes programs (random, built-in samples)
//! and checks a barrier table with them.

pub mod api;
pub mod engine;
pub mod fixed_function;
pub mod generators;
pub mod io;
pub mod hazard;
pub mod profile;
pub mod sync;
pub mod trace;
