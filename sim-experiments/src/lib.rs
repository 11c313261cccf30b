//! Experiments over many simulated runs.
//!
//! - [`sweep`]: an architecture sweep varies profile fields over traces ([`sweep::Sweep`]) and
//!   runs every point's seeded schedules in parallel ([`sweep::PointRow`]).
//! - [`shard`]: a sweep cut into slices (`--shard i/N`) that run anywhere (a Slurm job array,
//!   GNU parallel) and merge back into exactly the single-machine result.
//! - [`output`]: the result as a CSV table and SVG charts.

pub mod output;
pub mod shard;
pub mod sweep;

use std::fmt;

/// An experiment's error: where (a file, perhaps `file:line:col`) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentError {
    /// The file (and place in it) at fault.
    pub origin: String,
    /// What was wrong.
    pub message: String,
}

impl ExperimentError {
    /// An error in `origin`.
    pub fn new(origin: &str, message: impl Into<String>) -> ExperimentError {
        ExperimentError { origin: origin.to_string(), message: message.into() }
    }
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

impl std::error::Error for ExperimentError {}
