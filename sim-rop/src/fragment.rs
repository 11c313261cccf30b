//! Per-fragment operations as pure functions, as Vulkan's "Fragment Operations" and "The
//! Framebuffer" chapters define them: the depth and stencil tests, the stencil operations, the
//! blend equation with its factors and operations, and colour write masks. The ROP unit and the
//! reference run call the same functions, so they cannot disagree.

/// `VkCompareOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// Never passes.
    Never,
    /// `reference < stored`.
    Less,
    /// `reference == stored`.
    Equal,
    /// `reference <= stored`.
    LessOrEqual,
    /// `reference > stored`.
    Greater,
    /// `reference != stored`.
    NotEqual,
    /// `reference >= stored`.
    GreaterOrEqual,
    /// Always passes.
    Always,
}

impl CompareOp {
    /// Whether `reference` (the fragment's value) passes against `stored` (the attachment's).
    pub fn test<T: PartialOrd>(self, reference: T, stored: T) -> bool {
        match self {
            CompareOp::Never => false,
            CompareOp::Less => reference < stored,
            CompareOp::Equal => reference == stored,
            CompareOp::LessOrEqual => reference <= stored,
            CompareOp::Greater => reference > stored,
            CompareOp::NotEqual => reference != stored,
            CompareOp::GreaterOrEqual => reference >= stored,
            CompareOp::Always => true,
        }
    }
}

/// `VkStencilOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StencilOp {
    /// Keeps the value.
    Keep,
    /// Sets 0.
    Zero,
    /// Sets the reference.
    Replace,
    /// Adds 1, clamped to 255.
    IncrementAndClamp,
    /// Subtracts 1, clamped to 0.
    DecrementAndClamp,
    /// Inverts the bits.
    Invert,
    /// Adds 1, wrapping.
    IncrementAndWrap,
    /// Subtracts 1, wrapping.
    DecrementAndWrap,
}

/// One face's stencil state (`VkStencilOpState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilState {
    /// When the stencil test fails.
    pub fail_op: StencilOp,
    /// When both tests pass.
    pub pass_op: StencilOp,
    /// When the stencil test passes and the depth test fails.
    pub depth_fail_op: StencilOp,
    /// The test.
    pub compare_op: CompareOp,
    /// Bits compared.
    pub compare_mask: u8,
    /// Bits written.
    pub write_mask: u8,
    /// The reference value.
    pub reference: u8,
}

impl StencilState {
    /// Whether the stencil test passes against `stored`: `(reference & mask) op (stored & mask)`.
    pub fn test(&self, stored: u8) -> bool {
        self.compare_op.test(self.reference & self.compare_mask, stored & self.compare_mask)
    }

    /// The stencil value after a fragment: `stencil_pass`, `depth_pass` are the two tests'
    /// outcomes; only the bits of `write_mask` change.
    pub fn update(&self, stored: u8, stencil_pass: bool, depth_pass: bool) -> u8 {
        let op = match (stencil_pass, depth_pass) {
            (false, _) => self.fail_op,
            (true, false) => self.depth_fail_op,
            (true, true) => self.pass_op,
        };
        let v = match op {
            StencilOp::Keep => stored,
            StencilOp::Zero => 0,
            StencilOp::Replace => self.reference,
            StencilOp::IncrementAndClamp => stored.saturating_add(1),
            StencilOp::DecrementAndClamp => stored.saturating_sub(1),
            StencilOp::Invert => !stored,
            StencilOp::IncrementAndWrap => stored.wrapping_add(1),
            StencilOp::DecrementAndWrap => stored.wrapping_sub(1),
        };
        (stored & !self.write_mask) | (v & self.write_mask)
    }
}

/// `VkBlendFactor` (dual-source factors excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// The source colour.
    SrcColor,
    /// 1 - the source colour.
    OneMinusSrcColor,
    /// The destination colour.
    DstColor,
    /// 1 - the destination colour.
    OneMinusDstColor,
    /// The source alpha.
    SrcAlpha,
    /// 1 - the source alpha.
    OneMinusSrcAlpha,
    /// The destination alpha.
    DstAlpha,
    /// 1 - the destination alpha.
    OneMinusDstAlpha,
    /// The blend constant.
    ConstantColor,
    /// 1 - the blend constant.
    OneMinusConstantColor,
    /// The blend constant's alpha.
    ConstantAlpha,
    /// 1 - the blend constant's alpha.
    OneMinusConstantAlpha,
    /// min(source alpha, 1 - destination alpha) for colour, 1 for alpha.
    SrcAlphaSaturate,
}

/// `VkBlendOp` (the basic five).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendOp {
    /// `s * sf + d * df`.
    Add,
    /// `s * sf - d * df`.
    Subtract,
    /// `d * df - s * sf`.
    ReverseSubtract,
    /// `min(s, d)` (factors ignored).
    Min,
    /// `max(s, d)` (factors ignored).
    Max,
}

/// One attachment's blend state (`VkPipelineColorBlendAttachmentState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendState {
    /// Whether blending is on (off: the source is written).
    pub enable: bool,
    /// Colour source factor.
    pub src_color: BlendFactor,
    /// Colour destination factor.
    pub dst_color: BlendFactor,
    /// Colour operation.
    pub color_op: BlendOp,
    /// Alpha source factor.
    pub src_alpha: BlendFactor,
    /// Alpha destination factor.
    pub dst_alpha: BlendFactor,
    /// Alpha operation.
    pub alpha_op: BlendOp,
    /// Channels written: bit 0 R, 1 G, 2 B, 3 A.
    pub write_mask: u8,
}

impl BlendState {
    /// No blending, every channel written.
    pub const REPLACE: BlendState = BlendState {
        enable: false,
        src_color: BlendFactor::One,
        dst_color: BlendFactor::Zero,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        alpha_op: BlendOp::Add,
        write_mask: 0xf,
    };

    /// The colour written for source `s` over destination `d` with blend constant `c`, write
    /// mask applied (a masked channel keeps `d`'s value).
    pub fn blend(&self, s: [f32; 4], d: [f32; 4], c: [f32; 4]) -> [f32; 4] {
        let mut out = s;
        if self.enable {
            let factor = |f: BlendFactor, k: usize| -> f32 {
                match f {
                    BlendFactor::Zero => 0.0,
                    BlendFactor::One => 1.0,
                    BlendFactor::SrcColor => s[k],
                    BlendFactor::OneMinusSrcColor => 1.0 - s[k],
                    BlendFactor::DstColor => d[k],
                    BlendFactor::OneMinusDstColor => 1.0 - d[k],
                    BlendFactor::SrcAlpha => s[3],
                    BlendFactor::OneMinusSrcAlpha => 1.0 - s[3],
                    BlendFactor::DstAlpha => d[3],
                    BlendFactor::OneMinusDstAlpha => 1.0 - d[3],
                    BlendFactor::ConstantColor => c[k],
                    BlendFactor::OneMinusConstantColor => 1.0 - c[k],
                    BlendFactor::ConstantAlpha => c[3],
                    BlendFactor::OneMinusConstantAlpha => 1.0 - c[3],
                    BlendFactor::SrcAlphaSaturate => {
                        if k == 3 {
                            1.0
                        } else {
                            s[3].min(1.0 - d[3])
                        }
                    }
                }
            };
            for k in 0..4 {
                let (sf, df, op) = if k < 3 { (self.src_color, self.dst_color, self.color_op) } else { (self.src_alpha, self.dst_alpha, self.alpha_op) };
                out[k] = match op {
                    BlendOp::Add => s[k] * factor(sf, k) + d[k] * factor(df, k),
                    BlendOp::Subtract => s[k] * factor(sf, k) - d[k] * factor(df, k),
                    BlendOp::ReverseSubtract => d[k] * factor(df, k) - s[k] * factor(sf, k),
                    BlendOp::Min => s[k].min(d[k]),
                    BlendOp::Max => s[k].max(d[k]),
                };
            }
        }
        for (k, o) in out.iter_mut().enumerate() {
            if self.write_mask & (1 << k) == 0 {
                *o = d[k];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_ops_put_the_fragment_on_the_left() {
        assert!(CompareOp::Less.test(0.25, 0.5));
        assert!(!CompareOp::Less.test(0.5, 0.5));
        assert!(CompareOp::LessOrEqual.test(0.5, 0.5));
        assert!(CompareOp::Greater.test(3, 2));
        assert!(!CompareOp::Never.test(1, 1) && CompareOp::Always.test(1, 2));
        assert!(CompareOp::NotEqual.test(1, 2) && CompareOp::GreaterOrEqual.test(2, 2) && CompareOp::Equal.test(2, 2));
    }

    #[test]
    fn stencil_operations_respect_masks_and_outcomes() {
        let s = StencilState {
            fail_op: StencilOp::Zero,
            pass_op: StencilOp::IncrementAndClamp,
            depth_fail_op: StencilOp::Invert,
            compare_op: CompareOp::Equal,
            compare_mask: 0x0f,
            write_mask: 0xf0,
            reference: 0x13,
        };
        // (0x13 & 0x0f) == (0xa3 & 0x0f)
        assert!(s.test(0xa3));
        assert!(!s.test(0xa4));
        assert_eq!(s.update(0xa3, true, true), 0xa3, "0xa4's high nibble is 0xa: only the high bits are written");
        assert_eq!(s.update(0xff, true, true), 0xff, "clamped at 255");
        assert_eq!(s.update(0xa3, false, true), 0x03, "fail: zero, in the written bits");
        assert_eq!(s.update(0xa3, true, false), 0x53, "depth fail: inverted, in the written bits");
        let wrap = StencilState { pass_op: StencilOp::DecrementAndWrap, write_mask: 0xff, ..s };
        assert_eq!(wrap.update(0, true, true), 255);
    }

    #[test]
    fn blending_follows_the_equation_and_the_write_mask() {
        let over = BlendState { enable: true, src_color: BlendFactor::SrcAlpha, dst_color: BlendFactor::OneMinusSrcAlpha, src_alpha: BlendFactor::One, dst_alpha: BlendFactor::OneMinusSrcAlpha, ..BlendState::REPLACE };
        let out = over.blend([1.0, 0.0, 0.0, 0.25], [0.0, 0.0, 1.0, 1.0], [0.0; 4]);
        assert_eq!(out, [0.25, 0.0, 0.75, 1.0]);
        let masked = BlendState { write_mask: 0b0101, ..BlendState::REPLACE };
        assert_eq!(masked.blend([1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5], [0.0; 4]), [1.0, 0.5, 1.0, 0.5]);
        let max = BlendState { enable: true, color_op: BlendOp::Max, alpha_op: BlendOp::Min, ..BlendState::REPLACE };
        assert_eq!(max.blend([0.2, 0.8, 0.5, 0.3], [0.4, 0.6, 0.5, 0.9], [0.0; 4]), [0.4, 0.8, 0.5, 0.3]);
        let sat = BlendState { enable: true, src_color: BlendFactor::SrcAlphaSaturate, src_alpha: BlendFactor::SrcAlphaSaturate, ..BlendState::REPLACE };
        assert_eq!(sat.blend([1.0, 1.0, 1.0, 0.75], [0.0, 0.0, 0.0, 0.5], [0.0; 4]), [0.5, 0.5, 0.5, 0.75]);
    }
}
