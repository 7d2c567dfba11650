//! The query benchmark of issue 34's move, compiled once against the
//! commit before the move (1eb508f) and once against the move (9f1d099):
//! the same scenes and inputs, one line per scene and query kind with the
//! best ns per query of `ROUNDS` runs. `run.py` alternates the two builds.
//!
//! Usage: movebench MAPS_DIR (the MCOL files of samples/MiscBin.pak).

use std::hint::black_box;
use std::time::Instant;

use glam::Vec3;
use sylcol::TriMesh;
use sylcol::format::mcol;
use sylcol::query::{Collider, Ray, fixtures};
#[cfg(feature = "post")]
use sylcol::mesh::MeshFromFile;
#[cfg(feature = "post")]
use sylcol::query::ColliderFromMcol;

/// A deterministic xorshift generator (the same inputs in both builds).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn in_box(&mut self, lo: Vec3, hi: Vec3) -> Vec3 {
        Vec3::new(
            lo.x + (hi.x - lo.x) * self.next(),
            lo.y + (hi.y - lo.y) * self.next(),
            lo.z + (hi.z - lo.z) * self.next(),
        )
    }
    fn dir(&mut self) -> Vec3 {
        loop {
            let d = Vec3::new(self.next(), self.next(), self.next()) * 2.0 - 1.0;
            if d.length_squared() > 0.01 && d.length_squared() <= 1.0 {
                return d.normalize();
            }
        }
    }
}

fn bounds(mesh: &TriMesh) -> (Vec3, Vec3) {
    let lo = mesh.vertices.iter().fold(Vec3::splat(f32::MAX), |a, &v| a.min(v));
    let hi = mesh.vertices.iter().fold(Vec3::splat(f32::MIN), |a, &v| a.max(v));
    (lo, hi)
}

/// Queries timed together: short enough that a run of one is seldom
/// preempted on a loaded machine; each chunk's figure is its fastest of
/// `rounds`, and a scene's figure the sum of its chunks' over `n`.
const CHUNK: usize = 1000;

/// Best ns per item over `n` items, chunk by chunk, and a check value.
fn time(rounds: usize, n: usize, mut f: impl FnMut(std::ops::Range<usize>) -> u64) -> (f64, u64) {
    let mut total = 0.0;
    let mut check = 0;
    for start in (0..n).step_by(CHUNK) {
        let range = start..(start + CHUNK).min(n);
        let mut best = f64::MAX;
        let mut c = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            c = black_box(f(range.clone()));
            best = best.min(t.elapsed().as_nanos() as f64);
        }
        total += best;
        check += c;
    }
    (total / n as f64, check)
}

fn bench_scene(name: &str, grid: &Collider, bvh: &Collider, mesh: &TriMesh, rounds: usize) {
    let (lo, hi) = bounds(mesh);
    let diag = (hi - lo).length();
    let pad = (hi - lo) * 0.1;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let n_rays = 200_000;
    let rays: Vec<Ray> = (0..n_rays)
        .map(|_| Ray::new(rng.in_box(lo - pad, hi + pad), rng.dir()))
        .collect();
    let n_pts = 50_000;
    let points: Vec<Vec3> = (0..n_pts).map(|_| rng.in_box(lo - pad, hi + pad)).collect();
    let spheres: Vec<(Vec3, f32, Vec3)> = (0..n_pts)
        .map(|i| {
            let r = diag * [0.001, 0.01, 0.1][i % 3];
            (rng.in_box(lo - pad, hi + pad), r, rng.dir() * diag * 0.2)
        })
        .collect();
    let hits = |c: &Collider, r: std::ops::Range<usize>| {
        rays[r]
            .iter()
            .filter(|r| c.cast_ray(r, f32::INFINITY).ok().flatten().is_some())
            .count() as u64
    };
    let report = |kind: &str, (ns, check): (f64, u64)| {
        println!("{name}\t{kind}\t{ns:.2}\t{check}");
    };
    report("ray-grid", time(rounds, n_rays, |r| hits(grid, r)));
    report("ray-bvh", time(rounds, n_rays, |r| hits(bvh, r)));
    report(
        "batch-bvh",
        time(rounds, n_rays, |r| {
            let out = bvh.cast_rays(&rays[r], f32::INFINITY).expect("batch");
            out.iter().filter(|h| h.is_some()).count() as u64
        }),
    );
    report(
        "inside",
        time(rounds, n_pts, |r| {
            points[r]
                .iter()
                .filter(|&&p| grid.contains_point(p).unwrap_or(false))
                .count() as u64
        }),
    );
    report(
        "closest",
        time(rounds, n_pts, |r| {
            points[r]
                .iter()
                .map(|&p| grid.closest_point(p).ok().flatten().map_or(0, |c| u64::from(c.triangle)))
                .sum()
        }),
    );
    report(
        "sweep",
        time(rounds, n_pts, |r| {
            spheres[r]
                .iter()
                .filter(|(c, rad, m)| grid.sweep_sphere(*c, *rad, *m).ok().flatten().is_some())
                .count() as u64
        }),
    );
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: movebench MAPS_DIR");
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("MAPS_DIR")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        let Ok(m) = mcol::decode(&bytes) else { continue };
        let grid = Collider::from_mcol(&m).expect("collider");
        let bvh = Collider::from_mcol(&m).expect("collider").with_bvh();
        let mesh = sylcol::mesh::TriMesh::from_mcol(&m);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        bench_scene(&name, &grid, &bvh, &mesh, rounds);
    }
    for (slices, stacks, label) in [(32, 16, "sphere1k"), (64, 32, "sphere4k"), (128, 64, "sphere16k"), (256, 128, "sphere65k")] {
        let mesh = fixtures::uv_sphere(Vec3::ZERO, 100.0, slices, stacks);
        let grid = Collider::from_mesh(&mesh).expect("collider");
        let bvh = Collider::from_mesh(&mesh).expect("collider").with_bvh();
        bench_scene(label, &grid, &bvh, &mesh, rounds);
    }
}
