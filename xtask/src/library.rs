//! The synthetic CollisionSet: 158 meshes with the seed's totals.
//!
//! The seed fixes 48 241 vertices, 90 836 triangles, 1 675 148 bytes and the
//! edge line: 132 167 of 134 529 edges shared by exactly two triangles. With
//! the name budget met by [`crate::names`], the bytes follow from the two
//! totals. 92 parts are single closed meshes (the seed's chi = 2 count), 55
//! closed multi-component meshes (chi 4, 6, 8): a closed mesh of k genus-0
//! components has 2V - F = 4k, so their vertex counts fix their triangles.
//! The 11 parts the seed finds not fully manifold (wings, engines, shields)
//! are built by [`crate::nonmanifold`] to carry the edges the seed does not
//! share by two, and take 7 707 of the vertices; the closed parts share the
//! rest.

use glam::{DQuat, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;

use crate::names::{NamedMesh, all};
use crate::nonmanifold::{self, Design};
use crate::shapes::{
    append, cylinder, diagonal, distribute, hull, lathe, lumpy, place, random_rotation,
    rounded_box, sphere_rings,
};

/// The seed's totals.
pub const RECORDS: usize = 158;
/// Vertices over every record.
pub const VERTICES: usize = 48_241;
/// Triangles over every record.
pub const TRIANGLES: usize = 90_836;
/// Size of the library in bytes.
pub const BYTES: u64 = 1_675_148;

/// The seed's stated bounding-box diagonals (read there as metres).
const DIAGONALS: &[(&str, f64)] = &[
    ("rou_e010_cmesh", 133.0),
    ("rou_e106_bdy_cmesh", 2_368.0),
    ("rou_e101_bdy_cmesh", 9_371.0),
    ("rob_f001_bdy_cmesh", 50_179.0),
    ("S04_Asteroid_cmesh_04", 84_714.0),
    ("rob_f002_cmesh", 447_522.0),
];

/// What a record's mesh depicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole craft (bare resource id), or a body part.
    Hull,
    /// `brg`: a bridge block on top of the hull.
    Bridge,
    /// `eng`: engine cylinders at the stern (or an open nozzle).
    Engine,
    /// `wep`: long barrels.
    Weapon,
    /// `sld`: a shield dome over the bow.
    Shield,
    /// `wing`: a thin open wing skin.
    Wing,
    /// `gear`: landing-gear legs.
    Gear,
    /// `turret`: a turret block.
    Turret,
    /// A stage asteroid (or a cluster of fragments).
    Asteroid,
}

/// The surface type of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topology {
    /// `components` closed genus-0 pieces.
    Closed {
        /// Number of pieces.
        components: usize,
    },
    /// One of the eleven parts that are not fully manifold.
    NonManifold(Design),
}

/// One record's plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Name and owner.
    pub named: NamedMesh,
    /// What it depicts.
    pub kind: Kind,
    /// Its surface type.
    pub topology: Topology,
    /// Its exact vertex count.
    pub vertices: usize,
}

/// FNV-1a, for stable per-name seeds and choices.
pub fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn kind_of(n: &NamedMesh) -> Kind {
    if n.asteroid {
        return Kind::Asteroid;
    }
    match n.part.split('_').next().unwrap_or("") {
        "" | "bdy" | "body" => Kind::Hull,
        "brg" => Kind::Bridge,
        "eng" => Kind::Engine,
        "wep" => Kind::Weapon,
        "sld" => Kind::Shield,
        "wing" => Kind::Wing,
        "gear" => Kind::Gear,
        _ => Kind::Turret,
    }
}

/// The eleven parts that are not fully manifold.
const NON_MANIFOLD: &[&str] = &[
    "rou_e901_wing_01_L_cmesh",
    "rou_e901_wing_01_R_cmesh",
    "rou_e901_wing_02_L_cmesh",
    "rou_e901_wing_02_R_cmesh",
    "rou_e101_eng_01_cmesh",
    "rou_e101_eng_02_cmesh",
    "rou_e106_eng_cmesh",
    "rou_f104_eng_cmesh",
    "rou_e101_sld_01_cmesh",
    "rou_f104_sld_01_cmesh",
    "rou_f104_sld_02_cmesh",
];

/// Multi-component counts: weapons are twin barrels, engines pairs, gear
/// and turrets several blocks; 26 whole craft carry engine pods and 10
/// asteroids are clusters (chosen by name hash).
fn components(n: &NamedMesh, kind: Kind, pods: &[String], clusters: &[String]) -> usize {
    let h = fnv(&n.name);
    match kind {
        Kind::Weapon | Kind::Turret => 2,
        Kind::Gear => 2 + (h % 2) as usize,
        Kind::Engine if !NON_MANIFOLD.contains(&n.name.as_str()) => 2,
        Kind::Hull if pods.contains(&n.name) => 2 + (h % 3) as usize,
        Kind::Asteroid if clusters.contains(&n.name) => 2 + (h % 3) as usize,
        _ => 1,
    }
}

/// The `count` names of `names` that come first by hash.
fn pick(names: &[&NamedMesh], count: usize) -> Vec<String> {
    let mut v: Vec<&&NamedMesh> = names.iter().collect();
    v.sort_by_key(|n| fnv(&n.name));
    v.into_iter().take(count).map(|n| n.name.clone()).collect()
}

/// Plans all 158 records so the totals come out exactly.
pub fn plan() -> Vec<Plan> {
    let names = all();
    let bare: Vec<&NamedMesh> = names
        .iter()
        .filter(|n| !n.asteroid && n.part.is_empty())
        .collect();
    let rocks: Vec<&NamedMesh> = names.iter().filter(|n| n.asteroid).collect();
    let pods = pick(&bare, 26);
    let clusters = pick(&rocks, 10);
    let mut plans: Vec<Plan> = names
        .into_iter()
        .map(|named| {
            let kind = kind_of(&named);
            let components = components(&named, kind, &pods, &clusters);
            Plan {
                named,
                kind,
                topology: Topology::Closed { components },
                vertices: 0,
            }
        })
        .collect();
    let closed_euler: usize = plans
        .iter()
        .filter(|p| !NON_MANIFOLD.contains(&p.named.name.as_str()))
        .map(|p| match p.topology {
            Topology::Closed { components } => 2 * components,
            Topology::NonManifold(_) => 0,
        })
        .sum();
    let mut share = 0;
    for (name, design) in nonmanifold::designs(closed_euler as i64) {
        let p = plans
            .iter_mut()
            .find(|p| p.named.name == name)
            .expect("a non-manifold part's name");
        p.vertices = design.vertices();
        p.topology = Topology::NonManifold(design);
        share += p.vertices;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0x05EE_DC01_15E7);
    let closed: Vec<usize> = (0..plans.len())
        .filter(|&i| matches!(plans[i].topology, Topology::Closed { .. }))
        .collect();
    let weights: Vec<f64> = closed
        .iter()
        .map(|&i| weight(plans[i].kind) * rng.random_range(0.6..1.4))
        .collect();
    let budget = VERTICES - share;
    let min_per = 6 * 4;
    let counts = distribute(budget, &weights, min_per);
    for (&i, v) in closed.iter().zip(counts) {
        plans[i].vertices = v;
    }
    plans
}

fn weight(kind: Kind) -> f64 {
    match kind {
        Kind::Asteroid => 2.2,
        Kind::Hull => 1.4,
        Kind::Shield => 0.8,
        Kind::Engine => 0.6,
        Kind::Bridge | Kind::Gear => 0.5,
        Kind::Weapon | Kind::Turret => 0.4,
        Kind::Wing => 1.0,
    }
}

/// Triangles a plan's mesh will have.
pub fn triangles(p: &Plan) -> usize {
    match &p.topology {
        Topology::Closed { components } => 2 * p.vertices - 4 * components,
        Topology::NonManifold(d) => d.triangles(),
    }
}

/// Builds the mesh of `plan` in resource units (length about 1 along z,
/// y up); the caller scales it.
fn unit_mesh(p: &Plan) -> TriMesh {
    let mut rng = ChaCha8Rng::seed_from_u64(fnv(&p.named.name));
    let k = match &p.topology {
        Topology::Closed { components } => *components,
        Topology::NonManifold(design) => return nonmanifold::build(design, p.named.part),
    };
    let mut shares = vec![1.0; k];
    shares[0] = if p.kind == Kind::Asteroid || p.kind == Kind::Hull {
        4.0
    } else {
        1.0
    };
    let sizes = distribute(p.vertices, &shares, 6);
    let mut mesh = TriMesh::default();
    for (i, &v) in sizes.iter().enumerate() {
        append(&mut mesh, &piece(&mut rng, p, i, v));
    }
    mesh
}

/// Piece `i` of a closed mesh, placed in the resource frame.
fn piece(rng: &mut ChaCha8Rng, p: &Plan, i: usize, v: usize) -> TriMesh {
    let side = if i.is_multiple_of(2) { 1.0 } else { -1.0 };
    let row = (i / 2) as f64;
    let (shape, stretch, scale, at): (Box<dyn Fn(DVec3) -> f64>, f64, DVec3, DVec3) =
        match (p.kind, i) {
            (Kind::Hull, 0) => (
                Box::new(hull(0.6)),
                1.5,
                DVec3::new(0.16, 0.1, 0.5),
                DVec3::ZERO,
            ),
            (Kind::Hull, _) => (
                Box::new(cylinder(2.0)),
                2.0,
                DVec3::splat(0.06),
                if i > 2 {
                    DVec3::new(0.0, 0.14, -0.3)
                } else {
                    DVec3::new(0.25 * side, 0.0, -0.3)
                },
            ),
            (Kind::Bridge, _) => (
                Box::new(rounded_box(DVec3::new(0.07, 0.05, 0.1), 0.3)),
                1.0,
                DVec3::ONE,
                DVec3::new(0.0, 0.13, 0.15),
            ),
            (Kind::Engine, _) => (
                Box::new(cylinder(2.0)),
                2.0,
                DVec3::splat(0.05),
                DVec3::new(0.1 * side, 0.0, -0.5),
            ),
            (Kind::Weapon, _) | (Kind::Turret, 1) => (
                Box::new(cylinder(8.0)),
                3.0,
                DVec3::splat(0.012),
                DVec3::new(
                    0.12 * side,
                    0.02 + 0.1 * (p.kind == Kind::Turret) as u8 as f64,
                    0.35,
                ),
            ),
            (Kind::Turret, _) => (
                Box::new(rounded_box(DVec3::new(0.05, 0.03, 0.05), 0.4)),
                1.0,
                DVec3::ONE,
                DVec3::new(0.0, 0.12, 0.2),
            ),
            (Kind::Shield, _) => (
                Box::new(|_| 1.0),
                1.0,
                DVec3::new(0.3, 0.2, 0.25),
                DVec3::new(0.0, 0.0, 0.35),
            ),
            (Kind::Gear, _) => (
                Box::new(rounded_box(DVec3::new(0.015, 0.06, 0.015), 0.2)),
                1.0,
                DVec3::ONE,
                DVec3::new(0.1 * side, -0.12, 0.2 - 0.2 * row),
            ),
            (Kind::Asteroid, _) | (Kind::Wing, _) => {
                let rock = lumpy(rng, 0.5);
                let squash =
                    DVec3::new(1.0, rng.random_range(0.6..1.0), rng.random_range(0.45..0.9));
                let (size, at) = if i == 0 {
                    (1.0, DVec3::ZERO)
                } else {
                    let dir = crate::shapes::random_direction(rng);
                    (
                        rng.random_range(0.15..0.35),
                        dir * rng.random_range(1.5..2.2),
                    )
                };
                let mut m = lathe(&sphere_rings(v, 1.0), &rock);
                place(&mut m, squash * size, random_rotation(rng), at);
                return m;
            }
        };
    let mut m = lathe(&sphere_rings(v, stretch), &*shape);
    place(&mut m, scale, DQuat::IDENTITY, at);
    m
}

/// The length of resource `owner`, from the seed's diagonal when one of its
/// meshes has one, else drawn by its class (fighters small, capital ships
/// and robots large, asteroids tens of kilometres).
fn resource_length(plans: &[Plan], owner: &str) -> f64 {
    for &(name, diag) in DIAGONALS {
        if let Some(p) = plans
            .iter()
            .find(|p| p.named.name == name && p.named.owner == owner)
        {
            return diag / diagonal(&unit_mesh(p));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(fnv(owner) ^ 0x1E57);
    let class = owner.get(..6).unwrap_or(owner);
    let (lo, hi) = match class {
        "rou_e0" | "rou_f0" => (60.0, 300.0),
        "rou_e1" | "rou_f1" => (1_500.0, 9_000.0),
        "rou_e9" => (4_000.0, 8_000.0),
        _ if owner.starts_with("mob_") => (20.0, 1_500.0),
        _ if owner.starts_with("rob_") => (10_000.0, 60_000.0),
        _ if owner.starts_with('S') => (4_000.0, 60_000.0),
        _ => (300.0, 2_500.0),
    };
    rng.random_range(lo..hi)
}

/// Generates every record, in file order.
pub fn generate() -> Vec<(String, TriMesh)> {
    let plans = plan();
    plans
        .iter()
        .map(|p| {
            let mut mesh = unit_mesh(p);
            assert_eq!(
                (mesh.vertices.len(), mesh.triangles.len()),
                (p.vertices, triangles(p)),
                "{}: the mesh does not have its planned counts",
                p.named.name
            );
            let length = resource_length(&plans, p.named.owner);
            place(
                &mut mesh,
                DVec3::splat(length),
                DQuat::IDENTITY,
                DVec3::ZERO,
            );
            (p.named.name.clone(), mesh)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nonmanifold::count_edges;
    use crate::shapes::tests::topology;

    #[test]
    fn library_meets_the_seed_totals_and_topology() {
        let plans = plan();
        assert_eq!(plans.len(), RECORDS);
        assert_eq!(plans.iter().map(|p| p.vertices).sum::<usize>(), VERTICES);
        assert_eq!(plans.iter().map(triangles).sum::<usize>(), TRIANGLES);
        let meshes = generate();
        let (mut single, mut multi, mut other) = (0, 0, 0);
        let (mut edges, mut shared_by_two, mut sides, mut euler) = (0, 0, 0, 0);
        for ((name, mesh), p) in meshes.iter().zip(&plans) {
            assert_eq!(mesh.vertices.len(), p.vertices, "{name}");
            assert_eq!(mesh.triangles.len(), triangles(p), "{name}");
            assert!(mesh.vertices.iter().all(|v| v.is_finite()), "{name}");
            let (chi, closed, oriented) = topology(mesh);
            let (counts, five_or_more) = count_edges(mesh);
            assert_eq!(five_or_more, 0, "{name}");
            match (&p.topology, closed, chi) {
                (Topology::Closed { .. }, true, 2) if oriented => single += 1,
                (Topology::Closed { .. }, true, 4 | 6 | 8) if oriented => multi += 1,
                (Topology::NonManifold(d), false, _) => {
                    assert_eq!(counts, d.edges(), "{name}");
                    assert_eq!(chi, d.euler(), "{name}");
                    other += 1;
                }
                _ => panic!("{name}: chi {chi}, closed {closed}, oriented {oriented}"),
            }
            edges += counts.total();
            shared_by_two += counts.twice;
            sides += 3 * mesh.triangles.len();
            euler += chi;
        }
        assert_eq!((single, multi, other), (92, 55, 11));
        // The seed's edge line, and what follows from it.
        assert_eq!((shared_by_two, edges), (132_167, 134_529));
        assert_eq!(sides - 2 * shared_by_two, 8_174);
        assert_eq!(euler, 4_548);
        let diag = |n: &str| diagonal(&meshes.iter().find(|m| m.0 == n).unwrap().1);
        for &(name, want) in DIAGONALS {
            assert!(
                (diag(name) - want).abs() < want * 1e-5,
                "{name}: {}",
                diag(name)
            );
        }
    }
}
