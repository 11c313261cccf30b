//! A bounds-checked reader of one call's parameter buffer, in GFXReconstruct's encoding.
//!
//! The capture layer writes each parameter with `ParameterEncoder` (`framework/encode/
//! parameter_encoder.h`): values as their little-endian bytes (enums, flags and `uint32_t` as
//! 4 bytes; `VkDeviceSize`, `size_t`, handles and addresses as 8), and every pointer as a
//! *pointer attribute* word (`format::PointerAttributes`: null, single, array, string, struct,
//! has-address, has-data) followed, when not null, by the pointer's address (when has-address),
//! the element count (arrays and strings, always), and the data (when has-data). Structs are
//! written member by member in declaration order, a `pNext` chain as a pointer to the next
//! struct, whose first member (`sType`) says which struct it is.
//!
//! Nothing here trusts a number: an array's count is checked against the bytes left before
//! anything is reserved for it, and every read returns an error, never a panic, past the end.

use crate::decode::PNext;

/// `format::PointerAttributes::kIsNull`.
const IS_NULL: u32 = 0x0001;
/// `kIsSingle`: a pointer to one value.
const IS_SINGLE: u32 = 0x0002;
/// `kIsArray`: a pointer to an array (with `kIsString` or `kIsStruct` for those elements).
const IS_ARRAY: u32 = 0x0004;
/// `kIsString`: a UTF-8 string.
const IS_STRING: u32 = 0x0008;
/// `kIsStruct`: a pointer to a struct.
const IS_STRUCT: u32 = 0x0020;
/// `kHasAddress`: the pointer's address follows the attribute word.
const HAS_ADDRESS: u32 = 0x0040;
/// `kHasData`: the pointed-to data follows (the layer omits it for some outputs).
const HAS_DATA: u32 = 0x0080;
/// Every attribute bit a release writes (`kIsArray2D` = 0x100 and `kIsWString` = 0x10 included).
const KNOWN_ATTRIBUTES: u32 = 0x01ff;

/// The deepest `pNext` chain decoded. Each link costs a recursion, and no compute program
/// chains more than a few structs; a longer chain is taken as damage.
pub(crate) const MAX_PNEXT_DEPTH: usize = 8;

/// A failure to decode parameters: where in the buffer and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamError {
    /// Byte offset in the parameter buffer.
    pub at: usize,
    /// What was wrong.
    pub detail: String,
}

/// Result of a parameter read.
pub(crate) type PResult<T> = Result<T, ParamError>;

/// A pointer's attribute word and what follows it, up to its data.
struct Pointer {
    /// Whether the data was written.
    has_data: bool,
    /// The element count of an array or string.
    len: u64,
}

/// A cursor over one call's parameter buffer.
pub(crate) struct Params<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Params<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// An error at the current position.
    pub fn error(&self, detail: impl Into<String>) -> ParamError {
        ParamError {
            at: self.at,
            detail: detail.into(),
        }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    /// Checks that every byte was read: a parameter buffer longer than its call's parameters
    /// means the decoding went wrong, and nothing read from it can be trusted.
    pub fn finish(&self) -> PResult<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(self.error(format!("{n} bytes left over after the last parameter"))),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> PResult<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let out = &self.bytes[self.at..end];
                self.at = end;
                Ok(out)
            }
            None => Err(self.error(format!(
                "{what} needs {n} bytes, {} are left",
                self.remaining()
            ))),
        }
    }

    /// A 32-bit value (`uint32_t`, an enum, a flags word, `VkBool32`).
    pub fn u32(&mut self) -> PResult<u32> {
        let b = self.take(4, "a 32-bit value")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A signed 32-bit value (`VkResult`, `int32_t`).
    pub fn i32(&mut self) -> PResult<i32> {
        Ok(self.u32()? as i32)
    }

    /// A 64-bit value (`VkDeviceSize`, `size_t`, a handle id, an address, 64-bit flags).
    pub fn u64(&mut self) -> PResult<u64> {
        let b = self.take(8, "a 64-bit value")?;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    /// A handle, as the capture's id for it (0 is `VK_NULL_HANDLE`).
    pub fn handle(&mut self) -> PResult<u64> {
        self.u64()
    }

    /// A pointer's attribute word, address and count. `kind` is the attribute the encoder sets
    /// for this parameter (`IS_SINGLE`, `IS_ARRAY`, with `IS_STRUCT` or `IS_STRING`); another
    /// kind means the decoding is out of step with the encoding, and is an error.
    fn pointer(&mut self, kind: u32, what: &str) -> PResult<Option<Pointer>> {
        let start = self.at;
        let attrib = self.u32()?;
        if attrib & !KNOWN_ATTRIBUTES != 0 {
            self.at = start;
            return Err(self.error(format!(
                "{what}: pointer attributes 0x{attrib:x} hold unknown bits"
            )));
        }
        if attrib & IS_NULL != 0 {
            return Ok(None);
        }
        if attrib & kind != kind {
            self.at = start;
            return Err(self.error(format!(
                "{what}: pointer attributes 0x{attrib:x}, expected 0x{kind:x} (the parameters are not what this call encodes)"
            )));
        }
        if attrib & HAS_ADDRESS != 0 {
            self.u64()?;
        }
        let len = if kind & (IS_ARRAY | IS_STRING) != 0 {
            self.u64()?
        } else {
            1
        };
        Ok(Some(Pointer {
            has_data: attrib & HAS_DATA != 0,
            len,
        }))
    }

    /// The byte length of `len` elements of `size` bytes, if they fit in what is left.
    fn array_bytes(&self, len: u64, size: usize, what: &str) -> PResult<usize> {
        usize::try_from(len)
            .ok()
            .and_then(|n| n.checked_mul(size))
            .filter(|&n| n <= self.remaining())
            .ok_or_else(|| {
                self.error(format!(
                    "{what}: {len} elements of {size} bytes run past the end of the parameters ({} bytes left)",
                    self.remaining()
                ))
            })
    }

    fn raw_array(&mut self, size: usize, what: &str) -> PResult<Option<&'a [u8]>> {
        let Some(p) = self.pointer(IS_ARRAY, what)? else {
            return Ok(None);
        };
        if !p.has_data {
            return Ok(None);
        }
        let n = self.array_bytes(p.len, size, what)?;
        self.take(n, what).map(Some)
    }

    /// An array of 32-bit values; `None` when the pointer was null or its data omitted.
    pub fn u32_array(&mut self, what: &str) -> PResult<Option<Vec<u32>>> {
        Ok(self.raw_array(4, what)?.map(|b| {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }))
    }

    /// An array of 64-bit values (handles, `VkDeviceSize`, `uint64_t`).
    pub fn u64_array(&mut self, what: &str) -> PResult<Option<Vec<u64>>> {
        Ok(self.raw_array(8, what)?.map(|b| {
            b.chunks_exact(8)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect()
        }))
    }

    /// An array of bytes (`EncodeVoidArray`, `EncodeUInt8Array`).
    pub fn byte_array(&mut self, what: &str) -> PResult<Option<Vec<u8>>> {
        Ok(self.raw_array(1, what)?.map(<[u8]>::to_vec))
    }

    /// An array of handles, `len_expected` long when the call says how many there are.
    pub fn handle_array(&mut self, what: &str) -> PResult<Option<Vec<u64>>> {
        self.u64_array(what)
    }

    /// A pointer to a single 64-bit value (an output handle, `void**`).
    pub fn u64_ptr(&mut self, what: &str) -> PResult<Option<u64>> {
        match self.pointer(IS_SINGLE, what)? {
            Some(p) if p.has_data => self.u64().map(Some),
            _ => Ok(None),
        }
    }

    /// A UTF-8 string (`EncodeString`); invalid UTF-8 is replaced, as names are only printed.
    pub fn string(&mut self, what: &str) -> PResult<Option<String>> {
        let Some(p) = self.pointer(IS_STRING | IS_SINGLE, what)? else {
            return Ok(None);
        };
        if !p.has_data {
            return Ok(None);
        }
        let n = self.array_bytes(p.len, 1, what)?;
        let bytes = self.take(n, what)?;
        Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
    }

    /// A pointer to one struct, decoded by `f`; `None` when null or its data omitted.
    pub fn struct_ptr<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<Option<T>> {
        match self.pointer(IS_STRUCT | IS_SINGLE, what)? {
            Some(p) if p.has_data => f(self).map(Some),
            _ => Ok(None),
        }
    }

    /// An array of structs, each decoded by `f`; `None` when null or its data omitted.
    /// `min_size` is the fewest bytes one element takes, so that a count larger than the
    /// bytes left is refused before the loop starts; the vector grows only as elements decode.
    pub fn struct_array<T>(
        &mut self,
        what: &str,
        min_size: usize,
        mut f: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Option<Vec<T>>> {
        let Some(p) = self.pointer(IS_STRUCT | IS_ARRAY, what)? else {
            return Ok(None);
        };
        if !p.has_data {
            return Ok(None);
        }
        self.array_bytes(p.len, min_size, what)?;
        let mut out = Vec::new();
        for _ in 0..p.len {
            out.push(f(self)?);
        }
        Ok(Some(out))
    }

    /// The `sType` and `pNext` members that start an extensible struct: checks the type and
    /// decodes the chain.
    pub fn s_type_and_next(&mut self, s_type: u32, what: &str) -> PResult<Vec<PNext>> {
        let found = self.u32()?;
        if found != s_type {
            self.at -= 4;
            return Err(self.error(format!(
                "{what}: sType {found}, expected {s_type} (the parameters are not what this call encodes)"
            )));
        }
        self.pnext(what, 0)
    }

    /// A `pNext` chain (`EncodePNextStruct`): a struct pointer whose struct's `sType` says
    /// what it is. Only the structs a compute program's calls carry are known; the encoding
    /// has no length to skip an unknown one by, so an unknown one is an error naming it.
    pub fn pnext(&mut self, what: &str, depth: usize) -> PResult<Vec<PNext>> {
        let Some(p) = self.pointer(IS_STRUCT | IS_SINGLE, what)? else {
            return Ok(Vec::new());
        };
        if !p.has_data {
            return Ok(Vec::new());
        }
        if depth >= MAX_PNEXT_DEPTH {
            return Err(self.error(format!(
                "{what}: pNext chain deeper than {MAX_PNEXT_DEPTH} structs"
            )));
        }
        let s_type = self.u32()?;
        let chain;
        let next_what = |name: &str| format!("{what} -> {name}");
        let node = match s_type {
            PNext::MEMORY_ALLOCATE_FLAGS_INFO => {
                chain = self.pnext(&next_what("VkMemoryAllocateFlagsInfo"), depth + 1)?;
                PNext::MemoryAllocateFlags {
                    flags: self.u32()?,
                    device_mask: self.u32()?,
                }
            }
            PNext::MEMORY_DEDICATED_ALLOCATE_INFO => {
                chain = self.pnext(&next_what("VkMemoryDedicatedAllocateInfo"), depth + 1)?;
                PNext::MemoryDedicatedAllocate {
                    image: self.handle()?,
                    buffer: self.handle()?,
                }
            }
            PNext::SEMAPHORE_TYPE_CREATE_INFO => {
                chain = self.pnext(&next_what("VkSemaphoreTypeCreateInfo"), depth + 1)?;
                PNext::SemaphoreType {
                    semaphore_type: self.u32()?,
                    initial_value: self.u64()?,
                }
            }
            PNext::TIMELINE_SEMAPHORE_SUBMIT_INFO => {
                chain = self.pnext(&next_what("VkTimelineSemaphoreSubmitInfo"), depth + 1)?;
                self.u32()?;
                let wait_values = self.u64_array("pWaitSemaphoreValues")?.unwrap_or_default();
                self.u32()?;
                let signal_values = self
                    .u64_array("pSignalSemaphoreValues")?
                    .unwrap_or_default();
                PNext::TimelineSemaphoreSubmit {
                    wait_values,
                    signal_values,
                }
            }
            other => {
                self.at -= 4;
                return Err(self.error(format!(
                    "{what}: pNext holds a structure of VkStructureType {other}, which this importer does not decode"
                )));
            }
        };
        let mut chain = chain;
        chain.insert(0, node);
        Ok(chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u64]) -> Vec<u8> {
        // Test buffers written as (value, width) would be clearer, but every test here only
        // needs 4-byte attribute words and 8-byte numbers, so the helper writes pairs.
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn arrays_check_their_count_before_reading() {
        // attributes (array, address, data), address, count 2^40, no data.
        let mut b = (IS_ARRAY | HAS_ADDRESS | HAS_DATA).to_le_bytes().to_vec();
        b.extend(words(&[0x1000, 1 << 40]));
        let e = Params::new(&b).u32_array("pCode").unwrap_err();
        assert!(e.detail.contains("run past the end"), "{e:?}");
    }

    #[test]
    fn null_and_omitted_pointers_decode_to_none() {
        let b = IS_NULL.to_le_bytes();
        assert_eq!(Params::new(&b).u32_array("x").unwrap(), None);
        // An output array the layer omitted (the call failed): address and count, no data.
        let mut b = (IS_ARRAY | HAS_ADDRESS).to_le_bytes().to_vec();
        b.extend(words(&[0x1000, 3]));
        let mut p = Params::new(&b);
        assert_eq!(p.handle_array("pPipelines").unwrap(), None);
        p.finish().unwrap();
    }

    #[test]
    fn a_pointer_of_the_wrong_kind_is_an_error() {
        let mut b = (IS_SINGLE | HAS_DATA).to_le_bytes().to_vec();
        b.extend(7u32.to_le_bytes());
        let e = Params::new(&b).u32_array("x").unwrap_err();
        assert_eq!(e.at, 0);
        assert!(e.detail.contains("expected"), "{e:?}");
    }

    #[test]
    fn strings_and_leftovers() {
        let mut b = (IS_STRING | IS_SINGLE | HAS_ADDRESS | HAS_DATA)
            .to_le_bytes()
            .to_vec();
        b.extend(words(&[0x2000, 4]));
        b.extend(b"main");
        b.push(0);
        let mut p = Params::new(&b);
        assert_eq!(p.string("pName").unwrap().as_deref(), Some("main"));
        assert!(p.finish().unwrap_err().detail.contains("1 bytes left over"));
    }

    #[test]
    fn unknown_pnext_is_named() {
        let mut b = (IS_STRUCT | IS_SINGLE | HAS_ADDRESS | HAS_DATA)
            .to_le_bytes()
            .to_vec();
        b.extend(words(&[0x3000]));
        b.extend(1_000_072_002u32.to_le_bytes());
        let e = Params::new(&b).pnext("pAllocateInfo", 0).unwrap_err();
        assert!(e.detail.contains("1000072002"), "{e:?}");
        assert_eq!(e.at, 12);
    }
}
