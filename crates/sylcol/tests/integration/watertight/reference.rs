//! The reference the watertightness tests compare sylcol with: exact
//! predicates on the f32 input (Shewchuk's `orient3d` from the `robust`
//! crate behind an f64 filter), written here independently of sylcol's
//! own exact path, with candidates from parry3d's BVH (a conservative,
//! padded slab test in f64; nothing of sylcol's grids is used).

use glam::{DVec3, Vec3};
use parry3d::partitioning::TraversalAction;
use rand::SeedableRng;
use robust::{Coord3D, orient3d};
use sylcol::TriMesh;

/// A mesh prepared for reference queries.
pub struct Reference {
    pub tris: Vec<[DVec3; 3]>,
    bvh: parry3d::shape::TriMesh,
    /// How far (absolute) node boxes are widened.
    pad: f64,
    /// The mesh's vertex box.
    pub bounds: (Vec3, Vec3),
}

/// What a ray does at one triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Crossing {
    /// Crossed ahead (and within the end), at this parameter.
    Hit(f64),
    /// Crossed as `Hit`, where an edge function is exactly zero (the ray
    /// meets an edge or a vertex; decided by the tie-break).
    Tie(f64),
    /// Not crossed (or behind, or beyond the end).
    Miss,
}

/// A ray for the reference: `o + t d`, t > 0, up to `end` (a segment's
/// end point, `o + d` exactly) when there is one.
#[derive(Debug, Clone, Copy)]
pub struct RefRay {
    pub o: DVec3,
    pub d: DVec3,
    /// A point `o + s d`, s > 0, exactly representable: `orient3d` with it
    /// gives the edge signs.
    x: DVec3,
    pub end: Option<DVec3>,
}

impl RefRay {
    /// The ray `o + t d`; `None` when no `o + 2^k d` is exact in f64 (the
    /// caller counts such rays).
    pub fn ray(o: Vec3, d: Vec3) -> Option<Self> {
        let (o, d) = (o.as_dvec3(), d.as_dvec3());
        (-60..=60)
            .map(|k: i32| d * 2f64.powi(k))
            .find_map(|s| {
                let x = o + s;
                // Exact when the sum's rounding error is zero everywhere.
                let exact = (0..3).all(|k| two_sum_err(o[k], s[k]) == 0.0);
                exact.then_some(x)
            })
            .map(|x| RefRay { o, d, x, end: None })
    }

    /// The segment from `a` to `b`.
    pub fn segment(a: Vec3, b: Vec3) -> Self {
        let (o, x) = (a.as_dvec3(), b.as_dvec3());
        RefRay {
            o,
            d: x - o,
            x,
            end: Some(x),
        }
    }
}

/// The rounding error of `a + b` (Knuth's two-sum).
fn two_sum_err(a: f64, b: f64) -> f64 {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (a - av) + (b - bv)
}

/// The exact sign of a sum of products (two-product by fused multiply-add,
/// summed by Shewchuk's grow-expansion with zero elimination).
fn exact_sign(products: &[(f64, f64)]) -> i32 {
    let mut e: Vec<f64> = Vec::new();
    let grow = |b: f64, e: &mut Vec<f64>| {
        let mut q = b;
        let mut h = Vec::with_capacity(e.len() + 1);
        for &x in e.iter() {
            let s = q + x;
            let err = two_sum_err(q, x);
            if err != 0.0 {
                h.push(err);
            }
            q = s;
        }
        if q != 0.0 {
            h.push(q);
        }
        *e = h;
    };
    for &(a, b) in products {
        let p = a * b;
        grow(p, &mut e);
        grow(a.mul_add(b, -p), &mut e);
    }
    e.last().map_or(0, |&x| sign(x))
}

fn c3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

fn sign(x: f64) -> i32 {
    i32::from(x > 0.0) - i32::from(x < 0.0)
}

impl Reference {
    pub fn new(mesh: &TriMesh) -> Self {
        let tris: Vec<[DVec3; 3]> = (0..mesh.triangles.len())
            .map(|t| mesh.corners(t).map(|v| v.as_dvec3()))
            .collect();
        let bvh = parry3d::shape::TriMesh::new(mesh.vertices.clone(), mesh.triangles.clone())
            .expect("parry mesh");
        let bounds = mesh.bounds().expect("a mesh");
        let pad = 1e-7 * (bounds.1 - bounds.0).as_dvec3().max_element() + 1e-30;
        Reference {
            tris,
            bvh,
            pad,
            bounds,
        }
    }

    /// The BVH over the triangles.
    pub fn bvh(&self) -> &parry3d::partitioning::Bvh {
        self.bvh.bvh()
    }

    /// The side of edge pq the ray passes: the sign of det[p - o, q - o, d].
    fn side(&self, r: &RefRay, p: DVec3, q: DVec3) -> i32 {
        let (a, b) = (p - r.o, q - r.o);
        let det = r.d.dot(a.cross(b));
        let perm = r.d.abs().dot(DVec3::new(
            (a.y * b.z).abs() + (a.z * b.y).abs(),
            (a.z * b.x).abs() + (a.x * b.z).abs(),
            (a.x * b.y).abs() + (a.y * b.x).abs(),
        ));
        if det.abs() > perm * 1e-14 + 1e-300 {
            return sign(det);
        }
        // det[p - o, q - o, x - o] = s det[p - o, q - o, d], s > 0.
        sign(orient3d(c3(p), c3(q), c3(r.x), c3(r.o)))
    }

    /// The side of edge pq for the ray moved by (e, e^2, e^3) when the
    /// exact side is 0 (Simulation of Simplicity, the rule sylcol states):
    /// the sign of -((q - p) x d), its first non-zero component.
    fn tie_break(&self, r: &RefRay, p: DVec3, q: DVec3) -> i32 {
        // The direction as an exact difference (a segment's b - a).
        let (d1, d2) = match r.end {
            Some(e) => (e, r.o),
            None => (r.d, DVec3::ZERO),
        };
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            // w_k = (q - p)_i d_j - (q - p)_j d_i, term by term.
            let mut terms = Vec::with_capacity(8);
            for (x, y, s) in [(i, j, 1.0), (j, i, -1.0)] {
                for (ex, se) in [(q[x], s), (p[x], -s)] {
                    for (dy, sd) in [(d1[y], 1.0), (d2[y], -1.0)] {
                        terms.push((ex * se * sd, dy));
                    }
                }
            }
            let w = exact_sign(&terms);
            if w != 0 {
                return -w;
            }
        }
        0
    }

    /// What the ray does at triangle `t`.
    pub fn crossing(&self, r: &RefRay, t: usize) -> Crossing {
        let [a, b, c] = self.tris[t];
        let mut s = [self.side(r, b, c), self.side(r, c, a), self.side(r, a, b)];
        let touched = s.contains(&0);
        if touched {
            // Undecided only where the ray meets an edge or a vertex.
            let edges = [(b, c), (c, a), (a, b)];
            for (k, &(p, q)) in edges.iter().enumerate() {
                if s[k] == 0 {
                    s[k] = self.tie_break(r, p, q);
                }
            }
        }
        if s[0] == 0 || s[1] != s[0] || s[2] != s[0] {
            return Crossing::Miss;
        }
        let side = s[0];
        let n = (b - a).cross(c - a);
        let t_hit = (a - r.o).dot(n) / r.d.dot(n);
        // Ahead: the plane is crossed at t > 0.
        if sign(orient3d(c3(a), c3(b), c3(c), c3(r.o))) != side {
            return Crossing::Miss;
        }
        if let Some(e) = r.end
            && sign(orient3d(c3(a), c3(b), c3(c), c3(e))) == side
        {
            return Crossing::Miss;
        }
        if touched {
            Crossing::Tie(t_hit)
        } else {
            Crossing::Hit(t_hit)
        }
    }

    /// Every triangle the ray may meet with t in [0, `t_hi`] (a superset:
    /// node boxes are padded).
    pub fn candidates(&self, r: &RefRay, t_hi: f64, mut each: impl FnMut(usize) -> f64) {
        let mut limit = t_hi;
        self.bvh.bvh().traverse(|node| {
            let bb = node.aabb();
            let lo = DVec3::new(bb.mins.x.into(), bb.mins.y.into(), bb.mins.z.into());
            let hi = DVec3::new(bb.maxs.x.into(), bb.maxs.y.into(), bb.maxs.z.into());
            if !slab(r.o, r.d, lo - self.pad, hi + self.pad, limit) {
                return TraversalAction::Prune;
            }
            if let Some(leaf) = node.leaf_data() {
                limit = limit.min(each(leaf as usize));
            }
            TraversalAction::Continue
        });
    }

    /// The reference answer for a ray: the nearest triangle it crosses
    /// ahead (best-first over the BVH).
    pub fn first(&self, r: &RefRay) -> Answer {
        let t_hi = if r.end.is_some() { 1.0 } else { f64::INFINITY };
        let best = self.bvh().find_best(
            f32::MAX,
            |node, _| {
                let bb = node.aabb();
                let lo = DVec3::new(bb.mins.x.into(), bb.mins.y.into(), bb.mins.z.into());
                let hi = DVec3::new(bb.maxs.x.into(), bb.maxs.y.into(), bb.maxs.z.into());
                entry(r.o, r.d, lo - self.pad, hi + self.pad, t_hi).map_or(f32::MAX, below)
            },
            |leaf, _| match self.crossing(r, leaf as usize) {
                Crossing::Hit(t) => Some((below(t), (t, false))),
                Crossing::Tie(t) => Some((below(t), (t, true))),
                Crossing::Miss => None,
            },
        );
        Answer {
            nearest: best.map(|(id, (_, (t, tie)))| (id, t, tie)),
        }
    }
}

/// The reference's answer to a ray.
#[derive(Debug, Default, Clone)]
pub struct Answer {
    /// The nearest triangle crossed: (triangle, t, whether at an edge or
    /// a vertex exactly).
    pub nearest: Option<(u32, f64, bool)>,
}

/// The largest f32 not above `t`.
fn below(t: f64) -> f32 {
    let f = t as f32;
    if f64::from(f) > t { f.next_down() } else { f }
}

/// The first t in [0, t_hi] at which `o + t d` is in the box, if any.
fn entry(o: DVec3, d: DVec3, lo: DVec3, hi: DVec3, t_hi: f64) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, t_hi);
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < lo[k] || o[k] > hi[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]);
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        t0 = t0.max(a - a.abs() * 1e-12);
        t1 = t1.min(b + b.abs() * 1e-12);
        if t0 > t1 {
            return None;
        }
    }
    Some(t0)
}

/// Whether `o + t d` meets the box for some t in [0, t_hi] (with a hair of
/// slack for the f64 arithmetic; the box is padded by the caller).
pub fn slab(o: DVec3, d: DVec3, lo: DVec3, hi: DVec3, t_hi: f64) -> bool {
    entry(o, d, lo, hi, t_hi).is_some()
}

/// Whether `p` lies exactly on the closed triangle.
pub fn on_triangle(tri: &[DVec3; 3], p: DVec3) -> bool {
    let [a, b, c] = *tri;
    if orient3d(c3(a), c3(b), c3(c), c3(p)) != 0.0 {
        return false;
    }
    // In the projection where the triangle is widest, exact 2-D signs.
    let n = (b - a).cross(c - a).abs();
    let k = if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    };
    let (u, v) = ((k + 1) % 3, (k + 2) % 3);
    let c2 = |q: DVec3| robust::Coord { x: q[u], y: q[v] };
    let area = robust::orient2d(c2(a), c2(b), c2(c));
    if area == 0.0 {
        return false;
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(x, y)| robust::orient2d(c2(x), c2(y), c2(p)) * area >= 0.0)
}

/// The bound on a reported t stated in `docs/queries.md` ("Exactness"):
/// (4 errE / |S|) sum |z_i - t| + 10 u max |z_i|, errE = 20 u m^2 + 40 u m
/// z + 1024 u^2 R^2, in the ray's sheared frame (m the largest 2-D corner
/// coordinate, z the largest corner depth along the frame's axis, R the
/// largest distance of a mesh vertex from the origin along any axis).
pub fn t_bound(o: Vec3, d: Vec3, tri: &[DVec3; 3], bounds: (Vec3, Vec3)) -> f64 {
    let u = 2f64.powi(-24);
    let a = d.abs();
    let kz = if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    };
    let (kx, ky) = ((kz + 1) % 3, (kz + 2) % 3);
    let d = d.as_dvec3();
    let (sx, sy) = (d[kx] / d[kz], d[ky] / d[kz]);
    let rel = tri.map(|v| v - o.as_dvec3());
    let x = rel.map(|r| r[kx] - sx * r[kz]);
    let y = rel.map(|r| r[ky] - sy * r[kz]);
    let z = rel.map(|r| r[kz] / d[kz]);
    let e = [0, 1, 2].map(|i| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        x[j] * y[k] - y[j] * x[k]
    });
    let sum: f64 = e.iter().sum();
    let t = (e[0] * z[0] + e[1] * z[1] + e[2] * z[2]) / sum;
    let m = x.iter().chain(&y).fold(0.0f64, |m, v| m.max(v.abs()));
    let zl = rel.iter().fold(0.0f64, |m, r| m.max(r[kz].abs()));
    let reach = (bounds.0 - o).abs().max((bounds.1 - o).abs()).max_element() as f64;
    let err = m * (20.0 * u * m + 40.0 * u * zl) + 1024.0 * u * u * reach * reach;
    let spread: f64 = z.iter().map(|zi| (zi - t).abs()).sum();
    let far = z.iter().fold(0.0f64, |m, zi| m.max(zi.abs()));
    (4.0 * err / sum.abs() * spread + 10.0 * u * far) * 1.01 + 1e-30
}

impl Reference {
    /// Whether `p` lies exactly on the surface.
    pub fn on_surface(&self, p: Vec3) -> bool {
        let (p, mut on) = (p.as_dvec3(), false);
        let r = RefRay::segment(p.as_vec3(), p.as_vec3() + Vec3::X);
        self.candidates(&r, 0.0, |t| {
            on |= on_triangle(&self.tris[t], p);
            f64::INFINITY
        });
        on
    }

    /// Exact parity of the crossings of a ray from `p` along `d` (the
    /// tie-break decides edges and vertices), or `None` when the ray has
    /// no exact point to test with.
    pub fn parity(&self, p: Vec3, d: Vec3) -> Option<bool> {
        let r = RefRay::ray(p, d)?;
        let mut odd = false;
        self.candidates(&r, f64::INFINITY, |t| {
            if self.crossing(&r, t) != Crossing::Miss {
                odd = !odd;
            }
            f64::INFINITY
        });
        Some(odd)
    }

    /// Whether `p` is strictly inside (off the surface, odd parity), or
    /// `None` when no test ray could be made.
    pub fn strictly_inside(&self, p: Vec3) -> Option<bool> {
        if self.on_surface(p) {
            return Some(false);
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(p.x.to_bits()));
        (0..4).find_map(|_| self.parity(p, super::scenes::unit(&mut rng)))
    }
}
