//! The truth oracle: whether a read of the simulated run is stale, racing, or legitimately
//! different from the reference run.
//!
//! # Design
//! A read is compared with the reference run's same read (same command instance, workgroup,
//! subgroup and load index, or same copy chunk) through three fingerprints the reference
//! recorded: of the bytes, of where it read, of whose writes it read.
//!
//! ```text
//!   same bytes                         -> nothing to say
//!   same places, other writers         -> the read saw another write than the reference's:
//!                                         a stale read (its writer older, in happens-before,
//!                                         than the expected one) or a race
//!   same places and writers, other     -> the writers' own output depends on timing (atomics
//!     bytes                               that pick a winner, the order of their invocations):
//!                                         not stale, unless a writer itself read stale bytes
//!                                         (then the reader is tainted too)
//!   no such read, or other places      -> the read exists (or reads there) because of timing:
//!                                         judged by the memory model alone: stale when a byte
//!                                         came from a write W although another write W' of it
//!                                         happens after W and before the read
//! ```
//! The last verdict needs every writer of a word: the [`WriteLog`] keeps, per provenance tag,
//! the word ranges it wrote. Once a subgroup has read stale bytes, its later reads with no
//! counterpart are the reference's road not taken: the subgroup *diverged*, said once.

use sim_caches::Tag;

use crate::engine::order::{Agent, Order};

/// How a read compares with the reference run's same read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The same bytes.
    Same,
    /// The same places and writers, other bytes: the writers' output depends on timing.
    SameWriters,
    /// The same places, other writers.
    OtherWriters,
    /// The reference made no such read, or read other places.
    NoCounterpart,
}

/// Compares a read with the reference's fingerprints of it; `writers` makes the read's
/// writers' fingerprint, asked for only when the bytes differ.
pub fn verdict(reference: Option<&crate::engine::run::ReadPrint>, bytes: u64, addrs: u64, writers: impl FnOnce() -> u64) -> Verdict {
    match reference {
        Some(r) if r.bytes == bytes => Verdict::Same,
        Some(r) if r.addrs == addrs => {
            if r.writers == writers() { Verdict::SameWriters } else { Verdict::OtherWriters }
        }
        _ => Verdict::NoCounterpart,
    }
}

/// The most ranges the write log keeps; beyond it, reads with no counterpart are no longer
/// judged (they are taken as correct) and [`WriteLog::complete`] says so.
pub const MAX_WRITE_LOG_RANGES: usize = 1 << 24;

/// Per provenance tag, the byte ranges (whole words) it wrote, for the memory-model verdict.
#[derive(Default)]
pub struct WriteLog {
    ranges: Vec<Vec<(u64, u64)>>,
    sorted: Vec<bool>,
    total: usize,
    overflowed: bool,
}

impl WriteLog {
    /// A log for `tags` provenance tags.
    pub fn new(tags: usize) -> WriteLog {
        WriteLog { ranges: vec![Vec::new(); tags], sorted: vec![true; tags], total: 0, overflowed: false }
    }

    /// Records that `tag` wrote `[addr, addr + len)` (widened to whole words).
    pub fn add(&mut self, tag: Tag, addr: u64, len: u64) {
        let (start, end) = (addr & !3, (addr + len + 3) & !3);
        let Some(list) = self.ranges.get_mut(tag as usize) else { return };
        if let Some(last) = list.last_mut() {
            // Consecutive stores extend one range.
            if start <= last.1 && start >= last.0 {
                last.1 = last.1.max(end);
                return;
            }
        }
        if self.total >= MAX_WRITE_LOG_RANGES {
            self.overflowed = true;
            return;
        }
        if list.last().is_some_and(|l| l.0 > start) {
            self.sorted[tag as usize] = false;
        }
        list.push((start, end));
        self.total += 1;
    }

    /// Whether every write was logged.
    pub fn complete(&self) -> bool {
        !self.overflowed
    }

    /// Whether `tag` wrote the word at `addr`.
    fn wrote(&mut self, tag: usize, addr: u64) -> bool {
        if !self.sorted[tag] {
            let list = &mut self.ranges[tag];
            list.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(list.len());
            for &(s, e) in list.iter() {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            *list = merged;
            self.sorted[tag] = true;
        }
        let list = &self.ranges[tag];
        let i = list.partition_point(|r| r.1 <= addr);
        list.get(i).is_some_and(|r| r.0 <= addr)
    }

    /// The memory model's verdict on a word that `reader` read at `addr`, seeing the write of
    /// `seen`: the latest write (in happens-before) of that word that happens after `seen` and
    /// before the read, if there is one (then the read is stale).
    pub fn newer_write(&mut self, order: &Order<'_>, reader: Agent, reader_tag: Tag, addr: u64, seen: Tag) -> Option<Tag> {
        if seen == reader_tag {
            return None;
        }
        let seen_agent = order.agent(seen);
        let mut best: Option<Tag> = None;
        for t in 0..self.ranges.len() {
            let tag = t as Tag;
            if tag == seen || tag == reader_tag || self.ranges[t].is_empty() || !self.wrote(t, addr) {
                continue;
            }
            let a = order.agent(tag);
            if order.before(a, reader) && order.before(seen_agent, a) && best.is_none_or(|b| order.before(order.agent(b), a)) {
                best = Some(tag);
            }
        }
        best
    }
}
