//! `sweep_sphere` (the game's MOVESPHERE) and `intersects_sphere` on the
//! eleven sample maps of `samples/MiscBin.pak`, each through its own
//! grid, on one thread.
//!
//! `cargo bench -p sylcol --bench sphere_queries` prints a table: ns per
//! query over `SPHERES` random spheres a map (default 100 000; seed 6 for
//! every map), each query kind's fastest of `ROUNDS` (default 3)
//! interleaved rounds. A sphere's centre is a uniform point of the map's
//! box, its radius up to half a cell, its motion up to a fifth of the
//! box's diagonal in a uniform direction. `SCENE=text` keeps only the
//! maps whose names contain it. No criterion here: the table is the
//! figure `benches/README.md` keeps.

mod common;

use common::{env_or, time_each};

use std::hint::black_box;

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::prelude::*;
use sylcol::query::Collider;

/// One sample map: its name, collider and spheres (centre, radius, motion).
struct Map {
    name: String,
    collider: Collider,
    spheres: Vec<(Vec3, f32, Vec3)>,
}

fn sample_maps(n: usize) -> Vec<Map> {
    let mut maps = Vec::new();
    for (hash, m) in common::sample_mcols() {
        let lo = Vec3::from_array(m.header.prefix.bbox_min);
        let hi = Vec3::from_array(m.header.prefix.bbox_max);
        let cell = Vec3::from_array(m.header.prefix.cell_size).min_element();
        let reach = (hi - lo).length() / 5.0;
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let spheres = (0..n)
            .map(|_| {
                let centre =
                    lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random()));
                let radius = rng.random_range(0.0..0.5) * cell;
                let dir = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0..1.0)));
                let motion = dir.normalize_or_zero() * rng.random_range(0.0..reach);
                (centre, radius, motion)
            })
            .collect();
        maps.push(Map {
            name: format!("{hash:08x}"),
            collider: Collider::from_mcol(&m).expect("map"),
            spheres,
        });
    }
    maps
}

fn main() {
    let (n, rounds) = (env_or("SPHERES", 100_000), env_or("ROUNDS", 3).max(1));
    let only = std::env::var("SCENE").ok();
    let maps: Vec<Map> = sample_maps(n)
        .into_iter()
        .filter(|m| only.as_ref().is_none_or(|o| m.name.contains(o.as_str())))
        .collect();
    println!("{n} spheres per map, fastest of {rounds} rounds, one thread");
    println!("| map | tris | grid | sweep ns | hits | overlap ns | overlaps |");
    println!("|---|---|---|---|---|---|---|");
    let (mut sum_sweep, mut sum_overlap) = (0.0, 0.0);
    for m in &maps {
        let c = &m.collider;
        // The first call builds the spheres; it is not timed.
        black_box(c.intersects_sphere(Vec3::ZERO, 1.0).unwrap());
        let hits = m
            .spheres
            .iter()
            .filter(|&&(p, r, v)| c.sweep_sphere(p, r, v).unwrap().is_some())
            .count();
        let overlaps = m
            .spheres
            .iter()
            .filter(|&&(p, r, _)| c.intersects_sphere(p, r).unwrap())
            .count();
        let (mut best_sweep, mut best_overlap) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..rounds {
            best_sweep = best_sweep.min(time_each(&m.spheres, |&(p, r, v)| {
                c.sweep_sphere(p, r, v).unwrap()
            }));
            best_overlap = best_overlap.min(time_each(&m.spheres, |&(p, r, _)| {
                c.intersects_sphere(p, r).unwrap()
            }));
        }
        sum_sweep += best_sweep;
        sum_overlap += best_overlap;
        let st = c.grid_stats();
        let [x, y, z] = st.dims;
        println!(
            "| {} | {} | {x}x{y}x{z} | {best_sweep:.0} | {hits} | {best_overlap:.0} | {overlaps} |",
            m.name, st.triangles
        );
    }
    let k = maps.len().max(1) as f64;
    println!(
        "| mean of {} | | | {:.0} | | {:.0} | |",
        maps.len(),
        sum_sweep / k,
        sum_overlap / k
    );
}
