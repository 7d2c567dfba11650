//! [`OutputDir`]: a folder that receives files named by data (archive
//! entries, mesh names), every one of them kept inside it.
//!
//! The folder is opened once, at [`OutputDir::create`] (following a link
//! the user named as the folder). Below it, on Unix, nothing is resolved by
//! path: each folder of a name is created with `mkdirat` and opened with
//! `openat(O_DIRECTORY | O_NOFOLLOW)` relative to its parent's handle, the
//! temporary file is created with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`
//! relative to its folder's handle and renamed into place with `renameat`
//! within that handle. A process that swaps a folder for a symbolic link
//! after sylcol opened it changes nothing: sylcol keeps writing into the
//! folder it opened, wherever that folder now is. A link met on the way (or
//! as the file's own name) is refused. Other targets check each component
//! by path before using it, which refuses the links already there but not
//! one a racing process plants in between.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::safe_components;

#[cfg(not(unix))]
use super::portable::{FileId, Folder};
#[cfg(unix)]
use super::unix::{FileId, Folder};

/// The files a command reads, never written over: each with its path as
/// the user named it.
type Inputs = Vec<(FileId, PathBuf)>;

/// A folder that receives files named by data: every file lands inside
/// it, never through a symbolic link (see the module docs).
pub struct OutputDir {
    /// The folder as the user named it: messages and reported paths start
    /// with it.
    root: PathBuf,
    /// The folder, opened once at [`OutputDir::create`]; on Unix every file
    /// and folder below it is reached from this handle.
    folder: Folder,
    /// The command's inputs, refused as outputs (see [`OutputDir::protect`]).
    inputs: Inputs,
}

/// Where one file named by data goes: its folder, already created, checked
/// and open, and the file's name in it (a symbolic link of that name was
/// refused when the place was made, and the rename replaces, never
/// follows, one planted since).
pub struct Place {
    /// The folder the file goes in, open.
    folder: Folder,
    /// The file's name in `folder` (one component, control characters
    /// already mapped to `%XX`).
    name: String,
    /// The file's path as the user would name it (the output folder as
    /// given, then the name's components): for messages and reports.
    path: PathBuf,
    /// The inputs its folder's files are refused over, if it becomes one.
    inputs: Inputs,
}

impl OutputDir {
    /// Creates the folder (and its parents) if missing and opens it. The
    /// folder itself may be a link the user chose; links below it are
    /// refused. Removes the temporary files an interrupted sylcol left in it.
    pub fn create(root: &Path) -> anyhow::Result<OutputDir> {
        std::fs::create_dir_all(root)
            .map_err(|e| super::output_error(root, "cannot create the folder", e))?;
        let folder = Folder::open_root(root)?;
        folder.sweep_stale();
        Ok(OutputDir {
            root: root.to_path_buf(),
            folder,
            inputs: Inputs::new(),
        })
    }

    /// Refuses from now on to write over any of `files`, the inputs the
    /// command reads (an archive's index and parts, a name list). Files
    /// are compared by identity (device and inode on Unix), so no other
    /// path to one (`./A.p00`, a hard link) gets through.
    pub fn protect(&mut self, files: &[PathBuf]) {
        let ids = files
            .iter()
            .filter_map(|f| Some((FileId::of(f)?, f.clone())));
        self.inputs.extend(ids);
    }

    /// The folder as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates and opens the folders of `name` one at a time, each from the
    /// one before. Refuses a name that leaves the folder and any symbolic
    /// link on the way (the file itself included).
    pub fn place(&self, name: &str) -> anyhow::Result<Place> {
        let mut parts = safe_components(name, &self.root)?;
        let Some(file) = parts.pop() else {
            bail!("refused, an empty name");
        };
        let mut folder = self.folder.try_clone()?;
        for part in &parts {
            folder = folder.child(part)?;
        }
        folder.refuse_link(&file)?;
        let path = folder.path().join(&file);
        self.refuse_input(&folder, &file, &path)?;
        Ok(Place {
            folder,
            name: file,
            path,
            inputs: self.inputs.clone(),
        })
    }

    /// Refuses the file `name` in `folder` (at `path`) when it is one of
    /// the command's inputs.
    fn refuse_input(&self, folder: &Folder, name: &str, path: &Path) -> anyhow::Result<()> {
        let Some(id) = folder.file_id(name) else {
            return Ok(());
        };
        let Some((_, input)) = self.inputs.iter().find(|(input, _)| *input == id) else {
            return Ok(());
        };
        let also = if input == path {
            String::new()
        } else {
            format!(" ({})", input.display())
        };
        bail!(
            "refused: {} is a file this command reads{also}; write to another folder",
            path.display()
        )
    }

    /// Writes one of sylcol's own files (`name`, as is: the manifest
    /// `pak extract` writes) in the folder itself, through a temporary
    /// file; a link of that name is refused. Returns the path written.
    pub fn write_own(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        self.folder.refuse_link(name)?;
        self.folder.write_file(name, fill)
    }

    /// Writes `name` inside the folder (see [`OutputDir::place`]); returns
    /// the path written.
    pub fn write_with(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        self.place(name)?.write_with(fill)
    }
}

impl Place {
    /// The file's path as the user would name it (the output folder as
    /// given, then the name's components).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the file through a temporary file in the same open folder,
    /// renamed over the name; returns the path written.
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        self.folder.write_file(&self.name, fill)
    }

    /// Opens the place as a folder of its own (created when missing, a
    /// link or a file there refused), to write files named by data into.
    pub fn as_folder(&self) -> anyhow::Result<OutputDir> {
        let folder = self.folder.child(&self.name)?;
        let root = self.path.clone();
        let inputs = self.inputs.clone();
        Ok(OutputDir {
            root,
            folder,
            inputs,
        })
    }
}

/// The refusal of a symbolic link at `at` pointing to `target` (`?` when
/// it could not be read).
pub(super) fn link_refusal(at: &Path, target: Option<PathBuf>) -> anyhow::Error {
    let target = target.map_or_else(|| "?".to_string(), |t| t.display().to_string());
    anyhow::anyhow!(
        "refused: {} is a symbolic link (to {target}); sylcol never writes through a link in the output folder",
        at.display()
    )
}

/// The refusal of a non-folder at `at` where a folder is needed.
pub(super) fn not_a_folder(at: &Path) -> anyhow::Error {
    anyhow::anyhow!("{}: is a file, not a folder", at.display())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// A scratch folder holding an empty `victim/` and the output folder
    /// `out/`, created.
    fn scratch() -> (tempfile::TempDir, PathBuf, OutputDir) {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        let out = OutputDir::create(&dir.path().join("out")).unwrap();
        (dir, victim, out)
    }

    fn count(folder: &Path) -> usize {
        std::fs::read_dir(folder).unwrap().count()
    }

    #[test]
    fn links_below_the_folder_are_refused() {
        let (_dir, victim, out) = scratch();
        symlink("../victim", out.root().join("sub")).unwrap();
        symlink("../victim/f", out.root().join("f.bin")).unwrap();
        for name in ["sub/x.bin", "sub\\deeper\\x.bin", "f.bin"] {
            let err = out.place(name).err().unwrap().to_string();
            assert!(
                err.contains("is a symbolic link (to ../victim"),
                "{name}: {err}"
            );
            assert!(err.contains(&out.root().display().to_string()), "{err}");
        }
        let err = out.write_with("sub/x.bin", |w| w.write_all(b"x"));
        assert!(err.is_err());
        assert_eq!(count(&victim), 0);
        let ok = out.write_with("a/b/c.bin", |w| w.write_all(b"c")).unwrap();
        assert_eq!(ok, out.root().join("a/b/c.bin"));
        assert_eq!(std::fs::read(ok).unwrap(), b"c");
    }

    #[test]
    fn a_file_where_a_folder_is_needed_is_refused() {
        let (_dir, _victim, out) = scratch();
        std::fs::write(out.root().join("a"), b"file").unwrap();
        let err = out.place("a/b.bin").err().unwrap().to_string();
        assert_eq!(
            err,
            format!(
                "{}: is a file, not a folder",
                out.root().join("a").display()
            )
        );
    }

    #[test]
    fn a_folder_swapped_for_a_link_after_it_was_opened_is_not_followed() {
        let (dir, victim, out) = scratch();
        let place = out.place("sub/deeper/x.bin").unwrap();
        // The race: sylcol has opened sub/deeper; another process moves the
        // real folder away and puts a link to the victim in its place.
        std::fs::rename(out.root().join("sub"), dir.path().join("moved")).unwrap();
        symlink("../victim", out.root().join("sub")).unwrap();
        std::fs::create_dir(victim.join("deeper")).unwrap();
        place.write_with(|w| w.write_all(b"data")).unwrap();
        assert_eq!(count(&victim.join("deeper")), 0, "nothing in the victim");
        let landed = dir.path().join("moved/deeper/x.bin");
        assert_eq!(std::fs::read(landed).unwrap(), b"data");
        assert_eq!(
            count(&dir.path().join("moved/deeper")),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn a_swap_while_the_file_is_written_is_not_followed() {
        let (dir, victim, out) = scratch();
        let root = out.root().to_path_buf();
        let written = out.write_with("sub/x.bin", |w| {
            // The temporary file exists; the rename is still to come.
            std::fs::rename(root.join("sub"), dir.path().join("moved"))?;
            symlink("../victim", root.join("sub"))?;
            w.write_all(b"data")
        });
        assert_eq!(written.unwrap(), root.join("sub/x.bin"));
        assert_eq!(count(&victim), 0, "nothing in the victim");
        assert_eq!(
            std::fs::read(dir.path().join("moved/x.bin")).unwrap(),
            b"data"
        );
        assert_eq!(count(&dir.path().join("moved")), 1, "no temporary left");
    }

    #[test]
    fn a_link_planted_as_the_file_after_the_check_is_replaced_not_followed() {
        let (_dir, victim, out) = scratch();
        std::fs::write(victim.join("f"), b"keep").unwrap();
        let place = out.place("f.bin").unwrap();
        symlink("../victim/f", out.root().join("f.bin")).unwrap();
        place.write_with(|w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(victim.join("f")).unwrap(), b"keep");
        let f = out.root().join("f.bin");
        assert!(!std::fs::symlink_metadata(&f).unwrap().is_symlink());
        assert_eq!(std::fs::read(f).unwrap(), b"new");
    }

    #[test]
    fn a_planted_temporary_name_is_replaced_not_followed() {
        let (_dir, victim, out) = scratch();
        std::fs::write(victim.join("t"), b"keep").unwrap();
        let temp = sylcol_atomic::temp_name("x.bin");
        symlink("../victim/t", out.root().join(&temp)).unwrap();
        out.write_with("x.bin", |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(victim.join("t")).unwrap(), b"keep");
        assert_eq!(std::fs::read(out.root().join("x.bin")).unwrap(), b"new");
        assert_eq!(
            count(out.root()),
            1,
            "the planted link was removed, never followed"
        );
    }

    #[test]
    fn a_failed_fill_leaves_no_temporary_and_says_the_file_once() {
        let (_dir, _victim, out) = scratch();
        let err = out
            .write_with("a/x.bin", |_| Err(std::io::Error::other("disk full")))
            .unwrap_err();
        let text = format!("{err:#}");
        let path = out.root().join("a/x.bin").display().to_string();
        assert_eq!(text, format!("{path}: cannot write: disk full"));
        assert_eq!(count(&out.root().join("a")), 0);
    }

    #[test]
    fn an_input_is_never_written_over_by_any_path() {
        let (dir, _victim, mut out) = scratch();
        let input = out.root().join("A.p00");
        std::fs::write(&input, b"archive").unwrap();
        std::fs::hard_link(&input, out.root().join("hard.bin")).unwrap();
        out.protect(&[dir.path().join("out/./A.p00")]);
        for name in ["A.p00", "./A.p00", "hard.bin"] {
            let err = out.place(name).err().map(|e| e.to_string());
            let err = err.unwrap_or_default();
            assert!(
                err.contains("is a file this command reads"),
                "{name}: {err}"
            );
        }
        assert_eq!(std::fs::read(&input).unwrap(), b"archive");
        out.write_with("B.bin", |w| w.write_all(b"b")).unwrap();
    }

    #[test]
    fn the_folder_itself_may_be_a_link() {
        let (dir, victim, _out) = scratch();
        let chosen = dir.path().join("chosen");
        symlink("victim", &chosen).unwrap();
        let out = OutputDir::create(&chosen).unwrap();
        out.write_with("a/x.bin", |w| w.write_all(b"x")).unwrap();
        assert_eq!(std::fs::read(victim.join("a/x.bin")).unwrap(), b"x");
    }
}
