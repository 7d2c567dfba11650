//! Building and editing CollisionSet libraries from meshes.
//!
//! Sources of a new library:
//! - a folder: every `.obj` / `.gltf` / `.glb` / `.ply` file in it (not in
//!   sub-folders), the file stem as record name, in byte order of file
//!   name; other files are skipped. A folder holding a manifest
//!   ([`FOLDER_MANIFESTS`], which `sylcol export` writes beside the meshes
//!   of a library) is built in the manifest's order and names instead, and
//!   mesh files it does not name follow in file-name order — so export ->
//!   build gives back the library's record order, byte for byte;
//! - a manifest: a text file of `NAME = MESH` lines (`#` starts a comment
//!   line, blank lines are ignored, paths are relative to the manifest's
//!   folder), or a `.json` file holding `[{"name": NAME, "mesh": MESH}, ...]`.
//!   Records are written in manifest order.
//!
//! Editing an existing library ([`apply_edits`]) touches only the records
//! named: a replaced record keeps its place and its name field byte for
//! byte, an added record goes at the end, a removed one is dropped. Every
//! other record is re-encoded from its decoded fields, which the codec
//! reproduces byte for byte.

use std::path::{Path, PathBuf};

use sylcol_format::collisionset::{CollisionSet, Record};

use crate::import::{MeshError, MeshFormat, check_mesh};
use crate::mesh::TriMesh;

/// The manifests a folder of meshes may hold, text or JSON (at most one).
pub const FOLDER_MANIFESTS: [&str; 2] = ["manifest.txt", "manifest.json"];

/// One record to build: its name and the mesh file it comes from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct ManifestEntry {
    /// Record name.
    pub name: String,
    /// Mesh file (absolute, or relative to the manifest's folder once read).
    pub mesh: PathBuf,
}

/// Why a library cannot be built or edited.
#[derive(Debug, thiserror::Error)]
pub enum CollisionSetBuildError {
    /// A folder or manifest cannot be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// What was being read.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A manifest line or JSON document is malformed.
    #[error("{path}:{line}: {detail}")]
    Manifest {
        /// The manifest.
        path: String,
        /// 1-based line (0 for a JSON document).
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// Two records would share a name.
    #[error("record name {0:?} appears twice")]
    DuplicateName(String),
    /// `--replace` / `--remove` of a name the library does not hold.
    #[error("the library has no record named {0:?}")]
    NoSuchRecord(String),
    /// `--add` of a name the library already holds.
    #[error("the library already has a record named {0:?} (use --replace)")]
    AlreadyPresent(String),
    /// The mesh of a record is unusable.
    #[error("record {name:?}: {source}")]
    Mesh {
        /// Record name.
        name: String,
        /// What is wrong with its mesh.
        source: MeshError,
    },
    /// The name cannot be stored (empty, spaces, not ASCII...).
    #[error("{0}")]
    Record(#[from] sylcol_format::EncodeError),
    /// Nothing to build.
    #[error("{0}: no mesh files (.obj, .gltf, .glb, .ply) found")]
    NoMeshes(String),
    /// A new record's name holds a path separator.
    #[error(
        "record name {name:?}: holds {separator:?} at byte {at}; a new record's name may not hold / or \\ \
         (a name is a file name when the library is exported to a folder)"
    )]
    PathSeparator {
        /// The name.
        name: String,
        /// `/` or `\`.
        separator: char,
        /// Its byte position in the name.
        at: usize,
    },
}

/// Refuses a new record's name that holds `/` or `\` ([`apply_edits`]'s
/// `Add`, Python's `build_collisionset`): export writes each record to a
/// file named after it. A manifest or glTF scene may still carry such a
/// name, as `sylcol export` writes one for a library that already has it.
pub fn check_new_name(name: &str) -> Result<(), CollisionSetBuildError> {
    match name.char_indices().find(|(_, c)| matches!(c, '/' | '\\')) {
        Some((at, separator)) => Err(CollisionSetBuildError::PathSeparator {
            name: name.into(),
            separator,
            at,
        }),
        None => Ok(()),
    }
}

/// The records a folder's mesh files make: in the order of the folder's
/// manifest when it has one, then (or else) sorted by file name.
pub fn scan_folder(dir: &Path) -> Result<Vec<ManifestEntry>, CollisionSetBuildError> {
    let io = |source| CollisionSetBuildError::Io {
        path: dir.display().to_string(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_file() && MeshFormat::from_path(&path).is_some() {
            files.push(path);
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    let mut entries = match folder_manifest(dir)? {
        Some(manifest) => read_manifest(&manifest)?,
        None => Vec::new(),
    };
    // The same file however the manifest spells it (`x.obj`, `./x.obj`).
    let same = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let named: std::collections::HashSet<PathBuf> = entries.iter().map(|e| same(&e.mesh)).collect();
    entries.extend(
        files
            .into_iter()
            .filter(|f| !named.contains(&same(f)))
            .map(|mesh| ManifestEntry {
                name: mesh
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                mesh,
            }),
    );
    if entries.is_empty() {
        return Err(CollisionSetBuildError::NoMeshes(dir.display().to_string()));
    }
    check_unique(entries.iter().map(|e| e.name.as_str()))?;
    Ok(entries)
}

/// The folder's manifest, if it has one; both kinds at once are refused.
fn folder_manifest(dir: &Path) -> Result<Option<PathBuf>, CollisionSetBuildError> {
    let found: Vec<PathBuf> = FOLDER_MANIFESTS
        .iter()
        .map(|m| dir.join(m))
        .filter(|p| p.is_file())
        .collect();
    match &found[..] {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        _ => Err(CollisionSetBuildError::Manifest {
            path: dir.display().to_string(),
            line: 0,
            detail: format!(
                "holds both {} and {}; keep one",
                FOLDER_MANIFESTS[0], FOLDER_MANIFESTS[1]
            ),
        }),
    }
}

/// A manifest for `entries` (mesh paths as they should be written, e.g.
/// relative to the manifest's folder): its file name from
/// [`FOLDER_MANIFESTS`] and its text. `NAME = MESH` lines when every entry
/// fits one (a name with `=` or starting with `#`, or a path with a line
/// break, does not), else JSON.
pub fn write_manifest(entries: &[ManifestEntry]) -> (&'static str, String) {
    let fits = |e: &ManifestEntry| {
        let mesh = e.mesh.to_string_lossy();
        !e.name.contains(['=', '\n', '\r'])
            && !e.name.starts_with('#')
            && e.name.trim() == e.name
            && !e.name.is_empty()
            && !mesh.contains(['\n', '\r'])
            && mesh.trim() == mesh
            && !mesh.is_empty()
    };
    if entries.iter().all(fits) {
        let mut text = String::from(
            "# Record order and names of a CollisionSet library, written by sylcol export.\n\
             # `sylcol build collisionset FOLDER` builds the records in this order.\n",
        );
        for e in entries {
            text += &format!("{} = {}\n", e.name, e.mesh.display());
        }
        (FOLDER_MANIFESTS[0], text)
    } else {
        let json = serde_json::to_string_pretty(entries).unwrap_or_default() + "\n";
        (FOLDER_MANIFESTS[1], json)
    }
}

/// Reads a manifest (text, or JSON when the name ends in `.json`); mesh
/// paths come back resolved against the manifest's folder.
pub fn read_manifest(path: &Path) -> Result<Vec<ManifestEntry>, CollisionSetBuildError> {
    let text = std::fs::read_to_string(path).map_err(|source| CollisionSetBuildError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let mut entries = if json {
        parse_json_manifest(&text)
    } else {
        parse_text_manifest(&text)
    }
    .map_err(|(line, detail)| CollisionSetBuildError::Manifest {
        path: path.display().to_string(),
        line,
        detail,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    for e in &mut entries {
        e.mesh = base.join(&e.mesh);
    }
    check_unique(entries.iter().map(|e| e.name.as_str()))?;
    Ok(entries)
}

/// `NAME = MESH` lines; errors are (line, detail).
pub fn parse_text_manifest(text: &str) -> Result<Vec<ManifestEntry>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, mesh)) = line.split_once('=') else {
            return Err((i + 1, format!("expected NAME = MESH, found {line:?}")));
        };
        let (name, mesh) = (name.trim(), mesh.trim());
        if name.is_empty() || mesh.is_empty() {
            return Err((i + 1, "both NAME and MESH must be given".into()));
        }
        out.push(ManifestEntry {
            name: name.into(),
            mesh: mesh.into(),
        });
    }
    Ok(out)
}

fn parse_json_manifest(text: &str) -> Result<Vec<ManifestEntry>, (usize, String)> {
    serde_json::from_str(text).map_err(|e| {
        (
            e.line(),
            format!("expected [{{\"name\": NAME, \"mesh\": MESH}}, ...]: {e}"),
        )
    })
}

fn check_unique<'a>(names: impl Iterator<Item = &'a str>) -> Result<(), CollisionSetBuildError> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(CollisionSetBuildError::DuplicateName(n.into()));
        }
    }
    Ok(())
}

/// A record named `name` holding `mesh` (checked: triangles, finite
/// coordinates, indices in range; counts are u32 in this format).
pub fn record_from_mesh(name: &str, mesh: &TriMesh) -> Result<Record, CollisionSetBuildError> {
    check_mesh(mesh).map_err(|source| CollisionSetBuildError::Mesh {
        name: name.into(),
        source,
    })?;
    Ok(Record::new(
        name,
        mesh.vertices.iter().map(|v| v.to_array()).collect(),
        mesh.triangles.clone(),
    )?)
}

/// A new library from named meshes, in the order given.
pub fn build_collisionset(
    meshes: &[(String, TriMesh)],
    endian: sylcol_format::collisionset::Endian,
) -> Result<CollisionSet, CollisionSetBuildError> {
    check_unique(meshes.iter().map(|(n, _)| n.as_str()))?;
    let records = meshes
        .iter()
        .map(|(name, mesh)| record_from_mesh(name, mesh))
        .collect::<Result<_, _>>()?;
    Ok(CollisionSet { endian, records })
}

/// One change to an existing library.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Swap the geometry of the named record, keeping its place and name field.
    Replace(String, TriMesh),
    /// Append a new record.
    Add(String, TriMesh),
    /// Drop the named record.
    Remove(String),
}

/// Applies `edits` in order. Records not named are left exactly as decoded.
pub fn apply_edits(set: &mut CollisionSet, edits: &[Edit]) -> Result<(), CollisionSetBuildError> {
    for edit in edits {
        match edit {
            Edit::Replace(name, mesh) => {
                let i = position(set, name)?;
                let fresh = record_from_mesh(name, mesh)?;
                let r = &mut set.records[i];
                r.vertices = fresh.vertices;
                r.triangles = fresh.triangles;
            }
            Edit::Add(name, mesh) => {
                check_new_name(name)?;
                if set.position(name).is_some() {
                    return Err(CollisionSetBuildError::AlreadyPresent(name.clone()));
                }
                set.records.push(record_from_mesh(name, mesh)?);
            }
            Edit::Remove(name) => {
                let i = position(set, name)?;
                set.records.remove(i);
            }
        }
    }
    Ok(())
}

fn position(set: &CollisionSet, name: &str) -> Result<usize, CollisionSetBuildError> {
    set.position(name)
        .ok_or_else(|| CollisionSetBuildError::NoSuchRecord(name.into()))
}
