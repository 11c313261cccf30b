//! The module layering of the engine, checked on its source: no import circle between the files
//! of `sim-core` or of `sim-shader`, and the one-way rules of `sim-core/README.md` ("Layers")
//! hold: units never import the event loop's file, the reference run and the findings never
//! import the timed loop, the vocabulary (`api/`) never imports the engine.
//!
//! A file imports another when it names a path into it (`crate::engine::stream::Stream`, a `use`
//! group, `super::x`); a path that stops at a folder's `mod.rs` (a re-export there) is an import
//! of that `mod.rs`. Module declarations are not imports, and test modules are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Source files of a crate's `src`, as module paths (`engine/stream.rs` → `["engine", "stream"]`).
fn files(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut sub = prefix.to_vec();
                sub.push(name);
                walk(&p, &sub, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let mut m = prefix.to_vec();
                if name != "mod" && name != "lib" {
                    m.push(name);
                }
                out.insert(m, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out
}

/// The code of a file without comments, string contents and `#[cfg(test)]` modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut skip_depth: Option<usize> = None;
    let mut depth = 0usize;
    let mut pending_cfg_test = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.starts_with("#[cfg(test)]") {
            pending_cfg_test = true;
            continue;
        }
        let line = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        // Drop string literals (they may hold `crate::` in messages).
        let mut clean = String::new();
        let mut in_str = false;
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match (in_str, c) {
                (true, '\\') => {
                    chars.next();
                }
                (true, '"') => in_str = false,
                (true, _) => {}
                (false, '"') => in_str = true,
                (false, c) => clean.push(c),
            }
        }
        if pending_cfg_test && clean.contains("mod ") && skip_depth.is_none() {
            skip_depth = Some(depth);
        }
        pending_cfg_test = false;
        for c in clean.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if let Some(d) = skip_depth {
            if depth <= d && clean.contains('}') {
                skip_depth = None;
            }
            continue;
        }
        out.push_str(&clean);
        out.push('\n');
    }
    out
}

/// Every path a piece of code names from `crate::` or `super::`, `use` groups expanded.
fn paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let starts = (rest.starts_with("crate::") || rest.starts_with("super::")) && (i == 0 || !ident(bytes[i - 1]) && bytes[i - 1] != ':');
        if !starts {
            i += 1;
            continue;
        }
        // Read one path tree: segments, `::`, `{ ... }` groups.
        let mut j = i;
        let mut depth = 0;
        while j < bytes.len() {
            let c = bytes[j];
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 && !(ident(c) || c == ':') {
                break;
            }
            j += 1;
        }
        let tree: String = bytes[i..j].iter().filter(|c| !c.is_whitespace()).collect();
        for p in expand(&tree) {
            let mut segs: Vec<String> = p.split("::").filter(|s| !s.is_empty()).map(|s| s.split(" as ").next().unwrap().to_string()).collect();
            // Resolve `crate` and `super`.
            let mut base: Vec<String> = Vec::new();
            if segs.first().is_some_and(|s| s == "crate") {
                segs.remove(0);
            } else {
                // Each `super` is one module up from the file's own module.
                base = module.to_vec();
                while segs.first().is_some_and(|s| s == "super") {
                    segs.remove(0);
                    base.pop();
                }
            }
            base.extend(segs);
            out.push(base);
        }
        i = j.max(i + 1);
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else { return vec![tree.to_string()] };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(|p| expand(p).into_iter().map(move |s| if s == "self" { prefix.trim_end_matches("::").to_string() } else { format!("{prefix}{s}") })).collect()
}

/// The file a path leads into: its longest prefix that is a file's module.
fn target<'a>(path: &[String], modules: &'a BTreeMap<Vec<String>, PathBuf>) -> Option<&'a Vec<String>> {
    (0..=path.len()).rev().find_map(|n| modules.get_key_value(&path[..n]).map(|(k, _)| k))
}

/// Import edges between the files of a crate.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = files(src);
    let mut g = BTreeMap::new();
    for (m, p) in &modules {
        let text = std::fs::read_to_string(p).unwrap();
        let mut edges = BTreeSet::new();
        for path in paths(&code(&text), m) {
            if let Some(t) = target(&path, &modules)
                && t != m
            {
                edges.insert(t.clone());
            }
        }
        g.insert(m.clone(), edges);
    }
    g
}

/// Tarjan's bookkeeping: per node its visit index, low link and whether it is on the stack; the
/// stack, the next index, and the components found.
struct Tarjan {
    index: Vec<usize>,
    low: Vec<usize>,
    on: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<Vec<String>>,
}

/// Strongly connected components with more than one file (Tarjan).
fn circles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    let nodes: Vec<&Vec<String>> = g.keys().collect();
    let index_of = |n: &Vec<String>| nodes.iter().position(|m| *m == n);
    let mut t = Tarjan { index: vec![usize::MAX; nodes.len()], low: vec![0; nodes.len()], on: vec![false; nodes.len()], stack: Vec::new(), next: 0, out: Vec::new() };
    fn visit(v: usize, nodes: &[&Vec<String>], g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>, index_of: &dyn Fn(&Vec<String>) -> Option<usize>, t: &mut Tarjan) {
        t.index[v] = t.next;
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for w in g[nodes[v]].iter().filter_map(index_of) {
            if t.index[w] == usize::MAX {
                visit(w, nodes, g, index_of, t);
                t.low[v] = t.low[v].min(t.low[w]);
            } else if t.on[w] {
                t.low[v] = t.low[v].min(t.index[w]);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                comp.push(nodes[w].join("/"));
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    for v in 0..nodes.len() {
        if t.index[v] == usize::MAX {
            visit(v, &nodes, g, &index_of, &mut t);
        }
    }
    t.out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn m(s: &str) -> Vec<String> {
    s.split('/').filter(|x| !x.is_empty()).map(String::from).collect()
}

#[test]
fn no_import_circle_in_sim_core_or_sim_shader() {
    for krate in ["sim-core", "sim-shader", "sim-caches", "sim-host", "sim-rop", "sim-capture", "sim-vulkan"] {
        let g = graph(&root().join(krate).join("src"));
        let c = circles(&g);
        assert!(c.is_empty(), "{krate}: files that import each other in a circle: {c:?}");
    }
}

#[test]
fn one_way_rules_of_the_engine_hold() {
    let g = graph(&root().join("sim-core/src"));
    let imports = |from: &Vec<String>, to: &[String]| g[from].iter().any(|t| t.starts_with(to));
    let mut broken = Vec::new();
    for from in g.keys() {
        let name = from.join("/");
        // (rule, the files it binds, what they must not import)
        let rules: [(&str, bool, &str); 9] = [
            ("the fixed-function stages never import the engine", name.starts_with("fixed_function"), "engine"),
            ("the functional draw never imports the timed loop", name == "engine/draw", "engine/run"),
            ("the functional draw never imports the units", name == "engine/draw", "engine/units"),
            ("units never import the event loop", name.starts_with("engine/units"), "engine/run"),
            ("the reference run never imports the timed loop", name == "engine/reference", "engine/run"),
            ("the reference run never imports the units", name == "engine/reference", "engine/units"),
            ("the findings never import the timed loop", name == "engine/findings", "engine/run"),
            ("the vocabulary never imports the engine", name.starts_with("api"), "engine"),
            ("the hazard detector never imports the timed loop", name.starts_with("hazard"), "engine/run"),
        ];
        for (rule, applies, to) in rules {
            if applies && imports(from, &m(to)) {
                broken.push(format!("{rule}: {name} imports {to}"));
            }
        }
        // Nothing below the facade imports it back (its re-exports are for other crates).
        if name.starts_with("engine/") && g[from].contains(&m("engine")) {
            broken.push(format!("{name} imports engine/mod.rs (name the module that defines it)"));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The parser itself: a known circle is found, groups and `super` resolve.
#[test]
fn the_import_graph_reads_groups_and_super() {
    let code = "use crate::engine::{stream::{Stream, NodeKind}, order};\nfn f() { super::x::y(); }\n";
    let p = paths(code, &m("engine/units"));
    assert!(p.contains(&m("engine/stream/Stream")), "{p:?}");
    assert!(p.contains(&m("engine/order")), "{p:?}");
    assert!(p.contains(&m("engine/x/y")), "{p:?}");
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("a")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}

/// The crates below the engine know nothing of what sits above them: each may depend only on
/// the workspace crates named here (its Cargo.toml's `sim-*` dependencies, build and dev ones
/// included).
#[test]
fn the_lower_crates_depend_on_nothing_above_them() {
    let allowed: [(&str, &[&str]); 5] = [("sim-caches", &[]), ("sim-shader", &[]), ("sim-rop", &["sim-caches"]), ("sim-host", &["sim-caches"]), ("sim-capture", &[])];
    for (krate, may) in allowed {
        let manifest = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap_or_else(|e| panic!("{krate}: {e}"));
        let deps: Vec<&str> = manifest.lines().filter_map(|l| l.split(['.', ' ', '=']).next()).filter(|n| n.starts_with("sim-")).collect();
        for d in deps {
            assert!(may.contains(&d), "{krate} depends on {d}; it may depend on {may:?} only");
        }
    }
}
