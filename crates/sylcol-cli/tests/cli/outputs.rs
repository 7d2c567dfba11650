//! Where commands write: folders created, stale parts removed, and
//! messages that name the user's file once, the OS error once, and never
//! a temporary file.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::common::{fixture, sylcol};

pub(crate) fn write_tree(src: &Path, files: &[(&str, &[u8])]) {
    for (name, bytes) in files {
        let path = src.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

pub(crate) fn pak_build(src: &Path, pak: &Path, extra: &[&str]) -> std::process::Output {
    sylcol()
        .args(["pak", "build"])
        .arg(src)
        .arg("-o")
        .arg(pak)
        .args(extra)
        .output()
        .unwrap()
}

/// 6 000 bytes that do not compress, different for each seed.
pub(crate) fn noise(seed: u32) -> Vec<u8> {
    (0..6000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed).to_be_bytes()[0])
        .collect()
}

/// The names in `dir` (files and folders, not below), sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|i| i.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_command_that_writes_creates_the_folders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tree(&d.join("src"), &[("a.bin", b"a")]);
    let pak = d.join("mod").join("deep").join("MiscBin.pak");
    let o = pak_build(&d.join("src"), &pak, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(pak.exists() && pak.with_extension("p00").exists());
    let box_mcol = fixture("box.mcol");
    for (args, made) in [
        (vec!["export", &box_mcol, "-o"], "e/f/box.obj"),
        (vec!["rewrite", &box_mcol, "-o"], "r/s/box.mcol"),
        (vec!["pak", "extract", pak.to_str().unwrap(), "-o"], "x/y"),
    ] {
        let target = d.join(made);
        let o = sylcol().args(&args).arg(&target).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(target.exists(), "{made}");
    }
}

/// Asserts one failure message: exit 2, `needle` in it, the OS error and
/// the path once, no temporary name.
fn assert_message(o: &std::process::Output, needle: &str, path: &str) {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
    assert_eq!(err.matches(path).count(), 1, "{path:?} once in {err}");
    assert!(!err.contains("sylcol-tmp"), "{err}");
}

#[test]
fn write_failures_are_said_once_without_temporary_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tree(&d.join("src"), &[("a.bin", b"a")]);
    std::fs::write(d.join("blocker"), b"a file").unwrap();
    let o = pak_build(&d.join("src"), &d.join("blocker").join("x.pak"), &[]);
    assert_message(&o, "blocker: cannot create the folder: ", "blocker");
    // With --json the error names the folder in its `path`.
    let out = d.join("blocker").join("sub");
    let o = sylcol()
        .args(["--json", "export"])
        .arg(crate::common::samples())
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let line: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(line["error"]["path"], out.display().to_string(), "{line}");
    assert_eq!(line["error"]["kind"], "io", "{line}");
    std::fs::create_dir(d.join("taken.obj")).unwrap();
    let o = sylcol()
        .args(["export", &fixture("box.mcol"), "-o"])
        .arg(d.join("taken.obj"))
        .output()
        .unwrap();
    assert_message(&o, "taken.obj: cannot write: ", "taken.obj");
    let o = sylcol()
        .args(["pak", "list"])
        .arg(d.join("nope.pak"))
        .output()
        .unwrap();
    assert_message(&o, "nope.pak: cannot read: ", "nope.pak");
    let o = sylcol()
        .args(["build", "collisionset"])
        .arg(d.join("nofolder"))
        .arg("-o")
        .arg(d.join("lib.bin"))
        .output()
        .unwrap();
    assert_message(&o, "nofolder: cannot read: ", "nofolder");
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|i| i.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("sylcol-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn rebuilding_with_fewer_parts_removes_the_stale_parts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b, c) = (noise(1), noise(2), noise(3));
    write_tree(
        &d.join("big"),
        &[("a.bin", &a), ("b.bin", &b), ("c.bin", &c)],
    );
    let pak = d.join("out").join("Mod.pak");
    let o = pak_build(
        &d.join("big"),
        &pak,
        &["--part-limit", "8192", "--store", "*"],
    );
    assert!(o.status.success());
    assert!(pak.with_extension("p02").exists(), "three parts");
    write_tree(&d.join("small"), &[("a.bin", b"a")]);
    let o = pak_build(&d.join("small"), &pak, &[]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("Mod.p01: removed, a part of the archive this one replaces")
            && text.contains("Mod.p02: removed"),
        "{text}"
    );
    let o = pak_build(&d.join("big"), &pak, &["--json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["stale_parts_removed"], serde_json::json!([]));
    // Nothing the build meant to remove stayed: no warning, and no backup
    // (`.Mod.pak.sylcol-old-PID`) or temporary file beside the archive.
    assert_eq!(report["warnings"], serde_json::json!([]));
    assert_eq!(names_in(&d.join("out")), ["Mod.p00", "Mod.pak"]);
}

/// `-o -` where a command writes a folder or several files is a usage
/// error (exit 2) saying so; nothing named `-` (or anything else) appears.
#[test]
fn dash_is_refused_where_a_folder_or_several_files_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tree(&d.join("src"), &[("a.bin", b"a")]);
    let o = pak_build(&d.join("src"), &d.join("Mod.pak"), &[]);
    assert!(o.status.success());
    let cwd = d.join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let pak = d.join("Mod.pak");
    let pak = pak.to_str().unwrap();
    let src = d.join("src");
    for args in [
        vec!["pak", "extract", pak, "-o", "-"],
        vec!["export", pak, "-o", "-"],
        vec!["pak", "build", src.to_str().unwrap(), "-o", "-"],
        vec!["names", "harvest", pak, "-o", "-"],
    ] {
        let o = sylcol().current_dir(&cwd).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("-o -: standard output takes one stream"),
            "{err}"
        );
        let left = std::fs::read_dir(&cwd).unwrap().count();
        assert_eq!(left, 0, "{args:?} wrote into the working folder");
    }
}

/// `pak build` whose index name is taken by a folder fails before it
/// renames anything: the earlier archive's part stays as it was.
#[test]
fn pak_build_that_cannot_write_its_index_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_tree(&d.join("one"), &[("a.bin", b"first archive")]);
    write_tree(&d.join("two"), &[("b.bin", b"second archive")]);
    let pak = d.join("out").join("X.pak");
    assert!(pak_build(&d.join("one"), &pak, &[]).status.success());
    let part = std::fs::read(pak.with_extension("p00")).unwrap();
    std::fs::remove_file(&pak).unwrap();
    std::fs::create_dir(&pak).unwrap();
    let o = pak_build(&d.join("two"), &pak, &[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("X.pak: is a folder"), "{err}");
    assert_eq!(std::fs::read(pak.with_extension("p00")).unwrap(), part);
    assert_eq!(names_in(&d.join("out")), ["X.p00", "X.pak"]);
}

/// `pak build` never writes its index or parts over a file it packs (the
/// archive written into the folder it packs, then built again).
#[test]
fn pak_build_never_replaces_a_file_it_packs() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    write_tree(&src, &[("a.bin", b"keep me"), ("X.P01", b"not a part")]);
    for (out, file) in [("a.bin", "a.bin"), ("X.pak", "X.P01")] {
        let o = pak_build(&src, &src.join(out), &[]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("{file}: is a file this build packs")),
            "{err}"
        );
    }
    assert_eq!(names_in(&src), ["X.P01", "a.bin"]);
    assert_eq!(std::fs::read(src.join("a.bin")).unwrap(), b"keep me");
}

/// The names and bytes of the files in `dir` (not below).
pub(crate) fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    names_in(dir)
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

/// `pak build` over a three-part archive whose middle part cannot be
/// moved aside (immutable): the build fails after it has moved the index
/// and the last part aside, undoes that, and says the previous archive was
/// restored; the folder holds exactly the earlier files, byte for byte
/// (no backup, no temporary file). The real binary, a real failure of
/// the file system (the library's unit tests fail each step through a
/// test-only hook instead).
#[test]
fn pak_build_that_fails_midway_restores_the_earlier_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let three = ["--part-limit", "8192", "--store", "*"];
    let (a, b, c) = (noise(1), noise(2), noise(3));
    write_tree(
        &d.join("old"),
        &[("a.bin", &a), ("b.bin", &b), ("c.bin", &c)],
    );
    let (x, y, z) = (noise(4), noise(5), noise(6));
    write_tree(
        &d.join("new"),
        &[("x.bin", &x), ("y.bin", &y), ("z.bin", &z)],
    );
    let out = d.join("out");
    let pak = out.join("Mod.pak");
    assert!(pak_build(&d.join("old"), &pak, &three).status.success());
    let before = contents(&out);
    assert_eq!(before.len(), 4, "Mod.pak and three parts");
    let Some(_held) = crate::common::Immutable::set(&pak.with_extension("p01")) else {
        eprintln!("skipped: chattr +i needs root and a file system with the flag");
        return;
    };
    let o = pak_build(&d.join("new"), &pak, &three);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("Mod.p01") && err.contains("the previous archive was restored"),
        "{err}"
    );
    assert_eq!(contents(&out), before, "the earlier archive, byte for byte");
    drop(_held);
    assert!(pak_build(&d.join("new"), &pak, &three).status.success());
    assert_eq!(names_in(&out), ["Mod.p00", "Mod.p01", "Mod.p02", "Mod.pak"]);
    assert_ne!(contents(&out), before);
}

/// Runs `sylcol ARGS` under strace, killed (`SIGKILL`) as it enters its
/// `when`-th call of `syscall`; `None` where strace cannot run (missing,
/// or tracing not permitted).
pub(crate) fn killed_at(
    syscall: &str,
    when: usize,
    args: &[OsString],
) -> Option<std::process::Output> {
    let traced = |program: &OsStr, extra: &[String], args: &[OsString]| {
        std::process::Command::new("strace")
            .args(["-f", "-o", "/dev/null"])
            .args(extra)
            .arg(program)
            .args(args)
            .output()
    };
    if !traced("true".as_ref(), &[], &[]).is_ok_and(|o| o.status.success()) {
        return None;
    }
    let inject = [
        format!("--trace={syscall}"),
        format!("--inject={syscall}:signal=SIGKILL:when={when}"),
    ];
    Some(traced(env!("CARGO_BIN_EXE_sylcol").as_ref(), &inject, args).unwrap())
}

/// The arguments of `sylcol pak build SRC -o PAK EXTRA...`.
pub(crate) fn pak_build_args(src: &Path, pak: &Path, extra: &[&str]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["pak".into(), "build".into(), src.into(), "-o".into()];
    args.push(pak.into());
    args.extend(extra.iter().map(OsString::from));
    args
}

/// `pak build` over a three-part archive, killed (`SIGKILL`, as by the
/// OOM killer; a power cut stops it the same way) before each of its
/// eight renames and each of its five removals after them: the archive is
/// then either readable as it was, or `pak list` names the half-replaced
/// archive and says to run `pak recover`; after `pak recover` the folder
/// holds the earlier archive (killed before the last rename) or the new
/// one (after), byte for byte, with no backup, journal or temporary file.
/// A rebuild settles what a killed one left before it writes. Each state
/// is reached by the real binary, stopped by the kernel.
#[test]
fn pak_build_killed_between_renames_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let three = ["--part-limit", "8192", "--store", "*"];
    let (a, b, c, x, y, z) = (noise(1), noise(2), noise(3), noise(4), noise(5), noise(6));
    write_tree(
        &d.join("old"),
        &[("a.bin", &a), ("b.bin", &b), ("c.bin", &c)],
    );
    write_tree(
        &d.join("new"),
        &[("x.bin", &x), ("y.bin", &y), ("z.bin", &z)],
    );
    let fresh = |name: &str, src: &str| {
        let pak = d.join(name).join("Mod.pak");
        assert!(pak_build(&d.join(src), &pak, &three).status.success());
        pak
    };
    let before = contents(fresh("before", "old").parent().unwrap());
    let after = contents(fresh("after", "new").parent().unwrap());
    assert_eq!((before.len(), after.len()), (4, 4));
    assert_ne!(before, after);
    // Four files moved aside, four renamed in; then four backups and the
    // journal removed (the unlinks after the last rename).
    let kills = (1..=8)
        .map(|n| ("rename", n))
        .chain((1..=5).map(|n| ("unlink", n)));
    for (syscall, when) in kills {
        let pak = fresh(&format!("{syscall}-{when}"), "old");
        let out = pak.parent().unwrap();
        let args = pak_build_args(&d.join("new"), &pak, &three);
        let Some(o) = killed_at(syscall, when, &args) else {
            eprintln!("skipped: strace is missing or cannot trace here");
            return;
        };
        let at = format!("killed at {syscall} {when}");
        assert_ne!(o.status.code(), Some(0), "{at}: it ran to the end");
        let list = sylcol().args(["pak", "list"]).arg(&pak).output().unwrap();
        if !list.status.success() {
            let err = String::from_utf8_lossy(&list.stderr);
            let recover_cmd = format!("run `sylcol pak recover {}`", out.display());
            assert!(
                err.contains("was replacing this archive") && err.contains(&recover_cmd),
                "{at}: {err}"
            );
        }
        let r = sylcol()
            .args(["pak", "recover", "--json"])
            .arg(out)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{at}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        crate::json_output::check("pak-recover", &report);
        let [found] = report["recovered"].as_array().unwrap().as_slice() else {
            panic!("{at}: one interrupted build: {report}");
        };
        let (expected, settled) = match syscall {
            "rename" => (&before, "rolled_back"),
            _ => (&after, "completed"),
        };
        assert_eq!(found["settled"], settled, "{at}: {report}");
        assert_eq!(&contents(out), expected, "{at}: the folder byte for byte");
        let list = sylcol().args(["pak", "list"]).arg(&pak).output().unwrap();
        assert!(list.status.success(), "{at}");
    }
    let pak = fresh("rebuilt", "old");
    let args = pak_build_args(&d.join("new"), &pak, &three);
    assert!(killed_at("rename", 6, &args).is_some());
    let o = pak_build(&d.join("new"), &pak, &three);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("was killed") && err.contains("put back the earlier files"),
        "{err}"
    );
    assert_eq!(contents(pak.parent().unwrap()), after);
}
