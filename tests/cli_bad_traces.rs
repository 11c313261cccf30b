//! Malformed traces: each gets one clear message naming the place (JSON path and/or
//! line:column) and exit status 2 — never a panic, a hang or a huge allocation.

use std::process::Command;

const SHADER: &str = r#"{"id": "add_one", "wgsl": "@group(0) @binding(0) var<storage, read> a: array<u32>; @group(0) @binding(1) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { b[id.x] = a[id.x] + 1u; }"}"#;

/// A small valid trace with `CMDS` as cb0's commands and `TL` as the timeline tail.
fn trace(cmds: &str, extra_top: &str) -> String {
    format!(
        r#"{{"gpusim_trace": 1, "name": "bad",
  "memory": [{{"id": "dev", "size": 65536, "properties": "DEVICE_LOCAL"}},
             {{"id": "up", "size": 4096, "properties": "HOST_VISIBLE|HOST_COHERENT"}}],
  "buffers": [{{"id": "A", "memory": "dev", "offset": 0, "size": 4096}},
              {{"id": "B", "memory": "dev", "offset": 4096, "size": 4096}}],
  "shaders": [{SHADER}],
  "events": ["e0"], "fences": ["f0"], "semaphores": ["s0"],
  "command_buffers": [{{"id": "cb0", "commands": [
    {cmds}
  ]}}]{extra_top}
}}"#
    )
}

fn with_timeline(cmds: &str, timeline: &str) -> String {
    trace(cmds, &format!(",\n  \"timeline\": [{timeline}]"))
}

const FILL: &str = r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 0, "size": 64, "data": 1}"#;
const SUBMIT: &str = r#"{"op": "queue_submit", "queue": "q0", "command_buffers": ["cb0"], "fence": "f0"}, {"op": "wait_for_fences", "fences": ["f0"]}"#;

/// A trace with one 8x8 R8G8B8A8_UNORM image `rt` (TRANSFER_DST) and the command `cmd`.
fn image_cmd(cmd: &str) -> String {
    trace(cmd, ",\n  \"images\": [{\"id\": \"rt\", \"memory\": \"dev\", \"offset\": 8192, \"usage\": \"TRANSFER_DST\", \"format\": \"R8G8B8A8_UNORM\", \"extent\": [8, 8, 1]}]")
}

/// A trace with one image `rt` in memory `dev` of the given fields (beside id, memory, usage).
fn image(fields: &str) -> String {
    trace(FILL, &format!(",\n  \"images\": [{{\"id\": \"rt\", \"memory\": \"dev\", \"usage\": \"TRANSFER_DST\", {fields}}}]"))
}

/// `file` in this test process's own scratch directory, written with `text`.
fn scratch(file: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// `gpusim run` on `text`, written as `NAME.json`, with `args` after the trace.
fn run_trace(name: &str, text: &str, args: &[&str]) -> std::process::Output {
    let path = scratch(&format!("{name}.json"), text);
    Command::new(env!("CARGO_BIN_EXE_gpusim")).arg("run").arg(&path).args(args).output().unwrap()
}

fn run_bad(name: &str, text: &str, fragments: &[&str]) -> Result<(), String> {
    let out = run_trace(name, text, &[]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.code() != Some(2) {
        return Err(format!("{name}: exit {:?} (expected 2); stderr: {err}", out.status.code()));
    }
    if err.contains("panicked") {
        return Err(format!("{name}: panicked: {err}"));
    }
    // One message: a single line, except a shader compiler's own multi-line diagnostic.
    if err.trim().lines().count() != 1 && !err.contains("does not compile") {
        return Err(format!("{name}: expected one line on stderr, got: {err}"));
    }
    for f in fragments {
        if !err.contains(f) {
            return Err(format!("{name}: stderr lacks `{f}`: {err}"));
        }
    }
    Ok(())
}

#[test]
fn malformed_traces_are_rejected_with_a_located_message() {
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("syntax_error", "{\"gpusim_trace\": 1,\n \"memory\": [,]}".into(), vec![":2:", "expected value"]),
        ("truncated", "{\"gpusim_trace\": 1, \"memory\": [".into(), vec!["ends early"]),
        ("not_an_object", "[1, 2]".into(), vec!["invalid type"]),
        ("wrong_version", trace(FILL, "").replace("\"gpusim_trace\": 1", "\"gpusim_trace\": 7"), vec!["gpusim_trace", "version 7"]),
        ("unknown_top_field", trace(FILL, ",\n  \"extra\": 5"), vec!["unknown field `extra`", ":11:9:", "expected one of"]),
        ("unknown_command_field", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_ofset": 0, "data": 1}"#, ""), vec!["unknown field `dst_ofset`", "command_buffers[0].commands[0]"]),
        ("field_of_other_command", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "A", "data": 1, "regions": []}"#, ""), vec!["command_buffers[0].commands[0].regions", "does not belong to `fill_buffer`"]),
        ("wrong_type", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": "zero", "data": 1}"#, ""), vec!["invalid type", "command_buffers[0].commands[0].dst_offset", ":9:66:"]),
        ("negative_size", trace(FILL, "").replace("\"size\": 65536", "\"size\": -5"), vec!["memory[0].size", "invalid value"]),
        ("unknown_buffer", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "Z", "data": 1}"#, ""), vec!["command_buffers[0].commands[0].dst_buffer", "unknown buffer `Z`", ":9:42:"]),
        ("unknown_memory", trace(FILL, "").replace("\"memory\": \"dev\", \"offset\": 4096", "\"memory\": \"nope\", \"offset\": 4096"), vec!["buffers[1].memory", "unknown memory `nope`"]),
        ("duplicate_id", trace(FILL, "").replace("{\"id\": \"B\"", "{\"id\": \"A\""), vec!["buffers[1]", "duplicate buffer id `A`"]),
        ("fill_out_of_range", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 4000, "size": 128, "data": 1}"#, ""), vec!["commands[0].size", "outside buffer `A`"]),
        ("offset_overflow", trace(r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 4, "size": 18446744073709551612, "data": 1}"#, ""), vec!["commands[0].size", "overflows"]),
        ("copy_region_out_of_range", trace(r#"{"cmd": "copy_buffer", "src_buffer": "A", "dst_buffer": "B", "regions": [{"src_offset": 0, "dst_offset": 4090, "size": 64}]}"#, ""), vec!["regions[0].size", "outside buffer `B`"]),
        ("buffer_outside_memory", trace(FILL, "").replace("\"offset\": 4096, \"size\": 4096", "\"offset\": 65000, \"size\": 4096"), vec!["buffers[1].size", "outside memory `dev`"]),
        ("memory_above_cap", trace(FILL, "").replace("\"size\": 65536", "\"size\": 1099511627776"), vec!["memory[0].size", "cap"]),
        ("unknown_stage", trace(r#"{"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "COMPUTE_SHADR", "dst_stage_mask": "TRANSFER"}]}"#, ""), vec!["COMPUTE_SHADR", "command_buffers[0].commands[0].memory_barriers[0]"]),
        ("unknown_access", trace(r#"{"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRIT"}]}"#, ""), vec!["TRANSFER_WRIT", "memory_barriers[0]"]),
        ("render_pass_not_supported", trace(r#"{"cmd": "begin_render_pass"}"#, ""), vec!["`begin_render_pass` needs `render_pass`", "commands[0]"]),
        ("draw_not_supported", trace(&format!("{FILL}, {{\"cmd\": \"draw\", \"vertex_count\": 3}}"), ""), vec!["`draw` needs `pipeline`", "commands[1]"]),
        ("dispatch_indirect_not_supported", trace(r#"{"cmd": "dispatch_indirect", "shader": "add_one"}"#, ""), vec!["`dispatch_indirect` is not supported yet by the engine"]),
        ("unknown_command", trace(r#"{"cmd": "fill_bufer", "dst_buffer": "A", "data": 1}"#, ""), vec!["unknown command `fill_bufer`", "commands[0].cmd"]),
        ("image_without_memory", trace(FILL, ",\n  \"images\": [{\"id\": \"rt\"}]"), vec!["images[0]", "missing field `memory`"]),
        ("image_format_unknown", image(r#""offset": 8192, "format": "R5G6B5_UNORM", "extent": [8, 8, 1]"#), vec!["images[0].format", "unknown or unsupported format `R5G6B5_UNORM`", "R8G8B8A8_UNORM"]),
        ("image_misaligned", image(r#""offset": 8200, "format": "R8G8B8A8_UNORM", "extent": [8, 8, 1]"#), vec!["images[0].offset", "not a multiple of the image's alignment, 4096", "VUID-vkBindImageMemory-memoryOffset-01048"]),
        ("image_past_memory", image(r#""offset": 61440, "format": "R32G32B32A32_SFLOAT", "extent": [64, 64, 1]"#), vec!["images[0].offset", "needs 65536 bytes from offset 61440", "VUID-vkBindImageMemory-size-01049"]),
        ("image_too_many_mips", image(r#""offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [8, 8, 1], "mip_levels": 5"#), vec!["images[0]", "VUID-VkImageCreateInfo-mipLevels-00958"]),
        ("image_hostile_extent", image(r#""offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [4294967295, 4294967295, 1]"#), vec!["images[0]", "maxImageDimension", "VUID-VkImageCreateInfo-extent-02252"]),
        ("image_multisampled", image(r#""offset": 8192, "format": "R8G8B8A8_UNORM", "extent": [8, 8, 1], "samples": 4"#), vec!["images[0].samples", "not supported yet"]),
        ("image_linear_depth", image(r#""offset": 8192, "format": "D32_SFLOAT", "extent": [8, 8, 1], "tiling": "LINEAR""#), vec!["images[0]", "VUID-VkImageCreateInfo-tiling-02261"]),
        ("copy_to_image_wrong_layout", image_cmd(r#"{"cmd": "copy_buffer_to_image", "src_buffer": "A", "dst_image": "rt", "dst_image_layout": "SHADER_READ_ONLY_OPTIMAL", "regions": [{"image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [8, 8, 1]}]}"#), vec!["commands[0].dst_image_layout", "VUID-vkCmdCopyBufferToImage-dstImageLayout-01396"]),
        ("copy_to_image_past_extent", image_cmd(r#"{"cmd": "copy_buffer_to_image", "src_buffer": "A", "dst_image": "rt", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "regions": [{"image_subresource": {"aspect_mask": "COLOR"}, "image_offset": [4, 0, 0], "image_extent": [8, 8, 1]}]}"#), vec!["regions[0].image_extent", "VUID-vkCmdCopyBufferToImage-imageSubresource-07971"]),
        ("copy_to_image_buffer_too_small", image_cmd(r#"{"cmd": "copy_buffer_to_image", "src_buffer": "A", "dst_image": "rt", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "regions": [{"buffer_offset": 4000, "image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [8, 8, 1]}]}"#), vec!["regions[0].buffer_offset", "VUID-vkCmdCopyBufferToImage-pRegions-00171"]),
        ("copy_to_image_wrong_aspect", image_cmd(r#"{"cmd": "copy_buffer_to_image", "src_buffer": "A", "dst_image": "rt", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "regions": [{"image_subresource": {"aspect_mask": "DEPTH"}, "image_extent": [8, 8, 1]}]}"#), vec!["image_subresource.aspect_mask", "has no DEPTH aspect"]),
        ("copy_to_image_buffer_field", image_cmd(r#"{"cmd": "copy_buffer_to_image", "src_buffer": "A", "dst_image": "rt", "dst_image_layout": "TRANSFER_DST_OPTIMAL", "regions": [{"size": 64, "image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [8, 8, 1]}]}"#), vec!["regions[0].size", "does not belong to a copy_buffer_to_image region"]),
        ("copy_from_image_without_usage", image_cmd(r#"{"cmd": "copy_image_to_buffer", "src_image": "rt", "src_image_layout": "TRANSFER_SRC_OPTIMAL", "dst_buffer": "B", "regions": [{"image_subresource": {"aspect_mask": "COLOR"}, "image_extent": [8, 8, 1]}]}"#), vec!["commands[0].src_image", "without TRANSFER_SRC", "VUID-vkCmdCopyImageToBuffer-srcImage-00186"]),
        ("clear_image_integers_on_floats", image_cmd(r#"{"cmd": "clear_color_image", "image": "rt", "image_layout": "TRANSFER_DST_OPTIMAL", "color": {"uint32": [1, 2, 3, 4]}, "ranges": [{"aspect_mask": "COLOR"}]}"#), vec!["commands[0].color", "does not clear a R8G8B8A8_UNORM image"]),
        ("clear_image_unknown", image_cmd(r#"{"cmd": "clear_color_image", "image": "nope", "image_layout": "TRANSFER_DST_OPTIMAL", "color": {"float32": [1, 2, 3, 4]}, "ranges": [{"aspect_mask": "COLOR"}]}"#), vec!["commands[0].image", "unknown image `nope`"]),
        ("image_barrier_to_undefined", image_cmd(r#"{"cmd": "pipeline_barrier", "image_memory_barriers": [{"old_layout": "UNDEFINED", "new_layout": "UNDEFINED", "image": "rt"}]}"#), vec!["image_memory_barriers[0].new_layout", "VUID-VkImageMemoryBarrier2-newLayout-01198"]),
        ("image_barrier_levels", image_cmd(r#"{"cmd": "pipeline_barrier", "image_memory_barriers": [{"old_layout": "UNDEFINED", "new_layout": "GENERAL", "image": "rt", "subresource_range": {"aspect_mask": "COLOR", "base_mip_level": 0, "level_count": 3}}]}"#), vec!["subresource_range.level_count", "VUID-VkImageSubresourceRange-baseMipLevel-01486"]),
        ("clear_depth_of_a_colour_image", image_cmd(r#"{"cmd": "clear_depth_stencil_image", "image": "rt", "image_layout": "TRANSFER_DST_OPTIMAL", "depth_stencil": {"depth": 1.0}, "ranges": [{"aspect_mask": "COLOR"}]}"#), vec!["commands[0].image", "VUID-vkCmdClearDepthStencilImage-image-00014"]),
        ("image_id_of_a_buffer", trace(FILL, ",\n  \"images\": [{\"id\": \"A\", \"memory\": \"dev\", \"offset\": 8192, \"usage\": \"SAMPLED\", \"format\": \"R32_UINT\", \"extent\": [8, 8, 1]}]"), vec!["images[0].id", "already the id of a buffer"]),
        ("timeline_semaphore", trace(FILL, "").replace("\"semaphores\": [\"s0\"]", "\"semaphores\": [{\"id\": \"t0\", \"type\": \"TIMELINE\"}]"), vec!["semaphores[0].type", "timeline semaphores are not supported yet"]),
        ("shader_does_not_compile", trace(FILL, "").replace("b[id.x] = a[id.x] + 1u;", "b[id.x] = a[id.x] + ;"), vec!["shaders[0].wgsl", "does not compile"]),
        ("shader_file_missing", trace(FILL, "").replace("\"wgsl\": \"@group", "\"wgsl_file\": \"missing.wgsl\", \"x\": \"@group").replace(", \"x\": \"@group(0) @binding(0) var<storage, read> a: array<u32>; @group(0) @binding(1) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { b[id.x] = a[id.x] + 1u; }\"", ""), vec!["shaders[0].wgsl_file", "missing.wgsl"]),
        ("unknown_shader", trace(r#"{"cmd": "dispatch", "shader": "nope", "group_count": [1, 1, 1]}"#, ""), vec!["commands[0].shader", "unknown shader `nope`"]),
        ("group_count_over_limit", trace(r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [4294967295, 4294967295, 1], "bindings": [{"binding": 0, "buffer": "A"}, {"binding": 1, "buffer": "B"}]}"#, ""), vec!["commands[0].group_count", "cap"]),
        ("descriptor_type_mismatch", trace(r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [1, 1, 1], "bindings": [{"binding": 0, "buffer": "A", "descriptor_type": "UNIFORM_BUFFER"}, {"binding": 1, "buffer": "B"}]}"#, ""), vec!["bindings[0].descriptor_type", "does not match"]),
        ("update_too_large", trace(&format!(r#"{{"cmd": "update_buffer", "dst_buffer": "A", "data_hex": "{}"}}"#, "00".repeat(70000)), ""), vec!["commands[0]", "at most 65536"]),
        ("bad_hex", trace(r#"{"cmd": "update_buffer", "dst_buffer": "A", "data_hex": "0g"}"#, ""), vec!["commands[0].data_hex", "not a hex byte"]),
        ("wait_events_dependency_differs", trace(
            r#"{"cmd": "set_event", "event": "e0", "dependency": {"memory_barriers": [{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_STORAGE_READ"}]}},
               {"cmd": "wait_events", "events": ["e0"], "dependencies": [{"memory_barriers": [{"src_stage_mask": "COPY", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_STORAGE_READ"}]}]}"#, ""),
            vec!["commands[1].dependencies[0]", "differs from the one of the set_event"]),
        ("unknown_fence", with_timeline(FILL, r#"{"op": "queue_submit", "command_buffers": ["cb0"], "fence": "f9"}"#), vec!["timeline[0].fence", "unknown fence `f9`"]),
        ("unknown_op", with_timeline(FILL, r#"{"op": "queue_sumbit"}"#), vec!["timeline[0].op", "unknown operation `queue_sumbit`"]),
        ("host_write_device_local", with_timeline(FILL, r#"{"op": "host_write", "memory": "dev", "data_u32": [1]}"#), vec!["timeline[0].memory", "not HOST_VISIBLE"]),
        ("host_read_out_of_range", with_timeline(FILL, r#"{"op": "host_read", "memory": "up", "offset": 4000, "size": 4096}"#), vec!["timeline[0].size", "outside memory `up`"]),
        ("expectation_size", with_timeline(FILL, r#"{"op": "host_read", "memory": "up", "size": 8, "expect_u32": [1]}"#), vec!["timeline[0]", "expectation has 4 bytes"]),
        ("wait_never_signalled", with_timeline(FILL, r#"{"op": "wait_for_fences", "fences": ["f0"]}"#), vec!["timeline[0]", "f0"]),
        ("semaphore_never_signalled", with_timeline(FILL, r#"{"op": "queue_submit", "command_buffers": ["cb0"], "wait_semaphores": [{"semaphore": "s0", "stage_mask": "COMPUTE_SHADER"}]}"#), vec!["timeline[0]", "s0"]),
        ("misaligned_flush", with_timeline(FILL, r#"{"op": "flush_mapped_memory_ranges", "ranges": [{"memory": "up", "offset": 4, "size": 64}]}"#), vec!["timeline[0]", "nonCoherentAtomSize"]),
        ("duplicate_label", with_timeline(FILL, r#"{"op": "host_read", "memory": "up", "size": 4, "label": "x"}, {"op": "host_read", "memory": "up", "size": 4, "label": "x"}"#), vec!["timeline[1].label", "already used"]),
        ("fence_resubmitted", with_timeline(FILL, &format!("{SUBMIT}, {SUBMIT}")), vec!["timeline[2]", "without vkResetFences"]),
    ];
    assert!(cases.len() >= 25);
    let failures: Vec<String> = cases.iter().filter_map(|(n, t, f)| run_bad(n, t, f).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn a_missing_trace_file_is_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", "/nonexistent/trace.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the trace"));
}

/// A shader expression 20,000 operations long (as deep as it is long for the recursive front end
/// and compiler) is simulated, not a stack overflow that aborts the process.
#[test]
fn a_very_long_expression_does_not_overflow_the_stack() {
    let chain = " + 1u".repeat(20_000);
    let shader = format!(
        r#"{{"id": "long", "wgsl": "@group(0) @binding(0) var<storage, read> a: array<u32>; @group(0) @binding(1) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{ b[id.x] = a[id.x]{chain}; }}"}}"#
    );
    let text = with_timeline(
        r#"{"cmd": "dispatch", "shader": "long", "group_count": [1, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}]}"#,
        SUBMIT,
    )
    .replace(SHADER, &shader);
    let out = run_trace("long", &text, &[]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}

/// Three workgroup counts whose product passes 2^64 are refused, not wrapped to zero and run.
#[test]
fn a_workgroup_count_product_past_2_pow_64() {
    let profile = scratch("wide.toml", "base = \"seed-l2\"\nname = \"wide\"\n[limits]\nmax_compute_work_group_count = [4294967295, 4294967295, 4294967295]\n");
    let cmd = r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [2147483648, 2147483648, 4], "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}]}"#;
    let out = run_trace("wrap", &with_timeline(cmd, SUBMIT), &["--profile", profile.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("18446744073709551616 workgroups exceed"), "{err}");
}

/// Devices are refused by what they are, before anything is read: `/dev/zero` as a profile or
/// as a shader file would otherwise be read until memory ran out.
#[cfg(unix)]
#[test]
fn special_files_are_not_read() {
    let out = run_trace("special-profile", &with_timeline(FILL, SUBMIT), &["--profile", "/dev/zero"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/zero: cannot read the profile: not a regular file"), "{err}");
    let shader = r#"{"id": "add_one", "wgsl_file": "/dev/zero"}"#;
    let out = run_trace("special-shader", &with_timeline(FILL, SUBMIT).replace(SHADER, shader), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("shaders[0].wgsl_file: cannot read `/dev/zero`: not a regular file"), "{err}");
}

/// Host reads past their total cap are refused at load, at the read that crosses it: each is
/// held, as both runs saw it, until the two are compared.
#[test]
fn host_reads_past_their_total_cap() {
    let read = r#"{"op": "host_read", "memory": "up", "size": 67108864}"#;
    let text = with_timeline(FILL, &[read; 5].join(", ")).replace("\"size\": 4096, \"properties\": \"HOST_VISIBLE", "\"size\": 67108864, \"properties\": \"HOST_VISIBLE");
    run_bad("host-reads-total", &text, &["timeline[4].size", "host reads total more than the cap of 268435456 bytes"]).unwrap();
    // Four such reads are within the cap: the run is made.
    let four = with_timeline(FILL, &[read; 4].join(", ")).replace("\"size\": 4096, \"properties\": \"HOST_VISIBLE", "\"size\": 67108864, \"properties\": \"HOST_VISIBLE");
    let out = run_trace("host-reads-four", &four, &["--report", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// One payload file named by many host writes is refused when the payloads' total passes its
/// cap, before the file is read again: each payload is held in memory.
#[test]
fn payloads_past_their_total_cap() {
    let data = scratch("payload.bin", "");
    std::fs::File::options().write(true).open(&data).unwrap().set_len(64 << 20).unwrap();
    let write = r#"{"op": "host_write", "memory": "up", "data_file": "payload.bin"}"#;
    let text = with_timeline(FILL, &[write; 17].join(", ")).replace("\"size\": 4096, \"properties\": \"HOST_VISIBLE", "\"size\": 67108864, \"properties\": \"HOST_VISIBLE");
    run_bad("payloads-total", &text, &["timeline[16]", "payloads total more than the cap of 1073741824 bytes"]).unwrap();
}

/// A simulated run that reads a loop bound stale and runs on past its budget is a finding (exit
/// 1, the stale reads and where the run was stopped in the report), not an error: the hang is
/// what the missing barrier does.
#[test]
fn a_runaway_caused_by_stale_reads_is_a_finding() {
    // Each invocation loops `100 - a[i]` times; A is filled with 100 with no barrier before the
    // dispatch, so a stale read of A's zeroes loops 100 times where the reference run does not.
    let looped = r#"{"id": "loop", "wgsl": "@group(0) @binding(0) var<storage, read> a: array<u32>; @group(0) @binding(1) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { let n = 100u - a[id.x]; var i = 0u; loop { if (i >= n) { break; } i = i + 1u; } b[id.x] = i; }"}"#;
    let cmds = r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 0, "size": 4096, "data": 100},
    {"cmd": "dispatch", "shader": "loop", "group_count": [16, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}]}"#;
    let text = with_timeline(cmds, SUBMIT).replace(SHADER, looped);
    let json = |out: &std::process::Output| -> serde_json::Value { serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr))) };
    let out = run_trace("stale-loop", &text, &["--schedules", "32", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let full = json(&out);
    let budget = full["reference_instructions"].as_u64().unwrap();
    assert!(full["instructions"].as_u64().unwrap() > budget && full.get("stopped").is_none(), "{full}");
    // With the reference run's count as the budget, the stale seeds run past it.
    let out = run_trace("stale-loop-budget", &text, &["--schedules", "32", "--report", "json", "--max-instructions", &budget.to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let stopped = json(&out);
    let reason = stopped["stopped"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("executed more than its budget") && reason.contains("stale read") && reason.contains("--max-instructions"), "{stopped}");
    assert!(stopped["corruption"]["stale_reads"].as_u64().unwrap() > 0 && stopped["corruption"]["corrupted_bytes"] == 0, "{stopped}");
    // Where: the dispatch, named as findings name commands, and when.
    let (at, cycle) = (&stopped["stopped"]["at"], stopped["stopped"]["cycle"].as_u64());
    assert!(at["submit"] == 0 && at["command_buffer"] == "cb0" && at["command"] == 1 && stopped["stopped"]["command"] == "vkCmdDispatch", "{stopped}");
    assert!(cycle.is_some() && cycle == stopped["cycles"].as_u64(), "{stopped}");
    // Its timeline shows the dispatch that ran on, up to the stop, and marks the stop.
    let timeline = scratch("stale-loop-timeline.json", "");
    let out = run_trace("stale-loop-timeline", &text, &["--schedules", "32", "--max-instructions", &budget.to_string(), "--timeline", timeline.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&timeline).unwrap()).unwrap();
    let cycles = trace["otherData"]["cycles"].as_u64().unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let marks: Vec<_> = events.iter().filter(|e| e["name"] == "stopped" && e["ph"] == "i").collect();
    assert!(marks.len() == 1 && marks[0]["args"]["cycle"] == cycles && marks[0]["args"]["reason"] == trace["otherData"]["stopped"]["reason"], "{marks:?}");
    let dispatch_end = events.iter().filter(|e| e["cat"] == "command" && e["name"] == "vkCmdDispatch").filter_map(|e| e["args"]["end_cycle"].as_u64()).max();
    assert_eq!(dispatch_end, Some(cycles), "the runaway dispatch's slice ends at the stop");
    assert!(events.iter().any(|e| e["cat"] == "workgroup" && e["ts"].as_f64() < marks[0]["ts"].as_f64()), "workgroups under way are drawn");
    // The text report says it too.
    let out = run_trace("stale-loop-text", &text, &["--schedules", "32", "--max-instructions", &budget.to_string()]);
    let text_report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.code() == Some(1) && text_report.contains("then the run did not end") && text_report.contains("final memory is not compared"), "{text_report}");
}

/// A shader that never ends is stopped at the run's instruction budget, with a message naming
/// the budget and the flag that raises it; a transfer that outlasts the cycle budget likewise.
#[test]
fn runaway_runs_are_stopped_at_their_budgets() {
    let spin = r#"{"id": "spin", "wgsl": "@group(0) @binding(0) var<storage, read_write> b: array<u32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { var i = 0u; loop { i = i + 1u; if (i == 0u) { break; } } b[id.x] = i; }"}"#;
    let dispatch = r#"{"cmd": "dispatch", "shader": "spin", "group_count": [4, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "B"}]}"#;
    let text = with_timeline(dispatch, SUBMIT).replace(SHADER, spin);
    let out = run_trace("spin", &text, &["--max-instructions", "100000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the reference run executed more than its budget of 100000 shader instructions") && err.contains("--max-instructions") && err.trim().lines().count() == 1, "{err}");
    // `gpusim graph` reads the lowered stream without running anything: no shader runs away.
    let path = scratch("spin-graph.json", &text);
    let dot = scratch("spin.dot", "");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["graph", path.to_str().unwrap(), "-o", dot.to_str().unwrap(), "--max-instructions", "100000"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && std::fs::read_to_string(&dot).unwrap().contains("vkCmdDispatch"), "{err}");
    let out = run_trace("slow-fill", &with_timeline(FILL, SUBMIT), &["--max-cycles", "10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("budget of 10 cycles") && err.contains("--max-cycles"), "{err}");
    let out = run_trace("big-fill", &with_timeline(FILL, SUBMIT), &["--max-transfer-bytes", "63"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("commands[0]") && err.contains("budget of 63 bytes") && err.contains("--max-transfer-bytes"), "{err}");
    for (flag, value) in [("--max-cycles", "0"), ("--max-cycles", "1099511627777"), ("--max-instructions", "0"), ("--max-transfer-bytes", "0")] {
        let out = run_trace("bad-budget", &with_timeline(FILL, SUBMIT), &[flag, value]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(2) && err.contains(flag), "{flag} {value}: {err}");
    }
}

/// GLSL whose macros expand to 10^11 tokens: one located line and exit status 2, not an abort
/// from naga's preprocessor trying to hold them.
#[test]
fn a_glsl_macro_bomb_is_refused() {
    let mut glsl = String::from("#version 450\\nlayout(local_size_x = 64) in;\\nlayout(set = 0, binding = 1) buffer B { uint b[]; };\\n#define M0 1u+\\n");
    for i in 1..=11 {
        glsl += &format!("#define M{i} {}\\n", vec![format!("M{}", i - 1); 10].join(" "));
    }
    glsl += "void main() { b[gl_GlobalInvocationID.x] = M11 1u; }\\n";
    let shader = format!(r#"{{"id": "add_one", "glsl": "{glsl}"}}"#);
    let text = with_timeline(
        r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [1, 1, 1], "bindings": [{"set": 0, "binding": 1, "buffer": "B"}]}"#,
        SUBMIT,
    )
    .replace(SHADER, &shader);
    run_bad("glsl_bomb", &text, &["shaders[0].glsl", "add_one:16: preprocessing makes more than 1048576 tokens"]).unwrap();
}

/// A vkCmdWaitEvents on an event nothing sets is refused at its submission, before anything
/// runs (a host wait on it could never end).
#[test]
fn a_host_wait_that_never_ends_names_the_device_wait_behind_it() {
    let wait = r#"{"cmd": "wait_events", "events": ["e0"], "src_stage_mask": "ALL_COMMANDS", "dst_stage_mask": "ALL_COMMANDS"}"#;
    run_bad(
        "event-never-set",
        &with_timeline(wait, SUBMIT),
        &["timeline[0]: a command buffer of this submission waits on event `e0`", "it would wait forever"],
    )
    .unwrap();
}

/// Vulkan's valid-usage rules the loader enforces for transfers and push constants: a fill of
/// zero bytes, push constants that are not whole words, and copies whose source and destination
/// regions overlap in memory (within one buffer, or through two buffers on the same bytes).
#[test]
fn transfers_and_push_constants_vulkan_forbids() {
    let fill0 = r#"{"cmd": "fill_buffer", "dst_buffer": "A", "dst_offset": 0, "size": 0, "data": 1}"#;
    run_bad("fill-zero", &with_timeline(fill0, SUBMIT), &["commands[0].size", "size must not be zero"]).unwrap();
    let push3 = r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [1, 1, 1], "push_constants_hex": "010203", "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}]}"#;
    run_bad("push-3", &with_timeline(push3, SUBMIT), &["commands[0]", "3 bytes of push constants: vkCmdPushConstants takes a multiple of 4"]).unwrap();
    let within = r#"{"cmd": "copy_buffer", "src_buffer": "A", "dst_buffer": "A", "regions": [{"src_offset": 0, "dst_offset": 64, "size": 128}]}"#;
    run_bad("copy-overlap", &with_timeline(within, SUBMIT), &["commands[0].regions[0]", "source region 0 and destination region 0 overlap in memory"]).unwrap();
    // Region 1's destination, in B, lands on region 0's source bytes of B.
    let across = r#"{"cmd": "copy_buffer", "src_buffer": "B", "dst_buffer": "B", "regions": [{"src_offset": 0, "dst_offset": 1024, "size": 64}, {"src_offset": 256, "dst_offset": 32, "size": 64}]}"#;
    run_bad("copy-overlap-regions", &with_timeline(across, SUBMIT), &["commands[0].regions[", "source region 0 and destination region 1 overlap in memory"]).unwrap();
    // Disjoint regions of one buffer, and ranges that only touch, are valid and run.
    let disjoint = r#"{"cmd": "copy_buffer", "src_buffer": "A", "dst_buffer": "A", "regions": [{"src_offset": 0, "dst_offset": 64, "size": 64}, {"src_offset": 512, "dst_offset": 1024, "size": 128}]}"#;
    let out = run_trace("copy-disjoint", &with_timeline(disjoint, SUBMIT), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A command buffer listed twice in one submission without SIMULTANEOUS_USE is told as that,
/// not as a pending earlier submission of itself.
#[test]
fn a_command_buffer_twice_in_one_submission() {
    let twice = r#"{"op": "queue_submit", "queue": "q0", "command_buffers": ["cb0", "cb0"], "fence": "f0"}, {"op": "wait_for_fences", "fences": ["f0"]}"#;
    run_bad("cb-twice", &with_timeline(FILL, twice), &["timeline[0]", "command buffer `cb0` is listed more than once in this submission; record it with SIMULTANEOUS_USE"]).unwrap();
}

/// A queue's declared flags say what may be submitted to it: vkCmdDispatch needs COMPUTE, and
/// transfers run on any of GRAPHICS, COMPUTE and TRANSFER; an unknown flag is an error.
#[test]
fn commands_a_queue_family_cannot_run() {
    let dispatch = r#"{"cmd": "dispatch", "shader": "add_one", "group_count": [1, 1, 1], "bindings": [{"set": 0, "binding": 0, "buffer": "A"}, {"set": 0, "binding": 1, "buffer": "B"}]}"#;
    let on = |flags: &str, cmds: &str| trace(cmds, &format!(",\n  \"queues\": [{{\"id\": \"q0\", \"family\": 1, \"flags\": {flags}}}],\n  \"timeline\": [{SUBMIT}]"));
    run_bad("dispatch-on-transfer", &on("\"TRANSFER\"", dispatch), &["timeline[0]", "submitted to queue `q0`, whose flags lack COMPUTE, which its commands[0] (vkCmdDispatch) needs"]).unwrap();
    run_bad("fill-on-none", &on("\"NONE\"", FILL), &["timeline[0]", "whose flags lack GRAPHICS, COMPUTE or TRANSFER"]).unwrap();
    run_bad("unknown-flag", &on("\"COMPUTE|TRANSFERS\"", FILL), &["queues[0].flags", "unknown queue flag `TRANSFERS`"]).unwrap();
    // A transfer queue runs transfers; a compute queue (here in the list form with full names)
    // runs dispatches and transfers.
    for (flags, cmds) in [("\"TRANSFER\"", FILL), ("[\"VK_QUEUE_COMPUTE_BIT\"]", dispatch), ("[\"VK_QUEUE_COMPUTE_BIT\"]", FILL)] {
        let out = run_trace("queue-ok", &on(flags, cmds), &[]);
        assert_eq!(out.status.code(), Some(0), "{flags}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Names the report prints may not hold control characters: a terminal escape in a trace's
/// name, or a newline in a label or an id, would reach the reader's terminal or break the report's
/// lines.
#[test]
fn names_with_control_characters() {
    let escape = with_timeline(FILL, SUBMIT).replace(r#""name": "bad""#, r#""name": "\u001b[31mred""#);
    run_bad("name-escape", &escape, &["name: the trace's name must not hold control characters ('\\u{1b}' found)"]).unwrap();
    let read = r#"{"op": "host_read", "memory": "up", "offset": 0, "size": 4, "label": "two\nlines"}"#;
    run_bad("label-newline", &with_timeline(FILL, &format!("{SUBMIT}, {read}")), &["timeline[2].label: a host_read label must not hold control characters ('\\n' found)"]).unwrap();
    let id = with_timeline(FILL, SUBMIT).replace(r#""fences": ["f0"]"#, r#""fences": ["f0", "f\t1"]"#);
    run_bad("id-tab", &id, &["fences[1]: a fence id must not hold control characters ('\\t' found)"]).unwrap();
}

/// An error quoting the input is cut to a readable length: an unknown field name of 100,000
/// characters once made a 100 KB error line.
#[test]
fn long_errors_are_cut() {
    let field = "x".repeat(100_000);
    let text = with_timeline(FILL, SUBMIT).replace(r#""name": "bad""#, &format!(r#""name": "bad", "{field}": 1"#));
    let out = run_trace("long-field", &text, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    let head: String = err.chars().take(300).collect();
    assert_eq!(out.status.code(), Some(2), "{head}");
    assert!(err.starts_with("gpusim: error: ") && err.contains("unknown field"), "{head}");
    let tail: String = err.chars().rev().take(100).collect::<Vec<_>>().into_iter().rev().collect();
    assert!(err.len() < 4200 && err.trim_end().ends_with("more bytes)"), "{} bytes, ending: {tail}", err.len());
}

/// An access in a barrier's access mask that no stage of its stage mask performs (the table of
/// supported access types): refused at the access mask, naming the command and the VUID of the
/// barrier's shape, in memory and buffer barriers, in pipeline barriers and events.
#[test]
fn accesses_no_stage_of_the_barrier_performs() {
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "shader-write-at-top",
            with_timeline(r#"{"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "TOP_OF_PIPE", "src_access_mask": "SHADER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_READ"}]}"#, SUBMIT),
            vec![
                ":9:",
                "command_buffers[0].commands[0].memory_barriers[0].src_access_mask: vkCmdPipelineBarrier2: VUID-VkMemoryBarrier2-srcAccessMask-03909: src_access_mask has SHADER_WRITE, which no stage in src_stage_mask (TOP_OF_PIPE) performs; SHADER_WRITE is performed only by a shader stage",
            ],
        ),
        (
            "color-write-at-compute",
            with_timeline(r#"{"cmd": "pipeline_barrier", "buffer_memory_barriers": [{"buffer": "A", "src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_READ|COLOR_ATTACHMENT_WRITE"}]}"#, SUBMIT),
            vec!["commands[0].buffer_memory_barriers[0].dst_access_mask", "VUID-VkBufferMemoryBarrier2-dstAccessMask-03911: dst_access_mask has COLOR_ATTACHMENT_WRITE, which no stage in dst_stage_mask (COMPUTE_SHADER) performs; COLOR_ATTACHMENT_WRITE is performed only by COLOR_ATTACHMENT_OUTPUT, ALL_GRAPHICS or ALL_COMMANDS"],
        ),
        (
            "transfer-write-at-compute-set-event",
            with_timeline(
                r#"{"cmd": "set_event", "event": "e0", "dependency": {"memory_barriers": [{"src_stage_mask": "COMPUTE_SHADER", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_STORAGE_READ"}]}}"#,
                SUBMIT,
            ),
            vec!["commands[0].dependency.memory_barriers[0].src_access_mask", "vkCmdSetEvent2: VUID-VkMemoryBarrier2-srcAccessMask-03915: src_access_mask has TRANSFER_WRITE"],
        ),
        (
            "host-read-at-all-commands-wait",
            with_timeline(
                r#"{"cmd": "set_event", "event": "e0", "dependency": {"memory_barriers": [{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "ALL_COMMANDS", "dst_access_mask": "HOST_READ"}]}},
                   {"cmd": "wait_events", "events": ["e0"], "dependencies": [{"memory_barriers": [{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "ALL_COMMANDS", "dst_access_mask": "HOST_READ"}]}]}"#,
                SUBMIT,
            ),
            vec!["commands[0].dependency.memory_barriers[0].dst_access_mask", "vkCmdSetEvent2: VUID-VkMemoryBarrier2-dstAccessMask-03916", "HOST_READ is performed only by HOST (ALL_COMMANDS does not include it)"],
        ),
        (
            "wait-events-dependency",
            with_timeline(
                r#"{"cmd": "set_event", "event": "e0", "dependency": {"memory_barriers": [{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE"}]}},
                   {"cmd": "wait_events", "events": ["e0"], "dependencies": [{"buffer_memory_barriers": [{"buffer": "A", "src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE", "dst_stage_mask": "COPY", "dst_access_mask": "UNIFORM_READ"}]}]}"#,
                SUBMIT,
            ),
            vec!["commands[1].dependencies[0].buffer_memory_barriers[0].dst_access_mask", "vkCmdWaitEvents2: VUID-VkBufferMemoryBarrier2-dstAccessMask-03904"],
        ),
        (
            "sync1-pipeline-barrier",
            with_timeline(r#"{"cmd": "pipeline_barrier", "src_stage_mask": "COMPUTE_SHADER", "dst_stage_mask": "TRANSFER", "memory_barriers": [{"src_access_mask": "TRANSFER_WRITE", "dst_access_mask": "TRANSFER_READ"}]}"#, SUBMIT),
            vec![
                "commands[0].memory_barriers[0].src_access_mask",
                "vkCmdPipelineBarrier: VUID-vkCmdPipelineBarrier-srcAccessMask-02815: src_access_mask has TRANSFER_WRITE, which no stage in the command's src_stage_mask (COMPUTE_SHADER) performs",
            ],
        ),
        (
            "sync1-wait-events-buffer",
            with_timeline(
                r#"{"cmd": "set_event", "event": "e0", "stage_mask": "COMPUTE_SHADER"},
                   {"cmd": "wait_events", "events": ["e0"], "src_stage_mask": "COMPUTE_SHADER", "dst_stage_mask": "TRANSFER", "buffer_memory_barriers": [{"buffer": "A", "src_access_mask": "SHADER_WRITE", "dst_access_mask": "HOST_READ"}]}"#,
                SUBMIT,
            ),
            vec!["commands[1].buffer_memory_barriers[0].dst_access_mask", "vkCmdWaitEvents: VUID-vkCmdWaitEvents-pBufferMemoryBarriers-02818: dst_access_mask has HOST_READ"],
        ),
        // The synchronization1 shape has 32-bit masks: synchronization2-only bits have no place in it.
        (
            "sync1-storage-write-bit",
            with_timeline(r#"{"cmd": "pipeline_barrier", "src_stage_mask": "COMPUTE_SHADER", "dst_stage_mask": "TRANSFER", "memory_barriers": [{"src_access_mask": "SHADER_STORAGE_WRITE", "dst_access_mask": "TRANSFER_READ"}]}"#, SUBMIT),
            vec!["commands[0].memory_barriers[0].src_access_mask", "vkCmdPipelineBarrier takes VkAccessFlags (32 bits): SHADER_STORAGE_WRITE exists only in synchronization2"],
        ),
        (
            "sync1-copy-stage",
            with_timeline(r#"{"cmd": "pipeline_barrier", "src_stage_mask": "COPY", "dst_stage_mask": "COMPUTE_SHADER"}"#, SUBMIT),
            vec!["commands[0].src_stage_mask", "vkCmdPipelineBarrier takes VkPipelineStageFlags (32 bits): COPY exists only in synchronization2"],
        ),
        (
            "sync1-set-event-clear-stage",
            with_timeline(r#"{"cmd": "set_event", "event": "e0", "stage_mask": "CLEAR"}"#, SUBMIT),
            vec!["commands[0].stage_mask", "vkCmdSetEvent takes VkPipelineStageFlags (32 bits): CLEAR exists only in synchronization2"],
        ),
    ];
    let failures: Vec<String> = cases.iter().filter_map(|(n, t, f)| run_bad(n, t, f).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    // The umbrellas and meta stages that make these valid run.
    for cmd in [
        r#"{"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "TOP_OF_PIPE", "src_access_mask": "MEMORY_WRITE", "dst_stage_mask": "ALL_COMMANDS", "dst_access_mask": "SHADER_READ|TRANSFER_READ|MEMORY_READ"}]}"#,
        r#"{"cmd": "pipeline_barrier", "src_stage_mask": "TRANSFER", "dst_stage_mask": "ALL_GRAPHICS|COMPUTE_SHADER", "memory_barriers": [{"src_access_mask": "TRANSFER_WRITE", "dst_access_mask": "SHADER_READ|UNIFORM_READ|COLOR_ATTACHMENT_READ"}]}"#,
    ] {
        let out = run_trace("valid-accesses", &with_timeline(cmd, SUBMIT), &[]);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// An event set on one queue and waited on another: refused at the wait's submission, naming the
/// event, both queues and both submissions, whichever is submitted first. A wait on the same
/// queue, or after a host vkSetEvent, runs.
#[test]
fn events_waited_on_another_queue() {
    let events_trace = |timeline: &str| {
        format!(
            r#"{{"gpusim_trace": 1, "name": "events",
  "queues": ["q0", "q1"],
  "memory": [{{"id": "dev", "size": 8192, "properties": "DEVICE_LOCAL"}}],
  "buffers": [{{"id": "A", "memory": "dev", "size": 4096}}],
  "events": ["e0"], "fences": ["f0", "f1"],
  "command_buffers": [
    {{"id": "setter", "commands": [{FILL}, {{"cmd": "set_event", "event": "e0", "stage_mask": "TRANSFER"}}]}},
    {{"id": "waiter", "commands": [{{"cmd": "wait_events", "events": ["e0"], "src_stage_mask": "TRANSFER", "dst_stage_mask": "TRANSFER",
      "memory_barriers": [{{"src_access_mask": "TRANSFER_WRITE", "dst_access_mask": "TRANSFER_WRITE"}}]}}, {FILL}]}}
  ],
  "timeline": [{timeline}]
}}"#
        )
    };
    let submit = |cb: &str, q: &str, f: &str| format!(r#"{{"op": "queue_submit", "queue": "{q}", "command_buffers": ["{cb}"], "fence": "{f}"}}"#);
    let wait = r#"{"op": "wait_for_fences", "fences": ["f0", "f1"]}"#;
    let set_first = format!("{}, {}, {wait}", submit("setter", "q0", "f0"), submit("waiter", "q1", "f1"));
    run_bad(
        "event-other-queue",
        &events_trace(&set_first),
        &[
            "timeline[1]: vkCmdWaitEvents2 in waiter[0], submitted to queue `q1`, waits on event `e0`, which vkCmdSetEvent2 in setter[1] sets on queue `q0` (submitted at timeline[0])",
            "must not be used to wait on event signal operations occurring on other queues",
        ],
    )
    .unwrap();
    // The wait submitted first, the set later on the other queue.
    let wait_first = format!("{}, {}, {wait}", submit("waiter", "q1", "f1"), submit("setter", "q0", "f0"));
    run_bad("event-other-queue-later", &events_trace(&wait_first), &["timeline[0]: vkCmdWaitEvents2 in waiter[0], submitted to queue `q1`", "sets on queue `q0` (submitted later at timeline[1])"]).unwrap();
    // Both on q0, or the wait on q1 (with HOST in its srcStageMask) after the host set the
    // event: valid.
    let same = format!("{}, {}, {wait}", submit("setter", "q0", "f0"), submit("waiter", "q0", "f1"));
    let host = format!(r#"{{"op": "set_event", "event": "e0"}}, {}, {{"op": "wait_for_fences", "fences": ["f1"]}}"#, submit("waiter", "q1", "f1"));
    for (name, trace) in [("event-same-queue", events_trace(&same)), ("event-host-set", events_trace(&host).replace(r#""src_stage_mask": "TRANSFER", "dst_stage_mask": "TRANSFER",
      "memory_barriers": [{"src_access_mask": "TRANSFER_WRITE""#, r#""src_stage_mask": "HOST", "dst_stage_mask": "TRANSFER",
      "memory_barriers": [{"src_access_mask": "HOST_WRITE""#))] {
        let out = run_trace(name, &trace, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The host's set of an event q0 set already has no effect: the wait on q1 still waits on
    // q0's signal.
    let late_host = format!(
        r#"{}, {{"op": "wait_for_fences", "fences": ["f0"]}}, {{"op": "set_event", "event": "e0"}}, {}, {{"op": "wait_for_fences", "fences": ["f1"]}}"#,
        submit("setter", "q0", "f0"),
        submit("waiter", "q1", "f1")
    );
    run_bad("event-host-set-after-device-set", &events_trace(&late_host), &["timeline[3]: vkCmdWaitEvents2 in waiter[0], submitted to queue `q1`, waits on event `e0`"]).unwrap();
}
