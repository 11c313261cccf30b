//! `gpusim sweep` and `gpusim merge`: architecture sweeps, on one machine or cut into shards.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use sim_experiments::output::SweepTable;
use sim_experiments::shard::{SWEEP_SHARD_FORMAT, Shard, ShardFile, merge};
use sim_experiments::sweep::{Sweep, rows};

use super::run::{Format, report_merged};
use super::{CliError, print_out};
use sim_experiments::shard::{RunShardFile, merge_runs};

/// The most bytes of one shard file `gpusim merge` reads.
const MAX_SHARD_FILE_BYTES: u64 = 256 << 20;
/// The rows printed on the terminal; the CSV has them all.
const PRINTED_ROWS: usize = 40;

/// `gpusim sweep SWEEP [--out DIR] [--shard I/N]`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep file (TOML: base profile, traces, schedules, the fields to vary; docs/SWEEPS.md).
    pub sweep: PathBuf,
    /// Where to write sweep.csv, cycles.svg and corruption.svg (a shard writes
    /// shard-I-of-N.json there). Default: sweep-NAME in the current directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only slice I of N of the sweep's runs (from 0: every N-th run, one per point and
    /// schedule, in an order fixed by a hash, so slices are of equal size and mixed cost) and
    /// write it for
    /// `gpusim merge`; a Slurm job array passes `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`.
    #[arg(long, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// `gpusim merge SHARD... --out DIR`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shard files (shard-I-of-N.json of a sweep, run-shard-I-of-N.json of a schedule
    /// exploration), every shard of one sweep or exploration once, in any order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Where to write what the single-machine run writes: sweep.csv, cycles.svg and
    /// corruption.svg for a sweep; report.json, report.txt and timeline.json for a run.
    #[arg(long)]
    pub out: PathBuf,
    /// The format of a merged run's report on standard output.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Format,
}

/// The rows as a short text table.
fn summary(table: &SweepTable) -> String {
    let mut o = String::new();
    let fields = if table.fields.is_empty() { String::new() } else { format!("  {}", table.fields.join(" / ")) };
    let _ = writeln!(o, "{:>6}  {:<44} {:>9} {:>12}{fields}", "point", "trace", "corrupted", "cycles");
    for r in table.rows.iter().take(PRINTED_ROWS) {
        let corrupted = format!("{}/{}", r.corrupted_schedules, r.schedules);
        // The file name is enough on a terminal; the CSV keeps the path as the sweep names it.
        let trace = Path::new(&r.trace).file_stem().map_or(r.trace.clone(), |s| s.to_string_lossy().into_owned());
        let _ = writeln!(o, "{:>6}  {:<44} {:>9} {:>12}  {}", r.point, trace, corrupted, r.cycles_median, r.values.join(" / "));
    }
    if table.rows.len() > PRINTED_ROWS {
        let _ = writeln!(o, "... and {} more rows", table.rows.len() - PRINTED_ROWS);
    }
    o
}

/// Writes the table's files into `dir` and says what was written.
fn write_table(table: &SweepTable, dir: &Path) -> Result<String, CliError> {
    let written = table.write(dir)?;
    let mut o = summary(table);
    let _ = writeln!(o, "\nwrote {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(o)
}

/// Runs `gpusim sweep ...`.
pub fn run(args: SweepArgs) -> Result<ExitCode, CliError> {
    let sweep = Sweep::load(&args.sweep)?;
    let out = args.out.unwrap_or_else(|| PathBuf::from(format!("sweep-{}", sweep.spec.name)));
    let shard = args.shard.unwrap_or(Shard::ALL);
    let members = shard.members(sweep.run_count() as usize);
    let bar = super::progress(members.iter().filter(|&&m| m).count() as u64, "runs");
    let records = sweep.run(|r| members[r], || bar.inc(1))?;
    bar.finish_and_clear();
    if args.shard.is_none() {
        let table = SweepTable { name: sweep.spec.name.clone(), fields: sweep.fields(), rows: rows(&sweep.point_meta(), sweep.spec.schedules, &records) };
        print_out(&write_table(&table, &out)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let file = ShardFile {
        gpusim_sweep_shard: SWEEP_SHARD_FORMAT,
        sweep: sweep.spec.name.clone(),
        fingerprint: sweep.fingerprint.clone(),
        shard: shard.index,
        shards: shard.count,
        schedules: sweep.spec.schedules,
        fields: sweep.fields(),
        points: sweep.point_meta(),
        records,
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: cannot make the directory: {e}", out.display()))?;
    let path = out.join(format!("shard-{}-of-{}.json", shard.index, shard.count));
    let text = serde_json::to_string_pretty(&file).map_err(|e| format!("cannot write the shard: {e}"))?;
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    print_out(&format!("shard {}/{} of sweep `{}`: {} of {} runs\nwrote {}\n", shard.index, shard.count, file.sweep, file.records.len(), sweep.run_count(), path.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `gpusim merge ...`: shards of a sweep, or of a schedule exploration (told apart by
/// the first file's format key).
pub fn run_merge(args: MergeArgs) -> Result<ExitCode, CliError> {
    let mut texts = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        let origin = path.display().to_string();
        let bytes = sim_core::io::read_capped(path, MAX_SHARD_FILE_BYTES).map_err(|e| format!("{origin}: cannot read the shard: {e}"))?;
        texts.push((origin, bytes));
    }
    let runs = texts.first().is_some_and(|(_, b)| serde_json::from_slice::<serde_json::Value>(b).is_ok_and(|v| v.get("gpusim_run_shard").is_some()));
    if runs {
        let mut files = Vec::with_capacity(texts.len());
        for (origin, bytes) in texts {
            let file: RunShardFile = serde_json::from_slice(&bytes).map_err(|e| format!("{origin}:{}:{}: not a shard file of gpusim run: {e}", e.line(), e.column()))?;
            files.push((origin, file));
        }
        return report_merged(&merge_runs(&files)?, args.report, &args.out);
    }
    let mut files = Vec::with_capacity(texts.len());
    for (origin, bytes) in texts {
        let file: ShardFile = serde_json::from_slice(&bytes).map_err(|e| {
            // A shard of another format fails on its fields; its version says why.
            let version = serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|v| v.get("gpusim_sweep_shard").and_then(serde_json::Value::as_u64));
            match version {
                Some(v) if v != u64::from(SWEEP_SHARD_FORMAT) => format!("{origin}: gpusim_sweep_shard {v} is not a format this gpusim reads ({SWEEP_SHARD_FORMAT}): run the shards again with this gpusim"),
                _ => format!("{origin}:{}:{}: not a shard file of gpusim sweep: {e}", e.line(), e.column()),
            }
        })?;
        files.push((origin, file));
    }
    let table = merge(&files)?;
    print_out(&write_table(&table, &args.out)?)?;
    Ok(ExitCode::SUCCESS)
}
