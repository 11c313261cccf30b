//! `gpusim check TRACE`: the hazard detector alone, without simulating.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::run::Format;

/// Arguments of `gpusim check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The trace (JSON, format version 1: docs/TRACE_FORMAT.md), or a GFXReconstruct capture
    /// (`.gfxr`), imported in memory as `gpusim import` would write it.
    pub trace: PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub report: Format,
    /// Write the trace with each hazard's suggested synchronization added to the file named by
    /// `-o` (`-` for standard output).
    #[arg(long, requires = "output")]
    pub fix: bool,
    /// Where `--fix` writes the corrected trace.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// The device whose rules the trace is checked against (its limits, nonCoherentAtomSize):
    /// a built-in profile name or a profile file, as `gpusim run` takes it, with its default.
    #[arg(long, default_value = "seed-vram")]
    pub profile: String,
}

/// Runs `gpusim check ...`.
pub fn run(args: CheckArgs) -> Result<ExitCode, CliError> {
    if let Some(output) = args.output.as_ref().filter(|o| o.as_os_str() != "-") {
        super::check_output_file(output, "-o")?;
    }
    // `--fix` edits the trace's text and names its shader files beside the output; a capture
    // has neither, so the trace is written first.
    if args.fix && super::import::is_capture(&args.trace) {
        return Err(format!("--fix edits a trace, and {} is a capture: write its trace first (gpusim import {0} -o TRACE.json), then check that with --fix", args.trace.display()).into());
    }
    let t = super::import::load_trace(&args.trace)?;
    let profile = sim_core::profile::Profile::load(&args.profile)?;
    // What `gpusim run` refuses, refused here the same way, before any hazard is looked for.
    let (prog, stream) = sim_core::engine::validate(&t.workload, &profile, &sim_core::engine::RunLimits::default()).map_err(|e| Box::new(t.locate_engine_error(&e)) as CliError)?;
    let hazards = sim_core::hazard::detect_program(&prog, &stream, None, profile.limits.non_coherent_atom_size);
    if args.fix {
        let output = args.output.as_ref().ok_or("--fix needs -o FILE")?;
        let to_stdout = output.as_os_str() == "-";
        let fixed = super::fix::fix(&t.text, &args.trace, (!to_stdout).then_some(output.as_path()), &profile, &prog, &hazards)?;
        if to_stdout {
            super::print_out(&fixed.text)?;
        } else {
            std::fs::write(output, &fixed.text).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
            super::print_err(&format!("gpusim check: {} of {} hazard(s) fixed in {}", fixed.fixed, hazards.len(), output.display()));
        }
        for u in &fixed.unfixable {
            super::print_err(&format!("gpusim check: not fixed: {u}"));
        }
        return Ok(ExitCode::from(u8::from(!hazards.is_empty())));
    }
    match args.report {
        Format::Json => {
            let mut v = serde_json::json!({
                "gpusim_report": 1,
                "trace": t.name,
                "hazards": super::report::hazards_json(&t.workload, &hazards),
            });
            if !t.workload.images.is_empty() {
                v["images"] = images_json(&t.workload);
                v["placement"] = serde_json::Value::Array(
                    granularity_conflicts(&t.workload, &profile)
                        .iter()
                        .map(|c| serde_json::json!({"resource": c.linear, "image": c.image, "memory": c.memory, "granularity": profile.limits.buffer_image_granularity, "overlap": c.overlap}))
                        .collect(),
                );
            }
            super::print_out(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
        }
        Format::Text => {
            let mut o = format!("gpusim check: trace `{}`\n\n", t.name);
            if hazards.is_empty() {
                o.push_str("No hazard: every access is ordered after the accesses it conflicts with.\n");
            } else {
                o.push_str(&format!("{} hazard(s):\n", hazards.len()));
                for (i, text) in super::report::hazard_texts(&t.workload, &hazards).iter().enumerate() {
                    o.push_str(&format!("\n{}. {text}\n", i + 1));
                }
            }
            o.push_str(&images_text(&t.workload));
            o.push_str(&placement_text(&t.workload, &profile));
            super::print_out(&o)?;
        }
    }
    Ok(ExitCode::from(u8::from(!hazards.is_empty())))
}

/// Each image's memory requirements, as `vkGetImageMemoryRequirements` would give them, and
/// where it is bound: what a trace cannot learn by itself.
fn images_json(w: &sim_core::api::Workload) -> serde_json::Value {
    let list: Vec<serde_json::Value> = w
        .images
        .iter()
        .map(|im| {
            let d = &im.layout.desc;
            let tiling = if d.tiling == sim_rop::Tiling::Linear { "LINEAR" } else { "OPTIMAL" };
            serde_json::json!({
                "id": im.name, "memory": w.memories[im.memory].name, "offset": im.offset,
                "size": im.layout.size, "alignment": im.layout.alignment,
                "format": d.format.name(), "extent": d.extent, "tiling": tiling,
            })
        })
        .collect();
    serde_json::Value::Array(list)
}

/// [`images_json`] for a person.
fn images_text(w: &sim_core::api::Workload) -> String {
    if w.images.is_empty() {
        return String::new();
    }
    let mut o = String::from("\nImages (memory requirements on this device):\n");
    for im in &w.images {
        let d = &im.layout.desc;
        let [x, y, z] = d.extent;
        let tiling = match d.tiling {
            sim_rop::Tiling::Linear => format!("linear, rows every {} bytes", im.layout.subresource(d.format.aspects()[0], 0, 0).map_or(0, |s| s.row_pitch)),
            sim_rop::Tiling::Optimal => {
                let slots: Vec<String> = d.format.aspects().iter().filter_map(|&a| d.format.plane_bytes(a)).map(|b| (b * sim_rop::layout::TILE_TEXELS).to_string()).collect();
                format!("optimal, 8x8-texel tiles of {} bytes", slots.join(" and "))
            }
        };
        o.push_str(&format!(
            "  {}: {} {x}x{y}x{z}, {} level(s), {} layer(s), {tiling}: {} bytes aligned to {}, bound to {} at {}\n",
            im.name,
            d.format,
            d.mip_levels,
            d.array_layers,
            im.layout.size,
            im.layout.alignment,
            w.memories[im.memory].name,
            im.offset
        ));
    }
    o
}

/// A linear resource (a buffer or a linear image) bound within `bufferImageGranularity` of an
/// optimal image in the same memory: Vulkan's "Buffer-Image Granularity" says they alias.
struct GranularityConflict {
    /// The buffer or linear image.
    linear: String,
    /// The optimal image.
    image: String,
    /// The memory object.
    memory: String,
    /// Whether their bytes overlap (aliasing outright), not only their pages.
    overlap: bool,
}

/// Every linear resource that shares a `bufferImageGranularity`-sized page of its memory with
/// an optimal image, on `profile`'s device.
fn granularity_conflicts(w: &sim_core::api::Workload, profile: &sim_core::profile::Profile) -> Vec<GranularityConflict> {
    let g = profile.limits.buffer_image_granularity.max(1);
    let linear_images = w.images.iter().filter(|im| im.layout.desc.tiling == sim_rop::Tiling::Linear).map(|im| (im.name.as_str(), im.memory, im.offset, im.layout.size));
    let linear: Vec<(&str, usize, u64, u64)> = w.buffers.iter().map(|b| (b.name.as_str(), b.memory, b.offset, b.size)).chain(linear_images).collect();
    let mut out = Vec::new();
    for im in w.images.iter().filter(|im| im.layout.desc.tiling == sim_rop::Tiling::Optimal) {
        let (a, n) = (im.offset, im.layout.size);
        for &(name, m, b, size) in linear.iter().filter(|l| l.1 == im.memory && l.3 > 0) {
            // The pages each spans; sharing one is the conflict.
            let (pa, pb) = ((a / g, (a + n - 1) / g), (b / g, (b + size - 1) / g));
            if pa.0 <= pb.1 && pb.0 <= pa.1 {
                out.push(GranularityConflict { linear: name.to_string(), image: im.name.clone(), memory: w.memories[m].name.clone(), overlap: a < b + size && b < a + n });
            }
        }
    }
    out
}

/// [`granularity_conflicts`] for a person, with what the profile's machine makes of each.
fn placement_text(w: &sim_core::api::Workload, profile: &sim_core::profile::Profile) -> String {
    let conflicts = granularity_conflicts(w, profile);
    if conflicts.is_empty() {
        return String::new();
    }
    let g = profile.limits.buffer_image_granularity;
    let consequence = match profile.machine.rop.compression.metadata {
        sim_core::profile::MetadataPlacement::PerPage => format!("{} keeps compression metadata per 64 KiB page, so their bytes are read through the image's page's metadata", profile.name),
        sim_core::profile::MetadataPlacement::PerImage => format!("{} keeps compression metadata with the image, so only bytes that alias a compressed image read its stored tiles", profile.name),
        sim_core::profile::MetadataPlacement::None => format!("{} compresses nothing, so nothing shows here; other devices may", profile.name),
    };
    let mut o = format!("\nPlacement (bufferImageGranularity {g} on {}):\n", profile.name);
    for c in &conflicts {
        let how = if c.overlap { "aliases" } else { "shares a page with" };
        o.push_str(&format!("  `{}` {how} optimal image `{}` in memory `{}`: Vulkan leaves their contents undefined.\n", c.linear, c.image, c.memory));
    }
    o.push_str(&format!("  {consequence}.\n"));
    o
}
