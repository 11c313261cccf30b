//! Loading shaders: WGSL, SPIR-V and GLSL through naga's front ends, validation, and
//! compilation of every compute entry point, so unsupported constructs are reported at load.

use std::sync::Arc;

use crate::compile::compile_entry_point;
use crate::error::ShaderError;
use crate::interp::{Workgroup, WorkgroupConfig};
use crate::program::{BindingInfo, Program};

/// A loaded shader module: its compute entry points, compiled and ready to run.
#[derive(Debug, Clone)]
pub struct Module {
    name: String,
    programs: Vec<Arc<Program>>,
}

/// The deepest bracket nesting a shader source may have. The front ends parse expressions
/// recursively, so a source nested thousands deep would overflow the stack instead of failing
/// with an error; real shaders stay far below this.
const MAX_NESTING: usize = 256;

/// Refuses a source whose `(`, `[` and `{` nest deeper than [`MAX_NESTING`], naming where.
fn check_nesting(source: &str, name: &str) -> Result<(), ShaderError> {
    let mut depth = 0usize;
    let (mut line, mut column) = (1, 0);
    for c in source.chars() {
        column += 1;
        match c {
            '\n' => (line, column) = (line + 1, 0),
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(ShaderError::Parse {
                        name: name.to_string(),
                        message: format!("{name}:{line}:{column}: brackets nested more than {MAX_NESTING} deep (the front end parses nesting recursively)"),
                    });
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

impl Module {
    /// Parse, validate and compile WGSL source. `name` appears in every error message.
    pub fn from_wgsl(source: &str, name: &str) -> Result<Module, ShaderError> {
        check_nesting(source, name)?;
        let module = naga::front::wgsl::parse_str(source).map_err(|e| ShaderError::Parse {
            name: name.to_string(),
            message: e.emit_to_string_with_path(source, name),
        })?;
        Self::finish(module, Some(source), name)
    }

    /// Parse, validate and compile a SPIR-V binary (little-endian words).
    pub fn from_spirv(bytes: &[u8], name: &str) -> Result<Module, ShaderError> {
        let options = naga::front::spv::Options::default();
        let module = naga::front::spv::parse_u8_slice(bytes, &options).map_err(|e| ShaderError::SpirV {
            name: name.to_string(),
            message: e.to_string(),
        })?;
        Self::finish(module, None, name)
    }

    /// Parse, validate and compile GLSL compute-shader source (`#version 450` style).
    pub fn from_glsl(source: &str, name: &str) -> Result<Module, ShaderError> {
        check_nesting(source, name)?;
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Compute);
        let module = naga::front::glsl::Frontend::default().parse(&options, source).map_err(|e| ShaderError::Parse {
            name: name.to_string(),
            message: e.emit_to_string_with_path(source, name),
        })?;
        Self::finish(module, Some(source), name)
    }

    fn finish(module: naga::Module, source: Option<&str>, name: &str) -> Result<Module, ShaderError> {
        let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        let info = validator.validate(&module).map_err(|e| ShaderError::Validation {
            name: name.to_string(),
            message: match source {
                Some(src) => e.emit_to_string_with_path(src, name),
                None => format!("{}", e.as_inner()),
            },
        })?;
        let mut programs = Vec::new();
        for (i, ep) in module.entry_points.iter().enumerate() {
            if ep.stage == naga::ShaderStage::Compute {
                programs.push(Arc::new(compile_entry_point(&module, &info, source, name, i)?));
            }
        }
        Ok(Module { name: name.to_string(), programs })
    }

    /// Name given at load.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Names of the compute entry points.
    pub fn entry_points(&self) -> impl Iterator<Item = &str> {
        self.programs.iter().map(|p| p.entry_point.as_str())
    }
}

/// A compute entry point ready to dispatch, with the reflection the engine needs. Cheap to
/// clone and `Send + Sync`: share it across threads; per-invocation state lives in
/// [`Workgroup`].
#[derive(Debug, Clone)]
pub struct ComputePipeline {
    prog: Arc<Program>,
}

impl ComputePipeline {
    /// Select the compute entry point `entry_point` of `module`.
    pub fn new(module: &Module, entry_point: &str) -> Result<ComputePipeline, ShaderError> {
        module
            .programs
            .iter()
            .find(|p| p.entry_point == entry_point)
            .map(|p| ComputePipeline { prog: p.clone() })
            .ok_or_else(|| ShaderError::EntryPointNotFound { name: module.name.clone(), entry_point: entry_point.to_string() })
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

    /// Buffer bindings the entry point uses, sorted by (group, binding). Memory requests and
    /// [`WorkgroupConfig::binding_sizes`] refer to bindings by their index in this list.
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
