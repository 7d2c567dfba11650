//! The grid sweep of `build mcol`: for each scene's mesh, every candidate
//! grid of the default rule whose estimated cost is within
//! [`COST_WINDOW`] of the cheapest, built with `--cell` (bounds rounded
//! out), its rays timed in interleaved rounds (`timing`); the default's ns per ray
//! against the best tried.

use std::hint::black_box;

use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::build::plan::{CostWeights, GridPlan, MeshStats, default_candidates, grid_cost_with};
use sylcol::prelude::*;
use sylcol::query::Collider;

use crate::scenes;
use crate::timing::{CHUNK, interleaved};

/// Candidates costing up to this multiple of the cheapest are measured.
pub const COST_WINDOW: f64 = 3.0;

/// Prints the sweep table and the summary.
pub fn run(filter: Option<&str>, rays: usize, rounds: usize) {
    println!(
        "| scene | triangles | cell | grid | mean list | model cost | ns/ray | / best | default |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut summary = Vec::new();
    let mut measured: Vec<(MeshStats, Vec<(GridPlan, f64)>)> = Vec::new();
    for s in scenes::load(filter, rays, scenes::RaySet::Issue) {
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
            let is_default = plan.cell == default.header.prefix.cell_size[0];
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
        measured.push((stats, tried.iter().map(|t| t.0).zip(best).collect()));
    }
    println!("\n| scene | default / best tried |\n|---|---|");
    for (name, r) in summary {
        println!("| {name} | {r:.2} |");
    }
    fit(&measured);
}

/// For a range of model weights: the grid each would pick on every scene
/// of the sweep, against the fastest tried (worst and geometric mean over
/// the scenes); the best few and the weights in use.
fn fit(measured: &[(MeshStats, Vec<(GridPlan, f64)>)]) {
    let mut rows = Vec::new();
    for visit in [0.5, 1.0, 2.0, 4.0] {
        for packet in [0.25, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0] {
            for crowding_from in [24.0, 32.0, 48.0] {
                for crowding in [0.5, 1.0, 2.0] {
                    let w = CostWeights {
                        visit,
                        packet,
                        crowding_from,
                        crowding,
                    };
                    rows.push((w, score(measured, &w)));
                }
            }
        }
    }
    rows.sort_by(|a, b| a.1.0.total_cmp(&b.1.0).then(a.1.1.total_cmp(&b.1.1)));
    println!(
        "\n| weights (visit, packet, crowding from, crowding) | worst picked / best | geometric mean |\n|---|---|---|"
    );
    let fitted = CostWeights::FITTED;
    let shown = rows
        .iter()
        .take(5)
        .chain(rows.iter().skip(5).filter(|r| r.0 == fitted));
    for (w, (worst, mean)) in shown {
        let tag = if *w == fitted { " (in use)" } else { "" };
        println!(
            "| {}, {}, {}, {}{tag} | {worst:.3} | {mean:.3} |",
            w.visit, w.packet, w.crowding_from, w.crowding
        );
    }
}

/// (worst, geometric mean) over the scenes of picked / fastest.
fn score(measured: &[(MeshStats, Vec<(GridPlan, f64)>)], w: &CostWeights) -> (f64, f64) {
    let mut worst: f64 = 1.0;
    let mut log = 0.0;
    for (stats, tried) in measured {
        let fastest = tried.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
        let pick = tried
            .iter()
            .min_by(|a, b| {
                let (ca, cb) = (
                    grid_cost_with(&a.0, stats, w).cost,
                    grid_cost_with(&b.0, stats, w).cost,
                );
                ca.total_cmp(&cb).then(b.0.cell.total_cmp(&a.0.cell))
            })
            .map_or(f64::NAN, |t| t.1 / fastest);
        worst = worst.max(pick);
        log += pick.ln();
    }
    (worst, (log / measured.len().max(1) as f64).exp())
}
