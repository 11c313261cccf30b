//! Vulkan flag words as the names a gpusim trace takes (`docs/TRACE_FORMAT.md`, "Flags").
//!
//! One small pure function per vocabulary. The stage and access tables hold exactly the bits
//! gpusim's flag parser (`sim_core::sync::flags`) names; a bit outside a table is returned as
//! an error, so that the converter refuses the call naming it, rather than writing a number
//! the simulator would take without understanding it. Synchronization1's 32-bit masks have the
//! same bit values as synchronization2's low half, so one table serves both.

/// `VkPipelineStageFlags2` bits gpusim knows, by name.
const STAGES: &[(u64, &str)] = &[
    (0x1, "TOP_OF_PIPE"),
    (0x2, "DRAW_INDIRECT"),
    (0x4, "VERTEX_INPUT"),
    (0x8, "VERTEX_SHADER"),
    (0x10, "TESSELLATION_CONTROL_SHADER"),
    (0x20, "TESSELLATION_EVALUATION_SHADER"),
    (0x40, "GEOMETRY_SHADER"),
    (0x80, "FRAGMENT_SHADER"),
    (0x100, "EARLY_FRAGMENT_TESTS"),
    (0x200, "LATE_FRAGMENT_TESTS"),
    (0x400, "COLOR_ATTACHMENT_OUTPUT"),
    (0x800, "COMPUTE_SHADER"),
    (0x1000, "ALL_TRANSFER"),
    (0x2000, "BOTTOM_OF_PIPE"),
    (0x4000, "HOST"),
    (0x8000, "ALL_GRAPHICS"),
    (0x10000, "ALL_COMMANDS"),
    (0x40000, "CONDITIONAL_RENDERING"),
    (0x80000, "TASK_SHADER"),
    (0x100000, "MESH_SHADER"),
    (0x400000, "FRAGMENT_SHADING_RATE_ATTACHMENT"),
    (0x0100_0000, "TRANSFORM_FEEDBACK"),
    (0x1_0000_0000, "COPY"),
    (0x2_0000_0000, "RESOLVE"),
    (0x4_0000_0000, "BLIT"),
    (0x8_0000_0000, "CLEAR"),
    (0x10_0000_0000, "INDEX_INPUT"),
    (0x20_0000_0000, "VERTEX_ATTRIBUTE_INPUT"),
    (0x40_0000_0000, "PRE_RASTERIZATION_SHADERS"),
];

/// `VkAccessFlags2` bits gpusim knows, by name.
const ACCESSES: &[(u64, &str)] = &[
    (0x1, "INDIRECT_COMMAND_READ"),
    (0x2, "INDEX_READ"),
    (0x4, "VERTEX_ATTRIBUTE_READ"),
    (0x8, "UNIFORM_READ"),
    (0x10, "INPUT_ATTACHMENT_READ"),
    (0x20, "SHADER_READ"),
    (0x40, "SHADER_WRITE"),
    (0x80, "COLOR_ATTACHMENT_READ"),
    (0x100, "COLOR_ATTACHMENT_WRITE"),
    (0x200, "DEPTH_STENCIL_ATTACHMENT_READ"),
    (0x400, "DEPTH_STENCIL_ATTACHMENT_WRITE"),
    (0x800, "TRANSFER_READ"),
    (0x1000, "TRANSFER_WRITE"),
    (0x2000, "HOST_READ"),
    (0x4000, "HOST_WRITE"),
    (0x8000, "MEMORY_READ"),
    (0x10000, "MEMORY_WRITE"),
    (0x100000, "CONDITIONAL_RENDERING_READ"),
    (0x800000, "FRAGMENT_SHADING_RATE_ATTACHMENT_READ"),
    (0x0200_0000, "TRANSFORM_FEEDBACK_WRITE"),
    (0x0400_0000, "TRANSFORM_FEEDBACK_COUNTER_READ"),
    (0x0800_0000, "TRANSFORM_FEEDBACK_COUNTER_WRITE"),
    (0x1_0000_0000, "SHADER_SAMPLED_READ"),
    (0x2_0000_0000, "SHADER_STORAGE_READ"),
    (0x4_0000_0000, "SHADER_STORAGE_WRITE"),
];

/// `VkBufferUsageFlags` bits a trace's buffer may name.
const BUFFER_USAGES: &[(u64, &str)] = &[
    (0x1, "TRANSFER_SRC"),
    (0x2, "TRANSFER_DST"),
    (0x4, "UNIFORM_TEXEL_BUFFER"),
    (0x8, "STORAGE_TEXEL_BUFFER"),
    (0x10, "UNIFORM_BUFFER"),
    (0x20, "STORAGE_BUFFER"),
    (0x40, "INDEX_BUFFER"),
    (0x80, "VERTEX_BUFFER"),
    (0x100, "INDIRECT_BUFFER"),
    (0x20000, "SHADER_DEVICE_ADDRESS"),
];

/// `VkMemoryPropertyFlags` bits a trace's memory may have.
const MEMORY_PROPERTIES: &[(u64, &str)] = &[
    (0x1, "DEVICE_LOCAL"),
    (0x2, "HOST_VISIBLE"),
    (0x4, "HOST_COHERENT"),
    (0x8, "HOST_CACHED"),
];

/// `VkDependencyFlags` bits a trace's barrier may carry.
const DEPENDENCY_FLAGS: &[(u64, &str)] = &[(0x1, "BY_REGION")];

/// `VkCommandBufferUsageFlags` bits a trace's command buffer may carry.
const COMMAND_BUFFER_USAGES: &[(u64, &str)] =
    &[(0x1, "ONE_TIME_SUBMIT"), (0x4, "SIMULTANEOUS_USE")];

/// `bits` as `A|B|C` from `table` (`NONE` for 0), or the bits the table does not name.
fn names(bits: u64, table: &[(u64, &str)]) -> Result<String, u64> {
    let known = table.iter().fold(0, |acc, &(b, _)| acc | b);
    if bits & !known != 0 {
        return Err(bits & !known);
    }
    if bits == 0 {
        return Ok("NONE".to_owned());
    }
    Ok(table
        .iter()
        .filter(|&&(b, _)| bits & b != 0)
        .map(|&(_, n)| n)
        .collect::<Vec<_>>()
        .join("|"))
}

/// A stage mask (either synchronization version).
pub fn stages(bits: u64) -> Result<String, u64> {
    names(bits, STAGES)
}

/// An access mask (either synchronization version).
pub fn accesses(bits: u64) -> Result<String, u64> {
    names(bits, ACCESSES)
}

/// Memory property flags.
pub fn memory_properties(bits: u32) -> Result<String, u64> {
    names(u64::from(bits), MEMORY_PROPERTIES)
}

/// Dependency flags.
pub fn dependency_flags(bits: u32) -> Result<String, u64> {
    names(u64::from(bits), DEPENDENCY_FLAGS)
}

/// Buffer usage: the bits a trace names. Other bits (conditional rendering, acceleration
/// structures, ...) say what the buffer may be used for, not what is done with it, so they are
/// left out rather than refused; a command that uses the buffer that way is refused itself.
pub fn buffer_usage(bits: u32) -> String {
    let known = BUFFER_USAGES.iter().fold(0, |acc, &(b, _)| acc | b);
    names(u64::from(bits) & known, BUFFER_USAGES).unwrap_or_default()
}

/// Command buffer usage: the bits a trace names; `RENDER_PASS_CONTINUE` (secondary command
/// buffers only) is refused with those.
pub fn command_buffer_usage(bits: u32) -> Result<String, u64> {
    names(u64::from(bits), COMMAND_BUFFER_USAGES)
}

/// The name of a buffer descriptor type gpusim binds, with whether it is dynamic; `None`
/// for other descriptor types.
pub fn buffer_descriptor_type(descriptor_type: u32) -> Option<(&'static str, bool)> {
    match descriptor_type {
        6 => Some(("UNIFORM_BUFFER", false)),
        7 => Some(("STORAGE_BUFFER", false)),
        8 => Some(("UNIFORM_BUFFER", true)),
        9 => Some(("STORAGE_BUFFER", true)),
        _ => None,
    }
}

/// `VkDescriptorType`'s name, for messages.
pub fn descriptor_type_name(descriptor_type: u32) -> String {
    let name = match descriptor_type {
        0 => "SAMPLER",
        1 => "COMBINED_IMAGE_SAMPLER",
        2 => "SAMPLED_IMAGE",
        3 => "STORAGE_IMAGE",
        4 => "UNIFORM_TEXEL_BUFFER",
        5 => "STORAGE_TEXEL_BUFFER",
        6 => "UNIFORM_BUFFER",
        7 => "STORAGE_BUFFER",
        8 => "UNIFORM_BUFFER_DYNAMIC",
        9 => "STORAGE_BUFFER_DYNAMIC",
        10 => "INPUT_ATTACHMENT",
        1_000_138_000 => "INLINE_UNIFORM_BLOCK",
        1_000_150_000 => "ACCELERATION_STRUCTURE_KHR",
        _ => return format!("VkDescriptorType {descriptor_type}"),
    };
    format!("VK_DESCRIPTOR_TYPE_{name}")
}

/// `VkImageUsageFlags` bits a trace's image may name.
const IMAGE_USAGES: &[(u64, &str)] = &[
    (0x1, "TRANSFER_SRC"),
    (0x2, "TRANSFER_DST"),
    (0x4, "SAMPLED"),
    (0x8, "STORAGE"),
    (0x10, "COLOR_ATTACHMENT"),
    (0x20, "DEPTH_STENCIL_ATTACHMENT"),
    (0x40, "TRANSIENT_ATTACHMENT"),
    (0x80, "INPUT_ATTACHMENT"),
];

/// `VkImageCreateFlags` bits a trace's image may carry.
const IMAGE_CREATE_FLAGS: &[(u64, &str)] = &[
    (0x8, "MUTABLE_FORMAT"),
    (0x100, "EXTENDED_USAGE"),
    (0x400, "ALIAS"),
];

/// `VkImageAspectFlags` bits a trace names.
const ASPECTS: &[(u64, &str)] = &[(0x1, "COLOR"), (0x2, "DEPTH"), (0x4, "STENCIL")];

/// Image usage: the bits a trace names. Other bits (fragment density maps, video, host
/// transfers, ...) are left out, as for buffers: they say what the image may be used for, and a
/// command that uses it so is refused itself.
pub fn image_usage(bits: u32) -> String {
    let known = IMAGE_USAGES.iter().fold(0, |acc, &(b, _)| acc | b);
    names(u64::from(bits) & known, IMAGE_USAGES).unwrap_or_default()
}

/// Image create flags a trace takes; any other (sparse, cube compatible, 2D array compatible,
/// protected, ...) is returned, for the converter to refuse by name.
pub fn image_create_flags(bits: u32) -> Result<String, u64> {
    names(u64::from(bits), IMAGE_CREATE_FLAGS)
}

/// An aspect mask.
pub fn aspects(bits: u32) -> Result<String, u64> {
    names(u64::from(bits), ASPECTS)
}

/// The numeric class of a colour format's clear value: which member of `VkClearColorValue`
/// the driver reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearClass {
    /// `float32` (UNORM, SRGB, SFLOAT; depth/stencil formats take no colour).
    Float,
    /// `uint32` (UINT).
    Uint,
}

/// The formats gpusim simulates, by `VkFormat` value: their name and clear class.
const FORMATS: &[(u32, &str, ClearClass)] = &[
    (37, "R8G8B8A8_UNORM", ClearClass::Float),
    (43, "R8G8B8A8_SRGB", ClearClass::Float),
    (44, "B8G8R8A8_UNORM", ClearClass::Float),
    (97, "R16G16B16A16_SFLOAT", ClearClass::Float),
    (98, "R32_UINT", ClearClass::Uint),
    (100, "R32_SFLOAT", ClearClass::Float),
    (103, "R32G32_SFLOAT", ClearClass::Float),
    (106, "R32G32B32_SFLOAT", ClearClass::Float),
    (109, "R32G32B32A32_SFLOAT", ClearClass::Float),
    (126, "D32_SFLOAT", ClearClass::Float),
    (129, "D24_UNORM_S8_UINT", ClearClass::Float),
    (130, "D32_SFLOAT_S8_UINT", ClearClass::Float),
];

/// A format gpusim simulates: its name without `VK_FORMAT_`, and its clear class.
pub fn format(value: u32) -> Option<(&'static str, ClearClass)> {
    FORMATS
        .iter()
        .find(|f| f.0 == value)
        .map(|&(_, name, class)| (name, class))
}

/// An image layout a trace names (`VK_IMAGE_LAYOUT_` left off).
pub fn image_layout(value: u32) -> Option<&'static str> {
    Some(match value {
        0 => "UNDEFINED",
        1 => "GENERAL",
        2 => "COLOR_ATTACHMENT_OPTIMAL",
        3 => "DEPTH_STENCIL_ATTACHMENT_OPTIMAL",
        4 => "DEPTH_STENCIL_READ_ONLY_OPTIMAL",
        5 => "SHADER_READ_ONLY_OPTIMAL",
        6 => "TRANSFER_SRC_OPTIMAL",
        7 => "TRANSFER_DST_OPTIMAL",
        8 => "PREINITIALIZED",
        1_000_001_002 => "PRESENT_SRC_KHR",
        1_000_241_000 => "DEPTH_ATTACHMENT_OPTIMAL",
        1_000_241_001 => "DEPTH_READ_ONLY_OPTIMAL",
        1_000_241_002 => "STENCIL_ATTACHMENT_OPTIMAL",
        1_000_241_003 => "STENCIL_READ_ONLY_OPTIMAL",
        1_000_314_000 => "READ_ONLY_OPTIMAL",
        1_000_314_001 => "ATTACHMENT_OPTIMAL",
        _ => return None,
    })
}

/// `VkImageType`'s name in a trace.
pub fn image_type(value: u32) -> Option<&'static str> {
    ["1D", "2D", "3D"].get(value as usize).copied()
}

/// `VkImageViewType`'s name in a trace.
pub fn view_type(value: u32) -> Option<&'static str> {
    [
        "1D",
        "2D",
        "3D",
        "CUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "CUBE_ARRAY",
    ]
    .get(value as usize)
    .copied()
}

/// `VkFilter` (NEAREST, LINEAR; cubic filtering is not named).
pub fn filter(value: u32) -> Option<&'static str> {
    ["NEAREST", "LINEAR"].get(value as usize).copied()
}

/// `VkSamplerAddressMode`.
pub fn address_mode(value: u32) -> Option<&'static str> {
    [
        "REPEAT",
        "MIRRORED_REPEAT",
        "CLAMP_TO_EDGE",
        "CLAMP_TO_BORDER",
        "MIRROR_CLAMP_TO_EDGE",
    ]
    .get(value as usize)
    .copied()
}

/// `VkBorderColor` (the custom border colours of VK_EXT_custom_border_color are not named).
pub fn border_color(value: u32) -> Option<&'static str> {
    [
        "FLOAT_TRANSPARENT_BLACK",
        "INT_TRANSPARENT_BLACK",
        "FLOAT_OPAQUE_BLACK",
        "INT_OPAQUE_BLACK",
        "FLOAT_OPAQUE_WHITE",
        "INT_OPAQUE_WHITE",
    ]
    .get(value as usize)
    .copied()
}

/// The name of an image or sampler descriptor type gpusim binds to a dispatch; `None` for other
/// descriptor types.
pub fn image_descriptor_type(descriptor_type: u32) -> Option<&'static str> {
    match descriptor_type {
        0 => Some("SAMPLER"),
        1 => Some("COMBINED_IMAGE_SAMPLER"),
        2 => Some("SAMPLED_IMAGE"),
        3 => Some("STORAGE_IMAGE"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_become_names_and_unknown_bits_are_returned() {
        assert_eq!(
            stages(0x800 | 0x1000).as_deref(),
            Ok("COMPUTE_SHADER|ALL_TRANSFER")
        );
        assert_eq!(stages(0).as_deref(), Ok("NONE"));
        // VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR.
        assert_eq!(stages(0x200000 | 0x800), Err(0x200000));
        assert_eq!(
            accesses(0x4_0000_0000 | 0x20).as_deref(),
            Ok("SHADER_READ|SHADER_STORAGE_WRITE")
        );
        assert_eq!(
            memory_properties(0xf).as_deref(),
            Ok("DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED")
        );
        assert_eq!(memory_properties(0x20), Err(0x20));
        assert_eq!(buffer_usage(0x200 | 0x22), "TRANSFER_DST|STORAGE_BUFFER");
        assert_eq!(image_usage(0x2 | 0x4 | 0x100), "TRANSFER_DST|SAMPLED");
        assert_eq!(image_create_flags(0x400).as_deref(), Ok("ALIAS"));
        // VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT.
        assert_eq!(image_create_flags(0x10), Err(0x10));
        assert_eq!(aspects(0x6).as_deref(), Ok("DEPTH|STENCIL"));
        assert_eq!(format(37), Some(("R8G8B8A8_UNORM", ClearClass::Float)));
        assert_eq!(format(98), Some(("R32_UINT", ClearClass::Uint)));
        // VK_FORMAT_R8_UNORM is not one gpusim simulates.
        assert_eq!(format(9), None);
        assert_eq!(image_layout(7), Some("TRANSFER_DST_OPTIMAL"));
        assert_eq!(image_layout(1_000_117_000), None);
        assert_eq!(view_type(5), Some("2D_ARRAY"));
        assert_eq!(filter(1_000_015_000), None);
    }
}
