//! The record that lets a later run finish or undo a [`replace_all`](super::replace_all)
//! that was killed half-way (`SIGKILL`, a power cut): between moving the
//! first earlier file aside and the last new file in, a folder holds a
//! mix of earlier files, backups and new files, and only this record says
//! which is which.
//!
//! [`replace_all`](super::replace_all) writes it, flushed to disk, beside the last destination
//! (an archive's index) as `.NAME.sylcol-journal-PID` before its first
//! rename, and removes it when it is done (put in place, or undone). A
//! journal whose process is gone (or is this one, outside a replacement:
//! an earlier process had the same PID) is an interrupted replacement:
//! [`interrupted_in`] finds them, [`recover`] settles them.
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 8 | magic `SYLJRNL1` |
//! | 8 | 4 | file count `n`, u32 little-endian |
//! | 12 | ... | `n` records, in the order the files were given |
//!
//! A record: flags (u8: bit 0, the destination had an earlier file, moved
//! to `backup`; bit 1, the new file's identity is known), the new file's
//! device, inode, size and modification time in nanoseconds (four u64 LE,
//! 0 when unknown), then `dest`, `temp` and
//! `backup` (empty without an earlier file), each a u32 LE length and that
//! many bytes. A path in the journal's own folder is stored as its bare
//! name (read back against the folder the journal is found in, so a
//! folder moved after the crash is still recovered); any other path as an
//! absolute one.
//!
//! **Settling** ([`recover`]). A destination holds its new file when its
//! identity is the recorded one (on systems without inodes: its temporary
//! name is gone and the destination exists). If every destination holds
//! its new file, the replacement had finished but for its clean-up: the
//! backups are removed (*completed*). Otherwise it is undone, last file
//! first: a backup is renamed back over its destination, a new file with
//! no earlier file is removed, and the temporary files go (*rolled back*).
//! Either way the folder then holds all earlier files or all new ones. A
//! step that cannot be done is reported and the journal kept, so nothing
//! is removed that a later attempt would need.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{
    LIVE, file_name_of, folder_of, lock, marked_name, parse_marked_name, process_alive, step,
    sync_folder, sync_folders_of,
};

/// What sits between the last destination's name and the PID in a
/// journal's name.
pub const JOURNAL_MARK: &str = ".sylcol-journal-";

const MAGIC: &[u8; 8] = b"SYLJRNL1";
const HAD_EARLIER: u8 = 1;
const ID_KNOWN: u8 = 2;
/// The flags, four u64 words and three empty paths' lengths.
const RECORD_MIN: usize = 1 + 4 * 8 + 3 * 4;

/// A file's identity: device and inode, with its size and modification
/// time (nanoseconds), which a rename keeps: an inode number freed and
/// reused by a later file is not taken for the file recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i64,
}

impl FileIdentity {
    /// The identity of an open file (`None` where the system has none).
    pub(super) fn of(file: &File) -> Option<FileIdentity> {
        file.metadata().ok().and_then(|m| Self::from_metadata(&m))
    }

    #[cfg(unix)]
    fn from_metadata(m: &fs::Metadata) -> Option<FileIdentity> {
        use std::os::unix::fs::MetadataExt;
        Some(FileIdentity {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
        })
    }

    #[cfg(not(unix))]
    fn from_metadata(_m: &fs::Metadata) -> Option<FileIdentity> {
        None
    }
}

/// One file of a replacement, as the journal records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Planned {
    /// Where the new file goes.
    pub dest: PathBuf,
    /// The new file's temporary name.
    pub temp: PathBuf,
    /// Where the earlier file is moved aside to (`None`: there was none).
    pub backup: Option<PathBuf>,
    /// The new file's identity, when known.
    pub id: Option<FileIdentity>,
}

/// The journal's path for a replacement whose last destination is `last`.
pub(super) fn journal_path(last: &Path) -> PathBuf {
    last.with_file_name(marked_name(&file_name_of(last), JOURNAL_MARK))
}

/// Writes the journal of `plan` to `path` ([`journal_path`] of its last
/// destination), flushed to disk with its folder's entries, before
/// anything is renamed.
pub(super) fn write(plan: &[Planned], path: &Path) -> io::Result<()> {
    let bytes = encode(plan, folder_of(path));
    step()?;
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            // Under the lock no journal of this process exists: this is
            // an earlier run's that had the same PID, and settling it now,
            // after the plan was made, could undo what the plan relies on.
            io::ErrorKind::AlreadyExists => io::Error::new(
                e.kind(),
                "a journal of an earlier run that had this PID is in the way; settle it first (`sylcol pak recover FOLDER`, or `atomic::recover`)",
            ),
            _ => e,
        })?;
    let written = file.write_all(&bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = fs::remove_file(path);
        return Err(e);
    }
    sync_folder(folder_of(path));
    Ok(())
}

/// Removes a settled journal.
pub(super) fn remove(path: &Path) -> io::Result<()> {
    step()?;
    fs::remove_file(path)
}

fn encode(plan: &[Planned], home: &Path) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(plan.len() as u32).to_le_bytes());
    for p in plan {
        let flags = if p.backup.is_some() { HAD_EARLIER } else { 0 }
            | if p.id.is_some() { ID_KNOWN } else { 0 };
        out.push(flags);
        let id = p.id.unwrap_or(FileIdentity {
            dev: 0,
            ino: 0,
            len: 0,
            mtime_ns: 0,
        });
        for word in [id.dev, id.ino, id.len, id.mtime_ns as u64] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        let empty = PathBuf::new();
        for path in [&p.dest, &p.temp, p.backup.as_ref().unwrap_or(&empty)] {
            let stored = stored_path(path, home);
            out.extend_from_slice(&(stored.len() as u32).to_le_bytes());
            out.extend_from_slice(&stored);
        }
    }
    out
}

/// A path's bytes as stored: its bare name when it is in `home`, else
/// absolute.
fn stored_path(path: &Path, home: &Path) -> Vec<u8> {
    if path.as_os_str().is_empty() {
        return Vec::new();
    }
    let stored = match path.file_name() {
        Some(name) if folder_of(path) == home => PathBuf::from(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    };
    path_bytes(&stored)
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn path_from(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Reads a journal found in `home`. Every count and length is checked
/// against the bytes before use.
fn decode(bytes: &[u8], home: &Path) -> Result<Vec<Planned>, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(8)? != MAGIC {
        return Err("not a sylcol journal (no SYLJRNL1 magic at byte 0)".into());
    }
    let count = r.u32()? as usize;
    // A record is at least 45 bytes: no count can claim more than fit.
    if count > r.left() / RECORD_MIN {
        return Err(format!(
            "{count} records claimed at byte 8, but {} bytes remain",
            r.left()
        ));
    }
    let mut plan = Vec::with_capacity(count);
    for _ in 0..count {
        let flags = r.take(1)?[0];
        let (dev, ino, len, mtime) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let mut path = || -> Result<PathBuf, String> {
            let len = r.u32()? as usize;
            let stored = path_from(r.take(len)?);
            Ok(if stored.is_absolute() || stored.as_os_str().is_empty() {
                stored
            } else {
                home.join(stored)
            })
        };
        let (dest, temp, backup) = (path()?, path()?, path()?);
        plan.push(Planned {
            dest,
            temp,
            backup: (flags & HAD_EARLIER != 0).then_some(backup),
            id: (flags & ID_KNOWN != 0).then_some(FileIdentity {
                dev,
                ino,
                len,
                mtime_ns: mtime as i64,
            }),
        });
    }
    if r.left() != 0 {
        return Err(format!("{} bytes after the last record", r.left()));
    }
    Ok(plan)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.left() {
            return Err(format!(
                "truncated: {n} bytes needed at byte {}, {} remain",
                self.at,
                self.left()
            ));
        }
        let got = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(got)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }
}

/// A replacement that a killed sylcol left unfinished, found by its
/// journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The journal.
    pub journal: PathBuf,
    /// The process that wrote it (no longer running).
    pub pid: u32,
    /// The journal as read when it was found, or why it cannot be read.
    plan: Result<Vec<Planned>, String>,
}

impl Interrupted {
    /// The destinations it was replacing, the last (an archive's index)
    /// last; none when the journal cannot be read.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.plan.iter().flatten().map(|p| p.dest.as_path())
    }

    /// Why the journal cannot be read, if it cannot.
    pub fn unreadable(&self) -> Option<&str> {
        self.plan.as_ref().err().map(String::as_str)
    }
}

/// The last destination's name and the PID when `file_name` is a
/// journal's name.
pub fn parse_journal_name(file_name: &str) -> Option<(&str, u32)> {
    parse_marked_name(file_name, JOURNAL_MARK)
}

/// The interrupted replacements in `dir`: journals whose process is gone
/// (or is this one, outside a replacement: an earlier process had the
/// same PID), in name order.
pub fn interrupted_in(dir: &Path) -> Vec<Interrupted> {
    let _live = lock(&LIVE);
    interrupted_listed(dir)
}

/// [`interrupted_in`], the registry's lock held by the caller. A journal
/// exists only while [`replace_all`](super::replace_all) holds that lock
/// (it writes and removes its journal under it), so one found now that
/// names this process's PID is not this process's: an earlier process
/// had the same PID (as every run does that is a container's first
/// process) and was killed.
fn interrupted_listed(dir: &Path) -> Vec<Interrupted> {
    let Ok(items) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Interrupted> = items
        .flatten()
        .filter(|i| i.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|i| {
            let name = i.file_name().into_string().ok()?;
            let (_, pid) = parse_journal_name(&name)?;
            let gone = pid == std::process::id() || !process_alive(pid);
            gone.then(|| read_interrupted(&dir.join(&name), pid))
        })
        .collect();
    found.sort_by(|a, b| a.journal.cmp(&b.journal));
    found
}

/// The interrupted replacement in `path`'s folder that was replacing
/// `path`, if any.
pub fn interrupted_replacing(path: &Path) -> Option<Interrupted> {
    let dir = folder_of(path);
    let wanted = dir.join(path.file_name()?);
    interrupted_in(dir)
        .into_iter()
        .find(|i| i.files().any(|f| f == wanted))
}

fn read_interrupted(journal: &Path, pid: u32) -> Interrupted {
    Interrupted {
        journal: journal.to_path_buf(),
        pid,
        plan: read_plan(journal),
    }
}

fn read_plan(journal: &Path) -> Result<Vec<Planned>, String> {
    let bytes = fs::read(journal).map_err(|e| format!("cannot read it: {e}"))?;
    decode(&bytes, folder_of(journal)).map_err(|e| format!("cannot read it: {e}"))
}

/// How [`recover`] settled an interrupted replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// Every new file was in place: the backups of the earlier files were
    /// removed.
    Completed,
    /// The earlier files were put back and the new ones removed.
    RolledBack,
    /// Not settled (see the problems); the journal is kept.
    NotSettled,
}

/// What [`recover`] did with one interrupted replacement.
#[derive(Debug)]
pub struct Recovered {
    /// The replacement found.
    pub interrupted: Interrupted,
    /// How it was settled.
    pub settled: Settled,
    /// Steps that could not be done, one sentence each naming the file;
    /// empty when the folder holds all earlier or all new files.
    pub problems: Vec<String>,
}

/// Settles every interrupted replacement in `dir` (see the module's
/// docs): all new files in place, or all earlier files back.
pub fn recover(dir: &Path) -> Vec<Recovered> {
    // Under the registry's lock: no replacement of this process runs
    // meanwhile, and none of its temporary files is removed.
    let live = lock(&LIVE);
    let found = interrupted_listed(dir);
    found.into_iter().map(|i| settle(i, &live)).collect()
}

/// Settles one interrupted replacement; `live` is the registry of this
/// process's temporary files (whose names an earlier process of the same
/// PID may have used: those are never removed).
fn settle(interrupted: Interrupted, live: &[PathBuf]) -> Recovered {
    let plan = match &interrupted.plan {
        Ok(plan) => plan,
        Err(why) => {
            let problem = format!("{}: {why}; left as it is", interrupted.journal.display());
            return Recovered {
                interrupted,
                settled: Settled::NotSettled,
                problems: vec![problem],
            };
        }
    };
    let all_new = plan.iter().all(holds_new_file);
    let mut problems = Vec::new();
    if all_new {
        for p in plan {
            if let Some(backup) = &p.backup {
                remove_if_present(backup, &mut problems);
            }
        }
    } else {
        for p in plan.iter().rev() {
            roll_back(p, &mut problems);
        }
    }
    for p in plan.iter().filter(|p| !live.contains(&p.temp)) {
        remove_if_present(&p.temp, &mut problems);
    }
    sync_folders_of(plan.iter().map(|p| p.dest.as_path()));
    let settled = if !problems.is_empty() {
        Settled::NotSettled
    } else if let Err(e) = remove(&interrupted.journal) {
        problems.push(format!(
            "{}: settled, but the journal cannot be removed ({e}); delete it",
            interrupted.journal.display()
        ));
        Settled::NotSettled
    } else if all_new {
        Settled::Completed
    } else {
        Settled::RolledBack
    };
    Recovered {
        interrupted,
        settled,
        problems,
    }
}

/// Whether `p`'s destination holds its new file.
fn holds_new_file(p: &Planned) -> bool {
    let Ok(meta) = fs::symlink_metadata(&p.dest) else {
        return false;
    };
    match (p.id, FileIdentity::from_metadata(&meta)) {
        (Some(want), Some(got)) => want == got,
        _ => meta.is_file() && fs::symlink_metadata(&p.temp).is_err(),
    }
}

/// Puts `p`'s destination back as it was before the replacement.
fn roll_back(p: &Planned, problems: &mut Vec<String>) {
    let new_in_place = holds_new_file(p);
    let backup = p
        .backup
        .as_ref()
        .filter(|b| fs::symlink_metadata(b).is_ok());
    let dest_taken = fs::symlink_metadata(&p.dest).is_ok();
    let done = match (backup, new_in_place) {
        // Renaming the backup back replaces the new file.
        (Some(b), _) if new_in_place || !dest_taken => step().and_then(|()| fs::rename(b, &p.dest)),
        (Some(b), _) => {
            problems.push(format!(
                "{}: holds a file the replacement did not write, so its earlier copy stays in {}",
                p.dest.display(),
                b.display()
            ));
            return;
        }
        (None, true) if p.backup.is_none() => step().and_then(|()| fs::remove_file(&p.dest)),
        (None, true) => {
            problems.push(format!(
                "{}: holds the new file, and its earlier copy {} is missing",
                p.dest.display(),
                p.backup
                    .as_ref()
                    .map_or(String::new(), |b| b.display().to_string())
            ));
            return;
        }
        (None, false) => Ok(()),
    };
    if let Err(e) = done {
        problems.push(format!("{}: cannot put it back ({e})", p.dest.display()));
    }
}

fn remove_if_present(path: &Path, problems: &mut Vec<String>) {
    if fs::symlink_metadata(path).is_err() {
        return;
    }
    if let Err(e) = step().and_then(|()| fs::remove_file(path)) {
        problems.push(format!("{}: cannot remove it ({e})", path.display()));
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::super::fault::{self, KILLED, snapshot};
    use super::super::replace::tests::{batch, earlier};
    use super::super::{replace_all, sweep_stale};
    use super::*;

    const CHILD_DIR: &str = "SYLCOL_TEST_KILL_DIR";
    const CHILD_STEP: &str = "SYLCOL_TEST_KILL_STEP";

    /// Run as a child process by `a_kill_at_any_step_is_recovered`:
    /// replaces `a`, `b` (earlier files) and `c` (new) in the folder it is
    /// given, and is killed before the step it is given.
    #[test]
    #[ignore = "a child process of a_kill_at_any_step_is_recovered"]
    fn killed_replacement() {
        let (Ok(dir), Ok(at)) = (std::env::var(CHILD_DIR), std::env::var(CHILD_STEP)) else {
            return;
        };
        let files = batch(Path::new(&dir));
        fault::plan_crash(at.parse().unwrap());
        let _ = replace_all(files);
        fault::plan(&[]);
    }

    fn kill_at(dir: &Path, step: usize) -> std::process::ExitStatus {
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "atomic::journal::tests::killed_replacement"])
            .args(["--ignored", "--test-threads=1", "--quiet"])
            .env(CHILD_DIR, dir)
            .env(CHILD_STEP, step.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
    }

    #[test]
    fn a_kill_at_any_step_is_recovered() {
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        fault::plan(&[]);
        replace_all(batch(dir.path())).unwrap();
        let steps = fault::taken();
        let new = snapshot(dir.path());
        let (mut rolled_back, mut completed) = (0, 0);
        for n in 0..steps {
            let dir = tempfile::tempdir().unwrap();
            earlier(dir.path());
            let before = snapshot(dir.path());
            assert_eq!(kill_at(dir.path(), n).code(), Some(KILLED), "step {n}");
            let found = interrupted_in(dir.path());
            let recovered = recover(dir.path());
            sweep_stale(dir.path());
            assert_eq!(recovered.len(), found.len(), "step {n}");
            for r in &recovered {
                assert!(r.problems.is_empty(), "step {n}: {:?}", r.problems);
                assert_eq!(r.interrupted.files().count(), 3, "step {n}");
                match r.settled {
                    Settled::RolledBack => rolled_back += 1,
                    Settled::Completed => completed += 1,
                    Settled::NotSettled => panic!("step {n}: not settled"),
                }
            }
            let after = snapshot(dir.path());
            assert!(after == before || after == new, "step {n}: {after:?}");
            assert!(interrupted_in(dir.path()).is_empty(), "step {n}");
        }
        // Killed before the journal (4 steps): nothing to recover; then
        // 5 rename steps rolled back and 3 clean-up steps completed.
        assert_eq!((rolled_back, completed), (5, 3));
    }

    /// A killed run whose PID this process now has (every run that is a
    /// container's first process has PID 1): its journal names this PID,
    /// and is still found and settled, since a journal exists only while
    /// a replacement holds the registry's lock.
    #[test]
    fn a_journal_of_a_killed_run_with_this_pid_is_settled() {
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        let before = snapshot(dir.path());
        assert_eq!(kill_at(dir.path(), 6).code(), Some(KILLED));
        let [found] = &interrupted_in(dir.path())[..] else {
            panic!("one journal");
        };
        let ours = journal_path(&dir.path().join("c"));
        fs::rename(&found.journal, &ours).unwrap();
        let [r] = &recover(dir.path())[..] else {
            panic!("the journal, now named with this PID, is found");
        };
        assert_eq!(r.interrupted.pid, std::process::id());
        assert_eq!((r.settled, r.problems.len()), (Settled::RolledBack, 0));
        sweep_stale(dir.path());
        assert_eq!(snapshot(dir.path()), before);
    }

    fn planned(dir: &Path) -> Vec<Planned> {
        let id = |ino| {
            Some(FileIdentity {
                dev: 7,
                ino,
                len: 9,
                mtime_ns: -5,
            })
        };
        vec![
            Planned {
                dest: dir.join("x.p00"),
                temp: dir.join(".x.p00.sylcol-tmp-9"),
                backup: Some(dir.join(".x.p00.sylcol-old-9")),
                id: id(1),
            },
            Planned {
                dest: PathBuf::from("/elsewhere/x.pak"),
                temp: PathBuf::from("/elsewhere/.x.pak.sylcol-tmp-9"),
                backup: None,
                id: None,
            },
        ]
    }

    #[test]
    fn a_journal_reads_back_against_the_folder_it_is_found_in() {
        let plan = planned(Path::new("/old/place"));
        let bytes = encode(&plan, Path::new("/old/place"));
        let moved = decode(&bytes, Path::new("/new/place")).unwrap();
        assert_eq!(moved, planned(Path::new("/new/place")));
        assert!(
            bytes.windows(9).all(|w| w != b"/old/plac"),
            "names in the journal's folder are stored bare"
        );
    }

    #[test]
    fn a_damaged_journal_is_refused_with_where() {
        let bytes = encode(&planned(Path::new("/d")), Path::new("/d"));
        for cut in [0, 7, 12, 40, bytes.len() - 1] {
            let err = decode(&bytes[..cut], Path::new("/d")).unwrap_err();
            assert!(
                err.contains("byte") || err.contains("magic"),
                "cut {cut}: {err}"
            );
        }
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = decode(&huge, Path::new("/d")).unwrap_err();
        assert!(
            err.starts_with("4294967295 records claimed at byte 8"),
            "{err}"
        );
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            decode(&long, Path::new("/d")).unwrap_err(),
            "1 bytes after the last record"
        );
    }

    #[test]
    fn journal_names_parse_back() {
        let j = journal_path(Path::new("out/Mod.pak"));
        let name = j.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            parse_journal_name(name),
            Some(("Mod.pak", std::process::id()))
        );
        for other in [
            ".Mod.pak.sylcol-tmp-5",
            ".Mod.pak.sylcol-journal-05",
            "Mod.pak",
        ] {
            assert_eq!(parse_journal_name(other), None, "{other}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_the_replacement_did_not_write_is_never_replaced() {
        // Killed after moving `a` aside and before putting the new one in;
        // since then someone wrote a file of that name.
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        assert_eq!(kill_at(dir.path(), 6).code(), Some(KILLED));
        fs::write(dir.path().join("a"), b"written since").unwrap();
        let [r] = &recover(dir.path())[..] else {
            panic!("one journal")
        };
        assert_eq!(r.settled, Settled::NotSettled);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert!(r.problems[0].contains("holds a file the replacement did not write"));
        assert_eq!(fs::read(dir.path().join("a")).unwrap(), b"written since");
        assert_eq!(interrupted_in(dir.path()).len(), 1, "the journal stays");
    }
}
