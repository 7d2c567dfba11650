//! Inputs that cost more than their size, through the real binary: a face
//! of 200 000 corners, an OBJ line of 200 MiB, points far beyond the map,
//! floats JSON cannot hold (docs/reliability.md, "Inputs that cost more
//! than their size"). The Python race is `test_queries.py`'s.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::common::{fixture, path, samples, stderr, sylcol};
use crate::json_output::check;

/// An OBJ of `n` vertices on a circle and one face through all of them.
fn one_big_face(n: usize) -> String {
    let mut s = String::with_capacity(40 * n);
    for i in 0..n {
        let a = std::f64::consts::TAU * i as f64 / n as f64;
        let _ = writeln!(s, "v {} {} 0", 1e4 * a.cos(), 1e4 * a.sin());
    }
    s.push('f');
    for i in 1..=n {
        let _ = write!(s, " {i}");
    }
    s.push('\n');
    s
}

#[test]
fn a_face_of_200_000_corners_is_refused_for_the_u16_limit_before_it_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("face.obj");
    std::fs::write(&obj, one_big_face(200_000)).unwrap();
    let out = dir.path().join("face.mcol");
    let o = sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("face.obj: 200000 vertices: MCOL stores the count as u16, at most 65535"),
        "{err}"
    );
    // Welding may merge vertices, so then the triangles decide.
    let o = sylcol()
        .args(["build", "mcol", path(&obj), "-o", path(&out), "--weld"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("199998 triangles: MCOL stores the count as u16, at most 65535"),
        "{err}"
    );
    assert!(!out.exists());
}

/// A 200 MiB line (a sparse file: NUL bytes after `f 1 2 `) under a
/// 100 MiB address-space cap: refused at its line, never read whole.
#[cfg(unix)]
#[test]
fn an_obj_line_of_200_mib_is_refused_at_its_line_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("long.obj");
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nf 1 2 ").unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&obj).unwrap();
    file.set_len(200 << 20).unwrap();
    let out = dir.path().join("long.mcol");
    let o = crate::common::run_capped(
        100,
        &["build", "mcol", path(&obj), "-o", path(&out), "--json"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err: Value = serde_json::from_slice(&o.stderr).unwrap();
    check("error", &err);
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "long.obj: invalid OBJ file: line 3: the statement runs past 4194304 bytes (4 MiB)"
        ),
        "{message}"
    );
}

fn closest(point: &str) -> std::process::Output {
    let map = format!("{}+$DC4B0896", samples());
    sylcol()
        .args(["query", &map, "closest", "--point", point, "--json"])
        .output()
        .unwrap()
}

#[test]
fn far_points_answer_the_nearest_triangle_and_never_null() {
    // 1e20 was answered right; at 1e30 every distance rounded to one value
    // and the answer was triangle 0.
    let near: Value = serde_json::from_slice(&closest("1e20,1e20,1e20").stdout).unwrap();
    let o = closest("1e30,1e30,1e30");
    assert!(o.status.success(), "{}", stderr(&o));
    let far: Value = serde_json::from_slice(&o.stdout).unwrap();
    check("query", &far);
    assert_eq!(far["triangle"], near["triangle"]);
    assert_ne!(far["triangle"], 0);
    assert_eq!(far["point"], near["point"]);
    assert_eq!(far["distance"], json!(1.7320508e30));
    // At 3e38 the distance (5.2e38) is past f32's range: refused, exit 2,
    // nothing on standard output (it printed "distance": null).
    let o = closest("3e38,3e38,3e38");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err: Value = serde_json::from_slice(&o.stderr).unwrap();
    check("error", &err);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the nearest surface lies farther from the point than f32's range (3.4e38)"),
        "{err}"
    );
}

#[test]
fn a_batch_answers_a_point_past_f32s_range_with_an_error_in_its_place() {
    let map = format!("{}+$DC4B0896", samples());
    let o = sylcol()
        .args(["query", &map, "batch", "-"])
        .write_stdin("closest 1e30,1e30,1e30\nclosest -3e38,3e38,-3e38\nclosest 0,0,0\n")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let rows: Vec<Value> = o
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0]["distance"].is_number());
    assert_eq!(rows[1]["line"], 2);
    assert!(
        rows[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("f32's range")
    );
    assert!(rows[2]["distance"].is_number());
}

/// A header float JSON cannot hold (a NaN extent, -inf) is written as
/// text, which the schema allows, never as null.
#[test]
fn non_finite_header_floats_are_text_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixture("box.mcol")).unwrap();
    bytes[0x30..0x34].copy_from_slice(&f32::NAN.to_be_bytes());
    bytes[0x38..0x3c].copy_from_slice(&f32::NEG_INFINITY.to_be_bytes());
    let file = dir.path().join("nan.mcol");
    std::fs::write(&file, &bytes).unwrap();
    let o = sylcol()
        .args(["info", path(&file), "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    check("info", &doc);
    let doc = &doc["objects"][0];
    assert_eq!(doc["extent"], json!(["NaN", 500000.0, "-inf"]));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("null"));
    let text = sylcol().args(["info", path(&file)]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("(NaN, 500000, -inf)"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
}
