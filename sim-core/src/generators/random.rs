//! Random correctly synchronized programs: what `gpusim profile check` runs against a barrier
//! table, and what the engine's property tests run on every built-in profile.
//!
//! # Design
//! A program is a list of [`Op`]s on a few small device buffers and images: fills, updates,
//! copies, four kernels (one reads through the uniform cache, one picks a winner with atomics,
//! one lets an atomic ticket pick which of two buffers each workgroup reads), image clears,
//! copies, blits and sampling, a draw (dynamic rendering into an image, its fragments reading a
//! buffer), writes of
//! neighbouring bytes by a dispatch and a copy at once, a host write beside a dispatch's write
//! of the same lines, and hand-offs to a new submission (on either queue, after a fence, queue
//! or device wait, perhaps waiting on an event the host sets before submitting). [`build`] places exactly the synchronization
//! each op needs against what came before it, per buffer: a read after a write, or a write after
//! a write, gets a barrier whose first scope is the writers' stages and accesses and whose second
//! is the op's; a write after reads gets an execution dependency on the readers' stages; writes
//! of disjoint bytes get nothing (Vulkan's memory locations are bytes). A hand-off starts afresh:
//! the host's wait (a fence signal's availability operation covers every write) and the next
//! submission's visibility operation cover everything before it. [`build_weakened`] drops or
//! narrows some of those barriers, for tests that need hazards.

use crate::engine::rng::Rng;
use crate::api::workload::*;
use crate::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};

/// Words in each buffer.
pub const WORDS: u64 = 1024;
/// Bytes in each buffer.
pub const BYTES: u64 = WORDS * 4;
/// Buffers the ops choose from.
pub const BUFFERS: usize = 4;
/// The counter [`Op::Winner`] uses: one more buffer, zeroed before each use.
const COUNTER: usize = BUFFERS;
/// Images the image ops choose from: 32x32 R8G8B8A8_UNORM, optimal, each [`BYTES`] of texels
/// (a buffer's worth) in a memory object of its own.
pub const IMAGES: usize = 2;
/// Side of each image, texels.
const IMAGE_SIDE: u32 = 32;
/// The colours [`Op::ClearImage`] picks from, as R8G8B8A8_UNORM texels: two that are fast-clear
/// values on the machines that fast-clear, two that are not.
const CLEAR_COLOURS: [[u8; 4]; 4] = [[255, 255, 255, 255], [0, 0, 0, 0], [255, 128, 0, 255], [64, 64, 64, 255]];
/// Tracked resources: the buffers, the counter, then the images.
const fn image_resource(k: usize) -> usize {
    BUFFERS + 1 + k
}
/// Bytes of a line the neighbouring-write ops split: each writer writes one half of every line.
const LINE: u64 = 64;

const ADD: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = src[id.x] * 3u + id.x;
}
"#;

/// The draw's shaders: a triangle over the upper left half of a 32x32 image (its corners from
/// the vertex index, a colour per vertex from a vertex buffer), each fragment half its
/// interpolated colour and half the texel its pixel's word of a storage buffer holds.
const DRAW: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;

struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) colour: vec4<f32>,
}

@vertex
fn vs(@builtin(vertex_index) i: u32, @location(0) colour: vec4<f32>) -> Out {
    let corner = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(-1.0, 1.0));
    return Out(vec4<f32>(corner[i], 0.5, 1.0), colour);
}

@fragment
fn fs(@builtin(position) p: vec4<f32>, @location(0) colour: vec4<f32>) -> @location(0) vec4<f32> {
    return unpack4x8unorm(src[u32(p.y) * 32u + u32(p.x)]) * 0.5 + colour * 0.5;
}
"#;

/// Samples texel `i` of a 32x32 image at its centre (a linear sampler there reads that texel
/// with weight 1, its neighbours with 0) and stores it as the 8-bit channels it decoded from.
const SAMPLE: &str = r#"
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let xy = vec2<f32>(f32(id.x % 32u), f32(id.x / 32u));
    dst[id.x] = pack4x8unorm(textureSampleLevel(src, smp, (xy + vec2<f32>(0.5)) / 32.0, 0.0));
}
"#;

const UNIFORM: &str = r#"
struct U { v: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[id.x] = u.v[id.x % 16u].y + dst[id.x];
}
"#;

/// Workgroups race for a counter; the one that gets 0 sums `src` and writes the sum and its id.
const WINNER: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if li == 0u {
        if atomicAdd(&counter, 1u) == 0u {
            var s = 0u;
            for (var i = 0u; i < 64u; i++) { s += src[i]; }
            dst[0] = s;
            dst[1] = wg.x;
        }
    }
}
"#;

/// Each workgroup takes a ticket; an even ticket reads `a`, an odd one `b`, at the same offsets:
/// which buffer a workgroup reads depends on timing.
const PICK: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;
var<workgroup> ticket: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) id: vec3<u32>) {
    if li == 0u { ticket = atomicAdd(&counter, 1u); }
    let t = workgroupUniformLoad(&ticket);
    if t % 2u == 0u { dst[id.x] = a[id.x] + t; } else { dst[id.x] = b[id.x] + t; }
}
"#;

/// Writes the first half (8 words) of every 64-byte line of `dst`, leaving the other half to
/// another writer.
pub const FIRST_HALVES: &str = r#"
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    dst[(id.x / 8u) * 16u + id.x % 8u] = 0x51000000u + id.x;
}
"#;

/// How the host hands work from one submission to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// vkWaitForFences on the last submission's fence.
    Fence,
    /// vkQueueWaitIdle on its queue.
    QueueIdle,
    /// vkDeviceWaitIdle.
    DeviceIdle,
}

/// One operation of a random program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// vkCmdFillBuffer of the whole buffer.
    Fill {
        /// Buffer index.
        dst: usize,
        /// The pattern.
        value: u32,
    },
    /// vkCmdUpdateBuffer of one word.
    Update {
        /// Buffer index.
        dst: usize,
        /// Word index.
        word: u64,
        /// The value.
        value: u32,
    },
    /// vkCmdCopyBuffer of the whole buffer.
    Copy {
        /// Source buffer index.
        src: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// A dispatch: `dst[i] = src[i] * 3 + i`.
    Add {
        /// Source buffer index.
        src: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// A dispatch reading `src` through the uniform cache: `dst[i] += src[i % 16].y`.
    Uniform {
        /// Source buffer index (a uniform buffer).
        src: usize,
        /// Destination buffer index (read and written).
        dst: usize,
    },
    /// Atomics pick the workgroup that reads `src` and writes `dst`.
    Winner {
        /// Source buffer index.
        src: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// Atomics pick, per workgroup, which of two buffers it reads (at the same offsets) into
    /// `dst`.
    Pick {
        /// The buffer an even ticket reads.
        a: usize,
        /// The buffer an odd ticket reads.
        b: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// A dispatch writes the first half of every 64-byte line of `dst` and a copy the second
    /// half from `src`, with nothing between them: they write different bytes.
    Halves {
        /// The copy's source buffer index.
        src: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// vkCmdClearColorImage of a whole image, in TRANSFER_DST_OPTIMAL.
    ClearImage {
        /// Image index.
        img: usize,
        /// Index into the clear colours.
        colour: usize,
    },
    /// vkCmdCopyBufferToImage of a whole buffer into a whole image, in TRANSFER_DST_OPTIMAL.
    ToImage {
        /// Source buffer index.
        src: usize,
        /// Image index.
        img: usize,
    },
    /// vkCmdCopyImageToBuffer of a whole image into a whole buffer, in TRANSFER_SRC_OPTIMAL.
    FromImage {
        /// Image index.
        img: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// A dispatch samples every texel of an image (SHADER_READ_ONLY_OPTIMAL, through the texture
    /// caches, a linear sampler at texel centres) into a whole buffer.
    SampleImage {
        /// Image index.
        img: usize,
        /// Destination buffer index.
        dst: usize,
    },
    /// vkCmdBlitImage of a whole image onto the other (TRANSFER_SRC_OPTIMAL to
    /// TRANSFER_DST_OPTIMAL), at the same size: every destination texel's centre lands on a
    /// source texel's, so either filter copies texels exactly.
    BlitImage {
        /// Source image index.
        src: usize,
        /// Destination image index (the other one).
        dst: usize,
        /// Mirrored in x (the destination box's corners reversed).
        mirror: bool,
        /// LINEAR rather than NEAREST.
        linear: bool,
    },
    /// Dynamic rendering into a whole image (COLOR_ATTACHMENT_OPTIMAL, cleared, stored): one
    /// triangle over its upper left half, its vertices' colours the first three words of a
    /// buffer (VERTEX_INPUT, VERTEX_ATTRIBUTE_READ), each fragment reading its pixel's word of
    /// another (FRAGMENT_SHADER, SHADER_STORAGE_READ).
    Draw {
        /// The vertex buffer.
        verts: usize,
        /// The buffer the fragments read.
        src: usize,
        /// Image index.
        img: usize,
    },
    /// A dispatch writes the first half of every 64-byte line of a HOST_COHERENT buffer; after
    /// the host waits for it, the host writes the second halves, and the next submission runs.
    HostBeside,
    /// The next op's synchronization goes through one event the whole program reuses:
    /// vkCmdSetEvent2 and vkCmdWaitEvents2 with the barrier's dependency, then vkCmdResetEvent2
    /// after the op; `across`: the set ends a command buffer (a new submission on the same
    /// queue) and the wait starts the next.
    ViaEvent {
        /// Set in one submission, waited in the next.
        across: bool,
    },
    /// Start a new submission on the same queue.
    Split,
    /// Start a new submission on `queue` after a host wait for the last one; `gated`: its first
    /// command waits on an event the host sets after that wait, before the submission.
    Handoff {
        /// The queue (0 or 1).
        queue: usize,
        /// How the host waits.
        wait: Wait,
        /// Waits on an event the host sets after the wait.
        gated: bool,
    },
}

impl Op {
    /// A random op, from `rng`.
    pub fn random(rng: &mut Rng) -> Op {
        let b = |rng: &mut Rng| rng.below(BUFFERS as u64) as usize;
        let pair = |rng: &mut Rng| {
            let s = b(rng);
            (s, (s + 1 + rng.below(BUFFERS as u64 - 1) as usize) % BUFFERS)
        };
        let img = |rng: &mut Rng| rng.below(IMAGES as u64) as usize;
        match rng.below(25) {
            24 => {
                let src = img(rng);
                Op::BlitImage { src, dst: (src + 1) % IMAGES, mirror: rng.below(2) == 0, linear: rng.below(2) == 0 }
            }
            23 if rng.below(2) == 0 => Op::Draw { verts: b(rng), src: b(rng), img: img(rng) },
            23 => Op::SampleImage { img: img(rng), dst: b(rng) },
            20 => Op::ClearImage { img: img(rng), colour: rng.below(CLEAR_COLOURS.len() as u64) as usize },
            21 => Op::ToImage { src: b(rng), img: img(rng) },
            22 => Op::FromImage { img: img(rng), dst: b(rng) },
            0..=2 => Op::Fill { dst: b(rng), value: rng.below(1 << 32) as u32 },
            3 | 4 => Op::Update { dst: b(rng), word: rng.below(WORDS), value: rng.below(1 << 32) as u32 },
            5..=7 => pair(rng).into_copy(),
            8..=10 => {
                let (src, dst) = pair(rng);
                Op::Add { src, dst }
            }
            11 | 12 => {
                let (src, dst) = pair(rng);
                Op::Uniform { src, dst }
            }
            13 => {
                let (src, dst) = pair(rng);
                Op::Winner { src, dst }
            }
            14 if rng.below(2) == 0 => {
                let (a, dst) = pair(rng);
                Op::Pick { a, b: (dst + 1 + rng.below(BUFFERS as u64 - 1) as usize) % BUFFERS, dst }
            }
            14 => {
                let (src, dst) = pair(rng);
                Op::Halves { src, dst }
            }
            15 => Op::HostBeside,
            16 if rng.below(2) == 0 => Op::ViaEvent { across: rng.below(2) == 0 },
            16 => Op::Split,
            _ => {
                let queue = rng.below(2) as usize;
                let gated = queue == 1 && rng.below(2) == 1;
                let wait = if gated { Wait::Fence } else { [Wait::Fence, Wait::QueueIdle, Wait::DeviceIdle][rng.below(3) as usize] };
                Op::Handoff { queue, wait, gated }
            }
        }
    }

    /// The op in words, for a report: `vkCmdCopyBuffer B1 -> B3`.
    pub fn text(&self) -> String {
        match self {
            Op::Fill { dst, value } => format!("vkCmdFillBuffer B{dst} with 0x{value:08x}"),
            Op::Update { dst, word, value } => format!("vkCmdUpdateBuffer B{dst} word {word} = 0x{value:08x}"),
            Op::Copy { src, dst } => format!("vkCmdCopyBuffer B{src} -> B{dst}"),
            Op::Add { src, dst } => format!("vkCmdDispatch add: B{dst}[i] = B{src}[i] * 3 + i"),
            Op::Uniform { src, dst } => format!("vkCmdDispatch uniform: B{dst}[i] += B{src} (uniform buffer)[i % 16].y"),
            Op::Winner { src, dst } => format!("vkCmdFillBuffer counter = 0, then vkCmdDispatch winner: B{src} summed into B{dst} by the workgroup that wins an atomic"),
            Op::Pick { a, b, dst } => format!("vkCmdFillBuffer counter = 0, then vkCmdDispatch pick: each workgroup's atomic ticket picks whether it reads B{a} or B{b} into B{dst}"),
            Op::Halves { src, dst } => format!("vkCmdDispatch writes the first half of each 64-byte line of B{dst} while vkCmdCopyBuffer writes the second halves from B{src}"),
            Op::HostBeside => "vkCmdDispatch writes the first half of each 64-byte line of host-visible H; after the wait the host writes the second halves; a new submission".into(),
            Op::ViaEvent { across } => format!(
                "the next op's synchronization through a reused event (vkCmdSetEvent2, {}vkCmdWaitEvents2, then vkCmdResetEvent2)",
                if *across { "a new vkQueueSubmit, " } else { "" }
            ),
            Op::ClearImage { img, colour } => format!("vkCmdClearColorImage I{img} to {:?}", CLEAR_COLOURS[*colour]),
            Op::ToImage { src, img } => format!("vkCmdCopyBufferToImage B{src} -> I{img}"),
            Op::FromImage { img, dst } => format!("vkCmdCopyImageToBuffer I{img} -> B{dst}"),
            Op::SampleImage { img, dst } => format!("vkCmdDispatch sample: B{dst}[i] = texel i of I{img}, sampled"),
            Op::Draw { verts, src, img } => format!("vkCmdBeginRendering I{img} (cleared), vkCmdDraw: a triangle with B{verts} as its vertex buffer, whose fragments read B{src}, vkCmdEndRendering"),
            Op::BlitImage { src, dst, mirror, linear } => format!("vkCmdBlitImage I{src} -> I{dst}{}, {}", if *mirror { " mirrored" } else { "" }, if *linear { "LINEAR" } else { "NEAREST" }),
            Op::Split => "a new vkQueueSubmit on the same queue".into(),
            Op::Handoff { queue, wait, gated } => format!(
                "the host waits ({}) and submits to q{queue}{}",
                match wait {
                    Wait::Fence => "vkWaitForFences",
                    Wait::QueueIdle => "vkQueueWaitIdle",
                    Wait::DeviceIdle => "vkDeviceWaitIdle",
                },
                if *gated { ", after vkSetEvent of an event its first command waits on" } else { "" }
            ),
        }
    }
}

trait IntoCopy {
    fn into_copy(self) -> Op;
}

impl IntoCopy for (usize, usize) {
    fn into_copy(self) -> Op {
        Op::Copy { src: self.0, dst: self.1 }
    }
}

/// `n` random ops from `rng`.
pub fn random_ops(rng: &mut Rng, n: usize) -> Vec<Op> {
    (0..n).map(|_| Op::random(rng)).collect()
}

/// What becomes of a barrier in a weakened program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weaken {
    /// As needed.
    Keep,
    /// Left out.
    Drop,
    /// srcAccessMask NONE.
    NoSrcAccess,
    /// dstAccessMask NONE.
    NoDstAccess,
}

/// The correctly synchronized program of `ops` ([`build_weakened`] with every barrier kept).
pub fn build(ops: &[Op]) -> Workload {
    build_weakened(ops, &[Weaken::Keep])
}

/// (stage, read accesses, write accesses) of an operation on a buffer it reads / writes.
fn usage(op: &Op) -> (S, A, A) {
    match op {
        Op::Fill { .. } | Op::Update { .. } | Op::ClearImage { .. } => (S::CLEAR, A::NONE, A::TRANSFER_WRITE),
        Op::ToImage { .. } | Op::FromImage { .. } => (S::COPY, A::TRANSFER_READ, A::TRANSFER_WRITE),
        Op::Copy { .. } => (S::COPY, A::TRANSFER_READ, A::TRANSFER_WRITE),
        Op::Add { .. } => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ, A::SHADER_STORAGE_WRITE),
        Op::SampleImage { .. } => (S::COMPUTE_SHADER, A::SHADER_SAMPLED_READ, A::SHADER_STORAGE_WRITE),
        // The front end reads the vertex buffer, the fragments the storage buffer (each read's
        // access below); the clear and the fragments' output write the image.
        Op::Draw { .. } => (S::VERTEX_INPUT | S::FRAGMENT_SHADER | S::COLOR_ATTACHMENT_OUTPUT, A::SHADER_STORAGE_READ, A::COLOR_ATTACHMENT_WRITE),
        Op::BlitImage { .. } => (S::BLIT, A::TRANSFER_READ, A::TRANSFER_WRITE),
        Op::Uniform { .. } => (S::COMPUTE_SHADER, A::UNIFORM_READ, A::SHADER_STORAGE_WRITE),
        Op::Winner { .. } | Op::Pick { .. } => (S::COMPUTE_SHADER, A::SHADER_STORAGE_READ, A::SHADER_STORAGE_WRITE),
        Op::Halves { .. } => (S::COMPUTE_SHADER | S::COPY, A::TRANSFER_READ, A::SHADER_STORAGE_WRITE | A::TRANSFER_WRITE),
        Op::HostBeside | Op::ViaEvent { .. } | Op::Split | Op::Handoff { .. } => (S::NONE, A::NONE, A::NONE),
    }
}

/// [`build`], with the k-th barrier weakened as `weaken[k % len]` says.
pub fn build_weakened(ops: &[Op], weaken: &[Weaken]) -> Workload {
    let mut barrier_count = 0usize;
    let mut w = Workload::new("random-synchronized");
    let mut bufs: Vec<BufferId> = (0..BUFFERS).map(|i| w.device_buffer(format!("B{i}"), BYTES)).collect();
    bufs.push(w.device_buffer("counter", 256));
    let add = w.wgsl_pipeline("add", ADD, "main").unwrap();
    let uni = w.wgsl_pipeline("uniform", UNIFORM, "main").unwrap();
    let winner = w.wgsl_pipeline("winner", WINNER, "main").unwrap();
    let halves = w.wgsl_pipeline("first_halves", FIRST_HALVES, "main").unwrap();
    let pick = w.wgsl_pipeline("pick", PICK, "main").unwrap();
    let sample = w.wgsl_pipeline("sample", SAMPLE, "main").unwrap();
    w.samplers.push(crate::api::SamplerDesc {
        name: "linear".into(),
        sampler: sim_rop::Sampler { mag_filter: sim_rop::Filter::Linear, min_filter: sim_rop::Filter::Linear, address_mode: [sim_rop::AddressMode::ClampToEdge; 3], ..sim_rop::Sampler::default() },
    });
    w.queue("q1");
    // Host-visible memory the device and the host write halves of each line of.
    let shared = w.memory("H", BYTES, MemoryProperties::parse("HOST_VISIBLE|HOST_COHERENT").unwrap());
    let shared_buf = w.buffer("H", shared, 0, BYTES);
    // Host scratch the device never touches, written and never flushed.
    let scratch = w.memory("scratch", 4096, MemoryProperties::parse("HOST_VISIBLE|HOST_CACHED").unwrap());
    w.host(HostOp::HostWrite { memory: scratch, offset: 100, data: vec![0xA5; 300] });
    // Per buffer: last writer (stage, write access) and readers since (stage).
    let mut writer: Vec<Option<(S, A)>> = vec![None; image_resource(IMAGES)];
    let mut readers: Vec<S> = vec![S::NONE; image_resource(IMAGES)];
    // The images, and the layout each is in, in submission order (a hand-off keeps it).
    let images: Vec<ImageId> = (0..IMAGES).map(|k| random_image(&mut w, k)).collect();
    let mut layouts: Vec<&'static str> = vec!["UNDEFINED"; IMAGES];
    // Segments: (queue, how the host waits for the one before, gated, commands, host writes
    // after that wait and before the submissions).
    type Segment = (usize, Wait, bool, Vec<Vec<Command>>, Vec<HostOp>);
    let mut segs: Vec<Segment> = vec![(0, Wait::Fence, false, vec![Vec::new()], Vec::new())];
    let lines = BYTES / LINE;
    // One invocation per word of the first halves: 8 words a line, 64 invocations a workgroup.
    let half_groups = [(lines * (LINE / 2 / 4)).div_ceil(64) as u32, 1, 1];
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    // A winner is a zeroing fill of the counter, then the dispatch.
    // The one event every Op::ViaEvent reuses, and whether the next barrier goes through it.
    let event = w.event("e");
    let mut via_event: Option<bool> = None;
    // The draw's pipeline, made at the first draw (programs without one have none).
    let mut draw: Option<crate::api::GraphicsPipelineId> = None;
    let mut expanded = Vec::new();
    for op in ops {
        if let Op::Winner { .. } | Op::Pick { .. } = op {
            expanded.push(Op::Fill { dst: COUNTER, value: 0 });
        }
        expanded.push(op.clone());
    }
    for op in &expanded {
        match *op {
            Op::Split => {
                segs.last_mut().unwrap().3.push(Vec::new());
                continue;
            }
            Op::ViaEvent { across } => {
                via_event = Some(across);
                continue;
            }
            Op::Handoff { queue, wait, gated } => {
                segs.push((queue, wait, gated, vec![Vec::new()], Vec::new()));
                writer.iter_mut().for_each(|x| *x = None);
                readers.iter_mut().for_each(|x| *x = S::NONE);
                continue;
            }
            Op::HostBeside => {
                // The dispatch writes the first halves; the host, after its wait, the second
                // halves of the same lines (different bytes: no barrier, no flush); then a new
                // submission, whose domain operation must not write the device's lines back
                // over the host's bytes.
                segs.last_mut().unwrap().3.last_mut().unwrap().push(Command::Dispatch {
                    pipeline: halves,
                    group_count: half_groups,
                    base_group: [0; 3],
                    bindings: vec![bind(0, shared_buf)],
                    push_constants: vec![],
                    images: Vec::new(),
                });
                let writes = (0..lines).map(|l| HostOp::HostWrite { memory: shared, offset: l * LINE + LINE / 2, data: vec![0xB0 | (l as u8 & 0xF); (LINE / 2) as usize] }).collect();
                segs.push((0, Wait::Fence, false, vec![Vec::new()], writes));
                writer.iter_mut().for_each(|x| *x = None);
                readers.iter_mut().for_each(|x| *x = S::NONE);
                continue;
            }
            _ => {}
        }
        let (stage, read_access, write_access) = usage(op);
        let (reads, writes): (Vec<usize>, Vec<usize>) = match *op {
            Op::Fill { dst, .. } | Op::Update { dst, .. } => (vec![], vec![dst]),
            Op::Copy { src, dst } | Op::Add { src, dst } => (vec![src], vec![dst]),
            Op::Uniform { src, dst } => (vec![src, dst], vec![dst]),
            Op::Winner { src, dst } => (vec![src, COUNTER], vec![dst, COUNTER]),
            Op::Pick { a, b, dst } => (vec![a, b, COUNTER], vec![dst, COUNTER]),
            Op::Halves { src, dst } => (vec![src], vec![dst]),
            Op::ClearImage { img, .. } => (vec![], vec![image_resource(img)]),
            Op::ToImage { src, img } => (vec![src], vec![image_resource(img)]),
            Op::FromImage { img, dst } | Op::SampleImage { img, dst } => (vec![image_resource(img)], vec![dst]),
            Op::Draw { verts, src, img } if verts == src => (vec![src], vec![image_resource(img)]),
            Op::Draw { verts, src, img } => (vec![verts, src], vec![image_resource(img)]),
            Op::BlitImage { src, dst, .. } => (vec![image_resource(src)], vec![image_resource(dst)]),
            Op::ViaEvent { .. } | Op::Split | Op::Handoff { .. } | Op::HostBeside => unreachable!("handled above"),
        };
        // The images the op uses, and the layouts it needs them in: a layout transition is a
        // write of the image, ordered after its earlier accesses by an image barrier of its own.
        let transitions: Vec<(usize, &str)> = match *op {
            Op::ClearImage { img, .. } | Op::ToImage { img, .. } => vec![(img, "TRANSFER_DST_OPTIMAL")],
            Op::FromImage { img, .. } => vec![(img, "TRANSFER_SRC_OPTIMAL")],
            Op::SampleImage { img, .. } => vec![(img, "SHADER_READ_ONLY_OPTIMAL")],
            Op::Draw { img, .. } => vec![(img, "COLOR_ATTACHMENT_OPTIMAL")],
            Op::BlitImage { src, dst, .. } => vec![(src, "TRANSFER_SRC_OPTIMAL"), (dst, "TRANSFER_DST_OPTIMAL")],
            _ => Vec::new(),
        }
        .into_iter()
        .filter(|&(img, want)| layouts[img] != want)
        .collect();
        let transitioned: Vec<usize> = transitions.iter().map(|&(img, _)| image_resource(img)).collect();
        let (mut src_stage, mut src_access, mut dst_access) = (S::NONE, A::NONE, A::NONE);
        for &b in reads.iter().filter(|&b| !transitioned.contains(b)) {
            if let Some((s, a)) = writer[b] {
                src_stage |= s;
                src_access |= a;
                // The uniform kernel reads its source through U$ and its destination as storage.
                dst_access |= match *op {
                    Op::Uniform { src, .. } if src == b => A::UNIFORM_READ,
                    Op::Uniform { .. } => A::SHADER_STORAGE_READ,
                    Op::Draw { verts, src, .. } => {
                        let vertex = if verts == b { A::VERTEX_ATTRIBUTE_READ } else { A::NONE };
                        vertex | if src == b { A::SHADER_STORAGE_READ } else { A::NONE }
                    }
                    _ => read_access,
                };
            }
        }
        for &b in writes.iter().filter(|&b| !transitioned.contains(b)) {
            if let Some((s, a)) = writer[b] {
                src_stage |= s;
                src_access |= a;
                dst_access |= write_access;
            }
            src_stage |= readers[b];
        }
        // Each transitioned image's barrier: after its writer (made available) and its readers,
        // before the op's access of it.
        let image_barriers: Vec<(usize, &str, MemoryBarrier2)> = transitions
            .iter()
            .map(|&(img, want)| {
                let r = image_resource(img);
                let (ws, wa) = writer[r].unwrap_or((S::NONE, A::NONE));
                let access = if reads.contains(&r) { read_access } else { write_access };
                (img, want, MemoryBarrier2 { src_stage_mask: ws | readers[r], src_access_mask: wa, dst_stage_mask: stage, dst_access_mask: access })
            })
            .collect();
        let cbs = &mut segs.last_mut().unwrap().3;
        let through_event = via_event.take();
        let mut reset_after = false;
        if !src_stage.is_empty() || !image_barriers.is_empty() {
            let how = weaken[barrier_count % weaken.len()];
            barrier_count += 1;
            let narrow = |sa: A, da: A| match how {
                Weaken::Keep | Weaken::Drop => (sa, da),
                Weaken::NoSrcAccess => (A::NONE, da),
                Weaken::NoDstAccess => (sa, A::NONE),
            };
            let (sa, da) = narrow(src_access, dst_access);
            let mut dependency = if src_stage.is_empty() { DependencyInfo::default() } else { DependencyInfo::memory(src_stage, sa, stage, da) };
            for (img, want, mut b) in image_barriers {
                (b.src_access_mask, b.dst_access_mask) = narrow(b.src_access_mask, b.dst_access_mask);
                if how == Weaken::Drop {
                    // The layout still changes (a program in the wrong layout is refused), but
                    // nothing orders the transition.
                    b = MemoryBarrier2 { src_stage_mask: S::NONE, src_access_mask: A::NONE, dst_stage_mask: S::NONE, dst_access_mask: A::NONE };
                }
                dependency.image_memory_barriers.push(ImageMemoryBarrier {
                    barrier: b,
                    image: images[img],
                    old_layout: layouts[img].to_string(),
                    new_layout: want.to_string(),
                    range: sim_rop::SubresourceRange::whole(&w.images[images[img]].layout.desc),
                });
                layouts[img] = want;
                // The transition is now the image's latest write, visible to this op's stage
                // alone: a later access at another stage chains from it (no access to make
                // available, the transition's own barrier did that).
                let r = image_resource(img);
                writer[r] = Some((stage, A::NONE));
                readers[r] = S::NONE;
            }
            match (how, through_event) {
                (Weaken::Drop, _) if dependency.image_memory_barriers.is_empty() => {}
                (Weaken::Drop, _) => {
                    dependency.memory_barriers.clear();
                    cbs.last_mut().unwrap().push(Command::PipelineBarrier(dependency));
                }
                (_, Some(across)) => {
                    // The wait's dependency equals the set's, as vkCmdWaitEvents2 requires; the
                    // reset after the op, in its stage, comes after the wait's second scope.
                    cbs.last_mut().unwrap().push(Command::SetEvent { event, dependency: dependency.clone() });
                    if across {
                        cbs.push(Vec::new());
                    }
                    cbs.last_mut().unwrap().push(Command::WaitEvents { events: vec![event], dependency });
                    reset_after = true;
                }
                (_, None) => cbs.last_mut().unwrap().push(Command::PipelineBarrier(dependency)),
            }
        }
        for &b in &reads {
            readers[b] |= stage;
        }
        for &b in &writes {
            writer[b] = Some((stage, write_access));
            readers[b] = S::NONE;
        }
        let groups = [(WORDS / 64) as u32, 1, 1];
        if let Op::Halves { src, dst } = *op {
            // Two writers of one buffer at once, each of its own bytes.
            let cb = cbs.last_mut().unwrap();
            cb.push(Command::Dispatch { pipeline: halves, group_count: half_groups, base_group: [0; 3], bindings: vec![bind(0, bufs[dst])], push_constants: vec![], images: Vec::new() });
            let regions = (0..lines).map(|l| BufferCopy { src_offset: l * LINE + LINE / 2, dst_offset: l * LINE + LINE / 2, size: LINE / 2 }).collect();
            cb.push(Command::CopyBuffer { src: bufs[src], dst: bufs[dst], regions });
            if reset_after {
                cb.push(Command::ResetEvent { event, stage_mask: stage });
            }
            continue;
        }
        let cmd = match *op {
            Op::Fill { dst, value } => Command::FillBuffer { dst: bufs[dst], offset: 0, size: None, data: value },
            Op::Update { dst, word, value } => Command::UpdateBuffer { dst: bufs[dst], offset: word * 4, data: value.to_le_bytes().to_vec() },
            Op::Copy { src, dst } => Command::CopyBuffer { src: bufs[src], dst: bufs[dst], regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: BYTES }] },
            Op::Add { src, dst } => Command::Dispatch { pipeline: add, group_count: groups, base_group: [0; 3], bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst])], push_constants: vec![], images: Vec::new() },
            Op::Uniform { src, dst } => Command::Dispatch { pipeline: uni, group_count: groups, base_group: [0; 3], bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst])], push_constants: vec![], images: Vec::new() },
            Op::Winner { src, dst } => Command::Dispatch {
                pipeline: winner,
                group_count: groups,
                base_group: [0; 3],
                bindings: vec![bind(0, bufs[src]), bind(1, bufs[dst]), bind(2, bufs[COUNTER])],
                push_constants: vec![],
                images: Vec::new(),
            },
            Op::Pick { a, b, dst } => Command::Dispatch {
                pipeline: pick,
                group_count: groups,
                base_group: [0; 3],
                bindings: vec![bind(0, bufs[a]), bind(1, bufs[b]), bind(2, bufs[dst]), bind(3, bufs[COUNTER])],
                push_constants: vec![],
                images: Vec::new(),
            },
            Op::ClearImage { img, colour } => Command::ClearColorImage {
                image: images[img],
                layout: "TRANSFER_DST_OPTIMAL".into(),
                texel: CLEAR_COLOURS[colour].to_vec(),
                ranges: vec![sim_rop::SubresourceRange::whole(&w.images[images[img]].layout.desc)],
            },
            Op::ToImage { src, img } => Command::CopyBufferToImage { src: bufs[src], dst: images[img], dst_layout: "TRANSFER_DST_OPTIMAL".into(), regions: vec![whole_image()] },
            Op::FromImage { img, dst } => Command::CopyImageToBuffer { src: images[img], src_layout: "TRANSFER_SRC_OPTIMAL".into(), dst: bufs[dst], regions: vec![whole_image()] },
            Op::BlitImage { src, dst, mirror, linear } => {
                let whole = whole_image().subresource;
                let [w, h, _] = w.images[images[src]].layout.desc.extent;
                let (x0, x1) = if mirror { (w, 0) } else { (0, w) };
                Command::BlitImage {
                    src: images[src],
                    src_layout: "TRANSFER_SRC_OPTIMAL".into(),
                    dst: images[dst],
                    dst_layout: "TRANSFER_DST_OPTIMAL".into(),
                    regions: vec![ImageBlit { src_subresource: whole, src_offsets: [[0, 0, 0], [w, h, 1]], dst_subresource: whole, dst_offsets: [[x0, 0, 0], [x1, h, 1]] }],
                    filter: if linear { sim_rop::Filter::Linear } else { sim_rop::Filter::Nearest },
                }
            }
            Op::SampleImage { img, dst } => Command::Dispatch {
                pipeline: sample,
                group_count: [IMAGE_SIDE * IMAGE_SIDE / 64, 1, 1],
                base_group: [0; 3],
                bindings: vec![bind(2, bufs[dst])],
                push_constants: vec![],
                images: vec![
                    ImageDescriptor {
                        set: 0,
                        binding: 0,
                        descriptor_type: ImageDescriptorType::SampledImage,
                        image: Some(images[img]),
                        layout: "SHADER_READ_ONLY_OPTIMAL".into(),
                        range: sim_rop::SubresourceRange::whole(&w.images[images[img]].layout.desc),
                        sampler: None,
                    },
                    ImageDescriptor { set: 0, binding: 1, descriptor_type: ImageDescriptorType::Sampler, image: None, layout: String::new(), range: sim_rop::SubresourceRange::whole(&w.images[images[img]].layout.desc), sampler: Some(0) },
                ],
            },
            Op::Draw { verts, src, img } => {
                let pipeline = *draw.get_or_insert_with(|| draw_pipeline(&mut w));
                let view = crate::api::AttachmentView { image: images[img], level: 0, base_layer: 0, layer_count: 1 };
                let cb = cbs.last_mut().unwrap();
                cb.push(Command::BeginRendering(crate::api::RenderingInfo {
                    render_area: crate::fixed_function::Rect2D { x: 0, y: 0, width: IMAGE_SIDE, height: IMAGE_SIDE },
                    layer_count: 1,
                    color_attachments: vec![Some(crate::api::RenderingAttachment {
                        view,
                        layout: "COLOR_ATTACHMENT_OPTIMAL".into(),
                        load_op: crate::api::LoadOp::Clear,
                        store_op: crate::api::StoreOp::Store,
                        clear_value: Some(sim_rop::ClearValue::Float([0.25, 0.5, 0.75, 1.0])),
                    })],
                    depth_attachment: None,
                    stencil_attachment: None,
                }));
                cb.push(Command::BindVertexBuffers { first_binding: 0, buffers: vec![(bufs[verts], 0)] });
                cb.push(Command::Draw {
                    pipeline,
                    kind: crate::api::DrawKind::Direct { vertex_count: 3, instance_count: 1, first_vertex: 0, first_instance: 0 },
                    bindings: vec![bind(0, bufs[src])],
                    push_constants: vec![],
                    images: Vec::new(),
                });
                Command::EndRendering
            }
            Op::Halves { .. } | Op::ViaEvent { .. } | Op::Split | Op::Handoff { .. } | Op::HostBeside => unreachable!("handled above"),
        };
        cbs.last_mut().unwrap().push(cmd);
        if reset_after {
            cbs.last_mut().unwrap().push(Command::ResetEvent { event, stage_mask: stage });
        }
    }
    // Each segment: its submissions on its queue, the last with a fence; the host waits for
    // the segment before it first (and, for a gated one, then sets the event it waits on).
    let mut last_fence: Option<FenceId> = None;
    let mut prev_queue = 0;
    for (k, (queue, wait, gated, cbs, host_writes)) in segs.into_iter().enumerate() {
        let fence = w.fence(format!("f{k}"));
        let event = gated.then(|| w.event(format!("e{k}")));
        let n = cbs.len();
        let mut subs = Vec::new();
        for (i, mut cmds) in cbs.into_iter().enumerate() {
            if i == 0
                && let Some(e) = event
            {
                cmds.insert(0, Command::WaitEvents {
                    events: vec![e],
                    dependency: DependencyInfo::memory(S::HOST, A::HOST_WRITE, S::ALL_COMMANDS, A::MEMORY_READ | A::MEMORY_WRITE),
                });
            }
            let cb = w.command_buffer(format!("s{k}cb{i}"), cmds);
            subs.push((cb, (i + 1 == n).then_some(fence)));
        }
        let host_wait = |w: &mut Workload| match (last_fence, wait) {
            (None, _) => {}
            (Some(f), Wait::Fence) => w.host(HostOp::WaitForFences(vec![f])),
            (Some(_), Wait::QueueIdle) => w.host(HostOp::QueueWaitIdle(prev_queue)),
            (Some(_), Wait::DeviceIdle) => w.host(HostOp::DeviceWaitIdle),
        };
        if let Some(e) = event {
            // The host sets the event before it submits the work that waits on it: setting an
            // event a pending command buffer waits on is invalid (VUID-vkSetEvent-event-09543).
            host_wait(&mut w);
            w.host(HostOp::SetEvent(e));
            for (cb, f) in subs {
                w.submit(queue, vec![cb], f);
            }
        } else {
            host_wait(&mut w);
            for op in host_writes {
                w.host(op);
            }
            for (cb, f) in subs {
                w.submit(queue, vec![cb], f);
            }
        }
        last_fence = Some(fence);
        prev_queue = queue;
    }
    w.host(HostOp::WaitForFences(vec![last_fence.unwrap()]));
    w.host(HostOp::HostWrite { memory: scratch, offset: 2000, data: vec![0x5A; 64] });
    // Scratch flushed, then invalidated, then read: the flush made the writes the memory's
    // contents, so the invalidate brings back the same bytes.
    let atoms = MappedRange { memory: scratch, offset: 1984, size: Some(128) };
    w.host(HostOp::FlushMappedMemoryRanges(vec![atoms]));
    w.host(HostOp::InvalidateMappedMemoryRanges(vec![atoms]));
    w.host(HostOp::HostRead { memory: scratch, offset: 2000, size: 64, label: "scratch".into(), expect: Some(vec![0x5A; 64]) });
    w
}

/// Image `k` of a random program: 32x32 R8G8B8A8_UNORM, optimal, a transfer source and
/// destination, in a DEVICE_LOCAL memory object of its own (so bufferImageGranularity is met).
fn random_image(w: &mut Workload, k: usize) -> ImageId {
    let desc = sim_rop::ImageDesc {
        image_type: sim_rop::ImageType::D2,
        format: sim_rop::Format::R8G8B8A8_UNORM,
        extent: [IMAGE_SIDE, IMAGE_SIDE, 1],
        mip_levels: 1,
        array_layers: 1,
        tiling: sim_rop::Tiling::Optimal,
    };
    let layout = sim_rop::ImageLayout::new(desc, &sim_rop::TilingParams::default()).expect("a valid image");
    let memory = w.memory(format!("I{k}"), layout.size, MemoryProperties::parse("DEVICE_LOCAL").unwrap());
    w.images.push(ImageBinding { name: format!("I{k}"), memory, offset: 0, layout, usage: "TRANSFER_SRC|TRANSFER_DST|SAMPLED|COLOR_ATTACHMENT".into(), initial_layout: "UNDEFINED".into() });
    w.images.len() - 1
}

/// [`Op::Draw`]'s pipeline: [`DRAW`]'s shaders, a colour per vertex (R8G8B8A8_UNORM, 4-byte
/// stride), no blending, for dynamic rendering into one R8G8B8A8_UNORM colour attachment.
fn draw_pipeline(w: &mut Workload) -> crate::api::GraphicsPipelineId {
    let module = sim_shader::Module::from_wgsl(DRAW, "draw.wgsl").expect("the draw's shaders compile");
    let shader = |entry: &str| std::sync::Arc::new(sim_shader::GraphicsShader::new(&module, entry).expect("an entry point"));
    w.graphics_pipelines.push(crate::api::GraphicsPipelineDesc {
        name: "draw".into(),
        vertex: shader("vs"),
        fragment: Some(shader("fs")),
        vertex_shader: "vs".into(),
        fragment_shader: Some("fs".into()),
        vertex_input: crate::fixed_function::VertexInputState::new(
            vec![crate::fixed_function::VertexBinding { binding: 0, stride: 4, input_rate: crate::fixed_function::VertexInputRate::Vertex }],
            vec![crate::fixed_function::VertexAttribute { location: 0, binding: 0, format: sim_rop::Format::R8G8B8A8_UNORM, offset: 0 }],
        )
        .expect("a valid vertex input"),
        topology: crate::fixed_function::PrimitiveTopology::TriangleList,
        raster: crate::fixed_function::RasterState::default(),
        depth_stencil: crate::api::DepthStencilState::default(),
        blend: vec![sim_rop::fragment::BlendState::REPLACE],
        blend_constants: [0.0; 4],
        target: crate::api::PipelineTarget::Rendering { color_formats: vec![Some(sim_rop::Format::R8G8B8A8_UNORM)], depth_format: None, stencil_format: None },
    });
    w.graphics_pipelines.len() - 1
}

/// A copy region of a whole random image and a whole buffer.
fn whole_image() -> BufferImageCopy {
    BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        subresource: SubresourceLayers { aspect: sim_rop::Aspect::Color, mip_level: 0, base_array_layer: 0, layer_count: 1 },
        image_offset: [0; 3],
        image_extent: [IMAGE_SIDE, IMAGE_SIDE, 1],
    }
}
