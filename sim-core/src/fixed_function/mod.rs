//! The graphics pipeline's fixed-function stages as pure functions and small value types,
//! shared by the reference run (functional emulation on flat memory) and the timed units
//! (geometry, raster), so the two cannot disagree on a vertex, a pixel or a varying. Nothing
//! here imports the engine, knows about time, or touches memory other than the bytes handed in.
//!
//! # How the parts fit
//!
//! ```text
//!  draw (vertexCount | indexCount, firstVertex, vertexOffset, instances)
//!    |
//!  fetch.rs       index fetch (UINT16/UINT32, no restart), vertex index = index + vertexOffset;
//!    |            each attribute's byte range (binding stride, input rate, offset), checked
//!    |            against the bound range; bytes decoded to four words, missing (0, 0, 0, 1)
//!    v
//!  vertex shader  (sim-shader, elsewhere): gl_Position in clip space + varyings
//!    |
//!  assembly.rs    places in the draw -> points, lines, triangles (list, strip with alternating
//!    |            winding, fan around vertex 0); provoking vertex first
//!    v
//!  clip.rs        triangles against -w <= x, y <= w, 0 <= z <= w: inside unchanged, outside
//!    |            dropped, crossing clipped (Sutherland-Hodgman, no guard band) and fanned
//!    v
//!  setup.rs       1/w, viewport transform (f32), snap to 1/256 pixel, facing from the fixed-point
//!    |            area (Vulkan's sign, y down), cull, three edge equations with the top-left bias
//!    v
//!  scan.rs        pixel centres tested exactly in integers inside framebuffer ∩ scissor;
//!    |            2x2 quads (even-aligned) with coverage and helper lanes, 8x8 tiles row by row
//!    v
//!  interpolate.rs barycentrics at pixel centres (f64), smooth (perspective-correct) /
//!    |            noperspective / flat varyings, depth, gl_FragCoord, gl_FrontFacing, ddx/ddy
//!    v
//!  fragment shader (sim-shader, elsewhere)
//!    |
//!  per-fragment operations: depth/stencil tests, blending, write masks (sim_rop::fragment)
//! ```
//!
//! # Conformance target
//! Vulkan's rules exactly; where Vulkan leaves a choice, what Mesa's llvmpipe (lavapipe) does,
//! so that the reference run's pictures match lavapipe's within one unit per UNORM channel:
//!
//! - 8 subpixel bits: window coordinates snapped with round-half-to-even to 1/256 pixel,
//!   relative to the centre of pixel (0, 0); coverage at pixel centres, exact in i64.
//! - The top-left fill rule (llvmpipe's, with `bottom_edge_rule` off): a centre on a top or left
//!   edge is covered, on a bottom or right edge not.
//! - Facing and zero-area culling from the snapped (fixed-point) area.
//! - No guard band: triangles crossing any plane of the view volume are clipped to it.
//! - Flat shading from the first vertex; clipping copies the provoking vertex's flat values.
//! - Fine derivatives for `ddx`/`ddy` (llvmpipe's for all derivatives); coarse ones beside.
//!
//! # Not supported yet
//! Rasterization of lines and points (they are assembled only), polygon modes other than
//! FILL, multisampling and sample shading (single sample at the pixel centre), depth bias,
//! depth clamp and `VK_EXT_depth_clip_control`, user clip and cull distances, primitive
//! restart, adjacency topologies, line strips, patches, the last-vertex provoking mode, vertex
//! attribute divisors other than 1, and multiple viewports.
//!
//! # Limits
//! Framebuffer extents are 1..=16384 (maxFramebufferWidth/Height); viewports follow Vulkan's
//! valid usage (dimensions up to 16384, bounds [-32768, 32767]); a window coordinate farther
//! than 2^20 pixels from the origin (only an unclipped triangle has one) is culled, which keeps
//! every edge value inside i64. Nothing allocates in proportion to an unchecked number: quads
//! and primitives come from iterators, and clipping is bounded (9 vertices, 7 triangles).

pub mod assembly;
pub mod clip;
pub mod fetch;
pub mod interpolate;
pub mod scan;
pub mod setup;

pub use assembly::{Primitive, PrimitiveTopology, Primitives, assemble};
pub use clip::{ClipError, ClipVertex, Clipped, clip_triangle};
pub use fetch::{
    AttributeRead, AttributeValue, BoundVertexBuffer, FetchError, IndexType, VertexAttribute, VertexBinding, VertexInputRate,
    VertexInputState, fetch_index, fetch_vertex,
};
pub use interpolate::{Barycentrics, Interpolation, ddx, ddx_coarse, ddy, ddy_coarse, frag_coord, interpolate, pixel_barycentrics};
pub use scan::{DrawRegion, MAX_FRAMEBUFFER_EXTENT, Quad, Quads, Rect2D, scan_triangle};
pub use setup::{CullMode, Culled, FrontFace, RasterError, RasterState, TriangleSetup, Viewport, setup_triangle};
