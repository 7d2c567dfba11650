//! Reading a modder's mesh: Wavefront OBJ, glTF 2.0 (`.gltf` / `.glb`) and
//! PLY, always as a triangle mesh in the file's own coordinates.
//!
//! - Polygons (OBJ and PLY faces of more than three corners) are cut into
//!   triangles on their own plane by ear clipping ([`polygon`]), wound like
//!   the polygon; non-planar and self-intersecting polygons are refused,
//!   naming the face. glTF strips and fans are drawn as glTF defines them.
//!   Only positions are read — normals, UVs and materials are ignored.
//! - No axis conversion: what the file says is what is built. Blender's
//!   default OBJ / glTF exporters convert its Z-up scene back to the Y-up
//!   coordinates its importers converted from, so a mesh exported by sylcol,
//!   edited and exported again keeps the game's axes.
//! - glTF: the default scene's node transforms are applied (in f64, then
//!   rounded to f32); an identity transform leaves coordinates bit-exact,
//!   and a mirroring one (negative determinant) reverses the triangles'
//!   winding, as the glTF specification requires.
//! - Vertices keep the file's order, used or not (OBJ `v` statements, the
//!   PLY `vertex` element, each glTF primitive's POSITION accessor in scene
//!   order), so an exported mesh imports back index for index.
//! - Every mesh is checked ([`check_mesh`]): at least one triangle, finite
//!   coordinates, indices in range. Size limits belong to the target format
//!   (MCOL's u16 counts are checked by its builder); a caller that knows
//!   them ([`ImportOptions::limit`]) has an OBJ or PLY file over them
//!   refused as soon as its counts are known, before any polygon is
//!   triangulated.
//! - OBJ files are read a line at a time ([`MAX_STATEMENT`]); glTF
//!   and PLY files whole.

mod check;
mod gltf;
mod gltf_guard;
mod gltf_parts;
mod obj;
mod ply;
pub mod polygon;
mod types;

use std::path::Path;

pub use check::{MeshError, check_mesh, weld, weld_by_id};
pub use gltf_parts::{SceneParts, import_parts_file, read_parts};
pub use obj::MAX_STATEMENT;
pub use polygon::PolygonError;
pub use types::{CountLimit, ImportError, ImportErrorKind, ImportOptions, MeshFormat};

use crate::mesh::TriMesh;

/// Reads the mesh in `path`, choosing the format by extension.
pub fn import_file(path: &Path, options: &ImportOptions) -> Result<TriMesh, ImportError> {
    let fail = |kind| ImportError {
        file: path.display().to_string(),
        kind,
    };
    let format = MeshFormat::from_path(path).ok_or_else(|| {
        fail(ImportErrorKind::UnknownFormat {
            extension: path
                .extension()
                .map(|e| e.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
    })?;
    if format == MeshFormat::Obj {
        let file = std::fs::File::open(path).map_err(|e| fail(e.into()))?;
        let input = std::io::BufReader::with_capacity(1 << 16, file);
        return obj::read(input, options)
            .and_then(|mesh| finish(mesh, options))
            .map_err(fail);
    }
    let bytes = std::fs::read(path).map_err(|e| fail(e.into()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    read_mesh(&bytes, format, Some(base), options).map_err(fail)
}

/// Reads a mesh from bytes. `base` is the folder external glTF buffers are
/// resolved against (`None` refuses external buffers).
pub fn import_bytes(
    bytes: &[u8],
    format: MeshFormat,
    base: Option<&Path>,
    options: &ImportOptions,
) -> Result<TriMesh, ImportErrorKind> {
    read_mesh(bytes, format, base, options)
}

fn read_mesh(
    bytes: &[u8],
    format: MeshFormat,
    base: Option<&Path>,
    options: &ImportOptions,
) -> Result<TriMesh, ImportErrorKind> {
    let mesh = match format {
        MeshFormat::Obj => obj::read(bytes, options)?,
        MeshFormat::Gltf => gltf::read(bytes, base)?,
        MeshFormat::Ply => ply::read(bytes, options)?,
    };
    finish(mesh, options)
}

/// The mesh read, checked, and welded when asked.
fn finish(mesh: TriMesh, options: &ImportOptions) -> Result<TriMesh, ImportErrorKind> {
    check_mesh(&mesh)?;
    Ok(if options.weld { weld(&mesh) } else { mesh })
}
