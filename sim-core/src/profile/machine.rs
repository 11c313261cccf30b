//! The machine a profile describes: its structure ([`Machine`]), its costs ([`Timing`]) and the
//! device limits a trace is checked against ([`Limits`]).
//!
//! Defaults are realistic for a small GCN-like GPU (values and sources in `docs/PROFILES.md`,
//! "Where the default sizes come from": per-CU 16 KiB vector L1 with 64-byte lines,
//! write-through; 16 KiB scalar (uniform) cache; 64 KiB LDS; write-back L2 with 64-byte lines,
//! the coherence point for shader caches, channels interleaved at 256 bytes;
//! nonCoherentAtomSize 64; x86 write-combining buffers of 64 bytes), but with 8 compute units
//! and a 256 KiB L2 so that simulations stay fast.
//! Latencies are background figures of the right order, not measurements.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use sim_caches::{CacheSpec, Replacement, WritePolicy};

use super::error::FieldPath;

/// Serde for an optional cache: a table is a cache, the string `"none"` is its absence (so a
/// profile can remove a cache its base has).
pub mod opt_cache {
    use super::*;

    /// Writes `None` as `"none"` and a cache as its table.
    pub fn serialize<S: Serializer>(v: &Option<CacheSpec>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(spec) => spec.serialize(s),
            None => s.serialize_str("none"),
        }
    }

    /// Reads a cache table, or `"none"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<CacheSpec>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<CacheSpec>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a cache table (size_bytes, line_bytes, ways, ...) or \"none\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                if v == "none" { Ok(None) } else { Err(E::invalid_value(de::Unexpected::Str(v), &self)) }
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                CacheSpec::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
            }
        }
        d.deserialize_any(V)
    }
}

fn cache(size_bytes: u64, line_bytes: u32, ways: u32, write_policy: WritePolicy) -> CacheSpec {
    CacheSpec::new(size_bytes, line_bytes, ways, Replacement::Lru, write_policy)
}

/// The structure of the simulated GPU: which caches exist, where, and how they behave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Machine {
    /// Number of compute units. Default 8 (real parts have 32–132; few keeps simulation fast).
    pub compute_units: u32,
    /// What each compute unit has.
    pub cu: ComputeUnitSpec,
    /// The shared L2.
    pub l2: L2Spec,
    /// Device memory.
    pub vram: VramSpec,
    /// The transfer (copy) engine.
    pub transfer: TransferSpec,
    /// The render output units.
    pub rop: RopSpec,
    /// Where the fixed-function front end of a draw reads (vertices, indices, indirect records).
    pub fetch: FetchSpec,
    /// The host side of mapped memory.
    pub host: HostSpec,
}

/// Where a fixed-function read enters the memory system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FetchLevel {
    /// A CU's L1 (a vertex fetch made as a shader's buffer load: NVIDIA, RADV).
    #[default]
    L1,
    /// A CU's scalar/uniform cache (RADV's indirect arguments, read with scalar loads).
    Uniform,
    /// The L2 alone (a fetch unit that reads through the shared cache: ANV's vertex fetcher,
    /// whose own cache is not simulated; Turnip's UCHE).
    L2,
    /// Memory, past the L2 (a command streamer that is not coherent with the L2: ANV, Turnip's
    /// CP).
    Vram,
}

/// Where a draw's fixed-function reads go: each entry point of the profile's barrier table rows
/// for VERTEX_ATTRIBUTE_READ, INDEX_READ and INDIRECT_COMMAND_READ acts on the caches these
/// reads pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct FetchSpec {
    /// Vertex attributes (VERTEX_ATTRIBUTE_INPUT). Default `l1`.
    pub vertex: FetchLevel,
    /// Indices (INDEX_INPUT). Default `l1`.
    pub index: FetchLevel,
    /// Indirect draw records (DRAW_INDIRECT). Default `l1`.
    pub indirect: FetchLevel,
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            compute_units: 8,
            cu: ComputeUnitSpec::default(),
            l2: L2Spec::default(),
            vram: VramSpec::default(),
            transfer: TransferSpec::default(),
            rop: RopSpec::default(),
            fetch: FetchSpec::default(),
            host: HostSpec::default(),
        }
    }
}

/// One compute unit (all are alike).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ComputeUnitSpec {
    /// L1 data cache, or `"none"`. Write policy: write-through (either variant) or
    /// write-back-byte-mask. Coherent accesses and atomics bypass it. Default 16 KiB, 64-byte
    /// lines, 4 ways, write-through-allocate (GCN vector L1, docs/PROFILES.md).
    #[serde(with = "opt_cache")]
    pub l1: Option<CacheSpec>,
    /// Texture cache T$ (sampled images, input attachments), or `"none"`; read-only. Default
    /// 16 KiB, 64-byte lines, 4 ways.
    #[serde(with = "opt_cache")]
    pub texture_cache: Option<CacheSpec>,
    /// Uniform cache U$ (uniform buffers), or `"none"`; read-only. Default 16 KiB, 64-byte lines,
    /// 4 ways (GCN scalar cache, docs/PROFILES.md).
    #[serde(with = "opt_cache")]
    pub uniform_cache: Option<CacheSpec>,
    /// Workgroup shared memory, bytes. Default 65536 (GCN LDS, docs/PROFILES.md).
    pub shared_memory_bytes: u32,
    /// Workgroups resident at once on one CU. Default 4.
    pub workgroup_slots: u32,
    /// Invocations per subgroup (lanes coalesced into line requests together). Default 64
    /// (GCN wave64).
    pub subgroup_size: u32,
}

impl Default for ComputeUnitSpec {
    fn default() -> Self {
        ComputeUnitSpec {
            l1: Some(cache(16 * 1024, 64, 4, WritePolicy::WriteThroughAllocate)),
            texture_cache: Some(cache(16 * 1024, 64, 4, WritePolicy::ReadOnly)),
            uniform_cache: Some(cache(16 * 1024, 64, 4, WritePolicy::ReadOnly)),
            shared_memory_bytes: 64 * 1024,
            workgroup_slots: 4,
            subgroup_size: 64,
        }
    }
}

/// The shared L2: the coherence point of the shader caches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct L2Spec {
    /// The cache, or `"none"` (every L2 access goes to VRAM). Default 256 KiB, 64-byte lines,
    /// 16 ways, write-back with a per-byte dirty mask (docs/PROFILES.md: GCN L2 line 64 B). A
    /// dirty bit per line would make a write-back put stale bytes over bytes that the transfer
    /// engine or the host wrote to VRAM beside the line's dirty ones, which Vulkan allows with no
    /// barrier at all: see `docs/PROFILES.md`.
    #[serde(with = "opt_cache")]
    pub cache: Option<CacheSpec>,
    /// Number of banks (each with its own bandwidth). Default 8.
    pub banks: u32,
    /// Bytes of address space mapped to one bank before the next, a power of two. Default 256
    /// (MI100/MI200 channel interleave, docs/PROFILES.md).
    pub bank_interleave_bytes: u64,
}

impl Default for L2Spec {
    fn default() -> Self {
        L2Spec { cache: Some(cache(256 * 1024, 64, 16, WritePolicy::WriteBackByteMask)), banks: 8, bank_interleave_bytes: 256 }
    }
}

/// Device memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VramSpec {
    /// Size of the device address space, bytes (storage is sparse). Default 4 GiB.
    pub size_bytes: u64,
    /// Number of channels. Default 8.
    pub channels: u32,
    /// Bytes mapped to one channel before the next, a power of two. Default 256.
    pub channel_interleave_bytes: u64,
}

impl Default for VramSpec {
    fn default() -> Self {
        VramSpec { size_bytes: 4 << 30, channels: 8, channel_interleave_bytes: 256 }
    }
}

/// Where the transfer engine reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TransferPath {
    /// Through the L2, coherent with the shader caches' coherence point (a copy engine that is
    /// an L2 client: NVIDIA's, AMD's CP DMA).
    ThroughL2,
    /// Straight to VRAM beside the L2 (what both of the seed's tables are written for: the L2 is
    /// flushed before a transfer reads and invalidated after it writes).
    #[default]
    DirectToVram,
}

/// Where a transfer the driver runs as a shader reads its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShaderTransferRead {
    /// Through a CU's L1 (a compute shader's buffer loads: RADV's meta shaders).
    #[default]
    L1,
    /// Through a CU's texture cache (a sampler read: ANV's blorp on the render engine).
    Texture,
    /// Through the L2 alone (a blitter that reads through the shared cache: Turnip's 2D engine
    /// through UCHE).
    L2,
}

/// Where a transfer the driver runs as a shader writes its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShaderTransferWrite {
    /// Through a CU's L1 (a compute shader's buffer stores).
    #[default]
    L1,
    /// Through a ROP's tile cache (a blit or render-target write: Turnip's CCU, ANV's render
    /// target cache), which writes back as the ROP does (`rop.l2_client`).
    Rop,
}

/// The transfer engine (copies, fills, updates, clears).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TransferSpec {
    /// Its path to memory. Default `direct-to-vram`.
    pub path: TransferPath,
    /// Transfers of at least this many bytes (a copy region, a fill, an update) run as driver
    /// shaders on the CUs instead of on the transfer engine (RADV: 4096, its
    /// `RADV_BUFFER_OPS_CS_THRESHOLD`; 0: every transfer). Absent: none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shader_min_bytes: Option<u64>,
    /// Where such a shader reads. Default `l1`.
    pub shader_reads: ShaderTransferRead,
    /// Where such a shader writes. Default `l1`.
    pub shader_writes: ShaderTransferWrite,
}

impl TransferSpec {
    /// Whether a transfer of `bytes` (a copy region, a fill, an update) runs as a driver shader.
    pub fn runs_as_shader(&self, bytes: u64) -> bool {
        self.shader_min_bytes.is_some_and(|min| bytes >= min)
    }

    /// Whether transfers the driver runs as shaders write through the ROPs (so their tile
    /// caches can hold dirty bytes).
    pub fn writes_through_rops(&self) -> bool {
        self.shader_min_bytes.is_some() && self.shader_writes == ShaderTransferWrite::Rop
    }
}

/// The render output units and their tile caches (not coherent with L2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RopSpec {
    /// The colour/depth tile cache of each ROP, or `"none"` (attachment writes go to L2).
    /// Default 16 KiB of 256-byte lines (one 8x8 RGBA8 tile each), 4 ways, write-back.
    #[serde(with = "opt_cache")]
    pub tile_cache: Option<CacheSpec>,
    /// Number of ROP units. Default 4.
    pub units: u32,
    /// Tile width and height in pixels. Default 8 (the 8x8-pixel tile of AMD's HTILE and CMASK
    /// metadata).
    pub tile_pixels: u32,
    /// Whether the tile caches write back into the L2 (an L2 client: AMD GFX9 and later,
    /// Intel's render target cache over the L3) or straight to memory beside it (AMD GFX6-8,
    /// Adreno's CCU). Default true.
    pub l2_client: bool,
    /// Framebuffer compression of optimal colour images. Default none.
    pub compression: CompressionSpec,
}

impl Default for RopSpec {
    fn default() -> Self {
        RopSpec { tile_cache: Some(cache(16 * 1024, 256, 4, WritePolicy::WriteBackLineDirty)), units: 4, tile_pixels: 8, l2_client: true, compression: CompressionSpec::default() }
    }
}

/// Where a profile keeps compression metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetadataPlacement {
    /// No compression: every tile is raw.
    #[default]
    None,
    /// In the page tables, per 64 KiB page ([`COMPRESSION_PAGE_BYTES`]): every access to a
    /// compressible page goes through its metadata, whoever makes it, so a buffer in an image's
    /// page is read through the image's metadata (the seed's story; `bufferImageGranularity`
    /// must be at least a page).
    PerPage,
    /// With the image, hidden: only units that know the image (the ROPs, and those
    /// [`CompressionSpec::decoders`] names, on image commands) read and write through it; a
    /// buffer aliasing the image reads the raw slots.
    PerImage,
}

/// The page a [`MetadataPlacement::PerPage`] profile keeps metadata for: 64 KiB, the size of
/// Vulkan's standard sparse image blocks.
pub const COMPRESSION_PAGE_BYTES: u64 = 65536;

/// A unit that reads or writes images, as a compression row names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImageUnit {
    /// The ROPs (colour and depth attachment accesses).
    Rop,
    /// Image transfer commands (copies to and from images, clears), on the transfer engine or
    /// as the driver's shaders.
    Transfer,
    /// Sampled image reads through the texture cache.
    Sampled,
    /// Storage image reads and writes through the L1.
    Storage,
}

/// Framebuffer compression, as the seed's "Framebuffer compression" section describes it: per
/// 8x8 tile a state (raw, 2:1, 4:1, 8:1, or one of a few fast-clear values) in 4 bits of
/// metadata; a unit that understands the metadata decodes, one that does not reads the slots'
/// raw bytes. Which images: optimal-tiled single-sample colour images without storage usage
/// (drivers keep storage images uncompressed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompressionSpec {
    /// Where the metadata lives. Default `none` (no compression).
    pub metadata: MetadataPlacement,
    /// The fast-clear values, as RGBA (each encoded in the image's format; at most 12).
    /// Default (0,0,0,0), (0,0,0,1), (1,1,1,0), (1,1,1,1), the seed's.
    pub clear_values: Vec<[f32; 4]>,
    /// Layouts in which a clear to a fast-clear value is a fast clear (metadata only):
    /// vkCmdClearColorImage in such a layout (TRANSFER_DST_OPTIMAL, GENERAL), and, once render
    /// passes exist, attachment clears in the attachment layouts. Default none.
    pub fast_clear_layouts: Vec<crate::profile::ImageLayout>,
    /// Units that read and write compressed (2:1, 4:1, 8:1) tiles of a per-image profile: the
    /// others read the raw slots and write raw bytes under metadata that still says
    /// compressed. Default the ROPs.
    pub decoders: Vec<ImageUnit>,
    /// Units that read fast-cleared tiles of a per-image profile (a subset of `decoders`):
    /// the others read the raw slots. Default the ROPs.
    pub clear_decoders: Vec<ImageUnit>,
    /// Cycles a layout transition's decompression spends per tile it rewrites, beside the
    /// bandwidth of the bytes it moves. Default 16.
    pub decompress_cycles_per_tile: u32,
}

impl Default for CompressionSpec {
    fn default() -> Self {
        CompressionSpec {
            metadata: MetadataPlacement::None,
            clear_values: vec![[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]],
            fast_clear_layouts: Vec::new(),
            decoders: vec![ImageUnit::Rop],
            clear_decoders: vec![ImageUnit::Rop],
            decompress_cycles_per_tile: 16,
        }
    }
}

impl CompressionSpec {
    /// Whether images are compressed at all.
    pub fn enabled(&self) -> bool {
        self.metadata != MetadataPlacement::None
    }

    /// Whether `unit` decodes compressed tiles and, when `clear`, fast-cleared ones, on an
    /// image access (every access does on a per-page profile).
    pub fn decodes(&self, unit: ImageUnit, clear: bool) -> bool {
        match self.metadata {
            MetadataPlacement::None => false,
            MetadataPlacement::PerPage => true,
            MetadataPlacement::PerImage => self.decoders.contains(&unit) && (!clear || self.clear_decoders.contains(&unit)),
        }
    }
}

/// The host side of mapped memory. Its flush/invalidate granularity is
/// [`Limits::non_coherent_atom_size`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostSpec {
    /// Write-combining buffers for HOST_COHERENT (write-combined) mappings: how many. Default
    /// 10 (line-fill buffers of Nehalem–Broadwell; the count is not architectural,
    /// docs/PROFILES.md). 0 means host writes go straight to memory.
    pub write_combining_buffers: u32,
    /// Bytes per write-combining buffer, a power of two. Default 64 (x86 since the Pentium 4,
    /// Intel SDM 3A §11.3.1).
    pub write_combining_buffer_bytes: u32,
    /// The host CPU cache used for HOST_CACHED mappings, or `"none"`. Default 32 KiB, 64-byte
    /// lines (x86 `coherency_line_size`), 8 ways, write-back with a dirty bit per line.
    #[serde(with = "opt_cache")]
    pub cache: Option<CacheSpec>,
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            write_combining_buffers: 10,
            write_combining_buffer_bytes: 64,
            cache: Some(cache(32 * 1024, 64, 8, WritePolicy::WriteBackLineDirty)),
        }
    }
}

/// What things cost. Latencies are in GPU core cycles; bandwidths in bytes per core cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timing {
    /// Core clock in MHz, only to convert cycles to time in reports. Default 1500.
    pub core_clock_mhz: u32,
    /// L1 hit latency, cycles. Default 40.
    pub l1_hit_cycles: u32,
    /// Texture cache (T$) hit latency, cycles (a read through the T$, such as a driver
    /// shader's transfer read where `shader_reads = "texture"`, starts from it). Default 40,
    /// the L1's: no public figure sets the two apart.
    pub texture_hit_cycles: u32,
    /// Uniform cache hit latency, cycles (a uniform load's latency starts from it). Default 20.
    pub uniform_hit_cycles: u32,
    /// ROP tile cache hit latency, cycles (a write through a ROP's tile cache, such as a driver
    /// shader's transfer write where `shader_writes = "rop"`, starts from it). Default 40, the
    /// L1's: no public figure sets the two apart.
    pub rop_hit_cycles: u32,
    /// L2 hit latency (beyond the L1 lookup), cycles. Default 200.
    pub l2_hit_cycles: u32,
    /// VRAM access latency (beyond the L2 lookup), cycles. Default 500.
    pub vram_latency_cycles: u32,
    /// Workgroup (shared) memory latency, cycles, charged once per subgroup-wide access.
    /// Default 32.
    pub shared_memory_cycles: u32,
    /// Bandwidth of one L2 bank, bytes/cycle. Default 64.
    pub l2_bank_bytes_per_cycle: u32,
    /// Bandwidth of one VRAM channel, bytes/cycle. Default 32.
    pub vram_channel_bytes_per_cycle: u32,
    /// Bandwidth of the transfer engine, bytes/cycle. Default 64.
    pub transfer_bytes_per_cycle: u32,
    /// Chunks the transfer engine keeps in flight: a chunk's memory latency is charged divided
    /// by this, overlapped with the chunks after it. Default 4.
    pub transfer_chunks_in_flight: u32,
    /// Cycles from the command processor launching a transfer to the transfer engine moving its
    /// first chunk (a copy engine's start latency). Default 0.
    pub transfer_launch_cycles: u32,
    /// Host–device bus latency, cycles. Default 1500 (about 1 µs of PCIe round trip).
    pub host_bus_latency_cycles: u32,
    /// Host–device bus bandwidth, bytes/cycle. Default 16.
    pub host_bus_bytes_per_cycle: u32,
    /// Cost of a cache maintenance operation per line walked, cycles (write-backs cost their
    /// bandwidth on top). Default 1.
    pub maintenance_cycles_per_line: u32,
    /// Fixed cost of a pipeline barrier (beyond the drain it forces), cycles. Default 20.
    pub barrier_cycles: u32,
    /// Per-dispatch launch overhead, cycles. Default 200.
    pub dispatch_launch_cycles: u32,

    /// Largest random perturbation the engine may add to a latency, cycles, drawn from the run's
    /// seed. Default 8; 0 makes every schedule's timing identical.
    pub latency_jitter_cycles: u32,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            core_clock_mhz: 1500,
            l1_hit_cycles: 40,
            texture_hit_cycles: 40,
            uniform_hit_cycles: 20,
            rop_hit_cycles: 40,
            l2_hit_cycles: 200,
            vram_latency_cycles: 500,
            shared_memory_cycles: 32,
            l2_bank_bytes_per_cycle: 64,
            vram_channel_bytes_per_cycle: 32,
            transfer_bytes_per_cycle: 64,
            transfer_chunks_in_flight: 4,
            transfer_launch_cycles: 0,
            host_bus_latency_cycles: 1500,
            host_bus_bytes_per_cycle: 16,
            maintenance_cycles_per_line: 1,
            barrier_cycles: 20,
            dispatch_launch_cycles: 200,
            latency_jitter_cycles: 8,
        }
    }
}

/// Device limits a trace is checked against (`VkPhysicalDeviceLimits` names in snake_case).
/// Sizes and alignments in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// minStorageBufferOffsetAlignment, a power of two. Default 256.
    pub min_storage_buffer_offset_alignment: u64,
    /// minUniformBufferOffsetAlignment, a power of two. Default 256.
    pub min_uniform_buffer_offset_alignment: u64,
    /// minTexelBufferOffsetAlignment, a power of two. Default 256.
    pub min_texel_buffer_offset_alignment: u64,
    /// maxUniformBufferRange. Default 65536.
    pub max_uniform_buffer_range: u64,
    /// maxStorageBufferRange. Default 134217728 (128 MiB, the Vulkan minimum).
    pub max_storage_buffer_range: u64,
    /// nonCoherentAtomSize: the granularity of vkFlush/InvalidateMappedMemoryRanges, a power of
    /// two at most 256. Default 64 (RADV, ANV, Turnip, NVK, NVIDIA; docs/PROFILES.md).
    pub non_coherent_atom_size: u64,
    /// minMemoryMapAlignment, a power of two. Default 64.
    pub min_memory_map_alignment: u64,
    /// bufferImageGranularity, a power of two. Default 1024 (NVIDIA H100, docs/PROFILES.md).
    pub buffer_image_granularity: u64,
    /// maxComputeWorkGroupCount. Default [65535, 65535, 65535].
    pub max_compute_work_group_count: [u32; 3],
    /// maxComputeWorkGroupSize. Default [1024, 1024, 64].
    pub max_compute_work_group_size: [u32; 3],
    /// maxComputeWorkGroupInvocations. Default 1024.
    pub max_compute_work_group_invocations: u32,
    /// maxComputeSharedMemorySize; at most the CU's shared memory. Default 32768.
    pub max_compute_shared_memory_size: u32,
    /// Largest vkCmdUpdateBuffer payload (a Vulkan rule, not a limit). Default 65536.
    pub max_update_buffer_size: u64,
    /// maxPushConstantsSize. Default 128.
    pub max_push_constants_size: u32,
    /// maxBoundDescriptorSets. Default 8.
    pub max_bound_descriptor_sets: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_storage_buffer_offset_alignment: 256,
            min_uniform_buffer_offset_alignment: 256,
            min_texel_buffer_offset_alignment: 256,
            max_uniform_buffer_range: 65536,
            max_storage_buffer_range: 1 << 27,
            non_coherent_atom_size: 64,
            min_memory_map_alignment: 64,
            buffer_image_granularity: 1024,
            max_compute_work_group_count: [65535; 3],
            max_compute_work_group_size: [1024, 1024, 64],
            max_compute_work_group_invocations: 1024,
            max_compute_shared_memory_size: 32768,
            max_update_buffer_size: 65536,
            max_push_constants_size: 128,
            max_bound_descriptor_sets: 8,
        }
    }
}

/// A value at a field path that is wrong, and why.
pub(crate) type Invalid = (FieldPath, String);

fn pow2(path: &[&str], v: u64, lo: u64, hi: u64) -> Result<(), Invalid> {
    if !v.is_power_of_two() || v < lo || v > hi {
        return Err((FieldPath::keys(path), format!("{v} is not a power of two between {lo} and {hi}")));
    }
    Ok(())
}

fn range(path: &[&str], v: u64, lo: u64, hi: u64) -> Result<(), Invalid> {
    if v < lo || v > hi {
        return Err((FieldPath::keys(path), format!("{v} is out of range: expected {lo} to {hi}")));
    }
    Ok(())
}

fn check_cache(path: &[&str], spec: &Option<CacheSpec>, allowed: &[WritePolicy], why: &str) -> Result<(), Invalid> {
    let Some(spec) = spec else { return Ok(()) };
    if let Err(e) = spec.validate() {
        let mut p = FieldPath::keys(path);
        p.push_key(e.field);
        return Err((p, e.reason));
    }
    if !allowed.contains(&spec.write_policy) {
        let names: Vec<String> = allowed.iter().map(|w| policy_name(*w)).collect();
        let mut p = FieldPath::keys(path);
        p.push_key("write_policy");
        return Err((p, format!("`{}` is not allowed here ({why}): expected {}", policy_name(spec.write_policy), names.join(" or "))));
    }
    Ok(())
}

/// A write policy's kebab-case name, as profiles spell it.
pub fn policy_name(w: WritePolicy) -> String {
    serde_json::to_value(w).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

impl Machine {
    /// Checks sizes and policies, naming the first field at fault.
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        use WritePolicy::*;
        range(&["machine", "compute_units"], self.compute_units as u64, 1, 1024)?;
        check_cache(
            &["machine", "cu", "l1"],
            &self.cu.l1,
            &[WriteThroughAllocate, WriteThroughNoAllocate, WriteBackByteMask],
            "an L1 with a dirty bit per line would write stale bytes over other CUs' writes",
        )?;
        check_cache(&["machine", "cu", "texture_cache"], &self.cu.texture_cache, &[ReadOnly], "the texture cache is read-only")?;
        check_cache(&["machine", "cu", "uniform_cache"], &self.cu.uniform_cache, &[ReadOnly], "the uniform cache is read-only")?;
        range(&["machine", "cu", "shared_memory_bytes"], self.cu.shared_memory_bytes as u64, 0, 1 << 20)?;
        range(&["machine", "cu", "workgroup_slots"], self.cu.workgroup_slots as u64, 1, 64)?;
        // The interpreter keeps a subgroup's lanes in one 64-bit mask.
        pow2(&["machine", "cu", "subgroup_size"], self.cu.subgroup_size as u64, 1, 64)?;
        check_cache(
            &["machine", "l2", "cache"],
            &self.l2.cache,
            &[WriteThroughAllocate, WriteThroughNoAllocate, WriteBackByteMask, WriteBackLineDirty],
            "the L2 is written by every CU",
        )?;
        range(&["machine", "l2", "banks"], self.l2.banks as u64, 1, 256)?;
        pow2(&["machine", "l2", "bank_interleave_bytes"], self.l2.bank_interleave_bytes, 32, 1 << 20)?;
        if let Some(l2) = &self.l2.cache
            && self.l2.bank_interleave_bytes < l2.line_bytes as u64
        {
            return Err((
                FieldPath::keys(&["machine", "l2", "bank_interleave_bytes"]),
                format!("{} is smaller than the L2 line ({} bytes): a line must live in one bank", self.l2.bank_interleave_bytes, l2.line_bytes),
            ));
        }
        pow2(&["machine", "vram", "size_bytes"], self.vram.size_bytes, 1 << 16, 1 << 48)?;
        range(&["machine", "vram", "channels"], self.vram.channels as u64, 1, 256)?;
        pow2(&["machine", "vram", "channel_interleave_bytes"], self.vram.channel_interleave_bytes, 32, 1 << 20)?;
        check_cache(
            &["machine", "rop", "tile_cache"],
            &self.rop.tile_cache,
            &[WriteBackByteMask, WriteBackLineDirty, WriteThroughAllocate, WriteThroughNoAllocate],
            "ROPs write attachments",
        )?;
        range(&["machine", "rop", "units"], self.rop.units as u64, 1, 256)?;
        pow2(&["machine", "rop", "tile_pixels"], self.rop.tile_pixels as u64, 1, 64)?;
        if self.transfer.shader_min_bytes.is_some()
            && self.transfer.shader_writes == ShaderTransferWrite::Rop
            && let Some(c) = &self.rop.tile_cache
            && c.write_policy == WriteBackLineDirty
        {
            return Err((
                FieldPath::keys(&["machine", "transfer", "shader_writes"]),
                "transfers write through the ROP tile cache, whose write policy is `write-back-line-dirty`: its write-back of a partly written line would put stale bytes over bytes other writers put beside them (use `write-back-byte-mask`)".into(),
            ));
        }
        range(&["machine", "host", "write_combining_buffers"], self.host.write_combining_buffers as u64, 0, 64)?;
        pow2(&["machine", "host", "write_combining_buffer_bytes"], self.host.write_combining_buffer_bytes as u64, 4, 4096)?;
        check_cache(
            &["machine", "host", "cache"],
            &self.host.cache,
            &[WriteBackByteMask, WriteBackLineDirty, WriteThroughAllocate, WriteThroughNoAllocate],
            "the host writes through its cache",
        )?;
        // Every cache holds its bytes, tags and per-line state from the start, so their sum is
        // allocated up front.
        let size = |c: &Option<CacheSpec>| c.as_ref().map_or(0, |c| c.host_bytes());
        let per_cu = size(&self.cu.l1) + size(&self.cu.texture_cache) + size(&self.cu.uniform_cache);
        let total = u128::from(self.compute_units) * u128::from(per_cu)
            + u128::from(size(&self.l2.cache))
            + u128::from(self.rop.units) * u128::from(size(&self.rop.tile_cache))
            + u128::from(size(&self.host.cache));
        if total > MAX_TOTAL_CACHE_HOST_BYTES as u128 {
            return Err((
                FieldPath::keys(&["machine"]),
                format!("the caches take {total} bytes of host memory in all (every CU's L1, T$ and U$, the L2, every ROP's tile cache, the host cache; their lines, tags and per-line state), more than the simulator's cap of {MAX_TOTAL_CACHE_HOST_BYTES}"),
            ));
        }
        Ok(())
    }
}

/// The most host memory all of a machine's caches may take together, their tags and per-line
/// state included ([`CacheSpec::host_bytes`]; they are allocated up front).
pub const MAX_TOTAL_CACHE_HOST_BYTES: u64 = 2 << 30;

impl Timing {
    /// Checks that rates are nonzero and latencies sane.
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        const DAY: u64 = 1 << 24;
        range(&["timing", "core_clock_mhz"], self.core_clock_mhz as u64, 1, 100_000)?;
        for (name, v) in [
            ("l1_hit_cycles", self.l1_hit_cycles),
            ("texture_hit_cycles", self.texture_hit_cycles),
            ("uniform_hit_cycles", self.uniform_hit_cycles),
            ("rop_hit_cycles", self.rop_hit_cycles),
            ("l2_hit_cycles", self.l2_hit_cycles),
            ("vram_latency_cycles", self.vram_latency_cycles),
            ("shared_memory_cycles", self.shared_memory_cycles),
            ("host_bus_latency_cycles", self.host_bus_latency_cycles),
            ("maintenance_cycles_per_line", self.maintenance_cycles_per_line),
            ("barrier_cycles", self.barrier_cycles),
            ("dispatch_launch_cycles", self.dispatch_launch_cycles),
            ("latency_jitter_cycles", self.latency_jitter_cycles),
            ("transfer_launch_cycles", self.transfer_launch_cycles),

        ] {
            range(&["timing", name], v as u64, 0, DAY)?;
        }
        for (name, v) in [
            ("l2_bank_bytes_per_cycle", self.l2_bank_bytes_per_cycle),
            ("vram_channel_bytes_per_cycle", self.vram_channel_bytes_per_cycle),
            ("transfer_bytes_per_cycle", self.transfer_bytes_per_cycle),
            ("host_bus_bytes_per_cycle", self.host_bus_bytes_per_cycle),
            ("transfer_chunks_in_flight", self.transfer_chunks_in_flight),
        ] {
            range(&["timing", name], v as u64, 1, 1 << 16)?;
        }
        Ok(())
    }
}

impl Limits {
    /// Checks alignments and sizes, and that limits fit the machine.
    pub(crate) fn validate(&self, machine: &Machine) -> Result<(), Invalid> {
        pow2(&["limits", "min_storage_buffer_offset_alignment"], self.min_storage_buffer_offset_alignment, 1, 1 << 16)?;
        pow2(&["limits", "min_uniform_buffer_offset_alignment"], self.min_uniform_buffer_offset_alignment, 1, 1 << 16)?;
        pow2(&["limits", "min_texel_buffer_offset_alignment"], self.min_texel_buffer_offset_alignment, 1, 1 << 16)?;
        pow2(&["limits", "non_coherent_atom_size"], self.non_coherent_atom_size, 1, 256)?;
        pow2(&["limits", "min_memory_map_alignment"], self.min_memory_map_alignment, 1, 1 << 16)?;
        pow2(&["limits", "buffer_image_granularity"], self.buffer_image_granularity, 1, 1 << 20)?;
        range(&["limits", "max_uniform_buffer_range"], self.max_uniform_buffer_range, 1, machine.vram.size_bytes)?;
        range(&["limits", "max_storage_buffer_range"], self.max_storage_buffer_range, 1, machine.vram.size_bytes)?;
        range(&["limits", "max_update_buffer_size"], self.max_update_buffer_size, 4, 65536)?;
        for (i, v) in self.max_compute_work_group_count.iter().enumerate() {
            if *v == 0 {
                let mut p = FieldPath::keys(&["limits", "max_compute_work_group_count"]);
                p.push_index(i);
                return Err((p, "0 is out of range: expected at least 1".into()));
            }
        }
        for (i, v) in self.max_compute_work_group_size.iter().enumerate() {
            if *v == 0 || *v > 1 << 16 {
                let mut p = FieldPath::keys(&["limits", "max_compute_work_group_size"]);
                p.push_index(i);
                return Err((p, format!("{v} is out of range: expected 1 to 65536")));
            }
        }
        range(&["limits", "max_compute_work_group_invocations"], self.max_compute_work_group_invocations as u64, 1, 1 << 16)?;
        range(
            &["limits", "max_compute_shared_memory_size"],
            self.max_compute_shared_memory_size as u64,
            0,
            machine.cu.shared_memory_bytes as u64,
        )?;
        range(&["limits", "max_push_constants_size"], self.max_push_constants_size as u64, 0, 1 << 16)?;
        range(&["limits", "max_bound_descriptor_sets"], self.max_bound_descriptor_sets as u64, 1, 64)?;
        Ok(())
    }
}
