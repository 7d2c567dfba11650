//! Every query against brute force over all triangles (and containment
//! against the winding number), on maps with their own grids and on
//! derived grids, with random and degenerate input.

use std::sync::OnceLock;

use glam::{DVec3, Vec3};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::fixtures::{cuboid, icosphere, map_collider, map_grid, merged, octahedron, uv_sphere};
use crate::geometry::closest::{closest_on_triangle, sweep_triangle};
use crate::geometry::grid::GridSpec;
use crate::index::grid::StoredGrid;
use crate::index::prep::Cast;
use crate::index::rays::Route;
use crate::*;

/// A named collider, and the same collider without the AVX2 kernels (the
/// portable path that every CPU without AVX2 takes).
struct Case {
    name: &'static str,
    collider: Collider,
    portable: Collider,
}

impl Case {
    fn new(name: &'static str, collider: Collider) -> Self {
        let portable = collider.clone().with_portable_kernels();
        Case {
            name,
            collider,
            portable,
        }
    }
}

/// The grid box used for the maps: [-8, 8]^3.
const LO: f32 = -8.0;

fn meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        ("icosphere", icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 2)),
        ("uv-sphere", uv_sphere(Vec3::ZERO, 6.0, 24, 12)),
        // Integer corners on cell faces: rays through vertices and edges.
        ("cube", cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0))),
        ("octahedron", octahedron(Vec3::ZERO, 6.0)),
        // 64 triangles: the most a mesh's own BVH takes instead of the grid.
        (
            "uv-sphere-64",
            uv_sphere(Vec3::new(0.2, 0.1, -0.3), 5.5, 8, 5),
        ),
        (
            "two-solids",
            merged(
                &cuboid(Vec3::new(-7.0, -7.0, -7.0), Vec3::new(-1.0, -1.0, -1.0)),
                &octahedron(Vec3::new(3.0, 3.0, 3.0), 4.0),
            ),
        ),
    ]
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut out = Vec::new();
        for (name, mesh) in meshes() {
            for dims in [[4u8, 4, 4], [5, 3, 7]] {
                let cell = Vec3::splat(16.0) / Vec3::from_array(dims.map(f32::from));
                let collider = map_collider(&mesh, Vec3::splat(LO), cell, dims);
                assert_eq!(collider.grid_stats().spheres_replaced, 0);
                out.push(Case::new(name, collider));
            }
            let derived = Collider::from_mesh(&mesh).expect("valid mesh");
            if name == "uv-sphere" {
                // A coarse map (528 triangles, 2 x 2 x 2 cells): crowded
                // cells, walked through their sub-grids.
                let cell = Vec3::splat(8.0);
                let collider = map_collider(&mesh, Vec3::splat(LO), cell, [2, 2, 2]);
                assert!(!collider.grid.ray_grid().sub_grids.is_empty());
                out.push(Case::new(name, collider));
            }
            out.push(Case::new(name, derived));
        }
        out
    })
}

pub(crate) fn v3() -> impl Strategy<Value = Vec3> {
    (-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Coordinates on the lattice of cell faces and vertex coordinates.
pub(crate) fn lattice() -> impl Strategy<Value = Vec3> {
    let c = || (-8i32..=8).prop_map(|i| i as f32);
    (c(), c(), c()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Axis directions and diagonals through cell corners.
pub(crate) fn lattice_dir() -> impl Strategy<Value = Vec3> {
    let c = || -1i32..=1;
    (c(), c(), c())
        .prop_filter("non-zero", |&(x, y, z)| (x, y, z) != (0, 0, 0))
        .prop_map(|(x, y, z)| Vec3::new(x as f32, y as f32, z as f32))
}

/// The first hit through the grid walk, whatever the mesh's size (the
/// `Collider` scans a small mesh instead).
fn walked(c: &Collider, ray: &Ray, max_toi: f32) -> Option<RayHit> {
    c.grid.cast_with(ray, max_toi, Cast::Ray, Route::Grid)
}

fn close(a: f32, b: f32, scale: f32) -> bool {
    (a - b).abs() <= 1e-4 * (1.0 + scale)
}

/// The grid walk (and `cast_ray`, which skips the walk for small meshes)
/// against brute force over every triangle. A ray starting on the
/// surface may or may not report a rounding-level hit at t ~ 0 there; the
/// two may differ only in that.
///
/// The portable path (no AVX2) must give the same answers bit for bit,
/// walked and cast, so that the brute-force comparison covers it on an
/// AVX2 machine too.
fn check_ray(case: &Case, ray: &Ray, max: f32) -> Result<(), TestCaseError> {
    let want = case.collider.cast_ray_brute_force(ray, max).unwrap();
    let by_walk = walked(&case.collider, ray, max);
    let cast = case.collider.cast_ray(ray, max).unwrap();
    let portable = (
        walked(&case.portable, ray, max),
        case.portable.cast_ray(ray, max).unwrap(),
    );
    prop_assert_eq!(
        portable,
        (by_walk, cast),
        "{}: {:?}: the portable path answers otherwise",
        case.name,
        ray
    );
    for got in [by_walk, cast] {
        match (got, want) {
            (None, None) => {}
            (Some(g), Some(w)) => {
                prop_assert!(
                    close(g.time_of_impact, w.time_of_impact, w.time_of_impact),
                    "{}: {ray:?}: grid {g:?} brute {w:?}",
                    case.name
                );
            }
            (Some(h), None) | (None, Some(h)) => prop_assert!(
                h.time_of_impact * ray.dir.length() < 1e-4,
                "{}: {ray:?}: grid {got:?} brute {want:?}",
                case.name
            ),
        }
    }
    Ok(())
}

/// Generalised winding number (solid angles, Van Oosterom & Strackee):
/// 1 inside an outward-wound closed mesh, 0 outside.
fn winding(mesh: &TriMesh, p: Vec3) -> f64 {
    let p = p.as_dvec3();
    let mut sum = 0.0;
    for t in 0..mesh.triangles.len() {
        let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3() - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        sum += 2.0 * num.atan2(den);
    }
    sum / (4.0 * std::f64::consts::PI)
}

fn brute_distance(mesh: &TriMesh, p: Vec3) -> f64 {
    let p = p.as_dvec3();
    (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
            closest_on_triangle(p, a, b, c).distance(p)
        })
        .fold(f64::INFINITY, f64::min)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn rays_agree_with_brute_force(o in v3(), d in v3(), max in 0.5f32..40.0) {
        prop_assume!(d.length() > 1e-3);
        for case in cases() {
            check_ray(case, &Ray::new(o, d), max)?;
            check_ray(case, &Ray::new(o * 3.0, d), f32::INFINITY)?;
        }
    }

    #[test]
    fn lattice_rays_agree_with_brute_force(o in lattice(), d in lattice_dir()) {
        for case in cases() {
            check_ray(case, &Ray::new(o, d), f32::INFINITY)?;
            // From outside the grid, back through it.
            check_ray(case, &Ray::new(o - d * 20.0, d), f32::INFINITY)?;
        }
    }

    #[test]
    fn containment_agrees_with_winding_number(p in v3()) {
        for case in cases() {
            let mesh = case.collider.mesh();
            prop_assume!(brute_distance(mesh, p) > 1e-3);
            let w = winding(mesh, p);
            prop_assert!((w - w.round()).abs() < 1e-6);
            prop_assert_eq!(case.collider.contains_point(p).unwrap(), w.round() != 0.0,
                "{} at {:?}", case.name, p);
        }
    }

    #[test]
    fn lattice_containment_is_exact(p in lattice()) {
        // Test rays run along lattice lines: through vertices and edges.
        for case in cases() {
            let mesh = case.collider.mesh();
            let on_surface = brute_distance(mesh, p) == 0.0;
            let w = winding(mesh, p);
            let want = on_surface || w.round() != 0.0;
            prop_assert_eq!(case.collider.contains_point(p).unwrap(), want,
                "{} at {:?}", case.name, p);
        }
    }

    #[test]
    fn closest_point_agrees_with_brute_force(p in v3(), far in 1.0f32..4.0) {
        for case in cases() {
            for q in [p, p * far * 3.0] {
                let got = case.collider.closest_point(q).unwrap().unwrap();
                let want = brute_distance(case.collider.mesh(), q);
                prop_assert!((f64::from(got.distance) - want).abs() <= 1e-5 * (1.0 + want),
                    "{}: {q:?} grid {got:?} brute {want}", case.name);
                prop_assert!((got.point.distance(q) - got.distance).abs() <= 1e-4);
            }
        }
    }

    #[test]
    fn spheres_agree_with_brute_force(c in v3(), m in v3(), r in 0.0f32..3.0) {
        for case in cases() {
            let mesh = case.collider.mesh();
            let got = case.collider.sweep_sphere(c, r, m).unwrap();
            let want = (0..mesh.triangles.len())
                .filter_map(|t| {
                    let tri = mesh.corners(t).map(|v| v.as_dvec3());
                    sweep_triangle(c.as_dvec3(), r.into(), m.as_dvec3(), &tri)
                })
                .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.min(t))));
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    prop_assert!((f64::from(g.time_of_impact) - w).abs() <= 1e-6);
                    let at = (c + m * g.time_of_impact).distance(g.point);
                    prop_assert!((at - r).abs() <= 1e-3 || g.time_of_impact == 0.0,
                        "{}: contact {at} from the centre, radius {r}", case.name);
                }
                _ => prop_assert!(false, "{}: grid {got:?} brute {want:?}", case.name),
            }
            let touches = brute_distance(mesh, c) <= f64::from(r);
            prop_assert_eq!(case.collider.intersects_sphere(c, r).unwrap(), touches);
        }
    }
}

#[test]
fn ray_from_inside_reports_the_exit() {
    for case in cases().iter().filter(|c| c.name == "cube") {
        let hit = case
            .collider
            .cast_ray(&Ray::new(Vec3::ZERO, Vec3::X), 100.0)
            .unwrap();
        let hit = hit.expect("leaves the cube");
        assert_eq!(hit.time_of_impact, 4.0);
        assert_eq!(hit.point, Vec3::new(4.0, 0.0, 0.0));
        assert_eq!(hit.normal, Vec3::X);
        assert!(case.collider.contains_point(Vec3::ZERO).unwrap());
        // A segment ending exactly on the wall hits it at t = 1.
        let seg = case
            .collider
            .cast_segment(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0))
            .unwrap();
        assert_eq!(seg.map(|h| h.time_of_impact), Some(1.0));
        assert!(
            !case
                .collider
                .intersects_segment(Vec3::ZERO, Vec3::ONE)
                .unwrap()
        );
    }
}

#[test]
fn surface_points_are_inside_and_at_distance_zero() {
    for case in cases().iter().filter(|c| c.name == "cube") {
        for p in [
            Vec3::new(4.0, 2.0, 6.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(-4.0, 0.5, 1.0),
        ] {
            assert!(case.collider.contains_point(p).unwrap(), "{p:?}");
            let c = case.collider.closest_point(p).unwrap().unwrap();
            assert_eq!(c.distance, 0.0);
        }
        assert!(
            !case
                .collider
                .contains_point(Vec3::new(4.5, 0.0, 0.0))
                .unwrap()
        );
    }
}

/// The ray checks (done on the bits) on edge values: each refused ray
/// gets the error of the first failing field, the others are cast.
#[test]
fn ray_checks_on_edge_values() {
    let c = &cases()[0].collider;
    let (tiny, inf, nan) = (f32::from_bits(1), f32::INFINITY, f32::NAN);
    let zero = QueryError::ZeroDirection("ray direction");
    let cases = [
        (Vec3::ZERO, Vec3::new(-0.0, 0.0, -0.0), 1.0, Err(zero)),
        (
            Vec3::new(nan, 0.0, 0.0),
            Vec3::ZERO,
            1.0,
            Err(QueryError::NonFinite("ray origin")),
        ),
        (
            Vec3::new(0.0, inf, 0.0),
            Vec3::X,
            1.0,
            Err(QueryError::NonFinite("ray origin")),
        ),
        (
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, -inf),
            1.0,
            Err(QueryError::NonFinite("ray direction")),
        ),
        (
            Vec3::ZERO,
            Vec3::new(nan, 0.0, 0.0),
            1.0,
            Err(QueryError::NonFinite("ray direction")),
        ),
        (
            Vec3::ZERO,
            Vec3::X,
            nan,
            Err(QueryError::NonFinite("max time of impact")),
        ),
        (
            Vec3::ZERO,
            Vec3::X,
            -nan,
            Err(QueryError::NonFinite("max time of impact")),
        ),
        (Vec3::ZERO, Vec3::new(0.0, tiny, 0.0), 1.0, Ok(())),
        (Vec3::splat(f32::MAX), Vec3::splat(-f32::MAX), 1.0, Ok(())),
        (Vec3::ZERO, Vec3::X, inf, Ok(())),
        (Vec3::ZERO, Vec3::X, -inf, Ok(())),
    ];
    for (o, d, max, want) in cases {
        let got = c.cast_ray(&Ray::new(o, d), max).map(|_| ());
        assert_eq!(got, want, "{o} {d} {max}");
    }
}

/// A direction scaled by a power of two hits the triangle its unit form
/// hits, at t scaled back, through every route (the grid, the BVH, brute
/// force, batches) and both kernels: also at 2^127 and more, where the
/// scale that brings a direction into range is below f32's normal range
/// (it once came out as 0, and every such ray missed). Where t itself
/// leaves f32's range the answer is an error, never an infinite t.
#[test]
fn directions_of_any_size_hit_what_their_unit_form_hits() {
    let origin = Vec3::new(0.5, 0.25, -0.125);
    let dirs = [
        Vec3::new(1.5, -0.625, 0.25),
        Vec3::new(-0.125, 1.0, 0.75),
        Vec3::new(0.5, 0.375, -1.875),
        Vec3::new(-1.0, 0.0, 0.0),
    ];
    for case in cases() {
        let bvh = case.collider.clone().with_bvh();
        for c in [&case.collider, &case.portable, &bvh] {
            for u in dirs {
                let unit = c.cast_ray(&Ray::new(origin, u), f32::INFINITY).unwrap();
                let Some(unit) = unit else { continue };
                for m in [127, 126, 100, -120] {
                    let k = 2f32.powi(m);
                    let ray = Ray::new(origin, u * k);
                    let got = c.cast_ray(&ray, f32::INFINITY).unwrap().expect("a hit");
                    assert_eq!(got.triangle, unit.triangle, "{} {u} 2^{m}", case.name);
                    assert_eq!(
                        got.time_of_impact,
                        unit.time_of_impact / k,
                        "{} {u} 2^{m}",
                        case.name
                    );
                    let brute = c.cast_ray_brute_force(&ray, f32::INFINITY).unwrap();
                    assert_eq!(brute, Some(got), "{} {u} 2^{m}", case.name);
                    assert_eq!(c.cast_rays(&[ray], f32::INFINITY).unwrap(), [Some(got)]);
                }
                // 2^-140: the exact t is past f32::MAX.
                let tiny = Ray::new(origin, u * 2f32.powi(-140));
                assert_eq!(
                    c.cast_ray(&tiny, f32::INFINITY),
                    Err(QueryError::TimeOverflow),
                    "{} {u}",
                    case.name
                );
                let batch = c.cast_rays(&[Ray::new(origin, u), tiny], f32::INFINITY);
                let e = batch.expect_err("the tiny ray is refused");
                assert_eq!((e.index, e.error), (1, QueryError::TimeOverflow));
            }
        }
        // A segment whose end minus start overflows f32.
        let (from, to) = (Vec3::new(-3e38, 0.0, 0.0), Vec3::new(3e38, 0.0, 0.0));
        assert_eq!(
            case.collider.cast_segment(from, to),
            Err(QueryError::NonFinite("segment's end minus its start"))
        );
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let c = &cases()[0].collider;
    let zero = c.cast_ray(&Ray::new(Vec3::ZERO, Vec3::ZERO), 1.0);
    assert_eq!(zero, Err(QueryError::ZeroDirection("ray direction")));
    let nan = c.cast_ray(&Ray::new(Vec3::NAN, Vec3::X), 1.0);
    assert_eq!(nan, Err(QueryError::NonFinite("ray origin")));
    assert_eq!(
        c.intersects_segment(Vec3::ONE, Vec3::ONE),
        Err(QueryError::ZeroDirection("segment"))
    );
    assert_eq!(
        c.sweep_sphere(Vec3::ZERO, -1.0, Vec3::X),
        Err(QueryError::BadRadius(-1.0))
    );
    assert!(matches!(
        c.intersects_sphere(Vec3::ZERO, f32::NAN),
        Err(QueryError::BadRadius(_))
    ));
    assert_eq!(
        c.contains_point(Vec3::INFINITY),
        Err(QueryError::NonFinite("point"))
    );
    assert_eq!(
        c.closest_point(Vec3::new(0.0, f32::NAN, 0.0)),
        Err(QueryError::NonFinite("point"))
    );
}

#[test]
fn grid_lookup_and_stats() {
    let mesh = uv_sphere(Vec3::ZERO, 6.0, 64, 33);
    let c = map_collider(&mesh, Vec3::splat(-8.0), Vec3::splat(8.0), [2, 2, 2]);
    assert_eq!(c.world_to_cell(Vec3::new(1.0, -1.0, 1.0)), Some([1, 0, 1]));
    assert_eq!(c.world_to_cell(Vec3::splat(9.0)), None);
    assert!(!c.cell_triangles([1, 0, 1]).is_empty());
    assert!(c.cell_triangles([2, 0, 0]).is_empty());
    let s = c.grid_stats();
    assert_eq!(
        (s.cells, s.occupied, s.triangles, s.unlisted),
        (8, 8, 4096, 0)
    );
    assert!(s.too_coarse());
    let fine = c.with_derived_grid(c.suggested_cells_per_axis()).unwrap();
    let fs = fine.grid_stats();
    assert!(!fs.too_coarse(), "{fs:?}");
    assert_eq!(fs.unlisted, 0);
    let ray = Ray::new(Vec3::new(-20.0, 0.1, 0.2), Vec3::X);
    let (a, b) = (
        c.cast_ray(&ray, 100.0).unwrap(),
        fine.cast_ray(&ray, 100.0).unwrap(),
    );
    assert_eq!(a, b);
}

#[test]
fn agrees_with_parry() {
    use parry3d::math::Vector;
    use parry3d::query::{Ray as PRay, RayCast};
    use rand::{Rng, SeedableRng};
    let mesh = icosphere(Vec3::ZERO, 5.0, 3);
    let c = Collider::from_mesh(&mesh).unwrap();
    let p = parry3d::shape::TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone()).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut hits = 0;
    for _ in 0..2000 {
        let o = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-12.0..12.0)));
        let t = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-5.0..5.0)));
        let ray = Ray::new(o, t - o);
        let ours = c
            .cast_ray(&ray, f32::INFINITY)
            .unwrap()
            .map(|h| h.time_of_impact);
        let pr = PRay::new(Vector::from(o), Vector::from(t - o));
        let theirs = p.cast_local_ray(&pr, f32::MAX, false);
        match (ours, theirs) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-4, "{a} vs {b}"),
            (None, None) => {}
            other => panic!("{ray:?}: {other:?}"),
        }
        hits += usize::from(ours.is_some());
    }
    assert!(hits > 500);
    let _ = DVec3::ZERO;
}

/// Each MCOL map of `samples/MiscBin.pak`, named by its entry's hash, as
/// [`mcol_collider`] reads it.
pub(crate) fn sample_map_colliders() -> Vec<(String, Collider)> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive =
        sylcol_format::ipfb::Archive::open(std::path::Path::new(pak)).expect("sample archive");
    archive
        .read_with_magic("MCOL")
        .map(|object| {
            let (info, bytes) = object.expect("sample entry");
            let m = sylcol_format::mcol::decode(&bytes).expect("sample map");
            (format!("{:08x}", info.entry.hash), mcol_collider(&m))
        })
        .collect()
}

/// A collider over an MCOL map, for the tests on the hand-made fixtures
/// and the sample maps: its mesh, grid, lists (`Mcol::cell_lists`) and
/// spheres as the file stores them (sylcol's `Collider::from_mcol` reads
/// them so too, checking every link on the way).
pub(crate) fn mcol_collider(m: &sylcol_format::mcol::Mcol) -> Collider {
    let h = &m.header.prefix;
    let vertices = m.vertices.iter().map(|&v| Vec3::from_array(v)).collect();
    let triangles = m.triangles.iter().map(|t| t.map(u32::from)).collect();
    let (mut starts, mut items) = (vec![0u32], Vec::new());
    for cell in 0..m.cells.len() {
        items.extend(m.cell_lists(cell).flatten().map(|&t| u32::from(t)));
        starts.push(items.len() as u32);
    }
    let spec = GridSpec {
        origin: DVec3::from_array(h.bbox_min.map(f64::from)),
        cell: DVec3::from_array(h.cell_size.map(f64::from)),
        dims: m.header.dims(),
    };
    let grid = StoredGrid {
        spec,
        starts,
        items,
        spheres: m.spheres.clone(),
    };
    Collider::from_stored_grid(TriMesh::new(vertices, triangles), grid).expect("a queryable map")
}

/// The hand-made fixture maps (written by an independent script).
fn fixture_maps() -> &'static [Case] {
    static MAPS: OnceLock<Vec<Case>> = OnceLock::new();
    MAPS.get_or_init(|| {
        let files: [(&str, &[u8]); 3] = [
            (
                "box.mcol",
                include_bytes!("../../../tests/fixtures/box.mcol"),
            ),
            (
                "twin.mcol",
                include_bytes!("../../../tests/fixtures/twin.mcol"),
            ),
            (
                "quirks.mcol",
                include_bytes!("../../../tests/fixtures/quirks.mcol"),
            ),
        ];
        files
            .iter()
            .map(|(name, bytes)| {
                let m = sylcol_format::mcol::decode(bytes).expect("fixture decodes");
                let collider = mcol_collider(&m);
                let s = collider.grid_stats();
                assert_eq!((s.unlisted, s.spheres_replaced), (0, 0), "{name}");
                assert_eq!(collider.missing_entries(), vec![], "{name}");
                Case::new(name, collider)
            })
            .collect()
    })
}

/// A point in the fixtures' frame, scaled from the unit lattice so that
/// some coordinates land on vertices, edges and cell faces.
fn fixture_point() -> impl Strategy<Value = Vec3> {
    prop_oneof![
        v3().prop_map(|p| p * 30_000.0),
        lattice().prop_map(|p| p * 5_000.0),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fixture_maps_agree_with_brute_force(o in fixture_point(), d in lattice_dir(), e in v3()) {
        for case in fixture_maps() {
            let mesh = case.collider.mesh();
            for dir in [d, e] {
                prop_assume!(dir.length() > 1e-3);
                check_ray(case, &Ray::new(o, dir), f32::INFINITY)?;
            }
            let on_surface = brute_distance(mesh, o) == 0.0;
            let want = on_surface || winding(mesh, o).round() != 0.0;
            prop_assert_eq!(case.collider.contains_point(o).unwrap(), want, "{} {:?}", case.name, o);
            let got = case.collider.closest_point(o).unwrap().unwrap();
            let want = brute_distance(mesh, o);
            prop_assert!((f64::from(got.distance) - want).abs() <= 1e-6 * (1.0 + want));
        }
    }
}

#[test]
fn an_empty_mesh_answers_nothing() {
    let c = Collider::from_mesh(&TriMesh::default()).unwrap();
    let p = Vec3::new(1.0, 2.0, 3.0);
    assert_eq!(c.cast_ray(&Ray::new(p, Vec3::X), f32::INFINITY), Ok(None));
    assert_eq!(c.contains_point(p), Ok(false));
    assert_eq!(c.closest_point(p), Ok(None));
    assert_eq!(c.sweep_sphere(p, 1.0, Vec3::X), Ok(None));
    assert_eq!(c.intersects_sphere(Vec3::ZERO, 1.0), Ok(false));
    assert_eq!(c.grid_stats().triangles, 0);
}

/// Rays running exactly in an interior cell-face plane of a file grid
/// whose lists have no margin, from inside and from 20 units outside,
/// answer as brute force does. (With the former barycentric tolerance, a
/// 40 x 24 UV sphere on a 4 x 4 x 4 map had rays accepted only by a
/// triangle listed across the face, and the walk had to visit both sides;
/// an exact crossing lies in the plane, so its triangle is listed on both.)
#[test]
fn rays_in_cell_face_planes_see_both_sides() {
    let mesh = uv_sphere(Vec3::ZERO, 6.0, 40, 24);
    let c = map_collider(&mesh, Vec3::splat(LO), Vec3::splat(4.0), [4, 4, 4]);
    let case = Case::new("uv-sphere 40x24", c);
    let mut failures = Vec::new();
    for k in 0..3 {
        for face in [-4.0, 0.0, 4.0] {
            for a in (-8..=8).step_by(2) {
                for b in (-8..=8).step_by(2) {
                    let mut o = Vec3::ZERO;
                    o[k] = face;
                    o[(k + 1) % 3] = a as f32;
                    o[(k + 2) % 3] = b as f32;
                    for (p, q) in [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, -1.0)] {
                        let mut d = Vec3::ZERO;
                        d[(k + 1) % 3] = p;
                        d[(k + 2) % 3] = q;
                        for dir in [d, -d] {
                            for ray in [Ray::new(o, dir), Ray::new(o - dir * 20.0, dir)] {
                                if check_ray(&case, &ray, f32::INFINITY).is_err() {
                                    failures.push(ray);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} rays disagree, e.g. {:?}",
        failures.len(),
        failures.first()
    );
}

/// A file whose lists name a triangle twice in one cell: `cell_triangles`
/// shows the list as stored, and rays still agree with brute force (the
/// ray packets hold each triangle of a cell once).
#[test]
fn repeated_list_entries_are_tested_once() {
    let mesh = icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 2);
    let case = doubled_lists("repeated entries", &mesh, 4.0, 4);
    let c = &case.collider;
    let listed = (0..64).find(|&i| !c.grid.list(i).is_empty()).unwrap();
    let list = c.grid.list(listed);
    assert_eq!(list[..list.len() / 2], list[list.len() / 2..]);
    let unique: std::collections::BTreeSet<u32> = list.iter().copied().collect();
    let lanes: usize = c
        .grid
        .cell_packets(listed)
        .iter()
        .map(|p| {
            p.ids
                .iter()
                .filter(|&&t| (t as usize) < c.triangle_count())
                .count()
        })
        .sum();
    assert_eq!(lanes, unique.len());
    // The same over a coarse map whose doubled lists are crowded (walked
    // through sub-grids built from the lists without repeats).
    let sphere = uv_sphere(Vec3::ZERO, 6.0, 24, 12);
    let crowded = doubled_lists("repeated entries, crowded", &sphere, 8.0, 2);
    assert!(!crowded.collider.grid.ray_grid().sub_grids.is_empty());
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for _ in 0..2000 {
        let o = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-9.0..9.0)));
        let d = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
        if d != Vec3::ZERO {
            check_ray(&case, &Ray::new(o, d), f32::INFINITY).unwrap();
            check_ray(&crowded, &Ray::new(o, d), f32::INFINITY).unwrap();
        }
    }
}

/// A map of `mesh` over `n`^3 cubic cells of side `cell` from [`LO`] whose
/// every list names each of its triangles twice.
fn doubled_lists(name: &'static str, mesh: &TriMesh, cell: f32, n: u8) -> Case {
    let map = map_grid(mesh, Vec3::splat(LO), Vec3::splat(cell), [n; 3]);
    let (mut starts, mut items) = (vec![0u32], Vec::new());
    for w in map.starts.windows(2) {
        let list = &map.items[w[0] as usize..w[1] as usize];
        items.extend_from_slice(list);
        items.extend_from_slice(list);
        starts.push(items.len() as u32);
    }
    let doubled = StoredGrid {
        starts,
        items,
        ..map
    };
    Case::new(
        name,
        Collider::from_stored_grid(mesh.clone(), doubled).unwrap(),
    )
}

/// A segment ending on a vertex just past a cell face: its f32 direction
/// rounds the end onto the face (x = 0 instead of 0.00019), so a walk
/// along it stopped short of the cell listing the triangles at the end.
/// The walk follows the exact direction.
#[test]
fn a_segment_ending_past_a_cell_face_reaches_that_cell() {
    let mesh = uv_sphere(Vec3::ZERO, 20_000.0, 32, 17);
    let c = map_collider(&mesh, Vec3::splat(-20_000.0), Vec3::splat(5_000.0), [8; 3]);
    let a = Vec3::new(-11490.037, 7326.3555, 3915.668);
    let b = Vec3::new(0.000_190_325_21, -15960.346, 12052.692);
    assert_eq!(mesh.corners(369)[0], b);
    let hit = c
        .cast_segment(a, b)
        .unwrap()
        .expect("the end is on the surface");
    assert_eq!((hit.triangle, hit.time_of_impact), (369, 1.0));
}
