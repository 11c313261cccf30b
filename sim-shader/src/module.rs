//! Loading shaders: WGSL, SPIR-V and GLSL through naga's front ends, validation, and
//! compilation of every compute entry point, so unsupported constructs are reported at load.

use std::sync::Arc;

use crate::compile::{CoherentMembers, compile_entry_point};
use crate::error::ShaderError;
use crate::interp::{Workgroup, WorkgroupConfig};
use crate::program::{BindingInfo, IoBinding, IoVar, Program, ShaderStage};

/// A loaded shader module: its compute entry points, compiled and ready to run.
#[derive(Debug, Clone)]
pub struct Module {
    name: String,
    programs: Vec<Arc<Program>>,
    /// Vertex and fragment entry points that did not compile, by name: a module used for its
    /// compute entry points loads whatever its other stages use.
    graphics_errors: Vec<(String, ShaderError)>,
    source: Arc<SpirvSource>,
}

/// What a module's SPIR-V comes from, for a real Vulkan device: the binary as given, or the
/// validated IR that naga's SPIR-V back end writes out (with the text it was parsed from, for
/// writing the shader back out as it was given).
#[derive(Debug)]
enum SpirvSource {
    /// A SPIR-V module as given (little-endian words).
    Given(Vec<u32>),
    /// WGSL or GLSL, parsed and validated (boxed: an IR is far larger than a vector).
    Ir(Box<(naga::Module, naga::valid::ModuleInfo)>, SourceText),
}

/// WGSL or GLSL text, as given.
#[derive(Debug)]
enum SourceText {
    Wgsl(String),
    Glsl(String),
}

/// What a module was loaded from, as it was given: what a trace writer needs to write the
/// shader back out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderSource<'a> {
    /// WGSL source text.
    Wgsl(&'a str),
    /// GLSL source text (a compute shader).
    Glsl(&'a str),
    /// A SPIR-V binary, as little-endian words.
    Spirv(&'a [u32]),
}

/// The largest shader source, WGSL or GLSL text or a SPIR-V binary, in bytes. naga's front ends
/// take time growing faster than the source (its typifier rescans a function's expressions as
/// each is added): a 1.1 MB WGSL function of 100,000 statements took 21 s to parse, 16 MiB would
/// take hours. Real compute shaders are far smaller.
pub const MAX_SOURCE_BYTES: usize = 512 * 1024;

/// Refuses a source larger than [`MAX_SOURCE_BYTES`].
fn check_size(len: usize, name: &str) -> Result<(), ShaderError> {
    if len > MAX_SOURCE_BYTES {
        return Err(ShaderError::Parse { name: name.to_string(), message: format!("{name}: {len} bytes of source, more than the {MAX_SOURCE_BYTES} a shader may have (the front ends' time grows faster than the source)") });
    }
    Ok(())
}

/// The deepest bracket nesting a shader source may have. The front ends parse expressions
/// recursively, so a source nested thousands deep would overflow the stack instead of failing
/// with an error; real shaders stay far below this.
const MAX_NESTING: usize = 256;

/// Refuses a source whose `(`, `[` and `{` nest deeper than [`MAX_NESTING`], or that chains more
/// than [`MAX_NESTING`] prefix operators (`!`, `-`, `~`, `+`, `*`, `&`, with nothing but
/// white space between them: `!!!…!b`, which the front ends also parse and lower recursively, one
/// level per operator), naming where.
fn check_nesting(source: &str, name: &str) -> Result<(), ShaderError> {
    let mut depth = 0usize;
    let mut prefix_run = 0usize;
    let (mut line, mut column) = (1, 0);
    let refuse = |line: usize, column: usize, what: &str| ShaderError::Parse {
        name: name.to_string(),
        message: format!("{name}:{line}:{column}: {what} more than {MAX_NESTING} deep (the front end parses nesting recursively)"),
    };
    // Comments (`//` to the end of the line, `/* … */`) count for neither: a banner of dashes is
    // no chain of minus signs.
    let (mut line_comment, mut block_comment, mut prev) = (false, false, '\0');
    for c in source.chars() {
        column += 1;
        let in_comment = line_comment || block_comment;
        match (prev, c) {
            (_, '\n') => line_comment = false,
            ('*', '/') if block_comment => {
                block_comment = false;
                // The `*` closing the comment is not a `*` to start a comment with.
                prev = '\0';
                continue;
            }
            ('/', '/') if !in_comment => line_comment = true,
            ('/', '*') if !in_comment => block_comment = true,
            _ => {}
        }
        prev = c;
        if line_comment || block_comment {
            if c == '\n' {
                (line, column) = (line + 1, 0);
            }
            continue;
        }
        match c {
            '!' | '-' | '~' | '+' | '*' | '&' => {
                prefix_run += 1;
                if prefix_run > MAX_NESTING {
                    return Err(refuse(line, column, "prefix operators chained"));
                }
            }
            c if c.is_whitespace() => {}
            _ => prefix_run = 0,
        }
        match c {
            '\n' => (line, column) = (line + 1, 0),
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(refuse(line, column, "brackets nested"));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The most elements a fixed-size SPIR-V array type may have, nested arrays multiplied out.
/// naga's SPIR-V front end sets aside memory per element for some instructions on an array
/// (`OpCompositeInsert` into an array of 2^32 - 1 elements asked for 16 GiB and aborted), so the
/// length is checked before it runs.
const MAX_SPIRV_ARRAY_ELEMENTS: u64 = 1 << 20;

/// Refuses a SPIR-V module declaring an `OpTypeArray` of more than [`MAX_SPIRV_ARRAY_ELEMENTS`]
/// elements (its length an `OpConstant`), naming the type's id and the word it is declared at.
/// A module that is not well-formed enough to walk is left to naga's own errors.
fn check_spirv_arrays(bytes: &[u8], name: &str) -> Result<(), ShaderError> {
    use std::collections::HashMap;
    const OP_TYPE_ARRAY: u32 = 28;
    const OP_CONSTANT: u32 = 43;
    let Some(words) = spirv_words(bytes) else { return Ok(()) };
    // Each integer constant's value, and each array type's element count with its nested
    // arrays' multiplied in.
    let (mut constants, mut elements) = (HashMap::new(), HashMap::new());
    for (at, op, operands) in spirv_instructions(&words) {
        match (op, operands) {
            (OP_CONSTANT, [_, id, lo]) => {
                constants.insert(*id, u64::from(*lo));
            }
            (OP_CONSTANT, [_, id, lo, hi]) => {
                constants.insert(*id, u64::from(*lo) | u64::from(*hi) << 32);
            }
            (OP_TYPE_ARRAY, [id, element, length]) => {
                let n = constants.get(length).copied().unwrap_or(0).saturating_mul(elements.get(element).copied().unwrap_or(1));
                if n > MAX_SPIRV_ARRAY_ELEMENTS {
                    return Err(ShaderError::SpirV {
                        name: name.to_string(),
                        message: format!("OpTypeArray %{id} (word {at}) has {n} elements, nested arrays counted; more than {MAX_SPIRV_ARRAY_ELEMENTS} are refused (the front end sets aside memory per element)"),
                    });
                }
                elements.insert(*id, n.max(1));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A SPIR-V module's little-endian words, or `None` when it does not start with SPIR-V's magic
/// number (naga's front end then reports what is wrong).
fn spirv_words(bytes: &[u8]) -> Option<Vec<u32>> {
    const MAGIC: u32 = 0x0723_0203;
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    (words.first() == Some(&MAGIC)).then_some(words)
}

/// The instructions after the 5-word header: each one's word offset, opcode and operands. Stops
/// at an instruction whose word count is 0 or runs past the end (a malformed module, which naga
/// refuses).
fn spirv_instructions(words: &[u32]) -> impl Iterator<Item = (usize, u32, &[u32])> {
    let mut at = 5;
    std::iter::from_fn(move || {
        let (count, op) = ((*words.get(at)? >> 16) as usize, words[at] & 0xFFFF);
        let operands = words.get(at + 1..at + count).filter(|_| count > 0)?;
        let here = at;
        at += count;
        Some((here, op, operands))
    })
}

/// Runs `f`, turning a panic inside it into `Err` with the panic's message, and keeping that
/// panic's report off stderr. naga's SPIR-V front end indexes and unwraps on some malformed
/// modules (and any front end or the validator might on input nobody has tried); a bad shader
/// must give an error naming it, not abort the process. Other panics are reported by the hook
/// that was in place.
fn without_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    use std::cell::Cell;
    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|payload| {
        payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
    })
}

impl Module {
    /// Parse, validate and compile WGSL source. `name` appears in every error message.
    pub fn from_wgsl(source: &str, name: &str) -> Result<Module, ShaderError> {
        without_panics(|| Self::from_wgsl_inner(source, name))
            .unwrap_or_else(|message| Err(ShaderError::Parse { name: name.to_string(), message: format!("the WGSL front end failed on it: {message}") }))
    }

    fn from_wgsl_inner(source: &str, name: &str) -> Result<Module, ShaderError> {
        check_size(source.len(), name)?;
        check_nesting(source, name)?;
        let module = naga::front::wgsl::parse_str(source).map_err(|e| ShaderError::Parse {
            name: name.to_string(),
            message: e.emit_to_string_with_path(source, name),
        })?;
        Self::finish(module, Some(source), name, &CoherentMembers::new(), Err(SourceText::Wgsl(source.to_string())))
    }

    /// Parse, validate and compile a SPIR-V binary (little-endian words).
    pub fn from_spirv(bytes: &[u8], name: &str) -> Result<Module, ShaderError> {
        without_panics(|| Self::from_spirv_inner(bytes, name)).unwrap_or_else(|message| {
            Err(ShaderError::SpirV { name: name.to_string(), message: format!("the SPIR-V front end failed on it: {message}") })
        })
    }

    fn from_spirv_inner(bytes: &[u8], name: &str) -> Result<Module, ShaderError> {
        check_size(bytes.len(), name)?;
        check_spirv_arrays(bytes, name)?;
        let options = naga::front::spv::Options::default();
        let mut module = naga::front::spv::parse_u8_slice(bytes, &options).map_err(|e| ShaderError::SpirV {
            name: name.to_string(),
            message: e.to_string(),
        })?;
        let coherent = spirv_coherent_bindings(bytes);
        let mut coherent_members = CoherentMembers::new();
        for (_, var) in module.global_variables.iter_mut() {
            // Storage buffers only: naga's validator refuses the decoration elsewhere.
            let Some(rb) = var.binding.as_ref().filter(|_| matches!(var.space, naga::AddressSpace::Storage { .. })) else { continue };
            match coherent.get(&(rb.group, rb.binding)) {
                Some(CoherentDecl::Whole) => var.memory_decorations |= naga::MemoryDecorations::COHERENT,
                Some(CoherentDecl::Members(which)) => {
                    // A member's bytes run to the next member's offset (padding included: nothing
                    // accesses it), the last member's to the end of the binding (a runtime array).
                    // Ranges are whole 4-byte words, rounded inwards (a word shared with a plain
                    // member is plain: a missing barrier is shown, not hidden), and touching
                    // ranges are merged so that a run across them stays one request.
                    if let naga::TypeInner::Struct { members, .. } = &module.types[var.ty].inner {
                        let mut ranges: Vec<std::ops::Range<u32>> = Vec::new();
                        for &m in which {
                            let Some(member) = members.get(m as usize) else { continue };
                            let start = member.offset.div_ceil(4).saturating_mul(4);
                            let end = members.get(m as usize + 1).map_or(u32::MAX, |next| next.offset / 4 * 4);
                            if start >= end {
                                continue;
                            }
                            match ranges.last_mut() {
                                Some(last) if last.end == start => last.end = end,
                                _ => ranges.push(start..end),
                            }
                        }
                        coherent_members.insert((rb.group, rb.binding), ranges);
                    }
                }
                None => {}
            }
        }
        // The binary goes to a device as it came: its decorations are the ones the user wrote.
        let words = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        Self::finish(module, None, name, &coherent_members, Ok(words))
    }

    /// Parse, validate and compile GLSL compute-shader source (`#version 450` style).
    pub fn from_glsl(source: &str, name: &str) -> Result<Module, ShaderError> {
        without_panics(|| Self::from_glsl_inner(source, name))
            .unwrap_or_else(|message| Err(ShaderError::Parse { name: name.to_string(), message: format!("the GLSL front end failed on it: {message}") }))
    }

    /// Parse, validate and compile GLSL source of a vertex or fragment shader (GLSL holds one
    /// stage a file; its entry point is `main`).
    pub fn from_glsl_stage(source: &str, name: &str, stage: ShaderStage) -> Result<Module, ShaderError> {
        without_panics(|| Self::from_glsl_inner_stage(source, name, stage))
            .unwrap_or_else(|message| Err(ShaderError::Parse { name: name.to_string(), message: format!("the GLSL front end failed on it: {message}") }))
    }

    fn from_glsl_inner(source: &str, name: &str) -> Result<Module, ShaderError> {
        Self::from_glsl_inner_stage(source, name, ShaderStage::Compute)
    }

    fn from_glsl_inner_stage(source: &str, name: &str, stage: ShaderStage) -> Result<Module, ShaderError> {
        check_size(source.len(), name)?;
        check_nesting(source, name)?;
        // naga's preprocessor expands macros without limit (see `glsl_macros`).
        crate::glsl_macros::check_macro_expansion(source, name)?;
        let stage = match stage {
            ShaderStage::Compute => naga::ShaderStage::Compute,
            ShaderStage::Vertex => naga::ShaderStage::Vertex,
            ShaderStage::Fragment => naga::ShaderStage::Fragment,
        };
        let options = naga::front::glsl::Options::from(stage);
        let module = naga::front::glsl::Frontend::default().parse(&options, source).map_err(|e| ShaderError::Parse {
            name: name.to_string(),
            message: e.emit_to_string_with_path(source, name),
        })?;
        Self::finish(module, Some(source), name, &CoherentMembers::new(), Err(SourceText::Glsl(source.to_string())))
    }

    /// The module of `module`, validated and compiled; `given` is the SPIR-V binary it was
    /// read from, or the text it was parsed from.
    fn finish(module: naga::Module, source: Option<&str>, name: &str, coherent_members: &CoherentMembers, given: Result<Vec<u32>, SourceText>) -> Result<Module, ShaderError> {
        let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        let info = validator.validate(&module).map_err(|e| ShaderError::Validation {
            name: name.to_string(),
            message: match source {
                Some(src) => e.emit_to_string_with_path(src, name),
                None => format!("{}", e.as_inner()),
            },
        })?;
        let mut programs = Vec::new();
        let mut graphics_errors = Vec::new();
        let float_layers = !matches!(given, Err(SourceText::Wgsl(_)));
        for (i, ep) in module.entry_points.iter().enumerate() {
            match ep.stage {
                naga::ShaderStage::Compute => programs.push(Arc::new(compile_entry_point(&module, &info, source, name, i, coherent_members, float_layers)?)),
                naga::ShaderStage::Vertex | naga::ShaderStage::Fragment => match compile_entry_point(&module, &info, source, name, i, coherent_members, float_layers) {
                    Ok(p) => programs.push(Arc::new(p)),
                    Err(e) => graphics_errors.push((ep.name.clone(), e)),
                },
                _ => {}
            }
        }
        let source = Arc::new(match given {
            Ok(words) => SpirvSource::Given(words),
            Err(text) => SpirvSource::Ir(Box::new((module, info)), text),
        });
        Ok(Module { name: name.to_string(), programs, graphics_errors, source })
    }

    /// Name given at load.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Names of the compute entry points.
    pub fn entry_points(&self) -> impl Iterator<Item = &str> {
        self.programs.iter().filter(|p| p.stage == ShaderStage::Compute).map(|p| p.entry_point.as_str())
    }

    /// Names and stages of every entry point (compute, vertex and fragment).
    pub fn stages(&self) -> impl Iterator<Item = (&str, ShaderStage)> {
        self.programs.iter().map(|p| (p.entry_point.as_str(), p.stage))
    }
}

/// A compute entry point ready to dispatch, with the reflection the engine needs. Cheap to
/// clone and `Send + Sync`: share it across threads; per-invocation state lives in
/// [`Workgroup`].
#[derive(Debug, Clone)]
pub struct ComputePipeline {
    prog: Arc<Program>,
    source: Arc<SpirvSource>,
}

impl ComputePipeline {
    /// Select the compute entry point `entry_point` of `module`.
    pub fn new(module: &Module, entry_point: &str) -> Result<ComputePipeline, ShaderError> {
        module
            .programs
            .iter()
            .find(|p| p.entry_point == entry_point && p.stage == ShaderStage::Compute)
            .map(|p| ComputePipeline { prog: p.clone(), source: module.source.clone() })
            .ok_or_else(|| ShaderError::EntryPointNotFound { name: module.name.clone(), entry_point: entry_point.to_string() })
    }

    /// The module as SPIR-V words for a Vulkan device: a SPIR-V binary as it was given, WGSL and
    /// GLSL written out by naga's SPIR-V back end with this entry point only.
    pub fn spirv(&self) -> Result<Vec<u32>, ShaderError> {
        spirv_of(&self.source, &self.prog, naga::ShaderStage::Compute)
    }

    /// The source the module was loaded from, as given: WGSL or GLSL text, or a SPIR-V binary.
    pub fn source(&self) -> ShaderSource<'_> {
        match &*self.source {
            SpirvSource::Given(words) => ShaderSource::Spirv(words),
            SpirvSource::Ir(_, SourceText::Wgsl(t)) => ShaderSource::Wgsl(t),
            SpirvSource::Ir(_, SourceText::Glsl(t)) => ShaderSource::Glsl(t),
        }
    }

    /// Name of the module the entry point came from.
    pub fn module_name(&self) -> &str {
        &self.prog.name
    }

    /// `@workgroup_size` of the entry point.
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.prog.workgroup_size
    }

    /// Invocations per workgroup.
    pub fn invocations_per_workgroup(&self) -> u32 {
        // Saturating: the sizes come from the shader, and their product can pass 32 bits.
        self.prog.workgroup_size.iter().fold(1u32, |n, &s| n.saturating_mul(s))
    }

    /// Bindings the entry point uses (buffers, images and samplers), sorted by (group, binding)
    /// (an image before a sampler of the same (group, binding)). Memory and image requests,
    /// [`WorkgroupConfig::binding_sizes`] and [`WorkgroupConfig::image_shapes`] refer to
    /// bindings by their index in this list.
    pub fn bindings(&self) -> &[BindingInfo] {
        &self.prog.bindings
    }

    /// Byte size of the push-constant block (0 if none).
    pub fn push_constant_size(&self) -> u32 {
        self.prog.push_constant_bytes
    }

    /// Bytes of workgroup memory one workgroup needs.
    pub fn workgroup_memory_bytes(&self) -> u32 {
        self.prog.workgroup_words * 4
    }

    /// The entry point's name.
    pub fn entry_point(&self) -> &str {
        &self.prog.entry_point
    }

    /// Number of compiled instructions (a measure of program size).
    pub fn instruction_count(&self) -> usize {
        self.prog.code.len()
    }

    /// Create the state of one workgroup, ready to step.
    pub fn workgroup(&self, config: &WorkgroupConfig) -> Result<Workgroup, ShaderError> {
        Workgroup::new(self.prog.clone(), config)
    }
}

/// A vertex or fragment entry point, with the reflection a graphics pipeline needs: its
/// bindings (as a compute pipeline's), and its inputs and outputs laid out in words. Its
/// invocations run as waves ([`GraphicsShader::wave`]): a vertex wave a lane per vertex, a
/// fragment wave a lane per pixel, four lanes a 2x2 quad. Cheap to clone and `Send + Sync`.
#[derive(Debug, Clone)]
pub struct GraphicsShader {
    prog: Arc<Program>,
    source: Arc<SpirvSource>,
}

impl GraphicsShader {
    /// Select the vertex or fragment entry point `entry_point` of `module` (the error it failed
    /// to compile with, if it did).
    pub fn new(module: &Module, entry_point: &str) -> Result<GraphicsShader, ShaderError> {
        if let Some((_, e)) = module.graphics_errors.iter().find(|(n, _)| n == entry_point) {
            return Err(e.clone());
        }
        module
            .programs
            .iter()
            .find(|p| p.entry_point == entry_point && p.stage != ShaderStage::Compute)
            .map(|p| GraphicsShader { prog: p.clone(), source: module.source.clone() })
            .ok_or_else(|| ShaderError::EntryPointNotFound { name: module.name.clone(), entry_point: entry_point.to_string() })
    }

    /// Vertex or fragment.
    pub fn stage(&self) -> ShaderStage {
        self.prog.stage
    }

    /// The entry point's name.
    pub fn entry_point(&self) -> &str {
        &self.prog.entry_point
    }

    /// Name of the module the entry point came from.
    pub fn module_name(&self) -> &str {
        &self.prog.name
    }

    /// Bindings the entry point uses, as [`ComputePipeline::bindings`] lists them.
    pub fn bindings(&self) -> &[BindingInfo] {
        &self.prog.bindings
    }

    /// Byte size of the push-constant block (0 if none).
    pub fn push_constant_size(&self) -> u32 {
        self.prog.push_constant_bytes
    }

    /// The inputs (vertex attributes and built-ins; a fragment's varyings and built-ins), each
    /// with its first word in an invocation's input words.
    pub fn inputs(&self) -> &[IoVar] {
        &self.prog.io_inputs
    }

    /// Words of input per invocation.
    pub fn input_words(&self) -> u32 {
        self.prog.io_inputs.iter().map(|v| v.word + v.components).max().unwrap_or(0)
    }

    /// The outputs (the position and varyings of a vertex; a fragment's colours and depth),
    /// each with its first word in an invocation's output words ([`Workgroup::outputs`]).
    pub fn outputs(&self) -> Vec<IoVar> {
        self.prog.io_outputs.iter().map(|(_, v)| *v).collect()
    }

    /// A wave of `lanes` invocations whose input words are `inputs` ([`GraphicsShader::input_words`]
    /// per invocation, in turn) and, for a fragment wave, `helpers` the helper invocations (they
    /// run for the derivatives of their quads and make no stores; empty: none). The
    /// configuration's workgroup fields are not read. Step its subgroups as a workgroup's; when
    /// every one is done, read each invocation's outputs.
    pub fn wave(&self, config: &WorkgroupConfig, lanes: usize, inputs: &[u32], helpers: &[bool]) -> Result<Workgroup, ShaderError> {
        Workgroup::wave(self.prog.clone(), config, lanes, inputs, helpers)
    }

    /// Checks the interface between this vertex shader and fragment shader `fs`, as Vulkan's
    /// "Interface Matching" requires of a graphics pipeline: every fragment input at a location
    /// is written by a vertex output at that location with the same scalar type, at least as
    /// many components, and the same interpolation (VUID-RuntimeSpirv-OpEntryPoint-08743 and
    /// VUID-RuntimeSpirv-OpEntryPoint-07754). The error says which location and why.
    pub fn check_interface(&self, fs: &GraphicsShader) -> Result<(), String> {
        if self.stage() != ShaderStage::Vertex || fs.stage() != ShaderStage::Fragment {
            return Err(format!("`{}` and `{}` are not a vertex shader and a fragment shader", self.entry_point(), fs.entry_point()));
        }
        let outputs = self.outputs();
        for input in fs.inputs() {
            let IoBinding::Location(location) = input.binding else { continue };
            let Some(out) = outputs.iter().find(|o| o.binding == IoBinding::Location(location)) else {
                return Err(format!("fragment input location {location} is not written by the vertex shader `{}` (VUID-RuntimeSpirv-OpEntryPoint-08743)", self.entry_point()));
            };
            if out.scalar != input.scalar || out.components < input.components {
                return Err(format!(
                    "location {location}: the vertex shader writes {} {:?} component(s), the fragment shader reads {} {:?} (VUID-RuntimeSpirv-OpEntryPoint-07754)",
                    out.components, out.scalar, input.components, input.scalar
                ));
            }
            if out.interpolation != input.interpolation {
                return Err(format!("location {location}: interpolated {:?} by the vertex shader and {:?} by the fragment shader (their decorations must match: VUID-RuntimeSpirv-OpEntryPoint-07754)", out.interpolation, input.interpolation));
            }
        }
        if !outputs.iter().any(|o| o.binding == IoBinding::Position) {
            return Err(format!("the vertex shader `{}` writes no position", self.entry_point()));
        }
        Ok(())
    }

    /// The module as SPIR-V words with this entry point, as [`ComputePipeline::spirv`] writes it.
    pub fn spirv(&self) -> Result<Vec<u32>, ShaderError> {
        let stage = if self.prog.stage == ShaderStage::Vertex { naga::ShaderStage::Vertex } else { naga::ShaderStage::Fragment };
        spirv_of(&self.source, &self.prog, stage)
    }
}

/// The SPIR-V words of `source` for entry point `prog` of stage `stage`.
fn spirv_of(source: &SpirvSource, prog: &Program, stage: naga::ShaderStage) -> Result<Vec<u32>, ShaderError> {
    match source {
        SpirvSource::Given(words) => Ok(words.clone()),
        SpirvSource::Ir(ir, _) => {
            let (module, info) = &**ir;
            let mut options = naga::back::spv::Options { lang_version: (1, 3), ..naga::back::spv::Options::default() };
            // Clip space is Vulkan's as written (+y down the framebuffer), WGSL included: naga
            // would otherwise negate a vertex shader's position.y (WebGPU's y-up clip space).
            options.flags.remove(naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE);
            let pipeline = naga::back::spv::PipelineOptions { shader_stage: stage, entry_point: prog.entry_point.clone() };
            naga::back::spv::write_vec(module, info, &options, Some(&pipeline))
                .map(|words| flatten_access_chains(&words))
                .map_err(|e| ShaderError::SpirV { name: prog.name.clone(), message: format!("naga's SPIR-V back end failed on it: {e}") })
        }
    }
}

/// What a SPIR-V module declares `Coherent` at one `(set, binding)`.
#[derive(Debug)]
enum CoherentDecl {
    /// The whole buffer: the variable is decorated, or every member of its block.
    Whole,
    /// Only these members of its block (their indices).
    Members(Vec<u32>),
}

/// What a SPIR-V module declares `Coherent`, per `(set, binding)`: the variable decorated, or
/// every member of its block (glslang writes GLSL's `coherent buffer` as a decoration on each
/// member, and naga's front end keeps only the variable's), or some members of its block
/// (GLSL's `coherent` on one member). Where the module leaves doubt the choice errs towards
/// showing a missing barrier, never towards hiding one: a `(set, binding)` that names more than
/// one variable in the module (entry points linked together) counts as a whole only if all of
/// them are coherent, and not at all otherwise; a binding that is an array of blocks counts only
/// as a whole; and `Volatile` alone counts for nothing, as SPIR-V gives it no availability or
/// visibility. Read from the words directly, in one pass, after naga has parsed them.
fn spirv_coherent_bindings(bytes: &[u8]) -> std::collections::HashMap<(u32, u32), CoherentDecl> {
    use std::collections::{HashMap, HashSet};
    const OP_TYPE_STRUCT: u32 = 30;
    const OP_TYPE_ARRAY: u32 = 28;
    const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_VARIABLE: u32 = 59;
    const OP_DECORATE: u32 = 71;
    const OP_MEMBER_DECORATE: u32 = 72;
    const COHERENT: u32 = 23;
    const BINDING: u32 = 33;
    const DESCRIPTOR_SET: u32 = 34;
    // Little-endian words, as naga's front end requires of the module it has just parsed.
    let Some(words) = spirv_words(bytes) else { return HashMap::new() };
    let (mut coherent_vars, mut sets, mut bindings) = (HashSet::new(), HashMap::new(), HashMap::new());
    // Per struct: its member count, and which members are `Coherent`.
    let (mut members, mut coherent_members) = (HashMap::new(), HashMap::<u32, HashSet<u32>>::new());
    let (mut pointee, mut element, mut variables) = (HashMap::new(), HashMap::new(), Vec::new());
    for (_, op, operands) in spirv_instructions(&words) {
        match (op, operands) {
            (OP_DECORATE, [id, COHERENT, ..]) => {
                coherent_vars.insert(*id);
            }
            (OP_DECORATE, [id, DESCRIPTOR_SET, set, ..]) => {
                sets.insert(*id, *set);
            }
            (OP_DECORATE, [id, BINDING, binding, ..]) => {
                bindings.insert(*id, *binding);
            }
            (OP_MEMBER_DECORATE, [id, member, COHERENT, ..]) => {
                coherent_members.entry(*id).or_default().insert(*member);
            }
            (OP_TYPE_STRUCT, [id, types @ ..]) => {
                members.insert(*id, types.len());
            }
            (OP_TYPE_POINTER, [id, _, ty]) => {
                pointee.insert(*id, *ty);
            }
            (OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, [id, ty, ..]) => {
                element.insert(*id, *ty);
            }
            (OP_VARIABLE, [ty, id, ..]) => variables.push((*ty, *id)),
            _ => {}
        }
    }
    // Per (set, binding): what each variable there declares.
    let mut declared: HashMap<(u32, u32), Vec<Option<CoherentDecl>>> = HashMap::new();
    for (ty, id) in variables {
        let Some(&binding) = bindings.get(&id) else { continue };
        // The block, through an array of blocks if the binding is one.
        let mut block = pointee.get(&ty).copied();
        let mut arrayed = false;
        if let Some(e) = block.and_then(|b| element.get(&b)) {
            block = Some(*e);
            arrayed = true;
        }
        let coherent_in_block = block.and_then(|b| Some((members.get(&b).copied()?, coherent_members.get(&b)?)));
        let decl = match coherent_in_block {
            _ if coherent_vars.contains(&id) => Some(CoherentDecl::Whole),
            // Indices past the block's members (a malformed module naga accepts) count for
            // nothing: they must not make a block look wholly coherent.
            Some((n, which)) if n > 0 && (0..n as u32).all(|m| which.contains(&m)) => Some(CoherentDecl::Whole),
            Some((n, which)) if !arrayed => {
                let mut which: Vec<u32> = which.iter().copied().filter(|&m| (m as usize) < n).collect();
                which.sort_unstable();
                Some(CoherentDecl::Members(which))
            }
            _ => None,
        };
        declared.entry((sets.get(&id).copied().unwrap_or(0), binding)).or_default().push(decl);
    }
    declared
        .into_iter()
        .filter_map(|(place, mut decls)| match decls.len() {
            1 => decls.pop().flatten().map(|d| (place, d)),
            _ => decls.iter().all(|d| matches!(d, Some(CoherentDecl::Whole))).then_some((place, CoherentDecl::Whole)),
        })
        .collect()
}

/// naga's SPIR-V back end reaches an element of a storage buffer through two access chains (the
/// struct member, then the element). The Khronos validation layer (1.3.239 at least) decides
/// whether a descriptor is written by following only one access chain from the variable to an
/// OpStore or atomic, so it takes such a buffer for read-only and misses every hazard on its
/// writes. This folds each access chain whose base is another access chain into one chain from
/// the base's base, with the indices of both: the same pointer, so the same module. Result ids
/// are defined before their uses (blocks come in dominance order), so one pass in order folds
/// chains of any length.
fn flatten_access_chains(words: &[u32]) -> Vec<u32> {
    const OP_ACCESS_CHAIN: u32 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    if words.len() < 5 {
        return words.to_vec();
    }
    let mut out = words[..5].to_vec();
    // Result id -> (base, indices) of every access chain seen so far, already folded.
    let mut chains: std::collections::HashMap<u32, (u32, Vec<u32>)> = std::collections::HashMap::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            // Malformed: leave the rest as it is (the device's own validation will say).
            out.extend_from_slice(&words[i..]);
            break;
        }
        let inst = &words[i..i + count];
        if (opcode == OP_ACCESS_CHAIN || opcode == OP_IN_BOUNDS_ACCESS_CHAIN) && count >= 4 {
            // OpAccessChain <result type> <result id> <base> <indexes>...
            let (ty, id, base, indices) = (inst[1], inst[2], inst[3], &inst[4..]);
            let (root, mut all) = match chains.get(&base) {
                Some((root, first)) => (*root, first.clone()),
                None => (base, Vec::new()),
            };
            all.extend_from_slice(indices);
            chains.insert(id, (root, all.clone()));
            // An in-bounds chain stays in bounds only if both were; keep the plain opcode then.
            let op = if opcode == OP_IN_BOUNDS_ACCESS_CHAIN && root == base { OP_IN_BOUNDS_ACCESS_CHAIN } else { OP_ACCESS_CHAIN };
            out.push(((4 + all.len() as u32) << 16) | op);
            out.extend_from_slice(&[ty, id, root]);
            out.extend_from_slice(&all);
        } else {
            out.extend_from_slice(inst);
        }
        i += count;
    }
    out
}
