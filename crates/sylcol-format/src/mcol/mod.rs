//! MCOL — a map's collision hull (spec: `docs/formats/mcol.md`).
//!
//! All values big-endian. Offsets are from the chunk start; every stored
//! pointer is an offset from chunk start + 0x10.
//!
//! Bytes 0x00..0x50 are the prefix REGN shares ([`crate::grid_prefix`]).
//!
//! | offset | size | field | status |
//! |---|---|---|---|
//! | 0x00 | 4 | magic `MCOL` | seed |
//! | 0x04 | 4 | data size; the POF0 table starts at 0x10 + data size | seed |
//! | 0x08 | 8 | two words | **open**, kept |
//! | 0x10 | 16 | bbox min `f32[3]`, pad f32 (1.0 in every seen file) | seed |
//! | 0x20 | 16 | bbox max `f32[3]`, pad f32 (1.0) | seed |
//! | 0x30 | 16 | extent = max - min `f32[3]`, pad f32 (0.0) | seed |
//! | 0x40 | 12 | cell size `f32[3]` | seed |
//! | 0x4C | 4 | word | **open**, kept |
//! | 0x50 | 2 | u16 vertex count | seed |
//! | 0x52 | 2 | u16 triangle count | seed |
//! | 0x54 | 4 | -> vertices `f32[3]` x nv, padded to 16 | seed |
//! | 0x58 | 4 | -> triangles `u16[3]` x nt, padded to 16 | seed |
//! | 0x5C | 4 | -> spheres {centre `f32[3]`, radius f32} x nt (= 0x80) | seed |
//! | 0x60 | 16 | four words ("mostly zeros") | **open**, kept |
//! | 0x70 | 4 | grid dimensions as bytes (nx, ny, nz, 1) | derived |
//! | 0x74 | 4 | -> cell array A (nx*ny*nz records of 32 bytes) | seed |
//! | 0x78 | 8 | two words | **open**, kept |
//!
//! Cell record A (32 bytes, dense, index x + nx*(y + ny*z)):
//!
//! | offset | size | field | status |
//! |---|---|---|---|
//! | 0x00 | 4 | cell index bytes (x, y, z, 1) | seed |
//! | 0x04 | 4 | count of B records (1 in every seen file) | seed |
//! | 0x08 | 4 | -> first B record; relocated only in occupied cells | seed |
//! | 0x0C | 4 | word (0 in every seen example) | **open**, kept |
//! | 0x10 | 16 | cell bounding sphere {centre `f32[3]`, radius f32} | seed |
//!
//! List record B (32 bytes, one per occupied cell):
//!
//! | offset | size | field | status |
//! |---|---|---|---|
//! | 0x00 | 4 | u32 count n | seed |
//! | 0x04 | 4 | -> `u16[n]` triangle indices, packed | seed |
//! | 0x08 | 24 | bytes | **open**, kept |

pub use crate::error::GridMismatch;
pub use crate::grid_prefix::{GridPrefix, GridPrefixRaw};

mod bound;
mod claims;
mod raw;
mod read;
mod write;

pub use bound::{SizeBound, max_size};
pub use raw::{CELL_SIZE, CellRaw, HEADER_SIZE, HeaderRaw, RECORD_SIZE, RecordRaw};
pub use read::decode;
pub use write::{canonical_layout, encode};

/// The chunk offsets of the four relocated header words.
pub const HEADER_SLOTS: [u32; 4] = [0x54, 0x58, 0x5C, 0x74];

/// Stored pointers are relative to this chunk offset.
pub const POINTER_BASE: u32 = 0x10;

/// A decoded MCOL object: every field of the file, geometry as plain arrays.
///
/// [`decode`] fills `layout` with where each block was found (and every byte
/// no field covers), so [`encode`] reproduces the file exactly. A model built
/// from scratch, or edited so the layout no longer fits, is written in the
/// seeds' canonical layout instead ([`canonical_layout`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Mcol {
    /// Header words: the spatial prefix, grid and every open word.
    pub header: Header,
    /// POF0 slot base: 0x10 (the pointer base, expected) or 0.
    pub pof0_base: u32,
    /// Per-triangle bounding spheres (centre, radius); one per triangle.
    pub spheres: Vec<[f32; 4]>,
    /// Vertex positions.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[u16; 3]>,
    /// The dense cell array A, `nx * ny * nz` records, x fastest.
    pub cells: Vec<Cell>,
    /// The list records B, in file (address) order.
    pub records: Vec<ListRecord>,
    /// Where everything was found; `None` for a model built from scratch.
    pub layout: Option<Layout>,
}

/// Every header word that is not a count or pointer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    /// 0x04 as read; the encoder recomputes it unless the layout is kept.
    pub data_size: u32,
    /// 0x08..0x50: the open words and the grid's space, as in every
    /// prefix ([`GridPrefix`]).
    pub prefix: GridPrefix,
    /// 0x60..0x70 (open, "mostly zeros").
    pub words_60: [u32; 4],
    /// 0x70 grid dimensions (nx, ny, nz) and the fourth byte (1 seen).
    pub grid: [u8; 4],
    /// 0x78, 0x7C (open).
    pub words_78: [u32; 2],
}

impl Header {
    /// Grid dimensions (nx, ny, nz).
    pub fn dims(&self) -> [usize; 3] {
        [
            self.grid[0] as usize,
            self.grid[1] as usize,
            self.grid[2] as usize,
        ]
    }

    /// The same header with another data size (the encoder's own choice
    /// when it lays a model out afresh).
    pub fn with_data_size(self, data_size: u32) -> Self {
        Header { data_size, ..self }
    }

    /// Number of cells, nx * ny * nz.
    pub fn cell_count(&self) -> usize {
        let [x, y, z] = self.dims();
        x * y * z
    }
}

/// One record of the cell array A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Word 0 as bytes: (x, y, z, 1) in occupied cells.
    pub index: [u8; 4],
    /// Word 1: how many consecutive B records the cell owns (1 seen).
    pub count: u32,
    /// Word 2: the relocated link to B, or the raw word of an empty cell.
    pub link: CellLink,
    /// Word 3 (open).
    pub word3: u32,
    /// Words 4-7: the cell's bounding sphere (centre, radius).
    pub sphere: [f32; 4],
}

/// What word 2 of a cell record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellLink {
    /// A relocated pointer to `records[i]` (the first of `count`).
    Record(u32),
    /// A word with no relocation (an empty cell); kept as read (0 seen).
    Raw(u32),
}

impl Cell {
    /// The B record index when the cell is occupied (its link is relocated).
    pub fn record(&self) -> Option<usize> {
        match self.link {
            CellLink::Record(i) => Some(i as usize),
            CellLink::Raw(_) => None,
        }
    }
}

/// One record of the list array B: a cell's triangle list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRecord {
    /// Triangle indices (the u16 list the record points at; count = len).
    pub triangles: Vec<u16>,
    /// Bytes 8-31 (open).
    pub tail: [u8; 24],
}

/// Where each block of a decoded file lies, and the bytes no field covers.
/// All offsets are chunk offsets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    /// Target of 0x5C.
    pub spheres: u32,
    /// Target of 0x54.
    pub vertices: u32,
    /// Target of 0x58.
    pub triangles: u32,
    /// Target of 0x74.
    pub cells: u32,
    /// Offset of each B record, parallel to `Mcol::records`.
    pub records: Vec<u32>,
    /// Offset of each record's u16 list, parallel to `Mcol::records`.
    pub lists: Vec<u32>,
    /// Bytes in the data region (0x80 .. 0x10 + data size) that no field
    /// covers: padding, gaps. Written back verbatim.
    pub gaps: Vec<Gap>,
    /// The encoded POF0 table as read (entries and padding, no framing),
    /// reused when it encodes the same slot set.
    pub pof0_table: Vec<u8>,
    /// Bytes after the POF0 table, to the end of the input.
    pub trailer: Vec<u8>,
}

/// A run of bytes no field covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// Chunk offset of the first byte.
    pub offset: u32,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Mcol {
    /// Number of occupied cells (cells whose link is relocated).
    pub fn occupied_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.record().is_some()).count()
    }

    /// Total number of u16 list entries over all records.
    pub fn list_entries(&self) -> usize {
        self.records.iter().map(|r| r.triangles.len()).sum()
    }

    /// The triangle list of cell `cell` (all B records it owns, concatenated
    /// when count > 1), or an empty slice for an empty cell.
    pub fn cell_lists(&self, cell: usize) -> impl Iterator<Item = &[u16]> + '_ {
        let c = &self.cells[cell];
        let (first, n) = match c.link {
            CellLink::Record(i) => (i as usize, c.count as usize),
            CellLink::Raw(_) => (0, 0),
        };
        self.records[first.min(self.records.len())..(first + n).min(self.records.len())]
            .iter()
            .map(|r| r.triangles.as_slice())
    }
}
