//! Times `sylcol::topology::topology` on one mesh and prints the figures.
//!
//! `cargo bench -p sylcol --bench topology` builds a 327 680-triangle
//! icosphere itself; with `SYLCOL_TOPOLOGY_MESH=FILE` it reads the mesh
//! `benches/topology_vs_trimesh.py` wrote (u32 LE nv, u32 LE nt, f32 LE
//! xyz x nv, u32 LE abc x nt), so both tools time the same triangles.
//! Output: one `key=value` line per figure, for the script to parse.

use std::hint::black_box;
use std::time::Instant;

use glam::Vec3;
use sylcol::TriMesh;
use sylcol::topology::topology;
use sylcol::verify::testmaps::subdivided_sphere;

fn main() {
    let (vertices, triangles) = match std::env::var("SYLCOL_TOPOLOGY_MESH") {
        Ok(path) => read_mesh(&path),
        Err(_) => icosphere(7),
    };
    let runs: usize = std::env::var("SYLCOL_TOPOLOGY_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    for _ in 0..3 {
        black_box(topology(&vertices, &triangles));
    }
    let mut times = Vec::with_capacity(runs);
    let mut topo = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        topo = Some(black_box(topology(&vertices, &triangles)));
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_unstable_by(f64::total_cmp);
    let t = topo.expect("at least one run");
    println!("vertices={} triangles={}", t.vertices, t.triangles);
    println!(
        "edges={} watertight={} winding_consistent={} euler={} components={}",
        t.edges, t.manifold, t.winding_consistent, t.euler, t.components
    );
    println!(
        "runs={runs} median_ms={} min_ms={}",
        times[runs / 2],
        times[0]
    );
}

fn read_mesh(path: &str) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let (nv, nt) = (word(0) as usize, word(1) as usize);
    assert_eq!(
        bytes.len(),
        8 + 12 * (nv + nt),
        "{path}: size does not match counts"
    );
    let vertices = (0..nv)
        .map(|v| {
            let f = |k| f32::from_bits(word(2 + 3 * v + k));
            Vec3::new(f(0), f(1), f(2))
        })
        .collect();
    let base = 2 + 3 * nv;
    let triangles = (0..nt)
        .map(|t| [0, 1, 2].map(|k| word(base + 3 * t + k)))
        .collect();
    (vertices, triangles)
}

/// An icosahedron subdivided `levels` times (20 * 4^levels triangles).
fn icosphere(levels: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let p = (1.0 + 5f32.sqrt()) / 2.0;
    let v: Vec<Vec3> = [
        [-1.0, p, 0.0],
        [1.0, p, 0.0],
        [-1.0, -p, 0.0],
        [1.0, -p, 0.0],
        [0.0, -1.0, p],
        [0.0, 1.0, p],
        [0.0, -1.0, -p],
        [0.0, 1.0, -p],
        [p, 0.0, -1.0],
        [p, 0.0, 1.0],
        [-p, 0.0, -1.0],
        [-p, 0.0, 1.0],
    ]
    .map(Vec3::from_array)
    .to_vec();
    let t = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    let m = subdivided_sphere(TriMesh::new(v, t), levels);
    (m.vertices, m.triangles)
}
