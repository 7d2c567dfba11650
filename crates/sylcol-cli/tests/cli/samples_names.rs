//! Issue 14's "done when" on the shipped samples: `names harvest` names
//! exactly the entries a table string names, `names guess` finds the
//! planted map names, `pairs` pairs every REGN with its MCOL.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::{path, run_json, sylcol};
use serde_json::Value;

fn samples() -> String {
    format!("{}/../../samples", env!("CARGO_MANIFEST_DIR"))
}

/// What the two sample tables name (samples/README.md): their strings as
/// found, or through the variants of docs/names.md.
const TABLE_NAMED: [&str; 20] = [
    "CollisionSet_S01.bin",
    "CollisionSet_Tutorial.bin",
    "mapmesh_box_500km.col",
    "mapmesh_box_500km.rgn",
    "S01_AsteroidVolume_wp.col",
    "S01_AsteroidVolume_wp.rgn",
    "S04_AsteroidVolume_wp.col",
    "S04_AsteroidVolume_wp.rgn",
    "S05_AsteroidVolume_wp.col",
    "S05_AsteroidVolume_wp.rgn",
    "S08_p1_AsteroidVolume_wp.col",
    "S08_p1_AsteroidVolume_wp.rgn",
    "S13_AsteroidVolume_wp.col",
    "S13_AsteroidVolume_wp.rgn",
    "S14_p1_AsteroidVolume_wp.col",
    "S14_p1_AsteroidVolume_wp.rgn",
    "S14_p2_AsteroidVolume_wp.col",
    "S14_p2_AsteroidVolume_wp.rgn",
    "eng\\MapNames.tbl",
    "files.tbl",
];

fn names_of(report: &Value, key: &str) -> BTreeSet<String> {
    report["archives"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a[key].as_array().unwrap().iter())
        .map(|n| {
            let field = if key == "named" { "name" } else { "entry" };
            n[field].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn harvest_names_what_the_tables_name_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("names.txt");
    let report = run_json(&["names", "harvest", &samples(), "-o", path(&out), "--json"]);
    let named = names_of(&report, "named");
    let want: BTreeSet<String> = TABLE_NAMED.iter().map(|s| s.to_string()).collect();
    assert_eq!(named, want);
    let unnamed = names_of(&report, "unnamed");
    for left in [
        "$2CF7EB47.MCOL",
        "$E084C13C.MCOL",
        "$E16460CF.MCOL",
        "$3CF7EB47.REGN",
    ] {
        assert!(unnamed.contains(left), "{left} in {unnamed:?}");
    }
    assert_eq!(unnamed.len(), 22, "3 maps, their REGNs, 16 library names");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("\nMiscBin.pak+S13_AsteroidVolume_wp.rgn\n"),
        "{text}"
    );
    assert!(text.contains("\nTables.pak+files.tbl\n"), "{text}");
}

#[test]
fn guess_finds_the_planted_map_names() {
    let report = run_json(&[
        "names",
        "guess",
        "S{01..16}{,_p1,_p2}_AsteroidVolume_wp.{col,rgn}",
        "--archive",
        &samples(),
        "--json",
    ]);
    let found: Vec<&str> = report["found"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(found.len(), 16, "{found:?}");
    // S08_p2 is in no table: only the guess names it.
    assert!(found.contains(&"S08_p2_AsteroidVolume_wp.col"));
    assert!(found.contains(&"S08_p2_AsteroidVolume_wp.rgn"));
    assert!(
        report["found"][0]["entries"][0]
            .as_str()
            .unwrap()
            .starts_with("MiscBin.pak+")
    );
}

#[test]
fn pairs_pairs_every_regn_with_its_mcol_once_names_are_harvested() {
    let pak = format!("{}/MiscBin.pak", samples());
    // Built-in names only: the box pair, the other box by grid; the rest share grids.
    let out = sylcol().args(["pairs", &pak, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["pairs"].as_array().unwrap().len(), 2);
    assert_eq!(r["ambiguous"].as_array().unwrap().len(), 9);
    // With the harvested names, every REGN has its MCOL.
    let dir = tempfile::tempdir().unwrap();
    let names = harvested_names(dir.path());
    let r = run_json(&["pairs", &pak, "--names", path(&names), "--json"]);
    let pairs = r["pairs"].as_array().unwrap();
    assert_eq!((r["regn"].clone(), pairs.len()), (11.into(), 11));
    assert_eq!(pairs.iter().filter(|p| p["by"] == "name").count(), 8);
    for p in pairs {
        assert_eq!(p["grids_agree"], true, "{p}");
        let (regn, mcol) = (p["regn"].as_str().unwrap(), p["mcol"].as_str().unwrap());
        if p["by"] == "name" {
            assert_eq!(regn.strip_suffix(".rgn"), mcol.strip_suffix(".col"));
        }
    }
    assert!(r["ambiguous"].as_array().unwrap().is_empty());
}

/// `--names` is global: `verify` and `export` of the whole archive name
/// its entries with the harvested list, given before or after the command.
#[test]
fn harvested_names_name_entries_in_verify_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let names = harvested_names(dir.path());
    let pak = format!("{}/MiscBin.pak", samples());
    let objects = |r: &Value| -> BTreeSet<String> {
        r["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["path"].as_str().unwrap().to_string())
            .collect()
    };
    let before = objects(&run_json(&["verify", &pak, "--json"]));
    let after = objects(&run_json(&[
        "--names",
        path(&names),
        "verify",
        &pak,
        "--json",
    ]));
    let entry = format!("{pak}+S14_p2_AsteroidVolume_wp.col");
    assert!(after.contains(&entry), "{after:?}");
    assert!(!before.contains(&entry));
    assert_eq!(before.len(), after.len());
    let out = dir.path().join("meshes");
    sylcol()
        .args(["export", &pak, "--names", path(&names), "-o", path(&out)])
        .assert()
        .success();
    assert!(out.join("S14_p2_AsteroidVolume_wp.col.obj").is_file());
    assert!(out.join("S14_p2_AsteroidVolume_wp.rgn.ply").is_file());
    assert!(out.join("$E084C13C.MCOL.obj").is_file());
}

/// Harvests the samples' names into `dir/names.txt` (the README's first
/// step) and returns that path.
fn harvested_names(dir: &Path) -> PathBuf {
    let names = dir.join("names.txt");
    sylcol()
        .args(["names", "harvest", &samples(), "-o", path(&names)])
        .assert()
        .success();
    names
}
