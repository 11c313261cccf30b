//! `sim-shader` runs compute shaders the way a SIMT GPU does, one subgroup in lockstep, and
//! hands every buffer and image access to its caller, so that a cache model decides what bytes
//! a shader sees (and, for images, what a texel holds and how a sampler filters). It knows
//! nothing of caches or texel formats.
//!
//! How the parts fit:
//! - [`Module`] loads WGSL, SPIR-V or GLSL with naga, validates it, and compiles each compute
//!   entry point (`compile.rs`) into a compact program of register operations; anything the
//!   interpreter cannot run is rejected here with its source location. All naga-specific code
//!   is in `module.rs` and `compile.rs` (naga is pinned by the workspace). GLSL is first
//!   expanded by `glsl_macros.rs`, which follows the rules of naga's preprocessor with a count,
//!   because that preprocessor has no limit of its own.
//! - [`ComputePipeline`] selects an entry point and reflects what the engine needs: workgroup
//!   size, bindings (buffers with their sizes and strides, images with their dimensionality,
//!   sample type or storage format and access, samplers), push-constant and workgroup-memory
//!   sizes.
//! - [`Workgroup`] holds one workgroup in flight: workgroup memory and its subgroups. The caller
//!   steps each subgroup ([`Workgroup::step`]); a step runs until a buffer access
//!   ([`Step::Memory`], answered by [`Workgroup::complete`]), an image access ([`Step::Image`]:
//!   a load, a sample at an explicit level of detail or a store, answered by
//!   [`Workgroup::complete_image`]), a barrier ([`Step::Barrier`]; a control barrier parks the
//!   subgroup until the workgroup has arrived), or the end. Image queries are answered from the
//!   [`ImageShape`]s given in [`WorkgroupConfig`].
//!   The interpreter's design (data layout, mask algebra) is described in `interp.rs`.
//! - [`run_dispatch_flat`] drives a whole dispatch against plain byte buffers: the functional
//!   reference the tests use; [`run_dispatch_flat_images`] also takes image shapes and a handler
//!   that performs image requests.

#![warn(missing_docs)]

mod compile;
mod error;
mod flat;
mod glsl_macros;
mod interp;
mod module;
mod ops;
mod program;

pub use error::ShaderError;
pub use flat::{FlatBinding, FlatImages, FlatOptions, FlatStats, perform, run_dispatch_flat, run_dispatch_flat_images, run_dispatch_flat_with};
pub use interp::{
    DEFAULT_MAX_INSTRUCTIONS, ExecStats, ImageLane, ImageRequest, ImageShape, LaneAccess, MAX_WORKGROUP_STATE_BYTES, MemOp, MemRequest, Step, Workgroup, WorkgroupConfig,
};
pub use module::{ComputePipeline, GraphicsShader, MAX_SOURCE_BYTES, Module, ShaderSource};
pub use program::{AtomicFun, AtomicOp, BarrierFlags, BindingInfo, BindingKind, ImageDim, ImageOp, Interpolation, IoBinding, IoScalar, IoVar, SampleKind, ShaderStage, StorageAccess, StorageFormat};
