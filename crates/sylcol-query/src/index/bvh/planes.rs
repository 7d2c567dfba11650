//! Eight-lane f32 lower bounds on the distance from a point to each
//! triangle of a packet, so that `near` runs the exact f64
//! `closest_on_triangle` only on triangles that can still beat the best.
//!
//! **The slabs.** Per triangle, four directions stored in f32: the unit
//! normal n, and for each edge the unit in-plane normal m pointing away
//! from the third corner. For any direction d, the triangle lies where
//! d·x is between the least and the greatest d·v over its corners v (the
//! corners' dot products, computed in f64 from the stored f32 values,
//! where each product is exact, and rounded outward with a margin for
//! the two additions): this holds for the stored f32 vectors themselves,
//! so their rounding costs nothing. The normal keeps both ends (`lo`,
//! `hi`), an edge only the upper one.
//!
//! **The bound.** For a point p the gap of d·p outside its interval is at
//! most the distance along d to every point of the triangle. Two unit
//! vectors n and m with |n·m| <= δ satisfy (n·v)^2 + (m·v)^2 <= (1 + δ)
//! |v|^2 (the eigenvalues of their Gram matrix are 1 ± n·m), so
//! gap_n^2 + max_e gap_e^2 over (1 + δ) bounds the squared distance from
//! below. The build keeps δ <= 2^-17 (an edge direction that is not
//! orthogonal to the normal to that is dropped: its gap is zero) and
//! the stored vectors have norms within 2^-22 of 1.
//!
//! **Rounding at the query.** d·p in f32 is within γ3 Σ|d_i p_i| <= 2^-22.4
//! ‖p‖₁ of the exact value (|d_i| <= 1 + 2^-22); each gap is computed
//! as `fl(lo - s)` or `fl(s - hi)` (one rounding, relative 2^-24) and
//! reduced by E = 2^-21 ‖p‖₁ (at least that error plus its own
//! rounding), so the reduced gap is at most (1 + 2^-24)^2 times the
//! exact gap. Squaring, adding and the final scaling by 1 - 2^-14 keep the
//! result below the exact squared distance: the factors above add up
//! to less than 2^-15.9. An overflow to infinity in E (a huge p) only
//! zeroes the gaps. A lane without a triangle has an infinite bound; a
//! degenerate triangle (no normal) a zero one.

use glam::{DVec3, Vec3};

use crate::kernels::lanes::Lanes;
use crate::kernels::packet::{LANES, Packet};

/// Directions a lane is bounded along: the normal, then the three edges.
const DIRS: usize = 4;

/// Largest |n·m| kept (see the module notes).
const SKEW: f64 = 1.0 / 131_072.0;

/// The final scaling: 1 - 2^-14.
const SHRINK: f32 = 1.0 - 1.0 / 16_384.0;

/// The four slabs of a packet's eight triangles (module notes).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct Slabs {
    /// Direction, axis, lane.
    dir: [[[f32; LANES]; 3]; DIRS],
    /// The normal's lower end per lane.
    lo: [f32; LANES],
    /// Each direction's upper end per lane.
    hi: [[f32; LANES]; DIRS],
}

impl Slabs {
    /// The slabs of `packet`'s triangles.
    pub(crate) fn new(packet: &Packet) -> Self {
        let mut s = Slabs {
            dir: [[[0.0; LANES]; 3]; DIRS],
            lo: [f32::INFINITY; LANES],
            hi: [[f32::INFINITY; LANES]; DIRS],
        };
        for lane in 0..LANES {
            let c = packet.corners(lane);
            if !c.iter().all(|v| v.is_finite()) {
                continue;
            }
            s.fill(lane, &c.map(|v| v.as_dvec3()));
        }
        s
    }

    /// Lane `lane`'s slabs for the triangle `c` (finite corners).
    fn fill(&mut self, lane: usize, c: &[DVec3; 3]) {
        self.lo[lane] = 0.0;
        self.hi = self.hi.map(|mut h| {
            h[lane] = 0.0;
            h
        });
        let Some(n) = (c[1] - c[0]).cross(c[2] - c[0]).try_normalize() else {
            return;
        };
        let nf = n.as_vec3();
        let (lo, hi) = extent(nf, c);
        self.set(0, lane, nf, hi);
        self.lo[lane] = lo;
        for e in 0..3 {
            let (a, b, k) = (c[e], c[(e + 1) % 3], c[(e + 2) % 3]);
            let Some(mut m) = (b - a).cross(n).try_normalize() else {
                continue;
            };
            if m.dot(k - a) > 0.0 {
                m = -m;
            }
            let mf = m.as_vec3();
            if nf.as_dvec3().dot(mf.as_dvec3()).abs() <= SKEW {
                self.set(1 + e, lane, mf, extent(mf, c).1);
            }
        }
    }

    /// Stores direction `d` with upper end `hi` as slab `k` of `lane`.
    fn set(&mut self, k: usize, lane: usize, d: Vec3, hi: f32) {
        for axis in 0..3 {
            self.dir[k][axis][lane] = d[axis];
        }
        self.hi[k][lane] = hi;
    }

    /// Lower bounds on the squared distances from `p` to the triangles
    /// of lanes `at..` (as many as `V` holds); `err` is [`error`]`(p)`.
    #[inline(always)]
    pub(crate) fn bounds<V: Lanes>(&self, token: V::Token, p: Vec3, err: f32, at: usize) -> V {
        let row = |r: &[f32; LANES]| V::load(token, r, at);
        let dot = |k: usize| {
            let d = &self.dir[k];
            let s = |i: usize, x: f32| row(&d[i]).mul(V::splat(token, x));
            s(0, p.x).add(s(1, p.y)).add(s(2, p.z))
        };
        let (e, zero) = (V::splat(token, err), V::splat(token, 0.0));
        let reduce = |g: V| g.sub(e).max(zero);
        let sn = dot(0);
        let gn = reduce(row(&self.lo).sub(sn).max(sn.sub(row(&self.hi[0]))));
        let edge = |k: usize| reduce(dot(k).sub(row(&self.hi[k])));
        let ge = edge(1).max(edge(2)).max(edge(3));
        gn.mul(gn).add(ge.mul(ge)).mul(V::splat(token, SHRINK))
    }
}

/// The rounding allowance of a dot product with `p` (module notes).
#[inline(always)]
pub(crate) fn error(p: Vec3) -> f32 {
    p.abs().element_sum() * (1.0 / 2_097_152.0)
}

/// The least and greatest d·v over the corners, rounded outward.
fn extent(d: Vec3, c: &[DVec3; 3]) -> (f32, f32) {
    let d = d.as_dvec3();
    let dots = c.map(|v| (d.dot(v), (d * v).abs().element_sum()));
    let lo = dots.iter().map(|&(x, m)| x - m * 4.0 * f64::EPSILON);
    let hi = dots.iter().map(|&(x, m)| x + m * 4.0 * f64::EPSILON);
    (
        f32_at_most(lo.fold(f64::INFINITY, f64::min)),
        crate::geometry::primitives::f32_at_least(hi.fold(f64::NEG_INFINITY, f64::max)),
    )
}

/// The largest f32 at most `x`.
fn f32_at_most(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) > x { f.next_down() } else { f }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::geometry::closest::closest_on_triangle;

    /// A random triangle: general, a sliver, or degenerate (a repeated
    /// corner or collinear), around `centre` at `scale`.
    fn triangle(rng: &mut ChaCha8Rng, centre: Vec3, scale: f32) -> [Vec3; 3] {
        let mut v = || centre + Vec3::from_array(rng.random::<[f32; 3]>().map(|x| x - 0.5)) * scale;
        let (a, b, c) = (v(), v(), v());
        match rng.random_range(0..4) {
            0 => [a, b, a],
            1 => [a, b, a + (b - a) * 0.25],
            2 => [a, b, a + (b - a) * 0.5 + Vec3::splat(scale * 1e-6)],
            _ => [a, b, c],
        }
    }

    /// The bounds never exceed the f64 kernel's squared distance, over
    /// points near the triangles (on them, beside them, above them) and
    /// far, at several offsets and scales; an unused lane is infinite.
    #[test]
    fn bounds_are_below_the_exact_distance() {
        let mut rng = ChaCha8Rng::seed_from_u64(38);
        let mut tight = 0;
        for round in 0..3000 {
            let centre = Vec3::splat([0.0, 1000.0, -3.0e5][round % 3]);
            let scale = [1.0, 0.01, 50.0][round / 3 % 3];
            let tris: Vec<(u32, [Vec3; 3])> = (0..7)
                .map(|t| (t, triangle(&mut rng, centre, scale)))
                .collect();
            let packet = Packet::new(&tris, 7);
            let slabs = Slabs::new(&packet);
            for _ in 0..8 {
                let (_, [a, b, c]) = tris[rng.random_range(0..7)];
                let w = rng.random::<[f32; 3]>();
                let on = (a * w[0] + b * w[1] + c * (3.0 - w[0] - w[1])) / 3.0;
                let off = Vec3::from_array(rng.random::<[f32; 3]>().map(|x| x - 0.5));
                let p = on + off * scale * [0.0, 1e-4, 0.3, 5.0][rng.random_range(0..4)];
                let mut got = [0.0; LANES];
                for at in [0, 4] {
                    let b: glam::Vec4 = slabs.bounds((), p, error(p), at);
                    b.store(&mut got, at);
                }
                assert_eq!(got[7], f32::INFINITY);
                for (t, [a, b, c]) in &tris {
                    let pd = p.as_dvec3();
                    let [a, b, c] = [a, b, c].map(|v| v.as_dvec3());
                    let d2 = closest_on_triangle(pd, a, b, c).distance_squared(pd);
                    let bound = f64::from(got[*t as usize]);
                    assert!(bound <= d2, "{p:?} {:?}: {bound} > {d2}", tris[*t as usize]);
                    tight += usize::from(bound > 0.5 * d2);
                }
            }
        }
        // The bound is useful as well as safe: most are within 2x.
        assert!(tight > 3000 * 8 * 7 / 3, "{tight}");
    }
}
