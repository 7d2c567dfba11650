//! The program, run as the harness runs it.

use glam::Vec3;
use sylcol::TriMesh;

use super::{Layout, TinyScene, parse};

/// A `n` x `n` grid of unit squares (two triangles each) in z = 0.
fn grid(n: u32) -> TriMesh {
    let v = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| Vec3::new(i as f32, j as f32, 0.0)))
        .collect();
    let at = |i: u32, j: u32| i * (n + 1) + j;
    let t = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .flat_map(|(i, j)| {
            [
                [at(i, j), at(i + 1, j), at(i, j + 1)],
                [at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)],
            ]
        })
        .collect();
    TriMesh::new(v, t)
}

/// The rays tinybvh-rs 0.1.0-beta.3 got wrong (benches/queries.md,
/// "tinybvh"): straight down through every cell, two direction components
/// zero, then one ray leaving the grid. Every layout hits each at t = 1,
/// on the cell's first triangle, and misses the last; in chunks of 100
/// rays (17 of them), each timed once.
#[test]
fn every_layout_hits_axis_aligned_rays_on_a_grid() {
    let n = 40;
    let mut rays: Vec<[f32; 6]> = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| [i as f32 + 0.25, j as f32 + 0.25, 1.0, 0.0, 0.0, -1.0])
        .collect();
    rays.push([0.5, 0.5, 1.0, 0.0, 0.0, 1.0]);
    let scene = TinyScene::new(&grid(n), &rays).expect("written");
    let round = scene.run(100, true).expect("the program runs");
    assert_eq!(round.ns.len(), Layout::ALL.len());
    assert_eq!(round.answers.len(), Layout::ALL.len());
    for (l, (ns, a)) in Layout::ALL.iter().zip(round.ns.iter().zip(&round.answers)) {
        assert_eq!(ns.len(), 17, "{}", l.name());
        assert!(
            ns.iter().all(|t| t.is_finite() && *t >= 0.0),
            "{}",
            l.name()
        );
        for i in 0..n {
            for j in 0..n {
                let k = (i * n + j) as usize;
                let (t, id) = (a.t[k], a.id[k]);
                assert!((t - 1.0).abs() < 1e-6, "{}: cell {i},{j}: t {t}", l.name());
                assert_eq!(id, 2 * (i * n + j), "{}: cell {i},{j}", l.name());
            }
        }
        let last = rays.len() - 1;
        assert_eq!(
            (a.t[last], a.id[last]),
            (f32::INFINITY, u32::MAX),
            "{}",
            l.name()
        );
    }
    // Without answers the program writes only the times.
    let round = scene.run(4096, false).expect("the program runs");
    assert!(round.answers.is_empty());
    assert!(round.ns.iter().all(|row| row.len() == 1));
}

#[test]
fn a_single_triangle_is_refused_and_the_files_go_with_the_scene() {
    let one = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
    let ray = [[0.25, 0.25, 1.0, 0.0, 0.0, -1.0]];
    let scene = TinyScene::new(&one, &ray).expect("written");
    let err = scene.run(4096, true).err().expect("refused");
    assert!(err.contains("fewer than two triangles"), "{err}");
    let folder = scene.folder().to_path_buf();
    assert!(folder.join("scene.bin").is_file());
    drop(scene);
    assert!(!folder.exists(), "{}", folder.display());
}

/// An output the harness did not ask for, or cut short, is an error
/// naming the byte, never a panic.
#[test]
fn a_wrong_output_is_refused() {
    let mut good = b"SYTBOUT1".to_vec();
    for w in [6u32, 1, 2, 1] {
        good.extend_from_slice(&w.to_le_bytes());
    }
    good.extend((0..6).flat_map(|k| f64::from(k).to_le_bytes()));
    good.extend((0..24u32).flat_map(|k| k.to_le_bytes()));
    let round = parse(&good, 2, 4096, true).expect("well formed");
    assert_eq!(round.ns[5], vec![5.0]);
    assert_eq!(round.answers[1].id, vec![5, 7]);
    let cases: [(&[u8], &str); 4] = [
        (&good[..good.len() - 1], "byte 24: 167 bytes, not the 168"),
        (&good[..20], "byte 20: the file ends"),
        (b"SYTBOUT2", "byte 0: not"),
        (&[], "byte 0: not"),
    ];
    for (bytes, want) in cases {
        let err = parse(bytes, 2, 4096, true).err().expect("refused");
        assert!(err.contains(want), "{err}");
    }
    let err = parse(&good, 3, 4096, true).err().expect("refused");
    assert!(err.contains("byte 16: 2 rays, not 3"), "{err}");
}
