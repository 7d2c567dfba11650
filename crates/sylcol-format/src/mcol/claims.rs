//! Which bytes of an MCOL chunk each structure claims; shared by the reader
//! (to find gaps and refuse overlaps) and the writer (to decide whether a
//! decoded layout still fits an edited model).

use super::{CELL_SIZE, HEADER_SIZE, Layout, Mcol, RECORD_SIZE};

/// What a claimed byte range holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Spheres,
    Vertices,
    Triangles,
    Cells,
    Record,
    List,
    Gap,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Spheres => "the sphere block",
            Kind::Vertices => "the vertex block",
            Kind::Triangles => "the triangle block",
            Kind::Cells => "the cell array",
            Kind::Record => "a list record",
            Kind::List => "a triangle list",
            Kind::Gap => "a preserved gap",
        }
    }
}

/// A claimed range `[start, start + len)` in chunk offsets.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    pub start: u64,
    pub len: u64,
    pub kind: Kind,
}

/// A claim that breaks the rules: where, and a sentence saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimError {
    pub offset: u64,
    pub message: String,
}

/// The ranges the model's structures occupy under `layout` (gaps included).
pub fn claims(mcol: &Mcol, layout: &Layout) -> Vec<Claim> {
    let nt = mcol.triangles.len() as u64;
    let mut out = vec![
        Claim {
            start: layout.spheres.into(),
            len: 16 * nt,
            kind: Kind::Spheres,
        },
        Claim {
            start: layout.vertices.into(),
            len: 12 * mcol.vertices.len() as u64,
            kind: Kind::Vertices,
        },
        Claim {
            start: layout.triangles.into(),
            len: 6 * nt,
            kind: Kind::Triangles,
        },
        Claim {
            start: layout.cells.into(),
            len: (CELL_SIZE * mcol.cells.len()) as u64,
            kind: Kind::Cells,
        },
    ];
    for (i, r) in mcol.records.iter().enumerate() {
        if let (Some(&at), Some(&list)) = (layout.records.get(i), layout.lists.get(i)) {
            out.push(Claim {
                start: at.into(),
                len: RECORD_SIZE as u64,
                kind: Kind::Record,
            });
            out.push(Claim {
                start: list.into(),
                len: 2 * r.triangles.len() as u64,
                kind: Kind::List,
            });
        }
    }
    for g in &layout.gaps {
        out.push(Claim {
            start: g.offset.into(),
            len: g.bytes.len() as u64,
            kind: Kind::Gap,
        });
    }
    out
}

/// Checks that every claim lies in `[0x80, data_end)` and that no two
/// overlap (triangle lists may share bytes with each other). Returns the
/// uncovered ranges of `[0x80, data_end)`, ascending.
pub fn check(mut claims: Vec<Claim>, data_end: u64) -> Result<Vec<(u64, u64)>, ClaimError> {
    claims.retain(|c| c.len > 0);
    claims.sort_by_key(|c| (c.start, c.len));
    let mut uncovered = Vec::new();
    let mut cursor = HEADER_SIZE as u64;
    let mut furthest: Option<Claim> = None;
    for c in claims {
        let end = c.start.saturating_add(c.len);
        if c.start < HEADER_SIZE as u64 {
            return Err(ClaimError {
                offset: c.start,
                message: format!(
                    "{} at {:#x} overlaps the 0x80-byte header",
                    c.kind.name(),
                    c.start
                ),
            });
        }
        if end > data_end {
            return Err(ClaimError {
                offset: c.start,
                message: format!(
                    "{} at {:#x} ({} bytes) runs past the data end {data_end:#x}",
                    c.kind.name(),
                    c.start,
                    c.len
                ),
            });
        }
        if let Some(f) = furthest {
            let f_end = f.start + f.len;
            if c.start < f_end && !(c.kind == Kind::List && f.kind == Kind::List) {
                return Err(ClaimError {
                    offset: c.start,
                    message: format!(
                        "{} at {:#x} overlaps {} at {:#x}",
                        c.kind.name(),
                        c.start,
                        f.kind.name(),
                        f.start
                    ),
                });
            }
        }
        if c.start > cursor {
            uncovered.push((cursor, c.start));
        }
        cursor = cursor.max(end);
        if furthest.is_none_or(|f| end > f.start + f.len) {
            furthest = Some(c);
        }
    }
    if cursor < data_end {
        uncovered.push((cursor, data_end));
    }
    Ok(uncovered)
}
