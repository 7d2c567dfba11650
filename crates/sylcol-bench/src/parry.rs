//! The game's other queries against parry3d 0.31 (issue 38): sylcol's
//! `sweep_sphere` (the runtime's `MOVESPHERE`) against parry's ball cast
//! on a `TriMesh` (`cast_shapes`), `closest_point` against
//! `project_point` (not solid), `contains_point` against parry's
//! `contains_point` (a `TriMesh` with `TriMeshFlags::ORIENTED`: the
//! pseudo-normal test), on the same inputs, timed in interleaved rounds
//! (`timing`), with every answer compared.
//!
//! sylcol answers through the map's own grid (the file's collider, what
//! the game does) and through its BVH (the same collider `with_bvh`, whose
//! sweeps and nearest points walk the tree; a map of at most 16 triangles
//! gets no tree, and its BVH column is the grid path again). Inputs
//! ([`inputs()`]), seed [`SEED`], a quarter of each kind:
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
//! same answer. Every disagreement of the grid path with parry3d is
//! listed with an f64 brute force over every triangle (sylcol's
//! per-triangle sweep and closest point, no index) that says which side
//! it agrees with; the BVH path's answers are compared with the grid
//! path's exactly (contact or nearest point, distance, triangle), and
//! every difference listed.

mod inputs;

use glam::Vec3;
use parry3d::math::Pose;
use parry3d::query::{PointQuery as _, ShapeCastOptions, cast_shapes};
use parry3d::shape::{Ball, TriMesh as ParryMesh, TriMeshFlags};
use sylcol::prelude::*;
use sylcol::query::{ClosestPoint, Collider, SphereContact};

use self::inputs::{Point, Sweep, brute_distance, brute_sweep, inputs, judge_toi, signed_volume};
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

/// A scene's inputs and the three sides: the grid path, the BVH path,
/// parry3d.
struct Setup<'a> {
    scene: &'a Scene,
    grid: Collider,
    tree: Collider,
    parry: ParryMesh,
    diagonal: f64,
    sweeps: Vec<Sweep>,
    points: Vec<Point>,
}

/// Runs the table over `scenes`, `n` inputs of each kind a scene.
pub fn run(scenes: &[Scene], n: usize, rounds: usize) {
    println!(
        "sylcol (the map's own grid; its BVH) against parry3d 0.31 (TriMesh, ORIENTED), {n} inputs a query, fastest of {rounds} interleaved rounds, ns a query; ratio = parry3d / sylcol"
    );
    println!(
        "| scene | triangles | sweep grid | sweep BVH | parry cast_shapes (ball) | ratio grid | ratio BVH | closest grid | closest BVH | parry project_point | ratio grid | ratio BVH | contains_point | parry contains_point | ratio | disagreements with parry3d (sweep, closest, contains) | BVH != grid (sweep, closest) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = vec![Vec::new(); 5];
    let mut notes = Vec::new();
    for scene in scenes {
        let s = Setup::new(scene, n);
        let sweep = interleaved(3, n, rounds, CHUNK, |m, r| s.sweep_chunk(m, r));
        let closest = interleaved(3, n, rounds, CHUNK, |m, r| s.closest_chunk(m, r));
        let contains = interleaved(2, n, rounds, CHUNK, |m, r| s.contains_chunk(m, r));
        let (d_sweep, d_closest, d_contains) =
            (s.check_sweeps(), s.check_closest(), s.check_contains());
        let (t_sweep, t_closest) = s.tree_against_grid();
        let mut row = format!("| {} | {} ", scene.name, scene.mesh.triangles.len());
        for (k, t) in [sweep, closest].into_iter().enumerate() {
            let (a, b) = (t[2] / t[0], t[2] / t[1]);
            ratios[2 * k].push(a);
            ratios[2 * k + 1].push(b);
            row += &format!(
                "| {:.0} | {:.0} | {:.0} | {a:.2} | {b:.2} ",
                t[0], t[1], t[2]
            );
        }
        let ratio = contains[1] / contains[0];
        ratios[4].push(ratio);
        row += &format!("| {:.0} | {:.0} | {ratio:.2} ", contains[0], contains[1]);
        println!(
            "{row}| {}, {}, {} | {}, {} |",
            d_sweep.len(),
            d_closest.len(),
            d_contains.len(),
            t_sweep.len(),
            t_closest.len()
        );
        for d in d_sweep.iter().chain(&d_closest).chain(&d_contains) {
            notes.push(format!("{}: {d}", scene.name));
        }
        for d in t_sweep.iter().chain(&t_closest) {
            notes.push(format!("{}: {d}: BVH path against grid path", scene.name));
        }
    }
    summary(&ratios, &notes);
}

/// The methods [`one`] runs: (name, query, side: 0 grid, 1 BVH, 2 parry3d).
const METHODS: [(&str, usize, usize); 8] = [
    ("sweep-grid", 0, 0),
    ("sweep-bvh", 0, 1),
    ("sweep-parry", 0, 2),
    ("closest-grid", 1, 0),
    ("closest-bvh", 1, 1),
    ("closest-parry", 1, 2),
    ("contains", 2, 0),
    ("contains-parry", 2, 1),
];

/// One method over every scene's inputs, once, untimed (for callgrind:
/// `sylcol-bench parry closest-bvh`); an unknown name is an error.
pub fn one(scenes: &[Scene], n: usize, name: &str) -> Result<(), String> {
    let Some(&(_, query, side)) = METHODS.iter().find(|m| m.0 == name) else {
        let names: Vec<&str> = METHODS.iter().map(|m| m.0).collect();
        return Err(format!("parry ONE: one of {names:?}"));
    };
    for scene in scenes {
        let s = Setup::new(scene, n);
        match query {
            0 => s.sweep_chunk(side, 0..n),
            1 => s.closest_chunk(side, 0..n),
            _ => s.contains_chunk(side, 0..n),
        }
    }
    Ok(())
}

/// The ratios' geometric means and lowest, and the disagreements by
/// verdict and one by one.
fn summary(ratios: &[Vec<f64>], notes: &[String]) {
    let gm = |v: &[f64]| (v.iter().map(|r| r.ln()).sum::<f64>() / v.len().max(1) as f64).exp();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let names = [
        "sweep grid",
        "sweep BVH",
        "closest grid",
        "closest BVH",
        "contains",
    ];
    let parts: Vec<String> = names
        .iter()
        .zip(ratios)
        .map(|(name, v)| format!("{name} {:.2} ({:.2})", gm(v), min(v)))
        .collect();
    println!(
        "\ngeometric mean of the ratios (lowest): {}",
        parts.join(", ")
    );
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    for n in notes {
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
    for n in notes {
        println!("- {n}");
    }
}

impl<'a> Setup<'a> {
    fn new(scene: &'a Scene, n: usize) -> Self {
        let mesh = &scene.mesh;
        let grid = Collider::from_mcol(&scene.mcol).expect("the scene's collider");
        let tree = grid.clone().with_bvh();
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
        let (sweeps, points) = inputs(mesh, n, SEED);
        let s = Setup {
            scene,
            grid,
            tree,
            parry,
            diagonal: f64::from((hi - lo).length()),
            sweeps,
            points,
        };
        // Parts built on first use (the inside and closest indexes, the
        // ray packets) before anything is timed.
        for m in 0..3 {
            s.sweep_chunk(m, 0..1);
            s.closest_chunk(m, 0..1);
            s.contains_chunk(m.min(1), 0..1);
        }
        s
    }

    /// The grid path's collider (`m` 0) or the BVH path's (1).
    fn side(&self, m: usize) -> &Collider {
        if m == 0 { &self.grid } else { &self.tree }
    }

    fn sylcol_sweep(&self, c: &Collider, q: &Sweep) -> Option<SphereContact> {
        c.sweep_sphere(q.centre, q.radius, q.motion)
            .expect("a valid sweep")
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

    fn sylcol_closest(&self, c: &Collider, p: Vec3) -> ClosestPoint {
        c.closest_point(p)
            .expect("a valid point")
            .expect("a surface")
    }

    fn parry_closest(&self, p: Vec3) -> f32 {
        let proj = self.parry.project_local_point(p, false);
        (proj.point - p).length()
    }

    fn sylcol_contains(&self, p: Vec3) -> bool {
        self.grid.contains_point(p).expect("a valid point")
    }

    fn parry_contains(&self, p: Vec3) -> bool {
        self.parry.contains_local_point(p)
    }

    /// Method `m` (0 grid, 1 BVH, 2 parry3d) on the sweeps of `r`.
    fn sweep_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.sweeps[r] {
            if m == 2 {
                std::hint::black_box(self.parry_sweep(q));
            } else {
                std::hint::black_box(self.sylcol_sweep(self.side(m), q));
            }
        }
    }

    /// Method `m` (0 grid, 1 BVH, 2 parry3d) on the points of `r`.
    fn closest_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.points[r] {
            if m == 2 {
                std::hint::black_box(self.parry_closest(q.p));
            } else {
                std::hint::black_box(self.sylcol_closest(self.side(m), q.p));
            }
        }
    }

    /// Method `m` (0 sylcol, 1 parry3d) on the points of `r`.
    fn contains_chunk(&self, m: usize, r: std::ops::Range<usize>) {
        for q in &self.points[r] {
            std::hint::black_box(if m == 0 {
                self.sylcol_contains(q.p)
            } else {
                self.parry_contains(q.p)
            });
        }
    }

    /// The inputs the BVH path answers otherwise than the grid path.
    fn tree_against_grid(&self) -> (Vec<String>, Vec<String>) {
        let mut sweeps = Vec::new();
        for (i, q) in self.sweeps.iter().enumerate() {
            let (g, t) = (
                self.sylcol_sweep(&self.grid, q),
                self.sylcol_sweep(&self.tree, q),
            );
            if g != t {
                let brute = brute_sweep(&self.scene.mesh, q);
                sweeps.push(format!(
                    "sweep {i}: grid {g:?}, BVH {t:?}, brute force {brute:?}"
                ));
            }
        }
        let mut points = Vec::new();
        for (i, q) in self.points.iter().enumerate() {
            let g = self.sylcol_closest(&self.grid, q.p);
            let t = self.sylcol_closest(&self.tree, q.p);
            if g != t {
                let brute = brute_distance(&self.scene.mesh, q.p);
                points.push(format!(
                    "closest {i}: grid {g:?}, BVH {t:?}, brute force {brute}"
                ));
            }
        }
        (sweeps, points)
    }

    /// The sweeps whose answers disagree, each explained.
    fn check_sweeps(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, q) in self.sweeps.iter().enumerate() {
            let s = self.sylcol_sweep(&self.grid, q).map(|c| c.time_of_impact);
            let p = self.parry_sweep(q);
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
            let (s, p) = (
                self.sylcol_closest(&self.grid, q.p).distance,
                self.parry_closest(q.p),
            );
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
