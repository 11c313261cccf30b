//! A sweep's result as a CSV table and SVG charts.
//!
//! # Design
//! [`SweepTable`] holds the rows in point order; everything written comes from it alone, so a
//! merged table writes the same bytes as the single-machine run. The CSV has one row per point
//! (RFC 4180 quoting where a field needs it). The charts ([plotters], SVG back end) put the
//! combinations of values along the x axis and draw one line per trace: `cycles.svg` the
//! median cycles relative to the trace's first point (traces of very different lengths then
//! share an axis), `corruption.svg` the share of schedules that corrupted.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::ExperimentError;
use crate::sweep::PointRow;

/// A sweep's result: its name, the varied fields, and one row per point in point order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepTable {
    /// The sweep's name.
    pub name: String,
    /// The varied fields, in order.
    pub fields: Vec<String>,
    /// The rows.
    pub rows: Vec<PointRow>,
}

/// The numeric columns after the point, trace and varied fields.
pub const COLUMNS: [&str; 10] =
    ["schedules", "corrupted_schedules", "cycles_min", "cycles_median", "cycles_max", "stale_reads", "corrupted_bytes", "barrier_stall_cycles", "bytes_flushed", "lines_invalidated"];

/// An SVG line chart (960 × 540): `labels` along the x axis, one line with dots per series.
pub fn line_chart(title: &str, x_desc: &str, labels: &[String], y_desc: &str, series: &[(String, Vec<f64>)]) -> Result<String, ExperimentError> {
    let err = |e: String| ExperimentError::new(title, format!("cannot draw the chart: {e}"));
    let n = labels.len().max(series.iter().map(|s| s.1.len()).max().unwrap_or(0)).max(1);
    let top = series.iter().flat_map(|s| s.1.iter().copied()).fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(70)
            .y_label_area_size(70)
            .build_cartesian_2d(-1i32..n as i32, 0f64..top)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_labels(n + 2)
            .x_label_formatter(&|x| labels.get(*x as usize).filter(|_| *x >= 0).cloned().unwrap_or_default())
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (k, (name, ys)) in series.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points: Vec<(i32, f64)> = ys.iter().enumerate().map(|(i, &y)| (i as i32, y)).collect();
            chart
                .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(e.to_string()))?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| err(e.to_string()))?;
        }
        chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.9)).border_style(BLACK).draw().map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

/// `s` as one CSV field: quoted (inner quotes doubled) when it holds a comma, quote or line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// The columns each kind of cache adds after [`COLUMNS`], after the cache's name and `_`
/// (`L2_hits`).
pub const CACHE_COLUMNS: [&str; 3] = ["hits", "misses", "hit_rate"];

/// Where a kind of cache's columns go: the machine's order (a CU's caches, then the L2, then
/// the ROPs'), any other kind after them by name.
fn cache_rank(cache: &str) -> (usize, &str) {
    (["L1", "T$", "U$", "L2", "ROP$"].iter().position(|c| *c == cache).unwrap_or(usize::MAX), cache)
}

impl SweepTable {
    /// The kinds of cache some row has, in column order ([`cache_rank`]): a varied field can
    /// give a machine a cache another point's lacks.
    pub fn caches(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.rows.iter().flat_map(|r| r.caches.iter().map(|c| c.cache.as_str())).collect();
        v.sort_unstable_by_key(|c| cache_rank(c));
        v.dedup();
        v
    }

    /// The table as CSV: a header, then one line per point. A cache's columns are empty on a
    /// row whose machine lacks it, and its hit rate (4 decimals) where nothing accessed it.
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let caches = self.caches();
        let mut header = vec!["point".to_string(), "trace".to_string()];
        header.extend(self.fields.iter().cloned());
        header.extend(COLUMNS.iter().map(|c| c.to_string()));
        header.extend(caches.iter().flat_map(|k| CACHE_COLUMNS.iter().map(move |c| format!("{k}_{c}"))));
        out.push_str(&header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(","));
        out.push('\n');
        for r in &self.rows {
            let mut cells = vec![r.point.to_string(), r.trace.clone()];
            cells.extend(r.values.iter().cloned());
            cells.extend(
                [r.schedules, r.corrupted_schedules, r.cycles_min, r.cycles_median, r.cycles_max, r.stale_reads, r.corrupted_bytes, r.barrier_stall_cycles, r.bytes_flushed, r.lines_invalidated]
                    .iter()
                    .map(u64::to_string),
            );
            for k in &caches {
                match r.caches.iter().find(|c| c.cache == *k) {
                    Some(c) => cells.extend([c.hits.to_string(), c.misses.to_string(), c.hit_rate().map(|h| format!("{h:.4}")).unwrap_or_default()]),
                    None => cells.extend([String::new(), String::new(), String::new()]),
                }
            }
            out.push_str(&cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }

    /// The traces, in the order their points come.
    fn traces(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !v.contains(&r.trace.as_str()) {
                v.push(&r.trace);
            }
        }
        v
    }

    /// The x-axis label of a row: its values, joined.
    fn label(r: &PointRow) -> String {
        if r.values.is_empty() { "(the base profile)".into() } else { r.values.join(" / ") }
    }

    /// An SVG line chart of `y` per trace over the combinations of values.
    fn chart(&self, title: &str, y_desc: &str, y: impl Fn(&PointRow, &PointRow) -> f64) -> Result<String, ExperimentError> {
        let traces = self.traces();
        let per_trace: Vec<Vec<&PointRow>> = traces.iter().map(|t| self.rows.iter().filter(|r| r.trace == *t).collect()).collect();
        let n = per_trace.iter().map(Vec::len).max().unwrap_or(0);
        let labels: Vec<String> = per_trace.iter().find(|p| p.len() == n).map(|p| p.iter().map(|r| Self::label(r)).collect()).unwrap_or_default();
        let series: Vec<(String, Vec<f64>)> = traces.iter().zip(&per_trace).map(|(t, rows)| (t.to_string(), rows.iter().map(|r| y(r, rows[0])).collect())).collect();
        let fields = if self.fields.is_empty() { "no field varied".to_string() } else { self.fields.join(" / ") };
        line_chart(&format!("{}: {title}", self.name), &fields, &labels, y_desc, &series)
    }

    /// `cycles.svg`: each trace's median cycles relative to its first point.
    pub fn cycles_svg(&self) -> Result<String, ExperimentError> {
        self.chart("cycles", "median cycles / the trace's first point's", |r, first| r.cycles_median as f64 / first.cycles_median.max(1) as f64)
    }

    /// `corruption.svg`: the share of each point's schedules that corrupted.
    pub fn corruption_svg(&self) -> Result<String, ExperimentError> {
        self.chart("corruption", "schedules that corrupted (share)", |r, _| r.corrupted_schedules as f64 / r.schedules.max(1) as f64)
    }

    /// Writes `sweep.csv`, `cycles.svg` and `corruption.svg` into `dir` (made if missing).
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError> {
        let origin = dir.display().to_string();
        std::fs::create_dir_all(dir).map_err(|e| ExperimentError::new(&origin, format!("cannot make the directory: {e}")))?;
        let mut written = Vec::new();
        for (name, text) in [("sweep.csv", self.csv()), ("cycles.svg", self.cycles_svg()?), ("corruption.svg", self.corruption_svg()?)] {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| ExperimentError::new(&path.display().to_string(), format!("cannot write: {e}")))?;
            written.push(path);
        }
        Ok(written)
    }
}
