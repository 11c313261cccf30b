//! Happens-before over the lowered stream: which writes a read is ordered after.
//!
//! # Design
//! The memory-model oracle asks one question: given a word's writer `W` and a reader `R`, does
//! `W` happen before `R`? Writers and readers are device nodes (command instances) or host
//! operations (timeline indices); the initial zeroes happen before everything.
//!
//! ```text
//!   node  -> node   a path of dependencies (Stream::deps, explicit edges included)
//!   host t -> node  some ancestor-or-self of the node was added (or, a host gate, opened)
//!                   by a host operation after t: host_before[node] > t
//!   node  -> host t a host wait before t waited for a descendant-or-self of the node:
//!                   waited[node] < t
//!   host  -> host   timeline order
//! ```
//! This is execution order, the execution-dependency formalization's paths; availability and
//! visibility (the access masks) are the hazard detector's part. Ancestor sets are walked
//! with the stream's (queue, family, stage) lists: every dependency is a prefix of one list, so
//! a walk that remembers how much of each list it has taken costs linear time.

use std::cell::RefCell;
use std::collections::HashMap;

use sim_caches::Tag;

use crate::api::program::{Program, Writer};
use crate::engine::stream::{Family, NodeKind, Stream, bits};

/// Who performed an access, as happens-before sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Nobody: the initial zeroes.
    Initial,
    /// A node of the stream (a command instance's action).
    Node(usize),
    /// A host operation, by timeline index.
    Host(usize),
}

/// Happens-before queries over a program's stream.
pub struct Order<'s> {
    stream: &'s Stream,
    /// Per node: the latest host operation that happens before it, plus one (0: none).
    host_before: Vec<usize>,
    /// Per node: the first host wait that waits for it (`usize::MAX`: none).
    waited: Vec<usize>,
    /// Per provenance tag: who wrote it.
    agents: Vec<Agent>,
    /// Per command instance: its node.
    inst_node: Vec<usize>,
    /// Ancestor sets asked for, by node (bit per node).
    ancestors: RefCell<HashMap<usize, Vec<u64>>>,
}

/// The most ancestor sets kept at once (each a bit per node); the cache starts over beyond.
const MAX_CACHED_ANCESTOR_SETS: usize = 256;

impl<'s> Order<'s> {
    /// Builds the queries for `stream`, lowered from `prog`.
    pub fn new(prog: &Program<'_>, stream: &'s Stream) -> Order<'s> {
        let n = stream.nodes.len();
        let mut inst_node = vec![usize::MAX; prog.instances.len()];
        for (i, node) in stream.nodes.iter().enumerate() {
            if let NodeKind::Action { inst, .. } = node.kind {
                inst_node[inst] = i;
            }
        }
        let mut agents: Vec<Agent> = prog
            .writers
            .iter()
            .map(|w| match w {
                Writer::Host { timeline } => Agent::Host(*timeline),
                Writer::Initial | Writer::Command(_) => Agent::Initial,
            })
            .collect();
        for (inst, ins) in prog.instances.iter().enumerate() {
            if let Some(a) = agents.get_mut(ins.tag as usize) {
                *a = Agent::Node(inst_node[inst]);
            }
        }

        // host_before: a forward pass, each list's running maximum standing for its prefix.
        let mut host_before = vec![0usize; n];
        let mut list_max: Vec<[Vec<usize>; 2]> = (0..stream.queues).map(|_| [vec![0; 64], vec![0; 64]]).collect();
        // The sync lists as they stood at the first sync node of a pipeline barrier's
        // dependencies: its siblings wait on that prefix, not on each other.
        let mut syncs_before: Vec<usize> = Vec::new();
        for i in 0..n {
            let node = &stream.nodes[i];
            if node.siblings_from == i && stream.nodes.get(i + 1).is_some_and(|next| next.siblings_from == i) {
                syncs_before = list_max[node.queue][Family::Syncs as usize].clone();
            }
            let own = match node.kind {
                NodeKind::HostGate { opened_at, .. } => opened_at.unwrap_or(node.from),
                _ => node.from,
            } + 1;
            let mut m = own;
            for &d in &node.explicit {
                m = m.max(host_before[d]);
            }
            for (f, stages) in stream.waits_for(i) {
                let prefix = if f == Family::Syncs && node.siblings_from != i { &syncs_before } else { &list_max[node.queue][f as usize] };
                for b in bits(stages) {
                    m = m.max(prefix[b]);
                }
            }
            host_before[i] = m;
            if let Some((f, stages)) = stream.membership(i) {
                for b in bits(stages) {
                    let slot = &mut list_max[node.queue][f as usize][b];
                    *slot = (*slot).max(m);
                }
            }
        }

        // waited: each host wait marks the ancestors of what it waits for; marked members of a
        // list always form a prefix of it, so each list is taken up to where it was left.
        let mut waited = vec![usize::MAX; n];
        let mut walk = Walk::new(stream);
        for (t, nodes) in stream.host_waits.iter().enumerate() {
            for &f in nodes {
                walk.visit(f, &mut |i| {
                    if waited[i] == usize::MAX {
                        waited[i] = t;
                    }
                });
            }
        }
        Order { stream, host_before, waited, agents, inst_node, ancestors: RefCell::new(HashMap::new()) }
    }

    /// Who wrote provenance tag `tag`.
    pub fn agent(&self, tag: Tag) -> Agent {
        self.agents.get(tag as usize).copied().unwrap_or(Agent::Initial)
    }

    /// The node of command instance `inst`.
    pub fn node_of(&self, inst: usize) -> usize {
        self.inst_node[inst]
    }

    /// Whether node `a` is an ancestor of node `b` (a path of dependencies leads from `a` to
    /// `b`; a node is not its own ancestor).
    pub fn node_before_node(&self, a: usize, b: usize) -> bool {
        if a >= b {
            // Dependencies always point to earlier nodes.
            return false;
        }
        let mut cache = self.ancestors.borrow_mut();
        if cache.len() >= MAX_CACHED_ANCESTOR_SETS && !cache.contains_key(&b) {
            cache.clear();
        }
        let set = cache.entry(b).or_insert_with(|| {
            let mut set = vec![0u64; self.stream.nodes.len().div_ceil(64)];
            let mut walk = Walk::new(self.stream);
            for d in walk.deps_of(b) {
                walk.visit(d, &mut |i| set[i / 64] |= 1 << (i % 64));
            }
            set
        });
        set[a / 64] >> (a % 64) & 1 == 1
    }

    /// Whether `a` happens before `b`.
    pub fn before(&self, a: Agent, b: Agent) -> bool {
        match (a, b) {
            (Agent::Initial, _) => b != Agent::Initial,
            (_, Agent::Initial) => false,
            (Agent::Node(x), Agent::Node(y)) => self.node_before_node(x, y),
            (Agent::Host(t), Agent::Node(y)) => self.host_before[y] > t + 1,
            (Agent::Node(x), Agent::Host(t)) => self.waited[x] < t,
            (Agent::Host(s), Agent::Host(t)) => s < t,
        }
    }

    /// Whether the writer of `tag` happens before `reader`.
    pub fn tag_before(&self, tag: Tag, reader: Agent) -> bool {
        self.before(self.agent(tag), reader)
    }
}

/// A walk over ancestors that takes each (queue, family, stage) list at most once up to any
/// point: every dependency on a list is a prefix of it.
struct Walk<'s> {
    stream: &'s Stream,
    seen: Vec<bool>,
    taken: Vec<[Vec<usize>; 2]>,
    stack: Vec<usize>,
}

impl<'s> Walk<'s> {
    fn new(stream: &'s Stream) -> Walk<'s> {
        Walk { stream, seen: vec![false; stream.nodes.len()], taken: (0..stream.queues).map(|_| [vec![0; 64], vec![0; 64]]).collect(), stack: Vec::new() }
    }

    /// The direct dependencies of `i` not taken yet (marking the list prefixes as taken).
    fn deps_of(&mut self, i: usize) -> Vec<usize> {
        let node = &self.stream.nodes[i];
        let mut out = node.explicit.clone();
        for (f, stages) in self.stream.waits_for(i) {
            let bound = self.stream.bound(i, f);
            for b in bits(stages) {
                let list = self.stream.family(node.queue, f, b);
                let end = list.partition_point(|&j| j < bound);
                let taken = &mut self.taken[node.queue][f as usize][b];
                if *taken < end {
                    out.extend_from_slice(&list[*taken..end]);
                    *taken = end;
                }
            }
        }
        out
    }

    /// Visits `start` and every ancestor of it not seen before.
    fn visit(&mut self, start: usize, f: &mut dyn FnMut(usize)) {
        self.stack.push(start);
        while let Some(i) = self.stack.pop() {
            if std::mem::replace(&mut self.seen[i], true) {
                continue;
            }
            f(i);
            let deps = self.deps_of(i);
            self.stack.extend(deps);
        }
    }
}
