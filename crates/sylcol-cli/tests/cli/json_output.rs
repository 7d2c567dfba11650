//! Every command's real `--json` output, on the shipped samples and the
//! hand-made fixtures, validated against its schema in `docs/json/` (the
//! schemas are generated from the report types: `crates/sylcol/tests/integration/json_schemas.rs`).

use std::path::Path;

use crate::common::{fixture, path, samples, sylcol};
use serde_json::Value;

fn validator(stem: &str) -> jsonschema::Validator {
    let file = format!(
        "{}/../../docs/json/{stem}.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

pub(crate) fn check(stem: &str, doc: &Value) {
    let v = validator(stem);
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{stem}: {errors:#?}\n{doc:#}");
}

/// Runs `sylcol ARGS --json`, checks the exit code, validates stdout.
fn validated(stem: &str, args: &[&str], code: i32) -> Value {
    let out = sylcol().args(args).arg("--json").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "sylcol {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    check(stem, &doc);
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        check("error", &serde_json::from_str(line).unwrap());
    }
    doc
}

#[test]
fn info_verify_probe_and_query_match_their_schemas() {
    let s01 = format!("{}+CollisionSet_S01.bin", samples());
    let map = format!("{}+$DC4B0896", samples());
    for file in [fixture("box.mcol"), fixture("quirks.mcol"), s01.clone()] {
        validated("info", &["info", &file], 0);
    }
    let archive = validated("info", &["info", &samples()], 0);
    assert_eq!(archive["objects"].as_array().unwrap().len(), 40);
    let run = validated(
        "verify",
        &["verify", &fixture("box.mcol"), &fixture("twin.mcol"), &s01],
        0,
    );
    assert!(run["objects"][0]["checks"][0]["id"].is_string());
    validated("verify", &["verify", &fixture("quirks.mcol")], 1);
    validated("probe", &["probe", &fixture("twin.mcol")], 0);
    validated(
        "query",
        &["query", &map, "ray", "--origin", "0,0,0", "--dir", "1,0,0"],
        0,
    );
    validated(
        "query",
        &[
            "query",
            &s01,
            "--mesh",
            "rou_e101_bdy",
            "closest",
            "--point",
            "0,0,0",
        ],
        0,
    );
    validated("query-grid", &["query", &map, "grid"], 0);
    validated(
        "query-grid",
        &["query", &map, "--grid", "derived", "grid"],
        0,
    );
}

#[test]
fn writing_commands_report_json_matching_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let s01 = format!("{}+CollisionSet_S01.bin", samples());
    let obj = d("box.obj");
    let e = validated(
        "export",
        &["export", &fixture("box.mcol"), "-o", path(&obj)],
        0,
    );
    assert_eq!(e["files"][0]["triangles"], 12);
    let lib = validated("export", &["export", &s01, "-o", path(&d("parts"))], 0);
    assert_eq!(lib["files"].as_array().unwrap().len(), 158);
    let all = validated("export", &["export", &samples(), "-o", path(&d("all"))], 0);
    assert_eq!(
        all["skipped"].as_array().unwrap().len(),
        17,
        "repeated libraries"
    );
    let r = validated(
        "rewrite",
        &["rewrite", &fixture("twin.mcol"), "-o", path(&d("t.mcol"))],
        0,
    );
    assert_eq!(r["identical"], true);
    validated(
        "build-mcol",
        &["build", "mcol", path(&obj), "-o", path(&d("b.mcol"))],
        0,
    );
    validated(
        "build-collisionset",
        &[
            "build",
            "collisionset",
            path(&d("parts")),
            "-o",
            path(&d("lib.bin")),
        ],
        0,
    );
    let list = validated("pak-list", &["pak", "list", &samples()], 0);
    assert_eq!(list["entries"].as_array().unwrap().len(), 40);
    let x = validated(
        "pak-extract",
        &[
            "pak",
            "extract",
            &samples(),
            "-o",
            path(&d("x")),
            "$DC4B0896",
            "$2CF7EB47",
        ],
        0,
    );
    assert_eq!(x["files"].as_array().unwrap().len(), 2);
    let b = validated(
        "pak-build",
        &[
            "pak",
            "build",
            path(&d("x")),
            "-o",
            path(&d("MiscBin.pak")),
            "--level",
            "1",
        ],
        0,
    );
    assert_eq!(b["entries"], 2);
    let pair = format!("$2CF7EB47={}", crate::common::fixture("box.mcol"));
    let r = validated(
        "pak-replace",
        &[
            "pak",
            "replace",
            path(&d("MiscBin.pak")),
            &pair,
            "--in-place",
        ],
        0,
    );
    assert_eq!(r["replaced"][0]["entries"].as_array().unwrap().len(), 1);
    let r = validated("pak-recover", &["pak", "recover", path(&d("x"))], 0);
    assert_eq!(r["recovered"], serde_json::json!([]));
}

#[test]
fn errors_are_json_on_stderr_with_path_offset_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.bin");
    let mut bytes = std::fs::read(fixture("box.mcol")).unwrap();
    bytes.truncate(0x90);
    std::fs::write(&bad, &bytes).unwrap();
    let (absent, stl, box_mcol) = (
        dir.path().join("absent"),
        dir.path().join("a.stl"),
        fixture("box.mcol"),
    );
    let cases: [(&[&str], &str); 4] = [
        (&["info", path(&bad)], "invalid"),
        (&["info", path(&absent)], "io"),
        (&["info", "--bogus-flag"], "usage"),
        (&["export", &box_mcol, "-o", path(&stl)], "usage"),
    ];
    for (args, kind) in cases {
        let out = sylcol().args(args).arg("--json").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let line: Value = serde_json::from_slice(&out.stderr).unwrap();
        check("error", &line);
        assert_eq!(line["error"]["kind"], kind, "{args:?}: {line}");
    }
    let out = sylcol()
        .args(["info", path(&bad), "--json"])
        .output()
        .unwrap();
    let line: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(line["error"]["path"], path(&bad));
    assert!(line["error"]["offset"].is_u64());
    // A missing argument is named, not only announced.
    let out = sylcol()
        .args(["--json", "query", &box_mcol, "ray"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(
        line["error"]["message"],
        "the following required arguments were not provided: --origin <ORIGIN> --dir <DIR>"
    );
}

#[test]
fn batch_lines_match_their_schema() {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("q.txt");
    std::fs::write(&queries, "ray 0,0,0 1,0,0\nfly 1,2,3\ninside 0,0,0\n").unwrap();
    let out = sylcol()
        .args(["query", &fixture("box.mcol"), "batch", path(&queries)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        check("query-batch", line);
    }
    assert_eq!(lines[1]["error"]["kind"], "query");
}

#[test]
fn every_schema_is_exercised() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/json");
    let this = include_str!("json_output.rs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".schema.json") {
            assert!(
                this.contains(&format!("\"{stem}\"")),
                "{stem}: no test validates output against it"
            );
        }
    }
}

#[test]
fn names_and_pairs_match_their_schemas() {
    let folder = crate::common::samples_dir().display().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let names = tmp.path().join("names.txt");
    let harvest = validated(
        "names-harvest",
        &["names", "harvest", &folder, "-o", path(&names)],
        0,
    );
    assert_eq!(harvest["archives"].as_array().unwrap().len(), 2);
    let pattern = "S{01..16}{,_p1,_p2}_AsteroidVolume_wp.{col,rgn}";
    validated(
        "names-guess",
        &["names", "guess", pattern, "--archive", &folder],
        0,
    );
    validated("pairs", &["pairs", &samples(), "--names", path(&names)], 0);
    validated("pairs", &["pairs", &samples()], 1);
}

#[test]
fn regn_and_table_reports_match_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        fixture("twin.regn"),
        fixture("quirks.regn"),
        fixture("names.ixud"),
    ] {
        validated("info", &["info", &file], 0);
    }
    validated("verify", &["verify", &fixture("quirks.regn")], 1);
    validated("verify", &["verify", &fixture("names.idxd")], 0);
    let txt = dir.path().join("t.txt");
    validated(
        "export",
        &["export", &fixture("names.idxd"), "-o", path(&txt)],
        0,
    );
    let back = dir.path().join("t.idxd");
    let built = validated(
        "build-idxd",
        &["build", "idxd", path(&txt), "-o", path(&back)],
        0,
    );
    assert_eq!(built["format"], "IDXD");
    let ply = dir.path().join("t.ply");
    validated(
        "export",
        &["export", &fixture("twin.regn"), "-o", path(&ply)],
        0,
    );
    validated(
        "rewrite",
        &["rewrite", &fixture("twin.regn"), "-o", path(&back)],
        0,
    );
}
