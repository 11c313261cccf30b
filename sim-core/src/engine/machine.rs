//! The simulated GPU's memory system: per-CU caches, the ROPs' tile caches, the shared L2, VRAM,
//! and the timing of requests through them.
//!
//! # Paths
//! Every agent reaches memory along a named path, built once from the profile: an ordered list of
//! levels ([`LevelId`]), each a cache the profile has, ending at VRAM:
//! ```text
//!   storage    [L1, L2, VRAM]      CU --> L1 --+
//!   uniform    [U$, L2, VRAM]      CU --> U$ --+                (no U$: the storage path)
//!   sampled    [T$, L2, VRAM]      CU --> T$ --+--> L2 --> VRAM (images, when they exist)
//!   coherent   [L2, VRAM]          CU ---------+                (atomics, coherent accesses:
//!                                  after the L1 drops its copy; [VRAM] with atomics at memory)
//!   transfer   [L2, VRAM] or [VRAM]  transfer engine -+-> L2 -+
//!                                                     +-------+--> VRAM (direct-to-vram)
//!   transfers a driver runs as shaders (`shader_min_bytes`), on a CU the seed picks:
//!     reads    [L1 or T$, L2, VRAM] or [L2, VRAM]
//!     writes   the storage path, or [ROP, L2, VRAM] / [ROP, VRAM] (the ROP's tile cache writes
//!              back into the L2 when it is an L2 client, beside it otherwise)
//! ```
//! A level the profile leaves out (`"none"`) is left out of every path. One chain builder
//! ([`Below`]) turns the levels under a path's first into the [`MemoryLevel`] that first level
//! reads, writes, prefetches and writes back through, so a new level is one [`LevelId`] and one
//! arm there.
//!
//! One read and one write walk a path ([`Machine::load`], [`Machine::storage_store`],
//! [`Machine::coherent`], [`Machine::transfer_read`]); barriers maintain every instance of a
//! cache ([`Machine::perform`]), the ROPs' tile caches included (until draws exist only
//! transfers a driver writes through the ROPs put bytes there; elsewhere their rows cost the
//! walk and write back nothing).
//!
//! # Compression
//! Compressible memory (optimal colour images on a profile that compresses) has metadata in
//! [`Machine::meta`]. An access that understands it ([`Machine::decodes`]: every access where
//! the metadata is per page, the profile's decoders on image accesses where it is per image)
//! goes through a [`sim_rop::Codec`] placed just under the agent's own cache ([`Under`]), so the
//! L2 and VRAM hold tiles as stored (compressed) and the agent's cache holds texels; any other
//! access reads and writes the stored bytes.
//!
//! Functional effect and timing are kept apart: every access is performed on the caches at
//! once (the bytes and provenance move now), and the timing model turns the access report into
//! a latency from the hit latency of the level the access entered at, adding the L2 and VRAM
//! for the lines that went below it and queueing at L2 banks and VRAM channels so contention
//! shows up in cycles.

use sim_caches::{AccessError, AccessReport, BackingStore, Cache, CacheStats, Chained, Maintenance, MemoryLevel, Tag, Tags};
use sim_rop::{Codec, Metadata};

use crate::engine::rng::Rng;
use crate::profile::{AtomicsAt, COMPRESSION_PAGE_BYTES, CuCacheWalks, ImageUnit, MetadataPlacement, Policies, Profile, ShaderTransferRead, Timing, TransferPath};

/// A level of the memory system: a cache an access can pass through, or VRAM. Its name is what
/// reports and findings print ("via").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LevelId {
    /// A CU's L1 data cache.
    L1,
    /// A CU's texture cache (T$).
    Texture,
    /// A CU's uniform cache (U$).
    Uniform,
    /// A ROP's colour/depth tile cache.
    Rop,
    /// The shared L2.
    L2,
    /// Device memory.
    Vram,
}

impl LevelId {
    /// Its name in reports, findings and barrier tables: `L1`, `T$`, `U$`, `ROP`, `L2`, `VRAM`.
    pub fn name(self) -> &'static str {
        match self {
            LevelId::L1 => "L1",
            LevelId::Texture => "T$",
            LevelId::Uniform => "U$",
            LevelId::Rop => "ROP",
            LevelId::L2 => "L2",
            LevelId::Vram => "VRAM",
        }
    }

    /// Whether each CU has its own instance.
    pub fn per_cu(self) -> bool {
        matches!(self, LevelId::L1 | LevelId::Texture | LevelId::Uniform)
    }

    /// Whether the level sits above the L2, in front of an agent (a CU's caches, a ROP's tile
    /// cache): the L2 is one level deeper than it.
    fn above_l2(self) -> bool {
        self.per_cu() || self == LevelId::Rop
    }
}

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
    /// The level whose every instance it names.
    pub fn level(self) -> LevelId {
        match self {
            CacheTarget::L1 => LevelId::L1,
            CacheTarget::Texture => LevelId::Texture,
            CacheTarget::Uniform => LevelId::Uniform,
            CacheTarget::L2 => LevelId::L2,
            CacheTarget::Rop => LevelId::Rop,
        }
    }

    /// The name a barrier table uses: its level's.
    pub fn name(self) -> &'static str {
        self.level().name()
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
    /// This CU's instance of `level`, if it has one (none of a level that is not per CU).
    pub fn cache(&self, level: LevelId) -> Option<&Cache> {
        match level {
            LevelId::L1 => self.l1.as_ref(),
            LevelId::Texture => self.texture.as_ref(),
            LevelId::Uniform => self.uniform.as_ref(),
            _ => None,
        }
    }

    /// This CU's instance of `level`, if it has one, to access.
    pub fn cache_mut(&mut self, level: LevelId) -> Option<&mut Cache> {
        match level {
            LevelId::L1 => self.l1.as_mut(),
            LevelId::Texture => self.texture.as_mut(),
            LevelId::Uniform => self.uniform.as_mut(),
            _ => None,
        }
    }
}

/// A path through the memory system: the levels an access passes, first to last (VRAM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    levels: [LevelId; Path::MAX_LEVELS],
    len: u8,
}

impl Path {
    /// The most levels a path has.
    pub const MAX_LEVELS: usize = 4;

    /// The path through `levels`, first to last.
    ///
    /// # Panics
    /// When `levels` is empty or longer than [`Path::MAX_LEVELS`].
    pub fn new(levels: &[LevelId]) -> Path {
        assert!(!levels.is_empty() && levels.len() <= Path::MAX_LEVELS, "a path has 1 to {} levels", Path::MAX_LEVELS);
        let mut all = [LevelId::Vram; Path::MAX_LEVELS];
        all[..levels.len()].copy_from_slice(levels);
        Path { levels: all, len: levels.len() as u8 }
    }

    /// `first` (when there is one), then the L2 (when `l2`), then VRAM.
    fn through(first: Option<LevelId>, l2: bool) -> Path {
        let mut levels = Vec::with_capacity(3);
        levels.extend(first);
        if l2 {
            levels.push(LevelId::L2);
        }
        levels.push(LevelId::Vram);
        Path::new(&levels)
    }

    /// Its levels, first to last.
    pub fn levels(&self) -> &[LevelId] {
        &self.levels[..self.len as usize]
    }

    /// The level an access on this path enters at: what its timing starts from and what a
    /// finding names first.
    pub fn first(self) -> LevelId {
        self.levels[0]
    }

    /// The per-CU cache first on the path, if any.
    pub fn cu_cache(self) -> Option<LevelId> {
        Some(self.first()).filter(|l| l.per_cu())
    }

    /// The level `depth` levels below the first (the last, VRAM, for anything deeper).
    pub fn level(self, depth: u8) -> LevelId {
        self.levels[(depth as usize).min(self.len as usize - 1)]
    }

    /// Whether the path passes `level`.
    pub fn passes(self, level: LevelId) -> bool {
        self.levels().contains(&level)
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
    /// Writes through a ROP: its tile cache, then the L2 when the ROPs are its clients (where
    /// the tile cache would write back, when the profile has none).
    Rop = 6,
    /// A draw's vertex fetch, where the profile's `[machine.fetch]` says.
    VertexFetch = 7,
    /// A draw's index fetch.
    IndexFetch = 8,
    /// A draw's indirect records.
    IndirectFetch = 9,
}

/// Which level served each line of a read, as the read reported it: kept for every load, so
/// compact; [`Served::level`] names the level of a byte when a stale read is explained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// The path the read took; none for flat memory (the reference run), which has no levels.
    pub path: Option<Path>,
    /// The read's deepest depth below its first level (for lines past the recorded ones).
    pub depth: u8,
    /// Depth below that level per line of the read ([`AccessReport::line_depths`]).
    pub line_depths: u64,
    /// The line size of the level the read entered at: depths are recorded per such line.
    pub line_bytes: u64,
}

impl Served {
    /// The level that served the byte at `addr` of a read that started at `start`: what a
    /// finding names as "via" (`None` for flat memory).
    pub fn level(&self, start: u64, addr: u64) -> Option<LevelId> {
        let path = self.path?;
        let k = (addr.checked_div(self.line_bytes).unwrap_or(0) - start.checked_div(self.line_bytes).unwrap_or(0)) as usize;
        Some(path.level(sim_caches::line_depth(self.line_depths, self.depth, k)))
    }

    /// The name of [`Served::level`] (empty for flat memory).
    pub fn level_name(&self, start: u64, addr: u64) -> &'static str {
        self.level(start, addr).map_or("", LevelId::name)
    }
}

/// The levels of a path below one of them, as the one [`MemoryLevel`] that level reads, writes,
/// prefetches and writes back through.
pub enum Below<'a> {
    /// The L2, then VRAM.
    L2(Chained<'a, BackingStore>),
    /// VRAM.
    Vram(&'a mut BackingStore),
}

impl<'a> Below<'a> {
    /// The chain of `levels` (a path's levels under the one that reads through it), over the
    /// machine's `l2` and `vram`.
    pub fn new(levels: &[LevelId], l2: Option<&'a mut Cache>, vram: &'a mut BackingStore) -> Below<'a> {
        match (levels.first(), l2) {
            (Some(LevelId::L2), Some(cache)) => Below::L2(Chained { cache, next: vram }),
            _ => Below::Vram(vram),
        }
    }
}

impl MemoryLevel for Below<'_> {
    #[inline(always)]
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        match self {
            Below::L2(c) => c.read(addr, data, tags),
            Below::Vram(v) => v.read(addr, data, tags),
        }
    }

    #[inline]
    fn write(&mut self, addr: u64, data: &[u8], tags: Tags<'_>, mask: Option<&bitvec::slice::BitSlice<u64, bitvec::order::Lsb0>>) -> Result<AccessReport, AccessError> {
        match self {
            Below::L2(c) => c.write(addr, data, tags, mask),
            Below::Vram(v) => v.write(addr, data, tags, mask),
        }
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        match self {
            Below::L2(c) => c.prefetch(addr),
            Below::Vram(v) => v.prefetch(addr),
        }
    }
}

/// The levels under an agent's own cache: the chain below it, entered through the compression
/// metadata when the access understands it (the decoder sits in the unit, above the L2, so the
/// L2 holds tiles as they are stored: compressed).
pub struct Under<'a> {
    /// The chain below.
    pub below: Below<'a>,
    /// The metadata, and whether the unit reads fast-cleared tiles; `None`: raw slots.
    pub codec: Option<(&'a mut Metadata, bool)>,
}

impl MemoryLevel for Under<'_> {
    #[inline(always)]
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        match &mut self.codec {
            Some((meta, clears)) => Codec { meta, next: &mut self.below, clears: *clears }.read(addr, data, tags),
            None => self.below.read(addr, data, tags),
        }
    }

    #[inline]
    fn write(&mut self, addr: u64, data: &[u8], tags: Tags<'_>, mask: Option<&bitvec::slice::BitSlice<u64, bitvec::order::Lsb0>>) -> Result<AccessReport, AccessError> {
        match &mut self.codec {
            Some((meta, clears)) => Codec { meta, next: &mut self.below, clears: *clears }.write(addr, data, tags, mask),
            None => self.below.write(addr, data, tags, mask),
        }
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        self.below.prefetch(addr);
    }
}

/// A whole path for one agent: the instance of its first level (none when that is the L2 or
/// VRAM) over the levels under it.
struct Walk<'a> {
    top: Option<&'a mut Cache>,
    under: Under<'a>,
}

impl MemoryLevel for Walk<'_> {
    #[inline(always)]
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        match &mut self.top {
            Some(c) => c.read(&mut self.under, addr, data, tags),
            None => self.under.read(addr, data, tags),
        }
    }

    #[inline]
    fn write(&mut self, addr: u64, data: &[u8], tags: Tags<'_>, mask: Option<&bitvec::slice::BitSlice<u64, bitvec::order::Lsb0>>) -> Result<AccessReport, AccessError> {
        match &mut self.top {
            Some(c) => c.write(&mut self.under, addr, data, tags, mask),
            None => self.under.write(addr, data, tags, mask),
        }
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        match &self.top {
            Some(c) => c.prefetch(&self.under, addr),
            None => self.under.prefetch(addr),
        }
    }
}

/// The memory system of the simulated GPU.
pub struct Machine {
    /// The profile's machine section it was built from.
    pub spec: crate::profile::Machine,
    /// The profile's costs.
    pub timing: Timing,
    /// The profile's driver choices (where atomics are performed, how CUs walk their caches).
    pub policies: Policies,
    /// Device memory.
    pub vram: BackingStore,
    /// Shared L2.
    pub l2: Option<Cache>,
    /// Compute units.
    pub cus: Vec<ComputeUnit>,
    /// Each ROP's tile cache.
    pub rops: Vec<Cache>,
    /// Compression metadata of every compressible region (empty without compressed images).
    pub meta: Metadata,
    l2_bank_free: Vec<u64>,
    vram_channel_free: Vec<u64>,
    /// The named paths ([`PathName`] indexes them).
    paths: [Path; 10],
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
    /// What a read on `path` that `report` describes was served by.
    fn served(&self, path: Path, report: &AccessReport) -> Served {
        // Depths are recorded per line of the level the read entered at.
        let line_bytes = self.instance(path.first()).map_or(0, |c| c.spec().line_bytes as u64);
        Served { path: Some(path), depth: report.depth, line_depths: report.line_depths, line_bytes }
    }

    /// One instance of `level` (the first CU's, the first ROP's), if the machine has it.
    fn instance(&self, level: LevelId) -> Option<&Cache> {
        match level {
            LevelId::Rop => self.rops.first(),
            LevelId::L2 => self.l2.as_ref(),
            LevelId::Vram => None,
            cu => self.cus.first().and_then(|c| c.cache(cu)),
        }
    }

    /// Builds the memory system of `profile`'s machine section, timing and policies over an
    /// address space of `address_space` bytes. Each cache's replacement draws from its own
    /// stream of `seed` (`Rng::for_unit`).
    pub fn new(profile: &Profile, address_space: u64, seed: u64) -> Result<Machine, String> {
        let spec = &profile.machine;
        let seed_of = |name: &str| Rng::for_unit(seed, name).next_u64();
        let vram = BackingStore::new(address_space.max(1 << 16), spec.vram.channels, spec.vram.channel_interleave_bytes).map_err(|e| e.to_string())?;
        let l2 = match &spec.l2.cache {
            Some(s) => Some(Cache::new(LevelId::L2.name(), s, seed_of(LevelId::L2.name())).map_err(|e| e.to_string())?),
            None => None,
        };
        let mut cus = Vec::new();
        for i in 0..spec.compute_units {
            let mk = |level: LevelId, s: &Option<sim_caches::CacheSpec>| -> Result<Option<Cache>, String> {
                let name = format!("{}[{i}]", level.name());
                s.as_ref().map(|s| Cache::new(name.clone(), s, seed_of(&name)).map_err(|e| e.to_string())).transpose()
            };
            cus.push(ComputeUnit {
                l1: mk(LevelId::L1, &spec.cu.l1)?,
                texture: mk(LevelId::Texture, &spec.cu.texture_cache)?,
                uniform: mk(LevelId::Uniform, &spec.cu.uniform_cache)?,
            });
        }
        let mut rops = Vec::new();
        if let Some(s) = &spec.rop.tile_cache {
            for i in 0..spec.rop.units {
                let name = format!("ROP$[{i}]");
                rops.push(Cache::new(name.clone(), s, seed_of(&name)).map_err(|e| e.to_string())?);
            }
        }
        let has_l2 = l2.is_some();
        let cu = &spec.cu;
        let present = |level: LevelId, s: &Option<sim_caches::CacheSpec>| s.as_ref().map(|_| level);
        let storage = Path::through(present(LevelId::L1, &cu.l1), has_l2);
        let fetch = |f: crate::profile::FetchLevel| match f {
            crate::profile::FetchLevel::L1 => storage,
            crate::profile::FetchLevel::Uniform => Path::through(present(LevelId::Uniform, &cu.uniform_cache).or(present(LevelId::L1, &cu.l1)), has_l2),
            crate::profile::FetchLevel::L2 => Path::through(None, has_l2),
            crate::profile::FetchLevel::Vram => Path::through(None, false),
        };
        let paths = [
            storage,
            if cu.uniform_cache.is_some() { Path::through(Some(LevelId::Uniform), has_l2) } else { storage },
            Path::through(present(LevelId::Texture, &cu.texture_cache), has_l2),
            Path::through(None, has_l2 && profile.policies.atomics_at == AtomicsAt::L2),
            Path::through(None, has_l2 && spec.transfer.path == TransferPath::ThroughL2),
            Path::through(
                match spec.transfer.shader_min_bytes.map(|_| spec.transfer.shader_reads) {
                    Some(ShaderTransferRead::L1) => present(LevelId::L1, &cu.l1),
                    Some(ShaderTransferRead::Texture) => present(LevelId::Texture, &cu.texture_cache),
                    Some(ShaderTransferRead::L2) | None => None,
                },
                has_l2,
            ),
            Path::through(present(LevelId::Rop, &spec.rop.tile_cache), has_l2 && spec.rop.l2_client),
            fetch(spec.fetch.vertex),
            fetch(spec.fetch.index),
            fetch(spec.fetch.indirect),
        ];
        let granularity = if spec.rop.compression.metadata == MetadataPlacement::PerPage { COMPRESSION_PAGE_BYTES } else { 1 };
        Ok(Machine {
            meta: Metadata::new(granularity),
            paths,
            l2_bank_free: vec![0; spec.l2.banks.max(1) as usize],
            vram_channel_free: vec![0; spec.vram.channels.max(1) as usize],
            spec: spec.clone(),
            timing: profile.timing.clone(),
            policies: profile.policies,
            vram,
            l2,
            cus,
            rops,
        })
    }

    /// The latency of a hit in `level`, cycles, as the profile's timing gives it.
    pub fn hit_cycles(&self, level: LevelId) -> u64 {
        let t = &self.timing;
        u64::from(match level {
            LevelId::L1 => t.l1_hit_cycles,
            LevelId::Texture => t.texture_hit_cycles,
            LevelId::Uniform => t.uniform_hit_cycles,
            LevelId::Rop => t.rop_hit_cycles,
            LevelId::L2 => t.l2_hit_cycles,
            // VRAM's latency counts from the L2 lookup, which an access straight to VRAM also
            // pays.
            LevelId::Vram => t.l2_hit_cycles,
        })
    }

    /// Turns an access report into a latency at cycle `now` for an access that entered at
    /// `entry` (whose hit latency it starts from), with contention at the L2 bank and VRAM channel
    /// of `addr`, and `jitter` extra cycles.
    fn time(&mut self, now: u64, addr: u64, bytes: u64, report: &AccessReport, entry: LevelId, jitter: u64) -> Timed {
        let t = &self.timing;
        let (l2_hit, vram_latency) = (u64::from(t.l2_hit_cycles), u64::from(t.vram_latency_cycles));
        let (bank_bytes, interleave) = (u64::from(t.l2_bank_bytes_per_cycle).max(1), self.spec.l2.bank_interleave_bytes.max(1));
        let channel_bytes = u64::from(t.vram_channel_bytes_per_cycle).max(1);
        let mut latency = self.hit_cycles(entry);
        // Depth counts from the agents' caches: an access that enters at the L2 or VRAM is
        // already one level down.
        let first_level_is_l2 = !entry.above_l2();
        let mut depth = report.depth;
        if first_level_is_l2 {
            depth += 1;
        }
        if depth >= 1 && self.l2.is_some() {
            if !first_level_is_l2 {
                latency += l2_hit;
            }
            let bank = ((addr / interleave) % self.l2_bank_free.len() as u64) as usize;
            let service = bytes.div_ceil(bank_bytes);
            let start = self.l2_bank_free[bank].max(now);
            self.l2_bank_free[bank] = start + service;
            latency += start - now;
        }
        let vram_transactions = u64::from(report.dram_read_transactions) + u64::from(report.dram_write_transactions);
        if vram_transactions > 0 || (depth >= 2) || (depth >= 1 && self.l2.is_none()) {
            latency += vram_latency;
            let ch = self.vram.channel_of(addr) as usize;
            let service = (vram_transactions.max(1) * sim_caches::TRANSACTION_BYTES).div_ceil(channel_bytes);
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

    /// Whether an access goes through the compression metadata, and whether it reads
    /// fast-cleared tiles: `image` is the unit of an access to an image (`None`: a buffer or
    /// memory access). Every access does where the metadata is per page; only image accesses
    /// by the profile's decoders where it is per image; none without compressible memory.
    pub fn decodes(&self, image: Option<ImageUnit>) -> Option<bool> {
        if self.meta.is_empty() {
            return None;
        }
        let c = &self.spec.rop.compression;
        match c.metadata {
            MetadataPlacement::None => None,
            MetadataPlacement::PerPage => Some(true),
            MetadataPlacement::PerImage => image.filter(|&u| c.decodes(u, false)).map(|u| c.decodes(u, true)),
        }
    }

    /// `path` for agent `unit` (a CU, or a ROP on a path through the ROPs): its first level's
    /// instance over the levels under it, through the metadata when `decode` says
    /// ([`Machine::decodes`]). The one place an access finds the caches it walks.
    fn walk(&mut self, path: Path, unit: usize, decode: Option<bool>) -> Walk<'_> {
        let Machine { l2, vram, cus, rops, meta, .. } = self;
        let codec = decode.map(|clears| (meta, clears));
        let (first, rest) = path.levels().split_first().expect("a path has a level");
        match first {
            LevelId::Vram | LevelId::L2 => Walk { top: None, under: Under { below: Below::new(path.levels(), l2.as_mut(), vram), codec } },
            LevelId::Rop => Walk { top: rops.get_mut(unit), under: Under { below: Below::new(rest, l2.as_mut(), vram), codec } },
            cu => Walk { top: cus[unit].cache_mut(*cu), under: Under { below: Below::new(rest, l2.as_mut(), vram), codec } },
        }
    }

    /// Reads through `path` for agent `unit`.
    fn read_path(&mut self, path: Path, unit: usize, addr: u64, data: &mut [u8], tags: &mut [Tag], decode: Option<bool>) -> Result<AccessReport, AccessError> {
        self.walk(path, unit, decode).read(addr, data, tags)
    }

    /// Writes through `path` for agent `unit`, each level per its write policy.
    fn write_path(&mut self, path: Path, unit: usize, addr: u64, data: &[u8], tag: Tag, decode: Option<bool>) -> Result<AccessReport, AccessError> {
        self.walk(path, unit, decode).write(addr, data, Tags::One(tag), None)
    }

    /// A shader load on path `name` (storage: the L1; uniform: the U$; each then the L2 and
    /// VRAM, as the profile built them), timed from the level it entered at.
    #[allow(clippy::too_many_arguments)]
    pub fn load(&mut self, name: PathName, cu: usize, now: u64, addr: u64, data: &mut [u8], tags: &mut [Tag], jitter: u64) -> Result<(Timed, Served), AccessError> {
        let path = self.path(name);
        let decode = self.decodes((name == PathName::Sampled).then_some(ImageUnit::Sampled));
        let report = self.read_path(path, cu, addr, data, tags, decode)?;
        Ok((self.time(now, addr, data.len() as u64, &report, path.first(), jitter), self.served(path, &report)))
    }

    /// Hints the host that a shader load at `addr` on path `name` is coming, so that the host's
    /// memory latency for its cache state and bytes overlaps with other work
    /// ([`sim_caches::MemoryLevel::prefetch`]). Changes nothing simulated.
    pub fn prefetch_load(&mut self, name: PathName, cu: usize, addr: u64) {
        if cu >= self.cus.len() {
            return;
        }
        let path = self.path(name);
        self.walk(path, cu, None).prefetch(addr);
    }

    /// A shader storage store on the storage path (the L1 per its write policy).
    pub fn storage_store(&mut self, cu: usize, now: u64, addr: u64, data: &[u8], tag: Tag, jitter: u64) -> Result<Timed, AccessError> {
        let path = self.path(PathName::Storage);
        let decode = self.decodes(None);
        let report = self.write_path(path, cu, addr, data, tag, decode)?;
        // A store completes when the CU's store path accepts it, at the L1's latency; what it
        // costs below is bandwidth.
        let mut t = self.time(now, addr, data.len() as u64, &report, path.first(), jitter);
        t.latency = t.latency.min(self.hit_cycles(LevelId::L1) + jitter);
        Ok(t)
    }

    /// Writes back and drops what CU `cu`'s L1 holds of `[addr, addr + len)` (and the L2, when
    /// the coherent path bypasses it): an access at the coherence point must not leave a cache
    /// above it holding a copy older than it.
    fn drop_from_l1(&mut self, cu: usize, addr: u64, len: u64) -> Result<(), AccessError> {
        let bypass_l2 = !self.path(PathName::Coherent).passes(LevelId::L2);
        if self.cus[cu].l1.is_some() {
            let storage = self.path(PathName::Storage);
            let decode = self.decodes(None);
            let Walk { top, mut under } = self.walk(storage, cu, decode);
            if let Some(l1) = top {
                l1.maintain(&mut under, Maintenance::FlushInvalidate, Some((addr, len)))?;
            }
        }
        // After the L1, whose write-back may have landed in the L2.
        if bypass_l2 && let Some(l2) = self.l2.as_mut() {
            l2.maintain(&mut self.vram, Maintenance::FlushInvalidate, Some((addr, len)))?;
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
        // Atomics are performed on the raw bytes (drivers keep images that atomics touch
        // uncompressed).
        let path = self.path(PathName::Coherent);
        let Machine { l2, vram, .. } = self;
        let at_l2 = if path.first() == LevelId::L2 { l2.as_mut() } else { None };
        let report = match at_l2 {
            Some(cache) => cache.read_modify_write(&mut Below::Vram(vram), addr, old, tag, op)?,
            None => {
                let mut below = Below::Vram(vram);
                let mut tags = vec![0; sim_caches::word_span(addr, old.len())];
                let mut r = below.read(addr, old, &mut tags)?;
                let mut new = old.to_vec();
                op(old, &mut new);
                r.merge(&below.write(addr, &new, Tags::One(tag), None)?);
                r
            }
        };
        Ok(self.time(now, addr, old.len() as u64 * 2, &report, path.first(), jitter))
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
        let decode = self.decodes(None);
        let mut report = match load {
            Some((data, tags)) => self.read_path(path, cu, addr, data, tags, decode)?,
            None => AccessReport::default(),
        };
        if let Some((data, tag)) = store {
            report.merge(&self.write_path(path, cu, addr, data, tag, decode)?);
        }
        Ok((self.time(now, addr, len, &report, path.first(), jitter), self.served(path, &report)))
    }

    /// A transfer's read by `unit`: the transfer engine's on the transfer path (through the L2
    /// or straight to VRAM, as the profile says), a driver shader's on the shader-transfer read
    /// path of its CU. `image`: whether it reads an image (an image command's read, which
    /// decodes compressed tiles where the profile says).
    #[allow(clippy::too_many_arguments)]
    pub fn transfer_read(&mut self, now: u64, addr: u64, data: &mut [u8], tags: &mut [Tag], unit: TransferUnit, image: bool) -> Result<(Timed, Served), AccessError> {
        let (path, cu) = match unit {
            TransferUnit::Engine => (self.path(PathName::Transfer), 0),
            TransferUnit::Shader { cu } => (self.path(PathName::ShaderTransferRead), cu),
        };
        let decode = self.decodes(image.then_some(ImageUnit::Transfer));
        let report = self.read_path(path, cu, addr, data, tags, decode)?;
        Ok((self.time(now, addr, data.len() as u64, &report, path.first(), 0), self.served(path, &report)))
    }

    /// A transfer's write by `unit`: the transfer engine's on the transfer path, a driver
    /// shader's on its CU's storage path (a shader's buffer store) or through the ROP that owns
    /// the address, as the profile says. `image`: whether it writes an image (an image
    /// command's write, which compresses where the profile says).
    pub fn transfer_write(&mut self, now: u64, addr: u64, data: &[u8], tag: Tag, unit: TransferUnit, image: bool) -> Result<Timed, AccessError> {
        let decode = self.decodes(image.then_some(ImageUnit::Transfer));
        let (path, agent) = match unit {
            TransferUnit::Engine => (self.path(PathName::Transfer), 0),
            // A piece per ROP line, each through the ROP that owns it, as attachment writes go:
            // a line written through two ROPs would sit in both tile caches, and the one
            // written back last would put back the other's old bytes.
            TransferUnit::Shader { .. } if self.spec.transfer.writes_through_rops() => return self.rop_write_decoding(now, addr, data, tag, decode),
            TransferUnit::Shader { cu } => (self.path(PathName::Storage), cu),
        };
        let report = self.write_path(path, agent, addr, data, tag, decode)?;
        Ok(self.time(now, addr, data.len() as u64, &report, path.first(), 0))
    }

    /// An attachment read by the ROPs that own its bytes (each ROP's tile cache, then the levels
    /// under it, through the compression metadata where the profile's ROPs understand it): a
    /// piece per ROP line, so a line is only ever in its owner's tile cache.
    pub fn rop_read(&mut self, now: u64, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(Timed, Served), AccessError> {
        let path = self.path(PathName::Rop);
        let decode = self.decodes(Some(ImageUnit::Rop));
        let mut report = AccessReport::default();
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let n = self.rop_piece(a, data.len() - done);
            let t0 = (a / sim_caches::TAG_GRANULE - addr / sim_caches::TAG_GRANULE) as usize;
            let span = sim_caches::word_span(a, n);
            let rop = self.rop_of(a);
            let r = self.read_path(path, rop, a, &mut data[done..done + n], &mut tags[t0..t0 + span], decode)?;
            report.merge(&r);
            done += n;
        }
        Ok((self.time(now, addr, data.len() as u64, &report, path.first(), 0), self.served(path, &report)))
    }

    /// An attachment write by the ROPs that own its bytes, a piece per ROP line.
    pub fn rop_write(&mut self, now: u64, addr: u64, data: &[u8], tag: Tag) -> Result<Timed, AccessError> {
        let decode = self.decodes(Some(ImageUnit::Rop));
        self.rop_write_decoding(now, addr, data, tag, decode)
    }

    /// A write through the ROPs that own its bytes, a piece per ROP line, compressed where
    /// `decode` says.
    fn rop_write_decoding(&mut self, now: u64, addr: u64, data: &[u8], tag: Tag, decode: Option<bool>) -> Result<Timed, AccessError> {
        // A buffer write (a driver's copy into a buffer) passes its own bytes through raw, but
        // the lines it evicts from a tile cache may be an image's, written back through the
        // metadata as the ROPs' own writes are. Where no compressible memory lies under the
        // bytes written, the ROPs' codec passes them through raw all the same, so it is the one
        // used; over compressible memory (a buffer aliasing an image) the write stays raw.
        let end = addr + data.len() as u64;
        let decode = match decode {
            None if !self.meta.regions().any(|(s, e)| s < end && addr < e) => self.decodes(Some(ImageUnit::Rop)),
            d => d,
        };
        let path = self.path(PathName::Rop);
        let mut report = AccessReport::default();
        let mut done = 0usize;
        while done < data.len() {
            let a = addr + done as u64;
            let n = self.rop_piece(a, data.len() - done);
            let rop = self.rop_of(a);
            report.merge(&self.write_path(path, rop, a, &data[done..done + n], tag, decode)?);
            done += n;
        }
        Ok(self.time(now, addr, data.len() as u64, &report, path.first(), 0))
    }

    /// The bytes from `addr` (at most `len`) up to the end of its ROP line.
    fn rop_piece(&self, addr: u64, len: usize) -> usize {
        let line = self.rops.first().map_or(u64::MAX, |r| r.spec().line_bytes as u64).max(1);
        ((line - addr % line) as usize).min(len)
    }

    /// Performs a layout transition's metadata `work` on the compressible bytes of
    /// `[addr, addr + len)`, through the levels the ROPs write into (the driver's decompression
    /// runs where its attachment writes do): an initialization marks the tiles raw without
    /// moving data, an eliminate writes fast-cleared tiles in their compressed form, a
    /// decompression writes every tile raw. Returns the tiles it touched and what it moved.
    pub fn image_work(&mut self, work: crate::profile::ImageWork, addr: u64, len: u64) -> Result<(u64, AccessReport), AccessError> {
        use crate::profile::ImageWork as W;
        let rop = self.path(PathName::Rop);
        let rest: Vec<LevelId> = rop.levels().iter().copied().filter(|&l| l != LevelId::Rop).collect();
        let Machine { l2, vram, meta, .. } = self;
        let mut below = Below::new(&rest, l2.as_mut(), vram);
        match work {
            W::MetadataInit | W::CcsAmbiguate | W::HizAmbiguate => {
                // Metadata kept per page is initialized a page at a time: a neighbour in the
                // page loses its tiles' states too (why bufferImageGranularity exists).
                let g = meta.granularity();
                let (addr, len) = (addr / g * g, (addr + len).div_ceil(g) * g - addr / g * g);
                let tiles = meta.slots(addr, len).len() as u64;
                meta.discard(addr, len);
                Ok((tiles, AccessReport::default()))
            }
            W::FastClearEliminate => Codec::new(meta, &mut below).eliminate_fast_clears(addr, len),
            W::DccDecompress | W::CcsResolve | W::FmaskDecompress | W::HtileExpand | W::HizResolve => Codec::new(meta, &mut below).decompress(addr, len),
        }
    }

    /// Device memory as the host reaches it through a mapping: through the compression
    /// metadata where it is kept per page (the host's accesses pass the GPU's page tables too),
    /// the stored bytes otherwise.
    pub fn host_memory(&mut self) -> Under<'_> {
        let decode = self.decodes(None);
        let Machine { vram, meta, .. } = self;
        Under { below: Below::Vram(vram), codec: decode.map(|clears| (meta, clears)) }
    }

    /// A fast clear of the tiles of `[addr, addr + len)` to fast-clear value `k` by writer
    /// `tag`: metadata only.
    pub fn fast_clear(&mut self, addr: u64, len: u64, k: u8, tag: Tag) {
        for slot in self.meta.slots(addr, len) {
            self.meta.fast_clear(slot, k, tag);
        }
    }

    /// Writes every compressed or fast-cleared tile of `[addr, addr + len)` raw into VRAM and
    /// marks it so (the caches drained first): device memory as texels, for comparing final
    /// memory.
    pub fn decode_in_place(&mut self, addr: u64, len: u64) -> Result<u64, AccessError> {
        let Machine { vram, meta, .. } = self;
        Ok(Codec::new(meta, vram).decompress(addr, len)?.0)
    }

    /// The ROP whose tile cache holds `addr` (0 without tile caches): ROPs own interleaved
    /// blocks of as many lines as a tile cache has sets, so that each ROP's lines fill every set
    /// of its cache (owning every fourth line, a ROP of four would use a quarter of its sets).
    fn rop_of(&self, addr: u64) -> usize {
        let Some(first) = self.rops.first() else { return 0 };
        let spec = first.spec();
        let line = (spec.line_bytes as u64).max(1);
        let sets = (spec.size_bytes / (line * u64::from(spec.ways.max(1)))).max(1);
        ((addr / line / sets) % self.rops.len() as u64) as usize
    }

    /// Performs one barrier cache operation on every instance of its cache; returns the cycles
    /// it takes (lines walked, plus the bandwidth of what was written back), and the lines and
    /// bytes written back.
    pub fn perform(&mut self, op: &CacheOp) -> Result<(u64, u64, u64), AccessError> {
        let level = op.target.level();
        // A cache writes back along the path it is first on (a read-only one writes back
        // nothing, but walks the same way).
        let home = match level {
            LevelId::L1 => PathName::Storage,
            LevelId::Texture => PathName::Sampled,
            LevelId::Uniform => PathName::Uniform,
            LevelId::Rop => PathName::Rop,
            LevelId::L2 | LevelId::Vram => PathName::Coherent,
        };
        let path = if level == LevelId::L2 { Path::new(&[LevelId::L2, LevelId::Vram]) } else { self.path(home) };
        let rest = &path.levels()[1..];
        // What a cache above the L2 writes back goes through the metadata as its unit's writes
        // do: the ROPs' where they decode, the CUs' where every access does.
        let decode = if level == LevelId::Rop { self.decodes(Some(ImageUnit::Rop)) } else { self.decodes(None) };
        let Machine { l2, vram, cus, rops, timing, spec, policies, meta, .. } = self;
        let mut total = AccessReport::default();
        match level {
            LevelId::L2 => {
                if let Some(l2) = l2.as_mut() {
                    total.merge(&l2.maintain(&mut Below::new(rest, None, vram), op.action, op.range)?);
                }
            }
            LevelId::Rop => {
                for c in rops.iter_mut() {
                    let mut under = Under { below: Below::new(rest, l2.as_mut(), vram), codec: decode.map(|clears| (&mut *meta, clears)) };
                    total.merge(&c.maintain(&mut under, op.action, op.range)?);
                }
            }
            _ => {
                for cu in cus.iter_mut() {
                    if let Some(c) = cu.cache_mut(level) {
                        let mut under = Under { below: Below::new(rest, l2.as_mut(), vram), codec: decode.map(|clears| (&mut *meta, clears)) };
                        total.merge(&c.maintain(&mut under, op.action, op.range)?);
                    }
                }
            }
        }
        // CUs walk their caches in parallel (one CU's walk is charged) or one after another, as
        // the profile's policy says; every written-back byte is charged.
        let walked = match (level, policies.cu_cache_walks) {
            (LevelId::L2, _) | (_, CuCacheWalks::Serial) => u64::from(total.lines_examined),
            // The ROPs, like the CUs, walk their tile caches at once.
            (LevelId::Rop, CuCacheWalks::Parallel) => u64::from(total.lines_examined) / rops.len().max(1) as u64,
            (_, CuCacheWalks::Parallel) => u64::from(total.lines_examined) / cus.len().max(1) as u64,
        };
        let cycles = walked * u64::from(timing.maintenance_cycles_per_line)
            + total.writeback_bytes.div_ceil(u64::from(timing.vram_channel_bytes_per_cycle).max(1) * spec.vram.channels.max(1) as u64);
        Ok((cycles, total.writeback_lines as u64, total.writeback_bytes))
    }

    /// Writes every dirty byte down to VRAM (L1s, then the L2): the device's memory as it stands
    /// once every cache has drained, which is what the end-of-run comparison looks at.
    pub fn drain(&mut self) -> Result<(), AccessError> {
        // The ROPs' tile caches hold dirty bytes only where transfers write through them.
        let targets: &[CacheTarget] = if self.spec.transfer.writes_through_rops() { &[CacheTarget::Rop, CacheTarget::L1, CacheTarget::L2] } else { &[CacheTarget::L1, CacheTarget::L2] };
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
