//! The real `sylcol` binary: `build mcol` from OBJ / glTF / PLY, its
//! summary, its errors, and the export -> build round trip.

use crate::common::{path, run_json, sylcol};

use std::path::PathBuf;

/// A closed box from -r to r as OBJ text (quads, so triangulation runs).
fn box_obj(r: f32) -> String {
    let mut s = String::from("# a box\no walls\n");
    for i in 0..8 {
        let c = |bit: i32| if i & bit == 0 { -r } else { r };
        s += &format!("v {} {} {}\n", c(1), c(2), c(4));
    }
    for f in [
        "1 3 4 2", "5 6 8 7", "1 2 6 5", "3 7 8 4", "1 5 7 3", "2 4 8 6",
    ] {
        s += &format!("f {f}\n");
    }
    s
}

/// A temporary folder holding `walls.obj` (a box from -r to r), with the
/// paths of that mesh and of `walls.mcol` beside it.
fn walls(r: f32) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("walls.obj");
    std::fs::write(&obj, box_obj(r)).unwrap();
    let out = dir.path().join("walls.mcol");
    (dir, obj, out)
}

#[test]
fn build_mcol_from_obj_reports_and_verifies_by_rewrite() {
    let (dir, obj, out) = walls(250_000.0);
    let j = run_json(&[
        "build",
        "mcol",
        path(&obj),
        "-o",
        path(&out),
        "--cell",
        "50000",
        "--json",
    ]);
    assert_eq!(j["vertices"], 8);
    assert_eq!(j["triangles"], 12);
    assert_eq!(j["grid"]["dims"], serde_json::json!([10, 10, 10]));
    assert_eq!(
        j["grid"]["cell_size"],
        serde_json::json!([50000.0, 50000.0, 50000.0])
    );
    assert_eq!(j["grid"]["occupied_cells"], 488);
    assert_eq!(j["output"], path(&out));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(j["bytes"], bytes.len());
    // `rewrite` leaves the built file byte-identical.
    let again = dir.path().join("again.mcol");
    sylcol()
        .args(["rewrite", path(&out), "-o", path(&again)])
        .assert()
        .success();
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    // `info` reads it.
    let info = run_json(&["info", path(&out), "--json"])["objects"][0].clone();
    // One vocabulary: build and info describe the same grid with the same keys.
    assert_eq!(info["grid"], j["grid"]);
    assert_eq!(info["offsets"]["spheres"], 0x80);
}

#[test]
fn human_summary_names_grid_lists_and_output() {
    let (_dir, obj, out) = walls(25_000.0);
    let a = sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out)])
        .args(["--bbox", "-25000,-25000,-25000,25000,25000,25000"])
        .args(["--cell", "10000"])
        .assert()
        .success();
    let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("5x5x5 cells of (10000, 10000, 10000)"),
        "{text}"
    );
    assert!(text.contains("98 occupied cells"), "{text}");
    assert!(text.contains(path(&out)), "{text}");
}

#[test]
fn export_gltf_then_build_keeps_the_geometry() {
    let (dir, obj, first) = walls(1_000.0);
    sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&first)])
        .assert()
        .success();
    for ext in ["gltf", "glb", "obj"] {
        let mesh = dir.path().join(format!("edit.{ext}"));
        sylcol()
            .args(["export", path(&first), "-o", path(&mesh)])
            .assert()
            .success();
        let second = dir.path().join(format!("second-{ext}.mcol"));
        sylcol()
            .args(["build", "mcol", path(&mesh), "-o", path(&second)])
            .assert()
            .success();
        // The same mesh and options give the same file.
        assert_eq!(
            std::fs::read(&second).unwrap(),
            std::fs::read(&first).unwrap(),
            "{ext}"
        );
    }
}

#[test]
fn weld_merges_split_corners() {
    let dir = tempfile::tempdir().unwrap();
    let ply = dir.path().join("split.ply");
    // Two triangles sharing an edge, written with separate corners.
    std::fs::write(
        &ply,
        "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\nproperty float y\n\
         property float z\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n\
         0 0 0\n1 0 0\n0 1 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 3 4 5\n",
    )
    .unwrap();
    let out = dir.path().join("split.mcol");
    // An open sheet: written only with --allow-open, with a warning.
    let args = [
        "build",
        "mcol",
        path(&ply),
        "-o",
        path(&out),
        "--json",
        "--allow-open",
    ];
    let j = run_json(&args);
    assert_eq!(j["vertices"], 6);
    assert!(
        j["warnings"][0].as_str().unwrap().contains("is open"),
        "{j}"
    );
    let mut welded = args.to_vec();
    welded.push("--weld");
    assert_eq!(run_json(&welded)["vertices"], 4);
}

#[test]
fn bad_inputs_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcol");
    let cases: [(&str, &str, &str); 5] = [
        (
            "nan.obj",
            "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n",
            "non-finite",
        ),
        (
            "range.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n",
            "out of bounds",
        ),
        ("empty.obj", "v 0 0 0\n", "empty"),
        ("mesh.stl", "solid x\n", "unknown mesh format"),
        (
            "range.ply",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
             property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
             end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
            "names vertex 7",
        ),
    ];
    for (name, text, says) in cases {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let a = sylcol()
            .args(["build", "mcol", path(&input), "-o", path(&out)])
            .assert()
            .code(2);
        let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        assert!(err.contains(name) && err.contains(says), "{name}: {err}");
    }
    assert!(!out.exists());
    // A bbox that does not hold the mesh, and a malformed --bbox.
    let obj = dir.path().join("walls.obj");
    std::fs::write(&obj, box_obj(10.0)).unwrap();
    let a = sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out)])
        .args(["--bbox", "0,0,0,20,20,20", "--cell", "5"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("outside the grid"), "{err}");
    sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out)])
        .args(["--bbox", "0,0,0,20,20"])
        .assert()
        .code(2);
}

#[test]
fn grid_from_an_existing_mcol() {
    let (_dir, obj, out) = walls(1_000.0);
    let fixture = crate::common::fixture("box.mcol");
    let j = run_json(&[
        "build",
        "mcol",
        path(&obj),
        "-o",
        path(&out),
        "--grid-from",
        &fixture,
        "--json",
    ]);
    assert_eq!(j["grid"]["dims"], serde_json::json!([10, 10, 10]));
    assert_eq!(j["grid"]["cell_size"][0], 50000.0);
    assert_eq!(
        j["bbox_min"],
        serde_json::json!([-250000.0, -250000.0, -250000.0])
    );
    // The small box sits around the origin: the 8 cells meeting there.
    assert_eq!(j["grid"]["occupied_cells"], 8);
    sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out)])
        .args(["--grid-from", &fixture, "--cell", "5"])
        .assert()
        .code(2);
}

#[test]
fn the_triangle_limit_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcol");
    let obj = |n: usize| "v 0 0 0\nv 1 0 0\nv 0 1 0\n".to_string() + &"f 1 2 3\n".repeat(n);
    let at = dir.path().join("at.obj");
    std::fs::write(&at, obj(65_535)).unwrap();
    // 65 535 copies of one triangle are no hull: --allow-open.
    let j = run_json(&[
        "build",
        "mcol",
        path(&at),
        "-o",
        path(&out),
        "--json",
        "--allow-open",
    ]);
    assert_eq!(j["triangles"], 65_535);
    let over = dir.path().join("over.obj");
    std::fs::write(&over, obj(65_536)).unwrap();
    let a = sylcol()
        .args(["build", "mcol", path(&over), "-o", path(&out)])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("over.obj") && err.contains("65536 triangles"),
        "{err}"
    );
}

/// The box of `box_obj` with every triangle on its own three vertices, as
/// a flat-shaded exporter writes it.
fn unwelded_box_obj(r: f32) -> String {
    let mesh = sylcol::import::import_bytes(
        box_obj(r).as_bytes(),
        sylcol::import::MeshFormat::Obj,
        None,
        &Default::default(),
    )
    .unwrap();
    let mut s = String::new();
    for t in 0..mesh.triangles.len() {
        for v in mesh.corners(t) {
            s += &format!("v {} {} {}\n", v.x, v.y, v.z);
        }
        s += &format!("f {} {} {}\n", 3 * t + 1, 3 * t + 2, 3 * t + 3);
    }
    s
}

/// Runs `build mcol ARGS` expecting exit `code`; returns stderr.
fn build_fails(args: &[&str], code: i32) -> String {
    let a = sylcol()
        .args(["build", "mcol"])
        .args(args)
        .assert()
        .code(code);
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

#[test]
fn an_unwelded_mesh_is_refused_naming_the_open_edge_and_weld() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("flat.obj");
    std::fs::write(&obj, unwelded_box_obj(10.0)).unwrap();
    let out = dir.path().join("flat.mcol");
    let err = build_fails(&[path(&obj), "-o", path(&out)], 1);
    assert!(!out.exists(), "nothing may be written");
    // The first open edge by its vertex numbers and positions, the count,
    // and the way out.
    assert!(
        err.contains("flat.obj is not a closed, consistently oriented hull; nothing written")
            && err.contains("edge from vertex 0 (-10 -10 -10) to vertex 1 (-10 10 -10) is open")
            && err.contains("triangle 0 is the only one using it (36 open edges)")
            && err.contains("--weld merges the 28 vertices")
            && err.contains("passes every check"),
        "{err}"
    );
    // With --json: one `hull` error document on stderr, still exit 1.
    let err = build_fails(&[path(&obj), "-o", path(&out), "--json"], 1);
    let doc: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(doc["error"]["kind"], "hull");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("36 open edges")
    );
    assert!(!out.exists());
    // --weld builds it; --allow-open writes it as it is, with a warning.
    sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out), "--weld"])
        .assert()
        .success();
    let a = sylcol()
        .args([
            "build",
            "mcol",
            path(&obj),
            "-o",
            path(&out),
            "--allow-open",
        ])
        .assert()
        .success();
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("warning") && err.contains("written anyway"),
        "{err}"
    );
    let info = run_json(&["info", path(&out), "--json"])["objects"][0].clone();
    assert_eq!(info["vertices"], 36);
}

#[test]
fn degenerate_and_turned_over_triangles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcol");
    // The box plus a triangle on one line.
    let obj = dir.path().join("sliver.obj");
    std::fs::write(
        &obj,
        box_obj(10.0) + "v 0 0 0\nv 1 1 1\nv 2 2 2\nf 9 10 11\n",
    )
    .unwrap();
    let err = build_fails(&[path(&obj), "-o", path(&out)], 1);
    assert!(
        err.contains("triangle 12 (0 0 0) (1 1 1) (2 2 2) has no area"),
        "{err}"
    );
    // The box with one face's winding reversed: its edges run like its
    // neighbours'.
    let flipped = box_obj(10.0).replace("f 1 3 4 2", "f 2 4 3 1");
    let obj = dir.path().join("flipped.obj");
    std::fs::write(&obj, flipped).unwrap();
    let err = build_fails(&[path(&obj), "-o", path(&out)], 1);
    assert!(err.contains("one of them is turned over"), "{err}");
    assert!(!err.contains("--weld"), "{err}");
    assert!(!out.exists());
}

/// OBJ text with every face's corners in reverse order.
fn turned_over(obj: &str) -> String {
    obj.lines()
        .map(|l| match l.strip_prefix("f ") {
            Some(f) => format!("f {}\n", f.split(' ').rev().collect::<Vec<_>>().join(" ")),
            None => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn a_part_facing_against_the_rest_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcol");
    // An inward-facing wall (the player inside) holding an outward box is
    // a good map; the same box turned inside out is not.
    let wall = turned_over(&box_obj(100.0));
    let inner = box_obj(10.0)
        .lines()
        .filter_map(|l| {
            if let Some(v) = l.strip_prefix("v ") {
                return Some(format!("v {v}\n"));
            }
            let f = l.strip_prefix("f ")?;
            let shifted: Vec<String> = f
                .split(' ')
                .map(|i| (i.parse::<u32>().unwrap() + 8).to_string())
                .collect();
            Some(format!("f {}\n", shifted.join(" ")))
        })
        .collect::<String>();
    let good = dir.path().join("arena.obj");
    std::fs::write(&good, wall.clone() + &inner).unwrap();
    sylcol()
        .args(["build", "mcol", path(&good), "-o", path(&out)])
        .assert()
        .success();
    let inside_out = turned_over(&inner);
    let bad = dir.path().join("bad.obj");
    std::fs::write(&bad, wall + &inside_out).unwrap();
    let err = build_fails(&[path(&bad), "-o", path(&out)], 1);
    assert!(
        err.contains("the closed component holding triangle 12 faces against the others"),
        "{err}"
    );
}
