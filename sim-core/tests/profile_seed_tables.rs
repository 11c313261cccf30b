//! Both seed profiles reproduce DESIGN.md's tables cell by cell.
//!
//! The expected tables below are transcribed from DESIGN.md independently of the profile files:
//! for every (row, column) the test plans a barrier of just that access at just that column's
//! stage (on the src side for the flush column, the dst side for the invalidate column) and
//! compares the operations; "-" cells (combinations no stage of the column performs) must plan
//! nothing at all.

use sim_core::profile::{CacheAction, CacheName, Profile, plan_barrier};
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, Scope};

/// The seed's columns, each with every stage that behaves as it does.
fn columns() -> Vec<(&'static str, Vec<S>)> {
    vec![
        ("DRAW_INDIRECT", vec![S::DRAW_INDIRECT]),
        ("VERTEX_INPUT", vec![S::VERTEX_INPUT, S::INDEX_INPUT, S::VERTEX_ATTRIBUTE_INPUT]),
        (
            "VERTEX_SHADER",
            vec![S::VERTEX_SHADER, S::COMPUTE_SHADER, S::GEOMETRY_SHADER, S::TESSELLATION_CONTROL_SHADER, S::TESSELLATION_EVALUATION_SHADER],
        ),
        ("FRAGMENT_SHADER", vec![S::FRAGMENT_SHADER]),
        ("EARLY/LATE_FRAGMENT_TESTS", vec![S::EARLY_FRAGMENT_TESTS, S::LATE_FRAGMENT_TESTS]),
        ("COLOR_ATTACHMENT_OUTPUT", vec![S::COLOR_ATTACHMENT_OUTPUT]),
        ("TRANSFER", vec![S::ALL_TRANSFER, S::COPY, S::BLIT, S::RESOLVE]),
        ("HOST", vec![S::HOST]),
    ]
}

/// Which columns the seed marks as legal for an access (the others are "-").
fn legal_columns(access: &str) -> &'static [&'static str] {
    match access {
        "SHADER_WRITE" | "SHADER_READ" | "UNIFORM_READ" => &["VERTEX_SHADER", "FRAGMENT_SHADER"],
        "INPUT_ATTACHMENT_READ" => &["FRAGMENT_SHADER"],
        "INDIRECT_COMMAND_READ" => &["DRAW_INDIRECT"],
        "INDEX_READ" | "VERTEX_ATTRIBUTE_READ" => &["VERTEX_INPUT"],
        "COLOR_ATTACHMENT_WRITE" | "COLOR_ATTACHMENT_READ" => &["COLOR_ATTACHMENT_OUTPUT"],
        "DEPTH_STENCIL_ATTACHMENT_WRITE" | "DEPTH_STENCIL_ATTACHMENT_READ" => &["EARLY/LATE_FRAGMENT_TESTS"],
        "TRANSFER_WRITE" | "TRANSFER_READ" => &["TRANSFER"],
        "HOST_WRITE" | "HOST_READ" => &["HOST"],
        _ => &[],
    }
}

type Ops = &'static str;

/// (access, src ops, dst ops) with ops written as in DESIGN.md: "flush ROP, invalidate L2";
/// "nothing" for no operations; "-" where the side does not apply (reads in a first scope).
fn coherency_at_l2() -> Vec<(&'static str, Ops, Ops)> {
    vec![
        ("SHADER_WRITE", "nothing", "nothing"),
        ("SHADER_READ", "-", "invalidate L1, T$"),
        ("UNIFORM_READ", "-", "invalidate U$"),
        ("INPUT_ATTACHMENT_READ", "-", "invalidate T$"),
        ("INDIRECT_COMMAND_READ", "-", "invalidate L1"),
        ("INDEX_READ", "-", "invalidate L1"),
        ("VERTEX_ATTRIBUTE_READ", "-", "invalidate L1"),
        ("COLOR_ATTACHMENT_WRITE", "flush ROP, invalidate L2", "flush L2, invalidate ROP"),
        ("COLOR_ATTACHMENT_READ", "-", "flush L2, invalidate ROP"),
        ("DEPTH_STENCIL_ATTACHMENT_WRITE", "flush ROP, invalidate L2", "flush L2, invalidate ROP"),
        ("DEPTH_STENCIL_ATTACHMENT_READ", "-", "flush L2, invalidate ROP"),
        ("TRANSFER_WRITE", "invalidate L2", "flush L2"),
        ("TRANSFER_READ", "-", "flush L2"),
        ("HOST_WRITE", "invalidate L2", "flush L2"),
        ("HOST_READ", "-", "flush L2"),
    ]
}

fn coherency_at_vram() -> Vec<(&'static str, Ops, Ops)> {
    vec![
        ("SHADER_WRITE", "flush L2", "invalidate L2"),
        ("SHADER_READ", "-", "invalidate L2, L1, T$"),
        ("UNIFORM_READ", "-", "invalidate L2, U$"),
        ("INPUT_ATTACHMENT_READ", "-", "invalidate L2, T$"),
        ("INDIRECT_COMMAND_READ", "-", "invalidate L2, L1"),
        ("INDEX_READ", "-", "invalidate L2, L1"),
        ("VERTEX_ATTRIBUTE_READ", "-", "invalidate L2, L1"),
        ("COLOR_ATTACHMENT_WRITE", "flush ROP", "invalidate ROP"),
        ("DEPTH_STENCIL_ATTACHMENT_WRITE", "flush ROP", "invalidate ROP"),
        ("COLOR_ATTACHMENT_READ", "-", "invalidate ROP"),
        ("DEPTH_STENCIL_ATTACHMENT_READ", "-", "invalidate ROP"),
        ("TRANSFER_WRITE", "nothing", "nothing"),
        ("TRANSFER_READ", "-", "nothing"),
        ("HOST_WRITE", "nothing", "nothing"),
        ("HOST_READ", "-", "nothing"),
    ]
}

/// DESIGN.md's text for a cell, as a set of (cache, action) in the planner's canonical order.
fn expected_ops(text: &str) -> Vec<(CacheName, CacheAction)> {
    if text == "nothing" || text == "-" {
        return Vec::new();
    }
    let mut ops = Vec::new();
    let mut action = CacheAction::Flush;
    for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        match word {
            "flush" => action = CacheAction::Flush,
            "invalidate" => action = CacheAction::Invalidate,
            cache => ops.push((CacheName::parse(cache).unwrap_or_else(|| panic!("bad cache {cache}")), action)),
        }
    }
    ops.sort_by_key(|(c, _)| CacheName::ALL.iter().position(|x| x == c));
    ops
}

fn check_table(profile_name: &str, table: Vec<(&'static str, Ops, Ops)>) {
    let profile = Profile::builtin(profile_name).unwrap();
    let mut cells = 0;
    for (access_name, src_text, dst_text) in table {
        let access = A::parse(access_name).unwrap();
        for (column, stages) in columns() {
            for stage in stages {
                // Synchronization2 splits VERTEX_INPUT: index reads happen only at INDEX_INPUT,
                // vertex reads only at VERTEX_ATTRIBUTE_INPUT.
                let split_off = (stage == S::INDEX_INPUT && access_name != "INDEX_READ")
                    || (stage == S::VERTEX_ATTRIBUTE_INPUT && access_name != "VERTEX_ATTRIBUTE_READ");
                let legal = legal_columns(access_name).contains(&column) && !split_off;
                let src = plan_barrier(&profile, &MemoryBarrier2::new(stage, access, S::NONE, A::NONE), None);
                let dst = plan_barrier(&profile, &MemoryBarrier2::new(S::NONE, A::NONE, stage, access), None);
                let got = |ops: &[sim_core::profile::CacheOp], scope| {
                    assert!(ops.iter().all(|o| o.scope == scope));
                    ops.iter().map(|o| (o.cache, o.action)).collect::<Vec<_>>()
                };
                let (want_src, want_dst) = if legal { (expected_ops(src_text), expected_ops(dst_text)) } else { (vec![], vec![]) };
                assert_eq!(got(&src, Scope::First), want_src, "{profile_name}: src {access_name} at {stage} ({column})");
                assert_eq!(got(&dst, Scope::Second), want_dst, "{profile_name}: dst {access_name} at {stage} ({column})");
                cells += 1;
            }
        }
    }
    assert!(cells >= 15 * 8);
}

#[test]
fn seed_l2_reproduces_the_coherency_at_l2_table() {
    check_table("seed-l2", coherency_at_l2());
}

#[test]
fn seed_vram_reproduces_the_coherency_at_vram_table() {
    check_table("seed-vram", coherency_at_vram());
}

#[test]
fn the_two_seed_machines_differ_only_where_the_seed_says() {
    let l2 = Profile::builtin("seed-l2").unwrap();
    let vram = Profile::builtin("seed-vram").unwrap();
    // Both tables are written for a transfer engine that reads and writes VRAM beside the L2:
    // the machines are one but for where the ROPs write back (seed-vram's attachment rows flush
    // only the tile caches, so its ROPs write VRAM beside the L2); the tables (and whether a
    // barrier's range limits them) differ.
    assert!(l2.machine.rop.l2_client && !vram.machine.rop.l2_client);
    let mut same = vram.machine.clone();
    same.rop.l2_client = true;
    assert_eq!(l2.machine, same);
    assert_eq!(l2.machine.transfer.path, sim_core::profile::TransferPath::DirectToVram);
    assert_ne!(l2.barriers, vram.barriers);
    assert_eq!(l2.limits, vram.limits);
}

#[test]
fn the_grid_shows_the_seed_cells() {
    let grid = sim_core::profile::grid::table_grid(&Profile::builtin("seed-l2").unwrap());
    assert_eq!(grid.columns.len(), 9, "the seed's eight columns, COMPUTE_SHADER apart");
    assert_eq!(grid.columns[6], "COMPUTE_SHADER");
    let row = grid.rows.iter().find(|r| r.access == "COLOR_ATTACHMENT_WRITE").unwrap();
    assert_eq!(row.cells[5].text(), "src: flush ROP, invalidate L2 / dst: invalidate ROP, flush L2");
    assert_eq!(row.cells[2].text(), "-");
    let read = grid.rows.iter().find(|r| r.access == "SHADER_READ").unwrap();
    assert_eq!(read.cells[2].text(), "dst: invalidate L1, T$");
    assert_eq!(read.cells[0].text(), "-");
    assert_eq!(read.cells[6].text(), "dst: invalidate L1, T$", "COMPUTE_SHADER");
    let write = grid.rows.iter().find(|r| r.access == "SHADER_WRITE").unwrap();
    assert_eq!(write.cells[3].text(), "src: nothing / dst: nothing");
}
