//! The framebuffer-compression codec: one tile at a time, lossless, as the seed describes it.
//!
//! # Design
//! A tile is 64 texels of one size. Its metadata state ([`TileState`], 4 bits) says how to read
//! its slot: raw (all the slot's bytes are the texels), 2:1, 4:1 or 8:1 (a compressed form in
//! the first half, quarter or eighth of the slot; the rest of the slot is left as it was, so a
//! reader that ignores the metadata reads garbage there), or cleared to one of the profile's
//! fast-clear values (the slot is not read at all).
//!
//! The compressed form is a palette: a count byte (palette size - 1), the distinct texels in
//! order of first appearance, then one index per texel in the fewest bits that number them
//! (none for one colour), packed least-significant bit first. It is exact for any data and small
//! for the smooth areas framebuffers are full of: two colours of 32-bit texels take 17 bytes
//! (8:1), up to eight take 57 (4:1), up to sixteen 97 (2:1). [`encode`] picks the smallest
//! ratio the palette fits, and a fast-clear state when every texel is one of the clear values;
//! [`decode`] inverts it. Both are pure: tests feed them tiles and check bytes and states.

/// A tile's metadata state: how to read its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileState {
    /// Every byte of the slot is texel data.
    Raw,
    /// Compressed into the first `slot / ratio` bytes; `ratio` is 2, 4 or 8.
    Compressed(u8),
    /// Every texel equals fast-clear value `k` of the profile's list; the slot is not read.
    Clear(u8),
}

/// The most fast-clear values a profile may list (4 bits of state: raw, three ratios, twelve
/// clear values).
pub const MAX_CLEAR_VALUES: usize = 12;

/// Compression ratios, best first.
pub const RATIOS: [u8; 3] = [8, 4, 2];

impl TileState {
    /// The 4-bit code kept in metadata.
    pub fn code(self) -> u8 {
        match self {
            TileState::Raw => 0,
            TileState::Compressed(2) => 1,
            TileState::Compressed(4) => 2,
            TileState::Compressed(_) => 3,
            TileState::Clear(k) => 4 + k.min(MAX_CLEAR_VALUES as u8 - 1),
        }
    }

    /// The state of a 4-bit code.
    pub fn from_code(c: u8) -> TileState {
        match c & 15 {
            0 => TileState::Raw,
            1 => TileState::Compressed(2),
            2 => TileState::Compressed(4),
            3 => TileState::Compressed(8),
            k => TileState::Clear(k - 4),
        }
    }

    /// Bytes of the slot a decoder reads (and an encoder writes): all, `slot / ratio`, or none.
    pub fn bytes_used(self, slot: usize) -> usize {
        match self {
            TileState::Raw => slot,
            TileState::Compressed(r) => slot / usize::from(r),
            TileState::Clear(_) => 0,
        }
    }

    /// A name for reports (`raw`, `2:1`, `clear 0`).
    pub fn name(self) -> String {
        match self {
            TileState::Raw => "raw".into(),
            TileState::Compressed(r) => format!("{r}:1"),
            TileState::Clear(k) => format!("clear {k}"),
        }
    }
}

/// A tile encoded: its state, and the bytes to write at the start of its slot (empty for a
/// fast-clear state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The metadata state.
    pub state: TileState,
    /// The slot's first bytes: the whole tile (raw) or the compressed form, padded with zeroes
    /// to [`TileState::bytes_used`].
    pub payload: Vec<u8>,
}

/// Bits that number `n` palette entries (0 for one).
fn index_bits(n: usize) -> u32 {
    if n <= 1 { 0 } else { usize::BITS - (n - 1).leading_zeros() }
}

/// The palette form of `tile` (texels of `texel` bytes), padded to the smallest of `limits`
/// (best first) it fits, with that limit's index; `None` when it fits none. The palette is
/// built once, and given up as soon as it outgrows the largest limit.
fn palette(tile: &[u8], texel: usize, limits: &[usize]) -> Option<(usize, Vec<u8>)> {
    let largest = *limits.iter().max()?;
    let texels = tile.chunks_exact(texel);
    let count = texels.len();
    let mut colours: Vec<&[u8]> = Vec::new();
    let mut index = Vec::with_capacity(count);
    for t in texels {
        let k = match colours.iter().position(|c| *c == t) {
            Some(k) => k,
            None => {
                colours.push(t);
                if colours.len() > 256 || 1 + colours.len() * texel > largest {
                    return None;
                }
                colours.len() - 1
            }
        };
        index.push(k);
    }
    let bits = index_bits(colours.len()) as usize;
    let size = 1 + colours.len() * texel + (count * bits).div_ceil(8);
    let (which, &limit) = limits.iter().enumerate().find(|(_, l)| size <= **l)?;
    let mut out = Vec::with_capacity(limit);
    out.push((colours.len() - 1) as u8);
    for c in &colours {
        out.extend_from_slice(c);
    }
    let mut acc = 0u32;
    let mut n = 0usize;
    for k in index {
        acc |= (k as u32) << n;
        n += bits;
        while n >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            n -= 8;
        }
    }
    if n > 0 {
        out.push(acc as u8);
    }
    out.resize(limit, 0);
    Some((which, out))
}

/// Encodes one tile: `tile` holds its texels (`texel` bytes each), `clear` the profile's
/// fast-clear values as texel bytes of this format (those of another size are skipped).
pub fn encode(tile: &[u8], texel: usize, clear: &[Vec<u8>]) -> Encoded {
    if texel > 0 && !tile.is_empty() {
        let first = &tile[..texel.min(tile.len())];
        if tile.chunks(texel).all(|t| t == first)
            && let Some(k) = clear.iter().take(MAX_CLEAR_VALUES).position(|c| c.as_slice() == first)
        {
            return Encoded { state: TileState::Clear(k as u8), payload: Vec::new() };
        }
        let limits = RATIOS.map(|r| tile.len() / usize::from(r));
        if let Some((k, payload)) = palette(tile, texel, &limits) {
            return Encoded { state: TileState::Compressed(RATIOS[k]), payload };
        }
    }
    Encoded { state: TileState::Raw, payload: tile.to_vec() }
}

/// Decodes one tile of `slot_len` bytes (texels of `texel` bytes) in `state`: `used` is the
/// slot's first [`TileState::bytes_used`] bytes (unused for a fast-clear state). `None` when
/// the bytes are not a compressed form (a slot read through metadata it does not match) or the
/// clear value is not listed.
pub fn decode(state: TileState, used: &[u8], slot_len: usize, texel: usize, clear: &[Vec<u8>]) -> Option<Vec<u8>> {
    match state {
        TileState::Raw => (used.len() == slot_len).then(|| used.to_vec()),
        TileState::Clear(k) => {
            let c = clear.get(usize::from(k)).filter(|c| c.len() == texel)?;
            Some(c.iter().copied().cycle().take(slot_len).collect())
        }
        TileState::Compressed(_) => {
            let n = usize::from(*used.first()?) + 1;
            let colours = used.get(1..1 + n * texel)?;
            let bits = index_bits(n) as usize;
            let count = slot_len / texel.max(1);
            let packed = used.get(1 + n * texel..)?;
            let mut out = Vec::with_capacity(slot_len);
            for i in 0..count {
                let k = if bits == 0 {
                    0
                } else {
                    let bit = i * bits;
                    let lo = u32::from(*packed.get(bit / 8)?);
                    let hi = u32::from(packed.get(bit / 8 + 1).copied().unwrap_or(0));
                    (((hi << 8 | lo) >> (bit % 8)) & ((1 << bits) - 1)) as usize
                };
                if k >= n {
                    return None;
                }
                out.extend_from_slice(&colours[k * texel..(k + 1) * texel]);
            }
            Some(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile_of(colours: &[[u8; 4]], pick: impl Fn(usize) -> usize) -> Vec<u8> {
        (0..64).flat_map(|i| colours[pick(i)]).collect()
    }

    #[test]
    fn states_round_trip_through_their_codes() {
        for s in [TileState::Raw, TileState::Compressed(2), TileState::Compressed(4), TileState::Compressed(8), TileState::Clear(0), TileState::Clear(11)] {
            assert_eq!(TileState::from_code(s.code()), s);
        }
        assert_eq!(TileState::Compressed(4).bytes_used(256), 64);
        assert_eq!(TileState::Clear(3).bytes_used(256), 0);
    }

    /// Tiles in, states and bytes out: the seed's table.
    #[test]
    fn tiles_compress_as_far_as_their_colours_allow() {
        let black = [0, 0, 0, 255];
        let clear = vec![vec![0, 0, 0, 0], black.to_vec()];
        let cases: Vec<(Vec<u8>, TileState, usize)> = vec![
            (tile_of(&[black], |_| 0), TileState::Clear(1), 0),
            (tile_of(&[[9, 9, 9, 9]], |_| 0), TileState::Compressed(8), 5),
            (tile_of(&[[1, 2, 3, 4], [5, 6, 7, 8]], |i| i % 2), TileState::Compressed(8), 17),
            (tile_of(&[[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0], [4, 0, 0, 0]], |i| i % 4), TileState::Compressed(4), 33),
            (tile_of(&(0..16).map(|k| [k, 0, 0, 0]).collect::<Vec<_>>(), |i| i % 16), TileState::Compressed(2), 97),
            (tile_of(&(0..64).map(|k| [k, 1, 2, 3]).collect::<Vec<_>>(), |i| i), TileState::Raw, 256),
        ];
        for (tile, state, size) in cases {
            let e = encode(&tile, 4, &clear);
            assert_eq!(e.state, state, "{tile:?}");
            assert_eq!(e.payload.len(), state.bytes_used(256));
            if let TileState::Compressed(_) = state {
                assert_eq!(1 + (e.payload[0] as usize + 1) * 4 + (64 * index_bits(e.payload[0] as usize + 1) as usize).div_ceil(8), size);
            }
            assert_eq!(decode(e.state, &e.payload, 256, 4, &clear).as_deref(), Some(&tile[..]));
        }
    }

    #[test]
    fn the_stencil_plane_and_wide_texels_compress_by_the_same_rule() {
        let stencil: Vec<u8> = (0..64).map(|i| (i / 32) as u8).collect();
        let e = encode(&stencil, 1, &[]);
        // Two values: 1 + 2 + 8 bytes are more than an eighth of 64, and fit a quarter.
        assert_eq!(e.state, TileState::Compressed(4));
        assert_eq!(decode(e.state, &e.payload, 64, 1, &[]), Some(stencil));
        let wide: Vec<u8> = (0..64).flat_map(|i| [(i % 3) as u8; 16]).collect();
        let e = encode(&wide, 16, &[]);
        assert_eq!(e.state, TileState::Compressed(8));
        assert_eq!(decode(e.state, &e.payload, 1024, 16, &[]), Some(wide));
    }

    #[test]
    fn a_slot_read_through_the_wrong_metadata_is_refused_not_misread() {
        let raw: Vec<u8> = (0..=255).collect();
        // A count byte of 0 with colours but indices past them cannot happen; a count past the
        // slot can.
        assert_eq!(decode(TileState::Compressed(8), &raw[255..], 256, 4, &[]), None);
        assert_eq!(decode(TileState::Clear(5), &[], 256, 4, &[vec![0; 4]]), None);
    }
}
