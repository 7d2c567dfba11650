//! The real `sylcol` binary on the MCOL fixtures: info, export, rewrite,
//! probe, and the exit codes.

use crate::common::{fixture, run_json as json_of, sylcol};

#[test]
fn info_json_has_the_contract_keys() {
    let j = json_of(&["info", &fixture("box.mcol"), "--json"])["objects"][0].clone();
    assert_eq!(j["format"], "MCOL");
    assert_eq!(j["vertices"], 8);
    assert_eq!(j["triangles"], 12);
    assert_eq!(j["grid"]["dims"], serde_json::json!([10, 10, 10]));
    assert_eq!(
        j["bbox_min"],
        serde_json::json!([-250000.0, -250000.0, -250000.0])
    );
    assert_eq!(j["grid"]["cell_size"][0], 50000.0);
    assert_eq!(j["grid"]["occupied_cells"], 488);
    assert_eq!(j["relocations"], 4 + 2 * 488);
    assert_eq!(j["header_slots"], serde_json::json!([84, 88, 92, 116]));
    assert_eq!(j["pof0_base"], 16);
    assert_eq!(j["offsets"]["spheres"], 0x80);
    for k in ["vertices", "triangles", "cells", "records", "lists"] {
        assert!(j["offsets"][k].is_u64(), "{k}");
    }
    assert_eq!(j["pof0_offset"], 0x10 + j["data_size"].as_u64().unwrap());
    assert_eq!(
        j["bytes"],
        std::fs::metadata(fixture("box.mcol")).unwrap().len()
    );
    assert!(j["data_size"].is_u64() && j["grid"]["list_entries"].is_u64());
    let q = json_of(&["info", &fixture("quirks.mcol"), "--json"])["objects"][0].clone();
    assert_eq!(q["pof0_base"], 0);
}

#[test]
fn info_text_reads_well() {
    let out = sylcol()
        .args(["info", &fixture("twin.mcol")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("12 vertices, 16 triangles"), "{text}");
    assert!(text.contains("grid          5 x 5 x 5"), "{text}");
}

#[test]
fn export_writes_every_vertex_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("twin.obj");
    sylcol()
        .args(["export", &fixture("twin.mcol"), "-o"])
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let m = sylcol_format::mcol::decode(&std::fs::read(fixture("twin.mcol")).unwrap()).unwrap();
    let vs: Vec<[f32; 3]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let p: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [p[0], p[1], p[2]]
        })
        .collect();
    assert_eq!(vs, m.vertices);
    let fs: Vec<[u16; 3]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("f "))
        .map(|l| {
            let p: Vec<u16> = l
                .split(' ')
                .map(|x| x.parse::<u16>().unwrap() - 1)
                .collect();
            [p[0], p[1], p[2]]
        })
        .collect();
    assert_eq!(fs, m.triangles);
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn rewrite_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["box.mcol", "twin.mcol", "quirks.mcol"] {
        let out = dir.path().join(name);
        sylcol()
            .args(["rewrite", &fixture(name), "-o"])
            .arg(&out)
            .assert()
            .success()
            .stderr(predicates::str::contains("byte-identical"));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(fixture(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn probe_finds_the_header_pointers_and_the_runs() {
    let j = json_of(&["probe", &fixture("box.mcol"), "--json"]);
    assert_eq!(j["magic"], "MCOL");
    assert_eq!(j["header_slots"], serde_json::json!([84, 88, 92, 116]));
    assert_eq!(j["pof0_base"], 16);
    assert_eq!(j["gap_histogram"][0]["gap"], 32);
    let words = j["header_words"].as_array().unwrap();
    let w5c = words.iter().find(|w| w["offset"] == 0x5C).unwrap();
    assert_eq!(w5c["target"], 0x80);
    assert_eq!(w5c["lands"], "the first byte after the header");
    let w74 = words.iter().find(|w| w["offset"] == 0x74).unwrap();
    assert!(
        w74["lands"]
            .as_str()
            .unwrap()
            .starts_with("8 bytes before run"),
        "{w74}"
    );
    let text = sylcol()
        .args(["probe", &fixture("box.mcol")])
        .output()
        .unwrap()
        .stdout;
    assert!(
        String::from_utf8(text)
            .unwrap()
            .contains("runs of equal stride")
    );
}

#[test]
fn probe_works_on_an_unknown_chunk() {
    // The box with another magic: sylcol cannot decode it, probe still reads it.
    let mut d = std::fs::read(fixture("box.mcol")).unwrap();
    d[..4].copy_from_slice(b"UNKN");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.unkn");
    std::fs::write(&p, &d).unwrap();
    let j = json_of(&["probe", p.to_str().unwrap(), "--json"]);
    assert_eq!(j["magic"], "UNKN");
    assert_eq!(j["relocations"], 980);
    sylcol()
        .args(["info", p.to_str().unwrap()])
        .assert()
        .code(2);
}

#[test]
fn bad_input_exits_2_naming_file_and_offset() {
    let mut d = std::fs::read(fixture("box.mcol")).unwrap();
    d[0x54..0x58].copy_from_slice(&0x20u32.to_be_bytes());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.mcol");
    std::fs::write(&p, &d).unwrap();
    for cmd in ["info", "export", "rewrite"] {
        let mut c = sylcol();
        c.args([cmd, p.to_str().unwrap()]);
        if cmd != "info" {
            c.args(["-o", dir.path().join("out").to_str().unwrap()]);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("bad.mcol") && err.contains("0x54"),
            "{cmd}: {err}"
        );
    }
    assert!(!dir.path().join("out").exists());
    sylcol()
        .args(["info", "/nonexistent/x.mcol"])
        .assert()
        .code(2);
    sylcol().args(["info"]).assert().code(2);
    sylcol().args(["frobnicate"]).assert().code(2);
}
