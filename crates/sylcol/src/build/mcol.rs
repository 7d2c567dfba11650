//! Building an MCOL map hull from a triangle mesh.
//!
//! What the builder writes, and why:
//! - header: the grid box ([`super::plan`]), pads 1.0 / 1.0 / 0.0,
//!   extent = max - min, the cell size on all three axes, the grid bytes
//!   (nx, ny, nz, 1); every open word zero;
//! - triangle spheres: the minimal enclosing sphere, radius x 1.0001 (the
//!   seed's epsilon), rounded so the stored f32 sphere really encloses the
//!   f32 vertices (checked in f64, bumped up an ulp at a time); the centre is
//!   kept inside the triangle's bounds, so inside the map box;
//! - cell lists: every triangle overlapping a cell grown by the margin
//!   ([`list_margin`]), by the exact separating-axis test of
//!   [`crate::grid::build_cell_lists`] — complete by construction;
//! - cell records: (x, y, z, 1), count 1, a link to the cell's list record
//!   (list records in cell order, occupied cells only), and a sphere around
//!   the vertices of the listed triangles (centred on their bounding box),
//!   grown if needed so it reaches the cell, rounded up like the triangle
//!   spheres. Empty cells are all zero.
//!
//! The model has no layout: [`sylcol_format::mcol::encode`] writes it in the
//! seeds' canonical layout.

use glam::DVec3;
use sylcol_format::mcol::{Cell, CellLink, GridPrefix, Header, ListRecord, Mcol};

use super::BuildError;
use super::plan::{GridPlan, MeshStats, plan_grid};
use crate::geom::{Aabb, enclosing_f32_radius, sphere_reaches_box};
use crate::grid::{GridSpec, SpecFromHeader, build_cell_lists};
use crate::import::{CountLimit, check_mesh};
use crate::mesh::TriMesh;

pub use super::plan::{MAX_CELLS, MAX_DEFAULT_CELLS};
pub use crate::geom::{SPHERE_SCALE, triangle_sphere};

/// MCOL stores vertex and triangle counts as u16.
pub const MAX_COUNT: usize = u16::MAX as usize;
/// [`MAX_COUNT`] for the importer ([`crate::import::ImportOptions::limit`]):
/// a mesh file over it is refused before its polygons are triangulated,
/// in the words of [`BuildError::TooMany`].
pub const COUNT_LIMIT: CountLimit = CountLimit {
    max: MAX_COUNT,
    why: "MCOL stores the count as u16",
};
/// The list margin as a fraction of the cell size.
pub const MARGIN_FRACTION: f64 = 1e-4;

/// Options of [`build_mcol`]; `Default` chooses both automatically.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct McolBuildOptions {
    /// The grid box (min, max); default: the mesh bounds rounded out to
    /// whole cells.
    pub bbox: Option<([f32; 3], [f32; 3])>,
    /// The cell size; default: the round cell the cost model of
    /// [`super::plan`] prefers.
    pub cell: Option<f32>,
}

/// Builds an MCOL map hull from `mesh`: vertices and triangles exactly as
/// given, spheres, grid and complete cell lists.
pub fn build_mcol(mesh: &TriMesh, options: &McolBuildOptions) -> Result<Mcol, BuildError> {
    check_mesh(mesh)?;
    for (what, count) in [
        ("vertices", mesh.vertices.len()),
        ("triangles", mesh.triangles.len()),
    ] {
        if count > MAX_COUNT {
            return Err(BuildError::TooMany {
                what,
                count,
                limit: MAX_COUNT,
            });
        }
    }
    let (lo, hi) = mesh
        .bounds()
        .ok_or(BuildError::Mesh(crate::import::MeshError::Empty {
            vertices: 0,
            triangles: mesh.triangles.len(),
        }))?;
    let stats = MeshStats::of(mesh);
    let plan = plan_grid(
        lo.to_array(),
        hi.to_array(),
        &stats,
        options.bbox,
        options.cell,
    )?;
    let header = header_for(&plan);
    let spec = GridSpec::from_header(&header);
    check_inside(mesh, &spec)?;
    Ok(mcol_on_grid(mesh, header, list_margin(&spec)))
}

/// The MCOL of `mesh` on the grid `header` describes (its box, cell size
/// per axis and dimensions): cell lists by the exact triangle/box test with
/// `margin`, one record per occupied cell, a sphere per triangle; the rest
/// of the header as given. The mesh must fit MCOL's u16 limits and lie in
/// the grid ([`build_mcol`] checks both).
pub fn mcol_on_grid(mesh: &TriMesh, header: Header, margin: f64) -> Mcol {
    let spec = GridSpec::from_header(&header);
    let lists = build_cell_lists(mesh, &spec, margin);
    let (cells, records) = cell_records(mesh, &spec, lists);
    Mcol {
        header,
        pof0_base: sylcol_format::mcol::POINTER_BASE,
        spheres: (0..mesh.triangles.len())
            .map(|t| triangle_sphere(&mesh.corners(t)))
            .collect(),
        vertices: mesh.vertices.iter().map(|v| v.to_array()).collect(),
        triangles: mesh.triangles.iter().map(|t| t.map(|i| i as u16)).collect(),
        cells,
        records,
        layout: None,
    }
}

/// The margin the cell lists are built with: [`MARGIN_FRACTION`] of the
/// smallest cell side, and never less than 8 f32 ulps of the largest
/// coordinate on the grid (so rounding in a runtime's f32 cell lookup cannot
/// land a point in a cell that does not list its triangle).
pub fn list_margin(spec: &GridSpec) -> f64 {
    let b = spec.bounds();
    let reach = b.min.abs().max(b.max.abs()).max_element();
    (spec.cell.min_element() * MARGIN_FRACTION).max(reach * 8.0 * f64::from(f32::EPSILON))
}

fn header_for(plan: &GridPlan) -> Header {
    grid_header(plan.min, plan.max, [plan.cell; 3], plan.dims)
}

/// The header the builder writes for the grid box `min..max` with cells
/// of `cell` per axis, `dims` of them: pads 1.0 / 1.0 / 0.0, extent =
/// max - min, every open word zero.
pub fn grid_header(min: [f32; 3], max: [f32; 3], cell: [f32; 3], dims: [u8; 3]) -> Header {
    Header {
        data_size: 0,
        prefix: GridPrefix::new(min, max, cell),
        words_60: [0; 4],
        grid: [dims[0], dims[1], dims[2], 1],
        words_78: [0; 2],
    }
}

fn check_inside(mesh: &TriMesh, spec: &GridSpec) -> Result<(), BuildError> {
    let b = spec.bounds();
    match mesh.vertices.iter().position(|v| {
        let p = v.as_dvec3();
        p.cmplt(b.min).any() || p.cmpgt(b.max).any()
    }) {
        None => Ok(()),
        Some(vertex) => Err(BuildError::OutsideGrid {
            vertex,
            position: mesh.vertices[vertex].to_array(),
            min: b.min.to_array(),
            max: b.max.to_array(),
        }),
    }
}

/// The dense cell array and the list records of occupied cells.
fn cell_records(
    mesh: &TriMesh,
    spec: &GridSpec,
    lists: Vec<Vec<u32>>,
) -> (Vec<Cell>, Vec<ListRecord>) {
    let empty = Cell {
        index: [0; 4],
        count: 0,
        link: CellLink::Raw(0),
        word3: 0,
        sphere: [0.0; 4],
    };
    let mut cells = vec![empty; spec.cell_count()];
    let mut records = Vec::new();
    for (i, list) in lists.into_iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        let [x, y, z] = spec.coords(i);
        cells[i] = Cell {
            index: [x as u8, y as u8, z as u8, 1],
            count: 1,
            link: CellLink::Record(records.len() as u32),
            word3: 0,
            sphere: cell_sphere(mesh, &list, &spec.cell_box(i)),
        };
        records.push(ListRecord {
            triangles: list.into_iter().map(|t| t as u16).collect(),
            tail: [0; 24],
        });
    }
    (cells, records)
}

/// The sphere of a cell record: centred on the bounding box of the listed
/// triangles' vertices, enclosing them all, and reaching the cell's box.
pub fn cell_sphere(mesh: &TriMesh, list: &[u32], cell: &Aabb) -> [f32; 4] {
    let corners = || {
        list.iter()
            .flat_map(|&t| mesh.triangles[t as usize])
            .map(|v| mesh.vertices[v as usize].as_dvec3())
    };
    let (lo, hi) = corners().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    );
    let c = ((lo + hi) * 0.5).as_vec3().as_dvec3();
    let needed = corners()
        .map(|p| p.distance(c))
        .fold(cell.distance_squared(c).sqrt(), f64::max);
    let mut r = enclosing_f32_radius(needed, needed);
    // `reaches` compares squared distances; make the f32 radius pass it too.
    while !sphere_reaches_box(c, f64::from(r), cell) {
        r = r.next_up();
    }
    [c.x as f32, c.y as f32, c.z as f32, r]
}
