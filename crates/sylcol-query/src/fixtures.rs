//! Closed test meshes for the query tests and benchmarks: UV spheres with
//! exact triangle counts, subdivided icosahedra, boxes, octahedra; and a
//! plain map maker over any grid (non-cubic cells too) whose lists have no
//! margin ([`map_grid`]: the grid, lists and spheres sylcol's
//! `map_from_mesh` writes into an MCOL file).
//!
//! Compiled for the crate's own tests and, with the feature `fixtures`,
//! for other crates' tests, benches and the benchmark harness; not part
//! of the library's API.

use glam::Vec3;

use crate::collider::Collider;
use crate::geometry::grid::{GridSpec, build_cell_lists};
use crate::geometry::mesh::TriMesh;
use crate::geometry::primitives::triangle_sphere;
use crate::index::grid::StoredGrid;

/// A UV sphere of radius `r` about `centre`: `slices` around, `stacks`
/// bands pole to pole; `2 * slices * (stacks - 1)` triangles, wound
/// outwards. `slices >= 3`, `stacks >= 2`.
pub fn uv_sphere(centre: Vec3, r: f32, slices: u32, stacks: u32) -> TriMesh {
    let mut v = vec![centre + Vec3::Z * r];
    for i in 1..stacks {
        let phi = std::f32::consts::PI * i as f32 / stacks as f32;
        for j in 0..slices {
            let th = std::f32::consts::TAU * j as f32 / slices as f32;
            v.push(centre + r * Vec3::new(phi.sin() * th.cos(), phi.sin() * th.sin(), phi.cos()));
        }
    }
    v.push(centre - Vec3::Z * r);
    let south = v.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + i * slices + j % slices;
    let mut t = Vec::new();
    for j in 0..slices {
        t.push([0, ring(0, j), ring(0, j + 1)]);
        t.push([south, ring(stacks - 2, j + 1), ring(stacks - 2, j)]);
    }
    for i in 0..stacks - 2 {
        for j in 0..slices {
            let (a, b, c, d) = (
                ring(i, j),
                ring(i, j + 1),
                ring(i + 1, j),
                ring(i + 1, j + 1),
            );
            t.push([a, c, d]);
            t.push([a, d, b]);
        }
    }
    TriMesh::new(v, t)
}

/// An icosahedron subdivided `levels` times and pushed onto the sphere of
/// radius `r`: `20 * 4^levels` triangles.
pub fn icosphere(centre: Vec3, r: f32, levels: u32) -> TriMesh {
    let g = (1.0 + 5f32.sqrt()) / 2.0;
    let mut v: Vec<Vec3> = [
        (-1.0, g, 0.0),
        (1.0, g, 0.0),
        (-1.0, -g, 0.0),
        (1.0, -g, 0.0),
        (0.0, -1.0, g),
        (0.0, 1.0, g),
        (0.0, -1.0, -g),
        (0.0, 1.0, -g),
        (g, 0.0, -1.0),
        (g, 0.0, 1.0),
        (-g, 0.0, -1.0),
        (-g, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    #[rustfmt::skip]
    let mut t: Vec<[u32; 3]> = vec![
        [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11],
        [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
        [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9],
        [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
    ];
    for _ in 0..levels {
        let mut mid = std::collections::HashMap::new();
        let mut split = |a: u32, b: u32, v: &mut Vec<Vec3>| {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                v.push(((v[a as usize] + v[b as usize]) * 0.5).normalize());
                v.len() as u32 - 1
            })
        };
        t = t
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (
                    split(a, b, &mut v),
                    split(b, c, &mut v),
                    split(c, a, &mut v),
                );
                [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
            })
            .collect();
    }
    TriMesh::new(v.into_iter().map(|p| centre + p * r).collect(), t)
}

/// The box from `lo` to `hi` as 12 outward-wound triangles.
pub fn cuboid(lo: Vec3, hi: Vec3) -> TriMesh {
    let v = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    #[rustfmt::skip]
    let t = vec![
        [0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], // z faces
        [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7], // y faces
        [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5], // x faces
    ];
    TriMesh::new(v, t)
}

/// The octahedron with corners at `centre +- r` on each axis.
pub fn octahedron(centre: Vec3, r: f32) -> TriMesh {
    let v = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z]
        .map(|d| centre + d * r)
        .to_vec();
    #[rustfmt::skip]
    let t = vec![
        [0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4],
        [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5],
    ];
    TriMesh::new(v, t)
}

/// Two meshes as one.
pub fn merged(a: &TriMesh, b: &TriMesh) -> TriMesh {
    let n = a.vertices.len() as u32;
    let mut m = a.clone();
    m.vertices.extend_from_slice(&b.vertices);
    m.triangles
        .extend(b.triangles.iter().map(|t| t.map(|i| i + n)));
    m
}

/// The stored grid of a map of `mesh` over the grid `lo + cell *
/// (0..dims)` (per axis, so cells need not be cubic): complete lists with
/// no margin (a triangle touching a cell face is listed on both sides; one
/// merely near it is not) and the builder's sphere per triangle. The mesh
/// must lie in the grid.
pub fn map_grid(mesh: &TriMesh, lo: Vec3, cell: Vec3, dims: [u8; 3]) -> StoredGrid {
    let spec = GridSpec {
        origin: lo.as_dvec3(),
        cell: cell.as_dvec3(),
        dims: dims.map(usize::from),
    };
    let mut starts = vec![0u32];
    let mut items = Vec::new();
    for list in build_cell_lists(mesh, &spec, 0.0) {
        items.extend(list);
        starts.push(items.len() as u32);
    }
    let spheres = (0..mesh.triangles.len())
        .map(|t| triangle_sphere(&mesh.corners(t)))
        .collect();
    StoredGrid {
        spec,
        starts,
        items,
        spheres,
    }
}

/// A collider over the map [`map_grid`] makes.
pub fn map_collider(mesh: &TriMesh, lo: Vec3, cell: Vec3, dims: [u8; 3]) -> Collider {
    Collider::from_stored_grid(mesh.clone(), map_grid(mesh, lo, cell, dims)).expect("a valid map")
}
