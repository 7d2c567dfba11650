//! The ray/triangle kernel: Möller–Trumbore on eight triangles at once.
//!
//! Each cell's list is stored as packets of eight triangles in
//! structure-of-arrays form (x, y, z lanes of the first corner, of the two
//! edges from it and of their cross product, the normal, precomputed), so
//! one pass of SIMD arithmetic tests eight triangles: one 8-lane pass on
//! AVX, two 4-lane halves elsewhere, bit-identical. With the normal
//! stored, the determinant and t are dot products with it and u, v dot
//! products with s x d, one cross product per packet instead of two. A
//! short list is padded with empty lanes. Barycentric coordinates are
//! accepted within [`BARY_EPS`] of the triangle, so a ray through a shared
//! edge or vertex of a closed hull hits at least one of the triangles
//! meeting there and cannot slip between them. A ray (nearly) in a
//! triangle's plane misses it: the determinant is then rounding noise
//! ([`PARALLEL_EPS`]).

use glam::{Vec3, Vec4};

use super::mailbox::Visits;

/// Barycentric tolerance: a hit may lie this fraction of the triangle
/// outside an edge (2^-20 ~ 9.5e-7).
pub const BARY_EPS: f32 = 1.0 / 1_048_576.0;

/// |det| at or below this times |d| |e1| |e2| counts as a ray parallel to
/// the triangle (16 f32 epsilons, above the determinant's rounding error).
pub const PARALLEL_EPS: f32 = 16.0 * f32::EPSILON;

/// "No triangle" (no hit yet).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// Triangles per packet.
pub const LANES: usize = 8;

/// Eight triangles in structure-of-arrays form (448 bytes, 32-byte
/// aligned so each lane row is one AVX register).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub struct Packet {
    /// First corner, x / y / z lanes.
    v0: [[f32; LANES]; 3],
    /// Corner 1 - corner 0.
    e1: [[f32; LANES]; 3],
    /// Corner 2 - corner 0.
    e2: [[f32; LANES]; 3],
    /// e1 x e2 (computed in f64 from the f32 edges, then rounded).
    n: [[f32; LANES]; 3],
    /// PARALLEL_EPS * |e1| * |e2| per lane.
    flat: [f32; LANES],
    /// Triangle ids; an unused lane holds the mesh's triangle count (a
    /// spare mailbox slot) and can never hit.
    pub ids: [u32; LANES],
}

impl Packet {
    /// A packet of up to [`LANES`] triangles given as (id, corners);
    /// unused lanes get the id `pad`.
    pub fn new(tris: &[(u32, [Vec3; 3])], pad: u32) -> Self {
        let mut p = Packet {
            v0: [[0.0; LANES]; 3],
            e1: [[0.0; LANES]; 3],
            e2: [[0.0; LANES]; 3],
            n: [[0.0; LANES]; 3],
            // An empty lane: zero edges give det = 0, never above this.
            flat: [f32::INFINITY; LANES],
            ids: [pad; LANES],
        };
        for (lane, (id, c)) in tris.iter().take(LANES).enumerate() {
            let (e1, e2) = (c[1] - c[0], c[2] - c[0]);
            let n = e1.as_dvec3().cross(e2.as_dvec3()).as_vec3();
            for k in 0..3 {
                p.v0[k][lane] = c[0][k];
                p.e1[k][lane] = e1[k];
                p.e2[k][lane] = e2[k];
                p.n[k][lane] = n[k];
            }
            p.flat[lane] = PARALLEL_EPS * e1.length() * e2.length();
            p.ids[lane] = *id;
        }
        p
    }

    /// Lanes `4 * half .. 4 * half + 4` of row `r`.
    #[inline(always)]
    fn quad(r: &[f32; LANES], half: usize) -> Vec4 {
        Vec4::from_slice(&r[4 * half..4 * half + 4])
    }
}

/// Packs triangle ids into packets, [`LANES`] at a time; unused lanes get
/// the id `pad`.
pub fn pack(ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) -> Vec<Packet> {
    ids.chunks(LANES)
        .map(|chunk| {
            let tris: Vec<(u32, [Vec3; 3])> = chunk.iter().map(|&t| (t, corners(t))).collect();
            Packet::new(&tris, pad)
        })
        .collect()
}

/// A ray/packet test: the ray parameter per lane and a bit mask of the
/// lanes hit with 0 < t <= `t_max`. Every implementation performs the
/// same IEEE operations lane by lane (no fused multiply-add), so all give
/// bit-identical answers.
pub trait Kernel: Copy {
    /// Prepares a ray; `d` must be non-zero and finite.
    fn new(o: Vec3, d: Vec3) -> Self;
    /// Möller–Trumbore on a packet.
    fn hits(&self, p: &Packet, t_max: f32) -> ([f32; LANES], u32);
    /// The lanes of `ids` new to this query ([`Visits::fresh`]), marking
    /// them seen.
    #[inline(always)]
    fn fresh(seen: &mut Visits<'_>, ids: &[u32; LANES]) -> u32 {
        seen.fresh(ids)
    }
    /// Tests a cell's packets, each lane new to this query, keeping the
    /// nearest (time, triangle) in `best`.
    #[inline(always)]
    fn test_packets(&self, packets: &[Packet], seen: &mut Visits<'_>, best: &mut (f32, u32)) {
        super::ray_cast::test_packets(self, packets, seen, best);
    }
}

/// A ray broadcast to four lanes (SSE2 through glam, or scalar): a packet
/// is tested as two halves.
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
    /// Möller–Trumbore on lanes `4 * half ..` of a packet.
    #[inline(always)]
    fn hits4(&self, p: &Packet, half: usize, t_max: f32) -> (Vec4, u32) {
        let row = |r: &[[f32; LANES]; 3]| r.each_ref().map(|x| Packet::quad(x, half));
        let (v0, e1, e2, n) = (row(&p.v0), row(&p.e1), row(&p.e2), row(&p.n));
        let s = [self.o[0] - v0[0], self.o[1] - v0[1], self.o[2] - v0[2]];
        // Möller–Trumbore through the normal: det = e1 . (d x e2) = -d . n,
        // u = s . (d x e2) = e2 . (s x d), v = d . (s x e1) = -e1 . (s x d),
        // t = e2 . (s x e1) = s . n; all scaled by |det|, the sign of det
        // moved onto them (a multiply by +-1 is exact).
        let dn = dot(&self.d, &n);
        let q = cross(&s, &self.d);
        let sign = dn.signum();
        let adet = dn.abs();
        let u = dot(&e2, &q) * -sign;
        let v = dot(&e1, &q) * sign;
        let t = dot(&s, &n) * -sign;
        let lo = adet * -BARY_EPS;
        let ok = u.cmpge(lo)
            & v.cmpge(lo)
            & (u + v).cmple(adet * (1.0 + BARY_EPS))
            & t.cmpgt(Vec4::ZERO)
            & adet.cmpgt(Packet::quad(&p.flat, half) * self.len);
        let mask = ok.bitmask();
        if mask == 0 {
            return (t, 0);
        }
        let t = t / adet;
        (t, mask & t.cmple(Vec4::splat(t_max)).bitmask())
    }
}

impl Kernel for RayKernel {
    fn new(o: Vec3, d: Vec3) -> Self {
        RayKernel {
            o: [o.x, o.y, o.z].map(Vec4::splat),
            d: [d.x, d.y, d.z].map(Vec4::splat),
            len: Vec4::splat(d.length()),
        }
    }

    #[inline(always)]
    fn hits(&self, p: &Packet, t_max: f32) -> ([f32; LANES], u32) {
        let (t0, m0) = self.hits4(p, 0, t_max);
        let (t1, m1) = self.hits4(p, 1, t_max);
        let mut t = [0.0; LANES];
        t[..4].copy_from_slice(&t0.to_array());
        t[4..].copy_from_slice(&t1.to_array());
        (t, m0 | (m1 << 4))
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx::RayKernel8;

/// The same kernel eight lanes wide on AVX, with an AVX2 gather for the
/// mailbox. Its methods may only run where [`avx_available`] is true.
#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;

    use glam::Vec3;

    use super::{BARY_EPS, Kernel, LANES, Packet, Visits};

    /// A ray for eight lanes: its scalars, broadcast where a packet is
    /// tested (a broadcast from memory costs what a load does, and the
    /// walk carrying the kernel keeps no eight-lane registers alive).
    #[derive(Debug, Clone, Copy)]
    pub struct RayKernel8 {
        o: [f32; 3],
        d: [f32; 3],
        len: f32,
    }

    /// `x` in all eight lanes.
    #[inline(always)]
    fn splat(x: &f32) -> __m256 {
        // SAFETY: AVX is enabled in every caller, see `load`.
        unsafe { _mm256_broadcast_ss(x) }
    }

    /// One row of a packet.
    #[inline(always)]
    fn load(r: &[f32; LANES]) -> __m256 {
        // SAFETY: a row is 8 f32 at a 32-byte boundary (the packet is
        // align(32) and every row a multiple of 32 bytes in); AVX is
        // enabled in every caller (the kernel runs only inside
        // `#[target_feature(enable = "avx,avx2")]` code).
        unsafe { _mm256_load_ps(r.as_ptr()) }
    }

    #[inline(always)]
    fn row(r: &[[f32; LANES]; 3]) -> [__m256; 3] {
        [load(&r[0]), load(&r[1]), load(&r[2])]
    }

    #[inline(always)]
    fn dot(a: &[__m256; 3], b: &[__m256; 3]) -> __m256 {
        // SAFETY (all intrinsics below): AVX is enabled, see `load`.
        unsafe {
            _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
                _mm256_mul_ps(a[2], b[2]),
            )
        }
    }

    #[inline(always)]
    fn msub(a: __m256, b: __m256, c: __m256, d: __m256) -> __m256 {
        unsafe { _mm256_sub_ps(_mm256_mul_ps(a, b), _mm256_mul_ps(c, d)) }
    }

    #[inline(always)]
    fn cross(a: &[__m256; 3], b: &[__m256; 3]) -> [__m256; 3] {
        [
            msub(a[1], b[2], a[2], b[1]),
            msub(a[2], b[0], a[0], b[2]),
            msub(a[0], b[1], a[1], b[0]),
        ]
    }

    impl Kernel for RayKernel8 {
        #[inline(always)]
        fn new(o: Vec3, d: Vec3) -> Self {
            RayKernel8 {
                o: o.to_array(),
                d: d.to_array(),
                len: d.length(),
            }
        }

        #[inline(always)]
        fn hits(&self, p: &Packet, t_max: f32) -> ([f32; LANES], u32) {
            unsafe {
                let (v0, e1, e2, n) = (row(&p.v0), row(&p.e1), row(&p.e2), row(&p.n));
                let o = [splat(&self.o[0]), splat(&self.o[1]), splat(&self.o[2])];
                let d = [splat(&self.d[0]), splat(&self.d[1]), splat(&self.d[2])];
                let s = [
                    _mm256_sub_ps(o[0], v0[0]),
                    _mm256_sub_ps(o[1], v0[1]),
                    _mm256_sub_ps(o[2], v0[2]),
                ];
                // The portable kernel's formulas; a sign flip by xor is
                // its multiply by -1.
                let dn = dot(&d, &n);
                let q = cross(&s, &d);
                let sign_bit = _mm256_set1_ps(-0.0);
                let sign = _mm256_and_ps(dn, sign_bit);
                let flip = _mm256_xor_ps(sign, sign_bit);
                let adet = _mm256_andnot_ps(sign_bit, dn);
                let u = _mm256_xor_ps(dot(&e2, &q), flip);
                let v = _mm256_xor_ps(dot(&e1, &q), sign);
                let t = _mm256_xor_ps(dot(&s, &n), flip);
                let lo = _mm256_mul_ps(adet, _mm256_set1_ps(-BARY_EPS));
                let hi = _mm256_mul_ps(adet, _mm256_set1_ps(1.0 + BARY_EPS));
                let flat = _mm256_mul_ps(load(&p.flat), splat(&self.len));
                let ok = _mm256_and_ps(
                    _mm256_and_ps(
                        _mm256_cmp_ps::<_CMP_GE_OQ>(u, lo),
                        _mm256_cmp_ps::<_CMP_GE_OQ>(v, lo),
                    ),
                    _mm256_and_ps(
                        _mm256_and_ps(
                            _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_add_ps(u, v), hi),
                            _mm256_cmp_ps::<_CMP_GT_OQ>(t, _mm256_setzero_ps()),
                        ),
                        _mm256_cmp_ps::<_CMP_GT_OQ>(adet, flat),
                    ),
                );
                let mask = _mm256_movemask_ps(ok) as u32;
                let mut out = [0.0f32; LANES];
                if mask == 0 {
                    return (out, 0);
                }
                let t = _mm256_div_ps(t, adet);
                let near = _mm256_cmp_ps::<_CMP_LE_OQ>(t, _mm256_set1_ps(t_max));
                _mm256_storeu_ps(out.as_mut_ptr(), t);
                (out, mask & _mm256_movemask_ps(near) as u32)
            }
        }

        #[inline(always)]
        fn fresh(seen: &mut Visits<'_>, ids: &[u32; LANES]) -> u32 {
            // SAFETY: AVX2 is enabled wherever this kernel runs.
            unsafe { seen.fresh8_avx2(ids) }
        }

        #[inline(always)]
        fn test_packets(&self, packets: &[Packet], seen: &mut Visits<'_>, best: &mut (f32, u32)) {
            // SAFETY: AVX and AVX2 are there wherever this kernel runs.
            unsafe { test_packets_avx(self, packets, seen, best) }
        }
    }

    /// [`Kernel::test_packets`] out of line, compiled for AVX2: the walk
    /// calling it keeps its loop state in registers.
    #[inline(never)]
    #[target_feature(enable = "avx,avx2")]
    fn test_packets_avx(
        k: &RayKernel8,
        packets: &[Packet],
        seen: &mut Visits<'_>,
        best: &mut (f32, u32),
    ) {
        crate::query::ray_cast::test_packets(k, packets, seen, best);
    }
}

/// Whether the eight-lane AVX kernel (and its AVX2 mailbox) can run on
/// this CPU.
pub fn avx_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn packet() -> Packet {
        let c = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let far = c.map(|v| v + Vec3::splat(10.0));
        Packet::new(&[(7, c), (9, far)], 2)
    }

    fn hits_and_misses<K: Kernel>() {
        let p = packet();
        assert_eq!(p.ids, [7, 9, 2, 2, 2, 2, 2, 2]);
        let down = K::new(Vec3::new(0.25, 0.25, 2.0), Vec3::new(0.0, 0.0, -2.0));
        let (t, m) = down.hits(&p, f32::INFINITY);
        assert_eq!((m, t[0]), (0b1, 1.0));
        assert_eq!(down.hits(&p, 0.5).1, 0);
        assert_eq!(down.hits(&p, 1.0).1, 1);
        let beside = K::new(Vec3::new(0.8, 0.8, 2.0), -Vec3::Z);
        assert_eq!(beside.hits(&p, f32::INFINITY).1, 0);
        let parallel = K::new(Vec3::new(-1.0, 0.2, 0.0), Vec3::X);
        assert_eq!(parallel.hits(&p, f32::INFINITY).1, 0);
        let away = K::new(Vec3::new(0.25, 0.25, 2.0), Vec3::Z);
        assert_eq!(away.hits(&p, f32::INFINITY).1, 0);
        // Through a vertex: accepted.
        let corner = K::new(Vec3::new(1.0, 0.0, 1.0), -Vec3::Z);
        assert_eq!(corner.hits(&p, f32::INFINITY).1, 1);
        let both = K::new(Vec3::new(10.2, 10.2, 20.0), -Vec3::Z);
        let (t, m) = both.hits(&p, f32::INFINITY);
        assert_eq!((m, t[1]), (0b10, 10.0));
    }

    #[test]
    fn portable_hits_and_misses() {
        hits_and_misses::<RayKernel>();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn avx_hits_and_misses() {
        hits_and_misses::<RayKernel8>();
    }

    /// The AVX kernel answers bit for bit like the portable one.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn avx_matches_portable() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut v = || Vec3::from_array(std::array::from_fn(|_| rng.random_range(-4.0f32..4.0)));
        for round in 0..2000 {
            let tris: Vec<(u32, [Vec3; 3])> = (0..1 + round % LANES as u32)
                .map(|i| (i, [v(), v(), v()]))
                .collect();
            let p = Packet::new(&tris, 99);
            let (o, d) = (v(), v());
            let t_max = if round % 3 == 0 { 1.0 } else { f32::INFINITY };
            let (ta, ma) = RayKernel::new(o, d).hits(&p, t_max);
            let (tb, mb) = RayKernel8::new(o, d).hits(&p, t_max);
            assert_eq!(ma, mb, "round {round}");
            for lane in 0..LANES {
                if ma & (1 << lane) != 0 {
                    assert_eq!(ta[lane].to_bits(), tb[lane].to_bits(), "round {round}");
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx_kernel() {
        if avx_available() {
            // SAFETY: the CPU has AVX and AVX2.
            unsafe {
                avx_hits_and_misses();
                avx_matches_portable();
            }
        }
    }
}
