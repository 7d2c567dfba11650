//! Inside / outside the closed hull (the game's `InOutTest`) as a parity
//! count along an axis-parallel ray: the exact decision for one triangle,
//! by exact predicates with a symbolic perturbation.
//!
//! The count itself runs through an index (the inside index of
//! `index::inside`: a lookup for a point in a cell no triangle reaches,
//! else a ray from p along axis k up to the nearest classified cell; or a
//! grid's own lists, `index::grid`). Each candidate triangle is decided
//! exactly:
//!
//! * `orient3d(a, b, c, p)` (Shewchuk's adaptive predicate, exact for the
//!   f32 inputs) is zero when p lies in the triangle's plane; p is then on
//!   the surface exactly when it lies in the closed triangle (exact 2-D
//!   orientations in a non-degenerate projection), and a point on the
//!   surface counts as inside.
//! * Otherwise the ray crosses the triangle when p, projected along k,
//!   lies inside the projected triangle and the plane is ahead of p. A
//!   projected point on an edge or a vertex is moved by the symbolic
//!   perturbation (eps, eps^2) in the other two axes (u, v): an exact zero
//!   `orient2d(A, B, q)` takes the sign of `(A - B).v`, or of `-(A - B).u`
//!   when that is zero. This is the count for an actual ray infinitesimally
//!   beside the given one, so every triangle pair sharing an edge, and
//!   every fan around a vertex, is counted consistently: once where the
//!   surface crosses the ray, twice or not at all where it folds back.
//!
//! The answer is exact for a closed (watertight) mesh (the index lists
//! every triangle in every cell it touches); for an open mesh parity has no
//! meaning. A point outside the collider's grid is outside.

use glam::{DVec3, Vec3};
use robust::{Coord, Coord3D, orient2d, orient3d};

/// What the test ray does at one triangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crossing {
    /// No crossing.
    Miss,
    /// The ray crosses the triangle ahead of p.
    Cross,
    /// p lies on the (closed) triangle.
    OnSurface,
}

/// The axis and direction with the fewest cells from `c` to the grid edge.
pub fn shortest_exit(c: [usize; 3], dims: [usize; 3]) -> (usize, bool) {
    (0..3)
        .flat_map(|k| [(k, true, dims[k] - c[k]), (k, false, c[k] + 1)])
        .min_by_key(|&(_, _, n)| n)
        .map(|(k, f, _)| (k, f))
        .unwrap_or((0, true))
}

pub(super) fn c2(p: Vec3, u: usize, v: usize) -> Coord<f64> {
    d2(p.as_dvec3(), u, v)
}

pub(super) fn d2(p: DVec3, u: usize, v: usize) -> Coord<f64> {
    Coord { x: p[u], y: p[v] }
}

pub(super) fn c3(p: Vec3) -> Coord3D<f64> {
    d3(p.as_dvec3())
}

pub(super) fn d3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// The exact decision for one triangle and the ray from `p` along axis
/// `k` (forwards or backwards).
pub fn crossing(tri: &[Vec3; 3], p: Vec3, k: usize, forward: bool) -> Crossing {
    crossing_before(tri, p.as_dvec3(), k, forward, None)
}

/// [`crossing`] for a point with f64 coordinates (exact as given), and
/// with `stop = Some(s)` for the segment from `p` to the point q whose
/// coordinate k is `s`: a crossing at or beyond q is a miss. q must not
/// lie on the triangle (the inside index stops in cells no triangle
/// reaches).
pub fn crossing_before(
    tri: &[Vec3; 3],
    p: DVec3,
    k: usize,
    forward: bool,
    stop: Option<f64>,
) -> Crossing {
    match k {
        0 => crossing_along::<0>(tri, p, forward, stop),
        1 => crossing_along::<1>(tri, p, forward, stop),
        _ => crossing_along::<2>(tri, p, forward, stop),
    }
}

/// [`crossing_before`] along axis `K`, the cheap tests first: the
/// projected box, then the projected triangle (a point strictly outside
/// one edge is outside the closed triangle, perturbed or not, and so is
/// neither crossed nor on it), and only then the plane's side.
#[inline(always)]
pub fn crossing_along<const K: usize>(
    tri: &[Vec3; 3],
    p: DVec3,
    forward: bool,
    stop: Option<f64>,
) -> Crossing {
    let (u, v) = ((K + 1) % 3, (K + 2) % 3);
    let uv = |x: Vec3| [f64::from(x[u]), f64::from(x[v])];
    let (a, b, c) = (uv(tri[0]), uv(tri[1]), uv(tri[2]));
    let q = [p[u], p[v]];
    // Outside the projected box (`&`, not `&&`: no branch per corner).
    let below = |i: usize| (q[i] < a[i]) & (q[i] < b[i]) & (q[i] < c[i]);
    let above = |i: usize| (q[i] > a[i]) & (q[i] > b[i]) & (q[i] > c[i]);
    if below(0) | above(0) | below(1) | above(1) {
        return Crossing::Miss;
    }
    let area = orient2d_fast(a, b, c);
    if area == 0.0 {
        // Seen edge-on: the perturbed ray passes beside it, but p may lie
        // on it.
        return match orient3d_fast(tri, p) {
            0.0 => on_surface(tri, p),
            _ => Crossing::Miss,
        };
    }
    let positive = area > 0.0;
    let edges = [
        orient2d_fast(a, b, q),
        orient2d_fast(b, c, q),
        orient2d_fast(c, a, q),
    ];
    // Strictly outside an edge (`|`, not `||`: one branch for the three).
    let outside = |e: f64| (e != 0.0) & ((e > 0.0) != positive);
    if outside(edges[0]) | outside(edges[1]) | outside(edges[2]) {
        return Crossing::Miss;
    }
    let o3 = orient3d_fast(tri, p);
    if o3 == 0.0 {
        return on_surface(tri, p);
    }
    let inside = edges
        .iter()
        .zip([(a, b), (b, c), (c, a)])
        .all(|(&e, (x, y))| e != 0.0 || perturbed_sign(0.0, co(x), co(y)) == area.signum());
    // The plane lies ahead when sign(o3) * sign(area) matches the direction.
    let ahead = |o3: f64| (o3 * area > 0.0) == forward;
    if !(inside && ahead(o3)) {
        return Crossing::Miss;
    }
    if let Some(s) = stop {
        let mut end = p;
        end[K] = s;
        let o3_end = orient3d_fast(tri, end);
        // o3_end == 0 would put the end point on the triangle.
        if o3_end == 0.0 || ahead(o3_end) {
            return Crossing::Miss;
        }
    }
    Crossing::Cross
}

fn co([x, y]: [f64; 2]) -> Coord<f64> {
    Coord { x, y }
}

fn on_surface(tri: &[Vec3; 3], p: DVec3) -> Crossing {
    if on_triangle(tri, p) {
        Crossing::OnSurface
    } else {
        Crossing::Miss
    }
}

/// robust's `EPSILON` (half an f64 ulp of 1) and `O3DERRBOUND_A`.
const EPSILON: f64 = 1.110_223_024_625_156_5e-16;
const O3D_ERRBOUND_A: f64 = (7.0 + 56.0 * EPSILON) * EPSILON;
/// robust's orient2d `THETA` (Ozaki et al.).
const THETA: f64 = 3.330_669_062_177_372_2e-16;

/// `robust::orient2d(a, b, c)`, its filter inlined (the same
/// arithmetic, so the same value when the filter decides; the exact
/// adaptive predicate otherwise).
#[inline(always)]
fn orient2d_fast(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    let detleft = (a[0] - c[0]) * (b[1] - c[1]);
    let detright = (a[1] - c[1]) * (b[0] - c[0]);
    let det = detleft - detright;
    let errbound = THETA * (detleft + detright).abs();
    // |det| >= errbound: robust's `det >= errbound || -det >= errbound`
    // (a NaN fails both) in one predictable branch.
    if det.abs() >= errbound {
        det
    } else {
        orient2d(co(a), co(b), co(c))
    }
}

/// `robust::orient3d(a, b, c, d)`, its filter inlined like
/// [`orient2d_fast`].
#[inline(always)]
fn orient3d_fast(tri: &[Vec3; 3], d: DVec3) -> f64 {
    let (ad, bd, cd) = (
        tri[0].as_dvec3() - d,
        tri[1].as_dvec3() - d,
        tri[2].as_dvec3() - d,
    );
    let (bxcy, cxby) = (bd.x * cd.y, cd.x * bd.y);
    let (cxay, axcy) = (cd.x * ad.y, ad.x * cd.y);
    let (axby, bxay) = (ad.x * bd.y, bd.x * ad.y);
    let det = ad.z * (bxcy - cxby) + bd.z * (cxay - axcy) + cd.z * (axby - bxay);
    let permanent = (bxcy.abs() + cxby.abs()) * ad.z.abs()
        + (cxay.abs() + axcy.abs()) * bd.z.abs()
        + (axby.abs() + bxay.abs()) * cd.z.abs();
    let errbound = O3D_ERRBOUND_A * permanent;
    if det.abs() > errbound {
        det
    } else {
        orient3d(c3(tri[0]), c3(tri[1]), c3(tri[2]), d3(d))
    }
}

/// The sign of `orient2d(x, y, q + (eps, eps^2))` given `o = orient2d(x, y, q)`.
pub(super) fn perturbed_sign(o: f64, x: Coord<f64>, y: Coord<f64>) -> f64 {
    if o != 0.0 {
        return o.signum();
    }
    let (du, dv) = (x.x - y.x, x.y - y.y);
    if dv != 0.0 {
        dv.signum()
    } else if du != 0.0 {
        -du.signum()
    } else {
        0.0
    }
}

/// Whether `p`, which lies in the triangle's plane, lies in the closed
/// triangle: exact orientations in a projection where the triangle has
/// area. A triangle with no area in any projection (a segment) is left
/// to its neighbours.
pub(super) fn on_triangle(tri: &[Vec3; 3], p: DVec3) -> bool {
    let [a, b, c] = tri.map(|x| x.as_dvec3());
    let n = (b - a).cross(c - a).abs();
    let mut axes = [0usize, 1, 2];
    axes.sort_by(|&i, &j| n[j].total_cmp(&n[i]));
    for k in axes {
        let (u, v) = ((k + 1) % 3, (k + 2) % 3);
        let [a, b, c] = tri.map(|x| c2(x, u, v));
        let area = orient2d(a, b, c);
        if area != 0.0 {
            let q = d2(p, u, v);
            return [(a, b), (b, c), (c, a)]
                .iter()
                .all(|&(x, y)| orient2d(x, y, q) * area >= 0.0);
        }
    }
    false
}
