//! REGN — the map's other object, as far as the write-ups know it (spec:
//! `docs/formats/regn.md`). Only what is stated is read; every open field
//! is a raw word and every byte is kept.
//!
//! All values big-endian; offsets are chunk offsets; stored pointers are
//! offsets from chunk + 0x10, listed in the POF0 table.
//!
//! Bytes 0x00..0x50 are the prefix MCOL shares ([`crate::grid_prefix`]).
//!
//! | offset | size | field | status |
//! |---|---|---|---|
//! | 0x00 | 4 | magic `REGN` | known |
//! | 0x04 | 4 | data size; POF0 at 0x10 + data size | known |
//! | 0x08 | 8 | two words | **open**, raw |
//! | 0x10 | 16 | bbox min `f32[3]`, pad word (1.0 expected) | known; pad checked |
//! | 0x20 | 16 | bbox max `f32[3]`, pad word (1.0 expected) | known; pad checked |
//! | 0x30 | 16 | extent `f32[3]` (= max - min), pad word (0.0 expected) | known; checked |
//! | 0x40 | 12 | cell size `f32[3]` | known |
//! | 0x4C | 4 | word | **open**, raw |
//! | 0x50 | 16 | grid dimensions, then more bytes | place known; encoding **open** ([`GridReading`]) |
//! | 0x60 | 12 | six u16 counts | known |
//! | 0x6C | 4 | word | **open**, raw |
//! | 0x70 | 24 | six section pointers, relocated | known |
//! | 0x88 | .. | bytes to the first section | derived position; **open**, raw |
//!
//! Sections (derived from the reading): section i = (pointer i,
//! count i); its span runs from its target to the next higher section
//! target or to the data end; stride = span / count when that divides.
//! Which section is cells, items, refs, tetrahedra or vertices is **open**;
//! [`assumptions`] tests two readings (a 12-byte vertex section, a cell
//! section in MCOL's cell-index convention) on every file.

pub use crate::grid_prefix::{GridPrefix, GridPrefixRaw};
use zerocopy::FromBytes;
use zerocopy::byteorder::big_endian::F32;

mod assumptions;
mod raw;
mod read;
mod write;

pub use assumptions::{
    Assumption, Break, CellScan, GridEncoding, GridReading, MAX_BREAKS, Rule, assumptions,
    cell_scan, grid_reading, implied_dims,
};
pub use raw::{HEADER_SIZE, HeaderRaw};
pub use read::decode;
pub use write::{NewSection, encode, from_sections};

/// Chunk offsets of the six section pointers.
pub const POINTER_SLOTS: [u32; 6] = [0x70, 0x74, 0x78, 0x7C, 0x80, 0x84];
/// Chunk offset of the six u16 counts.
pub const COUNTS_AT: u32 = 0x60;
/// Chunk offset of the grid dimensions.
pub const GRID_AT: u32 = 0x50;
/// Stored pointers are relative to this chunk offset.
pub const POINTER_BASE: u32 = 0x10;

/// A decoded REGN chunk: the header's fields and every other byte.
#[derive(Debug, Clone, PartialEq)]
pub struct Regn {
    /// The header, field by field (open fields raw).
    pub header: Header,
    /// POF0 slot base: 0x10 (expected) or 0.
    pub pof0_base: u32,
    /// Chunk offsets of every relocated word, ascending.
    pub slots: Vec<u32>,
    /// The data after the header: chunk bytes 0x88 .. 0x10 + data size.
    pub body: Vec<u8>,
    /// The encoded POF0 table as read (entries and padding), reused when the
    /// slots are unchanged.
    pub pof0_table: Vec<u8>,
    /// Bytes after the POF0 table, to the end of the input.
    pub trailer: Vec<u8>,
}

/// The header fields (the data size is the body's: see [`Regn::data_size`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    /// 0x08..0x50: the open words and the grid's space, as in every
    /// prefix ([`GridPrefix`]).
    pub prefix: GridPrefix,
    /// 0x50..0x60: the grid dimensions in an open encoding, and what follows.
    pub grid: [u8; 16],
    /// 0x60 the six u16 counts.
    pub counts: [u16; 6],
    /// 0x6C (open).
    pub word_6c: u32,
    /// 0x70 the six section pointers, as stored.
    pub pointers: [u32; 6],
}

/// One of the six sections, as the header places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// 0..6: which pointer and count.
    pub index: usize,
    /// The pointer word's chunk offset (0x70 + 4 i).
    pub pointer_at: u32,
    /// The stored pointer.
    pub pointer: u32,
    /// The count word's chunk offset (0x60 + 2 i).
    pub count_at: u32,
    /// The u16 count.
    pub count: u16,
    /// Chunk offset of the first byte, when the pointer is relocated.
    pub target: Option<u64>,
    /// Bytes to the next higher section target (or the data end).
    pub span: Option<u64>,
    /// span / count when count divides span.
    pub stride: Option<u64>,
}

impl Section {
    /// Whether the count divides the span (a zero count divides only an
    /// empty span); `None` for a section without a target.
    pub fn divides(&self) -> Option<bool> {
        let span = self.span?;
        Some(match self.count {
            0 => span == 0,
            n => span.is_multiple_of(u64::from(n)),
        })
    }
}

impl Regn {
    /// End of the data (exclusive chunk offset): 0x88 + body length.
    pub fn data_end(&self) -> u64 {
        (HEADER_SIZE + self.body.len()) as u64
    }

    /// The data size word: data end - 0x10.
    pub fn data_size(&self) -> u64 {
        self.data_end() - 0x10
    }

    /// Whether POF0 relocates the word at chunk offset `at`.
    pub fn relocated(&self, at: u32) -> bool {
        self.slots.binary_search(&at).is_ok()
    }

    /// The six sections: targets, spans and strides.
    pub fn sections(&self) -> [Section; 6] {
        let targets: [Option<u64>; 6] = std::array::from_fn(|i| {
            self.relocated(POINTER_SLOTS[i])
                .then(|| u64::from(self.header.pointers[i]) + u64::from(POINTER_BASE))
        });
        let end = self.data_end();
        std::array::from_fn(|i| {
            let target = targets[i];
            let span = target.map(|t| {
                let next = targets.iter().flatten().filter(|&&o| o > t).min();
                next.copied().unwrap_or(end).saturating_sub(t)
            });
            let count = self.header.counts[i];
            let stride = span
                .filter(|&s| count > 0 && s.is_multiple_of(u64::from(count)))
                .map(|s| s / u64::from(count));
            Section {
                index: i,
                pointer_at: POINTER_SLOTS[i],
                pointer: self.header.pointers[i],
                count_at: COUNTS_AT + 2 * i as u32,
                count,
                target,
                span,
                stride,
            }
        })
    }

    /// The bytes of a placed section (its whole span).
    pub fn section_bytes(&self, s: &Section) -> Option<&[u8]> {
        let start = usize::try_from(s.target?).ok()?.checked_sub(HEADER_SIZE)?;
        let len = usize::try_from(s.span?).ok()?;
        self.body.get(start..start.checked_add(len)?)
    }

    /// The bytes at chunk offset `at` (header excluded), `len` long.
    pub fn bytes_at(&self, at: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(at).ok()?.checked_sub(HEADER_SIZE)?;
        self.body.get(start..start.checked_add(len)?)
    }

    /// The one section whose stride is 12 (the write-ups' "12-byte
    /// vertices"); `None` when no section or several have that stride.
    pub fn vertex_section(&self) -> Option<Section> {
        let mut twelve = self.sections().into_iter().filter(|s| s.stride == Some(12));
        let first = twelve.next()?;
        twelve.next().is_none().then_some(first)
    }

    /// The vertex section's elements read as `f32[3]` (see [`Regn::vertex_section`]).
    pub fn vertices(&self) -> Option<Vec<[f32; 3]>> {
        let s = self.vertex_section()?;
        let vertices = <[[F32; 3]]>::ref_from_bytes(self.section_bytes(&s)?).ok()?;
        Some(vertices.iter().map(|v| v.map(F32::get)).collect())
    }
}

#[cfg(test)]
mod tests;
