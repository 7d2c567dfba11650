//! Generic POF0-relocated chunks (MCOL, REGN, unknown magics).
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | magic |
//! | 0x04 | 4 | data size; the POF0 table starts at 0x10 + data size |
//! | 0x10 | data size | the data; stored pointers are offsets from 0x10 |
//! | 0x10 + data size | | POF0 table (see [`crate::pof0`]) |
//!
//! The base the table's slot offsets are measured from is expected to be
//! 0x10 (the pointer base); as no real file has been seen here, base 0 is
//! also tried ([`Chunk::resolve_base`]).

use crate::bytes::{be_u32, slice};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::pof0;

/// Stored pointers are offsets from this chunk offset.
pub const POINTER_BASE: u32 = 0x10;

/// The POF0 slot bases tried, in order of preference.
pub const CANDIDATE_BASES: [u32; 2] = [0x10, 0];

/// A chunk's framing: magic, data size and its decoded POF0 table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The first four bytes.
    pub magic: [u8; 4],
    /// The u32 at 0x04.
    pub data_size: u32,
    /// Chunk offset of the `POF0` framing (0x10 + data size).
    pub pof0_offset: u64,
    /// The encoded table (entries and padding, no framing).
    pub table: &'a [u8],
    /// Chunk offset just past the table.
    pub table_end: u64,
    /// Slot offsets relative to the (not yet known) base.
    pub relative_slots: Vec<u32>,
}

/// Why a slot fails under a candidate base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSlot {
    /// Chunk offset of the slot under that base.
    pub slot: u64,
    /// Which entry of the POF0 table names it (0-based).
    pub entry: usize,
    /// Whether the slot itself lies outside the data (else its word does
    /// not hold an in-data pointer).
    pub outside: bool,
    /// What is wrong.
    pub reason: String,
}

impl<'a> Chunk<'a> {
    /// Reads the framing and the POF0 table of the chunk in `data`.
    pub fn parse(data: &'a [u8]) -> Result<Self, DecodeError> {
        let head = slice(data, 0, 8, "the chunk header (magic, data size)")?;
        let magic = [head[0], head[1], head[2], head[3]];
        let data_size = be_u32(data, 4, "the data size")?;
        let pof0_offset = 0x10 + u64::from(data_size);
        if pof0_offset + 8 > data.len() as u64 {
            return Err(DecodeError::new(
                4u64,
                DecodeErrorKind::BadCount {
                    what: "data size",
                    detail: format!(
                        "{data_size:#x} puts the POF0 table at {pof0_offset:#x}, past the end of the {}-byte input",
                        data.len()
                    ),
                },
            ));
        }
        let (table, table_end) = pof0::read_framed(data, pof0_offset)?;
        let relative_slots = pof0::decode_entries(table).map_err(|e| e.shifted(pof0_offset + 8))?;
        Ok(Chunk {
            magic,
            data_size,
            pof0_offset,
            table,
            table_end,
            relative_slots,
        })
    }

    /// End of the data region (exclusive chunk offset).
    pub fn data_end(&self) -> u64 {
        0x10 + u64::from(self.data_size)
    }

    /// Chunk offsets of the slots under `base`.
    pub fn slots(&self, base: u32) -> Vec<u32> {
        self.relative_slots
            .iter()
            .map(|&s| s.saturating_add(base))
            .collect()
    }

    /// The first slot that cannot hold a pointer under `base`: the word
    /// must lie inside the data, and its value + 0x10 must too.
    pub fn first_bad_slot(&self, data: &[u8], base: u32) -> Option<BadSlot> {
        let end = self.data_end();
        self.relative_slots
            .iter()
            .enumerate()
            .find_map(|(entry, &rel)| {
                let slot = u64::from(rel) + u64::from(base);
                if slot < 0x10 || slot + 4 > end {
                    return Some(BadSlot {
                        slot,
                        entry,
                        outside: true,
                        reason: format!("the slot lies outside the data (0x10..{end:#x})"),
                    });
                }
                let value = be_u32(data, slot, "a relocated word").ok()?;
                let target = u64::from(value) + u64::from(POINTER_BASE);
                (target >= end).then(|| BadSlot {
                slot,
                entry,
                outside: false,
                reason: format!(
                    "it holds {value:#x}, whose target {target:#x} lies past the data end {end:#x}"
                ),
            })
            })
    }

    /// Chunk offset of entry `index` of the POF0 table (each entry is 1, 2
    /// or 4 bytes wide, as its first byte's top two bits say).
    pub fn entry_offset(&self, index: usize) -> u64 {
        let mut pos = 0usize;
        for _ in 0..index {
            let Some(&first) = self.table.get(pos) else {
                break;
            };
            pos += match first >> 6 {
                1 => 1,
                2 => 2,
                _ => 4,
            };
        }
        self.pof0_offset + 8 + pos as u64
    }

    /// The base under which every slot holds an in-data pointer: 0x10
    /// when it fits, else 0; an error naming the first bad slot (under
    /// 0x10) when neither fits, at the slot's word when the slot lies in
    /// the data, else at the POF0 entry that names it (a slot outside the
    /// data may lie past the input).
    pub fn resolve_base(&self, data: &[u8]) -> Result<u32, DecodeError> {
        let mut first_failure = None;
        for base in CANDIDATE_BASES {
            match self.first_bad_slot(data, base) {
                None => return Ok(base),
                Some(bad) => {
                    first_failure.get_or_insert(bad);
                }
            }
        }
        let bad = first_failure.expect("CANDIDATE_BASES is not empty");
        let (at, entry) = if bad.outside {
            let at = self.entry_offset(bad.entry);
            (at, format!(" (POF0 entry {} at {at:#x})", bad.entry))
        } else {
            (bad.slot, String::new())
        };
        Err(DecodeError::new(
            at,
            DecodeErrorKind::Pof0(format!(
                "relocated slot {:#x}{entry} cannot hold a pointer under base 0x10: {} (base 0 fails too)",
                bad.slot, bad.reason
            )),
        ))
    }
}

/// Cells along one axis of a grid over `min..max` at `cell` size (the
/// header prefix MCOL and REGN share): ceil((max - min) / cell), with a
/// relative tolerance of 1e-6 for float rounding; `None` when the cell size
/// is not a positive finite number or the result is not at least 1.
pub fn axis_cells(min: f32, max: f32, cell: f32) -> Option<u64> {
    let cell = f64::from(cell);
    let cells = (f64::from(max) - f64::from(min)) / cell;
    if !(cell.is_finite() && cell > 0.0 && cells.is_finite()) {
        return None;
    }
    let n = (cells - 1e-6 * cells.max(1.0)).ceil();
    (n >= 1.0 && n <= u32::MAX as f64).then_some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk with data [0x10, 0x30) and pointers at 0x14 -> 0x20, 0x18 -> 0x28.
    fn sample(base: u32) -> Vec<u8> {
        let mut d = vec![0xEEu8; 0x30];
        d[..4].copy_from_slice(b"TEST");
        d[4..8].copy_from_slice(&0x20u32.to_be_bytes());
        d[0x14..0x18].copy_from_slice(&0x10u32.to_be_bytes());
        d[0x18..0x1C].copy_from_slice(&0x18u32.to_be_bytes());
        let slots = [0x14 - u64::from(base), 0x18 - u64::from(base)];
        d.extend(pof0::frame(&pof0::encode_entries(&slots).unwrap()));
        d
    }

    #[test]
    fn resolves_either_base() {
        for base in [0x10, 0] {
            let d = sample(base);
            let c = Chunk::parse(&d).unwrap();
            assert_eq!(c.resolve_base(&d).unwrap(), base);
            assert_eq!(c.slots(base), vec![0x14, 0x18]);
        }
    }

    #[test]
    fn names_the_first_bad_slot() {
        let mut d = sample(0x10);
        d[0x18..0x1C].copy_from_slice(&0x4000u32.to_be_bytes());
        let c = Chunk::parse(&d).unwrap();
        let e = c.resolve_base(&d).unwrap_err();
        assert_eq!(e.offset, 0x18);
        assert!(e.to_string().contains("0x4010"), "{e}");
    }

    #[test]
    fn axis_cells_rounds_up_with_a_tolerance() {
        assert_eq!(axis_cells(-25_000.0, 25_000.0, 10_000.0), Some(5));
        assert_eq!(axis_cells(-250_000.0, 250_000.0, 50_000.0), Some(10));
        assert_eq!(axis_cells(0.0, 1.000_000_1, 0.5), Some(2));
        assert_eq!(axis_cells(0.0, 0.0, 1.0), None);
        assert_eq!(axis_cells(0.0, 1.0, 0.0), None);
        assert_eq!(axis_cells(0.0, f32::INFINITY, 1.0), None);
    }

    #[test]
    fn data_size_past_end() {
        let mut d = sample(0x10);
        d[4..8].copy_from_slice(&0x1000u32.to_be_bytes());
        let e = Chunk::parse(&d).unwrap_err();
        assert_eq!(e.offset, 4);
    }
}
