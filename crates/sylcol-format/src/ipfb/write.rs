//! Writing an archive: entries streamed into parts, the index written last.
//!
//! Entries go into `<base>.p00`, `<base>.p01`, ... in the order they are
//! added, each on a 2048-byte boundary; a part is closed when the next entry
//! would end past the part limit. The index lists them sorted by hash. All
//! files are written under temporary names ([`crate::atomic`]) and renamed when
//! `finish` succeeds; parts of an earlier archive of the same name that the
//! new index does not use are then removed.

use std::collections::HashMap;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::atomic::TempFile;
use crate::bytes::align_up;
use crate::error::EncodeError;

use super::index::{Index, IndexEntry};
use super::names::{make_entry_id, normalise_inner, unknown_display};
use super::z1::{compress, is_z1};
use super::{ALIGNMENT, MAX_PARTS, PART_SIZE, part_file_name, part_number};

/// How an entry is named in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKey {
    /// An inner name, hashed with MakeEntryID (`/` read as `\`).
    Name(String),
    /// A hash used as is (an entry whose name is unknown).
    Hash(u32),
}

impl EntryKey {
    /// The index hash.
    pub fn hash(&self) -> u32 {
        match self {
            EntryKey::Name(n) => make_entry_id(&normalise_inner(n)),
            EntryKey::Hash(h) => *h,
        }
    }

    /// The key as messages show it.
    pub fn display(&self) -> String {
        match self {
            EntryKey::Name(n) => n.clone(),
            EntryKey::Hash(h) => unknown_display(*h, None),
        }
    }
}

/// One entry for [`build_archive`].
#[derive(Debug, Clone)]
pub struct NewEntry {
    /// Name or hash.
    pub key: EntryKey,
    /// Uncompressed bytes.
    pub bytes: Vec<u8>,
    /// Store as Z1 (true) or raw (false).
    pub compress: bool,
}

impl NewEntry {
    /// An entry named `name` (hashed with MakeEntryID, `/` read as `\`).
    pub fn named(name: &str, bytes: Vec<u8>, compress: bool) -> NewEntry {
        NewEntry {
            key: EntryKey::Name(name.to_string()),
            bytes,
            compress,
        }
    }

    /// An entry known only by its hash.
    pub fn hashed(hash: u32, bytes: Vec<u8>, compress: bool) -> NewEntry {
        NewEntry {
            key: EntryKey::Hash(hash),
            bytes,
            compress,
        }
    }
}

/// Writer settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Largest part file in bytes (the format's limit, 0x10000000, by
    /// default; smaller values force splitting in tests).
    pub part_limit: u64,
    /// zlib level for Z1 entries (9, the game's `78 DA`, by default).
    pub level: u32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            part_limit: u64::from(PART_SIZE),
            level: 9,
        }
    }
}

/// Why an archive could not be written. Messages name the final files
/// (never a temporary one) and are whole: no variant has an error
/// `source()` that a chain printer would repeat.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A file could not be written.
    #[error("{}: cannot write: {cause}", path.display())]
    Io { path: PathBuf, cause: io::Error },
    /// Two entries hash alike; the index can hold only one.
    #[error("entries {first} and {second} have the same hash {hash:08X}")]
    DuplicateHash {
        hash: u32,
        first: String,
        second: String,
    },
    /// An entry cannot be encoded.
    #[error("entry {entry}: {error}")]
    Encode { entry: String, error: EncodeError },
}

/// What [`ArchiveWriter::finish`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The index entries, sorted by hash.
    pub entries: Vec<IndexEntry>,
    /// Part files of an earlier archive of the same name that this one does
    /// not use (`.p01` after a rebuild into one part): removed, since the
    /// new index no longer refers to them.
    pub stale_parts_removed: Vec<PathBuf>,
}

/// The part being written: its buffered temporary file and final path.
pub(super) struct OpenPart {
    pub(super) writer: BufWriter<TempFile>,
    pub(super) path: PathBuf,
}

/// Streams entries into part files; call [`ArchiveWriter::finish`] to write
/// the index and put the files in place. The folder of the index must
/// exist. Dropped before `finish`, it leaves no temporary file behind.
pub struct ArchiveWriter {
    pak_path: PathBuf,
    stem: String,
    pub(super) options: WriteOptions,
    part: Option<OpenPart>,
    part_number: u8,
    part_len: u64,
    /// Closed parts: temporary file and final path.
    closed: Vec<(TempFile, PathBuf)>,
    entries: Vec<IndexEntry>,
    seen: HashMap<u32, String>,
}

impl ArchiveWriter {
    /// Starts an archive whose index will be `pak_path` (parts beside it).
    pub fn create(pak_path: &Path, options: WriteOptions) -> ArchiveWriter {
        let stem = pak_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        ArchiveWriter {
            pak_path: pak_path.to_path_buf(),
            stem,
            options,
            part: None,
            part_number: 0,
            part_len: 0,
            closed: Vec::new(),
            entries: Vec::new(),
            seen: HashMap::new(),
        }
    }

    /// Adds an entry: Z1-compressed when `compress`, else raw. A raw entry
    /// starting with `Z1` would read back as compressed and is refused.
    pub fn add(
        &mut self,
        key: &EntryKey,
        bytes: &[u8],
        compress_it: bool,
    ) -> Result<IndexEntry, WriteError> {
        let hash = self.check_key(key)?;
        let encode_err = |error| encode_error(key, error);
        let compressed;
        let stored: &[u8] = if compress_it {
            compressed = compress(bytes, self.options.level).map_err(encode_err)?;
            &compressed
        } else if is_z1(bytes) {
            return Err(encode_err(EncodeError::Invalid(
                "a raw entry starting with \"Z1\" would read back as compressed; compress it"
                    .into(),
            )));
        } else {
            bytes
        };
        let stored_size = u32::try_from(stored.len()).map_err(|_| {
            encode_err(EncodeError::TooLarge {
                what: "stored size",
                value: stored.len() as u64,
                limit: u64::from(u32::MAX),
            })
        })?;
        let offset = self.place(stored.len() as u64, key)?;
        let part = self.pad_to(offset)?;
        part.writer
            .write_all(stored)
            .map_err(|cause| io_error(&part.path, cause))?;
        Ok(self.record(key, hash, offset, stored_size))
    }

    /// The hash of `key`, refused when an earlier entry has it or when it
    /// is zero (which ends an index).
    pub(super) fn check_key(&self, key: &EntryKey) -> Result<u32, WriteError> {
        let hash = key.hash();
        if let Some(first) = self.seen.get(&hash) {
            return Err(WriteError::DuplicateHash {
                hash,
                first: first.clone(),
                second: key.display(),
            });
        }
        if hash == 0 {
            return Err(encode_error(
                key,
                EncodeError::Invalid("hash 00000000 ends an index; no entry may have it".into()),
            ));
        }
        Ok(hash)
    }

    /// Records an entry written at `offset` of the current part.
    pub(super) fn record(
        &mut self,
        key: &EntryKey,
        hash: u32,
        offset: u64,
        stored_size: u32,
    ) -> IndexEntry {
        let entry = IndexEntry {
            slot: self.entries.len(),
            hash,
            part: self.part_number,
            offset: offset as u32,
            stored_size,
        };
        self.part_len = offset + u64::from(stored_size);
        self.entries.push(entry);
        self.seen.insert(hash, key.display());
        entry
    }

    /// Chooses the offset for `len` stored bytes of entry `key`, moving to
    /// a new part when the entry would end past the limit.
    pub(super) fn place(&mut self, len: u64, key: &EntryKey) -> Result<u64, WriteError> {
        let offset = align_up(self.part_len, u64::from(ALIGNMENT));
        if self.part.is_none() || offset == 0 || offset + len <= self.options.part_limit {
            return Ok(offset);
        }
        if usize::from(self.part_number) + 1 >= MAX_PARTS {
            return Err(WriteError::Encode {
                entry: key.display(),
                error: EncodeError::TooLarge {
                    what: "part count",
                    value: MAX_PARTS as u64 + 1,
                    limit: MAX_PARTS as u64,
                },
            });
        }
        self.close_part()?;
        self.part_number += 1;
        Ok(0)
    }

    /// The current part (opened if none is), zero-filled up to `offset`.
    pub(super) fn pad_to(&mut self, offset: u64) -> Result<&mut OpenPart, WriteError> {
        if self.part.is_none() {
            let path = self.final_path(&part_file_name(&self.stem, self.part_number));
            let file = TempFile::beside(&path).map_err(|cause| io_error(&path, cause))?;
            self.part = Some(OpenPart {
                writer: BufWriter::with_capacity(1 << 20, file),
                path,
            });
            self.part_len = 0;
        }
        let pad = offset - self.part_len;
        let part = self.part.as_mut().expect("part opened above");
        io::copy(&mut io::repeat(0).take(pad), &mut part.writer)
            .map_err(|cause| io_error(&part.path, cause))?;
        Ok(part)
    }

    fn close_part(&mut self) -> Result<(), WriteError> {
        if let Some(OpenPart { writer, path }) = self.part.take() {
            let file = writer
                .into_inner()
                .map_err(|e| io_error(&path, e.into_error()))?;
            self.closed.push((file, path));
        }
        Ok(())
    }

    fn final_path(&self, name: &str) -> PathBuf {
        self.pak_path.with_file_name(name)
    }

    /// Writes the index (sorted by hash), checks that no destination is a
    /// folder, renames every file into place (parts first, the index
    /// last) and removes the parts of an earlier
    /// archive of the same name that the new index does not use.
    pub fn finish(mut self) -> Result<Finished, WriteError> {
        self.close_part()?;
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by_key(|e| e.hash);
        for (slot, e) in entries.iter_mut().enumerate() {
            e.slot = slot;
        }
        let pak = self.pak_path.clone();
        let mut index = TempFile::beside(&pak).map_err(|cause| io_error(&pak, cause))?;
        index
            .write_all(&Index::encode(&entries))
            .map_err(|cause| io_error(&pak, cause))?;
        let parts_used = self.closed.len();
        self.closed.push((index, pak));
        for (_, dest) in &self.closed {
            check_replaceable(dest)?;
        }
        for (file, dest) in std::mem::take(&mut self.closed) {
            file.persist(&dest)
                .map_err(|cause| io_error(&dest, cause))?;
        }
        let stale_parts_removed = remove_stale_parts(&self.pak_path, &self.stem, parts_used)
            .map_err(|cause| io_error(&self.pak_path, cause))?;
        Ok(Finished {
            entries,
            stale_parts_removed,
        })
    }
}

/// Refuses a destination a rename cannot replace (a folder), so that
/// [`ArchiveWriter::finish`] finds it before it renames any file: a
/// failure then leaves the earlier archive's files as they were.
fn check_replaceable(path: &Path) -> Result<(), WriteError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Err(io_error(
            path,
            io::Error::new(io::ErrorKind::IsADirectory, "a folder has that name"),
        )),
        _ => Ok(()),
    }
}

pub(super) fn encode_error(key: &EntryKey, error: EncodeError) -> WriteError {
    WriteError::Encode {
        entry: key.display(),
        error,
    }
}

pub(super) fn io_error(path: &Path, cause: io::Error) -> WriteError {
    WriteError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// Removes `<stem>.pNN` (any letter case) beside `pak` for NN >= `used`.
fn remove_stale_parts(pak: &Path, stem: &str, used: usize) -> io::Result<Vec<PathBuf>> {
    let dir = match pak.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut removed = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name();
        let stale =
            part_number(stem, &name.to_string_lossy()).is_some_and(|n| usize::from(n) >= used);
        if stale && item.file_type()?.is_file() {
            std::fs::remove_file(item.path())?;
            removed.push(item.path());
        }
    }
    removed.sort();
    Ok(removed)
}

/// Writes an archive of `entries` (data in hash order) to `pak_path` and
/// its parts. Returns the index entries.
pub fn build_archive(
    pak_path: &Path,
    mut entries: Vec<NewEntry>,
    options: WriteOptions,
) -> Result<Vec<IndexEntry>, WriteError> {
    entries.sort_by_key(|e| e.key.hash());
    let mut writer = ArchiveWriter::create(pak_path, options);
    for e in &entries {
        writer.add(&e.key, &e.bytes, e.compress)?;
    }
    Ok(writer.finish()?.entries)
}
