//! The simulated GPU's memory system: per-CU caches, the shared L2, VRAM, and the timing of
//! requests through them.
//!
//! # Paths
//! Every agent reaches memory along a named path, built once from the profile; a path is the
//! per-CU cache it starts at (when the CU has one), the L2 (when there is one, and for the
//! transfer engine when it goes through it), then VRAM:
//! ```text
//!   storage    CU --> L1 --+
//!   uniform    CU --> U$ --+                (no U$: the storage path)
//!   sampled    CU --> T$ --+--> L2 --> VRAM (images, when they exist)
//!   coherent   CU ---------+                (atomics, coherent accesses: after the L1 drops
//!   transfer   transfer engine -+-> L2 -+    its copy of the bytes)
//!                               +-------+--> VRAM   (direct-to-vram transfer path)
//!   transfers a driver runs as shaders (`shader_min_bytes`), on a CU the seed picks:
//!     reads    CU --> L1 or T$ (or none) --> L2 --> VRAM
//!     writes   CU --> L1 --> L2 --> VRAM, or ROP tile cache --> L2 (an L2 client) or VRAM
//! ```
//! One read and one write walk a path ([`Machine::load`], [`Machine::storage_store`],
//! [`Machine::coherent`], [`Machine::transfer_read`]); barriers maintain every instance of a
//! cache ([`Machine::perform`]), the ROPs' tile caches included (nothing writes them until
//! draws exist, so their rows cost the walk and write back nothing).
//!
//! Functional effect and timing are kept apart: every access is performed on the caches at
//! once (the bytes and provenance move now), and the timing model turns the access report into
//! a latency from the level the access entered at, adding queueing at L2 banks and VRAM channels
//! so contention shows up in cycles.

use sim_caches::{AccessError, AccessReport, BackingStore, Cache, CacheSpec, CacheStats, Chained, Maintenance, MemoryLevel, Tag, Tags};

use crate::engine::rng::Rng;
use crate::profile::{ShaderTransferRead, ShaderTransferWrite};

/// The caches a barrier table can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CacheTarget {
    /// Every CU's L1 data cache.
    L1,
    /// Every CU's texture cache (T$).
    Texture,
    /// Every CU's uniform cache (U$).
    Uniform,
    /// The shared L2.
    L2,
    /// Every ROP's tile cache (nothing writes them until draws exist: their maintenance walks
    /// and costs what the profile's tiles take).
    Rop,
}

impl CacheTarget {
    /// The name a barrier table uses.
    pub fn name(self) -> &'static str {
        match self {
            CacheTarget::L1 => "L1",
            CacheTarget::Texture => "T$",
            CacheTarget::Uniform => "U$",
            CacheTarget::L2 => "L2",
            CacheTarget::Rop => "ROP",
        }
    }
}

/// One cache operation of a barrier, as the engine performs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheOp {
    /// Which cache (every instance of it).
    pub target: CacheTarget,
    /// What to do to its lines.
    pub action: Maintenance,
    /// Device-address range `(addr, size)`, or `None` for the whole cache.
    pub range: Option<(u64, u64)>,
}

/// Where the transfer engine reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferPath {
    /// Through the L2, coherent with shader traffic there.
    ThroughL2,
    /// Straight to VRAM, bypassing (and not coherent with) the L2.
    DirectToVram,
}

/// How a transfer that runs as a driver shader reaches memory
/// ([`crate::profile::TransferSpec::shader_min_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderTransfers {
    /// Transfers (copy regions, fills, updates) of at least this many bytes run as shaders.
    pub min_bytes: u64,
    /// Where they read.
    pub reads: crate::profile::ShaderTransferRead,
    /// Where they write.
    pub writes: crate::profile::ShaderTransferWrite,
}

impl ShaderTransfers {
    /// Whether a transfer of `bytes` (a copy region, a fill, an update) runs as a shader.
    pub fn runs(&self, bytes: u64) -> bool {
        bytes >= self.min_bytes
    }
}

impl MachineConfig {
    /// Whether transfers the driver runs as shaders write through the ROPs (so their tile caches
    /// can hold dirty bytes).
    pub fn transfers_write_through_rops(&self) -> bool {
        matches!(self.shader_transfers, Some(ShaderTransfers { writes: ShaderTransferWrite::Rop, .. }))
    }
}

/// Which unit moves a transfer's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferUnit {
    /// The transfer engine, on the transfer path.
    Engine,
    /// A driver shader's workgroup on CU `cu`, on the shader-transfer paths.
    Shader {
        /// The CU.
        cu: usize,
    },
}

/// Everything the engine needs to know about the machine, derived from a profile.
#[derive(Clone, Debug)]
pub struct MachineConfig {
    /// Number of compute units.
    pub compute_units: u32,
    /// Workgroups one CU holds at once.
    pub workgroup_slots_per_cu: u32,
    /// Lanes per subgroup.
    pub subgroup_size: u32,
    /// Per-CU L1 data cache (absent: storage accesses go to the L2).
    pub l1: Option<CacheSpec>,
    /// Per-CU texture cache.
    pub texture: Option<CacheSpec>,
    /// Per-CU uniform cache (absent: uniform loads go through the L1 path).
    pub uniform: Option<CacheSpec>,
    /// Shared L2 (absent: everything below the CU goes to VRAM).
    pub l2: Option<CacheSpec>,
    /// Each ROP's colour/depth tile cache (absent: attachment writes go to the L2).
    pub rop_tile_cache: Option<CacheSpec>,
    /// ROP units.
    pub rop_units: u32,
    /// L2 banks.
    pub l2_banks: u32,
    /// Bytes of consecutive addresses one L2 bank holds before the next bank's.
    pub l2_bank_interleave_bytes: u64,
    /// VRAM channels.
    pub vram_channels: u32,
    /// VRAM channel interleave, bytes.
    pub vram_interleave_bytes: u64,
    /// Transfer engine path.
    pub transfer_path: TransferPath,
    /// Transfers the driver runs as shaders, if any.
    pub shader_transfers: Option<ShaderTransfers>,
    /// Whether the ROP tile caches write back into the L2 (else to VRAM beside it).
    pub rop_l2_client: bool,
    /// Cycles: hit in an L1.
    pub l1_hit_cycles: u64,
    /// Cycles: hit in a U$.
    pub uniform_hit_cycles: u64,
    /// Cycles per subgroup-wide access to workgroup (shared) memory.
    pub shared_memory_cycles: u64,
    /// Cycles added by going to the L2.
    pub l2_hit_cycles: u64,
    /// Cycles added by going to VRAM.
    pub vram_cycles: u64,
    /// Cycles per shader instruction of a subgroup.
    pub cycles_per_instruction: u64,
    /// Bytes per cycle one L2 bank serves.
    pub l2_bank_bytes_per_cycle: u64,
    /// Bytes per cycle one VRAM channel serves.
    pub vram_channel_bytes_per_cycle: u64,
    /// Bytes per cycle the transfer engine moves.
    pub transfer_bytes_per_cycle: u64,
    /// Cycles from a transfer's launch to its first chunk.
    pub transfer_launch_cycles: u64,
    /// Chunks the transfer engine keeps in flight.
    pub transfer_chunks_in_flight: u64,
    /// Cycles per line a cache maintenance operation examines.
    pub maintenance_cycles_per_line: u64,
    /// Fixed cycles a barrier costs (the pipeline drain it forces is counted separately).
    pub barrier_cycles: u64,
    /// Cycles to launch a workgroup on a CU.
    pub workgroup_launch_cycles: u64,

    /// Largest random extra latency per memory access, cycles (0 = none).
    pub latency_jitter_cycles: u64,
    /// Host: cycles for a host access to device memory (uncached).
    pub host_access_cycles: u64,
    /// The host CPU's side of mapped memory: write-combining buffers, host cache,
    /// nonCoherentAtomSize.
    pub host: sim_host::HostSpec,
    /// Host bus latency and bandwidth.
    pub host_timing: sim_host::HostTiming,
    /// Driver choices that are not table rows.
    pub policies: crate::profile::Policies,
}

/// Per-CU caches.
pub struct ComputeUnit {
    /// L1 data cache.
    pub l1: Option<Cache>,
    /// Texture cache.
    pub texture: Option<Cache>,
    /// Uniform cache.
    pub uniform: Option<Cache>,
}

impl ComputeUnit {
    /// The cache `c`, if this CU has one.
    pub fn cache(&self, c: CuCache) -> Option<&Cache> {
        match c {
            CuCache::L1 => self.l1.as_ref(),
            CuCache::Texture => self.texture.as_ref(),
            CuCache::Uniform => self.uniform.as_ref(),
        }
    }

    /// The cache `c`, if this CU has one, to access.
    pub fn cache_mut(&mut self, c: CuCache) -> Option<&mut Cache> {
        match c {
            CuCache::L1 => self.l1.as_mut(),
            CuCache::Texture => self.texture.as_mut(),
            CuCache::Uniform => self.uniform.as_mut(),
        }
    }
}

/// Which level served a read: named in findings ("via"). `depth` counts from the CU's first
/// level (an access that starts at the L2 has depth at least 1).
pub fn via_name(first: &'static str, depth: u8, has_l2: bool) -> &'static str {
    match (depth, has_l2) {
        (0, _) => first,
        (1, true) => "L2",
        _ => "VRAM",
    }
}

/// The level a read entered the memory system at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Entry {
    /// Flat memory (the reference run): no levels.
    #[default]
    Flat,
    /// The CU's L1.
    L1,
    /// The CU's uniform cache.
    Uniform,
    /// The L2 (a coherent access, a transfer through the L2, or a CU without an L1).
    L2,
    /// VRAM, no cache in front.
    Vram,
}

/// A per-CU cache a path may start at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CuCache {
    /// The L1 data cache.
    L1,
    /// The texture cache.
    Texture,
    /// The uniform cache.
    Uniform,
}

impl CuCache {
    /// Its name in reports: `L1`, `T$`, `U$`.
    pub fn name(self) -> &'static str {
        match self {
            CuCache::L1 => "L1",
            CuCache::Texture => "T$",
            CuCache::Uniform => "U$",
        }
    }
}

/// A path through the memory system: the per-CU cache an access starts at (if the profile has
/// one there), whether the L2 comes next, then VRAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    /// The per-CU cache first on the path.
    pub cu_cache: Option<CuCache>,
    /// Whether the path goes through the L2.
    pub l2: bool,
}

impl Path {
    /// The level an access on this path enters at: what its timing starts from and what a
    /// finding names first.
    pub fn entry(self) -> Entry {
        match (self.cu_cache, self.l2) {
            (Some(CuCache::L1 | CuCache::Texture), _) => Entry::L1,
            (Some(CuCache::Uniform), _) => Entry::Uniform,
            (None, true) => Entry::L2,
            (None, false) => Entry::Vram,
        }
    }
}

/// The agents' named paths, built once from the profile ([`Machine::path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathName {
    /// Shader storage loads and stores: the L1, the L2.
    Storage = 0,
    /// Shader uniform loads: the U$ (the storage path when the CU has none), the L2.
    Uniform = 1,
    /// Sampled reads once images exist: the T$, the L2.
    Sampled = 2,
    /// Atomics and coherent accesses: the L2, the device's coherence point.
    Coherent = 3,
    /// The transfer engine: the L2 or straight to VRAM, as the profile's transfer path says.
    Transfer = 4,
    /// A transfer's reads when the driver runs it as a shader: the CU's L1 or T$ (as the
    /// profile says), the L2.
    ShaderTransferRead = 5,
}

/// Which level served each line of a read, as the read reported it: kept for every load, so
/// compact; [`Machine::via`] names the level of a byte when a stale read is explained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// The level the read entered at.
    pub entry: Entry,
    /// The read's deepest depth below that level (for lines past the recorded ones).
    pub depth: u8,
    /// Depth below that level per line of the read ([`AccessReport::line_depths`]).
    pub line_depths: u64,
}

impl Served {
    fn of(entry: Entry, report: &AccessReport) -> Served {
        Served { entry, depth: report.depth, line_depths: report.line_depths }
    }
}

/// The memory system of the simulated GPU.
pub struct Machine {
    /// The configuration it was built from.
    pub config: MachineConfig,
    /// Device memory.
    pub vram: BackingStore,
    /// Shared L2.
    pub l2: Option<Cache>,
    /// Compute units.
    pub cus: Vec<ComputeUnit>,
    /// Each ROP's tile cache.
    pub rops: Vec<Cache>,
    l2_bank_free: Vec<u64>,
    vram_channel_free: Vec<u64>,
    /// The named paths ([`PathName`] indexes them).
    paths: [Path; 6],
}

/// Outcome of one access: latency and which level served it.
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    /// Cycles from issue to completion.
    pub latency: u64,
    /// Deepest level reached (0: the first cache).
    pub depth: u8,
}

impl Machine {
    /// The level that served the byte at `addr` of a read that started at `start` and was
    /// served as `served` says: what a finding names as "via".
    pub fn via(&self, served: &Served, start: u64, addr: u64) -> &'static str {
        let line = |c: &Option<Cache>| c.as_ref().map_or(0, |c| c.spec().line_bytes as u64);
        let cu = self.cus.first();
        let (first, line_bytes, depth_offset) = match served.entry {
            Entry::Flat => return "memory",
            Entry::L1 => ("L1", cu.map_or(0, |c| line(&c.l1)), 0),
            Entry::Uniform => ("U$", cu.map_or(0, |c| line(&c.uniform)), 0),
            Entry::L2 => ("L2", line(&self.l2), 1),
            Entry::Vram => ("VRAM", 0, 0),
        };
        let k = (addr.checked_div(line_bytes).unwrap_or(0) - start.checked_div(line_bytes).unwrap_or(0)) as usize;
        via_name(first, sim_caches::line_depth(served.line_depths, served.depth, k) + depth_offset, self.l2.is_some())
    }

    /// Builds the memory system over an address space of `address_space` bytes.
    /// Each cache's replacement draws from its own stream of `seed` ([`Rng::for_unit`]).
    pub fn new(config: MachineConfig, address_space: u64, seed: u64) -> Result<Machine, String> {
        let seed_of = |name: &str| Rng::for_unit(seed, name).next_u64();
        let vram = BackingStore::new(address_space.max(1 << 16), config.vram_channels, config.vram_interleave_bytes)
            .map_err(|e| e.to_string())?;
        let l2 = match &config.l2 {
            Some(spec) => Some(Cache::new("L2", spec, seed_of("L2")).map_err(|e| e.to_string())?),
            None => None,
        };
        let mut cus = Vec::new();
        for i in 0..config.compute_units {
            let mk = |name: &str, spec: &Option<CacheSpec>| -> Result<Option<Cache>, String> {
                let name = format!("{name}[{i}]");
                spec.as_ref().map(|s| Cache::new(name.clone(), s, seed_of(&name)).map_err(|e| e.to_string())).transpose()
            };
            cus.push(ComputeUnit {
                l1: mk("L1", &config.l1)?,
                texture: mk("T$", &config.texture)?,
                uniform: mk("U$", &config.uniform)?,
            });
        }
        let mut rops = Vec::new();
        if let Some(spec) = &config.rop_tile_cache {
            for i in 0..config.rop_units {
                let name = format!("ROP$[{i}]");
                rops.push(Cache::new(name.clone(), spec, seed_of(&name)).map_err(|e| e.to_string())?);
            }
        }
        let has_l2 = l2.is_some();
        let storage = Path { cu_cache: config.l1.as_ref().map(|_| CuCache::L1), l2: has_l2 };
        let paths = [
            storage,
            if config.uniform.is_some() { Path { cu_cache: Some(CuCache::Uniform), l2: has_l2 } } else { storage },
            Path { cu_cache: config.texture.as_ref().map(|_| CuCache::Texture), l2: has_l2 },
            Path { cu_cache: None, l2: has_l2 && config.policies.atomics_at == crate::profile::AtomicsAt::L2 },
            Path { cu_cache: None, l2: has_l2 && config.transfer_path == TransferPath::ThroughL2 },
            Path {
                cu_cache: match config.shader_transfers.map(|t| t.reads) {
                    Some(ShaderTransferRead::L1) => config.l1.as_ref().map(|_| CuCache::L1),
                    Some(ShaderTransferRead::Texture) => config.texture.as_ref().map(|_| CuCache::Texture),
                    Some(ShaderTransferRead::L2) | None => None,
                },
                l2: has_l2,
            },
        ];
        Ok(Machine {
            paths,
            l2_bank_free: vec![0; config.l2_banks.max(1) as usize],
            vram_channel_free: vec![0; config.vram_channels.max(1) as usize],
            config,
            vram,
            l2,
            cus,
            rops,
        })
    }

    /// Turns an access report into a latency at cycle `now` for an access that entered at
    /// `entry` (whose hit latency it starts from), with contention at the L2 bank and VRAM channel
    /// of `addr`, and `jitter` extra cycles.
    fn time(&mut self, now: u64, addr: u64, bytes: u64, report: &AccessReport, entry: Entry, jitter: u64) -> Timed {
        let c = &self.config;
        let first_level_is_l2 = matches!(entry, Entry::L2 | Entry::Vram | Entry::Flat);
        let mut latency = match entry {
            Entry::Uniform => c.uniform_hit_cycles,
            Entry::L1 => c.l1_hit_cycles,
            Entry::L2 | Entry::Vram | Entry::Flat => c.l2_hit_cycles,
        };
        let mut depth = report.depth;
        if first_level_is_l2 {
            depth += 1;
        }
        if depth >= 1 && self.l2.is_some() {
            if !first_level_is_l2 {
                latency += c.l2_hit_cycles;
            }
            let bank = ((addr / c.l2_bank_interleave_bytes.max(1)) % self.l2_bank_free.len() as u64) as usize;
            let service = bytes.div_ceil(c.l2_bank_bytes_per_cycle.max(1));
            let start = self.l2_bank_free[bank].max(now);
            self.l2_bank_free[bank] = start + service;
            latency += start - now;
        }
        let vram_transactions = u64::from(report.dram_read_transactions) + u64::from(report.dram_write_transactions);
        if vram_transactions > 0 || (depth >= 2) || (depth >= 1 && self.l2.is_none()) {
            latency += c.vram_cycles;
            let ch = self.vram.channel_of(addr) as usize;
            let service = (vram_transactions.max(1) * sim_caches::TRANSACTION_BYTES).div_ceil(c.vram_channel_bytes_per_cycle.max(1));
            let start = self.vram_channel_free[ch].max(now);
            self.vram_channel_free[ch] = start + service;
            latency += start - now;
        }
        Timed { latency: latency + jitter, depth }
    }

    /// The path for `name`.
    pub fn path(&self, name: PathName) -> Path {
        self.paths[name as usize]
    }

    /// Reads through `path` for CU `cu`: the one place an access walks caches and memory.
    fn read_path(&mut self, path: Path, cu: usize, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        let Machine { l2, vram, cus, .. } = self;
        let first = path.cu_cache.and_then(|c| cus[cu].cache_mut(c));
        match (first, l2.as_mut().filter(|_| path.l2)) {
            (Some(c), Some(l2)) => c.read(&mut Chained { cache: l2, next: vram }, addr, data, tags),
            (Some(c), None) => c.read(vram, addr, data, tags),
            (None, Some(l2)) => l2.read(vram, addr, data, tags),
            (None, None) => vram.read(addr, data, tags),
        }
    }

    /// Writes through `path` for CU `cu`, each level per its write policy.
    fn write_path(&mut self, path: Path, cu: usize, addr: u64, data: &[u8], tag: Tag) -> Result<AccessReport, AccessError> {
        let Machine { l2, vram, cus, .. } = self;
        let first = path.cu_cache.and_then(|c| cus[cu].cache_mut(c));
        match (first, l2.as_mut().filter(|_| path.l2)) {
            (Some(c), Some(l2)) => c.write(&mut Chained { cache: l2, next: vram }, addr, data, Tags::One(tag), None),
            (Some(c), None) => c.write(vram, addr, data, Tags::One(tag), None),
            (None, Some(l2)) => l2.write(vram, addr, data, Tags::One(tag), None),
            (None, None) => vram.write(addr, data, Tags::One(tag), None),
        }
    }

    /// A shader load on path `name` (storage: the L1; uniform: the U$; each then the L2 and
    /// VRAM, as the profile built them), timed from the level it entered at.
    #[allow(clippy::too_many_arguments)]
    pub fn load(&mut self, name: PathName, cu: usize, now: u64, addr: u64, data: &mut [u8], tags: &mut [Tag], jitter: u64) -> Result<(Timed, Served), AccessError> {
        let path = self.path(name);
        let report = self.read_path(path, cu, addr, data, tags)?;
        let entry = path.entry();
        Ok((self.time(now, addr, data.len() as u64, &report, entry, jitter), Served::of(entry, &report)))
    }

    /// Hints the host that a shader load at `addr` on path `name` is coming, so that the host's
    /// memory latency for its cache state and bytes overlaps with other work
    /// ([`sim_caches::MemoryLevel::prefetch`]). Changes nothing simulated.
    pub fn prefetch_load(&mut self, name: PathName, cu: usize, addr: u64) {
        let path = self.path(name);
        let Machine { l2, vram, cus, .. } = self;
        let Some(unit) = cus.get(cu) else { return };
        let first = path.cu_cache.and_then(|c| unit.cache(c));
        match (first, l2.as_mut().filter(|_| path.l2)) {
            (Some(c), Some(l2)) => c.prefetch(&Chained { cache: l2, next: vram }, addr),
            (Some(c), None) => c.prefetch(&*vram, addr),
            (None, Some(l2)) => l2.prefetch(&*vram, addr),
            (None, None) => vram.prefetch(addr),
        }
    }

    /// A shader storage store on the storage path (the L1 per its write policy).
    pub fn storage_store(&mut self, cu: usize, now: u64, addr: u64, data: &[u8], tag: Tag, jitter: u64) -> Result<Timed, AccessError> {
        let path = self.path(PathName::Storage);
        let report = self.write_path(path, cu, addr, data, tag)?;
        // A store completes when the first level accepts it; what it costs below is bandwidth.
        let mut t = self.time(now, addr, data.len() as u64, &report, path.entry(), jitter);
        t.latency = t.latency.min(self.config.l1_hit_cycles + jitter);
        Ok(t)
    }

    /// Writes back and drops what CU `cu`'s L1 holds of `[addr, addr + len)` (and the L2, when
    /// the coherent path bypasses it): an access at the coherence point must not leave a cache
    /// above it holding a copy older than it.
    fn drop_from_l1(&mut self, cu: usize, addr: u64, len: u64) -> Result<(), AccessError> {
        let bypass_l2 = !self.path(PathName::Coherent).l2;
        let Machine { l2, vram, cus, .. } = self;
        if let Some(l1) = cus[cu].l1.as_mut() {
            match l2.as_mut() {
                Some(l2) => l1.maintain(&mut Chained { cache: l2, next: vram }, Maintenance::FlushInvalidate, Some((addr, len)))?,
                None => l1.maintain(vram, Maintenance::FlushInvalidate, Some((addr, len)))?,
            };
        }
        // After the L1, whose write-back may have landed in the L2.
        if bypass_l2 && let Some(l2) = l2.as_mut() {
            l2.maintain(vram, Maintenance::FlushInvalidate, Some((addr, len)))?;
        }
        Ok(())
    }

    /// An atomic read-modify-write, performed at the L2 (the device's coherence point for
    /// atomics), or at VRAM when there is no L2. A CU's L1 copy of the line is dropped first so
    /// the CU does not keep reading a value older than its own atomic.
    #[allow(clippy::too_many_arguments)]
    pub fn atomic(&mut self, cu: usize, now: u64, addr: u64, old: &mut [u8], tag: Tag, jitter: u64, op: impl FnOnce(&[u8], &mut [u8])) -> Result<Timed, AccessError> {
        // Atomics bypass the L1: write back and drop what it holds of these bytes.
        self.drop_from_l1(cu, addr, old.len() as u64)?;
        let at_l2 = self.path(PathName::Coherent).l2;
        let Machine { l2, vram, .. } = self;
        let report = match l2.as_mut().filter(|_| at_l2) {
            Some(l2) => l2.read_modify_write(vram, addr, old, tag, op)?,
            None => {
                let mut tags = vec![0; sim_caches::word_span(addr, old.len())];
                let mut r = vram.read(addr, old, &mut tags)?;
                let mut new = old.to_vec();
                op(old, &mut new);
                r.merge(&vram.write(addr, &new, Tags::One(tag), None)?);
                r
            }
        };
        let entry = self.path(PathName::Coherent).entry();
        Ok(self.time(now, addr, old.len() as u64 * 2, &report, entry, jitter))
    }

    /// A coherent load or store (an atomicLoad / atomicStore, or any device-scope coherent
    /// access): performed on the coherent path (the L2, the device's coherence point), after the
    /// CU's L1 has written back and dropped its copy of those bytes, as for read-modify-write
    /// atomics.
    #[allow(clippy::too_many_arguments)]
    pub fn coherent(&mut self, cu: usize, now: u64, addr: u64, load: Option<(&mut [u8], &mut [Tag])>, store: Option<(&[u8], Tag)>, jitter: u64) -> Result<(Timed, Served), AccessError> {
        let path = self.path(PathName::Coherent);
        let len = load.as_ref().map(|(d, _)| d.len()).or(store.map(|(d, _)| d.len())).unwrap_or(0) as u64;
        self.drop_from_l1(cu, addr, len)?;
        let mut report = match load {
            Some((data, tags)) => self.read_path(path, cu, addr, data, tags)?,
            None => AccessReport::default(),
        };
        if let Some((data, tag)) = store {
            report.merge(&self.write_path(path, cu, addr, data, tag)?);
        }
        Ok((self.time(now, addr, len, &report, path.entry(), jitter), Served::of(path.entry(), &report)))
    }

    /// A transfer's read by `unit`: the transfer engine's on the transfer path (through the L2
    /// or straight to VRAM, as the profile says), a driver shader's on the shader-transfer read
    /// path of its CU.
    pub fn transfer_read(&mut self, now: u64, addr: u64, data: &mut [u8], tags: &mut [Tag], unit: TransferUnit) -> Result<(Timed, Served), AccessError> {
        let (path, cu) = match unit {
            TransferUnit::Engine => (self.path(PathName::Transfer), 0),
            TransferUnit::Shader { cu } => (self.path(PathName::ShaderTransferRead), cu),
        };
        let report = self.read_path(path, cu, addr, data, tags)?;
        Ok((self.time(now, addr, data.len() as u64, &report, path.entry(), 0), Served::of(path.entry(), &report)))
    }

    /// A transfer's write by `unit`: the transfer engine's on the transfer path, a driver
    /// shader's on its CU's storage path (a shader's buffer store) or through the ROP that owns
    /// the address, as the profile says.
    pub fn transfer_write(&mut self, now: u64, addr: u64, data: &[u8], tag: Tag, unit: TransferUnit) -> Result<Timed, AccessError> {
        let through_rop = self.config.transfers_write_through_rops();
        let (path, cu) = match unit {
            TransferUnit::Engine => (self.path(PathName::Transfer), 0),
            TransferUnit::Shader { .. } if through_rop && !self.rops.is_empty() => return self.rop_write(now, addr, data, tag),
            // Without tile caches the ROPs write where their tile caches would write back.
            TransferUnit::Shader { .. } if through_rop => (Path { cu_cache: None, l2: self.l2.is_some() && self.config.rop_l2_client }, 0),
            TransferUnit::Shader { cu } => (self.path(PathName::Storage), cu),
        };
        let report = self.write_path(path, cu, addr, data, tag)?;
        Ok(self.time(now, addr, data.len() as u64, &report, path.entry(), 0))
    }

    /// A write through the tile cache of the ROP that owns `addr` (ROPs own interleaved lines),
    /// which writes back into the L2 or VRAM as the profile says.
    fn rop_write(&mut self, now: u64, addr: u64, data: &[u8], tag: Tag) -> Result<Timed, AccessError> {
        let Machine { l2, vram, rops, config, .. } = self;
        let line = rops[0].spec().line_bytes as u64;
        let unit = ((addr / line.max(1)) % rops.len() as u64) as usize;
        let rop = &mut rops[unit];
        let report = match l2.as_mut().filter(|_| config.rop_l2_client) {
            Some(l2) => rop.write(&mut Chained { cache: l2, next: vram }, addr, data, Tags::One(tag), None)?,
            None => rop.write(vram, addr, data, Tags::One(tag), None)?,
        };
        Ok(self.time(now, addr, data.len() as u64, &report, Entry::L1, 0))
    }

    /// Performs one barrier cache operation on every instance of its cache; returns the cycles
    /// it takes (lines walked, plus the bandwidth of what was written back), and the lines and
    /// bytes written back.
    pub fn perform(&mut self, op: &CacheOp) -> Result<(u64, u64, u64), AccessError> {
        let Machine { l2, vram, cus, rops, config, .. } = self;
        let mut total = AccessReport::default();
        match op.target {
            CacheTarget::L2 => {
                if let Some(l2) = l2.as_mut() {
                    total.merge(&l2.maintain(vram, op.action, op.range)?);
                }
            }
            CacheTarget::Rop => {
                for c in rops.iter_mut() {
                    let r = match l2.as_mut().filter(|_| config.rop_l2_client) {
                        Some(l2) => c.maintain(&mut Chained { cache: l2, next: vram }, op.action, op.range)?,
                        None => c.maintain(vram, op.action, op.range)?,
                    };
                    total.merge(&r);
                }
            }
            t => {
                for cu in cus.iter_mut() {
                    let c = match t {
                        CacheTarget::L1 => cu.l1.as_mut(),
                        CacheTarget::Texture => cu.texture.as_mut(),
                        _ => cu.uniform.as_mut(),
                    };
                    if let Some(c) = c {
                        let r = match l2.as_mut() {
                            Some(l2) => c.maintain(&mut Chained { cache: l2, next: vram }, op.action, op.range)?,
                            None => c.maintain(vram, op.action, op.range)?,
                        };
                        total.merge(&r);
                    }
                }
            }
        }
        // CUs walk their caches in parallel (one CU's walk is charged) or one after another, as
        // the profile's policy says; every written-back byte is charged.
        let walked = match (op.target, config.policies.cu_cache_walks) {
            (CacheTarget::L2, _) | (_, crate::profile::CuCacheWalks::Serial) => u64::from(total.lines_examined),
            // The ROPs, like the CUs, walk their tile caches at once.
            (CacheTarget::Rop, crate::profile::CuCacheWalks::Parallel) => u64::from(total.lines_examined) / rops.len().max(1) as u64,
            (_, crate::profile::CuCacheWalks::Parallel) => u64::from(total.lines_examined) / cus.len().max(1) as u64,
        };
        let cycles = walked * config.maintenance_cycles_per_line
            + total.writeback_bytes.div_ceil(config.vram_channel_bytes_per_cycle.max(1) * config.vram_channels.max(1) as u64);
        Ok((cycles, total.writeback_lines as u64, total.writeback_bytes))
    }

    /// Writes every dirty byte down to VRAM (L1s, then the L2): the device's memory as it stands
    /// once every cache has drained, which is what the end-of-run comparison looks at.
    pub fn drain(&mut self) -> Result<(), AccessError> {
        // The ROPs' tile caches hold dirty bytes only where transfers write through them.
        let targets: &[CacheTarget] = if self.config.transfers_write_through_rops() { &[CacheTarget::Rop, CacheTarget::L1, CacheTarget::L2] } else { &[CacheTarget::L1, CacheTarget::L2] };
        for &target in targets {
            self.perform(&CacheOp { target, action: Maintenance::Flush, range: None })?;
        }
        Ok(())
    }

    /// Statistics per cache instance, in a fixed order (`L1[0]`, `T$[0]`, `U$[0]`, ..., `L2`).
    pub fn cache_stats(&self) -> Vec<(String, CacheStats)> {
        let mut out = Vec::new();
        for cu in &self.cus {
            for c in [&cu.l1, &cu.texture, &cu.uniform].into_iter().flatten() {
                out.push((c.name().to_string(), c.stats()));
            }
        }
        if let Some(l2) = &self.l2 {
            out.push(("L2".into(), l2.stats()));
        }
        for c in &self.rops {
            out.push((c.name().to_string(), c.stats()));
        }
        out
    }
}
