//! `sylcol names harvest / guess` and the `names.txt` pick-up, run as the
//! real binary on archives these tests build.

use std::path::{Path, PathBuf};

use crate::common::{fixture, path, run_json, sylcol};
use serde_json::Value;
use sylcol_format::idxd;
use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive, make_entry_id};

/// `Data.pak` (entries some strings name, one nothing names) and
/// `Tables.pak` (the fixture IDXD table and a blob with a UTF-16BE path).
fn make_disc(dir: &Path) -> (PathBuf, PathBuf) {
    let data = dir.join("dat").join("Data.pak");
    std::fs::create_dir_all(data.parent().unwrap()).unwrap();
    let entries = vec![
        NewEntry::named("mapmesh_box_500km.rgn", b"REGN...".to_vec(), true),
        NewEntry::named("dat\\stage\\S01.tbl", vec![7; 300], true),
        NewEntry::named("S01_AsteroidVolume_wp.rgn", vec![8; 300], false),
        NewEntry::named("eng\\GP_TITLE.tbl", vec![9; 300], true),
        NewEntry::hashed(0x0BAD_F00D, b"nothing names me".to_vec(), true),
    ];
    build_archive(&data, entries, WriteOptions::default()).unwrap();
    let mut blob = vec![0xFFu8; 33];
    blob.extend(
        "game:\\eng\\GP_TITLE.tbl"
            .encode_utf16()
            .flat_map(u16::to_be_bytes),
    );
    blob.extend([0, 0, 1, 2, 3]);
    let tables = dir.join("Tables.pak");
    let entries = vec![
        NewEntry::hashed(
            0x1111_1111,
            std::fs::read(fixture("names.idxd")).unwrap(),
            true,
        ),
        NewEntry::hashed(0x2222_2222, blob, true),
    ];
    build_archive(&tables, entries, WriteOptions::default()).unwrap();
    (data, tables)
}

fn archive<'a>(report: &'a Value, file: &str) -> &'a Value {
    report["archives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["path"].as_str().unwrap().ends_with(file))
        .unwrap_or_else(|| panic!("{file} in {report}"))
}

fn named<'a>(block: &'a Value, name: &str) -> &'a Value {
    block["named"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("{name} named in {block}"))
}

#[test]
fn harvest_names_what_strings_name_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    make_disc(dir.path());
    let out = dir.path().join("names.txt");
    let report = run_json(&[
        "names",
        "harvest",
        path(dir.path()),
        "-o",
        path(&out),
        "--json",
    ]);
    let data = archive(&report, "Data.pak");
    assert_eq!(data["pak"], "dat\\Data.pak");
    assert_eq!(data["named"].as_array().unwrap().len(), 4, "{data}");
    assert_eq!(data["unnamed"][0]["hash"], "0BADF00D");
    // Found exactly, in the IDXD pool: source and byte offset in the entry.
    let table = idxd::decode(&std::fs::read(fixture("names.idxd")).unwrap()).unwrap();
    let pool = table.pool();
    let tbl = named(data, "dat\\stage\\S01.tbl");
    assert_eq!(tbl["exact"], true);
    assert!(
        tbl["path"]
            .as_str()
            .unwrap()
            .ends_with("Tables.pak+$11111111.IDXD"),
        "{tbl}"
    );
    assert_eq!(
        tbl["offset"],
        table.pool_offset() + pool.strings[3].start as u64
    );
    // A variant: the .rgn twin of the pool's .col string.
    let wp = named(data, "S01_AsteroidVolume_wp.rgn");
    assert_eq!(
        (wp["exact"].clone(), wp["found"].clone()),
        (false.into(), "S01_AsteroidVolume_wp.col".into())
    );
    // A UTF-16BE run in a blob, its `game:\` prefix stripped.
    let title = named(data, "eng\\GP_TITLE.tbl");
    assert_eq!(title["offset"], 33);
    assert!(
        title["path"]
            .as_str()
            .unwrap()
            .ends_with("Tables.pak+$22222222"),
        "{title}"
    );
    assert_eq!(
        archive(&report, "Tables.pak")["named"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert!(report["stats"]["candidates"].as_u64().unwrap() > 100);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        [
            "dat\\Data.pak+dat\\stage\\S01.tbl",
            "dat\\Data.pak+eng\\GP_TITLE.tbl",
            "dat\\Data.pak+mapmesh_box_500km.rgn",
            "dat\\Data.pak+S01_AsteroidVolume_wp.rgn",
        ]
    );
}

#[test]
fn harvest_text_report_and_a_single_archive() {
    let dir = tempfile::tempdir().unwrap();
    let (data, tables) = make_disc(dir.path());
    let out = sylcol()
        .args(["names", "harvest", path(&data), path(&tables)])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Data.pak: 5 entries, 4 named, 1 unnamed"),
        "{text}"
    );
    assert!(text.contains("unnamed: $0BADF00D"), "{text}");
    assert!(
        text.contains("from \"S01_AsteroidVolume_wp.col\""),
        "{text}"
    );
    assert!(text.contains("candidates hashed"), "{text}");
}

#[test]
fn a_names_txt_beside_the_archive_is_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = make_disc(dir.path());
    let list = |p: &Path| -> Value { run_json(&["pak", "list", path(p), "--json"]) };
    let shown = |rows: &Value, hash: u32| -> String {
        let hex = format!("{hash:08X}");
        let row = rows["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["hash"] == hex.as_str())
            .unwrap();
        row["entry"].as_str().unwrap().to_string()
    };
    let tbl = make_entry_id("dat\\stage\\S01.tbl");
    assert!(shown(&list(&data), tbl).starts_with('$'));
    std::fs::write(
        data.with_file_name("names.txt"),
        "# from a harvest\ndat\\Data.pak+dat\\stage\\S01.tbl\nOther.pak+eng\\GP_TITLE.tbl\n",
    )
    .unwrap();
    let rows = list(&data);
    assert_eq!(shown(&rows, tbl), "dat\\stage\\S01.tbl");
    // A line for another archive is not applied here.
    assert!(shown(&rows, make_entry_id("eng\\GP_TITLE.tbl")).starts_with('$'));
    // An entry addressed by its picked-up name.
    let info = sylcol()
        .args(["info", &format!("{}+$0BADF00D", path(&data))])
        .output()
        .unwrap();
    assert!(
        !info.status.success(),
        "an unknown format is still reported as such"
    );
}

#[test]
fn guess_finds_the_planted_names() {
    let dir = tempfile::tempdir().unwrap();
    make_disc(dir.path());
    let report = run_json(&[
        "names",
        "guess",
        "S{01..16}_AsteroidVolume_wp.{col,rgn}",
        "--archive",
        path(dir.path()),
        "--json",
    ]);
    assert_eq!(report["candidates"], 32);
    let found = report["found"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["name"], "S01_AsteroidVolume_wp.rgn");
    assert_eq!(
        found[0]["entries"][0],
        "dat\\Data.pak+S01_AsteroidVolume_wp.rgn"
    );
    // Nothing found: exit 1. A bad pattern: exit 2 naming the place.
    sylcol()
        .args([
            "names",
            "guess",
            "x{1..3}.col",
            "--archive",
            path(dir.path()),
        ])
        .assert()
        .code(1);
    let bad = sylcol().args(["names", "guess", "x{1,2"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("character 1"));
}

#[test]
fn guess_without_an_archive_lists_every_hash() {
    let out = crate::common::run(&["names", "guess", "{eng/,}GP_TITLE.tbl"]);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "5EE70E0A eng\\GP_TITLE.tbl\nC899EBD9 GP_TITLE.tbl\n"
    );
}

/// A table string holding a newline hashes to an entry: the name is
/// skipped with an escaped note, never written as two lines of names.txt
/// or stdout; the other names are harvested as before.
#[test]
fn harvest_skips_a_name_with_a_control_character() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "a.bin\nGame.pak+b.bin";
    let text = format!(
        "format IDXD\nstring 0 \"a.bin\\nGame.pak+b.bin\"\nstring 1 \"ok.bin\"\n\
         record {:08X} s0 00000000 00000001\nrecord {:08X} s1 00000000 00000002\n\
         record 00000000 - 00000000 00000000\n",
        make_entry_id(evil),
        make_entry_id("ok.bin")
    );
    let table = idxd::encode(&idxd::text::from_text(&text).unwrap()).unwrap();
    let pak = dir.path().join("Game.pak");
    let entries = vec![
        NewEntry::hashed(0x1111_1111, table, true),
        NewEntry::hashed(make_entry_id(evil), b"X".to_vec(), false),
        NewEntry::hashed(make_entry_id("ok.bin"), b"Y".to_vec(), false),
    ];
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    let names = dir.path().join("names.txt");
    let out = sylcol()
        .args(["names", "harvest", path(&pak), "-o", path(&names)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let written = std::fs::read_to_string(&names).unwrap();
    for text in [&stdout, &written] {
        assert!(!text.contains("Game.pak+b.bin"), "{text}");
        assert!(!text.contains(evil), "{text}");
    }
    assert!(written.contains("Game.pak+ok.bin\n"), "{written}");
    assert!(
        stderr.contains("skipped \"a.bin\\x0aGame.pak+b.bin\" for entry"),
        "{stderr}"
    );
    assert!(stderr.contains("control character"), "{stderr}");
}

/// An unreadable entry: the others are harvested and the exit is 2 (the
/// rule for unreadable input, as docs/names.md says).
#[test]
fn harvest_exits_2_on_an_unreadable_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = make_disc(dir.path());
    // Cut the part file: the entries stored at its end cannot be read.
    let part = data.with_extension("p00");
    let len = std::fs::metadata(&part).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&part).unwrap();
    f.set_len(len / 2).unwrap();
    let out = sylcol()
        .args(["names", "harvest", path(&data)])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Data.p00"));
}

/// Thirty `{a,b}` groups would be 2^30 candidates: refused as a usage
/// error before any is made, naming the group that passes 2^20.
#[test]
fn guess_refuses_a_pattern_past_2_pow_20_candidates() {
    let pattern = "{a,b}".repeat(30);
    let out = sylcol()
        .args(["names", "guess", &pattern])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("character 100"), "{err}");
    assert!(err.contains("more than 1048576 candidates"), "{err}");
    let out = sylcol()
        .args(["--json", "names", "guess", &pattern])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(doc["error"]["kind"], "usage");
    // 2^20 itself is allowed (and names no entry of the disc: exit 1).
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = make_disc(dir.path());
    sylcol()
        .args(["names", "guess", &"{a,b}".repeat(20), "--archive"])
        .arg(&data)
        .assert()
        .code(1);
}
