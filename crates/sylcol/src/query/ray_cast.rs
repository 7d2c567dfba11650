//! Rays and segments: the DDA walk, mailboxed list tests, and the cell
//! t-range rule that keeps the first hit exact.

use glam::Vec3;

use super::grid_walk::GridWalk;
use super::mailbox::with_visits;
use super::ray_triangle::RayKernel;
use super::{Collider, QueryError, Ray, RayHit, finite};

impl Collider {
    /// The first surface crossing of `ray` with 0 < t <= `max_toi` (the
    /// game's LINE check), or `None`. From inside a solid this is where
    /// the ray leaves it. Ties at one t go to the lowest triangle index.
    pub fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        Ok(self.first_hit(ray, max_toi))
    }

    /// The first crossing of the segment `from -> to`; `time_of_impact`
    /// is the fraction of the way, in (0, 1].
    pub fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError> {
        finite(from, "segment start")?;
        finite(to, "segment end")?;
        let dir = to - from;
        if dir == Vec3::ZERO {
            return Err(QueryError::ZeroDirection("segment"));
        }
        Ok(self.first_hit(&Ray::new(from, dir), 1.0))
    }

    /// Whether the segment `from -> to` crosses the surface at t in (0, 1].
    pub fn intersects_segment(&self, from: Vec3, to: Vec3) -> Result<bool, QueryError> {
        self.cast_segment(from, to).map(|h| h.is_some())
    }

    /// The walk for validated input. A hit found in one cell is kept only
    /// while no later cell can hold a nearer one: the walk stops once a
    /// cell is entered beyond the best t.
    pub(crate) fn first_hit(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let walk = GridWalk::new(
            &self.spec,
            ray.origin.as_dvec3(),
            ray.dir.as_dvec3(),
            0.0,
            f64::from(max_toi),
        )?;
        let k = RayKernel::new(ray.origin, ray.dir);
        let (mut best_t, mut best) = (max_toi, u32::MAX);
        with_visits(self.tris.len(), |seen| {
            for step in walk {
                if step.t_enter > f64::from(best_t) {
                    break;
                }
                for &t in self.list(step.cell) {
                    if !seen.first(t) {
                        continue;
                    }
                    let tri = &self.tris[t as usize];
                    if !k.may_hit_sphere(tri, best_t) {
                        continue;
                    }
                    // A tie at best_t goes to the lower index.
                    if let Some(toi) = k.hit(tri, best_t)
                        && (toi < best_t || t < best)
                    {
                        (best_t, best) = (toi, t);
                    }
                }
            }
        });
        (best != u32::MAX).then(|| self.hit_record(ray, best_t, best))
    }

    /// The hit record for triangle `t` at `toi`.
    pub(crate) fn hit_record(&self, ray: &Ray, toi: f32, t: u32) -> RayHit {
        RayHit {
            time_of_impact: toi,
            point: ray.point_at(toi),
            normal: self.tris[t as usize].normal(),
            triangle: t,
        }
    }

    /// The first hit over every triangle, without the grid: the reference
    /// the grid walk must agree with (tests, benchmarks, `--grid none`).
    pub fn cast_ray_brute_force(
        &self,
        ray: &Ray,
        max_toi: f32,
    ) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        let k = RayKernel::new(ray.origin, ray.dir);
        let (mut best_t, mut best) = (max_toi, u32::MAX);
        for (t, tri) in self.tris.iter().enumerate() {
            if let Some(toi) = k.hit(tri, best_t)
                && (toi < best_t || (t as u32) < best)
            {
                (best_t, best) = (toi, t as u32);
            }
        }
        Ok((best != u32::MAX).then(|| self.hit_record(ray, best_t, best)))
    }
}

/// A finite, non-zero direction and a max that is not NaN.
fn check_ray(ray: &Ray, max_toi: f32) -> Result<(), QueryError> {
    finite(ray.origin, "ray origin")?;
    finite(ray.dir, "ray direction")?;
    if ray.dir == Vec3::ZERO {
        return Err(QueryError::ZeroDirection("ray direction"));
    }
    if max_toi.is_nan() {
        return Err(QueryError::NonFinite("max time of impact"));
    }
    Ok(())
}
