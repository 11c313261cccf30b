//! `gpusim import CAPTURE -o TRACE`: a trace written from a GFXReconstruct capture.
//!
//! The capture is read and converted by `sim_capture::convert` (compute and transfer work:
//! memory, buffers, compute pipelines, command buffers, submissions, fences, semaphores,
//! events and the host's writes to mapped memory). Each compute pipeline's SPIR-V is written
//! beside the trace as `TRACE-STEM.pipelineN.spv`. The trace is then loaded with gpusim's own
//! loader before it is written, so that what `import` writes is a trace `run` and `check`
//! take; a trace that does not load is an error (exit status 2), and the SPIR-V files are
//! removed again.
//!
//! Calls dropped because they cannot change what the program synchronizes (instance and
//! device setup, physical-device queries, debug labels, queries, destruction) are listed on
//! stderr, one line per name. A call the trace cannot express is refused with its name and
//! block (`unsupported: vkCmdTraceRaysKHR at call 1234 ...`), and a damaged capture with the
//! block index and byte offset where the damage is.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use sim_capture::CaptureReader;
use sim_capture::convert::{ImportOptions, import};

use super::CliError;

/// Arguments of `gpusim import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The capture (a `.gfxr` file written by GFXReconstruct's capture layer).
    pub capture: PathBuf,
    /// Where to write the trace (its SPIR-V files go beside it).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// Runs `gpusim import`.
pub fn run(args: ImportArgs) -> Result<ExitCode, CliError> {
    super::check_output_file(&args.output, "-o")?;
    let capture = args.capture.display().to_string();
    // Opening is checked on its own so that a missing file reads as one, not as a read error.
    std::fs::File::open(&args.capture).map_err(|e| format!("{capture}: cannot open: {e}"))?;
    let reader = CaptureReader::open(&args.capture).map_err(|e| format!("{capture}: {e}"))?;
    let stem = args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into());
    let capture_name = args.capture.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| capture.clone());
    let options = ImportOptions {
        name: stem.clone(),
        shader_file_prefix: format!("{stem}."),
        description: Some(format!("Imported from the GFXReconstruct capture `{capture_name}`.")),
    };
    let imported = import(reader, &options).map_err(|e| format!("{capture}: {e}"))?;
    let dir = args.output.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let mut written = Vec::new();
    let result = write_checked(&args.output, &dir, &imported, &mut written);
    if result.is_err() {
        for f in &written {
            let _ = std::fs::remove_file(f);
        }
    }
    result?;
    for (name, d) in &imported.dropped {
        super::print_err(&format!("gpusim import: dropped {} x {name} (first at call {}), which cannot change synchronization", d.count, d.first_index));
    }
    super::print_err(&format!("gpusim import: {} blocks of {capture} -> {}", imported.blocks, args.output.display()));
    Ok(ExitCode::SUCCESS)
}

/// Writes the SPIR-V files (recording each in `written`), checks that the trace loads with
/// them, then writes the trace.
fn write_checked(output: &Path, dir: &Path, imported: &sim_capture::convert::Import, written: &mut Vec<PathBuf>) -> Result<(), CliError> {
    for (name, bytes) in &imported.files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    if let Err(e) = sim_core::trace::load_str(&imported.trace, Some(dir)) {
        let mut e = e;
        e.file = output.display().to_string();
        return Err(format!("the imported trace does not load (nothing written): {e}").into());
    }
    std::fs::write(output, &imported.trace).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    Ok(())
}
