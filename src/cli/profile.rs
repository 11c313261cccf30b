//! `gpusim profile list` and `gpusim profile show NAME|FILE [--json]`.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;
use sim_caches::CacheSpec;
use sim_core::profile::grid::{TableGrid, table_grid};
use sim_core::profile::{Profile, machine::policy_name};

use super::CliError;

/// Arguments of `gpusim profile`.
#[derive(Args)]
pub struct ProfileArgs {
    #[command(subcommand)]
    command: ProfileCommand,
}

#[derive(Subcommand)]
enum ProfileCommand {
    /// List the built-in profiles with a one-line description each.
    List,
    /// Print a profile's machine, timing, limits and barrier table (as a grid like the seed's).
    Show {
        /// A built-in profile name or a profile file (TOML).
        profile: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `gpusim profile ...`.
pub fn run(args: ProfileArgs) -> Result<ExitCode, CliError> {
    match args.command {
        ProfileCommand::List => {
            let mut out = String::new();
            let names = Profile::builtin_names();
            let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
            for name in names {
                let p = Profile::builtin(name).ok_or_else(|| format!("built-in profile `{name}` does not load"))?;
                let _ = writeln!(out, "{name:<width$}  {}", p.description);
            }
            super::print_out(&out)?;
        }
        ProfileCommand::Show { profile, json } => {
            let p = Profile::load(&profile)?;
            let grid = table_grid(&p);
            if json {
                #[derive(Serialize)]
                struct Shown<'a> {
                    profile: &'a Profile,
                    barrier_grid: &'a TableGrid,
                }
                super::print_out(&format!("{}\n", serde_json::to_string_pretty(&Shown { profile: &p, barrier_grid: &grid })?))?;
            } else {
                super::print_out(&render(&p, &grid)?)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

fn cache(spec: &Option<CacheSpec>) -> String {
    match spec {
        None => "none".into(),
        Some(s) => format!(
            "{}, {} B lines, {} ways, {}, {}{}",
            bytes(s.size_bytes),
            s.line_bytes,
            s.ways,
            serde_json::to_value(s.replacement).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
            policy_name(s.write_policy),
            if s.dirty_on_invalidate == sim_caches::DirtyOnInvalidate::Discard { ", invalidate discards dirty data" } else { "" },
        ),
    }
}

/// `key = value` lines of a serializable section, in field order.
fn section<T: Serialize>(out: &mut String, value: &T) -> Result<(), CliError> {
    if let serde_json::Value::Object(map) = serde_json::to_value(value)? {
        let width = map.keys().map(|k| k.len()).max().unwrap_or(0);
        for (k, v) in map {
            let _ = writeln!(out, "  {k:<width$} = {v}");
        }
    }
    Ok(())
}

fn render(p: &Profile, grid: &TableGrid) -> Result<String, CliError> {
    let m = &p.machine;
    let mut out = String::new();
    let _ = writeln!(out, "profile {}: {}", p.name, p.description);
    if let Some(base) = &p.base {
        let _ = writeln!(out, "base: {base}");
    }
    let _ = writeln!(out, "\nmachine");
    let rows = [
        (
            "compute units".to_string(),
            format!(
                "{} (each: {} shared memory, {} workgroup slots, subgroups of {})",
                m.compute_units,
                bytes(m.cu.shared_memory_bytes as u64),
                m.cu.workgroup_slots,
                m.cu.subgroup_size
            ),
        ),
        ("L1 (per CU)".into(), cache(&m.cu.l1)),
        ("T$ (per CU)".into(), cache(&m.cu.texture_cache)),
        ("U$ (per CU)".into(), cache(&m.cu.uniform_cache)),
        ("L2".into(), format!("{}; {} banks interleaved at {} B", cache(&m.l2.cache), m.l2.banks, m.l2.bank_interleave_bytes)),
        ("VRAM".into(), format!("{} address space, {} channels interleaved at {} B", bytes(m.vram.size_bytes), m.vram.channels, m.vram.channel_interleave_bytes)),
        (
            "transfer engine".into(),
            serde_json::to_value(m.transfer.path)?.as_str().unwrap_or_default().to_string(),
        ),
        (
            "ROP".into(),
            format!("{} units, {}x{} pixel tiles; tile cache {}", m.rop.units, m.rop.tile_pixels, m.rop.tile_pixels, cache(&m.rop.tile_cache)),
        ),
        (
            "host".into(),
            format!(
                "{} write-combining buffers of {} B; cache {}; nonCoherentAtomSize {}",
                m.host.write_combining_buffers,
                m.host.write_combining_buffer_bytes,
                cache(&m.host.cache),
                p.limits.non_coherent_atom_size
            ),
        ),
    ];
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        let _ = writeln!(out, "  {k:<width$}  {v}");
    }
    let _ = writeln!(out, "\ntiming (latencies in cycles, bandwidths in bytes/cycle)");
    section(&mut out, &p.timing)?;
    let _ = writeln!(out, "\nlimits (bytes unless counts)");
    section(&mut out, &p.limits)?;
    let _ = writeln!(out, "\npolicies (driver choices that are not table rows)");
    section(&mut out, &p.policies)?;
    let range = serde_json::to_value(p.barriers.range)?;
    let _ = writeln!(
        out,
        "\nbarrier table (range: {}; src = first scope, flush side; dst = second scope, invalidate side; - = never legal)",
        range.as_str().unwrap_or_default()
    );
    if grid.rows.is_empty() {
        let _ = writeln!(out, "  (no rows: no barrier performs any cache operation)");
    } else {
        out.push_str(&grid.render());
    }
    Ok(out)
}
