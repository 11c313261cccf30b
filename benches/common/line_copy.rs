//! The host's own rate for the random-load case with no cache at all, shared by
//! `benches/caches.rs` and `examples/cache_loop.rs`: random 64-byte line copies out of a flat
//! array, each with a chosen amount of register-only arithmetic beside it. A simulated access that
//! misses every level costs at least one such copy (its fill from memory) and hundreds of
//! instructions of bookkeeping; this measures what this host does for that shape of work with
//! nothing simulated, so a cache's figure can be read against it.

/// For each address of `random`, copies the 64-byte line holding it out of `memory` and does
/// `work` rounds of arithmetic (four independent rotate-and-xor chains, about 8 instructions a
/// round) that depend neither on the copy nor on the previous address, as most of a cache's
/// bookkeeping does not wait for the fill's bytes. With `prefetch` non-zero, first hints the
/// host to fetch the line `prefetch` addresses ahead. Returns a checksum of the copies and the
/// arithmetic, so that none of it can be left out.
#[inline(never)]
pub fn line_copies(memory: &[u8], random: &[u64], work: u32, prefetch: usize) -> u64 {
    let mut sum = 0u64;
    let mut line = [0u8; 64];
    for (i, &a) in random.iter().enumerate() {
        if prefetch != 0
            && let Some(&ahead) = random.get(i + prefetch)
        {
            prefetch_line(&memory[(ahead & !63) as usize]);
        }
        let at = (a & !63) as usize;
        line.copy_from_slice(&memory[at..at + 64]);
        let seed = i as u64;
        let (mut w, mut x, mut y, mut z) = (seed, seed ^ 1, seed ^ 2, seed ^ 3);
        for _ in 0..work {
            w = w.rotate_left(5) ^ 0x9E37_79B9_7F4A_7C15;
            x = x.rotate_left(7) ^ 0xBF58_476D_1CE4_E5B9;
            y = y.rotate_left(11) ^ 0x94D0_49BB_1331_11EB;
            z = z.rotate_left(13) ^ 0xD6E8_FEB8_6659_FD93;
        }
        sum = sum.wrapping_add(u64::from_le_bytes(line[(a & 56) as usize..][..8].try_into().unwrap()) ^ w ^ x ^ y ^ z);
        std::hint::black_box(&mut line);
    }
    sum
}

/// Asks the host to bring the cache line holding `*place` towards the core; a no-op on hosts
/// other than x86-64.
#[inline(always)]
pub fn prefetch_line<T>(place: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((place as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = place;
}
