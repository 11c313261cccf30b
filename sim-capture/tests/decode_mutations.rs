//! Random damage to the parameters of real captures, taken through the whole importer (reader,
//! parameter decoders, converter): no panic, no allocation larger than the damaged file could
//! justify, and every error about a block names the block and its offset.
//!
//! The captures are uncompressed (the committed `fill-then-dispatch.none.gfxr`, and the
//! inline-data program's capture written out again without compression), so that damage lands
//! in parameter bytes, not in compressed data the reader already refuses. Counts, sizes and
//! pointer attributes are overwritten with values chosen to be hostile (huge, zero, all ones).
//! The counting allocator is the one of `mutations.rs`; this binary holds a single test so no
//! other thread allocates meanwhile.

mod common;

use std::path::PathBuf;

use proptest::prelude::*;
use sim_capture::convert::{ImportError, ImportOptions, import_bytes};
use sim_capture::{Block, BlockKind, read_all};

#[global_allocator]
static ALLOCATOR: common::Counting = common::Counting;

/// A capture written again without compression: header with compression NONE, then each block
/// with its fixed fields and its (decompressed) payload.
fn uncompressed(bytes: &[u8]) -> Vec<u8> {
    let (header, blocks) = read_all(bytes).unwrap();
    let mut out = b"GFXR".to_vec();
    for v in [header.major_version, header.minor_version, 1, 1, 0] {
        out.extend(v.to_le_bytes());
    }
    for b in blocks {
        let mut body = Vec::new();
        let ty: u32 = match b.kind {
            BlockKind::FunctionCall {
                api_call_id,
                thread_id,
            } => {
                body.extend(api_call_id.to_le_bytes());
                body.extend(thread_id.to_le_bytes());
                4
            }
            BlockKind::MetaData { meta_data_id } => {
                body.extend(meta_data_id.to_le_bytes());
                3
            }
            BlockKind::FrameMarker {
                marker_type,
                frame_number,
            }
            | BlockKind::StateMarker {
                marker_type,
                frame_number,
            } => {
                body.extend(marker_type.to_le_bytes());
                body.extend(frame_number.to_le_bytes());
                if matches!(b.kind, BlockKind::FrameMarker { .. }) {
                    1
                } else {
                    2
                }
            }
            BlockKind::Annotation {
                annotation_type,
                label_length,
                data_length,
            } => {
                body.extend(annotation_type.to_le_bytes());
                body.extend(label_length.to_le_bytes());
                body.extend(data_length.to_le_bytes());
                5
            }
            BlockKind::MethodCall { .. } => unreachable!("Vulkan captures have no method calls"),
        };
        body.extend(&b.payload);
        out.extend((body.len() as u64).to_le_bytes());
        out.extend(ty.to_le_bytes());
        out.extend(body);
    }
    out
}

fn inline_data_uncompressed() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/captures/inline-data.gfxr");
    uncompressed(&std::fs::read(path).unwrap())
}

/// Hostile numbers for counts, sizes and attribute words.
fn values() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(u64::MAX),
        Just(u64::from(u32::MAX)),
        Just(1 << 40),
        Just(0xc4), // array | address | data
        0..4096u64,
        any::<u64>(),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite 4 or 8 bytes somewhere in a function call's parameters.
    Parameter {
        block: usize,
        at: usize,
        value: u64,
        wide: bool,
    },
    /// Flip a bit somewhere in a function call's parameters.
    FlipBit { block: usize, at: usize, bit: u8 },
    /// Change a call's id to another call's.
    CallId { block: usize, id: u32 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>(), values(), any::<bool>()).prop_map(
            |(block, at, value, wide)| Mutation::Parameter {
                block,
                at,
                value,
                wide
            }
        ),
        (any::<usize>(), any::<usize>(), 0..8u8).prop_map(|(block, at, bit)| Mutation::FlipBit {
            block,
            at,
            bit
        }),
        (
            any::<usize>(),
            prop_oneof![0x0001_1000..0x0001_1300u32, any::<u32>()]
        )
            .prop_map(|(block, id)| Mutation::CallId { block, id }),
    ]
}

fn apply(bytes: &mut [u8], calls: &[&Block], m: &Mutation) {
    // A function call's body: size u64, type u32, call id u32, thread id u64, parameters.
    let params = |b: &Block| (b.offset as usize + 24, b.payload.len());
    match *m {
        Mutation::Parameter {
            block,
            at,
            value,
            wide,
        } => {
            let (start, len) = params(calls[block % calls.len()]);
            if len == 0 {
                return;
            }
            let at = start + at % len;
            let v = value.to_le_bytes();
            let n = if wide { 8 } else { 4 }.min(start + len - at);
            bytes[at..at + n].copy_from_slice(&v[..n]);
        }
        Mutation::FlipBit { block, at, bit } => {
            let (start, len) = params(calls[block % calls.len()]);
            if len > 0 {
                bytes[start + at % len] ^= 1 << bit;
            }
        }
        Mutation::CallId { block, id } => {
            let at = calls[block % calls.len()].offset as usize + 12;
            bytes[at..at + 4].copy_from_slice(&id.to_le_bytes());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn damaged_parameters_are_errors_with_a_place(which in 0..2usize, ms in prop::collection::vec(mutation(), 1..4)) {
        let original = if which == 0 { common::none_fixture() } else { inline_data_uncompressed() };
        let (_, blocks) = read_all(&original).unwrap();
        let calls: Vec<&Block> = blocks.iter().filter(|b| b.api_call_id().is_some()).collect();
        let mut bytes = original.clone();
        for m in &ms {
            apply(&mut bytes, &calls, m);
        }
        let options = ImportOptions { name: "t".into(), shader_file_prefix: "t.".into(), description: None };
        common::assert_counting();
        common::reset_largest_allocation();
        let result = import_bytes(&bytes, &options);
        let largest = common::largest_allocation();
        // The trace's text (host writes as hex) and the SPIR-V copies are a few times the file;
        // nothing may come near what a trusted count (2^40 elements) would ask for.
        let bound = 64 * bytes.len() + (1 << 20);
        prop_assert!(largest <= bound, "largest allocation {largest} > {bound} for {ms:?}");
        if let Err(e) = result {
            // The header is untouched, so every error is about a block, at a block boundary
            // of the file.
            let (index, offset) = e.block_position().unwrap_or_else(|| panic!("no place: {e}"));
            let block = blocks.iter().find(|b| b.index == index).unwrap_or_else(|| panic!("{e}"));
            prop_assert_eq!(block.offset, offset, "{}", e);
            let text = e.to_string();
            prop_assert!(text.contains(&index.to_string()) && text.contains(&offset.to_string()), "{}", text);
            if let ImportError::Unsupported { call, .. } = &e {
                prop_assert!(text.starts_with(&format!("unsupported: {call} at call {index}")), "{}", text);
            }
        }
    }
}
