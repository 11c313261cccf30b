//! Each kind of damage gives its own error, naming the block index and byte offset.

mod common;

use common::{Body, Builder, Trickle, lz4_fixture, none_fixture};
use sim_capture::format::{MAX_BLOCK_SIZE, MAX_FILE_OPTIONS, lz4_max_output};
use sim_capture::{BlockKind, CaptureError, CaptureReader, ids, read_all};

const LZ4: u32 = 1;
const NONE: u32 = 0;
const FUNCTION_CALL: u32 = 4;
const COMPRESSED_FUNCTION_CALL: u32 = 0x8000_0004;
const COMPRESSED_META_DATA: u32 = 0x8000_0003;
/// Bytes before the first block of a builder's capture (16-byte header, one option).
const FIRST: u64 = 24;

fn first_error(bytes: &[u8]) -> CaptureError {
    match CaptureReader::from_slice(bytes) {
        Err(e) => e,
        Ok(reader) => reader.into_iter().find_map(Result::err).expect("an error"),
    }
}

fn call(api_call_id: u32, params: &[u8]) -> Vec<u8> {
    Body::default().u32(api_call_id).u64(1).bytes(params).0
}

fn compressed_call(api_call_id: u32, claimed: u64, compressed: &[u8]) -> Vec<u8> {
    Body::default()
        .u32(api_call_id)
        .u64(1)
        .u64(claimed)
        .bytes(compressed)
        .0
}

#[test]
fn a_hand_built_capture_reads_back() {
    let params: Vec<u8> = (0..200u8).collect();
    let packed = lz4_flex::block::compress(&params);
    let bytes = Builder::new(LZ4)
        .block(FUNCTION_CALL, &call(ids::CMD_DISPATCH, &[1, 2, 3]))
        .block(
            COMPRESSED_FUNCTION_CALL,
            &compressed_call(ids::CMD_TRACE_RAYS_KHR, 200, &packed),
        )
        .block(1, &Body::default().u32(2).u64(7).0)
        .bytes;
    let (_, blocks) = read_all(&bytes).unwrap();
    assert_eq!(blocks.len(), 3);
    assert_eq!(
        (blocks[0].call_name(), blocks[0].payload.as_slice()),
        (Some("vkCmdDispatch"), &[1u8, 2, 3][..])
    );
    assert_eq!(
        (blocks[1].call_name(), &blocks[1].payload),
        (Some("vkCmdTraceRaysKHR"), &params)
    );
    assert_eq!(
        (blocks[1].offset, blocks[1].thread_id()),
        (FIRST + 12 + 15, Some(1))
    );
    assert_eq!(
        blocks[2].kind,
        BlockKind::FrameMarker {
            marker_type: 2,
            frame_number: 7
        }
    );
}

#[test]
fn file_header_errors() {
    assert!(
        matches!(first_error(b"RIFF\0\0\0\0"), CaptureError::BadFourcc { found } if &found == b"RIFF")
    );
    assert!(matches!(
        first_error(b"GFX"),
        CaptureError::TruncatedFileHeader { got: 3, need: 16 }
    ));
    assert!(matches!(
        first_error(b""),
        CaptureError::TruncatedFileHeader { got: 0, need: 16 }
    ));

    let mut bytes = Builder::new(NONE).bytes;
    bytes[4] = 1;
    let e = first_error(&bytes);
    assert!(
        matches!(e, CaptureError::UnsupportedVersion { major: 1, minor: 1 }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "unsupported capture file version 1.1: only major version 0 is read"
    );

    // Two options declared, one present.
    let mut bytes = Builder::new(NONE).bytes;
    bytes[12] = 2;
    assert!(matches!(
        first_error(&bytes),
        CaptureError::TruncatedFileHeader { got: 24, need: 32 }
    ));

    let mut bytes = Builder::new(NONE).bytes;
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        first_error(&bytes),
        CaptureError::TooManyOptions {
            count: u32::MAX,
            max: MAX_FILE_OPTIONS
        }
    ));

    assert!(matches!(
        first_error(&Builder::new(9).bytes),
        CaptureError::UnknownCompression { value: 9 }
    ));
    let e = first_error(&Builder::new(2).bytes);
    assert!(
        matches!(e, CaptureError::UnsupportedCompression { name: "ZLIB" }),
        "{e}"
    );
    assert!(e.to_string().contains("compressed with ZLIB"), "{e}");
    assert_eq!(e.block_position(), None);
}

#[test]
fn unknown_block_types_are_named() {
    for block_type in [0, 7, 0x8000_0001, 0x8000_0005, 0xFFFF_FFFF] {
        let bytes = Builder::new(LZ4)
            .block(FUNCTION_CALL, &call(1, &[]))
            .block(block_type, &[0; 16])
            .bytes;
        let e = first_error(&bytes);
        assert!(
            matches!(e, CaptureError::UnknownBlockType { index: 1, offset: 48, block_type: t } if t == block_type),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            format!("block 1 at byte 48: unknown block type 0x{block_type:08x}")
        );
    }
}

#[test]
fn a_block_size_over_the_cap_is_refused_before_reading() {
    let mut bytes = Builder::new(NONE).block(FUNCTION_CALL, &call(1, &[])).bytes;
    bytes[24..32].copy_from_slice(&(MAX_BLOCK_SIZE + 1).to_le_bytes());
    let e = first_error(&bytes);
    assert!(
        matches!(e, CaptureError::BlockTooLarge { index: 0, offset: FIRST, size, cap: MAX_BLOCK_SIZE } if size == MAX_BLOCK_SIZE + 1)
    );
    // A stream of unknown length refuses it as well, without trying to read 256 MiB.
    let e = CaptureReader::new(Trickle {
        bytes: &bytes,
        chunk: 3,
    })
    .unwrap()
    .find_map(Result::err)
    .unwrap();
    assert!(
        matches!(
            e,
            CaptureError::BlockTooLarge {
                index: 0,
                offset: FIRST,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_block_size_past_the_end_of_the_fixture_is_refused() {
    let mut bytes = none_fixture();
    let (_, blocks) = read_all(&bytes).unwrap();
    let b = &blocks[40];
    let at = b.offset as usize;
    let remaining = bytes.len() as u64 - b.offset - 12;
    bytes[at..at + 8].copy_from_slice(&(remaining + 1).to_le_bytes());
    let e = first_error(&bytes);
    assert!(
        matches!(e, CaptureError::BlockPastEnd { index: 40, offset, size, remaining: r }
        if offset == b.offset && size == remaining + 1 && r == remaining),
        "{e}"
    );
}

#[test]
fn bodies_too_short_for_their_fixed_fields() {
    for (block_type, body_len, what, need) in [
        (FUNCTION_CALL, 11, "function call header", 12),
        (COMPRESSED_FUNCTION_CALL, 19, "function call header", 20),
        (0x8000_0006, 27, "method call header", 28),
        (1, 8, "marker", 12),
        (5, 15, "annotation header", 16),
        (3, 3, "meta-data id", 4),
    ] {
        let bytes = Builder::new(LZ4)
            .block(FUNCTION_CALL, &call(1, &[9]))
            .block(block_type, &vec![0; body_len])
            .bytes;
        let e = first_error(&bytes);
        assert!(
            matches!(e, CaptureError::BlockTooSmall { index: 1, offset: 49, what: w, size, need: n }
                if w == what && size == body_len as u64 && n == need),
            "{block_type:#x}: {e}"
        );
    }
}

#[test]
fn a_compressed_block_in_an_uncompressed_capture_is_refused() {
    // The fixture's header says LZ4; claiming NONE makes its first compressed block an error.
    let mut bytes = lz4_fixture();
    bytes[20] = 0;
    let (_, blocks) = read_all(&lz4_fixture()).unwrap();
    let first = blocks.iter().find(|b| b.compressed).unwrap();
    let e = first_error(&bytes);
    assert!(
        matches!(e, CaptureError::CompressedWithoutCompression { index, offset } if (index, offset) == (first.index, first.offset)),
        "{e}"
    );
}

#[test]
fn uncompressed_sizes_that_lie_are_refused() {
    let params = vec![7u8; 1000];
    let packed = lz4_flex::block::compress(&params);
    let build = |claimed: u64| {
        Builder::new(LZ4)
            .block(
                COMPRESSED_FUNCTION_CALL,
                &compressed_call(1, claimed, &packed),
            )
            .bytes
    };
    assert_eq!(read_all(&build(1000)).unwrap().1[0].payload, params);

    // Larger than the compressed bytes could ever decode to: refused before allocating.
    let bound = lz4_max_output(packed.len() as u64);
    for claimed in [bound + 1, MAX_BLOCK_SIZE + 1, u64::MAX] {
        let e = first_error(&build(claimed));
        assert!(
            matches!(e, CaptureError::UncompressedSizeTooLarge { index: 0, offset: FIRST, claimed: c, .. } if c == claimed),
            "{e}"
        );
    }
    // Plausible but wrong, either way: the decoder's output does not match.
    for claimed in [0, 999, 1001, bound] {
        let e = first_error(&build(claimed));
        assert!(
            matches!(e, CaptureError::Decompress { index: 0, offset: FIRST, claimed: c, .. } if c == claimed),
            "{claimed}: {e}"
        );
        assert!(
            e.to_string()
                .starts_with("block 0 at byte 24: corrupt compressed data ("),
            "{e}"
        );
    }
}

#[test]
fn corrupt_lz4_data_is_refused() {
    // One literal, then a match 0xFFFF bytes back: before the start of the output.
    let bytes = Builder::new(LZ4)
        .block(
            COMPRESSED_FUNCTION_CALL,
            &compressed_call(1, 64, &[0x1F, b'a', 0xFF, 0xFF]),
        )
        .bytes;
    let e = first_error(&bytes);
    assert!(
        matches!(
            e,
            CaptureError::Decompress {
                index: 0,
                offset: FIRST,
                claimed: 64,
                ..
            }
        ),
        "{e}"
    );

    // Damage inside a real compressed block of the fixture.
    let mut bytes = lz4_fixture();
    let (_, blocks) = read_all(&bytes).unwrap();
    let b = blocks
        .iter()
        .find(|b| b.compressed && b.size > 100)
        .unwrap();
    let data = (b.offset + 12 + 20) as usize;
    bytes[data..data + 16].fill(0xFF);
    let e = first_error(&bytes);
    assert_eq!(e.block_position(), Some((b.index, b.offset)), "{e}");
    assert!(matches!(e, CaptureError::Decompress { .. }), "{e}");
}

#[test]
fn compressed_meta_data_of_an_unknown_layout_is_refused() {
    let body = Body::default().u32((1 << 16) | 11).bytes(&[0; 40]).0;
    let e = first_error(&Builder::new(LZ4).block(COMPRESSED_META_DATA, &body).bytes);
    assert!(
        matches!(
            e,
            CaptureError::UnsupportedCompressedMetaData {
                index: 0,
                offset: FIRST,
                meta_data_type: 11
            }
        ),
        "{e}"
    );

    // A FillMemory whose fixed fields are cut short.
    let body = Body::default().u32((1 << 16) | 2).u64(0).u64(0).0;
    let e = first_error(&Builder::new(LZ4).block(COMPRESSED_META_DATA, &body).bytes);
    assert!(
        matches!(
            e,
            CaptureError::BlockTooSmall {
                index: 0,
                offset: FIRST,
                what: "compressed meta-data header",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn annotation_lengths_past_the_block_are_refused() {
    for (label_length, data_length) in [(4, 5), (u32::MAX, 0), (0, u64::MAX)] {
        let body = Body::default()
            .u32(1)
            .u32(label_length)
            .u64(data_length)
            .bytes(b"labeldat")
            .0;
        let e = first_error(&Builder::new(NONE).block(5, &body).bytes);
        assert!(
            matches!(
                e,
                CaptureError::BadAnnotation {
                    index: 0,
                    offset: FIRST,
                    available: 8,
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn io_errors_are_reported_with_their_offset() {
    struct Failing(usize);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let header = Builder::new(NONE).bytes;
            if self.0 >= header.len() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(header.len() - self.0);
            buf[..n].copy_from_slice(&header[self.0..self.0 + n]);
            self.0 += n;
            Ok(n)
        }
    }
    let e = CaptureReader::new(Failing(0))
        .unwrap()
        .next_block()
        .unwrap_err();
    assert!(matches!(e, CaptureError::Io { offset: 24, .. }), "{e}");
    assert_eq!(e.to_string(), "I/O error at byte 24: disk on fire");
}

#[test]
fn after_an_error_the_reader_is_finished() {
    let bytes = Builder::new(NONE)
        .block(FUNCTION_CALL, &call(1, &[]))
        .block(9, &[])
        .block(FUNCTION_CALL, &call(1, &[]))
        .bytes;
    let mut reader = CaptureReader::from_slice(&bytes).unwrap();
    assert!(reader.next_block().unwrap().is_some());
    assert!(reader.next_block().is_err());
    assert!(reader.next_block().unwrap().is_none());
    assert!(reader.next().is_none());
}

#[test]
fn zstd_blocks_with_lying_sizes_or_corrupt_frames_are_refused() {
    let original = common::zstd_fixture();
    let (_, blocks) = read_all(&original).unwrap();
    let b = blocks
        .iter()
        .find(|b| b.compressed && b.api_call_id().is_some() && b.payload.len() > 500)
        .unwrap();
    let (at, size_field) = (b.offset as usize, b.offset as usize + 12 + 12);
    let with_claim = |claimed: u64| {
        let mut bytes = original.clone();
        bytes[size_field..size_field + 8].copy_from_slice(&claimed.to_le_bytes());
        bytes
    };
    let real = b.payload.len() as u64;
    for claimed in [MAX_BLOCK_SIZE + 1, u64::MAX] {
        let e = first_error(&with_claim(claimed));
        assert!(
            matches!(e, CaptureError::UncompressedSizeTooLarge { index, offset, bound: MAX_BLOCK_SIZE, .. }
                if (index, offset) == (b.index, b.offset)),
            "{e}"
        );
    }
    // Within the cap but wrong: the frame decodes to a different length. A claim of the cap
    // itself must not allocate the cap: the output grows only with decoded bytes.
    for claimed in [0, real - 1, real + 1, MAX_BLOCK_SIZE] {
        let e = first_error(&with_claim(claimed));
        assert!(
            matches!(e, CaptureError::Decompress { index, offset, claimed: c, .. }
                if (index, offset, c) == (b.index, b.offset, claimed)),
            "{claimed}: {e}"
        );
    }
    // A damaged frame magic number.
    let mut bytes = original.clone();
    bytes[at + 12 + 20] ^= 0xFF;
    let e = first_error(&bytes);
    assert!(
        matches!(e, CaptureError::Decompress { index, offset, .. } if (index, offset) == (b.index, b.offset)),
        "{e}"
    );
}

#[test]
fn zstd_frame_headers_that_would_reserve_a_huge_window_are_refused() {
    let magic = 0xFD2F_B528u32.to_le_bytes();
    let zstd_call = |frame: &[u8], claimed: u64| {
        Builder::new(3)
            .block(
                COMPRESSED_FUNCTION_CALL,
                &compressed_call(1, claimed, frame),
            )
            .bytes
    };
    for (frame_header, detail) in [
        // Not single-segment, no content size, window descriptor 0xF8: a 2^41-byte window.
        (vec![0x00, 0xF8], "zstd window of 2199023255552 bytes"),
        // A 1 MiB window for a 100-byte claim.
        (vec![0x00, 0x50], "zstd window of 1048576 bytes"),
        // Single-segment with a 4-byte content size that disagrees with the claim.
        (vec![0xA0, 0, 0, 0x10, 0], "zstd frame content size 1048576"),
        (vec![0x01, 0x50, 7], "zstd frame needs a dictionary"),
        (vec![0xC0], "truncated zstd frame header"),
    ] {
        let frame = [&magic[..], &frame_header, &[0; 8]].concat();
        let e = first_error(&zstd_call(&frame, 100));
        assert!(
            matches!(&e, CaptureError::Decompress { index: 0, offset: FIRST, claimed: 100, detail: d } if d == detail),
            "{frame_header:02x?}: {e}"
        );
    }
    let e = first_error(&zstd_call(b"PK\x03\x04", 100));
    assert!(e.to_string().contains("zstd frame magic 0x04034b50"), "{e}");
}
