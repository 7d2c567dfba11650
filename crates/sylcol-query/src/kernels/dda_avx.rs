//! The DDA of a ray that moves along every axis, on AVX2: the set-up of
//! [`GridWalk::moving`] and the steps of [`GridWalk::visit_masked`] with
//! each of the three crossing times in a vector register of its own.
//!
//! Each step compares the three times pairwise, side by side (ties go to
//! the lower axis, as in [`GridWalk`]), turns the three answers into one
//! mask an axis, and gives each time either itself or itself plus its
//! increment (a sum computed before the mask is known); the time of the
//! step (two minimums) and the axis's index (two mask bits) only steer
//! the walk. So one step's times wait on a compare and two logic
//! operations of the previous step's, about 7 cycles. (Until 2026-12-01
//! the three times shared one register: two lane rotations, which cross
//! the register's halves, four compares, a blend, the mask and an add,
//! about 14 cycles; 30 before that, when the mask was looked up by the
//! index.) The same IEEE operations on the same numbers as the portable
//! walk: the same cells with the same times (tests below).
//!
//! [`walk_occupied`] visits only the occupied cells of a grid with many
//! empty ones: each step reads the occupancy bytes of the three cells it
//! may enter while the axis is being chosen, so the (often mispredicted)
//! branch on the next cell's occupancy waits on the axis alone, not on
//! the axis, the new index, a load and a bit test (on the 10 x 10 x 10
//! sample maps 4-5 % less time a ray for ~4 % more instructions).
//!
//! Every function takes an [`Avx2`], the proof that the CPU runs AVX and
//! AVX2 (a walk in progress keeps it), so none can be reached on another
//! CPU; each `unsafe` block names that proof. They are `#[inline(always)]`
//! for callers compiled with `#[target_feature(enable = "avx,avx2")]` (the
//! AVX ray walk), where every intrinsic is inlined.

use std::arch::x86_64::*;

use glam::DVec3;

use super::cpu::Avx2;
use super::dda::{CLIP_SLACK, Occupancy, WalkFrame};

/// A [`DVec3`] in lanes 0..3 of a vector, `pad` in lane 3.
#[inline(always)]
fn lanes(_: Avx2, v: DVec3, pad: f64) -> __m256d {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe { _mm256_setr_pd(v.x, v.y, v.z, pad) }
}

/// Calls `visit(cell, t_enter)` for each cell of the walk of
/// `origin + t dir`, t in [t0, t1], over `f`'s grid, in order: exactly the
/// cells and times of `GridWalk::moving(f, origin, dir, t0, t1)` and its
/// `visit`, except that `visit` returns a time from which on no cell is
/// wanted (a cell entered at or after the smallest returned is not
/// visited; +inf: go on, -inf: stop). Nothing is visited when `dir` has a
/// zero component or the piece of the ray misses the grid's (clipping)
/// box. `avx` proves the CPU runs the walk.
#[inline(always)]
pub fn walk_moving(
    avx: Avx2,
    f: &WalkFrame,
    origin: DVec3,
    dir: DVec3,
    t0: f64,
    t1: f64,
    mut visit: impl FnMut(usize, f64) -> f64,
) {
    walk_moving_prepared(avx, f, origin, dir, t0, t1, (), |_, cell, t| visit(cell, t));
}

/// What a walk makes once its set-up is under way, before its first
/// visit, and hands to every visit: the packet test's lanes of the ray
/// (`avx::LateLanes`), made after the walk's first loads and
/// its chain of f64 operations have started rather than ahead of them,
/// or nothing.
pub trait Prepare {
    /// What every visit gets.
    type Out;
    /// Makes it.
    fn prepare(self) -> Self::Out;
}

impl Prepare for () {
    type Out = ();
    #[inline(always)]
    fn prepare(self) {}
}

/// [`walk_moving`] whose visits also get what `prep` makes after the
/// walk's set-up.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the walk's six, its proof and what it hands on
pub fn walk_moving_prepared<P: Prepare>(
    avx: Avx2,
    f: &WalkFrame,
    origin: DVec3,
    dir: DVec3,
    t0: f64,
    t1: f64,
    prep: P,
    mut visit: impl FnMut(&P::Out, usize, f64) -> f64,
) {
    let Some(mut w) = Walk::start(avx, f, origin, dir, t0, t1) else {
        return;
    };
    let ready = prep.prepare();
    loop {
        // The walk's end or the visitor's limit, whichever is nearer
        // (`hi` is not NaN, so neither is the minimum).
        w.hi = min_sd(avx, visit(&ready, w.linear as usize, w.t_enter), w.hi);
        let Some((_, k)) = w.step() else {
            return;
        };
        w.linear += w.stride[k];
    }
}

/// [`walk_moving`] over the grid of `occ` that calls `visit` only for the
/// cells `occ` marks occupied (a visit of an empty cell returns +inf, so
/// the walk is the same). Each step reads the occupancy of the three cells
/// it may enter before it knows which (their indices wait on the previous
/// step only), so the branch on it resolves a few cycles after the axis is
/// chosen instead of after the index, the load and the bit test: fewer
/// cycles lost when a random ray's next occupancy is mispredicted.
#[inline(always)]
pub fn walk_occupied(
    avx: Avx2,
    occ: &Occupancy,
    origin: DVec3,
    dir: DVec3,
    t0: f64,
    t1: f64,
    mut visit: impl FnMut(usize, f64) -> f64,
) {
    walk_occupied_prepared(avx, occ, origin, dir, t0, t1, (), |_, cell, t| {
        visit(cell, t)
    });
}

/// [`walk_occupied`] whose visits also get what `prep` makes after the
/// walk's set-up.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the walk's six, its proof and what it hands on
pub fn walk_occupied_prepared<P: Prepare>(
    avx: Avx2,
    occ: &Occupancy,
    origin: DVec3,
    dir: DVec3,
    t0: f64,
    t1: f64,
    prep: P,
    mut visit: impl FnMut(&P::Out, usize, f64) -> f64,
) {
    let Some(mut w) = Walk::start(avx, occ.frame(), origin, dir, t0, t1) else {
        return;
    };
    let (bytes, pad) = occ.padded();
    // SAFETY: the walk's cell lies in `occ`'s grid (the walk is over its
    // frame), and `bytes` holds every cell's byte after `pad` bytes.
    let mut at = unsafe { bytes.as_ptr().add(pad + w.linear as usize) };
    let [s0, s1, s2, _] = w.stride.map(|s| s as isize);
    let ready = prep.prepare();
    // SAFETY: `at` points at the current cell's byte (above).
    if unsafe { *at } != 0 {
        w.hi = min_sd(avx, visit(&ready, w.linear as usize, w.t_enter), w.hi);
    }
    loop {
        // SAFETY: `at` points at the current cell's byte, which lies in
        // the grid; a neighbour's offset (a stride, at most an x-y layer)
        // is at most the pad on either side, so every byte read lies in
        // `bytes` ([`Occupancy::new`] pads both ends by a layer).
        let next = unsafe {
            u32::from(*at.offset(s0))
                | u32::from(*at.offset(s1)) << 1
                | u32::from(*at.offset(s2)) << 2
        };
        let Some((_, k)) = w.step() else {
            return;
        };
        w.linear += w.stride[k];
        // SAFETY: the walk stepped to a cell of the grid (`step` returns
        // `None` before it would leave it), so `at` stays on its byte.
        at = unsafe { at.offset(w.stride[k] as isize) };
        if (next >> k) & 1 != 0 {
            w.hi = min_sd(avx, visit(&ready, w.linear as usize, w.t_enter), w.hi);
        }
    }
}

/// The state of an AVX walk: the three crossing times, their increments,
/// the end, and per axis the steps left and the signed index increment;
/// and the proof that the CPU runs it.
struct Walk {
    avx: Avx2,
    /// The crossing times of x, y and z, each in lane 0 of its own
    /// register.
    t: [__m128d; 3],
    /// Their increments, alike.
    delta: [__m128d; 3],
    /// The walk's end or the visitor's limit, whichever is nearer.
    hi: f64,
    left: [i64; 4],
    stride: [i64; 4],
    linear: i64,
    t_enter: f64,
}

impl Walk {
    /// The set-up of [`GridWalk::moving`](super::dda::GridWalk::moving):
    /// `None` when `dir` has a zero component or the piece of the ray
    /// misses the grid's (clipping) box.
    #[inline(always)]
    fn start(
        avx: Avx2,
        f: &WalkFrame,
        origin: DVec3,
        dir: DVec3,
        t0: f64,
        t1: f64,
    ) -> Option<Self> {
        // SAFETY: the `Avx2` proves the CPU has AVX and AVX2; the loads
        // read `f.lanes`' rows, four f64 (or i64) each at a 32-byte
        // boundary (`FrameLanes` is align(32), each row 32 bytes).
        unsafe {
            let l = &f.lanes;
            let load = |row: &[f64; 4]| _mm256_load_pd(row.as_ptr());
            let zero = _mm256_setzero_pd();
            // Lane 3 is inert: o = d = 0 there, origin 0, cell 1, so its clip
            // times are -inf and +inf (its crossing time is dropped).
            let d = lanes(avx, dir, 0.0);
            if _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(d, zero)) & 0b0111 != 0 {
                return None;
            }
            let g = _mm256_mul_pd(
                _mm256_sub_pd(lanes(avx, origin, 0.0), load(&l.origin)),
                load(&l.inv_cell),
            );
            let inv = _mm256_div_pd(load(&l.cell), d);
            let a = _mm256_mul_pd(_mm256_sub_pd(_mm256_set1_pd(-CLIP_SLACK), g), inv);
            let b = _mm256_mul_pd(_mm256_sub_pd(load(&l.clip_hi), g), inv);
            let lo = t0.max(max3(avx, _mm256_min_pd(a, b)));
            let hi = t1.min(min3(avx, _mm256_max_pd(a, b)));
            if lo.is_nan() || hi.is_nan() || lo > hi {
                return None;
            }
            let pos = _mm256_cmp_pd::<_CMP_GT_OQ>(d, zero);
            // The start at t0, and at lo only when the clip moved it: the
            // second call is out of line, so this stays a branch (predicted:
            // most rays start inside the grid) and the first cell does not
            // wait for the clip's division, as it would behind a blend. The
            // same numbers either way: lo is t0 when they are equal (-0 and
            // +0 give the same cell).
            let mut start = start_at(avx, g, d, load(&l.inv_cell), t0);
            if lo != t0 {
                start = start_at_cold(avx, g, d, load(&l.inv_cell), lo);
            }
            // Truncation equals floor here: anything below 0 clamps to 0.
            let start = _mm256_min_pd(_mm256_max_pd(start, zero), load(&l.last_cell));
            let cell = _mm256_cvttpd_epi32(start);
            let boundary = _mm256_add_pd(
                _mm256_cvtepi32_pd(cell),
                _mm256_and_pd(pos, _mm256_set1_pd(1.0)),
            );
            // Lanes 0..3 are finite: a ray's non-zero direction components are
            // f32 (times a power of two) widened, so no `inv` overflows.
            let t = _mm256_mul_pd(_mm256_sub_pd(boundary, g), inv);
            let delta = _mm256_andnot_pd(_mm256_set1_pd(-0.0), inv);
            // Steps left along each axis before the walk leaves the grid, and
            // the signed index increment of a step (no branch per axis: a
            // random ray's signs are as good as random).
            let c = _mm256_cvtepi32_epi64(cell);
            let up = _mm256_castpd_si256(pos);
            let last = _mm256_load_si256(l.last.as_ptr().cast());
            let strides = _mm256_load_si256(l.strides.as_ptr().cast());
            let mut left = [0i64; 4];
            let mut stride = [0i64; 4];
            _mm256_storeu_si256(
                left.as_mut_ptr().cast(),
                _mm256_blendv_epi8(c, _mm256_sub_epi64(last, c), up),
            );
            _mm256_storeu_si256(
                stride.as_mut_ptr().cast(),
                _mm256_blendv_epi8(
                    _mm256_sub_epi64(_mm256_setzero_si256(), strides),
                    strides,
                    up,
                ),
            );
            // Cells and strides are below 2^31: 32-bit products, 64-bit sums.
            let mut parts = [0i64; 4];
            _mm256_storeu_si256(parts.as_mut_ptr().cast(), _mm256_mul_epu32(c, strides));
            let (t_lo, t_hi) = (_mm256_castpd256_pd128(t), _mm256_extractf128_pd::<1>(t));
            let (d_lo, d_hi) = (
                _mm256_castpd256_pd128(delta),
                _mm256_extractf128_pd::<1>(delta),
            );
            Some(Walk {
                avx,
                t: [t_lo, _mm_unpackhi_pd(t_lo, t_lo), t_hi],
                delta: [d_lo, _mm_unpackhi_pd(d_lo, d_lo), d_hi],
                hi,
                left,
                stride,
                linear: parts[0] + parts[1] + parts[2],
                t_enter: lo,
            })
        }
    }

    /// One step: the axis crossed first, as a mask an axis computed from
    /// the times alone (the next step's times wait on nothing else): x
    /// when t0 <= t1 and t0 <= t2, y when t1 < t0 and t1 <= t2, z when
    /// t2 < t0 and t2 < t1 (ties go to the lower axis; no time is NaN, so
    /// exactly one of the three holds). `None` when the walk ends before
    /// the next cell; else that axis's time (the next cell's entry, now
    /// `t_enter`) and index, its steps left counted down and its time
    /// advanced. The caller moves `linear`.
    #[inline(always)]
    fn step(&mut self) -> Option<(f64, usize)> {
        let avx = self.avx;
        // SAFETY: a `Walk` holds the `Avx2` of its start: the CPU has AVX.
        unsafe {
            let [tx, ty, tz] = self.t;
            let [dx, dy, dz] = self.delta;
            // Three compares side by side, no shuffle before them: x when
            // tx <= ty and tx <= tz, z when neither tx <= tz nor ty <= tz,
            // else y.
            let xy = _mm_cmp_sd::<_CMP_LE_OQ>(tx, ty);
            let xz = _mm_cmp_sd::<_CMP_LE_OQ>(tx, tz);
            let yz = _mm_cmp_sd::<_CMP_LE_OQ>(ty, tz);
            let on_x = _mm_and_pd(xy, xz);
            let on_y = _mm_andnot_pd(xy, yz);
            let not_z = _mm_or_pd(xz, yz);
            // 0, 1 or 2 (exactly one of the three holds: no time is NaN).
            let k =
                (2 - 2 * (_mm_movemask_pd(on_x) & 1) - (_mm_movemask_pd(on_y) & 1)) as usize & 3;
            // Its time, the smallest of the three.
            let tk = _mm_cvtsd_f64(_mm_min_sd(_mm_min_sd(tx, ty), tz));
            if tk >= self.hi || self.left[k] == 0 {
                return None;
            }
            self.left[k] -= 1;
            self.t_enter = tk;
            // The stepped axis takes its time plus its increment, the
            // others keep theirs: the sums do not wait on the compares, so
            // one step's times wait on a compare and two logic operations
            // of the previous step's.
            self.t = [
                pick(avx, on_x, _mm_add_sd(tx, dx), tx),
                pick(avx, on_y, _mm_add_sd(ty, dy), ty),
                pick(avx, not_z, tz, _mm_add_sd(tz, dz)),
            ];
            Some((tk, k))
        }
    }
}

/// `a` where `on` is all ones, `b` where it is zero (two logic
/// operations after `on`: a `vblendvpd` takes three cycles on recent
/// cores).
#[inline(always)]
fn pick(_: Avx2, on: __m128d, a: __m128d, b: __m128d) -> __m128d {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe { _mm_or_pd(_mm_and_pd(on, a), _mm_andnot_pd(on, b)) }
}

/// The point of the ray at `t`, in grid units: `g + (d inv_cell) t`.
#[inline(always)]
fn start_at(_: Avx2, g: __m256d, d: __m256d, inv_cell: __m256d, t: f64) -> __m256d {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe {
        _mm256_add_pd(
            g,
            _mm256_mul_pd(_mm256_mul_pd(d, inv_cell), _mm256_set1_pd(t)),
        )
    }
}

/// [`start_at`] for a walk that starts where the ray enters the grid.
/// Compiled for AVX and AVX2 (the caller holds `avx`, their proof).
#[cold]
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn start_at_cold(avx: Avx2, g: __m256d, d: __m256d, inv_cell: __m256d, t: f64) -> __m256d {
    start_at(avx, g, d, inv_cell, t)
}

/// The smaller of `a` and `b`, neither NaN (one `vminsd`).
#[inline(always)]
fn min_sd(_: Avx2, a: f64, b: f64) -> f64 {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe { _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b))) }
}

/// The largest of lanes 0..3 (lane 3 is -inf or below them).
#[inline(always)]
fn max3(_: Avx2, v: __m256d) -> f64 {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe {
        let m = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)))
    }
}

/// The smallest of lanes 0..3 (lane 3 is +inf or above them).
#[inline(always)]
fn min3(_: Avx2, v: __m256d) -> f64 {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    unsafe {
        let m = _mm_min_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        _mm_cvtsd_f64(_mm_min_sd(m, _mm_unpackhi_pd(m, m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::avx2_for_tests;
    use crate::kernels::dda::GridWalk;
    use crate::kernels::dda::tests::random_rays;

    /// The cells and times `walk_moving` (or, given `occ`, `walk_occupied`
    /// over its frame) visits, with a visitor that stops the walk after
    /// `stop_after + 1`.
    #[target_feature(enable = "avx,avx2")]
    fn walked(
        avx: Avx2,
        f: &WalkFrame,
        occ: Option<&Occupancy>,
        o: DVec3,
        d: DVec3,
        t1: f64,
        stop_after: usize,
    ) -> Vec<(usize, f64)> {
        let mut got = Vec::new();
        let visit = |cell, t| {
            got.push((cell, t));
            if got.len() <= stop_after {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }
        };
        match occ {
            Some(occ) => walk_occupied(avx, occ, o, d, 0.0, t1, visit),
            None => walk_moving(avx, f, o, d, 0.0, t1, visit),
        }
        got
    }

    /// The AVX walk visits the cells, with the times, of the iterator
    /// (random and lattice rays, unequal cells), and stops where the
    /// visitor says so.
    #[test]
    #[cfg_attr(
        not(avx2_tests),
        ignore = "this CPU has no AVX2: the AVX2 walk cannot run here"
    )]
    fn avx_walk_matches_the_iterator() {
        let avx = avx2_for_tests();
        let (g, rays) = random_rays();
        let f = WalkFrame::new(&g);
        let mut walks = 0;
        for (i, (o, d, t1)) in rays.into_iter().enumerate() {
            let stop_after = if i % 2 == 0 { usize::MAX } else { i % 4 };
            // SAFETY: `avx` proves the CPU has AVX and AVX2.
            let got = unsafe { walked(avx, &f, None, o, d, t1, stop_after) };
            let want: Vec<(usize, f64)> = GridWalk::moving(&f, o, d, 0.0, t1)
                .map(|w| w.map(|s| (s.cell, s.t_enter)).collect())
                .unwrap_or_default();
            let n = want.len().min(stop_after.saturating_add(1));
            assert_eq!(got, want[..n], "{o} {d} {t1}");
            walks += usize::from(!want.is_empty());
        }
        assert!(walks > 1000, "{walks}");
    }

    /// The occupied-cells walk visits the occupied cells of the iterator's
    /// walk, with its times, in order (random occupancy, one grid cell in
    /// three occupied, and a grid with every cell empty but the corners),
    /// and stops where the visitor says so.
    #[test]
    #[cfg_attr(
        not(avx2_tests),
        ignore = "this CPU has no AVX2: the AVX2 walk cannot run here"
    )]
    fn occupied_walk_matches_the_iterator() {
        use rand::{Rng, SeedableRng};
        let avx = avx2_for_tests();
        let (g, rays) = random_rays();
        let f = WalkFrame::new(&g);
        let cells = g.cell_count();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let random: Vec<bool> = (0..cells).map(|_| rng.random_range(0..3) == 0).collect();
        let corners: Vec<bool> = (0..cells)
            .map(|c| c == 0 || c == cells - 1 || c == g.dims[0] - 1)
            .collect();
        let mut visits = 0;
        for marks in [random, corners] {
            let mut starts = vec![0u32];
            for &m in &marks {
                starts.push(starts.last().unwrap() + u32::from(m));
            }
            let occ = Occupancy::new(&starts, &f);
            for (i, &(o, d, t1)) in rays.iter().enumerate() {
                let stop_after = if i % 2 == 0 { usize::MAX } else { i % 3 };
                // SAFETY: `avx` proves the CPU has AVX and AVX2.
                let got = unsafe { walked(avx, &f, Some(&occ), o, d, t1, stop_after) };
                let want: Vec<(usize, f64)> = GridWalk::moving(&f, o, d, 0.0, t1)
                    .map(|w| {
                        w.map(|s| (s.cell, s.t_enter))
                            .filter(|&(c, _)| marks[c])
                            .collect()
                    })
                    .unwrap_or_default();
                let n = want.len().min(stop_after.saturating_add(1));
                assert_eq!(got, want[..n], "{o} {d} {t1}");
                visits += got.len();
            }
        }
        assert!(visits > 1000, "{visits}");
    }
}
