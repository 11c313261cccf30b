//! `gpusim check TRACE`: the hazard detector alone, without simulating.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim_core::trace::TraceError;

use super::CliError;
use super::run::Format;

/// Arguments of `gpusim check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The trace (JSON, format version 1: docs/TRACE_FORMAT.md).
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
    let t = sim_core::trace::load(&args.trace).map_err(|e: TraceError| Box::new(e) as CliError)?;
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
