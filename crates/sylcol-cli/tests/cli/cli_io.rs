//! Where commands read and write: `-` for standard input and output, the
//! format an output name says (or `--format`), refusals instead of guesses,
//! the damaged-library diagnosis, completions and the man page.

use crate::common::{fixture, path, samples, sylcol};

#[test]
fn dash_reads_standard_input() {
    let bytes = std::fs::read(fixture("twin.mcol")).unwrap();
    let out = sylcol()
        .args(["info", "-", "--json"])
        .write_stdin(bytes.clone())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &j["objects"][0];
    assert_eq!((&j["path"], &j["triangles"]), (&"-".into(), &16.into()));
    let v = sylcol()
        .args(["verify", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(0));
}

#[test]
fn dash_writes_standard_output_and_no_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let obj = sylcol()
        .current_dir(dir.path())
        .args(["export", &fixture("box.mcol"), "-o", "-"])
        .output()
        .unwrap();
    assert!(obj.status.success());
    let text = String::from_utf8(obj.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 12);
    let glb = sylcol()
        .current_dir(dir.path())
        .args(["export", &fixture("box.mcol"), "-o", "-", "--format", "glb"])
        .output()
        .unwrap();
    assert_eq!(&glb.stdout[..4], b"glTF");
    let copy = sylcol()
        .current_dir(dir.path())
        .args(["rewrite", &fixture("twin.mcol"), "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(copy.stdout, std::fs::read(fixture("twin.mcol")).unwrap());
    assert!(!dir.path().join("-").exists());
    // The report cannot share standard output with the object.
    sylcol()
        .args(["rewrite", &fixture("twin.mcol"), "-o", "-", "--json"])
        .assert()
        .code(2);
    // A whole archive is not one object: the error says what to name,
    // for every command that takes one object.
    let pak = samples();
    for args in [
        vec!["rewrite", &pak, "-o", "x.pak"],
        vec!["query", &pak, "inside", "--point", "0,0,0"],
    ] {
        let out = sylcol()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("an IPFB archive index") && err.contains("+INNER"),
            "{err}"
        );
    }
    assert!(!dir.path().join("x.pak").exists());
}

#[test]
fn an_output_name_that_says_no_known_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.dae", "x.stl", "mesh"] {
        let target = dir.path().join(name);
        let out = sylcol()
            .args(["export", &fixture("box.mcol"), "-o", path(&target)])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("cannot tell the mesh format") && err.contains("--format"),
            "{err}"
        );
        assert!(!target.exists(), "{name} written anyway");
    }
    let forced = dir.path().join("mesh.txt");
    sylcol()
        .args([
            "export",
            &fixture("box.mcol"),
            "-o",
            path(&forced),
            "--format",
            "obj",
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&forced).unwrap().contains("\nf "));
}

#[test]
fn a_library_to_one_obj_file_is_refused_and_to_gltf_is_one_scene() {
    let dir = tempfile::tempdir().unwrap();
    let lib = format!("{}+CollisionSet_S01.bin", samples());
    let target = dir.path().join("cs.obj");
    let out = sylcol()
        .args(["export", &lib, "-o", path(&target)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!target.exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("158 meshes") && err.contains("--mesh NAME"),
        "{err}"
    );
    for name in ["cs.glb", "cs.gltf"] {
        let target = dir.path().join(name);
        sylcol()
            .args(["export", &lib, "-o", path(&target)])
            .assert()
            .success();
        assert!(target.is_file(), "{name}: one scene, not a folder");
    }
    let folder = dir.path().join("parts");
    sylcol()
        .args(["export", &lib, "-o", path(&folder), "--format", "glb"])
        .assert()
        .success();
    assert_eq!(crate::common::count_with_extension(&folder, "glb"), 158);
    assert!(folder.join("rou_e101_bdy_cmesh.glb").is_file());
    // Beside them, the record order for `build collisionset DIR`.
    let manifest = std::fs::read_to_string(folder.join("manifest.txt")).unwrap();
    assert!(manifest.contains("rou_e101_bdy_cmesh = rou_e101_bdy_cmesh.glb\n"));
}

#[test]
fn a_library_with_a_damaged_first_record_says_where_the_walk_failed() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.bin");
    sylcol()
        .args([
            "pak",
            "extract",
            &samples(),
            "-o",
            path(dir.path()),
            "CollisionSet_S01.bin",
        ])
        .assert()
        .success();
    let mut bytes = std::fs::read(dir.path().join("CollisionSet_S01.bin")).unwrap();
    bytes[1] ^= 0x40; // record 0's size word: now past the end of the file
    std::fs::write(&lib, &bytes).unwrap();
    for cmd in ["info", "verify", "export", "rewrite"] {
        let mut c = sylcol();
        c.args([cmd, path(&lib)]);
        if matches!(cmd, "export" | "rewrite") {
            c.args(["-o", path(&dir.path().join("out.obj"))]);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the CollisionSet walk failed at byte 0x0: record size: record 0"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn completions_and_man_page_describe_every_command() {
    let bash = sylcol().args(["completions", "bash"]).output().unwrap();
    let bash = String::from_utf8(bash.stdout).unwrap();
    for cmd in ["info", "verify", "export", "query", "pak"] {
        assert!(bash.contains(cmd), "{cmd}");
    }
    assert!(bash.contains("--json"));
    let man = sylcol().arg("man").output().unwrap();
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(
        man.starts_with(".ie") || man.contains(".TH sylcol"),
        "{}",
        &man[..200]
    );
    assert!(man.contains("verify") && man.contains("completions"));
}

#[test]
fn query_grid_text_names_its_source_in_words() {
    let text = |extra: &[&str]| {
        let out = sylcol()
            .args(["query", &fixture("box.mcol")])
            .args(extra)
            .arg("grid")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let file = text(&[]);
    assert!(
        file.starts_with("grid 10 x 10 x 10 (the file's grid)"),
        "{file}"
    );
    let derived = text(&["--grid", "derived"]);
    assert!(
        derived.starts_with("grid 2 x 2 x 2 (derived, 2 cells along the longest axis)"),
        "{derived}"
    );
    assert!(!derived.contains("Derived {") && !file.contains("File"));
}

/// A 0-byte file, standard input or archive entry is no object of any
/// format (a CollisionSet holds at least one record): every command
/// refuses it as empty, exit 2, naming it.
#[test]
fn an_empty_input_is_refused_as_empty_everywhere() {
    use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    for command in [["info"], ["verify"], ["rewrite"]] {
        let mut c = sylcol();
        c.args(command).arg(&empty);
        if command == ["rewrite"] {
            c.args(["-o", path(&dir.path().join("out.bin"))]);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(
            err.contains("empty.bin: empty: 0 bytes"),
            "{command:?}: {err}"
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("none-endian"));
    }
    let out = sylcol()
        .args(["--json", "info", "-"])
        .write_stdin(Vec::new())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(doc["error"]["kind"], "invalid");
    assert_eq!(doc["error"]["offset"], 0);

    // In an archive: the empty entry is an error, the others still verified.
    let pak = dir.path().join("Game.pak");
    let mcol = std::fs::read(fixture("twin.mcol")).unwrap();
    let entries = vec![
        NewEntry::named("empty.col", Vec::new(), false),
        NewEntry::named("twin.col", mcol, true),
    ];
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    std::fs::write(dir.path().join("names.txt"), "empty.col\ntwin.col\n").unwrap();
    let out = sylcol().arg("verify").arg(&pak).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("Game.pak+empty.col: empty: 0 bytes"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("twin.col"));
    let entry = format!("{}+empty.col", path(&pak));
    sylcol().args(["verify", &entry]).assert().code(2);
}
