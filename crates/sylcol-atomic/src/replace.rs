//! Several temporary files put in place as one step: [`replace_all`].

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::journal::{self, FileIdentity, Planned};
use super::{LIVE, TempFile, file_name_of, lock, marked_name, step, sync_folders_of};

/// What sits between an earlier file's name and the PID in the name it is
/// moved aside to. Not [`TEMP_MARK`](super::TEMP_MARK): a backup holds a
/// user's earlier file, and the sweep of stale temporary files never
/// removes one.
pub const BACKUP_MARK: &str = ".sylcol-old-";

/// The step of [`replace_all`] that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Checking the destination (a folder cannot be replaced) or flushing
    /// the new file: nothing had been renamed.
    Prepare,
    /// Moving the earlier file aside to its backup name.
    MoveAside,
    /// Renaming the new file into place.
    PutInPlace,
}

impl Step {
    /// What failed, as messages say it.
    pub fn what(self) -> &'static str {
        match self {
            Step::Prepare => "cannot write",
            Step::MoveAside => "cannot move the earlier file aside",
            Step::PutInPlace => "cannot put the new file in place",
        }
    }
}

/// A destination that [`replace_all`], undoing a failed step, could not
/// put back as it was.
#[derive(Debug)]
pub enum Unrestored {
    /// The earlier file could not be renamed back: its bytes are in
    /// `backup`, in the same folder.
    EarlierIn {
        /// The destination.
        path: PathBuf,
        /// The backup holding the earlier file.
        backup: PathBuf,
        /// Why it could not be renamed back.
        cause: io::Error,
    },
    /// There was no earlier file, and the new one could not be removed.
    NewLeft {
        /// The destination, holding a new file.
        path: PathBuf,
        /// Why it could not be removed.
        cause: io::Error,
    },
}

impl std::fmt::Display for Unrestored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unrestored::EarlierIn {
                path,
                backup,
                cause,
            } => write!(
                f,
                "the earlier {} is in {} (cannot rename it back: {cause})",
                path.display(),
                backup.display()
            ),
            Unrestored::NewLeft { path, cause } => write!(
                f,
                "{} is a new file that cannot be removed ({cause})",
                path.display()
            ),
        }
    }
}

/// Why [`replace_all`] failed, and what it could not undo.
#[derive(Debug)]
pub struct ReplaceError {
    /// The destination whose step failed (never a temporary name).
    pub path: PathBuf,
    /// The step that failed.
    pub step: Step,
    /// The error of that step.
    pub cause: io::Error,
    /// Renames done before the failure and undone (0: nothing had been
    /// renamed).
    pub undone: usize,
    /// Destinations not put back as they were; empty when every
    /// destination is as it was before the call.
    pub unrestored: Vec<Unrestored>,
}

impl ReplaceError {
    /// The message, calling the files replaced together `whole` ("the
    /// earlier files", "the previous archive"): the file, the step that
    /// failed, and whether `whole` is as it was.
    pub fn describe(&self, whole: &str) -> String {
        let mut m = format!(
            "{}: {}: {}",
            self.path.display(),
            self.step.what(),
            self.cause
        );
        if !self.unrestored.is_empty() {
            m.push_str(&format!("; {whole} could not be fully restored:"));
            for (i, u) in self.unrestored.iter().enumerate() {
                m.push_str(if i == 0 { " " } else { "; " });
                m.push_str(&u.to_string());
            }
        } else if self.undone > 0 {
            m.push_str(&format!("; {whole} was restored"));
        } else if self.step != Step::Prepare {
            m.push_str(&format!("; {whole} was not changed"));
        }
        m
    }
}

impl std::fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe("the earlier files"))
    }
}

impl std::error::Error for ReplaceError {}

/// A file [`replace_all`] could not remove once every new file was in
/// place: clutter, not a file anything needs.
#[derive(Debug)]
pub enum Leftover {
    /// An earlier file, moved aside.
    Backup {
        /// The destination it was the earlier file of.
        path: PathBuf,
        /// Its backup name, in the same folder.
        backup: PathBuf,
        /// Why it could not be removed.
        cause: io::Error,
    },
    /// The journal of the replacement, which is done.
    Journal {
        /// The journal.
        journal: PathBuf,
        /// Why it could not be removed.
        cause: io::Error,
    },
}

impl Leftover {
    /// The file left.
    pub fn file(&self) -> &Path {
        match self {
            Leftover::Backup { backup, .. } => backup,
            Leftover::Journal { journal, .. } => journal,
        }
    }
}

impl std::fmt::Display for Leftover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Leftover::Backup {
                path,
                backup,
                cause,
            } => write!(
                f,
                "{}: the earlier copy of {}, replaced, could not be removed ({cause}); delete it",
                backup.display(),
                path.display(),
            ),
            Leftover::Journal { journal, cause } => write!(
                f,
                "{}: the journal of the finished replacement could not be removed ({cause}); delete it",
                journal.display(),
            ),
        }
    }
}

/// Puts each temporary file in place over its destination, all or none.
///
/// Renaming one file over another is atomic; renaming several is not. So
/// the new files are flushed to disk and every destination checked (a
/// folder cannot be replaced) before anything is renamed; then every
/// earlier file is moved aside to a backup name in its own folder
/// (`.NAME.sylcol-old-PID`, [`BACKUP_MARK`], [`backup_path`]) and the new
/// files are renamed in. If any of those renames fails, what was done is
/// undone in reverse order (the new files go back to their temporary
/// names and are removed, the backups back to their names) and the
/// [`ReplaceError`] says which file and step failed and whether the
/// earlier files are back, naming the backup that holds an earlier file's
/// bytes when one could not be renamed back. Only once every new file is
/// in place are their folders' entries flushed to disk (so the new names
/// outlive a power cut before any backup goes) and the backups removed;
/// one that cannot be is returned ([`Leftover`]), never lost silently.
///
/// Before the first rename a journal of the plan (every destination, its
/// temporary name, its backup name, the new file's identity) is written
/// and flushed beside the last destination (`.NAME.sylcol-journal-PID`,
/// [`journal`](super::journal)), and it is removed once all is settled: if
/// the process is killed or the power fails between two renames, a later
/// run's [`recover`](super::recover) finds the journal and finishes the
/// replacement (every new file was in place) or undoes it.
///
/// The earlier files are moved aside last to first and the new ones
/// renamed in first to last, so the last file (an archive's index) is the
/// first to go and the last to come: no moment shows a new last file with
/// earlier others, or the earlier last file with new others.
///
/// The renames run under the registry's lock, so a signal's
/// [`abandon_all`](super::abandon_all) waits until they are done or undone.
/// Destinations must differ and their folders exist.
pub fn replace_all(mut files: Vec<(TempFile, PathBuf)>) -> Result<Vec<Leftover>, ReplaceError> {
    let mut plan = Vec::with_capacity(files.len());
    for (file, dest) in &mut files {
        let planned = prepare(file, dest).map_err(|cause| ReplaceError {
            path: dest.clone(),
            step: Step::Prepare,
            cause,
            undone: 0,
            unrestored: Vec::new(),
        })?;
        plan.push(planned);
    }
    let Some(last) = files.last().map(|(_, dest)| dest.clone()) else {
        return Ok(Vec::new());
    };
    let journal_file = journal::journal_path(&last);
    let mut live = lock(&LIVE);
    journal::write(&plan, &journal_file).map_err(|cause| ReplaceError {
        path: last,
        step: Step::Prepare,
        cause: io::Error::new(
            cause.kind(),
            format!(
                "cannot write the journal {} ({cause})",
                journal_file.display()
            ),
        ),
        undone: 0,
        unrestored: Vec::new(),
    })?;
    let mut done = Done::default();
    let outcome = match forward(&files, &plan, &mut done) {
        Ok(()) => {
            for (file, _) in &mut files {
                file.registration.forget(&mut live);
            }
            sync_folders_of(files.iter().map(|(_, dest)| dest.as_path()));
            Ok(remove_backups(&files, &plan, &done))
        }
        Err((at, step, cause)) => Err(ReplaceError {
            path: files[at].1.clone(),
            step,
            cause,
            undone: done.aside.len() + done.placed.len(),
            unrestored: undo(&files, &plan, &done),
        }),
    };
    // Settled: all new files in place, or all earlier files back; the
    // journal goes while the lock is held (a journal found under the lock
    // is never a running replacement's, `journal::interrupted_in`). One
    // whose undo left files out of place stays, for a later recovery to
    // finish the undo.
    let outcome = match outcome {
        Ok(mut left) => {
            if let Err(cause) = journal::remove(&journal_file) {
                left.push(Leftover::Journal {
                    journal: journal_file,
                    cause,
                });
            }
            Ok(left)
        }
        Err(e) => {
            if e.unrestored.is_empty() {
                // Best effort, and not a step the tests fail: a journal
                // left here describes a settled folder, which a later
                // recovery finds so and removes.
                let _ = fs::remove_file(&journal_file);
            }
            Err(e)
        }
    };
    drop(live);
    // The files not put in place (or put back to their temporary names)
    // are removed as they drop, outside the lock.
    drop(files);
    outcome
}

/// Refuses a destination a rename cannot replace (a folder), flushes the
/// new file to disk, and plans the destination's part: a free backup
/// name when an earlier file is there.
fn prepare(file: &mut TempFile, dest: &Path) -> io::Result<Planned> {
    let earlier = match fs::symlink_metadata(dest) {
        Ok(m) if m.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "a folder has that name",
            ));
        }
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    step()?;
    file.file.sync_all()?;
    Ok(Planned {
        dest: dest.to_path_buf(),
        temp: file.registration.path().to_path_buf(),
        backup: if earlier {
            Some(backup_path(dest)?)
        } else {
            None
        },
        id: FileIdentity::of(&file.file)?,
    })
}

/// The renames done so far, by index into the files (and the plan,
/// which names each one's backup).
#[derive(Default)]
struct Done {
    /// Earlier files moved aside to their planned backups, in order.
    aside: Vec<usize>,
    /// New files renamed into place, in order.
    placed: Vec<usize>,
}

type Failed = (usize, Step, io::Error);

/// Moves the earlier files aside to their planned backups (last to
/// first), then renames the new ones in (first to last), noting each
/// rename in `done`.
fn forward(files: &[(TempFile, PathBuf)], plan: &[Planned], done: &mut Done) -> Result<(), Failed> {
    for (i, (_, dest)) in files.iter().enumerate().rev() {
        let Some(backup) = &plan[i].backup else {
            continue;
        };
        step()
            .and_then(|()| fs::rename(dest, backup))
            .map_err(|cause| (i, Step::MoveAside, cause))?;
        done.aside.push(i);
    }
    for (i, (file, dest)) in files.iter().enumerate() {
        step()
            .and_then(|()| fs::rename(file.registration.path(), dest))
            .map_err(|cause| (i, Step::PutInPlace, cause))?;
        done.placed.push(i);
    }
    Ok(())
}

/// Undoes `done` in reverse: each new file goes back to its temporary
/// name (or is removed), then each earlier file comes back from its
/// backup (the first moved aside, last). Returns what could not be put
/// back.
fn undo(files: &[(TempFile, PathBuf)], plan: &[Planned], done: &Done) -> Vec<Unrestored> {
    let mut unrestored = Vec::new();
    for &i in done.placed.iter().rev() {
        let (file, dest) = &files[i];
        let back = step().and_then(|()| fs::rename(dest, file.registration.path()));
        let gone = back.or_else(|_| step().and_then(|()| fs::remove_file(dest)));
        // With a backup, renaming it back replaces the new file anyway.
        if let (Err(cause), false) = (gone, done.aside.contains(&i)) {
            unrestored.push(Unrestored::NewLeft {
                path: dest.clone(),
                cause,
            });
        }
    }
    // Only a file with a planned backup is moved aside.
    for &i in done.aside.iter().rev() {
        let Some(backup) = &plan[i].backup else {
            continue;
        };
        let dest = &files[i].1;
        if let Err(cause) = step().and_then(|()| fs::rename(backup, dest)) {
            unrestored.push(Unrestored::EarlierIn {
                path: dest.clone(),
                backup: backup.clone(),
                cause,
            });
        }
    }
    unrestored
}

/// Removes the backups once every new file is in place; returns those
/// that stay.
fn remove_backups(files: &[(TempFile, PathBuf)], plan: &[Planned], done: &Done) -> Vec<Leftover> {
    let mut left = Vec::new();
    for &i in &done.aside {
        let Some(backup) = &plan[i].backup else {
            continue;
        };
        if let Err(cause) = step().and_then(|()| fs::remove_file(backup)) {
            left.push(Leftover::Backup {
                path: files[i].1.clone(),
                backup: backup.clone(),
                cause,
            });
        }
    }
    left
}

/// A free backup name for `dest` in its folder: `.NAME.sylcol-old-PID`,
/// then `-1`, `-2`... after it while the name is taken.
pub fn backup_path(dest: &Path) -> io::Result<PathBuf> {
    let base = marked_name(&file_name_of(dest), BACKUP_MARK);
    for n in 0..1000u32 {
        let candidate = if n == 0 {
            dest.with_file_name(&base)
        } else {
            dest.with_file_name(format!("{base}-{n}"))
        };
        match fs::symlink_metadata(&candidate) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(candidate),
            Err(e) => return Err(e),
            Ok(_) => {}
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free backup name: {base} to {base}-999 are all taken"),
    ))
}

#[cfg(test)]
pub(super) mod tests {
    use std::io::Write;

    use super::super::fault::{self, snapshot};
    use super::*;

    /// `a` and `b` exist (earlier bytes), `c` does not; new bytes for all three.
    pub(crate) fn batch(dir: &Path) -> Vec<(TempFile, PathBuf)> {
        ["a", "b", "c"]
            .iter()
            .map(|n| {
                let dest = dir.join(n);
                let mut t = TempFile::beside(&dest).unwrap();
                t.write_all(format!("new {n}").as_bytes()).unwrap();
                (t, dest)
            })
            .collect()
    }

    pub(crate) fn earlier(dir: &Path) {
        fs::write(dir.join("a"), b"old a").unwrap();
        fs::write(dir.join("b"), b"old b").unwrap();
    }

    #[test]
    fn every_single_failure_leaves_all_earlier_or_all_new_files() {
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        fault::plan(&[]);
        let left = replace_all(batch(dir.path())).unwrap();
        assert!(left.is_empty());
        let steps = fault::taken();
        let new = snapshot(dir.path());
        assert_eq!(new.len(), 3, "no backup or temporary left: {new:?}");
        for n in 0..steps {
            let dir = tempfile::tempdir().unwrap();
            earlier(dir.path());
            let before = snapshot(dir.path());
            let files = batch(dir.path());
            fault::plan(&[n]);
            match replace_all(files) {
                Err(e) => {
                    assert!(e.unrestored.is_empty(), "step {n}: {e}");
                    assert_eq!(snapshot(dir.path()), before, "step {n}: {e}");
                }
                Ok(left) => {
                    // Only removing a backup or the journal can fail
                    // after the last rename: the file is reported.
                    assert_eq!(left.len(), 1, "step {n}");
                    let mut got = snapshot(dir.path());
                    let file = left[0].file().file_name().unwrap().to_string_lossy();
                    assert!(got.remove(file.as_ref()).is_some());
                    assert_eq!(got, new, "step {n}");
                }
            }
        }
        fault::plan(&[]);
    }

    #[test]
    fn a_failed_restore_names_the_backup_holding_the_earlier_file() {
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        let files = batch(dir.path());
        // Steps: 3 flushes, the journal (3); `b` aside (4), `a` aside
        // (5); `a` in (6), `b` in (7) fails; undo: `a` back to its
        // temporary name (8), backup of `a` back (9), backup of `b` back
        // (10) fails.
        fault::plan(&[7, 10]);
        let err = replace_all(files).unwrap_err();
        fault::plan(&[]);
        assert_eq!((err.step, err.undone), (Step::PutInPlace, 3));
        assert!(err.path.ends_with("b"));
        let [Unrestored::EarlierIn { path, backup, .. }] = &err.unrestored[..] else {
            panic!("{err}");
        };
        assert!(path.ends_with("b"));
        assert_eq!(fs::read(backup).unwrap(), b"old b");
        assert_eq!(fs::read(dir.path().join("a")).unwrap(), b"old a");
        assert!(!dir.path().join("b").exists() && !dir.path().join("c").exists());
        let msg = err.describe("the previous archive");
        assert!(
            msg.starts_with(&format!(
                "{}: cannot put the new file in place: injected failure at step 7; \
                 the previous archive could not be fully restored: the earlier {} is in {}",
                err.path.display(),
                path.display(),
                backup.display()
            )),
            "{msg}"
        );
    }

    #[test]
    fn backup_names_are_free_and_not_temporary_names() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("x.p00");
        let first = backup_path(&dest).unwrap();
        let name = first.file_name().unwrap().to_str().unwrap();
        assert_eq!(name, format!(".x.p00{BACKUP_MARK}{}", std::process::id()));
        assert!(super::super::parse_temp_name(name).is_none());
        fs::write(&first, b"taken").unwrap();
        let second = backup_path(&dest).unwrap();
        assert_eq!(second, dir.path().join(format!("{name}-1")));
    }
}
