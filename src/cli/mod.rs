//! The subcommands of the `gpusim` binary, one module each.

pub mod demo;
pub mod graph;
pub mod profile;
pub mod report;
pub mod run;
pub mod timeline;

/// A subcommand's failure: printed as one line on stderr, exit status 2.
pub type CliError = Box<dyn std::error::Error>;
