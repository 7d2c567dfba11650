//! Boxes, exact predicates and triangle spheres, shared by the queries
//! and by sylcol's verify and build.
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
    !edge_axes_separate(&v, half)
}

/// Whether one of the nine edge cross products separates the triangle
/// `v` (relative to a box's centre) from the box of half-widths `half`.
/// Axis k x edge has a zero component k, so each product and dot takes
/// two terms (the same values as the three-term forms: a zero term adds
/// nothing).
fn edge_axes_separate(v: &[DVec3; 3], half: DVec3) -> bool {
    let [a, b, c] = *v;
    for edge in [b - a, c - b, a - c] {
        // x x edge = (0, -e.z, e.y).
        let (ay, az) = (-edge.z, edge.y);
        let p = [
            a.y * ay + a.z * az,
            b.y * ay + b.z * az,
            c.y * ay + c.z * az,
        ];
        if (ay != 0.0 || az != 0.0) && separated(p, half.y * ay.abs() + half.z * az.abs()) {
            return true;
        }
        // y x edge = (e.z, 0, -e.x).
        let (ax, az) = (edge.z, -edge.x);
        let p = [
            a.x * ax + a.z * az,
            b.x * ax + b.z * az,
            c.x * ax + c.z * az,
        ];
        if (ax != 0.0 || az != 0.0) && separated(p, half.x * ax.abs() + half.z * az.abs()) {
            return true;
        }
        // z x edge = (-e.y, e.x, 0).
        let (ax, ay) = (-edge.y, edge.x);
        let p = [
            a.x * ax + a.y * ay,
            b.x * ax + b.y * ay,
            c.x * ax + c.y * ay,
        ];
        if (ax != 0.0 || ay != 0.0) && separated(p, half.x * ax.abs() + half.y * ay.abs()) {
            return true;
        }
    }
    false
}

/// Whether the projections `p` of a triangle's corners on an axis lie
/// beyond a box's projected half-width `r` on one side.
#[inline(always)]
fn separated(p: [f64; 3], r: f64) -> bool {
    p[0].min(p[1]).min(p[2]) > r || p[0].max(p[1]).max(p[2]) < -r
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

/// Triangle sphere radius = enclosing radius x this (the game's epsilon).
pub const SPHERE_SCALE: f64 = 1.0001;

/// A triangle's bounding sphere as a map file stores it (centre, radius):
/// the minimal enclosing sphere, radius x [`SPHERE_SCALE`], rounded so that
/// the f32 sphere really encloses the f32 corners (checked in f64).
pub fn triangle_sphere(tri: &[Vec3; 3]) -> [f32; 4] {
    let (centre, radius) = triangle_min_sphere(tri);
    // The exact centre lies in the triangle's bounds; clamping keeps f64
    // rounding from moving the stored f32 centre past them (and the map box).
    let c = centre.as_vec3().clamp(
        tri[0].min(tri[1]).min(tri[2]),
        tri[0].max(tri[1]).max(tri[2]),
    );
    let r = enclosing_f32_radius(radius * SPHERE_SCALE, enclosing_radius(tri, c.as_dvec3()));
    [c.x, c.y, c.z, r]
}

/// `wanted` as an f32 no smaller than `needed` (both f64).
pub fn enclosing_f32_radius(wanted: f64, needed: f64) -> f32 {
    let r = wanted as f32;
    if f64::from(r) >= needed {
        r
    } else {
        f32_at_least(needed)
    }
}

/// The smallest f32 not below `x`.
pub fn f32_at_least(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f.next_up() } else { f }
}

/// Whether a sphere reaches (touches or overlaps) a box.
pub fn sphere_reaches_box(centre: DVec3, radius: f64, b: &Aabb) -> bool {
    b.distance_squared(centre) <= radius * radius
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// The edge axes as full cross products and three-term dots (the
    /// form before the two-term one).
    fn edge_axes_separate_three_term(v: &[DVec3; 3], half: DVec3) -> bool {
        let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
        for edge in e {
            for k in 0..3 {
                let a = DVec3::AXES[k].cross(edge);
                if a == DVec3::ZERO {
                    continue;
                }
                let p = v.map(|q| q.dot(a));
                let r = half.dot(a.abs());
                if p[0].min(p[1]).min(p[2]) > r || p[0].max(p[1]).max(p[2]) < -r {
                    return true;
                }
            }
        }
        false
    }

    /// The two-term edge axes decide as the three-term ones, on random
    /// triangles and on triangles with integer corners (axis-parallel
    /// edges, touching contacts) against unit cells grown or not.
    #[test]
    fn edge_axes_agree_with_full_cross_products() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let mut overlaps = [0usize; 2];
        for k in 0..200_000 {
            let integer = k % 2 == 0;
            let corner = |rng: &mut ChaCha8Rng| {
                Vec3::from_array(std::array::from_fn(|_| {
                    if integer {
                        rng.random_range(-2i32..4) as f32
                    } else {
                        rng.random_range(-1.5f32..2.5)
                    }
                }))
            };
            let tri = [corner(&mut rng), corner(&mut rng), corner(&mut rng)];
            let margin = [0.0, 1e-5][k % 4 / 2];
            let b = unit_box().expanded(margin);
            let centre = (b.min + b.max) * 0.5;
            let half = (b.max - b.min) * 0.5;
            let v = tri.map(|p| p.as_dvec3() - centre);
            let want = edge_axes_separate_three_term(&v, half);
            assert_eq!(edge_axes_separate(&v, half), want, "{tri:?} {margin}");
            overlaps[usize::from(want)] += 1;
        }
        assert!(overlaps.iter().all(|&n| n > 20_000), "{overlaps:?}");
    }

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
