//! Issue 35's export and help items: a whole archive to a `.glb` / `.gltf`
//! name is one scene (not a folder of that name), a map to `.ply` is PLY,
//! and the help texts and manual pages say what the commands do now.

use serde_json::Value;

use crate::cli_viewer::glb_json;
use crate::common::*;

#[test]
fn a_whole_archive_to_a_glb_name_is_one_scene_with_a_node_per_object() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let report = run_json(&["export", "--json", &samples(), "-o", path(&out)]);
    assert!(out.is_file(), "a file, not a folder named out.glb");
    let gltf = glb_json(&std::fs::read(&out).unwrap());
    let nodes = gltf["nodes"].as_array().unwrap();
    let root = &nodes[gltf["scenes"][0]["nodes"][0].as_u64().unwrap() as usize];
    assert_eq!(root["name"], "MiscBin");
    let objects: Vec<&Value> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &nodes[i.as_u64().unwrap() as usize])
        .collect();
    // 40 entries, 21 distinct contents: the library once, standing for 18.
    assert_eq!(objects.len(), 21);
    let library = objects
        .iter()
        .find(|n| n["extras"]["format"] == "CollisionSet")
        .unwrap();
    assert_eq!(
        library["extras"]["sylcol_entries"]
            .as_array()
            .unwrap()
            .len(),
        18
    );
    assert_eq!(
        library["children"].as_array().unwrap().len(),
        158,
        "a node per part"
    );
    let regn = objects
        .iter()
        .filter(|n| n["extras"]["format"] == "REGN")
        .count();
    assert!(regn >= 10, "REGN point clouds: {regn}");
    let maps = objects
        .iter()
        .filter(|n| n["extras"]["format"] == "MCOL")
        .count();
    assert!(maps >= 10, "maps: {maps}");
    assert_eq!(report["files"].as_array().unwrap().len(), 21);
    assert_eq!(
        report["skipped"].as_array().unwrap().len(),
        19,
        "the copies"
    );
    let text = stderr(
        &sylcol()
            .args(["export", &samples(), "-o", path(&out)])
            .output()
            .unwrap(),
    );
    assert!(text.contains("exported 1 file(s) to "), "{text}");
}

#[test]
fn an_archive_with_nothing_to_draw_is_refused_and_other_file_names_too() {
    let dir = tempfile::tempdir().unwrap();
    let tables = format!("{}/../../samples/Tables.pak", env!("CARGO_MANIFEST_DIR"));
    let out = dir.path().join("tables.glb");
    let run = sylcol()
        .args(["export", &tables, "-o", path(&out)])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("no entry has geometry"),
        "{}",
        stderr(&run)
    );
    assert!(!out.exists());
    for name in ["out.obj", "out.ply"] {
        let out = dir.path().join(name);
        let run = sylcol()
            .args(["export", &samples(), "-o", path(&out)])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{name}");
        assert!(stderr(&run).contains("one glTF scene"), "{}", stderr(&run));
        assert!(!out.exists(), "{name}");
    }
}

#[test]
fn a_map_to_ply_is_a_ply_mesh_that_builds_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("map.ply");
    run(&["export", &fixture("box.mcol"), "-o", path(&out)]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("ply\nformat ascii 1.0\n"), "{text}");
    assert!(text.contains("element vertex 8\n"), "{text}");
    assert!(text.contains("element face 12\n"), "{text}");
    // What build reads: the same mesh again.
    let built = dir.path().join("again.mcol");
    let j = run_json(&["build", "mcol", path(&out), "-o", path(&built), "--json"]);
    assert_eq!(j["triangles"], 12, "{j}");
    assert_eq!(j["vertices"], 8, "{j}");
}

mod help {
    use super::*;

    fn help(args: &[&str]) -> String {
        let out = sylcol().args(args).arg("--help").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        stdout(&out)
    }

    #[test]
    fn the_help_texts_say_what_the_commands_do() {
        let top = help(&[]);
        let line = |name: &str| {
            top.lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap_or_else(|| panic!("{name}: {top}"))
                .to_string()
        };
        assert!(line("export").contains("PLY"), "{top}");
        assert!(line("export").contains("text"), "{top}");
        assert!(
            line("info").contains("REGN") && line("info").contains("IDXD"),
            "{top}"
        );
        assert!(help(&["build"]).contains("idxd"));
        assert!(line("build").contains("IDXD"), "{top}");
        let batch = help(&["query", "x", "batch"]);
        for form in [
            "ray OX,OY,OZ DX,DY,DZ [MAX]",
            "sphere CX,CY,CZ R [MX,MY,MZ]",
            "inside PX,PY,PZ",
        ] {
            assert!(batch.contains(form), "{batch}");
        }
        let export = help(&["export"]);
        assert!(export.contains(".ply"), "{export}");
    }

    #[test]
    fn global_flags_stay_off_man_and_completions() {
        for cmd in [&["man"][..], &["completions"]] {
            let text = help(cmd);
            assert!(!text.contains("--json"), "{cmd:?}: {text}");
            assert!(!text.contains("--names"), "{cmd:?}: {text}");
        }
        assert!(
            help(&["info"]).contains("--json"),
            "still on the commands that report"
        );
    }

    #[test]
    fn man_writes_a_page_per_command() {
        let dir = tempfile::tempdir().unwrap();
        run(&["man", "-o", path(dir.path())]);
        for page in [
            "sylcol.1",
            "sylcol-info.1",
            "sylcol-verify.1",
            "sylcol-pak-list.1",
        ] {
            let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
            assert!(
                text.starts_with(".ie \\n(.g .ds Aq") || text.contains(".TH"),
                "{page}"
            );
        }
        let info = std::fs::read_to_string(dir.path().join("sylcol-info.1")).unwrap();
        assert!(info.contains("sylcol\\-info"), "{info}");
        let one = String::from_utf8(run(&["man", "info"])).unwrap();
        assert_eq!(one, info);
        let top = String::from_utf8(run(&["man"])).unwrap();
        assert_eq!(
            top,
            std::fs::read_to_string(dir.path().join("sylcol.1")).unwrap()
        );
    }
}
