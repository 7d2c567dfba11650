//! Preparation cost (issue 11 item 4): making a scene's mesh ready for
//! ray queries. sylcol's `Collider::from_mcol` (the file's own grid, as
//! the game loads a map), `Bvh::build` alone and `from_mcol` followed by
//! `with_bvh` (sylcol's own acceleration), and `Collider::from_mesh` (a
//! derived grid), against parry3d 0.31's `TriMesh::new` (its BVH build)
//! and, with the `embree` feature, Embree 3's scene build (high quality,
//! robust, one thread). Each figure is the fastest of `rounds`
//! interleaved rounds; the ratios are sylcol's time over parry3d's
//! (below 1: sylcol prepares faster).

use std::hint::black_box;
use std::time::Instant;

use sylcol::query::{Bvh, Collider};

use crate::scenes::Scene;

/// The methods timed, in table order.
const METHODS: [&str; 6] = [
    "from_mcol",
    "Bvh::build",
    "from_mcol + with_bvh",
    "from_mesh",
    "parry3d",
    "embree robust",
];
/// Where parry3d is in [`METHODS`].
const PARRY: usize = 4;
/// The methods whose ratio to parry3d is printed.
const RATIOS: [usize; 4] = [0, 1, 2, 3];

/// Microseconds to prepare `s` with method `k` (`None`: not in this build).
fn prepare(k: usize, s: &Scene) -> Option<f64> {
    // Inputs are copied before the clock starts: each method owns its
    // own copy of the mesh, as a caller's would.
    let (verts, tris) = (s.mesh.vertices.clone(), s.mesh.triangles.clone());
    let start = Instant::now();
    match k {
        0 => drop(black_box(Collider::from_mcol(&s.mcol).expect("collider"))),
        1 => drop(black_box(Bvh::build(&s.mesh))),
        2 => drop(black_box(
            Collider::from_mcol(&s.mcol).expect("collider").with_bvh(),
        )),
        3 => drop(black_box(Collider::from_mesh(&s.mesh).expect("collider"))),
        4 => drop(black_box(
            parry3d::shape::TriMesh::new(verts, tris).expect("parry mesh"),
        )),
        #[cfg(feature = "embree")]
        5 => drop(black_box(crate::embree::EmbreeScene::new(&s.mesh, true))),
        _ => return None,
    }
    Some(start.elapsed().as_secs_f64() * 1e6)
}

/// Prints the preparation table.
pub fn run(scenes: &[Scene], rounds: usize) {
    println!(
        "| scene | triangles | {} (us) | {} |",
        METHODS.join(" | "),
        RATIOS
            .map(|k| format!("{} / parry3d", METHODS[k]))
            .join(" | ")
    );
    println!("|{}", "---|".repeat(METHODS.len() + RATIOS.len() + 2));
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
            "| {} | {} | {} | {} |",
            s.name,
            s.mesh.triangles.len(),
            cells.join(" | "),
            ratios.join(" | "),
        );
    }
}
