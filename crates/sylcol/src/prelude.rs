//! The traits that make the query engine's types from the game's files,
//! in one import: `use sylcol::prelude::*;` and then
//! `TriMesh::from_mcol(&map)`, `GridSpec::from_header(&map.header)`,
//! `Collider::from_mcol(&map)` read as they always did.

pub use crate::grid::SpecFromHeader;
pub use crate::mesh::MeshFromFile;
pub use crate::query::ColliderFromMcol;
