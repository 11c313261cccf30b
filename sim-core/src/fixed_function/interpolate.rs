//! Fragment inputs: barycentric coordinates of a pixel centre, interpolated varyings,
//! `gl_FragCoord`, facing, and the quad derivatives, as Vulkan's "Basic Polygon Rasterization"
//! ("Barycentric Interpolation") and "Derivative Operations" sections define them.
//!
//! # Design
//! Barycentric coordinates come from the vertices' window coordinates as set up (f32, not the
//! snapped ones, as llvmpipe's plane equations use them), computed in f64 at the point asked:
//!
//! ```text
//! a_i  = A(P, p_j, p_k) / A(p_0, p_1, p_2)                    linear (framebuffer space)
//! b_i  = (a_i / w_i) / sum_j (a_j / w_j)                       perspective-correct
//! smooth:         f = sum b_i f_i
//! noperspective:  f = sum a_i f_i
//! flat:           f = f_0 (the provoking vertex: the first, Vulkan's default)
//! depth:          z = sum a_i z_i                              (linear in window space)
//! gl_FragCoord  = (x + 0.5, y + 0.5, z, sum a_i / w_i)         at the pixel centre
//! ```
//!
//! Interpolation is at the pixel centre, for helper pixels too (their barycentrics may be
//! negative: they extrapolate). Values are rounded once to f32 at the end. The depth is not
//! clamped to the viewport's range (depthClamp is not supported; a covered centre lies inside
//! the triangle up to the 1/256-pixel snapping, so depth stays within the vertices' range up to
//! that).
//!
//! Derivatives: over a quad's four lanes (lane `k` at `(x + k % 2, y + k / 2)`), [`ddx`] and
//! [`ddy`] are fine derivatives (each row's, each column's difference), as llvmpipe computes
//! every derivative; [`ddx_coarse`] and [`ddy_coarse`] use the top-left pixel's row and
//! column for all four lanes. A linear function's fine and coarse derivatives are equal and
//! exact.

use super::scan::Quad;
use super::setup::{FIXED_ONE, TriangleSetup};

/// How a varying is interpolated (the fragment input's decoration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Perspective-correct (no decoration).
    Smooth,
    /// Linear in framebuffer space (`NoPerspective`).
    NoPerspective,
    /// The provoking vertex's value (`Flat`).
    Flat,
}

/// The barycentric coordinates of a point in a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Barycentrics {
    /// Linear in framebuffer space (`a_i`); they sum to 1.
    pub linear: [f64; 3],
    /// Perspective-correct (`b_i`); they sum to 1.
    pub perspective: [f64; 3],
}

/// Twice the signed area of a triangle of f64 points.
fn area2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
}

/// The barycentric coordinates of the framebuffer point `(x, y)` in `setup`'s triangle.
pub fn barycentrics(setup: &TriangleSetup, x: f64, y: f64) -> Barycentrics {
    let mut p = setup.window.map(|w| [f64::from(w[0]), f64::from(w[1])]);
    let mut total = area2(p[0], p[1], p[2]);
    if total == 0.0 || !total.is_finite() {
        // Only for slivers the f32 positions flatten but the snapped ones do not: use those.
        p = setup.fixed.map(|f| f.map(|c| c as f64 / FIXED_ONE as f64 + 0.5));
        total = area2(p[0], p[1], p[2]);
    }
    let q = [x, y];
    let linear = [area2(q, p[1], p[2]) / total, area2(p[0], q, p[2]) / total, area2(p[0], p[1], q) / total];
    let oow = setup.window.map(|w| f64::from(w[3]));
    let weighted: [f64; 3] = std::array::from_fn(|k| linear[k] * oow[k]);
    let sum = weighted[0] + weighted[1] + weighted[2];
    let perspective = if sum != 0.0 && sum.is_finite() { weighted.map(|v| v / sum) } else { linear };
    Barycentrics { linear, perspective }
}

/// The barycentric coordinates of the centre of pixel `(px, py)`.
pub fn pixel_barycentrics(setup: &TriangleSetup, px: u32, py: u32) -> Barycentrics {
    barycentrics(setup, f64::from(px) + 0.5, f64::from(py) + 0.5)
}

/// The barycentric coordinates of a quad's four pixel centres, in lane order (helpers too).
pub fn quad_barycentrics(setup: &TriangleSetup, quad: &Quad) -> [Barycentrics; 4] {
    std::array::from_fn(|lane| {
        let (x, y) = quad.pixel(lane);
        pixel_barycentrics(setup, x, y)
    })
}

/// Interpolates varyings into `out`: component `k` of `out` from component `k` of each
/// vertex's `varyings`, by `modes[k]`. Components beyond the shorter of `modes` and `out` are
/// not written; a vertex lacking a component reads it as 0.
pub fn interpolate(b: &Barycentrics, varyings: [&[f32]; 3], modes: &[Interpolation], out: &mut [f32]) {
    for (k, (o, mode)) in out.iter_mut().zip(modes).enumerate() {
        let v = varyings.map(|vs| f64::from(vs.get(k).copied().unwrap_or(0.0)));
        *o = match mode {
            Interpolation::Flat => v[0] as f32,
            Interpolation::Smooth => (b.perspective[0] * v[0] + b.perspective[1] * v[1] + b.perspective[2] * v[2]) as f32,
            Interpolation::NoPerspective => (b.linear[0] * v[0] + b.linear[1] * v[1] + b.linear[2] * v[2]) as f32,
        };
    }
}

/// The fragment's depth `z_f`: linear in window space.
pub fn depth(setup: &TriangleSetup, b: &Barycentrics) -> f32 {
    let z = setup.window.map(|w| f64::from(w[2]));
    (b.linear[0] * z[0] + b.linear[1] * z[1] + b.linear[2] * z[2]) as f32
}

/// `gl_FragCoord` of pixel `(px, py)`: its centre, the depth, and the interpolated `1/w_c`.
pub fn frag_coord(setup: &TriangleSetup, b: &Barycentrics, px: u32, py: u32) -> [f32; 4] {
    let oow = setup.window.map(|w| f64::from(w[3]));
    let w = b.linear[0] * oow[0] + b.linear[1] * oow[1] + b.linear[2] * oow[2];
    [px as f32 + 0.5, py as f32 + 0.5, depth(setup, b), w as f32]
}

/// `gl_FrontFacing`.
pub fn front_facing(setup: &TriangleSetup) -> bool {
    setup.front_facing
}

/// Fine x derivative of a quad's values: each lane gets its row's right minus left.
pub fn ddx(v: [f32; 4]) -> [f32; 4] {
    let (top, bottom) = (v[1] - v[0], v[3] - v[2]);
    [top, top, bottom, bottom]
}

/// Fine y derivative of a quad's values: each lane gets its column's bottom minus top.
pub fn ddy(v: [f32; 4]) -> [f32; 4] {
    let (left, right) = (v[2] - v[0], v[3] - v[1]);
    [left, right, left, right]
}

/// Coarse x derivative: the top row's difference for every lane.
pub fn ddx_coarse(v: [f32; 4]) -> [f32; 4] {
    [v[1] - v[0]; 4]
}

/// Coarse y derivative: the left column's difference for every lane.
pub fn ddy_coarse(v: [f32; 4]) -> [f32; 4] {
    [v[2] - v[0]; 4]
}

#[cfg(test)]
mod tests {
    use super::super::setup::{RasterState, Viewport, setup_triangle};
    use super::*;

    /// Weights h with sum h_i (x_i, y_i, w_i) = (xn, yn, 1) for NDC point (xn, yn) in a
    /// clip-space triangle (Cramer's rule); scaled to sum 1 they are the perspective-correct
    /// barycentrics.
    fn homogeneous(clip: [[f64; 4]; 3], xn: f64, yn: f64) -> [f64; 3] {
        let col = |k: usize| [clip[k][0], clip[k][1], clip[k][3]];
        let det = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1]) + c[0] * (a[1] * b[2] - a[2] * b[1]);
        let (c0, c1, c2, r) = (col(0), col(1), col(2), [xn, yn, 1.0]);
        let d = det(c0, c1, c2);
        [det(r, c1, c2) / d, det(c0, r, c2) / d, det(c0, c1, r) / d]
    }

    #[test]
    fn smooth_interpolation_is_perspective_correct() {
        let vp = Viewport::full(64, 64);
        let clip = [[-0.8f32, -0.9, 0.1, 1.0], [3.0, -2.0, 2.0, 4.0], [-0.5, 1.5, 1.0, 2.0]];
        let vary = [[1.0f32, 10.0], [5.0, -3.0], [-2.0, 0.5]];
        let s = setup_triangle(clip.map(|c| vp.to_window(c)), &RasterState::default()).unwrap();
        let clip64 = clip.map(|c| c.map(f64::from));
        for (px, py) in [(10u32, 10u32), (20, 30), (32, 12), (5, 40)] {
            let b = pixel_barycentrics(&s, px, py);
            let xn = (f64::from(px) + 0.5) / 32.0 - 1.0;
            let yn = (f64::from(py) + 0.5) / 32.0 - 1.0;
            // The solution scaled to sum 1 gives the point on the triangle.
            let h = homogeneous(clip64, xn, yn);
            let h = h.map(|v| v / (h[0] + h[1] + h[2]));
            let mut out = [0.0f32; 2];
            let refs = [&vary[0][..], &vary[1][..], &vary[2][..]];
            interpolate(&b, refs, &[Interpolation::Smooth; 2], &mut out);
            for c in 0..2 {
                let want: f64 = (0..3).map(|k| h[k] * f64::from(vary[k][c])).sum();
                assert!((f64::from(out[c]) - want).abs() < 1e-5, "({px},{py}) {c}: {} vs {want}", out[c]);
            }
            // gl_FragCoord.w is 1/w at the pixel; z is z_c/w_c there.
            let fc = frag_coord(&s, &b, px, py);
            let w: f64 = (0..3).map(|k| h[k] * clip64[k][3]).sum();
            let z: f64 = (0..3).map(|k| h[k] * clip64[k][2]).sum();
            assert!((f64::from(fc[3]) - 1.0 / w).abs() < 1e-6, "{fc:?} {w}");
            assert!((f64::from(fc[2]) - z / w).abs() < 1e-6, "{fc:?} {z}");
            assert_eq!([fc[0], fc[1]], [px as f32 + 0.5, py as f32 + 0.5]);
        }
    }

    #[test]
    fn noperspective_is_linear_and_flat_takes_the_first_vertex() {
        let win = [[0.0f32, 0.0, 0.0, 1.0], [16.0, 0.0, 0.5, 0.25], [0.0, 16.0, 1.0, 0.5]];
        let s = setup_triangle(win, &RasterState::default()).unwrap();
        let b = pixel_barycentrics(&s, 3, 5);
        let vary = [[0.0f32, 7.0], [16.0, 8.0], [0.0, 9.0]];
        let mut out = [0.0f32; 2];
        interpolate(&b, [&vary[0][..], &vary[1][..], &vary[2][..]], &[Interpolation::NoPerspective, Interpolation::Flat], &mut out);
        assert!((out[0] - 3.5).abs() < 1e-6, "{out:?}");
        assert_eq!(out[1], 7.0);
        // Depth is linear in window space.
        let z = depth(&s, &b);
        assert!((f64::from(z) - (3.5 / 16.0 * 0.5 + 5.5 / 16.0)).abs() < 1e-6, "{z}");
        // Missing components read as 0 and nothing panics.
        let mut long = [1.0f32; 3];
        interpolate(&b, [&[], &[], &[]], &[Interpolation::Smooth; 3], &mut long);
        assert_eq!(long, [0.0; 3]);
    }

    #[test]
    fn derivatives_of_a_linear_function_are_exact() {
        let f = |x: f32, y: f32| 3.0 * x - 2.0 * y + 5.0;
        let q = Quad { x: 6, y: 10, coverage: 0b0001 };
        let v: [f32; 4] = std::array::from_fn(|k| {
            let (x, y) = q.pixel(k);
            f(x as f32 + 0.5, y as f32 + 0.5)
        });
        assert_eq!(ddx(v), [3.0; 4]);
        assert_eq!(ddy(v), [-2.0; 4]);
        assert_eq!(ddx_coarse(v), [3.0; 4]);
        assert_eq!(ddy_coarse(v), [-2.0; 4]);
        // Fine and coarse differ on a non-linear function.
        let sq = [0.0, 1.0, 0.0, 4.0];
        assert_eq!(ddx(sq), [1.0, 1.0, 4.0, 4.0]);
        assert_eq!(ddx_coarse(sq), [1.0; 4]);
        assert_eq!(ddy(sq), [0.0, 3.0, 0.0, 3.0]);
    }

    #[test]
    fn helper_lanes_extrapolate() {
        let win = [[0.0f32, 0.0, 0.0, 1.0], [4.0, 0.0, 0.0, 1.0], [0.0, 4.0, 0.0, 1.0]];
        let s = setup_triangle(win, &RasterState::default()).unwrap();
        let q = Quad { x: 2, y: 2, coverage: 0b0001 };
        let bs = quad_barycentrics(&s, &q);
        let u: [f32; 4] = bs.map(|b| {
            let mut o = [0.0f32];
            interpolate(&b, [&[0.0], &[4.0], &[0.0]], &[Interpolation::Smooth], &mut o);
            o[0]
        });
        assert_eq!(u, [2.5, 3.5, 2.5, 3.5]);
        assert!(bs[3].linear[0] < 0.0);
        assert!(front_facing(&s) == s.front_facing);
    }
}
