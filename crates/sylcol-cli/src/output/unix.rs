//! Output folders on Unix: below the folder the user named, everything is
//! reached through an open folder handle, never by a path the OS resolves
//! again. Folders are opened with `O_NOFOLLOW`, so a symbolic link where a
//! folder is expected fails to open instead of being followed; temporary
//! files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` and renamed with
//! `renameat` within the handle of the folder they were created in.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;
use sylcol_atomic::{Registration, claim_sweep, stale_temp_name, temp_name};

use super::folder::{link_refusal, not_a_folder};
use super::note_swept;

/// How a folder is held open: on Linux `O_PATH`, which needs no read
/// permission (a folder that may be written but not listed still works,
/// as it did by path), elsewhere read-only.
#[cfg(target_os = "linux")]
const HANDLE: OFlags = OFlags::PATH;
#[cfg(not(target_os = "linux"))]
const HANDLE: OFlags = OFlags::RDONLY;

/// What names a file whatever the path to it: its device and inode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `path` resolves to (links followed), if it exists.
    pub fn of(path: &Path) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
}

/// An open folder and the path it had when opened (for messages and for
/// the signal registry; never resolved again).
pub struct Folder {
    /// The open folder (`O_DIRECTORY`, close-on-exec).
    fd: OwnedFd,
    /// The folder's path as the user would name it.
    path: PathBuf,
}

impl Folder {
    /// Opens the folder the user named, following a link there (the user
    /// chose it); the folder exists.
    pub fn open_root(path: &Path) -> anyhow::Result<Folder> {
        let flags = HANDLE | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(path, flags, Mode::empty())
            .map_err(|e| os_error(path, "cannot open the folder", e))?;
        let path = path.to_path_buf();
        Ok(Folder { fd, path })
    }

    /// A second handle on the same folder.
    pub fn try_clone(&self) -> anyhow::Result<Folder> {
        let fd = self.fd.try_clone().map_err(|e| {
            anyhow::Error::new(e)
                .context(format!("{}: cannot open the folder", self.path.display()))
        })?;
        let path = self.path.clone();
        Ok(Folder { fd, path })
    }

    /// The folder's path as the user would name it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the folder `name` in this one, creating it when missing.
    /// Refuses a symbolic link or a non-folder of that name. Removes the
    /// temporary files an interrupted sylcol left in it.
    pub fn child(&self, name: &str) -> anyhow::Result<Folder> {
        let path = self.path.join(name);
        let opened = match self.open_folder(name) {
            Err(Errno::NOENT) => {
                match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(os_error(&path, "cannot create the folder", e)),
                }
                self.open_folder(name)
            }
            other => other,
        };
        let fd = opened.map_err(|e| self.open_refusal(name, e))?;
        let child = Folder { fd, path };
        child.sweep_stale();
        Ok(child)
    }

    fn open_folder(&self, name: &str) -> rustix::io::Result<OwnedFd> {
        let flags = HANDLE | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(&self.fd, name, flags, Mode::empty())
    }

    /// Why the folder `name` did not open: a link or a file there (with
    /// `O_NOFOLLOW | O_DIRECTORY` the OS says ELOOP or ENOTDIR, EMLINK on
    /// some BSDs), else the OS error itself.
    fn open_refusal(&self, name: &str, error: Errno) -> anyhow::Error {
        let path = self.path.join(name);
        match self.kind_of(name) {
            Ok(Some(FileType::Symlink)) => link_refusal(&path, self.link_target(name)),
            Ok(Some(kind)) if kind != FileType::Directory => not_a_folder(&path),
            _ => os_error(&path, "cannot open the folder", error),
        }
    }

    /// Refuses `name` when it is a symbolic link; anything else (or
    /// nothing) is fine.
    pub fn refuse_link(&self, name: &str) -> anyhow::Result<()> {
        match self.kind_of(name) {
            Ok(Some(FileType::Symlink)) => {
                Err(link_refusal(&self.path.join(name), self.link_target(name)))
            }
            Ok(_) => Ok(()),
            Err(e) => Err(os_error(&self.path.join(name), "cannot inspect", e)),
        }
    }

    /// What `name` is in this folder, not following a link; `None` when
    /// there is nothing of that name.
    fn kind_of<P: rustix::path::Arg>(&self, name: P) -> rustix::io::Result<Option<FileType>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The file `name` in this folder (not following a link), if any.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        let stat = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        Some(FileId {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
        })
    }

    /// Where the link `name` points, if it can be read.
    fn link_target(&self, name: &str) -> Option<PathBuf> {
        let target = rustix::fs::readlinkat(&self.fd, name, Vec::new()).ok()?;
        Some(PathBuf::from(OsStr::from_bytes(target.as_bytes())))
    }

    /// Writes `name` in this folder through a temporary file created and
    /// renamed within it; returns the path written. Errors name that path
    /// once, never the temporary name.
    pub fn write_file(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> anyhow::Result<PathBuf> {
        let path = self.path.join(name);
        let cannot = |e: io::Error| {
            anyhow::Error::new(e).context(format!("{}: cannot write", path.display()))
        };
        let mut temp = TempIn::create(self, name).map_err(cannot)?;
        let mut w = BufWriter::new(&mut temp.file);
        fill(&mut w).and_then(|()| w.flush()).map_err(cannot)?;
        drop(w);
        temp.persist(name).map_err(cannot)?;
        Ok(path)
    }

    /// Flushes the folder's entries to disk (after a rename into it).
    /// Best effort, as `sylcol_atomic::TempFile::persist`: the
    /// held handle may be `O_PATH`, which cannot be flushed, so a readable
    /// one is opened; a folder that may be written but not read keeps
    /// only that guarantee short, and the write is not reported failed.
    fn sync_entries(&self) {
        if let Ok(readable) = self.readable() {
            let _ = rustix::fs::fsync(&readable);
        }
    }

    /// A readable handle on the same folder (the held one may be
    /// `O_PATH`, which can be neither listed nor flushed).
    fn readable(&self) -> rustix::io::Result<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::openat(&self.fd, ".", flags, Mode::empty())
    }

    /// Removes, once per folder and run, the temporary files an interrupted
    /// sylcol left here (regular files of that name pattern whose process
    /// is gone), saying so.
    pub fn sweep_stale(&self) {
        if !claim_sweep(&self.path) {
            return;
        }
        // A folder that cannot be listed is not swept.
        let Ok(listing) = self.readable() else {
            return;
        };
        let Ok(entries) = Dir::read_from(&listing) else {
            return;
        };
        for entry in entries.map_while(Result::ok) {
            let name = entry.file_name();
            let Some((target, pid)) = name.to_str().ok().and_then(stale_temp_name) else {
                continue;
            };
            let regular = self.kind_of(name) == Ok(Some(FileType::RegularFile));
            if regular && rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).is_ok() {
                note_swept(&self.path, target, pid);
            }
        }
    }
}

/// A temporary file in an open folder, registered with the signal
/// registry under its path; removed on drop unless renamed into place.
struct TempIn<'a> {
    /// The folder the file was created in (and is renamed within).
    folder: &'a Folder,
    /// Its name in `folder`: `.NAME.sylcol-tmp-PID`.
    name: String,
    /// The open temporary file, written through.
    file: File,
    /// Its entry in the signal registry, under the folder's path and
    /// `name`; settled by the rename or the removal.
    registration: Registration,
}

impl<'a> TempIn<'a> {
    /// Creates the temporary file for `target` in `folder`. An existing
    /// file or link of that name (a leftover of our PID, or planted) is
    /// removed, never written through, and the name created anew.
    fn create(folder: &'a Folder, target: &str) -> io::Result<TempIn<'a>> {
        let name = temp_name(target);
        let registered = folder.path.join(&name);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mode = Mode::from_raw_mode(0o666);
        let create = || -> io::Result<OwnedFd> {
            match rustix::fs::openat(&folder.fd, &name, flags, mode) {
                Err(Errno::EXIST) => {
                    rustix::fs::unlinkat(&folder.fd, &name, AtFlags::empty())?;
                    Ok(rustix::fs::openat(&folder.fd, &name, flags, mode)?)
                }
                other => Ok(other?),
            }
        };
        let (registration, fd) = Registration::create(registered, create)?;
        let file = File::from(fd);
        Ok(TempIn {
            folder,
            name,
            file,
            registration,
        })
    }

    /// Flushes the file to disk and renames it over `target` in the same
    /// folder (replacing, never following, whatever has that name), then
    /// flushes the folder's entries so the rename outlives a power cut.
    fn persist(mut self, target: &str) -> io::Result<()> {
        self.file.sync_all()?;
        let (fd, name) = (&self.folder.fd, &self.name);
        self.registration
            .settle(|| Ok(rustix::fs::renameat(fd, name, fd, target)?))?;
        self.folder.sync_entries();
        Ok(())
    }
}

impl Drop for TempIn<'_> {
    fn drop(&mut self) {
        let (fd, name) = (&self.folder.fd, &self.name);
        let _ = self.registration.settle(|| {
            let _ = rustix::fs::unlinkat(fd, name, AtFlags::empty());
            Ok(())
        });
    }
}

/// An OS error at `path`, said as "PATH: WHAT: error (os error N)".
fn os_error(path: &Path, what: &str, error: Errno) -> anyhow::Error {
    super::output_error(path, what, io::Error::from(error))
}
