//! Where an image's texels lie in memory: linear tiling (rows one after another at a row pitch)
//! and optimal tiling (8x8-texel tiles, each one slot), per plane, mip level and array layer.
//!
//! # Design
//! An [`ImageLayout`] is computed once from an [`ImageDesc`] and the profile's [`TilingParams`];
//! every question after that (the address of a texel, the tile slot it lies in, the byte ranges
//! of a subresource range) is arithmetic on it. Subresources are placed plane by plane, then
//! layer by layer, then level by level, each at an offset aligned to its tile slot (optimal) or
//! to the row-pitch alignment (linear). Optimal tiles are 8x8 texels of one level and layer,
//! stored row-major inside the tile, tiles row-major across the level; a slot is 64 texels, so
//! 256 bytes for 32-bit texels, 64 for the 1-byte stencil plane, 512 and 1024 for 64- and
//! 128-bit texels. The description is checked as Vulkan's valid usage checks
//! `VkImageCreateInfo`, against limits that keep every size a u64 far from overflow, so a
//! hostile extent is refused before anything is allocated.

use crate::format::{Aspect, Format};

/// Texels on a side of an optimal tile.
pub const TILE_DIM: u32 = 8;

/// Texels in an optimal tile.
pub const TILE_TEXELS: u32 = TILE_DIM * TILE_DIM;

/// The largest width, height or depth accepted (maxImageDimension2D of the built-in machines).
pub const MAX_DIMENSION: u32 = 16384;

/// The most array layers accepted (maxImageArrayLayers).
pub const MAX_ARRAY_LAYERS: u32 = 2048;

/// The largest image accepted, in bytes (4 GiB).
pub const MAX_IMAGE_BYTES: u64 = 4 << 30;

/// How texels are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiling {
    /// Rows one after another at the row pitch (host-accessible; aliases like a buffer).
    Linear,
    /// 8x8-texel tiles of the profile's choosing (opaque; may be compressed).
    Optimal,
}

/// 1D, 2D or 3D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageType {
    /// Height and depth 1.
    D1,
    /// Depth 1.
    D2,
    /// No array layers.
    D3,
}

/// What `vkCreateImage` is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// 1D, 2D or 3D.
    pub image_type: ImageType,
    /// The texel format.
    pub format: Format,
    /// Width, height, depth.
    pub extent: [u32; 3],
    /// Mip levels.
    pub mip_levels: u32,
    /// Array layers.
    pub array_layers: u32,
    /// Linear or optimal.
    pub tiling: Tiling,
}

/// The profile's placement rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TilingParams {
    /// A linear row's pitch is a multiple of this (a power of two).
    pub row_pitch_alignment: u64,
    /// An image's start in memory must be a multiple of this (a power of two).
    pub base_alignment: u64,
}

impl Default for TilingParams {
    fn default() -> Self {
        TilingParams { row_pitch_alignment: 256, base_alignment: 4096 }
    }
}

/// A description Vulkan's valid usage refuses: the VUID and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({vuid})")]
pub struct ImageError {
    /// The valid-usage id the description breaks (or `gpusim-limit` for gpusim's own limits).
    pub vuid: &'static str,
    /// What is wrong, with the values.
    pub message: String,
}

fn err(vuid: &'static str, message: String) -> ImageError {
    ImageError { vuid, message }
}

/// One subresource (plane, level, layer) as placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subresource {
    /// Offset from the image's start.
    pub offset: u64,
    /// Bytes it spans.
    pub size: u64,
    /// Width, height, depth of the level.
    pub extent: [u32; 3],
    /// Bytes a texel takes in this plane.
    pub texel_bytes: u32,
    /// Linear: bytes from a row to the next. Optimal: bytes from a row of tiles to the next.
    pub row_pitch: u64,
    /// Bytes from one depth slice to the next.
    pub slice_pitch: u64,
    /// Optimal: tiles across a row (0 for linear).
    pub tiles_x: u32,
}

/// An image placed in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageLayout {
    /// The description it was made from.
    pub desc: ImageDesc,
    /// Bytes the image needs.
    pub size: u64,
    /// The alignment its memory offset needs.
    pub alignment: u64,
    /// Per plane (in [`Format::aspects`] order), per layer, per level.
    subresources: Vec<Subresource>,
}

/// A range of subresources, as Vulkan's `VkImageSubresourceRange`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubresourceRange {
    /// The aspects (a subset of the format's).
    pub aspects: [bool; 3],
    /// First level.
    pub base_mip_level: u32,
    /// Levels.
    pub level_count: u32,
    /// First layer.
    pub base_array_layer: u32,
    /// Layers.
    pub layer_count: u32,
}

impl SubresourceRange {
    /// Every aspect, level and layer of `desc`.
    pub fn whole(desc: &ImageDesc) -> SubresourceRange {
        let mut aspects = [false; 3];
        for &a in desc.format.aspects() {
            aspects[a as usize] = true;
        }
        SubresourceRange { aspects, base_mip_level: 0, level_count: desc.mip_levels, base_array_layer: 0, layer_count: desc.array_layers }
    }
}

fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

impl ImageDesc {
    /// Checks the description as Vulkan's valid usage of `VkImageCreateInfo` does, and against
    /// gpusim's limits.
    pub fn validate(&self) -> Result<(), ImageError> {
        let [w, h, d] = self.extent;
        if w == 0 || h == 0 || d == 0 {
            return Err(err("VUID-VkImageCreateInfo-extent-00944", format!("extent {:?} has a zero dimension", self.extent)));
        }
        match self.image_type {
            ImageType::D1 if h != 1 || d != 1 => return Err(err("VUID-VkImageCreateInfo-imageType-00956", format!("a 1D image has height and depth 1, not {h} and {d}"))),
            ImageType::D2 if d != 1 => return Err(err("VUID-VkImageCreateInfo-imageType-00957", format!("a 2D image has depth 1, not {d}"))),
            ImageType::D3 if self.array_layers != 1 => return Err(err("VUID-VkImageCreateInfo-imageType-00961", format!("a 3D image has 1 array layer, not {}", self.array_layers))),
            _ => {}
        }
        if let Some(big) = self.extent.iter().find(|&&x| x > MAX_DIMENSION) {
            return Err(err("VUID-VkImageCreateInfo-extent-02252", format!("a dimension of {big} is past maxImageDimension ({MAX_DIMENSION})")));
        }
        if self.array_layers == 0 || self.array_layers > MAX_ARRAY_LAYERS {
            return Err(err("VUID-VkImageCreateInfo-arrayLayers-02256", format!("{} array layers is not between 1 and maxImageArrayLayers ({MAX_ARRAY_LAYERS})", self.array_layers)));
        }
        let most = 32 - w.max(h).max(d).leading_zeros();
        if self.mip_levels == 0 || self.mip_levels > most {
            return Err(err("VUID-VkImageCreateInfo-mipLevels-00958", format!("{} mip levels is not between 1 and {most} (a full chain for {:?})", self.mip_levels, self.extent)));
        }
        if self.tiling == Tiling::Linear && self.format.is_depth_stencil() {
            return Err(err("VUID-VkImageCreateInfo-tiling-02261", format!("{} is not supported with linear tiling", self.format)));
        }
        if self.tiling == Tiling::Linear && (self.mip_levels > 1 || self.array_layers > 1 || self.image_type != ImageType::D2) {
            // What every implementation supports with linear tiling (Vulkan's guaranteed set).
            return Err(err("VUID-VkImageCreateInfo-imageCreateMaxMipLevels-02251", "linear tiling supports one 2D level and layer".into()));
        }
        Ok(())
    }

    /// The extent of mip level `level`.
    pub fn level_extent(&self, level: u32) -> [u32; 3] {
        self.extent.map(|x| (x >> level).max(1))
    }
}

impl ImageLayout {
    /// Places `desc` by `params`.
    pub fn new(desc: ImageDesc, params: &TilingParams) -> Result<ImageLayout, ImageError> {
        desc.validate()?;
        let mut subresources = Vec::new();
        let mut at = 0u64;
        let mut alignment = params.base_alignment.max(1);
        for &aspect in desc.format.aspects() {
            let texel_bytes = desc.format.plane_bytes(aspect).unwrap_or(1);
            for _layer in 0..desc.array_layers {
                for level in 0..desc.mip_levels {
                    let extent = desc.level_extent(level);
                    let [w, h, d] = extent.map(u64::from);
                    let s = match desc.tiling {
                        Tiling::Linear => {
                            let row_pitch = align(w * u64::from(texel_bytes), params.row_pitch_alignment.max(1));
                            at = align(at, params.row_pitch_alignment.max(1));
                            Subresource { offset: at, size: row_pitch * h * d, extent, texel_bytes, row_pitch, slice_pitch: row_pitch * h, tiles_x: 0 }
                        }
                        Tiling::Optimal => {
                            let slot = u64::from(TILE_TEXELS * texel_bytes);
                            alignment = alignment.max(slot);
                            let (tx, ty) = (w.div_ceil(u64::from(TILE_DIM)), h.div_ceil(u64::from(TILE_DIM)));
                            at = align(at, slot);
                            Subresource { offset: at, size: tx * ty * d * slot, extent, texel_bytes, row_pitch: tx * slot, slice_pitch: tx * ty * slot, tiles_x: tx as u32 }
                        }
                    };
                    at += s.size;
                    if at > MAX_IMAGE_BYTES {
                        return Err(err("gpusim-limit", format!("the image needs more than {} GiB", MAX_IMAGE_BYTES >> 30)));
                    }
                    subresources.push(s);
                }
            }
        }
        Ok(ImageLayout { desc, size: align(at, alignment), alignment, subresources })
    }

    fn plane(&self, aspect: Aspect) -> Option<usize> {
        self.desc.format.aspects().iter().position(|&a| a == aspect)
    }

    /// The subresource of `aspect`, `level`, `layer`, or `None` when there is none.
    pub fn subresource(&self, aspect: Aspect, level: u32, layer: u32) -> Option<&Subresource> {
        if level >= self.desc.mip_levels || layer >= self.desc.array_layers {
            return None;
        }
        let p = self.plane(aspect)?;
        let per_plane = (self.desc.mip_levels * self.desc.array_layers) as usize;
        self.subresources.get(p * per_plane + (layer * self.desc.mip_levels + level) as usize)
    }

    /// The offset (from the image's start) of the texel at `xyz` of a subresource; `None` when
    /// outside it.
    pub fn texel_offset(&self, aspect: Aspect, level: u32, layer: u32, xyz: [u32; 3]) -> Option<u64> {
        let s = self.subresource(aspect, level, layer)?;
        if xyz.iter().zip(&s.extent).any(|(v, e)| v >= e) {
            return None;
        }
        let [x, y, z] = xyz.map(u64::from);
        let b = u64::from(s.texel_bytes);
        Some(match self.desc.tiling {
            Tiling::Linear => s.offset + z * s.slice_pitch + y * s.row_pitch + x * b,
            Tiling::Optimal => {
                let (t, d) = (u64::from(TILE_DIM), u64::from(TILE_TEXELS) * b);
                let tile = (y / t) * u64::from(s.tiles_x) + x / t;
                s.offset + z * s.slice_pitch + tile * d + ((y % t) * t + x % t) * b
            }
        })
    }

    /// The tile slot (offset from the image's start, bytes) holding the texel at `xyz`; `None`
    /// for a linear image or a texel outside the subresource.
    pub fn tile_slot(&self, aspect: Aspect, level: u32, layer: u32, xyz: [u32; 3]) -> Option<(u64, u64)> {
        if self.desc.tiling != Tiling::Optimal {
            return None;
        }
        let s = self.subresource(aspect, level, layer)?;
        let slot = u64::from(TILE_TEXELS * s.texel_bytes);
        let off = self.texel_offset(aspect, level, layer, xyz)?;
        Some((s.offset + (off - s.offset) / slot * slot, slot))
    }

    /// The byte ranges (offset from the image's start, size) the subresources of `range` span,
    /// merged, in offset order. `None` when the range names an aspect, level or layer the image
    /// does not have.
    pub fn range_bytes(&self, range: &SubresourceRange) -> Option<Vec<(u64, u64)>> {
        let levels = range.base_mip_level.checked_add(range.level_count)?;
        let layers = range.base_array_layer.checked_add(range.layer_count)?;
        if levels > self.desc.mip_levels || layers > self.desc.array_layers || range.level_count == 0 || range.layer_count == 0 {
            return None;
        }
        let mut spans = Vec::new();
        for aspect in [Aspect::Color, Aspect::Depth, Aspect::Stencil].into_iter().filter(|a| range.aspects[*a as usize]) {
            self.plane(aspect)?;
            for layer in range.base_array_layer..layers {
                for level in range.base_mip_level..levels {
                    let s = self.subresource(aspect, level, layer)?;
                    spans.push((s.offset, s.offset + s.size));
                }
            }
        }
        spans.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (a, b) in spans {
            match out.last_mut() {
                Some((s, n)) if *s + *n >= a => *n = (*s + *n).max(b) - *s,
                _ => out.push((a, b - a)),
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(format: Format, extent: [u32; 3], mips: u32, layers: u32, tiling: Tiling) -> ImageDesc {
        ImageDesc { image_type: if extent[2] > 1 { ImageType::D3 } else { ImageType::D2 }, format, extent, mip_levels: mips, array_layers: layers, tiling }
    }

    #[test]
    fn an_optimal_32_bit_image_is_256_byte_tiles_row_major() {
        let l = ImageLayout::new(desc(Format::R8G8B8A8_UNORM, [20, 10, 1], 1, 1, Tiling::Optimal), &TilingParams::default()).unwrap();
        // 3 x 2 tiles of 256 bytes.
        assert_eq!(l.size, 4096, "rounded up to the base alignment");
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [0, 0, 0]), Some(0));
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [1, 0, 0]), Some(4));
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [0, 1, 0]), Some(32));
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [8, 0, 0]), Some(256));
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [19, 9, 0]), Some(5 * 256 + (8 + 3) * 4));
        assert_eq!(l.tile_slot(Aspect::Color, 0, 0, [19, 9, 0]), Some((5 * 256, 256)));
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [20, 0, 0]), None);
    }

    #[test]
    fn linear_rows_sit_at_the_row_pitch() {
        let l = ImageLayout::new(desc(Format::R8G8B8A8_UNORM, [10, 3, 1], 1, 1, Tiling::Linear), &TilingParams::default()).unwrap();
        let s = l.subresource(Aspect::Color, 0, 0).unwrap();
        assert_eq!(s.row_pitch, 256);
        assert_eq!(l.texel_offset(Aspect::Color, 0, 0, [2, 2, 0]), Some(2 * 256 + 8));
        assert_eq!(l.tile_slot(Aspect::Color, 0, 0, [0, 0, 0]), None);
    }

    #[test]
    fn depth_stencil_planes_levels_and_layers_do_not_overlap() {
        let l = ImageLayout::new(desc(Format::D24_UNORM_S8_UINT, [64, 64, 1], 7, 3, Tiling::Optimal), &TilingParams::default()).unwrap();
        let mut spans = Vec::new();
        for a in [Aspect::Depth, Aspect::Stencil] {
            for layer in 0..3 {
                for level in 0..7 {
                    let s = l.subresource(a, level, layer).unwrap();
                    assert_eq!(s.offset % u64::from(TILE_TEXELS * s.texel_bytes), 0);
                    spans.push((s.offset, s.offset + s.size));
                }
            }
        }
        spans.sort_unstable();
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "{spans:?}");
        assert!(spans.last().unwrap().1 <= l.size);
        assert_eq!(l.subresource(Aspect::Stencil, 0, 0).unwrap().texel_bytes, 1);
        assert_eq!(l.subresource(Aspect::Color, 0, 0), None);
        // The whole range is everything; one layer's depth is one span per level.
        let whole = l.range_bytes(&SubresourceRange::whole(&l.desc)).unwrap();
        assert_eq!(whole.len(), 1, "{whole:?}");
        let one = l.range_bytes(&SubresourceRange { aspects: [false, true, false], base_mip_level: 0, level_count: 7, base_array_layer: 1, layer_count: 1 }).unwrap();
        assert_eq!(one.len(), 1, "the levels of one layer are contiguous: {one:?}");
        assert_eq!(l.range_bytes(&SubresourceRange { aspects: [true, false, false], base_mip_level: 0, level_count: 1, base_array_layer: 0, layer_count: 1 }), None);
    }

    #[test]
    fn descriptions_vulkan_refuses_are_refused_with_their_vuid() {
        let p = TilingParams::default();
        let cases = [
            (desc(Format::R8G8B8A8_UNORM, [0, 4, 1], 1, 1, Tiling::Optimal), "VUID-VkImageCreateInfo-extent-00944"),
            (desc(Format::R8G8B8A8_UNORM, [4, 4, 1], 4, 1, Tiling::Optimal), "VUID-VkImageCreateInfo-mipLevels-00958"),
            (desc(Format::R8G8B8A8_UNORM, [1 << 20, 4, 1], 1, 1, Tiling::Optimal), "VUID-VkImageCreateInfo-extent-02252"),
            (desc(Format::R8G8B8A8_UNORM, [4, 4, 1], 1, 100_000, Tiling::Optimal), "VUID-VkImageCreateInfo-arrayLayers-02256"),
            (desc(Format::D32_SFLOAT, [4, 4, 1], 1, 1, Tiling::Linear), "VUID-VkImageCreateInfo-tiling-02261"),
            (desc(Format::R32G32B32A32_SFLOAT, [16384, 16384, 1], 1, 2048, Tiling::Optimal), "gpusim-limit"),
        ];
        for (d, vuid) in cases {
            assert_eq!(ImageLayout::new(d, &p).map(|_| ()).unwrap_err().vuid, vuid, "{d:?}");
        }
    }
}
