//! The ray/triangle kernel eight lanes wide: [`super::ray_triangle::lanes`]
//! on [`W8`], its walks compiled for AVX2 ([`Avx`]) or for AVX-512
//! ([`Avx512Kernel`]: the same intrinsics, compiled with AVX-512 F, BW, DQ
//! and VL enabled, so the compiler may use their encodings, mask
//! registers and thirty-two vector registers; the same IEEE operations,
//! so the same answers).
//!
//! [`Avx`] holds the [`Avx2`] proof that the CPU runs it, and
//! [`Avx512Kernel`] the [`Avx512`] one: made from one (`new`), each is the
//! only way into its compiled walks, its `#[target_feature]` packet tests
//! below and the functions [`super::dispatch`] enters, and every `unsafe`
//! call into them names it. Both kernels are written once
//! (`eight_lane_kernel!`).

use glam::DVec3;

use super::avx512::Avx512Kernel;
use super::cpu::{Avx2, Avx512};
use super::dda::{Occupancy, WalkFrame};
use super::dda_avx::{self, Prepare};
use super::dispatch::{Task, compiled_for};
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

/// Defines [`Kernel`] for the eight-lane kernel `$kernel` ([`W8`]), whose value (`self.0`) proves the CPU runs `$features`
/// (`$avx2` makes the AVX2 proof of the walks from it), with its
/// out-of-line packet tests (`$one`, `$many`) and the functions its
/// tasks are entered through (`$compiled`, `$apart`).
macro_rules! eight_lane_kernel {
    ($kernel:ident, $features:literal, $avx2:expr,
     $one:ident, $many:ident, $compiled:ident, $apart:ident) => {
        impl Kernel for $kernel {
            type V = W8;

            #[inline(always)]
            fn token(self) -> Avx2 {
                $avx2(self.0)
            }

            #[inline(always)]
            fn compiled<T: Task<Self>>(self, task: T) -> T::Out {
                // SAFETY: `self` holds the proof that the CPU has the
                // function's target features.
                unsafe { $compiled(self, task) }
            }

            #[inline(always)]
            fn apart<T: Task<Self>>(self, task: T) -> T::Out {
                // SAFETY: as in `compiled`.
                unsafe { $apart(self, task) }
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
                dda_avx::walk_moving(self.token(), f, o, d, t0, t1, visit);
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
                dda_avx::walk_occupied(self.token(), occ, o, d, t0, t1, visit);
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
                let late = LateLanes::<W8>(frame, self.token());
                dda_avx::walk_moving_prepared(self.token(), f, o, d, 0.0, t1, late, visit);
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
                let late = LateLanes::<W8>(frame, self.token());
                dda_avx::walk_occupied_prepared(self.token(), occ, o, d, 0.0, t1, late, visit);
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
            fn take_nearest(
                self,
                f: &LaneRay<'_, W8>,
                p: &Packet,
                lanes_on: u32,
                best: &mut (f32, u32),
            ) {
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
                // SAFETY: `self` holds the proof that the CPU has the
                // functions' target features.
                unsafe {
                    if let [p] = packets {
                        $one(self, f, p, best);
                    } else {
                        $many(self, f, packets, best);
                    }
                }
            }
        }

        /// One packet's test out of line, compiled for the kernel: no
        /// loop, so few registers to save (most cells list up to eight
        /// triangles).
        #[inline(never)]
        #[target_feature(enable = $features)]
        fn $one(k: $kernel, f: &LaneRay<'_, W8>, p: &Packet, best: &mut (f32, u32)) {
            k.take_nearest(f, p, u32::MAX, best);
        }

        /// [`Kernel::test_packets`] out of line, compiled for the kernel:
        /// the walk calling it keeps its loop state in registers.
        #[inline(never)]
        #[target_feature(enable = $features)]
        fn $many(k: $kernel, f: &LaneRay<'_, W8>, packets: &[Packet], best: &mut (f32, u32)) {
            test_packets(k, f, packets, best);
        }

        compiled_for!($kernel, $features, $compiled, $apart);
    };
}

eight_lane_kernel!(
    Avx,
    "avx,avx2",
    |p: Avx2| p,
    test_packet_avx,
    test_packets_avx,
    avx2_compiled,
    avx2_apart
);

eight_lane_kernel!(
    Avx512Kernel,
    "avx,avx2,avx512f,avx512bw,avx512dq,avx512vl",
    |p: Avx512| p.avx2(),
    test_packet_avx512,
    test_packets_avx512,
    avx512_compiled,
    avx512_apart
);

/// The ray's eight-lane numbers, made by the wide walks once their set-up
/// is under way (a method, not a closure: a closure would not take the
/// walk's target features, and its broadcasts would be calls).
struct LateLanes<'a, V: Lanes>(FrameInputs<'a>, V::Token);

impl<'a, V: Lanes> Prepare for LateLanes<'a, V> {
    type Out = LaneRay<'a, V>;
    #[inline(always)]
    fn prepare(self) -> LaneRay<'a, V> {
        LaneRay::new(&self.0.make(), self.1)
    }
}
