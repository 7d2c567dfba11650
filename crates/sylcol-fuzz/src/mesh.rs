//! The checks of the mesh importers' targets (crates/sylcol's import).

use sylcol::import::{ImportOptions, MeshFormat, check_mesh, import_bytes, weld};

use crate::Outcome;

/// Imports `data` as `format` (external glTF buffers refused); a mesh that
/// imports meets the mesh invariants, before and after welding.
pub(crate) fn import(data: &[u8], format: MeshFormat) -> Outcome {
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
