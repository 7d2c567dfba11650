//! [`Dest`]: where a command writes one output, whether the user named it
//! on the command line or data named it inside an [`OutputDir`], so one
//! writer serves both and a name from data is never written by path.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::folder::{OutputDir, Place};
use super::{write_atomic_with, write_output};

/// Where one output goes.
pub enum Dest {
    /// A path the user named: written by path (its folder created when
    /// missing), `-` meaning standard output where the writer allows it.
    Named(PathBuf),
    /// A file or folder named by data inside an output folder: written
    /// through its open folder (see [`OutputDir`]).
    Inside(Place),
}

impl From<Place> for Dest {
    fn from(place: Place) -> Dest {
        Dest::Inside(place)
    }
}

impl Dest {
    /// The path as the user would name it (for messages, reports, and to
    /// read the format from its extension).
    pub fn path(&self) -> &Path {
        match self {
            Dest::Named(path) => path,
            Dest::Inside(place) => place.path(),
        }
    }

    /// Writes `bytes` (to standard output for a named `-`).
    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Dest::Named(path) => write_output(path, bytes),
            Dest::Inside(place) => place.write_with(|w| w.write_all(bytes)).map(drop),
        }
    }

    /// Writes what `fill` streams (never to standard output).
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        match self {
            Dest::Named(path) => write_atomic_with(path, fill),
            Dest::Inside(place) => place.write_with(fill).map(drop),
        }
    }

    /// Opens the destination as an output folder (created when missing):
    /// a named one follows a link the user chose, one inside an output
    /// folder refuses a link.
    pub fn folder(&self) -> anyhow::Result<OutputDir> {
        match self {
            Dest::Named(path) => OutputDir::create(path),
            Dest::Inside(place) => place.as_folder(),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_folder_named_by_data_is_opened_without_following_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        let out = OutputDir::create(&dir.path().join("out")).unwrap();
        symlink("../victim", out.root().join("linked")).unwrap();
        let linked = out.place("linked").err().unwrap().to_string();
        assert!(
            linked.contains("is a symbolic link (to ../victim)"),
            "{linked}"
        );
        let entry = Dest::from(out.place("ENTRY").unwrap());
        let library = entry.folder().unwrap();
        // Swapped for a link once open: the meshes still land in the folder
        // sylcol created, now moved, and nothing in the victim.
        std::fs::rename(out.root().join("ENTRY"), dir.path().join("moved")).unwrap();
        symlink("../victim", out.root().join("ENTRY")).unwrap();
        let mesh = Dest::from(library.place("a.obj").unwrap());
        mesh.write_with(|w| w.write_all(b"o")).unwrap();
        Dest::from(library.place("b.obj").unwrap())
            .write(b"b")
            .unwrap();
        assert_eq!(mesh.path(), out.root().join("ENTRY/a.obj"));
        assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);
        assert_eq!(std::fs::read(dir.path().join("moved/a.obj")).unwrap(), b"o");
        assert_eq!(std::fs::read(dir.path().join("moved/b.obj")).unwrap(), b"b");
    }
}
