//! vkCmdBlitImage (`blit_image`): refused with a located message where Vulkan's valid usage
//! refuses it, computed texel by texel as the specification's blit arithmetic says (checked
//! against texels worked out here, on every built-in profile), and written back by the trace
//! writer as it was read.

mod support;

use serde_json::{Value, json};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/images/generate-mips-correct.json");
/// The index of the first blit_image command in the example's command buffer.
const BLIT: usize = 3;
const PROFILES: [&str; 8] = ["seed-vram", "seed-l2", "nvidia-like", "anv-gen12", "radv-gfx10", "radv-gfx9", "turnip-a6xx", "ideal"];

fn gpusim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().unwrap()
}

fn scratch(name: &str, t: &Value) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-image-blits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(t).unwrap()).unwrap();
    path
}

fn example() -> Value {
    serde_json::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap()
}

/// The example changed by `change` is refused at `at` with a message holding `fragment`.
fn refused(name: &str, change: impl FnOnce(&mut Value), at: &str, fragment: &str) {
    let mut t = example();
    change(&mut t);
    let out = gpusim(&["run", scratch(name, &t).to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(&format!(": {at}: ")) && err.contains(fragment), "{name}: expected `{at}` and `{fragment}` in: {err}");
}

fn blit(t: &mut Value) -> &mut Value {
    &mut t["command_buffers"][0]["commands"][BLIT]
}

fn region(t: &mut Value) -> &mut Value {
    &mut blit(t)["regions"][0]
}

const AT: &str = "command_buffers[0].commands[3]";

#[test]
fn layouts_usages_formats_and_filters_are_checked() {
    refused("src-layout", |t| blit(t)["src_image_layout"] = json!("SHADER_READ_ONLY_OPTIMAL"), &format!("{AT}.src_image_layout"), "VUID-vkCmdBlitImage-srcImageLayout-01398");
    refused("dst-layout", |t| blit(t)["dst_image_layout"] = json!("TRANSFER_SRC_OPTIMAL"), &format!("{AT}.dst_image_layout"), "VUID-vkCmdBlitImage-dstImageLayout-01399");
    refused("no-transfer-src", |t| t["images"][0]["usage"] = json!("TRANSFER_DST"), &format!("{AT}.src_image"), "VUID-vkCmdBlitImage-srcImage-00219");
    refused("no-filter", |t| blit(t).as_object_mut().unwrap().remove("filter").map(|_| ()).unwrap(), AT, "needs `filter` (NEAREST or LINEAR)");
    refused("cubic", |t| blit(t)["filter"] = json!("CUBIC_EXT"), &format!("{AT}.filter"), "unknown filter `CUBIC_EXT`");
    // An unsigned integer image blits to an unsigned integer image, and never LINEAR.
    let mut two = example();
    two["images"].as_array_mut().unwrap().push(json!({"id": "ints", "memory": "vram", "offset": 32768, "format": "R32_UINT", "extent": [16, 16, 1], "usage": "TRANSFER_SRC|TRANSFER_DST"}));
    let with_ints = |change: &dyn Fn(&mut Value)| {
        let mut t = two.clone();
        t["command_buffers"][0]["commands"][0]["image_memory_barriers"].as_array_mut().unwrap().push(json!({
            "src_stage_mask": "NONE", "src_access_mask": "NONE", "dst_stage_mask": "BLIT", "dst_access_mask": "TRANSFER_WRITE",
            "old_layout": "UNDEFINED", "new_layout": "TRANSFER_DST_OPTIMAL", "image": "ints"}));
        change(&mut t);
        t
    };
    let t = with_ints(&|t| {
        blit(t)["dst_image"] = json!("ints");
        region(t)["dst_subresource"]["mip_level"] = json!(0);
    });
    refused("uint-from-unorm", |x| *x = t, &format!("{AT}.dst_image"), "VUID-vkCmdBlitImage-srcImage-00230");
    let t = with_ints(&|t| {
        blit(t)["src_image"] = json!("ints");
        blit(t)["dst_image"] = json!("ints");
        blit(t)["src_image_layout"] = json!("GENERAL");
        blit(t)["dst_image_layout"] = json!("GENERAL");
        region(t)["src_subresource"]["mip_level"] = json!(0);
        region(t)["src_offsets"] = json!([[0, 0, 0], [8, 8, 1]]);
        region(t)["dst_subresource"]["mip_level"] = json!(0);
        region(t)["dst_offsets"] = json!([[8, 8, 0], [16, 16, 1]]);
    });
    refused("uint-linear", |x| *x = t, &format!("{AT}.filter"), "VUID-vkCmdBlitImage-filter-02001");
    // Depth images are refused as not supported yet.
    refused(
        "depth",
        |t| {
            t["images"].as_array_mut().unwrap().push(json!({"id": "depth", "memory": "vram", "offset": 32768, "format": "D32_SFLOAT", "extent": [16, 16, 1], "usage": "TRANSFER_SRC"}));
            blit(t)["src_image"] = json!("depth");
        },
        &format!("{AT}.src_image"),
        "blits of depth/stencil images (D32_SFLOAT) are not supported yet by the engine",
    );
    // The layout the image is in when the blit runs, in submission order.
    refused("in-other-layout", |t| blit(t)["src_image_layout"] = json!("GENERAL"), AT, "VUID-vkCmdBlitImage-srcImageLayout-00221");
}

#[test]
fn regions_are_checked_as_vk_image_blit() {
    let r = format!("{AT}.regions[0]");
    refused("past-level", |t| region(t)["dst_offsets"] = json!([[0, 0, 0], [17, 16, 1]]), &format!("{r}.dst_offsets[1]"), "VUID-vkCmdBlitImage-dstOffset-00248");
    refused("negative", |t| region(t)["src_offsets"] = json!([[-1, 0, 0], [32, 32, 1]]), &format!("{r}.src_offsets[0]"), "VUID-vkCmdBlitImage-srcOffset-00243");
    refused("flat-z", |t| region(t)["src_offsets"] = json!([[0, 0, 0], [32, 32, 0]]), &format!("{r}.src_offsets"), "a 2D image's z corners must be 0 and 1 (VUID-vkCmdBlitImage-srcImage-00247)");
    refused("layers", |t| region(t)["dst_subresource"]["layer_count"] = json!(2), &format!("{r}.dst_subresource.layer_count"), "not within the image's 1");
    refused("no-offsets", |t| region(t).as_object_mut().unwrap().remove("dst_offsets").map(|_| ()).unwrap(), &r, "needs `dst_offsets`");
    refused("copy-field", |t| region(t)["extent"] = json!([1, 1, 1]), &format!("{r}.extent"), "does not belong to a blit_image region");
    refused("level", |t| region(t)["dst_subresource"]["mip_level"] = json!(4), &format!("{r}.dst_subresource.mip_level"), "level 4 is past the image's 4");
    // Within one image, a region's source box may not overlap its destination box.
    refused("overlap", |t| region(t)["dst_subresource"]["mip_level"] = json!(0), &r, "VUID-vkCmdBlitImage-pRegions-00217");
}

/// The texels a blit computes: a 4x4 image of distinct colours blitted onto an 8x8 one
/// magnified and mirrored in x with NEAREST (destination texel (x, y) reads source texel
/// (3 - x / 2, y / 2)), and onto a 2x2 one with LINEAR (each the average of a 2x2 block), read
/// back on every built-in profile: the trace states the texels worked out here, and every
/// profile meets them.
#[test]
fn blits_compute_the_texels_the_specification_says() {
    let src: Vec<u32> = (0..16u32).map(|k| u32::from_le_bytes([16 * k as u8, 255 - 16 * k as u8, 64, 255])).collect();
    let nearest: Vec<u32> = (0..64u32).map(|k| src[((k / 8) / 2 * 4 + (3 - (k % 8) / 2)) as usize]).collect();
    let linear: Vec<u32> = (0..4u32)
        .map(|k| {
            let (x, y) = (k % 2, k / 2);
            let quad = [src[(8 * y + 2 * x) as usize], src[(8 * y + 2 * x + 1) as usize], src[(8 * y + 2 * x + 4) as usize], src[(8 * y + 2 * x + 5) as usize]];
            let channel = |c: u32| (quad.iter().map(|t| (t >> (8 * c)) & 255).sum::<u32>() + 2) / 4;
            channel(0) | channel(1) << 8 | channel(2) << 16 | channel(3) << 24
        })
        .collect();
    let image = |id: &str, offset: u64, n: u32| json!({"id": id, "memory": "vram", "offset": offset, "format": "R8G8B8A8_UNORM", "extent": [n, n, 1], "usage": "TRANSFER_SRC|TRANSFER_DST"});
    let to = |id: &str, old: &str, new: &str, src: (&str, &str), dst: (&str, &str)| {
        json!({"src_stage_mask": src.0, "src_access_mask": src.1, "dst_stage_mask": dst.0, "dst_access_mask": dst.1, "old_layout": old, "new_layout": new, "image": id})
    };
    let whole = json!({"aspect_mask": "COLOR"});
    let out_region = |n: u32, offset: u64| json!({"buffer_offset": offset, "image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [n, n, 1]});
    let blit = |dst: &str, dst_offsets: Value, filter: &str| {
        json!({"cmd": "blit_image", "src_image": "src", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_image": dst, "dst_image_layout": "TRANSFER_DST_OPTIMAL", "filter": filter,
               "regions": [{"src_subresource": whole, "src_offsets": [[0, 0, 0], [4, 4, 1]], "dst_subresource": whole, "dst_offsets": dst_offsets}]})
    };
    let expected = [nearest, linear].concat();
    let t = json!({
        "gpusim_trace": 1,
        "memory": [{"id": "vram", "size": 65536, "properties": "DEVICE_LOCAL"}, {"id": "host", "size": 4096, "properties": "HOST_VISIBLE|HOST_COHERENT"}],
        "buffers": [{"id": "staging", "memory": "host", "offset": 0, "size": 64, "usage": "TRANSFER_SRC"},
                    {"id": "out", "memory": "host", "offset": 1024, "size": 272, "usage": "TRANSFER_DST"}],
        "images": [image("src", 0, 4), image("big", 8192, 8), image("small", 16384, 2)],
        "command_buffers": [{"id": "cb", "commands": [
            {"cmd": "pipeline_barrier", "image_memory_barriers": [
                to("src", "UNDEFINED", "TRANSFER_DST_OPTIMAL", ("NONE", "NONE"), ("COPY", "TRANSFER_WRITE")),
                to("big", "UNDEFINED", "TRANSFER_DST_OPTIMAL", ("NONE", "NONE"), ("BLIT", "TRANSFER_WRITE")),
                to("small", "UNDEFINED", "TRANSFER_DST_OPTIMAL", ("NONE", "NONE"), ("BLIT", "TRANSFER_WRITE"))]},
            {"cmd": "copy_buffer_to_image", "src_buffer": "staging", "dst_image": "src", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "regions": [out_region(4, 0)]},
            {"cmd": "pipeline_barrier", "image_memory_barriers": [to("src", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL", ("COPY", "TRANSFER_WRITE"), ("BLIT", "TRANSFER_READ"))]},
            blit("big", json!([[8, 0, 0], [0, 8, 1]]), "NEAREST"),
            blit("small", json!([[0, 0, 0], [2, 2, 1]]), "LINEAR"),
            {"cmd": "pipeline_barrier", "image_memory_barriers": [
                to("big", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL", ("BLIT", "TRANSFER_WRITE"), ("COPY", "TRANSFER_READ")),
                to("small", "TRANSFER_DST_OPTIMAL", "TRANSFER_SRC_OPTIMAL", ("BLIT", "TRANSFER_WRITE"), ("COPY", "TRANSFER_READ"))]},
            {"cmd": "copy_image_to_buffer", "src_image": "big", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_buffer": "out", "regions": [out_region(8, 0)]},
            {"cmd": "copy_image_to_buffer", "src_image": "small", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_buffer": "out", "regions": [out_region(2, 256)]},
            {"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "COPY", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "HOST", "dst_access_mask": "HOST_READ"}]}]}],
        "timeline": [
            {"op": "host_write", "memory": "host", "offset": 0, "data_u32": src},
            {"op": "queue_submit", "command_buffers": ["cb"]},
            {"op": "device_wait_idle"},
            {"op": "host_read", "memory": "host", "offset": 1024, "size": 272, "label": "blits", "expect_u32": expected}]
    });
    let path = scratch("arithmetic", &t);
    for profile in PROFILES {
        let out = gpusim(&["run", path.to_str().unwrap(), "--profile", profile, "--report", "json"]);
        assert_eq!(out.status.code(), Some(0), "{profile}: {}", String::from_utf8_lossy(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let h = &r["host_reads"][0];
        assert_eq!((&h["differing_bytes"], &h["reference_meets_expectation"]), (&json!(0), &json!(true)), "{profile}: {h}");
    }
}

/// The examples write back through the trace writer, load again to the same run, and write the
/// same text twice.
#[test]
fn blits_round_trip_through_the_writer() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["generate-mips-correct", "generate-mips-missing"] {
        let written = support::round_trip(&root.join(format!("examples/images/{name}.json")), name, "radv-gfx10");
        assert!(written.contains("\"cmd\": \"blit_image\"") && written.contains("\"filter\": \"LINEAR\""), "{name}");
    }
}
