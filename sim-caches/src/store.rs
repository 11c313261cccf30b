//! Device memory: a sparse, byte-accurate backing store that counts its traffic.
//!
//! Memory is kept in 64 KiB pages allocated on first write, so a 4 GiB address space costs only
//! what is touched (plus a directory of one pointer per page). Unwritten memory reads as zero
//! with tag 0. Every access is counted in 32-byte transactions on the channel its address maps
//! to (`(addr / interleave_bytes) % channels`), which is what a timing model needs to see
//! contention and what compression saves.

use bitvec::prelude::*;
use serde::Serialize;

use crate::error::{AccessError, SpecError};
use crate::level::{AccessReport, MemoryLevel, TAG_GRANULE, TRANSACTION_BYTES, Tag, Tags};

const PAGE_SHIFT: u32 = 16;
const PAGE_BYTES: u64 = 1 << PAGE_SHIFT;
const PAGE_WORDS: usize = (PAGE_BYTES / TAG_GRANULE) as usize;

/// The largest address space a backing store accepts: 64 GiB (a directory of one pointer per
/// 64 KiB page, 8 MiB at this size).
pub const MAX_ADDRESS_SPACE: u64 = 64 << 30;
/// The most channels a backing store accepts.
pub const MAX_CHANNELS: u32 = 1024;

struct Page {
    data: Box<[u8]>,
    tags: Box<[Tag]>,
}

impl Page {
    fn new() -> Page {
        Page { data: vec![0; PAGE_BYTES as usize].into_boxed_slice(), tags: vec![0; PAGE_WORDS].into_boxed_slice() }
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
    resident_pages: usize,
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
            resident_pages: 0,
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
        let chunk = addr >> self.interleave_shift;
        match self.channel_mask {
            Some(mask) => (chunk & mask) as u32,
            None => (chunk % self.channels as u64) as u32,
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

    /// Bytes of host memory holding simulated data and provenance (resident pages only).
    pub fn resident_bytes(&self) -> u64 {
        self.resident_pages as u64 * (PAGE_BYTES + PAGE_WORDS as u64 * 4)
    }

    fn check(&self, addr: u64, len: usize) -> Result<(), AccessError> {
        match addr.checked_add(len as u64) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(AccessError::OutOfRange { addr, len, size: self.size }),
        }
    }

    fn page_mut(&mut self, index: usize) -> &mut Page {
        let slot = &mut self.pages[index];
        if slot.is_none() {
            self.resident_pages += 1;
        }
        slot.get_or_insert_with(Page::new)
    }

    /// Reads bytes and provenance without counting traffic: the functional path, for loading,
    /// checking and reporting.
    pub fn peek(&self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<(), AccessError> {
        self.check(addr, data.len())?;
        Tags::Words(tags).check(addr, data.len())?;
        let mut pos = 0usize;
        while pos < data.len() {
            let a = addr + pos as u64;
            let page = (a >> PAGE_SHIFT) as usize;
            let off = (a & (PAGE_BYTES - 1)) as usize;
            let n = (PAGE_BYTES as usize - off).min(data.len() - pos);
            let w0 = (a / TAG_GRANULE - addr / TAG_GRANULE) as usize;
            let wn = crate::level::word_span(a, n);
            match &self.pages[page] {
                Some(p) => {
                    data[pos..pos + n].copy_from_slice(&p.data[off..off + n]);
                    let pw = off / TAG_GRANULE as usize;
                    tags[w0..w0 + wn].copy_from_slice(&p.tags[pw..pw + wn]);
                }
                None => {
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
        let mut pos = 0usize;
        while pos < data.len() {
            let a = addr + pos as u64;
            let page_index = (a >> PAGE_SHIFT) as usize;
            let off = (a & (PAGE_BYTES - 1)) as usize;
            let n = (PAGE_BYTES as usize - off).min(data.len() - pos);
            let first_word = addr / TAG_GRANULE;
            let page = self.page_mut(page_index);
            match mask {
                None => {
                    page.data[off..off + n].copy_from_slice(&data[pos..pos + n]);
                    let w_lo = a / TAG_GRANULE;
                    let w_hi = (a + n as u64 - 1) / TAG_GRANULE;
                    for w in w_lo..=w_hi {
                        page.tags[(w % PAGE_WORDS as u64) as usize] = tags.get((w - first_word) as usize);
                    }
                }
                Some(mask) => {
                    for i in mask[pos..pos + n].iter_ones() {
                        let b = a + i as u64;
                        page.data[off + i] = data[pos + i];
                        let w = b / TAG_GRANULE;
                        page.tags[(w % PAGE_WORDS as u64) as usize] = tags.get((w - first_word) as usize);
                    }
                }
            }
            pos += n;
        }
    }

    fn count(&mut self, addr: u64, len: usize, mask: Option<&BitSlice<u64, Lsb0>>, write: bool) -> u64 {
        if len == 0 {
            return 0;
        }
        let mut transactions = 0;
        let first = addr / TRANSACTION_BYTES;
        let last = (addr + len as u64 - 1) / TRANSACTION_BYTES;
        for t in first..=last {
            let t_start = (t * TRANSACTION_BYTES).max(addr);
            let t_end = ((t + 1) * TRANSACTION_BYTES).min(addr + len as u64);
            let bytes = match mask {
                None => t_end - t_start,
                Some(m) => m[(t_start - addr) as usize..(t_end - addr) as usize].count_ones() as u64,
            };
            if bytes == 0 {
                continue;
            }
            let ch = self.channel_of(t * TRANSACTION_BYTES) as usize;
            let s = &mut self.stats[ch];
            if write {
                s.write_transactions += 1;
                s.write_bytes += bytes;
            } else {
                s.read_transactions += 1;
                s.read_bytes += bytes;
            }
            transactions += 1;
        }
        transactions
    }
}

impl MemoryLevel for BackingStore {
    fn read(&mut self, addr: u64, data: &mut [u8], tags: &mut [Tag]) -> Result<AccessReport, AccessError> {
        self.peek(addr, data, tags)?;
        let t = self.count(addr, data.len(), None, false);
        Ok(AccessReport { dram_read_transactions: t, ..AccessReport::default() })
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
        let t = self.count(addr, data.len(), mask, true);
        Ok(AccessReport { dram_write_transactions: t, ..AccessReport::default() })
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
}
