//! The `gpusim` command line.
//!
//! Subcommands are an enum so that more (`run`, `demo`, `graph`) slot in beside `profile`, each
//! with its code in its own module under `src/cli/`. Every failure prints one line on stderr and
//! exits with status 2 (invalid input), as the trace format's exit-status rule says.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A GPU simulator whose caches hold real bytes, so missing barriers read stale data.
#[derive(Parser)]
#[command(name = "gpusim", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Architecture profiles: list the built-in ones, show a profile's machine and barrier table.
    Profile(cli::profile::ProfileArgs),
    /// Run a trace on a profile and report what went wrong (exit 0: clean, 1: corruption, 2: invalid input).
    Run(cli::run::RunArgs),
    /// A two-minute story: a missing barrier reads stale bytes on the seed profiles, then the fixed program runs clean.
    Demo(cli::demo::DemoArgs),
    /// Write the execution-dependency graph of a trace as Graphviz DOT.
    Graph(cli::graph::GraphArgs),
    /// Find the synchronization hazards of a trace without simulating it (exit 0: none, 1: hazards, 2: invalid input).
    Check(cli::check::CheckArgs),
    /// Run a trace on a real Vulkan device (optionally under the Khronos validation layer) and compare with the reference run (exit 0: clean, 1: differences or layer messages, 2: cannot run).
    Replay(cli::replay::ReplayArgs),
    /// Place a task graph's synchronization by every barrier strategy, prove each correct, and time the proven ones on every built-in profile (exit 1 when a strategy is wrong).
    Strategies(cli::strategies::StrategiesArgs),
    /// Vary profile fields over traces and tabulate cycles and corruption per point (CSV and SVG); `--shard I/N` runs one slice.
    Sweep(cli::sweep::SweepArgs),
    /// Join the shards of a sweep or of a schedule exploration into exactly what a single run writes.
    Merge(cli::sweep::MergeArgs),
    /// Write a trace from a GFXReconstruct capture of compute and transfer work (exit 2: a damaged capture or a call the trace cannot express).
    Import(cli::import::ImportArgs),
}

/// The stack of the thread that loads traces and compiles shaders. The shader front ends and the
/// compiler walk expressions recursively, and a long chain like `a + 1 + 1 + ...` is as deep as
/// it is long; a large stack (reserved, not touched, until used) turns the overflow that would
/// abort the process into an ordinary depth that finishes.
const MAIN_STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match std::thread::Builder::new().name("gpusim".into()).stack_size(MAIN_STACK_BYTES).spawn(move || run(cli)) {
        Ok(handle) => handle.join().unwrap_or_else(|_| ExitCode::from(101)),
        Err(e) => {
            cli::print_err(&format!("gpusim: error: cannot start the main thread: {e}"));
            ExitCode::from(2)
        }
    }
}

/// Runs the subcommand `cli` names; errors are printed and give exit status 2.
fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Profile(args) => cli::profile::run(args),
        Command::Run(args) => cli::run::run(args),
        Command::Demo(args) => cli::demo::run(args),
        Command::Graph(args) => cli::graph::run(args),
        Command::Check(args) => cli::check::run(args),
        Command::Replay(args) => cli::replay::run(args),
        Command::Strategies(args) => cli::strategies::run(args),
        Command::Sweep(args) => cli::sweep::run(args),
        Command::Merge(args) => cli::sweep::run_merge(args),
        Command::Import(args) => cli::import::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            cli::print_err(&clip(&format!("gpusim: error: {e}")));
            ExitCode::from(2)
        }
    }
}

/// The most bytes of an error line printed: a message quoting the input (an unknown field name,
/// a bad flag) can be as long as the input, and a 10 MB line helps nobody.
const MAX_ERROR_BYTES: usize = 4096;

/// `line` cut to [`MAX_ERROR_BYTES`] at a character boundary, saying how much was left out.
fn clip(line: &str) -> String {
    if line.len() <= MAX_ERROR_BYTES {
        return line.to_string();
    }
    let cut = (0..=MAX_ERROR_BYTES).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
    format!("{}… ({} more bytes)", &line[..cut], line.len() - cut)
}
