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
//! edge function and the depth can be from their exact values (derived
//! below, "The bound and the exact path"; what it guarantees a user:
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
//! SSE2 `Vec4`, or scalar; [`super::kernel::Portable`]) and for eight
//! (AVX, [`super::avx::Avx`]). Both perform the same IEEE operations lane
//! by lane (no fused multiply-add), so they answer bit for bit alike.
//!
//! # The bound and the exact path
//!
//! u = 2^-24. With s_x = fl(d_x fl(1/d_z)) and a = fl(v - o), a corner's
//! frame coordinate x = fl(a_x - fl(s_x a_z)) is within
//! eta = u (2|x| + 7|a_z|) of the exact x* = (v - o)_x - (d_x / d_z)(v - o)_z
//! (to first order; the 7 covers a segment's rounded direction). An edge
//! function e = x_b y_c - y_b x_c is then within
//!
//! ```text
//! |e - e*| <= 2 eta_b n_c + 2 eta_c n_b + 4u n_b n_c <= u (12 M^2 + 28 M Z)
//! ```
//!
//! of its exact value, n the corners' largest |x|, |y|, M >= every n of
//! the lane (computed or exact) and Z >= every |a_z|. The kernel uses
//!
//! ```text
//! errE = 20u M^2 + 40u M R + 1024u^2 R^2
//! ```
//!
//! with R the largest distance of the mesh's box from the origin along
//! any axis (it bounds every |a_z|; the last term covers the second-order
//! terms) and a few 2^-120 for underflow. M is first the same for every
//! lane of every packet, 2 (1 + 2^-19) R + 27.1u R, made once per ray
//! (|x| <= |a_x| + |d_x / d_z| |a_z| <= 2R, z being the direction's
//! largest component; the exact x* likewise, also for a segment's exact
//! direction); only a packet where that bound leaves a lane open is tried
//! again, and only its open lanes take their own
//! M = max(|x_a|, |y_a|) + s + 27.1u R (the first corner, the lane's
//! stored spread s, three times the largest eta) before any lane goes to
//! the exact path; the depth and the limit below take every lane's own
//! bound (computed only for a packet that needs them). No decision on a
//! lane may depend on which lanes share its register (eight in the AVX
//! kernel, four in the portable one; the case that showed why:
//! `git show 1eb508f:docs/queries-log.md`, "Exactness: the lanes' bounds
//! until 2026-12-01"). The depth bound below is computed only for a
//! packet that has a straddling lane or a limit.
//!
//! A lane whose three edge functions all exceed errE (or all lie below
//! -errE) is crossed; a lane with one beyond errE on each side is not;
//! any other lane whose edges agree within errE goes to the exact path.
//! Depth: when every corner's ray parameter z_i = fl(fl(1/d_z) a_z)
//! is > 0 the crossing is ahead (a computed z_i has the exact sign, or
//! underflows to 0 and takes the long way); when all are < 0 it is
//! behind; otherwise the numerator T = sum e_i z_i decides where
//! |T| > max|z_i| (3 errE + 9u |sum e_i|). The limit likewise:
//! T - L sum e_i against that bound plus L (3 errE + 3u |sum e_i|) +
//! 2u |T - L sum e_i|.
//!
//! The exact path ([`super::exact`], scalar, shared by the kernels)
//! decides one lane: the side of each edge pq is the sign of
//! det[p - o, q - o, d] (an f64 evaluation with a 16-ulp bound first;
//! when that cannot tell, the expanded products are summed exactly in a
//! fixed-point accumulator that spans 2^-1100 to 2^1040, no allocation);
//! ahead is Shewchuk's adaptive `orient3d(a, b, c, o)` (the `robust`
//! crate), a segment's end `orient3d(a, b, c, end)`; its t is computed in
//! f64. On the sample maps it takes under 0.1 % of the rays (77 lanes in
//! 100 000 rays on d84a95fb); rays aimed exactly at vertices (the box
//! maps' corners from origins whose difference to them is exact) take it
//! on every lane at the vertex.
//!
//! **Tie-break** (Simulation of Simplicity): the origin moves by
//! (e, e^2, e^3), e > 0 infinitesimal. Then
//! det[p - o - h, q - o - h, d] = det[p - o, q - o, d] - h . ((q - p) x d),
//! so an edge function that is exactly zero takes the sign of -w, w the
//! first non-zero component (x, then y, then z) of (q - p) x d. That sign
//! is antisymmetric in p and q (the two triangles sharing an edge get
//! opposite signs) and one perturbation serves the whole query. w = 0
//! only for an edge parallel to the ray: its triangle is seen edge-on and
//! not crossed.
//!
//! **The bound on t.** For a reported crossing,
//!
//! ```text
//! |t - t*| <= (4 errE / |S|) sum_i |z_i - t*| + 10u max_i |z_i|
//! ```
//!
//! with S = e0 + e1 + e2 (twice the triangle's area in the ray's frame)
//! and z_i its corners' exact ray parameters: t is a convex combination
//! of the z_i by the edge functions, and the same rounded edge functions
//! weigh the numerator and the denominator. For a well-shaped triangle
//! met at an angle theta to its plane this is about 480 u R / sin(theta)
//! along a unit direction — 3e-5 R / sin(theta) — pessimistic by two
//! orders of magnitude against the errors seen (about u R / sin(theta)).
//! The tests check every reported t against this bound
//! (`kernels::tests`, and `tests/integration/watertight` of crate `sylcol`).

use glam::Vec3;

use super::exact::{ExactRay, OPEN};
use super::lanes::Lanes;
use super::packet::{LANES, Packet};

/// The unit roundoff of f32, 2^-24.
const U: f32 = 1.0 / 16_777_216.0;
/// Edge-function bound: C_SQ M^2 + C_LIN M R + C_ZZ R^2, with M a bound on
/// the lane's 2-D corner coordinates and R on its corners' depths along
/// the frame's z (module docs, "The bound and the exact path":
/// 12 u M^2 + 28 u M R to first order; the rest is margin).
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
pub struct LaneRay<'a, V: Lanes> {
    /// What makes more values of `V` (the proof of the CPU's features for
    /// the AVX lanes; zero-sized).
    token: V::Token,
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

impl<V: Lanes> LaneRay<'_, V> {
    /// The ray for the exact predicates.
    pub fn exact(&self) -> ExactRay {
        self.cast.exact()
    }
}

impl<'a, V: Lanes> LaneRay<'a, V> {
    /// The lanes of `f`, made with `token`.
    #[inline(always)]
    pub fn new(f: &RayFrame<'a>, token: V::Token) -> Self {
        // Written out: `array::map` is not always inlined into the
        // AVX-compiled callers.
        let [kx, ky, kz] = [f.axes[0] as usize, f.axes[1] as usize, f.axes[2] as usize];
        let row = size_of::<[f32; LANES]>();
        let [sx, sy, sz] = f.shear;
        let t = token;
        LaneRay {
            token,
            rows: [kx * row, ky * row, kz * row],
            o: [
                V::splat(t, f.o[kx]),
                V::splat(t, f.o[ky]),
                V::splat(t, f.o[kz]),
            ],
            shear: [V::splat(t, sx), V::splat(t, sy), V::splat(t, sz)],
            err: V::splat(t, f.err),
            pad: f.pad,
            lin: f.lin,
            zz: f.zz,
            limit: V::splat(t, f.limit),
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
    let tk = f.token;
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
    let (near, sure) = edge_signs(tk, lo, hi, f.err);
    if V::bits(near) == 0 {
        return None;
    }
    let (near, sure) = if V::bits(V::and_not(sure, near)) == 0 {
        (near, sure)
    } else {
        edge_signs(
            tk,
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
    let zero = V::splat(tk, 0.0);
    let (z_lo, z_hi) = (z[0].min(z[1]).min(z[2]), z[0].max(z[1]).max(z[2]));
    let (all_ahead, all_behind) = (z_lo.gt(zero), z_hi.lt(zero));
    let straddle = V::and_not(all_ahead | all_behind, sure);
    let mut ahead = sure & all_ahead;
    let mut t = t_num.div(den).max(V::splat(tk, f32::from_bits(1)));
    if V::bits(straddle) != 0 || f.bounded {
        let err = lane_err(f, p, at, x[0], y[0]);
        let err_t = depth_err(tk, err, z_hi.max(zero.sub(z_lo)), den);
        let (pos, neg) = (t_num.gt(err_t), t_num.lt(zero.sub(err_t)));
        ahead = ahead | (straddle & pos);
        unsure = unsure | V::and_not(pos | neg, straddle);
        if f.bounded {
            // t <= L  <=>  T - L sum e_i <= 0 (sign-adjusted).
            let l = f.limit;
            let gap = t_num.sub(l.mul(den));
            let err_gap = err_t
                .add(
                    l.mul(
                        V::splat(tk, 3.0)
                            .mul(err)
                            .add(V::splat(tk, 3.0 * U).mul(den)),
                    ),
                )
                .add(V::splat(tk, 2.0 * U).mul(gap.abs()));
            let within = gap.le(zero.sub(err_gap));
            let beyond = gap.gt(err_gap);
            unsure = unsure | V::and_not(within | beyond, ahead);
            ahead = ahead & within;
            t = t.min(l);
        }
    }
    // t <= t_max without waiting for the division (the caller compares
    // the t it reports again).
    let hit = ahead & t_num.le(V::splat(tk, t_max).mul(den));
    Some(LaneHits {
        t,
        hit: V::bits(hit),
        unsure: V::bits(unsure),
    })
}

/// Each corner of lanes `at..` in the ray's frame, on its own: the x, y
/// and z of corners a, b, c.
#[inline(always)]
pub fn corners<V: Lanes>(f: &LaneRay<'_, V>, p: &Packet, at: usize) -> ([V; 3], [V; 3], [V; 3]) {
    let (xa, ya, za) = corner::<V>(f, &p.v[0], at);
    let (xb, yb, zb) = corner::<V>(f, &p.v[1], at);
    let (xc, yc, zc) = corner::<V>(f, &p.v[2], at);
    ([xa, xb, xc], [ya, yb, yc], [za, zb, zc])
}

/// The 2-D edge functions of corners with frame coordinates `x`, `y`
/// ([`corners`]): e0 of edge bc, e1 of ca, e2 of ab.
#[inline(always)]
pub fn edge_functions<V: Lanes>(x: [V; 3], y: [V; 3]) -> [V; 3] {
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
    let tk = f.token;
    let spread = V::load(tk, &p.size, at).add(V::splat(tk, f.pad));
    let m = xa.abs().max(ya.abs()).add(spread);
    V::splat(tk, C_SQ)
        .mul(m)
        .mul(m)
        .add(V::splat(tk, f.lin).mul(m).add(V::splat(tk, f.zz)))
}

/// The lanes whose edge functions (lowest `lo`, highest `hi`) agree within
/// the bound `err` (near: not clearly missed) and those where they agree
/// beyond it (sure).
#[inline(always)]
fn edge_signs<V: Lanes>(tk: V::Token, lo: V, hi: V, err: V) -> (V::Mask, V::Mask) {
    let neg_err = V::splat(tk, 0.0).sub(err);
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
fn depth_err<V: Lanes>(tk: V::Token, err: V, z_max: V, den: V) -> V {
    z_max
        .mul(
            V::splat(tk, 3.0)
                .mul(err)
                .add(V::splat(tk, C_DEPTH).mul(den)),
        )
        .add(V::splat(tk, TINY).mul(den).add(V::splat(tk, TINY)))
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
    let tk = f.token;
    let ax = V::load(tk, row(0), at).sub(f.o[0]);
    let ay = V::load(tk, row(1), at).sub(f.o[1]);
    let az = V::load(tk, row(2), at).sub(f.o[2]);
    (ax.sub(f.shear[0].mul(az)), ay.sub(f.shear[1].mul(az)), az)
}

/// `x` read on its own: four bytes, never merged with its neighbours'
/// into a wider load (a volatile read), so that a value just stored in
/// pieces is read as it was stored (a load spanning two stores still in
/// flight waits for both; `index::prep::field_by_field`).
#[inline(always)]
pub fn read_alone(x: &f32) -> f32 {
    // SAFETY: a reference to an f32 is valid for a read of one.
    unsafe { std::ptr::read_volatile(x) }
}

/// Decides the `unsure` lanes of `p` exactly, adding those hit with
/// t <= `t_max` to `hit` with their t.
#[cold]
#[inline(never)]
pub fn settle<V: Lanes>(
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
