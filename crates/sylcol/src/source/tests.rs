use std::path::Path;
use std::sync::Arc;

use sylcol_format::ipfb::split_archive_path;

use super::*;

#[test]
fn splits_archive_paths() {
    assert_eq!(
        split_archive_path("dat\\tables.pak+eng\\GP_TITLE.tbl"),
        Some(("dat\\tables.pak", "eng\\GP_TITLE.tbl"))
    );
    assert_eq!(
        split_archive_path("x/MiscBin.PAK+$2CF7EB47.MCOL"),
        Some(("x/MiscBin.PAK", "$2CF7EB47.MCOL"))
    );
    assert_eq!(split_archive_path("plain.bin"), None);
    assert_eq!(split_archive_path("a.pak"), None);
}

fn archive(dir: &Path) -> String {
    use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};
    let pak = dir.join("tables.pak");
    let entries = vec![
        NewEntry::named("eng\\GP_TITLE.tbl", b"title table".to_vec(), true),
        NewEntry::hashed(0x2CF7_EB47, b"MCOL body".to_vec(), false),
    ];
    build_archive(&pak, entries, WriteOptions::default()).unwrap();
    pak.to_string_lossy().into_owned()
}

#[test]
fn reads_entries_by_name_or_hash() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let open = Opener::default();
    for inner in ["eng/GP_TITLE.tbl", "ENG\\gp_title.TBL", "$5EE70E0A"] {
        let input = open.any(&format!("{pak}+{inner}")).unwrap();
        assert_eq!(*input.bytes, b"title table", "{inner}");
        assert!(input.name.ends_with("+$5EE70E0A.titl"), "{}", input.name);
    }
    let mcol = open.any(&format!("{pak}+$2CF7EB47.MCOL")).unwrap();
    assert_eq!(*mcol.bytes, b"MCOL body");
    let missing = open.any(&format!("{pak}+nope.bin")).err().unwrap();
    assert!(
        missing.to_string().contains("no entry nope.bin"),
        "{missing}"
    );
    assert_eq!(open.any(&pak).unwrap().bytes[..4], *b"IPFB");
}

#[test]
fn walks_a_whole_archive_past_a_bad_entry() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let part = dir.path().join("tables.p00");
    let mut bytes = std::fs::read(&part).unwrap();
    bytes[2048 + 5] ^= 1; // the Z1 entry (second in hash order): its size field
    std::fs::write(&part, bytes).unwrap();
    let open = Opener::default();
    let all: Vec<_> = open.objects(&pak).unwrap().collect();
    assert_eq!(all.len(), 2);
    assert_eq!(all.iter().filter(|r| r.is_err()).count(), 1);
    let one: Vec<_> = open.objects(&format!("{pak}+$2CF7EB47")).unwrap().collect();
    assert_eq!(one.len(), 1);
    assert!(open.objects(&pak).unwrap().archive().is_some());
}

#[test]
fn rows_of_one_stream_share_one_read() {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let mut walk = Opener::default().objects(pak).unwrap();
    let libraries: Vec<Input> = walk
        .by_ref()
        .filter_map(|item| match item.unwrap() {
            Item::Whole(input) if input.name.contains("CollisionSet_") => Some(input),
            _ => None,
        })
        .collect();
    assert_eq!(libraries.len(), 18, "the disc's eighteen rows");
    assert!(
        libraries
            .iter()
            .all(|l| Arc::ptr_eq(&l.bytes, &libraries[0].bytes)),
        "one read, shared"
    );
    let names: std::collections::HashSet<_> = libraries.iter().map(|l| &l.name).collect();
    assert_eq!(names.len(), 18, "each row keeps its own name");
    let Objects::Archive { streams, .. } = &walk else {
        unreachable!("an archive walk")
    };
    assert_eq!(streams.kept_bytes(), 0, "let go after the last row");
}

#[test]
fn names_come_from_beside_the_archive_and_from_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let names = |open: &Opener| -> Vec<String> {
        open.objects(&pak)
            .unwrap()
            .map(|item| match item.unwrap() {
                Item::Whole(i) => i.name,
                Item::Other(e) => e.path,
            })
            .collect()
    };
    let titled = |open: &Opener| {
        names(open)
            .iter()
            .any(|n| n.ends_with("+eng\\GP_TITLE.tbl"))
    };
    assert!(
        names(&Opener::default())
            .iter()
            .any(|n| n.ends_with("+$5EE70E0A.titl"))
    );
    assert!(titled(&Opener::new(NameList::with_names([
        "eng/GP_TITLE.tbl"
    ]))));
    // A list beside the archive names its own entries, not another's.
    let beside = dir.path().join(NAMES_BESIDE);
    std::fs::write(&beside, "other.pak+eng\\GP_TITLE.tbl\n").unwrap();
    assert!(!titled(&Opener::default()));
    std::fs::write(&beside, "dat\\tables.pak+eng\\GP_TITLE.tbl\n").unwrap();
    assert!(titled(&Opener::default()));
    let open = Opener::new(NameList::with_file(Some(dir.path().join("given.txt"))));
    let e = open.archive(&pak).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("given.txt: cannot read the name list"),
        "{e}"
    );
    let files = Opener::default().archive_files(&pak, &Opener::default().archive(&pak).unwrap());
    assert!(files.contains(&beside));
}

#[test]
fn bytes_are_admitted_like_a_file() {
    assert!(matches!(
        from_bytes("<bytes>", b"nothing"),
        Err(SourceError::Object(_))
    ));
    let map = sylcol_format::mcol::encode(&crate::verify::testmaps::box_map()).unwrap();
    let input = from_bytes("m", &map).unwrap();
    assert!(matches!(input.decode(), Ok(Object::Mcol(_))));
}

/// What the objects of a FILE argument give, as text: names, bytes and
/// every error as reported, with the folder `dir` left off the paths.
fn walked(objects: Result<Objects, SourceError>, dir: &Path) -> Vec<String> {
    let describe = |item: Result<Item, SourceError>| match item {
        Ok(Item::Whole(input)) => format!("{} {:?}", input.name, input.bytes),
        Ok(Item::Other(e)) => format!("other {e}"),
        Err(e) => format!("error {:?}", e.report()),
    };
    let lines = match objects {
        Ok(objects) => objects.map(describe).collect(),
        Err(e) => vec![format!("error {:?}", e.report())],
    };
    let prefix = format!("{}/", dir.display());
    lines.iter().map(|l| l.replace(&prefix, "")).collect()
}

#[test]
fn a_memory_folder_opens_as_the_same_files_in_a_folder_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let pak = archive(dir.path());
    let at = |name: &str| dir.path().join(name);
    std::fs::copy(&pak, at("lone.pak")).unwrap(); // its part is missing
    std::fs::write(at(NAMES_BESIDE), "tables.pak+eng\\GP_TITLE.tbl\n").unwrap();
    let map = sylcol_format::mcol::encode(&crate::verify::testmaps::box_map()).unwrap();
    std::fs::write(at("cut.MCOL"), &map[..map.len() / 2]).unwrap();
    std::fs::write(at("whole.MCOL"), &map).unwrap();
    std::fs::write(at("noise.bin"), [0x5Au8; 5000]).unwrap();
    std::fs::write(at("empty.pak"), b"IPFB").unwrap(); // an index cut short

    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut folder = MemoryFolder::new();
    for name in &names {
        let bytes = std::fs::read(at(name)).unwrap();
        folder.add(&format!("dropped/{name}"), bytes);
    }
    assert_eq!(
        folder.arguments(),
        [
            "cut.MCOL",
            "empty.pak",
            "lone.pak",
            "noise.bin",
            "tables.pak",
            "whole.MCOL"
        ],
        "the parts of a dropped archive and names.txt are read by it"
    );
    let open = Opener::default();
    for name in folder.arguments() {
        let on_disk = walked(open.objects(&at(name).to_string_lossy()), dir.path());
        let in_memory = walked(open.objects_in(&folder, name), dir.path());
        assert_eq!(in_memory, on_disk, "{name}");
    }
    let titled = walked(open.objects_in(&folder, "tables.pak"), dir.path());
    assert!(
        titled
            .iter()
            .any(|l| l.starts_with("other tables.pak+eng\\GP_TITLE.tbl: ")),
        "named by the names.txt dropped with it: {titled:?}"
    );
    let missing = open.objects_in(&folder, "nope.bin").err().unwrap();
    assert!(matches!(missing, SourceError::Read(_)), "{missing}");
}

#[test]
fn a_memory_folder_keeps_the_last_file_of_a_name() {
    let mut folder = MemoryFolder::new();
    folder.add("a/x.bin", b"one".to_vec());
    folder.add("b\\x.bin", b"two".to_vec());
    assert_eq!(folder.files().len(), 1);
    assert_eq!(&folder.get("x.bin").unwrap()[..], b"two");
}
