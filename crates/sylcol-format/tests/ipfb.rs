//! IPFB archives built here, read back, and broken on purpose.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use sylcol_format::ipfb::{
    Archive, ArchiveError, IndexEntry, NewEntry, WriteError, WriteOptions, build_archive,
    make_entry_id,
};

/// Compressible, varied bytes of length `n`.
fn payload(seed: u32, n: usize) -> Vec<u8> {
    let text = format!("entry {seed}: collision data, vertices and triangles. ");
    text.bytes()
        .cycle()
        .take(n)
        .enumerate()
        .map(|(i, c)| c ^ ((i as u32 * seed) >> 12) as u8)
        .collect()
}

fn entries() -> Vec<NewEntry> {
    let mut mcol = b"MCOL".to_vec();
    mcol.extend(payload(7, 5000));
    vec![
        NewEntry::named("CollisionSet_S01.bin", payload(1, 9000), true),
        NewEntry::named("eng/GP_TITLE.tbl", payload(2, 3000), false),
        NewEntry::hashed(0x2CF7_EB47, mcol, true),
        NewEntry::named("stored_big.bin", payload(3, 6000), false),
        NewEntry::named("empty.bin", Vec::new(), true),
    ]
}

/// Builds the test archive with a 8 KiB part limit: several parts.
fn build(dir: &Path) -> (PathBuf, Vec<IndexEntry>) {
    let pak = dir.join("Test.pak");
    let opts = WriteOptions {
        part_limit: 8192,
        level: 9,
    };
    let index = build_archive(&pak, entries(), opts).unwrap();
    (pak, index)
}

/// The test archive, built in `dir` and opened.
fn open_built(dir: &Path) -> Archive {
    let (pak, _) = build(dir);
    Archive::open(&pak).unwrap()
}

fn entry_of(archive: &Archive, hash: u32) -> IndexEntry {
    *archive.index.find(hash).unwrap()
}

fn read(archive: &Archive, hash: u32) -> Result<Vec<u8>, ArchiveError> {
    let info = archive.probe(&entry_of(archive, hash))?;
    archive.read_entry(&info)
}

#[test]
fn round_trip_across_parts() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    assert!(index.windows(2).all(|w| w[0].hash < w[1].hash));
    assert!(
        index.iter().map(|e| e.part).max().unwrap() >= 2,
        "{index:?}"
    );
    assert!(index.iter().all(|e| e.offset % 2048 == 0));
    assert!(dir.path().join("Test.p02").exists());
    let archive = Archive::open(&pak).unwrap();
    assert!(archive.index.problems.is_empty());
    for e in entries() {
        let info = archive.probe(&entry_of(&archive, e.key.hash())).unwrap();
        assert_eq!(info.compressed, e.compress);
        assert_eq!(info.size, e.bytes.len() as u64);
        assert_eq!(archive.read_entry(&info).unwrap(), e.bytes);
    }
    let unknown = archive.probe(&entry_of(&archive, 0x2CF7_EB47)).unwrap();
    assert_eq!(unknown.display, "$2CF7EB47.MCOL");
    assert_eq!(unknown.magic.as_deref(), Some("MCOL"));
    assert_eq!(unknown.name, None);
    let known = archive
        .probe(&entry_of(&archive, make_entry_id("collisionset_s01.bin")))
        .unwrap();
    assert_eq!(known.name.as_deref(), Some("CollisionSet_S01.bin"));
}

#[test]
fn part_names_in_any_case_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, _) = build(dir.path());
    for n in 0..3 {
        let from = dir.path().join(format!("Test.p{n:02}"));
        std::fs::rename(&from, dir.path().join(format!("TEST.P{n:02}"))).unwrap();
    }
    let archive = Archive::open(&pak).unwrap();
    for e in entries() {
        assert_eq!(read(&archive, e.key.hash()).unwrap(), e.bytes);
    }
}

#[test]
fn duplicates_and_raw_z1_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pak = dir.path().join("D.pak");
    let dup = vec![
        NewEntry::named("A.bin", vec![1], false),
        NewEntry::named("a.BIN", vec![2], false),
    ];
    let err = build_archive(&pak, dup, WriteOptions::default()).unwrap_err();
    assert!(matches!(err, WriteError::DuplicateHash { .. }), "{err}");
    let z1 = vec![NewEntry::named("z.bin", b"Z1xx".to_vec(), false)];
    let err = build_archive(&pak, z1, WriteOptions::default()).unwrap_err();
    assert!(err.to_string().contains("z.bin"), "{err}");
    assert!(!pak.exists(), "a failed build leaves no index");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no temporary files left"
    );
}

/// Offset of the entry's data in its part and the part's path.
fn locate(dir: &Path, archive: &Archive, hash: u32) -> (PathBuf, usize) {
    let e = entry_of(archive, hash);
    (dir.join(format!("Test.p{:02}", e.part)), e.offset as usize)
}

fn entry_error(r: Result<Vec<u8>, ArchiveError>) -> String {
    let e = r.unwrap_err();
    assert!(matches!(e, ArchiveError::Entry { .. }), "{e}");
    e.to_string()
}

#[test]
fn read_with_magic_reads_only_the_entries_that_start_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open_built(dir.path());
    let found: Vec<_> = archive
        .read_with_magic("MCOL")
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(found.len(), 1);
    let (info, bytes) = &found[0];
    assert_eq!(info.entry.hash, 0x2CF7_EB47);
    assert_eq!(bytes, &entries()[2].bytes);
    assert_eq!(archive.read_with_magic("REGN").count(), 0);
}

#[test]
fn lying_z1_header_is_caught_and_others_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open_built(dir.path());
    let s01 = make_entry_id("CollisionSet_S01.bin");
    let (part, at) = locate(dir.path(), &archive, s01);
    let original = std::fs::read(&part).unwrap();
    // declared size smaller than the data: the inflater stops there
    let mut bytes = original.clone();
    bytes[at + 2..at + 6].copy_from_slice(&100u32.to_be_bytes());
    std::fs::write(&part, &bytes).unwrap();
    let msg = entry_error(read(&archive, s01));
    assert!(
        msg.contains("CollisionSet_S01.bin") && msg.contains("inflates past"),
        "{msg}"
    );
    assert!(msg.contains(&format!("{:#x}", at + 2)), "{msg}");
    // Adler-32 in the Z1 header wrong
    let mut bytes = original.clone();
    bytes[at + 9] ^= 0x55;
    std::fs::write(&part, &bytes).unwrap();
    let msg = entry_error(read(&archive, s01));
    assert!(msg.contains("Z1 header Adler-32"), "{msg}");
    // every other entry still reads
    for e in entries().iter().filter(|e| e.key.hash() != s01) {
        assert_eq!(read(&archive, e.key.hash()).unwrap(), e.bytes);
    }
}

#[test]
fn truncated_and_missing_parts_name_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    let archive = Archive::open(&pak).unwrap();
    let last_part = index.iter().map(|e| e.part).max().unwrap();
    let victim = *index.iter().find(|e| e.part == last_part).unwrap();
    let part = dir.path().join(format!("Test.p{last_part:02}"));
    let len = std::fs::metadata(&part).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&part)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    let reopened = Archive::open(&pak).unwrap();
    let msg = reopened.probe(&victim).unwrap_err().to_string();
    assert!(msg.contains("runs past the end of its part"), "{msg}");
    assert!(msg.contains(&format!("{:#x}", victim.offset)), "{msg}");
    std::fs::remove_file(&part).unwrap();
    let reopened = Archive::open(&pak).unwrap();
    let msg = reopened.probe(&victim).unwrap_err().to_string();
    assert!(
        msg.contains("missing") && msg.contains(&format!("Test.p{last_part:02}")),
        "{msg}"
    );
    let readable = index.iter().filter(|e| reopened.probe(e).is_ok()).count();
    assert_eq!(
        readable,
        index.iter().filter(|e| e.part != last_part).count()
    );
    drop(archive);
}

/// A part that shrinks after the archive was opened (another process, or
/// an output written over it) gives an error at the byte where the entry's
/// bytes stopped, never a short entry read as whole.
#[test]
fn a_part_that_shrinks_while_open_is_an_error_not_a_short_entry() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open_built(dir.path());
    let raw = make_entry_id("stored_big.bin");
    let info = archive.probe(&entry_of(&archive, raw)).unwrap();
    let (part, at) = locate(dir.path(), &archive, raw);
    let file = std::fs::OpenOptions::new().write(true).open(&part).unwrap();
    file.set_len(at as u64 + 100).unwrap();
    let msg = entry_error(archive.read_entry(&info));
    let part_name = part.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        msg.contains(&format!("({part_name} at byte {:#x})", at + 100))
            && msg.contains("its part file ended while it was read"),
        "{msg}"
    );
}

#[test]
fn truncated_index_keeps_leading_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    let bytes = std::fs::read(&pak).unwrap();
    std::fs::write(&pak, &bytes[..bytes.len() - 7]).unwrap();
    let archive = Archive::open(&pak).unwrap();
    assert_eq!(archive.entries().len(), index.len() - 1);
    assert_eq!(archive.index.problems.len(), 1);
    assert!(archive.index.problems[0].to_string().contains("truncated"));
    std::fs::write(&pak, &bytes[..8]).unwrap();
    let err = Archive::open(&pak).unwrap_err().to_string();
    assert!(
        err.contains("Test.pak") && err.contains("IPFB header needs 16 bytes, only 8 remain"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any set of entries round-trips, whatever the part limit.
    #[test]
    fn any_entries_round_trip(
        blobs in prop::collection::vec((prop::collection::vec(any::<u8>(), 0..3000), any::<bool>()), 1..8),
        limit in 2048u64..20_000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let pak = dir.path().join("P.pak");
        let new: Vec<NewEntry> = blobs.iter().enumerate().map(|(i, (b, c))| {
            NewEntry::named(&format!("dir\\file{i}.bin"), b.clone(), *c || b.starts_with(b"Z1"))
        }).collect();
        build_archive(&pak, new.clone(), WriteOptions { part_limit: limit, level: 6 }).unwrap();
        let archive = Archive::open(&pak).unwrap();
        prop_assert_eq!(archive.entries().len(), new.len());
        for e in &new {
            prop_assert_eq!(&read(&archive, e.key.hash()).unwrap(), &e.bytes);
        }
    }

    /// The hash ignores ASCII case and treats `/` as `\` only via normalise.
    #[test]
    fn hash_is_case_blind(name in "[A-Za-z0-9_\\\\.]{0,40}") {
        prop_assert_eq!(make_entry_id(&name), make_entry_id(&name.to_uppercase()));
    }
}

#[test]
fn bytes_after_the_declared_table_are_not_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    let mut bytes = std::fs::read(&pak).unwrap();
    bytes.extend(std::iter::repeat_n(0xAB, 100_000));
    std::fs::write(&pak, &bytes).unwrap();
    let archive = Archive::open(&pak).unwrap();
    assert_eq!(archive.entries(), &index[..]);
    assert!(archive.index.problems.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A Z1 entry with any byte changed or cut short never panics: it
    /// inflates to the original bytes (a flip the checks cannot see, e.g.
    /// in an unused bit) or fails with an offset inside the entry.
    #[test]
    fn corrupted_z1_fails_cleanly(at in any::<prop::sample::Index>(), flip in 1u8..=255, cut in any::<bool>()) {
        let data = payload(9, 4000);
        let mut z = sylcol_format::ipfb::z1::compress(&data, 9).unwrap();
        let i = at.index(z.len());
        if cut {
            z.truncate(i);
        } else {
            z[i] ^= flip;
        }
        match sylcol_format::ipfb::z1::decompress(&z) {
            Ok(out) => prop_assert_eq!(out, data),
            Err(e) => prop_assert!(e.offset <= z.len() as u64, "{e}"),
        }
    }
}

#[test]
fn rebuilding_into_fewer_parts_removes_the_stale_ones() {
    use sylcol_format::ipfb::ArchiveWriter;
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    let parts = usize::from(index.iter().map(|e| e.part).max().unwrap()) + 1;
    assert!(parts >= 3);
    // An unrelated file and a part-like name of another stem stay.
    std::fs::write(dir.path().join("Other.p01"), b"other").unwrap();
    // Upper case counts: parts are found in any letter case.
    std::fs::rename(dir.path().join("Test.p02"), dir.path().join("TEST.P02")).unwrap();
    let mut writer = ArchiveWriter::create(&pak, WriteOptions::default());
    writer
        .add(
            &sylcol_format::ipfb::EntryKey::Name("one.bin".into()),
            b"1",
            true,
        )
        .unwrap();
    let done = writer.finish().unwrap();
    let mut removed: Vec<String> = done
        .stale_parts_removed
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    removed.sort();
    let mut expected: Vec<String> = (1..parts).map(|n| format!("Test.p{n:02}")).collect();
    expected[1] = "TEST.P02".into();
    expected.sort();
    assert_eq!(removed, expected);
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|i| i.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["Other.p01", "Test.p00", "Test.pak"]);
    let archive = Archive::open(&pak).unwrap();
    assert_eq!(read(&archive, make_entry_id("one.bin")).unwrap(), b"1");
}

/// A destination that cannot be replaced (a folder named like the index)
/// is found before any file is renamed: the earlier archive stays whole.
#[test]
fn a_folder_in_the_way_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, _) = build(dir.path());
    let before = std::fs::read(dir.path().join("Test.p00")).unwrap();
    std::fs::remove_file(&pak).unwrap();
    std::fs::create_dir(&pak).unwrap();
    let one = vec![NewEntry::named("one.bin", b"1".to_vec(), true)];
    let err = build_archive(&pak, one, WriteOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("Test.pak: cannot write: a folder has that name"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.path().join("Test.p00")).unwrap(), before);
    assert!(dir.path().join("Test.p02").exists(), "no part removed");
    let temporaries = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|i| {
            i.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("sylcol-tmp")
        })
        .count();
    assert_eq!(temporaries, 0);
}

#[test]
fn write_errors_name_the_final_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let pak = dir.path().join("missing").join("X.pak");
    let err = build_archive(&pak, entries(), WriteOptions::default()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("X.p00: cannot write"), "{msg}");
    assert!(!msg.contains("sylcol-tmp"), "{msg}");
    assert!(std::error::Error::source(&err).is_none(), "whole message");
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn sniffing_reads_a_head_and_holds_the_whole_only_when_wanted() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, _) = build(dir.path());
    let archive = Archive::open(&pak).unwrap();
    let z1 = archive.probe(&entry_of(&archive, make_entry_id("CollisionSet_S01.bin")));
    let z1 = z1.unwrap();
    let raw = archive.probe(&entry_of(&archive, make_entry_id("stored_big.bin")));
    let raw = raw.unwrap();
    for (info, whole) in [(&z1, payload(1, 9000)), (&raw, payload(3, 6000))] {
        let mut seen = 0;
        let skipped = archive.read_entry_if(
            info,
            100,
            |head| {
                seen = head.len();
                Err("not wanted")
            },
            true,
        );
        assert_eq!((skipped.unwrap(), seen), (Err("not wanted"), 100));
        let kept = archive.read_entry_if(
            info,
            100,
            |head| (head == &whole[..100]).then_some(()).ok_or(()),
            true,
        );
        assert_eq!(kept.unwrap().unwrap(), whole);
    }
    // A Z1 entry not wanted is still checked to its end.
    let mut part = std::fs::read(pak.with_extension(format!("p{:02}", z1.entry.part))).unwrap();
    part[z1.entry.offset as usize + 6] ^= 1; // the Z1 header's Adler-32
    std::fs::write(pak.with_extension(format!("p{:02}", z1.entry.part)), part).unwrap();
    let z1 = archive.probe(&z1.entry).unwrap();
    let err = archive
        .read_entry_if(&z1, 100, |_| Err(()), true)
        .unwrap_err();
    assert!(err.to_string().contains("Adler-32"), "{err}");
    let unchecked = archive.read_entry_if(&z1, 100, |_| Err(()), false);
    assert_eq!(unchecked.unwrap(), Err(()), "the head alone reads fine");
}

#[test]
fn streamed_entries_equal_in_memory_ones() {
    use sylcol_format::ipfb::{ArchiveWriter, EntryKey};
    let dir = tempfile::tempdir().unwrap();
    let mut written = Vec::new();
    for streamed in [false, true] {
        let pak = dir.path().join(format!("S{}.pak", u8::from(streamed)));
        let mut w = ArchiveWriter::create(&pak, WriteOptions::default());
        for e in entries() {
            if streamed {
                let len = e.bytes.len() as u64;
                w.add_stream(&e.key, &mut &e.bytes[..], len, e.compress)
            } else {
                w.add(&e.key, &e.bytes, e.compress)
            }
            .unwrap();
        }
        w.finish().unwrap();
        let archive = Archive::open(&pak).unwrap();
        for e in entries() {
            assert_eq!(read(&archive, e.key.hash()).unwrap(), e.bytes);
        }
        written.push(std::fs::read(pak.with_extension("p00")).unwrap());
    }
    assert_eq!(written[0], written[1], "same bytes, same places");
    let mut w = ArchiveWriter::create(&dir.path().join("Bad.pak"), WriteOptions::default());
    let key = EntryKey::Name("short.bin".into());
    let err = w.add_stream(&key, &mut &b"abc"[..], 4, true).unwrap_err();
    assert!(
        err.to_string().contains("gave 3 bytes, 4 were expected"),
        "{err}"
    );
    let key = EntryKey::Name("z1.bin".into());
    let err = w
        .add_stream(&key, &mut &b"Z1 raw"[..], 6, false)
        .unwrap_err();
    assert!(
        err.to_string().contains("would read back as compressed"),
        "{err}"
    );
}

/// What probing an entry gave (its info, printed, or the error's text) and
/// what reading it gave (its bytes, or the error's text).
type Read = (Result<String, String>, Result<Vec<u8>, String>);

/// Every result of reading every entry of `archive`.
fn every_read(archive: &Archive) -> Vec<Read> {
    archive
        .entries()
        .iter()
        .map(|e| match archive.probe(e) {
            Ok(info) => (
                Ok(format!("{info:?}")),
                archive.read_entry(&info).map_err(|x| x.to_string()),
            ),
            Err(x) => (Err(x.to_string()), Err(String::new())),
        })
        .collect()
}

/// The files of the test archive in `dir` but the index, by name.
fn part_bytes(dir: &Path) -> Vec<(String, std::sync::Arc<[u8]>)> {
    let mut parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x != "pak"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap().into())
        })
        .collect();
    parts.sort();
    parts
}

#[test]
fn an_archive_in_memory_reads_and_fails_as_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (pak, index) = build(dir.path());
    let index_bytes = std::fs::read(&pak).unwrap();
    // In memory the index is named as given (a page has no folders).
    let named = dir.path().join("Test.pak");
    let mut parts = part_bytes(dir.path());
    parts.push(("unrelated.bin".into(), b"not a part".to_vec().into()));
    let memory = Archive::from_memory(&named, &index_bytes, &parts).unwrap();
    let disk = Archive::open(&pak).unwrap();
    assert_eq!(every_read(&memory), every_read(&disk));
    assert_eq!(memory.files(), disk.files());
    // A part left out, or cut short, is the error reading it from disk gives.
    let last_part = index.iter().map(|e| e.part).max().unwrap();
    let last = format!("Test.p{last_part:02}");
    let part = dir.path().join(&last);
    let bytes = std::fs::read(&part).unwrap();
    std::fs::write(&part, &bytes[..bytes.len() - 10]).unwrap();
    let cut: Vec<_> = part_bytes(dir.path());
    let memory = Archive::from_memory(&named, &index_bytes, &cut).unwrap();
    assert_eq!(
        every_read(&memory),
        every_read(&Archive::open(&pak).unwrap())
    );
    std::fs::remove_file(&part).unwrap();
    let without: Vec<_> = part_bytes(dir.path());
    let memory = Archive::from_memory(&named, &index_bytes, &without).unwrap();
    let reads = every_read(&memory);
    assert_eq!(reads, every_read(&Archive::open(&pak).unwrap()));
    assert!(
        reads
            .iter()
            .any(|r| r.0.as_ref().is_err_and(|e| e.contains(&last)))
    );
    // An index cut inside its header is the same error too.
    let short = Archive::from_memory(&named, &index_bytes[..7], &without).unwrap_err();
    std::fs::write(&pak, &index_bytes[..7]).unwrap();
    assert_eq!(
        short.to_string(),
        Archive::open(&pak).unwrap_err().to_string()
    );
}
