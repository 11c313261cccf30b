//! The truth oracle: whether a read of the simulated run is stale, racing, or legitimately
//! different from the reference run. It is an [`Observer`] of the run, as any other watcher
//! (a hazard detector, a tracer) is: the engine tells it of every read and write and it changes
//! nothing; a timed run without a reference has no oracle.
//!
//! # Design
//! A read is compared with the reference run's same read (same command instance, workgroup,
//! subgroup and load index, or same copy chunk) through three fingerprints the reference
//! recorded: of the bytes, of where it read, of whose writes it read.
//!
//! ```text
//!   same bytes                         -> nothing to say
//!   same places, other writers         -> the read saw another write than the reference's:
//!                                         a stale read (its writer older, in happens-before,
//!                                         than the expected one) or a race
//!   same places and writers, other     -> the writers' own output depends on timing (atomics
//!     bytes                               that pick a winner, the order of their invocations):
//!                                         not stale, unless a writer itself read stale bytes
//!                                         (then the reader is tainted too)
//!   no such read, or other places      -> the read exists (or reads there) because of timing:
//!                                         judged by the memory model alone: stale when a byte
//!                                         came from a write W although another write W' of it
//!                                         happens after W and before the read
//! ```
//! The last verdict needs every writer of a word: the [`WriteLog`] keeps, per provenance tag,
//! the word ranges it wrote. Once a subgroup has read stale bytes, its later reads with no
//! counterpart are the reference's road not taken: the subgroup *diverged*, said once.

use std::cell::OnceCell;
use std::collections::HashSet;

use sim_caches::{Tag, word_span};
use sim_shader::MemRequest;

use crate::engine::bindings::Bound;
use crate::engine::exec::{LaneRead, Performed, Scratch, byte_tags, lane_reads, tags_fingerprint};
use crate::engine::machine::Served;
use crate::engine::order::{Agent, Order};
use crate::api::program::Program;
use crate::engine::rng::fingerprint;
use crate::engine::record::{Divergence, HostReadSeen, MAX_DETAILED_STALE_READS, ReadKey, ReadTruth, StaleRanges, StaleRead, SyncLog};
use crate::engine::stream::Stream;

/// How a read compares with the reference run's same read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The same bytes.
    Same,
    /// The same places and writers, other bytes: the writers' output depends on timing.
    SameWriters,
    /// The same places, other writers.
    OtherWriters,
    /// The reference made no such read, or read other places.
    NoCounterpart,
}

/// Compares a read with the reference's fingerprints of it; `writers` makes the read's
/// writers' fingerprint, asked for only when the bytes differ.
pub fn verdict(reference: Option<&crate::engine::record::ReadPrint>, bytes: u64, addrs: u64, writers: impl FnOnce() -> u64) -> Verdict {
    match reference {
        Some(r) if r.bytes == bytes => Verdict::Same,
        Some(r) if r.addrs == addrs => {
            if r.writers == writers() { Verdict::SameWriters } else { Verdict::OtherWriters }
        }
        _ => Verdict::NoCounterpart,
    }
}

/// The most ranges the write log keeps; beyond it, reads with no counterpart are no longer
/// judged (they are taken as correct) and [`WriteLog::complete`] says so.
pub const MAX_WRITE_LOG_RANGES: usize = 1 << 24;

/// The most (word, writer) pairs the memory-model verdict examines in a run: each word of a read
/// with no counterpart is checked against every writer that wrote anything, so a program of many
/// commands whose reads all depend on timing could otherwise take hours. Beyond it, such reads
/// are no longer judged and [`WriteLog::complete`] says so.
pub const MAX_MODEL_CHECKS: u64 = 1 << 30;

/// Per provenance tag, the byte ranges (whole words) it wrote, for the memory-model verdict.
#[derive(Default)]
pub struct WriteLog {
    ranges: Vec<Vec<(u64, u64)>>,
    sorted: Vec<bool>,
    total: usize,
    overflowed: bool,
    /// Writers that wrote anything, and the (word, writer) checks made.
    writers: Vec<Tag>,
    checks: u64,
    max_checks: u64,
}

impl WriteLog {
    /// A log for `tags` provenance tags.
    pub fn new(tags: usize) -> WriteLog {
        WriteLog { ranges: vec![Vec::new(); tags], sorted: vec![true; tags], total: 0, overflowed: false, writers: Vec::new(), checks: 0, max_checks: MAX_MODEL_CHECKS }
    }

    /// Records that `tag` wrote `[addr, addr + len)` (widened to whole words).
    pub fn add(&mut self, tag: Tag, addr: u64, len: u64) {
        let (start, end) = (addr & !3, (addr + len + 3) & !3);
        let Some(list) = self.ranges.get_mut(tag as usize) else { return };
        if let Some(last) = list.last_mut() {
            // Consecutive stores extend one range.
            if start <= last.1 && start >= last.0 {
                last.1 = last.1.max(end);
                return;
            }
        }
        if self.total >= MAX_WRITE_LOG_RANGES {
            self.overflowed = true;
            return;
        }
        if list.last().is_some_and(|l| l.0 > start) {
            self.sorted[tag as usize] = false;
        }
        if list.is_empty() {
            self.writers.push(tag);
        }
        list.push((start, end));
        self.total += 1;
    }

    /// Whether every write was logged and every read with no counterpart judged.
    pub fn complete(&self) -> bool {
        !self.overflowed
    }

    /// Counts one word's checks against every writer; false once the budget is spent (and from
    /// then on), the log then incomplete.
    fn spend(&mut self) -> bool {
        if self.overflowed {
            return false;
        }
        self.checks += self.writers.len() as u64;
        if self.checks > self.max_checks {
            self.overflowed = true;
        }
        !self.overflowed
    }

    /// Whether `tag` wrote the word at `addr`.
    fn wrote(&mut self, tag: usize, addr: u64) -> bool {
        if !self.sorted[tag] {
            let list = &mut self.ranges[tag];
            list.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(list.len());
            for &(s, e) in list.iter() {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            *list = merged;
            self.sorted[tag] = true;
        }
        let list = &self.ranges[tag];
        let i = list.partition_point(|r| r.1 <= addr);
        list.get(i).is_some_and(|r| r.0 <= addr)
    }

    /// The memory model's verdict on a word that `reader` read at `addr`, seeing the write of
    /// `seen`: the latest write (in happens-before) of that word that happens after `seen` and
    /// before the read, if there is one (then the read is stale).
    pub fn newer_write(&mut self, order: &Order<'_>, reader: Agent, reader_tag: Tag, addr: u64, seen: Tag) -> Option<Tag> {
        if seen == reader_tag || !self.spend() {
            return None;
        }
        let seen_agent = order.agent(seen);
        let mut best: Option<Tag> = None;
        for w in 0..self.writers.len() {
            let tag = self.writers[w];
            let t = tag as usize;
            if tag == seen || tag == reader_tag || !self.wrote(t, addr) {
                continue;
            }
            let a = order.agent(tag);
            if order.before(a, reader) && order.before(seen_agent, a) && best.is_none_or(|b| order.before(order.agent(b), a)) {
                best = Some(tag);
            }
        }
        best
    }

    /// The memory model's verdict on the word at `addr` whose bytes came from `seen`, where the
    /// reference run's bytes came from another write: wrong when `seen` does not happen before
    /// `reader` (a race), or another write of the word in this execution neither happens before
    /// `seen` nor after `reader` (a newer write, or one racing the read); `reader` `None` is
    /// the end of the run, after every write. A write that exists only in this execution (an
    /// atomic picked its place) is no error. Wrong also when the log is not complete (nothing
    /// to judge by).
    pub fn wrong_by_model(&mut self, order: &Order<'_>, reader: Option<Agent>, addr: u64, seen: Tag) -> bool {
        if !self.spend() {
            return true;
        }
        let seen_agent = order.agent(seen);
        if seen_agent != Agent::Initial && reader.is_some_and(|r| !order.before(seen_agent, r)) {
            return true;
        }
        let after_reader = |a: Agent| reader.is_some_and(|r| order.before(r, a));
        for w in 0..self.writers.len() {
            let tag = self.writers[w];
            if tag == seen || !self.wrote(tag as usize, addr) {
                continue;
            }
            let a = order.agent(tag);
            if !after_reader(a) && !order.before(a, seen_agent) {
                return true;
            }
        }
        false
    }
}

/// A shader load the simulated run performed, as observers see it.
pub struct Load<'a> {
    /// Which read (the same key in both runs).
    pub key: ReadKey,
    /// The command instance that read.
    pub inst: usize,
    /// The request, the bindings it used, and what performing it left in `scratch`.
    pub req: &'a MemRequest,
    /// The dispatch's bindings.
    pub bound: &'a [Bound],
    /// The loaded bytes, their provenance and which level served each piece.
    pub scratch: &'a Scratch,
    /// Fingerprints of the load.
    pub performed: &'a Performed,
    /// Cycle of the read.
    pub cycle: u64,
}

impl Load<'_> {
    /// The bytes the load returned, lane after lane.
    pub fn bytes(&self) -> &[u8] {
        &self.scratch.results
    }

    /// Provenance of every word the load read, run after run of lanes.
    pub fn tags(&self) -> &[Tag] {
        &self.scratch.tags
    }

    /// Per lane: the buffer and offset read, the bytes, their writers and the level that served
    /// them ([`LaneRead::via`]).
    pub fn lanes(&self) -> Vec<LaneRead> {
        lane_reads(self.req, self.bound, self.scratch)
    }
}

impl CopyRead<'_> {
    /// The read as pieces, one per stretch of bytes one level served (each a [`LaneRead`] of
    /// lane 0).
    pub fn pieces(&self) -> Vec<LaneRead> {
        chunk_reads(self)
    }
}

/// A copy chunk's read, as observers see it.
pub struct CopyRead<'a> {
    /// Which read.
    pub key: ReadKey,
    /// The copy's command instance.
    pub inst: usize,
    /// The source buffer and the offset of the chunk in it.
    pub buffer: usize,
    /// Offset in the buffer.
    pub offset: u64,
    /// Device address read.
    pub addr: u64,
    /// The bytes read and one tag per word.
    pub data: &'a [u8],
    /// Provenance, one tag per word.
    pub tags: &'a [Tag],
    /// Which level served the chunk.
    pub served: Served,
    /// Cycle of the read.
    pub cycle: u64,
}

/// What watches a simulated run: it is told of every read and write as it happens, and of every
/// sync node as it fires, and changes nothing. The truth oracle is one; a hazard detector, a
/// statistics collector or a tracer attach the same way ([`crate::engine::run::Sim::observe`]), into one list of observers.
pub trait Observer {
    /// A write of `len` bytes at `addr` by the writer of provenance tag `tag` (a shader store or
    /// atomic, a transfer chunk, a host write).
    fn on_write(&mut self, tag: Tag, addr: u64, len: u64) {
        let _ = (tag, addr, len);
    }
    /// A shader load (not an atomic).
    fn on_load(&mut self, load: &Load<'_>) {
        let _ = load;
    }
    /// A copy chunk's read.
    fn on_copy_read(&mut self, read: &CopyRead<'_>) {
        let _ = read;
    }
    /// A sync node fired.
    fn on_sync(&mut self, log: &SyncLog) {
        let _ = log;
    }
    /// Command instance `inst` ran from cycle `start` to `end` (or to the stop of a stopped run).
    fn on_span(&mut self, inst: usize, start: u64, end: u64) {
        let _ = (inst, start, end);
    }
    /// A workgroup ran: (instance, workgroup, CU, start, end).
    fn on_workgroup(&mut self, span: (usize, u64, usize, u64, u64)) {
        let _ = span;
    }
    /// The host read `bytes` at timeline index `t` (as the truth oracle judged it, when there is
    /// one: `seen.differing_bytes`).
    fn on_host_read(&mut self, seen: &HostReadSeen) {
        let _ = seen;
    }
}

/// Everyone who watches a run, as one list: the truth oracle (when a reference run is there to
/// judge against), the recorder of the timeline, and any observer attached. Each is told of
/// every event in that order; the oracle and the recorder are ordinary observers, kept by type
/// only so that the run can take their results at its end.
pub(crate) struct Observers<'p> {
    oracle: Option<Oracle<'p>>,
    /// The timeline's recording.
    pub(crate) recorder: Recorder,
    others: Vec<&'p mut dyn Observer>,
    /// Writes the last memory request performed, told together once it is done.
    pub(crate) writes: Vec<(Tag, u64, u64)>,
    /// Host reads, as the oracle judged them.
    host_reads: Vec<HostReadSeen>,
}

impl<'p> Observers<'p> {
    /// The oracle (if any) and the recorder.
    pub(crate) fn new(oracle: Option<Oracle<'p>>) -> Observers<'p> {
        Observers { oracle, recorder: Recorder::default(), others: Vec::new(), writes: Vec::new(), host_reads: Vec::new() }
    }

    /// Attaches `o` after the others.
    pub(crate) fn attach(&mut self, o: &'p mut dyn Observer) {
        self.others.push(o);
    }

    /// Tells every observer, in order.
    fn each(&mut self, mut tell: impl FnMut(&mut dyn Observer)) {
        if let Some(o) = self.oracle.as_mut() {
            tell(o);
        }
        tell(&mut self.recorder);
        for o in self.others.iter_mut() {
            tell(&mut **o);
        }
    }

    /// Stale reads so far (0 without a reference run).
    pub(crate) fn stale_count(&self) -> u64 {
        self.oracle.as_ref().map_or(0, Oracle::stale_count)
    }

    /// Tells every observer of the writes the last request performed.
    pub(crate) fn tell_writes(&mut self) {
        let writes = std::mem::take(&mut self.writes);
        for &(tag, addr, len) in &writes {
            self.each(|o| o.on_write(tag, addr, len));
        }
        self.writes = writes;
        self.writes.clear();
    }

    /// Tells every observer of a shader load.
    pub(crate) fn load(&mut self, load: &Load<'_>) {
        self.each(|o| o.on_load(load));
    }

    /// Tells every observer of a copy chunk's read.
    pub(crate) fn copy_read(&mut self, read: &CopyRead<'_>) {
        self.each(|o| o.on_copy_read(read));
    }

    /// A sync node fired.
    pub(crate) fn sync(&mut self, log: &SyncLog) {
        self.each(|o| o.on_sync(log));
    }

    /// Command instance `inst` ran from `start` to `end`.
    pub(crate) fn span(&mut self, inst: usize, start: u64, end: u64) {
        self.each(|o| o.on_span(inst, start, end));
    }

    /// A workgroup ran.
    pub(crate) fn workgroup(&mut self, span: (usize, u64, usize, u64, u64)) {
        self.each(|o| o.on_workgroup(span));
    }

    /// The host read `bytes` (provenance `tags`) at timeline index `t`: judged by the oracle
    /// against the reference run's same read, kept for the result, and told to every observer.
    pub(crate) fn host_read(&mut self, t: usize, bytes: Vec<u8>, tags: &[Tag]) -> Result<(), String> {
        let seen = match &mut self.oracle {
            Some(o) => o.host_read(t, bytes, tags)?,
            None => HostReadSeen { timeline: t, bytes, differing_bytes: 0, first_difference: None },
        };
        self.each(|o| o.on_host_read(&seen));
        self.host_reads.push(seen);
        Ok(())
    }

    /// The oracle's findings (when there was one), the recording and the host reads.
    pub(crate) fn finish(self) -> (Option<Judged>, Recorder, Vec<HostReadSeen>) {
        (self.oracle.map(Oracle::judged), self.recorder, self.host_reads)
    }
}

/// The run as a timeline and a report need it, recorded as an observer: every command's span,
/// every sync node fired, and as many workgroup spans as asked for (the rest counted).
#[derive(Default)]
pub struct Recorder {
    /// (instance, start, end) of each command that ran.
    pub spans: Vec<(usize, u64, u64)>,
    /// Sync nodes fired.
    pub syncs: Vec<SyncLog>,
    /// Workgroup spans: (instance, workgroup, CU, start, end).
    pub workgroups: Vec<(usize, u64, usize, u64, u64)>,
    /// Workgroups past the most recorded.
    pub workgroups_not_recorded: u64,
    /// The most workgroup spans to record (0: none, and none counted).
    pub most_workgroups: usize,
}

impl Observer for Recorder {
    fn on_sync(&mut self, log: &SyncLog) {
        self.syncs.push(log.clone());
    }
    fn on_span(&mut self, inst: usize, start: u64, end: u64) {
        self.spans.push((inst, start, end));
    }
    fn on_workgroup(&mut self, span: (usize, u64, usize, u64, u64)) {
        if self.most_workgroups == 0 {
            return;
        }
        if self.workgroups.len() < self.most_workgroups {
            self.workgroups.push(span);
        } else {
            self.workgroups_not_recorded += 1;
        }
    }
}

/// The truth oracle's findings at the end of a run.
pub struct Judged {
    /// Stale reads in detail (at most `MAX_DETAILED_STALE_READS`, 256).
    pub stale: Vec<StaleRead>,
    /// All stale reads.
    pub stale_count: u64,
    /// The bytes of every stale read, merged per reader and buffer.
    pub stale_ranges: StaleRanges,
    /// Subgroups that diverged after a stale read.
    pub divergences: Vec<Divergence>,
    /// Per provenance tag: whether its writer read stale bytes.
    pub tainted: Vec<bool>,
    /// Whether every write was logged.
    pub write_log_complete: bool,
    /// Every writer's words, for judging final memory by the memory model.
    pub log: WriteLog,
}

/// The truth oracle: judges every read of a simulated run against the reference run's
/// fingerprints and the memory model (the module documentation says how).
pub struct Oracle<'p> {
    prog: &'p Program<'p>,
    stream: &'p Stream,
    truth: &'p ReadTruth,
    /// Happens-before, built when a read first needs the memory model's verdict (a read the
    /// reference run never made): most runs never do.
    order: OnceCell<Order<'p>>,
    log: WriteLog,
    tainted: Vec<bool>,
    stale: Vec<StaleRead>,
    stale_count: u64,
    /// The bytes of every stale read, merged.
    stale_ranges: StaleRanges,
    divergences: Vec<Divergence>,
    /// Subgroups (instance, workgroup, subgroup) that read stale bytes, and those whose
    /// divergence was told.
    stale_seen: HashSet<(u32, u32, u32, u64)>,
    diverged: HashSet<(u32, u32, u32, u64)>,
}

impl<'p> Oracle<'p> {
    /// An oracle for a run of `prog` (lowered to `stream`) against the reference's `truth`.
    pub fn new(prog: &'p Program<'p>, stream: &'p Stream, truth: &'p ReadTruth) -> Oracle<'p> {
        Oracle {
            prog,
            stream,
            truth,
            order: OnceCell::new(),
            log: WriteLog::new(prog.writers.len()),
            tainted: vec![false; prog.writers.len()],
            stale: Vec::new(),
            stale_count: 0,
            stale_ranges: StaleRanges::default(),
            divergences: Vec::new(),
            stale_seen: HashSet::new(),
            diverged: HashSet::new(),
        }
    }

    /// Stale reads so far.
    pub fn stale_count(&self) -> u64 {
        self.stale_count
    }

    /// What the oracle found.
    pub fn judged(self) -> Judged {
        Judged {
            write_log_complete: self.log.complete(),
            stale: self.stale,
            stale_count: self.stale_count,
            stale_ranges: self.stale_ranges,
            divergences: self.divergences,
            tainted: self.tainted,
            log: self.log,
        }
    }

    fn is_tainted(&self, tag: Tag) -> bool {
        self.tainted.get(tag as usize).copied().unwrap_or(false)
    }

    /// Taints `reader` when any of the words it read was written by a tainted writer: bytes
    /// computed from stale bytes are corruption, not timing.
    fn taint_if_any(&mut self, reader: Tag, tags: &[Tag]) {
        if tags.iter().any(|&t| self.is_tainted(t)) {
            self.tainted[reader as usize] = true;
        }
    }

    fn record(&mut self, reader: Tag, key: ReadKey, lanes: Vec<LaneRead>, cycle: u64, model: Vec<(u64, Tag)>) {
        self.tainted[reader as usize] = true;
        self.stale_count += 1;
        for l in &lanes {
            self.stale_ranges.add(key.inst, l.buffer, l.offset, l.bytes.len() as u64);
        }
        if self.stale.len() < MAX_DETAILED_STALE_READS {
            self.stale.push(StaleRead { key, lanes, cycle, model });
        }
    }

    /// The memory model's verdict on a load: each word whose writer is older than a write that
    /// happens before the read, with that newer write.
    fn stale_words(&mut self, load: &Load<'_>) -> Vec<(u64, Tag)> {
        let b = &load.bound[load.req.binding_index as usize];
        let reader_tag = self.prog.instances[load.inst].tag;
        let (prog, stream) = (self.prog, self.stream);
        let order = self.order.get_or_init(|| Order::new(prog, stream));
        let reader = Agent::Node(order.node_of(load.inst));
        let s = load.scratch;
        let mut out = Vec::new();
        for (ri, r) in s.runs.iter().enumerate() {
            let run_addr = b.base + r.offset;
            let start = s.run_tags[ri];
            for k in 0..word_span(run_addr, r.len as usize) {
                let addr = (run_addr / 4 + k as u64) * 4;
                if let Some(newer) = self.log.newer_write(order, reader, reader_tag, addr, s.tags[start + k]) {
                    out.push((addr, newer));
                }
            }
        }
        out
    }

    /// A host read of timeline entry `t`, compared with the reference run's: a byte differing
    /// from the reference's is no corruption when the same write left it and that writer read
    /// nothing stale (its value depends on timing).
    pub fn host_read(&mut self, t: usize, bytes: Vec<u8>, tags: &[Tag]) -> Result<HostReadSeen, String> {
        let truth = self.truth;
        let reference = truth.host_reads.get(&t).ok_or("the reference run made no such host read")?;
        let (mut differing_bytes, mut first_difference) = (0u64, None);
        // The memory model's verdict of the last word asked about: a word's bytes share it.
        let mut judged: Option<(u64, Tag, bool)> = None;
        for (k, (seen, expected)) in bytes.iter().zip(&reference.bytes).enumerate() {
            if seen == expected {
                continue;
            }
            // Another writer than the reference's: judged by the memory model (the writes of a
            // word may differ between executions where atomics pick them).
            let word = (reference.addr + k as u64) & !3;
            let other_writer = tags[k] != reference.tag_of(k)
                && match judged {
                    Some((w, tag, wrong)) if (w, tag) == (word, tags[k]) => wrong,
                    _ => {
                        let order = self.order.get_or_init(|| Order::new(self.prog, self.stream));
                        let wrong = self.log.wrong_by_model(order, Some(Agent::Host(t)), word, tags[k]);
                        judged = Some((word, tags[k], wrong));
                        wrong
                    }
                };
            if other_writer || self.is_tainted(tags[k]) {
                differing_bytes += 1;
                first_difference.get_or_insert((k as u64, tags[k], reference.tag_of(k)));
            }
        }
        Ok(HostReadSeen { timeline: t, bytes, differing_bytes, first_difference })
    }
}

impl Observer for Oracle<'_> {
    fn on_write(&mut self, tag: Tag, addr: u64, len: u64) {
        self.log.add(tag, addr, len);
    }

    fn on_load(&mut self, load: &Load<'_>) {
        let (key, p) = (load.key, load.performed);
        let reader = self.prog.instances[load.inst].tag;
        let subgroup = (key.inst, key.a, key.b, key.d);
        let v = verdict(self.truth.fingerprints.get(&key), p.fingerprint, p.addrs, || tags_fingerprint(p.addrs, &load.scratch.tags));
        let model = match v {
            Verdict::Same => return,
            Verdict::SameWriters => return self.taint_if_any(reader, &load.scratch.tags),
            Verdict::OtherWriters => Vec::new(),
            // A read the reference never made: after a stale read, the subgroup's own road
            // (told once); before, the memory model judges it.
            Verdict::NoCounterpart if self.stale_seen.contains(&subgroup) => {
                if self.diverged.insert(subgroup) && self.divergences.len() < MAX_DETAILED_STALE_READS {
                    self.divergences.push(Divergence { key, cycle: load.cycle });
                }
                return;
            }
            Verdict::NoCounterpart => {
                let words = self.stale_words(load);
                if words.is_empty() {
                    return self.taint_if_any(reader, &load.scratch.tags);
                }
                words
            }
        };
        let lanes = load.lanes();
        self.stale_seen.insert(subgroup);
        self.record(reader, key, lanes, load.cycle, model);
    }

    fn on_copy_read(&mut self, read: &CopyRead<'_>) {
        let reader = self.prog.instances[read.inst].tag;
        // A copy reads the same places in both runs: its writers tell stale from timing.
        match verdict(self.truth.fingerprints.get(&read.key), fingerprint(0, read.data), 0, || tags_fingerprint(0, read.tags)) {
            Verdict::Same => {}
            Verdict::SameWriters => self.taint_if_any(reader, read.tags),
            Verdict::OtherWriters | Verdict::NoCounterpart => {
                let lanes = read.pieces();
                self.record(reader, read.key, lanes, read.cycle, Vec::new());
            }
        }
    }
}

/// A copy chunk's read as lane reads, one per stretch of bytes that one level served.
fn chunk_reads(read: &CopyRead<'_>) -> Vec<LaneRead> {
    let via_at = |a: u64| read.served.level_name(read.addr, a);
    let (addr, data) = (read.addr, read.data);
    let mut out: Vec<LaneRead> = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let via = via_at(addr + start as u64);
        let mut end = start + 1;
        while end < data.len() && via_at(addr + end as u64) == via {
            end += 1;
        }
        let byte_tags = byte_tags(read.tags, addr, addr + start as u64, (end - start) as u64);
        out.push(LaneRead { lane: 0, buffer: read.buffer, offset: read.offset + start as u64, bytes: data[start..end].to_vec(), byte_tags, via });
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranges merge as stores continue each other; a word's writers are found; past its budget
    /// of checks the verdict stops judging and says the log is incomplete.
    #[test]
    fn the_write_log_finds_writers_and_keeps_to_its_budget() {
        let mut log = WriteLog::new(4);
        log.add(1, 64, 8);
        log.add(1, 72, 8);
        log.add(2, 0, 4);
        log.add(1, 0, 2);
        assert_eq!(log.ranges[1], vec![(64, 80), (0, 4)]);
        assert!(log.wrote(1, 76) && log.wrote(1, 0) && !log.wrote(1, 80) && log.wrote(2, 0) && !log.wrote(3, 0));
        assert_eq!(log.ranges[1], vec![(0, 4), (64, 80)], "sorted when asked");
        assert_eq!(log.writers, vec![1, 2]);
        assert!(log.complete());
        // Two writers a word: a budget of 5 checks judges two words, not a third.
        log.max_checks = 5;
        assert!(log.spend() && log.spend());
        assert!(!log.spend() && !log.complete());
        assert!(!log.spend(), "spent stays spent");
    }
}
