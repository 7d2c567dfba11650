//! What can go wrong: a query's input, or a map or mesh that cannot be
//! queried.

use crate::geometry::sizing::MAX_DERIVED_CELLS;

/// A query's input was unusable.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// A ray direction or a segment was of zero length.
    #[error("{0} has zero length")]
    ZeroDirection(&'static str),
    /// A sphere radius was negative or NaN.
    #[error("sphere radius {0} is negative or NaN")]
    BadRadius(f32),
    /// A coordinate or parameter was infinite or NaN.
    #[error("{0} is not finite")]
    NonFinite(&'static str),
    /// The first hit's time of impact exceeds `f32::MAX`: the ray's
    /// direction is too short for the distance to the hit.
    #[error(
        "the first hit's time of impact exceeds f32's range (3.4e38): the ray's direction is too short for the distance; lengthen it"
    )]
    TimeOverflow,
    /// The nearest surface lies farther than `f32::MAX` from the point.
    #[error(
        "the nearest surface lies farther from the point than f32's range (3.4e38): the distance cannot be reported"
    )]
    DistanceOverflow,
}

/// A map or mesh that cannot be queried.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ColliderError {
    /// The cell array does not match the grid dimensions.
    #[error("the cell array holds {found} records; the grid {dims:?} needs {expected}")]
    CellCount {
        /// Grid dimensions from the header.
        dims: [usize; 3],
        /// nx * ny * nz.
        expected: usize,
        /// Records present.
        found: usize,
    },
    /// A cell size is zero, negative or not finite.
    #[error("cell size {0:?} is not positive and finite")]
    BadCellSize([f32; 3]),
    /// A grid dimension is zero.
    #[error("grid dimensions {0:?} leave no cells")]
    EmptyGrid([usize; 3]),
    /// The grid origin (bbox min) is not finite.
    #[error("grid origin {0:?} is not finite")]
    BadOrigin([f32; 3]),
    /// The sphere array does not match the triangle count.
    #[error("{found} bounding spheres for {expected} triangles")]
    SphereCount {
        /// Triangles.
        expected: usize,
        /// Spheres present.
        found: usize,
    },
    /// A triangle names a vertex that does not exist.
    #[error("triangle {triangle} names vertex {vertex}, beyond the {count} vertices")]
    VertexIndex {
        /// The triangle.
        triangle: usize,
        /// The index it holds.
        vertex: u32,
        /// Vertices present.
        count: usize,
    },
    /// A vertex coordinate is infinite or NaN.
    #[error("vertex {0} is not finite")]
    NonFiniteVertex(usize),
    /// A cell links to list records that do not exist.
    #[error("cell {cell} links to records {first}..{end}, beyond the {count} records")]
    RecordLink {
        /// The cell (linear index).
        cell: usize,
        /// First record.
        first: usize,
        /// One past the last record.
        end: usize,
        /// Records present.
        count: usize,
    },
    /// A stored list runs outside the list entries (its start after its
    /// end, or its end beyond the entries).
    #[error("cell {cell}'s list runs from entry {start} to {end}, outside the {entries} entries")]
    ListBounds {
        /// The cell (linear index).
        cell: usize,
        /// Where its list starts.
        start: usize,
        /// Where it ends.
        end: usize,
        /// List entries present.
        entries: usize,
    },
    /// A list names a triangle that does not exist.
    #[error("cell {cell} lists triangle {triangle}, beyond the {count} triangles")]
    ListEntry {
        /// The cell (linear index).
        cell: usize,
        /// The entry.
        triangle: u32,
        /// Triangles present.
        count: usize,
    },
    /// A derived grid would be too large.
    #[error("a derived grid of {0:?} cells exceeds {MAX_DERIVED_CELLS} cells")]
    GridTooLarge([usize; 3]),
}
