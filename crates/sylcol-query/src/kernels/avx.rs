//! The ray/triangle kernel eight lanes wide on AVX:
//! [`super::ray_triangle::lanes`] on [`W8`], its walks compiled for AVX2.
//!
//! [`Avx`] holds the [`Avx2`] proof that the CPU runs it: made from one
//! ([`Avx::new`]), it is the only way into the AVX2 walks and the
//! `#[target_feature(enable = "avx,avx2")]` packet tests below, and every
//! `unsafe` call into them names it.

use glam::DVec3;

use super::cpu::Avx2;
use super::dda::{Occupancy, WalkFrame};
use super::dda_avx::{self, Prepare};
use super::kernel::{Kernel, keep_nearest, test_packets};
use super::lanes::Lanes;
use super::packet::{LANES, Packet};
use super::ray_triangle::{FrameInputs, LaneRay, MakeFrame, lanes, settle};
use super::w8::W8;

/// The kernel on eight lanes (AVX), with the proof that the CPU runs it.
#[derive(Debug, Clone, Copy)]
pub struct Avx(Avx2);

impl Avx {
    /// The AVX kernel, on a CPU that `avx` proves runs it.
    #[inline(always)]
    pub fn new(avx: Avx2) -> Self {
        Avx(avx)
    }
}

impl Kernel for Avx {
    type V = W8;

    #[inline(always)]
    fn token(self) -> Avx2 {
        self.0
    }

    #[inline(always)]
    fn avx2(self) -> Option<Avx2> {
        Some(self.0)
    }

    #[inline(always)]
    fn as_avx<'f, 'a>(self, f: &'f LaneRay<'a, W8>) -> Option<&'f LaneRay<'a, W8>> {
        Some(f)
    }

    #[inline(always)]
    fn walk_moving(
        self,
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        visit: impl FnMut(usize, f64) -> f64,
    ) {
        dda_avx::walk_moving(self.0, f, o, d, t0, t1, visit);
    }

    #[inline(always)]
    fn walk_occupied(
        self,
        occ: &Occupancy,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        visit: impl FnMut(usize, f64) -> f64,
    ) {
        dda_avx::walk_occupied(self.0, occ, o, d, t0, t1, visit);
    }

    #[inline(always)]
    fn walk_moving_ray<'a>(
        self,
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        visit: impl FnMut(&LaneRay<'a, W8>, usize, f64) -> f64,
    ) {
        let late = LateLanes(frame, self.0);
        dda_avx::walk_moving_prepared(self.0, f, o, d, 0.0, t1, late, visit);
    }

    #[inline(always)]
    fn walk_occupied_ray<'a>(
        self,
        occ: &Occupancy,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        visit: impl FnMut(&LaneRay<'a, W8>, usize, f64) -> f64,
    ) {
        let late = LateLanes(frame, self.0);
        dda_avx::walk_occupied_prepared(self.0, occ, o, d, 0.0, t1, late, visit);
    }

    #[inline(always)]
    fn hits_of(
        self,
        f: &LaneRay<'_, W8>,
        p: &Packet,
        t_max: f32,
        lanes_on: u32,
    ) -> ([f32; LANES], u32) {
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
    fn take_nearest(self, f: &LaneRay<'_, W8>, p: &Packet, lanes_on: u32, best: &mut (f32, u32)) {
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
        keep_nearest(&t, hit & lanes_on, p, best);
    }

    #[inline(always)]
    fn test_packets(self, f: &LaneRay<'_, W8>, packets: &[Packet], best: &mut (f32, u32)) {
        // SAFETY: `self` holds an `Avx2`: the CPU has AVX and AVX2.
        unsafe {
            if let [p] = packets {
                test_packet_avx(self, f, p, best);
            } else {
                test_packets_avx(self, f, packets, best);
            }
        }
    }
}

/// The ray's eight-lane numbers, made by the AVX walk once its set-up
/// is under way (a method, not a closure: a closure would not take the
/// walk's target features, and its broadcasts would be calls).
struct LateLanes<'a>(FrameInputs<'a>, Avx2);

impl<'a> Prepare for LateLanes<'a> {
    type Out = LaneRay<'a, W8>;
    #[inline(always)]
    fn prepare(self) -> LaneRay<'a, W8> {
        LaneRay::new(&self.0.make(), self.1)
    }
}

/// One packet's test out of line, compiled for AVX2: no loop, so few
/// registers to save (most cells list up to eight triangles).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn test_packet_avx(k: Avx, f: &LaneRay<'_, W8>, p: &Packet, best: &mut (f32, u32)) {
    k.take_nearest(f, p, u32::MAX, best);
}

/// [`Kernel::test_packets`] out of line, compiled for AVX2: the walk
/// calling it keeps its loop state in registers.
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn test_packets_avx(k: Avx, f: &LaneRay<'_, W8>, packets: &[Packet], best: &mut (f32, u32)) {
    test_packets(k, f, packets, best);
}
