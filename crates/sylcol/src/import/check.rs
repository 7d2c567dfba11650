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
    weld_keyed(mesh, |_| None)
}

/// [`weld`] for a mesh whose vertices carry the index they had in a file
/// (`ids[i]`, or a negative number for a vertex the file did not have),
/// as an editor that had to split vertices holds it: vertices merge only
/// when their coordinates *and* ids are equal, so vertices the file kept
/// apart at one position stay apart and the copies of one file vertex
/// merge back. A vertex with an id is kept even when no triangle uses it.
/// The vertices with ids come first, in id order (for an unedited mesh,
/// the file's own order), then the others in their order. `ids` shorter
/// than the vertex list leaves the rest without ids.
pub fn weld_by_id(mesh: &TriMesh, ids: &[i64]) -> TriMesh {
    weld_keyed(mesh, |i| ids.get(i).copied().filter(|&id| id >= 0))
}

/// The weld of [`weld`] and [`weld_by_id`]: vertices merge when their
/// coordinates and `id`s are equal.
fn weld_keyed(mesh: &TriMesh, id: impl Fn(usize) -> Option<i64>) -> TriMesh {
    let key = |i: usize| {
        let p = mesh.vertices[i]
            .to_array()
            .map(|c| if c == 0.0 { 0u32 } else { c.to_bits() });
        (id(i), p)
    };
    let n = mesh.vertices.len();
    // The first vertex with each key, for every vertex.
    let mut first = std::collections::HashMap::with_capacity(n);
    let leader: Vec<u32> = (0..n)
        .map(|i| *first.entry(key(i)).or_insert(i as u32))
        .collect();
    let mut used: Vec<bool> = (0..n).map(|i| id(i).is_some()).collect();
    for &i in mesh.triangles.iter().flatten() {
        if let Some(&l) = leader.get(i as usize) {
            used[l as usize] = true;
        }
    }
    // Vertices with an id by (id, index), then the others by index.
    let mut kept: Vec<usize> = (0..n)
        .filter(|&i| used[i] && leader[i] == i as u32)
        .collect();
    kept.sort_by_key(|&i| (id(i).map_or((1, 0), |id| (0, id)), i));
    let mut remap = vec![u32::MAX; n];
    for (new, &i) in kept.iter().enumerate() {
        remap[i] = new as u32;
    }
    let vertices = kept.iter().map(|&i| mesh.vertices[i]).collect();
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

    #[test]
    fn weld_by_id_merges_copies_of_one_file_vertex_and_keeps_the_file_apart() {
        // File vertices 0..3, two of them (1 and 2) at one position; an
        // editor split file vertex 0 into a copy (4), and added vertex 5.
        let (a, b) = (Vec3::ZERO, Vec3::X);
        let m = TriMesh::new(
            vec![a, b, b, Vec3::Y, a, Vec3::Z],
            vec![[0, 1, 3], [4, 3, 2], [5, 1, 3]],
        );
        let w = weld_by_id(&m, &[2, 0, 1, 3, 2, -1]);
        // By id: file vertex 0 (Blender 1), 1 (Blender 2), 2 (Blender 0 and 4), 3; then the new one.
        assert_eq!(w.vertices, vec![b, b, a, Vec3::Y, Vec3::Z]);
        assert_eq!(w.triangles, vec![[2, 0, 3], [2, 3, 1], [4, 0, 3]]);
        // An unused vertex with an id stays; one without is dropped.
        let loose = TriMesh::new(vec![a, b, Vec3::Y, Vec3::Z, Vec3::ONE], vec![[0, 1, 2]]);
        let w = weld_by_id(&loose, &[0, 1, 2, 3]);
        assert_eq!(w.vertices, vec![a, b, Vec3::Y, Vec3::Z]);
        // Without ids it is weld.
        assert_eq!(weld_by_id(&m, &[]), weld(&m));
    }
}
