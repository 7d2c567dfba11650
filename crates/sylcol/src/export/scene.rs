//! Pieces every exported scene shares: the [`Scene`] (a document and its
//! root nodes), the object's root node, the hull primitive, wire boxes and
//! the unit wire sphere.

use glam::Vec3;
use serde_json::{Value, json};

use super::gltf_doc::{Doc, GltfExportError, Ix, LINES, Primitive, TRIANGLES, short};
use super::layers::SceneOptions;
use crate::mesh::TriMesh;

/// A finished glTF scene.
#[derive(Debug)]
pub struct Scene {
    doc: Doc,
    roots: Vec<Ix>,
}

impl Scene {
    /// The scene of `doc` with root nodes `roots`.
    pub fn new(doc: Doc, roots: Vec<Ix>) -> Self {
        Scene { doc, roots }
    }

    /// As binary `.glb`.
    pub fn to_glb(&self) -> Result<Vec<u8>, GltfExportError> {
        self.doc.to_glb(&self.roots)
    }

    /// As self-contained `.gltf` JSON.
    pub fn to_gltf(&self) -> Result<Vec<u8>, GltfExportError> {
        self.doc.to_gltf(&self.roots)
    }
}

/// The object's root node: its name, the display scale, and `extras`
/// (kept only when it is a JSON object, as Blender's custom properties
/// need).
pub fn root_node(doc: &mut Doc, name: &str, opts: &SceneOptions, extras: Option<Value>) -> Ix {
    let mut node = json!({ "name": name });
    if opts.scale != 1.0 {
        node["scale"] = short(&[opts.scale; 3]);
    }
    if let Some(e) = extras.filter(Value::is_object) {
        node["extras"] = e;
    }
    doc.node(node)
}

/// The triangles of `mesh` whose indices are in range, as one primitive
/// over all its vertices (`None` when none is left).
pub fn hull_primitive(doc: &mut Doc, mesh: &TriMesh, material: Option<Ix>) -> Option<Primitive> {
    let nv = mesh.vertices.len() as u32;
    let indices: Vec<u32> = mesh
        .triangles
        .iter()
        .filter(|t| t.iter().all(|&i| i < nv))
        .flatten()
        .copied()
        .collect();
    if indices.is_empty() {
        return None;
    }
    Some(doc.primitive(&mesh.vertices, &indices, TRIANGLES, material))
}

/// Boxes (lo, hi) as line segments: 8 corners and 12 edges each.
pub fn box_lines(boxes: &[(Vec3, Vec3)]) -> (Vec<Vec3>, Vec<u32>) {
    const EDGES: [[u32; 2]; 12] = [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
        [0, 2],
        [1, 3],
        [4, 6],
        [5, 7],
        [0, 4],
        [1, 5],
        [2, 6],
        [3, 7],
    ];
    let mut points = Vec::with_capacity(8 * boxes.len());
    let mut indices = Vec::with_capacity(24 * boxes.len());
    for (lo, hi) in boxes {
        let base = points.len() as u32;
        for i in 0..8 {
            points.push(Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            ));
        }
        indices.extend(EDGES.iter().flatten().map(|i| base + i));
    }
    (points, indices)
}

/// Segments per great circle of the wire sphere.
const SPHERE_SEGMENTS: u32 = 16;

/// A unit sphere at the origin drawn as its three great circles (lines):
/// light enough to repeat once per triangle, readable at any size.
pub fn unit_sphere_mesh(doc: &mut Doc, name: &str, material: Ix) -> Ix {
    let n = SPHERE_SEGMENTS;
    let mut points = Vec::with_capacity(3 * n as usize);
    let mut indices = Vec::with_capacity(6 * n as usize);
    for axis in 0..3 {
        let base = points.len() as u32;
        for k in 0..n {
            let a = std::f32::consts::TAU * k as f32 / n as f32;
            let (s, c) = a.sin_cos();
            points.push(match axis {
                0 => Vec3::new(c, s, 0.0),
                1 => Vec3::new(0.0, c, s),
                _ => Vec3::new(s, 0.0, c),
            });
            indices.extend([base + k, base + (k + 1) % n]);
        }
    }
    let p = doc.primitive(&points, &indices, LINES, Some(material));
    doc.mesh(name, &[p])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_has_twelve_edges_of_its_own_corners() {
        let (p, i) = box_lines(&[(Vec3::ZERO, Vec3::ONE), (Vec3::ONE, Vec3::splat(2.0))]);
        assert_eq!((p.len(), i.len()), (16, 48));
        for e in i.chunks(2) {
            let d = p[e[1] as usize] - p[e[0] as usize];
            assert_eq!(d.abs().element_sum(), 1.0, "an edge moves along one axis");
            assert_eq!(e[0] / 8, e[1] / 8, "an edge stays in its box");
        }
    }
}
