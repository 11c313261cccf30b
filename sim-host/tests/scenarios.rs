//! The host-side scenarios of missing host synchronization, each shown with concrete bytes.
//! A `BackingStore` is device memory; pokes to it are the GPU's writes, peeks what the GPU reads.
//! (The "no barrier to HOST_READ, data dirty in the GPU's L2" scenario needs the GPU engine and
//! is an engine test.)

mod common;

use common::*;
use sim_host::{HostMemoryKind, HostSpec, MappedRange, WHOLE_SIZE};

/// Scenario 1: the host writes HOST_CACHED memory and does not flush. The GPU reads old bytes;
/// after vkFlushMappedMemoryRanges it reads the new ones, with the host write's tag.
#[test]
fn host_cached_write_is_invisible_to_the_device_until_flushed() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 64, 0xAA, GPU);
    let mut h = host(HostMemoryKind::Cached);

    h.write(MEM, 0, &[0x11; 16], HOST, &mut dev).unwrap();
    let (bytes, tags) = gpu_sees(&dev, 0, 64);
    assert_eq!(bytes, run(0xAA, 64), "no flush: the GPU reads the old bytes");
    assert_eq!(tags, vec![GPU; 16]);
    // The host itself sees its write (it is in its cache).
    assert_eq!(host_reads(&mut h, &mut dev, 0, 16).0, run(0x11, 16));

    let r = h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    let (bytes, tags) = gpu_sees(&dev, 0, 64);
    assert_eq!(bytes, cat(&[run(0x11, 16), run(0xAA, 48)]), "after the flush the GPU reads the new bytes");
    assert_eq!(&tags[..4], &[HOST; 4], "the host write's provenance travelled with it");
    assert_eq!(r.cache.writeback_lines, 1);
    assert_eq!(r.bytes_to_device, 64, "the whole line went back");
}

/// Scenario 2: the GPU writes memory the host had cached; without vkInvalidateMappedMemoryRanges
/// the host reads its old copy, after it the new bytes.
#[test]
fn device_write_is_invisible_to_the_host_until_invalidated() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 64, 0x22, GPU);
    let mut h = host(HostMemoryKind::Cached);
    assert_eq!(host_reads(&mut h, &mut dev, 0, 64).0, run(0x22, 64), "the host caches the line");

    gpu_writes(&mut dev, 0, 64, 0x33, GPU + 1);
    let (bytes, tags) = host_reads(&mut h, &mut dev, 0, 64);
    assert_eq!(bytes, run(0x22, 64), "no invalidate: the host reads its stale copy");
    assert_eq!(tags, vec![GPU; 64], "and can name the old write it saw");

    h.invalidate_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    let (bytes, tags) = host_reads(&mut h, &mut dev, 0, 64);
    assert_eq!(bytes, run(0x33, 64), "after the invalidate: the new bytes");
    assert_eq!(tags, vec![GPU + 1; 64]);
}

/// Scenario 4: partial-line writes. The host writes 4 bytes of a 64-byte atom while the GPU
/// writes the other 60; flushing the host's line writes the whole line back and clobbers the
/// GPU's bytes with the stale ones the host fetched. With host and GPU in different atoms,
/// flushing (even VK_WHOLE_SIZE) leaves the GPU's bytes alone.
#[test]
fn flushing_a_partly_written_line_clobbers_the_devices_bytes_in_it() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 128, 0xAA, GPU);
    let mut h = host(HostMemoryKind::Cached);

    // Shared atom: the host writes bytes 0..4 (the write miss fetches the line: 0xAA)...
    h.write(MEM, 0, &[0x11; 4], HOST, &mut dev).unwrap();
    // ...while the GPU writes bytes 4..64 of the same atom.
    gpu_writes(&mut dev, 4, 60, 0x55, GPU + 1);
    assert_eq!(gpu_sees(&dev, 0, 64).0, cat(&[run(0xAA, 4), run(0x55, 60)]));

    h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    let (bytes, tags) = gpu_sees(&dev, 0, 64);
    assert_eq!(bytes, cat(&[run(0x11, 4), run(0xAA, 60)]), "the GPU's 0x55 bytes were overwritten by stale 0xAA");
    assert_eq!(tags[0], HOST);
    assert_eq!(&tags[1..], &[GPU; 15], "the clobbering bytes carry the old GPU write's tag");
}

#[test]
fn flushing_whole_atoms_the_device_does_not_use_leaves_its_bytes_alone() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 128, 0xAA, GPU);
    let mut h = host(HostMemoryKind::Cached);

    // The host uses atom 0, the GPU atom 1.
    h.write(MEM, 0, &[0x11; 4], HOST, &mut dev).unwrap();
    gpu_writes(&mut dev, 64, 64, 0x55, GPU + 1);

    h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 128).0, cat(&[run(0x11, 4), run(0xAA, 60), run(0x55, 64)]));
    // A VK_WHOLE_SIZE flush writes back only dirty lines: atom 1 was never in the host cache.
    h.flush_mapped_ranges(&[MappedRange::whole(MEM, 0)], &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 128).0, cat(&[run(0x11, 4), run(0xAA, 60), run(0x55, 64)]));
}

/// Scenario 5: HOST_COHERENT (write-combined) uploads need no flush call. Before a
/// device-visible event device memory may be old; the submission drains the write-combining
/// buffers; a partial buffer writes only its bytes, so the GPU's bytes around them survive.
#[test]
fn coherent_write_combined_upload_is_drained_by_submission_with_its_byte_mask() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 64, 0xAA, GPU);
    let mut h = host(HostMemoryKind::WriteCombined);

    let w = h.write(MEM, 8, &[0x11; 4], HOST, &mut dev).unwrap();
    assert_eq!(w.cycles, 0, "a write-combined store is cheap until drained");
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0xAA, 64), "before the drain: old bytes");

    // Meanwhile the GPU writes the rest of the line.
    gpu_writes(&mut dev, 0, 8, 0x55, GPU + 1);
    gpu_writes(&mut dev, 12, 52, 0x55, GPU + 1);

    // Flush of coherent memory is allowed and does nothing.
    let f = h.flush_mapped_ranges(&[MappedRange::whole(MEM, 0)], &mut dev).unwrap();
    assert_eq!(f.bytes_to_device, 0);
    assert_eq!(gpu_sees(&dev, 8, 4).0, run(0xAA, 4));

    // vkQueueSubmit: a device-visible event.
    let r = h.device_visible_event(&mut dev).unwrap();
    assert_eq!(r.wc_buffers_drained, 1);
    assert_eq!(r.bytes_to_device, 4, "a partial buffer sends only its written bytes");
    let (bytes, tags) = gpu_sees(&dev, 0, 64);
    assert_eq!(bytes, cat(&[run(0x55, 8), run(0x11, 4), run(0x55, 52)]), "the GPU's bytes around the host's survive");
    assert_eq!(&tags[..4], &[GPU + 1, GPU + 1, HOST, GPU + 1]);
    assert!(h.pending_writes().is_empty());
}

/// Plain HOST_VISIBLE memory is write-combined and non-coherent: a submission does not drain
/// its buffers; only vkFlushMappedMemoryRanges of the range does.
#[test]
fn non_coherent_write_combined_memory_needs_a_flush() {
    let mut dev = device();
    let mut h = host(HostMemoryKind::WriteCombinedNonCoherent);
    h.write(MEM, 0, &[0x11; 64], HOST, &mut dev).unwrap();
    h.write(MEM, 256, &[0x22; 8], HOST + 1, &mut dev).unwrap();

    h.device_visible_event(&mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0, 64), "a submission does not make these writes available");
    assert_eq!(h.pending_writes().len(), 2);

    // Flushing atom 0 sends only the buffer of that range.
    let r = h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    assert_eq!(r.wc_buffers_drained, 1);
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0x11, 64));
    assert_eq!(gpu_sees(&dev, 256, 8).0, run(0, 8), "the unflushed range is still old");

    h.flush_mapped_ranges(&[MappedRange::whole(MEM, 0)], &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 256, 8).0, run(0x22, 8));
    assert!(h.pending_writes().is_empty());
}

/// vkInvalidateMappedMemoryRanges over unflushed host writes discards them.
#[test]
fn invalidate_discards_unflushed_host_writes() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 64, 0xAA, GPU);
    let mut h = host(HostMemoryKind::Cached);
    h.write(MEM, 0, &[0x11; 64], HOST, &mut dev).unwrap();
    let r = h.invalidate_mapped_ranges(&[MappedRange::new(MEM, 0, 64)], &mut dev).unwrap();
    assert_eq!(r.bytes_to_device, 0, "nothing written back");
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0xAA, 64), "the device never got the host write");
    assert_eq!(host_reads(&mut h, &mut dev, 0, 64).0, run(0xAA, 64), "and the host lost it");
    assert_eq!(h.cache().unwrap().stats().lines_discarded, 1);
}

/// A dirty line evicted for capacity reaches device memory without any flush: allowed (the
/// write became available early), and written back whole.
#[test]
fn host_cache_eviction_writes_a_line_back_whole() {
    let spec = HostSpec {
        cache: Some(sim_caches::CacheSpec::new(
            128,
            64,
            1,
            sim_caches::Replacement::Lru,
            sim_caches::WritePolicy::WriteBackLineDirty,
        )),
        ..HostSpec::default()
    };
    let mut dev = device();
    let mut h = host_with(&spec, HostMemoryKind::Cached);
    h.write(MEM, 0, &[0x11; 4], HOST, &mut dev).unwrap();
    // 128 bytes later maps to the same (only) way of set 0.
    h.write(MEM, 128, &[0x22; 4], HOST + 1, &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 8).0, cat(&[run(0x11, 4), run(0, 4)]));
}

/// Write-combined reads are uncached: they see device writes without any invalidate, cost a
/// bus round trip per line, and see this core's own pending writes without draining them.
#[test]
fn write_combined_reads_are_uncached_and_see_own_pending_writes() {
    let mut dev = device();
    gpu_writes(&mut dev, 0, 128, 0xAA, GPU);
    let mut h = host(HostMemoryKind::WriteCombined);
    h.write(MEM, 4, &[0x11; 4], HOST, &mut dev).unwrap();
    gpu_writes(&mut dev, 64, 64, 0x55, GPU + 1);

    let mut d = vec![0; 128];
    let mut t = vec![0; 128];
    let r = h.read(MEM, 0, &mut d, &mut t, &mut dev).unwrap();
    assert_eq!(d, cat(&[run(0xAA, 4), run(0x11, 4), run(0xAA, 56), run(0x55, 64)]));
    assert_eq!((t[0], t[4], t[64]), (GPU, HOST, GPU + 1));
    assert!(r.uncached_read);
    assert_eq!(r.round_trips, 2);
    assert_eq!(r.cycles, 2 * 1500 + 128 / 16);
    assert_eq!(gpu_sees(&dev, 4, 4).0, run(0xAA, 4), "the read drained nothing");
    assert_eq!(h.pending_writes().len(), 1);
}

/// HOST_CACHED|HOST_COHERENT memory is snooped: writes land at once, reads see device writes.
#[test]
fn cached_coherent_memory_is_snooped() {
    let mut dev = device();
    let mut h = host(HostMemoryKind::CachedCoherent);
    let r = h.write(MEM, 0, &[0x11; 64], HOST, &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0x11, 64));
    assert_eq!(r.round_trips, 0);
    gpu_writes(&mut dev, 0, 64, 0x55, GPU);
    let mut d = vec![0; 64];
    let mut t = vec![0; 64];
    let r = h.read(MEM, 0, &mut d, &mut t, &mut dev).unwrap();
    assert_eq!(d, run(0x55, 64));
    assert!(!r.uncached_read);
    assert!(r.cycles < 1500, "cheaper than an uncached read: no round trip");
    // Flush and invalidate are allowed and do nothing.
    h.invalidate_mapped_ranges(&[MappedRange::new(MEM, 0, WHOLE_SIZE)], &mut dev).unwrap();
}
