//! Writing an archive: entries streamed into parts, the index written last.
//!
//! Entries go into `<base>.p00`, `<base>.p01`, ... in the order they are
//! added, each on a 2048-byte boundary; a part is closed when the next entry
//! would end past the part limit. The index lists them sorted by hash. All
//! files are written under temporary names ([`sylcol_atomic`]) and put in
//! place together by `finish` ([`replace_all`]): the earlier archive's files
//! are moved aside, the new ones renamed in (the index last), and if any
//! rename fails the earlier archive is put back. Parts of an earlier
//! archive of the same name that the new index does not use are then
//! removed.

use std::collections::HashMap;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::bytes::align_up;
use crate::error::EncodeError;
use sylcol_atomic::{ReplaceError, Step, TempFile, replace_all};

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
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: io::Error,
    },
    /// Two entries hash alike; the index can hold only one.
    #[error("entries {first} and {second} have the same hash {hash:08X}")]
    DuplicateHash {
        /// The hash.
        hash: u32,
        /// The one entry.
        first: String,
        /// The other.
        second: String,
    },
    /// An entry cannot be encoded.
    #[error("entry {entry}: {error}")]
    Encode {
        /// The entry's name.
        entry: String,
        /// Why it cannot.
        error: EncodeError,
    },
    /// A rename putting the files in place failed after others were done:
    /// the earlier archive was restored, or the message names the backup
    /// files that hold what could not be put back.
    #[error("{}", .0.describe("the previous archive"))]
    Replace(ReplaceError),
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
    /// Files it meant to remove once the new archive was in place but
    /// could not: a moved-aside copy of a replaced file, a stale part. No
    /// index uses them; the new archive is whole.
    pub left_behind: Vec<LeftBehind>,
}

/// A file [`ArchiveWriter::finish`] could not remove after the new archive
/// was in place: clutter, never a file the new archive needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftBehind {
    /// The file left.
    pub path: PathBuf,
    /// What it is and why it stayed, a sentence naming it.
    pub message: String,
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
            return Err(encode_err(EncodeError::RawEntryNotZ1));
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
            return Err(encode_error(key, EncodeError::HashNotZero));
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

    /// Writes the index (sorted by hash) and puts every file in place as
    /// one step ([`replace_all`]): a folder in the way stops it before any
    /// rename; then the earlier archive's files are moved aside (the index
    /// first) and the new ones renamed in (the index last), so a reader
    /// never finds a new index with earlier parts or the earlier index
    /// with new parts. A failed rename undoes the others and the error
    /// says the previous archive was restored (or names the backups that
    /// hold its files). Then the backups and the parts of the earlier
    /// archive that the new index does not use are removed; what cannot
    /// be is reported in [`Finished::left_behind`].
    pub fn finish(mut self) -> Result<Finished, WriteError> {
        self.close_part()?;
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by_key(|e| e.hash);
        for (slot, e) in entries.iter_mut().enumerate() {
            e.slot = slot;
        }
        let index = Index::encode(&entries);
        let parts = std::mem::take(&mut self.closed);
        let used = parts.len();
        commit(&self.pak_path, parts, used, &index, entries)
    }
}

/// Writes `index` beside the `parts` (temporary files, part 0 first) and
/// puts every file in place as one step ([`replace_all`], the index
/// last), then removes the parts of an earlier archive of that name that
/// the new one does not use (numbers `parts_used` and up). `entries` is
/// what the index lists.
pub(super) fn commit(
    pak: &Path,
    mut parts: Vec<(TempFile, PathBuf)>,
    parts_used: usize,
    index: &[u8],
    entries: Vec<IndexEntry>,
) -> Result<Finished, WriteError> {
    let mut file = TempFile::beside(pak).map_err(|cause| io_error(pak, cause))?;
    file.write_all(index)
        .map_err(|cause| io_error(pak, cause))?;
    // The index goes last: replace_all moves it aside first and renames
    // it in last.
    parts.push((file, pak.to_path_buf()));
    let backups_left = replace_all(parts).map_err(|e| {
        if e.step == Step::Prepare {
            io_error(&e.path, e.cause)
        } else {
            WriteError::Replace(e)
        }
    })?;
    let mut left_behind: Vec<LeftBehind> = backups_left
        .into_iter()
        .map(|b| LeftBehind {
            path: b.file().to_path_buf(),
            message: b.to_string(),
        })
        .collect();
    let stem = pak
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stale = remove_stale_parts(pak, &stem, parts_used);
    left_behind.extend(stale.left_behind);
    Ok(Finished {
        entries,
        stale_parts_removed: stale.removed,
        left_behind,
    })
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

/// What [`remove_stale_parts`] did.
#[derive(Default)]
struct StaleParts {
    removed: Vec<PathBuf>,
    left_behind: Vec<LeftBehind>,
}

/// Removes `<stem>.pNN` (any letter case) beside `pak` for NN >= `used`,
/// once the new archive is in place: a part that cannot be removed (or a
/// folder that cannot be listed) is left and reported, the rest go.
fn remove_stale_parts(pak: &Path, stem: &str, used: usize) -> StaleParts {
    let dir = sylcol_atomic::folder_of(pak);
    let mut done = StaleParts::default();
    let unlisted = |cause: io::Error| LeftBehind {
        path: dir.to_path_buf(),
        message: format!(
            "{}: cannot look for parts of the replaced archive that the new index does not use ({cause}); any such part is left",
            dir.display()
        ),
    };
    let items = match std::fs::read_dir(dir) {
        Ok(items) => items,
        Err(cause) => {
            done.left_behind.push(unlisted(cause));
            return done;
        }
    };
    for item in items {
        let item = match item {
            Ok(item) => item,
            Err(cause) => {
                done.left_behind.push(unlisted(cause));
                break;
            }
        };
        let name = item.file_name();
        let stale =
            part_number(stem, &name.to_string_lossy()).is_some_and(|n| usize::from(n) >= used);
        if !stale || !item.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = item.path();
        match sylcol_atomic::step().and_then(|()| std::fs::remove_file(&path)) {
            Ok(()) => done.removed.push(path),
            Err(cause) => done.left_behind.push(LeftBehind {
                message: format!(
                    "{}: a part of the replaced archive that the new index does not use could not be removed ({cause}); delete it",
                    path.display()
                ),
                path,
            }),
        }
    }
    done.removed.sort();
    done
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

#[cfg(test)]
mod tests {
    //! `finish` with a failure injected at each file operation in turn
    //! ([`sylcol_atomic::fault`]): the earlier archive stays byte for byte,
    //! or the new one is whole; no temporary or backup file is left unless
    //! reported.

    use std::collections::BTreeMap;

    use super::*;
    use sylcol_atomic::fault::{self, snapshot};
    use sylcol_atomic::{BACKUP_MARK, TEMP_MARK};

    /// `Test.pak` in `dir` with `n` raw entries of 5000 bytes (`seed`
    /// varies them): one part each under the 8 KiB part limit.
    fn write(dir: &Path, n: u8, seed: u8) -> Result<Finished, WriteError> {
        let options = WriteOptions {
            part_limit: 8192,
            level: 9,
        };
        let mut writer = ArchiveWriter::create(&dir.join("Test.pak"), options);
        for i in 0..n {
            let bytes: Vec<u8> = (0..5000u32).map(|k| (k % 251) as u8 ^ seed ^ i).collect();
            let key = EntryKey::Name(format!("e{i}.bin"));
            writer.add(&key, &bytes, false).unwrap();
        }
        writer.finish()
    }

    fn no_temporary_or_backup(files: &BTreeMap<String, Vec<u8>>) -> bool {
        !files
            .keys()
            .any(|n| n.contains(TEMP_MARK) || n.contains(BACKUP_MARK))
    }

    /// Rebuilds a 3-part archive into `parts` parts with step `n` failing.
    fn rebuild_failing_at(parts: u8, n: usize, new: &BTreeMap<String, Vec<u8>>) {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 3, 1).unwrap();
        let before = snapshot(dir.path());
        fault::plan(&[n]);
        let result = write(dir.path(), parts, 2);
        fault::plan(&[]);
        let after = snapshot(dir.path());
        match result {
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(after, before, "step {n}: {msg}");
                match e {
                    WriteError::Io { .. } => assert!(msg.contains(": cannot write: "), "{msg}"),
                    WriteError::Replace(r) => {
                        assert!(r.unrestored.is_empty(), "step {n}: {msg}");
                        assert!(
                            msg.ends_with("the previous archive was restored")
                                || msg.ends_with("the previous archive was not changed"),
                            "step {n}: {msg}"
                        );
                        assert!(!msg.contains(TEMP_MARK), "{msg}");
                    }
                    other => panic!("step {n}: {other}"),
                }
            }
            Ok(done) => {
                // Only a removal after the renames can have failed: a
                // backup or a stale part stays, reported.
                let [left] = &done.left_behind[..] else {
                    panic!("step {n}: {:?}", done.left_behind);
                };
                let mut rest = after.clone();
                let name = left.path.file_name().unwrap().to_string_lossy();
                let kept = rest
                    .remove(name.as_ref())
                    .expect("the file reported exists");
                if name.contains(BACKUP_MARK) {
                    assert!(before.values().any(|b| b == &kept), "an earlier file");
                } else if name.contains(sylcol_atomic::journal::JOURNAL_MARK) {
                    assert!(kept.starts_with(b"SYLJRNL2"), "the journal");
                } else {
                    assert_eq!(Some(&kept), before.get(name.as_ref()), "a stale part");
                }
                assert!(left.message.starts_with(&left.path.display().to_string()));
                assert_eq!(&rest, new, "step {n}: the new archive, whole");
            }
        }
    }

    fn rebuild_with_every_step_failing(parts: u8) {
        let reference = tempfile::tempdir().unwrap();
        write(reference.path(), 3, 1).unwrap();
        fault::plan(&[]);
        let done = write(reference.path(), parts, 2).unwrap();
        let steps = fault::taken();
        assert!(done.left_behind.is_empty());
        let new = snapshot(reference.path());
        assert!(no_temporary_or_backup(&new), "{:?}", new.keys());
        let expected: Vec<String> = (0..parts)
            .map(|p| format!("Test.p{p:02}"))
            .chain(["Test.pak".to_string()])
            .collect();
        assert_eq!(new.keys().cloned().collect::<Vec<_>>(), expected);
        for n in 0..steps {
            rebuild_failing_at(parts, n, &new);
        }
    }

    #[test]
    fn a_failure_at_any_step_into_fewer_parts_keeps_the_old_archive_or_the_whole_new_one() {
        rebuild_with_every_step_failing(1);
    }

    #[test]
    fn a_failure_at_any_step_into_more_parts_keeps_the_old_archive_or_the_whole_new_one() {
        rebuild_with_every_step_failing(5);
    }

    #[test]
    fn a_failure_at_any_step_into_as_many_parts_keeps_the_old_archive_or_the_whole_new_one() {
        rebuild_with_every_step_failing(3);
    }

    /// The index's rename fails, and so do two of the renames undoing
    /// the others: the error names the backups holding those old files.
    #[test]
    fn a_restore_that_fails_names_the_backups_holding_the_old_archive() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 3, 1).unwrap();
        let before = snapshot(dir.path());
        // Steps, files [p00, p01, p02, pak]: flushes 0-3; the journal 4;
        // moved aside: pak 5, p02 6, p01 7, p00 8; renamed in: p00 9,
        // p01 10, p02 11, pak 12 (fails); undone: p02 13, p01 14, p00 15
        // back to their temporary names, then the backups of p00 16
        // (fails), p01 17, p02 18, pak 19 (fails).
        fault::plan(&[12, 16, 19]);
        let err = write(dir.path(), 3, 2).unwrap_err();
        fault::plan(&[]);
        let WriteError::Replace(r) = &err else {
            panic!("{err}");
        };
        let held: Vec<(String, PathBuf)> = r
            .unrestored
            .iter()
            .map(|u| match u {
                sylcol_atomic::Unrestored::EarlierIn { path, backup, .. } => (
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    backup.clone(),
                ),
                other => panic!("{other}"),
            })
            .collect();
        let names: Vec<&str> = held.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Test.p00", "Test.pak"]);
        let msg = err.to_string();
        let pak = dir.path().join("Test.pak");
        assert!(
            msg.starts_with(&format!(
                "{}: cannot put the new file in place: injected failure at step 12; \
                 the previous archive could not be fully restored: the earlier {} is in {} \
                 (cannot rename it back: injected failure at step 16); the earlier {} is in {}",
                pak.display(),
                dir.path().join("Test.p00").display(),
                held[0].1.display(),
                pak.display(),
                held[1].1.display(),
            )),
            "{msg}"
        );
        for (name, backup) in &held {
            assert_eq!(&std::fs::read(backup).unwrap(), &before[name], "{name}");
        }
        let mut after = snapshot(dir.path());
        assert!(!after.keys().any(|n| n.contains(TEMP_MARK)), "no temporary");
        let journal = sylcol_atomic::journal::JOURNAL_MARK;
        let kept: Vec<String> = after
            .keys()
            .filter(|n| n.contains(journal))
            .cloned()
            .collect();
        assert_eq!(kept.len(), 1, "the journal stays for a later recovery");
        after.remove(&kept[0]);
        for (name, backup) in &held {
            let b = backup.file_name().unwrap().to_string_lossy().into_owned();
            let old = after.remove(&b).unwrap();
            after.insert(name.clone(), old);
        }
        assert_eq!(
            after, before,
            "every old file, under its name or a backup's"
        );
        // Once this process is gone, recovery finishes the undo: the
        // journal, named as a dead process's, is found and settled.
        let dead = kept[0].replace(&format!("-{}", std::process::id()), "-2147483646");
        std::fs::rename(dir.path().join(&kept[0]), dir.path().join(dead)).unwrap();
        let [r] = &sylcol_atomic::recover(dir.path())[..] else {
            panic!("one journal");
        };
        assert_eq!(
            r.settled,
            sylcol_atomic::Settled::RolledBack,
            "{:?}",
            r.problems
        );
        assert!(
            snapshot(dir.path()) == before,
            "the old archive, byte for byte"
        );
    }

    #[test]
    fn a_rebuild_leaves_no_backup_or_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 3, 1).unwrap();
        let done = write(dir.path(), 2, 2).unwrap();
        assert!(done.left_behind.is_empty());
        assert_eq!(done.stale_parts_removed, [dir.path().join("Test.p02")]);
        let names: Vec<String> = snapshot(dir.path()).into_keys().collect();
        assert_eq!(names, ["Test.p00", "Test.p01", "Test.pak"]);
    }
}
