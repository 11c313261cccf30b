//! Random damage to the real captures never panics and never makes the reader allocate a
//! buffer bigger than the damaged file could justify.
//!
//! A counting global allocator records the largest single allocation made by this thread while
//! a capture is read. The bound is what an honest reader may need: a body no longer than the
//! file, or an LZ4 output no larger than the file's bytes could decode to (256 times them), plus
//! slack for the reader's own small buffers. A reader that trusted a size field would allocate
//! up to the 256 MiB cap (or try `u64::MAX`) and fail this check long before running out of
//! memory. This binary holds a single test so no other test thread allocates meanwhile; the
//! counter is per thread in any case.

mod common;


use common::{Trickle, lz4_fixture, none_fixture, zstd_fixture};
use proptest::prelude::*;
use sim_capture::format::MAX_BLOCK_SIZE;
use sim_capture::{Block, CaptureError, CaptureReader, read_all};

#[global_allocator]
static ALLOCATOR: common::Counting = common::Counting;

/// One kind of damage. Positions are taken modulo the file's length (or its block count), so
/// every generated value lands somewhere in the file.
#[derive(Debug, Clone)]
enum Mutation {
    FlipBit { at: usize, bit: u8 },
    OverwriteU64 { at: usize, value: u64 },
    OverwriteU32 { at: usize, value: u32 },
    BlockSize { block: usize, value: u64 },
    BlockType { block: usize, value: u32 },
    UncompressedSize { block: usize, value: u64 },
    Truncate { at: usize },
}

fn sizes() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0),
        Just(u64::MAX),
        Just(MAX_BLOCK_SIZE),
        Just(MAX_BLOCK_SIZE + 1),
        Just(u64::from(u32::MAX)),
        0..100_000u64,
        any::<u64>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0..8u8).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        (any::<usize>(), sizes()).prop_map(|(at, value)| Mutation::OverwriteU64 { at, value }),
        (any::<usize>(), any::<u32>()).prop_map(|(at, value)| Mutation::OverwriteU32 { at, value }),
        (any::<usize>(), sizes()).prop_map(|(block, value)| Mutation::BlockSize { block, value }),
        (
            any::<usize>(),
            prop_oneof![0..8u32, 0x8000_0000..0x8000_0008u32, any::<u32>()]
        )
            .prop_map(|(block, value)| Mutation::BlockType { block, value }),
        (any::<usize>(), sizes())
            .prop_map(|(block, value)| Mutation::UncompressedSize { block, value }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn put(bytes: &mut [u8], at: usize, value: &[u8]) {
    let at = at % bytes.len();
    let end = (at + value.len()).min(bytes.len());
    bytes[at..end].copy_from_slice(&value[..end - at]);
}

fn apply(bytes: &mut Vec<u8>, blocks: &[Block], m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    match *m {
        Mutation::FlipBit { at, bit } => {
            let len = bytes.len();
            bytes[at % len] ^= 1 << bit;
        }
        Mutation::OverwriteU64 { at, value } => put(bytes, at, &value.to_le_bytes()),
        Mutation::OverwriteU32 { at, value } => put(bytes, at, &value.to_le_bytes()),
        Mutation::BlockSize { block, value } => {
            put(
                bytes,
                blocks[block % blocks.len()].offset as usize,
                &value.to_le_bytes(),
            );
        }
        Mutation::BlockType { block, value } => {
            put(
                bytes,
                blocks[block % blocks.len()].offset as usize + 8,
                &value.to_le_bytes(),
            );
        }
        Mutation::UncompressedSize { block, value } => {
            // A compressed call's uncompressed size follows its call id and thread id.
            let compressed: Vec<_> = blocks
                .iter()
                .filter(|b| b.compressed && b.api_call_id().is_some())
                .collect();
            if !compressed.is_empty() {
                let b = compressed[block % compressed.len()];
                put(bytes, b.offset as usize + 12 + 12, &value.to_le_bytes());
            }
        }
        Mutation::Truncate { at } => {
            let len = bytes.len();
            bytes.truncate(at % len);
        }
    }
}

/// Reads all of a capture, returning the blocks before the first error and that error.
fn read<R: std::io::Read>(
    reader: Result<CaptureReader<R>, CaptureError>,
) -> (Vec<Block>, Option<CaptureError>) {
    let reader = match reader {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut blocks = Vec::new();
    for block in reader {
        match block {
            Ok(b) => blocks.push(b),
            Err(e) => return (blocks, Some(e)),
        }
    }
    (blocks, None)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn damaged_captures_give_errors_not_panics_or_huge_allocations(
        fixture in 0..3usize,
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let original = [lz4_fixture, none_fixture, zstd_fixture][fixture]();
        let (_, blocks) = read_all(&original).unwrap();
        let mut bytes = original.clone();
        for m in &mutations {
            apply(&mut bytes, &blocks, m);
        }
        let bound = bytes.len() * 256 + (1 << 20);

        common::assert_counting();
        common::reset_largest_allocation();
        let (in_memory, in_memory_error) = read(CaptureReader::from_slice(&bytes));
        let (streamed, streamed_error) = read(CaptureReader::new(Trickle { bytes: &bytes, chunk: 4096 }));
        let largest = common::largest_allocation();
        prop_assert!(largest <= bound, "largest allocation {largest} bytes for a {}-byte file", bytes.len());

        // Knowing the length only changes which error names a short block, never where it is.
        prop_assert_eq!(&in_memory, &streamed);
        prop_assert_eq!(
            in_memory_error.as_ref().map(CaptureError::block_position),
            streamed_error.as_ref().map(CaptureError::block_position)
        );
        if let Some(e) = &in_memory_error
            && let Some((index, offset)) = e.block_position()
        {
            prop_assert_eq!(index, in_memory.len() as u64, "the error is about the block after the last good one");
            let message = e.to_string();
            prop_assert!(message.starts_with(&format!("block {index} at byte {offset}: ")), "{}", message);
        }
        for b in &in_memory {
            prop_assert!(b.payload.len() as u64 <= MAX_BLOCK_SIZE);
        }
    }
}
