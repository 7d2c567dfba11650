//! The game's other queries against parry3d 0.31 (issue 38): sylcol's
//! `sweep_sphere` (the runtime's `MOVESPHERE`) against parry's ball cast
//! on a `TriMesh` (`cast_shapes`), `closest_point` against
//! `project_point` (not solid), `contains_point` against parry's
//! `contains_point` (a `TriMesh` with `TriMeshFlags::ORIENTED`: the
//! pseudo-normal test), on the same inputs, timed in interleaved rounds
//! (`timing`), with every answer compared.
//!
//! sylcol answers through the map's own grid (the file's collider, what
//! the game does). Inputs, seed [`SEED`], a quarter of each kind:
//! uniform in the map's box (grown by a tenth), and aimed at a face (a
//! uniform point of a uniformly chosen triangle), an edge (a uniform
//! point of one of its edges) or a vertex (one of its corners). A sweep
//! starts one radius plus up to a quarter of the box's diagonal from its
//! target (in a uniform direction) and moves 1.5 times the way there; a
//! random sweep moves up to half the diagonal. Radii are log-uniform
//! between 0.1 % and 10 % of the diagonal. A point query aimed at a
//! feature stands off it by a log-uniform 1e-6 to 1e-2 of the diagonal.
//!
//! **Agreement.** A sweep: both miss, or both hit with times of impact
//! whose distance along the motion differs by at most
//! [`TOI_BOUND`] x the diagonal. A closest point: distances within
//! [`DISTANCE_BOUND`] (relative) + 1e-6 x the diagonal. Containment: the
//! same answer. Every disagreement is listed with an f64 brute force over
//! every triangle (sylcol's per-triangle sweep and closest point, no
//! index) that says which side it agrees with.

use glam::{DVec3, Vec3};
use parry3d::math::Pose;
use parry3d::query::{PointQuery as _, ShapeCastOptions, cast_shapes};
use parry3d::shape::{Ball, TriMesh as ParryMesh, TriMeshFlags};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::prelude::*;
use sylcol::query::Collider;
use sylcol_query::geometry::closest::{closest_on_triangle, sweep_triangle};

use crate::scenes::Scene;
use crate::timing::interleaved;

/// The seed of every scene's inputs.
pub const SEED: u64 = 38;
/// Queries a timed chunk.
const CHUNK: usize = 256;
/// Sweeps agree when their contact points along the motion are at most
/// this fraction of the box's diagonal apart.
pub const TOI_BOUND: f64 = 1e-4;
/// Closest distances agree within this relative difference (plus 1e-6 of
/// the diagonal).
pub const DISTANCE_BOUND: f64 = 1e-5;

/// Which feature an input is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aim {
    Random,
    Face,
    Edge,
    Vertex,
}

/// A sphere sweep.
#[derive(Debug, Clone, Copy)]
struct Sweep {
    centre: Vec3,
    radius: f32,
    motion: Vec3,
    aim: Aim,
}

/// A point query.
#[derive(Debug, Clone, Copy)]
struct Point {
    p: Vec3,
    aim: Aim,
}

/// A scene's inputs and the two sides.
struct Setup<'a> {
    scene: &'a Scene,
    collider: Collider,
    parry: ParryMesh,
    diagonal: f64,
    sweeps: Vec<Sweep>,
    points: Vec<Point>,
}

/// Runs the table over `scenes`, `n` inputs of each kind a scene.
pub fn run(scenes: &[Scene], n: usize, rounds: usize) {
    println!(
        "sylcol (the map's own grid) against parry3d 0.31 (TriMesh, ORIENTED), {n} inputs a query, fastest of {rounds} interleaved rounds, ns a query; ratio = parry3d / sylcol"
    );
    println!(
        "| scene | triangles | sweep_sphere | parry cast_shapes (ball) | ratio | closest_point | parry project_point | ratio | contains_point | parry contains_point | ratio | disagreements (sweep, closest, contains) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = [Vec::new(), Vec::new(), Vec::new()];
    let mut notes = Vec::new();
    for scene in scenes {
        let s = Setup::new(scene, n);
        let sweep = time_pair(rounds, s.sweeps.len(), |m, r| s.sweep_chunk(m, r));
        let closest = time_pair(rounds, s.points.len(), |m, r| s.closest_chunk(m, r));
        let contains = time_pair(rounds, s.points.len(), |m, r| s.contains_chunk(m, r));
        let (d_sweep, d_closest, d_contains) =
            (s.check_sweeps(), s.check_closest(), s.check_contains());
        let mut row = format!("| {} | {} ", scene.name, scene.mesh.triangles.len());
        for (k, t) in [sweep, closest, contains].into_iter().enumerate() {
            let ratio = t[1] / t[0];
            ratios[k].push(ratio);
            row += &format!("| {:.0} | {:.0} | {:.2} ", t[0], t[1], ratio);
        }
        println!(
            "{row}| {}, {}, {} |",
            d_sweep.len(),
            d_closest.len(),
            d_contains.len()
        );
        for d in d_sweep.iter().chain(&d_closest).chain(&d_contains) {
            notes.push(format!("{}: {d}", scene.name));
        }
    }
    let gm = |v: &[f64]| (v.iter().map(|r| r.ln()).sum::<f64>() / v.len().max(1) as f64).exp();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "\ngeometric mean of the ratios (lowest): sweep {:.2} ({:.2}), closest {:.2} ({:.2}), contains {:.2} ({:.2})",
        gm(&ratios[0]),
        min(&ratios[0]),
        gm(&ratios[1]),
        min(&ratios[1]),
        gm(&ratios[2]),
        min(&ratios[2])
    );
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    for n in &notes {
        let why = n.rsplit(": ").next().unwrap_or("").to_string();
        let kind = n
            .split(": ")
            .nth(1)
            .and_then(|w| w.split(' ').next())
            .unwrap_or("");
        *verdicts.entry(format!("{kind}: {why}")).or_default() += 1;
    }
    println!("\ndisagreements by verdict:");
    for (v, count) in &verdicts {
        println!("- {count} x {v}");
    }
    println!("\ndisagreements ({}):", notes.len());
    for n in &notes {
        println!("- {n}");
    }
}

/// ns a query of sylcol (0) and parry3d (1).
fn time_pair(rounds: usize, n: usize, run: impl FnMut(usize, std::ops::Range<usize>)) -> Vec<f64> {
    interleaved(2, n, rounds, CHUNK, run)
}

impl<'a> Setup<'a> {
    fn new(scene: &'a Scene, n: usize) -> Self {
        let mesh = &scene.mesh;
        let collider = Collider::from_mcol(&scene.mcol).expect("the scene's collider");
        // parry's pseudo-normal test takes counter-clockwise triangles as
        // facing out; a mesh wound the other way (its signed volume
        // negative, as the sample maps) goes to parry with each triangle
        // reversed: the same surface, its inside on the same side.
        let triangles = if signed_volume(mesh) < 0.0 {
            mesh.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect()
        } else {
            mesh.triangles.clone()
        };
        let parry = ParryMesh::with_flags(mesh.vertices.clone(), triangles, TriMeshFlags::ORIENTED)
            .expect("parry mesh");
        let (lo, hi) = mesh.bounds().expect("a mesh with vertices");
        let diagonal = f64::from((hi - lo).length());
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let sweeps = (0..n)
            .map(|i| sweep(mesh, (lo, hi), diagonal, i, &mut rng))
            .collect();
        let points = (0..n)
            .map(|i| point(mesh, (lo, hi), diagonal, i, &mut rng))
            .collect();
        let s = Setup {
            scene,
            collider,
            parry,
            diagonal,
            sweeps,
            points,
        };
        // Parts built on first use (the inside and closest indexes, the
        // ray packets) before anything is timed.
        s.sweep_chunk(0, 0..1);
        s.closest_chunk(0, 0..1);
        s.contains_chunk(0, 0..1);
        s
    }

    fn sylcol_sweep(&self, q: &Sweep) -> Option<f32> {
        self.collider
            .sweep_sphere(q.centre, q.radius, q.motion)
            .expect("a valid sweep")
            .map(|c| c.time_of_impact)
    }

    fn parry_sweep(&self, q: &Sweep) -> Option<f32> {
        let ball = Ball::new(q.radius);
        let options = ShapeCastOptions {
            max_time_of_impact: 1.0,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: false,
        };
        cast_shapes(
            &Pose::from_translation(q.centre),
            q.motion,
            &ball,
            &Pose::IDENTITY,
            Vec3::ZERO,
            &self.parry,
            options,
        )
        .expect("a supported pair")
        .map(|h| h.time_of_impact)
    }

    fn sylcol_closest(&self, p: Vec3) -> f32 {
        self.collider
            .closest_point(p)
            .expect("a valid point")
            .expect("a surface")
            .distance
    }

    fn parry_closest(&self, p: Vec3) -> f32 {
        let proj = self.parry.project_local_point(p, false);
        (proj.point - p).length()
    }

    fn sylcol_contains(&self, p: Vec3) -> bool {
        self.collider.contains_point(p).expect("a valid point")
    }

    fn parry_contains(&self, p: Vec3) -> bool {
        self.parry.contains_local_point(p)
    }

    fn sweep_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.sweeps[r] {
            std::hint::black_box(if m == 0 {
                self.sylcol_sweep(q)
            } else {
                self.parry_sweep(q)
            });
        }
    }

    fn closest_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.points[r] {
            std::hint::black_box(if m == 0 {
                self.sylcol_closest(q.p)
            } else {
                self.parry_closest(q.p)
            });
        }
    }

    fn contains_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.points[r] {
            std::hint::black_box(if m == 0 {
                self.sylcol_contains(q.p)
            } else {
                self.parry_contains(q.p)
            });
        }
    }

    /// The sweeps whose answers disagree, each explained.
    fn check_sweeps(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, q) in self.sweeps.iter().enumerate() {
            let (s, p) = (self.sylcol_sweep(q), self.parry_sweep(q));
            let along = f64::from(q.motion.length());
            let agree = match (s, p) {
                (None, None) => true,
                (Some(a), Some(b)) => f64::from(a - b).abs() * along <= TOI_BOUND * self.diagonal,
                _ => false,
            };
            if !agree {
                let brute = brute_sweep(&self.scene.mesh, q);
                out.push(format!(
                    "sweep {i} ({:?}, r {:.3e} = {:.2} % of the diagonal, |motion| {:.3e}): sylcol {s:?}, parry3d {p:?}, f64 brute force {brute:?}: {}",
                    q.aim,
                    q.radius,
                    100.0 * f64::from(q.radius) / self.diagonal,
                    along,
                    judge_toi(s, p, brute, along, self.diagonal)
                ));
            }
        }
        out
    }

    /// The closest-point queries whose distances disagree.
    fn check_closest(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, q) in self.points.iter().enumerate() {
            let (s, p) = (self.sylcol_closest(q.p), self.parry_closest(q.p));
            let tol = DISTANCE_BOUND * f64::from(s.max(p)) + 1e-6 * self.diagonal;
            if f64::from(s - p).abs() > tol {
                let brute = brute_distance(&self.scene.mesh, q.p);
                let nearer = if (f64::from(s) - brute).abs() <= (f64::from(p) - brute).abs() {
                    "sylcol is the f64 brute force's"
                } else {
                    "parry3d is nearer the f64 brute force"
                };
                out.push(format!(
                    "closest {i} ({:?}): sylcol {s}, parry3d {p}, f64 brute force {brute}: {nearer}",
                    q.aim
                ));
            }
        }
        out
    }

    /// The containment queries answered differently.
    fn check_contains(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, q) in self.points.iter().enumerate() {
            let (s, p) = (self.sylcol_contains(q.p), self.parry_contains(q.p));
            if s != p {
                let d = brute_distance(&self.scene.mesh, q.p);
                let near = if d <= 1e-4 * self.diagonal {
                    "within 1e-4 of the diagonal of the surface, where parry's f32 projection and pseudo-normal decide; sylcol's crossing parity is exact"
                } else {
                    "away from the surface: parry's pseudo-normal sign at the projection (an edge or vertex of a fan) chose the wrong side"
                };
                out.push(format!(
                    "contains {i} ({:?}) at {:?}, {d:.3e} from the surface ({:.1e} of the diagonal): sylcol {s}, parry3d {p}: {near}",
                    q.aim,
                    q.p,
                    d / self.diagonal
                ));
            }
        }
        out
    }
}

/// Why two sweeps disagree, from the f64 brute force.
fn judge_toi(s: Option<f32>, p: Option<f32>, brute: Option<f64>, along: f64, diag: f64) -> String {
    let near = |t: Option<f32>| match (t, brute) {
        (None, None) => true,
        (Some(a), Some(b)) => (f64::from(a) - b).abs() * along <= TOI_BOUND * diag,
        _ => false,
    };
    match (near(s), near(p)) {
        (true, false) => {
            "sylcol is the brute force's; parry3d's ball cast (GJK to a tolerance) is not".into()
        }
        (false, true) => "parry3d is the brute force's; sylcol is not".into(),
        (true, true) => "both within the bound of the brute force".into(),
        (false, false) => "neither is the brute force's".into(),
    }
}

/// The first contact of the sweep over every triangle, in f64.
fn brute_sweep(mesh: &TriMesh, q: &Sweep) -> Option<f64> {
    let (c, r, m) = (
        q.centre.as_dvec3(),
        f64::from(q.radius),
        q.motion.as_dvec3(),
    );
    mesh.triangles
        .iter()
        .filter_map(|t| sweep_triangle(c, r, m, &corners(mesh, t)))
        .filter(|&t| t <= 1.0)
        .min_by(f64::total_cmp)
}

/// The distance from `p` to the nearest triangle, in f64.
fn brute_distance(mesh: &TriMesh, p: Vec3) -> f64 {
    let p = p.as_dvec3();
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = corners(mesh, t);
            closest_on_triangle(p, a, b, c).distance(p)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Six times the signed volume the mesh encloses (positive when its
/// triangles wind counter-clockwise seen from outside).
fn signed_volume(mesh: &TriMesh) -> f64 {
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = corners(mesh, t);
            a.dot(b.cross(c))
        })
        .sum()
}

fn corners(mesh: &TriMesh, t: &[u32; 3]) -> [DVec3; 3] {
    t.map(|i| mesh.vertices[i as usize].as_dvec3())
}

/// The aim of input `i` and, for an aimed one, its target.
fn target(mesh: &TriMesh, i: usize, rng: &mut ChaCha8Rng) -> (Aim, Vec3) {
    let aim = [Aim::Random, Aim::Face, Aim::Edge, Aim::Vertex][i % 4];
    let t = mesh.triangles[rng.random_range(0..mesh.triangles.len())];
    let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
    let p = match aim {
        Aim::Random => Vec3::ZERO,
        Aim::Face => {
            let (mut u, mut v) = (rng.random::<f32>(), rng.random::<f32>());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            a + (b - a) * u + (c - a) * v
        }
        Aim::Edge => {
            let (p, q) = [(a, b), (b, c), (c, a)][rng.random_range(0..3)];
            p.lerp(q, rng.random::<f32>())
        }
        Aim::Vertex => [a, b, c][rng.random_range(0..3)],
    };
    (aim, p)
}

fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let l = v.length();
        if l > 1e-3 && l <= 1.0 {
            return v / l;
        }
    }
}

fn in_box((lo, hi): (Vec3, Vec3), rng: &mut ChaCha8Rng) -> Vec3 {
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    Vec3::new(
        rng.random_range(lo.x..=hi.x),
        rng.random_range(lo.y..=hi.y),
        rng.random_range(lo.z..=hi.z),
    )
}

fn sweep(mesh: &TriMesh, b: (Vec3, Vec3), diag: f64, i: usize, rng: &mut ChaCha8Rng) -> Sweep {
    let (aim, to) = target(mesh, i, rng);
    let radius = (diag * 10f64.powf(rng.random_range(-3.0..-1.0))) as f32;
    let diag = diag as f32;
    let (centre, motion) = if aim == Aim::Random {
        (
            in_box(b, rng),
            unit(rng) * rng.random_range(0.0..0.5) * diag,
        )
    } else {
        let centre = to + unit(rng) * (radius + rng.random_range(0.0..0.25) * diag);
        (centre, (to - centre) * 1.5)
    };
    Sweep {
        centre,
        radius,
        motion,
        aim,
    }
}

fn point(mesh: &TriMesh, b: (Vec3, Vec3), diag: f64, i: usize, rng: &mut ChaCha8Rng) -> Point {
    let (aim, to) = target(mesh, i, rng);
    let p = if aim == Aim::Random {
        in_box(b, rng)
    } else {
        to + unit(rng) * (diag * 10f64.powf(rng.random_range(-6.0..-2.0))) as f32
    };
    Point { p, aim }
}
