//! Write-combining buffers: eviction order, collapsing writes, no buffers at all.

mod common;

use common::*;
use sim_host::{HostMemoryKind, HostSpec};

fn spec(buffers: u32) -> HostSpec {
    HostSpec { write_combining_buffers: buffers, ..HostSpec::default() }
}

/// With more lines than buffers, the oldest buffer goes out first, and only it.
#[test]
fn eviction_is_oldest_first() {
    let mut dev = device();
    let mut h = host_with(&spec(2), HostMemoryKind::WriteCombined);
    h.write(MEM, 0, &[0xA0; 4], HOST, &mut dev).unwrap(); // line A
    h.write(MEM, 64, &[0xB0; 4], HOST + 1, &mut dev).unwrap(); // line B
    // Touching A again does not make it younger: eviction order is allocation order.
    h.write(MEM, 4, &[0xA1; 4], HOST + 2, &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 192).0, run(0, 192), "two lines, two buffers: nothing out yet");

    let r = h.write(MEM, 128, &[0xC0; 4], HOST + 3, &mut dev).unwrap(); // line C evicts A
    assert_eq!(r.wc_buffers_drained, 1);
    assert_eq!(r.bytes_to_device, 8);
    let (bytes, tags) = gpu_sees(&dev, 0, 192);
    assert_eq!(bytes, cat(&[run(0xA0, 4), run(0xA1, 4), run(0, 184)]));
    assert_eq!(&tags[..2], &[HOST, HOST + 2]);

    h.write(MEM, 192, &[0xD0; 4], HOST + 4, &mut dev).unwrap(); // line D evicts B
    assert_eq!(gpu_sees(&dev, 64, 4).0, run(0xB0, 4));
    assert_eq!(gpu_sees(&dev, 128, 4).0, run(0, 4), "C is still buffered");
    let pending: Vec<u64> = h.pending_writes().iter().map(|p| p.line_addr - BASE).collect();
    assert_eq!(pending, vec![128, 192]);
}

/// Writes to the same bytes collapse in the buffer: the last one wins, one transaction goes out,
/// and a fully written buffer goes out as one unmasked burst.
#[test]
fn writes_collapse_and_a_full_buffer_is_one_burst() {
    let mut dev = device();
    let mut h = host(HostMemoryKind::WriteCombined);
    h.write(MEM, 0, &[1; 64], HOST, &mut dev).unwrap();
    h.write(MEM, 0, &[2; 32], HOST + 1, &mut dev).unwrap();
    let r = h.device_visible_event(&mut dev).unwrap();
    assert_eq!((r.wc_buffers_drained, r.bus_transactions, r.bytes_to_device), (1, 1, 64));
    assert_eq!(r.device_write_transactions, 2, "two 32-byte sectors of device memory");
    assert_eq!(gpu_sees(&dev, 0, 64).0, cat(&[run(2, 32), run(1, 32)]));
}

/// A write spanning lines takes one buffer per line.
#[test]
fn a_write_across_lines_takes_a_buffer_per_line() {
    let mut dev = device();
    let mut h = host(HostMemoryKind::WriteCombined);
    let r = h.write(MEM, 60, &[7; 72], HOST, &mut dev).unwrap();
    assert_eq!(r.wc_buffers_allocated, 3);
    let r = h.device_visible_event(&mut dev).unwrap();
    assert_eq!(r.wc_buffers_drained, 3);
    assert_eq!(gpu_sees(&dev, 56, 80).0, cat(&[run(0, 4), run(7, 72), run(0, 4)]));
}

/// With no buffers, host writes to write-combined memory go straight to device memory.
#[test]
fn zero_buffers_write_straight_through() {
    let mut dev = device();
    let mut h = host_with(&spec(0), HostMemoryKind::WriteCombinedNonCoherent);
    h.write(MEM, 0, &[9; 8], HOST, &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 8).0, run(9, 8));
    assert!(h.pending_writes().is_empty());
}

/// Coherent and non-coherent buffers share the core's pool; a device-visible event sends only
/// the coherent ones, and eviction does not care which kind a buffer is.
#[test]
fn coherent_and_non_coherent_buffers_share_the_pool() {
    let mut dev = device();
    let mut h = host_with(&spec(2), HostMemoryKind::WriteCombinedNonCoherent);
    h.map(1, 0x4000, 4096, HostMemoryKind::WriteCombined).unwrap();
    h.write(MEM, 0, &[1; 4], HOST, &mut dev).unwrap();
    h.write(1, 0, &[2; 4], HOST + 1, &mut dev).unwrap();
    h.device_visible_event(&mut dev).unwrap();
    let mut d = [0u8; 4];
    let mut t = [0u32; 1];
    dev.peek(0x4000, &mut d, &mut t).unwrap();
    assert_eq!(d, [2; 4]);
    assert_eq!(gpu_sees(&dev, 0, 4).0, run(0, 4));
    // Two more lines of memory 1: the first evicts the old non-coherent buffer.
    h.write(1, 64, &[3; 4], HOST + 2, &mut dev).unwrap();
    h.write(1, 128, &[4; 4], HOST + 3, &mut dev).unwrap();
    assert_eq!(gpu_sees(&dev, 0, 4).0, run(1, 4), "evicted: available by accident, without a flush");
}

/// The device level can be lent as a trait object, as the engine does.
#[test]
fn the_device_level_can_be_a_trait_object() {
    let mut store = device();
    let dev: &mut dyn sim_caches::MemoryLevel = &mut store;
    let mut h = host(HostMemoryKind::WriteCombined);
    h.write(MEM, 0, &[5; 4], HOST, dev).unwrap();
    h.device_visible_event(dev).unwrap();
    assert_eq!(gpu_sees(&store, 0, 4).0, run(5, 4));
}
