//! `--pictures DIR`: every image of the reported run as PNG files, for a person to look at.
//!
//! Per image (its first level and layer), four pictures, enlarged with square pixels to at least
//! 256 pixels on the longer side so that small test images can be seen:
//! - `IMAGE-simulated.png`: the texels the run left, decoded;
//! - `IMAGE-reference.png`: the texels the reference run left;
//! - `IMAGE-difference.png`: a heat map: texels equal to the reference's are the reference dimmed
//!   to a quarter, differing ones red to yellow to white by the largest byte difference;
//! - `IMAGE-tiles.png` (compressed images only): one square per 8x8-texel tile, its state at
//!   the end: raw grey, 2:1 / 4:1 / 8:1 lighter to darker blue, fast-cleared green (brighter
//!   for later clear values), each tile's edge darkened.
//!
//! Texels become 8-bit RGB as their format decodes them: normalized and float channels clamped
//! to [0, 1] (sRGB formats shown as stored), integers clamped to 255, depth as grey, stencil as
//! grey; alpha is not shown (every picture is opaque), so a transparent texel stays visible.

use std::path::{Path, PathBuf};

use sim_core::engine::compression::Picture;
use sim_rop::{Format, Texel, TileState};

use super::CliError;

/// The shortest a picture's longer side is after enlarging.
const MIN_SIDE: u32 = 256;

/// One texel of `format`'s `aspect` as 8-bit RGB.
fn rgb(format: Format, aspect: sim_rop::Aspect, bytes: &[u8]) -> [u8; 3] {
    match format {
        // Shown as stored: sRGB bytes are already display values.
        Format::R8G8B8A8_UNORM | Format::R8G8B8A8_SRGB => [bytes[0], bytes[1], bytes[2]],
        Format::B8G8R8A8_UNORM => [bytes[2], bytes[1], bytes[0]],
        _ => {
            let unit = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            match format.decode(aspect, bytes) {
                Texel::Float(v) if format.channels() == 1 => [unit(v[0]); 3],
                Texel::Float(v) => [unit(v[0]), unit(v[1]), unit(v[2])],
                Texel::Uint(v) if format.channels() == 1 => [v[0].min(255) as u8; 3],
                Texel::Uint(v) => [v[0].min(255) as u8, v[1].min(255) as u8, v[2].min(255) as u8],
                Texel::Stencil(s) => [s; 3],
            }
        }
    }
}

/// The heat colour of a difference of `d` (1..=255): red, then yellow, then white.
fn heat(d: u8) -> [u8; 3] {
    let t = f32::from(d) / 255.0;
    // At least half-bright red, so a one-unit difference shows.
    let r = 128.0 + 127.0 * (t * 3.0).min(1.0);
    let g = 255.0 * ((t * 3.0 - 1.0).clamp(0.0, 1.0));
    let b = 255.0 * ((t * 3.0 - 2.0).clamp(0.0, 1.0));
    [r as u8, g as u8, b as u8]
}

/// The colour of a tile state in the tile map.
fn tile_colour(s: TileState) -> [u8; 3] {
    match s {
        TileState::Raw => [110, 110, 110],
        TileState::Compressed(2) => [150, 185, 255],
        TileState::Compressed(4) => [80, 130, 245],
        TileState::Compressed(_) => [25, 60, 200],
        TileState::Clear(k) => [40, 150u8.saturating_add(k.saturating_mul(25)), 60],
    }
}

/// Writes `pixels` (`w` x `h` RGB) enlarged `scale` times as a PNG at `path`; with `grid`, each
/// enlarged pixel's top and left edges darkened, so that neighbours of one colour stay apart.
fn write_png(path: &Path, w: u32, h: u32, scale: u32, pixels: &[[u8; 3]], grid: bool) -> Result<(), CliError> {
    let (sw, sh) = (w * scale, h * scale);
    let mut data = Vec::with_capacity(sw as usize * sh as usize * 3);
    for y in 0..sh {
        for x in 0..sw {
            let p = pixels[((y / scale) * w + x / scale) as usize];
            let edge = grid && scale > 2 && (x % scale == 0 || y % scale == 0);
            data.extend_from_slice(&if edge { p.map(|c| (u16::from(c) * 3 / 5) as u8) } else { p });
        }
    }
    let file = std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), sw, sh);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    writer.write_image_data(&data).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// A file name for an image id: characters other than letters, digits, `-` and `_` become `_`.
fn stem(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Writes the pictures of `pictures` into `dir` (created if needed); returns the files written.
pub fn write(dir: &Path, pictures: &[Picture]) -> Result<Vec<PathBuf>, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for p in pictures {
        let [w, h] = p.extent;
        if w == 0 || h == 0 {
            continue;
        }
        let texel = p.format.plane_bytes(p.aspect).unwrap_or(1) as usize;
        let scale = MIN_SIDE.div_ceil(w.max(h)).max(1);
        let sim: Vec<[u8; 3]> = p.simulated.chunks_exact(texel).map(|t| rgb(p.format, p.aspect, t)).collect();
        let reference: Vec<[u8; 3]> = p.reference.chunks_exact(texel).map(|t| rgb(p.format, p.aspect, t)).collect();
        let difference: Vec<[u8; 3]> = p
            .simulated
            .chunks_exact(texel)
            .zip(p.reference.chunks_exact(texel))
            .zip(&reference)
            .map(|((a, b), r)| match a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0) {
                0 => r.map(|c| c / 4),
                d => heat(d),
            })
            .collect();
        let name = stem(&p.image);
        for (kind, pixels) in [("simulated", &sim), ("reference", &reference), ("difference", &difference)] {
            let path = dir.join(format!("{name}-{kind}.png"));
            write_png(&path, w, h, scale, pixels, false)?;
            written.push(path);
        }
        if let Some(tiles) = &p.tiles {
            let t = sim_rop::layout::TILE_DIM;
            let (tw, th) = (w.div_ceil(t), h.div_ceil(t));
            let map: Vec<[u8; 3]> = tiles.iter().map(|&s| tile_colour(s)).collect();
            let path = dir.join(format!("{name}-tiles.png"));
            write_png(&path, tw, th, (scale * t).max(1), &map, true)?;
            written.push(path);
        }
    }
    Ok(written)
}
