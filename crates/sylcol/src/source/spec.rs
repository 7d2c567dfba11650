//! How a collider is made from an object: which grid it walks and what
//! rays go through ([`ColliderSpec`], spelled `file|derived|N` and
//! `grid|bvh` by every front), over a map or one part of a library
//! ([`Target`]).

use crate::prelude::*;
use std::str::FromStr;

use sylcol_format::Object;
use sylcol_format::collisionset::Record;
use sylcol_format::mcol::Mcol;

use crate::TriMesh;
use crate::query::{Collider, ColliderError};

/// The grid a collider walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// The MCOL file's own grid and lists (a library part has none).
    File,
    /// A grid sized for the mesh.
    Derived,
    /// This many cubic cells along the longest axis (at least 1).
    Cells(usize),
}

/// What rays and segments go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Accel {
    /// The grid the collider walks.
    #[default]
    Grid,
    /// sylcol's own acceleration: an eight-wide BVH built from the mesh
    /// (none for a mesh of at most 16 triangles, two packets, whose rays
    /// test every triangle).
    Bvh,
}

/// A grid or acceleration choice that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Not `file`, `derived` or a cell count.
    #[error("grid {0:?}: expected \"file\", \"derived\" or a cell count (an int >= 1)")]
    Grid(String),
    /// Not `grid` or `bvh`.
    #[error("accel {0:?}: expected \"grid\" or \"bvh\"")]
    Accel(String),
}

impl Grid {
    /// The accepted spellings, for help texts.
    pub const SPELLINGS: &'static str = "file, derived or a cell count";
}

impl FromStr for Grid {
    type Err = SpecError;

    /// `file`, `derived`, or a whole number of cells >= 1.
    fn from_str(s: &str) -> Result<Grid, SpecError> {
        match s {
            "file" => Ok(Grid::File),
            "derived" => Ok(Grid::Derived),
            n => n
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .map(Grid::Cells)
                .ok_or_else(|| SpecError::Grid(s.to_string())),
        }
    }
}

impl Accel {
    /// The accepted spellings.
    pub const SPELLINGS: [&'static str; 2] = ["grid", "bvh"];
}

impl FromStr for Accel {
    type Err = SpecError;

    /// `grid` or `bvh`.
    fn from_str(s: &str) -> Result<Accel, SpecError> {
        match s {
            "grid" => Ok(Accel::Grid),
            "bvh" => Ok(Accel::Bvh),
            _ => Err(SpecError::Accel(s.to_string())),
        }
    }
}

/// How to make a collider: the grid (`None`: the object's own, the
/// file's for a map and a derived one for a library part) and what rays
/// and segments go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColliderSpec {
    /// The grid walked; `None` for the object's own.
    pub grid: Option<Grid>,
    /// The acceleration of rays and segments.
    pub accel: Accel,
}

/// What a collider is made over.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// An MCOL map.
    Map(&'a Mcol),
    /// One part (record) of a CollisionSet library.
    Part(&'a Record),
}

/// Why an object and a part name give nothing to query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PickError {
    /// A part was named, but the object is a map.
    #[error("{path}: a map has no parts, but the part {mesh:?} was named")]
    MapHasNoParts {
        /// The object.
        path: String,
        /// The part named.
        mesh: String,
    },
    /// A library, but no part named.
    #[error("{path}: a CollisionSet holds {records} meshes; name one")]
    NoPartNamed {
        /// The object.
        path: String,
        /// Its records.
        records: usize,
    },
    /// No part of that name (nor with `_cmesh` after it).
    #[error("{path}: no mesh named {mesh:?} among {records} records")]
    NoSuchPart {
        /// The object.
        path: String,
        /// The part named.
        mesh: String,
        /// Its records.
        records: usize,
    },
    /// Neither a map nor a library.
    #[error("{path}: nothing to query in this format")]
    NothingToQuery {
        /// The object.
        path: String,
    },
}

/// A collider that could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// The mesh or the file's grid is not one a collider takes.
    #[error("{path}: cannot query: {error}")]
    Mesh {
        /// The object (`PATH+PART` for a part).
        path: String,
        /// Why.
        error: ColliderError,
    },
    /// The grid asked for cannot be derived.
    #[error("{path}: cannot derive a grid: {error}")]
    Grid {
        /// The object.
        path: String,
        /// Why.
        error: ColliderError,
    },
    /// `file` asked of a library part.
    #[error("{path}: a library mesh has no file grid; use grid \"derived\" or a cell count")]
    NoFileGrid {
        /// The part (`PATH+PART`).
        path: String,
    },
}

impl PickError {
    /// The object it concerns.
    pub fn path(&self) -> &str {
        match self {
            PickError::MapHasNoParts { path, .. }
            | PickError::NoPartNamed { path, .. }
            | PickError::NoSuchPart { path, .. }
            | PickError::NothingToQuery { path } => path,
        }
    }
}

impl BuildError {
    /// The object or part it concerns.
    pub fn path(&self) -> &str {
        match self {
            BuildError::Mesh { path, .. }
            | BuildError::Grid { path, .. }
            | BuildError::NoFileGrid { path } => path,
        }
    }
}

/// The map, or part `mesh` of a library, that `object` (named `path`)
/// offers to queries. A part is found by its record name, or by the name
/// without its `_cmesh` suffix.
pub fn target<'a>(
    path: &str,
    object: &'a Object,
    mesh: Option<&str>,
) -> Result<Target<'a>, PickError> {
    match (object, mesh) {
        (Object::Mcol(m), None) => Ok(Target::Map(m)),
        (Object::Mcol(_), Some(mesh)) => Err(PickError::MapHasNoParts {
            path: path.to_string(),
            mesh: mesh.to_string(),
        }),
        (Object::CollisionSet(set), Some(mesh)) => {
            set.get(mesh)
                .map(Target::Part)
                .ok_or_else(|| PickError::NoSuchPart {
                    path: path.to_string(),
                    mesh: mesh.to_string(),
                    records: set.records.len(),
                })
        }
        (Object::CollisionSet(set), None) => Err(PickError::NoPartNamed {
            path: path.to_string(),
            records: set.records.len(),
        }),
        _ => Err(PickError::NothingToQuery {
            path: path.to_string(),
        }),
    }
}

impl ColliderSpec {
    /// The collider over `target` (named `path` in errors: the object, or
    /// `PATH+PART`), through the grid and acceleration chosen.
    pub fn collider(&self, path: &str, target: Target<'_>) -> Result<Collider, BuildError> {
        let mesh_error = |error| BuildError::Mesh {
            path: path.to_string(),
            error,
        };
        let grid_error = |error| BuildError::Grid {
            path: path.to_string(),
            error,
        };
        let c = match target {
            Target::Map(m) => {
                let base = Collider::from_mcol(m).map_err(mesh_error)?;
                match self.grid {
                    None | Some(Grid::File) => base,
                    Some(Grid::Derived) => base
                        .with_derived_grid(base.suggested_cells_per_axis())
                        .map_err(grid_error)?,
                    Some(Grid::Cells(n)) => base.with_derived_grid(n).map_err(grid_error)?,
                }
            }
            Target::Part(record) => {
                if self.grid == Some(Grid::File) {
                    return Err(BuildError::NoFileGrid {
                        path: path.to_string(),
                    });
                }
                let base = Collider::from_mesh(&TriMesh::from_collision_record(record))
                    .map_err(mesh_error)?;
                match self.grid {
                    Some(Grid::Cells(n)) => base.with_derived_grid(n).map_err(grid_error)?,
                    _ => base,
                }
            }
        };
        Ok(match self.accel {
            Accel::Grid => c,
            Accel::Bvh => c.with_bvh(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spelling_of_grid_and_accel() {
        assert_eq!("file".parse(), Ok(Grid::File));
        assert_eq!("derived".parse(), Ok(Grid::Derived));
        assert_eq!("16".parse(), Ok(Grid::Cells(16)));
        for bad in ["0", "-1", "x", "", "File", "1e3"] {
            let e = bad.parse::<Grid>().unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "grid {bad:?}: expected \"file\", \"derived\" or a cell count (an int >= 1)"
                )
            );
        }
        assert_eq!("bvh".parse(), Ok(Accel::Bvh));
        assert_eq!("grid".parse(), Ok(Accel::Grid));
        assert_eq!(
            "kd".parse::<Accel>().unwrap_err().to_string(),
            "accel \"kd\": expected \"grid\" or \"bvh\""
        );
    }

    #[test]
    fn a_part_is_picked_by_name_and_has_no_file_grid() {
        let m = crate::verify::testmaps::box_map();
        let map = Object::Mcol(Box::new(m));
        assert!(matches!(target("m", &map, None), Ok(Target::Map(_))));
        assert!(matches!(
            target("m", &map, Some("x")),
            Err(PickError::MapHasNoParts { .. })
        ));
        let spec = ColliderSpec {
            grid: Some(Grid::Cells(3)),
            accel: Accel::Bvh,
        };
        let Ok(Target::Map(m)) = target("m", &map, None) else {
            unreachable!()
        };
        let c = spec.collider("m", Target::Map(m)).unwrap();
        assert_eq!(c.grid().dims.iter().max(), Some(&3));
    }
}
