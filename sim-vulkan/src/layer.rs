//! What the Khronos validation layer says, caught through `VK_EXT_debug_utils`.
//!
//! # Design
//! The layer calls [`callback`] on the thread that made the Vulkan call it checks, while that
//! call runs: a hazard inside a command buffer while the command is recorded, a hazard across
//! submissions inside vkQueueSubmit2. The replay sets the current [`Phase`] before each call, so
//! every message is tied to the trace place that caused it, with no guessing from the text. The
//! text is then read for what the place does not say: the hazard's usages, the prior command,
//! the resource.
//!
//! Synchronization validation is turned on with `VkValidationFeaturesEXT`, and its queue-submit
//! checks with the layer setting `VK_LAYER_ENABLES`, whose list separator on Linux is `:` (with
//! `,` the whole setting is silently ignored, and submission-time hazards go unreported).

use std::ffi::{CStr, c_void};
use std::sync::Mutex;

use ash::vk;

/// The layer's name.
pub const LAYER_NAME: &CStr = c"VK_LAYER_KHRONOS_validation";

/// The layer setting that enables synchronization validation with its queue-submit checks
/// (`VK_LAYER_ENABLES`, `:`-separated on Linux).
pub const LAYER_ENABLES: &str = "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT:VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT";

/// Where the replay was when a message came.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Phase {
    /// Creating objects, or zeroing memory before an iteration.
    #[default]
    Setup,
    /// Recording command `command` of trace command buffer `command_buffer`.
    Recording {
        /// Trace command buffer index.
        command_buffer: usize,
        /// Command index in it.
        command: usize,
    },
    /// Performing timeline entry `timeline` in iteration `iteration`.
    Timeline {
        /// Timeline index.
        timeline: usize,
        /// Iteration (0-based).
        iteration: u32,
    },
    /// Reading final memory back after an iteration.
    Readback,
}

/// How serious the layer says a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// An error: invalid usage or a hazard.
    Error,
    /// A warning.
    Warning,
}

/// One message, as the layer gave it.
#[derive(Clone, Debug)]
pub struct Message {
    /// The message id name (`SYNC-HAZARD-READ-AFTER-WRITE`, `VUID-vkCmdCopyBuffer-srcOffset-00113`).
    pub id: String,
    /// Error or warning.
    pub severity: Severity,
    /// The full text.
    pub text: String,
    /// Where the replay was.
    pub phase: Phase,
}

/// The messages caught so far and the phase to tag new ones with.
#[derive(Default)]
pub struct Capture {
    messages: Mutex<Vec<Message>>,
    phase: Mutex<Phase>,
}

/// The most messages kept: a trace that repeats one mistake in a long loop gets its first
/// messages, not an unbounded list.
pub const MAX_MESSAGES: usize = 100_000;

impl Capture {
    /// Sets the phase that messages from now on are tagged with.
    pub fn set_phase(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = phase;
    }

    /// Takes every message caught so far.
    pub fn take(&self) -> Vec<Message> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn push(&self, m: Message) {
        let mut all = self.messages.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() < MAX_MESSAGES {
            all.push(m);
        }
    }

    fn phase(&self) -> Phase {
        self.phase.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The debug-utils callback: records errors and warnings with the current phase.
///
/// # Safety
/// `user` is the [`Capture`] given at messenger creation, alive as long as the messenger.
pub unsafe extern "system" fn callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // No panic may cross into the layer's C++ frames.
    let _ = std::panic::catch_unwind(|| {
        if user.is_null() || data.is_null() {
            return;
        }
        let severity = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
            Severity::Error
        } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
            Severity::Warning
        } else {
            return;
        };
        // SAFETY: the layer passes valid data for the call's duration; `user` is our Capture.
        let (capture, data) = unsafe { (&*(user as *const Capture), &*data) };
        let text = |p: *const std::ffi::c_char| if p.is_null() { String::new() } else { unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned() };
        let id = text(data.p_message_id_name);
        let message = text(data.p_message);
        capture.push(Message { id, severity, text: message, phase: capture.phase() });
    });
    vk::FALSE
}
