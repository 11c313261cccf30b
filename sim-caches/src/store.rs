//! Device memory: a sparse, byte-accurate backing store that counts its traffic.
//!
//! Memory is kept in 64 KiB pages allocated on first write, so a 4 GiB address space costs only
//! what is touched (plus a directory of one 24-byte entry per page). Unwritten memory reads as
//! zero with tag 0. Every access is counted in 32-byte transactions on the channel its address
//! maps to (`(addr / interleave_bytes) % channels`), which is what a timing model needs to see
//! contention and what compression saves.
//!
//! # Compact provenance
//! One tag per 4-byte word would double the memory of every page, and the simulator keeps two
//! stores (the simulated run and the reference run). Most pages are written by one writer at a
//! time (fills, copies, host uploads), so a page keeps its tags as a *span*: the words of one
//! contiguous range carry one tag and every other word carries a base tag. That covers a fresh
//! page (everything tag 0), a page one writer filled in one go or piece by piece in address
//! order, and a page whose front or back part one writer rewrote. The first write that the span
//! cannot describe turns the page into one tag per 64-byte chunk (4 KiB a page), which a cache
//! writing back whole lines in any order keeps; only a chunk whose words carry different tags
//! expands the page to one tag per word. A later write of the whole page with one tag makes it
//! compact again. Reads of a compact page touch only its data, so a fill costs
//! one host cache line, not two.
//!
//! # Page frames on huge pages
//! A page's bytes live in a 64 KiB frame handed out, in first-touch order, from a 2 MiB arena
//! for which the host is asked for a huge page (see `huge.rs`). Random accesses over a 64 MiB
//! store then need 32 host TLB entries instead of 16,384 and stop walking the host's page tables
//! on nearly every fill (`BENCHMARKS.md` has the effect). A store holds at most one arena's
//! worth (under 2 MiB) of frames that no page uses yet.

use std::ptr::NonNull;

use bitvec::prelude::*;
use serde::Serialize;

use crate::error::{AccessError, SpecError};
use crate::huge::{HUGE_PAGE_BYTES, HugeBuf};
use crate::level::{AccessReport, MemoryLevel, TAG_GRANULE, TRANSACTION_BYTES, Tag, Tags, copy, fill, host_prefetch, transaction_span, word_span};

const PAGE_SHIFT: u32 = 16;
const PAGE_BYTES: u64 = 1 << PAGE_SHIFT;
const PAGE_LEN: usize = PAGE_BYTES as usize;
const PAGE_WORDS: usize = (PAGE_BYTES / TAG_GRANULE) as usize;
/// Host bytes of one page's per-word tag array.
const PAGE_TAG_BYTES: u64 = PAGE_WORDS as u64 * std::mem::size_of::<Tag>() as u64;
/// Words in one chunk: a 64-byte cache line's worth.
const CHUNK_WORDS: usize = 16;
const PAGE_CHUNKS: usize = PAGE_WORDS / CHUNK_WORDS;
/// Host bytes of one page's per-chunk tag array.
const PAGE_CHUNK_TAG_BYTES: u64 = PAGE_CHUNKS as u64 * std::mem::size_of::<Tag>() as u64;

/// How many pages hold their tags per chunk and per word: what `resident_bytes` adds.
#[derive(Default)]
struct TagArrays {
    chunks: usize,
    words: usize,
}

/// The largest address space a backing store accepts: 64 GiB (a directory of one 24-byte entry
/// per 64 KiB page, 24 MiB at this size).
pub const MAX_ADDRESS_SPACE: u64 = 64 << 30;
/// The most channels a backing store accepts.
pub const MAX_CHANNELS: u32 = 1024;

/// A zeroed, heap-allocated array. Going through `vec!` keeps the 64 KiB off the stack and lets
/// the allocator hand out memory that is already zero.
fn zeroed<T: Copy + Default, const N: usize>() -> Box<[T; N]> {
    match vec![T::default(); N].into_boxed_slice().try_into() {
        Ok(array) => array,
        // A boxed slice of `N` elements always converts to `[T; N]`.
        Err(_) => unreachable!("a slice of N elements is an [T; N]"),
    }
}

/// The provenance of one page's words.
enum PageTags {
    /// Words `lo..hi` carry `tag`, every other word carries `base` (`lo == hi`: all carry
    /// `base`). 16 bytes instead of 64 KiB.
    Span { base: Tag, tag: Tag, lo: u16, hi: u16 },
    /// One tag per 64-byte chunk (16 words).
    Chunks(Box<[Tag; PAGE_CHUNKS]>),
    /// One tag per word.
    Words(Box<[Tag; PAGE_WORDS]>),
}

impl PageTags {
    /// Every word carries `tag`.
    const fn uniform(tag: Tag) -> PageTags {
        PageTags::Span { base: tag, tag, lo: 0, hi: 0 }
    }

    /// The tag of word `w` of the page.
    #[inline]
    fn get(&self, w: usize) -> Tag {
        match self {
            PageTags::Span { base, tag, lo, hi } => {
                if (*lo as usize..*hi as usize).contains(&w) {
                    *tag
                } else {
                    *base
                }
            }
            PageTags::Chunks(chunks) => chunks[w / CHUNK_WORDS],
            PageTags::Words(words) => words[w],
        }
    }

    /// Copies the tags of words `w0..w0 + out.len()` into `out`.
    #[inline(always)]
    fn read(&self, w0: usize, out: &mut [Tag]) {
        // The span first, on its own: the common page, one test of the kind instead of two.
        if let PageTags::Span { base, tag, lo, hi } = self {
            let n = out.len();
            if *hi as usize <= w0 || *lo as usize >= w0 + n {
                // The range misses the span (always so on a uniform page): one fill.
                fill(out, *base);
            } else {
                let lo = (*lo as usize).saturating_sub(w0).min(n);
                let hi = (*hi as usize).saturating_sub(w0).min(n).max(lo);
                out[..lo].fill(*base);
                out[lo..hi].fill(*tag);
                out[hi..].fill(*base);
            }
            return;
        }
        match self {
            PageTags::Span { .. } => unreachable!("read above"),
            PageTags::Chunks(chunks) => {
                let mut i = 0;
                while i < out.len() {
                    let w = w0 + i;
                    let run = (CHUNK_WORDS - w % CHUNK_WORDS).min(out.len() - i);
                    out[i..i + run].fill(chunks[w / CHUNK_WORDS]);
                    i += run;
                }
            }
            PageTags::Words(words) => copy(out, &words[w0..w0 + out.len()]),
        }
    }

    /// Gives words `a..b` (`a < b <= PAGE_WORDS`) the tag `t`, staying compact when the span can
    /// describe the result. `arrays` counts the store's per-word arrays.
    fn set(&mut self, a: usize, b: usize, t: Tag, arrays: &mut TagArrays) {
        if a == 0 && b == PAGE_WORDS {
            match self {
                PageTags::Words(_) => arrays.words -= 1,
                PageTags::Chunks(_) => arrays.chunks -= 1,
                PageTags::Span { .. } => {}
            }
            *self = PageTags::uniform(t);
            return;
        }
        match self {
            PageTags::Words(words) => words[a..b].fill(t),
            PageTags::Chunks(chunks) => {
                // Whole chunks take the tag; a partly covered chunk keeps one tag only if it
                // already has this one.
                let (ca, cb) = (a / CHUNK_WORDS, (b - 1) / CHUNK_WORDS);
                let partial = |c: usize| c * CHUNK_WORDS < a || (c + 1) * CHUNK_WORDS > b;
                if (partial(ca) && chunks[ca] != t) || (partial(cb) && chunks[cb] != t) {
                    let words = self.expand(arrays);
                    words[a..b].fill(t);
                } else {
                    chunks[ca..=cb].fill(t);
                }
            }
            PageTags::Span { base, tag, lo, hi } => {
                let (l, h) = (*lo as usize, *hi as usize);
                // `a`, `b`, `l` and `h` are at most PAGE_WORDS, which fits a u16.
                let span = |lo: &mut u16, hi: &mut u16, l: usize, h: usize| {
                    *lo = l as u16;
                    *hi = h as u16;
                };
                if l == h {
                    // Uniform so far: the write becomes the span (or changes nothing).
                    if t != *base {
                        *tag = t;
                        span(lo, hi, a, b);
                    }
                } else if a <= l && h <= b {
                    // The write covers the whole span: it replaces it.
                    if t == *base {
                        span(lo, hi, 0, 0);
                    } else {
                        *tag = t;
                        span(lo, hi, a, b);
                    }
                } else if t == *tag && a <= h && l <= b {
                    // The same writer extends its span (overlapping or adjacent).
                    let (nl, nh) = (a.min(l), b.max(h));
                    if nl == 0 && nh == PAGE_WORDS {
                        *self = PageTags::uniform(t);
                    } else {
                        span(lo, hi, nl, nh);
                    }
                } else if t == *base && (b <= l || h <= a) {
                    // Base words rewritten by the base writer: nothing changes.
                } else if t == *base && a <= l {
                    // The base writer takes back the front of the span (`l < b < h`).
                    span(lo, hi, b, h);
                } else if t == *base && h <= b {
                    // ... or its back (`l < a < h`).
                    span(lo, hi, l, a);
                } else {
                    // A third tag, a hole in the span, or a second span: one tag per chunk
                    // when the span's ends fall on chunk boundaries, else one tag per word.
                    if self.make_chunks(arrays) {
                        self.set(a, b, t, arrays);
                    } else {
                        let words = self.expand(arrays);
                        words[a..b].fill(t);
                    }
                }
            }
        }
    }

    /// Gives words `w0..w0 + src.len()` the tags of `src`, one run of equal tags at a time, so a
    /// line carrying one writer's data keeps the page compact.
    fn write(&mut self, w0: usize, src: &[Tag], arrays: &mut TagArrays) {
        if let PageTags::Words(words) = self {
            words[w0..w0 + src.len()].copy_from_slice(src);
            return;
        }
        // A line written back usually carries one writer: one compare of all its words (with no
        // early exit, so the compiler can do them several at a time) finds that out.
        if let Some(&t) = src.first()
            && src.iter().fold(0, |acc, &x| acc | (x ^ t)) == 0
        {
            self.set(w0, w0 + src.len(), t, arrays);
            return;
        }
        let mut i = 0;
        while i < src.len() {
            let t = src[i];
            let run = src[i..].iter().position(|&x| x != t).unwrap_or(src.len() - i);
            self.set(w0 + i, w0 + i + run, t, arrays);
            i += run;
        }
    }

    /// Turns the page into one tag per word (counted in `arrays`) and returns them.
    fn expand(&mut self, arrays: &mut TagArrays) -> &mut [Tag; PAGE_WORDS] {
        let words = match self {
            PageTags::Span { base, tag, lo, hi } => {
                let mut words = zeroed::<Tag, PAGE_WORDS>();
                words.fill(*base);
                words[*lo as usize..*hi as usize].fill(*tag);
                Some(words)
            }
            PageTags::Chunks(chunks) => {
                let mut words = zeroed::<Tag, PAGE_WORDS>();
                for (c, &t) in chunks.iter().enumerate() {
                    words[c * CHUNK_WORDS..(c + 1) * CHUNK_WORDS].fill(t);
                }
                arrays.chunks -= 1;
                Some(words)
            }
            PageTags::Words(_) => None,
        };
        if let Some(words) = words {
            *self = PageTags::Words(words);
            arrays.words += 1;
        }
        match self {
            PageTags::Words(words) => words,
            _ => unreachable!("expanded above"),
        }
    }

    /// Turns a span whose ends fall on chunk boundaries into one tag per chunk; false (and
    /// nothing changed) when they do not.
    fn make_chunks(&mut self, arrays: &mut TagArrays) -> bool {
        let PageTags::Span { base, tag, lo, hi } = *self else { return false };
        let (lo, hi) = (lo as usize, hi as usize);
        if lo % CHUNK_WORDS != 0 || hi % CHUNK_WORDS != 0 {
            return false;
        }
        let mut chunks = zeroed::<Tag, PAGE_CHUNKS>();
        chunks.fill(base);
        chunks[lo / CHUNK_WORDS..hi / CHUNK_WORDS].fill(tag);
        *self = PageTags::Chunks(chunks);
        arrays.chunks += 1;
        true
    }
}

/// A resident page: its bytes (a frame of [`Frames`]) and its provenance.
struct Page {
    frame: Frame,
    tags: PageTags,
}

/// Frames in one 2 MiB arena.
const FRAMES_PER_ARENA: usize = HUGE_PAGE_BYTES / PAGE_LEN;

/// The bytes of every resident page: 64 KiB frames handed out in order from zeroed 2 MiB
/// arenas (see the module documentation). Frames are never given back, as pages never are.
#[derive(Default)]
struct Frames {
    arenas: Vec<HugeBuf<u8>>,
    used: usize,
}

impl Frames {
    /// A zeroed frame of its own.
    fn take(&mut self) -> Frame {
        let at = self.used % FRAMES_PER_ARENA * PAGE_LEN;
        if at == 0 {
            self.arenas.push(HugeBuf::zeroed(HUGE_PAGE_BYTES));
        }
        self.used += 1;
        let arena = &self.arenas[self.arenas.len() - 1];
        debug_assert!(at + PAGE_LEN <= HUGE_PAGE_BYTES);
        // SAFETY: `at + PAGE_LEN` is at most the arena's length (`FRAMES_PER_ARENA` frames), so
        // the pointer stays inside the arena's allocation.
        Frame(unsafe { NonNull::new_unchecked(arena.as_raw().add(at)).cast() })
    }
}

/// One page's 64 KiB inside an arena of [`Frames`]: a pointer, so that a page's bytes are one
/// load away from its directory entry (through the arena it was two loads and an index
/// computation, about 7 instructions on every fill).
///
/// Each `Frame` is handed out once by [`Frames::take`] and owned by one [`Page`]; the arena it
/// points into belongs to the same [`BackingStore`], never moves (only its handle does when
/// `arenas` grows) and is freed only with the store. The frame is therefore borrowed exactly
/// as its page is.
struct Frame(NonNull<[u8; PAGE_LEN]>);

// SAFETY: a `Frame` is the only handle through which its bytes are read or written (see above;
// the arena's own `HugeBuf` is never dereferenced once frames are handed out), like a
// `Box<[u8; PAGE_LEN]>`.
unsafe impl Send for Frame {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for Frame {}

impl Frame {
    /// The page's bytes.
    #[inline(always)]
    fn bytes(&self) -> &[u8; PAGE_LEN] {
        // SAFETY: live, initialized (zeroed) and not mutably borrowed while `self` is shared.
        unsafe { self.0.as_ref() }
    }

    /// The page's bytes, to write.
    #[inline(always)]
    fn bytes_mut(&mut self) -> &mut [u8; PAGE_LEN] {
        // SAFETY: as in `bytes`, and exclusive because `self` is.
        unsafe { self.0.as_mut() }
    }
}

/// Traffic on one channel of device memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChannelStats {
    /// 32-byte transactions read.
    pub read_transactions: u64,
    /// 32-byte transactions written (a masked write counts only transactions with a byte set).
    pub write_transactions: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written (masked-out bytes excluded).
    pub write_bytes: u64,
}

/// Sparse, byte-accurate device memory with per-channel transaction accounting.
pub struct BackingStore {
    size: u64,
    channels: u32,
    interleave_shift: u32,
    /// `channels - 1` when the channel count is a power of two: the channel is then a mask away,
    /// not a division, on every transaction counted.
    channel_mask: Option<u64>,
    pages: Vec<Option<Page>>,
    /// Where every page's bytes are. Never replaced, cleared or moved out of the store while
    /// `pages` holds frames from it: each `Page`'s `Frame` points into it without a lifetime.
    frames: Frames,
    resident_pages: usize,
    /// Pages holding one tag per chunk or per word rather than a span.
    tag_arrays: TagArrays,
    stats: Vec<ChannelStats>,
}

impl BackingStore {
    /// A zeroed address space of `size_bytes`, interleaved over `channels` every
    /// `interleave_bytes` (a power of two, at least 32).
    pub fn new(size_bytes: u64, channels: u32, interleave_bytes: u64) -> Result<BackingStore, SpecError> {
        if size_bytes == 0 || size_bytes > MAX_ADDRESS_SPACE {
            return Err(SpecError {
                field: "size_bytes",
                reason: format!("{size_bytes} is not between 1 and {MAX_ADDRESS_SPACE}"),
            });
        }
        if channels == 0 || channels > MAX_CHANNELS {
            return Err(SpecError { field: "channels", reason: format!("{channels} is not between 1 and {MAX_CHANNELS}") });
        }
        if !interleave_bytes.is_power_of_two() || !(TRANSACTION_BYTES..=PAGE_BYTES).contains(&interleave_bytes) {
            return Err(SpecError {
                field: "interleave_bytes",
                reason: format!("{interleave_bytes} is not a power of two between {TRANSACTION_BYTES} and {PAGE_BYTES}"),
            });
        }
        let page_count = size_bytes.div_ceil(PAGE_BYTES) as usize;
        let mut pages = Vec::new();
        pages.resize_with(page_count, || None);
        Ok(BackingStore {
            size: size_bytes,
            channels,
            interleave_shift: interleave_bytes.trailing_zeros(),
            channel_mask: channels.is_power_of_two().then(|| channels as u64 - 1),
            pages,
            frames: Frames::default(),
            resident_pages: 0,
            tag_arrays: TagArrays::default(),
            stats: vec![ChannelStats::default(); channels as usize],
        })
    }

    /// Size of the address space in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of channels.
    pub fn channels(&self) -> u32 {
        self.channels
    }

    /// The channel that serves byte `addr`.
    #[inline]
    pub fn channel_of(&self, addr: u64) -> u32 {
        // Below `channels`, which is a `u32`.
        self.channel_index(addr) as u32
    }

    /// [`BackingStore::channel_of`] as an index into `stats`, with no truncation to redo.
    #[inline(always)]
    fn channel_index(&self, addr: u64) -> usize {
        let chunk = addr >> self.interleave_shift;
        match self.channel_mask {
            Some(mask) => (chunk & mask) as usize,
            None => (chunk % self.channels as u64) as usize,
        }
    }

    /// Traffic per channel so far.
    pub fn channel_stats(&self) -> &[ChannelStats] {
        &self.stats
    }

    /// Traffic summed over all channels.
    pub fn total_stats(&self) -> ChannelStats {
        self.stats.iter().fold(ChannelStats::default(), |mut a, c| {
            a.read_transactions += c.read_transactions;
            a.write_transactions += c.write_transactions;
            a.read_bytes += c.read_bytes;
            a.write_bytes += c.write_bytes;
            a
        })
    }

    /// Bytes of host memory holding simulated data and provenance: 64 KiB per resident page,
    /// plus 4 KiB of per-chunk tags for each page a span cannot describe, or 64 KiB of per-word
    /// tags for each page whose chunks themselves are mixed (see the module documentation). The page
    /// directory (24 bytes per 64 KiB of address space) and the frames not yet used in the last
    /// arena (under 2 MiB) are not included.
    pub fn resident_bytes(&self) -> u64 {
        self.resident_pages as u64 * PAGE_BYTES
            + self.tag_arrays.words as u64 * PAGE_TAG_BYTES
            + self.tag_arrays.chunks as u64 * PAGE_CHUNK_TAG_BYTES
    }

    /// Number of resident pages holding one tag per word (the others hold a span or chunks).
    pub fn expanded_pages(&self) -> usize {
        self.tag_arrays.words
    }

    /// Number of resident pages holding one tag per 64-byte chunk.
    pub fn chunked_pages(&self) -> usize {
        self.tag_arrays.chunks
    }

    #[inline]
    fn check(&self, addr: u64, len: usize) -> Result<(), AccessError> {
        match addr.checked_add(len as u64) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(AccessError::OutOfRange { addr, len, size: self.size }),
        }
    }

    /// Reads bytes and provenance without counting traffic: the functional path, for loading,
    /// checking and reporting.
    #[inline(always)]
    pub fn peek(&self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(), AccessError> {
        let len = data.len();
        let off = (addr & (PAGE_BYTES - 1)) as usize;
        // Fast path: the access lies in one page (every cache fill does). `addr <= size - len` is
        // `addr + len <= size` without overflow, and one compare where `len` is a constant.
        if off + len <= PAGE_LEN && self.size.checked_sub(len as u64).is_some_and(|room| addr <= room) && tags.len() == word_span(addr, len) {
            match self.pages.get((addr >> PAGE_SHIFT) as usize) {
                Some(Some(p)) => {
                    copy(data, &p.frame.bytes()[off..off + len]);
                    p.tags.read(off / TAG_GRANULE as usize, tags);
                }
                _ => {
                    data.fill(0);
                    tags.fill(0);
                }
            }
            return Ok(());
        }
        self.peek_pages(addr, data, tags)
    }

    /// [`BackingStore::peek`] of an access that may cross pages or be invalid.
    fn peek_pages(&self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(), AccessError> {
        self.check(addr, data.len())?;
        Tags::Words(tags).check(addr, data.len())?;
        let mut pos = 0usize;
        while pos < data.len() {
            let a = addr + pos as u64;
            let page = (a >> PAGE_SHIFT) as usize;
            let off = (a & (PAGE_BYTES - 1)) as usize;
            let n = (PAGE_LEN - off).min(data.len() - pos);
            let w0 = (a / TAG_GRANULE - addr / TAG_GRANULE) as usize;
            let wn = word_span(a, n);
            match self.pages.get(page) {
                Some(Some(p)) => {
                    data[pos..pos + n].copy_from_slice(&p.frame.bytes()[off..off + n]);
                    p.tags.read(off / TAG_GRANULE as usize, &mut tags[w0..w0 + wn]);
                }
                _ => {
                    data[pos..pos + n].fill(0);
                    tags[w0..w0 + wn].fill(0);
                }
            }
            pos += n;
        }
        Ok(())
    }

    /// Writes bytes with one tag without counting traffic: the functional path.
    pub fn poke(&mut self, addr: u64, data: &[u8], tag: Tag) -> Result<(), AccessError> {
        self.check(addr, data.len())?;
        self.store(addr, data, Tags::One(tag), None);
        Ok(())
    }

    fn store(&mut self, addr: u64, data: &[u8], tags: Tags<'_>, mask: Option<&BitSlice<u64, Lsb0>>) {
        let first_word = addr / TAG_GRANULE;
        let mut pos = 0usize;
        while pos < data.len() {
            let a = addr + pos as u64;
            let off = (a & (PAGE_BYTES - 1)) as usize;
            let n = (PAGE_LEN - off).min(data.len() - pos);
            let Some(slot) = self.pages.get_mut((a >> PAGE_SHIFT) as usize) else {
                // Unreachable: the caller checked the range.
                return;
            };
            let page = slot.get_or_insert_with(|| {
                self.resident_pages += 1;
                Page { frame: self.frames.take(), tags: PageTags::uniform(0) }
            });
            let bytes = page.frame.bytes_mut();
            // Page-local words `w_lo..w_hi`, and where the first of them sits in `tags`.
            let w_lo = off / TAG_GRANULE as usize;
            let w_hi = (off + n - 1) / TAG_GRANULE as usize + 1;
            let src_w0 = (a / TAG_GRANULE - first_word) as usize;
            match mask {
                None => {
                    bytes[off..off + n].copy_from_slice(&data[pos..pos + n]);
                    match tags {
                        Tags::One(t) => page.tags.set(w_lo, w_hi, t, &mut self.tag_arrays),
                        Tags::Words(ws) => page.tags.write(w_lo, &ws[src_w0..src_w0 + (w_hi - w_lo)], &mut self.tag_arrays),
                    }
                }
                Some(mask) => {
                    // A word takes its new tag when any of its bytes is written; the set bits
                    // come in address order, so each word is seen once, at its first byte.
                    let mut last_word = usize::MAX;
                    for i in mask[pos..pos + n].iter_ones() {
                        bytes[off + i] = data[pos + i];
                        let w = (off + i) / TAG_GRANULE as usize;
                        if w == last_word {
                            continue;
                        }
                        last_word = w;
                        let t = tags.get(src_w0 + w - w_lo);
                        match &mut page.tags {
                            // A plain store: reading the old tag first would wait for a cache
                            // miss that a store alone leaves to the store buffer.
                            PageTags::Words(words) => words[w] = t,
                            span => {
                                if span.get(w) != t {
                                    span.set(w, w + 1, t, &mut self.tag_arrays);
                                }
                            }
                        }
                    }
                }
            }
            pos += n;
        }
    }

    /// Counts an unmasked access of `len` bytes at `addr`: one pass per interleave chunk (a
    /// transaction never straddles two, as the interleave is a multiple of 32 bytes), so a line
    /// inside one chunk costs one update.
    #[inline(always)]
    fn count(&mut self, addr: u64, len: usize, write: bool) -> u64 {
        let end = addr + len as u64;
        if len != 0 && (addr ^ (end - 1)) >> self.interleave_shift == 0 {
            // Inside one interleave chunk (every line-sized access): one channel, no loop.
            let t = transaction_span(addr, len);
            self.add_traffic(addr, t, len as u64, write);
            return t;
        }
        let mut a = addr;
        let mut total = 0;
        while a < end {
            let chunk_end = (((a >> self.interleave_shift) + 1) << self.interleave_shift).min(end);
            let bytes = chunk_end - a;
            let t = transaction_span(a, bytes as usize);
            self.add_traffic(a, t, bytes, write);
            total += t;
            a = chunk_end;
        }
        total
    }

    /// Adds `transactions` and `bytes` lying in one interleave chunk, from `addr` on, to that
    /// chunk's channel, as reads or writes.
    #[inline(always)]
    fn add_traffic(&mut self, addr: u64, transactions: u64, bytes: u64, write: bool) {
        let ch = self.channel_index(addr);
        if let Some(s) = self.stats.get_mut(ch) {
            if write {
                s.write_transactions += transactions;
                s.write_bytes += bytes;
            } else {
                s.read_transactions += transactions;
                s.read_bytes += bytes;
            }
        }
    }

    /// Counts a masked write: only transactions holding a written byte count.
    fn count_masked(&mut self, addr: u64, len: usize, mask: &BitSlice<u64, Lsb0>) -> u64 {
        if len == 0 {
            return 0;
        }
        let mut transactions = 0;
        let first = addr / TRANSACTION_BYTES;
        let last = (addr + len as u64 - 1) / TRANSACTION_BYTES;
        for t in first..=last {
            let t_start = (t * TRANSACTION_BYTES).max(addr);
            let t_end = ((t + 1) * TRANSACTION_BYTES).min(addr + len as u64);
            let bytes = mask[(t_start - addr) as usize..(t_end - addr) as usize].count_ones() as u64;
            if bytes == 0 {
                continue;
            }
            self.add_traffic(t * TRANSACTION_BYTES, 1, bytes, true);
            transactions += 1;
        }
        transactions
    }
}

impl MemoryLevel for BackingStore {
    // Always inlined: it is the whole of a cache fill's work below the cache.
    #[inline(always)]
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        self.peek(addr, data, tags)?;
        let t = self.count(addr, data.len(), false);
        Ok(AccessReport { dram_read_transactions: u32::try_from(t).unwrap_or(u32::MAX), ..AccessReport::default() })
    }

    fn write(
        &mut self,
        addr: u64,
        data: &[u8],
        tags: Tags<'_>,
        mask: Option<&BitSlice<u64, Lsb0>>,
    ) -> Result<AccessReport, AccessError> {
        self.check(addr, data.len())?;
        tags.check(addr, data.len())?;
        if let Some(m) = mask
            && m.len() < data.len()
        {
            return Err(AccessError::TagLength { want: data.len(), got: m.len() });
        }
        self.store(addr, data, tags, mask);
        let t = match mask {
            None => self.count(addr, data.len(), true),
            Some(m) => self.count_masked(addr, data.len(), m),
        };
        Ok(AccessReport { dram_write_transactions: u32::try_from(t).unwrap_or(u32::MAX), ..AccessReport::default() })
    }

    #[inline]
    fn prefetch(&self, addr: u64) {
        if let Some(Some(p)) = self.pages.get((addr >> PAGE_SHIFT) as usize) {
            let off = (addr & (PAGE_BYTES - 1)) as usize;
            host_prefetch(&p.frame.bytes()[off]);
            match &p.tags {
                PageTags::Span { .. } => {}
                PageTags::Chunks(chunks) => host_prefetch(&chunks[off / (CHUNK_WORDS * TAG_GRANULE as usize)]),
                PageTags::Words(words) => host_prefetch(&words[off / TAG_GRANULE as usize]),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_4_gib_space_allocates_only_what_is_touched() {
        let mut s = BackingStore::new(4 << 30, 8, 256).unwrap();
        assert_eq!(s.resident_bytes(), 0);
        s.write((3 << 30) + 5, &[1, 2, 3], Tags::One(7), None).unwrap();
        // One writer in the page so far: its tags are a span, not an array.
        assert_eq!(s.resident_bytes(), PAGE_BYTES);
        // A second writer apart from the first needs one tag per word.
        s.write((3 << 30) + 64, &[4], Tags::One(8), None).unwrap();
        assert_eq!(s.resident_bytes(), PAGE_BYTES + PAGE_WORDS as u64 * 4);
        let mut d = [0u8; 5];
        let mut t = [0u32; 2];
        s.read((3 << 30) + 4, &mut d, &mut t).unwrap();
        assert_eq!(d, [0, 1, 2, 3, 0]);
        assert_eq!(t, [7, 0], "byte 8 lies in a word never written");
    }

    #[test]
    fn traffic_is_counted_in_transactions_per_channel() {
        let mut s = BackingStore::new(1 << 20, 2, 256).unwrap();
        let data = [9u8; 64];
        // 64 bytes starting 16 bytes into a transaction touch three transactions on channel 0.
        let r = s.write(16, &data, Tags::One(1), None).unwrap();
        assert_eq!(r.dram_write_transactions, 3);
        // A write at 256 lands on channel 1.
        s.write(256, &data[..32], Tags::One(1), None).unwrap();
        assert_eq!(s.channel_stats()[0].write_transactions, 3);
        assert_eq!(s.channel_stats()[1].write_transactions, 1);
        assert_eq!(s.channel_stats()[0].write_bytes, 64);
        // A masked write counts only transactions holding a set byte.
        let mut mask = bitvec![u64, Lsb0; 0; 64];
        mask.set(40, true);
        let r = s.write(512, &data, Tags::One(2), Some(&mask)).unwrap();
        assert_eq!(r.dram_write_transactions, 1);
        let mut d = [0u8; 64];
        let mut t = [0u32; 16];
        s.peek(512, &mut d, &mut t).unwrap();
        assert_eq!(d.iter().filter(|&&b| b == 9).count(), 1);
        assert_eq!(t[10], 2);
        assert_eq!(t[0], 0);
    }

    #[test]
    fn out_of_range_and_bad_geometry_are_errors() {
        let mut s = BackingStore::new(4096, 1, 256).unwrap();
        assert!(matches!(s.write(4090, &[0; 8], Tags::One(1), None), Err(AccessError::OutOfRange { .. })));
        assert!(s.write(u64::MAX - 2, &[0; 8], Tags::One(1), None).is_err());
        assert!(BackingStore::new(0, 1, 256).is_err());
        assert!(BackingStore::new(1 << 40, 1, 256).is_err());
        assert!(BackingStore::new(4096, 0, 256).is_err());
        assert!(BackingStore::new(4096, 1, 100).is_err());
    }

    #[test]
    fn a_single_writer_region_costs_its_bytes_and_a_mixed_page_its_tags_too() {
        const REGION: u64 = 4 << 20;
        let mut s = BackingStore::new(64 << 20, 8, 256).unwrap();
        // A host upload: one writer, 4 KiB at a time, in address order.
        let chunk = vec![0x5Au8; 4096];
        for a in (0..REGION).step_by(chunk.len()) {
            s.write(a, &chunk, Tags::One(3), None).unwrap();
        }
        assert_eq!(s.resident_bytes(), REGION, "one writer: the data alone");
        assert_eq!(s.expanded_pages(), 0);
        // Lines written back from a cache, each carrying one writer's tags, in descending order.
        let line = [7u8; 64];
        let tags = [4 as Tag; 16];
        for i in (0..REGION / 64).rev() {
            s.write(REGION + i * 64, &line, Tags::Words(&tags), None).unwrap();
        }
        assert_eq!(s.resident_bytes(), 2 * REGION);
        // An upload that starts and ends inside pages: the edge pages share tag 0 and the upload's.
        s.poke(2 * REGION + 1000, &vec![1u8; REGION as usize], 5).unwrap();
        assert_eq!(s.resident_bytes(), 3 * REGION + PAGE_BYTES);
        assert_eq!(s.expanded_pages(), 0);
        let mut d = [0u8; 12];
        let mut t = [0 as Tag; 3];
        s.peek(2 * REGION + 996, &mut d, &mut t).unwrap();
        assert_eq!((d, t), ([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1], [0, 5, 5]));
        // A page where writers alternate word by word: its bytes plus one tag per word.
        for w in 0..PAGE_WORDS as u64 {
            s.write(4 * REGION + 4 * w, &[9; 4], Tags::One(10 + (w % 2) as Tag), None).unwrap();
        }
        assert_eq!(s.resident_bytes(), 3 * REGION + 2 * PAGE_BYTES + PAGE_TAG_BYTES);
        assert_eq!(s.expanded_pages(), 1);
        let mut t = [0 as Tag; 4];
        s.peek(4 * REGION + 64, &mut [0; 16], &mut t).unwrap();
        assert_eq!(t, [10, 11, 10, 11]);
        // Rewritten whole by one writer, the page is compact again.
        s.write(4 * REGION, &vec![0; PAGE_LEN], Tags::One(12), None).unwrap();
        assert_eq!(s.resident_bytes(), 3 * REGION + 2 * PAGE_BYTES);
        assert_eq!(s.expanded_pages(), 0);
    }

    /// splitmix64, for the randomized test below.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn compact_tags_agree_with_one_tag_per_word() {
        // Few writers and runs that continue each other, so pages move between uniform, span and
        // per-word tags in every way; every word's tag is checked against a flat model.
        const SIZE: u64 = 2 * PAGE_BYTES;
        let mut s = BackingStore::new(SIZE, 1, 256).unwrap();
        let mut model = vec![0 as Tag; (SIZE / TAG_GRANULE) as usize];
        let mut bytes = vec![0u8; SIZE as usize];
        let mut rng = 0x7A65u64;
        let mut at = 0u64;
        let mut tag = 1;
        for op in 0..4000 {
            let r = next(&mut rng);
            if !r.is_multiple_of(4) {
                // Often the same writer goes on where it stopped.
                at = next(&mut rng) % SIZE;
                tag = (next(&mut rng) % 4) as Tag;
            }
            let len = match next(&mut rng) % 8 {
                0 => PAGE_LEN,
                1 => (next(&mut rng) % 4096) as usize + 1,
                _ => (next(&mut rng) % 200) as usize + 1,
            }
            .min((SIZE - at) as usize);
            if len == 0 {
                at = 0;
                continue;
            }
            let data = vec![op as u8; len];
            let span = word_span(at, len);
            let first = (at / TAG_GRANULE) as usize;
            match next(&mut rng) % 3 {
                0 => {
                    model[first..first + span].fill(tag);
                    bytes[at as usize..at as usize + len].copy_from_slice(&data);
                    s.write(at, &data, Tags::One(tag), None).unwrap()
                }
                1 => {
                    // Two runs of tags, as a line holding two writers' words.
                    let split = (next(&mut rng) % (span as u64 + 1)) as usize;
                    let words: Vec<Tag> = (0..span).map(|i| if i < split { tag } else { (tag + 1) % 4 }).collect();
                    model[first..first + span].copy_from_slice(&words);
                    bytes[at as usize..at as usize + len].copy_from_slice(&data);
                    s.write(at, &data, Tags::Words(&words), None).unwrap()
                }
                _ => {
                    let mut mask = bitvec![u64, Lsb0; 0; len];
                    for i in 0..len {
                        mask.set(i, !next(&mut rng).is_multiple_of(3));
                    }
                    for i in mask.iter_ones() {
                        model[(at + i as u64) as usize / TAG_GRANULE as usize] = tag;
                        bytes[at as usize + i] = data[i];
                    }
                    s.write(at, &data, Tags::One(tag), Some(&mask)).unwrap()
                }
            };
            at += len as u64;
            let mut got = vec![0 as Tag; model.len()];
            let mut got_bytes = vec![0; SIZE as usize];
            s.peek(0, &mut got_bytes, &mut got).unwrap();
            assert!(got == model && got_bytes == bytes, "op {op}: tags or bytes differ from the model");
        }
    }

    /// A cache writes lines back in eviction order, scattered over a page: as long as each
    /// 64-byte line carries one writer's tag the page keeps one tag per chunk (4 KiB), not one
    /// per word, and every tag reads back exactly.
    #[test]
    fn lines_written_back_in_any_order_stay_compact() {
        let mut s = BackingStore::new(1 << 20, 1, 256).unwrap();
        let line = [0x5Au8; 64];
        // Two writers on alternate lines, visited in a scattered order.
        for k in 0..1024u64 {
            let l = (k * 389) % 1024;
            s.write(l * 64, &line, Tags::Words(&[1 + (l % 2) as Tag; 16]), None).unwrap();
        }
        assert_eq!(s.expanded_pages(), 0);
        assert_eq!(s.chunked_pages(), 1);
        assert_eq!(s.resident_bytes(), PAGE_BYTES + PAGE_CHUNK_TAG_BYTES);
        let mut d = [0u8; 128];
        let mut t = [0 as Tag; 32];
        s.peek(64 * 10, &mut d, &mut t).unwrap();
        assert_eq!(&t[..16], &[1; 16]);
        assert_eq!(&t[16..], &[2; 16]);
        // A third writer inside one line mixes that chunk: the page goes to one tag per word.
        s.write(64 * 10 + 4, &[1, 2, 3, 4], Tags::One(9), None).unwrap();
        assert_eq!((s.expanded_pages(), s.chunked_pages()), (1, 0));
        s.peek(64 * 10, &mut d, &mut t).unwrap();
        assert_eq!((t[0], t[1], t[2], t[16]), (1, 9, 1, 2));
    }
}
