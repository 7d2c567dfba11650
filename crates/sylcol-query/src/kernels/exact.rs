//! Exact predicates for the ray/triangle test, used where the SIMD
//! kernels cannot certify a decision (a ray within rounding of an edge, a
//! vertex or a triangle's plane).
//!
//! Every input is an f32 value (vertices, the ray's origin and direction)
//! or the exact difference of two (a segment's direction), so a sign is
//! decided by an f64 evaluation with an error bound first and, when that
//! is not conclusive, by summing the exact terms of the polynomial in a
//! fixed-point accumulator that spans the whole f64 range (no allocation).
//!
//! The predicates (o the ray's origin, d its direction, a = A - o, ...):
//!
//! * the side of an edge: `det[P - o, Q - o, d]`, with a tie-break by
//!   Simulation of Simplicity when it is exactly zero: the origin moves by
//!   (e, e^2, e^3), which gives `-((Q - P) x d)`'s first non-zero
//!   component. The tie-break is antisymmetric in P, Q and the same for
//!   every triangle of a query, so the triangles around an edge or a
//!   vertex are decided as for one real ray beside the given one.
//! * ahead: `det[a, b, c]` (Shewchuk's adaptive `orient3d`), whose sign
//!   equals the edges' common sign when the crossing has t > 0.
//! * within the limit: the same determinant about the limit's point
//!   `o + L d` (a segment's end point, exactly).

use glam::Vec3;
use robust::{Coord3D, orient3d};

/// Limits at or above this count as none (2^100; no crossing of the
/// supported domain lies that far along a normalised direction).
pub const OPEN: f32 = 1.267_650_6e30;

/// A ray as the exact predicates see it.
#[derive(Debug, Clone, Copy)]
pub struct ExactRay {
    /// Origin.
    o: [f64; 3],
    /// Direction, each component an exact two-term sum (hi + lo).
    d: [[f64; 2]; 3],
    /// Where the ray ends.
    end: End,
}

/// The end of a ray.
#[derive(Debug, Clone, Copy)]
enum End {
    /// No limit.
    Open,
    /// At `o + limit * d`.
    Param(f64),
    /// At this point (a segment's end, `o + t d` exactly for the given t).
    Point([f64; 3], f64),
}

impl ExactRay {
    /// The ray `o + t d`, `0 < t <= limit` (infinite: no limit).
    pub fn ray(o: Vec3, d: Vec3, limit: f32) -> Self {
        ExactRay {
            o: f64s(o),
            d: f64s(d).map(|x| [x, 0.0]),
            end: if limit < OPEN {
                End::Param(f64::from(limit))
            } else {
                End::Open
            },
        }
    }

    /// The same ray along `s d` (s a power of two, so exactly), its limit
    /// divided by s; a segment keeps its end point.
    pub fn scaled(mut self, s: f32) -> Self {
        let s = f64::from(s);
        self.d = self.d.map(|x| x.map(|v| v * s));
        self.end = match self.end {
            End::Open => End::Open,
            End::Param(l) => End::Param(l / s),
            End::Point(e, t) => End::Point(e, t / s),
        };
        self
    }

    /// The segment from `a` to `b` (t in (0, 1] along the exact `b - a`).
    pub fn segment(a: Vec3, b: Vec3) -> Self {
        let (a, b) = (f64s(a), f64s(b));
        ExactRay {
            o: a,
            d: std::array::from_fn(|k| {
                let (s, e) = two_sum(b[k], -a[k]);
                [s, e]
            }),
            end: End::Point(b, 1.0),
        }
    }

    /// The exact decision for triangle `abc`: the ray parameter (in f32,
    /// in (0, limit]) when the ray crosses it, else `None`.
    #[cold]
    #[inline(never)]
    pub fn hit(&self, [a, b, c]: [Vec3; 3]) -> Option<f32> {
        let (a, b, c) = (f64s(a), f64s(b), f64s(c));
        let side = self.edge_sign(b, c);
        if side == 0 || self.edge_sign(c, a) != side || self.edge_sign(a, b) != side {
            return None;
        }
        if sign(orient3d(p3(a), p3(b), p3(c), p3(self.o))) != side {
            return None;
        }
        let beyond = match self.end {
            End::Open => false,
            End::Point(e, _) => sign(orient3d(p3(a), p3(b), p3(c), p3(e))) == side,
            End::Param(l) => self.beyond_param(a, b, c, l) == side,
        };
        if beyond {
            return None;
        }
        Some(self.param(a, b, c))
    }

    /// The ray parameter of the crossing with the plane of abc, rounded
    /// to f32 and clamped to (0, limit] (the caller knows it lies there).
    fn param(&self, a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f32 {
        let v = |p: [f64; 3]| glam::DVec3::from_array(p);
        let d = glam::DVec3::from_array(self.d.map(|x| x[0] + x[1]));
        let (a, b, c, o) = (v(a), v(b), v(c), v(self.o));
        let n = (b - a).cross(c - a);
        let t = ((a - o).dot(n) / d.dot(n)) as f32;
        let limit = match self.end {
            End::Open => f32::INFINITY,
            End::Param(l) | End::Point(_, l) => l as f32,
        };
        t.max(f32::from_bits(1)).min(limit).min(f32::MAX)
    }

    /// The sign of `det[p - o, q - o, d]`, never 0 unless `(q - p) x d`
    /// is zero (the edge is parallel to the ray): see the module notes.
    fn edge_sign(&self, p: [f64; 3], q: [f64; 3]) -> i32 {
        let s = self.edge_det_sign(p, q);
        if s != 0 {
            return s;
        }
        // Simulation of Simplicity: -(q - p) x d, first non-zero component.
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let mut acc = Accumulator::new();
            // w_k = (q - p)_i d_j - (q - p)_j d_i
            for (x, y, s) in [(i, j, 1.0), (j, i, -1.0)] {
                for e in [q[x], -p[x]] {
                    for f in self.d[y] {
                        acc.add_product(&[s * e, f]);
                    }
                }
            }
            let w = acc.sign();
            if w != 0 {
                return -w;
            }
        }
        0
    }

    /// The exact sign of `det[p - o, q - o, d]`.
    fn edge_det_sign(&self, p: [f64; 3], q: [f64; 3]) -> i32 {
        let o = self.o;
        let pv = [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
        let qv = [q[0] - o[0], q[1] - o[1], q[2] - o[2]];
        let d = self.d.map(|x| x[0]);
        if let Some(s) = filtered_det(pv, qv, d) {
            return s;
        }
        let rows = [
            std::array::from_fn(|k| Terms::of(&[p[k], -o[k]])),
            std::array::from_fn(|k| Terms::of(&[q[k], -o[k]])),
            std::array::from_fn(|k| Terms::of(&self.d[k])),
        ];
        det_sign(&rows)
    }

    /// The sign of `det[a - e, b - e, c - e]` with e = o + l d.
    fn beyond_param(&self, a: [f64; 3], b: [f64; 3], c: [f64; 3], l: f64) -> i32 {
        let e: [f64; 3] = std::array::from_fn(|k| self.o[k] + l * (self.d[k][0] + self.d[k][1]));
        let rel = |p: [f64; 3]| std::array::from_fn(|k| p[k] - e[k]);
        let [ra, rb, rc]: [[f64; 3]; 3] = [rel(a), rel(b), rel(c)];
        // e is rounded: widen the bound by its error relative to the rows.
        let cross = |x: [f64; 3], y: [f64; 3]| {
            [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ]
        };
        let bc = cross(rb, rc);
        let det = ra[0] * bc[0] + ra[1] * bc[1] + ra[2] * bc[2];
        let m = [ra, rb, rc]
            .iter()
            .flat_map(|r| r.iter())
            .chain(e.iter())
            .fold(0.0f64, |m, x| m.max(x.abs()));
        if det.abs() > 64.0 * f64::EPSILON * m * m * m + f64::MIN_POSITIVE {
            return sign(det);
        }
        // Exact: each row's entries are p_k - o_k - l d_k.
        let entry = |p: [f64; 3], k: usize| {
            let [(h0, l0), (h1, l1)] = self.d[k].map(|dk| two_product(-l, dk));
            Terms::of(&[p[k], -self.o[k], h0, l0, h1, l1])
        };
        let rows = [a, b, c].map(|p| std::array::from_fn(|k| entry(p, k)));
        det_sign(&rows)
    }
}

/// An f32 vector as f64 (exactly).
fn f64s(v: Vec3) -> [f64; 3] {
    v.to_array().map(f64::from)
}

fn p3(p: [f64; 3]) -> Coord3D<f64> {
    Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

fn sign(x: f64) -> i32 {
    i32::from(x > 0.0) - i32::from(x < 0.0)
}

/// The sign of `det[p, q, d]` when an f64 evaluation settles it. The rows
/// may carry a rounding error of 2^-53 of each entry (`p - o` of f32
/// values, the high part of a segment's direction).
fn filtered_det(p: [f64; 3], q: [f64; 3], d: [f64; 3]) -> Option<i32> {
    let c = [
        p[1] * q[2] - p[2] * q[1],
        p[2] * q[0] - p[0] * q[2],
        p[0] * q[1] - p[1] * q[0],
    ];
    let det = d[0] * c[0] + d[1] * c[1] + d[2] * c[2];
    let perm = d[0].abs() * ((p[1] * q[2]).abs() + (p[2] * q[1]).abs())
        + d[1].abs() * ((p[2] * q[0]).abs() + (p[0] * q[2]).abs())
        + d[2].abs() * ((p[0] * q[1]).abs() + (p[1] * q[0]).abs());
    // 16 units of 2^-53 cover the inputs' rounding and the evaluation's.
    let bound = perm * (16.0 * f64::EPSILON / 2.0) + f64::MIN_POSITIVE;
    (det.abs() > bound).then(|| sign(det))
}

/// A matrix entry: the exact sum of up to six f64 terms.
#[derive(Debug, Clone, Copy)]
struct Terms {
    t: [f64; 6],
    n: usize,
}

impl Terms {
    fn of(terms: &[f64]) -> Self {
        let mut t = [0.0; 6];
        t[..terms.len()].copy_from_slice(terms);
        Terms { t, n: terms.len() }
    }

    fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.t[..self.n].iter().copied().filter(|&x| x != 0.0)
    }
}

/// The exact sign of the determinant of three rows whose entries are
/// exact sums of f64 terms.
fn det_sign(rows: &[[Terms; 3]; 3]) -> i32 {
    const PERMS: [([usize; 3], f64); 6] = [
        ([0, 1, 2], 1.0),
        ([1, 2, 0], 1.0),
        ([2, 0, 1], 1.0),
        ([0, 2, 1], -1.0),
        ([2, 1, 0], -1.0),
        ([1, 0, 2], -1.0),
    ];
    let mut acc = Accumulator::new();
    for (p, s) in PERMS {
        for x in rows[0][p[0]].iter() {
            for y in rows[1][p[1]].iter() {
                for z in rows[2][p[2]].iter() {
                    acc.add_product(&[s * x, y, z]);
                }
            }
        }
    }
    acc.sign()
}

/// `a + b` as an exact sum `s + e` (Knuth).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

/// `a * b` as an exact sum `p + e` (Dekker; no overflow or underflow for
/// products of values from f32 inputs).
pub fn two_product(a: f64, b: f64) -> (f64, f64) {
    let split = |x: f64| {
        let c = 134_217_729.0 * x;
        let hi = c - (c - x);
        (hi, x - hi)
    };
    let p = a * b;
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    let err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, err)
}

/// An exact sum of f64 values: a fixed-point number with 32-bit digits
/// from 2^-1100 (below the smallest subnormal) to past 2^1040, each digit
/// kept in an i64 so that carries can wait until the sign is read.
struct Accumulator {
    digits: [i64; DIGITS],
}

const DIGITS: usize = 68;
/// The weight of digit 0's lowest bit is 2^-LOW.
const LOW: i32 = 1100;

impl Accumulator {
    fn new() -> Self {
        Accumulator {
            digits: [0; DIGITS],
        }
    }

    /// Adds `x` exactly.
    fn add(&mut self, x: f64) {
        if x == 0.0 {
            return;
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        let (mant, e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        };
        let pos = (e + LOW) as usize;
        let (i, sh) = (pos / 32, pos % 32);
        let v = u128::from(mant) << sh;
        let neg = x < 0.0;
        for (k, part) in [v as u32, (v >> 32) as u32, (v >> 64) as u32]
            .into_iter()
            .enumerate()
        {
            let part = i64::from(part);
            self.digits[i + k] += if neg { -part } else { part };
        }
    }

    /// Adds the exact product of two or three factors.
    fn add_product(&mut self, f: &[f64]) {
        let (p, e) = two_product(f[0], f[1]);
        match f.get(2) {
            None => {
                self.add(p);
                self.add(e);
            }
            Some(&z) => {
                let (p1, e1) = two_product(p, z);
                let (p2, e2) = two_product(e, z);
                for t in [p1, e1, p2, e2] {
                    self.add(t);
                }
            }
        }
    }

    /// The sign of the sum.
    fn sign(&self) -> i32 {
        let mut d = self.digits;
        for i in 0..DIGITS - 1 {
            let carry = d[i] >> 32;
            d[i] -= carry << 32;
            d[i + 1] += carry;
        }
        match d[DIGITS - 1].signum() {
            0 => i32::from(d.iter().any(|&x| x != 0)),
            s => s as i32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn accumulator_sums_exactly() {
        let mut a = Accumulator::new();
        for x in [1e300, 1.0, -1e300, -1.0, 1e-300] {
            a.add(x);
        }
        assert_eq!(a.sign(), 1);
        a.add(-1e-300);
        assert_eq!(a.sign(), 0);
        a.add(-f64::from_bits(1));
        assert_eq!(a.sign(), -1);
        // (1 + 2^-30)^2 - 1 - 2^-29 = 2^-60 exactly.
        let x = 1.0 + 2f64.powi(-30);
        let mut b = Accumulator::new();
        b.add_product(&[x, x]);
        b.add(-1.0);
        b.add(-(2f64.powi(-29)));
        b.add(-(2f64.powi(-60)));
        assert_eq!(b.sign(), 0);
    }

    /// The exact determinant agrees with robust's orient3d on f32 points,
    /// including exactly coplanar ones.
    #[test]
    fn det_matches_orient3d() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for i in 0..20_000 {
            let mut v = || {
                let x: f32 = rng.random_range(-4.0..4.0);
                if i % 2 == 0 { x.round() } else { x }
            };
            let pts: [[f64; 3]; 4] = std::array::from_fn(|_| [v(), v(), v()].map(f64::from));
            let want = sign(orient3d(p3(pts[0]), p3(pts[1]), p3(pts[2]), p3(pts[3])));
            let rows = std::array::from_fn(|r| {
                std::array::from_fn(|k| Terms::of(&[pts[r][k], -pts[3][k]]))
            });
            assert_eq!(det_sign(&rows), want, "{pts:?}");
        }
    }

    /// Around a shared vertex, the perturbed edge signs put a ray through
    /// the vertex in exactly one triangle of the fan.
    #[test]
    fn a_ray_through_a_vertex_hits_one_triangle_of_its_fan() {
        // A fan of six triangles about the origin in z = 0, wound upwards.
        let ring: Vec<Vec3> = (0..6)
            .map(|i| {
                let a = i as f32;
                Vec3::new(a.cos() * 2.0, a.sin() * 2.0, 0.0)
            })
            .collect();
        for dir in [Vec3::NEG_Z, Vec3::Z, Vec3::new(0.0, 0.5, -1.0)] {
            let ray = ExactRay::ray(Vec3::new(0.0, 0.0, 1.0) - dir, dir, f32::INFINITY);
            let hits = (0..6)
                .filter(|&i| ray.hit([Vec3::ZERO, ring[i], ring[(i + 1) % 6]]).is_some())
                .count();
            let ahead = dir.z < 0.0 || dir == Vec3::new(0.0, 0.5, -1.0);
            assert_eq!(hits, usize::from(ahead), "{dir}");
        }
        // Through a shared edge: exactly one of the two triangles.
        let (p, q) = (Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0));
        let left = [p, q, Vec3::new(-1.0, 0.0, 0.0)];
        let right = [q, p, Vec3::new(1.0, 0.0, 0.0)];
        let ray = ExactRay::ray(Vec3::new(0.0, 0.25, 1.0), Vec3::NEG_Z, f32::INFINITY);
        let n = [left, right]
            .iter()
            .filter(|t| ray.hit(**t).is_some())
            .count();
        assert_eq!(n, 1);
    }

    #[test]
    fn segment_ends_on_the_surface_hit() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let seg = ExactRay::segment(Vec3::new(0.25, 0.25, 1.0), Vec3::new(0.25, 0.25, 0.0));
        assert_eq!(seg.hit(tri), Some(1.0));
        let short = ExactRay::segment(Vec3::new(0.25, 0.25, 1.0), Vec3::new(0.25, 0.25, 1e-30));
        assert_eq!(short.hit(tri), None);
        let ray = ExactRay::ray(Vec3::new(0.25, 0.25, 3.0), Vec3::NEG_Z, 3.0);
        assert_eq!(ray.hit(tri), Some(3.0));
        let ray = ExactRay::ray(Vec3::new(0.25, 0.25, 3.0), Vec3::NEG_Z, 2.999_999_8);
        assert_eq!(ray.hit(tri), None);
        // Starting on the surface: t = 0 is not a hit.
        let on = ExactRay::ray(Vec3::new(0.25, 0.25, 0.0), Vec3::NEG_Z, f32::INFINITY);
        assert_eq!(on.hit(tri), None);
    }
}
