//! The grid sweep of `build mcol`: for each scene's mesh, every candidate
//! grid of the default rule whose estimated cost is within
//! [`COST_WINDOW`] of the cheapest, built with `--cell` (bounds rounded
//! out), its rays timed in interleaved rounds (`timing`); the default's ns per ray
//! against the best tried.

use std::hint::black_box;

use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::build::plan::{MeshStats, default_candidates};
use sylcol::query::Collider;

use crate::scenes;
use crate::timing::{CHUNK, interleaved};

/// Candidates costing up to this multiple of the cheapest are measured.
pub const COST_WINDOW: f64 = 2.5;

/// Prints the sweep table and the summary.
pub fn run(filter: Option<&str>, rays: usize, rounds: usize) {
    println!(
        "| scene | triangles | cell | grid | mean list | model cost | ns/ray | / best | default |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut summary = Vec::new();
    for s in scenes::load(filter, rays) {
        let (lo, hi) = s.mesh.bounds().expect("mesh");
        let stats = MeshStats::of(&s.mesh);
        let default = build_mcol(&s.mesh, &McolBuildOptions::default()).expect("default build");
        let all = default_candidates(lo.to_array(), hi.to_array(), &stats);
        let least = all.iter().map(|c| c.1.cost).fold(f64::INFINITY, f64::min);
        let tried: Vec<_> = all
            .into_iter()
            .filter(|c| c.1.cost <= least * COST_WINDOW)
            .map(|(plan, cost)| {
                let opts = McolBuildOptions {
                    bbox: None,
                    cell: Some(plan.cell),
                };
                let m = build_mcol(&s.mesh, &opts).expect("candidate build");
                (plan, cost, Collider::from_mcol(&m).expect("collider"))
            })
            .collect();
        let best = interleaved(tried.len(), s.rays.len(), rounds, CHUNK, |k, range| {
            for r in &s.rays[range] {
                black_box(tried[k].2.cast_ray(black_box(r), f32::INFINITY).ok());
            }
        });
        let fastest = best.iter().copied().fold(f64::INFINITY, f64::min);
        let mut default_ns = f64::NAN;
        for ((plan, cost, c), ns) in tried.iter().zip(&best) {
            let is_default = plan.cell == default.header.cell_size[0];
            if is_default {
                default_ns = *ns;
            }
            let [x, y, z] = plan.dims;
            println!(
                "| {} | {} | {} | {x}x{y}x{z} | {:.1} | {:.1} | {ns:.0} | {:.2} | {} |",
                s.name,
                s.mesh.triangles.len(),
                plan.cell,
                c.grid_stats().mean_list,
                cost.cost,
                ns / fastest,
                if is_default { "default" } else { "" }
            );
        }
        summary.push((s.name.clone(), default_ns / fastest));
    }
    println!("\n| scene | default / best tried |\n|---|---|");
    for (name, r) in summary {
        println!("| {name} | {r:.2} |");
    }
}
