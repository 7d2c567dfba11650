//! The real `sylcol verify` binary: tables, JSON contract, seeds, exit codes.

use crate::common::{fixture, sylcol};
use serde_json::Value;
use sylcol::format::mcol::encode;
use sylcol::verify::mcol::{geometry_names, names};
use sylcol::verify::testmaps::{drop_list_entry, sphere_map};

/// Runs verify with `--json`, returning (exit code, parsed output).
fn verify_json(args: &[&str]) -> (i32, Value) {
    let out = sylcol()
        .arg("verify")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), json)
}

fn failing(object: &Value) -> Vec<String> {
    object["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn valid_files_pass_with_tables_and_the_seed_printed() {
    let out = sylcol()
        .args([
            "verify",
            "--verbose",
            &fixture("box.mcol"),
            &fixture("twin.mcol"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("controls seeded with "), "{text}");
    assert!(text.contains("sphere i encloses triangle i"));
    assert!(text.contains("12 / 12 = 100.00 %"));
    assert!(text.contains("control (sphere i encloses a random other triangle)"));
    assert!(text.contains("2 object(s) verified: 2 ok, 0 failed"));
    assert!(!text.contains("FAIL "));
}

#[test]
fn json_has_the_contract_keys_and_the_seed_figures() {
    let (code, j) = verify_json(&[&fixture("box.mcol")]);
    assert_eq!(code, 0);
    assert_eq!(j["ok"], true);
    let o = &j["objects"][0];
    assert_eq!(o["format"], "MCOL");
    assert_eq!(o["ok"], true);
    assert!(o["path"].as_str().unwrap().ends_with("box.mcol"));
    for c in o["checks"].as_array().unwrap() {
        for k in ["name", "passed", "total", "control", "ok"] {
            assert!(c.get(k).is_some(), "{k} missing in {c}");
        }
    }
    let t = &o["topology"];
    assert_eq!(t["edges"], 18);
    assert_eq!(t["edges_shared_by_two"], 18);
    assert_eq!(t["manifold"], true);
    assert_eq!(t["euler"], 2);
    assert_eq!(t["components"], 1);
    assert_eq!(t["degenerate"], 0);
    assert_eq!(t["unreferenced_vertices"], 0);
    let b = &o["broadphase"];
    assert_eq!(b["cells_exact"], 488);
    assert_eq!(
        (b["missing"].as_u64(), b["extra"].as_u64()),
        (Some(0), Some(0))
    );
    let s = &o["spheres"];
    assert_eq!(
        (s["enclosing"].as_u64(), s["tight"].as_u64()),
        (Some(12), Some(12))
    );
    assert!(s["control"].as_u64().unwrap() < 12);
}

#[test]
fn seed_is_reported_and_runs_repeat() {
    let (_, a) = verify_json(&[&fixture("twin.mcol"), "--seed", "7"]);
    let (_, b) = verify_json(&[&fixture("twin.mcol"), "--seed", "7"]);
    assert_eq!(a["seed"], 7);
    assert_eq!(a["objects"][0]["seed"], 7);
    assert_eq!(a, b);
}

#[test]
fn a_file_off_the_seed_layout_fails_the_pointer_identities() {
    // quirks.mcol decodes (lists stored in reverse, a gap between blocks)
    // but breaks the seed's packing identities, and verify says which.
    let (code, j) = verify_json(&[&fixture("quirks.mcol")]);
    assert_eq!(code, 1);
    let f = failing(&j["objects"][0]);
    assert!(f.contains(&names::ADVANCE.id.to_string()), "{f:?}");
    assert!(f.contains(&names::BLOCKS.id.to_string()), "{f:?}");
    assert!(!f.contains(&geometry_names::MISSING.id.to_string()));
}

#[test]
fn a_dropped_list_entry_fails_the_broad_phase_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = sphere_map(2, 0.0);
    drop_list_entry(&mut m);
    let path = dir.path().join("dropped.mcol");
    std::fs::write(&path, encode(&m).unwrap()).unwrap();
    let (code, j) = verify_json(&[path.to_str().unwrap(), &fixture("box.mcol")]);
    assert_eq!(code, 1);
    assert_eq!(j["ok"], false);
    assert_eq!(
        failing(&j["objects"][0]),
        vec![geometry_names::MISSING.id.to_string()]
    );
    assert_eq!(j["objects"][0]["broadphase"]["missing"], 1);
    assert_eq!(j["objects"][1]["ok"], true);
    let text = sylcol()
        .args(["verify", path.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("  FAIL  mcol.broadphase.listed ")
                && l.contains("overlapping triangles listed")),
        "{text}"
    );
}

#[test]
fn unreadable_or_invalid_input_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"not a collision file").unwrap();
    let mut cut = std::fs::read(fixture("box.mcol")).unwrap();
    cut.truncate(0x90);
    let truncated = dir.path().join("cut.mcol");
    std::fs::write(&truncated, cut).unwrap();
    for (path, says) in [
        (dir.path().join("absent.mcol"), "cannot read"),
        (
            junk,
            "starts with \"not \" (6e 6f 74 20 …): text, not a sylcol format",
        ),
        (truncated, "invalid MCOL"),
    ] {
        let out = sylcol()
            .args(["verify", path.to_str().unwrap(), &fixture("box.mcol")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(path.to_str().unwrap()) && err.contains(says),
            "{err}"
        );
        // The readable file is still verified.
        assert!(String::from_utf8(out.stdout).unwrap().contains("1 ok"));
    }
}

/// An archive holding two valid maps (one compressed), one with a dropped
/// list entry, and an entry of another format.
fn archive(dir: &std::path::Path) -> String {
    use sylcol::format::ipfb::{NewEntry, WriteOptions, build_archive};
    let mut broken = sphere_map(2, 0.0);
    drop_list_entry(&mut broken);
    let pak = dir.join("MiscBin.pak");
    let entries = vec![
        NewEntry::hashed(
            0x2CF7_EB47,
            std::fs::read(fixture("box.mcol")).unwrap(),
            true,
        ),
        NewEntry::hashed(0x1111_1111, encode(&sphere_map(2, 500.0)).unwrap(), false),
        NewEntry::hashed(0x2222_2222, encode(&broken).unwrap(), true),
        NewEntry::named(
            "eng\\GP_TITLE.tbl",
            b"a table, not collision".to_vec(),
            false,
        ),
    ];
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    pak.to_string_lossy().into_owned()
}

#[test]
fn a_whole_archive_verifies_every_decodable_entry() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let (code, j) = verify_json(&[&pak]);
    assert_eq!(code, 1, "{j}");
    let objects = j["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 3);
    assert_eq!(j["skipped"].as_array().unwrap().len(), 1);
    let bad: Vec<&Value> = objects.iter().filter(|o| o["ok"] == false).collect();
    assert_eq!(bad.len(), 1);
    assert!(bad[0]["path"].as_str().unwrap().contains("+$22222222"));
    assert_eq!(
        failing(bad[0]),
        vec![geometry_names::MISSING.id.to_string()]
    );
    let text = sylcol().args(["verify", "-v", &pak]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("summary over 3 MCOL objects"), "{text}");
    assert!(text.contains("skipped 1 entries"));
}

#[test]
fn one_archive_entry_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let (code, j) = verify_json(&[&format!("{pak}+$2CF7EB47.MCOL")]);
    assert_eq!(code, 0, "{j}");
    assert_eq!(j["objects"].as_array().unwrap().len(), 1);
    assert_eq!(j["objects"][0]["broadphase"]["cells_exact"], 488);
    let (code, _) = verify_json(&[&format!("{pak}+eng\\GP_TITLE.tbl")]);
    assert_eq!(code, 2, "a named entry of another format is invalid input");
}

mod collision_set {
    use super::*;
    use sylcol::format::collisionset::{CollisionSet, Endian, Record, encode};
    use sylcol::verify::collisionset::names as cs;

    fn library(dir: &std::path::Path) -> String {
        let tet_v = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let tet_t = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
        let tri_v = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let set = CollisionSet {
            endian: Endian::Big,
            records: vec![
                Record::new("rou_e010_cmesh", tet_v.clone(), tet_t.clone()).unwrap(),
                Record::new("mob_n040_bdy_cmesh", tet_v, tet_t).unwrap(),
                Record::new("S01_Asteroid_cmesh_01a", tri_v, vec![[0, 1, 2]]).unwrap(),
            ],
        };
        let path = dir.join("CollisionSet_S01.bin");
        std::fs::write(&path, encode(&set).unwrap()).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn library_json_and_resource_ids_with_control() {
        let dir = tempfile::tempdir().unwrap();
        let lib = library(dir.path());
        let ids = dir.path().join("ids.txt");
        std::fs::write(&ids, "rou_e010\nmob_n040\n\n").unwrap();
        let (code, j) = verify_json(&[&lib, "--resource-ids", ids.to_str().unwrap()]);
        assert_eq!(code, 0, "{j}");
        let o = &j["objects"][0];
        assert_eq!(o["format"], "CollisionSet");
        assert_eq!(o["manifold_meshes"], 2);
        assert_eq!(o["euler_histogram"]["2"], 2);
        assert_eq!(o["euler_histogram"]["1"], 1);
        assert_eq!(o["meshes"][0]["name"], "rou_e010_cmesh");
        assert_eq!(o["meshes"][0]["topology"]["edges"], 6);
        assert_eq!(o["topology"]["edges_shared_by_two"], 12);
        let c = o["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == cs::RESOURCE_IDS.id)
            .unwrap();
        assert_eq!(
            (c["passed"].as_u64(), c["total"].as_u64()),
            (Some(2), Some(2))
        );
        assert_eq!(c["control"]["total"], 2);
        let walk = o["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == cs::WALK.id)
            .unwrap();
        assert_eq!(walk["passed"], walk["total"]);
    }

    #[test]
    fn an_id_that_matches_asteroids_fails_the_object() {
        let dir = tempfile::tempdir().unwrap();
        let lib = library(dir.path());
        let ids = dir.path().join("ids.txt");
        std::fs::write(&ids, "s01\n").unwrap();
        let (code, j) = verify_json(&[&lib, "--resource-ids", ids.to_str().unwrap()]);
        assert_eq!(code, 1);
        assert_eq!(
            failing(&j["objects"][0]),
            vec![cs::ASTEROID_IDS.id.to_string()]
        );
        let text = sylcol()
            .args(["verify", "--verbose", &lib])
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("CollisionSet (big-endian), 3 meshes, ok"),
            "{text}"
        );
    }
}
