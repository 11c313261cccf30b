//! The layer's messages turned into the report's hazards and validation errors.
//!
//! # How a message finds its trace place
//! A hazard found while recording comes during the vkCmd* call of one trace command, so the
//! replay's phase names it exactly. A hazard found at vkQueueSubmit2 names the command buffer by
//! the debug name the replay gave it (the trace id) and the command by its `seq_no`, the
//! layer's 1-based count of the commands recorded in that command buffer (binding, push and
//! dynamic-state calls are not counted, nor the trace's commands that only bind or set state),
//! which for a trace of compute and transfer commands is the trace's command index plus one;
//! the command's Vulkan name is checked against the trace's. The prior access is found the same way, from the
//! `command:`, `seq_no:` and `command_buffer:` of the message's "Access info".

use std::collections::BTreeMap;

use serde::Serialize;
use sim_core::api::{Command, HostOp, Workload};

use crate::layer::{Message, Phase, Severity};

/// A command of the trace, as hazards name places.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Place {
    /// The timeline index of the submission (for a hazard found while recording: the first
    /// submission of the command buffer; absent when it is never submitted or unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit: Option<usize>,
    /// The command buffer's id.
    pub command_buffer: String,
    /// The command's index in it.
    pub command: usize,
}

/// A synchronization hazard the layer reported, in the report's hazard shape.
#[derive(Clone, Debug, Serialize)]
pub struct LayerHazard {
    /// `SYNC-HAZARD-READ-AFTER-WRITE`, ...
    pub id: String,
    /// The command whose access is hazardous.
    pub at: Place,
    /// Its Vulkan name.
    pub command: String,
    /// Its stage and access (`COPY_TRANSFER_READ`).
    pub usage: String,
    /// The resource, when the message names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The earlier command it conflicts with, when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prior: Option<Place>,
    /// Its Vulkan name, as the layer gives it.
    pub prior_command: String,
    /// Its stage and access.
    pub prior_usage: String,
    /// `recording` (inside one command buffer) or `submit` (the layer's queue-submit checks).
    pub found: &'static str,
    /// In how many iterations the layer reported it.
    pub iterations: u32,
    /// Who reported it.
    pub by: &'static str,
    /// The layer's message.
    pub message: String,
}

/// A message of the layer that is not a synchronization hazard: invalid Vulkan.
#[derive(Clone, Debug, Serialize)]
pub struct ValidationError {
    /// The message id (a VUID).
    pub id: String,
    /// Where the replay was: a trace place, `setup` or `readback`.
    pub at: String,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// In how many iterations it came (0 for messages outside the timeline).
    pub iterations: u32,
    /// The layer's message.
    pub message: String,
}

/// The value after `key: ` up to the next `,` or `)` in `text`, searching from `from`.
fn field<'a>(text: &'a str, key: &str, from: usize) -> Option<&'a str> {
    let at = text[from..].find(&format!("{key}: "))? + from + key.len() + 2;
    let end = text[at..].find([',', ')']).map_or(text.len(), |e| at + e);
    Some(text[at..end].trim())
}

/// The debug name in `VkBuffer 0x1234[name]` after `from`.
fn bracketed(text: &str, from: usize) -> Option<&str> {
    let open = text[from..].find('[')? + from + 1;
    let close = text[open..].find(']')? + open;
    Some(&text[open..close])
}

fn strip(usage: &str) -> String {
    usage.strip_prefix("SYNC_").unwrap_or(usage).to_string()
}

/// The command index that the layer's `seq_no` names in command buffer `cb`, checked against
/// the Vulkan name it gives (`vkCmdPipelineBarrier2` and `vkCmdPipelineBarrier2KHR` alike).
fn command_index(w: &Workload, cb: usize, seq_no: Option<usize>, vk_name: &str) -> Option<usize> {
    let commands = &w.command_buffers.get(cb)?.commands;
    let same = |k: usize| commands.get(k).is_some_and(|c| vk_name.trim_end_matches("KHR").starts_with(c.vk_name().trim_end_matches('2')) || c.vk_name().starts_with(vk_name.trim_end_matches("KHR")));
    let seq = seq_no?.checked_sub(1)?;
    // The layer counts action and synchronization commands, not the ones that only set state,
    // nor (1.3.239) vkCmdBeginRendering and vkCmdEndRendering, which it records as no operation
    // of their own (a render pass's begin, next subpass and end it counts).
    let counted = |c: &Command| !matches!(c, Command::BindVertexBuffers { .. } | Command::BindIndexBuffer { .. } | Command::SetViewport(_) | Command::SetScissor(_) | Command::BeginRendering(_) | Command::EndRendering);
    let k = commands.iter().enumerate().filter(|(_, c)| counted(c)).nth(seq).map_or(seq, |(i, _)| i);
    if same(k) { Some(k) } else { (0..commands.len()).rev().find(|&j| j <= k && same(j)) }
}

/// The first submission at or before timeline index `limit` that submits command buffer `cb`
/// (the last such one when `latest`).
fn submission_of(w: &Workload, cb: usize, limit: usize, latest: bool) -> Option<usize> {
    let submits = |t: &usize| matches!(&w.timeline[*t], HostOp::QueueSubmit { batches, .. } if batches.iter().any(|b| b.command_buffers.contains(&cb)));
    let mut it = (0..=limit.min(w.timeline.len().saturating_sub(1))).filter(submits);
    if latest { it.next_back() } else { it.next() }
}

fn cb_index(w: &Workload, name: &str) -> Option<usize> {
    w.command_buffers.iter().position(|c| c.name == name)
}

/// Reads a hazard message caught in `phase`.
fn hazard(w: &Workload, m: &Message) -> Option<LayerHazard> {
    let text = &m.text;
    let body = text.find("| vk").map_or(0, |i| i + 2);
    let command = text[body..].split(':').next().unwrap_or("").trim().to_string();
    let access = text.find("Access info (").unwrap_or(0);
    let (at, usage, found, prior_from) = match &m.phase {
        Phase::Recording { command_buffer, command } => {
            let submit = submission_of(w, *command_buffer, usize::MAX, false);
            let place = Place { submit, command_buffer: w.command_buffers[*command_buffer].name.clone(), command: *command };
            (place, field(text, "usage", access).unwrap_or(""), "recording", access)
        }
        Phase::Timeline { timeline, .. } => {
            // "Hazard ... for entry N, VkCommandBuffer 0x..[cb], Recorded access info (recorded_usage: U, command: C, seq_no: S"
            let cb_at = text.find("VkCommandBuffer")?;
            let cb_name = bracketed(text, cb_at)?;
            let cb = cb_index(w, cb_name)?;
            let rec = text.find("Recorded access info").unwrap_or(cb_at);
            let cmd_name = field(text, "command", rec).unwrap_or("");
            let seq = field(text, "seq_no", rec).and_then(|s| s.parse().ok());
            let k = command_index(w, cb, seq, cmd_name)?;
            let place = Place { submit: Some(*timeline), command_buffer: cb_name.to_string(), command: k };
            let after = text[rec..].find("Access info (").map_or(rec, |i| rec + i + 1);
            (place, field(text, "recorded_usage", rec).unwrap_or(""), "submit", after)
        }
        _ => return None,
    };
    let command = if found == "submit" { w.command_buffers.get(cb_index(w, &at.command_buffer)?)?.commands.get(at.command)?.vk_name().to_string() } else { command };
    let prior_command = field(text, "command", prior_from).unwrap_or("").to_string();
    let prior_seq: Option<usize> = field(text, "seq_no", prior_from).and_then(|s| s.parse().ok());
    // The prior is in another command buffer when the message names one, else in the same.
    let prior_cb = match text[prior_from..].find("command_buffer: ") {
        Some(i) => bracketed(text, prior_from + i).and_then(|n| cb_index(w, n)),
        None => cb_index(w, &at.command_buffer),
    };
    let prior = prior_cb.and_then(|cb| {
        let k = command_index(w, cb, prior_seq, &prior_command)?;
        let limit = at.submit.unwrap_or(usize::MAX);
        let submit = if found == "submit" { submission_of(w, cb, limit, true) } else { at.submit };
        Some(Place { submit, command_buffer: w.command_buffers[cb].name.clone(), command: k })
    });
    // "for srcBuffer VkBuffer 0x..[A]" names the resource while recording.
    let resource = text.find("Hazard ").and_then(|h| {
        let line = &text[h..access.max(h)];
        let b = line.find("VkBuffer ")?;
        bracketed(line, b).map(str::to_string)
    });
    Some(LayerHazard {
        id: m.id.clone(),
        at,
        command,
        usage: strip(usage),
        resource,
        prior,
        prior_command,
        prior_usage: strip(field(text, "prior_usage", prior_from.min(access)).unwrap_or("")),
        found,
        iterations: 1,
        by: "VK_LAYER_KHRONOS_validation",
        message: text.clone(),
    })
}

fn phase_text(w: &Workload, p: &Phase) -> String {
    match p {
        Phase::Setup => "setup".into(),
        Phase::Readback => "readback".into(),
        Phase::Recording { command_buffer, command } => format!("command_buffers[{}].commands[{command}]", w.command_buffers[*command_buffer].name),
        Phase::Timeline { timeline, .. } => format!("timeline[{timeline}]"),
    }
}

/// Splits messages into hazards and other errors, each once with the number of iterations it
/// came in.
pub fn classify(w: &Workload, messages: Vec<Message>) -> (Vec<LayerHazard>, Vec<ValidationError>) {
    let mut hazards: BTreeMap<(Place, String, String, Option<Place>), LayerHazard> = BTreeMap::new();
    let mut errors: BTreeMap<(String, String), ValidationError> = BTreeMap::new();
    let mut order_h = Vec::new();
    let mut order_e = Vec::new();
    for m in &messages {
        if m.id.starts_with("SYNC-HAZARD")
            && let Some(h) = hazard(w, m)
        {
            let key = (h.at.clone(), h.id.clone(), h.usage.clone(), h.prior.clone());
            match hazards.get_mut(&key) {
                Some(existing) => existing.iterations += 1,
                None => {
                    order_h.push(key.clone());
                    hazards.insert(key, h);
                }
            }
            continue;
        }
        let at = phase_text(w, &m.phase);
        let key = (at.clone(), m.id.clone());
        let in_timeline = u32::from(matches!(m.phase, Phase::Timeline { .. }));
        match errors.get_mut(&key) {
            Some(e) => e.iterations += in_timeline,
            None => {
                order_e.push(key.clone());
                let severity = if m.severity == Severity::Error { "error" } else { "warning" };
                errors.insert(key, ValidationError { id: m.id.clone(), at, severity, iterations: in_timeline, message: m.text.clone() });
            }
        }
    }
    let mut h: Vec<LayerHazard> = order_h.into_iter().filter_map(|k| hazards.remove(&k)).collect();
    h.sort_by(|a, b| (&a.at.submit, &a.at.command_buffer, a.at.command).cmp(&(&b.at.submit, &b.at.command_buffer, b.at.command)));
    let e = order_e.into_iter().filter_map(|k| errors.remove(&k)).collect();
    (h, e)
}

impl LayerHazard {
    /// One line for a person: `SYNC-HAZARD-READ-AFTER-WRITE at submit 1 consumer[0] (vkCmdDispatch,
    /// COMPUTE_SHADER_SHADER_STORAGE_READ) after producer[0] (vkCmdFillBuffer, COPY_TRANSFER_WRITE)`.
    pub fn summary(&self) -> String {
        let place = |p: &Place| match p.submit {
            Some(s) => format!("submit {s} {}[{}]", p.command_buffer, p.command),
            None => format!("{}[{}]", p.command_buffer, p.command),
        };
        let resource = self.resource.as_ref().map(|r| format!(" on {r}")).unwrap_or_default();
        let prior = self.prior.as_ref().map(place).unwrap_or_else(|| "an earlier command".into());
        format!("{} at {} ({}, {}){resource}, after {} ({}, {})", self.id, place(&self.at), self.command, self.usage, prior, self.prior_command, self.prior_usage)
    }
}

impl ValidationError {
    /// One line for a person.
    pub fn summary(&self) -> String {
        let text = self.message.split(" | ").last().unwrap_or(&self.message);
        format!("{} at {}: {}", self.id, self.at, text)
    }
}
