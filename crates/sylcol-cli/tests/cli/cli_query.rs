//! The real `sylcol` binary answering `query` on the MCOL fixtures (maps
//! made by an independent script, not by sylcol).

use crate::common::{fixture, run_json, sylcol};
use serde_json::{Value, json};

/// `sylcol query box.mcol ARGS`.
fn query(args: &[&str]) -> std::process::Output {
    let file = fixture("box.mcol");
    sylcol()
        .args(["query", file.as_str()])
        .args(args)
        .output()
        .unwrap()
}

/// `sylcol query box.mcol ARGS` (which must succeed and print JSON).
fn json_of(args: &[&str]) -> Value {
    let file = fixture("box.mcol");
    run_json(&[&["query", file.as_str()], args].concat())
}

#[test]
fn ray_from_inside_leaves_the_box() {
    let j = json_of(&["ray", "--origin", "0,0,0", "--dir", "0,0,-1", "--json"]);
    assert_eq!(j["hit"], true);
    assert_eq!(j["time_of_impact"], 250000.0);
    assert_eq!(j["point"], json!([0.0, 0.0, -250000.0]));
    assert_eq!(j["normal"], json!([0.0, 0.0, -1.0]));
    assert!(j["triangle"].is_u64());
    // From outside, negative coordinates, limited by --max.
    let far = [
        "ray",
        "--origin",
        "-300000,1,2",
        "--dir",
        "1,0,0",
        "--max",
        "40000",
        "--json",
    ];
    assert_eq!(json_of(&far)["hit"], false);
    let text = String::from_utf8(query(&far[..far.len() - 3]).stdout).unwrap();
    assert!(text.starts_with("hit triangle"), "{text}");
    assert!(text.contains("t = 50000"), "{text}");
}

#[test]
fn segment_inside_closest_sphere() {
    let s = json_of(&["segment", "--from", "0,0,0", "--to", "0,300000,0", "--json"]);
    assert_eq!(s["hit"], true);
    assert_eq!(s["point"], json!([0.0, 250000.0, 0.0]));
    let i = json_of(&["inside", "--point", "1,2,3", "--json"]);
    assert_eq!(i, json!({"query": "inside", "inside": true}));
    let o = json_of(&["inside", "--point", "0,0,250001", "--json"]);
    assert_eq!(o["inside"], false);
    let c = json_of(&["closest", "--point", "1000,2000,3000", "--json"]);
    assert_eq!(c["distance"], 247000.0);
    let sw = json_of(&[
        "sphere",
        "--centre",
        "0,0,0",
        "--radius",
        "1000",
        "--motion",
        "300000,0,0",
        "--json",
    ]);
    assert_eq!(sw["hit"], true);
    assert_eq!(sw["time_of_impact"], 0.83);
    assert_eq!(sw["normal"], json!([-1.0, 0.0, 0.0]));
    let still = json_of(&["sphere", "--centre", "0,0,0", "--radius", "1000", "--json"]);
    assert_eq!(still["hit"], false);
}

#[test]
fn derived_grid_gives_the_same_answers() {
    for grid in ["derived", "3"] {
        let j = json_of(&[
            "ray", "--origin", "5,6,7", "--dir", "1,1,1", "--grid", grid, "--json",
        ]);
        let k = json_of(&["ray", "--origin", "5,6,7", "--dir", "1,1,1", "--json"]);
        assert_eq!(j["time_of_impact"], k["time_of_impact"]);
    }
    let g = json_of(&["grid", "--json"]);
    assert_eq!(g["dims"], json!([10, 10, 10]));
    assert_eq!(g["unlisted_triangles"], 0);
    assert_eq!(g["source"], "file");
    assert_eq!(g["occupied_cells"], 488);
    let d = json_of(&["grid", "--grid", "derived", "--json"]);
    assert_eq!(
        (&d["source"], &d["cells_per_axis"]),
        (&json!("derived"), &json!(2))
    );
    assert_eq!(g["too_coarse"], false);
    assert_eq!(g["missing_entries"], 0);
}

/// `sylcol query box.mcol batch PATH`: its exit code and its JSON lines.
fn batch_rows(path: &std::path::Path) -> (Option<i32>, Vec<Value>) {
    let out = query(&["batch", path.to_str().unwrap()]);
    let rows = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code(), rows)
}

#[test]
fn batch_answers_in_order_and_flags_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.txt");
    let lines = "ray 0,0,0 1,0,0\n# a comment\ninside 1,2,3\nsegment 0,0,0 1,1,1\nfly 1,2,3\nclosest 0,0,0\nsphere 0,0,0 10 0,0,-300000\nray 0,0,0 0,0,0\n";
    std::fs::write(&path, lines).unwrap();
    let (status, rows) = batch_rows(&path);
    assert_eq!(status, Some(2));
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0]["query"], "ray");
    assert_eq!(rows[0]["time_of_impact"], 250000.0);
    assert_eq!(rows[1]["inside"], true);
    assert_eq!(rows[2]["hit"], false);
    assert_eq!(rows[3]["line"], 5);
    assert!(
        rows[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("fly")
    );
    assert_eq!(rows[3]["error"]["kind"], "query");
    assert_eq!(rows[4]["distance"], 250000.0);
    assert_eq!(rows[5]["normal"], json!([0.0, 0.0, 1.0]));
    assert_eq!(rows[6]["line"], 8);
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "inside 0,0,0\n").unwrap();
    assert!(query(&["batch", good.to_str().unwrap()]).status.success());
}

/// An over-long line and a line that is not UTF-8 are bad lines like
/// any other: answered with an error in their place, the lines around
/// them answered, and no line held whole (a batch fed an endless line
/// once grew until the allocator aborted).
#[test]
fn batch_refuses_overlong_and_non_utf8_lines_in_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.txt");
    let mut bytes = b"inside 0,0,0\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', 200_000));
    bytes.extend(b"\ninside 0,0,0\nray \xff 0,0,0\ninside 0,0,0\n");
    std::fs::write(&path, bytes).unwrap();
    let (status, rows) = batch_rows(&path);
    assert_eq!(status, Some(2));
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[1]["line"], 2);
    let message = rows[1]["error"]["message"].as_str().unwrap();
    assert!(message.contains("longer than 65536 bytes"), "{message}");
    assert!(message.len() < 200, "the line is not echoed: {message}");
    assert_eq!(rows[3]["line"], 4);
    let message = rows[3]["error"]["message"].as_str().unwrap();
    assert!(message.contains("not UTF-8"), "{message}");
    for i in [0, 2, 4] {
        assert_eq!(rows[i]["inside"], true, "row {i}");
    }
}

/// A batch of thousands of lines is answered on every core in blocks,
/// still one answer a line in order, each the single query's answer.
#[test]
fn large_batch_answers_every_line_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.txt");
    let n = 5_000;
    let text: String = (0..n)
        .map(|i| match i % 3 {
            0 => format!("ray {},0,0 1,0,0\n", 10 * i),
            1 => format!("inside 0,0,{}\n", 100 * i),
            _ if i == 2_000 => "ray 0,0,0 0,0,0\n".to_string(),
            _ => format!("closest {},0,0\n", -7 * i as i64),
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let (status, rows) = batch_rows(&path);
    assert_eq!(status, Some(2));
    assert_eq!(rows.len(), n);
    // t and distances carry f32 rounding (~0.03 at this 250 000 scale).
    let near = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 0.1;
    for (i, row) in rows.iter().enumerate() {
        match i % 3 {
            0 => assert!(near(&row["time_of_impact"], 250_000.0 - 10.0 * i as f64)),
            1 => assert_eq!(row["inside"], json!(100 * i <= 250_000)),
            _ if i == 2_000 => assert_eq!(row["line"], 2_001),
            _ => assert!(near(&row["distance"], 250_000.0 - 7.0 * i as f64)),
        }
    }
}

/// Fed a line at a time on standard input, `batch -` answers each line
/// before the next arrives (it does not wait for a full block).
#[test]
fn batch_on_stdin_answers_each_line_as_it_comes() {
    use std::io::{BufRead, BufReader, Write};
    let file = fixture("box.mcol");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sylcol"))
        .args(["query", file.as_str(), "batch", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for x in [0, 1000, 2000] {
        writeln!(stdin, "ray {x},0,0 1,0,0").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let row: Value = serde_json::from_str(&line).unwrap();
        let t = row["time_of_impact"].as_f64().unwrap();
        assert!((t - (250_000.0 - f64::from(x))).abs() < 0.1, "{row}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn bad_input_exits_2() {
    let zero = query(&["ray", "--origin", "0,0,0", "--dir", "0,0,0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("zero length"));
    let neg = query(&["sphere", "--centre", "0,0,0", "--radius", "-1"]);
    assert_eq!(neg.status.code(), Some(2));
    let junk = query(&["inside", "--point", "1,2"]);
    assert_eq!(junk.status.code(), Some(2));
    let mesh = query(&["inside", "--point", "1,2,3", "--mesh", "rou_e101_bdy"]);
    assert_eq!(mesh.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let not_mcol = dir.path().join("x.bin");
    std::fs::write(&not_mcol, b"JUNKJUNKJUNK").unwrap();
    let out = sylcol()
        .args([
            "query",
            not_mcol.to_str().unwrap(),
            "inside",
            "--point",
            "0,0,0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn queries_read_archive_entries() {
    use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};
    let dir = tempfile::tempdir().unwrap();
    let pak = dir.path().join("MiscBin.pak");
    let map = std::fs::read(fixture("box.mcol")).unwrap();
    let entries = vec![NewEntry::named("mapmesh_box_500km.col", map, true)];
    let options = WriteOptions {
        part_limit: 1 << 20,
        level: 6,
    };
    build_archive(&pak, entries, options).unwrap();
    let file = format!("{}+mapmesh_box_500km.col", pak.display());
    let j = run_json(&[
        "query", &file, "ray", "--origin", "0,0,0", "--dir", "1,0,0", "--json",
    ]);
    assert_eq!(j["point"], json!([250000.0, 0.0, 0.0]));
}

#[test]
fn queries_pick_a_collisionset_mesh() {
    use sylcol_format::collisionset::{self, CollisionSet, Endian, Record};
    // Two unit-ish cubes: `near_cmesh` around the origin, `far_cmesh` at x = 100.
    let cube = |dx: f32| {
        let v: Vec<[f32; 3]> = (0..8)
            .map(|i| {
                [
                    dx + (i & 1) as f32 * 2.0 - 1.0,
                    ((i >> 1) & 1) as f32 * 2.0 - 1.0,
                    (i >> 2) as f32 * 2.0 - 1.0,
                ]
            })
            .collect();
        let t = vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ];
        (v, t)
    };
    let (v1, t1) = cube(0.0);
    let (v2, t2) = cube(100.0);
    let set = CollisionSet {
        endian: Endian::Big,
        records: vec![
            Record::new("near_cmesh", v1, t1).unwrap(),
            Record::new("far_cmesh", v2, t2).unwrap(),
        ],
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("CollisionSet_test.bin");
    std::fs::write(&file, collisionset::encode(&set).unwrap()).unwrap();
    let run = |mesh: &str| {
        run_json(&[
            "query",
            file.to_str().unwrap(),
            "--mesh",
            mesh,
            "ray",
            "--origin",
            "-10,0,0",
            "--dir",
            "1,0,0",
            "--json",
        ])
    };
    assert_eq!(run("near_cmesh")["point"], json!([-1.0, 0.0, 0.0]));
    assert_eq!(run("far_cmesh")["point"], json!([99.0, 0.0, 0.0]));
    // Without --mesh, or with an unknown one: a usage error naming the file.
    for extra in [vec![], vec!["--mesh", "nope"]] {
        let out = sylcol()
            .args(["query", file.to_str().unwrap()])
            .args(extra)
            .args(["inside", "--point", "0,0,0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("CollisionSet_test.bin"));
    }
}

/// `--accel bvh` answers rays and segments through the BVH: on a sample
/// map of 218 triangles (more than the 64 the grid path scans)
/// exactly as through the map's own grid, in single queries and batches.
#[test]
fn bvh_gives_the_grids_answers() {
    let map = format!("{}+$D84A95FB", crate::common::samples());
    let rays = [
        ["ray", "--origin", "0,0,0", "--dir", "1,0.3,0.2"],
        ["ray", "--origin", "1000,-2000,500", "--dir", "-0.2,1,0.1"],
        ["segment", "--from", "0,0,0", "--to", "900000,1000,-300"],
    ];
    for args in rays {
        let grid = run_json(&[&["query", map.as_str()], &args[..], &["--json"]].concat());
        let bvh = run_json(
            &[
                &["query", map.as_str()],
                &args[..],
                &["--accel", "bvh", "--json"],
            ]
            .concat(),
        );
        assert_eq!(grid, bvh, "{args:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rays.txt");
    let lines: String = (0..300)
        .map(|i| {
            format!(
                "ray {},{},0 {},1,0.5\n",
                37 * i,
                -11 * i,
                0.01 * i as f32 - 1.0
            )
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    let batch = |accel: &str| {
        let out = sylcol()
            .args(["query", map.as_str(), "batch", path.to_str().unwrap()])
            .args(["--accel", accel])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (grid, bvh) = (batch("grid"), batch("bvh"));
    assert_eq!(grid.lines().count(), 300);
    assert!(grid.contains("\"hit\":true"), "{grid}");
    assert_eq!(grid, bvh);
    let bad = query(&[
        "ray", "--origin", "0,0,0", "--dir", "1,0,0", "--accel", "kd",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
