//! `gpusim strategies`: a task graph's synchronization placed by every strategy, each proven
//! correct, then timed on every built-in profile, or on the profiles `--profile` names.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim_core::api::{Command, HostOp};
use sim_core::profile::Profile;
use sim_experiments::chart::{Axis, BarChart, Scale, Units};
use sim_experiments::output::csv_field;
use sim_experiments::strategy::{Strategy, TaskGraph, Verdict, prove};
use sim_experiments::sweep::RunRecord;

use super::{CliError, print_out};

/// The most seeded schedules per profile a proof or a timing may ask for.
const MAX_SCHEDULES: u64 = 1000;

/// `gpusim strategies TASKGRAPH [--out DIR] [--profile NAME|FILE]... [--prove-schedules N]
/// [--schedules N]`.
#[derive(Args, Debug)]
pub struct StrategiesArgs {
    /// The task graph: a trace whose one submission runs one command buffer of passes with no
    /// synchronization between them (docs/STRATEGIES.md).
    pub taskgraph: PathBuf,
    /// Where to write strategies.csv, the charts (cycles.svg, barrier_stall_cycles.svg,
    /// bytes_flushed.svg) and each strategy's trace (traces/). Default: strategies-NAME in the
    /// current directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A profile to prove and time the strategies on: a built-in name (`gpusim profile list`) or
    /// a profile file (TOML), as `gpusim run --profile` takes it; repeat for more, each a group
    /// of the charts and a column of the table. Default: every built-in profile.
    #[arg(long = "profile", value_name = "NAME|FILE")]
    pub profiles: Vec<String>,
    /// Seeded schedules per profile that must be clean for a strategy to be proven.
    #[arg(long, default_value_t = 4)]
    pub prove_schedules: u64,
    /// Seeded schedules per profile a proven strategy is timed over (the median run is kept).
    #[arg(long, default_value_t = 3)]
    pub schedules: u64,
}

/// Runs `gpusim strategies ...`.
pub fn run(args: StrategiesArgs) -> Result<ExitCode, CliError> {
    for (flag, n) in [("--prove-schedules", args.prove_schedules), ("--schedules", args.schedules)] {
        if !(1..=MAX_SCHEDULES).contains(&n) {
            return Err(format!("{flag} {n} is not between 1 and {MAX_SCHEDULES}").into());
        }
    }
    let profiles = profiles(&args.profiles)?;
    let g = TaskGraph::load(&args.taskgraph)?;
    let out = args.out.unwrap_or_else(|| PathBuf::from(format!("strategies-{}", g.trace.name)));
    let traces_dir = out.join("traces");
    std::fs::create_dir_all(&traces_dir).map_err(|e| format!("{}: cannot make the directory: {e}", traces_dir.display()))?;
    let mut csv = String::from("strategy,profile,verdict,cycles,barrier_stall_cycles,bytes_flushed,lines_invalidated,sync_commands\n");
    let mut text = String::new();
    let _ = writeln!(text, "gpusim strategies: task graph `{}`, {} passes and the host's reads, {} dependencies", g.trace.name, g.passes.len() - 1, g.deps.len());
    let which = if args.profiles.is_empty() { "built-in profiles" } else { "profiles" };
    let _ = writeln!(text, "proven: no hazard, and {} seeded schedules clean on each of {} {which}; cycles: median of {}\n", args.prove_schedules, profiles.len(), args.schedules);
    let _ = write!(text, "{:<16} {:>5}", "strategy", "syncs");
    // A column as wide as its profile's name, for a profile file's longer ones.
    let widths: Vec<usize> = profiles.iter().map(|p| p.name.chars().count().max(12)).collect();
    for (p, w) in profiles.iter().zip(&widths) {
        let _ = write!(text, " {:>w$}", p.name);
    }
    let _ = writeln!(text);
    // Per strategy, its timing on each profile; `None` for a wrong one.
    let mut timed: Vec<(Strategy, Option<Vec<RunRecord>>)> = Vec::new();
    let mut wrong = 0;
    for s in Strategy::ALL {
        let mut json = s.apply(&g);
        let path = traces_dir.join(format!("{}-{}.json", g.trace.name, s.name()));
        super::fix::rebase_files(&mut json, &args.taskgraph, &path);
        let body = serde_json::to_string_pretty(&json)? + "\n";
        std::fs::write(&path, &body).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        let t = sim_core::trace::load(&path).map_err(|e| format!("the {} strategy made a trace gpusim refuses (a bug): {e}", s.name()))?;
        // Synchronization commands, and submissions beyond the task graph's one.
        let syncs = t.workload.command_buffers.iter().flat_map(|c| &c.commands).filter(|c| matches!(c, Command::PipelineBarrier(_) | Command::SetEvent { .. } | Command::WaitEvents { .. })).count()
            + t.workload.timeline.iter().filter(|o| matches!(o, HostOp::QueueSubmit { .. })).count().saturating_sub(1);
        let _ = write!(text, "{:<16} {syncs:>5}", s.name());
        match prove(&t, &profiles, args.prove_schedules, args.schedules)? {
            Verdict::Wrong(why) => {
                wrong += 1;
                let _ = writeln!(text, "  WRONG: {why}");
                for p in &profiles {
                    let _ = writeln!(csv, "{},{},{},,,,,{syncs}", s.name(), p.name, csv_field(&format!("wrong: {why}")));
                }
                timed.push((s, None));
            }
            Verdict::Proven(timings) => {
                for ((p, r), w) in profiles.iter().zip(&timings).zip(&widths) {
                    let _ = write!(text, " {:>w$}", r.cycles);
                    let _ = writeln!(csv, "{},{},proven,{},{},{},{},{syncs}", s.name(), p.name, r.cycles, r.stall, r.flushed, r.invalidated);
                }
                let _ = writeln!(text);
                timed.push((s, Some(timings)));
            }
        }
    }
    let mut written = vec![out.join("strategies.csv")];
    std::fs::write(&written[0], csv).map_err(|e| format!("{}: cannot write: {e}", written[0].display()))?;
    for (file, svg) in charts(&g.trace.name, &profiles, &timed)? {
        let path = out.join(file);
        std::fs::write(&path, svg).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        written.push(path);
    }
    let _ = writeln!(text, "\nwrote {} and the strategies' traces in {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "), traces_dir.display());
    print_out(&text)?;
    Ok(ExitCode::from(if wrong > 0 { 1 } else { 0 }))
}

/// The profiles `--profile` names (built-in names or files, as `gpusim run --profile` reads
/// them), or every built-in one when it names none. Two of one name are refused: a profile's
/// name labels its column, its rows and its group of bars.
fn profiles(given: &[String]) -> Result<Vec<Profile>, CliError> {
    if given.is_empty() {
        return Ok(Profile::builtin_names().into_iter().filter_map(Profile::builtin).collect());
    }
    let mut out: Vec<(&str, Profile)> = Vec::with_capacity(given.len());
    for g in given {
        let p = Profile::load(g).map_err(|e| format!("--profile {e}"))?;
        if let Some((first, _)) = out.iter().find(|(_, q)| q.name == p.name) {
            return Err(format!("--profile {g}: a profile named `{}` is given already (--profile {first}); each profile is given once", p.name).into());
        }
        out.push((g, p));
    }
    Ok(out.into_iter().map(|(_, p)| p).collect())
}

/// The charts of the timings (`timed`: per strategy, its median run on each of `profiles`, or
/// `None` where it was wrong): (file name, SVG) for cycles, barrier stall cycles and bytes
/// flushed, one group of bars per profile and one bar per strategy.
fn charts(graph: &str, profiles: &[Profile], timed: &[(Strategy, Option<Vec<RunRecord>>)]) -> Result<Vec<(&'static str, String)>, CliError> {
    let bars: Vec<String> = timed.iter().map(|(s, t)| if t.is_some() { s.name().to_string() } else { format!("{} (wrong, not timed)", s.name()) }).collect();
    let values = |f: &dyn Fn(usize, &RunRecord) -> f64| -> Vec<Vec<Option<f64>>> { timed.iter().map(|(_, t)| (0..profiles.len()).map(|k| t.as_ref().map(|t| f(k, &t[k]))).collect()).collect() };
    // Cycles relative to the full barrier's on the same profile, so that profiles of very
    // different speeds share an axis; absolute where the full barrier was not timed.
    let full: Option<&Vec<RunRecord>> = timed.iter().find(|(s, _)| *s == Strategy::Full).and_then(|(_, t)| t.as_ref());
    let (cycles_desc, cycles_units, cycles) = match full {
        Some(full) => ("cycles / the full-barrier strategy's", Units::Plain, values(&|k, r| r.cycles as f64 / full[k].cycles.max(1) as f64)),
        None => ("cycles (median run)", Units::Count, values(&|_, r| r.cycles as f64)),
    };
    let chart = |what: &str, desc: &str, units: Units, values: Vec<Vec<Option<f64>>>| BarChart {
        title: format!("{graph}: {what} by strategy"),
        x_desc: "profile".into(),
        groups: profiles.iter().map(|p| p.name.clone()).collect(),
        bars: bars.clone(),
        values,
        y: Axis { desc: desc.into(), scale: Scale::Linear, units },
        legend_title: "strategy".into(),
    };
    Ok(vec![
        ("cycles.svg", chart("cycles", cycles_desc, cycles_units, cycles).svg()?),
        ("barrier_stall_cycles.svg", chart("barrier stall cycles", "cycles sync nodes held their queue (median run)", Units::Count, values(&|_, r| r.stall as f64)).svg()?),
        ("bytes_flushed.svg", chart("bytes flushed", "bytes sync nodes wrote back (median run)", Units::Bytes, values(&|_, r| r.flushed as f64)).svg()?),
    ])
}
