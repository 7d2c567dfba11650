//! Keeping names found for an archive where every later opening of it
//! reads them: the `names.txt` beside it (merged with what is there), or,
//! where that folder cannot be written, the per-user cache file keyed by
//! the SHA-256 of the archive's index
//! (`$XDG_CACHE_HOME/sylcol/names/<hash>.txt`, else
//! `~/.cache/sylcol/names/<hash>.txt`). Both are written to a temporary
//! file and renamed into place (`sylcol_atomic`).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use sylcol_atomic::TempFile;
use sylcol_format::ipfb::NameBook;
use sylcol_format::ipfb::names::make_entry_id;

use crate::report::name_sources::{NamePlace, NamesKept};
use crate::source::error::SourceError;

/// The name list `names harvest` writes, picked up beside an archive.
pub const NAMES_BESIDE: &str = "names.txt";

/// The cache folder of name lists: `$XDG_CACHE_HOME/sylcol/names`, else
/// `$HOME/.cache/sylcol/names` (`%LOCALAPPDATA%\sylcol\names` on Windows).
fn cache_folder() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let base = env("XDG_CACHE_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".cache")))
        .or_else(|| env("LOCALAPPDATA"))?;
    Some(base.join("sylcol").join("names"))
}

/// The cache file of the archive whose index is `pak`, in `folder`: its
/// name is the SHA-256 of the index file's bytes.
fn cache_file_in(folder: &Path, pak: &Path) -> Option<PathBuf> {
    let index = std::fs::read(pak).ok()?;
    let hash = Sha256::digest(&index);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    Some(folder.join(format!("{hex}.txt")))
}

/// The cache file of the archive whose index is `pak`, when the cache
/// folder exists (nothing is read or hashed otherwise).
pub fn cache_file(pak: &Path) -> Option<PathBuf> {
    let folder = cache_folder().filter(|f| f.is_dir())?;
    cache_file_in(&folder, pak)
}

/// Keeps `names` (inner names of entries of the archive `pak`) where
/// every later opening of it reads them: merged into the `names.txt`
/// beside it, as `FILE.pak+NAME` lines (a name for an entry the file
/// already names is left out, so what a user wrote there stays), or, when
/// that cannot be written, into its cache file.
pub fn keep(pak: &Path, names: &[String]) -> Result<NamesKept, SourceError> {
    let own = pak.file_name().unwrap_or_default().to_string_lossy();
    let beside = pak.with_file_name(NAMES_BESIDE);
    let write_beside = merge_into(&beside, names, &own, true);
    let not_beside = match write_beside {
        Ok(counts) => return Ok(kept(pak, &beside, NamePlace::Beside, counts, None)),
        Err(e) => format!("{} cannot be written: {e}", beside.display()),
    };
    let no_cache = || SourceError::KeepNames {
        path: beside.clone(),
        error: std::io::Error::other(format!(
            "{not_beside}, and there is no cache folder (neither XDG_CACHE_HOME nor HOME is set)"
        )),
    };
    let folder = cache_folder().ok_or_else(no_cache)?;
    let cached = cache_file_in(&folder, pak).ok_or_else(no_cache)?;
    let write = std::fs::create_dir_all(&folder)
        .and_then(|()| merge_into(&cached, names, &own, false))
        .map_err(|error| SourceError::KeepNames {
            path: cached.clone(),
            error: std::io::Error::new(error.kind(), format!("{not_beside}; the cache: {error}")),
        })?;
    Ok(kept(
        pak,
        &cached,
        NamePlace::Cache,
        write,
        Some(not_beside),
    ))
}

fn kept(
    pak: &Path,
    file: &Path,
    place: NamePlace,
    (added, kept): (usize, usize),
    not_beside: Option<String>,
) -> NamesKept {
    NamesKept {
        archive: pak.display().to_string(),
        path: file.display().to_string(),
        place,
        added,
        kept,
        not_beside,
    }
}

/// Merges `names` into the list `file` (for the archive named `own`;
/// `beside`: a shared `names.txt`, whose lines for other archives do not
/// count) and writes it atomically; returns (added, already named).
fn merge_into(
    file: &Path,
    names: &[String],
    own: &str,
    beside: bool,
) -> std::io::Result<(usize, usize)> {
    let mut text = if file.exists() {
        std::fs::read_to_string(file)?
    } else {
        String::new()
    };
    let mut book = NameBook::new();
    if beside {
        book.add_list_for(&text, own);
    } else {
        book.add_list(&text);
    }
    if text.is_empty() {
        text.push_str(
            "# entry names (sylcol names harvest; docs/names.md), one FILE.pak+NAME a line\n",
        );
    } else if !text.ends_with('\n') {
        text.push('\n');
    }
    let (mut added, mut kept) = (0, 0);
    for name in names {
        if book.get(make_entry_id(&name.replace('/', "\\"))).is_some() {
            kept += 1;
            continue;
        }
        book.insert(name);
        text.push_str(&format!("{own}+{name}\n"));
        added += 1;
    }
    if added > 0 {
        write_atomic(file, text.as_bytes())?;
    }
    Ok((added, kept))
}

/// Writes `bytes` to a temporary file beside `file`, then renames it over
/// `file`.
fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temp = TempFile::beside(file)?;
    temp.write_all(bytes)?;
    temp.persist(file)
}
