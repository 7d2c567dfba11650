//! Every query on the sample library's eleven parts that are not fully
//! manifold — wings of unwelded double-sided panels, double-sided shield
//! domes (edges shared by four), engines whose single-sided fins are
//! welded to an open nacelle (edges shared by three, open edges) — at the
//! library's public API: rays through the grid and the BVH, segments,
//! nearest points and sphere sweeps against brute force in f64 (and through
//! the BVH against the grid's answers); rays aimed at every panel seam from
//! both sides; and when `inside` has an answer.

use std::path::Path;
use std::sync::OnceLock;
use sylcol::prelude::*;

use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::format::collisionset::{self, CollisionSet};
use sylcol::format::ipfb::{Archive, EntryKey};
use sylcol::query::{Collider, Ray, RayHit};
use sylcol::report::query::inside_refusal;
use sylcol::topology::{edge_faults, topology};

/// The sample library, decoded.
fn library() -> &'static CollisionSet {
    static SET: OnceLock<CollisionSet> = OnceLock::new();
    SET.get_or_init(|| {
        let pak = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/MiscBin.pak");
        let archive = Archive::open(&pak).unwrap();
        let key = EntryKey::Name("CollisionSet_S01.bin".into());
        let entry = archive.index.find(key.hash()).expect("the library entry");
        let bytes = archive.read_entry(&archive.probe(entry).unwrap()).unwrap();
        collisionset::decode(&bytes).unwrap()
    })
}

/// A part: its name, mesh, and colliders through the derived grid and the
/// BVH.
struct Part {
    name: String,
    mesh: TriMesh,
    grid: Collider,
    bvh: Collider,
}

/// The parts with an edge not shared by exactly two triangles.
fn parts() -> &'static [Part] {
    static PARTS: OnceLock<Vec<Part>> = OnceLock::new();
    PARTS.get_or_init(|| {
        library()
            .records
            .iter()
            .map(|r| (r.name(), TriMesh::from_collision_record(r)))
            .filter(|(_, m)| !topology(&m.vertices, &m.triangles).manifold)
            .map(|(name, mesh)| Part {
                grid: Collider::from_mesh(&mesh).unwrap(),
                bvh: Collider::from_mesh(&mesh).unwrap().with_bvh(),
                name,
                mesh,
            })
            .collect()
    })
}

fn corners(mesh: &TriMesh, t: u32) -> [DVec3; 3] {
    mesh.corners(t as usize).map(|v| v.as_dvec3())
}

/// Where the line `o + t d` meets triangle `tri`'s plane, and how far
/// inside the triangle (the smallest barycentric coordinate; negative
/// outside), in f64; `None` when the line is parallel to the plane.
fn crossing(o: DVec3, d: DVec3, tri: &[DVec3; 3]) -> Option<(f64, f64)> {
    let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= 1e-12 * e1.length() * e2.length() * d.length() {
        return None;
    }
    let s = o - tri[0];
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    Some((e2.dot(q) / det, u.min(v).min(1.0 - u - v)))
}

/// The nearest point of `tri` to `p` (Ericson, Real-Time Collision
/// Detection, 5.1.5), in f64.
fn nearest_on(p: DVec3, [a, b, c]: &[DVec3; 3]) -> DVec3 {
    let (ab, ac, ap) = (*b - *a, *c - *a, p - *a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return *a;
    }
    let bp = p - *b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return *b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return *a + ab * (d1 / (d1 - d3));
    }
    let cp = p - *c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return *c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return *a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return *b + (*c - *b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    *a + ab * (vb * denom) + ac * (vc * denom)
}

/// The distance from `p` to the mesh, by brute force in f64.
fn distance(mesh: &TriMesh, p: DVec3) -> f64 {
    (0..mesh.triangles.len() as u32)
        .map(|t| (nearest_on(p, &corners(mesh, t)) - p).length())
        .fold(f64::INFINITY, f64::min)
}

/// The size of a part's box (the scale of its tolerances).
fn size(mesh: &TriMesh) -> f64 {
    let (lo, hi) = mesh.bounds().unwrap();
    f64::from((hi - lo).length())
}

/// Checks a ray's (or segment's, `max` 1) answer against every triangle
/// in f64: a hit lies on a triangle the ray crosses, no triangle is
/// crossed clearly before it, and a miss leaves no clear crossing.
fn check_hit(p: &Part, ray: &Ray, max: f64, hit: Option<RayHit>, what: &str) {
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let tol = 1e-5 * (size(&p.mesh) + o.length()) / d.length();
    let clear = (0..p.mesh.triangles.len() as u32)
        .filter_map(|t| crossing(o, d, &corners(&p.mesh, t)))
        .filter(|&(t, margin)| margin > 1e-6 && t > tol && t <= max - tol)
        .map(|(t, _)| t)
        .fold(f64::INFINITY, f64::min);
    let context = || format!("{}: {what} {ray:?}", p.name);
    let Some(h) = hit else {
        assert!(
            clear.is_infinite(),
            "{} missed a crossing at t = {clear}",
            context()
        );
        return;
    };
    let t = f64::from(h.time_of_impact);
    assert!(t > 0.0 && t <= max, "{}: t = {t}", context());
    assert!(
        t <= clear + tol,
        "{}: t = {t}, but a crossing at {clear}",
        context()
    );
    let own = crossing(o, d, &corners(&p.mesh, h.triangle));
    assert!(
        own.is_some_and(|(ot, margin)| margin > -1e-5 && (ot - t).abs() <= tol),
        "{}: triangle {} is not crossed at t = {t}: {own:?}",
        context(),
        h.triangle
    );
}

/// A random point in the part's box grown by a fifth.
fn point_near(mesh: &TriMesh, rng: &mut ChaCha8Rng) -> Vec3 {
    let (lo, hi) = mesh.bounds().unwrap();
    let pad = (hi - lo) * 0.2;
    Vec3::new(
        rng.random_range(lo.x - pad.x..=hi.x + pad.x),
        rng.random_range(lo.y - pad.y..=hi.y + pad.y),
        rng.random_range(lo.z - pad.z..=hi.z + pad.z),
    )
}

/// A random point on a random triangle.
fn point_on(mesh: &TriMesh, rng: &mut ChaCha8Rng) -> Vec3 {
    let [a, b, c] = mesh.corners(rng.random_range(0..mesh.triangles.len()));
    let (u, v): (f32, f32) = (rng.random(), rng.random());
    let (u, v) = if u + v > 1.0 {
        (1.0 - u, 1.0 - v)
    } else {
        (u, v)
    };
    a + (b - a) * u + (c - a) * v
}

#[test]
fn the_eleven_share_edges_by_three_and_four_and_only_engines_have_odd_ones() {
    let parts = parts();
    assert_eq!(parts.len(), 11);
    for p in parts {
        let t = topology(&p.mesh.vertices, &p.mesh.triangles);
        let faults = edge_faults(p.mesh.vertices.len(), &p.mesh.triangles);
        assert!(t.nonmanifold_edges > 0, "{}", p.name);
        assert!(t.winding_consistent, "{}", p.name);
        let engine = p.name.contains("_eng");
        // Wings and shields: double-sided, every edge shared by 2 or 4.
        assert_eq!(faults.odd > 0, engine, "{}", p.name);
        assert_eq!(t.boundary_edges > 0, engine, "{}", p.name);
    }
    let total = sylcol::topology::Topology::sum(
        parts
            .iter()
            .map(|p| topology(&p.mesh.vertices, &p.mesh.triangles))
            .collect::<Vec<_>>()
            .iter(),
    );
    // The seed's 2 362 edges not shared by two are all here.
    assert_eq!(total.boundary_edges + total.nonmanifold_edges, 2_362);
    assert_eq!(total.euler, 4_548 - 494);
}

#[test]
fn rays_and_segments_hit_what_brute_force_hits_through_grid_and_bvh() {
    let mut rng = ChaCha8Rng::seed_from_u64(38);
    for p in parts() {
        let (mut hits, mut misses) = (0, 0);
        for i in 0..600 {
            let origin = point_near(&p.mesh, &mut rng);
            // Two rays in three aimed at a point of the surface.
            let dir = if i % 3 == 0 {
                point_near(&p.mesh, &mut rng) - origin
            } else {
                point_on(&p.mesh, &mut rng) - origin
            };
            if dir.length() == 0.0 {
                continue;
            }
            let ray = Ray::new(origin, dir);
            let scan = p.grid.cast_ray_brute_force(&ray, f32::INFINITY).unwrap();
            let grid = p.grid.cast_ray(&ray, f32::INFINITY).unwrap();
            let bvh = p.bvh.cast_ray(&ray, f32::INFINITY).unwrap();
            assert_eq!(grid, scan, "{}: grid {ray:?}", p.name);
            assert_eq!(
                bvh.map(|h| h.time_of_impact),
                scan.map(|h| h.time_of_impact),
                "{}: bvh {ray:?}",
                p.name
            );
            check_hit(p, &ray, f64::INFINITY, grid, "ray");
            check_hit(p, &ray, f64::INFINITY, bvh, "bvh ray");
            let to = origin + dir * 0.9;
            let segment = p.grid.cast_segment(origin, to).unwrap();
            assert_eq!(
                segment.map(|h| h.time_of_impact),
                p.bvh
                    .cast_segment(origin, to)
                    .unwrap()
                    .map(|h| h.time_of_impact),
                "{}",
                p.name
            );
            check_hit(p, &Ray::new(origin, to - origin), 1.0, segment, "segment");
            if grid.is_some() {
                hits += 1;
            } else {
                misses += 1;
            }
        }
        // Both outcomes occur, so the comparison has power.
        assert!(hits > 100 && misses > 20, "{}: {hits} / {misses}", p.name);
    }
}

/// The points every ray below is aimed at: each triangle's centroid, and
/// each corner and edge midpoint inside a sheet (on no rim, and not where
/// a fin meets the nacelle), with the triangle's unit normal. Corners and
/// edges are matched by position, so the seams between unwelded panels
/// count as inside.
fn seam_targets(mesh: &TriMesh) -> Vec<(DVec3, DVec3)> {
    use std::collections::HashMap;
    let key = |v: Vec3| v.to_array().map(f32::to_bits);
    // Position edges, counted once per distinct triangle plane side: a
    // double-sided face's two windings count once.
    let mut uses: HashMap<([u32; 3], [u32; 3]), u32> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for t in &mesh.triangles {
        let mut sorted = t.map(|i| key(mesh.vertices[i as usize]));
        sorted.sort();
        if !seen.insert(sorted) {
            continue;
        }
        for k in 0..3 {
            let (a, b) = (sorted[k], sorted[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let rim: std::collections::HashSet<[u32; 3]> = uses
        .iter()
        .filter(|&(_, &n)| n != 2)
        .flat_map(|(&(a, b), _)| [a, b])
        .collect();
    let mut out = Vec::new();
    let mut aimed = std::collections::HashSet::new();
    let mut aim = |p: DVec3, n: DVec3| {
        if aimed.insert(p.as_vec3().to_array().map(f32::to_bits)) {
            out.push((p, n));
        }
    };
    for t in 0..mesh.triangles.len() as u32 {
        let c = corners(mesh, t);
        let n = (c[1] - c[0]).cross(c[2] - c[0]).normalize();
        aim((c[0] + c[1] + c[2]) / 3.0, n);
        let v = mesh.corners(t as usize);
        for k in 0..3 {
            let (a, b) = (key(v[k]), key(v[(k + 1) % 3]));
            if !rim.contains(&a) {
                aim(c[k], n);
            }
            if uses.get(&(a.min(b), a.max(b))) == Some(&2) {
                aim((c[k] + c[(k + 1) % 3]) / 2.0, n);
            }
        }
    }
    out
}

#[test]
fn double_sided_panels_are_hit_from_both_sides_and_no_seam_lets_a_ray_through() {
    for p in parts() {
        let h = 0.01 * size(&p.mesh);
        let targets = seam_targets(&p.mesh);
        for (at, n) in &targets {
            for side in [1.0, -1.0] {
                let origin = (*at + *n * (h * side)).as_vec3();
                let ray = Ray::new(origin, (*n * -side).as_vec3());
                for (c, how) in [(&p.grid, "grid"), (&p.bvh, "bvh")] {
                    let hit = c.cast_ray(&ray, f32::INFINITY).unwrap().unwrap_or_else(|| {
                        panic!(
                            "{}: {how}: the ray at {at} from side {side} escapes",
                            p.name
                        )
                    });
                    // Nothing lies nearer than the aimed-at point but
                    // another sheet of the part, and the hit lies on the
                    // triangle reported.
                    let at_hit = hit.point.as_dvec3();
                    let off = (at_hit - *at).length();
                    assert!(
                        off <= 1e-4 * size(&p.mesh) || f64::from(hit.time_of_impact) < h,
                        "{}: {how}: aimed at {at}, hit {} ({off} away)",
                        p.name,
                        hit.point
                    );
                    let on = nearest_on(at_hit, &corners(&p.mesh, hit.triangle));
                    assert!((on - at_hit).length() <= 1e-4 * size(&p.mesh), "{}", p.name);
                }
            }
        }
        assert!(targets.len() > p.mesh.triangles.len() / 2, "{}", p.name);
    }
}

#[test]
fn nearest_points_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(380);
    for p in parts() {
        for i in 0..300 {
            let q = if i % 4 == 0 {
                point_on(&p.mesh, &mut rng)
            } else {
                point_near(&p.mesh, &mut rng)
            };
            let c = p.grid.closest_point(q).unwrap().expect("a non-empty mesh");
            // The BVH's walk answers alike: point, distance, triangle.
            assert_eq!(p.bvh.closest_point(q).unwrap(), Some(c), "{}: {q}", p.name);
            let want = distance(&p.mesh, q.as_dvec3());
            let tol = 1e-5 * (size(&p.mesh) + f64::from(q.length()));
            assert!(
                (f64::from(c.distance) - want).abs() <= tol,
                "{}: closest {q}: {} against {want}",
                p.name,
                c.distance
            );
            let on = nearest_on(c.point.as_dvec3(), &corners(&p.mesh, c.triangle));
            assert!((on - c.point.as_dvec3()).length() <= tol, "{}", p.name);
        }
    }
}

#[test]
fn sphere_sweeps_touch_where_the_surface_is_one_radius_away() {
    let mut rng = ChaCha8Rng::seed_from_u64(3800);
    for p in parts() {
        let s = size(&p.mesh);
        let tol = 1e-4 * s;
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..80 {
            let centre = point_near(&p.mesh, &mut rng);
            let radius = rng.random_range(0.002..0.05) * s as f32;
            let motion = point_on(&p.mesh, &mut rng) - centre;
            let contact = p.grid.sweep_sphere(centre, radius, motion).unwrap();
            let through_bvh = p.bvh.sweep_sphere(centre, radius, motion).unwrap();
            assert_eq!(
                through_bvh, contact,
                "{}: {centre} r {radius} by {motion}",
                p.name
            );
            let (c, m) = (centre.as_dvec3(), motion.as_dvec3());
            let end = contact.map_or(1.0, |h| f64::from(h.time_of_impact));
            // Before contact the sphere is clear of the surface ...
            for k in (0..16).filter(|_| end > 0.0) {
                let t = end * f64::from(k) / 16.0;
                let d = distance(&p.mesh, c + m * t);
                assert!(
                    d >= f64::from(radius) - tol,
                    "{}: sphere {centre} r {radius} by {motion} overlaps at t = {t} ({d})",
                    p.name
                );
            }
            let Some(h) = contact else {
                misses += 1;
                continue;
            };
            hits += 1;
            // ... and at contact it touches it, at the reported point.
            let at = c + m * end;
            let d = distance(&p.mesh, at);
            assert!(
                (d - f64::from(radius)).abs() <= tol || (end == 0.0 && d <= f64::from(radius)),
                "{}: contact at t = {end}, surface {d} away, radius {radius}",
                p.name
            );
            let on = h.point.as_dvec3();
            assert!((nearest_on(on, &corners(&p.mesh, h.triangle)) - on).length() <= tol);
            assert_eq!(
                p.grid.intersects_sphere(centre, radius).unwrap(),
                end == 0.0,
                "{}",
                p.name
            );
        }
        assert!(hits > 25, "{}: {hits} hits, {misses} misses", p.name);
    }
}

#[test]
fn inside_is_answered_where_every_edge_is_shared_by_an_even_number() {
    let mut rng = ChaCha8Rng::seed_from_u64(3_800);
    for p in parts() {
        let refusal = inside_refusal(&p.grid);
        if p.name.contains("_eng") {
            // An open nozzle and single-sided fins: no answer, and why.
            let why = refusal.unwrap_or_else(|| panic!("{}: inside answered", p.name));
            assert!(why.contains("edges are used by an odd number"), "{why}");
            continue;
        }
        assert_eq!(refusal, None, "{}", p.name);
        // Double-sided faces enclose nothing: every point off the surface
        // is outside, a point on it inside.
        for _ in 0..300 {
            let q = point_near(&p.mesh, &mut rng);
            if distance(&p.mesh, q.as_dvec3()) > 1e-6 * size(&p.mesh) {
                assert!(!p.grid.contains_point(q).unwrap(), "{}: {q}", p.name);
            }
        }
        for v in p.mesh.vertices.iter().step_by(7) {
            assert!(p.grid.contains_point(*v).unwrap(), "{}: {v}", p.name);
        }
    }
    // Every closed part keeps its answer.
    for r in &library().records {
        let mesh = TriMesh::from_collision_record(r);
        if topology(&mesh.vertices, &mesh.triangles).manifold {
            let c = Collider::from_mesh(&mesh).unwrap();
            assert_eq!(inside_refusal(&c), None, "{}", r.name());
        }
    }
}
