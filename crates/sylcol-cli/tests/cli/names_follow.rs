//! Names that follow the user (issue 35): `names harvest` keeps what it
//! finds beside each archive (or, where that folder cannot be written, in
//! the per-user cache), and every later command that opens the archive
//! names its entries with it, without `--names`, and says where the names
//! came from.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::Digest;

use crate::common::{Immutable, path, samples_dir, stderr, stdout, sylcol};

/// An entry only the sample tables name (`$DD89A110` without them).
const HARVESTED: &str = "S14_p2_AsteroidVolume_wp.col";

/// A scratch folder, a cache folder in it (not yet made) and a copy of
/// the sample archives in it, in `name`.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let disc = copy_samples(tmp.path(), name);
    (tmp, cache, disc)
}

/// A copy of the sample archives in `dir/name`.
fn copy_samples(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::create_dir(&to).unwrap();
    for f in ["MiscBin.pak", "MiscBin.p00", "Tables.pak", "Tables.p00"] {
        std::fs::copy(samples_dir().join(f), to.join(f)).unwrap();
    }
    to
}

/// Runs sylcol with `args` and the cache folder `cache`; requires exit 0.
fn ok(cache: &Path, args: &[&str]) -> std::process::Output {
    let out = sylcol()
        .env("XDG_CACHE_HOME", cache)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "sylcol {args:?}: {}", stderr(&out));
    out
}

fn json(cache: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_slice(&ok(cache, &all).stdout).unwrap()
}

/// The single `names` record of a report: (origin, path, entries) per source.
fn sources(report: &Value) -> Vec<(String, Option<String>, u64)> {
    let names = report["names"].as_array().unwrap();
    assert_eq!(names.len(), 1, "{report}");
    names[0]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["origin"].as_str().unwrap().to_string(),
                s["path"].as_str().map(str::to_string),
                s["entries"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn harvested_names_reach_every_later_command_without_names_flag() {
    let (tmp, cache, disc) = scratch("disc");
    let pak = disc.join("MiscBin.pak");
    let pak = path(&pak);
    // Before the harvest: the entry is a hash, and the line says so.
    let before = stdout(&ok(&cache, &["pak", "list", pak]));
    assert!(!before.contains(HARVESTED), "{before}");
    assert!(
        before.starts_with("names: 20 built-in (20 of 40 entries unnamed)\n"),
        "{before}"
    );

    let harvest = stdout(&ok(&cache, &["names", "harvest", path(&disc)]));
    let beside = disc.join("names.txt");
    assert!(
        harvest.contains(&format!(
            "names kept in {}: 18 for {pak} (18 new)",
            beside.display()
        )),
        "{harvest}"
    );
    let list = std::fs::read_to_string(&beside).unwrap();
    assert!(
        list.contains(&format!("MiscBin.pak+{HARVESTED}\n")),
        "{list}"
    );
    assert!(list.contains("Tables.pak+files.tbl\n"), "{list}");

    let line = format!(
        "names: 20 built-in, 14 from {} (6 of 40 entries unnamed)\n",
        beside.display()
    );
    let listed = stdout(&ok(&cache, &["pak", "list", pak]));
    assert!(listed.starts_with(&line), "{listed}");
    assert!(listed.contains(HARVESTED), "{listed}");
    let info = stdout(&ok(&cache, &["info", pak]));
    assert!(
        info.starts_with(&line) && info.contains(HARVESTED),
        "{info}"
    );

    // --json: a `names` field, the same in every report.
    let want = vec![
        ("built_in".to_string(), None, 20),
        ("beside".to_string(), Some(beside.display().to_string()), 14),
    ];
    let listed = json(&cache, &["pak", "list", pak]);
    assert_eq!(sources(&listed), want);
    assert_eq!(listed["names"][0]["unnamed"], 6);
    assert_eq!(sources(&json(&cache, &["info", pak])), want);
    assert_eq!(sources(&json(&cache, &["pairs", pak])), want);

    // export and pak extract name their files by it; view shows it.
    let out = tmp.path().join("meshes");
    let export = ok(&cache, &["export", pak, "-o", path(&out)]);
    assert!(out.join(format!("{HARVESTED}.obj")).is_file());
    assert!(stderr(&export).starts_with(&line), "{}", stderr(&export));
    let extracted = tmp.path().join("extracted");
    let report = json(&cache, &["pak", "extract", pak, "-o", path(&extracted)]);
    assert!(extracted.join(HARVESTED).is_file());
    assert_eq!(sources(&report), want);
    let page = tmp.path().join("view.html");
    // (One map: a page of the whole archive takes minutes in a debug build.)
    let view = ok(
        &cache,
        &["view", &format!("{pak}+$DD89A110"), "-o", path(&page)],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!("MiscBin.pak+{HARVESTED}")));
    assert!(!html.contains("$DD89A110"));
    assert!(stderr(&view).contains(&line), "{}", stderr(&view));
}

#[test]
fn a_second_harvest_merges_with_what_the_list_holds() {
    let (_tmp, cache, disc) = scratch("disc");
    let beside = disc.join("names.txt");
    let mine = "# my own notes\nOther.pak+kept.bin\nMiscBin.pak+S01_AsteroidVolume_wp.col\n";
    std::fs::write(&beside, mine).unwrap();
    let first = stdout(&ok(&cache, &["names", "harvest", path(&disc)]));
    assert!(first.contains("(17 new, 1 already there)"), "{first}");
    let after_first = std::fs::read_to_string(&beside).unwrap();
    assert!(after_first.starts_with(mine), "{after_first}");
    ok(&cache, &["names", "harvest", path(&disc)]);
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), after_first);
    assert_eq!(after_first.matches(HARVESTED).count(), 1);
}

#[test]
fn an_unwritable_folder_keeps_the_names_in_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, cache, disc) = scratch("readonly");
    let pak = disc.join("MiscBin.pak");
    std::fs::set_permissions(&disc, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes through the mode: the immutable flag stops it too.
    let _held = if std::fs::write(disc.join("probe"), b"").is_ok() {
        std::fs::remove_file(disc.join("probe")).unwrap();
        match Immutable::set(&disc) {
            Some(held) => Some(held),
            None => {
                eprintln!("skipped: cannot make a folder unwritable here");
                return;
            }
        }
    } else {
        None
    };
    let harvest = json(&cache, &["names", "harvest", path(&disc)]);
    let index = std::fs::read(&pak).unwrap();
    let hex: String = sha2::Sha256::digest(&index)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let cached = cache.join(format!("sylcol/names/{hex}.txt"));
    let kept = &harvest["kept"][0];
    assert_eq!(kept["place"], "cache", "{harvest}");
    assert_eq!(kept["path"], cached.display().to_string());
    assert!(
        kept["not_beside"]
            .as_str()
            .unwrap()
            .contains("names.txt cannot be written")
    );
    assert!(!disc.join("names.txt").exists());
    assert!(
        std::fs::read_to_string(&cached)
            .unwrap()
            .contains(HARVESTED)
    );

    let listed = stdout(&ok(&cache, &["pak", "list", path(&pak)]));
    assert!(
        listed.starts_with(&format!(
            "names: 20 built-in, 14 from the cache {} (6 of 40 entries unnamed)\n",
            cached.display()
        )),
        "{listed}"
    );
    assert!(listed.contains(HARVESTED));
    // Another cache: the names are not there.
    let elsewhere = stdout(&ok(&tmp.path().join("other"), &["pak", "list", path(&pak)]));
    assert!(!elsewhere.contains(HARVESTED));
    drop(_held);
    std::fs::set_permissions(&disc, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn harvest_with_output_writes_only_there() {
    let (tmp, cache, disc) = scratch("disc");
    let out = tmp.path().join("mine.txt");
    let report = json(&cache, &["names", "harvest", path(&disc), "-o", path(&out)]);
    assert!(std::fs::read_to_string(&out).unwrap().contains(HARVESTED));
    assert_eq!(report["kept"], serde_json::json!([]));
    assert!(!disc.join("names.txt").exists());
    assert!(!cache.exists());
    // Given with --names, the list is counted as given.
    let listed = json(
        &cache,
        &[
            "--names",
            path(&out),
            "pak",
            "list",
            path(&disc.join("MiscBin.pak")),
        ],
    );
    assert_eq!(
        sources(&listed),
        vec![
            ("built_in".to_string(), None, 20),
            ("given".to_string(), Some(out.display().to_string()), 14),
        ]
    );
}

#[test]
fn serve_lists_the_objects_by_their_harvested_names() {
    let (_tmp, cache, disc) = scratch("disc");
    ok(&cache, &["names", "harvest", path(&disc)]);
    let pak = disc.join("MiscBin.pak");
    let server = crate::cli_viewer::Server::start(&[path(&pak)]);
    let (status, body) = server.request("GET", "/api/objects", "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&format!("MiscBin.pak+{HARVESTED}")), "{body}");
    assert!(!body.contains("$DD89A110"), "{body}");
    let out = server.interrupt();
    let line = format!(
        "names: 20 built-in, 14 from {}",
        disc.join("names.txt").display()
    );
    assert!(stderr(&out).contains(&line), "{}", stderr(&out));
}
