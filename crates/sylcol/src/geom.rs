//! Exact geometric predicates shared by verify, build and query.
//!
//! Computations run in f64 so the f32 inputs are represented exactly and the
//! tests decide on the true geometry, not on rounding.

use glam::{DVec3, Vec3};

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: DVec3,
    /// Maximum corner.
    pub max: DVec3,
}

impl Aabb {
    /// The box from `min` to `max`.
    pub fn new(min: DVec3, max: DVec3) -> Self {
        Aabb { min, max }
    }

    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: f64) -> Self {
        Aabb::new(
            self.min - DVec3::splat(margin),
            self.max + DVec3::splat(margin),
        )
    }

    /// The bounds of a triangle.
    pub fn of_triangle(t: &[Vec3; 3]) -> Self {
        let [a, b, c] = t.map(|v| v.as_dvec3());
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }

    /// Whether two boxes overlap (touching counts).
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.cmple(o.max).all() && o.min.cmple(self.max).all()
    }

    /// Whether `o` lies inside this box (touching the faces counts).
    pub fn contains(&self, o: &Aabb) -> bool {
        self.min.cmple(o.min).all() && o.max.cmple(self.max).all()
    }

    /// Whether the point `p` lies in the box (faces included).
    pub fn contains_point(&self, p: DVec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// Squared distance from `p` to the box (0 inside).
    pub fn distance_squared(&self, p: DVec3) -> f64 {
        let d = (self.min - p).max(p - self.max).max(DVec3::ZERO);
        d.length_squared()
    }
}

/// Separating-axis test of a triangle against a box (Akenine-Möller's 13
/// axes). Touching counts as overlap. Exact up to f64 rounding of the
/// products of f32 inputs.
pub fn triangle_overlaps_box(tri: &[Vec3; 3], b: &Aabb) -> bool {
    let centre = (b.min + b.max) * 0.5;
    let half = (b.max - b.min) * 0.5;
    let v = tri.map(|p| p.as_dvec3() - centre);
    // The box's own axes: triangle AABB against the box.
    for k in 0..3 {
        let lo = v[0][k].min(v[1][k]).min(v[2][k]);
        let hi = v[0][k].max(v[1][k]).max(v[2][k]);
        if lo > half[k] || hi < -half[k] {
            return false;
        }
    }
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    // The triangle's plane.
    let n = e[0].cross(e[1]);
    let r = half.dot(n.abs());
    let s = n.dot(v[0]);
    if s > r || s < -r {
        return false;
    }
    // The nine edge cross products.
    for edge in e {
        for k in 0..3 {
            let mut axis = DVec3::ZERO;
            axis[k] = 1.0;
            let a = axis.cross(edge);
            if a == DVec3::ZERO {
                continue;
            }
            let p = v.map(|q| q.dot(a));
            let lo = p[0].min(p[1]).min(p[2]);
            let hi = p[0].max(p[1]).max(p[2]);
            let r = half.dot(a.abs());
            if lo > r || hi < -r {
                return false;
            }
        }
    }
    true
}

/// The smallest sphere enclosing a triangle: the circumsphere when the
/// triangle is acute, else the sphere on its longest edge. Returns
/// (centre, radius) in f64.
pub fn triangle_min_sphere(tri: &[Vec3; 3]) -> (DVec3, f64) {
    let [a, b, c] = tri.map(|p| p.as_dvec3());
    let ab = b - a;
    let ac = c - a;
    let bc = c - b;
    // Obtuse or right at a vertex: the opposite edge is the diameter.
    if ab.dot(ac) <= 0.0 {
        return edge_sphere(b, c);
    }
    if (-ab).dot(bc) <= 0.0 {
        return edge_sphere(a, c);
    }
    if ac.dot(bc) <= 0.0 {
        return edge_sphere(a, b);
    }
    let n = ab.cross(ac);
    let denom = 2.0 * n.length_squared();
    if denom == 0.0 {
        // Degenerate: the longest edge spans it.
        let (p, q) = [(a, b), (b, c), (a, c)]
            .into_iter()
            .max_by(|x, y| {
                (x.1 - x.0)
                    .length_squared()
                    .total_cmp(&(y.1 - y.0).length_squared())
            })
            .unwrap_or((a, b));
        return edge_sphere(p, q);
    }
    let offset = (ac.length_squared() * n.cross(ab) + ab.length_squared() * ac.cross(n)) / denom;
    let centre = a + offset;
    let radius = [a, b, c]
        .iter()
        .map(|p| p.distance(centre))
        .fold(0.0, f64::max);
    (centre, radius)
}

fn edge_sphere(p: DVec3, q: DVec3) -> (DVec3, f64) {
    let centre = (p + q) * 0.5;
    (centre, p.distance(centre).max(q.distance(centre)))
}

/// The largest distance from `centre` to a corner of `tri`, in f64.
pub fn enclosing_radius(tri: &[Vec3; 3], centre: DVec3) -> f64 {
    tri.iter()
        .map(|p| p.as_dvec3().distance(centre))
        .fold(0.0, f64::max)
}

/// Whether a sphere reaches (touches or overlaps) a box.
pub fn sphere_reaches_box(centre: DVec3, radius: f64, b: &Aabb) -> bool {
    b.distance_squared(centre) <= radius * radius
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Aabb {
        Aabb::new(DVec3::ZERO, DVec3::ONE)
    }

    #[test]
    fn triangle_box_cases() {
        let b = unit_box();
        let inside = [
            Vec3::splat(0.2),
            Vec3::new(0.8, 0.2, 0.2),
            Vec3::new(0.2, 0.8, 0.5),
        ];
        assert!(triangle_overlaps_box(&inside, &b));
        let far = inside.map(|v| v + Vec3::splat(5.0));
        assert!(!triangle_overlaps_box(&far, &b));
        // Big triangle whose plane cuts the box though no vertex is inside.
        let big = [
            Vec3::new(-10.0, -10.0, 0.5),
            Vec3::new(10.0, -10.0, 0.5),
            Vec3::new(0.0, 10.0, 0.5),
        ];
        assert!(triangle_overlaps_box(&big, &b));
        // Triangle whose AABB overlaps the box but which passes beside a corner.
        let beside = [
            Vec3::new(2.0, 0.5, 0.5),
            Vec3::new(0.5, 2.0, 0.5),
            Vec3::new(2.0, 2.0, 0.5),
        ];
        assert!(Aabb::of_triangle(&beside).overlaps(&b));
        assert!(!triangle_overlaps_box(&beside, &b));
        // Touching a face counts.
        let touch = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 1.0),
        ];
        assert!(triangle_overlaps_box(&touch, &b));
    }

    #[test]
    fn min_sphere_right_triangle_is_hypotenuse_midpoint() {
        let t = [
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ];
        let (c, r) = triangle_min_sphere(&t);
        assert_eq!(c, DVec3::new(1.0, 1.0, 0.0));
        assert!((r - 2f64.sqrt()).abs() < 1e-12);
        let eq = [
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.5, 3f32.sqrt() / 2.0, 0.0),
        ];
        let (c, r) = triangle_min_sphere(&eq);
        assert!((r - 1.0 / 3f64.sqrt()).abs() < 1e-6);
        assert!(enclosing_radius(&eq, c) <= r + 1e-12);
    }
}
