//! A sweep's result as a CSV table and SVG charts.
//!
//! # Design
//! [`SweepTable`] holds the rows in point order; everything written comes from it alone, so a
//! merged table writes the same bytes as the single-machine run. The CSV has one row per point
//! (RFC 4180 quoting where a field needs it): the point, the trace, the varied fields' values,
//! the numbers of [`COLUMNS`], then [`CACHE_COLUMNS`] for each kind of cache some row has.
//!
//! The charts ([`crate::chart`]) put the first varied field along the x axis, read from the
//! values as the table holds them (text): numbers on a numeric axis, log2 for sizes
//! ([`size_like`]) and for values that are all powers of two, labelled in KiB and MiB for sizes
//! in bytes ([`bytes_like`]); anything else as categories in the sweep's order. Each trace and
//! combination of the other fields' values is its own series, so no point hides another's:
//! colour tells the traces apart (with one trace, the other values), the line's dash the other
//! values, and every series has its own marker. A series is named by the trace's file stem and the other values. `cycles.svg`
//! draws the median cycles relative to the trace's first point (traces of very different
//! lengths then share an axis), `corruption.svg` the share of schedules that corrupted.

use std::path::{Path, PathBuf};

use crate::ExperimentError;
use crate::chart::{Axis, LineChart, Scale, Series, Units, format_value};
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

/// `s` as one CSV field: quoted (inner quotes doubled) when it holds a comma, quote or line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// The last part of a dotted field's path (`size_bytes` of `machine.l2.cache.size_bytes`).
fn leaf(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}

/// Whether a field is a size in bytes (`size_bytes`, `line_bytes`, `channel_interleave_bytes`;
/// not a rate, `transfer_bytes_per_cycle`): its values are labelled in KiB and MiB.
pub fn bytes_like(field: &str) -> bool {
    let l = leaf(field).to_ascii_lowercase();
    !l.contains("_per_") && l.rsplit('_').next() == Some("bytes")
}

/// Whether a field is a size of some kind, one that architects vary by doubling (bytes, a
/// `size`, `lines`, `ways`, `sets`; not a rate per something): drawn on a log2 axis.
pub fn size_like(field: &str) -> bool {
    let l = leaf(field).to_ascii_lowercase();
    !l.contains("_per_") && l.split('_').any(|w| matches!(w, "size" | "bytes" | "lines" | "ways" | "sets"))
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

    /// How the charts name each trace: its file's stem, or the trace as the sweep names it
    /// where two traces share a stem.
    fn trace_names(&self) -> Vec<(String, String)> {
        let traces = self.traces();
        let stem = |t: &str| Path::new(t).file_stem().map_or_else(|| t.to_string(), |s| s.to_string_lossy().into_owned());
        let unique = traces.iter().all(|t| traces.iter().filter(|u| stem(u) == stem(t)).count() == 1);
        traces.iter().map(|t| (t.to_string(), if unique { stem(t) } else { t.to_string() })).collect()
    }

    /// The x axis the first varied field makes: numeric when every value is a number, on a log2
    /// scale when the field is a size ([`size_like`]) or every value a power of two, in bytes
    /// when the field is a size in bytes; its values as categories otherwise.
    fn x_axis(&self) -> (Axis, Vec<String>) {
        let Some(field) = self.fields.first() else {
            return (Axis { desc: "(no field varied)".into(), scale: Scale::Categorical(vec!["the base profile".into()]), units: Units::Plain }, vec![String::new()]);
        };
        let mut values: Vec<String> = Vec::new();
        for r in &self.rows {
            if let Some(v) = r.values.first().filter(|v| !values.contains(v)) {
                values.push(v.clone());
            }
        }
        let numbers: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
        let axis = match numbers {
            Some(xs) if !xs.is_empty() => {
                let units = if bytes_like(field) { Units::Bytes } else { Units::Plain };
                let powers = xs.iter().all(|&x| x >= 1.0 && x.fract() == 0.0 && (x as u64).is_power_of_two());
                if xs.iter().all(|&x| x > 0.0) && (size_like(field) || powers) {
                    Axis { desc: format!("{field} (log2 scale)"), scale: Scale::Log2, units }
                } else {
                    Axis { desc: field.clone(), scale: Scale::Linear, units }
                }
            }
            _ => Axis { desc: field.clone(), scale: Scale::Categorical(values.clone()), units: Units::Plain },
        };
        (axis, values)
    }

    /// A chart of `y` over the first varied field: one series per trace and combination of the
    /// other fields' values, so that every point is drawn. `y` takes a row and its trace's
    /// first row.
    fn chart(&self, title: &str, y_axis: Axis, y_max: Option<f64>, y: impl Fn(&PointRow, &PointRow) -> f64) -> Result<String, ExperimentError> {
        let (x_axis, x_values) = self.x_axis();
        let names = self.trace_names();
        let other = |r: &PointRow| r.values.get(1..).unwrap_or_default().to_vec();
        let mut combos: Vec<Vec<String>> = Vec::new();
        for r in &self.rows {
            if !combos.contains(&other(r)) {
                combos.push(other(r));
            }
        }
        let value_label = |field: &str, v: &str| if bytes_like(field) { v.parse::<f64>().map_or_else(|_| v.to_string(), |x| format_value(x, Units::Bytes, 0)) } else { v.to_string() };
        let mut series = Vec::new();
        for (t, (trace, name)) in names.iter().enumerate() {
            let rows: Vec<&PointRow> = self.rows.iter().filter(|r| &r.trace == trace).collect();
            let Some(first) = rows.first() else { continue };
            for (c, combo) in combos.iter().enumerate() {
                let points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| other(r) == *combo)
                    .map(|r| {
                        let v = r.values.first().map_or("", String::as_str);
                        let x = match x_axis.scale {
                            Scale::Categorical(_) => x_values.iter().position(|x| x == v).unwrap_or(0) as f64,
                            _ => v.parse().unwrap_or(0.0),
                        };
                        (x, y(r, first))
                    })
                    .collect();
                if points.is_empty() {
                    continue;
                }
                let mut label = name.clone();
                for (f, v) in self.fields.iter().skip(1).zip(combo) {
                    label.push_str(", ");
                    label.push_str(&value_label(f, v));
                }
                // Colour tells the traces apart and the dash the other fields' values, where
                // there are both; the marker is every series' own.
                let (colour, dash) = match (names.len() > 1, combos.len() > 1) {
                    (true, true) => (t, c),
                    (true, false) => (t, 0),
                    _ => (c, 0),
                };
                series.push(Series { name: label, points, colour, dash, marker: series.len() });
            }
        }
        let legend_title = std::iter::once("trace").chain(self.fields.iter().skip(1).map(String::as_str)).collect::<Vec<_>>().join(", ");
        LineChart { title: format!("{}: {title}", self.name), x: x_axis, y: y_axis, y_max, legend_title, series }.svg()
    }

    /// `cycles.svg`: each point's median cycles relative to its trace's first point's.
    pub fn cycles_svg(&self) -> Result<String, ExperimentError> {
        let y = Axis { desc: "median cycles / the trace's first point's".into(), scale: Scale::Linear, units: Units::Plain };
        self.chart("cycles", y, None, |r, first| r.cycles_median as f64 / first.cycles_median.max(1) as f64)
    }

    /// `corruption.svg`: the share of each point's schedules that corrupted.
    pub fn corruption_svg(&self) -> Result<String, ExperimentError> {
        let y = Axis { desc: "schedules that corrupted".into(), scale: Scale::Linear, units: Units::Share };
        self.chart("corruption", y, Some(1.0), |r, _| r.corrupted_schedules as f64 / r.schedules.max(1) as f64)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::CacheCounts;

    /// A row of `trace` at `values`, with `cycles` and, per cache, (name, hits, misses).
    fn row(point: usize, trace: &str, values: &[&str], cycles: u64, caches: &[(&str, u64, u64)]) -> PointRow {
        PointRow {
            point,
            trace: trace.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            schedules: 2,
            corrupted_schedules: (point % 3) as u64,
            cycles_min: cycles,
            cycles_median: cycles,
            cycles_max: cycles,
            stale_reads: 0,
            corrupted_bytes: 0,
            barrier_stall_cycles: 0,
            bytes_flushed: 0,
            lines_invalidated: 0,
            caches: caches.iter().map(|&(c, hits, misses)| CacheCounts { cache: c.into(), hits, misses }).collect(),
        }
    }

    /// Two traces (in folders) over an L2 size and a transfer path: 2 × 3 × 2 points.
    fn two_traces_two_fields() -> SweepTable {
        let mut rows = Vec::new();
        for trace in ["../traces/alpha.json", "../other/beta.json"] {
            for size in ["16384", "65536", "1048576"] {
                for path in ["through-l2", "direct-to-vram"] {
                    rows.push(row(rows.len(), trace, &[size, path], 100 + rows.len() as u64, &[("L2", 3, 1)]));
                }
            }
        }
        SweepTable { name: "demo".into(), fields: vec!["machine.l2.cache.size_bytes".into(), "machine.transfer.path".into()], rows }
    }

    #[test]
    fn a_size_sweeps_charts_have_a_series_per_trace_and_other_value_named_by_the_traces_stem() {
        let t = two_traces_two_fields();
        for svg in [t.cycles_svg().unwrap(), t.corruption_svg().unwrap()] {
            for entry in ["alpha, through-l2", "alpha, direct-to-vram", "beta, through-l2", "beta, direct-to-vram"] {
                assert!(svg.contains(entry), "legend entry {entry}");
            }
            assert!(!svg.contains("../traces/alpha.json") && !svg.contains("../other"), "the traces by name, not path");
            // A log2 axis of byte sizes: every power of two from 16 KiB to 1 MiB.
            assert!(svg.contains("machine.l2.cache.size_bytes (log2 scale)"));
            for tick in ["16 KiB", "32 KiB", "64 KiB", "512 KiB", "1 MiB"] {
                assert!(svg.contains(tick), "tick {tick}");
            }
            assert!(svg.contains("trace, machine.transfer.path"), "the legend's heading names what its entries are");
        }
    }

    #[test]
    fn a_non_numeric_field_keeps_its_values_as_categories_and_a_number_that_is_no_size_is_linear() {
        let rows = ["through-l2", "direct-to-vram"].iter().enumerate().map(|(i, p)| row(i, "t.json", &[p], 10, &[])).collect();
        let svg = SweepTable { name: "paths".into(), fields: vec!["machine.transfer.path".into()], rows }.cycles_svg().unwrap();
        assert!(svg.contains("through-l2") && svg.contains("direct-to-vram") && !svg.contains("log2"));
        let rows = ["0", "64", "256", "1024"].iter().enumerate().map(|(i, j)| row(i, "t.json", &[j], 10, &[])).collect();
        let svg = SweepTable { name: "jitter".into(), fields: vec!["timing.latency_jitter_cycles".into()], rows }.cycles_svg().unwrap();
        assert!(svg.contains("timing.latency_jitter_cycles") && !svg.contains("log2") && !svg.contains("KiB"));
        assert!(svg.contains("\n1000\n</text>") && svg.contains("\n200\n</text>"), "round-number ticks");
        let rows = vec![row(0, "t.json", &[], 10, &[])];
        assert!(SweepTable { name: "base".into(), fields: vec![], rows }.cycles_svg().unwrap().contains("the base profile"));
    }

    #[test]
    fn sizes_are_told_from_rates() {
        for f in ["machine.l2.cache.size_bytes", "machine.cu.l1.line_bytes", "machine.vram.channel_interleave_bytes"] {
            assert!(bytes_like(f) && size_like(f), "{f}");
        }
        for f in ["machine.l2.cache.ways", "machine.cu.subgroup_size", "limits.max_update_buffer_size"] {
            assert!(size_like(f) && !bytes_like(f), "{f}");
        }
        for f in ["machine.transfer.transfer_bytes_per_cycle", "timing.maintenance_cycles_per_line", "timing.latency_jitter_cycles", "machine.l2.cache.replacement"] {
            assert!(!size_like(f) && !bytes_like(f), "{f}");
        }
    }

    #[test]
    fn every_cache_some_row_has_gets_its_columns_in_the_machines_order() {
        let rows = vec![row(0, "t.json", &["a"], 10, &[("L1", 3, 1), ("L2", 0, 0)]), row(1, "t.json", &["b"], 10, &[("L2", 1, 2), ("T$", 5, 0)])];
        let csv = SweepTable { name: "c".into(), fields: vec!["f".into()], rows }.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",lines_invalidated,L1_hits,L1_misses,L1_hit_rate,T$_hits,T$_misses,T$_hit_rate,L2_hits,L2_misses,L2_hit_rate"), "{}", lines[0]);
        // A cache a row's machine lacks is empty; one nothing accessed has no rate.
        assert!(lines[1].ends_with(",0,3,1,0.7500,,,,0,0,"), "{}", lines[1]);
        assert!(lines[2].ends_with(",0,,,,5,0,1.0000,1,2,0.3333"), "{}", lines[2]);
    }
}
