//! Profiles: the machine, its costs, its device limits and its barrier table, from TOML.
//!
//! # The TOML layout
//! ```toml
//! name = "my-gpu"                 # default: the file's stem
//! description = "one line"        # shown by `gpusim profile list`
//! base = "seed-l2"                # a built-in name or a path (relative to this file);
//!                                 # default "seed-l2"; "none" starts from the field defaults
//!                                 # with an empty barrier table
//! [machine]                       # structure: see `Machine`
//! compute_units = 8
//! [machine.cu]                    # per CU: l1, texture_cache, uniform_cache (cache tables or
//!                                 # "none"), shared_memory_bytes, workgroup_slots, subgroup_size
//! [machine.cu.l1]                 # a sim_caches::CacheSpec: size_bytes, line_bytes, ways,
//! size_bytes = 16384              # replacement, write_policy, dirty_on_invalidate
//! [machine.l2]                    # cache, banks, bank_interleave_bytes
//! [machine.vram]                  # size_bytes, channels, channel_interleave_bytes
//! [machine.transfer]              # path = "through-l2" | "direct-to-vram"; shader_min_bytes,
//!                                 # shader_reads, shader_writes (transfers run as shaders)
//! [machine.rop]                   # tile_cache, units, tile_pixels, l2_client
//! [machine.host]                  # write_combining_buffers, write_combining_buffer_bytes, cache
//! [timing]                        # latencies in cycles, bandwidths in bytes/cycle: see `Timing`
//! [limits]                        # device limits: see `Limits`
//! [policies]                      # driver choices that are not table rows: see `Policies`
//! [barriers]
//! range = "whole-cache"           # or "barrier-range"
//! submit = []                     # the driver's operations at every submission's start
//! signal = []                     # ... and at every semaphore or fence signal
//! # layout transitions: [[barriers.layout_transitions]] aspect = "color", from = [...],
//! # to = [...], work = ["dcc-decompress"], ops = ["flush ROP"] (data, not yet exercised)
//! [[barriers.rows]]               # see `table`
//! access = "SHADER_READ"
//! dst = ["invalidate L1, T$"]
//! ```
//! Every field is optional. A profile is its base with the file's tables merged in, key by key
//! (so `[machine.l2.cache] size_bytes = 1048576` changes only the L2 size); arrays, and so the
//! barrier table's `rows`, replace the base's as a whole.
//!
//! Built-in profiles (the files in `sim-core/profiles/`): `seed-l2` (coherency at L2),
//! `seed-vram` (coherency at VRAM), the seed's two barrier tables; `ideal`, a machine with no
//! caches at all, where every access is coherent: no stale copy can be read, but commands still
//! overlap unless an execution dependency orders them, so a missing execution dependency still
//! corrupts; and machines from real drivers, each row citing its source: `nvidia-like`
//! (calibrated on an H100), `radv-gfx10`, `radv-gfx9`, `turnip-a6xx`, `anv-gen12`.

pub mod error;
pub mod grid;
pub mod machine;
pub mod plan;
pub mod policies;
pub mod table;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sim_caches::{CacheSpec, WritePolicy};

pub use error::{FieldPath, ProfileError};
pub use policies::{AtomicsAt, CuCacheWalks, EventFirstScope, ExecutionOrder, Policies, SignalAvailability};
pub use machine::{COMPRESSION_PAGE_BYTES, CompressionSpec, ComputeUnitSpec, FetchLevel, FetchSpec, HostSpec, ImageUnit, L2Spec, Limits, Machine, MetadataPlacement, RopSpec, ShaderTransferRead, ShaderTransferWrite, Timing, TransferPath, TransferSpec, VramSpec};
pub use plan::{CacheOp, OpRange, plan_barrier, plan_driver_point, plan_fence_signal, plan_queue_submit, plan_scope, plan_semaphore_signal, plan_semaphore_wait};
pub use table::{Aspect, BarrierRow, BarrierTable, CacheAction, CacheName, DriverPoint, ImageLayout, ImageWork, LayoutTransition, OpSpec, RangeMode};

use crate::sync::{AccessFlags2, Scope, legal_accesses, legal_accesses_of_stage};
use error::{SpannedDoc, line_col};

/// The built-in profiles: (name, TOML text).
const BUILTINS: &[(&str, &str)] = &[
    ("seed-l2", include_str!("../../profiles/seed-l2.toml")),
    ("seed-vram", include_str!("../../profiles/seed-vram.toml")),
    ("ideal", include_str!("../../profiles/ideal.toml")),
    ("nvidia-like", include_str!("../../profiles/nvidia-like.toml")),
    ("radv-gfx10", include_str!("../../profiles/radv-gfx10.toml")),
    ("radv-gfx9", include_str!("../../profiles/radv-gfx9.toml")),
    ("turnip-a6xx", include_str!("../../profiles/turnip-a6xx.toml")),
    ("anv-gen12", include_str!("../../profiles/anv-gen12.toml")),
];

/// How deep `base` chains may go (a cycle stops here instead of hanging).
const MAX_BASE_DEPTH: usize = 8;

/// A simulated GPU: machine, costs, limits and barrier table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Profile {
    /// Short name (`seed-l2`).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// The profile this one started from, as written in its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Structure: caches, memory, engines.
    pub machine: Machine,
    /// Costs.
    pub timing: Timing,
    /// Device limits a trace is checked against.
    pub limits: Limits,
    /// Driver choices that are not table rows.
    pub policies: Policies,
    /// The barrier table.
    pub barriers: BarrierTable,
}

impl Default for Profile {
    /// The documented field defaults with an empty barrier table (`base = "none"`).
    fn default() -> Self {
        Profile {
            name: String::new(),
            description: String::new(),
            base: None,
            machine: Machine::default(),
            timing: Timing::default(),
            limits: Limits::default(),
            policies: Policies::default(),
            barriers: BarrierTable::default(),
        }
    }
}

impl Profile {
    /// The names of the built-in profiles.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTINS.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in profile by name.
    pub fn builtin(name: &str) -> Option<Profile> {
        let (n, text) = BUILTINS.iter().find(|(n, _)| *n == name)?;
        Self::parse(text, n, None, 0, true).ok()
    }

    /// The TOML text of a built-in profile.
    pub fn builtin_source(name: &str) -> Option<&'static str> {
        BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    /// Parses a profile from TOML text. `origin` names the text in error messages (a file
    /// path); a relative `base` path is resolved against the current directory.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        Self::parse(text, origin, None, 0, false)
    }

    /// A built-in profile by name, or else a profile file by path.
    pub fn load(name_or_path: &str) -> Result<Profile, ProfileError> {
        if let Some(p) = Self::builtin(name_or_path) {
            return Ok(p);
        }
        Self::load_file(Path::new(name_or_path), 0).map_err(|e| {
            if e.location.is_none() && e.field.is_empty() && !Path::new(name_or_path).exists() {
                ProfileError::file(
                    name_or_path,
                    format!("not a built-in profile ({}) and no such file", Self::builtin_names().join(", ")),
                )
            } else {
                e
            }
        })
    }

    fn load_file(path: &Path, depth: usize) -> Result<Profile, ProfileError> {
        let origin = path.display().to_string();
        // A profile is a page of TOML; 16 MiB is far beyond any real one.
        let bytes = crate::io::read_capped(path, 16 << 20).map_err(|e| ProfileError::file(&origin, format!("cannot read the profile: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| ProfileError::file(&origin, format!("the profile is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
        Self::parse(&text, &origin, path.parent().map(Path::to_path_buf), depth, false)
    }

    /// The spec of a cache the barrier table can name, if the machine has it.
    pub fn cache_spec(&self, cache: CacheName) -> Option<&CacheSpec> {
        match cache {
            CacheName::Rop => self.machine.rop.tile_cache.as_ref(),
            CacheName::L1 => self.machine.cu.l1.as_ref(),
            CacheName::Texture => self.machine.cu.texture_cache.as_ref(),
            CacheName::Uniform => self.machine.cu.uniform_cache.as_ref(),
            CacheName::Host => self.machine.host.cache.as_ref(),
            CacheName::L2 => self.machine.l2.cache.as_ref(),
        }
    }

    /// True when the cache exists and can never hold dirty data (flushing it is free).
    pub fn cache_is_read_only(&self, cache: CacheName) -> bool {
        self.cache_spec(cache).is_some_and(|s| s.write_policy == WritePolicy::ReadOnly)
    }

    /// The field that configures a cache, for messages.
    pub fn cache_field(cache: CacheName) -> &'static str {
        match cache {
            CacheName::Rop => "machine.rop.tile_cache",
            CacheName::L1 => "machine.cu.l1",
            CacheName::Texture => "machine.cu.texture_cache",
            CacheName::Uniform => "machine.cu.uniform_cache",
            CacheName::Host => "machine.host.cache",
            CacheName::L2 => "machine.l2.cache",
        }
    }

    /// The whole profile as TOML text (every field explicit).
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    fn parse(text: &str, origin: &str, dir: Option<PathBuf>, depth: usize, builtin: bool) -> Result<Profile, ProfileError> {
        let doc = SpannedDoc::parse(text);
        let located = |span: Option<std::ops::Range<usize>>, field: String, message: String| ProfileError {
            origin: origin.to_string(),
            location: span.map(|s| line_col(doc.text(), s.start)),
            field,
            message,
        };
        // Pass 1: the user's text alone, so syntax, unknown fields, wrong types and unknown names
        // are reported with toml's own spans.
        let own: Profile = toml::from_str(text).map_err(|e| {
            let message = e.message().trim().to_string();
            let span = e.span();
            match span.as_ref().and_then(|s| doc.element_in_array(s.start, &message)) {
                Some((field, element)) => located(Some(element), field, message),
                None => {
                    let field = span.as_ref().map(|s| doc.path_at(s.start)).unwrap_or_default();
                    located(span, field, message)
                }
            }
        })?;
        let user: toml::Table = toml::from_str(text).map_err(|e| located(e.span(), String::new(), e.message().to_string()))?;

        // The starting point.
        let base_name = own.base.clone().unwrap_or_else(|| if builtin { "none".into() } else { "seed-l2".into() });
        let base = if base_name == "none" {
            Profile::default()
        } else if depth >= MAX_BASE_DEPTH {
            return Err(located(doc.base_span(), "base".into(), format!("`{base_name}`: base profiles nest more than {MAX_BASE_DEPTH} deep (a cycle?)")));
        } else if let Some((n, t)) = BUILTINS.iter().find(|(n, _)| *n == base_name) {
            Self::parse(t, n, None, depth + 1, true)?
        } else {
            let path = match &dir {
                Some(d) => d.join(&base_name),
                None => PathBuf::from(&base_name),
            };
            if !path.exists() {
                return Err(located(
                    doc.base_span(),
                    "base".into(),
                    format!("`{base_name}` is neither a built-in profile ({}) nor a file", Self::builtin_names().join(", ")),
                ));
            }
            Self::load_file(&path, depth + 1)?
        };

        // Pass 2: merge the user's tables into the base's.
        let mut merged = toml::Table::try_from(&base).map_err(|e| ProfileError::file(origin, format!("cannot serialize the base profile: {e}")))?;
        let mut user = user;
        user.remove("base");
        merge(&mut merged, user);
        let mut profile: Profile = toml::Value::Table(merged).try_into().map_err(|e: toml::de::Error| located(None, String::new(), e.message().to_string()))?;
        profile.base = own.base.clone();
        if own.name.is_empty() {
            profile.name = Path::new(origin).file_stem().and_then(|s| s.to_str()).unwrap_or(origin).to_string();
        }
        if own.description.is_empty() && !builtin && base_name != "none" {
            profile.description = format!("based on {base_name}");
        }

        // Pass 3: semantic checks, located through the user's document.
        if let Err((path, message)) = profile.validate() {
            let (span, whole) = match doc.span_of(&path) {
                Some((s, whole)) => (Some(s), whole),
                None => (doc.base_span(), false),
            };
            let message = if whole || base_name == "none" { message } else { format!("{message} (value inherited from base `{base_name}`)") };
            return Err(located(span, path.to_string(), message));
        }
        Ok(profile)
    }

    fn validate(&self) -> Result<(), (FieldPath, String)> {
        self.machine.validate()?;
        self.timing.validate()?;
        self.limits.validate(&self.machine)?;
        for (i, row) in self.barriers.rows.iter().enumerate() {
            let path = |k: &str| {
                let mut p = FieldPath::keys(&["barriers", "rows"]);
                p.push_index(i);
                p.push_key(k);
                p
            };
            if row.access.is_empty() {
                return Err((path("access"), "the access mask is empty: expected access names such as SHADER_READ".into()));
            }
            let stages = row.stage_filter();
            let legal = match stages {
                Some(s) => s.iter().fold(AccessFlags2::NONE, |m, st| m | legal_accesses_of_stage(st)),
                None => legal_accesses(crate::sync::all_device_stages() | crate::sync::PipelineStageFlags2::HOST),
            };
            let parts = row.access_parts();
            if !parts.intersects(legal) {
                let at = if stages.is_some() { "stages" } else { "access" };
                return Err((
                    path(at),
                    format!("the row never applies: no stage {} performs {}", stages.map(|s| format!("of {s}")).unwrap_or_default(), row.access),
                ));
            }
            if !row.src.is_empty() && !parts.intersects(AccessFlags2::ALL_WRITES) {
                return Err((
                    path("src"),
                    format!("{} only reads, and reads in a first scope make nothing available: src operations would never run", row.access),
                ));
            }
            for scope in [Scope::First, Scope::Second] {
                self.check_caches(row.ops(scope), path(if scope == Scope::First { "src" } else { "dst" }))?;
            }
        }
        for (i, t) in self.barriers.layout_transitions.iter().enumerate() {
            let path = |key: &str| {
                let mut p = FieldPath::keys(&["barriers", "layout_transitions"]);
                p.push_index(i);
                p.push_key(key);
                p
            };
            for key in ["from", "to"] {
                if (if key == "from" { &t.from } else { &t.to }).is_empty() {
                    return Err((path(key), "no layout: give at least one (`*` for any)".into()));
                }
            }
            if t.work.is_empty() && t.ops.is_empty() {
                return Err((path("work"), "the row does nothing: give its metadata work, its cache operations (`ops`), or both".into()));
            }
            self.check_caches(&t.ops, path("ops"))?;
        }
        for point in [DriverPoint::Submit, DriverPoint::Signal] {
            self.check_caches(self.barriers.driver_ops(point), FieldPath::keys(&["barriers", point.key()]))?;
        }
        self.validate_compression()
    }

    /// Checks `[machine.rop.compression]`: a 4-bit state has room for 12 clear values, a unit
    /// reads fast-cleared tiles only if it decodes, and metadata per page needs a
    /// `bufferImageGranularity` of a page.
    fn validate_compression(&self) -> Result<(), (FieldPath, String)> {
        let c = &self.machine.rop.compression;
        let path = |k: &str| FieldPath::keys(&["machine", "rop", "compression", k]);
        if c.clear_values.len() > sim_rop::MAX_CLEAR_VALUES {
            return Err((path("clear_values"), format!("{} fast-clear values: a tile's 4 bits of state have room for {}", c.clear_values.len(), sim_rop::MAX_CLEAR_VALUES)));
        }
        if let Some(u) = c.clear_decoders.iter().find(|u| !c.decoders.contains(u)) {
            return Err((path("clear_decoders"), format!("{} reads fast-cleared tiles but is not among the decoders", toml::Value::try_from(u).map(|v| v.to_string()).unwrap_or_default())));
        }
        if c.metadata == MetadataPlacement::PerPage && self.limits.buffer_image_granularity < COMPRESSION_PAGE_BYTES {
            return Err((
                path("metadata"),
                format!(
                    "metadata per {COMPRESSION_PAGE_BYTES}-byte page puts a buffer in an image's page under the image's metadata: limits.buffer_image_granularity must be at least {COMPRESSION_PAGE_BYTES}, not {}",
                    self.limits.buffer_image_granularity
                ),
            ));
        }
        Ok(())
    }

    /// Checks that every cache `ops` (the list at `list`) names is one this machine has.
    fn check_caches(&self, ops: &[OpSpec], list: FieldPath) -> Result<(), (FieldPath, String)> {
        for (j, op) in ops.iter().enumerate() {
            if let Some(c) = op.caches.iter().find(|c| self.cache_spec(**c).is_none()) {
                let mut p = list;
                p.push_index(j);
                return Err((p, format!("`{op}` names {c}, which this machine does not have ({} = \"none\")", Self::cache_field(*c))));
            }
        }
        Ok(())
    }
}

/// Merges `over` into `base`: tables key by key, everything else (arrays included) replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}
