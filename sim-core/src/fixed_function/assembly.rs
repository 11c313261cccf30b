//! Primitive assembly: a draw's vertices grouped into points, lines and triangles, as Vulkan's
//! "Primitive Topologies" section defines each topology.
//!
//! # Design
//! Assembly works on a vertex's place in the draw (0 .. vertexCount or indexCount), not on
//! vertex or index values: the caller maps a place to its vertex (firstVertex + place, or the
//! index buffer's entry), so one iterator serves indexed and non-indexed draws. The iterator
//! allocates nothing, whatever the count.
//!
//! With Vulkan's default provoking vertex (the first), triangle `i` of each topology is:
//!
//! ```text
//! TRIANGLE_LIST   (3i, 3i+1, 3i+2)
//! TRIANGLE_STRIP  (i, i+1, i+2) for even i, (i, i+2, i+1) for odd i: the winding alternates
//!                 back, so every triangle of a strip faces the same way, and vertex i stays the
//!                 first (provoking) vertex
//! TRIANGLE_FAN    (i+1, i+2, 0): the shared vertex comes last, so vertex i+1 provokes
//! LINE_LIST       (2i, 2i+1)
//! POINT_LIST      (i)
//! ```
//!
//! Vertices that do not complete a primitive are ignored. Primitive restart is not supported
//! (it is off for list topologies in Vulkan anyway); adjacency topologies, line strips and
//! patches are not supported yet.

/// `VkPrimitiveTopology`, the supported ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimitiveTopology {
    /// Separate points.
    PointList,
    /// Separate lines.
    LineList,
    /// Separate triangles.
    TriangleList,
    /// Triangles sharing an edge with the previous one.
    TriangleStrip,
    /// Triangles sharing the draw's first vertex.
    TriangleFan,
}

/// One assembled primitive: places of its vertices in the draw, the provoking vertex first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    /// A point.
    Point(u32),
    /// A line from the first place to the second.
    Line([u32; 2]),
    /// A triangle, in winding order.
    Triangle([u32; 3]),
}

impl PrimitiveTopology {
    /// How many primitives `vertex_count` vertices make.
    pub fn primitive_count(self, vertex_count: u32) -> u32 {
        match self {
            PrimitiveTopology::PointList => vertex_count,
            PrimitiveTopology::LineList => vertex_count / 2,
            PrimitiveTopology::TriangleList => vertex_count / 3,
            PrimitiveTopology::TriangleStrip | PrimitiveTopology::TriangleFan => vertex_count.saturating_sub(2),
        }
    }

    /// The `i`-th primitive, or `None` past the last one that `vertex_count` vertices make.
    pub fn primitive(self, vertex_count: u32, i: u32) -> Option<Primitive> {
        if i >= self.primitive_count(vertex_count) {
            return None;
        }
        // i is below the count, so every place below is below vertex_count: no overflow.
        Some(match self {
            PrimitiveTopology::PointList => Primitive::Point(i),
            PrimitiveTopology::LineList => Primitive::Line([2 * i, 2 * i + 1]),
            PrimitiveTopology::TriangleList => Primitive::Triangle([3 * i, 3 * i + 1, 3 * i + 2]),
            PrimitiveTopology::TriangleStrip => Primitive::Triangle([i, i + 1 + i % 2, i + 2 - i % 2]),
            PrimitiveTopology::TriangleFan => Primitive::Triangle([i + 1, i + 2, 0]),
        })
    }

    /// Whether the topology makes triangles.
    pub fn is_triangles(self) -> bool {
        matches!(self, PrimitiveTopology::TriangleList | PrimitiveTopology::TriangleStrip | PrimitiveTopology::TriangleFan)
    }
}

/// The primitives of a draw of `vertex_count` vertices, in order.
pub fn assemble(topology: PrimitiveTopology, vertex_count: u32) -> Primitives {
    Primitives { topology, vertex_count, next: 0 }
}

/// The iterator [`assemble`] returns.
#[derive(Clone, Debug)]
pub struct Primitives {
    topology: PrimitiveTopology,
    vertex_count: u32,
    next: u32,
}

impl Iterator for Primitives {
    type Item = Primitive;

    fn next(&mut self) -> Option<Primitive> {
        let p = self.topology.primitive(self.vertex_count, self.next)?;
        self.next += 1;
        Some(p)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.topology.primitive_count(self.vertex_count) - self.next) as usize;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Primitives {}

#[cfg(test)]
mod tests {
    use super::*;

    fn tris(t: PrimitiveTopology, n: u32) -> Vec<[u32; 3]> {
        assemble(t, n)
            .map(|p| match p {
                Primitive::Triangle(v) => v,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// Twice the signed area of the triangle whose vertices are `pts[v]`.
    fn area(pts: &[(i64, i64)], v: [u32; 3]) -> i64 {
        let [a, b, c] = v.map(|k| pts[k as usize]);
        (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1)
    }

    #[test]
    fn lists_group_consecutive_vertices_and_drop_the_rest() {
        assert_eq!(tris(PrimitiveTopology::TriangleList, 8), vec![[0, 1, 2], [3, 4, 5]]);
        let lines: Vec<_> = assemble(PrimitiveTopology::LineList, 5).collect();
        assert_eq!(lines, vec![Primitive::Line([0, 1]), Primitive::Line([2, 3])]);
        let points: Vec<_> = assemble(PrimitiveTopology::PointList, 2).collect();
        assert_eq!(points, vec![Primitive::Point(0), Primitive::Point(1)]);
        assert_eq!(assemble(PrimitiveTopology::TriangleStrip, 1).count(), 0);
        assert_eq!(assemble(PrimitiveTopology::TriangleFan, 0).len(), 0);
    }

    #[test]
    fn strips_alternate_winding_so_all_triangles_face_alike() {
        assert_eq!(tris(PrimitiveTopology::TriangleStrip, 5), vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]);
        // A zig-zag strip of quads: every triangle has the same orientation.
        let pts: Vec<(i64, i64)> = (0..10).map(|k| (k / 2, k % 2)).collect();
        let areas: Vec<i64> = tris(PrimitiveTopology::TriangleStrip, 10).into_iter().map(|t| area(&pts, t)).collect();
        assert!(areas.iter().all(|&a| a != 0 && a.signum() == areas[0].signum()), "{areas:?}");
    }

    #[test]
    fn fans_share_vertex_zero_last_and_face_alike() {
        assert_eq!(tris(PrimitiveTopology::TriangleFan, 5), vec![[1, 2, 0], [2, 3, 0], [3, 4, 0]]);
        let pts = [(0, 0), (4, 0), (3, 3), (0, 4), (-3, 3)];
        let areas: Vec<i64> = tris(PrimitiveTopology::TriangleFan, 5).into_iter().map(|t| area(&pts, t)).collect();
        assert!(areas.iter().all(|&a| a > 0), "{areas:?}");
    }

    #[test]
    fn huge_counts_neither_overflow_nor_allocate() {
        let mut strip = assemble(PrimitiveTopology::TriangleStrip, u32::MAX);
        assert_eq!(strip.len(), (u32::MAX - 2) as usize);
        assert_eq!(PrimitiveTopology::TriangleStrip.primitive(u32::MAX, u32::MAX - 4), Some(Primitive::Triangle([u32::MAX - 4, u32::MAX - 2, u32::MAX - 3])));
        assert_eq!(PrimitiveTopology::TriangleList.primitive(u32::MAX, u32::MAX / 3 - 1), Some(Primitive::Triangle([u32::MAX - 3, u32::MAX - 2, u32::MAX - 1])));
        assert_eq!(PrimitiveTopology::TriangleList.primitive(u32::MAX, u32::MAX / 3), None);
        assert_eq!(strip.next(), Some(Primitive::Triangle([0, 1, 2])));
    }
}
