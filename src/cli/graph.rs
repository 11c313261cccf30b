//! `gpusim graph TRACE -o FILE.dot`: the execution-dependency graph, after the formalization
//! in the project's seeds.
//!
//! Nodes: `(action command, stage)` boxes; for each sync node (pipeline barrier, set/wait event
//! half, semaphore signal and wait, fence signal, vkQueueSubmit's host→device operation) a
//! cluster holding `(sync, SRC, stage)` → `(sync, SRC)` → `(sync, DST)` → `(sync, DST, stage)`.
//! Edges: an earlier command's stage to a barrier's matching source stage; a barrier's
//! destination stage to a later command's stage or to a later barrier's matching source stage
//! (that is how chains form); set_event → wait_events and semaphore signal → wait (bold);
//! the command processor's in-order launch between consecutive action commands (dotted: it
//! orders starts, not completions). Two commands are ordered exactly when a solid path leads
//! from one to the other. Only the stages that take part in an edge are drawn.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim_core::engine::{GraphNode, dependency_graph};
use sim_core::profile::Profile;
use sim_core::sync::PipelineStageFlags2 as S;

use super::CliError;
use super::report::command_text;

/// Arguments of `gpusim graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// The trace.
    pub trace: PathBuf,
    /// Where to write the Graphviz DOT (`dot -Tsvg FILE.dot -o graph.svg` renders it).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// The profile the trace is checked against (device limits).
    #[arg(long, default_value = "seed-l2")]
    pub profile: String,
    /// Where the run that records the graph stops.
    #[command(flatten)]
    pub budgets: super::run::Budgets,
}

fn stage_names(s: S) -> Vec<String> {
    s.iter().map(|b| b.name().map(str::to_string).unwrap_or_else(|| format!("0x{:x}", b.0))).collect()
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The DOT text of a graph.
pub fn to_dot(w: &sim_core::engine::Workload, nodes: &[GraphNode]) -> String {
    // Which source / destination stages of each sync node take part in an edge.
    let mut src_used: Vec<BTreeSet<String>> = vec![BTreeSet::new(); nodes.len()];
    let mut dst_used: Vec<BTreeSet<String>> = vec![BTreeSet::new(); nodes.len()];
    let mut edges = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        for &d in &n.deps {
            let Some(m) = nodes.get(d) else { continue };
            let explicit = n.explicit.contains(&d);
            match (m.inst.is_some(), n.inst.is_some()) {
                // Earlier action → this barrier's source stage.
                (true, false) => {
                    for st in stage_names(m.src & n.src) {
                        src_used[i].insert(st.clone());
                        edges.push(format!("a{d} -> s{i}_src_{st};"));
                    }
                }
                // Barrier's destination stage → this action.
                (false, true) => {
                    for st in stage_names(m.dst & n.src) {
                        dst_used[d].insert(st.clone());
                        edges.push(format!("s{d}_dst_{st} -> a{i};"));
                    }
                }
                (false, false) if explicit => edges.push(format!("s{d}_src -> s{i}_dst [style=bold, color=blue, label=\"signal/set → wait\"];")),
                (false, false) if stage_names(m.dst & n.src).len() > 3 => {
                    // A chain through many stages (ALL_COMMANDS on both sides): one edge
                    // between the internal nodes keeps the picture readable.
                    let k = stage_names(m.dst & n.src).len();
                    edges.push(format!("s{d}_dst -> s{i}_src [label=\"{k} stages\"];"));
                }
                (false, false) => {
                    for st in stage_names(m.dst & n.src) {
                        dst_used[d].insert(st.clone());
                        src_used[i].insert(st.clone());
                        edges.push(format!("s{d}_dst_{st} -> s{i}_src_{st};"));
                    }
                }
                (true, true) => edges.push(format!("a{d} -> a{i};")),
            }
        }
        if let Some(prev) = n.start_after {
            edges.push(format!("a{prev} -> a{i} [style=dotted, color=gray, label=\"launch order\"];"));
        }
    }
    let mut o = String::new();
    let _ = writeln!(o, "digraph execution_dependencies {{\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontsize=8];");
    for (q, qname) in w.queues.iter().enumerate() {
        let _ = writeln!(o, "  subgraph cluster_queue_{q} {{\n    label=\"queue {}\"; style=rounded; color=gray;", esc(qname));
        for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.queue == q) {
            if let Some(at) = &n.at {
                let stage = stage_names(n.src).join("|");
                let _ = writeln!(o, "    a{i} [shape=box, style=filled, fillcolor=\"#dbe9f6\", label=\"{}\\n{}\"];", esc(&command_text(w, at)), stage);
            } else {
                let _ = writeln!(o, "    subgraph cluster_sync_{i} {{\n      label=\"{}\"; style=dashed; color=\"#b05000\"; fontsize=9;", esc(&n.label));
                for st in &src_used[i] {
                    let _ = writeln!(o, "      s{i}_src_{st} [shape=ellipse, label=\"SRC {st}\"];");
                    let _ = writeln!(o, "      s{i}_src_{st} -> s{i}_src;");
                }
                let _ = writeln!(o, "      s{i}_src [shape=point, xlabel=\"SRC\"];\n      s{i}_dst [shape=point, xlabel=\"DST\"];\n      s{i}_src -> s{i}_dst;");
                for st in &dst_used[i] {
                    let _ = writeln!(o, "      s{i}_dst_{st} [shape=ellipse, label=\"DST {st}\"];");
                    let _ = writeln!(o, "      s{i}_dst -> s{i}_dst_{st};");
                }
                let _ = writeln!(o, "    }}");
            }
        }
        let _ = writeln!(o, "  }}");
    }
    for e in edges {
        let _ = writeln!(o, "  {e}");
    }
    let _ = writeln!(o, "}}");
    o
}

/// Runs `gpusim graph ...`.
pub fn run(args: GraphArgs) -> Result<ExitCode, CliError> {
    let limits = args.budgets.limits()?;
    let t = sim_core::trace::load(&args.trace).map_err(|e| Box::new(e) as CliError)?;
    let p = Profile::load(&args.profile)?;
    let nodes = dependency_graph(&t.workload, &p, 0, &limits).map_err(|e| Box::new(t.locate_engine_error(&e)) as CliError)?;
    std::fs::write(&args.output, to_dot(&t.workload, &nodes)).map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    super::print_err(&format!("wrote {} ({} queue items); render it with: dot -Tsvg {} -o graph.svg", args.output.display(), nodes.len(), args.output.display()));
    Ok(ExitCode::SUCCESS)
}
