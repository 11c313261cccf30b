//! The documentation names only what exists: every `scripts/...` a document names is in the
//! repository.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Markdown files at the top and under `docs/`, and each crate's README.
fn documents() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [root(), root().join("docs")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    for krate in ["sim-core", "sim-caches", "sim-host", "sim-shader", "sim-vulkan", "sim-experiments"] {
        let p = root().join(krate).join("README.md");
        if p.exists() {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn every_script_a_document_names_exists() {
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (i, _) in text.match_indices("scripts/") {
            // Not part of a longer path (`sim-core/scripts/...` does not exist either way).
            if i > 0 && !text[..i].ends_with(['`', ' ', '(', '\n', '"']) {
                continue;
            }
            let name: String = text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c)).collect();
            let name = name.trim_end_matches('.');
            if !root().join(name).exists() {
                missing.push(format!("{}: {name}", doc.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(missing.is_empty(), "documents name scripts that do not exist:\n{}", missing.join("\n"));
}

/// The commands a reader pastes build one profile, the one `cargo test` builds, so that a fresh
/// clone compiles once: no `cargo run --release` in a shell block of the README or the docs.
/// (A crate's README may time its benchmarks in the release build.)
#[test]
fn pasted_commands_build_one_profile() {
    let mut mixed = Vec::new();
    for doc in documents().into_iter().filter(|d| d.parent() == Some(&root()) || d.parent() == Some(&root().join("docs"))) {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut in_block = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
                continue;
            }
            if in_block && line.trim_start().starts_with("cargo ") && line.contains("--release") {
                mixed.push(format!("{}:{}: {line}", doc.strip_prefix(root()).unwrap().display(), n + 1));
            }
        }
    }
    assert!(mixed.is_empty(), "commands that build the release profile beside the test profile:\n{}", mixed.join("\n"));
}

/// The repository stands alone: no tracked file points into the `shared` folder beside it;
/// the facts the profiles rest on are in `docs/hardware/`, with their public sources.
#[test]
fn nothing_points_outside_the_repository() {
    let files = std::process::Command::new("git").args(["ls-files"]).current_dir(root()).output();
    let Some(files) = files.ok().filter(|o| o.status.success()) else {
        eprintln!("skipping nothing_points_outside_the_repository: not a git checkout");
        return;
    };
    let outside = ["../", "shared/"].concat();
    let mut found = Vec::new();
    for name in String::from_utf8_lossy(&files.stdout).lines() {
        let Ok(text) = std::fs::read_to_string(root().join(name)) else { continue };
        for (n, line) in text.lines().enumerate() {
            if line.contains(&outside) {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "files that point outside the repository:\n{}", found.join("\n"));
}
