//! The grid's cells in Chebyshev rings around a cell, as the nearest-point
//! searches visit them (`points` through every cell, the closest index's
//! search through the occupied ones), with the distance bounds that end
//! a search.

use glam::DVec3;

use super::GridIndex;

impl GridIndex {
    /// Whether cell `i` lists any triangle.
    #[inline(always)]
    pub(crate) fn is_occupied(&self, i: usize) -> bool {
        let starts = &self.lists().starts;
        starts[i] != starts[i + 1]
    }

    /// Calls `visit(cell, its coordinates)` for every occupied cell at
    /// Chebyshev distance `r` from `c0`, in the order of
    /// [`GridIndex::for_ring_cells`].
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

    /// The grid cell nearest to `p` (its own cell inside the grid).
    pub(crate) fn nearest_cell(&self, p: DVec3) -> [usize; 3] {
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
    pub(crate) fn for_ring(
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
}
