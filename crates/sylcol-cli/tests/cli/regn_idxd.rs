//! REGN and IDXD / IXUD through info, verify, rewrite, probe, export and
//! build, as the real binary, on the hand-made fixtures and the samples.

use crate::common::{fixture, path, run_json, sylcol};
use serde_json::Value;

fn samples(entry: &str) -> String {
    crate::common::samples_dir()
        .join(entry)
        .display()
        .to_string()
}

#[test]
fn info_json_on_a_regn_reports_its_six_counts_and_pointers() {
    let j = run_json(&["info", &fixture("twin.regn"), "--json"])["objects"][0].clone();
    assert_eq!(j["format"], "REGN");
    assert_eq!(j["counts"], serde_json::json!([125, 63, 94, 8, 14, 16]));
    assert_eq!(j["pointers"].as_array().unwrap().len(), 6);
    assert_eq!(j["sections"][4]["offset"], 0x88);
    assert_eq!(j["sections"][4]["stride"], 12);
    assert_eq!(j["grid"]["dims"], serde_json::json!([5, 5, 5]));
    assert_eq!(j["vertex_section"], 4);
    assert!(
        j["assumptions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["passed"] == a["total"])
    );
}

#[test]
fn info_json_on_tables_lists_records_with_their_strings() {
    for (name, format) in [("names.idxd", "IDXD"), ("names.ixud", "IXUD")] {
        let j = run_json(&["info", &fixture(name), "--json"])["objects"][0].clone();
        assert_eq!(j["format"], format);
        assert_eq!(j["records"][0]["text"], "mapmesh_box_500km.col");
        assert_eq!(j["records"][0]["hash_is_name"], true);
        assert_eq!(j["records"][3]["string"], Value::Null);
        assert_eq!(j["pairs"][1]["second_text"], "mapmesh_box_500km.rgn");
        assert_eq!(j["strings"][5]["text"], "Écran titre");
    }
}

#[test]
fn the_samples_regns_and_tables_verify_clean() {
    for archive in ["MiscBin.pak", "Tables.pak"] {
        let j = run_json(&["verify", &samples(archive), "--json"]);
        assert_eq!(j["ok"], true, "{archive}");
        let count = |f: &str| {
            j["objects"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|o| o["format"] == f)
                .count()
        };
        if archive == "MiscBin.pak" {
            assert_eq!((count("REGN"), count("MCOL")), (11, 11));
        } else {
            assert_eq!((count("IDXD"), count("IXUD")), (1, 1));
        }
        assert!(j["skipped"].as_array().unwrap().is_empty(), "{archive}");
    }
}

/// The failing checks of `verify FILE --json`: (id, note).
fn failing(file: &str) -> Vec<(String, String)> {
    let out = sylcol().args(["verify", file, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{file}");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    j["objects"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| {
            (
                c["id"].as_str().unwrap().into(),
                c["note"].as_str().unwrap_or("").into(),
            )
        })
        .collect()
}

#[test]
fn damaged_tables_and_regions_fail_with_the_offset() {
    let t = failing(&fixture("damaged.idxd"));
    let ids: Vec<&str> = t.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "idxd.size.exact",
            "idxd.offsets.in_pool",
            "idxd.offsets.start"
        ]
    );
    assert!(t[2].1.starts_with("first at 0x1c"), "{t:?}");
    let r = failing(&fixture("quirks.regn"));
    assert!(
        r.iter()
            .any(|f| f.0 == "regn.pof0.pointers" && f.1.starts_with("first at 0x84")),
        "{r:?}"
    );
    assert!(r.iter().any(|f| f.0 == "regn.cells.count_one"), "{r:?}");
    // Cut short: unreadable, exit 2, the error names the file and the offset.
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.regn");
    std::fs::write(
        &cut,
        &std::fs::read(fixture("twin.regn")).unwrap()[..0x1000],
    )
    .unwrap();
    let out = sylcol()
        .args(["verify", path(&cut), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: Value =
        serde_json::from_slice(out.stderr.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert!(
        err["error"]["path"].as_str().unwrap().ends_with("cut.regn"),
        "{err}"
    );
    assert_eq!(err["error"]["offset"], 4, "the data size runs past the end");
}

#[test]
fn rewrite_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    for file in [
        fixture("twin.regn"),
        fixture("quirks.regn"),
        fixture("names.ixud"),
        fixture("damaged.idxd"),
        samples("MiscBin.pak+S13_AsteroidVolume_wp.rgn"),
        samples("Tables.pak+files.tbl"),
        samples("Tables.pak+eng/MapNames.tbl"),
    ] {
        let j = run_json(&["rewrite", &file, "-o", path(&out), "--json"]);
        assert_eq!(j["identical"], true, "{file}");
    }
}

#[test]
fn export_points_and_tables_and_build_back() {
    let dir = tempfile::tempdir().unwrap();
    let ply = dir.path().join("v.ply");
    sylcol()
        .args(["export", &fixture("twin.regn"), "-o", path(&ply)])
        .assert()
        .success();
    let text = std::fs::read_to_string(&ply).unwrap();
    assert!(text.contains("element vertex 14\n"), "{text}");
    assert!(text.trim_end().ends_with("11000 9000 -6500"), "{text}");
    let glb = dir.path().join("v.glb");
    let j = run_json(&["export", &fixture("twin.regn"), "-o", path(&glb), "--json"]);
    assert_eq!(j["files"][0]["vertices"], 14);
    // The GLB's JSON chunk: one POINTS primitive (mode 0) over 14 positions.
    let bytes = std::fs::read(&glb).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let doc: Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    assert_eq!(doc["meshes"][0]["primitives"][0]["mode"], 0);
    assert_eq!(doc["accessors"][0]["count"], 14);
    sylcol()
        .args([
            "export",
            &fixture("twin.regn"),
            "-o",
            path(&dir.path().join("v.obj")),
        ])
        .assert()
        .code(2);
    sylcol()
        .args(["export", &fixture("quirks.regn"), "-o", path(&ply)])
        .assert()
        .code(2);
    for name in ["names.idxd", "names.ixud", "damaged.idxd"] {
        let txt = dir.path().join(format!("{name}.txt"));
        let back = dir.path().join(name);
        sylcol()
            .args(["export", &fixture(name), "-o", path(&txt)])
            .assert()
            .success();
        let j = run_json(&["build", "idxd", path(&txt), "-o", path(&back), "--json"]);
        assert_eq!(j["records"], 6);
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(fixture(name)).unwrap(),
            "{name}"
        );
    }
    let json = dir.path().join("t.json");
    sylcol()
        .args(["export", &fixture("names.ixud"), "-o", path(&json)])
        .assert()
        .success();
    let j: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(j["pool_size_unit"], "units");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "format IDXD\nrecord 1 s9 0 0\n").unwrap();
    let out = sylcol()
        .args(["build", "idxd", path(&bad), "-o", path(&back_of(&bad))])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
}

fn back_of(p: &std::path::Path) -> std::path::PathBuf {
    p.with_extension("idxd")
}

#[test]
fn probe_shows_a_regn_header_and_its_relocations() {
    let j = run_json(&["probe", &fixture("twin.regn"), "--json"]);
    let text = j.to_string();
    assert!(text.contains("REGN"), "{text}");
    let relocated: Vec<u64> = j["header_words"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["relocated"] == true)
        .map(|w| w["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(relocated, [0x70, 0x74, 0x78, 0x7C, 0x80, 0x84]);
}

/// `--mesh` names a CollisionSet part: on a REGN or a table alone it is
/// refused with exit 2, naming what it does not apply to.
#[test]
fn mesh_flags_are_refused_for_points_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    for (file, out, what) in [
        ("twin.regn", "points.ply", "a REGN's points"),
        ("names.idxd", "table.txt", "a string table"),
    ] {
        let o = sylcol()
            .args(["export", &fixture(file), "-o"])
            .arg(dir.path().join(out))
            .args(["--mesh", "x"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&o.stderr);
        let want = format!("--mesh, --layers and --scale do not apply to {what}");
        assert!(err.contains(&want), "{file}: {err}");
        assert!(!dir.path().join(out).exists(), "{file}");
    }
}
