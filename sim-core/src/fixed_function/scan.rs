//! Scan conversion: which pixels a set-up triangle covers inside the draw region (the
//! framebuffer's area clipped to the scissor), as 2x2 quads in a fixed order.
//!
//! # Design
//! Coverage is tested at pixel centres only (single sample; multisampling is not supported
//! yet), with the edge equations of [`TriangleSetup`], in integers: exact, with the top-left rule
//! deciding centres on an edge, so two triangles sharing an edge never both cover a pixel and
//! leave no gap between them.
//!
//! Fragments are grouped in quads: 2x2 pixels whose top-left pixel has even coordinates, the
//! unit of a fragment wave and of derivatives. A quad is produced when at least one of its
//! pixels is covered; its other pixels are helper pixels (they run the fragment shader for
//! derivatives and write nothing). A helper may lie outside the scissor or the framebuffer
//! (a quad at the right edge of an odd-width framebuffer).
//!
//! ```text
//!   lane / coverage bit      order of production
//!   +---+---+                framebuffer cut in 8x8-pixel tiles from the origin;
//!   | 0 | 1 |   (x, y)       tiles row by row (top to bottom, left to right) over the
//!   +---+---+                triangle's bounding box clipped to the draw region;
//!   | 2 | 3 |   (x, y+1)     in a tile, its 4x4 quads row by row
//!   +---+---+
//! ```
//!
//! The order depends only on the triangle and the region, so the reference run and the timed
//! raster unit see the same fragments in the same order. A tile whose bounding rectangle lies
//! wholly outside one edge is skipped without visiting its quads. Nothing is allocated: quads
//! come from an iterator.

use super::setup::{RasterError, TriangleSetup};

/// Vulkan's maxFramebufferWidth and maxFramebufferHeight as gpusim reports them.
pub const MAX_FRAMEBUFFER_EXTENT: u32 = 16384;
/// Side of the tiles quads are produced in, in pixels.
pub const TILE_SIZE: i64 = 8;

/// `VkRect2D`: a scissor rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect2D {
    /// Left edge (>= 0).
    pub x: i32,
    /// Top edge (>= 0).
    pub y: i32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// The pixels a draw may write: the framebuffer's area clipped to the scissor (half-open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRegion {
    /// First column.
    pub x0: i64,
    /// First row.
    pub y0: i64,
    /// One past the last column.
    pub x1: i64,
    /// One past the last row.
    pub y1: i64,
}

impl DrawRegion {
    /// The region of a `width` x `height` framebuffer under `scissor` (none: the whole
    /// framebuffer). Extents must be 1..=16384; a scissor must have a non-negative offset and
    /// `offset + extent` within i32 (Vulkan's valid usage of vkCmdSetScissor).
    pub fn new(width: u32, height: u32, scissor: Option<Rect2D>) -> Result<DrawRegion, RasterError> {
        if !(1..=MAX_FRAMEBUFFER_EXTENT).contains(&width) || !(1..=MAX_FRAMEBUFFER_EXTENT).contains(&height) {
            return Err(RasterError::FramebufferExtent { width, height, max: MAX_FRAMEBUFFER_EXTENT });
        }
        let mut region = DrawRegion { x0: 0, y0: 0, x1: i64::from(width), y1: i64::from(height) };
        if let Some(s) = scissor {
            if s.x < 0 || s.y < 0 {
                return Err(RasterError::Scissor { what: format!("offset ({}, {}) is negative", s.x, s.y) });
            }
            let (sx1, sy1) = (i64::from(s.x) + i64::from(s.width), i64::from(s.y) + i64::from(s.height));
            if sx1 > i64::from(i32::MAX) || sy1 > i64::from(i32::MAX) {
                return Err(RasterError::Scissor { what: format!("{s:?} ends past 2^31 - 1") });
            }
            region = DrawRegion {
                x0: region.x0.max(i64::from(s.x)),
                y0: region.y0.max(i64::from(s.y)),
                x1: region.x1.min(sx1),
                y1: region.y1.min(sy1),
            };
        }
        Ok(region)
    }

    /// Whether the region holds no pixel.
    pub fn is_empty(&self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    /// Whether pixel `(x, y)` lies in the region.
    pub fn contains(&self, x: i64, y: i64) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }
}

/// A 2x2 quad of fragments: lane `k` is pixel `(x + k % 2, y + k / 2)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quad {
    /// Column of the top-left pixel (even).
    pub x: u32,
    /// Row of the top-left pixel (even).
    pub y: u32,
    /// Bit `k` set when lane `k`'s pixel centre is covered (and inside the draw region).
    pub coverage: u8,
}

impl Quad {
    /// The pixel of lane `lane` (0..4).
    pub fn pixel(&self, lane: usize) -> (u32, u32) {
        (self.x + (lane as u32 & 1), self.y + (lane as u32 >> 1 & 1))
    }

    /// Whether lane `lane` is covered.
    pub fn is_covered(&self, lane: usize) -> bool {
        lane < 4 && self.coverage & (1 << lane) != 0
    }

    /// The helper lanes: those not covered.
    pub fn helpers(&self) -> u8 {
        !self.coverage & 0xf
    }
}

/// The quads of `setup` inside `region`, in the order the module's design note gives.
pub fn scan_triangle<'a>(setup: &'a TriangleSetup, region: &DrawRegion) -> Quads<'a> {
    let b = setup.bounds;
    // The region's fields are public: clamp to the largest framebuffer whatever they hold.
    let max = i64::from(MAX_FRAMEBUFFER_EXTENT);
    let area = DrawRegion {
        x0: b.x0.max(region.x0).max(0),
        y0: b.y0.max(region.y0).max(0),
        x1: (b.x1 + 1).min(region.x1).min(max),
        y1: (b.y1 + 1).min(region.y1).min(max),
    };
    let empty = area.is_empty();
    let first_tile = [area.x0.div_euclid(TILE_SIZE), area.y0.div_euclid(TILE_SIZE)];
    let last_tile = if empty { first_tile } else { [(area.x1 - 1).div_euclid(TILE_SIZE), (area.y1 - 1).div_euclid(TILE_SIZE)] };
    Quads { setup, area, tile: first_tile, first_tile, last_tile, quad: 0, done: empty }
}

/// The iterator [`scan_triangle`] returns.
#[derive(Clone, Debug)]
pub struct Quads<'a> {
    setup: &'a TriangleSetup,
    /// The triangle's bounding box clipped to the region.
    area: DrawRegion,
    tile: [i64; 2],
    first_tile: [i64; 2],
    last_tile: [i64; 2],
    /// The next quad of the tile, 0..16.
    quad: i64,
    done: bool,
}

impl Quads<'_> {
    fn next_tile(&mut self) {
        self.quad = 0;
        if self.tile[0] < self.last_tile[0] {
            self.tile[0] += 1;
        } else if self.tile[1] < self.last_tile[1] {
            self.tile = [self.first_tile[0], self.tile[1] + 1];
        } else {
            self.done = true;
        }
    }

    /// Whether the current tile's part of the area may hold a covered pixel: no edge is
    /// negative at all four corners (the edges are linear, so a corner is the maximum).
    fn tile_may_cover(&self) -> bool {
        let x0 = (self.tile[0] * TILE_SIZE).max(self.area.x0);
        let y0 = (self.tile[1] * TILE_SIZE).max(self.area.y0);
        let x1 = (self.tile[0] * TILE_SIZE + TILE_SIZE - 1).min(self.area.x1 - 1);
        let y1 = (self.tile[1] * TILE_SIZE + TILE_SIZE - 1).min(self.area.y1 - 1);
        if x0 > x1 || y0 > y1 {
            return false;
        }
        self.setup.edges.iter().all(|e| [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].iter().any(|&(x, y)| e.at(x, y) > 0))
    }

    fn covered(&self, x: i64, y: i64) -> bool {
        self.area.contains(x, y) && self.setup.covers(x, y)
    }
}

impl Iterator for Quads<'_> {
    type Item = Quad;

    fn next(&mut self) -> Option<Quad> {
        while !self.done {
            if self.quad == 0 && !self.tile_may_cover() {
                self.next_tile();
                continue;
            }
            let x = self.tile[0] * TILE_SIZE + 2 * (self.quad % 4);
            let y = self.tile[1] * TILE_SIZE + 2 * (self.quad / 4);
            self.quad += 1;
            if self.quad == 16 {
                self.next_tile();
            }
            let mut coverage = 0u8;
            for lane in 0..4 {
                if self.covered(x + (lane & 1), y + (lane >> 1)) {
                    coverage |= 1 << lane;
                }
            }
            if coverage != 0 {
                // Covered pixels lie in the region, inside 0..16384: the casts are exact.
                return Some(Quad { x: x as u32, y: y as u32, coverage });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::setup::{RasterState, setup_triangle};
    use super::*;

    fn tri(p: [[f32; 2]; 3]) -> TriangleSetup {
        setup_triangle(p.map(|[x, y]| [x, y, 0.5, 1.0]), &RasterState::default()).unwrap()
    }

    fn pixels(s: &TriangleSetup, region: &DrawRegion) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for q in scan_triangle(s, region) {
            for lane in 0..4 {
                if q.is_covered(lane) {
                    out.push(q.pixel(lane));
                }
            }
        }
        out.sort();
        out
    }

    fn region(w: u32, h: u32) -> DrawRegion {
        DrawRegion::new(w, h, None).unwrap()
    }

    #[test]
    fn edges_through_pixel_centres_follow_the_top_left_rule() {
        // A square from centre (1,1) to centre (3,3), split along its diagonal, both windings:
        // the top and left edges (through centres) are in, the bottom and right ones out, and
        // the diagonal's centres belong to exactly one half.
        let (a, b, c, d) = ([1.5, 1.5], [3.5, 1.5], [3.5, 3.5], [1.5, 3.5]);
        for flip in [false, true] {
            let mk = |p: [[f32; 2]; 3]| if flip { tri([p[0], p[2], p[1]]) } else { tri(p) };
            let upper = mk([a, b, c]);
            let lower = mk([a, c, d]);
            let mut all = pixels(&upper, &region(8, 8));
            all.extend(pixels(&lower, &region(8, 8)));
            all.sort();
            assert_eq!(all, vec![(1, 1), (1, 2), (2, 1), (2, 2)], "flip {flip}");
        }
    }

    /// Both windings of a triangle.
    fn both(p: [[f32; 2]; 3]) -> [TriangleSetup; 2] {
        [tri(p), tri([p[0], p[2], p[1]])]
    }

    #[test]
    fn horizontal_top_edges_are_in_and_bottom_edges_out() {
        // A top edge through row 2's centres is in (all 8 of them); a bottom edge through row 5's
        // is out.
        for top in both([[0.0, 2.5], [8.0, 2.5], [0.0, 5.5]]) {
            let rows: Vec<u32> = pixels(&top, &region(8, 8)).iter().map(|p| p.1).collect();
            assert!(rows.contains(&2) && !rows.contains(&5), "{rows:?}");
            assert_eq!(pixels(&top, &region(8, 8)).iter().filter(|p| p.1 == 2).count(), 8);
        }
        for bottom in both([[8.0, 2.5], [8.0, 5.5], [0.0, 5.5]]) {
            let rows: Vec<u32> = pixels(&bottom, &region(8, 8)).iter().map(|p| p.1).collect();
            assert!(!rows.contains(&5) && rows.contains(&4), "{rows:?}");
        }
    }

    #[test]
    fn vertical_left_edges_are_in_and_right_edges_out() {
        for left in both([[2.5, 0.0], [2.5, 8.0], [6.0, 4.0]]) {
            let px = pixels(&left, &region(8, 8));
            assert_eq!(px.iter().filter(|p| p.0 == 2).count(), 8, "{px:?}");
        }
        for right in both([[5.5, 0.0], [5.5, 8.0], [1.0, 4.0]]) {
            let cols: Vec<u32> = pixels(&right, &region(8, 8)).iter().map(|p| p.0).collect();
            assert!(!cols.contains(&5) && cols.contains(&4), "{cols:?}");
        }
    }

    #[test]
    fn quads_are_aligned_with_helpers_and_ordered_by_tile() {
        let s = tri([[0.0, 0.0], [17.0, 0.0], [0.0, 17.0]]);
        let quads: Vec<Quad> = scan_triangle(&s, &region(16, 16)).collect();
        assert!(quads.iter().all(|q| q.x % 2 == 0 && q.y % 2 == 0));
        // Tile (0,0)'s quads come first, then tile (1,0), then tile (0,1).
        let tile = |q: &Quad| (q.y / 8, q.x / 8);
        let order: Vec<(u32, u32)> = quads.iter().map(tile).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        // The diagonal's quads are partial: the pixel below-right of the diagonal is a helper.
        let diag = quads.iter().find(|q| q.x == 6 && q.y == 8).unwrap();
        assert_eq!(diag.coverage, 0b0111);
        assert_eq!(diag.helpers(), 0b1000);
    }

    #[test]
    fn the_scissor_and_framebuffer_clip_coverage() {
        let s = tri([[-10.0, -10.0], [100.0, -10.0], [-10.0, 100.0]]);
        let scissor = Rect2D { x: 3, y: 2, width: 4, height: 3 };
        let r = DrawRegion::new(16, 16, Some(scissor)).unwrap();
        let px = pixels(&s, &r);
        assert_eq!(px.len(), 12);
        assert!(px.iter().all(|&(x, y)| (3..7).contains(&x) && (2..5).contains(&y)));
        // The quad at x = 2 has its x = 2 lanes outside the scissor: helpers.
        let q = scan_triangle(&s, &r).find(|q| q.x == 2 && q.y == 2).unwrap();
        assert_eq!(q.coverage, 0b1010);
        let odd = region(5, 5);
        assert_eq!(pixels(&s, &odd).len(), 25);
        assert_eq!(scan_triangle(&s, &odd).find(|q| q.x == 4 && q.y == 4).unwrap().coverage, 0b0001);
    }

    #[test]
    fn regions_refuse_what_vulkan_refuses() {
        assert!(DrawRegion::new(0, 4, None).is_err());
        assert!(DrawRegion::new(16385, 4, None).is_err());
        assert!(DrawRegion::new(16384, 16384, None).is_ok());
        assert!(DrawRegion::new(4, 4, Some(Rect2D { x: -1, y: 0, width: 1, height: 1 })).is_err());
        assert!(DrawRegion::new(4, 4, Some(Rect2D { x: i32::MAX, y: 0, width: 1, height: 1 })).is_err());
        let empty = DrawRegion::new(4, 4, Some(Rect2D { x: 8, y: 8, width: 1, height: 1 })).unwrap();
        assert!(empty.is_empty());
        let s = tri([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]);
        assert_eq!(scan_triangle(&s, &empty).count(), 0);
        // A hand-made region past the framebuffer limits is clamped to them.
        let wild = DrawRegion { x0: -100, y0: i64::MIN, x1: i64::MAX, y1: 2 };
        let s = tri([[-50.0, -50.0], [150.0, -50.0], [-50.0, 150.0]]);
        assert_eq!(scan_triangle(&s, &wild).map(|q| q.coverage.count_ones()).sum::<u32>(), 99 + 98);
    }

    #[test]
    fn a_huge_triangle_on_the_largest_framebuffer_does_not_overflow() {
        let s = tri([[-30000.0, -30000.0], [100000.0, -30000.0], [-30000.0, 100000.0]]);
        let r = region(MAX_FRAMEBUFFER_EXTENT, MAX_FRAMEBUFFER_EXTENT);
        // Only look at the first few quads: the scan is lazy.
        let first: Vec<Quad> = scan_triangle(&s, &r).take(3).collect();
        assert_eq!(first[0], Quad { x: 0, y: 0, coverage: 0xf });
        assert!(s.covers(16383, 16383));
    }
}
