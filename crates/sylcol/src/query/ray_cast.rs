//! Rays and segments: the DDA walk, mailboxed list tests, and the cell
//! t-range rule that keeps the first hit exact.

use glam::Vec3;

use super::grid_walk::GridWalk;
use super::mailbox::with_visits;
use super::ray_triangle::{NO_TRIANGLE, Packet, RayKernel};
use super::{Collider, QueryError, Ray, RayHit, finite};

/// Meshes with at most this many triangles are cast against without the
/// grid (all their packets, each triangle once).
pub const SMALL_MESH: usize = 32;

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
        if self.triangle_count() <= SMALL_MESH {
            // A handful of packets: testing them all beats walking.
            return self.every_triangle(ray, max_toi);
        }
        self.walk_hit(ray, max_toi)
    }

    /// The grid walk proper.
    pub(crate) fn walk_hit(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let walk = GridWalk::new(
            &self.frame,
            ray.origin.as_dvec3(),
            ray.dir.as_dvec3(),
            0.0,
            f64::from(max_toi),
        )?;
        let k = RayKernel::new(ray.origin, ray.dir);
        let mut best = (max_toi, NO_TRIANGLE);
        // One spare mailbox slot for the packets' unused lanes.
        with_visits(self.triangle_count() + 1, |seen| {
            walk.visit(|cell, t_enter| {
                if t_enter > f64::from(best.0) {
                    return false;
                }
                for p in self.cell_packets(cell) {
                    // Mailbox: only lanes whose triangle is new to this ray.
                    let fresh = seen.fresh4(&p.ids);
                    if fresh != 0 {
                        take_nearest(&k, p, fresh, &mut best);
                    }
                }
                true
            });
        });
        (best.1 != NO_TRIANGLE).then(|| self.hit_record(ray, best.0, best.1))
    }

    /// The hit record for triangle `t` at `toi`.
    pub(crate) fn hit_record(&self, ray: &Ray, toi: f32, t: u32) -> RayHit {
        RayHit {
            time_of_impact: toi,
            point: ray.point_at(toi),
            normal: self.normals[t as usize],
            triangle: t,
        }
    }

    /// The first hit over every triangle with the same kernel, without the
    /// grid: the reference the grid walk must agree with.
    pub fn cast_ray_brute_force(
        &self,
        ray: &Ray,
        max_toi: f32,
    ) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        Ok(self.every_triangle(ray, max_toi))
    }

    /// Every packet in index order, each triangle once.
    fn every_triangle(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let k = RayKernel::new(ray.origin, ray.dir);
        let mut best = (max_toi, NO_TRIANGLE);
        for p in &self.all_packets {
            take_nearest(&k, p, 0b1111, &mut best);
        }
        (best.1 != NO_TRIANGLE).then(|| self.hit_record(ray, best.0, best.1))
    }
}

/// Tests the `lanes` of packet `p` and keeps the nearest hit in `best`
/// (time, triangle); a tie in time goes to the lower triangle index.
#[inline(always)]
fn take_nearest(k: &RayKernel, p: &Packet, lanes: u32, best: &mut (f32, u32)) {
    let (t, mut mask) = k.hits(p, best.0);
    mask &= lanes;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let (tl, id) = (t[lane], p.ids[lane]);
        if tl < best.0 || (tl == best.0 && id < best.1) {
            *best = (tl, id);
        }
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
