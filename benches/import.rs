//! `gpusim import`'s conversion of a capture of more than 100,000 calls.
//!
//! The capture is synthetic but valid: `tests/captures/barrier-correct.gfxr` (made on lavapipe
//! by `scripts/capture-fixtures/make.sh`) with its vkCmdDispatch block and the
//! vkCmdPipelineBarrier block that follows it repeated [`PAIRS`] times in place, so that one
//! command buffer records 50,000 more dispatches and barriers. Each repeated block is the
//! layer's own bytes (LZ4-compressed as the layer wrote them), so the file is what the capture
//! layer would have written for that program, and both `gpusim import` and `gfxrecon-convert`
//! read it. The bench writes it to `target/import-bench/many-calls.gfxr` for timing the two
//! tools side by side (BENCHMARKS.md, "Import").
//!
//! Rows: `convert` is `sim_capture::convert::import_bytes` (read, decompress, decode, convert,
//! write the trace's text); `convert_then_load` adds what `gpusim import` does before writing
//! the trace: gpusim's loader on the result (its SPIR-V written to a folder first).
//!
//! `cargo bench -p gpusim --bench import -- --warm-up-time 1 --measurement-time 4`

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sim_capture::convert::{ImportOptions, import_bytes};

/// Dispatch-and-barrier pairs added: 100,000 calls.
const PAIRS: usize = 50_000;

/// The fixture with its dispatch and the barrier after it repeated `pairs` times; and how many
/// calls the result holds.
fn many_calls_capture(pairs: usize) -> (Vec<u8>, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures/barrier-correct.gfxr");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, blocks) = sim_capture::read_all(&bytes[..]).expect("the fixture reads");
    let raw = |k: usize| {
        let end = blocks.get(k + 1).map_or(bytes.len(), |b| b.offset as usize);
        &bytes[blocks[k].offset as usize..end]
    };
    let dispatch = blocks.iter().position(|b| b.call_name() == Some("vkCmdDispatch")).expect("a dispatch");
    assert_eq!(blocks[dispatch + 1].call_name(), Some("vkCmdPipelineBarrier"), "the fixture's dispatch is followed by its barrier");
    let cut = blocks[dispatch + 2].offset as usize;
    let pair = [raw(dispatch), raw(dispatch + 1)].concat();
    let mut out = Vec::with_capacity(bytes.len() + pair.len() * pairs);
    out.extend_from_slice(&bytes[..cut]);
    for _ in 0..pairs {
        out.extend_from_slice(&pair);
    }
    out.extend_from_slice(&bytes[cut..]);
    let calls = blocks.iter().filter(|b| b.call_name().is_some()).count() + 2 * pairs;
    (out, calls)
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"), PathBuf::from).join("import-bench")
}

fn options() -> ImportOptions {
    ImportOptions { name: "many-calls".into(), shader_file_prefix: "many-calls.".into(), description: None }
}

fn import(c: &mut Criterion) {
    let (capture, calls) = many_calls_capture(PAIRS);
    assert!(calls >= 100_000, "{calls} calls");
    let dir = target_dir();
    std::fs::create_dir_all(&dir).expect("target/import-bench");
    std::fs::write(dir.join("many-calls.gfxr"), &capture).expect("write the capture");
    // The result loads, with its 100,000 commands, before anything is timed.
    let imported = import_bytes(&capture, &options()).expect("the capture imports");
    for (name, bytes) in &imported.files {
        std::fs::write(dir.join(name), bytes).expect("write the SPIR-V");
    }
    let loaded = sim_core::trace::load_str(&imported.trace, Some(&dir)).expect("the trace loads");
    assert!(loaded.workload.command_buffers[0].commands.len() > 2 * PAIRS);

    let mut g = c.benchmark_group("import");
    g.throughput(Throughput::Elements(calls as u64));
    g.sample_size(10);
    g.bench_function("convert", |b| b.iter(|| black_box(import_bytes(black_box(&capture), &options()).expect("imports").trace.len())));
    g.bench_function("convert_then_load", |b| {
        b.iter(|| {
            let i = import_bytes(black_box(&capture), &options()).expect("imports");
            black_box(sim_core::trace::load_str(&i.trace, Some(&dir)).expect("loads").workload.command_buffers.len())
        })
    });
    g.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
