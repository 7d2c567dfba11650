//! `pak list`, `pak extract` and `pak build`: IPFB archives.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::ipfb::{Archive, IndexEntry};

use super::ErrorReport;
use super::name_sources::NameSources;
use crate::source::missing_parts;

/// One archive entry, as `pak list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakEntry {
    /// The entry's hash, eight hex digits.
    pub hash: String,
    /// Its name, when the name list knows the hash.
    pub name: Option<String>,
    /// How to name it in `ARCHIVE.pak+ENTRY`: the name, or `$HASH.MAGIC`.
    pub entry: String,
    /// The part file holding it (`.p00` is 0).
    pub part: u8,
    /// Its offset in that part.
    pub offset: u32,
    /// Bytes it occupies in the part (compressed size for Z1).
    pub stored_bytes: u32,
    /// Its length once inflated (none when unreadable).
    pub bytes: Option<u64>,
    /// Whether it is Z1-compressed (none when unreadable).
    pub compressed: Option<bool>,
    /// Its first four bytes when printable.
    pub magic: Option<String>,
    /// Why it could not be read (none when it could).
    pub error: Option<ErrorReport>,
}

impl PakEntry {
    /// Probes `e` (and with `verify` inflates it, checking sizes and
    /// Adler-32) to fill its row.
    pub fn of(archive: &Archive, e: &IndexEntry, verify: bool) -> Self {
        let probed = archive.probe(e).and_then(|info| {
            if verify {
                archive.copy_entry(&info, &mut std::io::sink())?;
            }
            Ok(info)
        });
        let mut row = PakEntry::unread(archive, e);
        match probed {
            Ok(info) => {
                row.entry = info.display;
                row.bytes = Some(info.size);
                row.compressed = Some(info.compressed);
                row.magic = info.magic;
            }
            Err(err) => row.error = Some(ErrorReport::from_error(&err)),
        }
        row
    }

    /// The row of `e` from the index alone (its payload not read).
    pub fn unread(archive: &Archive, e: &IndexEntry) -> Self {
        PakEntry {
            hash: format!("{:08X}", e.hash),
            name: archive.names.get(e.hash).map(str::to_string),
            entry: archive.short_display(e),
            part: e.part,
            offset: e.offset,
            stored_bytes: e.stored_size,
            bytes: None,
            compressed: None,
            magic: None,
            error: None,
        }
    }
}

/// What `pak list` reports.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakList {
    /// Always `IPFB`.
    pub format: &'static str,
    /// The archive as named.
    pub path: String,
    /// The entry count the index header declares.
    pub declared_entries: u64,
    /// Every entry, in index order.
    pub entries: Vec<PakEntry>,
    /// Problems of the index itself (each entry's are in its row).
    pub errors: Vec<ErrorReport>,
    /// Where the entry names of each archive opened came from.
    pub names: Vec<NameSources>,
}

impl PakList {
    /// Every row of `archive`. A part the index points into that is
    /// missing is one error, with its entries counted, which each of
    /// their rows carries too (the text shows it once).
    pub fn new(path: &str, archive: &Archive, verify: bool) -> Self {
        let missing: Vec<(u8, ErrorReport)> = missing_parts(archive)
            .iter()
            .map(|m| (m.part, ErrorReport::from_error(&m.error(path, archive))))
            .collect();
        let mut errors = index_problems(path, archive);
        errors.extend(missing.iter().map(|(_, e)| e.clone()));
        let row = |e: &IndexEntry| match missing.iter().find(|(part, _)| *part == e.part) {
            Some((_, error)) => PakEntry {
                error: Some(error.clone()),
                ..PakEntry::unread(archive, e)
            },
            None => PakEntry::of(archive, e, verify),
        };
        PakList {
            format: "IPFB",
            path: path.to_string(),
            declared_entries: archive.index.declared_count as u64,
            entries: archive.entries().iter().map(row).collect(),
            errors,
            names: Vec::new(),
        }
    }

    /// Every error once: the index's and each row's (the rows of a
    /// missing part share its one error).
    pub fn all_errors(&self) -> Vec<ErrorReport> {
        let mut all = self.errors.clone();
        for e in self.entries.iter().filter_map(|e| e.error.as_ref()) {
            if !all.contains(e) {
                all.push(e.clone());
            }
        }
        all
    }

    /// Whether any entry or the index failed.
    pub fn failed(&self) -> bool {
        !self.errors.is_empty() || self.entries.iter().any(|e| e.error.is_some())
    }

    /// The table.
    pub fn text(&self) -> String {
        let mut t = format!(
            "{}: {} entries (index declares {})\n{:<8} {:>4} {:>10} {:>10} {:>10} {:<3} {:<5} entry\n",
            self.path,
            self.entries.len(),
            self.declared_entries,
            "hash",
            "part",
            "offset",
            "stored",
            "bytes",
            "z1",
            "magic"
        );
        for r in &self.entries {
            let size = r.bytes.map_or_else(|| "?".into(), |s| s.to_string());
            let z1 = match r.compressed {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            };
            let magic = r.magic.as_deref().unwrap_or("-");
            let _ = writeln!(
                t,
                "{} {:>4} {:>#10x} {:>10} {:>10} {:<3} {:<5} {}",
                r.hash, r.part, r.offset, r.stored_bytes, size, z1, magic, r.entry
            );
            // An error the archive's own list holds (a missing part's)
            // is said once, not under each of its rows.
            if let Some(err) = r.error.as_ref().filter(|e| !self.errors.contains(e)) {
                let _ = writeln!(t, "    error: {}", err.message);
            }
        }
        t
    }
}

/// The index problems of `archive` as errors on `path`.
pub fn index_problems(path: &str, archive: &Archive) -> Vec<ErrorReport> {
    archive
        .index
        .problems
        .iter()
        .map(|p| ErrorReport {
            message: format!("{path}: index {p}"),
            path: Some(path.to_string()),
            offset: Some(p.offset),
            kind: super::ErrorKind::Archive,
        })
        .collect()
}

/// One extracted entry.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Extracted {
    /// The entry's name as in `ARCHIVE.pak+ENTRY`.
    pub entry: String,
    /// The file written.
    pub path: String,
    /// Its length.
    pub bytes: u64,
}

/// What `pak extract` did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakExtract {
    /// The archive as named.
    pub path: String,
    /// The output folder.
    pub output: String,
    /// Entries selected (all, or those named).
    pub selected: usize,
    /// Every file written.
    pub files: Vec<Extracted>,
    /// Entries that could not be found, read or written.
    pub errors: Vec<ErrorReport>,
    /// Where the entry names of each archive opened came from.
    pub names: Vec<NameSources>,
}

impl PakExtract {
    /// The summary line.
    pub fn text(&self) -> String {
        format!(
            "{}: extracted {} of {} entries to {}\n",
            self.path,
            self.files.len(),
            self.selected,
            self.output
        )
    }
}

/// What `pak build` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakBuilt {
    /// The folder read.
    pub path: String,
    /// The index written (`NAME.pak`; parts `NAME.pNN` beside it).
    pub output: String,
    /// Entries written.
    pub entries: usize,
    /// Part files written.
    pub parts: usize,
    /// Entries stored Z1-compressed.
    pub compressed: usize,
    /// The manifest `pak extract` wrote that the build followed (order,
    /// shared entries, parts, header words), if the folder had one.
    pub manifest: Option<String>,
    /// Entries whose stored bytes were kept as they are in the archive
    /// the manifest names (same part, offset and bytes).
    pub kept: usize,
    /// Entries whose content changed (or could not be kept), stored anew.
    pub stored_anew: usize,
    /// Why entries could not keep their stored bytes, or what the folder
    /// changed (entries removed, added), a sentence each.
    pub notes: Vec<String>,
    /// Part files of the archive this one replaced that the new index does
    /// not use (`NAME.p01` after a rebuild into one part): removed.
    pub stale_parts_removed: Vec<String>,
    /// Files the build meant to remove once the new archive was in place
    /// but could not (a moved-aside copy of a replaced file, a stale
    /// part), one sentence each naming the file: no index uses them, the
    /// new archive is whole. Empty normally.
    pub warnings: Vec<String>,
}

impl PakBuilt {
    /// The summary line, and a line per stale part removed.
    pub fn text(&self) -> String {
        let mut t = format!(
            "{}: {} entries in {} part(s)\n",
            self.output, self.entries, self.parts
        );
        if let Some(manifest) = &self.manifest {
            let _ = writeln!(
                t,
                "following {manifest}: {} entries kept their stored bytes, {} stored anew",
                self.kept, self.stored_anew
            );
        }
        for note in &self.notes {
            let _ = writeln!(t, "{note}");
        }
        for stale in &self.stale_parts_removed {
            let _ = writeln!(
                t,
                "{stale}: removed, a part of the archive this one replaces (the new index does not use it)"
            );
        }
        t
    }
}

/// What `pak replace` did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakReplaced {
    /// The archive read.
    pub path: String,
    /// The index written (the archive itself with `--in-place`).
    pub output: String,
    /// Entries in the new index.
    pub entries: usize,
    /// Each new stored copy, in the order given.
    pub replaced: Vec<Replacement>,
    /// Part files of the archive replaced that the new index does not use:
    /// removed.
    pub stale_parts_removed: Vec<String>,
    /// Files that could not be removed once the new archive was in place
    /// (see `pak build`). Empty normally.
    pub warnings: Vec<String>,
}

/// One new stored copy `pak replace` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Replacement {
    /// The entries that point at it (one, or every alias with
    /// `--all-aliases`).
    pub entries: Vec<String>,
    /// The file its content came from.
    pub file: String,
    /// Its part.
    pub part: u8,
    /// Its offset in the part.
    pub offset: u32,
    /// Its stored size (compressed for Z1).
    pub stored_bytes: u32,
    /// Whether it is Z1-compressed (as the entry it replaces was).
    pub compressed: bool,
    /// `"reused"`: written over the copy it replaces, which had room;
    /// `"appended"`: after the last part's end.
    pub placed: String,
}

impl PakReplaced {
    /// A line per new stored copy.
    pub fn text(&self) -> String {
        let mut t = format!("{}: {} entries\n", self.output, self.entries);
        for r in &self.replaced {
            let how = if r.placed == "reused" {
                "in the place of the old copy"
            } else {
                "appended"
            };
            let _ = writeln!(
                t,
                "{}: {} stored bytes from {}, part {} at {:#x}, {how}",
                r.entries.join(", "),
                r.stored_bytes,
                r.file,
                r.part,
                r.offset
            );
        }
        for stale in &self.stale_parts_removed {
            let _ = writeln!(t, "{stale}: removed, the new index does not use it");
        }
        t
    }
}

/// How an interrupted replacement was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettledAs {
    /// Every new file was in place: the earlier files' backups were
    /// removed.
    Completed,
    /// The earlier files were put back, the new ones removed.
    RolledBack,
    /// Not settled: `problems` says why; the journal is kept.
    NotSettled,
    /// The journal cannot be trusted (`problems` says why: another
    /// user's, writable by others, damaged, an older format, or naming a
    /// file outside its folder or not sylcol's own): no file was changed,
    /// the journal is kept.
    Refused,
}

/// One replacement (an archive's index and parts) that a killed sylcol
/// left half-done, and what recovery did with it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RecoveredReplacement {
    /// The journal the interrupted run wrote (`.NAME.sylcol-journal-PID`).
    pub journal: String,
    /// The process that was killed.
    pub pid: u32,
    /// The files it was replacing, the archive's index last (none when
    /// the journal is refused).
    pub files: Vec<String>,
    /// What was done (with `--dry-run`: what would be).
    pub settled: SettledAs,
    /// The renames and removals taken (with `--dry-run`: to take), in
    /// order, one sentence each naming the files.
    pub steps: Vec<String>,
    /// Steps that could not be done, or why the journal is refused, one
    /// sentence each; empty when the folder holds all earlier or all new
    /// files.
    pub problems: Vec<String>,
}

impl RecoveredReplacement {
    /// The report of what [`sylcol_atomic::recover`] did (or
    /// [`sylcol_atomic::preview`] would do).
    pub fn of(r: &sylcol_atomic::Recovered) -> Self {
        use sylcol_atomic::Settled;
        RecoveredReplacement {
            journal: r.interrupted.journal.display().to_string(),
            pid: r.interrupted.pid,
            files: (r.interrupted.files())
                .map(|f| f.display().to_string())
                .collect(),
            settled: match r.settled {
                Settled::Completed => SettledAs::Completed,
                Settled::RolledBack => SettledAs::RolledBack,
                Settled::NotSettled => SettledAs::NotSettled,
                Settled::Refused => SettledAs::Refused,
            },
            steps: r.actions.iter().map(ToString::to_string).collect(),
            problems: r.problems.clone(),
        }
    }

    /// What was done: one sentence, then a line per step and per problem.
    pub fn sentence(&self) -> String {
        self.lines(true, true)
    }

    /// What will be done, before it is: one sentence, then a line per
    /// step and per problem.
    pub fn intent(&self) -> String {
        self.lines(false, true)
    }

    /// One sentence, in the past tense when `done`, then a line per step
    /// (when `with_steps`) and per problem.
    fn lines(&self, done: bool, with_steps: bool) -> String {
        let (what, them) = match &self.files[..] {
            [] => (self.journal.clone(), "some files"),
            [one] => (one.clone(), "it"),
            [.., last] => (
                format!("{last} and {} other files", self.files.len() - 1),
                "them",
            ),
        };
        let outcome = match (self.settled, done) {
            (SettledAs::Completed, true) => {
                "every new file was in place, so the copies of the earlier files were removed"
            }
            (SettledAs::Completed, false) => {
                "every new file is in place, so the copies of the earlier files will be removed"
            }
            (SettledAs::RolledBack, true) => "put back the earlier files",
            (SettledAs::RolledBack, false) => "the earlier files will be put back",
            (SettledAs::NotSettled, true) => "could not settle it, so its journal is kept",
            (SettledAs::NotSettled, false) => {
                "it cannot be fully settled, so its journal will be kept"
            }
            (SettledAs::Refused, true) => {
                "the journal cannot be trusted, so no file was changed and it is left (delete it if no sylcol was killed while writing in this folder)"
            }
            (SettledAs::Refused, false) => {
                "the journal cannot be trusted, so no file will be changed and it will be left (delete it if no sylcol was killed while writing in this folder)"
            }
        };
        let mut t = match self.settled {
            SettledAs::Refused => format!(
                "{}: a sylcol that is no longer running (pid {}) left this journal; {outcome}",
                self.journal, self.pid
            ),
            _ => format!(
                "{what}: a sylcol was killed (pid {}) while replacing {them}; {outcome}",
                self.pid
            ),
        };
        let steps = self.steps.iter().filter(|_| with_steps);
        for line in steps.chain(&self.problems) {
            let _ = write!(t, "\n  {line}");
        }
        t
    }
}

/// What `pak recover` found and did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PakRecovered {
    /// The folder looked in.
    pub folder: String,
    /// `--dry-run`: nothing was changed; each replacement's `settled` and
    /// `steps` say what would be done.
    pub dry_run: bool,
    /// The interrupted replacements found there, in journal name order.
    pub recovered: Vec<RecoveredReplacement>,
}

impl PakRecovered {
    /// A line per replacement, or one saying there was none. After a
    /// real run, the steps are left out: `pak recover` prints them (each
    /// replacement's [`RecoveredReplacement::intent`]) before it takes
    /// them.
    pub fn text(&self) -> String {
        if self.recovered.is_empty() {
            return format!("{}: nothing to recover\n", self.folder);
        }
        let mut t = String::new();
        for r in &self.recovered {
            let line = match self.dry_run {
                true => r.intent(),
                false => r.lines(true, false),
            };
            let _ = writeln!(t, "{line}");
        }
        t
    }

    /// Whether every replacement found was (or, with `--dry-run`, would
    /// be) settled.
    pub fn all_settled(&self) -> bool {
        (self.recovered.iter())
            .all(|r| !matches!(r.settled, SettledAs::NotSettled | SettledAs::Refused))
    }
}
