//! Writing outputs safely, for every command: one writer.
//!
//! - A file is written to a temporary file beside it (`sylcol_format::atomic`)
//!   and renamed into place, so an interrupted run never leaves a
//!   half-written file in place of the user's; a signal removes the
//!   temporary files ([`crate::signals`]), and the next run removes what a
//!   killed one left in the folders it writes.
//! - The folder of an output, and its parents, are created when missing.
//! - Files named by data (archive entries, mesh names) go through an
//!   [`OutputDir`]: names that would leave the folder (`..`, absolute, drive
//!   letters) are refused, control characters are mapped to visible `%XX`,
//!   and no symbolic link below the folder is followed or replaced: folders
//!   are created one component at a time, each checked before it is used.
//! - Messages name the file the user asked for (never a temporary one) and
//!   carry the OS error once.

use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};
use sylcol_format::atomic::{TempFile, parse_temp_name, sweep_stale};
use sylcol_format::text::visible_file_name;

/// Creates `dir` and its parents if missing, then removes the temporary
/// files an interrupted sylcol left in it (saying so).
pub fn ensure_folder(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
    for stale in sweep_stale(dir) {
        let name = stale.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((target, pid)) = parse_temp_name(name) {
            note!(
                "{}: removed the unfinished copy an interrupted sylcol (pid {pid}) left beside it",
                dir.join(target).display()
            );
        }
    }
    Ok(())
}

/// The folder `path` is in (`.` for a bare file name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
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
    ensure_folder(&folder_of(path))?;
    write_file(path, fill)
}

/// Whether an output path means standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
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
fn write_file(
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

/// A folder that receives files named by data: every file lands inside
/// it, never through a symbolic link (see the module docs).
pub struct OutputDir {
    root: PathBuf,
}

impl OutputDir {
    /// Creates the folder (and its parents) if missing. The folder itself
    /// may be a link the user chose; links below it are refused.
    pub fn create(root: &Path) -> anyhow::Result<OutputDir> {
        ensure_folder(root)?;
        Ok(OutputDir {
            root: root.to_path_buf(),
        })
    }

    /// The folder as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `name` inside the folder, its folders created one at a
    /// time. Refuses a name that leaves the folder and any symbolic link
    /// on the way (the file itself included).
    pub fn prepare(&self, name: &str) -> anyhow::Result<PathBuf> {
        let parts = safe_components(name, &self.root)?;
        let mut at = self.root.clone();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let is_file = i + 1 == parts.len();
            check_component(&at, is_file)?;
            if !is_file {
                ensure_folder(&at)?;
                check_component(&at, false)?;
            }
        }
        Ok(at)
    }

    /// Writes `name` inside the folder (see [`OutputDir::prepare`]);
    /// returns the path written.
    pub fn write_with(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        let path = self.prepare(name)?;
        write_file(&path, fill)?;
        Ok(path)
    }
}

/// Refuses `at` when it is a symbolic link, or a non-folder where a
/// folder is needed; a missing `at` is fine (it will be created).
fn check_component(at: &Path, is_file: bool) -> anyhow::Result<()> {
    let meta = match std::fs::symlink_metadata(at) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => bail!("{}: cannot inspect: {e}", at.display()),
    };
    if meta.file_type().is_symlink() {
        let target =
            std::fs::read_link(at).map_or_else(|_| "?".to_string(), |t| t.display().to_string());
        bail!(
            "refused: {} is a symbolic link (to {target}); sylcol never writes through a link in the output folder",
            at.display()
        );
    }
    if !is_file && !meta.is_dir() {
        bail!("{}: is a file, not a folder", at.display());
    }
    Ok(())
}

/// The components of a relative `name` from an archive or a model (`\` or
/// `/` separated), each with control characters mapped to `%XX`; refuses
/// names that would leave `root`: `..`, absolute paths, drive letters.
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
            Component::Normal(p) => {
                parts.push(visible_file_name(&p.to_string_lossy()).into_owned());
            }
            Component::CurDir => {}
            _ => bail!("refused, the name would write outside {}", root.display()),
        }
    }
    if parts.is_empty() {
        bail!("refused, an empty name");
    }
    Ok(parts)
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

    #[cfg(unix)]
    #[test]
    fn prepare_refuses_links_below_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        let out = OutputDir::create(&dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("../victim", out.root().join("sub")).unwrap();
        std::os::unix::fs::symlink("../victim/f", out.root().join("f.bin")).unwrap();
        for name in ["sub/x.bin", "sub\\deeper\\x.bin", "f.bin"] {
            let err = out.prepare(name).unwrap_err().to_string();
            assert!(err.contains("symbolic link"), "{name}: {err}");
        }
        let err = out.write_with("sub/x.bin", |w| w.write_all(b"x"));
        assert!(err.is_err());
        assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);
        let ok = out.write_with("a/b/c.bin", |w| w.write_all(b"c")).unwrap();
        assert_eq!(std::fs::read(ok).unwrap(), b"c");
    }
}
