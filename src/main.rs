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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Profile(args) => cli::profile::run(args),
        Command::Run(args) => cli::run::run(args),
        Command::Demo(args) => cli::demo::run(args),
        Command::Graph(args) => cli::graph::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gpusim: error: {e}");
            ExitCode::from(2)
        }
    }
}
