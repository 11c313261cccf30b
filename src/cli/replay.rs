//! `gpusim replay TRACE`: runs a trace on a real Vulkan device, optionally under the Khronos
//! validation layer, and reports what the device read beside the reference run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim_core::trace::LoadedTrace;
use sim_vulkan::ReplayOptions;

use super::CliError;
use sim_core::engine::RunLimits;

use super::run::Format;

/// Arguments of `gpusim replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace (JSON, format version 1: docs/TRACE_FORMAT.md), or a GFXReconstruct capture
    /// (`.gfxr`), imported in memory as `gpusim import` would write it.
    pub trace: PathBuf,
    /// Load the Khronos validation layer with synchronization validation (and its queue-submit
    /// checks) and report its messages.
    #[arg(long)]
    pub validate: bool,
    /// The physical device: an index, its exact name, or part of its name (default: the first).
    #[arg(long)]
    pub device: Option<String>,
    /// Run the program this many times; the report counts the iterations that differ from the
    /// reference run.
    #[arg(long, default_value_t = 1)]
    pub iterations: u32,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Format,
    /// Stop the reference run (which the device's bytes are compared with) past this many
    /// shader instructions, summed over subgroups.
    #[arg(long, default_value_t = RunLimits::default().max_instructions)]
    pub max_instructions: u64,
    /// Refuse a trace whose transfer commands move more than this many bytes over all their
    /// submissions.
    #[arg(long, default_value_t = RunLimits::default().max_transfer_bytes)]
    pub max_transfer_bytes: u64,
}

fn located(t: &LoadedTrace, e: sim_vulkan::ReplayError) -> CliError {
    match e {
        sim_vulkan::ReplayError::Workload(w) => Box::new(t.locate_engine_error(&w)) as CliError,
        other => Box::new(other),
    }
}

/// Runs `gpusim replay ...`.
pub fn run(args: ReplayArgs) -> Result<ExitCode, CliError> {
    let limits = RunLimits { max_instructions: args.max_instructions, max_transfer_bytes: args.max_transfer_bytes, ..RunLimits::default() };
    limits.validate().map_err(|(field, message)| format!("--{} {message}", field.replace('_', "-")))?;
    let t = super::import::load_trace(&args.trace)?;
    let options = ReplayOptions { device: args.device.clone(), validate: args.validate, iterations: args.iterations, limits };
    let r = sim_vulkan::replay(&t.workload, &options).map_err(|e| located(&t, e))?;
    // gpusim's own verdict beside the layer's, by `gpusim check`'s default device rules.
    let profile = sim_core::profile::Profile::load("seed-vram")?;
    let v = super::replay_report::Verdict::of(&t.workload, &profile, &limits).map_err(|e| Box::new(t.locate_engine_error(&e)) as CliError)?;
    match args.report {
        Format::Json => super::print_out(&format!("{}\n", serde_json::to_string_pretty(&super::replay_report::json(&t, &r, &v))?))?,
        Format::Text => super::print_out(&super::replay_report::text(&t, &r, &v))?,
    }
    Ok(ExitCode::from(u8::from(r.found_something())))
}

