//! Writing outputs safely, for every command: one writer.
//!
//! - A file is written to a temporary file beside it (`sylcol_atomic`)
//!   and renamed into place, so an interrupted run never leaves a
//!   half-written file in place of the user's; a signal removes the
//!   temporary files ([`crate::signals`]), and the next run removes what a
//!   killed one left in the folders it writes.
//! - The folder of an output, and its parents, are created when missing.
//! - Files named by data (archive entries, mesh names) go through an
//!   [`OutputDir`]: names that would leave the folder (`..`, absolute, drive
//!   letters) are refused, control characters are mapped to visible `%XX`,
//!   a name of sylcol's own temporary, backup or journal files gets its
//!   leading `.` as `%2E` (a later run would act on such a file),
//!   and no symbolic link below the folder is followed: one found on the
//!   way, or as the file's name, is refused (one planted as the file's name
//!   after that check is replaced by the rename, never written through).
//!   On Unix this holds even against a process racing sylcol inside the
//!   folder: the folder is opened once, and every folder below it, every
//!   temporary file and every rename is reached through an open folder
//!   handle (`openat` with `O_NOFOLLOW`, `mkdirat`, `renameat`), never by a
//!   path that could be re-resolved ([`folder`] and its `unix` module).
//!   Elsewhere each component is checked by path before it is used, which a
//!   racing process can defeat (the `portable` module). [`Dest`] lets a
//!   command write either to a path the user named or to such a place.
//! - Messages name the file the user asked for (never a temporary one) and
//!   carry the OS error once.

use std::io::{BufWriter, Write};
use std::path::{Component, Path};

use anyhow::bail;
use sylcol::report::error::OutputError;
use sylcol::report::pak::RecoveredReplacement;
use sylcol_atomic::{TempFile, folder_of, is_own_file_name, parse_temp_name, tidy};
use sylcol_format::text::visible_file_name;

mod dest;
pub mod folder;
pub mod names;
#[cfg(any(not(unix), test))]
mod portable;
#[cfg(unix)]
mod unix;

pub use dest::Dest;
pub use folder::OutputDir;
pub use names::FileNames;
#[cfg(not(unix))]
pub use portable::FileId;
#[cfg(unix)]
pub use unix::FileId;

/// Creates `dir` and its parents if missing, then settles the archive
/// builds a killed sylcol left half-done in it and removes the temporary
/// files an interrupted sylcol left (saying so).
pub fn ensure_folder(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| output_error(dir, "cannot create the folder", e))?;
    sweep_by_path(dir);
    Ok(())
}

/// "PATH: WHAT: error", typed ([`OutputError`]) so that a report names
/// the path.
pub fn output_error(path: &Path, what: &str, error: std::io::Error) -> anyhow::Error {
    anyhow::Error::new(OutputError {
        path: path.display().to_string(),
        what: what.to_string(),
        error,
    })
}

/// Once per run, settles the archive builds a killed sylcol left
/// half-done in `dir` and removes the temporary files an interrupted one
/// left, found and removed by path, saying so.
fn sweep_by_path(dir: &Path) {
    let Some(tidied) = tidy(dir) else {
        return;
    };
    for r in &tidied.recovered {
        note!("sylcol: {}", RecoveredReplacement::of(r).sentence());
    }
    note_removed(dir, &tidied.removed);
}

/// Says, for each stale temporary file removed from `dir`, whose
/// unfinished copy it was.
pub fn note_removed(dir: &Path, removed: &[std::path::PathBuf]) {
    for stale in removed {
        let name = stale.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((target, pid)) = parse_temp_name(name) {
            note_swept(dir, target, pid);
        }
    }
}

/// Says that the temporary file of `target` in `dir`, left by the
/// interrupted run `pid`, was removed.
fn note_swept(dir: &Path, target: &str, pid: u32) {
    note!(
        "{}: removed the unfinished copy an interrupted sylcol (pid {pid}) left beside it",
        dir.join(target).display()
    );
}

/// Writes `bytes` to `path` (its folder created if missing).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], letting `fill` stream the contents.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if path.file_name().is_none() {
        bail!("{}: not a file path", path.display());
    }
    ensure_folder(folder_of(path))?;
    write_file(path, fill)
}

/// Whether an output path means standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `-` (standard output) as the output of a command that writes
/// a folder or several files: a usage error, `why` saying what it writes
/// and what to name instead.
pub fn refuse_stdout(path: &Path, why: &str) -> anyhow::Result<()> {
    if is_stdout(path) {
        bail!(sylcol::report::error::UsageError(format!(
            "-o -: standard output takes one stream, and {why}"
        )));
    }
    Ok(())
}

/// Writes `bytes` to standard output for `-`, else like [`write_atomic`].
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    write_atomic(path, bytes)
}

/// Writes `path` through its temporary file; its folder exists.
pub(crate) fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let cannot = |e: std::io::Error| {
        anyhow::Error::new(e).context(format!("{}: cannot write", path.display()))
    };
    let mut tmp = TempFile::beside(path).map_err(cannot)?;
    let mut w = BufWriter::new(&mut tmp);
    fill(&mut w).and_then(|()| w.flush()).map_err(cannot)?;
    drop(w);
    tmp.persist(path).map_err(cannot)
}

/// The components of a relative `name` from an archive or a model (`\` or
/// `/` separated), each as [`file_component`] writes it; refuses names
/// that would leave `root`: `..`, absolute paths, drive letters.
pub fn safe_components(name: &str, root: &Path) -> anyhow::Result<Vec<String>> {
    let normalised = name.replace('\\', "/");
    if normalised.starts_with('/') || normalised.as_bytes().get(1) == Some(&b':') {
        bail!(
            "refused, an absolute path or drive letter would write outside {}",
            root.display()
        );
    }
    let mut parts = Vec::new();
    for part in Path::new(&normalised).components() {
        match part {
            Component::Normal(p) => parts.push(file_component(&p.to_string_lossy())),
            Component::CurDir => {}
            _ => bail!("refused, the name would write outside {}", root.display()),
        }
    }
    if parts.is_empty() {
        bail!("refused, an empty name");
    }
    Ok(parts)
}

/// One component of a name from data as the file it is written to:
/// control characters mapped to `%XX`, and a name of sylcol's own
/// temporary, backup or journal files (`.NAME.sylcol-journal-PID`...,
/// [`is_own_file_name`]) with its leading `.` as `%2E`, so that no later
/// run takes an archive's entry for a file of its own and acts on it.
pub fn file_component(part: &str) -> String {
    let visible = visible_file_name(part);
    match visible.strip_prefix('.') {
        Some(rest) if is_own_file_name(&visible) => format!("%2E{rest}"),
        _ => visible.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_are_refused_and_controls_mapped() {
        let root = Path::new("/tmp/out");
        let join = |name| safe_components(name, root).map(|p| p.join("/"));
        assert_eq!(join("a\\b.bin").unwrap(), "a/b.bin");
        assert_eq!(join("./a/./b.bin").unwrap(), "a/b.bin");
        assert_eq!(join("a\x1b[2J/b\r.bin").unwrap(), "a%1B[2J/b%0D.bin");
        assert_eq!(
            join("d\\.x.pak.sylcol-journal-7").unwrap(),
            "d/%2Ex.pak.sylcol-journal-7"
        );
        assert_eq!(
            join(".a.sylcol-tmp-1/.b.sylcol-old-2-1").unwrap(),
            "%2Ea.sylcol-tmp-1/%2Eb.sylcol-old-2-1"
        );
        assert_eq!(join(".hidden/.x.sylcol").unwrap(), ".hidden/.x.sylcol");
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "\\x",
            "C:\\x",
            "c:x",
            "",
            ".",
        ] {
            assert!(join(bad).is_err(), "{bad}");
        }
    }
}
