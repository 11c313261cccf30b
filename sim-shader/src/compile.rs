//! Translation of naga's IR into the crate's own [`Program`]. Every naga-specific `match`
//! lives here (and in `module.rs`, which only calls the front ends and the validator).
//!
//! The walk starts at a compute entry point and follows every statement, expression and called
//! function reachable from it, so anything the interpreter cannot run is found here, at load
//! time, and reported with its source location.
//!
//! Values become register ranges (one register per scalar component, in declaration order:
//! vector components, matrix columns then rows, array elements, struct members). Pointers never
//! exist at run time as values: a pointer expression is resolved here to a root (a memory space
//! and the variable's base and size) plus a static byte offset and, when an index is dynamic,
//! a register holding a per-lane byte offset. Function calls are inlined, which is how pointer
//! arguments work without run-time pointers; naga forbids recursion, and a depth limit guards
//! against anything else.
//!
//! Images and samplers are handles, which naga lets come only from global variables (passed on,
//! perhaps, as function arguments): like pointers they never exist at run time, each handle
//! expression is resolved here to the index of its binding.

use naga::proc::Layouter;
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{Handle, Span, TypeInner};

use crate::error::ShaderError;
use crate::program::*;

/// Per `(set, binding)` of a storage block only some of whose members are `Coherent`: the byte
/// ranges of those members, from the start of the binding.
pub(crate) type CoherentMembers = std::collections::HashMap<(u32, u32), Vec<std::ops::Range<u32>>>;

/// Inlining depth beyond which a call chain is rejected.
const MAX_CALL_DEPTH: u32 = 64;
/// The most calls one entry point may inline, counted over its whole call tree.
const MAX_INLINED_CALLS: u32 = 1 << 18;
/// The most operations one entry point may compile to.
const MAX_OPS: usize = 1 << 22;
/// The most lane memory (private and function variables, each inlined call's own) one invocation
/// may use: the interpreter keeps it for every lane of every live subgroup, so a size from a
/// shader must not decide an allocation unchecked.
const MAX_LANE_BYTES: u64 = 64 * 1024;
/// The most 32-bit components one value may have (a `let` of a whole array, a loaded struct, a
/// zero-initialised array): each component is a register, kept for every lane of every live
/// subgroup, so a size from a shader must not decide an allocation unchecked. The same 64 KiB an
/// invocation as [`MAX_LANE_BYTES`].
const MAX_VALUE_WORDS: u32 = 16 * 1024;
/// The most registers one invocation may use over the whole entry point (every value has its
/// own; nothing is reused): 4 MiB an invocation. A dispatch also bounds what a whole workgroup
/// needs (see `Workgroup::new`).
const MAX_REGISTERS: u32 = 1 << 20;
/// The most workgroup memory a shader may declare. A device's own limit
/// (maxComputeSharedMemorySize, typically 32–64 KiB) is checked against the profile when the
/// shader is dispatched.
const MAX_WORKGROUP_BYTES: u64 = 1 << 20;

/// Places `size` bytes after the `*words` words already placed, if the total stays within
/// `max_bytes`: the new block's byte offset.
fn reserve(words: &mut u32, size: u32, max_bytes: u64) -> Option<u32> {
    let base = u64::from(*words) * 4;
    let end = base + u64::from(size).div_ceil(4) * 4;
    if end > max_bytes {
        return None;
    }
    *words = (end / 4) as u32;
    Some(base as u32)
}

/// A compiled expression: a value in registers, a pointer known at compile time, or an image
/// or sampler handle (the index of its binding).
#[derive(Clone, Debug)]
enum Val {
    Reg(Reg),
    Ptr(Ptr),
    Image(u32),
    Sampler(u32),
}

#[derive(Clone, Debug)]
struct Ptr {
    space: Space,
    /// Byte offset of the root variable within its space (0 for buffers).
    base: u32,
    /// Byte size of the root variable ([`BOUND_SIZE`] for buffers).
    root: u32,
    /// Static byte offset within the root.
    off: u32,
    /// Register with a per-lane byte offset added to `off`, or [`NO_REG`].
    dyn_off: Reg,
    /// The type pointed to.
    ty: TypeInner,
}

/// Which mask slots a break, continue or return inside the current block updates.
#[derive(Clone, Copy)]
struct Flow {
    brk: u32,
    cont: u32,
    ret: u32,
}

/// One inlined instance of a function.
struct Inst<'m> {
    func: &'m naga::Function,
    finfo: &'m FunctionInfo,
    vals: Vec<Option<Val>>,
    args: Vec<Val>,
    /// Byte offset of each local variable in lane memory.
    locals: Vec<u32>,
    result: Option<Reg>,
}

#[derive(Clone)]
enum GlobalLoc {
    Unused,
    Lane { base: u32 },
    WorkGroup { base: u32 },
    Push,
    Buffer(u32),
    Image(u32),
    Sampler(u32),
    Unsupported(String),
}

pub(crate) struct Compiler<'m> {
    module: &'m naga::Module,
    info: &'m ModuleInfo,
    /// Byte ranges of the `Coherent` members of partly coherent storage blocks (SPIR-V only).
    coherent_members: &'m CoherentMembers,
    /// The module comes from GLSL or SPIR-V, whose front ends give the float layer of a sampled
    /// arrayed texture as a truncating conversion to i32 (see [`Compiler::layer`]).
    float_layers: bool,
    layouter: Layouter,
    source: Option<&'m str>,
    name: &'m str,
    code: Vec<Op>,
    /// Calls inlined so far (see `MAX_INLINED_CALLS`).
    inlined_calls: u32,
    num_regs: u32,
    num_masks: u32,
    lane_words: u32,
    workgroup_words: u32,
    push_bytes: u32,
    consts: Vec<(Reg, Vec<u32>)>,
    inputs: Vec<(Reg, Input)>,
    /// Vertex and fragment stages: the inputs and outputs, in word order.
    io_inputs: Vec<IoVar>,
    io_outputs: Vec<(Reg, IoVar)>,
    /// The entry point's stage.
    stage: ShaderStage,
    case_values: Vec<u32>,
    globals: Vec<GlobalLoc>,
    bindings: Vec<BindingInfo>,
    depth: u32,
    /// Span of the statement being compiled, for errors on statements.
    stmt_span: Span,
    fn_name: String,
}

type R<T> = Result<T, ShaderError>;

fn kind_of(s: naga::Scalar) -> Option<Kind> {
    use naga::ScalarKind as K;
    match (s.kind, s.width) {
        (K::Float, 4) => Some(Kind::F32),
        (K::Sint, 4) => Some(Kind::I32),
        (K::Uint, 4) => Some(Kind::U32),
        (K::Bool, _) => Some(Kind::Bool),
        _ => None,
    }
}

fn vsize(v: naga::VectorSize) -> u32 {
    v as u32
}

/// Byte stride between matrix columns (f32 columns: vec2 aligns to 8, vec3 and vec4 to 16).
fn col_stride(rows: naga::VectorSize) -> u32 {
    if vsize(rows) == 2 { 8 } else { 16 }
}

/// The simulator's name for a storage format naga gives, if it supports it.
fn storage_format(f: naga::StorageFormat) -> Option<StorageFormat> {
    use naga::StorageFormat as N;
    Some(match f {
        N::Rgba8Unorm => StorageFormat::Rgba8Unorm,
        N::Rgba8Uint => StorageFormat::Rgba8Uint,
        N::Rgba8Sint => StorageFormat::Rgba8Sint,
        N::R32Uint => StorageFormat::R32Uint,
        N::R32Sint => StorageFormat::R32Sint,
        N::R32Float => StorageFormat::R32Float,
        N::Rg32Float => StorageFormat::Rg32Float,
        N::Rgba16Float => StorageFormat::Rgba16Float,
        N::Rgba32Float => StorageFormat::Rgba32Float,
        N::Rgba32Uint => StorageFormat::Rgba32Uint,
        N::Rgba32Sint => StorageFormat::Rgba32Sint,
        N::Bgra8Unorm => StorageFormat::Bgra8Unorm,
        _ => return None,
    })
}

/// Compile one compute entry point.
pub(crate) fn compile_entry_point(
    module: &naga::Module,
    info: &ModuleInfo,
    source: Option<&str>,
    name: &str,
    ep_index: usize,
    coherent_members: &CoherentMembers,
    float_layers: bool,
) -> R<Program> {
    let mut layouter = Layouter::default();
    layouter.update(module.to_ctx()).map_err(|e| ShaderError::Validation {
        name: name.to_string(),
        message: format!("layout: {e}"),
    })?;
    let ep = &module.entry_points[ep_index];
    let mut c = Compiler {
        module,
        info,
        coherent_members,
        float_layers,
        layouter,
        source,
        name,
        code: Vec::new(),
        inlined_calls: 0,
        num_regs: 0,
        num_masks: 1,
        lane_words: 0,
        workgroup_words: 0,
        push_bytes: 0,
        consts: Vec::new(),
        inputs: Vec::new(),
        io_inputs: Vec::new(),
        io_outputs: Vec::new(),
        stage: match ep.stage {
            naga::ShaderStage::Vertex => ShaderStage::Vertex,
            naga::ShaderStage::Fragment => ShaderStage::Fragment,
            _ => ShaderStage::Compute,
        },
        case_values: Vec::new(),
        globals: Vec::new(),
        bindings: Vec::new(),
        depth: 0,
        stmt_span: Span::default(),
        fn_name: ep.name.clone(),
    };
    c.entry(ep_index)?;
    // Which bindings the entry point stores to (plain or atomic): the others are only read,
    // whatever their declared access, which is how synchronization validation classifies them.
    // And which it accesses only atomically: their accesses are never a data race among
    // themselves, so a hazard detector that knows no bytes can still tell.
    let mut plain = vec![false; c.bindings.len()];
    let mut atomic = vec![false; c.bindings.len()];
    for op in &c.code {
        if let Op::Image(ImageArgs { op: ImageOp::Store, image, .. }) = *op
            && let Some(b) = c.bindings.get_mut(image as usize)
        {
            b.written = true;
        }
        let (i, store, is_atomic) = match *op {
            Op::Store { space: Space::Buffer(i), atomic, .. } => (i, true, atomic),
            Op::Atomic { space: Space::Buffer(i), .. } => (i, true, true),
            Op::Load { space: Space::Buffer(i), atomic, .. } => (i, false, atomic),
            _ => continue,
        };
        let i = i as usize;
        if let Some(b) = c.bindings.get_mut(i) {
            b.written |= store;
            if is_atomic { atomic[i] = true } else { plain[i] = true }
        }
    }
    for (i, b) in c.bindings.iter_mut().enumerate() {
        b.atomic_only = atomic[i] && !plain[i];
    }
    let stage = c.stage;
    Ok(Program {
        name: name.to_string(),
        entry_point: ep.name.clone(),
        stage,
        io_inputs: c.io_inputs,
        io_outputs: c.io_outputs,
        // A vertex or fragment wave's invocations are the caller's: one per lane given.
        workgroup_size: if stage == ShaderStage::Compute { ep.workgroup_size } else { [1, 1, 1] },
        code: c.code,
        num_regs: c.num_regs,
        num_masks: c.num_masks,
        lane_words: c.lane_words,
        workgroup_words: c.workgroup_words,
        push_constant_bytes: c.push_bytes,
        bindings: c.bindings,
        consts: c.consts,
        inputs: c.inputs,
        case_values: c.case_values,
    })
}

impl<'m> Compiler<'m> {
    // ----- errors and locations -------------------------------------------------------------

    fn span_loc(&self, span: Span) -> Option<String> {
        match self.source {
            Some(src) if span.is_defined() && (span.to_range()?.end <= src.len()) => {
                let l = span.location(src);
                Some(format!("{}:{}", l.line_number, l.line_position))
            }
            _ => None,
        }
    }

    fn unsupported_at(&self, construct: impl Into<String>, span: Span, fallback: String) -> ShaderError {
        let location = self.span_loc(span).unwrap_or(fallback);
        ShaderError::Unsupported { name: self.name.to_string(), construct: construct.into(), location }
    }

    fn unsupported_expr(&self, ix: &Inst, h: Handle<naga::Expression>, construct: impl Into<String>) -> ShaderError {
        let span = ix.func.expressions.get_span(h);
        let fallback = format!("function `{}`, expression [{}]", self.fn_name, h.index());
        self.unsupported_at(construct, span, fallback)
    }

    fn unsupported_stmt(&self, construct: impl Into<String>) -> ShaderError {
        let fallback = format!("function `{}`", self.fn_name);
        self.unsupported_at(construct, self.stmt_span, fallback)
    }

    fn internal(&self, what: &str) -> ShaderError {
        ShaderError::Internal(format!("{what} in function `{}`", self.fn_name))
    }

    // ----- allocation ------------------------------------------------------------------------

    fn alloc(&mut self, n: u32) -> Reg {
        let r = self.num_regs;
        // Saturating: past `MAX_REGISTERS` the expression being compiled is refused (see `expr`)
        // before any register number is used.
        self.num_regs = self.num_regs.saturating_add(n.max(1));
        r
    }

    fn mask(&mut self) -> u32 {
        let m = self.num_masks;
        self.num_masks += 1;
        m
    }

    fn emit(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.code.len() - 1
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, to: u32) {
        match &mut self.code[at] {
            Op::IfBegin { target, .. }
            | Op::Else { target, .. }
            | Op::Leave { target, .. }
            | Op::JumpIfAny { target }
            | Op::JumpIfNone { target }
            | Op::CaseBegin { target, .. } => *target = to,
            _ => {}
        }
    }

    fn patch_all(&mut self, list: &[usize], to: u32) {
        for &at in list {
            self.patch(at, to);
        }
    }

    fn constant(&mut self, words: Vec<u32>) -> Reg {
        let r = self.alloc(words.len() as u32);
        self.consts.push((r, words));
        r
    }

    // ----- types -----------------------------------------------------------------------------

    fn inner(&self, h: Handle<naga::Type>) -> &'m TypeInner {
        &self.module.types[h].inner
    }

    fn expr_ty(&self, ix: &Inst<'m>, h: Handle<naga::Expression>) -> &'m TypeInner {
        ix.finfo[h].ty.inner_with(&self.module.types)
    }

    fn scalar_of(&self, t: &TypeInner) -> Option<naga::Scalar> {
        match *t {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => Some(s),
            TypeInner::Vector { scalar, .. } | TypeInner::Matrix { scalar, .. } => Some(scalar),
            TypeInner::ValuePointer { scalar, .. } => Some(scalar),
            TypeInner::Array { base, .. } => self.scalar_of(self.inner(base)),
            _ => None,
        }
    }

    /// Number of 32-bit components of a value of this type.
    fn comps(&self, t: &TypeInner) -> Option<u32> {
        Some(match *t {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => {
                kind_of(s)?;
                1
            }
            TypeInner::Vector { size, scalar } => {
                kind_of(scalar)?;
                vsize(size)
            }
            TypeInner::Matrix { columns, rows, scalar } => {
                if kind_of(scalar)? != Kind::F32 {
                    return None;
                }
                vsize(columns) * vsize(rows)
            }
            TypeInner::Array { base, size: naga::ArraySize::Constant(n), .. } => {
                self.comps(self.inner(base))?.checked_mul(n.get())?
            }
            TypeInner::Struct { ref members, .. } => {
                let mut sum = 0u32;
                for m in members {
                    sum = sum.checked_add(self.comps(self.inner(m.ty))?)?;
                }
                sum
            }
            _ => return None,
        })
    }

    /// About how many components a value of this type has, without overflow: [`Compiler::comps`]
    /// where that is defined, any other leaf counted as one. For refusing huge values before
    /// their registers or constants are built.
    fn value_words(&self, t: &TypeInner, depth: u32) -> u64 {
        match *t {
            // Deeper than any type naga lets through; counted as too big rather than recursing on.
            _ if depth > 64 => u64::MAX,
            TypeInner::Vector { size, .. } => u64::from(vsize(size)),
            TypeInner::Matrix { columns, rows, .. } => u64::from(vsize(columns) * vsize(rows)),
            TypeInner::Array { base, size: naga::ArraySize::Constant(n), .. } => self.value_words(self.inner(base), depth + 1).saturating_mul(u64::from(n.get())),
            TypeInner::Struct { ref members, .. } => members.iter().fold(0u64, |sum, m| sum.saturating_add(self.value_words(self.inner(m.ty), depth + 1))),
            _ => 1,
        }
    }

    fn kind_ty(&self, t: &TypeInner) -> Option<Kind> {
        kind_of(self.scalar_of(t)?)
    }

    fn size_h(&self, h: Handle<naga::Type>) -> u32 {
        self.layouter[h].size
    }

    /// Byte size of a variable in the interpreter's own memory (function, private, workgroup):
    /// naga's layout, except that a bool takes a whole 32-bit word like every other scalar here
    /// (naga lays bools out as single bytes, but loads and stores move words). `None` for an
    /// array or struct holding bools, whose member offsets would disagree with that.
    fn internal_size(&self, h: Handle<naga::Type>) -> Option<u32> {
        let is_bool = |s: naga::Scalar| s.kind == naga::ScalarKind::Bool;
        match *self.inner(h) {
            TypeInner::Scalar(s) if is_bool(s) => Some(4),
            TypeInner::Vector { size, scalar } if is_bool(scalar) => Some(4 * vsize(size)),
            _ if self.holds_bool(h, 0) => None,
            _ => Some(self.size_h(h)),
        }
    }

    fn holds_bool(&self, h: Handle<naga::Type>, depth: u32) -> bool {
        if depth > 64 {
            return true;
        }
        match *self.inner(h) {
            TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => s.kind == naga::ScalarKind::Bool,
            TypeInner::Array { base, .. } => self.holds_bool(base, depth + 1),
            TypeInner::Struct { ref members, .. } => members.iter().any(|m| self.holds_bool(m.ty, depth + 1)),
            _ => false,
        }
    }

    /// The contiguous scalar/vector pieces of a type: (byte offset, first component, count).
    fn leaves(&self, t: &TypeInner, off: u32, comp: u32, out: &mut Vec<(u32, u32, u32)>) -> Option<()> {
        match *t {
            TypeInner::Scalar(_) | TypeInner::Atomic(_) => out.push((off, comp, 1)),
            TypeInner::Vector { size, .. } => out.push((off, comp, vsize(size))),
            TypeInner::Matrix { columns, rows, .. } => {
                for i in 0..vsize(columns) {
                    out.push((off + i * col_stride(rows), comp + i * vsize(rows), vsize(rows)));
                }
            }
            TypeInner::Array { base, size: naga::ArraySize::Constant(n), stride } => {
                let et = self.inner(base);
                let ec = self.comps(et)?;
                for i in 0..n.get() {
                    self.leaves(et, off.checked_add(i.checked_mul(stride)?)?, comp + i * ec, out)?;
                }
            }
            TypeInner::Struct { ref members, .. } => {
                let mut c = comp;
                for m in members {
                    let mt = self.inner(m.ty);
                    self.leaves(mt, off.checked_add(m.offset)?, c, out)?;
                    c += self.comps(mt)?;
                }
            }
            _ => return None,
        }
        Some(())
    }

    // ----- constants -------------------------------------------------------------------------

    fn literal(&self, l: &naga::Literal) -> Option<Vec<u32>> {
        use naga::Literal as L;
        Some(vec![match *l {
            L::F32(v) => v.to_bits(),
            L::I32(v) => v as u32,
            L::U32(v) => v,
            L::Bool(v) => v as u32,
            L::AbstractInt(v) => i32::try_from(v).ok()? as u32,
            L::AbstractFloat(v) => (v as f32).to_bits(),
            _ => return None,
        }])
    }

    fn zero(&self, ty: Handle<naga::Type>) -> Option<Vec<u32>> {
        let n = self.comps(self.inner(ty)).filter(|&n| n <= MAX_VALUE_WORDS)?;
        Some(vec![0; n as usize])
    }

    /// Evaluate a module-scope constant expression to its components.
    fn const_global(&self, h: Handle<naga::Expression>, depth: u32) -> Option<Vec<u32>> {
        if depth > 64 {
            return None;
        }
        use naga::Expression as E;
        match self.module.global_expressions[h] {
            E::Literal(ref l) => self.literal(l),
            E::Constant(c) => self.const_global(self.module.constants[c].init, depth + 1),
            E::ZeroValue(ty) => self.zero(ty),
            E::Compose { ref components, .. } => {
                let mut v = Vec::new();
                for &c in components {
                    v.extend(self.const_global(c, depth + 1)?);
                }
                Some(v)
            }
            E::Splat { size, value } => {
                let v = self.const_global(value, depth + 1)?;
                Some(v.repeat(vsize(size) as usize))
            }
            _ => None,
        }
    }

    /// Evaluate a function-scope constant expression, if it is one.
    fn const_local(&self, ix: &Inst<'m>, h: Handle<naga::Expression>, depth: u32) -> Option<Vec<u32>> {
        if depth > 64 {
            return None;
        }
        use naga::Expression as E;
        match ix.func.expressions[h] {
            E::Literal(ref l) => self.literal(l),
            E::Constant(c) => self.const_global(self.module.constants[c].init, 0),
            E::ZeroValue(ty) => self.zero(ty),
            E::Compose { ref components, .. } => {
                let mut v = Vec::new();
                for &c in components {
                    v.extend(self.const_local(ix, c, depth + 1)?);
                }
                Some(v)
            }
            E::Splat { size, value } => {
                let v = self.const_local(ix, value, depth + 1)?;
                Some(v.repeat(vsize(size) as usize))
            }
            _ => None,
        }
    }

    // ----- entry point -----------------------------------------------------------------------

    fn entry(&mut self, ep_index: usize) -> R<()> {
        let module = self.module;
        let ep = &module.entry_points[ep_index];
        if !matches!(ep.stage, naga::ShaderStage::Compute | naga::ShaderStage::Vertex | naga::ShaderStage::Fragment) {
            return Err(self.unsupported_at(format!("{:?} entry point", ep.stage), Span::default(), format!("entry point `{}`", ep.name)));
        }
        if ep.workgroup_size_overrides.is_some() {
            return Err(self.unsupported_at(
                "workgroup size set by an override",
                Span::default(),
                format!("entry point `{}`", ep.name),
            ));
        }
        // naga lays an array sized by an override out as empty, so every access to it would
        // be out of bounds: refused, as other uses of overrides are.
        for (h, ty) in self.module.types.iter() {
            if let TypeInner::Array { size: naga::ArraySize::Pending(_), .. } = ty.inner {
                // Types carry no place in the source; the variable declared with it does.
                let module = self.module;
                let locals = module.functions.iter().map(|(_, f)| f).chain(module.entry_points.iter().map(|e| &e.function)).flat_map(|f| f.local_variables.iter().map(move |(l, v)| (v, f.local_variables.get_span(l))));
                let declared = module.global_variables.iter().map(|(g, v)| (v.ty, v.name.clone(), module.global_variables.get_span(g))).chain(locals.map(|(v, span)| (v.ty, v.name.clone(), span))).find(|(t, _, _)| *t == h);
                let (span, fallback) = match declared {
                    Some((_, name, span)) => (span, format!("variable `{}`", name.unwrap_or_default())),
                    None => (module.types.get_span(h), "a type of the module".to_string()),
                };
                return Err(self.unsupported_at("array sized by a pipeline-overridable constant", span, fallback));
            }
        }
        let finfo = self.info.get_entry_point(ep_index);
        self.place_globals(finfo)?;

        // Built-in inputs.
        let mut args = Vec::new();
        for (i, a) in ep.function.arguments.iter().enumerate() {
            let t = self.inner(a.ty);
            let n = self.comps(t).ok_or_else(|| {
                self.unsupported_at("entry point argument type", Span::default(), format!("argument {i} of `{}`", ep.name))
            })?;
            let r = self.alloc(n);
            match (&a.binding, t) {
                (Some(b), _) => {
                    let input = self.stage_input(b, a.ty, &ep.name)?;
                    self.inputs.push((r, input));
                }
                (None, TypeInner::Struct { members, .. }) => {
                    let mut c = r;
                    for m in members {
                        let b = m.binding.as_ref().ok_or_else(|| self.internal("entry argument member without binding"))?;
                        let input = self.stage_input(b, m.ty, &ep.name)?;
                        self.inputs.push((c, input));
                        c += self.comps(self.inner(m.ty)).unwrap_or(1);
                    }
                }
                _ => return Err(self.internal("entry argument without binding")),
            }
            args.push(Val::Reg(r));
        }

        // Private variables start at their initialisers (or zero) in every invocation.
        for (g, var) in module.global_variables.iter() {
            if let GlobalLoc::Lane { base } = self.globals[g.index()] {
                let n = self.internal_size(var.ty).unwrap_or(0) / 4;
                let src = match var.init {
                    Some(init) => {
                        let words = self.const_global(init, 0).ok_or_else(|| {
                            self.unsupported_at("private variable initialiser", module.global_variables.get_span(g), format!("global `{}`", var.name.clone().unwrap_or_default()))
                        })?;
                        self.init_words(var.ty, words)
                    }
                    None => NO_REG,
                };
                self.emit(Op::InitLane { word: base / 4, src, n });
            }
        }

        let ret = self.mask();
        self.emit(Op::ClearMask { slot: ret });
        let mut ix = self.instance(&ep.function, finfo, args)?;
        // A vertex or fragment entry point's result: its outputs, laid out in words.
        if let Some(result) = &ep.function.result {
            let t = self.inner(result.ty);
            let n = self.comps(t).ok_or_else(|| self.unsupported_at("entry point result type", Span::default(), format!("entry point `{}`", ep.name)))?;
            let r = self.alloc(n);
            ix.result = Some(r);
            match (&result.binding, t) {
                (Some(b), _) => self.stage_output(r, b, result.ty, &ep.name)?,
                (None, TypeInner::Struct { members, .. }) => {
                    let mut c = r;
                    for m in members {
                        let b = m.binding.as_ref().ok_or_else(|| self.internal("entry result member without binding"))?;
                        self.stage_output(c, b, m.ty, &ep.name)?;
                        c += self.comps(self.inner(m.ty)).unwrap_or(1);
                    }
                }
                _ => return Err(self.internal("entry result without binding")),
            }
        }
        let mut exits = Vec::new();
        self.block(&mut ix, &ep.function.body, Flow { brk: ZERO_MASK, cont: ZERO_MASK, ret }, &mut exits)?;
        let end = self.here();
        self.patch_all(&exits, end);
        self.emit(Op::Done);
        Ok(())
    }

    /// Constant components laid out as memory words (struct padding and matrix column padding
    /// respected) for initialising lane memory: as many words as [`Op::InitLane`] copies, the
    /// variable's [`Compiler::internal_size`] (naga's layout gives a bool one byte, which
    /// rounded down to no word at all and left `true` initialisers reading as `false`).
    fn init_words(&mut self, ty: Handle<naga::Type>, comps: Vec<u32>) -> Reg {
        let size = self.internal_size(ty).unwrap_or_else(|| self.size_h(ty));
        let mut words = vec![0u32; (size / 4) as usize];
        let mut leaves = Vec::new();
        if self.leaves(self.inner(ty), 0, 0, &mut leaves).is_some() {
            for (off, comp, n) in leaves {
                for k in 0..n {
                    if let (Some(w), Some(&v)) = (words.get_mut((off / 4 + k) as usize), comps.get((comp + k) as usize)) {
                        *w = v;
                    }
                }
            }
        }
        self.constant(words)
    }

    /// The IO description of a value of type `ty` bound to `b` at word `word`.
    fn io_var(&self, b: &naga::Binding, ty: Handle<naga::Type>, word: u32, ep: &str, output: bool) -> R<IoVar> {
        use naga::BuiltIn as B;
        let (components, scalar) = match *self.inner(ty) {
            TypeInner::Scalar(s) => (1, s),
            TypeInner::Vector { size, scalar } => (vsize(size), scalar),
            _ => return Err(self.unsupported_at("entry point input or output that is not a scalar or vector", Span::default(), format!("entry point `{ep}`"))),
        };
        let scalar = match kind_of(scalar) {
            Some(Kind::F32) => IoScalar::Float,
            Some(Kind::U32) => IoScalar::Uint,
            Some(Kind::I32) => IoScalar::Sint,
            Some(Kind::Bool) => IoScalar::Bool,
            None => return Err(self.unsupported_at("entry point input or output of a type other than 32-bit", Span::default(), format!("entry point `{ep}`"))),
        };
        let (binding, interpolation) = match *b {
            naga::Binding::Location { location, interpolation, sampling, .. } => {
                if matches!(sampling, Some(naga::Sampling::Sample)) {
                    return Err(self.unsupported_at("per-sample interpolation (multisampling)", Span::default(), format!("location {location} of entry point `{ep}`")));
                }
                let i = match interpolation {
                    Some(naga::Interpolation::Flat) => Interpolation::Flat,
                    Some(naga::Interpolation::Linear) => Interpolation::Linear,
                    _ if scalar != IoScalar::Float => Interpolation::Flat,
                    _ => Interpolation::Perspective,
                };
                (IoBinding::Location(location), i)
            }
            naga::Binding::BuiltIn(B::Position { .. }) => (IoBinding::Position, Interpolation::Linear),
            naga::Binding::BuiltIn(B::VertexIndex) if !output && self.stage == ShaderStage::Vertex => (IoBinding::VertexIndex, Interpolation::Flat),
            naga::Binding::BuiltIn(B::InstanceIndex) if !output && self.stage == ShaderStage::Vertex => (IoBinding::InstanceIndex, Interpolation::Flat),
            naga::Binding::BuiltIn(B::FrontFacing) if !output && self.stage == ShaderStage::Fragment => (IoBinding::FrontFacing, Interpolation::Flat),
            naga::Binding::BuiltIn(B::FragDepth) if output && self.stage == ShaderStage::Fragment => (IoBinding::FragDepth, Interpolation::Flat),
            naga::Binding::BuiltIn(other) => {
                return Err(self.unsupported_at(format!("built-in {other:?} as a {} {}", self.stage.vk_name().to_lowercase(), if output { "output" } else { "input" }), Span::default(), format!("entry point `{ep}`")));
            }
        };
        Ok(IoVar { binding, components, scalar, interpolation, word })
    }

    /// The input bound to `b`: a compute built-in, or words of a vertex or fragment
    /// invocation's inputs (recorded in [`Compiler::io_inputs`]).
    fn stage_input(&mut self, b: &naga::Binding, ty: Handle<naga::Type>, ep: &str) -> R<Input> {
        if self.stage == ShaderStage::Compute {
            return self.input(b, ep);
        }
        let word = self.io_inputs.iter().map(|v| v.word + v.components).max().unwrap_or(0);
        let var = self.io_var(b, ty, word, ep, false)?;
        self.io_inputs.push(var);
        Ok(Input::Lane { word, n: var.components })
    }

    /// Records the output bound to `b`, held in register `r` at the end.
    fn stage_output(&mut self, r: Reg, b: &naga::Binding, ty: Handle<naga::Type>, ep: &str) -> R<()> {
        let word = self.io_outputs.iter().map(|(_, v)| v.word + v.components).max().unwrap_or(0);
        let var = self.io_var(b, ty, word, ep, true)?;
        self.io_outputs.push((r, var));
        Ok(())
    }

    fn input(&self, b: &naga::Binding, ep: &str) -> R<Input> {
        use naga::BuiltIn as B;
        Ok(match *b {
            naga::Binding::BuiltIn(B::GlobalInvocationId) => Input::GlobalInvocationId,
            naga::Binding::BuiltIn(B::LocalInvocationId) => Input::LocalInvocationId,
            naga::Binding::BuiltIn(B::LocalInvocationIndex) => Input::LocalInvocationIndex,
            naga::Binding::BuiltIn(B::WorkGroupId) => Input::WorkGroupId,
            naga::Binding::BuiltIn(B::NumWorkGroups) => Input::NumWorkGroups,
            naga::Binding::BuiltIn(B::WorkGroupSize) => Input::WorkGroupSize,
            naga::Binding::BuiltIn(B::SubgroupSize) => Input::SubgroupSize,
            naga::Binding::BuiltIn(B::SubgroupInvocationId) => Input::SubgroupInvocationId,
            naga::Binding::BuiltIn(B::NumSubgroups) => Input::NumSubgroups,
            naga::Binding::BuiltIn(B::SubgroupId) => Input::SubgroupId,
            ref other => {
                return Err(self.unsupported_at(format!("entry point input {other:?}"), Span::default(), format!("entry point `{ep}`")));
            }
        })
    }

    fn place_globals(&mut self, finfo: &FunctionInfo) -> R<()> {
        let module = self.module;
        let mut buffers = Vec::new();
        for (g, var) in module.global_variables.iter() {
            let loc = if finfo[g].is_empty() {
                GlobalLoc::Unused
            } else {
                let size = match var.space {
                    naga::AddressSpace::Private | naga::AddressSpace::WorkGroup => match self.internal_size(var.ty) {
                        Some(size) => size,
                        None => {
                            return Err(self.unsupported_at(
                                "bool inside an array or struct in private or workgroup memory",
                                module.global_variables.get_span(g),
                                format!("global `{}`", var.name.clone().unwrap_or_default()),
                            ));
                        }
                    },
                    _ => self.size_h(var.ty),
                };
                let too_big = |what: String| (what, module.global_variables.get_span(g), format!("global `{}`", var.name.clone().unwrap_or_default()));
                let placed = match var.space {
                    naga::AddressSpace::Private => reserve(&mut self.lane_words, size, MAX_LANE_BYTES)
                        .map(|base| GlobalLoc::Lane { base })
                        .ok_or_else(|| too_big(format!("private memory beyond {MAX_LANE_BYTES} bytes per invocation ({size} more bytes after {})", self.lane_words * 4))),
                    naga::AddressSpace::WorkGroup => reserve(&mut self.workgroup_words, size, MAX_WORKGROUP_BYTES)
                        .map(|base| GlobalLoc::WorkGroup { base })
                        .ok_or_else(|| too_big(format!("workgroup memory beyond {MAX_WORKGROUP_BYTES} bytes ({size} more bytes after {})", self.workgroup_words * 4))),
                    _ => Ok(GlobalLoc::Unused),
                };
                let placed = placed.map_err(|(what, span, fallback)| self.unsupported_at(what, span, fallback))?;
                match var.space {
                    naga::AddressSpace::Private | naga::AddressSpace::WorkGroup => placed,
                    naga::AddressSpace::Immediate => {
                        self.push_bytes = size;
                        GlobalLoc::Push
                    }
                    naga::AddressSpace::Uniform | naga::AddressSpace::Storage { .. } => match var.binding {
                        Some(ref rb) => {
                            let kind = match var.space {
                                naga::AddressSpace::Storage { access } => BindingKind::StorageBuffer {
                                    read_only: !access.contains(naga::StorageAccess::STORE),
                                },
                                _ => BindingKind::UniformBuffer,
                            };
                            let runtime_stride = self.runtime_stride(self.inner(var.ty));
                            let coherent = matches!(kind, BindingKind::StorageBuffer { .. })
                                && var.memory_decorations.contains(naga::MemoryDecorations::COHERENT);
                            buffers.push((g, BindingInfo {
                                group: rb.group,
                                binding: rb.binding,
                                kind,
                                static_size: size,
                                runtime_stride,
                                name: var.name.clone(),
                                coherent,
                                written: false,
                                atomic_only: false,
                                coherent_ranges: match kind {
                                    BindingKind::StorageBuffer { .. } => self.coherent_members.get(&(rb.group, rb.binding)).cloned().unwrap_or_default(),
                                    _ => Vec::new(),
                                },
                            }));
                            GlobalLoc::Unused
                        }
                        None => GlobalLoc::Unsupported("buffer variable without a binding".into()),
                    },
                    naga::AddressSpace::Handle => {
                        let span = module.global_variables.get_span(g);
                        let fallback = || format!("global `{}`", var.name.clone().unwrap_or_default());
                        // Refused at the declaration: the type is what is unsupported, whichever
                        // expression uses it.
                        let kind = self.handle_kind(var.ty).map_err(|what| self.unsupported_at(what, span, fallback()))?;
                        let Some(ref rb) = var.binding else {
                            return Err(self.unsupported_at("texture or sampler without a binding", span, fallback()));
                        };
                        buffers.push((g, BindingInfo {
                            group: rb.group,
                            binding: rb.binding,
                            kind,
                            static_size: 0,
                            runtime_stride: None,
                            name: var.name.clone(),
                            coherent: false,
                            written: false,
                            atomic_only: false,
                            coherent_ranges: Vec::new(),
                        }));
                        GlobalLoc::Unused
                    }
                    other => GlobalLoc::Unsupported(format!("global variable in address space {other:?}")),
                }
            };
            self.globals.push(loc);
        }
        // An image and a sampler sharing a (group, binding) (a combined image sampler given as
        // two variables): the image first.
        buffers.sort_by_key(|(_, b)| (b.group, b.binding, b.kind == BindingKind::Sampler));
        for (i, (g, b)) in buffers.into_iter().enumerate() {
            let i = i as u32;
            self.globals[g.index()] = match b.kind {
                BindingKind::StorageBuffer { .. } | BindingKind::UniformBuffer => GlobalLoc::Buffer(i),
                BindingKind::SampledImage { .. } | BindingKind::StorageImage { .. } => GlobalLoc::Image(i),
                BindingKind::Sampler => GlobalLoc::Sampler(i),
            };
            self.bindings.push(b);
        }
        // Other unsupported globals are reported where an expression uses them, so the error
        // names the construct rather than the variable.
        Ok(())
    }

    /// The binding kind of an image or sampler variable's type, or what makes it unsupported.
    fn handle_kind(&self, ty: Handle<naga::Type>) -> Result<BindingKind, String> {
        use naga::{ImageClass as C, ImageDimension as D};
        Ok(match *self.inner(ty) {
            TypeInner::Image { dim, arrayed, class } => {
                let dim = match dim {
                    D::D1 => ImageDim::D1,
                    D::D2 => ImageDim::D2,
                    D::D3 => ImageDim::D3,
                    D::Cube => return Err(format!("cube texture (texture_cube{}, samplerCube)", if arrayed { "_array" } else { "" })),
                };
                match class {
                    C::Sampled { multi: true, .. } => return Err("multisampled texture (texture_multisampled_2d, texture2DMS)".into()),
                    C::Sampled { kind, multi: false } => {
                        let sample = match kind {
                            naga::ScalarKind::Float => SampleKind::Float,
                            naga::ScalarKind::Uint => SampleKind::Uint,
                            naga::ScalarKind::Sint => SampleKind::Sint,
                            other => return Err(format!("texture of {other:?} texels")),
                        };
                        BindingKind::SampledImage { dim, arrayed, sample }
                    }
                    C::Depth { .. } => return Err("depth texture (texture_depth_*: depth comparison is not supported)".into()),
                    C::External => return Err("external texture (texture_external)".into()),
                    C::Storage { format, access } => {
                        let format = storage_format(format).ok_or_else(|| {
                            let wgsl = format!("{format:?}").to_lowercase();
                            format!("storage texture format {wgsl} (supported: rgba8unorm, rgba8uint, rgba8sint, r32uint, r32sint, r32float, rg32float, rgba16float, rgba32float, rgba32uint, rgba32sint, bgra8unorm)")
                        })?;
                        use naga::StorageAccess as A;
                        let access = if access.contains(A::ATOMIC) {
                            return Err("storage texture with atomic access (texture atomics)".into());
                        } else if access.contains(A::LOAD | A::STORE) {
                            StorageAccess::ReadWrite
                        } else if access.contains(A::STORE) {
                            StorageAccess::Write
                        } else {
                            StorageAccess::Read
                        };
                        BindingKind::StorageImage { dim, arrayed, format, access }
                    }
                }
            }
            TypeInner::Sampler { comparison: true } => return Err("sampler_comparison (comparison sampler)".into()),
            TypeInner::Sampler { comparison: false } => BindingKind::Sampler,
            TypeInner::BindingArray { .. } => return Err("binding array of textures or samplers".into()),
            TypeInner::AccelerationStructure { .. } | TypeInner::RayQuery { .. } => return Err("acceleration structure (ray tracing)".into()),
            ref other => return Err(format!("handle of type {other:?}")),
        })
    }

    fn runtime_stride(&self, t: &TypeInner) -> Option<u32> {
        match *t {
            TypeInner::Array { size: naga::ArraySize::Dynamic, stride, .. } => Some(stride),
            TypeInner::Struct { ref members, .. } => members.last().and_then(|m| self.runtime_stride(self.inner(m.ty))),
            _ => None,
        }
    }

    fn instance(&mut self, func: &'m naga::Function, finfo: &'m FunctionInfo, args: Vec<Val>) -> R<Inst<'m>> {
        let mut ix = Inst { func, finfo, vals: vec![None; func.expressions.len()], args, locals: Vec::new(), result: None };
        // Locals: fresh lane memory per inlined instance, initialised on every entry.
        for (l, var) in func.local_variables.iter() {
            let Some(size) = self.internal_size(var.ty) else {
                let span = func.local_variables.get_span(l);
                return Err(self.unsupported_at("bool inside an array or struct in a local variable", span, format!("function `{}`", self.fn_name)));
            };
            let Some(base) = reserve(&mut self.lane_words, size, MAX_LANE_BYTES) else {
                let span = func.local_variables.get_span(l);
                let construct = format!("private and function memory beyond {MAX_LANE_BYTES} bytes per invocation ({size} more bytes after {}; every inlined call has its own locals)", self.lane_words * 4);
                return Err(self.unsupported_at(construct, span, format!("function `{}`", self.fn_name)));
            };
            ix.locals.push(base);
            let src = match var.init {
                Some(init) => match self.const_local(&ix, init, 0) {
                    Some(words) => self.init_words(var.ty, words),
                    None => {
                        let span = func.local_variables.get_span(l);
                        return Err(self.unsupported_at("non-constant local variable initialiser", span, format!("function `{}`", self.fn_name)));
                    }
                },
                None => NO_REG,
            };
            self.emit(Op::InitLane { word: base / 4, src, n: size / 4 });
        }
        Ok(ix)
    }

    // ----- statements ------------------------------------------------------------------------

    fn block(&mut self, ix: &mut Inst<'m>, block: &'m naga::Block, flow: Flow, exits: &mut Vec<usize>) -> R<()> {
        for (stmt, span) in block.span_iter() {
            self.stmt_span = *span;
            self.statement(ix, stmt, flow, exits)?;
        }
        Ok(())
    }

    fn statement(&mut self, ix: &mut Inst<'m>, stmt: &'m naga::Statement, flow: Flow, exits: &mut Vec<usize>) -> R<()> {
        use naga::Statement as S;
        match *stmt {
            S::Emit(ref range) => {
                for h in range.clone() {
                    self.expr(ix, h)?;
                }
            }
            S::Block(ref b) => self.block(ix, b, flow, exits)?,
            S::If { condition, ref accept, ref reject } => {
                let cond = self.reg(ix, condition)?;
                let entry = self.mask();
                let then = self.mask();
                self.emit(Op::SaveExec { slot: entry });
                let begin = self.emit(Op::IfBegin { cond, then, target: 0 });
                let mut ex_then = vec![begin];
                self.block(ix, accept, flow, &mut ex_then)?;
                let minus = [flow.brk, flow.cont, flow.ret];
                if !reject.is_empty() {
                    let else_at = self.here();
                    self.patch_all(&ex_then, else_at);
                    let e = self.emit(Op::Else { entry, then, minus, target: 0 });
                    let mut ex_else = vec![e];
                    self.block(ix, reject, flow, &mut ex_else)?;
                    let end = self.here();
                    self.patch_all(&ex_else, end);
                } else {
                    let end = self.here();
                    self.patch_all(&ex_then, end);
                }
                self.emit(Op::Restore { entry, minus });
                exits.push(self.emit(Op::JumpIfNone { target: 0 }));
            }
            S::Switch { selector, ref cases } => {
                let sel = self.reg(ix, selector)?;
                let entry = self.mask();
                let acc = self.mask();
                let sbrk = self.mask();
                self.emit(Op::SaveExec { slot: entry });
                self.emit(Op::ClearMask { slot: acc });
                self.emit(Op::ClearMask { slot: sbrk });
                let all_start = self.case_values.len() as u32;
                for case in cases {
                    match case.value {
                        naga::SwitchValue::I32(v) => self.case_values.push(v as u32),
                        naga::SwitchValue::U32(v) => self.case_values.push(v),
                        naga::SwitchValue::Default => {}
                    }
                }
                let all_len = self.case_values.len() as u32 - all_start;
                let inner = Flow { brk: sbrk, cont: flow.cont, ret: flow.ret };
                for case in cases {
                    let (start, len, default) = match case.value {
                        naga::SwitchValue::I32(v) => (self.push_case(v as u32), 1, false),
                        naga::SwitchValue::U32(v) => (self.push_case(v), 1, false),
                        naga::SwitchValue::Default => (all_start, all_len, true),
                    };
                    let begin = self.emit(Op::CaseBegin {
                        sel,
                        start,
                        len,
                        default,
                        acc,
                        entry,
                        minus: [sbrk, flow.cont, flow.ret],
                        target: 0,
                    });
                    let mut ex = vec![begin];
                    self.block(ix, &case.body, inner, &mut ex)?;
                    let end = self.here();
                    self.patch_all(&ex, end);
                    self.emit(Op::CaseEnd { acc, fall: case.fall_through });
                }
                self.emit(Op::Restore { entry, minus: [flow.cont, flow.ret, ZERO_MASK] });
                exits.push(self.emit(Op::JumpIfNone { target: 0 }));
            }
            S::Loop { ref body, ref continuing, break_if } => {
                let entry = self.mask();
                let brk = self.mask();
                let cont = self.mask();
                self.emit(Op::SaveExec { slot: entry });
                self.emit(Op::ClearMask { slot: brk });
                let top = self.here();
                self.emit(Op::ClearMask { slot: cont });
                let inner = Flow { brk, cont, ret: flow.ret };
                let mut ex_body = Vec::new();
                self.block(ix, body, inner, &mut ex_body)?;
                let cont_at = self.here();
                self.patch_all(&ex_body, cont_at);
                // Lanes that continued rejoin; lanes that broke or returned stay out.
                self.emit(Op::Restore { entry, minus: [brk, flow.ret, ZERO_MASK] });
                let mut ex_cont = Vec::new();
                self.block(ix, continuing, inner, &mut ex_cont)?;
                let bi = self.here();
                self.patch_all(&ex_cont, bi);
                if let Some(c) = break_if {
                    let cond = self.reg(ix, c)?;
                    self.emit(Op::BreakIf { cond, brk });
                }
                self.emit(Op::JumpIfAny { target: top });
                self.emit(Op::Restore { entry, minus: [flow.ret, ZERO_MASK, ZERO_MASK] });
                exits.push(self.emit(Op::JumpIfNone { target: 0 }));
            }
            S::Break => exits.push(self.emit(Op::Leave { slot: flow.brk, target: 0 })),
            S::Continue => exits.push(self.emit(Op::Leave { slot: flow.cont, target: 0 })),
            S::Return { value } => {
                if let Some(v) = value {
                    let src = self.reg(ix, v)?;
                    let n = self.comps(self.expr_ty(ix, v)).ok_or_else(|| self.internal("return type"))?;
                    let dst = ix.result.ok_or_else(|| self.internal("return value without result"))?;
                    self.emit(Op::CopyMasked { dst, src, n });
                }
                exits.push(self.emit(Op::Leave { slot: flow.ret, target: 0 }));
            }
            S::Kill if self.stage == ShaderStage::Fragment => {
                self.emit(Op::Kill);
                exits.push(self.emit(Op::Leave { slot: flow.ret, target: 0 }));
            }
            S::Kill => return Err(self.unsupported_stmt("statement `discard` (fragment shaders only)")),
            S::ControlBarrier(b) => {
                let flags = barrier_flags(b);
                // A subgroup runs in lockstep, so a barrier of subgroup scope only orders memory.
                // An empty flag set (GLSL's `barrier()` without memory semantics) still waits.
                let control = b != naga::Barrier::SUB_GROUP;
                self.emit(Op::Barrier { control, flags });
            }
            S::MemoryBarrier(b) => {
                self.emit(Op::Barrier { control: false, flags: barrier_flags(b) });
            }
            S::Store { pointer, value } => {
                let p = self.ptr(ix, pointer)?;
                let src = self.reg(ix, value)?;
                self.store(&p, src)?;
            }
            S::Atomic { pointer, ref fun, value, result } => {
                let p = self.ptr(ix, pointer)?;
                let signed = matches!(self.scalar_of(&p.ty), Some(naga::Scalar { kind: naga::ScalarKind::Sint, .. }));
                if !matches!(p.ty, TypeInner::Atomic(s) if s.width == 4) {
                    return Err(self.unsupported_stmt("atomic on a non-32-bit value"));
                }
                let value = self.reg(ix, value)?;
                use naga::AtomicFunction as A;
                let (afun, compare) = match *fun {
                    A::Add => (AtomicFun::Add, NO_REG),
                    A::Subtract => (AtomicFun::Sub, NO_REG),
                    A::And => (AtomicFun::And, NO_REG),
                    A::ExclusiveOr => (AtomicFun::Xor, NO_REG),
                    A::InclusiveOr => (AtomicFun::Or, NO_REG),
                    A::Min => (AtomicFun::Min, NO_REG),
                    A::Max => (AtomicFun::Max, NO_REG),
                    A::Exchange { compare: None } => (AtomicFun::Exchange, NO_REG),
                    A::Exchange { compare: Some(c) } => (AtomicFun::CompareExchange, self.reg(ix, c)?),
                };
                let dst = match result {
                    Some(r) => {
                        let d = self.alloc(if compare == NO_REG { 1 } else { 2 });
                        ix.vals[r.index()] = Some(Val::Reg(d));
                        d
                    }
                    None => NO_REG,
                };
                if !matches!(p.space, Space::Buffer(_) | Space::WorkGroup) {
                    return Err(self.unsupported_stmt("atomic outside storage or workgroup memory"));
                }
                self.emit(Op::Atomic {
                    space: p.space,
                    op: AtomicOp { fun: afun, signed },
                    dst,
                    value,
                    compare,
                    base: p.base,
                    root: p.root,
                    off: p.off,
                    dyn_off: p.dyn_off,
                });
            }
            S::WorkGroupUniformLoad { pointer, result } => {
                let p = self.ptr(ix, pointer)?;
                let flags = BarrierFlags { workgroup: true, ..Default::default() };
                self.emit(Op::Barrier { control: true, flags });
                let dst = self.load(&p)?;
                self.emit(Op::Barrier { control: true, flags });
                ix.vals[result.index()] = Some(Val::Reg(dst));
            }
            S::Call { function, ref arguments, result } => {
                self.call(ix, function, arguments, result)?;
            }
            S::ImageStore { image, coordinate, array_index, value } => {
                let image = self.image_of(ix, image)?;
                let coords = self.reg(ix, coordinate)?;
                let n = self.comps_of(ix, coordinate)?;
                let (layer, layer_kind) = self.layer(ix, array_index, false)?;
                let nv = self.comps_of(ix, value)?;
                let value = self.reg(ix, value)?;
                self.emit(Op::Image(ImageArgs { op: ImageOp::Store, image, dst: NO_REG, coords, n, layer, layer_kind, level: NO_REG, value, nv, auto_lod: false }));
            }
            S::ImageAtomic { .. } => return Err(self.unsupported_stmt("storage texture atomic (textureAtomic*)")),
            S::RayQuery { .. } => return Err(self.unsupported_stmt("ray query")),
            S::RayPipelineFunction(_) => return Err(self.unsupported_stmt("ray pipeline function")),
            S::SubgroupBallot { .. } => return Err(self.unsupported_stmt("subgroup operation subgroupBallot")),
            S::SubgroupGather { .. } => return Err(self.unsupported_stmt("subgroup gather/shuffle operation")),
            S::SubgroupCollectiveOperation { .. } => return Err(self.unsupported_stmt("subgroup collective operation")),
            S::CooperativeStore { .. } => return Err(self.unsupported_stmt("cooperative matrix store")),
        }
        Ok(())
    }

    fn push_case(&mut self, v: u32) -> u32 {
        self.case_values.push(v);
        self.case_values.len() as u32 - 1
    }

    fn call(
        &mut self,
        ix: &mut Inst<'m>,
        function: Handle<naga::Function>,
        arguments: &[Handle<naga::Expression>],
        result: Option<Handle<naga::Expression>>,
    ) -> R<()> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(self.unsupported_stmt("call chain deeper than 64"));
        }
        // Every call is inlined: a call tree can grow the code exponentially in its depth.
        self.inlined_calls += 1;
        if self.inlined_calls > MAX_INLINED_CALLS || self.code.len() > MAX_OPS {
            return Err(self.unsupported_stmt(format!("an entry point that inlines to more than {MAX_INLINED_CALLS} calls or {MAX_OPS} operations")));
        }
        let func = &self.module.functions[function];
        let finfo = &self.info[function];
        let mut args = Vec::with_capacity(arguments.len());
        for &a in arguments {
            args.push(self.expr(ix, a)?);
        }
        let saved_name = std::mem::replace(&mut self.fn_name, func.name.clone().unwrap_or_else(|| format!("function[{}]", function.index())));
        let saved_span = self.stmt_span;
        self.depth += 1;
        let call_mask = self.mask();
        self.emit(Op::SaveExec { slot: call_mask });
        let ret = self.mask();
        self.emit(Op::ClearMask { slot: ret });
        let mut callee = self.instance(func, finfo, args)?;
        if let Some(ref r) = func.result {
            let n = self.comps(self.inner(r.ty)).ok_or_else(|| self.unsupported_stmt("function result type"))?;
            callee.result = Some(self.alloc(n));
        }
        let mut exits = Vec::new();
        self.block(&mut callee, &func.body, Flow { brk: ZERO_MASK, cont: ZERO_MASK, ret }, &mut exits)?;
        let end = self.here();
        self.patch_all(&exits, end);
        // Every lane that made the call returns from it.
        self.emit(Op::SetExec { slot: call_mask });
        self.depth -= 1;
        self.fn_name = saved_name;
        self.stmt_span = saved_span;
        if let (Some(h), Some(r)) = (result, callee.result) {
            ix.vals[h.index()] = Some(Val::Reg(r));
        }
        Ok(())
    }

    // ----- memory ----------------------------------------------------------------------------

    fn load(&mut self, p: &Ptr) -> R<Reg> {
        let n = self.comps(&p.ty).ok_or_else(|| self.unsupported_stmt("load of this type"))?;
        let dst = self.alloc(n);
        let mut leaves = Vec::new();
        self.leaves(&p.ty, 0, 0, &mut leaves).ok_or_else(|| self.unsupported_stmt("load of this type"))?;
        let atomic = matches!(p.ty, TypeInner::Atomic(_));
        for (off, comp, n) in leaves {
            self.emit(Op::Load {
                space: p.space,
                dst: dst + comp,
                n,
                base: p.base,
                root: p.root,
                off: p.off.saturating_add(off),
                dyn_off: p.dyn_off,
                atomic,
            });
        }
        Ok(dst)
    }

    fn store(&mut self, p: &Ptr, src: Reg) -> R<()> {
        let mut leaves = Vec::new();
        self.leaves(&p.ty, 0, 0, &mut leaves).ok_or_else(|| self.unsupported_stmt("store of this type"))?;
        let atomic = matches!(p.ty, TypeInner::Atomic(_));
        for (off, comp, n) in leaves {
            self.emit(Op::Store {
                space: p.space,
                src: src + comp,
                n,
                base: p.base,
                root: p.root,
                off: p.off.saturating_add(off),
                dyn_off: p.dyn_off,
                atomic,
            });
        }
        Ok(())
    }

    // ----- expressions -----------------------------------------------------------------------

    fn reg(&mut self, ix: &mut Inst<'m>, h: Handle<naga::Expression>) -> R<Reg> {
        match self.expr(ix, h)? {
            Val::Reg(r) => Ok(r),
            Val::Ptr(_) => Err(self.unsupported_expr(ix, h, "pointer used as a value")),
            Val::Image(_) | Val::Sampler(_) => Err(self.unsupported_expr(ix, h, "texture or sampler used as a value")),
        }
    }

    fn ptr(&mut self, ix: &mut Inst<'m>, h: Handle<naga::Expression>) -> R<Ptr> {
        match self.expr(ix, h)? {
            Val::Ptr(p) => Ok(p),
            Val::Reg(_) | Val::Image(_) | Val::Sampler(_) => Err(self.unsupported_expr(ix, h, "value used as a pointer")),
        }
    }

    fn comps_of(&self, ix: &Inst<'m>, h: Handle<naga::Expression>) -> R<u32> {
        let t = self.expr_ty(ix, h);
        self.comps(t).ok_or_else(|| self.unsupported_expr(ix, h, format!("type {t:?} (only 32-bit bool/i32/u32/f32 scalars, vectors, f32 matrices, arrays and structs)")))
    }

    fn kind_of_expr(&self, ix: &Inst<'m>, h: Handle<naga::Expression>) -> R<Kind> {
        let t = self.expr_ty(ix, h);
        self.kind_ty(t).ok_or_else(|| self.unsupported_expr(ix, h, format!("type {t:?}")))
    }

    fn expr(&mut self, ix: &mut Inst<'m>, h: Handle<naga::Expression>) -> R<Val> {
        if let Some(v) = ix.vals.get(h.index()).and_then(|v| v.clone()) {
            return Ok(v);
        }
        let v = self.expr_uncached(ix, h)?;
        if self.num_regs > MAX_REGISTERS {
            return Err(self.unsupported_expr(ix, h, format!("entry point needing more than {MAX_REGISTERS} 32-bit registers per invocation (every value has its own)")));
        }
        if let Some(slot) = ix.vals.get_mut(h.index()) {
            *slot = Some(v.clone());
        }
        Ok(v)
    }

    fn expr_uncached(&mut self, ix: &mut Inst<'m>, h: Handle<naga::Expression>) -> R<Val> {
        use naga::Expression as E;
        let func = ix.func;
        let e = &func.expressions[h];
        // A value is registers in every lane: refuse a huge one before building anything for it.
        if self.value_words(self.expr_ty(ix, h), 0) > u64::from(MAX_VALUE_WORDS) {
            return Err(self.unsupported_expr(ix, h, format!("value of more than {MAX_VALUE_WORDS} 32-bit components (an array or struct held as a value lives in registers)")));
        }
        if let E::Literal(_) | E::Constant(_) | E::ZeroValue(_) | E::Compose { .. } | E::Splat { .. } = *e
            && let Some(words) = self.const_local(ix, h, 0)
        {
            return Ok(Val::Reg(self.constant(words)));
        }
        Ok(match *e {
            E::Literal(_) | E::Constant(_) | E::ZeroValue(_) => {
                return Err(self.unsupported_expr(ix, h, "constant of this type"));
            }
            E::Override(_) => return Err(self.unsupported_expr(ix, h, "pipeline-overridable constant")),
            E::Compose { ref components, .. } => {
                let n = self.comps_of(ix, h)?;
                let dst = self.alloc(n);
                let mut at = 0;
                let mut srcs = Vec::new();
                for &c in components {
                    srcs.push((self.reg(ix, c)?, self.comps_of(ix, c)?));
                }
                for (src, cn) in srcs {
                    self.emit(Op::Copy { dst: dst + at, src, n: cn });
                    at += cn;
                }
                Val::Reg(dst)
            }
            E::Splat { size, value } => {
                let src = self.reg(ix, value)?;
                let n = vsize(size);
                let dst = self.alloc(n);
                self.emit(Op::Splat { dst, src, n });
                Val::Reg(dst)
            }
            E::Swizzle { size, vector, pattern } => {
                let src = self.reg(ix, vector)?;
                let n = vsize(size);
                let dst = self.alloc(n);
                let pattern = [pattern[0] as u8, pattern[1] as u8, pattern[2] as u8, pattern[3] as u8];
                self.emit(Op::Swizzle { dst, src, n, pattern });
                Val::Reg(dst)
            }
            E::FunctionArgument(i) => ix.args.get(i as usize).cloned().ok_or_else(|| self.internal("argument index"))?,
            E::GlobalVariable(g) => {
                let var = &self.module.global_variables[g];
                let ty = self.inner(var.ty).clone();
                let size = self.internal_size(var.ty).unwrap_or_else(|| self.size_h(var.ty));
                let (space, base, root) = match self.globals.get(g.index()).cloned().unwrap_or(GlobalLoc::Unused) {
                    GlobalLoc::Lane { base } => (Space::Lane, base, size),
                    GlobalLoc::WorkGroup { base } => (Space::WorkGroup, base, size),
                    GlobalLoc::Push => (Space::Push, 0, size),
                    GlobalLoc::Buffer(b) => (Space::Buffer(b), 0, BOUND_SIZE),
                    GlobalLoc::Image(b) => return Ok(Val::Image(b)),
                    GlobalLoc::Sampler(b) => return Ok(Val::Sampler(b)),
                    GlobalLoc::Unsupported(what) => return Err(self.unsupported_expr(ix, h, what)),
                    GlobalLoc::Unused => return Err(self.internal("use of a global the validator saw as unused")),
                };
                Val::Ptr(Ptr { space, base, root, off: 0, dyn_off: NO_REG, ty })
            }
            E::LocalVariable(l) => {
                let var = &func.local_variables[l];
                let base = *ix.locals.get(l.index()).ok_or_else(|| self.internal("local index"))?;
                let root = self.internal_size(var.ty).unwrap_or_else(|| self.size_h(var.ty));
                Val::Ptr(Ptr { space: Space::Lane, base, root, off: 0, dyn_off: NO_REG, ty: self.inner(var.ty).clone() })
            }
            E::Load { pointer } => {
                let p = self.ptr(ix, pointer)?;
                Val::Reg(self.load(&p)?)
            }
            E::Access { base, index } => {
                let idx = self.reg(ix, index)?;
                match self.expr(ix, base)? {
                    Val::Ptr(p) => {
                        let (ety, stride) = self.element(&p.ty).ok_or_else(|| self.unsupported_expr(ix, h, "dynamic index into this type"))?;
                        let dst = self.alloc(1);
                        self.emit(Op::Addr { dst, base: p.dyn_off, index: idx, stride });
                        Val::Ptr(Ptr { dyn_off: dst, ty: ety, ..p })
                    }
                    Val::Reg(b) => {
                        let bt = self.expr_ty(ix, base);
                        let (elem, count) = match *bt {
                            TypeInner::Vector { size, .. } => (1, vsize(size)),
                            TypeInner::Matrix { columns, rows, .. } => (vsize(rows), vsize(columns)),
                            TypeInner::Array { base: eb, size: naga::ArraySize::Constant(n), .. } => {
                                (self.comps(self.inner(eb)).ok_or_else(|| self.unsupported_expr(ix, h, "array element type"))?, n.get())
                            }
                            _ => return Err(self.unsupported_expr(ix, h, "dynamic index into this value")),
                        };
                        let dst = self.alloc(elem);
                        self.emit(Op::DynIndex { dst, base: b, index: idx, elem, count });
                        Val::Reg(dst)
                    }
                    Val::Image(_) | Val::Sampler(_) => return Err(self.unsupported_expr(ix, h, "index into a texture or sampler")),
                }
            }
            E::AccessIndex { base, index } => match self.expr(ix, base)? {
                Val::Ptr(p) => {
                    let (ety, off) = self.member(&p.ty, index).ok_or_else(|| self.unsupported_expr(ix, h, "constant index into this type"))?;
                    Val::Ptr(Ptr { off: p.off.saturating_add(off), ty: ety, ..p })
                }
                Val::Reg(b) => {
                    let bt = self.expr_ty(ix, base);
                    let comp = self.member_comp(bt, index).ok_or_else(|| self.unsupported_expr(ix, h, "constant index into this value"))?;
                    // A component of a value is an alias of its registers: no code.
                    Val::Reg(b + comp)
                }
                Val::Image(_) | Val::Sampler(_) => return Err(self.unsupported_expr(ix, h, "index into a texture or sampler")),
            },
            E::Unary { op, expr } => {
                let a = self.reg(ix, expr)?;
                let n = self.comps_of(ix, expr)?;
                let kind = self.kind_of_expr(ix, expr)?;
                let op = match op {
                    naga::UnaryOperator::Negate => UnOp::Neg,
                    naga::UnaryOperator::LogicalNot => UnOp::LogicalNot,
                    naga::UnaryOperator::BitwiseNot => UnOp::Not,
                };
                let dst = self.alloc(n);
                self.emit(Op::Un { op, kind, dst, a, n });
                Val::Reg(dst)
            }
            E::Binary { op, left, right } => self.binary(ix, h, op, left, right)?,
            E::Select { condition, accept, reject } => {
                let cond = self.reg(ix, condition)?;
                let a = self.reg(ix, accept)?;
                let b = self.reg(ix, reject)?;
                let n = self.comps_of(ix, accept)?;
                let sc = self.comps_of(ix, condition)? == 1 && n > 1;
                let dst = self.alloc(n);
                self.emit(Op::Select { dst, cond, a, b, n, sc });
                Val::Reg(dst)
            }
            E::Relational { fun, argument } => {
                let a = self.reg(ix, argument)?;
                let n = self.comps_of(ix, argument)?;
                let kind = self.kind_of_expr(ix, argument)?;
                use naga::RelationalFunction as F;
                match fun {
                    F::All | F::Any => {
                        let dst = self.alloc(1);
                        let f = if fun == F::All { LaneFn::All } else { LaneFn::Any };
                        self.emit(Op::Lane { f, kind, dst, a, b: NO_REG, c: NO_REG, d: NO_REG, n });
                        Val::Reg(dst)
                    }
                    F::IsNan | F::IsInf => {
                        let dst = self.alloc(n);
                        let op = if fun == F::IsNan { UnOp::IsNan } else { UnOp::IsInf };
                        self.emit(Op::Un { op, kind, dst, a, n });
                        Val::Reg(dst)
                    }
                }
            }
            E::Math { fun, arg, arg1, arg2, arg3 } => self.math(ix, h, fun, arg, arg1, arg2, arg3)?,
            E::As { expr, kind, convert } => {
                let src = self.reg(ix, expr)?;
                let from = self.kind_of_expr(ix, expr)?;
                let n = self.comps_of(ix, expr)?;
                let to = kind_of(naga::Scalar { kind, width: convert.unwrap_or(4) }).ok_or_else(|| self.unsupported_expr(ix, h, "conversion to a non-32-bit type"))?;
                if convert.is_none() || from == to {
                    // A bitcast changes only how later operations read the bits.
                    Val::Reg(src)
                } else {
                    let op = match to {
                        Kind::F32 => UnOp::ToF32,
                        Kind::I32 => UnOp::ToI32,
                        Kind::U32 => UnOp::ToU32,
                        Kind::Bool => UnOp::ToBool,
                    };
                    let dst = self.alloc(n);
                    self.emit(Op::Un { op, kind: from, dst, a: src, n });
                    Val::Reg(dst)
                }
            }
            E::CallResult(_) | E::AtomicResult { .. } | E::WorkGroupUniformLoadResult { .. } => {
                return Err(self.internal("result used before the statement producing it"));
            }
            E::ArrayLength(p) => {
                let p = self.ptr(ix, p)?;
                let stride = match (p.space, &p.ty) {
                    (Space::Buffer(_), TypeInner::Array { size: naga::ArraySize::Dynamic, stride, .. }) if p.dyn_off == NO_REG => *stride,
                    _ => return Err(self.unsupported_expr(ix, h, "arrayLength of this pointer")),
                };
                let Space::Buffer(binding) = p.space else { return Err(self.internal("arrayLength space")) };
                let dst = self.alloc(1);
                self.emit(Op::ArrayLength { dst, binding, offset: p.off, stride });
                Val::Reg(dst)
            }
            E::ImageSample { image, sampler, gather, coordinate, array_index, offset, level, depth_ref, clamp_to_edge } => {
                use naga::SampleLevel as L;
                let refuse = |what: &str| Err(self.unsupported_expr(ix, h, what));
                if gather.is_some() {
                    return refuse("textureGather");
                }
                if depth_ref.is_some() {
                    return refuse("textureSampleCompare (depth comparison)");
                }
                if offset.is_some() {
                    return refuse("texture sampling with an offset");
                }
                if clamp_to_edge {
                    return refuse("textureSampleBaseClampToEdge");
                }
                // An implicit level of detail comes from the quad's derivatives (fragment only).
                let fragment = self.stage == ShaderStage::Fragment;
                let (lod, auto_lod) = match level {
                    L::Exact(l) => (Some(l), false),
                    L::Zero => (None, false),
                    L::Auto if fragment => (None, true),
                    L::Bias(b) if fragment => (Some(b), true),
                    L::Auto => return refuse("textureSample (implicit level of detail, fragment shaders only; use textureSampleLevel)"),
                    L::Bias(_) => return refuse("textureSampleBias (implicit level of detail, fragment shaders only)"),
                    L::Gradient { .. } => return refuse("textureSampleGrad"),
                };
                let image = self.image_of(ix, image)?;
                let sampler = match self.expr(ix, sampler)? {
                    Val::Sampler(s) => s,
                    _ => return Err(self.unsupported_expr(ix, h, "sampler that is not a sampler binding")),
                };
                if self.kind_of_expr(ix, coordinate)? != Kind::F32 {
                    return Err(self.unsupported_expr(ix, h, "texture sampling at non-float coordinates"));
                }
                let coords = self.reg(ix, coordinate)?;
                let n = self.comps_of(ix, coordinate)?;
                let (layer, layer_kind) = self.layer(ix, array_index, true)?;
                let level = match lod {
                    Some(l) if self.kind_of_expr(ix, l)? == Kind::F32 => self.reg(ix, l)?,
                    Some(_) => return Err(self.unsupported_expr(ix, h, "integer level of detail")),
                    None => NO_REG,
                };
                let dst = self.alloc(4);
                let op = ImageOp::SampleLevel { sampler };
                self.emit(Op::Image(ImageArgs { op, image, dst, coords, n, layer, layer_kind, level, value: NO_REG, nv: 0, auto_lod }));
                Val::Reg(dst)
            }
            E::ImageLoad { image, coordinate, array_index, sample, level } => {
                if sample.is_some() {
                    return Err(self.unsupported_expr(ix, h, "textureLoad of a sample (multisampled texture)"));
                }
                let image = self.image_of(ix, image)?;
                let coords = self.reg(ix, coordinate)?;
                let n = self.comps_of(ix, coordinate)?;
                let (layer, layer_kind) = self.layer(ix, array_index, false)?;
                let level = match level {
                    Some(l) => self.reg(ix, l)?,
                    None => NO_REG,
                };
                let dst = self.alloc(4);
                let op = ImageOp::Load;
                self.emit(Op::Image(ImageArgs { op, image, dst, coords, n, layer, layer_kind, level, value: NO_REG, nv: 0, auto_lod: false }));
                Val::Reg(dst)
            }
            E::ImageQuery { image, query } => {
                let image = self.image_of(ix, image)?;
                let (query, level) = match query {
                    naga::ImageQuery::Size { level } => {
                        let n = match self.bindings.get(image as usize).map(|b| b.kind) {
                            Some(BindingKind::SampledImage { dim, .. } | BindingKind::StorageImage { dim, .. }) => dim.coords(),
                            _ => return Err(self.internal("image binding")),
                        };
                        let level = match level {
                            Some(l) => self.reg(ix, l)?,
                            None => NO_REG,
                        };
                        (ImageQueryOp::Size { n }, level)
                    }
                    naga::ImageQuery::NumLevels => (ImageQueryOp::NumLevels, NO_REG),
                    naga::ImageQuery::NumLayers => (ImageQueryOp::NumLayers, NO_REG),
                    naga::ImageQuery::NumSamples => return Err(self.unsupported_expr(ix, h, "textureNumSamples (multisampled texture)")),
                };
                let n = match query {
                    ImageQueryOp::Size { n } => n,
                    _ => 1,
                };
                let dst = self.alloc(n);
                self.emit(Op::ImageQuery { query, image, dst, level });
                Val::Reg(dst)
            }
            E::Derivative { axis, ctrl, expr } if self.stage == ShaderStage::Fragment => {
                let src = self.reg(ix, expr)?;
                let n = self.comps(self.expr_ty(ix, expr)).ok_or_else(|| self.internal("derivative type"))?;
                let dst = self.alloc(n);
                let axis = match axis {
                    naga::DerivativeAxis::X => DerivativeAxis::X,
                    naga::DerivativeAxis::Y => DerivativeAxis::Y,
                    naga::DerivativeAxis::Width => DerivativeAxis::Width,
                };
                self.emit(Op::Derivative { dst, src, n, axis, fine: ctrl == naga::DerivativeControl::Fine });
                Val::Reg(dst)
            }
            E::Derivative { .. } => return Err(self.unsupported_expr(ix, h, "derivative (fragment shaders only)")),
            E::RayQueryVertexPositions { .. } | E::RayQueryProceedResult | E::RayQueryGetIntersection { .. } => {
                return Err(self.unsupported_expr(ix, h, "ray query"));
            }
            E::SubgroupBallotResult | E::SubgroupOperationResult { .. } => return Err(self.unsupported_expr(ix, h, "subgroup operation")),
            E::CooperativeLoad { .. } | E::CooperativeMultiplyAdd { .. } => return Err(self.unsupported_expr(ix, h, "cooperative matrix")),
        })
    }

    /// The image binding an image expression refers to.
    fn image_of(&mut self, ix: &mut Inst<'m>, h: Handle<naga::Expression>) -> R<u32> {
        match self.expr(ix, h)? {
            Val::Image(b) => Ok(b),
            _ => Err(self.unsupported_expr(ix, h, "texture that is not a texture binding")),
        }
    }

    /// The register and kind of an image access's array layer, or NO_REG. When sampling a
    /// module from GLSL or SPIR-V, whose front ends turn the float layer (the last coordinate)
    /// into an i32 by a truncating conversion, the float before the conversion is taken instead,
    /// for Vulkan's round-to-nearest-even. (A layer the front end folded to a constant is
    /// already truncated.) WGSL's layer is an integer the shader gives.
    fn layer(&mut self, ix: &mut Inst<'m>, array_index: Option<Handle<naga::Expression>>, sampling: bool) -> R<(Reg, Kind)> {
        let Some(a) = array_index else { return Ok((NO_REG, Kind::I32)) };
        let a = match ix.func.expressions[a] {
            naga::Expression::As { expr, kind: naga::ScalarKind::Sint, convert: Some(4) } if sampling && self.float_layers && self.kind_of_expr(ix, expr)? == Kind::F32 => expr,
            _ => a,
        };
        Ok((self.reg(ix, a)?, self.kind_of_expr(ix, a)?))
    }

    /// Element type and stride of an indexable pointee.
    fn element(&self, t: &TypeInner) -> Option<(TypeInner, u32)> {
        match *t {
            TypeInner::Array { base, stride, .. } => Some((self.inner(base).clone(), stride)),
            TypeInner::Vector { scalar, .. } => Some((TypeInner::Scalar(scalar), 4)),
            TypeInner::Matrix { rows, scalar, .. } => Some((TypeInner::Vector { size: rows, scalar }, col_stride(rows))),
            _ => None,
        }
    }

    /// Type and byte offset of member/element `i` of a pointee.
    fn member(&self, t: &TypeInner, i: u32) -> Option<(TypeInner, u32)> {
        match *t {
            TypeInner::Struct { ref members, .. } => {
                let m = members.get(i as usize)?;
                Some((self.inner(m.ty).clone(), m.offset))
            }
            _ => {
                let (et, stride) = self.element(t)?;
                Some((et, i.checked_mul(stride)?))
            }
        }
    }

    /// First component of member/element `i` of a value.
    fn member_comp(&self, t: &TypeInner, i: u32) -> Option<u32> {
        match *t {
            TypeInner::Vector { .. } => Some(i),
            TypeInner::Matrix { rows, .. } => Some(i * vsize(rows)),
            TypeInner::Array { base, .. } => Some(i * self.comps(self.inner(base))?),
            TypeInner::Struct { ref members, .. } => {
                let mut c = 0;
                for m in members.get(..i as usize)? {
                    c += self.comps(self.inner(m.ty))?;
                }
                Some(c)
            }
            _ => None,
        }
    }

    fn binary(
        &mut self,
        ix: &mut Inst<'m>,
        h: Handle<naga::Expression>,
        op: naga::BinaryOperator,
        left: Handle<naga::Expression>,
        right: Handle<naga::Expression>,
    ) -> R<Val> {
        use naga::BinaryOperator as B;
        let a = self.reg(ix, left)?;
        let b = self.reg(ix, right)?;
        let lt = self.expr_ty(ix, left);
        let rt = self.expr_ty(ix, right);
        if op == B::Multiply {
            let mm = match (lt, rt) {
                (TypeInner::Matrix { columns: c1, rows: r1, .. }, TypeInner::Matrix { columns: c2, .. }) => Some((vsize(*r1), vsize(*c1), vsize(*c2))),
                (TypeInner::Matrix { columns, rows, .. }, TypeInner::Vector { .. }) => Some((vsize(*rows), vsize(*columns), 1)),
                (TypeInner::Vector { size, .. }, TypeInner::Matrix { columns, .. }) => Some((1, vsize(*size), vsize(*columns))),
                _ => None,
            };
            if let Some((r, k, c)) = mm {
                let dst = self.alloc(r * c);
                self.emit(Op::MatMul { dst, a, b, r, k, c });
                return Ok(Val::Reg(dst));
            }
        }
        let kind = self.kind_of_expr(ix, left)?;
        let na = self.comps_of(ix, left)?;
        let nb = self.comps_of(ix, right)?;
        let n = na.max(nb);
        let bop = match op {
            B::Add => BinOp::Add,
            B::Subtract => BinOp::Sub,
            B::Multiply => BinOp::Mul,
            B::Divide => BinOp::Div,
            B::Modulo => BinOp::Rem,
            B::Equal => BinOp::Eq,
            B::NotEqual => BinOp::Ne,
            B::Less => BinOp::Lt,
            B::LessEqual => BinOp::Le,
            B::Greater => BinOp::Gt,
            B::GreaterEqual => BinOp::Ge,
            B::And | B::LogicalAnd => BinOp::And,
            B::InclusiveOr | B::LogicalOr => BinOp::Or,
            B::ExclusiveOr => BinOp::Xor,
            B::ShiftLeft => BinOp::Shl,
            B::ShiftRight => BinOp::Shr,
        };
        if na != nb && na != 1 && nb != 1 {
            return Err(self.unsupported_expr(ix, h, "binary operation on mismatched shapes"));
        }
        let dst = self.alloc(n);
        self.emit(Op::Bin { op: bop, kind, dst, a, b, n, sa: na == 1 && n > 1, sb: nb == 1 && n > 1 });
        Ok(Val::Reg(dst))
    }

    #[allow(clippy::too_many_arguments)]
    fn math(
        &mut self,
        ix: &mut Inst<'m>,
        h: Handle<naga::Expression>,
        fun: naga::MathFunction,
        arg: Handle<naga::Expression>,
        arg1: Option<Handle<naga::Expression>>,
        arg2: Option<Handle<naga::Expression>>,
        arg3: Option<Handle<naga::Expression>>,
    ) -> R<Val> {
        use naga::MathFunction as M;
        let a = self.reg(ix, arg)?;
        let n = self.comps_of(ix, arg)?;
        let kind = self.kind_of_expr(ix, arg)?;
        let mut opt = |s: &mut Self, x: Option<Handle<naga::Expression>>| -> R<(Reg, u32)> {
            match x {
                Some(x) => Ok((s.reg(ix, x)?, s.comps_of(ix, x)?)),
                None => Ok((NO_REG, 0)),
            }
        };
        let (b, nb) = opt(self, arg1)?;
        let (c, nc) = opt(self, arg2)?;
        let (d, _) = opt(self, arg3)?;
        let un = |op| Some(op);
        let unary = match fun {
            M::Abs => un(UnOp::Abs),
            M::Sign => un(UnOp::Sign),
            M::Floor => un(UnOp::Floor),
            M::Ceil => un(UnOp::Ceil),
            M::Round => un(UnOp::Round),
            M::Fract => un(UnOp::Fract),
            M::Trunc => un(UnOp::Trunc),
            M::Sqrt => un(UnOp::Sqrt),
            M::InverseSqrt => un(UnOp::InverseSqrt),
            M::Exp => un(UnOp::Exp),
            M::Exp2 => un(UnOp::Exp2),
            M::Log => un(UnOp::Log),
            M::Log2 => un(UnOp::Log2),
            M::Sin => un(UnOp::Sin),
            M::Cos => un(UnOp::Cos),
            M::Tan => un(UnOp::Tan),
            M::Asin => un(UnOp::Asin),
            M::Acos => un(UnOp::Acos),
            M::Atan => un(UnOp::Atan),
            M::Sinh => un(UnOp::Sinh),
            M::Cosh => un(UnOp::Cosh),
            M::Tanh => un(UnOp::Tanh),
            M::Asinh => un(UnOp::Asinh),
            M::Acosh => un(UnOp::Acosh),
            M::Atanh => un(UnOp::Atanh),
            M::Radians => un(UnOp::Radians),
            M::Degrees => un(UnOp::Degrees),
            M::Saturate => un(UnOp::Saturate),
            M::CountOneBits => un(UnOp::CountOneBits),
            M::ReverseBits => un(UnOp::ReverseBits),
            M::FirstLeadingBit => un(UnOp::FirstLeadingBit),
            M::FirstTrailingBit => un(UnOp::FirstTrailingBit),
            M::CountLeadingZeros => un(UnOp::CountLeadingZeros),
            M::CountTrailingZeros => un(UnOp::CountTrailingZeros),
            M::QuantizeToF16 => un(UnOp::QuantizeToF16),
            _ => None,
        };
        if let Some(op) = unary {
            let dst = self.alloc(n);
            self.emit(Op::Un { op, kind, dst, a, n });
            return Ok(Val::Reg(dst));
        }
        let binary = match fun {
            M::Min => Some(BinOp::Min),
            M::Max => Some(BinOp::Max),
            M::Atan2 => Some(BinOp::Atan2),
            M::Pow => Some(BinOp::Pow),
            M::Step => Some(BinOp::Step),
            M::Ldexp => Some(BinOp::Ldexp),
            _ => None,
        };
        if let Some(op) = binary {
            let m = n.max(nb);
            let dst = self.alloc(m);
            self.emit(Op::Bin { op, kind, dst, a, b, n: m, sa: n == 1 && m > 1, sb: nb == 1 && m > 1 });
            return Ok(Val::Reg(dst));
        }
        let ternary = match fun {
            M::Clamp => Some(TerOp::Clamp),
            M::Mix => Some(TerOp::Mix),
            M::SmoothStep => Some(TerOp::SmoothStep),
            M::Fma => Some(TerOp::Fma),
            M::ExtractBits => Some(TerOp::ExtractBits),
            _ => None,
        };
        if let Some(op) = ternary {
            let m = n.max(nb).max(nc);
            let dst = self.alloc(m);
            let s = [n == 1 && m > 1, nb == 1 && m > 1, nc == 1 && m > 1];
            self.emit(Op::Ter { op, kind, dst, a, b, c, n: m, s });
            return Ok(Val::Reg(dst));
        }
        match fun {
            M::Dot => {
                let dst = self.alloc(1);
                self.emit(Op::Dot { kind, dst, a, b, n });
                return Ok(Val::Reg(dst));
            }
            M::Transpose | M::Outer => {
                let dst = self.alloc(n.max(1) * nb.max(1));
                match (fun, self.expr_ty(ix, arg)) {
                    (M::Transpose, TypeInner::Matrix { columns, rows, .. }) => {
                        self.emit(Op::Transpose { dst, src: a, cols: vsize(*columns), rows: vsize(*rows) });
                    }
                    (M::Outer, _) => {
                        self.emit(Op::Outer { dst, a, b, r: n, c: nb });
                    }
                    _ => return Err(self.unsupported_expr(ix, h, "transpose of a non-matrix")),
                }
                return Ok(Val::Reg(dst));
            }
            _ => {}
        }
        let (f, out) = match fun {
            M::Cross => (LaneFn::Cross, 3),
            M::Length => (LaneFn::Length, 1),
            M::Distance => (LaneFn::Distance, 1),
            M::Normalize => (LaneFn::Normalize, n),
            M::InsertBits => (LaneFn::InsertBits, n),
            M::Reflect => (LaneFn::Reflect, n),
            M::FaceForward => (LaneFn::FaceForward, n),
            M::Pack4x8snorm => (LaneFn::Pack4x8Snorm, 1),
            M::Pack4x8unorm => (LaneFn::Pack4x8Unorm, 1),
            M::Pack2x16snorm => (LaneFn::Pack2x16Snorm, 1),
            M::Pack2x16unorm => (LaneFn::Pack2x16Unorm, 1),
            M::Pack2x16float => (LaneFn::Pack2x16Float, 1),
            M::Pack4xI8 => (LaneFn::Pack4xI8, 1),
            M::Pack4xU8 => (LaneFn::Pack4xU8, 1),
            M::Pack4xI8Clamp => (LaneFn::Pack4xI8Clamp, 1),
            M::Pack4xU8Clamp => (LaneFn::Pack4xU8Clamp, 1),
            M::Unpack4x8snorm => (LaneFn::Unpack4x8Snorm, 4),
            M::Unpack4x8unorm => (LaneFn::Unpack4x8Unorm, 4),
            M::Unpack2x16snorm => (LaneFn::Unpack2x16Snorm, 2),
            M::Unpack2x16unorm => (LaneFn::Unpack2x16Unorm, 2),
            M::Unpack2x16float => (LaneFn::Unpack2x16Float, 2),
            M::Unpack4xI8 => (LaneFn::Unpack4xI8, 4),
            M::Unpack4xU8 => (LaneFn::Unpack4xU8, 4),
            M::Dot4I8Packed => (LaneFn::Dot4I8Packed, 1),
            M::Dot4U8Packed => (LaneFn::Dot4U8Packed, 1),
            other => return Err(self.unsupported_expr(ix, h, format!("math function {other:?}"))),
        };
        let dst = self.alloc(out);
        self.emit(Op::Lane { f, kind, dst, a, b, c, d, n });
        Ok(Val::Reg(dst))
    }
}

fn barrier_flags(b: naga::Barrier) -> BarrierFlags {
    BarrierFlags {
        storage: b.contains(naga::Barrier::STORAGE),
        workgroup: b.contains(naga::Barrier::WORK_GROUP),
        subgroup: b.contains(naga::Barrier::SUB_GROUP),
        texture: b.contains(naga::Barrier::TEXTURE),
    }
}
