//! Triangle meshes: what every query is asked of.

use glam::Vec3;

/// An indexed triangle mesh: vertices and triangles as vertex-index triples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriMesh {
    /// Vertex positions.
    pub vertices: Vec<Vec3>,
    /// Triangles (indices into `vertices`), in file order.
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Builds a mesh from raw arrays.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        TriMesh {
            vertices,
            triangles,
        }
    }

    /// The three corners of triangle `i`.
    ///
    /// Panics if `i` or one of its indices is out of range; meshes from the
    /// decoders are checked, so this holds for them.
    #[inline]
    pub fn corners(&self, i: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[i];
        [
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        ]
    }

    /// Checks every index against the vertex count.
    pub fn indices_in_range(&self) -> bool {
        let n = self.vertices.len() as u32;
        self.triangles.iter().all(|t| t.iter().all(|&i| i < n))
    }

    /// Axis-aligned bounds of the vertices, or `None` when empty.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let first = *self.vertices.first()?;
        Some(
            self.vertices
                .iter()
                .fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v))),
        )
    }
}
