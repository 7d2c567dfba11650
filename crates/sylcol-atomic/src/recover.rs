//! Settling what a killed [`replace_all`](super::replace_all) left, from
//! its journal ([`journal`](super::journal)).
//!
//! A destination holds its new file when its identity is the recorded
//! one (on systems without inodes: its temporary name is gone and the
//! destination exists). If every destination holds its new file, the
//! replacement had finished but for its clean-up: the backups are removed
//! (*completed*). Otherwise it is undone, last file first: a backup is
//! renamed back over its destination, a new file with no earlier file is
//! removed, and the temporary files go (*rolled back*). Either way the
//! folder then holds all earlier files or all new ones.
//!
//! The steps are decided first ([`preview`] shows them without taking
//! them), then taken. A step that cannot be done is reported and the
//! journal kept, so nothing is removed that a later attempt would need.
//! A refused journal ([`Interrupted::refused`]) changes nothing; nor does
//! a file another user owns, or one that is not a regular file, where a
//! step would rename or remove it.

use std::fs;
use std::path::{Path, PathBuf};

use super::journal::{self, FileIdentity, Interrupted, Planned, interrupted_listed};
use super::{LIVE, lock, step, sync_folders_of};

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
    /// The journal was refused (see the problems): no file was touched,
    /// the journal is kept.
    Refused,
}

/// One step of settling an interrupted replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The earlier file comes back: its backup is renamed over the
    /// destination.
    PutBack {
        /// The backup holding the earlier file.
        backup: PathBuf,
        /// The destination.
        dest: PathBuf,
    },
    /// The replacement had finished: the earlier file's backup goes.
    RemoveBackup {
        /// The backup.
        backup: PathBuf,
        /// The destination it was the earlier file of.
        dest: PathBuf,
    },
    /// Undoing: a new file that replaced nothing goes.
    RemoveNew(PathBuf),
    /// A new file's temporary name (an unfinished or undone copy) goes.
    RemoveTemporary(PathBuf),
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::PutBack { backup, dest } => write!(
                f,
                "put the earlier {} back from {}",
                dest.display(),
                backup.display()
            ),
            Action::RemoveBackup { backup, dest } => write!(
                f,
                "remove {}, the earlier copy of {} (replaced)",
                backup.display(),
                dest.display()
            ),
            Action::RemoveNew(path) => write!(
                f,
                "remove {}, a new file that replaced none",
                path.display()
            ),
            Action::RemoveTemporary(path) => {
                write!(f, "remove {}, an unfinished new file", path.display())
            }
        }
    }
}

/// What [`recover`] did (or, from [`preview`], would do) with one
/// interrupted replacement.
#[derive(Debug)]
pub struct Recovered {
    /// The replacement found.
    pub interrupted: Interrupted,
    /// How it was (or would be) settled.
    pub settled: Settled,
    /// The steps taken (from [`preview`]: to take), in order.
    pub actions: Vec<Action>,
    /// Steps that could not be done, one sentence each naming the file,
    /// or why the journal is refused; empty when the folder holds all
    /// earlier or all new files.
    pub problems: Vec<String>,
}

/// Settles every interrupted replacement in `dir` (see the module's
/// docs): all new files in place, or all earlier files back.
pub fn recover(dir: &Path) -> Vec<Recovered> {
    // Under the registry's lock: no replacement of this process runs
    // meanwhile, and none of its temporary files is removed.
    let live = lock(&LIVE);
    let found = interrupted_listed(dir);
    found
        .into_iter()
        .map(|i| {
            let mut r = decide(i, &live);
            take(&mut r);
            r
        })
        .collect()
}

/// What [`recover`] would do in `dir` now, doing nothing.
pub fn preview(dir: &Path) -> Vec<Recovered> {
    let live = lock(&LIVE);
    let found = interrupted_listed(dir);
    found.into_iter().map(|i| decide(i, &live)).collect()
}

/// Decides how to settle one interrupted replacement; `live` is the
/// registry of this process's temporary files (whose names an earlier
/// process of the same PID may have used: those are never removed).
fn decide(interrupted: Interrupted, live: &[PathBuf]) -> Recovered {
    let plan = match &interrupted.plan {
        Ok(plan) => plan,
        Err(why) => {
            let problem = format!("{}: refused: {why}", interrupted.journal.display());
            return Recovered {
                interrupted,
                settled: Settled::Refused,
                actions: Vec::new(),
                problems: vec![problem],
            };
        }
    };
    let mut s = Steps::default();
    let all_new = plan.iter().all(holds_new_file);
    if all_new {
        for p in plan {
            if let Some(backup) = p.backup.as_ref().filter(|b| present(b)) {
                let remove = Action::RemoveBackup {
                    backup: backup.clone(),
                    dest: p.dest.clone(),
                };
                s.add(backup, remove);
            }
        }
    } else {
        for p in plan.iter().rev() {
            roll_back(p, &mut s);
        }
    }
    for p in plan.iter().filter(|p| !live.contains(&p.temp)) {
        if present(&p.temp) {
            s.add(&p.temp, Action::RemoveTemporary(p.temp.clone()));
        }
    }
    let settled = match (s.problems.is_empty(), all_new) {
        (false, _) => Settled::NotSettled,
        (true, true) => Settled::Completed,
        (true, false) => Settled::RolledBack,
    };
    Recovered {
        interrupted,
        settled,
        actions: s.actions,
        problems: s.problems,
    }
}

/// The steps decided so far, and what stands in the way of others.
#[derive(Default)]
struct Steps {
    actions: Vec<Action>,
    problems: Vec<String>,
}

impl Steps {
    /// Plans `action`, which renames or removes `file`, if `file` is a
    /// regular file of this user; else notes why it is left.
    fn add(&mut self, file: &Path, action: Action) {
        let checked = fs::symlink_metadata(file)
            .map_err(|e| e.to_string())
            .and_then(|m| match m.is_file() {
                true => journal::owned_by_this_user(&m),
                false => Err("it is not a regular file".into()),
            });
        match checked {
            Ok(()) => self.actions.push(action),
            Err(why) => self.problems.push(format!(
                "{}: {why}, so it is left as it is (a step was to {action})",
                file.display()
            )),
        }
    }
}

/// Takes the steps decided, in order; a failed one becomes a problem.
/// Then, when none failed, the journal goes.
fn take(r: &mut Recovered) {
    let Ok(plan) = &r.interrupted.plan else {
        return;
    };
    for action in &r.actions {
        let (done, file) = match action {
            Action::PutBack { backup, dest } => {
                (step().and_then(|()| fs::rename(backup, dest)), dest)
            }
            Action::RemoveBackup { backup: path, .. }
            | Action::RemoveNew(path)
            | Action::RemoveTemporary(path) => (step().and_then(|()| fs::remove_file(path)), path),
        };
        if let Err(e) = done {
            r.problems
                .push(format!("{}: cannot {action} ({e})", file.display()));
        }
    }
    sync_folders_of(plan.iter().map(|p| p.dest.as_path()));
    if !r.problems.is_empty() {
        r.settled = Settled::NotSettled;
    } else if let Err(e) = journal::remove(&r.interrupted.journal) {
        r.problems.push(format!(
            "{}: settled, but the journal cannot be removed ({e}); delete it",
            r.interrupted.journal.display()
        ));
        r.settled = Settled::NotSettled;
    }
}

fn present(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Whether `p`'s destination holds its new file.
fn holds_new_file(p: &Planned) -> bool {
    let Ok(meta) = fs::symlink_metadata(&p.dest) else {
        return false;
    };
    match (p.id, FileIdentity::from_metadata(&meta)) {
        (Some(want), Some(got)) => want == got,
        _ => meta.is_file() && !present(&p.temp),
    }
}

/// Plans putting `p`'s destination back as it was before the
/// replacement.
fn roll_back(p: &Planned, r: &mut Steps) {
    let new_in_place = holds_new_file(p);
    let backup = p.backup.as_ref().filter(|b| present(b));
    let dest_taken = present(&p.dest);
    match (backup, new_in_place) {
        // Renaming the backup back replaces the new file.
        (Some(b), _) if new_in_place || !dest_taken => {
            let put_back = Action::PutBack {
                backup: b.clone(),
                dest: p.dest.clone(),
            };
            r.add(b, put_back);
        }
        (Some(b), _) => r.problems.push(format!(
            "{}: holds a file the replacement did not write, so its earlier copy stays in {}",
            p.dest.display(),
            b.display()
        )),
        (None, true) if p.backup.is_none() => r.add(&p.dest, Action::RemoveNew(p.dest.clone())),
        (None, true) => r.problems.push(format!(
            "{}: holds the new file, and its earlier copy {} is missing",
            p.dest.display(),
            p.backup
                .as_ref()
                .map_or(String::new(), |b| b.display().to_string())
        )),
        (None, false) => {}
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::super::fault::{self, KILLED, snapshot};
    use super::super::journal::{interrupted_in, journal_path};
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
            .args(["--exact", "recover::tests::killed_replacement"])
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
            let killed = snapshot(dir.path());
            let planned = preview(dir.path());
            assert_eq!(
                snapshot(dir.path()),
                killed,
                "step {n}: a preview changes nothing"
            );
            let recovered = recover(dir.path());
            sweep_stale(dir.path());
            assert_eq!(recovered.len(), found.len(), "step {n}");
            for (r, p) in recovered.iter().zip(&planned) {
                assert!(r.problems.is_empty(), "step {n}: {:?}", r.problems);
                assert_eq!(r.interrupted.files().count(), 3, "step {n}");
                assert_eq!((&r.actions, r.settled), (&p.actions, p.settled), "step {n}");
                match r.settled {
                    Settled::RolledBack => rolled_back += 1,
                    Settled::Completed => completed += 1,
                    other => panic!("step {n}: {other:?}"),
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

    /// Killed between renames (the journal names `a`, `b`, `c`); then the
    /// journal is damaged: nothing is renamed or removed, and the journal
    /// stays.
    #[test]
    fn a_refused_journal_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        earlier(dir.path());
        assert_eq!(kill_at(dir.path(), 6).code(), Some(KILLED));
        let [found] = &interrupted_in(dir.path())[..] else {
            panic!("one journal");
        };
        let mut bytes = fs::read(&found.journal).unwrap();
        bytes[13] ^= 0x40;
        fs::write(&found.journal, bytes).unwrap();
        let killed = snapshot(dir.path());
        let [r] = &recover(dir.path())[..] else {
            panic!("one journal");
        };
        assert_eq!((r.settled, r.actions.len()), (Settled::Refused, 0));
        assert!(
            r.problems[0].contains("refused: its checksum"),
            "{:?}",
            r.problems
        );
        assert_eq!(snapshot(dir.path()), killed);
    }

    /// A backup or temporary file of the journal's names that another
    /// user owns is left as it is (and said so); the other steps are
    /// taken, and the journal stays.
    #[cfg(unix)]
    #[test]
    fn a_file_of_another_user_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe");
        fs::write(&probe, b"").unwrap();
        if std::os::unix::fs::chown(&probe, Some(65534), None).is_err() {
            eprintln!("skipped: chown needs root");
            return;
        }
        earlier(dir.path());
        // Killed after moving `b` and `a` aside (steps 4, 5), before `a`
        // comes in.
        assert_eq!(kill_at(dir.path(), 6).code(), Some(KILLED));
        let [found] = &interrupted_in(dir.path())[..] else {
            panic!("one journal");
        };
        let backup_b = found.plan.as_ref().unwrap()[1].backup.clone().unwrap();
        std::os::unix::fs::chown(&backup_b, Some(65534), None).unwrap();
        let [r] = &recover(dir.path())[..] else {
            panic!("one journal");
        };
        assert_eq!(r.settled, Settled::NotSettled);
        let [problem] = &r.problems[..] else {
            panic!("{:?}", r.problems);
        };
        assert!(
            problem.contains("owned by another user (uid 65534"),
            "{problem}"
        );
        assert_eq!(fs::read(dir.path().join("a")).unwrap(), b"old a");
        assert_eq!(fs::read(&backup_b).unwrap(), b"old b");
        assert!(!dir.path().join("b").exists());
        assert_eq!(interrupted_in(dir.path()).len(), 1, "the journal stays");
    }
}
