//! Counts of a capture's blocks by kind and of its calls by name.
//!
//! A summary is the cheapest useful view of a capture: what it holds, and which calls an
//! importer would have to convert or refuse. It is built block by block, so it can be taken
//! while streaming without keeping the blocks.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use crate::error::CaptureError;
use crate::format::meta_data_type_name;
use crate::ids;
use crate::reader::{Block, BlockKind, CaptureReader};

/// Counts of blocks and calls. Maps are ordered, so the printed form is deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Blocks by kind name (`FunctionCall`, `MetaData`, ...).
    pub blocks: BTreeMap<&'static str, u64>,
    /// Blocks that were stored compressed.
    pub compressed_blocks: u64,
    /// Call blocks by function name (unknown ids by their number, see [`ids::display_call`]).
    pub calls: BTreeMap<String, u64>,
    /// Meta-data blocks by type name (unknown types by their number).
    pub meta_data: BTreeMap<String, u64>,
    /// Decompressed payload bytes in all.
    pub payload_bytes: u64,
}

impl Summary {
    /// Counts one block.
    pub fn add(&mut self, block: &Block) {
        *self.blocks.entry(block.kind.name()).or_default() += 1;
        self.compressed_blocks += u64::from(block.compressed);
        self.payload_bytes += block.payload.len() as u64;
        if let Some(id) = block.api_call_id() {
            *self.calls.entry(ids::display_call(id)).or_default() += 1;
        }
        if let BlockKind::MetaData { meta_data_id } = block.kind {
            let t = meta_data_id as u16;
            let name =
                meta_data_type_name(t).map_or_else(|| format!("meta-data type {t}"), str::to_owned);
            *self.meta_data.entry(name).or_default() += 1;
        }
    }

    /// The summary of some blocks.
    pub fn of<'a>(blocks: impl IntoIterator<Item = &'a Block>) -> Self {
        let mut summary = Self::default();
        blocks.into_iter().for_each(|b| summary.add(b));
        summary
    }

    /// Reads a whole capture, keeping only the counts.
    pub fn read<R: Read>(reader: CaptureReader<R>) -> Result<Self, CaptureError> {
        let mut summary = Self::default();
        for block in reader {
            summary.add(&block?);
        }
        Ok(summary)
    }

    /// Total blocks counted.
    pub fn total_blocks(&self) -> u64 {
        self.blocks.values().sum()
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} blocks ({} compressed), {} payload bytes",
            self.total_blocks(),
            self.compressed_blocks,
            self.payload_bytes
        )?;
        for (kind, n) in &self.blocks {
            writeln!(f, "  {kind}: {n}")?;
        }
        for (name, n) in &self.calls {
            writeln!(f, "  call {name}: {n}")?;
        }
        for (name, n) in &self.meta_data {
            writeln!(f, "  meta-data {name}: {n}")?;
        }
        Ok(())
    }
}
