//! # sylcol
//!
//! The model layer of sylcol: validated triangle meshes built from the
//! byte-faithful structures of [`sylcol_format`], and what is done with
//! them — topology and invariant checks, runtime-style collision queries,
//! building game files from user meshes, and export to OBJ / glTF — and
//! the front door every front end opens its inputs by ([`source`]).

pub mod build;
pub mod export;
pub mod geom;
pub mod grid;
pub mod import;
pub mod mesh;
pub mod orientation;
pub mod pairs;
pub mod query;
pub mod report;
pub mod source;
pub mod topology;
pub mod verify;

pub use mesh::TriMesh;
pub use sylcol_format as format;
