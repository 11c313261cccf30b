//! The replay report: the run report's shape, with the device, the iterations and the
//! validation layer's findings.

use std::fmt::Write as _;

use sim_core::trace::LoadedTrace;
use sim_vulkan::Replay;

use super::report::{MAX_REPORTED_HOST_BYTES, writer_text};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The JSON report.
pub fn json(t: &LoadedTrace, r: &Replay) -> serde_json::Value {
    let host_reads: Vec<serde_json::Value> = r
        .observed
        .host_reads
        .iter()
        .map(|h| {
            let mut v = serde_json::json!({
                "at": {"timeline": h.timeline},
                "label": h.label,
                "differing_bytes": h.differences.differing_bytes,
                "differing_iterations": h.differences.differing_iterations,
                "reference_meets_expectation": h.reference_meets_expectation,
                "data_hex": hex(&h.data[..h.data.len().min(MAX_REPORTED_HOST_BYTES)]),
            });
            if h.data.len() > MAX_REPORTED_HOST_BYTES {
                v["truncated"] = true.into();
            }
            if let Some((off, exp)) = &h.differences.first_difference {
                v["first_difference"] = serde_json::json!({"offset": off, "expected_write": exp});
            }
            timing_json(&mut v, &h.differences);
            v
        })
        .collect();
    let memories: Vec<serde_json::Value> = r
        .observed
        .memories
        .iter()
        .filter(|m| m.differences.differing_iterations > 0 || m.differences.timing_dependent_iterations > 0)
        .map(|m| {
            let mut v = serde_json::json!({"memory": m.memory, "differing_bytes": m.differences.differing_bytes, "differing_iterations": m.differences.differing_iterations});
            if let Some((off, exp)) = &m.differences.first_difference {
                v["first_difference"] = serde_json::json!({"offset": off, "expected_write": exp});
            }
            timing_json(&mut v, &m.differences);
            v
        })
        .collect();
    let corrupted_bytes: u64 = r.observed.memories.iter().map(|m| m.differences.differing_bytes).sum();
    serde_json::json!({
        "gpusim_report": 1,
        "trace": t.name,
        "replay": {"device": r.device, "validation_layer": r.layer},
        "iterations": r.observed.iterations,
        "iterations_with_corruption": r.observed.iterations_with_corruption,
        "corruption": {"corrupted_bytes": corrupted_bytes, "memories": memories},
        "hazards": r.hazards,
        "validation_errors": r.validation_errors,
        "host_reads": host_reads,
        "notes": r.notes,
    })
}

/// Bytes that differed only because they depend on timing: counted apart, not as corruption.
fn timing_json(v: &mut serde_json::Value, d: &sim_vulkan::Differences) {
    if d.timing_dependent_iterations > 0 {
        v["timing_dependent"] = serde_json::json!({"differing_iterations": d.timing_dependent_iterations, "most_differing_bytes": d.timing_dependent_bytes});
    }
}

/// The sentence for bytes that differed only because they depend on timing.
fn timing_text(d: &sim_vulkan::Differences) -> String {
    if d.timing_dependent_iterations == 0 {
        return String::new();
    }
    format!(
        " In {} iteration(s), up to {} byte(s) the reference run knows to depend on timing (which invocation an atomic picked decides them) took other values: a legal outcome, not corruption.",
        d.timing_dependent_iterations, d.timing_dependent_bytes
    )
}

/// The text report.
pub fn text(t: &LoadedTrace, r: &Replay) -> String {
    let w = &t.workload;
    let mut o = String::new();
    let d = &r.device;
    let _ = writeln!(o, "gpusim replay: trace `{}` on {} ({} {}, Vulkan {})", t.name, d.name, d.driver, d.driver_info, d.api_version);
    let _ = writeln!(o, "iterations: {}, {} differ from the reference run", r.observed.iterations, r.observed.iterations_with_corruption);
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    let _ = writeln!(o);
    for h in &r.observed.host_reads {
        if h.differences.differing_iterations == 0 && h.differences.timing_dependent_iterations == 0 {
            let _ = writeln!(o, "Host read `{}` (timeline[{}]): {} bytes, same as the reference run in every iteration.", h.label, h.timeline, h.size);
        } else if h.differences.differing_iterations == 0 {
            let _ = writeln!(o, "Host read `{}` (timeline[{}]): {} bytes, as the reference run's but for bytes that depend on timing.{}", h.label, h.timeline, h.size, timing_text(&h.differences));
        } else {
            let _ = write!(o, "Host read `{}` (timeline[{}]): differs from the reference run in {} iteration(s); first: {} of {} bytes", h.label, h.timeline, h.differences.differing_iterations, h.differences.differing_bytes, h.size);
            if let Some((off, exp)) = &h.differences.first_difference {
                let _ = write!(o, ", from offset {off}, where the reference run read {}", writer_text(w, exp));
            }
            let _ = writeln!(o, ".{}", timing_text(&h.differences));
        }
    }
    for m in r.observed.memories.iter().filter(|m| m.differences.differing_iterations > 0 || m.differences.timing_dependent_iterations > 0) {
        if m.differences.differing_iterations == 0 {
            let _ = writeln!(o, "Memory `{}` at the end: as the reference run's but for bytes that depend on timing.{}", m.memory, timing_text(&m.differences));
            continue;
        }
        let _ = write!(o, "Memory `{}` at the end: differs in {} iteration(s); first: {} bytes", m.memory, m.differences.differing_iterations, m.differences.differing_bytes);
        if let Some((off, exp)) = &m.differences.first_difference {
            let _ = write!(o, ", from offset {off}, where the reference run left {}", writer_text(w, exp));
        }
        let _ = writeln!(o, ".{}", timing_text(&m.differences));
    }
    if r.observed.iterations_with_corruption == 0 {
        let timing = r.observed.host_reads.iter().map(|h| &h.differences).chain(r.observed.memories.iter().map(|m| &m.differences)).any(|d| d.timing_dependent_iterations > 0);
        let but = if timing { ", but for bytes that depend on timing" } else { "" };
        let _ = writeln!(o, "No corruption: every host read and final memory match the reference run{but}.");
    }
    if let Some(layer) = &r.layer {
        let _ = writeln!(o, "\n{layer} (synchronization validation, queue-submit checks on):");
        if r.hazards.is_empty() {
            let _ = writeln!(o, "  no synchronization hazard.");
        } else {
            let _ = writeln!(o, "  {} synchronization hazard(s):", r.hazards.len());
            for h in &r.hazards {
                let _ = writeln!(o, "  - {}", h.summary());
            }
        }
        if !r.validation_errors.is_empty() {
            let _ = writeln!(o, "  {} other message(s): the trace is not valid Vulkan as written:", r.validation_errors.len());
            for e in &r.validation_errors {
                let _ = writeln!(o, "  - {}", e.summary());
            }
        }
    }
    o
}
