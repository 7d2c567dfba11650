//! Writing an archive: entries streamed into parts, the index written last.
//!
//! Entries go into `<base>.p00`, `<base>.p01`, ... in the order they are
//! added, each on a 2048-byte boundary; a part is closed when the next entry
//! would end past the part limit. The index lists them sorted by hash. All
//! files are written under temporary names and renamed when `finish` succeeds.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::bytes::align_up;
use crate::error::EncodeError;

use super::index::{Index, IndexEntry};
use super::names::{make_entry_id, normalise_inner, unknown_display};
use super::z1::{compress, is_z1};
use super::{ALIGNMENT, MAX_PARTS, PART_SIZE, part_file_name};

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

/// Why an archive could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A file could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// Two entries hash alike; the index can hold only one.
    #[error("entries {first} and {second} have the same hash {hash:08X}")]
    DuplicateHash {
        hash: u32,
        first: String,
        second: String,
    },
    /// An entry cannot be encoded.
    #[error("entry {entry}: {source}")]
    Encode { entry: String, source: EncodeError },
}

/// Streams entries into part files; call [`ArchiveWriter::finish`] to write
/// the index and put the files in place.
pub struct ArchiveWriter {
    pak_path: PathBuf,
    stem: String,
    options: WriteOptions,
    part: Option<(BufWriter<File>, PathBuf)>,
    part_number: u8,
    part_len: u64,
    /// (temporary, final) paths of the files written so far.
    written: Vec<(PathBuf, PathBuf)>,
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
            written: Vec::new(),
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
        let hash = key.hash();
        let encode_err = |source| WriteError::Encode {
            entry: key.display(),
            source,
        };
        if let Some(first) = self.seen.get(&hash) {
            return Err(WriteError::DuplicateHash {
                hash,
                first: first.clone(),
                second: key.display(),
            });
        }
        if hash == 0 {
            return Err(encode_err(EncodeError::Invalid(
                "hash 00000000 ends an index; no entry may have it".into(),
            )));
        }
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
        let offset = self.place(stored.len() as u64).map_err(encode_err)?;
        self.write_at(offset, stored)?;
        let entry = IndexEntry {
            slot: self.entries.len(),
            hash,
            part: self.part_number,
            offset: offset as u32,
            stored_size,
        };
        self.entries.push(entry);
        self.seen.insert(hash, key.display());
        Ok(entry)
    }

    /// Chooses the offset for `len` stored bytes, moving to a new part when
    /// the entry would end past the limit.
    fn place(&mut self, len: u64) -> Result<u64, EncodeError> {
        let offset = align_up(self.part_len, u64::from(ALIGNMENT));
        if self.part.is_none() || offset == 0 || offset + len <= self.options.part_limit {
            return Ok(offset);
        }
        if usize::from(self.part_number) + 1 >= MAX_PARTS {
            return Err(EncodeError::TooLarge {
                what: "part count",
                value: MAX_PARTS as u64 + 1,
                limit: MAX_PARTS as u64,
            });
        }
        self.close_part()
            .map_err(|e| EncodeError::Invalid(e.to_string()))?;
        self.part_number += 1;
        Ok(0)
    }

    fn write_at(&mut self, offset: u64, stored: &[u8]) -> Result<(), WriteError> {
        if self.part.is_none() {
            let name = part_file_name(&self.stem, self.part_number);
            let path = self.temp_path(&name);
            let file = File::create(&path).map_err(|source| WriteError::Io {
                path: path.clone(),
                source,
            })?;
            self.written.push((path.clone(), self.final_path(&name)));
            self.part = Some((BufWriter::with_capacity(1 << 20, file), path));
            self.part_len = 0;
        }
        let (w, path) = self.part.as_mut().expect("part opened above");
        let pad = offset - self.part_len;
        let result = io::copy(&mut io::repeat(0).take(pad), w).and_then(|_| w.write_all(stored));
        result.map_err(|source| WriteError::Io {
            path: path.clone(),
            source,
        })?;
        self.part_len = offset + stored.len() as u64;
        Ok(())
    }

    fn close_part(&mut self) -> Result<(), WriteError> {
        if let Some((mut w, path)) = self.part.take() {
            w.flush()
                .map_err(|source| WriteError::Io { path, source })?;
        }
        Ok(())
    }

    fn temp_path(&self, name: &str) -> PathBuf {
        self.final_path(&format!(".{name}.sylcol-tmp-{}", std::process::id()))
    }

    fn final_path(&self, name: &str) -> PathBuf {
        self.pak_path.parent().unwrap_or(Path::new("")).join(name)
    }

    /// Writes the index (sorted by hash) and renames every file into place.
    /// Returns the index entries.
    pub fn finish(mut self) -> Result<Vec<IndexEntry>, WriteError> {
        self.close_part()?;
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by_key(|e| e.hash);
        for (slot, e) in entries.iter_mut().enumerate() {
            e.slot = slot;
        }
        let pak_name = self
            .pak_path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let index_tmp = self.temp_path(&pak_name);
        std::fs::write(&index_tmp, Index::encode(&entries)).map_err(|source| WriteError::Io {
            path: index_tmp.clone(),
            source,
        })?;
        self.written.push((index_tmp, self.pak_path.clone()));
        for (tmp, dest) in std::mem::take(&mut self.written) {
            std::fs::rename(&tmp, &dest).map_err(|source| WriteError::Io { path: dest, source })?;
        }
        Ok(entries)
    }
}

impl Drop for ArchiveWriter {
    fn drop(&mut self) {
        // An archive dropped before `finish` leaves no temporary files behind.
        for (tmp, _) in &self.written {
            let _ = std::fs::remove_file(tmp);
        }
    }
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
    writer.finish()
}
