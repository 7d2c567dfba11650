//! Preparation cost (issue 11 item 4): building sylcol's BVH, and a whole
//! collider with it, against parry3d's `TriMesh::new` (its BVH) and
//! Embree's scene build, on each scene's mesh, in interleaved rounds.

use std::hint::black_box;
use std::time::Instant;

use sylcol::query::{Bvh, Collider};

use crate::scenes::Scene;

/// The preparations timed.
const STEPS: [&str; 5] = [
    "Bvh::build",
    "from_mcol",
    "from_mcol + with_bvh",
    "from_mesh (derived grid)",
    "parry3d TriMesh::new",
];

/// Runs preparation `k` once on `s`.
fn prepare(k: usize, s: &Scene) {
    match k {
        0 => drop(black_box(Bvh::build(&s.mesh))),
        1 => drop(black_box(Collider::from_mcol(&s.mcol).expect("collider"))),
        2 => drop(black_box(
            Collider::from_mcol(&s.mcol).expect("collider").with_bvh(),
        )),
        3 => drop(black_box(Collider::from_mesh(&s.mesh).expect("collider"))),
        _ => {
            let (v, t) = (s.mesh.vertices.clone(), s.mesh.triangles.clone());
            drop(black_box(parry3d::shape::TriMesh::new(v, t).expect("mesh")));
        }
    }
}

/// Prints microseconds per preparation (the fastest of `rounds`
/// interleaved rounds) and the ratios to parry3d.
pub fn run(scenes: &[Scene], rounds: usize) {
    println!(
        "| scene | triangles | {} (us) | parry3d / Bvh::build | parry3d / (from_mcol + with_bvh) |",
        STEPS.join(" | ")
    );
    println!("|{}", "---|".repeat(STEPS.len() + 4));
    for s in scenes {
        let mut best = [f64::INFINITY; STEPS.len()];
        for _ in 0..rounds.max(5) {
            for (k, b) in best.iter_mut().enumerate() {
                let start = Instant::now();
                prepare(k, s);
                *b = b.min(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        let us: Vec<String> = best.iter().map(|t| format!("{t:.0}")).collect();
        println!(
            "| {} | {} | {} | {:.2} | {:.2} |",
            s.name,
            s.mesh.triangles.len(),
            us.join(" | "),
            best[4] / best[0],
            best[4] / best[2],
        );
    }
}
