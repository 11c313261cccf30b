//! What the converter needs from a SPIR-V module: its specialization constants frozen to the
//! values a pipeline gave them, and the interface a dispatch must bind.
//!
//! A gpusim trace has no specialization constants (its shader interpreter refuses
//! pipeline-overridable constants), so each compute pipeline gets its own copy of its module
//! with every `OpSpecConstant*` rewritten into the plain `OpConstant*` of the value the
//! pipeline's `VkSpecializationInfo` gives (or its default), and its `SpecId` decorations
//! dropped. That is what a driver does when it compiles the pipeline, and the rewritten module
//! is an ordinary one. `OpSpecConstantOp` (a constant computed from others) would need the
//! operation evaluated; it is refused by name.
//!
//! The walk is over instruction words only (word count in the high half of each first word),
//! bounds-checked, so a damaged module gives an error, not a panic.

use std::collections::{BTreeSet, HashMap};

use crate::decode::Specialization;

const MAGIC: u32 = 0x0723_0203;
const OP_DECORATE: u32 = 71;
const OP_VARIABLE: u32 = 59;
const OP_CONSTANT_TRUE: u32 = 41;
const OP_CONSTANT_FALSE: u32 = 42;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_COMPOSITE: u32 = 44;
const OP_SPEC_CONSTANT_TRUE: u32 = 48;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_SPEC_CONSTANT_COMPOSITE: u32 = 51;
const OP_SPEC_CONSTANT_OP: u32 = 52;
const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const STORAGE_CLASS_PUSH_CONSTANT: u32 = 9;

/// A module prepared for one pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frozen {
    /// The module's words with specialization applied.
    pub words: Vec<u32>,
    /// The `(set, binding)` of every variable the module decorates with both.
    pub bindings: BTreeSet<(u32, u32)>,
    /// Whether the module declares a push-constant block.
    pub push_constants: bool,
}

/// The instructions of a module: `(start, word count, opcode)`.
fn instructions(words: &[u32]) -> Result<Vec<(usize, usize, u32)>, String> {
    if words.len() < 5 || words[0] != MAGIC {
        return Err("not a SPIR-V module (no magic number)".to_owned());
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(format!(
                "SPIR-V instruction at word {at} has word count {count}, past the module's {} words",
                words.len()
            ));
        }
        out.push((at, count, opcode));
        at += count;
    }
    Ok(out)
}

/// Freezes `words`' specialization constants to `spec`'s values (defaults where `spec` gives
/// none) and reads the module's bindings.
pub fn freeze(words: &[u32], spec: Option<&Specialization>) -> Result<Frozen, String> {
    let instrs = instructions(words)?;
    let mut spec_ids = HashMap::new();
    let mut sets = HashMap::new();
    let mut bindings_of = HashMap::new();
    for &(at, count, opcode) in &instrs {
        if opcode == OP_DECORATE && count >= 4 {
            let (target, decoration, value) = (words[at + 1], words[at + 2], words[at + 3]);
            match decoration {
                DECORATION_SPEC_ID => {
                    spec_ids.insert(target, value);
                }
                DECORATION_DESCRIPTOR_SET => {
                    sets.insert(target, value);
                }
                DECORATION_BINDING => {
                    bindings_of.insert(target, value);
                }
                _ => {}
            }
        }
    }
    // The bytes a specialization gives a constant id, checked against the data.
    let value_of = |id: u32| -> Result<Option<&[u8]>, String> {
        let Some(spec) = spec else { return Ok(None) };
        let Some(&constant_id) = spec_ids.get(&id) else {
            return Ok(None);
        };
        let Some(entry) = spec
            .map_entries
            .iter()
            .find(|e| e.constant_id == constant_id)
        else {
            return Ok(None);
        };
        let start = entry.offset as usize;
        usize::try_from(entry.size)
            .ok()
            .and_then(|size| start.checked_add(size))
            .and_then(|end| spec.data.get(start..end))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "specialization constant {constant_id}: bytes [{start}, +{}) are outside the {} bytes of pData",
                    entry.size,
                    spec.data.len()
                )
            })
    };
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5]);
    let mut push_constants = false;
    for &(at, count, opcode) in &instrs {
        let instr = &words[at..at + count];
        match opcode {
            OP_DECORATE if count >= 3 && instr[2] == DECORATION_SPEC_ID => continue,
            OP_VARIABLE if count >= 4 && instr[3] == STORAGE_CLASS_PUSH_CONSTANT => {
                push_constants = true;
                out.extend_from_slice(instr);
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE if count == 3 => {
                let value = match value_of(instr[2])? {
                    Some(bytes) => bytes.iter().any(|&b| b != 0),
                    None => opcode == OP_SPEC_CONSTANT_TRUE,
                };
                let op = if value {
                    OP_CONSTANT_TRUE
                } else {
                    OP_CONSTANT_FALSE
                };
                out.extend_from_slice(&[(3 << 16) | op, instr[1], instr[2]]);
            }
            OP_SPEC_CONSTANT if count >= 4 => {
                out.push(((count as u32) << 16) | OP_CONSTANT);
                out.extend_from_slice(&instr[1..3]);
                match value_of(instr[2])? {
                    Some(bytes) if bytes.len() == (count - 3) * 4 => out.extend(
                        bytes
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                    ),
                    Some(bytes) => {
                        return Err(format!(
                            "specialization constant of {} bytes given {} bytes",
                            (count - 3) * 4,
                            bytes.len()
                        ));
                    }
                    None => out.extend_from_slice(&instr[3..]),
                }
            }
            OP_SPEC_CONSTANT_COMPOSITE => {
                out.push(((count as u32) << 16) | OP_CONSTANT_COMPOSITE);
                out.extend_from_slice(&instr[1..]);
            }
            OP_SPEC_CONSTANT_OP => {
                return Err(
                    "the shader computes a specialization constant from others (OpSpecConstantOp), which is not imported yet"
                        .to_owned(),
                );
            }
            _ => out.extend_from_slice(instr),
        }
    }
    let bindings = sets
        .iter()
        .filter_map(|(id, &set)| bindings_of.get(id).map(|&b| (set, b)))
        .collect();
    Ok(Frozen {
        words: out,
        bindings,
        push_constants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::SpecializationMapEntry;

    /// A module skeleton: header, `OpDecorate %3 SpecId 7`, `OpSpecConstant %1 %3 5`,
    /// `OpSpecConstantTrue %2 %4`, `OpDecorate %4 SpecId 8`.
    fn module() -> Vec<u32> {
        vec![
            MAGIC,
            0x0001_0000,
            0,
            10,
            0,
            (4 << 16) | OP_DECORATE,
            3,
            DECORATION_SPEC_ID,
            7,
            (4 << 16) | OP_DECORATE,
            4,
            DECORATION_SPEC_ID,
            8,
            (4 << 16) | OP_SPEC_CONSTANT,
            1,
            3,
            5,
            (3 << 16) | OP_SPEC_CONSTANT_TRUE,
            2,
            4,
        ]
    }

    #[test]
    fn defaults_and_given_values_become_constants() {
        let f = freeze(&module(), None).unwrap();
        assert_eq!(
            &f.words[5..],
            &[
                (4 << 16) | OP_CONSTANT,
                1,
                3,
                5,
                (3 << 16) | OP_CONSTANT_TRUE,
                2,
                4
            ]
        );
        let spec = Specialization {
            map_entries: vec![
                SpecializationMapEntry {
                    constant_id: 7,
                    offset: 4,
                    size: 4,
                },
                SpecializationMapEntry {
                    constant_id: 8,
                    offset: 0,
                    size: 4,
                },
            ],
            data: [0u32, 42].iter().flat_map(|w| w.to_le_bytes()).collect(),
        };
        let f = freeze(&module(), Some(&spec)).unwrap();
        assert_eq!(
            &f.words[5..],
            &[
                (4 << 16) | OP_CONSTANT,
                1,
                3,
                42,
                (3 << 16) | OP_CONSTANT_FALSE,
                2,
                4
            ]
        );
    }

    #[test]
    fn damage_is_an_error() {
        let mut m = module();
        m[13] = (40 << 16) | OP_SPEC_CONSTANT;
        assert!(freeze(&m, None).unwrap_err().contains("word count 40"));
        assert!(freeze(&[1, 2, 3], None).is_err());
        let spec = Specialization {
            map_entries: vec![SpecializationMapEntry {
                constant_id: 7,
                offset: u32::MAX,
                size: u64::MAX,
            }],
            data: vec![0; 4],
        };
        assert!(
            freeze(&module(), Some(&spec))
                .unwrap_err()
                .contains("outside")
        );
    }
}
