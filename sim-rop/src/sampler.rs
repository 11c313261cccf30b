//! The texture unit's arithmetic as pure functions, as the Vulkan specification's "Image
//! Operations" chapter defines it for normalized coordinates and an explicit LOD: the LOD
//! clamp ("LOD Operation"), the choice of one or two mip levels ("Image Level(s) Selection"),
//! the scaling of normalized coordinates ("(s,t,r,q,a) to (u,v,w,a) Transformation"), the
//! integer texel coordinates and fractions of nearest and linear filtering ("(u,v,w,a) to
//! (i,j,k,l,n) Transformation"), the address modes ("Wrapping Operation"), border texels
//! ("Integer Texel Coordinate Validation", "Texel Replacement") and the weighted sums ("Texel
//! Filtering": nearest, linear and mipmap filtering).
//!
//! # Design
//! A sample is split in two steps so that the bytes can come through a simulated texture cache
//! in between: [`Sampler::footprint`] says which texels of which levels a sample reads and with
//! what weights (and how much of it is the border colour); the caller fetches and decodes those
//! texels ([`crate::Format::decode`]) and [`filter`] combines them. Weights are `f32`, computed
//! with plain multiplications and additions in a fixed order (no fused multiply-add), so a
//! sample gives the same bits on every host. Fractions are not quantized to
//! `subTexelPrecisionBits` or `mipmapPrecisionBits`: they keep `f32` precision.
//!
//! Cube maps, unnormalized coordinates, texel offsets, anisotropy, depth comparison and
//! reduction modes other than the weighted average are not modelled; the array layer is not a
//! filtering coordinate and is left to the caller.

use crate::format::{Aspect, Format, NumericClass, Texel};

/// `VkFilter`: how texels are combined within one mip level ("Texel Filtering").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// The texel the coordinates lie in (`VK_FILTER_NEAREST`).
    Nearest,
    /// The 2, 4 or 8 texels around the coordinates, weighted by distance (`VK_FILTER_LINEAR`).
    Linear,
}

/// `VkSamplerMipmapMode`: how mip levels are combined ("Image Level(s) Selection").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MipmapMode {
    /// The one level nearest to the LOD (`VK_SAMPLER_MIPMAP_MODE_NEAREST`).
    Nearest,
    /// The two levels around the LOD, weighted by its fraction
    /// (`VK_SAMPLER_MIPMAP_MODE_LINEAR`).
    Linear,
}

/// `VkSamplerAddressMode`: what an integer texel coordinate outside the level becomes
/// ("Wrapping Operation").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// `i mod size`.
    Repeat,
    /// `(size - 1) - mirror((i mod 2 size) - size)`: the image, then its mirror image, and so on.
    MirroredRepeat,
    /// `clamp(i, 0, size - 1)`.
    ClampToEdge,
    /// `clamp(i, -1, size)`; -1 and `size` are border texels, replaced by the border colour.
    ClampToBorder,
    /// `clamp(mirror(i), 0, size - 1)`: one mirror image around 0, then the edge.
    MirrorClampToEdge,
}

/// `VkBorderColor`: the colour of border texels ("Texel Replacement").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BorderColor {
    /// (0.0, 0.0, 0.0, 0.0).
    FloatTransparentBlack,
    /// (0, 0, 0, 0).
    IntTransparentBlack,
    /// (0.0, 0.0, 0.0, 1.0).
    FloatOpaqueBlack,
    /// (0, 0, 0, 1).
    IntOpaqueBlack,
    /// (1.0, 1.0, 1.0, 1.0).
    FloatOpaqueWhite,
    /// (1, 1, 1, 1).
    IntOpaqueWhite,
}

/// Defines `vk_name` and `parse` for an enum from a table of its variants and Vulkan names.
macro_rules! vk_names {
    ($ty:ident, $prefix:literal, [$(($variant:ident, $name:literal)),* $(,)?]) => {
        impl $ty {
            #[doc = concat!("Every variant, in `Vk", stringify!($ty), "`'s order of values.")]
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];

            #[doc = concat!("Vulkan's name without `", $prefix, "`.")]
            pub fn vk_name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }

            #[doc = concat!("The variant named `name` (Vulkan's name, with or without `", $prefix, "`).")]
            pub fn parse(name: &str) -> Option<$ty> {
                let name = name.strip_prefix($prefix).unwrap_or(name);
                Self::ALL.iter().copied().find(|v| v.vk_name() == name)
            }
        }
    };
}

vk_names!(Filter, "VK_FILTER_", [(Nearest, "NEAREST"), (Linear, "LINEAR")]);
vk_names!(MipmapMode, "VK_SAMPLER_MIPMAP_MODE_", [(Nearest, "NEAREST"), (Linear, "LINEAR")]);
vk_names!(
    AddressMode,
    "VK_SAMPLER_ADDRESS_MODE_",
    [
        (Repeat, "REPEAT"),
        (MirroredRepeat, "MIRRORED_REPEAT"),
        (ClampToEdge, "CLAMP_TO_EDGE"),
        (ClampToBorder, "CLAMP_TO_BORDER"),
        (MirrorClampToEdge, "MIRROR_CLAMP_TO_EDGE"),
    ]
);
vk_names!(
    BorderColor,
    "VK_BORDER_COLOR_",
    [
        (FloatTransparentBlack, "FLOAT_TRANSPARENT_BLACK"),
        (IntTransparentBlack, "INT_TRANSPARENT_BLACK"),
        (FloatOpaqueBlack, "FLOAT_OPAQUE_BLACK"),
        (IntOpaqueBlack, "INT_OPAQUE_BLACK"),
        (FloatOpaqueWhite, "FLOAT_OPAQUE_WHITE"),
        (IntOpaqueWhite, "INT_OPAQUE_WHITE"),
    ]
);

impl BorderColor {
    /// Whether the colour is given as integers (`INT_*`) rather than floats.
    pub fn is_int(self) -> bool {
        matches!(self, BorderColor::IntTransparentBlack | BorderColor::IntOpaqueBlack | BorderColor::IntOpaqueWhite)
    }
}

/// What `vkCreateSampler` is told (the part gpusim models).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// The filter within a level when the texture is magnified (λ ≤ 0).
    pub mag_filter: Filter,
    /// The filter within a level when the texture is minified (λ > 0).
    pub min_filter: Filter,
    /// How mip levels are chosen and combined.
    pub mipmap_mode: MipmapMode,
    /// The address modes of the u, v and w coordinates.
    pub address_mode: [AddressMode; 3],
    /// Added to the shader's LOD (`mipLodBias`).
    pub mip_lod_bias: f32,
    /// The smallest LOD (`minLod`).
    pub min_lod: f32,
    /// The largest LOD (`maxLod`; `VK_LOD_CLAMP_NONE` is 1000).
    pub max_lod: f32,
    /// The colour of border texels under [`AddressMode::ClampToBorder`].
    pub border_color: BorderColor,
}

/// `VK_LOD_CLAMP_NONE`: a `maxLod` that does not clamp.
pub const LOD_CLAMP_NONE: f32 = 1000.0;

impl Default for Sampler {
    /// Nearest filtering and mipmapping, repeat on every axis, no bias, LODs 0 to
    /// [`LOD_CLAMP_NONE`], a transparent black float border.
    fn default() -> Self {
        Sampler {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            mipmap_mode: MipmapMode::Nearest,
            address_mode: [AddressMode::Repeat; 3],
            mip_lod_bias: 0.0,
            min_lod: 0.0,
            max_lod: LOD_CLAMP_NONE,
            border_color: BorderColor::FloatTransparentBlack,
        }
    }
}

/// One texel a sample reads and its weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tap {
    /// The mip level, counted from the image view's base level.
    pub level: u32,
    /// The integer texel coordinates (i, j, k) inside that level, after wrapping; 0 on the axes
    /// the image does not have.
    pub texel: [u32; 3],
    /// The texel's weight in the sample (0 to 1).
    pub weight: f32,
}

/// What a sample reads: up to 16 taps (trilinear filtering of a 3D image is 2 levels of 8), and
/// the weight of the border colour, which replaces the taps that fall outside the image under
/// [`AddressMode::ClampToBorder`]. The taps' weights and the border's add up to 1, up to `f32`
/// rounding.
#[derive(Clone, Debug, PartialEq)]
pub struct Footprint {
    /// The texels read, level by level (the more detailed level first), within a level k
    /// outermost and i innermost. Linear filtering keeps taps whose weight is 0 (the whole 2, 4
    /// or 8 texels around the coordinates are read).
    pub taps: Vec<Tap>,
    /// The weight given to the border colour.
    pub border_weight: f32,
}

/// An integer texel coordinate on one axis after wrapping, or `None` for a border texel.
type AxisTap = (Option<u32>, f32);

impl Sampler {
    /// The LOD λ of a sample with explicit LOD `lod` ("LOD Operation"): `lod + mip_lod_bias`,
    /// clamped to `[min_lod, max_lod]` (to `max_lod` when `min_lod > max_lod`, which Vulkan
    /// leaves undefined). The bias is applied as given (`maxSamplerLodBias` is checked when the
    /// sampler is created); a NaN LOD reads as 0.
    pub fn lambda(&self, lod: f32) -> f32 {
        let biased = lod + self.mip_lod_bias;
        let l = if biased.is_nan() { 0.0 } else { biased };
        let l = if l > self.max_lod {
            self.max_lod
        } else if l < self.min_lod {
            self.min_lod
        } else {
            l
        };
        if l.is_nan() { 0.0 } else { l }
    }

    /// The levels a sample at LOD λ reads and their weights ("Image Level(s) Selection"), from a
    /// view of `levels` levels (`q = levels - 1`, levels counted from the view's base):
    /// `d' = clamp(λ, 0, q)`; NEAREST reads level `ceil(d' + 0.5) - 1` (the preferred rounding:
    /// halves go down); LINEAR reads `d_hi = floor(d')` with weight `1 - δ` and
    /// `d_lo = min(d_hi + 1, q)` with weight `δ = d' - d_hi`, the second level left out when `δ`
    /// is 0.
    fn levels(&self, lambda: f32, levels: u32) -> ([(u32, f32); 2], usize) {
        let q = levels.max(1) - 1;
        let d = if lambda > q as f32 {
            q as f32
        } else if lambda > 0.0 {
            lambda
        } else {
            0.0
        };
        match self.mipmap_mode {
            MipmapMode::Nearest => {
                let level = ((d + 0.5).ceil() - 1.0).max(0.0) as u32;
                ([(level.min(q), 1.0), (0, 0.0)], 1)
            }
            MipmapMode::Linear => {
                let hi_f = d.floor();
                let hi = (hi_f as u32).min(q);
                let lo = (hi + 1).min(q);
                let delta = d - hi_f;
                if delta > 0.0 && lo != hi { ([(hi, 1.0 - delta), (lo, delta)], 2) } else { ([(hi, 1.0), (0, 0.0)], 1) }
            }
        }
    }

    /// The taps of a sample at normalized `coords` (`dims` = 1, 2 or 3 of them used; the others
    /// read as 0 and contribute one tap each) with explicit `lod`, from an image view whose
    /// level 0 has `extent` and which has `levels` levels.
    ///
    /// λ comes from [`Sampler::lambda`]; the levels from "Image Level(s) Selection" (see
    /// [`MipmapMode`]); λ ≤ 0 filters with `mag_filter`, λ > 0 with `min_filter` ("Texel
    /// Filtering"). In a level of width `w` (`max(1, extent >> level)`), `u = s × w`
    /// ("(s,t,r,q,a) to (u,v,w,a) Transformation"); NEAREST reads `i = floor(u)`, LINEAR reads
    /// `i0 = floor(u - 0.5)` with weight `1 - α` and `i0 + 1` with weight `α = frac(u - 0.5)`
    /// ("(u,v,w,a) to (i,j,k,l,n) Transformation"), and so on for v and w; a tap's weight is the
    /// product of its axes' weights and its level's. Each integer coordinate is wrapped by its
    /// axis's address mode ("Wrapping Operation"); a tap with a coordinate outside its level
    /// under [`AddressMode::ClampToBorder`] is a border texel ("Integer Texel Coordinate
    /// Validation") and its weight goes to the border colour ("Texel Replacement").
    ///
    /// A coordinate that is NaN reads as 0; an infinite one lies beyond the edge (clamping
    /// modes) or reads as 0 (repeating modes). `dims` outside 1..=3 is clamped to it, `levels`
    /// 0 reads as 1.
    pub fn footprint(&self, dims: usize, extent: [u32; 3], levels: u32, coords: [f32; 3], lod: f32) -> Footprint {
        let dims = dims.clamp(1, 3);
        let lambda = self.lambda(lod);
        let filter = if lambda <= 0.0 { self.mag_filter } else { self.min_filter };
        let (chosen, n_levels) = self.levels(lambda, levels);
        let mut taps = Vec::with_capacity(n_levels << dims);
        let mut border_weight = 0.0f32;
        for &(level, level_weight) in &chosen[..n_levels] {
            let mut axes: [([AxisTap; 2], usize); 3] = [([(Some(0), 1.0), (None, 0.0)], 1); 3];
            for (axis, slot) in axes.iter_mut().enumerate().take(dims) {
                let size = extent[axis].checked_shr(level).unwrap_or(0).max(1);
                *slot = axis_taps(self.address_mode[axis], filter, size, coords[axis]);
            }
            let (ks, nk) = axes[2];
            let (js, nj) = axes[1];
            let (is, ni) = axes[0];
            for &(k, wk) in &ks[..nk] {
                for &(j, wj) in &js[..nj] {
                    for &(i, wi) in &is[..ni] {
                        let weight = wi * wj * wk * level_weight;
                        match (i, j, k) {
                            (Some(i), Some(j), Some(k)) => taps.push(Tap { level, texel: [i, j, k], weight }),
                            _ => border_weight += weight,
                        }
                    }
                }
            }
        }
        Footprint { taps, border_weight }
    }

    /// The value of the border colour as four words: f32 bits for the `FLOAT_*` colours,
    /// integers for the `INT_*` ones (the "Texel Replacement" table). For a format with fewer
    /// than four components the texel a shader reads is
    /// [`Sampler::border_words_for`].
    pub fn border_words(&self) -> [u32; 4] {
        let one = if self.border_color.is_int() { 1 } else { 1.0f32.to_bits() };
        match self.border_color {
            BorderColor::FloatTransparentBlack | BorderColor::IntTransparentBlack => [0; 4],
            BorderColor::FloatOpaqueBlack | BorderColor::IntOpaqueBlack => [0, 0, 0, one],
            BorderColor::FloatOpaqueWhite | BorderColor::IntOpaqueWhite => [one; 4],
        }
    }

    /// The border colour as a border texel of the plane `aspect` of `format` reads, to pass to
    /// [`filter`]: the format's components replaced by the border colour's ("Texel
    /// Replacement": depth and stencil take its R), the others 0 and alpha one ("Conversion to
    /// RGBA": 1.0 for float formats and depth, 1 for integer formats and stencil). The border's
    /// words are taken as they are: an `INT_*` colour with a float format (or the reverse),
    /// which Vulkan does not define, gives the integer words.
    pub fn border_words_for(&self, format: Format, aspect: Aspect) -> [u32; 4] {
        let b = self.border_words();
        let one = if format.class(aspect) == NumericClass::Uint { 1 } else { 1.0f32.to_bits() };
        let present = match aspect {
            Aspect::Color => format.channels(),
            Aspect::Depth | Aspect::Stencil => 1,
        };
        let mut words = [0, 0, 0, one];
        words[..present].copy_from_slice(&b[..present]);
        words
    }
}

/// The integer texel coordinates and weights on one axis of a level `size` texels long
/// ("(u,v,w,a) to (i,j,k,l,n) Transformation", then "Wrapping Operation").
fn axis_taps(mode: AddressMode, filter: Filter, size: u32, s: f32) -> ([AxisTap; 2], usize) {
    let s = if s.is_nan() { 0.0 } else { s };
    axis_taps_at(mode, filter, size, s * size as f32)
}

/// [`axis_taps`] at unnormalized coordinate `u` (texels from the level's edge).
fn axis_taps_at(mode: AddressMode, filter: Filter, size: u32, u: f32) -> ([AxisTap; 2], usize) {
    let u = if u.is_nan() { 0.0 } else { u };
    let (x, n) = match filter {
        Filter::Nearest => (u, 1),
        Filter::Linear => (u - 0.5, 2),
    };
    let floor = x.floor();
    let alpha = x - floor;
    let alpha = if alpha.is_finite() { alpha } else { 0.0 };
    let i0 = reduce(mode, size, floor);
    let first = wrap(mode, size, i0);
    match n {
        1 => ([(first, 1.0), (None, 0.0)], 1),
        _ => ([(first, 1.0 - alpha), (wrap(mode, size, i0 + 1), alpha)], 2),
    }
}

/// `floor` as an integer that wraps to the same texels as it and `floor + 1` do, small enough for
/// `i64` arithmetic: reduced modulo the mode's period for the repeating modes (exactly, in
/// `f64`; an infinite coordinate reads as 0), clamped a little beyond the edges for the
/// clamping ones.
fn reduce(mode: AddressMode, size: u32, floor: f32) -> i64 {
    let size = f64::from(size);
    let floor = f64::from(floor);
    match mode {
        AddressMode::Repeat | AddressMode::MirroredRepeat => {
            let period = if mode == AddressMode::Repeat { size } else { 2.0 * size };
            if floor.is_finite() { floor.rem_euclid(period) as i64 } else { 0 }
        }
        AddressMode::ClampToEdge | AddressMode::ClampToBorder | AddressMode::MirrorClampToEdge => {
            floor.clamp(-size - 2.0, size + 1.0) as i64
        }
    }
}

/// The taps of one destination texel of vkCmdBlitImage: the source level is `size` texels
/// (1 on the axes the image lacks; `dims` = 2 or 3 axes used), and `u` the unnormalized
/// coordinates the blit maps the destination texel's centre to ("Image Blits":
/// `u = srcOffset₀ + (x + 0.5 - dstOffset₀) × scale`). Coordinates are unnormalized, so no
/// rounding of a normalization comes in; the address mode is CLAMP_TO_EDGE and only level 0 is
/// read, as vkCmdBlitImage samples. Integer coordinates outside the level are clamped to its
/// edge.
pub fn blit_footprint(filter: Filter, size: [u32; 3], dims: usize, u: [f32; 3]) -> Footprint {
    let dims = dims.clamp(1, 3);
    let mut axes: [([AxisTap; 2], usize); 3] = [([(Some(0), 1.0), (None, 0.0)], 1); 3];
    for (axis, slot) in axes.iter_mut().enumerate().take(dims) {
        *slot = axis_taps_at(AddressMode::ClampToEdge, filter, size[axis].max(1), u[axis]);
    }
    let mut taps = Vec::with_capacity(1 << dims);
    let ((ks, nk), (js, nj), (is, ni)) = (axes[2], axes[1], axes[0]);
    for &(k, wk) in &ks[..nk] {
        for &(j, wj) in &js[..nj] {
            for &(i, wi) in &is[..ni] {
                // Clamping to the edge leaves no border texel.
                if let (Some(i), Some(j), Some(k)) = (i, j, k) {
                    taps.push(Tap { level: 0, texel: [i, j, k], weight: wi * wj * wk });
                }
            }
        }
    }
    Footprint { taps, border_weight: 0.0 }
}

/// The "Wrapping Operation" of integer texel coordinate `i` in a level `size` texels long, or
/// `None` for a border texel (outside the level under [`AddressMode::ClampToBorder`]).
fn wrap(mode: AddressMode, size: u32, i: i64) -> Option<u32> {
    let size = i64::from(size);
    let mirror = |n: i64| if n >= 0 { n } else { -(1 + n) };
    let i = match mode {
        AddressMode::Repeat => i.rem_euclid(size),
        AddressMode::MirroredRepeat => (size - 1) - mirror(i.rem_euclid(2 * size) - size),
        AddressMode::ClampToEdge => i.clamp(0, size - 1),
        AddressMode::ClampToBorder => {
            if !(0..size).contains(&i) {
                return None;
            }
            i
        }
        AddressMode::MirrorClampToEdge => mirror(i).clamp(0, size - 1),
    };
    Some(i as u32)
}

/// Combines decoded texels (one per tap of `footprint`, in its order, as
/// [`crate::Format::decode`] gives them) with the footprint's weights, into the four 32-bit
/// words a shader reads ("Texel Filtering", "Texel Mipmap Filtering").
///
/// Float texels: the weighted sum `Σ w·τ + border_weight·border`, per component, in footprint
/// order and then the border, with plain `f32` operations; terms of weight 0 are left out (so an
/// infinite texel beside the sample does not make it NaN). `border` is then f32 bits (as
/// [`Sampler::border_words_for`] gives them for a float format). The result is f32 bits.
///
/// Integer texels ([`Texel::Uint`], [`Texel::Stencil`]; present when any texel is one): integer
/// formats cannot be filtered linearly (Vulkan requires `VK_FILTER_NEAREST` and
/// `VK_SAMPLER_MIPMAP_MODE_NEAREST` for them), so the result is the first tap with the greatest
/// weight, or `border` when the border weighs more.
///
/// A footprint without taps (a sample wholly in the border) gives `border` itself, whatever
/// the class.
pub fn filter(footprint: &Footprint, texels: &[Texel], border: [u32; 4]) -> [u32; 4] {
    debug_assert_eq!(footprint.taps.len(), texels.len(), "one texel per tap");
    if footprint.taps.is_empty() {
        return border;
    }
    let weighted = footprint.taps.iter().map(|t| t.weight).zip(texels);
    if texels.iter().any(|t| !matches!(t, Texel::Float(_))) {
        let mut best: Option<(f32, &Texel)> = None;
        for (w, t) in weighted {
            if best.is_none_or(|(bw, _)| w > bw) {
                best = Some((w, t));
            }
        }
        return match best {
            Some((w, t)) if w >= footprint.border_weight => t.words(),
            _ => border,
        };
    }
    // -0.0 is the identity of addition: a sample of weight 1 on one texel gives its exact bits.
    let mut acc = [-0.0f32; 4];
    for (w, t) in weighted {
        let Texel::Float(v) = t else { unreachable!("all texels are floats") };
        if w != 0.0 {
            for (a, &c) in acc.iter_mut().zip(v) {
                *a += w * c;
            }
        }
    }
    if footprint.border_weight != 0.0 {
        for (a, &b) in acc.iter_mut().zip(&border) {
            *a += footprint.border_weight * f32::from_bits(b);
        }
    }
    acc.map(f32::to_bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f32 = 1e-6;

    fn sampler(filter: Filter, mipmap_mode: MipmapMode, mode: AddressMode) -> Sampler {
        Sampler { mag_filter: filter, min_filter: filter, mipmap_mode, address_mode: [mode; 3], ..Sampler::default() }
    }

    /// A tap on a 1D axis in a table: its texel (`None` for the border) and weight.
    type AxisCase = (Option<u32>, f32);

    /// A level in a table: its number and weight.
    type LevelCase = (u32, f32);

    /// The taps of a footprint as (level, texel, weight) rounded to 1e-6, for comparison.
    fn taps(fp: &Footprint) -> Vec<(u32, [u32; 3], f32)> {
        fp.taps.iter().map(|t| (t.level, t.texel, (t.weight * 1e6).round() / 1e6)).collect()
    }

    #[test]
    fn names_parse_and_print_as_vulkan_spells_them() {
        for &f in Filter::ALL {
            assert_eq!(Filter::parse(f.vk_name()), Some(f));
            assert_eq!(Filter::parse(&format!("VK_FILTER_{}", f.vk_name())), Some(f));
        }
        for &m in MipmapMode::ALL {
            assert_eq!(MipmapMode::parse(m.vk_name()), Some(m));
            assert_eq!(MipmapMode::parse(&format!("VK_SAMPLER_MIPMAP_MODE_{}", m.vk_name())), Some(m));
        }
        for &a in AddressMode::ALL {
            assert_eq!(AddressMode::parse(a.vk_name()), Some(a));
            assert_eq!(AddressMode::parse(&format!("VK_SAMPLER_ADDRESS_MODE_{}", a.vk_name())), Some(a));
        }
        for &b in BorderColor::ALL {
            assert_eq!(BorderColor::parse(b.vk_name()), Some(b));
            assert_eq!(BorderColor::parse(&format!("VK_BORDER_COLOR_{}", b.vk_name())), Some(b));
        }
        assert_eq!(AddressMode::ALL.len(), 5);
        assert_eq!(BorderColor::ALL.len(), 6);
        assert_eq!(Filter::parse("LINEAR"), Some(Filter::Linear));
        assert_eq!(AddressMode::parse("CLAMP_TO_EDGE"), Some(AddressMode::ClampToEdge));
        assert_eq!(AddressMode::parse("MIRROR_CLAMP_TO_EDGE"), Some(AddressMode::MirrorClampToEdge));
        assert_eq!(BorderColor::parse("FLOAT_OPAQUE_BLACK"), Some(BorderColor::FloatOpaqueBlack));
        assert_eq!(Filter::parse("CUBIC_EXT"), None);
        assert_eq!(Filter::parse("linear"), None);
    }

    #[test]
    fn the_default_sampler_is_vulkans() {
        let s = Sampler::default();
        assert_eq!((s.mag_filter, s.min_filter, s.mipmap_mode), (Filter::Nearest, Filter::Nearest, MipmapMode::Nearest));
        assert_eq!(s.address_mode, [AddressMode::Repeat; 3]);
        assert_eq!((s.mip_lod_bias, s.min_lod, s.max_lod), (0.0, 0.0, 1000.0));
        assert_eq!(s.border_color, BorderColor::FloatTransparentBlack);
    }

    #[test]
    fn nearest_at_texel_centres_reads_that_texel_alone() {
        for mode in AddressMode::ALL.iter().copied() {
            let s = sampler(Filter::Nearest, MipmapMode::Nearest, mode);
            for k in 0..3u32 {
                for j in 0..4u32 {
                    for i in 0..5u32 {
                        let c = [(i as f32 + 0.5) / 5.0, (j as f32 + 0.5) / 4.0, (k as f32 + 0.5) / 3.0];
                        let fp = s.footprint(3, [5, 4, 3], 1, c, 0.0);
                        assert_eq!(fp.taps, vec![Tap { level: 0, texel: [i, j, k], weight: 1.0 }], "{mode:?} {c:?}");
                        assert_eq!(fp.border_weight, 0.0);
                    }
                }
            }
        }
    }

    #[test]
    fn linear_between_texel_centres_weighs_by_distance() {
        let s = sampler(Filter::Linear, MipmapMode::Nearest, AddressMode::ClampToEdge);
        // (s, expected taps of a 1D image of 4 texels): u = 4s, i0 = floor(u - 0.5).
        let cases: &[(f32, &[(u32, f32)])] = &[
            (0.5, &[(1, 0.5), (2, 0.5)]),        // halfway between texels 1 and 2
            (0.375, &[(1, 1.0), (2, 0.0)]),      // texel 1's centre: the quad is read, weight 0
            (0.3125, &[(0, 0.25), (1, 0.75)]),   // a quarter of the way from 1 back to 0
            (0.0, &[(0, 0.5), (0, 0.5)]),        // the edge: -1 clamps to 0
            (1.0, &[(3, 0.5), (3, 0.5)]),
        ];
        for &(x, want) in cases {
            let fp = s.footprint(1, [4, 1, 1], 1, [x, 0.0, 0.0], 0.0);
            let want: Vec<_> = want.iter().map(|&(i, w)| (0, [i, 0, 0], w)).collect();
            assert_eq!(taps(&fp), want, "s = {x}");
        }
        // 2D halfway between four texels: a quarter each, i innermost.
        let fp = s.footprint(2, [4, 4, 1], 1, [0.5, 0.5, 0.0], 0.0);
        assert_eq!(taps(&fp), vec![(0, [1, 1, 0], 0.25), (0, [2, 1, 0], 0.25), (0, [1, 2, 0], 0.25), (0, [2, 2, 0], 0.25)]);
        // 3D: eight taps of 1/8.
        let fp = s.footprint(3, [4, 4, 4], 1, [0.5; 3], 0.0);
        assert_eq!(fp.taps.len(), 8);
        assert!(fp.taps.iter().all(|t| t.weight == 0.125));
    }

    #[test]
    fn address_modes_wrap_coordinates_outside_the_image() {
        use AddressMode::*;
        // (mode, filter, s, expected (texel, weight) taps) on a 1D image of 4 texels; None is
        // the border.
        let cases: &[(AddressMode, Filter, f32, &[AxisCase])] = &[
            (Repeat, Filter::Nearest, 1.125, &[(Some(0), 1.0)]),
            (Repeat, Filter::Nearest, -0.125, &[(Some(3), 1.0)]),
            (Repeat, Filter::Nearest, 7.625, &[(Some(2), 1.0)]),
            (Repeat, Filter::Linear, 0.0, &[(Some(3), 0.5), (Some(0), 0.5)]),
            (Repeat, Filter::Linear, 1.0, &[(Some(3), 0.5), (Some(0), 0.5)]),
            (MirroredRepeat, Filter::Nearest, 1.125, &[(Some(3), 1.0)]),
            (MirroredRepeat, Filter::Nearest, 1.875, &[(Some(0), 1.0)]),
            (MirroredRepeat, Filter::Nearest, 2.125, &[(Some(0), 1.0)]),
            (MirroredRepeat, Filter::Nearest, -0.125, &[(Some(0), 1.0)]),
            (MirroredRepeat, Filter::Nearest, -0.375, &[(Some(1), 1.0)]),
            (MirroredRepeat, Filter::Nearest, -1.125, &[(Some(3), 1.0)]),
            (MirroredRepeat, Filter::Linear, 0.0, &[(Some(0), 0.5), (Some(0), 0.5)]),
            (ClampToEdge, Filter::Nearest, 1.5, &[(Some(3), 1.0)]),
            (ClampToEdge, Filter::Nearest, -1.0, &[(Some(0), 1.0)]),
            (ClampToBorder, Filter::Nearest, 1.1, &[(None, 1.0)]),
            (ClampToBorder, Filter::Nearest, -0.01, &[(None, 1.0)]),
            (ClampToBorder, Filter::Nearest, 0.99, &[(Some(3), 1.0)]),
            (ClampToBorder, Filter::Linear, 0.0, &[(None, 0.5), (Some(0), 0.5)]),
            (ClampToBorder, Filter::Linear, 0.9375, &[(Some(3), 0.75), (None, 0.25)]),
            (MirrorClampToEdge, Filter::Nearest, -0.375, &[(Some(1), 1.0)]),
            (MirrorClampToEdge, Filter::Nearest, -3.0, &[(Some(3), 1.0)]),
            (MirrorClampToEdge, Filter::Nearest, 1.25, &[(Some(3), 1.0)]),
        ];
        for &(mode, filter, x, want) in cases {
            let fp = sampler(filter, MipmapMode::Nearest, mode).footprint(1, [4, 1, 1], 1, [x, 0.0, 0.0], 0.0);
            let want_taps: Vec<_> = want.iter().filter_map(|&(i, w)| i.map(|i| (0, [i, 0, 0], w))).collect();
            let want_border: f32 = want.iter().filter(|t| t.0.is_none()).map(|t| t.1).sum();
            assert_eq!(taps(&fp), want_taps, "{mode:?} {filter:?} s = {x}");
            assert!((fp.border_weight - want_border).abs() < EPS, "{mode:?} {filter:?} s = {x}: {fp:?}");
        }
    }

    #[test]
    fn clamp_to_border_gives_the_outside_taps_weight_to_the_border() {
        let s = sampler(Filter::Linear, MipmapMode::Nearest, AddressMode::ClampToBorder);
        // The corner of a 2D image: three of the four texels are outside.
        let fp = s.footprint(2, [4, 4, 1], 1, [0.0, 0.0, 0.0], 0.0);
        assert_eq!(taps(&fp), vec![(0, [0, 0, 0], 0.25)]);
        assert_eq!(fp.border_weight, 0.75);
        // Wholly outside.
        let fp = s.footprint(2, [4, 4, 1], 1, [2.0, 0.5, 0.0], 0.0);
        assert!(fp.taps.is_empty());
        assert_eq!(fp.border_weight, 1.0);
        // Per axis: u clamps to the edge, v to the border.
        let s = Sampler { address_mode: [AddressMode::ClampToEdge, AddressMode::ClampToBorder, AddressMode::Repeat], ..s };
        let fp = s.footprint(2, [4, 4, 1], 1, [1.5, 1.0, 0.0], 0.0);
        assert_eq!(taps(&fp), vec![(0, [3, 3, 0], 0.25), (0, [3, 3, 0], 0.25)]);
        assert_eq!(fp.border_weight, 0.5);
    }

    #[test]
    fn mip_levels_are_chosen_as_vulkan_says() {
        // A 16x16 image with 5 levels, sampled at the centre of texel (0, 0) of every level
        // (s = 1/64 lies in texel 0 of levels 0..=4 under NEAREST filtering).
        let c = [1.0 / 64.0, 1.0 / 64.0, 0.0];
        // (λ, NEAREST's level, LINEAR's (level, weight) pairs)
        let cases: &[(f32, u32, &[LevelCase])] = &[
            (-2.0, 0, &[(0, 1.0)]),
            (0.0, 0, &[(0, 1.0)]),
            (0.25, 0, &[(0, 0.75), (1, 0.25)]),
            (0.5, 0, &[(0, 0.5), (1, 0.5)]),
            (0.75, 1, &[(0, 0.25), (1, 0.75)]),
            (1.0, 1, &[(1, 1.0)]),
            (1.5, 1, &[(1, 0.5), (2, 0.5)]),
            (1.6, 2, &[(1, 0.4), (2, 0.6)]),
            (4.0, 4, &[(4, 1.0)]),
            (9.5, 4, &[(4, 1.0)]),
        ];
        for &(lod, nearest, linear) in cases {
            let s = sampler(Filter::Nearest, MipmapMode::Nearest, AddressMode::Repeat);
            let fp = s.footprint(2, [16, 16, 1], 5, c, lod);
            assert_eq!(taps(&fp), vec![(nearest, [0, 0, 0], 1.0)], "NEAREST λ = {lod}");
            let s = sampler(Filter::Nearest, MipmapMode::Linear, AddressMode::Repeat);
            let fp = s.footprint(2, [16, 16, 1], 5, c, lod);
            let want: Vec<_> = linear.iter().map(|&(l, w)| (l, [0, 0, 0], w)).collect();
            assert_eq!(taps(&fp), want, "LINEAR λ = {lod}");
        }
    }

    #[test]
    fn lod_is_biased_then_clamped_to_min_and_max_lod() {
        let c = [1.0 / 64.0, 1.0 / 64.0, 0.0];
        let level = |s: Sampler, levels: u32, lod: f32| {
            let fp = s.footprint(2, [16, 16, 1], levels, c, lod);
            assert_eq!(fp.taps.len(), 1, "{fp:?}");
            fp.taps[0].level
        };
        let base = sampler(Filter::Nearest, MipmapMode::Nearest, AddressMode::Repeat);
        assert_eq!(level(Sampler { min_lod: 2.0, ..base }, 5, 0.0), 2);
        assert_eq!(level(Sampler { max_lod: 1.0, ..base }, 5, 3.7), 1);
        assert_eq!(level(Sampler { mip_lod_bias: 1.0, ..base }, 5, 0.0), 1);
        assert_eq!(level(Sampler { mip_lod_bias: -1.0, ..base }, 5, 2.0), 1);
        assert_eq!(level(Sampler { min_lod: 3.0, max_lod: 1.0, ..base }, 5, 2.0), 1, "min > max: max wins");
        assert_eq!(level(base, 3, 10.0), 2, "no level past the view's last");
        assert_eq!(level(base, 0, 10.0), 0, "no levels reads as one");
        assert_eq!(level(base, 5, f32::NAN), 0);
        assert_eq!(level(base, 5, f32::INFINITY), 4);
        assert_eq!(base.lambda(2.5), 2.5);
        assert_eq!(Sampler { min_lod: 0.5, max_lod: 2.0, mip_lod_bias: 0.25, ..base }.lambda(0.0), 0.5);
        assert_eq!(Sampler { min_lod: 0.5, max_lod: 2.0, mip_lod_bias: 0.25, ..base }.lambda(3.0), 2.0);
    }

    #[test]
    fn magnification_uses_mag_filter_and_minification_min_filter() {
        let s = Sampler { mag_filter: Filter::Linear, min_filter: Filter::Nearest, ..Sampler::default() };
        let at = [0.5, 0.5, 0.0];
        assert_eq!(s.footprint(2, [4, 4, 1], 3, at, 0.0).taps.len(), 4, "λ = 0 magnifies");
        assert_eq!(s.footprint(2, [4, 4, 1], 3, at, -1.0).taps.len(), 4);
        assert_eq!(s.footprint(2, [4, 4, 1], 3, at, 0.25).taps.len(), 1, "λ > 0 minifies, even at level 0");
        // The clamped λ decides: min_lod 1 minifies a sample asked at LOD 0.
        assert_eq!(Sampler { min_lod: 1.0, ..s }.footprint(2, [4, 4, 1], 3, at, 0.0).taps.len(), 1);
    }

    #[test]
    fn axes_beyond_dims_read_texel_zero_and_levels_shrink_to_one_texel() {
        let s = sampler(Filter::Linear, MipmapMode::Linear, AddressMode::Repeat);
        let fp = s.footprint(1, [8, 8, 8], 1, [0.5, 0.9, 0.9], 0.0);
        assert_eq!(taps(&fp), vec![(0, [3, 0, 0], 0.5), (0, [4, 0, 0], 0.5)]);
        let fp = s.footprint(2, [8, 8, 8], 1, [0.5, 0.5, 0.9], 0.0);
        assert!(fp.taps.iter().all(|t| t.texel[2] == 0) && fp.taps.len() == 4);
        // Trilinear 3D: 2 levels of 8 taps, a 4x2x1 level's depth being 1.
        let fp = s.footprint(3, [8, 4, 2], 4, [0.3, 0.6, 0.2], 1.5);
        assert_eq!(fp.taps.len(), 16);
        assert!(fp.taps[..8].iter().all(|t| t.level == 1 && t.texel[0] < 4 && t.texel[1] < 2 && t.texel[2] == 0));
        assert!(fp.taps[8..].iter().all(|t| t.level == 2 && t.texel[0] < 2 && t.texel[1] < 1 && t.texel[2] == 0));
        let sum: f32 = fp.taps.iter().map(|t| t.weight).sum();
        assert!((sum - 1.0).abs() < EPS);
    }

    #[test]
    fn coordinates_that_are_not_finite_stay_inside_the_image() {
        for &mode in AddressMode::ALL {
            let s = sampler(Filter::Linear, MipmapMode::Nearest, mode);
            for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3e38, -3e38, 1e9, -1e9] {
                let fp = s.footprint(1, [5, 1, 1], 1, [x, 0.0, 0.0], 0.0);
                let sum: f32 = fp.taps.iter().map(|t| t.weight).sum::<f32>() + fp.border_weight;
                assert!((sum - 1.0).abs() < EPS && fp.taps.iter().all(|t| t.texel[0] < 5), "{mode:?} {x}: {fp:?}");
            }
        }
        // Clamping modes put +∞ at the last texel.
        let fp = sampler(Filter::Nearest, MipmapMode::Nearest, AddressMode::ClampToEdge).footprint(1, [5, 1, 1], 1, [f32::INFINITY, 0.0, 0.0], 0.0);
        assert_eq!(fp.taps[0].texel, [4, 0, 0]);
    }

    #[test]
    fn border_colours_are_the_tables_values() {
        let one = 1.0f32.to_bits();
        let cases = [
            (BorderColor::FloatTransparentBlack, [0, 0, 0, 0]),
            (BorderColor::IntTransparentBlack, [0, 0, 0, 0]),
            (BorderColor::FloatOpaqueBlack, [0, 0, 0, one]),
            (BorderColor::IntOpaqueBlack, [0, 0, 0, 1]),
            (BorderColor::FloatOpaqueWhite, [one; 4]),
            (BorderColor::IntOpaqueWhite, [1; 4]),
        ];
        for (border_color, words) in cases {
            assert_eq!(Sampler { border_color, ..Sampler::default() }.border_words(), words, "{border_color:?}");
        }
        let white = Sampler { border_color: BorderColor::FloatOpaqueWhite, ..Sampler::default() };
        assert_eq!(white.border_words_for(Format::R32_SFLOAT, Aspect::Color), [one, 0, 0, one]);
        assert_eq!(white.border_words_for(Format::R32G32_SFLOAT, Aspect::Color), [one, one, 0, one]);
        assert_eq!(white.border_words_for(Format::R8G8B8A8_UNORM, Aspect::Color), [one; 4]);
        assert_eq!(white.border_words_for(Format::D32_SFLOAT, Aspect::Depth), [one, 0, 0, one]);
        let transparent = Sampler { border_color: BorderColor::FloatTransparentBlack, ..Sampler::default() };
        assert_eq!(transparent.border_words_for(Format::R32G32B32_SFLOAT, Aspect::Color), [0, 0, 0, one], "alpha is one for 3 components");
        let int_white = Sampler { border_color: BorderColor::IntOpaqueWhite, ..Sampler::default() };
        assert_eq!(int_white.border_words_for(Format::R32_UINT, Aspect::Color), [1, 0, 0, 1]);
        assert_eq!(int_white.border_words_for(Format::D24_UNORM_S8_UINT, Aspect::Stencil), [1, 0, 0, 1]);
    }

    #[test]
    fn filter_weighs_float_texels_and_picks_integer_ones() {
        let fp = Footprint {
            taps: vec![Tap { level: 0, texel: [0; 3], weight: 0.25 }, Tap { level: 0, texel: [1, 0, 0], weight: 0.5 }],
            border_weight: 0.25,
        };
        let texels = [Texel::Float([1.0, 0.0, 4.0, 1.0]), Texel::Float([0.0, 1.0, 2.0, 1.0])];
        let border = [1.0f32, 1.0, 1.0, 0.0].map(f32::to_bits);
        assert_eq!(filter(&fp, &texels, border).map(f32::from_bits), [0.5, 0.75, 2.25, 0.75]);
        // One texel of weight 1 gives its exact bits, -0.0 and NaN included.
        let one = Footprint { taps: vec![Tap { level: 0, texel: [0; 3], weight: 1.0 }], border_weight: 0.0 };
        let v = [-0.0, f32::INFINITY, 0.1, f32::from_bits(0x7fc0_1234)];
        assert_eq!(filter(&one, &[Texel::Float(v)], [0; 4]), v.map(f32::to_bits));
        // A neighbour of weight 0 does not poison the sample.
        let quad = Footprint { taps: vec![one.taps[0], Tap { weight: 0.0, ..one.taps[0] }], border_weight: 0.0 };
        let w = filter(&quad, &[Texel::Float([0.5; 4]), Texel::Float([f32::INFINITY; 4])], [0; 4]);
        assert_eq!(w, [0.5f32; 4].map(f32::to_bits));
        // Integers: the first tap with the greatest weight, else the border.
        let ints = [Texel::Uint([7, 0, 0, 1]), Texel::Uint([9, 0, 0, 1])];
        assert_eq!(filter(&fp, &ints, [5, 5, 5, 5]), [9, 0, 0, 1]);
        let tie = Footprint { taps: vec![fp.taps[1], fp.taps[1]], border_weight: 0.0 };
        assert_eq!(filter(&tie, &ints, [5; 4]), [7, 0, 0, 1]);
        let outside = Footprint { taps: vec![], border_weight: 1.0 };
        assert_eq!(filter(&outside, &[], [0, 0, 0, 1]), [0, 0, 0, 1]);
        assert_eq!(filter(&outside, &[], [1.0f32.to_bits(); 4]), [1.0f32.to_bits(); 4]);
        assert_eq!(filter(&one, &[Texel::Stencil(3)], [0; 4]), [3, 0, 0, 1]);
    }

    #[test]
    fn a_sample_of_an_image_filters_to_what_linear_interpolation_gives() {
        // A 1D image whose texel i holds i: linear filtering at u reads u - 0.5 between centres.
        let s = sampler(Filter::Linear, MipmapMode::Nearest, AddressMode::ClampToEdge);
        for x in [0.2f32, 0.4, 0.5, 0.7] {
            let fp = s.footprint(1, [8, 1, 1], 1, [x, 0.0, 0.0], 0.0);
            let texels: Vec<_> = fp.taps.iter().map(|t| Texel::Float([t.texel[0] as f32, 0.0, 0.0, 1.0])).collect();
            let v = filter(&fp, &texels, [0; 4]).map(f32::from_bits);
            assert!((v[0] - (x * 8.0 - 0.5)).abs() < 1e-5, "{x}: {v:?}");
            assert!((v[3] - 1.0).abs() < EPS);
        }
    }
}
