//! The names an archive's entries are shown by: the built-in list, the
//! names a user gives (`--names FILE`, Python's `names=`), a `names.txt`
//! beside the archive, and the per-user cache entry of the archive
//! ([`keep`] writes the last two: what `names harvest` found).

use std::path::{Path, PathBuf};

use sylcol_format::ipfb::{Archive, NameBook};

use super::SourceError;
use crate::report::name_sources::{NameOrigin, NameSource, NameSources};

mod keep;

pub use keep::{cache_file, keep};

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

/// One list an archive is named from, read.
struct Layer {
    origin: NameOrigin,
    path: Option<PathBuf>,
    book: NameBook,
}

impl NameList {
    /// The built-in names, a `names.txt` beside each archive and its cache
    /// entry only.
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

    /// Names the entries of `archive` (opened from `path`) and says where
    /// each name came from. The lists, in the order they win where they
    /// disagree: the built-in names, the explicit names (every line), a
    /// `names.txt` beside it (its bare lines and the `pak+inner` lines of
    /// this archive's file name), its cache entry (every line: the entry
    /// is this archive's by its index's hash).
    pub fn apply(&self, path: &Path, archive: &mut Archive) -> Result<NameSources, SourceError> {
        let beside = path.with_file_name(NAMES_BESIDE);
        let cached = cache_file(path).filter(|f| f.is_file());
        self.apply_lists(
            path,
            archive,
            || beside.is_file().then(|| read_list(&beside)).transpose(),
            cached,
        )
    }

    /// [`NameList::apply`] with the text of the `names.txt` beside the
    /// archive from `beside` (`None`: there is none) and the cache entry
    /// `cached` (`None`: none, as in a browser page).
    pub(super) fn apply_lists(
        &self,
        path: &Path,
        archive: &mut Archive,
        beside: impl FnOnce() -> Result<Option<String>, SourceError>,
        cached: Option<PathBuf>,
    ) -> Result<NameSources, SourceError> {
        let mut layers = vec![Layer {
            origin: NameOrigin::BuiltIn,
            path: None,
            book: NameBook::builtin(),
        }];
        let mut add = |origin, path: Option<PathBuf>, fill: &dyn Fn(&mut NameBook)| {
            let mut book = NameBook::new();
            fill(&mut book);
            layers.push(Layer { origin, path, book });
        };
        match &self.explicit {
            Some(Explicit::File(file)) => {
                let text = read_list(file)?;
                add(NameOrigin::Given, Some(file.clone()), &|b| {
                    b.add_list(&text);
                });
            }
            Some(Explicit::Lines(text)) => add(NameOrigin::Given, None, &|b| {
                b.add_list(text);
            }),
            None => {}
        }
        if let Some(text) = beside()? {
            let own = path.file_name().unwrap_or_default().to_string_lossy();
            add(
                NameOrigin::Beside,
                Some(path.with_file_name(NAMES_BESIDE)),
                &|b| {
                    b.add_list_for(&text, &own);
                },
            );
        }
        if let Some(cached) = cached {
            let text = read_list(&cached)?;
            add(NameOrigin::Cache, Some(cached), &|b| {
                b.add_list(&text);
            });
        }
        let sources = sources_of(path, archive, &layers);
        let mut names = NameBook::new();
        for layer in &layers {
            names.merge(&layer.book);
        }
        archive.names = names;
        Ok(sources)
    }

    /// The name files opening the archive `path` reads (or would): the
    /// explicit file, the `names.txt` beside it and its cache entry.
    pub fn files(&self, path: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.file().map(Path::to_path_buf).into_iter().collect();
        files.push(path.with_file_name(NAMES_BESIDE));
        files.extend(cache_file(path));
        files
    }
}

/// How many entries of `archive` each layer names (each entry counted for
/// the first layer that names it).
fn sources_of(path: &Path, archive: &Archive, layers: &[Layer]) -> NameSources {
    let mut counts = vec![0usize; layers.len()];
    let mut unnamed = 0;
    for e in archive.entries() {
        match layers.iter().position(|l| l.book.get(e.hash).is_some()) {
            Some(i) => counts[i] += 1,
            None => unnamed += 1,
        }
    }
    NameSources {
        archive: path.display().to_string(),
        entries: archive.entries().len(),
        unnamed,
        sources: layers
            .iter()
            .zip(counts)
            .map(|(l, entries)| NameSource {
                origin: l.origin,
                path: l.path.as_ref().map(|p| p.display().to_string()),
                entries,
            })
            .collect(),
    }
}

fn read_list(file: &Path) -> Result<String, SourceError> {
    std::fs::read_to_string(file).map_err(|error| SourceError::Names {
        path: file.to_path_buf(),
        error,
    })
}
