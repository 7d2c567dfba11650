//! Helpers shared by the binary tests.

pub mod handmade;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The real `sylcol` binary, with a cache folder of its own
/// ([`empty_cache`]), so that names a user's harvests kept in their cache
/// never reach a test.
pub fn sylcol() -> Command {
    let mut c = Command::cargo_bin("sylcol").unwrap();
    c.env("XDG_CACHE_HOME", empty_cache());
    c
}

/// An empty cache folder for this test run (`XDG_CACHE_HOME` of every
/// [`sylcol`]; a test of the cache gives its own).
pub fn empty_cache() -> &'static Path {
    static CACHE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// A copy of the repository's `samples/` made once for this test run:
/// its archives without a `names.txt` a user's `sylcol names harvest
/// samples` (the README's first command) leaves beside them.
pub fn samples_dir() -> &'static Path {
    static COPY: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let copy = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
        for file in [
            "MiscBin.pak",
            "MiscBin.p00",
            "Tables.pak",
            "Tables.p00",
            "README.md",
        ] {
            std::fs::copy(repo.join(file), copy.path().join(file)).unwrap();
        }
        copy
    })
    .path()
}

/// The path of a hand-made MCOL fixture (`tests/fixtures/NAME`, written by
/// an independent script).
pub fn fixture(name: &str) -> String {
    format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A path as a command-line argument.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `sylcol ARGS`, requires success, returns stdout.
pub fn run(args: &[&str]) -> Vec<u8> {
    let out = sylcol().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "sylcol {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `sylcol ARGS` (which must print JSON) and parses stdout.
pub fn run_json(args: &[&str]) -> Value {
    serde_json::from_slice(&run(args)).unwrap()
}

/// Standard error of a run, as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output of a run, as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs sylcol with `args` (see [`args!`]); returns the output.
pub fn run_os(args: &[&std::ffi::OsStr]) -> std::process::Output {
    sylcol().args(args).output().unwrap()
}

/// The sample archive shipped in the repo (`samples/MiscBin.pak`), in
/// the run's copy ([`samples_dir`]).
pub fn samples() -> String {
    samples_dir().join("MiscBin.pak").display().to_string()
}

/// Marks a file immutable (`chattr +i`) while it lives, so that renaming
/// it fails even for root; `None` where that cannot be done (not root, no
/// `chattr`, or a file system without the flag).
pub struct Immutable(std::path::PathBuf);

impl Immutable {
    pub fn set(path: &Path) -> Option<Immutable> {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| Immutable(path.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .output();
    }
}

/// A slice of command-line arguments of mixed types (`&str`, `&Path`...).
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

/// Every file (or link) under `dir`, relative, `/`-separated, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
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

/// An archive `Named.pak` of named entries in `dir`, and a name list
/// `names.txt` for `--names`.
pub fn named_archive(dir: &Path, entries: &[(&str, &[u8])]) -> (PathBuf, PathBuf) {
    use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};
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

/// How many files in `dir` end in `.EXT`.
pub fn count_with_extension(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == ext)
        })
        .count()
}

/// Runs `sylcol ARGS` with its address space capped at `mib` MiB.
#[cfg(unix)]
pub fn run_capped(mib: u64, args: &[&str]) -> std::process::Output {
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
