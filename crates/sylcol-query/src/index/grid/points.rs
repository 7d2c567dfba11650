//! Points through the grid alone: containment by the parity count along
//! the axis ray from p through the grid's own lists, and the nearest
//! surface point by a ring search through every cell.
//!
//! These are the grid's own answers. The `Collider` answers faster, with
//! what its first point query builds (the inside index, which also needs
//! no complete lists; the closest index, whose search visits the same
//! cells in the same order where any triangle is listed): these answers
//! are the reference its tests hold it to. The parity count is exact for
//! a closed mesh whose every triangle each cell it touches lists (a
//! derived grid, a map sylcol built); a file whose lists leave a triangle
//! out of a cell can miscount there, where the inside index cannot.

use glam::{DVec3, Vec3};

use super::GridIndex;
use crate::error::QueryError;
use crate::geometry::parity::{Crossing, crossing, shortest_exit};
use crate::index::surface::closest_answer;
use crate::kernels::mailbox::with_visits;
use crate::query::{ClosestPoint, PointQuery, finite};

impl PointQuery for GridIndex {
    /// Whether `p` lies inside the closed hull or on its surface, by the
    /// parity of the crossings along the axis ray from p to the grid's
    /// nearest edge through the grid's own lists. A point outside the grid
    /// is outside.
    fn contains_point(&self, p: Vec3) -> Result<bool, QueryError> {
        finite(p, "point")?;
        Ok(self.inside_by_walk(p))
    }

    /// The nearest point of the surface to `p` by the ring search through
    /// every cell, with the unsigned distance; `None` only when no cell
    /// lists a triangle. (The collider's search answers a point far from
    /// the mesh exactly; this one in f64 throughout.)
    fn closest_point(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError> {
        finite(p, "point")?;
        self.closest_by_rings(p)
    }
}

impl GridIndex {
    /// The parity walk through the grid's own lists.
    fn inside_by_walk(&self, p: Vec3) -> bool {
        let Some(c) = self.spec.cell_of_point(p.as_dvec3()) else {
            return false;
        };
        let (k, forward) = shortest_exit(c, self.spec.dims);
        let n = self.spec.dims[k];
        let mesh = self.mesh();
        with_visits(mesh.triangles.len(), |seen| {
            let mut odd = false;
            let mut cell = c;
            loop {
                for &t in self.list(self.spec.linear(cell)) {
                    if !seen.first(t) {
                        continue;
                    }
                    match crossing(&mesh.corners(t as usize), p, k, forward) {
                        Crossing::Miss => {}
                        Crossing::Cross => odd = !odd,
                        Crossing::OnSurface => return true,
                    }
                }
                match forward {
                    true if cell[k] + 1 < n => cell[k] += 1,
                    false if cell[k] > 0 => cell[k] -= 1,
                    _ => return odd,
                }
            }
        })
    }

    /// The ring search through every cell.
    fn closest_by_rings(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError> {
        let pd = p.as_dvec3();
        let c0 = self.nearest_cell(pd);
        let reach = (0..3).map(|k| self.spec.dims[k].max(1)).max().unwrap_or(1);
        let mut best = (f64::INFINITY, u32::MAX, DVec3::ZERO);
        let surface = &self.surface;
        with_visits(surface.triangle_count(), |seen| {
            for r in 0..reach {
                let ring_min = self.for_ring(c0, r, pd, |cell, d2| {
                    if d2 <= best.0 {
                        surface.nearest_of(self.list(cell), pd, seen, &mut best);
                    }
                });
                if ring_min > best.0 {
                    break;
                }
            }
        });
        closest_answer(best)
    }
}
