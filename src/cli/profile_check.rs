//! `gpusim profile check PROFILE`: is the barrier table right for its machine?
//!
//! Random correctly synchronized programs (`sim_core::generators::random`) run on the profile, in
//! parallel, each on a few schedule seeds; the first that differs from its reference run is
//! shrunk (`sim_core::generators::soundness`) and reported with what it read and the table rows
//! involved. On a sound profile, each row is then removed in turn and the same programs run
//! again: rows whose removal corrupts none are reported as never needed.

use std::fmt::Write as _;
use std::process::ExitCode;

use rayon::prelude::*;
use serde_json::json;
use sim_core::generators::random::Op;
use sim_core::generators::soundness::{corrupts, program, shrink, without_row};
use sim_core::engine::{RunResult};
use sim_core::api::{CommandRef, Program, Workload, Writer};
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S, Scope, StageAccess};

use super::CliError;
use super::report::{command_text, writer_text};
use super::run::Format;

/// The most programs one check may ask for.
pub const MAX_PROGRAMS: u64 = 100_000;

/// Arguments of `gpusim profile check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// A built-in profile name or a profile file (TOML).
    pub profile: String,
    /// Random programs to run.
    #[arg(long, default_value_t = 64)]
    pub programs: u64,
    /// Most operations in a program.
    #[arg(long, default_value_t = 10)]
    pub ops: usize,
    /// Schedule seeds each program runs on (0, 1, ...).
    #[arg(long, default_value_t = 2)]
    pub schedules: u64,
    /// The seed the programs are drawn from.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = super::seed_value)]
    pub seed: u64,
    /// Skip the search for rows no program needs (it runs every program once per row).
    #[arg(long)]
    pub no_rows: bool,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Format,
    /// Write the shrunk program that differed from its reference run to this file, as a trace
    /// (`gpusim run`, `check`, `graph` and `replay` take it). Nothing is written on a sound
    /// table.
    #[arg(long, value_name = "FILE")]
    pub save_counterexample: Option<std::path::PathBuf>,
}

/// A program that corrupted, shrunk.
struct Failure {
    index: u64,
    original_ops: usize,
    ops: Vec<Op>,
    schedule: u64,
    run: RunResult,
    workload: Workload,
}

/// Runs `gpusim profile check ...`.
pub fn run(args: CheckArgs) -> Result<ExitCode, CliError> {
    if args.programs == 0 || args.programs > MAX_PROGRAMS {
        return Err(format!("--programs {} is not between 1 and {MAX_PROGRAMS}", args.programs).into());
    }
    if args.ops == 0 || args.ops > 64 {
        return Err(format!("--ops {} is not between 1 and 64", args.ops).into());
    }
    if args.schedules == 0 || args.schedules > 64 {
        return Err(format!("--schedules {} is not between 1 and 64", args.schedules).into());
    }
    if let Some(file) = &args.save_counterexample {
        super::check_output_file(file, "--save-counterexample")?;
    }
    let p = Profile::load(&args.profile)?;
    let programs: Vec<Vec<Op>> = (0..args.programs).map(|i| program(args.seed, i, args.ops)).collect();
    let err = |e: sim_core::api::WorkloadError| -> CliError { format!("a random program does not run on profile `{}`: {e}", p.name).into() };
    // Progress on a terminal: each program run on the table, then on each table without a row.
    let bar = super::progress(args.programs, "programs");
    // Which programs corrupt on `q`, in program order whatever the threads.
    let corrupting = |q: &Profile| -> Result<Vec<bool>, CliError> {
        let outcomes: Result<Vec<bool>, _> = programs
            .par_iter()
            .map(|ops| {
                let c = corrupts(q, ops, args.schedules).map(|c| c.is_some());
                bar.inc(1);
                c
            })
            .collect();
        outcomes.map_err(err)
    };
    let first = corrupting(&p)?.iter().position(|&c| c);
    let failure = match first {
        Some(i) => {
            let ops = shrink(&p, &programs[i], args.schedules).map_err(err)?;
            let (schedule, run) = corrupts(&p, &ops, args.schedules).map_err(err)?.ok_or("the shrunk program no longer corrupts")?;
            Some(Failure { index: i as u64, original_ops: programs[i].len(), workload: sim_core::generators::random::build(&ops), ops, schedule, run })
        }
        None => None,
    };
    // Rows no program needs, on a sound table.
    let rows: Option<Vec<bool>> = if failure.is_none() && !args.no_rows {
        bar.inc_length(args.programs * p.barriers.rows.len() as u64);
        let needed: Result<Vec<bool>, CliError> = (0..p.barriers.rows.len()).map(|r| Ok(corrupting(&without_row(&p, r))?.contains(&true))).collect();
        Some(needed?)
    } else {
        None
    };
    bar.finish_and_clear();
    match (&args.save_counterexample, &failure) {
        (Some(file), Some(f)) => save_counterexample(file, &p, &args, f)?,
        (Some(file), None) => super::print_err(&format!("gpusim profile check: no program differed, so no counterexample was written to {}", file.display())),
        (None, _) => {}
    }
    let out = match args.report {
        Format::Text => text(&p, &args, failure.as_ref(), rows.as_deref()),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&json_report(&p, &args, failure.as_ref(), rows.as_deref()))?),
    };
    super::print_out(&out)?;
    Ok(if failure.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Writes the shrunk program of `f` as the trace `file`, named after the file and saying where
/// it came from, and says on stderr how to run it.
fn save_counterexample(file: &std::path::Path, p: &Profile, args: &CheckArgs, f: &Failure) -> Result<(), CliError> {
    let mut w = f.workload.clone();
    w.name = file.file_stem().map_or_else(|| "counterexample".into(), |s| s.to_string_lossy().into_owned());
    let description = format!(
        "Program {} of `gpusim profile check {} --seed {} --ops {}`, shrunk from {} operations to {}: correctly synchronized, it differs from its reference run on profile {} with schedule seed {}. Operations: {}.",
        f.index,
        args.profile,
        args.seed,
        args.ops,
        f.original_ops,
        f.ops.len(),
        p.name,
        f.schedule,
        f.ops.iter().map(Op::text).collect::<Vec<_>>().join("; ")
    );
    sim_core::trace::write::save(&w, file, Some(&description)).map_err(|e| format!("--save-counterexample {}: {e}", file.display()))?;
    super::print_err(&format!("gpusim profile check: counterexample written to {} (`gpusim run {} --profile {} --seed {}` shows it)", file.display(), file.display(), args.profile, f.schedule));
    Ok(())
}

/// The usage of the access the action at `at` made to the bytes of a finding: its write, or
/// its read (through `via`).
fn usage_of(prog: Option<&Program<'_>>, at: &CommandRef, read: bool, via: &str) -> Option<StageAccess> {
    let prog = prog?;
    let action = prog.action(prog.instance_of(at)?)?;
    // The action's own usage of that kind (a draw's or a load operation's attachment write,
    // a vertex fetch), the uniform one for a read through the uniform cache.
    let own = action.usages.iter().map(|u| u.usage).filter(|u| !u.is_layout_transition()).find(|u| u.is_write() != read && (via != "U$" || u.access() == A::UNIFORM_READ));
    if own.is_some() {
        return own;
    }
    let stage = action.stage();
    let access = match (stage, read) {
        (S::CLEAR, _) => A::TRANSFER_WRITE,
        (S::COPY, true) => A::TRANSFER_READ,
        (S::COPY, false) => A::TRANSFER_WRITE,
        (_, true) if via == "U$" => A::UNIFORM_READ,
        (_, true) => A::SHADER_STORAGE_READ,
        (_, false) => A::SHADER_STORAGE_WRITE,
    };
    StageAccess::new(stage, access)
}

/// The sentence naming what the shrunk program showed and the table rows involved.
fn what_it_showed(p: &Profile, f: &Failure) -> Vec<String> {
    let w = &f.workload;
    let writer = |wr: &Writer| writer_text(w, wr);
    let mut lines = Vec::new();
    let prog = Program::new(w).ok();
    if let Some(x) = f.run.findings.first() {
        lines.push(format!(
            "{} read bytes [{}, {}) of {} through {}: it saw {}, where the reference run saw {}.",
            command_text(w, &x.at),
            x.offset,
            x.offset + x.size,
            x.resource,
            x.via,
            writer(&x.seen_write),
            writer(&x.expected_write)
        ));
        let src = match &x.expected_write {
            Writer::Command(c) => usage_of(prog.as_ref(), c, false, ""),
            Writer::Host { .. } => StageAccess::new(S::HOST, A::HOST_WRITE),
            Writer::Initial => None,
        };
        if let (Some(src), Some(dst)) = (src, usage_of(prog.as_ref(), &x.at, true, &x.via)) {
            lines.push(format!(
                "Table rows involved: {} for {src} in a first scope; {} for {dst} in a second.",
                p.barriers.ops_text(src, Scope::First),
                p.barriers.ops_text(dst, Scope::Second)
            ));
        }
    } else if let Some(d) = f.run.memory_differences.first() {
        let kind = |name: &str| if w.images.iter().any(|im| im.name == name) { "image" } else { "buffer" };
        let place = d.buffer.as_ref().map(|(b, o)| format!("bytes [{o}, {}) of {} {b}", o + d.size, kind(b))).unwrap_or_else(|| format!("bytes [{}, {}) of {}", d.offset, d.offset + d.size, d.memory));
        let bytes = |wr: &Writer| if matches!(wr, Writer::Initial) { "the initial zeroes".to_string() } else { format!("the bytes of {}", writer(wr)) };
        lines.push(format!("At the end, {place} held {}, where the reference run left {}.", bytes(&d.seen_write), bytes(&d.expected_write)));
        let usage = |wr: &Writer| match wr {
            Writer::Command(c) => usage_of(prog.as_ref(), c, false, ""),
            Writer::Host { .. } => StageAccess::new(S::HOST, A::HOST_WRITE),
            Writer::Initial => None,
        };
        match (usage(&d.seen_write), usage(&d.expected_write)) {
            (Some(a), Some(b)) => {
                lines.push(format!("Table rows involved: {} for {a}; {} for {b} (both in a first scope).", p.barriers.ops_text(a, Scope::First), p.barriers.ops_text(b, Scope::First)));
                lines.push("Writes of neighbouring bytes need no barrier: a cache that writes back whole lines over bytes it was not given is at fault, not a row.".into());
            }
            // The write never reached memory: what should have made it available did not.
            (None, Some(b)) => lines.push(format!(
                "The write never reached memory. Table rows involved: {} for {b} in a first scope (the barriers after it, and the fence the host waits on, make it available).",
                p.barriers.ops_text(b, Scope::First)
            )),
            _ => {}
        }
    } else if let Some(h) = f.run.host_reads.iter().find(|h| h.differing_bytes > 0) {
        lines.push(format!("The host read at timeline[{}] saw {} bytes that differ from the reference run's.", h.timeline, h.differing_bytes));
    }
    lines
}

fn text(p: &Profile, args: &CheckArgs, failure: Option<&Failure>, rows: Option<&[bool]>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "gpusim profile check: {}, {} random correctly synchronized programs (seed {}, up to {} operations, {} schedule(s) each)\n",
        p.name, args.programs, args.seed, args.ops, args.schedules
    );
    match failure {
        Some(f) => {
            let _ = writeln!(
                o,
                "UNSOUND: program {} differs from its reference run on schedule seed {}; shrunk from {} operations to {}:",
                f.index,
                f.schedule,
                f.original_ops,
                f.ops.len()
            );
            for (k, op) in f.ops.iter().enumerate() {
                let _ = writeln!(o, "  {}. {}", k + 1, op.text());
            }
            let _ = writeln!(o, "(each with the barriers its accesses need)\n");
            for line in what_it_showed(p, f) {
                let _ = writeln!(o, "{line}");
            }
        }
        None => {
            let _ = writeln!(o, "SOUND: no program differed from its reference run ({} runs).", args.programs * args.schedules);
        }
    }
    if let Some(rows) = rows {
        let unneeded: Vec<usize> = (0..rows.len()).filter(|&r| !rows[r]).collect();
        let _ = writeln!(o, "\nRows some program needed: {} of {}.", rows.len() - unneeded.len(), rows.len());
        if !unneeded.is_empty() {
            let _ = writeln!(o, "Rows none of these programs needed (removing one alone corrupted none of them):");
            for r in unneeded {
                let row = &p.barriers.rows[r];
                let ops = |x: &[sim_core::profile::table::OpSpec]| if x.is_empty() { "-".to_string() } else { x.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", ") };
                let _ = writeln!(o, "  {}: src {}; dst {}", row.access, ops(&row.src), ops(&row.dst));
            }
            let _ = writeln!(o, "(the programs clear, upload, blit, sample and read back images and draw into them, with a vertex buffer and a storage buffer; depth, input attachments, indices and indirect records are not in them yet, so those rows wait for programs that use them)");
        }
    }
    o
}

fn json_report(p: &Profile, args: &CheckArgs, failure: Option<&Failure>, rows: Option<&[bool]>) -> serde_json::Value {
    json!({
        "gpusim_profile_check": 1,
        "profile": p.name,
        "programs": args.programs,
        "seed": args.seed,
        "ops": args.ops,
        "schedules": args.schedules,
        "sound": failure.is_none(),
        "unsound": failure.map(|f| json!({
            "program": f.index,
            "schedule_seed": f.schedule,
            "original_ops": f.original_ops,
            "ops": f.ops.iter().map(Op::text).collect::<Vec<_>>(),
            "explanation": what_it_showed(p, f),
        })),
        "rows": rows.map(|rows| rows.iter().enumerate().map(|(r, &needed)| json!({
            "access": p.barriers.rows[r].access.to_string(),
            "stages": p.barriers.rows[r].stages.map(|s| s.to_string()),
            "needed": needed,
        })).collect::<Vec<_>>()),
    })
}
