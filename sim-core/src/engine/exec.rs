//! Performing one interpreter memory request on some memory (the simulated machine or the flat
//! reference), shared by both runs so that "the same read" is computed the same way in each.

use sim_caches::{AccessError, TAG_GRANULE, Tag, word_span};
use sim_shader::{BindingKind, MemOp, MemRequest};

use crate::engine::bindings::{Bound, Run, coalesce};
use crate::engine::machine::Served;
use crate::engine::rng::fingerprint;

/// Memory as a dispatch sees it.
pub trait Port {
    /// Loads through the path for `kind` (at the coherence point when `coherent`: atomicLoad, or
    /// any load of a buffer, or of a block member, the shader declares `Coherent`);
    /// returns latency and which level served each line.
    fn load(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError>;
    /// Stores through the storage path (at the coherence point when `coherent`: atomicStore, or
    /// any store to a `Coherent` buffer or block member);
    /// returns latency.
    fn store(&mut self, cu: usize, coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError>;
    /// Atomic read-modify-write of 4 bytes; returns latency.
    fn atomic(&mut self, cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError>;
    /// Hints that [`Port::load`] with these arguments is coming; changes nothing. The default
    /// does nothing.
    fn prefetch(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64) {
        let _ = (cu, kind, coherent, addr);
    }
}

/// The fewest runs a load request is split into for its runs to be hinted to the host before
/// any is performed: a gather whose lanes read far apart. Each hint costs some tens of host
/// instructions a level, and a request of a few runs (a subgroup reading consecutive words)
/// mostly hits; a scattered one misses run after run, and its misses then overlap
/// (`engine/gather_64MiB` in BENCHMARKS.md).
pub const PREFETCH_MIN_RUNS: usize = 8;

/// Reusable buffers for performing requests.
#[derive(Default)]
pub struct Scratch {
    /// Runs of the current request.
    pub runs: Vec<Run>,
    /// Loaded bytes / atomic results, in lane order.
    pub results: Vec<u8>,
    /// Provenance of the loaded bytes, run after run.
    pub tags: Vec<Tag>,
    /// Start of each run's tags in `tags`.
    pub run_tags: Vec<usize>,
    /// Each load piece's first address, and which level served its lines.
    pub served: Vec<(u64, Served)>,
    /// Perform a request's atomics from its last lane to its first: another order a device
    /// may take, for the reference runs that find which bytes depend on timing.
    pub atomics_last_lane_first: bool,
}

/// What performing a request produced.
#[derive(Clone, Copy, Debug)]
pub struct Performed {
    /// Cycles until the request completes (the slowest run).
    pub latency: u64,
    /// Fingerprint of a load's lanes, device addresses and bytes (0 for stores and atomics).
    pub fingerprint: u64,
    /// Fingerprint of a load's lanes and device addresses alone: where it read. The writers' fingerprint
    /// is [`tags_fingerprint`]`(addrs, &scratch.tags)`, made only where it is needed.
    pub addrs: u64,
}

/// Performs `req` against `bound` bindings through `port`, leaving results in `scratch`.
pub fn perform<P: Port>(port: &mut P, cu: usize, req: &MemRequest, bound: &[Bound], tag: Tag, scratch: &mut Scratch) -> Result<Performed, AccessError> {
    let b = &bound[req.binding_index as usize];
    let mut out = Performed { latency: 0, fingerprint: 0, addrs: 0 };
    scratch.results.clear();
    match req.op {
        MemOp::Load => {
            coalesce(&req.lanes, &mut scratch.runs);
            let total: usize = req.lanes.iter().map(|l| l.size as usize).sum();
            scratch.results.resize(total, 0);
            scratch.tags.clear();
            scratch.run_tags.clear();
            scratch.served.clear();
            if scratch.runs.len() >= PREFETCH_MIN_RUNS {
                for r in &scratch.runs {
                    port.prefetch(cu, b.kind, req.atomic || b.coherence_from(r.offset, r.offset + r.len).0, b.base + r.offset);
                }
            }
            for r in &scratch.runs {
                let addr = b.base + r.offset;
                let start = scratch.tags.len();
                scratch.run_tags.push(start);
                scratch.tags.resize(start + word_span(addr, r.len as usize), 0);
                // One request a run, or one a piece where the run crosses into or out of the
                // coherent members of a partly coherent block.
                let mut done = 0;
                while done < r.len {
                    let (coherent, end) = b.coherence_from(r.offset + done, r.offset + r.len);
                    let (a, n) = (addr + done, (end - r.offset - done) as usize);
                    let (d0, t0) = (r.data_pos + done as usize, start + (a / TAG_GRANULE - addr / TAG_GRANULE) as usize);
                    let (lat, served) = port.load(cu, b.kind, req.atomic || coherent, a, &mut scratch.results[d0..d0 + n], &mut scratch.tags[t0..t0 + word_span(a, n)])?;
                    out.latency = out.latency.max(lat);
                    scratch.served.push((a, served));
                    done += n as u64;
                }
            }
            // Where it read is the device address, not the binding-relative offset: a read of
            // B[0, 256) is another read than the reference's of A[0, 256).
            let mut h = 0;
            for l in &req.lanes {
                h = fingerprint(h, &l.lane.to_le_bytes());
                h = fingerprint(h, &(b.base + l.offset).to_le_bytes());
            }
            out.fingerprint = fingerprint(h, &scratch.results);
            out.addrs = h;
        }
        MemOp::Store => {
            coalesce(&req.lanes, &mut scratch.runs);
            for r in &scratch.runs {
                let mut done = 0;
                while done < r.len {
                    let (coherent, end) = b.coherence_from(r.offset + done, r.offset + r.len);
                    let (n, d0) = ((end - r.offset - done) as usize, r.data_pos + done as usize);
                    let lat = port.store(cu, req.atomic || coherent, b.base + r.offset + done, &req.data[d0..d0 + n], tag)?;
                    out.latency = out.latency.max(lat);
                    done += n as u64;
                }
            }
        }
        MemOp::Atomic(op) => {
            // Lane by lane in ascending order: the order the interpreter promises its callers
            // (or descending, when asked); the results in lane order either way.
            scratch.results.resize(req.lanes.len() * 4, 0);
            let n = req.lanes.len();
            for k in 0..n {
                let i = if scratch.atomics_last_lane_first { n - 1 - k } else { k };
                let l = &req.lanes[i];
                let operand = req.operands.get(i).copied().unwrap_or(0);
                let compare = req.compares.get(i).copied().unwrap_or(0);
                let mut old = [0u8; 4];
                let lat = port.atomic(cu, b.base + l.offset, &mut old, tag, &|o| op.apply(o, operand, compare))?;
                out.latency = out.latency.max(lat);
                scratch.results[i * 4..i * 4 + 4].copy_from_slice(&old);
            }
        }
    }
    Ok(out)
}

/// Continues fingerprint `h` over provenance tags, a word at a time (FNV-1a's step on whole
/// tags: the reference run makes one for every read).
pub fn tags_fingerprint(h: u64, tags: &[Tag]) -> u64 {
    tags.iter().fold(h, |h, &t| (h ^ u64::from(t)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// Expands word provenance to one tag per byte: `word_tags` belongs to an access starting at
/// `tags_addr` (one tag per 4-byte word it spans); the result covers `[addr, addr + len)`.
pub fn byte_tags(word_tags: &[Tag], tags_addr: u64, addr: u64, len: u64) -> Vec<Tag> {
    (0..len).map(|k| word_tags[((addr + k) / 4 - tags_addr / 4) as usize]).collect()
}

/// One lane's load, for explaining a stale read: where it read and what it got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneRead {
    /// Lane within the subgroup.
    pub lane: u32,
    /// Buffer read.
    pub buffer: usize,
    /// Offset within the buffer.
    pub offset: u64,
    /// Bytes read.
    pub bytes: Vec<u8>,
    /// Provenance of each byte (the tag of its word).
    pub byte_tags: Vec<Tag>,
    /// The cache (or VRAM) that returned the bytes ("" in the reference run).
    pub via: &'static str,
}

/// Splits a performed load into per-lane reads (with per-byte provenance); `via` names the level
/// that served a byte (its load piece's report, the piece's start, the byte's address).
pub fn lane_reads(req: &MemRequest, bound: &[Bound], scratch: &Scratch) -> Vec<LaneRead> {
    let b = &bound[req.binding_index as usize];
    let mut out = Vec::with_capacity(req.lanes.len());
    let mut pos = 0usize;
    let mut run = 0usize;
    for (i, l) in req.lanes.iter().enumerate() {
        while run + 1 < scratch.runs.len() && scratch.runs[run + 1].first_lane <= i {
            run += 1;
        }
        let r = &scratch.runs[run];
        let run_addr = b.base + r.offset;
        let addr = b.base + l.offset;
        let tags = &scratch.tags[scratch.run_tags[run]..];
        let byte_tags = byte_tags(tags, run_addr, addr, l.size as u64);
        // The load piece holding the lane: pieces are in address order within a run.
        let via = scratch.served.iter().rev().find(|(start, _)| *start <= addr).map_or("", |(start, s)| s.level_name(*start, addr));
        out.push(LaneRead {
            lane: l.lane,
            buffer: b.buffer,
            offset: b.buffer_offset + l.offset,
            bytes: scratch.results[pos..pos + l.size as usize].to_vec(),
            byte_tags,
            via,
        });
        pos += l.size as usize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_shader::LaneAccess;

    /// Flat memory that records each request: its address, length and whether it was made at
    /// the coherence point.
    #[derive(Default)]
    struct Recorder {
        bytes: Vec<u8>,
        calls: Vec<(u64, usize, bool)>,
    }

    impl Port for Recorder {
        fn load(&mut self, _cu: usize, _kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
            self.calls.push((addr, data.len(), coherent));
            assert_eq!(tags.len(), word_span(addr, data.len()));
            data.copy_from_slice(&self.bytes[addr as usize..addr as usize + data.len()]);
            tags.fill(addr as Tag);
            Ok((1, Served::default()))
        }
        fn store(&mut self, _cu: usize, coherent: bool, addr: u64, data: &[u8], _tag: Tag) -> Result<u64, AccessError> {
            self.calls.push((addr, data.len(), coherent));
            self.bytes[addr as usize..addr as usize + data.len()].copy_from_slice(data);
            Ok(1)
        }
        fn atomic(&mut self, _cu: usize, _addr: u64, _old: &mut [u8; 4], _tag: Tag, _new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
            unreachable!("no atomics here")
        }
    }

    #[test]
    fn a_run_across_a_coherent_member_is_split_there() {
        let base = 1024;
        let bound = [Bound { buffer: 0, base, buffer_offset: 0, range: 1024, kind: BindingKind::StorageBuffer { read_only: false }, coherent: false, coherent_ranges: std::iter::once(0..256).collect(), view: None, sampler: None }];
        let lanes: Vec<LaneAccess> = (0..4).map(|i| LaneAccess { lane: i, offset: 248 + 4 * i as u64, size: 4 }).collect();
        let mut req = MemRequest {
            op: MemOp::Load,
            binding_index: 0,
            group: 0,
            binding: 0,
            kind: BindingKind::StorageBuffer { read_only: false },
            atomic: false,
            lanes,
            data: Vec::new(),
            operands: Vec::new(),
            compares: Vec::new(),
        };
        let mut port = Recorder { bytes: (0..4096).map(|i| i as u8).collect(), calls: Vec::new() };
        let mut scratch = Scratch::default();
        perform(&mut port, 0, &req, &bound, 7, &mut scratch).unwrap();
        // The lanes coalesce into one 16-byte run; the coherent member ends 8 bytes into it.
        assert_eq!(port.calls, vec![(base + 248, 8, true), (base + 256, 8, false)]);
        assert_eq!(scratch.results, (base + 248..base + 264).map(|i| i as u8).collect::<Vec<_>>());
        assert_eq!(scratch.tags, vec![(base + 248) as Tag, (base + 248) as Tag, (base + 256) as Tag, (base + 256) as Tag]);
        req.op = MemOp::Store;
        req.data = vec![0xAB; 16];
        port.calls.clear();
        perform(&mut port, 0, &req, &bound, 7, &mut scratch).unwrap();
        assert_eq!(port.calls, vec![(base + 248, 8, true), (base + 256, 8, false)]);
        assert!(port.bytes[(base + 248) as usize..(base + 264) as usize].iter().all(|&b| b == 0xAB));
    }
}
