//! Directed schedules: a run aimed at one hazard, using a freedom the program leaves (the prior
//! command held until the hazardous one is done; the reader's cache primed with the bytes from
//! before the write; a transfer's writes held in flight), legal only where the program allows it.

use serde::Serialize;

use crate::api::program::Program;
use crate::engine::machine;
use crate::profile::Profile;
use crate::engine::reference::instance_touches;
use crate::engine::{order, reference, run, stream};

/// How a schedule was directed at a hazard ([`RunOptions::directed`](crate::engine::RunOptions::directed)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "how")]
pub enum Direction {
    /// Nothing orders the two commands: the prior one was held until the hazardous one was
    /// done, and actions launched in any order their dependencies allow.
    Hold,
    /// The commands are ordered but the read is not made visible: the reader's cache (`cache`,
    /// on every CU) held the bytes from before the write, read just before the writer started.
    Prime {
        /// The cache: `L1`, `T$` or `U$`.
        cache: &'static str,
    },
    /// The commands are ordered but the earlier one's writes were made available to nothing:
    /// its writes to the hazard's bytes were held in flight until the later command was done
    /// (a read then sees the bytes from before them; a write lands first, and they over it).
    Delay,
}

/// Whether a directed schedule may hold the writes of hazard `h`'s earlier command `p` to
/// `range` in flight until its later command `a` is done (on a machine with an L2). Only what nothing made available may
/// stay in flight, and only where no one else could tell: `p` is a transfer (its writes are
/// moved whole, by the transfer engine), the write is in no barrier's first access scope, both
/// commands are in one batch of one submission (no signal between them makes anything
/// available), and every other command that touches the bytes and runs after `p` runs after `a`
/// as well.
#[allow(clippy::too_many_arguments)]
pub(crate) fn delay_legal(
    prog: &Program<'_>,
    stream: &stream::Stream,
    order: &order::Order,
    accesses: &std::collections::HashMap<usize, reference::DispatchAccesses>,
    h: &crate::hazard::Hazard,
    (ip, np): (usize, usize),
    (ia, na): (usize, usize),
    range: (u64, u64),
) -> bool {
    let transfer = prog.action(ip).is_some_and(|a| a.work.is_transfer());
    let (cp, ca) = (&prog.instances[ip].at, &prog.instances[ia].at);
    if !transfer || h.prior_made_available || cp.submit != ca.submit || cp.batch != ca.batch || stream.nodes[np].queue != stream.nodes[na].queue {
        return false;
    }
    let touches = |x: usize| instance_touches(prog, accesses, x, range);
    (0..prog.instances.len()).filter(|&x| x != ip && x != ia).all(|x| {
        let nx = order.node_of(x);
        nx == usize::MAX || !order.node_before_node(np, nx) || order.node_before_node(na, nx) || !touches(x)
    })
}

/// A schedule directed at a hazard: which, how, and what the simulated run is told.
pub(crate) struct Directed {
    pub(crate) hazard: usize,
    pub(crate) direction: Direction,
    /// Hold node `.0` until node `.1` is done.
    pub(crate) hold: Option<(usize, usize)>,
    /// Fill the reader's caches when the writer starts.
    pub(crate) prime: Option<crate::engine::units::Prime>,
    /// Hold instance `.0`'s writes to range `.1` until node `.2` is done.
    pub(crate) delay: Option<(usize, (u64, u64), usize)>,
}

/// The schedule directed at hazard `k`, if the program leaves it a freedom ([`Direction`]).
pub(crate) fn direct(
    prog: &Program<'_>,
    stream: &stream::Stream,
    profile: &Profile,
    sim: &run::Sim<'_, '_>,
    accesses: &std::collections::HashMap<usize, reference::DispatchAccesses>,
    hazards: &[crate::hazard::Hazard],
    k: usize,
) -> Option<Directed> {
    let h = hazards.get(k)?;
    let (crate::hazard::Place::Command(p), crate::hazard::Place::Command(a)) = (&h.prior, &h.at) else { return None };
    let order = order::Order::new(prog, stream);
    let (ip, ia) = (prog.instance_of(p)?, prog.instance_of(a)?);
    // A layout transition ordered after nothing is seen by the next command of its queue that
    // accesses the transitioned bytes: the schedule is aimed at that command.
    let (ia, usage) = if h.usage.is_layout_transition() { next_access(prog, stream, ia, h.device_range(prog)?)? } else { (ia, h.usage) };
    let (np, na) = (order.node_of(ip), order.node_of(ia));
    if np == usize::MAX || na == usize::MAX {
        return None;
    }
    let directed = |direction| Directed { hazard: k, direction, hold: None, prime: None, delay: None };
    // Not ordered by dependencies, nor through the host (a wait for P before A's submission):
    // holding P then would wait forever.
    let ordered = order.node_before_node(np, na) || order.before(order::Agent::Node(np), order::Agent::Host(stream.nodes[na].from));
    if !ordered {
        return Some(Directed { hold: Some((np, na)), ..directed(Direction::Hold) });
    }
    if !h.prior_usage.is_write() {
        return None;
    }
    let range = h.device_range(prog)?;
    if !usage.is_write()
        && let Some(path) = reader_path(usage)
        && let Some(cache) = sim.reader_cache(path)
        && (path != machine::PathName::ShaderTransferRead || runs_as_shader(prog, profile, ia))
    {
        return Some(Directed { prime: Some(crate::engine::units::Prime { node: np, path, range }), ..directed(Direction::Prime { cache: cache.name() }) });
    }
    // In flight on a machine with a memory hierarchy to be in flight in (the ideal machine, with
    // no caches, makes every access at once).
    profile.machine.l2.cache.as_ref()?;
    delay_legal(prog, stream, &order, accesses, h, (ip, np), (ia, na), range).then(|| Directed { delay: Some((ip, range, na)), ..directed(Direction::Delay) })
}

/// The first action after instance `inst` on its queue (in submission order) with a usage that
/// meets device addresses `range`, and that usage.
fn next_access(prog: &Program<'_>, stream: &stream::Stream, inst: usize, range: (u64, u64)) -> Option<(usize, crate::sync::StageAccess)> {
    let queue = stream.nodes.iter().find(|n| matches!(&n.kind, stream::NodeKind::Sync(y) if y.inst == Some(inst)))?.queue;
    let r = range.0..range.0 + range.1;
    stream.nodes.iter().filter(|n| n.queue == queue).find_map(|n| match n.kind {
        stream::NodeKind::Action { inst: x, .. } if x > inst => prog.action(x)?.usages.iter().find(|u| u.range.start < r.end && r.start < u.range.end).map(|u| (x, u.usage)),
        _ => None,
    })
}

/// Whether the driver runs some part of transfer instance `inst` as a shader.
pub(crate) fn runs_as_shader(prog: &Program<'_>, profile: &Profile, inst: usize) -> bool {
    let t = &profile.machine.transfer;
    // An empty piece moves no chunk, so nothing of it runs anywhere.
    prog.action(inst).is_some_and(|a| a.work.transfer_sizes().into_iter().any(|n| n > 0 && t.runs_as_shader(n)))
}

/// The path a read of `usage` takes.
pub(crate) fn reader_path(usage: crate::sync::StageAccess) -> Option<machine::PathName> {
    use crate::sync::AccessFlags2 as A;
    let a = usage.access();
    if a.intersects(A::UNIFORM_READ) {
        Some(machine::PathName::Uniform)
    } else if a.intersects(A::SHADER_SAMPLED_READ | A::INPUT_ATTACHMENT_READ) {
        Some(machine::PathName::Sampled)
    } else if a.intersects(A::SHADER_STORAGE_READ | A::SHADER_READ) {
        Some(machine::PathName::Storage)
    } else if a.intersects(A::TRANSFER_READ) {
        // A per-CU cache only where the driver runs transfers as shaders reading through one.
        Some(machine::PathName::ShaderTransferRead)
    } else {
        None
    }
}
