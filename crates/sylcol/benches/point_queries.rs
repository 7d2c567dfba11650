//! `contains_point` and `closest_point` on the eleven sample maps of
//! `samples/MiscBin.pak`, each through its own grid, on one thread.
//!
//! `cargo bench -p sylcol --bench point_queries` prints a table: ns per
//! query over `POINTS` random points in the map's bounding box (default
//! 100 000; seed 5 for every map), each query kind's fastest of `ROUNDS`
//! (default 3) interleaved rounds, and the first call's time (which pays
//! for any index built lazily on first use). `SCENE=text` keeps only the
//! maps whose names contain it. No criterion here: the table is the
//! figure `benches/README.md` keeps.

mod common;

use common::{env_or, time_each};

use std::hint::black_box;
use std::time::Instant;

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::prelude::*;
use sylcol::query::Collider;

/// One sample map: its name, collider and query points.
struct Map {
    name: String,
    collider: Collider,
    points: Vec<Vec3>,
}

fn sample_maps(points: usize) -> Vec<Map> {
    let mut maps = Vec::new();
    for (hash, m) in common::sample_mcols() {
        let lo = Vec3::from_array(m.header.prefix.bbox_min);
        let hi = Vec3::from_array(m.header.prefix.bbox_max);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let points = (0..points)
            .map(|_| lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random())))
            .collect();
        maps.push(Map {
            name: format!("{hash:08x}"),
            collider: Collider::from_mcol(&m).expect("map"),
            points,
        });
    }
    maps
}

fn main() {
    let (n, rounds) = (env_or("POINTS", 100_000), env_or("ROUNDS", 3).max(1));
    let only = std::env::var("SCENE").ok();
    let maps: Vec<Map> = sample_maps(n)
        .into_iter()
        .filter(|m| only.as_ref().is_none_or(|o| m.name.contains(o.as_str())))
        .collect();
    println!("{n} points per map, fastest of {rounds} rounds, one thread");
    println!(
        "| map | tris | grid | inside ns | first inside call µs | closest ns | first closest call µs |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (mut sum_in, mut sum_cl) = (0.0, 0.0);
    for m in &maps {
        let c = &m.collider;
        let p0 = m.points[0];
        let t = Instant::now();
        black_box(c.contains_point(p0).unwrap());
        let first_in = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        black_box(c.closest_point(p0).unwrap());
        let first_cl = t.elapsed().as_secs_f64() * 1e6;
        let (mut best_in, mut best_cl) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..rounds {
            best_in = best_in.min(time_each(&m.points, |&p| c.contains_point(p).unwrap()));
            best_cl = best_cl.min(time_each(&m.points, |&p| c.closest_point(p).unwrap()));
        }
        sum_in += best_in;
        sum_cl += best_cl;
        let st = c.grid_stats();
        let [x, y, z] = st.dims;
        println!(
            "| {} | {} | {x}x{y}x{z} | {best_in:.0} | {first_in:.0} | {best_cl:.0} | {first_cl:.0} |",
            m.name, st.triangles
        );
    }
    let k = maps.len().max(1) as f64;
    println!(
        "| mean of {} | | | {:.0} | | {:.0} | |",
        maps.len(),
        sum_in / k,
        sum_cl / k
    );
}
