//! How fine a grid is made: the rules that size a derived grid, a
//! crowded cell's sub-grid and the inside index, all of cubic cells.

use glam::{DVec3, Vec3};

use super::grid::GridSpec;
use super::mesh::TriMesh;

/// Largest number of cells a derived grid may have.
pub const MAX_DERIVED_CELLS: usize = 1 << 24;

/// Cells a triangle of a derived grid: one cell per two triangles over
/// the mesh's box. Measured on the sample maps and the spheres
/// (`git show 1eb508f:docs/queries-log.md`, "A coarser derived grid"): rays 1-6 % faster than
/// with the two cells a triangle used before on six of the eight maps
/// that walk a grid and 2-12 % on the 4 k-65 k spheres, within the noise
/// on the rest (db066592 1-2 % slower); sphere sweeps, `inside` and
/// `closest` as fast or faster; the crowded cells a coarse grid makes
/// get sub-grids (of two cells a triangle) as before.
pub const DERIVED_CELLS_PER_TRIANGLE: f64 = 0.5;

/// About [`DERIVED_CELLS_PER_TRIANGLE`] cells per triangle over the
/// mesh's bounding box, along its longest side.
pub fn suggested_cells_per_axis(mesh: &TriMesh) -> usize {
    cells_for(mesh.bounds(), mesh.triangles.len())
}

/// [`suggested_cells_per_axis`] for `count` triangles in `bounds`.
pub fn cells_for(bounds: Option<(Vec3, Vec3)>, count: usize) -> usize {
    match bounds {
        Some((lo, hi)) => {
            cells_per_axis_at((hi - lo).as_dvec3(), count, DERIVED_CELLS_PER_TRIANGLE)
        }
        None => 1,
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
