//! What runs record about their reads, and what they hand the findings: the key that names a
//! read in both runs ([`ReadKey`]), the reference run's fingerprints and captured detail
//! ([`ReadTruth`]), the simulated run's stale reads, divergences and host reads as the oracle
//! judged them, and the log of what each sync node did. Plain data: the timed loop, the
//! reference run, the oracle and the findings all read it, and it imports none of them.

use std::collections::{BTreeMap, HashMap};

use sim_caches::Tag;

use crate::engine::exec::LaneRead;
use crate::api::program::CommandRef;
use crate::engine::machine::CacheOp;

/// Identifies a read in both runs. Shader loads: (instance, workgroup, subgroup, load index of
/// that subgroup); transfer reads: (instance, region, chunk, `u32::MAX`); a draw's reads carry
/// their kind and the draw's part in `d` (`engine/graphics.rs`), 0 for every other read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReadKey {
    /// Command instance.
    pub inst: u32,
    /// Workgroup linear index, or copy region.
    pub a: u32,
    /// Subgroup, or chunk.
    pub b: u32,
    /// Load index within the subgroup, or `u32::MAX` for transfer reads.
    pub c: u32,
    /// A draw's read: its kind, indirect record and place (0 for dispatches and transfers).
    pub d: u64,
}

/// What the reference run saw of one read: fingerprints of its bytes, of where it read, and of
/// whose writes it read (lanes and offsets included in each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPrint {
    /// The bytes read.
    pub bytes: u64,
    /// Where it read.
    pub addrs: u64,
    /// The writer of every word read.
    pub writers: u64,
}

/// What the reference run read: a fingerprint of every read, and the details of some.
#[derive(Default)]
pub struct ReadTruth {
    /// Fingerprints of every read.
    pub fingerprints: HashMap<ReadKey, ReadPrint>,
    /// Lane-level detail of the reads asked for.
    pub captured: HashMap<ReadKey, Vec<LaneRead>>,
    /// Every host read, by timeline index.
    pub host_reads: HashMap<usize, ReferenceHostRead>,
}

/// A host read as the reference run made it: its bytes and the provenance of each 4-byte word
/// they lie in (the reference has no host cache, so a word has one writer).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReferenceHostRead {
    /// The device address read.
    pub addr: u64,
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// One tag per word of `[addr, addr + bytes.len())` ([`sim_caches::word_span`]).
    pub word_tags: Vec<Tag>,
}

impl ReferenceHostRead {
    /// The tag of byte `k` of the read.
    pub fn tag_of(&self, k: usize) -> Tag {
        self.word_tags[((self.addr + k as u64) / 4 - self.addr / 4) as usize]
    }
}

/// A host read of the simulated run, compared with the reference run's as it was made, so that
/// neither run's per-byte provenance outlives the read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostReadSeen {
    /// Timeline index.
    pub timeline: usize,
    /// What the simulated host read.
    pub bytes: Vec<u8>,
    /// Bytes that differ from the reference run's same read.
    pub differing_bytes: u64,
    /// The first differing byte: its index in the read, its writer as seen and as the
    /// reference run saw it.
    pub first_difference: Option<(u64, Tag, Tag)>,
}

/// A read of the simulated run that differed from the reference.
#[derive(Clone, Debug)]
pub struct StaleRead {
    /// Which read.
    pub key: ReadKey,
    /// Lane-level detail of what the simulated run read, each with the cache that served it.
    pub lanes: Vec<LaneRead>,
    /// Cycle of the read.
    pub cycle: u64,
    /// For a read the reference run did not make (or made elsewhere), judged by the memory
    /// model: each stale word's address and the write it should have seen. Empty for a read
    /// compared with the reference's.
    pub model: Vec<(u64, Tag)>,
}

/// A subgroup whose control flow left the reference run's after it read stale bytes: its later
/// reads have no counterpart there and are not compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Its first read without a counterpart.
    pub key: ReadKey,
    /// Cycle of that read.
    pub cycle: u64,
}

/// A cache operation a sync node performed, for timelines and reports.
#[derive(Clone, Debug)]
pub struct SyncLog {
    /// What the node is (`"vkCmdPipelineBarrier2 submit 2 cb0[1]"`, `"semaphore wait"`, ...).
    pub label: String,
    /// Queue.
    pub queue: usize,
    /// Cycle it was submitted to its queue (from here to `fired` it drains: it waits for the
    /// work of its first scope).
    pub queued: u64,
    /// Cycle the queue reached it: when the action before it on its queue started (the next
    /// command could have launched then), or when it was queued if later; from here to
    /// `released` the queue's later work is held.
    pub reached: u64,
    /// Cycle it fired.
    pub fired: u64,
    /// Cycle it was released.
    pub released: u64,
    /// The operations in the order performed, each with what it cost.
    pub ops: Vec<SyncOp>,
    /// The metadata work of its image layout transitions, in the order performed.
    pub image_work: Vec<ImageWorkLog>,
}

/// What a layout transition's metadata work did, for timelines and reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ImageWorkLog {
    /// The image's id.
    pub image: String,
    /// The work, as the profile's row names it.
    pub work: crate::profile::ImageWork,
    /// Tiles it rewrote (for an initialization: tiles whose metadata it set).
    pub tiles: u64,
    /// Cycles it took.
    pub cycles: u64,
}

/// One cache operation a sync node performed, and what it cost.
#[derive(Clone, Debug)]
pub struct SyncOp {
    /// The operation.
    pub op: CacheOp,
    /// Dirty lines it wrote back (summed over every instance of the cache).
    pub lines_written_back: u64,
    /// The bytes those lines carried.
    pub bytes_written_back: u64,
    /// Cycles it took: lines walked plus the bandwidth of what it wrote back.
    pub cycles: u64,
}

/// The most stale reads kept in detail; later ones are only counted.
pub const MAX_DETAILED_STALE_READS: usize = 256;

/// Where and why a simulated run that had read stale bytes was stopped by one of its budgets:
/// what [`WorkloadError::Budget`](crate::api::WorkloadError::Budget) would have said.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Stopped {
    /// The dispatch running when the budget ran out, or `run`.
    pub at: String,
    /// That dispatch, as reports name commands (`None` for `run`).
    pub command: Option<CommandRef>,
    /// Which budget, how to raise it, and the stale reads made before.
    pub message: String,
}

/// The bytes every stale read returned, merged per (reading command instance, buffer): kept
/// whole however many reads went stale (a read costs one ordered-map update), where the reads
/// kept in detail stop at [`MAX_DETAILED_STALE_READS`].
#[derive(Clone, Debug, Default)]
pub struct StaleRanges {
    /// Per (instance, buffer): start offset → end offset of each merged range.
    ranges: BTreeMap<(u32, usize), BTreeMap<u64, u64>>,
}

impl StaleRanges {
    /// Adds bytes `[offset, offset + len)` of `buffer` read stale by instance `inst`.
    pub fn add(&mut self, inst: u32, buffer: usize, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        let map = self.ranges.entry((inst, buffer)).or_default();
        let (mut start, mut end) = (offset, offset + len);
        // The range starting at or before `start` that reaches it, then every range it reaches.
        if let Some((&s, &e)) = map.range(..=start).next_back()
            && e >= start
        {
            start = s;
            end = end.max(e);
            map.remove(&s);
        }
        while let Some((&s, &e)) = map.range(start..=end).next() {
            end = end.max(e);
            map.remove(&s);
        }
        map.insert(start, end);
    }

    /// Every (instance, buffer) with its merged ranges as (offset, size), in order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, usize, Vec<(u64, u64)>)> + '_ {
        self.ranges.iter().map(|(&(inst, buffer), m)| (inst, buffer, m.iter().map(|(&s, &e)| (s, e - s)).collect()))
    }
}
