//! The functional draw (`engine/draw.rs`): vertex fetch, vertex and fragment shaders, clipping,
//! rasterization, depth test and blending put together, checked on small framebuffers.

use sim_core::engine::draw::{ColorTarget, DepthTarget, DrawCounts, DrawState, draw_flat};
use sim_core::fixed_function as ff;
use sim_rop::Format;
use sim_rop::fragment::{BlendFactor, BlendOp, BlendState, CompareOp};
use sim_shader::{FlatImages, GraphicsShader, Module};

const SHADERS: &str = r#"
struct V { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) c: vec4<f32>) -> V {
    var v: V;
    v.p = vec4<f32>(p, 1.0);
    v.c = c;
    return v;
}
@fragment fn fs(@location(0) @interpolate(flat) c: vec4<f32>) -> @location(0) vec4<f32> { return c; }
@fragment fn left_discards(@builtin(position) f: vec4<f32>, @location(0) @interpolate(flat) c: vec4<f32>) -> @location(0) vec4<f32> {
    if f.x < 8.0 { discard; }
    return c;
}
"#;

const W: u32 = 16;

/// Vertices: position (x, y, z) then colour (r, g, b, a), all f32.
fn vertices(tris: &[([[f32; 3]; 3], [f32; 4])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (p, c) in tris {
        for v in p {
            for x in v.iter().chain(c.iter()) {
                out.extend(x.to_le_bytes());
            }
        }
    }
    out
}

fn input_state() -> ff::VertexInputState {
    ff::VertexInputState::new(
        vec![ff::VertexBinding { binding: 0, stride: 28, input_rate: ff::VertexInputRate::Vertex }],
        vec![
            ff::VertexAttribute { location: 0, binding: 0, format: Format::R32G32B32_SFLOAT, offset: 0 },
            ff::VertexAttribute { location: 1, binding: 0, format: Format::R32G32B32A32_SFLOAT, offset: 12 },
        ],
    )
    .expect("a valid input state")
}

/// Draws `tris` into a cleared 16x16 R8G8B8A8_UNORM target (and a D32_SFLOAT one cleared to 1.0
/// when `depth` says how to test); the colour texels.
fn draw(fs: &str, tris: &[([[f32; 3]; 3], [f32; 4])], raster: ff::RasterState, blend: BlendState, depth: Option<CompareOp>) -> (Vec<u8>, sim_core::engine::draw::DrawStats) {
    let module = Module::from_wgsl(SHADERS, "draw.wgsl").expect("compiles");
    let (vs, fs) = (GraphicsShader::new(&module, "vs").unwrap(), GraphicsShader::new(&module, fs).unwrap());
    let bytes = vertices(tris);
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
    let inputs = input_state();
    let state = DrawState {
        vertex: &vs,
        fragment: Some(&fs),
        vertex_input: &inputs,
        vertex_buffers: &buffers,
        index_buffer: None,
        topology: ff::PrimitiveTopology::TriangleList,
        raster,
        viewport: ff::Viewport::full(W, W),
        scissor: None,
        push_constants: &[],
        blend_constants: [0.0; 4],
        subgroup_size: 16,
    };
    let mut colour = [0u8, 0, 255, 255].repeat((W * W) as usize);
    let mut depth_texels = 1f32.to_le_bytes().repeat((W * W) as usize);
    let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [W, W], texels: &mut colour, blend }];
    let mut d = depth.map(|compare| DepthTarget { format: Format::D32_SFLOAT, extent: [W, W], texels: &mut depth_texels, test: true, write: true, compare });
    let counts = DrawCounts { count: 3 * tris.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
    let stats = draw_flat(&state, counts, &mut targets, d.as_mut(), &mut [], &mut FlatImages::default()).expect("draws");
    (colour, stats)
}

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// Clip space to the whole framebuffer: (-1, -1) is its top-left corner (y down).
fn full_quad(z: f32) -> [[[f32; 3]; 3]; 2] {
    [[[-1.0, -1.0, z], [-1.0, 1.0, z], [1.0, -1.0, z]], [[1.0, -1.0, z], [-1.0, 1.0, z], [1.0, 1.0, z]]]
}

fn texel(c: &[u8], x: u32, y: u32) -> [u8; 4] {
    let at = ((y * W + x) * 4) as usize;
    [c[at], c[at + 1], c[at + 2], c[at + 3]]
}

/// Two triangles sharing a diagonal cover every pixel once: each pixel takes the colour of the
/// triangle whose half it is in, by the top-left rule, and none stays the clear colour.
#[test]
fn two_triangles_cover_the_framebuffer_once() {
    let [a, b] = full_quad(0.5);
    let (c, stats) = draw("fs", &[(a, RED), (b, GREEN)], ff::RasterState::default(), BlendState::REPLACE, None);
    assert_eq!((stats.vertices, stats.triangles, stats.culled), (6, 2, 0));
    assert_eq!(stats.fragments, u64::from(W * W), "every pixel shaded exactly once");
    for y in 0..W {
        for x in 0..W {
            // The diagonal runs from the top-right to the bottom-left corner: pixel centres with
            // x + y < 15 are the first triangle's, x + y > 15 the second's; on the diagonal the
            // top-left rule gives the pixel to the triangle whose edge is a left or top one.
            let t = texel(&c, x, y);
            match (x + y).cmp(&(W - 1)) {
                std::cmp::Ordering::Less => assert_eq!(t, [255, 0, 0, 255], "({x}, {y})"),
                std::cmp::Ordering::Greater => assert_eq!(t, [0, 255, 0, 255], "({x}, {y})"),
                std::cmp::Ordering::Equal => assert!(t == [255, 0, 0, 255] || t == [0, 255, 0, 255], "({x}, {y}): {t:?}"),
            }
        }
    }
}

/// The depth test keeps the nearer surface whatever the order of the draws' triangles.
#[test]
fn the_nearer_triangle_wins_either_way() {
    let (near, far) = (full_quad(0.25), full_quad(0.75));
    for order in [[(near[0], RED), (near[1], RED), (far[0], GREEN), (far[1], GREEN)], [(far[0], GREEN), (far[1], GREEN), (near[0], RED), (near[1], RED)]] {
        let (c, stats) = draw("fs", &order, ff::RasterState::default(), BlendState::REPLACE, Some(CompareOp::Less));
        assert!(c.chunks(4).all(|t| t == [255, 0, 0, 255]), "red everywhere");
        assert_eq!(stats.fragments, 2 * u64::from(W * W));
    }
}

/// Source-alpha blending puts half-transparent red over the blue clear colour.
#[test]
fn blending_mixes_with_what_is_there() {
    let blend = BlendState {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        alpha_op: BlendOp::Add,
        write_mask: 0xf,
    };
    let [a, b] = full_quad(0.5);
    let half = [1.0, 0.0, 0.0, 0.5];
    let (c, _) = draw("fs", &[(a, half), (b, half)], ff::RasterState::default(), blend, None);
    // 0.5 * 1.0 + 0.5 * 0 = 0.5 red, 0.5 blue: 127.5 rounds to 128.
    assert!(c.chunks(4).all(|t| t == [128, 0, 128, 128]), "{:?}", &c[..8]);
    // A write mask of R only keeps the other channels.
    let (c, _) = draw("fs", &[(a, GREEN), (b, GREEN)], ff::RasterState::default(), BlendState { write_mask: 0b0001, ..BlendState::REPLACE }, None);
    assert!(c.chunks(4).all(|t| t == [0, 0, 255, 255]));
}

/// Back faces are culled, and a discarded fragment writes nothing.
#[test]
fn culling_and_discard() {
    let [a, b] = full_quad(0.5);
    // The full quad's first triangle, (0, 0) -> (0, 16) -> (16, 0) on the y-down framebuffer,
    // has Vulkan's area a = -1/2 * sum(x_i * y_i+1 - x_i+1 * y_i) = 128 > 0: counter-clockwise,
    // front-facing when counter-clockwise faces are front; the second likewise.
    let keep = ff::RasterState { front_face: ff::FrontFace::CounterClockwise, cull_mode: ff::CullMode::Back };
    let (c, stats) = draw("fs", &[(a, RED), (b, RED)], keep, BlendState::REPLACE, None);
    assert_eq!(stats.culled, 0);
    assert!(c.chunks(4).all(|t| t == [255, 0, 0, 255]));
    let cull = ff::RasterState { front_face: ff::FrontFace::Clockwise, cull_mode: ff::CullMode::Back };
    let (c, stats) = draw("fs", &[(a, RED), (b, RED)], cull, BlendState::REPLACE, None);
    assert_eq!((stats.culled, stats.fragments), (2, 0));
    assert!(c.chunks(4).all(|t| t == [0, 0, 255, 255]), "the clear colour everywhere");
    // Discard: the left half keeps the clear colour.
    let (c, _) = draw("left_discards", &[(a, RED), (b, RED)], ff::RasterState::default(), BlendState::REPLACE, None);
    for y in 0..W {
        for x in 0..W {
            assert_eq!(texel(&c, x, y), if x < 8 { [0, 0, 255, 255] } else { [255, 0, 0, 255] }, "({x}, {y})");
        }
    }
}

/// A textured quad: a 4x4 texture of distinct colours sampled (NEAREST, implicit LOD) over a
/// 16x16 framebuffer through perspective-correct texture coordinates: each 4x4 block of pixels
/// shows one texel, and the level of detail the quads give is log2(4 / 16) = -2 (magnified).
#[test]
fn a_textured_quad_shows_each_texel_on_a_block_of_pixels() {
    let src = r#"
struct V { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) c: vec4<f32>) -> V {
    var v: V;
    v.p = vec4<f32>(p, 1.0);
    v.uv = c.xy;
    return v;
}
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment fn fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> { return textureSample(t, s, uv); }
"#;
    let module = Module::from_wgsl(src, "textured.wgsl").expect("compiles");
    let (vs, fs) = (GraphicsShader::new(&module, "vs").unwrap(), GraphicsShader::new(&module, "fs").unwrap());
    // The quad's corners carry uv in the colour attribute's first two components.
    let corner = |x: f32, y: f32| ([x, y, 0.5], [(x + 1.0) / 2.0, (y + 1.0) / 2.0, 0.0, 0.0]);
    let mut bytes = Vec::new();
    for (x, y) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        let (p, c) = corner(x, y);
        for v in p.iter().chain(c.iter()) {
            bytes.extend(v.to_le_bytes());
        }
    }
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
    let inputs = input_state();
    let state = DrawState {
        vertex: &vs,
        fragment: Some(&fs),
        vertex_input: &inputs,
        vertex_buffers: &buffers,
        index_buffer: None,
        topology: ff::PrimitiveTopology::TriangleList,
        raster: ff::RasterState::default(),
        viewport: ff::Viewport::full(W, W),
        scissor: None,
        push_constants: &[],
        blend_constants: [0.0; 4],
        subgroup_size: 32,
    };
    // Texel (i, j): red 16 * (4j + i), green 255 - that, blue 64.
    let texel_colour = |i: u32, j: u32| [(16 * (4 * j + i)) as u8, 255 - (16 * (4 * j + i)) as u8, 64, 255];
    let sampler = sim_rop::Sampler::default();
    let mut lods = Vec::new();
    let mut handler = |req: &sim_shader::ImageRequest| -> Result<Vec<[u32; 4]>, sim_shader::ShaderError> {
        let mut out = Vec::new();
        for lane in &req.lanes {
            lods.push(lane.lod);
            let fp = sampler.footprint(2, [4, 4, 1], 1, lane.coords, lane.lod);
            let texels: Vec<sim_rop::Texel> = fp.taps.iter().map(|t| Format::R8G8B8A8_UNORM.decode(sim_rop::Aspect::Color, &texel_colour(t.texel[0], t.texel[1]))).collect();
            out.push(sim_rop::filter(&fp, &texels, [0; 4]));
        }
        Ok(out)
    };
    let shapes = [sim_shader::ImageShape { extent: [4, 4, 1], levels: 1, layers: 1 }, sim_shader::ImageShape::default()];
    let mut images = FlatImages { shapes: &shapes, handler: Some(&mut handler) };
    let mut colour = vec![0u8; (W * W * 4) as usize];
    let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [W, W], texels: &mut colour, blend: BlendState::REPLACE }];
    let counts = DrawCounts { count: 6, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
    let stats = draw_flat(&state, counts, &mut targets, None, &mut [], &mut images).expect("draws");
    assert_eq!(stats.fragments, u64::from(W * W));
    for y in 0..W {
        for x in 0..W {
            assert_eq!(texel(&colour, x, y), texel_colour(x / 4, y / 4), "({x}, {y})");
        }
    }
    assert!(lods.iter().all(|&l| (l - -2.0).abs() < 1e-5), "{:?}", &lods[..4]);
}

/// An indexed draw reads its vertices through UINT16 indices (with a vertex offset); the colour
/// comes from a uniform buffer the fragment shader reads, through the shader's memory requests.
#[test]
fn indexed_draws_and_uniform_buffers() {
    let src = r#"
struct U { colour: vec4<f32> }
@group(0) @binding(0) var<uniform> u: U;
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) c: vec4<f32>) -> @builtin(position) vec4<f32> { return vec4<f32>(p, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return u.colour; }
"#;
    let module = Module::from_wgsl(src, "indexed.wgsl").expect("compiles");
    let (vs, fs) = (GraphicsShader::new(&module, "vs").unwrap(), GraphicsShader::new(&module, "fs").unwrap());
    // One unused vertex first (the vertex offset skips it), then the four corners.
    let mut bytes = Vec::new();
    for (x, y) in [(9.0, 9.0), (-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
        for v in [x, y, 0.5, 0.0, 0.0, 0.0, 0.0] {
            bytes.extend(f32::to_le_bytes(v));
        }
    }
    let indices: Vec<u8> = [0u16, 1, 2, 2, 1, 3].iter().flat_map(|i| i.to_le_bytes()).collect();
    let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &bytes }];
    let inputs = input_state();
    let state = DrawState {
        vertex: &vs,
        fragment: Some(&fs),
        vertex_input: &inputs,
        vertex_buffers: &buffers,
        index_buffer: Some((&indices, ff::IndexType::Uint16)),
        topology: ff::PrimitiveTopology::TriangleList,
        raster: ff::RasterState::default(),
        viewport: ff::Viewport::full(W, W),
        scissor: Some(ff::Rect2D { x: 4, y: 0, width: 8, height: 16 }),
        push_constants: &[],
        blend_constants: [0.0; 4],
        subgroup_size: 8,
    };
    let uniform: Vec<u8> = [0.0f32, 1.0, 0.0, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut bindings = [sim_shader::FlatBinding::new(0, 0, uniform)];
    let mut colour = vec![0u8; (W * W * 4) as usize];
    let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [W, W], texels: &mut colour, blend: BlendState::REPLACE }];
    let counts = DrawCounts { count: 6, instance_count: 1, first: 0, vertex_offset: 1, first_instance: 0 };
    let stats = draw_flat(&state, counts, &mut targets, None, &mut bindings, &mut FlatImages::default()).expect("draws");
    // The scissor keeps columns 4..12.
    assert_eq!(stats.fragments, 8 * u64::from(W));
    for y in 0..W {
        for x in 0..W {
            assert_eq!(texel(&colour, x, y), if (4..12).contains(&x) { [0, 255, 0, 255] } else { [0, 0, 0, 0] }, "({x}, {y})");
        }
    }
    // An index past the buffer's end is a located error, not a panic.
    let short = &indices[..10];
    let state = DrawState { index_buffer: Some((short, ff::IndexType::Uint16)), ..state };
    let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [W, W], texels: &mut colour, blend: BlendState::REPLACE }];
    let err = draw_flat(&state, counts, &mut targets, None, &mut bindings, &mut FlatImages::default()).expect_err("out of range");
    assert!(err.to_string().contains("vertex fetch"), "{err}");
}
