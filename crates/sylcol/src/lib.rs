//! # sylcol
//!
//! The model layer of sylcol: validated triangle meshes built from the
//! byte-faithful structures of [`sylcol_format`], and what is done with
//! them — topology and invariant checks, building game files from user
//! meshes, export to OBJ / glTF — over the runtime-style collision
//! queries of [`sylcol_query`] ([`query`]), which it feeds with the
//! game's maps, and the front door every front end opens its inputs by
//! ([`source`]).

#![forbid(unsafe_code)]

pub mod build;
mod errors;
pub mod export;
pub mod grid;
pub mod import;
pub mod mesh;
pub mod orientation;
pub mod pairs;
pub mod prelude;
pub mod query;
pub mod report;
pub mod source;
pub mod topology;
pub mod verify;

pub use mesh::TriMesh;
pub use sylcol_format as format;
/// Boxes, exact predicates and triangle spheres (the query engine's:
/// [`sylcol_query::geometry::primitives`]).
pub use sylcol_query::geometry::primitives as geom;
