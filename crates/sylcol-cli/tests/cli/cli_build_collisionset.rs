//! The real `sylcol` binary: `build collisionset` from a folder and a
//! manifest, and editing a library in place.

use crate::common::{path, run_json, sylcol};

fn tri_obj(scale: f32) -> String {
    format!(
        "v 0 0 0\nv {scale} 0 0\nv 0 {scale} 0\nv 0 0 {scale}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    )
}

const PLY: &str = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
                   property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
                   end_header\n0 0 0\n5 0 0\n0 5 0\n3 0 1 2\n";

#[test]
fn from_a_folder_then_edited_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let meshes = dir.path().join("meshes");
    std::fs::create_dir(&meshes).unwrap();
    std::fs::write(meshes.join("rou_e101_bdy.obj"), tri_obj(2.0)).unwrap();
    std::fs::write(meshes.join("rou_e101_eng.obj"), tri_obj(3.0)).unwrap();
    std::fs::write(meshes.join("S01_Asteroid_cmesh_01a.ply"), PLY).unwrap();
    let lib = dir.path().join("CollisionSet_S01.bin");
    let j = run_json(&[
        "build",
        "collisionset",
        path(&meshes),
        "-o",
        path(&lib),
        "--json",
    ]);
    assert_eq!(j["records"], 3);
    assert_eq!(j["vertices"], 4 + 4 + 3);
    assert_eq!(j["triangles"], 4 + 4 + 1);
    assert_eq!(j["endian"], "big");
    let old = std::fs::read(&lib).unwrap();
    assert_eq!(j["bytes"], old.len());
    // Byte order of file names: upper-case 'S' sorts before 'r'.
    let info = run_json(&["info", path(&lib), "--json"])["objects"][0].clone();
    assert_eq!(info["format"], "CollisionSet");

    // Replace the body, add a part, remove the asteroid.
    let body = dir.path().join("body.obj");
    std::fs::write(&body, tri_obj(7.0)).unwrap();
    let edited = dir.path().join("edited.bin");
    let j = run_json(&[
        "build",
        "collisionset",
        "--from",
        path(&lib),
        "--replace",
        &format!("rou_e101_bdy={}", path(&body)),
        "--add",
        &format!("rou_e101_wep={}", path(&body)),
        "--remove",
        "S01_Asteroid_cmesh_01a",
        "-o",
        path(&edited),
        "--json",
    ]);
    assert_eq!(j["records"], 3);
    assert_eq!(j["replaced"], serde_json::json!(["rou_e101_bdy"]));
    let new = std::fs::read(&edited).unwrap();
    // rou_e101_eng was the last record and is untouched: same trailing bytes
    // before the added record.
    let eng_len = 8 + 16 + 8 + 12 * 4 + 12 * 4;
    let old_eng = &old[old.len() - eng_len..];
    let added_len = eng_len;
    assert_eq!(
        &new[new.len() - added_len - eng_len..new.len() - added_len],
        old_eng
    );

    // A missing record is an error naming it, and nothing is written.
    let out = dir.path().join("never.bin");
    let a = sylcol()
        .args([
            "build",
            "collisionset",
            "--from",
            path(&lib),
            "--remove",
            "nope",
        ])
        .args(["-o", path(&out)])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("\"nope\""), "{err}");
    assert!(!out.exists());
}

#[test]
fn from_a_manifest_little_endian() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.obj"), tri_obj(1.0)).unwrap();
    std::fs::write(dir.path().join("b.ply"), PLY).unwrap();
    let manifest = dir.path().join("set.txt");
    std::fs::write(
        &manifest,
        "# two parts\nmob_n040 = b.ply\nmob_n110_bdy = a.obj\n",
    )
    .unwrap();
    let lib = dir.path().join("lib.bin");
    let j = run_json(&[
        "build",
        "collisionset",
        path(&manifest),
        "-o",
        path(&lib),
        "--little-endian",
        "--json",
    ]);
    assert_eq!(j["endian"], "little");
    assert_eq!(j["records"], 2);
    let text = sylcol()
        .args(["build", "collisionset", path(&manifest), "-o", path(&lib)])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("2 (7 vertices, 5 triangles)"), "{text}");
    // Edit flags need --from.
    sylcol()
        .args(["build", "collisionset", path(&manifest), "-o", path(&lib)])
        .args(["--remove", "mob_n040"])
        .assert()
        .code(2);
    // A manifest naming a missing mesh names the mesh file.
    std::fs::write(&manifest, "x_part = missing.obj\n").unwrap();
    let a = sylcol()
        .args(["build", "collisionset", path(&manifest), "-o", path(&lib)])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("missing.obj"), "{err}");
}

#[test]
fn parts_may_be_open_but_not_turned_over() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    std::fs::write(parts.join("rou_e101_bdy.obj"), tri_obj(2.0)).unwrap();
    // An open shell (one triangle): written, with a warning naming it.
    std::fs::write(parts.join("rou_e101_wing.ply"), PLY).unwrap();
    let lib = dir.path().join("lib.bin");
    let a = sylcol()
        .args(["build", "collisionset", path(&parts), "-o", path(&lib)])
        .assert()
        .success();
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("warning: part \"rou_e101_wing\"") && err.contains("is open"),
        "{err}"
    );
    assert!(lib.exists());
    // A tetrahedron with one face turned over is refused (exit 1), and the
    // library is not written; --allow-open writes it.
    let turned = tri_obj(2.0).replace("f 1 3 2", "f 1 2 3");
    std::fs::write(parts.join("rou_e101_eng.obj"), turned).unwrap();
    let fresh = dir.path().join("fresh.bin");
    let a = sylcol()
        .args(["build", "collisionset", path(&parts), "-o", path(&fresh)])
        .assert()
        .code(1);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("part \"rou_e101_eng\"")
            && err.contains("nothing written")
            && err.contains("turned over"),
        "{err}"
    );
    assert!(!fresh.exists());
    sylcol()
        .args(["build", "collisionset", path(&parts), "-o", path(&fresh)])
        .arg("--allow-open")
        .assert()
        .success();
    // The same check guards an edit in place.
    let a = sylcol()
        .args([
            "build",
            "collisionset",
            "--from",
            path(&lib),
            "-o",
            path(&fresh),
        ])
        .arg("--replace")
        .arg(format!(
            "rou_e101_bdy={}",
            path(&parts.join("rou_e101_eng.obj"))
        ))
        .assert()
        .code(1);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("part \"rou_e101_bdy\""), "{err}");
}

/// `/` and `\` in record names: `--add` refuses them (naming the name and
/// the character); a library written elsewhere that holds them exports to
/// one file per record, and the folder builds back to the same bytes.
#[test]
fn record_names_with_path_separators() {
    let dir = tempfile::tempdir().unwrap();
    for (file, scale) in [("a.obj", 1.0), ("b.obj", 2.0), ("c.obj", 3.0)] {
        std::fs::write(dir.path().join(file), tri_obj(scale)).unwrap();
    }
    let manifest = dir.path().join("set.txt");
    // SUB_X: one file with sub_x on a case-blind disk, so a file of its own.
    let lines = "sub_x = a.obj\nsubAx = b.obj\nsubBx = c.obj\nSUB_X = a.obj\n";
    std::fs::write(&manifest, lines).unwrap();
    let built = dir.path().join("built.bin");
    sylcol()
        .args(["build", "collisionset", path(&manifest), "-o", path(&built)])
        .assert()
        .success();

    // --add refuses the name.
    for (name, ch) in [("sub/x", "'/'"), ("sub\\x", "'\\\\'")] {
        let out = dir.path().join("never.bin");
        let a = sylcol()
            .args(["build", "collisionset", "--from", path(&built), "--add"])
            .arg(format!("{name}={}", path(&dir.path().join("a.obj"))))
            .args(["-o", path(&out)])
            .assert()
            .code(2);
        let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains(&format!("{name:?}: holds {ch} at byte 3")),
            "{err}"
        );
        assert!(!out.exists());
    }

    // A library written elsewhere: same-length names patched in.
    let mut bytes = std::fs::read(&built).unwrap();
    for (from, to) in [(b"subAx", b"sub/x"), (b"subBx", b"sub\\x")] {
        let at = bytes.windows(5).position(|w| w == from).unwrap();
        bytes[at..at + 5].copy_from_slice(to);
    }
    let foreign = dir.path().join("foreign.bin");
    std::fs::write(&foreign, &bytes).unwrap();
    let folder = dir.path().join("out");
    let j = run_json(&["export", path(&foreign), "-o", path(&folder), "--json"]);
    assert_eq!(j["files"].as_array().unwrap().len(), 4, "{j}");
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "SUB_X~4.obj",
            "manifest.txt",
            "sub_x.obj",
            "sub_x~2.obj",
            "sub_x~3.obj"
        ]
    );
    let manifest = std::fs::read_to_string(folder.join("manifest.txt")).unwrap();
    assert!(manifest.contains("sub/x = sub_x~2.obj\n"), "{manifest}");
    assert!(manifest.contains("sub\\x = sub_x~3.obj\n"), "{manifest}");
    let rebuilt = dir.path().join("rebuilt.bin");
    sylcol()
        .args(["build", "collisionset", path(&folder), "-o", path(&rebuilt)])
        .assert()
        .success();
    assert!(std::fs::read(&rebuilt).unwrap() == bytes);
}
