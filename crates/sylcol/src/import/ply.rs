//! Stanford PLY (ASCII or binary) through ply-rs-bw: the `vertex` element's
//! x, y, z and the `face` element's `vertex_indices` (or `vertex_index`),
//! each face a polygon cut into triangles on its plane ([`super::polygon`]).

use glam::Vec3;
use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};

use super::polygon::Triangulator;
use super::{ImportErrorKind, MeshFormat};
use crate::mesh::TriMesh;

/// Reads the vertices and faces of a PLY file.
pub(super) fn read(bytes: &[u8]) -> Result<TriMesh, ImportErrorKind> {
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut std::io::Cursor::new(bytes))
        .map_err(|e| ImportErrorKind::parse(MeshFormat::Ply, e))?;
    let unsupported = |d: String| ImportErrorKind::unsupported(MeshFormat::Ply, d);
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or_else(|| unsupported("no `vertex` element".into()))?;
    let mut mesh = TriMesh::default();
    for (i, v) in vertices.iter().enumerate() {
        let coord = |axis: &str| {
            v.get(axis)
                .and_then(Property::to_f32_lossy)
                .ok_or_else(|| unsupported(format!("vertex {i} has no scalar property `{axis}`")))
        };
        mesh.vertices
            .push(Vec3::new(coord("x")?, coord("y")?, coord("z")?));
    }
    let Some(faces) = ply.payload.get("face") else {
        return Ok(mesh);
    };
    let mut polygon = Vec::new();
    let mut triangulator = Triangulator::default();
    for (i, f) in faces.iter().enumerate() {
        let list = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .ok_or_else(|| unsupported(format!("face {i} has no `vertex_indices` list")))?;
        polygon.clear();
        polygon.extend(list.to_u32_list().ok_or_else(|| {
            unsupported(format!(
                "face {i}: `vertex_indices` is not a list of non-negative integers"
            ))
        })?);
        triangulator
            .triangulate(&mesh.vertices, &polygon, &mut mesh.triangles)
            .map_err(|source| ImportErrorKind::Polygon {
                format: MeshFormat::Ply.name(),
                face: format!("face {i}"),
                source,
            })?;
    }
    Ok(mesh)
}
