//! The ray/triangle kernel: Möller–Trumbore on four triangles at once.
//!
//! Each cell's list is stored as packets of four triangles in
//! structure-of-arrays form (x, y, z lanes of the first corner and of the
//! two edges from it, precomputed in f32), so one pass of 4-wide SIMD
//! arithmetic tests four triangles; a short list is padded with empty
//! lanes. Barycentric coordinates are accepted within [`BARY_EPS`] of the
//! triangle, so a ray through a shared edge or vertex of a closed hull
//! hits at least one of the triangles meeting there and cannot slip
//! between them. A ray (nearly) in a triangle's plane misses it: the
//! determinant is then rounding noise ([`PARALLEL_EPS`]).

use glam::{Vec3, Vec4};

/// Barycentric tolerance: a hit may lie this fraction of the triangle
/// outside an edge (2^-20 ~ 9.5e-7).
pub const BARY_EPS: f32 = 1.0 / 1_048_576.0;

/// |det| at or below this times |d| |e1| |e2| counts as a ray parallel to
/// the triangle (16 f32 epsilons, above the determinant's rounding error).
pub const PARALLEL_EPS: f32 = 16.0 * f32::EPSILON;

/// "No triangle" (no hit yet).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// Four triangles in structure-of-arrays form (176 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(16))]
pub struct Packet {
    /// First corner, x / y / z lanes.
    v0: [Vec4; 3],
    /// Corner 1 - corner 0.
    e1: [Vec4; 3],
    /// Corner 2 - corner 0.
    e2: [Vec4; 3],
    /// PARALLEL_EPS * |e1| * |e2| per lane.
    flat: Vec4,
    /// Triangle ids; an unused lane holds the mesh's triangle count (a
    /// spare mailbox slot) and can never hit.
    pub ids: [u32; 4],
}

impl Packet {
    /// A packet of up to four triangles given as (id, corners); unused
    /// lanes get the id `pad`.
    pub fn new(tris: &[(u32, [Vec3; 3])], pad: u32) -> Self {
        let mut p = Packet {
            v0: [Vec4::ZERO; 3],
            e1: [Vec4::ZERO; 3],
            e2: [Vec4::ZERO; 3],
            // An empty lane: zero edges give det = 0, never above this.
            flat: Vec4::splat(f32::INFINITY),
            ids: [pad; 4],
        };
        for (lane, (id, c)) in tris.iter().take(4).enumerate() {
            let (e1, e2) = (c[1] - c[0], c[2] - c[0]);
            for k in 0..3 {
                p.v0[k][lane] = c[0][k];
                p.e1[k][lane] = e1[k];
                p.e2[k][lane] = e2[k];
            }
            p.flat[lane] = PARALLEL_EPS * e1.length() * e2.length();
            p.ids[lane] = *id;
        }
        p
    }
}

/// Packs triangle ids into packets, four at a time; unused lanes get the
/// id `pad`.
pub fn pack(ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) -> Vec<Packet> {
    ids.chunks(4)
        .map(|chunk| {
            let tris: Vec<(u32, [Vec3; 3])> = chunk.iter().map(|&t| (t, corners(t))).collect();
            Packet::new(&tris, pad)
        })
        .collect()
}

/// A ray broadcast to four lanes.
#[derive(Debug, Clone, Copy)]
pub struct RayKernel {
    o: [Vec4; 3],
    d: [Vec4; 3],
    len: Vec4,
}

/// `a * b - c * d` lane-wise.
#[inline(always)]
fn msub(a: Vec4, b: Vec4, c: Vec4, d: Vec4) -> Vec4 {
    a * b - c * d
}

/// Lane-wise dot product of two x/y/z triples.
#[inline(always)]
fn dot(a: &[Vec4; 3], b: &[Vec4; 3]) -> Vec4 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Lane-wise cross product.
#[inline(always)]
fn cross(a: &[Vec4; 3], b: &[Vec4; 3]) -> [Vec4; 3] {
    [
        msub(a[1], b[2], a[2], b[1]),
        msub(a[2], b[0], a[0], b[2]),
        msub(a[0], b[1], a[1], b[0]),
    ]
}

impl RayKernel {
    /// Prepares a ray; `d` must be non-zero and finite.
    pub fn new(o: Vec3, d: Vec3) -> Self {
        RayKernel {
            o: [o.x, o.y, o.z].map(Vec4::splat),
            d: [d.x, d.y, d.z].map(Vec4::splat),
            len: Vec4::splat(d.length()),
        }
    }

    /// Möller–Trumbore on a packet: the ray parameters, and a bit mask of
    /// the lanes hit with 0 < t <= `t_max`.
    #[inline(always)]
    pub fn hits(&self, p: &Packet, t_max: f32) -> (Vec4, u32) {
        let pv = cross(&self.d, &p.e2);
        let det = dot(&p.e1, &pv);
        let s = [
            self.o[0] - p.v0[0],
            self.o[1] - p.v0[1],
            self.o[2] - p.v0[2],
        ];
        let q = cross(&s, &p.e1);
        // u, v, t scaled by |det| (sign folded in): no division until a
        // lane is known to hit.
        let sign = det.signum();
        let adet = det.abs();
        let u = dot(&s, &pv) * sign;
        let v = dot(&self.d, &q) * sign;
        let t = dot(&p.e2, &q) * sign;
        let lo = adet * -BARY_EPS;
        let ok = u.cmpge(lo)
            & v.cmpge(lo)
            & (u + v).cmple(adet * (1.0 + BARY_EPS))
            & t.cmpgt(Vec4::ZERO)
            & adet.cmpgt(p.flat * self.len);
        let mask = ok.bitmask();
        if mask == 0 {
            return (t, 0);
        }
        let t = t / adet;
        (t, mask & t.cmple(Vec4::splat(t_max)).bitmask())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> Packet {
        let c = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let far = c.map(|v| v + Vec3::splat(10.0));
        Packet::new(&[(7, c), (9, far)], 2)
    }

    #[test]
    fn hits_and_misses() {
        let p = packet();
        assert_eq!(p.ids, [7, 9, 2, 2]);
        let down = RayKernel::new(Vec3::new(0.25, 0.25, 2.0), Vec3::new(0.0, 0.0, -2.0));
        let (t, m) = down.hits(&p, f32::INFINITY);
        assert_eq!((m, t.x), (0b1, 1.0));
        assert_eq!(down.hits(&p, 0.5).1, 0);
        assert_eq!(down.hits(&p, 1.0).1, 1);
        let beside = RayKernel::new(Vec3::new(0.8, 0.8, 2.0), -Vec3::Z);
        assert_eq!(beside.hits(&p, f32::INFINITY).1, 0);
        let parallel = RayKernel::new(Vec3::new(-1.0, 0.2, 0.0), Vec3::X);
        assert_eq!(parallel.hits(&p, f32::INFINITY).1, 0);
        let away = RayKernel::new(Vec3::new(0.25, 0.25, 2.0), Vec3::Z);
        assert_eq!(away.hits(&p, f32::INFINITY).1, 0);
        // Through a vertex: accepted.
        let corner = RayKernel::new(Vec3::new(1.0, 0.0, 1.0), -Vec3::Z);
        assert_eq!(corner.hits(&p, f32::INFINITY).1, 1);
        let both = RayKernel::new(Vec3::new(10.2, 10.2, 20.0), -Vec3::Z);
        let (t, m) = both.hits(&p, f32::INFINITY);
        assert_eq!((m, t.y), (0b10, 10.0));
    }
}
