//! The ray/triangle kernel eight lanes wide on AVX:
//! [`super::ray_triangle::lanes`] on `__m256`. Its
//! methods may only run where [`super::ray_triangle::avx_available`] is
//! true; every caller is compiled with `#[target_feature(enable =
//! "avx,avx2")]`.

use std::arch::x86_64::*;
use std::ops::{BitAnd, BitOr};

use glam::DVec3;

use super::grid_walk::WalkFrame;
use super::ray_triangle::{
    FrameInputs, Kernel, LANES, LaneRay, Lanes, MakeFrame, Packet, lanes, settle,
};

/// Eight f32 lanes in one AVX register.
#[derive(Debug, Clone, Copy)]
pub struct W8(__m256);

/// A per-lane condition of [`W8`]: all ones or all zeros.
#[derive(Debug, Clone, Copy)]
pub struct M8(__m256);

impl BitAnd for M8 {
    type Output = M8;
    #[inline(always)]
    fn bitand(self, b: M8) -> M8 {
        // SAFETY (every intrinsic in this file): AVX is enabled wherever
        // these inline functions end up (see the module notes).
        M8(unsafe { _mm256_and_ps(self.0, b.0) })
    }
}

impl BitOr for M8 {
    type Output = M8;
    #[inline(always)]
    fn bitor(self, b: M8) -> M8 {
        M8(unsafe { _mm256_or_ps(self.0, b.0) })
    }
}

impl Lanes for W8 {
    type Mask = M8;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        W8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn load(row: &[f32; LANES], at: usize) -> Self {
        debug_assert_eq!(at, 0);
        // SAFETY: a row is eight f32 at a 32-byte boundary (the packet is
        // align(32) and every row a multiple of 32 bytes in).
        W8(unsafe { _mm256_load_ps(row.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32; LANES], _at: usize) {
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        W8(unsafe { _mm256_add_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        W8(unsafe { _mm256_sub_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        W8(unsafe { _mm256_mul_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        W8(unsafe { _mm256_div_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        W8(unsafe { _mm256_min_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        W8(unsafe { _mm256_max_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        W8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn sign_of(self, s: Self) -> Self {
        W8(unsafe { _mm256_xor_ps(self.0, _mm256_and_ps(s.0, _mm256_set1_ps(-0.0))) })
    }
    #[inline(always)]
    fn ge(self, b: Self) -> M8 {
        M8(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn gt(self, b: Self) -> M8 {
        M8(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn le(self, b: Self) -> M8 {
        M8(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn lt(self, b: Self) -> M8 {
        M8(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn and_not(a: M8, b: M8) -> M8 {
        M8(unsafe { _mm256_andnot_ps(a.0, b.0) })
    }
    #[inline(always)]
    fn select(m: M8, if_true: Self, if_false: Self) -> Self {
        W8(unsafe { _mm256_blendv_ps(if_false.0, if_true.0, m.0) })
    }
    #[inline(always)]
    fn bits(m: M8) -> u32 {
        (unsafe { _mm256_movemask_ps(m.0) }) as u32
    }
}

/// The kernel on eight lanes (AVX).
#[derive(Debug, Clone, Copy)]
pub struct Avx;

impl Kernel for Avx {
    type V = W8;
    const IS_AVX: bool = true;

    #[inline(always)]
    fn as_avx<'f, 'a>(f: &'f LaneRay<'a, W8>) -> Option<&'f LaneRay<'a, W8>> {
        Some(f)
    }

    #[inline(always)]
    fn walk_moving(
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        visit: impl FnMut(usize, f64) -> f64,
    ) {
        // SAFETY: AVX and AVX2 are there wherever this kernel runs.
        unsafe { super::grid_walk_avx::walk_moving(f, o, d, t0, t1, visit) }
    }

    #[inline(always)]
    fn walk_occupied(
        f: &WalkFrame,
        occ: &super::ray_grid::Occupancy,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        visit: impl FnMut(usize, f64) -> f64,
    ) {
        // SAFETY: AVX and AVX2 are there wherever this kernel runs; `occ`
        // is the occupancy of `f`'s grid (`RayGrid::new`).
        unsafe { super::grid_walk_avx::walk_occupied(f, occ, o, d, t0, t1, visit) }
    }

    #[inline(always)]
    fn walk_moving_ray<'a>(
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        visit: impl FnMut(&LaneRay<'a, W8>, usize, f64) -> f64,
    ) {
        // SAFETY: AVX and AVX2 are there wherever this kernel runs.
        unsafe {
            super::grid_walk_avx::walk_moving_prepared(f, o, d, 0.0, t1, LateLanes(frame), visit)
        }
    }

    #[inline(always)]
    fn walk_occupied_ray<'a>(
        f: &WalkFrame,
        occ: &super::ray_grid::Occupancy,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        visit: impl FnMut(&LaneRay<'a, W8>, usize, f64) -> f64,
    ) {
        // SAFETY: AVX and AVX2 are there wherever this kernel runs; `occ`
        // is the occupancy of `f`'s grid (`RayGrid::new`).
        unsafe {
            super::grid_walk_avx::walk_occupied_prepared(
                f,
                occ,
                o,
                d,
                0.0,
                t1,
                LateLanes(frame),
                visit,
            )
        }
    }

    #[inline(always)]
    fn hits_of(f: &LaneRay<'_, W8>, p: &Packet, t_max: f32, lanes_on: u32) -> ([f32; LANES], u32) {
        let mut t = [0.0; LANES];
        let Some(h) = lanes::<W8>(f, p, 0, t_max) else {
            return (t, 0);
        };
        h.t.store(&mut t, 0);
        let mut hit = h.hit;
        let unsure = h.unsure & lanes_on;
        if unsure != 0 {
            hit |= settle(f, p, unsure, t_max, &mut t);
        }
        (t, hit & lanes_on)
    }

    #[inline(always)]
    fn take_nearest(f: &LaneRay<'_, W8>, p: &Packet, lanes_on: u32, best: &mut (f32, u32)) {
        let Some(h) = lanes::<W8>(f, p, 0, best.0) else {
            return;
        };
        let mut t = [0.0; LANES];
        h.t.store(&mut t, 0);
        let mut hit = h.hit;
        let unsure = h.unsure & lanes_on;
        if unsure != 0 {
            hit |= settle(f, p, unsure, best.0, &mut t);
        }
        super::ray_cast::keep_nearest(&t, hit & lanes_on, p, best);
    }

    #[inline(always)]
    fn test_packets(f: &LaneRay<'_, W8>, packets: &[Packet], best: &mut (f32, u32)) {
        // SAFETY: AVX and AVX2 are there wherever this kernel runs.
        unsafe {
            if let [p] = packets {
                test_packet_avx(f, p, best);
            } else {
                test_packets_avx(f, packets, best);
            }
        }
    }
}

/// The ray's eight-lane numbers, made by the AVX walk once its set-up
/// is under way (a method, not a closure: a closure would not take the
/// walk's target features, and its broadcasts would be calls).
struct LateLanes<'a>(FrameInputs<'a>);

impl<'a> super::grid_walk_avx::Prepare for LateLanes<'a> {
    type Out = LaneRay<'a, W8>;
    #[inline(always)]
    fn prepare(self) -> LaneRay<'a, W8> {
        LaneRay::new(&self.0.make())
    }
}

/// One packet's test out of line, compiled for AVX2: no loop, so few
/// registers to save (most cells list up to eight triangles).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn test_packet_avx(f: &LaneRay<'_, W8>, p: &Packet, best: &mut (f32, u32)) {
    Avx::take_nearest(f, p, u32::MAX, best);
}

/// [`Kernel::test_packets`] out of line, compiled for AVX2: the walk
/// calling it keeps its loop state in registers.
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn test_packets_avx(f: &LaneRay<'_, W8>, packets: &[Packet], best: &mut (f32, u32)) {
    super::ray_cast::test_packets::<Avx>(f, packets, best);
}
