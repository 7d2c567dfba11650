//! The checks of the mesh importers' targets (crates/sylcol's import).

use sylcol::import::{ImportOptions, MeshFormat, check_mesh, import_bytes, read_parts, weld};

use crate::Outcome;

/// Imports `data` as `format` (external glTF buffers refused); a mesh that
/// imports meets the mesh invariants, before and after welding. A glTF
/// document is also read as named parts (`build collisionset LIBRARY.glb`).
pub(crate) fn import(data: &[u8], format: MeshFormat) -> Outcome {
    if format == MeshFormat::Gltf {
        gltf_parts(data);
    }
    let mesh = match import_bytes(data, format, None, &ImportOptions::default()) {
        Ok(mesh) => mesh,
        Err(kind) => return Outcome::refused(&kind),
    };
    check_mesh(&mesh).unwrap_or_else(|e| {
        panic!(
            "an imported {} mesh breaks an invariant: {e}",
            format.name()
        )
    });
    let welded = weld(&mesh);
    assert_eq!(
        welded.triangles.len(),
        mesh.triangles.len(),
        "welding keeps every triangle"
    );
    assert!(
        welded.vertices.len() <= mesh.vertices.len(),
        "welding adds no vertex"
    );
    check_mesh(&welded)
        .unwrap_or_else(|e| panic!("a welded {} mesh breaks an invariant: {e}", format.name()));
    Outcome::Decoded
}

/// The glTF parts reader: every part it returns meets the mesh invariants.
fn gltf_parts(data: &[u8]) {
    if let Ok(parts) = read_parts(data, None) {
        for (name, mesh) in &parts.parts {
            check_mesh(mesh)
                .unwrap_or_else(|e| panic!("glTF part {name:?} breaks an invariant: {e}"));
        }
    }
}
