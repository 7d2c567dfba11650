//! Building game files from meshes: MCOL map hulls ([`mcol`]) and
//! CollisionSet libraries ([`collisionset`]).

pub mod collisionset;
pub mod hull;
pub mod mcol;
pub mod plan;

use crate::import::MeshError;

/// Why a mesh cannot be built into a game file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// The mesh breaks a mesh invariant (empty, non-finite, bad index).
    #[error("{0}")]
    Mesh(#[from] MeshError),
    /// More vertices or triangles than the format's count field holds.
    #[error("{count} {what}: MCOL stores the count as u16, at most {limit}")]
    TooMany {
        /// "vertices" or "triangles".
        what: &'static str,
        /// The mesh's count.
        count: usize,
        /// The format's limit.
        limit: usize,
    },
    /// The requested bounding box is not a box.
    #[error("bbox {min:?} .. {max:?}: {detail}")]
    BadBbox {
        /// Requested minimum.
        min: [f32; 3],
        /// Requested maximum.
        max: [f32; 3],
        /// What is wrong with it.
        detail: String,
    },
    /// The requested cell size is not a positive finite number.
    #[error("cell size {0}: must be a positive finite number")]
    BadCell(f32),
    /// The grid would need more cells on an axis than a byte can count.
    #[error("the grid needs {cells} cells along {axis} (at most {limit}); use a larger --cell")]
    GridTooLarge {
        /// 'x', 'y' or 'z'.
        axis: char,
        /// Cells needed.
        cells: f64,
        /// The limit (255).
        limit: usize,
    },
    /// The bbox extent is not a whole number of cells.
    #[error("the bbox extent along {axis} ({extent}) is not a whole number of {cell}-unit cells")]
    NotWholeCells {
        /// 'x', 'y' or 'z'.
        axis: char,
        /// Extent along that axis.
        extent: f64,
        /// Cell size.
        cell: f32,
    },
    /// No round cell size divides the requested bbox into at most 255 cells.
    #[error("no round cell size divides the bbox {min:?} .. {max:?}; pass --cell")]
    NoRoundCell {
        /// Requested minimum.
        min: [f32; 3],
        /// Requested maximum.
        max: [f32; 3],
    },
    /// A vertex lies outside the grid, where no cell could list it.
    #[error("vertex {vertex} ({} {} {}) lies outside the grid {min:?} .. {max:?}", position[0], position[1], position[2])]
    OutsideGrid {
        /// Index of the vertex.
        vertex: usize,
        /// Its coordinates.
        position: [f32; 3],
        /// Grid minimum corner.
        min: [f64; 3],
        /// Grid maximum corner.
        max: [f64; 3],
    },
}
