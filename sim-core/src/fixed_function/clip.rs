//! Primitive clipping in homogeneous clip space, as Vulkan's "Primitive Clipping" section
//! defines it: the view volume is
//!
//! ```text
//!   -w <= x <= w,   -w <= y <= w,   0 <= z <= w      (depthClampEnable off, no user planes)
//! ```
//!
//! # Design
//! A triangle whose three vertices are inside every plane passes unchanged
//! ([`Clipped::Inside`]), so clipping never perturbs what it does not need to; one whose
//! vertices are all outside the same plane is dropped ([`Clipped::Outside`]). Any other is
//! clipped against the six planes in turn (Sutherland-Hodgman, the order of Mesa's draw module:
//! x >= -w, x <= w, y >= -w, y <= w, z >= 0, z <= w) and the polygon left (at most 9 vertices)
//! is fanned back into triangles `(p0, p[k], p[k+1])`, p0 first so it stays the provoking
//! vertex.
//!
//! No guard band: like llvmpipe (whose draw module clips "with no guardband"), a triangle that
//! crosses a side plane is cut at the viewport's edge, so pixels between the viewport and the
//! scissor are never covered. Triangles inside the viewport are identical either way.
//!
//! A vertex with w <= 0 can never be inside (x >= -w and x <= w need w >= 0, and z >= 0 with
//! z <= w needs it too), so the near plane z >= 0 and its companions remove everything behind
//! the eye before any perspective divide.
//!
//! A new vertex on an edge is computed from the edge's outside vertex towards its inside one,
//! whichever way the polygon walks the edge: two triangles sharing an edge get bit-identical new
//! vertices, so clipping keeps meshes watertight. Its position and smooth varyings are linear
//! in clip space, `out + t * (in - out)` with `t = d_out / (d_out - d_in)` ("the value of each
//! output is linearly interpolated in clip space"). NoPerspective varyings are interpolated as
//! `v * w` and divided by the new w, so they stay linear in framebuffer space as Vulkan asks.
//! Flat varyings of every clipped vertex are the provoking vertex's. Arithmetic is in f64, the
//! results rounded once to f32.

use super::interpolate::Interpolation;

/// Most varying components a vertex may carry (maxVertexOutputComponents of the common desktop
/// drivers).
pub const MAX_VARYING_COMPONENTS: usize = 128;

/// Most vertices clipping leaves of a triangle: 3 plus one per plane, as each plane cuts a
/// convex polygon at most twice. (A pass can at most double a polygon however rounding bends
/// it, so even a degenerate input stays below 3 * 2^6 vertices.)
pub const MAX_CLIPPED_VERTICES: usize = 9;

/// A vertex shader's output: the clip-space position (`gl_Position`) and the varyings, one f32
/// per component, interpolated as the fragment shader's inputs say.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipVertex {
    /// `(x, y, z, w)` in clip space.
    pub position: [f32; 4],
    /// The varying components, in the order of the interpolation modes.
    pub varyings: Vec<f32>,
}

/// What clipping a triangle left.
#[derive(Clone, Debug, PartialEq)]
pub enum Clipped {
    /// All three vertices inside the view volume: draw the triangle as it is.
    Inside,
    /// Nothing of the triangle is inside (or what is has no area).
    Outside,
    /// The triangle crossed the volume's boundary: these triangles (at most 7 but for
    /// degenerate input), each with the clipped polygon's first vertex first, cover what was
    /// inside.
    Triangles(Vec<[ClipVertex; 3]>),
}

/// A triangle that clipping refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClipError {
    /// A vertex's varyings do not match the interpolation modes.
    #[error("vertex {vertex} has {got} varying components, {expected} interpolation modes given")]
    VaryingCount {
        /// Which vertex of the triangle.
        vertex: usize,
        /// Its components.
        got: usize,
        /// The modes given.
        expected: usize,
    },
    /// More varying components than [`MAX_VARYING_COMPONENTS`].
    #[error("{count} varying components (at most {MAX_VARYING_COMPONENTS})")]
    TooManyVaryings {
        /// The modes given.
        count: usize,
    },
}

/// The signed distances of a clip-space position to the six planes, in clipping order; a
/// vertex is inside a plane when its distance is >= 0.
pub fn plane_distances(p: [f64; 4]) -> [f64; 6] {
    let [x, y, z, w] = p;
    [x + w, w - x, y + w, w - y, z, w - z]
}

/// The outcode of a clip-space position: bit `k` set when it is outside plane `k` of
/// [`plane_distances`] (NaN counts as outside).
pub fn outcode(position: [f32; 4]) -> u8 {
    let d = plane_distances(position.map(f64::from));
    let mut code = 0;
    for (k, &dk) in d.iter().enumerate() {
        if dk < 0.0 || dk.is_nan() {
            code |= 1 << k;
        }
    }
    code
}

/// A vertex of the polygon under clipping.
#[derive(Clone, Debug)]
struct Work {
    pos: [f64; 4],
    /// NoPerspective components premultiplied by w.
    vary: Vec<f64>,
    /// Which input vertex it is, when it is one.
    original: Option<usize>,
}

/// Clips a triangle against the view volume. `modes` gives each varying component's
/// interpolation; every vertex must carry exactly that many components.
pub fn clip_triangle(tri: &[ClipVertex; 3], modes: &[Interpolation]) -> Result<Clipped, ClipError> {
    if modes.len() > MAX_VARYING_COMPONENTS {
        return Err(ClipError::TooManyVaryings { count: modes.len() });
    }
    for (vertex, v) in tri.iter().enumerate() {
        if v.varyings.len() != modes.len() {
            return Err(ClipError::VaryingCount { vertex, got: v.varyings.len(), expected: modes.len() });
        }
    }
    let codes = tri.each_ref().map(|v| outcode(v.position));
    if codes == [0, 0, 0] {
        return Ok(Clipped::Inside);
    }
    if codes[0] & codes[1] & codes[2] != 0 {
        return Ok(Clipped::Outside);
    }
    let mut poly: Vec<Work> = tri
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let pos = v.position.map(f64::from);
            let vary = v.varyings.iter().zip(modes).map(|(&a, m)| if *m == Interpolation::NoPerspective { f64::from(a) * pos[3] } else { f64::from(a) }).collect();
            Work { pos, vary, original: Some(k) }
        })
        .collect();
    let all = codes[0] | codes[1] | codes[2];
    for plane in 0..6 {
        if all & (1 << plane) == 0 {
            continue;
        }
        poly = clip_plane(&poly, plane);
        if poly.len() < 3 {
            return Ok(Clipped::Outside);
        }
    }
    let flat = &tri[0].varyings;
    let emit = |w: &Work| -> ClipVertex {
        if let Some(k) = w.original {
            return tri[k].clone();
        }
        let varyings = w
            .vary
            .iter()
            .zip(modes)
            .zip(flat)
            .map(|((&a, m), &f)| match m {
                Interpolation::Flat => f,
                Interpolation::Smooth => a as f32,
                Interpolation::NoPerspective if w.pos[3] != 0.0 => (a / w.pos[3]) as f32,
                Interpolation::NoPerspective => a as f32,
            })
            .collect();
        ClipVertex { position: w.pos.map(|c| c as f32), varyings }
    };
    let out: Vec<ClipVertex> = poly.iter().map(emit).collect();
    // Flat varyings of the polygon's first vertex: the provoking vertex's, as each fanned
    // triangle takes its flat values from its first vertex.
    let mut first = out[0].clone();
    for (k, m) in modes.iter().enumerate() {
        if *m == Interpolation::Flat {
            first.varyings[k] = flat[k];
        }
    }
    let tris = (1..out.len() - 1).map(|k| [first.clone(), out[k].clone(), out[k + 1].clone()]).collect();
    Ok(Clipped::Triangles(tris))
}

/// One Sutherland-Hodgman pass against plane `plane`.
fn clip_plane(poly: &[Work], plane: usize) -> Vec<Work> {
    let mut out = Vec::with_capacity(MAX_CLIPPED_VERTICES);
    let n = poly.len();
    for k in 0..n {
        let cur = &poly[k];
        let next = &poly[(k + 1) % n];
        let dc = plane_distances(cur.pos)[plane];
        let dn = plane_distances(next.pos)[plane];
        let cur_in = dc >= 0.0;
        let next_in = dn >= 0.0;
        if cur_in {
            out.push(cur.clone());
        }
        if cur_in != next_in && !dc.is_nan() && !dn.is_nan() {
            let (inside, outside, d_in, d_out) = if cur_in { (cur, next, dc, dn) } else { (next, cur, dn, dc) };
            out.push(intersect(outside, inside, d_out, d_in, plane));
        }
    }
    out
}

/// The point where the edge from `outside` to `inside` crosses the plane.
fn intersect(outside: &Work, inside: &Work, d_out: f64, d_in: f64, plane: usize) -> Work {
    let t = d_out / (d_out - d_in);
    let lerp = |o: f64, i: f64| o + t * (i - o);
    let mut pos: [f64; 4] = std::array::from_fn(|c| lerp(outside.pos[c], inside.pos[c]));
    // Put the new vertex exactly on the plane, so a later pass sees it inside.
    match plane {
        0 => pos[0] = -pos[3],
        1 => pos[0] = pos[3],
        2 => pos[1] = -pos[3],
        3 => pos[1] = pos[3],
        4 => pos[2] = 0.0,
        _ => pos[2] = pos[3],
    }
    let vary = outside.vary.iter().zip(&inside.vary).map(|(&o, &i)| lerp(o, i)).collect();
    Work { pos, vary, original: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(position: [f32; 4], varyings: &[f32]) -> ClipVertex {
        ClipVertex { position, varyings: varyings.to_vec() }
    }

    #[test]
    fn inside_triangles_pass_unchanged_and_outside_ones_drop() {
        let inside = [v([0.0, 0.0, 0.5, 1.0], &[1.0]), v([0.5, 0.0, 0.5, 1.0], &[2.0]), v([0.0, 0.5, 0.5, 1.0], &[3.0])];
        assert_eq!(clip_triangle(&inside, &[Interpolation::Smooth]).unwrap(), Clipped::Inside);
        let right = [v([2.0, 0.0, 0.5, 1.0], &[]), v([3.0, 0.0, 0.5, 1.0], &[]), v([2.0, 0.5, 0.5, 1.0], &[])];
        assert_eq!(clip_triangle(&right, &[]).unwrap(), Clipped::Outside);
        let behind = [v([0.0, 0.0, -1.0, -1.0], &[]), v([0.5, 0.0, -1.0, -1.0], &[]), v([0.0, 0.5, -1.0, -1.0], &[])];
        assert_eq!(clip_triangle(&behind, &[]).unwrap(), Clipped::Outside);
    }

    #[test]
    fn a_triangle_crossing_a_side_plane_is_cut_on_it() {
        let tri = [v([0.0, 0.0, 0.5, 1.0], &[0.0]), v([2.0, 0.0, 0.5, 1.0], &[2.0]), v([0.0, 0.5, 0.5, 1.0], &[0.0])];
        let Clipped::Triangles(ts) = clip_triangle(&tri, &[Interpolation::Smooth]).unwrap() else { panic!() };
        assert_eq!(ts.len(), 2);
        for t in &ts {
            for p in t {
                assert!(p.position[0] <= 1.0 && outcode(p.position) == 0, "{p:?}");
                // The varying equals x along this triangle.
                assert!((p.varyings[0] - p.position[0]).abs() < 1e-6, "{p:?}");
            }
        }
        // The first triangle starts with the original first vertex.
        assert_eq!(ts[0][0], tri[0]);
    }

    #[test]
    fn shared_edges_get_identical_new_vertices() {
        // Two triangles sharing the edge a-b, which crosses x = w; walked in opposite directions.
        let a = v([0.3, -0.7, 0.2, 1.0], &[0.25]);
        let b = v([1.7, 0.9, 0.6, 1.3], &[0.75]);
        let c = v([0.0, 0.6, 0.4, 1.1], &[0.5]);
        let d = v([1.9, -0.9, 0.3, 0.9], &[1.0]);
        let m = [Interpolation::Smooth];
        let new_points = |tri: [ClipVertex; 3]| -> Vec<[u32; 4]> {
            let Clipped::Triangles(ts) = clip_triangle(&tri, &m).unwrap() else { panic!() };
            let mut pts: Vec<[u32; 4]> = ts.iter().flatten().filter(|p| p.position[0] == p.position[3]).map(|p| p.position.map(f32::to_bits)).collect();
            pts.sort();
            pts.dedup();
            pts
        };
        let first = new_points([a.clone(), b.clone(), c]);
        let second = new_points([b, a, d]);
        assert!(first.iter().any(|p| second.contains(p)), "{first:?} {second:?}");
    }

    #[test]
    fn flat_and_noperspective_varyings_follow_their_rules() {
        let modes = [Interpolation::Flat, Interpolation::NoPerspective, Interpolation::Smooth];
        // Screen x of a vertex is x/w; the noperspective varying equals it, the smooth one x.
        let mk = |x: f32, y: f32, w: f32, flat: f32| v([x, y, 0.5 * w, w], &[flat, x / w, x]);
        let tri = [mk(-0.5, 0.0, 1.0, 7.0), mk(3.0, 0.0, 2.0, 8.0), mk(0.0, 1.0, 4.0, 9.0)];
        let Clipped::Triangles(ts) = clip_triangle(&tri, &modes).unwrap() else { panic!() };
        for t in &ts {
            assert_eq!(t[0].varyings[0], 7.0, "{t:?}");
            for p in t {
                assert!((p.varyings[1] - p.position[0] / p.position[3]).abs() < 1e-6, "{p:?}");
                assert!((p.varyings[2] - p.position[0]).abs() < 1e-6, "{p:?}");
            }
        }
    }

    #[test]
    fn bad_varyings_and_non_finite_positions_never_panic() {
        let tri = [v([0.0; 4], &[1.0]), v([0.0; 4], &[]), v([0.0; 4], &[])];
        assert!(matches!(clip_triangle(&tri, &[Interpolation::Smooth]), Err(ClipError::VaryingCount { vertex: 1, .. })));
        let many = vec![Interpolation::Smooth; MAX_VARYING_COMPONENTS + 1];
        assert!(matches!(clip_triangle(&tri, &many), Err(ClipError::TooManyVaryings { .. })));
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX] {
            let tri = [v([bad, 0.0, 0.5, 1.0], &[]), v([0.5, bad, 0.5, 1.0], &[]), v([0.0, 0.5, 0.5, bad], &[])];
            let _ = clip_triangle(&tri, &[]).unwrap();
            let tri = [v([bad, 0.0, 0.5, 1.0], &[]), v([0.5, 0.0, 0.5, 1.0], &[]), v([0.0, 0.5, 0.5, 1.0], &[])];
            let _ = clip_triangle(&tri, &[]).unwrap();
        }
    }
}
