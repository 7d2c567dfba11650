//! Archive parts in the wrong place: a `.pNN` part named where one object
//! is wanted (the hint says to open its `.pak`), and parts an index points
//! into that are missing beside it (said once per part, with the entries
//! it holds counted, instead of once per entry).

use std::path::{Path, PathBuf};

use sylcol_format::ipfb::Archive;

use super::read::is_archive;
use crate::errors::{NotFound, UsageError};

/// The part number of a file named `<stem>.pNN` (any letter case).
fn part_number_of(path: &Path) -> Option<u8> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let digits = ext.strip_prefix('p')?;
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The `<stem>.pak` beside `path` (any letter case) that is an archive
/// index.
fn index_beside(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    let want = format!("{stem}.pak");
    let folder = sylcol_atomic::folder_of(path);
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .map(|item| item.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().eq_ignore_ascii_case(&want))
                && is_archive(&p.to_string_lossy())
        })
}

/// When `path` is part NN of an archive — named `<stem>.pNN`, with a
/// `<stem>.pak` beside it whose index points entries into this very file
/// — the error that says so and what to open instead.
pub fn part_hint(path: &str) -> Option<UsageError> {
    let file = Path::new(path);
    let n = part_number_of(file)?;
    let pak = index_beside(file)?;
    let archive = Archive::open(&pak).ok()?;
    let (held, _) = archive.part_file(n)?;
    if !same_file(held, file) {
        return None;
    }
    let stored = archive.entries().iter().filter(|e| e.part == n).count();
    if stored == 0 {
        return None;
    }
    let pak = pak.display();
    let total = archive.entries().len();
    let held = match stored == total {
        true => format!("where all {total} of its entries are stored"),
        false => format!("where {stored} of its {total} entries are stored"),
    };
    Some(UsageError(format!(
        "{path}: part {n:02} of the archive {pak} ({held}), not one object: open the archive ({pak}, e.g. `sylcol pak list {pak}`), or one entry as {pak}+NAME"
    )))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A part an archive's index points into that is not beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingPart {
    /// Its number.
    pub part: u8,
    /// Its file name.
    pub file: String,
    /// The entries stored in it.
    pub entries: usize,
}

impl MissingPart {
    /// The error, said once for the part: `samples/MiscBin.pak: part
    /// file MiscBin.p00 is missing beside it: all 40 entries are stored
    /// there and cannot be read`.
    pub fn error(&self, pak: &str, archive: &Archive) -> NotFound {
        let total = archive.entries().len();
        let which = if self.entries == total {
            format!("all {total} entries are stored there")
        } else {
            format!("{} of its {total} entries are stored there", self.entries)
        };
        NotFound {
            path: pak.to_string(),
            detail: format!(
                "part file {} is missing beside it: {which} and cannot be read",
                self.file
            ),
        }
    }
}

/// The parts `archive`'s entries point into that are not beside it, in
/// part order.
pub fn missing_parts(archive: &Archive) -> Vec<MissingPart> {
    let mut missing: Vec<MissingPart> = Vec::new();
    for e in archive.entries() {
        if archive.part_file(e.part).is_some() {
            continue;
        }
        match missing.iter_mut().find(|m| m.part == e.part) {
            Some(m) => m.entries += 1,
            None => missing.push(MissingPart {
                part: e.part,
                file: archive.part_name(e.part),
                entries: 1,
            }),
        }
    }
    missing.sort_by_key(|m| m.part);
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_numbers_are_two_digits_after_p() {
        assert_eq!(part_number_of(Path::new("a/MiscBin.p00")), Some(0));
        assert_eq!(part_number_of(Path::new("MiscBin.P07")), Some(7));
        assert_eq!(part_number_of(Path::new("MiscBin.p0")), None);
        assert_eq!(part_number_of(Path::new("MiscBin.pak")), None);
        assert_eq!(part_number_of(Path::new("MiscBin.p001")), None);
    }
}
