//! Experiments over many simulated runs.
//!
//! - [`sweep`]: an architecture sweep varies profile fields over traces ([`sweep::Sweep`]) and
//!   runs every point's seeded schedules in parallel ([`sweep::PointRow`]).
//! - [`shard`]: a sweep, or the seeds of one trace's schedule exploration, cut into slices
//!   (`--shard i/N`) that run anywhere (a Slurm job array, GNU parallel) and merge back into
//!   exactly the single-machine result.
//! - [`output`]: the result as a CSV table and SVG charts.
//! - [`chart`]: the SVG charts of sweeps and strategies: line charts over numeric, log2 or
//!   categorical axes and grouped bar charts, legends beside the plot.
//! - [`strategy`]: barrier strategies: a task graph's synchronization placed several ways, each
//!   trace proven free of hazards and corruption before it is timed.

#![warn(missing_docs)]

pub mod chart;
pub mod output;
pub mod shard;
pub mod strategy;
pub mod sweep;

use std::fmt;

/// A fingerprint of `parts` (FNV-1a, 64 bits, each part followed by its length): the same
/// across Rust versions and machines, so shards made anywhere can be matched.
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&(p.len() as u64).to_le_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

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
