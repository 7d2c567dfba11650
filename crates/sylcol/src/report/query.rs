//! `query grid`: how well the grid a query walks fits its mesh (one
//! query's answer is [`crate::query::script::Answer`]), and when `inside`
//! has an answer at all ([`inside_refusal`]).

use schemars::JsonSchema;
use serde::Serialize;

use crate::query::{Collider, GridSource};
use crate::topology::edge_faults;

/// Why `inside` has no answer on the collider's mesh, or `None` when it has
/// one. Every front (`sylcol query`, `serve`, Python) asks this before an
/// `inside` query and refuses the query with this sentence.
///
/// `inside` counts how often a ray from the point crosses the surface
/// ([`Collider::contains_point`]). The parity of that count is the same for
/// every ray exactly when every edge is shared by an even number of
/// triangles: a closed hull (two each), and double-sided faces (a triangle
/// present in both windings is crossed twice, so it encloses nothing). An
/// edge used by an odd number — an open rim, a single-sided fin welded to a
/// hull (three) — lets two rays from one point disagree: the point is
/// neither inside nor outside, and no answer is given.
pub fn inside_refusal(c: &Collider) -> Option<String> {
    let mesh = c.mesh();
    let faults = edge_faults(mesh.vertices.len(), &mesh.triangles);
    let first = faults.first_odd?;
    let [a, b] = first.edge;
    Some(format!(
        "inside has no answer on this mesh: {} edges are used by an odd number of triangles \
         (open rims, or single-sided sheets meeting a surface; the first runs from vertex {a} \
         to vertex {b}, used by {} triangles), so whether a point is enclosed depends on the \
         direction looked; inside needs every edge shared by an even number of triangles (a \
         closed hull; double-sided faces enclose nothing)",
        faults.odd, first.shared_by
    ))
}

/// Where the walked grid came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GridOrigin {
    /// The MCOL file's own grid and lists.
    File,
    /// Derived from the mesh (`--grid derived` or `--grid N`).
    Derived,
}

/// The `query grid` report.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GridFit {
    /// The input as named (`ARCHIVE.pak+ENTRY`, with `--mesh`: `...+MESH`).
    pub path: String,
    /// Where the grid came from.
    pub source: GridOrigin,
    /// Cells along the longest axis of a derived grid.
    pub cells_per_axis: Option<usize>,
    /// Cells per axis (x, y, z).
    pub dims: [usize; 3],
    /// Cells in all.
    pub cells: usize,
    /// Cells with a list.
    pub occupied_cells: usize,
    /// List entries summed over every cell.
    pub list_entries: usize,
    /// Mean list length over occupied cells.
    pub mean_list: f64,
    /// Longest list.
    pub max_list: usize,
    /// Triangles in the mesh.
    pub triangles: usize,
    /// Triangles no cell lists (invisible to grid queries).
    pub unlisted_triangles: usize,
    /// File spheres that did not enclose their triangle (recomputed).
    pub spheres_replaced: usize,
    /// (cell, triangle) pairs that touch but are not listed.
    pub missing_entries: usize,
    /// Whether lists are long enough that a derived grid would be faster.
    pub too_coarse: bool,
    /// The derived grid's suggested cells along the longest axis.
    pub suggested_cells_per_axis: usize,
}

/// The grid report of a collider built from `path`.
pub fn grid_fit(path: &str, c: &Collider) -> GridFit {
    let s = c.grid_stats();
    let (source, cells_per_axis) = match s.source {
        GridSource::File => (GridOrigin::File, None),
        GridSource::Derived { cells_per_axis } => (GridOrigin::Derived, Some(cells_per_axis)),
    };
    GridFit {
        path: path.to_string(),
        source,
        cells_per_axis,
        dims: s.dims,
        cells: s.cells,
        occupied_cells: s.occupied,
        list_entries: s.entries,
        mean_list: s.mean_list,
        max_list: s.max_list,
        triangles: s.triangles,
        unlisted_triangles: s.unlisted,
        spheres_replaced: s.spheres_replaced,
        missing_entries: c.missing_entries().len(),
        too_coarse: s.too_coarse(),
        suggested_cells_per_axis: c.suggested_cells_per_axis(),
    }
}

impl GridFit {
    /// The human-readable form (ends with a newline).
    pub fn text(&self) -> String {
        let [x, y, z] = self.dims;
        let source = match self.cells_per_axis {
            None => "the file's grid".to_string(),
            Some(n) => format!("derived, {n} cells along the longest axis"),
        };
        let mut t = format!(
            "grid {x} x {y} x {z} ({source}): {} of {} cells occupied\n\
             lists: {} entries, mean {:.1}, longest {}\n\
             {} triangles, {} in no list\n",
            self.occupied_cells,
            self.cells,
            self.list_entries,
            self.mean_list,
            self.max_list,
            self.triangles,
            self.unlisted_triangles
        );
        if self.spheres_replaced > 0 {
            t.push_str(&format!(
                "{} bounding spheres did not enclose their triangle (recomputed)\n",
                self.spheres_replaced
            ));
        }
        if self.missing_entries > 0 {
            t.push_str(&format!(
                "{} (cell, triangle) pairs touch but are not listed: queries there can miss; --grid derived has complete lists\n",
                self.missing_entries
            ));
        }
        if self.too_coarse {
            t.push_str(&format!(
                "too coarse for this mesh: try --grid derived ({} cells along the longest axis)\n",
                self.suggested_cells_per_axis
            ));
        }
        t
    }
}
