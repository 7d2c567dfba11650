//! `sylcol info / export / rewrite` on CollisionSet libraries the test
//! builds itself, run through the real binary.

use crate::common::sylcol;
use std::path::Path;

use sylcol_format::collisionset::{self, CollisionSet, Endian, Record};

const TET: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.5, 0.0, 0.0],
    [0.0, 2.5, 0.0],
    [0.0, 0.0, -3.25],
];
const TET_TRIS: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];

fn library(endian: Endian, names: &[&str]) -> Vec<u8> {
    let records = names
        .iter()
        .map(|n| Record::new(n, TET.to_vec(), TET_TRIS.to_vec()).unwrap())
        .collect();
    collisionset::encode(&CollisionSet { endian, records }).unwrap()
}

const NAMES: [&str; 5] = [
    "rou_e101_bdy_cmesh",
    "rou_e101_brg_01_cmesh",
    "mob_n040_cmesh",
    "rob_f002_cmesh",
    "S14_p1_Asteroid_cmesh_05",
];

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn info_json_reports_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "CollisionSet_S01.bin",
        &library(Endian::Big, &NAMES),
    );
    let out = sylcol().args(["info", &file, "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["objects"][0];
    assert_eq!(v["format"], "CollisionSet");
    assert_eq!(v["endian"], "big");
    assert_eq!(v["records"], 5);
    assert_eq!(v["vertices"], 20);
    assert_eq!(v["triangles"], 20);
    let f = &v["families"];
    assert_eq!(
        (&f["rou_"], &f["mob_"], &f["rob_"], &f["asteroid"]),
        (&2.into(), &1.into(), &1.into(), &1.into())
    );
    let meshes = v["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 5);
    assert_eq!(meshes[1]["name"], "rou_e101_brg_01_cmesh");
    assert_eq!(meshes[1]["vertices"], 4);
    assert_eq!(meshes[1]["triangles"], 4);
    // Record 0: 16 + 24 (name field) + 48 + 48 bytes.
    assert_eq!(meshes[1]["offset"], 136);
}

#[test]
fn info_text_is_a_table_and_little_endian_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "le.bin", &library(Endian::Little, &NAMES));
    let out = sylcol().args(["info", &file]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("CollisionSet"), "{text}");
    assert!(text.contains("little-endian"), "{text}");
    assert!(text.contains("S14_p1_Asteroid_cmesh_05"), "{text}");
    assert!(
        text.contains("rou_ 2, mob_ 1, rob_ 1, asteroid 1"),
        "{text}"
    );
}

#[test]
fn rewrite_is_byte_identical_in_both_byte_orders() {
    let dir = tempfile::tempdir().unwrap();
    for endian in [Endian::Big, Endian::Little] {
        let bytes = library(endian, &NAMES);
        let file = write(dir.path(), "in.bin", &bytes);
        let out = dir.path().join("out.bin");
        sylcol()
            .args(["rewrite", &file, "-o", out.to_str().unwrap()])
            .assert()
            .success();
        assert_eq!(std::fs::read(&out).unwrap(), bytes);
    }
}

#[test]
fn export_writes_one_obj_per_mesh_and_one_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "lib.bin", &library(Endian::Big, &NAMES));
    let out = dir.path().join("meshes");
    sylcol()
        .args(["export", &file, "-o", out.to_str().unwrap()])
        .assert()
        .success();
    for name in NAMES {
        let text = std::fs::read_to_string(out.join(format!("{name}.obj"))).unwrap();
        assert!(text.contains(&format!("o {name}")));
        assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 4);
        assert!(text.contains("v 0 0 -3.25"));
    }
    let one = dir.path().join("one.obj");
    sylcol()
        .args([
            "export",
            &file,
            "--mesh",
            "mob_n040_cmesh",
            "-o",
            one.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&one)
            .unwrap()
            .contains("o mob_n040_cmesh")
    );
    let missing = sylcol()
        .args([
            "export",
            &file,
            "--mesh",
            "nope",
            "-o",
            one.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no mesh named \"nope\""));
}

/// A record name that would leave the folder as a path (`../../evil`)
/// is written inside it, its separators as `_`, under its real name in
/// the manifest; nothing is written outside.
#[test]
fn export_keeps_a_name_that_would_leave_the_folder_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "evil.bin",
        &library(Endian::Big, &["ok_cmesh", "../../evil"]),
    );
    let out = dir.path().join("sub");
    let run = sylcol()
        .args(["export", &file, "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.join("ok_cmesh.obj").exists());
    assert!(out.join(".._.._evil.obj").exists());
    let manifest = std::fs::read_to_string(out.join("manifest.txt")).unwrap();
    assert!(
        manifest.contains("../../evil = .._.._evil.obj\n"),
        "{manifest}"
    );
    assert!(!dir.path().join("evil.obj").exists());
    assert!(!dir.path().parent().unwrap().join("evil.obj").exists());
}

#[test]
fn a_desynchronised_size_word_is_reported_with_record_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = library(Endian::Big, &NAMES);
    bytes[136 + 3] ^= 0x10;
    let file = write(dir.path(), "bad.bin", &bytes);
    for cmd in ["info", "rewrite"] {
        let mut c = sylcol();
        c.args([cmd, &file]);
        if cmd == "rewrite" {
            c.args(["-o", dir.path().join("x.bin").to_str().unwrap()]);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("bad.bin") && err.contains("invalid CollisionSet"),
            "{err}"
        );
        assert!(err.contains("0x88") && err.contains("record 1"), "{err}");
    }
}
