//! The one error type of the crate: load-time problems (parse, validation, unsupported
//! constructs) and run-time problems (step limit, protocol misuse, missing bindings).

use thiserror::Error;

/// Everything that can go wrong loading or running a shader. Nothing in this crate panics on
/// bad input; it returns one of these instead.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ShaderError {
    /// The WGSL or GLSL source did not parse.
    #[error("shader `{name}`: parse error: {message}")]
    Parse {
        /// Name given to the module when it was loaded.
        name: String,
        /// The front end's diagnostic, with the source location.
        message: String,
    },
    /// The SPIR-V blob was malformed or used something the SPIR-V front end rejects.
    #[error("shader `{name}`: invalid SPIR-V: {message}")]
    SpirV {
        /// Name given to the module when it was loaded.
        name: String,
        /// The front end's message.
        message: String,
    },
    /// The module parsed but did not pass naga's validator.
    #[error("shader `{name}`: validation failed: {message}")]
    Validation {
        /// Name given to the module when it was loaded.
        name: String,
        /// The validator's message, with the source location where known.
        message: String,
    },
    /// The shader uses something this interpreter does not implement.
    #[error("shader `{name}`: unsupported {construct} at {location}")]
    Unsupported {
        /// Name given to the module when it was loaded.
        name: String,
        /// What the construct is (e.g. "expression ImageSample").
        construct: String,
        /// `line:column` in the source, or the function and expression for binary input.
        location: String,
    },
    /// No compute entry point of that name exists in the module.
    #[error("shader `{name}`: no compute entry point named `{entry_point}`")]
    EntryPointNotFound {
        /// Name given to the module when it was loaded.
        name: String,
        /// The entry point asked for.
        entry_point: String,
    },
    /// A subgroup ran more instructions than its configured limit (a runaway loop).
    #[error("subgroup {subgroup} of workgroup {workgroup:?} exceeded the limit of {limit} instructions")]
    StepLimit {
        /// Workgroup id.
        workgroup: [u32; 3],
        /// Subgroup index within the workgroup.
        subgroup: usize,
        /// The configured limit.
        limit: u64,
    },
    /// The caller drove a workgroup against the protocol (e.g. stepped a subgroup that waits for
    /// `complete`, or completed with the wrong number of bytes).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// A dispatch was given bad arguments (missing binding, bad subgroup size, ...).
    #[error("bad dispatch: {0}")]
    Dispatch(String),
    /// An invariant of the compiled program did not hold. Reported rather than panicking.
    #[error("internal interpreter error: {0}")]
    Internal(String),
}
