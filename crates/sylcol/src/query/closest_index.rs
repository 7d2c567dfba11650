//! What `closest_point` builds on its first call (so a collider costs
//! nothing more to prepare): the triangles the grid lists, searched by
//! brute force when they are few, and per cell the number of empty rings
//! around it, which the ring search skips.
//!
//! The ring search itself looks only at occupied cells (one bit each) and
//! stops once a lower bound on every farther ring's distance, taken from
//! the faces of the cube of cells already searched, exceeds the best
//! triangle so far. Every cell it visits is one the search through every
//! cell visited, in the same order, so the answers are the same.

use std::collections::VecDeque;

use glam::DVec3;

use super::Collider;

/// Meshes whose grids list at most this many triangles are searched by
/// brute force.
pub(crate) const BRUTE_FORCE: usize = 32;

/// The closest-point search's index.
#[derive(Debug, Clone)]
pub(crate) struct ClosestIndex {
    /// Every triangle some cell lists, ascending.
    pub(crate) listed: Vec<u32>,
    /// Per cell, the Chebyshev distance (in cells) to the nearest occupied
    /// cell: the rings around it that list nothing. `u16::MAX` when no
    /// cell is occupied.
    pub(crate) empty_rings: Vec<u16>,
}

impl ClosestIndex {
    /// The index of collider `c`'s grid.
    pub(crate) fn new(c: &Collider) -> Self {
        let mut listed = c.lists().items.clone();
        listed.sort_unstable();
        listed.dedup();
        ClosestIndex {
            listed,
            empty_rings: empty_rings(c),
        }
    }
}

/// A breadth-first search from every occupied cell over the 26
/// neighbours: Chebyshev distances to the nearest occupied cell.
fn empty_rings(c: &Collider) -> Vec<u16> {
    let spec = &c.spec;
    let mut dist = vec![u16::MAX; spec.cell_count()];
    let mut queue = VecDeque::new();
    for (i, d) in dist.iter_mut().enumerate() {
        if c.is_occupied(i) {
            *d = 0;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let cell = spec.coords(i);
        let next = dist[i].saturating_add(1);
        for dz in -1i64..=1 {
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let n = [dx, dy, dz];
                    let mut at = [0usize; 3];
                    let ok = (0..3).all(|k| {
                        let v = cell[k] as i64 + n[k];
                        at[k] = v as usize;
                        v >= 0 && (v as usize) < spec.dims[k]
                    });
                    if !ok {
                        continue;
                    }
                    let j = spec.linear(at);
                    if dist[j] == u16::MAX {
                        dist[j] = next;
                        queue.push_back(j);
                    }
                }
            }
        }
    }
    dist
}

impl Collider {
    /// Whether cell `i` lists any triangle.
    #[inline(always)]
    pub(crate) fn is_occupied(&self, i: usize) -> bool {
        let starts = &self.lists().starts;
        starts[i] != starts[i + 1]
    }

    /// Calls `visit(cell, its coordinates)` for every occupied cell at
    /// Chebyshev distance `r` from `c0`, in the order of
    /// [`Collider::for_ring_cells`].
    pub(crate) fn for_ring_occupied(
        &self,
        c0: [usize; 3],
        r: usize,
        mut visit: impl FnMut(usize, [usize; 3]),
    ) {
        self.for_ring_cells(c0, r, |cell, at| {
            if self.is_occupied(cell) {
                visit(cell, at);
            }
        });
    }

    /// Calls `visit(cell, its coordinates)` for every grid cell at
    /// Chebyshev distance `r` from `c0`, z slowest, x fastest.
    pub(crate) fn for_ring_cells(
        &self,
        c0: [usize; 3],
        r: usize,
        mut visit: impl FnMut(usize, [usize; 3]),
    ) {
        let dims = self.spec.dims;
        let range = |k: usize| (c0[k].saturating_sub(r), (c0[k] + r).min(dims[k] - 1));
        let ((x0, x1), (y0, y1), (z0, z1)) = (range(0), range(1), range(2));
        let mut cell_at = |x: usize, y: usize, z: usize| {
            visit(self.spec.linear([x, y, z]), [x, y, z]);
        };
        for z in z0..=z1 {
            for y in y0..=y1 {
                if r == 0 || z.abs_diff(c0[2]) == r || y.abs_diff(c0[1]) == r {
                    (x0..=x1).for_each(|x| cell_at(x, y, z));
                } else {
                    // Inside the ring's y-z square: only its two x faces.
                    if let Some(x) = c0[0].checked_sub(r) {
                        cell_at(x, y, z);
                    }
                    if c0[0] + r < dims[0] {
                        cell_at(c0[0] + r, y, z);
                    }
                }
            }
        }
    }

    /// The squared distance from `p` to the cell at `at`: the same
    /// arithmetic as `spec.cell_box(cell).distance_squared(p)`, without
    /// the divisions that find a cell's coordinates.
    #[inline]
    pub(crate) fn cell_distance2(&self, at: [usize; 3], p: DVec3) -> f64 {
        let (o, s) = (self.spec.origin, self.spec.cell);
        let mut d = [0.0; 3];
        for k in 0..3 {
            let lo = o[k] + s[k] * at[k] as f64;
            let hi = lo + s[k];
            d[k] = (lo - p[k]).max(p[k] - hi).max(0.0);
        }
        d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    }

    /// A lower bound on the squared distance from `p` to every cell at
    /// Chebyshev distance `r` or more from `c0` (infinite when there is no
    /// such cell): such a cell lies beyond one face of the cube of cells
    /// nearer than `r`, on a side where the grid goes on.
    pub(crate) fn ring_lower_bound(&self, c0: [usize; 3], r: usize, p: DVec3) -> f64 {
        let (o, s) = (self.spec.origin, self.spec.cell);
        let mut bound = f64::INFINITY;
        for k in 0..3 {
            if c0[k] + r < self.spec.dims[k] {
                // Cells from c0 + r up: their boxes start at this plane.
                let plane = o[k] + s[k] * (c0[k] + r) as f64;
                let gap = (plane - p[k]).max(0.0);
                bound = bound.min(gap * gap);
            }
            if let Some(i) = c0[k].checked_sub(r) {
                // Cells from c0 - r down: their boxes end at this plane.
                let plane = o[k] + s[k] * i as f64 + s[k];
                let gap = (p[k] - plane).max(0.0);
                bound = bound.min(gap * gap);
            }
        }
        bound
    }
}
