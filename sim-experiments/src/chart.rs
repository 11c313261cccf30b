//! SVG charts a paper can take as they are: line charts over a numeric, log2 or categorical x
//! axis, and grouped bar charts, each with its legend to the right of the plot.
//!
//! # Design
//! Drawing is [plotters]' SVG back end; everything it cannot be trusted to lay out is decided
//! here. Ticks are chosen here and bound to the axes as key points: round numbers on a linear
//! axis, powers of two on a log2 one (the axis then runs over the values' log2, so the ticks
//! are exact), one per category, each thinned until its label fits. Labels are formatted here
//! ([`Units`]): byte sizes in KiB and MiB, counts with k and M, shares in percent. The legend is
//! not plotters' (which sits inside the plot, over the data) but drawn beside it, in an area as
//! wide as its longest entry; the picture grows with the legend instead of the plot shrinking.
//!
//! Series that coincide stay visible: each has its own marker shape, drawn hollow so that one
//! inside another shows, and earlier series are drawn wider (lines and markers) so that a later
//! one on top of them leaves them showing at its edges. Colours are the Okabe–Ito palette,
//! legible to the colour-blind, and line dashes a third way to tell series apart. Text widths
//! are estimated (an SVG's fonts are the viewer's), generously, so labels do not overlap in
//! the fonts viewers use.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::ExperimentError;

/// Colours of series, in order: the Okabe–Ito palette (its yellow, too pale for a line on
/// white, left out), then two more.
const PALETTE: [(u8, u8, u8); 9] = [(0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167), (230, 159, 0), (86, 180, 233), (0, 0, 0), (117, 112, 179), (153, 153, 153)];

/// The number of marker shapes ([`marker_path`]).
pub const MARKERS: usize = 8;

/// Font sizes as plotters takes them (it writes 1/1.24 of them into the SVG): the title, axis
/// descriptions, tick labels and legend entries.
const TITLE_PX: u32 = 26;
const DESC_PX: u32 = 21;
const TICK_PX: u32 = 19;
const LEGEND_PX: u32 = 19;
/// A legend entry's height.
const LEGEND_ROW: i32 = 24;
/// The most legend entries listed; the rest are counted in one line.
const MAX_LEGEND_ENTRIES: usize = 60;

/// The colour of series `k`.
pub fn colour(k: usize) -> RGBColor {
    let (r, g, b) = PALETTE[k % PALETTE.len()];
    RGBColor(r, g, b)
}

/// How wide `text` is drawn at plotters' size `px` (an estimate a little over common
/// sans-serif fonts' average, so that what fits here fits when the SVG is shown).
fn text_width(text: &str, px: u32) -> i32 {
    (text.chars().count() as f64 * f64::from(px) / 1.24 * 0.56).ceil() as i32
}

/// A linear axis over `range` whose ticks (and grid lines) are `ticks`, no others: plotters'
/// own choice of ticks cannot be bound to its formatted axes.
struct Ticked {
    range: (f64, f64),
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (lo, hi) = self.range;
        let share = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        limit.0 + (f64::from(limit.1 - limit.0) * share).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold grid lines at the ticks; no light ones between them.
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> Range<f64> {
        self.range.0..self.range.1
    }
}

/// How an axis's values are labelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    /// Numbers as they are (`1024`, `0.5`).
    Plain,
    /// Bytes: `512 B`, `64 KiB`, `1 MiB`, `1.5 GiB`.
    Bytes,
    /// Counts, large ones shortened: `950`, `200k`, `1.5M`.
    Count,
    /// Shares of 1 as percentages: `0%`, `25%`, `100%`.
    Share,
}

/// How an axis places its values.
#[derive(Clone, Debug, PartialEq)]
pub enum Scale {
    /// Values at their positions.
    Linear,
    /// Values (all above 0) at their log2: equal steps for each doubling.
    Log2,
    /// One position per label, in order; a value is the label's index.
    Categorical(Vec<String>),
}

/// An axis: what it shows, how values are placed and how they are labelled.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The description written along it.
    pub desc: String,
    /// How values are placed.
    pub scale: Scale,
    /// How tick labels are written.
    pub units: Units,
}

/// One line of a [`LineChart`].
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its legend entry.
    pub name: String,
    /// Its points (x as the x axis takes it: a value, or a category's index), in x order.
    pub points: Vec<(f64, f64)>,
    /// Its colour ([`colour`]).
    pub colour: usize,
    /// Its line: 0 solid, then dashed, dotted, and again.
    pub dash: usize,
    /// Its marker's shape (of [`MARKERS`]).
    pub marker: usize,
}

/// A line chart: series over an x axis, the legend at the right.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// The title above.
    pub title: String,
    /// The x axis.
    pub x: Axis,
    /// The y axis (linear, from 0).
    pub y: Axis,
    /// The top of the y axis; the data's largest value when `None`.
    pub y_max: Option<f64>,
    /// The heading of the legend (what the entries name: `trace, machine.transfer.path`).
    pub legend_title: String,
    /// The lines, drawn in order.
    pub series: Vec<Series>,
}

/// A grouped bar chart: per group along the x axis, one bar per member, the legend at the right.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// The title above.
    pub title: String,
    /// The description of the x axis (what the groups are).
    pub x_desc: String,
    /// The groups, left to right.
    pub groups: Vec<String>,
    /// The bars of each group, left to right: their legend entries.
    pub bars: Vec<String>,
    /// Per bar, per group: its height, `None` where it has none (a bar left out). A height of 0
    /// is drawn as a line at the baseline, so it is told from a bar left out.
    pub values: Vec<Vec<Option<f64>>>,
    /// The y axis (its scale is linear, from 0).
    pub y: Axis,
    /// The heading of the legend.
    pub legend_title: String,
}

/// `v` as `units` write it, with `decimals` decimals where the units take them.
pub fn format_value(v: f64, units: Units, decimals: usize) -> String {
    match units {
        Units::Plain => format!("{v:.decimals$}"),
        Units::Share => format!("{:.decimals$}%", v * 100.0),
        Units::Bytes => {
            let (scaled, unit) = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")].into_iter().find(|(s, _)| v.abs() >= *s as f64).map_or((v, "B"), |(s, u)| (v / s as f64, u));
            format!("{} {unit}", trimmed(scaled))
        }
        Units::Count => {
            let (scaled, unit) = [(1e9, "G"), (1e6, "M"), (1e3, "k")].into_iter().find(|(s, _)| v.abs() >= *s).map_or((v, ""), |(s, u)| (v / s, u));
            format!("{}{unit}", trimmed(scaled))
        }
    }
}

/// `v` with at most two decimals, and none that are 0 at the end (`1.5`, `64`).
fn trimmed(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// Decimals that tell ticks `step` apart when written in `units` (a share as a percentage).
fn decimals(step: f64, units: Units) -> usize {
    let step = if units == Units::Share { step * 100.0 } else { step };
    if step >= 1.0 || step <= 0.0 { 0 } else { (-step.log10() - 1e-9).ceil() as usize }
}

/// Round-number ticks over `lo..=hi`, at most `most` of them: steps of 1, 2 or 5 times a power
/// of ten, or for bytes a power of two (64 KiB, not 97.66 KiB). Returns the ticks and the step.
fn linear_ticks(lo: f64, hi: f64, most: usize, units: Units) -> (Vec<f64>, f64) {
    let span = (hi - lo).max(f64::EPSILON);
    let rough = span / most.saturating_sub(1).max(1) as f64;
    let step = if units == Units::Bytes && rough >= 1.0 {
        2f64.powf(rough.log2().ceil())
    } else {
        let mag = 10f64.powf(rough.log10().floor());
        [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= rough * (1.0 - 1e-9)).unwrap_or(10.0 * mag)
    };
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // `k * step` rather than an accumulated sum: no drift into labels like 0.30000000000000004.
    ((first..=last).map(|k| k as f64 * step).collect(), step)
}

/// Ticks at every `k`-th power of two over `lo..=hi` (log2 values), `k` the least that keeps
/// them at most `most`.
fn log2_ticks(lo: f64, hi: f64, most: usize) -> Vec<f64> {
    let (first, last) = (lo.ceil() as i64, hi.floor() as i64);
    let count = (last - first + 1).max(1) as usize;
    let k = count.div_ceil(most.max(1)).max(1);
    (first..=last).step_by(k).map(|e| e as f64).collect()
}

/// How many ticks fit along `px` pixels when each label is `label_px` wide.
fn ticks_fitting(px: i32, label_px: i32) -> usize {
    ((px / (label_px + 24).max(1)) as usize).clamp(2, 12)
}

/// An x axis's range (in its own terms: log2 values on a log2 axis), ticks and tick labels.
struct XLayout {
    range: (f64, f64),
    ticks: Vec<f64>,
    labels: Vec<String>,
}

impl XLayout {
    /// The layout of `axis` over x values `xs` (already in log2 on a log2 axis), `px` wide.
    fn new(axis: &Axis, xs: &[f64], px: i32) -> XLayout {
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        match &axis.scale {
            Scale::Categorical(labels) => {
                let n = labels.len().max(1);
                let widest = labels.iter().map(|l| text_width(l, TICK_PX)).max().unwrap_or(0);
                // Every label when they fit; else every k-th.
                let k = (n * (widest + 16) as usize).div_ceil(px.max(1) as usize).max(1);
                let ticks: Vec<f64> = (0..n).step_by(k).map(|i| i as f64).collect();
                XLayout { range: (-0.5, n as f64 - 0.5), labels: ticks.iter().map(|&t| labels.get(t as usize).cloned().unwrap_or_default()).collect(), ticks }
            }
            Scale::Log2 => {
                let pad = ((hi - lo) * 0.06).max(0.4);
                let widest = text_width(&format_value(2f64.powf(hi), axis.units, 0), TICK_PX);
                let ticks = log2_ticks(lo, hi, ticks_fitting(px, widest));
                let labels = ticks.iter().map(|&e| format_value(2f64.powf(e), axis.units, 0)).collect();
                XLayout { range: (lo - pad, hi + pad), ticks, labels }
            }
            Scale::Linear => {
                let pad = if hi > lo { (hi - lo) * 0.05 } else { lo.abs().max(1.0) * 0.5 };
                let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - pad, hi + pad) };
                let widest = text_width(&format_value(hi, axis.units, 2), TICK_PX);
                let (ticks, step) = linear_ticks(lo, hi, ticks_fitting(px, widest), axis.units);
                let labels = ticks.iter().map(|&t| format_value(t, axis.units, decimals(step, axis.units))).collect();
                XLayout { range: (lo - pad, hi + pad), ticks, labels }
            }
        }
    }

    /// The label of tick `x`.
    fn label(&self, x: f64) -> String {
        self.ticks.iter().position(|t| (t - x).abs() < 1e-9).map(|i| self.labels[i].clone()).unwrap_or_default()
    }
}

/// A y axis from 0: its range (a little below 0, so markers at 0 show whole), ticks and labels.
struct YLayout {
    range: (f64, f64),
    ticks: Vec<f64>,
    labels: Vec<String>,
}

impl YLayout {
    fn new(units: Units, top: f64) -> YLayout {
        let top = if top > 0.0 && top.is_finite() { top } else { 1.0 };
        let (mut ticks, step) = linear_ticks(0.0, top, 8, units);
        // The axis ends at a tick: the highest value is read against a labelled line.
        let last = ticks.last().copied().unwrap_or(0.0);
        if last < top * (1.0 - 1e-9) {
            ticks.push(last + step);
        }
        let end = ticks.last().copied().unwrap_or(top).max(top);
        let labels = ticks.iter().map(|&t| format_value(t, units, decimals(step, units))).collect();
        YLayout { range: (-end * 0.03, end * 1.03), ticks, labels }
    }

    fn label(&self, y: f64) -> String {
        self.ticks.iter().position(|t| (t - y).abs() < 1e-12).map(|i| self.labels[i].clone()).unwrap_or_default()
    }

    /// The width of the area left of the plot: the widest label and the description.
    fn area_px(&self) -> u32 {
        (self.labels.iter().map(|l| text_width(l, TICK_PX)).max().unwrap_or(0) + DESC_PX as i32 + 28) as u32
    }
}

/// A marker of shape `shape` (of [`MARKERS`]), `size` pixels from its centre to its edge, as a
/// path around its centre; `None` for the circle, drawn as one.
fn marker_path(shape: usize, size: i32) -> Option<Vec<(i32, i32)>> {
    let s = size;
    let d = (f64::from(size) * 1.2).round() as i32;
    Some(match shape % MARKERS {
        0 => return None,
        // Triangle, square, diamond, triangle down: closed outlines.
        1 => vec![(0, -d), (d, s * 3 / 4), (-d, s * 3 / 4), (0, -d)],
        2 => vec![(-s, -s), (s, -s), (s, s), (-s, s), (-s, -s)],
        3 => vec![(0, -d), (d, 0), (0, d), (-d, 0), (0, -d)],
        4 => vec![(0, d), (d, -s * 3 / 4), (-d, -s * 3 / 4), (0, d)],
        // Cross and plus: strokes through the centre, drawn as one path.
        5 => vec![(-s, -s), (s, s), (0, 0), (s, -s), (-s, s)],
        6 => vec![(-d, 0), (d, 0), (0, 0), (0, -d), (0, d)],
        // A five-pointed star's outline: no other marker is drawn inside it.
        _ => (0..=10)
            .map(|i| {
                let r = if i % 2 == 0 { f64::from(d) * 1.15 } else { f64::from(d) * 0.5 };
                let a = std::f64::consts::PI * (f64::from(i) / 5.0 - 0.5);
                ((r * a.cos()).round() as i32, (r * a.sin()).round() as i32)
            })
            .collect(),
    })
}

/// The dash (length, gap) of line style `dash`; `None` for solid.
fn dash_pattern(dash: usize) -> Option<(u32, u32)> {
    [None, Some((10, 6)), Some((3, 4)), Some((14, 4))][dash % 4]
}

/// Draws marker `shape` of `size` at `at` (any coordinates) in `style`.
fn draw_marker<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(area: &DrawingArea<DB, CT>, at: CT::From, shape: usize, size: i32, style: ShapeStyle) -> Result<(), String>
where
    CT::From: Clone,
{
    match marker_path(shape, size) {
        None => area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), size, style))),
        Some(path) => area.draw(&(EmptyElement::at(at) + PathElement::new(path, style))),
    }
    .map_err(|e| e.to_string())
}

/// A legend entry: how its sample is drawn.
enum Sample {
    /// A line (colour, width, dash) with a marker (shape, size) on it.
    Line { colour: RGBColor, width: u32, dash: usize, marker: usize, size: i32 },
    /// A filled box.
    Bar { colour: RGBColor },
}

/// The width of a legend of `entries` under `title`.
fn legend_width(title: &str, entries: &[(String, Sample)]) -> u32 {
    let widest = entries.iter().take(MAX_LEGEND_ENTRIES).map(|(n, _)| text_width(n, LEGEND_PX)).max().unwrap_or(0).max(text_width(title, LEGEND_PX) - 46);
    (widest + 46 + 40) as u32
}

/// The height a legend of `n` entries needs, with the plot's margins around it.
fn legend_height(n: usize) -> u32 {
    (n.min(MAX_LEGEND_ENTRIES + 1) as i32 * LEGEND_ROW + 150) as u32
}

/// Draws the legend in `area` (beside the plot): the title, then one row per entry.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, entries: &[(String, Sample)]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (x0, mut y) = (14, 22);
    let font = ("sans-serif", LEGEND_PX).into_font();
    area.draw(&Text::new(title.to_string(), (x0, y), font.clone().style(FontStyle::Bold))).map_err(e)?;
    y += LEGEND_ROW + 4;
    let shown = if entries.len() > MAX_LEGEND_ENTRIES { MAX_LEGEND_ENTRIES - 1 } else { entries.len() };
    for (name, sample) in &entries[..shown] {
        let mid = y + LEGEND_ROW / 2 - 4;
        match sample {
            Sample::Line { colour, width, dash, marker, size } => {
                let style = colour.stroke_width(*width);
                match dash_pattern(*dash) {
                    None => area.draw(&PathElement::new(vec![(x0, mid), (x0 + 36, mid)], style)).map_err(e)?,
                    Some((len, gap)) => area.draw(&DashedPathElement::new(vec![(x0, mid), (x0 + 36, mid)], len, gap, style)).map_err(e)?,
                }
                draw_marker(area, (x0 + 18, mid), *marker, *size, colour.stroke_width(2))?;
            }
            Sample::Bar { colour } => {
                area.draw(&Rectangle::new([(x0 + 8, mid - 7), (x0 + 28, mid + 7)], colour.filled())).map_err(e)?;
            }
        }
        area.draw(&Text::new(name.clone(), (x0 + 46, mid - LEGEND_PX as i32 / 2 - 1), font.clone())).map_err(e)?;
        y += LEGEND_ROW;
    }
    if shown < entries.len() {
        area.draw(&Text::new(format!("… and {} more", entries.len() - shown), (x0 + 46, y), font)).map_err(e)?;
    }
    Ok(())
}

/// A plotters error as the chart's.
fn chart_error(title: &str) -> impl Fn(String) -> ExperimentError + '_ {
    move |e| ExperimentError::new(title, format!("cannot draw the chart: {e}"))
}

/// The width of the plot (the axes and their labels, without the legend).
const PLOT_PX: u32 = 820;

impl LineChart {
    /// The chart as SVG text.
    pub fn svg(&self) -> Result<String, ExperimentError> {
        let err = chart_error(&self.title);
        let n = self.series.len().max(1);
        // Earlier series wider, so that later ones drawn over them leave them showing.
        let width = |k: usize| 2 + ((n - 1 - k.min(n - 1)) * 2).div_ceil(n.max(2) - 1).min(2) as u32;
        let size = |k: usize| 4 + ((n - 1 - k.min(n - 1)) * 5).div_ceil(n.max(2) - 1).min(5) as i32;
        let entries: Vec<(String, Sample)> = self.series.iter().enumerate().map(|(k, s)| (s.name.clone(), Sample::Line { colour: colour(s.colour), width: width(k), dash: s.dash, marker: s.marker, size: size(k) })).collect();
        let log2 = self.x.scale == Scale::Log2;
        let xs: Vec<f64> = self.series.iter().flat_map(|s| s.points.iter().map(|p| if log2 { p.0.log2() } else { p.0 })).collect();
        let top = self.y_max.unwrap_or_else(|| self.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max));
        let y = YLayout::new(self.y.units, top);
        let x = XLayout::new(&self.x, &xs, PLOT_PX as i32 - y.area_px() as i32 - 40);
        let legend_px = legend_width(&self.legend_title, &entries);
        let height = legend_height(entries.len()).max(560);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (PLOT_PX + legend_px, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
            let body = root.titled(&self.title, ("sans-serif", TITLE_PX)).map_err(|e| err(e.to_string()))?;
            let (plot, legend) = body.split_horizontally(PLOT_PX);
            let mut chart = ChartBuilder::on(&plot)
                .margin_top(12)
                .margin_left(8)
                .margin_right(24)
                .margin_bottom(8)
                .x_label_area_size(64)
                .y_label_area_size(y.area_px())
                .build_cartesian_2d(Ticked { range: x.range, ticks: x.ticks.clone() }, Ticked { range: y.range, ticks: y.ticks.clone() })
                .map_err(|e| err(e.to_string()))?;
            chart
                .configure_mesh()
                .x_label_formatter(&|v| x.label(*v))
                .y_label_formatter(&|v| y.label(*v))
                .label_style(("sans-serif", TICK_PX))
                .axis_desc_style(("sans-serif", DESC_PX))
                .x_desc(self.x.desc.as_str())
                .y_desc(self.y.desc.as_str())
                .bold_line_style(BLACK.mix(0.12))
                .axis_style(BLACK.mix(0.8))
                .draw()
                .map_err(|e| err(e.to_string()))?;
            for (k, s) in self.series.iter().enumerate() {
                let c = colour(s.colour);
                let points: Vec<(f64, f64)> = s.points.iter().map(|&(px, py)| (if log2 { px.log2() } else { px }, py)).collect();
                let style = c.stroke_width(width(k));
                match dash_pattern(s.dash) {
                    None => chart.draw_series(LineSeries::new(points.iter().copied(), style)).map(|_| ()),
                    Some((len, gap)) => chart.draw_series(DashedLineSeries::new(points.iter().copied(), len, gap, style)).map(|_| ()),
                }
                .map_err(|e| err(e.to_string()))?;
                for &p in &points {
                    draw_marker(chart.plotting_area(), p, s.marker, size(k), c.stroke_width(2)).map_err(&err)?;
                }
            }
            draw_legend(&legend, &self.legend_title, &entries).map_err(&err)?;
            root.present().map_err(|e| err(e.to_string()))?;
        }
        Ok(svg)
    }
}

impl BarChart {
    /// The chart as SVG text.
    pub fn svg(&self) -> Result<String, ExperimentError> {
        let err = chart_error(&self.title);
        let entries: Vec<(String, Sample)> = self.bars.iter().enumerate().map(|(k, b)| (b.clone(), Sample::Bar { colour: colour(k) })).collect();
        let top = self.values.iter().flatten().flatten().copied().fold(0.0, f64::max);
        let y = YLayout::new(self.y.units, top);
        let groups = self.groups.len().max(1);
        let bars = self.bars.len().max(1);
        // Wide enough for each group's label and for bars of at least 10 pixels.
        let widest = self.groups.iter().map(|g| text_width(g, TICK_PX)).max().unwrap_or(0);
        let group_px = (widest + 20).max(bars as i32 * 10 + 16);
        let plot_px = PLOT_PX.max((groups as i32 * group_px) as u32 + y.area_px() + 40);
        let legend_px = legend_width(&self.legend_title, &entries);
        let height = legend_height(entries.len()).max(560);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (plot_px + legend_px, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
            let body = root.titled(&self.title, ("sans-serif", TITLE_PX)).map_err(|e| err(e.to_string()))?;
            let (plot, legend) = body.split_horizontally(plot_px);
            let ticks: Vec<f64> = (0..groups).map(|g| g as f64).collect();
            let mut chart = ChartBuilder::on(&plot)
                .margin_top(12)
                .margin_left(8)
                .margin_right(24)
                .margin_bottom(8)
                .x_label_area_size(64)
                .y_label_area_size(y.area_px())
                .build_cartesian_2d(Ticked { range: (-0.5, groups as f64 - 0.5), ticks }, Ticked { range: y.range, ticks: y.ticks.clone() })
                .map_err(|e| err(e.to_string()))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_label_formatter(&|v| self.groups.get(v.round() as usize).cloned().unwrap_or_default())
                .y_label_formatter(&|v| y.label(*v))
                .label_style(("sans-serif", TICK_PX))
                .axis_desc_style(("sans-serif", DESC_PX))
                .x_desc(self.x_desc.as_str())
                .y_desc(self.y.desc.as_str())
                .bold_line_style(BLACK.mix(0.12))
                .axis_style(BLACK.mix(0.8))
                .draw()
                .map_err(|e| err(e.to_string()))?;
            // Each group's bars fill 80% of its width, side by side.
            let bar_w = 0.8 / bars as f64;
            for (k, per_group) in self.values.iter().enumerate() {
                let c = colour(k);
                for (g, v) in per_group.iter().enumerate() {
                    let Some(v) = *v else { continue };
                    let x0 = g as f64 - 0.4 + k as f64 * bar_w;
                    let (x1, x2) = (x0 + bar_w * 0.08, x0 + bar_w * 0.92);
                    if v > 0.0 {
                        chart.draw_series([Rectangle::new([(x1, 0.0), (x2, v)], c.filled())]).map_err(|e| err(e.to_string()))?;
                    } else {
                        // A 0: a line at the baseline, where a bar left out shows nothing.
                        chart.draw_series([PathElement::new(vec![(x1, 0.0), (x2, 0.0)], c.stroke_width(3))]).map_err(|e| err(e.to_string()))?;
                    }
                }
            }
            draw_legend(&legend, &self.legend_title, &entries).map_err(&err)?;
            root.present().map_err(|e| err(e.to_string()))?;
        }
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_labelled_in_their_units() {
        assert_eq!(format_value(65536.0, Units::Bytes, 0), "64 KiB");
        assert_eq!(format_value(1048576.0, Units::Bytes, 0), "1 MiB");
        assert_eq!(format_value(1536.0, Units::Bytes, 0), "1.5 KiB");
        assert_eq!(format_value(64.0, Units::Bytes, 0), "64 B");
        assert_eq!(format_value(200000.0, Units::Count, 0), "200k");
        assert_eq!(format_value(0.25, Units::Share, decimals(0.2, Units::Share)), "25%");
        assert_eq!(format_value(0.3, Units::Plain, decimals(0.1, Units::Plain)), "0.3");
        assert_eq!(format_value(0.3, Units::Plain, 1), "0.3");
    }

    #[test]
    fn ticks_are_round_numbers_and_powers_of_two() {
        assert_eq!(linear_ticks(0.0, 1024.0, 8, Units::Plain).0, [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]);
        assert_eq!(linear_ticks(0.0, 1.0, 8, Units::Share).0.len(), 6);
        assert_eq!(linear_ticks(0.0, 393216.0, 8, Units::Bytes).1, 65536.0);
        assert_eq!(log2_ticks(14.0, 20.0, 12), [14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0]);
        assert_eq!(log2_ticks(0.0, 30.0, 8), [0.0, 4.0, 8.0, 12.0, 16.0, 20.0, 24.0, 28.0]);
    }

    #[test]
    fn every_marker_is_its_own_shape() {
        let shapes: Vec<Option<Vec<(i32, i32)>>> = (0..MARKERS).map(|m| marker_path(m, 5)).collect();
        for (i, a) in shapes.iter().enumerate() {
            assert!(shapes[i + 1..].iter().all(|b| b != a), "marker {i} repeats");
        }
    }
}
