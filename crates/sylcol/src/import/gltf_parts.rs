//! A glTF scene as named parts — how `build collisionset LIBRARY.glb`
//! reads the one-file library `sylcol export` writes
//! ([`crate::export::gltf::library_scene`]), or any scene a modder made.
//!
//! - A part is a node with a mesh, found depth-first from the default
//!   scene's roots in node order; sylcol's debug-layer nodes are skipped.
//! - Its name is the node's name (else its mesh's, else `part N`).
//! - Its vertices are the mesh's positions with the node's own rotation
//!   and scale applied; the node's translation and every parent transform
//!   are dropped: they are where the part is shown (the library's grid
//!   layout, the root's `--scale`), not part of its shape. An identity
//!   rotation and scale leave the coordinates bit-exact.
//! - Order: by `extras.sylcol_record` when every part carries a distinct
//!   one (sylcol's own export), else node order.

use std::path::Path;

use glam::{DMat4, DQuat, DVec3};

use super::gltf::{append_mesh, is_debug_layer};
use super::{ImportError, ImportErrorKind, MeshFormat, check_mesh};
use crate::export::gltf::RECORD_KEY;
use crate::mesh::TriMesh;

/// One part: its name, its record index (if the file says), its mesh.
struct Part {
    name: String,
    record: Option<u64>,
    mesh: TriMesh,
}

/// Reads the parts of the glTF / GLB file at `path`.
pub fn import_parts_file(path: &Path) -> Result<Vec<(String, TriMesh)>, ImportError> {
    let fail = |kind| ImportError {
        file: path.display().to_string(),
        kind,
    };
    let bytes = std::fs::read(path).map_err(|e| fail(e.into()))?;
    read_parts(&bytes, Some(path.parent().unwrap_or(Path::new(".")))).map_err(fail)
}

/// Reads the parts of a glTF or GLB document (see the module docs).
pub fn read_parts(
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Vec<(String, TriMesh)>, ImportErrorKind> {
    let (document, buffers) = super::gltf_guard::open(bytes, base)?;
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or_else(|| ImportErrorKind::unsupported(MeshFormat::Gltf, "no scene"))?;
    let mut parts = Vec::new();
    let mut stack: Vec<gltf::Node> = scene.nodes().collect();
    stack.reverse();
    while let Some(node) = stack.pop() {
        if is_debug_layer(&node) {
            continue;
        }
        if let Some(m) = node.mesh() {
            parts.push(read_part(&node, &m, &buffers, parts.len())?);
        }
        let mut kids: Vec<gltf::Node> = node.children().collect();
        kids.reverse();
        stack.extend(kids);
    }
    if parts.is_empty() {
        return Err(ImportErrorKind::unsupported(
            MeshFormat::Gltf,
            "no node with a mesh in the default scene",
        ));
    }
    let records: Vec<u64> = parts.iter().filter_map(|p| p.record).collect();
    let mut distinct = records.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if records.len() == parts.len() && distinct.len() == parts.len() {
        parts.sort_by_key(|p| p.record);
    }
    Ok(parts.into_iter().map(|p| (p.name, p.mesh)).collect())
}

fn read_part(
    node: &gltf::Node,
    mesh: &gltf::Mesh,
    buffers: &[gltf::buffer::Data],
    index: usize,
) -> Result<Part, ImportErrorKind> {
    let (_, rotation, scale) = node.transform().decomposed();
    let shape = DMat4::from_scale_rotation_translation(
        DVec3::from_array(scale.map(f64::from)),
        DQuat::from_array(rotation.map(f64::from)),
        DVec3::ZERO,
    );
    let mut out = TriMesh::default();
    append_mesh(&mut out, mesh, buffers, shape)?;
    check_mesh(&out)?;
    let name = node
        .name()
        .or_else(|| mesh.name())
        .map(str::to_string)
        .unwrap_or_else(|| format!("part {index}"));
    let record = node.extras().as_ref().and_then(|raw| {
        let v: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        v.get(RECORD_KEY)?.as_u64()
    });
    Ok(Part {
        name,
        record,
        mesh: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::gltf::{Layers, SceneOptions, library_scene, map_scene};
    use crate::verify::testmaps;
    use sylcol_format::collisionset::{CollisionSet, Endian, Record};

    #[test]
    fn a_library_scene_reads_back_in_record_order_bit_exact() {
        let cube = testmaps::cube(3.5);
        let records: Vec<Record> = [
            "S02_Asteroid_cmesh",
            "rou_a_cmesh",
            "mob_b_cmesh",
            "rou_c_cmesh",
        ]
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let v = cube
                .vertices
                .iter()
                .map(|v| (*v * (k as f32 + 0.3)).to_array())
                .collect();
            Record::new(n, v, cube.triangles.clone()).unwrap()
        })
        .collect();
        let set = CollisionSet {
            endian: Endian::Big,
            records,
        };
        let opts = SceneOptions {
            scale: 0.01,
            layers: Layers::parse("hull,failures").unwrap(),
            ..SceneOptions::default()
        };
        let glb = library_scene("lib", &set, &opts).unwrap().to_glb().unwrap();
        let parts = read_parts(&glb, None).unwrap();
        assert_eq!(parts.len(), 4);
        for ((name, mesh), r) in parts.iter().zip(&set.records) {
            assert_eq!(*name, r.name());
            assert_eq!(mesh.triangles, r.triangles);
            let bits = |v: &[f32; 3]| v.map(f32::to_bits);
            let got: Vec<_> = mesh.vertices.iter().map(|v| bits(&v.to_array())).collect();
            let want: Vec<_> = r.vertices.iter().map(bits).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn debug_layers_are_not_read_as_geometry() {
        let m = testmaps::box_map();
        let opts = SceneOptions {
            layers: Layers::all(),
            ..SceneOptions::default()
        };
        let glb = map_scene("box", &m, &opts).unwrap().to_glb().unwrap();
        let parts = read_parts(&glb, None).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].0, "box hull");
        let whole =
            crate::import::import_bytes(&glb, MeshFormat::Gltf, None, &Default::default()).unwrap();
        assert_eq!(whole.triangles.len(), 12);
    }
}
