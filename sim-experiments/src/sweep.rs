//! Architecture sweeps: one base profile, some of its fields varied, over some traces.
//!
//! # Design
//! A sweep file ([`SweepSpec`], TOML) names a base profile, the traces, how many seeded
//! schedules each point runs, and the fields to vary with their values. The points are every
//! trace crossed with every combination of values, in a fixed order (trace outermost, then the
//! first varied field), numbered from 0: that number is all a shard needs to know which points
//! are its own ([`crate::shard`]).
//!
//! A point's profile is the base profile written out whole, the point's values set at their
//! dotted paths, and read back through the profile loader, so a varied field is checked exactly
//! as in a profile file, and a value the machine cannot take is an error naming the point.
//!
//! Running is a flat list of runs, one per (point, schedule), numbered in that order and run in
//! parallel (rayon); each gives a [`RunRecord`], and [`rows`] summarizes a point's records into
//! its [`PointRow`]. Every run is its own seeded simulation, so the records, and the rows, are
//! the same whatever the thread count; and a shard is a set of runs, so slices balance even
//! when a sweep has few points.

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sim_core::engine::{RunOptions, RunResult, run_workload_with};
use sim_core::profile::Profile;
use sim_core::trace::LoadedTrace;

use crate::ExperimentError;

/// The most points one sweep may have (traces times combinations).
pub const MAX_POINTS: u64 = 100_000;
/// The most seeded schedules a point may run.
pub const MAX_SCHEDULES: u64 = 10_000;
/// The most runs (points times schedules) one sweep may make.
pub const MAX_RUNS: u64 = 1_000_000;
/// The most values one varied field may take.
pub const MAX_VALUES: usize = 10_000;

/// A sweep file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Names the sweep in its outputs.
    pub name: String,
    /// What the sweep asks, for its readers.
    #[serde(default)]
    pub description: String,
    /// The base profile: a built-in name or a profile file (relative to the sweep file).
    pub profile: String,
    /// The traces, relative to the sweep file.
    pub traces: Vec<String>,
    /// Seeded schedules per point (default 1).
    #[serde(default = "one")]
    pub schedules: u64,
    /// The first seed (default 0).
    #[serde(default)]
    pub seed: u64,
    /// The fields varied, the first outermost.
    #[serde(default)]
    pub vary: Vec<Vary>,
}

fn one() -> u64 {
    1
}

/// One varied field.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vary {
    /// A dotted path into the profile (`machine.l2.cache.size_bytes`, `policies.execution_order`).
    pub field: String,
    /// The values it takes, in order.
    pub values: Vec<toml::Value>,
}

/// A loaded sweep: its spec, its traces and base profile, and a fingerprint of all of them.
pub struct Sweep {
    /// The spec as written.
    pub spec: SweepSpec,
    /// Where the spec came from, for messages.
    pub origin: String,
    /// The traces, in the spec's order.
    pub traces: Vec<LoadedTrace>,
    /// The base profile.
    pub base: Profile,
    /// Identifies the sweep's inputs (spec text, trace texts, base profile, gpusim's version),
    /// so that shards of different sweeps are never merged.
    pub fingerprint: String,
}

/// One point of a sweep: a trace and one value per varied field.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its number.
    pub index: usize,
    /// Index into [`Sweep::traces`].
    pub trace: usize,
    /// One value per varied field.
    pub values: Vec<toml::Value>,
}

/// What one point's runs came to: the row of the sweep's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointRow {
    /// The point's number.
    pub point: usize,
    /// The trace, as the sweep file names it.
    pub trace: String,
    /// The varied fields' values ([`value_text`]).
    pub values: Vec<String>,
    /// Seeded schedules run.
    pub schedules: u64,
    /// Schedules whose reads or final memory differed from the reference run.
    pub corrupted_schedules: u64,
    /// Cycles, fewest over the schedules.
    pub cycles_min: u64,
    /// Cycles, the median schedule's (the lower middle one for an even count).
    pub cycles_median: u64,
    /// Cycles, most over the schedules.
    pub cycles_max: u64,
    /// Stale reads, summed over the schedules.
    pub stale_reads: u64,
    /// Bytes of final memory that differed, summed over the schedules.
    pub corrupted_bytes: u64,
    /// Cycles sync nodes held their queue's later work (from when the action before each started
    /// to the node's release: draining, then its cache operations), summed over a run's nodes:
    /// the median schedule's.
    pub barrier_stall_cycles: u64,
    /// Bytes barriers and driver operations wrote back: the median schedule's.
    pub bytes_flushed: u64,
    /// Cache lines invalidations dropped: the median schedule's.
    pub lines_invalidated: u64,
    /// Hits and misses per kind of cache the machine has: those of the median schedule (the
    /// first, in seed order, whose cycles are `cycles_median`), so that they come from one run
    /// and its hit rate is a run's.
    pub caches: Vec<CacheCounts>,
}

/// Hits and misses of one kind of cache in one run, its instances (one per CU for the L1, T$
/// and U$) summed, as a run's report counts them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheCounts {
    /// The cache as a run's report names it: `L1`, `T$`, `U$`, `L2`, `ROP$`.
    pub cache: String,
    /// Lines reads and writes found ([`RunResult::caches`]).
    pub hits: u64,
    /// Lines reads and writes needed and did not find.
    pub misses: u64,
}

impl CacheCounts {
    /// Hits over accesses (hits and misses); `None` for a cache nothing accessed.
    pub fn hit_rate(&self) -> Option<f64> {
        let all = self.hits + self.misses;
        (all > 0).then(|| self.hits as f64 / all as f64)
    }
}

/// A run's hits and misses per kind of cache, in the order the machine lists its caches (L1,
/// T$, U$, L2, ROP$): each instance's (`L1[3]`) added to its kind's (`L1`).
pub fn cache_counts(r: &RunResult) -> Vec<CacheCounts> {
    let mut out: Vec<CacheCounts> = Vec::new();
    for (name, s) in &r.caches {
        let kind = name.split('[').next().unwrap_or(name);
        match out.iter_mut().find(|c| c.cache == kind) {
            Some(c) => {
                c.hits += s.hits();
                c.misses += s.misses();
            }
            None => out.push(CacheCounts { cache: kind.to_string(), hits: s.hits(), misses: s.misses() }),
        }
    }
    out
}

/// The numbers of one run of a sweep: the unit shards divide, and rows summarize.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's number: point × schedules + the schedule's offset from the first seed.
    pub run: u64,
    /// Simulated cycles.
    pub cycles: u64,
    /// Whether its reads or final memory differed from the reference run.
    pub corrupted: bool,
    /// Stale reads.
    pub stale_reads: u64,
    /// Bytes of final memory that differed.
    pub corrupted_bytes: u64,
    /// Cycles its sync nodes held their queue's later work: from when the action before each
    /// started to its release.
    pub stall: u64,
    /// Bytes its sync nodes wrote back.
    pub flushed: u64,
    /// Lines its invalidations dropped.
    pub invalidated: u64,
    /// Hits and misses per kind of cache ([`cache_counts`]).
    pub caches: Vec<CacheCounts>,
}

impl RunRecord {
    /// The record of run number `run`, whose result is `r`.
    pub fn of(run: u64, r: &RunResult) -> RunRecord {
        RunRecord {
            run,
            cycles: r.cycles,
            corrupted: r.corrupted(),
            stale_reads: r.stale_reads,
            corrupted_bytes: r.corrupted_bytes,
            stall: held_cycles(r),
            flushed: r.syncs.iter().flat_map(|s| &s.ops).map(|o| o.bytes_written_back).sum(),
            invalidated: r.caches.iter().map(|(_, c)| c.lines_invalidated).sum(),
            caches: cache_counts(r),
        }
    }
}

/// The cycles sync nodes held their queues' later work: per queue, the union of the intervals
/// from when each node was reached to its release (the separate nodes of one barrier command,
/// or a wait and the barrier after it, hold the queue at once and count once), summed over the
/// queues.
pub fn held_cycles(r: &RunResult) -> u64 {
    let mut spans: Vec<(usize, u64, u64)> = r.syncs.iter().map(|s| (s.queue, s.reached, s.released)).collect();
    spans.sort_unstable();
    let mut total = 0;
    let mut open: Option<(usize, u64, u64)> = None;
    for (q, start, end) in spans {
        match open {
            Some((oq, os, oe)) if oq == q && start <= oe => open = Some((oq, os, oe.max(end))),
            _ => {
                if let Some((_, os, oe)) = open {
                    total += oe - os;
                }
                open = Some((q, start, end));
            }
        }
    }
    total + open.map_or(0, |(_, s, e)| e - s)
}

/// What a row says of its point besides the numbers: the trace and the values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointMeta {
    /// The trace, as the sweep file names it.
    pub trace: String,
    /// The varied fields' values ([`value_text`]).
    pub values: Vec<String>,
}

/// The rows of a sweep whose points are `points`, each run `schedules` times, from every run's
/// record (`records`, all `points × schedules` of them, in run order).
pub fn rows(points: &[PointMeta], schedules: u64, records: &[RunRecord]) -> Vec<PointRow> {
    points
        .iter()
        .zip(records.chunks(schedules.max(1) as usize))
        .enumerate()
        .map(|(point, (meta, runs))| {
            let cycles: Vec<u64> = runs.iter().map(|r| r.cycles).collect();
            let median_cycles = median(cycles.clone());
            let median_run = runs.iter().find(|r| r.cycles == median_cycles);
            PointRow {
                point,
                trace: meta.trace.clone(),
                values: meta.values.clone(),
                schedules,
                corrupted_schedules: runs.iter().filter(|r| r.corrupted).count() as u64,
                cycles_min: cycles.iter().copied().min().unwrap_or(0),
                cycles_median: median_cycles,
                cycles_max: cycles.iter().copied().max().unwrap_or(0),
                stale_reads: runs.iter().map(|r| r.stale_reads).sum(),
                corrupted_bytes: runs.iter().map(|r| r.corrupted_bytes).sum(),
                barrier_stall_cycles: median(runs.iter().map(|r| r.stall).collect()),
                bytes_flushed: median(runs.iter().map(|r| r.flushed).collect()),
                lines_invalidated: median(runs.iter().map(|r| r.invalidated).collect()),
                caches: median_run.map(|r| r.caches.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

/// A value as a table shows it: a string bare, anything else as TOML writes it.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The median of `v` (the lower middle one for an even count); 0 for none.
fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

/// `line:col` (1-based) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.chars().count(), |i| before[i + 1..].chars().count()) + 1;
    (line, col)
}

impl Sweep {
    /// Reads and checks the sweep file at `path`, its traces and its base profile.
    pub fn load(path: &Path) -> Result<Sweep, ExperimentError> {
        let origin = path.display().to_string();
        let bytes = sim_core::io::read_capped(path, 1 << 20).map_err(|e| ExperimentError::new(&origin, format!("cannot read the sweep file: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| ExperimentError::new(&origin, format!("the sweep file is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
        Sweep::from_str(&text, &origin, path.parent().unwrap_or(Path::new("")))
    }

    /// Checks sweep `text` (from `origin`), its paths relative to `dir`.
    pub fn from_str(text: &str, origin: &str, dir: &Path) -> Result<Sweep, ExperimentError> {
        let spec: SweepSpec = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| line_col(text, s.start));
            let msg = e.message().to_string();
            match at {
                Some((l, c)) => ExperimentError::new(&format!("{origin}:{l}:{c}"), msg),
                None => ExperimentError::new(origin, msg),
            }
        })?;
        let err = |what: String| ExperimentError::new(origin, what);
        if spec.traces.is_empty() {
            return Err(err("traces: the sweep names no trace".into()));
        }
        if !(1..=MAX_SCHEDULES).contains(&spec.schedules) {
            return Err(err(format!("schedules: {} is not between 1 and {MAX_SCHEDULES}", spec.schedules)));
        }
        if spec.seed.checked_add(spec.schedules - 1).is_none() {
            return Err(err(format!("seed: {} + {} schedules runs past the largest seed", spec.seed, spec.schedules)));
        }
        let mut combinations: u64 = 1;
        for (i, v) in spec.vary.iter().enumerate() {
            if v.values.is_empty() || v.values.len() > MAX_VALUES {
                return Err(err(format!("vary[{i}].values: {} values; give 1 to {MAX_VALUES}", v.values.len())));
            }
            if v.field.split('.').any(str::is_empty) {
                return Err(err(format!("vary[{i}].field: `{}` is not a dotted path into the profile (`machine.l2.cache.size_bytes`)", v.field)));
            }
            if spec.vary[..i].iter().any(|w| w.field == v.field) {
                return Err(err(format!("vary[{i}].field: `{}` is varied twice", v.field)));
            }
            combinations = combinations.saturating_mul(v.values.len() as u64);
        }
        let points = combinations.saturating_mul(spec.traces.len() as u64);
        if points > MAX_POINTS {
            return Err(err(format!("the sweep has {points} points (traces times combinations of values); at most {MAX_POINTS}")));
        }
        if points * spec.schedules > MAX_RUNS {
            return Err(err(format!("the sweep makes {} runs ({points} points of {} schedules); at most {MAX_RUNS}", points * spec.schedules, spec.schedules)));
        }
        let base = if Profile::builtin(&spec.profile).is_some() {
            Profile::load(&spec.profile)
        } else {
            Profile::load(&dir.join(&spec.profile).display().to_string())
        }
        .map_err(|e| err(format!("profile: {e}")))?;
        let mut traces = Vec::with_capacity(spec.traces.len());
        let mut parts: Vec<Vec<u8>> = vec![b"gpusim sweep 1".to_vec(), env!("CARGO_PKG_VERSION").as_bytes().to_vec(), text.as_bytes().to_vec(), base.to_toml_string().into_bytes()];
        for (i, t) in spec.traces.iter().enumerate() {
            let loaded = sim_core::trace::load(&dir.join(t)).map_err(|e| err(format!("traces[{i}]: {e}")))?;
            parts.push(loaded.text.clone().into_bytes());
            traces.push(loaded);
        }
        let fingerprint = crate::fingerprint(&parts.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let sweep = Sweep { spec, origin: origin.to_string(), traces, base, fingerprint };
        // Every combination must make a valid profile: found now, not after hours of runs.
        for p in sweep.points().iter().filter(|p| p.trace == 0) {
            sweep.profile_of(p)?;
        }
        Ok(sweep)
    }

    /// How many combinations of the varied fields' values there are (1 when none is varied);
    /// checked at load to keep the points within [`MAX_POINTS`].
    pub fn combinations(&self) -> usize {
        self.spec.vary.iter().map(|v| v.values.len()).product()
    }

    /// Every point, in order.
    pub fn points(&self) -> Vec<Point> {
        let lens: Vec<usize> = self.spec.vary.iter().map(|v| v.values.len()).collect();
        let combinations = self.combinations();
        let mut out = Vec::with_capacity(self.traces.len() * combinations);
        for trace in 0..self.traces.len() {
            for c in 0..combinations {
                // The first varied field outermost: decode `c` in mixed radix, last field fastest.
                let mut rest = c;
                let mut values = vec![toml::Value::Boolean(false); lens.len()];
                for (k, &n) in lens.iter().enumerate().rev() {
                    values[k] = self.spec.vary[k].values[rest % n].clone();
                    rest /= n;
                }
                out.push(Point { index: out.len(), trace, values });
            }
        }
        out
    }

    /// The profile of point `p`: the base with `p`'s values set.
    pub fn profile_of(&self, p: &Point) -> Result<Profile, ExperimentError> {
        if self.spec.vary.is_empty() {
            return Ok(self.base.clone());
        }
        let what = self.point_text(p);
        let err = |m: String| ExperimentError::new(&self.origin, format!("point {} ({what}): {m}", p.index));
        let mut doc: toml::Table = toml::from_str(&self.base.to_toml_string()).map_err(|e| err(format!("cannot read the base profile back: {e}")))?;
        for (v, value) in self.spec.vary.iter().zip(&p.values) {
            let keys: Vec<&str> = v.field.split('.').collect();
            let (leaf, parents) = keys.split_last().expect("a checked path has a key");
            let mut table = &mut doc;
            for (depth, k) in parents.iter().enumerate() {
                table = match table.get_mut(*k) {
                    Some(toml::Value::Table(t)) => t,
                    _ => return Err(err(format!("`{}` is not a table of the profile", keys[..=depth].join(".")))),
                };
            }
            table.insert((*leaf).to_string(), value.clone());
        }
        doc.insert("base".into(), toml::Value::String("none".into()));
        let text = toml::to_string(&doc).map_err(|e| err(format!("cannot write the profile: {e}")))?;
        Profile::from_toml_str(&text, &self.origin).map_err(|e| err(if e.field.is_empty() { e.message } else { format!("{}: {}", e.field, e.message) }))
    }

    /// `field = value, ...` of point `p`.
    pub fn point_text(&self, p: &Point) -> String {
        self.spec.vary.iter().zip(&p.values).map(|(v, x)| format!("{} = {x}", v.field)).collect::<Vec<_>>().join(", ")
    }

    /// Runs the runs `keep` selects (by run number: point × schedules + offset of the seed),
    /// in parallel; `tick` is called after every run (from any thread). The records come in run
    /// order.
    pub fn run(&self, keep: impl Fn(usize) -> bool, tick: impl Fn() + Sync) -> Result<Vec<RunRecord>, ExperimentError> {
        let points = self.points();
        let n = self.spec.schedules;
        let runs: Vec<u64> = (0..points.len() as u64 * n).filter(|&r| keep(r as usize)).collect();
        // Each combination's profile, made once for every trace, for the combinations some kept
        // run belongs to (the points go trace by trace over the combinations).
        let combinations = self.combinations();
        let mut profiles: Vec<Option<Profile>> = vec![None; combinations];
        for &r in &runs {
            let k = (r / n) as usize;
            if profiles[k % combinations].is_none() {
                profiles[k % combinations] = Some(self.profile_of(&points[k])?);
            }
        }
        let options = RunOptions::default();
        runs.par_iter()
            .map(|&r| {
                let p = &points[(r / n) as usize];
                let t = &self.traces[p.trace];
                let seed = self.spec.seed + r % n;
                let profile = profiles[p.index % combinations].as_ref().expect("made above");
                let out = run_workload_with(&t.workload, profile, seed, &options)
                    .map(|res| RunRecord::of(r, &res))
                    .map_err(|e| ExperimentError::new(&self.origin, format!("point {} ({}, seed {seed}): {}", p.index, self.point_text(p), t.locate_engine_error(&e))));
                tick();
                out
            })
            .collect()
    }

    /// What each point's row says besides its numbers, in point order.
    pub fn point_meta(&self) -> Vec<PointMeta> {
        self.points().iter().map(|p| PointMeta { trace: self.spec.traces[p.trace].clone(), values: p.values.iter().map(value_text).collect() }).collect()
    }

    /// Every run of the sweep (points × schedules).
    pub fn run_count(&self) -> u64 {
        (self.traces.len() * self.combinations()) as u64 * self.spec.schedules
    }

    /// The varied fields, in order.
    pub fn fields(&self) -> Vec<String> {
        self.spec.vary.iter().map(|v| v.field.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(run: u64, cycles: u64, l2_hits: u64) -> RunRecord {
        RunRecord { run, cycles, corrupted: false, stale_reads: 0, corrupted_bytes: 0, stall: 0, flushed: 0, invalidated: 0, caches: vec![CacheCounts { cache: "L2".into(), hits: l2_hits, misses: 10 }] }
    }

    #[test]
    fn a_rows_cache_counts_are_its_median_schedules() {
        let meta = [PointMeta { trace: "t.json".into(), values: vec![] }];
        // Cycles 9, 5, 7, 5: the median is 5, whose first run in seed order is run 1.
        let row = &rows(&meta, 4, &[record(0, 9, 1), record(1, 5, 2), record(2, 7, 3), record(3, 5, 4)])[0];
        assert_eq!(row.cycles_median, 5);
        assert_eq!(row.caches, [CacheCounts { cache: "L2".into(), hits: 2, misses: 10 }]);
        assert_eq!(row.caches[0].hit_rate(), Some(2.0 / 12.0));
        assert_eq!(CacheCounts { cache: "L1".into(), hits: 0, misses: 0 }.hit_rate(), None);
    }
}
