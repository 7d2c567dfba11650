//! The ray/packet kernels as values: [`Kernel`] (the packet test, and the
//! grid walk compiled for it) and its portable form, [`Portable`].
//!
//! A kernel is a value, passed to every method: the AVX one
//! ([`super::avx::Avx`]) holds the [`Avx2`](super::cpu::Avx2) proof that the CPU runs it,
//! so no method of it can be reached on a CPU without AVX2. The portable
//! one runs anywhere. Every implementation answers bit for bit alike.

use glam::{DVec3, Vec4};

use super::dda::{GridWalk, Occupancy, WalkFrame, until_limit};
use super::dispatch::{Task, portable_apart};
use super::lanes::Lanes;
use super::packet::{LANES, Packet};
#[cfg(test)]
use super::ray_triangle::RayFrame;
use super::ray_triangle::{FrameInputs, LaneRay, MakeFrame, lanes, settle};

/// A ray/packet test: the ray parameter per lane and a bit mask of the
/// lanes of `lanes` hit with 0 < t <= `t_max`, and the grid walks whose
/// visits run it. Every implementation gives bit-identical answers.
pub trait Kernel: Copy {
    /// The lanes the kernel computes in.
    type V: Lanes;
    /// What makes this kernel's lanes ([`Lanes::Token`]).
    fn token(self) -> <Self::V as Lanes>::Token;
    /// `task` with this kernel, compiled for its instruction set: inlined
    /// into a caller compiled for it, else entered through a function that
    /// is ([`super::dispatch`]).
    fn compiled<T: Task<Self>>(self, task: T) -> T::Out;
    /// `task` with this kernel in a function of its own (out of line),
    /// compiled for the kernel's instruction set.
    fn apart<T: Task<Self>>(self, task: T) -> T::Out;
    /// The packet test of the ray `f` prepared for this kernel
    /// ([`LaneRay::new`], once per ray).
    fn hits_of(
        self,
        f: &LaneRay<'_, Self::V>,
        p: &Packet,
        t_max: f32,
        lanes: u32,
    ) -> ([f32; LANES], u32);
    /// The packet test of the ray `f` (prepared for this one test).
    #[cfg(test)]
    fn hits(self, f: &RayFrame<'_>, p: &Packet, t_max: f32, lanes: u32) -> ([f32; LANES], u32) {
        self.hits_of(&LaneRay::new(f, self.token()), p, t_max, lanes)
    }
    /// Calls `visit(cell, t_enter)` along the walk of a ray moving along
    /// every axis over `f`'s grid, t in [t0, t1] ([`GridWalk::moving`] and
    /// its masked visit); `visit` returns a time from which on no cell is
    /// wanted (the smallest returned so far ends the walk before a cell
    /// entered at or after it).
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
        if let Some(w) = GridWalk::moving(f, o, d, t0, t1) {
            w.visit_masked(until_limit(visit));
        }
    }
    /// [`Kernel::walk_moving`] over the grid of `occ`, calling `visit`
    /// only for the cells `occ` marks occupied (an empty cell's visit
    /// would return +inf: the same walk).
    #[inline(always)]
    fn walk_occupied(
        self,
        occ: &Occupancy,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        mut visit: impl FnMut(usize, f64) -> f64,
    ) {
        self.walk_moving(occ.frame(), o, d, t0, t1, |cell, t| {
            if occ.is_occupied(cell) {
                visit(cell, t)
            } else {
                f64::INFINITY
            }
        });
    }
    /// [`Kernel::walk_moving`] for a ray's walk whose visits test
    /// packets: each visit also gets the ray's lanes, made from `frame`
    /// (on AVX2 after the walk's set-up has started, so that the walk's
    /// first cells wait less).
    #[inline(always)]
    fn walk_moving_ray<'a>(
        self,
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        mut visit: impl FnMut(&LaneRay<'a, Self::V>, usize, f64) -> f64,
    ) {
        let lanes = LaneRay::new(&frame.make(), self.token());
        self.walk_moving(f, o, d, 0.0, t1, |cell, t| visit(&lanes, cell, t));
    }
    /// [`Kernel::walk_occupied`] with the ray's lanes, as
    /// [`Kernel::walk_moving_ray`].
    #[inline(always)]
    fn walk_occupied_ray<'a>(
        self,
        occ: &Occupancy,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        mut visit: impl FnMut(&LaneRay<'a, Self::V>, usize, f64) -> f64,
    ) {
        let lanes = LaneRay::new(&frame.make(), self.token());
        self.walk_occupied(occ, o, d, 0.0, t1, |cell, t| visit(&lanes, cell, t));
    }
    /// Tests the `lanes` of packet `p` and keeps the nearest hit in
    /// `best` (time, triangle); a tie in time goes to the lower triangle
    /// index.
    #[inline(always)]
    fn take_nearest(self, f: &LaneRay<'_, Self::V>, p: &Packet, lanes: u32, best: &mut (f32, u32)) {
        let (t, mask) = self.hits_of(f, p, best.0, lanes);
        keep_nearest(&t, mask, p, best);
    }
    /// Tests every lane of a cell's packets, keeping the nearest (time,
    /// triangle) in `best`. No mailbox: a triangle listed in several cells
    /// on the ray is tested in each (it answers the same every time), which
    /// costs less than the look-up that would skip it.
    #[inline(always)]
    fn test_packets(self, f: &LaneRay<'_, Self::V>, packets: &[Packet], best: &mut (f32, u32)) {
        test_packets(self, f, packets, best);
    }
}

/// The kernel on four lanes (SSE2 through glam, or scalar): a packet is
/// tested as two halves. Runs on every CPU.
#[derive(Debug, Clone, Copy)]
pub struct Portable;

impl Kernel for Portable {
    type V = Vec4;

    #[inline(always)]
    fn token(self) {}

    #[inline(always)]
    fn compiled<T: Task<Self>>(self, task: T) -> T::Out {
        task.run(self)
    }

    #[inline(always)]
    fn apart<T: Task<Self>>(self, task: T) -> T::Out {
        portable_apart(task)
    }

    #[inline(always)]
    fn hits_of(
        self,
        f: &LaneRay<'_, Vec4>,
        p: &Packet,
        t_max: f32,
        lanes_on: u32,
    ) -> ([f32; LANES], u32) {
        let mut t = [0.0; LANES];
        let (mut hit, mut unsure) = (0, 0);
        for at in [0, 4] {
            if let Some(h) = lanes::<Vec4>(f, p, at, t_max) {
                h.t.store(&mut t, at);
                hit |= h.hit << at;
                unsure |= h.unsure << at;
            }
        }
        unsure &= lanes_on;
        if unsure != 0 {
            hit |= settle(f, p, unsure, t_max, &mut t);
        }
        (t, hit & lanes_on)
    }
}

/// Tests every lane of a list's packets (no mailbox), keeping the nearest
/// hit in `best`: the body of [`Kernel::test_packets`].
#[inline(always)]
pub fn test_packets<K: Kernel>(
    k: K,
    f: &LaneRay<'_, K::V>,
    packets: &[Packet],
    best: &mut (f32, u32),
) {
    if let [p] = packets {
        k.take_nearest(f, p, u32::MAX, best);
        return;
    }
    for p in packets {
        k.take_nearest(f, p, u32::MAX, best);
    }
}

/// Keeps in `best` the nearest of the lanes `mask` of packet `p` hit at
/// times `t`: the body of [`Kernel::take_nearest`].
#[inline(always)]
pub fn keep_nearest(t: &[f32; LANES], mut mask: u32, p: &Packet, best: &mut (f32, u32)) {
    while mask != 0 {
        // A lane below LANES (the mask has LANES bits): no bounds check.
        let lane = mask.trailing_zeros() as usize & (LANES - 1);
        mask &= mask - 1;
        let (tl, id) = (t[lane], p.ids[lane]);
        if tl < best.0 || (tl == best.0 && id < best.1) {
            *best = (tl, id);
        }
    }
}
