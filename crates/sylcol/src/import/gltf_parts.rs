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

use super::check::check_mesh;
use super::gltf::{append_mesh, is_debug_layer};
use super::types::{ImportError, ImportErrorKind, MeshFormat};
use crate::export::gltf::RECORD_KEY;
use crate::mesh::TriMesh;

/// One part: its name, its record index (if the file says), its mesh.
struct Part {
    name: String,
    record: Option<u64>,
    mesh: TriMesh,
}

/// The parts of a glTF scene, in the order a library is built from them.
#[derive(Debug)]
pub struct SceneParts {
    /// Each part's name and mesh.
    pub parts: Vec<(String, TriMesh)>,
    /// Whether the order is the library's record order: every part carries
    /// a distinct `extras.sylcol_record`. Otherwise it is the file's node
    /// order, which is the editor's (Blender writes objects sorted by
    /// name, and drops the extras unless custom properties are exported).
    pub in_record_order: bool,
}

/// Reads the parts of the glTF / GLB file at `path`.
pub fn import_parts_file(path: &Path) -> Result<SceneParts, ImportError> {
    let fail = |kind| ImportError {
        file: path.display().to_string(),
        kind,
    };
    let bytes = std::fs::read(path).map_err(|e| fail(e.into()))?;
    read_parts(&bytes, Some(path.parent().unwrap_or(Path::new(".")))).map_err(fail)
}

/// Reads the parts of a glTF or GLB document (see the module docs).
pub fn read_parts(bytes: &[u8], base: Option<&Path>) -> Result<SceneParts, ImportErrorKind> {
    let (document, buffers) = super::gltf_guard::open(bytes, base)?;
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or_else(|| ImportErrorKind::unsupported(MeshFormat::Gltf, "no scene"))?;
    let mut parts = Vec::new();
    let mut stack: Vec<(gltf::Node, Option<String>)> = scene.nodes().map(|n| (n, None)).collect();
    stack.reverse();
    while let Some((node, parent)) = stack.pop() {
        if is_debug_layer(&node, parent.as_deref()) {
            continue;
        }
        if let Some(m) = node.mesh() {
            parts.push(read_part(&node, &m, &buffers, parts.len())?);
        }
        let name = node.name().map(str::to_string);
        let mut kids: Vec<(gltf::Node, Option<String>)> =
            node.children().map(|c| (c, name.clone())).collect();
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
    let in_record_order = records.len() == parts.len() && distinct.len() == parts.len();
    if in_record_order {
        parts.sort_by_key(|p| p.record);
    }
    Ok(SceneParts {
        parts: parts.into_iter().map(|p| (p.name, p.mesh)).collect(),
        in_record_order,
    })
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
        let read = read_parts(&glb, None).unwrap();
        assert!(read.in_record_order);
        let parts = read.parts;
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

    /// `glb` with every node's `extras` removed, as Blender exports it
    /// without "Include > Custom Properties".
    fn without_extras(glb: &[u8]) -> Vec<u8> {
        let raw = gltf::binary::Glb::from_slice(glb).unwrap();
        let mut json: serde_json::Value = serde_json::from_slice(&raw.json).unwrap();
        for node in json["nodes"].as_array_mut().unwrap() {
            node.as_object_mut().unwrap().remove("extras");
        }
        let json = serde_json::to_vec(&json).unwrap();
        let out = gltf::binary::Glb {
            header: raw.header,
            json: std::borrow::Cow::Owned(json),
            bin: raw.bin,
        };
        out.to_vec().unwrap()
    }

    /// A box map whose triangle 2 has a loose sphere: its scene with every
    /// layer has flagged triangles (red, in the failures node) and lines.
    fn flagged_box_glb() -> Vec<u8> {
        let mut m = testmaps::box_map();
        m.spheres[2][3] *= 3.0;
        let opts = SceneOptions {
            layers: Layers::all(),
            ..SceneOptions::default()
        };
        map_scene("box", &m, &opts).unwrap().to_glb().unwrap()
    }

    #[test]
    fn debug_layers_are_not_read_as_geometry() {
        let glb = flagged_box_glb();
        let read = read_parts(&glb, None).unwrap();
        assert_eq!(read.parts.len(), 1);
        assert_eq!(read.parts[0].0, "box hull");
        let whole =
            crate::import::import_bytes(&glb, MeshFormat::Gltf, None, &Default::default()).unwrap();
        assert_eq!(whole.triangles.len(), 12);
    }

    #[test]
    fn debug_layers_without_their_marks_are_known_by_name() {
        let glb = without_extras(&flagged_box_glb());
        let read = read_parts(&glb, None).unwrap();
        let names: Vec<&str> = read.parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["box hull"]);
        let whole =
            crate::import::import_bytes(&glb, MeshFormat::Gltf, None, &Default::default()).unwrap();
        assert_eq!(
            whole.triangles.len(),
            12,
            "the red copies of flagged triangles are not hull"
        );
    }

    #[test]
    fn only_parent_layer_names_and_copy_suffixes_mark_a_layer() {
        use super::super::gltf::named_as_layer;
        assert!(named_as_layer(Some("box failures"), Some("box")));
        assert!(named_as_layer(Some("box tri-spheres.001"), Some("box.001")));
        assert!(!named_as_layer(Some("box hull"), Some("box")));
        assert!(!named_as_layer(Some("box cells"), Some("other")));
        assert!(!named_as_layer(Some("box cells"), None));
        assert!(!named_as_layer(Some("boxcells"), Some("box")));
        assert!(!named_as_layer(Some("box walls"), Some("box")));
    }

    #[test]
    fn a_library_without_record_marks_says_its_order_is_the_files() {
        let set = CollisionSet {
            endian: Endian::Big,
            records: ["rou_b_cmesh", "rou_a_cmesh"]
                .iter()
                .map(|n| {
                    let c = testmaps::cube(1.0);
                    let v = c.vertices.iter().map(|v| v.to_array()).collect();
                    Record::new(n, v, c.triangles.clone()).unwrap()
                })
                .collect(),
        };
        let glb = library_scene("lib", &set, &SceneOptions::default())
            .unwrap()
            .to_glb()
            .unwrap();
        let read = read_parts(&without_extras(&glb), None).unwrap();
        assert!(!read.in_record_order);
        let names: Vec<&str> = read.parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["rou_b_cmesh", "rou_a_cmesh"], "node order");
    }
}
