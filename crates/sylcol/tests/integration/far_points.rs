//! `closest_point` from far away, against an exact reference: every
//! triangle's squared distance as a fraction of big integers (the f32
//! inputs scaled to integers, so nothing is rounded), as the least over
//! its corners, its edges and its face. At 1e30 the f64 distances of every
//! triangle round to one value (the search answered triangle 0); the
//! answer must still be the truly nearest triangle, and a distance past
//! f32's range is refused, never reported as infinity.

use glam::Vec3;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::prelude::*;
use sylcol::query::{Collider, QueryError};

use super::rebuild_queries::sample_maps;

type V = [BigInt; 3];

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

/// `v` in units of 2^`unit` (exact: `unit` is at most every exponent).
fn exact(v: Vec3, unit: i32) -> V {
    v.to_array().map(|x| {
        let (m, e) = split(x);
        BigInt::from(m) << (e - unit) as usize
    })
}

fn sub(a: &V, b: &V) -> V {
    [&a[0] - &b[0], &a[1] - &b[1], &a[2] - &b[2]]
}

fn dot(a: &V, b: &V) -> BigInt {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}

fn cross(a: &V, b: &V) -> V {
    [
        &a[1] * &b[2] - &a[2] * &b[1],
        &a[2] * &b[0] - &a[0] * &b[2],
        &a[0] * &b[1] - &a[1] * &b[0],
    ]
}

/// A squared distance: numerator, positive denominator.
type Frac = (BigInt, BigInt);

fn less(a: &Frac, b: &Frac) -> bool {
    &a.0 * &b.1 < &b.0 * &a.1
}

/// The exact squared distance from p to triangle abc: the least over its
/// corners, the interiors of its edges (where p projects inside) and the
/// interior of its face (where p projects inside).
fn triangle(p: &V, a: &V, b: &V, c: &V) -> Frac {
    let one = || BigInt::from(1);
    let mut all: Vec<Frac> = [a, b, c]
        .iter()
        .map(|v| {
            let d = sub(p, v);
            (dot(&d, &d), one())
        })
        .collect();
    for (x, y) in [(a, b), (b, c), (c, a)] {
        let (xp, d) = (sub(p, x), sub(y, x));
        let (t, l2) = (dot(&xp, &d), dot(&d, &d));
        if t.is_positive() && t < l2 {
            let v = [0, 1, 2].map(|k| &xp[k] * &l2 - &d[k] * &t);
            all.push((dot(&v, &v), &l2 * &l2));
        }
    }
    let n = cross(&sub(b, a), &sub(c, a));
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|(x, y)| dot(&n, &cross(&sub(y, x), &sub(p, x))).is_positive());
    if !n.iter().all(Zero::is_zero) && inside {
        let h = dot(&n, &sub(p, a));
        all.push((&h * &h, dot(&n, &n)));
    }
    all.into_iter()
        .reduce(|x, y| if less(&y, &x) { y } else { x })
        .unwrap()
}

/// The truly nearest triangle to `p` (ties to the lowest index) and its
/// distance.
fn nearest(mesh: &TriMesh, p: Vec3) -> (u32, f64) {
    let unit = mesh
        .vertices
        .iter()
        .chain([&p])
        .flat_map(|v| v.to_array())
        .filter(|&x| x != 0.0)
        .map(|x| split(x).1)
        .min()
        .unwrap_or(0);
    let q = exact(p, unit);
    let corners: Vec<V> = mesh.vertices.iter().map(|&v| exact(v, unit)).collect();
    let mut best: Option<(u32, Frac)> = None;
    for (t, tri) in mesh.triangles.iter().enumerate() {
        let [a, b, c] = tri.map(|i| &corners[i as usize]);
        let d = triangle(&q, a, b, c);
        if best.as_ref().is_none_or(|(_, b)| less(&d, b)) {
            best = Some((t as u32, d));
        }
    }
    let (t, (num, den)) = best.unwrap();
    // sqrt(num / den) * 2^unit, through num * 2^-e / den, a ratio of
    // about 2^60 (e even, so its square root is a power of two).
    let e = (num.bits() as i64 - den.bits() as i64 - 60) & !1;
    let scaled = if e >= 0 {
        num >> e as usize
    } else {
        num << -e as usize
    };
    let ratio = scaled.to_f64().unwrap() / den.to_f64().unwrap();
    let exp = i32::try_from(i64::from(unit) + e / 2).unwrap();
    assert!(ratio.is_finite() && ratio > 0.0, "{ratio}");
    (t, ratio.sqrt() * 2f64.powi(exp))
}

/// Unit directions: the axes, diagonals, and random ones.
fn directions(rng: &mut ChaCha8Rng) -> Vec<Vec3> {
    let mut d = vec![
        Vec3::X,
        -Vec3::Y,
        Vec3::Z,
        Vec3::ONE.normalize(),
        Vec3::new(-1.0, 1.0, -1.0).normalize(),
    ];
    d.extend((0..4).map(|_| {
        Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        )
        .normalize()
    }));
    d
}

#[test]
fn far_points_answer_the_truly_nearest_triangle() {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    let maps = sample_maps();
    assert_eq!(maps.len(), 11);
    for m in &maps {
        let collider = Collider::from_mcol(m).unwrap();
        let mesh = TriMesh::from_mcol(m);
        for dir in directions(&mut rng) {
            for scale in [1e8f32, 1e20, 1e30, 1e38] {
                let p = dir * scale;
                let got = collider.closest_point(p).unwrap().unwrap();
                let (triangle, distance) = nearest(&mesh, p);
                assert_eq!(got.triangle, triangle, "{p:?}: {got:?}");
                let error = (f64::from(got.distance) - distance).abs();
                assert!(
                    error <= distance * 1e-7,
                    "{p:?}: {got:?}, exactly {distance}"
                );
                // The point is on that triangle, its distance the one given.
                let to_point = got.point.as_dvec3().distance(p.as_dvec3());
                assert!(
                    (to_point - distance).abs() <= distance * 1e-6,
                    "{p:?}: {got:?}"
                );
            }
        }
    }
}

#[test]
fn a_distance_past_f32s_range_is_refused() {
    let m = &sample_maps()[0];
    let c = Collider::from_mcol(m).unwrap();
    let far = Vec3::splat(3e38);
    assert_eq!(c.closest_point(far), Err(QueryError::DistanceOverflow));
    // In a batch, the first such point is the error, by its index.
    let e = c
        .closest_many(&[Vec3::ZERO, Vec3::splat(1e30), far, -far])
        .unwrap_err();
    assert_eq!((e.index, e.error), (2, QueryError::DistanceOverflow));
    // 2e38 along one axis is within range.
    let d = c.closest_point(Vec3::new(2e38, 0.0, 0.0)).unwrap().unwrap();
    assert!(d.distance.is_finite() && d.distance > 1.9e38);
}
