//! MCOL decoder: follows the header pointers and the POF0 table, checks
//! every pointer and count against the input before reading, and records
//! where everything lay so the writer can reproduce the file.

use crate::grid_prefix::GridPrefix;
use std::collections::BTreeSet;

use zerocopy::byteorder::big_endian::{F32, U16};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use super::claims::{self, Claim};
use super::raw::{CellRaw, HeaderRaw, RecordRaw};
use super::{
    CELL_SIZE, Cell, CellLink, Gap, HEADER_SIZE, HEADER_SLOTS, Header, Layout, ListRecord, Mcol,
    POINTER_BASE, RECORD_SIZE,
};
use crate::bytes::slice;
use crate::chunk::{Chunk, NoBase};
use crate::error::{DecodeError, DecodeErrorKind, GridMismatch};

/// Decodes one MCOL chunk (the whole input, from its `MCOL` magic).
///
/// The POF0 slot base is 0x10 when every slot holds an in-data pointer
/// under it and the object decodes; base 0 is tried otherwise. The error
/// returned is the one from the first base whose slots all pass, or the
/// first bad slot under base 0x10.
pub fn decode(data: &[u8]) -> Result<Mcol, DecodeError> {
    let header = read_header(data)?;
    let chunk = Chunk::parse(data)?;
    chunk
        .pick_base(data, |base| {
            Decoder::new(data, &chunk, base, header).and_then(Decoder::run)
        })
        .map(|(_, mcol)| mcol)
        .map_err(NoBase::into_error)
}

fn read_header(data: &[u8]) -> Result<HeaderRaw, DecodeError> {
    let bytes = slice(data, 0, HEADER_SIZE as u64, "the 0x80-byte MCOL header")?;
    let h = HeaderRaw::read_from_bytes(bytes).expect("slice has the header's size");
    if &h.prefix.magic != b"MCOL" {
        return Err(DecodeError::new(
            0u64,
            DecodeErrorKind::BadMagic {
                expected: "MCOL".into(),
                found: crate::bytes::show_magic(&h.prefix.magic),
            },
        ));
    }
    Ok(h)
}

struct Decoder<'a> {
    data: &'a [u8],
    chunk: &'a Chunk<'a>,
    base: u32,
    raw: HeaderRaw,
    /// Chunk offsets of relocated words, ascending.
    slots: Vec<u32>,
    data_end: u64,
}

fn err(offset: u64, kind: DecodeErrorKind) -> DecodeError {
    DecodeError::new(offset, kind)
}

impl<'a> Decoder<'a> {
    fn new(
        data: &'a [u8],
        chunk: &'a Chunk<'a>,
        base: u32,
        raw: HeaderRaw,
    ) -> Result<Self, DecodeError> {
        let data_end = chunk.data_end();
        if data_end < HEADER_SIZE as u64 {
            return Err(err(
                4,
                DecodeErrorKind::McolDataSizeInHeader {
                    data_size: chunk.data_size,
                },
            ));
        }
        Ok(Decoder {
            data,
            chunk,
            base,
            raw,
            slots: chunk.slots(base),
            data_end,
        })
    }

    fn relocated(&self, offset: u64) -> bool {
        u32::try_from(offset).is_ok_and(|o| self.slots.binary_search(&o).is_ok())
    }

    /// Resolves the pointer stored at `field`: relocated, into the data, past the header.
    fn pointer(&self, field: u64, value: u32, what: &str) -> Result<u64, DecodeError> {
        let target = u64::from(value) + u64::from(POINTER_BASE);
        let bad = |detail: &str| {
            err(
                field,
                DecodeErrorKind::BadPointer {
                    what: what.to_string(),
                    value: value.into(),
                    target,
                    detail: detail.to_string(),
                },
            )
        };
        if !self.relocated(field) {
            return Err(bad("is not relocated by the POF0 table"));
        }
        if target < HEADER_SIZE as u64 {
            return Err(bad("points into the 0x80-byte header"));
        }
        if target >= self.data_end {
            return Err(bad(&format!(
                "points past the data end {:#x}",
                self.data_end
            )));
        }
        Ok(target)
    }

    /// The `len` bytes at a block pointer's target, checked to fit the data.
    fn block(
        &self,
        field: u64,
        target: u64,
        len: u64,
        what: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        if target.saturating_add(len) > self.data_end {
            return Err(err(
                field,
                DecodeErrorKind::McolBlockPastData {
                    what,
                    len,
                    at: target,
                    data_end: self.data_end,
                },
            ));
        }
        slice(self.data, target, len, what)
    }

    /// The `count` elements at a block pointer's target, read in place
    /// (checked to fit the data, as [`Decoder::block`]).
    fn array<T: FromBytes + KnownLayout + Immutable + Unaligned>(
        &self,
        field: u64,
        target: u64,
        count: u64,
        what: &'static str,
    ) -> Result<&'a [T], DecodeError> {
        let bytes = self.block(field, target, size_of::<T>() as u64 * count, what)?;
        Ok(<[T]>::ref_from_bytes(bytes).expect("a whole number of unaligned elements"))
    }

    fn run(self) -> Result<Mcol, DecodeError> {
        let h = &self.raw;
        let header = header_model(h, self.chunk.data_size);
        check_grid(&header)?;
        let nv = u64::from(h.vertex_count.get());
        let nt = u64::from(h.triangle_count.get());
        let vertices_at = self.pointer(0x54, h.vertices.get(), "0x54 (vertices)")?;
        let triangles_at = self.pointer(0x58, h.triangles.get(), "0x58 (triangles)")?;
        let spheres_at = self.pointer(0x5C, h.spheres.get(), "0x5C (spheres)")?;
        let cells_at = self.pointer(0x74, h.cells.get(), "0x74 (cells)")?;

        let vertices: &[[F32; 3]] = self.array(0x54, vertices_at, nv, "vertex count (0x50)")?;
        let vertices = vertices.iter().map(|v| v.map(F32::get)).collect();
        let triangles = self.read_triangles(triangles_at, nt, nv)?;
        let spheres: &[[F32; 4]] =
            self.array(0x5C, spheres_at, nt, "triangle count (0x52), spheres")?;
        let spheres = spheres.iter().map(|s| s.map(F32::get)).collect();
        let ncells = header.cell_count() as u64;
        let cells_raw = self.array(0x74, cells_at, ncells, "grid cell count (0x70)")?;

        let (cells, record_offsets) = self.read_cells(cells_at, cells_raw)?;
        let (records, lists) = self.read_records(&record_offsets, nt)?;
        self.check_relocations(&cells, &record_offsets, cells_at)?;

        let mut mcol = Mcol {
            header,
            pof0_base: self.base,
            spheres,
            vertices,
            triangles,
            cells,
            records,
            layout: None,
        };
        let layout = Layout {
            spheres: spheres_at as u32,
            vertices: vertices_at as u32,
            triangles: triangles_at as u32,
            cells: cells_at as u32,
            records: record_offsets.iter().map(|&o| o as u32).collect(),
            lists,
            gaps: Vec::new(),
            pof0_table: self.chunk.table.to_vec(),
            trailer: self.data[self.chunk.table_end as usize..].to_vec(),
        };
        let gaps = self.gaps(claims::claims(&mcol, &layout))?;
        mcol.layout = Some(Layout { gaps, ..layout });
        Ok(mcol)
    }

    fn read_triangles(&self, at: u64, nt: u64, nv: u64) -> Result<Vec<[u16; 3]>, DecodeError> {
        let raw: &[[U16; 3]] = self.array(0x58, at, nt, "triangle count (0x52)")?;
        let mut out = Vec::with_capacity(raw.len());
        for (i, t) in raw.iter().enumerate() {
            let tri = t.map(U16::get);
            if let Some(k) = (0..3).find(|&k| u64::from(tri[k]) >= nv) {
                return Err(err(
                    at + 6 * i as u64 + 2 * k as u64,
                    DecodeErrorKind::IndexOutOfRange {
                        what: "triangle vertex",
                        index: tri[k].into(),
                        limit: nv,
                    },
                ));
            }
            out.push(tri);
        }
        Ok(out)
    }

    /// Reads array A; returns the cells and the distinct B record offsets
    /// they reach, ascending.
    fn read_cells(&self, at: u64, raw: &[CellRaw]) -> Result<(Vec<Cell>, Vec<u64>), DecodeError> {
        let mut raw_cells = Vec::with_capacity(raw.len());
        let mut targets = BTreeSet::new();
        let mut claimed: u64 = 0;
        for (i, c) in raw.iter().enumerate() {
            let at_cell = at + (CELL_SIZE * i) as u64;
            let mut target = None;
            if self.relocated(at_cell + 8) {
                let t = self.pointer(at_cell + 8, c.link.get(), "a cell's record link")?;
                let count = u64::from(c.count.get());
                claimed += count;
                if count == 0 || claimed > self.slots.len() as u64 {
                    return Err(err(
                        at_cell + 4,
                        DecodeErrorKind::McolCellRecordCount {
                            count,
                            relocations: self.slots.len(),
                        },
                    ));
                }
                for j in 0..count {
                    targets.insert(t + RECORD_SIZE as u64 * j);
                }
                target = Some(t);
            }
            raw_cells.push((c, target));
        }
        let offsets: Vec<u64> = targets.into_iter().collect();
        let cells = raw_cells
            .into_iter()
            .map(|(c, target)| Cell {
                index: c.index,
                count: c.count.get(),
                link: match target {
                    Some(t) => {
                        CellLink::Record(offsets.binary_search(&t).expect("inserted above") as u32)
                    }
                    None => CellLink::Raw(c.link.get()),
                },
                word3: c.word3.get(),
                sphere: c.sphere.map(|f| f.get()),
            })
            .collect();
        Ok((cells, offsets))
    }

    /// Reads array B at the given offsets; returns the records and their list offsets.
    fn read_records(
        &self,
        offsets: &[u64],
        nt: u64,
    ) -> Result<(Vec<ListRecord>, Vec<u32>), DecodeError> {
        let mut records = Vec::with_capacity(offsets.len());
        let mut lists = Vec::with_capacity(offsets.len());
        for &at in offsets {
            let bytes = self.block(at, at, RECORD_SIZE as u64, "a list record")?;
            let r = RecordRaw::read_from_bytes(bytes).expect("32 bytes");
            let n = u64::from(r.count.get());
            let list_at = self.pointer(at + 4, r.list.get(), "a list record's list")?;
            let list: &[U16] = self.array(at, list_at, n, "list record count")?;
            let mut triangles = Vec::with_capacity(list.len());
            for (k, e) in list.iter().enumerate() {
                let t = e.get();
                if u64::from(t) >= nt {
                    return Err(err(
                        list_at + 2 * k as u64,
                        DecodeErrorKind::IndexOutOfRange {
                            what: "list entry (triangle)",
                            index: t.into(),
                            limit: nt,
                        },
                    ));
                }
                triangles.push(t);
            }
            records.push(ListRecord {
                triangles,
                tail: r.tail,
            });
            lists.push(list_at as u32);
        }
        Ok((records, lists))
    }

    /// Every relocated word must be one of MCOL's pointer fields.
    fn check_relocations(
        &self,
        cells: &[Cell],
        records: &[u64],
        cells_at: u64,
    ) -> Result<(), DecodeError> {
        let mut expected: Vec<u64> = HEADER_SLOTS.iter().map(|&s| u64::from(s)).collect();
        expected.extend(
            cells
                .iter()
                .enumerate()
                .filter(|(_, c)| c.record().is_some())
                .map(|(i, _)| cells_at + (CELL_SIZE * i) as u64 + 8),
        );
        expected.extend(records.iter().map(|r| r + 4));
        expected.sort_unstable();
        if let Some(&extra) = self
            .slots
            .iter()
            .find(|&&s| expected.binary_search(&u64::from(s)).is_err())
        {
            return Err(err(
                extra.into(),
                DecodeErrorKind::McolStrayRelocation { word: extra },
            ));
        }
        Ok(())
    }

    fn gaps(&self, claims: Vec<Claim>) -> Result<Vec<Gap>, DecodeError> {
        let uncovered = claims::check(claims, self.data_end).map_err(|e| {
            err(
                e.offset,
                DecodeErrorKind::Overlap {
                    what: e.message,
                    other: "another structure".into(),
                },
            )
        })?;
        Ok(uncovered
            .into_iter()
            .map(|(a, b)| Gap {
                offset: a as u32,
                bytes: self.data[a as usize..b as usize].to_vec(),
            })
            .collect())
    }
}

fn header_model(h: &HeaderRaw, data_size: u32) -> Header {
    Header {
        data_size,
        prefix: GridPrefix::from_raw(&h.prefix),
        words_60: h.words_60.map(|w| w.get()),
        grid: h.grid,
        words_78: h.words_78.map(|w| w.get()),
    }
}

/// The first axis whose grid byte at 0x70 is not ceil((max - min) / cell
/// size), if any.
pub(super) fn grid_mismatch(h: &Header) -> Option<GridMismatch> {
    let implied = h.prefix.implied_cells();
    (0..3)
        .find(|&k| implied[k] != Some(u64::from(h.grid[k])))
        .map(|axis| GridMismatch {
            axis,
            cells: h.grid[axis],
            min: h.prefix.bbox_min[axis],
            max: h.prefix.bbox_max[axis],
            cell_size: h.prefix.cell_size[axis],
        })
}

/// The grid bytes at 0x70 must be ceil((max - min) / cell size) per axis:
/// an error at the first byte that is not.
fn check_grid(h: &Header) -> Result<(), DecodeError> {
    match grid_mismatch(h) {
        None => Ok(()),
        Some(m) => Err(err(0x70 + m.axis as u64, DecodeErrorKind::McolGrid(m))),
    }
}
