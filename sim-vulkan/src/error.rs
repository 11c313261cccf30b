//! Why a replay could not run: each variant is one line for a person, naming what is missing or
//! wrong and where.

use thiserror::Error;

/// A replay that could not be made.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// No Vulkan loader (libvulkan.so.1) could be opened.
    #[error("no Vulkan loader: {0} (install the loader, e.g. Debian's libvulkan1, and a driver such as mesa-vulkan-drivers)")]
    NoLoader(String),
    /// The loader found no physical device.
    #[error("no Vulkan device: the loader found none (install a driver, e.g. Debian's mesa-vulkan-drivers for lavapipe)")]
    NoDevice,
    /// `--device NAME` matches no device.
    #[error("no Vulkan device is named like `{wanted}`; the devices are: {available}")]
    UnknownDevice {
        /// What was asked for.
        wanted: String,
        /// The devices present, for the message.
        available: String,
    },
    /// The validation layer is not installed.
    #[error("the Khronos validation layer (VK_LAYER_KHRONOS_validation) is not installed (Debian: vulkan-validationlayers); --validate needs it")]
    NoLayer,
    /// The device cannot do what the trace asks.
    #[error("{at}: {message}")]
    Unsupported {
        /// The trace place (`memory[A_mem]`, `command_buffers[cb0].commands[2]`).
        at: String,
        /// What the device lacks.
        message: String,
    },
    /// A Vulkan call failed.
    #[error("{call} failed: {result}{}", at.as_ref().map(|a| format!(" ({a})")).unwrap_or_default())]
    Vulkan {
        /// The Vulkan function.
        call: &'static str,
        /// Its result code.
        result: ash::vk::Result,
        /// The trace place it served, when there is one.
        at: Option<String>,
    },
    /// The device did not finish in time.
    #[error("{at}: the device did not finish within {seconds} s{reason}")]
    Hang {
        /// The timeline place that waited.
        at: String,
        /// How long it waited.
        seconds: u64,
        /// What may explain it.
        reason: String,
    },
    /// The workload itself is invalid (the same checks as `gpusim run`).
    #[error(transparent)]
    Workload(#[from] sim_core::api::WorkloadError),
}

/// Turns an ash result into a [`ReplayError::Vulkan`] naming the call.
pub(crate) trait VkContext<T> {
    /// Names the failing call.
    fn call(self, call: &'static str) -> Result<T, ReplayError>;
    /// Names the failing call and the trace place it served.
    fn call_at(self, call: &'static str, at: impl Into<String>) -> Result<T, ReplayError>;
}

impl<T> VkContext<T> for Result<T, ash::vk::Result> {
    fn call(self, call: &'static str) -> Result<T, ReplayError> {
        self.map_err(|result| ReplayError::Vulkan { call, result, at: None })
    }

    fn call_at(self, call: &'static str, at: impl Into<String>) -> Result<T, ReplayError> {
        self.map_err(|result| ReplayError::Vulkan { call, result, at: Some(at.into()) })
    }
}
