//! Errors of the host side: API misuse named by its Vulkan valid-usage ID, and failures of the
//! device level underneath.

use sim_caches::{AccessError, SpecError};
use thiserror::Error;

use crate::MemoryId;

/// Something the host side refuses. Range and mapping errors carry the VUID they break and the
/// numbers involved, so a message says exactly what the trace got wrong.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HostError {
    /// The spec cannot be built.
    #[error(transparent)]
    Spec(#[from] SpecError),

    /// The device level (or the host cache in front of it) refused an access.
    #[error("device memory access failed: {0}")]
    Access(#[from] AccessError),

    /// A memory type without HOST_VISIBLE was mapped.
    #[error(
        "VUID-vkMapMemory-memory-00682: memory type is not HOST_VISIBLE (HOST_COHERENT: {host_coherent}, HOST_CACHED: {host_cached}) and cannot be mapped"
    )]
    NotHostVisible {
        /// Whether the type had HOST_COHERENT.
        host_coherent: bool,
        /// Whether the type had HOST_CACHED.
        host_cached: bool,
    },

    /// vkMapMemory on memory that is already mapped.
    #[error("VUID-vkMapMemory-memory-00678: memory {memory} is already host mapped")]
    AlreadyMapped {
        /// The memory object.
        memory: MemoryId,
    },

    /// vkMapMemory with an offset at or past the end of the allocation.
    #[error("VUID-vkMapMemory-offset-00679: map offset {offset} of memory {memory} is not less than its size {allocation_size}")]
    MapOffset {
        /// The memory object.
        memory: MemoryId,
        /// The map offset.
        offset: u64,
        /// Size of the allocation.
        allocation_size: u64,
    },

    /// vkMapMemory with a size of 0.
    #[error("VUID-vkMapMemory-size-00680: map size of memory {memory} is 0")]
    MapSizeZero {
        /// The memory object.
        memory: MemoryId,
    },

    /// vkMapMemory with a range reaching past the allocation.
    #[error(
        "VUID-vkMapMemory-size-00681: map range offset {offset} + size {size} of memory {memory} exceeds its size {allocation_size}"
    )]
    MapSize {
        /// The memory object.
        memory: MemoryId,
        /// The map offset.
        offset: u64,
        /// The map size.
        size: u64,
        /// Size of the allocation.
        allocation_size: u64,
    },

    /// The allocation's device addresses would wrap around the 64-bit address space.
    #[error("memory {memory} at device address {base:#x} with size {allocation_size} wraps the address space")]
    AddressWrap {
        /// The memory object.
        memory: MemoryId,
        /// Its device base address.
        base: u64,
        /// Size of the allocation.
        allocation_size: u64,
    },

    /// A host access or unmap of memory that is not mapped.
    #[error("memory {memory} is not host mapped")]
    NotMapped {
        /// The memory object.
        memory: MemoryId,
    },

    /// A host read or write outside the mapped range: the pointer it would use does not exist.
    #[error(
        "host access of {len} bytes at offset {offset} of memory {memory} lies outside the mapped range [{map_offset}, {map_end})"
    )]
    OutsideMapping {
        /// The memory object.
        memory: MemoryId,
        /// Offset of the access from the start of the memory object.
        offset: u64,
        /// Length of the access.
        len: u64,
        /// Start of the mapped range.
        map_offset: u64,
        /// End of the mapped range.
        map_end: u64,
    },

    /// A host read whose provenance buffer does not hold one tag per byte.
    #[error("host read of {want} bytes got a provenance buffer of {got} tags (one per byte expected)")]
    TagLength {
        /// Bytes read.
        want: usize,
        /// Tags passed.
        got: usize,
    },

    /// VkMappedMemoryRange on memory that is not mapped.
    #[error("VUID-VkMappedMemoryRange-memory-00684: range {index}: memory {memory} is not currently host mapped")]
    RangeNotMapped {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
    },

    /// VkMappedMemoryRange::offset is not a multiple of nonCoherentAtomSize.
    #[error(
        "VUID-VkMappedMemoryRange-offset-00687: range {index} of memory {memory}: offset {offset} is not a multiple of nonCoherentAtomSize {atom}"
    )]
    RangeOffsetAlignment {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
        /// The range's offset.
        offset: u64,
        /// nonCoherentAtomSize.
        atom: u64,
    },

    /// VkMappedMemoryRange::size is neither VK_WHOLE_SIZE, nor a multiple of
    /// nonCoherentAtomSize, nor reaching exactly the end of the memory object.
    #[error(
        "VUID-VkMappedMemoryRange-size-01390: range {index} of memory {memory}: size {size} is not a multiple of nonCoherentAtomSize {atom}, and offset {offset} + size {size} is not the memory size {allocation_size}"
    )]
    RangeSizeAlignment {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
        /// The range's offset.
        offset: u64,
        /// The range's size.
        size: u64,
        /// nonCoherentAtomSize.
        atom: u64,
        /// Size of the memory object.
        allocation_size: u64,
    },

    /// A range (not VK_WHOLE_SIZE) reaching outside the mapped range.
    #[error(
        "VUID-VkMappedMemoryRange-size-00685: range {index} of memory {memory}: [{offset}, {offset} + {size}) is not contained in the mapped range [{map_offset}, {map_end})"
    )]
    RangeOutsideMapping {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
        /// The range's offset.
        offset: u64,
        /// The range's size.
        size: u64,
        /// Start of the mapped range.
        map_offset: u64,
        /// End of the mapped range.
        map_end: u64,
    },

    /// A VK_WHOLE_SIZE range whose offset is outside the mapped range.
    #[error(
        "VUID-VkMappedMemoryRange-size-00686: range {index} of memory {memory}: size is VK_WHOLE_SIZE and offset {offset} is not within the mapped range [{map_offset}, {map_end})"
    )]
    WholeSizeOffsetOutsideMapping {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
        /// The range's offset.
        offset: u64,
        /// Start of the mapped range.
        map_offset: u64,
        /// End of the mapped range.
        map_end: u64,
    },

    /// A VK_WHOLE_SIZE range on a mapping whose end is neither atom-aligned nor the end of the
    /// memory object.
    #[error(
        "VUID-VkMappedMemoryRange-size-01389: range {index} of memory {memory}: size is VK_WHOLE_SIZE but the mapping ends at {map_end}, neither a multiple of nonCoherentAtomSize {atom} nor the memory size {allocation_size}"
    )]
    WholeSizeMappingEnd {
        /// Index of the range in the call.
        index: usize,
        /// The memory object.
        memory: MemoryId,
        /// End of the mapped range.
        map_end: u64,
        /// nonCoherentAtomSize.
        atom: u64,
        /// Size of the memory object.
        allocation_size: u64,
    },
}
