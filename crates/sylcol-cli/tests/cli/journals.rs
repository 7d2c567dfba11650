//! Planted recovery journals (issue 33; docs/security.md, "Planted
//! recovery journals"). Every command that writes into a folder first
//! settles the journals of killed sylcol runs it finds there; a journal
//! that an archive, a download or another user put there must change
//! nothing, and above all nothing outside the folder. Each case plants a
//! journal, runs the real binary, and compares every file byte for byte.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::common::handmade::{JournalRecord, journal_v1, journal_v2};
use crate::common::{files_under, fixture, named_archive, path, run_os, stderr, stdout};
use crate::outputs::{contents, killed_at, noise, pak_build, pak_build_args, write_tree};

/// A PID no process has (Linux's `pid_max` is at most 2^22): the journal
/// of a run that is gone.
const DEAD: &str = "2147483647";

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).unwrap_or_default();
            (f, bytes)
        })
        .collect()
}

/// A folder with `outside/` (two victims) and the inputs of every command
/// that writes a file.
struct Scene {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let tetra = |s: f32| {
            format!(
                "v 0 0 0\nv {s} 0 0\nv 0 {s} 0\nv 0 0 {s}\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
            )
        };
        write_tree(
            &root,
            &[
                ("outside/victim.txt", b"keep me"),
                ("outside/victim2.txt", b"keep me too"),
                ("hull.obj", tetra(40.0).as_bytes()),
                ("parts/rou_e101_bdy.obj", tetra(40.0).as_bytes()),
                ("src/a.bin", b"packed"),
            ],
        );
        let names = root.join("names.txt");
        let o = run_os(args!["export", &fixture("names.idxd"), "-o", &names]);
        assert!(o.status.success(), "{}", stderr(&o));
        Scene { _dir: dir, root }
    }

    fn outside(&self) -> PathBuf {
        self.root.join("outside")
    }

    /// The commands that settle the journals of the folder `f` before
    /// they write there (all but `pak recover` write a file into it).
    fn commands(&self, f: &Path) -> Vec<(&'static str, Vec<OsString>)> {
        let r = &self.root;
        let box_mcol = fixture("box.mcol");
        let args = |a: &[&dyn AsRef<std::ffi::OsStr>]| -> Vec<OsString> {
            a.iter().map(|x| x.as_ref().to_os_string()).collect()
        };
        vec![
            (
                "pak build",
                args(&[&"pak", &"build", &r.join("src"), &"-o", &f.join("New.pak")]),
            ),
            (
                "rewrite",
                args(&[&"rewrite", &box_mcol, &"-o", &f.join("box.mcol")]),
            ),
            (
                "view -o",
                args(&[&"view", &box_mcol, &"-o", &f.join("view.html")]),
            ),
            (
                "build mcol",
                args(&[
                    &"build",
                    &"mcol",
                    &r.join("hull.obj"),
                    &"-o",
                    &f.join("map.mcol"),
                ]),
            ),
            (
                "build collisionset",
                args(&[
                    &"build",
                    &"collisionset",
                    &r.join("parts"),
                    &"-o",
                    &f.join("lib.bin"),
                ]),
            ),
            (
                "build idxd",
                args(&[
                    &"build",
                    &"idxd",
                    &r.join("names.txt"),
                    &"-o",
                    &f.join("n.idxd"),
                ]),
            ),
            ("pak recover", args(&[&"pak", &"recover", &f])),
        ]
    }
}

/// A file's identity as sylcol records it: device, inode, size,
/// modification time in nanoseconds.
#[cfg(unix)]
fn identity(file: &Path) -> [u64; 4] {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(file).unwrap();
    let mtime = m.mtime() * 1_000_000_000 + m.mtime_nsec();
    [m.dev(), m.ino(), m.len(), mtime as u64]
}

/// The journal of the issue, in the first format: settling it moved
/// `payload.sh` (in the folder) over `outside/victim.txt` and removed
/// `outside/victim2.txt`.
fn issue_journal(outside: &Path) -> Vec<u8> {
    let victim = outside.join("victim.txt");
    let victim2 = outside.join("victim2.txt");
    journal_v1(&[
        JournalRecord {
            dest: path(&victim),
            temp: "",
            backup: Some("payload.sh"),
            id: None,
        },
        JournalRecord {
            dest: "x.pak",
            temp: path(&victim2),
            backup: None,
            id: None,
        },
    ])
}

/// A journal sylcol would honour if it trusted its writer: `keep.txt`
/// (a file of the folder, whose identity it gives) was "a new file that
/// replaced none", and `x.pak` never came, so settling removes
/// `keep.txt`.
#[cfg(unix)]
fn well_formed_journal(folder: &Path) -> Vec<u8> {
    let keep_temp = format!(".keep.txt.sylcol-tmp-{DEAD}");
    let pak_temp = format!(".x.pak.sylcol-tmp-{DEAD}");
    journal_v2(&[
        JournalRecord {
            dest: "keep.txt",
            temp: &keep_temp,
            backup: None,
            id: Some(identity(&folder.join("keep.txt"))),
        },
        JournalRecord {
            dest: "x.pak",
            temp: &pak_temp,
            backup: None,
            id: Some([1, 2, 3, 4]),
        },
    ])
}

/// A journal in the current format of one record (with an identity).
fn one_record(dest: &str, temp: &str, backup: Option<&str>) -> Vec<u8> {
    journal_v2(&[JournalRecord {
        dest,
        temp,
        backup,
        id: Some([1, 2, 3, 4]),
    }])
}

/// One way to plant a journal in a folder (which holds `payload.sh` and
/// `keep.txt`), and the reason sylcol must give when it refuses it.
struct Variant {
    label: &'static str,
    plant: fn(&Scene, &Path) -> Vec<u8>,
    /// What to do to the journal once written (chmod, chown).
    then: fn(&Path),
    reason: &'static str,
}

fn variants() -> Vec<Variant> {
    let nothing: fn(&Path) = |_| {};
    let mut all = vec![
        Variant {
            label: "the issue's journal: first format, absolute paths",
            plant: |s, _| issue_journal(&s.outside()),
            then: nothing,
            reason: "first journal format (SYLJRNL1)",
        },
        Variant {
            label: "absolute paths, current format",
            plant: |s, _| {
                let victim = s.outside().join("victim.txt");
                journal_v2(&[JournalRecord {
                    dest: path(&victim),
                    temp: ".victim.txt.sylcol-tmp-1",
                    backup: Some("payload.sh"),
                    id: Some([1, 2, 3, 4]),
                }])
            },
            then: nothing,
            reason: "is not a bare file name",
        },
        Variant {
            label: "`..` as the file",
            plant: |_, _| one_record("../outside/victim.txt", ".victim.txt.sylcol-tmp-1", None),
            then: nothing,
            reason: "\"../outside/victim.txt\" is not a bare file name",
        },
        Variant {
            label: "`..` as the temporary file",
            plant: |_, _| one_record("x.pak", "../outside/victim2.txt", None),
            then: nothing,
            reason: "temporary file \"../outside/victim2.txt\" is not named",
        },
        Variant {
            label: "a file of the folder as the temporary file",
            plant: |_, _| one_record("x.pak", "keep.txt", None),
            then: nothing,
            reason: "temporary file \"keep.txt\" is not named .x.pak.sylcol-tmp-PID",
        },
        Variant {
            label: "a file of the folder as the backup",
            plant: |_, _| one_record("x.pak", ".x.pak.sylcol-tmp-1", Some("payload.sh")),
            then: nothing,
            reason: "backup \"payload.sh\" is not named .x.pak.sylcol-old-PID",
        },
    ];
    #[cfg(unix)]
    all.extend([
        Variant {
            label: "a damaged checksum",
            plant: |_, f| {
                let mut bytes = well_formed_journal(f);
                let at = bytes.len() - 20;
                bytes[at] ^= 1;
                bytes
            },
            then: nothing,
            reason: "its checksum at byte",
        },
        Variant {
            label: "world-writable",
            plant: |_, f| well_formed_journal(f),
            then: |j| chmod(j, 0o666),
            reason: "group- or world-writable (mode 0666)",
        },
        Variant {
            label: "group-writable",
            plant: |_, f| well_formed_journal(f),
            then: |j| chmod(j, 0o620),
            reason: "group- or world-writable (mode 0620)",
        },
    ]);
    #[cfg(unix)]
    if running_as_root() {
        all.push(Variant {
            label: "another user's",
            plant: |_, f| well_formed_journal(f),
            then: |j| std::os::unix::fs::chown(j, Some(65534), Some(65534)).unwrap(),
            reason: "owned by another user (uid 65534",
        });
    }
    all
}

#[cfg(unix)]
fn chmod(file: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether the tests run as root (the files they create are root's).
#[cfg(unix)]
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::NamedTempFile::new().unwrap();
    probe.as_file().metadata().unwrap().uid() == 0
}

/// Writes `folder` with `payload.sh`, `keep.txt` and the variant's
/// journal (named after `x.pak`, of a dead PID); returns the journal.
fn plant(scene: &Scene, folder: &Path, v: &Variant) -> PathBuf {
    write_tree(
        folder,
        &[
            ("payload.sh", b"#!/bin/sh\necho pwned\n"),
            ("keep.txt", b"the user's file"),
        ],
    );
    let journal = folder.join(format!(".x.pak.sylcol-journal-{DEAD}"));
    std::fs::write(&journal, (v.plant)(scene, folder)).unwrap();
    (v.then)(&journal);
    journal
}

/// Each planted journal, in front of each command that settles journals:
/// the journal is refused, saying why, and no file changes, outside the
/// folder or in it; the command itself still does its work (exit 0), and
/// `pak recover` exits 2. Before the fix, the first four moved the
/// payload over `outside/victim.txt` or removed `outside/victim2.txt`,
/// and the rest removed `keep.txt` or renamed `payload.sh`.
#[test]
fn planted_journals_are_refused_by_every_command_that_settles_them() {
    let scene = Scene::new();
    let outside = snapshot(&scene.outside());
    let count = scene.commands(Path::new("")).len();
    for (n, v) in variants().iter().enumerate() {
        for i in 0..count {
            let folder = scene.root.join(format!("v{n}-c{i}"));
            let journal = plant(&scene, &folder, v);
            let before = snapshot(&folder);
            let (label, args) = scene.commands(&folder).swap_remove(i);
            let o = crate::common::sylcol().args(&args).output().unwrap();
            let at = format!("{} / {label}", v.label);
            let said = format!("{}{}", stdout(&o), stderr(&o));
            let expected = if label == "pak recover" { 2 } else { 0 };
            assert_eq!(o.status.code(), Some(expected), "{at}: {said}");
            assert!(
                said.contains(&format!("{}: refused: ", journal.display()))
                    && said.contains(v.reason)
                    && said.contains("no file was changed"),
                "{at}: {said}"
            );
            assert_eq!(snapshot(&scene.outside()), outside, "{at}: outside");
            let mut after = snapshot(&folder);
            after.retain(|name, _| before.contains_key(name));
            assert_eq!(after, before, "{at}: every file of the folder as it was");
        }
    }
}

/// The well-formed journal of the cases above, private and this user's:
/// it passes every check and is honoured (`keep.txt`, whose identity it
/// gives, goes as "a new file that replaced none"). So the refusals above
/// are the checks at work, not a journal sylcol could not read anyway.
#[cfg(unix)]
#[test]
fn the_same_journal_written_privately_by_this_user_is_honoured() {
    let scene = Scene::new();
    let folder = scene.root.join("own");
    let v = Variant {
        label: "private",
        plant: |_, f| well_formed_journal(f),
        then: |j| chmod(j, 0o600),
        reason: "",
    };
    plant(&scene, &folder, &v);
    let o = run_os(args!["pak", "recover", &folder]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!(
            "remove {}, a new file",
            folder.join("keep.txt").display()
        )),
        "{}",
        stdout(&o)
    );
    assert_eq!(files_under(&folder), ["payload.sh"]);
}

/// The attack of the issue, step by step: an archive holding a journal
/// entry, extracted (the entry gets a visible name instead of the
/// journal's), then step 4 of docs/modding.md writes into the folder.
/// Before the fix: `outside/victim.txt` held the payload and
/// `outside/victim2.txt` was gone, with one line on standard error.
#[test]
fn an_extracted_journal_entry_cannot_reach_outside_the_folder() {
    let scene = Scene::new();
    let d = &scene.root;
    let entry = format!(".x.pak.sylcol-journal-{DEAD}");
    let journal = issue_journal(&scene.outside());
    // Its own folder: named_archive writes a names.txt beside it.
    std::fs::create_dir(d.join("evil")).unwrap();
    let (pak, names) = named_archive(
        &d.join("evil"),
        &[
            (&entry, &journal),
            ("payload.sh", b"#!/bin/sh\necho pwned\n"),
            ("readme.txt", b"read me"),
        ],
    );
    let outside = snapshot(&scene.outside());
    let extracted = d.join("extracted");
    let o = run_os(args![
        "pak", "extract", &pak, "-o", &extracted, "--names", &names
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let visible = format!("%2Ex.pak.sylcol-journal-{DEAD}");
    assert!(
        stderr(&o).contains(&format!(
            "entry {entry} (hash {:08X}): its name is one sylcol gives its own temporary, backup and journal files, which a later run would act on, written as {visible}",
            sylcol_format::ipfb::make_entry_id(&entry)
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        files_under(&extracted),
        [
            visible.as_str(),
            ".sylcol-pak.json",
            "payload.sh",
            "readme.txt"
        ]
    );
    assert_eq!(std::fs::read(extracted.join(&visible)).unwrap(), journal);
    for args in scene.commands(&extracted) {
        let o = crate::common::sylcol().args(&args.1).output().unwrap();
        assert!(o.status.success(), "{}: {}", args.0, stderr(&o));
        let err = stderr(&o);
        let settled = err.contains("refused") || err.contains("was killed");
        assert!(!settled, "{}: no journal is found: {err}", args.0);
        assert_eq!(snapshot(&scene.outside()), outside, "{}", args.0);
    }
    assert_eq!(
        std::fs::read(extracted.join("payload.sh")).unwrap(),
        b"#!/bin/sh\necho pwned\n"
    );
}

/// `export` of an archive names its files after the entries: an entry
/// named as a journal or a temporary file is written under the visible
/// name too, never as one of sylcol's own.
#[test]
fn export_of_an_archive_never_writes_a_name_of_sylcols_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mcol = std::fs::read(fixture("box.mcol")).unwrap();
    let (pak, names) = named_archive(
        d,
        &[
            (".m.col.sylcol-tmp-7", &mcol),
            (".c.sylcol-journal-7", &mcol),
        ],
    );
    let out = d.join("out");
    let o = run_os(args!["export", &pak, "-o", &out, "--names", &names]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_under(&out),
        ["%2Ec.sylcol-journal-7.obj", "%2Em.col.sylcol-tmp-7.obj"]
    );
}

/// A downloaded folder: an archive's part, a journal and a backup named
/// as sylcol's, no index. Before the fix `pak list` said to run `pak
/// recover`, which then moved the "backup" over `outside/victim.txt` and
/// removed `outside/victim2.txt`. Now the journal is refused: `pak list`
/// gives no such advice, and `pak recover` changes nothing (exit 2).
#[test]
fn a_downloaded_folder_cannot_send_pak_recover_outside() {
    let scene = Scene::new();
    let d = &scene.root;
    let dl = d.join("download");
    let backup = format!(".Mod.pak.sylcol-old-{DEAD}");
    let journal = journal_v1(&[
        JournalRecord {
            dest: path(&scene.outside().join("victim.txt")),
            temp: "",
            backup: Some(&backup),
            id: None,
        },
        JournalRecord {
            dest: "Mod.pak",
            temp: path(&scene.outside().join("victim2.txt")),
            backup: None,
            id: None,
        },
    ]);
    write_tree(
        &dl,
        &[
            ("Mod.p00", &noise(1)),
            (&backup, b"#!/bin/sh\necho pwned\n"),
            (&format!(".Mod.pak.sylcol-journal-{DEAD}"), &journal),
        ],
    );
    let outside = snapshot(&scene.outside());
    let before = snapshot(&dl);
    let list = run_os(args!["pak", "list", &dl.join("Mod.pak")]);
    assert_eq!(list.status.code(), Some(2));
    assert!(!stderr(&list).contains("pak recover"), "{}", stderr(&list));
    let o = run_os(args!["pak", "recover", &dl]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("refused: it is in the first journal format"));
    assert_eq!(snapshot(&scene.outside()), outside);
    assert_eq!(snapshot(&dl), before);
}

/// The same download, its journal rewritten in the current format with
/// bare names (what the checks leave an attacker): `pak list` does say
/// to run `pak recover`, `--dry-run` says what it would rename and
/// changes nothing, and `pak recover` then acts in the folder alone: the
/// "backup" becomes `Mod.pak`, and no file outside changes.
#[test]
fn a_download_with_a_well_formed_journal_stays_in_its_folder() {
    let scene = Scene::new();
    let dl = scene.root.join("download");
    let backup = format!(".Mod.pak.sylcol-old-{DEAD}");
    let temp = format!(".Mod.pak.sylcol-tmp-{DEAD}");
    let journal = journal_v2(&[JournalRecord {
        dest: "Mod.pak",
        temp: &temp,
        backup: Some(&backup),
        id: Some([1, 2, 3, 4]),
    }]);
    write_tree(
        &dl,
        &[
            ("Mod.p00", &noise(1)),
            (&backup, b"not an index"),
            (&format!(".Mod.pak.sylcol-journal-{DEAD}"), &journal),
        ],
    );
    #[cfg(unix)]
    chmod(&dl.join(format!(".Mod.pak.sylcol-journal-{DEAD}")), 0o600);
    let outside = snapshot(&scene.outside());
    let list = run_os(args!["pak", "list", &dl.join("Mod.pak")]);
    assert!(stderr(&list).contains("pak recover"), "{}", stderr(&list));
    let before = snapshot(&dl);
    let dry = run_os(args!["pak", "recover", "--dry-run", &dl]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    let put_back = format!(
        "put the earlier {} back from {}",
        dl.join("Mod.pak").display(),
        dl.join(&backup).display()
    );
    assert!(stdout(&dry).contains(&put_back), "{}", stdout(&dry));
    assert!(
        stdout(&dry).contains("will be put back"),
        "{}",
        stdout(&dry)
    );
    assert_eq!(snapshot(&dl), before, "a dry run changes nothing");
    let o = run_os(args!["pak", "recover", &dl]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&put_back), "{}", stdout(&o));
    assert_eq!(snapshot(&scene.outside()), outside);
    assert_eq!(files_under(&dl), ["Mod.p00", "Mod.pak"]);
    assert_eq!(std::fs::read(dl.join("Mod.pak")).unwrap(), b"not an index");
}

/// A shared folder (mode 1777, as /tmp): another user plants a journal
/// that, honoured, would remove root's mode-600 file (it gives that
/// file's identity, which anyone may read with `stat`). Root's `rewrite`
/// into the folder refuses it, naming the owner; the file stays.
#[cfg(unix)]
#[test]
fn a_journal_of_another_user_in_a_shared_folder_is_refused() {
    if !running_as_root() {
        eprintln!(
            "skipped: making a file another user's needs root (the mode rule is tested by every user)"
        );
        return;
    }
    let scene = Scene::new();
    let shared = scene.root.join("shared");
    std::fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o1777);
    let secret = shared.join("keep.txt");
    std::fs::write(&secret, b"root's secret").unwrap();
    chmod(&secret, 0o600);
    let journal = shared.join(format!(".x.pak.sylcol-journal-{DEAD}"));
    std::fs::write(&journal, well_formed_journal(&shared)).unwrap();
    chmod(&journal, 0o600);
    std::os::unix::fs::chown(&journal, Some(65534), Some(65534)).unwrap();
    let o = run_os(args![
        "rewrite",
        &fixture("box.mcol"),
        "-o",
        &shared.join("box.mcol")
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refused: it is owned by another user (uid 65534, not 0)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&secret).unwrap(), b"root's secret");
    assert!(journal.exists());
}

/// A journal sylcol wrote itself, killed (`SIGKILL`) between the renames
/// of a 3-part rebuild: `pak recover --dry-run` prints each rename and
/// removal and changes nothing; `pak recover` prints them before taking
/// them, then the outcome; the folder holds the earlier archive.
#[test]
fn pak_recover_says_what_it_will_do_before_doing_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let three = ["--part-limit", "8192", "--store", "*"];
    write_tree(
        &d.join("old"),
        &[
            ("a.bin", &noise(1)),
            ("b.bin", &noise(2)),
            ("c.bin", &noise(3)),
        ],
    );
    write_tree(
        &d.join("new"),
        &[
            ("x.bin", &noise(4)),
            ("y.bin", &noise(5)),
            ("z.bin", &noise(6)),
        ],
    );
    let pak = d.join("out").join("Mod.pak");
    assert!(pak_build(&d.join("old"), &pak, &three).status.success());
    let out = pak.parent().unwrap();
    let before = contents(out);
    let args = pak_build_args(&d.join("new"), &pak, &three);
    // Killed entering the sixth rename: the four earlier files are
    // aside, the first new part is in; the other three new files are
    // still under their temporary names.
    let Some(o) = killed_at("rename", 6, &args) else {
        eprintln!("skipped: strace is missing or cannot trace here");
        return;
    };
    assert_ne!(o.status.code(), Some(0));
    let killed = contents(out);
    let dry = run_os(args!["pak", "recover", "--dry-run", out]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    let text = stdout(&dry);
    assert_eq!(contents(out), killed, "a dry run changes nothing");
    assert_eq!(text.matches("\n  put the earlier ").count(), 4, "{text}");
    assert_eq!(
        text.matches(", an unfinished new file").count(),
        3,
        "{text}"
    );
    assert!(
        text.contains("the earlier files will be put back"),
        "{text}"
    );
    let o = run_os(args!["pak", "recover", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let (plan, outcome) = (
        text.find("the earlier files will be put back").unwrap(),
        text.find("; put back the earlier files").unwrap(),
    );
    assert!(plan < outcome, "{text}");
    assert!(text[..outcome].contains("\n  put the earlier "), "{text}");
    assert_eq!(contents(out), before);
}
