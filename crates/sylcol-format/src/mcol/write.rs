//! MCOL encoder.
//!
//! A decoded model whose layout still fits is written back where every
//! block was found, gaps and POF0 table included, so decode -> encode is
//! byte-identical. Otherwise (a model built from scratch, or edited so a
//! block no longer fits) the seeds' canonical layout is used: spheres at
//! 0x80, vertices, triangles (each padded to 16), cell array A, list
//! records B in record order, packed u16 lists, padding to 16, then POF0.

use zerocopy::IntoBytes;
use zerocopy::byteorder::big_endian::{F32, U16, U32};

use super::claims;
use super::raw::{CellRaw, HeaderRaw, RecordRaw};
use super::{
    CELL_SIZE, CellLink, HEADER_SIZE, HEADER_SLOTS, Layout, Mcol, POINTER_BASE, RECORD_SIZE,
};
use crate::error::EncodeError;
use crate::pof0;

/// Encodes an MCOL chunk.
pub fn encode(mcol: &Mcol) -> Result<Vec<u8>, EncodeError> {
    validate(mcol)?;
    let (layout, data_size) = match &mcol.layout {
        Some(l) if layout_fits(mcol, l) => (l.clone(), mcol.header.data_size),
        _ => {
            let l = canonical_layout(mcol);
            let end = data_end_of(mcol, &l);
            (
                l,
                u32::try_from(end - 0x10).map_err(|_| too_large("data size", end))?,
            )
        }
    };
    let data_end = 0x10 + u64::from(data_size);
    let mut out = vec![0u8; data_end as usize];
    for g in &layout.gaps {
        let at = g.offset as usize;
        out[at..at + g.bytes.len()].copy_from_slice(&g.bytes);
    }
    write_header(mcol, &layout, data_size, &mut out);
    write_arrays(mcol, &layout, &mut out);
    write_cells_and_records(mcol, &layout, &mut out);

    let slots = relocated_slots(mcol, &layout);
    out.extend(pof0::table_for(slots, mcol.pof0_base, &layout.pof0_table)?);
    out.extend_from_slice(&layout.trailer);
    Ok(out)
}

fn too_large(what: &'static str, value: u64) -> EncodeError {
    EncodeError::TooLarge {
        what,
        value,
        limit: u32::MAX.into(),
    }
}

/// The model must be one the decoder accepts.
fn validate(m: &Mcol) -> Result<(), EncodeError> {
    for (what, n) in [
        ("vertices", m.vertices.len()),
        ("triangles", m.triangles.len()),
    ] {
        if n > u16::MAX as usize {
            return Err(EncodeError::TooLarge {
                what,
                value: n as u64,
                limit: u16::MAX.into(),
            });
        }
    }
    if m.spheres.len() != m.triangles.len() {
        return Err(EncodeError::McolSpheres {
            spheres: m.spheres.len(),
            triangles: m.triangles.len(),
        });
    }
    if m.cells.len() != m.header.cell_count() {
        return Err(EncodeError::McolCells {
            cells: m.cells.len(),
            dims: m.header.dims(),
        });
    }
    if let Some(grid) = super::read::grid_mismatch(&m.header) {
        return Err(EncodeError::McolGrid(grid));
    }
    if !m.pof0_base.is_multiple_of(4) || m.pof0_base > 0x54 {
        return Err(EncodeError::McolPof0Base { base: m.pof0_base });
    }
    let nv = m.vertices.len();
    if let Some(&triangle) = m
        .triangles
        .iter()
        .find(|t| t.iter().any(|&i| i as usize >= nv))
    {
        return Err(EncodeError::McolTriangleIndex {
            triangle,
            vertices: nv,
        });
    }
    let nt = m.triangles.len();
    if let Some(record) = m
        .records
        .iter()
        .position(|r| r.triangles.iter().any(|&t| t as usize >= nt))
    {
        return Err(EncodeError::McolListTriangle {
            record,
            triangles: nt,
        });
    }
    for (i, c) in m.cells.iter().enumerate() {
        if let CellLink::Record(r) = c.link
            && (c.count == 0 || r as usize + c.count as usize > m.records.len())
        {
            return Err(EncodeError::McolCellLink {
                cell: i,
                first: r,
                count: c.count,
                records: m.records.len(),
            });
        }
    }
    Ok(())
}

/// Whether a decoded layout still holds this model without overlap.
fn layout_fits(m: &Mcol, l: &Layout) -> bool {
    let data_end = 0x10 + u64::from(m.header.data_size);
    l.records.len() == m.records.len()
        && l.lists.len() == m.records.len()
        && m.cells.iter().all(|c| match c.link {
            CellLink::Record(r) => (1..c.count as usize).all(|j| {
                l.records[r as usize + j] == l.records[r as usize] + (RECORD_SIZE * j) as u32
            }),
            CellLink::Raw(_) => true,
        })
        && claims::check(claims::claims(m, l), data_end).is_ok()
}

/// The seeds' layout for this model's contents (no gaps; lists packed in
/// record order).
pub fn canonical_layout(m: &Mcol) -> Layout {
    let nt = m.triangles.len() as u32;
    let nv = m.vertices.len() as u32;
    let spheres = HEADER_SIZE as u32;
    let vertices = spheres + 16 * nt;
    let triangles = vertices + (12 * nv).next_multiple_of(16);
    let cells = triangles + (6 * nt).next_multiple_of(16);
    let first_record = cells + (CELL_SIZE * m.cells.len()) as u32;
    let records = (0..m.records.len() as u32)
        .map(|i| first_record + RECORD_SIZE as u32 * i)
        .collect();
    let mut at = first_record + (RECORD_SIZE * m.records.len()) as u32;
    let lists = m
        .records
        .iter()
        .map(|r| {
            let here = at;
            at += 2 * r.triangles.len() as u32;
            here
        })
        .collect();
    Layout {
        spheres,
        vertices,
        triangles,
        cells,
        records,
        lists,
        ..Layout::default()
    }
}

/// End of the data under a canonical layout: the lists' end padded to 16.
fn data_end_of(m: &Mcol, l: &Layout) -> u64 {
    let lists_end = match (l.lists.last(), m.records.last()) {
        (Some(&at), Some(r)) => u64::from(at) + 2 * r.triangles.len() as u64,
        _ => u64::from(l.cells) + (CELL_SIZE * m.cells.len()) as u64,
    };
    lists_end.next_multiple_of(16)
}

fn ptr(offset: u32) -> U32 {
    U32::new(offset - POINTER_BASE)
}

fn write_header(m: &Mcol, l: &Layout, data_size: u32, out: &mut [u8]) {
    let h = &m.header;
    let raw = HeaderRaw {
        prefix: h.prefix.to_raw(*b"MCOL", data_size),
        vertex_count: U16::new(m.vertices.len() as u16),
        triangle_count: U16::new(m.triangles.len() as u16),
        vertices: ptr(l.vertices),
        triangles: ptr(l.triangles),
        spheres: ptr(l.spheres),
        words_60: h.words_60.map(U32::new),
        grid: h.grid,
        cells: ptr(l.cells),
        words_78: h.words_78.map(U32::new),
    };
    out[..HEADER_SIZE].copy_from_slice(raw.as_bytes());
}

fn put(out: &mut [u8], at: u32, bytes: &[u8]) {
    out[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
}

fn write_arrays(m: &Mcol, l: &Layout, out: &mut [u8]) {
    let spheres: Vec<[F32; 4]> = m.spheres.iter().map(|s| s.map(F32::new)).collect();
    put(out, l.spheres, spheres.as_bytes());
    let vertices: Vec<[F32; 3]> = m.vertices.iter().map(|v| v.map(F32::new)).collect();
    put(out, l.vertices, vertices.as_bytes());
    let triangles: Vec<[U16; 3]> = m.triangles.iter().map(|t| t.map(U16::new)).collect();
    put(out, l.triangles, triangles.as_bytes());
}

fn write_cells_and_records(m: &Mcol, l: &Layout, out: &mut [u8]) {
    for (i, c) in m.cells.iter().enumerate() {
        let raw = CellRaw {
            index: c.index,
            count: U32::new(c.count),
            link: match c.link {
                CellLink::Record(r) => ptr(l.records[r as usize]),
                CellLink::Raw(w) => U32::new(w),
            },
            word3: U32::new(c.word3),
            sphere: c.sphere.map(F32::new),
        };
        put(out, l.cells + (CELL_SIZE * i) as u32, raw.as_bytes());
    }
    for (i, r) in m.records.iter().enumerate() {
        let raw = RecordRaw {
            count: U32::new(r.triangles.len() as u32),
            list: ptr(l.lists[i]),
            tail: r.tail,
        };
        put(out, l.records[i], raw.as_bytes());
        let list: Vec<U16> = r.triangles.iter().map(|&t| U16::new(t)).collect();
        put(out, l.lists[i], list.as_bytes());
    }
}

/// Chunk offsets of every relocated word, ascending.
pub(super) fn relocated_slots(m: &Mcol, l: &Layout) -> Vec<u64> {
    let mut slots: Vec<u64> = HEADER_SLOTS.iter().map(|&s| u64::from(s)).collect();
    slots.extend(
        m.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.record().is_some())
            .map(|(i, _)| u64::from(l.cells) + (CELL_SIZE * i) as u64 + 8),
    );
    slots.extend(l.records.iter().map(|&r| u64::from(r) + 4));
    slots.sort_unstable();
    slots
}
