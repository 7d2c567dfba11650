//! glTF 2.0 export: `.gltf` (JSON with the buffer embedded as a base64
//! data URI, one self-contained file) or `.glb`.
//!
//! - [`to_gltf`] / [`to_glb`]: one mesh as a named node with a named mesh;
//! - [`map_scene`]: an MCOL map with its debug layers ([`Layers`]);
//! - [`library_scene`]: a whole CollisionSet, one named node per part;
//! - [`ArchiveScene`]: a whole archive, a node per object.
//!
//! POSITION is f32 vec3 (exact, with the min / max glTF requires) and
//! indices are u32, in the mesh's own order. No axis conversion —
//! Blender's importer turns the Y-up glTF into its Z-up scene and its
//! exporter turns it back, so [`crate::import`] reads the edited file in
//! the game's axes. `--scale` sits on the root node; the coordinates
//! underneath stay exact.

use serde_json::json;

pub use super::archive_gltf::{ArchiveScene, ENTRIES_KEY, ObjectNode};
pub use super::gltf_doc::{GltfExportError, base64};
pub use super::layers::{LAYER_KEY, Layer, Layers, RECORD_KEY, SceneOptions};
pub use super::library_gltf::{layout, library_scene};
pub use super::map_gltf::map_scene;
pub use super::scene::Scene;

use super::gltf_doc::Doc;
use super::scene::{hull_primitive, root_node};
use crate::mesh::TriMesh;

/// Colour of a lone mesh (linear RGBA).
const MESH: [f32; 4] = [0.55, 0.62, 0.72, 1.0];

/// One mesh as a scene: a node named `name` holding a mesh named `name`.
pub fn mesh_scene(mesh: &TriMesh, name: &str, opts: &SceneOptions) -> Scene {
    let mut doc = Doc::new();
    let material = doc.material("mesh", MESH, true);
    let root = root_node(&mut doc, name, opts, opts.extras.clone());
    if let Some(p) = hull_primitive(&mut doc, mesh, Some(material)) {
        let m = doc.mesh(name, &[p]);
        doc.nodes_mut(root)["mesh"] = json!(m);
    }
    Scene::new(doc, vec![root])
}

/// The mesh as a self-contained `.gltf` document (UTF-8 JSON).
pub fn to_gltf(mesh: &TriMesh, name: &str) -> Result<Vec<u8>, GltfExportError> {
    mesh_scene(mesh, name, &SceneOptions::default()).to_gltf()
}

/// The mesh as a binary `.glb`.
pub fn to_glb(mesh: &TriMesh, name: &str) -> Result<Vec<u8>, GltfExportError> {
    mesh_scene(mesh, name, &SceneOptions::default()).to_glb()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ImportOptions, MeshFormat, import_bytes};
    use glam::Vec3;

    fn quad() -> TriMesh {
        TriMesh::new(
            vec![
                Vec3::new(-1.5, 0.1, 250_000.0),
                Vec3::new(2.0, -0.0, 1e-7),
                Vec3::new(3.25, 4.0, -5.0),
                Vec3::new(f32::MIN_POSITIVE, 7.0, 8.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        )
    }

    #[test]
    fn gltf_and_glb_round_trip_bit_exact() {
        let mesh = quad();
        let opts = ImportOptions::default();
        for bytes in [
            to_gltf(&mesh, "quad").unwrap(),
            to_glb(&mesh, "quad").unwrap(),
        ] {
            let back = import_bytes(&bytes, MeshFormat::Gltf, None, &opts).unwrap();
            assert_eq!(back.triangles, mesh.triangles);
            let bits = |m: &TriMesh| -> Vec<[u32; 3]> {
                m.vertices
                    .iter()
                    .map(|v| v.to_array().map(f32::to_bits))
                    .collect()
            };
            assert_eq!(bits(&back), bits(&mesh));
        }
    }
}
