//! `sylcol pak list / extract / build` run as the real binary on archives
//! these tests build.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::sylcol;
use serde_json::Value;
use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive, make_entry_id};

fn payload(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| b"vertex triangle sphere cell "[i % 28] ^ (seed.wrapping_mul((i / 97) as u8)))
        .collect()
}

/// A multi-part archive: named, unknown, stored and compressed entries.
fn make_archive(dir: &Path) -> PathBuf {
    let mut mcol = b"MCOL".to_vec();
    mcol.extend(payload(3, 4000));
    let entries = vec![
        NewEntry::named("CollisionSet_S02.bin", payload(1, 7000), true),
        NewEntry::named("eng\\GP_TITLE.tbl", payload(2, 3000), false),
        NewEntry::hashed(0x2CF7_EB47, mcol, true),
        NewEntry::hashed(0x0BAD_F00D, vec![0, 1, 2, 3, 4], false),
        NewEntry::named("mapmesh_box_500km.col", payload(4, 6000), true),
    ];
    let pak = dir.join("MiscBin.pak");
    build_archive(
        &pak,
        entries,
        WriteOptions {
            part_limit: 4096,
            level: 9,
        },
    )
    .unwrap();
    pak
}

/// Runs `sylcol pak extract PAK -o OUT EXTRA...`.
fn extract(pak: &Path, out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    sylcol()
        .args(["pak", "extract"])
        .arg(pak)
        .arg("-o")
        .arg(out)
        .args(extra)
        .assert()
}

fn list_json(pak: &Path, extra: &[&str]) -> (Vec<Value>, i32) {
    let out = sylcol()
        .arg("pak")
        .arg("list")
        .arg(pak)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["format"], "IPFB");
    (
        list["entries"].as_array().unwrap().clone(),
        out.status.code().unwrap(),
    )
}

fn row(rows: &[Value], hash: u32) -> &Value {
    let hex = format!("{hash:08X}");
    rows.iter().find(|r| r["hash"] == hex.as_str()).unwrap()
}

/// Every file under `dir`: relative path -> bytes.
/// The files under `dir` but the manifest `pak extract` writes (its
/// tests are in `pak_layout`): the entries' files.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for item in std::fs::read_dir(&d).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel != ".sylcol-pak.json" {
                    out.insert(rel, std::fs::read(&path).unwrap());
                }
            }
        }
    }
    out
}

#[test]
fn list_json_rows() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    let (rows, code) = list_json(&pak, &[]);
    assert_eq!(code, 0);
    assert_eq!(rows.len(), 5);
    let unknown = row(&rows, 0x2CF7_EB47);
    assert_eq!(unknown["name"], Value::Null);
    assert_eq!(unknown["entry"], "$2CF7EB47.MCOL");
    assert_eq!(unknown["magic"], "MCOL");
    assert_eq!(unknown["compressed"], true);
    assert_eq!(unknown["bytes"], 4004);
    let tbl = row(&rows, make_entry_id("eng\\GP_TITLE.tbl"));
    assert_eq!(
        tbl["entry"], "$5EE70E0A.vert",
        "not a built-in name; printable magic"
    );
    assert_eq!(tbl["compressed"], false);
    assert_eq!(tbl["stored_bytes"], 3000);
    let s02 = row(&rows, make_entry_id("CollisionSet_S02.bin"));
    assert_eq!(s02["name"], "CollisionSet_S02.bin");
    assert!(rows.iter().any(|r| r["part"].as_u64().unwrap() >= 2));
    assert!(
        rows.iter()
            .all(|r| r["offset"].as_u64().unwrap() % 2048 == 0 && r["error"].is_null())
    );
    let human = sylcol().args(["pak", "list"]).arg(&pak).assert().success();
    let text = String::from_utf8_lossy(&human.get_output().stdout).into_owned();
    assert!(
        text.contains("$2CF7EB47.MCOL") && text.contains("5 entries"),
        "{text}"
    );
}

#[test]
fn names_file_names_entries() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    let names = dir.path().join("names.txt");
    std::fs::write(&names, "# user names\n\ndat\\tables.pak+eng/GP_TITLE.tbl\n").unwrap();
    let (rows, _) = list_json(&pak, &["--names", names.to_str().unwrap()]);
    let tbl = row(&rows, make_entry_id("eng\\GP_TITLE.tbl"));
    assert_eq!(tbl["name"], "eng\\GP_TITLE.tbl");
    let out = dir.path().join("out");
    let names_arg = names.to_str().unwrap();
    extract(
        &pak,
        &out,
        &["eng/GP_TITLE.tbl", "$2CF7EB47", "--names", names_arg],
    )
    .success();
    let files = tree(&out);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["$2CF7EB47.MCOL", "eng/GP_TITLE.tbl"]
    );
    assert_eq!(files["eng/GP_TITLE.tbl"], payload(2, 3000));
}

#[test]
fn extract_build_extract_gives_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    let first = dir.path().join("first");
    extract(&pak, &first, &[]).success();
    let rebuilt = dir.path().join("re").join("Again.pak");
    std::fs::create_dir_all(rebuilt.parent().unwrap()).unwrap();
    sylcol()
        .args(["pak", "build"])
        .arg(&first)
        .arg("-o")
        .arg(&rebuilt)
        // A new layout (the manifest would keep the archive's): the
        // globs decide what is stored raw.
        .arg("--fresh")
        .args([
            "--store",
            "*.tbl",
            "--store",
            "$0BAD*",
            "--part-limit",
            "4096",
        ])
        .assert()
        .success();
    assert!(rebuilt.with_extension("p01").exists());
    let (rows, _) = list_json(&rebuilt, &[]);
    let (orig, _) = list_json(&pak, &[]);
    let hashes = |rs: &[Value]| rs.iter().map(|r| r["hash"].clone()).collect::<Vec<_>>();
    assert_eq!(hashes(&rows), hashes(&orig));
    assert_eq!(
        row(&rows, 0x0BAD_F00D)["compressed"],
        false,
        "matched by --store"
    );
    let tbl = row(&rows, make_entry_id("eng\\GP_TITLE.tbl"));
    assert_eq!(
        tbl["compressed"], true,
        "extracted as $5EE70E0A.vert, so *.tbl does not match"
    );
    let second = dir.path().join("second");
    extract(&rebuilt, &second, &[]).success();
    assert_eq!(tree(&first), tree(&second));
    assert_eq!(tree(&first).len(), 5);
}

#[test]
fn hostile_names_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let pak = dir.path().join("Evil.pak");
    let entries = vec![
        NewEntry::named("..\\evil.bin", b"evil".to_vec(), true),
        NewEntry::named("C:\\x.bin", b"drive".to_vec(), false),
        NewEntry::named("\\root.bin", b"root".to_vec(), false),
        NewEntry::named("ok\\fine.bin", b"fine".to_vec(), true),
    ];
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    let names = dir.path().join("names.txt");
    std::fs::write(
        &names,
        "..\\evil.bin\nC:\\x.bin\n\\root.bin\nok\\fine.bin\n",
    )
    .unwrap();
    let out = dir.path().join("inside").join("out");
    let run = extract(&pak, &out, &["--names", names.to_str().unwrap()]).code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    for name in ["..\\evil.bin", "C:\\x.bin", "\\root.bin"] {
        assert!(err.contains(&format!("entry {name}")), "{name} in {err}");
    }
    assert_eq!(
        tree(&dir.path().join("inside")).keys().collect::<Vec<_>>(),
        ["out/ok/fine.bin"]
    );
}

#[test]
fn build_refuses_duplicate_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("a.bin"), b"1").unwrap();
    std::fs::write(
        src.join(format!("${:08X}.bin", make_entry_id("a.bin"))),
        b"2",
    )
    .unwrap();
    let run = sylcol()
        .args(["pak", "build"])
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("D.pak"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(err.contains("same hash"), "{err}");
    assert!(!dir.path().join("D.pak").exists());
}

/// Corrupts byte `at` of the part holding `hash`, relative to the entry.
fn corrupt(pak: &Path, hash: u32, at: usize, rows: &[Value]) {
    let r = row(rows, hash);
    let part = pak.with_extension(format!("p{:02}", r["part"].as_u64().unwrap()));
    let mut bytes = std::fs::read(&part).unwrap();
    bytes[r["offset"].as_u64().unwrap() as usize + at] ^= 0x40;
    std::fs::write(&part, bytes).unwrap();
}

#[test]
fn bad_entries_are_reported_and_the_rest_extracts() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    let (rows, _) = list_json(&pak, &[]);
    let s02 = make_entry_id("CollisionSet_S02.bin");
    corrupt(&pak, s02, 8, &rows); // Z1 header Adler-32
    let (plain, code) = list_json(&pak, &[]);
    assert_eq!(
        (code, row(&plain, s02)["error"].clone()),
        (0, Value::Null),
        "list does not inflate"
    );
    let (checked, code) = list_json(&pak, &["--verify"]);
    assert_eq!(code, 2, "an unreadable entry is exit 2 in every command");
    let msg = row(&checked, s02)["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(row(&checked, s02)["error"]["kind"], "archive");
    assert!(
        msg.contains("CollisionSet_S02.bin") && msg.contains("Adler-32"),
        "{msg}"
    );
    assert_eq!(checked.iter().filter(|r| !r["error"].is_null()).count(), 1);
    let out = dir.path().join("out");
    let run = extract(&pak, &out, &[]).code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(
        err.contains("entry CollisionSet_S02.bin") && err.contains("at byte 0x"),
        "{err}"
    );
    let files = tree(&out);
    assert_eq!(files.len(), 4, "{:?}", files.keys());
    assert!(!files.contains_key("CollisionSet_S02.bin"));
    assert!(
        files.keys().all(|k| !k.contains("sylcol-tmp")),
        "temp files cleaned up"
    );
}

#[test]
fn missing_part_and_truncated_index() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    std::fs::remove_file(pak.with_extension("p01")).unwrap();
    let (rows, code) = list_json(&pak, &[]);
    assert_eq!(code, 2);
    let broken: Vec<_> = rows.iter().filter(|r| !r["error"].is_null()).collect();
    assert!(!broken.is_empty() && broken.len() < rows.len());
    assert!(broken.iter().all(|r| {
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MiscBin.p01 is missing")
    }));
    let index = std::fs::read(&pak).unwrap();
    std::fs::write(&pak, &index[..index.len() - 12]).unwrap();
    let out = sylcol().args(["pak", "list"]).arg(&pak).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("truncated") && err.contains("IPFB entry table"),
        "{err}"
    );
    let (rows, _) = list_json(&pak, &[]);
    assert_eq!(rows.len(), 4);
    std::fs::write(&pak, b"IPF").unwrap();
    sylcol().args(["pak", "list"]).arg(&pak).assert().code(2);
    // Standard input cannot be an archive (its parts are files).
    let out = sylcol().args(["pak", "list", "-"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("cannot be read from standard input"), "{err}");
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(crate::common::fixture(name)).unwrap()
}

/// An archive of the MCOL fixtures (one named, one unknown), a table, and
/// an MCOL whose bytes are cut short.
fn mcol_archive(dir: &Path) -> PathBuf {
    let twin = fixture("twin.mcol");
    let entries = vec![
        NewEntry::named("mapmesh_box_500km.col", fixture("box.mcol"), true),
        NewEntry::hashed(0x2CF7_EB47, twin.clone(), true),
        NewEntry::hashed(0x1234_5678, twin[..twin.len() / 2].to_vec(), false),
        NewEntry::named("files.tbl", b"TBL1 names".to_vec(), false),
    ];
    let pak = dir.join("MiscBin.pak");
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    pak
}

#[test]
fn info_summarises_every_entry_it_can_decode() {
    let dir = tempfile::tempdir().unwrap();
    let pak = mcol_archive(dir.path());
    let out = sylcol()
        .arg("info")
        .arg(&pak)
        .arg("--json")
        .assert()
        .code(2);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["format"], "IPFB");
    let rows = v["objects"].as_array().unwrap();
    let entries: Vec<_> = rows.iter().map(|r| r["path"].as_str().unwrap()).collect();
    let pak_name = pak.to_str().unwrap();
    assert_eq!(
        entries,
        [
            format!("{pak_name}+$2CF7EB47.MCOL"),
            format!("{pak_name}+mapmesh_box_500km.col")
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r["format"] == "MCOL" && r["triangles"].as_u64().unwrap() > 0)
    );
    assert_eq!(v["skipped"][0]["magic"], "TBL1");
    let failures = v["errors"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("$12345678.MCOL"),
        "{failures:?}"
    );
    assert_eq!(failures[0]["kind"], "invalid");
    assert!(failures[0]["offset"].is_u64());
    // Errors go to standard error too, one JSON object a line.
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let line: Value = serde_json::from_str(stderr.lines().next().unwrap()).unwrap();
    assert_eq!(line["error"], failures[0]);
    let text = sylcol().arg("info").arg(&pak).assert().code(2);
    let stdout = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        stdout.contains("2 decoded, 1 of other formats, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn commands_read_archive_entries_by_name_and_hash() {
    let dir = tempfile::tempdir().unwrap();
    let pak = mcol_archive(dir.path()).to_string_lossy().into_owned();
    let one = |file: String| {
        let out = sylcol()
            .args(["info", "--json"])
            .arg(file)
            .assert()
            .success();
        serde_json::from_slice::<Value>(&out.get_output().stdout).unwrap()["objects"][0].clone()
    };
    let by_name = one(format!("{pak}+MAPMESH_box_500km.col"));
    assert_eq!(by_name["format"], "MCOL");
    let by_hash = one(format!("{pak}+$2CF7EB47.MCOL"));
    assert_eq!(
        by_hash["triangles"],
        one(format!("{pak}+$2cf7eb47"))["triangles"]
    );
    let missing = sylcol()
        .arg("info")
        .arg(format!("{pak}+nope.col"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&missing.get_output().stderr).into_owned();
    assert!(err.contains("no entry nope.col"), "{err}");
    let out = dir.path().join("rewritten.mcol");
    sylcol()
        .arg("rewrite")
        .arg(format!("{pak}+$2CF7EB47"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), fixture("twin.mcol"));
}

/// Names that map to one file (`\x1b` shown as `%1B` beside a literal
/// `%1B`; `a\\b` and `a\b`; `c\.` and `c\`) all come out, the later
/// ones as `~2`, each note saying why.
#[test]
fn names_that_map_to_one_file_are_all_written() {
    let named: [(&str, &[u8]); 6] = [
        ("esc\x1b.bin", b"AAAA"),
        ("esc%1B.bin", b"BBBB"),
        ("a\\\\b.bin", b"CCCC"),
        ("a\\b.bin", b"DDDD"),
        ("c\\.", b"EEEE"),
        ("c\\", b"FFFF"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (pak, names) = crate::common::named_archive(dir.path(), &named);
    let out = dir.path().join("out");
    let o = extract(&pak, &out, &["--names", names.to_str().unwrap()]).success();
    let err = String::from_utf8_lossy(&o.get_output().stderr).into_owned();
    let files = tree(&out);
    assert_eq!(files.len(), 6, "{:?}\n{err}", files.keys());
    let mut contents: Vec<&[u8]> = files.values().map(Vec::as_slice).collect();
    contents.sort();
    assert_eq!(
        contents,
        [b"AAAA", b"BBBB", b"CCCC", b"DDDD", b"EEEE", b"FFFF"]
    );
    for stem in ["esc%1B.bin", "a/b.bin", "c"] {
        let suffixed = format!("{stem}~2");
        assert!(
            files.contains_key(stem) && files.contains_key(&suffixed),
            "{stem}"
        );
    }
    assert_eq!(
        err.matches("is written to the same file name").count(),
        3,
        "{err}"
    );
    for line in err.lines().filter(|l| l.contains("control characters")) {
        assert!(line.contains("entry esc\\x1b.bin"), "{line}");
    }
    assert!(err.contains("empty or \".\" parts, written as c"), "{err}");
}

/// An entry named twice (by name, again, and by its hash) is written once.
#[test]
fn an_entry_named_twice_is_extracted_once() {
    let dir = tempfile::tempdir().unwrap();
    let pak = make_archive(dir.path());
    let out = dir.path().join("out");
    let hash = format!("${:08X}", make_entry_id("CollisionSet_S02.bin"));
    let o = extract(
        &pak,
        &out,
        &[
            "CollisionSet_S02.bin",
            "CollisionSet_S02.bin",
            &hash,
            "--json",
        ],
    )
    .success();
    let report: Value = serde_json::from_slice(&o.get_output().stdout).unwrap();
    assert_eq!(report["selected"], 1);
    assert_eq!(
        tree(&out).keys().collect::<Vec<_>>(),
        ["CollisionSet_S02.bin"]
    );
    let err = String::from_utf8_lossy(&o.get_output().stderr).into_owned();
    assert!(!err.contains("duplicated hash"), "{err}");
}
