//! The meshes the watertightness tests run on, each through two grids and
//! through the BVH (sylcol's own acceleration for rays and segments), and
//! the rays and points they are asked about.

use std::path::Path;

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;
use sylcol::format::ipfb::Archive;
use sylcol::prelude::*;
use sylcol::query::fixtures::{map_from_mesh, uv_sphere};
use sylcol::query::{Collider, KernelPath};

use super::reference::Reference;

/// A mesh, its reference, and the colliders answering for it.
pub struct Scene {
    pub name: String,
    pub mesh: TriMesh,
    pub reference: Reference,
    /// (grid name, collider).
    pub colliders: Vec<(&'static str, Collider)>,
    /// Each collider again through every other kernel path this CPU runs
    /// (`with_kernel_path`: the portable kernels of CPUs without AVX2, and
    /// the AVX-512 ones where the CPU has them), asked every
    /// [`TWINS_EVERY`]th ray and segment for the same answer.
    pub twins: Vec<Vec<(KernelPath, Collider)>>,
}

/// The twins answer one ray (and segment) in this many.
pub const TWINS_EVERY: u64 = 4;

/// The kernel paths the suite runs (every one this CPU has) and those it
/// cannot (named in each tally, never left out in silence).
pub fn paths_note() -> String {
    let (run, not): (Vec<KernelPath>, Vec<KernelPath>) = KernelPath::ALL
        .into_iter()
        .partition(|p| KernelPath::available().contains(p));
    let names = |v: &[KernelPath]| v.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
    if not.is_empty() {
        format!(
            "kernel paths run: {}; not run (this CPU lacks them): {}",
            names(&run),
            names(&not)
        )
    } else {
        format!("kernel paths run: {}", names(&run))
    }
}

fn scene(name: String, mesh: TriMesh, first: (&'static str, Collider)) -> Scene {
    let derived = first
        .1
        .with_derived_grid(first.1.suggested_cells_per_axis())
        .expect("derived grid");
    // sylcol's own acceleration: rays and segments through the BVH.
    let bvh = first.1.clone().with_bvh();
    let colliders = vec![first, ("derived", derived), ("bvh", bvh)];
    let twins = colliders
        .iter()
        .map(|(_, c)| {
            KernelPath::available()
                .into_iter()
                .filter(|&p| p != c.kernel_path())
                .map(|p| (p, c.clone().with_kernel_path(p).expect("an available path")))
                .collect()
        })
        .collect();
    Scene {
        reference: Reference::new(&mesh),
        name,
        mesh,
        colliders,
        twins,
    }
}

/// The eleven MCOL maps of `samples/MiscBin.pak`, each through the file's
/// own grid and a derived one.
pub fn sample_maps() -> Vec<Scene> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive = Archive::open(Path::new(pak)).expect("samples/MiscBin.pak");
    let mut out = Vec::new();
    for object in archive.read_with_magic("MCOL") {
        let (info, bytes) = object.expect("sample entry");
        let m = sylcol::format::mcol::decode(&bytes).expect("sample map");
        let collider = Collider::from_mcol(&m).expect("collider");
        let name = format!("map {:08x}", info.entry.hash);
        out.push(scene(name, TriMesh::from_mcol(&m), ("file", collider)));
    }
    assert_eq!(out.len(), 11, "the sample archive holds eleven maps");
    out
}

/// UV spheres of radius 20 000 with 1 024, 4 096, 16 384 and 65 024
/// triangles (closed, wound outwards), as maps over an 8 x 8 x 8 grid of
/// 5 000-unit cells (crowded cells walk their sub-grids) and over the
/// derived grid.
pub fn spheres() -> Vec<Scene> {
    [(32, 17), (64, 33), (128, 65), (256, 128)]
        .into_iter()
        .map(|(slices, stacks)| {
            let mesh = uv_sphere(Vec3::ZERO, 20_000.0, slices, stacks);
            let map = map_from_mesh(&mesh, Vec3::splat(-20_000.0), Vec3::splat(5_000.0), [8; 3]);
            let collider = Collider::from_mcol(&map).expect("collider");
            let name = format!("sphere {}", mesh.triangles.len());
            scene(name, mesh, ("8x8x8", collider))
        })
        .collect()
}

/// A random unit vector.
pub fn unit(rng: &mut ChaCha8Rng) -> Vec3 {
    loop {
        let v = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-1.0f32..1.0)));
        if (1e-3..=1.0).contains(&v.length_squared()) {
            return v.normalize();
        }
    }
}

/// The kinds of rays asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// From anywhere in (or around) the mesh's box, any direction.
    Random,
    /// Aimed at a point of a triangle's edge.
    Edge,
    /// Aimed at a vertex.
    Vertex,
    /// Aimed at a triangle's centroid.
    Centroid,
    /// Crossing a triangle within 1e-6 (down to 1e-9) of parallel to it.
    Grazing,
}

/// Ray `i` of a scene (deterministic per index): its kind, origin and
/// direction. `bounds` is the mesh's vertex box.
pub fn ray(mesh: &TriMesh, bounds: (Vec3, Vec3), seed: u64, i: u64) -> (Kind, Vec3, Vec3) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let (lo, hi) = bounds;
    let size = hi - lo;
    let anywhere = |rng: &mut ChaCha8Rng| {
        lo - size * 0.1 + size * 1.2 * Vec3::from_array(std::array::from_fn(|_| rng.random()))
    };
    let t = rng.random_range(0..mesh.triangles.len());
    let c = mesh.corners(t);
    let kind = match i % 20 {
        0..=4 => Kind::Random,
        5..=9 => Kind::Edge,
        10..=13 => Kind::Vertex,
        14..=15 => Kind::Centroid,
        _ => Kind::Grazing,
    };
    let o = anywhere(&mut rng);
    let target = match kind {
        Kind::Random => return (kind, o, unit(&mut rng)),
        Kind::Edge => {
            let e = rng.random_range(0..3);
            c[e].lerp(c[(e + 1) % 3], rng.random())
        }
        Kind::Vertex => c[rng.random_range(0..3)],
        Kind::Centroid => (c[0] + c[1] + c[2]) / 3.0,
        Kind::Grazing => return grazing(&mut rng, &c, size.max_element()),
    };
    (kind, o, target - o)
}

/// A ray that crosses triangle `c` at a random point of it, at an angle
/// of 1e-9 to 1e-6 to its plane, from either side, from 1 % to the whole
/// of `reach` away.
fn grazing(rng: &mut ChaCha8Rng, c: &[Vec3; 3], reach: f32) -> (Kind, Vec3, Vec3) {
    let n = (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero();
    let (mut a, mut b) = (rng.random::<f32>(), rng.random::<f32>());
    if a + b > 1.0 {
        (a, b) = (1.0 - a, 1.0 - b);
    }
    let p = c[0] + (c[1] - c[0]) * a + (c[2] - c[0]) * b;
    let w = unit(rng);
    let w = (w - n * w.dot(n)).normalize_or_zero();
    let slope = 10f32.powf(rng.random_range(-9.0..-6.0)) * if rng.random() { 1.0 } else { -1.0 };
    let d = (w + n * slope).normalize_or(Vec3::X);
    let l = reach * rng.random_range(0.01f32..1.0);
    (Kind::Grazing, p - d * l, d)
}
