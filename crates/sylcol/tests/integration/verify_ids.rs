//! Every check `verify` reports has a unique, well-formed id, and
//! `docs/verify.md` lists each one.

use sylcol::format::collisionset::{self, CollisionSet, Endian, Record};
use sylcol::format::mcol;
use sylcol::verify::testmaps::sphere_map;
use sylcol::verify::{Check, collisionset as cs, mcol as vm};

fn mcol_checks() -> Vec<Check> {
    let bytes = mcol::encode(&sphere_map(1, 0.0)).unwrap();
    let decoded = mcol::decode(&bytes).unwrap();
    vm::verify(&decoded, Some(&bytes), 3).checks
}

fn library_checks() -> Vec<Check> {
    let tri = |name: &str| {
        Record::new(
            name,
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![[0, 1, 2]],
        )
        .unwrap()
    };
    let set = CollisionSet {
        endian: Endian::Big,
        records: vec![tri("rou_e101_bdy_cmesh"), tri("asteroid01_cmesh")],
    };
    let bytes = collisionset::encode(&set).unwrap();
    let names: Vec<String> = set.records.iter().map(|r| r.name()).collect();
    let meshes: Vec<cs::MeshRef> = set
        .records
        .iter()
        .zip(&names)
        .map(|(r, name)| cs::MeshRef {
            name,
            vertices: &r.vertices,
            triangles: &r.triangles,
        })
        .collect();
    cs::verify(&bytes, &meshes, Some(&["rou_e101".to_string()]), 3).checks
}

#[test]
fn ids_are_unique_well_formed_and_documented() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/verify.md"))
            .unwrap();
    for (prefix, checks) in [("mcol.", mcol_checks()), ("cs.", library_checks())] {
        let mut ids: Vec<&str> = checks.iter().map(|c| c.id).collect();
        assert!(ids.len() >= 10, "{ids:?}");
        for id in &ids {
            assert!(id.starts_with(prefix) && id.split('.').count() == 3, "{id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b == b'.'
                    || b == b'_'),
                "{id}"
            );
            assert!(
                docs.contains(&format!("`{id}`")),
                "{id} is not listed in docs/verify.md"
            );
        }
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "a repeated id");
    }
}
