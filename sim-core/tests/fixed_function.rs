//! Properties of the fixed-function stages (`sim_core::fixed_function`):
//! - watertightness: random meshes (jittered grids, fans around a shared vertex), in random
//!   windings, cover every pixel inside their union exactly once and nothing outside it;
//! - clipping: what a clipped triangle covers matches a per-pixel test of the original
//!   clip-space triangle in f64 (inside the view volume and the viewport), and its interpolated
//!   varyings and depth match the unclipped perspective-correct values to 1e-5;
//! - determinism: the same triangle gives the same quads in the same order, whichever vertex
//!   it starts from;
//! - robustness: any input (NaN, infinities, huge values) is culled or clipped, never a panic;
//!   vertex fetch reports exactly the reads that leave the bound range.

use proptest::prelude::*;
use sim_core::fixed_function::clip::outcode;
use sim_core::fixed_function::fetch::vertex_format_size;
use sim_core::fixed_function::*;
use sim_rop::Format;

const NONE: RasterState = RasterState { front_face: FrontFace::CounterClockwise, cull_mode: CullMode::None };

/// Adds one to `counts` for every pixel `s` covers in `region` (width `w`).
fn accumulate(counts: &mut [u32], w: u32, s: &TriangleSetup, region: &DrawRegion) {
    for q in scan_triangle(s, region) {
        for lane in 0..4 {
            if q.is_covered(lane) {
                let (x, y) = q.pixel(lane);
                counts[(y * w + x) as usize] += 1;
            }
        }
    }
}

fn window(p: [f32; 2]) -> [f32; 4] {
    [p[0], p[1], 0.5, 1.0]
}

/// Draws a triangle of window positions in the given winding, counting coverage.
fn draw(counts: &mut [u32], w: u32, region: &DrawRegion, tri: [[f32; 2]; 3], flip: bool) {
    let tri = if flip { [tri[0], tri[2], tri[1]] } else { tri };
    if let Ok(s) = setup_triangle(tri.map(window), &NONE) {
        accumulate(counts, w, &s, region);
    }
}

const FB: u32 = 48;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A grid of jittered points over an integer-aligned rectangle, each cell cut along a
    /// random diagonal, each triangle in a random winding: the union is the rectangle, and
    /// every pixel whose centre is in it is covered exactly once.
    #[test]
    fn jittered_grids_cover_their_rectangle_exactly_once(
        cols in 1usize..7,
        rows in 1usize..7,
        origin in (-6i32..20, -6i32..20),
        cell in (2u32..9, 2u32..9),
        jitter in prop::collection::vec((-0.2f32..0.2, -0.2f32..0.2), 64),
        diagonals in prop::collection::vec(any::<bool>(), 36),
        flips in prop::collection::vec(any::<bool>(), 72),
    ) {
        let (cw, ch) = (cell.0 as f32, cell.1 as f32);
        let point = |i: usize, j: usize| -> [f32; 2] {
            let (jx, jy) = jitter[(j * 8 + i) % 64];
            // Boundary points slide only along the boundary, so the union stays the rectangle.
            let jx = if i == 0 || i == cols { 0.0 } else { jx * cw };
            let jy = if j == 0 || j == rows { 0.0 } else { jy * ch };
            [origin.0 as f32 + i as f32 * cw + jx, origin.1 as f32 + j as f32 * ch + jy]
        };
        let region = DrawRegion::new(FB, FB, None).unwrap();
        let mut counts = vec![0u32; (FB * FB) as usize];
        let mut t = 0;
        for j in 0..rows {
            for i in 0..cols {
                let (a, b, c, d) = (point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1));
                let tris = if diagonals[(j * 6 + i) % 36] { [[a, b, c], [a, c, d]] } else { [[a, b, d], [b, c, d]] };
                for tri in tris {
                    draw(&mut counts, FB, &region, tri, flips[t % 72]);
                    t += 1;
                }
            }
        }
        let (x0, y0) = (origin.0 as f32, origin.1 as f32);
        let (x1, y1) = (x0 + cols as f32 * cw, y0 + rows as f32 * ch);
        for y in 0..FB {
            for x in 0..FB {
                let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
                let inside = cx > x0 && cx < x1 && cy > y0 && cy < y1;
                prop_assert_eq!(counts[(y * FB + x) as usize], u32::from(inside), "pixel ({}, {})", x, y);
            }
        }
    }

    /// Triangles fanned around a shared centre, closing the loop, in random windings: every
    /// pixel is covered at most once, those well inside the polygon exactly once, those well
    /// outside never. Half the cases put every vertex on a pixel centre, so the shared edges
    /// run through centres and the top-left rule decides them.
    #[test]
    fn fans_around_a_shared_vertex_cover_their_polygon_exactly_once(
        centre in (0.0f32..48.0, 0.0f32..48.0),
        radius in 2.0f32..40.0,
        steps in prop::collection::vec(1.0f64..1.5, 4..14),
        start in 0.0f64..6.3,
        flips in prop::collection::vec(any::<bool>(), 14),
        on_centres in any::<bool>(),
    ) {
        // On centres, a radius of 12 or more keeps every rounded triangle's winding.
        let radius = if on_centres { radius.max(12.0) } else { radius };
        let place = |x: f32| if on_centres { x.floor() + 0.5 } else { x };
        let total: f64 = steps.iter().sum();
        let mut angle = start;
        let mut rim = Vec::new();
        for s in &steps {
            rim.push([place(centre.0 + radius * angle.cos() as f32), place(centre.1 + radius * angle.sin() as f32)]);
            angle += s / total * std::f64::consts::TAU;
        }
        let c = [place(centre.0), place(centre.1)];
        let region = DrawRegion::new(FB, FB, None).unwrap();
        let mut counts = vec![0u32; (FB * FB) as usize];
        let n = rim.len();
        for k in 0..n {
            draw(&mut counts, FB, &region, [c, rim[k], rim[(k + 1) % n]], flips[k]);
        }
        for y in 0..FB {
            for x in 0..FB {
                let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let got = counts[(y * FB + x) as usize];
                prop_assert!(got <= 1, "pixel ({}, {}) covered {} times", x, y, got);
                match polygon_side(&rim, p, 0.01) {
                    Some(true) => prop_assert_eq!(got, 1, "pixel ({}, {}) inside", x, y),
                    Some(false) => prop_assert_eq!(got, 0, "pixel ({}, {}) outside", x, y),
                    None => {}
                }
            }
        }
    }

    /// Random clip-space triangles (some vertices behind the eye, some outside the sides, the
    /// viewport smaller than the framebuffer): clipped coverage and varyings match the
    /// original triangle's exact per-pixel values.
    #[test]
    fn clipped_triangles_match_the_unclipped_triangle(
        verts in prop::collection::vec((-3.0f32..3.0, -3.0f32..3.0, -1.0f32..3.0, -1.0f32..4.0), 3),
        vary in prop::collection::vec(-2.0f32..2.0, 6),
    ) {
        let clip: [[f32; 4]; 3] = std::array::from_fn(|k| [verts[k].0, verts[k].1, verts[k].2, verts[k].3]);
        check_clipped(clip, [[vary[0], vary[1]], [vary[2], vary[3]], [vary[4], vary[5]]])?;
    }

    /// The same triangle gives the same quads in the same order, whichever vertex it starts at,
    /// and scanning twice gives the same answer.
    #[test]
    fn scan_order_is_deterministic(p in prop::collection::vec((-8.0f32..56.0, -8.0f32..56.0), 3), scissor in (0i32..24, 0i32..24, 1u32..48, 1u32..48)) {
        let tri = [window([p[0].0, p[0].1]), window([p[1].0, p[1].1]), window([p[2].0, p[2].1])];
        let region = DrawRegion::new(FB, FB, Some(Rect2D { x: scissor.0, y: scissor.1, width: scissor.2, height: scissor.3 })).unwrap();
        let Ok(a) = setup_triangle(tri, &NONE) else { return Ok(()) };
        let b = setup_triangle([tri[1], tri[2], tri[0]], &NONE).unwrap();
        let first: Vec<Quad> = scan_triangle(&a, &region).collect();
        prop_assert_eq!(&first, &scan_triangle(&a, &region).collect::<Vec<_>>());
        prop_assert_eq!(&first, &scan_triangle(&b, &region).collect::<Vec<_>>());
        // Tile rows, then tiles, then quads within a tile, each in increasing order.
        let key = |q: &Quad| (q.y / 8, q.x / 8, q.y, q.x);
        prop_assert!(first.windows(2).all(|w| key(&w[0]) < key(&w[1])));
        for q in &first {
            prop_assert!(q.coverage != 0 && q.coverage & q.helpers() == 0 && q.coverage | q.helpers() == 0xf);
            for lane in 0..4 {
                let (x, y) = q.pixel(lane);
                prop_assert_eq!(q.is_covered(lane), region.contains(i64::from(x), i64::from(y)) && a.covers(i64::from(x), i64::from(y)));
            }
        }
    }

    /// Anything at all, NaN and infinities included, is clipped, culled or rasterized without
    /// a panic.
    #[test]
    fn no_input_panics(raw in prop::collection::vec(prop_oneof![any::<f32>(), -1e6f32..1e6, Just(f32::NAN), Just(f32::INFINITY), Just(0.0f32)], 12)) {
        let clip: [[f32; 4]; 3] = std::array::from_fn(|k| [raw[4 * k], raw[4 * k + 1], raw[4 * k + 2], raw[4 * k + 3]]);
        let vp = Viewport::full(16, 16);
        let region = DrawRegion::new(16, 16, None).unwrap();
        let tri = clip.map(|position| ClipVertex { position, varyings: vec![1.0] });
        let modes = [Interpolation::Smooth];
        let tris = match clip_triangle(&tri, &modes).unwrap() {
            Clipped::Inside => vec![tri],
            Clipped::Outside => vec![],
            Clipped::Triangles(t) => t,
        };
        for t in tris {
            let win = [0, 1, 2].map(|k| vp.to_window(t[k].position));
            if let Ok(s) = setup_triangle(win, &NONE) {
                for q in scan_triangle(&s, &region) {
                    for b in interpolate::quad_barycentrics(&s, &q) {
                        let mut out = [0.0];
                        interpolate(&b, [&t[0].varyings, &t[1].varyings, &t[2].varyings], &modes, &mut out);
                    }
                }
            }
        }
        // Raw window coordinates straight into setup, too.
        if let Ok(s) = setup_triangle(clip, &NONE) {
            prop_assert!(scan_triangle(&s, &region).count() <= 64);
        }
    }

    /// Vertex fetch succeeds exactly when the attribute's bytes lie inside the bound range,
    /// and never panics.
    #[test]
    fn vertex_fetch_reports_every_out_of_range_read(
        stride in 0u32..64,
        offset in 0u32..32,
        format in prop::sample::select(vec![Format::R32_SFLOAT, Format::R32G32_SFLOAT, Format::R32G32B32_SFLOAT, Format::R32G32B32A32_SFLOAT, Format::R8G8B8A8_UNORM, Format::R32_UINT, Format::R16G16B16A16_SFLOAT]),
        instance_rate in any::<bool>(),
        len in 0usize..256,
        vertex in prop_oneof![0u32..16, any::<u32>()],
        instance in prop_oneof![0u32..16, any::<u32>()],
    ) {
        let input_rate = if instance_rate { VertexInputRate::Instance } else { VertexInputRate::Vertex };
        let state = VertexInputState::new(
            vec![VertexBinding { binding: 1, stride, input_rate }],
            vec![VertexAttribute { location: 4, binding: 1, format, offset }],
        ).unwrap();
        let bytes: Vec<u8> = (0..len).map(|k| k as u8).collect();
        let index = if instance_rate { instance } else { vertex };
        let end = u64::from(offset) + u64::from(stride) * u64::from(index) + u64::from(vertex_format_size(format).unwrap());
        let got = fetch_vertex(&state, &[BoundVertexBuffer { binding: 1, bytes: &bytes }], vertex, instance);
        match got {
            Ok(v) => {
                prop_assert!(end <= len as u64);
                prop_assert_eq!(v.len(), 1);
                prop_assert_eq!(v[0].location, 4);
            }
            Err(FetchError::OutOfRange { location, binding, vertex_index, instance_index, .. }) => {
                prop_assert!(end > len as u64);
                prop_assert_eq!((location, binding, vertex_index, instance_index), (4, 1, vertex, instance));
            }
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}

/// Whether `p` is inside the polygon `rim` (`Some(true)`), outside (`Some(false)`), or within
/// `margin` pixels of its boundary (`None`).
fn polygon_side(rim: &[[f32; 2]], p: [f64; 2], margin: f64) -> Option<bool> {
    let n = rim.len();
    let mut winding = 0.0;
    for k in 0..n {
        let a = rim[k].map(f64::from);
        let b = rim[(k + 1) % n].map(f64::from);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 { (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
        let (ex, ey) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
        if (ex * ex + ey * ey).sqrt() < margin {
            return None;
        }
        let (ua, ub) = ((a[1] - p[1]).atan2(a[0] - p[0]), (b[1] - p[1]).atan2(b[0] - p[0]));
        let mut d = ub - ua;
        if d > std::f64::consts::PI {
            d -= std::f64::consts::TAU;
        } else if d < -std::f64::consts::PI {
            d += std::f64::consts::TAU;
        }
        winding += d;
    }
    Some(winding.abs() > std::f64::consts::PI)
}

/// The perspective-correct barycentrics of NDC point `(xn, yn)` in a clip-space triangle: the
/// weights `b` (summing to 1) of the point `sum b_i V_i` that projects there, or `None` when the
/// triangle's plane passes through the eye. The point is in front of the eye exactly when every
/// weight is positive.
fn perspective_weights(clip: [[f64; 4]; 3], xn: f64, yn: f64) -> Option<[f64; 3]> {
    let col = |k: usize| [clip[k][0], clip[k][1], clip[k][3]];
    let det = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1]) + c[0] * (a[1] * b[2] - a[2] * b[1]);
    let (c0, c1, c2, r) = (col(0), col(1), col(2), [xn, yn, 1.0]);
    let d = det(c0, c1, c2);
    if d.abs() < 1e-9 {
        return None;
    }
    // h solves sum h_i (x_i, y_i, w_i) = (xn, yn, 1).
    let h = [det(r, c1, c2) / d, det(c0, r, c2) / d, det(c0, c1, r) / d];
    let s = h[0] + h[1] + h[2];
    if s.abs() < 1e-12 {
        return None;
    }
    Some([h[0] / s, h[1] / s, h[2] / s])
}

const CLIP_FB: u32 = 32;
const CLIP_VP: Viewport = Viewport { x: 4.0, y: 6.0, width: 24.0, height: 20.0, min_depth: 0.0, max_depth: 1.0 };

/// Whether the framebuffer point `(x, y)` is inside the clip-space triangle and the view
/// volume, and if so its perspective-correct weights and window depth.
fn exact_inside(clip: [[f64; 4]; 3], x: f64, y: f64) -> Option<([f64; 3], f64)> {
    let vp = CLIP_VP;
    let xn = (x - f64::from(vp.x)) / f64::from(vp.width) * 2.0 - 1.0;
    let yn = (y - f64::from(vp.y)) / f64::from(vp.height) * 2.0 - 1.0;
    if !(-1.0..=1.0).contains(&xn) || !(-1.0..=1.0).contains(&yn) {
        return None;
    }
    let h = perspective_weights(clip, xn, yn)?;
    // In front of the eye: every weight of the same sign as the sum (1) and w > 0.
    if h.iter().any(|&v| v < 0.0) {
        return None;
    }
    let w: f64 = (0..3).map(|k| h[k] * clip[k][3]).sum();
    let z: f64 = (0..3).map(|k| h[k] * clip[k][2]).sum();
    if w <= 0.0 || z < 0.0 || z > w {
        return None;
    }
    Some((h, z / w))
}

/// Clips, sets up, scans and interpolates `clip` with two smooth varyings, and compares with
/// the exact per-pixel answer: pixels clearly inside (the centre and points 0.02 pixels around
/// it all inside) are covered once with matching varyings and depth; clearly outside never.
fn check_clipped(clip: [[f32; 4]; 3], vary: [[f32; 2]; 3]) -> Result<(), TestCaseError> {
    let tri = std::array::from_fn(|k| ClipVertex { position: clip[k], varyings: vary[k].to_vec() });
    let modes = [Interpolation::Smooth; 2];
    let pieces = match clip_triangle(&tri, &modes).unwrap() {
        Clipped::Inside => {
            prop_assert!(clip.iter().all(|p| outcode(*p) == 0));
            vec![tri]
        }
        Clipped::Outside => vec![],
        Clipped::Triangles(t) => t,
    };
    let region = DrawRegion::new(CLIP_FB, CLIP_FB, None).unwrap();
    let n = (CLIP_FB * CLIP_FB) as usize;
    let mut counts = vec![0u32; n];
    let mut values = vec![[0.0f32; 3]; n];
    for t in &pieces {
        let win = [0, 1, 2].map(|k| CLIP_VP.to_window(t[k].position));
        let Ok(s) = setup_triangle(win, &NONE) else { continue };
        for q in scan_triangle(&s, &region) {
            for lane in 0..4 {
                if !q.is_covered(lane) {
                    continue;
                }
                let (x, y) = q.pixel(lane);
                let b = pixel_barycentrics(&s, x, y);
                let mut out = [0.0f32; 2];
                interpolate(&b, [&t[0].varyings, &t[1].varyings, &t[2].varyings], &modes, &mut out);
                let i = (y * CLIP_FB + x) as usize;
                counts[i] += 1;
                values[i] = [out[0], out[1], frag_coord(&s, &b, x, y)[2]];
            }
        }
    }
    let c64 = clip.map(|p| p.map(f64::from));
    for y in 0..CLIP_FB {
        for x in 0..CLIP_FB {
            let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let samples = [(0.0, 0.0), (0.02, 0.0), (-0.02, 0.0), (0.0, 0.02), (0.0, -0.02)];
            let inside: Vec<bool> = samples.iter().map(|(dx, dy)| exact_inside(c64, cx + dx, cy + dy).is_some()).collect();
            let i = (y * CLIP_FB + x) as usize;
            prop_assert!(counts[i] <= 1, "pixel ({}, {}) covered {} times", x, y, counts[i]);
            if inside.iter().all(|&v| v) {
                prop_assert_eq!(counts[i], 1, "pixel ({}, {}) is inside", x, y);
                let (h, z) = exact_inside(c64, cx, cy).unwrap();
                for c in 0..2 {
                    let want: f64 = (0..3).map(|k| h[k] * f64::from(vary[k][c])).sum();
                    prop_assert!((f64::from(values[i][c]) - want).abs() < 1e-5, "pixel ({}, {}) varying {}: {} vs {}", x, y, c, values[i][c], want);
                }
                prop_assert!((f64::from(values[i][2]) - z).abs() < 1e-5, "pixel ({}, {}) depth {} vs {}", x, y, values[i][2], z);
            } else if inside.iter().all(|&v| !v) {
                prop_assert_eq!(counts[i], 0, "pixel ({}, {}) is outside", x, y);
            }
        }
    }
    Ok(())
}

#[test]
fn a_triangle_crossing_the_near_plane() {
    check_clipped([[-0.8, -0.8, -0.5, 1.0], [0.8, -0.6, 0.9, 1.0], [0.0, 0.9, 0.5, 1.0]], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]).unwrap();
}

#[test]
fn a_triangle_crossing_a_side_plane() {
    check_clipped([[-0.5, -0.5, 0.5, 1.0], [3.0, 0.0, 1.0, 2.0], [0.0, 0.8, 0.2, 1.0]], [[1.0, 0.0], [0.0, 1.0], [0.5, -1.0]]).unwrap();
}

#[test]
fn a_triangle_wholly_outside() {
    let tri = [[2.0f32, 0.0, 0.5, 1.0], [3.0, 0.5, 0.5, 1.0], [2.5, -0.5, 0.5, 1.0]].map(|position| ClipVertex { position, varyings: vec![] });
    assert_eq!(clip_triangle(&tri, &[]).unwrap(), Clipped::Outside);
    check_clipped(tri.map(|v| v.position), [[0.0; 2]; 3]).unwrap();
}

#[test]
fn a_triangle_with_a_vertex_behind_the_eye() {
    // Vertex 2 has w < 0: its projection would land on the wrong side; clipping cuts it off.
    let clip = [[-0.5f32, -0.5, 0.3, 1.0], [0.5, -0.5, 0.3, 1.0], [0.2, 1.5, -0.5, -0.5]];
    check_clipped(clip, [[1.0, 2.0], [-1.0, 0.0], [0.25, 4.0]]).unwrap();
    let tri = clip.map(|position| ClipVertex { position, varyings: vec![] });
    let Clipped::Triangles(t) = clip_triangle(&tri, &[]).unwrap() else { panic!("not clipped") };
    assert!(t.iter().flatten().all(|v| v.position[3] > 0.0));
}

#[test]
fn a_y_up_viewport_mirrors_coverage_and_facing() {
    // A triangle seen through a y-down viewport and through its y-up mirror (negative height):
    // the pixel sets mirror, and the facing flips.
    let clip = [[-0.7f32, -0.6, 0.5, 1.0], [0.65, -0.45, 0.5, 1.0], [0.1, 0.73, 0.5, 1.0]];
    let down = Viewport::full(32, 32);
    let up = Viewport { y: 32.0, height: -32.0, ..down };
    let region = DrawRegion::new(32, 32, None).unwrap();
    let cover = |vp: Viewport| {
        let s = setup_triangle(clip.map(|c| vp.to_window(c)), &NONE).unwrap();
        let mut px: Vec<(u32, u32)> = scan_triangle(&s, &region).flat_map(|q| (0..4).filter(move |&l| q.is_covered(l)).map(move |l| q.pixel(l))).collect();
        px.sort();
        (s.front_facing, px)
    };
    let (front_down, a) = cover(down);
    let (front_up, b) = cover(up);
    assert_ne!(front_down, front_up);
    let mut mirrored: Vec<(u32, u32)> = b.iter().map(|&(x, y)| (x, 31 - y)).collect();
    mirrored.sort();
    assert_eq!(a, mirrored);
    // Back-face culling keeps exactly one of the two.
    let back = RasterState { cull_mode: CullMode::Back, ..NONE };
    let kept = [down, up].iter().filter(|vp| setup_triangle(clip.map(|c| vp.to_window(c)), &back).is_ok()).count();
    assert_eq!(kept, 1);
}
