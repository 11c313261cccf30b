//! The machine's units, each owning its state and its behaviour: the host ([`host`]), each
//! queue's command processor ([`cp`]: launching nodes, firing sync nodes), the transfer engine
//! ([`transfer`]) and the compute units ([`compute`]: placing workgroups, stepping subgroups).
//!
//! # Design
//! A unit starts the actions the command processors launch and handles its own events, through
//! a [`Cx`]: the time, scheduling, the machine's memory system, the observers, the run's budgets,
//! the queues, and a directed schedule's holds. The event loop (`run.rs`) only pops the next
//! event and hands it to its unit. Unit ids come from the [`Registry`] (the host, each queue's
//! command processor, the transfer engine, then each CU); events are ordered by (cycle, unit,
//! the unit's own count of events it scheduled), so no count is shared between units and each
//! unit draws from its own random stream of the seed. Adding a unit is a file here, a registry
//! line and an event kind.
//!
//! ```text
//!   run.rs: pop (cycle, unit, seq, event) ──> the unit's handler(event, Cx)
//!                                                 │  Cx: now, schedule, machine, observers,
//!                                                 │      budget, command processors, holds
//!     host ── submits ──> cp ── launches ──> transfer | compute ── memory ──> machine.rs
//!                          └── fires sync nodes: cache operations ──────────> machine.rs
//! ```

pub mod compute;
pub mod cp;
pub mod graphics;
pub mod host;
pub mod transfer;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sim_caches::{Tag, word_span};

use crate::api::error::WorkloadError;
use crate::api::program::Program;
use crate::engine::limits::RunBudget;
use crate::engine::machine::{Machine, PathName};
use crate::engine::oracle::Observers;
use crate::engine::stream::{NodeKind, Stream};
use crate::profile::Profile;
use cp::CommandProcessors;

/// An event of a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ev {
    /// A command processor releases queue item `.0` (a sync node's operations are done, an
    /// action finished).
    Release(usize),
    /// The transfer engine moves the next chunk of run `.0`.
    Transfer(usize),
    /// A CU steps subgroup `.1` of the workgroup in slot `.0`.
    Step(usize, usize),
    /// The host looks again: its next operation may proceed.
    Host,
    /// Queue item `.0`'s attachment writes land (the graphics units).
    Land(usize),
}

/// Unit ids: the host 0, queue q's command processor 1 + q, the transfer engine after them, then
/// the CUs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Registry {
    queues: usize,
    cus: usize,
}

impl Registry {
    /// The units of a machine with `queues` queues and `cus` compute units.
    pub(crate) fn new(queues: usize, cus: usize) -> Registry {
        Registry { queues, cus }
    }

    /// How many units there are.
    pub(crate) fn count(&self) -> usize {
        2 + self.queues + self.cus
    }

    /// The host.
    pub(crate) fn host(&self) -> usize {
        0
    }

    /// Queue `q`'s command processor.
    pub(crate) fn command_processor(&self, q: usize) -> usize {
        1 + q
    }

    /// The transfer engine.
    pub(crate) fn transfer(&self) -> usize {
        1 + self.queues
    }

    /// Compute unit `cu`.
    pub(crate) fn cu(&self, cu: usize) -> usize {
        2 + self.queues + cu
    }
}

/// The simulated time and the events to come.
pub(crate) struct Clock {
    /// The current cycle.
    pub(crate) now: u64,
    /// Per unit: how many events it has scheduled.
    seq: Vec<u64>,
    events: BinaryHeap<Reverse<(u64, u32, u64, Ev)>>,
    /// Something changed that may let the host proceed, an item start or a workgroup be placed.
    pub(crate) dirty: bool,
    /// The units.
    pub(crate) units: Registry,
}

impl Clock {
    /// Cycle 0, nothing scheduled.
    pub(crate) fn new(units: Registry) -> Clock {
        Clock { now: 0, seq: vec![0; units.count()], events: BinaryHeap::new(), dirty: true, units }
    }

    /// Unit `unit`'s event `ev` at cycle `at`.
    pub(crate) fn schedule(&mut self, at: u64, unit: usize, ev: Ev) {
        self.seq[unit] += 1;
        self.events.push(Reverse((at, unit as u32, self.seq[unit], ev)));
    }

    /// The next event and its cycle.
    pub(crate) fn pop(&mut self) -> Option<(u64, Ev)> {
        self.events.pop().map(|Reverse((t, _, _, ev))| (t, ev))
    }
}

/// A directed choice: the caches a reader goes through hold a range's bytes from before a
/// write, as if something had read them just before the writer started (any cache may hold
/// any line it was never told to drop: a prefetch, or an earlier read of a neighbour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prime {
    /// The writer's node: the lines are read when it starts.
    pub node: usize,
    /// The reader's path: its per-CU cache is the one primed, on every CU.
    pub path: PathName,
    /// Device addresses.
    pub range: (u64, u64),
}

/// What a directed schedule holds back while the run goes on.
#[derive(Default)]
pub(crate) struct Holds {
    /// When node `.node` starts, every CU's cache on `.path` reads `.range` first.
    pub(crate) primes: Vec<Prime>,
    /// A directed schedule's held-back transfer writes reach the machine when this node is done.
    pub(crate) release_at: Option<usize>,
    /// That node is done: the event loop releases the writes.
    pub(crate) due: bool,
}

/// What a unit's handler works with.
pub(crate) struct Cx<'a, 'p, 'w> {
    /// The program.
    pub(crate) prog: &'p Program<'w>,
    /// Its lowered stream.
    pub(crate) stream: &'p Stream,
    /// The machine's profile: costs, policies, the barrier table.
    pub(crate) profile: &'p Profile,
    /// The memory system.
    pub(crate) machine: &'a mut Machine,
    /// Time and scheduling.
    pub(crate) clock: &'a mut Clock,
    /// Everyone told of the run's reads, writes, sync nodes and spans.
    pub(crate) observers: &'a mut Observers<'p>,
    /// The queues.
    pub(crate) cp: &'a mut CommandProcessors,
    /// The run's budgets.
    pub(crate) budget: &'a mut RunBudget,
    /// A directed schedule's holds.
    pub(crate) holds: &'a mut Holds,
}

impl Cx<'_, '_, '_> {
    /// The current cycle.
    pub(crate) fn now(&self) -> u64 {
        self.clock.now
    }

    /// Queue item `i` is released at cycle `at` by its queue's command processor.
    pub(crate) fn release(&mut self, at: u64, i: usize) {
        let unit = self.clock.units.command_processor(self.cp.queue_of(i));
        self.clock.schedule(at, unit, Ev::Release(i));
    }

    /// Queue item `i`'s attachment writes land at cycle `at` (an event of its queue's command
    /// processor, which orders them with its releases).
    pub(crate) fn land(&mut self, at: u64, i: usize) {
        let unit = self.clock.units.command_processor(self.cp.queue_of(i));
        self.clock.schedule(at, unit, Ev::Land(i));
    }

    /// The host looks again at cycle `at`.
    pub(crate) fn wake_host(&mut self, at: u64) {
        let unit = self.clock.units.host();
        self.clock.schedule(at, unit, Ev::Host);
    }

    /// Queue item `i` is done now: an action's span is told, and a directed schedule's held
    /// writes waiting for it become due.
    pub(crate) fn finish(&mut self, i: usize) {
        self.cp.finish(i);
        // Held-back writes are released by the event loop, which can report an error.
        self.holds.due |= self.holds.release_at == Some(i);
        if let NodeKind::Action { inst, .. } = self.stream.nodes[i].kind {
            let start = self.cp.start_of(i);
            self.observers.span(inst, start, self.clock.now);
        }
        self.clock.dirty = true;
    }

    /// Performs the primes of node `i`, which is starting: each CU's cache on the prime's path
    /// reads the range (at most that cache's size, from its end), untimed and unobserved.
    pub(crate) fn prime(&mut self, i: usize) -> Result<(), WorkloadError> {
        const PIECE: u64 = 64;
        for k in 0..self.holds.primes.len() {
            let Prime { node, path, range: (addr, size) } = self.holds.primes[k];
            if node != i {
                continue;
            }
            let Some(cache) = self.machine.path(path).cu_cache() else { continue };
            let capacity = self.machine.cus.first().and_then(|u| u.cache(cache)).map_or(0, |c| c.spec().size_bytes);
            let start = addr.max((addr + size).saturating_sub(capacity)) / PIECE * PIECE;
            let mut data = [0u8; PIECE as usize];
            let mut tags = [0 as Tag; PIECE as usize / 4 + 1];
            for cu in 0..self.machine.cus.len() {
                let mut a = start;
                while a < addr + size {
                    let span = word_span(a, PIECE as usize);
                    self.machine.load(path, cu, self.clock.now, a, &mut data, &mut tags[..span], 0).map_err(|e| exec_err("a directed schedule's primed cache", e))?;
                    a += PIECE;
                }
            }
        }
        Ok(())
    }
}

/// An error of the simulated run at `at`.
pub(crate) fn exec_err(at: impl Into<String>, e: impl std::fmt::Display) -> WorkloadError {
    WorkloadError::Execution { at: at.into(), message: e.to_string() }
}
