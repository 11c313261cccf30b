//! `gpusim check TRACE --fix -o FIXED`: the trace with each hazard's suggested synchronization
//! added: pipeline barriers (synchronization2) before the hazardous command or after the prior
//! one, semaphores between submissions on two queues, and host waits, flushes and invalidates.
//! The trace is edited as JSON, so everything else in it stays as written.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use sim_core::api::Program;
use sim_core::hazard::Hazard;
use sim_core::hazard::diagnose::{NO_FIX, Suggestion, diagnose};

use super::CliError;

/// What `fix` did.
pub struct Fixed {
    /// The corrected trace.
    pub trace: Value,
    /// Hazards fixed.
    pub fixed: usize,
    /// Hazards no synchronization fixes, with why.
    pub unfixable: Vec<String>,
}

/// Adds the suggested synchronization of every hazard to `trace` (the trace's JSON).
pub fn fix(trace: &Value, prog: &Program<'_>, hazards: &[Hazard]) -> Result<Fixed, CliError> {
    let mut t = trace.clone();
    // (command buffer id, index) -> barriers to insert there, in order.
    let mut barriers: BTreeMap<(String, usize), Vec<Value>> = BTreeMap::new();
    // (signal submit, wait submit) -> wait stages.
    let mut semaphores: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    // timeline index -> host operations to insert before it.
    let mut host_ops: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
    let (mut fixed, mut unfixable) = (0, Vec::new());
    for (i, h) in hazards.iter().enumerate() {
        let d = diagnose(prog, h);
        match d.suggested {
            Suggestion::Barrier { insert_before, insert_after, src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask } => {
                let (cb, index) = match (insert_before, insert_after) {
                    (Some(b), _) => (b.command_buffer, b.command),
                    (None, Some(a)) => (a.command_buffer, a.command + 1),
                    (None, None) => continue,
                };
                let b = json!({"src_stage_mask": src_stage_mask, "src_access_mask": src_access_mask, "dst_stage_mask": dst_stage_mask, "dst_access_mask": dst_access_mask});
                let list = barriers.entry((cb, index)).or_default();
                if !list.contains(&b) {
                    list.push(b);
                }
            }
            Suggestion::Semaphore { signal_submit, wait_submit, wait_stage_mask } => {
                let stages = semaphores.entry((signal_submit, wait_submit)).or_default();
                if !stages.contains(&wait_stage_mask) {
                    stages.push(wait_stage_mask);
                }
            }
            Suggestion::HostOp { op, before_timeline, memory, range } => {
                let v = match op {
                    "device_wait_idle" => json!({"op": "device_wait_idle"}),
                    NO_FIX => {
                        unfixable.push(format!("H{}: {}", i + 1, d.diagnosis));
                        continue;
                    }
                    other => {
                        // The hazard's own atoms; to the end of the object when they reach it.
                        let total = prog.workload.memories.iter().find(|m| Some(&m.name) == memory.as_ref()).map_or(0, |m| m.size);
                        let (offset, size) = range.unwrap_or((0, total));
                        let size = if offset + size >= total { json!("WHOLE_SIZE") } else { json!(size) };
                        json!({"op": other, "ranges": [{"memory": memory, "offset": offset, "size": size}]})
                    }
                };
                let list = host_ops.entry(before_timeline).or_default();
                if !list.contains(&v) {
                    list.push(v);
                }
            }
        }
        fixed += 1;
    }
    // Barriers: the last place first, so earlier indices stay right.
    for ((cb, index), list) in barriers.into_iter().rev() {
        let commands = t["command_buffers"]
            .as_array_mut()
            .and_then(|cbs| cbs.iter_mut().find(|c| c["id"] == cb.as_str()))
            .and_then(|c| c["commands"].as_array_mut())
            .ok_or_else(|| format!("command buffer `{cb}` is not in the trace"))?;
        let at = index.min(commands.len());
        commands.insert(at, json!({"cmd": "pipeline_barrier", "memory_barriers": list}));
    }
    // Semaphores, before host operations move the timeline's indices.
    for (n, ((signal, wait), stages)) in semaphores.into_iter().enumerate() {
        let id = format!("gpusim_fix_s{n}");
        let sems = t.as_object_mut().ok_or("the trace is not a JSON object")?.entry("semaphores").or_insert_with(|| json!([]));
        sems.as_array_mut().ok_or("`semaphores` is not a list")?.push(json!(id));
        let timeline = t["timeline"].as_array_mut().ok_or("the trace has no timeline")?;
        if let Some(op) = timeline.get_mut(signal) {
            push_to(batch_mut(op, true), "signal_semaphores", json!(id));
        }
        if let Some(op) = timeline.get_mut(wait) {
            push_to(batch_mut(op, false), "wait_semaphores", json!({"semaphore": id, "stage_mask": stages.join("|")}));
        }
    }
    // Host operations: the last place first.
    for (before, list) in host_ops.into_iter().rev() {
        let timeline = t["timeline"].as_array_mut().ok_or("the trace has no timeline")?;
        let at = before.min(timeline.len());
        for (k, v) in list.into_iter().enumerate() {
            timeline.insert(at + k, v);
        }
    }
    Ok(Fixed { trace: t, fixed, unfixable })
}

/// The batch of a `queue_submit` that semaphores go to: its first or last entry of `batches`,
/// or the operation itself in the one-batch shape.
fn batch_mut(op: &mut Value, last: bool) -> &mut Value {
    let has_batches = op.get("batches").and_then(Value::as_array).is_some_and(|b| !b.is_empty());
    if has_batches {
        let b = op.get_mut("batches").and_then(Value::as_array_mut).expect("checked above");
        let k = if last { b.len() - 1 } else { 0 };
        &mut b[k]
    } else {
        op
    }
}

/// Appends `v` to the list `key` of `target`, making the list if it is absent.
fn push_to(target: &mut Value, key: &str, v: Value) {
    if let Some(Value::Array(a)) = target.as_object_mut().map(|o| o.entry(key).or_insert_with(|| json!([]))) {
        a.push(v);
    }
}

/// Rewrites the trace's relative file names (shaders, payloads) so that they still name the
/// same files from `to`'s directory.
pub fn rebase_files(v: &mut Value, from: &Path, to: &Path) {
    let from_dir = from.parent().unwrap_or(Path::new(".")).to_path_buf();
    let to_dir = to.parent().unwrap_or(Path::new(".")).to_path_buf();
    let same = std::fs::canonicalize(&from_dir).ok().zip(std::fs::canonicalize(if to_dir.as_os_str().is_empty() { Path::new(".") } else { &to_dir }).ok()).is_some_and(|(a, b)| a == b);
    if same {
        return;
    }
    fn walk(v: &mut Value, base: &Path) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k.ends_with("_file")
                        && let Value::String(s) = x
                        && Path::new(s.as_str()).is_relative()
                    {
                        let abs = base.join(s.as_str());
                        *s = std::fs::canonicalize(&abs).unwrap_or(abs).to_string_lossy().into_owned();
                    } else {
                        walk(x, base);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, base)),
            _ => {}
        }
    }
    walk(v, &from_dir);
}
