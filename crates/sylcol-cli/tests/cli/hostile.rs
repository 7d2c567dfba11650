//! Hostile archives and output folders, run through the real binary: the
//! cases of the table in docs/security.md ("Hostile archives"); the
//! memory, signal and temporary-file cases are in `limits.rs`.

use crate::common::handmade::{RawEntry, write_archive, z1_zeros};
use crate::common::{files_under, fixture, named_archive, run_os as run, stderr, stdout};
use sylcol_format::ipfb::make_entry_id;

#[cfg(unix)]
#[test]
fn extract_never_writes_through_a_link_in_the_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pak, names) = named_archive(d, &[("sub\\x.bin", b"evil"), ("ok.bin", b"fine")]);
    let victim = d.join("victim");
    std::fs::create_dir(&victim).unwrap();
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink("../victim", out.join("sub")).unwrap();
    let o = run(args!["pak", "extract", &pak, "-o", &out, "--names", &names]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("entry sub\\x.bin") && err.contains("is a symbolic link (to ../victim)"),
        "{err}"
    );
    assert_eq!(files_under(&victim), Vec::<String>::new());
    assert_eq!(std::fs::read(out.join("ok.bin")).unwrap(), b"fine");
}

#[cfg(unix)]
#[test]
fn export_of_an_archive_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mcol = std::fs::read(fixture("box.mcol")).unwrap();
    let lib = library("rou_part");
    // Built-in names: export needs no name list to know them.
    let (pak, _) = named_archive(
        d,
        &[
            ("mapmesh_box_500km.col", &mcol),
            ("CollisionSet_S01.bin", &lib),
        ],
    );
    let victim = d.join("victim");
    std::fs::create_dir(&victim).unwrap();
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink("../victim", out.join("CollisionSet_S01.bin")).unwrap();
    std::os::unix::fs::symlink("../victim/map.obj", out.join("mapmesh_box_500km.col.obj")).unwrap();
    let o = run(args!["export", &pak, "-o", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for entry in ["CollisionSet_S01.bin", "mapmesh_box_500km.col"] {
        assert!(
            err.contains(&format!("entry {entry}")) && err.contains("symbolic link"),
            "{entry}: {err}"
        );
    }
    assert_eq!(files_under(&victim), Vec::<String>::new());
}

/// A library's export places every file before it writes one: a link
/// where one mesh would go is refused and nothing is written (it used to
/// stop there, leaving the meshes before it and no manifest).
#[cfg(unix)]
#[test]
fn a_library_export_refused_half_way_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = format!("{}+CollisionSet_S01.bin", crate::common::samples());
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink("../victim.obj", out.join("S01_Asteroid_cmesh_04.obj")).unwrap();
    let o = run(args!["export", &lib, "-o", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(files_under(&out), ["S01_Asteroid_cmesh_04.obj"]);
    assert!(!d.join("victim.obj").exists());
}

#[cfg(unix)]
#[test]
fn pak_build_refuses_a_link_out_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("src");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("a.bin"), b"a").unwrap();
    std::fs::write(d.join("secret"), b"private").unwrap();
    std::os::unix::fs::symlink("../a.bin", src.join("sub").join("alias.bin")).unwrap();
    let pak = d.join("Out.pak");
    // A link to a file inside the folder is packed under the link's name.
    let o = run(args!["pak", "build", &src, "-o", &pak]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(args![
        "pak",
        "extract",
        &pak,
        "-o",
        &d.join("x"),
        "sub/alias.bin"
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let alias = format!("${:08X}", make_entry_id("sub\\alias.bin"));
    assert_eq!(files_under(&d.join("x")), [alias.as_str()]);
    assert_eq!(std::fs::read(d.join("x").join(alias)).unwrap(), b"a");
    // A link out of the folder stops the build, naming link and target.
    std::os::unix::fs::symlink("../secret", src.join("leak.bin")).unwrap();
    std::fs::remove_file(&pak).unwrap();
    let o = run(args!["pak", "build", &src, "-o", &pak]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("leak.bin: refused, a symbolic link to ../secret outside the input folder"),
        "{err}"
    );
    assert!(!pak.exists());
    // So does a dangling one.
    std::fs::remove_file(src.join("leak.bin")).unwrap();
    std::os::unix::fs::symlink("nowhere", src.join("dangling.bin")).unwrap();
    let o = run(args!["pak", "build", &src, "-o", &pak]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("which does not exist"),
        "{}",
        stderr(&o)
    );
}

const ESC_NAME: &str = "esc\x1b[2Jred.bin";
const BELL_NAME: &str = "dir\x07\\cr\rmid\u{202e}txt.bin";

#[test]
fn control_characters_are_escaped_in_text_kept_in_json_and_mapped_in_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pak, names) = named_archive(d, &[(ESC_NAME, b"one"), (BELL_NAME, b"two")]);
    let raw = |s: &str| s.chars().any(sylcol_format::text::is_hidden_control);
    let o = run(args!["pak", "list", &pak, "--names", &names]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(!raw(&text.replace('\n', "")), "{text:?}");
    assert!(text.contains("esc\\x1b[2Jred.bin"), "{text}");
    assert!(
        text.contains("dir\\x07\\cr\\x0dmid\\u{202e}txt.bin"),
        "{text}"
    );
    let o = run(args!["pak", "list", &pak, "--names", &names, "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut json_names: Vec<&str> = rows["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    json_names.sort();
    assert_eq!(json_names, [BELL_NAME, ESC_NAME], "kept intact in JSON");
    let out = d.join("out");
    let o = run(args!["pak", "extract", &pak, "-o", &out, "--names", &names]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!raw(&stdout(&o).replace('\n', "")) && !raw(&stderr(&o).replace('\n', "")));
    assert!(
        stderr(&o).contains("written as esc%1B[2Jred.bin"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        files_under(&out),
        [
            ".sylcol-pak.json",
            "dir%07/cr%0Dmid%E2%80%AEtxt.bin",
            "esc%1B[2Jred.bin"
        ]
    );
    // An error naming such an entry is escaped too.
    let o = run(args!["pak", "extract", &pak, "-o", &out, "nope\x1b.bin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no entry nope\\x1b.bin (hash"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn control_characters_in_collisionset_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = d.join("lib.bin");
    std::fs::write(&lib, library("rou_\x1b]0;pwned\x07")).unwrap();
    let o = run(args!["info", &lib]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("rou_\\x1b]0;pwned\\x07"),
        "{}",
        stdout(&o)
    );
    let o = run(args!["verify", &lib]);
    assert!(!stdout(&o).contains('\x1b') && !stderr(&o).contains('\x1b'));
    let out = d.join("meshes");
    let o = run(args!["export", &lib, "-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_under(&out),
        ["manifest.txt", "rou_%1B]0;pwned%07.obj"]
    );
    assert!(!stderr(&o).contains('\x1b'));
}

/// A line break in a record name is a control like any other: `info` and
/// `verify` keep the name on its line (`\x0a`), the file name shows `%0A`.
#[test]
fn line_breaks_in_collisionset_names_stay_on_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = d.join("lib.bin");
    std::fs::write(&lib, library("rou_a\nFAKE LINE")).unwrap();
    let o = run(args!["info", &lib]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("rou_a\\x0aFAKE LINE"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("FAKE LINE")), "{text}");
    let o = run(args!["verify", &lib]);
    assert!(
        !stdout(&o).lines().any(|l| l.starts_with("FAKE LINE")),
        "{}",
        stdout(&o)
    );
    let json = run(args!["info", &lib, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["objects"][0]["meshes"][0]["name"], "rou_a\nFAKE LINE");
    let out = d.join("meshes");
    let o = run(args!["export", &lib, "-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(files_under(&out).contains(&"rou_a%0AFAKE LINE.obj".to_string()));
}

#[test]
fn duplicated_hashes_are_all_extracted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = 0x2CF7_EB47;
    let taken = make_entry_id("$2cf7eb47.data~2");
    let mut entries = vec![
        RawEntry::new(h, 0, 0, b"DATA first".to_vec()),
        RawEntry::new(h, 0, 0x800, b"DATA second".to_vec()),
        RawEntry::new(h, 0, 0x1000, b"DATA third".to_vec()),
        // Its name is what the second copy would take first.
        RawEntry::new(taken, 0, 0x1800, b"DATA~2 is taken".to_vec()),
    ];
    entries.sort_by_key(|e| e.hash); // stable: the copies keep their order
    let pak = write_archive(d, "Dup", &entries);
    let names = d.join("names.txt");
    std::fs::write(&names, "$2CF7EB47.DATA~2\n").unwrap();
    let out = d.join("out");
    let o = run(args!["pak", "extract", &pak, "-o", &out, "--names", &names]);
    assert_eq!(o.status.code(), Some(2), "the index problem is reported");
    let err = stderr(&o);
    assert!(err.contains("duplicate hash"), "{err}");
    assert!(
        err.contains("written as $2CF7EB47.DATA~3") && err.contains("written as $2CF7EB47.DATA~4"),
        "{err}"
    );
    let read = |n: &str| std::fs::read(out.join(n)).unwrap();
    assert_eq!(read("$2CF7EB47.DATA"), b"DATA first");
    assert_eq!(read("$2CF7EB47.DATA~3"), b"DATA second");
    assert_eq!(read("$2CF7EB47.DATA~4"), b"DATA third");
    assert_eq!(read("$2CF7EB47.DATA~2"), b"DATA~2 is taken");
    // Naming the hash selects every entry that has it.
    let some = d.join("some");
    let o = run(args!["pak", "extract", &pak, "-o", &some, "$2CF7EB47"]);
    assert!(stdout(&o).contains("extracted 3 of 3"), "{}", stdout(&o));
}

#[test]
fn entries_past_the_part_end_and_overlapping_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut past = RawEntry::new(0x10, 0, 0x800, b"DATA short".to_vec());
    past.size = 0x10_0000; // declares 1 MiB, the part ends after 10 bytes
    let pak = write_archive(
        d,
        "Odd",
        &[
            RawEntry::new(0x01, 0, 0, b"DATA shared bytes".to_vec()),
            // Starts inside the first entry's bytes: read as declared.
            RawEntry::new(0x02, 0, 5, b"shared bytes".to_vec()),
            past,
        ],
    );
    let out = d.join("out");
    let o = run(args!["pak", "extract", &pak, "-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("entry $00000010 (Odd.p00 at byte 0x800)")
            && err
                .contains("it runs past the end of its part) needs 1048576 bytes, only 10 remain"),
        "{err}"
    );
    assert_eq!(files_under(&out), ["$00000001.DATA", "$00000002.shar"]);
    assert_eq!(
        std::fs::read(out.join("$00000002.shar")).unwrap(),
        b"shared bytes"
    );
}

#[test]
fn a_z1_bomb_stops_at_its_declared_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Declares 1 MiB; the stream would inflate to 64 MiB.
    let bomb = z1_zeros(1 << 20, 64 << 20);
    assert!(bomb.len() < 600_000);
    let pak = write_archive(d, "Bomb", &[RawEntry::new(0x42, 0, 0, bomb)]);
    let out = d.join("out");
    let o = run(args!["pak", "extract", &pak, "-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("inflates past it (stopped there)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_under(&out), Vec::<String>::new(), "no file, no temp");
    // An honest entry of the same stream inflates and checks out.
    let honest = z1_zeros(8 << 20, 8 << 20);
    let z = sylcol_format::ipfb::z1::decompress(&honest).unwrap();
    assert!(z.len() == 8 << 20 && z.iter().all(|&b| b == 0));
}

/// A CollisionSet of one tetrahedron named `name` (big-endian).
fn library(name: &str) -> Vec<u8> {
    use sylcol_format::collisionset::{CollisionSet, Endian, Record, encode};
    let mut name_field = name.as_bytes().to_vec();
    name_field.resize(name.len().div_ceil(8) * 8 + 8, 0);
    let record = Record {
        name_field,
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    };
    let set = CollisionSet {
        endian: Endian::Big,
        records: vec![record],
    };
    encode(&set).unwrap()
}

/// An archive's entries named like its own files, extracted into its own
/// folder: the index, the part being read and the name list are never
/// written over (compared by identity, whatever the path), every other
/// entry comes out whole, and the refusals make the run exit 2.
#[test]
fn extract_into_the_archives_own_folder_never_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let named: [(&str, &[u8]); 5] = [
        ("A.p00", b"JUNK JUNK JUNK"),
        ("A.pak", b"NOTANINDEX"),
        ("names.txt", b"not the names"),
        ("zz1.bin", &[b'1'; 500]),
        ("aa2.bin", &[b'2'; 500]),
    ];
    let mut entries: Vec<RawEntry> = (named.iter().enumerate())
        .map(|(i, (n, b))| RawEntry::new(make_entry_id(n), 0, i as u32 * 0x800, b.to_vec()))
        .collect();
    entries.sort_by_key(|e| e.hash);
    let pak = write_archive(d, "A", &entries);
    let list: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
    std::fs::write(d.join("names.txt"), list.join("\n")).unwrap();
    let before: Vec<Vec<u8>> = ["A.pak", "A.p00", "names.txt"]
        .iter()
        .map(|f| std::fs::read(d.join(f)).unwrap())
        .collect();
    let o = crate::common::sylcol()
        .current_dir(d)
        .args(["pak", "extract", "A.pak", "-o", "."])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for f in ["A.pak", "A.p00", "names.txt"] {
        assert!(
            err.contains(&format!(
                "entry {f}: refused: ./{f} is a file this command reads"
            )),
            "{f}: {err}"
        );
    }
    assert!(stdout(&o).contains("extracted 2 of 5"), "{}", stdout(&o));
    for (f, bytes) in ["A.pak", "A.p00", "names.txt"].iter().zip(&before) {
        assert_eq!(&std::fs::read(d.join(f)).unwrap(), bytes, "{f} unchanged");
    }
    assert_eq!(std::fs::read(d.join("zz1.bin")).unwrap(), [b'1'; 500]);
    assert_eq!(std::fs::read(d.join("aa2.bin")).unwrap(), [b'2'; 500]);
    assert!(pak.exists());
}

/// Two maps whose names map to one file name (a control character shown
/// as `%1B`, and a literal `%1B`) are both exported, the second as `~2`.
#[test]
fn export_of_an_archive_writes_names_that_map_alike_to_two_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mcol = std::fs::read(fixture("box.mcol")).unwrap();
    let (pak, names) = named_archive(d, &[("m\x1b.col", &mcol), ("m%1B.col", &mcol)]);
    let out = d.join("out");
    let o = run(args!["export", &pak, "-o", &out, "--names", &names]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files_under(&out), ["m%1B.col.obj", "m%1B.col~2.obj"]);
    let err = stderr(&o);
    assert!(
        err.contains("is written to the same file name, written as m%1B.col~2.obj"),
        "{err}"
    );
}
