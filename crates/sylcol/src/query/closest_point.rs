//! The nearest surface point (unsigned distance) and sphere overlap.
//!
//! `closest_point` searches shells of cells (Chebyshev rings) around the
//! cell nearest to p. Along each axis a cell's distance from p grows with
//! its offset from that cell, so every cell beyond ring r is at least as
//! far as some cell of ring r: once a whole ring lies farther than the
//! best triangle so far, the search is done. Distances are computed in
//! f64 from the f32 corners. The closest index
//! ([`closest_index`](super::closest_index)), built on the first query,
//! lets the search skip empty rings and cells, or search a tiny mesh by
//! brute force, with the same answers.
//!
//! A point [`FAR`] times the mesh's size away from its centre is answered
//! exactly ([`closest_far`](super::closest_far)): from that far the f64
//! distances of the triangles differ by less than their own rounding.

use glam::{DVec3, Vec3};

use super::closest_index::{BRUTE_FORCE, ClosestIndex};
use super::mailbox::with_visits;
use super::{ClosestPoint, Collider, QueryError, finite, radius_ok};
use crate::geom::Aabb;

/// A point farther than this many times the mesh's half-diagonal from its
/// centre is answered exactly (2^20: nearer, the squared distances'
/// rounding, 2^-52 of them, stays under 2^-32 of the mesh's size, far
/// below its f32 coordinates' own).
pub(crate) const FAR: f64 = (1u64 << 20) as f64;

impl Collider {
    /// The nearest point of the surface to `p`, with the unsigned
    /// distance; `None` only when no cell lists a triangle. A distance
    /// beyond `f32::MAX` cannot be reported: [`QueryError::DistanceOverflow`].
    pub fn closest_point(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError> {
        finite(p, "point")?;
        let pd = p.as_dvec3();
        let index = self.closest_index.get_or_init(|| ClosestIndex::new(self));
        if let Some(centre) = self.far_from(pd) {
            return closest_answer(self.nearest_far(&index.listed, p, centre));
        }
        let mut best = (f64::INFINITY, u32::MAX, DVec3::ZERO);
        with_visits(self.triangle_count(), |seen| {
            if index.listed.len() <= BRUTE_FORCE {
                self.nearest_of(&index.listed, pd, seen, &mut best);
                return;
            }
            let c0 = self.nearest_cell(pd);
            let reach = (0..3).map(|k| self.spec.dims[k].max(1)).max().unwrap_or(1);
            // Rings nearer than the nearest occupied cell list nothing.
            let first = usize::from(index.empty_rings[self.spec.linear(c0)]);
            for r in first..reach {
                self.for_ring_occupied(c0, r, |cell, at| {
                    if self.cell_distance2(at, pd) <= best.0 {
                        self.nearest_of(self.list(cell), pd, seen, &mut best);
                    }
                });
                if self.ring_lower_bound(c0, r + 1, pd) > best.0 {
                    break;
                }
            }
        });
        closest_answer(best)
    }

    /// The mesh's centre, when `p` lies [`FAR`] from it.
    fn far_from(&self, p: DVec3) -> Option<DVec3> {
        let (lo, hi) = (self.bounds.0.as_dvec3(), self.bounds.1.as_dvec3());
        let centre = (lo + hi) * 0.5;
        let reach = (hi - lo).length() * 0.5;
        (p.distance(centre) > FAR * reach).then_some(centre)
    }

    /// The ring search through every cell (the answer before the closest
    /// index): the reference the fast path is tested against.
    #[cfg(test)]
    pub(crate) fn closest_by_rings(&self, p: Vec3) -> Option<ClosestPoint> {
        let pd = p.as_dvec3();
        let c0 = self.nearest_cell(pd);
        let reach = (0..3).map(|k| self.spec.dims[k].max(1)).max().unwrap_or(1);
        let mut best = (f64::INFINITY, u32::MAX, DVec3::ZERO);
        with_visits(self.triangle_count(), |seen| {
            for r in 0..reach {
                let ring_min = self.for_ring(c0, r, pd, |cell, d2| {
                    if d2 <= best.0 {
                        self.nearest_of(self.list(cell), pd, seen, &mut best);
                    }
                });
                if ring_min > best.0 {
                    break;
                }
            }
        });
        closest_answer(best).ok().flatten()
    }

    /// Whether a sphere touches the surface (distance <= radius). A sphere
    /// wholly inside a solid does not touch it: ask `contains_point`.
    pub fn intersects_sphere(&self, centre: Vec3, radius: f32) -> Result<bool, QueryError> {
        finite(centre, "sphere centre")?;
        radius_ok(radius)?;
        let (c, r) = (centre.as_dvec3(), f64::from(radius));
        let b = Aabb::new(c - DVec3::splat(r), c + DVec3::splat(r));
        let Some((lo, hi)) = self.spec.cell_range(&b) else {
            return Ok(false);
        };
        Ok(with_visits(self.triangle_count(), |seen| {
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        let cell = self.spec.linear([x, y, z]);
                        if self.spec.cell_box(cell).distance_squared(c) > r * r {
                            continue;
                        }
                        for &t in self.list(cell) {
                            if seen.first(t) && self.triangle_distance2(t, c, r * r) <= r * r {
                                return true;
                            }
                        }
                    }
                }
            }
            false
        }))
    }

    /// The grid cell nearest to `p` (its own cell inside the grid).
    fn nearest_cell(&self, p: DVec3) -> [usize; 3] {
        let g = (p - self.spec.origin) / self.spec.cell;
        let mut c = [0usize; 3];
        for k in 0..3 {
            let n = self.spec.dims[k].max(1) as f64;
            c[k] = g[k].floor().clamp(0.0, n - 1.0) as usize;
        }
        c
    }

    /// Calls `visit(cell, squared distance from p to the cell)` for every
    /// grid cell at Chebyshev distance `r` from `c0`; returns the smallest
    /// of those distances (infinite when the ring lies outside the grid).
    #[cfg(test)]
    fn for_ring(
        &self,
        c0: [usize; 3],
        r: usize,
        p: DVec3,
        mut visit: impl FnMut(usize, f64),
    ) -> f64 {
        let mut min = f64::INFINITY;
        self.for_ring_cells(c0, r, |cell, _| {
            let d2 = self.spec.cell_box(cell).distance_squared(p);
            min = min.min(d2);
            visit(cell, d2);
        });
        min
    }

    /// Updates `best` (squared distance, triangle, point) with the
    /// triangles of `list` not yet seen.
    fn nearest_of(
        &self,
        list: &[u32],
        p: DVec3,
        seen: &mut super::mailbox::Visits<'_>,
        best: &mut (f64, u32, DVec3),
    ) {
        for &t in list {
            if !seen.first(t) {
                continue;
            }
            if !self.sphere_within(t, p, best.0) {
                continue;
            }
            let [a, b, c] = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
            let q = closest_on_triangle(p, a, b, c);
            let d2 = q.distance_squared(p);
            if d2 < best.0 || (d2 == best.0 && t < best.1) {
                *best = (d2, t, q);
            }
        }
    }

    /// Whether triangle `t`'s bounding sphere comes within sqrt(`d2`) of p.
    #[inline]
    fn sphere_within(&self, t: u32, p: DVec3, d2: f64) -> bool {
        let s = self.sphere(t as usize).as_dvec4();
        let gap = s.truncate().distance(p) - s.w;
        gap <= 0.0 || gap * gap <= d2
    }

    /// Squared distance from p to triangle `t`, or infinity when its
    /// sphere already lies beyond sqrt(`limit2`).
    fn triangle_distance2(&self, t: u32, p: DVec3, limit2: f64) -> f64 {
        if !self.sphere_within(t, p, limit2) {
            return f64::INFINITY;
        }
        let [a, b, c] = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
        closest_on_triangle(p, a, b, c).distance_squared(p)
    }
}

/// The answer from the search's best (squared distance, triangle, point):
/// none when no triangle was found, an error when the distance is beyond
/// f32's range.
fn closest_answer(best: (f64, u32, DVec3)) -> Result<Option<ClosestPoint>, QueryError> {
    if best.1 == u32::MAX {
        return Ok(None);
    }
    let distance = best.0.sqrt() as f32;
    if !distance.is_finite() {
        return Err(QueryError::DistanceOverflow);
    }
    Ok(Some(ClosestPoint {
        point: best.2.as_vec3(),
        distance,
        triangle: best.1,
    }))
}

/// The point of triangle abc nearest to p (Ericson, *Real-Time Collision
/// Detection*, 5.1.5): Voronoi regions of the vertices, edges and face.
pub(crate) fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom == 0.0 {
        // Degenerate (collinear) triangle: the nearest of its edges.
        return [(a, b), (b, c), (c, a)]
            .map(|(x, y)| closest_on_segment(p, x, y))
            .into_iter()
            .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
            .unwrap_or(a);
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

/// The point of segment xy nearest to p.
pub(crate) fn closest_on_segment(p: DVec3, x: DVec3, y: DVec3) -> DVec3 {
    let d = y - x;
    let l2 = d.length_squared();
    if l2 == 0.0 {
        return x;
    }
    x + d * ((p - x).dot(d) / l2).clamp(0.0, 1.0)
}
