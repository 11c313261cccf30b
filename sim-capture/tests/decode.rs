//! The parameter decoders against `gfxrecon-convert`: every call of the committed captures that
//! the decoders know decodes, and what they read agrees with what GFXReconstruct's own decoder
//! printed (`tests/captures/*.convert.jsonl`, written by `scripts/capture-fixtures/make.sh`).
//! Then the converter: the same capture gives the same trace whatever its compression, and the
//! data `gfxrecon-convert` leaves out (SPIR-V, vkCmdUpdateBuffer data, push constants,
//! specialization data, mapped-memory writes) is in the trace.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;
use sim_capture::convert::{ImportOptions, import_bytes};
use sim_capture::decode::{Call, decode_call};
use sim_capture::read_all;

/// A file of the root crate's `tests/captures/`.
fn capture_file(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/captures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `gfxrecon-convert`'s calls by block index.
fn converted(name: &str) -> HashMap<u64, Value> {
    let text = String::from_utf8(capture_file(name)).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|v| Some((v.get("index")?.as_u64()?, v.get("vkFunc")?.clone())))
        .collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Compares one decoded call with `gfxrecon-convert`'s arguments; returns whether the call is
/// one this test knows how to compare.
fn compare(call: &Call, args: &Value) -> bool {
    match call {
        Call::CreateBuffer(c) => {
            let info = &args["pCreateInfo"];
            assert_eq!(c.info.size, u(&info["size"]));
            assert_eq!(u64::from(c.info.usage), u(&info["usage"]));
            assert_eq!(c.handle, Some(u(&args["pBuffer"])));
        }
        Call::AllocateMemory(c) => {
            let info = &args["pAllocateInfo"];
            assert_eq!(c.info.allocation_size, u(&info["allocationSize"]));
            assert_eq!(
                u64::from(c.info.memory_type_index),
                u(&info["memoryTypeIndex"])
            );
            assert_eq!(c.handle, Some(u(&args["pMemory"])));
        }
        Call::BindBufferMemory { binds, .. } => {
            assert_eq!(binds.len(), 1);
            assert_eq!(binds[0].buffer, u(&args["buffer"]));
            assert_eq!(binds[0].memory, u(&args["memory"]));
            assert_eq!(binds[0].memory_offset, u(&args["memoryOffset"]));
        }
        Call::CreateShaderModule(c) => {
            let info = &args["pCreateInfo"];
            assert_eq!(c.info.len() as u64 * 4, u(&info["codeSize"]));
            assert_eq!(c.info[0], 0x0723_0203, "SPIR-V magic");
        }
        Call::CreateComputePipelines {
            infos, pipelines, ..
        } => {
            let info = &args["pCreateInfos"][0];
            assert_eq!(
                infos[0].stage.name,
                info["stage"]["pName"].as_str().unwrap()
            );
            assert_eq!(infos[0].stage.module, u(&info["stage"]["module"]));
            assert_eq!(infos[0].layout, u(&info["layout"]));
            let spec = &info["stage"]["pSpecializationInfo"];
            assert_eq!(infos[0].stage.specialization.is_some(), !spec.is_null());
            if let Some(s) = &infos[0].stage.specialization {
                assert_eq!(s.data.len() as u64, u(&spec["dataSize"]));
                assert_eq!(
                    u64::from(s.map_entries[0].constant_id),
                    u(&spec["pMapEntries"][0]["constantID"])
                );
            }
            assert_eq!(pipelines[0], u(&args["pPipelines"][0]));
        }
        Call::UpdateDescriptorSets { writes, .. } => {
            for (w, j) in writes
                .iter()
                .zip(args["pDescriptorWrites"].as_array().unwrap())
            {
                assert_eq!(w.dst_set, u(&j["dstSet"]));
                assert_eq!(u64::from(w.dst_binding), u(&j["dstBinding"]));
                assert_eq!(w.buffer_info[0].buffer, u(&j["pBufferInfo"][0]["buffer"]));
                assert_eq!(w.buffer_info[0].range, u(&j["pBufferInfo"][0]["range"]));
            }
        }
        Call::CmdDispatch { group_count, .. } => {
            assert_eq!(
                group_count.map(u64::from),
                [
                    u(&args["groupCountX"]),
                    u(&args["groupCountY"]),
                    u(&args["groupCountZ"])
                ]
            );
        }
        Call::CmdFillBuffer {
            dst_buffer,
            size,
            data,
            ..
        } => {
            assert_eq!(*dst_buffer, u(&args["dstBuffer"]));
            assert_eq!(*size, u(&args["size"]));
            assert_eq!(u64::from(*data), u(&args["data"]));
        }
        Call::CmdUpdateBuffer { data, .. } => assert_eq!(data.len() as u64, u(&args["dataSize"])),
        Call::CmdPushConstants { offset, values, .. } => {
            assert_eq!(u64::from(*offset), u(&args["offset"]));
            assert_eq!(values.len() as u64, u(&args["size"]));
        }
        Call::CmdCopyBuffer {
            regions,
            src_buffer,
            ..
        } => {
            assert_eq!(*src_buffer, u(&args["srcBuffer"]));
            let r = &args["pRegions"][0];
            assert_eq!(
                (
                    regions[0].src_offset,
                    regions[0].dst_offset,
                    regions[0].size
                ),
                (u(&r["srcOffset"]), u(&r["dstOffset"]), u(&r["size"]))
            );
        }
        Call::CmdPipelineBarrier {
            dependency,
            sync2: false,
            ..
        } => {
            assert_eq!(dependency.src_stage_mask, u(&args["srcStageMask"]));
            assert_eq!(dependency.dst_stage_mask, u(&args["dstStageMask"]));
            for (b, m) in dependency
                .memory_barriers
                .iter()
                .zip(args["pMemoryBarriers"].as_array().into_iter().flatten())
            {
                assert_eq!(b.src_access_mask, u(&m["srcAccessMask"]));
                assert_eq!(b.dst_access_mask, u(&m["dstAccessMask"]));
            }
            compare_image_barriers(
                &dependency.image_memory_barriers,
                &args["pImageMemoryBarriers"],
            );
        }
        Call::CmdPipelineBarrier {
            dependency,
            sync2: true,
            ..
        } => {
            let info = &args["pDependencyInfo"];
            let images = &info["pImageMemoryBarriers"];
            assert_eq!(
                dependency.image_memory_barriers.len(),
                images.as_array().unwrap().len()
            );
            compare_image_barriers(&dependency.image_memory_barriers, images);
            // gfxrecon-convert names synchronization2's masks; two are checked by value.
            assert_eq!(images[0]["dstStageMask"], "VK_PIPELINE_STAGE_2_CLEAR_BIT");
            assert_eq!(
                dependency.image_memory_barriers[0].barrier.dst_stage_mask,
                0x8_0000_0000
            );
            assert_eq!(images[1]["dstStageMask"], "VK_PIPELINE_STAGE_2_BLIT_BIT");
            assert_eq!(
                dependency.image_memory_barriers[1].barrier.dst_stage_mask,
                0x4_0000_0000
            );
        }
        Call::CreateImage(c) => {
            let info = &args["pCreateInfo"];
            let e = &info["extent"];
            assert_eq!(
                c.info.extent.map(u64::from),
                [u(&e["width"]), u(&e["height"]), u(&e["depth"])]
            );
            assert_eq!(u64::from(c.info.usage), u(&info["usage"]));
            assert_eq!(u64::from(c.info.mip_levels), u(&info["mipLevels"]));
            assert_eq!(info["format"], "VK_FORMAT_R8G8B8A8_UNORM");
            assert_eq!(c.info.format, 37);
            assert_eq!(c.handle, Some(u(&args["pImage"])));
        }
        Call::BindImageMemory { binds, .. } => {
            assert_eq!(binds.len(), 1);
            assert_eq!(binds[0].image, u(&args["image"]));
            assert_eq!(binds[0].memory, u(&args["memory"]));
            assert_eq!(binds[0].memory_offset, u(&args["memoryOffset"]));
        }
        Call::CreateImageView(c) => {
            assert_eq!(c.info.image, u(&args["pCreateInfo"]["image"]));
            assert_eq!(c.info.subresource_range.layer_count, 1);
            assert_eq!(c.handle, Some(u(&args["pView"])));
        }
        Call::CreateSampler(c) => {
            let info = &args["pCreateInfo"];
            assert_eq!(
                f64::from(f32::from_bits(c.info.max_lod)),
                info["maxLod"].as_f64().unwrap()
            );
            assert_eq!(info["magFilter"], "VK_FILTER_LINEAR");
            assert_eq!(c.info.mag_filter, 1);
            assert_eq!(c.handle, Some(u(&args["pSampler"])));
        }
        Call::CmdClearColorImage {
            image,
            color,
            ranges,
            ..
        } => {
            assert_eq!(*image, u(&args["image"]));
            let words: Vec<u64> = args["pColor"]["uint32"]
                .as_array()
                .unwrap()
                .iter()
                .map(u)
                .collect();
            assert_eq!(color.map(u64::from).to_vec(), words);
            assert_eq!(
                u64::from(ranges[0].aspect_mask),
                u(&args["pRanges"][0]["aspectMask"])
            );
        }
        Call::CmdBlitImage {
            src_image,
            dst_image,
            regions,
            filter,
            ..
        } => {
            assert_eq!(
                (*src_image, *dst_image),
                (u(&args["srcImage"]), u(&args["dstImage"]))
            );
            let r = &args["pRegions"][0];
            for (k, o) in regions[0].src_offsets.iter().enumerate() {
                let j = &r["srcOffsets"][k];
                assert_eq!(
                    o.map(i64::from),
                    [
                        j["x"].as_i64().unwrap(),
                        j["y"].as_i64().unwrap(),
                        j["z"].as_i64().unwrap()
                    ]
                );
            }
            assert_eq!(regions[0].dst_offsets[1], [32, 32, 1]);
            assert_eq!(
                (*filter, args["filter"].as_str()),
                (0, Some("VK_FILTER_NEAREST"))
            );
        }
        Call::CmdCopyImageToBuffer {
            src_image,
            dst_buffer,
            regions,
            ..
        } => {
            assert_eq!(
                (*src_image, *dst_buffer),
                (u(&args["srcImage"]), u(&args["dstBuffer"]))
            );
            let e = &args["pRegions"][0]["imageExtent"];
            assert_eq!(
                regions[0].image_extent.map(u64::from),
                [u(&e["width"]), u(&e["height"]), u(&e["depth"])]
            );
        }
        Call::QueueSubmit {
            queue,
            submits,
            fence,
            ..
        } => {
            assert_eq!(*queue, u(&args["queue"]));
            assert_eq!(*fence, u(&args["fence"]));
            assert_eq!(
                submits[0].command_buffers[0],
                u(&args["pSubmits"][0]["pCommandBuffers"][0])
            );
        }
        Call::WaitForFences {
            fences, timeout, ..
        } => {
            assert_eq!(fences[0], u(&args["pFences"][0]));
            assert_eq!(*timeout, u(&args["timeout"]));
        }
        Call::GetDeviceQueue {
            queue, queue_index, ..
        } => {
            assert_eq!(*queue, Some(u(&args["pQueue"])));
            assert_eq!(u64::from(*queue_index), u(&args["queueIndex"]));
        }
        _ => return false,
    }
    true
}

/// Image memory barriers (either version) against `gfxrecon-convert`'s: image, access masks and
/// the subresource range; layouts by their names.
fn compare_image_barriers(decoded: &[sim_capture::decode::ImageMemoryBarrier], reference: &Value) {
    let Some(list) = reference.as_array() else {
        assert!(decoded.is_empty());
        return;
    };
    assert_eq!(decoded.len(), list.len());
    for (b, j) in decoded.iter().zip(list) {
        assert_eq!(b.image, u(&j["image"]));
        assert_eq!(
            u64::from(b.src_queue_family_index),
            u(&j["srcQueueFamilyIndex"])
        );
        let range = &j["subresourceRange"];
        assert_eq!(
            u64::from(b.subresource_range.level_count),
            u(&range["levelCount"])
        );
        assert_eq!(
            u64::from(b.subresource_range.layer_count),
            u(&range["layerCount"])
        );
        let name = |l: u32| match l {
            0 => "VK_IMAGE_LAYOUT_UNDEFINED",
            1 => "VK_IMAGE_LAYOUT_GENERAL",
            6 => "VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL",
            7 => "VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL",
            _ => "other",
        };
        assert_eq!(name(b.old_layout), j["oldLayout"]);
        assert_eq!(name(b.new_layout), j["newLayout"]);
        if let Some(access) = j["srcAccessMask"].as_u64() {
            assert_eq!(b.barrier.src_access_mask, access);
            assert_eq!(b.barrier.dst_access_mask, u(&j["dstAccessMask"]));
        }
    }
}

#[test]
fn decoded_calls_agree_with_gfxrecon_convert() {
    for name in ["barrier-missing", "inline-data", "image-missing"] {
        let bytes = capture_file(&format!("{name}.gfxr"));
        let reference = converted(&format!("{name}.convert.jsonl"));
        let (_, blocks) = read_all(&bytes).unwrap();
        let (mut decoded, mut compared) = (0, 0);
        for block in &blocks {
            let Some(call) = decode_call(block).unwrap_or_else(|e| panic!("{name}: {e}")) else {
                continue;
            };
            decoded += 1;
            let func = &reference[&block.index];
            assert_eq!(
                func["name"].as_str(),
                block.call_name(),
                "{name} block {}",
                block.index
            );
            compared += u32::from(compare(&call, &func["args"]));
        }
        // Every call of the program but instance/device setup, queries and destruction.
        assert!(decoded >= 30, "{name}: {decoded} calls decoded");
        assert!(compared >= 18, "{name}: {compared} calls compared");
    }
}

fn options() -> ImportOptions {
    ImportOptions {
        name: "t".into(),
        shader_file_prefix: "t.".into(),
        description: None,
    }
}

#[test]
fn every_compression_gives_the_same_trace() {
    let traces: Vec<String> = [
        common::lz4_fixture(),
        common::none_fixture(),
        common::zstd_fixture(),
    ]
    .iter()
    .map(|b| import_bytes(b, &options()).unwrap().trace)
    .collect();
    assert_eq!(traces[0], traces[1]);
    assert_eq!(traces[0], traces[2]);
    let t: Value = serde_json::from_str(&traces[0]).unwrap();
    // gpusim's replay of fill-then-dispatch-missing: a fill then a dispatch, no barrier between.
    let cmds = &t["command_buffers"][0]["commands"];
    assert_eq!(cmds[0]["cmd"], "fill_buffer");
    assert_eq!(cmds[0]["data"], 7);
    assert_eq!(cmds[1]["cmd"], "dispatch");
    assert_eq!(cmds[1]["group_count"], serde_json::json!([16, 1, 1]));
}

#[test]
fn inline_data_left_out_by_gfxrecon_convert_is_imported() {
    let import = import_bytes(&capture_file("inline-data.gfxr"), &options()).unwrap();
    let t: Value = serde_json::from_str(&import.trace).unwrap();
    let cmds = t["command_buffers"][0]["commands"].as_array().unwrap();
    let update = cmds.iter().find(|c| c["cmd"] == "update_buffer").unwrap();
    let hex = update["data_hex"].as_str().unwrap();
    let words: Vec<u32> = (0..hex.len() / 8)
        .map(|i| {
            u32::from_le_bytes(std::array::from_fn(|k| {
                u8::from_str_radix(&hex[i * 8 + k * 2..i * 8 + k * 2 + 2], 16).unwrap()
            }))
        })
        .collect();
    assert_eq!(words, (1..=256).collect::<Vec<u32>>());
    let dispatch = cmds.iter().find(|c| c["cmd"] == "dispatch").unwrap();
    assert_eq!(dispatch["push_constants_u32"], serde_json::json!([3]));
    // The specialization constant (id 0, value 5) is frozen into the module: no OpSpecConstant*
    // (48..=52) is left, and an OpConstant (43) of value 5 is there.
    let (file, bytes) = &import.files[0];
    assert_eq!(file, "t.pipeline0.spv");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut at = 5;
    let (mut spec, mut five) = (0, 0);
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        spec += usize::from((48..=52).contains(&op));
        five += usize::from(op == 43 && count == 4 && words[at + 3] == 5);
        at += count;
    }
    assert_eq!((spec, five), (0, 1));
    // The host wrote nothing through mapped memory here; host-upload-flush wrote 0..255 and
    // flushed before submitting.
    assert!(
        t["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .all(|op| op["op"] != "host_write")
    );
    let t: Value = serde_json::from_str(
        &import_bytes(&capture_file("host-upload-flush.gfxr"), &options())
            .unwrap()
            .trace,
    )
    .unwrap();
    let ops: Vec<&str> = t["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["op"].as_str().unwrap())
        .collect();
    assert_eq!(
        &ops[..3],
        ["host_write", "flush_mapped_memory_ranges", "queue_submit"]
    );
    let hex = t["timeline"][0]["data_hex"].as_str().unwrap();
    assert_eq!(hex.len(), 2048);
    assert!(
        hex.starts_with("000000000100000002000000"),
        "{}",
        &hex[..24]
    );
}
