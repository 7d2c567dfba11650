//! Closed test meshes for the tests and benchmarks (the query engine's:
//! [`sylcol_query::fixtures`]), and a plain MCOL map maker over any grid
//! (non-cubic cells too) whose lists have no margin ([`map_from_mesh`]).
//!
//! Compiled for the crate's own tests and, with the feature `fixtures`,
//! for its integration tests, benches and the benchmark harness; not part
//! of the library's API.

use glam::{DVec3, Vec3};
use sylcol_format::mcol::Mcol;

pub use sylcol_query::fixtures::{cuboid, icosphere, merged, octahedron, uv_sphere};

use crate::build::mcol::{grid_header, mcol_on_grid};
use crate::mesh::TriMesh;

/// A map of `mesh` over the grid `lo + cell * (0..dims)` (per axis, so
/// cells need not be cubic), built as [`mcol_on_grid`] builds one but with
/// complete lists and no margin (a triangle touching a cell face is
/// listed on both sides; one merely near it is not). The mesh must fit
/// MCOL's u16 limits and lie in the grid. (Its grid, lists and spheres are
/// those of [`sylcol_query::fixtures::map_grid`].)
pub fn map_from_mesh(mesh: &TriMesh, lo: Vec3, cell: Vec3, dims: [u8; 3]) -> Mcol {
    let hi = (lo.as_dvec3() + cell.as_dvec3() * DVec3::from_array(dims.map(f64::from))).as_vec3();
    let header = grid_header(lo.to_array(), hi.to_array(), cell.to_array(), dims);
    mcol_on_grid(mesh, header, 0.0)
}
