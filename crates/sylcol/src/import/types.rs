//! What every mesh reader shares: the formats, the options, the tally of
//! what a file held, and the errors (below the readers and the module
//! that chooses among them).

use std::path::Path;

use super::check::MeshError;
use super::polygon::PolygonError;

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
    /// Merge vertices with identical coordinates ([`super::weld`]).
    pub weld: bool,
    /// The counts the target format holds: an OBJ or PLY file with more
    /// triangles (or, without `weld`, vertices) is refused
    /// ([`ImportErrorKind::TooMany`]) before its polygons are triangulated.
    pub limit: Option<CountLimit>,
}

/// The most vertices and triangles a target format holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountLimit {
    /// The largest count of either.
    pub max: usize,
    /// Why, as the refusal says it: "MCOL stores the count as u16".
    pub why: &'static str,
}

/// Vertices and triangles counted against [`ImportOptions::limit`] while a
/// file is read: once a count is over, nothing more is kept, and the file
/// is refused with its whole counts when it has been read.
pub(crate) struct Tally {
    limit: Option<CountLimit>,
    /// Welding may merge vertices: they are counted against the limit
    /// only without it (the builder checks the welded mesh).
    limit_vertices: bool,
    /// Vertices so far.
    pub(crate) vertices: usize,
    /// Triangles so far (n - 2 for a polygon of n corners).
    pub(crate) triangles: usize,
}

impl Tally {
    pub(crate) fn new(options: &ImportOptions) -> Self {
        Tally {
            limit: options.limit,
            limit_vertices: !options.weld,
            vertices: 0,
            triangles: 0,
        }
    }

    /// Counts a vertex; whether to keep it.
    pub(crate) fn vertex(&mut self) -> bool {
        self.vertices += 1;
        self.over().is_none()
    }

    /// Counts a polygon of `corners` corners; whether to keep it.
    pub(crate) fn polygon(&mut self, corners: usize) -> bool {
        self.triangles += corners.saturating_sub(2);
        self.over().is_none()
    }

    /// The count over the limit, if one is: (what, count, limit).
    fn over(&self) -> Option<(&'static str, usize, CountLimit)> {
        let limit = self.limit?;
        if self.limit_vertices && self.vertices > limit.max {
            return Some(("vertices", self.vertices, limit));
        }
        (self.triangles > limit.max).then_some(("triangles", self.triangles, limit))
    }

    /// Refuses a file over the limit.
    pub(crate) fn check(&self) -> Result<(), ImportErrorKind> {
        match self.over() {
            Some((what, count, limit)) => Err(ImportErrorKind::TooMany { what, count, limit }),
            None => Ok(()),
        }
    }
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
    /// More vertices or triangles than [`ImportOptions::limit`] allows.
    #[error("{count} {what}: {}, at most {}", limit.why, limit.max)]
    TooMany {
        /// "vertices" or "triangles".
        what: &'static str,
        /// The file's count.
        count: usize,
        /// The limit.
        limit: CountLimit,
    },
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
