//! Watertightness, proved against an exact reference on many rays.
//!
//! Over the eleven sample maps (each through the file's own grid and a
//! derived one) and UV spheres of 1 024 to 65 024 triangles (through an
//! 8 x 8 x 8 map grid and a derived one), and each through the BVH
//! (`Collider::with_bvh`), rays aimed at edges, at
//! vertices, at centroids, crossing a face within 1e-6 of parallel, and
//! at random: every `cast_ray` answer must be the exact one (the
//! reference in `reference.rs`: exact predicates, parry3d's BVH for
//! candidates), the reported t within the bound of `docs/queries.md`.
//! Segments, `contains_point` and `sweep_sphere` are checked the same way
//! in `others.rs`.
//!
//! `WATERTIGHT_RAYS=N` changes the rays per mesh (default 1 000 000).

mod others;
mod reference;
mod scenes;

use std::collections::BTreeMap;

use glam::Vec3;
use sylcol::query::Ray;

use reference::{Crossing, RefRay, t_bound};

use scenes::{Kind, Scene, TWINS_EVERY};

/// Rays per mesh.
fn rays_per_mesh() -> u64 {
    std::env::var("WATERTIGHT_RAYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// Runs `work(i)` for i in 0..n on every core, merging the tallies.
pub fn parallel(n: u64, work: impl Fn(u64, &mut Tally) + Sync) -> Tally {
    let threads = std::thread::available_parallelism().map_or(2, |t| t.get()) as u64;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let work = &work;
                s.spawn(move || {
                    let mut tally = Tally::default();
                    for i in (k..n).step_by(threads as usize) {
                        work(i, &mut tally);
                    }
                    tally
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .fold(Tally::default(), Tally::merge)
    })
}

/// Counts by label, and the first failures.
#[derive(Debug, Default)]
pub struct Tally {
    /// How many cases of each label were checked.
    pub counts: BTreeMap<String, u64>,
    /// The first failures, described.
    pub failures: Vec<String>,
    /// How many failed.
    pub failed: u64,
}

impl Tally {
    /// Counts one case of `label`.
    pub fn count(&mut self, label: impl Into<String>) {
        *self.counts.entry(label.into()).or_default() += 1;
    }

    /// Counts a failure, keeping its description among the first eight.
    pub fn fail(&mut self, what: String) {
        self.failed += 1;
        if self.failures.len() < 8 {
            self.failures.push(what);
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        for (k, v) in other.counts {
            *self.counts.entry(k).or_default() += v;
        }
        self.failed += other.failed;
        self.failures.extend(other.failures);
        self.failures.truncate(8);
        self
    }

    /// Prints the tally and fails the test if anything failed.
    pub fn finish(self, what: &str) {
        println!("{what}: {:?}", self.counts);
        assert!(
            self.failed == 0,
            "{what}: {} failures, e.g.\n{}",
            self.failed,
            self.failures.join("\n")
        );
    }
}

/// Ray `i` through every collider of a scene, against the reference
/// (and, for one ray in [`TWINS_EVERY`], through the colliders' twins on
/// the other kernel paths, which must answer the same bit for bit).
fn check_ray(s: &Scene, kind: Kind, o: Vec3, d: Vec3, i: u64, tally: &mut Tally) {
    let Some(r) = RefRay::ray(o, d) else {
        tally.count("skipped (no exact point on the ray)");
        return;
    };
    let want = s.reference.first(&r).nearest;
    tally.count(format!("{kind:?}"));
    if want.is_some_and(|w| w.2) {
        tally.count("nearest touched at an edge or vertex exactly");
    }
    let ray = Ray::new(o, d);
    for ((grid, c), twins) in s.colliders.iter().zip(&s.twins) {
        let hit = c.cast_ray(&ray, f32::INFINITY).expect("valid ray");
        tally.count(format!("rays through the {} kernels", c.kernel_path()));
        for (path, twin) in twins {
            if !i.is_multiple_of(TWINS_EVERY) {
                break;
            }
            tally.count(format!("rays through the {path} kernels"));
            if twin.cast_ray(&ray, f32::INFINITY) != Ok(hit) {
                tally.fail(format!(
                    "{} ({grid}) {kind:?} o {o:?} d {d:?}: the {path} kernels answer otherwise",
                    s.name
                ));
            }
        }
        let got = hit.map(|h| (h.triangle, h.time_of_impact));
        if let Err(e) = judge(s, &r, o, d, got, want) {
            tally.fail(format!("{} ({grid}) {kind:?} o {o:?} d {d:?}: {e}", s.name));
        }
    }
}

/// Whether sylcol's answer `got` (triangle, t) to the ray is right, given
/// the reference's nearest (triangle, t, touched only).
pub fn judge(
    s: &Scene,
    r: &RefRay,
    o: Vec3,
    d: Vec3,
    got: Option<(u32, f32)>,
    want: Option<(u32, f64, bool)>,
) -> Result<(), String> {
    let bound = |t: u32| t_bound(o, d, &s.reference.tris[t as usize], s.reference.bounds);
    match (got, want) {
        (None, Some((t, th, _))) => Err(format!("escapes; it crosses {t} at t {th}")),
        (None, None) => {
            // Nothing crossed: then the origin is not inside either.
            if r.end.is_none() && s.reference.strictly_inside(o) == Some(true) {
                return Err("escapes from inside (the reference disagrees with itself)".into());
            }
            Ok(())
        }
        (Some((tri, t)), want) => {
            let th = match s.reference.crossing(r, tri as usize) {
                Crossing::Hit(th) | Crossing::Tie(th) => th,
                Crossing::Miss => return Err(format!("reports {tri} at {t}, which it misses")),
            };
            let b = bound(tri);
            let toi = f64::from(t);
            if (toi - th).abs() > b + th * 1e-7 {
                return Err(format!("t {toi} for {tri}, exact {th}, bound {b}"));
            }
            match want {
                Some((n, tn, _)) if th > tn + b + bound(n) + tn * 1e-7 => {
                    Err(format!("reports {tri} at {th}; {n} is nearer at {tn}"))
                }
                None => Err(format!("reports {tri} at {th}; nothing is crossed")),
                _ => Ok(()),
            }
        }
    }
}

fn run_rays(scenes: &[Scene]) {
    let n = rays_per_mesh();
    for (k, s) in scenes.iter().enumerate() {
        let tally = parallel(n, |i, tally| {
            let (kind, o, d) = scenes::ray(&s.mesh, s.reference.bounds, 0x5eed + k as u64, i);
            if d != Vec3::ZERO && d.is_finite() {
                check_ray(s, kind, o, d, i, tally);
            }
        });
        tally.finish(&format!("rays, {} ({})", s.name, scenes::paths_note()));
    }
}

/// No ray escapes a sample map or reports a wrong triangle.
#[test]
fn rays_on_sample_maps_are_exact() {
    run_rays(&scenes::sample_maps());
}

/// No ray escapes a sphere of 1k to 65k triangles or reports a wrong
/// triangle.
#[test]
fn rays_on_spheres_are_exact() {
    run_rays(&scenes::spheres());
}

/// Stands for the AVX-512 path of the suite: ignored, with the reason,
/// where the CPU that built the tests has no AVX-512 (`build.rs` sets
/// `avx512_tests` only where it has), so that a run that could not check
/// that path says so. Where it has, every ray test above ran it (the
/// tallies name each path).
#[test]
#[cfg_attr(
    not(avx512_tests),
    ignore = "this CPU has no AVX-512 (F, BW, DQ, VL): the watertight suite did not run the AVX-512 kernels"
)]
fn the_avx512_kernels_ran() {
    assert!(sylcol::query::KernelPath::available().contains(&sylcol::query::KernelPath::Avx512));
}
