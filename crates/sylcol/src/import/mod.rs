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
//!   (MCOL's u16 counts are checked by its builder).

mod check;
mod gltf;
mod gltf_guard;
mod gltf_parts;
mod obj;
mod ply;
pub mod polygon;

use std::path::Path;

pub use check::{MeshError, check_mesh, weld};
pub use gltf_parts::{SceneParts, import_parts_file, read_parts};
pub use polygon::PolygonError;

use crate::mesh::TriMesh;

/// The mesh file formats sylcol reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshFormat {
    /// Wavefront OBJ.
    Obj,
    /// glTF 2.0, JSON (`.gltf`) or binary (`.glb`).
    Gltf,
    /// Stanford PLY, ASCII or binary.
    Ply,
}

impl MeshFormat {
    /// The format a file name's extension names (case-insensitive).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(MeshFormat::Obj),
            "gltf" | "glb" => Some(MeshFormat::Gltf),
            "ply" => Some(MeshFormat::Ply),
            _ => None,
        }
    }

    /// The format's name for messages.
    pub fn name(self) -> &'static str {
        match self {
            MeshFormat::Obj => "OBJ",
            MeshFormat::Gltf => "glTF",
            MeshFormat::Ply => "PLY",
        }
    }
}

/// How to import.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Merge vertices with identical coordinates ([`weld`]).
    pub weld: bool,
}

/// An import failure, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {kind}")]
pub struct ImportError {
    /// The file as given.
    pub file: String,
    /// What went wrong.
    pub kind: ImportErrorKind,
}

/// What went wrong while importing.
#[derive(Debug, thiserror::Error)]
pub enum ImportErrorKind {
    /// The file (or a buffer it references) cannot be read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// The extension names no supported format.
    #[error("unknown mesh format {extension:?} (expected .obj, .gltf, .glb or .ply)")]
    UnknownFormat {
        /// The extension found.
        extension: String,
    },
    /// The parser refused the file.
    #[error("invalid {format} file: {detail}")]
    Parse {
        /// The format.
        format: &'static str,
        /// The parser's words.
        detail: String,
    },
    /// The file is valid but holds something that is not a triangle mesh.
    #[error("unsupported {format} content: {detail}")]
    Unsupported {
        /// The format.
        format: &'static str,
        /// What and where.
        detail: String,
    },
    /// A polygon cannot be cut into triangles honestly.
    #[error("{format} {face}: {source}")]
    Polygon {
        /// The format.
        format: &'static str,
        /// Which face: `face at line N` (OBJ), `face N` (PLY, 0-based).
        face: String,
        /// What is wrong with it.
        source: PolygonError,
    },
    /// The mesh read breaks a mesh invariant.
    #[error("{0}")]
    Mesh(#[from] MeshError),
}

impl ImportErrorKind {
    pub(crate) fn parse(format: MeshFormat, detail: impl std::fmt::Display) -> Self {
        ImportErrorKind::Parse {
            format: format.name(),
            detail: detail.to_string(),
        }
    }

    pub(crate) fn unsupported(format: MeshFormat, detail: impl Into<String>) -> Self {
        ImportErrorKind::Unsupported {
            format: format.name(),
            detail: detail.into(),
        }
    }
}

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
        MeshFormat::Obj => obj::read(bytes)?,
        MeshFormat::Gltf => gltf::read(bytes, base)?,
        MeshFormat::Ply => ply::read(bytes)?,
    };
    check_mesh(&mesh)?;
    Ok(if options.weld { weld(&mesh) } else { mesh })
}
