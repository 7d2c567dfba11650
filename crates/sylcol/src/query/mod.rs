//! Runtime collision queries over a map's own uniform grid: the query
//! engine of [`sylcol_query`], fed with the game's maps.
//!
//! The game's collision runtime (`xcol`: `WorldToSector`,
//! `GetSectorPolygonData`, `InOutTest`, `LINE`, `MOVESPHERE`) answers its
//! questions through the MCOL file's grid: position -> cell -> the cell's
//! u16 triangle list. [`Collider`] does the same, named in parry's manner:
//!
//! | query | method | answer |
//! |---|---|---|
//! | sector of a point | [`Collider::world_to_cell`] | cell coordinates |
//! | a sector's polygons | [`Collider::cell_triangles`] | triangle indices |
//! | ray (LINE) | [`Collider::cast_ray`] | first surface crossing, t > 0 |
//! | segment | [`Collider::cast_segment`], [`Collider::intersects_segment`] | same, t in (0, 1] |
//! | in/out (InOutTest) | [`Collider::contains_point`] | inside the closed hull |
//! | moving sphere (MOVESPHERE) | [`Collider::sweep_sphere`] | first contact |
//! | sphere overlap | [`Collider::intersects_sphere`] | touches the surface |
//! | nearest surface point | [`Collider::closest_point`] | unsigned distance |
//!
//! Batches of each ([`Collider::cast_rays`], [`Collider::inside_many`],
//! [`Collider::closest_many`], [`Collider::answer_many`]) run on every core.
//! A collider over an MCOL map comes from [`ColliderFromMcol::from_mcol`]
//! (`Collider::from_mcol(&map)` with the trait in scope: `use
//! sylcol::prelude::*`), over any other mesh from [`Collider::from_mesh`].
//!
//! The hull is a surface: rays and segments report the first crossing with
//! t > 0 even from inside a solid; containment is `contains_point`'s answer.
//! See `docs/queries.md` for what each query answers and its exactness,
//! `benches/README.md` for the benchmarks.

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod mcol;
#[cfg(test)]
mod tests;

pub use mcol::ColliderFromMcol;
pub use sylcol_query::{
    Answer, BatchError, Bvh, BvhError, BvhSah, BvhStats, CHUNK, COARSE_MEAN_LIST, ClosestPoint,
    Collider, ColliderError, DERIVED_CELLS_PER_TRIANGLE, GridIndex, GridSource, GridStats,
    KernelPath, MAX_DERIVED_CELLS, ParseError, PointQuery, Query, QueryError, Ray, RayCast, RayHit,
    SERIAL_BATCH, SMALL_MESH, SphereCast, SphereContact, StoredGrid,
};

/// Queries as words and answers as JSON: the line format of
/// `sylcol query FILE batch`, and the answer record every query command
/// prints (see [`Query`]).
pub mod script {
    pub use sylcol_query::{Answer, ParseError, Query, parse_vec3};
}
