//! Probing any POF0-relocated chunk — MCOL, REGN or an unknown magic — the
//! way the seeds' authors cracked MCOL: list the relocated words, measure
//! the distances between them, find runs of equal stride (record arrays),
//! and see where each header pointer lands.

use std::collections::BTreeMap;

use crate::bytes::be_u32;
use crate::chunk::{BadSlot, Chunk, POINTER_BASE};
use crate::error::DecodeError;

/// Everything `sylcol probe` reports about a chunk.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The magic as text (non-printable bytes escaped).
    pub magic: String,
    /// The u32 at 0x04.
    pub data_size: u32,
    /// Chunk offset of the POF0 framing.
    pub pof0_offset: u64,
    /// Encoded table length in bytes.
    pub table_len: usize,
    /// Bytes after the table, to the end of the input.
    pub trailer_len: u64,
    /// Each candidate base and its first failing slot (None: all pass).
    pub bases: Vec<(u32, Option<BadSlot>)>,
    /// The base used below: the first that fits, else 0x10.
    pub base: u32,
    /// Whether `base` fits every slot.
    pub base_fits: bool,
    /// The relocated words under `base`.
    pub slots: Vec<Slot>,
    /// The header region: bytes before the lowest pointer target (at most 0x100).
    pub header_end: u64,
    /// Every word of the header region.
    pub header_words: Vec<HeaderWord>,
    /// Distance between consecutive relocated words -> how often, most common first.
    pub gap_histogram: Vec<(u64, usize)>,
    /// Maximal runs of three or more slots at one stride.
    pub runs: Vec<Run>,
}

/// A relocated word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Chunk offset of the word.
    pub offset: u32,
    /// The stored value (None when the slot lies past the input).
    pub value: Option<u32>,
    /// value + 0x10.
    pub target: Option<u64>,
}

/// A header word, read every way the seeds read them.
#[derive(Debug, Clone)]
pub struct HeaderWord {
    /// Chunk offset.
    pub offset: u64,
    /// The big-endian word.
    pub value: u32,
    /// Whether POF0 relocates it.
    pub relocated: bool,
    /// For a relocated word: its target and where that lands.
    pub lands: Option<Landing>,
}

/// Where a header pointer lands.
#[derive(Debug, Clone)]
pub struct Landing {
    /// The chunk offset addressed.
    pub target: u64,
    /// A sentence: "the first byte after the header", "8 bytes before run 1", ...
    pub relation: String,
    /// The first four words at the target.
    pub first_words: Vec<u32>,
}

/// A run of slots at one stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// First slot of the run.
    pub start: u32,
    /// Distance between consecutive slots.
    pub stride: u64,
    /// Number of slots.
    pub count: usize,
}

/// Probes the chunk in `data`. Fails only when the framing itself is
/// unreadable (no data size, no POF0 table where it should be).
pub fn probe(data: &[u8]) -> Result<Probe, DecodeError> {
    let chunk = Chunk::parse(data)?;
    let bases = chunk.base_verdicts(data);
    let fitting = bases.iter().find(|(_, bad)| bad.is_none()).map(|(b, _)| *b);
    let base = fitting.unwrap_or(POINTER_BASE);
    let slots: Vec<Slot> = chunk
        .slots(base)
        .into_iter()
        .map(|offset| {
            let value = be_u32(data, offset.into(), "slot").ok();
            Slot {
                offset,
                value,
                target: value.map(|v| u64::from(v) + u64::from(POINTER_BASE)),
            }
        })
        .collect();
    let header_end = slots
        .iter()
        .filter_map(|s| s.target)
        .filter(|&t| t >= 0x10)
        .min()
        .unwrap_or(0x80)
        .clamp(0x10, 0x100)
        .min(data.len() as u64)
        & !3;
    let runs = runs(&slots);
    let header_words = (0..header_end / 4)
        .map(|i| header_word(data, &slots, &runs, header_end, i * 4))
        .collect();
    Ok(Probe {
        magic: crate::bytes::show_magic(&chunk.magic),
        data_size: chunk.data_size,
        pof0_offset: chunk.pof0_offset,
        table_len: chunk.table.len(),
        trailer_len: data.len() as u64 - chunk.table_end,
        bases,
        base,
        base_fits: fitting.is_some(),
        gap_histogram: gap_histogram(&slots),
        slots,
        header_end,
        header_words,
        runs,
    })
}

fn gap_histogram(slots: &[Slot]) -> Vec<(u64, usize)> {
    let mut h: BTreeMap<u64, usize> = BTreeMap::new();
    for w in slots.windows(2) {
        *h.entry(u64::from(w[1].offset - w[0].offset)).or_default() += 1;
    }
    let mut v: Vec<(u64, usize)> = h.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn runs(slots: &[Slot]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < slots.len() {
        let stride = u64::from(slots[i + 1].offset - slots[i].offset);
        let mut j = i + 1;
        while j + 1 < slots.len() && u64::from(slots[j + 1].offset - slots[j].offset) == stride {
            j += 1;
        }
        let count = j - i + 1;
        if count >= 3 {
            out.push(Run {
                start: slots[i].offset,
                stride,
                count,
            });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn header_word(
    data: &[u8],
    slots: &[Slot],
    runs: &[Run],
    header_end: u64,
    offset: u64,
) -> HeaderWord {
    let value = be_u32(data, offset, "header word").unwrap_or(0);
    let slot = slots.iter().find(|s| u64::from(s.offset) == offset);
    let lands = slot.and_then(|s| s.target).map(|target| Landing {
        target,
        relation: relation(target, header_end, runs, data.len() as u64),
        first_words: (0..4)
            .filter_map(|k| be_u32(data, target + 4 * k, "target").ok())
            .collect(),
    });
    HeaderWord {
        offset,
        value,
        relocated: slot.is_some(),
        lands,
    }
}

fn relation(target: u64, header_end: u64, runs: &[Run], len: u64) -> String {
    if target >= len {
        return "past the end of the input".into();
    }
    if target == header_end {
        return "the first byte after the header".into();
    }
    for (k, r) in runs.iter().enumerate() {
        let start = u64::from(r.start);
        let end = start + r.stride * (r.count as u64 - 1);
        if target <= start && start - target < r.stride.max(4) {
            let d = start - target;
            return if d == 0 {
                format!("the first slot of run {} (stride {})", k + 1, r.stride)
            } else {
                format!(
                    "{d} bytes before run {} (stride {}, {} slots)",
                    k + 1,
                    r.stride,
                    r.count
                )
            };
        }
        if target > start && target <= end {
            return format!("inside run {} at +{:#x}", k + 1, target - start);
        }
    }
    "not next to any run".into()
}
