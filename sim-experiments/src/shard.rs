//! A sweep, or the seeds of a schedule exploration, cut into slices that run anywhere, and
//! merged back.
//!
//! # Design
//! A sweep is cut by its runs (one per point and schedule, [`crate::sweep::RunRecord`]): shard
//! `i/N` (0 ≤ i < N) holds every N-th run, from the i-th, in an order fixed by a hash of the
//! runs' numbers ([`Shard::members`]): slices of equal size (±1) whatever the sweep's shape, and
//! its structure (a varied field whose larger values cost more, which a plain `run mod N` would
//! hand to one worker whenever N divides its count of values) spread evenly over the workers. A
//! shard writes a [`ShardFile`]: its runs' records and what they belong to (the sweep's name and
//! fingerprint, the shard and the count, every point's trace and values). [`merge`] takes any
//! order of shard files and checks that they are the N shards of one sweep, each once, together
//! holding every run once; it summarizes the records with the same function a single run of the
//! whole sweep uses, so the tables and charts written from them are byte for byte the same.
//!
//! A schedule exploration (`gpusim run --schedules N`) is cut the same way over its seeds: a
//! [`RunShardFile`] holds whether each of its seeds corrupted, and [`merge_runs`] joins them
//! into the survey of all N, from which the reported run is re-run as a single run would.

use serde::{Deserialize, Serialize};

use crate::ExperimentError;
use crate::output::SweepTable;
use crate::sweep::{PointMeta, RunRecord, rows};

/// The most shards a sweep may be cut into.
pub const MAX_SHARDS: u64 = 100_000;
/// The most seeds one exploration's shard may say it belongs to (`gpusim run --schedules`).
pub const MAX_SEEDS: u64 = 100_000;

/// The version of [`ShardFile`]'s format this gpusim writes and reads: 2 since its records hold
/// each run's cache hits and misses.
pub const SWEEP_SHARD_FORMAT: u32 = 2;

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

    /// Which of `total` items (a sweep's points, an exploration's seeds, by number) this slice
    /// holds: the items ranked by a hash of their number, every `count`-th from the `index`-th.
    pub fn members(&self, total: usize) -> Vec<bool> {
        let mut order: Vec<(u64, usize)> = (0..total).map(|i| (splitmix64(i as u64), i)).collect();
        order.sort_unstable();
        let mut held = vec![false; total];
        for (rank, &(_, i)) in order.iter().enumerate() {
            held[i] = rank as u64 % self.count == self.index;
        }
        held
    }

    /// The numbers of the items of `total` this slice holds, in order ([`Shard::members`]).
    pub fn items(&self, total: usize) -> Vec<usize> {
        self.members(total).iter().enumerate().filter_map(|(i, &m)| m.then_some(i)).collect()
    }
}

/// SplitMix64's output function: a fixed, well-mixed hash of a number.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one shard ran: written by `gpusim sweep --shard`, read by `gpusim merge`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile {
    /// The format's version ([`SWEEP_SHARD_FORMAT`]).
    pub gpusim_sweep_shard: u32,
    /// The sweep's name.
    pub sweep: String,
    /// The sweep's fingerprint ([`crate::sweep::Sweep::fingerprint`]).
    pub fingerprint: String,
    /// This shard, from 0.
    pub shard: u64,
    /// How many shards.
    pub shards: u64,
    /// Seeded schedules per point.
    pub schedules: u64,
    /// The varied fields.
    pub fields: Vec<String>,
    /// Every point of the sweep: its trace and values.
    pub points: Vec<PointMeta>,
    /// This shard's runs, in run order.
    pub records: Vec<RunRecord>,
}

/// The slices the shard files given so far are: each of N once, none missing.
struct Slices<'a> {
    count: u64,
    seen: Vec<Option<&'a str>>,
}

impl<'a> Slices<'a> {
    /// No slice of `count` seen yet.
    fn new(count: u64) -> Slices<'a> {
        Slices { count, seen: vec![None; count.clamp(1, MAX_SHARDS) as usize] }
    }

    /// Records the file `origin` as slice `index` of `count`, which must be one of this merge's
    /// slices not given before.
    fn record(&mut self, origin: &'a str, index: u64, count: u64) -> Result<Shard, ExperimentError> {
        if count != self.count || count == 0 || count > MAX_SHARDS || index >= count {
            return Err(ExperimentError::new(origin, format!("shard {index} of {count}: not a slice of {}", self.count)));
        }
        if let Some(other) = self.seen[index as usize] {
            return Err(ExperimentError::new(origin, format!("shard {index}/{count} again: {other} is that shard too")));
        }
        self.seen[index as usize] = Some(origin);
        Ok(Shard { index, count })
    }

    /// An error naming the slices no file was.
    fn complete(&self) -> Result<(), ExperimentError> {
        let missing: Vec<String> = self.seen.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| format!("{i}/{}", self.count)).collect();
        if missing.is_empty() { Ok(()) } else { Err(ExperimentError::new("gpusim merge", format!("shards missing: {}", missing.join(", ")))) }
    }
}

/// Joins the shard files (`(origin, file)`, in any order) of one sweep into its table.
pub fn merge(files: &[(String, ShardFile)]) -> Result<SweepTable, ExperimentError> {
    let Some((first_origin, first)) = files.first() else {
        return Err(ExperimentError::new("gpusim merge", "no shard files given"));
    };
    let runs = (first.points.len() as u64).saturating_mul(first.schedules);
    if first.points.len() as u64 > crate::sweep::MAX_POINTS || first.schedules > crate::sweep::MAX_SCHEDULES || runs > crate::sweep::MAX_RUNS {
        return Err(ExperimentError::new(first_origin, format!("{} points of {} schedules: more than a sweep may have", first.points.len(), first.schedules)));
    }
    let mut slices = Slices::new(first.shards);
    for (origin, f) in files {
        let err = |m: String| ExperimentError::new(origin, m);
        if f.gpusim_sweep_shard != SWEEP_SHARD_FORMAT {
            return Err(err(format!("gpusim_sweep_shard {} is not a format this gpusim reads ({SWEEP_SHARD_FORMAT})", f.gpusim_sweep_shard)));
        }
        if (&f.sweep, &f.fingerprint, f.shards, f.schedules, &f.fields, &f.points) != (&first.sweep, &first.fingerprint, first.shards, first.schedules, &first.fields, &first.points) {
            return Err(err(format!(
                "shard of sweep `{}` (fingerprint {}, {} shards), but {first_origin} is of sweep `{}` (fingerprint {}, {} shards): shards of one run of one sweep merge, with the same traces, profile and gpusim",
                f.sweep, f.fingerprint, f.shards, first.sweep, first.fingerprint, first.shards
            )));
        }
        let want = slices.record(origin, f.shard, f.shards)?.items(runs as usize);
        if f.records.iter().map(|r| r.run as usize).ne(want.iter().copied()) {
            return Err(err(format!("shard {}/{} does not hold exactly its runs ({} of them)", f.shard, f.shards, want.len())));
        }
    }
    slices.complete()?;
    let mut records: Vec<RunRecord> = files.iter().flat_map(|(_, f)| f.records.iter().cloned()).collect();
    records.sort_by_key(|r| r.run);
    Ok(SweepTable { name: first.sweep.clone(), fields: first.fields.clone(), rows: rows(&first.points, first.schedules, &records) })
}

/// What one shard of a schedule exploration found: written by `gpusim run --shard`, read by
/// `gpusim merge`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunShardFile {
    /// The format's version (1).
    pub gpusim_run_shard: u32,
    /// The trace, as the command line gave it.
    pub trace: String,
    /// The profile, as the command line gave it.
    pub profile: String,
    /// Identifies the trace, the profile, gpusim's version and the arguments.
    pub fingerprint: String,
    /// The first seed.
    pub seed: u64,
    /// Seeds in the whole exploration.
    pub schedules: u64,
    /// `--max-memory-differences`.
    pub max_memory_differences: usize,
    /// `--max-cycles`.
    pub max_cycles: u64,
    /// `--max-instructions`.
    pub max_instructions: u64,
    /// `--max-transfer-bytes`.
    pub max_transfer_bytes: u64,
    /// This shard, from 0.
    pub shard: u64,
    /// How many shards.
    pub shards: u64,
    /// (seed, whether its run corrupted), in seed order.
    pub outcomes: Vec<(u64, bool)>,
}

/// Joins the shard files of one exploration: the first file's arguments, with every seed's
/// outcome in seed order.
pub fn merge_runs(files: &[(String, RunShardFile)]) -> Result<RunShardFile, ExperimentError> {
    let Some((first_origin, first)) = files.first() else {
        return Err(ExperimentError::new("gpusim merge", "no shard files given"));
    };
    let same = |f: &RunShardFile| (&f.trace, &f.profile, &f.fingerprint, f.seed, f.schedules, f.shards) == (&first.trace, &first.profile, &first.fingerprint, first.seed, first.schedules, first.shards);
    let mut slices = Slices::new(first.shards);
    for (origin, f) in files {
        let err = |m: String| ExperimentError::new(origin, m);
        if f.gpusim_run_shard != 1 {
            return Err(err(format!("gpusim_run_shard {} is not a format this gpusim reads (1)", f.gpusim_run_shard)));
        }
        if !same(f) {
            return Err(err(format!(
                "shard of `gpusim run {} --profile {} --seed {} --schedules {}` in {} shards (fingerprint {}), but {first_origin} is of `gpusim run {} --profile {} --seed {} --schedules {}` in {} shards (fingerprint {}): shards of one exploration merge",
                f.trace, f.profile, f.seed, f.schedules, f.shards, f.fingerprint, first.trace, first.profile, first.seed, first.schedules, first.shards, first.fingerprint
            )));
        }
        if f.schedules == 0 || f.schedules > MAX_SEEDS {
            return Err(err(format!("{} schedules: give 1 to {MAX_SEEDS}", f.schedules)));
        }
        let want = slices.record(origin, f.shard, f.shards)?.items(f.schedules as usize);
        if f.outcomes.iter().map(|o| o.0).ne(want.iter().map(|&i| f.seed.saturating_add(i as u64))) {
            return Err(err(format!("shard {}/{} does not hold exactly its seeds ({} of them)", f.shard, f.shards, want.len())));
        }
    }
    slices.complete()?;
    let mut outcomes: Vec<(u64, bool)> = files.iter().flat_map(|(_, f)| f.outcomes.iter().copied()).collect();
    outcomes.sort_unstable();
    Ok(RunShardFile { shard: 0, shards: 1, outcomes, ..first.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_every_item_once_in_equal_sizes() {
        for total in [0, 1, 7, 16, 1000] {
            for count in [1, 2, 3, 16] {
                let slices: Vec<Vec<bool>> = (0..count).map(|index| Shard { index, count }.members(total)).collect();
                for i in 0..total {
                    assert_eq!(slices.iter().filter(|s| s[i]).count(), 1, "item {i} of {total} in {count} slices");
                }
                let sizes: Vec<usize> = slices.iter().map(|s| s.iter().filter(|&&m| m).count()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{total} in {count}: {sizes:?}");
            }
        }
    }

    #[test]
    fn a_varied_field_spreads_over_the_slices() {
        // 4 traces x 4 values, the last value's points costly: 2 slices get 2 of them each.
        let costly: Vec<usize> = (0..16).filter(|p| p % 4 == 3).collect();
        for index in 0..2 {
            let m = Shard { index, count: 2 }.members(16);
            assert_eq!(costly.iter().filter(|&&p| m[p]).count(), 2, "slice {index}: {m:?}");
        }
    }

    #[test]
    fn slices_parse_as_slurm_gives_them() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert!(Shard::parse("4/4").unwrap_err().contains("from 0 to 3"));
    }
}
