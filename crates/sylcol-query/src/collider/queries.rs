//! The collider's answers: each query by its fastest route through the
//! collider's indexes, as inherent methods and as the query traits.

use glam::Vec3;

use super::Collider;
use crate::error::QueryError;
use crate::index::closest::index::ClosestIndex;
use crate::index::inside::InsideIndex;
use crate::index::prep::{Cast, check_ray, representable};
use crate::index::rays::Route;
use crate::index::surface::closest_answer;
use crate::query::{
    ClosestPoint, PointQuery, Ray, RayCast, RayHit, SphereCast, SphereContact, finite, radius_ok,
};

impl Collider {
    /// The first surface crossing of `ray` with 0 < t <= `max_toi` (the
    /// game's LINE check), or `None`. From inside a solid this is where
    /// the ray leaves it. Ties at one t go to the lowest triangle index.
    ///
    /// A hit whose time of impact exceeds `f32::MAX` (a direction far
    /// shorter than the distance to the hit) cannot be reported:
    /// [`QueryError::TimeOverflow`].
    pub fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        representable(self.grid.cast_with(ray, max_toi, Cast::Ray, self.route()))
    }

    /// The first crossing of the segment `from -> to`; `time_of_impact`
    /// is the fraction of the way, in (0, 1]. `to - from` must be finite
    /// in f32.
    pub fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError> {
        self.grid.cast_segment_by(from, to, self.route())
    }

    /// Whether the segment `from -> to` crosses the surface at t in (0, 1].
    pub fn intersects_segment(&self, from: Vec3, to: Vec3) -> Result<bool, QueryError> {
        self.cast_segment(from, to).map(|h| h.is_some())
    }

    /// The first hit over every triangle with the same kernel, without the
    /// grid: the reference the grid walk must agree with.
    pub fn cast_ray_brute_force(
        &self,
        ray: &Ray,
        max_toi: f32,
    ) -> Result<Option<RayHit>, QueryError> {
        self.grid
            .cast_ray_by(ray, max_toi, Route::Scan(self.all_packets()))
    }

    /// Whether `p` lies inside the closed hull, or on its surface: the
    /// exact parity count through the inside index (built on the first
    /// call), whatever the grid's own lists leave out. A point outside the
    /// collider's grid is outside.
    pub fn contains_point(&self, p: Vec3) -> Result<bool, QueryError> {
        finite(p, "point")?;
        Ok(self.inside(p))
    }

    fn inside(&self, p: Vec3) -> bool {
        if !self.grid.spec.holds(p.as_dvec3()) {
            return false;
        }
        let index = self.inside_index();
        index.contains(p.as_dvec3()).unwrap_or(false)
    }

    /// The inside index, built on the first call.
    pub(crate) fn inside_index(&self) -> &InsideIndex {
        self.inside_index
            .get_or_init(|| InsideIndex::new(self.mesh()))
    }

    /// The nearest point of the surface to `p`, with the unsigned
    /// distance; `None` only when no cell lists a triangle. Through the
    /// BVH when the collider has one (`index::bvh::near`: every
    /// triangle), else through the closest index (built on the first
    /// call) and the grid's lists; a point more than 2^20 times the
    /// mesh's size from it always through the latter's exact search
    /// (`index::closest::far`). Ties go to the lowest triangle index.
    pub fn closest_point(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError> {
        if let Some(bvh) = &self.bvh {
            finite(p, "point")?;
            if self.grid.surface().far_from(p.as_dvec3()).is_none() {
                let best = bvh.nearest(self.grid.kernels, p, self.triangle_count());
                return closest_answer(best);
            }
        }
        let index = self
            .closest_index
            .get_or_init(|| ClosestIndex::new(&self.grid));
        index.closest_point(&self.grid, p)
    }

    /// The first contact of the sphere moving from `centre` by `motion`,
    /// or `None`. A zero motion asks whether the sphere touches the
    /// surface where it stands (contact at t = 0). Through the BVH when
    /// the collider has one (`index::bvh::sweep`: every triangle), else
    /// through the grid's lists; ties at one time go to the lowest
    /// triangle index.
    pub fn sweep_sphere(
        &self,
        centre: Vec3,
        radius: f32,
        motion: Vec3,
    ) -> Result<Option<SphereContact>, QueryError> {
        let Some(bvh) = &self.bvh else {
            return self.grid.sweep_sphere(centre, radius, motion);
        };
        finite(centre, "sphere centre")?;
        finite(motion, "sphere motion")?;
        radius_ok(radius)?;
        let (lo, hi) = self.grid.surface().bounds;
        let scale = lo.abs().max(hi.abs()).max_element();
        let mut best = (f64::INFINITY, u32::MAX);
        bvh.sweep(
            centre,
            radius,
            motion,
            (self.triangle_count(), scale),
            &mut best,
        );
        let (c, m) = (centre.as_dvec3(), motion.as_dvec3());
        Ok((best.1 != u32::MAX).then(|| self.grid.contact(c, m, best.0, best.1)))
    }

    /// Whether a sphere touches the surface (distance <= radius). A sphere
    /// wholly inside a solid does not touch it: ask `contains_point`.
    pub fn intersects_sphere(&self, centre: Vec3, radius: f32) -> Result<bool, QueryError> {
        self.grid.intersects_sphere(centre, radius)
    }
}

impl RayCast for Collider {
    fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError> {
        Collider::cast_ray(self, ray, max_toi)
    }

    fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError> {
        Collider::cast_segment(self, from, to)
    }
}

impl PointQuery for Collider {
    fn contains_point(&self, p: Vec3) -> Result<bool, QueryError> {
        Collider::contains_point(self, p)
    }

    fn closest_point(&self, p: Vec3) -> Result<Option<ClosestPoint>, QueryError> {
        Collider::closest_point(self, p)
    }
}

impl SphereCast for Collider {
    fn sweep_sphere(
        &self,
        centre: Vec3,
        radius: f32,
        motion: Vec3,
    ) -> Result<Option<SphereContact>, QueryError> {
        Collider::sweep_sphere(self, centre, radius, motion)
    }

    fn intersects_sphere(&self, centre: Vec3, radius: f32) -> Result<bool, QueryError> {
        Collider::intersects_sphere(self, centre, radius)
    }
}
