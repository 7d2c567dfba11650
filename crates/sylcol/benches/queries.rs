//! Ray casting through a map's own grid, a derived grid, brute force and
//! parry3d 0.31 (`TriMesh` + BVH, `cast_local_ray`), side by side on the
//! same rays in one run.
//!
//! `cargo bench -p sylcol --bench queries` runs the criterion groups, then
//! prints a summary table: ns per ray over `SUMMARY_RAYS` rays (fewer for
//! brute force) and the ratio to parry3d, each method's fastest of
//! `ROUNDS` (default 3) interleaved rounds. `SCENE=text` and
//! `METHOD=text` keep only the scenes / methods whose names contain it. `SUMMARY_ONLY=1` in the
//! environment skips the criterion part.
//!
//! Meshes: UV spheres of 1 024, 4 096 and 65 024 triangles (the largest
//! count below MCOL's u16 limit), radius 20 000, as maps over the grid
//! sylcol's builder rule picks for them (cell 5 000, 8 x 8 x 8); rays from
//! a sphere of radius 40 000 at random points inside the mesh. And the
//! hand-made fixture maps (`tests/fixtures/*.mcol`), rays from random
//! points inside the map in random directions. And the eleven sample maps
//! of `samples/MiscBin.pak` (synthetic, with the game's grids: 5^3 and
//! 10^3 cells, 12-1 164 triangles), each through its own grid: half the
//! rays from random points in the map's bounding box in random directions,
//! half from outside (a sphere of twice the box's half-diagonal) aimed at a
//! random point in the box; the table ends with their aggregate.

mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use parry3d::query::{Ray as PRay, RayCast};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::prelude::*;
use sylcol::query::fixtures::{icosphere, map_from_mesh, merged, uv_sphere};
use sylcol::query::{Collider, Ray};

/// Rays per method in the summary table.
const SUMMARY_RAYS: usize = 1_000_000;
/// Rounds of the summary; each method's fastest round is reported.
const SUMMARY_ROUNDS: usize = 3;
/// Brute force is O(triangles) per ray: this many triangle tests at most.
const BRUTE_BUDGET: usize = 400_000_000;

/// One benchmark scene.
struct Scene {
    name: String,
    map: Collider,
    derived: Collider,
    parry: parry3d::shape::TriMesh,
    rays: Vec<Ray>,
}

fn sphere_scene(slices: u32, stacks: u32, rays: usize) -> Scene {
    let mesh = uv_sphere(Vec3::ZERO, 20_000.0, slices, stacks);
    let map = map_from_mesh(&mesh, Vec3::splat(-20_000.0), Vec3::splat(5_000.0), [8; 3]);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let rays = (0..rays)
        .map(|_| {
            let o = unit(&mut rng) * 40_000.0;
            let target = unit(&mut rng) * 20_000.0 * rng.random::<f32>();
            Ray::new(o, (target - o).normalize())
        })
        .collect();
    let name = format!("sphere {}k", mesh.triangles.len() / 1000);
    scene(name, &mesh, Collider::from_mcol(&map).expect("map"), rays)
}

/// A sparse level: 64 small solids (icospheres of 320 triangles,
/// radius 2 000) scattered through a 100 000-unit box, as a map over a
/// 20 x 20 x 20 grid of 5 000-unit cells; rays from random points in the
/// box in random directions (most miss and cross the whole grid: the long
/// walks of a game's LINE checks in open space).
fn scatter_scene(rays: usize) -> Scene {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut mesh = icosphere(Vec3::splat(50_000.0), 2_000.0, 2);
    for _ in 1..64 {
        let c = Vec3::from_array(std::array::from_fn(|_| rng.random_range(3_000.0..97_000.0)));
        mesh = merged(&mesh, &icosphere(c, 2_000.0, 2));
    }
    let map = map_from_mesh(&mesh, Vec3::ZERO, Vec3::splat(5_000.0), [20; 3]);
    let rays = (0..rays)
        .map(|_| {
            let o = Vec3::from_array(std::array::from_fn(|_| rng.random_range(0.0..100_000.0)));
            Ray::new(o, unit(&mut rng))
        })
        .collect();
    let name = format!("scatter {}k", mesh.triangles.len() / 1000);
    scene(name, &mesh, Collider::from_mcol(&map).expect("map"), rays)
}

fn fixture_scene(name: &str, bytes: &[u8], rays: usize) -> Scene {
    let m = sylcol::format::mcol::decode(bytes).expect("fixture");
    let lo = Vec3::from_array(m.header.prefix.bbox_min);
    let hi = Vec3::from_array(m.header.prefix.bbox_max);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let rays = (0..rays)
        .map(|_| {
            let t = Vec3::from_array(std::array::from_fn(|_| rng.random::<f32>()));
            Ray::new(lo + (hi - lo) * t, unit(&mut rng))
        })
        .collect();
    let mesh = TriMesh::from_mcol(&m);
    scene(
        name.to_string(),
        &mesh,
        Collider::from_mcol(&m).expect("map"),
        rays,
    )
}

/// The eleven MCOL maps of the sample archive, one scene each, in index
/// order (seed 4 for every map's rays).
fn sample_map_scenes(rays: usize) -> Vec<Scene> {
    let mut scenes = Vec::new();
    for (hash, m) in common::sample_mcols() {
        let name = format!("map {hash:08x}");
        scenes.push(scene(
            name,
            &TriMesh::from_mcol(&m),
            Collider::from_mcol(&m).expect("map"),
            map_rays(&m, rays),
        ));
    }
    scenes
}

/// Game-like rays for a map: half from random points in its bounding box
/// in random directions, half from outside aimed through the box.
fn map_rays(m: &sylcol::format::mcol::Mcol, rays: usize) -> Vec<Ray> {
    let lo = Vec3::from_array(m.header.prefix.bbox_min);
    let hi = Vec3::from_array(m.header.prefix.bbox_max);
    let (centre, reach) = ((lo + hi) * 0.5, (hi - lo).length());
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let in_box = |rng: &mut ChaCha8Rng| {
        lo + (hi - lo) * Vec3::from_array(std::array::from_fn(|_| rng.random::<f32>()))
    };
    (0..rays)
        .map(|i| {
            if i % 2 == 0 {
                Ray::new(in_box(&mut rng), unit(&mut rng))
            } else {
                let o = centre + unit(&mut rng) * reach;
                Ray::new(o, (in_box(&mut rng) - o).normalize())
            }
        })
        .collect()
}

fn scene(name: String, mesh: &TriMesh, map: Collider, rays: Vec<Ray>) -> Scene {
    let derived = map
        .with_derived_grid(map.suggested_cells_per_axis())
        .expect("derived grid");
    let parry = parry3d::shape::TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone())
        .expect("parry mesh");
    Scene {
        name,
        map,
        derived,
        parry,
        rays,
    }
}

/// A random unit vector.
fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0f32..1.0)));
        if (1e-3..=1.0).contains(&v.length_squared()) {
            return v.normalize();
        }
    }
}

/// The methods compared; each returns a checksum so nothing is elided.
#[derive(Clone, Copy, PartialEq)]
enum Method {
    MapGrid,
    DerivedGrid,
    Parry,
    Brute,
}

impl Method {
    const ALL: [Method; 4] = [
        Method::MapGrid,
        Method::DerivedGrid,
        Method::Parry,
        Method::Brute,
    ];

    fn name(self) -> &'static str {
        match self {
            Method::MapGrid => "map grid",
            Method::DerivedGrid => "derived grid",
            Method::Parry => "parry3d",
            Method::Brute => "brute force",
        }
    }

    fn cast(self, s: &Scene, r: &Ray) -> f32 {
        let max = f32::MAX;
        match self {
            Method::MapGrid => s
                .map
                .cast_ray(r, max)
                .ok()
                .flatten()
                .map(|h| h.time_of_impact),
            Method::DerivedGrid => s
                .derived
                .cast_ray(r, max)
                .ok()
                .flatten()
                .map(|h| h.time_of_impact),
            Method::Brute => s
                .map
                .cast_ray_brute_force(r, max)
                .ok()
                .flatten()
                .map(|h| h.time_of_impact),
            Method::Parry => s
                .parry
                .cast_local_ray(&PRay::new(r.origin, r.dir), max, false),
        }
        .unwrap_or(-1.0)
    }

    /// Rays this method gets in the summary.
    fn rays(self, s: &Scene) -> usize {
        match self {
            Method::Brute => (BRUTE_BUDGET / s.map.mesh().triangles.len().max(1)).min(s.rays.len()),
            _ => s.rays.len(),
        }
    }
}

fn criterion_groups(c: &mut Criterion, scenes: &[Scene]) {
    const BATCH: usize = 1024;
    for s in scenes {
        let mut g = c.benchmark_group(format!("cast_ray/{}", s.name));
        g.throughput(Throughput::Elements(BATCH as u64));
        for m in Method::ALL {
            if m == Method::Brute && s.map.mesh().triangles.len() > 5_000 {
                continue;
            }
            g.bench_function(BenchmarkId::from_parameter(m.name()), |b| {
                b.iter(|| s.rays[..BATCH].iter().map(|r| m.cast(s, r)).sum::<f32>())
            });
        }
        g.finish();
    }
}

/// ns per ray for `m` on `s`, and how many rays hit.
fn measure(m: Method, s: &Scene) -> (f64, usize) {
    let rays = &s.rays[..m.rays(s)];
    let start = Instant::now();
    let mut hits = 0;
    for r in rays {
        hits += usize::from(black_box(m.cast(s, black_box(r))) >= 0.0);
    }
    (start.elapsed().as_nanos() as f64 / rays.len() as f64, hits)
}

/// Prints the table; returns each scene's fastest ns per ray by method.
fn summary(scenes: &[Scene], rounds: usize) -> Vec<Vec<(Method, f64)>> {
    let mut all = Vec::new();
    println!();
    println!(
        "| scene | triangles | grid (mean / max list) | method | rays | hits | ns / ray | parry3d / this |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for s in scenes {
        // Rounds interleave the methods; each keeps its fastest round, so
        // a burst of load from other processes on the machine hits one
        // round of one method, not the figure.
        let mut results: Vec<(Method, f64, usize, usize)> = Method::ALL
            .iter()
            .map(|&m| (m, f64::INFINITY, 0, m.rays(s)))
            .collect();
        let only = std::env::var("METHOD").ok();
        results.retain(|r| {
            only.as_ref()
                .is_none_or(|o| r.0.name().contains(o.as_str()))
        });
        for _ in 0..rounds {
            for r in &mut results {
                let (ns, hits) = measure(r.0, s);
                (r.1, r.2) = (r.1.min(ns), hits);
            }
        }
        let parry = results
            .iter()
            .find(|r| r.0 == Method::Parry)
            .map_or(f64::NAN, |r| r.1);
        all.push(results.iter().map(|r| (r.0, r.1)).collect());
        for (m, ns, hits, n) in results {
            let grid = match m {
                Method::MapGrid => grid_text(&s.map),
                Method::DerivedGrid => grid_text(&s.derived),
                _ => "-".to_string(),
            };
            println!(
                "| {} | {} | {grid} | {} | {n} | {hits} | {ns:.0} | {:.2} |",
                s.name,
                s.map.mesh().triangles.len(),
                m.name(),
                parry / ns
            );
        }
    }
    all
}

/// The aggregate over the sample-map scenes: each method's mean ns per
/// ray (every map weighted alike), and parry3d's mean over it.
fn map_aggregate(scenes: &[Scene], results: &[Vec<(Method, f64)>]) {
    let maps: Vec<&Vec<(Method, f64)>> = scenes
        .iter()
        .zip(results)
        .filter(|(s, _)| s.name.starts_with("map "))
        .map(|(_, r)| r)
        .collect();
    if maps.is_empty() {
        return;
    }
    let mean = |m: Method| {
        let ns: Vec<f64> = maps
            .iter()
            .filter_map(|r| r.iter().find(|x| x.0 == m).map(|x| x.1))
            .collect();
        ns.iter().sum::<f64>() / ns.len() as f64
    };
    let parry = mean(Method::Parry);
    println!();
    println!(
        "| {} sample maps, mean | method | ns / ray | parry3d / this |",
        maps.len()
    );
    println!("|---|---|---|---|");
    for m in Method::ALL {
        let ns = mean(m);
        if ns.is_finite() {
            println!("| all | {} | {ns:.0} | {:.2} |", m.name(), parry / ns);
        }
    }
}

fn grid_text(c: &Collider) -> String {
    let st = c.grid_stats();
    let [x, y, z] = st.dims;
    format!("{x}x{y}x{z} ({:.1} / {})", st.mean_list, st.max_list)
}

fn main() {
    let summary_only = std::env::var_os("SUMMARY_ONLY").is_some();
    let n = std::env::var("RAYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SUMMARY_RAYS);
    let mut scenes = vec![
        sphere_scene(32, 17, n),
        sphere_scene(64, 33, n),
        sphere_scene(256, 128, n),
        scatter_scene(n),
        fixture_scene(
            "box.mcol",
            include_bytes!("../../../tests/fixtures/box.mcol"),
            n,
        ),
        fixture_scene(
            "twin.mcol",
            include_bytes!("../../../tests/fixtures/twin.mcol"),
            n,
        ),
    ];
    scenes.extend(sample_map_scenes(n));
    let only = std::env::var("SCENE").ok();
    let scenes: Vec<Scene> = scenes
        .into_iter()
        .filter(|s| only.as_ref().is_none_or(|o| s.name.contains(o.as_str())))
        .collect();
    if !summary_only {
        let mut c = Criterion::default()
            .configure_from_args()
            .sample_size(20)
            .warm_up_time(std::time::Duration::from_millis(500))
            .measurement_time(std::time::Duration::from_secs(2));
        criterion_groups(&mut c, &scenes);
        c.final_summary();
    }
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SUMMARY_ROUNDS);
    let results = summary(&scenes, rounds);
    map_aggregate(&scenes, &results);
}
