//! Reading an archive: the index, its part files, and entries as streams.
//!
//! Nothing here holds more than one buffer of an entry in memory unless the
//! caller asks for the whole entry ([`Archive::read_entry`]). Every entry is
//! checked against its part file's length before anything is read.
//!
//! An archive is opened from disk ([`Archive::open`]: the parts found
//! beside the index) or from bytes already in memory
//! ([`Archive::from_memory`]: files a browser page was given); either way
//! entries are read, checked and named the same, with the same errors.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use zerocopy::FromBytes;

use crate::any::AnyError;
use crate::budget::{self, Filling, OutOfMemory};
use crate::bytes::printable_magic;
use crate::error::{DecodeError, DecodeErrorKind};

use super::index::{Index, IndexEntry};
use super::names::{NameBook, unknown_display};
use super::raw::IndexHeaderRaw;
use super::z1::{Z1_PREFIX_SIZE, Z1Header, Z1Reader, into_decode_error, is_z1};
use super::{ENTRY_SIZE, HEADER_SIZE, MAX_PARTS, part_file_name, part_number};

/// Read buffer per open entry.
const BUFFER: usize = 256 * 1024;
/// Read buffer for probing: the header and the first payload bytes.
const PROBE_BUFFER: usize = 4 * 1024;

/// Why an archive or one of its entries could not be read. Each message is
/// whole (the OS error included), so no variant has an error `source()`
/// that a chain printer would repeat.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// A file could not be opened or read.
    #[error("{}: cannot read: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: io::Error,
    },
    /// The index header is unusable.
    #[error("{}: {error}", path.display())]
    Index {
        /// The index file.
        path: PathBuf,
        /// The broken invariant.
        error: DecodeError,
    },
    /// One entry breaks an invariant; `error.offset` is in `file`.
    #[error("entry {entry} ({file} at byte {:#x}): {}", error.offset, error.kind)]
    Entry {
        /// The entry's name.
        entry: String,
        /// The file its bytes are in.
        file: String,
        /// The broken invariant (its offset in `file`).
        error: DecodeError,
    },
    /// The memory to hold an entry could not be had (an error, where an
    /// infallible allocation would abort the process).
    #[error("entry {entry} ({file}): {error}")]
    OutOfMemory {
        /// The entry's name.
        entry: String,
        /// The file its bytes are in.
        file: String,
        /// The allocation that failed.
        error: OutOfMemory,
    },
    /// Writing an entry's bytes out failed.
    #[error("entry {entry}: cannot write: {cause}")]
    Write {
        /// The entry's name.
        entry: String,
        /// What the system said.
        cause: io::Error,
    },
    /// The index cannot be read because a build of this archive was killed
    /// between its renames: its journal says where each file is, and
    /// [`sylcol_atomic::recover`] (`sylcol pak recover FOLDER`) puts the
    /// earlier archive back, or finishes the build if every new file was
    /// in place.
    #[error(
        "{}: a sylcol that was killed (pid {pid}) was replacing this archive and left it half-replaced; run `sylcol pak recover {}` to put the earlier archive back (or finish the build if it was done); its journal is {}",
        path.display(),
        sylcol_atomic::folder_of(path).display(),
        journal.display()
    )]
    Interrupted {
        /// The archive's index file.
        path: PathBuf,
        /// The process that was replacing it.
        pid: u32,
        /// Its journal of the renames.
        journal: PathBuf,
    },
}

/// What probing an entry found: its name, compression and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// The index entry.
    pub entry: IndexEntry,
    /// Known name, if the dictionary has the hash.
    pub name: Option<String>,
    /// Name or `$XXXXXXXX[.MAGIC]`.
    pub display: String,
    /// Whether the entry is Z1-compressed.
    pub compressed: bool,
    /// Uncompressed size (declared by the Z1 header for compressed entries).
    pub size: u64,
    /// The payload's first four bytes when printable.
    pub magic: Option<String>,
    z1: Option<Z1Header>,
}

/// One part file found next to the index (or given with it in memory).
#[derive(Debug, Clone)]
struct Part {
    path: PathBuf,
    len: u64,
    /// The part's bytes, when the archive was opened from memory.
    bytes: Option<Arc<[u8]>>,
}

/// An opened archive: index parsed, part files located.
#[derive(Debug)]
pub struct Archive {
    path: PathBuf,
    stem: String,
    /// The parsed index (entries and non-fatal problems).
    pub index: Index,
    /// Names used for display.
    pub names: NameBook,
    parts: Vec<Option<Part>>,
}

impl Archive {
    /// Opens `<base>.pak` and finds `<base>.pNN` next to it (any letter case).
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        let io_err = |cause| ArchiveError::Io {
            path: path.to_path_buf(),
            cause,
        };
        let data = read_index_bytes(path).map_err(|cause| {
            match sylcol_atomic::interrupted_replacing(path) {
                Some(i) => ArchiveError::Interrupted {
                    path: path.to_path_buf(),
                    pid: i.pid,
                    journal: i.journal,
                },
                None => io_err(cause),
            }
        })?;
        let mut archive = Archive::with_index(path, &data)?;
        archive.parts = find_parts(path, &archive.stem).map_err(io_err)?;
        Ok(archive)
    }

    /// The archive whose index file `path` holds `data`, no part found yet.
    fn with_index(path: &Path, data: &[u8]) -> Result<Archive, ArchiveError> {
        let index = Index::parse(data).map_err(|error| ArchiveError::Index {
            path: path.to_path_buf(),
            error,
        })?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Archive {
            path: path.to_path_buf(),
            stem,
            index,
            names: NameBook::builtin(),
            parts: vec![None; MAX_PARTS],
        })
    }

    /// An archive whose index and parts are already in memory (a browser
    /// page's dropped files): `path` names the index in messages
    /// (`MiscBin.pak`), `parts` are the other files given with it, by file
    /// name; those named `<stem>.pNN` (any letter case) are its parts, the
    /// rest are passed over. The index is read as [`Archive::open`] reads
    /// it (the header and at most the entries its count declares), and
    /// every entry is then checked, read and named as from disk: a part
    /// not given is "missing next to" the index.
    pub fn from_memory(
        path: &Path,
        index: &[u8],
        parts: &[(String, Arc<[u8]>)],
    ) -> Result<Archive, ArchiveError> {
        let declared =
            IndexHeaderRaw::read_from_bytes(index.get(..HEADER_SIZE as usize).unwrap_or(index))
                .map_or(0, |h| u64::from(h.count.get()) * ENTRY_SIZE);
        let end = usize::try_from(HEADER_SIZE + declared).unwrap_or(usize::MAX);
        let mut archive = Archive::with_index(path, &index[..end.min(index.len())])?;
        for (name, bytes) in parts {
            if let Some(n) = part_number(&archive.stem, name)
                && archive.parts[usize::from(n)].is_none()
            {
                archive.parts[usize::from(n)] = Some(Part {
                    path: sylcol_atomic::folder_of(path).join(name),
                    len: bytes.len() as u64,
                    bytes: Some(bytes.clone()),
                });
            }
        }
        Ok(archive)
    }

    /// The index file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The files the archive reads: the index, then each part found.
    pub fn files(&self) -> Vec<&Path> {
        let parts = self.parts.iter().flatten().map(|p| p.path.as_path());
        std::iter::once(self.path.as_path()).chain(parts).collect()
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.index.entries
    }

    /// The file name part `n` has (found on disk) or would have.
    pub fn part_name(&self, n: u8) -> String {
        match self.parts.get(usize::from(n)).and_then(Option::as_ref) {
            Some(p) => p
                .path
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
            None => part_file_name(&self.stem, n),
        }
    }

    /// Part `n`'s file as found beside the index, and its length then.
    pub fn part_file(&self, n: u8) -> Option<(&Path, u64)> {
        let part = self.parts.get(usize::from(n))?.as_ref()?;
        Some((part.path.as_path(), part.len))
    }

    /// The stored bytes of `e` as they are in its part (compressed or
    /// not), checked to lie inside the part; a part that ends early while
    /// they are read is an error, never a short read.
    pub fn stored_bytes(&self, e: &IndexEntry) -> Result<BufReader<StoredBytes>, ArchiveError> {
        let display = self.short_display(e);
        self.stored(e, &display, 0, BUFFER)
    }

    /// The index file's bytes after the entries listed (a zero-hash slot
    /// and whatever follows it, bytes past the declared table included),
    /// read anew from the file; more than `limit` of them is an error.
    pub fn index_tail(&self, limit: u64) -> Result<Vec<u8>, ArchiveError> {
        let io_err = |cause| ArchiveError::Io {
            path: self.path.clone(),
            cause,
        };
        let mut f = File::open(&self.path).map_err(io_err)?;
        let start = HEADER_SIZE + self.index.entries.len() as u64 * ENTRY_SIZE;
        f.seek(SeekFrom::Start(start)).map_err(io_err)?;
        let mut tail = Vec::new();
        f.take(limit + 1).read_to_end(&mut tail).map_err(io_err)?;
        if tail.len() as u64 > limit {
            return Err(io_err(io::Error::other(format!(
                "more than {limit} bytes follow the entry table at {start:#x}"
            ))));
        }
        Ok(tail)
    }

    /// Name or `$XXXXXXXX`, for messages before the magic is known.
    pub fn short_display(&self, e: &IndexEntry) -> String {
        self.names.display(e.hash, None)
    }

    fn entry_error(&self, e: &IndexEntry, display: &str, error: DecodeError) -> ArchiveError {
        ArchiveError::Entry {
            entry: display.to_string(),
            file: self.part_name(e.part),
            error,
        }
    }

    /// The part file holding `e`, checked to contain the whole entry.
    fn part_of(&self, e: &IndexEntry, display: &str) -> Result<&Part, ArchiveError> {
        let offset = u64::from(e.offset);
        let Some(part) = self.parts.get(usize::from(e.part)).and_then(Option::as_ref) else {
            return Err(self.entry_error(
                e,
                display,
                DecodeError::new(
                    offset,
                    DecodeErrorKind::PartFilePresent {
                        part: e.part,
                        file: part_file_name(&self.stem, e.part),
                        archive: self.path.display().to_string(),
                    },
                ),
            ));
        };
        let available = part.len.saturating_sub(offset);
        if u64::from(e.stored_size) > available {
            return Err(self.entry_error(
                e,
                display,
                DecodeError::new(
                    offset,
                    DecodeErrorKind::Truncated {
                        what: "entry (it runs past the end of its part)",
                        needed: u64::from(e.stored_size),
                        available,
                    },
                ),
            ));
        }
        Ok(part)
    }

    /// Opens the stored bytes of `e` from `skip` on, bounded to the entry,
    /// read through a `buffer`-byte buffer.
    fn stored(
        &self,
        e: &IndexEntry,
        display: &str,
        skip: u64,
        buffer: usize,
    ) -> Result<BufReader<StoredBytes>, ArchiveError> {
        let part = self.part_of(e, display)?;
        let io_err = |cause| ArchiveError::Io {
            path: part.path.clone(),
            cause,
        };
        let at = u64::from(e.offset) + skip;
        let file = match &part.bytes {
            Some(bytes) => {
                let mut cursor = Cursor::new(bytes.clone());
                cursor.set_position(at);
                Source::Memory(cursor)
            }
            None => {
                let mut file = File::open(&part.path).map_err(io_err)?;
                file.seek(SeekFrom::Start(at)).map_err(io_err)?;
                Source::File(file)
            }
        };
        let left = u64::from(e.stored_size).saturating_sub(skip);
        Ok(BufReader::with_capacity(
            buffer,
            StoredBytes { file, at, left },
        ))
    }

    /// Reads an entry's header: compression, size, magic and display name.
    pub fn probe(&self, e: &IndexEntry) -> Result<EntryInfo, ArchiveError> {
        let display = self.short_display(e);
        let mut r = self.stored(e, &display, 0, PROBE_BUFFER)?;
        let mut prefix = Vec::with_capacity(Z1_PREFIX_SIZE as usize);
        (&mut r)
            .take(Z1_PREFIX_SIZE)
            .read_to_end(&mut prefix)
            .map_err(|source| self.read_error(e, &display, source))?;
        let stored = u64::from(e.stored_size);
        let base = u64::from(e.offset);
        let (z1, size, magic) = if is_z1(&prefix) {
            let header = Z1Header::parse(&prefix, stored)
                .map_err(|d| self.entry_error(e, &display, d.shifted(base)))?;
            let mut head = Vec::with_capacity(4);
            Z1Reader::new(r, header, base)
                .take(4)
                .read_to_end(&mut head)
                .map_err(|source| self.read_error(e, &display, source))?;
            (
                Some(header),
                u64::from(header.size),
                printable_magic(&head, 0),
            )
        } else {
            (None, stored, printable_magic(&prefix, 0))
        };
        let name = self.names.get(e.hash).map(str::to_string);
        let display = name
            .clone()
            .unwrap_or_else(|| unknown_display(e.hash, magic.as_deref()));
        Ok(EntryInfo {
            entry: *e,
            name,
            display,
            compressed: z1.is_some(),
            size,
            magic,
            z1,
        })
    }

    fn read_error(&self, e: &IndexEntry, display: &str, source: io::Error) -> ArchiveError {
        if let Some(error) = OutOfMemory::in_io(&source) {
            return self.out_of_memory(e, display, error);
        }
        if source.get_ref().is_some_and(|i| i.is::<DecodeError>()) {
            return self.entry_error(e, display, into_decode_error(source));
        }
        ArchiveError::Io {
            path: self.parts[usize::from(e.part)]
                .as_ref()
                .map_or_else(|| self.path.clone(), |p| p.path.clone()),
            cause: source,
        }
    }

    /// Opens a probed entry as a stream of its uncompressed bytes.
    pub fn open_entry(&self, info: &EntryInfo) -> Result<EntryReader, ArchiveError> {
        let e = &info.entry;
        Ok(match info.z1 {
            Some(header) => {
                let r = self.stored(e, &info.display, Z1_PREFIX_SIZE, BUFFER)?;
                EntryReader::Z1(Box::new(Z1Reader::new(r, header, u64::from(e.offset))))
            }
            None => EntryReader::Stored(self.stored(e, &info.display, 0, BUFFER)?),
        })
    }

    /// Streams a probed entry into `out`; returns the bytes written. All
    /// checks (declared size, both Adler-32 values) pass before it returns Ok.
    pub fn copy_entry(&self, info: &EntryInfo, out: &mut dyn Write) -> Result<u64, ArchiveError> {
        let mut r = self.open_entry(info)?;
        self.pump(info, &mut r, out)
    }

    /// Copies the rest of `r` (entry `info`) into `out`.
    fn pump(
        &self,
        info: &EntryInfo,
        r: &mut EntryReader,
        out: &mut dyn Write,
    ) -> Result<u64, ArchiveError> {
        let mut buf = vec![0u8; BUFFER];
        let mut total = 0u64;
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => return Ok(total),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(self.read_error(&info.entry, &info.display, source)),
            };
            out.write_all(&buf[..n])
                .map_err(|cause| ArchiveError::Write {
                    entry: info.display.clone(),
                    cause,
                })?;
            total += n as u64;
        }
    }

    fn out_of_memory(&self, e: &IndexEntry, display: &str, error: OutOfMemory) -> ArchiveError {
        ArchiveError::OutOfMemory {
            entry: display.to_string(),
            file: self.part_name(e.part),
            error,
        }
    }

    /// Reads a whole entry into memory (checked like [`Archive::copy_entry`]),
    /// whatever it holds: its declared size is reserved with `try_reserve`,
    /// so memory that cannot be had is [`ArchiveError::OutOfMemory`]. An
    /// entry to be decoded is read with [`Archive::read_object`].
    pub fn read_entry(&self, info: &EntryInfo) -> Result<Vec<u8>, ArchiveError> {
        let mut out = budget::buffer(info.size)
            .map_err(|error| self.out_of_memory(&info.entry, &info.display, error))?;
        let mut r = self.open_entry(info)?;
        match self.pump(info, &mut r, &mut Filling(&mut out)) {
            Err(ArchiveError::Write { cause, .. }) => {
                Err(self.read_error(&info.entry, &info.display, cause))
            }
            other => other.map(|_| out),
        }
    }

    /// Every entry whose payload starts with `magic` (as [`EntryInfo::magic`]
    /// shows it), probed and read whole, in index order; an entry that
    /// cannot be probed or read is its error, in its place.
    pub fn read_with_magic<'a>(
        &'a self,
        magic: &'a str,
    ) -> impl Iterator<Item = Result<(EntryInfo, Vec<u8>), ArchiveError>> + 'a {
        self.entries().iter().filter_map(move |e| {
            let info = match self.probe(e) {
                Ok(info) => info,
                Err(err) => return Some(Err(err)),
            };
            (info.magic.as_deref() == Some(magic))
                .then(|| self.read_entry(&info).map(|bytes| (info, bytes)))
        })
    }

    /// Reads an entry to be decoded, as [`budget::read_object`] reads an
    /// object: its first bytes, then the rest only when
    /// [`budget::admit`] says yes (a format sylcol decodes, within its
    /// size bound and the budget), into memory reserved with
    /// `try_reserve`. `Ok(Err(why))`: the rest is never held; with
    /// `check_rest` a Z1 entry of no format sylcol decodes is still
    /// inflated through a fixed buffer into nothing, so its size and both
    /// Adler-32 values are checked (a raw entry has nothing to check; an
    /// entry too large to read is not inflated at all).
    pub fn read_object(
        &self,
        info: &EntryInfo,
        check_rest: bool,
    ) -> Result<Result<Vec<u8>, AnyError>, ArchiveError> {
        let judge = |head: &[u8]| budget::admit(head, info.size);
        let check = |why: &AnyError| check_rest && matches!(why, AnyError::Unrecognised { .. });
        self.read_if(info, crate::SNIFF_LEN, judge, check)
    }

    /// Reads an entry's first `head_len` bytes (or all, if fewer) and lets
    /// `judge` decide from them. `Ok(())`: the whole entry is read into
    /// memory reserved as [`budget::object_buffer`] reserves it, and
    /// returned. `Err(why)`: the rest is never held, `why` is returned,
    /// and with `check_rest` a Z1 entry is inflated through a fixed buffer
    /// into nothing, so its size and both Adler-32 values are still
    /// checked (a raw entry has nothing to check).
    pub fn read_entry_if<T>(
        &self,
        info: &EntryInfo,
        head_len: usize,
        judge: impl FnOnce(&[u8]) -> Result<(), T>,
        check_rest: bool,
    ) -> Result<Result<Vec<u8>, T>, ArchiveError> {
        self.read_if(info, head_len, judge, |_| check_rest)
    }

    fn read_if<T>(
        &self,
        info: &EntryInfo,
        head_len: usize,
        judge: impl FnOnce(&[u8]) -> Result<(), T>,
        check_rest: impl FnOnce(&T) -> bool,
    ) -> Result<Result<Vec<u8>, T>, ArchiveError> {
        let mut r = self.open_entry(info)?;
        let read = budget::read_if(&mut r, info.size, head_len, judge)
            .map_err(|source| self.read_error(&info.entry, &info.display, source))?;
        if let Err(why) = &read
            && info.compressed
            && check_rest(why)
        {
            self.pump(info, &mut r, &mut io::sink())?;
        }
        Ok(read)
    }
}

/// The stored bytes of one entry: at most `left` bytes of its part file
/// from `at`. A part file that ends first (it shrank, or was replaced,
/// after the archive was opened) is an error, a [`DecodeError`] at the
/// offset where the bytes stopped, never a short entry.
pub struct StoredBytes {
    file: Source,
    at: u64,
    left: u64,
}

/// Where a part's bytes are read from.
enum Source {
    /// The part file on disk.
    File(File),
    /// The part's bytes in memory ([`Archive::from_memory`]).
    Memory(Cursor<Arc<[u8]>>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(f) => f.read(buf),
            Source::Memory(c) => c.read(buf),
        }
    }
}

impl Read for StoredBytes {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let room = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = self.file.read(&mut buf[..room])?;
        if n == 0 {
            let kind = DecodeErrorKind::Truncated {
                what: "rest of the entry (its part file ended while it was read)",
                needed: self.left,
                available: 0,
            };
            let error = DecodeError::new(self.at, kind);
            return Err(io::Error::new(io::ErrorKind::InvalidData, error));
        }
        self.at += n as u64;
        self.left -= n as u64;
        Ok(n)
    }
}

/// The uncompressed bytes of one entry, as a stream.
pub enum EntryReader {
    /// A raw entry: the stored bytes.
    Stored(BufReader<StoredBytes>),
    /// A Z1 entry, inflated with checks.
    Z1(Box<Z1Reader<BufReader<StoredBytes>>>),
}

impl Read for EntryReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            EntryReader::Stored(r) => r.read(buf),
            EntryReader::Z1(r) => r.read(buf),
        }
    }
}

/// Splits the game's `ARCHIVE.pak+INNER` notation into its two halves
/// (`None` for a plain path, including an existing file whose name happens
/// to contain `.pak+`). The `.pak` is matched in any letter case.
pub fn split_archive_path(path: &str) -> Option<(&str, &str)> {
    let at = path.to_ascii_lowercase().find(".pak+")?;
    if Path::new(path).is_file() {
        return None;
    }
    Some((&path[..at + 4], &path[at + 5..]))
}

/// Reads the index header and at most the entry table its count declares
/// (a huge file behind a small count is not read whole).
fn read_index_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = File::open(path)?;
    let mut data = Vec::with_capacity(HEADER_SIZE as usize);
    (&mut f).take(HEADER_SIZE).read_to_end(&mut data)?;
    if let Ok(header) = IndexHeaderRaw::read_from_bytes(&data) {
        // read_to_end grows with the bytes actually there, not with the count.
        f.take(u64::from(header.count.get()) * ENTRY_SIZE)
            .read_to_end(&mut data)?;
    }
    Ok(data)
}

/// Finds `<stem>.p00` .. `<stem>.p15` in the index's folder, ignoring case.
fn find_parts(index: &Path, stem: &str) -> io::Result<Vec<Option<Part>>> {
    let dir = sylcol_atomic::folder_of(index);
    let mut parts = vec![None; MAX_PARTS];
    for item in std::fs::read_dir(dir)? {
        let item = item?;
        let Some(n) = part_number(stem, &item.file_name().to_string_lossy()) else {
            continue;
        };
        let meta = item.metadata()?;
        if meta.is_file() && parts[usize::from(n)].is_none() {
            parts[usize::from(n)] = Some(Part {
                path: item.path(),
                len: meta.len(),
                bytes: None,
            });
        }
    }
    Ok(parts)
}
