//! The real `sylcol query` on the sample library's parts that are not
//! fully manifold: an engine (an open nozzle, single-sided fins welded to
//! it: edges used once and by three) answers rays, nearest points and
//! sweeps, and refuses `inside` with the reason, alone, in a batch and
//! through `serve`; a wing of double-sided panels (edges shared by four)
//! answers `inside`.

use crate::cli_viewer::Server;
use crate::common::{run_json, samples, stderr, sylcol};
use serde_json::Value;

/// The sample library.
fn library() -> String {
    format!("{}+CollisionSet_S01.bin", samples())
}

/// `sylcol query LIBRARY --mesh MESH --json ARGS`.
fn query(mesh: &str, args: &[&str]) -> std::process::Output {
    sylcol()
        .args(["query", &library(), "--mesh", mesh, "--json"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn an_engine_answers_every_query_but_inside_and_says_why() {
    let engine = "rou_e101_eng_01";
    let out = query(engine, &["inside", "--point", "0,0,0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["kind"], "unsupported", "{err}");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("+rou_e101_eng_01: inside has no answer on this mesh")
            && message.contains("edges are used by an odd number of triangles"),
        "{message}"
    );
    assert!(out.stdout.is_empty());
    let lib = library();
    let ask = |args: &[&str]| {
        run_json(&[&["query", lib.as_str(), "--mesh", engine, "--json"], args].concat())
    };
    let closest = ask(&["closest", "--point", "0,0,0"]);
    assert!(closest["distance"].as_f64().unwrap() >= 0.0, "{closest}");
    // Aimed at the nearest surface point: a ray and a sphere sweep meet it.
    let p = &closest["point"];
    let to = format!("{},{},{}", p[0], p[1], p[2]);
    let ray = ask(&["ray", "--origin", "0,0,0", "--dir", &to]);
    assert_eq!(ray["hit"], true, "{ray}");
    let sphere = ask(&[
        "sphere", "--centre", "0,0,0", "--radius", "0.01", "--motion", &to,
    ]);
    assert_eq!(sphere["hit"], true, "{sphere}");
}

#[test]
fn a_batch_refuses_its_inside_lines_on_an_engine_and_answers_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.txt");
    std::fs::write(
        &path,
        "closest 0,0,0\ninside 0,0,0\nray 0,0,0 1,0,0\ninside 1,2,3\n",
    )
    .unwrap();
    let out = query("rou_e101_eng_01", &["batch", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["query"], "closest");
    assert_eq!(rows[2]["query"], "ray");
    for (row, line) in [(&rows[1], 2), (&rows[3], 4)] {
        assert_eq!(row["line"], line);
        let message = row["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("inside has no answer"), "{message}");
    }
}

#[test]
fn double_sided_wing_panels_enclose_nothing() {
    // Answered (every edge is shared by two or four), and a point off the
    // panels is outside: each panel is crossed twice, once per winding.
    let wing = "rou_e901_wing_01_L";
    let out = query(wing, &["inside", "--point", "0,0,0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let inside: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inside["inside"], false);
    let lib = library();
    let closest = run_json(&[
        "query", &lib, "--mesh", wing, "--json", "closest", "--point", "0,0,0",
    ]);
    assert!(closest["distance"].as_f64().unwrap() > 0.0, "{closest}");
}

#[test]
fn serve_refuses_inside_on_an_engine_as_the_cli_does() {
    let server = Server::start(&[&samples()]);
    let ask = |mesh: &str, query: &str| {
        let body = format!(
            r#"{{"object":"CollisionSet_S01","mesh":"{mesh}","queries":["closest 0,0,0","{query}"]}}"#
        );
        server.request("POST", "/api/query", &body)
    };
    let (status, body) = ask("rou_e101_eng_01", "inside 0,0,0");
    assert_eq!(status, 400, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    let cli = query("rou_e101_eng_01", &["inside", "--point", "0,0,0"]);
    let cli: Value = serde_json::from_slice(&cli.stderr).unwrap();
    let why = |m: &str| m.split_once(": ").unwrap().1.to_string();
    assert_eq!(
        why(error["error"].as_str().unwrap()),
        why(cli["error"]["message"].as_str().unwrap()),
        "query 1 names the line, then the CLI's reason"
    );
    let (status, body) = ask("rou_e101_eng_01", "ray 0,0,0 1,0,0");
    assert_eq!(status, 200, "{body}");
    let (status, body) = ask("rou_e901_wing_01_L", "inside 0,0,0");
    assert_eq!(status, 200, "{body}");
    let answers: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answers[1]["inside"], false);
    assert!(server.interrupt().status.success());
}
