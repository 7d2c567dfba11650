//! Runtime collision queries over a map's own uniform grid.
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
//!
//! The hull is a surface: rays and segments report the first crossing with
//! t > 0 even from inside a solid; containment is `contains_point`'s answer.
//! See `docs/queries.md` for the algorithms, their exactness and the
//! benchmark.

mod batch;
mod bvh;
#[cfg(target_arch = "x86_64")]
mod bvh_avx;
mod bvh_build;
mod bvh_check;
mod bvh_collapse;
mod bvh_stream;
mod bvh_walk;
mod closest_far;
mod closest_index;
mod closest_point;
mod collider;
mod error;
mod exact;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod grid_walk;
#[cfg(target_arch = "x86_64")]
mod grid_walk_avx;
mod inside_index;
mod mailbox;
pub(crate) mod point_inside;
mod ray_cast;
mod ray_grid;
mod ray_triangle;
#[cfg(target_arch = "x86_64")]
mod ray_triangle_avx;
pub mod script;
mod sphere_sweep;
mod sub_grid;
mod visited;

#[cfg(test)]
mod bvh_tests;
#[cfg(test)]
mod kernel_tests;
#[cfg(test)]
mod point_index_tests;
#[cfg(test)]
mod tests;

pub use batch::{BatchError, CHUNK, SERIAL_BATCH};
pub use bvh::{Bvh, BvhSah, BvhStats};
pub use bvh_check::BvhError;
pub use collider::{COARSE_MEAN_LIST, Collider, GridSource, GridStats, MAX_DERIVED_CELLS};
pub use error::{ColliderError, QueryError};
pub use script::{Answer, ParseError, Query};

use glam::Vec3;

/// A half-line `origin + t * dir`, t >= 0. `dir` need not be unit length:
/// times of impact are in units of `dir`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Its direction (non-zero).
    pub dir: Vec3,
}

impl Ray {
    /// The ray from `origin` along `dir`.
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Ray { origin, dir }
    }

    /// The point at parameter `t`.
    pub fn point_at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// Where a ray or segment first crosses the surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit (segment: fraction of the way, in (0, 1]).
    pub time_of_impact: f32,
    /// The hit point, `origin + time_of_impact * dir`.
    pub point: Vec3,
    /// Unit normal of the hit triangle by its winding (outward for the
    /// game's hulls), not flipped towards the ray.
    pub normal: Vec3,
    /// Index of the hit triangle in the mesh.
    pub triangle: u32,
}

/// The first contact of a moving sphere with the surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereContact {
    /// Fraction of the motion at first contact, in [0, 1]; 0 when the
    /// sphere touches the surface where it starts.
    pub time_of_impact: f32,
    /// The contact point on the surface.
    pub point: Vec3,
    /// Unit vector from the contact point towards the sphere's centre at
    /// contact (the triangle's normal, facing the sphere, when the centre
    /// is on the surface).
    pub normal: Vec3,
    /// Index of the touched triangle.
    pub triangle: u32,
}

/// The nearest surface point to a query point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestPoint {
    /// The nearest point on the surface.
    pub point: Vec3,
    /// Unsigned distance from the query point to `point`.
    pub distance: f32,
    /// Index of the triangle `point` lies on.
    pub triangle: u32,
}

/// Checks that every component of `v` is finite.
fn finite(v: Vec3, what: &'static str) -> Result<(), QueryError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(QueryError::NonFinite(what))
    }
}

/// Checks a sphere radius: finite and >= 0.
fn radius_ok(r: f32) -> Result<(), QueryError> {
    if r.is_nan() || r < 0.0 {
        Err(QueryError::BadRadius(r))
    } else if !r.is_finite() {
        Err(QueryError::NonFinite("radius"))
    } else {
        Ok(())
    }
}
