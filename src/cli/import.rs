//! `gpusim import CAPTURE -o TRACE`: a trace written from a GFXReconstruct capture; and
//! [`load_trace`], through which `run`, `check`, `graph` and `replay` take a capture as they
//! take a trace.
//!
//! The capture is read and converted by `sim_capture::convert` (compute and transfer work:
//! memory, buffers, images, compute pipelines, command buffers, submissions, fences,
//! semaphores, events and the host's writes to mapped memory). Each compute pipeline's SPIR-V
//! is written beside the trace as `TRACE-STEM.pipelineN.spv`. The trace is then loaded with
//! gpusim's own loader before it is written, so that what `import` writes is a trace `run` and
//! `check` take; a trace that does not load is an error (exit status 2), and the SPIR-V files
//! are removed again.
//!
//! Calls dropped because they cannot change what the program synchronizes (instance and
//! device setup, physical-device queries, debug labels, queries, destruction) are listed on
//! stderr, one line per name. A call the trace cannot express is refused with its name and
//! block (`unsupported: vkCmdTraceRaysKHR at call 1234 ...`), and a damaged capture with the
//! block index and byte offset where the damage is.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use sim_capture::CaptureReader;
use sim_capture::convert::{Import, ImportOptions, import};
use sim_core::trace::LoadedTrace;

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
    let stem = args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into());
    let imported = convert(&args.capture, &stem)?;
    let dir = args.output.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let mut written = Vec::new();
    let result = write_checked(&args.output, &dir, &imported, &mut written);
    if result.is_err() {
        for f in &written {
            let _ = std::fs::remove_file(f);
        }
    }
    result?;
    // One line for them all: setup, queries and destruction are most of a capture's calls.
    if !imported.dropped.is_empty() {
        let total: u64 = imported.dropped.values().map(|d| d.count).sum();
        let list: Vec<String> = imported.dropped.iter().map(|(name, d)| format!("{} x {name} (first at call {})", d.count, d.first_index)).collect();
        super::print_err(&format!("gpusim import: dropped {total} calls and meta blocks that cannot change synchronization: {}", list.join(", ")));
    }
    super::print_err(&format!("gpusim import: {} blocks of {capture} -> {}", imported.blocks, args.output.display()));
    Ok(ExitCode::SUCCESS)
}

/// Converts the capture at `path` into a trace named `stem`, whose SPIR-V files are named
/// `STEM.pipelineN.spv`: the same text whether it is then written (`gpusim import`) or loaded
/// in memory ([`load_trace`]), so that a report of either names the same places.
fn convert(path: &Path, stem: &str) -> Result<Import, CliError> {
    let capture = path.display().to_string();
    // Opening is checked on its own so that a missing file reads as one, not as a read error.
    std::fs::File::open(path).map_err(|e| format!("{capture}: cannot open: {e}"))?;
    let reader = CaptureReader::open(path).map_err(|e| format!("{capture}: {e}"))?;
    let capture_name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| capture.clone());
    let options = ImportOptions {
        name: stem.to_owned(),
        shader_file_prefix: format!("{stem}."),
        description: Some(format!("Imported from the GFXReconstruct capture `{capture_name}`.")),
    };
    Ok(import(reader, &options).map_err(|e| format!("{capture}: {e}"))?)
}

/// Writes the SPIR-V files (recording each in `written`), checks that the trace loads with
/// them, then writes the trace.
fn write_checked(output: &Path, dir: &Path, imported: &Import, written: &mut Vec<PathBuf>) -> Result<(), CliError> {
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

/// Whether `path` names a GFXReconstruct capture rather than a trace: its name ends in `.gfxr`
/// (any case), or the file starts with the capture format's fourcc. A trace is JSON text, which
/// never starts with `GFXR`, so the content decides for a capture under another name.
pub fn is_capture(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gfxr")) {
        return true;
    }
    let mut head = [0u8; 4];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok_and(|()| head == sim_capture::format::FOURCC)
}

/// Loads the trace `run`, `check`, `graph` and `replay` act on: a trace file as
/// `sim_core::trace::load` loads it, or a capture ([`is_capture`]) imported in memory, as
/// `gpusim import` would write it under the capture's own stem (so its report names the same
/// commands and ids as the written trace's would).
///
/// The loader compiles shaders only from files, so the capture's SPIR-V modules go to a
/// private temporary folder that is removed once the trace is loaded (the loaded workload holds
/// the compiled modules and their words). Errors the engine finds later are located in the
/// imported trace's text, which `gpusim import` writes out; they name the capture followed by
/// `(imported)`.
pub fn load_trace(path: &Path) -> Result<LoadedTrace, CliError> {
    if !is_capture(path) {
        return Ok(sim_core::trace::load(path)?);
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into());
    let imported = convert(path, &stem)?;
    let dir = TempDir::new()?;
    for (name, bytes) in &imported.files {
        let file = dir.0.join(name);
        std::fs::write(&file, bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    let shown = PathBuf::from(format!("{} (imported)", path.display()));
    let mut t = sim_core::trace::load_str(&imported.trace, Some(&dir.0)).map_err(|mut e| {
        e.file = shown.display().to_string();
        format!("the trace imported from the capture does not load: {e}")
    })?;
    t.file = Some(shown);
    t.name = stem;
    Ok(t)
}

/// A folder of this process's own under the system's temporary folder, removed when dropped
/// (also when loading fails), so that nothing of an in-memory import outlives the command.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<Self, CliError> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::temp_dir();
        // `create_dir`, not `create_dir_all`: a folder already there (another process's, or a
        // stale one) is never reused; the next name is tried.
        for _ in 0..64 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("gpusim-capture-{}-{n}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Self(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot make a temporary folder in {} for the capture's shaders: {e}", base.display()).into()),
            }
        }
        Err(format!("cannot make a temporary folder in {} for the capture's shaders: every name tried is taken", base.display()).into())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
