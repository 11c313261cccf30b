//! `gpusim run TRACE`: loads a trace, runs it on a profile for one seed or many, and reports.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rayon::prelude::*;
use sim_core::engine::{MAX_TIMELINE_WORKGROUPS, RunLimits, RunOptions, RunResult, run_workload_with};
use sim_core::profile::Profile;
use sim_core::trace::{LoadedTrace, TraceError};

use sim_experiments::shard::{RunShardFile, Shard};

use super::CliError;
use super::report::{Invocation, Schedules, corrupted, found_something, json_report, text_report};

/// The most schedules one `--schedules` may ask for.
pub const MAX_SCHEDULES: u64 = 100_000;

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For a person.
    Text,
    /// The JSON report of docs/TRACE_FORMAT.md.
    Json,
}

/// Arguments of `gpusim run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The trace (JSON, format version 1: docs/TRACE_FORMAT.md), or a GFXReconstruct capture
    /// (`.gfxr`), imported in memory as `gpusim import` would write it.
    pub trace: PathBuf,
    /// A built-in profile name (`gpusim profile list`) or a profile file (TOML); `all`: every
    /// built-in profile, as a matrix of profiles by hazards.
    #[arg(long, default_value = "seed-vram")]
    pub profile: String,
    /// The seed of the run (the first seed with --schedules).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = super::seed_value)]
    pub seed: u64,
    /// Run this many seeds (seed, seed+1, ...) in parallel and report the first that corrupted.
    #[arg(long, default_value_t = 1)]
    pub schedules: u64,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Format,
    /// Write a Chrome trace-event timeline (opens in Perfetto) of the reported run.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Write every image of the reported run (its first level and layer) into this directory
    /// as PNG: simulated, reference, a difference heat map, and the compressed tiles' states.
    #[arg(long)]
    pub pictures: Option<PathBuf>,
    /// List every stale read under its mistake in the text report.
    #[arg(long)]
    pub verbose: bool,
    /// Write report.json, report.txt and timeline.json into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run the schedule directed at this hazard (its index in the report, H1 = 0), as a report
    /// names it, with --seed: to re-run the schedule that showed a corruption.
    #[arg(long)]
    pub direct_at_hazard: Option<usize>,
    /// List at most this many runs of differing final bytes (the rest are counted; the JSON
    /// says `final_memory_truncated`).
    #[arg(long, default_value_t = sim_core::engine::MAX_MEMORY_DIFFERENCES)]
    pub max_memory_differences: usize,
    /// Where a run stops.
    #[command(flatten)]
    pub budgets: Budgets,
    /// Run only slice I of N of the --schedules seeds (from 0; every N-th seed in an order
    /// fixed by a hash) and write OUT/run-shard-I-of-N.json for `gpusim merge`, which
    /// writes the report this run would have (needs --out).
    #[arg(long, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// The budgets of a run (`gpusim run`, `gpusim graph`): where it is stopped.
#[derive(Args, Debug)]
pub struct Budgets {
    /// Stop a run that goes past this many simulated cycles (at most 2^40).
    #[arg(long, default_value_t = RunLimits::default().max_cycles)]
    pub max_cycles: u64,
    /// Stop a run whose shaders execute more than this many instructions (summed over
    /// subgroups), in the reference run or the simulated one.
    #[arg(long, default_value_t = RunLimits::default().max_instructions)]
    pub max_instructions: u64,
    /// Refuse a trace whose transfer commands move more than this many bytes over all their
    /// submissions.
    #[arg(long, default_value_t = RunLimits::default().max_transfer_bytes)]
    pub max_transfer_bytes: u64,
}

impl Budgets {
    /// The run's budgets, checked.
    pub fn limits(&self) -> Result<RunLimits, CliError> {
        let limits = RunLimits { max_cycles: self.max_cycles, max_instructions: self.max_instructions, max_transfer_bytes: self.max_transfer_bytes };
        // The engine's check, with the field named as its flag.
        limits.validate().map_err(|(field, message)| format!("--{} {message}", field.replace('_', "-")))?;
        Ok(limits)
    }
}

/// An error that is the trace's fault, already located.
fn trace_err(e: TraceError) -> CliError {
    Box::new(e)
}

/// Runs one seed; an engine error becomes a located trace error.
pub fn run_one(t: &LoadedTrace, p: &Profile, seed: u64, options: &RunOptions) -> Result<RunResult, CliError> {
    run_workload_with(&t.workload, p, seed, options).map_err(|e| trace_err(t.locate_engine_error(&e)))
}

/// Runs `count` seeds from `seed` in parallel; returns the run to report and the summary.
/// The result is the same whatever the number of threads: every seed is its own run, the
/// summary is collected in seed order, and the reported run is re-run by itself. Only the
/// reported run records what `options` asks for beyond its budgets.
pub fn run_schedules(t: &LoadedTrace, p: &Profile, seed: u64, count: u64, options: &RunOptions) -> Result<(RunResult, Schedules), CliError> {
    let (r, s) = seeded_schedules(t, p, seed, count, options)?;
    direct_at_hazards(t, p, options, r, s)
}

/// The most hazards a run directs schedules at.
pub const MAX_DIRECTED: usize = 16;

/// When the seeded schedules showed no corruption but the program has hazards whose bytes can
/// differ, runs one schedule directed at each of them with the first seed (`hold`, `prime` or
/// `delay`, as the program leaves the freedom: docs/SCHEDULES.md), and reports the first that
/// corrupts; of the others, why not.
fn direct_at_hazards(t: &LoadedTrace, p: &Profile, options: &RunOptions, r: RunResult, mut s: Schedules) -> Result<(RunResult, Schedules), CliError> {
    s.unchangeable = unchangeable(t, p, &r, options);
    if corrupted(&r) || r.hazards.is_empty() {
        return Ok((r, s));
    }
    // Only hazards that can change a byte are worth a schedule.
    let can_show: Vec<usize> = (0..r.hazards.len()).filter(|&k| s.unchangeable.get(k).copied().flatten().is_none()).collect();
    if can_show.is_empty() {
        return Ok((r, s));
    }
    s.not_shown = vec![None; r.hazards.len()];
    for &k in can_show.iter().take(MAX_DIRECTED) {
        let directed = RunOptions { directed: Some(k), ..*options };
        // A schedule the program cannot take (it would deadlock) is skipped.
        let d = run_workload_with(&t.workload, p, s.seed, &directed).ok().filter(|d| d.directed.is_some());
        let Some(d) = d else {
            s.not_shown[k] = Some(not_shown(&t.workload, p, &r, k));
            continue;
        };
        s.directed_tried += 1;
        if corrupted(&d) {
            s.directed = Some(k);
            s.not_shown.clear();
            return Ok((d, s));
        }
        s.not_shown[k] = Some(not_shown(&t.workload, p, &d, k));
    }
    // Nothing here: the built-in machine on which the hazards do corrupt, if any.
    s.corrupts_on = corrupts_elsewhere(t, p, s.seed, options, &can_show);
    Ok((r, s))
}

/// Why the run `r` (seeded, or directed at hazard `k`) did not show hazard `k` on `p`: how it
/// was directed, and the cache operations performed between the hazard's two accesses, which
/// brought the write to where the read looks (or the old bytes out of the reader's cache).
pub(crate) fn not_shown(w: &sim_core::api::Workload, p: &Profile, r: &RunResult, k: usize) -> String {
    use sim_core::engine::Direction;
    use sim_core::hazard::Place;
    let h = &r.hazards[k];
    // A host read of memory the host does not cache: nothing holds old bytes for the missing
    // invalidate to drop.
    if h.id == "GPUSIM-HOST-MISSING-INVALIDATE" && w.memories.iter().any(|m| m.name == h.resource && !m.properties.host_cached) {
        return format!(
            "on {}, {} is not HOST_CACHED, so the host reads it uncached, straight from memory, and no host cache holds old bytes for the missing invalidate to drop; the hazard shows where the host caches it (HOST_VISIBLE|HOST_CACHED: examples/traces/host-cached-readback-missing-invalidate.json)",
            p.name, h.resource
        );
    }
    // Contents a transition from UNDEFINED discarded: no order or cache decides it, the
    // profile's rows for the transition do.
    if let Some(d) = &h.discarded {
        let compressed = w.images.iter().find(|im| im.name == d.image).is_some_and(|im| sim_core::engine::compression::compressible(im, p));
        let why = if compressed { format!("{}'s rows for the transition do no work on its tiles", p.name) } else { format!("{} does not compress it", p.name) };
        return format!(
            "on {}, the transition from UNDEFINED leaves image `{}`'s bytes as they were ({why}), so its contents happen to survive; a machine that initializes compression metadata at that transition reads the compressed tiles as garbage",
            p.name, d.image
        );
    }
    let span = |at: &Place| match at {
        Place::Command(c) => r.spans.iter().find(|s| &s.0 == c).map(|s| (s.1, s.2)),
        Place::Host { .. } => None,
    };
    let from = span(&h.prior).map_or(0, |s| s.0);
    let to = span(&h.at).map_or(u64::MAX, |s| s.0);
    let mut ops: Vec<String> = Vec::new();
    for y in r.syncs.iter().filter(|y| y.fired >= from && y.fired <= to && !y.ops.is_empty()) {
        let list: Vec<String> = y.ops.iter().map(|o| super::timeline::cache_op_text(&o.op)).collect();
        ops.push(format!("{} did {}", y.label, list.join(", ")));
    }
    // What the write needs to be made available on this machine: where that is nothing, or
    // the second scope's operations did it too, a missing srcAccessMask loses nothing here.
    let device_pair = matches!((&h.prior, &h.at), (Place::Command(_), Place::Command(_)));
    let available = if device_pair && h.prior_usage.is_write() && !h.usage.is_write() {
        let first = p.barriers.ops_text(h.prior_usage, sim_core::sync::Scope::First);
        if p.barriers.ops_for(h.prior_usage, sim_core::sync::Scope::First).is_empty() {
            format!(
                "; {} needs no operation to be made available on {} (its first-scope row is empty: the write goes on to the level the read looks in), so leaving it out of srcAccessMask loses nothing here; a machine whose write-back cache holds writes until a first scope flushes them shows it (examples/profiles/seed-l2-write-back-l1.toml)",
                h.prior_usage, p.name
            )
        } else if [p.machine.cu.l1.as_ref(), p.machine.l2.cache.as_ref()].into_iter().flatten().all(|c| c.dirty_on_invalidate == sim_caches::DirtyOnInvalidate::Flush) {
            format!("; {} is made available by {first} on {}, and an invalidate there writes dirty lines back before it drops them, so the operations between the two made it available all the same", h.prior_usage, p.name)
        } else {
            format!("; {} is made available by {first} on {}", h.prior_usage, p.name)
        }
    } else {
        String::new()
    };
    let between = if ops.is_empty() && h.prior_usage.is_write() {
        "no cache operation was needed between the two: the write and the read meet at the same level".to_string()
    } else if ops.is_empty() {
        // A read before a write shows only if the read sees the later write.
        "no cache operation came between the two, and the read did not see the write: the write came after it, or stayed in a cache the read does not go through".to_string()
    } else {
        format!("between the two, {}", ops.join("; "))
    };
    let between = format!("{between}{available}");
    match r.direction {
        Some(Direction::Prime { cache }) => format!("on {}, a schedule that left the bytes from before the write in every CU's {cache} showed nothing: {between}", p.name),
        Some(Direction::Delay) => format!("on {}, a schedule that held the earlier command's writes in flight until the later one was done showed nothing: {between}", p.name),
        Some(Direction::Hold) => format!("on {}, a schedule that held the earlier command until the later one was done showed nothing: {between}", p.name),
        None => format!(
            "on {}, no schedule can be directed at it (one access is the host's; or the two are ordered, the read goes through no cache of its own that could keep old bytes, and the earlier write cannot be held in flight): {between}",
            p.name
        ),
    }
}

/// Per hazard of `r`: why no order can change a byte through it ([`sim_core::engine::unchangeable_hazards`]);
/// all `None` (each may show) when that run cannot be made.
pub(crate) fn unchangeable(t: &LoadedTrace, p: &Profile, r: &RunResult, options: &RunOptions) -> Vec<Option<&'static str>> {
    sim_core::engine::unchangeable_hazards(&t.workload, p, &r.hazards, &options.limits).unwrap_or_else(|_| vec![None; r.hazards.len()])
}

/// The first other built-in profile on which the program corrupts with `seed`, seeded or with a
/// schedule directed at one of its hazards: (profile, directed hazard).
fn corrupts_elsewhere(t: &LoadedTrace, p: &Profile, seed: u64, options: &RunOptions, hazards: &[usize]) -> Option<(String, Option<usize>)> {
    for name in Profile::builtin_names().into_iter().filter(|n| *n != p.name) {
        let other = Profile::builtin(name)?;
        let plain = RunOptions { workgroup_spans: 0, pictures: false, ..*options };
        if run_workload_with(&t.workload, &other, seed, &plain).is_ok_and(|r| corrupted(&r)) {
            return Some((name.to_string(), None));
        }
        for &k in hazards.iter().take(MAX_DIRECTED) {
            let directed = RunOptions { directed: Some(k), ..plain };
            if run_workload_with(&t.workload, &other, seed, &directed).is_ok_and(|r| r.directed.is_some() && corrupted(&r)) {
                return Some((name.to_string(), Some(k)));
            }
        }
    }
    None
}

/// Checks that `count` seeds from `seed` can run.
fn check_seeds(seed: u64, count: u64) -> Result<(), CliError> {
    if count == 0 || count > MAX_SCHEDULES {
        return Err(format!("--schedules {count} is not between 1 and {MAX_SCHEDULES}").into());
    }
    // The last seed run is seed + count - 1, which may be u64::MAX itself.
    if seed.checked_add(count - 1).is_none() {
        return Err(format!("--seed {seed} + --schedules {count} runs past the largest seed, {}", u64::MAX).into());
    }
    Ok(())
}

/// [`run_schedules`] without the directed schedules.
pub(crate) fn seeded_schedules(t: &LoadedTrace, p: &Profile, seed: u64, count: u64, options: &RunOptions) -> Result<(RunResult, Schedules), CliError> {
    check_seeds(seed, count)?;
    if count == 1 {
        let r = run_one(t, p, seed, options)?;
        let corrupt = corrupted(&r);
        return Ok((r, Schedules { seed, count, corrupt: corrupt as u64, corrupt_seed: corrupt.then_some(seed), directed_tried: 0, directed: None, corrupts_on: None, unchangeable: Vec::new(), not_shown: Vec::new() }));
    }
    let outcomes = survey(t, p, seed, count, Shard::ALL, options)?;
    from_survey(t, p, seed, count, &outcomes, options)
}

/// Runs the seeds of `seed .. seed + count` that `shard` holds ([`Shard::members`]) in parallel, without the reported run's extras: (seed, whether it corrupted),
/// in seed order.
pub fn survey(t: &LoadedTrace, p: &Profile, seed: u64, count: u64, shard: Shard, options: &RunOptions) -> Result<Vec<(u64, bool)>, CliError> {
    let seeds: Vec<u64> = shard.items(count as usize).into_iter().map(|i| seed + i as u64).collect();
    let bar = super::progress(seeds.len() as u64, "schedules");
    let plain = RunOptions { workgroup_spans: 0, pictures: false, ..*options };
    let outcomes: Vec<Result<(u64, bool), String>> = seeds
        .into_par_iter()
        .map(|s| {
            let r = run_workload_with(&t.workload, p, s, &plain).map(|r| (s, corrupted(&r))).map_err(|e| t.locate_engine_error(&e).to_string());
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    outcomes.into_iter().map(|o| o.map_err(CliError::from)).collect()
}

/// The reported run and the summary of `count` seeds from `seed`, given whether each corrupted
/// (`outcomes`, every seed once, in order): the first that corrupted is re-run with what
/// `options` records, else the first seed.
pub fn from_survey(t: &LoadedTrace, p: &Profile, seed: u64, count: u64, outcomes: &[(u64, bool)], options: &RunOptions) -> Result<(RunResult, Schedules), CliError> {
    let corrupt = outcomes.iter().filter(|o| o.1).count() as u64;
    let first = outcomes.iter().find(|o| o.1).map(|o| o.0);
    let r = run_one(t, p, first.unwrap_or(seed), options)?;
    Ok((r, Schedules { seed, count, corrupt, corrupt_seed: first, directed_tried: 0, directed: None, corrupts_on: None, unchangeable: Vec::new(), not_shown: Vec::new() }))
}

/// Writes the report of the exploration whose merged shards are `m` (every seed's outcome), as
/// `gpusim run TRACE --schedules N --out OUT` writes it: the trace and profile are loaded again
/// and must be the ones the shards ran.
pub fn report_merged(m: &RunShardFile, report: Format, out: &std::path::Path) -> Result<ExitCode, CliError> {
    let t = super::import::load_trace(std::path::Path::new(&m.trace))?;
    let p = Profile::load(&m.profile)?;
    if run_fingerprint(&t, &p, m) != m.fingerprint {
        return Err(format!("the trace {} or the profile {} (or gpusim) is not what the shards ran: merge where they ran, with the same files", m.trace, m.profile).into());
    }
    let limits = RunLimits { max_cycles: m.max_cycles, max_instructions: m.max_instructions, max_transfer_bytes: m.max_transfer_bytes };
    limits.validate().map_err(|(field, message)| format!("{field} {message}"))?;
    let options = RunOptions { workgroup_spans: MAX_TIMELINE_WORKGROUPS, limits, max_memory_differences: m.max_memory_differences, pictures: false, directed: None };
    check_seeds(m.seed, m.schedules)?;
    let (r, s) = from_survey(&t, &p, m.seed, m.schedules, &m.outcomes, &options)?;
    let (r, s) = direct_at_hazards(&t, &p, &options, r, s)?;
    let inv = Invocation { trace: m.trace.clone(), profile: m.profile.clone(), verbose: false };
    emit(&t, &p, &r, &s, &inv, report, None, Some(out))
}

/// Runs `gpusim run ...`.
pub fn run(args: RunArgs) -> Result<ExitCode, CliError> {
    let limits = args.budgets.limits()?;
    if let Some(path) = &args.timeline {
        super::check_output_file(path, "--timeline")?;
    }
    let t = super::import::load_trace(&args.trace)?;
    let inv = Invocation { trace: args.trace.display().to_string(), profile: args.profile.clone(), verbose: args.verbose };
    if args.profile == "all" {
        if args.shard.is_some() || args.out.is_some() || args.timeline.is_some() || args.direct_at_hazard.is_some() || args.pictures.is_some() {
            return Err("--profile all prints a matrix of every built-in profile; --shard, --out, --timeline, --pictures and --direct-at-hazard belong to a run on one profile".into());
        }
        check_seeds(args.seed, args.schedules)?;
        let options = RunOptions { workgroup_spans: 0, limits, max_memory_differences: args.max_memory_differences, pictures: false, directed: None };
        return super::matrix::run(&t, &inv, args.seed, args.schedules, &options, args.report);
    }
    let p = Profile::load(&args.profile)?;
    let wants_timeline = args.timeline.is_some() || args.out.is_some();
    let options = RunOptions {
        workgroup_spans: if wants_timeline { MAX_TIMELINE_WORKGROUPS } else { 0 },
        limits,
        max_memory_differences: args.max_memory_differences,
        pictures: args.pictures.is_some(),
        directed: None,
    };
    if let Some(shard) = args.shard {
        let Some(out) = &args.out else {
            return Err("--shard writes its slice for `gpusim merge`: give --out DIR".into());
        };
        if args.direct_at_hazard.is_some() || args.timeline.is_some() || args.pictures.is_some() {
            return Err("--shard surveys seeds; --direct-at-hazard, --timeline and --pictures belong to the merged run".into());
        }
        check_seeds(args.seed, args.schedules)?;
        let outcomes = survey(&t, &p, args.seed, args.schedules, shard, &options)?;
        let mut file = RunShardFile {
            gpusim_run_shard: 1,
            trace: args.trace.display().to_string(),
            profile: args.profile.clone(),
            fingerprint: String::new(),
            seed: args.seed,
            schedules: args.schedules,
            max_memory_differences: args.max_memory_differences,
            max_cycles: limits.max_cycles,
            max_instructions: limits.max_instructions,
            max_transfer_bytes: limits.max_transfer_bytes,
            shard: shard.index,
            shards: shard.count,
            outcomes,
        };
        file.fingerprint = run_fingerprint(&t, &p, &file);
        std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        let path = out.join(format!("run-shard-{}-of-{}.json", shard.index, shard.count));
        std::fs::write(&path, serde_json::to_string_pretty(&file)? + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let corrupt = file.outcomes.iter().filter(|o| o.1).count();
        super::print_out(&format!("shard {}/{} of {} seeds: {} run, {corrupt} corrupted\nwrote {}\n", shard.index, shard.count, args.schedules, file.outcomes.len(), path.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (r, s) = match args.direct_at_hazard {
        Some(k) => {
            if args.schedules != 1 {
                return Err("--direct-at-hazard runs one schedule: give --seed, not --schedules".into());
            }
            let r = run_one(&t, &p, args.seed, &RunOptions { directed: Some(k), ..options })?;
            if r.directed.is_none() {
                return Err(format!("--direct-at-hazard {k}: the program has no such hazard, or it leaves no freedom a schedule on this machine can use (one of its accesses is a host operation; or the two are ordered, the read goes through no cache that could hold old bytes, and the earlier write cannot be held in flight: docs/SCHEDULES.md)").into());
            }
            // The counters cover seeded schedules, as when a run directs itself.
            let s = Schedules { seed: args.seed, count: 1, corrupt: 0, corrupt_seed: None, directed_tried: 1, directed: Some(k), corrupts_on: None, unchangeable: unchangeable(&t, &p, &r, &options), not_shown: Vec::new() };
            (r, s)
        }
        None => run_schedules(&t, &p, args.seed, args.schedules, &options)?,
    };
    let code = emit(&t, &p, &r, &s, &inv, args.report, args.timeline.as_deref(), args.out.as_deref())?;
    if let Some(dir) = &args.pictures {
        let files = super::pictures::write(dir, &r.pictures)?;
        // Images first, then the buffers the trace says hold texels.
        let w = &t.workload;
        let views = w.buffers.iter().filter(|b| b.picture.is_some()).count();
        let shown_buffers = r.pictures.iter().filter(|p| w.buffers.iter().any(|b| b.picture.is_some() && b.name == p.image)).count();
        let shown_images = r.pictures.len() - shown_buffers;
        let what = if views == 0 { format!("{shown_images} image(s)") } else { format!("{shown_images} image(s) and {shown_buffers} buffer(s)") };
        let left_out = w.images.len() + views - r.pictures.len();
        let note = match (w.images.len() + views, files.len()) {
            (0, _) => "note: --pictures: the trace has no images (and no buffer with an `image_view`)".to_string(),
            (_, k) if left_out > 0 => format!("wrote {k} pictures of {what} to {}; {left_out} larger than {} texels are left out", dir.display(), sim_core::engine::compression::MAX_PICTURE_TEXELS),
            (_, k) => format!("wrote {k} pictures of {what} to {}", dir.display()),
        };
        super::print_err(&note);
    }
    Ok(code)
}

/// What identifies a sharded exploration: the trace's text, the profile, gpusim's version and
/// every argument the report depends on.
pub fn run_fingerprint(t: &LoadedTrace, p: &Profile, f: &RunShardFile) -> String {
    let numbers = format!("{} {} {} {} {} {}", f.seed, f.schedules, f.max_memory_differences, f.max_cycles, f.max_instructions, f.max_transfer_bytes);
    sim_experiments::fingerprint(&[b"gpusim run 1", env!("CARGO_PKG_VERSION").as_bytes(), t.text.as_bytes(), p.to_toml_string().as_bytes(), numbers.as_bytes()])
}

/// Prints the report of run `r` (summary `s`) and writes what the options ask for: the
/// timeline, and report.json, report.txt and timeline.json into `out`. The exit status says
/// whether anything was found.
#[allow(clippy::too_many_arguments)]
pub fn emit(t: &LoadedTrace, p: &Profile, r: &RunResult, s: &Schedules, inv: &Invocation, report: Format, timeline: Option<&std::path::Path>, out: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    let wants_timeline = timeline.is_some() || out.is_some();
    let json = json_report(&t.workload, &t.name, r, s);
    let json_text = serde_json::to_string_pretty(&json)?;
    let text = text_report(&t.workload, &t.name, r, s, inv);
    match report {
        Format::Json => super::print_out(&format!("{json_text}\n"))?,
        Format::Text => super::print_out(&text)?,
    }
    if let Some(path) = timeline {
        super::timeline::write_chrome_trace(path, &t.workload, p, r)?;
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let write = |name: &str, body: &str| std::fs::write(dir.join(name), body).map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()));
        write("report.json", &json_text)?;
        write("report.txt", &text)?;
        super::timeline::write_chrome_trace(&dir.join("timeline.json"), &t.workload, p, r)?;
    }
    if r.workgroups_not_recorded > 0 && wants_timeline {
        super::print_err(&format!(
            "note: the timeline shows the first {} workgroups; {} more ran and are only counted (otherData.workgroups_not_recorded)",
            r.workgroups.len(),
            r.workgroups_not_recorded
        ));
    }
    Ok(ExitCode::from(if found_something(r) { 1 } else { 0 }))
}
