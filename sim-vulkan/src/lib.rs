//! Replays a gpusim workload on a real Vulkan device, optionally under the Khronos validation
//! layer with synchronization validation, and compares what the device produced with the
//! reference run.
//!
//! ```text
//!  Workload ──► device::Session::open ──► (instance, device, queues, layer messenger)
//!     │                  │
//!     │                  └─ subgroup size ──► sim_core reference_outcome (expected bytes)
//!     ▼
//!  objects::Objects (memory, buffers, images, pipelines, sync objects;
//!     │              graphics: render passes, framebuffers, graphics pipelines)
//!     ▼
//!  record::record_all (command buffers, each command tagged with its trace place;
//!     │                graphics::Recorder: render passes, dynamic rendering, draws)
//!     ▼
//!  run::Runner (host timeline × iterations, read back, compare) ──► Observed
//!     ▼
//!  hazards::classify (layer messages ──► hazards, validation errors)  ──► Replay
//! ```
//!
//! The loader is opened at run time (`ash::Entry::load`), so a machine without Vulkan runs
//! everything else in gpusim and gets a one-line error from a replay.

mod descriptors;
pub mod device;
pub mod error;
mod graphics;
pub mod hazards;
mod images;
pub mod layer;
mod objects;
mod record;
pub mod run;

use sim_core::api::Workload;
use sim_core::engine::RunLimits;

pub use device::{DeviceInfo, Session};
pub use error::ReplayError;
pub use hazards::{LayerHazard, ValidationError};
pub use run::{Differences, HostReadReport, MemoryReport};

/// The most iterations one replay may ask for.
pub const MAX_ITERATIONS: u32 = 100_000;

/// How a replay runs.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// A device index, exact name or part of a name; `None`: the first device.
    pub device: Option<String>,
    /// Load the validation layer with synchronization validation.
    pub validate: bool,
    /// Times the program runs.
    pub iterations: u32,
    /// Budgets of the reference run.
    pub limits: RunLimits,
}

/// What a replay found.
pub struct Replay {
    /// The device.
    pub device: DeviceInfo,
    /// The validation layer that watched, with its version (`None`: not loaded).
    pub layer: Option<String>,
    /// What the device produced, against the reference run.
    pub observed: run::Observed,
    /// Synchronization hazards the layer reported.
    pub hazards: Vec<LayerHazard>,
    /// Other messages of the layer: the trace is not valid Vulkan (or the replay made a mistake:
    /// those during setup or read-back name no trace place).
    pub validation_errors: Vec<ValidationError>,
    /// Things a reader should know (queues shared, memory types with more properties).
    pub notes: Vec<String>,
}

impl Replay {
    /// Whether anything was found: an iteration that differs from the reference run, a
    /// hazard, or a validation error.
    pub fn found_something(&self) -> bool {
        self.observed.iterations_with_corruption > 0 || !self.hazards.is_empty() || !self.validation_errors.is_empty()
    }
}

/// Replays `w` as `options` say.
pub fn replay(w: &Workload, options: &ReplayOptions) -> Result<Replay, ReplayError> {
    if options.iterations == 0 || options.iterations > MAX_ITERATIONS {
        return Err(ReplayError::Unsupported { at: "--iterations".into(), message: format!("{} is not between 1 and {MAX_ITERATIONS}", options.iterations) });
    }
    // The workload's own checks come first, its submissions' too (a semaphore or event wait
    // nothing signals, a host vkSetEvent while its waiter is pending): a trace that is not valid
    // is not run anywhere, and the device is not opened for it.
    let prog = sim_core::api::Program::new(w)?;
    sim_core::engine::stream::Stream::lower(&prog)?;
    let session = Session::open(w, options.device.as_deref(), options.validate)?;
    let reference = Some(sim_core::engine::reference_outcome(w, session.info.subgroup_size, &options.limits)?);
    let mut notes = session.notes.clone();
    if !w.images.is_empty() {
        notes.push("images are laid out as the driver chooses: their memory is not compared byte for byte with the reference run's; what the trace copies out of them into buffers is".into());
    }
    // An image created PREINITIALIZED leaves that layout at its first transition and never
    // returns to it: a second iteration of the same command buffers would transition it from a
    // layout it no longer has.
    let mut iterations = options.iterations;
    if iterations > 1 && w.images.iter().any(|im| im.initial_layout == "PREINITIALIZED") {
        iterations = 1;
        notes.push(format!("{} iterations asked for, 1 made: an image created PREINITIALIZED cannot be put back in that layout for another", options.iterations));
    }
    let observed = {
        let mut objects = objects::Objects::new(&session, w, &mut notes)?;
        let cbs = record::record_all(&objects, w)?;
        let mut runner = run::Runner::new(&mut objects, cbs)?;
        runner.run(w, reference.as_ref(), iterations)?
    };
    let messages = session.capture().take();
    let (hazards, validation_errors) = hazards::classify(w, messages);
    Ok(Replay { device: session.info.clone(), layer: session.layer.clone(), observed, hazards, validation_errors, notes })
}
