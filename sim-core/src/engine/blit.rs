//! vkCmdBlitImage's texel arithmetic, shared by the reference run and the transfer engine.
//!
//! # Design
//! A blit's destination is cut into runs of contiguous bytes ([`crate::api::action::BlitRun`],
//! at most a tile row of an optimal image), one transfer chunk each. For a run, [`run_bytes`]
//! maps each destination texel's centre to unnormalized source coordinates ("Image Blits":
//! `u = srcOffset[0] + (x + 0.5 - dstOffset[0]) × (srcOffset[1] - srcOffset[0]) /
//! (dstOffset[1] - dstOffset[0])`, per axis, so reversed offsets mirror), takes the filter's
//! taps there ([`sim_rop::blit_footprint`]: NEAREST one texel, LINEAR the 2 × 2 (× 2) around it,
//! clamped to the level's edge), reads the tapped texels of each source row as segments of
//! contiguous bytes (broken at the source's tile edges) through the caller's `read`, and
//! filters, converts and encodes each destination texel. The reads are the run's: each segment
//! a read with its own key, so the oracle compares them with the reference run's like a copy's,
//! and a stale source texel shows in the destination texels it weighs on.

use crate::api::action::Work;
use crate::api::program::Program;
use crate::engine::record::ReadKey;

/// The key of segment `segment` of run `run` of blit instance `inst`.
pub(crate) fn segment_key(inst: usize, run: usize, segment: u32) -> ReadKey {
    ReadKey { inst: inst as u32, a: run as u32, b: segment, c: u32::MAX - 1, d: 0 }
}

/// One source read of a run: device address, offset in the source image's resource, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Device address of the first byte.
    pub(crate) addr: u64,
    /// Offset of the first byte in the source resource.
    pub(crate) offset: u64,
    /// Bytes.
    pub(crate) len: u64,
}

/// How a run reads one source segment: (segment number, segment, bytes to fill).
pub(crate) type ReadSegment<'r, E> = dyn FnMut(u32, Segment, &mut [u8]) -> Result<(), E> + 'r;

/// The bytes of run `index` of blit `work` (instance `inst`) into `out`: its source texels read
/// segment by segment through `read(segment number, segment, bytes)`, filtered, converted to
/// the destination's format and encoded. Nothing for work that is not a blit.
pub(crate) fn run_bytes<E>(prog: &Program<'_>, work: &Work<'_>, index: usize, read: &mut ReadSegment<'_, E>, out: &mut Vec<u8>) -> Result<(), E> {
    out.clear();
    let Work::Blit { src, src_image, dst_image, regions, filter, runs, .. } = work else { return Ok(()) };
    let (Some(run), Some(si), Some(di)) = (runs.get(index), prog.workload.images.get(*src_image), prog.workload.images.get(*dst_image)) else { return Ok(()) };
    let Some(g) = regions.get(run.region as usize) else { return Ok(()) };
    let sub = g.src_subresource;
    let layer = sub.base_array_layer + run.layer;
    let desc = &si.layout.desc;
    let size = desc.level_extent(sub.mip_level);
    let dims = match desc.image_type {
        sim_rop::ImageType::D1 => 1,
        sim_rop::ImageType::D2 => 2,
        sim_rop::ImageType::D3 => 3,
    };
    let (sf, df) = (desc.format, di.layout.desc.format);
    let tb = sf.plane_bytes(sim_rop::Aspect::Color).unwrap_or(4) as usize;
    let base = prog.buffer_addr(*src, 0);
    // The footprint of every texel of the run.
    let footprints: Vec<sim_rop::Footprint> = (0..run.count)
        .map(|dx| {
            let mut u = [0.0f32; 3];
            let dst = [run.texel[0] + dx, run.texel[1], run.texel[2]];
            for (k, u) in u.iter_mut().enumerate() {
                let (s0, s1) = (f64::from(g.src_offsets[0][k]), f64::from(g.src_offsets[1][k]));
                let (d0, d1) = (f64::from(g.dst_offsets[0][k]), f64::from(g.dst_offsets[1][k]));
                let scale = if d1 == d0 { 0.0 } else { (s1 - s0) / (d1 - d0) };
                *u = (s0 + (f64::from(dst[k]) + 0.5 - d0) * scale) as f32;
            }
            sim_rop::blit_footprint(*filter, size, dims, u)
        })
        .collect();
    // The source rows they tap, each with the span of texels tapped in it.
    let mut rows: Vec<([u32; 2], u32, u32)> = Vec::new();
    for t in footprints.iter().flat_map(|f| f.taps.iter()) {
        let key = [t.texel[1], t.texel[2]];
        match rows.iter_mut().find(|r| r.0 == key) {
            Some(r) => (r.1, r.2) = (r.1.min(t.texel[0]), r.2.max(t.texel[0])),
            None => rows.push((key, t.texel[0], t.texel[0])),
        }
    }
    rows.sort_unstable();
    // Each row's span, read a segment of contiguous bytes at a time.
    let tile = sim_rop::layout::TILE_DIM;
    let mut bytes: Vec<Vec<u8>> = Vec::with_capacity(rows.len());
    let mut segment = 0u32;
    for &([j, k], lo, hi) in &rows {
        let mut row = vec![0u8; (hi - lo + 1) as usize * tb];
        let mut x = lo;
        while x <= hi {
            let n = if desc.tiling == sim_rop::Tiling::Optimal { (tile - x % tile).min(hi - x + 1) } else { hi - x + 1 };
            let Some(offset) = si.layout.texel_offset(sim_rop::Aspect::Color, sub.mip_level, layer, [x, j, k]) else { break };
            let at = (x - lo) as usize * tb;
            let len = n as usize * tb;
            read(segment, Segment { addr: base + offset, offset, len: len as u64 }, &mut row[at..at + len])?;
            segment += 1;
            x += n;
        }
        bytes.push(row);
    }
    // Filter, convert and encode each destination texel.
    let mut texels = Vec::with_capacity(8);
    for f in &footprints {
        texels.clear();
        for t in &f.taps {
            let r = rows.iter().position(|r| r.0 == [t.texel[1], t.texel[2]]).unwrap_or(0);
            let at = (t.texel[0] - rows[r].1) as usize * tb;
            texels.push(sf.decode(sim_rop::Aspect::Color, &bytes[r][at..at + tb]));
        }
        let words = sim_rop::filter(f, &texels, [0; 4]);
        out.extend(df.encode_words(words).unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x4 R8G8B8A8_UNORM image blitted onto a 2x2 one with LINEAR filtering: each
    /// destination texel is the average of a 2x2 block, read as one segment per source row; a
    /// reversed destination box mirrors it; NEAREST picks one texel a destination texel.
    #[test]
    fn a_linear_blit_averages_and_a_reversed_box_mirrors() {
        let trace = |filter: &str, dst: &str| {
            format!(
                r#"{{"gpusim_trace": 1, "memory": [{{"id": "m", "size": 65536, "properties": "DEVICE_LOCAL"}}],
                "images": [{{"id": "a", "memory": "m", "offset": 0, "format": "R8G8B8A8_UNORM", "extent": [4, 4, 1], "usage": "TRANSFER_SRC"}},
                           {{"id": "b", "memory": "m", "offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [2, 2, 1], "usage": "TRANSFER_DST"}}],
                "command_buffers": [{{"id": "cb", "commands": [
                  {{"cmd": "pipeline_barrier", "image_memory_barriers": [
                    {{"src_stage_mask": "NONE", "src_access_mask": "NONE", "dst_stage_mask": "BLIT", "dst_access_mask": "TRANSFER_READ", "old_layout": "UNDEFINED", "new_layout": "TRANSFER_SRC_OPTIMAL", "image": "a"}},
                    {{"src_stage_mask": "NONE", "src_access_mask": "NONE", "dst_stage_mask": "BLIT", "dst_access_mask": "TRANSFER_WRITE", "old_layout": "UNDEFINED", "new_layout": "TRANSFER_DST_OPTIMAL", "image": "b"}}]}},
                  {{"cmd": "blit_image", "src_image": "a", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_image": "b", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "filter": "{filter}",
                    "regions": [{{"src_subresource": {{"aspect_mask": "COLOR"}}, "src_offsets": [[0, 0, 0], [4, 4, 1]],
                                 "dst_subresource": {{"aspect_mask": "COLOR"}}, "dst_offsets": {dst}}}]}}]}}],
                "timeline": [{{"op": "queue_submit", "command_buffers": ["cb"]}}]}}"#
            )
        };
        // Source texel (x, y) has red 16 (4y + x), green 0, blue 255 - red, alpha 255.
        let texel = |x: u32, y: u32| [16 * (4 * y + x) as u8, 0, 255 - 16 * (4 * y + x) as u8, 255];
        let run = |filter: &str, dst: &str| -> (Vec<Vec<u8>>, Vec<Vec<u64>>) {
            let t = crate::trace::load_str(&trace(filter, dst), None).expect("loads");
            let prog = Program::new(&t.workload).expect("program");
            let inst = (0..prog.instances.len()).find(|&i| prog.action(i).is_some()).expect("the blit");
            let action = prog.action(inst).expect("an action");
            let a = &t.workload.images[0];
            let Work::Blit { runs, .. } = &action.work else { panic!("a blit") };
            let (mut texels, mut reads) = (Vec::new(), Vec::new());
            for i in 0..runs.len() {
                let mut out = Vec::new();
                let mut offsets = Vec::new();
                run_bytes::<()>(
                    &prog,
                    &action.work,
                    i,
                    &mut |_, s, buf| {
                        offsets.push(s.offset);
                        // The bytes of the texels at the segment's offsets.
                        for (k, b) in buf.chunks_mut(4).enumerate() {
                            let off = s.offset + 4 * k as u64;
                            let (x, y) = (0..16).map(|n| (n % 4, n / 4)).find(|&(x, y)| a.layout.texel_offset(sim_rop::Aspect::Color, 0, 0, [x, y, 0]) == Some(off)).expect("a texel");
                            b.copy_from_slice(&texel(x, y));
                        }
                        Ok(())
                    },
                    &mut out,
                )
                .unwrap();
                texels.extend(out.chunks(4).map(<[u8]>::to_vec));
                reads.push(offsets);
            }
            (texels, reads)
        };
        let avg = |x: u32, y: u32| {
            let r = (0..4).map(|k| u32::from(texel(2 * x + k % 2, 2 * y + k / 2)[0])).sum::<u32>() / 4;
            vec![r as u8, 0, 255 - r as u8, 255]
        };
        let (texels, reads) = run("LINEAR", "[[0, 0, 0], [2, 2, 1]]");
        assert_eq!(texels, [avg(0, 0), avg(1, 0), avg(0, 1), avg(1, 1)]);
        // One run a destination row; two source rows read, a segment each.
        assert_eq!(reads.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2]);
        let (mirrored, _) = run("LINEAR", "[[2, 0, 0], [0, 2, 1]]");
        assert_eq!(mirrored, [avg(1, 0), avg(0, 0), avg(1, 1), avg(0, 1)]);
        // NEAREST: u = 2x + 1, the texel at (2x + 1, 2y + 1).
        let (nearest, _) = run("NEAREST", "[[0, 0, 0], [2, 2, 1]]");
        assert_eq!(nearest, [texel(1, 1).to_vec(), texel(3, 1).to_vec(), texel(1, 3).to_vec(), texel(3, 3).to_vec()]);
    }
}
