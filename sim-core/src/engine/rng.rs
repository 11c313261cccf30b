//! The engine's seeded random source: SplitMix64, the same sequence on every host, passed
//! explicitly so no choice depends on timing or thread count.

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_F42D_4C95_7F2D)
    }

    /// The stream of unit `unit` (`"placement"`, `"cu3"`, `"L1[3]"`) for `seed`: each unit of the
    /// machine draws from its own, so that removing a cache or changing a latency reshuffles no
    /// other unit's choices.
    pub fn for_unit(seed: u64, unit: &str) -> Rng {
        Rng::new(seed ^ fingerprint(0, unit.as_bytes()))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}

/// FNV-1a over bytes: a stable fingerprint of what a read returned.
pub fn fingerprint(state: u64, bytes: &[u8]) -> u64 {
    let mut h = if state == 0 { 0xCBF2_9CE4_8422_2325 } else { state };
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    h
}
