//! The methods compared on a scene, each run over a slice of its rays into
//! answer arrays (hit distance, +inf for a miss; triangle id).

#[cfg(feature = "embree")]
use crate::embree::EmbreeScene;
use crate::scenes::Scene;
use parry3d::query::{Ray as PRay, RayCast};
use std::hint::black_box;
use std::ops::Range;

use glam::Vec3;
use sylcol::prelude::*;
use sylcol::query::{Collider, Ray, RayHit};

/// One scene made ready for every method.
pub struct Prepared<'a> {
    /// The scene.
    pub scene: &'a Scene,
    /// sylcol through the file's own grid.
    pub own: Collider,
    /// sylcol through the suggested derived grid.
    pub derived: Collider,
    /// sylcol through its own acceleration: the file's grid with the BVH
    /// for rays (`Collider::with_bvh`).
    pub bvh: Collider,
    /// parry3d 0.31: `TriMesh` with its BVH.
    pub parry: parry3d::shape::TriMesh,
    /// sylcol's rays are made from the scene's rows of six f32 just
    /// before each call (as `embree` makes its `RayHit`), not
    /// read from the array of rays written long before (mode `made`).
    pub made: bool,
    /// Embree 3, robust flag off.
    #[cfg(feature = "embree")]
    pub embree: EmbreeScene,
    /// Embree 3, robust flag on.
    #[cfg(feature = "embree")]
    pub embree_robust: EmbreeScene,
}

impl<'a> Prepared<'a> {
    /// Builds every method's structure over the scene's mesh.
    pub fn new(scene: &'a Scene) -> Self {
        let own = Collider::from_mcol(&scene.mcol).expect("collider");
        let derived = own
            .with_derived_grid(own.suggested_cells_per_axis())
            .expect("derived grid");
        let bvh = own.clone().with_bvh();
        // One ray each builds what a collider makes on first use (the
        // grid's ray packets), so no timed or counted ray pays for it.
        if let Some(first) = scene.rays.first() {
            for c in [&own, &derived, &bvh] {
                black_box(c.cast_ray(first, f32::INFINITY).expect("valid ray"));
            }
        }
        let m = &scene.mesh;
        let parry = parry3d::shape::TriMesh::new(m.vertices.clone(), m.triangles.clone())
            .expect("parry mesh");
        Prepared {
            scene,
            own,
            derived,
            bvh,
            parry,
            made: false,
            #[cfg(feature = "embree")]
            embree: EmbreeScene::new(m, false),
            #[cfg(feature = "embree")]
            embree_robust: EmbreeScene::new(m, true),
        }
    }
}

/// A method of the single-thread table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// sylcol `cast_ray` through the file's own grid.
    Own,
    /// sylcol `cast_ray` through the derived grid.
    Derived,
    /// sylcol `cast_ray` through the BVH.
    Bvh,
    /// Embree `rtcIntersect1`, robust off.
    Embree,
    /// Embree `rtcIntersect1`, robust on.
    EmbreeRobust,
    /// parry3d `cast_local_ray`.
    Parry,
    /// sylcol `cast_rays_into` through the BVH, the whole range as one
    /// batch (`count` only: `sylcol-bvh-batch`).
    BvhBatch,
    /// Embree `rtcIntersect8`, robust off (`count` only: `embree8`).
    Embree8,
}

impl Method {
    /// The methods this build has.
    pub fn all() -> Vec<Method> {
        let mut m = vec![Method::Own, Method::Derived, Method::Bvh];
        if cfg!(feature = "embree") {
            m.extend([Method::Embree, Method::EmbreeRobust]);
        }
        m.push(Method::Parry);
        m
    }

    /// Its name in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Method::Own => "sylcol-own",
            Method::Derived => "sylcol-derived",
            Method::Bvh => "sylcol-bvh",
            Method::Embree => "embree1",
            Method::EmbreeRobust => "embree1-robust",
            Method::Parry => "parry3d",
            Method::BvhBatch => "sylcol-bvh-batch",
            Method::Embree8 => "embree8",
        }
    }

    /// The batch methods `count` also runs (not in the tables' `all`).
    pub fn batches() -> Vec<Method> {
        let mut m = vec![Method::BvhBatch];
        if cfg!(feature = "embree") {
            m.push(Method::Embree8);
        }
        m
    }

    /// The method named `s`, of `all` or `batches`.
    pub fn parse(s: &str) -> Option<Method> {
        let mut m = Method::all();
        m.extend(Method::batches());
        m.into_iter().find(|m| m.name() == s)
    }
}

/// The answers of one run.
pub struct Answers {
    /// Hit distance, +inf for a miss.
    pub t: Vec<f32>,
    /// Hit triangle, u32::MAX for a miss (parry3d: 0 for every hit).
    pub id: Vec<u32>,
}

impl Answers {
    /// Room for `n` answers.
    pub fn new(n: usize) -> Self {
        Answers {
            t: vec![f32::INFINITY; n],
            id: vec![u32::MAX; n],
        }
    }

    /// How many rays hit.
    pub fn hits(&self) -> usize {
        self.t.iter().filter(|t| t.is_finite()).count()
    }
}

/// Runs `m` over the scene's rays `range` into `out`. Not inlined, so that
/// `callgrind --toggle-collect='*run_method*'` counts exactly this.
#[inline(never)]
pub fn run_method(m: Method, p: &Prepared<'_>, range: Range<usize>, out: &mut Answers) {
    let rays = &p.scene.rays[range.clone()];
    let (t, id) = (&mut out.t[range.clone()], &mut out.id[range.clone()]);
    match m {
        Method::Own => sylcol_run(&p.own, p, range, t, id),
        Method::Derived => sylcol_run(&p.derived, p, range, t, id),
        Method::Bvh => sylcol_run(&p.bvh, p, range, t, id),
        #[cfg(feature = "embree")]
        Method::Embree => p.embree.intersect(&p.scene.flat[range], false, t, id),
        #[cfg(feature = "embree")]
        Method::EmbreeRobust => p
            .embree_robust
            .intersect(&p.scene.flat[range], false, t, id),
        #[cfg(feature = "embree")]
        Method::Embree8 => p.embree.intersect(&p.scene.flat[range], true, t, id),
        #[cfg(not(feature = "embree"))]
        Method::Embree | Method::EmbreeRobust | Method::Embree8 => {
            unreachable!("built without Embree")
        }
        Method::BvhBatch => {
            let mut hits = vec![None; rays.len()];
            p.bvh
                .cast_rays_into(rays, f32::INFINITY, &mut hits)
                .expect("valid rays");
            for (k, hit) in hits.into_iter().enumerate() {
                (t[k], id[k]) = answer(hit);
            }
        }
        Method::Parry => {
            for (k, r) in rays.iter().enumerate() {
                let pr = PRay::new(r.origin, r.dir);
                let hit = p.parry.cast_local_ray(&pr, f32::MAX, false);
                t[k] = hit.unwrap_or(f32::INFINITY);
                id[k] = if hit.is_some() { 0 } else { u32::MAX };
            }
        }
    }
}

/// `c.cast_ray` over the scene's rays `range`: read from its array of
/// rays, or made from its rows just before each call (`Prepared::made`).
fn sylcol_run(c: &Collider, p: &Prepared<'_>, range: Range<usize>, t: &mut [f32], id: &mut [u32]) {
    if p.made {
        for (k, r) in p.scene.flat[range].iter().enumerate() {
            let ray = Ray::new(Vec3::new(r[0], r[1], r[2]), Vec3::new(r[3], r[4], r[5]));
            let hit = c.cast_ray(&ray, f32::INFINITY).expect("valid ray");
            (t[k], id[k]) = answer(hit);
        }
        return;
    }
    for (k, r) in p.scene.rays[range].iter().enumerate() {
        let hit = c.cast_ray(r, f32::INFINITY).expect("valid ray");
        (t[k], id[k]) = answer(hit);
    }
}

/// A sylcol hit as (t, triangle).
pub fn answer(hit: Option<RayHit>) -> (f32, u32) {
    hit.map_or((f32::INFINITY, u32::MAX), |h| {
        (h.time_of_impact, h.triangle)
    })
}

/// Each later answer set's disagreements with the first, as `hit-miss/distance`
/// cells (see [`disagreements`]), `tol` the distance tolerance.
pub fn disagreement_cells(answers: &[Answers], tol: f32) -> Vec<String> {
    answers[1..]
        .iter()
        .map(|a| {
            let (hm, d) = disagreements(&answers[0], a, tol);
            format!("{hm}/{d}")
        })
        .collect()
}

/// Rays on which `b` disagrees with the reference `a`: (hit in one, miss
/// in the other), (both hit, distances apart by more than `tol`).
pub fn disagreements(a: &Answers, b: &Answers, tol: f32) -> (usize, usize) {
    let mut hit_miss = 0;
    let mut distance = 0;
    for (ta, tb) in a.t.iter().zip(&b.t) {
        match (ta.is_finite(), tb.is_finite()) {
            (true, true) if (ta - tb).abs() > tol => distance += 1,
            (x, y) if x != y => hit_miss += 1,
            _ => {}
        }
    }
    (hit_miss, distance)
}
