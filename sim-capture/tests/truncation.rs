//! Every prefix of a real capture reads as its whole blocks followed by the right error.
//!
//! A capture cut short (the application crashed, the disk filled) is the most common damaged
//! input. For each prefix length, the expected outcome is computed from the full file's block
//! boundaries, and both an in-memory reader (which knows the length, so it refuses a block that
//! runs past the end before reading it) and a stream of unknown length must agree with it.

mod common;

use common::{Trickle, lz4_fixture, none_fixture, zstd_fixture};
use sim_capture::{CaptureError, CaptureReader, read_all};

/// What reading `bytes[..cut]` must give, from the full file's block offsets and sizes.
#[derive(Debug, PartialEq)]
enum Expected {
    /// A clean end after this many blocks (the cut falls on a block boundary).
    Blocks(usize),
    /// The file header is incomplete.
    FileHeader,
    /// Block `index` (at `offset`) lost part of its header.
    BlockHeader { index: u64, offset: u64 },
    /// Block `index` (at `offset`) lost part of its body.
    Body { index: u64, offset: u64 },
}

fn check_every_prefix(bytes: &[u8]) {
    let (header, blocks) = read_all(bytes).unwrap();
    let header_len = header.len() as usize;
    for cut in 0..=bytes.len() {
        let expected = if cut < header_len {
            Expected::FileHeader
        } else {
            // The block the cut falls in, if any: the last one starting at or before it.
            let whole = blocks
                .iter()
                .take_while(|b| (b.offset + 12 + b.size) as usize <= cut)
                .count();
            match blocks.get(whole) {
                Some(b) if cut as u64 == b.offset => Expected::Blocks(whole),
                None => Expected::Blocks(whole),
                Some(b) if (cut as u64) < b.offset + 12 => Expected::BlockHeader {
                    index: b.index,
                    offset: b.offset,
                },
                Some(b) => Expected::Body {
                    index: b.index,
                    offset: b.offset,
                },
            }
        };
        let prefix = &bytes[..cut];
        let in_memory = outcome(CaptureReader::from_slice(prefix), &blocks);
        let streamed = outcome(
            CaptureReader::new(Trickle {
                bytes: prefix,
                chunk: 4096,
            }),
            &blocks,
        );
        match (&expected, &in_memory, &streamed) {
            (
                Expected::Body { .. },
                Err(CaptureError::BlockPastEnd { .. }),
                Err(CaptureError::TruncatedBlock { .. }),
            ) => {}
            (Expected::Body { .. }, ..) => {
                panic!("cut {cut}: {expected:?}, got {in_memory:?} / {streamed:?}")
            }
            _ => {}
        }
        assert_eq!(
            classify(&in_memory),
            expected,
            "cut {cut} in memory: {in_memory:?}"
        );
        assert_eq!(
            classify(&streamed),
            expected,
            "cut {cut} streamed: {streamed:?}"
        );
    }
}

/// Reads all of a prefix; the blocks it returns must be the full file's first blocks.
fn outcome<R: std::io::Read>(
    reader: Result<CaptureReader<R>, CaptureError>,
    full: &[sim_capture::Block],
) -> Result<usize, CaptureError> {
    let mut reader = reader?;
    let mut n = 0;
    while let Some(block) = reader.next_block()? {
        assert_eq!(block, full[n]);
        n += 1;
    }
    // After the end the reader stays finished.
    assert!(reader.next_block().unwrap().is_none());
    Ok(n)
}

fn classify(result: &Result<usize, CaptureError>) -> Expected {
    match result {
        Ok(n) => Expected::Blocks(*n),
        Err(CaptureError::TruncatedFileHeader { .. }) => Expected::FileHeader,
        Err(CaptureError::TruncatedBlockHeader { index, offset, .. }) => Expected::BlockHeader {
            index: *index,
            offset: *offset,
        },
        Err(
            CaptureError::BlockPastEnd { index, offset, .. }
            | CaptureError::TruncatedBlock { index, offset, .. },
        ) => Expected::Body {
            index: *index,
            offset: *offset,
        },
        Err(e) => panic!("unexpected error for a truncation: {e}"),
    }
}

#[test]
fn every_prefix_of_the_lz4_capture_ends_cleanly_or_names_the_cut_block() {
    check_every_prefix(&lz4_fixture());
}

#[test]
fn every_prefix_of_the_uncompressed_capture_ends_cleanly_or_names_the_cut_block() {
    check_every_prefix(&none_fixture());
}

#[test]
fn every_prefix_of_the_zstd_capture_ends_cleanly_or_names_the_cut_block() {
    check_every_prefix(&zstd_fixture());
}

#[test]
fn truncation_messages_name_the_block_and_offset() {
    let bytes = none_fixture();
    let (_, blocks) = read_all(&bytes).unwrap();
    let b = &blocks[5];
    let cut = (b.offset + 12 + 3) as usize;
    let err = read_all(&bytes[..cut]).unwrap_err();
    assert_eq!(err.block_position(), Some((5, b.offset)));
    assert_eq!(
        err.to_string(),
        format!(
            "block 5 at byte {}: declared size {} runs past the end of the file (3 bytes left)",
            b.offset, b.size
        )
    );
    let err = CaptureReader::new(&bytes[..cut])
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    assert_eq!(
        err.to_string(),
        format!(
            "block 5 at byte {}: truncated block, 3 of its {} bytes present",
            b.offset, b.size
        )
    );
    let err = read_all(&bytes[..(b.offset + 5) as usize]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "block 5 at byte {}: truncated block header (5 of 12 bytes)",
            b.offset
        )
    );
}
