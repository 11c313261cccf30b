//! Shared helpers of the integration tests.

#![allow(dead_code)]

pub mod vulkan;

use std::path::{Path, PathBuf};

/// The traces (`*.json`, not `*.expect.json`) of a directory under the workspace root, sorted.
pub fn traces(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    v.sort();
    v
}
