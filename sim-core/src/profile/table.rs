//! The barrier table: data that says which cache operations each access needs.
//!
//! A row is keyed by an access mask (any names, synchronization1 or 2), optionally restricted to
//! stages, and lists the operations for the first scope (`src`, the flush side) and for the
//! second scope (`dst`, the invalidate side):
//! ```toml
//! [[barriers.rows]]
//! access = "COLOR_ATTACHMENT_WRITE"
//! src = ["flush ROP", "invalidate L2"]
//! dst = ["flush L2", "invalidate ROP"]
//! ```
//! An operation is an action (`flush`, `invalidate`, `flush-invalidate`) and one or more cache
//! names separated by commas (`"invalidate L1, T$"`). Cache names: `L1`, `T$`, `U$`, `L2`, `ROP`,
//! `HOST` (the host CPU cache). An empty list is "nothing".
//!
//! **How rows match.** A barrier's access scopes are sets of (stage, access) usages whose accesses
//! are synchronization2 parts (see [`crate::sync::scope`]). A row's key is split the same way:
//! `SHADER_READ` stands for `SHADER_SAMPLED_READ | SHADER_STORAGE_READ`, `SHADER_WRITE` for
//! `SHADER_STORAGE_WRITE`, `MEMORY_READ`/`MEMORY_WRITE` for every read/write. A row fires for a
//! scope when some usage of the scope has an access in the row's key and (if the row names
//! stages) a stage among them (meta stages in the row substituted). So a barrier that names only
//! `SHADER_STORAGE_READ` fires a row keyed `SHADER_READ`, conservatively: a profile that wants
//! storage reads to invalidate only L1 writes separate rows keyed by the parts. A barrier's
//! `MEMORY_READ` at `FRAGMENT_SHADER` fires every row of a read legal there.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::sync::{AccessFlags2, PipelineStageFlags2, Scope, substitute_meta_stages};

/// A cache a barrier table can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CacheName {
    /// The ROP tile caches (colour and depth/stencil).
    Rop,
    /// Every CU's L1 data cache.
    L1,
    /// Every CU's texture cache (`T$`).
    Texture,
    /// Every CU's uniform cache (`U$`).
    Uniform,
    /// The host CPU cache of HOST_CACHED mappings (`HOST`).
    Host,
    /// The shared L2.
    L2,
}

impl CacheName {
    /// Every cache name, in the canonical order of operations within a scope: caches closer to
    /// the requesters first, so a flush of an upper cache reaches L2 before L2 is flushed.
    pub const ALL: [CacheName; 6] = [CacheName::Rop, CacheName::L1, CacheName::Texture, CacheName::Uniform, CacheName::Host, CacheName::L2];

    /// The name as tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheName::Rop => "ROP",
            CacheName::L1 => "L1",
            CacheName::Texture => "T$",
            CacheName::Uniform => "U$",
            CacheName::Host => "HOST",
            CacheName::L2 => "L2",
        }
    }

    /// Parses a table spelling (case-insensitive).
    pub fn parse(s: &str) -> Option<CacheName> {
        let u = s.trim().to_ascii_uppercase();
        CacheName::ALL.into_iter().find(|c| c.as_str() == u)
    }
}

impl fmt::Display for CacheName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CacheName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What a cache operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheAction {
    /// Write dirty data back to the next level; keep the lines.
    Flush,
    /// Write dirty data back, then drop the lines.
    FlushInvalidate,
    /// Drop the lines. Dirty data is written back first unless the cache's spec says
    /// `dirty_on_invalidate = "discard"` (dropped) or `"keep"` (left in place): what
    /// `sim_caches::Cache::invalidate` does.
    Invalidate,
}

impl CacheAction {
    /// The name as tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheAction::Flush => "flush",
            CacheAction::FlushInvalidate => "flush-invalidate",
            CacheAction::Invalidate => "invalidate",
        }
    }

    /// The `sim-caches` maintenance operation that performs this action.
    pub fn maintenance(self) -> sim_caches::Maintenance {
        match self {
            CacheAction::Flush => sim_caches::Maintenance::Flush,
            CacheAction::FlushInvalidate => sim_caches::Maintenance::FlushInvalidate,
            CacheAction::Invalidate => sim_caches::Maintenance::Invalidate,
        }
    }
}

/// One table entry: an action on one or more caches, written `"invalidate L1, T$"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSpec {
    /// The action.
    pub action: CacheAction,
    /// The caches it applies to, as written.
    pub caches: Vec<CacheName>,
}

impl OpSpec {
    /// Parses `"ACTION CACHE[, CACHE...]"`.
    pub fn parse(text: &str) -> Result<OpSpec, String> {
        let t = text.trim();
        let (verb, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let action = match verb.to_ascii_lowercase().as_str() {
            "flush" => CacheAction::Flush,
            "invalidate" => CacheAction::Invalidate,
            "flush-invalidate" => CacheAction::FlushInvalidate,
            _ => {
                return Err(format!(
                    "`{text}`: unknown action `{verb}`: expected `flush`, `invalidate` or `flush-invalidate` followed by cache names"
                ));
            }
        };
        let mut caches = Vec::new();
        for name in rest.split([',', ' ']).filter(|n| !n.trim().is_empty()) {
            match CacheName::parse(name) {
                // Rejected rather than ignored: a row naming it would read as if the barrier
                // did something to the host's cache, and it cannot.
                Some(CacheName::Host) => {
                    return Err(format!(
                        "`{text}`: the host's cache (`HOST`) is maintained by vkFlushMappedMemoryRanges and vkInvalidateMappedMemoryRanges, never by a barrier; a table row cannot name it"
                    ));
                }
                Some(c) => caches.push(c),
                None => {
                    let known: Vec<&str> = CacheName::ALL.iter().filter(|&&c| c != CacheName::Host).map(|c| c.as_str()).collect();
                    return Err(format!("`{text}`: unknown cache `{}`: expected one of {}", name.trim(), known.join(", ")));
                }
            }
        }
        if caches.is_empty() {
            return Err(format!("`{text}`: no cache named: expected e.g. `{} L2`", action.as_str()));
        }
        Ok(OpSpec { action, caches })
    }
}

impl fmt::Display for OpSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.caches.iter().map(|c| c.as_str()).collect();
        write!(f, "{} {}", self.action.as_str(), names.join(", "))
    }
}

impl Serialize for OpSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OpSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        OpSpec::parse(&text).map_err(de::Error::custom)
    }
}

/// One row of the barrier table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierRow {
    /// The accesses this row is about (any access names; umbrellas split as the module says).
    pub access: AccessFlags2,
    /// If given, the row applies only to these stages (meta stages substituted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<PipelineStageFlags2>,
    /// First-scope (flush side) operations, when these accesses are in a barrier's first
    /// access scope.
    #[serde(default)]
    pub src: Vec<OpSpec>,
    /// Second-scope (invalidate side) operations, when these accesses are in a barrier's second
    /// access scope.
    #[serde(default)]
    pub dst: Vec<OpSpec>,
}

impl BarrierRow {
    /// The row's key as synchronization2 parts, umbrellas split (`MEMORY_*` to every read/write).
    pub fn access_parts(&self) -> AccessFlags2 {
        let a = self.access;
        let mut parts = a.difference(AccessFlags2::UMBRELLAS);
        if a.contains(AccessFlags2::SHADER_READ) {
            parts |= AccessFlags2::SHADER_SAMPLED_READ | AccessFlags2::SHADER_STORAGE_READ;
        }
        if a.contains(AccessFlags2::SHADER_WRITE) {
            parts |= AccessFlags2::SHADER_STORAGE_WRITE;
        }
        if a.contains(AccessFlags2::MEMORY_READ) {
            parts |= AccessFlags2::ALL_READS.difference(AccessFlags2::UMBRELLAS);
        }
        if a.contains(AccessFlags2::MEMORY_WRITE) {
            parts |= AccessFlags2::ALL_WRITES.difference(AccessFlags2::UMBRELLAS);
        }
        parts
    }

    /// The stages the row is restricted to (meta stages substituted), or `None` for all.
    pub fn stage_filter(&self) -> Option<PipelineStageFlags2> {
        self.stages.map(|s| {
            let (a, _) = substitute_meta_stages(s, Scope::Second, None);
            a
        })
    }

    /// The operations of one side.
    pub fn ops(&self, scope: Scope) -> &[OpSpec] {
        match scope {
            Scope::First => &self.src,
            Scope::Second => &self.dst,
        }
    }
}

impl BarrierTable {
    /// The operations the table does for `usage` on one side (`Scope::First`: when it is in a
    /// barrier's first access scope, the flush side; `Scope::Second`: the invalidate side), row
    /// by row: (the row's access key, its operations).
    pub fn ops_for(&self, usage: crate::sync::StageAccess, scope: Scope) -> Vec<(AccessFlags2, &[OpSpec])> {
        self.rows
            .iter()
            .filter(|r| r.access_parts().intersects(usage.access()) && r.stage_filter().is_none_or(|s| s.intersects(usage.stage())))
            .filter(|r| !r.ops(scope).is_empty())
            .map(|r| (r.access, r.ops(scope)))
            .collect()
    }

    /// [`BarrierTable::ops_for`] in words: `invalidate L1, T$ (SHADER_READ)`, rows joined with
    /// `; `, or `nothing`.
    pub fn ops_text(&self, usage: crate::sync::StageAccess, scope: Scope) -> String {
        let rows = self.ops_for(usage, scope);
        if rows.is_empty() {
            return "nothing".to_string();
        }
        rows.iter().map(|(key, ops)| format!("{} ({key})", ops.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", "))).collect::<Vec<_>>().join("; ")
    }
}

/// Whether a buffer or image barrier's range limits its cache operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RangeMode {
    /// Every operation acts on the whole cache, as most hardware's cache-control packets do.
    #[default]
    WholeCache,
    /// A buffer or image barrier's operations walk only the lines of its range; global memory
    /// barriers still act on whole caches.
    BarrierRange,
}

/// The barrier table of a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct BarrierTable {
    /// Whether a barrier's range limits its operations. Default `whole-cache`.
    pub range: RangeMode,
    /// The rows, in any order (the planner orders operations canonically). Given in a profile
    /// that has a `base`, they replace the base's rows as a whole.
    pub rows: Vec<BarrierRow>,
    /// Operations the driver or kernel performs at the start of every submission, after its
    /// host→device domain operation and before its first command (RADV's submission preamble
    /// invalidates every shader cache and the L2). Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub submit: Vec<OpSpec>,
    /// Operations the driver or kernel performs at every semaphore or fence signal, after the
    /// signal's own availability operation (the amdgpu kernel's fence writes the L2 back).
    /// Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub signal: Vec<OpSpec>,
    /// What the driver does at an image layout transition (a barrier's oldLayout → newLayout):
    /// work on the image's compression metadata, and cache operations. Data for images and
    /// attachments, not yet exercised: the engine simulates buffers only. Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layout_transitions: Vec<LayoutTransition>,
}

/// The aspect of an image a layout transition row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    /// Colour images (CMASK, FMASK, DCC on AMD; CCS on Intel).
    Color,
    /// Depth and stencil images (HTILE on AMD; HiZ on Intel).
    Depth,
}

/// An image layout, by Vulkan's name without `VK_IMAGE_LAYOUT_` (`*`: any layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(missing_docs)]
pub enum ImageLayout {
    #[serde(rename = "*")]
    Any,
    Undefined,
    General,
    ColorAttachmentOptimal,
    DepthStencilAttachmentOptimal,
    DepthStencilReadOnlyOptimal,
    ShaderReadOnlyOptimal,
    TransferSrcOptimal,
    TransferDstOptimal,
    Preinitialized,
    DepthAttachmentOptimal,
    DepthReadOnlyOptimal,
    AttachmentOptimal,
    ReadOnlyOptimal,
    PresentSrcKhr,
}

/// Work a driver does on an image's compression metadata at a layout transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImageWork {
    /// Initialize the metadata of an image whose contents are undefined (AMD CMASK/FMASK/DCC
    /// or HTILE clear).
    MetadataInit,
    /// AMD: write fast-cleared blocks' clear colour into the image (FCE).
    FastClearEliminate,
    /// AMD: decompress DCC in place.
    DccDecompress,
    /// AMD: expand FMASK-compressed multisampled colour.
    FmaskDecompress,
    /// AMD: expand HTILE-compressed depth (a depth decompress).
    HtileExpand,
    /// Intel: resolve CCS-compressed colour into the main surface.
    CcsResolve,
    /// Intel: put CCS in a state every reader understands (initialize it).
    CcsAmbiguate,
    /// Intel: resolve HiZ into the depth surface.
    HizResolve,
    /// Intel: initialize HiZ.
    HizAmbiguate,
}

impl std::fmt::Display for ImageWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = toml::Value::try_from(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        f.write_str(&s)
    }
}

impl std::fmt::Display for ImageLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = toml::Value::try_from(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        f.write_str(&s)
    }
}

/// One row of a profile's layout transitions: for an aspect, transitions from any of `from` to
/// any of `to`, the metadata work and cache operations the driver performs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutTransition {
    /// Colour or depth.
    pub aspect: Aspect,
    /// Old layouts.
    pub from: Vec<ImageLayout>,
    /// New layouts.
    pub to: Vec<ImageLayout>,
    /// Work on the compression metadata, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub work: Vec<ImageWork>,
    /// Cache operations, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpSpec>,
}

/// Where a driver performs operations of its own, outside any barrier ([`BarrierTable::submit`],
/// [`BarrierTable::signal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DriverPoint {
    /// The start of every submission.
    Submit,
    /// Every semaphore or fence signal.
    Signal,
}

impl DriverPoint {
    /// The table key that lists its operations.
    pub fn key(self) -> &'static str {
        match self {
            DriverPoint::Submit => "submit",
            DriverPoint::Signal => "signal",
        }
    }
}

impl BarrierTable {
    /// The operations the driver performs at `point`, as written.
    pub fn driver_ops(&self, point: DriverPoint) -> &[OpSpec] {
        match point {
            DriverPoint::Submit => &self.submit,
            DriverPoint::Signal => &self.signal,
        }
    }
}
