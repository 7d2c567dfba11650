//! The mod workflow of docs/modding.md, end to end with the real binary:
//! pak build (stand-in for the game's archive) -> pak extract -> export ->
//! "edit" (the mesh is moved and reshaped here, as Blender would) -> build
//! mcol --grid-from -> pak build -> read back from the new archive.

use crate::common::{path, run, run_json};

use glam::Vec3;
use sylcol::export::gltf::to_gltf;
use sylcol::import::{ImportOptions, import_file};

const ENTRY: &str = "$2CF7EB47.MCOL";

/// The "game" archive `d/MiscBin.pak`: the 8-vertex outer-wall map
/// (`box.mcol`, returned too) under a seed object id, and `others`.
fn game_archive(d: &std::path::Path, others: &[(&str, &[u8])]) -> (std::path::PathBuf, String) {
    let game = d.join("game");
    std::fs::create_dir(&game).unwrap();
    let fixture = crate::common::fixture("box.mcol");
    std::fs::copy(&fixture, game.join(ENTRY)).unwrap();
    for (name, bytes) in others {
        std::fs::write(game.join(name), bytes).unwrap();
    }
    let game_pak = d.join("MiscBin.pak");
    run(&["pak", "build", path(&game), "-o", path(&game_pak)]);
    (game_pak, fixture)
}

#[test]
fn extract_export_edit_build_pack() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (game_pak, fixture) = game_archive(d, &[]);

    // 1. extract
    let extracted = d.join("extracted");
    run(&["pak", "extract", path(&game_pak), "-o", path(&extracted)]);
    let entry = extracted.join(ENTRY);
    assert_eq!(
        std::fs::read(&entry).unwrap(),
        std::fs::read(&fixture).unwrap()
    );

    // 2. export
    let hull = d.join("hull.gltf");
    run(&["export", path(&entry), "-o", path(&hull)]);

    // 3. edit: pull one corner of the box inwards, as a modder would.
    let mut mesh = import_file(&hull, &ImportOptions::default()).unwrap();
    assert_eq!(mesh.triangles.len(), 12);
    mesh.vertices[0] *= Vec3::splat(0.5);
    let edited = d.join("hull-edited.gltf");
    std::fs::write(&edited, to_gltf(&mesh, "hull").unwrap()).unwrap();

    // 4. build on the original grid, over the extracted entry
    let before = run_json(&["info", path(&entry), "--json"])["objects"][0].clone();
    let built = run_json(&[
        "build",
        "mcol",
        path(&edited),
        "--grid-from",
        path(&entry),
        "-o",
        path(&entry),
        "--json",
    ]);
    assert_eq!(built["grid"]["dims"], before["grid"]["dims"]);
    assert_eq!(built["grid"]["cell_size"], before["grid"]["cell_size"]);

    // 5. pack
    let mod_pak = d.join("mod").join("MiscBin.pak");
    std::fs::create_dir(d.join("mod")).unwrap();
    run(&["pak", "build", path(&extracted), "-o", path(&mod_pak)]);

    // The new archive holds the edited hull under the same id.
    let inner = format!("{}+{}", path(&mod_pak), &ENTRY[..9]);
    let after = run_json(&["info", &inner, "--json"])["objects"][0].clone();
    assert_eq!(after["vertices"], 8);
    assert_eq!(after["triangles"], 12);
    assert_eq!(after["grid"]["dims"], before["grid"]["dims"]);
    assert_eq!(after["grid"], built["grid"]);
    let back = d.join("back.obj");
    run(&["export", &inner, "-o", path(&back)]);
    assert_eq!(
        import_file(&back, &ImportOptions::default())
            .unwrap()
            .vertices[0],
        mesh.vertices[0]
    );
    // And rewrite reproduces the packed entry byte for byte.
    run(&["rewrite", &inner, "-o", path(&d.join("same.mcol"))]);
}

#[test]
fn collisionset_part_edit_through_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The "game" library, built from two parts, packed as the disc names it.
    let parts = d.join("parts");
    std::fs::create_dir(&parts).unwrap();
    let tetra = |s: f32| {
        format!("v 0 0 0\nv {s} 0 0\nv 0 {s} 0\nv 0 0 {s}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    };
    std::fs::write(parts.join("rou_e101_bdy.obj"), tetra(40.0)).unwrap();
    std::fs::write(parts.join("rou_e101_eng.obj"), tetra(10.0)).unwrap();
    let game = d.join("game");
    std::fs::create_dir(&game).unwrap();
    let lib = game.join("CollisionSet_S01.bin");
    run(&["build", "collisionset", path(&parts), "-o", path(&lib)]);
    let game_pak = d.join("MiscBin.pak");
    run(&["pak", "build", path(&game), "-o", path(&game_pak)]);

    // extract -> export one part -> edit -> replace it -> pack
    let extracted = d.join("extracted");
    run(&["pak", "extract", path(&game_pak), "-o", path(&extracted)]);
    let entry = extracted.join("CollisionSet_S01.bin");
    let body = d.join("body.obj");
    run(&[
        "export",
        path(&entry),
        "--mesh",
        "rou_e101_bdy",
        "-o",
        path(&body),
    ]);
    let mut mesh = import_file(&body, &ImportOptions::default()).unwrap();
    mesh.vertices[3].z = 55.0;
    let edited = d.join("body-edited.gltf");
    std::fs::write(&edited, to_gltf(&mesh, "body").unwrap()).unwrap();
    run(&[
        "build",
        "collisionset",
        "--from",
        path(&entry),
        "--replace",
        &format!("rou_e101_bdy={}", path(&edited)),
        "-o",
        path(&entry),
    ]);
    let mod_pak = d.join("mod").join("MiscBin.pak");
    std::fs::create_dir(d.join("mod")).unwrap();
    run(&["pak", "build", path(&extracted), "-o", path(&mod_pak)]);

    let inner = format!("{}+CollisionSet_S01.bin", path(&mod_pak));
    let back = d.join("back.obj");
    run(&[
        "export",
        &inner,
        "--mesh",
        "rou_e101_bdy",
        "-o",
        path(&back),
    ]);
    let got = import_file(&back, &ImportOptions::default()).unwrap();
    assert_eq!(got.vertices[3], Vec3::new(0.0, 0.0, 55.0));
    let info = run_json(&["info", &inner, "--json"])["objects"][0].clone();
    assert_eq!(info["format"], "CollisionSet");
    run(&["rewrite", &inner, "-o", path(&d.join("same.bin"))]);
}

/// The short route of docs/modding.md: export straight from the archive,
/// edit, build mcol on the archive entry's grid, `pak replace` into a new
/// archive; the other entry keeps its stored bytes.
#[test]
fn export_edit_build_replace_from_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (game_pak, _) = game_archive(d, &[("other.bin", b"left alone")]);
    let inner = format!("{}+{}", path(&game_pak), &ENTRY[..9]);

    let hull = d.join("hull.gltf");
    run(&["export", &inner, "-o", path(&hull)]);
    let mut mesh = import_file(&hull, &ImportOptions::default()).unwrap();
    mesh.vertices[0] *= Vec3::splat(0.5);
    let edited = d.join("hull-edited.gltf");
    std::fs::write(&edited, to_gltf(&mesh, "hull").unwrap()).unwrap();
    let built = d.join("hull.mcol");
    run(&[
        "build",
        "mcol",
        path(&edited),
        "--grid-from",
        &inner,
        "-o",
        path(&built),
    ]);
    let mod_pak = d.join("mod").join("MiscBin.pak");
    let pair = format!("{}={}", &ENTRY[..9], path(&built));
    run(&[
        "pak",
        "replace",
        path(&game_pak),
        &pair,
        "-o",
        path(&mod_pak),
    ]);

    let moved = format!("{}+{}", path(&mod_pak), &ENTRY[..9]);
    let back = d.join("back.obj");
    run(&["export", &moved, "-o", path(&back)]);
    let read = import_file(&back, &ImportOptions::default()).unwrap();
    assert_eq!(read.vertices[0], mesh.vertices[0]);
    let index = |pak: &std::path::Path| {
        sylcol_format::ipfb::Index::parse(&std::fs::read(pak).unwrap()).unwrap()
    };
    let (old, new) = (index(&game_pak), index(&mod_pak));
    let other = sylcol_format::ipfb::make_entry_id("other.bin");
    assert_eq!(old.find(other), new.find(other), "the other entry is kept");
    let p00 = |pak: &std::path::Path| std::fs::read(pak.with_extension("p00")).unwrap();
    let e = old.find(other).unwrap();
    let span = e.offset as usize..(e.offset + e.stored_size) as usize;
    assert_eq!(p00(&game_pak)[span.clone()], p00(&mod_pak)[span]);
}
