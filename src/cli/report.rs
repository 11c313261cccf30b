//! The run report: JSON as docs/TRACE_FORMAT.md specifies (plus documented extensions), and text
//! written for a person.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use sim_core::api::program::PlaceNames;
use sim_core::engine::{Finding, Mistake, RunResult};
use sim_core::api::{CommandRef, Workload, Writer};

/// What `--schedules` found, beside the run it reports.
#[derive(Clone, Debug)]
pub struct Schedules {
    /// First seed.
    pub seed: u64,
    /// Number of seeds run.
    pub count: u64,
    /// Seeds whose run corrupted.
    pub corrupt: u64,
    /// The first of them.
    pub corrupt_seed: Option<u64>,
    /// Schedules directed at a hazard that ran (after seeded ones that showed nothing).
    pub directed_tried: u64,
    /// The hazard whose directed schedule corrupted (the reported run), if one did.
    pub directed: Option<usize>,
    /// When no schedule corrupted here but the program has hazards: the first other built-in
    /// profile on which one does, and the hazard its schedule was directed at (`None`: seeded).
    pub corrupts_on: Option<(String, Option<usize>)>,
    /// Per hazard of the reported run: why no order the program allows can change a byte
    /// through it, or `None` when one can (`sim_core::engine::unchangeable_hazards`).
    pub unchangeable: Vec<Option<&'static str>>,
    /// Per hazard, when no schedule showed it on this profile though its bytes can differ: why
    /// (how the schedule was directed, and the cache operations between its two accesses).
    pub not_shown: Vec<Option<String>>,
}

/// The largest `data_hex` of a host read in the report (64 KiB of bytes).
pub const MAX_REPORTED_HOST_BYTES: usize = 64 * 1024;

/// Cache statistics of one kind, summed over its instances.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CacheReport {
    /// Read and write hits.
    pub hits: u64,
    /// Read and write misses.
    pub misses: u64,
    /// Dirty lines written back.
    pub writebacks: u64,
    /// Flush operations.
    pub flushes: u64,
    /// Invalidate operations.
    pub invalidations: u64,
    /// Extension: reads, writes and atomics requested.
    pub reads: u64,
    /// Extension: writes requested.
    pub writes: u64,
    /// Extension: lines evicted.
    pub evictions: u64,
    /// Extension: lines dropped by invalidations.
    pub lines_invalidated: u64,
    /// Extension: instances summed (one per CU for L1, T$, U$).
    pub instances: u64,
}

/// Statistics per cache kind, in a fixed order (L1, T$, U$, L2, then any other).
pub fn cache_report(r: &RunResult) -> BTreeMap<String, CacheReport> {
    let mut out: BTreeMap<String, CacheReport> = BTreeMap::new();
    for (name, s) in &r.caches {
        let kind = name.split('[').next().unwrap_or(name).to_string();
        let c = out.entry(kind).or_default();
        c.hits += s.hits();
        c.misses += s.misses();
        c.writebacks += s.writebacks;
        c.flushes += s.flushes;
        c.invalidations += s.invalidations;
        c.reads += s.reads;
        c.writes += s.writes;
        c.evictions += s.evictions;
        c.lines_invalidated += s.lines_invalidated;
        c.instances += 1;
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The Vulkan command a reference names (`vkCmdDispatch`), when it is in the workload.
pub fn vk_name(w: &Workload, at: &CommandRef) -> &'static str {
    w.command_buffers.iter().find(|c| c.name == at.command_buffer).and_then(|c| c.commands.get(at.command)).map_or("command", |c| c.vk_name())
}

/// A command for a person: `vkCmdDispatch cb0[2] (timeline[0], vkQueueSubmit #0 on q0)`.
pub fn command_text(w: &Workload, at: &CommandRef) -> String {
    named_command_text(w, &PlaceNames::new(w), vk_name(w, at), at)
}

/// [`command_text`] of a command whose Vulkan name the caller has already looked up, with the
/// workload's place names made once: `vkCmdDispatch cb0[1] (timeline[0], vkQueueSubmit #0 on
/// q0)`.
pub fn named_command_text(w: &Workload, names: &PlaceNames, vk_name: &str, at: &CommandRef) -> String {
    format!("{vk_name} {}", names.text(w, at))
}

/// `image` when `name` is an image of `w`, else `buffer`.
pub fn resource_kind(w: &Workload, name: &str) -> &'static str {
    if w.images.iter().any(|i| i.name == name) { "image" } else { "buffer" }
}

/// A writer for a person.
pub fn writer_text(w: &Workload, wr: &Writer) -> String {
    match wr {
        Writer::Initial => "the initial zeroes (no write had reached it)".into(),
        Writer::Command(c) => command_text(w, c),
        Writer::Host { timeline } => format!("the host write at timeline[{timeline}]"),
    }
}

/// The JSON report.
pub fn json_report(w: &Workload, trace: &str, r: &RunResult, s: &Schedules) -> serde_json::Value {
    #[derive(Serialize)]
    struct F<'a> {
        at: &'a CommandRef,
        resource: &'a str,
        offset: u64,
        size: u64,
        seen_write: &'a Writer,
        expected_write: &'a Writer,
        via: &'a str,
        command: &'static str,
        seen_hex: String,
        expected_hex: String,
        cycle: u64,
        kind: &'static str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        diverged: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        hazard: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        table_rows: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        aliasing: Option<&'a str>,
        read: serde_json::Value,
    }
    let findings: Vec<F> = r
        .findings
        .iter()
        .map(|f: &Finding| F {
            at: &f.at,
            resource: &f.resource,
            offset: f.offset,
            size: f.size,
            seen_write: &f.seen_write,
            expected_write: &f.expected_write,
            via: &f.via,
            command: vk_name(w, &f.at),
            seen_hex: hex(&f.seen),
            expected_hex: hex(&f.expected),
            cycle: f.cycle,
            kind: f.kind,
            diverged: f.diverged,
            hazard: f.hazard,
            table_rows: f.table_rows.as_deref(),
            aliasing: f.aliasing.as_deref(),
            read: read_json(&f.key),
        })
        .collect();
    let host_reads: Vec<serde_json::Value> = r
        .host_reads
        .iter()
        .map(|h| {
            let truncated = h.data.len() > MAX_REPORTED_HOST_BYTES;
            let mut v = serde_json::json!({
                "at": {"timeline": h.timeline},
                "label": h.label,
                "differing_bytes": h.differing_bytes,
                "reference_meets_expectation": h.reference_meets_expectation,
                "data_hex": hex(&h.data[..h.data.len().min(MAX_REPORTED_HOST_BYTES)]),
            });
            if truncated {
                v["truncated"] = true.into();
            }
            if let Some((off, seen, exp)) = &h.first_difference {
                v["first_difference"] = serde_json::json!({"offset": off, "seen_write": seen, "expected_write": exp});
            }
            if let Some(k) = h.hazard {
                v["hazard"] = k.into();
            }
            if let Some(a) = &h.aliasing {
                v["aliasing"] = a.as_str().into();
            }
            v
        })
        .collect();
    let mut report = serde_json::json!({
        "gpusim_report": 1,
        "trace": trace,
        "profile": r.profile,
        "seed": s.seed,
        "schedules": s.count,
        "schedules_with_corruption": s.corrupt,
        "corrupt_seed": s.corrupt_seed,
        "directed_schedules": s.directed_tried,
        "directed_at_hazard": s.directed,
        "direction": r.direction,
        "corrupts_on": s.corrupts_on.as_ref().map(|(p, k)| serde_json::json!({"profile": p, "directed_at_hazard": k})),
        "reported_seed": r.seed,
        "cycles": r.cycles,
        "corruption": {
            "stale_reads": r.stale_reads,
            "corrupted_bytes": r.corrupted_bytes,
            "findings": findings,
            "findings_truncated": r.findings_truncated,
            "mistakes": mistakes_json(w, r),
            "mistakes_truncated": r.findings_truncated,
            "stale_ranges": r.stale_ranges.iter().map(|s| serde_json::json!({"at": s.at, "resource": s.resource, "ranges": s.ranges})).collect::<Vec<_>>(),
            "final_memory": final_memory_json(r),
            "final_memory_truncated": r.memory_differences_truncated,
            "memory_model_complete": r.memory_model_complete,
        },
        "hazards": run_hazards_json(w, r, s),
        "host_reads": host_reads,
        "caches": cache_report(r),
        "instructions": r.instructions,
        "reference_instructions": r.reference_instructions,
        "lane_ops": r.lane_ops,
    });
    if !r.images.is_empty() {
        report["images"] = images_json(r);
    }
    if let Some(stopped) = &r.stopped {
        // Named as findings name commands; `"run"` when no dispatch was running.
        let at = match &stopped.command {
            Some(c) => serde_json::json!(c),
            None => serde_json::json!(stopped.at),
        };
        let command = stopped.command.as_ref().map(|c| vk_name(w, c));
        report["stopped"] = serde_json::json!({"at": at, "command": command, "cycle": r.cycles, "reason": stopped.message});
    }
    report
}

/// Every image at the end and the metadata work of the run's layout transitions, as JSON.
fn images_json(r: &RunResult) -> serde_json::Value {
    let work: Vec<_> = r.syncs.iter().flat_map(|y| y.image_work.iter().map(move |k| (y, k))).collect();
    serde_json::Value::Array(
        r.images
            .iter()
            .map(|im| {
                let transitions: Vec<_> = work
                    .iter()
                    .filter(|(_, k)| k.image == im.image)
                    .map(|(y, k)| serde_json::json!({"at": y.label, "work": k.work.to_string(), "tiles": k.tiles, "cycles": k.cycles}))
                    .collect();
                serde_json::json!({
                    "image": im.image,
                    "compressed": im.compressed,
                    "texels": im.texels,
                    "texels_differing": im.texels_differing,
                    "tiles": {"raw": im.tiles_raw, "compressed": im.tiles_compressed, "fast_cleared": im.tiles_cleared},
                    "transitions": transitions,
                })
            })
            .collect(),
    )
}

/// The report's images paragraph: per image, its texels compared with the reference run's (as
/// decoded texels), its tiles by compression state at the end, and what its layout
/// transitions' metadata work cost.
fn images_text(o: &mut String, w: &Workload, r: &RunResult) {
    if r.images.is_empty() {
        return;
    }
    let _ = writeln!(o, "\nImages (compared as decoded texels):");
    for (im, b) in r.images.iter().zip(&w.images) {
        let d = &b.layout.desc;
        let differ = if im.texels_differing == 0 { format!("all {} texels match the reference run", im.texels) } else { format!("{} of {} texels differ from the reference run", im.texels_differing, im.texels) };
        let tiles = if im.compressed {
            format!("; tiles at the end: {} raw, {} compressed, {} fast-cleared", im.tiles_raw, im.tiles_compressed, im.tiles_cleared)
        } else {
            "; not compressed on this profile".to_string()
        };
        let _ = writeln!(o, "  `{}` ({}x{}x{} {}): {differ}{tiles}.", im.image, d.extent[0], d.extent[1], d.extent[2], d.format.name());
        for y in &r.syncs {
            for k in y.image_work.iter().filter(|k| k.image == im.image) {
                let per = k.cycles.checked_div(k.tiles).filter(|&c| c > 0).map(|c| format!(" ({c} per tile)")).unwrap_or_default();
                let _ = writeln!(o, "    {}: {} on {} tile(s), {} cycles{per}.", y.label, k.work, k.tiles, k.cycles);
            }
        }
    }
}

/// Which read of its command a finding comes from: a shader load (workgroup, subgroup, load of
/// that subgroup) or a transfer chunk (region, chunk). Two subgroups reading the same bytes are
/// two findings, told apart by this.
fn read_json(k: &sim_core::engine::ReadKey) -> serde_json::Value {
    match k.c {
        u32::MAX => serde_json::json!({"region": k.a, "chunk": k.b}),
        load => serde_json::json!({"workgroup": k.a, "subgroup": k.b, "load": load}),
    }
}

/// The findings grouped by mistake, as the report's `corruption.mistakes`: each with the
/// indices of its findings in `corruption.findings`.
fn mistakes_json(w: &Workload, r: &RunResult) -> serde_json::Value {
    let list: Vec<serde_json::Value> = r
        .mistakes
        .iter()
        .map(|m| {
            let mut v = serde_json::json!({
                "at": m.at,
                "command": vk_name(w, &m.at),
                "resource": m.resource,
                "via": m.via,
                "seen_write": m.seen_write,
                "expected_write": m.expected_write,
                "kind": m.kind,
                "reads": m.reads,
                "bytes": m.bytes,
                "ranges": m.ranges,
                "seen_hex": hex(&m.seen),
                "expected_hex": hex(&m.expected),
                "findings": m.findings,
            });
            if m.diverged {
                v["diverged"] = true.into();
            }
            if let Some(h) = m.hazard {
                v["hazard"] = h.into();
            }
            if let Some(a) = &m.aliasing {
                v["aliasing"] = a.as_str().into();
            }
            if let Some(t) = &m.table_rows {
                v["table_rows"] = t.as_str().into();
            }
            v
        })
        .collect();
    serde_json::Value::Array(list)
}

fn final_memory_json(r: &RunResult) -> serde_json::Value {
    let list: Vec<serde_json::Value> = r
        .memory_differences
        .iter()
        .map(|d| {
            let mut v = serde_json::json!({
                "memory": d.memory, "offset": d.offset, "size": d.size,
                "seen_write": d.seen_write, "expected_write": d.expected_write,
                "seen_hex": hex(&d.seen), "expected_hex": hex(&d.expected),
            });
            if let Some((b, off)) = &d.buffer {
                v["buffer"] = b.as_str().into();
                v["buffer_offset"] = (*off).into();
            }
            if let Some(h) = d.hazard {
                v["hazard"] = h.into();
            }
            if let Some(a) = &d.aliasing {
                v["aliasing"] = a.as_str().into();
            }
            v
        })
        .collect();
    serde_json::Value::Array(list)
}

/// Whether the run found something: corruption, or a host read that differs from the
/// reference or whose reference misses the trace's stated expectation.
pub fn found_something(r: &RunResult) -> bool {
    corrupted(r) || !r.hazards.is_empty()
}

/// Whether this run (this machine, this seed) read or left wrong bytes: corruption, a host read
/// that differs from the reference, or a reference run missing a host read's stated
/// expectation. What `--schedules` counts; the program's hazards are the same in every run.
pub fn corrupted(r: &RunResult) -> bool {
    r.corrupted() || r.host_reads.iter().any(|h| h.differing_bytes > 0 || h.reference_meets_expectation == Some(false))
}

/// The most hazards the text report lists (all of them are in the JSON report).
pub const TEXT_HAZARDS: usize = 12;

/// The run's hazards in JSON: [`hazards_json`], each with whether its bytes can differ.
fn run_hazards_json(w: &Workload, r: &RunResult, s: &Schedules) -> serde_json::Value {
    let mut v = hazards_json(w, &r.hazards);
    if let Some(list) = v.as_array_mut() {
        for (k, h) in list.iter_mut().enumerate() {
            let why = s.unchangeable.get(k).copied().flatten();
            h["bytes_can_differ"] = why.is_none().into();
            if let Some(why) = why {
                h["why_bytes_cannot_differ"] = why.into();
            }
            if let Some(why) = s.not_shown.get(k).cloned().flatten() {
                h["not_shown_because"] = why.into();
            }
        }
    }
    v
}

/// The text report's hazard section.
fn hazards_section(w: &Workload, r: &RunResult, s: &Schedules) -> String {
    let mut o = String::new();
    if r.hazards.is_empty() {
        let _ = writeln!(o, "\nNo hazard: every access is ordered after the accesses it conflicts with.");
        return o;
    }
    let _ = writeln!(o, "\nHAZARDS: {} synchronization hazard(s) in the program, whatever this machine shows:", r.hazards.len());
    for (i, text) in hazard_texts(w, r.hazards.iter().take(TEXT_HAZARDS)).iter().enumerate() {
        let _ = writeln!(o, "\nH{}. {text}", i + 1);
        if let Some(why) = s.unchangeable.get(i).copied().flatten() {
            let _ = writeln!(o, "  No schedule can show it as wrong bytes: {why}.");
        }
        if let Some(why) = s.not_shown.get(i).cloned().flatten() {
            let _ = writeln!(o, "  Not shown: {why}.");
        }
    }
    if r.hazards.len() > TEXT_HAZARDS {
        let _ = writeln!(o, "\n... and {} more hazard(s) (all are in --report json).", r.hazards.len() - TEXT_HAZARDS);
    }
    o
}

fn spaced_hex(bytes: &[u8], more: bool) -> String {
    let mut s: Vec<String> = bytes.chunks(4).map(hex).collect();
    if s.len() > 4 {
        s.truncate(4);
    }
    let mut out = s.join(" ");
    if more || bytes.len() > 16 {
        out.push('…');
    }
    out
}

/// The most findings the text report lists (the JSON report lists every finding made).
pub const TEXT_FINDINGS: usize = 12;

/// The runs of differing final bytes as mistakes: consecutive runs (they are in memory and
/// offset order) of one memory object and buffer, with the same two writers and hazard.
fn memory_groups(d: &[sim_core::engine::MemoryDifference]) -> Vec<std::ops::Range<usize>> {
    let key = |x: &sim_core::engine::MemoryDifference| (x.memory.clone(), x.buffer.as_ref().map(|b| b.0.clone()), x.seen_write.clone(), x.expected_write.clone(), x.hazard);
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for i in 0..d.len() {
        match out.last_mut() {
            Some(g) if key(&d[g.start]) == key(&d[i]) => g.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// What a run whose stale reads outnumber the ones explained says of all of them: which
/// commands read which bytes stale, merged (complete), the first of each list shown.
pub fn stale_ranges_text(w: &Workload, r: &RunResult) -> String {
    const RANGES: usize = 4;
    let mut out = format!(
        "Only the first {} of {} stale reads (host reads included) are explained in detail. The bytes all of them returned, merged per command and buffer:",
        sim_core::engine::MAX_DETAILED_STALE_READS,
        r.stale_reads
    );
    for s in r.stale_ranges.iter().take(TEXT_FINDINGS) {
        let bytes: u64 = s.ranges.iter().map(|&(_, n)| n).sum();
        let shown: Vec<String> = s.ranges.iter().take(RANGES).map(|&(o, n)| format!("[{o}, +{n})")).collect();
        let more = if s.ranges.len() > RANGES { format!(" and {} more ranges", s.ranges.len() - RANGES) } else { String::new() };
        let _ = write!(out, "\n  {} read {bytes} byte(s) of {} {}: {}{more}", command_text(w, &s.at), resource_kind(w, &s.resource), s.resource, shown.join(" "));
    }
    if r.stale_ranges.len() > TEXT_FINDINGS {
        let _ = write!(out, "\n  ... and {} more command and buffer pair(s), in --report json (corruption.stale_ranges).", r.stale_ranges.len() - TEXT_FINDINGS);
    }
    out
}

/// `ranges` for a person: the first `shown`, then how many more.
fn ranges_text(ranges: &[(u64, u64)], shown: usize) -> String {
    let mut out: Vec<String> = ranges.iter().take(shown).map(|&(o, n)| format!("[{o}, {})", o + n)).collect();
    if ranges.len() > shown {
        out.push(format!("and {} more ranges", ranges.len() - shown));
    }
    out.join(" ")
}

/// One mistake as a paragraph: who read which bytes through which cache, in how many reads,
/// whose write it saw and whose it should have seen, and the hazard that explains it. The
/// barrier table's counterfactual is said under the first mistake it explains; `told` holds
/// those said so far (with the mistake's number).
pub fn mistake_text(w: &Workload, m: &Mistake, told: &mut Vec<(String, usize)>, number: usize) -> String {
    const RANGES: usize = 4;
    let more = m.seen_cut;
    let through = if m.via == "VRAM" { "straight from VRAM".to_string() } else { format!("through {}", m.via) };
    let reads = if m.reads == 1 { "1 read".to_string() } else { format!("{} reads", m.reads) };
    let bytes = match m.ranges.as_slice() {
        [(o, n)] => format!("bytes [{o}, {})", o + n),
        _ => format!("{} bytes", m.bytes),
    };
    let ranges = match m.ranges.len() {
        1 => String::new(),
        n => format!(", in {n} ranges: {}", ranges_text(&m.ranges, RANGES)),
    };
    let first = m.ranges.first().map_or(0, |r| r.0);
    let expected = if m.expected.is_empty() {
        // Judged by the memory model: the reference run made no such read.
        format!(
            "{} happens before these reads and after the write they saw (the reference run made no such read: timing decided that it happens)",
            writer_text(w, &m.expected_write)
        )
    } else if m.kind == "race" && m.aliasing.is_none() {
        format!(
            "the reference run saw {} — {} (a race: nothing orders the two writes and these reads)",
            writer_text(w, &m.expected_write),
            spaced_hex(&m.expected, more)
        )
    } else {
        format!("the reference run saw {} — {}", writer_text(w, &m.expected_write), spaced_hex(&m.expected, more))
    };
    let mut text = format!(
        "{} read {bytes} of {} {} {through} in {reads}{ranges}:\n  it saw {} — {} from offset {first};\n  {expected}.",
        command_text(w, &m.at),
        resource_kind(w, &m.resource),
        m.resource,
        writer_text(w, &m.seen_write),
        spaced_hex(&m.seen, more),
    );
    if m.diverged {
        text.push_str("\n  Then an invocation took another path than in the reference run (a stale value decided it): its later reads are not compared.");
    }
    match m.hazard {
        Some(h) => {
            text.push_str(&format!("\n  Hazard H{} explains it", h + 1));
            match &m.table_rows {
                Some(t) => match told.iter().find(|(said, _)| said == t) {
                    Some((_, n)) => text.push_str(&format!(", as it explains mistake {n}.")),
                    None => {
                        told.push((t.clone(), number));
                        text.push_str(&format!(": {t}."));
                    }
                },
                None => text.push('.'),
            }
        }
        None => match &m.aliasing {
            Some(why) => text.push_str(&format!("\n  No hazard explains it, and no barrier would fix it: {why}.")),
            None => text.push_str("\n  No hazard explains it: the program orders these reads after the write they should see, so the machine is at fault."),
        },
    }
    text.replace("….", "…")
}

/// A finding as one line under its mistake (`--verbose`): its bytes, when it read, what it saw.
fn finding_line(f: &Finding) -> String {
    let more = f.size as usize > f.seen.len();
    let read = match (sim_core::engine::graphics::describe(&f.key), f.key.c) {
        (Some(draw), _) => draw,
        (None, u32::MAX) => format!("copy region {} chunk {}", f.key.a, f.key.b),
        (None, 0xFFFF_FFFE) => format!("blit run {} segment {}", f.key.a, f.key.b),
        (None, d) => format!("workgroup {} subgroup {} load {d}", f.key.a, f.key.b),
    };
    let expected = if f.expected.is_empty() { "judged by the memory model".to_string() } else { format!("expected {}", spaced_hex(&f.expected, more)) };
    format!("[{}, {}) at cycle {} ({read}): saw {}, {expected}", f.offset, f.offset + f.size, f.cycle, spaced_hex(&f.seen, more))
}

/// How a run was asked for: what a report needs to say how to run it again.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// The trace's path as given.
    pub trace: String,
    /// The profile as given: a built-in name or a file's path.
    pub profile: String,
    /// Whether the text report lists every finding under its mistake.
    pub verbose: bool,
}

/// `s` as one shell word: as is when it is made of characters no shell treats specially, else
/// single-quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:=,+@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

impl Invocation {
    /// The command that runs one schedule again: on `profile` (this one's when `None`), with
    /// `seed`, directed at hazard index `directed` if given.
    pub fn command(&self, profile: Option<&str>, seed: u64, directed: Option<usize>) -> String {
        let mut c = format!("gpusim run {} --profile {} --seed {seed}", shell_word(&self.trace), shell_word(profile.unwrap_or(&self.profile)));
        if let Some(k) = directed {
            let _ = write!(c, " --direct-at-hazard {k}");
        }
        c
    }
}

/// The text report.
pub fn text_report(w: &Workload, trace: &str, r: &RunResult, s: &Schedules, inv: &Invocation) -> String {
    let verbose = inv.verbose;
    let mut o = String::new();
    let _ = writeln!(o, "gpusim run: trace `{trace}` on profile {}", r.profile);
    if s.count > 1 {
        let _ = writeln!(o, "schedules: seeds {}..={} ({} runs), {} corrupted", s.seed, s.seed + (s.count - 1), s.count, s.corrupt);
        match s.corrupt_seed {
            Some(c) => {
                let _ = writeln!(o, "reporting the first corrupted schedule, seed {c}");
            }
            None => {
                let _ = writeln!(o, "reporting the first schedule, seed {}", r.seed);
            }
        }
    } else {
        let _ = writeln!(o, "seed {}", r.seed);
    }
    if let Some(k) = s.directed {
        let h = &r.hazards[k];
        let name = |p: &sim_core::hazard::Place| match p {
            sim_core::hazard::Place::Command(c) if h.usage.is_layout_transition() && *p == h.at => format!("the first command after {} (whose layout transition is the hazard) to access the image's bytes", command_text(w, c)),
            sim_core::hazard::Place::Command(c) => command_text(w, c),
            sim_core::hazard::Place::Host { timeline } => format!("the host operation at timeline[{timeline}]"),
        };
        match r.direction {
            Some(sim_core::engine::Direction::Prime { cache }) => {
                let _ = writeln!(
                    o,
                    "This schedule is directed at hazard H{}: every CU's {cache} held the bytes {} reads from\n\
                     before {} wrote them (read just before it started, as any earlier read could have left them), and\n\
                     nothing the program does between them tells that cache to drop them.",
                    k + 1,
                    name(&h.at),
                    name(&h.prior)
                );
            }
            Some(sim_core::engine::Direction::Delay) => {
                let _ = writeln!(
                    o,
                    "This schedule is directed at hazard H{}: the writes {} made to the bytes were held in flight\n\
                     until {} was done (no barrier made them available, so nothing says they have landed).",
                    k + 1,
                    name(&h.prior),
                    name(&h.at)
                );
            }
            _ => {
                let _ = writeln!(
                    o,
                    "This schedule is directed at hazard H{}: {} held until {} was done (nothing orders the two,\n\
                     so a device may run them so), actions launched in any order their dependencies allow.",
                    k + 1,
                    name(&h.prior),
                    name(&h.at)
                );
            }
        }
    } else if s.directed_tried > 0 {
        let _ = writeln!(o, "{} schedule(s) directed at the program's hazards showed no corruption either.", s.directed_tried);
    }
    match &s.corrupts_on {
        Some((name, k)) => {
            let how = k.map(|k| format!(" with a schedule directed at hazard H{}", k + 1)).unwrap_or_default();
            let _ = writeln!(o, "This machine does not show the hazards; the built-in profile {name} does{how}:\n  {}", inv.command(Some(name), s.seed, *k));
        }
        None if !r.hazards.is_empty() && !corrupted(r) && s.directed_tried > 0 => {
            let _ = writeln!(
                o,
                "No built-in profile showed these hazards as wrong bytes with this seed, seeded or directed: the accesses may\n\
                 leave the same bytes whichever order they take (the hazards are real all the same), or need other seeds (--schedules)."
            );
        }
        None => {}
    }
    if corrupted(r) || r.directed.is_some() {
        let _ = writeln!(o, "Re-run the reported schedule: {}", inv.command(None, r.seed, r.directed));
    }
    let _ = writeln!(o);
    // The stale reads split by who made them, so the mistakes' counts add up to them.
    let host = r.host_reads.iter().filter(|h| h.differing_bytes > 0).count() as u64;
    let reads = match host {
        0 => format!("{} read(s)", r.stale_reads),
        h if h == r.stale_reads => format!("{h} host read(s)"),
        h => format!("{} read(s) ({} by commands, {h} by the host)", r.stale_reads, r.stale_reads - h),
    };
    if let Some(stopped) = &r.stopped {
        let _ = writeln!(
            o,
            "CORRUPTION: {reads} returned bytes that differ from the reference run, and then the run did not end:\n  {}: {}.\n\
             It was stopped there, so final memory is not compared.",
            stopped.at, stopped.message
        );
    } else if r.corrupted() {
        let _ = writeln!(o, "CORRUPTION: {reads} returned bytes that differ from the reference run; {} byte(s) of memory differ at the end.", r.corrupted_bytes);
    }
    if r.corrupted() {
        if r.findings_truncated {
            let _ = writeln!(o, "\n{}", stale_ranges_text(w, r));
        }
        if !r.mistakes.is_empty() {
            let shown = r.mistakes.len().min(TEXT_FINDINGS);
            let of = if shown < r.mistakes.len() { format!("the first {shown} of {}", r.mistakes.len()) } else { r.mistakes.len().to_string() };
            let from = if r.findings_truncated { format!(" (from the first {} stale reads, explained in detail)", sim_core::engine::MAX_DETAILED_STALE_READS) } else { String::new() };
            let _ = writeln!(o, "\nThe stale reads as {of} mistake(s){from}: one per reading command, buffer, cache and pair of writes.");
            let mut told = Vec::new();
            for (i, m) in r.mistakes.iter().take(TEXT_FINDINGS).enumerate() {
                let _ = writeln!(o, "\n{}. {}", i + 1, mistake_text(w, m, &mut told, i + 1));
                if verbose {
                    for &k in &m.findings {
                        let _ = writeln!(o, "     {}", finding_line(&r.findings[k]));
                    }
                }
            }
            if r.mistakes.len() > TEXT_FINDINGS {
                let _ = writeln!(o, "\n... and {} more mistake(s), in --report json (corruption.mistakes).", r.mistakes.len() - TEXT_FINDINGS);
            }
        }
        if !r.memory_differences.is_empty() {
            let _ = writeln!(o, "\nFinal memory differs from the reference run:");
            // One line per mistake: the runs of one buffer (or memory object) left by the same
            // two writers and explained by the same hazard, however many gaps lie between them.
            let groups = memory_groups(&r.memory_differences);
            for g in groups.iter().take(TEXT_FINDINGS) {
                let d = &r.memory_differences[g.start];
                let last = &r.memory_differences[g.end - 1];
                let bytes: u64 = r.memory_differences[g.clone()].iter().map(|d| d.size).sum();
                let place = match (&d.buffer, &last.buffer) {
                    (Some((b, off)), Some((_, last_off))) => format!("{} {b}, bytes [{off}, {})", resource_kind(w, b), last_off + last.size),
                    _ => format!("memory {}, bytes [{}, {})", d.memory, d.offset, last.offset + last.size),
                };
                let runs = if g.len() > 1 { format!("{bytes} byte(s) in {} runs", g.len()) } else { format!("{bytes} byte(s)") };
                let who = if d.seen_write == d.expected_write {
                    format!("both runs left them from {}, which wrote other values here (it computed them from stale bytes)", writer_text(w, &d.seen_write))
                } else {
                    format!("the run left {}, the reference run {}", writer_text(w, &d.seen_write), writer_text(w, &d.expected_write))
                };
                let why = match (d.hazard, &d.aliasing) {
                    (Some(h), _) => format!("hazard H{} explains it", h + 1),
                    (None, Some(a)) => format!("no hazard explains it, and no barrier would fix it: {a}"),
                    // One writer, other values: it computed them from inputs an earlier mistake
                    // left wrong, not from bytes the machine put back.
                    (None, None) if d.seen_write == d.expected_write => "no hazard at these bytes: their writer's inputs were wrong, as the mistakes above say".to_string(),
                    // A writer that read stale bytes may write where it would not have (a draw
                    // whose vertices were stale covers other pixels).
                    (None, None) if r.findings.iter().any(|f| d.seen_write == sim_core::api::Writer::Command(f.at.clone())) => {
                        format!("no hazard at these bytes: {} read stale bytes (the mistakes above) and wrote here from them", writer_text(w, &d.seen_write))
                    }
                    (None, None) => "no hazard explains it: the machine put stale bytes back (a write-back or flush of bytes that were not its to write)".to_string(),
                };
                let values = if d.seen.is_empty() {
                    String::new()
                } else {
                    let start = d.buffer.as_ref().map_or(d.offset, |b| b.1);
                    format!(" (from byte {start}: {} where the reference run left {})", spaced_hex(&d.seen, d.size as usize > d.seen.len()), spaced_hex(&d.expected, d.size as usize > d.expected.len()))
                };
                let _ = writeln!(o, "  {place}: {runs} differ{values}; {who}; {why}.");
            }
            if groups.len() > TEXT_FINDINGS {
                let _ = writeln!(o, "  ... and {} more, in --report json.", groups.len() - TEXT_FINDINGS);
            }
            if r.memory_differences_truncated {
                let _ = writeln!(o, "  The report lists the first {} runs of differing bytes (--max-memory-differences); all {} differing bytes are counted.", r.memory_differences.len(), r.corrupted_bytes);
            }
        }
        let explained = r.findings.iter().any(|f| f.hazard.is_some()) || r.memory_differences.iter().any(|d| d.hazard.is_some()) || r.host_reads.iter().any(|h| h.hazard.is_some());
        let aliased = r.findings.iter().any(|f| f.aliasing.is_some());
        if aliased && !explained {
            let _ = writeln!(
                o,
                "\nNo hazard explains this corruption: the program reads compressed image memory as something else (a buffer\n\
                 aliasing an optimal image, or placed in its page against bufferImageGranularity). Only the placement can fix it."
            );
        } else if explained
            && [r.findings.iter().map(|f| f.hazard).collect::<Vec<_>>(), r.memory_differences.iter().map(|d| d.hazard).collect(), r.host_reads.iter().map(|h| h.hazard).collect()]
                .concat()
                .into_iter()
                .flatten()
                .all(|i| r.hazards.get(i).is_some_and(|h| h.discarded.is_some()))
        {
            let _ = writeln!(
                o,
                "\nThese reads saw contents a layout transition from UNDEFINED discarded: no barrier brings them back; the\n\
                 transition must name the layout the image is in as its old layout."
            );
        } else if explained {
            let _ = writeln!(
                o,
                "\nA stale read means synchronization was missing or too narrow: the writer's stages were not in a barrier's first\n\
                 scope (execution), or its writes were not made available (src access) and visible (dst access) to the reader."
            );
        } else {
            let _ = writeln!(
                o,
                "\nNo hazard explains this corruption: the program is correctly synchronized, so the machine is at fault (a\n\
                 barrier table that misses a flush or an invalidate, or caches that do not keep bytes they were not given, like\n\
                 the line-dirty profiles in examples/profiles/)."
            );
        }
    } else {
        let _ = writeln!(o, "No corruption: every read saw what the reference run saw, and final memory matches.");
    }
    o.push_str(&hazards_section(w, r, s));
    if !r.memory_model_complete {
        let _ = writeln!(
            o,
            "\nNote: past the memory model's budget, some reads the reference run never made were not judged (taken as correct)."
        );
    }
    if !r.host_reads.is_empty() {
        let _ = writeln!(o, "\nHost reads:");
        for h in &r.host_reads {
            let mut exp = match h.reference_meets_expectation {
                Some(true) => "; the reference run meets the trace's expectation".to_string(),
                Some(false) => "; the reference run does NOT meet the trace's expectation".to_string(),
                None => String::new(),
            };
            // The values read against the trace's own `expect_*`, from the first that differs.
            if let Some(sim_core::api::HostOp::HostRead { expect: Some(e), .. }) = w.timeline.get(h.timeline)
                && let Some(k) = h.data.iter().zip(e).position(|(a, b)| a != b)
            {
                let k = k / 4 * 4;
                let (seen, want) = (&h.data[k..h.data.len().min(k + 16)], &e[k..e.len().min(k + 16)]);
                let _ = write!(exp, "; from offset {k} the host read {} where the trace expects {}", spaced_hex(seen, h.data.len() > k + 16), spaced_hex(want, e.len() > k + 16));
            }
            if h.differing_bytes == 0 {
                let _ = writeln!(o, "  `{}` (timeline[{}]): {} bytes, same as the reference run{exp}.", h.label, h.timeline, h.data.len());
            } else {
                let _ = write!(o, "  `{}` (timeline[{}]): {} of {} bytes differ from the reference run", h.label, h.timeline, h.differing_bytes, h.data.len());
                match &h.first_difference {
                    // The same writer in both runs: it wrote other bytes, from inputs that differed.
                    Some((off, seen, expd)) if seen == expd => {
                        let _ = write!(o, "; from offset {off} both runs read what {} wrote, and it wrote other values (its inputs were wrong)", writer_text(w, seen));
                    }
                    Some((off, seen, expd)) => {
                        let _ = write!(o, "; from offset {off} the host saw {} where the reference saw {}", writer_text(w, seen), writer_text(w, expd));
                    }
                    None => {}
                }
                if let Some(k) = h.hazard {
                    let _ = write!(o, "; hazard H{} explains it", k + 1);
                }
                let _ = writeln!(o, "{exp}.");
            }
        }
    }
    images_text(&mut o, w, r);
    let _ = writeln!(o, "\nCycles: {}   shader instructions: {}   lane operations: {}", r.cycles, r.instructions, r.lane_ops);
    if r.reference_instructions != r.instructions {
        // Stale reads changed the simulated run's control flow: a budget must cover both.
        let _ = writeln!(o, "The reference run executed {} shader instructions.", r.reference_instructions);
    }
    let caches = cache_report(r);
    if !caches.is_empty() {
        let _ = writeln!(o, "\n{:<6} {:>10} {:>10} {:>11} {:>8} {:>14}", "cache", "hits", "misses", "writebacks", "flushes", "invalidations");
        for (name, c) in &caches {
            let label = if c.instances > 1 { format!("{name}×{}", c.instances) } else { name.clone() };
            let _ = writeln!(o, "{:<6} {:>10} {:>10} {:>11} {:>8} {:>14}", label, c.hits, c.misses, c.writebacks, c.flushes, c.invalidations);
        }
    }
    o
}

/// A hazard's place for a person: `vkCmdCopyBuffer (submit 0, cb0[1])` or `the host read at
/// timeline[3]`.
fn place_text(w: &Workload, p: &sim_core::hazard::Place, usage: &sim_core::sync::StageAccess) -> String {
    match p {
        sim_core::hazard::Place::Command(c) => command_text(w, c),
        sim_core::hazard::Place::Host { timeline } => {
            let what = match w.timeline.get(*timeline) {
                Some(sim_core::api::HostOp::FlushMappedMemoryRanges(_)) => "vkFlushMappedMemoryRanges",
                Some(sim_core::api::HostOp::InvalidateMappedMemoryRanges(_)) => "vkInvalidateMappedMemoryRanges",
                Some(sim_core::api::HostOp::HostRead { .. }) => "host read",
                _ if usage.is_write() => "host write",
                _ => "host read",
            };
            format!("the {what} at timeline[{timeline}]")
        }
    }
}

/// The Vulkan name of a hazard's place (`vkCmdDispatch`, or `host`).
fn place_command(w: &Workload, p: &sim_core::hazard::Place) -> &'static str {
    match p {
        sim_core::hazard::Place::Command(c) => vk_name(w, c),
        sim_core::hazard::Place::Host { .. } => "host",
    }
}

/// The hazards as the report's JSON: the contract's fields, with `command` and
/// `prior_command` naming the Vulkan commands, `found` saying where the layer would find each
/// (`recording`: within one command buffer; `submit`: across command buffers, submissions or
/// queues; `host`: a host access, which the layer does not track), and the diagnosis:
/// `barrier_at`, `diagnosis`, and `suggested_barrier` (or `suggested_semaphore`,
/// `suggested_host_op`).
pub fn hazards_json(w: &Workload, hazards: &[sim_core::hazard::Hazard]) -> serde_json::Value {
    let prog = sim_core::api::Program::new(w).ok();
    let list: Vec<serde_json::Value> = hazards
        .iter()
        .map(|h| {
            let found = match (&h.at, h.within_command_buffer) {
                (sim_core::hazard::Place::Host { .. }, _) => "host",
                (_, true) => "recording",
                _ => "submit",
            };
            let mut v = serde_json::json!({
                "id": h.id,
                "at": h.at,
                "command": place_command(w, &h.at),
                "usage": h.usage,
                "resource": h.resource,
                "offset": h.offset,
                "size": h.size,
                "prior": h.prior,
                "prior_command": place_command(w, &h.prior),
                "prior_usage": h.prior_usage,
                "found": found,
                "by": "gpusim",
            });
            if let Some(d) = &h.discarded {
                v["discarded"] = serde_json::json!(d);
            }
            if let Some(prog) = &prog {
                let d = sim_core::hazard::diagnose::diagnose(prog, h);
                if let Some(b) = &d.barrier_at {
                    v["barrier_at"] = serde_json::json!(b);
                }
                v["diagnosis"] = d.diagnosis.into();
                let key = match d.suggested {
                    sim_core::hazard::diagnose::Suggestion::Barrier { .. } => "suggested_barrier",
                    sim_core::hazard::diagnose::Suggestion::Semaphore { .. } => "suggested_semaphore",
                    sim_core::hazard::diagnose::Suggestion::HostOp { .. } => "suggested_host_op",
                    sim_core::hazard::diagnose::Suggestion::OldLayout { .. } => "suggested_old_layout",
                    sim_core::hazard::diagnose::Suggestion::SubpassDependency { .. } => "suggested_subpass_dependency",
                };
                v[key] = serde_json::json!(d.suggested);
            }
            v
        })
        .collect();
    serde_json::Value::Array(list)
}

/// Each hazard as a paragraph: what was accessed after what, why (the diagnosis) and the fix.
pub fn hazard_texts<'h>(w: &Workload, hazards: impl IntoIterator<Item = &'h sim_core::hazard::Hazard>) -> Vec<String> {
    // One numbered program for every diagnosis.
    let prog = sim_core::api::Program::new(w).ok();
    hazards
        .into_iter()
        .map(|h| {
            let mut text = hazard_sentence(w, h);
            if let Some(prog) = &prog {
                let d = sim_core::hazard::diagnose::diagnose(prog, h);
                let fix = match sim_core::hazard::diagnose::image_widening(prog, h) {
                    // A layout transition: its own image barrier is what to widen.
                    Some(i) => {
                        let m = &i.add;
                        let masks: Vec<String> = [("srcStageMask", m.src_stage_mask.to_string()), ("srcAccessMask", m.src_access_mask.to_string()), ("dstStageMask", m.dst_stage_mask.to_string()), ("dstAccessMask", m.dst_access_mask.to_string())].into_iter().filter(|(_, v)| v != "NONE").map(|(k, v)| format!("{v} to its {k}")).collect();
                        format!("widen {} (image memory barrier {}): add {}", command_text(w, &i.command), i.index, masks.join(", "))
                    }
                    None if d.amend.is_empty() => suggestion_text(&d.suggested),
                    None => amend_text(w, &d.amend),
                };
                text.push_str(&format!("\n  Why: {}.\n  Fix: {fix}.", d.diagnosis));
            }
            text
        })
        .collect()
}

/// Widening the synchronization already in the program, for a person: what `check --fix` does
/// where a barrier or event wait stands between the two accesses.
fn amend_text(w: &Workload, amend: &[sim_core::hazard::diagnose::Amendment]) -> String {
    use sim_core::hazard::diagnose::BarrierTarget;
    let parts: Vec<String> = amend
        .iter()
        .map(|a| {
            let m = &a.add;
            let masks: Vec<String> = [("srcStageMask", m.src_stage_mask.to_string()), ("srcAccessMask", m.src_access_mask.to_string()), ("dstStageMask", m.dst_stage_mask.to_string()), ("dstAccessMask", m.dst_access_mask.to_string())]
                .into_iter()
                .filter(|(_, v)| !v.is_empty() && v != "NONE")
                .map(|(k, v)| format!("{v} to its {k}"))
                .collect();
            let what = match &a.target {
                BarrierTarget::Memory(k) => format!("memory barrier {k}"),
                BarrierTarget::Buffer { index, range: Some((o, n)) } => format!("buffer memory barrier {index} (its range widened to offset {o}, size {})", n.map_or("VK_WHOLE_SIZE".to_string(), |n| n.to_string())),
                BarrierTarget::Buffer { index, range: None } => format!("buffer memory barrier {index}"),
                BarrierTarget::NewMemory => "a new memory barrier".to_string(),
                BarrierTarget::NewBuffer { buffer, .. } => format!("a new buffer memory barrier on {}", w.buffers.get(*buffer).map_or("the buffer", |b| b.name.as_str())),
                BarrierTarget::SetEventStageMask => "its stage mask".to_string(),
            };
            let masks = if masks.is_empty() { String::new() } else { format!(": add {}", masks.join(", ")) };
            format!("widen {} ({what}){masks}", command_text(w, &a.command))
        })
        .collect();
    format!("{} (`gpusim check --fix` does it in place)", parts.join("; "))
}

/// A suggestion for a person.
fn suggestion_text(s: &sim_core::hazard::diagnose::Suggestion) -> String {
    use sim_core::hazard::diagnose::Suggestion;
    match s {
        Suggestion::Barrier { insert_before, insert_after, src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask } => {
            let place = match (insert_before, insert_after) {
                (Some(b), _) => format!("before {}[{}]", b.command_buffer, b.command),
                (None, Some(a)) => format!("after {}[{}]", a.command_buffer, a.command),
                (None, None) => String::new(),
            };
            format!("a vkCmdPipelineBarrier2 {place} with srcStageMask {src_stage_mask}, srcAccessMask {src_access_mask}, dstStageMask {dst_stage_mask}, dstAccessMask {dst_access_mask}")
        }
        Suggestion::SubpassDependency { render_pass, src_subpass, dst_subpass, src_stage_mask, src_access_mask, dst_stage_mask, dst_access_mask } => {
            format!(
                "a dependency of render pass `{render_pass}` from subpass {src_subpass} to subpass {dst_subpass} with srcStageMask {src_stage_mask}, srcAccessMask {src_access_mask}, dstStageMask {dst_stage_mask}, dstAccessMask {dst_access_mask} (or those bits added to the one it has between them; `gpusim check --fix` does either)"
            )
        }
        Suggestion::Semaphore { signal_submit, wait_submit, wait_stage_mask } => {
            format!("a semaphore signalled by the submission at timeline[{signal_submit}] and waited by the one at timeline[{wait_submit}] with stage mask {wait_stage_mask}")
        }
        Suggestion::OldLayout { command, image_barrier, old_layout: Some(l) } => {
            format!("name {l} as the old_layout of image memory barrier {image_barrier} of {}[{}] (`gpusim check --fix` does it in place)", command.command_buffer, command.command)
        }
        Suggestion::OldLayout { command, image_barrier, old_layout: None } => {
            format!("split image memory barrier {image_barrier} of {}[{}] into one barrier per layout its subresources are in, each naming that old layout", command.command_buffer, command.command)
        }
        Suggestion::HostOp { op, before_timeline, memory, range } => {
            let r = range.map(|(o, n)| format!(" bytes [{o}, {})", o + n)).unwrap_or_default();
            let m = memory.as_ref().map(|m| format!(" of {m}{r}")).unwrap_or_default();
            format!("{op}{m} before timeline[{before_timeline}]")
        }
    }
}

/// The hazard's first sentence: who accessed what, after whom.
fn hazard_sentence(w: &Workload, h: &sim_core::hazard::Hazard) -> String {
    let verb = |u: &sim_core::sync::StageAccess| if u.is_write() { "writes" } else { "reads" };
    let past = |u: &sim_core::sync::StageAccess| if u.is_write() { "wrote" } else { "read" };
    if h.id == "GPUSIM-HOST-INVALIDATE-BEFORE-FLUSH" {
        return format!(
            "{}: {} covers bytes [{}, {}) of {}, which {} wrote ({}) and no vkFlushMappedMemoryRanges flushed first: their contents are now undefined.",
            h.id,
            place_text(w, &h.at, &h.usage),
            h.offset,
            h.offset + h.size,
            h.resource,
            place_text(w, &h.prior, &h.prior_usage),
            h.prior_usage,
        );
    }
    if let Some(d) = &h.discarded {
        return format!(
            "{}: {} reads bytes [{}, {}) of {}, whose contents {} discarded: it transitions image `{}` from UNDEFINED after {} wrote them ({}), and nothing wrote them since.",
            h.id,
            place_text(w, &h.at, &h.usage),
            h.offset,
            h.offset + h.size,
            h.resource,
            place_text(w, &h.prior, &h.prior_usage),
            d.image,
            place_text(w, &d.write, &d.write_usage),
            d.write_usage,
        );
    }
    let what = match h.id {
        "GPUSIM-HOST-MISSING-FLUSH" => "the host wrote them to non-coherent memory and never flushed them (vkFlushMappedMemoryRanges)".to_string(),
        "GPUSIM-HOST-MISSING-INVALIDATE" => "the device wrote them to non-coherent memory and the host did not invalidate them (vkInvalidateMappedMemoryRanges) after waiting".to_string(),
        id if id.contains("RACING") => "on another queue, with nothing (a semaphore, a fence wait) ordering the two".to_string(),
        "SYNC-HAZARD-WRITE-AFTER-READ" => "and no execution dependency orders that read before this write".to_string(),
        _ if matches!(&h.at, sim_core::hazard::Place::Host { timeline } if matches!(w.timeline.get(*timeline), Some(sim_core::api::HostOp::FlushMappedMemoryRanges(_)))) => {
            "since the host last invalidated them: a flush writes the host's copy of whole atoms, so it puts stale bytes over the device's".to_string()
        }
        _ if matches!(h.at, sim_core::hazard::Place::Host { .. }) && h.not_waited => "and the host did not wait for that command (a fence, vkQueueWaitIdle or vkDeviceWaitIdle)".to_string(),
        _ if matches!(h.at, sim_core::hazard::Place::Host { .. }) && !h.usage.is_write() => {
            "and no barrier made that write available to the host (a dependency with HOST and HOST_READ in its second scope, before the fence or wait)".to_string()
        }
        _ if matches!(h.at, sim_core::hazard::Place::Host { .. }) => "and nothing ordered the two".to_string(),
        // A layout transition (at its barrier) is ordered after what its barrier's first scope holds.
        _ if h.usage.is_layout_transition() => "and the first scope of the barrier that transitions the layout (its srcStageMask and srcAccessMask) does not hold that write, so the transition is not ordered after it".to_string(),
        _ => format!("and no memory dependency made that write available and visible to {}", h.usage),
    };
    format!(
        "{}: {} {} bytes [{}, {}) of {} ({}); {} {} them ({}) {what}.",
        h.id,
        place_text(w, &h.at, &h.usage),
        verb(&h.usage),
        h.offset,
        h.offset + h.size,
        h.resource,
        h.usage,
        place_text(w, &h.prior, &h.prior_usage),
        past(&h.prior_usage),
        h.prior_usage,
    )
}
