//! The uniform grid a map is bucketed by, and building its cell lists.
//!
//! Cell `(x, y, z)` spans `origin + cell * (x, y, z)` to `origin + cell *
//! (x + 1, y + 1, z + 1)`; its linear index is `x + nx * (y + ny * z)`, x
//! fastest — the order of the file's cell array.

use glam::DVec3;

use super::mesh::TriMesh;
use super::primitives::{Aabb, triangle_overlaps_box};

/// A grid's placement and dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridSpec {
    /// The minimum corner (the map's bbox min).
    pub origin: DVec3,
    /// Cell size per axis.
    pub cell: DVec3,
    /// Cells per axis (nx, ny, nz).
    pub dims: [usize; 3],
}

impl GridSpec {
    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Linear index of cell (x, y, z).
    #[inline]
    pub fn linear(&self, [x, y, z]: [usize; 3]) -> usize {
        x + self.dims[0] * (y + self.dims[1] * z)
    }

    /// Cell coordinates of linear index `i`.
    #[inline]
    pub fn coords(&self, i: usize) -> [usize; 3] {
        let [nx, ny, _] = self.dims;
        [i % nx, (i / nx) % ny, i / (nx * ny)]
    }

    /// The box of cell `i`.
    pub fn cell_box(&self, i: usize) -> Aabb {
        let c = self.coords(i);
        let lo = self.origin + self.cell * DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64);
        Aabb::new(lo, lo + self.cell)
    }

    /// The whole grid's box.
    pub fn bounds(&self) -> Aabb {
        let n = DVec3::new(
            self.dims[0] as f64,
            self.dims[1] as f64,
            self.dims[2] as f64,
        );
        Aabb::new(self.origin, self.origin + self.cell * n)
    }

    /// The cell containing `p` (a point on a shared face belongs to the
    /// higher cell; on the grid's max face, to the last cell), or `None`
    /// outside the grid.
    #[inline]
    pub fn cell_of_point(&self, p: DVec3) -> Option<[usize; 3]> {
        let mut out = [0usize; 3];
        for k in 0..3 {
            // floor(x) = x as integer for x >= 0 (no libm call); a NaN or
            // a negative x is outside, and so is floor(x) > dims. (Through
            // i64, whose conversions are single instructions: a count of
            // cells is far below 2^63.)
            let x = (p[k] - self.origin[k]) / self.cell[k];
            if !(0.0..self.dims[k] as i64 as f64 + 1.0).contains(&x) {
                return None;
            }
            let t = x as i64 as usize;
            if t == self.dims[k] {
                // Exactly on the max face only.
                if p[k] > self.origin[k] + self.cell[k] * self.dims[k] as f64 {
                    return None;
                }
                out[k] = t - 1;
            } else {
                out[k] = t;
            }
        }
        Some(out)
    }

    /// Whether [`Self::cell_of_point`] finds a cell for `p`, without
    /// computing it.
    #[inline]
    pub fn holds(&self, p: DVec3) -> bool {
        (0..3).all(|k| {
            let x = (p[k] - self.origin[k]) / self.cell[k];
            let n = self.dims[k] as i64 as f64;
            // floor(x) == dims: on the max face only.
            (0.0..n + 1.0).contains(&x)
                && (x < n || p[k] <= self.origin[k] + self.cell[k] * self.dims[k] as f64)
        })
    }

    /// The inclusive range of cells a box touches, clamped to the grid, or
    /// `None` when it misses the grid.
    pub fn cell_range(&self, b: &Aabb) -> Option<([usize; 3], [usize; 3])> {
        if !b.overlaps(&self.bounds()) || self.cell_count() == 0 {
            return None;
        }
        let mut lo = [0usize; 3];
        let mut hi = [0usize; 3];
        for k in 0..3 {
            let n = self.dims[k] as f64;
            // A box starting or ending exactly on a cell face touches the
            // cells on both sides of it.
            let a = (((b.min[k] - self.origin[k]) / self.cell[k]).ceil() - 1.0).clamp(0.0, n - 1.0);
            let z = ((b.max[k] - self.origin[k]) / self.cell[k])
                .floor()
                .clamp(0.0, n - 1.0);
            lo[k] = a as usize;
            hi[k] = z as usize;
        }
        Some((lo, hi))
    }
}

/// For every cell, the triangles that overlap it (cell box grown by
/// `margin`), by an exact separating-axis test; ascending triangle order.
/// With `margin >= 0` no overlapping triangle is ever left out.
///
/// Shortcuts, each exact: a triangle whose bounds lie in one grown cell is
/// listed there; a cell holding one of the corners is listed without the
/// full test; and for triangles crossing more than a few cells per row, each
/// (y, z) row is narrowed to the x range of the triangle clipped to the
/// row's slab (widened against rounding) before the test runs.
pub fn build_cell_lists(mesh: &TriMesh, spec: &GridSpec, margin: f64) -> Vec<Vec<u32>> {
    build_cell_lists_of(mesh, spec, margin, 0..mesh.triangles.len() as u32)
}

/// [`build_cell_lists`] over the triangles `tris` only (ascending order in
/// each list when `tris` ascends).
pub fn build_cell_lists_of(
    mesh: &TriMesh,
    spec: &GridSpec,
    margin: f64,
    tris: impl IntoIterator<Item = u32>,
) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); spec.cell_count()];
    for_each_overlap(mesh, spec, margin, tris, |i, t| lists[i].push(t));
    lists
}

/// The lists of [`build_cell_lists_of`] in compressed form: cell `i`'s
/// list is `items[starts[i]..starts[i + 1]]` (one allocation for all the
/// lists, however many cells).
pub fn build_cell_csr_of(
    mesh: &TriMesh,
    spec: &GridSpec,
    margin: f64,
    tris: impl IntoIterator<Item = u32>,
) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for_each_overlap(mesh, spec, margin, tris, |i, t| pairs.push((i as u32, t)));
    csr_of_pairs(spec.cell_count(), pairs)
}

/// [`build_cell_csr_of`] with a cheaper, conservative test: a triangle is
/// listed in every cell (grown by `margin`) that its bounding box and its
/// plane both reach. Every cell the triangle overlaps lists it; a cell it
/// only passes near (beyond an edge) may list it too. For sub-grids, whose
/// lists only narrow a cell's own list for speed.
pub fn build_cell_csr_near(
    mesh: &TriMesh,
    spec: &GridSpec,
    margin: f64,
    tris: impl IntoIterator<Item = u32>,
) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for t in tris {
        let tri = mesh.corners(t as usize);
        let Some((lo, hi)) = spec.cell_range(&Aabb::of_triangle(&tri).expanded(margin)) else {
            continue;
        };
        let [a, b, c] = tri.map(|p| p.as_dvec3());
        let n = (b - a).cross(c - a);
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    let i = spec.linear([x, y, z]);
                    let bx = spec.cell_box(i).expanded(margin);
                    // The plane reaches the box when the box's extent
                    // along the normal covers the plane's offset.
                    let centre = (bx.min + bx.max) * 0.5;
                    let r = ((bx.max - bx.min) * 0.5).dot(n.abs());
                    let s = n.dot(a - centre);
                    // A relative allowance for the rounding of both sides.
                    if s.abs() <= r * (1.0 + 1e-9) + 1e-9 * s.abs() {
                        pairs.push((i as u32, t));
                    }
                }
            }
        }
    }
    csr_of_pairs(spec.cell_count(), pairs)
}

/// Compressed lists from (cell, triangle) pairs: a counting sort by cell
/// that keeps each cell's triangles in pair order.
fn csr_of_pairs(cells: usize, pairs: Vec<(u32, u32)>) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; cells + 1];
    for &(i, _) in &pairs {
        starts[i as usize + 1] += 1;
    }
    for i in 0..cells {
        starts[i + 1] += starts[i];
    }
    let mut next = starts.clone();
    let mut items = vec![0u32; pairs.len()];
    for (i, t) in pairs {
        items[next[i as usize] as usize] = t;
        next[i as usize] += 1;
    }
    (starts, items)
}

/// Calls `found(cell, t)` for every cell each triangle of `tris` overlaps
/// (the test of [`build_cell_lists`]), triangle by triangle.
fn for_each_overlap(
    mesh: &TriMesh,
    spec: &GridSpec,
    margin: f64,
    tris: impl IntoIterator<Item = u32>,
    mut found: impl FnMut(usize, u32),
) {
    for t in tris {
        let tri = mesh.corners(t as usize);
        let bounds = Aabb::of_triangle(&tri);
        let Some((lo, hi)) = spec.cell_range(&bounds.expanded(margin)) else {
            continue;
        };
        if lo == hi {
            // Fast path: a triangle inside one (grown) cell overlaps it.
            let i = spec.linear(lo);
            if spec.cell_box(i).expanded(margin).contains(&bounds) {
                found(i, t);
                continue;
            }
        }
        let corners = tri.map(|p| p.as_dvec3());
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let (x0, x1) = if hi[0] - lo[0] > 2 {
                    match row_x_range(&corners, spec, [y, z], margin) {
                        Some((a, b)) => (a.max(lo[0]), b.min(hi[0])),
                        None => continue,
                    }
                } else {
                    (lo[0], hi[0])
                };
                for x in x0..=x1 {
                    let i = spec.linear([x, y, z]);
                    // `cell_box(i)`'s arithmetic, from (x, y, z) directly.
                    let at = DVec3::new(x as f64, y as f64, z as f64);
                    let lo = spec.origin + spec.cell * at;
                    let b = Aabb::new(lo, lo + spec.cell).expanded(margin);
                    let holds_corner = corners.iter().any(|&p| b.contains_point(p));
                    if holds_corner || triangle_overlaps_box(&tri, &b) {
                        found(i, t);
                    }
                }
            }
        }
    }
}

/// The cells of row (y, z) the triangle can reach: the x extent of the
/// triangle clipped to the row's slab, both grown by the margin and a
/// rounding allowance far above f64 error; `None` when the clip is empty.
fn row_x_range(
    tri: &[DVec3; 3],
    spec: &GridSpec,
    [y, z]: [usize; 2],
    margin: f64,
) -> Option<(usize, usize)> {
    let row = spec.cell_box(spec.linear([0, y, z]));
    let reach = spec
        .bounds()
        .min
        .abs()
        .max(spec.bounds().max.abs())
        .max_element();
    let slack = margin + 1e-9 * (reach + spec.cell.max_element());
    let mut poly = Polygon::default();
    poly.pts[..3].copy_from_slice(tri);
    poly.len = 3;
    for (k, bound, keep_below) in [
        (1, row.min.y - slack, false),
        (1, row.max.y + slack, true),
        (2, row.min.z - slack, false),
        (2, row.max.z + slack, true),
    ] {
        poly = clip(poly.points(), k, bound, keep_below);
        if poly.len == 0 {
            return None;
        }
    }
    let (lo, hi) = poly
        .points()
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.x), b.max(p.x))
        });
    let mut b = row;
    b.min.x = lo - slack;
    b.max.x = hi + slack;
    spec.cell_range(&b).map(|(a, z)| (a[0], z[0]))
}

/// A convex polygon of at most eight points (a triangle clipped by four
/// planes has at most seven), kept on the stack.
#[derive(Debug, Clone, Copy, Default)]
struct Polygon {
    pts: [DVec3; 8],
    len: usize,
}

impl Polygon {
    fn points(&self) -> &[DVec3] {
        &self.pts[..self.len]
    }

    fn push(&mut self, p: DVec3) {
        self.pts[self.len] = p;
        self.len += 1;
    }
}

/// Sutherland-Hodgman: the part of a convex polygon (at most seven
/// points) on one side of the plane `p[k] = bound`.
fn clip(poly: &[DVec3], k: usize, bound: f64, keep_below: bool) -> Polygon {
    let inside = |p: &DVec3| {
        if keep_below {
            p[k] <= bound
        } else {
            p[k] >= bound
        }
    };
    let mut out = Polygon::default();
    for (i, p) in poly.iter().enumerate() {
        let q = &poly[(i + 1) % poly.len()];
        if inside(p) {
            out.push(*p);
        }
        if inside(p) != inside(q) {
            let t = (bound - p[k]) / (q[k] - p[k]);
            let mut x = *p + (*q - *p) * t;
            x[k] = bound;
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn spec() -> GridSpec {
        GridSpec {
            origin: DVec3::splat(-10.0),
            cell: DVec3::splat(10.0),
            dims: [2, 2, 2],
        }
    }

    #[test]
    fn point_to_cell() {
        let s = spec();
        assert_eq!(s.cell_of_point(DVec3::splat(-10.0)), Some([0, 0, 0]));
        assert_eq!(s.cell_of_point(DVec3::ZERO), Some([1, 1, 1]));
        assert_eq!(s.cell_of_point(DVec3::splat(10.0)), Some([1, 1, 1]));
        assert_eq!(s.cell_of_point(DVec3::splat(10.5)), None);
        assert_eq!(s.cell_of_point(DVec3::new(f64::NAN, 0.0, 0.0)), None);
        assert_eq!(s.linear([1, 0, 1]), 5);
        assert_eq!(s.coords(5), [1, 0, 1]);
    }

    /// `holds` is `cell_of_point(p).is_some()`, on and beside every face
    /// (a grid whose cell does not divide its box exactly, so that the
    /// max face's rounding matters).
    #[test]
    fn holds_where_a_cell_is_found() {
        let s = GridSpec {
            origin: DVec3::new(-10.1, 0.3, 1e-3),
            cell: DVec3::new(0.7, 1.0 / 3.0, 0.1),
            dims: [3, 5, 7],
        };
        let hi = s.bounds().max;
        // Per axis: around the min face, the max face and an inner one.
        let values: Vec<Vec<f64>> = (0..3)
            .map(|k| {
                [s.origin[k], hi[k], s.origin[k] + s.cell[k]]
                    .into_iter()
                    .flat_map(|x| {
                        let (down, up) = (x.next_down(), x.next_up());
                        [down.next_down(), down, x, up, up.next_up()]
                    })
                    .collect()
            })
            .collect();
        for &x in &values[0] {
            for &y in &values[1] {
                for &z in &values[2] {
                    let p = DVec3::new(x, y, z);
                    for q in [p, DVec3::new(f64::NAN, y, z)] {
                        assert_eq!(s.holds(q), s.cell_of_point(q).is_some(), "{q}");
                    }
                }
            }
        }
    }

    #[test]
    fn lists_hold_overlapping_triangles() {
        let s = spec();
        // A triangle on the plane z = 0: the shared face of both z layers.
        let mesh = TriMesh::new(
            vec![
                Vec3::new(-9.0, -9.0, 0.0),
                Vec3::new(-1.0, -9.0, 0.0),
                Vec3::new(-9.0, -1.0, 0.0),
            ],
            vec![[0, 1, 2]],
        );
        let lists = build_cell_lists(&mesh, &s, 0.0);
        let occupied: Vec<usize> = (0..8).filter(|&i| !lists[i].is_empty()).collect();
        assert_eq!(occupied, vec![0, 4]);
    }
    /// The compressed lists are the lists.
    #[test]
    fn csr_lists_match_the_lists() {
        let s = GridSpec {
            origin: DVec3::splat(-2.0),
            cell: DVec3::splat(0.5),
            dims: [8, 8, 8],
        };
        let mesh = crate::fixtures::uv_sphere(Vec3::ZERO, 1.5, 16, 9);
        let lists = build_cell_lists(&mesh, &s, 1e-3);
        let all = 0..mesh.triangles.len() as u32;
        let (starts, items) = build_cell_csr_of(&mesh, &s, 1e-3, all);
        assert_eq!(starts.len(), lists.len() + 1);
        for (i, list) in lists.iter().enumerate() {
            assert_eq!(
                &items[starts[i] as usize..starts[i + 1] as usize],
                &list[..]
            );
        }
        assert!(items.len() > mesh.triangles.len());
        // The cheaper lists hold every exact entry, and not every cell of
        // every triangle's box.
        let all = 0..mesh.triangles.len() as u32;
        let (near_starts, near) = build_cell_csr_near(&mesh, &s, 1e-3, all);
        let boxes: usize = (0..mesh.triangles.len())
            .filter_map(|t| s.cell_range(&Aabb::of_triangle(&mesh.corners(t)).expanded(1e-3)))
            .map(|(lo, hi)| (0..3).map(|k| hi[k] - lo[k] + 1).product::<usize>())
            .sum();
        for (i, list) in lists.iter().enumerate() {
            let got = &near[near_starts[i] as usize..near_starts[i + 1] as usize];
            assert!(list.iter().all(|t| got.contains(t)), "cell {i}");
        }
        assert!(
            near.len() >= items.len() && near.len() < boxes,
            "{} {}",
            near.len(),
            boxes
        );
    }

    #[test]
    fn row_narrowing_matches_brute_force() {
        let s = GridSpec {
            origin: DVec3::splat(-40.0),
            cell: DVec3::splat(2.0),
            dims: [40, 40, 40],
        };
        let mesh = TriMesh::new(
            vec![
                Vec3::new(-40.0, -40.0, -40.0),
                Vec3::new(40.0, -40.0, 40.0),
                Vec3::new(-40.0, 40.0, 40.0),
                // Lying in the cell plane z = 0 and along x = 2.
                Vec3::new(-39.0, -3.0, 0.0),
                Vec3::new(39.0, 7.0, 0.0),
                Vec3::new(2.0, 30.0, 0.0),
                Vec3::new(2.0, -38.0, -38.0),
                Vec3::new(2.0, 38.0, 37.0),
                Vec3::new(2.0, 1.0, 38.0),
            ],
            vec![[0, 1, 2], [3, 4, 5], [6, 7, 8]],
        );
        for margin in [0.0, 1e-3] {
            let lists = build_cell_lists(&mesh, &s, margin);
            for (i, list) in lists.iter().enumerate() {
                let b = s.cell_box(i).expanded(margin);
                let want: Vec<u32> = (0..3)
                    .filter(|&t| triangle_overlaps_box(&mesh.corners(t as usize), &b))
                    .collect();
                assert_eq!(list, &want, "cell {:?}", s.coords(i));
            }
        }
    }
}
