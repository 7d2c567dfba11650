//! The ray/triangle kernel: a watertight test of eight triangles at once
//! whose every decision is exact.
//!
//! Each cell's list is stored as packets of eight triangles in
//! structure-of-arrays form: the three corners as they are in the mesh
//! (x, y, z rows of eight f32 each), a size bound per lane and the ids.
//! A ray is first put in its own frame (Woop, Benthin & Wald 2013): the
//! axis along which it moves fastest becomes z and the other two are
//! sheared so that the ray runs along z from the origin. Each corner is
//! moved into that frame on its own (so a corner shared by two triangles
//! lands on the same point in both), and the triangle is crossed when the
//! three 2-D edge functions of its projected corners have one sign.
//!
//! The f32 arithmetic rounds; [`RayFrame`] carries a bound on how far an
//! edge function and the depth can be from their exact values (derived in
//! `docs/queries.md`, "Exactness"). A lane whose signs clear the bound is
//! decided by them; the few that do not (a ray within rounding of an edge,
//! a vertex, the triangle's plane or the limit) are decided by the exact
//! predicates of [`super::exact`], with the tie-break of Simulation of
//! Simplicity for exact zeros. So every crossing decision is that of exact
//! arithmetic on the f32 input: no ray slips between the triangles around
//! an edge or a vertex, none is counted twice, none is dropped for being
//! nearly parallel, and a ray from inside a closed mesh always leaves it.
//!
//! One generic kernel ([`lanes`]) is instantiated for four lanes (glam's
//! SSE2 `Vec4`, or scalar) and, in `ray_triangle_avx`, for eight (AVX).
//! Both perform the same IEEE operations lane by lane (no fused
//! multiply-add), so they answer bit for bit alike.

use std::ops::{BitAnd, BitOr, Not};

use glam::{BVec4A, DVec3, Vec3, Vec4};

use super::exact::ExactRay;
use super::grid_walk::{GridWalk, WalkFrame, until_limit};

/// "No triangle" (no hit yet).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// Triangles per packet.
pub const LANES: usize = 8;

/// The unit roundoff of f32, 2^-24.
const U: f32 = 1.0 / 16_777_216.0;
/// Edge-function bound: C_SQ M^2 + C_LIN M R + C_ZZ R^2, with M a bound on
/// the lane's 2-D corner coordinates and R on its corners' depths along
/// the frame's z (`docs/queries.md`, "Exactness": 12 u M^2 + 28 u M R to
/// first order; the rest is margin).
const C_SQ: f32 = 20.0 * U;
const C_LIN: f32 = 40.0 * U;
const C_ZZ: f32 = 1024.0 * U * U;
/// How far a corner's computed 2-D coordinates can be from the exact
/// ones, three times over, per unit of the largest vertex distance:
/// 3 u (2 + 7) with margin.
const PAD: f32 = 27.1 * U;
/// Depth bound: max |z_i| (3 err + C_DEPTH |sum e_i|).
const C_DEPTH: f32 = 9.0 * U;
/// An absolute term for products that underflow (2^-120).
const TINY: f32 = 7.523_164e-37;
/// Limits at or above this count as none (2^100; no crossing of the
/// supported domain lies that far along a normalised direction).
pub const OPEN: f32 = 1.267_650_6e30;

/// Eight triangles in structure-of-arrays form (352 bytes, 32-byte
/// aligned so each row is one AVX register).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct Packet {
    /// Corner, axis, lane. An unused lane's corners are NaN: every
    /// comparison on it is false, so it can never hit.
    pub(crate) v: [[[f32; LANES]; 3]; 3],
    /// Per lane, 2 (1 + 2^-20) times the largest coordinate difference
    /// between two corners: a bound on the spread of its corners' 2-D
    /// coordinates in any ray's frame (NaN for an unused lane).
    pub(crate) size: [f32; LANES],
    /// Triangle ids; an unused lane holds the mesh's triangle count (a
    /// spare mailbox slot).
    pub ids: [u32; LANES],
}

impl Packet {
    /// A packet of up to [`LANES`] triangles given as (id, corners);
    /// unused lanes get the id `pad`.
    pub fn new(tris: &[(u32, [Vec3; 3])], pad: u32) -> Self {
        let mut p = Packet {
            v: [[[f32::NAN; LANES]; 3]; 3],
            size: [f32::NAN; LANES],
            ids: [pad; LANES],
        };
        for (lane, (id, c)) in tris.iter().take(LANES).enumerate() {
            for (corner, v) in c.iter().enumerate() {
                for k in 0..3 {
                    p.v[corner][k][lane] = v[k];
                }
            }
            p.size[lane] = lane_size(c);
            p.ids[lane] = *id;
        }
        p
    }

    /// Corner `c` of lane `lane`.
    pub fn corner(&self, c: usize, lane: usize) -> Vec3 {
        Vec3::new(self.v[c][0][lane], self.v[c][1][lane], self.v[c][2][lane])
    }

    /// The three corners of lane `lane`.
    pub fn corners(&self, lane: usize) -> [Vec3; 3] {
        [0, 1, 2].map(|c| self.corner(c, lane))
    }
}

/// A packet lane's size bound for the triangle `c`: 2 (1 + 2^-20) times
/// the largest coordinate difference between two corners, rounded up.
pub(crate) fn lane_size(c: &[Vec3; 3]) -> f32 {
    let spread = |i: usize, j: usize| (c[i].as_dvec3() - c[j].as_dvec3()).abs().max_element();
    let m = spread(0, 1).max(spread(1, 2)).max(spread(2, 0));
    round_up(2.0 * m * (1.0 + 1.0 / 1_048_576.0))
}

/// `x` as the nearest f32 not below it.
fn round_up(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f.next_up() } else { f }
}

/// Packs triangle ids into packets, [`LANES`] at a time; unused lanes get
/// the id `pad`.
pub fn pack(ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) -> Vec<Packet> {
    let mut out = Vec::with_capacity(ids.len().div_ceil(LANES));
    pack_into(&mut out, ids, pad, corners);
    out
}

/// [`pack`] appending to `out` (no allocation but `out`'s growth).
pub fn pack_into(out: &mut Vec<Packet>, ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) {
    for chunk in ids.chunks(LANES) {
        let mut tris = [(0, [Vec3::ZERO; 3]); LANES];
        for (slot, &t) in tris.iter_mut().zip(chunk) {
            *slot = (t, corners(t));
        }
        out.push(Packet::new(&tris[..chunk.len()], pad));
    }
}

/// A ray prepared for the kernels: its frame, the error-bound constants
/// and its exact form for the lanes the bounds leave open. Made once per
/// query by scalar code, so every kernel sees the same numbers.
#[derive(Debug, Clone, Copy)]
pub struct RayFrame<'a> {
    /// The rows the frame's x, y and z axes read (z: the axis of the
    /// direction's largest component; x, y: the next two, cyclically).
    axes: [Axis; 3],
    /// The origin (world order).
    o: [f32; 3],
    /// d_x / d_z, d_y / d_z, 1 / d_z (frame order; the first two as
    /// d_x (1 / d_z), within 4u of the exact quotient for a segment).
    shear: [f32; 3],
    /// C_LIN times the largest distance of a vertex from the origin along
    /// any axis (which bounds every depth), plus TINY.
    lin: f32,
    /// C_ZZ times its square, plus TINY.
    zz: f32,
    /// PAD times that distance, plus TINY (see [`lanes`]).
    pad: f32,
    /// The edge bound for every lane of every packet: M (below) taken as
    /// the largest 2-D coordinate any corner can have, 2 (1 + 2^-19) R +
    /// pad (|x| <= |a_x| + |d_x / d_z| |a_z|, and z is the direction's
    /// largest component).
    err: f32,
    /// The largest t reported; infinite when the ray has no limit.
    limit: f32,
    /// The ray as given, for the exact predicates.
    cast: &'a Cast,
}

/// What the exact predicates need of a ray, kept in its f32 form (the
/// exact form is made only for the few lanes that need it).
#[derive(Debug, Clone, Copy)]
pub enum Cast {
    /// `o + t d`, t in (0, limit].
    Ray { o: Vec3, d: Vec3, limit: f32 },
    /// From `from` to `to` along the exact `to - from` scaled by `scale`
    /// (a power of two), so t in (0, 1 / scale].
    Segment { from: Vec3, to: Vec3, scale: f32 },
}

impl Cast {
    /// The ray for the exact predicates.
    pub fn exact(&self) -> ExactRay {
        match *self {
            Cast::Ray { o, d, limit } => ExactRay::ray(o, d, limit),
            Cast::Segment { from, to, scale } => ExactRay::segment(from, to).scaled(scale),
        }
    }
}

impl<'a> RayFrame<'a> {
    /// The frame of `o + t d`, t in (0, `limit`], over a mesh whose
    /// vertices lie in the box `bounds`; `cast` is the same ray (a
    /// segment's exact direction may differ from the f32 `d` by its
    /// rounding). `d` must be non-zero and finite.
    #[inline(always)]
    pub fn new(o: Vec3, d: Vec3, limit: f32, cast: &'a Cast, bounds: (Vec3, Vec3)) -> Self {
        const AXES: [Axis; 4] = [Axis::X, Axis::Y, Axis::Z, Axis::X];
        const NEXT: [[usize; 4]; 2] = [[1, 2, 0, 0], [2, 0, 1, 0]];
        // The frame's (x, y, z) read the world's axes in cyclic order, z
        // the direction's largest component (ties: the lower axis). No
        // branches: a random ray's axis is as good as random.
        let a = d.abs();
        let not_x = usize::from(!((a.x >= a.y) & (a.x >= a.z)));
        let z = (not_x * (1 + usize::from(a.y < a.z))) & 3;
        let (x, y) = (NEXT[0][z], NEXT[1][z]);
        // The largest distance of a vertex from the origin along any axis.
        let reach = (bounds.0 - o).abs().max((bounds.1 - o).abs()).max_element();
        let reach = reach * (1.0 + 1.0 / 65_536.0);
        let d = d.to_array();
        // d_x / d_z is rounded as d_x * (1 / d_z), d_y likewise.
        let inv = 1.0 / d[z];
        let (lin, zz, pad) = (
            C_LIN * reach + TINY,
            C_ZZ * reach * reach + TINY,
            PAD * reach + TINY,
        );
        RayFrame {
            axes: [AXES[x], AXES[y], AXES[z]],
            o: o.to_array(),
            shear: [d[x] * inv, d[y] * inv, inv],
            lin,
            zz,
            pad,
            err: {
                let m = 2.0 * (1.0 + 1.0 / 524_288.0) * reach + pad;
                C_SQ * m * m + (lin * m + zz)
            },
            limit: if limit < OPEN { limit } else { f32::INFINITY },
            cast,
        }
    }

    /// The ray for the exact predicates.
    #[cfg(test)]
    pub fn exact(&self) -> ExactRay {
        self.cast.exact()
    }

    /// The world axes the frame's x, y and z read, and the edge bound of
    /// every lane.
    #[cfg(test)]
    pub fn axes_and_bound(&self) -> ([usize; 3], f32) {
        (self.axes.map(|a| a as usize), self.err)
    }
}

/// What gives a walk its [`RayFrame`] when it needs it: the frame itself,
/// or the numbers it is made from ([`FrameInputs`]), so that a walk can
/// start its first loads before the frame's instructions (a closure
/// would not be inlined into the AVX-compiled walk).
pub trait MakeFrame<'a> {
    /// The frame.
    fn make(self) -> RayFrame<'a>;
}

impl<'a> MakeFrame<'a> for RayFrame<'a> {
    #[inline(always)]
    fn make(self) -> RayFrame<'a> {
        self
    }
}

/// The arguments of [`RayFrame::new`], for a frame made later.
#[derive(Debug, Clone, Copy)]
pub struct FrameInputs<'a> {
    /// The origin.
    pub o: Vec3,
    /// The direction (non-zero, finite).
    pub d: Vec3,
    /// The limit of t.
    pub limit: f32,
    /// The same ray for the exact predicates.
    pub cast: &'a Cast,
    /// The box of the mesh's vertices.
    pub bounds: (Vec3, Vec3),
}

impl<'a> MakeFrame<'a> for FrameInputs<'a> {
    #[inline(always)]
    fn make(self) -> RayFrame<'a> {
        RayFrame::new(self.o, self.d, self.limit, self.cast, self.bounds)
    }
}

/// A world axis (the frame's rows; an enum so that indexing by it needs
/// no bounds check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Axis {
    X = 0,
    Y = 1,
    Z = 2,
}

/// SIMD lanes of f32, as the kernel uses them: four (glam's `Vec4`) or
/// eight (AVX). Every operation is one IEEE operation per lane.
pub trait Lanes: Copy {
    /// A per-lane condition.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask>;
    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// Lanes `at..` of `row`.
    fn load(row: &[f32; LANES], at: usize) -> Self;
    /// Writes the lanes to `out[at..]`.
    fn store(self, out: &mut [f32; LANES], at: usize);
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    fn min(self, b: Self) -> Self;
    fn max(self, b: Self) -> Self;
    fn abs(self) -> Self;
    /// `self` negated in the lanes where `s` is negative.
    fn sign_of(self, s: Self) -> Self;
    fn ge(self, b: Self) -> Self::Mask;
    fn gt(self, b: Self) -> Self::Mask;
    fn le(self, b: Self) -> Self::Mask;
    fn lt(self, b: Self) -> Self::Mask;
    /// `!a & b`.
    fn and_not(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// One bit per lane.
    fn bits(m: Self::Mask) -> u32;
    /// `if_true` in the lanes where `m` holds, `if_false` elsewhere.
    fn select(m: Self::Mask, if_true: Self, if_false: Self) -> Self;
}

/// What [`lanes`] found: t per lane, the lanes hit, and the lanes the
/// error bounds leave to the exact predicates.
pub struct LaneHits<V> {
    pub t: V,
    pub hit: u32,
    pub unsure: u32,
}

/// A [`RayFrame`]'s numbers spread over the lanes of `V`, made once per
/// ray (or once per walk) so that a packet test reads them as they are
/// instead of splatting them again for every packet.
#[derive(Debug, Clone, Copy)]
pub struct LaneRay<'a, V> {
    /// Byte offsets, within one corner's rows, of the rows the frame's x,
    /// y and z read (0, 32 or 64).
    rows: [usize; 3],
    /// The origin in frame order.
    o: [V; 3],
    /// [`RayFrame`]'s shear: d_x / d_z, d_y / d_z, 1 / d_z.
    shear: [V; 3],
    /// [`RayFrame`]'s bound on every lane's edge functions.
    err: V,
    /// [`RayFrame`]'s pad, lin and zz, for the lane's own bound (splatted
    /// only for the few packets that need it).
    pad: f32,
    lin: f32,
    zz: f32,
    /// The limit (meaningful only when `bounded`).
    limit: V,
    bounded: bool,
    /// The ray as given, for the exact predicates.
    cast: &'a Cast,
}

impl<V> LaneRay<'_, V> {
    /// The ray for the exact predicates.
    pub fn exact(&self) -> ExactRay {
        self.cast.exact()
    }
}

impl<'a, V: Lanes> LaneRay<'a, V> {
    /// The lanes of `f`.
    #[inline(always)]
    pub fn new(f: &RayFrame<'a>) -> Self {
        // Written out: `array::map` is not always inlined into the
        // AVX-compiled callers.
        let [kx, ky, kz] = [f.axes[0] as usize, f.axes[1] as usize, f.axes[2] as usize];
        let row = size_of::<[f32; LANES]>();
        let [sx, sy, sz] = f.shear;
        LaneRay {
            rows: [kx * row, ky * row, kz * row],
            o: [V::splat(f.o[kx]), V::splat(f.o[ky]), V::splat(f.o[kz])],
            shear: [V::splat(sx), V::splat(sy), V::splat(sz)],
            err: V::splat(f.err),
            pad: f.pad,
            lin: f.lin,
            zz: f.zz,
            limit: V::splat(f.limit),
            bounded: f.limit.is_finite(),
            cast: f.cast,
        }
    }
}

/// The test of packet lanes `at..` (as many as `V` holds) against the ray
/// of `f`, keeping hits with t <= `t_max`. Exact where `hit` says so;
/// `unsure` lanes need [`LaneRay::exact`]. `None`: no lane is near.
#[inline(always)]
pub fn lanes<V: Lanes>(
    f: &LaneRay<'_, V>,
    p: &Packet,
    at: usize,
    t_max: f32,
) -> Option<LaneHits<V>> {
    let (x, y, [za, zb, zc]) = corners(f, p, at);
    let [e0, e1, e2] = edge_functions(x, y);
    let (lo, hi) = (e0.min(e1).min(e2), e0.max(e1).max(e2));
    // The edge functions are within the ray's bound `f.err` of their
    // exact values (it takes every corner as far from the origin as the
    // mesh's box allows). A lane it leaves open gets the lane's own,
    // tighter bound before the exact path; so does every lane's depth
    // below. Each decision on a lane uses a bound of that lane alone:
    // never one that depends on which lanes share its register (four or
    // eight), or the kernels would differ in t where one bound leaves a
    // lane to the exact path and the other does not.
    let (near, sure) = edge_signs(lo, hi, f.err);
    if V::bits(near) == 0 {
        return None;
    }
    let (near, sure) = if V::bits(V::and_not(sure, near)) == 0 {
        (near, sure)
    } else {
        edge_signs(
            lo,
            hi,
            V::select(sure, f.err, lane_err(f, p, at, x[0], y[0])),
        )
    };
    let mut unsure = V::and_not(sure, near);
    // t = sum e_i z_i / sum e_i, z_i the corners' ray parameters; the
    // sum of the edges has their common sign on a sure lane.
    let sz = f.shear[2];
    let z = [sz.mul(za), sz.mul(zb), sz.mul(zc)];
    let sum = e0.add(e1).add(e2);
    let t_num = e0
        .mul(z[0])
        .add(e1.mul(z[1]))
        .add(e2.mul(z[2]))
        .sign_of(sum);
    let den = sum.abs();
    // Ahead for certain when every corner is (a computed z_i > 0 has the
    // exact sign; one that underflows to 0 takes the long way), behind
    // when none is; otherwise the sign of T decides where the bound
    // allows. That bound is computed only for a packet with such a lane
    // (or a limit): on the spheres few packets have one, and skipping it
    // made their rays 4-9 % faster; a branch per lane would be
    // mispredicted often.
    let zero = V::splat(0.0);
    let (z_lo, z_hi) = (z[0].min(z[1]).min(z[2]), z[0].max(z[1]).max(z[2]));
    let (all_ahead, all_behind) = (z_lo.gt(zero), z_hi.lt(zero));
    let straddle = V::and_not(all_ahead | all_behind, sure);
    let mut ahead = sure & all_ahead;
    let mut t = t_num.div(den).max(V::splat(f32::from_bits(1)));
    if V::bits(straddle) != 0 || f.bounded {
        let err = lane_err(f, p, at, x[0], y[0]);
        let err_t = depth_err(err, z_hi.max(zero.sub(z_lo)), den);
        let (pos, neg) = (t_num.gt(err_t), t_num.lt(zero.sub(err_t)));
        ahead = ahead | (straddle & pos);
        unsure = unsure | V::and_not(pos | neg, straddle);
        if f.bounded {
            // t <= L  <=>  T - L sum e_i <= 0 (sign-adjusted).
            let l = f.limit;
            let gap = t_num.sub(l.mul(den));
            let err_gap = err_t
                .add(l.mul(V::splat(3.0).mul(err).add(V::splat(3.0 * U).mul(den))))
                .add(V::splat(2.0 * U).mul(gap.abs()));
            let within = gap.le(zero.sub(err_gap));
            let beyond = gap.gt(err_gap);
            unsure = unsure | V::and_not(within | beyond, ahead);
            ahead = ahead & within;
            t = t.min(l);
        }
    }
    // t <= t_max without waiting for the division (the caller compares
    // the t it reports again).
    let hit = ahead & t_num.le(V::splat(t_max).mul(den));
    Some(LaneHits {
        t,
        hit: V::bits(hit),
        unsure: V::bits(unsure),
    })
}

/// Each corner of lanes `at..` in the ray's frame, on its own: the x, y
/// and z of corners a, b, c.
#[inline(always)]
pub(crate) fn corners<V: Lanes>(
    f: &LaneRay<'_, V>,
    p: &Packet,
    at: usize,
) -> ([V; 3], [V; 3], [V; 3]) {
    let (xa, ya, za) = corner::<V>(f, &p.v[0], at);
    let (xb, yb, zb) = corner::<V>(f, &p.v[1], at);
    let (xc, yc, zc) = corner::<V>(f, &p.v[2], at);
    ([xa, xb, xc], [ya, yb, yc], [za, zb, zc])
}

/// The 2-D edge functions of corners with frame coordinates `x`, `y`
/// ([`corners`]): e0 of edge bc, e1 of ca, e2 of ab.
#[inline(always)]
pub(crate) fn edge_functions<V: Lanes>(x: [V; 3], y: [V; 3]) -> [V; 3] {
    let ([xa, xb, xc], [ya, yb, yc]) = (x, y);
    [
        xb.mul(yc).sub(yb.mul(xc)),
        xc.mul(ya).sub(yc.mul(xa)),
        xa.mul(yb).sub(ya.mul(xb)),
    ]
}

/// Each lane's own edge bound: every corner's 2-D coordinates, computed
/// or exact, are within `m` of the origin: the first corner's (`xa`,
/// `ya`), plus the lane's spread, plus the rounding of both.
#[inline(always)]
fn lane_err<V: Lanes>(f: &LaneRay<'_, V>, p: &Packet, at: usize, xa: V, ya: V) -> V {
    let spread = V::load(&p.size, at).add(V::splat(f.pad));
    let m = xa.abs().max(ya.abs()).add(spread);
    V::splat(C_SQ)
        .mul(m)
        .mul(m)
        .add(V::splat(f.lin).mul(m).add(V::splat(f.zz)))
}

/// The lanes whose edge functions (lowest `lo`, highest `hi`) agree within
/// the bound `err` (near: not clearly missed) and those where they agree
/// beyond it (sure).
#[inline(always)]
fn edge_signs<V: Lanes>(lo: V, hi: V, err: V) -> (V::Mask, V::Mask) {
    let neg_err = V::splat(0.0).sub(err);
    let near = lo.ge(neg_err) | hi.le(err);
    // On a near lane the edges agree within the bound; they are sure when
    // they agree beyond it. (A near lane is never clearly missed.)
    let sure = lo.gt(err) | hi.lt(neg_err);
    (near, sure)
}

/// The bound on the depth numerator T = sum e_i z_i of a sure lane, from
/// the edge bound `err`, the largest |z_i| and |sum e_i| (the edges share
/// a sign, so sum |e_i z_i| <= |sum e_i| max |z_i|).
#[inline(always)]
fn depth_err<V: Lanes>(err: V, z_max: V, den: V) -> V {
    z_max
        .mul(V::splat(3.0).mul(err).add(V::splat(C_DEPTH).mul(den)))
        .add(V::splat(TINY).mul(den).add(V::splat(TINY)))
}

/// Lanes `at..` of one corner row in the ray's frame: sheared x, y and
/// the (unscaled) depth along the frame's z axis. A function, not a
/// closure: closures do not take the caller's target features, so AVX
/// intrinsics in one would not be inlined.
#[inline(always)]
fn corner<V: Lanes>(f: &LaneRay<'_, V>, r: &[[f32; LANES]; 3], at: usize) -> (V, V, V) {
    let row = |k: usize| {
        // SAFETY: `rows` holds 0, 32 or 64, the offsets of the three rows
        // of `r` (checking an index again per packet costs a few
        // instructions a packet).
        unsafe {
            &*std::ptr::from_ref(r)
                .byte_add(f.rows[k])
                .cast::<[f32; LANES]>()
        }
    };
    let ax = V::load(row(0), at).sub(f.o[0]);
    let ay = V::load(row(1), at).sub(f.o[1]);
    let az = V::load(row(2), at).sub(f.o[2]);
    (ax.sub(f.shear[0].mul(az)), ay.sub(f.shear[1].mul(az)), az)
}

/// Decides the `unsure` lanes of `p` exactly, adding those hit with
/// t <= `t_max` to `hit` with their t.
#[cold]
#[inline(never)]
pub fn settle<V>(
    f: &LaneRay<'_, V>,
    p: &Packet,
    unsure: u32,
    t_max: f32,
    t: &mut [f32; LANES],
) -> u32 {
    let exact = f.exact();
    let mut hit = 0;
    let mut rest = unsure;
    while rest != 0 {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if let Some(tl) = exact.hit(p.corners(lane))
            && tl <= t_max
        {
            t[lane] = tl;
            hit |= 1 << lane;
        }
    }
    hit
}

impl Lanes for Vec4 {
    type Mask = BVec4A;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Vec4::splat(x)
    }
    #[inline(always)]
    fn load(row: &[f32; LANES], at: usize) -> Self {
        Vec4::from_slice(&row[at..at + 4])
    }
    #[inline(always)]
    fn store(self, out: &mut [f32; LANES], at: usize) {
        self.write_to_slice(&mut out[at..at + 4]);
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self + b
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self - b
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        self * b
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        self / b
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        Vec4::min(self, b)
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        Vec4::max(self, b)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn sign_of(self, s: Self) -> Self {
        // Multiplying by +-1 is exact: the AVX kernel's sign-bit flip.
        self * Vec4::ONE.copysign(s)
    }
    #[inline(always)]
    fn ge(self, b: Self) -> BVec4A {
        self.cmpge(b)
    }
    #[inline(always)]
    fn gt(self, b: Self) -> BVec4A {
        self.cmpgt(b)
    }
    #[inline(always)]
    fn le(self, b: Self) -> BVec4A {
        self.cmple(b)
    }
    #[inline(always)]
    fn lt(self, b: Self) -> BVec4A {
        self.cmplt(b)
    }
    #[inline(always)]
    fn and_not(a: BVec4A, b: BVec4A) -> BVec4A {
        a.not() & b
    }
    #[inline(always)]
    fn select(m: BVec4A, if_true: Self, if_false: Self) -> Self {
        Vec4::select(m, if_true, if_false)
    }
    #[inline(always)]
    fn bits(m: BVec4A) -> u32 {
        m.bitmask()
    }
}

/// A ray/packet test: the ray parameter per lane and a bit mask of the
/// lanes of `lanes` hit with 0 < t <= `t_max`. Every implementation
/// gives bit-identical answers.
pub trait Kernel: Copy {
    /// The lanes the kernel computes in.
    type V: Lanes;
    /// Whether this is the AVX kernel (its walks are then compiled for
    /// AVX2).
    const IS_AVX: bool = false;
    /// `f` as the AVX kernel's ray, for the AVX kernel only (its walks are
    /// then compiled for AVX2).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn as_avx<'f, 'a>(f: &'f LaneRay<'a, Self::V>) -> Option<&'f LaneRay<'a, Avx8>> {
        let _ = f;
        None
    }
    /// The packet test of the ray `f` prepared for this kernel
    /// ([`LaneRay::new`], once per ray).
    fn hits_of(f: &LaneRay<'_, Self::V>, p: &Packet, t_max: f32, lanes: u32)
    -> ([f32; LANES], u32);
    /// The packet test of the ray `f` (prepared for this one test).
    #[cfg(test)]
    fn hits(f: &RayFrame<'_>, p: &Packet, t_max: f32, lanes: u32) -> ([f32; LANES], u32) {
        Self::hits_of(&LaneRay::new(f), p, t_max, lanes)
    }
    /// Calls `visit(cell, t_enter)` along the walk of a ray moving along
    /// every axis over `f`'s grid, t in [t0, t1] ([`GridWalk::moving`] and
    /// its masked visit); `visit` returns a time from which on no cell is
    /// wanted (the smallest returned so far ends the walk before a cell
    /// entered at or after it).
    #[inline(always)]
    fn walk_moving(
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        visit: impl FnMut(usize, f64) -> f64,
    ) {
        if let Some(w) = GridWalk::moving(f, o, d, t0, t1) {
            w.visit_masked(until_limit(visit));
        }
    }
    /// [`Kernel::walk_moving`] calling `visit` only for the cells `occ`
    /// marks occupied (an empty cell's visit would return +inf: the same
    /// walk).
    #[inline(always)]
    fn walk_occupied(
        f: &WalkFrame,
        occ: &super::ray_grid::Occupancy,
        o: DVec3,
        d: DVec3,
        t0: f64,
        t1: f64,
        mut visit: impl FnMut(usize, f64) -> f64,
    ) {
        Self::walk_moving(f, o, d, t0, t1, |cell, t| {
            if occ.bytes[occ.pad + cell] != 0 {
                visit(cell, t)
            } else {
                f64::INFINITY
            }
        });
    }
    /// [`Kernel::walk_moving`] for a ray's walk whose visits test
    /// packets: each visit also gets the ray's lanes, made from `frame`
    /// (on AVX2 after the walk's set-up has started, so that the walk's
    /// first cells wait less).
    #[inline(always)]
    fn walk_moving_ray<'a>(
        f: &WalkFrame,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        mut visit: impl FnMut(&LaneRay<'a, Self::V>, usize, f64) -> f64,
    ) {
        let lanes = LaneRay::new(&frame.make());
        Self::walk_moving(f, o, d, 0.0, t1, |cell, t| visit(&lanes, cell, t));
    }
    /// [`Kernel::walk_occupied`] with the ray's lanes, as
    /// [`Kernel::walk_moving_ray`].
    #[inline(always)]
    fn walk_occupied_ray<'a>(
        f: &WalkFrame,
        occ: &super::ray_grid::Occupancy,
        o: DVec3,
        d: DVec3,
        t1: f64,
        frame: FrameInputs<'a>,
        mut visit: impl FnMut(&LaneRay<'a, Self::V>, usize, f64) -> f64,
    ) {
        let lanes = LaneRay::new(&frame.make());
        Self::walk_occupied(f, occ, o, d, 0.0, t1, |cell, t| visit(&lanes, cell, t));
    }
    /// Tests the `lanes` of packet `p` and keeps the nearest hit in
    /// `best` (time, triangle); a tie in time goes to the lower triangle
    /// index.
    #[inline(always)]
    fn take_nearest(f: &LaneRay<'_, Self::V>, p: &Packet, lanes: u32, best: &mut (f32, u32)) {
        let (t, mask) = Self::hits_of(f, p, best.0, lanes);
        super::ray_cast::keep_nearest(&t, mask, p, best);
    }
    /// Tests every lane of a cell's packets, keeping the nearest (time,
    /// triangle) in `best`. No mailbox: a triangle listed in several cells
    /// on the ray is tested in each (it answers the same every time), which
    /// costs less than the look-up that would skip it.
    #[inline(always)]
    fn test_packets(f: &LaneRay<'_, Self::V>, packets: &[Packet], best: &mut (f32, u32)) {
        super::ray_cast::test_packets::<Self>(f, packets, best);
    }
}

/// The kernel on four lanes (SSE2 through glam, or scalar): a packet is
/// tested as two halves.
#[derive(Debug, Clone, Copy)]
pub struct Portable;

impl Kernel for Portable {
    type V = Vec4;

    #[inline(always)]
    fn hits_of(
        f: &LaneRay<'_, Vec4>,
        p: &Packet,
        t_max: f32,
        lanes_on: u32,
    ) -> ([f32; LANES], u32) {
        let mut t = [0.0; LANES];
        let (mut hit, mut unsure) = (0, 0);
        for at in [0, 4] {
            if let Some(h) = lanes::<Vec4>(f, p, at, t_max) {
                h.t.store(&mut t, at);
                hit |= h.hit << at;
                unsure |= h.unsure << at;
            }
        }
        unsure &= lanes_on;
        if unsure != 0 {
            hit |= settle(f, p, unsure, t_max, &mut t);
        }
        (t, hit & lanes_on)
    }
}

#[cfg(target_arch = "x86_64")]
pub use super::ray_triangle_avx::Avx;
#[cfg(target_arch = "x86_64")]
use super::ray_triangle_avx::W8 as Avx8;

/// Proof that this CPU runs the AVX / AVX2 kernels: made only by
/// [`Avx2::detect`], so holding one means the check passed. The
/// `unsafe` calls into `#[target_feature(enable = "avx,avx2")]` code are
/// made only with one in hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// The proof, where this CPU has AVX and AVX2.
    pub fn detect() -> Option<Avx2> {
        avx_available().then_some(Avx2(()))
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
