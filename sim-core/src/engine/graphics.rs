//! Graphics work on some memory: a draw's fetches, shaders and attachment texels, and the
//! attachment operations (load, store, clear), performed the same way by the reference run
//! (flat memory) and the timed graphics unit (the machine's paths), through a
//! `GraphicsPort`.
//!
//! # Design
//! ```text
//!   indirect records ──> counts            (DRAW_INDIRECT: fixed-function reads)
//!   index range      ──> vertex indices    (INDEX_INPUT)
//!   vertex windows   ──> attributes        (VERTEX_ATTRIBUTE_INPUT: each binding's bytes
//!                                           between the first and last element fetched)
//!   engine::draw::draw_with                shaders (waves: buffer and image requests
//!                                           performed and noted as a dispatch's are), raster,
//!                                           per-fragment operations
//!     └─ an attachment's 8x8 tile is read through the ROP the first time the draw touches it
//!   written texels ──> written back through the ROP, in runs of contiguous bytes
//! ```
//! Every read is named by a [`ReadKey`] whose `d` holds its kind, the indirect record and its
//! place, so the same read has the same key in both runs: a shader load by (instance, wave,
//! subgroup, load), a fixed-function read by (binding or attachment, chunk or tile). Where a
//! timed run read a stale count, index or vertex, what it draws has no counterpart, and the
//! memory model judges it (as for a dispatch whose control flow diverged). Values read from
//! memory that break the draw's limits (a count past the cap, a vertex outside its buffer) are
//! an error of the program in the reference run, and in a timed run the stale read that led
//! there ends the draw early (the oracle has reported it).

use sim_caches::{AccessError, Tag};
use sim_rop::Aspect;
use sim_shader::{ImageRequest, MemOp, MemRequest};

use crate::api::error::WorkloadError;
use crate::api::graphics::DrawKind;
use crate::api::program::Program;
use crate::api::graphics::{AttachmentOp, AttachmentOpKind, DONT_CARE_TEXEL, DrawWork, Target};
use crate::engine::bindings::{Bound, resolve};
use crate::engine::draw::{ColorTarget, DepthTarget, DrawCounts, DrawError, DrawMemory, DrawState, TargetId, WaveId, draw_with};
use crate::engine::exec::{Performed, Port, Scratch, perform};
use crate::engine::record::ReadKey;
use crate::engine::texture::{TexScratch, perform_image};
use crate::fixed_function as ff;

/// The kinds of a draw's reads, in [`ReadKey::d`]'s top bits.
const SHADER: u64 = 1;
const INDIRECT: u64 = 2;
const INDEX: u64 = 3;
const VERTEX: u64 = 4;
const TILE: u64 = 5;

/// A draw read's key: `kind` and indirect `record` in `d`'s top 20 bits, `extra` below them.
fn key(inst: usize, kind: u64, record: u32, extra: u64, a: u32, b: u32, c: u32) -> ReadKey {
    ReadKey { inst: inst as u32, a, b, c, d: (kind << 60) | (u64::from(record & 0xFFFF) << 44) | (extra & ((1 << 44) - 1)) }
}

/// What a draw read is, for reports: `None` for reads that are not a draw's.
pub fn describe(k: &ReadKey) -> Option<String> {
    let record = (k.d >> 44) & 0xFFFF;
    let extra = k.d & ((1 << 44) - 1);
    Some(match k.d >> 60 {
        SHADER => {
            let stage = if k.a >> 31 == 1 { "fragment" } else { "vertex" };
            let wave = if k.a >> 31 == 1 { format!("triangle {} wave {}", k.b, extra >> 16) } else { format!("wave {}", k.b) };
            format!("draw {record} instance {} {stage} {wave} subgroup {} load {}", k.a & 0x7FFF_FFFF, extra & 0xFFFF, k.c)
        }
        INDIRECT => format!("indirect record {record}"),
        INDEX => format!("draw {record} index chunk {}", k.c),
        VERTEX => format!("draw {record} vertex binding {} chunk {}", k.a, k.c),
        TILE => format!("draw {record} {} tile {} run {}", if k.a == u32::MAX { "depth attachment".to_string() } else { format!("colour attachment {}", k.a) }, k.b, k.c),
        _ => return None,
    })
}

/// Memory as graphics work reaches it: a [`Port`] for shader requests, fixed-function reads and
/// attachment writes, and where a shader load is noted.
pub(crate) trait GraphicsPort: Port {
    /// A fixed-function read of `buf.len()` bytes at `addr` (byte `offset` of resource
    /// `resource`) of kind `what` (its path), noted under `key`; its latency.
    fn fixed_read(&mut self, key: ReadKey, resource: usize, offset: u64, addr: u64, buf: &mut [u8], what: Fixed) -> Result<u64, WorkloadError>;
    /// A write of attachment texels (through the ROP); its latency.
    fn rop_write(&mut self, addr: u64, data: &[u8], tag: Tag) -> Result<u64, WorkloadError>;
    /// A shader load was performed: note it under `key`.
    fn shader_load(&mut self, key: ReadKey, performed: &Performed, req: &MemRequest, bound: &[Bound], scratch: &Scratch) -> Result<(), WorkloadError>;
    /// Whether values read from memory that break a draw's limits are the program's error (the
    /// reference run) rather than the end of a draw that read stale bytes (a timed run).
    fn strict(&self) -> bool;
    /// The compute units waves may run on.
    fn cus(&self) -> usize {
        1
    }
}

/// What a fixed-function read reads: where it goes (`[machine.fetch]`, or the ROP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fixed {
    /// Indirect draw records.
    Indirect,
    /// Indices.
    Index,
    /// Vertex attributes.
    Vertex,
    /// Attachment texels (through the ROP).
    Attachment,
}

/// The most bytes of one vertex binding a draw fetches between its first and last element, and
/// of one attachment it holds: larger ones are not supported yet.
pub const MAX_WINDOW_BYTES: u64 = 256 << 20;

/// Performs graphics work `work` of instance `inst` on `port`; returns the cycles its requests
/// took (0 on flat memory).
pub(crate) fn run_graphics<P: GraphicsPort>(prog: &Program<'_>, inst: usize, work: &crate::api::action::Work<'_>, port: &mut P, subgroup_size: u32) -> Result<u64, WorkloadError> {
    let at = || prog.instances[inst].at.to_string();
    let tag = prog.instances[inst].tag;
    match work {
        crate::api::action::Work::Attachments(ops) => ops.iter().try_fold(0u64, |c, op| Ok(c + attachment_op(prog, op, port, tag)?)),
        crate::api::action::Work::Draw(d) => draw(prog, inst, d, port, subgroup_size).map_err(|e| match e {
            // A fetch outside its buffer, with the values read from memory (indices, indirect
            // counts): the program's error, named as the valid usage it breaks.
            Failure::Draw(DrawError::Fetch(f)) => WorkloadError::Invalid { at: at(), message: format!("VUID-{}-None-02721: {f}", d.kind.vk_name()) },
            Failure::Draw(e) => WorkloadError::Execution { at: at(), message: e.to_string() },
            Failure::Run(e) => e,
        }),
        _ => Ok(0),
    }
}

enum Failure {
    Draw(DrawError),
    Run(WorkloadError),
}

impl From<WorkloadError> for Failure {
    fn from(e: WorkloadError) -> Failure {
        Failure::Run(e)
    }
}

impl From<ff::FetchError> for Failure {
    fn from(e: ff::FetchError) -> Failure {
        Failure::Draw(DrawError::Fetch(e))
    }
}

impl From<DrawError> for Failure {
    fn from(e: DrawError) -> Failure {
        Failure::Draw(e)
    }
}

/// The device address of texel `(x, y)` of `t`'s `aspect`.
fn texel_addr(prog: &Program<'_>, t: &Target, aspect: Aspect, x: u32, y: u32) -> Option<u64> {
    let off = prog.workload.images[t.image].layout.texel_offset(aspect, t.level, t.layer, [x, y, 0])?;
    Some(prog.buffer_addr(t.resource, off))
}

/// Writes the texels of `op`'s rectangle (a clear, a DONT_CARE load), row by row in runs of
/// contiguous bytes.
fn attachment_op<P: GraphicsPort>(prog: &Program<'_>, op: &AttachmentOp, port: &mut P, tag: Tag) -> Result<u64, WorkloadError> {
    let format = op.target.format;
    let Some(tb) = format.plane_bytes(op.aspect) else { return Ok(0) };
    let texel: Vec<u8> = match op.kind {
        AttachmentOpKind::Clear(v) => format.encode(op.aspect, &v).unwrap_or_else(|| vec![0; tb as usize]),
        AttachmentOpKind::DontCare => vec![DONT_CARE_TEXEL; tb as usize],
        AttachmentOpKind::Load | AttachmentOpKind::Store | AttachmentOpKind::StoreDontCare => return Ok(0),
    };
    let r = op.rect;
    let mut cycles = 0;
    let mut runs = Runs::default();
    for y in r.y.max(0) as u32..(r.y.max(0) as u32).saturating_add(r.height) {
        for x in r.x.max(0) as u32..(r.x.max(0) as u32).saturating_add(r.width) {
            let Some(addr) = texel_addr(prog, &op.target, op.aspect, x, y) else { continue };
            cycles += runs.push(port, tag, addr, &texel[..tb as usize])?;
        }
    }
    Ok(cycles + runs.finish(port, tag)?)
}

/// Texel writes gathered into runs of contiguous bytes (at most 256, a transfer chunk), each
/// written through the ROP as one.
#[derive(Default)]
struct Runs {
    bytes: Vec<u8>,
    addr: u64,
}

impl Runs {
    /// Adds `data` at `addr`, writing the run so far first where it does not continue it; the
    /// cycles of that write.
    fn push<P: GraphicsPort>(&mut self, port: &mut P, tag: Tag, addr: u64, data: &[u8]) -> Result<u64, WorkloadError> {
        let mut cycles = 0;
        if !self.bytes.is_empty() && (self.addr + self.bytes.len() as u64 != addr || self.bytes.len() >= 256) {
            cycles = self.finish(port, tag)?;
        }
        if self.bytes.is_empty() {
            self.addr = addr;
        }
        self.bytes.extend_from_slice(data);
        Ok(cycles)
    }

    /// Writes the run so far; its cycles.
    fn finish<P: GraphicsPort>(&mut self, port: &mut P, tag: Tag) -> Result<u64, WorkloadError> {
        if self.bytes.is_empty() {
            return Ok(0);
        }
        let cycles = port.rop_write(self.addr, &self.bytes, tag)?;
        self.bytes.clear();
        Ok(cycles)
    }
}

/// One draw record's counts.
#[derive(Clone, Copy)]
struct Record {
    indexed: bool,
    count: u32,
    instances: u32,
    first: u32,
    vertex_offset: i32,
    first_instance: u32,
}

fn records<P: GraphicsPort>(prog: &Program<'_>, inst: usize, d: &DrawWork<'_>, port: &mut P, cycles: &mut u64) -> Result<Vec<Record>, Failure> {
    Ok(match d.kind {
        DrawKind::Direct { vertex_count, instance_count, first_vertex, first_instance } => {
            vec![Record { indexed: false, count: vertex_count, instances: instance_count, first: first_vertex, vertex_offset: 0, first_instance }]
        }
        DrawKind::Indexed { index_count, instance_count, first_index, vertex_offset, first_instance } => {
            vec![Record { indexed: true, count: index_count, instances: instance_count, first: first_index, vertex_offset, first_instance }]
        }
        DrawKind::Indirect { indexed, buffer, offset, draw_count, stride } => {
            let mut out = Vec::new();
            for r in 0..draw_count {
                let off = offset + u64::from(r) * u64::from(stride);
                let mut buf = [0u8; 20];
                let n = if indexed { 20 } else { 16 };
                *cycles += port.fixed_read(key(inst, INDIRECT, r, 0, 0, 0, 0), buffer, off, prog.buffer_addr(buffer, off), &mut buf[..n], Fixed::Indirect)?;
                let w = |k: usize| u32::from_le_bytes([buf[4 * k], buf[4 * k + 1], buf[4 * k + 2], buf[4 * k + 3]]);
                let rec = if indexed {
                    Record { indexed: true, count: w(0), instances: w(1), first: w(2), vertex_offset: w(3) as i32, first_instance: w(4) }
                } else {
                    Record { indexed: false, count: w(0), instances: w(1), first: w(2), vertex_offset: 0, first_instance: w(3) }
                };
                if u64::from(rec.count) * u64::from(rec.instances) > crate::api::program::MAX_DRAW_VERTICES {
                    if port.strict() {
                        return Err(DrawError::Pipeline(format!("indirect record {r} asks for {} vertices times {} instances, past the simulator's cap of {} a draw", rec.count, rec.instances, crate::api::program::MAX_DRAW_VERTICES)).into());
                    }
                    continue;
                }
                out.push(rec);
            }
            out
        }
    })
}

/// Reads `len` bytes from byte `from` of buffer `buffer` in 256-byte chunks, into `out[from..]`.
#[allow(clippy::too_many_arguments)]
fn read_chunks<P: GraphicsPort>(prog: &Program<'_>, port: &mut P, (keyf, what): (&dyn Fn(u32) -> ReadKey, Fixed), buffer: usize, from: u64, len: u64, out: &mut [u8], cycles: &mut u64) -> Result<(), WorkloadError> {
    let mut pos = 0u64;
    let mut chunk = 0u32;
    while pos < len {
        let n = (len - pos).min(256);
        let o = from + pos;
        *cycles += port.fixed_read(keyf(chunk), buffer, o, prog.buffer_addr(buffer, o), &mut out[(o - from) as usize..(o - from + n) as usize], what)?;
        pos += n;
        chunk += 1;
    }
    Ok(())
}

fn draw<P: GraphicsPort>(prog: &Program<'_>, inst: usize, d: &DrawWork<'_>, port: &mut P, subgroup_size: u32) -> Result<u64, Failure> {
    let w = prog.workload;
    let p = &w.graphics_pipelines[d.pipeline];
    let tag = prog.instances[inst].tag;
    let err = |m: String| Failure::Run(WorkloadError::Invalid { at: prog.instances[inst].at.to_string(), message: m });
    let bound_vs = resolve(prog, p.vertex.bindings(), d.bindings, d.images).map_err(err)?;
    let bound_fs = match &p.fragment {
        Some(f) => resolve(prog, f.bindings(), d.bindings, d.images).map_err(err)?,
        None => Vec::new(),
    };
    let sizes = |b: &[Bound]| b.iter().map(|b| b.range).collect::<Vec<u64>>();
    let binding_sizes = [sizes(&bound_vs), sizes(&bound_fs)];
    let shapes_of = |b: &[Bound]| b.iter().map(|b| b.view.as_ref().map(|v| v.shape()).unwrap_or_default()).collect::<Vec<_>>();
    // The interpreter takes an image's shape by the stage's own binding index.
    let shapes = [shapes_of(&bound_vs), shapes_of(&bound_fs)];
    let mut cycles = 0u64;
    let recs = records(prog, inst, d, port, &mut cycles)?;
    let extent = d.extent;
    // The attachments, as arrays the draw fills tile by tile.
    let pixels = u64::from(extent[0]) * u64::from(extent[1]);
    let mut color_bytes: Vec<(usize, Target, Vec<u8>)> = Vec::new();
    for (loc, t) in d.colors.iter().enumerate() {
        let Some(t) = t else { continue };
        let tb = u64::from(t.format.plane_bytes(Aspect::Color).unwrap_or(4));
        if pixels * tb > MAX_WINDOW_BYTES {
            return Err(err(format!("a {}x{} colour attachment is larger than the simulator's {} MiB a draw holds", extent[0], extent[1], MAX_WINDOW_BYTES >> 20)));
        }
        color_bytes.push((loc, *t, vec![0; (pixels * tb) as usize]));
    }
    let mut depth_bytes = match &d.depth {
        Some(t) if p.depth_stencil.depth_test => {
            if pixels * 4 > MAX_WINDOW_BYTES {
                return Err(err(format!("a {}x{} depth attachment is larger than the simulator's {} MiB a draw holds", extent[0], extent[1], MAX_WINDOW_BYTES >> 20)));
            }
            Some((*t, vec![0u8; (pixels * 4) as usize]))
        }
        _ => None,
    };
    for (ri, rec) in recs.iter().enumerate() {
        let ri = ri as u32;
        // Indices.
        let mut index_bytes = Vec::new();
        let index_type = d.index_buffer.map(|(_, _, t)| t);
        if rec.indexed {
            let Some((buffer, offset, ty)) = d.index_buffer else { return Err(err("an indexed draw with no index buffer".into())) };
            let size = w.buffers[buffer].size;
            let from = offset + u64::from(rec.first) * u64::from(ty.size());
            let len = u64::from(rec.count) * u64::from(ty.size());
            if from + len > size {
                if port.strict() {
                    return Err(err(format!("VUID-vkCmdDrawIndexed-robustBufferAccess2-08798: indices {}..+{} of {} bytes each from offset {offset} are outside buffer `{}` of {size} bytes", rec.first, rec.count, ty.size(), w.buffers[buffer].name)));
                }
                continue;
            }
            index_bytes = vec![0u8; len as usize];
            read_chunks(prog, port, (&|c| key(inst, INDEX, ri, 0, 0, 0, c), Fixed::Index), buffer, from, len, &mut index_bytes, &mut cycles)?;
        }
        // Which elements of each binding the draw fetches.
        let mut vertex_range: Option<(u32, u32)> = None;
        for place in 0..rec.count {
            let v = if rec.indexed {
                let index = ff::fetch_index(index_type.unwrap_or(ff::IndexType::Uint32), &index_bytes, u64::from(place))?;
                match ff::fetch::indexed_vertex_index(index, rec.vertex_offset) {
                    Ok(v) => v,
                    Err(e) if port.strict() => return Err(e.into()),
                    Err(_) => continue,
                }
            } else {
                rec.first.saturating_add(place)
            };
            vertex_range = Some(vertex_range.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
        }
        let instance_range = (rec.first_instance, rec.first_instance.saturating_add(rec.instances.saturating_sub(1)));
        let mut windows: Vec<(u32, Vec<u8>)> = Vec::new();
        for b in p.vertex_input.bindings() {
            let Some(&(_, buffer, offset)) = d.vertex_buffers.iter().find(|v| v.0 == b.binding) else { continue };
            let (lo, hi) = match b.input_rate {
                ff::VertexInputRate::Vertex => match vertex_range {
                    Some(r) => r,
                    None => continue,
                },
                ff::VertexInputRate::Instance => instance_range,
            };
            let attrs = p.vertex_input.attributes().iter().filter(|a| a.binding == b.binding);
            let (mut a_lo, mut a_hi) = (u64::MAX, 0u64);
            for a in attrs {
                let size = u64::from(ff::fetch::vertex_format_size(a.format).unwrap_or(4));
                a_lo = a_lo.min(u64::from(a.offset));
                a_hi = a_hi.max(u64::from(a.offset) + size);
            }
            if a_lo == u64::MAX {
                continue;
            }
            let bound = w.buffers[buffer].size - offset;
            let from = u64::from(lo) * u64::from(b.stride) + a_lo;
            let to = (u64::from(hi) * u64::from(b.stride) + a_hi).min(bound);
            if to > MAX_WINDOW_BYTES {
                return Err(err(format!("vertex binding {} fetches bytes up to {to} from its bound offset, past the simulator's {} MiB", b.binding, MAX_WINDOW_BYTES >> 20)));
            }
            let mut bytes = vec![0u8; to as usize];
            if from < to {
                read_chunks(prog, port, (&|c| key(inst, VERTEX, ri, u64::from(b.binding), b.binding, 0, c), Fixed::Vertex), buffer, offset + from, to - from, &mut bytes[from as usize..], &mut cycles)?;
            }
            windows.push((b.binding, bytes));
        }
        let vertex_buffers: Vec<ff::BoundVertexBuffer<'_>> = windows.iter().map(|(b, bytes)| ff::BoundVertexBuffer { binding: *b, bytes }).collect();
        let state = DrawState {
            vertex: &p.vertex,
            fragment: p.fragment.as_deref(),
            vertex_input: &p.vertex_input,
            vertex_buffers: &vertex_buffers,
            index_buffer: rec.indexed.then(|| (index_bytes.as_slice(), index_type.unwrap_or(ff::IndexType::Uint32))),
            topology: p.topology,
            raster: p.raster,
            viewport: d.viewport,
            scissor: Some(d.scissor),
            push_constants: d.push_constants,
            blend_constants: p.blend_constants,
            subgroup_size,
        };
        let counts = DrawCounts { count: rec.count, instance_count: rec.instances, first: if rec.indexed { 0 } else { rec.first }, vertex_offset: rec.vertex_offset, first_instance: rec.first_instance };
        let mut colors: Vec<ColorTarget<'_>> = Vec::new();
        let mut color_loc = Vec::new();
        for (loc, t, bytes) in color_bytes.iter_mut() {
            // Locations without an attachment take a target nothing reads back.
            while colors.len() < *loc {
                color_loc.push(None);
                colors.push(ColorTarget { format: t.format, extent: [0, 0], texels: &mut [], blend: sim_rop::fragment::BlendState::REPLACE });
            }
            color_loc.push(Some(*t));
            colors.push(ColorTarget { format: t.format, extent, texels: bytes, blend: p.blend.get(*loc).copied().unwrap_or(sim_rop::fragment::BlendState::REPLACE) });
        }
        let mut depth = depth_bytes.as_mut().map(|(t, bytes)| DepthTarget { format: t.format, extent, texels: bytes, test: true, write: p.depth_stencil.depth_write, compare: p.depth_stencil.depth_compare });
        let mut mem = EngineMemory { prog, inst, record: ri, port: &mut *port, bound: [&bound_vs, &bound_fs], scratch: Scratch::default(), tex: TexScratch::default(), loads: std::collections::HashMap::new(), colors: color_loc, depth: d.depth, extent, written: std::collections::HashSet::new(), cycles: 0, tag, error: None };
        let result = draw_with(&state, counts, &mut colors, depth.as_mut(), &binding_sizes, &shapes, &mut mem);
        if let Some(e) = mem.error.take() {
            return Err(Failure::Run(e));
        }
        cycles += mem.cycles;
        let written = std::mem::take(&mut mem.written);
        drop(mem);
        drop(colors);
        match result {
            Ok(_) => {}
            Err(e) if port.strict() => return Err(e.into()),
            // A timed run that read stale bytes may draw what no correct program would: it ends
            // here, and its stale reads are reported.
            Err(_) => return Ok(cycles),
        }
        // Written texels back, attachment by attachment, row by row in contiguous runs.
        let mut written: Vec<(TargetId, u32, u32)> = written.into_iter().collect();
        written.sort_unstable_by_key(|&(t, x, y)| (target_order(t), y, x));
        let mut runs = Runs::default();
        for (t, x, y) in written {
            let (target, aspect, texels, tb) = match t {
                TargetId::Color(k) => match color_bytes.iter().find(|c| c.0 == k) {
                    Some((_, tg, bytes)) => (*tg, Aspect::Color, bytes.as_slice(), tg.format.plane_bytes(Aspect::Color).unwrap_or(4) as usize),
                    None => continue,
                },
                TargetId::Depth => match &depth_bytes {
                    Some((tg, bytes)) => (*tg, Aspect::Depth, bytes.as_slice(), 4),
                    None => continue,
                },
            };
            let Some(addr) = texel_addr(prog, &target, aspect, x, y) else { continue };
            let at = (y as usize * extent[0] as usize + x as usize) * tb;
            cycles += runs.push(port, tag, addr, &texels[at..at + tb])?;
        }
        cycles += runs.finish(port, tag)?;
    }
    Ok(cycles)
}

fn target_order(t: TargetId) -> usize {
    match t {
        TargetId::Color(k) => k,
        TargetId::Depth => usize::MAX,
    }
}

/// [`DrawMemory`] over a [`GraphicsPort`]: each request performed and noted under its key.
struct EngineMemory<'a, 'p, P: GraphicsPort> {
    prog: &'a Program<'p>,
    inst: usize,
    record: u32,
    port: &'a mut P,
    bound: [&'a [Bound]; 2],
    scratch: Scratch,
    tex: TexScratch,
    /// Loads so far per (wave, subgroup).
    loads: std::collections::HashMap<(WaveId, usize), u32>,
    colors: Vec<Option<Target>>,
    depth: Option<Target>,
    extent: [u32; 2],
    written: std::collections::HashSet<(TargetId, u32, u32)>,
    cycles: u64,
    tag: Tag,
    /// An error of the run (not of the draw), kept to be returned as it is.
    error: Option<WorkloadError>,
}

impl<P: GraphicsPort> EngineMemory<'_, '_, P> {
    fn load_key(&mut self, wave: WaveId, sg: usize) -> ReadKey {
        let n = self.loads.entry((wave, sg)).or_insert(0);
        let c = *n;
        *n += 1;
        let extra = (u64::from(wave.batch & 0x0FFF_FFFF) << 16) | (sg as u64 & 0xFFFF);
        key(self.inst, SHADER, self.record, extra, (u32::from(wave.fragment) << 31) | (wave.instance & 0x7FFF_FFFF), wave.index, c)
    }

    fn cu(&self, wave: WaveId) -> usize {
        (wave.index as usize + wave.batch as usize) % self.port.cus().max(1)
    }

    fn fail(&mut self, e: WorkloadError) -> DrawError {
        let m = e.to_string();
        self.error = Some(e);
        DrawError::Memory(m)
    }
}

impl<P: GraphicsPort> DrawMemory for EngineMemory<'_, '_, P> {
    fn memory(&mut self, wave: WaveId, sg: usize, req: &MemRequest, results: &mut Vec<u8>) -> Result<(), DrawError> {
        let bound = self.bound[usize::from(wave.fragment)];
        let cu = self.cu(wave);
        let performed = perform(self.port, cu, req, bound, self.tag, &mut self.scratch).map_err(|e: AccessError| DrawError::Memory(e.to_string()))?;
        self.cycles += performed.latency;
        if req.op == MemOp::Load && !req.atomic {
            let k = self.load_key(wave, sg);
            if let Err(e) = self.port.shader_load(k, &performed, req, bound, &self.scratch) {
                return Err(self.fail(e));
            }
        }
        results.clone_from(&self.scratch.results);
        Ok(())
    }

    fn image(&mut self, wave: WaveId, sg: usize, req: &ImageRequest, texels: &mut Vec<[u32; 4]>) -> Result<(), DrawError> {
        let bound = self.bound[usize::from(wave.fragment)];
        let cu = self.cu(wave);
        let performed = perform_image(self.port, cu, req, bound, self.tag, &mut self.scratch, &mut self.tex).map_err(DrawError::Memory)?;
        self.cycles += performed.latency;
        let lowered = self.tex.req.as_ref().map(|r| r.op);
        if lowered == Some(MemOp::Load) {
            let k = self.load_key(wave, sg);
            let req = self.tex.req.take().expect("lowered");
            let noted = self.port.shader_load(k, &performed, &req, bound, &self.scratch);
            self.tex.req = Some(req);
            if let Err(e) = noted {
                return Err(self.fail(e));
            }
        }
        texels.clone_from(&self.tex.words);
        Ok(())
    }

    fn tile(&mut self, target: TargetId, tile: [u32; 2], texels: &mut [u8], width: u32, texel_bytes: usize) -> Result<(), DrawError> {
        let (t, aspect, a) = match target {
            TargetId::Color(k) => match self.colors.get(k).copied().flatten() {
                Some(t) => (t, Aspect::Color, k as u32),
                None => return Ok(()),
            },
            TargetId::Depth => match self.depth {
                Some(t) => (t, Aspect::Depth, u32::MAX),
                None => return Ok(()),
            },
        };
        let dim = sim_rop::layout::TILE_DIM;
        let tile_index = tile[1] * width.div_ceil(dim) + tile[0];
        let (x0, y0) = (tile[0] * dim, tile[1] * dim);
        let (x1, y1) = ((x0 + dim).min(self.extent[0]), (y0 + dim).min(self.extent[1]));
        // Runs of contiguous bytes: (address, first texel's array position, texels).
        let mut runs: Vec<(u64, usize, usize)> = Vec::new();
        for y in y0..y1 {
            for x in x0..x1 {
                let Some(addr) = texel_addr(self.prog, &t, aspect, x, y) else { continue };
                let pos = (y as usize * width as usize + x as usize) * texel_bytes;
                match runs.last_mut() {
                    Some((a0, p0, n)) if *a0 + (*n * texel_bytes) as u64 == addr && *p0 + *n * texel_bytes == pos => *n += 1,
                    _ => runs.push((addr, pos, 1)),
                }
            }
        }
        let offset0 = self.prog.buffer_addr(t.resource, 0);
        for (k, &(addr, pos, n)) in runs.iter().enumerate() {
            let key = key(self.inst, TILE, self.record, 0, a, tile_index, k as u32);
            let len = n * texel_bytes;
            match self.port.fixed_read(key, t.resource, addr - offset0, addr, &mut texels[pos..pos + len], Fixed::Attachment) {
                Ok(c) => self.cycles += c,
                Err(e) => return Err(self.fail(e)),
            }
        }
        Ok(())
    }

    fn wrote(&mut self, target: TargetId, x: u32, y: u32) {
        self.written.insert((target, x, y));
    }
}
