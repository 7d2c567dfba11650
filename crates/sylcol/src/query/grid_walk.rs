//! A 3-D DDA over a uniform grid (Amanatides & Woo, 1987).
//!
//! The ray is first clipped to the grid's box, so it may start outside.
//! Cells come out in ray order with the parameter range the ray spends in
//! each. Each crossing time is computed from the cell index directly
//! (`(boundary - g) / gd`), so errors do not accumulate along the walk. A
//! ray along an axis never steps the other axes; a ray through a cell edge
//! or corner steps one axis at a time, visiting every cell it touches.

use glam::DVec3;

use crate::grid::GridSpec;

/// How far (in cells) the clipping box reaches beyond the grid.
const CLIP_SLACK: f64 = 1e-9;

/// Cells along a ray, in order.
#[derive(Debug, Clone)]
pub struct GridWalk {
    dims: [i64; 3],
    cell: [i64; 3],
    step: [i64; 3],
    /// Ray origin in grid units (cell (i, j, k) spans i..i+1 on x, ...).
    g: DVec3,
    /// 1 / direction in grid units (infinite along a still axis).
    inv: DVec3,
    /// Parameter at which the current cell is entered.
    t_enter: f64,
    /// Parameter at which the walk ends (grid exit or the caller's limit).
    t_end: f64,
    done: bool,
}

/// One visited cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkStep {
    /// Linear cell index, x fastest.
    pub cell: usize,
    /// Ray parameter entering the cell.
    pub t_enter: f64,
    /// Ray parameter leaving it (or the walk's end).
    pub t_exit: f64,
}

impl GridWalk {
    /// The walk of `origin + t * dir`, t in [t0, t1], over `grid`; `None`
    /// when that piece of the ray misses the grid's box.
    pub fn new(grid: &GridSpec, origin: DVec3, dir: DVec3, t0: f64, t1: f64) -> Option<Self> {
        let g = (origin - grid.origin) / grid.cell;
        let gd = dir / grid.cell;
        let dims = grid.dims.map(|n| n as i64);
        let (mut lo, mut hi) = (t0, t1);
        for k in 0..3 {
            // The box is widened by CLIP_SLACK cells so that a ray touching
            // only its edge or corner is not lost to rounding.
            let n = dims[k] as f64 + CLIP_SLACK;
            if gd[k] == 0.0 {
                if !(-CLIP_SLACK..=n).contains(&g[k]) {
                    return None;
                }
                continue;
            }
            let (a, b) = ((-CLIP_SLACK - g[k]) / gd[k], (n - g[k]) / gd[k]);
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
        if lo.is_nan() || hi.is_nan() || lo > hi || dims.contains(&0) {
            return None;
        }
        let start = g + gd * lo;
        let mut cell = [0i64; 3];
        let mut step = [0i64; 3];
        for k in 0..3 {
            cell[k] = (start[k].floor() as i64).clamp(0, dims[k] - 1);
            step[k] = if gd[k] > 0.0 {
                1
            } else if gd[k] < 0.0 {
                -1
            } else {
                0
            };
        }
        Some(GridWalk {
            dims,
            cell,
            step,
            g,
            inv: DVec3::ONE / gd,
            t_enter: lo,
            t_end: hi,
            done: false,
        })
    }

    /// Parameter at which the ray leaves the current cell along axis `k`.
    #[inline]
    fn crossing(&self, k: usize) -> f64 {
        match self.step[k] {
            0 => f64::INFINITY,
            s => {
                let boundary = (self.cell[k] + i64::from(s > 0)) as f64;
                (boundary - self.g[k]) * self.inv[k]
            }
        }
    }

    /// The current cell's linear index.
    #[inline]
    fn linear(&self) -> usize {
        (self.cell[0] + self.dims[0] * (self.cell[1] + self.dims[1] * self.cell[2])) as usize
    }
}

impl Iterator for GridWalk {
    type Item = WalkStep;

    #[inline]
    fn next(&mut self) -> Option<WalkStep> {
        if self.done {
            return None;
        }
        let t = [self.crossing(0), self.crossing(1), self.crossing(2)];
        let k = if t[0] <= t[1] && t[0] <= t[2] {
            0
        } else if t[1] <= t[2] {
            1
        } else {
            2
        };
        let out = WalkStep {
            cell: self.linear(),
            t_enter: self.t_enter,
            t_exit: t[k].min(self.t_end).max(self.t_enter),
        };
        if t[k] >= self.t_end {
            self.done = true;
        } else {
            self.cell[k] += self.step[k];
            self.t_enter = t[k].max(self.t_enter);
            if self.cell[k] < 0 || self.cell[k] >= self.dims[k] {
                self.done = true;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> GridSpec {
        GridSpec {
            origin: DVec3::ZERO,
            cell: DVec3::splat(1.0),
            dims: [4, 4, 4],
        }
    }

    fn cells(o: DVec3, d: DVec3) -> Vec<[usize; 3]> {
        let g = grid();
        GridWalk::new(&g, o, d, 0.0, f64::INFINITY)
            .map(|w| w.map(|s| g.coords(s.cell)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn along_an_axis() {
        let c = cells(DVec3::new(0.5, 1.5, 2.5), DVec3::X);
        assert_eq!(c, vec![[0, 1, 2], [1, 1, 2], [2, 1, 2], [3, 1, 2]]);
        let back = cells(DVec3::new(3.5, 1.5, 2.5), -DVec3::X * 3.0);
        assert_eq!(back, vec![[3, 1, 2], [2, 1, 2], [1, 1, 2], [0, 1, 2]]);
    }

    #[test]
    fn from_outside_and_through_corners() {
        // Enters at x = 0 and leaves through the diagonal's corners.
        let c = cells(DVec3::new(-2.0, -2.0, 0.5), DVec3::new(1.0, 1.0, 0.0));
        assert_eq!(c.first(), Some(&[0, 0, 0]));
        assert_eq!(c.last(), Some(&[3, 3, 0]));
        assert!(c.contains(&[1, 1, 0]) && c.contains(&[2, 2, 0]));
        // Consecutive cells differ in one coordinate by one.
        for w in c.windows(2) {
            let d: usize = (0..3).map(|k| w[0][k].abs_diff(w[1][k])).sum();
            assert_eq!(d, 1);
        }
        assert!(cells(DVec3::new(-2.0, 5.0, 0.5), DVec3::X).is_empty());
        assert!(cells(DVec3::new(-2.0, 0.5, 0.5), -DVec3::X).is_empty());
    }

    #[test]
    fn time_ranges_tile_the_ray() {
        let g = grid();
        let w = GridWalk::new(
            &g,
            DVec3::new(0.2, 0.3, 0.4),
            DVec3::new(1.0, 0.7, 0.3),
            0.0,
            2.5,
        );
        let steps: Vec<WalkStep> = w.unwrap().collect();
        assert_eq!(steps[0].t_enter, 0.0);
        assert_eq!(steps.last().unwrap().t_exit, 2.5);
        for s in steps.windows(2) {
            assert_eq!(s[0].t_exit, s[1].t_enter);
        }
    }
}
