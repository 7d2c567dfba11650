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

use super::grid_walk::WalkFrame;
use super::ray_grid::LaneTable;
use super::ray_triangle::{LANES, Packet};
use crate::grid::{GridSpec, build_cell_csr_near};
use crate::mesh::TriMesh;

/// Lists longer than this get a sub-grid.
pub const CROWDED: usize = 64;

/// Most sub-cells along a sub-grid's longest side.
const MAX_SUB_CELLS: usize = 16;

/// A crowded cell's own grid: its frame and its sub-cells' packets.
#[derive(Debug, Clone)]
pub struct SubGrid {
    pub frame: WalkFrame,
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
    pub fn packets(&self, i: usize) -> &[Packet] {
        &self.packets[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// A grid of cubic cells over the box `lo..hi`, `n` cells along its
/// longest side (at least one cell per axis).
pub fn cubic_grid(lo: DVec3, hi: DVec3, n: usize) -> GridSpec {
    let longest = (hi - lo).max_element();
    let cell = if longest > 0.0 {
        longest / n as f64
    } else {
        1.0
    };
    let dims = (hi - lo)
        .to_array()
        .map(|e| ((e / cell).ceil() as usize).max(1));
    GridSpec {
        origin: lo,
        cell: DVec3::splat(cell),
        dims,
    }
}

/// About two cells per triangle over a box of extent `e` holding `count`
/// triangles, along its longest side (a thin axis counts as 1/64 of the
/// longest): the sub-grids' rule ([`cells_per_axis_at`] with 2).
pub fn cells_per_axis(e: DVec3, count: usize) -> usize {
    cells_per_axis_at(e, count, 2.0)
}

/// About `per_triangle` cells per triangle over a box of extent `e`
/// holding `count` triangles, along its longest side (a thin axis counts
/// as 1/64 of the longest); at least 1, at most 1 024.
pub fn cells_per_axis_at(e: DVec3, count: usize, per_triangle: f64) -> usize {
    let longest = e.max_element();
    if longest <= 0.0 {
        return 1;
    }
    let e = e.max(DVec3::splat(longest / 64.0));
    let target = (per_triangle * count as f64).max(1.0);
    let cell = (e.x * e.y * e.z / target).cbrt();
    ((longest / cell).ceil() as usize).clamp(1, 1024)
}
