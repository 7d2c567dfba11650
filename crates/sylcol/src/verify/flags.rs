//! Where a failing check fails: the triangles and cells each failing
//! check of [`super::mcol::verify`] counts against, one entry per element
//! with the names of the checks it breaks. Only checks that can fail
//! (`Expect::All`) flag anything; the figures reported for information
//! (extra list entries, cell spheres) never do.
//!
//! This is what the glTF `failures` layer draws in red and the viewer's
//! verify panel jumps to.

use std::collections::{BTreeMap, HashMap};

use glam::DVec3;
use serde::Serialize;
use sylcol_format::mcol::Mcol;

use super::geometry::{self, file_lists, names as geo};
use super::mcol::names;
use super::report::CheckId;
use crate::geom::{Aabb, enclosing_radius};
use crate::grid::{GridSpec, SpecFromHeader, build_cell_lists};
use crate::mesh::{MeshFromFile, TriMesh};

/// One flagged element and the checks it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flag<T> {
    /// The element: a triangle index, or a cell's (x, y, z).
    #[serde(flatten)]
    pub at: T,
    /// The ids of the checks it breaks (as `verify` reports them).
    pub checks: Vec<&'static str>,
}

/// A triangle, as [`Flag`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct TriangleAt {
    /// Triangle index.
    pub triangle: u32,
}

/// A grid cell, as [`Flag`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CellAt {
    /// Cell coordinates.
    pub cell: [usize; 3],
}

/// Every flagged triangle and cell of one map, each in ascending order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Flagged {
    /// Flagged triangles.
    pub triangles: Vec<Flag<TriangleAt>>,
    /// Flagged cells.
    pub cells: Vec<Flag<CellAt>>,
}

impl Flagged {
    /// Whether nothing is flagged.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty() && self.cells.is_empty()
    }
}

#[derive(Default)]
struct Collect {
    triangles: BTreeMap<u32, Vec<&'static str>>,
    cells: BTreeMap<[usize; 3], Vec<&'static str>>,
}

impl Collect {
    fn triangle(&mut self, t: usize, check: CheckId) {
        let check = check.id;
        let list = self.triangles.entry(t as u32).or_default();
        if !list.contains(&check) {
            list.push(check);
        }
    }

    fn cell(&mut self, c: [usize; 3], check: CheckId) {
        let check = check.id;
        let list = self.cells.entry(c).or_default();
        if !list.contains(&check) {
            list.push(check);
        }
    }

    fn done(self) -> Flagged {
        Flagged {
            triangles: self
                .triangles
                .into_iter()
                .map(|(triangle, checks)| Flag {
                    at: TriangleAt { triangle },
                    checks,
                })
                .collect(),
            cells: self
                .cells
                .into_iter()
                .map(|(cell, checks)| Flag {
                    at: CellAt { cell },
                    checks,
                })
                .collect(),
        }
    }
}

/// The triangles and cells of `mcol` that its failing checks count
/// against: bad triangle indices, degenerate triangles, triangles on an
/// edge not shared by exactly two, spheres that miss their triangle or are
/// loose or lie outside the box, triangles no cell lists; cells whose
/// index is not their position, whose count is not 1, or whose list
/// misses a triangle that overlaps them.
pub fn mcol_flags(mcol: &Mcol) -> Flagged {
    let mut out = Collect::default();
    let mesh = TriMesh::from_mcol(mcol);
    let nv = mesh.vertices.len();
    let valid: Vec<bool> = mesh
        .triangles
        .iter()
        .map(|t| t.iter().all(|&i| (i as usize) < nv))
        .collect();
    for (t, ok) in valid.iter().enumerate() {
        if !ok {
            out.triangle(t, names::INDEX_RANGE);
        }
    }
    triangle_shape_flags(&mesh, &valid, &mut out);
    sphere_flags(mcol, &mesh, &valid, &mut out);
    let spec = GridSpec::from_header(&mcol.header);
    cell_flags(mcol, &spec, &mut out);
    if valid.iter().all(|&v| v) && spec.cell_count() == mcol.cells.len() {
        list_flags(mcol, &mesh, &spec, &mut out);
    }
    out.done()
}

/// Degenerate triangles, and triangles on an edge not shared by two.
fn triangle_shape_flags(mesh: &TriMesh, valid: &[bool], out: &mut Collect) {
    let mut edges: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if !valid[t] {
            continue;
        }
        let c = mesh.corners(t).map(|v| v.as_dvec3());
        let repeated = tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2];
        if repeated || (c[1] - c[0]).cross(c[2] - c[0]) == DVec3::ZERO {
            out.triangle(t, names::NONDEGENERATE);
        }
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            if a != b {
                edges.entry((a.min(b), a.max(b))).or_default().push(t);
            }
        }
    }
    for users in edges.values().filter(|u| u.len() != 2) {
        for &t in users {
            out.triangle(t, names::EDGES_TWO);
        }
    }
}

/// Triangle spheres: enclosing, tight, centre inside the box.
fn sphere_flags(mcol: &Mcol, mesh: &TriMesh, valid: &[bool], out: &mut Collect) {
    let (lo, hi) = (mcol.header.prefix.bbox_min, mcol.header.prefix.bbox_max);
    for (t, s) in mcol.spheres.iter().enumerate().take(valid.len()) {
        if !(0..3).all(|k| s[k] >= lo[k] && s[k] <= hi[k]) {
            out.triangle(t, geo::SPHERE_IN_BBOX);
        }
        if !valid[t] {
            continue;
        }
        let centre = DVec3::new(s[0].into(), s[1].into(), s[2].into());
        let far = enclosing_radius(&mesh.corners(t), centre);
        let r = f64::from(s[3]);
        if far > r || far.is_nan() {
            out.triangle(t, geo::SPHERE_ENCLOSES);
        }
        let ratio = far / r;
        if ratio.is_nan() || ratio < 0.99 {
            out.triangle(t, geo::SPHERE_TIGHT);
        }
    }
}

/// Occupied cells whose index, position or count is wrong.
fn cell_flags(mcol: &Mcol, spec: &GridSpec, out: &mut Collect) {
    let n = spec.cell_count().min(mcol.cells.len());
    for (i, c) in mcol.cells[..n].iter().enumerate() {
        if c.record().is_none() {
            continue;
        }
        let at = spec.coords(i);
        if c.index[3] != 1 {
            out.cell(at, names::CELL_BYTE3);
        }
        if c.index[..3].iter().map(|&b| b as usize).ne(at) {
            out.cell(at, names::CELL_POSITION);
        }
        if c.count != 1 {
            out.cell(at, names::CELL_COUNT_ONE);
        }
    }
}

/// Cells missing an overlapping triangle; triangles no cell lists.
fn list_flags(mcol: &Mcol, mesh: &TriMesh, spec: &GridSpec, out: &mut Collect) {
    let nt = mesh.triangles.len();
    let lists = file_lists(mcol, nt);
    let exact = build_cell_lists(mesh, spec, 0.0);
    let mut listed = vec![false; nt];
    for (c, (want, have)) in exact.iter().zip(&lists).enumerate() {
        for &t in have {
            listed[t as usize] = true;
        }
        if want.iter().any(|t| have.binary_search(t).is_err()) {
            out.cell(spec.coords(c), geometry::names::MISSING);
        }
    }
    for (t, l) in listed.iter().enumerate() {
        if !l {
            out.triangle(t, names::EVERY_LISTED);
        }
    }
}

/// The box of cell `c` of `spec`, as f32 corners (lo, hi).
pub fn cell_corners(spec: &GridSpec, c: [usize; 3]) -> (glam::Vec3, glam::Vec3) {
    let b: Aabb = spec.cell_box(spec.linear(c));
    (b.min.as_vec3(), b.max.as_vec3())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::testmaps;

    #[test]
    fn a_clean_map_flags_nothing() {
        let m = testmaps::box_map();
        assert!(mcol_flags(&m).is_empty());
    }

    #[test]
    fn a_loose_sphere_and_a_dropped_entry_are_flagged_where_they_are() {
        let mut m = testmaps::box_map();
        m.spheres[3][3] *= 2.0;
        let cell = m.cells.iter().position(|c| c.record().is_some()).unwrap();
        let rec = m.cells[cell].record().unwrap();
        let dropped = m.records[rec].triangles.remove(0);
        let f = mcol_flags(&m);
        let loose = f.triangles.iter().find(|t| t.at.triangle == 3).unwrap();
        assert_eq!(loose.checks, vec![geo::SPHERE_TIGHT.id]);
        let spec = GridSpec::from_header(&m.header);
        let flagged_cell = f.cells.iter().find(|c| c.at.cell == spec.coords(cell));
        let still_listed = m.records.iter().any(|r| r.triangles.contains(&dropped));
        assert!(
            flagged_cell.is_some_and(|c| c.checks == vec![geometry::names::MISSING.id]),
            "{f:?}"
        );
        let unlisted = f.triangles.iter().any(|t| {
            t.at.triangle == u32::from(dropped) && t.checks.contains(&names::EVERY_LISTED.id)
        });
        assert_eq!(unlisted, !still_listed);
    }
}
