//! Loading version-1 traces (`docs/TRACE_FORMAT.md`, extensions in
//! `docs/TRACE_FORMAT_EXTENSIONS.md`) into a [`Workload`].
//!
//! # How a trace is loaded
//! 1. The text is parsed by serde into the structs of [`schema`], which mirror the format and
//!    deny unknown fields. A syntax or type error carries serde's line and column; the JSON
//!    path is recovered from that position by a small scanner (the private `locate` module).
//! 2. [`build`] resolves ids to indices, checks every range, offset and size against its
//!    resource and against the caps below (so nothing is allocated from an unchecked number),
//!    compiles the shaders, and builds the workload. Its errors carry the JSON path, and the
//!    scanner finds that path's line and column in the text.
//! 3. What depends on a profile (device limits) is checked by the engine when the workload
//!    runs; [`LoadedTrace::locate_engine_error`] turns the engine's place names
//!    (`command_buffers[cb0].commands[3]`) back into JSON paths with a line and column.
//!
//! [`write`](mod@write) goes the other way: a workload written as a trace that loads back to it.

pub mod build;
pub(crate) mod locate;
pub mod schema;
pub mod write;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::api::{Workload, WorkloadError};

/// The largest trace file read (256 MiB).
pub const MAX_TRACE_BYTES: u64 = 256 << 20;
/// The largest memory object a trace may allocate (256 MiB): the final comparison walks every
/// byte of every memory object, so this bounds a run's time as well as its memory.
pub const MAX_TRACE_MEMORY_BYTES: u64 = 256 << 20;
/// The largest total of a trace's memory objects (1 GiB).
pub const MAX_TRACE_TOTAL_MEMORY_BYTES: u64 = 1 << 30;
/// The largest data payload (`data_u32`, `data_hex`, `data_file`, `expect_*`) and host read.
pub const MAX_PAYLOAD_BYTES: u64 = 64 << 20;
/// The largest total of a trace's payloads (1 GiB): each is held in memory, and one payload file
/// may be named any number of times.
pub const MAX_TOTAL_PAYLOAD_BYTES: u64 = 1 << 30;
/// The largest total of a trace's host reads (256 MiB): each is held, with its provenance, as
/// both runs saw it.
pub const MAX_TOTAL_HOST_READ_BYTES: u64 = 256 << 20;
/// The largest shader file: what `sim_shader` accepts as one source (inline sources are held to
/// it there).
pub const MAX_SHADER_FILE_BYTES: u64 = sim_shader::MAX_SOURCE_BYTES as u64;
/// The most entries of any list (resources, commands, timeline operations, regions, ...).
pub const MAX_LIST_LEN: usize = 1 << 20;

/// A trace turned into a workload, with what is needed to explain errors found later.
#[derive(Debug)]
pub struct LoadedTrace {
    /// The program.
    pub workload: Workload,
    /// The trace's name (its `name`, else the file stem).
    pub name: String,
    /// The file it came from (`None` for [`load_str`] without a file name).
    pub file: Option<PathBuf>,
    /// The trace's text, kept to locate errors the engine reports.
    pub text: String,
}

/// A trace that cannot be loaded: where (file, JSON path, line and column) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The trace file, as given (empty for text without a file).
    pub file: String,
    /// JSON path of the value at fault (`command_buffers[0].commands[3].dst_offset`); empty
    /// when the problem is the whole file.
    pub path: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = if self.file.is_empty() { "<trace>" } else { &self.file };
        match self.position {
            Some((l, c)) => write!(f, "{file}:{l}:{c}: ")?,
            None => write!(f, "{file}: ")?,
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for TraceError {}

/// Loads a trace file; shader and data files are found relative to it.
pub fn load(path: &Path) -> Result<LoadedTrace, TraceError> {
    let file = path.display().to_string();
    let whole = |message: String| TraceError { file: file.clone(), path: String::new(), position: None, message };
    let bytes = crate::io::read_capped(path, MAX_TRACE_BYTES).map_err(|e| whole(format!("cannot read the trace: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| whole(format!("the trace is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut t = load_inner(text, Some(&base), &file, &stem)?;
    t.file = Some(path.to_path_buf());
    Ok(t)
}

/// Loads a trace from text; `base_dir` is where `*_file` references are looked up (`None`:
/// such references are an error).
pub fn load_str(text: &str, base_dir: Option<&Path>) -> Result<LoadedTrace, TraceError> {
    load_inner(text.to_string(), base_dir, "", "trace")
}

fn load_inner(text: String, base_dir: Option<&Path>, file: &str, stem: &str) -> Result<LoadedTrace, TraceError> {
    let trace: schema::Trace = match serde_json::from_str(&text) {
        Ok(t) => t,
        Err(e) => return Err(serde_error(&text, file, &e)),
    };
    let (workload, name) = build::build(&trace, base_dir, stem).map_err(|(path, message)| TraceError {
        file: file.to_string(),
        position: locate::locate(&text, &path),
        path,
        message,
    })?;
    Ok(LoadedTrace { workload, name, file: None, text })
}

/// A serde error as a located trace error: serde knows line and column, the scanner gives the
/// path; the message loses serde's own "at line .. column .." suffix and, for the flat command
/// and timeline structs, the long list of every field of every command.
fn serde_error(text: &str, file: &str, e: &serde_json::Error) -> TraceError {
    let mut message = e.to_string();
    if let Some(k) = message.rfind(" at line ") {
        message.truncate(k);
    }
    let (line, column) = (e.line(), e.column());
    let path = if e.is_syntax() || e.is_eof() || line == 0 { String::new() } else { locate::path_at(text, locate::offset_of(text, line, column)) };
    if message.starts_with("unknown field")
        && let Some(k) = message.find(", expected one of")
        && message[k..].matches('`').count() > 40
    {
        message.truncate(k);
        message.push_str(" (see docs/TRACE_FORMAT.md for the fields of each command and operation)");
    }
    if message.starts_with("missing field") {
        message.push_str(" (required here)");
    }
    if e.is_eof() {
        message = format!("{message}: the JSON ends early");
    }
    TraceError { file: file.to_string(), path, position: (line > 0).then_some((line, column)), message }
}

impl LoadedTrace {
    /// An engine error as a trace error: `command_buffers[cb0].commands[3] (vkCmdFillBuffer)`
    /// becomes the JSON path `command_buffers[0].commands[3]` with its line and column.
    pub fn locate_engine_error(&self, e: &WorkloadError) -> TraceError {
        let file = self.file.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        let (at, message) = match e {
            WorkloadError::Invalid { at, message } | WorkloadError::Deadlock { at, message } | WorkloadError::Budget { at, message, .. } => (at.clone(), message.clone()),
            WorkloadError::Execution { at, message } => (at.clone(), format!("shader execution failed: {message}")),
            WorkloadError::Shader { shader, message } => (String::new(), format!("shader `{shader}`: {message}")),
        };
        let mut path = at.clone();
        let mut extra = String::new();
        if let Some(rest) = at.strip_prefix("command_buffers[")
            && let Some(end) = rest.find(']')
            && let Some(i) = self.workload.command_buffers.iter().position(|c| c.name == rest[..end])
        {
            let tail = &rest[end + 1..];
            let (tail, name) = match tail.find(' ') {
                Some(k) => (&tail[..k], tail[k..].trim()),
                None => (tail, ""),
            };
            path = format!("command_buffers[{i}]{tail}");
            extra = name.to_string();
        }
        let position = if path.starts_with("command_buffers[") || path.starts_with("timeline[") { locate::locate(&self.text, &path) } else { None };
        if position.is_none() && !(path.starts_with("command_buffers[") || path.starts_with("timeline[")) {
            // Not a trace place (e.g. "submit 0 cb0[2]" or "profile"): keep it in the message.
            let message = if at.is_empty() { message } else { format!("{at}: {message}") };
            return TraceError { file, path: String::new(), position: None, message };
        }
        let message = if extra.is_empty() { message } else { format!("{extra}: {message}") };
        TraceError { file, path, position, message }
    }
}
