//! Mesh topology: edges, manifoldness, winding, Euler characteristic,
//! connected components, degenerate triangles and unreferenced vertices.
//!
//! This is the hot path of `sylcol verify` on large user meshes, so it avoids
//! hashing and general sorting: half-edges are bucketed by their lower vertex
//! with one counting pass and one scatter pass (two linear sweeps over the
//! triangles), each bucket — a handful of entries — is sorted in place, and
//! components come from a union-find over the vertices with path halving.

mod edges;
mod faults;

use glam::Vec3;
use serde::Serialize;

pub use edges::is_degenerate;
use edges::{EdgeBuckets, UnionFind, half_edges};
pub use faults::{EdgeFault, EdgeFaults, edge_faults, triangle_components};

/// What the topology pass found. Counts are exact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Topology {
    /// Vertices in the mesh (referenced or not).
    pub vertices: u64,
    /// Triangles in the mesh.
    pub triangles: u64,
    /// Distinct undirected edges.
    pub edges: u64,
    /// Edges shared by exactly two triangles.
    pub edges_shared_by_two: u64,
    /// Edges used by one triangle only (open edges).
    pub boundary_edges: u64,
    /// Edges shared by three or more triangles.
    pub nonmanifold_edges: u64,
    /// Every edge is shared by exactly two triangles (a closed 2-manifold
    /// in the edge sense; a mesh with no edges is not manifold).
    pub manifold: bool,
    /// Edges shared by two triangles that traverse it in opposite directions.
    pub consistently_wound_edges: u64,
    /// Every edge shared by two is traversed once each way.
    pub winding_consistent: bool,
    /// V − E + F, with V the referenced vertices.
    pub euler: i64,
    /// Connected components of triangles sharing a vertex.
    pub components: u64,
    /// Triangles with a repeated index or zero area.
    pub degenerate: u64,
    /// Vertices no triangle references.
    pub unreferenced_vertices: u64,
    /// Triangles with an index past the vertex count (left out of every
    /// other count).
    pub out_of_range_triangles: u64,
}

impl Topology {
    /// The counts of several meshes added up; `manifold` and
    /// `winding_consistent` hold when they hold for every part.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a Topology>) -> Topology {
        let mut t = Topology {
            vertices: 0,
            triangles: 0,
            edges: 0,
            edges_shared_by_two: 0,
            boundary_edges: 0,
            nonmanifold_edges: 0,
            manifold: true,
            consistently_wound_edges: 0,
            winding_consistent: true,
            euler: 0,
            components: 0,
            degenerate: 0,
            unreferenced_vertices: 0,
            out_of_range_triangles: 0,
        };
        for p in parts {
            t.vertices += p.vertices;
            t.triangles += p.triangles;
            t.edges += p.edges;
            t.edges_shared_by_two += p.edges_shared_by_two;
            t.boundary_edges += p.boundary_edges;
            t.nonmanifold_edges += p.nonmanifold_edges;
            t.manifold &= p.manifold;
            t.consistently_wound_edges += p.consistently_wound_edges;
            t.winding_consistent &= p.winding_consistent;
            t.euler += p.euler;
            t.components += p.components;
            t.degenerate += p.degenerate;
            t.unreferenced_vertices += p.unreferenced_vertices;
            t.out_of_range_triangles += p.out_of_range_triangles;
        }
        t
    }
}

/// Computes the topology of an indexed triangle mesh.
pub fn topology(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Topology {
    let nv = vertices.len();
    let in_range = |t: &[u32; 3]| t.iter().all(|&i| (i as usize) < nv);

    // One sweep: ranges, references, degeneracy, and half-edges per bucket.
    let mut referenced = vec![false; nv];
    let mut start = vec![0u32; nv + 1];
    let (mut out_of_range, mut degenerate) = (0u64, 0u64);
    for t in triangles {
        if !in_range(t) {
            out_of_range += 1;
            continue;
        }
        for (p, q) in half_edges(t) {
            referenced[p as usize] = true;
            if p != q {
                start[p.min(q) as usize + 1] += 1;
            }
        }
        degenerate += u64::from(is_degenerate(vertices, t));
    }
    let buckets = EdgeBuckets::fill(start, triangles.iter().filter(|t| in_range(t)));
    let mut sets = UnionFind::new(nv);
    let edges = buckets.classify(&mut sets);

    let referenced_count = referenced.iter().filter(|&&r| r).count() as u64;
    let components = (0..nv as u32)
        .filter(|&v| referenced[v as usize] && sets.find(v) == v)
        .count() as u64;
    let faces = triangles.len() as u64 - out_of_range;

    Topology {
        vertices: nv as u64,
        triangles: triangles.len() as u64,
        edges: edges.edges,
        edges_shared_by_two: edges.shared_by_two,
        boundary_edges: edges.boundary,
        nonmanifold_edges: edges.nonmanifold,
        manifold: edges.edges > 0 && edges.shared_by_two == edges.edges,
        consistently_wound_edges: edges.consistent,
        winding_consistent: edges.consistent == edges.shared_by_two,
        euler: referenced_count as i64 - edges.edges as i64 + faces as i64,
        components,
        degenerate,
        unreferenced_vertices: nv as u64 - referenced_count,
        out_of_range_triangles: out_of_range,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let m = crate::verify::testmaps::cube(1.0);
        (m.vertices, m.triangles)
    }

    #[test]
    fn closed_cube() {
        let (v, t) = cube();
        let topo = topology(&v, &t);
        assert_eq!(topo.edges, 18);
        assert_eq!(topo.edges_shared_by_two, 18);
        assert!(topo.manifold && topo.winding_consistent);
        assert_eq!(topo.euler, 2);
        assert_eq!(topo.components, 1);
        assert_eq!(topo.degenerate, 0);
        assert_eq!(topo.unreferenced_vertices, 0);
    }

    #[test]
    fn two_cubes_one_flipped_one_open() {
        let (mut v, mut t) = cube();
        let n = v.len() as u32;
        v.extend(v.clone().iter().map(|p| *p + Vec3::splat(10.0)));
        t.extend(t.clone().iter().map(|x| [x[0] + n, x[2] + n, x[1] + n]));
        let topo = topology(&v, &t);
        assert_eq!((topo.euler, topo.components), (4, 2));
        assert!(topo.winding_consistent);
        // Flip one triangle: its three edges now run the same way as their
        // neighbours'.
        t[0] = [t[0][0], t[0][2], t[0][1]];
        let flipped = topology(&v, &t);
        assert!(flipped.manifold && !flipped.winding_consistent);
        assert_eq!(flipped.consistently_wound_edges, 36 - 3);
        // Remove a triangle: three open edges.
        t.pop();
        let open = topology(&v, &t);
        assert_eq!(open.boundary_edges, 3);
        assert!(!open.manifold);
    }

    #[test]
    fn degenerate_unreferenced_out_of_range() {
        let (mut v, mut t) = cube();
        v.push(Vec3::ZERO);
        t.push([0, 0, 1]);
        t.push([0, 1, 99]);
        t.push(t[0]);
        let topo = topology(&v, &t);
        assert_eq!(topo.unreferenced_vertices, 1);
        assert_eq!(topo.degenerate, 1);
        assert_eq!(topo.out_of_range_triangles, 1);
        // The copy of triangle 0 puts its three edges in three triangles;
        // [0, 0, 1] adds two more half-edges to edge 0-1.
        assert_eq!(topo.nonmanifold_edges, 4);
    }

    #[test]
    fn collinear_is_degenerate() {
        let v = vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
        let topo = topology(&v, &[[0, 1, 2]]);
        assert_eq!(topo.degenerate, 1);
        assert_eq!(topo.boundary_edges, 3);
        assert_eq!(topology(&[], &[]).edges, 0);
    }
}
