//! The MCOL builder against parry3d's BVH construction over the same
//! 65 535-triangle mesh, in one run; prints the time ratio.
//!
//! `cargo bench -p sylcol --bench build`

// The bench uses a few of the tests' helpers.
#[allow(dead_code)]
#[path = "../tests/integration/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_main};
use sylcol::TriMesh;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};

fn limit_mesh() -> TriMesh {
    common::asteroid(256, 129, 40_000.0, 1, 3)
}

fn parry_inputs(mesh: &TriMesh) -> (Vec<parry3d::math::Vector>, Vec<[u32; 3]>) {
    let v = mesh
        .vertices
        .iter()
        .map(|p| parry3d::math::Vector::new(p.x, p.y, p.z))
        .collect();
    (v, mesh.triangles.clone())
}

fn sylcol_build(mesh: &TriMesh) {
    black_box(build_mcol(black_box(mesh), &McolBuildOptions::default()).expect("build"));
}

fn sylcol_build_and_encode(mesh: &TriMesh) {
    let m = build_mcol(black_box(mesh), &McolBuildOptions::default()).expect("build");
    black_box(sylcol::format::mcol::encode(&m).expect("encode"));
}

fn parry_build(mesh: &TriMesh) {
    // The input copy is part of parry's cost as it is part of ours (the
    // model owns its arrays).
    let (v, i) = parry_inputs(mesh);
    black_box(parry3d::shape::TriMesh::new(v, i).expect("parry"));
}

fn benches(c: &mut Criterion) {
    let mesh = limit_mesh();
    assert_eq!(mesh.triangles.len(), 65_535);
    let mut g = c.benchmark_group("build_65535_triangles");
    g.sample_size(30);
    g.bench_function("sylcol build_mcol", |b| b.iter(|| sylcol_build(&mesh)));
    g.bench_function("sylcol build_mcol + encode", |b| {
        b.iter(|| sylcol_build_and_encode(&mesh))
    });
    g.bench_function("parry3d TriMesh::new", |b| b.iter(|| parry_build(&mesh)));
    g.finish();
    print_ratio(&mesh);
}

/// One way of building from a mesh.
type Builder = fn(&TriMesh);

/// Interleaved runs of the three, medians, and the ratios to parry.
fn print_ratio(mesh: &TriMesh) {
    let time = |f: &Builder| {
        let t = Instant::now();
        f(mesh);
        t.elapsed()
    };
    let runs: [(&str, Builder); 3] = [
        ("sylcol build_mcol", sylcol_build),
        ("sylcol build_mcol + encode", sylcol_build_and_encode),
        ("parry3d TriMesh::new", parry_build),
    ];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); runs.len()];
    for _ in 0..41 {
        for (k, (_, f)) in runs.iter().enumerate() {
            samples[k].push(time(f));
        }
    }
    let medians: Vec<Duration> = samples
        .iter_mut()
        .map(|s| {
            s.sort();
            s[s.len() / 2]
        })
        .collect();
    let parry = medians[2].as_secs_f64();
    println!("median of 41 interleaved runs, 65 535 triangles:");
    for ((name, _), m) in runs.iter().zip(&medians) {
        println!(
            "  {name:<28} {m:>12.3?}  ratio to parry3d = {:.3}",
            m.as_secs_f64() / parry
        );
    }
}

/// criterion's group (in a module of its own: the macro's public function
/// has no documentation).
mod group {
    criterion::criterion_group!(build, super::benches);
}

criterion_main!(group::build);
