//! Observers attach to a simulated run without changing it, and a timed run needs no reference
//! run: the seams the truth oracle, the timeline's recorder, a hazard detector or a statistics
//! collector use.

use sim_core::engine::oracle::{CopyRead, Load, Observer};
use sim_core::engine::SyncLog;
use sim_core::engine::run::Sim;
use sim_core::engine::stream::Stream;
use sim_core::api::*;
use sim_core::engine::*;
use sim_core::generators::*;
use sim_core::profile::Profile;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

/// Counts what it is told.
#[derive(Default)]
struct Counter {
    writes: u64,
    bytes_written: u64,
    loads: u64,
    copy_reads: u64,
    syncs: u64,
    spans: u64,
    workgroups: u64,
}

impl Observer for Counter {
    fn on_write(&mut self, _tag: sim_caches::Tag, _addr: u64, len: u64) {
        self.writes += 1;
        self.bytes_written += len;
    }
    fn on_load(&mut self, _load: &Load<'_>) {
        self.loads += 1;
    }
    fn on_copy_read(&mut self, _read: &CopyRead<'_>) {
        self.copy_reads += 1;
    }
    fn on_sync(&mut self, _log: &SyncLog) {
        self.syncs += 1;
    }
    fn on_span(&mut self, _inst: usize, _start: u64, _end: u64) {
        self.spans += 1;
    }
    fn on_workgroup(&mut self, _span: (usize, u64, usize, u64, u64)) {
        self.workgroups += 1;
    }
}

fn fill_copy_dispatch() -> Workload {
    let mut w = Workload::new("fill-copy-dispatch");
    let a = w.device_buffer("A", 4096);
    let b = w.device_buffer("B", 4096);
    let c = w.device_buffer("C", 4096);
    let p = w.wgsl_pipeline("add_one", samples::ADD_ONE_WGSL, "main").unwrap();
    let f = w.fence("f");
    let bind = |binding, buffer| BufferBinding { set: 0, binding, buffer, offset: 0, range: None };
    let cb = w.command_buffer(
        "cb",
        vec![
            Command::FillBuffer { dst: a, offset: 0, size: None, data: 7 },
            Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR, A::TRANSFER_WRITE, S::COPY, A::TRANSFER_READ)),
            Command::CopyBuffer { src: a, dst: b, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: 4096 }] },
            Command::PipelineBarrier(DependencyInfo::memory(S::COPY, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ)),
            Command::Dispatch { pipeline: p, group_count: [16, 1, 1], base_group: [0; 3], bindings: vec![bind(0, b), bind(1, c)], push_constants: vec![], images: Vec::new() },
        ],
    );
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

#[test]
fn an_observer_sees_every_read_write_and_sync_and_changes_nothing() {
    let w = fill_copy_dispatch();
    let profile = Profile::builtin("seed-l2").unwrap();
    let prog = Program::new(&w).unwrap();
    let stream = Stream::lower(&prog).unwrap();
    let truth = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &Default::default()).unwrap().truth;
    let plain = Sim::new(&prog, &stream, &profile, Some(&truth), 0).unwrap().run().unwrap();
    let mut counter = Counter::default();
    let watched = Sim::new(&prog, &stream, &profile, Some(&truth), 0).unwrap().observe(&mut counter).run().unwrap();
    assert_eq!((plain.cycles, plain.stale_count, plain.spans.len()), (watched.cycles, watched.stale_count, watched.spans.len()));
    // The fill and the copy write 4 KiB each (16 chunks of 256 bytes), the dispatch 4 KiB.
    assert_eq!(counter.bytes_written, 3 * 4096, "{} writes", counter.writes);
    // 16 copy chunks; 16 workgroups of 64 lanes in subgroups of 64 each load once.
    assert_eq!(counter.copy_reads, 16);
    assert_eq!(counter.loads, 16);
    assert_eq!(counter.syncs as usize, watched.syncs.len());
    // The timeline's recording is an observer too: the same spans, whoever records them.
    assert_eq!(counter.spans as usize, watched.spans.len());
    assert_eq!(counter.workgroups, 16);
}

#[test]
fn a_timed_run_needs_no_reference_run() {
    let w = fill_copy_dispatch();
    let profile = Profile::builtin("seed-vram").unwrap();
    let prog = Program::new(&w).unwrap();
    let stream = Stream::lower(&prog).unwrap();
    let truth = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &Default::default()).unwrap().truth;
    let judged = Sim::new(&prog, &stream, &profile, Some(&truth), 3).unwrap().run().unwrap();
    let timed = Sim::new(&prog, &stream, &profile, None, 3).unwrap().run().unwrap();
    assert_eq!(judged.cycles, timed.cycles);
    assert_eq!(timed.stale_count, 0);
    assert!(timed.stale.is_empty());
}

/// Records the bytes of every load and host read it is told of, through the events' own
/// accessors.
#[derive(Default)]
struct Reads {
    /// Per load: its bytes, and per lane the level that served it.
    loads: Vec<(Vec<u8>, Vec<&'static str>)>,
    host_reads: Vec<(usize, Vec<u8>)>,
}

impl Observer for Reads {
    fn on_load(&mut self, load: &Load<'_>) {
        let lanes = load.lanes();
        // The lanes' bytes, in order, are the load's bytes.
        assert_eq!(lanes.iter().flat_map(|l| l.bytes.clone()).collect::<Vec<u8>>(), load.bytes());
        self.loads.push((load.bytes().to_vec(), lanes.iter().map(|l| l.via).collect()));
    }
    fn on_host_read(&mut self, seen: &HostReadSeen) {
        self.host_reads.push((seen.timeline, seen.bytes.clone()));
    }
}

/// Host reads are events like any other: an observer sees the bytes the run reports, and each
/// load's lanes name the level that served them.
#[test]
fn host_reads_and_loads_reach_every_observer() {
    let mut w = fill_copy_dispatch();
    let (m, out) = w.host_buffer("OUT", 4096);
    let cb = w.command_buffer(
        "readback",
        vec![
            Command::PipelineBarrier(DependencyInfo::memory(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE, S::COPY, A::TRANSFER_READ)),
            Command::CopyBuffer { src: 2, dst: out, regions: vec![BufferCopy { src_offset: 0, dst_offset: 0, size: 4096 }] },
            Command::PipelineBarrier(DependencyInfo::memory(S::COPY, A::TRANSFER_WRITE, S::HOST, A::HOST_READ)),
        ],
    );
    let f = w.fence("f2");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w.host(HostOp::HostRead { memory: m, offset: 0, size: 64, label: "out".into(), expect: None });
    let profile = Profile::builtin("seed-l2").unwrap();
    let prog = Program::new(&w).unwrap();
    let stream = Stream::lower(&prog).unwrap();
    let truth = reference::reference_run(&prog, &stream, profile.machine.cu.subgroup_size, &Default::default()).unwrap().truth;
    let mut reads = Reads::default();
    let run = Sim::new(&prog, &stream, &profile, Some(&truth), 0).unwrap().observe(&mut reads).run().unwrap();
    assert!(sim_core::hazard::detect(&w).unwrap().is_empty(), "a correctly synchronized program");
    assert_eq!(run.stale_count, 0);
    assert_eq!(reads.host_reads.len(), 1);
    assert_eq!(reads.host_reads[0], (run.host_reads[0].timeline, run.host_reads[0].bytes.clone()));
    assert_eq!(run.host_reads[0].bytes, [8u8, 0, 0, 0].repeat(16), "the dispatch added one to the filled 7");
    assert_eq!(reads.loads.len(), 16);
    assert!(reads.loads.iter().all(|(bytes, via)| bytes == &[7u8, 0, 0, 0].repeat(64) && via.iter().all(|v| ["L1", "L2", "VRAM"].contains(v))), "{:?}", reads.loads[0].1);
}
