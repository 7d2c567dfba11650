//! The BVH: its structure (validated), its box test (never loses a box the
//! ray touches), and its rays and segments against brute force and the
//! grid, with both kernels.

use std::sync::OnceLock;

use glam::Vec3;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::shape::MEDIAN_DEPTH;
use super::tree::{Bvh, BvhSah};
use crate::fixtures::{cuboid, icosphere, merged, octahedron, uv_sphere};
use crate::geometry::mesh::TriMesh;
use crate::index::prep::direction_scale;
use crate::index::rays::Route;
use crate::kernels::cpu::{avx2_if_tested, kernels_tested};
use crate::kernels::dispatch::{Kernels, Task};
use crate::kernels::kernel::Portable;
use crate::kernels::node::{Aabb, LEAF, Node, WIDTH};
use crate::kernels::packet::NO_TRIANGLE;
use crate::kernels::ray_triangle::{Cast, RayFrame};
use crate::kernels::slab::{BoxKernel, BoxRay};
use crate::tests::{lattice, lattice_dir, v3};
use crate::{Collider, Ray, RayHit};

fn meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        ("icosphere", icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 3)),
        ("uv-sphere", uv_sphere(Vec3::ZERO, 6.0, 24, 12)),
        // Integer corners: lattice rays through vertices and edges.
        ("cube", cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0))),
        ("octahedron", octahedron(Vec3::ZERO, 6.0)),
        (
            "two-solids",
            merged(
                &cuboid(Vec3::new(-7.0, -7.0, -7.0), Vec3::new(-1.0, -1.0, -1.0)),
                &icosphere(Vec3::new(3.0, 3.0, 3.0), 4.0, 2),
            ),
        ),
    ]
}

/// (name, collider with the BVH); the BVH serves even the small meshes
/// (for which `with_bvh` builds none) through `walk_bvh`.
fn cases() -> &'static [(&'static str, Collider)] {
    static CASES: OnceLock<Vec<(&'static str, Collider)>> = OnceLock::new();
    CASES.get_or_init(|| {
        meshes()
            .into_iter()
            .map(|(name, m)| {
                let mut c = Collider::from_mesh(&m).unwrap().with_bvh();
                if c.bvh().is_none() {
                    c.bvh = Some(Bvh::build(c.mesh()));
                }
                // Where the build found AVX2, its half of the checks runs.
                assert_eq!(c.uses_avx2(), avx2_if_tested().is_some());
                (name, c)
            })
            .collect()
    })
}

/// Without `with_bvh`, a mesh of one or two packets scans them, one of
/// 17-64 triangles walks a BVH of its own (built on the first ray), a
/// larger one walks the grid. `with_bvh` builds no BVH for a mesh of at
/// most `BVH_MIN_TRIANGLES` triangles (two packets) and one above, also
/// where the grid path scans every packet (at most `SMALL_MESH`); its
/// tree goes first. Each answers as the brute force does.
#[test]
fn small_meshes_route_past_the_grid() {
    let meshes = [
        (cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0)), "scan"), // 12
        (uv_sphere(Vec3::ZERO, 6.0, 4, 3), "scan"),                    // 16
        (uv_sphere(Vec3::ZERO, 6.0, 5, 3), "tree"),                    // 20
        (uv_sphere(Vec3::ZERO, 6.0, 8, 5), "tree"),                    // 64
        (uv_sphere(Vec3::ZERO, 6.0, 9, 5), "grid"),                    // 72
    ];
    let name = |r: Route<'_>| match r {
        Route::Scan(_) => "scan",
        Route::Tree(_) => "tree",
        Route::Grid => "grid",
    };
    for (m, want) in meshes {
        let c = Collider::from_mesh(&m).unwrap();
        assert_eq!(name(c.route()), want, "{} triangles", m.triangles.len());
        let own = c.clone().with_bvh();
        if want == "tree" {
            // `with_bvh` after a first ray takes the tree that ray built
            // instead of building a second one.
            let first_ray_tree = c.small_bvh().stats();
            let moved = c.clone().with_bvh();
            assert!(moved.small_bvh.get().is_none());
            assert_eq!(moved.bvh().map(Bvh::stats), Some(first_ray_tree));
        }
        let (n, gets_bvh) = (m.triangles.len(), want != "scan");
        assert_eq!(own.bvh().is_some(), gets_bvh, "{n} triangles");
        assert_eq!(name(own.route()), if gets_bvh { "tree" } else { "scan" });
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..300 {
            let o = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-9.0..9.0)));
            let d = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
            let ray = Ray::new(o, d);
            let want = c.cast_ray_brute_force(&ray, 30.0).unwrap();
            assert_eq!(c.cast_ray(&ray, 30.0).unwrap(), want);
            assert_eq!(own.cast_ray(&ray, 30.0).unwrap(), want);
        }
    }
}

impl Collider {
    /// The ray through the BVH whatever the mesh's size, with `kernels`:
    /// (t, triangle).
    fn walk_bvh(&self, ray: &Ray, max: f32, kernels: Kernels) -> Option<(f32, u32)> {
        let scale = direction_scale(ray.dir);
        let (dir, max) = (ray.dir * scale, max / scale);
        let cast = Cast::Ray {
            o: ray.origin,
            d: dir,
            limit: max,
        };
        let frame = RayFrame::new(ray.origin, dir, max, &cast, self.grid.surface.bounds);
        let boxes = BoxRay::new(ray.origin, dir);
        let bvh = self.bvh().expect("a BVH");
        let (t, id) = bvh.first_hit(&frame, &boxes, max, kernels);
        (id != NO_TRIANGLE).then_some((t * scale, id))
    }
}

/// Many triangles in a few places and one line of triangles spaced
/// geometrically: the SAH cannot separate the first (median splits) and
/// splits the second one off at a time (the depth bound).
fn awkward_meshes() -> Vec<TriMesh> {
    let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let same = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]; 1000]);
    let mut v = Vec::new();
    let mut t = Vec::new();
    for i in 0..400u32 {
        let x = 1.05f32.powi(i as i32);
        v.extend([
            Vec3::new(x, 0.0, 0.0),
            Vec3::new(x, 1.0, 0.0),
            Vec3::new(x, 0.0, 1.0),
        ]);
        t.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    let line = TriMesh::new(v, t);
    let empty = TriMesh::new(Vec::new(), Vec::new());
    let one = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]);
    let nine = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]; 9]);
    vec![same, line, empty, one, nine]
}

#[test]
fn every_bvh_validates() {
    for (name, c) in cases() {
        let bvh = c.bvh().expect("cases() gives every collider a BVH");
        bvh.validate(c.mesh())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = bvh.stats();
        assert_eq!(s.triangles, c.mesh().triangles.len(), "{name}");
        assert!(s.packets >= c.mesh().triangles.len().div_ceil(8), "{name}");
        assert!(s.leaves <= s.packets, "{name}");
    }
    for m in awkward_meshes() {
        let bvh = Bvh::build(&m);
        bvh.validate(&m).unwrap();
        assert!(bvh.depth() <= MEDIAN_DEPTH + 34);
    }
}

#[test]
fn a_large_mesh_has_full_leaves_and_a_shallow_tree() {
    let m = uv_sphere(Vec3::ZERO, 1.0, 256, 128);
    let bvh = Bvh::build(&m);
    bvh.validate(&m).unwrap();
    let s = bvh.stats();
    // 65 024 triangles: at least 8 128 packets; SAH leaves are mostly full.
    assert!(s.packets < 2 * 8128, "{s:?}");
    assert!(s.depth <= 12, "{s:?}");
}

#[test]
fn the_sah_weighs_each_test_by_its_box() {
    let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
    // Every box is the root's: one node, one test per packet.
    let same = Bvh::build(&TriMesh::new(tri.to_vec(), vec![[0, 1, 2]; 20]));
    let packets = same.stats().packets as f64;
    assert_eq!(
        same.sah(),
        BvhSah {
            nodes: 1.0,
            packets
        }
    );
    assert_eq!(
        Bvh::build(&TriMesh::new(Vec::new(), Vec::new())).sah(),
        BvhSah::default()
    );
    // Two unit squares' worth of triangles 99 apart along x: the root's
    // box is 100 x 1 x 0 (half area 100), each leaf's 1 x 1 x 0 (1).
    let mut v = Vec::new();
    let mut t = Vec::new();
    for (i, x) in [0.0f32, 99.0].into_iter().enumerate() {
        for k in 0..10u32 {
            v.extend(tri.map(|c| c + Vec3::X * x));
            let first = 3 * (10 * i as u32 + k);
            t.push([first, first + 1, first + 2]);
        }
    }
    let far = Bvh::build(&TriMesh::new(v, t));
    assert_eq!(far.stats().packets, 4);
    let sah = far.sah();
    assert_eq!(sah.nodes, 1.0);
    assert!((sah.packets - 4.0 / 100.0).abs() < 1e-12, "{sah:?}");
    // On real meshes: at most one test per node and per packet.
    for (name, m) in meshes() {
        let bvh = Bvh::build(&m);
        let (sah, s) = (bvh.sah(), bvh.stats());
        assert!(
            sah.nodes >= 1.0 && sah.nodes <= s.nodes as f64,
            "{name}: {sah:?}"
        );
        assert!(
            sah.packets > 0.0 && sah.packets <= s.packets as f64,
            "{name}: {sah:?}"
        );
    }
}

#[test]
fn validate_finds_broken_trees() {
    let m = icosphere(Vec3::ZERO, 1.0, 2);
    let good = Bvh::build(&m);
    good.validate(&m).unwrap();
    // A triangle in two leaves (and another in none).
    let mut b = good.clone();
    b.packets[0].ids[0] = b.packets[1].ids[0];
    assert!(b.validate(&m).is_err());
    // A child box that leaves out part of its node.
    let mut b = good.clone();
    let slot = (0..WIDTH)
        .find(|&s| b.nodes[0].child[s] & LEAF == 0)
        .unwrap();
    b.nodes[0].bounds[3][slot] -= 0.01;
    assert!(b.validate(&m).unwrap_err().0.contains("outside"));
    // A leaf box that leaves out part of a triangle.
    let mut b = good.clone();
    let (n, s) = leaf_slot(&b);
    b.nodes[n].bounds[0][s] = b.nodes[n].bounds[0][s].next_up();
    assert!(b.validate(&m).is_err());
    // A node reached twice.
    let mut b = good.clone();
    let inner: Vec<usize> = (0..WIDTH)
        .filter(|&s| b.nodes[0].child[s] & LEAF == 0)
        .collect();
    b.nodes[0].child[inner[1]] = b.nodes[0].child[inner[0]];
    assert!(b.validate(&m).is_err());
    // Inner children first, side by side: the root's are slots 0.., and
    // a count or a first node that disagrees with the links is caught.
    let root = &good.nodes[0];
    assert!(root.inner >= 2);
    assert!((0..root.inner as usize).all(|s| root.child[s] == root.first + s as u32));
    let mut b = good.clone();
    b.nodes[0].inner -= 1;
    assert!(b.validate(&m).unwrap_err().0.contains("against inner"));
    let mut b = good.clone();
    b.nodes[0].first += 1;
    assert!(b.validate(&m).unwrap_err().0.contains("against inner"));
    // Single-packet leaves found from their slot: some node has them, and
    // a `leaf0` one packet off is caught.
    let (n, _) = leaf_slot(&good);
    let mut b = good;
    assert_ne!(
        b.nodes[n].leaf0, 0,
        "the icosphere's leaves are single packets"
    );
    b.nodes[n].leaf0 += 1;
    assert!(b.validate(&m).unwrap_err().0.contains("leaves from"));
}

/// Some (node, slot) holding a leaf.
fn leaf_slot(b: &Bvh) -> (usize, usize) {
    for (i, n) in b.nodes.iter().enumerate() {
        if let Some(s) = (0..WIDTH).find(|&s| n.child[s] != u32::MAX && n.child[s] & LEAF != 0) {
            return (i, s);
        }
    }
    unreachable!("a tree has leaves")
}

/// A node whose slot 0 holds `b` and whose other slots are unused.
fn one_box(b: Aabb) -> Node {
    let mut n = Node {
        bounds: [[f32::INFINITY; WIDTH]; 6],
        child: [u32::MAX; WIDTH],
        inner: 1,
        first: 0,
        leaf0: 0,
    };
    n.bounds[3..].fill([f32::NEG_INFINITY; WIDTH]);
    for k in 0..3 {
        n.bounds[k][0] = b.lo[k];
        n.bounds[3 + k][0] = b.hi[k];
    }
    n.child[0] = 0;
    n
}

/// The slab test's mask with each kernel and each comparison (they must
/// agree, and give the same sort keys; the integer comparison only where
/// the walk uses it, a [`BoxRay::finite`] ray). The walk passes the best t
/// grown by `EPS`; `t_far` goes in as it is, which asks more of the test.
fn entered(r: &BoxRay, n: &Node, t_far: f32) -> u32 {
    let floats = entered_with::<false>(r, n, t_far);
    if !r.finite {
        return floats;
    }
    let bits = entered_with::<true>(r, n, t_far);
    assert_eq!(bits, floats, "integer and float comparison: {r:?}");
    bits
}

fn entered_with<const BITS: bool>(r: &BoxRay, n: &Node, t_far: f32) -> u32 {
    let (keys, portable) = Portable.node::<BITS>(r, n, t_far);
    for kernels in kernels_tested() {
        let wide = kernels.run(NodeTest::<BITS> { r, n, t_far });
        assert_eq!(wide, (keys, portable), "{kernels:?} {r:?}");
    }
    portable
}

/// A node's slab test, waiting for its kernel: the keys and the mask.
struct NodeTest<'a, const BITS: bool> {
    r: &'a BoxRay,
    n: &'a Node,
    t_far: f32,
}

impl<K: BoxKernel, const BITS: bool> Task<K> for NodeTest<'_, BITS> {
    type Out = ([u32; WIDTH], u32);
    #[inline(always)]
    fn run(self, k: K) -> ([u32; WIDTH], u32) {
        let (keys, mask) = k.node::<BITS>(self.r, self.n, self.t_far);
        (k.keys_array(keys), mask)
    }
}

/// The nearest key and the pushed (keys, links) of a node's sort keys,
/// waiting for its kernel.
struct Push<'a> {
    keys: &'a [u32; WIDTH],
    child: &'a [u32; WIDTH],
}

impl<K: BoxKernel> Task<K> for Push<'_> {
    type Out = (u32, [u32; WIDTH], [u32; WIDTH]);
    #[inline(always)]
    fn run(self, k: K) -> Self::Out {
        let keys = k.keys_from(self.keys);
        let (sorted, links) = k.pushed(keys, self.child);
        (k.nearest(keys), sorted, links)
    }
}

/// An integer box, a point `p` of its surface (on a face of axis `k`:
/// a corner, an edge or a face point) and an integer origin `o`.
struct Touch {
    lo: Vec3,
    hi: Vec3,
    p: Vec3,
    k: usize,
    o: Vec3,
}

impl Touch {
    fn random(rng: &mut ChaCha8Rng) -> Self {
        let int = |rng: &mut ChaCha8Rng, a: i32, b: i32| rng.random_range(a..=b) as f32;
        let lo = Vec3::from_array(std::array::from_fn(|_| int(rng, -50, 40)));
        let hi = lo + Vec3::from_array(std::array::from_fn(|_| int(rng, 0, 10)));
        let mut p: [f32; 3] = std::array::from_fn(|k| int(rng, lo[k] as i32, hi[k] as i32));
        let k = rng.random_range(0..3);
        p[k] = if rng.random() { lo[k] } else { hi[k] };
        let o = Vec3::from_array(std::array::from_fn(|_| int(rng, -60, 60)));
        Touch {
            lo,
            hi,
            p: Vec3::from_array(p),
            k,
            o,
        }
    }
}

#[test]
fn rays_touching_a_box_at_a_point_an_edge_or_a_face_enter_it() {
    // Integer boxes and rays aimed exactly at points of their surface
    // (exact in f32): corners, edges, faces, and rays lying in a face
    // plane (a direction component of zero). Every one touches the box,
    // at t = 1 (scaled by the direction's factor): entered with the
    // limit there and without one; the far side of the limit is not.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut count = 0;
    for _ in 0..200_000 {
        let Touch { lo, hi, p, k, o } = Touch::random(&mut rng);
        let mut o = o;
        if rng.random_range(0..4) == 0 {
            o[k] = p[k]; // in the face's plane
        }
        if o == p {
            continue;
        }
        let scale = [1.0, 3.0, 0.25, 1e-3, 1e4][rng.random_range(0..5)];
        let d = (p - o) * scale;
        let t = 1.0 / scale;
        if (p - o) * scale * t != p - o {
            continue; // not exact in f32
        }
        let n = one_box(Aabb { lo, hi });
        let r = BoxRay::new(o, d);
        assert_eq!(entered(&r, &n, f32::INFINITY), 1, "{lo} {hi} {o} {d}");
        assert_eq!(entered(&r, &n, t), 1, "{lo} {hi} {o} {d} at {t}");
        count += 1;
    }
    assert!(count > 100_000);
}

#[test]
fn touching_rays_enter_where_the_slab_values_underflow() {
    // Boxes and origins at integer multiples of 2^-140 (subnormal), rays
    // of integer directions aimed at a point of the box's surface: the
    // touch is at t = 2^-140 and every slab value is a product that
    // underflows, rounded to within half a subnormal ulp. Both
    // comparisons must still enter the box, also with the limit at the
    // touch.
    let s = f32::from_bits(1 << 9); // 2^-140
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut count = 0;
    for _ in 0..100_000 {
        let Touch { lo, hi, p, o, .. } = Touch::random(&mut rng);
        let d = p - o;
        if d.cmpeq(Vec3::ZERO).any() {
            continue;
        }
        let n = one_box(Aabb {
            lo: lo * s,
            hi: hi * s,
        });
        let r = BoxRay::new(o * s, d);
        assert!(r.finite);
        assert_eq!(entered(&r, &n, f32::INFINITY), 1, "{lo} {hi} {o} {d}");
        assert_eq!(entered(&r, &n, s), 1, "{lo} {hi} {o} {d} at 2^-140");
        count += 1;
    }
    assert!(count > 50_000);
}

#[test]
fn boxes_only_touched_at_the_start_may_be_skipped() {
    // A ray leaving a box through the face it starts on: the exit is -0
    // or +0 (the exact exit is 0). The integer comparison reads a -0
    // exit as behind and skips the box; no crossing at t > 0 lies in it.
    let n = one_box(Aabb {
        lo: Vec3::splat(1.0),
        hi: Vec3::splat(2.0),
    });
    let outward = BoxRay::new(Vec3::new(1.0, 1.5, 1.5), Vec3::new(-1.0, 0.25, 0.5));
    assert!(outward.finite);
    assert_eq!(entered_with::<true>(&outward, &n, f32::INFINITY), 0);
    assert_eq!(entered_with::<false>(&outward, &n, f32::INFINITY), 1);
    // Entering through that face: both enter.
    let inward = BoxRay::new(Vec3::new(1.0, 1.5, 1.5), Vec3::new(1.0, 0.25, 0.5));
    assert_eq!(entered(&inward, &n, f32::INFINITY), 1);
}

#[test]
fn boxes_clearly_missed_or_behind_are_not_entered() {
    let n = one_box(Aabb {
        lo: Vec3::splat(1.0),
        hi: Vec3::splat(2.0),
    });
    let r = |o: Vec3, d: Vec3| BoxRay::new(o, d);
    assert_eq!(entered(&r(Vec3::ZERO, Vec3::ONE), &n, f32::INFINITY), 1);
    assert_eq!(entered(&r(Vec3::ZERO, -Vec3::ONE), &n, f32::INFINITY), 0);
    assert_eq!(entered(&r(Vec3::ZERO, Vec3::X), &n, f32::INFINITY), 0);
    assert_eq!(entered(&r(Vec3::ZERO, Vec3::ONE), &n, 0.9), 0);
    // In the plane x = 1 of a face, along y: inside the slab of x.
    let along = r(Vec3::new(1.0, 0.0, 1.5), Vec3::Y);
    assert_eq!(entered(&along, &n, f32::INFINITY), 1);
    assert_eq!(entered(&r(Vec3::new(0.5, 0.0, 1.5), Vec3::Y), &n, 9.0), 0);
}

/// `got` and `want` (t, triangle) agree: the same answer, or (a tie the
/// box pruning may break otherwise) the same t within rounding.
fn same(got: Option<(f32, u32)>, want: Option<(f32, u32)>) -> bool {
    match (got, want) {
        (None, None) => true,
        (Some(g), Some(w)) => g == w || (g.0 - w.0).abs() <= 1e-5 * w.0.abs(),
        _ => false,
    }
}

fn check(c: &Collider, name: &str, ray: &Ray, max: f32) -> Result<(), TestCaseError> {
    let want = c.cast_ray_brute_force(ray, max).unwrap();
    let want = want.map(|h| (h.time_of_impact, h.triangle));
    for kernels in kernels_tested() {
        let got = c.walk_bvh(ray, max, kernels);
        prop_assert!(
            same(got, want),
            "{name} {kernels:?}: {ray:?} bvh {got:?} brute {want:?}"
        );
    }
    let cast = c
        .cast_ray(ray, max)
        .unwrap()
        .map(|h| (h.time_of_impact, h.triangle));
    prop_assert!(
        same(cast, want),
        "{name}: {ray:?} cast {cast:?} brute {want:?}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn random_rays_agree_with_brute_force(o in v3(), d in v3(), max in prop_oneof![
        Just(f32::INFINITY), 0.1f32..3.0
    ]) {
        prop_assume!(d.length() > 1e-3);
        for (name, c) in cases() {
            check(c, name, &Ray::new(o, d), max)?;
        }
    }

    #[test]
    fn lattice_rays_agree_with_brute_force(o in lattice(), d in lattice_dir(), max in prop_oneof![
        Just(f32::INFINITY), (1i32..12).prop_map(|m| m as f32)
    ]) {
        for (name, c) in cases() {
            check(c, name, &Ray::new(o, d), max)?;
        }
    }

    #[test]
    fn segments_agree_with_the_grid(a in lattice(), b in v3()) {
        prop_assume!(a != b);
        for (name, c) in cases() {
            let mut grid = c.clone();
            grid.bvh = None;
            for (from, to) in [(a, b), (b, a)] {
                let want = grid.cast_segment(from, to).unwrap();
                let got = c.cast_segment(from, to).unwrap();
                let pair = |h: Option<RayHit>| h.map(|h| (h.time_of_impact, h.triangle));
                prop_assert!(same(pair(got), pair(want)), "{name}: {from} -> {to}: {got:?} {want:?}");
            }
        }
    }
}

#[test]
fn both_kernels_push_a_nodes_children_farthest_first() {
    // Random entries (ties and zeros included) and masks: the sorted keys
    // are those entered, descending, then zeros; the links follow their
    // keys; both kernels write the same.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..20_000 {
        let t: [f32; WIDTH] = std::array::from_fn(|_| match rng.random_range(0..4) {
            0 => 0.0,
            1 => 2.5,
            _ => rng.random_range(0.0..100.0),
        });
        let mask = rng.random_range(0..256u32);
        let child: [u32; WIDTH] = std::array::from_fn(|i| 100 + i as u32);
        let keys = crate::kernels::slab::keys(&t, mask);
        let mut want: Vec<u32> = keys.to_vec();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let portable = Portable.pushed(keys, &child);
        assert_eq!(portable.0.to_vec(), want, "{t:?} {mask:#x}");
        let n = mask.count_ones() as usize;
        // The nearest child, found apart from the sort, is the last key
        // pushed (the one the walk visits next).
        if n > 0 {
            assert_eq!(Portable.nearest(keys), want[n - 1], "{t:?} {mask:#x}");
        }
        for i in 0..n {
            let k = portable.0[i];
            assert_eq!(portable.1[i], child[(k & 7) as usize]);
            assert_eq!(mask >> (k & 7) & 1, 1);
            assert!(f32::from_bits(k & 0x7fff_fff8) <= t[(k & 7) as usize]);
        }
        for kernels in kernels_tested() {
            let (nearest, sorted, links) = kernels.run(Push {
                keys: &keys,
                child: &child,
            });
            if n > 0 {
                assert_eq!(nearest, want[n - 1], "{kernels:?} {t:?} {mask:#x}");
            }
            assert_eq!(sorted, portable.0, "{kernels:?} {t:?} {mask:#x}");
            assert_eq!(&links[..n], &portable.1[..n], "{kernels:?} {t:?} {mask:#x}");
        }
    }
}
