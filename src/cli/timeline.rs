//! `--timeline FILE`: the run as Chrome trace-event JSON (opens in Perfetto and
//! chrome://tracing).
//!
//! Processes and threads: "queues" (its commands, a thread per queue: `q0`; a draw's, or an
//! attachment operation's, two phases nested in its slice: `fetch, shade, read tiles`, then
//! `ROP writes`), "compute units"
//! (its workgroups, a thread per workgroup slot of each CU: `CU 3 slot 1`), "transfer engine"
//! (fills, updates, copies), "barriers" (a thread per queue, `sync on q0`: each sync node as a
//! *drain* slice, from submission to firing, while it waits for its first scope, then a slice
//! for its cache operations, with each operation and the lines it wrote back in `args`, and a
//! slice per operation nested in it) and, when the run read stale bytes, "findings" (an instant
//! event per finding at the cycle of the read; its `args` say which command read which bytes of
//! which buffer through which cache, whose write it saw and whose the reference run saw).
//!
//! A viewer needs the slices of one thread to nest: any two disjoint, or one inside the other.
//! Work that runs at once does not, so each track is dealt out to lanes: a workgroup goes to
//! the lowest-numbered slot of its CU free at its start (the same run always gives the same
//! slots), and commands and sync nodes of a queue, and transfers, that overlap one another go
//! to further threads of their track, `q0 (overlap 1)`, `sync on q0 (overlap 1)`, `transfer
//! engine (overlap 1)`, each as few as the most that ran at once.
//!
//! Times are microseconds of the profile's core clock (`timing.core_clock_mhz`), `ts = cycle /
//! MHz`, rounded to the nanosecond (the viewer's unit) so that slices that meet in cycles meet
//! exactly in the viewer; `args` give cycles. A run stopped at its instruction budget after
//! stale reads ends its commands and workgroups under way at the stop and marks it with a
//! global instant event `stopped` (its `args` and `otherData.stopped`: where, why, the cycle).
//!
//! The file is written event by event, so that a run of millions of workgroups needs little
//! more memory for its timeline than the run recorded (at most
//! [`sim_core::engine::MAX_TIMELINE_WORKGROUPS`] workgroup spans, and 8 bytes more per span
//! while slots are dealt out; later workgroups are counted in
//! `otherData.workgroups_not_recorded`).

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use sim_core::engine::{CacheOp, CacheTarget, RunResult};
use sim_core::api::{HostOp, Workload};
use sim_core::profile::Profile;
use sim_caches::Maintenance;

use super::CliError;
use super::report::{named_command_text, vk_name, writer_text};
use sim_core::api::program::PlaceNames;

const PID_QUEUES: u32 = 1;
const PID_CUS: u32 = 2;
const PID_TRANSFER: u32 = 3;
const PID_BARRIERS: u32 = 4;
const PID_FINDINGS: u32 = 5;

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

/// Intervals dealt out to lanes so that no two in one lane overlap. Interval `i` is
/// `interval(i)`: its track (a queue, a CU: `0..tracks`), start and end cycle, and its rank
/// among intervals that start together. Within its track each goes to the lowest-numbered lane
/// whose last interval has ended by its start (ending at the very cycle it starts counts as
/// ended), taken in the order of their starts (then those of no length first, then by rank,
/// then index). That uses as few lanes as the most intervals of the track under way at one
/// time, and the same intervals always get the same lanes. Returns each interval's lane and the
/// number of lanes of each track; it holds 8 bytes per interval while it works.
fn deal_lanes(n: usize, tracks: usize, interval: impl Fn(usize) -> (usize, u64, u64, u64)) -> (Vec<u32>, Vec<u32>) {
    use std::cmp::Reverse;
    use std::collections::{BTreeSet, BinaryHeap};
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&i| {
        let (track, start, end, rank) = interval(i as usize);
        (track, start, end > start, rank, i)
    });
    let mut lane = vec![0u32; n];
    let mut count = vec![0u32; tracks];
    // Of the track being dealt: lanes in use, by the cycle they come free; lanes free, by number.
    let mut busy: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let mut free: BTreeSet<u32> = BTreeSet::new();
    let mut current = usize::MAX;
    for i in order {
        let (track, start, end, _) = interval(i as usize);
        if track != current {
            busy.clear();
            free.clear();
            current = track;
        }
        while let Some(&Reverse((until, l))) = busy.peek() {
            if until > start {
                break;
            }
            busy.pop();
            free.insert(l);
        }
        let used = &mut count[track];
        let l = free.pop_first().unwrap_or_else(|| {
            *used += 1;
            *used - 1
        });
        lane[i as usize] = l;
        busy.push(Reverse((end.max(start), l)));
    }
    (lane, count)
}

/// A thread's name on its lane: lane 0 is the track's own name, later lanes say they hold
/// what overlapped it.
fn lane_name(name: &str, lane: u32) -> String {
    if lane == 0 { name.to_string() } else { format!("{name} (overlap {lane})") }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    // Whole nanoseconds (the viewer's unit), each cycle rounded to the nearest: a slice's `ts`
    // and `dur` then add up to the next slice's `ts` exactly where the two meet in cycles, so
    // that rounding never makes slices of one thread overlap.
    let mhz = u128::from(p.timing.core_clock_mhz.max(1));
    let ns = |c: u64| ((u128::from(c) * 1000 + mhz / 2) / mhz) as u64;
    let us = |c: u64| ns(c) as f64 / 1000.0;
    let dur = |start: u64, end: u64| ns(end).saturating_sub(ns(start)) as f64 / 1000.0;
    out.write_all(b"{\"traceEvents\":[")?;
    let mut ev = EventWriter { out, first: true };
    for e in [meta(PID_QUEUES, None, "queues"), meta(PID_CUS, None, "compute units"), meta(PID_TRANSFER, None, "transfer engine"), meta(PID_BARRIERS, None, "barriers")] {
        ev.push(e)?;
    }
    let queue_of = |submit: usize| match w.timeline.get(submit) {
        Some(HostOp::QueueSubmit { queue, .. }) => *queue,
        _ => 0,
    };
    // Command buffers by name, looked up once per command rather than searched for.
    let by_name: std::collections::HashMap<&str, usize> = w.command_buffers.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let prog = sim_core::api::Program::new(w).ok();
    let command_of = |at: &sim_core::api::CommandRef| by_name.get(at.command_buffer.as_str()).and_then(|&cb| prog.as_ref()?.command_action(cb, at.command));
    let is_transfer = |at: &sim_core::api::CommandRef| command_of(at).is_some_and(|a| a.work.is_transfer());

    // Threads. Commands of a queue, workgroups of a CU, transfers and sync nodes of a queue
    // may run at the same time: each track is as many threads (lanes) as it had at once, so
    // that no two slices of a thread partly overlap (a viewer drops or misdraws those).
    // Commands that start together go to lanes in the order they were submitted (spans are
    // in the order they finished); workgroups by dispatch and index; sync nodes as recorded.
    let queues = w.queues.len().max(1);
    let mut rank = vec![0u64; r.spans.len()];
    {
        let mut by_command: Vec<usize> = (0..r.spans.len()).collect();
        by_command.sort_by(|&a, &b| r.spans[a].0.cmp(&r.spans[b].0));
        for (k, i) in by_command.into_iter().enumerate() {
            rank[i] = k as u64;
        }
    }
    let (command_lane, command_lanes) = deal_lanes(r.spans.len(), queues, |i| {
        let (at, start, end) = &r.spans[i];
        (queue_of(at.submit).min(queues - 1), *start, *end, rank[i])
    });
    let transfers: Vec<usize> = (0..r.spans.len()).filter(|&i| is_transfer(&r.spans[i].0)).collect();
    let (transfer_lane, transfer_lanes) = deal_lanes(transfers.len(), 1, |i| (0, r.spans[transfers[i]].1, r.spans[transfers[i]].2, rank[transfers[i]]));
    drop(rank);
    let cus = (p.machine.compute_units as usize).max(r.workgroups.iter().map(|g| g.cu + 1).max().unwrap_or(0)).max(1);
    let (slot, slots) = deal_lanes(r.workgroups.len(), cus, |i| {
        let g = &r.workgroups[i];
        (g.cu, g.start, g.end, ((g.command as u64) << 32) ^ g.workgroup)
    });
    // A sync node takes its lane from submission (its drain) to release.
    let (sync_lane, sync_lanes) = deal_lanes(r.syncs.len(), queues, |i| {
        let s = &r.syncs[i];
        (s.queue.min(queues - 1), s.queued.min(s.fired), s.released.max(s.fired), i as u64)
    });
    // Commands are named once per submission, not once per name (a timeline names every one).
    let names = PlaceNames::new(w);
    let width = |lanes: &[u32]| u64::from(lanes.iter().copied().max().unwrap_or(0).max(1));
    let (queue_width, slot_width, sync_width) = (width(&command_lanes), width(&slots), width(&sync_lanes));
    for q in 0..queues {
        let name = w.queues.get(q).map_or("queue", String::as_str);
        for lane in 0..command_lanes[q].max(1) {
            ev.push(meta(PID_QUEUES, Some(q as u64 * queue_width + u64::from(lane)), &lane_name(name, lane)))?;
        }
        for lane in 0..sync_lanes[q].max(1) {
            ev.push(meta(PID_BARRIERS, Some(q as u64 * sync_width + u64::from(lane)), &lane_name(&format!("sync on {name}"), lane)))?;
        }
    }
    for lane in 0..transfer_lanes[0].max(1) {
        ev.push(meta(PID_TRANSFER, Some(u64::from(lane)), &lane_name("transfer engine", lane)))?;
    }
    for (cu, &n) in slots.iter().enumerate().take(cus) {
        for s in 0..n.max(1) {
            ev.push(meta(PID_CUS, Some(cu as u64 * slot_width + u64::from(s)), &format!("CU {cu} slot {s}")))?;
        }
    }

    // Each draw's phases by its command and start, looked up once per span.
    let phases: std::collections::HashMap<(&sim_core::api::CommandRef, u64), &sim_core::engine::GraphicsPhases> = r.graphics_phases.iter().map(|g| ((&g.at, g.start), g)).collect();
    let mut next_transfer = 0;
    for (i, (at, start, end)) in r.spans.iter().enumerate() {
        let name = command_of(at).map_or("command", |a| a.vk_name);
        let text = named_command_text(w, &names, name, at);
        let args = json!({"command": text, "start_cycle": start, "end_cycle": end});
        let tid = queue_of(at.submit).min(queues - 1) as u64 * queue_width + u64::from(command_lane[i]);
        ev.push(json!({"ph": "X", "name": name, "cat": "command", "pid": PID_QUEUES, "tid": tid, "ts": us(*start), "dur": dur(*start, *end), "args": args}))?;
        // A draw's (or attachment operation's) two phases, nested in its slice: its reads
        // (front end, shaders, attachment tiles), then its ROP writes.
        if let Some(g) = phases.get(&(at, *start)) {
            ev.push(json!({"ph": "X", "name": "fetch, shade, read tiles", "cat": "graphics", "pid": PID_QUEUES, "tid": tid, "ts": us(g.start), "dur": dur(g.start, g.land),
                "args": {"command": text, "from_cycle": g.start, "to_cycle": g.land}}))?;
            ev.push(json!({"ph": "X", "name": "ROP writes", "cat": "graphics", "pid": PID_QUEUES, "tid": tid, "ts": us(g.land), "dur": dur(g.land, g.end.min(*end).max(g.land)),
                "args": {"command": text, "from_cycle": g.land, "to_cycle": g.end}}))?;
        }
        if transfers.get(next_transfer) == Some(&i) {
            let tid = u64::from(transfer_lane[next_transfer]);
            next_transfer += 1;
            ev.push(json!({"ph": "X", "name": name, "cat": "transfer", "pid": PID_TRANSFER, "tid": tid, "ts": us(*start), "dur": dur(*start, *end), "args": {"command": text}}))?;
        }
    }
    // Each dispatch's text once, not once per workgroup.
    let texts: Vec<String> = r.workgroup_commands.iter().map(|at| named_command_text(w, &names, vk_name(w, at), at)).collect();
    for (g, s) in r.workgroups.iter().zip(&slot) {
        ev.push(json!({"ph": "X", "name": format!("wg {}", g.workgroup), "cat": "workgroup", "pid": PID_CUS, "tid": g.cu as u64 * slot_width + u64::from(*s), "ts": us(g.start), "dur": dur(g.start, g.end),
            "args": {"command": texts.get(g.command), "workgroup": g.workgroup, "slot": s}}))?;
    }
    for (s, lane) in r.syncs.iter().zip(&sync_lane) {
        let tid = s.queue.min(queues - 1) as u64 * sync_width + u64::from(*lane);
        if s.fired > s.queued {
            ev.push(json!({"ph": "X", "name": format!("drain: {}", s.label), "cat": "drain", "pid": PID_BARRIERS, "tid": tid, "ts": us(s.queued), "dur": dur(s.queued, s.fired),
                "args": {"waits_for": "the work of its first synchronization scope", "from_cycle": s.queued, "to_cycle": s.fired}}))?;
        }
        let ops: Vec<Value> = s.ops.iter().map(|o| json!({"operation": cache_op_text(&o.op), "lines_written_back": o.lines_written_back, "cycles": o.cycles})).collect();
        let total: u64 = s.ops.iter().map(|o| o.lines_written_back).sum();
        let released = s.released.max(s.fired);
        ev.push(json!({"ph": "X", "name": s.label, "cat": "barrier", "pid": PID_BARRIERS, "tid": tid, "ts": us(s.fired), "dur": dur(s.fired, released),
            "args": {"operations": ops, "lines_written_back": total, "fired_cycle": s.fired, "released_cycle": s.released}}))?;
        // Each cache operation as a slice inside the barrier's, in the order performed, lasting
        // what it cost (the barrier's fixed cost comes after them); cut at the release, so that
        // it always nests in the barrier's slice.
        let mut at = s.fired;
        for o in s.ops.iter().filter(|o| o.cycles > 0) {
            let (from, to) = (at.min(released), at.saturating_add(o.cycles).min(released));
            ev.push(json!({"ph": "X", "name": cache_op_text(&o.op), "cat": "cache-op", "pid": PID_BARRIERS, "tid": tid, "ts": us(from), "dur": dur(from, to),
                "args": {"lines_written_back": o.lines_written_back, "cycles": o.cycles}}))?;
            at = at.saturating_add(o.cycles);
        }
    }
    // Each finding as an instant on its own thread, at the cycle of the stale read.
    if !r.findings.is_empty() {
        ev.push(meta(PID_FINDINGS, None, "findings"))?;
        ev.push(meta(PID_FINDINGS, Some(0), "findings"))?;
    }
    for f in &r.findings {
        let name = format!("stale read: {} [{}, +{})", f.resource, f.offset, f.size);
        let args = json!({
            "command": named_command_text(w, &names, vk_name(w, &f.at), &f.at),
            "resource": f.resource,
            "offset": f.offset,
            "size": f.size,
            "via": f.via,
            "saw": writer_text(w, &f.seen_write),
            "expected": writer_text(w, &f.expected_write),
            "seen_hex": hex(&f.seen),
            "expected_hex": hex(&f.expected),
            "cycle": f.cycle,
        });
        ev.push(json!({"ph": "i", "s": "t", "name": name, "cat": "finding", "pid": PID_FINDINGS, "tid": 0, "ts": us(f.cycle), "args": args}))?;
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
