//! A small glTF 2.0 document builder: one binary buffer, accessors that
//! carry the exact min / max the specification asks of positions,
//! materials, meshes and nodes, written as `.gltf` (buffer embedded as a
//! base64 data URI) or `.glb`.
//!
//! The JSON is assembled with `serde_json` values rather than typed
//! structs: every object the exporters write is small, and `extras` stay
//! plain JSON. The Khronos validator reports no error and no warning on
//! what this writes (`tests/web/gltf.test.mjs`).

use std::borrow::Cow;

use glam::Vec3;
use serde_json::{Map, Value, json};

/// A document could not be written.
#[derive(Debug, thiserror::Error)]
pub enum GltfExportError {
    /// JSON serialisation failed.
    #[error("glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// GLB framing failed.
    #[error("GLB: {0}")]
    Glb(String),
    /// The buffer outgrew glTF's u32 sizes.
    #[error("the scene is too large for one glTF buffer")]
    TooLarge,
    /// A layer was asked of an object that has no such data.
    #[error("{0}")]
    Layer(String),
}

/// glTF's ELEMENT_ARRAY_BUFFER / ARRAY_BUFFER targets and mode numbers.
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;
/// Primitive mode: points.
pub const POINTS: u32 = 0;
/// Primitive mode: line segments (pairs of indices).
pub const LINES: u32 = 1;
/// Primitive mode: triangles.
pub const TRIANGLES: u32 = 4;

/// An index into one of the document's arrays.
pub type Ix = usize;

/// One primitive of a mesh.
#[derive(Debug, Clone)]
pub struct Primitive {
    /// POSITION accessor.
    pub positions: Ix,
    /// COLOR_0 accessor (RGBA f32), if any.
    pub colors: Option<Ix>,
    /// Index accessor.
    pub indices: Ix,
    /// [`LINES`] or [`TRIANGLES`].
    pub mode: u32,
    /// Material, if any.
    pub material: Option<Ix>,
}

/// A glTF document being assembled.
#[derive(Debug, Default)]
pub struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    materials: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
}

impl Doc {
    /// An empty document.
    pub fn new() -> Self {
        Doc::default()
    }

    /// Appends `bytes` (4-byte aligned) as a buffer view.
    fn view(&mut self, bytes: &[u8], target: u32) -> Ix {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views.push(json!({
            "buffer": 0, "byteOffset": offset, "byteLength": bytes.len(), "target": target,
        }));
        self.views.len() - 1
    }

    fn accessor(&mut self, value: Value) -> Ix {
        self.accessors.push(value);
        self.accessors.len() - 1
    }

    /// A POSITION accessor (f32 vec3) with its exact bounds. `points`
    /// must not be empty.
    pub fn positions(&mut self, points: &[Vec3]) -> Ix {
        let mut bytes = Vec::with_capacity(12 * points.len());
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in points {
            for c in p.to_array() {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
            (lo, hi) = (lo.min(*p), hi.max(*p));
        }
        let view = self.view(&bytes, ARRAY_BUFFER);
        self.accessor(json!({
            "bufferView": view, "componentType": FLOAT, "count": points.len(), "type": "VEC3",
            "min": lo.to_array(), "max": hi.to_array(),
        }))
    }

    /// A COLOR_0 accessor (f32 RGBA, each in 0..=1).
    pub fn colors(&mut self, rgba: &[[f32; 4]]) -> Ix {
        let bytes: Vec<u8> = rgba
            .iter()
            .flatten()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        let view = self.view(&bytes, ARRAY_BUFFER);
        self.accessor(json!({
            "bufferView": view, "componentType": FLOAT, "count": rgba.len(), "type": "VEC4",
        }))
    }

    /// A u32 index accessor. `indices` must not be empty.
    pub fn indices(&mut self, indices: &[u32]) -> Ix {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.view(&bytes, ELEMENT_ARRAY_BUFFER);
        self.accessor(json!({
            "bufferView": view, "componentType": UNSIGNED_INT, "count": indices.len(),
            "type": "SCALAR",
        }))
    }

    /// A primitive over `points` drawn by `indices` (both non-empty).
    pub fn primitive(
        &mut self,
        points: &[Vec3],
        indices: &[u32],
        mode: u32,
        material: Option<Ix>,
    ) -> Primitive {
        Primitive {
            positions: self.positions(points),
            colors: None,
            indices: self.indices(indices),
            mode,
            material,
        }
    }

    /// A metal-free, fully rough material of colour `rgba`; alpha below 1
    /// blends.
    pub fn material(&mut self, name: &str, rgba: [f32; 4], double_sided: bool) -> Ix {
        let mut m = json!({
            "name": name,
            "pbrMetallicRoughness": {
                "baseColorFactor": rgba, "metallicFactor": 0.0, "roughnessFactor": 1.0,
            },
        });
        if rgba[3] < 1.0 {
            m["alphaMode"] = json!("BLEND");
        }
        if double_sided {
            m["doubleSided"] = json!(true);
        }
        self.materials.push(m);
        self.materials.len() - 1
    }

    /// A mesh of `primitives` (at least one).
    pub fn mesh(&mut self, name: &str, primitives: &[Primitive]) -> Ix {
        let prims: Vec<Value> = primitives
            .iter()
            .map(|p| {
                let mut attributes = Map::new();
                attributes.insert("POSITION".into(), json!(p.positions));
                if let Some(c) = p.colors {
                    attributes.insert("COLOR_0".into(), json!(c));
                }
                let mut v =
                    json!({ "attributes": attributes, "indices": p.indices, "mode": p.mode });
                if let Some(m) = p.material {
                    v["material"] = json!(m);
                }
                v
            })
            .collect();
        self.meshes
            .push(json!({ "name": name, "primitives": prims }));
        self.meshes.len() - 1
    }

    /// A node; `node` is its JSON object (name, mesh, children,
    /// translation, scale, extras...).
    pub fn node(&mut self, node: Value) -> Ix {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Node `ix`'s JSON, to add a field.
    pub fn nodes_mut(&mut self, ix: Ix) -> &mut Value {
        &mut self.nodes[ix]
    }

    /// Sets the children of node `parent`.
    pub fn set_children(&mut self, parent: Ix, children: &[Ix]) {
        if !children.is_empty() {
            self.nodes[parent]["children"] = json!(children);
        }
    }

    /// The glTF JSON with one scene of root nodes `roots`; `uri` embeds
    /// the buffer (for `.gltf`), `None` leaves it to the GLB chunk.
    fn root_json(&self, roots: &[Ix], uri: Option<String>) -> Result<Value, GltfExportError> {
        u32::try_from(self.bin.len()).map_err(|_| GltfExportError::TooLarge)?;
        let mut root = json!({
            "asset": { "version": "2.0", "generator": format!("sylcol {}", env!("CARGO_PKG_VERSION")) },
            "scene": 0,
            "scenes": [{ "nodes": roots }],
            "nodes": self.nodes,
        });
        let arrays = [
            ("meshes", &self.meshes),
            ("materials", &self.materials),
            ("accessors", &self.accessors),
            ("bufferViews", &self.views),
        ];
        for (key, list) in arrays {
            if !list.is_empty() {
                root[key] = json!(list);
            }
        }
        if !self.bin.is_empty() {
            let mut buffer = json!({ "byteLength": self.bin.len() });
            if let Some(uri) = uri {
                buffer["uri"] = json!(uri);
            }
            root["buffers"] = json!([buffer]);
        }
        Ok(root)
    }

    /// The document as self-contained `.gltf` JSON.
    pub fn to_gltf(&self, roots: &[Ix]) -> Result<Vec<u8>, GltfExportError> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        let root = self.root_json(roots, Some(uri))?;
        Ok(serde_json::to_vec_pretty(&root)?)
    }

    /// The document as binary `.glb`.
    pub fn to_glb(&self, roots: &[Ix]) -> Result<Vec<u8>, GltfExportError> {
        let json = serde_json::to_vec(&self.root_json(roots, None)?)?;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                // Filled in by `to_vec`.
                length: 0,
            },
            json: Cow::Owned(json),
            bin: (!self.bin.is_empty()).then_some(Cow::Borrowed(self.bin.as_slice())),
        };
        glb.to_vec()
            .map_err(|e| GltfExportError::Glb(e.to_string()))
    }
}

/// f32 values as JSON numbers written as their shortest text (`0.001`,
/// not the f64 widening `0.0010000000474974513`); a reader rounding the
/// text to f32 gets the same values. For node transforms and extras;
/// accessor bounds keep the exact widening the validator compares with.
pub fn short(values: &[f32]) -> Value {
    Value::Array(
        values
            .iter()
            .map(|v| {
                v.to_string()
                    .parse::<f64>()
                    .map_or(Value::Null, Value::from)
            })
            .collect(),
    )
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
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
    fn views_are_aligned_and_bounds_exact() {
        let mut d = Doc::new();
        let i = d.indices(&[0, 1, 2]);
        let p = d.positions(&[Vec3::new(0.1, -2.0, 3.0), Vec3::new(-0.5, 7.0, 1e-7)]);
        assert_eq!((i, p), (0, 1));
        assert_eq!(d.views[1]["byteOffset"], 12);
        assert_eq!(d.accessors[1]["min"], json!([-0.5f32, -2.0f32, 1e-7f32]));
        assert_eq!(d.accessors[1]["max"], json!([0.1f32, 7.0f32, 3.0f32]));
    }
}
