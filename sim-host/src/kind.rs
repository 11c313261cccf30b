//! How the host CPU reaches a memory type, derived from its Vulkan property flags.
//!
//! This is the one place that translates VkMemoryPropertyFlags into host behaviour; everything
//! else in the crate matches on [`HostMemoryKind`].

use serde::Serialize;

use crate::error::HostError;

/// VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.
pub const MEMORY_PROPERTY_DEVICE_LOCAL: u32 = 0x1;
/// VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.
pub const MEMORY_PROPERTY_HOST_VISIBLE: u32 = 0x2;
/// VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.
pub const MEMORY_PROPERTY_HOST_COHERENT: u32 = 0x4;
/// VK_MEMORY_PROPERTY_HOST_CACHED_BIT.
pub const MEMORY_PROPERTY_HOST_CACHED: u32 = 0x8;

/// The host CPU's path to a mapped memory type.
///
/// | property flags (besides HOST_VISIBLE) | kind | host writes | host reads |
/// |---|---|---|---|
/// | HOST_COHERENT | [`WriteCombined`](HostMemoryKind::WriteCombined) | write-combining buffers, drained by device-visible events | uncached, one bus round trip per line |
/// | (none) | [`WriteCombinedNonCoherent`](HostMemoryKind::WriteCombinedNonCoherent) | write-combining buffers, drained only by vkFlushMappedMemoryRanges (or eviction) | uncached |
/// | HOST_CACHED | [`Cached`](HostMemoryKind::Cached) | host cache, written back by vkFlushMappedMemoryRanges (or eviction) | host cache, refreshed by vkInvalidateMappedMemoryRanges |
/// | HOST_CACHED, HOST_COHERENT | [`CachedCoherent`](HostMemoryKind::CachedCoherent) | snooped: at the coherence point at once | snooped |
///
/// DEVICE_LOCAL does not change the host's path (a BAR mapping of VRAM is write-combined just
/// like a GTT mapping of system memory), so it is ignored here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum HostMemoryKind {
    /// HOST_VISIBLE | HOST_COHERENT: mapped write-combined (WC). Writes collect in the CPU's
    /// write-combining buffers, which every device-visible event (queue submission, fence and
    /// semaphore operations, atomics, uncached accesses) drains, so no flush call is needed.
    /// Reads are uncached and go to device memory every time.
    WriteCombined,
    /// Plain HOST_VISIBLE (neither COHERENT nor CACHED): write-combined and non-coherent
    /// (docs/TRACE_FORMAT.md). Its write-combining buffers are *not* drained by device-visible events:
    /// host writes become available only through vkFlushMappedMemoryRanges of their range (or
    /// by the accident of a buffer eviction). Reads are uncached.
    WriteCombinedNonCoherent,
    /// HOST_VISIBLE | HOST_CACHED, non-coherent: every access goes through the host cache.
    /// Host writes reach device memory only by vkFlushMappedMemoryRanges (or eviction), device
    /// writes reach the host only after vkInvalidateMappedMemoryRanges drops the stale lines.
    Cached,
    /// HOST_VISIBLE | HOST_CACHED | HOST_COHERENT: cached and snooped. The CPU caches keep
    /// coherent with the device by hardware, so the model keeps no host state for it: every
    /// access is performed at the coherence point (the device level handed in) at once.
    CachedCoherent,
}

impl HostMemoryKind {
    /// The kind of a memory type with these VkMemoryPropertyFlags (Vulkan bit values, see the
    /// `MEMORY_PROPERTY_*` constants). A type without HOST_VISIBLE cannot be mapped.
    pub fn from_vk_flags(flags: u32) -> Result<HostMemoryKind, HostError> {
        HostMemoryKind::from_properties(
            flags & MEMORY_PROPERTY_HOST_VISIBLE != 0,
            flags & MEMORY_PROPERTY_HOST_COHERENT != 0,
            flags & MEMORY_PROPERTY_HOST_CACHED != 0,
        )
    }

    /// The kind of a memory type with these property bits.
    pub fn from_properties(host_visible: bool, host_coherent: bool, host_cached: bool) -> Result<HostMemoryKind, HostError> {
        if !host_visible {
            return Err(HostError::NotHostVisible { host_coherent, host_cached });
        }
        Ok(match (host_coherent, host_cached) {
            (true, false) => HostMemoryKind::WriteCombined,
            (false, false) => HostMemoryKind::WriteCombinedNonCoherent,
            (false, true) => HostMemoryKind::Cached,
            (true, true) => HostMemoryKind::CachedCoherent,
        })
    }

    /// Whether the type has HOST_COHERENT: flush and invalidate calls on it do nothing.
    pub fn is_coherent(self) -> bool {
        matches!(self, HostMemoryKind::WriteCombined | HostMemoryKind::CachedCoherent)
    }

    /// Whether host writes go through write-combining buffers.
    pub fn is_write_combined(self) -> bool {
        matches!(self, HostMemoryKind::WriteCombined | HostMemoryKind::WriteCombinedNonCoherent)
    }

    /// The property flags, spelled as in a trace (`HOST_VISIBLE|HOST_COHERENT`).
    pub fn flags_name(self) -> &'static str {
        match self {
            HostMemoryKind::WriteCombined => "HOST_VISIBLE|HOST_COHERENT",
            HostMemoryKind::WriteCombinedNonCoherent => "HOST_VISIBLE",
            HostMemoryKind::Cached => "HOST_VISIBLE|HOST_CACHED",
            HostMemoryKind::CachedCoherent => "HOST_VISIBLE|HOST_COHERENT|HOST_CACHED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_map_to_kinds() {
        let v = MEMORY_PROPERTY_HOST_VISIBLE;
        assert_eq!(HostMemoryKind::from_vk_flags(v | MEMORY_PROPERTY_HOST_COHERENT).unwrap(), HostMemoryKind::WriteCombined);
        assert_eq!(
            HostMemoryKind::from_vk_flags(v | MEMORY_PROPERTY_DEVICE_LOCAL | MEMORY_PROPERTY_HOST_COHERENT).unwrap(),
            HostMemoryKind::WriteCombined
        );
        assert_eq!(HostMemoryKind::from_vk_flags(v).unwrap(), HostMemoryKind::WriteCombinedNonCoherent);
        assert_eq!(HostMemoryKind::from_vk_flags(v | MEMORY_PROPERTY_HOST_CACHED).unwrap(), HostMemoryKind::Cached);
        assert_eq!(
            HostMemoryKind::from_vk_flags(v | MEMORY_PROPERTY_HOST_CACHED | MEMORY_PROPERTY_HOST_COHERENT).unwrap(),
            HostMemoryKind::CachedCoherent
        );
        let err = HostMemoryKind::from_vk_flags(MEMORY_PROPERTY_DEVICE_LOCAL).unwrap_err();
        assert!(err.to_string().contains("HOST_VISIBLE"), "{err}");
    }
}
