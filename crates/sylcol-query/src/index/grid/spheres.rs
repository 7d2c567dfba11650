//! Spheres through the grid: a moving sphere against the surface (the
//! game's MOVESPHERE), the first time the sphere `centre + t * motion`, t
//! in [0, 1], touches a triangle; and a standing sphere's overlap.
//!
//! Per triangle, in f64: already touching at t = 0 (closest-point
//! distance <= radius); else the earliest of the sphere reaching the
//! face's plane with its contact point inside the face, the centre
//! reaching an edge's cylinder within the edge, and the centre reaching a
//! corner's sphere — the Minkowski sum of triangle and ball, entered from
//! outside (`geometry::closest::sweep_triangle`). Candidates are the
//! triangles listed in the cells the swept box covers, each tested once,
//! behind a capsule/bounding-sphere early-out.

use glam::{DVec3, Vec3};

use super::GridIndex;
use crate::error::QueryError;
use crate::geometry::closest::{closest_on_segment, closest_on_triangle, sweep_triangle};
use crate::geometry::primitives::Aabb;
use crate::kernels::mailbox::with_visits;
use crate::query::{SphereCast, SphereContact, finite, radius_ok};

impl SphereCast for GridIndex {
    /// The first contact of the sphere moving from `centre` by `motion`,
    /// or `None`: the triangles the cells its swept box covers list.
    fn sweep_sphere(
        &self,
        centre: Vec3,
        radius: f32,
        motion: Vec3,
    ) -> Result<Option<SphereContact>, QueryError> {
        finite(centre, "sphere centre")?;
        finite(motion, "sphere motion")?;
        radius_ok(radius)?;
        let (c, r, m) = (centre.as_dvec3(), f64::from(radius), motion.as_dvec3());
        let rv = DVec3::splat(r);
        let swept = Aabb::new(c.min(c + m) - rv, c.max(c + m) + rv);
        let Some((lo, hi)) = self.spec.cell_range(&swept) else {
            return Ok(None);
        };
        let mut best = (f64::INFINITY, u32::MAX);
        let mesh = self.mesh();
        with_visits(mesh.triangles.len(), |seen| {
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        for &t in self.list(self.spec.linear([x, y, z])) {
                            if !seen.first(t) || !self.capsule_reaches(t, c, m, r) {
                                continue;
                            }
                            let tri = mesh.corners(t as usize).map(|v| v.as_dvec3());
                            if let Some(toi) = sweep_triangle(c, r, m, &tri)
                                && (toi < best.0 || (toi == best.0 && t < best.1))
                            {
                                best = (toi, t);
                            }
                        }
                    }
                }
            }
        });
        Ok((best.1 != u32::MAX).then(|| self.contact(c, m, best.0, best.1)))
    }

    /// Whether a sphere touches the surface (distance <= radius): the
    /// triangles the cells its box reaches list. A sphere wholly inside a
    /// solid does not touch it: ask `contains_point`.
    fn intersects_sphere(&self, centre: Vec3, radius: f32) -> Result<bool, QueryError> {
        finite(centre, "sphere centre")?;
        radius_ok(radius)?;
        let (c, r) = (centre.as_dvec3(), f64::from(radius));
        let b = Aabb::new(c - DVec3::splat(r), c + DVec3::splat(r));
        let Some((lo, hi)) = self.spec.cell_range(&b) else {
            return Ok(false);
        };
        let surface = &self.surface;
        Ok(with_visits(surface.triangle_count(), |seen| {
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        let cell = self.spec.linear([x, y, z]);
                        if self.spec.cell_box(cell).distance_squared(c) > r * r {
                            continue;
                        }
                        for &t in self.list(cell) {
                            if seen.first(t) && surface.triangle_distance2(t, c, r * r) <= r * r {
                                return true;
                            }
                        }
                    }
                }
            }
            false
        }))
    }
}

impl GridIndex {
    /// Whether triangle `t`'s bounding sphere comes within `r` of the
    /// centre's path.
    fn capsule_reaches(&self, t: u32, c: DVec3, m: DVec3, r: f64) -> bool {
        let s = self.surface.sphere(t as usize).as_dvec4();
        let centre = s.truncate();
        let d = closest_on_segment(centre, c, c + m).distance(centre);
        d <= (r + s.w) * (1.0 + 1e-9)
    }

    /// The contact record at `toi` with triangle `t` (also the BVH
    /// path's: `Collider::sweep_sphere`).
    pub(crate) fn contact(&self, c: DVec3, m: DVec3, toi: f64, t: u32) -> SphereContact {
        let [a, b, cc] = self.mesh().corners(t as usize).map(|v| v.as_dvec3());
        let at = c + m * toi;
        let point = closest_on_triangle(at, a, b, cc);
        let face = (b - a).cross(cc - a).normalize_or_zero();
        let normal = (at - point)
            .try_normalize()
            .unwrap_or(if face.dot(m) > 0.0 { -face } else { face });
        SphereContact {
            time_of_impact: toi as f32,
            point: point.as_vec3(),
            normal: normal.as_vec3(),
            triangle: t,
        }
    }
}
