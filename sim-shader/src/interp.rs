//! The SIMT interpreter: workgroups of subgroups stepping through a compiled [`Program`].
//!
//! # Design
//!
//! **Data layout.** A subgroup of `W` lanes (1..=64) owns a register file `regs: Vec<u32>`
//! laid out structure-of-arrays: register `r` of lane `l` is `regs[r * W + l]`. Every value is
//! 32-bit words (f32 as bits, bool as 0/1), so one operation on an `n`-component value is `n`
//! tight loops over `W` contiguous words, the same for every lane: each IR expression is
//! evaluated once for the whole subgroup, never lane by lane. Function and private variables
//! live in lane memory, also structure-of-arrays by word (`lane[word * W + l]`), so a scalar
//! local is one contiguous row. Workgroup memory is one word array shared by the subgroups.
//!
//! **Mask algebra.** `exec: u64` holds the active lanes. Pure operations compute all lanes:
//! an inactive lane's result is never read, because naga scopes every expression to the block
//! that emits it, and a lane inactive in a block reads nothing from it. Memory operations and
//! variable initialisation honour `exec`. Structured control flow saves and combines masks in
//! numbered slots (`masks`, slot 0 always zero), allocated statically per construct:
//! - `if`: `entry = exec; then = exec & cond`; the else branch runs `entry & !then`; after both,
//!   `exec = entry & !(brk | cont | ret)` so lanes that left by break, continue or return stay out.
//! - `loop`: `brk` accumulates over the loop, `cont` is cleared each iteration; the continuing
//!   block runs `entry & !(brk | ret)` (continued lanes rejoin); `break_if` moves lanes to `brk`;
//!   the loop repeats while any lane remains, and exits with `entry & !ret`.
//! - `switch`: case `i` runs `acc |= entry & matches(i)`, `exec = acc & !(sbrk | cont | ret)`;
//!   after a case, `acc` keeps the lanes still running only if the case falls through.
//! - `break`/`continue`/`return`: `slot |= exec; exec = 0` and a jump to the end of the
//!   enclosing block, since no lane is left to run the rest of it.
//! - calls are inlined: the call saves `exec` and restores it after the callee.
//!
//! **Yields.** Only buffer accesses (uniform and storage), image accesses (loads, samples and
//! stores) and barriers leave the interpreter; the subgroup records what it waits for and the
//! caller completes it. Workgroup, push-constant and lane memory are performed in place (and
//! counted), and image queries (`textureDimensions`, `textureNumLevels`, `textureNumLayers`)
//! are answered from the [`ImageShape`]s given at dispatch. An image access is checked against
//! the shape as a buffer access is against the bound size: lanes out of range are dropped from
//! the request (loads read zero), and a request with no lane left is not made.

//!
//! **Vertex and fragment waves.** A graphics stage's invocations are the caller's: a wave of
//! `lanes` invocations ([`crate::GraphicsShader::wave`]) fills each lane's input registers from
//! its input words and leaves its outputs in registers, read by [`Workgroup::outputs`]. In a
//! fragment wave four consecutive lanes are a 2x2 quad: derivatives read the quad's lanes
//! whatever the mask (pure operations compute every lane, so a lane that left by `discard` or
//! a branch still holds the values it had), helper lanes are masked out of stores, and killed
//! lanes leave by the entry point's return mask.

use std::sync::Arc;

use crate::error::ShaderError;
use crate::program::*;

/// Configuration of one workgroup.
#[derive(Clone, Debug)]
pub struct WorkgroupConfig<'a> {
    /// `workgroup_id` built-in of this workgroup.
    pub workgroup_id: [u32; 3],
    /// `num_workgroups` built-in (the dispatch's group count).
    pub num_workgroups: [u32; 3],
    /// Lanes per subgroup, 1..=64 (e.g. 32 or 64).
    pub subgroup_size: u32,
    /// Push-constant bytes (shorter than the block reads as zero).
    pub push_constants: &'a [u8],
    /// Byte size of the range bound to each entry of [`crate::ComputePipeline::bindings`], in
    /// that order; used for bounds checks and `arrayLength` (anything, e.g. 0, for images and
    /// samplers).
    pub binding_sizes: &'a [u64],
    /// Shape of the image bound to each entry of [`crate::ComputePipeline::bindings`], in that
    /// order (ignored for buffers and samplers; may be empty when the entry point uses no
    /// image). Used for bounds checks, layer clamping and image queries.
    pub image_shapes: &'a [ImageShape],
    /// Instructions a subgroup may execute before [`ShaderError::StepLimit`].
    pub max_instructions: u64,
}

/// The shape of the image view bound to an image binding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageShape {
    /// Width, height and depth of level 0 of the view: at least 1 in each dimension the image
    /// has (the others are not read).
    pub extent: [u32; 3],
    /// Mip levels of the view, at least 1 (a storage image's view has 1).
    pub levels: u32,
    /// Array layers of the view: at least 1 for an arrayed image (not read otherwise).
    pub layers: u32,
}

/// Default instruction limit per subgroup: generous, but stops a runaway loop in seconds.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 1 << 30;

/// What a subgroup did when stepped.
#[derive(Debug)]
pub enum Step<'a> {
    /// A buffer access the caller must perform, then call [`Workgroup::complete`].
    Memory(&'a MemRequest),
    /// An image access the caller must perform, then call [`Workgroup::complete_image`].
    Image(&'a ImageRequest),
    /// A barrier. For `control` barriers the subgroup is parked until every subgroup of the
    /// workgroup has arrived (or finished); stepping it returns [`Step::Blocked`] until then.
    Barrier {
        /// Whether execution waits for the workgroup.
        control: bool,
        /// The memory scopes the barrier orders.
        flags: BarrierFlags,
    },
    /// The subgroup waits at a control barrier for other subgroups.
    Blocked,
    /// The subgroup has finished.
    Done,
}

/// Kind of buffer access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    /// Read `size` bytes per lane; complete with the bytes, lane after lane.
    Load,
    /// Write `size` bytes per lane from [`MemRequest::data`]; complete with no bytes.
    Store,
    /// Atomic read-modify-write of 4 bytes per lane, to be performed in ascending lane order;
    /// complete with each lane's original value (4 bytes little-endian per lane).
    Atomic(AtomicOp),
}

/// One lane's part of a buffer access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// Lane index within the subgroup.
    pub lane: u32,
    /// Byte offset within the bound range (always in range: out-of-range lanes are dropped).
    pub offset: u64,
    /// Bytes accessed (4 per scalar component).
    pub size: u32,
}

/// A buffer access for the caller to perform. Reused between steps; read it before the next
/// call into the workgroup.
#[derive(Clone, Debug)]
pub struct MemRequest {
    /// Load, store or atomic.
    pub op: MemOp,
    /// Index into [`crate::ComputePipeline::bindings`].
    pub binding_index: u32,
    /// Descriptor set / bind group.
    pub group: u32,
    /// Binding number.
    pub binding: u32,
    /// Storage or uniform (the address space).
    pub kind: BindingKind,
    /// The access targets an atomic type (atomicLoad / atomicStore / read-modify-write).
    pub atomic: bool,
    /// Active, in-range lanes in ascending lane order.
    pub lanes: Vec<LaneAccess>,
    /// Store data: each lane's bytes, concatenated in `lanes` order.
    pub data: Vec<u8>,
    /// Atomic operand per lane in `lanes` order.
    pub operands: Vec<u32>,
    /// Compare-exchange comparator per lane (empty for other atomics).
    pub compares: Vec<u32>,
}

/// An empty load of binding 0 (a request to fill in, or reuse).
impl Default for MemRequest {
    fn default() -> Self {
        MemRequest {
            op: MemOp::Load,
            binding_index: 0,
            group: 0,
            binding: 0,
            kind: BindingKind::UniformBuffer,
            atomic: false,
            lanes: Vec::new(),
            data: Vec::new(),
            operands: Vec::new(),
            compares: Vec::new(),
        }
    }
}

impl MemRequest {
    /// Total bytes `complete` expects for this request.
    pub fn result_len(&self) -> usize {
        match self.op {
            MemOp::Load => self.lanes.iter().map(|l| l.size as usize).sum(),
            MemOp::Store => 0,
            MemOp::Atomic(_) => 4 * self.lanes.len(),
        }
    }
}

/// One lane's part of an image access.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageLane {
    /// Lane index within the subgroup.
    pub lane: u32,
    /// Load and Store: integer texel coordinates (x, y, z; unused dimensions 0), always inside
    /// the level (out-of-range lanes are dropped from the request). SampleLevel: 0.
    pub texel: [u32; 3],
    /// Array layer (0 for a non-arrayed image). Load and Store: in range. SampleLevel: Vulkan's
    /// rule, the float layer rounded to nearest (ties to even) and clamped to
    /// `[0, layers - 1]` (an integer layer, as WGSL gives, is clamped).
    pub layer: u32,
    /// Load: the mip level (in range). Store and SampleLevel: 0.
    pub level: u32,
    /// SampleLevel: normalized coordinates (unused dimensions 0.0). Load and Store: 0.0.
    pub coords: [f32; 3],
    /// SampleLevel: the explicit level of detail (0.0 otherwise).
    pub lod: f32,
}

/// An image access for the caller to perform. Reused between steps; read it before the next
/// call into the workgroup.
#[derive(Clone, Debug)]
pub struct ImageRequest {
    /// Load, sample or store.
    pub op: ImageOp,
    /// Index into [`crate::ComputePipeline::bindings`] of the image.
    pub binding_index: u32,
    /// Descriptor set / bind group of the image.
    pub group: u32,
    /// Binding number of the image.
    pub binding: u32,
    /// The image binding's kind ([`BindingKind::SampledImage`] or [`BindingKind::StorageImage`]).
    pub kind: BindingKind,
    /// Active, in-range lanes in ascending lane order.
    pub lanes: Vec<ImageLane>,
    /// Store: four 32-bit words per lane in `lanes` order (f32 bits for float formats, u32 or
    /// i32 bits for integer ones; components the shader did not give are 0, alpha 1). Empty
    /// otherwise.
    pub values: Vec<[u32; 4]>,
}

impl ImageRequest {
    fn empty() -> Self {
        ImageRequest { op: ImageOp::Load, binding_index: 0, group: 0, binding: 0, kind: BindingKind::Sampler, lanes: Vec::new(), values: Vec::new() }
    }

    /// Number of texels [`Workgroup::complete_image`] expects: one per lane for loads and
    /// samples, none for stores.
    pub fn result_len(&self) -> usize {
        match self.op {
            ImageOp::Store => 0,
            _ => self.lanes.len(),
        }
    }
}

/// Execution statistics, for timing models and lane-operation throughput.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecStats {
    /// Instructions executed (expression and statement evaluations, including control).
    pub instructions: u64,
    /// Sum over instructions of the number of active lanes.
    pub lane_ops: u64,
    /// Lane accesses to workgroup memory (loads, stores, atomics).
    pub workgroup_accesses: u64,
    /// Lane accesses to function, private and push-constant memory.
    pub local_accesses: u64,
    /// Buffer requests handed to the caller.
    pub memory_requests: u64,
    /// Lane accesses dropped as out of bounds (loads read zero, stores discarded).
    pub out_of_bounds: u64,
    /// Barriers reported.
    pub barriers: u64,
    /// Image requests (loads, samples, stores) handed to the caller.
    pub image_requests: u64,
    /// Lanes of image loads and stores dropped as out of range (loads read zero, stores
    /// discarded).
    pub image_out_of_bounds: u64,
}

impl ExecStats {
    /// Add another set of statistics to this one.
    pub fn add(&mut self, o: &ExecStats) {
        self.instructions += o.instructions;
        self.lane_ops += o.lane_ops;
        self.workgroup_accesses += o.workgroup_accesses;
        self.local_accesses += o.local_accesses;
        self.memory_requests += o.memory_requests;
        self.out_of_bounds += o.out_of_bounds;
        self.barriers += o.barriers;
        self.image_requests += o.image_requests;
        self.image_out_of_bounds += o.image_out_of_bounds;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Running,
    Parked,
    Waiting,
    Done,
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    None,
    Load { dst: Reg, n: u32 },
    Atomic { dst: Reg, cmp: bool },
    /// An image load or sample: four words per lane to `dst`.
    ImageRead { dst: Reg },
    /// An image store.
    ImageWrite,
}

impl Pending {
    fn is_image(self) -> bool {
        matches!(self, Pending::ImageRead { .. } | Pending::ImageWrite)
    }
}

struct Subgroup {
    pc: u32,
    exec: u64,
    masks: Vec<u64>,
    regs: Vec<u32>,
    lane: Vec<u32>,
    state: State,
    pending: Pending,
    req: MemRequest,
    img: ImageRequest,
    stats: ExecStats,
    /// Lanes killed by `discard` (fragment stage): their outputs are dropped.
    killed: u64,
    /// Helper lanes (fragment stage): they run for derivatives, make no stores, and have no
    /// outputs.
    helpers: u64,
}

struct Shared {
    wg: Vec<u32>,
    push: Vec<u32>,
    sizes: Vec<u32>,
    /// Shape of each binding's image (default for buffers and samplers).
    shapes: Vec<ImageShape>,
}

/// One workgroup in flight: its shared memory and its subgroups, each stepped independently.
pub struct Workgroup {
    prog: Arc<Program>,
    w: usize,
    id: [u32; 3],
    num_workgroups: [u32; 3],
    max_instructions: u64,
    sgs: Vec<Subgroup>,
    shared: Shared,
    /// Invocations: the workgroup size's product (compute), or the lanes of a vertex or
    /// fragment wave.
    invocations: usize,
    /// A vertex or fragment wave's input words, [`Program::io_inputs`]' words per invocation.
    lane_inputs: Vec<u32>,
    /// Helper invocations of a fragment wave.
    helper_invocations: Vec<bool>,
}

enum Yield {
    Memory,
    Image,
    Barrier(bool, BarrierFlags),
    Done,
}

fn internal(what: &str) -> ShaderError {
    ShaderError::Internal(what.to_string())
}

/// The most bytes of registers and private memory one workgroup may hold (every lane of every
/// subgroup has its own): 256 MiB, which a workgroup of 1024 invocations reaches at 64 K words an
/// invocation.
pub const MAX_WORKGROUP_STATE_BYTES: u64 = 256 << 20;

impl Workgroup {
    pub(crate) fn new(prog: Arc<Program>, cfg: &WorkgroupConfig) -> Result<Workgroup, ShaderError> {
        let [x, y, z] = prog.workgroup_size;
        let invocations = (x as usize) * (y as usize) * (z as usize);
        Workgroup::with_invocations(prog, cfg, invocations, Vec::new(), Vec::new())
    }

    /// A vertex or fragment wave of `lanes` invocations whose inputs are `inputs` (the words of
    /// [`Program::io_inputs`] for each invocation in turn) and, in a fragment wave, whose helper
    /// invocations `helpers` marks.
    pub(crate) fn wave(prog: Arc<Program>, cfg: &WorkgroupConfig, lanes: usize, inputs: &[u32], helpers: &[bool]) -> Result<Workgroup, ShaderError> {
        let per = prog.io_inputs.iter().map(|v| (v.word + v.components) as usize).max().unwrap_or(0);
        if inputs.len() != per.saturating_mul(lanes) {
            return Err(ShaderError::Dispatch(format!("{} input words given for {lanes} invocations of {per} words each", inputs.len())));
        }
        if !helpers.is_empty() && helpers.len() != lanes {
            return Err(ShaderError::Dispatch(format!("{} helper flags given for {lanes} invocations", helpers.len())));
        }
        if prog.stage == ShaderStage::Fragment && !cfg.subgroup_size.is_multiple_of(4) {
            return Err(ShaderError::Dispatch(format!("a fragment wave's subgroup size {} is not a multiple of 4 (its lanes run in 2x2 quads)", cfg.subgroup_size)));
        }
        Workgroup::with_invocations(prog, cfg, lanes, inputs.to_vec(), helpers.to_vec())
    }

    fn with_invocations(prog: Arc<Program>, cfg: &WorkgroupConfig, invocations: usize, lane_inputs: Vec<u32>, helper_invocations: Vec<bool>) -> Result<Workgroup, ShaderError> {
        let w = cfg.subgroup_size as usize;
        if !(1..=64).contains(&w) {
            return Err(ShaderError::Dispatch(format!("subgroup size {w} is not in 1..=64")));
        }
        if cfg.binding_sizes.len() != prog.bindings.len() {
            return Err(ShaderError::Dispatch(format!(
                "{} binding sizes given for {} bindings",
                cfg.binding_sizes.len(),
                prog.bindings.len()
            )));
        }
        let mut shapes = vec![ImageShape::default(); prog.bindings.len()];
        let images: Vec<usize> = prog.bindings.iter().enumerate().filter(|(_, b)| matches!(b.kind, BindingKind::SampledImage { .. } | BindingKind::StorageImage { .. })).map(|(i, _)| i).collect();
        if !images.is_empty() {
            if cfg.image_shapes.len() != prog.bindings.len() {
                return Err(ShaderError::Dispatch(format!("{} image shapes given for {} bindings (one per binding, images or not)", cfg.image_shapes.len(), prog.bindings.len())));
            }
            for i in images {
                let s = cfg.image_shapes[i];
                let b = &prog.bindings[i];
                let (BindingKind::SampledImage { dim, arrayed, .. } | BindingKind::StorageImage { dim, arrayed, .. }) = b.kind else { continue };
                if s.extent[..dim.coords() as usize].contains(&0) || s.levels == 0 || (arrayed && s.layers == 0) {
                    return Err(ShaderError::Dispatch(format!(
                        "image at group {} binding {} has an empty shape {s:?} (the extents of its dimensions, its levels and, if arrayed, its layers are at least 1)",
                        b.group, b.binding
                    )));
                }
                shapes[i] = s;
            }
        }
        let n_sg = invocations.div_ceil(w);
        // Registers and lane memory for every lane of every subgroup: bounded, since both sizes
        // come from the shader.
        let state_bytes = (prog.num_regs as u64 + prog.lane_words as u64).saturating_mul(4).saturating_mul((n_sg * w) as u64);
        if state_bytes > MAX_WORKGROUP_STATE_BYTES {
            return Err(ShaderError::Dispatch(format!(
                "a workgroup of {invocations} invocations needs {state_bytes} bytes of registers and private memory ({} registers and {} private words per invocation), more than the {MAX_WORKGROUP_STATE_BYTES} allowed",
                prog.num_regs, prog.lane_words
            )));
        }
        let mut push = vec![0u32; (prog.push_constant_bytes as usize).div_ceil(4)];
        for (i, chunk) in cfg.push_constants.chunks(4).enumerate() {
            if let Some(word) = push.get_mut(i) {
                let mut b = [0u8; 4];
                b[..chunk.len()].copy_from_slice(chunk);
                *word = u32::from_le_bytes(b);
            }
        }
        // Offsets are 32-bit and u32::MAX is the saturated "out of range" offset.
        let sizes = cfg.binding_sizes.iter().map(|&s| s.min(u32::MAX as u64 - 1) as u32).collect();
        let mut sgs = Vec::with_capacity(n_sg);
        for _ in 0..n_sg {
            sgs.push(Subgroup {
                pc: 0,
                exec: 0,
                masks: vec![0; prog.num_masks as usize],
                regs: vec![0; prog.num_regs as usize * w],
                lane: vec![0; prog.lane_words as usize * w],
                state: State::Running,
                pending: Pending::None,
                req: MemRequest::default(),
                img: ImageRequest::empty(),
                stats: ExecStats::default(),
                killed: 0,
                helpers: 0,
            });
        }
        let mut wg = Workgroup {
            shared: Shared { wg: vec![0; prog.workgroup_words as usize], push, sizes, shapes },
            prog,
            w,
            id: cfg.workgroup_id,
            num_workgroups: cfg.num_workgroups,
            max_instructions: cfg.max_instructions,
            sgs,
            invocations,
            lane_inputs,
            helper_invocations,
        };
        wg.reset(cfg.workgroup_id);
        Ok(wg)
    }

    /// Start over as workgroup `id` (same dispatch): zeroes workgroup memory, restarts every
    /// subgroup and clears statistics. Lets a driver reuse the allocations.
    pub fn reset(&mut self, id: [u32; 3]) {
        self.id = id;
        self.shared.wg.iter_mut().for_each(|v| *v = 0);
        let w = self.w;
        let [sx, sy, sz] = self.prog.workgroup_size;
        let invocations = self.invocations;
        let per = self.prog.io_inputs.iter().map(|v| (v.word + v.components) as usize).max().unwrap_or(0);
        let n_sg = self.sgs.len() as u32;
        for (s, sg) in self.sgs.iter_mut().enumerate() {
            sg.pc = 0;
            sg.state = State::Running;
            sg.pending = Pending::None;
            sg.stats = ExecStats::default();
            sg.masks.iter_mut().for_each(|m| *m = 0);
            sg.lane.iter_mut().for_each(|v| *v = 0);
            let (mut exec, mut helpers) = (0u64, 0u64);
            for l in 0..w {
                if (s * w + l) < invocations {
                    exec |= 1 << l;
                    if self.helper_invocations.get(s * w + l) == Some(&true) {
                        helpers |= 1 << l;
                    }
                }
            }
            sg.exec = exec;
            sg.helpers = helpers;
            sg.killed = 0;
            for (r, words) in &self.prog.consts {
                for (c, &v) in words.iter().enumerate() {
                    let at = (*r as usize + c) * w;
                    if let Some(row) = sg.regs.get_mut(at..at + w) {
                        row.fill(v);
                    }
                }
            }
            for &(r, input) in &self.prog.inputs {
                if let Input::Lane { word, n } = input {
                    // A vertex or fragment invocation's input words.
                    for l in 0..w {
                        for c in 0..n as usize {
                            let v = self.lane_inputs.get((s * w + l) * per + word as usize + c).copied().unwrap_or(0);
                            if let Some(x) = sg.regs.get_mut((r as usize + c) * w + l) {
                                *x = v;
                            }
                        }
                    }
                    continue;
                }
                for l in 0..w {
                    let li = (s * w + l) as u32;
                    let local = [li % sx.max(1), (li / sx.max(1)) % sy.max(1), li / (sx * sy).max(1)];
                    let vals: [u32; 3] = match input {
                        Input::LocalInvocationId => local,
                        Input::GlobalInvocationId => [
                            id[0].wrapping_mul(sx).wrapping_add(local[0]),
                            id[1].wrapping_mul(sy).wrapping_add(local[1]),
                            id[2].wrapping_mul(sz).wrapping_add(local[2]),
                        ],
                        Input::LocalInvocationIndex => [li, 0, 0],
                        Input::WorkGroupId => id,
                        Input::NumWorkGroups => self.num_workgroups,
                        Input::WorkGroupSize => self.prog.workgroup_size,
                        Input::SubgroupSize => [w as u32, 0, 0],
                        Input::SubgroupInvocationId => [l as u32, 0, 0],
                        Input::NumSubgroups => [n_sg, 0, 0],
                        Input::SubgroupId => [s as u32, 0, 0],
                        Input::Lane { .. } => [0; 3],
                    };
                    let n = match input {
                        Input::LocalInvocationId | Input::GlobalInvocationId | Input::WorkGroupId | Input::NumWorkGroups | Input::WorkGroupSize => 3,
                        _ => 1,
                    };
                    for (c, &v) in vals.iter().enumerate().take(n) {
                        if let Some(x) = sg.regs.get_mut((r as usize + c) * w + l) {
                            *x = v;
                        }
                    }
                }
            }
        }
    }

    /// A finished vertex or fragment invocation's output words (the words of the outputs
    /// [`crate::GraphicsShader::outputs`] lists, in its layout) into `out`; `false`, and
    /// nothing written, for an invocation that was killed by `discard`, is a helper, or is
    /// out of range.
    pub fn outputs(&self, invocation: usize, out: &mut Vec<u32>) -> bool {
        out.clear();
        let (s, l) = (invocation / self.w, invocation % self.w);
        let Some(sg) = self.sgs.get(s) else { return false };
        if invocation >= self.invocations || (sg.killed | sg.helpers) & (1 << l) != 0 {
            return false;
        }
        let words = self.prog.io_outputs.iter().map(|(_, v)| (v.word + v.components) as usize).max().unwrap_or(0);
        out.resize(words, 0);
        for &(r, v) in &self.prog.io_outputs {
            for c in 0..v.components as usize {
                out[v.word as usize + c] = sg.regs.get((r as usize + c) * self.w + l).copied().unwrap_or(0);
            }
        }
        true
    }

    /// Number of subgroups in this workgroup.
    pub fn num_subgroups(&self) -> usize {
        self.sgs.len()
    }

    /// This workgroup's id.
    pub fn workgroup_id(&self) -> [u32; 3] {
        self.id
    }

    /// Whether every subgroup has finished.
    pub fn is_done(&self) -> bool {
        self.sgs.iter().all(|s| s.state == State::Done)
    }

    /// Statistics of one subgroup (zero for an out-of-range index).
    pub fn subgroup_stats(&self, sg: usize) -> ExecStats {
        self.sgs.get(sg).map(|s| s.stats).unwrap_or_default()
    }

    /// Statistics summed over the subgroups.
    pub fn stats(&self) -> ExecStats {
        let mut t = ExecStats::default();
        for s in &self.sgs {
            t.add(&s.stats);
        }
        t
    }

    /// Workgroup memory, as words (for inspection and tests).
    pub fn workgroup_memory(&self) -> &[u32] {
        &self.shared.wg
    }

    /// Run subgroup `sg` until its next buffer or image access, barrier, or end.
    pub fn step(&mut self, sg: usize) -> Result<Step<'_>, ShaderError> {
        let state = self.sgs.get(sg).ok_or_else(|| ShaderError::Protocol(format!("no subgroup {sg}")))?.state;
        match state {
            State::Done => return Ok(Step::Done),
            State::Waiting => {
                let what = if self.sgs[sg].pending.is_image() { "complete_image()" } else { "complete()" };
                return Err(ShaderError::Protocol(format!("subgroup {sg} is waiting for {what}")));
            }
            State::Parked => {
                if self.sgs.iter().all(|s| matches!(s.state, State::Parked | State::Done)) {
                    // Everyone arrived: release the whole workgroup at once, so a subgroup that
                    // races ahead to the next barrier cannot release the stragglers twice.
                    for s in &mut self.sgs {
                        if s.state == State::Parked {
                            s.state = State::Running;
                        }
                    }
                } else {
                    return Ok(Step::Blocked);
                }
            }
            State::Running => {}
        }
        let prog = &*self.prog;
        let sub = &mut self.sgs[sg];
        let y = run(prog, self.w, sub, &mut self.shared, self.max_instructions).map_err(|e| match e {
            ShaderError::StepLimit { limit, .. } => ShaderError::StepLimit { workgroup: self.id, subgroup: sg, limit },
            e => e,
        })?;
        Ok(match y {
            Yield::Memory => {
                sub.state = State::Waiting;
                sub.stats.memory_requests += 1;
                Step::Memory(&sub.req)
            }
            Yield::Image => {
                sub.state = State::Waiting;
                sub.stats.image_requests += 1;
                Step::Image(&sub.img)
            }
            Yield::Barrier(control, flags) => {
                sub.stats.barriers += 1;
                if control {
                    sub.state = State::Parked;
                }
                Step::Barrier { control, flags }
            }
            Yield::Done => {
                sub.state = State::Done;
                Step::Done
            }
        })
    }

    /// The memory request subgroup `sg` yielded and has not completed yet, if any: a driver may
    /// perform it later than the step that yielded it (after the compute before it).
    pub fn pending_request(&self, sg: usize) -> Option<&MemRequest> {
        self.sgs.get(sg).filter(|s| s.state == State::Waiting && !s.pending.is_image()).map(|s| &s.req)
    }

    /// The pending image request of subgroup `sg`, if it waits on one (the image analogue of
    /// [`Workgroup::pending_request`]).
    pub fn pending_image(&self, sg: usize) -> Option<&ImageRequest> {
        self.sgs.get(sg).filter(|s| s.state == State::Waiting && s.pending.is_image()).map(|s| &s.img)
    }

    /// Completes a subgroup's pending image request: for Load and SampleLevel `texels` holds one
    /// texel (four words: f32 bits for [`SampleKind::Float`] images and float storage formats,
    /// u32 or i32 bits otherwise) per lane of the request, in its order; for Store it is empty.
    /// A subgroup that waits on no image request, or a wrong number of texels, is a
    /// [`ShaderError::Protocol`] error, as with [`Workgroup::complete`].
    pub fn complete_image(&mut self, sg: usize, texels: &[[u32; 4]]) -> Result<(), ShaderError> {
        let w = self.w;
        let sub = self.sgs.get_mut(sg).ok_or_else(|| ShaderError::Protocol(format!("no subgroup {sg}")))?;
        if sub.state != State::Waiting {
            return Err(ShaderError::Protocol(format!("subgroup {sg} has no request to complete")));
        }
        if !sub.pending.is_image() {
            return Err(ShaderError::Protocol(format!("subgroup {sg} waits for a buffer request: complete it with complete()")));
        }
        let want = sub.img.result_len();
        if texels.len() != want {
            return Err(ShaderError::Protocol(format!("complete_image() got {} texels, request needs {want}", texels.len())));
        }
        if let Pending::ImageRead { dst } = sub.pending {
            for (la, t) in sub.img.lanes.iter().zip(texels) {
                for (c, &v) in t.iter().enumerate() {
                    *sub.regs.get_mut((dst as usize + c) * w + la.lane as usize).ok_or_else(|| internal("image result"))? = v;
                }
            }
        }
        sub.pending = Pending::None;
        sub.state = State::Running;
        Ok(())
    }

    /// Finish the memory request subgroup `sg` yielded: `results` holds the loaded bytes (loads)
    /// or each lane's original 4-byte value (atomics), in lane order; empty for stores.
    pub fn complete(&mut self, sg: usize, results: &[u8]) -> Result<(), ShaderError> {
        let w = self.w;
        let sub = self.sgs.get_mut(sg).ok_or_else(|| ShaderError::Protocol(format!("no subgroup {sg}")))?;
        if sub.state != State::Waiting {
            return Err(ShaderError::Protocol(format!("subgroup {sg} has no request to complete")));
        }
        if sub.pending.is_image() {
            return Err(ShaderError::Protocol(format!("subgroup {sg} waits for an image request: complete it with complete_image()")));
        }
        let want = sub.req.result_len();
        if results.len() != want {
            return Err(ShaderError::Protocol(format!("complete() got {} bytes, request needs {want}", results.len())));
        }
        match sub.pending {
            Pending::None | Pending::ImageRead { .. } | Pending::ImageWrite => {}
            Pending::Load { dst, n } => {
                let mut at = 0;
                for la in &sub.req.lanes {
                    for c in 0..n as usize {
                        let b = results.get(at..at + 4).ok_or_else(|| internal("load result"))?;
                        let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        if let Some(x) = sub.regs.get_mut((dst as usize + c) * w + la.lane as usize) {
                            *x = v;
                        }
                        at += 4;
                    }
                }
            }
            Pending::Atomic { dst, cmp } => {
                if dst != NO_REG {
                    for (i, la) in sub.req.lanes.iter().enumerate() {
                        let b = results.get(4 * i..4 * i + 4).ok_or_else(|| internal("atomic result"))?;
                        let old = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        let l = la.lane as usize;
                        if let Some(x) = sub.regs.get_mut(dst as usize * w + l) {
                            *x = old;
                        }
                        if cmp {
                            let c = sub.req.compares.get(i).copied().unwrap_or(0);
                            if let Some(x) = sub.regs.get_mut((dst as usize + 1) * w + l) {
                                *x = (old == c) as u32;
                            }
                        }
                    }
                }
            }
        }
        sub.pending = Pending::None;
        sub.state = State::Running;
        Ok(())
    }
}

// ----- the interpreter loop ----------------------------------------------------------------

/// Split the register file at `dst`: operands (always allocated before their result) come
/// from the lower part, the result rows from the upper part.
#[inline(always)]
fn split(regs: &mut [u32], dst: Reg, n: u32, w: usize) -> Result<(&[u32], &mut [u32]), ShaderError> {
    let d = dst as usize * w;
    let end = d + n as usize * w;
    if end > regs.len() {
        return Err(internal("register out of range"));
    }
    let (lo, hi) = regs.split_at_mut(d);
    Ok((lo, &mut hi[..n as usize * w]))
}

#[inline(always)]
fn row(lo: &[u32], r: Reg, c: u32, w: usize) -> Result<&[u32], ShaderError> {
    let at = (r as usize + c as usize) * w;
    lo.get(at..at + w).ok_or_else(|| internal("operand register not below result"))
}

#[inline(always)]
fn lanes(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

fn run(prog: &Program, w: usize, sg: &mut Subgroup, sh: &mut Shared, limit: u64) -> Result<Yield, ShaderError> {
    let code = &prog.code[..];
    loop {
        let op = code.get(sg.pc as usize).ok_or_else(|| internal("pc out of range"))?;
        sg.pc += 1;
        sg.stats.instructions += 1;
        sg.stats.lane_ops += sg.exec.count_ones() as u64;
        if sg.stats.instructions > limit {
            return Err(ShaderError::StepLimit { workgroup: [0; 3], subgroup: 0, limit });
        }
        match *op {
            Op::Copy { dst, src, n } => {
                let (s, d) = (src as usize * w, dst as usize * w);
                let len = n as usize * w;
                if s + len > sg.regs.len() || d + len > sg.regs.len() {
                    return Err(internal("copy out of range"));
                }
                sg.regs.copy_within(s..s + len, d);
            }
            Op::CopyMasked { dst, src, n } => {
                for c in 0..n as usize {
                    for l in lanes(sg.exec) {
                        let v = *sg.regs.get((src as usize + c) * w + l).ok_or_else(|| internal("copy"))?;
                        *sg.regs.get_mut((dst as usize + c) * w + l).ok_or_else(|| internal("copy"))? = v;
                    }
                }
            }
            Op::Splat { dst, src, n } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                let s = row(lo, src, 0, w)?;
                for c in 0..n as usize {
                    d[c * w..(c + 1) * w].copy_from_slice(s);
                }
            }
            Op::Swizzle { dst, src, n, pattern } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                for c in 0..n as usize {
                    d[c * w..(c + 1) * w].copy_from_slice(row(lo, src, pattern[c] as u32, w)?);
                }
            }
            Op::Bin { op, kind, dst, a, b, n, sa, sb } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                for c in 0..n {
                    let x = row(lo, a, if sa { 0 } else { c }, w)?;
                    let y = row(lo, b, if sb { 0 } else { c }, w)?;
                    crate::ops::bin(op, kind, &mut d[c as usize * w..(c as usize + 1) * w], x, y);
                }
            }
            Op::Un { op, kind, dst, a, n } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                for c in 0..n {
                    let x = row(lo, a, c, w)?;
                    crate::ops::un(op, kind, &mut d[c as usize * w..(c as usize + 1) * w], x);
                }
            }
            Op::Ter { op, kind, dst, a, b, c: cc, n, s } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                for c in 0..n {
                    let x = row(lo, a, if s[0] { 0 } else { c }, w)?;
                    let y = row(lo, b, if s[1] { 0 } else { c }, w)?;
                    let z = row(lo, cc, if s[2] { 0 } else { c }, w)?;
                    crate::ops::ter(op, kind, &mut d[c as usize * w..(c as usize + 1) * w], x, y, z);
                }
            }
            Op::Lane { f, kind, dst, a, b, c, d: dd, n } => {
                let out = crate::ops::lane_out(f, n);
                let (lo, d) = split(&mut sg.regs, dst, out, w)?;
                crate::ops::lane_fn(f, kind, d, lo, [a, b, c, dd], n, w)?;
            }
            Op::Select { dst, cond, a, b, n, sc } => {
                let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                for c in 0..n {
                    let k = row(lo, cond, if sc { 0 } else { c }, w)?;
                    let x = row(lo, a, c, w)?;
                    let y = row(lo, b, c, w)?;
                    for (((o, &k), &x), &y) in d[c as usize * w..(c as usize + 1) * w].iter_mut().zip(k).zip(x).zip(y) {
                        *o = if k != 0 { x } else { y };
                    }
                }
            }
            Op::Dot { kind, dst, a, b, n } => {
                let (lo, d) = split(&mut sg.regs, dst, 1, w)?;
                let d = &mut d[..w];
                for c in 0..n {
                    let x = row(lo, a, c, w)?;
                    let y = row(lo, b, c, w)?;
                    for ((o, &x), &y) in d.iter_mut().zip(x).zip(y) {
                        *o = if c == 0 { crate::ops::mul(kind, x, y) } else { crate::ops::add(kind, *o, crate::ops::mul(kind, x, y)) };
                    }
                }
            }
            Op::MatMul { dst, a, b, r, k, c: cols } => {
                let (lo, d) = split(&mut sg.regs, dst, r * cols, w)?;
                for cc in 0..cols {
                    for rr in 0..r {
                        let o = &mut d[(cc * r + rr) as usize * w..(cc * r + rr + 1) as usize * w];
                        for kk in 0..k {
                            let x = row(lo, a, kk * r + rr, w)?;
                            let y = row(lo, b, cc * k + kk, w)?;
                            for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                                let p = f32::from_bits(x) * f32::from_bits(y);
                                *o = if kk == 0 { p.to_bits() } else { (f32::from_bits(*o) + p).to_bits() };
                            }
                        }
                    }
                }
            }
            Op::Transpose { dst, src, cols, rows } => {
                let (lo, d) = split(&mut sg.regs, dst, cols * rows, w)?;
                for i in 0..cols {
                    for j in 0..rows {
                        // Result has `rows` columns of `cols` rows: out[j][i] = in[i][j].
                        let at = (j * cols + i) as usize * w;
                        d[at..at + w].copy_from_slice(row(lo, src, i * rows + j, w)?);
                    }
                }
            }
            Op::Outer { dst, a, b, r, c } => {
                let (lo, d) = split(&mut sg.regs, dst, r * c, w)?;
                for cc in 0..c {
                    let y = row(lo, b, cc, w)?;
                    for rr in 0..r {
                        let x = row(lo, a, rr, w)?;
                        let at = (cc * r + rr) as usize * w;
                        for ((o, &x), &y) in d[at..at + w].iter_mut().zip(x).zip(y) {
                            *o = (f32::from_bits(x) * f32::from_bits(y)).to_bits();
                        }
                    }
                }
            }
            Op::DynIndex { dst, base, index, elem, count } => {
                let (lo, d) = split(&mut sg.regs, dst, elem, w)?;
                let idx = row(lo, index, 0, w)?;
                for l in 0..w {
                    let i = idx[l];
                    for e in 0..elem {
                        d[e as usize * w + l] = if i < count { row(lo, base, i * elem + e, w)?[l] } else { 0 };
                    }
                }
            }
            Op::Addr { dst, base, index, stride } => {
                let (lo, d) = split(&mut sg.regs, dst, 1, w)?;
                let idx = row(lo, index, 0, w)?;
                if base == NO_REG {
                    for (o, &i) in d.iter_mut().zip(idx) {
                        *o = (i as u64 * stride as u64).min(u32::MAX as u64) as u32;
                    }
                } else {
                    let b = row(lo, base, 0, w)?;
                    for ((o, &i), &b) in d.iter_mut().zip(idx).zip(b) {
                        *o = (b as u64 + i as u64 * stride as u64).min(u32::MAX as u64) as u32;
                    }
                }
            }
            Op::ArrayLength { dst, binding, offset, stride } => {
                let size = *sh.sizes.get(binding as usize).ok_or_else(|| internal("binding"))?;
                let len = size.saturating_sub(offset) / stride.max(1);
                let (_, d) = split(&mut sg.regs, dst, 1, w)?;
                d.fill(len);
            }
            Op::Load { space, dst, n, base, root, off, dyn_off, atomic } => {
                if sg.exec == 0 {
                    continue;
                }
                if let Space::Buffer(b) = space {
                    if begin_buffer(prog, w, sg, sh, b, MemOp::Load, atomic, off, dyn_off, n, dst)? {
                        sg.pending = Pending::Load { dst, n };
                        return Ok(Yield::Memory);
                    }
                    // Lanes out of range read zero; none in range: nothing to ask.
                    continue;
                }
                local_load(w, sg, sh, space, dst, n, base, root, off, dyn_off)?;
            }
            Op::Store { space, src, n, base, root, off, dyn_off, atomic } => {
                if sg.exec == 0 {
                    continue;
                }
                if let Space::Buffer(b) = space {
                    sg.req.data.clear();
                    if begin_buffer(prog, w, sg, sh, b, MemOp::Store, atomic, off, dyn_off, n, NO_REG)? {
                        let Subgroup { req, regs, .. } = &mut *sg;
                        for la in &req.lanes {
                            for c in 0..n as usize {
                                let v = *regs.get((src as usize + c) * w + la.lane as usize).ok_or_else(|| internal("store src"))?;
                                req.data.extend_from_slice(&v.to_le_bytes());
                            }
                        }
                        sg.pending = Pending::None;
                        return Ok(Yield::Memory);
                    }
                    continue;
                }
                local_store(w, sg, sh, space, src, n, base, root, off, dyn_off)?;
            }
            Op::Atomic { space, op, dst, value, compare, base, root, off, dyn_off } => {
                if sg.exec == 0 {
                    continue;
                }
                if let Space::Buffer(b) = space {
                    if begin_buffer(prog, w, sg, sh, b, MemOp::Atomic(op), true, off, dyn_off, 1, NO_REG)? {
                        let Subgroup { req, regs, .. } = &mut *sg;
                        req.operands.clear();
                        req.compares.clear();
                        for la in &req.lanes {
                            let l = la.lane as usize;
                            req.operands.push(*regs.get(value as usize * w + l).ok_or_else(|| internal("atomic operand"))?);
                            if compare != NO_REG {
                                req.compares.push(*regs.get(compare as usize * w + l).ok_or_else(|| internal("atomic compare"))?);
                            }
                        }
                        sg.pending = Pending::Atomic { dst, cmp: compare != NO_REG };
                        return Ok(Yield::Memory);
                    }
                    continue;
                }
                // Workgroup atomics: performed here, lane by lane in ascending order.
                for l in lanes(sg.exec) {
                    let o = off as u64 + if dyn_off == NO_REG { 0 } else { sg.regs[dyn_off as usize * w + l] as u64 };
                    let v = sg.regs[value as usize * w + l];
                    let cmpv = if compare == NO_REG { 0 } else { sg.regs[compare as usize * w + l] };
                    sg.stats.workgroup_accesses += 1;
                    let old = if o + 4 <= root as u64 {
                        let word = ((base as u64 + o) / 4) as usize;
                        let slot = sh.wg.get_mut(word).ok_or_else(|| internal("workgroup word"))?;
                        let old = *slot;
                        *slot = op.apply(old, v, cmpv);
                        old
                    } else {
                        sg.stats.out_of_bounds += 1;
                        0
                    };
                    if dst != NO_REG {
                        sg.regs[dst as usize * w + l] = old;
                        if compare != NO_REG {
                            sg.regs[(dst as usize + 1) * w + l] = (old == cmpv) as u32;
                        }
                    }
                }
            }
            Op::InitLane { word, src, n } => {
                for k in 0..n as usize {
                    for l in lanes(sg.exec) {
                        let v = if src == NO_REG { 0 } else { sg.regs[(src as usize + k) * w + l] };
                        *sg.lane.get_mut((word as usize + k) * w + l).ok_or_else(|| internal("lane memory"))? = v;
                    }
                }
            }
            Op::SaveExec { slot } => sg.masks[slot as usize] = sg.exec,
            Op::ClearMask { slot } => sg.masks[slot as usize] = 0,
            Op::SetExec { slot } => sg.exec = sg.masks[slot as usize],
            Op::IfBegin { cond, then, target } => {
                let c = row(&sg.regs, cond, 0, w)?;
                let mut m = 0u64;
                for (l, &v) in c.iter().enumerate() {
                    m |= ((v != 0) as u64) << l;
                }
                let t = sg.exec & m;
                sg.masks[then as usize] = t;
                sg.exec = t;
                if t == 0 {
                    sg.pc = target;
                }
            }
            Op::Else { entry, then, minus, target } => {
                let m = &sg.masks;
                sg.exec = m[entry as usize] & !m[then as usize] & !(m[minus[0] as usize] | m[minus[1] as usize] | m[minus[2] as usize]);
                if sg.exec == 0 {
                    sg.pc = target;
                }
            }
            Op::Restore { entry, minus } => {
                let m = &sg.masks;
                sg.exec = m[entry as usize] & !(m[minus[0] as usize] | m[minus[1] as usize] | m[minus[2] as usize]);
            }
            Op::Leave { slot, target } => {
                sg.masks[slot as usize] |= sg.exec;
                sg.exec = 0;
                sg.pc = target;
            }
            Op::Kill => sg.killed |= sg.exec,
            Op::Derivative { dst, src, n, axis, fine } => derivative(w, sg, dst, src, n, axis, fine)?,
            Op::BreakIf { cond, brk } => {
                let c = row(&sg.regs, cond, 0, w)?;
                let mut m = 0u64;
                for (l, &v) in c.iter().enumerate() {
                    m |= ((v != 0) as u64) << l;
                }
                sg.masks[brk as usize] |= sg.exec & m;
                sg.exec &= !m;
            }
            Op::JumpIfAny { target } => {
                if sg.exec != 0 {
                    sg.pc = target;
                }
            }
            Op::JumpIfNone { target } => {
                if sg.exec == 0 {
                    sg.pc = target;
                }
            }
            Op::CaseBegin { sel, start, len, default, acc, entry, minus, target } => {
                let s = row(&sg.regs, sel, 0, w)?;
                let vals = prog.case_values.get(start as usize..(start + len) as usize).ok_or_else(|| internal("case values"))?;
                let mut m = 0u64;
                for (l, v) in s.iter().enumerate() {
                    let hit = vals.contains(v);
                    m |= ((hit != default) as u64) << l;
                }
                let ms = &mut sg.masks;
                ms[acc as usize] |= ms[entry as usize] & m;
                sg.exec = ms[acc as usize] & !(ms[minus[0] as usize] | ms[minus[1] as usize] | ms[minus[2] as usize]);
                if sg.exec == 0 {
                    sg.pc = target;
                }
            }
            Op::CaseEnd { acc, fall } => {
                sg.masks[acc as usize] = if fall { sg.exec } else { 0 };
            }
            Op::Image(a) => {
                if sg.exec == 0 {
                    continue;
                }
                if begin_image(prog, w, sg, sh, &a)? {
                    sg.pending = if a.dst == NO_REG { Pending::ImageWrite } else { Pending::ImageRead { dst: a.dst } };
                    return Ok(Yield::Image);
                }
            }
            Op::ImageQuery { query, image, dst, level } => {
                let shape = *sh.shapes.get(image as usize).ok_or_else(|| internal("image shape"))?;
                match query {
                    ImageQueryOp::Size { n } => {
                        let (lo, d) = split(&mut sg.regs, dst, n, w)?;
                        for l in 0..w {
                            let lv = if level == NO_REG { 0 } else { row(lo, level, 0, w)?[l] };
                            for c in 0..n as usize {
                                d[c * w + l] = level_extent(shape.extent[c], lv);
                            }
                        }
                    }
                    ImageQueryOp::NumLevels | ImageQueryOp::NumLayers => {
                        let (_, d) = split(&mut sg.regs, dst, 1, w)?;
                        d.fill(if query == ImageQueryOp::NumLevels { shape.levels } else { shape.layers });
                    }
                }
            }
            Op::Barrier { control, flags } => {
                if sg.exec == 0 {
                    continue;
                }
                return Ok(Yield::Barrier(control, flags));
            }
            Op::Done => {
                // Stay on `Done` so stepping again is harmless.
                sg.pc -= 1;
                return Ok(Yield::Done);
            }
        }
    }
}

/// [`Op::Derivative`] on every quad of the subgroup (lanes 4q..4q+3 at (0,0), (1,0), (0,1),
/// (1,1)); a partial quad at the end of the subgroup reads its missing lanes as its own.
#[allow(clippy::too_many_arguments)]
fn derivative(w: usize, sg: &mut Subgroup, dst: Reg, src: Reg, n: u32, axis: DerivativeAxis, fine: bool) -> Result<(), ShaderError> {
    let (s0, d0) = (src as usize * w, dst as usize * w);
    if s0 + n as usize * w > sg.regs.len() || d0 + n as usize * w > sg.regs.len() {
        return Err(internal("derivative registers"));
    }
    for c in 0..n as usize {
        for q in (0..w).step_by(4) {
            let v = |k: usize| f32::from_bits(sg.regs[s0 + c * w + (q + k).min(w - 1)]);
            let mut out = [0f32; 4];
            for (k, o) in out.iter_mut().enumerate() {
                // Fine: the lane's own row (x) or column (y); coarse: the quad's first.
                let (row, col) = if fine { (k / 2, k % 2) } else { (0, 0) };
                let dx = v(2 * row + 1) - v(2 * row);
                let dy = v(2 + col) - v(col);
                *o = match axis {
                    DerivativeAxis::X => dx,
                    DerivativeAxis::Y => dy,
                    DerivativeAxis::Width => dx.abs() + dy.abs(),
                };
            }
            for (k, o) in out.iter().enumerate() {
                if q + k < w {
                    sg.regs[d0 + c * w + q + k] = o.to_bits();
                }
            }
        }
    }
    Ok(())
}

/// log2 approximated linearly within each octave, as llvmpipe's `lp_build_fast_log2` takes it:
/// `x = 2^e · m` (m in [1, 2)) gives `e + m - 1`, exact at powers of two. Zero and subnormals
/// give -∞ (a level of detail that clamps to the minimum), infinity +∞, NaN NaN.
fn fast_log2(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x <= 0.0 {
        return f32::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32;
    if exponent == 0 {
        return f32::NEG_INFINITY;
    }
    let mantissa = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    (exponent - 127) as f32 + mantissa - 1.0
}

/// Word `c` of register `r` of lane `l`.
#[inline(always)]
fn word(regs: &[u32], r: Reg, c: usize, l: usize, w: usize) -> Result<u32, ShaderError> {
    regs.get((r as usize + c) * w + l).copied().ok_or_else(|| internal("operand register"))
}

/// Extent of mip level `level` of a dimension whose level 0 is `extent`: at least 1.
fn level_extent(extent: u32, level: u32) -> u32 {
    extent.checked_shr(level).unwrap_or(0).max(1)
}


/// Fill the subgroup's image request; returns false if no lane is in range. Loads and stores
/// drop lanes whose coordinates, layer or level are out of range (a load's read zero); a
/// sample keeps every lane, its layer clamped.
fn begin_image(prog: &Program, w: usize, sg: &mut Subgroup, sh: &Shared, a: &ImageArgs) -> Result<bool, ShaderError> {
    let info = prog.bindings.get(a.image as usize).ok_or_else(|| internal("image binding index"))?;
    let shape = *sh.shapes.get(a.image as usize).ok_or_else(|| internal("image shape"))?;
    let float_texels = match info.kind {
        BindingKind::SampledImage { sample, .. } => sample == SampleKind::Float,
        BindingKind::StorageImage { format, .. } => format.texel_kind() == SampleKind::Float,
        _ => return Err(internal("image access to a binding that is not an image")),
    };
    let n = a.n.min(3) as usize;
    let Subgroup { img, regs, stats, exec, helpers, .. } = &mut *sg;
    let exec = &if a.op == ImageOp::Store { *exec & !*helpers } else { *exec };
    img.op = a.op;
    img.binding_index = a.image;
    img.group = info.group;
    img.binding = info.binding;
    img.kind = info.kind;
    img.lanes.clear();
    img.values.clear();
    for l in lanes(*exec) {
        let mut lane = ImageLane { lane: l as u32, texel: [0; 3], layer: 0, level: 0, coords: [0.0; 3], lod: 0.0 };
        if let ImageOp::SampleLevel { .. } = a.op {
            for c in 0..n {
                lane.coords[c] = f32::from_bits(word(regs, a.coords, c, l, w)?);
            }
            if a.level != NO_REG {
                lane.lod = f32::from_bits(word(regs, a.level, 0, l, w)?);
            }
            if a.auto_lod {
                // λ = log2(ρ), ρ the larger of the scale factors along x and y in texels of
                // level 0 of the view ("Scale Factor Operation"), from the quad's coarse
                // derivatives (its first row and column), as llvmpipe takes them, and its log2
                // too: ½·fastlog2(ρ²), linear within each octave (Vulkan allows an
                // approximation of λ to mipmapPrecisionBits); a bias adds.
                let q = l & !3;
                let at = |k: usize, c: usize| -> Result<f32, ShaderError> { Ok(f32::from_bits(word(regs, a.coords, c, (q + k).min(w - 1), w)?)) };
                let (mut rx, mut ry) = (0f32, 0f32);
                for c in 0..n {
                    let size = shape.extent[c].max(1) as f32;
                    let (dx, dy) = ((at(1, c)? - at(0, c)?) * size, (at(2, c)? - at(0, c)?) * size);
                    rx += dx * dx;
                    ry += dy * dy;
                }
                lane.lod += 0.5 * fast_log2(rx.max(ry));
            }
            if a.layer != NO_REG {
                let v = word(regs, a.layer, 0, l, w)?;
                let layer = match a.layer_kind {
                    // `as` saturates, and NaN has become 0 by `max`.
                    Kind::F32 => f32::from_bits(v).round_ties_even().max(0.0) as u32,
                    Kind::I32 => (v as i32).max(0) as u32,
                    _ => v,
                };
                lane.layer = layer.min(shape.layers.saturating_sub(1));
            }
            img.lanes.push(lane);
            continue;
        }
        // Load and store: integer coordinates (i32 or u32; a negative i32 reads as a huge u32,
        // out of range either way).
        lane.level = if a.level == NO_REG { 0 } else { word(regs, a.level, 0, l, w)? };
        let mut inside = lane.level < shape.levels;
        for c in 0..n {
            lane.texel[c] = word(regs, a.coords, c, l, w)?;
            inside &= lane.texel[c] < level_extent(shape.extent[c], lane.level);
        }
        if a.layer != NO_REG {
            lane.layer = word(regs, a.layer, 0, l, w)?;
            inside &= lane.layer < shape.layers;
        }
        if !inside {
            stats.image_out_of_bounds += 1;
            // A load out of range reads zero.
            if a.dst != NO_REG {
                for c in 0..4 {
                    *regs.get_mut((a.dst as usize + c) * w + l).ok_or_else(|| internal("image destination"))? = 0;
                }
            }
            continue;
        }
        if a.op == ImageOp::Store {
            let one = if float_texels { 1f32.to_bits() } else { 1 };
            let mut v = [0, 0, 0, one];
            for (c, x) in v.iter_mut().enumerate().take(a.nv.min(4) as usize) {
                *x = word(regs, a.value, c, l, w)?;
            }
            img.values.push(v);
        }
        img.lanes.push(lane);
    }
    Ok(!img.lanes.is_empty())
}

/// Fill the subgroup's request for a buffer access; returns false if no lane is in range.
#[allow(clippy::too_many_arguments)]
fn begin_buffer(
    prog: &Program,
    w: usize,
    sg: &mut Subgroup,
    sh: &Shared,
    b: u32,
    op: MemOp,
    atomic: bool,
    off: u32,
    dyn_off: Reg,
    n: u32,
    zero_dst: Reg,
) -> Result<bool, ShaderError> {
    let info = prog.bindings.get(b as usize).ok_or_else(|| internal("binding index"))?;
    let bound = *sh.sizes.get(b as usize).ok_or_else(|| internal("binding size"))? as u64;
    let size = 4 * n;
    let req = &mut sg.req;
    req.op = op;
    req.binding_index = b;
    req.group = info.group;
    req.binding = info.binding;
    req.kind = info.kind;
    req.atomic = atomic;
    req.lanes.clear();
    // Helper lanes have no side effects: they load, never store.
    let active = if op == MemOp::Load { sg.exec } else { sg.exec & !sg.helpers };
    for l in lanes(active) {
        let o = off as u64 + if dyn_off == NO_REG { 0 } else { sg.regs[dyn_off as usize * w + l] as u64 };
        if o + size as u64 <= bound {
            req.lanes.push(LaneAccess { lane: l as u32, offset: o, size });
        } else {
            sg.stats.out_of_bounds += 1;
            if zero_dst != NO_REG {
                for c in 0..n as usize {
                    if let Some(x) = sg.regs.get_mut((zero_dst as usize + c) * w + l) {
                        *x = 0;
                    }
                }
            }
        }
    }
    Ok(!req.lanes.is_empty())
}

#[allow(clippy::too_many_arguments)]
fn local_load(w: usize, sg: &mut Subgroup, sh: &Shared, space: Space, dst: Reg, n: u32, base: u32, root: u32, off: u32, dyn_off: Reg) -> Result<(), ShaderError> {
    let active = sg.exec.count_ones() as u64;
    let size = 4 * n as u64;
    let d0 = dst as usize * w;
    if d0 + n as usize * w > sg.regs.len() {
        return Err(internal("load destination"));
    }
    match space {
        Space::Lane => sg.stats.local_accesses += active,
        Space::WorkGroup => sg.stats.workgroup_accesses += active,
        _ => sg.stats.local_accesses += active,
    }
    if dyn_off == NO_REG {
        // Uniform address: whole rows (lane memory) or a broadcast (shared memory).
        if off as u64 + size > root as u64 {
            sg.stats.out_of_bounds += active;
            sg.regs[d0..d0 + n as usize * w].fill(0);
            return Ok(());
        }
        let word = (base as usize + off as usize) / 4;
        for c in 0..n as usize {
            let d = &mut sg.regs[d0 + c * w..d0 + (c + 1) * w];
            match space {
                Space::Lane => d.copy_from_slice(sg.lane.get((word + c) * w..(word + c + 1) * w).ok_or_else(|| internal("lane memory"))?),
                Space::WorkGroup => d.fill(*sh.wg.get(word + c).ok_or_else(|| internal("workgroup memory"))?),
                _ => d.fill(sh.push.get(word + c).copied().unwrap_or(0)),
            }
        }
        return Ok(());
    }
    let dr = dyn_off as usize * w;
    for l in lanes(sg.exec) {
        let o = off as u64 + *sg.regs.get(dr + l).ok_or_else(|| internal("offset register"))? as u64;
        if o + size > root as u64 {
            sg.stats.out_of_bounds += 1;
            for c in 0..n as usize {
                sg.regs[d0 + c * w + l] = 0;
            }
            continue;
        }
        let word = ((base as u64 + o) / 4) as usize;
        for c in 0..n as usize {
            let v = match space {
                Space::Lane => *sg.lane.get((word + c) * w + l).ok_or_else(|| internal("lane memory"))?,
                Space::WorkGroup => *sh.wg.get(word + c).ok_or_else(|| internal("workgroup memory"))?,
                _ => sh.push.get(word + c).copied().unwrap_or(0),
            };
            sg.regs[d0 + c * w + l] = v;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn local_store(w: usize, sg: &mut Subgroup, sh: &mut Shared, space: Space, src: Reg, n: u32, base: u32, root: u32, off: u32, dyn_off: Reg) -> Result<(), ShaderError> {
    let active = sg.exec.count_ones() as u64;
    let size = 4 * n as u64;
    let s0 = src as usize * w;
    if s0 + n as usize * w > sg.regs.len() {
        return Err(internal("store source"));
    }
    match space {
        Space::WorkGroup => sg.stats.workgroup_accesses += active,
        Space::Lane => sg.stats.local_accesses += active,
        _ => return Err(internal("store to read-only space")),
    }
    let full = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    for l in lanes(sg.exec) {
        let o = off as u64 + if dyn_off == NO_REG { 0 } else { *sg.regs.get(dyn_off as usize * w + l).ok_or_else(|| internal("offset register"))? as u64 };
        if o + size > root as u64 {
            sg.stats.out_of_bounds += 1;
            continue;
        }
        let word = ((base as u64 + o) / 4) as usize;
        if space == Space::Lane && dyn_off == NO_REG && sg.exec == full {
            // Every lane, same word: copy whole rows.
            for c in 0..n as usize {
                let dst = sg.lane.get_mut((word + c) * w..(word + c + 1) * w).ok_or_else(|| internal("lane memory"))?;
                dst.copy_from_slice(&sg.regs[s0 + c * w..s0 + (c + 1) * w]);
            }
            return Ok(());
        }
        for c in 0..n as usize {
            let v = sg.regs[s0 + c * w + l];
            match space {
                Space::Lane => *sg.lane.get_mut((word + c) * w + l).ok_or_else(|| internal("lane memory"))? = v,
                _ => *sh.wg.get_mut(word + c).ok_or_else(|| internal("workgroup memory"))? = v,
            }
        }
    }
    Ok(())
}
