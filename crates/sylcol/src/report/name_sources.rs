//! Where an archive's entry names came from (every command that opens an
//! archive says it: `names`), and where `names harvest` kept the names it
//! found (`kept`). See docs/names.md.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;

/// Where a name list came from, in the order they win (the first list
/// that names an entry names it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NameOrigin {
    /// sylcol's built-in list (the seeds' names).
    BuiltIn,
    /// The names the user gave (`--names FILE`, Python's `names=`).
    Given,
    /// The `names.txt` beside the archive.
    Beside,
    /// The per-user cache entry of the archive (keyed by its index's
    /// SHA-256), where `names harvest` keeps names it cannot write beside.
    Cache,
}

/// One name list an archive was opened with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NameSource {
    /// Where it came from.
    pub origin: NameOrigin,
    /// Its file, if it is one.
    pub path: Option<String>,
    /// How many of the archive's entries it named (an entry counts for
    /// the first list that names it).
    pub entries: usize,
}

/// The names an archive was opened with: how many entries each list named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NameSources {
    /// The archive as named.
    pub archive: String,
    /// Its entries (index rows).
    pub entries: usize,
    /// The entries no list names (shown as `$HASH[.MAGIC]`).
    pub unnamed: usize,
    /// Every list read, in the order they win; the built-in list always.
    pub sources: Vec<NameSource>,
}

impl NameSources {
    /// One line: `names: 20 from samples/names.txt, 18 built-in (2 of 40
    /// entries unnamed)`; `label` names the archive when a command opened
    /// several.
    pub fn line(&self, label: bool) -> String {
        let parts: Vec<String> = self
            .sources
            .iter()
            .filter(|s| s.path.is_some() || s.entries > 0)
            .map(|s| match (&s.path, s.origin) {
                (_, NameOrigin::BuiltIn) => format!("{} built-in", s.entries),
                (Some(p), NameOrigin::Cache) => format!("{} from the cache {p}", s.entries),
                (Some(p), _) => format!("{} from {p}", s.entries),
                (None, _) => format!("{} given", s.entries),
            })
            .collect();
        let head = if label {
            format!("names ({})", self.archive)
        } else {
            "names".to_string()
        };
        let named = if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        };
        let tail = match self.unnamed {
            0 => String::new(),
            n if n == self.entries => format!(
                " ({n} entries unnamed: `sylcol names harvest FOLDER` finds names in the disc's strings)"
            ),
            n => format!(" ({n} of {} entries unnamed)", self.entries),
        };
        format!("{head}: {named}{tail}")
    }
}

/// The lines of every archive a command opened (none when it opened
/// none), each newline-terminated.
pub fn lines(list: &[NameSources]) -> String {
    let mut out = String::new();
    for s in list {
        let _ = writeln!(out, "{}", s.line(list.len() > 1));
    }
    out
}

/// Where `names harvest` kept an archive's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NamePlace {
    /// The `names.txt` beside the archive.
    Beside,
    /// The per-user cache (the folder could not be written).
    Cache,
}

/// The names `names harvest` kept for one archive, read by every later
/// command that opens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NamesKept {
    /// The archive.
    pub archive: String,
    /// The file written.
    pub path: String,
    /// Beside the archive, or in the cache.
    pub place: NamePlace,
    /// Names added to the file.
    pub added: usize,
    /// Names the file already gave these entries (kept as they were).
    pub kept: usize,
    /// Why the names are not beside the archive (when in the cache).
    pub not_beside: Option<String>,
}

impl NamesKept {
    /// One line: `samples/names.txt: 20 names for samples/MiscBin.pak (20 new)`.
    pub fn line(&self) -> String {
        let why = match &self.not_beside {
            Some(why) => format!("; {why}"),
            None => String::new(),
        };
        let kept = match self.kept {
            0 => String::new(),
            n => format!(", {n} already there"),
        };
        format!(
            "names kept in {}: {} for {} ({} new{kept}{why})",
            self.path,
            self.added + self.kept,
            self.archive,
            self.added
        )
    }
}
