//! The front door: an [`Opener`] turns a FILE argument into its objects
//! ([`Objects`]), and [`from_bytes`] admits bytes a caller holds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::{Archive, EntryInfo, IndexEntry, split_archive_path};
use sylcol_format::{SNIFF_LEN, budget};

use crate::errors::{NotFound, ObjectError, ReadError, UsageError};
use crate::report::name_sources::NameSources;

use super::error::SourceError;
use super::item::{Input, Item};
use super::names::NameList;
use super::parts::{MissingPart, missing_parts, part_hint};
use super::read::{self, is_archive};
use super::shared::Streams;

/// Bytes a caller holds, named `name`, as an object: copied only once
/// admitted (its format and size, as for a file), into memory reserved
/// so that running out is an error.
pub fn from_bytes(name: &str, data: &[u8]) -> Result<Input, SourceError> {
    let size = data.len() as u64;
    budget::admit(&data[..data.len().min(SNIFF_LEN)], size).map_err(|error| ObjectError {
        path: name.to_string(),
        error,
    })?;
    let mut bytes = budget::object_buffer(size).map_err(|e| ReadError {
        path: name.to_string(),
        error: e.into(),
    })?;
    bytes.extend_from_slice(data);
    Ok(Input {
        name: name.to_string(),
        bytes: Arc::new(bytes),
    })
}

/// Opens what FILE arguments name, with one [`NameList`] for every
/// archive. Clones share what [`Opener::names_used`] reports.
#[derive(Debug, Clone, Default)]
pub struct Opener {
    /// The names archives are opened with.
    pub names: NameList,
    /// Where the names of each archive opened came from, in the order
    /// first opened.
    used: Arc<Mutex<Vec<NameSources>>>,
}

impl Opener {
    /// An opener naming archive entries with `names`.
    pub fn new(names: NameList) -> Opener {
        Opener {
            names,
            used: Arc::default(),
        }
    }

    /// Where the names of every archive opened so far came from (each
    /// archive once, as last opened, in the order first opened).
    pub fn names_used(&self) -> Vec<NameSources> {
        self.used.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// Keeps where the names of an archive just opened came from (for
    /// [`Opener::names_used`]).
    pub(super) fn record(&self, sources: NameSources) {
        if let Ok(mut used) = self.used.lock() {
            match used.iter_mut().find(|u| u.archive == sources.archive) {
                Some(u) => *u = sources,
                None => used.push(sources),
            }
        }
    }

    /// Opens an archive index (`.pak` with its `.pNN` parts) with the
    /// names of [`Opener::names`].
    pub fn archive(&self, path: &str) -> Result<Archive, SourceError> {
        if path == "-" {
            return Err(UsageError(
                "an archive cannot be read from standard input: its parts (.p00, ...) are files beside its index; name the .pak file".into(),
            ).into());
        }
        let mut archive = Archive::open(Path::new(path))?;
        let sources = self.names.apply(Path::new(path), &mut archive)?;
        self.record(sources);
        Ok(archive)
    }

    /// The files opening the archive `path` reads: its index and parts and
    /// its name lists (what an output written next to them must never
    /// replace).
    pub fn archive_files(&self, path: &str, archive: &Archive) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = archive.files().into_iter().map(Path::to_path_buf).collect();
        files.extend(self.names.files(Path::new(path)));
        files
    }

    /// The object a FILE argument names (`-`: standard input), whatever
    /// its format, up to the budget of one object (what `probe` analyses:
    /// any chunk).
    pub fn any(&self, path: &str) -> Result<Input, SourceError> {
        if let Some((pak, inner)) = split_archive_path(path) {
            let archive = self.archive(pak)?;
            let (info, name) = probe(&archive, pak, find_inner(&archive, pak, inner)?)?;
            budget::within_budget(None, info.size).map_err(|error| ObjectError {
                path: name.clone(),
                error,
            })?;
            let bytes = archive
                .read_entry(&info)
                .map_err(|error| SourceError::Archive {
                    pak: pak.to_string(),
                    error: Box::new(error),
                })?;
            return Ok(Input {
                name,
                bytes: Arc::new(bytes),
            });
        }
        read::whole_file(path)
    }

    /// The object a FILE argument names, whole only when its first bytes
    /// show a format sylcol decodes within its size limits (`-` and other
    /// non-files are read whole, up to [`super::MAX_STREAM`]: their size is
    /// unknown before they end). A whole archive is refused: it is not one
    /// object.
    pub fn object(&self, path: &str) -> Result<Item, SourceError> {
        if let Some((pak, inner)) = split_archive_path(path) {
            let archive = self.archive(pak)?;
            let (info, name) = probe(&archive, pak, find_inner(&archive, pak, inner)?)?;
            return read_entry_object(&archive, pak, &info, name, false);
        }
        if is_archive(path) {
            return Err(UsageError(format!(
                "{path}: an IPFB archive index, not one object: name an entry as {path}+INNER (`sylcol pak list` shows them)"
            ))
            .into());
        }
        if let Some(hint) = part_hint(path) {
            return Err(hint.into());
        }
        read::sniffed_file(path)
    }

    /// Every object a FILE argument holds: each entry of a whole archive
    /// (in index order), or the one object [`Opener::object`] reads.
    pub fn objects(&self, path: &str) -> Result<Objects, SourceError> {
        if split_archive_path(path).is_none() && is_archive(path) {
            return Ok(Objects::of_archive(path, self.archive(path)?));
        }
        Ok(Objects::Single(Some(self.object(path))))
    }
}

/// Entry INNER of archive `pak`.
fn find_inner<'a>(
    archive: &'a Archive,
    pak: &str,
    inner: &str,
) -> Result<&'a IndexEntry, SourceError> {
    let hash = inner_hash(inner);
    Ok(archive.index.find(hash).ok_or_else(|| NotFound {
        path: pak.to_string(),
        detail: format!("no entry {inner} (hash {hash:08X}) in the archive"),
    })?)
}

/// Probes `entry`: its header, and its name as `PAK+ENTRY`.
fn probe(
    archive: &Archive,
    pak: &str,
    entry: &IndexEntry,
) -> Result<(EntryInfo, String), SourceError> {
    let info = archive.probe(entry).map_err(|error| SourceError::Archive {
        pak: pak.to_string(),
        error: Box::new(error),
    })?;
    let name = format!("{pak}+{}", info.display);
    Ok((info, name))
}

/// Reads a probed entry whole, or only its head when it is not admitted;
/// `check_rest` then still inflates a Z1 entry of another format into
/// nothing to check it (an archive walk reports every unreadable entry; a
/// single named object of another format is refused without that wait).
fn read_entry_object(
    archive: &Archive,
    pak: &str,
    info: &EntryInfo,
    name: String,
    check_rest: bool,
) -> Result<Item, SourceError> {
    let read = archive
        .read_object(info, check_rest)
        .map_err(|error| SourceError::Archive {
            pak: pak.to_string(),
            error: Box::new(error),
        })?;
    Ok(Item::of(name, read))
}

/// An iterator over the objects of a FILE argument; see
/// [`Opener::objects`].
pub enum Objects {
    /// A plain file or one archive entry.
    Single(Option<Result<Item, SourceError>>),
    /// The entries of a whole archive.
    Archive {
        /// The archive path as given.
        pak: String,
        /// The open archive (its index problems are in `archive.index.problems`).
        archive: Box<Archive>,
        /// The next entry to read.
        next: usize,
        /// What was read of streams that several rows point at.
        streams: Streams,
        /// Parts the index points into that are not beside it, each
        /// reported once (as the first of its entries is reached) and
        /// then no longer said (their other entries are passed over).
        missing: Vec<MissingPart>,
    },
}

impl Objects {
    /// Every entry of `archive`, opened from `pak`.
    pub(super) fn of_archive(pak: &str, archive: Archive) -> Objects {
        Objects::Archive {
            pak: pak.to_string(),
            streams: Streams::of(archive.entries()),
            missing: missing_parts(&archive),
            archive: Box::new(archive),
            next: 0,
        }
    }

    /// The archive being walked, if the FILE was one.
    pub fn archive(&self) -> Option<&Archive> {
        match self {
            Objects::Archive { archive, .. } => Some(archive),
            Objects::Single(_) => None,
        }
    }
}

impl Iterator for Objects {
    type Item = Result<Item, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Objects::Single(one) => one.take(),
            Objects::Archive {
                pak,
                archive,
                next,
                streams,
                missing,
            } => {
                let entry = loop {
                    let entry = *archive.entries().get(*next)?;
                    *next += 1;
                    let Some(i) = missing.iter().position(|m| m.part == entry.part) else {
                        break entry;
                    };
                    streams.read(&entry, None);
                    if missing[i].entries > 0 {
                        let error = missing[i].error(pak, archive);
                        missing[i].entries = 0;
                        return Some(Err(error.into()));
                    }
                };
                let (info, name) = match probe(archive, pak, &entry) {
                    Ok(probed) => probed,
                    Err(e) => {
                        streams.read(&entry, None);
                        return Some(Err(e));
                    }
                };
                if let Some(item) = streams.earlier(&entry, &name) {
                    return Some(Ok(item));
                }
                let item = read_entry_object(archive, pak, &info, name, true);
                streams.read(&entry, item.as_ref().ok());
                Some(item)
            }
        }
    }
}
