//! The mod workflow of docs/modding.md, end to end with the real binary:
//! pak build (stand-in for the game's archive) -> pak extract -> export ->
//! "edit" (the mesh is moved and reshaped here, as Blender would) -> build
//! mcol --grid-from -> pak build -> read back from the new archive.

use crate::common::{path, run, run_json};

use glam::Vec3;
use sylcol::export::gltf::to_gltf;
use sylcol::import::{ImportOptions, import_file};

const ENTRY: &str = "$2CF7EB47.MCOL";

#[test]
fn extract_export_edit_build_pack() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The "game" archive: the 8-vertex outer-wall map under a seed object id.
    let game = d.join("game");
    std::fs::create_dir(&game).unwrap();
    let fixture = crate::common::fixture("box.mcol");
    std::fs::copy(&fixture, game.join(ENTRY)).unwrap();
    let game_pak = d.join("MiscBin.pak");
    run(&["pak", "build", path(&game), "-o", path(&game_pak)]);

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
    let before = run_json(&["info", path(&entry), "--json"]);
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
    let after = run_json(&["info", &inner, "--json"]);
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
    let info = run_json(&["info", &inner, "--json"]);
    assert_eq!(info["format"], "CollisionSet");
    run(&["rewrite", &inner, "-o", path(&d.join("same.bin"))]);
}
