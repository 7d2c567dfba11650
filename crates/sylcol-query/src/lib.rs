//! # sylcol-query
//!
//! The runtime collision engine of sylcol: the questions the game's
//! collision runtime asks of a map (`xcol`: `WorldToSector`,
//! `GetSectorPolygonData`, `InOutTest`, `LINE`, `MOVESPHERE`), answered
//! exactly and fast, through the map's own uniform grid or through
//! sylcol's BVH. It knows triangle meshes and grids, nothing of any file
//! format: sylcol reads the game's files and hands their meshes and grids
//! over ([`StoredGrid`]).
//!
//! ```
//! use glam::Vec3;
//! use sylcol_query::{Collider, Ray, TriMesh};
//!
//! // A unit box, 12 triangles wound outwards.
//! let v = (0..8)
//!     .map(|i| Vec3::new((i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2 & 1) as f32))
//!     .collect();
//! let t = vec![
//!     [0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
//!     [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5],
//! ];
//! let c = Collider::from_mesh(&TriMesh::new(v, t)).unwrap();
//! let hit = c.cast_ray(&Ray::new(Vec3::splat(0.5), Vec3::X), f32::INFINITY).unwrap();
//! assert_eq!(hit.unwrap().time_of_impact, 0.5);
//! assert!(c.contains_point(Vec3::splat(0.25)).unwrap());
//! ```
//!
//! ## Floors
//!
//! Each floor imports only from the floors below it, and no module
//! imports one that imports it back (`cargo xtask cycles` and its tests
//! check both):
//!
//! 1. [`geometry`]: meshes, boxes, the uniform grid and its cell lists,
//!    grid sizing, exact per-triangle answers. Safe code over glam.
//! 2. `kernels` (private): the ray/packet test, the DDA, the BVH's box
//!    test, portable, AVX2 and AVX-512, over their data layouts (packets,
//!    nodes, the walk's stack): the only `unsafe` code of the crate, each
//!    block with its `SAFETY:` argument, the wide forms reachable only
//!    through a value that proves the CPU runs them ([`KernelPath`]
//!    chooses one).
//! 3. [`query`] and [`error`]: what is asked and answered, the query
//!    traits ([`RayCast`], [`PointQuery`], [`SphereCast`]) and the errors.
//! 4. [`index`]: the indexes, each its own type — the grid
//!    ([`GridIndex`], which answers every query on its own), the BVH
//!    ([`Bvh`]), the inside and the closest index — and the routes a ray
//!    takes through them.
//! 5. [`Collider`] (with its batches and the text queries of
//!    [`Query`]): the indexes composed, each query by its fastest route.
//!
//! See `docs/queries.md` in the repository for what each query answers
//! and its exactness, `benches/README.md` for the benchmarks.

#![deny(unsafe_code)]

pub mod error;
pub mod geometry;
pub mod index;
pub mod query;

mod collider;
// The kernels' SIMD code and data layouts: `unsafe` with a `SAFETY:`
// argument for every block, the AVX2 forms behind a proof of the CPU.
#[allow(unsafe_code)]
mod kernels;

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;

#[cfg(test)]
mod house_rules;
#[cfg(test)]
mod tests;

pub use collider::batch::{BatchError, CHUNK, SERIAL_BATCH};
pub use collider::script::{Answer, ParseError, Query, parse_vec3};
pub use collider::{Collider, SMALL_MESH};
pub use error::{ColliderError, QueryError};
pub use geometry::sizing::{DERIVED_CELLS_PER_TRIANGLE, MAX_DERIVED_CELLS};
pub use geometry::{Aabb, GridSpec, TriMesh};
pub use index::{
    Bvh, BvhError, BvhSah, BvhStats, COARSE_MEAN_LIST, GridIndex, GridSource, GridStats,
    StoredGrid, Surface,
};
pub use kernels::dispatch::KernelPath;
pub use query::{ClosestPoint, PointQuery, Ray, RayCast, RayHit, SphereCast, SphereContact};
