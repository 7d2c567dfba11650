//! The faults behind the topology counts: which edges keep a mesh from
//! being a closed, consistently oriented hull (the first of each kind,
//! named by its vertices and triangle), and which triangles form each
//! connected component.

use serde::Serialize;

use super::edges::{EdgeBuckets, UnionFind, half_edges};

/// One edge that keeps a mesh from being a closed, consistently oriented
/// hull, as `[from, to]` the way the first triangle using it runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EdgeFault {
    /// The edge's two vertices.
    pub edge: [u32; 2],
    /// The first triangle (in mesh order) that uses it.
    pub triangle: u32,
    /// Triangles sharing it.
    pub shared_by: u32,
}

/// The edges that are not "used once in each direction": the first of each
/// kind (lowest vertex pair first) and how many there are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EdgeFaults {
    /// Edges used by one triangle only.
    pub open: u64,
    /// The first open edge.
    pub first_open: Option<EdgeFault>,
    /// Edges shared by three or more triangles.
    pub overshared: u64,
    /// The first of them.
    pub first_overshared: Option<EdgeFault>,
    /// Edges shared by two triangles running it the same way.
    pub same_direction: u64,
    /// The first of them.
    pub first_same_direction: Option<EdgeFault>,
    /// Edges used by an odd number of triangles (1, 3, ...): open edges,
    /// and where a single-sided sheet meets a surface. While there is one,
    /// the parity of a ray's crossings depends on the ray.
    pub odd: u64,
    /// The first of them.
    pub first_odd: Option<EdgeFault>,
    /// Per vertex: an end of some faulty edge.
    #[serde(skip)]
    pub faulty_vertex: Vec<bool>,
}

impl EdgeFaults {
    /// Every edge is used once in each direction.
    pub fn closed_and_oriented(&self) -> bool {
        self.open + self.overshared + self.same_direction == 0
    }
}

/// Finds the edges of a mesh that are not used once in each direction.
/// Triangles with an index out of range are left out.
pub fn edge_faults(vertex_count: usize, triangles: &[[u32; 3]]) -> EdgeFaults {
    let in_range = |t: &&[u32; 3]| t.iter().all(|&i| (i as usize) < vertex_count);
    let mut start = vec![0u32; vertex_count + 1];
    for t in triangles.iter().filter(in_range) {
        for (p, q) in half_edges(t) {
            if p != q {
                start[p.min(q) as usize + 1] += 1;
            }
        }
    }
    let mut buckets = EdgeBuckets::fill(start, triangles.iter().filter(in_range));
    let mut faults = EdgeFaults {
        faulty_vertex: vec![false; vertex_count],
        ..EdgeFaults::default()
    };
    let mut found: [Option<[u32; 2]>; 4] = [None; 4];
    buckets.for_each_bucket(|v, bucket| {
        for run in bucket.chunk_by(|x, y| x >> 1 == y >> 1) {
            let w = run[0] >> 1;
            if run.len() % 2 == 1 {
                faults.odd += 1;
                found[3].get_or_insert([v, w]);
            }
            let kind = match run.len() {
                1 => 0,
                2 if (run[0] ^ run[1]) & 1 == 1 => continue,
                2 => 2,
                _ => 1,
            };
            let count = [
                &mut faults.open,
                &mut faults.overshared,
                &mut faults.same_direction,
            ];
            *count[kind] += 1;
            found[kind].get_or_insert([v, w]);
            faults.faulty_vertex[v as usize] = true;
            faults.faulty_vertex[w as usize] = true;
        }
    });
    let locate = |e: Option<[u32; 2]>| e.and_then(|e| locate_edge(triangles, e));
    faults.first_open = locate(found[0]);
    faults.first_overshared = locate(found[1]);
    faults.first_same_direction = locate(found[2]);
    faults.first_odd = locate(found[3]);
    faults
}

/// The edge `{a, b}` as the first triangle using it runs it.
fn locate_edge(triangles: &[[u32; 3]], [a, b]: [u32; 2]) -> Option<EdgeFault> {
    let uses = |t: &[u32; 3]| {
        half_edges(t)
            .into_iter()
            .find(|&e| e == (a, b) || e == (b, a))
    };
    let (triangle, (p, q)) = triangles
        .iter()
        .enumerate()
        .find_map(|(i, t)| uses(t).map(|e| (i, e)))?;
    let shared_by = triangles.iter().filter(|t| uses(t).is_some()).count() as u32;
    Some(EdgeFault {
        edge: [p, q],
        triangle: triangle as u32,
        shared_by,
    })
}

/// Connected components of triangles sharing a vertex: a label per
/// triangle (`u32::MAX` for one with an index out of range), numbered in
/// order of first triangle, and the number of components.
pub fn triangle_components(vertex_count: usize, triangles: &[[u32; 3]]) -> (Vec<u32>, u32) {
    let mut sets = UnionFind::new(vertex_count);
    let in_range = |t: &[u32; 3]| t.iter().all(|&i| (i as usize) < vertex_count);
    for t in triangles.iter().filter(|t| in_range(t)) {
        let (a, b) = (sets.find(t[0]), sets.find(t[1]));
        let r = sets.link(a, b);
        let c = sets.find(t[2]);
        sets.link(r, c);
    }
    let mut label_of_root = vec![u32::MAX; vertex_count];
    let mut count = 0;
    let labels = triangles
        .iter()
        .map(|t| {
            if !in_range(t) {
                return u32::MAX;
            }
            let root = sets.find(t[0]) as usize;
            if label_of_root[root] == u32::MAX {
                label_of_root[root] = count;
                count += 1;
            }
            label_of_root[root]
        })
        .collect();
    (labels, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::testmaps::cube;
    use glam::Vec3;

    #[test]
    fn edge_faults_name_the_first_of_each_kind() {
        let crate::TriMesh {
            vertices: v,
            triangles: mut t,
        } = cube(1.0);
        let clean = edge_faults(v.len(), &t);
        assert!(clean.closed_and_oriented());
        assert!(clean.faulty_vertex.iter().all(|&f| !f));
        // Turn triangle 3 over: its three edges now run like their
        // neighbours'.
        t[3] = [t[3][0], t[3][2], t[3][1]];
        let flipped = edge_faults(v.len(), &t);
        assert_eq!((flipped.open, flipped.same_direction), (0, 3));
        let first = flipped.first_same_direction.unwrap();
        assert_eq!(first.shared_by, 2);
        assert!(first.triangle <= 3);
        // Drop the last triangle: three open edges, the first named as its
        // only triangle runs it.
        let last = t.pop().unwrap();
        let open = edge_faults(v.len(), &t);
        assert_eq!(open.open, 3);
        let e = open.first_open.unwrap();
        assert_eq!(e.shared_by, 1);
        let [a, b, c] = last;
        assert!([[b, a], [c, b], [a, c]].contains(&e.edge), "{e:?}");
        t.push(last);
        t.push(last);
        let twice = edge_faults(v.len(), &t);
        assert_eq!((twice.overshared, twice.odd), (3, 3));
        assert_eq!(twice.first_odd.unwrap().shared_by, 3);
        // The triangle in both windings (a double-sided face): every edge
        // shared by four, none odd.
        let n = t.len();
        t[n - 1].swap(1, 2);
        t.push(t[n - 1]);
        t[n].swap(1, 2);
        let both = edge_faults(v.len(), &t);
        assert_eq!((both.overshared, both.odd, both.first_odd), (3, 0, None));
    }

    #[test]
    fn components_by_triangle() {
        let crate::TriMesh {
            vertices: mut v,
            triangles: mut t,
        } = cube(1.0);
        let n = v.len() as u32;
        v.extend(v.clone().iter().map(|p| *p + Vec3::splat(10.0)));
        t.extend(t.clone().iter().map(|x| x.map(|i| i + n)));
        t.insert(0, [99, 0, 1]);
        let (labels, count) = triangle_components(v.len(), &t);
        assert_eq!(count, 2);
        assert_eq!(labels[0], u32::MAX);
        assert!(labels[1..13].iter().all(|&l| l == 0));
        assert!(labels[13..].iter().all(|&l| l == 1));
    }
}
