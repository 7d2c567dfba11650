//! Files and streams: their bytes, within the caps.

use std::io::Read;
use std::sync::Arc;

use sylcol_format::budget;

use super::{Input, Item, SourceError};
use crate::report::error::{ObjectError, ReadError};

/// The most bytes read from standard input or from a file that is not a
/// regular file (a pipe, a device), whose size is unknown before it ends:
/// the game's objects are a few MiB at most, `/dev/zero` never ends, and
/// no object past the budget of one object is decoded anyway.
pub const MAX_STREAM: u64 = sylcol_format::budget::MAX_OBJECT;

/// Whether `path` is an archive index on disk (`.pak`, starting `IPFB`).
pub fn is_archive(path: &str) -> bool {
    let mut magic = [0u8; 4];
    // The name first: no other file is opened.
    archive_head(path, sylcol_format::ipfb::MAGIC)
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
        && archive_head(path, &magic)
}

/// Whether a file named `name` whose bytes start with `head` is an
/// archive index (`.pak`, starting `IPFB`).
pub(super) fn archive_head(name: &str, head: &[u8]) -> bool {
    name.to_ascii_lowercase().ends_with(".pak") && head.starts_with(sylcol_format::ipfb::MAGIC)
}

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
                file.read_to_end(&mut bytes).map(|_| bytes)
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
fn read_stream(stream: impl Read) -> std::io::Result<Vec<u8>> {
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

/// A path (or `-`) read whole, whatever its format, a regular file only
/// within the budget of one object.
pub(super) fn whole_file(path: &str) -> Result<Input, SourceError> {
    let size = std::fs::metadata(path).ok().filter(|m| m.is_file());
    if let Some(size) = size.map(|m| m.len()) {
        budget::within_budget(None, size).map_err(|error| ObjectError {
            path: path.to_string(),
            error,
        })?;
    }
    Ok(Input {
        name: path.to_string(),
        bytes: Arc::new(read_file(path)?),
    })
}

/// A path (or `-`) as an [`Item`]: a regular file's head first, the rest
/// only when it is admitted (`sylcol_format::budget::read_object`); a
/// stream whole, up to [`MAX_STREAM`].
pub(super) fn sniffed_file(path: &str) -> Result<Item, SourceError> {
    let is_file = path != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !is_file {
        return Ok(Item::Whole(Input {
            name: path.to_string(),
            bytes: Arc::new(read_file(path)?),
        }));
    }
    let cannot = |error| ReadError {
        path: path.to_string(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    sniffed(path, &mut file, size)
}

/// Object `name` of `size` bytes, read from `source` as an [`Item`]: its
/// head first, the rest only when it is admitted
/// (`sylcol_format::budget::read_object`).
pub(super) fn sniffed(name: &str, source: &mut impl Read, size: u64) -> Result<Item, SourceError> {
    let read = budget::read_object(source, size).map_err(|error| ReadError {
        path: name.to_string(),
        error,
    })?;
    Ok(Item::of(name.to_string(), read))
}
