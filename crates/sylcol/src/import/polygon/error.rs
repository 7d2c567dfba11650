//! Why a polygon cannot be cut into triangles (what the sweep in
//! `simple.rs` and the checks in `polygon.rs` return), and the planarity
//! tolerance a refusal names.

/// How far a corner may lie off a polygon's plane: this fraction of the
/// polygon's size (the diagonal of its bounding box). A polygon
/// triangulated anywhere within it stays within it of every other
/// triangulation.
pub const PLANAR_TOLERANCE: f64 = 1e-3;

/// Why a polygon cannot be cut into triangles.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolygonError {
    /// Fewer than three corners.
    #[error("{0} corners; a face needs at least 3")]
    TooFewCorners(usize),
    /// A corner names a vertex that does not exist.
    #[error("corner {corner} names vertex {index}, but there are only {vertices} vertices")]
    OutOfRange {
        /// Corner number (1-based, in the face's order).
        corner: usize,
        /// The 0-based vertex index it holds.
        index: u64,
        /// The vertex count.
        vertices: usize,
    },
    /// Two corners are the same vertex, or the same point.
    #[error(
        "corners {first} and {second} are the same point ({} {} {}): the face touches itself",
        position[0], position[1], position[2]
    )]
    RepeatedCorner {
        /// First corner (1-based).
        first: usize,
        /// The corner repeating it (1-based).
        second: usize,
        /// The point.
        position: [f32; 3],
    },
    /// All corners on one line: no plane, no area.
    #[error("the face has no area (its corners lie on one line)")]
    NoArea,
    /// A corner lies too far off the polygon's plane.
    #[error(
        "not planar: corner {corner} ({} {} {}) lies {distance} off the face's plane \
         (tolerance {tolerance}, {} % of the face's size); triangulate it in the exporter",
        position[0], position[1], position[2], PLANAR_TOLERANCE * 100.0
    )]
    NonPlanar {
        /// Corner (1-based).
        corner: usize,
        /// Its position.
        position: [f32; 3],
        /// Its distance from the plane.
        distance: f64,
        /// The distance allowed.
        tolerance: f64,
    },
    /// Two edges cross or touch.
    #[error(
        "self-intersecting: edge {} ({} -> {}) {} edge {} ({} -> {})",
        first.0, first.0, first.1, if *overlap { "folds back onto" } else { "meets" },
        second.0, second.0, second.1
    )]
    SelfIntersecting {
        /// The first edge, as (from corner, to corner), 1-based.
        first: (usize, usize),
        /// The second edge.
        second: (usize, usize),
        /// Neighbouring edges that fold back along one line.
        overlap: bool,
    },
    /// Ear clipping could not use every corner (collinear runs).
    #[error("cannot be cut into {expected} triangles using every corner (got {got})")]
    NotTriangulated {
        /// n - 2.
        expected: usize,
        /// What ear clipping produced.
        got: usize,
    },
}
