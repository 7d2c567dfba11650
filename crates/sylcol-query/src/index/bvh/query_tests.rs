//! The BVH's nearest point and sphere sweep against the grid path's
//! answers and an f64 brute force over every triangle (the same
//! per-triangle kernels, the same tie rule), on the eleven sample maps,
//! UV spheres and built meshes (a mesh with triangles listed twice and
//! panels welded three to an edge among them).

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Collider;
use crate::fixtures::{cuboid, icosphere, merged, uv_sphere};
use crate::geometry::closest::{closest_on_triangle, sweep_triangle};
use crate::geometry::mesh::TriMesh;
use crate::kernels::dispatch::KernelPath;
use crate::tests::sample_map_colliders;

/// (name, the grid path's collider, the same with a BVH).
fn scenes() -> Vec<(String, Collider, Collider)> {
    let mut out: Vec<_> = sample_map_colliders()
        .into_iter()
        .map(|(name, c)| (name, c.clone(), c.with_bvh()))
        .collect();
    let box_ = cuboid(Vec3::splat(-3.0), Vec3::new(2.0, 1.0, 4.0));
    // Every triangle twice (double-sided faces), and a fin of three
    // triangles on one edge of an icosphere.
    let twice = merged(&box_, &box_);
    let mut fins = icosphere(Vec3::ZERO, 2.0, 1);
    let [a, b, _] = fins.corners(0);
    let n = fins.vertices.len() as u32;
    let [ia, ib, _] = fins.triangles[0];
    fins.vertices
        .extend([a + Vec3::splat(1.5), (a + b) * 0.5 + Vec3::Y * 2.0]);
    fins.triangles
        .extend([[ia, ib, n], [ib, ia, n + 1], [ia, ib, n + 1]]);
    let meshes = [
        (
            "sphere 1k",
            uv_sphere(Vec3::new(0.5, -1.0, 2.0), 40.0, 32, 17),
        ),
        ("sphere 4k", uv_sphere(Vec3::ZERO, 1.0e4, 64, 33)),
        ("icosphere", icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 3)),
        (
            "twice",
            merged(&twice, &icosphere(Vec3::splat(5.0), 1.0, 1)),
        ),
        ("fins", fins),
    ];
    for (name, mesh) in meshes {
        let c = Collider::from_mesh(&mesh).unwrap();
        out.push((name.to_string(), c.clone(), c.with_bvh()));
    }
    out
}

/// The nearest (squared distance, triangle) over every triangle, ties to
/// the lowest index.
fn brute_closest(mesh: &TriMesh, p: Vec3) -> (f64, u32) {
    let p = p.as_dvec3();
    let mut best = (f64::INFINITY, u32::MAX);
    for t in 0..mesh.triangles.len() {
        let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
        let d2 = closest_on_triangle(p, a, b, c).distance_squared(p);
        if d2 < best.0 {
            best = (d2, t as u32);
        }
    }
    best
}

/// The first (time of impact, triangle) over every triangle, ties to the
/// lowest index.
fn brute_sweep(mesh: &TriMesh, c: Vec3, r: f32, m: Vec3) -> Option<(f64, u32)> {
    let (c, r, m) = (c.as_dvec3(), f64::from(r), m.as_dvec3());
    let mut best: Option<(f64, u32)> = None;
    for t in 0..mesh.triangles.len() {
        let tri = mesh.corners(t).map(|v| v.as_dvec3());
        if let Some(toi) = sweep_triangle(c, r, m, &tri)
            && best.is_none_or(|b| toi < b.0)
        {
            best = Some((toi, t as u32));
        }
    }
    best
}

/// A point on the mesh: a corner, an edge point or a face point.
fn on_mesh(mesh: &TriMesh, rng: &mut ChaCha8Rng) -> Vec3 {
    let [a, b, c] = mesh.corners(rng.random_range(0..mesh.triangles.len()));
    let (u, v) = (rng.random::<f32>(), rng.random::<f32>());
    match rng.random_range(0..3) {
        0 => [a, b, c][rng.random_range(0..3)],
        1 => a.lerp(b, u),
        _ if u + v <= 1.0 => a + (b - a) * u + (c - a) * v,
        _ => a + (b - a) * (1.0 - u) + (c - a) * (1.0 - v),
    }
}

fn random_in(rng: &mut ChaCha8Rng, lo: Vec3, hi: Vec3) -> Vec3 {
    lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random::<f32>()))
}

fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0))).normalize_or(Vec3::X)
}

#[test]
fn nearest_points_through_the_bvh_are_the_grid_paths_and_brute_forces() {
    let mut rng = ChaCha8Rng::seed_from_u64(381);
    let all = scenes();
    // The two maps of 12 triangles get no tree (their answers are the grid's).
    assert_eq!(all.iter().filter(|s| s.2.bvh().is_none()).count(), 2);
    for (name, grid, tree) in all {
        let mesh = grid.mesh();
        let (lo, hi) = mesh.bounds().unwrap();
        let (pad, diag) = ((hi - lo) * 0.1, (hi - lo).length());
        for i in 0..3_000 {
            let p = match i % 4 {
                0 => random_in(&mut rng, lo - pad, hi + pad),
                1 => on_mesh(mesh, &mut rng),
                _ => on_mesh(mesh, &mut rng) + unit(&mut rng) * diag * rng.random::<f32>() * 0.01,
            };
            let got = tree.closest_point(p).unwrap().expect("a surface");
            assert_eq!(Some(got), grid.closest_point(p).unwrap(), "{name} at {p:?}");
            let (d2, t) = brute_closest(mesh, p);
            assert_eq!(
                (got.distance, got.triangle),
                (d2.sqrt() as f32, t),
                "{name} at {p:?}"
            );
        }
    }
}

/// The nearest point's walk (and the packet search of a mesh of few
/// triangles) through every kernel this CPU runs answers as the
/// portable one, bit for bit.
#[test]
fn nearest_points_are_the_same_through_every_kernel() {
    let mut rng = ChaCha8Rng::seed_from_u64(382);
    for (name, grid, tree) in scenes() {
        let mesh = grid.mesh().clone();
        let mesh = &mesh;
        let (lo, hi) = mesh.bounds().unwrap();
        let (pad, diag) = ((hi - lo) * 0.1, (hi - lo).length());
        let sides = [grid, tree].map(|c| {
            KernelPath::available()
                .into_iter()
                .map(|path| c.clone().with_kernel_path(path).expect("an available path"))
                .collect::<Vec<_>>()
        });
        for i in 0..1_000 {
            let p = match i % 3 {
                0 => random_in(&mut rng, lo - pad, hi + pad),
                1 => on_mesh(mesh, &mut rng),
                _ => on_mesh(mesh, &mut rng) + unit(&mut rng) * diag * rng.random::<f32>() * 0.01,
            };
            for side in &sides {
                let want = side[0].closest_point(p).unwrap();
                assert_eq!(side[0].kernel_path(), KernelPath::Portable);
                for c in &side[1..] {
                    let got = c.closest_point(p).unwrap();
                    assert_eq!(got, want, "{name} at {p:?}, {}", c.kernel_path());
                }
            }
        }
    }
}

#[test]
fn sphere_sweeps_through_the_bvh_are_the_grid_paths_and_brute_forces() {
    let mut rng = ChaCha8Rng::seed_from_u64(382);
    let mut hits = 0;
    for (name, grid, tree) in scenes() {
        let mesh = grid.mesh();
        let (lo, hi) = mesh.bounds().unwrap();
        let diag = (hi - lo).length();
        for i in 0..3_000 {
            let r = diag * 10f32.powf(rng.random_range(-3.0..-1.0));
            let (c, m) = match i % 4 {
                0 => (
                    random_in(&mut rng, lo, hi),
                    unit(&mut rng) * diag * rng.random::<f32>() * 0.5,
                ),
                // Standing still, touching or not.
                1 => (on_mesh(mesh, &mut rng) + unit(&mut rng) * r, Vec3::ZERO),
                _ => {
                    let to = on_mesh(mesh, &mut rng);
                    let c = to + unit(&mut rng) * (r + rng.random::<f32>() * 0.25 * diag);
                    (c, (to - c) * 1.5)
                }
            };
            let got = tree.sweep_sphere(c, r, m).unwrap();
            assert_eq!(
                got,
                grid.sweep_sphere(c, r, m).unwrap(),
                "{name}: {c:?} {r} {m:?}"
            );
            let want = brute_sweep(mesh, c, r, m);
            let got = got.map(|h| (h.time_of_impact, h.triangle));
            assert_eq!(
                got,
                want.map(|(toi, t)| (toi as f32, t)),
                "{name}: {c:?} {r} {m:?}"
            );
            hits += usize::from(got.is_some());
        }
    }
    assert!(hits > 20_000, "{hits} contacts");
}

/// A point far from the mesh: the BVH path answers like the grid's (the
/// far point through the exact search). A sphere moving 3.5e9 units past
/// the mesh: the same time of impact; the triangle may differ, as the
/// grid's bounding-sphere cull drops triangles whose f64 contact times,
/// rounded at that scale (a unit in the last place of |c|^2 is 512), come
/// out a few units of travel early.
#[test]
fn far_queries_through_the_bvh_are_the_grid_paths() {
    for (name, grid, tree) in scenes() {
        for p in [Vec3::splat(1e30), Vec3::new(-3e12, 1.0, 2.0), Vec3::ZERO] {
            let got = tree.closest_point(p).unwrap();
            assert_eq!(got, grid.closest_point(p).unwrap(), "{name} at {p:?}");
        }
        let (c, m) = (Vec3::splat(-1e9), Vec3::splat(2e9));
        let toi = |h: Option<crate::query::SphereContact>| h.map(|h| h.time_of_impact);
        let got = tree.sweep_sphere(c, 1.0, m).unwrap();
        let want = brute_sweep(grid.mesh(), c, 1.0, m);
        assert_eq!(got.map(|h| h.triangle), want.map(|w| w.1), "{name}");
        assert_eq!(
            toi(got),
            toi(grid.sweep_sphere(c, 1.0, m).unwrap()),
            "{name}"
        );
    }
}
