//! The barrier table as a grid a reader can hold next to the seed's tables: one row per table
//! row (its access key), one column per stage group of the seed, and in each cell what the
//! planner does for a barrier of just that row's access at just those stages.

use serde::Serialize;

use super::Profile;
use super::plan::{CacheOp, plan_scope};
use super::table::{BarrierTable, CacheAction};
use crate::sync::{PipelineStageFlags2 as S, Scope, UsageSet, first_access_scope, second_access_scope};

/// The seed's eight stage columns, with COMPUTE_SHADER apart: the other pre-rasterization
/// shaders (tessellation, geometry, task, mesh) share the VERTEX_SHADER column, as the seed says
/// they behave alike.
pub fn stage_columns() -> Vec<(&'static str, S)> {
    vec![
        ("DRAW_INDIRECT", S::DRAW_INDIRECT),
        ("VERTEX_INPUT", S::VERTEX_INPUT),
        ("VERTEX_SHADER", S::VERTEX_SHADER | S::TESSELLATION_CONTROL_SHADER | S::TESSELLATION_EVALUATION_SHADER | S::GEOMETRY_SHADER | S::TASK_SHADER | S::MESH_SHADER),
        ("FRAGMENT_SHADER", S::FRAGMENT_SHADER),
        ("EARLY/LATE_FRAGMENT_TESTS", S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS),
        ("COLOR_ATTACHMENT_OUTPUT", S::COLOR_ATTACHMENT_OUTPUT),
        ("COMPUTE_SHADER", S::COMPUTE_SHADER),
        ("TRANSFER", S::ALL_TRANSFER),
        ("HOST", S::HOST),
    ]
}

/// One cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridCell {
    /// False for a combination no stage of the column can perform ("-").
    pub legal: bool,
    /// First-scope operations (`None` when the access has no write legal here).
    pub src: Option<Vec<String>>,
    /// Second-scope operations (`None` when the access is not legal here).
    pub dst: Option<Vec<String>>,
}

impl GridCell {
    /// The cell as text: `src: flush ROP, invalidate L2 / dst: flush L2, invalidate ROP`, `-`.
    pub fn text(&self) -> String {
        if !self.legal {
            return "-".into();
        }
        let side = |name: &str, ops: &Option<Vec<String>>| {
            ops.as_ref().map(|o| format!("{name}: {}", if o.is_empty() { "nothing".to_string() } else { o.join(", ") }))
        };
        [side("src", &self.src), side("dst", &self.dst)].into_iter().flatten().collect::<Vec<_>>().join(" / ")
    }
}

/// One row of the grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridRow {
    /// The row's access key as written.
    pub access: String,
    /// The row's stage restriction, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages: Option<String>,
    /// One cell per column.
    pub cells: Vec<GridCell>,
}

/// The barrier table as a grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableGrid {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, in table order.
    pub rows: Vec<GridRow>,
}

/// Operations as text, consecutive ones with one action sharing it: `flush ROP, invalidate L2`,
/// `invalidate L1, T$`.
pub fn ops_text(ops: &[CacheOp]) -> Vec<String> {
    let mut groups: Vec<(CacheAction, Vec<String>)> = Vec::new();
    for op in ops {
        match groups.last_mut() {
            Some((a, caches)) if *a == op.action => caches.push(op.cache.to_string()),
            _ => groups.push((op.action, vec![op.cache.to_string()])),
        }
    }
    groups.into_iter().map(|(a, caches)| format!("{} {}", a.as_str(), caches.join(", "))).collect()
}

/// Builds the grid of a profile's barrier table.
pub fn table_grid(profile: &Profile) -> TableGrid {
    let columns = stage_columns();
    let mut rows = Vec::new();
    // The profile with one row at a time, cloned once (a clone per row, with every row in it,
    // made the grid cost the square of the table's length).
    let mut single = Profile { barriers: BarrierTable { range: profile.barriers.range, rows: Vec::new(), submit: Vec::new(), signal: Vec::new(), layout_transitions: Vec::new() }, ..profile.clone() };
    for row in &profile.barriers.rows {
        // Each row alone, so the cell shows this row's effect and nothing of its neighbours'.
        single.barriers.rows = vec![row.clone()];
        let filter = row.stage_filter();
        let cells = columns
            .iter()
            .map(|(_, stages)| {
                let restrict = |u: UsageSet| UsageSet(u.iter().filter(|x| filter.is_none_or(|f| f.contains(x.stage()))).fold(0u128, |m, x| m | (1u128 << x.index())));
                let first = restrict(first_access_scope(*stages, row.access));
                let second = restrict(second_access_scope(*stages, row.access));
                GridCell {
                    legal: !first.is_empty() || !second.is_empty(),
                    src: (!first.is_empty()).then(|| ops_text(&plan_scope(&single, Scope::First, first, None))),
                    dst: (!second.is_empty()).then(|| ops_text(&plan_scope(&single, Scope::Second, second, None))),
                }
            })
            .collect();
        rows.push(GridRow { access: row.access.to_string(), stages: row.stages.map(|s| s.to_string()), cells });
    }
    TableGrid { columns: columns.iter().map(|(n, _)| n.to_string()).collect(), rows }
}

impl TableGrid {
    /// The table for a terminal of `width` columns: per table row, the stages where its access is
    /// legal, grouped by what a barrier does there, each group's first-scope (`src`) and
    /// second-scope (`dst`) operations on lines of their own.
    ///
    /// ```text
    /// SHADER_WRITE
    ///   at VERTEX_SHADER, FRAGMENT_SHADER, COMPUTE_SHADER
    ///     src  flush L2
    ///     dst  invalidate L2
    /// ```
    pub fn render_rows(&self, width: usize) -> String {
        let mut out = String::new();
        for r in &self.rows {
            out.push_str(&match &r.stages {
                Some(s) => format!("{} (at {s} only)\n", r.access),
                None => format!("{}\n", r.access),
            });
            // Columns with the same cell, in column order of their first appearance.
            let mut groups: Vec<(&GridCell, Vec<&str>)> = Vec::new();
            for (cell, column) in r.cells.iter().zip(&self.columns).filter(|(c, _)| c.legal) {
                match groups.iter_mut().find(|(c, _)| *c == cell) {
                    Some((_, cols)) => cols.push(column),
                    None => groups.push((cell, vec![column])),
                }
            }
            if groups.is_empty() {
                out.push_str("  never legal\n");
            }
            for (cell, cols) in groups {
                out.push_str(&wrap("  at ", "     ", &cols, width));
                let side = |name: &str, ops: &Option<Vec<String>>| {
                    ops.as_ref().map(|o| wrap(&format!("    {name}  "), "         ", &[if o.is_empty() { "nothing".to_string() } else { o.join(", ") }].iter().map(String::as_str).collect::<Vec<_>>(), width))
                };
                out.extend([side("src", &cell.src), side("dst", &cell.dst)].into_iter().flatten());
            }
        }
        out
    }

    /// The grid as aligned text, one line per table row, `|` between columns.
    pub fn render(&self) -> String {
        let mut table: Vec<Vec<String>> = Vec::new();
        let mut header = vec!["access".to_string()];
        header.extend(self.columns.iter().cloned());
        table.push(header);
        for r in &self.rows {
            let mut line = vec![match &r.stages {
                Some(s) => format!("{} @ {}", r.access, s),
                None => r.access.clone(),
            }];
            line.extend(r.cells.iter().map(GridCell::text));
            table.push(line);
        }
        let ncol = table[0].len();
        let widths: Vec<usize> = (0..ncol).map(|c| table.iter().map(|l| l.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
        let mut out = String::new();
        for (i, line) in table.iter().enumerate() {
            let cells: Vec<String> = line.iter().enumerate().map(|(c, s)| format!("{s:<w$}", w = widths[c])).collect();
            out.push_str(cells.join(" | ").trim_end());
            out.push('\n');
            if i == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                out.push_str(&rule.join("-|-"));
                out.push('\n');
            }
        }
        out
    }
}

/// `items` joined with `, ` after `first`, wrapped before `width` columns onto lines that start
/// with `rest`.
fn wrap(first: &str, rest: &str, items: &[&str], width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut fresh = true;
    for (k, item) in items.iter().enumerate() {
        let piece = if k + 1 < items.len() { format!("{item},") } else { item.to_string() };
        if !fresh && line.chars().count() + 1 + piece.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(&piece);
        fresh = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}
