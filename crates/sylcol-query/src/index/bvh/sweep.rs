//! A moving sphere through the [`Bvh`]: the centre's path `c + t m`,
//! t in [0, 1], through the child boxes grown by the radius, nearest
//! entry first, skipping every child entered after the first contact so
//! far.
//!
//! **Conservative.** A triangle the sphere touches at time t has a point
//! within r of `c + t m`, inside the triangle's box, so the centre is then
//! inside that box grown by r on every side, and inside the grown box of
//! every node above it. The boxes are grown by `r` plus a slack of 2^-18
//! of the largest coordinate in play (the mesh's box, the path's ends, the
//! radius) and 4e-30: more than the f32 rounding of the grown planes, of
//! their distances from the centre and of the products by the reciprocal
//! motion (each half a unit in the last place of a value at most twice
//! that size, at times t <= 1 + 2^-20, the only ones compared), and of
//! the f64 per-triangle kernel. An axis the centre does not move along
//! (|m| < 1e-30) is walked as if it moved by 1e-30: within the slack. A
//! child is skipped when its entry lies beyond the best time of impact
//! rounded up to f32 and grown by 2^-20; one entered at exactly the best
//! time is visited, so ties are seen. Inside a leaf each triangle's own
//! box is tested the same way.
//!
//! **Answers.** Each triangle that passes is tested by the grid path's
//! kernel (`sweep_triangle` in f64 from its f32 corners), the earliest
//! contact kept, a tie going to the lower triangle index: the grid's rule
//! (`index::grid::spheres`), over every triangle of the mesh.

use glam::{DVec3, Vec3, Vec4};

use super::near::{Stack, next_child, used};
use super::tree::Bvh;
use crate::geometry::closest::sweep_triangle;
use crate::geometry::primitives::f32_at_least;
use crate::kernels::node::{COUNT_SHIFT, INDEX_MASK, LEAF, Node, WIDTH};
use crate::kernels::packet::{LANES, Packet};

/// The centre's path prepared for the box tests.
struct Path {
    /// Per axis: the centre plus the grown radius, and minus it (a low
    /// plane's distance is `lo - (c + R)`, a high plane's `hi - (c - R)`).
    plus: [f32; 3],
    minus: [f32; 3],
    /// Per axis `1 / m` (`1 / 1e-30` where |m| < 1e-30).
    inv: [f32; 3],
    /// Per axis, whether the centre moves down it (the near plane is the
    /// high one).
    neg: [bool; 3],
}

impl Path {
    /// The path of a sphere of radius `r` from `c` by `m`, for boxes
    /// within `scale` of the origin in every coordinate.
    fn new(c: Vec3, r: f32, m: Vec3, scale: f32) -> Self {
        let reach = scale
            .max(c.abs().max_element())
            .max((c + m).abs().max_element());
        let slack = (f64::from(reach) + f64::from(r)) / 262_144.0 + 4e-30;
        let grown = f32_at_least(f64::from(r) + slack);
        let inv = m
            .to_array()
            .map(|x| if x.abs() < 1e-30 { 1e30 } else { 1.0 / x });
        Path {
            plus: (c + grown).to_array(),
            minus: (c - grown).to_array(),
            neg: inv.map(|x| x < 0.0),
            inv,
        }
    }

    /// The entries into the grown boxes lo..hi on four lanes (>= 0) and
    /// the lanes entered at t <= `limit`. A NaN lane is never entered.
    #[inline(always)]
    fn enter(&self, lo: [Vec4; 3], hi: [Vec4; 3], limit: f32) -> (Vec4, u32) {
        let mut near = Vec4::ZERO;
        let mut far = Vec4::splat(limit);
        for k in 0..3 {
            let inv = Vec4::splat(self.inv[k]);
            let low = (lo[k] - Vec4::splat(self.plus[k])) * inv;
            let high = (hi[k] - Vec4::splat(self.minus[k])) * inv;
            let (t0, t1) = if self.neg[k] {
                (high, low)
            } else {
                (low, high)
            };
            near = near.max(t0);
            far = far.min(t1);
        }
        (near, near.cmple(far).bitmask())
    }
}

impl Bvh {
    /// Updates `best` (time of impact, triangle) with the first contact of
    /// the sphere of radius `r` moving from `c` by `m` (t in [0, 1]) with
    /// this tree's triangles (numbered below `count`); `scale` bounds the
    /// mesh's coordinates.
    pub(crate) fn sweep(
        &self,
        c: Vec3,
        r: f32,
        m: Vec3,
        (count, scale): (usize, f32),
        best: &mut (f64, u32),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        let path = Path::new(c, r, m, scale);
        let (cd, rd, md) = (c.as_dvec3(), f64::from(r), m.as_dvec3());
        let mut stack = Stack::new();
        let mut link = 0u32;
        loop {
            if link & LEAF != 0 {
                let first = (link & INDEX_MASK) as usize;
                let n = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
                for packet in &self.packets[first..first + n] {
                    let lanes = path.triangles(packet, limit(best.0));
                    sweep_lanes(packet, lanes, (cd, rd, md), count, best);
                }
            } else {
                let node = &self.nodes[link as usize];
                let (entries, mask) = path.children(node, limit(best.0));
                let mask = mask & used(node);
                if mask != 0 {
                    link = next_child(node, &entries, mask, &mut stack);
                    continue;
                }
            }
            match stack.pop_within(limit(best.0).to_bits()) {
                Some(l) => link = l,
                None => return,
            }
        }
    }
}

impl Path {
    /// Node `n`'s children: their entries and the mask of those entered.
    #[inline(always)]
    fn children(&self, n: &Node, limit: f32) -> ([f32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let mut mask = 0;
        for at in [0, 4] {
            let row = |i: usize| Vec4::from_slice(&n.bounds[i][at..at + 4]);
            let (near, m) = self.enter([0, 1, 2].map(row), [3, 4, 5].map(row), limit);
            near.write_to_slice(&mut t[at..at + 4]);
            mask |= m << at;
        }
        (t, mask)
    }

    /// The lanes of `p` whose triangles' grown boxes are entered by
    /// `limit` (an unused lane's corners are NaN: never).
    #[inline(always)]
    fn triangles(&self, p: &Packet, limit: f32) -> u32 {
        let mut mask = 0;
        for at in [0, 4] {
            let v = |c: usize, k: usize| Vec4::from_slice(&p.v[c][k][at..at + 4]);
            let lo = [0, 1, 2].map(|k| v(0, k).min(v(1, k)).min(v(2, k)));
            let hi = [0, 1, 2].map(|k| v(0, k).max(v(1, k)).max(v(2, k)));
            mask |= self.enter(lo, hi, limit).1 << at;
        }
        mask
    }
}

/// The best time `toi` rounded up to f32 and grown by 2^-20 (at most
/// just over 1: a contact is at t <= 1).
#[inline(always)]
fn limit(toi: f64) -> f32 {
    f32_at_least(toi.min(1.0)) * (1.0 + 1.0 / 1_048_576.0)
}

/// Updates `best` with the contacts of the triangles of `p` in `lanes`.
#[inline(always)]
fn sweep_lanes(
    p: &Packet,
    lanes: u32,
    (c, r, m): (DVec3, f64, DVec3),
    count: usize,
    best: &mut (f64, u32),
) {
    let mut left = lanes & ((1 << LANES) - 1);
    while left != 0 {
        let lane = left.trailing_zeros() as usize;
        left &= left - 1;
        let t = p.ids[lane];
        if t as usize >= count {
            continue;
        }
        let tri = p.corners(lane).map(|v| v.as_dvec3());
        if let Some(toi) = sweep_triangle(c, r, m, &tri)
            && (toi < best.0 || (toi == best.0 && t < best.1))
        {
            *best = (toi, t);
        }
    }
}
