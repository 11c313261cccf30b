//! The replay report: the run report's shape, with the device, the iterations and the
//! validation layer's findings.

use std::fmt::Write as _;

use sim_core::trace::LoadedTrace;
use sim_vulkan::Replay;

use super::report::{MAX_REPORTED_HOST_BYTES, TEXT_HAZARDS, hazards_json, writer_text};
use sim_core::hazard::{Hazard, Place};
use sim_vulkan::LayerHazard;

/// gpusim's own verdict on the replayed program, beside the layer's: the hazards `gpusim check`
/// reports (bound ranges, as the layer takes them; host accesses included) and those `gpusim
/// run` reports (the bytes each dispatch accessed in the reference run).
pub struct Verdict {
    /// `gpusim check`'s hazards.
    pub check: Vec<Hazard>,
    /// The hazards on the bytes accessed (`gpusim run`'s).
    pub exact: Vec<Hazard>,
    /// Per buffer name: whether some dispatch accesses it as `Coherent` (or only atomically).
    pub coherent: Vec<String>,
}

impl Verdict {
    /// The verdict on `w`, checked against `profile`'s device rules (its nonCoherentAtomSize).
    pub fn of(w: &sim_core::api::Workload, profile: &sim_core::profile::Profile, limits: &sim_core::engine::RunLimits) -> Result<Verdict, sim_core::api::WorkloadError> {
        let (prog, stream) = sim_core::engine::validate(w, profile, limits)?;
        let atom = profile.limits.non_coherent_atom_size;
        let check = sim_core::hazard::detect_program(&prog, &stream, None, atom);
        let reference = sim_core::engine::reference::reference_run_noting(&prog, &stream, profile.machine.cu.subgroup_size, &Default::default(), limits, true)?;
        let exact = sim_core::hazard::detect_program(&prog, &stream, Some(&reference.accesses), atom);
        let mut coherent: Vec<String> = Vec::new();
        for inst in 0..prog.instances.len() {
            for u in prog.action(inst).map(|a| a.usages.as_slice()).unwrap_or_default() {
                let name = prog.resource_name(u.buffer).to_string();
                if u.coherent && !coherent.contains(&name) {
                    coherent.push(name);
                }
            }
        }
        Ok(Verdict { check, exact, coherent })
    }
}

/// What gpusim says of one hazard the layer reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayerCall {
    /// gpusim reports the same hazard: index in [`Verdict::check`].
    Agrees(usize),
    /// `gpusim check` reports it too (bound ranges), but the bytes the two commands accessed do
    /// not overlap: no hazard (index in [`Verdict::check`]).
    BoundRange(usize),
    /// The layer puts vkCmdFillBuffer or vkCmdUpdateBuffer at the COPY stage.
    FillStage,
    /// The layer does not model SPIR-V's `Coherent` decoration.
    Coherent,
    /// gpusim finds no such hazard and knows no reason the layer would: a disagreement.
    Disagrees,
}

impl LayerCall {
    /// The report's word for it.
    pub fn key(&self) -> &'static str {
        match self {
            LayerCall::Agrees(_) => "agrees",
            LayerCall::BoundRange(_) => "bound_range",
            LayerCall::FillStage => "fill_stage",
            LayerCall::Coherent => "coherent",
            LayerCall::Disagrees => "disagrees",
        }
    }

    /// Why, for a person (`v`: the verdict it was made from; `layer_id`: the layer's name for
    /// the hazard).
    pub fn text(&self, v: &Verdict, layer_id: &str) -> String {
        match self {
            LayerCall::Agrees(k) => match v.check.get(*k).map(|g| g.id).filter(|id| *id != layer_id) {
                // Two queues the device folds into one: a race becomes an ordered pair.
                Some(id) => format!("reports it too, as {id} (H{})", k + 1),
                None => format!("reports it too (H{})", k + 1),
            },
            LayerCall::BoundRange(k) => format!(
                "a false positive of the layer's model: it takes each dispatch's whole bound range as accessed; the bytes the two commands accessed do not overlap, so `gpusim run` reports nothing (`gpusim check`, which runs nothing, takes bound ranges too: H{})",
                k + 1
            ),
            LayerCall::FillStage => "a known false positive of this layer version: it puts vkCmdFillBuffer and vkCmdUpdateBuffer at the COPY stage, where the specification puts them at CLEAR, so a barrier from CLEAR does not satisfy it (KhronosGroup/Vulkan-ValidationLayers#7406, fixed by #7543)".into(),
            LayerCall::Coherent => "a known false positive of the layer's model: it does not model SPIR-V's `Coherent` decoration, whose accesses are made available and visible at device scope each, so an execution dependency is enough".into(),
            LayerCall::Disagrees => "gpusim finds no such hazard: a disagreement with the layer (the Vulkan specification decides)".into(),
        }
    }
}

/// Whether the layer's place `p` is the command `c` (submission aside: the layer names the
/// first submission of a command buffer while recording).
fn same_command(p: &sim_vulkan::hazards::Place, c: &Place) -> bool {
    matches!(c, Place::Command(c) if c.command_buffer == p.command_buffer && c.command == p.command)
}

/// What gpusim says of the layer's hazard `h`.
pub fn layer_call(w: &sim_core::api::Workload, v: &Verdict, h: &LayerHazard) -> LayerCall {
    let matches = |g: &Hazard| same_command(&h.at, &g.at) && h.prior.as_ref().is_none_or(|p| same_command(p, &g.prior));
    if let Some(k) = v.check.iter().position(|g| matches(g) && v.exact.iter().any(|e| e.at == g.at && e.prior == g.prior)) {
        return LayerCall::Agrees(k);
    }
    if let Some(k) = v.check.iter().position(matches) {
        return LayerCall::BoundRange(k);
    }
    let command = |p: &sim_vulkan::hazards::Place| w.command_buffers.iter().find(|c| c.name == p.command_buffer).and_then(|c| c.commands.get(p.command)).map(|c| c.vk_name());
    let is_clear = |p: Option<&sim_vulkan::hazards::Place>, usage: &str| p.and_then(command).is_some_and(|n| n == "vkCmdFillBuffer" || n == "vkCmdUpdateBuffer") && usage.starts_with("COPY");
    if is_clear(Some(&h.at), &h.usage) || is_clear(h.prior.as_ref(), &h.prior_usage) {
        return LayerCall::FillStage;
    }
    if h.resource.as_ref().is_some_and(|r| v.coherent.contains(r)) {
        return LayerCall::Coherent;
    }
    LayerCall::Disagrees
}

/// What the layer says of gpusim's hazard `g`: `None` when it reports it too.
fn layer_says(r: &Replay, g: &Hazard) -> Option<&'static str> {
    if r.layer.is_none() {
        return Some("the layer was not loaded (--validate)");
    }
    if r.hazards.iter().any(|h| same_command(&h.at, &g.at) && h.prior.as_ref().is_none_or(|p| same_command(p, &g.prior))) {
        return None;
    }
    Some(match (&g.at, &g.prior) {
        (Place::Host { .. }, _) | (_, Place::Host { .. }) => "the layer does not check host accesses",
        _ => "the layer does not report it",
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The JSON report.
pub fn json(t: &LoadedTrace, r: &Replay, v: &Verdict) -> serde_json::Value {
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
        "hazards": layer_hazards_json(t, r, v),
        "gpusim_check": gpusim_json(t, r, v),
        "validation_errors": r.validation_errors,
        "host_reads": host_reads,
        "notes": r.notes,
    })
}

/// The layer's hazards, each with what gpusim says of it (`gpusim`: `{call, why}`).
fn layer_hazards_json(t: &LoadedTrace, r: &Replay, v: &Verdict) -> serde_json::Value {
    let list: Vec<serde_json::Value> = r
        .hazards
        .iter()
        .map(|h| {
            let mut j = serde_json::to_value(h).unwrap_or_default();
            let call = layer_call(&t.workload, v, h);
            j["gpusim"] = serde_json::json!({"call": call.key(), "why": call.text(v, &h.id)});
            if let LayerCall::Agrees(k) | LayerCall::BoundRange(k) = call {
                j["gpusim"]["hazard"] = k.into();
            }
            j
        })
        .collect();
    serde_json::Value::Array(list)
}

/// `gpusim check`'s hazards, each with whether `gpusim run` reports it (`on_accessed_bytes`) and
/// what the layer says of it (`layer`: absent when it reports it too).
fn gpusim_json(t: &LoadedTrace, r: &Replay, v: &Verdict) -> serde_json::Value {
    let mut list = hazards_json(&t.workload, &v.check);
    if let Some(a) = list.as_array_mut() {
        for (g, j) in v.check.iter().zip(a.iter_mut()) {
            j["on_accessed_bytes"] = v.exact.iter().any(|e| e.at == g.at && e.prior == g.prior).into();
            if let Some(why) = layer_says(r, g) {
                j["layer"] = why.into();
            }
        }
    }
    list
}

/// The largest difference of a differing byte (1 where a driver rounds a UNORM channel the
/// other way); bytes that differed only because they depend on timing, counted apart, not as
/// corruption.
fn timing_json(v: &mut serde_json::Value, d: &sim_vulkan::Differences) {
    if d.differing_iterations > 0 {
        v["largest_difference"] = d.largest_difference.into();
    }
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
pub fn text(t: &LoadedTrace, r: &Replay, v: &Verdict) -> String {
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
            let _ = write!(o, "; no byte is off by more than {}", h.differences.largest_difference);
            if h.differences.largest_difference == 1 {
                let _ = write!(o, " (as where a driver rounds a UNORM channel the other way)");
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
            for h in r.hazards.iter().take(TEXT_HAZARDS) {
                let _ = writeln!(o, "  - {}", h.summary());
                let _ = writeln!(o, "    gpusim: {}.", layer_call(w, v, h).text(v, &h.id));
            }
            if r.hazards.len() > TEXT_HAZARDS {
                let mut calls: Vec<(&'static str, usize)> = Vec::new();
                for h in &r.hazards[TEXT_HAZARDS..] {
                    let key = layer_call(w, v, h).key();
                    match calls.iter_mut().find(|c| c.0 == key) {
                        Some(c) => c.1 += 1,
                        None => calls.push((key, 1)),
                    }
                }
                let said: Vec<String> = calls.iter().map(|(k, n)| format!("{n} {k}")).collect();
                let _ = writeln!(o, "  ... and {} more (gpusim: {}), all in --report json.", r.hazards.len() - TEXT_HAZARDS, said.join(", "));
            }
        }
        if !r.validation_errors.is_empty() {
            let _ = writeln!(o, "  {} other message(s): the trace is not valid Vulkan as written:", r.validation_errors.len());
            for e in &r.validation_errors {
                let _ = writeln!(o, "  - {}", e.summary());
            }
        }
    }
    let _ = writeln!(o, "\ngpusim check (the same program, by the Vulkan specification; host accesses included):");
    if v.check.is_empty() {
        let _ = writeln!(o, "  no synchronization hazard.");
    }
    for (k, g) in v.check.iter().enumerate().take(TEXT_HAZARDS) {
        let place = |p: &Place| match p {
            Place::Command(c) => format!("submit {} {}[{}]", c.submit, c.command_buffer, c.command),
            Place::Host { timeline } => format!("timeline[{timeline}]"),
        };
        let _ = writeln!(o, "  H{} {} at {} ({}) on {} [{}, {}), after {} ({})", k + 1, g.id, place(&g.at), g.usage, g.resource, g.offset, g.offset + g.size, place(&g.prior), g.prior_usage);
        let exact = v.exact.iter().any(|e| e.at == g.at && e.prior == g.prior);
        let mut notes = Vec::new();
        if !exact {
            notes.push("on the bound ranges only: the bytes the two accessed do not overlap, and `gpusim run` reports nothing".to_string());
        }
        match layer_says(r, g) {
            None => notes.push("the layer reports it too".into()),
            Some(why) => notes.push(why.into()),
        }
        let _ = writeln!(o, "    {}.", notes.join("; "));
    }
    if v.check.len() > TEXT_HAZARDS {
        let _ = writeln!(o, "  ... and {} more, all in --report json (gpusim_check).", v.check.len() - TEXT_HAZARDS);
    }
    o
}
