//! The README's main job on the shipped sample archive: decode every
//! object, verify it, export it.

use crate::common::{samples, sylcol};
use serde_json::Value;

#[test]
fn every_sample_object_decodes_and_verifies() {
    let out = sylcol()
        .args(["verify", &samples(), "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let objects = j
        .as_array()
        .or_else(|| j["objects"].as_array())
        .expect("a list of objects");
    let count = |f: &str| objects.iter().filter(|o| o["format"] == f).count();
    assert_eq!((count("MCOL"), count("CollisionSet")), (11, 18));
    assert!(objects.iter().all(|o| o["ok"] == true));
}

#[test]
fn export_writes_every_map_and_the_library_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("meshes");
    sylcol()
        .args(["export", &samples(), "-o"])
        .arg(&out)
        .assert()
        .success();
    let mut maps: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".obj"))
        .collect();
    maps.sort();
    assert_eq!(maps.len(), 11, "{maps:?}");
    assert!(maps.contains(&"$DC4B0896.MCOL.obj".to_string()));
    assert!(maps.contains(&"mapmesh_box_500km.col.obj".to_string()));
    let folders: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .collect();
    assert_eq!(
        folders.len(),
        1,
        "the 18 identical libraries are written once"
    );
    let library = folders[0].as_ref().unwrap().path();
    assert_eq!(crate::common::count_with_extension(&library, "obj"), 158);
    assert!(library.join("manifest.txt").is_file());
    // --mesh needs one library, not a whole archive.
    sylcol()
        .args(["export", &samples(), "--mesh", "x", "-o"])
        .arg(&out)
        .assert()
        .code(2);
}

/// The sample archive's entries, extracted into `dir`: (map files, library).
fn extracted(dir: &std::path::Path) -> (Vec<std::path::PathBuf>, std::path::PathBuf) {
    let out = dir.join("extracted");
    sylcol()
        .args(["pak", "extract", &samples(), "-o"])
        .arg(&out)
        .assert()
        .success();
    let mut maps: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            // The maps: not the library, not the REGN beside each map,
            // not the manifest.
            let name = p.to_string_lossy();
            !name.contains("CollisionSet_")
                && !name.ends_with(".REGN")
                && !name.ends_with(".rgn")
                && !name.ends_with(".sylcol-pak.json")
        })
        .collect();
    maps.sort();
    (maps, out.join("CollisionSet_S01.bin"))
}

#[test]
fn library_export_then_folder_build_keeps_the_record_order_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (_, original) = extracted(dir.path());
    let folder = dir.path().join("parts");
    sylcol()
        .arg("export")
        .arg(&original)
        .arg("-o")
        .arg(&folder)
        .assert()
        .success();
    let rebuilt = dir.path().join("rebuilt.bin");
    // The sample library plants 11 open parts: written, with warnings.
    sylcol()
        .args(["build", "collisionset"])
        .arg(&folder)
        .arg("-o")
        .arg(&rebuilt)
        .assert()
        .success();
    assert!(
        std::fs::read(&rebuilt).unwrap() == std::fs::read(&original).unwrap(),
        "export -> build collisionset DIR changed the library's bytes"
    );
}

#[test]
fn every_map_exported_and_built_on_its_own_grid_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (maps, _) = extracted(dir.path());
    assert_eq!(maps.len(), 11);
    for map in &maps {
        for ext in ["obj", "gltf"] {
            let mesh = dir.path().join(format!("hull.{ext}"));
            let rebuilt = dir.path().join("rebuilt.mcol");
            sylcol()
                .arg("export")
                .arg(map)
                .arg("-o")
                .arg(&mesh)
                .assert()
                .success();
            sylcol()
                .args(["build", "mcol"])
                .arg(&mesh)
                .arg("--grid-from")
                .arg(map)
                .arg("-o")
                .arg(&rebuilt)
                .assert()
                .success();
            assert!(
                std::fs::read(&rebuilt).unwrap() == std::fs::read(map).unwrap(),
                "{} via .{ext}: rebuilt bytes differ",
                map.display()
            );
        }
    }
}
