//! The trait through which one level of the hierarchy reaches the next, and what an access
//! reports back.

use bitvec::prelude::*;
use serde::Serialize;

use crate::error::AccessError;

/// Provenance of a 4-byte word: an opaque id of the write that produced it (0: never written,
/// the initial zeroes). Tags travel with the data through every level, so a stale copy keeps
/// the tag of the old write.
pub type Tag = u32;

/// Bytes covered by one provenance tag.
pub const TAG_GRANULE: u64 = 4;

/// Bytes per memory transaction: bandwidth is counted in these.
pub const TRANSACTION_BYTES: u64 = 32;

/// Number of 4-byte words that the byte range `[addr, addr + len)` touches: the length of the
/// tag slice that goes with such an access.
#[inline]
pub fn word_span(addr: u64, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    if (addr | len as u64).is_multiple_of(TAG_GRANULE) {
        // Whole words from a word boundary. Written out so that where the compiler knows both
        // are multiples of 4, the count folds to a constant.
        return len / TAG_GRANULE as usize;
    }
    ((addr + len as u64 - 1) / TAG_GRANULE - addr / TAG_GRANULE + 1) as usize
}

/// Number of 32-byte transactions that the byte range `[addr, addr + len)` touches.
#[inline]
pub fn transaction_span(addr: u64, len: usize) -> u64 {
    if len == 0 {
        return 0;
    }
    if (addr | len as u64).is_multiple_of(TRANSACTION_BYTES) {
        // Whole transactions from a boundary: a constant where the compiler knows both are
        // multiples of 32, as for a line-aligned fill.
        return len as u64 / TRANSACTION_BYTES;
    }
    (addr + len as u64 - 1) / TRANSACTION_BYTES - addr / TRANSACTION_BYTES + 1
}

/// Asks the host CPU to bring the cache line holding `*place` into its caches, without waiting
/// for it. No effect on anything the program computes; a no-op on hosts other than x86-64.
#[inline(always)]
pub(crate) fn host_prefetch<T>(place: &T) {
    host_prefetch_at(place as *const T)
}

/// [`host_prefetch`] of an address that need not be valid: a prefetch reads nothing the program
/// sees and never faults, so a caller may compute the place (`wrapping_add`) instead of
/// indexing it, and a place outside any allocation only wastes the hint.
#[inline(always)]
pub(crate) fn host_prefetch_at<T>(place: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` dereferences nothing (it is a hint that never faults, whatever the
    // address), and SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(place.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = place;
}

/// Copies `src` into `dst` (equal lengths). The sizes a cache moves all the time (a 64-byte line
/// and its 16 tags, a 4-, 8- or 16-byte access and its words) become plain moves instead of a
/// call to `memcpy`, which costs more than the copy itself at these sizes.
#[inline(always)]
pub(crate) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    // One branch on the length picks the arm; inside it the compiler knows the length of `dst`.
    let done = match dst.len() {
        1 => copy_n::<T, 1>(dst, src),
        2 => copy_n::<T, 2>(dst, src),
        4 => copy_n::<T, 4>(dst, src),
        8 => copy_n::<T, 8>(dst, src),
        16 => copy_n::<T, 16>(dst, src),
        64 => copy_n::<T, 64>(dst, src),
        _ => false,
    };
    if !done {
        dst.copy_from_slice(src);
    }
}

/// Sets every element of `dst` to `value`; like [`copy`], the common lengths (a line's 16 tags,
/// an access's 1 or 2) become plain stores instead of a call to `memset`.
#[inline(always)]
pub(crate) fn fill<T: Copy>(dst: &mut [T], value: T) {
    match dst.len() {
        1 => dst[0] = value,
        2 => dst[..2].copy_from_slice(&[value; 2]),
        16 => dst[..16].copy_from_slice(&[value; 16]),
        _ => dst.fill(value),
    }
}

/// Copies `src` into `dst` when both hold exactly `N` elements; false otherwise.
#[inline(always)]
fn copy_n<T: Copy, const N: usize>(dst: &mut [T], src: &[T]) -> bool {
    match (<&mut [T; N]>::try_from(dst), <&[T; N]>::try_from(src)) {
        (Ok(d), Ok(s)) => {
            *d = *s;
            true
        }
        _ => false,
    }
}

/// The provenance that goes with a write.
#[derive(Clone, Copy, Debug)]
pub enum Tags<'a> {
    /// Every word written takes this tag: an agent's own store.
    One(Tag),
    /// One tag per word the write spans ([`word_span`]): data moving between levels.
    Words(&'a [Tag]),
}

impl Tags<'_> {
    /// The tag of the `i`-th word the write spans.
    #[inline]
    pub fn get(&self, i: usize) -> Tag {
        match self {
            Tags::One(t) => *t,
            Tags::Words(w) => w[i],
        }
    }

    /// Checks a per-word slice against the words the access spans.
    /// Also refuses an access that runs past the end of the 64-bit address space, before any
    /// level computes an address beyond it.
    pub(crate) fn check(&self, addr: u64, len: usize) -> Result<(), AccessError> {
        if addr.checked_add(len as u64).is_none() {
            return Err(AccessError::OutOfRange { addr, len, size: u64::MAX });
        }
        if let Tags::Words(w) = self {
            let want = word_span(addr, len);
            if w.len() != want {
                return Err(AccessError::TagLength { want, got: w.len() });
            }
        }
        Ok(())
    }
}

/// What one access did at a level and below it, for a timing model to cost and for statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AccessReport {
    /// Lines of this level the access found present with the bytes it needed.
    pub hits: u32,
    /// Lines of this level the access needed but did not find (or found only partly valid).
    pub misses: u32,
    /// Lines this level fetched from the next level.
    pub fills: u32,
    /// Valid lines this level dropped to make room.
    pub evictions: u32,
    /// Lines this level wrote back to the next level (eviction, flush or invalidate).
    pub writeback_lines: u32,
    /// Bytes of those write-backs that reached the next level (masked bytes excluded).
    pub writeback_bytes: u64,
    /// Bytes this level passed down because of its write-through policy.
    pub write_through_bytes: u64,
    /// How far below this level the access had to go: 0 when it was served here, 1 when the
    /// next level served it, and so on. The timing model adds the latencies of the levels passed.
    pub depth: u8,
    /// (Counts are 32-bit, saturating, so that a report fits one 64-byte host cache line: it is
    /// made and folded at every level of every access.)
    /// How far below this level each line of a read went, two bits a line from the read's first
    /// line (3: three levels or more): which level served which bytes. Lines past the 32nd
    /// share `depth`. See [`AccessReport::line_depth`].
    pub line_depths: u64,
    /// 32-byte transactions read from the backing store (device memory) by this access.
    pub dram_read_transactions: u32,
    /// 32-byte transactions written to the backing store by this access.
    pub dram_write_transactions: u32,
    /// Lines examined by a maintenance operation (flush / invalidate): its walking cost.
    pub lines_examined: u32,
}

/// The lines whose depth [`AccessReport::line_depths`] records.
pub const LINE_DEPTH_LINES: usize = 32;

/// Line `k`'s depth in a report's `line_depths`, `depth` for a line past the recorded ones.
#[inline]
pub fn line_depth(line_depths: u64, depth: u8, k: usize) -> u8 {
    if k < LINE_DEPTH_LINES { ((line_depths >> (2 * k)) & 3) as u8 } else { depth }
}

impl AccessReport {
    /// How far below this level line `k` of a read (counted from the read's first line) went:
    /// 0 when this level served it.
    #[inline]
    pub fn line_depth(&self, k: usize) -> u8 {
        line_depth(self.line_depths, self.depth, k)
    }

    /// Records that line `k` of a read went `depth` levels below this one.
    #[inline]
    pub fn set_line_depth(&mut self, k: usize, depth: u8) {
        if k < LINE_DEPTH_LINES {
            self.line_depths = (self.line_depths & !(3 << (2 * k))) | (u64::from(depth.min(3)) << (2 * k));
        }
    }

    /// Folds in what the next level reported for a request this level made.
    #[inline]
    pub fn absorb_below(&mut self, below: &AccessReport) {
        // The maximum of `depth` and `below.depth + 1`, written as a branch on the common case
        // (the level below reached at least as deep): fewer instructions than a maximum.
        if below.depth >= self.depth {
            self.depth = below.depth.saturating_add(1);
        }
        self.dram_read_transactions = self.dram_read_transactions.saturating_add(below.dram_read_transactions);
        self.dram_write_transactions = self.dram_write_transactions.saturating_add(below.dram_write_transactions);
    }

    /// Adds another report of this same level (several lines of one access).
    pub fn merge(&mut self, other: &AccessReport) {
        self.hits += other.hits;
        self.misses += other.misses;
        self.fills += other.fills;
        self.evictions += other.evictions;
        self.writeback_lines += other.writeback_lines;
        self.writeback_bytes += other.writeback_bytes;
        self.write_through_bytes += other.write_through_bytes;
        self.depth = self.depth.max(other.depth);
        self.dram_read_transactions = self.dram_read_transactions.saturating_add(other.dram_read_transactions);
        self.dram_write_transactions = self.dram_write_transactions.saturating_add(other.dram_write_transactions);
        self.lines_examined = self.lines_examined.saturating_add(other.lines_examined);
    }
}

/// A level of the memory hierarchy that serves reads and writes of any size and alignment.
///
/// Implemented by the [`crate::BackingStore`] and by a cache together with its next level
/// ([`crate::Chained`]); a ROP tile cache or a host cache implements it the same way.
pub trait MemoryLevel {
    /// Reads `data.len()` bytes at `addr` into `data`, and the provenance of the words they lie
    /// in into `tags` (length [`word_span`]`(addr, data.len())`).
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError>;

    /// Writes `data` at `addr`. With a `mask` (one bit per byte of `data`), only the bytes whose
    /// bit is set change; a word's tag changes when any of its bytes is written.
    fn write(
        &mut self,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError>;

    /// Hints that an access at `addr` is coming: brings into the *host's* caches the state that
    /// serving it will read (a set's line numbers and LRU state, a page's bytes), so that a
    /// caller who knows its next accesses (a trace replay, the lines of a coalesced request) can
    /// overlap their host memory latency. It changes nothing simulated: no state, statistic or
    /// result depends on it. The default does nothing.
    #[inline]
    fn prefetch(&self, addr: u64) {
        let _ = addr;
    }
}

impl<T: MemoryLevel + ?Sized> MemoryLevel for &mut T {
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        (**self).read(addr, data, tags)
    }

    fn write(
        &mut self,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError> {
        (**self).write(addr, data, tags, mask)
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        (**self).prefetch(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report fits one 64-byte host cache line: every level of every access makes and folds
    /// one, and a larger one cost the simulator about 5% on scattered loads.
    #[test]
    fn a_report_fits_a_host_cache_line() {
        assert!(std::mem::size_of::<AccessReport>() <= 64, "{}", std::mem::size_of::<AccessReport>());
    }

    #[test]
    fn spans_count_touched_words_and_transactions() {
        assert_eq!(word_span(0, 0), 0);
        assert_eq!(word_span(0, 4), 1);
        assert_eq!(word_span(3, 2), 2);
        assert_eq!(word_span(5, 8), 3);
        assert_eq!(transaction_span(0, 32), 1);
        assert_eq!(transaction_span(31, 2), 2);
        assert_eq!(transaction_span(64, 128), 4);
        assert_eq!((word_span(5, 0), transaction_span(33, 0)), (0, 0));
    }

    #[test]
    fn spans_agree_with_counting_the_units_touched() {
        for addr in 0..80u64 {
            for len in 0..80usize {
                let units = |size: u64| (addr..addr + len as u64).map(|b| b / size).collect::<std::collections::BTreeSet<_>>().len();
                assert_eq!(word_span(addr, len), units(TAG_GRANULE), "words of {len} at {addr}");
                assert_eq!(transaction_span(addr, len), units(TRANSACTION_BYTES) as u64, "transactions of {len} at {addr}");
            }
        }
    }
}
