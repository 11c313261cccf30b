//! One draw executed in order on flat memory: the functional model of the graphics pipeline,
//! which the reference run will use for draws (the timed units will share its fixed-function
//! stages and shaders, and add time, order and memory paths).
//!
//! # Design
//! [`draw_flat`] runs a draw the way Vulkan defines its result, one primitive after another:
//!
//! ```text
//!  for each instance:
//!    vertices  fixed_function::fetch (attributes from the bound vertex buffers, or indices)
//!              -> vertex waves (sim-shader, `subgroup_size` lanes a wave)
//!              -> clip-space positions and the varyings the fragment shader reads
//!    for each triangle (fixed_function::assembly, in the draw's order):
//!      clip (fixed_function::clip) -> viewport, snap, cull, edges (setup) -> 2x2 quads (scan)
//!      -> fragment waves (quads of a triangle, `subgroup_size / 4` a wave; uncovered pixels
//!         of a quad run as helpers) -> depth test and write, blend and colour write masks
//!         (sim_rop::fragment) into the attachments, in the order of the quads
//! ```
//!
//! Depth is tested after the fragment shader (late): with no side effects in the shader that
//! is Vulkan's result whatever a device does early, and a discarded fragment writes nothing.
//! The attachments are plain row-major texel arrays here ([`ColorTarget`], [`DepthTarget`]);
//! where they live in an image's memory is the caller's. Shader buffer accesses go to
//! [`sim_shader::FlatBinding`]s and image accesses to the caller's handler, as for a flat
//! dispatch. Lines and points are assembled but not rasterized yet: such a draw is refused.
//! Every shaded vertex of an instance is kept until its triangles are drawn (a vertex cache as
//! large as the draw), so whoever hands a draw from a trace caps its vertex count first.

use sim_rop::fragment::{BlendState, CompareOp};
use sim_rop::{Aspect, Format};
use sim_shader::{FlatBinding, FlatImages, GraphicsShader, ImageRequest, IoBinding, IoScalar, ShaderError, Step, Workgroup, WorkgroupConfig};

use crate::fixed_function as ff;

/// A colour attachment: its texels row-major, `extent[0]` a row, tightly packed.
#[derive(Debug)]
pub struct ColorTarget<'a> {
    /// Its format (a colour format).
    pub format: Format,
    /// Width and height.
    pub extent: [u32; 2],
    /// The texel bytes.
    pub texels: &'a mut [u8],
    /// Blending and the colour write mask.
    pub blend: BlendState,
}

/// The depth attachment (a D32_SFLOAT plane, or any depth plane of 4 bytes a texel), row-major.
#[derive(Debug)]
pub struct DepthTarget<'a> {
    /// Its format.
    pub format: Format,
    /// Width and height.
    pub extent: [u32; 2],
    /// The depth plane's bytes.
    pub texels: &'a mut [u8],
    /// Whether the depth test is on.
    pub test: bool,
    /// Whether a passing fragment writes its depth.
    pub write: bool,
    /// The comparison (the fragment's depth as reference, the stored one as the other side).
    pub compare: CompareOp,
}

/// Everything a draw reads besides its counts.
pub struct DrawState<'s, 'b> {
    /// The vertex shader.
    pub vertex: &'s GraphicsShader,
    /// The fragment shader (none: depth only).
    pub fragment: Option<&'s GraphicsShader>,
    /// Vertex bindings and attributes.
    pub vertex_input: &'s ff::VertexInputState,
    /// The bound vertex buffers (their bytes from the bound offset).
    pub vertex_buffers: &'s [ff::BoundVertexBuffer<'b>],
    /// The bound index buffer's bytes from its offset, and the index type (indexed draws).
    pub index_buffer: Option<(&'b [u8], ff::IndexType)>,
    /// Triangle lists, strips and fans.
    pub topology: ff::PrimitiveTopology,
    /// Culling and front face.
    pub raster: ff::RasterState,
    /// The viewport.
    pub viewport: ff::Viewport,
    /// The scissor (none: the whole framebuffer).
    pub scissor: Option<ff::Rect2D>,
    /// Push-constant bytes.
    pub push_constants: &'s [u8],
    /// Blend constants.
    pub blend_constants: [f32; 4],
    /// Lanes a wave (a multiple of 4, up to 64).
    pub subgroup_size: u32,
}

/// A draw's counts (`vkCmdDraw`, or `vkCmdDrawIndexed` when the state has an index buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawCounts {
    /// Vertices (indices, for an indexed draw).
    pub count: u32,
    /// Instances.
    pub instance_count: u32,
    /// First vertex (first index, for an indexed draw).
    pub first: u32,
    /// Added to each index (indexed draws).
    pub vertex_offset: i32,
    /// First instance.
    pub first_instance: u32,
}

/// What a draw did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Vertex shader invocations.
    pub vertices: u64,
    /// Triangles assembled.
    pub triangles: u64,
    /// Triangles clipping, culling or a zero area removed.
    pub culled: u64,
    /// Fragment shader invocations of covered pixels (helpers not counted).
    pub fragments: u64,
    /// Fragments that passed the depth test and were written.
    pub written: u64,
}

/// A draw that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    /// The shaders do not fit the draw (their interfaces, or an input no stage gives).
    #[error("{0}")]
    Pipeline(String),
    /// A vertex fetch out of range, or an index that cannot be read.
    #[error("vertex fetch: {0}")]
    Fetch(#[from] ff::FetchError),
    /// A shader stopped with an error.
    #[error("shader: {0}")]
    Shader(#[from] ShaderError),
    /// The viewport, scissor or framebuffer breaks Vulkan's rules.
    #[error("rasterizer: {0}")]
    Raster(#[from] ff::RasterError),
    /// Clipping refused the varyings.
    #[error("clipping: {0}")]
    Clip(#[from] ff::ClipError),
    /// Lines and points are not rasterized yet.
    #[error("{0:?} is not supported yet by the rasterizer (triangles only)")]
    Topology(ff::PrimitiveTopology),
    /// Memory refused an access (the run's memory, not the draw's state).
    #[error("{0}")]
    Memory(String),
}

/// Which wave a shader request comes from: what names its reads the same way in every run of
/// the same draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaveId {
    /// A fragment wave (else a vertex wave).
    pub fragment: bool,
    /// The instance.
    pub instance: u32,
    /// A vertex wave's index within the instance; a fragment wave's triangle, counted over the
    /// instance's triangles (clipped pieces of one triangle share it).
    pub index: u32,
    /// A fragment wave's place among its triangle's waves (pieces of a clipped triangle count
    /// on); 0 for a vertex wave.
    pub batch: u32,
}

/// An attachment of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetId {
    /// The colour attachment at this fragment output location.
    Color(usize),
    /// The depth attachment.
    Depth,
}

/// Memory as a draw's shaders and per-fragment operations reach it: the one thing the
/// reference run and the timed units do differently. [`draw_flat`] uses flat bindings and
/// attachments already filled.
pub trait DrawMemory {
    /// Performs a shader buffer request of `wave` (subgroup `sg`), leaving a load's bytes in
    /// `results`.
    fn memory(&mut self, wave: WaveId, sg: usize, req: &sim_shader::MemRequest, results: &mut Vec<u8>) -> Result<(), DrawError>;
    /// Performs a shader image request, leaving each lane's texel words in `texels`.
    fn image(&mut self, wave: WaveId, sg: usize, req: &ImageRequest, texels: &mut Vec<[u32; 4]>) -> Result<(), DrawError>;
    /// The draw is about to touch 8x8 tile `tile` of `target` for the first time: fill its
    /// texels in `texels` (the whole attachment, row-major, `texel_bytes` a texel, `width` a
    /// row). Nothing to do where the attachment is already filled.
    fn tile(&mut self, target: TargetId, tile: [u32; 2], texels: &mut [u8], width: u32, texel_bytes: usize) -> Result<(), DrawError> {
        let _ = (target, tile, texels, width, texel_bytes);
        Ok(())
    }
    /// The draw wrote texel `(x, y)` of `target`.
    fn wrote(&mut self, target: TargetId, x: u32, y: u32) {
        let _ = (target, x, y);
    }
}

/// [`DrawMemory`] on flat bindings, as [`draw_flat`] has it.
struct FlatMemory<'m, 'i> {
    bindings: &'m mut [FlatBinding],
    images: &'m mut FlatImages<'i>,
    /// Per stage (vertex, fragment): each shader binding's index into `bindings`.
    maps: [Vec<usize>; 2],
}

impl DrawMemory for FlatMemory<'_, '_> {
    fn memory(&mut self, wave: WaveId, _sg: usize, req: &sim_shader::MemRequest, results: &mut Vec<u8>) -> Result<(), DrawError> {
        sim_shader::perform(req, self.bindings, &self.maps[usize::from(wave.fragment)], results)?;
        Ok(())
    }

    fn image(&mut self, _wave: WaveId, _sg: usize, req: &ImageRequest, texels: &mut Vec<[u32; 4]>) -> Result<(), DrawError> {
        let handler = self.images.handler.as_mut().ok_or_else(|| DrawError::Pipeline("an image access with no image handler".into()))?;
        *texels = handler(req)?;
        Ok(())
    }
}

/// Each of `shader`'s buffer bindings as an index into `bindings` (images and samplers go to
/// the image handler: no buffer for them).
fn binding_map(shader: &GraphicsShader, bindings: &[FlatBinding]) -> Result<Vec<usize>, DrawError> {
    shader
        .bindings()
        .iter()
        .map(|i| match i.kind {
            sim_shader::BindingKind::StorageBuffer { .. } | sim_shader::BindingKind::UniformBuffer => {
                bindings.iter().position(|b| b.group == i.group && b.binding == i.binding).ok_or_else(|| DrawError::Pipeline(format!("no buffer bound at set {} binding {}", i.group, i.binding)))
            }
            _ => Ok(usize::MAX),
        })
        .collect()
}

/// A shaded vertex: its clip-space position and the varyings the fragment shader reads.
#[derive(Clone, Debug)]
struct Shaded {
    position: [f32; 4],
    varyings: Vec<f32>,
}

/// Where a fragment input's words come from.
#[derive(Clone, Copy, Debug)]
enum FragmentInput {
    /// Components `[start, start + n)` of the varyings.
    Varying { start: usize, n: usize, word: usize },
    /// `gl_FragCoord`.
    Position { word: usize },
    /// `gl_FrontFacing`.
    FrontFacing { word: usize },
}

/// Runs `counts` of a draw with `state` into `colors` (one per fragment output location) and
/// `depth`; shader buffer accesses go to `bindings`, image accesses to `images`.
pub fn draw_flat(state: &DrawState<'_, '_>, counts: DrawCounts, colors: &mut [ColorTarget<'_>], depth: Option<&mut DepthTarget<'_>>, bindings: &mut [FlatBinding], images: &mut FlatImages<'_>) -> Result<DrawStats, DrawError> {
    let maps = [binding_map(state.vertex, bindings)?, state.fragment.map(|fs| binding_map(fs, bindings)).transpose()?.unwrap_or_default()];
    let sizes = |shader: &GraphicsShader| -> Vec<u64> { shader.bindings().iter().map(|i| bindings.iter().find(|b| b.group == i.group && b.binding == i.binding).map_or(0, |b| b.bytes.len() as u64)).collect() };
    let binding_sizes = [sizes(state.vertex), state.fragment.map(sizes).unwrap_or_default()];
    let shapes = [images.shapes.to_vec(), images.shapes.to_vec()];
    let mut mem = FlatMemory { bindings, images, maps };
    draw_with(state, counts, colors, depth, &binding_sizes, &shapes, &mut mem)
}

/// Runs `counts` of a draw with `state` into `colors` and `depth`, reaching memory through
/// `mem` ([`DrawMemory`]): `binding_sizes` are the bytes bound at each of the vertex and the
/// fragment shader's bindings, `shapes` the images' shapes as each shader sees them (by its own
/// binding index).
pub fn draw_with(state: &DrawState<'_, '_>, counts: DrawCounts, colors: &mut [ColorTarget<'_>], mut depth: Option<&mut DepthTarget<'_>>, binding_sizes: &[Vec<u64>; 2], shapes: &[Vec<sim_shader::ImageShape>; 2], mem: &mut dyn DrawMemory) -> Result<DrawStats, DrawError> {
    if !state.topology.is_triangles() {
        return Err(DrawError::Topology(state.topology));
    }
    if let Some(fs) = state.fragment {
        state.vertex.check_interface(fs).map_err(DrawError::Pipeline)?;
    }
    if state.subgroup_size == 0 || state.subgroup_size > 64 || !state.subgroup_size.is_multiple_of(4) {
        return Err(DrawError::Pipeline(format!("subgroup size {} is not a multiple of 4 in 4..=64", state.subgroup_size)));
    }
    state.viewport.validate()?;
    let extent = colors.iter().find(|c| !c.texels.is_empty()).map(|c| c.extent).or_else(|| depth.as_ref().map(|d| d.extent)).unwrap_or([1, 1]);
    let region = ff::DrawRegion::new(extent[0], extent[1], state.scissor)?;
    // The varyings: each fragment input location's components, in the fragment shader's order.
    let vs_outputs = state.vertex.outputs();
    let position_word = vs_outputs.iter().find(|o| o.binding == IoBinding::Position).map(|o| o.word as usize).ok_or_else(|| DrawError::Pipeline("the vertex shader writes no position".into()))?;
    let mut gather: Vec<(usize, usize)> = Vec::new(); // (vertex output word, components)
    let mut modes: Vec<ff::Interpolation> = Vec::new();
    let mut fragment_inputs: Vec<FragmentInput> = Vec::new();
    if let Some(fs) = state.fragment {
        for input in fs.inputs() {
            match input.binding {
                IoBinding::Location(l) => {
                    let out = vs_outputs.iter().find(|o| o.binding == IoBinding::Location(l)).ok_or_else(|| DrawError::Pipeline(format!("fragment input location {l} is not written")))?;
                    let start = modes.len();
                    gather.push((out.word as usize, input.components as usize));
                    let mode = match input.interpolation {
                        sim_shader::Interpolation::Perspective => ff::Interpolation::Smooth,
                        sim_shader::Interpolation::Linear => ff::Interpolation::NoPerspective,
                        sim_shader::Interpolation::Flat => ff::Interpolation::Flat,
                    };
                    modes.extend(std::iter::repeat_n(mode, input.components as usize));
                    fragment_inputs.push(FragmentInput::Varying { start, n: input.components as usize, word: input.word as usize });
                }
                IoBinding::Position => fragment_inputs.push(FragmentInput::Position { word: input.word as usize }),
                IoBinding::FrontFacing => fragment_inputs.push(FragmentInput::FrontFacing { word: input.word as usize }),
                other => return Err(DrawError::Pipeline(format!("fragment input {other:?} is not supported yet"))),
            }
        }
    }
    let mut stats = DrawStats::default();
    let (vs_sizes, fs_sizes) = (&binding_sizes[0], &binding_sizes[1]);
    // Per attachment: which 8x8 tiles the draw has touched (filled through `mem`).
    let mut touched = Touched::new(colors, depth.as_deref());
    for instance in 0..counts.instance_count {
        let instance_index = counts.first_instance.saturating_add(instance);
        // Vertex shading: every place of the draw, in waves.
        let mut shaded: Vec<Shaded> = Vec::with_capacity((counts.count as usize).min(1 << 20));
        let step = state.subgroup_size;
        for (wave_index, first) in (0..counts.count).step_by(step as usize).enumerate() {
            let chunk = first..first.saturating_add(step).min(counts.count);
            let lanes = chunk.len();
            let mut inputs = Vec::with_capacity(lanes * state.vertex.input_words() as usize);
            for place in chunk {
                let vertex_index = match state.index_buffer {
                    Some((bytes, ty)) => {
                        let index = ff::fetch_index(ty, bytes, u64::from(counts.first) + u64::from(place))?;
                        ff::fetch::indexed_vertex_index(index, counts.vertex_offset)?
                    }
                    None => ff::fetch::vertex_index(counts.first, place)?,
                };
                let attributes = ff::fetch_vertex(state.vertex_input, state.vertex_buffers, vertex_index, instance_index)?;
                let mut words = vec![0u32; state.vertex.input_words() as usize];
                for input in state.vertex.inputs() {
                    let w = input.word as usize;
                    match input.binding {
                        IoBinding::Location(l) => {
                            let a = attributes.iter().find(|a| a.location == l).ok_or_else(|| DrawError::Pipeline(format!("vertex input location {l} has no attribute (VUID-VkGraphicsPipelineCreateInfo-Input-07904)")))?;
                            words[w..w + input.components as usize].copy_from_slice(&a.words[..input.components as usize]);
                        }
                        IoBinding::VertexIndex => words[w] = vertex_index,
                        IoBinding::InstanceIndex => words[w] = instance_index,
                        other => return Err(DrawError::Pipeline(format!("vertex input {other:?} is not supported"))),
                    }
                }
                inputs.extend(words);
            }
            let cfg = WorkgroupConfig {
                workgroup_id: [0; 3],
                num_workgroups: [1; 3],
                subgroup_size: state.subgroup_size,
                push_constants: state.push_constants,
                binding_sizes: vs_sizes,
                image_shapes: &shapes[0],
                max_instructions: sim_shader::DEFAULT_MAX_INSTRUCTIONS,
            };
            let mut wave = state.vertex.wave(&cfg, lanes, &inputs, &[])?;
            run_wave(&mut wave, WaveId { fragment: false, instance: instance_index, index: wave_index as u32, batch: 0 }, mem)?;
            let mut out = Vec::new();
            for k in 0..lanes {
                wave.outputs(k, &mut out);
                let position = [0, 1, 2, 3].map(|c| f32::from_bits(out.get(position_word + c).copied().unwrap_or(0)));
                let mut varyings = Vec::with_capacity(modes.len());
                for &(word, n) in &gather {
                    varyings.extend((0..n).map(|c| f32::from_bits(out.get(word + c).copied().unwrap_or(0))));
                }
                shaded.push(Shaded { position, varyings });
            }
            stats.vertices += lanes as u64;
        }
        // Triangles, in order.
        for (triangle, primitive) in ff::assemble(state.topology, counts.count).enumerate() {
            let ff::Primitive::Triangle(p) = primitive else { continue };
            stats.triangles += 1;
            let mut batch = 0u32;
            let tri = p.map(|k| ff::ClipVertex { position: shaded[k as usize].position, varyings: shaded[k as usize].varyings.clone() });
            let pieces = match ff::clip_triangle(&tri, &modes)? {
                ff::Clipped::Inside => vec![tri],
                ff::Clipped::Outside => Vec::new(),
                ff::Clipped::Triangles(t) => t,
            };
            if pieces.is_empty() {
                stats.culled += 1;
            }
            for piece in pieces {
                let window = [0, 1, 2].map(|k| state.viewport.to_window(piece[k].position));
                let setup = match ff::setup_triangle(window, &state.raster) {
                    Ok(s) => s,
                    Err(_) => {
                        stats.culled += 1;
                        continue;
                    }
                };
                let varyings = [piece[0].varyings.as_slice(), piece[1].varyings.as_slice(), piece[2].varyings.as_slice()];
                let wave = WaveId { fragment: true, instance: instance_index, index: triangle as u32, batch };
                let tri = Triangle { setup: &setup, varyings, modes: &modes, inputs: &fragment_inputs, region: &region };
                batch += shade_triangle(state, &tri, wave, colors, depth.as_deref_mut(), &mut touched, fs_sizes, &shapes[1], mem, &mut stats)?;
            }
        }
    }
    Ok(stats)
}

/// Steps every subgroup of `wave` to the end, performing its memory requests through `mem`.
fn run_wave(wave: &mut Workgroup, id: WaveId, mem: &mut dyn DrawMemory) -> Result<(), DrawError> {
    let mut results = Vec::new();
    let mut texels = Vec::new();
    for sg in 0..wave.num_subgroups() {
        loop {
            match wave.step(sg)? {
                Step::Done => break,
                Step::Memory(req) => {
                    let req = req.clone();
                    mem.memory(id, sg, &req, &mut results)?;
                    wave.complete(sg, &results)?;
                }
                Step::Image(req) => {
                    let req: ImageRequest = req.clone();
                    mem.image(id, sg, &req, &mut texels)?;
                    wave.complete_image(sg, &texels)?;
                }
                Step::Barrier { .. } | Step::Blocked => {}
            }
        }
    }
    Ok(())
}

/// Per attachment, the 8x8 tiles a draw has touched: a tile is filled through
/// [`DrawMemory::tile`] before its first texel is read.
struct Touched {
    colors: Vec<(u32, Vec<bool>)>,
    depth: (u32, Vec<bool>),
}

impl Touched {
    fn new(colors: &[ColorTarget<'_>], depth: Option<&DepthTarget<'_>>) -> Touched {
        let grid = |e: [u32; 2]| {
            let w = e[0].div_ceil(sim_rop::layout::TILE_DIM);
            (w, vec![false; w as usize * e[1].div_ceil(sim_rop::layout::TILE_DIM) as usize])
        };
        Touched { colors: colors.iter().map(|c| grid(c.extent)).collect(), depth: depth.map_or((0, Vec::new()), |d| grid(d.extent)) }
    }

    /// Fills the tile of `(x, y)` of `target` through `mem` the first time it is touched.
    #[allow(clippy::too_many_arguments)]
    fn touch(&mut self, target: TargetId, x: u32, y: u32, texels: &mut [u8], texel_bytes: usize, width: u32, mem: &mut dyn DrawMemory) -> Result<(), DrawError> {
        let (w, seen) = match target {
            TargetId::Color(k) => &mut self.colors[k],
            TargetId::Depth => &mut self.depth,
        };
        let (tx, ty) = (x / sim_rop::layout::TILE_DIM, y / sim_rop::layout::TILE_DIM);
        let at = (ty * *w + tx) as usize;
        if seen.get(at) == Some(&false) {
            seen[at] = true;
            mem.tile(target, [tx, ty], texels, width, texel_bytes)?;
        }
        Ok(())
    }
}

/// A clipped, set-up triangle and what its fragments are shaded from.
struct Triangle<'t> {
    setup: &'t ff::TriangleSetup,
    varyings: [&'t [f32]; 3],
    modes: &'t [ff::Interpolation],
    inputs: &'t [FragmentInput],
    region: &'t ff::DrawRegion,
}

/// Rasterizes one (clipped, set-up) triangle and shades its quads into the attachments; returns
/// the fragment waves it ran (their ids go on from `wave.batch`).
#[allow(clippy::too_many_arguments)]
fn shade_triangle(
    state: &DrawState<'_, '_>,
    tri: &Triangle<'_>,
    wave_id: WaveId,
    colors: &mut [ColorTarget<'_>],
    mut depth: Option<&mut DepthTarget<'_>>,
    touched: &mut Touched,
    binding_sizes: &[u64],
    shapes: &[sim_shader::ImageShape],
    mem: &mut dyn DrawMemory,
    stats: &mut DrawStats,
) -> Result<u32, DrawError> {
    let Triangle { setup, varyings, modes, inputs, region } = *tri;
    let mut waves = 0u32;
    let quads: Vec<ff::Quad> = ff::scan_triangle(setup, region).collect();
    let per_wave = (state.subgroup_size / 4) as usize;
    let front = ff::interpolate::front_facing(setup);
    let mut values = vec![0f32; modes.len()];
    let input_words = state.fragment.map_or(0, |fs| fs.input_words() as usize);
    let fs_outputs = state.fragment.map(|fs| fs.outputs()).unwrap_or_default();
    let frag_depth = fs_outputs.iter().find(|o| o.binding == IoBinding::FragDepth).map(|o| o.word as usize);
    // Per lane: pixel, coverage, interpolated depth.
    let mut lanes: Vec<(u32, u32, bool, f32)> = Vec::new();
    let (mut words, mut helpers): (Vec<u32>, Vec<bool>) = (Vec::new(), Vec::new());
    let (mut outputs, mut out): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let mut shaded: Vec<Option<usize>> = Vec::new();
    for batch in quads.chunks(per_wave.max(1)) {
        // Every lane's barycentrics, depth and inputs.
        lanes.clear();
        words.clear();
        words.resize(batch.len() * 4 * input_words, 0);
        for quad in batch {
            for lane in 0..4 {
                let (px, py) = quad.pixel(lane);
                let b = ff::pixel_barycentrics(setup, px, py);
                let z = ff::interpolate::depth(setup, &b);
                let at = lanes.len() * input_words;
                lanes.push((px, py, quad.is_covered(lane), z));
                let w = &mut words[at..at + input_words];
                ff::interpolate(&b, varyings, modes, &mut values);
                for input in inputs {
                    match *input {
                        FragmentInput::Varying { start, n, word } => {
                            for c in 0..n {
                                w[word + c] = values[start + c].to_bits();
                            }
                        }
                        FragmentInput::Position { word } => {
                            let fc = ff::frag_coord(setup, &b, px, py);
                            for c in 0..4 {
                                w[word + c] = fc[c].to_bits();
                            }
                        }
                        FragmentInput::FrontFacing { word } => w[word] = u32::from(front),
                    }
                }
            }
        }
        // The fragment shader (none: each covered pixel keeps its interpolated depth): each
        // lane's outputs at an offset of `outputs`, none for a discarded lane or a helper.
        outputs.clear();
        shaded.clear();
        shaded.resize(lanes.len(), Some(0));
        if let Some(fs) = state.fragment {
            helpers.clear();
            helpers.extend(lanes.iter().map(|l| !l.2));
            let cfg = WorkgroupConfig {
                workgroup_id: [0; 3],
                num_workgroups: [1; 3],
                subgroup_size: state.subgroup_size,
                push_constants: state.push_constants,
                binding_sizes,
                image_shapes: shapes,
                max_instructions: sim_shader::DEFAULT_MAX_INSTRUCTIONS,
            };
            let mut wave = fs.wave(&cfg, lanes.len(), &words, &helpers)?;
            run_wave(&mut wave, WaveId { batch: wave_id.batch + waves, ..wave_id }, mem)?;
            waves += 1;
            for (k, o) in shaded.iter_mut().enumerate() {
                *o = wave.outputs(k, &mut out).then(|| {
                    outputs.extend_from_slice(&out);
                    outputs.len() - out.len()
                });
            }
        }
        // The per-fragment operations, in quad order.
        for (k, &(px, py, covered, z)) in lanes.iter().enumerate() {
            let Some(at) = shaded[k] else { continue };
            if !covered {
                continue;
            }
            let out = &outputs[at..];
            stats.fragments += 1;
            let z = frag_depth.map_or(z, |w| f32::from_bits(out[w]));
            if let Some(d) = depth.as_deref_mut() {
                touched.touch(TargetId::Depth, px, py, d.texels, 4, d.extent[0], mem)?;
                let at = (py as usize * d.extent[0] as usize + px as usize) * 4;
                let stored = d.format.decode(Aspect::Depth, &d.texels[at..at + 4]);
                let stored = match stored {
                    sim_rop::Texel::Float(v) => v[0],
                    _ => 0.0,
                };
                if d.test && !d.compare.test(z, stored) {
                    continue;
                }
                if d.write
                    && let Some(bytes) = d.format.encode(Aspect::Depth, &sim_rop::ClearValue::DepthStencil { depth: z.clamp(0.0, 1.0), stencil: 0 })
                {
                    d.texels[at..at + 4].copy_from_slice(&bytes[..4]);
                    mem.wrote(TargetId::Depth, px, py);
                }
            }
            stats.written += 1;
            for o in &fs_outputs {
                let IoBinding::Location(l) = o.binding else { continue };
                let Some(target) = colors.get_mut(l as usize) else { continue };
                // A location with no attachment (VK_ATTACHMENT_UNUSED) takes no write.
                if target.texels.is_empty() {
                    continue;
                }
                let tb = target.format.plane_bytes(Aspect::Color).unwrap_or(4) as usize;
                touched.touch(TargetId::Color(l as usize), px, py, target.texels, tb, target.extent[0], mem)?;
                let at = (py as usize * target.extent[0] as usize + px as usize) * tb;
                let src: [u32; 4] = std::array::from_fn(|c| if c < o.components as usize { out[o.word as usize + c] } else if c == 3 && o.scalar == IoScalar::Float { 1f32.to_bits() } else { 0 });
                let words = match target.format.decode(Aspect::Color, &target.texels[at..at + tb]) {
                    sim_rop::Texel::Float(dst) => target.blend.blend(src.map(f32::from_bits), dst, state.blend_constants).map(f32::to_bits),
                    // Integer attachments do not blend; the write mask still applies.
                    sim_rop::Texel::Uint(dst) => std::array::from_fn(|c| if target.blend.write_mask & (1 << c) != 0 { src[c] } else { dst[c] }),
                    sim_rop::Texel::Stencil(_) => continue,
                };
                if let Some(bytes) = target.format.encode_words(words) {
                    target.texels[at..at + tb].copy_from_slice(&bytes[..tb]);
                    mem.wrote(TargetId::Color(l as usize), px, py);
                }
            }
        }
    }
    Ok(waves)
}
