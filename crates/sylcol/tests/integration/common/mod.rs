//! Meshes and checks shared by the build tests and benchmarks.

use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::format::mcol::{CellLink, Mcol};
use sylcol::geom::{Aabb, enclosing_radius, sphere_reaches_box, triangle_overlaps_box};
use sylcol::grid::GridSpec;
use sylcol::prelude::*;

/// A closed, lumpy UV sphere ("asteroid") of `slices * 2 * (stacks - 1)`
/// triangles, minus `drop` triangles from the end.
pub fn asteroid(slices: u32, stacks: u32, radius: f32, drop: usize, seed: u64) -> TriMesh {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vertices = vec![Vec3::new(0.0, 0.0, radius)];
    for i in 1..stacks {
        let theta = std::f32::consts::PI * i as f32 / stacks as f32;
        for j in 0..slices {
            let phi = std::f32::consts::TAU * j as f32 / slices as f32;
            let r = radius * rng.random_range(0.9..1.1);
            vertices.push(Vec3::new(
                r * theta.sin() * phi.cos(),
                r * theta.sin() * phi.sin(),
                r * theta.cos(),
            ));
        }
    }
    vertices.push(Vec3::new(0.0, 0.0, -radius));
    let south = vertices.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
    let mut triangles = Vec::new();
    for j in 0..slices {
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
    }
    for i in 1..stacks - 1 {
        for j in 0..slices {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j), ring(i + 1, j + 1));
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    for j in 0..slices {
        triangles.push([south, ring(stacks - 1, j + 1), ring(stacks - 1, j)]);
    }
    triangles.truncate(triangles.len() - drop);
    TriMesh::new(vertices, triangles)
}

/// `n` random triangles of assorted sizes inside the box `lo..hi`.
pub fn random_soup(n: usize, lo: f32, hi: f32, seed: u64) -> TriMesh {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for t in 0..n as u32 {
        let size = (hi - lo) * [0.01, 0.1, 0.5][t as usize % 3];
        let a = Vec3::new(
            rng.random_range(lo..hi),
            rng.random_range(lo..hi),
            rng.random_range(lo..hi),
        );
        vertices.push(a);
        for _ in 0..2 {
            let d = Vec3::new(
                rng.random_range(-size..size),
                rng.random_range(-size..size),
                rng.random_range(-size..size),
            );
            vertices.push((a + d).clamp(Vec3::splat(lo), Vec3::splat(hi)));
        }
        triangles.push([3 * t, 3 * t + 1, 3 * t + 2]);
    }
    TriMesh::new(vertices, triangles)
}

/// Checks every property a built MCOL must have against the mesh it was
/// built from, independently of the builder's own code paths.
pub fn assert_valid_build(mesh: &TriMesh, m: &Mcol) {
    assert_eq!(
        &TriMesh::from_mcol(m),
        mesh,
        "geometry differs from the input"
    );
    let h = &m.header;
    for k in 0..3 {
        assert_eq!(
            h.prefix.extent[k],
            h.prefix.bbox_max[k] - h.prefix.bbox_min[k],
            "extent"
        );
    }
    assert_eq!(h.prefix.pads, [1f32.to_bits(), 1f32.to_bits(), 0]);
    for k in 0..3 {
        assert_eq!(
            h.prefix.extent[k] / h.prefix.cell_size[k],
            f32::from(h.grid[k]),
            "grid identity"
        );
    }
    assert_eq!(h.grid[3], 1);
    assert!(h.grid[..3].iter().all(|&n| n >= 1));
    let spec = GridSpec::from_header(h);
    let bounds = spec.bounds();
    for v in &mesh.vertices {
        let p = v.as_dvec3();
        assert!(
            p.cmpge(bounds.min).all() && p.cmple(bounds.max).all(),
            "{v} outside the grid"
        );
    }
    // Triangle spheres enclose their f32 triangle, tightly.
    assert_eq!(m.spheres.len(), mesh.triangles.len());
    for (t, s) in m.spheres.iter().enumerate() {
        let tri = mesh.corners(t);
        let c = DVec3::new(s[0].into(), s[1].into(), s[2].into());
        let need = enclosing_radius(&tri, c);
        assert!(f64::from(s[3]) >= need, "sphere {t} misses a corner");
        assert!(
            bounds.contains_point(c),
            "sphere {t} centre outside the map box"
        );
        let (_, min_r) = sylcol::geom::triangle_min_sphere(&tri);
        assert!(
            f64::from(s[3]) <= min_r * 1.001 + 1e-30_f64.max(need * 1e-6),
            "sphere {t} loose"
        );
    }
    // Cell records, in cell order, linking list records in order.
    assert_eq!(m.cells.len(), spec.cell_count());
    let mut next_record = 0u32;
    for (i, cell) in m.cells.iter().enumerate() {
        match cell.link {
            CellLink::Record(r) => {
                let [x, y, z] = spec.coords(i);
                assert_eq!(cell.index, [x as u8, y as u8, z as u8, 1]);
                assert_eq!((cell.count, r, cell.word3), (1, next_record, 0));
                next_record += 1;
                let list = &m.records[r as usize].triangles;
                assert!(!list.is_empty() && list.windows(2).all(|w| w[0] < w[1]));
                assert!(list.iter().all(|&t| (t as usize) < mesh.triangles.len()));
                let s = cell.sphere;
                let c = DVec3::new(s[0].into(), s[1].into(), s[2].into());
                assert!(
                    sphere_reaches_box(c, s[3].into(), &spec.cell_box(i)),
                    "cell {i} sphere"
                );
                for &t in list {
                    assert!(enclosing_radius(&mesh.corners(t as usize), c) <= f64::from(s[3]));
                }
            }
            CellLink::Raw(w) => {
                assert_eq!((cell.index, cell.count, w, cell.word3), ([0; 4], 0, 0, 0));
                assert_eq!(cell.sphere, [0.0; 4]);
            }
        }
    }
    assert_eq!(next_record as usize, m.records.len());
    let mut listed = vec![false; mesh.triangles.len()];
    for r in &m.records {
        for &t in &r.triangles {
            listed[t as usize] = true;
        }
    }
    assert!(listed.iter().all(|&l| l), "a triangle is in no cell list");
    // The query layer takes the file as it is: its own grid, every sphere
    // kept, no missing list entries.
    let collider = sylcol::query::Collider::from_mcol(m).expect("collider");
    assert_eq!(collider.grid_stats().spheres_replaced, 0);
    assert_eq!(collider.missing_entries(), vec![]);
}

/// Encodes the built model, decodes it back and checks that nothing but the
/// layout changed, and that re-encoding the decoded file (what `rewrite`
/// does) is byte-identical. Returns the encoded bytes.
pub fn assert_encodes_faithfully(m: &Mcol) -> Vec<u8> {
    let bytes = sylcol::format::mcol::encode(m).expect("encode");
    let back = sylcol::format::mcol::decode(&bytes).expect("decode of a built file");
    assert_eq!(
        sylcol::format::mcol::encode(&back).expect("re-encode"),
        bytes,
        "rewrite changed bytes"
    );
    let mut plain = back.clone();
    plain.layout = None;
    plain.header.data_size = m.header.data_size;
    assert_eq!(&plain, m, "decode differs from the built model");
    assert_eq!(
        back.header.data_size as usize + 0x10,
        back.layout.as_ref().map_or(0, |_| {
            bytes.len() - pof0_len(&bytes, back.header.data_size)
        })
    );
    bytes
}

fn pof0_len(bytes: &[u8], data_size: u32) -> usize {
    let at = 0x10 + data_size as usize;
    assert_eq!(&bytes[at..at + 4], b"POF0");
    8 + u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize
}

/// Brute force: every (cell, triangle) pair that overlaps exactly is listed.
/// Returns the number of pairs checked.
pub fn assert_lists_complete(mesh: &TriMesh, m: &Mcol) -> usize {
    let spec = GridSpec::from_header(&m.header);
    let mut pairs = 0;
    for i in 0..spec.cell_count() {
        let cell_box: Aabb = spec.cell_box(i);
        let listed: Vec<u16> = m.cell_lists(i).flatten().copied().collect();
        for t in 0..mesh.triangles.len() {
            if triangle_overlaps_box(&mesh.corners(t), &cell_box) {
                pairs += 1;
                assert!(
                    listed.contains(&(t as u16)),
                    "triangle {t} missing from cell {i}"
                );
            }
        }
    }
    pairs
}
