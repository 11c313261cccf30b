//! The findings of a run: every stale read, host read and final-memory difference explained
//! (which command read which bytes through which cache, whose write it saw and whose it should
//! have seen, the hazard that explains it), merged and classified for the report.

use serde::Serialize;
use sim_caches::Tag;

use crate::api::program::{CommandRef, Program, Writer};
use crate::engine::record::ReadKey;
use crate::engine::{exec, order, stream};
use crate::engine::reference::instance_touches;
use std::collections::HashSet;

use crate::api::error::WorkloadError;
use crate::api::workload::HostOp;
use crate::engine::limits::RunLimits;
use crate::engine::record::{Divergence, HostReadSeen, ReadTruth, StaleRead};
use crate::engine::reference;
use crate::profile::Profile;

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
    /// The index in [`RunResult::hazards`](crate::engine::RunResult::hazards) of the hazard that explains this read (the same
    /// reader, resource and bytes); `None` when no hazard does: the program ordered the read,
    /// so the machine is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
    /// For a read its hazard explains: what the profile's barrier table does for the two
    /// accesses, the operations the missing synchronization would have run on this machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_rows: Option<String>,
    /// For a read no hazard explains, when compressed image memory does: why (a buffer aliasing
    /// a compressed image, or one in a compressed image's page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliasing: Option<String>,
}

/// The bytes one command's stale reads returned from one buffer, merged: complete however many
/// reads went stale (the findings explain the first `MAX_DETAILED_STALE_READS` reads only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaleRange {
    /// The command that read.
    pub at: CommandRef,
    /// The buffer.
    pub resource: String,
    /// (offset, size) of each merged range, in offset order.
    pub ranges: Vec<(u64, u64)>,
}

/// The merged ranges of `stale`, named as reports name commands and buffers.
pub(crate) fn stale_ranges(prog: &Program<'_>, stale: &crate::engine::record::StaleRanges) -> Vec<StaleRange> {
    stale
        .iter()
        .map(|(inst, buffer, ranges)| StaleRange { at: prog.instances[inst as usize].at.clone(), resource: prog.resource_name(buffer).to_string(), ranges })
        .collect()
}

/// One mistake: the stale reads of one command from one buffer through one cache that saw one
/// write where the reference run saw another, told once. What a report leads with; the
/// [`Finding`]s it groups are the per-read detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mistake {
    /// The command that read.
    pub at: CommandRef,
    /// The buffer read.
    pub resource: String,
    /// The cache (or VRAM) that returned the stale bytes.
    pub via: String,
    /// The write whose bytes were seen.
    pub seen_write: Writer,
    /// The write the reference run saw (or the memory model says should have been seen).
    pub expected_write: Writer,
    /// `"stale"` or `"race"`, as [`Finding::kind`]; `"stale"` when the group holds both.
    pub kind: &'static str,
    /// The hazard that explains the reads, as [`Finding::hazard`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
    /// What the barrier table would have done, as [`Finding::table_rows`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_rows: Option<String>,
    /// Why compressed image memory explains it, as [`Finding::aliasing`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliasing: Option<String>,
    /// Distinct reads (shader load requests of a subgroup, transfer chunks) among the grouped
    /// findings.
    pub reads: u64,
    /// Bytes in `ranges`.
    pub bytes: u64,
    /// The bytes read stale, merged, as (offset, size) in offset order.
    pub ranges: Vec<(u64, u64)>,
    /// The lowest-offset finding's first bytes as seen.
    pub seen: Vec<u8>,
    /// The same bytes as the reference run saw them (empty when the memory model judged them).
    pub expected: Vec<u8>,
    /// Whether the lowest-offset finding has more bytes than `seen` shows.
    #[serde(skip)]
    pub seen_cut: bool,
    /// Whether a read of the group decided a branch or a loop (see [`Finding::diverged`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diverged: bool,
    /// Indices in [`RunResult::findings`](crate::engine::RunResult::findings) of the findings
    /// grouped here, in their order there.
    #[serde(skip)]
    pub findings: Vec<usize>,
}

/// The findings grouped by mistake: one [`Mistake`] per (reader, buffer, cache, write seen,
/// write expected, hazard), in the order of the reading commands, then buffer, then first
/// offset. Sorting the ranges makes it O(n log n) in the findings.
pub fn mistakes(findings: &[Finding]) -> Vec<Mistake> {
    use std::collections::HashMap;
    type Key<'a> = (u32, &'a str, &'a str, &'a Writer, &'a Writer, Option<usize>);
    let mut index: HashMap<Key<'_>, usize> = HashMap::new();
    let mut groups: Vec<(Key<'_>, Vec<usize>)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let key = (f.key.inst, f.resource.as_str(), f.via.as_str(), &f.seen_write, &f.expected_write, f.hazard);
        let g = *index.entry(key).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    let mut out: Vec<(u32, Mistake)> = groups
        .into_iter()
        .map(|((inst, ..), members)| {
            let mut spans: Vec<(u64, u64)> = members.iter().map(|&i| (findings[i].offset, findings[i].offset + findings[i].size)).collect();
            spans.sort_unstable();
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            for (s, e) in spans {
                match ranges.last_mut() {
                    Some((ls, le)) if *ls + *le >= s => *le = (*ls + *le).max(e) - *ls,
                    _ => ranges.push((s, e - s)),
                }
            }
            let first = &findings[*members.iter().min_by_key(|&&i| (findings[i].offset, i)).expect("a group has a finding")];
            let mut reads: Vec<ReadKey> = members.iter().map(|&i| findings[i].key).collect();
            reads.sort_unstable();
            reads.dedup();
            let m = Mistake {
                at: first.at.clone(),
                resource: first.resource.clone(),
                via: first.via.clone(),
                seen_write: first.seen_write.clone(),
                expected_write: first.expected_write.clone(),
                kind: if members.iter().any(|&i| findings[i].kind == "stale") { "stale" } else { "race" },
                hazard: first.hazard,
                table_rows: first.table_rows.clone(),
                aliasing: first.aliasing.clone(),
                reads: reads.len() as u64,
                bytes: ranges.iter().map(|r| r.1).sum(),
                ranges,
                seen: first.seen.clone(),
                expected: first.expected.clone(),
                seen_cut: first.size as usize > first.seen.len(),
                diverged: members.iter().any(|&i| findings[i].diverged),
                findings: members,
            };
            (inst, m)
        })
        .collect();
    out.sort_by(|(ia, a), (ib, b)| (ia, &a.resource, a.ranges[0].0).cmp(&(ib, &b.resource, b.ranges[0].0)));
    out.into_iter().map(|(_, m)| m).collect()
}

/// Drops findings that repeat one already made by the same read (lanes of a subgroup that read
/// the same bytes: a uniform read, a broadcast), keeping the first.
pub(crate) fn dedup_findings(findings: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    findings.retain(|f| seen.insert((f.key, f.resource.clone(), f.offset, f.size, f.seen_write.clone(), f.expected_write.clone(), f.via.clone())));
}

/// The most runs of differing final bytes a report lists, unless [`RunOptions`](crate::engine::RunOptions) says otherwise.
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
    /// The first bytes of the run (at most 16) as the run left them.
    pub seen: Vec<u8>,
    /// The same bytes as the reference run left them.
    pub expected: Vec<u8>,
    /// The index in [`RunResult::hazards`](crate::engine::RunResult::hazards) of the hazard that explains these bytes: one between
    /// the two writers, at either of them, or of either on these bytes; `None` when none does:
    /// the machine put stale bytes back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
    /// For bytes no hazard explains, when compressed image memory does: why, as
    /// [`Finding::aliasing`] (the bytes are in compressed image memory, or their writer read
    /// such bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliasing: Option<String>,
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
    /// When bytes differ: the index in [`RunResult::hazards`](crate::engine::RunResult::hazards) of the hazard that explains them
    /// (a host read after a write no barrier made available to the host, a missing invalidate,
    /// a host access racing device work), else one of the write seen or the write expected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hazard: Option<usize>,
    /// When no hazard explains the bytes and compressed image memory does (the final bytes
    /// the host read lie in it, or their writer read from it): why, as
    /// [`MemoryDifference::aliasing`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliasing: Option<String>,
}

/// The device addresses of a finding's bytes: `(start, size)`.
pub(crate) fn finding_range(prog: &Program<'_>, f: &Finding) -> Option<(u64, u64)> {
    let b = prog.resource_by_name(&f.resource)?;
    Some((prog.buffer_addr(b, f.offset), f.size))
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
/// the layer does, so a write that lands after later writes is reported against the next); the
/// one that explains either writer's own stale reads (a draw that fetched stale vertices drew
/// where the reference run's did not; a copy copied a picture that a stale indirect record
/// left short); and for a writer that both runs have, whose inputs were bytes an earlier
/// mistake left wrong (a copy of an image another copy filled from stale reads), the hazard of
/// the run's first stale read, where hazards explain them all: wrong bytes come only from stale
/// reads, so a run whose stale reads hazards explain has its computed differences explained by
/// them too.
pub(crate) fn difference_hazard(prog: &Program<'_>, hazards: &[crate::hazard::Hazard], findings: &[Finding], bytes: &Bytes<'_>, seen: &Writer, expected: &Writer) -> Option<usize> {
    let read_stale = |w: &Writer| match w {
        Writer::Command(c) => findings.iter().find(|f| &f.at == c && f.hazard.is_some()).and_then(|f| f.hazard),
        _ => None,
    };
    let inputs = read_stale(seen).or_else(|| read_stale(expected));
    let upstream = match (seen, expected) {
        // Only where hazards explain every stale read: else the wrong inputs may be another
        // cause's (compressed memory read as a buffer).
        (Writer::Command(c), Writer::Command(e)) if c == e && findings.iter().all(|f| f.hazard.is_some()) => findings.first().and_then(|f| f.hazard),
        _ => None,
    };
    let (seen, expected) = (crate::hazard::Place::of_writer(seen), crate::hazard::Place::of_writer(expected));
    let overlaps = |h: &crate::hazard::Hazard| h.device_range(prog).is_some_and(|(a, n)| a < bytes.addr + bytes.size && bytes.addr < a + n);
    let writer = |p: &crate::hazard::Place| Some(p) == seen.as_ref() || Some(p) == expected.as_ref();
    let at = |p: Option<&crate::hazard::Place>| hazards.iter().position(|h| p.is_some_and(|p| h.at == *p || h.prior == *p) && overlaps(h));
    at(bytes.reader)
        .or_else(|| hazards.iter().position(|h| writer(&h.at) && writer(&h.prior)))
        .or_else(|| hazards.iter().position(|h| h.resource == bytes.resource && writer(&h.at)))
        .or_else(|| if seen == expected { hazards.iter().position(|h| Some(&h.at) == seen.as_ref() || Some(&h.prior) == seen.as_ref()) } else { None })
        .or_else(|| hazards.iter().position(|h| (writer(&h.at) || writer(&h.prior)) && overlaps(h)))
        .or(inputs)
        .or(upstream)
        // Bytes a layout transition discarded (the image's own, garbled in place).
        .or_else(|| hazards.iter().position(|h| h.discarded.is_some() && overlaps(h)))
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
            resource: prog.resource_name(buffer).to_string(),
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
            aliasing: None,
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
        // The write it should have seen, garbled after it (no second write to race with).
        if f.seen_write == f.expected_write || (hb.before(seen, expected) && hb.before(expected, reader)) {
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
                resource: prog.resource_name(lane.buffer).to_string(),
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
                aliasing: None,
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

/// The host reads of a simulated run as the report gives them, and the stale-read count with
/// the host reads that differ added.
pub(crate) fn host_read_results(prog: &Program<'_>, truth: &ReadTruth, seen_reads: Vec<HostReadSeen>, stale_count: u64) -> (Vec<HostReadResult>, u64) {
    let workload = prog.workload;
    // Host reads.
    let mut host_reads = Vec::new();
    let mut stale_reads = stale_count;
    for seen in seen_reads {
        let HostOp::HostRead { offset, label, expect, .. } = &workload.timeline[seen.timeline] else { continue };
        if seen.differing_bytes > 0 {
            stale_reads += 1;
        }
        let reference_bytes = truth.host_reads.get(&seen.timeline).map(|r| &r.bytes[..]);
        host_reads.push(HostReadResult {
            timeline: seen.timeline,
            label: label.clone(),
            differing_bytes: seen.differing_bytes,
            reference_meets_expectation: expect.as_ref().map(|e| Some(&e[..]) == reference_bytes),
            data: seen.bytes,
            first_difference: seen.first_difference.map(|(k, tag, rtag)| (offset + k, prog.writer(tag).clone(), prog.writer(rtag).clone())),
            hazard: None,
            aliasing: None,
        });
    }

    (host_reads, stale_reads)
}

/// Final memory compared with the reference run's, byte for byte, where the workload asks for
/// it: the bytes that differ and are wrong by the memory model, as runs of (memory, offset,
/// size, writer seen, writer expected), at most `max` runs.
pub(crate) struct FinalMemory {
    /// Bytes that differ and are wrong.
    pub(crate) corrupted_bytes: u64,
    /// The runs listed.
    pub(crate) runs: Vec<DifferingRun>,
    /// Whether there were more runs than listed.
    pub(crate) truncated: bool,
}

/// A run of differing final bytes with the same two writers.
pub(crate) struct DifferingRun {
    /// The memory object.
    pub(crate) memory: usize,
    /// Offset of the first byte in it.
    pub(crate) offset: u64,
    /// Bytes.
    pub(crate) size: u64,
    /// The writer of the bytes left, and of the reference run's.
    pub(crate) writers: (Tag, Tag),
    /// The first bytes (at most 16) as left, and as the reference run left them.
    pub(crate) values: (Vec<u8>, Vec<u8>),
}

/// Compares `sim_vram` (the simulated run's memory, caches drained) with the reference run's
/// `reference_memory`; `tainted` (writers that read stale bytes) and the write log decide
/// whether a differing byte is wrong; a `stopped` run's memory is not a result.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare_final_memory(
    prog: &Program<'_>,
    stream: &stream::Stream,
    tainted: &[bool],
    mut write_log: Option<crate::engine::oracle::WriteLog>,
    stopped: bool,
    sim_vram: &sim_caches::BackingStore,
    reference_memory: &sim_caches::BackingStore,
    max: usize,
) -> Result<FinalMemory, WorkloadError> {
    let workload = prog.workload;
    // Final memory, byte for byte, where the workload asks for the comparison.
    let mut corrupted_bytes = 0u64;
    // (memory, offset, size, writer seen, writer expected) of each differing run of bytes.
    let mut memory_differences: Vec<DifferingRun> = Vec::new();
    let mut memory_differences_truncated = false;
    let final_err = |e: sim_caches::AccessError| WorkloadError::Execution { at: "final memory".into(), message: e.to_string() };
    let (mut a, mut b) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    let (mut ta, mut tb) = (vec![0 as Tag; (1 << 14) + 1], vec![0 as Tag; (1 << 14) + 1]);
    let tainted = |t: Tag| tainted.get(t as usize).copied().unwrap_or(false);
    // Happens-before, built when a final byte's writer is not the reference's.
    let hb = std::cell::OnceCell::new();
    for (m, desc) in workload.memories.iter().enumerate() {
        // A stopped run's memory is what it had written when it stopped, not a result.
        if !desc.compare || stopped {
            continue;
        }
        let base = prog.memory_base[m];
        let mut pos = 0u64;
        while pos < desc.size {
            let n = (desc.size - pos).min(1 << 16) as usize;
            let span = sim_caches::word_span(base + pos, n);
            sim_vram.peek(base + pos, &mut a[..n], &mut ta[..span]).map_err(final_err)?;
            reference_memory.peek(base + pos, &mut b[..n], &mut tb[..span]).map_err(final_err)?;
            // A byte differing from the reference's is corruption when its writer read stale
            // bytes, or when another write left it and the memory model says this one is not the
            // last of its word (another write happens after it, or races it); the same write, or
            // one whose place an atomic picked, leaves bytes that depend on timing.
            let word = |k: usize| ((base + pos + k as u64) / 4 - (base + pos) / 4) as usize;
            // The memory model's verdict of the last word asked about: a word's bytes share it.
            let mut judged: Option<(usize, bool)> = None;
            let mut wrong = |k: usize| {
                let (seen, expected) = (ta[word(k)], tb[word(k)]);
                if tainted(seen) {
                    return true;
                }
                if seen == expected {
                    return false;
                }
                if let Some((w, wrong)) = judged
                    && w == word(k)
                {
                    return wrong;
                }
                let wrong = match write_log.as_mut() {
                    Some(log) => log.wrong_by_model(hb.get_or_init(|| order::Order::new(prog, stream)), None, (base + pos + k as u64) & !3, seen),
                    None => true,
                };
                judged = Some((word(k), wrong));
                wrong
            };
            let differing: Vec<usize> = (0..n).filter(|&k| a[k] != b[k] && wrong(k)).collect();
            for k in differing {
                corrupted_bytes += 1;
                let (off, seen, expected) = (pos + k as u64, ta[word(k)], tb[word(k)]);
                // Runs of differing bytes with the same two writers, merged.
                let full = memory_differences.len() >= max;
                match memory_differences.last_mut() {
                    Some(d) if d.memory == m && d.offset + d.size == off && d.writers == (seen, expected) => {
                        d.size += 1;
                        if d.values.0.len() < 16 {
                            d.values.0.push(a[k]);
                            d.values.1.push(b[k]);
                        }
                    }
                    _ if full => memory_differences_truncated = true,
                    _ => memory_differences.push(DifferingRun { memory: m, offset: off, size: 1, writers: (seen, expected), values: (vec![a[k]], vec![b[k]]) }),
                }
            }
            pos += n as u64;
        }
    }
    Ok(FinalMemory { corrupted_bytes, runs: memory_differences, truncated: memory_differences_truncated })
}

/// Every stale read of the simulated run as findings: the reads compared with the reference
/// run's, in detail from a second reference run that captures just those reads (the first
/// cannot know which reads will differ, and keeping every read's bytes would cost the memory
/// of every read), and those judged by the memory model; merged, classified, and marked where
/// their subgroup diverged.
pub(crate) fn stale_read_findings(prog: &Program<'_>, stream: &stream::Stream, stale: &[StaleRead], divergences: &[Divergence], subgroup_size: u32, limits: &RunLimits) -> Result<Vec<Finding>, WorkloadError> {
    let keys: HashSet<ReadKey> = stale.iter().map(|s| s.key).collect();
    let captured = if keys.is_empty() { std::collections::HashMap::new() } else { reference::reference_run_with(prog, stream, subgroup_size, &keys, limits)?.truth.captured };

    let mut findings = Vec::new();
    for s in stale {
        let inst = &prog.instances[s.key.inst as usize];
        if !s.model.is_empty() {
            push_model_findings(&mut findings, prog, &inst.at, s);
            continue;
        }
        let expected = captured.get(&s.key);
        for lane in &s.lanes {
            // The reference's read of the same lane and bytes (a copy chunk's read is one piece
            // there, and one piece per serving level here).
            let end = lane.offset + lane.bytes.len() as u64;
            let exp = expected.and_then(|e| e.iter().find(|l| l.lane == lane.lane && l.offset <= lane.offset && end <= l.offset + l.bytes.len() as u64));
            let Some(exp) = exp else { continue };
            let at = (lane.offset - exp.offset) as usize..(end - exp.offset) as usize;
            push_differences(&mut findings, prog, &inst.at, lane, &exp.bytes[at.clone()], &exp.byte_tags[at], s.key, s.cycle);
        }
    }
    dedup_findings(&mut findings);
    merge_adjacent(&mut findings);
    classify(&mut findings, prog, stream);
    // The first finding of each subgroup that diverged says so.
    for d in divergences {
        if let Some(f) = findings.iter_mut().find(|f| f.key.inst == d.key.inst && f.key.a == d.key.a && f.key.b == d.key.b && f.key.d == d.key.d) {
            f.diverged = true;
        }
    }

    Ok(findings)
}

/// Each finding's explanation: the hazard that explains it, and what this machine's barrier
/// table would have done for its two accesses.
pub(crate) fn explain(findings: &mut [Finding], prog: &Program<'_>, profile: &Profile, hazards: &[crate::hazard::Hazard], accesses: &std::collections::HashMap<usize, reference::DispatchAccesses>) {
    for f in findings.iter_mut() {
        // The hazard that explains a read, in order: one at the reader (or with the reader as its
        // prior access: a read that ran after the write it had to precede) on these bytes; one
        // between the write the read saw and the write it should have seen; one of either write
        // on these bytes (the detector checks an access against the most recent one only, as the
        // layer does: the write seen may be ordered after none of the earlier accesses, or land
        // after later writes, and the write expected may be visible to none of the reads of a
        // stage); one at either writer, or on bytes either writer accessed (a race among its
        // inputs decided what it wrote, and where).
        let reader = crate::hazard::Place::Command(f.at.clone());
        let overlaps = |h: &crate::hazard::Hazard| h.resource == f.resource && h.offset < f.offset + f.size && f.offset < h.offset + h.size;
        let (seen, expected) = (crate::hazard::Place::of_writer(&f.seen_write), crate::hazard::Place::of_writer(&f.expected_write));
        f.hazard = hazards
            .iter()
            .position(|h| (h.at == reader || h.prior == reader) && overlaps(h))
            .or_else(|| {
                hazards.iter().position(|h| {
                    let pair = (Some(&h.prior), Some(&h.at));
                    (pair == (seen.as_ref(), expected.as_ref()) || pair == (expected.as_ref(), seen.as_ref())) && h.resource == f.resource
                })
            })
            .or_else(|| {
                hazards.iter().position(|h| {
                    let involved = |p: &crate::hazard::Place| Some(p) == seen.as_ref() || Some(p) == expected.as_ref();
                    (involved(&h.at) || involved(&h.prior)) && overlaps(h)
                })
            })
            .or_else(|| hazards.iter().position(|h| Some(&h.at) == seen.as_ref() || Some(&h.at) == expected.as_ref()))
            .or_else(|| {
                // A host operation that undid a host write (an invalidate before its flush):
                // named after the memory object, it meets the finding's buffer by address.
                let bytes = finding_range(prog, f)?;
                hazards.iter().position(|h| {
                    matches!(h.at, crate::hazard::Place::Host { .. })
                        && (Some(&h.prior) == expected.as_ref() || Some(&h.prior) == seen.as_ref())
                        && h.device_range(prog).is_some_and(|(s, n)| s < bytes.0 + bytes.1 && bytes.0 < s + n)
                })
            })
            .or_else(|| {
                let writers: Vec<usize> = [&f.seen_write, &f.expected_write].into_iter().filter_map(|w| if let Writer::Command(c) = w { prog.instance_of(c) } else { None }).collect();
                hazards.iter().position(|h| h.device_range(prog).is_some_and(|r| writers.iter().any(|&x| instance_touches(prog, accesses, x, r))))
            });
        if f.hazard.is_none() {
            f.aliasing = finding_range(prog, f).and_then(|(a, n)| crate::engine::compression::explain_bytes(prog, profile, a, n));
        }
        if let Some(h) = f.hazard.map(|i| &hazards[i])
            && matches!(h.id, "SYNC-HAZARD-WRITE-AFTER-READ" | "SYNC-HAZARD-WRITE-RACING-READ")
        {
            f.table_rows = Some("a write after read needs an execution dependency only, no cache operation: this read ran after the write it had to precede".into());
        } else if let Some(h) = f.hazard.map(|i| &hazards[i])
            && h.id == "GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH"
        {
            f.table_rows = Some(format!(
                "on {}, the bytes came through {}; the invalidate discarded the host's writes before any flush, so they never reached device memory",
                profile.name, f.via
            ));
        } else if let Some(h) = f.hazard.map(|i| &hazards[i])
            && h.discarded.is_some()
        {
            f.table_rows = Some(crate::engine::compression::discard_text(prog, profile, h, &f.via));
        } else if let Some(h) = f.hazard.map(|i| &hazards[i])
            && h.usage.is_layout_transition()
        {
            // The transition's own barrier is what lacked the write: its first scope, widened.
            f.table_rows = Some(format!(
                "on {}, the bytes came through {}; the barrier that transitions the layout, with {} in its first scope, would have performed, by the barrier table, {} before the transition",
                profile.name,
                f.via,
                h.prior_usage,
                profile.barriers.ops_text(h.prior_usage, crate::sync::Scope::First)
            ));
        } else if let Some(h) = f.hazard.map(|i| &hazards[i]) {
            let side = |u: crate::sync::StageAccess, scope: crate::sync::Scope| profile.barriers.ops_text(u, scope);
            f.table_rows = Some(format!(
                "on {}, the bytes came through {}; a barrier from {} to {} would have performed, by the barrier table, {} in its first scope and {} in its second",
                profile.name,
                f.via,
                h.prior_usage,
                h.usage,
                side(h.prior_usage, crate::sync::Scope::First),
                side(h.usage, crate::sync::Scope::Second)
            ));
        }
    }

}

/// The runs of differing final bytes as the report gives them, each with the hazard that
/// explains it.
pub(crate) fn memory_differences(prog: &Program<'_>, profile: &Profile, hazards: &[crate::hazard::Hazard], findings: &[Finding], runs: Vec<DifferingRun>) -> Vec<MemoryDifference> {
    let workload = prog.workload;
    runs.into_iter()
        .map(|DifferingRun { memory: m, offset, size, writers: (seen, expected), values }| {
            let desc = &workload.memories[m];
            // The buffer bound there, or else the image.
            let bound = prog.resource_at(m, offset).map(|(r, off)| (prog.resource_name(r), off));
            let (seen_write, expected_write) = (prog.writer(seen).clone(), prog.writer(expected).clone());
            let bytes = Bytes { addr: prog.memory_base[m] + offset, size, resource: bound.map_or(desc.name.as_str(), |b| b.0), reader: None };
            let hazard = difference_hazard(prog, hazards, findings, &bytes, &seen_write, &expected_write);
            // Bytes in compressed image memory, or left by a writer that read such bytes.
            // Left by the writer the reference run has too, with other values: its inputs
            // explain them (below), not where they lie.
            let computed = seen_write == expected_write && matches!(seen_write, Writer::Command(_));
            let aliasing = hazard.is_none().then(|| {
                (!computed).then(|| crate::engine::compression::explain_bytes(prog, profile, bytes.addr, size)).flatten().or_else(|| {
                    let Writer::Command(c) = &seen_write else { return None };
                    // The first mistake of that writer's reads says why.
                    findings.iter().find(|f| f.aliasing.is_some() && &f.at == c).map(|f| format!("their writer computed them from bytes it read through buffer {}: {}", f.resource, f.aliasing.as_deref().unwrap_or_default()))
                })
            });
            MemoryDifference {
                memory: desc.name.clone(),
                offset,
                size,
                buffer: bound.map(|(n, off)| (n.to_string(), off)),
                seen_write,
                expected_write,
                seen: values.0,
                expected: values.1,
                hazard,
                aliasing: aliasing.flatten(),
            }
        })
        .collect()
}

/// Each host read that differs: the hazard at that read, or of the writes it saw and missed;
/// else, where the final bytes it read differ because of compressed image memory, why.
pub(crate) fn explain_host_reads(host_reads: &mut [HostReadResult], prog: &Program<'_>, hazards: &[crate::hazard::Hazard], findings: &[Finding], differences: &[MemoryDifference]) {
    let workload = prog.workload;
    for h in host_reads.iter_mut() {
        let (HostOp::HostRead { memory, offset, size, .. }, Some((_, seen, expected))) = (&workload.timeline[h.timeline], &h.first_difference) else { continue };
        let reader = crate::hazard::Place::Host { timeline: h.timeline };
        let bytes = Bytes { addr: prog.memory_base[*memory] + offset, size: *size, resource: &workload.memories[*memory].name, reader: Some(&reader) };
        h.hazard = difference_hazard(prog, hazards, findings, &bytes, seen, expected);
        if h.hazard.is_none() {
            let name = &workload.memories[*memory].name;
            h.aliasing = differences.iter().find(|d| &d.memory == name && d.offset < offset + size && *offset < d.offset + d.size).and_then(|d| d.aliasing.clone());
        }
    }
}
