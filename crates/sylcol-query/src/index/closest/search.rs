//! The nearest surface point (unsigned distance) through the grid and its
//! closest index.
//!
//! `closest_point` searches shells of cells (Chebyshev rings) around the
//! cell nearest to p. Along each axis a cell's distance from p grows with
//! its offset from that cell, so every cell beyond ring r is at least as
//! far as some cell of ring r: once a whole ring lies farther than the
//! best triangle so far, the search is done. Distances are computed in
//! f64 from the f32 corners. The closest index ([`ClosestIndex`]), built
//! on the first query, lets the search skip empty rings and cells, or
//! search a tiny mesh's packets with the BVH leaves' test, with the same answers as the search
//! through every cell (`PointQuery` for `GridIndex`).
//!
//! A point [`FAR`](crate::index::surface::FAR) times the mesh's size away from its centre is answered
//! exactly ([`far`](super::far)): from that far the f64 distances of the
//! triangles differ by less than their own rounding.

use glam::{DVec3, Vec3};

use super::index::ClosestIndex;
use crate::error::QueryError;
use crate::index::bvh::near::nearest_of_packets;
use crate::index::grid::GridIndex;
use crate::index::surface::closest_answer;
use crate::kernels::mailbox::with_visits;
use crate::query::{ClosestPoint, finite};

impl ClosestIndex {
    /// The nearest point of `grid`'s surface to `p` (this index is
    /// `grid`'s), with the unsigned distance; `None` only when no cell
    /// lists a triangle. A distance beyond `f32::MAX` cannot be reported:
    /// [`QueryError::DistanceOverflow`].
    pub(crate) fn closest_point(
        &self,
        grid: &GridIndex,
        p: Vec3,
    ) -> Result<Option<ClosestPoint>, QueryError> {
        finite(p, "point")?;
        let pd = p.as_dvec3();
        let index = self;
        let (spec, surface) = (&grid.spec, &grid.surface);
        if let Some(centre) = surface.far_from(pd) {
            return closest_answer(surface.nearest_far(&index.listed, p, centre));
        }
        if let Some(few) = &index.few {
            let best = nearest_of_packets(grid.kernels, &few.packets, &few.slabs, p, few.count);
            return closest_answer(best);
        }
        let mut best = (f64::INFINITY, u32::MAX, DVec3::ZERO);
        with_visits(surface.triangle_count(), |seen| {
            let c0 = grid.nearest_cell(pd);
            let reach = (0..3).map(|k| spec.dims[k].max(1)).max().unwrap_or(1);
            // Rings nearer than the nearest occupied cell list nothing.
            let first = usize::from(index.empty_rings[spec.linear(c0)]);
            for r in first..reach {
                grid.for_ring_occupied(c0, r, |cell, at| {
                    if grid.cell_distance2(at, pd) <= best.0 {
                        surface.nearest_of(grid.list(cell), pd, seen, &mut best);
                    }
                });
                if grid.ring_lower_bound(c0, r + 1, pd) > best.0 {
                    break;
                }
            }
        });
        closest_answer(best)
    }
}
