//! The nearest triangle to a far point, exactly.
//!
//! From [`FAR`] times the mesh's size away, the
//! squared distances of the triangles differ from one another by less than
//! their own rounding in f64 (at 1e30 every triangle of a sample map was
//! at the same distance, and the search answered triangle 0). So:
//!
//! 1. **screen** (f64): for any point c, a triangle T lies no nearer to p
//!    than |p - c|^2 - 2 max over T's corners v of (p - c) . (v - c), and
//!    the nearest triangle is no farther than any corner v*. Only a
//!    triangle whose deepest corner along p - c (c the mesh's centre) is
//!    within |v* - c|^2 / 2 of the deepest corner v*, plus the rounding
//!    of those products, can hold the nearest point: a vertex's
//!    triangles, or those of an edge or face square to p;
//! 2. **decide** (exact): each remaining triangle's squared distance as a
//!    fraction of big integers, every f32 input scaled to an integer,
//!    through the regions of [`closest_on_triangle`] decided on exact dot
//!    products; ties go to the lowest index.

use glam::{DVec3, Vec3};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

#[cfg(doc)]
use crate::geometry::closest::closest_on_triangle;
#[cfg(doc)]
use crate::index::surface::FAR;
use crate::index::surface::Surface;

type V = [BigInt; 3];

/// A point of a triangle: `n / d`, with `d` positive.
struct Near {
    n: V,
    d: BigInt,
}

impl Surface {
    /// The mesh's centre, when `p` lies [`FAR`] from it (squared
    /// distances compared: `Surface::far`, from `far_reach`).
    #[inline(always)]
    pub(crate) fn far_from(&self, p: DVec3) -> Option<DVec3> {
        let (centre, reach2) = self.far;
        (p.distance_squared(centre) > reach2).then_some(centre)
    }

    /// The nearest of `listed` to the far point `p` (`centre` the mesh's):
    /// (squared distance, triangle, point) as the ring search gives them.
    pub(crate) fn nearest_far(&self, listed: &[u32], p: Vec3, centre: DVec3) -> (f64, u32, DVec3) {
        let candidates = self.deepest(listed, p.as_dvec3(), centre);
        let corners = candidates
            .iter()
            .flat_map(|&t| self.mesh().corners(t as usize));
        let unit = unit_of(corners.chain([p]));
        let q = scaled(p, unit);
        let mut best: Option<(u32, Near, (BigInt, BigInt))> = None;
        for &t in &candidates {
            let [a, b, c] = self.mesh().corners(t as usize).map(|v| scaled(v, unit));
            let near = nearest_on_triangle(&q, &a, &b, &c);
            let d2 = squared_distance(&q, &near);
            // Candidates ascend: a tie keeps the lower index.
            if best.as_ref().is_none_or(|(_, _, b)| less(&d2, b)) {
                best = Some((t, near, d2));
            }
        }
        let Some((t, near, (num, den))) = best else {
            return (f64::INFINITY, u32::MAX, DVec3::ZERO);
        };
        let point = DVec3::from_array([0, 1, 2].map(|k| ratio(&near.n[k], &near.d, unit)));
        (ratio(&num, &den, 2 * unit), t, point)
    }

    /// The listed triangles that may hold the point nearest to `p`
    /// (module docs, step 1), ascending.
    fn deepest(&self, listed: &[u32], p: DVec3, centre: DVec3) -> Vec<u32> {
        let u = p - centre;
        let depth = |t: u32| {
            self.mesh()
                .corners(t as usize)
                .map(|v| u.dot(v.as_dvec3() - centre))
                .into_iter()
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let (mut top, mut reach) = (f64::NEG_INFINITY, 0.0f64);
        let mut lead = DVec3::ZERO;
        for &t in listed {
            for v in self.mesh().corners(t as usize) {
                let w = v.as_dvec3() - centre;
                reach = reach.max(w.length());
                let d = u.dot(w);
                if d > top {
                    (top, lead) = (d, w);
                }
            }
        }
        // Each product is off by at most a few units in the last place of
        // |u| |w|: 2^-40 of it covers them with room to spare.
        let slack = lead.length_squared() / 2.0 + 2f64.powi(-40) * u.length() * (reach + 1.0);
        listed
            .iter()
            .copied()
            .filter(|&t| depth(t) >= top - slack)
            .collect()
    }
}

/// The exponent of the smallest unit every value is a whole multiple of.
fn unit_of(points: impl Iterator<Item = Vec3>) -> i32 {
    points
        .flat_map(|v| v.to_array())
        .filter(|&x| x != 0.0)
        .map(|x| split(x).1)
        .min()
        .unwrap_or(0)
}

/// `x` as m * 2^e with an integer m.
fn split(x: f32) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 31 == 1 { -1 } else { 1 };
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = i64::from(bits & 0x7f_ffff);
    match exp {
        0 => (sign * frac, -149),
        _ => (sign * (frac | 0x80_0000), exp - 150),
    }
}

/// `v` in units of 2^`unit` (exactly: no exponent of `v` is below it).
fn scaled(v: Vec3, unit: i32) -> V {
    v.to_array().map(|x| {
        let (m, e) = split(x);
        BigInt::from(m) << (e - unit).max(0) as usize
    })
}

fn sub(a: &V, b: &V) -> V {
    [&a[0] - &b[0], &a[1] - &b[1], &a[2] - &b[2]]
}

fn dot(a: &V, b: &V) -> BigInt {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}

/// `x + d * num / den` (`den` positive).
fn along(x: &V, d: &V, num: &BigInt, den: BigInt) -> Near {
    Near {
        n: [0, 1, 2].map(|k| &x[k] * &den + &d[k] * num),
        d: den,
    }
}

fn corner(x: &V) -> Near {
    Near {
        n: x.clone(),
        d: BigInt::from(1),
    }
}

/// The point of triangle abc nearest to p, exactly: the regions of
/// `closest_on_triangle`, decided on exact dot products.
fn nearest_on_triangle(p: &V, a: &V, b: &V, c: &V) -> Near {
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(&ab, &ap), dot(&ac, &ap));
    if !d1.is_positive() && !d2.is_positive() {
        return corner(a);
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(&ab, &bp), dot(&ac, &bp));
    if !d3.is_negative() && d4 <= d3 {
        return corner(b);
    }
    let vc = &d1 * &d4 - &d3 * &d2;
    if !vc.is_positive() && !d1.is_negative() && !d3.is_positive() {
        let den = &d1 - &d3;
        return along(a, &ab, &d1, den);
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(&ab, &cp), dot(&ac, &cp));
    if !d6.is_negative() && d5 <= d6 {
        return corner(c);
    }
    let vb = &d5 * &d2 - &d1 * &d6;
    if !vb.is_positive() && !d2.is_negative() && !d6.is_positive() {
        let den = &d2 - &d6;
        return along(a, &ac, &d2, den);
    }
    let va = &d3 * &d6 - &d5 * &d4;
    let (e, f) = (&d4 - &d3, &d5 - &d6);
    if !va.is_positive() && !e.is_negative() && !f.is_negative() {
        let den = &e + &f;
        return along(b, &sub(c, b), &e, den);
    }
    let denom = &va + &vb + &vc;
    if denom.is_zero() {
        // A degenerate (collinear) triangle: the nearest of its edges.
        let edges = [(a, b), (b, c), (c, a)].map(|(x, y)| nearest_on_segment(p, x, y));
        return edges
            .into_iter()
            .reduce(|x, y| {
                let (dx, dy) = (squared_distance(p, &x), squared_distance(p, &y));
                if less(&dy, &dx) { y } else { x }
            })
            .unwrap_or_else(|| corner(a));
    }
    Near {
        n: [0, 1, 2].map(|k| &a[k] * &denom + &ab[k] * &vb + &ac[k] * &vc),
        d: denom,
    }
}

/// The point of segment xy nearest to p, exactly.
fn nearest_on_segment(p: &V, x: &V, y: &V) -> Near {
    let d = sub(y, x);
    let (t, l2) = (dot(&sub(p, x), &d), dot(&d, &d));
    if l2.is_zero() || !t.is_positive() {
        corner(x)
    } else if t >= l2 {
        corner(y)
    } else {
        along(x, &d, &t, l2)
    }
}

/// |p - q|^2 as (numerator, positive denominator).
fn squared_distance(p: &V, q: &Near) -> (BigInt, BigInt) {
    let v = [0, 1, 2].map(|k| &p[k] * &q.d - &q.n[k]);
    (dot(&v, &v), &q.d * &q.d)
}

fn less(a: &(BigInt, BigInt), b: &(BigInt, BigInt)) -> bool {
    &a.0 * &b.1 < &b.0 * &a.1
}

/// `num / den * 2^unit` as an f64 (`den` positive), through a quotient of
/// about 2^60 that both integers' leading bits give.
fn ratio(num: &BigInt, den: &BigInt, unit: i32) -> f64 {
    if num.is_zero() {
        return 0.0;
    }
    let e = num.bits() as i64 - den.bits() as i64 - 60;
    let scaled = if e >= 0 {
        num >> e as usize
    } else {
        num << (-e) as usize
    };
    // Both keep their top 64 bits: enough for the quotient's 53.
    let top = |x: &BigInt| {
        let drop = x.bits().saturating_sub(64);
        (
            (x >> drop as usize).to_f64().unwrap_or(f64::NAN),
            drop as i64,
        )
    };
    let ((n, dn), (d, dd)) = (top(&scaled), top(den));
    let exp = i64::from(unit) + e + dn - dd;
    n / d * 2f64.powi(exp.clamp(-2000, 2000) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_keep_their_precision() {
        let big = BigInt::from(3) << 700usize;
        assert_eq!(ratio(&big, &(BigInt::from(1) << 699usize), 0), 6.0);
        assert_eq!(ratio(&BigInt::from(-5), &BigInt::from(2), 3), -20.0);
        assert_eq!(ratio(&BigInt::from(1), &BigInt::from(3), 0), 1.0 / 3.0);
        assert_eq!(split(-1.5), (-0xc0_0000, -23));
        assert_eq!(split(f32::from_bits(1)), (1, -149));
    }
}
