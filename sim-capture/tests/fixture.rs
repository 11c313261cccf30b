//! The committed real captures read completely, and agree with `gfxrecon-convert`.

mod common;

use common::{Trickle, lz4_fixture, none_fixture, zstd_fixture};
use sim_capture::format::{Compression, META_FILL_MEMORY};
use sim_capture::{Block, BlockKind, CaptureReader, Summary, ids, read_all};

/// The (block index, function name) pairs `gfxrecon-convert` 0.9.18 reported for the fixture.
fn reference_calls() -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fill-then-dispatch.calls.json"
    ))
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["index"].as_u64().unwrap(),
                c["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn calls(blocks: &[Block]) -> Vec<(u64, String)> {
    blocks
        .iter()
        .filter_map(|b| b.api_call_id().map(|id| (b.index, ids::display_call(id))))
        .collect()
}

#[test]
fn both_fixtures_hold_the_calls_gfxrecon_convert_reports_in_order() {
    let reference = reference_calls();
    assert_eq!(reference.len(), 97);
    for (bytes, compression) in [
        (lz4_fixture(), Compression::Lz4),
        (none_fixture(), Compression::None),
        (zstd_fixture(), Compression::Zstd),
    ] {
        let (header, blocks) = read_all(&bytes).unwrap();
        assert_eq!((header.major_version, header.compression), (0, compression));
        assert_eq!(calls(&blocks), reference, "{compression:?}");
        // Indices are consecutive and offsets chain: each block starts where the last ended.
        let mut next = header.len();
        for (i, b) in blocks.iter().enumerate() {
            assert_eq!((b.index, b.offset), (i as u64, next));
            next = b.offset + 12 + b.size;
        }
        assert_eq!(next, bytes.len() as u64, "the last block ends the file");
    }
}

#[test]
fn compressed_and_uncompressed_captures_have_the_same_blocks() {
    let (_, none) = read_all(&none_fixture()).unwrap();
    assert!(none.iter().all(|b| !b.compressed));
    for compressed in [lz4_fixture(), zstd_fixture()] {
        let (header, blocks) = read_all(&compressed).unwrap();
        assert_eq!(blocks.len(), none.len());
        // A block is stored compressed only when that makes it smaller: 91 of 103 with LZ4,
        // 58 with Zstandard, whose frame header costs more on the many small calls.
        assert!(
            blocks.iter().filter(|b| b.compressed).count() > 50,
            "most blocks of a compressed capture are compressed ({:?})",
            header.compression
        );
        for (a, b) in blocks.iter().zip(&none) {
            assert_eq!(
                (a.index, &a.kind, &a.payload),
                (b.index, &b.kind, &b.payload),
                "block {} ({:?})",
                a.index,
                header.compression
            );
        }
    }
}

#[test]
fn the_summary_counts_the_replayed_program() {
    let summary = Summary::read(CaptureReader::from_slice(&lz4_fixture()).unwrap()).unwrap();
    let mut uncompressed =
        Summary::read(CaptureReader::from_slice(&none_fixture()).unwrap()).unwrap();
    assert_eq!(
        (summary.compressed_blocks, uncompressed.compressed_blocks),
        (91, 0)
    );
    uncompressed.compressed_blocks = summary.compressed_blocks;
    assert_eq!(
        summary, uncompressed,
        "the same counts apart from compression"
    );
    assert_eq!(summary.total_blocks(), 103);
    assert_eq!(summary.blocks["FunctionCall"], 97);
    assert_eq!(summary.blocks["MetaData"], 5);
    assert_eq!(summary.blocks["Annotation"], 1);
    for (name, n) in [
        ("vkCreateBuffer", 4),
        ("vkAllocateMemory", 2),
        ("vkBindBufferMemory", 4),
        ("vkMapMemory", 2),
        ("vkCmdFillBuffer", 1),
        ("vkCmdDispatch", 1),
        ("vkCmdPipelineBarrier2", 1),
        ("vkQueueSubmit2", 3),
        ("vkCreateComputePipelines", 1),
        ("vkUpdateDescriptorSets", 1),
    ] {
        assert_eq!(summary.calls.get(name), Some(&n), "{name}");
    }
    assert_eq!(summary.meta_data["FillMemory"], 2);
    let text = summary.to_string();
    assert!(text.starts_with("103 blocks ("), "{text}");
    assert!(text.contains("  call vkCmdDispatch: 1\n"), "{text}");
}

#[test]
fn fill_memory_blocks_carry_the_mapped_writes() {
    let (_, blocks) = read_all(&lz4_fixture()).unwrap();
    let fills: Vec<_> = blocks.iter().filter_map(Block::fill_memory).collect();
    assert_eq!(fills.len(), 2);
    for fill in &fills {
        assert_eq!((fill.memory_offset, fill.data.len()), (0, 4096));
    }
    assert_ne!(fills[0].memory_id, fills[1].memory_id);
    assert!(
        blocks
            .iter()
            .filter(|b| b.meta_data_type() == Some(META_FILL_MEMORY))
            .all(|b| b.compressed)
    );
}

#[test]
fn the_annotation_is_the_capture_operation() {
    let (_, blocks) = read_all(&none_fixture()).unwrap();
    let (label, data) = blocks[1].annotation().unwrap();
    assert_eq!(label, b"operation");
    assert!(
        std::str::from_utf8(data)
            .unwrap()
            .contains("\"tool\": \"capture\"")
    );
    assert!(matches!(
        blocks[1].kind,
        BlockKind::Annotation {
            annotation_type: 2,
            ..
        }
    ));
}

#[test]
fn a_stream_of_unknown_length_read_in_small_pieces_gives_the_same_blocks() {
    for bytes in [lz4_fixture(), none_fixture(), zstd_fixture()] {
        let (_, expected) = read_all(&bytes).unwrap();
        for chunk in [1, 7, 4096] {
            let reader = CaptureReader::new(Trickle {
                bytes: &bytes,
                chunk,
            })
            .unwrap();
            let blocks: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
            assert_eq!(blocks, expected, "chunk {chunk}");
        }
    }
}

#[test]
fn open_reads_a_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fill-then-dispatch.lz4.gfxr"
    );
    let reader = CaptureReader::open(path).unwrap();
    assert_eq!(reader.count(), 103);
    let missing = CaptureReader::open("/nonexistent/capture.gfxr").unwrap_err();
    assert!(
        matches!(missing, sim_capture::CaptureError::Io { offset: 0, .. }),
        "{missing}"
    );
}
