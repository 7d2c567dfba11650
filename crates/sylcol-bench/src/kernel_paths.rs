//! sylcol's kernel paths against each other (issue 38): the scene's rays
//! through the file's own grid and through the BVH, once with each
//! kernel path this CPU runs (`KernelPath::available`: portable, AVX2,
//! AVX-512), in interleaved rounds (`timing`), each path's answers
//! compared bit for bit with the AVX2 path's. A path this CPU lacks is
//! named as not run, never left out in silence.

use std::hint::black_box;

use sylcol::prelude::*;
use sylcol::query::{Collider, KernelPath};

use crate::scenes::Scene;
use crate::timing::{CHUNK, interleaved};

/// Prints the table: ns a ray per path and route, and each path's time
/// over the AVX2 path's (below 1: faster than AVX2).
pub fn run(scenes: &[Scene], rounds: usize) {
    let paths = KernelPath::available();
    let missing: Vec<&str> = KernelPath::ALL
        .into_iter()
        .filter(|p| !paths.contains(p))
        .map(KernelPath::name)
        .collect();
    if !missing.is_empty() {
        println!(
            "this CPU does not run the {} kernels: not measured",
            missing.join(", ")
        );
    }
    let names: Vec<&str> = paths.iter().map(|p| p.name()).collect();
    println!(
        "| scene | route | {} ns/ray | time / AVX2's ({}) | answers differing from AVX2's |",
        names.join(" | "),
        names.join(", ")
    );
    println!("|---|---|{}---|---|", "---|".repeat(paths.len()));
    for s in scenes {
        let own = Collider::from_mcol(&s.mcol).expect("collider");
        let bvh = own.clone().with_bvh();
        for (route, base) in [("own grid", own), ("BVH", bvh)] {
            let colliders: Vec<Collider> = paths
                .iter()
                .map(|&p| base.clone().with_kernel_path(p).expect("an available path"))
                .collect();
            let mut answers = vec![vec![None; s.rays.len()]; paths.len()];
            let ns = interleaved(paths.len(), s.rays.len(), rounds, CHUNK, |k, range| {
                for i in range {
                    answers[k][i] = black_box(
                        colliders[k]
                            .cast_ray(&s.rays[i], f32::INFINITY)
                            .expect("valid ray"),
                    );
                }
            });
            let at = paths.iter().position(|&p| p == KernelPath::Avx2);
            let ratio = |k: usize| at.map_or("-".into(), |a| format!("{:.3}", ns[k] / ns[a]));
            let differ = |k: usize| {
                at.map_or(0, |a| {
                    answers[k]
                        .iter()
                        .zip(&answers[a])
                        .filter(|(x, y)| x != y)
                        .count()
                })
            };
            let times: Vec<String> = ns.iter().map(|t| format!("{t:.1}")).collect();
            let ratios: Vec<String> = (0..paths.len()).map(ratio).collect();
            let diffs: Vec<String> = (0..paths.len()).map(|k| differ(k).to_string()).collect();
            println!(
                "| {} | {route} | {} | {} | {} |",
                s.name,
                times.join(" | "),
                ratios.join(", "),
                diffs.join(", ")
            );
        }
    }
}
