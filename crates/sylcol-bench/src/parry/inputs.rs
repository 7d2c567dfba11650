//! The inputs of the parry3d comparison (seeded, a quarter of each kind:
//! `super`'s module notes), and the f64 brute force that judges a
//! disagreement.

use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol_query::geometry::closest::{closest_on_triangle, sweep_triangle};

use super::TOI_BOUND;

/// Which feature an input is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Aim {
    Random,
    Face,
    Edge,
    Vertex,
}

/// A sphere sweep.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sweep {
    pub(super) centre: Vec3,
    pub(super) radius: f32,
    pub(super) motion: Vec3,
    pub(super) aim: Aim,
}

/// A point query.
#[derive(Debug, Clone, Copy)]
pub(super) struct Point {
    pub(super) p: Vec3,
    pub(super) aim: Aim,
}

/// `n` sweeps and `n` points for `mesh`, from `seed`.
pub(super) fn inputs(mesh: &TriMesh, n: usize, seed: u64) -> (Vec<Sweep>, Vec<Point>) {
    let (lo, hi) = mesh.bounds().expect("a mesh with vertices");
    let diagonal = f64::from((hi - lo).length());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sweeps = (0..n)
        .map(|i| sweep(mesh, (lo, hi), diagonal, i, &mut rng))
        .collect();
    let points = (0..n)
        .map(|i| point(mesh, (lo, hi), diagonal, i, &mut rng))
        .collect();
    (sweeps, points)
}

/// Why two sweeps disagree, from the f64 brute force.
pub(super) fn judge_toi(
    s: Option<f32>,
    p: Option<f32>,
    brute: Option<f64>,
    along: f64,
    diag: f64,
) -> String {
    let near = |t: Option<f32>| match (t, brute) {
        (None, None) => true,
        (Some(a), Some(b)) => (f64::from(a) - b).abs() * along <= TOI_BOUND * diag,
        _ => false,
    };
    match (near(s), near(p)) {
        (true, false) => {
            "sylcol is the brute force's; parry3d's ball cast (GJK to a tolerance) is not".into()
        }
        (false, true) => "parry3d is the brute force's; sylcol is not".into(),
        (true, true) => "both within the bound of the brute force".into(),
        (false, false) => "neither is the brute force's".into(),
    }
}

/// The first contact of the sweep over every triangle, in f64.
pub(super) fn brute_sweep(mesh: &TriMesh, q: &Sweep) -> Option<f64> {
    let (c, r, m) = (
        q.centre.as_dvec3(),
        f64::from(q.radius),
        q.motion.as_dvec3(),
    );
    mesh.triangles
        .iter()
        .filter_map(|t| sweep_triangle(c, r, m, &corners(mesh, t)))
        .filter(|&t| t <= 1.0)
        .min_by(f64::total_cmp)
}

/// The distance from `p` to the nearest triangle, in f64.
pub(super) fn brute_distance(mesh: &TriMesh, p: Vec3) -> f64 {
    let p = p.as_dvec3();
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = corners(mesh, t);
            closest_on_triangle(p, a, b, c).distance(p)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Six times the signed volume the mesh encloses (positive when its
/// triangles wind counter-clockwise seen from outside).
pub(super) fn signed_volume(mesh: &TriMesh) -> f64 {
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = corners(mesh, t);
            a.dot(b.cross(c))
        })
        .sum()
}

fn corners(mesh: &TriMesh, t: &[u32; 3]) -> [DVec3; 3] {
    t.map(|i| mesh.vertices[i as usize].as_dvec3())
}

/// The aim of input `i` and, for an aimed one, its target.
fn target(mesh: &TriMesh, i: usize, rng: &mut ChaCha8Rng) -> (Aim, Vec3) {
    let aim = [Aim::Random, Aim::Face, Aim::Edge, Aim::Vertex][i % 4];
    let t = mesh.triangles[rng.random_range(0..mesh.triangles.len())];
    let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
    let p = match aim {
        Aim::Random => Vec3::ZERO,
        Aim::Face => {
            let (mut u, mut v) = (rng.random::<f32>(), rng.random::<f32>());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            a + (b - a) * u + (c - a) * v
        }
        Aim::Edge => {
            let (p, q) = [(a, b), (b, c), (c, a)][rng.random_range(0..3)];
            p.lerp(q, rng.random::<f32>())
        }
        Aim::Vertex => [a, b, c][rng.random_range(0..3)],
    };
    (aim, p)
}

fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let l = v.length();
        if l > 1e-3 && l <= 1.0 {
            return v / l;
        }
    }
}

fn in_box((lo, hi): (Vec3, Vec3), rng: &mut ChaCha8Rng) -> Vec3 {
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    Vec3::new(
        rng.random_range(lo.x..=hi.x),
        rng.random_range(lo.y..=hi.y),
        rng.random_range(lo.z..=hi.z),
    )
}

fn sweep(mesh: &TriMesh, b: (Vec3, Vec3), diag: f64, i: usize, rng: &mut ChaCha8Rng) -> Sweep {
    let (aim, to) = target(mesh, i, rng);
    let radius = (diag * 10f64.powf(rng.random_range(-3.0..-1.0))) as f32;
    let diag = diag as f32;
    let (centre, motion) = if aim == Aim::Random {
        (
            in_box(b, rng),
            unit(rng) * rng.random_range(0.0..0.5) * diag,
        )
    } else {
        let centre = to + unit(rng) * (radius + rng.random_range(0.0..0.25) * diag);
        (centre, (to - centre) * 1.5)
    };
    Sweep {
        centre,
        radius,
        motion,
        aim,
    }
}

fn point(mesh: &TriMesh, b: (Vec3, Vec3), diag: f64, i: usize, rng: &mut ChaCha8Rng) -> Point {
    let (aim, to) = target(mesh, i, rng);
    let p = if aim == Aim::Random {
        in_box(b, rng)
    } else {
        to + unit(rng) * (diag * 10f64.powf(rng.random_range(-6.0..-2.0))) as f32
    };
    Point { p, aim }
}
