//! A small scene through the functional draw: a textured floor, two interpenetrating triangles
//! sorted by the depth test, and a translucent triangle blended over them, on a 128x128
//! framebuffer. The test checks pixels whose answer is known and writes the picture to
//! `target/functional-scene.png` for a person to look at.

use sim_core::engine::draw::{ColorTarget, DepthTarget, DrawCounts, DrawState, draw_flat};
use sim_core::fixed_function as ff;
use sim_rop::Format;
use sim_rop::fragment::{BlendFactor, BlendOp, BlendState, CompareOp};
use sim_shader::{FlatImages, GraphicsShader, Module};

const SIDE: u32 = 128;

const SHADERS: &str = r#"
struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> V {
    var v: V;
    v.p = p;
    v.c = c;
    return v;
}
@fragment fn colour(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return c; }

@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment fn textured(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return textureSample(t, s, c.xy); }
"#;

/// One vertex: clip-space position (x, y, z, w) and a colour (or uv in the first two).
type Vertex = ([f32; 4], [f32; 4]);

fn bytes(vertices: &[Vertex]) -> Vec<u8> {
    vertices.iter().flat_map(|(p, c)| p.iter().chain(c.iter()).flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).collect()
}

#[test]
fn a_textured_depth_tested_blended_scene() {
    let module = Module::from_wgsl(SHADERS, "scene.wgsl").expect("compiles");
    let vs = GraphicsShader::new(&module, "vs").unwrap();
    let (flat, textured) = (GraphicsShader::new(&module, "colour").unwrap(), GraphicsShader::new(&module, "textured").unwrap());
    let inputs = ff::VertexInputState::new(
        vec![ff::VertexBinding { binding: 0, stride: 32, input_rate: ff::VertexInputRate::Vertex }],
        vec![
            ff::VertexAttribute { location: 0, binding: 0, format: Format::R32G32B32A32_SFLOAT, offset: 0 },
            ff::VertexAttribute { location: 1, binding: 0, format: Format::R32G32B32A32_SFLOAT, offset: 16 },
        ],
    )
    .unwrap();
    let mut colour = [20u8, 20, 40, 255].repeat((SIDE * SIDE) as usize);
    let mut depth = 1f32.to_le_bytes().repeat((SIDE * SIDE) as usize);
    let draw = |vertices: &[Vertex], fs: &GraphicsShader, blend: BlendState, images: &mut FlatImages<'_>, colour: &mut [u8], depth: &mut [u8]| {
        let data = bytes(vertices);
        let buffers = [ff::BoundVertexBuffer { binding: 0, bytes: &data }];
        let state = DrawState {
            vertex: &vs,
            fragment: Some(fs),
            vertex_input: &inputs,
            vertex_buffers: &buffers,
            index_buffer: None,
            topology: ff::PrimitiveTopology::TriangleList,
            raster: ff::RasterState::default(),
            viewport: ff::Viewport::full(SIDE, SIDE),
            scissor: None,
            push_constants: &[],
            blend_constants: [0.0; 4],
            subgroup_size: 32,
        };
        let mut targets = [ColorTarget { format: Format::R8G8B8A8_UNORM, extent: [SIDE, SIDE], texels: colour, blend }];
        let mut d = DepthTarget { format: Format::D32_SFLOAT, extent: [SIDE, SIDE], texels: depth, test: true, write: blend == BlendState::REPLACE, compare: CompareOp::Less };
        let counts = DrawCounts { count: vertices.len() as u32, instance_count: 1, first: 0, vertex_offset: 0, first_instance: 0 };
        draw_flat(&state, counts, &mut targets, Some(&mut d), &mut [], images).expect("draws")
    };
    // The floor: a checkerboard of 8x8 texels, receding (w grows towards the top), at the back.
    let checker = |i: u32, j: u32| if (i + j).is_multiple_of(2) { [230u8, 230, 230, 255] } else { [60, 90, 160, 255] };
    let sampler = sim_rop::Sampler { mag_filter: sim_rop::Filter::Nearest, min_filter: sim_rop::Filter::Nearest, ..sim_rop::Sampler::default() };
    let mut handler = |req: &sim_shader::ImageRequest| -> Result<Vec<[u32; 4]>, sim_shader::ShaderError> {
        Ok(req
            .lanes
            .iter()
            .map(|l| {
                let fp = sampler.footprint(2, [8, 8, 1], 1, l.coords, l.lod);
                let texels: Vec<sim_rop::Texel> = fp.taps.iter().map(|t| Format::R8G8B8A8_UNORM.decode(sim_rop::Aspect::Color, &checker(t.texel[0], t.texel[1]))).collect();
                sim_rop::filter(&fp, &texels, [0; 4])
            })
            .collect())
    };
    let shapes = [sim_shader::ImageShape { extent: [8, 8, 1], levels: 1, layers: 1 }, sim_shader::ImageShape::default()];
    let (near_w, far_w) = (1.0f32, 3.0f32);
    let floor = |x: f32, y: f32, w: f32, u: f32, v: f32| ([x * w, y * w, 0.9 * w, w], [u * 4.0, v * 4.0, 0.0, 0.0]);
    let floor = [
        floor(-1.0, 1.0, near_w, 0.0, 1.0),
        floor(1.0, 1.0, near_w, 1.0, 1.0),
        floor(-1.0, 0.0, far_w, 0.0, 0.0),
        floor(-1.0, 0.0, far_w, 0.0, 0.0),
        floor(1.0, 1.0, near_w, 1.0, 1.0),
        floor(1.0, 0.0, far_w, 1.0, 0.0),
    ];
    let mut images = FlatImages { shapes: &shapes, handler: Some(&mut handler) };
    let s = draw(&floor, &textured, BlendState::REPLACE, &mut images, &mut colour, &mut depth);
    assert!(s.fragments > 0);
    // Two triangles crossing in depth: red leans back to the right, green to the left.
    let red = [1.0, 0.2, 0.2, 1.0];
    let green = [0.2, 0.9, 0.3, 1.0];
    let v = |x: f32, y: f32, z: f32, c: [f32; 4]| ([x, y, z, 1.0], c);
    let pair = [v(-0.8, -0.8, 0.2, red), v(-0.8, 0.6, 0.2, red), v(0.8, -0.1, 0.8, red), v(0.8, -0.8, 0.2, green), v(-0.8, -0.1, 0.8, green), v(0.8, 0.6, 0.2, green)];
    draw(&pair, &flat, BlendState::REPLACE, &mut FlatImages::default(), &mut colour, &mut depth);
    // A translucent blue triangle over everything (depth tested, not written).
    let alpha = BlendState { enable: true, src_color: BlendFactor::SrcAlpha, dst_color: BlendFactor::OneMinusSrcAlpha, color_op: BlendOp::Add, src_alpha: BlendFactor::One, dst_alpha: BlendFactor::OneMinusSrcAlpha, alpha_op: BlendOp::Add, write_mask: 0xf };
    let blue = [0.1, 0.3, 1.0, 0.5];
    let glass = [v(-0.2, -0.95, 0.05, blue), v(-0.95, 0.3, 0.05, blue), v(0.4, 0.3, 0.05, blue)];
    draw(&glass, &flat, alpha, &mut FlatImages::default(), &mut colour, &mut depth);

    let px = |x: u32, y: u32| {
        let at = ((y * SIDE + x) * 4) as usize;
        [colour[at], colour[at + 1], colour[at + 2]]
    };
    // Where the triangles cross: on the left red is nearer (z 0.2 against green's 0.8 there),
    // on the right green is; the glass is over neither at these pixels.
    assert_eq!(px(20, 40), [255, 51, 51], "red in front on the left");
    assert_eq!(px(108, 40), [51, 230, 77], "green in front on the right");
    // Under the glass, red blended half and half with blue: (1.0 + 0.1) / 2, (0.2 + 0.3) / 2, (0.2 + 1.0) / 2.
    assert_eq!(px(30, 60), [140, 64, 153], "the glass over red");
    // The floor's nearest row: the checkerboard's two colours alternate along it.
    let row: Vec<[u8; 3]> = (0..SIDE).map(|x| px(x, SIDE - 1)).collect();
    assert!(row.contains(&[230, 230, 230]) && row.contains(&[60, 90, 160]), "{:?}", &row[..8]);
    // The background stays above the floor's horizon at the top corners.
    assert_eq!(px(1, 1), [20, 20, 40]);

    // The picture, for a person: RGB, enlarged 4x.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/functional-scene.png");
    let scale = 4u32;
    let mut rgb = Vec::with_capacity((SIDE * SIDE * scale * scale * 3) as usize);
    for y in 0..SIDE * scale {
        for x in 0..SIDE * scale {
            rgb.extend(px(x / scale, y / scale));
        }
    }
    let file = std::fs::File::create(&path).expect("target/ is writable");
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), SIDE * scale, SIDE * scale);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().unwrap().write_image_data(&rgb).unwrap();
}
