//! The graphics units: a draw's geometry (vertex and index fetch through the CU's L1), its
//! waves on the compute units, rasterization, and the ROPs (attachment tiles read and written
//! through the ROP that owns them, with its tile cache and the compression metadata), and the
//! attachment operations (load, store, clear).
//!
//! # Design
//! What a draw does is `engine/graphics.rs`, shared with the reference run; this unit gives it
//! the machine's paths and tells the observers of every read and write. A draw runs in two
//! steps, as a GPU's front end and shaders run ahead of its ROPs:
//!
//! ```text
//!   start ── fetches, shaders, tile reads ──> land ── ROP writes ──> done (released)
//!         (the cycles of those requests)           (the cycles of the writes)
//! ```
//!
//! Its reads (vertices, indices, indirect records, descriptors, attachment tiles) happen at its
//! start; its attachment writes wait in the unit and reach the ROPs when those reads' cycles
//! are over, and it is done when the writes' cycles are. Work its barriers do not order after
//! it (another render pass's first draw, a dispatch on the other side of a barrier with the
//! wrong stages) can read the attachment before the writes land. The attachment actions of one
//! render-pass instance are in rasterization order (each waits for the one before it,
//! `engine/stream.rs`), so two draws of a subpass never overlap.

use sim_caches::{AccessError, Tag, word_span};
use sim_shader::{BindingKind, MemRequest};

use crate::api::action::Work;
use crate::api::error::WorkloadError;
use crate::engine::bindings::Bound;
use crate::engine::exec::{Performed, Port, Scratch};
use crate::engine::graphics::{Fixed, GraphicsPort, run_graphics};
use crate::engine::machine::{Machine, PathName, Served};
use crate::engine::oracle::{CopyRead, Load, Observers};
use crate::engine::record::ReadKey;
use crate::engine::rng::Rng;
use crate::engine::units::{Cx, exec_err};

/// The graphics units of a machine.
pub(crate) struct GraphicsUnits {
    /// Lanes a wave.
    subgroup_size: u32,
    rng: Rng,
    /// Per started item: its instance, the cycle it started and the attachment writes waiting
    /// to land.
    landing: Vec<(usize, usize, u64, Vec<RopWrite>)>,
    /// Per draw or attachment operation that wrote: (instance, start, landing, end), for
    /// timelines; at most [`MAX_PHASES`].
    pub(crate) phases: Vec<(usize, u64, u64, u64)>,
}

/// The most [`GraphicsUnits::phases`] a run records.
const MAX_PHASES: usize = 1 << 16;

/// An attachment write waiting to reach the ROPs: address, bytes, the writer's tag.
type RopWrite = (u64, Vec<u8>, Tag);

impl GraphicsUnits {
    /// The profile's graphics units, drawing from `seed`.
    pub(crate) fn new(machine: &crate::profile::Machine, seed: u64) -> GraphicsUnits {
        GraphicsUnits { subgroup_size: machine.cu.subgroup_size, rng: Rng::for_unit(seed, "graphics"), landing: Vec::new(), phases: Vec::new() }
    }

    /// Starts queue item `i`, instance `inst`'s graphics `work`: performs its reads now, and
    /// lands its attachment writes when their cycles are over ([`GraphicsUnits::land`]), or
    /// releases the item then if it writes none.
    pub(crate) fn start_action(&mut self, i: usize, inst: usize, work: &Work<'_>, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let now = cx.now();
        let mut writes = Vec::new();
        let mut port = SimGraphics { m: cx.machine, observers: cx.observers, now, inst, rng: &mut self.rng, error: None, writes: &mut writes };
        let cycles = run_graphics(cx.prog, inst, work, &mut port, self.subgroup_size);
        let cycles = match (cycles, port.error.take()) {
            (_, Some(e)) => return Err(exec_err(cx.prog.instances[inst].at.to_string(), e)),
            (r, None) => r?,
        };
        if writes.is_empty() {
            cx.release(now + cycles.max(1), i);
        } else {
            self.landing.push((i, inst, now, writes));
            cx.land(now + cycles.max(1), i);
        }
        Ok(())
    }

    /// Queue item `i`'s attachment writes reach the ROPs now; the item is released when their
    /// cycles are over.
    pub(crate) fn land(&mut self, i: usize, cx: &mut Cx<'_, '_, '_>) -> Result<(), WorkloadError> {
        let Some(k) = self.landing.iter().position(|(j, ..)| *j == i) else { return Ok(()) };
        let (_, inst, start, writes) = self.landing.swap_remove(k);
        let now = cx.now();
        let mut cycles = 0;
        for (addr, data, tag) in writes {
            cx.observers.writes.push((tag, addr, data.len() as u64));
            cycles += cx.machine.rop_write(now, addr, &data, tag).map_err(|e| exec_err(format!("command instance {inst}"), e))?.latency;
            cx.observers.tell_writes();
        }
        cx.release(now + cycles.max(1), i);
        if self.phases.len() < MAX_PHASES {
            self.phases.push((inst, start, now, now + cycles.max(1)));
        }
        Ok(())
    }
}

/// The machine as graphics work reaches it, every read and write told to the observers.
struct SimGraphics<'a, 'p> {
    m: &'a mut Machine,
    observers: &'a mut Observers<'p>,
    now: u64,
    inst: usize,
    rng: &'a mut Rng,
    /// A memory error met inside a shader request.
    error: Option<AccessError>,
    /// The attachment writes, which land later.
    writes: &'a mut Vec<RopWrite>,
}

impl SimGraphics<'_, '_> {
    fn jitter(&mut self) -> u64 {
        let j = u64::from(self.m.timing.latency_jitter_cycles);
        self.rng.below(j + 1)
    }
}

impl Port for SimGraphics<'_, '_> {
    fn load(&mut self, cu: usize, kind: BindingKind, coherent: bool, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(u64, Served), AccessError> {
        let j = self.jitter();
        let (t, served) = if coherent { self.m.coherent(cu, self.now, addr, Some((data, tags)), None, j)? } else { self.m.load(crate::engine::units::compute::path_of(kind), cu, self.now, addr, data, tags, j)? };
        Ok((t.latency, served))
    }

    fn store(&mut self, cu: usize, coherent: bool, addr: u64, data: &[u8], tag: Tag) -> Result<u64, AccessError> {
        let j = self.jitter();
        self.observers.writes.push((tag, addr, data.len() as u64));
        let latency = if coherent { self.m.coherent(cu, self.now, addr, None, Some((data, tag)), j)?.0.latency } else { self.m.storage_store(cu, self.now, addr, data, tag, j)?.latency };
        self.observers.tell_writes();
        Ok(latency)
    }

    fn atomic(&mut self, cu: usize, addr: u64, old: &mut [u8; 4], tag: Tag, new: &dyn Fn(u32) -> u32) -> Result<u64, AccessError> {
        let j = self.jitter();
        self.observers.writes.push((tag, addr, 4));
        let t = self.m.atomic(cu, self.now, addr, old, tag, j, |o, n| {
            let v = new(u32::from_le_bytes([o[0], o[1], o[2], o[3]]));
            n.copy_from_slice(&v.to_le_bytes());
        })?;
        self.observers.tell_writes();
        Ok(t.latency)
    }
}

impl GraphicsPort for SimGraphics<'_, '_> {
    fn fixed_read(&mut self, key: ReadKey, resource: usize, offset: u64, addr: u64, buf: &mut [u8], what: Fixed) -> Result<u64, WorkloadError> {
        let mut tags = vec![0 as Tag; word_span(addr, buf.len())];
        let at = || format!("command instance {}", self.inst);
        // Vertex, index and indirect reads go where the profile's `[machine.fetch]` says (through
        // CU 0's caches when they enter at one: the front end's); attachment texels through the
        // ROP.
        let path = match what {
            Fixed::Attachment => None,
            Fixed::Vertex => Some(PathName::VertexFetch),
            Fixed::Index => Some(PathName::IndexFetch),
            Fixed::Indirect => Some(PathName::IndirectFetch),
        };
        let (t, served) = match path {
            None => self.m.rop_read(self.now, addr, buf, &mut tags),
            Some(p) => self.m.load(p, 0, self.now, addr, buf, &mut tags, 0),
        }
        .map_err(|e| exec_err(at(), e))?;
        self.observers.copy_read(&CopyRead { key, inst: self.inst, buffer: resource, offset, addr, data: buf, tags: &tags, served, cycle: self.now });
        Ok(t.latency)
    }

    fn rop_write(&mut self, addr: u64, data: &[u8], tag: Tag) -> Result<u64, WorkloadError> {
        // Its cycles are the landing's.
        self.writes.push((addr, data.to_vec(), tag));
        Ok(0)
    }

    fn shader_load(&mut self, key: ReadKey, performed: &Performed, req: &MemRequest, bound: &[Bound], scratch: &Scratch) -> Result<(), WorkloadError> {
        self.observers.load(&Load { key, inst: self.inst, req, bound, scratch, performed, cycle: self.now });
        Ok(())
    }

    fn strict(&self) -> bool {
        false
    }

    fn cus(&self) -> usize {
        self.m.cus.len()
    }
}
