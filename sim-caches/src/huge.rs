//! Host memory for the large arrays of device memory and caches, on huge pages where the host
//! offers them.
//!
//! A random access to simulated memory touches host memory far apart. A 64 MiB backing store is
//! 16,384 host pages of 4 KiB, against about 1,500 entries in a core's second-level TLB, so
//! nearly every such access also walks the host's page tables; on 2 MiB pages the same store is
//! 32 entries. [`HugeBuf`] is a zeroed array aligned to 2 MiB for which, on Linux, transparent
//! huge pages are asked (`madvise(MADV_HUGEPAGE)`) before it is first touched: what a host whose
//! transparent huge pages are in `madvise` mode (a common default) needs to use them. Memory the
//! allocator hands out again may still be faulted in as small pages, which stay small whatever
//! the advice: such pages are dropped first (`MADV_DONTNEED`), so that the zeroing faults in
//! fresh ones. (Without that, half of a second backing store built in one process had small
//! pages.) A host without huge pages uses ordinary pages; nothing simulated depends on which.
//!
//! [`HugeBuf::zeroed_aligned`] gives the same array on a smaller boundary and without huge
//! pages, for a cache's arrays: a 64-byte frame that starts on a host cache line is one host line
//! to fetch, where an allocator's large blocks (which start 16 bytes past a page) make it two.

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc, handle_alloc_error};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The huge-page size asked for: 2 MiB, as on x86-64 and most aarch64 hosts.
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Element types for which all-zero bytes are a valid value, so that a zeroed allocation is an
/// initialized array of them.
///
/// # Safety
/// Implement only for types with no padding and no invalid bit patterns.
pub unsafe trait Zeroable: Copy {}
// SAFETY: plain integers: every bit pattern, zero included, is a value.
unsafe impl Zeroable for u8 {}
// SAFETY: as above.
unsafe impl Zeroable for u32 {}
// SAFETY: as above.
unsafe impl Zeroable for u64 {}

/// A fixed-length, zeroed, heap-allocated array of `T` starting on a 2 MiB boundary (unless it
/// is empty), with transparent huge pages asked for it, or on a boundary of the caller's
/// ([`HugeBuf::zeroed_aligned`]). It owns its memory as a `Box<[T]>` would.
pub struct HugeBuf<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    /// The alignment of the allocation, in bytes: [`HUGE_PAGE_BYTES`], or what
    /// [`HugeBuf::zeroed_aligned`] was given.
    align: usize,
}

// SAFETY: `HugeBuf` owns its elements exclusively, as `Box<[T]>` does, and hands them out only
// through `&self` / `&mut self`, so it is as thread-safe as `T` is.
unsafe impl<T: Zeroable + Send> Send for HugeBuf<T> {}
// SAFETY: as above.
unsafe impl<T: Zeroable + Sync> Sync for HugeBuf<T> {}

impl<T: Zeroable> HugeBuf<T> {
    /// The allocation of `len` elements: their bytes, aligned to a huge page.
    fn layout(len: usize, align: usize) -> Layout {
        match Layout::array::<T>(len).and_then(|l| l.align_to(align)) {
            Ok(layout) => layout,
            // Callers size their arrays from validated specs, far below `isize::MAX` bytes.
            Err(_) => panic!("HugeBuf of {len} elements exceeds the address space"),
        }
    }

    /// `len` zero elements, all of them touched (so resident) before this returns.
    ///
    /// # Panics
    /// If `len` elements take more than `isize::MAX` bytes, as `Vec::with_capacity` does; if the
    /// host has no memory for them, through `handle_alloc_error`.
    pub fn zeroed(len: usize) -> HugeBuf<T> {
        Self::allocate(len, HUGE_PAGE_BYTES, true)
    }

    /// `len` zero elements starting on an `align`-byte boundary (a power of two), with no huge
    /// pages asked for: for arrays whose elements should not straddle host cache lines (a
    /// cache's 64-byte frames) but that are too many or too small to take 2 MiB each.
    ///
    /// # Panics
    /// As [`HugeBuf::zeroed`], and if `align` is not a power of two.
    pub fn zeroed_aligned(len: usize, align: usize) -> HugeBuf<T> {
        assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
        Self::allocate(len, align, false)
    }

    fn allocate(len: usize, align: usize, huge: bool) -> HugeBuf<T> {
        let layout = Self::layout(len, align);
        if layout.size() == 0 {
            return HugeBuf { ptr: NonNull::dangling(), len, align };
        }
        if !huge {
            // Zeroed by the allocator, which can hand out fresh zero pages: like `vec![0; len]`,
            // resident only where touched.
            // SAFETY: the layout has a non-zero size.
            let raw = unsafe { alloc_zeroed(layout) };
            let Some(ptr) = NonNull::new(raw) else { handle_alloc_error(layout) };
            return HugeBuf { ptr: ptr.cast(), len, align };
        }
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else { handle_alloc_error(layout) };
        advise_huge_pages(raw, layout.size());
        // Zeroed only after the advice (which dropped whatever small pages the allocator had
        // faulted in), so that the first touch of each 2 MiB takes a huge page.
        // SAFETY: `raw` is a fresh allocation of `layout.size()` bytes.
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        HugeBuf { ptr: ptr.cast(), len, align }
    }

    /// The first element's address, for callers that hand out pointers into the array: taken
    /// without a reference to the whole, which would claim every element at once.
    pub fn as_raw(&self) -> *mut T {
        self.ptr.as_ptr()
    }
}

impl<T: Zeroable> Deref for HugeBuf<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialized elements (zeroed, then written only as `T`s,
        // through `&mut self` or through pointers from `as_raw`, whose users keep their own
        // borrows apart), or is dangling with a zero-sized allocation, which a slice allows.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> DerefMut for HugeBuf<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the borrow exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for HugeBuf<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len, self.align);
        if layout.size() != 0 {
            // SAFETY: allocated in `allocate` with this very layout.
            unsafe { dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

/// Asks the host to back `len` bytes from `addr` (a 2 MiB boundary, the start of an allocation
/// of ours whose contents do not matter yet) with huge pages. Advice only: where it is refused
/// or unknown, ordinary pages serve.
#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: *mut u8, len: usize) {
    // The whole host pages of the allocation only: the end of its last page may belong to the
    // allocator's next block.
    // SAFETY: `sysconf` reads a constant of the host.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
    if page == 0 || !page.is_power_of_two() {
        return;
    }
    let whole = len & !(page - 1);
    if whole == 0 {
        return;
    }
    // SAFETY: `[addr, addr + whole)` is whole pages (`addr` is 2 MiB aligned) inside one live
    // allocation of ours, whose contents the caller overwrites next. `MADV_DONTNEED` makes
    // private anonymous memory read as zeros from the next touch on (the allocator may have
    // handed out memory it had used, already backed by small pages); `MADV_HUGEPAGE` changes
    // how the kernel backs it, never its validity.
    unsafe {
        libc::madvise(addr.cast(), whole, libc::MADV_DONTNEED);
        libc::madvise(addr.cast(), whole, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_addr: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_buffer_is_zeroed_aligned_and_writable() {
        let mut b = HugeBuf::<u32>::zeroed(HUGE_PAGE_BYTES / 4 + 3);
        assert_eq!(b.len(), HUGE_PAGE_BYTES / 4 + 3);
        assert_eq!(b.as_ptr() as usize % HUGE_PAGE_BYTES, 0);
        assert!(b.iter().all(|&w| w == 0));
        b[HUGE_PAGE_BYTES / 4 + 2] = 7;
        assert_eq!(b.iter().map(|&w| w as u64).sum::<u64>(), 7);
        let empty = HugeBuf::<u64>::zeroed(0);
        assert!(empty.is_empty());
    }

    #[test]
    fn a_huge_buffer_made_after_another_is_dropped_is_zeroed_again() {
        // The second buffer may reuse the first one's memory, whose pages are dropped and
        // faulted in again: it must still start zeroed, aligned and its own length.
        for len in [HUGE_PAGE_BYTES, 3 * HUGE_PAGE_BYTES + 5] {
            let mut first = HugeBuf::<u8>::zeroed(len);
            first.fill(0xA5);
            drop(first);
            let second = HugeBuf::<u8>::zeroed(len);
            assert_eq!((second.len(), second.as_ptr() as usize % HUGE_PAGE_BYTES), (len, 0));
            assert!(second.iter().all(|&b| b == 0), "a reused buffer of {len} bytes is not zeroed");
        }
    }

    #[test]
    fn a_line_aligned_buffer_is_zeroed_aligned_and_writable() {
        for len in [1, 17, 4096 + 5] {
            let mut b = HugeBuf::<u8>::zeroed_aligned(len, 64);
            assert_eq!((b.len(), b.as_ptr() as usize % 64), (len, 0));
            assert!(b.iter().all(|&x| x == 0));
            b[len - 1] = 9;
            assert_eq!(b.iter().map(|&x| x as u64).sum::<u64>(), 9);
        }
        assert!(HugeBuf::<u32>::zeroed_aligned(0, 64).is_empty());
    }
}
