//! The per-axis crossing test against the straightforward one it
//! replaced (orient3d first, then the projected triangle), on lattice
//! points and triangles, where every degeneracy the perturbation decides
//! is common: points on edges, vertices and planes, triangles seen
//! edge-on, segment ends on planes.

use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use robust::{orient2d, orient3d};

use super::parity::{Crossing, crossing_before};
use super::parity::{c2, c3, d2, d3, on_triangle, perturbed_sign};

/// The test as it was (issue 38): the reference for the reordered one.
fn reference(tri: &[Vec3; 3], p: DVec3, k: usize, forward: bool, stop: Option<f64>) -> Crossing {
    let (u, v) = ((k + 1) % 3, (k + 2) % 3);
    for axis in [u, v] {
        let lo = tri[0][axis].min(tri[1][axis]).min(tri[2][axis]);
        let hi = tri[0][axis].max(tri[1][axis]).max(tri[2][axis]);
        if p[axis] < f64::from(lo) || p[axis] > f64::from(hi) {
            return Crossing::Miss;
        }
    }
    let o3 = orient3d(c3(tri[0]), c3(tri[1]), c3(tri[2]), d3(p));
    if o3 == 0.0 {
        return if on_triangle(tri, p) {
            Crossing::OnSurface
        } else {
            Crossing::Miss
        };
    }
    let [a, b, c] = tri.map(|x| c2(x, u, v));
    let area = orient2d(a, b, c);
    if area == 0.0 {
        // Seen edge-on: the perturbed ray passes beside it.
        return Crossing::Miss;
    }
    let q = d2(p, u, v);
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(x, y)| perturbed_sign(orient2d(x, y, q), x, y) == area.signum());
    // The plane lies ahead when sign(o3) * sign(area) matches the direction.
    let ahead = |o3: f64| (o3 * area > 0.0) == forward;
    if !(inside && ahead(o3)) {
        return Crossing::Miss;
    }
    if let Some(s) = stop {
        let mut end = p;
        end[k] = s;
        let o3_end = orient3d(c3(tri[0]), c3(tri[1]), c3(tri[2]), d3(end));
        // o3_end == 0 would put the end point on the triangle.
        if o3_end == 0.0 || ahead(o3_end) {
            return Crossing::Miss;
        }
    }
    Crossing::Cross
}

fn lattice(rng: &mut ChaCha8Rng) -> Vec3 {
    Vec3::from_array([0; 3].map(|_| rng.random_range(-2i32..=2) as f32))
}

#[test]
fn the_reordered_test_decides_as_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(38);
    let mut kinds = [0usize; 3];
    for _ in 0..200_000 {
        let tri = [lattice(&mut rng), lattice(&mut rng), lattice(&mut rng)];
        // Lattice points, and half-lattice ones (on edges' midpoints).
        let p = (lattice(&mut rng).as_dvec3() + lattice(&mut rng).as_dvec3()) * 0.5;
        let k = rng.random_range(0..3);
        let forward = rng.random_bool(0.5);
        let stop = match rng.random_range(0..3) {
            0 => None,
            _ => Some(f64::from(rng.random_range(-6i32..=6)) * 0.5 + 0.25),
        };
        let want = reference(&tri, p, k, forward, stop);
        assert_eq!(
            crossing_before(&tri, p, k, forward, stop),
            want,
            "{tri:?} {p} k {k} forward {forward} stop {stop:?}"
        );
        kinds[want as usize] += 1;
    }
    // Every outcome occurs often.
    assert!(kinds.iter().all(|&n| n > 1000), "{kinds:?}");
}
