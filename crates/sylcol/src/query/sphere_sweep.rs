//! A moving sphere against the surface (the game's MOVESPHERE): the first
//! time the sphere `centre + t * motion`, t in [0, 1], touches a triangle.
//!
//! Per triangle, in f64: already touching at t = 0 (closest-point
//! distance <= radius); else the earliest of the sphere reaching the
//! face's plane with its contact point inside the face, the centre
//! reaching an edge's cylinder within the edge, and the centre reaching a
//! corner's sphere — the Minkowski sum of triangle and ball, entered from
//! outside. Candidates are the triangles listed in the cells the swept
//! box covers, each tested once, behind a capsule/bounding-sphere early-out.

use glam::{DVec3, Vec3};

use super::closest_point::{closest_on_segment, closest_on_triangle};
use super::mailbox::with_visits;
use super::{Collider, QueryError, SphereContact, finite, radius_ok};
use crate::geom::Aabb;

impl Collider {
    /// The first contact of the sphere moving from `centre` by `motion`,
    /// or `None`. A zero motion asks whether the sphere touches the
    /// surface where it stands (contact at t = 0).
    pub fn sweep_sphere(
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
        with_visits(self.triangle_count(), |seen| {
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        for &t in self.list(self.spec.linear([x, y, z])) {
                            if !seen.first(t) || !self.capsule_reaches(t, c, m, r) {
                                continue;
                            }
                            let tri = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
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

    /// Whether triangle `t`'s bounding sphere comes within `r` of the
    /// centre's path.
    fn capsule_reaches(&self, t: u32, c: DVec3, m: DVec3, r: f64) -> bool {
        let s = self.sphere(t as usize).as_dvec4();
        let centre = s.truncate();
        let d = closest_on_segment(centre, c, c + m).distance(centre);
        d <= (r + s.w) * (1.0 + 1e-9)
    }

    /// The contact record at `toi` with triangle `t`.
    fn contact(&self, c: DVec3, m: DVec3, toi: f64, t: u32) -> SphereContact {
        let [a, b, cc] = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
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

/// The first t in [0, 1] at which the sphere (c + t m, r) touches the
/// triangle, or `None`.
pub(crate) fn sweep_triangle(c: DVec3, r: f64, m: DVec3, tri: &[DVec3; 3]) -> Option<f64> {
    let [a, b, cc] = *tri;
    if closest_on_triangle(c, a, b, cc).distance_squared(c) <= r * r {
        return Some(0.0);
    }
    if m == DVec3::ZERO {
        return None;
    }
    let mut best = face_time(c, r, m, tri).unwrap_or(f64::INFINITY);
    for (p, q) in [(a, b), (b, cc), (cc, a)] {
        if let Some(t) = edge_time(c, r, m, p, q) {
            best = best.min(t);
        }
        if let Some(t) = entry_time(c - p, m, r) {
            best = best.min(t);
        }
    }
    (best <= 1.0).then_some(best)
}

/// When the sphere reaches the face's plane with its contact point inside
/// the face.
fn face_time(c: DVec3, r: f64, m: DVec3, [a, b, cc]: &[DVec3; 3]) -> Option<f64> {
    let n = (*b - *a).cross(*cc - *a).try_normalize()?;
    let (s0, sm) = (n.dot(c - *a), n.dot(m));
    // Already across the plane's slab: an edge or corner touches first.
    if s0.abs() < r || sm == 0.0 {
        return None;
    }
    let side = if s0 > 0.0 { r } else { -r };
    if (side - s0) / sm < 0.0 {
        return None;
    }
    let t = (side - s0) / sm;
    let q = c + m * t - n * side;
    let inside = [(*a, *b), (*b, *cc), (*cc, *a)]
        .iter()
        .all(|&(p0, p1)| (p1 - p0).cross(q - p0).dot(n) >= 0.0);
    (inside && t <= 1.0).then_some(t)
}

/// When the centre reaches the cylinder of radius r around edge pq, at a
/// point beside the edge (not beyond its ends).
fn edge_time(c: DVec3, r: f64, m: DVec3, p: DVec3, q: DVec3) -> Option<f64> {
    let d = q - p;
    let dd = d.length_squared();
    if dd == 0.0 {
        return None;
    }
    let w0 = c - p;
    let w = w0 - d * (w0.dot(d) / dd);
    let v = m - d * (m.dot(d) / dd);
    let t = entry_time_parts(w, v, r)?;
    let s = (w0 + m * t).dot(d) / dd;
    (0.0..=1.0).contains(&s).then_some(t)
}

/// When the point `w + t m` first comes within r of the origin, t in [0, 1].
fn entry_time(w: DVec3, m: DVec3, r: f64) -> Option<f64> {
    entry_time_parts(w, m, r)
}

/// The smaller root of |w + t v|^2 = r^2 when it lies in [0, 1] and the
/// start is outside.
fn entry_time_parts(w: DVec3, v: DVec3, r: f64) -> Option<f64> {
    let a = v.length_squared();
    let c = w.length_squared() - r * r;
    if a == 0.0 || c <= 0.0 {
        return None;
    }
    let b = w.dot(v);
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    // Numerically stable form of (-b - sqrt(disc)) / a.
    let t = if b < 0.0 {
        c / (-b + disc.sqrt())
    } else {
        (-b - disc.sqrt()) / a
    };
    (0.0..=1.0).contains(&t).then_some(t)
}
