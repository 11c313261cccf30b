//! The access state of one range of addresses, and the sync-validation design's rules on it:
//! hazard detection against the most recent accesses, the update an access makes, the effect of
//! a barrier (with dependency chains), the import of another queue's state through a
//! semaphore, and the removal of accesses a host wait has retired.

use crate::sync::{PipelineStageFlags2 as S, StageAccess, UsageSet};

/// A global sequence number of an access, in the order the detector meets them.
pub type Tag = u32;

/// The queue an access was made on; the host is [`HOST`].
pub type QueueId = u16;

/// The host's "queue".
pub const HOST: QueueId = QueueId::MAX;

/// The most recent write of a range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteAccess {
    /// Its stage and access.
    pub usage: StageAccess,
    /// Its tag.
    pub tag: Tag,
    /// Its queue.
    pub queue: QueueId,
    /// The usages it has been made available and visible to (second access scopes of
    /// barriers that had it in their first scope).
    pub barriers: UsageSet,
    /// The stages a later barrier can chain from (second execution scopes of those barriers).
    pub chain: S,
    /// The stages that wait for it (second execution scopes of barriers whose first execution
    /// scope held it): enough to order accesses made at the device's coherence point.
    pub exec: S,
    /// Made through a `Coherent` storage buffer: available and visible at device scope by
    /// itself (legacy SPIR-V's per-access availability and visibility).
    pub coherent: bool,
    /// Some barrier or signal had it in its first access scope: made available, whether or not
    /// visible to anything.
    pub available: bool,
    /// An atomic operation, through this buffer ([`Atomic`]).
    pub atomic: Atomic,
}

/// Whether an access is an atomic operation, and through which buffer (the trace binds buffers
/// where Vulkan binds descriptors: the buffer stands for the memory model's reference).
pub type Atomic = Option<usize>;

/// Two accesses of the same bytes are mutually-ordered atomic operations: both atomic, through
/// the same reference. The memory model's data race excludes them ("X and Y are not
/// mutually-ordered atomic operations"), so neither needs a dependency on the other. (Shader
/// atomics are taken at device scope: naga's IR keeps no other.)
fn mutually_ordered(a: Atomic, b: Atomic) -> bool {
    a.is_some() && a == b
}

/// A read since the most recent write, one per stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadAccess {
    /// Its stage and access.
    pub usage: StageAccess,
    /// Its tag.
    pub tag: Tag,
    /// Its queue.
    pub queue: QueueId,
    /// The stages that wait for it (second execution scopes of barriers that had it in their
    /// first scope).
    pub barriers: S,
    /// An atomic load, through this buffer.
    pub atomic: Atomic,
}

/// What the detector knows about one range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessState {
    /// The most recent write.
    pub write: Option<WriteAccess>,
    /// The reads since it, one per stage.
    pub reads: Vec<ReadAccess>,
    /// Every stage some barrier has made wait for a read since the write: a read in such a stage
    /// happens after an earlier read that was checked against the write, so it is not checked
    /// again (the most-recent-access rule).
    pub read_barriers: S,
}

/// The kinds of hazard, with the validation layer's ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HazardKind {
    /// A read not made after a write's availability and visibility.
    ReadAfterWrite,
    /// A write not ordered after an earlier read.
    WriteAfterRead,
    /// A write not ordered after an earlier write's availability.
    WriteAfterWrite,
    /// A read racing a write of another queue that nothing orders.
    ReadRacingWrite,
    /// A write racing a write of another queue.
    WriteRacingWrite,
    /// A write racing a read of another queue.
    WriteRacingRead,
}

impl HazardKind {
    /// The validation layer's id.
    pub fn id(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "SYNC-HAZARD-READ-AFTER-WRITE",
            HazardKind::WriteAfterRead => "SYNC-HAZARD-WRITE-AFTER-READ",
            HazardKind::WriteAfterWrite => "SYNC-HAZARD-WRITE-AFTER-WRITE",
            HazardKind::ReadRacingWrite => "SYNC-HAZARD-READ-RACING-WRITE",
            HazardKind::WriteRacingWrite => "SYNC-HAZARD-WRITE-RACING-WRITE",
            HazardKind::WriteRacingRead => "SYNC-HAZARD-WRITE-RACING-READ",
        }
    }
}

/// A hazard found in one range: its kind and the prior access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The kind.
    pub kind: HazardKind,
    /// The prior access's tag.
    pub prior: Tag,
    /// The prior access's usage.
    pub prior_usage: StageAccess,
    /// The prior access is a write some barrier made available (it was in a barrier's first
    /// access scope, or made at the coherence point), only not to this access.
    pub available: bool,
}

/// A barrier's four scopes, expanded and restricted as the specification says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scopes {
    /// First execution scope (stages, expanded to logically earlier ones).
    pub src_exec: S,
    /// First access scope (usages).
    pub src_usages: UsageSet,
    /// Second execution scope (expanded to logically later stages).
    pub dst_exec: S,
    /// Second access scope.
    pub dst_usages: UsageSet,
}

/// The host's usages in a set.
fn host_usages(set: UsageSet) -> UsageSet {
    set.iter().filter(|u| u.stage() == S::HOST).fold(UsageSet::EMPTY, |mut out, u| {
        out.insert(u);
        out
    })
}

impl AccessState {
    /// The hazard an access `usage` on this range makes, if any (the most-recent-access
    /// rules): a read against the write, unless an earlier read in a stage that now waits was
    /// checked already; a write against the reads since the last write, or against the write
    /// when there were none.
    ///
    /// Between two accesses made through `Coherent` storage buffers (`coherent`), an execution
    /// dependency is enough: each makes itself available and visible at device scope. Between
    /// two atomic operations through the same buffer (`atomic`), nothing is needed: they are
    /// never a data race. An atomic against a plain access still is one. An access with an
    /// ordering guarantee (`raster`: its queue and the usages in the guarantee's scope, as
    /// rasterization order gives an attachment access) needs no dependency on an earlier access
    /// of that queue in that scope.
    pub fn detect(&self, usage: StageAccess, coherent: bool, atomic: Atomic, raster: Option<(QueueId, UsageSet)>) -> Option<Conflict> {
        let stage = usage.stage();
        let in_order = |q: QueueId, u: StageAccess| raster.is_some_and(|(rq, scope)| rq == q && scope.contains(u));
        let ordered = |w: &WriteAccess| w.barriers.contains(usage) || (coherent && w.coherent && w.exec.intersects(stage)) || mutually_ordered(atomic, w.atomic) || in_order(w.queue, w.usage);
        if usage.is_write() {
            if !self.reads.is_empty() {
                let unordered = || self.reads.iter().filter(|r| !r.barriers.intersects(stage) && !in_order(r.queue, r.usage));
                if let Some(r) = unordered().find(|r| !mutually_ordered(atomic, r.atomic)) {
                    return Some(Conflict { kind: HazardKind::WriteAfterRead, prior: r.tag, prior_usage: r.usage, available: false });
                }
                // Ordered after every read, so after the write they were checked against. A read
                // passed over as atomic orders nothing: check against the write itself.
                unordered().next()?;
            }
            let w = self.write?;
            return (!ordered(&w)).then_some(Conflict { kind: HazardKind::WriteAfterWrite, prior: w.tag, prior_usage: w.usage, available: w.available || w.coherent });
        }
        let w = self.write?;
        if ordered(&w) {
            return None;
        }
        // The most-recent-access rule, as the layer has it, skips a read in a stage that waits
        // for an earlier read of the write. Visibility does not pass from one read to the next
        // (a barrier that only orders execution after a read that saw the write makes the write
        // visible to nothing), so the skip is kept only where that earlier read was itself
        // reported: one report for one missing dependency.
        if self.reads.iter().any(|r| r.barriers.intersects(stage) && !w.barriers.contains(r.usage)) {
            return None;
        }
        Some(Conflict { kind: HazardKind::ReadAfterWrite, prior: w.tag, prior_usage: w.usage, available: w.available || w.coherent })
    }

    /// The racing hazard an access `usage` makes against this state of another queue `other`,
    /// counting only that queue's accesses after `known` (the last of its tags this queue is
    /// ordered after). Atomic operations through the same buffer (`atomic`) race nothing.
    pub fn detect_racing(&self, usage: StageAccess, other: QueueId, known: Tag, atomic: Atomic) -> Option<Conflict> {
        let unknown = |q: QueueId, t: Tag| q == other && t > known;
        if let Some(w) = self.write
            && unknown(w.queue, w.tag)
            && !mutually_ordered(atomic, w.atomic)
        {
            let kind = if usage.is_write() { HazardKind::WriteRacingWrite } else { HazardKind::ReadRacingWrite };
            return Some(Conflict { kind, prior: w.tag, prior_usage: w.usage, available: false });
        }
        if usage.is_write() {
            let r = self.reads.iter().find(|r| unknown(r.queue, r.tag) && !mutually_ordered(atomic, r.atomic))?;
            return Some(Conflict { kind: HazardKind::WriteRacingRead, prior: r.tag, prior_usage: r.usage, available: false });
        }
        None
    }

    /// The hazard of an image layout transition made by a barrier with scopes `b` on `queue`
    /// (the layer's `DetectBarrierHazard`): the transition writes the range after the barrier's
    /// first scope, so a read since the last write not in the first execution scope (nor
    /// chained) is a write after read, and, when there is none, a last write not in the first
    /// access scope (nor chained) a write after write. `write_in` and `read_in` say which
    /// accesses the first scope can hold at all (an event's set limits them; true for a
    /// pipeline barrier).
    ///
    /// Host writes made before the submission are ordered before every command of it (the
    /// submission's implicit dependency); an earlier transition on the same queue is ordered
    /// before this one (transitions execute in submission order, relative to each other); a
    /// `Coherent` write or an atomic needs only the execution dependency.
    pub fn detect_transition(&self, queue: QueueId, b: &Scopes, write_in: impl Fn(&WriteAccess) -> bool, read_in: impl Fn(&ReadAccess) -> bool) -> Option<Conflict> {
        if !self.reads.is_empty() {
            let held = |r: &ReadAccess| r.queue == HOST || (read_in(r) && ((r.queue == queue && b.src_exec.intersects(r.usage.stage())) || r.barriers.intersects(b.src_exec)));
            let r = self.reads.iter().find(|r| !held(r))?;
            return Some(Conflict { kind: HazardKind::WriteAfterRead, prior: r.tag, prior_usage: r.usage, available: false });
        }
        let w = self.write?;
        if w.queue == HOST || (w.usage.is_layout_transition() && w.queue == queue) {
            return None;
        }
        let chained = w.chain.intersects(b.src_exec);
        let exec = (w.queue == queue && b.src_exec.intersects(w.usage.stage())) || w.exec.intersects(b.src_exec) || chained;
        let held = write_in(&w) && ((w.queue == queue && b.src_usages.contains(w.usage)) || chained || (w.coherent && exec));
        (!held).then_some(Conflict { kind: HazardKind::WriteAfterWrite, prior: w.tag, prior_usage: w.usage, available: w.available || w.coherent })
    }

    /// Records an image layout transition made by a barrier on `queue` whose second scopes are
    /// `dst_exec` and `dst_usages`: the range's most recent write, already made available and
    /// visible to that second scope, with no reads since.
    pub fn record_transition(&mut self, tag: Tag, queue: QueueId, dst_exec: S, dst_usages: UsageSet) {
        let write = WriteAccess {
            usage: StageAccess::IMAGE_LAYOUT_TRANSITION,
            tag,
            queue,
            barriers: dst_usages,
            chain: dst_exec,
            exec: dst_exec,
            coherent: false,
            available: true,
            atomic: None,
        };
        *self = AccessState { write: Some(write), reads: Vec::new(), read_barriers: S::NONE };
    }

    /// Records an access (`coherent`: made at the coherence point, through a `Coherent` storage
    /// buffer or as an atomic; `atomic`: an atomic operation, through that buffer).
    pub fn record(&mut self, usage: StageAccess, tag: Tag, queue: QueueId, coherent: bool, atomic: Atomic) {
        if usage.is_write() {
            let write = WriteAccess { usage, tag, queue, barriers: UsageSet::EMPTY, chain: S::NONE, exec: S::NONE, coherent, available: false, atomic };
            *self = AccessState { write: Some(write), reads: Vec::new(), read_barriers: S::NONE };
            return;
        }
        let read = ReadAccess { usage, tag, queue, barriers: S::NONE, atomic };
        match self.reads.iter_mut().find(|r| r.usage.stage() == usage.stage()) {
            Some(r) => *r = read,
            None => self.reads.push(read),
        }
    }

    /// Applies the barriers of one synchronization command made on `queue`, all against the
    /// state as it was before the command (one barrier of a command does not chain into
    /// another). A write is in a barrier's first scope when it was made on this queue in the
    /// first access scope, or when the first execution scope meets its dependency chain; a read
    /// when it was made on this queue in the first execution scope, or the scope meets the
    /// stages that already wait for it. `tag_limit` keeps accesses after it out (the accesses
    /// a vkCmdSetEvent2 preceded, for its wait).
    pub fn apply_barriers(&mut self, queue: QueueId, barriers: &[Scopes], in_scope: impl Fn(Tag) -> bool) {
        if let [only] = barriers {
            // One barrier: nothing to keep apart, so no copy of the state.
            self.apply_one(queue, only, &in_scope);
            return;
        }
        let before = self.clone();
        for b in barriers {
            if let (Some(w), Some(nw)) = (before.write, self.write.as_mut())
                && in_scope(w.tag)
            {
                if (w.queue == queue && b.src_usages.contains(w.usage)) || w.chain.intersects(b.src_exec) {
                    nw.barriers = nw.barriers.union(b.dst_usages);
                    nw.chain |= b.dst_exec;
                    nw.available = true;
                }
                if (w.queue == queue && b.src_exec.intersects(w.usage.stage())) || w.exec.intersects(b.src_exec) || w.chain.intersects(b.src_exec) {
                    nw.exec |= b.dst_exec;
                }
            }
            for (r, nr) in before.reads.iter().zip(self.reads.iter_mut()) {
                if in_scope(r.tag) && ((r.queue == queue && b.src_exec.intersects(r.usage.stage())) || r.barriers.intersects(b.src_exec)) {
                    nr.barriers |= b.dst_exec;
                    self.read_barriers |= b.dst_exec;
                }
            }
        }
    }

    fn apply_one(&mut self, queue: QueueId, b: &Scopes, in_scope: &impl Fn(Tag) -> bool) {
        if let Some(w) = self.write.as_mut()
            && in_scope(w.tag)
        {
            let (chained, stage) = (w.chain.intersects(b.src_exec), w.usage.stage());
            let exec = (w.queue == queue && b.src_exec.intersects(stage)) || w.exec.intersects(b.src_exec) || chained;
            if (w.queue == queue && b.src_usages.contains(w.usage)) || chained {
                w.barriers = w.barriers.union(b.dst_usages);
                w.chain |= b.dst_exec;
                w.available = true;
            }
            if exec {
                w.exec |= b.dst_exec;
            }
        }
        for r in &mut self.reads {
            if in_scope(r.tag) && ((r.queue == queue && b.src_exec.intersects(r.usage.stage())) || r.barriers.intersects(b.src_exec)) {
                r.barriers |= b.dst_exec;
                self.read_barriers |= b.dst_exec;
            }
        }
    }

    /// This state as a queue waiting on a semaphore sees it: accesses in the signal's first
    /// scope (made on the signalling queue in `src_exec`, or chained) get the wait's second
    /// scopes; the others get nothing. Accesses of the waiting queue itself keep what they had
    /// and gain the wait's scopes when in the signal's (a signal and wait on one queue act as an
    /// event).
    pub fn imported(&self, signal_queue: QueueId, src_exec: S, waiting: QueueId, dst_exec: S, dst_usages: UsageSet) -> AccessState {
        let mut s = self.clone();
        if let Some(w) = s.write.as_mut() {
            let in_scope = (w.queue == signal_queue && src_exec.intersects(w.usage.stage())) || w.chain.intersects(src_exec) || w.exec.intersects(src_exec);
            if w.queue == waiting {
                if in_scope {
                    w.barriers = w.barriers.union(dst_usages);
                    w.chain |= dst_exec;
                    w.exec |= dst_exec;
                    w.available = true;
                }
            } else if in_scope {
                // What the host can see stays as the signalling queue made it.
                w.barriers = dst_usages.union(host_usages(w.barriers));
                w.chain = dst_exec;
                w.exec = dst_exec;
                w.available = true;
            } else {
                w.barriers = host_usages(w.barriers);
                w.chain = S::NONE;
                w.exec = S::NONE;
            }
        }
        s.read_barriers = S::NONE;
        for r in &mut s.reads {
            let in_scope = (r.queue == signal_queue && src_exec.intersects(r.usage.stage())) || r.barriers.intersects(src_exec);
            if r.queue == waiting {
                if in_scope {
                    r.barriers |= dst_exec;
                }
            } else {
                r.barriers = if in_scope { dst_exec } else { S::NONE };
            }
            s.read_barriers |= r.barriers;
        }
        s
    }

    /// Merges another context's state of the same range: the later write wins; with the same
    /// write, reads are united (the later per stage) and barriers too.
    pub fn resolve(&mut self, other: &AccessState) {
        let tag = |s: &AccessState| s.write.map(|w| w.tag);
        match tag(other).cmp(&tag(self)) {
            std::cmp::Ordering::Greater => *self = other.clone(),
            std::cmp::Ordering::Less => {}
            std::cmp::Ordering::Equal => {
                if let (Some(w), Some(o)) = (self.write.as_mut(), other.write) {
                    w.barriers = w.barriers.union(o.barriers);
                    w.chain |= o.chain;
                    w.exec |= o.exec;
                }
                for o in &other.reads {
                    match self.reads.iter_mut().find(|r| r.usage.stage() == o.usage.stage()) {
                        Some(r) if r.tag < o.tag => *r = *o,
                        Some(r) if r.tag == o.tag => r.barriers |= o.barriers,
                        Some(_) => {}
                        None => self.reads.push(*o),
                    }
                }
                self.read_barriers |= other.read_barriers;
            }
        }
    }

    /// Removes the accesses `done` says a host wait has retired; returns the write when it was
    /// removed.
    pub fn retire(&mut self, done: impl Fn(QueueId, Tag) -> bool) -> Option<WriteAccess> {
        self.reads.retain(|r| !done(r.queue, r.tag));
        let w = self.write.filter(|w| done(w.queue, w.tag));
        if w.is_some() {
            self.write = None;
        }
        if self.reads.is_empty() {
            self.read_barriers = S::NONE;
        }
        w
    }
}
