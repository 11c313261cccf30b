//! Texel formats: the contract's list (docs/TRACE_FORMAT.md, "Images, samplers and image
//! commands"), each with its planes, aspects and texel size, and the encoding of a clear value
//! into texel bytes and of texel bytes back into values.
//!
//! # Design
//! A format is a closed enum, not a table, so a match over it is checked to be complete. Depth
//! and stencil live in separate planes (as the hardware this models keeps them): a depth-stencil
//! format has a depth plane of 4 bytes a texel and a stencil plane of 1. Decoding returns
//! [`Texel`] values in the format's own numeric class, so comparing two images compares what a
//! shader would read, not raw bytes.

use std::fmt;

/// An image aspect: which plane of a texel a command or a view addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Aspect {
    /// The colour of a colour format.
    Color,
    /// The depth of a depth or depth-stencil format.
    Depth,
    /// The stencil of a depth-stencil format.
    Stencil,
}

impl Aspect {
    /// Vulkan's name (`COLOR`, `DEPTH`, `STENCIL`).
    pub fn vk_name(self) -> &'static str {
        match self {
            Aspect::Color => "COLOR",
            Aspect::Depth => "DEPTH",
            Aspect::Stencil => "STENCIL",
        }
    }
}

/// How a channel's bits are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumericClass {
    /// Unsigned normalized (0..=1), possibly sRGB-encoded.
    Unorm,
    /// Unsigned integer.
    Uint,
    /// IEEE float (16 or 32 bits).
    Sfloat,
}

/// A texel format gpusim supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(non_camel_case_types)]
pub enum Format {
    /// Four 8-bit unsigned normalized channels, R first.
    R8G8B8A8_UNORM,
    /// As R8G8B8A8_UNORM, colour channels sRGB-encoded (alpha linear).
    R8G8B8A8_SRGB,
    /// Four 8-bit unsigned normalized channels, B first.
    B8G8R8A8_UNORM,
    /// One 32-bit unsigned integer.
    R32_UINT,
    /// One 32-bit float.
    R32_SFLOAT,
    /// Two 32-bit floats.
    R32G32_SFLOAT,
    /// Three 32-bit floats (vertex input; not renderable).
    R32G32B32_SFLOAT,
    /// Four 32-bit floats.
    R32G32B32A32_SFLOAT,
    /// Four 16-bit floats.
    R16G16B16A16_SFLOAT,
    /// 32-bit float depth.
    D32_SFLOAT,
    /// 24-bit unsigned normalized depth (kept in 32 bits) and 8-bit stencil.
    D24_UNORM_S8_UINT,
    /// 32-bit float depth and 8-bit stencil.
    D32_SFLOAT_S8_UINT,
}

/// Every supported format, in the contract's order.
pub const FORMATS: [Format; 12] = [
    Format::R8G8B8A8_UNORM,
    Format::R8G8B8A8_SRGB,
    Format::B8G8R8A8_UNORM,
    Format::R32_UINT,
    Format::R32_SFLOAT,
    Format::R32G32_SFLOAT,
    Format::R32G32B32_SFLOAT,
    Format::R32G32B32A32_SFLOAT,
    Format::R16G16B16A16_SFLOAT,
    Format::D32_SFLOAT,
    Format::D24_UNORM_S8_UINT,
    Format::D32_SFLOAT_S8_UINT,
];

/// A clear value, as the trace gives it: `{"float32": [...]}`, `{"uint32": [...]}`,
/// `{"int32": [...]}`, or a depth and stencil.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClearValue {
    /// Four floats (UNORM, SRGB and SFLOAT formats).
    Float([f32; 4]),
    /// Four unsigned integers (UINT formats).
    Uint([u32; 4]),
    /// Four signed integers (SINT formats).
    Int([i32; 4]),
    /// Depth and stencil.
    DepthStencil {
        /// Depth, 0..=1.
        depth: f32,
        /// Stencil.
        stencil: u32,
    },
}

/// A decoded texel: what a shader (or a depth test) reads, in the format's numeric class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Texel {
    /// Floats (normalized formats decode to 0..=1, sRGB to linear).
    Float([f32; 4]),
    /// Unsigned integers.
    Uint([u32; 4]),
    /// A stencil value.
    Stencil(u8),
}

impl Texel {
    /// The four 32-bit words a shader reads for this texel: f32 bits for [`Texel::Float`] (the
    /// UNORM, SRGB, SFLOAT and depth planes), the integers for [`Texel::Uint`], and a stencil
    /// value as `[S, 0, 0, 1]` ("Conversion to RGBA"). Channels the format lacks are already 0
    /// and alpha 1 in the texel, as [`Format::decode`] gives it.
    pub fn words(&self) -> [u32; 4] {
        match *self {
            Texel::Float(v) => v.map(f32::to_bits),
            Texel::Uint(v) => v,
            Texel::Stencil(s) => [u32::from(s), 0, 0, 1],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Format {
    /// Vulkan's name without `VK_FORMAT_`.
    pub fn name(self) -> &'static str {
        match self {
            Format::R8G8B8A8_UNORM => "R8G8B8A8_UNORM",
            Format::R8G8B8A8_SRGB => "R8G8B8A8_SRGB",
            Format::B8G8R8A8_UNORM => "B8G8R8A8_UNORM",
            Format::R32_UINT => "R32_UINT",
            Format::R32_SFLOAT => "R32_SFLOAT",
            Format::R32G32_SFLOAT => "R32G32_SFLOAT",
            Format::R32G32B32_SFLOAT => "R32G32B32_SFLOAT",
            Format::R32G32B32A32_SFLOAT => "R32G32B32A32_SFLOAT",
            Format::R16G16B16A16_SFLOAT => "R16G16B16A16_SFLOAT",
            Format::D32_SFLOAT => "D32_SFLOAT",
            Format::D24_UNORM_S8_UINT => "D24_UNORM_S8_UINT",
            Format::D32_SFLOAT_S8_UINT => "D32_SFLOAT_S8_UINT",
        }
    }

    /// The format named `name` (Vulkan's name, with or without `VK_FORMAT_`).
    pub fn parse(name: &str) -> Option<Format> {
        let name = name.strip_prefix("VK_FORMAT_").unwrap_or(name);
        FORMATS.into_iter().find(|f| f.name() == name)
    }

    /// The aspects a texel of this format has, in plane order.
    pub fn aspects(self) -> &'static [Aspect] {
        match self {
            Format::D32_SFLOAT => &[Aspect::Depth],
            Format::D24_UNORM_S8_UINT | Format::D32_SFLOAT_S8_UINT => &[Aspect::Depth, Aspect::Stencil],
            _ => &[Aspect::Color],
        }
    }

    /// Whether the format has a depth or a stencil aspect.
    pub fn is_depth_stencil(self) -> bool {
        self.aspects()[0] != Aspect::Color
    }

    /// Bytes a texel takes in the plane of `aspect`, or `None` when the format has no such
    /// aspect. Depth is kept in 4 bytes (D24 in the low 24 bits), stencil in 1.
    pub fn plane_bytes(self, aspect: Aspect) -> Option<u32> {
        if !self.aspects().contains(&aspect) {
            return None;
        }
        Some(match (self, aspect) {
            (_, Aspect::Stencil) => 1,
            (_, Aspect::Depth) => 4,
            (Format::R8G8B8A8_UNORM | Format::R8G8B8A8_SRGB | Format::B8G8R8A8_UNORM | Format::R32_UINT | Format::R32_SFLOAT, _) => 4,
            (Format::R32G32_SFLOAT | Format::R16G16B16A16_SFLOAT, _) => 8,
            (Format::R32G32B32_SFLOAT, _) => 12,
            (Format::R32G32B32A32_SFLOAT, _) => 16,
            _ => return None,
        })
    }

    /// The numeric class of the plane of `aspect`.
    pub fn class(self, aspect: Aspect) -> NumericClass {
        match (self, aspect) {
            (_, Aspect::Stencil) | (Format::R32_UINT, _) => NumericClass::Uint,
            (Format::R8G8B8A8_UNORM | Format::R8G8B8A8_SRGB | Format::B8G8R8A8_UNORM | Format::D24_UNORM_S8_UINT, _) => NumericClass::Unorm,
            _ => NumericClass::Sfloat,
        }
    }

    /// The channels of the colour plane.
    pub fn channels(self) -> usize {
        match self {
            Format::R32_UINT | Format::R32_SFLOAT | Format::D32_SFLOAT | Format::D24_UNORM_S8_UINT | Format::D32_SFLOAT_S8_UINT => 1,
            Format::R32G32_SFLOAT => 2,
            Format::R32G32B32_SFLOAT => 3,
            _ => 4,
        }
    }

    /// The bytes of one texel of the plane of `aspect` holding `value`, as a clear writes them.
    /// `None` when the value's kind does not fit the format (a depth value for a colour image,
    /// integers for a float format).
    pub fn encode(self, aspect: Aspect, value: &ClearValue) -> Option<Vec<u8>> {
        let unorm8 = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        match (aspect, value) {
            (Aspect::Depth, ClearValue::DepthStencil { depth, .. }) => Some(match self {
                Format::D24_UNORM_S8_UINT => (((depth.clamp(0.0, 1.0) as f64) * f64::from(0x00ff_ffff)).round() as u32).to_le_bytes().to_vec(),
                _ => depth.to_le_bytes().to_vec(),
            }),
            (Aspect::Stencil, ClearValue::DepthStencil { stencil, .. }) => Some(vec![*stencil as u8]),
            (Aspect::Color, ClearValue::Float(c)) => match self {
                Format::R8G8B8A8_UNORM => Some(c.iter().map(|&v| unorm8(v)).collect()),
                Format::B8G8R8A8_UNORM => Some([c[2], c[1], c[0], c[3]].iter().map(|&v| unorm8(v)).collect()),
                Format::R8G8B8A8_SRGB => Some(vec![unorm8(linear_to_srgb(c[0])), unorm8(linear_to_srgb(c[1])), unorm8(linear_to_srgb(c[2])), unorm8(c[3])]),
                Format::R16G16B16A16_SFLOAT => Some(c.iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect()),
                Format::R32_SFLOAT | Format::R32G32_SFLOAT | Format::R32G32B32_SFLOAT | Format::R32G32B32A32_SFLOAT => {
                    Some(c[..self.channels()].iter().flat_map(|v| v.to_le_bytes()).collect())
                }
                _ => None,
            },
            (Aspect::Color, ClearValue::Uint(c)) if self == Format::R32_UINT => Some(c[0].to_le_bytes().to_vec()),
            _ => None,
        }
    }

    /// The bytes of one texel of the colour plane that a shader store of four words writes:
    /// f32 bits for the float formats, converted as [`Format::encode`] converts a clear value
    /// (UNORM clamped to 0..=1 and rounded to nearest, SRGB encoded first, half floats rounded
    /// to nearest even), u32 for the UINT formats; channels the format lacks are dropped.
    /// `None` for depth and stencil formats.
    pub fn encode_words(self, words: [u32; 4]) -> Option<Vec<u8>> {
        let value = match self.class(Aspect::Color) {
            _ if self.is_depth_stencil() => return None,
            NumericClass::Uint => ClearValue::Uint(words),
            NumericClass::Unorm | NumericClass::Sfloat => ClearValue::Float(words.map(f32::from_bits)),
        };
        self.encode(Aspect::Color, &value)
    }

    /// The value of one texel of the plane of `aspect` from its bytes (`bytes.len()` must be
    /// [`Format::plane_bytes`]). Unused channels read as 0, alpha as 1, as a shader reads them.
    pub fn decode(self, aspect: Aspect, bytes: &[u8]) -> Texel {
        let f32_at = |k: usize| f32::from_le_bytes([bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]]);
        let n8 = |b: u8| f32::from(b) / 255.0;
        match (self, aspect) {
            (_, Aspect::Stencil) => Texel::Stencil(bytes[0]),
            (Format::D24_UNORM_S8_UINT, Aspect::Depth) => {
                let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & 0x00ff_ffff;
                Texel::Float([(f64::from(v) / f64::from(0x00ff_ffff)) as f32, 0.0, 0.0, 1.0])
            }
            (_, Aspect::Depth) => Texel::Float([f32_at(0), 0.0, 0.0, 1.0]),
            (Format::R8G8B8A8_UNORM, _) => Texel::Float([n8(bytes[0]), n8(bytes[1]), n8(bytes[2]), n8(bytes[3])]),
            (Format::B8G8R8A8_UNORM, _) => Texel::Float([n8(bytes[2]), n8(bytes[1]), n8(bytes[0]), n8(bytes[3])]),
            (Format::R8G8B8A8_SRGB, _) => Texel::Float([srgb_to_linear(n8(bytes[0])), srgb_to_linear(n8(bytes[1])), srgb_to_linear(n8(bytes[2])), n8(bytes[3])]),
            (Format::R32_UINT, _) => Texel::Uint([u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]), 0, 0, 1]),
            (Format::R16G16B16A16_SFLOAT, _) => {
                let h = |k: usize| half::f16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]).to_f32();
                Texel::Float([h(0), h(1), h(2), h(3)])
            }
            _ => {
                let mut v = [0.0, 0.0, 0.0, 1.0];
                for (k, x) in v.iter_mut().enumerate().take(self.channels()) {
                    *x = f32_at(k);
                }
                Texel::Float(v)
            }
        }
    }
}

/// The sRGB encoding of a linear value (IEC 61966-2-1, as Vulkan's sRGB formats use it).
pub fn linear_to_srgb(v: f32) -> f32 {
    let v = v.clamp(0.0, 1.0);
    if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 }
}

/// The linear value of an sRGB-encoded one.
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.040_45 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_parses_by_its_name_and_has_its_planes() {
        for f in FORMATS {
            assert_eq!(Format::parse(f.name()), Some(f));
            assert_eq!(Format::parse(&format!("VK_FORMAT_{}", f.name())), Some(f));
            for &a in f.aspects() {
                assert!(f.plane_bytes(a).is_some(), "{f} {a:?}");
            }
        }
        assert_eq!(Format::parse("R8_UNORM"), None);
        assert_eq!(Format::D24_UNORM_S8_UINT.plane_bytes(Aspect::Stencil), Some(1));
        assert_eq!(Format::D32_SFLOAT.plane_bytes(Aspect::Stencil), None);
    }

    #[test]
    fn clear_values_encode_as_vulkan_says() {
        let c = ClearValue::Float([1.0, 0.5, 0.0, 1.0]);
        assert_eq!(Format::R8G8B8A8_UNORM.encode(Aspect::Color, &c), Some(vec![255, 128, 0, 255]));
        assert_eq!(Format::B8G8R8A8_UNORM.encode(Aspect::Color, &c), Some(vec![0, 128, 255, 255]));
        // sRGB: linear 0.5 is about 0.735, 188 in 8 bits.
        assert_eq!(Format::R8G8B8A8_SRGB.encode(Aspect::Color, &c), Some(vec![255, 188, 0, 255]));
        assert_eq!(Format::R16G16B16A16_SFLOAT.encode(Aspect::Color, &c), Some(vec![0x00, 0x3c, 0x00, 0x38, 0, 0, 0x00, 0x3c]));
        let ds = ClearValue::DepthStencil { depth: 1.0, stencil: 7 };
        assert_eq!(Format::D24_UNORM_S8_UINT.encode(Aspect::Depth, &ds), Some(vec![0xff, 0xff, 0xff, 0]));
        assert_eq!(Format::D32_SFLOAT_S8_UINT.encode(Aspect::Stencil, &ds), Some(vec![7]));
        assert_eq!(Format::R32_UINT.encode(Aspect::Color, &ClearValue::Uint([9, 0, 0, 0])), Some(vec![9, 0, 0, 0]));
        assert_eq!(Format::R32_UINT.encode(Aspect::Color, &c), None, "floats do not clear an integer image");
        assert_eq!(Format::D32_SFLOAT.encode(Aspect::Color, &c), None);
    }

    #[test]
    fn encode_then_decode_gives_the_value_back() {
        let c = [0.25f32, 0.5, 0.75, 1.0];
        for f in [Format::R32G32B32A32_SFLOAT, Format::R16G16B16A16_SFLOAT, Format::R8G8B8A8_UNORM, Format::B8G8R8A8_UNORM, Format::R8G8B8A8_SRGB] {
            let bytes = f.encode(Aspect::Color, &ClearValue::Float(c)).unwrap();
            let Texel::Float(v) = f.decode(Aspect::Color, &bytes) else { panic!("{f}") };
            for k in 0..4 {
                assert!((v[k] - c[k]).abs() < 0.01, "{f}: {v:?}");
            }
        }
        let bytes = Format::D24_UNORM_S8_UINT.encode(Aspect::Depth, &ClearValue::DepthStencil { depth: 0.5, stencil: 0 }).unwrap();
        let Texel::Float(v) = Format::D24_UNORM_S8_UINT.decode(Aspect::Depth, &bytes) else { panic!() };
        assert!((v[0] - 0.5).abs() < 1e-6);
    }

    /// Half floats come from the `half` crate: round to nearest even, as Vulkan converts.
    #[test]
    fn half_float_clears_round_to_nearest_even() {
        // 1 + 2^-11 lies halfway between 1 and the next half: ties go to the even one.
        let c = ClearValue::Float([1.0 + 2f32.powi(-11), 65504.0, 1e6, -2.0]);
        assert_eq!(Format::R16G16B16A16_SFLOAT.encode(Aspect::Color, &c), Some(vec![0x00, 0x3c, 0xff, 0x7b, 0x00, 0x7c, 0x00, 0xc0]));
    }

    /// The colour formats.
    fn colour_formats() -> impl Iterator<Item = Format> {
        FORMATS.into_iter().filter(|f| !f.is_depth_stencil())
    }

    #[test]
    fn texels_read_as_shader_words() {
        assert_eq!(Texel::Float([1.0, -0.0, 0.5, 1.0]).words(), [0x3f80_0000, 0x8000_0000, 0x3f00_0000, 0x3f80_0000]);
        assert_eq!(Texel::Uint([7, 0, 0, 1]).words(), [7, 0, 0, 1]);
        assert_eq!(Texel::Stencil(200).words(), [200, 0, 0, 1]);
        let one = 1.0f32.to_bits();
        assert_eq!(Format::R32_SFLOAT.decode(Aspect::Color, &2.0f32.to_le_bytes()).words(), [2.0f32.to_bits(), 0, 0, one]);
        assert_eq!(Format::R32G32_SFLOAT.decode(Aspect::Color, &[0; 8]).words(), [0, 0, 0, one]);
        assert_eq!(Format::R32_UINT.decode(Aspect::Color, &[9, 0, 0, 0]).words(), [9, 0, 0, 1]);
        assert_eq!(Format::B8G8R8A8_UNORM.decode(Aspect::Color, &[0, 0, 255, 0]).words(), [one, 0, 0, 0]);
    }

    /// Every texel's bytes decode to words that encode back to the same bytes: exhaustively for
    /// the 8-bit channels and the half floats (NaNs aside), on chosen bit patterns for 32 bits.
    #[test]
    fn every_colour_texel_round_trips_through_shader_words() {
        let check = |f: Format, bytes: &[u8]| {
            let words = f.decode(Aspect::Color, bytes).words();
            assert_eq!(f.encode_words(words).as_deref(), Some(bytes), "{f}: {words:x?}");
        };
        for f in [Format::R8G8B8A8_UNORM, Format::B8G8R8A8_UNORM, Format::R8G8B8A8_SRGB] {
            for b in 0..=255u8 {
                check(f, &[b, 255 - b, b ^ 0x55, b.rotate_left(3)]);
            }
        }
        for h in 0..=u16::MAX {
            if !half::f16::from_bits(h).is_nan() {
                let [lo, hi] = h.to_le_bytes();
                check(Format::R16G16B16A16_SFLOAT, &[lo, hi, 0, 0xbc, lo, hi, 0, 0]);
            }
        }
        let patterns = [0u32, 0x8000_0000, 1, 0x007f_ffff, 0x3f80_0000, 0xbf00_0001, 0x7f7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001, 0xdead_beef, u32::MAX];
        for f in colour_formats().filter(|f| f.plane_bytes(Aspect::Color).unwrap() / f.channels() as u32 == 4) {
            for k in 0..patterns.len() {
                let bytes: Vec<u8> = (0..f.channels()).flat_map(|c| patterns[(k + c) % patterns.len()].to_le_bytes()).collect();
                check(f, &bytes);
            }
        }
        // And words a shader computes come back as the texel's value: exactly for 32-bit
        // channels, to the nearest representable value for the narrower ones.
        let words = [0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits);
        for f in colour_formats() {
            let bytes = f.encode_words(words).unwrap();
            assert_eq!(bytes.len() as u32, f.plane_bytes(Aspect::Color).unwrap(), "{f}");
            let back = f.decode(Aspect::Color, &bytes).words();
            if f == Format::R32_UINT {
                assert_eq!(back, [words[0], 0, 0, 1]);
                continue;
            }
            for (c, (&b, &w)) in back.iter().zip(&words).enumerate() {
                let want = if c < f.channels() { f32::from_bits(w) } else if c == 3 { 1.0 } else { 0.0 };
                assert!((f32::from_bits(b) - want).abs() < 0.01, "{f} channel {c}: {back:x?}");
            }
        }
    }

    #[test]
    fn shader_words_encode_with_the_formats_rounding() {
        let w = |v: [f32; 4]| v.map(f32::to_bits);
        // UNORM: clamped, then rounded to nearest; NaN writes 0.
        assert_eq!(Format::R8G8B8A8_UNORM.encode_words(w([-1.0, 2.0, 0.5, f32::NAN])), Some(vec![0, 255, 128, 0]));
        assert_eq!(Format::B8G8R8A8_UNORM.encode_words(w([1.0, 0.0, 0.0, 1.0])), Some(vec![0, 0, 255, 255]));
        // sRGB: colour encoded, alpha linear.
        assert_eq!(Format::R8G8B8A8_SRGB.encode_words(w([0.5, 0.5, 0.5, 0.5])), Some(vec![188, 188, 188, 128]));
        // Half floats: ties to even.
        assert_eq!(Format::R16G16B16A16_SFLOAT.encode_words(w([1.0 + 2f32.powi(-11), 65504.0, 1e6, -2.0])), Some(vec![0x00, 0x3c, 0xff, 0x7b, 0x00, 0x7c, 0x00, 0xc0]));
        // Floats: the bits; channels the format lacks are dropped.
        assert_eq!(Format::R32G32_SFLOAT.encode_words([1, 2, 3, 4]), Some(vec![1, 0, 0, 0, 2, 0, 0, 0]));
        assert_eq!(Format::R32_UINT.encode_words([0xdead_beef, 1, 2, 3]), Some(0xdead_beefu32.to_le_bytes().to_vec()));
        for f in [Format::D32_SFLOAT, Format::D24_UNORM_S8_UINT, Format::D32_SFLOAT_S8_UINT] {
            assert_eq!(f.encode_words([0; 4]), None, "{f}");
        }
    }
}
