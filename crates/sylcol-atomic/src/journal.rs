//! The record that lets a later run finish or undo a [`replace_all`](super::replace_all)
//! that was killed half-way (`SIGKILL`, a power cut): between moving the
//! first earlier file aside and the last new file in, a folder holds a
//! mix of earlier files, backups and new files, and only this record says
//! which is which.
//!
//! [`replace_all`](super::replace_all) writes it, flushed to disk, beside the last destination
//! (an archive's index) as `.NAME.sylcol-journal-PID` (mode `0600`) before
//! its first rename, and removes it when it is done (put in place, or
//! undone). A journal whose process is gone (or is this one, outside a
//! replacement: an earlier process had the same PID) is an interrupted
//! replacement: [`interrupted_in`] finds them, [`recover`](super::recover)
//! settles them.
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 8 | magic `SYLJRNL2` |
//! | 8 | 4 | file count `n`, u32 little-endian |
//! | 12 | ... | `n` records, in the order the files were given |
//! | end - 4 | 4 | CRC-32 (zlib's) of every byte before it, u32 LE |
//!
//! A record: flags (u8: bit 0, the destination had an earlier file, moved
//! to `backup`; bit 1, the new file's identity is known), the new file's
//! device, inode, size and modification time in nanoseconds (four u64 LE,
//! 0 when unknown), then `dest`, `temp` and `backup` (empty without an
//! earlier file), each a u32 LE length and that many bytes: bare file
//! names, read back against the folder the journal is found in (so a
//! folder moved after the crash is still recovered).
//!
//! **Trust.** Settling renames and removes files, so a journal is
//! honoured only when nothing but this user's sylcol can have written it.
//! Anything else is refused as a whole, and no file is touched:
//! - on Unix, the journal is a regular file (opened without following a
//!   link) owned by the effective user and not group- or world-writable;
//! - it is at most 1 MiB, starts with `SYLJRNL2` (a `SYLJRNL1` journal,
//!   from before the checksum, may name paths anywhere: refused) and its
//!   checksum matches;
//! - every name is a bare file name (no `/`, not `.` or `..`; on other
//!   systems no `\` or `:` either): nothing outside the journal's folder
//!   can be named;
//! - each `temp` is `.DEST.sylcol-tmp-PID` and each `backup`
//!   `.DEST.sylcol-old-PID[-N]` of its own `dest`, so recovery removes
//!   only files named as sylcol's temporary files and renames only files
//!   named as sylcol's backups, each over the destination it backs up;
//! - the last `dest` is the name the journal is named after, no `dest`
//!   is named twice, and (on Unix, where sylcol always records it) every
//!   record carries the new file's identity.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{
    BACKUP_MARK, LIVE, TEMP_MARK, file_name_of, folder_of, lock, marked_name, parse_marked_name,
    process_alive, step, sync_folder,
};
use crate::text::escape;

/// What sits between the last destination's name and the PID in a
/// journal's name.
pub const JOURNAL_MARK: &str = ".sylcol-journal-";

const MAGIC: &[u8; 8] = b"SYLJRNL2";
/// The first format: no checksum, and any path (absolute ones too).
const MAGIC_UNCHECKED: &[u8; 8] = b"SYLJRNL1";
const HAD_EARLIER: u8 = 1;
const ID_KNOWN: u8 = 2;
/// The flags, four u64 words and three empty names' lengths.
const RECORD_MIN: usize = 1 + 4 * 8 + 3 * 4;
/// No journal sylcol writes comes near this (a record is under 1 KiB);
/// a larger file is not read.
const MAX_LEN: usize = 1 << 20;

/// A file's identity: device and inode, with its size and modification
/// time (nanoseconds), which a rename keeps: an inode number freed and
/// reused by a later file is not taken for the file recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i64,
}

impl FileIdentity {
    /// The identity of an open file (`None` where the system has none).
    pub(super) fn of(file: &File) -> io::Result<Option<FileIdentity>> {
        Ok(Self::from_metadata(&file.metadata()?))
    }

    #[cfg(unix)]
    pub(super) fn from_metadata(m: &fs::Metadata) -> Option<FileIdentity> {
        use std::os::unix::fs::MetadataExt;
        Some(FileIdentity {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
        })
    }

    #[cfg(not(unix))]
    pub(super) fn from_metadata(_m: &fs::Metadata) -> Option<FileIdentity> {
        None
    }
}

/// One file of a replacement, as the journal records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Planned {
    /// Where the new file goes.
    pub dest: PathBuf,
    /// The new file's temporary name.
    pub temp: PathBuf,
    /// Where the earlier file is moved aside to (`None`: there was none).
    pub backup: Option<PathBuf>,
    /// The new file's identity, when known.
    pub id: Option<FileIdentity>,
}

/// The journal's path for a replacement whose last destination is `last`.
pub(super) fn journal_path(last: &Path) -> PathBuf {
    last.with_file_name(marked_name(&file_name_of(last), JOURNAL_MARK))
}

/// Writes the journal of `plan` to `path` ([`journal_path`] of its last
/// destination), flushed to disk with its folder's entries, before
/// anything is renamed. Every file of the plan must be in `path`'s
/// folder: a journal names nothing else.
pub(super) fn write(plan: &[Planned], path: &Path) -> io::Result<()> {
    let bytes = encode(plan, folder_of(path))?;
    step()?;
    let mut file = create_private(path).map_err(|e| match e.kind() {
        // Under the lock no journal of this process exists: this is
        // an earlier run's that had the same PID, and settling it now,
        // after the plan was made, could undo what the plan relies on.
        io::ErrorKind::AlreadyExists => io::Error::new(
            e.kind(),
            "a journal of an earlier run that had this PID is in the way; settle it first (`sylcol pak recover FOLDER`, or `atomic::recover`)",
        ),
        _ => e,
    })?;
    let written = file.write_all(&bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = fs::remove_file(path);
        return Err(e);
    }
    sync_folder(folder_of(path));
    Ok(())
}

/// Creates `path` new, readable and writable by its owner alone (on Unix
/// mode `0600` whatever the umask leaves: recovery refuses a journal
/// others may write).
fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Removes a settled journal.
pub(super) fn remove(path: &Path) -> io::Result<()> {
    step()?;
    fs::remove_file(path)
}

fn encode(plan: &[Planned], home: &Path) -> io::Result<Vec<u8>> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(plan.len() as u32).to_le_bytes());
    for p in plan {
        let flags = if p.backup.is_some() { HAD_EARLIER } else { 0 }
            | if p.id.is_some() { ID_KNOWN } else { 0 };
        out.push(flags);
        let id = p.id.unwrap_or(FileIdentity {
            dev: 0,
            ino: 0,
            len: 0,
            mtime_ns: 0,
        });
        for word in [id.dev, id.ino, id.len, id.mtime_ns as u64] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        let empty = PathBuf::new();
        for path in [&p.dest, &p.temp, p.backup.as_ref().unwrap_or(&empty)] {
            let stored = stored_name(path, home)?;
            out.extend_from_slice(&(stored.len() as u32).to_le_bytes());
            out.extend_from_slice(&stored);
        }
    }
    let sum = zlib_rs::crc32::crc32(0, &out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// A path's bytes as stored: its bare name, which must be in `home`.
fn stored_name(path: &Path, home: &Path) -> io::Result<Vec<u8>> {
    if path.as_os_str().is_empty() {
        return Ok(Vec::new());
    }
    match path.file_name() {
        Some(name) if folder_of(path) == home => Ok(path_bytes(Path::new(name))),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not in {}: a journal names only files of its own folder",
                path.display(),
                home.display()
            ),
        )),
    }
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn path_from(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Reads a journal found in `home`, named after the destination
/// `target`: its magic and checksum first, then every count and length
/// against the bytes before use, then every name (the module's "Trust").
fn decode(bytes: &[u8], home: &Path, target: &str) -> Result<Vec<Planned>, String> {
    match bytes.get(..8) {
        Some(m) if m == MAGIC => {}
        Some(m) if m == MAGIC_UNCHECKED => {
            return Err("it is in the first journal format (SYLJRNL1), which has no checksum and may name files anywhere".into());
        }
        _ => return Err("not a sylcol journal (no SYLJRNL2 magic at byte 0)".into()),
    }
    let Some(body_len) = bytes.len().checked_sub(4).filter(|&n| n >= 12) else {
        return Err(format!(
            "truncated: {} bytes, less than a journal's 16",
            bytes.len()
        ));
    };
    let (body, sum) = bytes.split_at(body_len);
    let stored = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
    let computed = zlib_rs::crc32::crc32(0, body);
    if stored != computed {
        return Err(format!(
            "its checksum at byte {body_len} is {stored:08x}, but its bytes give {computed:08x} (damaged, or not written by sylcol)"
        ));
    }
    let mut r = Reader { bytes: body, at: 8 };
    let count = r.u32()? as usize;
    // A record is at least 45 bytes: no count can claim more than fit.
    if count > r.left() / RECORD_MIN {
        return Err(format!(
            "{count} records claimed at byte 8, but {} bytes remain",
            r.left()
        ));
    }
    let mut plan: Vec<Planned> = Vec::with_capacity(count);
    let mut seen = HashSet::with_capacity(count);
    let mut last: &[u8] = &[];
    for n in 0..count {
        let record = Record::read(&mut r)?;
        let dest = record.check(n)?;
        if !seen.insert(dest) {
            return Err(format!("record {n} names {} a second time", shown(dest)));
        }
        last = dest;
        plan.push(record.planned(home));
    }
    if r.left() != 0 {
        return Err(format!(
            "{} bytes after the last record, before the checksum",
            r.left()
        ));
    }
    if last != target.as_bytes() {
        return Err(format!(
            "it is named after {target}, but its last file is {}",
            shown(last)
        ));
    }
    Ok(plan)
}

/// One record as stored, its names not yet checked.
struct Record<'a> {
    /// Where the record starts, for messages.
    at: usize,
    flags: u8,
    words: [u64; 4],
    dest: &'a [u8],
    temp: &'a [u8],
    backup: &'a [u8],
}

impl<'a> Record<'a> {
    fn read(r: &mut Reader<'a>) -> Result<Record<'a>, String> {
        let at = r.at;
        let flags = r.take(1)?[0];
        let words = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        let (dest, temp, backup) = (r.name()?, r.name()?, r.name()?);
        Ok(Record {
            at,
            flags,
            words,
            dest,
            temp,
            backup,
        })
    }

    /// Checks record `n` names only sylcol's files of one destination in
    /// the journal's folder; returns the destination's name.
    fn check(&self, n: usize) -> Result<&'a [u8], String> {
        let here = |what: String| format!("record {n} (byte {}): {what}", self.at);
        if self.flags & !(HAD_EARLIER | ID_KNOWN) != 0 {
            return Err(here(format!("unknown flags {:#04x}", self.flags)));
        }
        if !is_bare_name(self.dest) {
            return Err(here(format!(
                "its file {} is not a bare file name in the journal's folder",
                shown(self.dest)
            )));
        }
        if !is_marked(self.temp, self.dest, TEMP_MARK, false) {
            return Err(here(format!(
                "its temporary file {} is not named .{}{TEMP_MARK}PID",
                shown(self.temp),
                bare(self.dest)
            )));
        }
        let had_earlier = self.flags & HAD_EARLIER != 0;
        if had_earlier && !is_marked(self.backup, self.dest, BACKUP_MARK, true) {
            return Err(here(format!(
                "its backup {} is not named .{}{BACKUP_MARK}PID",
                shown(self.backup),
                bare(self.dest)
            )));
        }
        if !had_earlier && !self.backup.is_empty() {
            return Err(here(format!(
                "it names a backup, {}, but no earlier file",
                shown(self.backup)
            )));
        }
        if cfg!(unix) && self.flags & ID_KNOWN == 0 {
            return Err(here(
                "it lacks the new file's identity, which sylcol always records on this system"
                    .into(),
            ));
        }
        Ok(self.dest)
    }

    fn planned(&self, home: &Path) -> Planned {
        let [dev, ino, len, mtime] = self.words;
        Planned {
            dest: home.join(path_from(self.dest)),
            temp: home.join(path_from(self.temp)),
            backup: (self.flags & HAD_EARLIER != 0).then(|| home.join(path_from(self.backup))),
            id: (self.flags & ID_KNOWN != 0).then_some(FileIdentity {
                dev,
                ino,
                len,
                mtime_ns: mtime as i64,
            }),
        }
    }
}

/// A name as messages show it: quoted, control characters escaped.
fn shown(name: &[u8]) -> String {
    format!("\"{}\"", bare(name))
}

/// A name as text, control characters escaped.
fn bare(name: &[u8]) -> String {
    escape(&String::from_utf8_lossy(name)).into_owned()
}

/// Whether `name` names a file in its folder and nothing else: not
/// empty, `.` or `..`, no separator (on other systems than Unix, no `\`
/// or drive colon either), no NUL.
fn is_bare_name(name: &[u8]) -> bool {
    let separator =
        |b: &u8| *b == b'/' || *b == 0 || (cfg!(not(unix)) && matches!(b, b'\\' | b':'));
    !name.is_empty() && name != b"." && name != b".." && !name.iter().any(separator)
}

/// Whether `name` is `.DEST` + `mark` + a PID (then, when `numbered`,
/// optionally `-N`), as sylcol names its own files for `dest`.
fn is_marked(name: &[u8], dest: &[u8], mark: &str, numbered: bool) -> bool {
    let number = |d: &[u8]| !d.is_empty() && d[0] != b'0' && d.iter().all(u8::is_ascii_digit);
    let rest = name
        .strip_prefix(b".")
        .and_then(|r| r.strip_prefix(dest))
        .and_then(|r| r.strip_prefix(mark.as_bytes()));
    let Some(rest) = rest else {
        return false;
    };
    match rest.iter().position(|&b| b == b'-') {
        Some(dash) if numbered => number(&rest[..dash]) && number(&rest[dash + 1..]),
        _ => number(rest),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.left() {
            return Err(format!(
                "truncated: {n} bytes needed at byte {}, {} remain",
                self.at,
                self.left()
            ));
        }
        let got = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(got)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    /// A u32 length, then that many bytes.
    fn name(&mut self) -> Result<&'a [u8], String> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}

/// A replacement that a killed sylcol left unfinished, found by its
/// journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The journal.
    pub journal: PathBuf,
    /// The process that wrote it (no longer running).
    pub pid: u32,
    /// The journal as read when it was found, or why it is refused.
    pub(super) plan: Result<Vec<Planned>, String>,
}

impl Interrupted {
    /// The destinations it was replacing, the last (an archive's index)
    /// last; none when the journal is refused.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.plan.iter().flatten().map(|p| p.dest.as_path())
    }

    /// Why the journal is refused (it cannot be read, or cannot be
    /// trusted: see the module's "Trust"), if it is.
    pub fn refused(&self) -> Option<&str> {
        self.plan.as_ref().err().map(String::as_str)
    }
}

/// The last destination's name and the PID when `file_name` is a
/// journal's name.
pub fn parse_journal_name(file_name: &str) -> Option<(&str, u32)> {
    parse_marked_name(file_name, JOURNAL_MARK)
}

/// The interrupted replacements in `dir`: journals whose process is gone
/// (or is this one, outside a replacement: an earlier process had the
/// same PID), in name order. A journal that is refused is among them,
/// with the reason ([`Interrupted::refused`]).
pub fn interrupted_in(dir: &Path) -> Vec<Interrupted> {
    let _live = lock(&LIVE);
    interrupted_listed(dir)
}

/// [`interrupted_in`], the registry's lock held by the caller. A journal
/// exists only while [`replace_all`](super::replace_all) holds that lock
/// (it writes and removes its journal under it), so one found now that
/// names this process's PID is not this process's: an earlier process
/// had the same PID (as every run does that is a container's first
/// process) and was killed.
pub(super) fn interrupted_listed(dir: &Path) -> Vec<Interrupted> {
    let Ok(items) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Interrupted> = items
        .flatten()
        .filter(|i| i.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|i| {
            let name = i.file_name().into_string().ok()?;
            let (target, pid) = parse_journal_name(&name)?;
            let gone = pid == std::process::id() || !process_alive(pid);
            gone.then(|| {
                let journal = dir.join(&name);
                let plan = read_plan(&journal, target);
                Interrupted { journal, pid, plan }
            })
        })
        .collect();
    found.sort_by(|a, b| a.journal.cmp(&b.journal));
    found
}

/// The interrupted replacement in `path`'s folder that was replacing
/// `path`, if any (a refused journal never is one).
pub fn interrupted_replacing(path: &Path) -> Option<Interrupted> {
    let dir = folder_of(path);
    let wanted = dir.join(path.file_name()?);
    interrupted_in(dir)
        .into_iter()
        .find(|i| i.files().any(|f| f == wanted))
}

/// Reads the journal `journal`, named after `target`, if it can be
/// trusted (the module's "Trust"); else why not.
fn read_plan(journal: &Path, target: &str) -> Result<Vec<Planned>, String> {
    let file = open_no_follow(journal).map_err(|e| format!("cannot read it ({e})"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read it ({e})"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    writable_by_this_user_alone(&meta)?;
    let mut bytes = Vec::new();
    file.take(MAX_LEN as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it ({e})"))?;
    if bytes.len() > MAX_LEN {
        return Err("over 1 MiB, far more than any journal sylcol writes".into());
    }
    decode(&bytes, folder_of(journal), target)
}

/// Opens `path` to read without following a link at its name (nor
/// waiting on a FIFO planted there).
fn open_no_follow(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    options.open(path)
}

/// Refuses a file that another user owns, or that the group or others
/// may write: a file only this user's sylcol can have written. (Where the
/// system has no owners, every file passes.)
#[cfg(unix)]
fn writable_by_this_user_alone(meta: &fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    owned_by_this_user(meta)?;
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(format!(
            "it is group- or world-writable (mode {mode:04o}), so another user may have written it"
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn writable_by_this_user_alone(_meta: &fs::Metadata) -> Result<(), String> {
    Ok(())
}

/// Refuses a file another user owns.
#[cfg(unix)]
pub(super) fn owned_by_this_user(meta: &fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(format!(
            "it is owned by another user (uid {}, not {me})",
            meta.uid()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
pub(super) fn owned_by_this_user(_meta: &fs::Metadata) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The journal of three files in `dir`: `x.p00` replaced (an earlier
    /// file, backed up), `x.p01` new, `x.pak` replaced with a numbered
    /// backup.
    pub(crate) fn planned(dir: &Path) -> Vec<Planned> {
        let id = |ino| {
            Some(FileIdentity {
                dev: 7,
                ino,
                len: 9,
                mtime_ns: -5,
            })
        };
        vec![
            Planned {
                dest: dir.join("x.p00"),
                temp: dir.join(".x.p00.sylcol-tmp-9"),
                backup: Some(dir.join(".x.p00.sylcol-old-9")),
                id: id(1),
            },
            Planned {
                dest: dir.join("x.p01"),
                temp: dir.join(".x.p01.sylcol-tmp-9"),
                backup: None,
                id: id(2),
            },
            Planned {
                dest: dir.join("x.pak"),
                temp: dir.join(".x.pak.sylcol-tmp-9"),
                backup: Some(dir.join(".x.pak.sylcol-old-9-2")),
                id: id(3),
            },
        ]
    }

    fn encoded(plan: &[Planned], home: &str) -> Vec<u8> {
        encode(plan, Path::new(home)).unwrap()
    }

    /// `bytes` with its checksum made right again after an edit.
    fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
        let end = bytes.len() - 4;
        let sum = zlib_rs::crc32::crc32(0, &bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn the_checksum_is_zlibs_crc32() {
        assert_eq!(zlib_rs::crc32::crc32(0, b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn a_journal_reads_back_against_the_folder_it_is_found_in() {
        let bytes = encoded(&planned(Path::new("/old/place")), "/old/place");
        let moved = decode(&bytes, Path::new("/new/place"), "x.pak").unwrap();
        assert_eq!(moved, planned(Path::new("/new/place")));
        assert!(
            bytes.windows(9).all(|w| w != b"/old/plac"),
            "names are stored bare"
        );
    }

    #[test]
    fn a_plan_that_leaves_the_folder_is_not_written() {
        let mut plan = planned(Path::new("/d"));
        plan[1].dest = PathBuf::from("/elsewhere/x.p01");
        let err = encode(&plan, Path::new("/d")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("only files of its own folder"));
    }

    #[test]
    fn a_damaged_journal_is_refused_with_where() {
        let bytes = encoded(&planned(Path::new("/d")), "/d");
        let d = Path::new("/d");
        for cut in [0, 7, 12, 15, 40, bytes.len() - 1] {
            let err = decode(&bytes[..cut], d, "x.pak").unwrap_err();
            assert!(
                err.contains("byte") || err.contains("magic") || err.contains("truncated"),
                "cut {cut}: {err}"
            );
        }
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        let err = decode(&flipped, d, "x.pak").unwrap_err();
        assert!(err.starts_with("its checksum at byte"), "{err}");
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = decode(&resealed(huge), d, "x.pak").unwrap_err();
        assert!(
            err.starts_with("4294967295 records claimed at byte 8"),
            "{err}"
        );
        let mut long = bytes.clone();
        long.insert(bytes.len() - 4, 0);
        assert_eq!(
            decode(&resealed(long), d, "x.pak").unwrap_err(),
            "1 bytes after the last record, before the checksum"
        );
    }

    #[test]
    fn the_first_format_is_refused() {
        let mut bytes = encoded(&planned(Path::new("/d")), "/d");
        bytes[..8].copy_from_slice(MAGIC_UNCHECKED);
        let err = decode(&bytes, Path::new("/d"), "x.pak").unwrap_err();
        assert!(err.contains("first journal format (SYLJRNL1)"), "{err}");
    }

    /// One record of `dest`, `temp`, `backup` (empty: none), with an
    /// identity, as a planted journal would hold it.
    fn one_record(dest: &[u8], temp: &[u8], backup: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(1u32.to_le_bytes());
        out.push(ID_KNOWN | if backup.is_empty() { 0 } else { HAD_EARLIER });
        out.extend([0; 32]);
        for name in [dest, temp, backup] {
            out.extend((name.len() as u32).to_le_bytes());
            out.extend(name);
        }
        out.extend([0; 4]);
        resealed(out)
    }

    #[test]
    fn names_outside_the_folder_or_not_sylcols_own_are_refused() {
        let d = Path::new("/d");
        let refused = |dest: &[u8], temp: &[u8], backup: &[u8], target: &str| {
            decode(&one_record(dest, temp, backup), d, target).unwrap_err()
        };
        for (dest, temp, backup, what) in [
            (
                &b"/etc/passwd"[..],
                &b""[..],
                &b""[..],
                "not a bare file name",
            ),
            (b"../up", b"", b"", "not a bare file name"),
            (b"..", b"", b"", "not a bare file name"),
            (b"a/b", b".a/b.sylcol-tmp-5", b"", "not a bare file name"),
            (b"", b"", b"", "not a bare file name"),
            (b"x", b"/tmp/victim", b"", "temporary file \"/tmp/victim\""),
            (
                b"x",
                b"victim",
                b"",
                "temporary file \"victim\" is not named",
            ),
            (b"x", b".x.sylcol-tmp-05", b"", "temporary file"),
            (b"x", b".y.sylcol-tmp-5", b"", "temporary file"),
            (
                b"x",
                b".x.sylcol-tmp-5",
                b"payload.sh",
                "backup \"payload.sh\"",
            ),
            (b"x", b".x.sylcol-tmp-5", b"../.x.sylcol-old-5", "backup"),
            (b"x", b".x.sylcol-tmp-5", b".x.sylcol-old-5-", "backup"),
        ] {
            let err = refused(dest, temp, backup, "x");
            assert!(err.contains(what), "{dest:?} {temp:?} {backup:?}: {err}");
        }
        assert!(
            refused(b"x", b".x.sylcol-tmp-5", b"", "y").contains("named after y"),
            "the last file names the journal"
        );
        let mut twice = planned(d);
        twice[1] = twice[0].clone();
        let err = decode(&encoded(&twice, "/d"), d, "x.pak").unwrap_err();
        assert_eq!(err, "record 1 names \"x.p00\" a second time");
        let ok = decode(
            &one_record(b"x", b".x.sylcol-tmp-5", b".x.sylcol-old-5-3"),
            d,
            "x",
        );
        assert_eq!(ok.unwrap()[0].backup, Some(d.join(".x.sylcol-old-5-3")));
    }

    #[test]
    fn journal_names_parse_back() {
        let j = journal_path(Path::new("out/Mod.pak"));
        let name = j.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            parse_journal_name(name),
            Some(("Mod.pak", std::process::id()))
        );
        for other in [
            ".Mod.pak.sylcol-tmp-5",
            ".Mod.pak.sylcol-journal-05",
            "Mod.pak",
        ] {
            assert_eq!(parse_journal_name(other), None, "{other}");
        }
    }

    /// A journal named as a dead process's in `dir`, holding `bytes`.
    fn planted(dir: &Path, bytes: &[u8]) -> PathBuf {
        let path = dir.join(".x.pak.sylcol-journal-2147483646");
        fs::write(&path, bytes).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn a_journal_others_may_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bytes = encoded(&planned(dir.path()), dir.path().to_str().unwrap());
        let path = planted(dir.path(), &bytes);
        for (mode, refused) in [(0o600, false), (0o644, false), (0o620, true), (0o602, true)] {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            let [found] = &interrupted_in(dir.path())[..] else {
                panic!("one journal");
            };
            assert_eq!(found.refused().is_some(), refused, "mode {mode:o}");
            if refused {
                let why = found.refused().unwrap();
                assert!(why.contains("group- or world-writable"), "{why}");
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_or_a_huge_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = encoded(&planned(dir.path()), dir.path().to_str().unwrap());
        let real = dir.path().join("real");
        fs::write(&real, &bytes).unwrap();
        let path = dir.path().join(".x.pak.sylcol-journal-2147483646");
        std::os::unix::fs::symlink(&real, &path).unwrap();
        assert!(
            read_plan(&path, "x.pak")
                .unwrap_err()
                .contains("cannot read it")
        );
        fs::remove_file(&path).unwrap();
        let mut big = bytes.clone();
        big.resize(MAX_LEN + 1, 0);
        planted(dir.path(), &big);
        assert!(
            read_plan(&path, "x.pak")
                .unwrap_err()
                .contains("over 1 MiB")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_journal_is_written_readable_by_its_owner_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = journal_path(&dir.path().join("x.pak"));
        write(&planned(dir.path()), &path).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
