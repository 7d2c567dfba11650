//! The benchmark's scenes and rays.
//!
//! Scenes: the eleven MCOL maps of `samples/MiscBin.pak` (through their own
//! grids as stored), and closed UV spheres of radius 1 with 1 024, 4 096,
//! 16 384 and 65 024 triangles, each built into an MCOL by
//! `sylcol::build::mcol::build_mcol` with its default grid (what
//! `sylcol build mcol` writes without `--cell`).
//!
//! Rays (issue 11), seed [`RAY_SEED`]: origins uniform in the map's box
//! (the header's grid box); two rays in three aimed at the centroid of a
//! uniformly chosen triangle, one in three in a uniform direction; unit
//! directions ([`RaySet::Issue`]). [`RaySet::Away`] keeps each direction
//! and moves the origin out of the box, two diagonals from its centre
//! along the direction, so that every ray misses the box: what a method
//! pays a query before it reaches any triangle (checks, set-up, box
//! test, finish).

use std::path::Path;

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::format::ipfb::Archive;
use sylcol::format::mcol::{self, Mcol};
use sylcol::prelude::*;
use sylcol::query::Ray;
use sylcol::query::fixtures::uv_sphere;

/// The seed of every scene's rays.
pub const RAY_SEED: u64 = 11;

/// The sphere scenes: name, slices, stacks (2 slices (stacks - 1)
/// triangles).
pub const SPHERES: [(&str, u32, u32); 4] = [
    ("sphere 1k", 32, 17),
    ("sphere 4k", 64, 33),
    ("sphere 16k", 128, 65),
    ("sphere 65k", 256, 128),
];

/// Which rays a scene gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaySet {
    /// The issue's rays (see the module docs).
    Issue,
    /// The issue's directions from origins outside the box, pointing away
    /// from it: every ray misses.
    Away,
}

/// One scene: a map, its mesh and its rays.
pub struct Scene {
    /// `map xxxxxxxx` (sample archive hash) or `sphere Nk`.
    pub name: String,
    /// The MCOL (the sample's own, or the one `build_mcol` writes).
    pub mcol: Mcol,
    /// Its mesh.
    pub mesh: TriMesh,
    /// The rays.
    pub rays: Vec<Ray>,
    /// The same rays as six f32 (origin, direction), for Embree.
    #[cfg_attr(not(feature = "embree"), allow(dead_code))]
    pub flat: Vec<[f32; 6]>,
}

impl Scene {
    fn new(name: String, mcol: Mcol, rays: usize, set: RaySet) -> Self {
        let mesh = TriMesh::from_mcol(&mcol);
        let mut rays = scene_rays(&mcol, &mesh, rays);
        if set == RaySet::Away {
            move_away(&mcol, &mut rays);
        }
        let flat = rays
            .iter()
            .map(|r| {
                let (o, d) = (r.origin, r.dir);
                [o.x, o.y, o.z, d.x, d.y, d.z]
            })
            .collect();
        Scene {
            name,
            mcol,
            mesh,
            rays,
            flat,
        }
    }

    /// The length of the grid box's diagonal.
    pub fn diagonal(&self) -> f32 {
        let (lo, hi) = grid_box(&self.mcol);
        (hi - lo).length()
    }
}

/// Every scene whose name contains `filter` (all without one), maps first,
/// each with `rays` rays of `set`.
pub fn load(filter: Option<&str>, rays: usize, set: RaySet) -> Vec<Scene> {
    let keep = |name: &str| filter.is_none_or(|f| name.contains(f));
    let mut scenes = Vec::new();
    for (name, m) in sample_maps() {
        if keep(&name) {
            scenes.push(Scene::new(name, m, rays, set));
        }
    }
    for (name, slices, stacks) in SPHERES {
        if keep(name) {
            let mesh = uv_sphere(Vec3::ZERO, 1.0, slices, stacks);
            let m = build_mcol(&mesh, &McolBuildOptions::default()).expect("sphere builds");
            scenes.push(Scene::new(name.to_string(), m, rays, set));
        }
    }
    scenes
}

/// The sample archive's MCOL maps, named `map xxxxxxxx`, in entry order.
pub fn sample_maps() -> Vec<(String, Mcol)> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive = Archive::open(Path::new(pak)).expect("samples/MiscBin.pak");
    archive
        .read_with_magic("MCOL")
        .map(|object| {
            let (info, bytes) = object.expect("sample entry");
            let m = mcol::decode(&bytes).expect("sample map decodes");
            (format!("map {:08x}", info.entry.hash), m)
        })
        .collect()
}

/// The header's grid box.
pub fn grid_box(m: &Mcol) -> (Vec3, Vec3) {
    let h = &m.header;
    (
        Vec3::from_array(h.prefix.bbox_min),
        Vec3::from_array(h.prefix.bbox_max),
    )
}

/// The issue's rays over `m`'s box (see the module docs).
pub fn scene_rays(m: &Mcol, mesh: &TriMesh, n: usize) -> Vec<Ray> {
    let (lo, hi) = grid_box(m);
    let centroids: Vec<Vec3> = (0..mesh.triangles.len())
        .map(|t| mesh.corners(t).iter().sum::<Vec3>() / 3.0)
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(RAY_SEED);
    let mut rays = Vec::with_capacity(n);
    while rays.len() < n {
        let t = Vec3::from_array(std::array::from_fn(|_| rng.random::<f32>()));
        let o = lo + (hi - lo) * t;
        let dir = if rays.len() % 3 == 2 {
            unit(&mut rng)
        } else {
            let c = centroids[rng.random_range(0..centroids.len())];
            (c - o).normalize_or_zero()
        };
        if dir != Vec3::ZERO {
            rays.push(Ray::new(o, dir));
        }
    }
    rays
}

/// Moves every ray's origin to the box's centre plus two diagonals along
/// its direction, so that it starts outside the box and leaves it.
fn move_away(m: &Mcol, rays: &mut [Ray]) {
    let (lo, hi) = grid_box(m);
    let (centre, reach) = ((lo + hi) * 0.5, 2.0 * (hi - lo).length());
    for r in rays {
        *r = Ray::new(centre + r.dir * reach, r.dir);
    }
}

/// A uniform unit vector.
fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0f32..1.0)));
        if (1e-3..=1.0).contains(&v.length_squared()) {
            return v.normalize();
        }
    }
}
