//! Image and sampler descriptors of compute dispatches, and the samplers they name, as
//! docs/TRACE_FORMAT.md ("Images, samplers and image commands", "Descriptors") specifies them.
//!
//! Each refusal test takes the working example `examples/images/storage-then-sample-correct.json`,
//! changes one thing, runs `gpusim run` on it and checks the one-line message
//! `gpusim: error: FILE:LINE:COL: JSON.PATH: message`: exit status 2, the JSON path of the field at
//! fault, and the Vulkan rule (VUID) or limit the message cites. The last test checks that the
//! image examples with descriptors come back the same through gpusim's own trace writer.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// The image example every refusal test changes one thing of.
const EXAMPLE: &str = "storage-then-sample-correct";

// The example's command buffer, by index: a transition to GENERAL, a clear, a barrier, then
const SAMPLE: usize = 3; // a dispatch sampling `picture` (0: texture_2d<f32>, 1: sampler, 2: buffer),
const GENERATE: usize = 5; // a dispatch storing to it (0: texture_storage_2d<rgba8unorm, write>),
const TRANSITION: usize = 6; // GENERAL to SHADER_READ_ONLY_OPTIMAL,
const SAMPLE_AGAIN: usize = 7; // and a dispatch sampling it in SHADER_READ_ONLY_OPTIMAL.

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The image example `NAME.json`, parsed.
fn example(name: &str) -> Value {
    let text = std::fs::read_to_string(root().join("examples/images").join(format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `text` written as `NAME.json` in this test process's own scratch directory.
fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-image-descriptors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `gpusim run TRACE`.
fn gpusim_run(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).arg("run").arg(path).output().expect("gpusim runs")
}

/// The example's `commands[cmd].bindings[binding]`.
fn binding(t: &mut Value, cmd: usize, binding: usize) -> &mut serde_json::Map<String, Value> {
    t["command_buffers"][0]["commands"][cmd]["bindings"][binding].as_object_mut().unwrap()
}

/// The example's image `picture`.
fn picture(t: &mut Value) -> &mut serde_json::Map<String, Value> {
    t["images"][0].as_object_mut().unwrap()
}

/// The example's sampler `linear`.
fn sampler(t: &mut Value) -> &mut serde_json::Map<String, Value> {
    t["samplers"][0].as_object_mut().unwrap()
}

/// Runs the example changed by `change` (written as `NAME.json`) and checks that it is refused
/// with one located message at exactly `json_path` that contains every one of `fragments`.
/// Returns the message after the path.
fn refused(name: &str, change: impl FnOnce(&mut Value), json_path: &str, fragments: &[&str]) -> String {
    let mut t = example(EXAMPLE);
    change(&mut t);
    let path = scratch(name, &serde_json::to_string_pretty(&t).unwrap());
    let out = gpusim_run(&path);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{name}: exit status; stderr: {err}");
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line on stderr: {err}");
    // gpusim: error: FILE:LINE:COL: JSON.PATH: message
    let located = err.trim_end().strip_prefix(&format!("gpusim: error: {}:", path.display())).unwrap_or_else(|| panic!("{name}: not `gpusim: error: FILE:`: {err}"));
    let mut parts = located.splitn(3, ": ");
    let (line_col, at, message) = (parts.next().unwrap(), parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    assert!(line_col.split(':').count() == 2 && line_col.split(':').all(|n| n.parse::<u32>().is_ok_and(|n| n > 0)), "{name}: no LINE:COL: {err}");
    assert_eq!(at, json_path, "{name}: the JSON path; stderr: {err}");
    for f in fragments {
        assert!(message.contains(f), "{name}: the message lacks `{f}`: {err}");
    }
    message.to_string()
}

/// A sampled image takes a read-only layout (or GENERAL), not TRANSFER_DST_OPTIMAL.
#[test]
fn sampled_image_in_a_transfer_layout() {
    refused(
        "sampled-transfer-dst",
        |t| {
            binding(t, SAMPLE, 0).insert("layout".into(), json!("TRANSFER_DST_OPTIMAL"));
        },
        "command_buffers[0].commands[3].bindings[0].layout",
        &["`TRANSFER_DST_OPTIMAL` is not a layout a SAMPLED_IMAGE descriptor takes", "SHADER_READ_ONLY_OPTIMAL", "VUID-VkWriteDescriptorSet-descriptorType-04149"],
    );
}

/// A storage image takes GENERAL only, not SHADER_READ_ONLY_OPTIMAL.
#[test]
fn storage_image_in_shader_read_only_layout() {
    refused(
        "storage-read-only",
        |t| {
            binding(t, GENERATE, 0).insert("layout".into(), json!("SHADER_READ_ONLY_OPTIMAL"));
        },
        "command_buffers[0].commands[5].bindings[0].layout",
        &["`SHADER_READ_ONLY_OPTIMAL` is not a layout a STORAGE_IMAGE descriptor takes (GENERAL", "VUID-VkWriteDescriptorSet-descriptorType-04152"],
    );
}

/// An image created without SAMPLED cannot be bound as a sampled image.
#[test]
fn sampled_binding_of_an_image_without_sampled_usage() {
    refused(
        "no-sampled-usage",
        |t| {
            picture(t).insert("usage".into(), json!("TRANSFER_DST|STORAGE"));
        },
        "command_buffers[0].commands[3].bindings[0].image",
        &["image `picture` was created without SAMPLED", "VUID-VkWriteDescriptorSet-descriptorType-00337"],
    );
}

/// An image created without STORAGE cannot be bound as a storage image.
#[test]
fn storage_binding_of_an_image_without_storage_usage() {
    refused(
        "no-storage-usage",
        |t| {
            picture(t).insert("usage".into(), json!("TRANSFER_DST|SAMPLED"));
        },
        "command_buffers[0].commands[5].bindings[0].image",
        &["image `picture` was created without STORAGE", "VUID-VkWriteDescriptorSet-descriptorType-00339"],
    );
}

/// Without the transition, the image is still GENERAL when the second sampling runs with a
/// descriptor that says SHADER_READ_ONLY_OPTIMAL: refused at that dispatch, naming the image.
#[test]
fn descriptor_layout_not_the_images_when_the_dispatch_runs() {
    refused(
        "no-transition",
        |t| {
            // The same memory dependency, without the layout transition.
            t["command_buffers"][0]["commands"][TRANSITION] = json!({"cmd": "pipeline_barrier", "memory_barriers": [
                {"src_stage_mask": "COMPUTE_SHADER", "src_access_mask": "SHADER_STORAGE_WRITE", "dst_stage_mask": "COMPUTE_SHADER", "dst_access_mask": "SHADER_SAMPLED_READ"}]});
        },
        "command_buffers[0].commands[7]",
        &["VUID-vkCmdDispatch-None-09600", "image `picture`", "is in GENERAL", "not in SHADER_READ_ONLY_OPTIMAL"],
    );
}

/// Every subresource the view covers must be in the descriptor's layout: a transition of
/// level 0 alone leaves level 1 of a two-level image in GENERAL.
#[test]
fn a_view_partly_transitioned_names_the_subresource_left_behind() {
    refused(
        "partial-transition",
        |t| {
            picture(t).insert("mip_levels".into(), json!(2));
            binding(t, GENERATE, 0).insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "level_count": 1}));
            t["command_buffers"][0]["commands"][TRANSITION]["image_memory_barriers"][0]["subresource_range"] = json!({"aspect_mask": "COLOR", "level_count": 1});
        },
        "command_buffers[0].commands[7]",
        &["VUID-vkCmdDispatch-None-09600", "image `picture` (COLOR level 1 layer 0) is in GENERAL", "not in SHADER_READ_ONLY_OPTIMAL"],
    );
}

/// The shader stores rgba8unorm texels: an R32_SFLOAT image is not its storage format.
#[test]
fn storage_image_of_another_format_than_the_shaders() {
    refused(
        "storage-format",
        |t| {
            picture(t).insert("format".into(), json!("R32_SFLOAT"));
        },
        "command_buffers[0].commands[5].bindings[0]",
        &["R8G8B8A8_UNORM storage image", "image `picture` is R32_SFLOAT", "VUID-vkCmdDispatch-format-07753"],
    );
}

/// A 2D_ARRAY view where the shader declares a texture_2d.
#[test]
fn array_view_for_a_non_array_texture() {
    refused(
        "view-2d-array",
        |t| {
            binding(t, SAMPLE, 0).insert("view_type".into(), json!("2D_ARRAY"));
        },
        "command_buffers[0].commands[3].bindings[0]",
        &["declares (set 0, binding 0) as a 2D image, and the view is 2D_ARRAY", "VUID-vkCmdDispatch-viewType-07752"],
    );
}

/// A 2D view (not an array) of an image of two layers views more than one layer.
#[test]
fn non_array_view_of_several_layers() {
    refused(
        "view-2d-two-layers",
        |t| {
            picture(t).insert("array_layers".into(), json!(2));
            binding(t, SAMPLE, 0).insert("view_type".into(), json!("2D"));
        },
        "command_buffers[0].commands[3].bindings[0]",
        &["a 2D view views one layer, and this one views 2 of image `picture`", "VUID-VkImageViewCreateInfo-imageViewType-04973", "name one layer in `subresource_range`"],
    );
}

/// A sampler binding names a sampler of `samplers`.
#[test]
fn unknown_sampler_id() {
    refused(
        "unknown-sampler",
        |t| {
            binding(t, SAMPLE, 1).insert("sampler".into(), json!("bilinear"));
        },
        "command_buffers[0].commands[3].bindings[1].sampler",
        &["unknown sampler `bilinear`"],
    );
}

/// A SAMPLER binding takes no image; without a descriptor type, an image beside the sampler
/// makes it a combined image sampler, which needs its layout.
#[test]
fn sampler_binding_with_an_image() {
    refused(
        "sampler-with-image",
        |t| {
            let b = binding(t, SAMPLE, 1);
            b.insert("descriptor_type".into(), json!("SAMPLER"));
            b.insert("image".into(), json!("picture"));
        },
        "command_buffers[0].commands[3].bindings[1].image",
        &["a SAMPLER binding takes no `image`"],
    );
    refused(
        "sampler-with-image-untyped",
        |t| {
            binding(t, SAMPLE, 1).insert("image".into(), json!("picture"));
        },
        "command_buffers[0].commands[3].bindings[1]",
        &["a COMBINED_IMAGE_SAMPLER binding needs `layout`"],
    );
}

/// A SAMPLER descriptor where the shader declares a texture_2d.
#[test]
fn sampler_descriptor_type_on_a_texture_binding() {
    refused(
        "sampler-type-on-texture",
        |t| {
            binding(t, SAMPLE, 0).insert("descriptor_type".into(), json!("SAMPLER"));
        },
        "command_buffers[0].commands[3].bindings[0].descriptor_type",
        &["descriptor type SAMPLER does not match the shader's declaration of (set 0, binding 0)"],
    );
}

/// A buffer bound where the shader declares a texture.
#[test]
fn buffer_bound_where_the_shader_declares_an_image() {
    refused(
        "buffer-on-texture",
        |t| {
            t["command_buffers"][0]["commands"][SAMPLE]["bindings"][0] = json!({"set": 0, "binding": 0, "buffer": "first"});
        },
        "command_buffers[0].commands[3].bindings[0].buffer",
        &["the shader declares (set 0, binding 0) as a sampled 2D image, and this binding names a buffer"],
    );
}

/// An image bound where the shader declares a storage buffer, with and without a descriptor type.
#[test]
fn image_bound_where_the_shader_declares_a_buffer() {
    let image_for_buffer = |t: &mut Value| {
        let b = binding(t, SAMPLE, 2);
        b.remove("buffer");
        b.insert("image".into(), json!("picture"));
        b.insert("layout".into(), json!("GENERAL"));
    };
    refused("image-on-buffer", image_for_buffer, "command_buffers[0].commands[3].bindings[2]", &["the shader declares (set 0, binding 2) as a storage buffer, and this binding names an image"]);
    refused(
        "sampled-image-on-buffer",
        |t| {
            image_for_buffer(t);
            binding(t, SAMPLE, 2).insert("descriptor_type".into(), json!("SAMPLED_IMAGE"));
        },
        "command_buffers[0].commands[3].bindings[2].descriptor_type",
        &["descriptor type SAMPLED_IMAGE does not match the shader's declaration of (set 0, binding 2) as a storage buffer"],
    );
}

/// Filter and mipmap mode names are NEAREST or LINEAR; the message lists them.
#[test]
fn unknown_filter_names() {
    for field in ["mag_filter", "min_filter", "mipmap_mode"] {
        refused(&format!("filter-{field}"), |t| {
            sampler(t).insert(field.into(), json!("BILINEAR"));
        }, &format!("samplers[0].{field}"), &["unknown value `BILINEAR` (expected NEAREST or LINEAR)"]);
    }
}

/// Address mode names are Vulkan's five; the message lists them.
#[test]
fn unknown_address_mode_names() {
    for field in ["address_mode_u", "address_mode_v", "address_mode_w"] {
        refused(&format!("address-{field}"), |t| {
            sampler(t).insert(field.into(), json!("CLAMP"));
        }, &format!("samplers[0].{field}"), &["unknown value `CLAMP` (expected REPEAT, MIRRORED_REPEAT, CLAMP_TO_EDGE, CLAMP_TO_BORDER or MIRROR_CLAMP_TO_EDGE)"]);
    }
}

/// max_lod below min_lod.
#[test]
fn max_lod_below_min_lod() {
    refused(
        "max-lod-below-min",
        |t| {
            sampler(t).insert("min_lod".into(), json!(2.0));
            sampler(t).insert("max_lod".into(), json!(1.0));
        },
        "samplers[0].max_lod",
        &["max_lod 1 is below min_lod 2", "VUID-VkSamplerCreateInfo-maxLod-01973"],
    );
}

/// What the texture unit does not model, anisotropy first, is refused as not supported.
#[test]
fn sampler_features_the_engine_lacks() {
    for (field, what) in [("anisotropy_enable", "anisotropic filtering"), ("compare_enable", "depth comparison"), ("unnormalized_coordinates", "unnormalized coordinates")] {
        refused(&format!("sampler-{field}"), |t| {
            sampler(t).insert(field.into(), json!(true));
        }, &format!("samplers[0].{field}"), &[&format!("{what} is not supported yet by the engine")]);
    }
}

/// |mip_lod_bias| above maxSamplerLodBias, 15, either way; a value past f32's range is refused
/// at the same field.
#[test]
fn mip_lod_bias_beyond_the_limit() {
    for (name, bias, shown) in [("bias-16", json!(16), "|16|"), ("bias-minus", json!(-15.5), "|-15.5|"), ("bias-huge", json!(1e6), "|1000000|")] {
        refused(name, |t| {
            sampler(t).insert("mip_lod_bias".into(), bias);
        }, "samplers[0].mip_lod_bias", &[shown, "exceeds maxSamplerLodBias, 15", "VUID-VkSamplerCreateInfo-mipLodBias-01069"]);
    }
    // JSON holds no NaN or infinity; 1e300 is what comes closest (it is no f32): still the limit
    // it breaks, not an infinity the trace never wrote.
    refused("bias-past-f32", |t| {
        sampler(t).insert("mip_lod_bias".into(), json!(1e300));
    }, "samplers[0].mip_lod_bias", &["exceeds maxSamplerLodBias, 15", "VUID-VkSamplerCreateInfo-mipLodBias-01069"]);
    refused("min-lod-past-f32", |t| {
        sampler(t).insert("min_lod".into(), json!(-1e308));
    }, "samplers[0].min_lod", &["beyond VK_LOD_CLAMP_NONE"]);
}

/// Sampler ids are unique, and not another object's id.
#[test]
fn duplicate_sampler_id() {
    refused("duplicate-sampler", |t| {
        let copy = t["samplers"][0].clone();
        t["samplers"].as_array_mut().unwrap().push(copy);
    }, "samplers[1]", &["duplicate sampler id `linear`"]);
    refused("sampler-named-as-buffer", |t| {
        sampler(t).insert("id".into(), json!("first"));
    }, "samplers[0].id", &["`first` is already the id of a buffer"]);
}

/// A buffer binding takes no subresource range, view type or view format.
#[test]
fn view_fields_on_a_buffer_binding() {
    for (field, value) in [("subresource_range", json!({"aspect_mask": "COLOR"})), ("view_type", json!("2D")), ("format", json!("R8G8B8A8_UNORM"))] {
        refused(&format!("buffer-{field}"), |t| {
            binding(t, SAMPLE, 2).insert(field.into(), value);
        }, &format!("command_buffers[0].commands[3].bindings[2].{field}"), &[&format!("`{field}` belongs to an image binding, and this one binds a buffer")]);
    }
}

/// A storage image view is of one mip level: not the whole of a two-level image, nor a range
/// of two levels.
#[test]
fn storage_image_view_of_two_mip_levels() {
    refused("storage-two-levels", |t| {
        picture(t).insert("mip_levels".into(), json!(2));
    }, "command_buffers[0].commands[5].bindings[0].subresource_range", &["a storage image descriptor views one level, not 2"]);
    refused("storage-range-two-levels", |t| {
        picture(t).insert("mip_levels".into(), json!(2));
        binding(t, GENERATE, 0).insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "level_count": 2}));
    }, "command_buffers[0].commands[5].bindings[0].subresource_range", &["a storage image descriptor views one level, not 2"]);
}

/// `tests/images.rs` round-trips the clear-then-copy examples only: the examples with image and
/// sampler descriptors (and one that spells out every descriptor field and a sampler's every
/// field) written by gpusim's trace writer load back, write the same text again, run to the
/// same report and exit as the originals do.
#[test]
fn descriptor_examples_round_trip_through_the_writer() {
    let mut spelt_out = example(EXAMPLE);
    let s = sampler(&mut spelt_out);
    for (k, v) in [("mipmap_mode", json!("LINEAR")), ("address_mode_w", json!("MIRRORED_REPEAT")), ("mip_lod_bias", json!(0.5)), ("min_lod", json!(0.25)), ("max_lod", json!(4.0)), ("border_color", json!("INT_OPAQUE_WHITE"))] {
        s.insert(k.into(), v);
    }
    picture(&mut spelt_out).insert("array_layers".into(), json!(2));
    for cmd in [SAMPLE, SAMPLE_AGAIN] {
        let b = binding(&mut spelt_out, cmd, 0);
        b.insert("descriptor_type".into(), json!("VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE"));
        b.insert("view_type".into(), json!("2D"));
        b.insert("format".into(), json!("R8G8B8A8_UNORM"));
        b.insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "base_array_layer": 1, "layer_count": 1}));
        binding(&mut spelt_out, cmd, 1).insert("descriptor_type".into(), json!("SAMPLER"));
    }
    binding(&mut spelt_out, GENERATE, 0).insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "base_array_layer": 1, "layer_count": 1}));
    let cases = [
        ("storage-then-sample-correct", example(EXAMPLE), 0),
        ("storage-then-sample-missing", example("storage-then-sample-missing"), 1),
        ("spelt-out", spelt_out, 0),
    ];
    for (name, trace, exit) in cases {
        let original = scratch(&format!("round-trip-{name}"), &trace.to_string());
        assert_eq!(gpusim_run(&original).status.code(), Some(exit), "{name}: the original");
        let written = support::round_trip(&original, name, "seed-vram");
        let back: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(back["samplers"].as_array().map(Vec::len), Some(1), "{name}: {written}");
        let kinds: Vec<&str> = back["command_buffers"][0]["commands"].as_array().unwrap().iter().filter(|c| c["cmd"] == "dispatch").flat_map(|c| c["bindings"].as_array().unwrap()).filter_map(|b| b["descriptor_type"].as_str()).collect();
        assert_eq!(kinds, ["SAMPLED_IMAGE", "SAMPLER", "STORAGE_IMAGE", "SAMPLED_IMAGE", "SAMPLER"], "{name}");
        let copy = scratch(&format!("round-trip-{name}-written"), &written);
        let out = gpusim_run(&copy);
        assert_eq!(out.status.code(), Some(exit), "{name}: the written trace; stderr: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Descriptor types on an image binding: an input attachment is a draw's, not a dispatch's, a
/// misspelled type is unknown, and a combined image sampler needs its image.
#[test]
fn descriptor_types_on_image_bindings() {
    refused("input-attachment", |t| {
        binding(t, SAMPLE, 0).insert("descriptor_type".into(), json!("INPUT_ATTACHMENT"));
    }, "command_buffers[0].commands[3].bindings[0].descriptor_type", &["an INPUT_ATTACHMENT descriptor is read by a fragment shader in a render pass, not by vkCmdDispatch"]);
    refused("misspelled-type", |t| {
        binding(t, SAMPLE, 0).insert("descriptor_type".into(), json!("SAMPLED_IMAGES"));
    }, "command_buffers[0].commands[3].bindings[0].descriptor_type", &["unknown descriptor type `SAMPLED_IMAGES`", "SAMPLED_IMAGE, STORAGE_IMAGE"]);
    refused("combined-without-image", |t| {
        binding(t, SAMPLE, 1).insert("descriptor_type".into(), json!("COMBINED_IMAGE_SAMPLER"));
    }, "command_buffers[0].commands[3].bindings[1]", &["a COMBINED_IMAGE_SAMPLER binding needs `image`"]);
    refused("sampler-named-as-image", |t| {
        sampler(t).insert("id".into(), json!("picture"));
    }, "samplers[0].id", &["`picture` is already the id of an image"]);
}

/// A view's subresource range names its own fields: a count of zero is refused at the count,
/// with the count's VUID.
#[test]
fn zero_counts_in_a_view_are_refused_at_the_count() {
    refused("zero-levels", |t| {
        binding(t, SAMPLE, 0).insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "level_count": 0}));
    }, "command_buffers[0].commands[3].bindings[0].subresource_range.level_count", &["a count of 0 levels names nothing", "VUID-VkImageSubresourceRange-levelCount-01720"]);
    refused("zero-layers", |t| {
        binding(t, SAMPLE, 0).insert("subresource_range".into(), json!({"aspect_mask": "COLOR", "layer_count": 0}));
    }, "command_buffers[0].commands[3].bindings[0].subresource_range.layer_count", &["a count of 0 layers names nothing", "VUID-VkImageSubresourceRange-layerCount-01721"]);
}
