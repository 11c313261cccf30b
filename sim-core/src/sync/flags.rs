//! `PipelineStageFlags2` and `AccessFlags2`: Vulkan's synchronization2 bit masks, with Vulkan's
//! own bit values, their names, and the `A|B` text form traces and profiles use.
//!
//! A name is accepted in full (`VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT`,
//! `VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT_KHR`), in its synchronization1 spelling
//! (`VK_PIPELINE_STAGE_TRANSFER_BIT`, `VK_ACCESS_SHADER_READ_BIT`) or short (`COMPUTE_SHADER`,
//! `TRANSFER`). Synchronization1 names denote the synchronization2 bit of the same value, which is
//! what the Vulkan specification says they mean. Masks print with short names, joined by `|`,
//! and `NONE` for the empty mask; a mask serializes as that string and deserializes from such a
//! string or from an array of names.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use thiserror::Error;

/// A name that is not a pipeline stage or access flag.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown {kind} `{name}`{}", suggestion.as_ref().map(|s| format!(" (did you mean {s}?)")).unwrap_or_else(|| format!(" (expected names such as {})", examples)))]
pub struct FlagParseError {
    /// "pipeline stage" or "access flag".
    pub kind: &'static str,
    /// The name as written.
    pub name: String,
    /// The closest known short name, when one is close enough to be a likely typo.
    pub suggestion: Option<String>,
    /// Two example names of the right kind, for the message.
    pub examples: &'static str,
}

macro_rules! vk_flags {
    (
        $(#[$meta:meta])*
        $name:ident, kind = $kind:literal, prefixes = [$($prefix:literal),*], examples = $examples:literal,
        { $( $(#[$fmeta:meta])* $flag:ident = $value:expr ),* $(,)? }
        aliases { $( $alias:literal => $target:ident ),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub u64);

        impl $name {
            /// The empty mask.
            pub const NONE: Self = Self(0);
            $( $(#[$fmeta])* pub const $flag: Self = Self($value); )*

            /// Every named bit with its short name, in bit order.
            pub const NAMED: &'static [(&'static str, Self)] = &[ $( (stringify!($flag), Self::$flag) ),* ];
            /// Synchronization1 spellings and other alternative short names, and the bit each means.
            pub const ALIASES: &'static [(&'static str, Self)] = &[ $( ($alias, Self::$target) ),* ];

            /// The raw bits, as Vulkan stores them.
            pub const fn bits(self) -> u64 { self.0 }
            /// A mask from raw bits (unknown bits are kept and print in hex).
            pub const fn from_bits(bits: u64) -> Self { Self(bits) }
            /// True when no bit is set.
            pub const fn is_empty(self) -> bool { self.0 == 0 }
            /// True when every bit of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            /// True when `self` and `other` share a bit.
            pub const fn intersects(self, other: Self) -> bool { self.0 & other.0 != 0 }
            /// The bits in both.
            pub const fn intersection(self, other: Self) -> Self { Self(self.0 & other.0) }
            /// The bits in either.
            pub const fn union(self, other: Self) -> Self { Self(self.0 | other.0) }
            /// The bits of `self` not in `other`.
            pub const fn difference(self, other: Self) -> Self { Self(self.0 & !other.0) }
            /// Every named bit.
            pub fn all() -> Self { Self::NAMED.iter().fold(Self::NONE, |m, (_, f)| m.union(*f)) }

            /// The single-bit masks set in `self`, lowest bit first.
            pub fn iter(self) -> impl Iterator<Item = Self> {
                let bits = self.0;
                (0..64).filter(move |i| bits & (1u64 << i) != 0).map(|i| Self(1u64 << i))
            }

            /// The short name of a single named bit (`None` for several bits or an unknown one).
            pub fn name(self) -> Option<&'static str> {
                Self::NAMED.iter().find(|(_, f)| *f == self).map(|(n, _)| *n)
            }

            /// Parses one name: full (`VK_..._BIT`, with an optional vendor suffix), short, or a
            /// synchronization1 alias; `NONE` is the empty mask. Case is ignored.
            pub fn parse_name(name: &str) -> Result<Self, FlagParseError> {
                let upper = name.trim().to_ascii_uppercase();
                let mut short: &str = &upper;
                let mut full = false;
                for prefix in [$($prefix),*] {
                    if let Some(rest) = short.strip_prefix(prefix) {
                        short = rest;
                        full = true;
                        break;
                    }
                }
                if full {
                    for suffix in ["_KHR", "_EXT", "_NV"] {
                        if let Some(rest) = short.strip_suffix(suffix) { short = rest; break; }
                    }
                    if let Some(rest) = short.strip_suffix("_BIT") { short = rest; }
                } else {
                    for suffix in ["_KHR", "_EXT", "_NV"] {
                        if let Some(rest) = short.strip_suffix(suffix) { short = rest; break; }
                    }
                }
                if short == "NONE" { return Ok(Self::NONE); }
                if let Some(hex) = short.strip_prefix("0X") {
                    if let Ok(bits) = u64::from_str_radix(hex, 16) { return Ok(Self(bits)); }
                }
                if let Some((_, f)) = Self::NAMED.iter().chain(Self::ALIASES.iter()).find(|(n, _)| *n == short) {
                    return Ok(*f);
                }
                Err(FlagParseError {
                    kind: $kind,
                    name: name.to_string(),
                    suggestion: closest(short, Self::NAMED.iter().chain(Self::ALIASES.iter()).map(|(n, _)| *n)),
                    examples: $examples,
                })
            }

            /// Parses `A|B|C` (spaces allowed around names; an empty string is `NONE`).
            pub fn parse(text: &str) -> Result<Self, FlagParseError> {
                let mut mask = Self::NONE;
                for part in text.split('|') {
                    if part.trim().is_empty() && text.trim().is_empty() { continue; }
                    mask = mask.union(Self::parse_name(part)?);
                }
                Ok(mask)
            }
        }

        impl std::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self { self.union(rhs) }
        }
        impl std::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: Self) { *self = self.union(rhs); }
        }
        impl std::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self { self.intersection(rhs) }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.0 == 0 { return f.write_str("NONE"); }
                let mut first = true;
                for bit in self.iter() {
                    if !first { f.write_str("|")?; }
                    first = false;
                    match bit.name() {
                        Some(n) => f.write_str(n)?,
                        None => write!(f, "0x{:x}", bit.0)?,
                    }
                }
                Ok(())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self)
            }
        }

        impl std::str::FromStr for $name {
            type Err = FlagParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> { Self::parse(s) }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "{} names as a string `A|B` or an array of names", $kind)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).map_err(E::custom)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$name, A::Error> {
                        let mut mask = $name::NONE;
                        while let Some(name) = seq.next_element::<String>()? {
                            mask = mask.union($name::parse_name(&name).map_err(de::Error::custom)?);
                        }
                        Ok(mask)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

vk_flags! {
    /// `VkPipelineStageFlags2`: a set of pipeline stages, with Vulkan's bit values.
    PipelineStageFlags2, kind = "pipeline stage",
    prefixes = ["VK_PIPELINE_STAGE_2_", "VK_PIPELINE_STAGE_"],
    examples = "COMPUTE_SHADER or VK_PIPELINE_STAGE_2_COPY_BIT",
    {
        /// Meta stage: no stage in a first scope; every stage (with no access) in a second.
        TOP_OF_PIPE = 0x1,
        /// Where indirect draw/dispatch parameters are read.
        DRAW_INDIRECT = 0x2,
        /// Meta stage: `INDEX_INPUT | VERTEX_ATTRIBUTE_INPUT`.
        VERTEX_INPUT = 0x4,
        /// The vertex shader.
        VERTEX_SHADER = 0x8,
        /// The tessellation control shader.
        TESSELLATION_CONTROL_SHADER = 0x10,
        /// The tessellation evaluation shader.
        TESSELLATION_EVALUATION_SHADER = 0x20,
        /// The geometry shader.
        GEOMETRY_SHADER = 0x40,
        /// The fragment shader.
        FRAGMENT_SHADER = 0x80,
        /// Depth/stencil tests before fragment shading, and depth/stencil load operations.
        EARLY_FRAGMENT_TESTS = 0x100,
        /// Depth/stencil tests after fragment shading, and depth/stencil store operations.
        LATE_FRAGMENT_TESTS = 0x200,
        /// Blending, colour attachment writes, colour load/store operations, resolves.
        COLOR_ATTACHMENT_OUTPUT = 0x400,
        /// The compute shader.
        COMPUTE_SHADER = 0x800,
        /// Meta stage: `COPY | BLIT | RESOLVE | CLEAR` (synchronization1 `TRANSFER`).
        ALL_TRANSFER = 0x1000,
        /// Meta stage: every stage (with no access) in a first scope; no stage in a second.
        BOTTOM_OF_PIPE = 0x2000,
        /// Host reads and writes of mapped memory.
        HOST = 0x4000,
        /// Meta stage: every graphics stage.
        ALL_GRAPHICS = 0x8000,
        /// Meta stage: every stage of every command on the queue (not `HOST`).
        ALL_COMMANDS = 0x10000,
        /// Conditional-rendering predicate reads (VK_EXT_conditional_rendering).
        CONDITIONAL_RENDERING = 0x40000,
        /// The task shader (VK_EXT_mesh_shader).
        TASK_SHADER = 0x80000,
        /// The mesh shader (VK_EXT_mesh_shader).
        MESH_SHADER = 0x100000,
        /// Fragment shading rate attachment reads (VK_KHR_fragment_shading_rate).
        FRAGMENT_SHADING_RATE_ATTACHMENT = 0x400000,
        /// Transform feedback writes and counters (VK_EXT_transform_feedback).
        TRANSFORM_FEEDBACK = 0x0100_0000,
        /// Copy commands.
        COPY = 0x1_0000_0000,
        /// Resolve commands.
        RESOLVE = 0x2_0000_0000,
        /// Blit commands.
        BLIT = 0x4_0000_0000,
        /// Clear commands (including `vkCmdFillBuffer` and `vkCmdUpdateBuffer`).
        CLEAR = 0x8_0000_0000,
        /// Index buffer reads.
        INDEX_INPUT = 0x10_0000_0000,
        /// Vertex buffer reads.
        VERTEX_ATTRIBUTE_INPUT = 0x20_0000_0000,
        /// Meta stage: every shader stage before rasterization.
        PRE_RASTERIZATION_SHADERS = 0x40_0000_0000,
    }
    aliases { "TRANSFER" => ALL_TRANSFER }
}

vk_flags! {
    /// `VkAccessFlags2`: a set of memory access types, with Vulkan's bit values.
    AccessFlags2, kind = "access flag",
    prefixes = ["VK_ACCESS_2_", "VK_ACCESS_"],
    examples = "SHADER_STORAGE_WRITE or VK_ACCESS_2_TRANSFER_READ_BIT",
    {
        /// Indirect command parameters (DRAW_INDIRECT).
        INDIRECT_COMMAND_READ = 0x1,
        /// Index buffer (INDEX_INPUT).
        INDEX_READ = 0x2,
        /// Vertex buffer (VERTEX_ATTRIBUTE_INPUT).
        VERTEX_ATTRIBUTE_READ = 0x4,
        /// Uniform buffers (shader stages).
        UNIFORM_READ = 0x8,
        /// Input attachments (FRAGMENT_SHADER).
        INPUT_ATTACHMENT_READ = 0x10,
        /// Umbrella: `SHADER_SAMPLED_READ | SHADER_STORAGE_READ`.
        SHADER_READ = 0x20,
        /// Umbrella: `SHADER_STORAGE_WRITE`.
        SHADER_WRITE = 0x40,
        /// Colour attachment reads (blending, load operations).
        COLOR_ATTACHMENT_READ = 0x80,
        /// Colour attachment writes.
        COLOR_ATTACHMENT_WRITE = 0x100,
        /// Depth/stencil attachment reads.
        DEPTH_STENCIL_ATTACHMENT_READ = 0x200,
        /// Depth/stencil attachment writes.
        DEPTH_STENCIL_ATTACHMENT_WRITE = 0x400,
        /// Reads by copy, blit and resolve commands.
        TRANSFER_READ = 0x800,
        /// Writes by copy, blit, resolve and clear commands.
        TRANSFER_WRITE = 0x1000,
        /// Host reads of mapped memory.
        HOST_READ = 0x2000,
        /// Host writes of mapped memory.
        HOST_WRITE = 0x4000,
        /// Umbrella: every read legal for the stages it is paired with.
        MEMORY_READ = 0x8000,
        /// Umbrella: every write legal for the stages it is paired with.
        MEMORY_WRITE = 0x10000,
        /// Conditional-rendering predicate reads.
        CONDITIONAL_RENDERING_READ = 0x100000,
        /// Fragment shading rate attachment reads.
        FRAGMENT_SHADING_RATE_ATTACHMENT_READ = 0x800000,
        /// Transform feedback buffer writes.
        TRANSFORM_FEEDBACK_WRITE = 0x0200_0000,
        /// Transform feedback counter reads.
        TRANSFORM_FEEDBACK_COUNTER_READ = 0x0400_0000,
        /// Transform feedback counter writes.
        TRANSFORM_FEEDBACK_COUNTER_WRITE = 0x0800_0000,
        /// Sampled images and uniform texel buffers (through the texture path).
        SHADER_SAMPLED_READ = 0x1_0000_0000,
        /// Storage buffers, storage images and storage texel buffers.
        SHADER_STORAGE_READ = 0x2_0000_0000,
        /// Storage buffer, storage image and storage texel buffer writes.
        SHADER_STORAGE_WRITE = 0x4_0000_0000,
    }
    aliases {}
}

impl AccessFlags2 {
    /// Every access that reads (the umbrellas `SHADER_READ` and `MEMORY_READ` included).
    pub const ALL_READS: Self = Self(
        0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x80 | 0x200 | 0x800 | 0x2000 | 0x8000 | 0x100000 | 0x800000 | 0x0400_0000 | 0x1_0000_0000 | 0x2_0000_0000,
    );
    /// Every access that writes (the umbrellas `SHADER_WRITE` and `MEMORY_WRITE` included).
    pub const ALL_WRITES: Self = Self(0x40 | 0x100 | 0x400 | 0x1000 | 0x4000 | 0x10000 | 0x0200_0000 | 0x0800_0000 | 0x4_0000_0000);
    /// The synchronization1 and synchronization2 umbrella bits, which stand for other bits.
    pub const UMBRELLAS: Self = Self(0x20 | 0x40 | 0x8000 | 0x10000);
}

/// The known name closest to `name` by edit distance, if it is close enough to be a typo.
fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = edit_distance(name, k);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, k));
        }
    }
    best.filter(|(d, k)| *d <= 3.max(k.len() / 4)).map(|(_, k)| k.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_in_every_spelling() {
        let c = PipelineStageFlags2::COMPUTE_SHADER;
        assert_eq!(PipelineStageFlags2::parse("COMPUTE_SHADER").unwrap(), c);
        assert_eq!(PipelineStageFlags2::parse("VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT").unwrap(), c);
        assert_eq!(PipelineStageFlags2::parse("VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT_KHR").unwrap(), c);
        assert_eq!(PipelineStageFlags2::parse("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT").unwrap(), c);
        assert_eq!(PipelineStageFlags2::parse("TRANSFER").unwrap(), PipelineStageFlags2::ALL_TRANSFER);
        assert_eq!(
            PipelineStageFlags2::parse("VK_PIPELINE_STAGE_2_TRANSFORM_FEEDBACK_BIT_EXT").unwrap(),
            PipelineStageFlags2::TRANSFORM_FEEDBACK
        );
        assert_eq!(AccessFlags2::parse("VK_ACCESS_SHADER_READ_BIT").unwrap(), AccessFlags2::SHADER_READ);
        assert_eq!(AccessFlags2::parse("NONE").unwrap(), AccessFlags2::NONE);
        assert_eq!(AccessFlags2::parse("").unwrap(), AccessFlags2::NONE);
    }

    #[test]
    fn masks_print_short_names_and_round_trip() {
        let m = PipelineStageFlags2::parse("COPY | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT").unwrap();
        assert_eq!(m.to_string(), "COMPUTE_SHADER|COPY");
        assert_eq!(PipelineStageFlags2::parse(&m.to_string()).unwrap(), m);
        assert_eq!(AccessFlags2::NONE.to_string(), "NONE");
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, "\"COMPUTE_SHADER|COPY\"");
        let back: PipelineStageFlags2 = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
        let arr: PipelineStageFlags2 = serde_json::from_str("[\"COPY\", \"COMPUTE_SHADER\"]").unwrap();
        assert_eq!(arr, m);
    }

    #[test]
    fn unknown_names_suggest_the_closest() {
        let e = PipelineStageFlags2::parse("COMPUTE_SHADR").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("COMPUTE_SHADER"));
        assert!(e.to_string().contains("did you mean COMPUTE_SHADER"), "{e}");
        let e = AccessFlags2::parse("BANANA_SPLIT_FOREVER").unwrap_err();
        assert!(e.to_string().contains("unknown access flag `BANANA_SPLIT_FOREVER`"), "{e}");
        assert!(serde_json::from_str::<AccessFlags2>("\"SHADER_WRITE|NOPE\"").is_err());
    }

    #[test]
    fn read_and_write_sets_partition_the_named_bits() {
        assert!(!AccessFlags2::ALL_READS.intersects(AccessFlags2::ALL_WRITES));
        assert_eq!(AccessFlags2::ALL_READS | AccessFlags2::ALL_WRITES, AccessFlags2::all());
    }
}
