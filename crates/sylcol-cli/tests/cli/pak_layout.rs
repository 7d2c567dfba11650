//! Archives that keep their layout: `pak extract` -> `pak build` of an
//! unchanged folder gives the archive back byte for byte (the manifest),
//! and `pak replace` changes the entries named and no other stored byte.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sylcol_format::ipfb::Index;

use crate::common::{fixture, stderr, sylcol};

const MANIFEST: &str = ".sylcol-pak.json";

fn samples_dir() -> PathBuf {
    crate::common::samples_dir().to_path_buf()
}

/// Every `.pak` in samples/ and tests/fixtures.
fn sample_archives() -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut paks: Vec<PathBuf> = [samples_dir(), fixtures]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pak"))
        .collect();
    paks.sort();
    assert!(paks.len() >= 2, "{paks:?}");
    paks
}

/// Copies `NAME.pak` and its parts into `dir`; returns the copy's index.
fn copy_archive(pak: &Path, dir: &Path) -> PathBuf {
    let stem = pak.file_stem().unwrap().to_string_lossy().into_owned();
    for item in std::fs::read_dir(pak.parent().unwrap()).unwrap() {
        let path = item.unwrap().path();
        if path
            .file_stem()
            .is_some_and(|s| s.to_string_lossy() == stem)
        {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir.join(pak.file_name().unwrap())
}

/// The index file and each part file of the archive `pak`, by file name.
fn archive_files(pak: &Path) -> Vec<(String, Vec<u8>)> {
    let stem = pak.file_stem().unwrap().to_string_lossy().into_owned();
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(pak.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == stem))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn extract(pak: &Path, out: &Path) {
    sylcol()
        .args(["pak", "extract"])
        .arg(pak)
        .arg("-o")
        .arg(out)
        .assert()
        .success();
}

fn build(dir: &Path, pak: &Path) -> std::process::Output {
    sylcol()
        .args(["pak", "build"])
        .arg(dir)
        .arg("-o")
        .arg(pak)
        .arg("--json")
        .output()
        .unwrap()
}

fn index_of(pak: &Path) -> Index {
    Index::parse(&std::fs::read(pak).unwrap()).unwrap()
}

fn verify_ok(pak: &Path) {
    sylcol().arg("verify").arg(pak).assert().success();
}

#[test]
fn extract_then_build_of_an_unchanged_folder_is_the_archive_byte_for_byte() {
    for pak in sample_archives() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x");
        extract(&pak, &out);
        assert!(out.join(MANIFEST).is_file(), "{}", pak.display());
        let rebuilt = dir.path().join("new").join(pak.file_name().unwrap());
        let done = build(&out, &rebuilt);
        assert!(done.status.success(), "{}", stderr(&done));
        let report: Value = serde_json::from_slice(&done.stdout).unwrap();
        assert_eq!(report["stored_anew"], 0, "{report}");
        assert_eq!(
            archive_files(&rebuilt),
            archive_files(&pak),
            "{}: the rebuilt index and parts differ from the original",
            pak.display()
        );
    }
}

#[test]
fn shared_entries_stay_shared_and_an_edited_entry_alone_is_stored_anew() {
    let dir = tempfile::tempdir().unwrap();
    let pak = samples_dir().join("MiscBin.pak");
    let out = dir.path().join("x");
    extract(&pak, &out);
    let map = std::fs::read(fixture("box.mcol")).unwrap();
    std::fs::write(out.join("$DD89A110.MCOL"), &map).unwrap();
    let rebuilt = dir.path().join("new/MiscBin.pak");
    let done = build(&out, &rebuilt);
    assert!(done.status.success(), "{}", stderr(&done));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (report["kept"].as_u64(), report["stored_anew"].as_u64()),
        (Some(39), Some(1))
    );
    let (old, new) = (index_of(&pak), index_of(&rebuilt));
    let shared = new.entries.iter().filter(|e| e.offset == 0x51800).count();
    assert_eq!(shared, 18, "the 18 CollisionSet entries share one copy");
    let old_p00 = std::fs::read(samples_dir().join("MiscBin.p00")).unwrap();
    let new_p00 = std::fs::read(dir.path().join("new/MiscBin.p00")).unwrap();
    assert_eq!(new_p00.len(), old_p00.len());
    let edited = old.find(0xDD89_A110).unwrap();
    let slot = edited.offset as usize..(edited.offset + edited.stored_size) as usize;
    for (i, (a, b)) in old_p00.iter().zip(&new_p00).enumerate() {
        assert!(
            a == b || slot.contains(&i),
            "byte {i:#x} changed outside the edited entry"
        );
    }
    verify_ok(&rebuilt);
    sylcol()
        .args(["pak", "extract"])
        .arg(&rebuilt)
        .arg("-o")
        .arg(dir.path().join("back"))
        .arg("$DD89A110")
        .assert()
        .success();
    assert_eq!(
        std::fs::read(dir.path().join("back/$DD89A110.MCOL")).unwrap(),
        map
    );
}

/// `pak replace ARCHIVE ENTRY=FILE -o OUT`: the archive with `args`.
fn replace(pak: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    sylcol()
        .args(["pak", "replace"])
        .arg(pak)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg("--json")
        .output()
        .unwrap()
}

/// Asserts that every stored byte of every entry of `old` but those of
/// `changed` hashes is where it was in `new`, with the same index record.
fn others_unchanged(old_pak: &Path, new_pak: &Path, changed: &[u32]) {
    let (old, new) = (index_of(old_pak), index_of(new_pak));
    assert_eq!(old.entries.len(), new.entries.len());
    let part = |pak: &Path, n: u8| std::fs::read(pak.with_extension(format!("p{n:02}"))).unwrap();
    for (o, n) in old.entries.iter().zip(&new.entries) {
        assert_eq!(o.hash, n.hash, "index order kept");
        if changed.contains(&o.hash) {
            continue;
        }
        assert_eq!(o, n, "{:08X}: index record kept", o.hash);
        let range = o.offset as usize..(o.offset + o.stored_size) as usize;
        assert_eq!(
            part(old_pak, o.part)[range.clone()],
            part(new_pak, n.part)[range],
            "{:08X}: stored bytes kept",
            o.hash
        );
    }
}

#[test]
fn replace_changes_only_the_entry_named() {
    let dir = tempfile::tempdir().unwrap();
    let pak = samples_dir().join("MiscBin.pak");
    let new = dir.path().join("out/MiscBin.pak");
    let map = fixture("box.mcol");
    let done = replace(&pak, &new, &[&format!("$DD89A110={map}")]);
    assert!(done.status.success(), "{}", stderr(&done));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["replaced"][0]["placed"], "reused", "{report}");
    others_unchanged(&pak, &new, &[0xDD89_A110]);
    // Outside the replaced copy's span, the part is the same byte for byte.
    let old_p00 = std::fs::read(samples_dir().join("MiscBin.p00")).unwrap();
    let new_p00 = std::fs::read(dir.path().join("out/MiscBin.p00")).unwrap();
    let e = index_of(&pak).find(0xDD89_A110).copied().unwrap();
    let slot = e.offset as usize..(e.offset + e.stored_size) as usize;
    assert_eq!(old_p00.len(), new_p00.len());
    assert!((0..old_p00.len()).all(|i| slot.contains(&i) || old_p00[i] == new_p00[i]));
    // The old copy's bytes past the new one are zeros, not stale data.
    let n = index_of(&new).find(0xDD89_A110).copied().unwrap();
    assert!(
        new_p00[(n.offset + n.stored_size) as usize..slot.end]
            .iter()
            .all(|&b| b == 0)
    );
    verify_ok(&new);
    // A larger content does not fit the old span: appended after the part's end.
    let big = dir.path().join("big.bin");
    std::fs::write(
        &big,
        (0..200_000u32)
            .scan(0x2545_F491_u32, |x, _| {
                // xorshift32: bytes deflate cannot shrink.
                *x ^= *x << 13;
                *x ^= *x >> 17;
                *x ^= *x << 5;
                Some(*x as u8)
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let bigger = dir.path().join("out2/MiscBin.pak");
    let done = replace(
        &pak,
        &bigger,
        &[&format!("mapmesh_box_500km.col={}", big.display())],
    );
    assert!(done.status.success(), "{}", stderr(&done));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["replaced"][0]["placed"], "appended", "{report}");
    assert_eq!(
        report["replaced"][0]["offset"],
        std::fs::metadata(pak.with_extension("p00"))
            .unwrap()
            .len()
            .div_ceil(0x800)
            * 0x800
    );
    others_unchanged(&pak, &bigger, &[0xCBB9_9D34]);
}

#[test]
fn replace_in_place_matches_replace_into_a_new_archive() {
    let dir = tempfile::tempdir().unwrap();
    let pak = copy_archive(&samples_dir().join("MiscBin.pak"), dir.path());
    let elsewhere = dir.path().join("o/MiscBin.pak");
    let pair = format!("mapmesh_box_500km.rgn={}", fixture("twin.regn"));
    assert!(replace(&pak, &elsewhere, &[&pair]).status.success());
    sylcol()
        .args(["pak", "replace", "--in-place"])
        .arg(&pak)
        .arg(&pair)
        .assert()
        .success();
    assert_eq!(archive_files(&pak), archive_files(&elsewhere));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["MiscBin.p00", "MiscBin.pak", "o"],
        "no temporary or backup file left"
    );
    verify_ok(&pak);
}

#[test]
fn replacing_one_alias_of_a_shared_copy_is_refused_unless_a_flag_says_how() {
    let dir = tempfile::tempdir().unwrap();
    let pak = samples_dir().join("MiscBin.pak");
    let map = fixture("box.mcol");
    let pair = format!("CollisionSet_S01.bin={map}");
    let out = dir.path().join("a/MiscBin.pak");
    let refused = replace(&pak, &out, &[&pair]);
    assert_eq!(refused.status.code(), Some(2));
    let msg = stderr(&refused);
    assert!(
        msg.contains("17 other entries")
            && msg.contains("CollisionSet_Tutorial.bin")
            && msg.contains("--all-aliases")
            && msg.contains("--split"),
        "{msg}"
    );
    assert!(!out.exists(), "nothing written");

    let split = dir.path().join("s/MiscBin.pak");
    let mut args = vec![pair.as_str(), "--split"];
    assert!(replace(&pak, &split, &args).status.success());
    let s01 = sylcol_format::ipfb::make_entry_id("collisionset_s01.bin");
    others_unchanged(&pak, &split, &[s01]);
    let idx = index_of(&split);
    assert_eq!(
        idx.entries.iter().filter(|e| e.offset == 0x51800).count(),
        17
    );
    assert_ne!(idx.find(s01).unwrap().offset, 0x51800);
    verify_ok(&split);

    let all = dir.path().join("all/MiscBin.pak");
    args[1] = "--all-aliases";
    let done = replace(&pak, &all, &args);
    assert!(done.status.success(), "{}", stderr(&done));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        report["replaced"][0]["entries"].as_array().unwrap().len(),
        18
    );
    let idx = index_of(&all);
    let shared: Vec<_> = idx
        .entries
        .iter()
        .filter(|e| e.stored_size == idx.find(s01).unwrap().stored_size)
        .collect();
    assert!(shared.len() >= 18 && shared.iter().all(|e| e.offset == 0x51800));
    let back = dir.path().join("back");
    sylcol()
        .args(["pak", "extract"])
        .arg(&all)
        .arg("-o")
        .arg(&back)
        .args(["CollisionSet_test.bin"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read(back.join("CollisionSet_test.bin")).unwrap(),
        std::fs::read(&map).unwrap()
    );
}

/// Extracts a copy of the samples' MiscBin into `dir/x`; returns the
/// copy's index and the manifest's path.
fn extracted_copy(dir: &Path) -> (PathBuf, PathBuf) {
    let pak = copy_archive(&samples_dir().join("MiscBin.pak"), dir);
    extract(&pak, &dir.join("x"));
    (pak, dir.join("x").join(MANIFEST))
}

#[test]
fn a_damaged_or_edited_manifest_is_refused_naming_where() {
    let dir = tempfile::tempdir().unwrap();
    let (_, manifest) = extracted_copy(dir.path());
    let good = std::fs::read_to_string(&manifest).unwrap();
    let out = dir.path().join("new/MiscBin.pak");
    let refused = |text: &str, want: &[&str]| {
        std::fs::write(&manifest, text).unwrap();
        let done = build(&dir.path().join("x"), &out);
        assert_eq!(done.status.code(), Some(2), "{text:.200}");
        let msg = stderr(&done);
        assert!(msg.contains(&manifest.display().to_string()), "{msg}");
        for w in want {
            assert!(msg.contains(w), "{w}: {msg}");
        }
        assert!(!out.exists(), "nothing written");
    };
    // Cut short: the byte where the JSON stops.
    refused(&good[..good.len() / 2], &["at byte", "EOF"]);
    // A field out of range, named.
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["entries"][3]["hash"] = "nothex".into();
    refused(&v.to_string(), &["entries[3].hash"]);
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["entries"][5]["stored_size"] = 99_999_999.into();
    refused(&v.to_string(), &["entries[5].stored_size", "past its part"]);
    // A value in range, but edited: the checksum says so.
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["entries"][5]["offset"] = 0x800.into();
    refused(&v.to_string(), &["checksum", "edited or damaged"]);
    // --fresh ignores it (and never packs it as an entry).
    sylcol()
        .args(["pak", "build", "--fresh"])
        .arg(dir.path().join("x"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(index_of(&out).entries.len(), 40);
}

#[test]
fn stored_bytes_that_changed_in_the_source_are_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, _) = extracted_copy(dir.path());
    // Damage the source's copy of one entry after the extraction.
    let e = index_of(&pak).find(0xDD89_A110).copied().unwrap();
    let p00 = dir.path().join("MiscBin.p00");
    let mut bytes = std::fs::read(&p00).unwrap();
    bytes[e.offset as usize + 100] ^= 0xFF;
    std::fs::write(&p00, bytes).unwrap();
    let out = dir.path().join("new/MiscBin.pak");
    let done = build(&dir.path().join("x"), &out);
    assert!(done.status.success(), "{}", stderr(&done));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["stored_anew"], 1, "{report}");
    assert!(
        report["notes"][0]
            .as_str()
            .unwrap()
            .contains("no longer those the manifest records")
    );
    verify_ok(&out);
    // The source gone: every entry stored anew, shared content still shared.
    for f in ["MiscBin.pak", "MiscBin.p00"] {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }
    let done = build(&dir.path().join("x"), &out);
    assert!(done.status.success(), "{}", stderr(&done));
    let idx = index_of(&out);
    assert_eq!(
        idx.entries
            .iter()
            .filter(|e| e.stored_size == idx.find(0xB252_8E60).unwrap().stored_size)
            .count(),
        18
    );
    let order: Vec<u32> = idx.entries.iter().map(|e| e.hash).collect();
    let want: Vec<u32> = index_of(&samples_dir().join("MiscBin.pak"))
        .entries
        .iter()
        .map(|e| e.hash)
        .collect();
    assert_eq!(order, want, "index order kept");
    verify_ok(&out);
}

#[test]
fn an_entry_named_like_the_manifest_never_takes_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, _) = crate::common::named_archive(
        dir.path(),
        &[(".sylcol-pak.json", b"{\"entry\": 1}"), ("a.bin", b"abc")],
    );
    let names = dir.path().join("names.txt");
    let out = dir.path().join("x");
    sylcol()
        .arg("--names")
        .arg(&names)
        .args(["pak", "extract"])
        .arg(&pak)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(out.join("%2Esylcol-pak.json")).unwrap(),
        b"{\"entry\": 1}"
    );
    let rebuilt = dir.path().join("new/Named.pak");
    let done = build(&out, &rebuilt);
    assert!(done.status.success(), "{}", stderr(&done));
    assert_eq!(archive_files(&rebuilt), archive_files(&pak));
}
