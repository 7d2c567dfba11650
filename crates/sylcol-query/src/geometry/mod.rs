//! The lowest floor: the geometry every query is asked of and every index
//! is built from. Meshes, boxes, the uniform grid and its cell lists, the
//! rules that size a grid, and the exact per-triangle answers (f64 nearest
//! points and sphere contacts, the parity crossing). Plain safe code over
//! glam; nothing here knows a file format or a SIMD instruction.

pub mod closest;
pub mod grid;
pub mod mesh;
pub mod parity;
#[cfg(test)]
mod parity_tests;
pub mod primitives;
pub mod sizing;

pub use grid::GridSpec;
pub use mesh::TriMesh;
pub use primitives::Aabb;
