//! The third floor: the indexes a collider answers through, each its own
//! type over the kernels: the uniform grid ([`GridIndex`], which answers
//! every query on its own: its ray walk, sphere and point searches), the
//! BVH ([`Bvh`]: rays), the inside index (`contains_point`: a fine grid
//! whose empty cells are classified once) and the closest index
//! (`closest_point`: the ring search's shortcuts). A ray reaches the
//! triangles by a route of `rays` (the scan of a small mesh, a BVH, the
//! grid walk), prepared once (`prep`).

pub(crate) mod bvh;
pub(crate) mod closest;
pub(crate) mod grid;
pub(crate) mod inside;
pub(crate) mod prep;
pub(crate) mod rays;
pub(crate) mod surface;

#[cfg(test)]
mod point_tests;

pub use bvh::check::BvhError;
pub use bvh::tree::{Bvh, BvhSah, BvhStats};
pub use grid::{COARSE_MEAN_LIST, GridIndex, GridSource, GridStats, StoredGrid};
pub use surface::Surface;
