//! `sylcol pairs` on archives built from the hand-made fixtures.

use std::path::Path;

use crate::common::{fixture, path, run_json, sylcol};
use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// `twin.regn` + `twin.mcol` under one stem, an unnamed copy of each, and
/// `box.mcol` (another grid), named by a `names.txt`; `extra` adds entries.
fn archive(dir: &Path, extra: Vec<NewEntry>) -> String {
    let mut entries = vec![
        NewEntry::named("maps\\twin.rgn", read("twin.regn"), true),
        NewEntry::named("maps\\twin.col", read("twin.mcol"), true),
        NewEntry::hashed(0x1000_0001, read("twin.regn"), true),
        NewEntry::hashed(0x1000_0002, read("twin.mcol"), true),
        NewEntry::hashed(0x1000_0003, read("box.mcol"), true),
    ];
    entries.extend(extra);
    let pak = dir.join("Maps.pak");
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    // The archive stores hashes only: the names come from a names.txt beside it.
    std::fs::write(
        dir.join("names.txt"),
        "Maps.pak+maps\\twin.rgn\nMaps.pak+maps\\twin.col\n",
    )
    .unwrap();
    path(&pak).to_string()
}

#[test]
fn pairs_by_name_then_by_the_only_identical_grid() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path(), Vec::new());
    let r = run_json(&["pairs", &pak, "--json"]);
    assert_eq!((r["regn"].clone(), r["mcol"].clone()), (2.into(), 3.into()));
    let pairs = r["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2, "{r}");
    let by_name = pairs.iter().find(|p| p["by"] == "name").unwrap();
    assert_eq!(
        (by_name["regn"].as_str(), by_name["mcol"].as_str()),
        (Some("maps\\twin.rgn"), Some("maps\\twin.col"))
    );
    assert_eq!(by_name["grids_agree"], true);
    let by_grid = pairs.iter().find(|p| p["by"] == "grid").unwrap();
    assert_eq!(
        (by_grid["regn"].as_str(), by_grid["mcol"].as_str()),
        (Some("$10000001.REGN"), Some("$10000002.MCOL"))
    );
    assert_eq!(
        by_grid["grid"],
        "bbox -25000..25000, cell 10000, grid 5x5x5"
    );
    assert_eq!(r["unpaired_mcol"][0], "$10000003.MCOL");
    let text = sylcol().args(["pairs", &pak]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("2 REGN, 3 MCOL: 2 paired (1 by name, 1 by grid), 0 not paired"),
        "{text}"
    );
}

#[test]
fn two_regns_on_one_grid_are_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let extra = vec![NewEntry::hashed(0x1000_0004, read("twin.regn"), true)];
    let pak = archive(dir.path(), extra);
    let out = sylcol().args(["pairs", &pak, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["pairs"].as_array().unwrap().len(), 1);
    let amb = r["ambiguous"].as_array().unwrap();
    assert_eq!(amb.len(), 2);
    assert_eq!(amb[0]["candidates"][0], "$10000002.MCOL");
    assert_eq!(
        amb[0]["evidence"],
        "1 unpaired MCOLs and 2 REGNs share this grid"
    );
}
