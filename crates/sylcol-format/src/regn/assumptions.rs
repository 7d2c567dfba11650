//! The write-ups' assumptions about REGN, checked on one file: each with
//! how many cases it covers, how many hold, and the offsets where it breaks
//! (see `docs/formats/regn.md`, "What sylcol checks on every file").

use std::collections::BTreeSet;

use super::raw::HEADER_SIZE;
use super::{GRID_AT, POINTER_SLOTS, Regn, Section};
use crate::grid_prefix::PAD_OFFSETS;

/// How many breaks an [`Assumption`] lists (the count covers them all).
pub const MAX_BREAKS: usize = 8;

/// An assumption sylcol checks on every REGN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Each of the six section pointers is relocated by POF0.
    PointersRelocated,
    /// Every relocated word in the header is one of the six pointers.
    HeaderSlots,
    /// The bbox pad words are 1.0 / 1.0 / 0.0.
    Pads,
    /// extent = max - min on each axis.
    Extent,
    /// 0x50 holds the grid dimensions the bbox and cell size imply.
    GridDims,
    /// Each placed section's count divides its span.
    SpansDivide,
    /// Exactly one section holds cell records (MCOL's cell-index convention).
    CellSection,
    /// Every occupied cell's count word is 1.
    CellCountOne,
    /// Another section holds one record per occupied cell (the items).
    ItemsPerCell,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Rule; 9] = [
        Rule::PointersRelocated,
        Rule::HeaderSlots,
        Rule::Pads,
        Rule::Extent,
        Rule::GridDims,
        Rule::SpansDivide,
        Rule::CellSection,
        Rule::CellCountOne,
        Rule::ItemsPerCell,
    ];

    /// The rule in words.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::PointersRelocated => "the six section pointers 0x70..0x84 are relocated",
            Rule::HeaderSlots => "relocated header words are section pointers only",
            Rule::Pads => "bbox pad words are 1.0 / 1.0 / 0.0",
            Rule::Extent => "extent == max - min",
            Rule::GridDims => "0x50 holds ceil((max - min) / cell) per axis",
            Rule::SpansDivide => "each section's count divides its span",
            Rule::CellSection => "one section holds cell records (x, y, z, 1)",
            Rule::CellCountOne => "every occupied cell's count is 1",
            Rule::ItemsPerCell => "a section holds one item per occupied cell",
        }
    }
}

/// Where an assumption breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// Chunk offset of the word that breaks it.
    pub offset: u64,
    /// What is there instead.
    pub detail: String,
}

/// One assumption checked on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumption {
    /// Which assumption.
    pub rule: Rule,
    /// Cases it was tested on.
    pub cases: u64,
    /// Cases where it holds.
    pub held: u64,
    /// The first [`MAX_BREAKS`] breaks, in offset order of discovery.
    pub breaks: Vec<Break>,
}

impl Assumption {
    /// Whether it holds in every case.
    pub fn holds(&self) -> bool {
        self.held == self.cases
    }

    fn new(rule: Rule) -> Self {
        Assumption {
            rule,
            cases: 0,
            held: 0,
            breaks: Vec::new(),
        }
    }

    fn case(&mut self, holds: bool, offset: u64, detail: impl FnOnce() -> String) {
        self.cases += 1;
        if holds {
            self.held += 1;
        } else if self.breaks.len() < MAX_BREAKS {
            self.breaks.push(Break {
                offset,
                detail: detail(),
            });
        }
    }
}

/// How the grid dimensions at 0x50 are stored (open; the first reading
/// that matches the bbox and cell size wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GridEncoding {
    /// Three big-endian u32 at 0x50, 0x54, 0x58.
    U32,
    /// Three big-endian u16 at 0x50, 0x52, 0x54.
    U16,
    /// Three bytes at 0x50, 0x51, 0x52 (MCOL's 0x70 convention).
    U8,
}

impl GridEncoding {
    /// `"u32[3]"`, `"u16[3]"` or `"u8[3]"`.
    pub fn as_str(self) -> &'static str {
        match self {
            GridEncoding::U32 => "u32[3]",
            GridEncoding::U16 => "u16[3]",
            GridEncoding::U8 => "u8[3]",
        }
    }

    fn read(self, grid: &[u8; 16]) -> [u64; 3] {
        std::array::from_fn(|k| match self {
            GridEncoding::U32 => u64::from(u32::from_be_bytes([
                grid[4 * k],
                grid[4 * k + 1],
                grid[4 * k + 2],
                grid[4 * k + 3],
            ])),
            GridEncoding::U16 => u64::from(u16::from_be_bytes([grid[2 * k], grid[2 * k + 1]])),
            GridEncoding::U8 => u64::from(grid[k]),
        })
    }
}

/// The grid dimensions found at 0x50 and how they are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridReading {
    /// The matching encoding.
    pub encoding: GridEncoding,
    /// (nx, ny, nz).
    pub dims: [u64; 3],
}

/// The dimensions the bbox and cell size imply, when they imply any.
pub fn implied_dims(regn: &Regn) -> Option<[u64; 3]> {
    let dims = regn.header.prefix.implied_cells();
    Some([dims[0]?, dims[1]?, dims[2]?])
}

/// The first reading of 0x50 (u32, u16, u8) that holds the implied grid.
pub fn grid_reading(regn: &Regn) -> Option<GridReading> {
    let dims = implied_dims(regn)?;
    [GridEncoding::U32, GridEncoding::U16, GridEncoding::U8]
        .into_iter()
        .find(|e| e.read(&regn.header.grid) == dims)
        .map(|encoding| GridReading { encoding, dims })
}

/// A section whose records read as cell records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellScan {
    /// The section.
    pub section: Section,
    /// Its stride (record size).
    pub stride: u64,
    /// Chunk offsets of the records whose first word is a cell index.
    pub occupied: Vec<u64>,
    /// Records that are all zero.
    pub empty: u64,
}

/// Every section whose records (stride a multiple of 4, at least 8) all
/// start with a cell index (x, y, z, 1) inside `dims` — each cell once —
/// or are all zero (an empty cell), at least one with an index.
pub fn cell_scan(regn: &Regn, dims: [u64; 3]) -> Vec<CellScan> {
    regn.sections()
        .into_iter()
        .filter_map(|s| scan_section(regn, s, dims))
        .collect()
}

fn scan_section(regn: &Regn, section: Section, dims: [u64; 3]) -> Option<CellScan> {
    let stride = section.stride.filter(|&s| s >= 8 && s % 4 == 0)?;
    let bytes = regn.section_bytes(&section)?;
    let start = section.target?;
    let mut seen = BTreeSet::new();
    let mut occupied = Vec::new();
    let mut empty = 0;
    for (i, r) in bytes.chunks_exact(stride as usize).enumerate() {
        if r.iter().all(|&b| b == 0) {
            empty += 1;
            continue;
        }
        let index = [r[0], r[1], r[2], r[3]];
        let inside = (0..3).all(|k| u64::from(index[k]) < dims[k]);
        if index[3] != 1 || !inside || !seen.insert(index) {
            return None;
        }
        occupied.push(start + i as u64 * stride);
    }
    (!occupied.is_empty()).then_some(CellScan {
        section,
        stride,
        occupied,
        empty,
    })
}

/// Checks every assumption of `docs/formats/regn.md` on `regn`.
pub fn assumptions(regn: &Regn) -> Vec<Assumption> {
    let mut out = vec![
        pointers_relocated(regn),
        header_slots(regn),
        pads(regn),
        extent(regn),
        grid_dims(regn),
        spans_divide(regn),
    ];
    out.extend(cell_assumptions(regn));
    out
}

fn pointers_relocated(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::PointersRelocated);
    for (i, &at) in POINTER_SLOTS.iter().enumerate() {
        a.case(regn.relocated(at), at.into(), || {
            format!(
                "section {i}'s pointer {:#x} is not in the POF0 table",
                regn.header.pointers[i]
            )
        });
    }
    a
}

fn header_slots(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::HeaderSlots);
    for &slot in regn.slots.iter().filter(|&&s| s < HEADER_SIZE as u32) {
        a.case(POINTER_SLOTS.contains(&slot), slot.into(), || {
            format!("relocated word at {slot:#x} is not one of 0x70..0x84")
        });
    }
    a
}

fn pads(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::Pads);
    let want = [1.0f32, 1.0, 0.0];
    for (k, at) in PAD_OFFSETS.into_iter().enumerate() {
        let bits = regn.header.prefix.pads[k];
        a.case(bits == want[k].to_bits(), at, || {
            format!("{bits:#010x} ({}), not {:?}", f32::from_bits(bits), want[k])
        });
    }
    a
}

fn extent(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::Extent);
    let h = &regn.header;
    for k in 0..3 {
        let diff = h.prefix.bbox_max[k] - h.prefix.bbox_min[k];
        a.case(h.prefix.extent[k] == diff, 0x30 + 4 * k as u64, || {
            format!("extent {} but max - min = {diff}", h.prefix.extent[k])
        });
    }
    a
}

fn grid_dims(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::GridDims);
    a.case(grid_reading(regn).is_some(), GRID_AT.into(), || {
        let g = &regn.header.grid;
        match implied_dims(regn) {
            Some(d) => format!(
                "the bbox and cell size imply {}x{}x{}, 0x50 holds {:02x?} (no u32/u16/u8 reading matches)",
                d[0], d[1], d[2], &g[..12]
            ),
            None => "the cell size does not divide the bbox into a grid".into(),
        }
    });
    a
}

fn spans_divide(regn: &Regn) -> Assumption {
    let mut a = Assumption::new(Rule::SpansDivide);
    for s in regn.sections() {
        if let Some(divides) = s.divides() {
            a.case(divides, s.count_at.into(), || {
                format!(
                    "section {} spans {} bytes at {:#x}, which {} records do not divide",
                    s.index,
                    s.span.unwrap_or(0),
                    s.target.unwrap_or(0),
                    s.count
                )
            });
        }
    }
    a
}

/// The cell section, the per-cell count and the items, on the grid the
/// header implies.
fn cell_assumptions(regn: &Regn) -> [Assumption; 3] {
    let mut section = Assumption::new(Rule::CellSection);
    let mut count_one = Assumption::new(Rule::CellCountOne);
    let mut items = Assumption::new(Rule::ItemsPerCell);
    let scans = implied_dims(regn).map_or_else(Vec::new, |d| cell_scan(regn, d));
    section.case(scans.len() == 1, POINTER_SLOTS[0].into(), || {
        let which: Vec<usize> = scans.iter().map(|s| s.section.index).collect();
        match which.len() {
            0 => "no section's records all start with a cell index (x, y, z, 1) or are zero".into(),
            _ => format!("sections {which:?} all read as cell records"),
        }
    });
    if let [scan] = scans.as_slice() {
        for &at in &scan.occupied {
            let count = regn
                .bytes_at(at + 4, 4)
                .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
            count_one.case(count == Some(1), at + 4, || match count {
                Some(n) => format!("the cell record at {at:#x} has count {n}"),
                None => format!("the cell record at {at:#x} has no count word"),
            });
        }
        let occupied = scan.occupied.len() as u64;
        let sections = regn.sections();
        let matching = sections
            .iter()
            .any(|s| s.index != scan.section.index && u64::from(s.count) == occupied);
        items.case(matching, 0x60, || {
            format!(
                "{occupied} occupied cells (section {}), but no other section has {occupied} records: counts {:?}",
                scan.section.index, regn.header.counts
            )
        });
    }
    [section, count_one, items]
}
