// Append to crates/sylcol-cli/tests/mod_workflow.rs once the codec is on main.

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
    let info = json(&["info", &inner, "--json"]);
    assert_eq!(info["format"], "CollisionSet");
    run(&["rewrite", &inner, "-o", path(&d.join("same.bin"))]);
}
