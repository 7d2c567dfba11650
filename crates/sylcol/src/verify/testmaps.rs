//! Small valid MCOL maps built in memory, for tests and examples: the seeds'
//! box map and a closed sphere-like hull. Lists come from the exact
//! triangle/box test with an optional margin (the original builder's shape:
//! complete, with a few harmless extras); triangle and cell spheres are the
//! builder's ([`crate::build::mcol`]).
//!
//! Compiled for the crate's own tests and, with the feature `fixtures`,
//! for the workspace's integration tests and benches; not part of the
//! library's API.

use glam::Vec3;
use sylcol_format::mcol::Mcol;

use crate::build::mcol::{grid_header, mcol_on_grid};
use crate::mesh::TriMesh;

/// The seeds' box map: 8 vertices, 12 triangles, bbox +-250 000, cell
/// 50 000, a 10x10x10 grid with 488 occupied cells.
pub fn box_map() -> Mcol {
    map_from_mesh(&cube(250_000.0), 250_000.0, 50_000.0, 0.0)
}

/// A closed cube of half-size `r` about the origin: 8 vertices, 12
/// outward-facing triangles, vertex `i` at (+-r, +-r, +-r) by its bits.
pub fn cube(r: f32) -> TriMesh {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -r } else { r },
                if i & 2 == 0 { -r } else { r },
                if i & 4 == 0 { -r } else { r },
            )
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t = quads
        .iter()
        .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
        .collect();
    TriMesh::new(v, t)
}

/// `base` subdivided `levels` times (each triangle into four), every vertex
/// pushed onto the unit sphere.
pub fn subdivided_sphere(base: TriMesh, levels: u32) -> TriMesh {
    let TriMesh {
        mut vertices,
        triangles: mut t,
    } = base;
    for v in &mut vertices {
        *v = v.normalize();
    }
    for _ in 0..levels {
        let mut mids = std::collections::HashMap::new();
        let mut next = Vec::with_capacity(t.len() * 4);
        for &[a, b, c] in &t {
            let mut mid = |x: u32, y: u32| {
                *mids.entry((x.min(y), x.max(y))).or_insert_with(|| {
                    let m = (vertices[x as usize] + vertices[y as usize]) * 0.5;
                    vertices.push(m.normalize());
                    vertices.len() as u32 - 1
                })
            };
            let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
            next.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
        t = next;
    }
    TriMesh::new(vertices, t)
}

/// A closed hull: an octahedron subdivided `levels` times, pushed onto a
/// sphere of radius 150 000, in a +-250 000 box with 50 000 cells. Lists
/// are built with `margin` (e.g. 500: a few extras, as in the game's files).
pub fn sphere_map(levels: u32, margin: f64) -> Mcol {
    let v = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let t = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    let mut mesh = subdivided_sphere(TriMesh::new(v, t), levels);
    // Off-centre so faces do not sit on cell planes.
    let shift = Vec3::new(3_171.0, -1_234.0, 777.0);
    for p in &mut mesh.vertices {
        *p = *p * 150_000.0 + shift;
    }
    map_from_mesh(&mesh, 250_000.0, 50_000.0, margin)
}

/// A planted defect: removes the second entry of the first list holding
/// more than three. Returns the triangle removed.
pub fn drop_list_entry(m: &mut Mcol) -> u16 {
    let list = m
        .records
        .iter_mut()
        .map(|r| &mut r.triangles)
        .find(|l| l.len() > 3)
        .expect("a list of more than three entries");
    list.remove(1)
}

/// A map of `mesh` over the cube +-`half` with cubic cells of `cell`.
pub fn map_from_mesh(mesh: &TriMesh, half: f32, cell: f32, margin: f64) -> Mcol {
    let n = (2.0 * half / cell) as u8;
    let header = grid_header([-half; 3], [half; 3], [cell; 3], [n; 3]);
    mcol_on_grid(mesh, header, margin)
}
