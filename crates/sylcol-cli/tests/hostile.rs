//! Hostile archives and output folders, run through the real binary: each
//! case of the table in docs/reliability.md ("Hostile archives").

mod common;

use std::path::{Path, PathBuf};

use common::handmade::{RawEntry, write_archive, z1_zeros};
use common::{fixture, sylcol};
use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive, make_entry_id};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs sylcol with `args`; returns the output.
fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    sylcol().args(args).output().unwrap()
}

macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

/// An archive of named entries (`names` lists them for `--names`).
fn named_archive(dir: &Path, entries: &[(&str, &[u8])]) -> (PathBuf, PathBuf) {
    let pak = dir.join("Named.pak");
    let list: Vec<NewEntry> = entries
        .iter()
        .map(|(n, b)| NewEntry::named(n, b.to_vec(), true))
        .collect();
    build_archive(&pak, list, WriteOptions::default()).unwrap();
    let names = dir.join("names.txt");
    let text: Vec<&str> = entries.iter().map(|(n, _)| *n).collect();
    std::fs::write(&names, text.join("\n")).unwrap();
    (pak, names)
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for item in std::fs::read_dir(&d).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

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
        ["dir%07/cr%0Dmid%E2%80%AEtxt.bin", "esc%1B[2Jred.bin"]
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
    assert_eq!(files_under(&out), ["rou_%1B]0;pwned%07.obj"]);
    assert!(!stderr(&o).contains('\x1b'));
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

/// An archive with a 256 MiB raw entry (a sparse part file) and a 128 MiB
/// Z1 entry of zeros (0.85 MB stored) beside a small MCOL: big entries of
/// formats sylcol does not decode.
fn big_entries_archive(dir: &Path) -> PathBuf {
    let mcol = std::fs::read(fixture("box.mcol")).unwrap();
    let pak = write_archive(
        dir,
        "Big",
        &[
            RawEntry {
                hash: 0x10,
                part: 0,
                offset: 0,
                size: 256 << 20,
                bytes: b"DATA".to_vec(),
            },
            RawEntry::new(0x20, 1, 0, z1_zeros(128 << 20, 128 << 20)),
            RawEntry::new(0x30, 2, 0, mcol),
        ],
    );
    let part = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("Big.p00"))
        .unwrap();
    part.set_len(256 << 20).unwrap();
    pak
}

/// Runs `sylcol ARGS` with its address space capped at `mib` MiB.
#[cfg(unix)]
fn run_capped(mib: u64, args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("sylcol");
    let mut quoted = vec![bin.display().to_string()];
    quoted.extend(args.iter().map(|a| a.to_string()));
    let line = quoted
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; exec {line}", mib * 1024))
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn info_and_verify_never_hold_an_entry_they_do_not_decode() {
    let dir = tempfile::tempdir().unwrap();
    let pak = big_entries_archive(dir.path());
    let pak = pak.to_str().unwrap();
    // 100 MiB of address space: less than either big entry.
    let o = run_capped(100, &["info", pak, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["objects"].as_array().unwrap().len(), 1, "the MCOL");
    let other: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap().rsplit('+').next().unwrap())
        .collect();
    assert_eq!(other, ["$00000010.DATA", "$00000020"]);
    let o = run_capped(100, &["verify", pak]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("skipped 2 entries"), "{}", stdout(&o));
    // One named entry, or a plain file, of another format: refused from its head.
    let plain = dir.path().join("Big.p00");
    for one in [format!("{pak}+$00000020"), plain.display().to_string()] {
        for cmd in ["info", "export", "verify"] {
            let o = run_capped(
                100,
                &[cmd, &one, "-o", "unused"][..if cmd == "export" { 4 } else { 2 }],
            );
            assert_eq!(o.status.code(), Some(2), "{cmd} {one}: {}", stderr(&o));
            assert!(stderr(&o).contains("not a format sylcol"), "{}", stderr(&o));
        }
    }
}

/// Names of sylcol's temporary files under `dir`.
fn temps_under(dir: &Path) -> Vec<String> {
    files_under(dir)
        .into_iter()
        .filter(|f| f.contains(".sylcol-tmp-"))
        .collect()
}

#[cfg(unix)]
#[test]
fn a_signal_during_extraction_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pak = write_archive(
        d,
        "Slow",
        &[RawEntry::new(0x42, 0, 0, z1_zeros(256 << 20, 256 << 20))],
    );
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let out = d.join(format!("out{signal}"));
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sylcol"))
            .args(["pak", "extract"])
            .arg(&pak)
            .arg("-o")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !out.exists() || temps_under(&out).is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "finished before a temporary file was seen"
            );
            assert!(
                started.elapsed().as_secs() < 60,
                "no temporary file appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // SAFETY: sends a signal to the child this test started.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "dies of the signal");
        assert_eq!(temps_under(&out), Vec::<String>::new());
        assert_eq!(files_under(&out), Vec::<String>::new());
    }
}

#[test]
fn a_later_run_removes_stale_temporary_files_of_dead_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pak, names) = named_archive(d, &[("sub\\x.bin", b"x"), ("y.bin", b"y")]);
    let out = d.join("out");
    std::fs::create_dir_all(out.join("sub")).unwrap();
    // PIDs above the kernel's limit (2^22) are never alive.
    let dead = [
        ".y.bin.sylcol-tmp-2147483000",
        "sub/.x.bin.sylcol-tmp-2147483001",
    ];
    let alive = format!(".z.bin.sylcol-tmp-{}", std::process::id());
    let unrelated = ".y.bin.tmp-2147483000";
    for f in dead.iter().chain([&alive.as_str(), &unrelated]) {
        std::fs::write(out.join(f), b"stale").unwrap();
    }
    let o = run(args!["pak", "extract", &pak, "-o", &out, "--names", &names]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("y.bin: removed the unfinished copy an interrupted sylcol (pid 2147483000)"),
        "{err}"
    );
    assert!(
        !err.contains(".sylcol-tmp"),
        "never names a temp file: {err}"
    );
    let mut expected = [alive.as_str(), unrelated, "sub/x.bin", "y.bin"];
    expected.sort();
    assert_eq!(files_under(&out), expected);
}

#[cfg(unix)]
#[test]
fn pak_build_streams_a_big_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let big = std::fs::File::create(src.join("big.bin")).unwrap();
    big.set_len(128 << 20).unwrap();
    std::fs::write(src.join("small.bin"), b"small").unwrap();
    let pak = dir.path().join("Big.pak");
    let (src, pak) = (src.to_str().unwrap(), pak.to_str().unwrap());
    // 80 MiB of address space: less than the file.
    let o = run_capped(80, &["pak", "build", src, "-o", pak, "--store", "big.bin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(args!["pak", "list", pak, "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sizes: Vec<u64> = rows["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bytes"].as_u64().unwrap())
        .collect();
    assert!(
        sizes.contains(&(128 << 20)) && sizes.contains(&5),
        "{sizes:?}"
    );
}
