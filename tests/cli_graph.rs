//! `gpusim graph`: the drawn graph is a transitive reduction (no edge u → v where v is reached
//! from u through other edges) that keeps every ordering of the full graph (`--all-edges`),
//! `-o -` writes to standard output, and each (expected writer, reader) pair of a run's findings
//! is one red dashed "missing" edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Output};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().unwrap()
}

fn examples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json") && !p.to_string_lossy().ends_with(".expect.json")).collect();
    v.sort();
    assert!(v.len() > 10, "{v:?}");
    v
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traces").join(name).to_string_lossy().into_owned()
}

/// The DOT `gpusim graph` prints on standard output.
fn graph(trace: &str, extra: &[&str]) -> String {
    let mut args = vec!["graph", trace, "-o", "-"];
    args.extend_from_slice(extra);
    let out = gpusim(&args);
    assert_eq!(out.status.code(), Some(0), "{trace}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A DOT graph as `gpusim graph` writes it: node labels, and edges with their attributes.
#[derive(Debug, Default)]
struct Dot {
    labels: BTreeMap<String, String>,
    edges: Vec<(String, String, String)>,
}

impl Dot {
    fn parse(text: &str) -> Dot {
        let mut d = Dot::default();
        for line in text.lines().map(str::trim) {
            if let Some((from, rest)) = line.split_once(" -> ") {
                let end = rest.find([' ', ';', '[']).unwrap_or(rest.len());
                d.edges.push((from.to_string(), rest[..end].to_string(), rest[end..].to_string()));
            } else if let Some((id, attrs)) = line.split_once(" [") {
                if let Some(start) = attrs.find("label=\"") {
                    let label = &attrs[start + 7..];
                    d.labels.insert(id.to_string(), label[..label.find('"').unwrap()].to_string());
                } else {
                    d.labels.insert(id.to_string(), String::new());
                }
            }
        }
        d
    }

    /// Edges that order: not the invisible layout edges, the dotted launch edges or the red
    /// missing ones.
    fn solid(&self) -> Vec<(String, String)> {
        self.edges.iter().filter(|(_, _, a)| !a.contains("invis") && !a.contains("dotted") && !a.contains("color=red")).map(|(f, t, _)| (f.clone(), t.clone())).collect()
    }

    fn missing(&self) -> Vec<(String, String, String)> {
        self.edges.iter().filter(|(_, _, a)| a.contains("color=red")).cloned().collect()
    }
}

/// Nodes reached from each node through `edges` (one edge or more), the edge `skip` left out.
fn reached_from(edges: &[(String, String)], from: &str, skip: Option<usize>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(v) = stack.pop() {
        for (k, (a, b)) in edges.iter().enumerate() {
            if Some(k) != skip && *a == v && seen.insert(b.clone()) {
                stack.push(b.clone());
            }
        }
    }
    seen
}

/// A node of the full graph as the reduced graph has it: a stage node not drawn there stands
/// for its sync node's SRC or DST point.
fn in_reduced(id: &str, reduced: &Dot) -> String {
    if reduced.labels.contains_key(id) {
        return id.to_string();
    }
    for point in ["_src", "_dst"] {
        if let Some(k) = id.find(&format!("{point}_")) {
            return id[..k + point.len()].to_string();
        }
    }
    panic!("node `{id}` of the full graph is not in the reduced one");
}

#[test]
fn the_graph_is_a_transitive_reduction_that_keeps_every_ordering() {
    let mut totals = (0, 0);
    for path in examples() {
        let trace = path.to_str().unwrap();
        let reduced = Dot::parse(&graph(trace, &[]));
        let full = Dot::parse(&graph(trace, &["--all-edges"]));
        let (r, f) = (reduced.solid(), full.solid());
        totals = (totals.0 + r.len(), totals.1 + f.len());
        assert!(r.len() <= f.len(), "{trace}: {} edges drawn, {} in the full graph", r.len(), f.len());
        // No edge u → v where v is reached from u through other edges.
        for (k, (a, b)) in r.iter().enumerate() {
            assert!(!reached_from(&r, a, Some(k)).contains(b), "{trace}: {a} -> {b} is implied by other edges");
        }
        // Every edge of the full graph is implied: the same nodes are ordered.
        let reach: BTreeMap<&String, BTreeSet<String>> = reduced.labels.keys().map(|v| (v, reached_from(&r, v, None))).collect();
        for (a, b) in &f {
            let (a, b) = (in_reduced(a, &reduced), in_reduced(b, &reduced));
            assert!(a == b || reach[&a].contains(&b), "{trace}: the full graph orders {a} before {b}, the drawn one does not");
        }
        // And no more: commands are ordered in the drawn graph exactly when they are in the full one.
        let actions: Vec<&String> = full.labels.keys().filter(|v| v.starts_with('a')).collect();
        for a in &actions {
            let in_full = reached_from(&f, a, None);
            for b in &actions {
                assert_eq!(in_full.contains(*b), reach[*a].contains(*b), "{trace}: {a} before {b}");
            }
        }
        // Every command and sync node is still drawn.
        for v in full.labels.keys().filter(|v| v.starts_with('a') || v.ends_with("_src") || v.ends_with("_dst")) {
            assert!(reduced.labels.contains_key(v), "{trace}: {v} is not drawn");
        }
    }
    assert!(totals.0 * 2 < totals.1, "the reduction drew {} of {} edges", totals.0, totals.1);
}

#[test]
fn stages_no_command_uses_are_not_drawn() {
    // coherent-buffers' barriers name stages beyond those its fill and dispatches have.
    let full = graph(&example("coherent-buffers-correct.json"), &["--all-edges"]);
    assert!(full.contains("_DRAW_INDIRECT"), "{full}");
    let dot = graph(&example("coherent-buffers-correct.json"), &[]);
    for line in dot.lines().filter(|l| l.contains("label=\"SRC ") || l.contains("label=\"DST ")) {
        assert!(line.contains("CLEAR\"") || line.contains("COMPUTE_SHADER\"") || line.contains("HOST\""), "{line}");
    }
}

#[test]
fn dash_o_dash_prints_the_dot_to_stdout() {
    let trace = example("split-barrier-correct.json");
    let printed = graph(&trace, &[]);
    assert!(printed.starts_with("digraph") && printed.trim_end().ends_with('}'), "{printed}");
    let file = std::env::temp_dir().join(format!("gpusim-cli-graph-{}.dot", std::process::id()));
    let out = gpusim(&["graph", &trace, "-o", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), printed);
    let _ = std::fs::remove_file(file);
    // Items are held in command order, one cluster per queue.
    assert!(printed.contains("subgraph cluster_queue_0") && printed.contains("style=invis"), "{printed}");
}

/// A command as its node's label names it: `cb0[1] (timeline[0]` (then the queue's submission).
fn command_ref(v: &serde_json::Value) -> String {
    format!("{}[{}] (timeline[{}]", v["command_buffer"].as_str().unwrap(), v["command"], v["submit"])
}

#[test]
fn each_missing_dependency_behind_a_finding_is_one_red_dashed_edge() {
    let cases = [
        ("fill-then-dispatch-missing.json", "0"),
        ("fill-then-dispatch-missing.json", "3"),
        ("split-barrier-missing.json", "0"),
        ("two-queues-missing.json", "0"),
        ("coherent-buffers-missing.json", "0"),
        ("uniform-read-after-storage-write-missing.json", "0"),
        ("write-after-read-missing.json", "0"),
        ("fill-then-dispatch-correct.json", "0"),
    ];
    let mut with_edges = 0;
    for (name, seed) in cases {
        let trace = example(name);
        let out = gpusim(&["run", &trace, "--seed", seed, "--report", "json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // (expected writer, reader) → the buffers read.
        let mut pairs: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for f in report["corruption"]["findings"].as_array().unwrap().iter().filter(|f| f["expected_write"].get("command").is_some()) {
            pairs.entry((command_ref(&f["expected_write"]), command_ref(&f["at"]))).or_default().insert(f["resource"].as_str().unwrap().to_string());
        }
        let dot = Dot::parse(&graph(&trace, &["--seed", seed]));
        let missing = dot.missing();
        assert_eq!(missing.len(), pairs.len(), "{name} seed {seed}: {missing:?} for {pairs:?}");
        let mut drawn = BTreeSet::new();
        for (from, to, attrs) in &missing {
            assert!(attrs.contains("style=dashed") && attrs.contains("label=\"missing: "), "{name}: {attrs}");
            let (writer, reader) = (&dot.labels[from], &dot.labels[to]);
            let pair = pairs.iter().find(|((w, r), _)| writer.contains(w.as_str()) && reader.contains(r.as_str()));
            let Some((pair, resources)) = pair else { panic!("{name}: {writer} -> {reader} is no (writer, reader) pair of {pairs:?}") };
            assert!(drawn.insert(pair.clone()), "{name}: {pair:?} drawn twice");
            for resource in resources {
                assert!(attrs.contains(&format!("missing: {resource} [")), "{name}: {attrs}");
            }
        }
        with_edges += usize::from(!pairs.is_empty());
    }
    assert!(with_edges >= 5, "only {with_edges} traces had findings with a command as the expected writer");
}
