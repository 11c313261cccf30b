//! Errors of the memory hierarchy.

use thiserror::Error;

/// A cache spec that no cache can be built from.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("invalid cache spec: `{field}`: {reason}")]
pub struct SpecError {
    /// The spec field at fault, as spelled in a profile.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

/// An access the hierarchy refuses.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AccessError {
    /// A write reached a cache whose policy is read-only (texture, uniform caches).
    #[error("write of {len} bytes at {addr:#x} to read-only cache `{cache}`")]
    WriteToReadOnly {
        /// The cache's name.
        cache: String,
        /// First byte address of the write.
        addr: u64,
        /// Length of the write in bytes.
        len: usize,
    },
    /// An access reached past the end of the address space of the backing store.
    #[error("access of {len} bytes at {addr:#x} is outside the {size:#x}-byte address space")]
    OutOfRange {
        /// First byte address of the access.
        addr: u64,
        /// Length of the access in bytes.
        len: usize,
        /// Size of the address space in bytes.
        size: u64,
    },
    /// A data buffer and its provenance buffer disagree in length.
    #[error("provenance buffer holds {got} words, the access spans {want}")]
    TagLength {
        /// Words the access spans.
        want: usize,
        /// Words the caller passed.
        got: usize,
    },
}
