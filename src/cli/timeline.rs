//! `--timeline FILE`: the run as Chrome trace-event JSON (opens in Perfetto and
//! chrome://tracing).
//!
//! Processes and threads: "queues" (a thread per queue, its commands), "compute units" (a
//! thread per CU, its workgroups), "transfer engine" (fills, updates, copies) and "barriers" (a
//! thread per queue: each sync node as a *drain* slice, from submission to firing, while it
//! waits for its first scope, then a slice for its cache operations, with each operation and
//! the lines it wrote back in `args`). Times are microseconds of the profile's core clock
//! (`timing.core_clock_mhz`): `ts = cycle / MHz`. A run stopped at its instruction budget after
//! stale reads ends its commands and workgroups under way at the stop and marks it with a global
//! instant event `stopped` (its `args` and `otherData.stopped`: where, why, the cycle).
//!
//! The file is written event by event, so that a run of millions of workgroups needs no more
//! memory for its timeline than the run recorded (at most
//! [`sim_core::engine::MAX_TIMELINE_WORKGROUPS`] workgroup spans; later workgroups are counted
//! in `otherData.workgroups_not_recorded`).

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use sim_core::engine::{CacheOp, CacheTarget, Command, HostOp, RunResult, Workload};
use sim_core::profile::Profile;
use sim_caches::Maintenance;

use super::CliError;
use super::report::{command_text, named_command_text};

const PID_QUEUES: u32 = 1;
const PID_CUS: u32 = 2;
const PID_TRANSFER: u32 = 3;
const PID_BARRIERS: u32 = 4;

/// A cache operation in words: `flush L2 (whole cache)`.
pub fn cache_op_text(op: &CacheOp) -> String {
    let action = match op.action {
        Maintenance::Flush => "flush",
        Maintenance::Invalidate => "invalidate",
        Maintenance::FlushInvalidate => "flush+invalidate",
    };
    let target = match op.target {
        CacheTarget::L1 => "L1",
        CacheTarget::Texture => "T$",
        CacheTarget::Uniform => "U$",
        CacheTarget::L2 => "L2",
        CacheTarget::Rop => "ROP$",
    };
    match op.range {
        None => format!("{action} {target} (whole cache)"),
        Some((a, n)) => format!("{action} {target} [0x{a:x}, +{n})"),
    }
}

fn meta(pid: u32, tid: Option<u64>, name: &str) -> Value {
    match tid {
        None => json!({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0, "args": {"name": name}}),
        Some(t) => json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": t, "ts": 0, "args": {"name": name}}),
    }
}

/// Writes the Chrome trace-event JSON of a run to the file at `path`.
pub fn write_chrome_trace(path: &Path, w: &Workload, p: &Profile, r: &RunResult) -> Result<(), CliError> {
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(cannot)?;
    let mut out = std::io::BufWriter::new(file);
    chrome_trace(&mut out, w, p, r).map_err(|e| match e.downcast::<std::io::Error>() {
        Ok(io) => cannot(*io).into(),
        Err(other) => other,
    })?;
    out.flush().map_err(cannot)?;
    Ok(())
}

/// The events of a timeline, written as they are made: the opening of the document, then each
/// event, then the closing with `otherData`.
struct EventWriter<'o> {
    out: &'o mut dyn Write,
    first: bool,
}

impl EventWriter<'_> {
    fn push(&mut self, event: Value) -> Result<(), CliError> {
        self.out.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        // An I/O failure stays an I/O error, so that the caller names the file.
        serde_json::to_writer(&mut *self.out, &event).map_err(std::io::Error::from)?;
        Ok(())
    }
}

/// Writes the Chrome trace-event JSON of a run to `out`.
pub fn chrome_trace(out: &mut dyn Write, w: &Workload, p: &Profile, r: &RunResult) -> Result<(), CliError> {
    let mhz = p.timing.core_clock_mhz.max(1) as f64;
    let us = |c: u64| c as f64 / mhz;
    out.write_all(b"{\"traceEvents\":[")?;
    let mut ev = EventWriter { out, first: true };
    for e in [meta(PID_QUEUES, None, "queues"), meta(PID_CUS, None, "compute units"), meta(PID_TRANSFER, None, "transfer engine"), meta(PID_BARRIERS, None, "barriers")] {
        ev.push(e)?;
    }
    for (q, name) in w.queues.iter().enumerate() {
        ev.push(meta(PID_QUEUES, Some(q as u64), &format!("queue {name}")))?;
        ev.push(meta(PID_BARRIERS, Some(q as u64), &format!("sync on {name}")))?;
    }
    ev.push(meta(PID_TRANSFER, Some(0), "transfer engine"))?;
    let cus = p.machine.compute_units as u64;
    for cu in 0..cus {
        ev.push(meta(PID_CUS, Some(cu), &format!("CU {cu}")))?;
    }
    let queue_of = |submit: usize| match w.timeline.get(submit) {
        Some(HostOp::QueueSubmit { queue, .. }) => *queue as u64,
        _ => 0,
    };
    // Command buffers by name, looked up once per command rather than searched for.
    let by_name: std::collections::HashMap<&str, &sim_core::engine::CommandBufferDesc> = w.command_buffers.iter().map(|c| (c.name.as_str(), c)).collect();
    for (at, start, end) in &r.spans {
        let command = by_name.get(at.command_buffer.as_str()).and_then(|c| c.commands.get(at.command));
        let name = command.map_or("command", |c| c.vk_name());
        let text = named_command_text(name, at);
        let args = json!({"command": text, "start_cycle": start, "end_cycle": end});
        ev.push(json!({"ph": "X", "name": name, "cat": "command", "pid": PID_QUEUES, "tid": queue_of(at.submit), "ts": us(*start), "dur": us(end.saturating_sub(*start)), "args": args}))?;
        let transfer = command.is_some_and(|c| matches!(c, Command::FillBuffer { .. } | Command::UpdateBuffer { .. } | Command::CopyBuffer { .. }));
        if transfer {
            ev.push(json!({"ph": "X", "name": name, "cat": "transfer", "pid": PID_TRANSFER, "tid": 0, "ts": us(*start), "dur": us(end.saturating_sub(*start)), "args": {"command": text}}))?;
        }
    }
    // Each dispatch's text once, not once per workgroup.
    let texts: Vec<String> = r.workgroup_commands.iter().map(|at| command_text(w, at)).collect();
    for g in &r.workgroups {
        ev.push(json!({"ph": "X", "name": format!("wg {}", g.workgroup), "cat": "workgroup", "pid": PID_CUS, "tid": g.cu as u64, "ts": us(g.start), "dur": us(g.end.saturating_sub(g.start)),
            "args": {"command": texts.get(g.command), "workgroup": g.workgroup}}))?;
    }
    for s in &r.syncs {
        let tid = s.queue as u64;
        if s.fired > s.queued {
            ev.push(json!({"ph": "X", "name": format!("drain: {}", s.label), "cat": "drain", "pid": PID_BARRIERS, "tid": tid, "ts": us(s.queued), "dur": us(s.fired - s.queued),
                "args": {"waits_for": "the work of its first synchronization scope", "from_cycle": s.queued, "to_cycle": s.fired}}))?;
        }
        let ops: Vec<Value> = s.ops.iter().map(|o| json!({"operation": cache_op_text(&o.op), "lines_written_back": o.lines_written_back, "cycles": o.cycles})).collect();
        let total: u64 = s.ops.iter().map(|o| o.lines_written_back).sum();
        ev.push(json!({"ph": "X", "name": s.label, "cat": "barrier", "pid": PID_BARRIERS, "tid": tid, "ts": us(s.fired), "dur": us(s.released.saturating_sub(s.fired)),
            "args": {"operations": ops, "lines_written_back": total, "fired_cycle": s.fired, "released_cycle": s.released}}))?;
        // Each cache operation as a slice inside the barrier's, in the order performed, lasting
        // what it cost (the barrier's fixed cost comes after them).
        let mut at = s.fired;
        for o in s.ops.iter().filter(|o| o.cycles > 0) {
            ev.push(json!({"ph": "X", "name": cache_op_text(&o.op), "cat": "cache-op", "pid": PID_BARRIERS, "tid": tid, "ts": us(at), "dur": us(o.cycles),
                "args": {"lines_written_back": o.lines_written_back, "cycles": o.cycles}}))?;
            at += o.cycles;
        }
    }
    let mut other = json!({"profile": p.name, "seed": r.seed, "cycles": r.cycles, "core_clock_mhz": p.timing.core_clock_mhz, "workgroups_not_recorded": r.workgroups_not_recorded});
    if let Some(stopped) = &r.stopped {
        // A run stopped at its instruction budget: the commands and workgroups under way end at
        // the stop, which this marks across the whole view.
        let args = json!({"at": stopped.at, "reason": stopped.message, "cycle": r.cycles});
        ev.push(json!({"ph": "i", "s": "g", "name": "stopped", "cat": "stopped", "pid": PID_QUEUES, "tid": 0, "ts": us(r.cycles), "args": args}))?;
        other["stopped"] = args;
    }
    write!(ev.out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}")?;
    Ok(())
}
