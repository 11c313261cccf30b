//! The findings of a run: every stale read, host read and final-memory difference explained
//! (which command read which bytes through which cache, whose write it saw and whose it should
//! have seen, the hazard that explains it), merged and classified for the report.

use serde::Serialize;
use sim_caches::Tag;

use crate::api::program::{CommandRef, Program, Writer};
use crate::engine::record::ReadKey;
use crate::engine::{exec, order, stream};
use crate::engine::record::StaleRead;

/// One stale read, explained: the report's `findings` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The command that read.
    pub at: CommandRef,
    /// The buffer read.
    pub resource: String,
    /// Offset of the first differing byte in the buffer.
    pub offset: u64,
    /// Number of differing bytes in this contiguous range.
    pub size: u64,
    /// The write whose bytes were seen.
    pub seen_write: Writer,
    /// The write the reference run saw.
    pub expected_write: Writer,
    /// The cache (or VRAM) that returned the stale bytes ("L1", "U$", "L2", "VRAM").
    pub via: String,
    /// Workgroup and subgroup (shader reads) or copy region and chunk (transfer reads).
    #[serde(skip)]
    pub key: ReadKey,
    /// The first differing bytes as seen (at most 16).
    pub seen: Vec<u8>,
    /// The same bytes as the reference saw them.
    pub expected: Vec<u8>,
    /// Cycle of the read.
    pub cycle: u64,
    /// `"stale"`: the write seen is older, in happens-before, than one that happens before the
    /// read; `"race"`: the write seen (or the one expected) is not ordered with the read at all.
    pub kind: &'static str,
    /// Whether the invocation that made this read then left the reference run's control flow
    /// (a stale value decided a branch or a loop): its later reads are not compared.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diverged: bool,
    /// The index in [`RunResult::hazards`] of the hazard that explains this read (the same
    /// reader, resource and bytes); `None` when no hazard does: the program ordered the read,
    /// so the machine is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
    /// For a read its hazard explains: what the profile's barrier table does for the two
    /// accesses, the operations the missing synchronization would have run on this machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_rows: Option<String>,
}

/// The most runs of differing final bytes a report lists, unless [`RunOptions`] says otherwise.
pub const MAX_MEMORY_DIFFERENCES: usize = 4096;

/// A run of final-memory bytes that differ from the reference run, all left by one write where
/// the reference run has another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryDifference {
    /// The memory object.
    pub memory: String,
    /// Offset of the first byte in it.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// The buffer bound there and the offset in it, when one is.
    pub buffer: Option<(String, u64)>,
    /// The write whose bytes the run left.
    pub seen_write: Writer,
    /// The write whose bytes the reference run left.
    pub expected_write: Writer,
    /// The index in [`RunResult::hazards`] of the hazard that explains these bytes: one between
    /// the two writers, at either of them, or of either on these bytes; `None` when none does:
    /// the machine put stale bytes back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
}

/// A host read's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostReadResult {
    /// Timeline index.
    pub timeline: usize,
    /// Its label.
    pub label: String,
    /// Bytes that differ from the reference run's same read.
    pub differing_bytes: u64,
    /// Whether the reference run's bytes equal the stated expectation (None: none stated).
    pub reference_meets_expectation: Option<bool>,
    /// What the simulated host read.
    pub data: Vec<u8>,
    /// Writer of the first differing byte, as seen and as expected.
    pub first_difference: Option<(u64, Writer, Writer)>,
    /// When bytes differ: the index in [`RunResult::hazards`] of the hazard that explains them
    /// (a host read after a write no barrier made available to the host, a missing invalidate,
    /// a host access racing device work), else one of the write seen or the write expected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
}

/// The device addresses of a finding's bytes: `(start, size)`.
pub(crate) fn finding_range(prog: &Program<'_>, f: &Finding) -> Option<(u64, u64)> {
    let b = prog.workload.buffers.iter().position(|b| b.name == f.resource)?;
    Some((prog.buffer_addr(b, f.offset), f.size))
}

/// The device addresses of hazard `h`'s bytes: in its buffer, or for a host access in its memory
/// object.
pub(crate) fn hazard_range(prog: &Program<'_>, h: &crate::hazard::Hazard) -> Option<(u64, u64)> {
    let w = prog.workload;
    let base = match h.at {
        crate::hazard::Place::Host { .. } => prog.memory_base[w.memories.iter().position(|m| m.name == h.resource)?],
        crate::hazard::Place::Command(_) => {
            let b = w.buffers.iter().find(|b| b.name == h.resource)?;
            prog.memory_base[b.memory] + b.offset
        }
    };
    Some((base + h.offset, h.size))
}

/// Bytes that differ from the reference run outside a device read: a host read's, or final
/// memory's.
pub(crate) struct Bytes<'a> {
    /// Device address of the first byte.
    pub(crate) addr: u64,
    /// How many.
    pub(crate) size: u64,
    /// The buffer bound there, else the memory object (as hazards name resources).
    pub(crate) resource: &'a str,
    /// The host read that returned them, if one did.
    pub(crate) reader: Option<&'a crate::hazard::Place>,
}

/// The hazard that explains bytes that differ, in order: one at the host read that returned them
/// (or with it as its prior access) on those bytes; one between the two writers (the write left
/// and the write the reference run left); one at either writer on that resource; one at or
/// after the writer when both runs have the same one (it wrote from stale reads); one of either
/// writer on those bytes (the detector checks an access against the most recent one only, as
/// the layer does, so a write that lands after later writes is reported against the next).
pub(crate) fn difference_hazard(prog: &Program<'_>, hazards: &[crate::hazard::Hazard], bytes: &Bytes<'_>, seen: &Writer, expected: &Writer) -> Option<usize> {
    let (seen, expected) = (crate::hazard::Place::of_writer(seen), crate::hazard::Place::of_writer(expected));
    let overlaps = |h: &crate::hazard::Hazard| hazard_range(prog, h).is_some_and(|(a, n)| a < bytes.addr + bytes.size && bytes.addr < a + n);
    let writer = |p: &crate::hazard::Place| Some(p) == seen.as_ref() || Some(p) == expected.as_ref();
    let at = |p: Option<&crate::hazard::Place>| hazards.iter().position(|h| p.is_some_and(|p| h.at == *p || h.prior == *p) && overlaps(h));
    at(bytes.reader)
        .or_else(|| hazards.iter().position(|h| writer(&h.at) && writer(&h.prior)))
        .or_else(|| hazards.iter().position(|h| h.resource == bytes.resource && writer(&h.at)))
        .or_else(|| if seen == expected { hazards.iter().position(|h| Some(&h.at) == seen.as_ref() || Some(&h.prior) == seen.as_ref()) } else { None })
        .or_else(|| hazards.iter().position(|h| (writer(&h.at) || writer(&h.prior)) && overlaps(h)))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn push_differences(out: &mut Vec<Finding>, prog: &Program<'_>, at: &CommandRef, lane: &exec::LaneRead, exp: &[u8], exp_tags: &[Tag], key: ReadKey, cycle: u64) {
    let (buffer, offset, seen, seen_tags) = (lane.buffer, lane.offset, &lane.bytes[..], &lane.byte_tags[..]);
    // Compare word by word (the provenance granule), so a value differing in one byte is one
    // finding of its whole word, and neighbouring lanes' words join up.
    let n = seen.len().min(exp.len());
    let word_end = |k: usize| ((((offset + k as u64) / 4 + 1) * 4 - offset) as usize).min(n);
    let differs = |k: usize| seen[k..word_end(k)] != exp[k..word_end(k)];
    let mut k = 0;
    while k < n {
        if !differs(k) {
            k = word_end(k);
            continue;
        }
        let start = k;
        let (sw, ew) = (seen_tags[k], exp_tags[k]);
        while k < n && differs(k) && seen_tags[k] == sw && exp_tags[k] == ew {
            k = word_end(k);
        }
        let shown = (k - start).min(16);
        out.push(Finding {
            at: at.clone(),
            resource: prog.workload.buffers[buffer].name.clone(),
            offset: offset + start as u64,
            size: (k - start) as u64,
            seen_write: prog.writer(sw).clone(),
            expected_write: prog.writer(ew).clone(),
            via: lane.via.to_string(),
            key,
            seen: seen[start..start + shown].to_vec(),
            expected: exp[start..start + shown].to_vec(),
            cycle,
            kind: "race",
            diverged: false,
            hazard: None,
            table_rows: None,
        });
    }
}

/// Marks each finding compared with the reference run stale when the write seen happens before
/// the write expected, which happens before the read; the rest stay races. (Findings of the
/// memory model are stale by construction.)
pub(crate) fn classify(findings: &mut [Finding], prog: &Program<'_>, stream: &stream::Stream) {
    if findings.is_empty() {
        return;
    }
    let hb = order::Order::new(prog, stream);
    let instance_of: std::collections::HashMap<&CommandRef, usize> = prog.instances.iter().enumerate().map(|(i, ins)| (&ins.at, i)).collect();
    let agent = |w: &Writer| match w {
        Writer::Initial => order::Agent::Initial,
        Writer::Host { timeline } => order::Agent::Host(*timeline),
        Writer::Command(c) => instance_of.get(c).map_or(order::Agent::Initial, |&i| order::Agent::Node(hb.node_of(i))),
    };
    for f in findings.iter_mut().filter(|f| f.kind == "race") {
        let reader = order::Agent::Node(hb.node_of(f.key.inst as usize));
        let (seen, expected) = (agent(&f.seen_write), agent(&f.expected_write));
        if hb.before(seen, expected) && hb.before(expected, reader) {
            f.kind = "stale";
        }
    }
}

/// Findings of a read the reference run did not make, judged by the memory model: each stale
/// word with the write that should have been seen (its bytes were not read by the reference).
pub(crate) fn push_model_findings(out: &mut Vec<Finding>, prog: &Program<'_>, at: &CommandRef, s: &StaleRead) {
    for lane in &s.lanes {
        let addr = prog.buffer_addr(lane.buffer, lane.offset);
        for (k, chunk) in lane.bytes.chunks(4).enumerate() {
            let word = (addr + 4 * k as u64) & !3;
            let Some(&(_, expected)) = s.model.iter().find(|(a, _)| *a == word) else { continue };
            out.push(Finding {
                at: at.clone(),
                resource: prog.workload.buffers[lane.buffer].name.clone(),
                offset: lane.offset + 4 * k as u64,
                size: chunk.len() as u64,
                seen_write: prog.writer(lane.byte_tags[4 * k]).clone(),
                expected_write: prog.writer(expected).clone(),
                via: lane.via.to_string(),
                key: s.key,
                seen: chunk.to_vec(),
                expected: Vec::new(),
                cycle: s.cycle,
                kind: "stale",
                diverged: false,
                hazard: None,
                table_rows: None,
            });
        }
    }
}

/// Joins findings of one command that continue each other (lanes reading consecutive words).
pub(crate) fn merge_adjacent(findings: &mut Vec<Finding>) {
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    for f in findings.drain(..) {
        if let Some(last) = out.last_mut()
            && last.at == f.at
            && last.resource == f.resource
            && last.offset + last.size == f.offset
            && last.seen_write == f.seen_write
            && last.expected_write == f.expected_write
            && last.via == f.via
            && last.kind == f.kind
        {
            last.size += f.size;
            // Show up to 16 bytes of the merged range, not only its first piece.
            let room = 16usize.saturating_sub(last.seen.len());
            last.seen.extend(f.seen.iter().take(room));
            last.expected.extend(f.expected.iter().take(room));
            continue;
        }
        out.push(f);
    }
    *findings = out;
}
