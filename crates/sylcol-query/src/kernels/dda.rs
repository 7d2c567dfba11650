//! A 3-D DDA over a uniform grid (Amanatides & Woo, 1987).
//!
//! The ray is first clipped to the grid's box (widened by a hair so a ray
//! touching only an edge or corner of the box is not lost to rounding), so
//! it may start outside. Cells come out in ray order with the parameter
//! range the ray spends in each. A ray along an axis never steps the other
//! axes; a ray through a cell edge or corner steps one axis at a time,
//! visiting every cell it touches. Crossing times advance by a fixed
//! increment per axis (f64; at most 3 x 255 steps, so the drift stays
//! around 1e-13 of a cell).

use glam::{DVec3, IVec3};

use crate::geometry::grid::GridSpec;

/// How far (in cells) the clipping box reaches beyond the grid.
pub const CLIP_SLACK: f64 = 1e-9;

/// A grid prepared for walking: reciprocal cell sizes and strides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkFrame {
    origin: DVec3,
    inv_cell: DVec3,
    cell: DVec3,
    /// Cells per axis.
    dims: IVec3,
    /// The far faces of the clipping box, in cells.
    clip_hi: DVec3,
    /// The highest cell index per axis, as f64.
    last_cell: DVec3,
    strides: [isize; 3],
    /// The same numbers as vector rows for the AVX walk (lane 3 inert).
    pub lanes: FrameLanes,
}

/// A [`WalkFrame`]'s numbers as rows of four lanes, the fourth inert:
/// origin 0, cell 1, clipping face 1 (`dda_avx`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub struct FrameLanes {
    pub origin: [f64; 4],
    pub inv_cell: [f64; 4],
    pub cell: [f64; 4],
    pub clip_hi: [f64; 4],
    pub last_cell: [f64; 4],
    /// The highest cell index per axis.
    pub last: [i64; 4],
    /// Linear-index strides per axis.
    pub strides: [i64; 4],
}

impl WalkFrame {
    /// The frame of `grid` (at least one cell per axis, at most 2^31
    /// cells in all).
    pub fn new(grid: &GridSpec) -> Self {
        assert!(
            grid.dims.iter().all(|&n| n > 0) && grid.cell_count() <= i32::MAX as usize,
            "a walk frame needs 1 to 2^31 - 1 cells: {:?}",
            grid.dims
        );
        let dims = IVec3::from_array(grid.dims.map(|n| n as i32));
        let (clip_hi, last_cell) = (dims.as_dvec3() + CLIP_SLACK, (dims - 1).as_dvec3());
        let inv_cell = DVec3::ONE / grid.cell;
        let strides = [1, dims.x as isize, dims.x as isize * dims.y as isize];
        let row = |v: DVec3, pad: f64| [v.x, v.y, v.z, pad];
        WalkFrame {
            clip_hi,
            last_cell,
            origin: grid.origin,
            inv_cell,
            cell: grid.cell,
            dims,
            strides,
            lanes: FrameLanes {
                origin: row(grid.origin, 0.0),
                inv_cell: row(inv_cell, 1.0),
                cell: row(grid.cell, 1.0),
                clip_hi: row(clip_hi, 1.0),
                last_cell: row(last_cell, 0.0),
                last: [dims.x - 1, dims.y - 1, dims.z - 1, 0].map(i64::from),
                strides: [strides[0], strides[1], strides[2], 0].map(|s| s as i64),
            },
        }
    }
}

/// Cells along a ray, in order.
#[derive(Debug, Clone)]
pub struct GridWalk {
    cell: [i32; 3],
    step: [i32; 3],
    /// The index one past the grid in the step direction (-1 or n).
    stop: [i32; 3],
    /// Signed linear-index increments per axis step.
    stride: [isize; 3],
    linear: isize,
    /// Parameter at which the ray leaves the current cell, per axis.
    t_max: [f64; 3],
    /// Parameter increment per cell, per axis.
    t_delta: [f64; 3],
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
    /// The walk of `origin + t * dir`, t in [t0, t1], over the frame's
    /// grid; `None` when that piece of the ray misses the grid's box.
    #[inline(always)]
    pub fn new(f: &WalkFrame, origin: DVec3, dir: DVec3, t0: f64, t1: f64) -> Option<Self> {
        if dir.cmpeq(DVec3::ZERO).any() {
            Self::with_still_axis(f, origin, dir, t0, t1)
        } else {
            Self::moving(f, origin, dir, t0, t1)
        }
    }

    /// [`GridWalk::new`] for a ray that moves along every axis (no
    /// component of `dir` is zero; else the walk is empty).
    #[inline(always)]
    pub fn moving(f: &WalkFrame, origin: DVec3, dir: DVec3, t0: f64, t1: f64) -> Option<Self> {
        let g = (origin - f.origin) * f.inv_cell;
        // Parameter per cell along each axis.
        let inv = f.cell / dir;
        // The parameters at the clipping box's two faces, per axis; no
        // axis is still, so both are finite or infinite, never NaN.
        let a = (DVec3::splat(-CLIP_SLACK) - g) * inv;
        let b = (f.clip_hi - g) * inv;
        let lo = t0.max(a.min(b).max_element());
        let hi = t1.min(a.max(b).min_element());
        if lo.is_nan() || hi.is_nan() || lo > hi || dir.cmpeq(DVec3::ZERO).any() {
            return None;
        }
        let pos = dir.cmpgt(DVec3::ZERO);
        // Truncation equals floor here: anything below 0 clamps to 0.
        let start = (g + dir * f.inv_cell * lo).clamp(DVec3::ZERO, f.last_cell);
        let cell = start.as_ivec3();
        let step = IVec3::select(pos, IVec3::ONE, IVec3::NEG_ONE);
        let boundary = (cell + IVec3::select(pos, IVec3::ONE, IVec3::ZERO)).as_dvec3();
        let t_max = (boundary - g) * inv;
        let strides = IVec3::from_array(f.strides.map(|s| s as i32));
        Some(GridWalk {
            cell: cell.to_array(),
            step: step.to_array(),
            stop: IVec3::select(pos, f.dims, IVec3::NEG_ONE).to_array(),
            stride: (step * strides).to_array().map(|s| s as isize),
            linear: cell.dot(strides) as isize,
            t_max: t_max.to_array(),
            t_delta: inv.abs().to_array(),
            t_enter: lo,
            t_end: hi,
            done: false,
        })
    }

    /// [`GridWalk::new`] for a ray with a still axis: it never leaves its
    /// layer along that axis, and must start inside the clipping box's
    /// slab there.
    #[cold]
    fn with_still_axis(f: &WalkFrame, origin: DVec3, dir: DVec3, t0: f64, t1: f64) -> Option<Self> {
        let g = (origin - f.origin) * f.inv_cell;
        // Parameter per cell along each axis (infinite along a still axis).
        let inv = f.cell / dir;
        let (mut lo, mut hi) = (t0, t1);
        for k in 0..3 {
            let n = f64::from(f.dims[k]) + CLIP_SLACK;
            if dir[k] == 0.0 {
                if !(-CLIP_SLACK..=n).contains(&g[k]) {
                    return None;
                }
                continue;
            }
            let (a, b) = ((-CLIP_SLACK - g[k]) * inv[k], (n - g[k]) * inv[k]);
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return None;
        }
        let mut w = GridWalk {
            cell: [0; 3],
            step: [0; 3],
            stop: [0; 3],
            stride: [0; 3],
            linear: 0,
            t_max: [f64::INFINITY; 3],
            t_delta: [f64::INFINITY; 3],
            t_enter: lo,
            t_end: hi,
            done: false,
        };
        let gd = dir * f.inv_cell;
        for k in 0..3 {
            let start = g[k] + gd[k] * lo;
            // Truncation equals floor here: anything below 0 clamps to 0.
            let c = (start.max(0.0) as i64).min(i64::from(f.dims[k]) - 1) as i32;
            w.cell[k] = c;
            w.linear += c as isize * f.strides[k];
            let (pos, neg) = (dir[k] > 0.0, dir[k] < 0.0);
            w.step[k] = i32::from(pos) - i32::from(neg);
            w.stop[k] = if pos { f.dims[k] } else { -1 };
            if pos | neg {
                let boundary = f64::from(c + i32::from(pos));
                w.t_max[k] = (boundary - g[k]) * inv[k];
                w.t_delta[k] = inv[k].abs();
            }
            w.stride[k] = w.step[k] as isize * f.strides[k];
        }
        Some(w)
    }
}

impl GridWalk {
    /// Calls `visit(cell, t_enter)` for each cell in order until it
    /// returns false or the walk ends: the iterator's steps with every
    /// piece of state in a local (register) rather than an indexed array.
    #[inline(always)]
    pub fn visit(self, mut visit: impl FnMut(usize, f64) -> bool) {
        if self.done {
            return;
        }
        let [mut t0, mut t1, mut t2] = self.t_max;
        let [d0, d1, d2] = self.t_delta;
        let [mut c0, mut c1, mut c2] = self.cell;
        let [s0, s1, s2] = self.step;
        let [e0, e1, e2] = self.stop;
        let [l0, l1, l2] = self.stride;
        let (mut linear, mut t_enter, t_end) = (self.linear, self.t_enter, self.t_end);
        while visit(linear as usize, t_enter) {
            if t0 <= t1 && t0 <= t2 {
                c0 += s0;
                if t0 >= t_end || c0 == e0 {
                    return;
                }
                (linear, t_enter, t0) = (linear + l0, t0, t0 + d0);
            } else if t1 <= t2 {
                c1 += s1;
                if t1 >= t_end || c1 == e1 {
                    return;
                }
                (linear, t_enter, t1) = (linear + l1, t1, t1 + d1);
            } else {
                c2 += s2;
                if t2 >= t_end || c2 == e2 {
                    return;
                }
                (linear, t_enter, t2) = (linear + l2, t2, t2 + d2);
            }
        }
    }
}

impl GridWalk {
    /// [`GridWalk::visit`] with the axis of each step chosen by masks
    /// instead of branches (the next axis of a random ray is as good as
    /// random, and a mispredicted branch per step costs more than the
    /// arithmetic). Visits the same cells with the same times.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn visit_masked(self, mut visit: impl FnMut(usize, f64) -> bool) {
        use std::arch::x86_64::*;
        if self.done {
            return;
        }
        // Steps left along each axis before the walk leaves the grid.
        let left = |k: usize| {
            i64::from(if self.step[k] > 0 {
                self.stop[k] - 1 - self.cell[k]
            } else {
                self.cell[k]
            })
        };
        let (mut r0, mut r1, mut r2) = (left(0), left(1), left(2));
        let [l0, l1, l2] = self.stride.map(|l| l as i64);
        let (mut linear, mut t_enter, t_end) = (self.linear as i64, self.t_enter, self.t_end);
        // SAFETY: SSE2 is part of x86_64; the intrinsics below are plain
        // scalar-double arithmetic and bit operations on registers.
        unsafe {
            let [mut t0, mut t1, mut t2] = self.t_max.map(|t| _mm_set_sd(t));
            let [d0, d1, d2] = self.t_delta.map(|d| _mm_set_sd(d));
            let ones = _mm_castsi128_pd(_mm_set1_epi64x(-1));
            let lane = |m: __m128d| _mm_cvtsi128_si64(_mm_castpd_si128(m));
            while visit(linear as usize, t_enter) {
                // All-ones for the axis crossed first (ties to the lower).
                let mx = _mm_and_pd(_mm_cmple_sd(t0, t1), _mm_cmple_sd(t0, t2));
                let my = _mm_andnot_pd(mx, _mm_cmple_sd(t1, t2));
                let mz = _mm_andnot_pd(_mm_or_pd(mx, my), ones);
                let t = _mm_or_pd(
                    _mm_or_pd(_mm_and_pd(t0, mx), _mm_and_pd(t1, my)),
                    _mm_and_pd(t2, mz),
                );
                let (ix, iy, iz) = (lane(mx), lane(my), lane(mz));
                let r = (r0 & ix) | (r1 & iy) | (r2 & iz);
                let t = _mm_cvtsd_f64(t);
                if (t >= t_end) | (r == 0) {
                    return;
                }
                linear += (l0 & ix) | (l1 & iy) | (l2 & iz);
                t_enter = t;
                // Adding +0.0 leaves a crossing time as it is.
                t0 = _mm_add_sd(t0, _mm_and_pd(d0, mx));
                t1 = _mm_add_sd(t1, _mm_and_pd(d1, my));
                t2 = _mm_add_sd(t2, _mm_and_pd(d2, mz));
                (r0, r1, r2) = (r0 + ix, r1 + iy, r2 + iz);
            }
        }
    }

    /// [`GridWalk::visit`] (the masked walk is written for x86_64).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub fn visit_masked(self, visit: impl FnMut(usize, f64) -> bool) {
        self.visit(visit)
    }
}

/// A visitor that returns the time from which on no cell is wanted, as
/// one for [`GridWalk::visit`]: a cell entered at or after the smallest
/// time returned so far ends the walk.
#[inline(always)]
pub fn until_limit(mut visit: impl FnMut(usize, f64) -> f64) -> impl FnMut(usize, f64) -> bool {
    let mut limit = f64::INFINITY;
    move |cell, t| {
        if t >= limit {
            return false;
        }
        limit = limit.min(visit(cell, t));
        true
    }
}

/// Per cell of a grid, 1 when its list is not empty, 0 when it is, with
/// `pad` zero bytes before and after (the AVX walk reads the occupancy of
/// a cell's neighbours before it knows which it enters), and the frame of
/// that grid: a walk over the occupancy walks that frame, so its cells and
/// their neighbours' bytes always lie in `bytes`.
#[derive(Debug, Clone)]
pub struct Occupancy {
    /// The grid's frame.
    frame: WalkFrame,
    /// Byte `pad + c` is cell c's.
    bytes: Vec<u8>,
    /// The grid's largest stride (an x-y layer), at least 1.
    pad: usize,
}

impl Occupancy {
    /// The occupancy of the lists `starts[c]..starts[c + 1]` of the grid
    /// of `frame` (one list per cell).
    ///
    /// # Panics
    /// When `starts` does not hold one list per cell of the grid.
    pub fn new(starts: &[u32], frame: &WalkFrame) -> Self {
        let [nx, ny, nz] = frame.dims.to_array().map(|n| n as usize);
        assert_eq!(starts.len(), nx * ny * nz + 1, "one list per cell");
        let pad = (nx * ny).max(1);
        let mut bytes = vec![0u8; starts.len() - 1 + 2 * pad];
        for (c, w) in starts.windows(2).enumerate() {
            bytes[pad + c] = u8::from(w[0] != w[1]);
        }
        Occupancy {
            frame: *frame,
            bytes,
            pad,
        }
    }

    /// The frame of the grid.
    #[inline(always)]
    pub fn frame(&self) -> &WalkFrame {
        &self.frame
    }

    /// Whether cell `cell` of the grid lists anything.
    #[inline(always)]
    pub fn is_occupied(&self, cell: usize) -> bool {
        self.bytes[self.pad + cell] != 0
    }

    /// The bytes (cell c's at `pad + c`, a layer of zeros on either side)
    /// and the pad, for the AVX walk.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub fn padded(&self) -> (&[u8], usize) {
        (&self.bytes, self.pad)
    }
}

impl Iterator for GridWalk {
    type Item = WalkStep;

    #[inline]
    fn next(&mut self) -> Option<WalkStep> {
        if self.done {
            return None;
        }
        // The axis crossed first, without data-dependent branches (ties
        // go to the lower axis).
        let t = &self.t_max;
        let a = usize::from(t[1] < t[0]);
        let k = if t[2] < t[a] { 2 } else { a };
        let out = WalkStep {
            cell: self.linear as usize,
            t_enter: self.t_enter,
            t_exit: t[k].min(self.t_end).max(self.t_enter),
        };
        if t[k] >= self.t_end {
            self.done = true;
        } else {
            self.cell[k] += self.step[k];
            self.linear += self.stride[k];
            self.t_enter = t[k].max(self.t_enter);
            self.t_max[k] += self.t_delta[k];
            self.done = self.cell[k] == self.stop[k];
        }
        Some(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
        GridWalk::new(&WalkFrame::new(&g), o, d, 0.0, f64::INFINITY)
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

    /// A limit-returning visitor ends the walk before the first cell
    /// entered at or after the smallest limit returned (the cells along
    /// +x from x = 0.5 are entered at 0, 0.5, 1.5 and 2.5).
    #[test]
    fn until_limit_ends_the_walk_at_the_limit() {
        let f = WalkFrame::new(&grid());
        let o = DVec3::new(0.5, 0.5, 0.5);
        for (limit, want) in [(2.0, vec![0.0, 0.5, 1.5]), (1.5, vec![0.0, 0.5])] {
            let mut seen = Vec::new();
            let w = GridWalk::new(&f, o, DVec3::X, 0.0, f64::INFINITY).unwrap();
            w.visit(until_limit(|cell, t| {
                seen.push(t);
                if cell == 0 { limit } else { f64::INFINITY }
            }));
            assert_eq!(seen, want, "{limit}");
        }
    }

    #[test]
    fn time_ranges_tile_the_ray() {
        let g = grid();
        let w = GridWalk::new(
            &WalkFrame::new(&g),
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
    /// Random rays, some through lattice points (cell corners, edges and
    /// faces), over a 5 x 3 x 7 grid of unequal cells.
    pub(crate) fn random_rays() -> (GridSpec, Vec<(DVec3, DVec3, f64)>) {
        use rand::{Rng, SeedableRng};
        let g = GridSpec {
            origin: DVec3::new(-3.0, 2.0, 0.5),
            cell: DVec3::new(1.5, 0.75, 2.0),
            dims: [5, 3, 7],
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let rays = (0..4000)
            .map(|i| {
                let mut o = DVec3::from_array(std::array::from_fn(|k| {
                    let n = g.dims[k] as f64 * g.cell[k];
                    g.origin[k] + rng.random_range(-0.3 * n..1.3 * n)
                }));
                if i % 3 == 0 {
                    // Snap to the lattice.
                    o = g.origin + ((o - g.origin) / g.cell).round() * g.cell;
                }
                let d = DVec3::from_array(std::array::from_fn(|_| {
                    let v: f64 = rng.random_range(-1.0..1.0);
                    if i % 5 == 0 { v.signum() } else { v }
                }));
                let t1 = if i % 4 == 0 {
                    rng.random_range(0.0..5.0)
                } else {
                    f64::INFINITY
                };
                (o, d, t1)
            })
            .collect();
        (g, rays)
    }

    /// The branch-free setup of a moving ray gives the walk the general
    /// (per-axis) setup gives.
    #[test]
    fn moving_setup_matches_the_general_one() {
        let (g, rays) = random_rays();
        let f = WalkFrame::new(&g);
        for (o, d, t1) in rays {
            if d.cmpeq(DVec3::ZERO).any() {
                continue;
            }
            let fast = GridWalk::moving(&f, o, d, 0.0, t1).map(|w| w.collect::<Vec<_>>());
            let general =
                GridWalk::with_still_axis(&f, o, d, 0.0, t1).map(|w| w.collect::<Vec<_>>());
            assert_eq!(fast, general, "{o} {d} {t1}");
        }
    }

    /// The masked walk visits the cells, with the times, of the
    /// iterator, and stops where the visitor says so.
    #[test]
    fn masked_walk_matches_the_iterator() {
        let (g, rays) = random_rays();
        let f = WalkFrame::new(&g);
        for (i, (o, d, t1)) in rays.into_iter().enumerate() {
            let Some(w) = GridWalk::new(&f, o, d, 0.0, t1) else {
                continue;
            };
            let want: Vec<(usize, f64)> = w.clone().map(|s| (s.cell, s.t_enter)).collect();
            let stop_after = if i % 2 == 0 { usize::MAX } else { i % 4 };
            let mut got = Vec::new();
            w.visit_masked(|cell, t| {
                got.push((cell, t));
                got.len() <= stop_after
            });
            let n = want.len().min(stop_after.saturating_add(1));
            assert_eq!(got, want[..n], "{o} {d} {t1}");
        }
    }
}
