//! Every invariant of the CollisionSet seed, as checks with controls.
//!
//! The record walk is re-run here on the raw bytes, independently of the
//! decoder, so its figures (records walked, bytes consumed, size identity)
//! are reported even for a file the decoder refuses.

use std::collections::{BTreeMap, HashSet};

use glam::Vec3;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::orientation::{self, facing_check, outward_check, sum_facing};
#[cfg(test)]
use super::report::CheckId;
use super::report::{Check, Expect, all_ok};
use crate::orientation::Facing;
use crate::topology::{Topology, topology};

pub use super::orientation::names as orientation_names;

/// Names of the CollisionSet checks (stable: tests and scripts match on them).
pub mod names {
    use crate::verify::report::CheckId;

    /// The walk lands exactly on the end of the file.
    pub const WALK: CheckId =
        CheckId::new("cs.walk.exact", "walk consumes the file exactly (bytes)");
    /// size == 16 + name_len + 12 nv + 12 nt - 8 for every record.
    pub const SIZE: CheckId =
        CheckId::new("cs.walk.size", "size == 16 + name_len + 12 nv + 12 nt - 8");
    /// The name field is padded to a multiple of 8.
    pub const NAME_LEN: CheckId = CheckId::new("cs.walk.name_len", "name_len a multiple of 8");
    /// Meshes whose indices are all below their vertex count.
    pub const INDICES: CheckId = CheckId::new(
        "cs.mesh.indices",
        "every triangle index < vertex count (meshes)",
    );
    /// Edges shared by exactly two triangles, over all meshes.
    pub const EDGES_TWO: CheckId =
        CheckId::new("cs.mesh.edges_two", "edges shared by exactly two triangles");
    /// Meshes whose every edge is shared by two.
    pub const MANIFOLD: CheckId = CheckId::new("cs.mesh.manifold", "fully manifold meshes");
    /// Triangles with three distinct, non-collinear corners.
    pub const NONDEGENERATE: CheckId =
        CheckId::new("cs.mesh.nondegenerate", "non-degenerate triangles");
    /// Names in a known family.
    pub const FAMILIES: CheckId = CheckId::new(
        "cs.names.families",
        "names in a known family (rou_ mob_ rob_ asteroid)",
    );
    /// Ship / mob stems prefixed by a GameResourceID.
    pub const RESOURCE_IDS: CheckId = CheckId::new(
        "cs.names.resource_ids",
        "ship / mob stems prefixed by a GameResourceID",
    );
    /// Asteroid stems prefixed by a GameResourceID (must be none).
    pub const ASTEROID_IDS: CheckId = CheckId::new(
        "cs.names.asteroid_ids",
        "asteroid stems prefixed (expected none)",
    );
}

/// One mesh of the library, as the verifier needs it.
#[derive(Debug, Clone, Copy)]
pub struct MeshRef<'a> {
    /// The record's name (padding removed).
    pub name: &'a str,
    /// Vertex positions.
    pub vertices: &'a [[f32; 3]],
    /// Triangles.
    pub triangles: &'a [[u32; 3]],
}

/// Per-mesh figures.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MeshReport {
    /// The record's name.
    pub name: String,
    /// Its family (`rou`, `mob`, `rob`, `asteroid`, `other`).
    pub family: &'static str,
    /// Its topology.
    pub topology: Topology,
    /// How its closed components face.
    pub facing: Facing,
}

/// Everything `verify` found on one CollisionSet library.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CollisionSetReport {
    /// Whether every check passed.
    pub ok: bool,
    /// The seed of the randomised controls.
    pub seed: u64,
    /// Byte order the raw walk settled on (`big`, `little`, or `none`).
    pub endian: &'static str,
    /// The checks.
    pub checks: Vec<Check>,
    /// Topology summed over every mesh.
    pub topology: Topology,
    /// Meshes whose every edge is shared by two triangles.
    pub manifold_meshes: u64,
    /// How many meshes have each Euler characteristic.
    pub euler_histogram: BTreeMap<i64, u64>,
    /// How many meshes each family has.
    pub families: BTreeMap<&'static str, u64>,
    /// Every mesh with its own topology.
    pub meshes: Vec<MeshReport>,
}

/// Runs every CollisionSet check. `bytes` is the library file, `meshes`
/// its decoded records in file order, `resource_ids` the GameResourceIDs
/// to test names against (when given).
pub fn verify(
    bytes: &[u8],
    meshes: &[MeshRef],
    resource_ids: Option<&[String]>,
    seed: u64,
) -> CollisionSetReport {
    let walk = RawWalk::best(bytes);
    let mut checks = vec![
        Check::all(names::WALK, walk.consumed, bytes.len() as u64)
            .with_note(format!("{} records", walk.records)),
        Check::all(names::SIZE, walk.size_ok, walk.records),
        Check::all(names::NAME_LEN, walk.name_len_ok, walk.records),
    ];
    let reports: Vec<MeshReport> = meshes.iter().map(mesh_report).collect();
    let topo = Topology::sum(reports.iter().map(|m| &m.topology));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let control = Topology::sum(
        &meshes
            .iter()
            .map(|m| {
                let v: Vec<Vec3> = m.vertices.iter().map(|&v| Vec3::from_array(v)).collect();
                orientation::random_winding_control(&v, m.triangles, &mut rng)
            })
            .collect::<Vec<_>>(),
    );
    let facing = sum_facing(reports.iter().map(|m| &m.facing));
    let first_against = reports.iter().find_map(|m| {
        m.facing
            .first_disagreeing
            .map(|t| format!("first against: {} triangle {t}", m.name))
    });
    let clean_indices = reports
        .iter()
        .filter(|m| m.topology.out_of_range_triangles == 0)
        .count() as u64;
    let manifold = reports.iter().filter(|m| m.topology.manifold).count() as u64;
    let n = reports.len() as u64;
    checks.extend([
        Check::all(names::INDICES, clean_indices, n),
        Check::info(names::EDGES_TWO, topo.edges_shared_by_two, topo.edges),
        Check::info(names::MANIFOLD, manifold, n),
        Check::info(
            names::NONDEGENERATE,
            topo.triangles - topo.out_of_range_triangles - topo.degenerate,
            topo.triangles - topo.out_of_range_triangles,
        ),
        Check::all(
            orientation_names::SHARED_ORIENTED,
            topo.consistently_wound_edges,
            topo.edges_shared_by_two,
        )
        .with_control(
            "each triangle's winding chosen at random",
            control.consistently_wound_edges,
            control.edges_shared_by_two,
        ),
        facing_check(orientation_names::CS_FACING, &facing, first_against),
        outward_check(orientation_names::CS_OUTWARD, &facing),
    ]);
    let mut families = BTreeMap::new();
    for m in &reports {
        *families.entry(m.family).or_insert(0) += 1;
    }
    let known = n - families.get("other").copied().unwrap_or(0);
    checks.push(Check::info(names::FAMILIES, known, n));
    if let Some(ids) = resource_ids {
        checks.extend(resource_id_checks(meshes, ids, seed));
    }
    let mut euler_histogram = BTreeMap::new();
    for m in &reports {
        *euler_histogram.entry(m.topology.euler).or_insert(0) += 1;
    }
    CollisionSetReport {
        ok: all_ok(&checks),
        seed,
        endian: walk.endian,
        checks,
        topology: topo,
        manifold_meshes: manifold,
        euler_histogram,
        families,
        meshes: reports,
    }
}

/// [`verify`] over a decoded library: its records as the meshes.
pub fn verify_library(
    bytes: &[u8],
    set: &sylcol_format::collisionset::CollisionSet,
    resource_ids: Option<&[String]>,
    seed: u64,
) -> CollisionSetReport {
    let names: Vec<String> = set.records.iter().map(|r| r.name()).collect();
    let meshes: Vec<MeshRef> = set
        .records
        .iter()
        .zip(&names)
        .map(|(r, name)| MeshRef {
            name,
            vertices: &r.vertices,
            triangles: &r.triangles,
        })
        .collect();
    verify(bytes, &meshes, resource_ids, seed)
}

fn mesh_report(m: &MeshRef) -> MeshReport {
    let vertices: Vec<Vec3> = m.vertices.iter().map(|&v| Vec3::from_array(v)).collect();
    MeshReport {
        name: m.name.to_string(),
        family: family(m.name),
        topology: topology(&vertices, m.triangles),
        facing: orientation::facing_of(&vertices, m.triangles),
    }
}

/// The family a record name belongs to, from the seed's table.
pub fn family(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    for f in ["rou", "mob", "rob"] {
        if lower.starts_with(f) && lower.as_bytes().get(3) == Some(&b'_') {
            return f;
        }
    }
    if lower.contains("asteroid") {
        "asteroid"
    } else {
        "other"
    }
}

/// A name's resource stem: the name up to `_cmesh`, lower-cased.
pub fn stem(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.find("_cmesh") {
        Some(i) => lower[..i].to_string(),
        None => lower,
    }
}

/// Whether `stem` is a resource id, or one followed by `_part`.
fn prefixed(stem: &str, ids: &HashSet<String>) -> bool {
    ids.contains(stem)
        || stem
            .match_indices('_')
            .any(|(i, _)| ids.contains(&stem[..i]))
}

fn resource_id_checks(meshes: &[MeshRef], ids: &[String], seed: u64) -> Vec<Check> {
    let ids: HashSet<String> = ids
        .iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut ships, mut hits, mut exact, mut shuffled) = (0u64, 0u64, 0u64, 0u64);
    let (mut asteroids, mut asteroid_hits) = (0u64, 0u64);
    for m in meshes {
        let s = stem(m.name);
        match family(m.name) {
            "rou" | "mob" | "rob" => {
                ships += 1;
                hits += u64::from(prefixed(&s, &ids));
                exact += u64::from(ids.contains(&s));
                let mut chars: Vec<char> = s.chars().collect();
                chars.shuffle(&mut rng);
                shuffled += u64::from(prefixed(&chars.into_iter().collect::<String>(), &ids));
            }
            "asteroid" => {
                asteroids += 1;
                asteroid_hits += u64::from(prefixed(&s, &ids));
            }
            _ => {}
        }
    }
    vec![
        Check::info(names::RESOURCE_IDS, hits, ships)
            .with_control("same stems, characters shuffled", shuffled, ships)
            .with_note(format!("{exact} exact, {} ids", ids.len())),
        Check::new(names::ASTEROID_IDS, asteroid_hits, asteroids, Expect::None),
    ]
}

/// The seed's record walk on raw bytes, in one byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RawWalk {
    endian: &'static str,
    records: u64,
    consumed: u64,
    size_ok: u64,
    name_len_ok: u64,
}

impl RawWalk {
    /// The walk in whichever byte order goes further (big on a tie).
    fn best(bytes: &[u8]) -> RawWalk {
        let big = RawWalk::run(bytes, "big", u32::from_be_bytes);
        let little = RawWalk::run(bytes, "little", u32::from_le_bytes);
        let score = |w: &RawWalk| (w.consumed == bytes.len() as u64, w.size_ok, w.consumed);
        let best = if score(&little) > score(&big) {
            little
        } else {
            big
        };
        if best.records == 0 {
            RawWalk {
                endian: "none",
                ..best
            }
        } else {
            best
        }
    }

    /// Follows `offset += 8 + size` while each record's counts fit the bytes.
    fn run(bytes: &[u8], endian: &'static str, word: fn([u8; 4]) -> u32) -> RawWalk {
        let len = bytes.len() as u64;
        let at = |o: u64| -> Option<u64> {
            let o = usize::try_from(o).ok()?;
            let b = bytes.get(o..o.checked_add(4)?)?;
            Some(word([b[0], b[1], b[2], b[3]]) as u64)
        };
        let mut w = RawWalk {
            endian,
            records: 0,
            consumed: 0,
            size_ok: 0,
            name_len_ok: 0,
        };
        let mut o = 0u64;
        while o < len {
            let (Some(size), Some(name_len)) = (at(o), at(o + 4)) else {
                break;
            };
            let (Some(nv), Some(nt)) = (at(o + 8 + name_len), at(o + 12 + name_len)) else {
                break;
            };
            let next = o + 8 + size;
            if next > len || size < 8 + name_len {
                break;
            }
            w.records += 1;
            w.size_ok += u64::from(size == 8 + name_len + 12 * nv + 12 * nt);
            w.name_len_ok += u64::from(name_len % 8 == 0);
            o = next;
        }
        w.consumed = o.min(len);
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, v: &[[f32; 3]], t: &[[u32; 3]], big: bool) -> Vec<u8> {
        let w = |x: u32| {
            if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            }
        };
        let name_len = name.len().div_ceil(8) * 8;
        let size = 8 + name_len + 12 * v.len() + 12 * t.len();
        let mut out = Vec::new();
        out.extend(w(size as u32));
        out.extend(w(name_len as u32));
        let mut field = name.as_bytes().to_vec();
        field.resize(name_len, 0);
        out.extend(field);
        out.extend(w(v.len() as u32));
        out.extend(w(t.len() as u32));
        v.iter().flatten().for_each(|f| out.extend(w(f.to_bits())));
        t.iter().flatten().for_each(|&i| out.extend(w(i)));
        out
    }

    #[test]
    fn walk_both_orders() {
        let v = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let t = [[0, 1, 2]];
        for big in [true, false] {
            let mut bytes = record("rou_e010_cmesh", &v, &t, big);
            bytes.extend(record("S01_Asteroid_cmesh_01a", &v, &t, big));
            let w = RawWalk::best(&bytes);
            assert_eq!(w.endian, if big { "big" } else { "little" });
            assert_eq!(
                (w.records, w.size_ok, w.consumed),
                (2, 2, bytes.len() as u64)
            );
            bytes.push(0);
            assert_ne!(RawWalk::best(&bytes).consumed, bytes.len() as u64);
        }
    }

    #[test]
    fn stems_families_prefixes() {
        assert_eq!(stem("rou_e101_bdy_cmesh"), "rou_e101_bdy");
        assert_eq!(stem("S01_Asteroid_cmesh_01a"), "s01_asteroid");
        assert_eq!(family("mob_n040_cmesh"), "mob");
        assert_eq!(family("S14_p1_Asteroid_cmesh_05"), "asteroid");
        assert_eq!(family("robot"), "other");
        let ids: HashSet<String> = ["rou_e101".to_string()].into();
        assert!(prefixed("rou_e101_bdy", &ids));
        assert!(prefixed("rou_e101", &ids));
        assert!(!prefixed("rou_e1010", &ids));
    }

    /// A named mesh: name, vertices, triangles.
    type Named = (&'static str, Vec<[f32; 3]>, Vec<[u32; 3]>);

    /// A closed tetrahedron and an open single triangle.
    fn meshes() -> Vec<Named> {
        let tet_v = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let tet_t = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
        let tri_v = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        vec![
            ("rou_e010_cmesh", tet_v.clone(), tet_t.clone()),
            ("mob_n040_bdy_cmesh", tet_v.clone(), tet_t.clone()),
            ("rou_f302_cmesh", tet_v, tet_t),
            ("S01_Asteroid_cmesh_01a", tri_v, vec![[0, 1, 2]]),
        ]
    }

    fn library(ms: &[Named]) -> Vec<u8> {
        ms.iter()
            .flat_map(|(n, v, t)| record(n, v, t, true))
            .collect()
    }

    fn refs(ms: &[Named]) -> Vec<MeshRef<'_>> {
        ms.iter()
            .map(|(n, v, t)| MeshRef {
                name: n,
                vertices: v,
                triangles: t,
            })
            .collect()
    }

    fn failing(r: &CollisionSetReport) -> Vec<CheckId> {
        r.checks
            .iter()
            .filter(|c| !c.ok)
            .map(Check::check_id)
            .collect()
    }

    #[test]
    fn valid_library_passes_with_figures() {
        let ms = meshes();
        let bytes = library(&ms);
        let ids = vec!["rou_e010".to_string(), "mob_n040".to_string()];
        let r = verify(&bytes, &refs(&ms), Some(&ids), 1);
        assert!(r.ok, "{:?}", failing(&r));
        assert_eq!(r.manifold_meshes, 3);
        assert_eq!(r.euler_histogram.get(&2), Some(&3));
        assert_eq!(r.euler_histogram.get(&1), Some(&1));
        assert_eq!(r.families.get("rou"), Some(&2));
        assert_eq!(r.families.get("asteroid"), Some(&1));
        let ids_check = r
            .checks
            .iter()
            .find(|c| c.id == names::RESOURCE_IDS.id)
            .unwrap();
        assert_eq!((ids_check.passed, ids_check.total), (2, 3));
        let ctrl = ids_check.control.as_ref().unwrap();
        assert_eq!(ctrl.total, 3);
        assert!(ctrl.passed < 2);
        let edges = r
            .checks
            .iter()
            .find(|c| c.id == names::EDGES_TWO.id)
            .unwrap();
        assert_eq!((edges.passed, edges.total), (18, 21));
    }

    #[test]
    fn planted_defects_fail_their_checks() {
        let mut ms = meshes();
        ms[1].2[0][1] = 9;
        let bytes = library(&ms);
        let r = verify(&bytes, &refs(&ms), None, 1);
        assert_eq!(failing(&r), vec![names::INDICES]);

        let ms = meshes();
        let mut bytes = library(&ms);
        bytes[3] += 4; // first size word: the walk loses step
        let r = verify(&bytes, &refs(&ms), None, 1);
        let f = failing(&r);
        assert!(
            f.contains(&names::WALK) && f.contains(&names::SIZE),
            "{f:?}"
        );

        let ids = vec!["s01".to_string()];
        let r = verify(&library(&ms), &refs(&ms), Some(&ids), 1);
        assert_eq!(failing(&r), vec![names::ASTEROID_IDS]);

        // A part with one face turned over, and a part whose second
        // tetrahedron is inside out.
        let mut ms = meshes();
        ms[0].2[1].swap(1, 2);
        let r = verify(&library(&ms), &refs(&ms), None, 1);
        assert_eq!(failing(&r), vec![orientation_names::SHARED_ORIENTED]);
        let mut ms = meshes();
        let far: Vec<[f32; 3]> = ms[1].1.iter().map(|v| v.map(|c| c + 5.0)).collect();
        ms[1].1.extend(far);
        let turned: Vec<[u32; 3]> = ms[1]
            .2
            .iter()
            .map(|t| [t[0] + 4, t[2] + 4, t[1] + 4])
            .collect();
        ms[1].2.extend(turned);
        let r = verify(&library(&ms), &refs(&ms), None, 1);
        assert_eq!(failing(&r), vec![orientation_names::CS_FACING]);
        let c = r
            .checks
            .iter()
            .find(|c| c.check_id() == orientation_names::CS_FACING)
            .unwrap();
        assert_eq!(
            c.note.as_deref(),
            Some("first against: mob_n040_bdy_cmesh triangle 4")
        );
    }
}
