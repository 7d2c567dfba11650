//! # sylcol-atomic
//!
//! Temporary files for atomic writes: `.NAME.sylcol-tmp-PID` beside the
//! target, renamed over it when complete.
//!
//! Every live temporary file is in a process-wide registry, so a signal
//! handler can remove them all ([`abandon_all`]) and nothing half-written
//! outlives an interrupted run. A later run removes what a killed one left
//! ([`sweep_stale`]): only regular files of that exact name pattern whose
//! process is gone.
//!
//! Creating, renaming and abandoning take the registry's lock, so a temporary
//! file is either registered or absent, and once [`abandon_all`] has begun no
//! new one appears and none is renamed into place.
//!
//! [`TempFile`] creates, renames and removes by path. A writer that works
//! relative to an open folder (the CLI's `openat`-style output folders)
//! registers its temporary files through [`Registration`] instead: the
//! registry still knows them by path, so [`abandon_all`] removes them by
//! that path (see [`Registration`] for what that means).
//!
//! Several files that belong together (an archive's index and parts) are
//! put in place all or none by [`replace_all`]: earlier files are moved
//! aside to backup names, and moved back if any rename fails.
//!
//! [`text`] shows names read from disk (a journal's, an archive's entries)
//! safely in messages and file names.

#![forbid(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

pub mod journal;
mod recover;
mod replace;
pub mod text;

pub use journal::{Interrupted, JOURNAL_MARK, interrupted_in, interrupted_replacing};
pub use recover::{Action, Recovered, Settled, preview, recover};
pub use replace::{
    BACKUP_MARK, Leftover, ReplaceError, Step, Unrestored, backup_path, replace_all,
};

/// What sits between a target's name and the PID in a temporary name.
pub const TEMP_MARK: &str = ".sylcol-tmp-";

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static SWEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    // The registry stays consistent even if a holder panicked.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The temporary path for `target`: `.NAME.sylcol-tmp-PID` in its folder.
pub fn temp_path(target: &Path) -> PathBuf {
    target.with_file_name(temp_name(&file_name_of(target)))
}

/// The temporary file name for a target named `name`: `.NAME.sylcol-tmp-PID`.
pub fn temp_name(name: &str) -> String {
    marked_name(name, TEMP_MARK)
}

/// The folder `path` is in (`.` for a bare file name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Flushes `folder`'s entries to disk, so that a rename into it survives
/// a crash of the system, not only of sylcol.
///
/// Best effort: the rename has already happened and the data is in the
/// file, so a folder that cannot be opened or flushed (some file systems
/// refuse `fsync` on folders) costs only that guarantee, and is not
/// reported as a failed write.
pub(crate) fn sync_folder(folder: &Path) {
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
}

/// Flushes the folder of each of `paths` once ([`sync_folder`]).
pub(crate) fn sync_folders_of<'a>(paths: impl IntoIterator<Item = &'a Path>) {
    let mut done: Vec<&Path> = Vec::new();
    for folder in paths.into_iter().map(folder_of) {
        if !done.contains(&folder) {
            done.push(folder);
            sync_folder(folder);
        }
    }
}

/// `target`'s file name, lossily as text ("" for none).
fn file_name_of(target: &Path) -> String {
    target
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// `.NAME` + `mark` + this process's PID: a temporary or backup name.
fn marked_name(name: &str, mark: &str) -> String {
    format!(".{name}{mark}{}", std::process::id())
}

/// Whether `file_name` looks like one of sylcol's own files: a temporary
/// file, an earlier file's backup or a journal (`.NAME` then
/// [`TEMP_MARK`], [`BACKUP_MARK`] or [`JOURNAL_MARK`]), which a later run
/// may remove or act on, or the manifest `pak extract` writes and `pak
/// build` follows ([`MANIFEST_FILE`]). Letter case is ignored (a
/// case-blind disk takes `.X.SYLCOL-TMP-1` for `.x.sylcol-tmp-1`). A
/// writer of names from data (an archive's entries) must not create such
/// a name.
pub fn is_own_file_name(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    lower == MANIFEST_FILE
        || lower.starts_with('.')
            && [TEMP_MARK, BACKUP_MARK, JOURNAL_MARK]
                .iter()
                .any(|mark| lower.contains(mark))
}

/// The file `pak extract` writes beside an archive's entries (the
/// archive's layout and hashes) and `pak build` follows.
pub const MANIFEST_FILE: &str = ".sylcol-pak.json";

/// Splits a temporary file name into the target's name and the PID that
/// wrote it; `None` for any other name.
pub fn parse_temp_name(file_name: &str) -> Option<(&str, u32)> {
    parse_marked_name(file_name, TEMP_MARK)
}

/// Splits `.NAME` + `mark` + PID into the name and the PID; `None` for
/// any other name.
fn parse_marked_name<'a>(file_name: &'a str, mark: &str) -> Option<(&'a str, u32)> {
    let rest = file_name.strip_prefix('.')?;
    let at = rest.rfind(mark)?;
    let (target, pid) = (&rest[..at], &rest[at + mark.len()..]);
    let digits_only = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    if target.is_empty() || !digits_only || pid.starts_with('0') {
        return None;
    }
    Some((target, pid.parse().ok()?))
}

/// A temporary file known to the registry by `path` while its writer
/// creates, renames and removes it by its own means (relative to an open
/// folder, say). The rule: the file exists only between
/// [`create`](Self::create) and a successful [`settle`](Self::settle), and
/// both run under the registry's lock.
///
/// [`abandon_all`] removes a registered file by its path. For a file made
/// relative to a folder handle that path is the folder's path when it was
/// opened: if another process has since moved the folder, the removal
/// misses (the file stays, for a later run's [`sweep_stale`]) or, should a
/// link now stand where the folder was, removes the file of that name
/// behind the link, a name of this run's own temporary pattern. Nothing is
/// ever written through that path.
#[derive(Debug)]
pub struct Registration {
    /// The file's path, as the registry holds it while the file is live.
    path: PathBuf,
    /// Whether a [`settle`](Self::settle) succeeded: the file is renamed
    /// or removed and no longer in the registry.
    settled: bool,
}

impl Registration {
    /// Runs `create` under the registry's lock and, when it succeeds,
    /// registers `path` (refused if this run already writes it).
    pub fn create<T>(
        path: PathBuf,
        create: impl FnOnce() -> io::Result<T>,
    ) -> io::Result<(Registration, T)> {
        let mut live = lock(&LIVE);
        if live.contains(&path) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "this run is already writing the file",
            ));
        }
        let made = create()?;
        live.push(path.clone());
        let registration = Registration {
            path,
            settled: false,
        };
        Ok((registration, made))
    }

    /// The path the file is registered (and removed on a signal) under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `settle` (the rename into place, or the removal) under the
    /// registry's lock and, when it succeeds, forgets the file. Once
    /// [`abandon_all`] has begun this waits forever, so nothing is renamed
    /// into place after a signal. Once settled, later calls do nothing.
    pub fn settle(&mut self, settle: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
        let mut live = lock(&LIVE);
        if self.settled {
            return Ok(());
        }
        settle()?;
        self.forget(&mut live);
        Ok(())
    }

    /// Takes the settled file out of the registry `live` (its lock held).
    fn forget(&mut self, live: &mut Vec<PathBuf>) {
        live.retain(|p| p != &self.path);
        self.settled = true;
    }
}

impl Drop for Registration {
    /// Forgets a file never settled; removing it is its writer's part.
    fn drop(&mut self) {
        if !self.settled {
            lock(&LIVE).retain(|p| p != &self.path);
        }
    }
}

/// A registered temporary file; removed on drop unless [`persist`](Self::persist)ed.
#[derive(Debug)]
pub struct TempFile {
    /// The open temporary file, written through.
    file: File,
    /// Its entry in the registry (its path: `.NAME.sylcol-tmp-PID`).
    registration: Registration,
}

impl TempFile {
    /// Creates the temporary file for `target` (its folder must exist). It
    /// is opened with `create_new`, so an existing file or link of that
    /// name is never written through: a leftover is removed first.
    pub fn beside(target: &Path) -> io::Result<TempFile> {
        let path = temp_path(target);
        let (registration, file) = Registration::create(path.clone(), || {
            match create_new(&path) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    // Left by an earlier process with our PID (or planted):
                    // the name itself goes, never what a link points to.
                    std::fs::remove_file(&path)?;
                    create_new(&path)
                }
                other => other,
            }
        })?;
        Ok(TempFile { file, registration })
    }

    /// Flushes the file to disk, renames it over `target`, flushes the
    /// folder's entries (so the rename outlives a power cut) and forgets
    /// it.
    pub fn persist(mut self, target: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        let path = self.registration.path().to_path_buf();
        self.registration
            .settle(|| std::fs::rename(&path, target))?;
        sync_folder(folder_of(target));
        Ok(())
    }
}

impl TempFile {
    /// Truncates or extends the file to `len` bytes (zeros when extended).
    pub fn set_len(&self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let path = self.registration.path().to_path_buf();
        let _ = self.registration.settle(|| {
            let _ = std::fs::remove_file(&path);
            Ok(())
        });
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for TempFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Marks a file operation of [`replace_all`] (or of a writer's clean-up
/// after it): nothing outside tests, where `fault` (this crate's tests, or
/// the `fault` feature a writer's tests turn on) counts the operations and
/// fails the ones a test planned.
#[cfg(not(any(test, feature = "fault")))]
#[inline]
pub fn step() -> io::Result<()> {
    Ok(())
}

#[cfg(any(test, feature = "fault"))]
pub use fault::next as step;

/// Test-only failure injection: the file operations marked by `step` are
/// numbered from 0 (per thread) since the last [`plan`](fault::plan), and
/// those planned fail with an injected error before they are done.
#[cfg(any(test, feature = "fault"))]
pub mod fault {
    use std::cell::RefCell;
    use std::io;

    #[derive(Default)]
    struct Plan {
        taken: usize,
        fail: Vec<usize>,
        /// The step at which the process aborts, as a `SIGKILL` would end it.
        crash: Option<usize>,
    }

    thread_local! {
        static PLAN: RefCell<Plan> = RefCell::default();
    }

    /// Numbers steps from 0 again; the steps numbered in `fail` will fail.
    pub fn plan(fail: &[usize]) {
        PLAN.with(|p| {
            *p.borrow_mut() = Plan {
                taken: 0,
                fail: fail.to_vec(),
                crash: None,
            }
        });
    }

    /// The exit status of a process ended by [`plan_crash`].
    pub const KILLED: i32 = 86;

    /// Numbers steps from 0 again; the process exits with [`KILLED`] (no
    /// unwinding, no destructor: as if killed) before step `at`.
    pub fn plan_crash(at: usize) {
        plan(&[]);
        PLAN.with(|p| p.borrow_mut().crash = Some(at));
    }

    /// The steps taken since the last plan.
    pub fn taken() -> usize {
        PLAN.with(|p| p.borrow().taken)
    }

    /// Every file in `dir` by name, with its bytes: what a failed step
    /// must leave as it was.
    pub fn snapshot(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|i| {
                let i = i.unwrap();
                let bytes = std::fs::read(i.path()).unwrap();
                (i.file_name().to_string_lossy().into_owned(), bytes)
            })
            .collect()
    }

    /// Takes a step: an injected error when the plan says this one fails.
    pub fn next() -> io::Result<()> {
        PLAN.with(|p| {
            let mut p = p.borrow_mut();
            let n = p.taken;
            p.taken += 1;
            if p.crash == Some(n) {
                // Ends the process with no destructor run: what a kill does.
                std::process::exit(KILLED);
            }
            if p.fail.contains(&n) {
                Err(io::Error::other(format!("injected failure at step {n}")))
            } else {
                Ok(())
            }
        })
    }
}

/// Removes every live temporary file, then runs `then` (typically: exit)
/// while holding the registry, so none is created or renamed meanwhile.
pub fn abandon_all<R>(then: impl FnOnce() -> R) -> R {
    let mut live = lock(&LIVE);
    for path in live.drain(..) {
        let _ = std::fs::remove_file(path);
    }
    then()
}

/// Claims `dir` for this run's sweep of stale temporary files: true the
/// first time a folder is named, false after (each folder is swept once).
pub fn claim_sweep(dir: &Path) -> bool {
    let mut swept = lock(&SWEPT);
    if swept.iter().any(|d| d == dir) {
        return false;
    }
    swept.push(dir.to_path_buf());
    true
}

/// The target's name and PID when `file_name` is a temporary name whose
/// writer is gone (not this process, no running process of that PID);
/// `None` for any other name.
pub fn stale_temp_name(file_name: &str) -> Option<(&str, u32)> {
    let (target, pid) = parse_temp_name(file_name)?;
    let gone = pid != std::process::id() && !process_alive(pid);
    gone.then_some((target, pid))
}

/// Removes, once per folder and run, the temporary files in `dir` that an
/// interrupted sylcol left: regular files named `.NAME.sylcol-tmp-PID`
/// whose PID is not a running process (never this one's). Returns the
/// files removed.
pub fn sweep_stale(dir: &Path) -> Vec<PathBuf> {
    if !claim_sweep(dir) {
        return Vec::new();
    }
    remove_stale_temps(dir)
}

/// What [`tidy`] did in a folder.
#[derive(Debug, Default)]
pub struct Tidied {
    /// The interrupted replacements settled ([`recover`]).
    pub recovered: Vec<Recovered>,
    /// The stale temporary files removed ([`sweep_stale`]).
    pub removed: Vec<PathBuf>,
}

/// Once per folder and run (the claim of [`sweep_stale`]), cleans up
/// what killed runs left in `dir`: settles their interrupted replacements
/// ([`recover`]) first, then removes their temporary files. `None` when
/// the folder was already tidied in this run.
pub fn tidy(dir: &Path) -> Option<Tidied> {
    if !claim_sweep(dir) {
        return None;
    }
    let recovered = recover(dir);
    let removed = remove_stale_temps(dir);
    Some(Tidied { recovered, removed })
}

/// Removes the stale temporary files in `dir` (see [`sweep_stale`]).
fn remove_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let Ok(items) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for item in items.flatten() {
        let name = item.file_name();
        if name.to_str().and_then(stale_temp_name).is_none() {
            continue;
        }
        if item.file_type().is_ok_and(|t| t.is_file()) {
            let path = item.path();
            if std::fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

/// Whether a process `pid` runs (when in doubt: yes, so its file stays).
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 only asks whether `pid` exists; nothing is sent.
    rustix::process::test_kill_process(pid) != Err(rustix::io::Errno::SRCH)
}

/// Whether a process `pid` runs (when in doubt: yes, so its file stays).
#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_parse_back() {
        let t = temp_path(Path::new("out/a.bin"));
        let name = t.file_name().unwrap().to_str().unwrap();
        assert_eq!(parse_temp_name(name), Some(("a.bin", std::process::id())));
        assert_eq!(
            parse_temp_name(".x.sylcol-tmp-1.sylcol-tmp-42"),
            Some(("x.sylcol-tmp-1", 42))
        );
        for other in [
            "a.bin",
            ".a.bin",
            "..sylcol-tmp-5",
            ".a.sylcol-tmp-",
            ".a.sylcol-tmp-12x",
            ".a.sylcol-tmp-012",
            "a.sylcol-tmp-12",
        ] {
            assert_eq!(parse_temp_name(other), None, "{other}");
        }
    }

    #[test]
    fn own_file_names_are_recognised() {
        for own in [
            ".a.bin.sylcol-tmp-5",
            ".a.bin.sylcol-old-5-2",
            ".x.pak.sylcol-journal-2147483647",
            ".x.sylcol-tmp-",
            ".X.SYLCOL-Journal-1",
            ".sylcol-pak.json",
            ".SYLCOL-PAK.json",
        ] {
            assert!(is_own_file_name(own), "{own}");
        }
        for other in ["a.bin.sylcol-tmp-5", "%2Ex.pak.sylcol-journal-1", ".a.bin"] {
            assert!(!is_own_file_name(other), "{other}");
        }
    }

    #[test]
    fn persist_renames_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x.bin");
        let mut t = TempFile::beside(&target).unwrap();
        t.write_all(b"data").unwrap();
        t.persist(&target).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"data");
        let dropped = TempFile::beside(&dir.path().join("y.bin")).unwrap();
        let path = dropped.registration.path().to_path_buf();
        assert!(path.exists());
        drop(dropped);
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_registration_lives_from_create_to_a_successful_settle() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".r.bin.sylcol-tmp-1");
        let (mut reg, made) = Registration::create(path.clone(), || Ok(7)).unwrap();
        assert_eq!((made, reg.path()), (7, path.as_path()));
        let twice = Registration::create(path.clone(), || Ok(()));
        assert_eq!(twice.unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        let failed = reg.settle(|| Err(io::Error::other("rename failed")));
        assert!(failed.is_err());
        assert!(
            Registration::create(path.clone(), || Ok(())).is_err(),
            "still live"
        );
        reg.settle(|| Ok(())).unwrap();
        reg.settle(|| panic!("settled once")).unwrap();
        let (again, ()) = Registration::create(path.clone(), || Ok(())).unwrap();
        drop(again);
        let failing = Registration::create(path.clone(), || Err::<(), _>(io::Error::other("x")));
        assert!(failing.is_err());
        assert!(
            !lock(&LIVE).contains(&path),
            "dropped and failed ones are forgotten"
        );
    }

    #[test]
    fn a_planted_temp_name_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let target = dir.path().join("z.bin");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, temp_path(&target)).unwrap();
        let mut t = TempFile::beside(&target).unwrap();
        t.write_all(b"new").unwrap();
        t.persist(&target).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn sweep_removes_only_dead_writers_files() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".a.bin.sylcol-tmp-2147483646");
        let alive = dir
            .path()
            .join(format!(".b.bin.sylcol-tmp-{}", std::process::id()));
        let parent = dir.path().join(".c.bin.sylcol-tmp-1"); // init: alive
        let other = dir.path().join(".d.bin.tmp-2147483646");
        for p in [&dead, &alive, &parent, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        let folder = dir.path().join(".e.sylcol-tmp-2147483646");
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(sweep_stale(dir.path()), vec![dead.clone()]);
        assert!(!dead.exists() && alive.exists() && parent.exists() && other.exists());
        assert!(folder.is_dir());
        std::fs::write(&dead, b"x").unwrap();
        assert!(sweep_stale(dir.path()).is_empty(), "once per folder");
    }
}
