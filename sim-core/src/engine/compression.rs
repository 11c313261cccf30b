//! Framebuffer compression in the engine: which images are compressed, what a layout
//! transition does to their metadata, fast clears, and images as decoded texels at the end.
//!
//! # Design
//! The metadata itself ([`sim_rop::Metadata`]) lives in the [`Machine`], and the units that
//! understand it read and write through a [`sim_rop::Codec`] there ([`Machine::decodes`]). This
//! module decides the rest from the profile's `[machine.rop.compression]` and its
//! `[[barriers.layout_transitions]]` rows:
//! - At bind, every compressible image's tiles are made compressible. Where the profile's rows
//!   initialize metadata on a transition from UNDEFINED (RADV's `metadata-init`, ANV's
//!   `ccs-ambiguate`), the image's own metadata holds whatever it happens to hold until that
//!   transition; otherwise it starts raw. Where metadata is kept per 64 KiB page, the bytes of
//!   the page outside every image are under metadata nobody initialized: a buffer placed there
//!   against `bufferImageGranularity` reads through garbage states, as the seed describes.
//! - A transition performs the work of every row it matches, on the image's subresource range,
//!   after the barrier's first scope and before its second (Vulkan's order for a layout
//!   transition), and the rows' cache operations; it costs the profile's cycles per tile it
//!   rewrites plus the bandwidth of the bytes it moves.
//! - vkCmdClearColorImage in a layout the profile fast-clears in, with a colour among the
//!   fast-clear values, writes metadata only; so does vkCmdClearDepthStencilImage of a depth
//!   plane alone to a depth among them (HTILE's and HiZ's clear state).
//! - At the end, every image's tiles are counted by state, then decoded in place, so final
//!   memory is compared as texels, never as raw slots: a correct program reports nothing
//!   whatever the compression state.

use sim_caches::AccessError;
use sim_rop::{Aspect as RopAspect, ClearValue, Tiling};

use crate::api::error::WorkloadError;
use crate::api::program::Program;
use crate::api::workload::{Command, ImageBinding};
use crate::engine::machine::Machine;
use crate::engine::record::ImageWorkLog;
use crate::profile::{ImageLayout, ImageWork, Profile};

/// Whether `profile` compresses `im`: optimal-tiled colour images without storage usage
/// (drivers keep storage images uncompressed, and multisampled images are not accepted yet),
/// and depth/stencil images (AMD's HTILE, Intel's HiZ: per-tile depth metadata; the image's
/// bytes are compressed as a colour image's of the depth plane's texel size, and a stencil
/// plane's bytes with them, losslessly).
pub fn compressible(im: &ImageBinding, profile: &Profile) -> bool {
    let aspects = im.layout.desc.format.aspects();
    profile.machine.rop.compression.enabled()
        && im.layout.desc.tiling == Tiling::Optimal
        && (aspects == [RopAspect::Color] || aspects.first() == Some(&RopAspect::Depth))
        && !im.has_usage("STORAGE")
}

/// The aspect whose texels a compressible image's tiles hold: colour, or a depth/stencil
/// image's depth.
fn tile_aspect(im: &ImageBinding) -> RopAspect {
    im.layout.desc.format.aspects().first().copied().unwrap_or(RopAspect::Color)
}

/// Which of the profile's `[[barriers.layout_transitions]]` rows an image's transitions match:
/// the colour rows for a colour image, the depth rows for a depth/stencil one.
fn row_aspect(im: &ImageBinding) -> crate::profile::Aspect {
    if im.layout.desc.format.aspects() == [RopAspect::Color] { crate::profile::Aspect::Color } else { crate::profile::Aspect::Depth }
}

/// The profile's fast-clear values as texel bytes of `im`'s format (for a depth plane: each
/// value's first channel as a depth, clamped to 0..=1; a depth fast clear stores one value).
fn clear_texels(im: &ImageBinding, profile: &Profile) -> Vec<Vec<u8>> {
    let format = im.layout.desc.format;
    let values = profile.machine.rop.compression.clear_values.iter();
    if tile_aspect(im) == RopAspect::Depth {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for v in values {
            let depth = ClearValue::DepthStencil { depth: v[0].clamp(0.0, 1.0), stencil: 0 };
            if let Some(t) = format.encode(RopAspect::Depth, &depth)
                && !out.contains(&t)
            {
                out.push(t);
            }
        }
        return out;
    }
    values.filter_map(|v| format.encode(RopAspect::Color, &ClearValue::Float(*v)).or_else(|| format.encode(RopAspect::Color, &ClearValue::Uint(v.map(|c| c as u32))))).collect()
}

/// The layout a trace names, as the profile's rows name it (`None`: one no row can name).
fn layout(name: &str) -> Option<ImageLayout> {
    toml::Value::String(name.trim_start_matches("VK_IMAGE_LAYOUT_").to_string()).try_into().ok()
}

/// Whether the profile's rows initialize colour metadata on a transition from UNDEFINED.
fn initializes_metadata(profile: &Profile) -> bool {
    crate::profile::plan::transition_rows(profile, crate::profile::Aspect::Color, ImageLayout::Undefined, ImageLayout::ShaderReadOnlyOptimal)
        .iter()
        .any(|t| t.work.iter().any(|w| matches!(w, ImageWork::MetadataInit | ImageWork::CcsAmbiguate)))
}

/// The device bytes of image `i`: (address, size).
fn image_bytes(prog: &Program<'_>, i: usize) -> (u64, u64) {
    (prog.buffer_addr(prog.image_resource(i), 0), prog.workload.images[i].layout.size)
}

/// Makes every compressible image of `prog` compressible on `machine` (see the module
/// documentation); `seed` picks what uninitialized metadata holds.
pub(crate) fn bind(machine: &mut Machine, prog: &Program<'_>, profile: &Profile, seed: u64) -> Result<(), WorkloadError> {
    let images: Vec<usize> = (0..prog.workload.images.len()).filter(|&i| compressible(&prog.workload.images[i], profile)).collect();
    for &i in &images {
        let im = &prog.workload.images[i];
        let (addr, size) = image_bytes(prog, i);
        let texel = im.layout.desc.format.plane_bytes(tile_aspect(im)).unwrap_or(4) as usize;
        machine
            .meta
            .enable(addr, size, texel as u64 * u64::from(sim_rop::layout::TILE_TEXELS), texel, clear_texels(im, profile))
            .map_err(|e| WorkloadError::Invalid { at: format!("images[{i}]"), message: format!("image `{}`: {e}", im.name) })?;
    }
    if images.is_empty() {
        return Ok(());
    }
    // Everything compressible that no image covers (the rest of a page) holds what metadata
    // memory held; the images' own tiles too until a transition initializes them, where the
    // driver does that.
    let regions: Vec<(u64, u64)> = machine.meta.regions().collect();
    // Optimal images that are not compressed (storage, depth) may share a page with one that
    // is (bufferImageGranularity separates linear from optimal resources only): their tiles are
    // initialized uncompressed with them.
    let optimal = (0..prog.workload.images.len()).filter(|&i| prog.workload.images[i].layout.desc.tiling == Tiling::Optimal);
    let mut own: Vec<(u64, u64)> = optimal.map(|i| image_bytes(prog, i)).map(|(a, n)| (a, a + n)).collect();
    own.sort_unstable();
    for (start, end) in regions {
        let mut at = start;
        for &(a, b) in own.iter().filter(|(a, b)| *b > start && *a < end) {
            if a > at {
                machine.meta.leave_undefined(at, a - at, seed);
            }
            at = at.max(b);
        }
        if at < end {
            machine.meta.leave_undefined(at, end - at, seed);
        }
    }
    if initializes_metadata(profile) {
        for &i in &images {
            let (a, n) = image_bytes(prog, i);
            machine.meta.leave_undefined(a, n, seed);
        }
    }
    Ok(())
}

/// An image barrier's layout transition that the profile's rows do something for.
pub(crate) struct Transition<'p> {
    /// The image.
    pub(crate) image: usize,
    /// The rows it matches, in the table's order.
    pub(crate) rows: Vec<&'p crate::profile::LayoutTransition>,
    /// The device bytes of its subresource range.
    pub(crate) ranges: Vec<(u64, u64)>,
}

/// The layout transitions of synchronization command instance `inst` that `profile`'s rows act
/// on: each image barrier whose layouts differ and that is among `node_barriers` (a pipeline
/// barrier's independent dependencies are nodes of their own, each transitioning its own
/// images).
pub(crate) fn transitions<'p>(prog: &Program<'_>, profile: &'p Profile, inst: usize, node_barriers: &[crate::engine::stream::RangedBarrier]) -> Vec<Transition<'p>> {
    let mut out = Vec::new();
    let deps: Vec<&crate::api::workload::DependencyInfo> = match prog.sync_command(inst) {
        Some(crate::api::action::SyncCommand::Barrier(d)) => vec![d],
        Some(crate::api::action::SyncCommand::WaitEvents { dependency, .. }) => vec![dependency],
        _ => Vec::new(),
    };
    for ib in deps.iter().flat_map(|d| d.image_memory_barriers.iter()) {
        let (Some(old), Some(new)) = (layout(&ib.old_layout), layout(&ib.new_layout)) else { continue };
        if old == new {
            continue;
        }
        let im = &prog.workload.images[ib.image];
        let aspect = row_aspect(im);
        let rows = crate::profile::plan::transition_rows(profile, aspect, old, new);
        if rows.is_empty() {
            continue;
        }
        let base = image_bytes(prog, ib.image).0;
        let ranges: Vec<(u64, u64)> = im.layout.range_bytes(&ib.range).unwrap_or_default().into_iter().map(|(o, n)| (base + o, n)).collect();
        if ranges.first().is_some_and(|&r| node_barriers.iter().any(|(b, range)| *b == ib.barrier && *range == Some(r))) {
            out.push(Transition { image: ib.image, rows, ranges });
        }
    }
    out
}

/// Performs the metadata work of transition `t`'s rows on `machine` (nothing for an image the
/// profile does not compress): what each did and cost.
pub(crate) fn metadata_work(machine: &mut Machine, prog: &Program<'_>, profile: &Profile, t: &Transition<'_>) -> Result<Vec<ImageWorkLog>, AccessError> {
    let im = &prog.workload.images[t.image];
    let mut logs = Vec::new();
    if !compressible(im, profile) {
        return Ok(logs);
    }
    let spec = &profile.machine.rop.compression;
    let bandwidth = u64::from(profile.timing.vram_channel_bytes_per_cycle).max(1) * u64::from(profile.machine.vram.channels.max(1));
    for &work in t.rows.iter().flat_map(|r| r.work.iter()) {
        let (mut tiles, mut moved) = (0, 0);
        for &(a, n) in &t.ranges {
            let (k, report) = machine.image_work(work, a, n)?;
            tiles += k;
            moved += (u64::from(report.dram_read_transactions) + u64::from(report.dram_write_transactions)) * sim_caches::TRANSACTION_BYTES;
        }
        // An initialization writes 4 bits of metadata a tile and moves no data; the rest
        // rewrite tiles.
        let per_tile = if matches!(work, ImageWork::MetadataInit | ImageWork::CcsAmbiguate | ImageWork::HizAmbiguate) { 0 } else { u64::from(spec.decompress_cycles_per_tile) };
        let cycles = tiles * per_tile + tiles.div_ceil(2).div_ceil(bandwidth) + moved.div_ceil(bandwidth);
        logs.push(ImageWorkLog { image: im.name.clone(), work, tiles, cycles });
    }
    Ok(logs)
}

/// The fast-clear value index command instance `inst` clears to, when it is a
/// vkCmdClearColorImage the profile performs as a fast clear (metadata only): a compressible
/// image, a layout the profile fast-clears in, and a colour among its fast-clear values.
pub(crate) fn fast_clear(prog: &Program<'_>, profile: &Profile, inst: usize) -> Option<u8> {
    let ins = &prog.instances[inst];
    let (image, l, texel) = match &prog.workload.command_buffers[ins.cb].commands[ins.index] {
        Command::ClearColorImage { image, layout, texel, .. } => (*image, layout, texel.clone()),
        // A depth clear of the depth plane alone (the stencil plane's bytes are written as
        // they are): HTILE's and HiZ's clear state.
        Command::ClearDepthStencilImage { image, layout, depth, ranges, .. } => {
            let format = prog.workload.images[*image].layout.desc.format;
            if ranges.iter().any(|r| r.aspects[RopAspect::Stencil as usize]) {
                return None;
            }
            (*image, layout, format.encode(RopAspect::Depth, &ClearValue::DepthStencil { depth: *depth, stencil: 0 })?)
        }
        _ => return None,
    };
    let im = &prog.workload.images[image];
    let spec = &profile.machine.rop.compression;
    if !compressible(im, profile) || !layout(l).is_some_and(|l| spec.fast_clear_layouts.contains(&l)) {
        return None;
    }
    clear_texels(im, profile).iter().position(|t| *t == texel).map(|k| k as u8)
}

/// One image at the end of a run: its tiles by compression state, and its texels that differ
/// from the reference run's.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ImageReport {
    /// The image's id.
    pub image: String,
    /// Whether the profile compresses it.
    pub compressed: bool,
    /// Tiles stored raw.
    pub tiles_raw: u64,
    /// Tiles stored compressed (2:1, 4:1, 8:1).
    pub tiles_compressed: u64,
    /// Tiles in a fast-clear state.
    pub tiles_cleared: u64,
    /// Texels (of every subresource) whose bytes differ from the reference run's.
    pub texels_differing: u64,
    /// Texels in all.
    pub texels: u64,
}

/// Counts every image's tiles by state, then decodes every compressible byte that belongs to a
/// resource in place, so that `machine.vram` holds images as texels (bytes no resource is bound
/// to keep what they hold).
pub(crate) fn finish(machine: &mut Machine, prog: &Program<'_>, profile: &Profile) -> Result<Vec<ImageReport>, AccessError> {
    let mut out = Vec::new();
    for (i, im) in prog.workload.images.iter().enumerate() {
        // The tiles of its subresources (not the padding its alignment adds).
        let base = image_bytes(prog, i).0;
        let mut census = (0, 0, 0);
        if compressible(im, profile) {
            for (o, n) in im.layout.range_bytes(&sim_rop::SubresourceRange::whole(&im.layout.desc)).unwrap_or_default() {
                let c = machine.meta.census(base + o, n);
                census = (census.0 + c.0, census.1 + c.1, census.2 + c.2);
            }
        }
        let (raw, compressed, cleared) = census;
        out.push(ImageReport { image: im.name.clone(), compressed: compressible(im, profile), tiles_raw: raw, tiles_compressed: compressed, tiles_cleared: cleared, ..Default::default() });
    }
    if machine.meta.is_empty() {
        return Ok(out);
    }
    let resources = prog.workload.buffers.len() + prog.workload.images.len();
    for r in 0..resources {
        let addr = prog.buffer_addr(r, 0);
        machine.decode_in_place(addr, prog.resource_size(r))?;
    }
    Ok(out)
}

/// Counts, per image, the texels whose bytes in `sim` (decoded) differ from `reference`. Reads
/// a band of rows at a time (a row of tiles, or one linear row), so nothing is allocated by
/// the image's size.
pub(crate) fn count_differing(reports: &mut [ImageReport], prog: &Program<'_>, sim: &sim_caches::BackingStore, reference: &sim_caches::BackingStore) -> Result<(), AccessError> {
    for (i, report) in reports.iter_mut().enumerate() {
        let im = &prog.workload.images[i];
        let base = image_bytes(prog, i).0;
        let optimal = im.layout.desc.tiling == Tiling::Optimal;
        let rows_per_band = if optimal { sim_rop::layout::TILE_DIM } else { 1 };
        let (mut a, mut b, mut ta, mut tb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &aspect in im.layout.desc.format.aspects() {
            let texel = u64::from(im.layout.desc.format.plane_bytes(aspect).unwrap_or(1)) as usize;
            for layer in 0..im.layout.desc.array_layers {
                for level in 0..im.layout.desc.mip_levels {
                    let Some(s) = im.layout.subresource(aspect, level, layer) else { continue };
                    let [w, h, d] = s.extent;
                    report.texels += u64::from(w) * u64::from(h) * u64::from(d);
                    for z in 0..d {
                        for y0 in (0..h).step_by(rows_per_band as usize) {
                            let Some(start) = im.layout.texel_offset(aspect, level, layer, [0, y0, z]) else { continue };
                            // A band is a row of tiles (optimal) or a row (linear) from its first
                            // texel, within the subresource.
                            let start = if optimal { start / u64::from(sim_rop::layout::TILE_TEXELS * s.texel_bytes) * u64::from(sim_rop::layout::TILE_TEXELS * s.texel_bytes) } else { start };
                            let len = s.row_pitch.min(s.offset + s.size - start) as usize;
                            let words = sim_caches::word_span(base + start, len);
                            a.resize(len, 0);
                            b.resize(len, 0);
                            ta.resize(words, 0);
                            tb.resize(words, 0);
                            sim.peek(base + start, &mut a, &mut ta)?;
                            reference.peek(base + start, &mut b, &mut tb)?;
                            for y in y0..(y0 + rows_per_band).min(h) {
                                for x in 0..w {
                                    let Some(off) = im.layout.texel_offset(aspect, level, layer, [x, y, z]) else { continue };
                                    let k = (off - start) as usize;
                                    if a.get(k..k + texel) != b.get(k..k + texel) {
                                        report.texels_differing += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Why bytes `[addr, addr + len)` read wrong on `profile` with no hazard behind it, when
/// compression explains it: a buffer aliasing a compressed image (it reads the raw slots where
/// metadata is kept with the image), or a buffer in a compressed image's page (it is read
/// through metadata nobody initialized where metadata is kept per page). `None` otherwise.
pub(crate) fn explain_bytes(prog: &Program<'_>, profile: &Profile, addr: u64, len: u64) -> Option<String> {
    let per_page = profile.machine.rop.compression.metadata == crate::profile::MetadataPlacement::PerPage;
    let page = crate::profile::COMPRESSION_PAGE_BYTES;
    for (i, im) in prog.workload.images.iter().enumerate().filter(|(_, im)| compressible(im, profile)) {
        let (a, n) = image_bytes(prog, i);
        if addr < a + n && a < addr + len {
            return Some(format!(
                "these bytes are image `{}`'s, which {} stores compressed in {}-byte tiles; {}",
                im.name,
                profile.name,
                u64::from(im.layout.desc.format.plane_bytes(tile_aspect(im)).unwrap_or(4)) * u64::from(sim_rop::layout::TILE_TEXELS),
                if per_page {
                    "a reader outside the image sees them through the page's metadata, as texels in the tiled order, not as a buffer laid them out"
                } else {
                    "its metadata is kept with the image, so a buffer aliasing the image reads the raw slots: compressed bytes, then whatever the rest of each slot held. An optimal image's bytes have no defined layout, so no validation layer reports this"
                }
            ));
        }
        let (lo, hi) = (a / page * page, (a + n).div_ceil(page) * page);
        if per_page && addr < hi && lo < addr + len {
            return Some(format!(
                "these bytes share a {page}-byte page with image `{}`, which {} compresses with metadata kept per page: they are read through the page's metadata, which nothing initialized for them. Place buffers bufferImageGranularity ({}) bytes away from optimal images",
                im.name, profile.name, profile.limits.buffer_image_granularity
            ));
        }
    }
    None
}

/// Why a read of bytes layout transition `h` discarded ([`crate::hazard::READ_AFTER_DISCARD`])
/// saw what it saw on `profile`, the bytes having come through `via`: what the profile's rows for
/// a transition from UNDEFINED did to the image's tiles.
pub(crate) fn discard_text(prog: &Program<'_>, profile: &Profile, h: &crate::hazard::Hazard, via: &str) -> String {
    let barrier = match &h.prior {
        crate::hazard::Place::Command(c) => prog.instance_of(c).and_then(|i| match prog.sync_command(i) {
            Some(crate::api::action::SyncCommand::Barrier(d)) | Some(crate::api::action::SyncCommand::WaitEvents { dependency: d, .. }) => h.discarded.as_ref().and_then(|x| d.image_memory_barriers.get(x.barrier)),
            _ => None,
        }),
        crate::hazard::Place::Host { .. } => None,
    };
    let work: Vec<String> = barrier
        .filter(|b| compressible(&prog.workload.images[b.image], profile))
        .and_then(|b| Some((b, layout(&b.new_layout)?)))
        .map(|(b, new)| {
            crate::profile::plan::transition_rows(profile, row_aspect(&prog.workload.images[b.image]), ImageLayout::Undefined, new).iter().flat_map(|r| r.work.iter()).map(|w| w.to_string()).collect()
        })
        .unwrap_or_default();
    if work.is_empty() {
        format!("on {}, the bytes came through {via}; its rows for a transition from UNDEFINED do nothing to this image, so what it read is what the bytes held", profile.name)
    } else {
        format!(
            "on {}, the transition from UNDEFINED performs {} (its barrier table's layout-transition rows): the tiles the earlier write left compressed are read as raw slots, compressed bytes and then whatever the rest of each slot held (the bytes came through {via}). No barrier brings them back",
            profile.name,
            work.join(", ")
        )
    }
}

/// The most texels a picture takes (an image whose first level is larger is not pictured).
pub const MAX_PICTURE_TEXELS: u64 = 1 << 22;

/// An image's first subresource (level 0, layer 0, depth slice 0 of its first aspect) at the end
/// of a run and of the reference run, for pictures.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The image's id (or the buffer's, for a buffer the trace says holds texels).
    pub image: String,
    /// Its format.
    pub format: sim_rop::Format,
    /// The aspect pictured.
    pub aspect: RopAspect,
    /// Width and height in texels.
    pub extent: [u32; 2],
    /// Texel bytes, row-major, as the run left them (decoded).
    pub simulated: Vec<u8>,
    /// The same as the reference run left them.
    pub reference: Vec<u8>,
    /// Per 8x8-texel tile, row-major, its compression state at the end; `None` for an image
    /// the profile does not compress.
    pub tiles: Option<Vec<sim_rop::TileState>>,
}

/// The tile states of every compressible image's first subresource, before [`finish`] decodes
/// them (`None` for one that is not compressed or too large to picture).
pub(crate) fn tile_states(machine: &Machine, prog: &Program<'_>, profile: &Profile) -> Vec<Option<Vec<sim_rop::TileState>>> {
    prog.workload
        .images
        .iter()
        .enumerate()
        .map(|(i, im)| {
            let [w, h, _] = im.layout.desc.extent;
            if !compressible(im, profile) || u64::from(w) * u64::from(h) > MAX_PICTURE_TEXELS {
                return None;
            }
            let base = image_bytes(prog, i).0;
            let t = sim_rop::layout::TILE_DIM;
            let mut out = Vec::new();
            for ty in 0..h.div_ceil(t) {
                for tx in 0..w.div_ceil(t) {
                    let state = im.layout.tile_slot(tile_aspect(im), 0, 0, [tx * t, ty * t, 0]).and_then(|(o, _)| machine.meta.tile(base + o)).map_or(sim_rop::TileState::Raw, |i| i.state);
                    out.push(state);
                }
            }
            Some(out)
        })
        .collect()
}

/// The pictures of every image of `prog` small enough to picture, then of every buffer the trace
/// says holds texels: texels from `sim` (decoded) and `reference`, with the tile states
/// [`tile_states`] took.
pub(crate) fn pictures(prog: &Program<'_>, sim: &sim_caches::BackingStore, reference: &sim_caches::BackingStore, mut tiles: Vec<Option<Vec<sim_rop::TileState>>>) -> Result<Vec<Picture>, AccessError> {
    let mut out = Vec::new();
    for (i, im) in prog.workload.images.iter().enumerate() {
        let [w, h, _] = im.layout.desc.extent;
        if u64::from(w) * u64::from(h) > MAX_PICTURE_TEXELS {
            continue;
        }
        let aspect = im.layout.desc.format.aspects()[0];
        let texel = im.layout.desc.format.plane_bytes(aspect).unwrap_or(1) as usize;
        let base = image_bytes(prog, i).0;
        let (mut a, mut b) = (Vec::with_capacity(w as usize * h as usize * texel), Vec::with_capacity(w as usize * h as usize * texel));
        let (mut ta, mut tb) = (vec![0; 8], vec![0; 8]);
        let mut one = [0u8; 16];
        for y in 0..h {
            for x in 0..w {
                let Some(off) = im.layout.texel_offset(aspect, 0, 0, [x, y, 0]) else { continue };
                let words = sim_caches::word_span(base + off, texel);
                sim.peek(base + off, &mut one[..texel], &mut ta[..words])?;
                a.extend_from_slice(&one[..texel]);
                reference.peek(base + off, &mut one[..texel], &mut tb[..words])?;
                b.extend_from_slice(&one[..texel]);
            }
        }
        out.push(Picture { image: im.name.clone(), format: im.layout.desc.format, aspect, extent: [w, h], simulated: a, reference: b, tiles: tiles.get_mut(i).and_then(Option::take) });
    }
    // Buffers the trace says hold texels: rows from their first byte.
    for (i, buf) in prog.workload.buffers.iter().enumerate() {
        let Some(p) = buf.picture else { continue };
        let [w, h] = p.extent;
        if u64::from(w) * u64::from(h) > MAX_PICTURE_TEXELS {
            continue;
        }
        let texel = u64::from(p.format.plane_bytes(RopAspect::Color).unwrap_or(4));
        let (mut a, mut b) = (vec![0; (u64::from(w) * u64::from(h) * texel) as usize], vec![0; (u64::from(w) * u64::from(h) * texel) as usize]);
        let row = (u64::from(w) * texel) as usize;
        let mut tags = vec![0; sim_caches::word_span(0, row) + 1];
        for y in 0..h as usize {
            let addr = prog.buffer_addr(i, y as u64 * u64::from(p.row_length) * texel);
            let words = sim_caches::word_span(addr, row);
            sim.peek(addr, &mut a[y * row..(y + 1) * row], &mut tags[..words])?;
            reference.peek(addr, &mut b[y * row..(y + 1) * row], &mut tags[..words])?;
        }
        out.push(Picture { image: buf.name.clone(), format: p.format, aspect: RopAspect::Color, extent: [w, h], simulated: a, reference: b, tiles: None });
    }
    Ok(out)
}
