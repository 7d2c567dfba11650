//! Files a caller holds as bytes (a browser page's dropped files), opened
//! as files of one folder on disk are: [`Opener::objects_in`] is
//! [`Opener::objects`] over a [`MemoryFolder`], so that names, sniffing,
//! budgets and error texts are those of `sylcol verify FILE...` run in
//! that folder.

use std::path::Path;
use std::sync::Arc;

use sylcol_format::ipfb::{Archive, part_number};

use super::names::NAMES_BESIDE;
use super::read::{archive_head, sniffed};
use super::{Objects, Opener, SourceError};
use crate::report::error::ReadError;

/// Files held in memory, by file name, standing for one folder: an
/// archive index (`.pak`) finds its parts (`.p00` ...) and its
/// `names.txt` among them as it would beside it on disk.
#[derive(Debug, Clone, Default)]
pub struct MemoryFolder {
    files: Vec<(String, Arc<[u8]>)>,
}

impl MemoryFolder {
    /// An empty folder.
    pub fn new() -> MemoryFolder {
        MemoryFolder::default()
    }

    /// Adds file `name` (a path's folders are left off: every file is in
    /// this one folder); it replaces a file of the same name added before.
    pub fn add(&mut self, name: &str, bytes: impl Into<Arc<[u8]>>) {
        let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
        self.files.retain(|(n, _)| n != name);
        self.files.push((name.to_string(), bytes.into()));
    }

    /// The files, in the order added.
    pub fn files(&self) -> &[(String, Arc<[u8]>)] {
        &self.files
    }

    /// The bytes of file `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<[u8]>> {
        self.files.iter().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// Whether file `name` is an archive index (`.pak`, starting `IPFB`),
    /// as [`super::is_archive`] tells on disk.
    pub fn is_archive(&self, name: &str) -> bool {
        self.get(name).is_some_and(|b| archive_head(name, b))
    }

    /// The files a user names as FILE arguments, in the order added: every
    /// one but `names.txt` and the parts of an archive index among them
    /// (which that archive reads).
    pub fn arguments(&self) -> Vec<&str> {
        let stems: Vec<String> = self
            .files
            .iter()
            .filter(|(n, _)| self.is_archive(n))
            .map(|(n, _)| stem(n))
            .collect();
        self.files
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| *n != NAMES_BESIDE)
            .filter(|n| !stems.iter().any(|s| part_number(s, n).is_some()))
            .collect()
    }
}

fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Opener {
    /// Every object file `name` of `folder` holds, as [`Opener::objects`]
    /// reads the file of that name in a folder on disk: each entry of an
    /// archive index (its parts and `names.txt` found in `folder`, named
    /// with [`Opener::names`]), or the one object of any other file, whole
    /// only when its first bytes show a format sylcol decodes within its
    /// size limits. A name `folder` does not hold is a read error.
    pub fn objects_in(&self, folder: &MemoryFolder, name: &str) -> Result<Objects, SourceError> {
        let Some(bytes) = folder.get(name) else {
            return Err(ReadError {
                path: name.to_string(),
                error: std::io::ErrorKind::NotFound.into(),
            }
            .into());
        };
        if !archive_head(name, bytes) {
            return Ok(Objects::Single(Some(sniffed(
                name,
                &mut &bytes[..],
                bytes.len() as u64,
            ))));
        }
        let path = Path::new(name);
        let mut archive = Archive::from_memory(path, bytes, folder.files())?;
        let sources = self.names.apply_lists(
            path,
            &mut archive,
            || {
                let Some(list) = folder.get(NAMES_BESIDE) else {
                    return Ok(None);
                };
                std::io::read_to_string(&list[..])
                    .map(Some)
                    .map_err(|error| SourceError::Names {
                        path: path.with_file_name(NAMES_BESIDE),
                        error,
                    })
            },
            None,
        )?;
        // Where the names came from, for the page to say as `verify
        // --json` does ([`Opener::names_used`]).
        self.record(sources);
        Ok(Objects::of_archive(name, archive))
    }
}
