//! The ray/triangle kernels against the exact predicates, and against
//! each other: every lane decision equals the exact one, and the AVX and
//! portable kernels answer bit for bit alike.

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
#[cfg(target_arch = "x86_64")]
use super::cpu::{Avx2, avx2_for_tests};
use super::kernel::{Kernel, Portable};
use super::packet::{LANES, Packet};
use super::ray_triangle::{Cast, RayFrame};

/// The ray `o + t d`, t in (0, limit], for the exact predicates.
fn cast(o: Vec3, d: Vec3, limit: f32) -> Cast {
    Cast::Ray { o, d, limit }
}

fn bounds_of(tris: &[(u32, [Vec3; 3])]) -> (Vec3, Vec3) {
    tris.iter()
        .flat_map(|(_, c)| c.iter())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

fn hits_and_misses<K: Kernel>(k: K) {
    let c = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let far = c.map(|v| v + Vec3::splat(10.0));
    let tris = [(7, c), (9, far)];
    let p = Packet::new(&tris, 2);
    assert_eq!(p.ids, [7, 9, 2, 2, 2, 2, 2, 2]);
    let b = bounds_of(&tris);
    let at = |o: Vec3, d: Vec3, max: f32| {
        k.hits(
            &RayFrame::new(o, d, max, &cast(o, d, max), b),
            &p,
            max,
            0xff,
        )
    };
    let down = (Vec3::new(0.25, 0.25, 2.0), Vec3::new(0.0, 0.0, -2.0));
    let (t, m) = at(down.0, down.1, f32::INFINITY);
    assert_eq!((m, t[0]), (0b1, 1.0));
    assert_eq!(at(down.0, down.1, 0.5).1, 0);
    let (t, m) = at(down.0, down.1, 1.0);
    assert_eq!((m, t[0]), (0b1, 1.0));
    assert_eq!(at(Vec3::new(0.8, 0.8, 2.0), -Vec3::Z, f32::INFINITY).1, 0);
    // In the triangle's plane: no crossing.
    assert_eq!(at(Vec3::new(-1.0, 0.2, 0.0), Vec3::X, f32::INFINITY).1, 0);
    assert_eq!(at(down.0, Vec3::Z, f32::INFINITY).1, 0);
    let (t, m) = at(Vec3::new(10.2, 10.2, 20.0), -Vec3::Z, f32::INFINITY);
    assert_eq!((m, t[1]), (0b10, 10.0));
    // Masked-out lanes are not reported.
    let c = cast(down.0, down.1, 9.0);
    let f = RayFrame::new(down.0, down.1, 9.0, &c, b);
    assert_eq!(k.hits(&f, &p, 9.0, 0b10).1, 0);
}

#[test]
fn portable_hits_and_misses() {
    hits_and_misses(Portable);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2")]
fn avx_hits_and_misses(avx: Avx2) {
    hits_and_misses(Avx::new(avx));
}

/// Up to eight (id, corners), a ray's origin and direction, its limit.
type Case = (Vec<(u32, [Vec3; 3])>, Vec3, Vec3, f32);

/// Random triangles and rays, many of them hard: aimed at a corner or an
/// edge of a triangle of the packet, nearly parallel to one, from far
/// away, or with a limit at the crossing.
fn hard_cases(n: usize, seed: u64) -> Vec<Case> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|round| {
            let scale = [1.0, 1000.0, 250_000.0][round % 3];
            let v = |r: &mut ChaCha8Rng| {
                Vec3::from_array(std::array::from_fn(|_| r.random_range(-1.0f32..1.0))) * scale
            };
            let base = v(&mut rng);
            let tris: Vec<(u32, [Vec3; 3])> = (0..1 + round % LANES)
                .map(|i| {
                    let small = scale * [1.0, 0.01, 1e-4][i % 3];
                    let c = [base, base, base].map(|b| {
                        b + Vec3::from_array(std::array::from_fn(|_| {
                            rng.random_range(-1.0f32..1.0)
                        })) * small
                    });
                    (i as u32, c)
                })
                .collect();
            let (_, c) = tris[rng.random_range(0..tris.len())];
            let target = match round % 5 {
                0 => c[rng.random_range(0..3)],
                1 => c[0].lerp(c[1], rng.random::<f32>()),
                2 => c[0] * 0.3 + c[1] * 0.3 + c[2] * 0.4,
                _ => v(&mut rng),
            };
            let mut o = v(&mut rng) * 2.0;
            if round % 7 == 0 {
                // Nearly in the plane of the triangle.
                let n = (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero();
                let along = (c[1] - c[0]).normalize_or_zero();
                o = target - along * scale + n * scale * rng.random_range(-1e-6f32..1e-6);
            }
            let d = target - o;
            let limit = match round % 4 {
                0 => f32::INFINITY,
                1 => 1.0,
                _ => rng.random_range(0.5f32..2.0),
            };
            (tris, o, d, limit)
        })
        .filter(|(_, _, d, _)| *d != Vec3::ZERO)
        .collect()
}

/// The bound on a reported t stated in `docs/queries.md` ("Exactness"),
/// evaluated in f64 from the geometry: (4 errE / |S|) sum |z_i - t| +
/// 10 u max |z_i|, with errE the kernel's edge bound, S the sum of the
/// exact edge functions and z_i the corners' ray parameters.
pub(crate) fn t_bound(o: Vec3, d: Vec3, c: &[Vec3; 3], bounds: (Vec3, Vec3)) -> f64 {
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
    let rel = c.map(|v| (v - o).as_dvec3());
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
    let big = (bounds.0[kz] - o[kz])
        .abs()
        .max((bounds.1[kz] - o[kz]).abs()) as f64;
    let err = m * (20.0 * u * m + 40.0 * u * zl) + 1024.0 * u * u * big * big;
    let spread: f64 = z.iter().map(|zi| (zi - t).abs()).sum();
    let far = z.iter().fold(0.0f64, |m, zi| m.max(zi.abs()));
    (4.0 * err / sum.abs() * spread + 10.0 * u * far) * 1.01 + 1e-30
}

/// Every lane the kernel reports (and every lane it does not) is what
/// the exact predicates say, and a reported t is within the stated bound
/// of the exact one.
fn kernel_is_exact<K: Kernel>(k: K) {
    for (tris, o, d, limit) in hard_cases(30_000, 11) {
        let p = Packet::new(&tris, 99);
        let b = bounds_of(&tris);
        let c = cast(o, d, limit);
        let f = RayFrame::new(o, d, limit, &c, b);
        let (t, mask) = k.hits(&f, &p, limit, 0xff);
        for (lane, (_, c)) in tris.iter().enumerate() {
            let want = f.exact().hit(*c);
            let got = (mask >> lane & 1 == 1).then_some(t[lane]);
            assert_eq!(got.is_some(), want.is_some(), "{o} {d} {limit} {c:?}");
            if let (Some(g), Some(w)) = (got, want) {
                let bound = t_bound(o, d, c, b);
                assert!(
                    f64::from((g - w).abs()) <= bound + f64::from(w) * 1e-7,
                    "{g} vs {w} (bound {bound}): {o} {d} {c:?}"
                );
            }
        }
    }
}

/// The edge functions of every lane are within the ray's bound (the one
/// the kernel tries first, for every lane of every packet) of their exact
/// values, here in f64 (its rounding is ~2^-29 of the bound), for the
/// packet's own box and for a box a thousand times larger.
#[test]
fn the_rays_edge_bound_holds_for_every_lane() {
    use super::ray_triangle::{LaneRay, corners, edge_functions};
    let mut worst = 0.0f64;
    for (tris, o, d, limit) in hard_cases(30_000, 17) {
        let p = Packet::new(&tris, 99);
        let (lo, hi) = bounds_of(&tris);
        let grown = (lo - (hi - lo) * 500.0, hi + (hi - lo) * 500.0);
        for b in [(lo, hi), grown] {
            let c = cast(o, d, limit);
            let f = RayFrame::new(o, d, limit, &c, b);
            let ([kx, ky, kz], err) = f.axes_and_bound();
            let lanes = LaneRay::<glam::Vec4>::new(&f, ());
            for at in [0, 4] {
                let (x, y, _) = corners(&lanes, &p, at);
                let e = edge_functions(x, y).map(|v| v.to_array());
                for (lane, (_, c)) in tris.iter().enumerate().skip(at).take(4) {
                    let (sx, sy) = (
                        f64::from(d[kx]) / f64::from(d[kz]),
                        f64::from(d[ky]) / f64::from(d[kz]),
                    );
                    let xy = c.map(|v| {
                        let a = v.as_dvec3() - o.as_dvec3();
                        (a[kx] - sx * a[kz], a[ky] - sy * a[kz])
                    });
                    for (i, (j, k)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                        let exact = xy[j].0 * xy[k].1 - xy[j].1 * xy[k].0;
                        let off = (f64::from(e[i][lane - at]) - exact).abs();
                        assert!(off <= f64::from(err), "{off} > {err}: {o} {d} {c:?}");
                        worst = worst.max(off / f64::from(err));
                    }
                }
            }
        }
    }
    // The rays are hard enough to come near the bound: the worst lane
    // reaches ~4 % of it (the bound takes every corner at the box's far
    // side and every rounding at its worst).
    assert!(worst > 0.005, "{worst}");
}

#[test]
fn portable_kernel_is_exact() {
    kernel_is_exact(Portable);
}

/// The AVX kernel answers bit for bit like the portable one, for the
/// packet's own box and for a box a thousand times larger (a map's box
/// around a small triangle: the ray's bound is loose, so lanes near an
/// edge take their own bound beside lanes that do not, in groups of
/// eight here and four there).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2")]
fn avx_matches_portable(avx: Avx2) {
    let k = Avx::new(avx);
    for (tris, o, d, limit) in hard_cases(30_000, 5) {
        let p = Packet::new(&tris, 99);
        let c = cast(o, d, limit);
        let (lo, hi) = bounds_of(&tris);
        let grown = (lo - (hi - lo) * 500.0, hi + (hi - lo) * 500.0);
        for b in [(lo, hi), grown] {
            let f = RayFrame::new(o, d, limit, &c, b);
            for t_max in [limit, limit * 0.75] {
                let (ta, ma) = Portable.hits(&f, &p, t_max, 0xff);
                let (tb, mb) = k.hits(&f, &p, t_max, 0xff);
                assert_eq!(ma, mb, "{o} {d}");
                for lane in 0..LANES {
                    if ma & (1 << lane) != 0 {
                        assert_eq!(ta[lane].to_bits(), tb[lane].to_bits(), "{o} {d}");
                    }
                }
            }
        }
    }
    kernel_is_exact(k);
}

/// Packets whose lane 0 is crossed just past the origin by a large
/// triangle with corners behind it (sure by its edge functions under the
/// ray's loose bound, its depth's sign left open by it) and whose lane 4
/// has an edge exactly on the ray (left open by the edge functions, so
/// that its group of lanes takes the lanes' own bounds); the other lanes
/// are clearly missed. In the AVX kernel lanes 0 and 4 share a register,
/// in the portable one they do not. Lane 0's answer, t included, must be
/// the same in both. It was not when a group's open lane gave every lane
/// in the group its own bound and the ray's bound served the others:
/// lane 0's depth was then decided by the division in the AVX kernel (t
/// off the exact one on most of these rays) and by the exact path in the
/// portable one, and this test failed on its first ray. (Now every
/// lane's depth takes the lane's own bound.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2")]
fn lane_bounds_ignore_the_neighbours(avx: Avx2) {
    use super::ray_triangle::{LaneRay, lanes};
    let k = Avx::new(avx);
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut division_off = 0;
    for _ in 0..2_000 {
        let mut r = |s: f32| rng.random_range(-s..s);
        let o = Vec3::new(r(3.0), r(3.0), r(3.0));
        let d = Vec3::new(r(0.2), r(0.2), 1.0);
        let at = |t: f32, x: f32, y: f32| o + d * t + Vec3::new(x, y, 0.0);
        let near = [
            at(-5.0 + r(0.5), -100.0, -100.0),
            at(5.0 + r(0.5), 100.0, -100.0),
            at(2.0 + r(0.4), r(10.0), 100.0),
        ];
        let on_edge = [at(7.0, 0.0, -1.0), at(7.0, 0.0, 1.0), at(7.0, 5.0, 0.0)];
        // Large triangles well aside of the ray: clearly missed under
        // the ray's bound, so they leave their group alone.
        let far = |k: f32| {
            [
                at(20.0 + k, 5_000.0, 5_000.0),
                at(20.0 + k, 5_200.0, 5_000.0),
                at(20.0 + k, 5_000.0, 5_200.0),
            ]
        };
        let tris = [
            (0, near),
            (1, far(1.0)),
            (2, far(2.0)),
            (3, far(3.0)),
            (4, on_edge),
            (5, far(5.0)),
            (6, far(6.0)),
            (7, far(7.0)),
        ];
        let p = Packet::new(&tris, 99);
        let c = cast(o, d, f32::INFINITY);
        let map_box = (Vec3::splat(-20_000.0), Vec3::splat(20_000.0));
        let f = RayFrame::new(o, d, f32::INFINITY, &c, map_box);
        let (ta, ma) = Portable.hits(&f, &p, f32::INFINITY, 0xff);
        let (tb, mb) = k.hits(&f, &p, f32::INFINITY, 0xff);
        assert_eq!(ma, mb, "{o} {d}");
        assert!(ma & 1 != 0, "lane 0 is crossed: {o} {d}");
        for lane in 0..LANES {
            if ma & (1 << lane) != 0 {
                assert_eq!(
                    ta[lane].to_bits(),
                    tb[lane].to_bits(),
                    "lane {lane}: {o} {d}"
                );
            }
        }
        // The case as built: lane 4 goes to the exact path, and lane 0's
        // t by the division is off the exact one (so a kernel that sent
        // lane 0 the exact way would show).
        let four = LaneRay::<glam::Vec4>::new(&f, ());
        let second = lanes(&four, &p, 4, f32::INFINITY).expect("lane 4 is near");
        assert!(second.unsure & 1 != 0, "lane 4 is open: {o} {d}");
        let first = lanes(&four, &p, 0, f32::INFINITY).expect("lane 0 is near");
        let exact = f.exact().hit(near).expect("crossed");
        division_off += usize::from(first.t.x != exact);
    }
    assert!(division_off > 1_000, "{division_off}");
}

#[test]
#[cfg(target_arch = "x86_64")]
#[cfg_attr(
    not(avx2_tests),
    ignore = "this CPU has no AVX2: the AVX2 kernel cannot run here"
)]
fn avx_kernel() {
    let avx = avx2_for_tests();
    // SAFETY: `avx` proves the CPU has AVX and AVX2.
    unsafe {
        avx_hits_and_misses(avx);
        avx_matches_portable(avx);
        lane_bounds_ignore_the_neighbours(avx);
    }
}
