//! A sweep cut into slices that run anywhere, and merged back.
//!
//! # Design
//! Shard `i/N` (0 ≤ i < N) holds the points whose number is `i` modulo `N`: slices of equal size
//! whatever the sweep's shape, and neighbouring points (often of similar cost) spread over the
//! workers. A shard writes a [`ShardFile`]: its rows and what they belong to (the sweep's name
//! and fingerprint, the shard and the count, the number of points). [`merge`] takes any order
//! of shard files and checks that they are the N shards of one sweep, each once, together
//! holding every point once; the rows it returns are exactly those a single run of the whole
//! sweep returns, so the tables and charts written from them are byte for byte the same.

use serde::{Deserialize, Serialize};

use crate::ExperimentError;
use crate::output::SweepTable;
use crate::sweep::PointRow;

/// The most shards a sweep may be cut into.
pub const MAX_SHARDS: u64 = 100_000;

/// Which slice of a sweep runs here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This slice, from 0.
    pub index: u64,
    /// How many slices.
    pub count: u64,
}

impl Shard {
    /// The whole sweep as one slice.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `i/N` (as Slurm's `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT` gives it).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| format!("`{s}` is not I/N (this slice, from 0, of N)"))?;
        let index: u64 = i.trim().parse().map_err(|_| format!("`{i}` in `{s}` is not a slice number"))?;
        let count: u64 = n.trim().parse().map_err(|_| format!("`{n}` in `{s}` is not a count of slices"))?;
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("{count} slices in `{s}`: give 1 to {MAX_SHARDS}"));
        }
        if index >= count {
            return Err(format!("slice {index} of {count} in `{s}`: slices are numbered from 0 to {}", count - 1));
        }
        Ok(Shard { index, count })
    }

    /// Whether point `point` is this slice's.
    pub fn holds(&self, point: usize) -> bool {
        point as u64 % self.count == self.index
    }
}

/// What one shard ran: written by `gpusim sweep --shard`, read by `gpusim merge`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile {
    /// The format's version (1).
    pub gpusim_sweep_shard: u32,
    /// The sweep's name.
    pub sweep: String,
    /// The sweep's fingerprint ([`crate::sweep::Sweep::fingerprint`]).
    pub fingerprint: String,
    /// This shard, from 0.
    pub shard: u64,
    /// How many shards.
    pub shards: u64,
    /// Points in the whole sweep.
    pub points: u64,
    /// The varied fields.
    pub fields: Vec<String>,
    /// This shard's rows, in point order.
    pub rows: Vec<PointRow>,
}

/// Joins the shard files (`(origin, file)`, in any order) of one sweep into its table.
pub fn merge(files: &[(String, ShardFile)]) -> Result<SweepTable, ExperimentError> {
    let Some((first_origin, first)) = files.first() else {
        return Err(ExperimentError::new("gpusim merge", "no shard files given"));
    };
    let mut seen: Vec<Option<&str>> = Vec::new();
    for (origin, f) in files {
        let err = |m: String| ExperimentError::new(origin, m);
        if f.gpusim_sweep_shard != 1 {
            return Err(err(format!("gpusim_sweep_shard {} is not a format this gpusim reads (1)", f.gpusim_sweep_shard)));
        }
        if (&f.sweep, &f.fingerprint, f.shards, f.points, &f.fields) != (&first.sweep, &first.fingerprint, first.shards, first.points, &first.fields) {
            return Err(err(format!(
                "shard of sweep `{}` (fingerprint {}, {} shards, {} points), but {first_origin} is of sweep `{}` (fingerprint {}, {} shards, {} points): shards of one run of one sweep merge, with the same traces, profile and gpusim",
                f.sweep, f.fingerprint, f.shards, f.points, first.sweep, first.fingerprint, first.shards, first.points
            )));
        }
        if f.shards == 0 || f.shards > MAX_SHARDS || f.shard >= f.shards {
            return Err(err(format!("shard {} of {}: not a slice", f.shard, f.shards)));
        }
        if seen.is_empty() {
            seen = vec![None; f.shards as usize];
        }
        if let Some(other) = seen[f.shard as usize] {
            return Err(err(format!("shard {}/{} again: {other} is that shard too", f.shard, f.shards)));
        }
        seen[f.shard as usize] = Some(origin);
        let slice = Shard { index: f.shard, count: f.shards };
        if let Some(r) = f.rows.iter().find(|r| !slice.holds(r.point) || r.point as u64 >= f.points) {
            return Err(err(format!("point {} is not shard {}/{}'s", r.point, f.shard, f.shards)));
        }
        if r_count(f, slice) != f.rows.len() as u64 {
            return Err(err(format!("shard {}/{} holds {} rows; it should hold {}", f.shard, f.shards, f.rows.len(), r_count(f, slice))));
        }
    }
    let missing: Vec<String> = seen.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| format!("{i}/{}", first.shards)).collect();
    if !missing.is_empty() {
        return Err(ExperimentError::new("gpusim merge", format!("shards missing: {}", missing.join(", "))));
    }
    let mut rows: Vec<PointRow> = files.iter().flat_map(|(_, f)| f.rows.iter().cloned()).collect();
    rows.sort_by_key(|r| r.point);
    if let Some(w) = rows.windows(2).find(|w| w[0].point == w[1].point) {
        return Err(ExperimentError::new("gpusim merge", format!("point {} appears twice", w[0].point)));
    }
    Ok(SweepTable { name: first.sweep.clone(), fields: first.fields.clone(), rows })
}

/// The rows shard `slice` of `f`'s sweep holds.
fn r_count(f: &ShardFile, slice: Shard) -> u64 {
    f.points / slice.count + u64::from(f.points % slice.count > slice.index)
}
