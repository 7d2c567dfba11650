//! Preparation cost (issue 11 item 4): making a scene's mesh ready for
//! ray queries and casting its first ray (a collider builds some parts on
//! first use, so the first ray pays for them; the others' first ray is
//! timed too, for the same measure). sylcol's `Collider::from_mcol` (the
//! file's own grid, as the game loads a map), `Bvh::build` alone (no ray),
//! `from_mcol` followed by `with_bvh` and `from_mesh` followed by
//! `with_bvh` (sylcol's own acceleration; the second is the BVH-only
//! collider: no grid is built for its rays), and `Collider::from_mesh`
//! (a derived grid), against parry3d 0.31's `TriMesh::new` (its BVH
//! build) and, with the `embree` feature, Embree 3's scene build (high
//! quality, robust, one thread). Each figure is the fastest of `rounds`
//! interleaved rounds; the ratios are sylcol's time over parry3d's
//! (below 1: sylcol prepares faster).

use std::hint::black_box;
use std::time::Instant;

use parry3d::query::{Ray as PRay, RayCast};
use sylcol::prelude::*;
use sylcol::query::{Bvh, Collider, Ray};

use crate::scenes::Scene;

/// The methods timed, in table order.
const METHODS: [&str; 7] = [
    "from_mcol",
    "Bvh::build",
    "from_mcol + with_bvh",
    "from_mesh",
    "from_mesh + with_bvh",
    "parry3d",
    "embree robust",
];
/// Where parry3d is in [`METHODS`].
const PARRY: usize = 5;
/// The methods whose ratio to parry3d is printed.
const RATIOS: [usize; 5] = [0, 1, 2, 3, 4];

/// The first ray: from the centre of the mesh's box, obliquely.
fn first_ray(s: &Scene) -> Ray {
    let (lo, hi) = s.mesh.bounds().expect("a mesh");
    Ray::new((lo + hi) * 0.5, glam::Vec3::new(0.36, 0.48, 0.8))
}

/// A collider's answer to the first ray.
fn cast(c: &Collider, ray: &Ray) -> Option<f32> {
    let hit = c.cast_ray(ray, f32::INFINITY).expect("valid ray");
    hit.map(|h| h.time_of_impact)
}

/// Microseconds to prepare `s` with method `k` and cast its first ray
/// (`None`: not in this build).
fn prepare(k: usize, s: &Scene) -> Option<f64> {
    // Inputs are copied before the clock starts: each method owns its
    // own copy of the mesh, as a caller's would.
    let (verts, tris) = (s.mesh.vertices.clone(), s.mesh.triangles.clone());
    let ray = first_ray(s);
    let start = Instant::now();
    match k {
        0 => {
            let c = Collider::from_mcol(&s.mcol).expect("collider");
            black_box(cast(&c, &ray));
        }
        1 => drop(black_box(Bvh::build(&s.mesh))),
        2 => {
            let c = Collider::from_mcol(&s.mcol).expect("collider").with_bvh();
            black_box(cast(&c, &ray));
        }
        3 => {
            let c = Collider::from_mesh(&s.mesh).expect("collider");
            black_box(cast(&c, &ray));
        }
        4 => {
            let c = Collider::from_mesh(&s.mesh).expect("collider").with_bvh();
            black_box(cast(&c, &ray));
        }
        5 => {
            let m = parry3d::shape::TriMesh::new(verts, tris).expect("parry mesh");
            let r = PRay::new(ray.origin, ray.dir);
            black_box(m.cast_local_ray(&r, f32::MAX, false));
        }
        #[cfg(feature = "embree")]
        6 => {
            let e = crate::embree::EmbreeScene::new(&s.mesh, true);
            let o = ray.origin.to_array();
            let d = ray.dir.to_array();
            let (mut t, mut id) = ([0.0f32], [0u32]);
            e.intersect(
                &[[o[0], o[1], o[2], d[0], d[1], d[2]]],
                false,
                &mut t,
                &mut id,
            );
            black_box((t, id));
        }
        _ => return None,
    }
    Some(start.elapsed().as_secs_f64() * 1e6)
}

/// Prints the preparation table.
pub fn run(scenes: &[Scene], rounds: usize) {
    println!(
        "| scene | triangles | file cells | file list entries | {} | {} |",
        METHODS.join(" | "),
        RATIOS
            .map(|k| format!("{} / parry3d", METHODS[k]))
            .join(" | ")
    );
    println!("|{}", "---|".repeat(METHODS.len() + RATIOS.len() + 4));
    for s in scenes {
        let mut best = [f64::INFINITY; METHODS.len()];
        for _ in 0..rounds {
            for (k, b) in best.iter_mut().enumerate() {
                if let Some(us) = prepare(k, s) {
                    *b = b.min(us);
                }
            }
        }
        let cells: Vec<String> = best
            .iter()
            .map(|us| {
                if us.is_finite() {
                    format!("{us:.0}")
                } else {
                    "-".into()
                }
            })
            .collect();
        let ratios = RATIOS.map(|k| format!("{:.2}", best[k] / best[PARRY]));
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            s.name,
            s.mesh.triangles.len(),
            s.mcol.cells.len(),
            s.mcol.list_entries(),
            cells.join(" | "),
            ratios.join(" | "),
        );
    }
}
