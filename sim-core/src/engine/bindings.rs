//! Dispatch glue between the interpreter's memory requests and device memory: descriptor
//! bindings resolved to device addresses, and lanes coalesced into contiguous runs (each run
//! one cache request, so a subgroup reading consecutive words costs one line, not 64 lanes).

use sim_shader::{BindingKind, LaneAccess};

use std::sync::Arc;

use crate::api::program::Program;
use crate::api::workload::{BufferBinding, BufferId, ImageDescriptor};

/// A pipeline binding resolved for one dispatch.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The buffer bound (an image's resource index, for an image binding).
    pub buffer: BufferId,
    /// Device address of the first byte of the bound range.
    pub base: u64,
    /// Offset of the bound range within the buffer.
    pub buffer_offset: u64,
    /// Size of the bound range in bytes.
    pub range: u64,
    /// Storage or uniform.
    pub kind: BindingKind,
    /// The shader declares the buffer `Coherent`: every access is made at the coherence point.
    pub coherent: bool,
    /// Otherwise, the byte ranges (from the start of the bound range) of the `Coherent` members
    /// of a partly coherent block: accesses inside them are made at the coherence point.
    pub coherent_ranges: Vec<std::ops::Range<u64>>,
    /// An image binding's view (`buffer` is then the image's resource index, and the bound range
    /// the whole image, `base` its first byte).
    pub view: Option<Arc<View>>,
    /// A sampler binding's sampler (or a combined image sampler's).
    pub sampler: Option<sim_rop::Sampler>,
}

impl Bound {
    /// Whether the bytes from `at` on (offsets into the bound range) are accessed at the
    /// coherence point, and the offset, at most `end`, where that stops holding.
    #[inline]
    pub fn coherence_from(&self, at: u64, end: u64) -> (bool, u64) {
        if self.coherent || self.coherent_ranges.is_empty() {
            return (self.coherent, end);
        }
        let mut next = end;
        for r in &self.coherent_ranges {
            if r.contains(&at) {
                return (true, r.end.min(end));
            }
            if r.start > at {
                next = next.min(r.start);
            }
        }
        (false, next)
    }
}

/// An image view bound to a dispatch: the image, where it lies and which subresources it covers.
#[derive(Clone, Debug)]
pub struct View {
    /// The workload's image index.
    pub image: usize,
    /// The image's placement.
    pub layout: sim_rop::ImageLayout,
    /// The subresources the view covers (colour).
    pub range: sim_rop::SubresourceRange,
}

impl View {
    /// The view as the interpreter sees it: level 0's extent, levels and layers.
    pub fn shape(&self) -> sim_shader::ImageShape {
        sim_shader::ImageShape { extent: self.layout.desc.level_extent(self.range.base_mip_level), levels: self.range.level_count, layers: self.range.layer_count }
    }
}

/// Resolves the pipeline's bindings (in the pipeline's order) against a dispatch's descriptors.
/// Assumes [`check_bindings`](crate::api::program::check_bindings) and the program's range checks passed.
pub fn resolve(prog: &Program<'_>, infos: &[sim_shader::BindingInfo], bindings: &[BufferBinding], images: &[ImageDescriptor]) -> Result<Vec<Bound>, String> {
    let mut out = Vec::new();
    for info in infos {
        if !matches!(info.kind, BindingKind::StorageBuffer { .. } | BindingKind::UniformBuffer) {
            let d = images
                .iter()
                .find(|d| d.set == info.group && d.binding == info.binding)
                .ok_or_else(|| format!("binding (set {}, binding {}) is not bound", info.group, info.binding))?;
            let sampler = d.sampler.map(|s| prog.workload.samplers[s].sampler);
            let bound = match (d.image, info.kind) {
                (Some(image), BindingKind::SampledImage { .. } | BindingKind::StorageImage { .. }) => {
                    let im = &prog.workload.images[image];
                    let r = prog.image_resource(image);
                    let view = View { image, layout: im.layout.clone(), range: d.range };
                    Bound { buffer: r, base: prog.buffer_addr(r, 0), buffer_offset: 0, range: im.layout.size, kind: info.kind, coherent: false, coherent_ranges: Vec::new(), view: Some(Arc::new(view)), sampler }
                }
                (_, BindingKind::Sampler) if sampler.is_some() => Bound { buffer: 0, base: 0, buffer_offset: 0, range: 0, kind: info.kind, coherent: false, coherent_ranges: Vec::new(), view: None, sampler },
                _ => return Err(format!("binding (set {}, binding {}) holds a {} descriptor, which the shader's declaration cannot take", info.group, info.binding, d.descriptor_type.vk_name())),
            };
            out.push(bound);
            continue;
        }
        let b = bindings
            .iter()
            .find(|b| b.set == info.group && b.binding == info.binding)
            .ok_or_else(|| format!("binding (set {}, binding {}) is not bound", info.group, info.binding))?;
        let buf = &prog.workload.buffers[b.buffer];
        let range = b.range.unwrap_or(buf.size - b.offset);
        if range < info.static_size as u64 {
            return Err(format!(
                "binding (set {}, binding {}) has {range} bytes bound, the shader's type needs at least {}",
                info.group, info.binding, info.static_size
            ));
        }
        out.push(Bound { buffer: b.buffer, base: prog.buffer_addr(b.buffer, b.offset), buffer_offset: b.offset, range,
            kind: info.kind,
            coherent: info.coherent,
            // The last member of a block runs to the end of the binding (`u32::MAX`).
            coherent_ranges: info.coherent_ranges.iter().map(|r| r.start as u64..if r.end == u32::MAX { u64::MAX } else { r.end as u64 }).collect(),
            view: None,
            sampler: None,
        });
    }
    Ok(out)
}

/// The `workgroup_id` of the `linear`-th workgroup of a dispatch (x fastest, then y, then z),
/// offset by vkCmdDispatchBase's base group.
pub fn workgroup_id(linear: u64, group_count: [u32; 3], base: [u32; 3]) -> [u32; 3] {
    let [gx, gy, _] = group_count.map(|g| g.max(1) as u64);
    [base[0] + (linear % gx) as u32, base[1] + ((linear / gx) % gy) as u32, base[2] + (linear / (gx * gy)) as u32]
}

/// A run of lanes whose accesses are contiguous in memory: one cache request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Offset within the bound range of the first byte.
    pub offset: u64,
    /// Bytes in the run.
    pub len: u64,
    /// Index into the request's `lanes` of the first lane.
    pub first_lane: usize,
    /// Number of lanes.
    pub lanes: usize,
    /// Offset of the run's bytes within the request's data/result buffer.
    pub data_pos: usize,
}

/// The most bytes one coalesced run covers: one request should not exceed a few lines.
pub const MAX_RUN_BYTES: u64 = 256;

/// Splits a request's lanes into runs of contiguous, ascending accesses.
pub fn coalesce(lanes: &[LaneAccess], out: &mut Vec<Run>) {
    out.clear();
    let mut pos = 0usize;
    for (i, l) in lanes.iter().enumerate() {
        let size = l.size as u64;
        if let Some(r) = out.last_mut()
            && r.offset + r.len == l.offset
            && r.len + size <= MAX_RUN_BYTES
        {
            r.len += size;
            r.lanes += 1;
        } else {
            out.push(Run { offset: l.offset, len: size, first_lane: i, lanes: 1, data_pos: pos });
        }
        pos += l.size as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_lanes_coalesce_and_gaps_split() {
        let lanes: Vec<LaneAccess> =
            [(0, 0), (1, 4), (2, 8), (3, 100), (4, 104)].iter().map(|&(lane, offset)| LaneAccess { lane, offset, size: 4 }).collect();
        let mut runs = Vec::new();
        coalesce(&lanes, &mut runs);
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[0].offset, runs[0].len, runs[0].lanes), (0, 12, 3));
        assert_eq!((runs[1].offset, runs[1].len, runs[1].first_lane, runs[1].data_pos), (100, 8, 3, 12));
    }

    #[test]
    fn coherence_splits_at_the_coherent_members() {
        let mut b = Bound { buffer: 0, base: 0, buffer_offset: 0, range: 4096, kind: BindingKind::StorageBuffer { read_only: false }, coherent: false, coherent_ranges: vec![0..256, 512..u64::MAX], view: None, sampler: None };
        assert_eq!(b.coherence_from(100, 1000), (true, 256));
        assert_eq!(b.coherence_from(256, 1000), (false, 512));
        assert_eq!(b.coherence_from(300, 400), (false, 400));
        assert_eq!(b.coherence_from(600, 1000), (true, 1000));
        b.coherent_ranges.clear();
        assert_eq!(b.coherence_from(100, 1000), (false, 1000));
        b.coherent = true;
        assert_eq!(b.coherence_from(100, 1000), (true, 1000));
    }
}
