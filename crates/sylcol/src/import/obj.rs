//! Wavefront OBJ through tobj: every object and group, faces triangulated.

use glam::Vec3;

use super::{ImportErrorKind, MeshFormat};
use crate::mesh::TriMesh;

/// Reads all faces of an OBJ file into one mesh.
pub(super) fn read(bytes: &[u8]) -> Result<TriMesh, ImportErrorKind> {
    super::obj_guard::check_corner_indices(bytes)?;
    let options = tobj::LoadOptions {
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    // Materials play no part in collision: any `mtllib` is answered with none.
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
        Ok(Default::default())
    })
    .map_err(|e| ImportErrorKind::parse(MeshFormat::Obj, e))?;
    let mut mesh = TriMesh::default();
    for model in &models {
        let m = &model.mesh;
        let base = mesh.vertices.len() as u32;
        mesh.vertices.extend(
            m.positions
                .chunks_exact(3)
                .map(|p| Vec3::new(p[0], p[1], p[2])),
        );
        mesh.triangles.extend(
            m.indices
                .chunks_exact(3)
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }
    Ok(mesh)
}
