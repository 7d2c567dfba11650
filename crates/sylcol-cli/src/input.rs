//! Resolving a FILE argument to bytes.
//!
//! A FILE is a path on disk, or `ARCHIVE.pak+INNER` — the game's own way to
//! name a file inside an archive (`dat\tables.pak+eng\GP_TITLE.tbl`). INNER
//! is a name (`\` or `/`, hashed as `\`, any letter case) or `$XXXXXXXX`,
//! optionally followed by `.MAGIC`. [`inputs`] walks every entry of a whole
//! `.pak`, one result per entry, so one bad entry does not stop the rest.
//! `-` reads standard input.
//!
//! [`read_object`] and [`inputs`] hold an object whole only when its first
//! bytes show a format sylcol decodes (`sylcol_format::sniff`) and its
//! declared size is within what its header allows and the budget of one
//! object (`sylcol_format::budget`); any other is refused from its first
//! bytes, so a 1 GiB entry costs a fixed buffer, not 1 GiB. What is held
//! is reserved with `try_reserve`: memory that cannot be had is an error
//! naming the object. In a whole archive, index rows that point at one
//! stored stream share one read of it ([`shared`]).

mod shared;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use sylcol::report::error::{NotFound, ObjectError, ReadError, UsageError};
use sylcol_format::budget::{self, within_budget};
use sylcol_format::ipfb::EntryInfo;
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::split_archive_path;
use sylcol_format::ipfb::{Archive, IndexEntry};
use sylcol_format::{AnyError, Object, decode_any};

use shared::Streams;

/// An input object: where it came from and its bytes.
pub struct Input {
    /// How to name it in messages and reports.
    pub name: String,
    /// The whole object (shared by the index rows that point at its
    /// stored bytes).
    pub bytes: Arc<Vec<u8>>,
}

/// Whether `path` is an archive index on disk (`.pak`, starting `IPFB`).
pub fn is_archive(path: &str) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    path.to_ascii_lowercase().ends_with(".pak")
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
        && &magic == sylcol_format::ipfb::MAGIC
}

/// The name list `names harvest` writes, picked up beside an archive.
pub const NAMES_BESIDE: &str = "names.txt";

/// The global `--names FILE`, set once by `main` before any command runs.
static NAMES_FILE: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Records the global `--names FILE` (the first call wins).
pub fn set_names_file(file: Option<PathBuf>) {
    let _ = NAMES_FILE.set(file);
}

/// Opens an archive with the built-in names, those of the global
/// `--names FILE`, and those a `names.txt` beside the archive gives it
/// (its own `pak+inner` lines and bare ones; the explicit file wins where
/// they disagree). Every command that opens an archive comes here, so
/// `--names` names entries in all of them.
pub fn open_archive(path: &str) -> anyhow::Result<Archive> {
    if path == "-" {
        anyhow::bail!(UsageError(
            "an archive cannot be read from standard input: its parts (.p00, ...) are files beside its index; name the .pak file".into()
        ));
    }
    let mut archive = Archive::open(Path::new(path))?;
    if let Some(file) = NAMES_FILE.get().and_then(Option::as_deref) {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("{}: cannot read the name list", file.display()))?;
        archive.names.add_list(&text);
    }
    let beside = Path::new(path).with_file_name(NAMES_BESIDE);
    if beside.is_file() {
        let text = std::fs::read_to_string(&beside)
            .with_context(|| format!("{}: cannot read the name list", beside.display()))?;
        let own = Path::new(path).file_name().unwrap_or_default();
        archive.names.add_list_for(&text, &own.to_string_lossy());
    }
    Ok(archive)
}

/// The files opening the archive `path` reads: its index and parts, the
/// global `--names FILE` and a `names.txt` beside it (what an output
/// written next to them must never replace).
pub fn archive_files(path: &str, archive: &Archive) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = archive.files().into_iter().map(Path::to_path_buf).collect();
    files.extend(NAMES_FILE.get().cloned().flatten());
    files.push(Path::new(path).with_file_name(NAMES_BESIDE));
    files
}

/// Reads the object a FILE argument names (`-`: standard input), whatever
/// its format, up to the budget of one object (`sylcol probe` analyses
/// any chunk).
pub fn read_input(path: &str) -> anyhow::Result<Input> {
    if let Some((pak, inner)) = split_archive_path(path) {
        return read_inner(pak, inner);
    }
    let size = std::fs::metadata(path).ok().filter(|m| m.is_file());
    if let Some(size) = size.map(|m| m.len()) {
        within_budget(None, size).map_err(|error| ObjectError {
            path: path.to_string(),
            error,
        })?;
    }
    Ok(Input {
        name: path.to_string(),
        bytes: Arc::new(read_file(path)?),
    })
}

/// The most bytes read from standard input or from a file that is not a
/// regular file (a pipe, a device), whose size is unknown before it ends:
/// the game's objects are a few MiB at most, `/dev/zero` never ends, and
/// no object past the budget of one object is decoded anyway.
pub const MAX_STREAM: u64 = sylcol_format::budget::MAX_OBJECT;

/// The bytes of a file, or of standard input for `-` (at most
/// [`MAX_STREAM`] from a stream).
pub fn read_file(path: &str) -> Result<Vec<u8>, ReadError> {
    let result = if path == "-" {
        read_stream(std::io::stdin().lock())
    } else {
        std::fs::File::open(path).and_then(|mut file| {
            if file.metadata()?.is_file() {
                // From the file opened (its size sizes the buffer), not
                // opened a second time by path.
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut file, &mut bytes).map(|_| bytes)
            } else {
                read_stream(file)
            }
        })
    };
    result.map_err(|error| ReadError {
        path: path.to_string(),
        error,
    })
}

/// A stream's bytes, refused past [`MAX_STREAM`].
fn read_stream(stream: impl std::io::Read) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    stream.take(MAX_STREAM + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_STREAM {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "more than {} MiB from a stream (not a regular file): refused, sylcol's objects are a few MiB",
                MAX_STREAM >> 20
            ),
        ));
    }
    Ok(bytes)
}

impl Input {
    /// Decodes the object, whatever format it is.
    pub fn decode(&self) -> Result<Object, ObjectError> {
        decode_any(&self.bytes).map_err(|error| ObjectError {
            path: self.name.clone(),
            error,
        })
    }
}

/// Entry INNER of archive `pak`.
fn find_inner<'a>(archive: &'a Archive, pak: &str, inner: &str) -> anyhow::Result<&'a IndexEntry> {
    let hash = inner_hash(inner);
    Ok(archive.index.find(hash).ok_or_else(|| NotFound {
        path: pak.to_string(),
        detail: format!("no entry {inner} (hash {hash:08X}) in the archive"),
    })?)
}

/// Reads entry INNER of archive `pak` whole, up to the budget of one object.
fn read_inner(pak: &str, inner: &str) -> anyhow::Result<Input> {
    let archive = open_archive(pak)?;
    let entry = find_inner(&archive, pak, inner)?;
    let (info, name) = probe(&archive, pak, entry)?;
    within_budget(None, info.size).map_err(|error| ObjectError {
        path: name.clone(),
        error,
    })?;
    let bytes = archive
        .read_entry(&info)
        .with_context(|| format!("{pak}: cannot read"))?;
    Ok(Input {
        name,
        bytes: Arc::new(bytes),
    })
}

/// One object of a FILE argument, sniffed (see the module docs).
pub enum Item {
    /// Read whole: it may be a format sylcol decodes.
    Whole(Input),
    /// Its first bytes show no format sylcol decodes, or it declares more
    /// bytes than sylcol holds of it: never held whole (in an archive walk
    /// a Z1 entry of another format is still inflated into nothing, to
    /// check it). The error is what decoding it whole would say, or
    /// [`AnyError::TooLarge`].
    Other(ObjectError),
}

impl Item {
    /// The object read whole, or why it is no format sylcol decodes.
    pub fn whole(self) -> Result<Input, ObjectError> {
        match self {
            Item::Whole(input) => Ok(input),
            Item::Other(e) => Err(e),
        }
    }

    /// The object decoded (see [`Input::decode`]), with its input.
    pub fn decode(self) -> Result<(Input, Object), ObjectError> {
        let input = self.whole()?;
        let object = input.decode()?;
        Ok((input, object))
    }

    /// An item named `name` from what reading an object gave.
    fn of(name: String, read: Result<Vec<u8>, AnyError>) -> Item {
        match read {
            Ok(bytes) => Item::Whole(Input {
                name,
                bytes: Arc::new(bytes),
            }),
            Err(error) => Item::Other(ObjectError { path: name, error }),
        }
    }
}

/// Reads the object a FILE argument names, whole only when its first
/// bytes show a format sylcol decodes within its size limits (`-` and
/// other non-files are read whole, up to [`MAX_STREAM`]: their size is
/// unknown before they end).
pub fn read_object(path: &str) -> anyhow::Result<Item> {
    if let Some((pak, inner)) = split_archive_path(path) {
        let archive = open_archive(pak)?;
        let entry = find_inner(&archive, pak, inner)?;
        let (info, name) = probe(&archive, pak, entry)?;
        return read_entry_object(&archive, pak, &info, name, false);
    }
    // A command that takes whole archives branches before it comes here;
    // for the others (rewrite, query) an index is not one object.
    if is_archive(path) {
        anyhow::bail!(UsageError(format!(
            "{path}: an IPFB archive index, not one object: name an entry as {path}+INNER (`sylcol pak list` shows them)"
        )));
    }
    let is_file = path != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !is_file {
        return Ok(Item::Whole(Input {
            name: path.to_string(),
            bytes: Arc::new(read_file(path)?),
        }));
    }
    sniff_file(path)
}

/// A plain file as an [`Item`]: its head first, the rest only when it is
/// admitted (`sylcol_format::budget::read_object`).
fn sniff_file(path: &str) -> anyhow::Result<Item> {
    let cannot = |error| ReadError {
        path: path.to_string(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    let read = budget::read_object(&mut file, size).map_err(cannot)?;
    Ok(Item::of(path.to_string(), read))
}

/// Probes `entry`: its header, and its name as `PAK+ENTRY`.
fn probe(archive: &Archive, pak: &str, entry: &IndexEntry) -> anyhow::Result<(EntryInfo, String)> {
    let info = archive
        .probe(entry)
        .with_context(|| format!("{pak}: cannot read"))?;
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
) -> anyhow::Result<Item> {
    let read = archive
        .read_object(info, check_rest)
        .with_context(|| format!("{pak}: cannot read"))?;
    Ok(Item::of(name, read))
}

/// Every object a FILE argument holds: each entry of a whole archive (in
/// index order), or the one object [`read_input`] reads.
pub fn inputs(path: &str) -> anyhow::Result<Inputs> {
    if split_archive_path(path).is_none() && is_archive(path) {
        let archive = open_archive(path)?;
        return Ok(Inputs::Archive {
            pak: path.to_string(),
            streams: Streams::of(archive.entries()),
            archive: Box::new(archive),
            next: 0,
        });
    }
    Ok(Inputs::Single(Some(read_object(path))))
}

/// An iterator over the objects of a FILE argument; see [`inputs`].
pub enum Inputs {
    /// A plain file or one archive entry.
    Single(Option<anyhow::Result<Item>>),
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
    },
}

impl Inputs {
    /// The archive being walked, if the FILE was one.
    pub fn archive(&self) -> Option<&Archive> {
        match self {
            Inputs::Archive { archive, .. } => Some(archive),
            Inputs::Single(_) => None,
        }
    }
}

impl Iterator for Inputs {
    type Item = anyhow::Result<Item>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Inputs::Single(one) => one.take(),
            Inputs::Archive {
                pak,
                archive,
                next,
                streams,
            } => {
                let entry = *archive.entries().get(*next)?;
                *next += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_archive_paths() {
        assert_eq!(
            split_archive_path("dat\\tables.pak+eng\\GP_TITLE.tbl"),
            Some(("dat\\tables.pak", "eng\\GP_TITLE.tbl"))
        );
        assert_eq!(
            split_archive_path("x/MiscBin.PAK+$2CF7EB47.MCOL"),
            Some(("x/MiscBin.PAK", "$2CF7EB47.MCOL"))
        );
        assert_eq!(split_archive_path("plain.bin"), None);
        assert_eq!(split_archive_path("a.pak"), None);
    }

    fn archive(dir: &Path) -> String {
        use sylcol_format::ipfb::{NewEntry, WriteOptions, build_archive};
        let pak = dir.join("tables.pak");
        let entries = vec![
            NewEntry::named("eng\\GP_TITLE.tbl", b"title table".to_vec(), true),
            NewEntry::hashed(0x2CF7_EB47, b"MCOL body".to_vec(), false),
        ];
        build_archive(&pak, entries, WriteOptions::default()).unwrap();
        pak.to_string_lossy().into_owned()
    }

    #[test]
    fn reads_entries_by_name_or_hash() {
        let dir = tempfile::tempdir().unwrap();
        let pak = archive(dir.path());
        for inner in ["eng/GP_TITLE.tbl", "ENG\\gp_title.TBL", "$5EE70E0A"] {
            let input = read_input(&format!("{pak}+{inner}")).unwrap();
            assert_eq!(*input.bytes, b"title table", "{inner}");
            assert!(input.name.ends_with("+$5EE70E0A.titl"), "{}", input.name);
        }
        let mcol = read_input(&format!("{pak}+$2CF7EB47.MCOL")).unwrap();
        assert_eq!(*mcol.bytes, b"MCOL body");
        let missing = read_input(&format!("{pak}+nope.bin")).err().unwrap();
        assert!(
            missing.to_string().contains("no entry nope.bin"),
            "{missing}"
        );
        assert_eq!(read_input(&pak).unwrap().bytes[..4], *b"IPFB");
    }

    #[test]
    fn walks_a_whole_archive_past_a_bad_entry() {
        let dir = tempfile::tempdir().unwrap();
        let pak = archive(dir.path());
        let part = dir.path().join("tables.p00");
        let mut bytes = std::fs::read(&part).unwrap();
        bytes[2048 + 5] ^= 1; // the Z1 entry (second in hash order): its size field
        std::fs::write(&part, bytes).unwrap();
        let all: Vec<_> = inputs(&pak).unwrap().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all.iter().filter(|r| r.is_err()).count(), 1);
        let one: Vec<_> = inputs(&format!("{pak}+$2CF7EB47")).unwrap().collect();
        assert_eq!(one.len(), 1);
        assert!(inputs(&pak).unwrap().archive().is_some());
    }

    #[test]
    fn rows_of_one_stream_share_one_read() {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
        let mut walk = inputs(pak).unwrap();
        let libraries: Vec<Input> = walk
            .by_ref()
            .filter_map(|item| match item.unwrap() {
                Item::Whole(input) if input.name.contains("CollisionSet_") => Some(input),
                _ => None,
            })
            .collect();
        assert_eq!(libraries.len(), 18, "the disc's eighteen rows");
        assert!(
            libraries
                .iter()
                .all(|l| Arc::ptr_eq(&l.bytes, &libraries[0].bytes)),
            "one read, shared"
        );
        let names: std::collections::HashSet<_> = libraries.iter().map(|l| &l.name).collect();
        assert_eq!(names.len(), 18, "each row keeps its own name");
        let Inputs::Archive { streams, .. } = &walk else {
            unreachable!("an archive walk")
        };
        assert_eq!(streams.kept_bytes(), 0, "let go after the last row");
    }
}
