//! Open the wrong file, get the right hint (issue 35): an archive part
//! says which archive to open, a missing part is said once with its
//! entries counted, and a file of no sylcol format says what its first
//! bytes are.

use std::path::Path;

use serde_json::Value;

use crate::common::{path, samples_dir, stderr, sylcol};

/// The sample archive and its part copied into `dir`, under `stem`.
fn archive_in(dir: &Path, stem: &str, with_part: bool) -> String {
    std::fs::copy(
        samples_dir().join("MiscBin.pak"),
        dir.join(format!("{stem}.pak")),
    )
    .unwrap();
    if with_part {
        std::fs::copy(
            samples_dir().join("MiscBin.p00"),
            dir.join(format!("{stem}.p00")),
        )
        .unwrap();
    }
    dir.join(format!("{stem}.pak")).display().to_string()
}

/// Standard error of `sylcol ARGS`, which must exit 2.
fn refused(args: &[&str]) -> String {
    let out = sylcol().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    stderr(&out)
}

#[test]
fn a_part_says_it_is_one_and_which_archive_to_open() {
    let tmp = tempfile::tempdir().unwrap();
    let pak = archive_in(tmp.path(), "MiscBin", true);
    let part = tmp.path().join("MiscBin.p00");
    let want = format!(
        "{}: part 00 of the archive {pak} (where all 40 of its entries are stored), not one object: open the archive",
        part.display()
    );
    for args in [vec!["info"], vec!["verify"], vec!["export"], vec!["view"]] {
        let mut cmd = sylcol();
        cmd.args(&args).arg(&part);
        if args[0] == "export" || args[0] == "view" {
            cmd.arg("-o").arg(tmp.path().join("out.obj"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(&want), "{args:?}: {err}");
        assert!(!err.contains("CollisionSet walk"), "{err}");
    }
    let out = sylcol()
        .args(["--json", "info"])
        .arg(&part)
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(stderr(&out).lines().next().unwrap()).unwrap();
    assert_eq!(line["error"]["kind"], "usage");
}

#[test]
fn a_part_name_without_its_archive_says_what_the_bytes_are() {
    let tmp = tempfile::tempdir().unwrap();
    // No index beside it; then an index that points into another part.
    let lonely = tmp.path().join("Lonely.p00");
    std::fs::copy(samples_dir().join("MiscBin.p00"), &lonely).unwrap();
    archive_in(tmp.path(), "Other", true);
    let stray = tmp.path().join("Other.p01");
    std::fs::copy(samples_dir().join("MiscBin.p00"), &stray).unwrap();
    for file in [lonely, stray] {
        let err = refused(&["info", path(&file)]);
        assert!(
            err.contains(
                "not a format sylcol decodes: starts with 5a 31 00 00 …, no magic sylcol knows"
            ),
            "{err}"
        );
        assert!(!err.contains("part 0"), "{err}");
    }
}

#[test]
fn a_missing_part_is_said_once_with_its_entries_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let pak = archive_in(tmp.path(), "MiscBin", false);
    let once = format!(
        "{pak}: part file MiscBin.p00 is missing beside it: all 40 entries are stored there and cannot be read"
    );
    let out_dir = tmp.path().join("out");
    for args in [
        vec!["info", &pak],
        vec!["verify", &pak],
        vec!["pak", "list", &pak],
        vec!["export", &pak, "-o", path(&out_dir)],
    ] {
        let out = sylcol().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // One line names the part (export's report, on standard error too,
        // counts it as one failure).
        let err = stderr(&out);
        let lines: Vec<&str> = err.lines().filter(|l| l.contains("MiscBin.p00")).collect();
        assert_eq!(lines, [format!("sylcol: error: {once}")], "{args:?}");
        assert_eq!(err.matches("error").count(), 1, "{args:?}: {err}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("error:"), "{args:?}: {text}");
    }
    let listed: Value = serde_json::from_slice(
        &sylcol()
            .args(["--json", "pak", "list", &pak])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let errors = listed["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["kind"], "not_found");
    assert_eq!(errors[0]["path"], pak.as_str());
    // Each row still carries it, for a script that reads rows.
    let rows = listed["entries"].as_array().unwrap();
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| r["error"] == errors[0]));
}

#[test]
fn a_text_file_says_it_is_text() {
    let readme = format!("{}/../../README.md", env!("CARGO_MANIFEST_DIR"));
    let err = refused(&["info", &readme]);
    assert!(
        err.contains(&format!(
            "{readme}: not a format sylcol decodes: starts with \"# sy\" (23 20 73 79 …): text, not a sylcol format"
        )),
        "{err}"
    );
    assert!(
        !err.contains("not printable") && !err.contains("CollisionSet walk"),
        "{err}"
    );
}
