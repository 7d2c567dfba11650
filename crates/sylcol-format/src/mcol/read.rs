//! MCOL decoder: follows the header pointers and the POF0 table, checks
//! every pointer and count against the input before reading, and records
//! where everything lay so the writer can reproduce the file.

use crate::grid_prefix::GridPrefix;
use std::collections::BTreeSet;

use zerocopy::FromBytes;

use super::claims::{self, Claim};
use super::raw::{CellRaw, HeaderRaw, RecordRaw};
use super::{
    CELL_SIZE, Cell, CellLink, Gap, HEADER_SIZE, HEADER_SLOTS, Header, Layout, ListRecord, Mcol,
    POINTER_BASE, RECORD_SIZE,
};
use crate::bytes::slice;
use crate::chunk::{CANDIDATE_BASES, Chunk};
use crate::error::{DecodeError, DecodeErrorKind};

/// Decodes one MCOL chunk (the whole input, from its `MCOL` magic).
///
/// The POF0 slot base is 0x10 when every slot holds an in-data pointer
/// under it and the object decodes; base 0 is tried otherwise. The error
/// returned is the one from the first base whose slots all pass, or the
/// first bad slot under base 0x10.
pub fn decode(data: &[u8]) -> Result<Mcol, DecodeError> {
    let header = read_header(data)?;
    let chunk = Chunk::parse(data)?;
    let mut decode_error = None;
    for base in CANDIDATE_BASES {
        if chunk.first_bad_slot(data, base).is_some() {
            continue;
        }
        match Decoder::new(data, &chunk, base, header).and_then(Decoder::run) {
            Ok(m) => return Ok(m),
            Err(e) => {
                decode_error.get_or_insert(e);
            }
        }
    }
    Err(match decode_error {
        Some(e) => e,
        None => chunk.resolve_base(data).err().unwrap_or_else(|| {
            DecodeError::new(0u64, DecodeErrorKind::Invalid("no POF0 base fits".into()))
        }),
    })
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
                DecodeErrorKind::BadCount {
                    what: "data size",
                    detail: format!("{:#x} is smaller than the header (0x70)", chunk.data_size),
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
                DecodeErrorKind::BadCount {
                    what,
                    detail: format!(
                        "{len} bytes at {target:#x} run past the data end {:#x}",
                        self.data_end
                    ),
                },
            ));
        }
        slice(self.data, target, len, what)
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

        let vertices = self.block(0x54, vertices_at, 12 * nv, "vertex count (0x50)")?;
        let vertices: Vec<[f32; 3]> = vertices.chunks_exact(12).map(read_f32x3).collect();
        let triangles = self.read_triangles(triangles_at, nt, nv)?;
        let spheres = self.block(0x5C, spheres_at, 16 * nt, "triangle count (0x52), spheres")?;
        let spheres: Vec<[f32; 4]> = spheres.chunks_exact(16).map(read_f32x4).collect();
        let ncells = header.cell_count() as u64;
        let cells_raw = self.block(
            0x74,
            cells_at,
            CELL_SIZE as u64 * ncells,
            "grid cell count (0x70)",
        )?;

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
        let bytes = self.block(0x58, at, 6 * nt, "triangle count (0x52)")?;
        let mut out = Vec::with_capacity(nt as usize);
        for (i, t) in bytes.chunks_exact(6).enumerate() {
            let tri = [0, 1, 2].map(|k| u16::from_be_bytes([t[2 * k], t[2 * k + 1]]));
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
    fn read_cells(&self, at: u64, bytes: &[u8]) -> Result<(Vec<Cell>, Vec<u64>), DecodeError> {
        let mut raw_cells = Vec::with_capacity(bytes.len() / CELL_SIZE);
        let mut targets = BTreeSet::new();
        let mut claimed: u64 = 0;
        for (i, b) in bytes.chunks_exact(CELL_SIZE).enumerate() {
            let c = CellRaw::read_from_bytes(b).expect("32-byte chunk");
            let at_cell = at + (CELL_SIZE * i) as u64;
            let mut target = None;
            if self.relocated(at_cell + 8) {
                let t = self.pointer(at_cell + 8, c.link.get(), "a cell's record link")?;
                let count = u64::from(c.count.get());
                claimed += count;
                if count == 0 || claimed > self.slots.len() as u64 {
                    return Err(err(
                        at_cell + 4,
                        DecodeErrorKind::BadCount {
                            what: "cell record count",
                            detail: format!(
                                "{count} (an occupied cell owns at least one list record, and all cells together no more than the {} relocations)",
                                self.slots.len()
                            ),
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
            let list = self.block(at, list_at, 2 * n, "list record count")?;
            let mut triangles = Vec::with_capacity(n as usize);
            for (k, e) in list.chunks_exact(2).enumerate() {
                let t = u16::from_be_bytes([e[0], e[1]]);
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
                DecodeErrorKind::Pof0(format!(
                    "relocated word at {extra:#x} is none of MCOL's pointer fields (header 0x54/0x58/0x5C/0x74, cell +8, list record +4)"
                )),
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

fn read_f32x3(b: &[u8]) -> [f32; 3] {
    [0, 1, 2].map(|k| f32::from_be_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]))
}

fn read_f32x4(b: &[u8]) -> [f32; 4] {
    [0, 1, 2, 3].map(|k| f32::from_be_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]))
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

/// The grid bytes at 0x70 must be ceil((max - min) / cell size) per axis.
pub(super) fn check_grid(h: &Header) -> Result<(), DecodeError> {
    let implied = h.prefix.implied_cells();
    for k in 0..3 {
        let n = h.grid[k];
        let expected = (f64::from(h.prefix.bbox_max[k]) - f64::from(h.prefix.bbox_min[k]))
            / f64::from(h.prefix.cell_size[k]);
        if implied[k] != Some(u64::from(n)) {
            return Err(err(
                0x70 + k as u64,
                DecodeErrorKind::BadCount {
                    what: "grid dimensions",
                    detail: format!(
                        "axis {} has {n} cells but (max - min) / cell size = ({} - {}) / {} = {expected}",
                        ["x", "y", "z"][k],
                        h.prefix.bbox_max[k],
                        h.prefix.bbox_min[k],
                        h.prefix.cell_size[k]
                    ),
                },
            ));
        }
    }
    Ok(())
}
