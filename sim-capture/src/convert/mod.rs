//! From a capture's decoded calls to a gpusim trace (`docs/TRACE_FORMAT.md`, version 1).
//!
//! # How a capture becomes a trace
//! The blocks are walked once, in file order, which is the order the application made its
//! calls. Each call either
//! - builds the trace's objects: memory, buffers, compute pipelines (each a trace `shader`
//!   with its own SPIR-V file, specialization frozen in, see `spirv`), queues, fences,
//!   semaphores, events;
//! - records a command into the command buffer being recorded (descriptor sets and push
//!   constants are state of the recording, resolved into each dispatch's `bindings` and
//!   `push_constants_u32` when the dispatch is recorded: Vulkan forbids updating a set a
//!   pending command buffer uses, so the state at recording is the state at execution);
//! - appends a host operation to the timeline (submissions, waits, flushes), FillMemory
//!   meta-data blocks becoming `host_write`s at their place in the file;
//! - is dropped, listed in [`Import::dropped`], when dropping it cannot change what the
//!   program synchronizes (instance and device setup, queries of the physical device, debug
//!   names and labels, query pools, destruction);
//! - or is refused: [`ImportError::Unsupported`] names the call and its block, for anything
//!   the trace cannot express yet (graphics, resolves, multisampled images, secondary command
//!   buffers, timeline semaphores, ...).
//!
//! Handles become ids named after their kind and creation order: `memory0`, `buffer1`,
//! `image0`, `sampler0`, `pipeline0`, `cb0` (a command buffer's later recordings `cb0.r1`,
//! `cb0.r2`, ...), `q0`, `fence0`, `semaphore0`, `event0`. Image views are not objects of a
//! trace: a view bound in a descriptor becomes its image, subresource range, view type and
//! format in the dispatch's binding.
//!
//! An image is placed where the capture binds it (memory and offset); its size and alignment
//! are gpusim's device rules, which the loader checks, so a binding gpusim's layout does not fit
//! is the loader's error, not this converter's.
//!
//! Memory property flags come from the capture's memory properties (the
//! SetDeviceMemoryProperties meta-data command or a vkGetPhysicalDeviceMemoryProperties
//! result), looked up by each allocation's memory type index when the trace is written.
//!
//! The trace is written as JSON text, one object a line in each list, for reading and
//! diffing; whether it loads is for the caller to check (the CLI checks it with gpusim's own
//! loader before writing it).

pub mod flags;
pub mod spirv;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::decode::{self, Call, Dependency, PNext};
use crate::error::CaptureError;
use crate::format::{META_FILL_MEMORY, meta_data_type_name};
use crate::reader::{Block, BlockKind, CaptureReader};

/// `VK_WHOLE_SIZE`.
const WHOLE_SIZE: u64 = u64::MAX;
/// `VK_QUEUE_FAMILY_IGNORED`.
const QUEUE_FAMILY_IGNORED: u32 = u32::MAX;
/// `VK_SHADER_STAGE_COMPUTE_BIT`.
const SHADER_STAGE_COMPUTE: u32 = 0x20;
/// `VK_PIPELINE_BIND_POINT_COMPUTE`.
const BIND_POINT_COMPUTE: u32 = 1;
/// `VK_FENCE_CREATE_SIGNALED_BIT`.
const FENCE_CREATE_SIGNALED: u32 = 1;
/// `VK_SUCCESS`.
const SUCCESS: i32 = 0;
/// The most push-constant bytes kept: every device's maxPushConstantsSize is far below it.
const MAX_PUSH_CONSTANT_BYTES: usize = 4096;

/// Calls dropped by name: they set up or query the instance and device, name or label
/// objects, time or count work, or destroy objects, none of which orders or moves bytes.
const DROPPED: &[&str] = &[
    "vkCreateInstance",
    "vkDestroyInstance",
    "vkCreateDevice",
    "vkDestroyDevice",
    "vkEnumerateInstanceExtensionProperties",
    "vkEnumerateInstanceLayerProperties",
    "vkEnumerateInstanceVersion",
    "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateDeviceLayerProperties",
    "vkEnumeratePhysicalDevices",
    "vkEnumeratePhysicalDeviceGroups",
    "vkEnumeratePhysicalDeviceGroupsKHR",
    "vkGetDeviceProcAddr",
    "vkGetInstanceProcAddr",
    "vkGetBufferMemoryRequirements",
    "vkGetBufferMemoryRequirements2",
    "vkGetBufferMemoryRequirements2KHR",
    "vkGetDeviceBufferMemoryRequirements",
    "vkGetDeviceBufferMemoryRequirementsKHR",
    "vkGetDeviceMemoryCommitment",
    "vkGetImageMemoryRequirements",
    "vkGetImageMemoryRequirements2",
    "vkGetImageMemoryRequirements2KHR",
    "vkGetDeviceImageMemoryRequirements",
    "vkGetDeviceImageMemoryRequirementsKHR",
    "vkGetImageSubresourceLayout",
    "vkCreatePipelineCache",
    "vkDestroyPipelineCache",
    "vkGetPipelineCacheData",
    "vkMergePipelineCaches",
    "vkCreateQueryPool",
    "vkDestroyQueryPool",
    "vkResetQueryPool",
    "vkResetQueryPoolEXT",
    "vkGetQueryPoolResults",
    "vkCmdResetQueryPool",
    "vkCmdBeginQuery",
    "vkCmdEndQuery",
    "vkCmdWriteTimestamp",
    "vkCmdWriteTimestamp2",
    "vkCmdWriteTimestamp2KHR",
    "vkDestroyBuffer",
    "vkDestroyImage",
    "vkDestroyImageView",
    "vkDestroySampler",
    "vkDestroyShaderModule",
    "vkDestroyPipeline",
    "vkDestroyPipelineLayout",
    "vkDestroyDescriptorSetLayout",
    "vkDestroyDescriptorPool",
    "vkDestroyCommandPool",
    "vkDestroyFence",
    "vkDestroySemaphore",
    "vkDestroyEvent",
    "vkFreeCommandBuffers",
    "vkFreeDescriptorSets",
    "vkResetDescriptorPool",
    "vkResetCommandPool",
    "vkResetCommandBuffer",
    "vkTrimCommandPool",
    "vkTrimCommandPoolKHR",
];

/// Prefixes of calls dropped: physical-device queries and debug names, labels and callbacks.
const DROPPED_PREFIXES: &[&str] = &[
    "vkGetPhysicalDevice",
    "vkSetDebugUtilsObject",
    "vkCmdBeginDebugUtilsLabel",
    "vkCmdEndDebugUtilsLabel",
    "vkCmdInsertDebugUtilsLabel",
    "vkQueueBeginDebugUtilsLabel",
    "vkQueueEndDebugUtilsLabel",
    "vkQueueInsertDebugUtilsLabel",
    "vkCreateDebugUtilsMessenger",
    "vkDestroyDebugUtilsMessenger",
    "vkSubmitDebugUtilsMessage",
    "vkDebugMarker",
    "vkCmdDebugMarker",
    "vkCreateDebugReportCallback",
    "vkDestroyDebugReportCallback",
    "vkDebugReportMessage",
];

/// Meta-data commands dropped: messages, window sizes, and descriptions of the machine
/// (memory properties aside, which are read).
const DROPPED_META: &[u16] = &[1, 3, 11, 13, 18, 22, 32];

/// An import that cannot be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The capture itself is damaged or its parameters do not decode.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A call (or meta-data command) the trace format cannot express yet.
    #[error("unsupported: {call} at call {index} (block at byte {offset}): {detail}")]
    Unsupported {
        /// The call's name.
        call: String,
        /// Block index (as `gfxrecon-convert` numbers blocks).
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// What it does that the trace cannot say.
        detail: String,
    },
    /// A call that contradicts the calls before it (an unknown handle, a buffer bound past its
    /// memory, a command buffer submitted while recording).
    #[error("block {index} at byte {offset}: {call}: {detail}")]
    Invalid {
        /// The call's name.
        call: String,
        /// Block index.
        index: u64,
        /// Byte offset of the block header.
        offset: u64,
        /// What is wrong.
        detail: String,
    },
}

impl ImportError {
    /// The block index and header offset the error is about, if any.
    pub fn block_position(&self) -> Option<(u64, u64)> {
        match self {
            Self::Capture(e) => e.block_position(),
            Self::Unsupported { index, offset, .. } | Self::Invalid { index, offset, .. } => {
                Some((*index, *offset))
            }
        }
    }
}

/// Calls dropped by one name: how many, and the first one's block index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// How many calls of this name were dropped.
    pub count: u64,
    /// The first one's block index.
    pub first_index: u64,
}

/// Options of an import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The trace's `name`.
    pub name: String,
    /// Prefix of each SPIR-V file's name (`t.` gives `t.pipeline0.spv`), relative to the trace.
    pub shader_file_prefix: String,
    /// Text for the trace's `description`.
    pub description: Option<String>,
}

/// A capture turned into a trace.
#[derive(Debug, Clone)]
pub struct Import {
    /// The trace, as JSON text.
    pub trace: String,
    /// Files the trace names (SPIR-V modules), relative to it, with their bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Calls (and meta-data commands, as `meta:Name`) dropped, by name.
    pub dropped: BTreeMap<String, Dropped>,
    /// Blocks read.
    pub blocks: u64,
}

/// Imports a whole capture in memory.
pub fn import_bytes(bytes: &[u8], options: &ImportOptions) -> Result<Import, ImportError> {
    import(CaptureReader::from_slice(bytes)?, options)
}

/// Imports the capture `reader` reads.
pub fn import<R: std::io::Read>(
    mut reader: CaptureReader<R>,
    options: &ImportOptions,
) -> Result<Import, ImportError> {
    let mut c = Converter::default();
    let mut blocks = 0;
    while let Some(block) = reader.next_block()? {
        blocks += 1;
        c.block(&block)?;
    }
    c.finish(options, blocks)
}

/// A memory object of the trace.
struct Memory {
    id: String,
    size: u64,
    memory_type_index: u32,
    /// Where it was allocated, for an error about its memory type.
    at: (u64, u64),
    /// The offset of the mapped range while mapped.
    mapped: Option<u64>,
}

/// A buffer of the trace.
struct Buffer {
    id: String,
    size: u64,
    usage: u32,
    /// Memory index and offset, once bound.
    bound: Option<(usize, u64)>,
}

/// An image of the trace.
struct Image {
    id: String,
    info: decode::ImageCreateInfo,
    /// Memory index and offset, once bound.
    bound: Option<(usize, u64)>,
}

/// A compute pipeline: a trace shader.
struct Pipeline {
    id: String,
    entry_point: String,
    file: String,
    frozen: spirv::Frozen,
    /// The pipeline layout's push-constant size, for checking pushes.
    push_constant_bytes: u32,
}

/// A descriptor written into a set.
#[derive(Clone, Copy)]
enum Descriptor {
    /// A buffer descriptor.
    Buffer {
        descriptor_type: u32,
        buffer: u64,
        offset: u64,
        range: u64,
    },
    /// An image or sampler descriptor: `view` is 0 for a sampler alone, `sampler` 0 for an
    /// image without one.
    Image {
        descriptor_type: u32,
        view: u64,
        sampler: u64,
        layout: u32,
    },
}

/// A descriptor set: its layout and what was written into it, by binding.
struct DescriptorSet {
    layout: u64,
    descriptors: BTreeMap<u32, Descriptor>,
}

/// A set bound in a recording, with the dynamic offset of each dynamic binding.
#[derive(Clone)]
struct BoundSet {
    set: u64,
    dynamic: BTreeMap<u32, u32>,
}

/// A command buffer being recorded.
struct Recording {
    id: String,
    usage: u32,
    /// Each command's JSON text, serialized as it is recorded: a `Value` a command would hold
    /// several small allocations each for the whole import, and a capture may record millions.
    commands: Vec<String>,
    pipeline: Option<usize>,
    sets: BTreeMap<u32, BoundSet>,
    push: Vec<u8>,
}

/// A command buffer handle.
struct CommandBuffer {
    number: usize,
    recordings: usize,
    recording: Option<Recording>,
    /// The id of the last finished recording (what a submission runs).
    recorded: Option<String>,
}

/// A fence.
struct Fence {
    id: String,
    /// Created signalled and not submitted or reset since: a wait on it returns at once and
    /// means nothing to the trace.
    initially_signalled: bool,
}

/// The state of a conversion; see the module's notes.
#[derive(Default)]
struct Converter {
    memory_types: Option<Vec<u32>>,
    memories: Vec<Memory>,
    memory_by_handle: HashMap<u64, usize>,
    buffers: Vec<Buffer>,
    buffer_by_handle: HashMap<u64, usize>,
    images: Vec<Image>,
    image_by_handle: HashMap<u64, usize>,
    image_views: HashMap<u64, decode::ImageViewCreateInfo>,
    samplers: Vec<Value>,
    sampler_by_handle: HashMap<u64, String>,
    modules: HashMap<u64, Vec<u32>>,
    set_layouts: HashMap<u64, Vec<decode::DescriptorSetLayoutBinding>>,
    pipeline_layouts: HashMap<u64, u32>,
    pipelines: Vec<Pipeline>,
    pipeline_by_handle: HashMap<u64, usize>,
    descriptor_sets: HashMap<u64, DescriptorSet>,
    command_buffers: HashMap<u64, CommandBuffer>,
    command_buffer_count: usize,
    recorded: Vec<(String, u32, Vec<String>)>,
    queues: Vec<String>,
    queue_by_handle: HashMap<u64, String>,
    fences: HashMap<u64, Fence>,
    fence_count: usize,
    semaphores: HashMap<u64, String>,
    semaphore_order: Vec<String>,
    events: HashMap<u64, String>,
    event_order: Vec<String>,
    timeline: Vec<Value>,
    dropped: BTreeMap<String, Dropped>,
}

/// Where a call is, for its errors.
#[derive(Clone, Copy)]
struct At<'a> {
    call: &'a str,
    index: u64,
    offset: u64,
}

impl At<'_> {
    fn unsupported(&self, detail: impl Into<String>) -> ImportError {
        ImportError::Unsupported {
            call: self.call.to_owned(),
            index: self.index,
            offset: self.offset,
            detail: detail.into(),
        }
    }

    fn invalid(&self, detail: impl Into<String>) -> ImportError {
        ImportError::Invalid {
            call: self.call.to_owned(),
            index: self.index,
            offset: self.offset,
            detail: detail.into(),
        }
    }

    fn stages(&self, bits: u64, what: &str) -> Result<String, ImportError> {
        flags::stages(bits).map_err(|b| {
            self.unsupported(format!(
                "{what} has stage bits 0x{b:x} the trace format does not name"
            ))
        })
    }

    fn accesses(&self, bits: u64, what: &str) -> Result<String, ImportError> {
        flags::accesses(bits).map_err(|b| {
            self.unsupported(format!(
                "{what} has access bits 0x{b:x} the trace format does not name"
            ))
        })
    }
}

/// A size, or `"WHOLE_SIZE"` for `VK_WHOLE_SIZE`.
fn size_value(size: u64) -> Value {
    if size == WHOLE_SIZE {
        json!("WHOLE_SIZE")
    } else {
        json!(size)
    }
}

/// An image layout's name, or the call refused for a layout the trace cannot name.
fn layout(at: At<'_>, value: u32, what: &str) -> Result<&'static str, ImportError> {
    flags::image_layout(value).ok_or_else(|| {
        at.unsupported(format!(
            "{what} is VkImageLayout {value}, which the trace format does not name"
        ))
    })
}

/// An aspect mask's names, or the call refused for aspects the trace cannot name (planes,
/// metadata, memory planes).
fn aspect_names(at: At<'_>, bits: u32) -> Result<String, ImportError> {
    flags::aspects(bits).map_err(|b| {
        at.unsupported(format!(
            "aspect bits 0x{b:x} (multi-planar and metadata aspects are not imported)"
        ))
    })
}

/// A level or layer count, `"WHOLE_SIZE"` for `VK_REMAINING_MIP_LEVELS`/`ARRAY_LAYERS`.
fn remaining(count: u32) -> Value {
    if count == u32::MAX {
        json!("WHOLE_SIZE")
    } else {
        json!(count)
    }
}

fn subresource_range(at: At<'_>, r: &decode::ImageSubresourceRange) -> Result<Value, ImportError> {
    Ok(
        json!({"aspect_mask": aspect_names(at, r.aspect_mask)?, "base_mip_level": r.base_mip_level,
              "level_count": remaining(r.level_count), "base_array_layer": r.base_array_layer,
              "layer_count": remaining(r.layer_count)}),
    )
}

fn subresource_layers(
    at: At<'_>,
    r: &decode::ImageSubresourceLayers,
) -> Result<Value, ImportError> {
    Ok(
        json!({"aspect_mask": aspect_names(at, r.aspect_mask)?, "mip_level": r.mip_level,
              "base_array_layer": r.base_array_layer, "layer_count": r.layer_count}),
    )
}

/// A copy's texel offset: the trace's are unsigned, and Vulkan's copies forbid negative ones.
fn texel_offset(at: At<'_>, o: [i32; 3], what: &str) -> Result<[u32; 3], ImportError> {
    let mut out = [0; 3];
    for (d, &v) in out.iter_mut().zip(&o) {
        *d = u32::try_from(v).map_err(|_| at.invalid(format!("{what} {o:?} is negative")))?;
    }
    Ok(out)
}

fn buffer_image_copy(at: At<'_>, r: &decode::BufferImageCopy) -> Result<Value, ImportError> {
    Ok(
        json!({"buffer_offset": r.buffer_offset, "buffer_row_length": r.buffer_row_length,
              "buffer_image_height": r.buffer_image_height,
              "image_subresource": subresource_layers(at, &r.image_subresource)?,
              "image_offset": texel_offset(at, r.image_offset, "imageOffset")?, "image_extent": r.image_extent}),
    )
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

impl Converter {
    fn drop_call(&mut self, name: String, index: u64) {
        let d = self.dropped.entry(name).or_insert(Dropped {
            count: 0,
            first_index: index,
        });
        d.count += 1;
    }

    fn block(&mut self, block: &Block) -> Result<(), ImportError> {
        fn at_meta<'n>(name: &'n str, block: &Block) -> At<'n> {
            At {
                call: name,
                index: block.index,
                offset: block.offset,
            }
        }
        match &block.kind {
            BlockKind::FunctionCall { api_call_id, .. } => {
                let Some(name) = block.call_name() else {
                    let name = crate::ids::display_call(*api_call_id);
                    return Err(at_meta(&name, block).unsupported("a call of another API or newer than this importer"));
                };
                let at = At {
                    call: name,
                    index: block.index,
                    offset: block.offset,
                };
                match decode::decode_call(block)? {
                    Some(call) => self.call(at, call),
                    None if DROPPED.contains(&name)
                        || DROPPED_PREFIXES.iter().any(|p| name.starts_with(p)) =>
                    {
                        self.drop_call(name.to_owned(), block.index);
                        Ok(())
                    }
                    None => Err(at.unsupported("the trace format cannot express this call yet")),
                }
            }
            BlockKind::MethodCall { api_call_id, .. } => {
                let name = crate::ids::display_call(*api_call_id);
                Err(at_meta(&name, block).unsupported("method calls are D3D12's, not Vulkan's"))
            }
            BlockKind::MetaData { .. } => {
                let ty = block.meta_data_type().unwrap_or_default();
                let name = format!(
                    "meta:{}",
                    meta_data_type_name(ty).map_or_else(|| ty.to_string(), str::to_owned)
                );
                if ty == META_FILL_MEMORY {
                    return self.fill_memory(block, at_meta(&name, block));
                }
                if let Some(props) = decode::decode_memory_properties_meta(block)? {
                    self.memory_types = Some(props.memory_types.iter().map(|t| t.property_flags).collect());
                    return Ok(());
                }
                if DROPPED_META.contains(&ty) {
                    self.drop_call(name, block.index);
                    return Ok(());
                }
                let detail = if matches!(ty, 5..=8 | 17) {
                    "the state snapshot of a trimmed capture is not imported yet (capture from the first frame)"
                } else {
                    "this meta-data command is not imported yet"
                };
                Err(at_meta(&name, block).unsupported(detail))
            }
            BlockKind::StateMarker { .. } => Err(at_meta("state marker", block)
                .unsupported("the state snapshot of a trimmed capture is not imported yet (capture from the first frame)")),
            BlockKind::FrameMarker { .. } | BlockKind::Annotation { .. } => Ok(()),
        }
    }

    fn fill_memory(&mut self, block: &Block, at: At<'_>) -> Result<(), ImportError> {
        let Some(fill) = block.fill_memory() else {
            return Err(at.invalid("the FillMemory command's size does not match its data"));
        };
        let &m = self
            .memory_by_handle
            .get(&fill.memory_id)
            .ok_or_else(|| at.invalid(format!("unknown VkDeviceMemory 0x{:x}", fill.memory_id)))?;
        let mem = &self.memories[m];
        let base = mem
            .mapped
            .ok_or_else(|| at.invalid(format!("{} is written while not mapped", mem.id)))?;
        let offset = base.checked_add(fill.memory_offset);
        let len = fill.data.len() as u64;
        if offset
            .and_then(|o| o.checked_add(len))
            .is_none_or(|end| end > mem.size)
        {
            return Err(at.invalid(format!(
                "{len} bytes written at mapped offset {} run past {}'s {} bytes",
                fill.memory_offset, mem.id, mem.size
            )));
        }
        self.timeline.push(json!({"op": "host_write", "memory": mem.id, "offset": offset, "data_hex": hex(fill.data)}));
        Ok(())
    }

    fn memory(&self, at: At<'_>, handle: u64) -> Result<usize, ImportError> {
        self.memory_by_handle
            .get(&handle)
            .copied()
            .ok_or_else(|| at.invalid(format!("unknown VkDeviceMemory 0x{handle:x}")))
    }

    fn buffer(&self, at: At<'_>, handle: u64) -> Result<&str, ImportError> {
        self.buffer_by_handle
            .get(&handle)
            .map(|&b| self.buffers[b].id.as_str())
            .ok_or_else(|| at.invalid(format!("unknown VkBuffer 0x{handle:x}")))
    }

    fn image(&self, at: At<'_>, handle: u64) -> Result<&Image, ImportError> {
        self.image_by_handle
            .get(&handle)
            .map(|&i| &self.images[i])
            .ok_or_else(|| at.invalid(format!("unknown VkImage 0x{handle:x}")))
    }

    fn queue(&self, at: At<'_>, handle: u64) -> Result<String, ImportError> {
        self.queue_by_handle.get(&handle).cloned().ok_or_else(|| {
            at.invalid(format!(
                "unknown VkQueue 0x{handle:x} (no vkGetDeviceQueue returned it)"
            ))
        })
    }

    fn semaphore(&self, at: At<'_>, handle: u64) -> Result<String, ImportError> {
        self.semaphores
            .get(&handle)
            .cloned()
            .ok_or_else(|| at.invalid(format!("unknown VkSemaphore 0x{handle:x}")))
    }

    fn event(&self, at: At<'_>, handle: u64) -> Result<String, ImportError> {
        self.events
            .get(&handle)
            .cloned()
            .ok_or_else(|| at.invalid(format!("unknown VkEvent 0x{handle:x}")))
    }

    fn recording(&mut self, at: At<'_>, handle: u64) -> Result<&mut Recording, ImportError> {
        self.command_buffers
            .get_mut(&handle)
            .ok_or_else(|| at.invalid(format!("unknown VkCommandBuffer 0x{handle:x}")))?
            .recording
            .as_mut()
            .ok_or_else(|| {
                at.invalid(format!(
                    "VkCommandBuffer 0x{handle:x} is not being recorded"
                ))
            })
    }

    fn record(&mut self, at: At<'_>, handle: u64, command: Value) -> Result<(), ImportError> {
        self.recording(at, handle)?
            .commands
            .push(command.to_string());
        Ok(())
    }

    /// The barrier lists of a dependency as trace JSON fields, into `out`.
    fn barriers(
        &self,
        at: At<'_>,
        dep: &Dependency,
        sync2: bool,
        out: &mut serde_json::Map<String, Value>,
    ) -> Result<(), ImportError> {
        let masks =
            |b: &decode::MemoryBarrier| -> Result<serde_json::Map<String, Value>, ImportError> {
                let mut m = serde_json::Map::new();
                if sync2 {
                    m.insert(
                        "src_stage_mask".into(),
                        json!(at.stages(b.src_stage_mask, "srcStageMask")?),
                    );
                }
                m.insert(
                    "src_access_mask".into(),
                    json!(at.accesses(b.src_access_mask, "srcAccessMask")?),
                );
                if sync2 {
                    m.insert(
                        "dst_stage_mask".into(),
                        json!(at.stages(b.dst_stage_mask, "dstStageMask")?),
                    );
                }
                m.insert(
                    "dst_access_mask".into(),
                    json!(at.accesses(b.dst_access_mask, "dstAccessMask")?),
                );
                Ok(m)
            };
        if !dep.memory_barriers.is_empty() {
            let list = dep
                .memory_barriers
                .iter()
                .map(|b| masks(b).map(Value::Object))
                .collect::<Result<Vec<_>, _>>()?;
            out.insert("memory_barriers".into(), Value::Array(list));
        }
        if !dep.buffer_memory_barriers.is_empty() {
            let mut list = Vec::new();
            for b in &dep.buffer_memory_barriers {
                let mut m = masks(&b.barrier)?;
                m.insert("buffer".into(), json!(self.buffer(at, b.buffer)?));
                m.insert("offset".into(), json!(b.offset));
                m.insert("size".into(), size_value(b.size));
                let (src, dst) = (b.src_queue_family_index, b.dst_queue_family_index);
                if src != dst && src != QUEUE_FAMILY_IGNORED && dst != QUEUE_FAMILY_IGNORED {
                    return Err(at.unsupported(format!(
                        "a queue family ownership transfer (family {src} to {dst})"
                    )));
                }
                list.push(Value::Object(m));
            }
            out.insert("buffer_memory_barriers".into(), Value::Array(list));
        }
        if !dep.image_memory_barriers.is_empty() {
            let mut list = Vec::new();
            for b in &dep.image_memory_barriers {
                let mut m = masks(&b.barrier)?;
                m.insert(
                    "old_layout".into(),
                    json!(layout(at, b.old_layout, "oldLayout")?),
                );
                m.insert(
                    "new_layout".into(),
                    json!(layout(at, b.new_layout, "newLayout")?),
                );
                m.insert("image".into(), json!(self.image(at, b.image)?.id));
                m.insert(
                    "subresource_range".into(),
                    subresource_range(at, &b.subresource_range)?,
                );
                let (src, dst) = (b.src_queue_family_index, b.dst_queue_family_index);
                if src != dst && src != QUEUE_FAMILY_IGNORED && dst != QUEUE_FAMILY_IGNORED {
                    return Err(at.unsupported(format!(
                        "a queue family ownership transfer (family {src} to {dst})"
                    )));
                }
                list.push(Value::Object(m));
            }
            out.insert("image_memory_barriers".into(), Value::Array(list));
        }
        Ok(())
    }

    /// A dependency as the trace's `VkDependencyInfo` object (synchronization2).
    fn dependency_info(&self, at: At<'_>, dep: &Dependency) -> Result<Value, ImportError> {
        let mut m = serde_json::Map::new();
        self.dependency_flags(at, dep.dependency_flags, &mut m)?;
        self.barriers(at, dep, true, &mut m)?;
        Ok(Value::Object(m))
    }

    fn dependency_flags(
        &self,
        at: At<'_>,
        bits: u32,
        out: &mut serde_json::Map<String, Value>,
    ) -> Result<(), ImportError> {
        if bits != 0 {
            let names = flags::dependency_flags(bits).map_err(|b| {
                at.unsupported(format!(
                    "dependencyFlags 0x{b:x} (device groups and multiview are not imported)"
                ))
            })?;
            out.insert("dependency_flags".into(), json!(names));
        }
        Ok(())
    }

    fn call(&mut self, at: At<'_>, call: Call) -> Result<(), ImportError> {
        match call {
            Call::GetDeviceQueue { queue, .. } => {
                if let Some(q) = queue
                    && !self.queue_by_handle.contains_key(&q)
                {
                    let id = format!("q{}", self.queues.len());
                    self.queues.push(id.clone());
                    self.queue_by_handle.insert(q, id);
                }
            }
            Call::MemoryProperties(props) => {
                self.memory_types = Some(
                    props
                        .memory_types
                        .iter()
                        .map(|t| t.property_flags)
                        .collect(),
                );
            }
            Call::AllocateMemory(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                for n in &c.info.next {
                    if let PNext::MemoryAllocateFlags { flags, .. } = n
                        && flags & 0x1 != 0
                    {
                        return Err(
                            at.unsupported("device groups (VK_MEMORY_ALLOCATE_DEVICE_MASK_BIT)")
                        );
                    }
                }
                let id = format!("memory{}", self.memories.len());
                self.memory_by_handle.insert(handle, self.memories.len());
                self.memories.push(Memory {
                    id,
                    size: c.info.allocation_size,
                    memory_type_index: c.info.memory_type_index,
                    at: (at.index, at.offset),
                    mapped: None,
                });
            }
            Call::FreeMemory { memory } => {
                // The memory's bytes stay in the trace (later allocations are new objects);
                // freeing orders nothing.
                if memory != 0 {
                    self.memory(at, memory)?;
                }
                self.drop_call(at.call.to_owned(), at.index);
            }
            Call::MapMemory {
                memory,
                offset,
                result,
                ..
            } => {
                let m = self.memory(at, memory)?;
                if result == SUCCESS {
                    self.memories[m].mapped = Some(offset);
                }
            }
            Call::UnmapMemory { memory } => {
                let m = self.memory(at, memory)?;
                self.memories[m].mapped = None;
            }
            Call::FlushMappedMemoryRanges { ranges, .. }
            | Call::InvalidateMappedMemoryRanges { ranges, .. } => {
                let op = if at.call == "vkFlushMappedMemoryRanges" {
                    "flush_mapped_memory_ranges"
                } else {
                    "invalidate_mapped_memory_ranges"
                };
                let mut list = Vec::new();
                for r in &ranges {
                    let m = self.memory(at, r.memory)?;
                    list.push(json!({"memory": self.memories[m].id, "offset": r.offset, "size": size_value(r.size)}));
                }
                self.timeline.push(json!({"op": op, "ranges": list}));
            }
            Call::CreateBuffer(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                // Sparse binding, residency and aliasing (1, 2, 4) and protected buffers (8).
                if c.info.flags & 0xf != 0 {
                    return Err(at.unsupported(format!(
                        "VkBufferCreateFlags 0x{:x} (sparse and protected buffers are not imported)",
                        c.info.flags
                    )));
                }
                self.buffer_by_handle.insert(handle, self.buffers.len());
                self.buffers.push(Buffer {
                    id: format!("buffer{}", self.buffers.len()),
                    size: c.info.size,
                    usage: c.info.usage,
                    bound: None,
                });
            }
            Call::BindBufferMemory { binds, .. } => {
                for b in binds {
                    self.buffer(at, b.buffer)?;
                    let m = self.memory(at, b.memory)?;
                    let buf = &mut self.buffers[self.buffer_by_handle[&b.buffer]];
                    let mem = &self.memories[m];
                    if b.memory_offset
                        .checked_add(buf.size)
                        .is_none_or(|end| end > mem.size)
                    {
                        return Err(at.invalid(format!(
                            "{} of {} bytes bound at offset {} runs past {}'s {} bytes",
                            buf.id, buf.size, b.memory_offset, mem.id, mem.size
                        )));
                    }
                    buf.bound = Some((m, b.memory_offset));
                }
            }
            Call::CreateImage(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                let info = &c.info;
                flags::image_create_flags(info.flags).map_err(|b| {
                    at.unsupported(format!(
                        "VkImageCreateFlags 0x{b:x} (sparse, cube-compatible, protected and other image flags are not imported)"
                    ))
                })?;
                if flags::format(info.format).is_none() {
                    return Err(at.unsupported(format!(
                        "VkFormat {} is not one of the formats gpusim simulates",
                        info.format
                    )));
                }
                if flags::image_type(info.image_type).is_none() {
                    return Err(at.invalid(format!("VkImageType {}", info.image_type)));
                }
                if info.samples != 1 {
                    return Err(
                        at.unsupported(format!("multisampled images ({} samples)", info.samples))
                    );
                }
                if info.tiling > 1 {
                    return Err(at.unsupported(format!(
                        "VkImageTiling {} (DRM format modifiers)",
                        info.tiling
                    )));
                }
                layout(at, info.initial_layout, "initialLayout")?;
                if let Some(n) = info.next.first() {
                    return Err(at.unsupported(format!("VkImageCreateInfo pNext {n:?}")));
                }
                self.image_by_handle.insert(handle, self.images.len());
                self.images.push(Image {
                    id: format!("image{}", self.images.len()),
                    info: c.info,
                    bound: None,
                });
            }
            Call::BindImageMemory { binds, .. } => {
                for b in binds {
                    self.image(at, b.image)?;
                    let m = self.memory(at, b.memory)?;
                    if b.memory_offset >= self.memories[m].size {
                        let mem = &self.memories[m];
                        return Err(at.invalid(format!(
                            "an image bound at offset {}, past {}'s {} bytes",
                            b.memory_offset, mem.id, mem.size
                        )));
                    }
                    // How much memory the image takes is the device's business: gpusim's
                    // loader places it by the profile's rules and says so if it does not fit.
                    let i = self.image_by_handle[&b.image];
                    self.images[i].bound = Some((m, b.memory_offset));
                }
            }
            Call::CreateImageView(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                self.image(at, c.info.image)?;
                if flags::view_type(c.info.view_type).is_none() {
                    return Err(at.invalid(format!("VkImageViewType {}", c.info.view_type)));
                }
                // Identity swizzles only: 0 is IDENTITY, and R, G, B, A (3..=6) in their own
                // places are the same thing.
                for (k, &c) in c.info.components.iter().enumerate() {
                    if c != 0 && c != 3 + k as u32 {
                        return Err(at.unsupported(format!(
                            "a view that swizzles its components ({:?})",
                            c
                        )));
                    }
                }
                self.image_views.insert(handle, c.info);
            }
            Call::CreateSampler(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                let sampler = self.sampler_json(at, &c.info)?;
                self.sampler_by_handle
                    .insert(handle, format!("sampler{}", self.samplers.len()));
                self.samplers.push(sampler);
            }
            Call::CmdClearColorImage {
                command_buffer,
                image,
                image_layout,
                color,
                ranges,
            } => {
                let im = self.image(at, image)?;
                let class = flags::format(im.info.format).map_or(flags::ClearClass::Float, |f| f.1);
                let color = match class {
                    flags::ClearClass::Uint => json!({"uint32": color}),
                    flags::ClearClass::Float => {
                        let v = color.map(f32::from_bits);
                        if v.iter().any(|x| !x.is_finite()) {
                            return Err(at.unsupported(format!(
                                "a clear colour that is not a finite number ({v:?})"
                            )));
                        }
                        json!({"float32": v})
                    }
                };
                let ranges = ranges
                    .iter()
                    .map(|r| subresource_range(at, r))
                    .collect::<Result<Vec<_>, _>>()?;
                let command = json!({"cmd": "clear_color_image", "image": im.id, "image_layout": layout(at, image_layout, "imageLayout")?,
                                     "color": color, "ranges": ranges});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdClearDepthStencilImage {
                command_buffer,
                image,
                image_layout,
                depth_stencil: (depth, stencil),
                ranges,
            } => {
                let im = self.image(at, image)?;
                let depth = f32::from_bits(depth);
                if !depth.is_finite() {
                    return Err(at.invalid(format!("a clear depth of {depth}")));
                }
                let ranges = ranges
                    .iter()
                    .map(|r| subresource_range(at, r))
                    .collect::<Result<Vec<_>, _>>()?;
                let command = json!({"cmd": "clear_depth_stencil_image", "image": im.id, "image_layout": layout(at, image_layout, "imageLayout")?,
                                     "depth_stencil": {"depth": depth, "stencil": stencil}, "ranges": ranges});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdCopyBufferToImage {
                command_buffer,
                src_buffer,
                dst_image,
                dst_image_layout,
                regions,
            } => {
                let src = self.buffer(at, src_buffer)?;
                let dst = &self.image(at, dst_image)?.id;
                let regions = regions
                    .iter()
                    .map(|r| buffer_image_copy(at, r))
                    .collect::<Result<Vec<_>, _>>()?;
                let command = json!({"cmd": "copy_buffer_to_image", "src_buffer": src, "dst_image": dst,
                                     "dst_image_layout": layout(at, dst_image_layout, "dstImageLayout")?, "regions": regions});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdCopyImageToBuffer {
                command_buffer,
                src_image,
                src_image_layout,
                dst_buffer,
                regions,
            } => {
                let src = &self.image(at, src_image)?.id;
                let dst = self.buffer(at, dst_buffer)?;
                let regions = regions
                    .iter()
                    .map(|r| buffer_image_copy(at, r))
                    .collect::<Result<Vec<_>, _>>()?;
                let command = json!({"cmd": "copy_image_to_buffer", "src_image": src,
                                     "src_image_layout": layout(at, src_image_layout, "srcImageLayout")?, "dst_buffer": dst, "regions": regions});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdCopyImage {
                command_buffer,
                src_image,
                src_image_layout,
                dst_image,
                dst_image_layout,
                regions,
            } => {
                let src = &self.image(at, src_image)?.id;
                let dst = &self.image(at, dst_image)?.id;
                let mut list = Vec::new();
                for r in &regions {
                    list.push(
                        json!({"src_subresource": subresource_layers(at, &r.src_subresource)?,
                                     "src_offset": texel_offset(at, r.src_offset, "srcOffset")?,
                                     "dst_subresource": subresource_layers(at, &r.dst_subresource)?,
                                     "dst_offset": texel_offset(at, r.dst_offset, "dstOffset")?,
                                     "extent": r.extent}),
                    );
                }
                let command = json!({"cmd": "copy_image", "src_image": src, "src_image_layout": layout(at, src_image_layout, "srcImageLayout")?,
                                     "dst_image": dst, "dst_image_layout": layout(at, dst_image_layout, "dstImageLayout")?, "regions": list});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdBlitImage {
                command_buffer,
                src_image,
                src_image_layout,
                dst_image,
                dst_image_layout,
                regions,
                filter,
            } => {
                let src = &self.image(at, src_image)?.id;
                let dst = &self.image(at, dst_image)?.id;
                let mut list = Vec::new();
                for r in &regions {
                    list.push(json!({"src_subresource": subresource_layers(at, &r.src_subresource)?, "src_offsets": r.src_offsets,
                                     "dst_subresource": subresource_layers(at, &r.dst_subresource)?, "dst_offsets": r.dst_offsets}));
                }
                let filter = flags::filter(filter).ok_or_else(|| {
                    at.unsupported(format!("VkFilter {filter} (cubic filtering)"))
                })?;
                let command = json!({"cmd": "blit_image", "src_image": src, "src_image_layout": layout(at, src_image_layout, "srcImageLayout")?,
                                     "dst_image": dst, "dst_image_layout": layout(at, dst_image_layout, "dstImageLayout")?,
                                     "regions": list, "filter": filter});
                self.record(at, command_buffer, command)?;
            }
            Call::CreateShaderModule(c) => {
                if let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) {
                    self.modules.insert(handle, c.info);
                }
            }
            Call::CreateDescriptorSetLayout(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                for b in &c.info {
                    let bound_one = flags::buffer_descriptor_type(b.descriptor_type).is_some()
                        || flags::image_descriptor_type(b.descriptor_type).is_some();
                    if bound_one && b.descriptor_count > 1 {
                        return Err(at.unsupported(format!(
                            "binding {} is an array of {} descriptors (a dispatch binds one resource per binding)",
                            b.binding, b.descriptor_count
                        )));
                    }
                }
                self.set_layouts.insert(handle, c.info);
            }
            Call::CreatePipelineLayout(c) => {
                if let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) {
                    let bytes = c
                        .info
                        .push_constant_ranges
                        .iter()
                        .map(|r| r.offset.saturating_add(r.size))
                        .max()
                        .unwrap_or(0);
                    self.pipeline_layouts.insert(handle, bytes);
                }
            }
            Call::CreateComputePipelines {
                infos,
                pipelines,
                result,
            } => {
                if result != SUCCESS {
                    return Ok(());
                }
                for (info, handle) in infos.iter().zip(pipelines) {
                    self.compute_pipeline(at, info, handle)?;
                }
            }
            Call::CreateDescriptorPool(_) | Call::CreateCommandPool(_) => {}
            Call::AllocateDescriptorSets {
                set_layouts,
                sets,
                result,
                ..
            } => {
                if result != SUCCESS {
                    return Ok(());
                }
                for (set, layout) in sets.into_iter().zip(set_layouts) {
                    if !self.set_layouts.contains_key(&layout) {
                        return Err(
                            at.invalid(format!("unknown VkDescriptorSetLayout 0x{layout:x}"))
                        );
                    }
                    self.descriptor_sets.insert(
                        set,
                        DescriptorSet {
                            layout,
                            descriptors: BTreeMap::new(),
                        },
                    );
                }
            }
            Call::UpdateDescriptorSets { writes, copies } => {
                self.update_descriptor_sets(at, &writes, &copies)?
            }
            Call::AllocateCommandBuffers {
                level,
                command_buffers,
                result,
                ..
            } => {
                if result != SUCCESS {
                    return Ok(());
                }
                if level != 0 {
                    return Err(at.unsupported(
                        "secondary command buffers (vkCmdExecuteCommands) are not imported yet",
                    ));
                }
                for cb in command_buffers {
                    self.command_buffers.insert(
                        cb,
                        CommandBuffer {
                            number: self.command_buffer_count,
                            recordings: 0,
                            recording: None,
                            recorded: None,
                        },
                    );
                    self.command_buffer_count += 1;
                }
            }
            Call::BeginCommandBuffer {
                command_buffer,
                flags: usage,
                inheritance,
            } => {
                if inheritance {
                    return Err(at.unsupported(
                        "secondary command buffers (inheritance info) are not imported yet",
                    ));
                }
                flags::command_buffer_usage(usage)
                    .map_err(|b| at.unsupported(format!("VkCommandBufferUsageFlags 0x{b:x}")))?;
                let cb = self
                    .command_buffers
                    .get_mut(&command_buffer)
                    .ok_or_else(|| {
                        at.invalid(format!("unknown VkCommandBuffer 0x{command_buffer:x}"))
                    })?;
                let id = match cb.recordings {
                    0 => format!("cb{}", cb.number),
                    n => format!("cb{}.r{n}", cb.number),
                };
                cb.recordings += 1;
                cb.recording = Some(Recording {
                    id,
                    usage,
                    commands: Vec::new(),
                    pipeline: None,
                    sets: BTreeMap::new(),
                    push: Vec::new(),
                });
            }
            Call::EndCommandBuffer { command_buffer } => {
                self.recording(at, command_buffer)?;
                let cb = self
                    .command_buffers
                    .get_mut(&command_buffer)
                    .expect("checked above");
                let r = cb.recording.take().expect("checked above");
                cb.recorded = Some(r.id.clone());
                self.recorded.push((r.id, r.usage, r.commands));
            }
            Call::CmdBindPipeline {
                command_buffer,
                bind_point,
                pipeline,
            } => {
                if bind_point != BIND_POINT_COMPUTE {
                    return Err(
                        at.unsupported("graphics and ray-tracing pipelines are not imported yet")
                    );
                }
                let &p = self.pipeline_by_handle.get(&pipeline).ok_or_else(|| {
                    at.invalid(format!("unknown compute VkPipeline 0x{pipeline:x}"))
                })?;
                self.recording(at, command_buffer)?.pipeline = Some(p);
            }
            Call::CmdBindDescriptorSets {
                command_buffer,
                bind_point,
                first_set,
                sets,
                dynamic_offsets,
                ..
            } => {
                if bind_point != BIND_POINT_COMPUTE {
                    return Err(at.unsupported("descriptor sets bound for graphics or ray tracing"));
                }
                let mut offsets = dynamic_offsets.iter();
                let mut bound = Vec::new();
                for (i, set) in sets.iter().enumerate() {
                    let s = self
                        .descriptor_sets
                        .get(set)
                        .ok_or_else(|| at.invalid(format!("unknown VkDescriptorSet 0x{set:x}")))?;
                    let mut layout: Vec<_> = self.set_layouts[&s.layout].clone();
                    layout.sort_by_key(|b| b.binding);
                    let mut dynamic = BTreeMap::new();
                    for b in layout.iter().filter(|b| {
                        matches!(
                            flags::buffer_descriptor_type(b.descriptor_type),
                            Some((_, true))
                        )
                    }) {
                        let &o = offsets.next().ok_or_else(|| {
                            at.invalid("fewer dynamic offsets than dynamic descriptors")
                        })?;
                        dynamic.insert(b.binding, o);
                    }
                    let index = first_set
                        .checked_add(i as u32)
                        .ok_or_else(|| at.invalid("set number overflows"))?;
                    bound.push((index, BoundSet { set: *set, dynamic }));
                }
                if offsets.next().is_some() {
                    return Err(at.invalid("more dynamic offsets than dynamic descriptors"));
                }
                self.recording(at, command_buffer)?.sets.extend(bound);
            }
            Call::CmdPushConstants {
                command_buffer,
                offset,
                values,
                ..
            } => {
                let end = (offset as usize).saturating_add(values.len());
                if end > MAX_PUSH_CONSTANT_BYTES {
                    return Err(at.invalid(format!(
                        "push constants up to byte {end}, past {MAX_PUSH_CONSTANT_BYTES}"
                    )));
                }
                let r = self.recording(at, command_buffer)?;
                if r.push.len() < end {
                    r.push.resize(end, 0);
                }
                r.push[offset as usize..end].copy_from_slice(&values);
            }
            Call::CmdDispatch {
                command_buffer,
                base_group,
                group_count,
            } => {
                let command = self.dispatch(at, command_buffer, base_group, group_count)?;
                self.record(at, command_buffer, command)?;
            }
            Call::CmdFillBuffer {
                command_buffer,
                dst_buffer,
                dst_offset,
                size,
                data,
            } => {
                let b = self.buffer(at, dst_buffer)?;
                let command = json!({"cmd": "fill_buffer", "dst_buffer": b, "dst_offset": dst_offset, "size": size_value(size), "data": data});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdUpdateBuffer {
                command_buffer,
                dst_buffer,
                dst_offset,
                data,
            } => {
                let b = self.buffer(at, dst_buffer)?;
                let command = json!({"cmd": "update_buffer", "dst_buffer": b, "dst_offset": dst_offset, "data_hex": hex(&data)});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdCopyBuffer {
                command_buffer,
                src_buffer,
                dst_buffer,
                regions,
            } => {
                let src = self.buffer(at, src_buffer)?;
                let dst = self.buffer(at, dst_buffer)?;
                let regions: Vec<Value> = regions
                    .iter()
                    .map(|r| json!({"src_offset": r.src_offset, "dst_offset": r.dst_offset, "size": r.size}))
                    .collect();
                let command = json!({"cmd": "copy_buffer", "src_buffer": src, "dst_buffer": dst, "regions": regions});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdPipelineBarrier {
                command_buffer,
                dependency,
                sync2,
            } => {
                let mut m = serde_json::Map::new();
                m.insert("cmd".into(), json!("pipeline_barrier"));
                if !sync2 {
                    m.insert(
                        "src_stage_mask".into(),
                        json!(at.stages(dependency.src_stage_mask, "srcStageMask")?),
                    );
                    m.insert(
                        "dst_stage_mask".into(),
                        json!(at.stages(dependency.dst_stage_mask, "dstStageMask")?),
                    );
                }
                self.dependency_flags(at, dependency.dependency_flags, &mut m)?;
                self.barriers(at, &dependency, sync2, &mut m)?;
                self.record(at, command_buffer, Value::Object(m))?;
            }
            Call::CmdSetEvent {
                command_buffer,
                event,
                stage_mask,
                dependency,
            } => {
                let e = self.event(at, event)?;
                let command = match dependency {
                    Some(dep) => {
                        json!({"cmd": "set_event", "event": e, "dependency": self.dependency_info(at, &dep)?})
                    }
                    None => {
                        json!({"cmd": "set_event", "event": e, "stage_mask": at.stages(stage_mask, "stageMask")?})
                    }
                };
                self.record(at, command_buffer, command)?;
            }
            Call::CmdResetEvent {
                command_buffer,
                event,
                stage_mask,
            } => {
                let e = self.event(at, event)?;
                let command = json!({"cmd": "reset_event", "event": e, "stage_mask": at.stages(stage_mask, "stageMask")?});
                self.record(at, command_buffer, command)?;
            }
            Call::CmdWaitEvents {
                command_buffer,
                events,
                dependencies,
                sync2,
            } => {
                let events = events
                    .iter()
                    .map(|&e| self.event(at, e))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut m = serde_json::Map::new();
                m.insert("cmd".into(), json!("wait_events"));
                m.insert("events".into(), json!(events));
                if sync2 {
                    let deps = dependencies
                        .iter()
                        .map(|d| self.dependency_info(at, d))
                        .collect::<Result<Vec<_>, _>>()?;
                    m.insert("dependencies".into(), Value::Array(deps));
                } else if let Some(dep) = dependencies.first() {
                    m.insert(
                        "src_stage_mask".into(),
                        json!(at.stages(dep.src_stage_mask, "srcStageMask")?),
                    );
                    m.insert(
                        "dst_stage_mask".into(),
                        json!(at.stages(dep.dst_stage_mask, "dstStageMask")?),
                    );
                    self.barriers(at, dep, false, &mut m)?;
                }
                self.record(at, command_buffer, Value::Object(m))?;
            }
            Call::QueueSubmit {
                queue,
                submits,
                fence,
                result,
            } => {
                if result != SUCCESS {
                    return Err(
                        at.unsupported(format!("a submission that failed (VkResult {result})"))
                    );
                }
                self.queue_submit(at, queue, &submits, fence)?;
            }
            Call::CreateFence(c) => {
                if let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) {
                    let id = format!("fence{}", self.fence_count);
                    self.fence_count += 1;
                    self.fences.insert(
                        handle,
                        Fence {
                            id,
                            initially_signalled: c.info & FENCE_CREATE_SIGNALED != 0,
                        },
                    );
                }
            }
            Call::CreateSemaphore(c) => {
                let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) else {
                    return Ok(());
                };
                if c.info.iter().any(|n| {
                    matches!(
                        n,
                        PNext::SemaphoreType {
                            semaphore_type: 1,
                            ..
                        }
                    )
                }) {
                    return Err(at.unsupported("timeline semaphores are not imported yet"));
                }
                let id = format!("semaphore{}", self.semaphore_order.len());
                self.semaphore_order.push(id.clone());
                self.semaphores.insert(handle, id);
            }
            Call::CreateEvent(c) => {
                if c.info != 0 {
                    return Err(at.unsupported(
                        "device-only events (VK_EVENT_CREATE_DEVICE_ONLY_BIT) are not imported yet",
                    ));
                }
                if let Some(handle) = c.handle.filter(|_| c.result == SUCCESS) {
                    let id = format!("event{}", self.event_order.len());
                    self.event_order.push(id.clone());
                    self.events.insert(handle, id);
                }
            }
            Call::WaitForFences {
                fences,
                wait_all,
                result,
                ..
            } => {
                let mut ids = Vec::new();
                for f in &fences {
                    let fence = self
                        .fences
                        .get(f)
                        .ok_or_else(|| at.invalid(format!("unknown VkFence 0x{f:x}")))?;
                    if !fence.initially_signalled {
                        ids.push(fence.id.clone());
                    }
                }
                if !wait_all && fences.len() > 1 {
                    return Err(
                        at.unsupported("a wait for any one of several fences (waitAll false)")
                    );
                }
                // A wait that timed out (or a status not yet signalled) ordered nothing.
                if result == SUCCESS && !ids.is_empty() {
                    self.timeline
                        .push(json!({"op": "wait_for_fences", "fences": ids}));
                }
            }
            Call::ResetFences { fences } => {
                let mut ids = Vec::new();
                for f in &fences {
                    let fence = self
                        .fences
                        .get_mut(f)
                        .ok_or_else(|| at.invalid(format!("unknown VkFence 0x{f:x}")))?;
                    if fence.initially_signalled {
                        // Resetting a fence created signalled makes it what a trace's fence
                        // is from the start.
                        fence.initially_signalled = false;
                    } else {
                        ids.push(fence.id.clone());
                    }
                }
                if !ids.is_empty() {
                    self.timeline
                        .push(json!({"op": "reset_fences", "fences": ids}));
                }
            }
            Call::SetEvent { event } => {
                let e = self.event(at, event)?;
                self.timeline.push(json!({"op": "set_event", "event": e}));
            }
            Call::ResetEvent { .. } => {
                return Err(at.unsupported(
                    "resetting an event from the host is not in the trace format yet",
                ));
            }
            Call::QueueWaitIdle { queue, .. } => {
                let q = self.queue(at, queue)?;
                self.timeline
                    .push(json!({"op": "queue_wait_idle", "queue": q}));
            }
            Call::DeviceWaitIdle { .. } => self.timeline.push(json!({"op": "device_wait_idle"})),
        }
        Ok(())
    }

    fn compute_pipeline(
        &mut self,
        at: At<'_>,
        info: &decode::ComputePipelineCreateInfo,
        handle: u64,
    ) -> Result<(), ImportError> {
        if info.stage.stage != SHADER_STAGE_COMPUTE {
            return Err(at.invalid(format!(
                "a compute pipeline with shader stage 0x{:x}",
                info.stage.stage
            )));
        }
        let words = self.modules.get(&info.stage.module).ok_or_else(|| {
            at.invalid(format!("unknown VkShaderModule 0x{:x}", info.stage.module))
        })?;
        let frozen = spirv::freeze(words, info.stage.specialization.as_ref())
            .map_err(|e| at.unsupported(e))?;
        let push_constant_bytes = self
            .pipeline_layouts
            .get(&info.layout)
            .copied()
            .unwrap_or(0);
        let n = self.pipelines.len();
        self.pipeline_by_handle.insert(handle, n);
        self.pipelines.push(Pipeline {
            id: format!("pipeline{n}"),
            entry_point: info.stage.name.clone(),
            file: String::new(),
            frozen,
            push_constant_bytes,
        });
        Ok(())
    }

    fn update_descriptor_sets(
        &mut self,
        at: At<'_>,
        writes: &[decode::WriteDescriptorSet],
        copies: &[decode::CopyDescriptorSet],
    ) -> Result<(), ImportError> {
        for w in writes {
            let image = flags::image_descriptor_type(w.descriptor_type);
            if flags::buffer_descriptor_type(w.descriptor_type).is_none() && image.is_none() {
                return Err(at.unsupported(format!(
                    "{} descriptors (buffer, image and sampler descriptors only, for now)",
                    flags::descriptor_type_name(w.descriptor_type)
                )));
            }
            let infos = if image.is_some() {
                w.image_info.len()
            } else {
                w.buffer_info.len()
            };
            if w.dst_array_element != 0 || w.descriptor_count != 1 || infos != 1 {
                return Err(at.unsupported(format!(
                    "a write of {} descriptors from array element {} (one resource per binding)",
                    w.descriptor_count, w.dst_array_element
                )));
            }
            let descriptor = if image.is_some() {
                let info = w.image_info[0];
                // The layer writes a real handle only where the type uses it (the other is the
                // application's raw value), so only that one is looked up.
                let uses_sampler = matches!(w.descriptor_type, 0 | 1);
                let uses_view = w.descriptor_type != 0;
                let view = if uses_view { info.image_view } else { 0 };
                let sampler = if uses_sampler { info.sampler } else { 0 };
                if view != 0 && !self.image_views.contains_key(&view) {
                    return Err(at.invalid(format!("unknown VkImageView 0x{view:x}")));
                }
                if sampler != 0 && !self.sampler_by_handle.contains_key(&sampler) {
                    return Err(at.invalid(format!("unknown VkSampler 0x{sampler:x}")));
                }
                Descriptor::Image {
                    descriptor_type: w.descriptor_type,
                    view,
                    sampler,
                    layout: info.image_layout,
                }
            } else {
                let info = w.buffer_info[0];
                if info.buffer != 0 {
                    self.buffer(at, info.buffer)?;
                }
                Descriptor::Buffer {
                    descriptor_type: w.descriptor_type,
                    buffer: info.buffer,
                    offset: info.offset,
                    range: info.range,
                }
            };
            let set = self
                .descriptor_sets
                .get_mut(&w.dst_set)
                .ok_or_else(|| at.invalid(format!("unknown VkDescriptorSet 0x{:x}", w.dst_set)))?;
            set.descriptors.insert(w.dst_binding, descriptor);
        }
        for c in copies {
            if c.descriptor_count != 1 || c.src_array_element != 0 || c.dst_array_element != 0 {
                return Err(at.unsupported("a copy of descriptor arrays"));
            }
            let d = self
                .descriptor_sets
                .get(&c.src_set)
                .ok_or_else(|| at.invalid(format!("unknown VkDescriptorSet 0x{:x}", c.src_set)))?
                .descriptors
                .get(&c.src_binding)
                .copied();
            let dst = self
                .descriptor_sets
                .get_mut(&c.dst_set)
                .ok_or_else(|| at.invalid(format!("unknown VkDescriptorSet 0x{:x}", c.dst_set)))?;
            match d {
                Some(d) => dst.descriptors.insert(c.dst_binding, d),
                None => dst.descriptors.remove(&c.dst_binding),
            };
        }
        Ok(())
    }

    fn dispatch(
        &mut self,
        at: At<'_>,
        command_buffer: u64,
        base_group: [u32; 3],
        group_count: [u32; 3],
    ) -> Result<Value, ImportError> {
        let r = self.recording(at, command_buffer)?;
        let p = r
            .pipeline
            .ok_or_else(|| at.invalid("no compute pipeline is bound"))?;
        let (sets, push) = (r.sets.clone(), r.push.clone());
        let pipeline = &self.pipelines[p];
        let mut bindings = Vec::new();
        for &(set, binding) in &pipeline.frozen.bindings {
            let missing = || {
                at.invalid(format!(
                    "{} uses set {set} binding {binding}, and no descriptor is bound there",
                    pipeline.id
                ))
            };
            let bound = sets.get(&set).ok_or_else(missing)?;
            let d = self.descriptor_sets[&bound.set]
                .descriptors
                .get(&binding)
                .copied()
                .ok_or_else(missing)?;
            match d {
                Descriptor::Buffer {
                    descriptor_type,
                    buffer,
                    offset,
                    range,
                } => {
                    let (ty, _) = flags::buffer_descriptor_type(descriptor_type)
                        .expect("only buffer descriptor types are written as buffers");
                    let dynamic = u64::from(bound.dynamic.get(&binding).copied().unwrap_or(0));
                    let buffer = self.buffer(at, buffer)?;
                    let offset = offset.checked_add(dynamic).ok_or_else(|| {
                        at.invalid("a descriptor's offset plus its dynamic offset overflows")
                    })?;
                    bindings.push(
                        json!({"set": set, "binding": binding, "buffer": buffer, "offset": offset,
                                         "range": size_value(range), "descriptor_type": ty}),
                    );
                }
                Descriptor::Image {
                    descriptor_type,
                    view,
                    sampler,
                    layout: image_layout,
                } => {
                    bindings.push(self.image_binding(
                        at,
                        (set, binding),
                        descriptor_type,
                        view,
                        sampler,
                        image_layout,
                        missing,
                    )?);
                }
            }
        }
        let mut m = serde_json::Map::new();
        m.insert("cmd".into(), json!("dispatch"));
        m.insert("shader".into(), json!(pipeline.id));
        m.insert("group_count".into(), json!(group_count));
        if base_group != [0; 3] {
            m.insert("base_group".into(), json!(base_group));
        }
        m.insert("bindings".into(), Value::Array(bindings));
        if pipeline.frozen.push_constants && !push.is_empty() {
            let bytes = push
                .len()
                .max(pipeline.push_constant_bytes as usize)
                .div_ceil(4)
                * 4;
            let mut push = push;
            push.resize(bytes.min(MAX_PUSH_CONSTANT_BYTES), 0);
            let words: Vec<u32> = push
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            m.insert("push_constants_u32".into(), json!(words));
        }
        Ok(Value::Object(m))
    }

    /// An image or sampler descriptor as a dispatch's binding: the view's image, subresources,
    /// type and (when it differs from the image's) format, the layout, and the sampler.
    #[allow(clippy::too_many_arguments)]
    fn image_binding(
        &self,
        at: At<'_>,
        (set, binding): (u32, u32),
        descriptor_type: u32,
        view: u64,
        sampler: u64,
        image_layout: u32,
        missing: impl Fn() -> ImportError,
    ) -> Result<Value, ImportError> {
        let ty = flags::image_descriptor_type(descriptor_type)
            .expect("only image descriptor types are written as images");
        let mut m = serde_json::Map::new();
        m.insert("set".into(), json!(set));
        m.insert("binding".into(), json!(binding));
        if descriptor_type != 0 {
            let v = self.image_views.get(&view).ok_or_else(&missing)?;
            let im = self.image(at, v.image)?;
            m.insert("image".into(), json!(im.id));
            m.insert(
                "layout".into(),
                json!(layout(at, image_layout, "imageLayout")?),
            );
            m.insert(
                "subresource_range".into(),
                subresource_range(at, &v.subresource_range)?,
            );
            m.insert("view_type".into(), json!(flags::view_type(v.view_type)));
            if v.format != im.info.format {
                let name = flags::format(v.format)
                    .map_or_else(|| v.format.to_string(), |f| f.0.to_owned());
                m.insert("format".into(), json!(name));
            }
        }
        if matches!(descriptor_type, 0 | 1) {
            let s = self.sampler_by_handle.get(&sampler).ok_or_else(&missing)?;
            m.insert("sampler".into(), json!(s));
        }
        m.insert("descriptor_type".into(), json!(ty));
        Ok(Value::Object(m))
    }

    /// A sampler as the trace's `samplers` entry; what gpusim's samplers refuse (anisotropy,
    /// depth comparison, unnormalized coordinates, custom border colours, cubic filters) is
    /// refused here by name.
    fn sampler_json(
        &self,
        at: At<'_>,
        s: &decode::SamplerCreateInfo,
    ) -> Result<Value, ImportError> {
        if s.flags != 0 {
            return Err(at.unsupported(format!("VkSamplerCreateFlags 0x{:x}", s.flags)));
        }
        if s.anisotropy_enable != 0 {
            return Err(at.unsupported("anisotropic filtering"));
        }
        if s.compare_enable != 0 {
            return Err(at.unsupported("depth comparison samplers"));
        }
        if s.unnormalized_coordinates != 0 {
            return Err(at.unsupported("unnormalized sampler coordinates"));
        }
        let name = |v: Option<&'static str>, what: &str, raw: u32| {
            v.ok_or_else(|| at.unsupported(format!("{what} {raw}")))
        };
        let float = |bits: u32, what: &str| {
            let v = f32::from_bits(bits);
            if v.is_finite() {
                Ok(v)
            } else {
                Err(at.invalid(format!("{what} {v}")))
            }
        };
        Ok(json!({
            "id": format!("sampler{}", self.samplers.len()),
            "mag_filter": name(flags::filter(s.mag_filter), "magFilter", s.mag_filter)?,
            "min_filter": name(flags::filter(s.min_filter), "minFilter", s.min_filter)?,
            "mipmap_mode": name(flags::filter(s.mipmap_mode), "mipmapMode", s.mipmap_mode)?,
            "address_mode_u": name(flags::address_mode(s.address_modes[0]), "addressModeU", s.address_modes[0])?,
            "address_mode_v": name(flags::address_mode(s.address_modes[1]), "addressModeV", s.address_modes[1])?,
            "address_mode_w": name(flags::address_mode(s.address_modes[2]), "addressModeW", s.address_modes[2])?,
            "mip_lod_bias": float(s.mip_lod_bias, "mipLodBias")?,
            "min_lod": float(s.min_lod, "minLod")?,
            "max_lod": float(s.max_lod, "maxLod")?,
            "border_color": name(flags::border_color(s.border_color), "borderColor", s.border_color)?,
        }))
    }

    fn queue_submit(
        &mut self,
        at: At<'_>,
        queue: u64,
        submits: &[decode::Submit],
        fence: u64,
    ) -> Result<(), ImportError> {
        let q = self.queue(at, queue)?;
        let sync2 = at.call != "vkQueueSubmit";
        let mut batches = Vec::new();
        for s in submits {
            if s.flags != 0 {
                return Err(at.unsupported("protected submissions (VK_SUBMIT_PROTECTED_BIT)"));
            }
            if !s.next.is_empty() {
                return Err(
                    at.unsupported("timeline semaphore values (VkTimelineSemaphoreSubmitInfo)")
                );
            }
            let mut cbs = Vec::new();
            for cb in &s.command_buffers {
                let c = self
                    .command_buffers
                    .get(cb)
                    .ok_or_else(|| at.invalid(format!("unknown VkCommandBuffer 0x{cb:x}")))?;
                if c.recording.is_some() {
                    return Err(
                        at.invalid(format!("cb{} is submitted while being recorded", c.number))
                    );
                }
                cbs.push(c.recorded.clone().ok_or_else(|| {
                    at.invalid(format!(
                        "cb{} is submitted before it was recorded",
                        c.number
                    ))
                })?);
            }
            let mut waits = Vec::new();
            for w in &s.wait_semaphores {
                waits.push(json!({"semaphore": self.semaphore(at, w.semaphore)?, "stage_mask": at.stages(w.stage_mask, "wait stage mask")?}));
            }
            let mut signals = Vec::new();
            for sig in &s.signal_semaphores {
                let id = self.semaphore(at, sig.semaphore)?;
                signals.push(if sync2 {
                    json!({"semaphore": id, "stage_mask": at.stages(sig.stage_mask, "signal stage mask")?})
                } else {
                    json!(id)
                });
            }
            let mut b = serde_json::Map::new();
            b.insert("command_buffers".into(), json!(cbs));
            if !waits.is_empty() {
                b.insert("wait_semaphores".into(), Value::Array(waits));
            }
            if !signals.is_empty() {
                b.insert("signal_semaphores".into(), Value::Array(signals));
            }
            batches.push(b);
        }
        let mut op = serde_json::Map::new();
        op.insert("op".into(), json!("queue_submit"));
        op.insert("queue".into(), json!(q));
        match batches.len() {
            0 => {
                op.insert("command_buffers".into(), json!([]));
            }
            1 => op.extend(batches.pop().expect("one batch")),
            _ => {
                op.insert(
                    "batches".into(),
                    Value::Array(batches.into_iter().map(Value::Object).collect()),
                );
            }
        }
        if fence != 0 {
            let f = self
                .fences
                .get_mut(&fence)
                .ok_or_else(|| at.invalid(format!("unknown VkFence 0x{fence:x}")))?;
            if f.initially_signalled {
                return Err(at.invalid(format!(
                    "{} is submitted while signalled (created signalled, never reset)",
                    f.id
                )));
            }
            op.insert("fence".into(), json!(f.id));
        }
        self.timeline.push(Value::Object(op));
        Ok(())
    }

    fn finish(mut self, options: &ImportOptions, blocks: u64) -> Result<Import, ImportError> {
        let mut memory = Vec::new();
        for m in &self.memories {
            let at = At {
                call: "vkAllocateMemory",
                index: m.at.0,
                offset: m.at.1,
            };
            let types = self.memory_types.as_ref().ok_or_else(|| {
                at.invalid("the capture holds no memory properties (vkGetPhysicalDeviceMemoryProperties or SetDeviceMemoryProperties) to give the memory type's flags")
            })?;
            let &bits = types.get(m.memory_type_index as usize).ok_or_else(|| {
                at.invalid(format!(
                    "memory type {} of the {} the device has",
                    m.memory_type_index,
                    types.len()
                ))
            })?;
            let props = flags::memory_properties(bits).map_err(|b| {
                at.unsupported(format!(
                    "memory property flags 0x{b:x} (lazily allocated, protected or vendor memory)"
                ))
            })?;
            memory.push(json!({"id": m.id, "size": m.size, "properties": props}));
        }
        let mut buffers = Vec::new();
        for b in &self.buffers {
            // A buffer never bound has no bytes; a command naming it would name no memory.
            let Some((m, offset)) = b.bound else { continue };
            buffers.push(
                json!({"id": b.id, "memory": self.memories[m].id, "offset": offset, "size": b.size,
                                "usage": flags::buffer_usage(b.usage)}),
            );
        }
        let mut images = Vec::new();
        for im in &self.images {
            // An image never bound has no bytes, as a buffer never bound.
            let Some((m, offset)) = im.bound else {
                continue;
            };
            let i = &im.info;
            let mut v = serde_json::Map::new();
            v.insert("id".into(), json!(im.id));
            v.insert("memory".into(), json!(self.memories[m].id));
            v.insert("offset".into(), json!(offset));
            v.insert("image_type".into(), json!(flags::image_type(i.image_type)));
            v.insert("format".into(), json!(flags::format(i.format).map(|f| f.0)));
            v.insert("extent".into(), json!(i.extent));
            v.insert("mip_levels".into(), json!(i.mip_levels));
            v.insert("array_layers".into(), json!(i.array_layers));
            v.insert(
                "tiling".into(),
                json!(if i.tiling == 1 { "LINEAR" } else { "OPTIMAL" }),
            );
            v.insert("usage".into(), json!(flags::image_usage(i.usage)));
            v.insert(
                "initial_layout".into(),
                json!(flags::image_layout(i.initial_layout)),
            );
            if i.flags != 0 {
                v.insert(
                    "flags".into(),
                    json!(flags::image_create_flags(i.flags).unwrap_or_default()),
                );
            }
            images.push(Value::Object(v));
        }
        let mut files = Vec::new();
        let mut shaders = Vec::new();
        for p in &mut self.pipelines {
            p.file = format!("{}{}.spv", options.shader_file_prefix, p.id);
            shaders.push(json!({"id": p.id, "stage": "COMPUTE", "entry_point": p.entry_point, "spirv_file": p.file}));
            files.push((
                p.file.clone(),
                p.frozen
                    .words
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect(),
            ));
        }
        let mut fences: Vec<&Fence> = self.fences.values().collect();
        fences.sort_by_key(|f| f.id[5..].parse::<usize>().unwrap_or(usize::MAX));
        // Written as serde_json writes an object (keys in order), from the commands' text.
        let command_buffers: Vec<String> = self
            .recorded
            .iter()
            .map(|(id, usage, commands)| {
                let len = commands.iter().map(|c| c.len() + 1).sum::<usize>() + 64;
                let mut m = String::with_capacity(len);
                m.push_str("{\"commands\":[");
                for (k, c) in commands.iter().enumerate() {
                    if k > 0 {
                        m.push(',');
                    }
                    m.push_str(c);
                }
                let _ = write!(m, "],\"id\":{}", json!(id));
                if *usage != 0 {
                    let names = flags::command_buffer_usage(*usage).unwrap_or_default();
                    let _ = write!(m, ",\"usage\":{}", json!(names));
                }
                m.push('}');
                m
            })
            .collect();
        // A buffer a command names but that was never bound is not in `buffers`; the loader
        // names it (`unknown buffer`), which is the honest message.
        let mut out = String::from("{\n");
        let _ = writeln!(out, "  \"gpusim_trace\": 1,");
        let _ = writeln!(out, "  \"name\": {},", json!(options.name));
        if let Some(d) = &options.description {
            let _ = writeln!(out, "  \"description\": {},", json!(d));
        }
        let text = |values: &[Value]| values.iter().map(Value::to_string).collect::<Vec<_>>();
        let names = |ids: &[String]| ids.iter().map(|i| json!(i).to_string()).collect::<Vec<_>>();
        let lists = [
            ("memory", text(&memory)),
            ("buffers", text(&buffers)),
            ("images", text(&images)),
            ("samplers", text(&self.samplers)),
            ("shaders", text(&shaders)),
            ("events", names(&self.event_order)),
            ("semaphores", names(&self.semaphore_order)),
            (
                "fences",
                fences.iter().map(|f| json!(f.id).to_string()).collect(),
            ),
            ("queues", names(&self.queues)),
            ("command_buffers", command_buffers),
            ("timeline", text(&self.timeline)),
        ];
        let count = lists.len();
        for (i, (name, items)) in lists.into_iter().enumerate() {
            let mut text = String::from("[");
            for (j, item) in items.iter().enumerate() {
                text.push_str(if j == 0 { "\n    " } else { ",\n    " });
                text.push_str(item);
            }
            text.push_str(if items.is_empty() { "]" } else { "\n  ]" });
            let _ = write!(out, "  {}: {}", json!(name), text);
            out.push_str(if i + 1 == count { "\n" } else { ",\n" });
        }
        out.push_str("}\n");
        Ok(Import {
            trace: out,
            files,
            dropped: self.dropped,
            blocks,
        })
    }
}
