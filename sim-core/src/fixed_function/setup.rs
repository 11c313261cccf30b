//! Triangle setup: the perspective divide and viewport transform (Vulkan's "Coordinate
//! Transformations" and "Controlling the Viewport"), facing and culling ("Basic Polygon
//! Rasterization"), and the edge equations the scan converter evaluates, in fixed point.
//!
//! # Design
//! Window coordinates are computed in f32, as llvmpipe's draw module does:
//!
//! ```text
//! 1/w = 1 / w_c;   (x_d, y_d, z_d) = (x_c, y_c, z_c) * (1/w)
//! x_f = x_d * (width / 2)  + (x + width / 2)
//! y_f = y_d * (height / 2) + (y + height / 2)        height may be negative (Vulkan 1.1)
//! z_f = z_d * (maxDepth - minDepth) + minDepth
//! ```
//!
//! Each vertex is then snapped to the 1/256-pixel grid (8 subpixel bits, llvmpipe's
//! FIXED_ORDER 8) after moving the origin to the centre of pixel (0, 0):
//! `X = round_half_even((x_f - 0.5) * 256)` (SSE's cvtps2dq, as llvmpipe on x86-64 rounds). The
//! centre of pixel `(px, py)` is then exactly `(256 px, 256 py)`, so the coverage test is
//! integer arithmetic and exact.
//!
//! Facing is the sign of the triangle's area in these fixed framebuffer coordinates, with
//! Vulkan's sign convention (`a = -1/2 * sum(x_i y_{i+1} - x_{i+1} y_i)`, y pointing down):
//! positive is counter-clockwise. A triangle of zero fixed-point area is culled whatever the cull
//! mode (it could cover no sample anyway); so is one with a coordinate that is not finite or lies
//! more than 2^20 pixels from the origin (only possible for an unclipped triangle).
//!
//! Edges (llvmpipe's planes): with the vertices ordered to positive area, the edge from `p_i` to
//! `p_j` is `E(X, Y) = (y_i - y_j)(x_i - X) - (x_i - x_j)(y_i - Y)`, positive inside. A pixel
//! centre exactly on an edge belongs to the triangle when the edge is a top edge (horizontal,
//! interior below) or a left edge (interior to its right): the top-left rule, kept as a +1 bias
//! on the edge constant so that coverage is `E + bias > 0` on all three edges. Two triangles
//! sharing an edge see it with opposite directions, so exactly one of them takes a centre on it.
//!
//! Bounds on the magnitudes: coordinates within 2^28 fixed units, so differences within 2^29,
//! products within 2^58 and every edge value within i64.

/// Subpixel precision of snapped vertex positions, in bits.
pub const SUBPIXEL_BITS: u32 = 8;
/// One pixel in fixed-point units.
pub const FIXED_ONE: i64 = 1 << SUBPIXEL_BITS;
/// Largest magnitude of a snapped coordinate (2^20 pixels).
pub const MAX_FIXED_COORD: i64 = 1 << 28;
/// Vulkan's minimum viewportBoundsRange: viewports must lie within this range.
pub const VIEWPORT_BOUNDS: [f32; 2] = [-32768.0, 32767.0];
/// Vulkan's maxViewportDimensions as gpusim reports it.
pub const MAX_VIEWPORT_DIMENSION: f32 = 16384.0;

/// `VkViewport`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Left edge, in framebuffer pixels.
    pub x: f32,
    /// Top edge (the bottom one when `height` is negative).
    pub y: f32,
    /// Width, > 0.
    pub width: f32,
    /// Height, non-zero; negative flips y (VK_KHR_maintenance1, core in Vulkan 1.1).
    pub height: f32,
    /// Depth at z_d = 0.
    pub min_depth: f32,
    /// Depth at z_d = 1 (may be below `min_depth`).
    pub max_depth: f32,
}

/// `VkFrontFace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontFace {
    /// Positive area (counter-clockwise on a y-down framebuffer) is front-facing.
    CounterClockwise,
    /// Negative area is front-facing.
    Clockwise,
}

/// `VkCullModeFlags`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullMode {
    /// Nothing is culled.
    None,
    /// Front-facing triangles are culled.
    Front,
    /// Back-facing triangles are culled.
    Back,
    /// Every triangle is culled.
    FrontAndBack,
}

/// The rasterization state setup reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RasterState {
    /// Which winding is front-facing.
    pub front_face: FrontFace,
    /// Which faces are culled.
    pub cull_mode: CullMode,
}

impl Default for RasterState {
    /// Counter-clockwise front faces, no culling.
    fn default() -> Self {
        RasterState { front_face: FrontFace::CounterClockwise, cull_mode: CullMode::None }
    }
}

/// Rasterizer input that breaks Vulkan's valid usage or gpusim's limits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RasterError {
    /// A viewport Vulkan refuses.
    #[error("viewport {what}")]
    Viewport {
        /// What was wrong.
        what: String,
    },
    /// A framebuffer extent of 0 or above maxFramebufferWidth/Height.
    #[error("framebuffer extent {width}x{height} is outside 1..={max}")]
    FramebufferExtent {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
        /// The limit (16384).
        max: u32,
    },
    /// A scissor Vulkan refuses (negative offset, or offset + extent past i32).
    #[error("scissor {what}")]
    Scissor {
        /// What was wrong.
        what: String,
    },
}

/// Why setup dropped a triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Culled {
    /// A window coordinate (or 1/w, or depth) is NaN or infinite.
    NotFinite,
    /// A window coordinate lies more than 2^20 pixels from the origin.
    OutOfRange,
    /// The snapped triangle has no area.
    ZeroArea,
    /// The cull mode removes triangles of its facing.
    Face,
}

impl Viewport {
    /// A viewport covering `width` x `height` pixels from the origin, depth 0..=1.
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport { x: 0.0, y: 0.0, width: width as f32, height: height as f32, min_depth: 0.0, max_depth: 1.0 }
    }

    /// Checks Vulkan's valid usage of VkViewport: finite values, `0 < width <=` 16384,
    /// `0 < |height| <=` 16384, x, y, x + width and y + height within the viewport bounds
    /// range, depths within 0..=1.
    pub fn validate(&self) -> Result<(), RasterError> {
        let err = |what: String| Err(RasterError::Viewport { what });
        let all = [self.x, self.y, self.width, self.height, self.min_depth, self.max_depth];
        if all.iter().any(|v| !v.is_finite()) {
            return err(format!("{self:?} is not finite"));
        }
        if !(self.width > 0.0 && self.width <= MAX_VIEWPORT_DIMENSION) {
            return err(format!("width {} outside (0, {MAX_VIEWPORT_DIMENSION}]", self.width));
        }
        if !(self.height != 0.0 && self.height.abs() <= MAX_VIEWPORT_DIMENSION) {
            return err(format!("height {} is 0 or above {MAX_VIEWPORT_DIMENSION} in magnitude", self.height));
        }
        let [lo, hi] = VIEWPORT_BOUNDS;
        for (name, v) in [("x", self.x), ("y", self.y), ("x + width", self.x + self.width), ("y + height", self.y + self.height)] {
            if !(lo..=hi).contains(&v) {
                return err(format!("{name} = {v} outside the bounds [{lo}, {hi}]"));
            }
        }
        for (name, v) in [("minDepth", self.min_depth), ("maxDepth", self.max_depth)] {
            if !(0.0..=1.0).contains(&v) {
                return err(format!("{name} = {v} outside [0, 1]"));
            }
        }
        Ok(())
    }

    /// The window coordinates `(x_f, y_f, z_f, 1/w_c)` of a clip-space position: perspective
    /// divide, then the viewport transform, in f32.
    pub fn to_window(&self, clip: [f32; 4]) -> [f32; 4] {
        let oow = 1.0 / clip[3];
        let (xd, yd, zd) = (clip[0] * oow, clip[1] * oow, clip[2] * oow);
        let (sx, sy) = (self.width * 0.5, self.height * 0.5);
        let (tx, ty) = (self.x + sx, self.y + sy);
        [xd * sx + tx, yd * sy + ty, zd * (self.max_depth - self.min_depth) + self.min_depth, oow]
    }
}

/// A coordinate snapped to the fixed-point grid whose origin is the centre of pixel (0, 0), or
/// why not.
pub fn snap(v: f32) -> Result<i64, Culled> {
    if !v.is_finite() {
        return Err(Culled::NotFinite);
    }
    let s = ((v - 0.5) * FIXED_ONE as f32).round_ties_even();
    if s.abs() > MAX_FIXED_COORD as f32 {
        return Err(Culled::OutOfRange);
    }
    Ok(s as i64)
}

/// One edge equation: at the centre of pixel `(px, py)` its value is
/// `c + 256 * (dcdy * py - dcdx * px)`, and the pixel is inside the edge when that is > 0.
/// `c` includes the top-left rule's bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// `y_i - y_j`, fixed units.
    pub dcdx: i64,
    /// `x_i - x_j`, fixed units.
    pub dcdy: i64,
    /// `dcdx * x_i - dcdy * y_i`, plus 1 for a top or left edge.
    pub c: i64,
}

impl Edge {
    fn new(i: [i64; 2], j: [i64; 2]) -> Edge {
        let dcdx = i[1] - j[1];
        let dcdy = i[0] - j[0];
        let top_left = dcdx < 0 || (dcdx == 0 && dcdy > 0);
        Edge { dcdx, dcdy, c: dcdx * i[0] - dcdy * i[1] + i64::from(top_left) }
    }

    /// The edge's value at the centre of pixel `(px, py)` (> 0: inside).
    pub fn at(&self, px: i64, py: i64) -> i64 {
        self.c + FIXED_ONE * (self.dcdy * py - self.dcdx * px)
    }

    /// Whether the edge is a top or left edge (centres on it are inside).
    pub fn is_top_left(&self) -> bool {
        self.dcdx < 0 || (self.dcdx == 0 && self.dcdy > 0)
    }
}

/// Inclusive pixel bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelBounds {
    /// Leftmost pixel column.
    pub x0: i64,
    /// Topmost pixel row.
    pub y0: i64,
    /// Rightmost pixel column.
    pub x1: i64,
    /// Bottom pixel row.
    pub y1: i64,
}

/// A triangle ready to scan and interpolate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleSetup {
    /// Window coordinates `(x_f, y_f, z_f, 1/w_c)` of the vertices, in the primitive's order
    /// (vertex 0 provokes).
    pub window: [[f32; 4]; 3],
    /// Snapped `(x_f - 0.5, y_f - 0.5)` in fixed units, in the primitive's order.
    pub fixed: [[i64; 2]; 3],
    /// Twice the signed area in fixed units (256^2 per square pixel), Vulkan's sign.
    pub area: i64,
    /// Whether the triangle is front-facing.
    pub front_facing: bool,
    /// The three edges, oriented so the interior is positive.
    pub edges: [Edge; 3],
    /// The pixels whose centres lie in the triangle's bounding box.
    pub bounds: PixelBounds,
}

/// Twice Vulkan's signed area of a triangle, from any coordinates: positive for
/// counter-clockwise on a y-down framebuffer.
pub fn signed_area2(p: [[i64; 2]; 3]) -> i64 {
    (p[0][0] - p[1][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[0][1] - p[1][1])
}

/// Sets a triangle up from its vertices' window coordinates (see [`Viewport::to_window`]), or
/// says why it is culled.
pub fn setup_triangle(window: [[f32; 4]; 3], state: &RasterState) -> Result<TriangleSetup, Culled> {
    if window.iter().flatten().any(|v| !v.is_finite()) {
        return Err(Culled::NotFinite);
    }
    let mut fixed = [[0i64; 2]; 3];
    for (f, w) in fixed.iter_mut().zip(&window) {
        *f = [snap(w[0])?, snap(w[1])?];
    }
    let area = signed_area2(fixed);
    if area == 0 {
        return Err(Culled::ZeroArea);
    }
    let ccw = area > 0;
    let front_facing = ccw == (state.front_face == FrontFace::CounterClockwise);
    let culled = match state.cull_mode {
        CullMode::None => false,
        CullMode::Front => front_facing,
        CullMode::Back => !front_facing,
        CullMode::FrontAndBack => true,
    };
    if culled {
        return Err(Culled::Face);
    }
    // Edges walk the vertices in positive-area order; a clockwise triangle swaps 0 and 1.
    let order = if ccw { [0, 1, 2] } else { [1, 0, 2] };
    let edges = std::array::from_fn(|k| Edge::new(fixed[order[k]], fixed[order[(k + 1) % 3]]));
    let (xs, ys) = (fixed.map(|p| p[0]), fixed.map(|p| p[1]));
    let min = |a: [i64; 3]| a[0].min(a[1]).min(a[2]);
    let max = |a: [i64; 3]| a[0].max(a[1]).max(a[2]);
    // Pixel centres are at multiples of 256: the first at or after the minimum, the last at or
    // before the maximum.
    let ceil = |v: i64| -(-v).div_euclid(FIXED_ONE);
    let floor = |v: i64| v.div_euclid(FIXED_ONE);
    let bounds = PixelBounds { x0: ceil(min(xs)), y0: ceil(min(ys)), x1: floor(max(xs)), y1: floor(max(ys)) };
    Ok(TriangleSetup { window, fixed, area, front_facing, edges, bounds })
}

impl TriangleSetup {
    /// Whether the centre of pixel `(px, py)` is covered (top-left rule included).
    pub fn covers(&self, px: i64, py: i64) -> bool {
        self.edges.iter().all(|e| e.at(px, py) > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(p: [[f32; 2]; 3]) -> [[f32; 4]; 3] {
        p.map(|[x, y]| [x, y, 0.5, 1.0])
    }

    #[test]
    fn the_viewport_transform_follows_vulkan() {
        let vp = Viewport { x: 10.0, y: 20.0, width: 100.0, height: 50.0, min_depth: 0.25, max_depth: 0.75 };
        vp.validate().unwrap();
        assert_eq!(vp.to_window([-2.0, -2.0, 0.0, 2.0]), [10.0, 20.0, 0.25, 0.5]);
        assert_eq!(vp.to_window([1.0, 1.0, 1.0, 1.0]), [110.0, 70.0, 0.75, 1.0]);
        // A negative height flips y: y_d = -1 still lands on y, now the bottom edge, and
        // y_d = 1 on y + height, the top.
        let flipped = Viewport { y: 70.0, height: -50.0, ..vp };
        flipped.validate().unwrap();
        assert_eq!(flipped.to_window([0.0, -1.0, 0.5, 1.0])[1], 70.0);
        assert_eq!(flipped.to_window([0.0, 1.0, 0.5, 1.0])[1], 20.0);
    }

    #[test]
    fn invalid_viewports_are_refused() {
        let ok = Viewport::full(64, 64);
        ok.validate().unwrap();
        for bad in [
            Viewport { width: 0.0, ..ok },
            Viewport { height: 0.0, ..ok },
            Viewport { width: 20000.0, ..ok },
            Viewport { x: f32::NAN, ..ok },
            Viewport { x: 32767.0, ..ok },
            Viewport { min_depth: -0.5, ..ok },
            Viewport { max_depth: 2.0, ..ok },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn snapping_rounds_half_to_even_on_the_256th() {
        assert_eq!(snap(0.5), Ok(0));
        assert_eq!(snap(1.5), Ok(256));
        assert_eq!(snap(0.5 + 0.5 / 256.0), Ok(0));
        assert_eq!(snap(0.5 + 1.5 / 256.0), Ok(2));
        assert_eq!(snap(0.0), Ok(-128));
        assert_eq!(snap(f32::NAN), Err(Culled::NotFinite));
        assert_eq!(snap(1e9), Err(Culled::OutOfRange));
    }

    #[test]
    fn facing_uses_vulkans_sign_with_y_down() {
        // Screen-clockwise on a y-down framebuffer: (0,0) -> (8,0) -> (0,8).
        let cw = at([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]]);
        let ccw = at([[0.0, 0.0], [0.0, 8.0], [8.0, 0.0]]);
        let ccw_front = RasterState { front_face: FrontFace::CounterClockwise, cull_mode: CullMode::None };
        let cw_front = RasterState { front_face: FrontFace::Clockwise, ..ccw_front };
        assert!(setup_triangle(cw, &ccw_front).unwrap().area < 0);
        assert!(!setup_triangle(cw, &ccw_front).unwrap().front_facing);
        assert!(setup_triangle(ccw, &ccw_front).unwrap().front_facing);
        assert!(setup_triangle(cw, &cw_front).unwrap().front_facing);
        assert!(!setup_triangle(ccw, &cw_front).unwrap().front_facing);
    }

    #[test]
    fn cull_modes_remove_their_faces_and_zero_area_always() {
        let cw = at([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]]);
        let ccw = at([[0.0, 0.0], [0.0, 8.0], [8.0, 0.0]]);
        let st = |cull_mode| RasterState { front_face: FrontFace::CounterClockwise, cull_mode };
        assert!(setup_triangle(ccw, &st(CullMode::Back)).is_ok());
        assert_eq!(setup_triangle(cw, &st(CullMode::Back)), Err(Culled::Face));
        assert_eq!(setup_triangle(ccw, &st(CullMode::Front)), Err(Culled::Face));
        assert!(setup_triangle(cw, &st(CullMode::Front)).is_ok());
        assert_eq!(setup_triangle(cw, &st(CullMode::FrontAndBack)), Err(Culled::Face));
        assert_eq!(setup_triangle(ccw, &st(CullMode::FrontAndBack)), Err(Culled::Face));
        let line = at([[0.0, 0.0], [4.0, 4.0], [8.0, 8.0]]);
        assert_eq!(setup_triangle(line, &st(CullMode::None)), Err(Culled::ZeroArea));
        // Distinct in f32 but the same on the 1/256 grid: zero area.
        let tiny = at([[1.0, 1.0], [1.0001, 1.0], [1.0, 1.0001]]);
        assert_eq!(setup_triangle(tiny, &st(CullMode::None)), Err(Culled::ZeroArea));
        let nan = at([[f32::NAN, 0.0], [8.0, 0.0], [0.0, 8.0]]);
        assert_eq!(setup_triangle(nan, &st(CullMode::None)), Err(Culled::NotFinite));
        let mut inf_w = ccw;
        inf_w[1][3] = f32::INFINITY;
        assert_eq!(setup_triangle(inf_w, &st(CullMode::None)), Err(Culled::NotFinite));
        let far = at([[0.0, 0.0], [8.0e7, 0.0], [0.0, 8.0]]);
        assert_eq!(setup_triangle(far, &st(CullMode::None)), Err(Culled::OutOfRange));
    }

    #[test]
    fn a_negative_viewport_height_flips_the_facing() {
        // The same clip-space triangle through a y-up (negative height) viewport reverses its
        // winding on the framebuffer.
        let clip = [[-0.5f32, -0.5, 0.5, 1.0], [0.5, -0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0]];
        let down = Viewport::full(64, 64);
        let up = Viewport { y: 64.0, height: -64.0, ..down };
        let st = RasterState::default();
        let a = setup_triangle(clip.map(|c| down.to_window(c)), &st).unwrap();
        let b = setup_triangle(clip.map(|c| up.to_window(c)), &st).unwrap();
        assert!(a.area < 0 && !a.front_facing);
        assert!(b.area > 0 && b.front_facing);
    }

    #[test]
    fn edges_classify_top_and_left() {
        // Right triangle with a horizontal top edge and a vertical left edge.
        let s = setup_triangle(at([[0.5, 0.5], [0.5, 8.5], [8.5, 0.5]]), &RasterState::default()).unwrap();
        let top_left: Vec<bool> = s.edges.iter().map(Edge::is_top_left).collect();
        // Left edge (down), hypotenuse (up-right: neither), top edge (leftwards).
        assert_eq!(top_left, vec![true, false, true]);
        assert_eq!(s.bounds, PixelBounds { x0: 0, y0: 0, x1: 8, y1: 8 });
    }
}
