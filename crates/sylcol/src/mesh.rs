//! Triangle meshes in the model layer: the query engine's [`TriMesh`],
//! made from the decoded game files ([`MeshFromFile`]).

use glam::Vec3;
use sylcol_format::collisionset::Record;
use sylcol_format::mcol::Mcol;

pub use sylcol_query::TriMesh;

/// The meshes of the game's files: `TriMesh::from_mcol(&map)`,
/// `TriMesh::from_collision_record(&record)` (with this trait in scope;
/// `use sylcol::prelude::*` brings it).
pub trait MeshFromFile {
    /// The mesh of an MCOL map (vertices and triangles in file order).
    fn from_mcol(mcol: &Mcol) -> Self;
    /// The mesh of one CollisionSet record (vertices and triangles in file
    /// order).
    fn from_collision_record(record: &Record) -> Self;
}

impl MeshFromFile for TriMesh {
    fn from_mcol(mcol: &Mcol) -> Self {
        TriMesh::new(
            mcol.vertices.iter().map(|&v| Vec3::from_array(v)).collect(),
            mcol.triangles
                .iter()
                .map(|t| [t[0] as u32, t[1] as u32, t[2] as u32])
                .collect(),
        )
    }

    fn from_collision_record(record: &Record) -> Self {
        TriMesh::new(
            record
                .vertices
                .iter()
                .map(|&v| Vec3::from_array(v))
                .collect(),
            record.triangles.clone(),
        )
    }
}
