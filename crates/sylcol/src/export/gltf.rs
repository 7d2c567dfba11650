//! glTF 2.0 export of a triangle mesh: `.gltf` (JSON with the buffer
//! embedded as a base64 data URI, one self-contained file) or `.glb`.
//!
//! One scene, one node, one mesh with one triangle primitive: POSITION as
//! f32 vec3 (exact, with the min / max glTF requires) and u32 indices, in
//! the mesh's own order. No axis conversion — Blender's importer turns the
//! Y-up glTF into its Z-up scene and its exporter turns it back, so
//! [`crate::import`] reads the edited file in the game's axes.

use std::borrow::Cow;
use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::{Checked::Valid, USize64};

use crate::mesh::TriMesh;

/// A glTF document could not be serialised.
#[derive(Debug, thiserror::Error)]
pub enum GltfExportError {
    /// JSON serialisation failed.
    #[error("glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// GLB framing failed.
    #[error("GLB: {0}")]
    Glb(String),
    /// The mesh is larger than glTF's u32 sizes.
    #[error("the mesh is too large for one glTF buffer")]
    TooLarge,
}

/// The mesh as a self-contained `.gltf` document (UTF-8 JSON).
pub fn to_gltf(mesh: &TriMesh, name: &str) -> Result<Vec<u8>, GltfExportError> {
    let bin = binary_buffer(mesh);
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let root = document(mesh, name, bin.len(), Some(uri))?;
    Ok(json::serialize::to_vec_pretty(&root)?)
}

/// The mesh as a binary `.glb`.
pub fn to_glb(mesh: &TriMesh, name: &str) -> Result<Vec<u8>, GltfExportError> {
    let bin = binary_buffer(mesh);
    let root = document(mesh, name, bin.len(), None)?;
    let json = json::serialize::to_vec(&root)?;
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            // Filled in by `to_vec`.
            length: 0,
        },
        json: Cow::Owned(json),
        bin: (!bin.is_empty()).then_some(Cow::Owned(bin)),
    };
    glb.to_vec()
        .map_err(|e| GltfExportError::Glb(e.to_string()))
}

/// Positions (f32 x 3, little-endian as glTF requires) then indices (u32).
fn binary_buffer(mesh: &TriMesh) -> Vec<u8> {
    let mut bin = Vec::with_capacity(12 * (mesh.vertices.len() + mesh.triangles.len()));
    for v in &mesh.vertices {
        for c in v.to_array() {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &mesh.triangles {
        for i in t {
            bin.extend_from_slice(&i.to_le_bytes());
        }
    }
    bin
}

fn document(
    mesh: &TriMesh,
    name: &str,
    byte_length: usize,
    uri: Option<String>,
) -> Result<json::Root, GltfExportError> {
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("sylcol {}", env!("CARGO_PKG_VERSION"))),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut node = json::Node {
        name: Some(name.to_string()),
        ..Default::default()
    };
    let positions_len = 12 * mesh.vertices.len();
    if let (Some((lo, hi)), false) = (mesh.bounds(), mesh.triangles.is_empty()) {
        let len = |n: usize| u32::try_from(n).map_err(|_| GltfExportError::TooLarge);
        let buffer = root.push(json::Buffer {
            byte_length: USize64(len(byte_length)?.into()),
            name: None,
            uri,
            extensions: None,
            extras: Default::default(),
        });
        let view = |offset: usize, length: usize, target| json::buffer::View {
            buffer,
            byte_length: USize64(length as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: Some(Valid(target)),
            extensions: None,
            extras: Default::default(),
        };
        let positions_view = root.push(view(0, positions_len, json::buffer::Target::ArrayBuffer));
        let indices_view = root.push(view(
            positions_len,
            byte_length - positions_len,
            json::buffer::Target::ElementArrayBuffer,
        ));
        let accessor =
            |view, count: usize, kind, ty, bounds: Option<[[f32; 3]; 2]>| json::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64(count as u64),
                component_type: Valid(json::accessor::GenericComponentType(kind)),
                extensions: None,
                extras: Default::default(),
                type_: Valid(ty),
                min: bounds.map(|b| json::Value::from(b[0].to_vec())),
                max: bounds.map(|b| json::Value::from(b[1].to_vec())),
                name: None,
                normalized: false,
                sparse: None,
            };
        use json::accessor::{ComponentType, Type};
        let positions = root.push(accessor(
            positions_view,
            mesh.vertices.len(),
            ComponentType::F32,
            Type::Vec3,
            Some([lo.to_array(), hi.to_array()]),
        ));
        let indices = root.push(accessor(
            indices_view,
            3 * mesh.triangles.len(),
            ComponentType::U32,
            Type::Scalar,
            None,
        ));
        let primitive = json::mesh::Primitive {
            attributes: BTreeMap::from([(Valid(json::mesh::Semantic::Positions), positions)]),
            extensions: None,
            extras: Default::default(),
            indices: Some(indices),
            material: None,
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        };
        node.mesh = Some(root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(name.to_string()),
            primitives: vec![primitive],
            weights: None,
        }));
    }
    let node = root.push(node);
    let scene = root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: None,
        nodes: vec![node],
    });
    root.scene = Some(scene);
    Ok(root)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
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
    fn base64_matches_rfc_4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
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
