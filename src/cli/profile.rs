//! `gpusim profile list`, `gpusim profile show NAME|FILE [--json | --toml | --grid]` and
//! `gpusim profile check NAME|FILE` (in `profile_check.rs`).

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;
use sim_caches::CacheSpec;
use sim_core::profile::grid::{TableGrid, table_grid};
use sim_core::profile::{DriverPoint, Profile, machine::policy_name};

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
    /// Print a profile's machine, timing, limits, policies and barrier table.
    Show {
        /// A built-in profile name or a profile file (TOML).
        profile: String,
        /// Print JSON instead of text.
        #[arg(long, conflicts_with_all = ["toml", "grid"])]
        json: bool,
        /// Print the whole profile as a TOML file that loads back to the same machine: every
        /// field and row, with `base = "none"` (a starting point to edit).
        #[arg(long, conflicts_with = "grid")]
        toml: bool,
        /// Print the barrier table as one wide grid, a column per stage group, like the seed's
        /// tables (the default lists each row's stages and operations on lines of their own, to
        /// fit 100 columns).
        #[arg(long)]
        grid: bool,
    },
    /// Check a profile's barrier table against its machine: random correctly synchronized
    /// programs must all match their reference runs; the first that does not is shrunk and
    /// reported with the table rows involved; then the rows no program needs are named.
    Check(super::profile_check::CheckArgs),
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
        ProfileCommand::Check(args) => return super::profile_check::run(args),
        ProfileCommand::Show { profile, json, toml, grid: wide } => {
            let p = Profile::load(&profile)?;
            if toml {
                super::print_out(&complete_toml(&p)?)?;
                return Ok(ExitCode::SUCCESS);
            }
            let grid = table_grid(&p);
            if json {
                #[derive(Serialize)]
                struct Shown<'a> {
                    profile: &'a Profile,
                    barrier_grid: &'a TableGrid,
                }
                super::print_out(&format!("{}\n", serde_json::to_string_pretty(&Shown { profile: &p, barrier_grid: &grid })?))?;
            } else {
                super::print_out(&render(&p, &grid, wide)?)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}


/// The transfer engine's line of `profile show`: its path, and which transfers the driver runs
/// as shaders and where those read and write.
fn transfer_text(t: &sim_core::profile::TransferSpec) -> Result<String, serde_json::Error> {
    let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let path = name(serde_json::to_value(t.path)?);
    Ok(match t.shader_min_bytes {
        None => path,
        Some(min) => format!(
            "{path}; transfers of {} bytes or more run as shaders on the CUs, reading through {}, writing through {}",
            min,
            name(serde_json::to_value(t.shader_reads)?),
            name(serde_json::to_value(t.shader_writes)?)
        ),
    })
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
            match s.dirty_on_invalidate {
                sim_caches::DirtyOnInvalidate::Discard => ", invalidate discards dirty data",
                sim_caches::DirtyOnInvalidate::Keep => ", invalidate keeps dirty lines",
                sim_caches::DirtyOnInvalidate::Flush => "",
            },
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

/// The text terminals get: at most this many columns (the wide grid excepted).
pub const TEXT_WIDTH: usize = 100;

/// `text` broken at spaces into lines of at most `width` columns (a longer word stands alone):
/// the first line after `first`, the others after `rest`.
fn wrap_words(first: &str, rest: &str, text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The whole profile as TOML: every field and row, starting from nothing (`base = "none"`), so
/// that it loads back to the same profile wherever the file is put.
fn complete_toml(p: &Profile) -> Result<String, CliError> {
    let body = Profile { base: Some("none".into()), ..p.clone() }.to_toml_string();
    if body.is_empty() {
        return Err(format!("profile `{}` does not print as TOML", p.name).into());
    }
    Ok(format!(
        "# The complete profile `{}`, as `gpusim profile show {} --toml` prints it: every field,\n# with `base = \"none\"`, so the file stands alone. Fields are documented in\n# sim-core/src/profile/machine.rs; docs/PROFILES.md says what the built-in ones promise.\n\n{body}",
        p.name, p.name
    ))
}

/// The machine's framebuffer compression, as `profile show` describes it.
fn compression_text(p: &Profile) -> String {
    use sim_core::profile::MetadataPlacement;
    let c = &p.machine.rop.compression;
    let names = |v: &[sim_core::profile::ImageUnit]| v.iter().map(|u| serde_json::to_value(u).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()).collect::<Vec<_>>().join(", ");
    let layouts = c.fast_clear_layouts.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    let fast = if layouts.is_empty() { "no fast clears".to_string() } else { format!("clears to one of {} colours in {layouts} are fast (metadata only)", c.clear_values.len()) };
    match c.metadata {
        MetadataPlacement::None => "none: every tile is stored raw".into(),
        MetadataPlacement::PerPage => format!(
            "optimal colour images in 8x8-texel tiles (raw, 2:1, 4:1, 8:1, fast-cleared), metadata per 64 KiB page: every access to the page goes through it; {fast}; a decompression costs {} cycles a tile",
            c.decompress_cycles_per_tile
        ),
        MetadataPlacement::PerImage => format!(
            "optimal colour images in 8x8-texel tiles (raw, 2:1, 4:1, 8:1, fast-cleared), metadata kept with the image: read by {} (fast-cleared tiles by {}), buffers and the host see the stored bytes; {fast}; a decompression costs {} cycles a tile",
            names(&c.decoders),
            names(&c.clear_decoders),
            c.decompress_cycles_per_tile
        ),
    }
}

fn render(p: &Profile, grid: &TableGrid, wide: bool) -> Result<String, CliError> {
    let m = &p.machine;
    let mut out = String::new();
    let _ = writeln!(out, "profile {}", p.name);
    out.push_str(&wrap_words("  ", "  ", &p.description, TEXT_WIDTH));
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
        ("transfer engine".into(), transfer_text(&m.transfer)?),
        (
            "ROP".into(),
            format!(
                "{} units, {}x{} pixel tiles; tile cache {}; {}",
                m.rop.units,
                m.rop.tile_pixels,
                m.rop.tile_pixels,
                cache(&m.rop.tile_cache),
                if m.rop.l2_client { "writes back into the L2" } else { "writes back to VRAM beside the L2" }
            ),
        ),
        ("compression".into(), compression_text(p)),
        ("draw front end".into(), {
            let f = |l: sim_core::profile::FetchLevel| serde_json::to_value(l).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            format!("vertices through {}, indices through {}, indirect records through {}", f(m.fetch.vertex), f(m.fetch.index), f(m.fetch.indirect))
        }),
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
        out.push_str(&wrap_words(&format!("  {k:<width$}  "), &" ".repeat(width + 4), &v, TEXT_WIDTH));
    }
    let _ = writeln!(out, "\ntiming (latencies in cycles, bandwidths in bytes/cycle)");
    section(&mut out, &p.timing)?;
    let _ = writeln!(out, "\nlimits (bytes unless counts)");
    section(&mut out, &p.limits)?;
    let _ = writeln!(out, "\npolicies (driver choices that are not table rows)");
    section(&mut out, &p.policies)?;
    let range = serde_json::to_value(p.barriers.range)?;
    let _ = writeln!(out, "\nbarrier table (range: {}; src = first scope, the flush side;", range.as_str().unwrap_or_default());
    let _ = writeln!(out, "dst = second scope, the invalidate side{})", if wide { "; - = never legal" } else { "" });
    for point in [DriverPoint::Submit, DriverPoint::Signal] {
        let ops = p.barriers.driver_ops(point);
        if !ops.is_empty() {
            let at = match point {
                DriverPoint::Submit => "at every submission's start (the driver's own)",
                DriverPoint::Signal => "at every semaphore or fence signal (the driver's own)",
            };
            let list: Vec<String> = ops.iter().map(|o| o.to_string()).collect();
            out.push_str(&wrap_words(&format!("  {at}: "), "    ", &list.join(", "), TEXT_WIDTH));
        }
    }
    if grid.rows.is_empty() {
        let _ = writeln!(out, "  (no rows: no barrier performs any cache operation)");
    } else if wide {
        out.push_str(&grid.render());
    } else {
        out.push_str(&grid.render_rows(TEXT_WIDTH));
    }
    if !p.barriers.layout_transitions.is_empty() {
        let _ = writeln!(out, "\nlayout transitions (what the driver does at an image barrier's layout change)");
        for t in &p.barriers.layout_transitions {
            let layouts = |v: &[sim_core::profile::ImageLayout]| v.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            let does: Vec<String> = t.work.iter().map(ToString::to_string).chain(t.ops.iter().map(ToString::to_string)).collect();
            let aspect = serde_json::to_value(t.aspect)?;
            out.push_str(&wrap_words(&format!("  {} from ", aspect.as_str().unwrap_or_default()), "      ", &layouts(&t.from), TEXT_WIDTH));
            out.push_str(&wrap_words("    to ", "      ", &layouts(&t.to), TEXT_WIDTH));
            out.push_str(&wrap_words("    does ", "      ", &does.join(", "), TEXT_WIDTH));
        }
    }
    Ok(out)
}
