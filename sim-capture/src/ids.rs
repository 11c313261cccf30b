//! GFXReconstruct's API call ids and their Vulkan function names.
//!
//! A function-call block names its call only by a 32-bit id: the API family in the high 16 bits
//! (1 is Vulkan) and the call's number in the low 16 bits, as `MakeApiCallId` in
//! `framework/format/api_call_id.h` builds it. The ids are append-only upstream, so one table
//! serves captures from every release. The whole Vulkan table is kept (not only the calls gpusim
//! converts) so that a later importer can refuse any unsupported call by its name
//! (`unsupported: vkCmdTraceRaysKHR at call 1234`) instead of by a bare number.
//!
//! The table itself lives in `vulkan_ids.rs`, generated from that header by
//! `scripts/gen_vulkan_ids.py`; the constants below are the calls gpusim is expected to
//! convert, checked against the table by a test.

#[path = "vulkan_ids.rs"]
mod vulkan_ids;

pub use vulkan_ids::VULKAN_CALLS;

/// The API family of Vulkan calls and meta-data (`ApiFamily_Vulkan`).
pub const API_FAMILY_VULKAN: u16 = 1;

/// The API family of a call id or meta-data id: its high 16 bits.
pub fn api_family(id: u32) -> u16 {
    (id >> 16) as u16
}

/// The Vulkan function name of an API call id, or `None` for an id of another family or one
/// newer than this table.
pub fn call_name(api_call_id: u32) -> Option<&'static str> {
    // The table is sorted by id (checked by a test), so a binary search finds it.
    VULKAN_CALLS
        .binary_search_by_key(&api_call_id, |&(id, _)| id)
        .ok()
        .map(|i| VULKAN_CALLS[i].1)
}

/// The API call id of a Vulkan function name (a linear scan: for tests and error messages,
/// not for per-block use).
pub fn call_id(name: &str) -> Option<u32> {
    VULKAN_CALLS
        .iter()
        .find(|&&(_, n)| n == name)
        .map(|&(id, _)| id)
}

/// A printable name for any call id: the function name when known, otherwise the id in hex
/// with its family, so messages never lose the number.
pub fn display_call(api_call_id: u32) -> String {
    match call_name(api_call_id) {
        Some(name) => name.to_owned(),
        None => format!(
            "unknown call 0x{api_call_id:08x} (API family {})",
            api_family(api_call_id)
        ),
    }
}

/// `vkCreateBuffer`.
pub const CREATE_BUFFER: u32 = 0x00011032;
/// `vkAllocateMemory`.
pub const ALLOCATE_MEMORY: u32 = 0x00011015;
/// `vkBindBufferMemory`.
pub const BIND_BUFFER_MEMORY: u32 = 0x0001101c;
/// `vkMapMemory`.
pub const MAP_MEMORY: u32 = 0x00011017;
/// `vkUnmapMemory`.
pub const UNMAP_MEMORY: u32 = 0x00011018;
/// `vkCmdDispatch`.
pub const CMD_DISPATCH: u32 = 0x0001106e;
/// `vkCmdDispatchIndirect`.
pub const CMD_DISPATCH_INDIRECT: u32 = 0x0001106f;
/// `vkCmdPipelineBarrier`.
pub const CMD_PIPELINE_BARRIER: u32 = 0x0001107e;
/// `vkCmdPipelineBarrier2`.
pub const CMD_PIPELINE_BARRIER2: u32 = 0x00011255;
/// `vkCmdPipelineBarrier2KHR`.
pub const CMD_PIPELINE_BARRIER2_KHR: u32 = 0x0001122e;
/// `vkCmdCopyBuffer`.
pub const CMD_COPY_BUFFER: u32 = 0x00011070;
/// `vkCmdFillBuffer`.
pub const CMD_FILL_BUFFER: u32 = 0x00011076;
/// `vkCmdUpdateBuffer`.
pub const CMD_UPDATE_BUFFER: u32 = 0x00011075;
/// `vkQueueSubmit`.
pub const QUEUE_SUBMIT: u32 = 0x00011012;
/// `vkQueueSubmit2`.
pub const QUEUE_SUBMIT2: u32 = 0x00011257;
/// `vkQueueSubmit2KHR`.
pub const QUEUE_SUBMIT2_KHR: u32 = 0x00011230;
/// `vkCreateShaderModule`.
pub const CREATE_SHADER_MODULE: u32 = 0x0001103b;
/// `vkCreateComputePipelines`.
pub const CREATE_COMPUTE_PIPELINES: u32 = 0x00011042;
/// `vkCmdBindPipeline`.
pub const CMD_BIND_PIPELINE: u32 = 0x0001105d;
/// `vkCmdBindDescriptorSets`.
pub const CMD_BIND_DESCRIPTOR_SETS: u32 = 0x00011067;
/// `vkUpdateDescriptorSets`.
pub const UPDATE_DESCRIPTOR_SETS: u32 = 0x0001104f;
/// `vkCmdPushConstants`.
pub const CMD_PUSH_CONSTANTS: u32 = 0x00011084;
/// `vkWaitForFences`.
pub const WAIT_FOR_FENCES: u32 = 0x00011027;
/// `vkQueueWaitIdle`.
pub const QUEUE_WAIT_IDLE: u32 = 0x00011013;
/// `vkDeviceWaitIdle`.
pub const DEVICE_WAIT_IDLE: u32 = 0x00011014;
/// `vkFlushMappedMemoryRanges`.
pub const FLUSH_MAPPED_MEMORY_RANGES: u32 = 0x00011019;
/// `vkInvalidateMappedMemoryRanges`.
pub const INVALIDATE_MAPPED_MEMORY_RANGES: u32 = 0x0001101a;
/// `vkCmdSetEvent`.
pub const CMD_SET_EVENT: u32 = 0x0001107b;
/// `vkCmdWaitEvents`.
pub const CMD_WAIT_EVENTS: u32 = 0x0001107d;
/// `vkCmdSetEvent2`.
pub const CMD_SET_EVENT2: u32 = 0x00011252;
/// `vkCmdWaitEvents2`.
pub const CMD_WAIT_EVENTS2: u32 = 0x00011254;
/// `vkBeginCommandBuffer`.
pub const BEGIN_COMMAND_BUFFER: u32 = 0x0001105a;
/// `vkEndCommandBuffer`.
pub const END_COMMAND_BUFFER: u32 = 0x0001105b;
/// `vkCreateFence`.
pub const CREATE_FENCE: u32 = 0x00011023;
/// `vkResetFences`.
pub const RESET_FENCES: u32 = 0x00011025;
/// `vkCreateSemaphore`.
pub const CREATE_SEMAPHORE: u32 = 0x00011028;
/// `vkCmdTraceRaysKHR`.
pub const CMD_TRACE_RAYS_KHR: u32 = 0x0001119c;

/// The calls named above, for tests that check each constant against the table.
pub const NAMED: &[(u32, &str)] = &[
    (CREATE_BUFFER, "vkCreateBuffer"),
    (ALLOCATE_MEMORY, "vkAllocateMemory"),
    (BIND_BUFFER_MEMORY, "vkBindBufferMemory"),
    (MAP_MEMORY, "vkMapMemory"),
    (UNMAP_MEMORY, "vkUnmapMemory"),
    (CMD_DISPATCH, "vkCmdDispatch"),
    (CMD_DISPATCH_INDIRECT, "vkCmdDispatchIndirect"),
    (CMD_PIPELINE_BARRIER, "vkCmdPipelineBarrier"),
    (CMD_PIPELINE_BARRIER2, "vkCmdPipelineBarrier2"),
    (CMD_PIPELINE_BARRIER2_KHR, "vkCmdPipelineBarrier2KHR"),
    (CMD_COPY_BUFFER, "vkCmdCopyBuffer"),
    (CMD_FILL_BUFFER, "vkCmdFillBuffer"),
    (CMD_UPDATE_BUFFER, "vkCmdUpdateBuffer"),
    (QUEUE_SUBMIT, "vkQueueSubmit"),
    (QUEUE_SUBMIT2, "vkQueueSubmit2"),
    (QUEUE_SUBMIT2_KHR, "vkQueueSubmit2KHR"),
    (CREATE_SHADER_MODULE, "vkCreateShaderModule"),
    (CREATE_COMPUTE_PIPELINES, "vkCreateComputePipelines"),
    (CMD_BIND_PIPELINE, "vkCmdBindPipeline"),
    (CMD_BIND_DESCRIPTOR_SETS, "vkCmdBindDescriptorSets"),
    (UPDATE_DESCRIPTOR_SETS, "vkUpdateDescriptorSets"),
    (CMD_PUSH_CONSTANTS, "vkCmdPushConstants"),
    (WAIT_FOR_FENCES, "vkWaitForFences"),
    (QUEUE_WAIT_IDLE, "vkQueueWaitIdle"),
    (DEVICE_WAIT_IDLE, "vkDeviceWaitIdle"),
    (FLUSH_MAPPED_MEMORY_RANGES, "vkFlushMappedMemoryRanges"),
    (
        INVALIDATE_MAPPED_MEMORY_RANGES,
        "vkInvalidateMappedMemoryRanges",
    ),
    (CMD_SET_EVENT, "vkCmdSetEvent"),
    (CMD_WAIT_EVENTS, "vkCmdWaitEvents"),
    (CMD_SET_EVENT2, "vkCmdSetEvent2"),
    (CMD_WAIT_EVENTS2, "vkCmdWaitEvents2"),
    (BEGIN_COMMAND_BUFFER, "vkBeginCommandBuffer"),
    (END_COMMAND_BUFFER, "vkEndCommandBuffer"),
    (CREATE_FENCE, "vkCreateFence"),
    (RESET_FENCES, "vkResetFences"),
    (CREATE_SEMAPHORE, "vkCreateSemaphore"),
    (CMD_TRACE_RAYS_KHR, "vkCmdTraceRaysKHR"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_unique_and_vulkan() {
        for pair in VULKAN_CALLS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{:?} then {:?}", pair[0], pair[1]);
        }
        assert!(
            VULKAN_CALLS
                .iter()
                .all(|&(id, name)| api_family(id) == API_FAMILY_VULKAN && name.starts_with("vk"))
        );
    }

    #[test]
    fn named_constants_agree_with_the_table() {
        for &(id, name) in NAMED {
            assert_eq!(call_name(id), Some(name));
            assert_eq!(call_id(name), Some(id));
        }
        // Two ids spelled out in api_call_id.h, as a check on the generator itself.
        assert_eq!(call_name(0x0001_1000), Some("vkCreateInstance"));
        assert_eq!(CMD_DISPATCH, (1 << 16) | 0x106e);
    }

    #[test]
    fn unknown_ids_still_print_their_number() {
        assert_eq!(call_name(0x0003_1000), None);
        assert_eq!(
            display_call(0x0003_1000),
            "unknown call 0x00031000 (API family 3)"
        );
        assert_eq!(display_call(CMD_TRACE_RAYS_KHR), "vkCmdTraceRaysKHR");
    }
}
