//! The functional reference: a dispatch run to completion against plain byte buffers, with
//! workgroups in linear id order and, within a workgroup, subgroups stepped round-robin one
//! step at a time. Deterministic by construction. Image requests go to a handler the caller
//! gives ([`FlatImages`]), since what a texel holds (format, filtering) is the caller's.

use crate::error::ShaderError;
use crate::interp::{DEFAULT_MAX_INSTRUCTIONS, ExecStats, ImageRequest, ImageShape, MemOp, MemRequest, Step, WorkgroupConfig};
use crate::module::ComputePipeline;
use crate::program::BindingKind;

/// A buffer bound for a flat dispatch.
#[derive(Clone, Debug)]
pub struct FlatBinding {
    /// Descriptor set / bind group.
    pub group: u32,
    /// Binding number.
    pub binding: u32,
    /// The buffer's bytes (the whole bound range).
    pub bytes: Vec<u8>,
}

impl FlatBinding {
    /// A binding holding `bytes`.
    pub fn new(group: u32, binding: u32, bytes: Vec<u8>) -> FlatBinding {
        FlatBinding { group, binding, bytes }
    }
}

/// Options of a flat dispatch.
#[derive(Clone, Copy, Debug)]
pub struct FlatOptions {
    /// Lanes per subgroup (1..=64).
    pub subgroup_size: u32,
    /// Instruction limit per subgroup (runaway-loop guard).
    pub max_instructions: u64,
}

impl Default for FlatOptions {
    fn default() -> Self {
        FlatOptions { subgroup_size: 32, max_instructions: DEFAULT_MAX_INSTRUCTIONS }
    }
}

/// The images of a flat dispatch: their shapes and what performs their requests.
#[derive(Default)]
pub struct FlatImages<'a> {
    /// Shape of the image bound to each entry of [`ComputePipeline::bindings`], in that order
    /// (see [`WorkgroupConfig::image_shapes`]; may be empty when the entry point uses no image).
    pub shapes: &'a [ImageShape],
    /// Performs an image request and returns what [`crate::Workgroup::complete_image`] takes:
    /// one texel per lane of a load or sample, nothing for a store. Without one, a dispatch that
    /// makes an image request fails with [`ShaderError::Dispatch`] (image queries need only the
    /// shapes).
    #[allow(clippy::type_complexity)]
    pub handler: Option<&'a mut dyn FnMut(&ImageRequest) -> Result<Vec<[u32; 4]>, ShaderError>>,
}

impl std::fmt::Debug for FlatImages<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatImages").field("shapes", &self.shapes).field("handler", &self.handler.as_ref().map(|_| "FnMut")).finish()
    }
}

/// Totals of a flat dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlatStats {
    /// Workgroups run.
    pub workgroups: u64,
    /// Subgroups run.
    pub subgroups: u64,
    /// Execution statistics summed over all subgroups.
    pub exec: ExecStats,
}

/// Run a dispatch of `group_count` workgroups against `bindings` with subgroups of
/// `subgroup_size` lanes and the default instruction limit.
pub fn run_dispatch_flat(
    pipeline: &ComputePipeline,
    group_count: [u32; 3],
    bindings: &mut [FlatBinding],
    push_constants: &[u8],
    subgroup_size: u32,
) -> Result<FlatStats, ShaderError> {
    let options = FlatOptions { subgroup_size, ..FlatOptions::default() };
    run_dispatch_flat_with(pipeline, group_count, bindings, push_constants, &options)
}

/// [`run_dispatch_flat`] with explicit options (and no images: see
/// [`run_dispatch_flat_images`]).
pub fn run_dispatch_flat_with(
    pipeline: &ComputePipeline,
    group_count: [u32; 3],
    bindings: &mut [FlatBinding],
    push_constants: &[u8],
    options: &FlatOptions,
) -> Result<FlatStats, ShaderError> {
    run_dispatch_flat_images(pipeline, group_count, bindings, push_constants, options, FlatImages::default())
}

/// [`run_dispatch_flat_with`] for an entry point that uses images: their shapes, and the
/// handler that performs image requests, come from `images`. `bindings` holds the buffers only
/// (images and samplers have none).
pub fn run_dispatch_flat_images(
    pipeline: &ComputePipeline,
    group_count: [u32; 3],
    bindings: &mut [FlatBinding],
    push_constants: &[u8],
    options: &FlatOptions,
    mut images: FlatImages<'_>,
) -> Result<FlatStats, ShaderError> {
    // Map each pipeline buffer binding to the buffer given for it (images and samplers to none).
    let mut map = Vec::new();
    for b in pipeline.bindings() {
        if !matches!(b.kind, BindingKind::StorageBuffer { .. } | BindingKind::UniformBuffer) {
            map.push(usize::MAX);
            continue;
        }
        let i = bindings
            .iter()
            .position(|f| f.group == b.group && f.binding == b.binding)
            .ok_or_else(|| ShaderError::Dispatch(format!("no buffer bound at group {} binding {}", b.group, b.binding)))?;
        map.push(i);
    }
    let sizes: Vec<u64> = map.iter().map(|&i| bindings.get(i).map_or(0, |b| b.bytes.len() as u64)).collect();
    let mut stats = FlatStats::default();
    if group_count.contains(&0) {
        return Ok(stats);
    }
    let config = WorkgroupConfig {
        workgroup_id: [0; 3],
        num_workgroups: group_count,
        subgroup_size: options.subgroup_size,
        push_constants,
        binding_sizes: &sizes,
        image_shapes: images.shapes,
        max_instructions: options.max_instructions,
    };
    let mut wg = pipeline.workgroup(&config)?;
    let mut results = Vec::new();
    for z in 0..group_count[2] {
        for y in 0..group_count[1] {
            for x in 0..group_count[0] {
                wg.reset([x, y, z]);
                let n = wg.num_subgroups();
                let mut done = vec![false; n];
                let mut remaining = n;
                while remaining > 0 {
                    let mut progressed = false;
                    for (i, d) in done.iter_mut().enumerate() {
                        if *d {
                            continue;
                        }
                        match wg.step(i)? {
                            Step::Memory(req) => {
                                results.clear();
                                perform(req, bindings, &map, &mut results)?;
                                wg.complete(i, &results)?;
                                progressed = true;
                            }
                            Step::Image(req) => {
                                let handler = images.handler.as_mut().ok_or_else(|| {
                                    ShaderError::Dispatch(format!("an image request to group {} binding {}, but no image handler was given", req.group, req.binding))
                                })?;
                                let texels = handler(req)?;
                                wg.complete_image(i, &texels)?;
                                progressed = true;
                            }
                            Step::Barrier { .. } => progressed = true,
                            Step::Blocked => {}
                            Step::Done => {
                                *d = true;
                                remaining -= 1;
                                progressed = true;
                            }
                        }
                    }
                    if !progressed {
                        return Err(ShaderError::Internal("workgroup made no progress".into()));
                    }
                }
                stats.workgroups += 1;
                stats.subgroups += n as u64;
                stats.exec.add(&wg.stats());
            }
        }
    }
    Ok(stats)
}

/// Perform one request on flat buffers, appending what `complete` expects to `results`.
pub fn perform(req: &MemRequest, bindings: &mut [FlatBinding], map: &[usize], results: &mut Vec<u8>) -> Result<(), ShaderError> {
    let bi = *map.get(req.binding_index as usize).ok_or_else(|| ShaderError::Internal("binding map".into()))?;
    let bytes = &mut bindings.get_mut(bi).ok_or_else(|| ShaderError::Internal("binding".into()))?.bytes;
    let mut data_at = 0usize;
    for (i, la) in req.lanes.iter().enumerate() {
        let (o, s) = (la.offset as usize, la.size as usize);
        let range = bytes.get_mut(o..o + s).ok_or_else(|| ShaderError::Internal("request out of range".into()))?;
        match req.op {
            MemOp::Load => results.extend_from_slice(range),
            MemOp::Store => {
                let src = req.data.get(data_at..data_at + s).ok_or_else(|| ShaderError::Internal("store data".into()))?;
                range.copy_from_slice(src);
                data_at += s;
            }
            MemOp::Atomic(op) => {
                let old = u32::from_le_bytes([range[0], range[1], range[2], range[3]]);
                let v = req.operands.get(i).copied().unwrap_or(0);
                let c = req.compares.get(i).copied().unwrap_or(0);
                range[..4].copy_from_slice(&op.apply(old, v, c).to_le_bytes());
                results.extend_from_slice(&old.to_le_bytes());
            }
        }
    }
    Ok(())
}
