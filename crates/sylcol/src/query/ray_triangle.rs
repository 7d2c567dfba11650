//! The ray/triangle kernel: Möller–Trumbore over precomputed f32 edges,
//! behind a bounding-sphere early-out.
//!
//! Each triangle is one 64-byte record (one cache line): its first corner,
//! its two edges from that corner, and its bounding sphere. Barycentric
//! coordinates are accepted within [`BARY_EPS`] of the triangle, so a ray
//! through a shared edge or vertex of a closed hull hits at least one of
//! the triangles meeting there and cannot slip between them.

use glam::{Vec3, Vec3A, Vec4};

/// Barycentric tolerance: a hit may lie this fraction of the triangle
/// outside an edge (2^-20 ~ 9.5e-7).
pub const BARY_EPS: f32 = 1.0 / 1_048_576.0;

/// |det| below this times |d| r^2 counts as a ray parallel to the
/// triangle: 16 f32 epsilons over the bound (2r)^2 on |e1| |e2|, above the
/// rounding error of the f32 determinant.
pub const PARALLEL_EPS: f32 = 16.0 * f32::EPSILON;

/// A triangle laid out for the ray kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub struct PackedTri {
    /// Corner 0.
    pub v0: Vec3A,
    /// Corner 1 - corner 0.
    pub e1: Vec3A,
    /// Corner 2 - corner 0.
    pub e2: Vec3A,
    /// Bounding sphere: centre xyz, radius w.
    pub sphere: Vec4,
}

impl PackedTri {
    /// Packs the corners of a triangle with its bounding sphere.
    pub fn new(c: &[Vec3; 3], sphere: [f32; 4]) -> Self {
        let v0 = Vec3A::from(c[0]);
        PackedTri {
            v0,
            e1: Vec3A::from(c[1]) - v0,
            e2: Vec3A::from(c[2]) - v0,
            sphere: Vec4::from_array(sphere),
        }
    }

    /// Unit normal by winding (zero for a degenerate triangle).
    pub fn normal(&self) -> Vec3 {
        Vec3::from(self.e1.cross(self.e2).normalize_or_zero())
    }
}

/// A ray prepared for many triangle tests.
#[derive(Debug, Clone, Copy)]
pub struct RayKernel {
    /// Origin.
    pub o: Vec3A,
    /// Direction as given.
    pub d: Vec3A,
    /// Unit direction, for the sphere test.
    pub dn: Vec3A,
    /// |d|, to convert sphere distances to ray parameters.
    pub len: f32,
}

impl RayKernel {
    /// Prepares a ray; `d` must be non-zero and finite.
    pub fn new(o: Vec3, d: Vec3) -> Self {
        let d = Vec3A::from(d);
        let len = d.length();
        RayKernel {
            o: Vec3A::from(o),
            d,
            dn: d / len,
            len,
        }
    }

    /// Whether the ray, on (0, t_max), can reach the triangle's bounding
    /// sphere. Conservative: the sphere is widened by a rounding margin.
    #[inline(always)]
    pub fn may_hit_sphere(&self, tri: &PackedTri, t_max: f32) -> bool {
        let c = Vec3A::from(tri.sphere.truncate());
        let oc = c - self.o;
        let along = oc.dot(self.dn);
        let perp = oc - self.dn * along;
        // f32 rounding of `oc` and `along`: a few ulps of |oc|.
        let r = tri.sphere.w + 4.0e-7 * (oc.abs().max_element() + tri.sphere.w);
        perp.length_squared() <= r * r && along + r >= 0.0 && along - r <= t_max * self.len
    }

    /// Möller–Trumbore: the ray parameter of the hit, if it lies in
    /// (0, t_max]. A ray parallel to the triangle's plane misses.
    #[inline(always)]
    pub fn hit(&self, tri: &PackedTri, t_max: f32) -> Option<f32> {
        let p = self.d.cross(tri.e2);
        let det = tri.e1.dot(p);
        let inv = 1.0 / det;
        let s = self.o - tri.v0;
        let u = s.dot(p) * inv;
        let q = s.cross(tri.e1);
        let v = self.d.dot(q) * inv;
        let t = tri.e2.dot(q) * inv;
        // A ray (nearly) in the triangle's plane: det is rounding noise
        // (|e1| |e2| <= (2r)^2), and u, v, t with it. A closed hull's
        // neighbouring triangles answer such a ray.
        let r = tri.sphere.w;
        let grazing = det.abs() <= PARALLEL_EPS * self.len * r * r;
        let inside = u >= -BARY_EPS && v >= -BARY_EPS && u + v <= 1.0 + BARY_EPS;
        (inside && !grazing && t > 0.0 && t <= t_max).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> PackedTri {
        let c = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        PackedTri::new(&c, [0.5, 0.5, 0.0, 0.7072])
    }

    #[test]
    fn hits_and_misses() {
        let t = tri();
        let down = RayKernel::new(Vec3::new(0.25, 0.25, 2.0), Vec3::new(0.0, 0.0, -2.0));
        assert_eq!(down.hit(&t, f32::INFINITY), Some(1.0));
        assert!(down.may_hit_sphere(&t, f32::INFINITY));
        assert_eq!(down.hit(&t, 0.5), None);
        assert_eq!(down.hit(&t, 1.0), Some(1.0));
        let beside = RayKernel::new(Vec3::new(0.8, 0.8, 2.0), Vec3::new(0.0, 0.0, -1.0));
        assert_eq!(beside.hit(&t, f32::INFINITY), None);
        let parallel = RayKernel::new(Vec3::new(-1.0, 0.2, 0.0), Vec3::X);
        assert_eq!(parallel.hit(&t, f32::INFINITY), None);
        let away = RayKernel::new(Vec3::new(0.25, 0.25, 2.0), Vec3::Z);
        assert_eq!(away.hit(&t, f32::INFINITY), None);
        assert!(!away.may_hit_sphere(&t, f32::INFINITY));
        // Through a vertex and along an edge's line: accepted.
        let corner = RayKernel::new(Vec3::new(1.0, 0.0, 1.0), -Vec3::Z);
        assert_eq!(corner.hit(&t, f32::INFINITY), Some(1.0));
        assert_eq!(t.normal(), Vec3::Z);
    }
}
