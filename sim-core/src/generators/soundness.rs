//! Is a barrier table right for its machine? Random correctly synchronized programs
//! ([`super::random`]) run on the profile; any corruption means the machine, not the program,
//! is at fault (a table row that misses a flush or an invalidate, or caches that lose bytes
//! they were never given), and the program is shrunk to the fewest operations that still show
//! it. Rows no program needs (removing them corrupts nothing) measure how conservative the
//! table is.
//!
//! # Design
//! Program `i` of seed `s` is a function of `(s, i)` alone ([`program`]), and each program runs
//! on schedule seeds `0..schedules`: a check is the same on every host and thread count, and a
//! failure is named by `(s, i)`. Shrinking removes one operation at a time, from the end, and
//! keeps each removal after which some schedule still corrupts (operations only ever add
//! synchronization for what they touch, so a smaller program is still correctly synchronized).

use crate::generators::random::{Op, build, random_ops};
use crate::engine::rng::Rng;
use crate::engine::{RunResult, run_workload};
use crate::api::{WorkloadError};
use crate::profile::Profile;

/// Program `index` of check seed `seed`: between 1 and `max_ops` random operations.
pub fn program(seed: u64, index: u64, max_ops: usize) -> Vec<Op> {
    let mut rng = Rng::for_unit(seed, &format!("program {index}"));
    let n = 1 + rng.below(max_ops.max(1) as u64) as usize;
    random_ops(&mut rng, n)
}

/// The first schedule seed in `0..schedules` on which the program of `ops` differs from its
/// reference run on `profile`, with that run.
pub fn corrupts(profile: &Profile, ops: &[Op], schedules: u64) -> Result<Option<(u64, RunResult)>, WorkloadError> {
    let w = build(ops);
    for s in 0..schedules.max(1) {
        let r = run_workload(&w, profile, s)?;
        if r.corrupted() || r.host_reads.iter().any(|h| h.differing_bytes > 0) {
            return Ok(Some((s, r)));
        }
    }
    Ok(None)
}

/// The fewest operations of `ops` (a program that corrupts on `profile`) that still corrupt:
/// each operation removed, last first, while some schedule still corrupts without it.
pub fn shrink(profile: &Profile, ops: &[Op], schedules: u64) -> Result<Vec<Op>, WorkloadError> {
    let mut ops = ops.to_vec();
    loop {
        let mut removed = false;
        for k in (0..ops.len()).rev() {
            let mut fewer = ops.clone();
            fewer.remove(k);
            if !fewer.is_empty() && corrupts(profile, &fewer, schedules)?.is_some() {
                ops = fewer;
                removed = true;
            }
        }
        if !removed {
            return Ok(ops);
        }
    }
}

/// `profile` without barrier-table row `row`.
pub fn without_row(profile: &Profile, row: usize) -> Profile {
    let mut p = profile.clone();
    if row < p.barriers.rows.len() {
        p.barriers.rows.remove(row);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Programs depend on the seed and the index only; a built-in profile is sound for them; a
    /// table without its L2 invalidate for transfer writes is not, and the shrunk program is
    /// smaller and still corrupts.
    #[test]
    fn programs_are_fixed_and_a_broken_table_is_caught() {
        assert_eq!(program(7, 3, 8), program(7, 3, 8));
        assert_ne!(program(7, 3, 8), program(7, 4, 8));
        let p = Profile::builtin("seed-vram").expect("built-in");
        for i in 0..12 {
            assert!(corrupts(&p, &program(1, i, 8), 2).unwrap().is_none(), "program {i}");
        }
        // seed-l2 without "SHADER_READ: invalidate L1, T$": a fill then a read through a warm L1.
        let l2 = Profile::builtin("seed-l2").expect("built-in");
        let row = l2.barriers.rows.iter().position(|r| r.access.to_string() == "SHADER_READ").expect("a SHADER_READ row");
        let broken = without_row(&l2, row);
        let ops = vec![
            Op::Add { src: 0, dst: 1 },
            Op::Fill { dst: 0, value: 9 },
            Op::Copy { src: 2, dst: 3 },
            Op::Add { src: 0, dst: 2 },
        ];
        assert!(corrupts(&broken, &ops, 4).unwrap().is_some(), "the L1 keeps the bytes from before the fill");
        let small = shrink(&broken, &ops, 4).unwrap();
        assert!(small.len() < ops.len() && !small.contains(&Op::Copy { src: 2, dst: 3 }), "{small:?}");
        assert!(corrupts(&broken, &small, 4).unwrap().is_some());
    }
}
