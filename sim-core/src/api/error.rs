//! Errors of building and running a workload.

use thiserror::Error;

/// A workload that cannot be built or run, with the place at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WorkloadError {
    /// A shader failed to compile or is not supported.
    #[error("shader `{shader}`: {message}")]
    Shader {
        /// The shader's id.
        shader: String,
        /// The compiler's or interpreter's own diagnostic.
        message: String,
    },
    /// An id that names nothing, or a value that breaks a rule of the API or a device limit.
    #[error("{at}: {message}")]
    Invalid {
        /// Where: e.g. `command_buffers[cb0].commands[3]` or `timeline[2]`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The program can never finish: a wait on something never signalled.
    #[error("{at}: {message}")]
    Deadlock {
        /// The host operation or command that waits forever.
        at: String,
        /// What it waits for.
        message: String,
    },
    /// The run spent one of its budgets ([`crate::engine::RunLimits`]) and was stopped.
    #[error("{at}: {message}")]
    Budget {
        /// Which budget ran out.
        budget: Budget,
        /// The dispatch running when the budget ran out, or `run`.
        at: String,
        /// Which budget, and how to raise it.
        message: String,
    },
    /// A shader failed while running (step limit, out-of-range protocol).
    #[error("{at}: shader execution failed: {message}")]
    Execution {
        /// The dispatch.
        at: String,
        /// The failure.
        message: String,
    },
}

/// The budgets of a run ([`crate::engine::RunLimits`]), each with its own flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Simulated cycles (`--max-cycles`); only the simulated run has cycles.
    Cycles,
    /// Shader instructions summed over subgroups (`--max-instructions`), counted for the
    /// reference run and the simulated run each on its own.
    Instructions,
    /// Bytes moved by transfer commands over all submissions (`--max-transfer-bytes`), checked
    /// before anything runs.
    TransferBytes,
}
