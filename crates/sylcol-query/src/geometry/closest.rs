//! Nearest points and first contacts of one triangle, in f64: the
//! per-triangle answers of `closest_point` and `sweep_sphere`.
//!
//! The sweep is the Minkowski sum of triangle and ball entered from
//! outside: already touching at t = 0 (closest-point distance <= radius);
//! else the earliest of the sphere reaching the face's plane with its
//! contact point inside the face, the centre reaching an edge's cylinder
//! within the edge, and the centre reaching a corner's sphere.

use glam::DVec3;

/// The point of triangle abc nearest to p (Ericson, *Real-Time Collision
/// Detection*, 5.1.5): Voronoi regions of the vertices, edges and face.
#[inline(always)]
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom == 0.0 {
        // Degenerate (collinear) triangle: the nearest of its edges.
        return [(a, b), (b, c), (c, a)]
            .map(|(x, y)| closest_on_segment(p, x, y))
            .into_iter()
            .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
            .unwrap_or(a);
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

/// The point of segment xy nearest to p.
pub fn closest_on_segment(p: DVec3, x: DVec3, y: DVec3) -> DVec3 {
    let d = y - x;
    let l2 = d.length_squared();
    if l2 == 0.0 {
        return x;
    }
    x + d * ((p - x).dot(d) / l2).clamp(0.0, 1.0)
}

/// The first t in [0, 1] at which the sphere (c + t m, r) touches the
/// triangle, or `None`.
#[inline]
pub fn sweep_triangle(c: DVec3, r: f64, m: DVec3, tri: &[DVec3; 3]) -> Option<f64> {
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
