//! What is asked and what is answered, named in parry's manner: the
//! query shapes ([`Ray`]), the answers ([`RayHit`], [`SphereContact`],
//! [`ClosestPoint`]) and the three families of queries as traits
//! ([`RayCast`], [`PointQuery`], [`SphereCast`]), which the
//! [`Collider`](crate::Collider) and each index that can answer one on its
//! own ([`GridIndex`](crate::GridIndex): the mesh through its uniform grid)
//! implement.
//!
//! | query | method | answer |
//! |---|---|---|
//! | ray (the game's LINE) | [`RayCast::cast_ray`] | first surface crossing, t > 0 |
//! | segment | [`RayCast::cast_segment`], [`RayCast::intersects_segment`] | same, t in (0, 1] |
//! | in/out (InOutTest) | [`PointQuery::contains_point`] | inside the closed hull |
//! | nearest surface point | [`PointQuery::closest_point`] | unsigned distance |
//! | moving sphere (MOVESPHERE) | [`SphereCast::sweep_sphere`] | first contact |
//! | sphere overlap | [`SphereCast::intersects_sphere`] | touches the surface |
//!
//! The hull is a surface: rays and segments report the first crossing with
//! t > 0 even from inside a solid; containment is `contains_point`'s answer.

use glam::Vec3;

use crate::error::QueryError;

/// Rays and segments against the surface.
pub trait RayCast {
    /// The first surface crossing of `ray` with 0 < t <= `max_toi`, or
    /// `None`. From inside a solid this is where the ray leaves it. Ties
    /// at one t go to the lowest triangle index.
    fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError>;

    /// The first crossing of the segment `from -> to`; `time_of_impact`
    /// is the fraction of the way, in (0, 1].
    fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError>;

    /// Whether the segment `from -> to` crosses the surface at t in (0, 1].
    fn intersects_segment(&self, from: Vec3, to: Vec3) -> Result<bool, QueryError> {
        self.cast_segment(from, to).map(|h| h.is_some())
    }
}

/// Points against the closed hull and its surface.
pub trait PointQuery {
    /// Whether `p` lies inside the closed hull, or on its surface.
    fn contains_point(&self, p: Vec3) -> Result<bool, QueryError>;

    /// The nearest point of the surface to `p`, with the unsigned
    /// distance; `None` when there is no surface to be near.
    fn closest_point(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError>;
}

/// Spheres, standing or moving, against the surface.
pub trait SphereCast {
    /// The first contact of the sphere moving from `centre` by `motion`
    /// (t in [0, 1]), or `None`. A zero motion asks whether the sphere
    /// touches the surface where it stands (contact at t = 0).
    fn sweep_sphere(
        &self,
        centre: Vec3,
        radius: f32,
        motion: Vec3,
    ) -> Result<Option<SphereContact>, QueryError>;

    /// Whether a sphere touches the surface (distance <= radius). A sphere
    /// wholly inside a solid does not touch it: ask `contains_point`.
    fn intersects_sphere(&self, centre: Vec3, radius: f32) -> Result<bool, QueryError>;
}

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
pub(crate) fn finite(v: Vec3, what: &'static str) -> Result<(), QueryError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(QueryError::NonFinite(what))
    }
}

/// Checks a sphere radius: finite and >= 0.
pub(crate) fn radius_ok(r: f32) -> Result<(), QueryError> {
    if r.is_nan() || r < 0.0 {
        Err(QueryError::BadRadius(r))
    } else if !r.is_finite() {
        Err(QueryError::NonFinite("radius"))
    } else {
        Ok(())
    }
}
