//! The texture unit's part of a dispatch: an image request of the interpreter (a texel load, a
//! filtered sample, a texel store) lowered to the byte accesses it makes, performed through the
//! same [`Port`] as buffer accesses, and the texels it reads combined into what each lane gets.
//!
//! # Design
//! An image request becomes an ordinary [`MemRequest`] on the image's binding: one lane access
//! per texel (a sample's taps, a load's texel, a store's texel), at the texel's offset in the
//! image as the layout places it. Everything downstream of a buffer load then holds for images
//! too, unchanged and shared by the simulated and the reference run: the path its binding's kind
//! names (a sampled image the texture path, with the profile's decoder; a storage image the
//! storage path), coalescing, the fingerprint the oracle compares, the per-lane explanation of a
//! stale read, and the accesses the hazard detector takes from the reference run. What is the
//! texture unit's own is before and after: where the texels are (the sampler's footprint,
//! `sim_rop::Sampler::footprint`), and what the lane gets (each texel decoded by its format and
//! filtered with its weight, `sim_rop::filter`; a store's words encoded by the format).

use std::sync::Arc;

use sim_caches::Tag;
use sim_rop::{Aspect, Footprint, Sampler};
use sim_shader::{ImageOp, ImageRequest, LaneAccess, MemOp, MemRequest};

use crate::engine::bindings::{Bound, View};
use crate::engine::exec::{Performed, Port, Scratch, perform};

/// The image binding behind a request, or an error naming what is missing.
fn view_of(bound: &[Bound], binding: u32) -> Result<&Arc<View>, String> {
    bound.get(binding as usize).and_then(|b| b.view.as_ref()).ok_or_else(|| format!("image request on binding index {binding}, which holds no image view"))
}

/// Reusable buffers of image requests.
#[derive(Default)]
pub struct TexScratch {
    /// The byte request an image request became.
    pub req: Option<MemRequest>,
    /// Each lane's sample footprint, in request order (samples only).
    footprints: Vec<Footprint>,
    /// What each lane of the image request gets (loads and samples).
    pub words: Vec<[u32; 4]>,
}

/// Lowers image request `ir` to its byte request in `tex.req`.
fn lower(ir: &ImageRequest, bound: &[Bound], tex: &mut TexScratch) -> Result<(), String> {
    let view = view_of(bound, ir.binding_index)?;
    let format = view.layout.desc.format;
    let size = format.plane_bytes(Aspect::Color).unwrap_or(4);
    let offset = |level: u32, layer: u32, texel: [u32; 3]| -> Result<u64, String> {
        view.layout
            .texel_offset(Aspect::Color, view.range.base_mip_level + level, view.range.base_array_layer + layer, texel)
            .ok_or_else(|| format!("texel {texel:?} of level {level}, layer {layer} is outside the view"))
    };
    let mut req = tex.req.take().unwrap_or_default();
    req.binding_index = ir.binding_index;
    req.group = ir.group;
    req.binding = ir.binding;
    req.kind = ir.kind;
    req.lanes.clear();
    req.data.clear();
    tex.footprints.clear();
    match ir.op {
        ImageOp::Load => {
            req.op = MemOp::Load;
            for l in &ir.lanes {
                req.lanes.push(LaneAccess { lane: l.lane, offset: offset(l.level, l.layer, l.texel)?, size });
            }
        }
        ImageOp::Store => {
            req.op = MemOp::Store;
            for (l, words) in ir.lanes.iter().zip(&ir.values) {
                req.lanes.push(LaneAccess { lane: l.lane, offset: offset(0, l.layer, l.texel)?, size });
                let bytes = format.encode_words(*words).ok_or_else(|| format!("a shader cannot store {format} texels"))?;
                req.data.extend_from_slice(&bytes);
            }
        }
        ImageOp::SampleLevel { sampler } => {
            req.op = MemOp::Load;
            let sampler = sampler_of(bound, sampler)?;
            let shape = view.shape();
            let dims = match view.layout.desc.image_type {
                sim_rop::ImageType::D1 => 1,
                sim_rop::ImageType::D2 => 2,
                sim_rop::ImageType::D3 => 3,
            };
            for l in &ir.lanes {
                let f = sampler.footprint(dims, shape.extent, shape.levels, l.coords, l.lod);
                for t in &f.taps {
                    req.lanes.push(LaneAccess { lane: l.lane, offset: offset(t.level, l.layer, t.texel)?, size });
                }
                tex.footprints.push(f);
            }
        }
    }
    tex.req = Some(req);
    Ok(())
}

/// The sampler at binding index `binding`.
fn sampler_of(bound: &[Bound], binding: u32) -> Result<Sampler, String> {
    bound.get(binding as usize).and_then(|b| b.sampler).ok_or_else(|| format!("a sample names binding index {binding}, which holds no sampler"))
}

/// Performs image request `ir` through `port` (an error is a message: an access the memory
/// refused, or a request the bindings cannot serve): its texels are read or written as one byte
/// request (left in `tex.req`, whose load results are in `scratch` as for a buffer load), and
/// what each lane gets is left in `tex.words`.
#[allow(clippy::too_many_arguments)]
pub fn perform_image<P: Port>(port: &mut P, cu: usize, ir: &ImageRequest, bound: &[Bound], tag: Tag, scratch: &mut Scratch, tex: &mut TexScratch) -> Result<Performed, String> {
    lower(ir, bound, tex)?;
    let req = tex.req.as_ref().expect("lowered");
    let performed = perform(port, cu, req, bound, tag, scratch).map_err(|e| e.to_string())?;
    tex.words.clear();
    let view = view_of(bound, ir.binding_index)?;
    let format = view.layout.desc.format;
    let size = format.plane_bytes(Aspect::Color).unwrap_or(4) as usize;
    let decode = |k: usize| format.decode(Aspect::Color, &scratch.results[k * size..(k + 1) * size]);
    match ir.op {
        ImageOp::Store => {}
        ImageOp::Load => tex.words.extend((0..ir.lanes.len()).map(|k| decode(k).words())),
        ImageOp::SampleLevel { sampler } => {
            let border = sampler_of(bound, sampler)?.border_words_for(format, Aspect::Color);
            let mut k = 0;
            let mut texels = Vec::new();
            for f in &tex.footprints {
                texels.clear();
                texels.extend((k..k + f.taps.len()).map(decode));
                k += f.taps.len();
                tex.words.push(sim_rop::filter(f, &texels, border));
            }
        }
    }
    Ok(performed)
}
