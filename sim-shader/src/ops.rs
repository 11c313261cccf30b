//! Arithmetic kernels: each applies one operation to a row of `W` lanes. Kept apart from the
//! interpreter loop so the semantics (WGSL's integer division rules, IEEE f32, bit functions)
//! can be read in one place. Every kernel is total: no input panics.

use crate::error::ShaderError;
use crate::program::{BinOp, Kind, LaneFn, Reg, TerOp, UnOp};

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

#[inline(always)]
fn map2(o: &mut [u32], x: &[u32], y: &[u32], g: impl Fn(u32, u32) -> u32) {
    for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
        *o = g(x, y);
    }
}

#[inline(always)]
fn map1(o: &mut [u32], x: &[u32], g: impl Fn(u32) -> u32) {
    for (o, &x) in o.iter_mut().zip(x) {
        *o = g(x);
    }
}

#[inline(always)]
fn map3(o: &mut [u32], x: &[u32], y: &[u32], z: &[u32], g: impl Fn(u32, u32, u32) -> u32) {
    for (((o, &x), &y), &z) in o.iter_mut().zip(x).zip(y).zip(z) {
        *o = g(x, y, z);
    }
}

/// `x + y` in `kind`.
#[inline(always)]
pub(crate) fn add(kind: Kind, x: u32, y: u32) -> u32 {
    if kind == Kind::F32 { (f(x) + f(y)).to_bits() } else { x.wrapping_add(y) }
}

/// `x * y` in `kind`.
#[inline(always)]
pub(crate) fn mul(kind: Kind, x: u32, y: u32) -> u32 {
    if kind == Kind::F32 { (f(x) * f(y)).to_bits() } else { x.wrapping_mul(y) }
}

fn idiv(x: i32, y: i32) -> i32 {
    // WGSL: division by zero and MIN / -1 yield the dividend.
    if y == 0 || (x == i32::MIN && y == -1) { x } else { x / y }
}

fn irem(x: i32, y: i32) -> i32 {
    if y == 0 || (x == i32::MIN && y == -1) { 0 } else { x % y }
}

/// Binary operation on one row.
pub(crate) fn bin(op: BinOp, kind: Kind, o: &mut [u32], x: &[u32], y: &[u32]) {
    use BinOp::*;
    use Kind::*;
    match (op, kind) {
        (Add, F32) => map2(o, x, y, |a, b| (f(a) + f(b)).to_bits()),
        (Add, _) => map2(o, x, y, |a, b| a.wrapping_add(b)),
        (Sub, F32) => map2(o, x, y, |a, b| (f(a) - f(b)).to_bits()),
        (Sub, _) => map2(o, x, y, |a, b| a.wrapping_sub(b)),
        (Mul, F32) => map2(o, x, y, |a, b| (f(a) * f(b)).to_bits()),
        (Mul, _) => map2(o, x, y, |a, b| a.wrapping_mul(b)),
        (Div, F32) => map2(o, x, y, |a, b| (f(a) / f(b)).to_bits()),
        (Div, I32) => map2(o, x, y, |a, b| idiv(a as i32, b as i32) as u32),
        (Div, _) => map2(o, x, y, |a, b| a.checked_div(b).unwrap_or(a)),
        (Rem, F32) => map2(o, x, y, |a, b| (f(a) % f(b)).to_bits()),
        (Rem, I32) => map2(o, x, y, |a, b| irem(a as i32, b as i32) as u32),
        (Rem, _) => map2(o, x, y, |a, b| a.checked_rem(b).unwrap_or(0)),
        (Eq, F32) => map2(o, x, y, |a, b| (f(a) == f(b)) as u32),
        (Eq, _) => map2(o, x, y, |a, b| (a == b) as u32),
        (Ne, F32) => map2(o, x, y, |a, b| (f(a) != f(b)) as u32),
        (Ne, _) => map2(o, x, y, |a, b| (a != b) as u32),
        (Lt, F32) => map2(o, x, y, |a, b| (f(a) < f(b)) as u32),
        (Lt, I32) => map2(o, x, y, |a, b| ((a as i32) < (b as i32)) as u32),
        (Lt, _) => map2(o, x, y, |a, b| (a < b) as u32),
        (Le, F32) => map2(o, x, y, |a, b| (f(a) <= f(b)) as u32),
        (Le, I32) => map2(o, x, y, |a, b| ((a as i32) <= (b as i32)) as u32),
        (Le, _) => map2(o, x, y, |a, b| (a <= b) as u32),
        (Gt, F32) => map2(o, x, y, |a, b| (f(a) > f(b)) as u32),
        (Gt, I32) => map2(o, x, y, |a, b| ((a as i32) > (b as i32)) as u32),
        (Gt, _) => map2(o, x, y, |a, b| (a > b) as u32),
        (Ge, F32) => map2(o, x, y, |a, b| (f(a) >= f(b)) as u32),
        (Ge, I32) => map2(o, x, y, |a, b| ((a as i32) >= (b as i32)) as u32),
        (Ge, _) => map2(o, x, y, |a, b| (a >= b) as u32),
        (And, _) => map2(o, x, y, |a, b| a & b),
        (Or, _) => map2(o, x, y, |a, b| a | b),
        (Xor, _) => map2(o, x, y, |a, b| a ^ b),
        (Shl, _) => map2(o, x, y, |a, b| a.wrapping_shl(b & 31)),
        (Shr, I32) => map2(o, x, y, |a, b| ((a as i32) >> (b & 31)) as u32),
        (Shr, _) => map2(o, x, y, |a, b| a >> (b & 31)),
        (Min, F32) => map2(o, x, y, |a, b| f(a).min(f(b)).to_bits()),
        (Min, I32) => map2(o, x, y, |a, b| (a as i32).min(b as i32) as u32),
        (Min, _) => map2(o, x, y, |a, b| a.min(b)),
        (Max, F32) => map2(o, x, y, |a, b| f(a).max(f(b)).to_bits()),
        (Max, I32) => map2(o, x, y, |a, b| (a as i32).max(b as i32) as u32),
        (Max, _) => map2(o, x, y, |a, b| a.max(b)),
        (Atan2, _) => map2(o, x, y, |a, b| f(a).atan2(f(b)).to_bits()),
        (Pow, _) => map2(o, x, y, |a, b| f(a).powf(f(b)).to_bits()),
        (Step, _) => map2(o, x, y, |edge, v| if f(v) >= f(edge) { 1.0f32.to_bits() } else { 0 }),
        // In f64, where every f32 times 2^±300 is exact, then rounded once: `2f32.powi(128)` is
        // already infinite, which made `ldexp(0.5, 128)` infinite instead of 2^127.
        (Ldexp, _) => map2(o, x, y, |a, b| ((f64::from(f(a)) * 2f64.powi((b as i32).clamp(-300, 300))) as f32).to_bits()),
    }
}

fn first_leading_bit_i(v: i32) -> u32 {
    let x = if v < 0 { !v } else { v } as u32;
    if x == 0 { u32::MAX } else { 31 - x.leading_zeros() }
}

/// Unary operation on one row; `kind` is the operand's kind.
pub(crate) fn un(op: UnOp, kind: Kind, o: &mut [u32], x: &[u32]) {
    use Kind::*;
    use UnOp::*;
    let fl = |o: &mut [u32], g: fn(f32) -> f32| map1(o, x, |a| g(f(a)).to_bits());
    match (op, kind) {
        (Neg, F32) => fl(o, |a| -a),
        (Neg, _) => map1(o, x, |a| (a as i32).wrapping_neg() as u32),
        (Not, _) => map1(o, x, |a| !a),
        (LogicalNot, _) => map1(o, x, |a| (a == 0) as u32),
        (Abs, F32) => fl(o, f32::abs),
        (Abs, I32) => map1(o, x, |a| (a as i32).wrapping_abs() as u32),
        (Abs, _) => map1(o, x, |a| a),
        (Sign, F32) => fl(o, |a| if a > 0.0 { 1.0 } else if a < 0.0 { -1.0 } else { 0.0 }),
        (Sign, _) => map1(o, x, |a| (a as i32).signum() as u32),
        (Floor, _) => fl(o, f32::floor),
        (Ceil, _) => fl(o, f32::ceil),
        (Round, _) => fl(o, f32::round_ties_even),
        (Fract, _) => fl(o, |a| a - a.floor()),
        (Trunc, _) => fl(o, f32::trunc),
        (Sqrt, _) => fl(o, f32::sqrt),
        (InverseSqrt, _) => fl(o, |a| 1.0 / a.sqrt()),
        (Exp, _) => fl(o, f32::exp),
        (Exp2, _) => fl(o, f32::exp2),
        (Log, _) => fl(o, f32::ln),
        (Log2, _) => fl(o, f32::log2),
        (Sin, _) => fl(o, f32::sin),
        (Cos, _) => fl(o, f32::cos),
        (Tan, _) => fl(o, f32::tan),
        (Asin, _) => fl(o, f32::asin),
        (Acos, _) => fl(o, f32::acos),
        (Atan, _) => fl(o, f32::atan),
        (Sinh, _) => fl(o, f32::sinh),
        (Cosh, _) => fl(o, f32::cosh),
        (Tanh, _) => fl(o, f32::tanh),
        (Asinh, _) => fl(o, f32::asinh),
        (Acosh, _) => fl(o, f32::acosh),
        (Atanh, _) => fl(o, f32::atanh),
        (Radians, _) => fl(o, f32::to_radians),
        (Degrees, _) => fl(o, f32::to_degrees),
        (Saturate, _) => fl(o, |a| a.clamp(0.0, 1.0)),
        (CountOneBits, _) => map1(o, x, u32::count_ones),
        (ReverseBits, _) => map1(o, x, u32::reverse_bits),
        (FirstLeadingBit, I32) => map1(o, x, |a| first_leading_bit_i(a as i32)),
        (FirstLeadingBit, _) => map1(o, x, |a| if a == 0 { u32::MAX } else { 31 - a.leading_zeros() }),
        (FirstTrailingBit, _) => map1(o, x, |a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        (CountLeadingZeros, _) => map1(o, x, u32::leading_zeros),
        (CountTrailingZeros, _) => map1(o, x, u32::trailing_zeros),
        (QuantizeToF16, _) => fl(o, |a| f16_to_f32(f32_to_f16(a))),
        (IsNan, _) => map1(o, x, |a| f(a).is_nan() as u32),
        (IsInf, _) => map1(o, x, |a| f(a).is_infinite() as u32),
        (ToF32, F32) => map1(o, x, |a| a),
        (ToF32, I32) => map1(o, x, |a| (a as i32 as f32).to_bits()),
        (ToF32, U32) => map1(o, x, |a| (a as f32).to_bits()),
        (ToF32, Bool) => map1(o, x, |a| if a != 0 { 1.0f32.to_bits() } else { 0 }),
        // f32 -> integer conversions saturate (NaN gives 0), as Rust's `as` does.
        (ToI32, F32) => map1(o, x, |a| f(a) as i32 as u32),
        (ToI32, Bool) => map1(o, x, |a| (a != 0) as u32),
        (ToI32, _) => map1(o, x, |a| a),
        (ToU32, F32) => map1(o, x, |a| f(a) as u32),
        (ToU32, Bool) => map1(o, x, |a| (a != 0) as u32),
        (ToU32, _) => map1(o, x, |a| a),
        (ToBool, F32) => map1(o, x, |a| (f(a) != 0.0) as u32),
        (ToBool, _) => map1(o, x, |a| (a != 0) as u32),
    }
}

fn extract_bits(e: u32, offset: u32, count: u32, signed: bool) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return 0;
    }
    let v = if o == 32 { 0 } else { e >> o };
    let mask = if c == 32 { u32::MAX } else { (1u32 << c) - 1 };
    let v = v & mask;
    if signed && c < 32 && (v >> (c - 1)) & 1 == 1 { v | !mask } else { v }
}

fn insert_bits(e: u32, newbits: u32, offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return e;
    }
    let mask = if c == 32 { u32::MAX } else { ((1u32 << c) - 1) << o };
    (e & !mask) | (newbits.wrapping_shl(o) & mask)
}

/// Three-operand operation on one row.
pub(crate) fn ter(op: TerOp, kind: Kind, o: &mut [u32], x: &[u32], y: &[u32], z: &[u32]) {
    use Kind::*;
    match (op, kind) {
        (TerOp::Clamp, F32) => map3(o, x, y, z, |e, lo, hi| f(e).max(f(lo)).min(f(hi)).to_bits()),
        (TerOp::Clamp, I32) => map3(o, x, y, z, |e, lo, hi| (e as i32).max(lo as i32).min(hi as i32) as u32),
        (TerOp::Clamp, _) => map3(o, x, y, z, |e, lo, hi| e.max(lo).min(hi)),
        (TerOp::Mix, _) => map3(o, x, y, z, |a, b, t| (f(a) * (1.0 - f(t)) + f(b) * f(t)).to_bits()),
        (TerOp::SmoothStep, _) => map3(o, x, y, z, |lo, hi, v| {
            let t = ((f(v) - f(lo)) / (f(hi) - f(lo))).clamp(0.0, 1.0);
            (t * t * (3.0 - 2.0 * t)).to_bits()
        }),
        (TerOp::Fma, _) => map3(o, x, y, z, |a, b, c| f(a).mul_add(f(b), f(c)).to_bits()),
        (TerOp::ExtractBits, I32) => map3(o, x, y, z, |e, off, cnt| extract_bits(e, off, cnt, true)),
        (TerOp::ExtractBits, _) => map3(o, x, y, z, |e, off, cnt| extract_bits(e, off, cnt, false)),
    }
}

/// Number of result components of a per-lane function over `n`-component input.
pub(crate) fn lane_out(fun: LaneFn, n: u32) -> u32 {
    use LaneFn::*;
    match fun {
        Cross => 3,
        Length | Distance | All | Any => 1,
        Normalize | InsertBits | Reflect | FaceForward => n,
        Pack4x8Snorm | Pack4x8Unorm | Pack2x16Snorm | Pack2x16Unorm | Pack2x16Float | Pack4xI8 | Pack4xU8 | Pack4xI8Clamp | Pack4xU8Clamp => 1,
        Unpack4x8Snorm | Unpack4x8Unorm | Unpack4xI8 | Unpack4xU8 => 4,
        Unpack2x16Snorm | Unpack2x16Unorm | Unpack2x16Float => 2,
        Dot4I8Packed | Dot4U8Packed => 1,
    }
}

/// IEEE binary16 from f32, round to nearest even.
pub(crate) fn f32_to_f16(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && (r & 1) == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && (r & 1) == 1) {
        r += 1;
    }
    sign | r as u16
}

/// f32 from IEEE binary16.
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: value = man * 2^-24.
            return f32::from_bits(sign) + (if sign != 0 { -1.0 } else { 1.0 }) * man as f32 * (2f32).powi(-24);
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

fn snorm(v: f32, bits: u32) -> u32 {
    let m = ((1u32 << (bits - 1)) - 1) as f32;
    let q = (v.clamp(-1.0, 1.0) * m).round_ties_even() as i32;
    (q as u32) & ((1u32 << bits) - 1)
}

fn unorm(v: f32, bits: u32) -> u32 {
    let m = ((1u32 << bits) - 1) as f32;
    (v.clamp(0.0, 1.0) * m).round_ties_even() as u32
}

/// Per-lane functions whose inputs and outputs differ in shape. Slower than the row kernels,
/// but used only by geometry, packing and bit-insertion built-ins.
pub(crate) fn lane_fn(fun: LaneFn, kind: Kind, d: &mut [u32], lo: &[u32], args: [Reg; 4], n: u32, w: usize) -> Result<(), ShaderError> {
    use LaneFn::*;
    let n = n as usize;
    let get = |r: Reg, c: usize, l: usize| -> Result<u32, ShaderError> {
        lo.get((r as usize + c) * w + l).copied().ok_or_else(|| ShaderError::Internal("lane function operand".into()))
    };
    for l in 0..w {
        let mut a = [0u32; 4];
        let mut b = [0u32; 4];
        for c in 0..n.min(4) {
            a[c] = get(args[0], c, l)?;
            if args[1] != crate::program::NO_REG && !matches!(fun, InsertBits) {
                b[c] = get(args[1], c, l)?;
            }
        }
        let af = a.map(f);
        let bf = b.map(f);
        let mut out = [0u32; 4];
        let len = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        match fun {
            Cross => {
                out = [
                    af[1] * bf[2] - af[2] * bf[1],
                    af[2] * bf[0] - af[0] * bf[2],
                    af[0] * bf[1] - af[1] * bf[0],
                    0.0,
                ]
                .map(f32::to_bits)
            }
            Length => out[0] = len(&af[..n]).to_bits(),
            Distance => {
                let mut diff = [0f32; 4];
                for c in 0..n {
                    diff[c] = af[c] - bf[c];
                }
                out[0] = len(&diff[..n]).to_bits();
            }
            Normalize => {
                let m = len(&af[..n]);
                for c in 0..n {
                    out[c] = (af[c] / m).to_bits();
                }
            }
            All => out[0] = a[..n].iter().all(|&v| v != 0) as u32,
            Any => out[0] = a[..n].iter().any(|&v| v != 0) as u32,
            InsertBits => {
                let off = get(args[2], 0, l)?;
                let cnt = get(args[3], 0, l)?;
                for c in 0..n {
                    out[c] = insert_bits(a[c], get(args[1], c, l)?, off, cnt);
                }
            }
            Reflect => {
                let dt: f32 = (0..n).map(|c| af[c] * bf[c]).sum();
                for c in 0..n {
                    out[c] = (af[c] - 2.0 * dt * bf[c]).to_bits();
                }
            }
            FaceForward => {
                let mut c3 = [0f32; 4];
                for (c, v) in c3.iter_mut().enumerate().take(n) {
                    *v = f(get(args[2], c, l)?);
                }
                let dt: f32 = (0..n).map(|c| bf[c] * c3[c]).sum();
                for c in 0..n {
                    out[c] = (if dt < 0.0 { af[c] } else { -af[c] }).to_bits();
                }
            }
            Pack4x8Snorm => out[0] = (0..4).map(|c| snorm(af[c], 8) << (8 * c)).fold(0, |x, y| x | y),
            Pack4x8Unorm => out[0] = (0..4).map(|c| unorm(af[c], 8) << (8 * c)).fold(0, |x, y| x | y),
            Pack2x16Snorm => out[0] = snorm(af[0], 16) | (snorm(af[1], 16) << 16),
            Pack2x16Unorm => out[0] = unorm(af[0], 16) | (unorm(af[1], 16) << 16),
            Pack2x16Float => out[0] = f32_to_f16(af[0]) as u32 | ((f32_to_f16(af[1]) as u32) << 16),
            Pack4xI8 | Pack4xU8 => out[0] = (0..4).map(|c| (a[c] & 0xff) << (8 * c)).fold(0, |x, y| x | y),
            Pack4xI8Clamp => out[0] = (0..4).map(|c| (((a[c] as i32).clamp(-128, 127) as u32) & 0xff) << (8 * c)).fold(0, |x, y| x | y),
            Pack4xU8Clamp => out[0] = (0..4).map(|c| a[c].min(255) << (8 * c)).fold(0, |x, y| x | y),
            Unpack4x8Snorm => {
                for (c, o) in out.iter_mut().enumerate() {
                    *o = ((((a[0] >> (8 * c)) as u8 as i8) as f32 / 127.0).max(-1.0)).to_bits();
                }
            }
            Unpack4x8Unorm => {
                for (c, o) in out.iter_mut().enumerate() {
                    *o = (((a[0] >> (8 * c)) & 0xff) as f32 / 255.0).to_bits();
                }
            }
            Unpack2x16Snorm => {
                for (c, o) in out.iter_mut().enumerate().take(2) {
                    *o = ((((a[0] >> (16 * c)) as u16 as i16) as f32 / 32767.0).max(-1.0)).to_bits();
                }
            }
            Unpack2x16Unorm => {
                for (c, o) in out.iter_mut().enumerate().take(2) {
                    *o = (((a[0] >> (16 * c)) & 0xffff) as f32 / 65535.0).to_bits();
                }
            }
            Unpack2x16Float => {
                for (c, o) in out.iter_mut().enumerate().take(2) {
                    *o = f16_to_f32((a[0] >> (16 * c)) as u16).to_bits();
                }
            }
            Unpack4xI8 => {
                for (c, o) in out.iter_mut().enumerate() {
                    *o = ((a[0] >> (8 * c)) as u8 as i8) as i32 as u32;
                }
            }
            Unpack4xU8 => {
                for (c, o) in out.iter_mut().enumerate() {
                    *o = (a[0] >> (8 * c)) & 0xff;
                }
            }
            Dot4I8Packed => {
                let y = get(args[1], 0, l)?;
                out[0] = (0..4).map(|c| ((a[0] >> (8 * c)) as u8 as i8 as i32).wrapping_mul((y >> (8 * c)) as u8 as i8 as i32)).fold(0i32, i32::wrapping_add) as u32;
            }
            Dot4U8Packed => {
                let y = get(args[1], 0, l)?;
                out[0] = (0..4).map(|c| ((a[0] >> (8 * c)) & 0xff) * ((y >> (8 * c)) & 0xff)).fold(0u32, u32::wrapping_add);
            }
        }
        let _ = kind;
        let m = lane_out(fun, n as u32) as usize;
        for (c, &v) in out.iter().enumerate().take(m) {
            if let Some(x) = d.get_mut(c * w + l) {
                *x = v;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ldexp(a: f32, e: i32) -> f32 {
        let mut o = [0u32];
        bin(BinOp::Ldexp, Kind::F32, &mut o, &[a.to_bits()], &[e as u32]);
        f32::from_bits(o[0])
    }

    /// `ldexp` is exact wherever its result is a finite f32: 2^128 alone overflows f32, which
    /// once made `ldexp(0.5, 128)` infinite instead of 2^127.
    #[test]
    fn ldexp_is_exact_across_the_exponent_range() {
        assert_eq!(ldexp(0.5, 128), 2f32.powi(127));
        assert_eq!(ldexp(1.5, 127), 1.5 * 2f32.powi(127));
        assert_eq!(ldexp(f32::MAX, -254), f32::MAX / 2f32.powi(127) / 2f32.powi(127));
        assert_eq!(ldexp(1.0, -149), f32::from_bits(1), "the smallest subnormal");
        assert_eq!(ldexp(f32::from_bits(1), 149), 1.0);
        assert_eq!(ldexp(3.0, -1), 1.5);
        assert!(ldexp(1.0, 128).is_infinite());
    }
}
