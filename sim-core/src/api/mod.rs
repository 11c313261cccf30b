//! The vocabulary every other part speaks: a [`Workload`] as the Rust API builds it (memory,
//! buffers, pipelines, command buffers, the host timeline, in Vulkan's names), the
//! [`WorkloadError`] that names what is wrong and where, and the [`Program`]: a workload checked
//! against the specification's valid usage and numbered (command instances, provenance tags,
//! device addresses). Nothing here knows the machine or how a run is timed.

pub mod action;
pub mod error;
pub mod graphics;
pub mod program;
pub mod render;
pub mod workload;

pub use action::{Action, CopyRange, SyncCommand, Usage, Work};
pub use error::{Budget, WorkloadError};
pub use graphics::*;
pub use program::{CommandRef, Program, Writer};
pub use workload::*;
