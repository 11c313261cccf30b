//! A transfer action's work cut into the steps the transfer engine takes ([`transfer_chunks`]),
//! the same in the reference run and on the transfer engine, each with the key that names its
//! read in both runs.

use crate::api::action::Work;
use crate::engine::record::ReadKey;

pub use crate::api::action::TRANSFER_CHUNK;

/// Where a copy chunk reads: device address, buffer, offset in the buffer.
pub(crate) type ChunkSource = Option<(u64, usize, u64)>;

/// One step of a transfer command: a chunk of at most [`TRANSFER_CHUNK`] bytes.
pub(crate) struct Chunk {
    /// Source: device address, buffer and offset in it (copies only).
    pub(crate) src: ChunkSource,
    /// Destination device address.
    pub(crate) dst: u64,
    /// Bytes.
    pub(crate) len: u64,
    /// Where the bytes come from.
    pub(crate) data: ChunkData,
    /// The read this chunk makes (copies).
    pub(crate) key: ReadKey,
    /// Bytes of the transfer it is part of (a copy region, a fill, an update): what decides
    /// whether a driver runs it as a shader.
    pub(crate) transfer_bytes: u64,
}

impl Chunk {
    /// Sizes `data` to the chunk and, for a fill or an update, puts the chunk's bytes in it
    /// (`work` is the chunk's action's); a copy's bytes are read by the caller. A fill's pattern
    /// starts afresh at every chunk: fills and chunks start on multiples of 4 bytes.
    pub(crate) fn bytes_into(&self, work: &Work<'_>, data: &mut Vec<u8>) {
        data.resize(self.len as usize, 0);
        match self.data {
            ChunkData::Pattern(p) => {
                let pattern = p.to_le_bytes();
                let mut words = data.chunks_exact_mut(4);
                for word in &mut words {
                    word.copy_from_slice(&pattern);
                }
                let rest = words.into_remainder();
                let n = rest.len();
                rest.copy_from_slice(&pattern[..n]);
            }
            ChunkData::Texel(t, n) => {
                for (k, b) in data.iter_mut().enumerate() {
                    *b = t[k % usize::from(n)];
                }
            }
            ChunkData::Inline(pos) => {
                if let Work::Update { data: src, .. } = work {
                    data.copy_from_slice(&src[pos..pos + self.len as usize]);
                }
            }
            ChunkData::Copy | ChunkData::Blit(_) => {}
        }
    }
}

/// Where a transfer chunk's bytes come from.
pub(crate) enum ChunkData {
    /// vkCmdFillBuffer's 32-bit pattern.
    Pattern(u32),
    /// A clear's texel (its first `.1` bytes) repeated.
    Texel([u8; 16], u8),
    /// vkCmdUpdateBuffer's data from this offset.
    Inline(usize),
    /// The source of a copy.
    Copy,
    /// Run `.0` of a blit, computed from the source texels it reads (`engine/blit.rs`).
    Blit(usize),
}

/// The chunks transfer work moves, in order (the same in both runs); none for a dispatch.
pub(crate) fn transfer_chunks(inst: usize, work: &Work<'_>) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut push_range = |dst_addr: u64, len: u64, mk: &mut dyn FnMut(u64, u64) -> (ChunkSource, ChunkData, ReadKey)| {
        let mut pos = 0;
        while pos < len {
            let n = (len - pos).min(TRANSFER_CHUNK);
            let (src, data, key) = mk(pos, n);
            out.push(Chunk { src, dst: dst_addr + pos, len: n, data, key, transfer_bytes: len });
            pos += n;
        }
    };
    let no_read = ReadKey { inst: inst as u32, a: u32::MAX, b: u32::MAX, c: u32::MAX, d: 0 };
    match work {
        Work::Fill { addr, size, pattern, .. } => push_range(*addr, *size, &mut |_, _| (None, ChunkData::Pattern(*pattern), no_read)),
        Work::Update { addr, data, .. } => push_range(*addr, data.len() as u64, &mut |pos, _| (None, ChunkData::Inline(pos as usize), no_read)),
        Work::Copy { src, regions, .. } => {
            for (ri, r) in regions.iter().enumerate() {
                push_range(r.dst_addr, r.size, &mut |pos, _| {
                    let key = ReadKey { inst: inst as u32, a: ri as u32, b: (pos / TRANSFER_CHUNK) as u32, c: u32::MAX, d: 0 };
                    (Some((r.src_addr + pos, *src, r.src_offset + pos)), ChunkData::Copy, key)
                });
            }
        }
        Work::Clear { spans, .. } => {
            for s in spans {
                push_range(s.addr, s.size, &mut |_, _| (None, ChunkData::Texel(s.texel, s.texel_bytes), no_read));
            }
        }
        Work::Blit { runs, .. } => {
            let total = runs.iter().fold(0u64, |a, r| a.saturating_add(r.size));
            for (i, r) in runs.iter().enumerate() {
                out.push(Chunk { src: None, dst: r.dst_addr, len: r.size, data: ChunkData::Blit(i), key: crate::engine::blit::segment_key(inst, i, 0), transfer_bytes: total });
            }
        }
        Work::Dispatch { .. } | Work::Draw(_) | Work::Attachments(_) => {}
    }
    out
}
