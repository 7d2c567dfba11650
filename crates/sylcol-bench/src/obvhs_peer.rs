//! obvhs 0.4 (issue 38): its BVH2 and its CWBVH (eight-wide compressed,
//! CPU traversal four children at a time) on the scenes' rays, and
//! `Bvh::build` against its builders, each tree's expected cost (SAH)
//! printed beside its build time.
//!
//! obvhs is built without its `parallel` feature: one thread, as
//! `Bvh::build`. Its leaves hold triangles in its own order; they are
//! copied into that order once after the build (as its examples do) and
//! tested with its Möller–Trumbore `Triangle::intersect`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use glam::Vec3A;
use obvhs::BvhBuildParams;
use obvhs::bvh2::Bvh2;
use obvhs::bvh2::builder::build_bvh2_from_tris;
use obvhs::cwbvh::CwBvh;
use obvhs::cwbvh::builder::build_cwbvh_from_tris;
use obvhs::ray::{Ray as ORay, RayHit as ORayHit};
use obvhs::triangle::Triangle;
use sylcol::prelude::*;
use sylcol::query::{Bvh, Collider};

use crate::methods::{Answers, answer, disagreement_cells};
use crate::scenes::Scene;
use crate::timing::{CHUNK, interleaved};

/// obvhs' presets, fastest build first.
pub const PRESETS: [(&str, BvhBuildParams); 4] = [
    ("fastest", BvhBuildParams::fastest_build()),
    ("fast", BvhBuildParams::fast_build()),
    ("medium", BvhBuildParams::medium_build()),
    ("slow", BvhBuildParams::slow_build()),
];

/// The scene's triangles as obvhs takes them.
pub fn triangles(s: &Scene) -> Vec<Triangle> {
    let v = |i: u32| Vec3A::from(s.mesh.vertices[i as usize]);
    s.mesh
        .triangles
        .iter()
        .map(|t| Triangle {
            v0: v(t[0]),
            v1: v(t[1]),
            v2: v(t[2]),
        })
        .collect()
}

/// One obvhs tree with its triangles in leaf order.
pub enum Tree {
    /// Its binary tree.
    Bvh2(Bvh2),
    /// Its eight-wide compressed tree.
    Cw(CwBvh),
}

impl Tree {
    fn indices(&self) -> &[u32] {
        match self {
            Tree::Bvh2(b) => &b.primitive_indices,
            Tree::Cw(b) => &b.primitive_indices,
        }
    }
}

/// A tree ready for rays: the tree and its triangles in leaf order.
pub struct Traced {
    tree: Tree,
    ordered: Vec<Triangle>,
}

impl Traced {
    /// Copies `tris` into the tree's leaf order.
    pub fn new(tree: Tree, tris: &[Triangle]) -> Self {
        let ordered = tree.indices().iter().map(|&i| tris[i as usize]).collect();
        Traced { tree, ordered }
    }

    /// (t, original triangle) of the nearest hit, or (+inf, u32::MAX).
    pub fn cast(&self, origin: Vec3A, dir: Vec3A) -> (f32, u32) {
        let ray = ORay::new_inf(origin, dir);
        let mut hit = ORayHit::none();
        let f = |r: &ORay, id: usize| self.ordered[id].intersect(r);
        let found = match &self.tree {
            Tree::Bvh2(b) => b.ray_traverse(ray, &mut hit, f),
            Tree::Cw(b) => b.ray_traverse(ray, &mut hit, f),
        };
        if found {
            (hit.t, self.tree.indices()[hit.primitive_id as usize])
        } else {
            (f32::INFINITY, u32::MAX)
        }
    }
}

/// obvhs' BVH2 over `tris`, built with `params`, ready for rays.
pub fn traced_bvh2(tris: &[Triangle], params: BvhBuildParams) -> Traced {
    let tree = build_bvh2_from_tris(tris, params, &mut Duration::default());
    Traced::new(Tree::Bvh2(tree), tris)
}

/// obvhs' CWBVH over `tris`, built with `params`, ready for rays.
pub fn traced_cwbvh(tris: &[Triangle], params: BvhBuildParams) -> Traced {
    let tree = build_cwbvh_from_tris(tris, params, &mut Duration::default());
    Traced::new(Tree::Cw(tree), tris)
}

/// The rays table: ns a ray through sylcol's BVH (the collider's default
/// kernel path), obvhs' BVH2 and CWBVH (presets `medium` and `slow`),
/// hits, disagreements with sylcol, and each peer's time over sylcol's.
pub fn rays(scenes: &[Scene], rounds: usize) {
    let names = [
        "sylcol BVH",
        "obvhs BVH2 slow",
        "obvhs CWBVH medium",
        "obvhs CWBVH slow",
    ];
    println!(
        "| scene | triangles | {} ns/ray | hits {} | disagreements vs sylcol (hit/miss, distance) | peer ns / sylcol ns |",
        names.join(" | "),
        names.join(" / ")
    );
    println!("|{}", "---|".repeat(names.len() + 5));
    for s in scenes {
        let tris = triangles(s);
        let peers = [
            traced_bvh2(&tris, PRESETS[3].1),
            traced_cwbvh(&tris, PRESETS[2].1),
            traced_cwbvh(&tris, PRESETS[3].1),
        ];
        let bvh = Collider::from_mcol(&s.mcol).expect("collider").with_bvh();
        let flat: Vec<(Vec3A, Vec3A)> = s
            .rays
            .iter()
            .map(|r| (r.origin.into(), r.dir.into()))
            .collect();
        let mut answers: Vec<Answers> = names.iter().map(|_| Answers::new(s.rays.len())).collect();
        let ns = interleaved(names.len(), s.rays.len(), rounds, CHUNK, |k, range| {
            let out = black_box(&mut answers[k]);
            for i in range {
                (out.t[i], out.id[i]) = if k == 0 {
                    answer(bvh.cast_ray(&s.rays[i], f32::INFINITY).expect("valid ray"))
                } else {
                    peers[k - 1].cast(flat[i].0, flat[i].1)
                };
            }
        });
        let tol = s.diagonal() * 1e-4;
        let disagree = disagreement_cells(&answers, tol);
        let times: Vec<String> = ns.iter().map(|t| format!("{t:.0}")).collect();
        let hits: Vec<String> = answers.iter().map(|a| a.hits().to_string()).collect();
        let ratios: Vec<String> = ns[1..]
            .iter()
            .map(|t| format!("{:.2}", t / ns[0]))
            .collect();
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            s.name,
            s.mesh.triangles.len(),
            times.join(" | "),
            hits.join(" / "),
            disagree.join(", "),
            ratios.join(", ")
        );
    }
}

/// Expected node tests and leaf-item tests of a random line through the
/// root's box (Embree's convention, as `Bvh::sah`): the root counts 1,
/// every other node its box's half area over the root's, every leaf that
/// weight times its items (obvhs: triangles, each tested alone; sylcol:
/// eight-lane packets).
fn bvh2_sah(b: &Bvh2) -> (f64, f64) {
    let Some(root) = b.nodes.first() else {
        return (0.0, 0.0);
    };
    let scale = f64::from(root.aabb().half_area());
    let (mut nodes, mut leaves) = (1.0, 0.0);
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        let n = &b.nodes[i];
        let w = f64::from(n.aabb().half_area()) / scale;
        if n.is_leaf() {
            leaves += w * f64::from(n.prim_count);
        } else {
            if i != 0 {
                nodes += w;
            }
            let first = n.first_index as usize;
            stack.extend([first, first + 1]);
        }
    }
    (nodes, leaves)
}

/// [`bvh2_sah`] for a CWBVH (eight-wide nodes, child boxes as stored,
/// quantised outwards).
fn cwbvh_sah(b: &CwBvh) -> (f64, f64) {
    let scale = f64::from(b.total_aabb.half_area());
    if b.nodes.is_empty() || scale <= 0.0 {
        return (0.0, 0.0);
    }
    let (mut nodes, mut leaves) = (1.0, 0.0);
    for n in &b.nodes {
        for c in (0..8).filter(|&c| !n.is_child_empty(c)) {
            let w = f64::from(n.child_aabb(c).half_area()) / scale;
            if n.is_leaf(c) {
                leaves += w * f64::from(n.child_primitives(c).1);
            } else {
                nodes += w;
            }
        }
    }
    (nodes, leaves)
}

/// µs of the fastest of `rounds` runs of `build` (after one untimed run),
/// and what the last run made.
fn timed<T>(rounds: usize, mut build: impl FnMut() -> T) -> (f64, T) {
    let mut made = build();
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        drop(made);
        let start = Instant::now();
        made = black_box(build());
        best = best.min(start.elapsed().as_secs_f64() * 1e6);
    }
    (best, made)
}

/// The build table: per scene `Bvh::build` and obvhs' BVH2 and CWBVH at
/// each preset, each with its µs (fastest of `rounds`), its SAH (node
/// tests plus leaf-item tests), and its time over `Bvh::build`'s. obvhs takes its
/// triangles as three corners each, made before the clock starts;
/// `Bvh::build` takes the indexed mesh.
pub fn build(scenes: &[Scene], rounds: usize) {
    println!(
        "| scene | triangles | builder | µs | SAH nodes | SAH leaf items | SAH | time / Bvh::build's |"
    );
    println!("|{}", "---|".repeat(8));
    for s in scenes {
        let tris = triangles(s);
        let (ours, bvh) = timed(rounds, || Bvh::build(&s.mesh));
        let sah = bvh.sah();
        let row = |name: &str, us: f64, (n, l): (f64, f64)| {
            println!(
                "| {} | {} | {name} | {us:.0} | {n:.2} | {l:.2} | {:.2} | {:.2} |",
                s.name,
                s.mesh.triangles.len(),
                n + l,
                us / ours
            );
        };
        row(
            "sylcol Bvh::build (leaf items: packets)",
            ours,
            (sah.nodes, sah.packets),
        );
        for (name, params) in PRESETS {
            let (us, b) = timed(rounds, || {
                build_bvh2_from_tris(&tris, params, &mut Duration::default())
            });
            row(&format!("obvhs BVH2 {name}"), us, bvh2_sah(&b));
            let (us, b) = timed(rounds, || {
                build_cwbvh_from_tris(&tris, params, &mut Duration::default())
            });
            row(&format!("obvhs CWBVH {name}"), us, cwbvh_sah(&b));
        }
    }
}
