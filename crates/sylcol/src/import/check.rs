//! The invariants every mesh must meet before it is built into a game file.

use crate::mesh::TriMesh;

/// A mesh that cannot be used as collision geometry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// No triangles (a collision mesh needs at least one).
    #[error("the mesh is empty: {vertices} vertices, {triangles} triangles")]
    Empty {
        /// Vertex count.
        vertices: usize,
        /// Triangle count.
        triangles: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate ({} {} {})", position[0], position[1], position[2])]
    NonFinite {
        /// Index of the vertex.
        vertex: usize,
        /// Its coordinates as read.
        position: [f32; 3],
    },
    /// A triangle names a vertex that does not exist.
    #[error(
        "triangle {triangle} corner {corner} names vertex {index}, but there are only {vertices} vertices"
    )]
    IndexOutOfRange {
        /// Index of the triangle.
        triangle: usize,
        /// Which corner (0, 1, 2).
        corner: usize,
        /// The index it holds.
        index: u64,
        /// The vertex count.
        vertices: usize,
    },
}

/// Checks that `mesh` has triangles, finite coordinates and indices in range.
pub fn check_mesh(mesh: &TriMesh) -> Result<(), MeshError> {
    if mesh.triangles.is_empty() {
        return Err(MeshError::Empty {
            vertices: mesh.vertices.len(),
            triangles: 0,
        });
    }
    if let Some((vertex, v)) = mesh
        .vertices
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite())
    {
        return Err(MeshError::NonFinite {
            vertex,
            position: v.to_array(),
        });
    }
    let n = mesh.vertices.len();
    for (triangle, t) in mesh.triangles.iter().enumerate() {
        if let Some(corner) = t.iter().position(|&i| i as usize >= n) {
            return Err(MeshError::IndexOutOfRange {
                triangle,
                corner,
                index: u64::from(t[corner]),
                vertices: n,
            });
        }
    }
    Ok(())
}

/// Merges vertices with identical coordinates (bit-exact, with -0.0 equal to
/// 0.0) and drops vertices no triangle uses, keeping the first occurrence of
/// each position and the order of first occurrence; triangles are
/// remapped, none are dropped.
pub fn weld(mesh: &TriMesh) -> TriMesh {
    let key = |v: glam::Vec3| {
        v.to_array()
            .map(|c| if c == 0.0 { 0u32 } else { c.to_bits() })
    };
    let n = mesh.vertices.len();
    // The first vertex at each position, for every vertex.
    let mut first: std::collections::HashMap<[u32; 3], u32> =
        std::collections::HashMap::with_capacity(n);
    let leader: Vec<u32> = (0..n as u32)
        .map(|i| *first.entry(key(mesh.vertices[i as usize])).or_insert(i))
        .collect();
    let mut used = vec![false; n];
    for &i in mesh.triangles.iter().flatten() {
        if let Some(&l) = leader.get(i as usize) {
            used[l as usize] = true;
        }
    }
    let mut remap = vec![u32::MAX; n];
    let mut vertices = Vec::with_capacity(n);
    for i in (0..n).filter(|&i| used[i]) {
        remap[i] = vertices.len() as u32;
        vertices.push(mesh.vertices[i]);
    }
    let triangles = mesh
        .triangles
        .iter()
        .map(|t| t.map(|i| leader.get(i as usize).map_or(i, |&l| remap[l as usize])))
        .collect();
    TriMesh::new(vertices, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn rejects_each_broken_invariant() {
        let ok = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
        assert_eq!(check_mesh(&ok), Ok(()));
        let empty = TriMesh::new(vec![Vec3::ZERO], vec![]);
        assert!(matches!(check_mesh(&empty), Err(MeshError::Empty { .. })));
        let mut nan = ok.clone();
        nan.vertices[1].y = f32::NAN;
        assert!(matches!(
            check_mesh(&nan),
            Err(MeshError::NonFinite { vertex: 1, .. })
        ));
        let mut inf = ok.clone();
        inf.vertices[2].z = f32::NEG_INFINITY;
        assert!(matches!(
            check_mesh(&inf),
            Err(MeshError::NonFinite { vertex: 2, .. })
        ));
        let bad = TriMesh::new(ok.vertices.clone(), vec![[0, 1, 2], [0, 3, 1]]);
        assert_eq!(
            check_mesh(&bad),
            Err(MeshError::IndexOutOfRange {
                triangle: 1,
                corner: 1,
                index: 3,
                vertices: 3
            })
        );
    }

    #[test]
    fn weld_merges_exact_duplicates_in_first_order_and_drops_unused() {
        let m = TriMesh::new(
            vec![
                Vec3::ZERO,
                Vec3::X,
                Vec3::Y,
                Vec3::new(-0.0, 0.0, 0.0),
                Vec3::Y,
                Vec3::Z,
            ],
            vec![[0, 1, 2], [3, 4, 5]],
        );
        let w = weld(&m);
        assert_eq!(w.vertices, vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]);
        assert_eq!(w.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        // A vertex no triangle uses is dropped, the others keep their order.
        let loose = TriMesh::new(
            vec![Vec3::ZERO, Vec3::splat(7.0), Vec3::X, Vec3::Y],
            vec![[0, 2, 3]],
        );
        let w = weld(&loose);
        assert_eq!(w.vertices, vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
        assert_eq!(w.triangles, vec![[0, 1, 2]]);
    }
}
