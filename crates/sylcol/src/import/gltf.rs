//! glTF 2.0 (`.gltf` with embedded or external buffers, `.glb`): every
//! triangle primitive reachable from the default scene (or, without scenes,
//! every mesh), with node transforms applied. Nodes that sylcol's
//! exporter marks as a debug layer (`extras.sylcol_layer` other than
//! `hull`: cells, spheres, failures) are skipped with everything under
//! them, so a scene exported with `--layers` builds back to its hull. An
//! editor that drops `extras` (Blender without "Include > Custom
//! Properties") keeps the names: a node named `NAME LAYER` under a node
//! named `NAME` (`$DD89A110 failures` under `$DD89A110`), as the exporter
//! names them, is skipped too.

use std::path::Path;

use glam::{DMat4, Mat4, Vec3};
use gltf::mesh::Mode;

use super::gltf_guard as guard;
use super::types::{ImportErrorKind, MeshFormat};
use crate::export::gltf::{LAYER_KEY, Layer};
use crate::mesh::TriMesh;

/// Reads a glTF or GLB file into one mesh.
pub(super) fn read(bytes: &[u8], base: Option<&Path>) -> Result<TriMesh, ImportErrorKind> {
    let (document, buffers) = guard::open(bytes, base)?;
    let mut mesh = TriMesh::default();
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next());
    match scene {
        Some(scene) => {
            let mut stack: Vec<(gltf::Node, DMat4, Option<String>)> =
                scene.nodes().map(|n| (n, DMat4::IDENTITY, None)).collect();
            while let Some((node, parent, parent_name)) = stack.pop() {
                if is_debug_layer(&node, parent_name.as_deref()) {
                    continue;
                }
                let local = Mat4::from_cols_array_2d(&node.transform().matrix()).as_dmat4();
                let world = parent * local;
                if let Some(m) = node.mesh() {
                    append_mesh(&mut mesh, &m, &buffers, world)?;
                }
                let name = node.name().map(str::to_string);
                stack.extend(node.children().map(|c| (c, world, name.clone())));
            }
        }
        None => {
            for m in document.meshes() {
                append_mesh(&mut mesh, &m, &buffers, DMat4::IDENTITY)?;
            }
        }
    }
    Ok(mesh)
}

/// Whether `node` (a child of a node named `parent`) is one of sylcol's
/// debug layers, not the hull: marked by `extras.sylcol_layer`, or, with
/// the extras gone, named `PARENT LAYER` after a debug layer (Blender's
/// `.001` suffixes aside).
pub(super) fn is_debug_layer(node: &gltf::Node, parent: Option<&str>) -> bool {
    let mark = node.extras().as_ref().and_then(|raw| {
        let extras: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        Some(extras.get(LAYER_KEY)?.as_str()?.to_string())
    });
    match mark {
        Some(layer) => layer != Layer::Hull.name(),
        None => named_as_layer(node.name(), parent),
    }
}

/// Whether `name` is `PARENT LAYER` for a debug layer.
pub(super) fn named_as_layer(name: Option<&str>, parent: Option<&str>) -> bool {
    let (Some(name), Some(parent)) = (name, parent) else {
        return false;
    };
    let (name, parent) = (without_copy_suffix(name), without_copy_suffix(parent));
    name.strip_prefix(parent)
        .and_then(|rest| rest.strip_prefix(' '))
        .and_then(Layer::from_name)
        .is_some_and(|layer| layer != Layer::Hull)
}

/// `name` without the `.001` Blender appends to a repeated name.
fn without_copy_suffix(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n)) if n.len() == 3 && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

pub(super) fn append_mesh(
    out: &mut TriMesh,
    mesh: &gltf::Mesh,
    buffers: &[gltf::buffer::Data],
    world: DMat4,
) -> Result<(), ImportErrorKind> {
    let unsupported = |d: String| ImportErrorKind::unsupported(MeshFormat::Gltf, d);
    let identity = world == DMat4::IDENTITY;
    // A mirroring transform turns every triangle over: the glTF spec
    // reverses the winding when the determinant is negative.
    let mirrored = world.determinant() < 0.0;
    for prim in mesh.primitives() {
        let at = format!("mesh {} primitive {}", mesh.index(), prim.index());
        guard::check_accessors(&prim).map_err(|d| unsupported(format!("{at}: {d}")))?;
        let reader = prim.reader(|b| buffers.get(b.index()).map(|d| d.0.as_slice()));
        let positions = reader
            .read_positions()
            .ok_or_else(|| unsupported(format!("{at}: no POSITION data inside its buffer")))?;
        let base = out.vertices.len() as u32;
        let count = positions.len() as u32;
        out.vertices.extend(positions.map(|p| {
            let v = Vec3::from_array(p);
            if identity {
                v
            } else {
                world.transform_point3(v.as_dvec3()).as_vec3()
            }
        }));
        let indices: Vec<u32> = match reader.read_indices() {
            Some(i) => i.into_u32().collect(),
            None if prim.indices().is_some() => {
                return Err(unsupported(format!(
                    "{at}: indices lie outside their buffer"
                )));
            }
            None => (0..count).collect(),
        };
        if let Some(&bad) = indices.iter().find(|&&i| i >= count) {
            return Err(unsupported(format!(
                "{at}: index {bad} out of range (the primitive has {count} vertices)"
            )));
        }
        let tris = &mut out.triangles;
        let shifted = |t: [u32; 3]| {
            let [a, b, c] = t.map(|i| i + base);
            if mirrored { [a, c, b] } else { [a, b, c] }
        };
        match prim.mode() {
            Mode::Triangles => {
                tris.extend(indices.chunks_exact(3).map(|t| shifted([t[0], t[1], t[2]])))
            }
            Mode::TriangleStrip => tris.extend(indices.windows(3).enumerate().map(|(k, w)| {
                // Every other triangle of a strip is flipped to keep the winding.
                shifted(if k % 2 == 0 {
                    [w[0], w[1], w[2]]
                } else {
                    [w[1], w[0], w[2]]
                })
            })),
            Mode::TriangleFan => tris.extend(
                (1..indices.len().saturating_sub(1))
                    .map(|k| shifted([indices[0], indices[k], indices[k + 1]])),
            ),
            other => {
                return Err(unsupported(format!(
                    "{at} draws {other:?}; only triangles can be collision geometry"
                )));
            }
        }
    }
    Ok(())
}
