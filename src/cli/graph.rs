//! `gpusim graph TRACE -o FILE.dot`: the execution-dependency graph, after the formalization
//! in the project's seeds, drawn to be read.
//!
//! Nodes: `(action command, stage)` boxes; for each sync node (pipeline barrier, set/wait event
//! half, semaphore signal and wait, fence signal, vkQueueSubmit's host→device operation) a
//! cluster holding `(sync, SRC, stage)` → `(sync, SRC)` → `(sync, DST)` → `(sync, DST, stage)`.
//! Edges: an earlier command's stage to a barrier's matching source stage; a barrier's
//! destination stage to a later command's stage or to a later barrier's matching source stage
//! (that is how chains form); set_event → wait_events and semaphore signal → wait (bold);
//! the command processor's in-order launch between consecutive action commands (dotted: it
//! orders starts, not completions). Two commands are ordered exactly when a solid path leads
//! from one to the other.
//!
//! What is drawn, unless `--all-edges` asks for everything as recorded:
//! - the transitive reduction of the solid edges: an edge u → v is left out when v is reached
//!   from u through other solid edges, so every ordering stays (a solid path joins the same
//!   nodes as before) and each edge drawn is one no other path gives;
//! - a dotted launch edge only between commands no solid path orders;
//! - only the stages that some action command on the sync node's queue has (and `HOST`): a
//!   barrier's `ALL_COMMANDS` stands for every stage, but a chain through a stage nobody uses
//!   is drawn between the sync nodes' SRC and DST points instead, which orders the same.
//!
//! Layout: one cluster per queue, its items left to right in submission and command order
//! (invisible edges hold them in that order). The run is also simulated (same profile, seed and
//! budgets), and each stale read it finds whose reference run saw a command's write marks the
//! dependency that was missing: a red dashed edge from that writer to the command that read,
//! labelled `missing: <buffer> [offset, +size)`, one per (writer, reader) pair. A run that
//! cannot be made (a budget stops it) leaves the graph without them, with a note on stderr.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim_core::engine::{Finding, GraphNode, RunOptions, StaleRange, dependency_graph};
use sim_core::api::{CommandRef, Workload, Writer};
use sim_core::profile::Profile;
use sim_core::sync::PipelineStageFlags2 as S;

use super::CliError;
use super::report::command_text;

/// Arguments of `gpusim graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// The trace, or a GFXReconstruct capture (`.gfxr`), imported in memory as `gpusim import`
    /// would write it.
    pub trace: PathBuf,
    /// Where to write the Graphviz DOT, `-` for standard output (`dot -Tsvg FILE.dot -o
    /// graph.svg` renders it).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// The profile the trace is checked against (device limits).
    #[arg(long, default_value = "seed-vram")]
    pub profile: String,
    /// The seed of the run whose stale reads mark missing dependencies (the graph itself does
    /// not depend on it).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = super::seed_value)]
    pub seed: u64,
    /// Draw every edge and every stage as recorded: no transitive reduction, every launch edge,
    /// every stage of a sync node's scopes that takes part in an edge.
    #[arg(long)]
    pub all_edges: bool,
    /// Where the run that records the graph stops.
    #[command(flatten)]
    pub budgets: super::run::Budgets,
}

/// How the graph is drawn.
#[derive(Clone, Copy, Debug, Default)]
pub struct DotOptions {
    /// Everything as recorded (`--all-edges`).
    pub all_edges: bool,
}

/// The transitive reduction holds, for each node drawn, a bit per earlier node (its ancestors):
/// past this many nodes (100 MB of bits) the rest of a graph is drawn without it.
pub const MAX_REDUCED_NODES: usize = 40_000;

fn stage_names(s: S) -> Vec<String> {
    s.iter().map(stage_name).collect()
}

fn stage_name(bit: S) -> String {
    bit.name().map(str::to_string).unwrap_or_else(|| format!("0x{:x}", bit.0))
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// What an edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An execution dependency, or a step inside a sync node.
    Order,
    /// set_event → wait_events, semaphore signal → wait.
    Signal,
    /// The command processor's in-order launch: orders starts, not completions.
    Launch,
}

/// Where an edge into a graph node's drawing ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum End {
    /// The action command's box.
    Action,
    /// A sync node's first-scope stage (its bit), drawn.
    SrcStage(u64),
    /// A sync node's SRC point.
    Src,
    /// A sync node's DST point.
    Dst,
}

/// The graph as drawn. Nodes are made in an order in which every edge goes forward (a graph
/// node's drawing after those of the nodes it depends on, its SRC stages before its SRC point
/// before its DST point, a DST stage when first used), and each node gets all the solid edges
/// into it when it is made: so the transitive reduction is done as the graph is built, keeping
/// an edge u → v only when u is not already an ancestor of v through the edges kept before it
/// (taken from the latest u back), without ever holding the edges left out.
struct Dag {
    ids: Vec<String>,
    edges: Vec<(usize, usize, Kind)>,
    /// Per graph node: its box (action) or SRC and DST points (sync node).
    action: Vec<usize>,
    src: Vec<usize>,
    dst: Vec<usize>,
    /// Stage nodes: (graph node, second scope, stage bit) → node.
    stage: HashMap<(usize, bool, u64), usize>,
    /// The stage nodes of each sync node, by name, for drawing.
    src_stages: BTreeMap<usize, BTreeSet<String>>,
    dst_stages: BTreeMap<usize, BTreeSet<String>>,
    /// The ancestors of each node (a bit per earlier node), while reducing.
    ancestors: Option<Vec<Vec<u64>>>,
    /// The node count at which the reduction stopped (too many), if it did.
    stopped_reducing: Option<usize>,
}

impl Dag {
    fn new(nodes: usize, reduce: bool) -> Dag {
        Dag {
            ids: Vec::new(),
            edges: Vec::new(),
            action: vec![usize::MAX; nodes],
            src: vec![usize::MAX; nodes],
            dst: vec![usize::MAX; nodes],
            stage: HashMap::new(),
            src_stages: BTreeMap::new(),
            dst_stages: BTreeMap::new(),
            ancestors: reduce.then(Vec::new),
            stopped_reducing: None,
        }
    }

    fn is_ancestor(&self, u: usize, v: usize) -> Option<bool> {
        let a = self.ancestors.as_ref()?.get(v)?;
        Some(a.get(u / 64).is_some_and(|w| w & (1 << (u % 64)) != 0))
    }

    /// Makes node `id` with its solid edges in (each once); with the reduction, only those
    /// no other path gives.
    fn make(&mut self, id: String, mut preds: Vec<(usize, Kind)>) -> usize {
        let v = self.ids.len();
        self.ids.push(id);
        if self.ancestors.is_some() && v >= MAX_REDUCED_NODES {
            self.ancestors = None;
            self.stopped_reducing = Some(v);
        }
        // Latest first; each predecessor once (the first kind given wins).
        preds.sort_by_key(|&(u, _)| std::cmp::Reverse(u));
        preds.dedup_by_key(|p| p.0);
        match self.ancestors.as_mut() {
            None => self.edges.extend(preds.iter().map(|&(u, k)| (u, v, k))),
            Some(anc) => {
                let mut mine = vec![0u64; v / 64 + 1];
                for (u, k) in preds {
                    // u is implied when a later predecessor already has it as an ancestor.
                    if mine[u / 64] & (1 << (u % 64)) != 0 {
                        continue;
                    }
                    self.edges.push((u, v, k));
                    for (m, a) in mine.iter_mut().zip(&anc[u]) {
                        *m |= a;
                    }
                    mine[u / 64] |= 1 << (u % 64);
                }
                anc.push(mine);
            }
        }
        v
    }

    /// The node of stage `bit` in sync node `d`'s second scope (made when first asked for), or
    /// its DST point when the stage is not drawn.
    fn dst_end(&mut self, d: usize, bit: S, drawn: bool) -> usize {
        if !drawn {
            return self.dst[d];
        }
        if let Some(&v) = self.stage.get(&(d, true, bit.0)) {
            return v;
        }
        let name = stage_name(bit);
        let v = self.make(format!("s{d}_dst_{name}"), vec![(self.dst[d], Kind::Order)]);
        self.stage.insert((d, true, bit.0), v);
        self.dst_stages.entry(d).or_default().insert(name);
        v
    }
}

/// Builds the graph of `nodes`, stages drawn where `drawn(queue, stage bit)` says so, reduced
/// when `reduce`.
fn build(nodes: &[GraphNode], drawn: impl Fn(usize, S) -> bool, reduce: bool) -> Dag {
    let mut g = Dag::new(nodes.len(), reduce);
    // An item waits for items queued before it, so each graph node depends on earlier ones
    // only; a dependency on a later one (none is recorded) would be drawn as is, at the end.
    let mut later: Vec<(usize, usize)> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let mut into: Vec<(usize, End, Kind)> = Vec::new();
        later.extend(n.deps.iter().filter(|&&d| d >= i && d < nodes.len()).map(|&d| (d, i)));
        for &d in n.deps.iter().filter(|&&d| d < i) {
            let m = &nodes[d];
            match (m.inst.is_some(), n.inst.is_some()) {
                // Earlier action → this barrier's source stage.
                (true, false) => {
                    for bit in (m.src & n.src).iter() {
                        into.push((g.action[d], if drawn(n.queue, bit) { End::SrcStage(bit.0) } else { End::Src }, Kind::Order));
                    }
                }
                // Barrier's destination stage → this action.
                (false, true) => {
                    for bit in (m.dst & n.src).iter() {
                        let from = g.dst_end(d, bit, drawn(m.queue, bit));
                        into.push((from, End::Action, Kind::Order));
                    }
                }
                (false, false) if n.explicit.contains(&d) => into.push((g.src[d], End::Dst, Kind::Signal)),
                // A chain: an earlier sync node's destination stage → this one's source stage.
                (false, false) => {
                    let common = m.dst & n.src;
                    if common.0 == 0 {
                        into.push((g.dst[d], End::Src, Kind::Order));
                    }
                    for bit in common.iter() {
                        let from = g.dst_end(d, bit, drawn(m.queue, bit));
                        into.push((from, if drawn(n.queue, bit) { End::SrcStage(bit.0) } else { End::Src }, Kind::Order));
                    }
                }
                (true, true) => into.push((g.action[d], End::Action, Kind::Order)),
            }
        }
        let preds = |into: &[(usize, End, Kind)], end: End| -> Vec<(usize, Kind)> { into.iter().filter(|e| e.1 == end).map(|e| (e.0, e.2)).collect() };
        if n.inst.is_some() {
            let v = g.make(format!("a{i}"), preds(&into, End::Action));
            g.action[i] = v;
            if let Some(prev) = n.start_after.filter(|&p| p < i && nodes[p].inst.is_some()) {
                // Drawn unless a solid path already orders the two.
                let u = g.action[prev];
                if g.is_ancestor(u, v) != Some(true) {
                    g.edges.push((u, v, Kind::Launch));
                }
            }
        } else {
            let mut stages: Vec<u64> = into.iter().filter_map(|e| if let End::SrcStage(b) = e.1 { Some(b) } else { None }).collect();
            stages.sort_unstable();
            stages.dedup();
            let mut src_preds = preds(&into, End::Src);
            for b in stages {
                let name = stage_name(S(b));
                let v = g.make(format!("s{i}_src_{name}"), preds(&into, End::SrcStage(b)));
                g.stage.insert((i, false, b), v);
                g.src_stages.entry(i).or_default().insert(name);
                src_preds.push((v, Kind::Order));
            }
            let src = g.make(format!("s{i}_src"), src_preds);
            let mut dst_preds = preds(&into, End::Dst);
            dst_preds.push((src, Kind::Order));
            let dst = g.make(format!("s{i}_dst"), dst_preds);
            (g.src[i], g.dst[i]) = (src, dst);
        }
    }
    for (d, i) in later {
        let (m, n) = (&nodes[d], &nodes[i]);
        let edge = match (m.inst.is_some(), n.inst.is_some()) {
            (false, false) if n.explicit.contains(&d) => (g.src[d], g.dst[i], Kind::Signal),
            (true, _) => (g.action[d], if n.inst.is_some() { g.action[i] } else { g.src[i] }, Kind::Order),
            (false, _) => (g.dst[d], if n.inst.is_some() { g.action[i] } else { g.src[i] }, Kind::Order),
        };
        g.edges.push(edge);
    }
    g
}

/// Byte ranges `(offset, size)`, sorted, overlapping and touching ones merged.
fn merge_ranges(mut r: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    r.sort();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (o, s) in r {
        match out.last_mut() {
            Some((lo, ls)) if o <= lo.saturating_add(*ls) => *ls = (*ls).max(o.saturating_add(s) - *lo),
            _ => out.push((o, s)),
        }
    }
    out
}

/// The missing edges of `findings`: for each (expected writer, reader) pair of action nodes,
/// the label of its edge.
fn missing_edges(nodes: &[GraphNode], findings: &[Finding], stale: &[StaleRange]) -> BTreeMap<(usize, usize), Vec<String>> {
    let by_command: HashMap<&CommandRef, usize> = nodes.iter().enumerate().filter(|(_, n)| n.inst.is_some()).filter_map(|(i, n)| n.at.as_ref().map(|at| (at, i))).collect();
    // Per (writer node, reader node), per buffer: the (offset, size) ranges of its findings.
    type Ranges<'a> = BTreeMap<&'a str, Vec<(u64, u64)>>;
    let mut pairs: BTreeMap<(usize, usize), Ranges> = BTreeMap::new();
    for f in findings {
        let Writer::Command(writer) = &f.expected_write else { continue };
        let (Some(&w), Some(&r)) = (by_command.get(writer), by_command.get(&f.at)) else { continue };
        pairs.entry((w, r)).or_default().entry(f.resource.as_str()).or_default().push((f.offset, f.size));
    }
    pairs
        .into_iter()
        .map(|(pair, resources)| {
            let lines = resources
                .into_iter()
                .map(|(resource, ranges)| {
                    // The reader's stale bytes in this buffer, complete, when the run kept them
                    // (its findings explain only the first stale reads).
                    let reader = nodes[pair.1].at.as_ref();
                    let whole = stale.iter().find(|s| Some(&s.at) == reader && s.resource == resource).map(|s| s.ranges.clone());
                    let ranges = whole.unwrap_or_else(|| merge_ranges(ranges));
                    const SHOWN: usize = 3;
                    let mut line = format!("missing: {resource}");
                    for (o, s) in ranges.iter().take(SHOWN) {
                        let _ = write!(line, " [{o}, +{s})");
                    }
                    if ranges.len() > SHOWN {
                        let _ = write!(line, " and {} more ranges", ranges.len() - SHOWN);
                    }
                    line
                })
                .collect();
            (pair, lines)
        })
        .collect()
}

/// The DOT text of a graph, with a red dashed edge for each missing dependency behind
/// `findings` (those of a run of the same workload).
pub fn to_dot(w: &Workload, nodes: &[GraphNode], findings: &[Finding], stale: &[StaleRange], options: DotOptions) -> String {
    // The stages the action commands of each queue have.
    let mut used: BTreeMap<usize, u64> = BTreeMap::new();
    for n in nodes.iter().filter(|n| n.inst.is_some()) {
        *used.entry(n.queue).or_default() |= n.src.0;
    }
    let drawn = |queue: usize, bit: S| options.all_edges || bit == S::HOST || used.get(&queue).is_some_and(|u| u & bit.0 != 0);
    let g = build(nodes, drawn, !options.all_edges);

    let mut o = String::new();
    let _ = writeln!(o, "digraph execution_dependencies {{\n  rankdir=LR;\n  newrank=true;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontsize=8];");
    if let Some(at) = g.stopped_reducing {
        let _ = writeln!(o, "  // too many nodes for the transitive reduction: edges into nodes past the first {at} are all drawn");
    }
    let queues = w.queues.len().max(nodes.iter().map(|n| n.queue + 1).max().unwrap_or(0));
    for q in 0..queues {
        let qname = w.queues.get(q).map_or_else(|| q.to_string(), String::clone);
        let _ = writeln!(o, "  subgraph cluster_queue_{q} {{\n    label=\"queue {}\"; style=rounded; color=gray;", esc(&qname));
        // The queue's items in order, each as (first node, last node).
        let mut items: Vec<(String, String)> = Vec::new();
        for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.queue == q) {
            if n.inst.is_some() {
                let text = n.at.as_ref().map_or_else(|| "command".to_string(), |at| command_text(w, at));
                let _ = writeln!(o, "    a{i} [shape=box, style=filled, fillcolor=\"#dbe9f6\", label=\"{}\\n{}\"];", esc(&text), stage_names(n.src).join("|"));
                items.push((format!("a{i}"), format!("a{i}")));
            } else {
                let _ = writeln!(o, "    subgraph cluster_sync_{i} {{\n      label=\"{}\"; style=dashed; color=\"#b05000\"; fontsize=9;", esc(&n.label));
                for st in g.src_stages.get(&i).into_iter().flatten() {
                    let _ = writeln!(o, "      s{i}_src_{st} [shape=ellipse, label=\"SRC {st}\"];");
                }
                let _ = writeln!(o, "      s{i}_src [shape=point, xlabel=\"SRC\"];\n      s{i}_dst [shape=point, xlabel=\"DST\"];");
                for st in g.dst_stages.get(&i).into_iter().flatten() {
                    let _ = writeln!(o, "      s{i}_dst_{st} [shape=ellipse, label=\"DST {st}\"];");
                }
                let _ = writeln!(o, "    }}");
                items.push((format!("s{i}_src"), format!("s{i}_dst")));
            }
        }
        // Invisible edges hold the items in submission and command order.
        for pair in items.windows(2) {
            let _ = writeln!(o, "    {} -> {} [style=invis, weight=2];", pair[0].1, pair[1].0);
        }
        let _ = writeln!(o, "  }}");
    }
    for &(a, b, kind) in &g.edges {
        let (a, b) = (&g.ids[a], &g.ids[b]);
        let style = match kind {
            Kind::Order => "",
            Kind::Signal => " [style=bold, color=blue, label=\"signal/set → wait\"]",
            Kind::Launch => " [style=dotted, color=gray, label=\"launch order\"]",
        };
        let _ = writeln!(o, "  {a} -> {b}{style};");
    }
    for ((writer, reader), lines) in missing_edges(nodes, findings, stale) {
        let label: Vec<String> = lines.iter().map(|l| esc(l)).collect();
        let _ = writeln!(o, "  a{writer} -> a{reader} [color=red, fontcolor=red, style=dashed, penwidth=2, constraint=false, label=\"{}\"];", label.join("\\n"));
    }
    let _ = writeln!(o, "}}");
    o
}

/// Runs `gpusim graph ...`.
pub fn run(args: GraphArgs) -> Result<ExitCode, CliError> {
    let limits = args.budgets.limits()?;
    if args.output.as_os_str() != "-" {
        super::check_output_file(&args.output, "-o")?;
    }
    let t = super::import::load_trace(&args.trace)?;
    let p = Profile::load(&args.profile)?;
    let nodes = dependency_graph(&t.workload, &p, args.seed, &limits).map_err(|e| Box::new(t.locate_engine_error(&e)) as CliError)?;
    // The run, for its stale reads. A run that cannot be made (a budget stops it) leaves the
    // graph without missing edges, and says so.
    let (findings, stale) = match super::run::run_one(&t, &p, args.seed, &RunOptions { workgroup_spans: 0, limits, ..RunOptions::default() }) {
        Ok(r) => (r.findings, r.stale_ranges),
        Err(e) => {
            super::print_err(&format!("note: no missing dependencies are drawn: the run of seed {} that would show them failed: {e}", args.seed));
            (Vec::new(), Vec::new())
        }
    };
    let dot = to_dot(&t.workload, &nodes, &findings, &stale, DotOptions { all_edges: args.all_edges });
    let missing = missing_edges(&nodes, &findings, &stale).len();
    let missing = if missing > 0 { format!(", {missing} of them red dashed: dependencies the stale reads of seed {} show missing", args.seed) } else { String::new() };
    // Edge lines start with a node id and an arrow (labels may hold anything).
    let is_id = |id: &str| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let edges = dot.lines().filter(|l| l.trim_start().split_once(" -> ").is_some_and(|(a, _)| is_id(a)) && !l.contains("[style=invis")).count();
    if args.output.as_os_str() == "-" {
        super::print_out(&dot)?;
        super::print_err(&format!("{} queue items, {edges} edges{missing}", nodes.len()));
    } else {
        std::fs::write(&args.output, dot).map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
        super::print_err(&format!("wrote {} ({} queue items, {edges} edges{missing}); render it with: dot -Tsvg {} -o graph.svg", args.output.display(), nodes.len(), args.output.display()));
    }
    Ok(ExitCode::SUCCESS)
}
