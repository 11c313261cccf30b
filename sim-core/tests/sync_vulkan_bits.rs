//! Every named stage and access bit has Vulkan's own value (checked against the `ash` bindings).

use ash::vk;
use sim_core::sync::{AccessFlags2 as A, PipelineStageFlags2 as S};

#[test]
fn pipeline_stage_bits_match_vulkan() {
    let expected: &[(S, vk::PipelineStageFlags2)] = &[
        (S::TOP_OF_PIPE, vk::PipelineStageFlags2::TOP_OF_PIPE),
        (S::DRAW_INDIRECT, vk::PipelineStageFlags2::DRAW_INDIRECT),
        (S::VERTEX_INPUT, vk::PipelineStageFlags2::VERTEX_INPUT),
        (S::VERTEX_SHADER, vk::PipelineStageFlags2::VERTEX_SHADER),
        (S::TESSELLATION_CONTROL_SHADER, vk::PipelineStageFlags2::TESSELLATION_CONTROL_SHADER),
        (S::TESSELLATION_EVALUATION_SHADER, vk::PipelineStageFlags2::TESSELLATION_EVALUATION_SHADER),
        (S::GEOMETRY_SHADER, vk::PipelineStageFlags2::GEOMETRY_SHADER),
        (S::FRAGMENT_SHADER, vk::PipelineStageFlags2::FRAGMENT_SHADER),
        (S::EARLY_FRAGMENT_TESTS, vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS),
        (S::LATE_FRAGMENT_TESTS, vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS),
        (S::COLOR_ATTACHMENT_OUTPUT, vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT),
        (S::COMPUTE_SHADER, vk::PipelineStageFlags2::COMPUTE_SHADER),
        (S::ALL_TRANSFER, vk::PipelineStageFlags2::ALL_TRANSFER),
        (S::BOTTOM_OF_PIPE, vk::PipelineStageFlags2::BOTTOM_OF_PIPE),
        (S::HOST, vk::PipelineStageFlags2::HOST),
        (S::ALL_GRAPHICS, vk::PipelineStageFlags2::ALL_GRAPHICS),
        (S::ALL_COMMANDS, vk::PipelineStageFlags2::ALL_COMMANDS),
        (S::CONDITIONAL_RENDERING, vk::PipelineStageFlags2::CONDITIONAL_RENDERING_EXT),
        (S::TASK_SHADER, vk::PipelineStageFlags2::TASK_SHADER_EXT),
        (S::MESH_SHADER, vk::PipelineStageFlags2::MESH_SHADER_EXT),
        (S::FRAGMENT_SHADING_RATE_ATTACHMENT, vk::PipelineStageFlags2::FRAGMENT_SHADING_RATE_ATTACHMENT_KHR),
        (S::TRANSFORM_FEEDBACK, vk::PipelineStageFlags2::TRANSFORM_FEEDBACK_EXT),
        (S::COPY, vk::PipelineStageFlags2::COPY),
        (S::RESOLVE, vk::PipelineStageFlags2::RESOLVE),
        (S::BLIT, vk::PipelineStageFlags2::BLIT),
        (S::CLEAR, vk::PipelineStageFlags2::CLEAR),
        (S::INDEX_INPUT, vk::PipelineStageFlags2::INDEX_INPUT),
        (S::VERTEX_ATTRIBUTE_INPUT, vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT),
        (S::PRE_RASTERIZATION_SHADERS, vk::PipelineStageFlags2::PRE_RASTERIZATION_SHADERS),
        (S::NONE, vk::PipelineStageFlags2::NONE),
    ];
    for (ours, theirs) in expected {
        assert_eq!(ours.bits(), theirs.as_raw(), "{ours}");
    }
    // Every named bit is covered above.
    assert_eq!(S::NAMED.len() + 1, expected.len());
    // Synchronization1's TRANSFER is synchronization2's ALL_TRANSFER.
    assert_eq!(S::parse("VK_PIPELINE_STAGE_TRANSFER_BIT").unwrap().bits(), vk::PipelineStageFlags::TRANSFER.as_raw() as u64);
}

#[test]
fn access_bits_match_vulkan() {
    let expected: &[(A, vk::AccessFlags2)] = &[
        (A::INDIRECT_COMMAND_READ, vk::AccessFlags2::INDIRECT_COMMAND_READ),
        (A::INDEX_READ, vk::AccessFlags2::INDEX_READ),
        (A::VERTEX_ATTRIBUTE_READ, vk::AccessFlags2::VERTEX_ATTRIBUTE_READ),
        (A::UNIFORM_READ, vk::AccessFlags2::UNIFORM_READ),
        (A::INPUT_ATTACHMENT_READ, vk::AccessFlags2::INPUT_ATTACHMENT_READ),
        (A::SHADER_READ, vk::AccessFlags2::SHADER_READ),
        (A::SHADER_WRITE, vk::AccessFlags2::SHADER_WRITE),
        (A::COLOR_ATTACHMENT_READ, vk::AccessFlags2::COLOR_ATTACHMENT_READ),
        (A::COLOR_ATTACHMENT_WRITE, vk::AccessFlags2::COLOR_ATTACHMENT_WRITE),
        (A::DEPTH_STENCIL_ATTACHMENT_READ, vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ),
        (A::DEPTH_STENCIL_ATTACHMENT_WRITE, vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE),
        (A::TRANSFER_READ, vk::AccessFlags2::TRANSFER_READ),
        (A::TRANSFER_WRITE, vk::AccessFlags2::TRANSFER_WRITE),
        (A::HOST_READ, vk::AccessFlags2::HOST_READ),
        (A::HOST_WRITE, vk::AccessFlags2::HOST_WRITE),
        (A::MEMORY_READ, vk::AccessFlags2::MEMORY_READ),
        (A::MEMORY_WRITE, vk::AccessFlags2::MEMORY_WRITE),
        (A::CONDITIONAL_RENDERING_READ, vk::AccessFlags2::CONDITIONAL_RENDERING_READ_EXT),
        (A::FRAGMENT_SHADING_RATE_ATTACHMENT_READ, vk::AccessFlags2::FRAGMENT_SHADING_RATE_ATTACHMENT_READ_KHR),
        (A::TRANSFORM_FEEDBACK_WRITE, vk::AccessFlags2::TRANSFORM_FEEDBACK_WRITE_EXT),
        (A::TRANSFORM_FEEDBACK_COUNTER_READ, vk::AccessFlags2::TRANSFORM_FEEDBACK_COUNTER_READ_EXT),
        (A::TRANSFORM_FEEDBACK_COUNTER_WRITE, vk::AccessFlags2::TRANSFORM_FEEDBACK_COUNTER_WRITE_EXT),
        (A::SHADER_SAMPLED_READ, vk::AccessFlags2::SHADER_SAMPLED_READ),
        (A::SHADER_STORAGE_READ, vk::AccessFlags2::SHADER_STORAGE_READ),
        (A::SHADER_STORAGE_WRITE, vk::AccessFlags2::SHADER_STORAGE_WRITE),
    ];
    for (ours, theirs) in expected {
        assert_eq!(ours.bits(), theirs.as_raw(), "{ours}");
    }
    assert_eq!(A::NAMED.len(), expected.len());
    // Synchronization1 access values are the same bits.
    assert_eq!(A::parse("VK_ACCESS_SHADER_READ_BIT").unwrap().bits(), vk::AccessFlags::SHADER_READ.as_raw() as u64);
}

#[test]
fn every_named_flag_round_trips_through_its_full_name() {
    for (name, flag) in S::NAMED {
        assert_eq!(S::parse(&format!("VK_PIPELINE_STAGE_2_{name}_BIT")).unwrap(), *flag);
        assert_eq!(S::parse(&flag.to_string()).unwrap(), *flag);
    }
    for (name, flag) in A::NAMED {
        assert_eq!(A::parse(&format!("VK_ACCESS_2_{name}_BIT")).unwrap(), *flag);
        assert_eq!(A::parse(&flag.to_string()).unwrap(), *flag);
    }
}
