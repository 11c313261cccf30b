//! vkCmdCopyImage (`copy_image`): refused with a located message where Vulkan's valid usage
//! refuses it, and written back by the trace writer as it was read.

mod support;

use serde_json::{Value, json};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/images/copy-image-correct.json");
/// The index of the copy_image command in the example's command buffer.
const COPY: usize = 3;

fn gpusim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().unwrap()
}

fn scratch(name: &str, t: &Value) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-image-copies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(t).unwrap()).unwrap();
    path
}

/// The example changed by `change` is refused at `at` with a message holding `fragment`.
fn refused(name: &str, change: impl FnOnce(&mut Value), at: &str, fragment: &str) {
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
    change(&mut t);
    let out = gpusim(&["run", scratch(name, &t).to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(&format!(": {at}: ")) && err.contains(fragment), "{name}: expected `{at}` and `{fragment}` in: {err}");
}

fn copy(t: &mut Value) -> &mut Value {
    &mut t["command_buffers"][0]["commands"][COPY]
}

fn region(t: &mut Value) -> &mut Value {
    &mut copy(t)["regions"][0]
}

#[test]
fn layouts_usages_and_formats_are_checked() {
    refused("src-layout", |t| copy(t)["src_image_layout"] = json!("SHADER_READ_ONLY_OPTIMAL"), "command_buffers[0].commands[3].src_image_layout", "VUID-vkCmdCopyImage-srcImageLayout-01917");
    refused("dst-layout", |t| copy(t)["dst_image_layout"] = json!("TRANSFER_SRC_OPTIMAL"), "command_buffers[0].commands[3].dst_image_layout", "VUID-vkCmdCopyImage-dstImageLayout-01395");
    refused("no-transfer-src", |t| t["images"][0]["usage"] = json!("TRANSFER_DST"), "command_buffers[0].commands[3].src_image", "VUID-vkCmdCopyImage-srcImage-00126");
    refused("sizes", |t| t["images"][1]["format"] = json!("R32G32_SFLOAT"), "command_buffers[0].commands[3].dst_image", "R8G8B8A8_UNORM and R32G32_SFLOAT are not size-compatible (VUID-vkCmdCopyImage-srcImage-01548)");
    // The layout the image is in when the copy runs, in submission order.
    refused("in-other-layout", |t| copy(t)["dst_image_layout"] = json!("GENERAL"), "command_buffers[0].commands[3]", "VUID-vkCmdCopyImage-dstImageLayout-00133");
}

#[test]
fn regions_are_checked_as_vk_image_copy() {
    refused("outside", |t| region(t)["dst_offset"] = json!([8, 0, 0]), "command_buffers[0].commands[3].regions[0].dst_offset", "VUID-vkCmdCopyImage-dstOffset-00150");
    refused("bytes", |t| region(t)["src_offset"] = json!(64), "command_buffers[0].commands[3].regions[0].src_offset", "is a texel [x, y, z], not a byte count");
    refused("layers", |t| region(t)["dst_subresource"]["layer_count"] = json!(2), "command_buffers[0].commands[3].regions[0].dst_subresource.layer_count", "not within the image's 1");
    refused("no-extent", |t| region(t).as_object_mut().unwrap().remove("extent").map(|_| ()).unwrap(), "command_buffers[0].commands[3].regions[0]", "needs `extent`");
    refused("buffer-field", |t| region(t)["size"] = json!(16), "command_buffers[0].commands[3].regions[0].size", "does not belong to a copy_image region");
    // Within one image, a region's source may not overlap a destination.
    refused(
        "overlap",
        |t| {
            copy(t)["dst_image"] = json!("a");
            copy(t)["src_image_layout"] = json!("GENERAL");
            copy(t)["dst_image_layout"] = json!("GENERAL");
            region(t)["extent"] = json!([16, 16, 1]);
            region(t)["dst_offset"] = json!([8, 8, 0]);
        },
        "command_buffers[0].commands[3].regions[0]",
        "VUID-vkCmdCopyImage-pRegions-00124",
    );
}

/// The examples write back through the trace writer, load again to the same run, and write the
/// same text twice.
#[test]
fn copies_round_trip_through_the_writer() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["copy-image-correct", "copy-image-missing"] {
        let written = support::round_trip(&root.join(format!("examples/images/{name}.json")), name, "radv-gfx10");
        assert!(written.contains("\"cmd\": \"copy_image\""), "{name}");
    }
}
