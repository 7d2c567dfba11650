//! Two-level grid: a crowded cell gets a small grid of its own.
//!
//! A coarse grid (a file's 8 x 8 x 8 over a 65 k-triangle mesh lists ~290
//! triangles a cell) makes a ray test every triangle of each cell it
//! crosses. A cell whose list is longer than [`CROWDED`] therefore carries
//! a sub-grid over the bounding box of its listed triangles, with lists
//! drawn from the cell's own list only (a triangle goes to every sub-cell
//! its bounding box and its plane reach, grown by 10^-5 of a sub-cell: a
//! superset of the exact lists, cheap to build). The file's lists
//! stay the truth: a sub-grid only splits a list, so a ray sees exactly the
//! triangles the cell lists, wherever along the ray they lie (the sub-grid
//! spans the triangles, not just the cell). Walking it is a second DDA over
//! the sub-grid's box; a ray missing that box skips the whole list.

use glam::DVec3;

use crate::geometry::grid::build_cell_csr_near;
use crate::geometry::mesh::TriMesh;
use crate::geometry::sizing::{cells_per_axis, cubic_grid};
use crate::kernels::dda::WalkFrame;
use crate::kernels::packet::{LANES, LaneTable, Packet};

/// Lists longer than this get a sub-grid.
pub const CROWDED: usize = 64;

/// Most sub-cells along a sub-grid's longest side.
const MAX_SUB_CELLS: usize = 16;

/// A crowded cell's own grid: its frame and its sub-cells' packets.
#[derive(Debug, Clone)]
pub(crate) struct SubGrid {
    /// The sub-grid's frame, for the walk.
    pub(crate) frame: WalkFrame,
    /// `packets[starts[s]..starts[s + 1]]` is sub-cell s's list.
    starts: Vec<u32>,
    packets: Vec<Packet>,
}

impl SubGrid {
    /// The sub-grid over the triangles `list` of `mesh`, packed from
    /// `table` (`mesh`'s lanes).
    pub(crate) fn new(mesh: &TriMesh, table: &LaneTable, list: &[u32]) -> Self {
        let mut lo = DVec3::INFINITY;
        let mut hi = DVec3::NEG_INFINITY;
        for &t in list {
            for v in mesh.corners(t as usize) {
                lo = lo.min(v.as_dvec3());
                hi = hi.max(v.as_dvec3());
            }
        }
        let n = cells_per_axis(hi - lo, list.len()).min(MAX_SUB_CELLS);
        let spec = cubic_grid(lo, hi, n);
        let margin = spec.cell.x * 1e-5;
        let (cells, items) = build_cell_csr_near(mesh, &spec, margin, list.iter().copied());
        let mut starts = Vec::with_capacity(cells.len());
        let mut packets = Vec::with_capacity(items.len().div_ceil(LANES) + cells.len() / 2);
        starts.push(0);
        for w in cells.windows(2) {
            let l = &items[w[0] as usize..w[1] as usize];
            table.pack_into(&mut packets, l);
            starts.push(packets.len() as u32);
        }
        SubGrid {
            frame: WalkFrame::new(&spec),
            starts,
            packets,
        }
    }

    /// Sub-cell `i`'s packets.
    #[inline(always)]
    pub(crate) fn packets(&self, i: usize) -> &[Packet] {
        &self.packets[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}
