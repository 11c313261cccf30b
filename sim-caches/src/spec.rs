//! The cache specification: an immutable, serde-able description of one cache.
//!
//! A spec says what a cache *is* (geometry and policies); it says nothing about timing, which
//! belongs to the machine that places the cache (the profile in `sim-core`). Varying a spec is
//! all an architecture sweep has to do.

use serde::{Deserialize, Serialize};

use crate::error::SpecError;

/// Which line a set gives up when it needs room for a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// Least recently used: the line whose last access is oldest.
    #[default]
    Lru,
    /// Tree pseudo-LRU: a binary tree of `ways - 1` bits per set pointing away from the most
    /// recent access, as most hardware does it. Needs a power-of-two number of ways.
    TreePlru,
    /// A uniformly random way, drawn from the cache's own seeded generator (deterministic for a
    /// given seed).
    Random,
}

/// What a write does to the cache and to the next level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// Every write goes straight to the next level with a byte mask, so only the written bytes
    /// change there. A line already present is updated too. A write miss allocates the line
    /// (fetching the rest of it) before updating it.
    WriteThroughAllocate,
    /// As [`WritePolicy::WriteThroughAllocate`], but a write miss does not allocate: the bytes go
    /// to the next level only.
    WriteThroughNoAllocate,
    /// Writes stay in the cache; a per-byte dirty mask records exactly which bytes were written,
    /// and a write-back sends only those bytes down. Partial-line writes need no fill.
    WriteBackByteMask,
    /// Writes stay in the cache with one dirty bit per line. A write miss fetches the whole line
    /// first, and a write-back sends the *whole* line down, stale bytes included: the reason a
    /// barrier must invalidate such a cache before a write (the seed's "WRITE in dstAccessMask").
    #[default]
    WriteBackLineDirty,
    /// The cache is only ever read (texture and uniform caches). A write is an error, not a
    /// silent drop.
    ReadOnly,
}

impl WritePolicy {
    /// True when lines of this cache can hold data the next level does not have.
    pub fn can_be_dirty(self) -> bool {
        matches!(self, WritePolicy::WriteBackByteMask | WritePolicy::WriteBackLineDirty)
    }
}

/// What an invalidate does to a line that holds dirty data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DirtyOnInvalidate {
    /// Write the dirty bytes back, then drop the line: the safe behaviour, and what the seed
    /// says an invalidate of a non-read-only cache must really be.
    #[default]
    Flush,
    /// Drop the line and its dirty bytes. Unsafe: written data is lost. Offered only so an
    /// architect can model hardware that behaves this way and watch what breaks.
    Discard,
    /// Drop only clean lines; a dirty line stays, neither written back nor lost. Conforming:
    /// an invalidate makes writes visible to the cache's readers, it need not make this
    /// cache's own writes available (that is a flush's job, a first scope's). On a write-back
    /// cache, a barrier whose srcAccessMask leaves out a write then leaves the write where
    /// other caches' readers cannot see it.
    Keep,
}

/// The geometry and policies of one set-associative cache.
///
/// In TOML (every field optional, defaults as documented):
/// ```toml
/// size_bytes = 32768
/// line_bytes = 64
/// ways = 8
/// replacement = "lru"               # "lru" | "tree-plru" | "random"
/// write_policy = "write-through-allocate"
/// dirty_on_invalidate = "flush"     # "flush" | "discard" | "keep"
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheSpec {
    /// Capacity in bytes: `sets * ways * line_bytes`, at most [`MAX_CACHE_BYTES`], and with the
    /// lines' tags and state at most [`MAX_CACHE_HOST_BYTES`] of host memory
    /// ([`CacheSpec::host_bytes`]). Default 16384 (16 KiB).
    pub size_bytes: u64,
    /// Line size in bytes: a power of two from 4 to 4096. Default 64.
    pub line_bytes: u32,
    /// Associativity in lines per set: at least 1; `size_bytes / line_bytes` must be a
    /// multiple of it and the set count a power of two. Default 4.
    pub ways: u32,
    /// Replacement policy. Default `lru`.
    pub replacement: Replacement,
    /// Write policy. Default `write-back-line-dirty`.
    pub write_policy: WritePolicy,
    /// What invalidating a dirty line does. Default `flush` (safe).
    pub dirty_on_invalidate: DirtyOnInvalidate,
}

impl Default for CacheSpec {
    fn default() -> Self {
        CacheSpec {
            size_bytes: 16 * 1024,
            line_bytes: 64,
            ways: 4,
            replacement: Replacement::Lru,
            write_policy: WritePolicy::WriteBackLineDirty,
            dirty_on_invalidate: DirtyOnInvalidate::Flush,
        }
    }
}

/// The largest cache a spec may describe: 1 GiB. Bigger numbers in a profile are typos, and
/// a cache allocates its capacity up front.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;
/// The most host memory one cache may take, in bytes: its lines' bytes, their provenance tags
/// (as many bytes again) and each line's state (line number, hint, valid and dirty masks,
/// replacement state). Small lines make the state outweigh the data: a 512 MiB cache of 4-byte
/// lines needs more than 5 GiB.
pub const MAX_CACHE_HOST_BYTES: u64 = 2 << 30;
/// The largest line size, in bytes.
pub const MAX_LINE_BYTES: u32 = 4096;
/// The smallest line size, in bytes: one provenance word.
pub const MIN_LINE_BYTES: u32 = 4;
/// The largest associativity (tree-PLRU keeps `ways - 1` bits in a `u64`).
pub const MAX_WAYS: u32 = 64;

impl CacheSpec {
    /// A spec with the given geometry and policies, and the safe invalidate behaviour.
    pub fn new(size_bytes: u64, line_bytes: u32, ways: u32, replacement: Replacement, write_policy: WritePolicy) -> Self {
        CacheSpec { size_bytes, line_bytes, ways, replacement, write_policy, dirty_on_invalidate: DirtyOnInvalidate::Flush }
    }

    /// Number of sets (`size_bytes / (line_bytes * ways)`), valid only after [`CacheSpec::validate`].
    pub fn sets(&self) -> u64 {
        self.size_bytes / (self.line_bytes as u64 * self.ways as u64)
    }

    /// Checks that the geometry is one a cache can be built from, naming the field at fault.
    pub fn validate(&self) -> Result<(), SpecError> {
        let bad = |field: &'static str, reason: String| Err(SpecError { field, reason });
        if !self.line_bytes.is_power_of_two() || self.line_bytes < MIN_LINE_BYTES || self.line_bytes > MAX_LINE_BYTES {
            return bad(
                "line_bytes",
                format!("{} is not a power of two between {MIN_LINE_BYTES} and {MAX_LINE_BYTES}", self.line_bytes),
            );
        }
        if self.ways == 0 || self.ways > MAX_WAYS {
            return bad("ways", format!("{} is not between 1 and {MAX_WAYS}", self.ways));
        }
        if self.replacement == Replacement::TreePlru && !self.ways.is_power_of_two() {
            return bad("ways", format!("tree-plru needs a power-of-two number of ways, not {}", self.ways));
        }
        if self.size_bytes == 0 || self.size_bytes > MAX_CACHE_BYTES {
            return bad("size_bytes", format!("{} is not between 1 and {MAX_CACHE_BYTES}", self.size_bytes));
        }
        let set_bytes = self.line_bytes as u64 * self.ways as u64;
        if !self.size_bytes.is_multiple_of(set_bytes) {
            return bad(
                "size_bytes",
                format!("{} is not a multiple of line_bytes * ways = {set_bytes}", self.size_bytes),
            );
        }
        let sets = self.size_bytes / set_bytes;
        if !sets.is_power_of_two() {
            return bad("size_bytes", format!("gives {sets} sets; the set count must be a power of two"));
        }
        let host = self.host_bytes();
        if host > MAX_CACHE_HOST_BYTES {
            return bad(
                "size_bytes",
                format!("{} bytes in {}-byte lines take {host} bytes of host memory with their tags and per-line state, more than {MAX_CACHE_HOST_BYTES}", self.size_bytes, self.line_bytes),
            );
        }
        Ok(())
    }

    /// About how many bytes of host memory a cache of this spec allocates (an upper bound): the
    /// lines' bytes, a 4-byte provenance tag per 4-byte word, and per line its number, hint,
    /// valid and dirty masks and LRU time stamp, and per set its replacement state.
    pub fn host_bytes(&self) -> u64 {
        let slots = self.size_bytes / u64::from(self.line_bytes.max(1));
        let mask_bytes = u64::from(self.line_bytes).div_ceil(64) * 8;
        let per_slot = 8 + 1 + 2 * mask_bytes + 8;
        let sets = slots / u64::from(self.ways.max(1));
        self.size_bytes.saturating_mul(2).saturating_add(slots.saturating_mul(per_slot)).saturating_add(sets.saturating_mul(16))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_spec_is_valid_and_round_trips_through_toml() {
        let spec = CacheSpec::default();
        spec.validate().unwrap();
        let text = toml::to_string(&spec).unwrap();
        let back: CacheSpec = toml::from_str(&text).unwrap();
        assert_eq!(spec, back);
        assert!(text.contains("write_policy = \"write-back-line-dirty\""), "{text}");
    }

    #[test]
    fn bad_geometry_names_the_field() {
        let mut s = CacheSpec { line_bytes: 48, ..CacheSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "line_bytes");
        s = CacheSpec { size_bytes: 3 * 64 * 4, ..CacheSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "size_bytes");
        s = CacheSpec { ways: 3, replacement: Replacement::TreePlru, size_bytes: 3 * 64 * 4, ..CacheSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "ways");
        s = CacheSpec { size_bytes: 1 << 40, ..CacheSpec::default() };
        assert_eq!(s.validate().unwrap_err().field, "size_bytes");
    }

    /// The cap on a cache's host memory counts its per-line state, which small lines multiply:
    /// 512 MiB of 4-byte lines once passed the 1 GiB size cap and then aborted allocating.
    #[test]
    fn host_memory_counts_the_per_line_state() {
        let small_lines = CacheSpec { size_bytes: 512 << 20, line_bytes: 4, ..CacheSpec::default() };
        let e = small_lines.validate().unwrap_err();
        assert_eq!(e.field, "size_bytes");
        assert!(e.reason.contains("4-byte lines take") && e.reason.contains(&format!("more than {MAX_CACHE_HOST_BYTES}")), "{}", e.reason);
        // The same size in 64-byte lines fits; 1 GiB of them does not.
        CacheSpec { size_bytes: 512 << 20, ..CacheSpec::default() }.validate().unwrap();
        assert_eq!(CacheSpec { size_bytes: 1 << 30, ..CacheSpec::default() }.validate().unwrap_err().field, "size_bytes");
        // The bound is an upper bound on what a cache allocates: a 1 MiB cache of 64-byte lines.
        let l2 = CacheSpec { size_bytes: 1 << 20, ..CacheSpec::default() };
        assert!(l2.host_bytes() >= 2 << 20 && l2.host_bytes() < 3 << 20, "{}", l2.host_bytes());
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let err = toml::from_str::<CacheSpec>("size_bytes = 1024\nline_byts = 64\n").unwrap_err();
        assert!(err.to_string().contains("line_byts"), "{err}");
    }
}
