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
//! also tried ([`Chunk::pick_base`]; [`Chunk::base_verdicts`] gives every
//! candidate's verdict, as `sylcol probe` shows it).

use std::fmt;

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
    /// What is wrong.
    pub fault: SlotFault,
}

impl BadSlot {
    /// Whether the slot itself lies outside the data (else its word does
    /// not hold an in-data pointer).
    pub fn outside(&self) -> bool {
        matches!(self.fault, SlotFault::Outside { .. })
    }
}

/// What is wrong with a slot under a candidate base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotFault {
    /// The slot's word does not lie inside the data (0x10..data end).
    Outside {
        /// The data end (0x10 + data size).
        data_end: u64,
    },
    /// The word holds a value whose target (value + 0x10) lies at or past
    /// the data end.
    PastData {
        /// The stored word.
        value: u32,
        /// value + 0x10.
        target: u64,
        /// The data end (0x10 + data size).
        data_end: u64,
    },
}

impl fmt::Display for SlotFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SlotFault::Outside { data_end } => {
                write!(f, "the slot lies outside the data (0x10..{data_end:#x})")
            }
            SlotFault::PastData {
                value,
                target,
                data_end,
            } => write!(
                f,
                "it holds {value:#x}, whose target {target:#x} lies past the data end {data_end:#x}"
            ),
        }
    }
}

/// Why [`Chunk::pick_base`] found no base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBase<E> {
    /// No candidate base lets every slot hold an in-data pointer: the
    /// error naming the first bad slot under base 0x10, at the slot's word
    /// when the slot lies in the data, else at the POF0 entry that names
    /// it (a slot outside the data may lie past the input).
    Unfit(DecodeError),
    /// Some bases fit, but the caller's attempt refused each: the first
    /// fitting base and the attempt's error under it.
    Refused {
        /// The first base that fits every slot.
        base: u32,
        /// What the attempt said under it.
        error: E,
    },
}

impl NoBase<DecodeError> {
    /// The error a decoder reports: the bad slot's, or the first attempt's.
    pub fn into_error(self) -> DecodeError {
        match self {
            NoBase::Unfit(e) | NoBase::Refused { error: e, .. } => e,
        }
    }
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
                DecodeErrorKind::ChunkDataSizePastInput {
                    data_size,
                    pof0_offset,
                    input_len: data.len() as u64,
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
        let data_end = self.data_end();
        self.relative_slots
            .iter()
            .enumerate()
            .find_map(|(entry, &rel)| {
                let slot = u64::from(rel) + u64::from(base);
                let fault = if slot < 0x10 || slot + 4 > data_end {
                    SlotFault::Outside { data_end }
                } else {
                    let value = be_u32(data, slot, "a relocated word").ok()?;
                    let target = u64::from(value) + u64::from(POINTER_BASE);
                    if target < data_end {
                        return None;
                    }
                    SlotFault::PastData {
                        value,
                        target,
                        data_end,
                    }
                };
                Some(BadSlot { slot, entry, fault })
            })
    }

    /// Every candidate base ([`CANDIDATE_BASES`], in order of preference)
    /// with its verdict: its first bad slot, `None` when every slot holds
    /// an in-data pointer under it.
    pub fn base_verdicts(&self, data: &[u8]) -> Vec<(u32, Option<BadSlot>)> {
        CANDIDATE_BASES
            .iter()
            .map(|&b| (b, self.first_bad_slot(data, b)))
            .collect()
    }

    /// Picks the POF0 base: walks the bases under which every slot holds
    /// an in-data pointer, in order of preference, and returns the first
    /// one `attempt` accepts with what it returned. Fails with
    /// [`NoBase::Refused`] (the first fitting base, the attempt's error
    /// under it) when it accepts none, and with [`NoBase::Unfit`] when no
    /// base fits.
    pub fn pick_base<T, E>(
        &self,
        data: &[u8],
        mut attempt: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<(u32, T), NoBase<E>> {
        let mut refused = None;
        let mut first_bad = None;
        for base in CANDIDATE_BASES {
            if let Some(bad) = self.first_bad_slot(data, base) {
                first_bad.get_or_insert(bad);
                continue;
            }
            match attempt(base) {
                Ok(t) => return Ok((base, t)),
                Err(error) => {
                    refused.get_or_insert(NoBase::Refused { base, error });
                }
            }
        }
        Err(refused.unwrap_or_else(|| {
            // No base fits, so the first bad slot is under the first base.
            let bad = first_bad.expect("CANDIDATE_BASES is not empty");
            NoBase::Unfit(self.no_base_error(&bad))
        }))
    }

    /// The base under which every slot holds an in-data pointer: 0x10
    /// when it fits, else 0; when neither fits, the error of
    /// [`NoBase::Unfit`].
    pub fn resolve_base(&self, data: &[u8]) -> Result<u32, DecodeError> {
        self.pick_base(data, |_| Ok(()))
            .map(|(base, ())| base)
            .map_err(NoBase::into_error)
    }

    /// The error when no base fits: it names the first bad slot under the
    /// preferred base (0x10), at the slot's word when the slot lies in the
    /// data, else at the POF0 entry that names it (a slot outside the data
    /// may lie past the input).
    fn no_base_error(&self, bad: &BadSlot) -> DecodeError {
        let entry = bad
            .outside()
            .then(|| (bad.entry, self.entry_offset(bad.entry)));
        DecodeError::new(
            entry.map_or(bad.slot, |(_, at)| at),
            DecodeErrorKind::Pof0NoBase {
                slot: bad.slot,
                entry,
                fault: bad.fault,
            },
        )
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
    fn every_base_has_a_verdict() {
        let d = sample(0);
        let c = Chunk::parse(&d).unwrap();
        let v = c.base_verdicts(&d);
        assert_eq!(
            v.iter().map(|(b, _)| *b).collect::<Vec<_>>(),
            CANDIDATE_BASES
        );
        // Under 0x10 the first slot is 0x24, whose word (0xEEEEEEEE) points past the data.
        let bad = v[0].1.clone().unwrap();
        assert_eq!((bad.slot, bad.entry, bad.outside()), (0x24, 0, false));
        assert!(matches!(
            bad.fault,
            SlotFault::PastData {
                value: 0xEEEE_EEEE,
                ..
            }
        ));
        assert_eq!(v[1].1, None);
    }

    #[test]
    fn pick_base_tries_the_fitting_bases_in_order() {
        // Both bases fit when every word points inside the data.
        let mut d = sample(0);
        d[0x24..0x28].copy_from_slice(&0x10u32.to_be_bytes());
        d[0x28..0x2C].copy_from_slice(&0x10u32.to_be_bytes());
        let c = Chunk::parse(&d).unwrap();
        let mut tried = Vec::new();
        let picked = c.pick_base(&d, |b| {
            tried.push(b);
            if b == 0 { Ok("second") } else { Err(b) }
        });
        assert_eq!(picked, Ok((0, "second")));
        assert_eq!(tried, [0x10, 0]);
        // None accepted: the first fitting base and its refusal.
        let refused = c.pick_base(&d, Err::<(), u32>);
        assert_eq!(
            refused,
            Err(NoBase::Refused {
                base: 0x10,
                error: 0x10
            })
        );
        // Only base 0 fits: it alone is tried.
        let d = sample(0);
        let c = Chunk::parse(&d).unwrap();
        let refused = c.pick_base(&d, Err::<(), u32>);
        assert_eq!(refused, Err(NoBase::Refused { base: 0, error: 0 }));
    }

    #[test]
    fn a_slot_outside_the_data_is_named_at_its_entry() {
        let mut d = sample(0x10);
        d.truncate(0x30);
        d.extend(pof0::frame(&pof0::encode_entries(&[0x04, 0x1000]).unwrap()));
        let c = Chunk::parse(&d).unwrap();
        let e = c.resolve_base(&d).unwrap_err();
        // Under 0x10 entry 1 names slot 0x1010, past the data (and the input).
        assert_eq!(e.offset, c.entry_offset(1));
        assert_eq!(
            e.kind,
            DecodeErrorKind::Pof0NoBase {
                slot: 0x1010,
                entry: Some((1, 0x39)),
                fault: SlotFault::Outside { data_end: 0x30 },
            }
        );
        assert!(
            e.to_string().contains("slot 0x1010 (POF0 entry 1 at 0x39)"),
            "{e}"
        );
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
