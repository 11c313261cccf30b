//! The subcommands of the `gpusim` binary, one module each.

pub mod check;
pub mod demo;
pub mod fix;
pub mod graph;
pub mod import;
pub mod matrix;
pub mod pictures;
pub mod profile;
pub mod profile_check;
pub mod replay;
pub mod replay_report;
pub mod report;
pub mod run;
pub mod splice;
pub mod strategies;
pub mod sweep;
pub mod timeline;

/// A subcommand's failure: printed as one line on stderr, exit status 2.
pub type CliError = Box<dyn std::error::Error>;

/// Writes `text` to standard output. A reader that went away (a closed pipe, as in
/// `gpusim run … | head`) is no error: the rest is not wanted. Any other failure (a full disk)
/// is, and gives exit status 2 instead of the panic `print!` would raise.
pub fn print_out(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write to standard output: {e}").into()),
        _ => Ok(()),
    }
}

/// A progress bar on stderr counting `len` `what` (`runs`, `schedules`), drawn only when stderr
/// is a terminal.
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(&format!("{{spinner}} {what} {{pos}}/{{len}} [{{bar:30}}] {{elapsed_precise}} eta {{eta}}")) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Refuses, before any work, an output file that cannot be written: a folder, or a path whose
/// folder does not exist (`what` names the option: `--timeline`, `-o`). Found after a run of
/// minutes, the same mistake would throw the run away.
pub fn check_output_file(path: &std::path::Path, what: &str) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(format!("{what} {}: is a folder, not a file", path.display()).into());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        return Err(format!("{what} {}: the folder {} does not exist", path.display(), parent.display()).into());
    }
    Ok(())
}

/// A seed: a whole number from 0 to 2^64 - 1. Parsed here so that `--seed -1` is told what a
/// seed is, rather than taken for an option.
pub fn seed_value(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| format!("a seed is a whole number from 0 to {}, not `{s}`", u64::MAX))
}

/// Writes a line to standard error, ignoring a failure: nothing is left to report it to.
pub fn print_err(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
