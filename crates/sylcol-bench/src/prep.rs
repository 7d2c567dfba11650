//! Preparation cost (issue 11 item 4): making a scene's mesh ready for
//! ray queries. sylcol's `Collider::from_mcol` (the file's own grid, as
//! the game loads a map) and `Collider::from_mesh` (a derived grid)
//! against parry3d 0.31's `TriMesh::new` (its BVH build) and, with the
//! `embree` feature, Embree 3's scene build (high quality, robust, one
//! thread). Each figure is the fastest of `rounds` interleaved rounds.

use std::hint::black_box;
use std::time::Instant;

use sylcol::query::Collider;

use crate::scenes::Scene;

/// The methods timed, in table order.
const METHODS: [&str; 4] = ["from_mcol", "from_mesh", "parry3d", "embree robust"];

/// Microseconds to prepare `s` with method `k` (`None`: not in this build).
fn prepare(k: usize, s: &Scene) -> Option<f64> {
    // Inputs are copied before the clock starts: each method owns its
    // own copy of the mesh, as a caller's would.
    let (verts, tris) = (s.mesh.vertices.clone(), s.mesh.triangles.clone());
    let start = Instant::now();
    match k {
        0 => drop(black_box(Collider::from_mcol(&s.mcol).expect("collider"))),
        1 => drop(black_box(Collider::from_mesh(&s.mesh).expect("collider"))),
        2 => drop(black_box(
            parry3d::shape::TriMesh::new(verts, tris).expect("parry mesh"),
        )),
        #[cfg(feature = "embree")]
        3 => drop(black_box(crate::embree::EmbreeScene::new(&s.mesh, true))),
        _ => return None,
    }
    Some(start.elapsed().as_secs_f64() * 1e6)
}

/// Prints the preparation table.
pub fn run(scenes: &[Scene], rounds: usize) {
    println!(
        "| scene | triangles | {} (us) | from_mcol / parry3d | from_mesh / parry3d |",
        METHODS.join(" | ")
    );
    println!("|{}", "---|".repeat(METHODS.len() + 4));
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
        println!(
            "| {} | {} | {} | {:.2} | {:.2} |",
            s.name,
            s.mesh.triangles.len(),
            cells.join(" | "),
            best[0] / best[2],
            best[1] / best[2],
        );
    }
}
