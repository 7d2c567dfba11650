//! A collider over an MCOL map: the file's mesh, grid, lists and spheres
//! handed to the query engine as they are stored ([`StoredGrid`]).

use sylcol_format::mcol::Mcol;
use sylcol_query::{Collider, ColliderError, GridSpec, StoredGrid, TriMesh};

use crate::grid::SpecFromHeader;
use crate::mesh::MeshFromFile;

/// Colliders over MCOL maps: `Collider::from_mcol(&map)` (with this trait
/// in scope; `use sylcol::prelude::*` brings it).
pub trait ColliderFromMcol: Sized {
    /// A collider over an MCOL map through the file's own grid, lists and
    /// bounding spheres. The lists are copied into one flat array (and
    /// checked: a bad list is this call's error); nothing is rebuilt. The
    /// ray packets are made on the first ray that walks the grid. A sphere
    /// that does not enclose its triangle is recomputed (and counted in
    /// [`GridStats::spheres_replaced`](sylcol_query::GridStats::spheres_replaced))
    /// when the spheres are first needed.
    ///
    /// The checks, in order, the first failure being the error: the grid
    /// (cell sizes positive and finite, origin finite, no axis without
    /// cells, one cell record per cell), the mesh (coordinates finite,
    /// indices in range), one sphere per triangle, then cell by cell its
    /// list records (in the file) and their triangles (in range).
    fn from_mcol(m: &Mcol) -> Result<Self, ColliderError>;
}

impl ColliderFromMcol for Collider {
    fn from_mcol(m: &Mcol) -> Result<Self, ColliderError> {
        let (starts, items, broken) = file_lists(m);
        let grid = StoredGrid {
            spec: GridSpec::from_header(&m.header),
            starts,
            items,
            spheres: m.spheres.clone(),
        };
        // The lists stop before a cell whose records are not in the file;
        // whatever the engine finds before that cell is reported first.
        let made = Collider::from_stored_grid(TriMesh::from_mcol(m), grid);
        match broken {
            Some(link) if made.is_ok() => Err(link),
            _ => made,
        }
    }
}

/// The file's lists in one flat array, cell by cell, up to the first cell
/// whose records lie outside the file (its error; that cell and the rest
/// are left empty).
fn file_lists(m: &Mcol) -> (Vec<u32>, Vec<u32>, Option<ColliderError>) {
    let mut starts = Vec::with_capacity(m.cells.len() + 1);
    let mut items = Vec::with_capacity(m.list_entries());
    let mut broken = None;
    starts.push(0);
    for (cell, c) in m.cells.iter().enumerate() {
        if let (None, Some(first)) = (&broken, c.record()) {
            let end = first.saturating_add(c.count as usize);
            match m.records.get(first..end) {
                Some(records) => {
                    for r in records {
                        items.extend(r.triangles.iter().map(|&t| u32::from(t)));
                    }
                }
                None => {
                    broken = Some(ColliderError::RecordLink {
                        cell,
                        first,
                        end,
                        count: m.records.len(),
                    });
                }
            }
        }
        starts.push(items.len() as u32);
    }
    (starts, items, broken)
}
