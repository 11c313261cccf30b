//! The transfer engine: fills, updates and copies, moved a chunk at a time.
//!
//! # Design
//! A transfer command is a list of chunks of at most [`crate::engine::chunks::TRANSFER_CHUNK`] bytes
//! (`transfer_chunks`, the same list the reference run moves). The engine moves one chunk per
//! step: a copy reads its source, then every chunk writes its destination, both on the
//! machine's transfer path. It is busy for the chunk's bytes at its bandwidth, and keeps the
//! profile's `transfer_chunks_in_flight` chunks in flight, so a chunk's memory latency is mostly
//! hidden behind the ones after it. It moves a transfer's first chunk the profile's
//! `transfer_launch_cycles` after the command processor launched it (a copy engine's start
//! latency).
//!
//! Vulkan orders none of a command's writes, so the engine moves each window of
//! [`SHUFFLE_WINDOW`] consecutive chunks in an order its random stream of the seed picks (within
//! one region: a copy's regions may name the same destination bytes). Commands the engine has
//! taken move their chunks interleaved, so transfers that nothing orders overlap.

use sim_caches::{Tag, word_span};

use crate::api::error::WorkloadError;
use crate::engine::machine::{Machine, TransferUnit};
use crate::engine::oracle::CopyRead;
use crate::api::program::Program;
use crate::engine::rng::Rng;
use crate::engine::chunks::{Chunk, ChunkData};
use crate::engine::units::{Cx, Ev, exec_err};

#[cfg(test)]
use crate::engine::chunks::TRANSFER_CHUNK;

/// Consecutive chunks of one region whose order the seed picks.
pub const SHUFFLE_WINDOW: usize = 8;

struct TransferRun {
    item: usize,
    inst: usize,
    /// The fast-clear value a vkCmdClearColorImage the profile fast-clears writes into the
    /// metadata (no data moves).
    fast_clear: Option<u8>,
    chunks: Vec<Chunk>,
    next: usize,
}

/// What one step of the engine did (made and consumed one step at a time, never stored: the
/// larger variant costs nothing to keep inline).
#[allow(clippy::large_enum_variant)]
enum TransferStep<'a> {
    /// The run's last chunk had been moved: its command (queue item) is done.
    Finished {
        /// The queue item.
        item: usize,
    },
    /// A chunk moved.
    Moved {
        /// The copy's read of its source (copies only).
        read: Option<CopyRead<'a>>,
        /// A blit's reads of its source, segment by segment.
        blit_reads: Vec<BlitRead>,
        /// The writes that reached the machine: writer tag, address, bytes (none, one, or the
        /// two sides of a held-back range).
        writes: [Option<(Tag, u64, u64)>; 2],
        /// Cycle of the next step.
        next: u64,
    },
}

/// One read of a blit chunk, kept until the step's observers are told of it.
struct BlitRead {
    key: crate::engine::record::ReadKey,
    buffer: usize,
    offset: u64,
    addr: u64,
    data: Vec<u8>,
    tags: Vec<Tag>,
    served: crate::engine::machine::Served,
}

/// The transfer engine and its work.
pub struct TransferEngine {
    runs: Vec<TransferRun>,
    /// Cycle at which the engine can take the next chunk.
    free_at: u64,
    bytes_per_cycle: u64,
    /// Cycles from a transfer's launch to its first chunk.
    launch_cycles: u64,
    /// Chunks in flight: a chunk's latency is charged divided by this.
    in_flight: u64,
    /// Which transfers the driver runs as shaders, and where they read and write.
    spec: crate::profile::TransferSpec,
    /// The chunk being moved and its provenance, reused from chunk to chunk.
    data: Vec<u8>,
    tags: Vec<Tag>,
    /// The engine's random stream of the seed: the order of chunks in a window.
    rng: Rng,
    /// A directed schedule's held-back writes: command instance and device-address range
    /// whose writes are kept here instead of reaching the machine.
    hold_writes: Option<(usize, u64, u64)>,
    /// The writes held back: address, bytes, writer, the unit that will write them, and
    /// whether they write an image.
    held: Vec<(u64, Vec<u8>, Tag, TransferUnit, bool)>,
}

impl TransferEngine {
    /// An idle engine of the profile's `[machine.transfer]` section and of `timing`'s
    /// bandwidth, start latency and chunks in flight, drawing from `seed`.
    pub fn new(spec: &crate::profile::TransferSpec, timing: &crate::profile::Timing, seed: u64) -> TransferEngine {
        TransferEngine {
            runs: Vec::new(),
            free_at: 0,
            bytes_per_cycle: u64::from(timing.transfer_bytes_per_cycle).max(1),
            launch_cycles: u64::from(timing.transfer_launch_cycles),
            in_flight: u64::from(timing.transfer_chunks_in_flight).max(1),
            spec: spec.clone(),
            data: Vec::new(),
            tags: Vec::new(),
            rng: Rng::for_unit(seed, "transfer"),
            hold_writes: None,
            held: Vec::new(),
        }
    }

    /// A directed schedule: the writes of command instance `inst` to device addresses
    /// `[lo, hi)` are held back (in flight) until [`TransferEngine::release_held`].
    pub(crate) fn hold(&mut self, inst: usize, lo: u64, hi: u64) {
        self.hold_writes = Some((inst, lo, hi));
    }

    /// Starts the transfer of queue item `i` (command instance `inst`): its first chunk moves
    /// after the engine's start latency, when the engine is free.
    pub(crate) fn start_action(&mut self, i: usize, inst: usize, cx: &mut Cx<'_, '_, '_>) {
        let fast_clear = crate::engine::compression::fast_clear(cx.prog, cx.profile, inst);
        let (r, at) = self.start(cx.prog, i, inst, fast_clear, cx.now());
        let unit = cx.clock.units.transfer();
        cx.clock.schedule(at, unit, Ev::Transfer(r));
    }

    /// Moves run `r`'s next chunk now, telling the observers of its read and writes; a run
    /// with no chunk left releases its queue item.
    pub(crate) fn on_step(&mut self, r: usize, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let now = cx.now();
        let (read, blit_reads, write, next) = match self.step(r, now, cx.machine, cx.prog)? {
            TransferStep::Finished { item } => {
                cx.release(cx.now(), item);
                return Ok(());
            }
            TransferStep::Moved { read, blit_reads, writes, next } => (read, blit_reads, writes, next),
        };
        if let Some(read) = read {
            cx.observers.copy_read(&read);
        }
        let inst = self.runs[r].inst;
        for b in &blit_reads {
            cx.observers.copy_read(&CopyRead { key: b.key, inst, buffer: b.buffer, offset: b.offset, addr: b.addr, data: &b.data, tags: &b.tags, served: b.served, cycle: now });
        }
        cx.observers.writes.extend(write.into_iter().flatten());
        cx.observers.tell_writes();
        let unit = cx.clock.units.transfer();
        cx.clock.schedule(next, unit, Ev::Transfer(r));
        Ok(())
    }

    /// Lets a directed schedule's held-back writes reach the machine, now.
    pub(crate) fn release_held(&mut self, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        cx.holds.release_at = None;
        cx.holds.due = false;
        for (addr, data, tag, unit, image) in std::mem::take(&mut self.held) {
            cx.machine.transfer_write(cx.now(), addr, &data, tag, unit, image).map_err(|e| exec_err("a directed schedule's held-back writes", e))?;
            cx.observers.writes.push((tag, addr, data.len() as u64));
        }
        self.hold_writes = None;
        cx.observers.tell_writes();
        Ok(())
    }

    /// Takes the transfer command of queue item `item` (instance `inst`, a fast clear to value
    /// `fast_clear` when the profile makes it one) at cycle `now`: the run to step, and the
    /// cycle of its first step (after the engine's start latency, when it is free).
    fn start(&mut self, prog: &Program<'_>, item: usize, inst: usize, fast_clear: Option<u8>, now: u64) -> (usize, u64) {
        let mut chunks = prog.action(inst).map(|a| crate::engine::chunks::transfer_chunks(inst, &a.work)).unwrap_or_default();
        shuffle_windows(&mut chunks, &mut self.rng);
        self.runs.push(TransferRun { item, inst, fast_clear, chunks, next: 0 });
        (self.runs.len() - 1, (now + self.launch_cycles).max(self.free_at))
    }

    /// Moves run `r`'s next chunk at cycle `now` on `machine`.
    fn step(&mut self, r: usize, now: u64, machine: &mut Machine, prog: &Program<'_>) -> Result<TransferStep<'_>, WorkloadError> {
        let run = &self.runs[r];
        let Some(chunk) = run.chunks.get(run.next) else {
            return Ok(TransferStep::Finished { item: run.item });
        };
        let (inst, fast_clear) = (run.inst, run.fast_clear);
        let ins = &prog.instances[inst];
        if let Some(k) = fast_clear {
            // A fast clear writes the tiles' metadata only: no bytes move, and the engine is
            // busy a cycle for the chunk.
            machine.fast_clear(chunk.dst, chunk.len, k, ins.tag);
            let writes = [Some((ins.tag, chunk.dst, chunk.len)), None];
            self.free_at = now + 1;
            self.runs[r].next += 1;
            return Ok(TransferStep::Moved { read: None, blit_reads: Vec::new(), writes, next: now + 1 });
        }
        let err = |e: sim_caches::AccessError| WorkloadError::Execution { at: ins.at.to_string(), message: e.to_string() };
        // Which sides are images: an image command's reads decode and its writes compress where
        // the profile says.
        let (mut src_image, mut dst_image) = (false, false);
        if let Some(a) = prog.action(inst) {
            chunk.bytes_into(&a.work, &mut self.data);
            let (src, dst) = match &a.work {
                crate::api::action::Work::Copy { src, dst, .. } | crate::api::action::Work::Blit { src, dst, .. } => (Some(*src), Some(*dst)),
                crate::api::action::Work::Clear { dst, .. } => (None, Some(*dst)),
                _ => (None, None),
            };
            src_image = src.and_then(|r| prog.resource_image(r)).is_some();
            dst_image = dst.and_then(|r| prog.resource_image(r)).is_some();
        }
        // A transfer the driver runs as a shader: each chunk is a workgroup's, on a CU the seed
        // picks.
        let unit = if self.spec.runs_as_shader(chunk.transfer_bytes) {
            TransferUnit::Shader { cu: self.rng.below(machine.cus.len().max(1) as u64) as usize }
        } else {
            TransferUnit::Engine
        };
        let mut latency = 0;
        let mut read = None;
        if let (ChunkData::Copy, Some((src_addr, buffer, offset))) = (&chunk.data, chunk.src) {
            self.tags.clear();
            self.tags.resize(word_span(src_addr, self.data.len()), 0);
            let (t, served) = machine.transfer_read(now, src_addr, &mut self.data, &mut self.tags, unit, src_image).map_err(err)?;
            latency = t.latency;
            read = Some((chunk.key, buffer, offset, src_addr, served));
        }
        // A blit's run: its source segments read, then its texels computed.
        let mut blit_reads = Vec::new();
        if let (ChunkData::Blit(run), Some(a)) = (&chunk.data, prog.action(inst)) {
            let buffer = match &a.work {
                crate::api::action::Work::Blit { src, .. } => *src,
                _ => 0,
            };
            crate::engine::blit::run_bytes(
                prog,
                &a.work,
                *run,
                &mut |segment, s, buf| {
                    let mut tags = vec![0; word_span(s.addr, buf.len())];
                    let (t, served) = machine.transfer_read(now, s.addr, buf, &mut tags, unit, true).map_err(err)?;
                    latency = latency.max(t.latency);
                    blit_reads.push(BlitRead { key: crate::engine::blit::segment_key(inst, *run, segment), buffer, offset: s.offset, addr: s.addr, data: buf.to_vec(), tags, served });
                    Ok(())
                },
                &mut self.data,
            )?;
        }
        // The part of the chunk a directed schedule holds back is kept; the rest is written.
        let (lo, hi) = match self.hold_writes {
            Some((i, lo, hi)) if i == inst => (lo.clamp(chunk.dst, chunk.dst + chunk.len), hi.clamp(chunk.dst, chunk.dst + chunk.len)),
            _ => (chunk.dst + chunk.len, chunk.dst + chunk.len),
        };
        if lo < hi {
            self.held.push((lo, self.data[(lo - chunk.dst) as usize..(hi - chunk.dst) as usize].to_vec(), ins.tag, unit, dst_image));
        }
        let mut writes = [None; 2];
        let mut latency_w = 0;
        for (k, (a, b)) in [(chunk.dst, lo), (hi, chunk.dst + chunk.len)].into_iter().enumerate() {
            if a < b {
                let part = &self.data[(a - chunk.dst) as usize..(b - chunk.dst) as usize];
                latency_w = latency_w.max(machine.transfer_write(now, a, part, ins.tag, unit, dst_image).map_err(err)?.latency);
                writes[k] = Some((ins.tag, a, b - a));
            }
        }
        let service = chunk.len.div_ceil(self.bytes_per_cycle);
        self.free_at = now + service;
        self.runs[r].next += 1;
        let next = now + service.max(latency.max(latency_w) / self.in_flight).max(1);
        let read = read.map(|(key, buffer, offset, addr, served)| CopyRead { key, inst, buffer, offset, addr, data: &self.data, tags: &self.tags, served, cycle: now });
        Ok(TransferStep::Moved { read, blit_reads, writes, next })
    }
}

/// Puts each window of up to [`SHUFFLE_WINDOW`] chunks of one region (consecutive destination
/// bytes) in an order `rng` picks.
fn shuffle_windows(chunks: &mut [Chunk], rng: &mut Rng) {
    let mut start = 0;
    while start < chunks.len() {
        let mut end = start + 1;
        while end < chunks.len() && end - start < SHUFFLE_WINDOW && chunks[end].dst == chunks[end - 1].dst + chunks[end - 1].len {
            end += 1;
        }
        for i in (start + 1..end).rev() {
            let j = start + rng.below((i - start + 1) as u64) as usize;
            chunks.swap(i, j);
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chunks::ChunkData;

    fn chunks(regions: &[(u64, u64)]) -> Vec<Chunk> {
        let key = crate::engine::record::ReadKey { inst: 0, a: 0, b: 0, c: 0, d: 0 };
        regions
            .iter()
            .flat_map(|&(dst, n)| (0..n).map(move |k| Chunk { src: None, dst: dst + k * TRANSFER_CHUNK, len: TRANSFER_CHUNK, data: ChunkData::Pattern(0), key, transfer_bytes: n * TRANSFER_CHUNK }))
            .collect()
    }

    /// Each window is a permutation of its own chunks, never mixing regions whose destinations
    /// are not consecutive, and the order depends on the seed.
    #[test]
    fn windows_are_shuffled_within_a_region() {
        // Two regions: 20 chunks at 0, then 5 chunks writing the same bytes again.
        let original = chunks(&[(0, 20), (0, 5)]);
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..8 {
            let mut c = chunks(&[(0, 20), (0, 5)]);
            shuffle_windows(&mut c, &mut Rng::for_unit(seed, "transfer"));
            for (w, o) in c.chunks(SHUFFLE_WINDOW).take(2).zip(original.chunks(SHUFFLE_WINDOW)) {
                let mut got: Vec<u64> = w.iter().map(|k| k.dst).collect();
                got.sort_unstable();
                assert_eq!(got, o.iter().map(|k| k.dst).collect::<Vec<_>>(), "a window moves its own chunks");
            }
            // The second region (the last 5 chunks) stays after the first.
            assert!(c[20..].iter().all(|k| k.dst < 5 * TRANSFER_CHUNK), "regions stay apart");
            orders.insert(c.iter().map(|k| k.dst).collect::<Vec<_>>());
        }
        assert!(orders.len() > 1, "the seed picks the order");
    }
}
