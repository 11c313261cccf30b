//! Vertex input extraction and index fetch, as Vulkan's "Vertex Input Description" chapter
//! defines them.
//!
//! # Design
//! Fetch is split in two so that the timed geometry unit and the reference run share it: first
//! the byte range each attribute reads ([`attribute_read`], [`index_offset`]), which the timed
//! unit turns into memory requests on the vertex-input path; then the decode of those bytes
//! ([`decode_attribute`], [`decode_index`]). [`fetch_vertex`] chains both over flat bytes, for
//! the reference run.
//!
//! An attribute at `offset` in binding `b` of stride `s` reads, for vertex index `v` and
//! instance index `i` (divisor 1, so the instance index already includes `firstInstance`):
//!
//! ```text
//! effective index = v             (VK_VERTEX_INPUT_RATE_VERTEX)
//!                 = i             (VK_VERTEX_INPUT_RATE_INSTANCE)
//! byte offset     = offset + s * effective index     (from the binding's bound offset)
//! bytes           = the format's size (R32G32B32_SFLOAT: 12, R8G8B8A8_UNORM: 4, ...)
//! ```
//!
//! The read must lie inside the bound range (the buffer's size less the bound offset);
//! Vulkan leaves a read outside it undefined without robustBufferAccess, so gpusim reports it as
//! a [`FetchError::OutOfRange`] naming the attribute, the indices and the range, never a panic.
//! Decoding gives the four 32-bit words the vertex shader's input variable holds: f32 bits for
//! the float and UNORM formats, the integer for UINT, and the components the format lacks filled
//! as (0, 0, 0, 1) ("Vertex Input Extraction").
//!
//! Indices: VK_INDEX_TYPE_UINT16 and UINT32, the i-th index of a draw read at
//! `(firstIndex + i) * size` from the bound offset, little-endian. Primitive restart is off, so
//! 0xFFFF and 0xFFFFFFFF are ordinary indices. The vertex index is the index plus
//! `vertexOffset`; one that leaves 0..=u32::MAX is an error.

use sim_rop::{Aspect, Format};

/// Most vertex input bindings a state may have (Vulkan's maxVertexInputBindings, as the
/// common desktop drivers report it).
pub const MAX_VERTEX_INPUT_BINDINGS: usize = 32;
/// Most vertex input attributes a state may have (maxVertexInputAttributes).
pub const MAX_VERTEX_INPUT_ATTRIBUTES: usize = 32;
/// Largest binding stride (maxVertexInputBindingStride, the minimum Vulkan requires).
pub const MAX_VERTEX_INPUT_BINDING_STRIDE: u32 = 2048;
/// Largest attribute offset (maxVertexInputAttributeOffset, the minimum Vulkan requires).
pub const MAX_VERTEX_INPUT_ATTRIBUTE_OFFSET: u32 = 2047;

/// `VkVertexInputRate`: whether a binding advances per vertex or per instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexInputRate {
    /// Advances with the vertex index.
    Vertex,
    /// Advances with the instance index (divisor 1).
    Instance,
}

/// `VkVertexInputBindingDescription`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexBinding {
    /// The binding number.
    pub binding: u32,
    /// Bytes between consecutive elements (0 allowed: every element reads the same bytes).
    pub stride: u32,
    /// Per vertex or per instance.
    pub input_rate: VertexInputRate,
}

/// `VkVertexInputAttributeDescription`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    /// The shader input location.
    pub location: u32,
    /// The binding it reads.
    pub binding: u32,
    /// Its format (one of [`vertex_format_size`]'s).
    pub format: Format,
    /// Bytes from the start of the element.
    pub offset: u32,
}

/// `VkPipelineVertexInputStateCreateInfo`, checked: bindings and locations unique, every
/// attribute's binding described, formats usable as vertex formats, strides and offsets within
/// Vulkan's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexInputState {
    bindings: Vec<VertexBinding>,
    attributes: Vec<VertexAttribute>,
}

/// A vertex buffer bound to a binding, as the reference run's fetch sees it: the bytes from the
/// bound offset to the end of the buffer (the timed unit needs only their count, for
/// [`attribute_read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundVertexBuffer<'a> {
    /// The binding number.
    pub binding: u32,
    /// The bytes from the bound offset on.
    pub bytes: &'a [u8],
}

/// One attribute's read: where it lies in its binding's bound range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeRead {
    /// The shader input location.
    pub location: u32,
    /// The binding read.
    pub binding: u32,
    /// Bytes from the binding's bound offset.
    pub offset: u64,
    /// Bytes read (the format's size).
    pub len: u32,
    /// The attribute's format.
    pub format: Format,
}

/// One fetched attribute: the four words the vertex shader's input at `location` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeValue {
    /// The shader input location.
    pub location: u32,
    /// f32 bits for float and UNORM formats, integers for UINT; missing components (0, 0, 0, 1).
    pub words: [u32; 4],
}

impl AttributeValue {
    /// The words read as floats (meaningful for float and UNORM formats).
    pub fn as_f32(&self) -> [f32; 4] {
        self.words.map(f32::from_bits)
    }
}

/// `VkIndexType` (UINT8 is not supported yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexType {
    /// 16-bit indices.
    Uint16,
    /// 32-bit indices.
    Uint32,
}

impl IndexType {
    /// Bytes one index takes.
    pub fn size(self) -> u32 {
        match self {
            IndexType::Uint16 => 2,
            IndexType::Uint32 => 4,
        }
    }
}

/// What was wrong with a vertex input state or a fetch, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// Two bindings share a number.
    #[error("vertex input binding {binding} is described twice")]
    DuplicateBinding {
        /// The binding number.
        binding: u32,
    },
    /// Two attributes share a location.
    #[error("vertex input location {location} is described twice")]
    DuplicateLocation {
        /// The location.
        location: u32,
    },
    /// More bindings or attributes than the limits allow.
    #[error("{count} vertex input {what} (at most {max})")]
    TooMany {
        /// "bindings" or "attributes".
        what: &'static str,
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A stride above maxVertexInputBindingStride.
    #[error("vertex input binding {binding}: stride {stride} above {MAX_VERTEX_INPUT_BINDING_STRIDE}")]
    StrideTooLarge {
        /// The binding number.
        binding: u32,
        /// Its stride.
        stride: u32,
    },
    /// An offset above maxVertexInputAttributeOffset.
    #[error("vertex input location {location}: offset {offset} above {MAX_VERTEX_INPUT_ATTRIBUTE_OFFSET}")]
    OffsetTooLarge {
        /// The location.
        location: u32,
        /// Its offset.
        offset: u32,
    },
    /// An attribute names a binding no description gives.
    #[error("vertex input location {location} reads binding {binding}, which is not described")]
    UnknownBinding {
        /// The location.
        location: u32,
        /// The binding it names.
        binding: u32,
    },
    /// A format that is not a supported vertex format.
    #[error("vertex input location {location}: {format} is not a supported vertex format")]
    UnsupportedFormat {
        /// The location.
        location: u32,
        /// The format.
        format: Format,
    },
    /// No vertex buffer is bound to a binding an attribute reads.
    #[error("vertex input binding {binding} has no vertex buffer bound (location {location})")]
    NotBound {
        /// The location.
        location: u32,
        /// The binding.
        binding: u32,
    },
    /// An attribute's read leaves its binding's bound range.
    #[error(
        "vertex input location {location} (binding {binding}) of vertex {vertex_index}, instance \
         {instance_index} reads bytes {offset}..{end} of a bound range of {size} bytes",
        end = *offset as u128 + *len as u128
    )]
    OutOfRange {
        /// The location.
        location: u32,
        /// The binding.
        binding: u32,
        /// The vertex index fetched.
        vertex_index: u32,
        /// The instance index fetched.
        instance_index: u32,
        /// Bytes from the bound offset where the read starts.
        offset: u64,
        /// Bytes read.
        len: u32,
        /// Bytes in the bound range.
        size: u64,
    },
    /// A decode asked of a format that is not a supported vertex format.
    #[error("{format} is not a supported vertex format")]
    NotAVertexFormat {
        /// The format.
        format: Format,
    },
    /// Bytes of the wrong length handed to a decode.
    #[error("{format} takes {expected} bytes, {got} given")]
    WrongLength {
        /// The format decoded.
        format: Format,
        /// Bytes it takes.
        expected: u32,
        /// Bytes given.
        got: usize,
    },
    /// The i-th index of a draw lies outside the bound index range.
    #[error("index {position} of the draw reads bytes {offset}..{end} of a bound index range of {size} bytes", end = *offset + u64::from(*len))]
    IndexOutOfRange {
        /// `firstIndex + i`.
        position: u64,
        /// Bytes from the bound offset where it starts.
        offset: u64,
        /// Bytes read.
        len: u32,
        /// Bytes in the bound range.
        size: u64,
    },
    /// An index plus vertexOffset (or firstVertex plus a count) leaves 0..=u32::MAX.
    #[error("vertex index {base} + {offset} leaves 0..=4294967295")]
    VertexIndexOverflow {
        /// The index (or firstVertex).
        base: u32,
        /// vertexOffset (or the vertex's place in the draw).
        offset: i64,
    },
}

/// Bytes a vertex of `format` takes, or `None` when the format is not a supported vertex
/// format. Supported: R32_SFLOAT, R32G32_SFLOAT, R32G32B32_SFLOAT, R32G32B32A32_SFLOAT,
/// R8G8B8A8_UNORM, B8G8R8A8_UNORM, R32_UINT, R16G16B16A16_SFLOAT.
pub fn vertex_format_size(format: Format) -> Option<u32> {
    match format {
        Format::R32_SFLOAT
        | Format::R32G32_SFLOAT
        | Format::R32G32B32_SFLOAT
        | Format::R32G32B32A32_SFLOAT
        | Format::R8G8B8A8_UNORM
        | Format::B8G8R8A8_UNORM
        | Format::R32_UINT
        | Format::R16G16B16A16_SFLOAT => format.plane_bytes(Aspect::Color),
        Format::R8G8B8A8_SRGB | Format::D32_SFLOAT | Format::D24_UNORM_S8_UINT | Format::D32_SFLOAT_S8_UINT => None,
    }
}

impl VertexInputState {
    /// A checked vertex input state.
    pub fn new(bindings: Vec<VertexBinding>, attributes: Vec<VertexAttribute>) -> Result<Self, FetchError> {
        if bindings.len() > MAX_VERTEX_INPUT_BINDINGS {
            return Err(FetchError::TooMany { what: "bindings", count: bindings.len(), max: MAX_VERTEX_INPUT_BINDINGS });
        }
        if attributes.len() > MAX_VERTEX_INPUT_ATTRIBUTES {
            return Err(FetchError::TooMany { what: "attributes", count: attributes.len(), max: MAX_VERTEX_INPUT_ATTRIBUTES });
        }
        for (k, b) in bindings.iter().enumerate() {
            if bindings[..k].iter().any(|o| o.binding == b.binding) {
                return Err(FetchError::DuplicateBinding { binding: b.binding });
            }
            if b.stride > MAX_VERTEX_INPUT_BINDING_STRIDE {
                return Err(FetchError::StrideTooLarge { binding: b.binding, stride: b.stride });
            }
        }
        for (k, a) in attributes.iter().enumerate() {
            if attributes[..k].iter().any(|o| o.location == a.location) {
                return Err(FetchError::DuplicateLocation { location: a.location });
            }
            if a.offset > MAX_VERTEX_INPUT_ATTRIBUTE_OFFSET {
                return Err(FetchError::OffsetTooLarge { location: a.location, offset: a.offset });
            }
            if !bindings.iter().any(|b| b.binding == a.binding) {
                return Err(FetchError::UnknownBinding { location: a.location, binding: a.binding });
            }
            if vertex_format_size(a.format).is_none() {
                return Err(FetchError::UnsupportedFormat { location: a.location, format: a.format });
            }
        }
        Ok(VertexInputState { bindings, attributes })
    }

    /// The binding descriptions, as given.
    pub fn bindings(&self) -> &[VertexBinding] {
        &self.bindings
    }

    /// The attribute descriptions, as given (fetch order).
    pub fn attributes(&self) -> &[VertexAttribute] {
        &self.attributes
    }

    /// The description of binding `binding`.
    pub fn binding(&self, binding: u32) -> Option<&VertexBinding> {
        self.bindings.iter().find(|b| b.binding == binding)
    }
}

/// Where `attribute` reads for vertex `vertex_index` and instance `instance_index`, checked
/// against `bound_size`, the bytes of the binding's bound range.
pub fn attribute_read(
    state: &VertexInputState,
    attribute: &VertexAttribute,
    bound_size: u64,
    vertex_index: u32,
    instance_index: u32,
) -> Result<AttributeRead, FetchError> {
    let VertexAttribute { location, binding, format, offset } = *attribute;
    let desc = state.binding(binding).ok_or(FetchError::UnknownBinding { location, binding })?;
    let len = vertex_format_size(format).ok_or(FetchError::UnsupportedFormat { location, format })?;
    let index = match desc.input_rate {
        VertexInputRate::Vertex => vertex_index,
        VertexInputRate::Instance => instance_index,
    };
    // At most 2047 + 2048 * (2^32 - 1): no overflow in u64.
    let start = u64::from(offset) + u64::from(desc.stride) * u64::from(index);
    if start + u64::from(len) > bound_size {
        return Err(FetchError::OutOfRange { location, binding, vertex_index, instance_index, offset: start, len, size: bound_size });
    }
    Ok(AttributeRead { location, binding, offset: start, len, format })
}

/// The four words a vertex shader input holds for `bytes` of a vertex `format` (exactly
/// [`vertex_format_size`] bytes). Missing components read (0, 0, 0, 1); UNORM converts as
/// `c / 255`; half floats widen exactly.
pub fn decode_attribute(format: Format, bytes: &[u8]) -> Result<[u32; 4], FetchError> {
    let expected = vertex_format_size(format).ok_or(FetchError::NotAVertexFormat { format })?;
    if bytes.len() != expected as usize {
        return Err(FetchError::WrongLength { format, expected, got: bytes.len() });
    }
    // The length is checked, so sim-rop's decode cannot index out of bounds.
    Ok(format.decode(Aspect::Color, bytes).words())
}

/// Fetches every attribute of `state` for one vertex: each read located and checked against
/// its binding's bytes, then decoded. Attributes come back in the state's order.
pub fn fetch_vertex(
    state: &VertexInputState,
    buffers: &[BoundVertexBuffer<'_>],
    vertex_index: u32,
    instance_index: u32,
) -> Result<Vec<AttributeValue>, FetchError> {
    let mut out = Vec::with_capacity(state.attributes.len());
    for attribute in &state.attributes {
        let buffer = buffers
            .iter()
            .find(|b| b.binding == attribute.binding)
            .ok_or(FetchError::NotBound { location: attribute.location, binding: attribute.binding })?;
        let read = attribute_read(state, attribute, buffer.bytes.len() as u64, vertex_index, instance_index)?;
        // In range: checked against the slice's length just above.
        let start = read.offset as usize;
        let bytes = &buffer.bytes[start..start + read.len as usize];
        out.push(AttributeValue { location: read.location, words: decode_attribute(read.format, bytes)? });
    }
    Ok(out)
}

/// Bytes from the index buffer's bound offset where the index at `position` (`firstIndex + i`)
/// starts.
pub fn index_offset(index_type: IndexType, position: u64) -> u64 {
    position.saturating_mul(u64::from(index_type.size()))
}

/// The index of `index_type` in `bytes` (exactly its size), little-endian.
pub fn decode_index(index_type: IndexType, bytes: &[u8]) -> Option<u32> {
    match (index_type, bytes) {
        (IndexType::Uint16, &[a, b]) => Some(u32::from(u16::from_le_bytes([a, b]))),
        (IndexType::Uint32, &[a, b, c, d]) => Some(u32::from_le_bytes([a, b, c, d])),
        _ => None,
    }
}

/// The index at `position` (`firstIndex + i`) of an index buffer whose bound range is `bytes`.
pub fn fetch_index(index_type: IndexType, bytes: &[u8], position: u64) -> Result<u32, FetchError> {
    let len = index_type.size();
    let offset = index_offset(index_type, position);
    let size = bytes.len() as u64;
    let out_of_range = FetchError::IndexOutOfRange { position, offset, len, size };
    if offset.checked_add(u64::from(len)).is_none_or(|end| end > size) {
        return Err(out_of_range);
    }
    let start = offset as usize;
    decode_index(index_type, &bytes[start..start + len as usize]).ok_or(out_of_range)
}

/// The vertex index of an indexed draw's vertex: `index + vertexOffset`, or an error when it
/// leaves 0..=u32::MAX.
pub fn indexed_vertex_index(index: u32, vertex_offset: i32) -> Result<u32, FetchError> {
    let v = i64::from(index) + i64::from(vertex_offset);
    u32::try_from(v).map_err(|_| FetchError::VertexIndexOverflow { base: index, offset: i64::from(vertex_offset) })
}

/// The vertex index of a non-indexed draw's `i`-th vertex: `firstVertex + i`.
pub fn vertex_index(first_vertex: u32, i: u32) -> Result<u32, FetchError> {
    first_vertex.checked_add(i).ok_or(FetchError::VertexIndexOverflow { base: first_vertex, offset: i64::from(i) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(rate: VertexInputRate, stride: u32, attrs: &[(u32, Format, u32)]) -> VertexInputState {
        VertexInputState::new(
            vec![VertexBinding { binding: 0, stride, input_rate: rate }],
            attrs.iter().map(|&(location, format, offset)| VertexAttribute { location, binding: 0, format, offset }).collect(),
        )
        .unwrap()
    }

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn each_float_format_fills_missing_components_with_0_0_0_1() {
        let bytes = f32_bytes(&[1.5, -2.0, 3.25, 4.0]);
        let cases = [
            (Format::R32_SFLOAT, [1.5, 0.0, 0.0, 1.0]),
            (Format::R32G32_SFLOAT, [1.5, -2.0, 0.0, 1.0]),
            (Format::R32G32B32_SFLOAT, [1.5, -2.0, 3.25, 1.0]),
            (Format::R32G32B32A32_SFLOAT, [1.5, -2.0, 3.25, 4.0]),
        ];
        for (format, want) in cases {
            let n = vertex_format_size(format).unwrap() as usize;
            assert_eq!(decode_attribute(format, &bytes[..n]).unwrap().map(f32::from_bits), want, "{format}");
        }
    }

    #[test]
    fn unorm_uint_and_half_formats_decode() {
        let unorm = decode_attribute(Format::R8G8B8A8_UNORM, &[0, 255, 51, 128]).unwrap().map(f32::from_bits);
        assert_eq!(unorm, [0.0, 1.0, 0.2, 128.0 / 255.0]);
        let bgra = decode_attribute(Format::B8G8R8A8_UNORM, &[0, 255, 51, 128]).unwrap().map(f32::from_bits);
        assert_eq!(bgra, [0.2, 1.0, 0.0, 128.0 / 255.0]);
        assert_eq!(decode_attribute(Format::R32_UINT, &7u32.to_le_bytes()).unwrap(), [7, 0, 0, 1]);
        // 1.0, -2.0, 0.5, 65504 as IEEE halves.
        let half: Vec<u8> = [0x3c00u16, 0xc000, 0x3800, 0x7bff].iter().flat_map(|h| h.to_le_bytes()).collect();
        assert_eq!(decode_attribute(Format::R16G16B16A16_SFLOAT, &half).unwrap().map(f32::from_bits), [1.0, -2.0, 0.5, 65504.0]);
        assert!(matches!(decode_attribute(Format::R32_UINT, &[1, 2]), Err(FetchError::WrongLength { expected: 4, got: 2, .. })));
        assert!(matches!(decode_attribute(Format::D32_SFLOAT, &[0; 4]), Err(FetchError::NotAVertexFormat { .. })));
    }

    #[test]
    fn vertex_and_instance_rates_read_their_element() {
        // Two bindings: positions per vertex (stride 12), colours per instance (stride 4).
        let st = VertexInputState::new(
            vec![
                VertexBinding { binding: 0, stride: 12, input_rate: VertexInputRate::Vertex },
                VertexBinding { binding: 3, stride: 4, input_rate: VertexInputRate::Instance },
            ],
            vec![
                VertexAttribute { location: 0, binding: 0, format: Format::R32G32B32_SFLOAT, offset: 0 },
                VertexAttribute { location: 1, binding: 3, format: Format::R8G8B8A8_UNORM, offset: 0 },
            ],
        )
        .unwrap();
        let positions = f32_bytes(&[0.0, 1.0, 2.0, 10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
        let colours = [255u8, 0, 0, 255, 0, 255, 0, 255];
        let buffers = [BoundVertexBuffer { binding: 0, bytes: &positions }, BoundVertexBuffer { binding: 3, bytes: &colours }];
        let v = fetch_vertex(&st, &buffers, 2, 1).unwrap();
        assert_eq!(v[0].location, 0);
        assert_eq!(v[0].as_f32(), [20.0, 21.0, 22.0, 1.0]);
        assert_eq!(v[1].as_f32(), [0.0, 1.0, 0.0, 1.0]);
        let read = attribute_read(&st, &st.attributes()[1], 8, 2, 1).unwrap();
        assert_eq!((read.offset, read.len), (4, 4));
    }

    #[test]
    fn stride_zero_reads_the_same_element_for_every_vertex() {
        let st = state(VertexInputRate::Vertex, 0, &[(0, Format::R32_SFLOAT, 4)]);
        let bytes = f32_bytes(&[1.0, 2.0]);
        for v in [0, 1, 1000] {
            let got = fetch_vertex(&st, &[BoundVertexBuffer { binding: 0, bytes: &bytes }], v, 0).unwrap();
            assert_eq!(got[0].as_f32(), [2.0, 0.0, 0.0, 1.0]);
        }
    }

    #[test]
    fn out_of_range_reads_are_located_errors() {
        let st = state(VertexInputRate::Vertex, 16, &[(2, Format::R32G32B32A32_SFLOAT, 4)]);
        let bytes = vec![0u8; 40];
        let err = fetch_vertex(&st, &[BoundVertexBuffer { binding: 0, bytes: &bytes }], 2, 7).unwrap_err();
        assert_eq!(err, FetchError::OutOfRange { location: 2, binding: 0, vertex_index: 2, instance_index: 7, offset: 36, len: 16, size: 40 });
        assert!(err.to_string().contains("location 2"), "{err}");
        // The largest indices do not overflow.
        let err = fetch_vertex(&st, &[BoundVertexBuffer { binding: 0, bytes: &bytes }], u32::MAX, 0).unwrap_err();
        assert!(matches!(err, FetchError::OutOfRange { .. }));
        assert!(matches!(fetch_vertex(&st, &[], 0, 0), Err(FetchError::NotBound { location: 2, binding: 0 })));
    }

    #[test]
    fn invalid_states_are_refused() {
        let b = |binding, stride| VertexBinding { binding, stride, input_rate: VertexInputRate::Vertex };
        let a = |location, binding| VertexAttribute { location, binding, format: Format::R32_SFLOAT, offset: 0 };
        assert!(matches!(VertexInputState::new(vec![b(0, 4), b(0, 4)], vec![]), Err(FetchError::DuplicateBinding { binding: 0 })));
        assert!(matches!(VertexInputState::new(vec![b(0, 4)], vec![a(1, 0), a(1, 0)]), Err(FetchError::DuplicateLocation { location: 1 })));
        assert!(matches!(VertexInputState::new(vec![b(0, 4)], vec![a(0, 1)]), Err(FetchError::UnknownBinding { location: 0, binding: 1 })));
        assert!(matches!(VertexInputState::new(vec![b(0, 4096)], vec![]), Err(FetchError::StrideTooLarge { .. })));
        let srgb = VertexAttribute { location: 0, binding: 0, format: Format::R8G8B8A8_SRGB, offset: 0 };
        assert!(matches!(VertexInputState::new(vec![b(0, 4)], vec![srgb]), Err(FetchError::UnsupportedFormat { .. })));
        let far = VertexAttribute { location: 0, binding: 0, format: Format::R32_SFLOAT, offset: 4000 };
        assert!(matches!(VertexInputState::new(vec![b(0, 4)], vec![far]), Err(FetchError::OffsetTooLarge { .. })));
        assert!(matches!(VertexInputState::new((0..40).map(|k| b(k, 4)).collect(), vec![]), Err(FetchError::TooMany { .. })));
    }

    #[test]
    fn indices_decode_little_endian_without_restart() {
        let u16s: Vec<u8> = [3u16, 0xffff, 9].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(fetch_index(IndexType::Uint16, &u16s, 0).unwrap(), 3);
        assert_eq!(fetch_index(IndexType::Uint16, &u16s, 1).unwrap(), 0xffff);
        assert_eq!(fetch_index(IndexType::Uint16, &u16s, 2).unwrap(), 9);
        assert!(matches!(fetch_index(IndexType::Uint16, &u16s, 3), Err(FetchError::IndexOutOfRange { position: 3, offset: 6, len: 2, size: 6 })));
        assert!(matches!(fetch_index(IndexType::Uint32, &u16s, u64::MAX), Err(FetchError::IndexOutOfRange { .. })));
        let u32s: Vec<u8> = [0x0102_0304u32, 5].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(fetch_index(IndexType::Uint32, &u32s, 0).unwrap(), 0x0102_0304);
        assert_eq!(index_offset(IndexType::Uint32, 1), 4);
        assert_eq!(decode_index(IndexType::Uint32, &[1, 2]), None);
        assert_eq!(indexed_vertex_index(5, -5).unwrap(), 0);
        assert!(indexed_vertex_index(4, -5).is_err());
        assert!(indexed_vertex_index(u32::MAX, 1).is_err());
        assert_eq!(vertex_index(10, 3).unwrap(), 13);
        assert!(vertex_index(u32::MAX, 1).is_err());
    }
}
