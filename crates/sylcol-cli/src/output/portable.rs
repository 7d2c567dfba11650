//! Output folders by path: the fallback for targets without folder handles
//! (everything but Unix; compiled on Unix for its tests only).
//!
//! Each component is checked with `symlink_metadata` before it is used, so
//! a link already in the folder is refused. This is not race-free: a
//! process racing sylcol inside the folder can swap a checked folder for a
//! link before the file is written through its path.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::folder::{link_refusal, not_a_folder};
use super::{ensure_folder, sweep_by_path, write_file};

/// What names a file whatever the path to it: its resolved path.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FileId(PathBuf);

impl FileId {
    /// The file `path` resolves to, if it exists.
    pub fn of(path: &Path) -> Option<FileId> {
        std::fs::canonicalize(path).ok().map(FileId)
    }
}

/// A folder known by its path.
pub struct Folder {
    /// The folder's path as the user would name it.
    path: PathBuf,
}

impl Folder {
    /// The folder the user named (it exists; a link there is followed).
    pub fn open_root(path: &Path) -> anyhow::Result<Folder> {
        let path = path.to_path_buf();
        Ok(Folder { path })
    }

    /// The same folder again.
    pub fn try_clone(&self) -> anyhow::Result<Folder> {
        let path = self.path.clone();
        Ok(Folder { path })
    }

    /// The folder's path as the user would name it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `name` in this one, created when missing, checked before
    /// and after; refuses a link or a non-folder of that name.
    pub fn child(&self, name: &str) -> anyhow::Result<Folder> {
        let path = self.path.join(name);
        check_component(&path, false)?;
        ensure_folder(&path)?;
        check_component(&path, false)?;
        Ok(Folder { path })
    }

    /// Refuses `name` when it is a symbolic link.
    pub fn refuse_link(&self, name: &str) -> anyhow::Result<()> {
        check_component(&self.path.join(name), true)
    }

    /// The file `name` in this folder, if any.
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        FileId::of(&self.path.join(name))
    }

    /// Writes `name` in this folder through a temporary file beside it;
    /// returns the path written.
    pub fn write_file(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        let path = self.path.join(name);
        write_file(&path, fill)?;
        Ok(path)
    }

    /// Removes (once per run) what an interrupted sylcol left here.
    pub fn sweep_stale(&self) {
        sweep_by_path(&self.path);
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
        return Err(link_refusal(at, std::fs::read_link(at).ok()));
    }
    if !is_file && !meta.is_dir() {
        return Err(not_a_folder(at));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_and_files_on_the_way_are_refused_by_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("victim")).unwrap();
        std::os::unix::fs::symlink("victim", dir.path().join("link")).unwrap();
        std::fs::write(dir.path().join("file"), b"f").unwrap();
        let root = Folder::open_root(dir.path()).unwrap();
        let err = root.child("link").err().unwrap().to_string();
        assert!(err.contains("is a symbolic link (to victim)"), "{err}");
        let err = root.refuse_link("link").unwrap_err().to_string();
        assert!(err.contains("is a symbolic link (to victim)"), "{err}");
        let err = root.child("file").err().unwrap().to_string();
        assert!(err.ends_with("file: is a file, not a folder"), "{err}");
        let sub = root.child("a").unwrap();
        let written = sub.write_file("x.bin", |w| w.write_all(b"x")).unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), b"x");
        assert_eq!(written, dir.path().join("a/x.bin"));
        assert_eq!(sub.file_id("x.bin"), FileId::of(&written));
        let stale = dir.path().join("b/.y.bin.sylcol-tmp-2147483646");
        std::fs::create_dir(dir.path().join("b")).unwrap();
        std::fs::write(&stale, b"left").unwrap();
        let again = root.try_clone().unwrap().child("b").unwrap();
        assert_eq!(again.path(), dir.path().join("b"));
        again.sweep_stale();
        assert!(!stale.exists(), "swept when the folder was first met");
    }
}
