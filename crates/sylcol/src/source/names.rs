//! The names an archive's entries are shown by: the built-in list, a
//! `names.txt` beside the archive, and the names a user gives
//! (`--names FILE`, Python's `names=`).

use std::path::{Path, PathBuf};

use sylcol_format::ipfb::Archive;

use super::SourceError;

/// The name list `names harvest` writes, picked up beside an archive.
pub const NAMES_BESIDE: &str = "names.txt";

/// The names given beside the built-in ones, resolved once by a front and
/// passed down (never a process-wide setting).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameList {
    explicit: Option<Explicit>,
}

/// Names the user gave.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Explicit {
    /// A file of names, one a line (read when an archive is opened).
    File(PathBuf),
    /// Names given as values, one a line.
    Lines(String),
}

impl NameList {
    /// The built-in names and a `names.txt` beside each archive only.
    pub fn new() -> NameList {
        NameList::default()
    }

    /// Also the names of `file` (one a line, `pak+inner` or bare, `#`
    /// comments), as `names harvest -o` writes it; `None`: none.
    pub fn with_file(file: Option<PathBuf>) -> NameList {
        NameList {
            explicit: file.map(Explicit::File),
        }
    }

    /// Also `names` (`pak+inner` or bare).
    pub fn with_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> NameList {
        let lines: Vec<String> = names.into_iter().map(|s| s.as_ref().to_string()).collect();
        NameList {
            explicit: Some(Explicit::Lines(lines.join("\n"))),
        }
    }

    /// The explicit names file, if one was given.
    pub fn file(&self) -> Option<&Path> {
        match &self.explicit {
            Some(Explicit::File(f)) => Some(f),
            _ => None,
        }
    }

    /// Names the entries of `archive` (opened from `path`): the explicit
    /// names, then those a `names.txt` beside it gives it (its own
    /// `pak+inner` lines and bare ones; the explicit names win where they
    /// disagree).
    pub fn apply(&self, path: &Path, archive: &mut Archive) -> Result<(), SourceError> {
        match &self.explicit {
            Some(Explicit::File(file)) => archive.names.add_list(&read_list(file)?),
            Some(Explicit::Lines(text)) => archive.names.add_list(text),
            None => 0,
        };
        let beside = path.with_file_name(NAMES_BESIDE);
        if beside.is_file() {
            let own = path.file_name().unwrap_or_default();
            archive
                .names
                .add_list_for(&read_list(&beside)?, &own.to_string_lossy());
        }
        Ok(())
    }

    /// The name files opening the archive `path` reads (or would): the
    /// explicit file and the `names.txt` beside it.
    pub fn files(&self, path: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.file().map(Path::to_path_buf).into_iter().collect();
        files.push(path.with_file_name(NAMES_BESIDE));
        files
    }
}

fn read_list(file: &Path) -> Result<String, SourceError> {
    std::fs::read_to_string(file).map_err(|error| SourceError::Names {
        path: file.to_path_buf(),
        error,
    })
}
