//! The inside index and the closest-point search against the answers
//! they replace (the grid's own: the parity walk through its lists, the
//! ring search through every cell) on the eleven sample maps, the fixture maps and built
//! meshes: random points, points on the mesh's vertices, edges and faces,
//! on the faces of both grids' cells, and in empty regions inside and
//! outside the hull.

use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Collider;
use crate::fixtures::{cuboid, icosphere, map_collider, merged, octahedron};
use crate::geometry::grid::GridSpec;
use crate::query::PointQuery;
use crate::tests::{mcol_collider, sample_map_colliders};

/// The sample maps of `samples/MiscBin.pak`, the fixture maps, and a few
/// built meshes over maps and derived grids.
fn colliders() -> Vec<(String, Collider)> {
    let mut out = sample_map_colliders();
    assert_eq!(out.len(), 11, "the eleven sample maps");
    let fixtures: [(&str, &[u8]); 2] = [
        (
            "box.mcol",
            include_bytes!("../../../../tests/fixtures/box.mcol"),
        ),
        (
            "twin.mcol",
            include_bytes!("../../../../tests/fixtures/twin.mcol"),
        ),
    ];
    for (name, bytes) in fixtures {
        let m = sylcol_format::mcol::decode(bytes).expect("fixture");
        out.push((name.to_string(), mcol_collider(&m)));
    }
    let meshes = [
        ("icosphere", icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 2)),
        ("cube", cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0))),
        (
            "two-solids",
            merged(
                &cuboid(Vec3::splat(-7.0), Vec3::splat(-1.0)),
                &octahedron(Vec3::splat(3.0), 4.0),
            ),
        ),
    ];
    for (name, mesh) in meshes {
        let map = map_collider(&mesh, Vec3::splat(-8.0), Vec3::splat(4.0), [4; 3]);
        out.push((format!("{name} map"), map));
        out.push((
            format!("{name} derived"),
            Collider::from_mesh(&mesh).unwrap(),
        ));
    }
    out
}

/// Points on a grid's cell faces: random points with one, two or three
/// coordinates moved onto the nearest face.
fn on_cell_faces(spec: &GridSpec, rng: &mut ChaCha8Rng, lo: Vec3, hi: Vec3, n: usize) -> Vec<Vec3> {
    (0..n)
        .map(|i| {
            let mut p = random_in(rng, lo, hi);
            for k in 0..3 {
                if i % 3 >= k || rng.random_bool(0.3) {
                    let cell = ((f64::from(p[k]) - spec.origin[k]) / spec.cell[k]).round();
                    p[k] = (spec.origin[k] + cell * spec.cell[k]) as f32;
                }
            }
            p
        })
        .collect()
}

fn random_in(rng: &mut ChaCha8Rng, lo: Vec3, hi: Vec3) -> Vec3 {
    lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random::<f32>()))
}

/// The mesh's vertices, edge points (ends and midpoints of every edge,
/// with random points along them), face centroids, and points a hair off
/// each vertex.
fn on_mesh(c: &Collider, rng: &mut ChaCha8Rng) -> Vec<Vec3> {
    let mesh = c.mesh();
    let mut out = mesh.vertices.clone();
    for t in 0..mesh.triangles.len() {
        let [a, b, d] = mesh.corners(t);
        out.push((a + b + d) / 3.0);
        for (x, y) in [(a, b), (b, d), (d, a)] {
            out.push((x + y) * 0.5);
            out.push(x.lerp(y, rng.random::<f32>()));
        }
        let nudge = (b - a).length().max(1e-3) * 1e-4;
        for _ in 0..2 {
            let dir = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
            out.push(a + dir * nudge);
        }
    }
    out
}

/// The box the tests draw points from: the grid's box and a margin.
fn test_box(c: &Collider) -> (Vec3, Vec3) {
    let b = c.grid().bounds();
    let pad = (b.max - b.min) * 0.05;
    ((b.min - pad).as_vec3(), (b.max + pad).as_vec3())
}

#[test]
fn the_inside_index_answers_like_the_parity_walk() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (mut inside, mut outside) = (0, 0);
    for (name, c) in colliders() {
        let (lo, hi) = test_box(&c);
        let mut points: Vec<Vec3> = (0..20_000).map(|_| random_in(&mut rng, lo, hi)).collect();
        points.extend(on_cell_faces(c.grid(), &mut rng, lo, hi, 3_000));
        points.extend(on_mesh(&c, &mut rng));
        // Probe the index's own cell faces too.
        let index = c.inside_index();
        points.extend(on_cell_faces(&index.spec, &mut rng, lo, hi, 3_000));
        for p in points {
            let want = c.grid.contains_point(p).unwrap();
            assert_eq!(c.contains_point(p).unwrap(), want, "{name} at {p:?}");
            if want {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        let batch: Vec<Vec3> = (0..2_000).map(|_| random_in(&mut rng, lo, hi)).collect();
        let many = c.inside_many(&batch).unwrap();
        for (p, got) in batch.iter().zip(many) {
            assert_eq!(
                got,
                c.grid.contains_point(*p).unwrap(),
                "{name} batch at {p:?}"
            );
        }
    }
    assert!(inside > 10_000 && outside > 10_000, "{inside} / {outside}");
}

/// Points at the centres of the index's empty cells, classified inside
/// and outside, are answered by lookup; both kinds occur on the samples.
#[test]
fn empty_regions_inside_and_outside_are_classified() {
    let mut classes = [0usize; 2];
    for (name, c) in colliders() {
        let index = c.inside_index();
        for i in 0..index.spec.cell_count() {
            let Some(inside) = index.class_of(i) else {
                continue;
            };
            let b = index.spec.cell_box(i);
            let centre = ((b.min + b.max) * 0.5).as_vec3();
            if c.grid().cell_of_point(centre.as_dvec3()).is_none() {
                continue;
            }
            assert_eq!(
                c.grid.contains_point(centre).unwrap(),
                inside,
                "{name} cell {i}"
            );
            classes[usize::from(inside)] += 1;
        }
    }
    assert!(classes[0] > 1000 && classes[1] > 1000, "{classes:?}");
}

#[test]
fn closest_answers_like_the_ring_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for (name, c) in colliders() {
        let (lo, hi) = test_box(&c);
        let far = (hi - lo) * 2.0;
        let mut points: Vec<Vec3> = (0..5_000).map(|_| random_in(&mut rng, lo, hi)).collect();
        points.extend((0..200).map(|_| random_in(&mut rng, lo - far, hi + far)));
        points.extend(on_cell_faces(c.grid(), &mut rng, lo, hi, 1_000));
        points.extend(on_mesh(&c, &mut rng).into_iter().step_by(3));
        for &p in &points {
            let want = c.grid.closest_point(p).unwrap();
            assert_eq!(c.closest_point(p).unwrap(), want, "{name} at {p:?}");
        }
        let many = c.closest_many(&points[..2_000]).unwrap();
        for (p, got) in points.iter().zip(many) {
            assert_eq!(
                got,
                c.grid.closest_point(*p).unwrap(),
                "{name} batch at {p:?}"
            );
        }
        let _ = DVec3::ZERO;
    }
}
