//! Segments, containment and moving spheres against the reference, on the
//! same meshes and grids as the rays.

use glam::{DVec3, Vec3};
use parry3d::partitioning::TraversalAction;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;

use super::reference::{RefRay, Reference, slab};
use super::scenes::{self, Scene, TWINS_EVERY, unit};
use super::{judge, parallel};

/// Segments, points and spheres per mesh, as a fraction of the rays.
fn count(div: u64) -> u64 {
    super::rays_per_mesh() / div
}

/// A point near the surface: on a triangle, beside an edge or a vertex,
/// off by 0 to 10^-1 of the mesh's size (many within rounding of it), or
/// anywhere in the box.
fn near_surface(mesh: &TriMesh, (lo, hi): (Vec3, Vec3), rng: &mut ChaCha8Rng) -> Vec3 {
    let size = (hi - lo).max_element();
    let c = mesh.corners(rng.random_range(0..mesh.triangles.len()));
    let (mut a, mut b) = (rng.random::<f32>(), rng.random::<f32>());
    if a + b > 1.0 {
        (a, b) = (1.0 - a, 1.0 - b);
    }
    let base = match rng.random_range(0..5) {
        0 => return lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random())),
        1 => c[0] + (c[1] - c[0]) * a + (c[2] - c[0]) * b,
        2 => c[0].lerp(c[1], a),
        3 => return c[rng.random_range(0..3)],
        _ => c[rng.random_range(0..3)],
    };
    let off = if rng.random_range(0..4) == 0 {
        0.0
    } else {
        size * 10f32.powf(rng.random_range(-9.0..-1.0))
    };
    base + unit(rng) * off
}

/// Segments, including ones ending exactly at vertices, at points of
/// edges and faces, and ones crossing edges: `cast_segment` gives the
/// exact first crossing with t in (0, 1] (an end point on the surface is
/// hit) and `intersects_segment` agrees.
fn check_segments(scenes: &[Scene]) {
    for (k, s) in scenes.iter().enumerate() {
        let tally = parallel(count(4), |i, tally| {
            let (kind, a, d) = scenes::ray(&s.mesh, s.reference.bounds, 0x5e9 + k as u64, i);
            let mut rng = ChaCha8Rng::seed_from_u64(i ^ 0xabc);
            let b = if i % 2 == 0 {
                a + d * rng.random_range(0.5f32..1.5)
            } else {
                near_surface(&s.mesh, s.reference.bounds, &mut rng)
            };
            if a == b {
                return;
            }
            let r = RefRay::segment(a, b);
            let want = s.reference.first(&r).nearest;
            tally.count(format!("{kind:?}"));
            if want.is_some_and(|w| w.2) {
                tally.count("nearest touched at an edge or vertex exactly");
            }
            for ((grid, c), twins) in s.colliders.iter().zip(&s.twins) {
                let got = c.cast_segment(a, b).expect("valid");
                let at = || format!("{} ({grid}) segment {a:?} -> {b:?}", s.name);
                for (path, twin) in twins {
                    if !i.is_multiple_of(TWINS_EVERY) {
                        break;
                    }
                    tally.count(format!("segments through the {path} kernels"));
                    if twin.cast_segment(a, b) != Ok(got) {
                        tally.fail(format!("{}: the {path} kernels answer otherwise", at()));
                    }
                }
                if c.intersects_segment(a, b).expect("valid") != got.is_some() {
                    tally.fail(format!(
                        "{}: intersects_segment disagrees with cast_segment",
                        at()
                    ));
                }
                if let Some(h) = got
                    && !(h.time_of_impact > 0.0 && h.time_of_impact <= 1.0)
                {
                    tally.fail(format!("{}: t {} outside (0, 1]", at(), h.time_of_impact));
                }
                let got = got.map(|h| (h.triangle, h.time_of_impact));
                if let Err(e) = judge(s, &r, a, b - a, got, want) {
                    tally.fail(format!("{}: {e}", at()));
                }
            }
        });
        tally.finish(&format!("segments, {} ({})", s.name, scenes::paths_note()));
    }
}

/// `contains_point` at points on, within rounding of, and near faces,
/// edges and vertices: exactly the reference's parity (a point on the
/// surface is inside), so a point strictly inside stays inside.
fn check_inside(scenes: &[Scene]) {
    for (k, s) in scenes.iter().enumerate() {
        let tally = parallel(count(5), |i, tally| {
            let mut rng = ChaCha8Rng::seed_from_u64((k as u64) << 40 ^ i);
            let p = near_surface(&s.mesh, s.reference.bounds, &mut rng);
            let on = s.reference.on_surface(p);
            let want = on
                || match (0..4).find_map(|_| s.reference.parity(p, unit(&mut rng))) {
                    Some(odd) => odd,
                    None => {
                        tally.count("skipped (no exact test ray)");
                        return;
                    }
                };
            tally.count(if on {
                "on the surface"
            } else if want {
                "inside"
            } else {
                "outside"
            });
            for (grid, c) in &s.colliders {
                if c.contains_point(p).expect("valid") != want {
                    tally.fail(format!(
                        "{} ({grid}): contains_point({p:?}) should be {want}",
                        s.name
                    ));
                }
            }
        });
        tally.finish(&format!("inside, {}", s.name));
    }
}

/// The distance from segment pq to the mesh (f64), with candidates from
/// the reference's BVH within `reach`.
fn segment_distance(reference: &Reference, p: DVec3, q: DVec3, reach: f64) -> f64 {
    let mut best = f64::INFINITY;
    reference.near_segment(p, q, reach, |t| {
        best = best.min(segment_triangle(p, q, &reference.tris[t]));
    });
    best
}

impl Reference {
    /// Calls `each` with every triangle whose box, widened by `reach`,
    /// meets segment pq.
    fn near_segment(&self, p: DVec3, q: DVec3, reach: f64, mut each: impl FnMut(usize)) {
        self.bvh().traverse(|node| {
            let bb = node.aabb();
            let (lo, hi) = (
                DVec3::new(bb.mins.x.into(), bb.mins.y.into(), bb.mins.z.into()),
                DVec3::new(bb.maxs.x.into(), bb.maxs.y.into(), bb.maxs.z.into()),
            );
            if !slab(p, q - p, lo - reach, hi + reach, 1.0) {
                return TraversalAction::Prune;
            }
            if let Some(leaf) = node.leaf_data() {
                each(leaf as usize);
            }
            TraversalAction::Continue
        });
    }
}

/// Distance from segment pq to a triangle (Ericson, Real-Time Collision
/// Detection: the segment's crossing, its ends against the triangle, the
/// triangle's edges against it).
fn segment_triangle(p: DVec3, q: DVec3, [a, b, c]: &[DVec3; 3]) -> f64 {
    let n = (*b - *a).cross(*c - *a);
    let (sp, sq) = (n.dot(p - *a), n.dot(q - *a));
    if sp * sq <= 0.0 && sp != sq {
        let x = p + (q - p) * (sp / (sp - sq));
        let inside = [(*a, *b), (*b, *c), (*c, *a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(x - u).dot(n) >= 0.0);
        if inside {
            return 0.0;
        }
    }
    let ends = point_triangle(p, *a, *b, *c).min(point_triangle(q, *a, *b, *c));
    [(*a, *b), (*b, *c), (*c, *a)]
        .iter()
        .map(|&(u, v)| segment_segment(p, q, u, v))
        .fold(ends, f64::min)
}

/// Distance from a point to a triangle.
fn point_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let n = ab.cross(ac);
    if n.length_squared() > 0.0 {
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(p - u).dot(n) >= 0.0);
        if inside {
            return (ap.dot(n) / n.length()).abs();
        }
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| segment_segment(p, p, u, v))
        .fold(f64::INFINITY, f64::min)
}

/// Distance between segments p1q1 and p2q2 (Ericson 5.1.9).
fn segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a <= 1e-300 && e <= 1e-300 {
        (0.0, 0.0)
    } else if a <= 1e-300 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= 1e-300 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p1 + d1 * s).distance(p2 + d2 * t)
}

/// Moving spheres aimed at edges, vertices and faces, grazing faces, and
/// leaving solids: a contact is reported exactly when the centre's path
/// comes within the radius of the surface (outside a band of 1e-9 of the
/// scale, where either answer is right), the contact is at distance r
/// (within 1e-6 of the scale) and nothing is touched before it.
fn check_sweeps(scenes: &[Scene]) {
    for (k, s) in scenes.iter().enumerate() {
        let (lo, hi) = s.reference.bounds;
        let size = f64::from((hi - lo).max_element());
        let tally = parallel(count(20), |i, tally| {
            let (kind, o, d) = scenes::ray(&s.mesh, s.reference.bounds, 0x5a + k as u64, i);
            let mut rng = ChaCha8Rng::seed_from_u64(i ^ 0x77);
            let radius = (size * 10f64.powf(rng.random_range(-4.0..-1.5))) as f32;
            let motion = if d.length() > 0.0 {
                d.normalize() * (size as f32) * rng.random_range(0.1f32..1.5)
            } else {
                return;
            };
            let (c, m, r) = (o.as_dvec3(), motion.as_dvec3(), f64::from(radius));
            let scale = size + c.length() + m.length();
            let dmin = segment_distance(&s.reference, c, c + m, r * 1.01 + 1e-9 * scale);
            let band = 1e-9 * scale;
            if (dmin - r).abs() <= band {
                tally.count("within the band");
                return;
            }
            tally.count(format!("{kind:?}"));
            let want = dmin < r;
            for (grid, col) in &s.colliders {
                let got = col.sweep_sphere(o, radius, motion).expect("valid");
                let at = || {
                    format!(
                        "{} ({grid}) sphere {o:?} r {radius} motion {motion:?}",
                        s.name
                    )
                };
                match got {
                    None if want => {
                        tally.fail(format!("{}: passes; path comes within {dmin}", at()))
                    }
                    Some(_) if !want => {
                        tally.fail(format!("{}: contact; path stays {dmin} away", at()))
                    }
                    None => {}
                    Some(h) => {
                        let t = f64::from(h.time_of_impact);
                        let tol = 1e-6 * scale;
                        let at_t = segment_distance(&s.reference, c + m * t, c + m * t, r + tol);
                        if (t > 0.0 && (at_t - r).abs() > tol) || (t == 0.0 && at_t > r + tol) {
                            tally.fail(format!("{}: at t {t} the centre is {at_t} away", at()));
                        }
                        let before = segment_distance(&s.reference, c, c + m * t, r);
                        if t > 0.0 && before < r - tol {
                            tally
                                .fail(format!("{}: the path before t {t} comes to {before}", at()));
                        }
                    }
                }
            }
        });
        tally.finish(&format!("spheres, {}", s.name));
    }
}

#[test]
fn segments_are_exact() {
    let mut all = scenes::sample_maps();
    all.extend(scenes::spheres());
    check_segments(&all);
}

#[test]
fn containment_is_exact() {
    let mut all = scenes::sample_maps();
    all.extend(scenes::spheres());
    check_inside(&all);
}

#[test]
fn sweeps_are_watertight() {
    let mut all = scenes::sample_maps();
    all.extend(scenes::spheres());
    check_sweeps(&all);
}
