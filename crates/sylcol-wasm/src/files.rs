//! The files a user dropped, walked as the CLI walks its FILE arguments
//! (`sylcol verify FILE...`, `sylcol serve FILE...`): an IPFB index
//! (`.pak`) is an archive whose parts (`.p00` ...) are the other dropped
//! files of its name, every entry one object; `names.txt` names the
//! entries of the archives dropped with it (as beside them on disk); any
//! other file is one object, held whole only when its first bytes show a
//! format sylcol decodes within its size bounds
//! (`sylcol_format::budget::read_object`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use sylcol::report::error::{ErrorReport, ObjectError, chain_message};
use sylcol_format::AnyError;
use sylcol_format::ipfb::Archive;

/// The names list picked up beside an archive (`sylcol names harvest -o`).
pub const NAMES_FILE: &str = "names.txt";

/// One dropped file: its name (without folders: the names of objects
/// and messages are the CLI's run in the file's own folder) and bytes.
#[derive(Debug, Clone)]
pub struct Dropped {
    /// The file name (`MiscBin.pak`).
    pub name: String,
    /// Its bytes.
    pub bytes: Arc<[u8]>,
}

impl Dropped {
    /// A dropped file; a path's folders are left off its name.
    pub fn new(name: &str, bytes: impl Into<Arc<[u8]>>) -> Dropped {
        let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
        Dropped {
            name: name.to_string(),
            bytes: bytes.into(),
        }
    }

    fn is_archive(&self) -> bool {
        self.name.to_ascii_lowercase().ends_with(".pak")
            && self.bytes.starts_with(sylcol_format::ipfb::MAGIC)
    }
}

/// One object of a dropped file, as the CLI's `input::Item` is.
#[derive(Debug, Clone)]
pub enum Item {
    /// Held whole: `ARCHIVE.pak+ENTRY` or the file name, and its bytes
    /// (rows of an archive that point at one stored stream share them).
    Whole(String, Arc<Vec<u8>>),
    /// Its first bytes show no format sylcol decodes, or it declares more
    /// than sylcol holds of it: what decoding it would say.
    Other(ObjectError),
    /// It could not be read (an archive entry past its part, a part not
    /// dropped, ...): the error as the CLI reports it.
    Unreadable(ErrorReport),
}

/// What one dropped file (an argument of the CLI) holds.
#[derive(Debug)]
pub struct Input {
    /// Its objects, in index order for an archive.
    pub items: Vec<Item>,
    /// The archive, when it is one (its index problems are reported).
    pub archive: Option<Archive>,
    /// The file name.
    pub name: String,
}

/// An error with the CLI's message and classification.
fn report(e: &anyhow::Error) -> ErrorReport {
    ErrorReport::from_chain(chain_message(e.chain()), e.chain())
}

/// Walks the dropped files: one [`Input`] per file that is not a part of
/// a dropped archive or a names list, in the order given; an archive
/// whose index cannot be read is that error.
pub fn walk(files: &[Dropped]) -> Vec<Result<Input, ErrorReport>> {
    let names: Vec<&str> = files
        .iter()
        .filter(|f| f.name.eq_ignore_ascii_case(NAMES_FILE))
        .filter_map(|f| std::str::from_utf8(&f.bytes).ok())
        .collect();
    let parts: Vec<(String, Arc<[u8]>)> = files
        .iter()
        .map(|f| (f.name.clone(), f.bytes.clone()))
        .collect();
    let stems: Vec<String> = files
        .iter()
        .filter(|f| f.is_archive())
        .map(|f| stem(&f.name))
        .collect();
    files
        .iter()
        .filter(|f| !f.name.eq_ignore_ascii_case(NAMES_FILE))
        .filter(|f| {
            !stems
                .iter()
                .any(|s| sylcol_format::ipfb::part_number(s, &f.name).is_some())
        })
        .map(|f| {
            if f.is_archive() {
                archive(f, &parts, &names)
            } else {
                Ok(loose(f))
            }
        })
        .collect()
}

fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A file that is not an archive: one object.
fn loose(f: &Dropped) -> Input {
    let size = f.bytes.len() as u64;
    let item = match sylcol_format::budget::read_object(&mut &f.bytes[..], size) {
        Ok(Ok(bytes)) => Item::Whole(f.name.clone(), Arc::new(bytes)),
        Ok(Err(error)) => Item::Other(ObjectError {
            path: f.name.clone(),
            error,
        }),
        Err(e) => Item::Unreadable(report(&anyhow::Error::new(e))),
    };
    Input {
        items: vec![item],
        archive: None,
        name: f.name.clone(),
    }
}

/// Where an entry's bytes are stored: part, offset and stored size.
type Stream = (u8, u32, u32);

/// An archive: every entry, read as `sylcol verify ARCHIVE.pak` reads it.
fn archive(
    f: &Dropped,
    parts: &[(String, Arc<[u8]>)],
    names: &[&str],
) -> Result<Input, ErrorReport> {
    let pak = f.name.as_str();
    let mut archive = Archive::from_memory(Path::new(pak), &f.bytes, parts)
        .map_err(|e| report(&anyhow::Error::new(e)))?;
    for text in names {
        archive.names.add_list_for(text, pak);
    }
    // Rows that point at one stored stream (the disc's eighteen library
    // rows) share one read, as in the CLI's walk.
    let mut streams: HashMap<Stream, Result<Arc<Vec<u8>>, AnyError>> = HashMap::new();
    let mut items = Vec::with_capacity(archive.entries().len());
    for e in archive.entries() {
        let cannot = || format!("{pak}: cannot read");
        let info = match archive.probe(e).with_context(cannot) {
            Ok(info) => info,
            Err(e) => {
                items.push(Item::Unreadable(report(&e)));
                continue;
            }
        };
        let name = format!("{pak}+{}", info.display);
        let key = (e.part, e.offset, e.stored_size);
        let read = match streams.get(&key) {
            Some(earlier) => earlier.clone(),
            None => match archive.read_object(&info, true).with_context(cannot) {
                Ok(read) => {
                    let read = read.map(Arc::new);
                    streams.insert(key, read.clone());
                    read
                }
                Err(e) => {
                    items.push(Item::Unreadable(report(&e)));
                    continue;
                }
            },
        };
        items.push(match read {
            Ok(bytes) => Item::Whole(name, bytes),
            Err(error) => Item::Other(ObjectError { path: name, error }),
        });
    }
    Ok(Input {
        items,
        archive: Some(archive),
        name: f.name.clone(),
    })
}
