//! `gpusim run TRACE --profile all`: the trace on every built-in profile, as a matrix of
//! profiles by hazards.
//!
//! # Design
//! A program's hazards are the program's, the same on every machine; whether one shows as wrong
//! bytes is the machine's. For each built-in profile the seeded schedules run first (as `gpusim
//! run --schedules N` runs them); a hazard shows when a finding, a differing run of final memory
//! or a host read of the reported run names it. A hazard the seeded schedules did not show gets
//! one schedule directed at it (docs/SCHEDULES.md), unless no order of its two accesses can
//! change a byte. Where neither shows it, the cell says why, in the words the single-profile
//! report uses. Profiles run one after another, in the built-in order, each one's seeds in
//! parallel; the output does not depend on the thread count.

use std::fmt::Write as _;
use std::process::ExitCode;

use sim_core::engine::{RunOptions, RunResult, run_workload_with};
use sim_core::profile::Profile;
use sim_core::trace::LoadedTrace;

use super::CliError;
use super::report::{Invocation, command_text, corrupted, hazards_json};
use super::run::{Format, not_shown, seeded_schedules, unchangeable};

/// How a hazard showed on one profile.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shown {
    /// A seeded schedule showed it: the reported (first corrupted) seed.
    Seeded(u64),
    /// A schedule directed at it showed it, with this seed.
    Directed(u64),
}

/// One profile's row: its seeded schedules, and per hazard whether it shows and why not.
struct Row {
    profile: String,
    corrupt: u64,
    /// Corruption that no hazard explains: the machine is at fault.
    unexplained: bool,
    /// Corruption that compressed image memory read as something else explains: the program's
    /// placement is at fault, and no barrier fixes it.
    aliasing: bool,
    /// The program's hazards as this profile's run found them (the same on every profile
    /// unless they depend on its non-coherent atom size).
    hazards: Vec<sim_core::hazard::Hazard>,
    cells: Vec<Result<Shown, String>>,
}

/// Whether run `r` shows hazard `k` as wrong bytes.
fn shows(r: &RunResult, k: usize) -> bool {
    r.findings.iter().any(|f| f.hazard == Some(k)) || r.memory_differences.iter().any(|d| d.hazard == Some(k)) || r.host_reads.iter().any(|h| h.differing_bytes > 0 && h.hazard == Some(k))
}

/// Whether run `r` read or left wrong bytes that neither a hazard nor compressed image memory
/// explains.
fn unexplained(r: &RunResult) -> bool {
    r.findings.iter().any(|f| f.hazard.is_none() && f.aliasing.is_none())
        || r.memory_differences.iter().any(|d| d.hazard.is_none() && d.aliasing.is_none())
        || r.host_reads.iter().any(|h| h.differing_bytes > 0 && h.hazard.is_none() && h.aliasing.is_none())
}

/// Whether run `r` read or left wrong bytes that compressed image memory explains.
fn aliasing(r: &RunResult) -> bool {
    r.findings.iter().any(|f| f.aliasing.is_some()) || r.memory_differences.iter().any(|d| d.aliasing.is_some())
}

/// The row of profile `p`.
fn row(t: &LoadedTrace, p: &Profile, seed: u64, count: u64, options: &RunOptions) -> Result<Row, CliError> {
    let (r, s) = seeded_schedules(t, p, seed, count, options)?;
    let unchangeable = unchangeable(t, p, &r, options);
    let cells = (0..r.hazards.len())
        .map(|k| {
            if shows(&r, k) {
                return Ok(Shown::Seeded(r.seed));
            }
            if let Some(why) = unchangeable.get(k).copied().flatten() {
                return Err(format!("no schedule can show it as wrong bytes: {why}"));
            }
            let directed = RunOptions { directed: Some(k), ..*options };
            match run_workload_with(&t.workload, p, seed, &directed).ok().filter(|d| d.directed.is_some()) {
                Some(d) if shows(&d, k) => Ok(Shown::Directed(seed)),
                Some(d) => Err(not_shown(&t.workload, p, &d, k)),
                None => Err(not_shown(&t.workload, p, &r, k)),
            }
        })
        .collect();
    Ok(Row { profile: p.name.clone(), corrupt: s.corrupt, unexplained: corrupted(&r) && unexplained(&r), aliasing: corrupted(&r) && aliasing(&r), hazards: r.hazards.clone(), cells })
}

/// Runs `gpusim run TRACE --profile all`: every built-in profile, `count` seeds from `seed`.
pub fn run(t: &LoadedTrace, inv: &Invocation, seed: u64, count: u64, options: &RunOptions, report: Format) -> Result<ExitCode, CliError> {
    let names = Profile::builtin_names();
    let profiles: Vec<Profile> = names.iter().map(|n| Profile::builtin(n).ok_or_else(|| format!("built-in profile `{n}` is missing"))).collect::<Result<_, _>>()?;
    let plain = RunOptions { workgroup_spans: 0, pictures: false, ..*options };
    // One profile after another: each one's seeds run in parallel (with their own progress
    // bar), so bars never draw over each other.
    let rows: Vec<Row> = profiles.iter().map(|p| row(t, p, seed, count, &plain)).collect::<Result<_, _>>()?;
    let hazards = rows.first().map(|r| r.hazards.clone()).unwrap_or_default();
    let found = !hazards.is_empty() || rows.iter().any(|r| r.corrupt > 0);
    match report {
        Format::Json => super::print_out(&format!("{}\n", serde_json::to_string_pretty(&json(t, inv, seed, count, &hazards, &rows))?))?,
        Format::Text => super::print_out(&text(t, inv, seed, count, &hazards, &rows))?,
    }
    Ok(ExitCode::from(if found { 1 } else { 0 }))
}

/// The cell's word in the text matrix.
fn cell_word(c: &Result<Shown, String>) -> &'static str {
    match c {
        Ok(Shown::Seeded(_)) => "shows",
        Ok(Shown::Directed(_)) => "directed",
        Err(_) => "-",
    }
}

fn text(t: &LoadedTrace, inv: &Invocation, seed: u64, count: u64, hazards: &[sim_core::hazard::Hazard], rows: &[Row]) -> String {
    let mut o = String::new();
    let seeds = if count > 1 { format!("seeds {seed}..={} ({count} runs each)", seed + (count - 1)) } else { format!("seed {seed}") };
    let _ = writeln!(o, "gpusim run: trace `{}` on every built-in profile, {seeds}", t.name);
    if hazards.is_empty() {
        let _ = writeln!(o, "\nNo hazard: every access is ordered after the accesses it conflicts with.");
    } else {
        let _ = writeln!(o, "\nThe program's {} hazard(s), the same on every machine:", hazards.len());
        for (k, h) in hazards.iter().enumerate() {
            let place = |p: &sim_core::hazard::Place| match p {
                sim_core::hazard::Place::Command(c) => command_text(&t.workload, c),
                sim_core::hazard::Place::Host { timeline } => format!("the host operation at timeline[{timeline}]"),
            };
            let _ = writeln!(o, "  H{} {}: {} ({}) after {} ({}), bytes [{}, {}) of {}", k + 1, h.id, place(&h.at), h.usage, place(&h.prior), h.prior_usage, h.offset, h.offset + h.size, h.resource);
        }
    }
    for r in rows.iter().filter(|r| r.hazards != hazards) {
        let _ = writeln!(o, "  On {} the hazards differ (they depend on its non-coherent atom size): its column H<k> is its own k-th hazard; run it alone to see them.", r.profile);
    }
    let width = rows.iter().map(|r| r.profile.len()).max().unwrap_or(7).max(7);
    let mut line = format!("{:<width$}  {:<14}", "profile", "corrupted");
    for k in 0..rows.iter().map(|r| r.cells.len()).max().unwrap_or(0) {
        let _ = write!(line, "  {:<8}", format!("H{}", k + 1));
    }
    let _ = writeln!(o, "\n{}", line.trim_end());
    for r in rows {
        let mark = match (r.unexplained, r.aliasing) {
            (true, _) => " (!)",
            (false, true) => " (a)",
            (false, false) => "",
        };
        let corrupted = format!("{} of {}{}", r.corrupt, count, mark);
        let mut line = format!("{:<width$}  {:<14}", r.profile, corrupted);
        for c in &r.cells {
            let _ = write!(line, "  {:<8}", cell_word(c));
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
    let _ = writeln!(
        o,
        "\ncorrupted: the seeded schedules that read or left wrong bytes. shows: a seeded schedule shows the hazard as\n\
         wrong bytes; directed: a schedule directed at it does; -: no schedule here does (why, below)."
    );
    if rows.iter().any(|r| r.unexplained) {
        let _ = writeln!(o, "(!): wrong bytes that no hazard explains: the machine is at fault (run that profile alone for the detail).");
    }
    if rows.iter().any(|r| !r.unexplained && r.aliasing) {
        let _ = writeln!(o, "(a): wrong bytes that no barrier fixes: the program reads compressed image memory as something else (a buffer aliasing an optimal image, or placed in its page); run that profile alone for the detail.");
    }
    for (k, _) in hazards.iter().enumerate() {
        let first = rows.iter().filter(|r| r.hazards == hazards).find_map(|r| match &r.cells[k] {
            Ok(Shown::Seeded(s)) => Some(inv.command(Some(&r.profile), *s, None)),
            Ok(Shown::Directed(s)) => Some(inv.command(Some(&r.profile), *s, Some(k))),
            Err(_) => None,
        });
        if let Some(cmd) = first {
            let _ = writeln!(o, "\nTo see H{}: {cmd}", k + 1);
        }
    }
    let not: Vec<String> = rows.iter().flat_map(|r| r.cells.iter().enumerate().filter_map(move |(k, c)| c.as_ref().err().map(|why| format!("  H{} on {}: {}.", k + 1, r.profile, why.strip_prefix(&format!("on {}, ", r.profile)).unwrap_or(why))))).collect();
    if !not.is_empty() {
        let _ = writeln!(o, "\nWhere a hazard does not show, why:");
        for line in not {
            let _ = writeln!(o, "{line}");
        }
    }
    o
}

fn json(t: &LoadedTrace, inv: &Invocation, seed: u64, count: u64, hazards: &[sim_core::hazard::Hazard], rows: &[Row]) -> serde_json::Value {
    let profiles: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let cells: Vec<serde_json::Value> = r
                .cells
                .iter()
                .enumerate()
                .map(|(k, c)| match c {
                    Ok(Shown::Seeded(s)) => serde_json::json!({"hazard": k, "shows": "seeded", "seed": s, "rerun": inv.command(Some(&r.profile), *s, None)}),
                    Ok(Shown::Directed(s)) => serde_json::json!({"hazard": k, "shows": "directed", "seed": s, "rerun": inv.command(Some(&r.profile), *s, Some(k))}),
                    Err(why) => serde_json::json!({"hazard": k, "shows": null, "why_not": why}),
                })
                .collect();
            let mut v = serde_json::json!({"profile": r.profile, "schedules_with_corruption": r.corrupt, "unexplained_corruption": r.unexplained, "aliasing_corruption": r.aliasing, "hazards": cells});
            if r.hazards != hazards {
                v["own_hazards"] = hazards_json(&t.workload, &r.hazards);
            }
            v
        })
        .collect();
    serde_json::json!({
        "gpusim_profile_matrix": 1,
        "trace": t.name,
        "seed": seed,
        "schedules": count,
        "hazards": hazards_json(&t.workload, hazards),
        "profiles": profiles,
    })
}
