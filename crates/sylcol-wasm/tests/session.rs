//! The page's walk of dropped files, natively: the sample archives, and
//! the damaged drops the browser tests (tests/web/html.test.mjs) also
//! compare with the CLI.

use std::path::Path;

use sylcol_wasm::{MemoryFolder, Session};

/// The sample files `names`, dropped with their folders.
fn samples(names: &[&str]) -> MemoryFolder {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let mut folder = MemoryFolder::new();
    for name in names {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        folder.add(&format!("some/folder/{name}"), bytes);
    }
    folder
}

#[test]
fn the_samples_are_listed_verified_and_asked_through_the_api() {
    let files = samples(&["MiscBin.pak", "MiscBin.p00", "Tables.pak", "Tables.p00"]);
    let session = Session::open(&files);
    let summary = session.summary();
    let objects = summary["objects"].as_array().unwrap();
    // Eleven maps, $E084C13C an alias of mapmesh_box_500km (same bytes),
    // the library, and the eleven REGN entries' point clouds (ten
    // contents, one shared by two entries).
    assert_eq!(objects.len(), 21);
    assert_eq!(objects.iter().filter(|o| o["kind"] == "map").count(), 10);
    let clouds: Vec<_> = objects.iter().filter(|o| o["kind"] == "points").collect();
    assert_eq!(clouds.len(), 10);
    let entries: usize = clouds
        .iter()
        .map(|o| 1 + o["aliases"].as_array().unwrap().len())
        .sum();
    assert_eq!(entries, 11);
    let library = objects.iter().find(|o| o["kind"] == "library").unwrap();
    assert_eq!(library["aliases"].as_array().unwrap().len(), 17);
    assert_eq!(summary["errors"], serde_json::json!([]));
    let run = session.verify();
    assert!(run.ok && run.errors.is_empty());
    // Where each archive's names came from, as `verify --json` says.
    let archives: Vec<&str> = run.names.iter().map(|n| n.archive.as_str()).collect();
    assert_eq!(archives, ["MiscBin.pak", "Tables.pak"]);
    // Every entry of both archives, named by the archive's file name
    // (folders left off), the eighteen library rows each verified.
    let paths: Vec<&str> = run.objects.iter().map(|o| o.report.path()).collect();
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("MiscBin.pak+") || p.starts_with("Tables.pak+"))
    );
    assert_eq!(
        paths.iter().filter(|p| p.contains("CollisionSet_")).count(),
        18
    );
    assert!(paths.contains(&"MiscBin.pak+mapmesh_box_500km.col"));
    // The eighteen rows share one content, and each names the other 17,
    // as `sylcol verify --json` does.
    for o in run
        .objects
        .iter()
        .filter(|o| o.report.path().contains("CollisionSet_"))
    {
        assert_eq!(o.shares_content_with.len(), 17, "{}", o.report.path());
    }
    let r = session.request("GET", "/api/objects/%24DD89A110.glb", b"");
    assert_eq!((r.status, &r.body[..4]), (200, &b"glTF"[..]));
}

#[test]
fn an_archive_without_its_part_is_one_error_and_nothing_shown() {
    let session = Session::open(&samples(&["MiscBin.pak"]));
    let run = session.verify();
    assert!(run.objects.is_empty());
    // Said once, with the entries it affects counted, as the CLI says it.
    let messages: Vec<&str> = run.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "MiscBin.pak: part file MiscBin.p00 is missing beside it: all 40 entries are stored there and cannot be read"
        ]
    );
    assert!(session.catalog().objects().is_empty());
}

#[test]
fn a_truncated_map_and_random_bytes_are_the_cli_errors() {
    let map = sylcol_format::mcol::encode(&sylcol::verify::testmaps::box_map()).unwrap();
    let mut files = MemoryFolder::new();
    files.add("cut.MCOL", map[..map.len() / 2].to_vec());
    let noise: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    files.add("noise.bin", noise);
    let session = Session::open(&files);
    let run = session.verify();
    assert_eq!(run.errors.len(), 2);
    assert!(
        run.errors[0].message.starts_with("cut.MCOL: "),
        "{}",
        run.errors[0].message
    );
    assert!(
        run.errors[1].message.starts_with("noise.bin: "),
        "{}",
        run.errors[1].message
    );
    assert!(session.catalog().objects().is_empty());
    assert_eq!(session.summary()["skipped"].as_array().unwrap().len(), 2);
}
