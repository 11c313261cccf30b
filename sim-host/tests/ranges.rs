//! VkMappedMemoryRange and vkMapMemory valid usage: every VUID case, with its message.

mod common;

use common::*;
use sim_host::{HostError, HostMemoryKind, HostSide, HostSpec, HostTiming, MappedRange, WHOLE_SIZE};

/// A host side with memory 0 of 4000 bytes (not a multiple of the 64-byte atom) mapped whole,
/// and memory 1 of 4096 bytes mapped at [1024, 2048).
fn setup() -> HostSide {
    let mut h = HostSide::new(&HostSpec::default(), HostTiming::default(), 1).unwrap();
    h.map(0, 0x10000, 4000, HostMemoryKind::Cached).unwrap();
    h.map_range(1, 0x20000, 4096, HostMemoryKind::Cached, 1024, 1024).unwrap();
    h
}

fn err(h: &HostSide, r: MappedRange) -> String {
    let e = h.check_ranges(&[r]).unwrap_err();
    e.to_string()
}

#[test]
fn valid_ranges_pass() {
    let h = setup();
    h.check_ranges(&[
        MappedRange::new(0, 0, 64),
        MappedRange::new(0, 3968, 32), // not a multiple of 64, but reaches the end of the memory
        MappedRange::whole(0, 3968),   // VK_WHOLE_SIZE: the mapping ends at the memory's end
        MappedRange::new(1, 1024, 1024),
        MappedRange::whole(1, 1984),  // mapping end 2048 is a multiple of 64
        MappedRange::new(1, 1024, 0), // empty: nothing to do
    ])
    .unwrap();
}

#[test]
fn offset_must_be_a_multiple_of_the_atom() {
    let h = setup();
    let m = err(&h, MappedRange::new(0, 32, 64));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-offset-00687"), "{m}");
    assert!(m.contains("offset 32") && m.contains("nonCoherentAtomSize 64"), "{m}");
}

#[test]
fn size_must_be_a_multiple_of_the_atom_or_reach_the_end() {
    let h = setup();
    let m = err(&h, MappedRange::new(0, 0, 100));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-01390"), "{m}");
    assert!(m.contains("size 100") && m.contains("memory size 4000"), "{m}");
    // 3968 + 31 = 3999: one short of the end.
    let m = err(&h, MappedRange::new(0, 3968, 31));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-01390"), "{m}");
}

#[test]
fn range_must_lie_in_the_mapping() {
    let h = setup();
    let m = err(&h, MappedRange::new(1, 1984, 128));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-00685"), "{m}");
    assert!(m.contains("[1984, 1984 + 128)") && m.contains("[1024, 2048)"), "{m}");
    let m = err(&h, MappedRange::new(1, 0, 64));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-00685"), "{m}");
    // Overflowing offset + size is outside too, not a panic.
    let m = err(&h, MappedRange::new(1, 1 << 63, (1 << 63) + 64));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-00685"), "{m}");
}

#[test]
fn whole_size_offset_must_lie_in_the_mapping() {
    let h = setup();
    let m = err(&h, MappedRange::whole(1, 2048));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-00686"), "{m}");
    assert!(m.contains("offset 2048") && m.contains("[1024, 2048)"), "{m}");
    let m = err(&h, MappedRange::whole(1, 0));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-00686"), "{m}");
}

#[test]
fn whole_size_needs_an_aligned_mapping_end() {
    let mut h = setup();
    h.map_range(2, 0x30000, 4096, HostMemoryKind::Cached, 0, 1000).unwrap();
    let m = err(&h, MappedRange::whole(2, 0));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-size-01389"), "{m}");
    assert!(m.contains("ends at 1000") && m.contains("memory size 4096"), "{m}");
}

#[test]
fn memory_must_be_mapped() {
    let mut h = setup();
    let m = err(&h, MappedRange::new(5, 0, 64));
    assert!(m.starts_with("VUID-VkMappedMemoryRange-memory-00684"), "{m}");
    h.unmap(0).unwrap();
    let e = h.check_ranges(&[MappedRange::new(0, 0, 64)]).unwrap_err();
    assert!(matches!(e, HostError::RangeNotMapped { index: 0, memory: 0 }), "{e}");
}

/// One bad range makes the whole call fail before anything happens.
#[test]
fn a_bad_range_stops_the_whole_call() {
    let mut dev = device();
    let mut h = host(HostMemoryKind::Cached);
    h.write(MEM, 0, &[0x11; 64], HOST, &mut dev).unwrap();
    let e = h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 64), MappedRange::new(MEM, 8, 64)], &mut dev).unwrap_err();
    assert!(matches!(e, HostError::RangeOffsetAlignment { index: 1, .. }), "{e}");
    assert_eq!(gpu_sees(&dev, 0, 64).0, run(0, 64), "the valid first range was not flushed either");
}

#[test]
fn map_errors_name_their_vuid() {
    let mut h = HostSide::new(&HostSpec::default(), HostTiming::default(), 1).unwrap();
    h.map(0, 0, 4096, HostMemoryKind::WriteCombined).unwrap();
    let m = h.map(0, 0, 4096, HostMemoryKind::WriteCombined).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-memory-00678"), "{m}");
    let m = h.map_range(1, 0, 4096, HostMemoryKind::Cached, 4096, WHOLE_SIZE).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-offset-00679"), "{m}");
    let m = h.map_range(1, 0, 4096, HostMemoryKind::Cached, 0, 0).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-size-00680"), "{m}");
    let m = h.map_range(1, 0, 4096, HostMemoryKind::Cached, 64, 4096).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-size-00681"), "{m}");
    let m = h.map_range(1, 0, 4096, HostMemoryKind::Cached, 64, u64::MAX - 1).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-size-00681"), "{m}");
    assert!(h.map(1, u64::MAX - 10, 4096, HostMemoryKind::Cached).is_err());
    let m = HostMemoryKind::from_properties(false, true, false).unwrap_err().to_string();
    assert!(m.starts_with("VUID-vkMapMemory-memory-00682"), "{m}");
}

#[test]
fn host_accesses_outside_the_mapping_are_errors() {
    let mut dev = device();
    let mut h = setup();
    let mut d = [0u8; 8];
    let mut t = [0u32; 8];
    let e = h.read(1, 1020, &mut d, &mut t, &mut dev).unwrap_err();
    assert!(e.to_string().contains("outside the mapped range [1024, 2048)"), "{e}");
    assert!(h.write(1, 2044, &[0; 8], HOST, &mut dev).is_err());
    assert!(h.write(1, u64::MAX, &[0; 8], HOST, &mut dev).is_err());
    assert!(h.write(9, 0, &[0; 8], HOST, &mut dev).is_err());
    let mut short = [0u32; 2];
    let e = h.read(1, 1024, &mut d, &mut short, &mut dev).unwrap_err();
    assert!(matches!(e, HostError::TagLength { want: 8, got: 2 }), "{e}");
    // Device memory smaller than the mapping: the device level's error comes back, no panic.
    h.map(3, (1 << 20) - 64, 4096, HostMemoryKind::CachedCoherent).unwrap();
    assert!(matches!(h.write(3, 0, &[0; 128], HOST, &mut dev), Err(HostError::Access(_))));
    // A mapping at the very top of the address space: arithmetic saturates, the device refuses.
    h.map(4, u64::MAX - 4096, 4096, HostMemoryKind::WriteCombinedNonCoherent).unwrap();
    h.write(4, 4032, &[1; 64], HOST, &mut dev).unwrap();
    let mut d = [0u8; 64];
    let mut t = [0u32; 64];
    assert!(h.read(4, 4032, &mut d, &mut t, &mut dev).is_err());
    let e = h.flush_mapped_ranges(&[MappedRange::whole(4, 0)], &mut dev).unwrap_err();
    assert!(matches!(e, HostError::Access(_)), "{e}");
    // The unaligned base makes the write straddle two lines: both buffers keep their bytes.
    assert_eq!(h.pending_writes().len(), 2, "buffers the device refused keep their bytes");
}

#[test]
fn a_smaller_atom_allows_finer_ranges() {
    let spec = HostSpec { non_coherent_atom_size: 4, ..HostSpec::default() };
    let mut dev = device();
    let mut h = host_with(&spec, HostMemoryKind::Cached);
    h.check_ranges(&[MappedRange::new(MEM, 4, 8)]).unwrap();
    // ...but the host cache still works on 64-byte lines: flushing 4 bytes writes the line.
    h.write(MEM, 0, &[0x11; 4], HOST, &mut dev).unwrap();
    h.write(MEM, 32, &[0x22; 4], HOST + 1, &mut dev).unwrap();
    h.flush_mapped_ranges(&[MappedRange::new(MEM, 0, 4)], &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 32, 4).0, run(0x22, 4));
}
