//! `names harvest`, `names guess` and `pairs`: which names the disc's
//! strings or a pattern give the archives' entries, and which REGN goes
//! with which MCOL (docs/names.md, docs/formats/regn.md).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;

use super::ErrorReport;
use super::name_sources::{NameSources, NamesKept};
use crate::pairs::{By, Object, pair};

/// Unnamed entries the text report lists per archive (JSON lists all).
const UNNAMED_SHOWN: usize = 20;

/// What `names harvest` reports.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Harvest {
    /// One block per archive, in path order.
    pub archives: Vec<HarvestArchive>,
    /// Where the names file was written (`-o`), if anywhere.
    pub output: Option<String>,
    /// Without `-o`: where each archive's names were kept (its
    /// `names.txt`, or the cache), for every later command to read.
    pub kept: Vec<NamesKept>,
    /// What was scanned and how fast.
    pub stats: HarvestStats,
    /// Entries or files that could not be read (the rest were harvested).
    pub errors: Vec<ErrorReport>,
}

/// One archive's entries, named and unnamed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct HarvestArchive {
    /// The archive's path.
    pub path: String,
    /// Its name in `pak+inner` lines (its path below the harvested folder, `\`-separated).
    pub pak: String,
    /// Entries in its index.
    pub entry_count: usize,
    /// Entries a string named.
    pub named: Vec<Named>,
    /// Entries no string named.
    pub unnamed: Vec<Unnamed>,
}

/// An entry a string named.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Named {
    /// The entry hash, eight hex digits.
    pub hash: String,
    /// The name.
    pub name: String,
    /// The string it came from: the name itself, or the string a variant was made of.
    pub found: String,
    /// The file the string is in: `ARCHIVE.pak+ENTRY` or a loose file.
    pub path: String,
    /// Byte offset of the string in that file (uncompressed).
    pub offset: u64,
    /// Whether the name is the string itself rather than a variant of it.
    pub exact: bool,
    /// How many strings gave this name.
    pub occurrences: u64,
    /// Other names that hash to the same entry (a 32-bit hash can collide).
    pub rivals: Vec<String>,
}

/// An entry no string named.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Unnamed {
    /// The entry hash.
    pub hash: String,
    /// How to name it in `ARCHIVE.pak+ENTRY`: `$HASH[.MAGIC]`.
    pub entry: String,
    /// The name sylcol's built-in list gives it, if any.
    pub builtin: Option<String>,
}

/// Harvest figures.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct HarvestStats {
    /// Archives read.
    pub archives: usize,
    /// Entries and files read (one per stored location).
    pub files_read: usize,
    /// Bytes scanned (uncompressed).
    pub bytes: u64,
    /// Strings found.
    pub strings: u64,
    /// Candidate names hashed.
    pub candidates: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// Scanned MB (10^6 bytes) per second.
    pub mb_per_second: f64,
    /// Candidates hashed per second.
    pub candidates_per_second: f64,
}

impl Harvest {
    /// The names file: `pak+inner` lines, by archive then name.
    pub fn names_file(&self) -> String {
        let named: usize = self.archives.iter().map(|a| a.named.len()).sum();
        let total: usize = self.archives.iter().map(|a| a.entry_count).sum();
        let mut out =
            format!("# sylcol names harvest: {named} of {total} entries named (docs/names.md)\n");
        for a in &self.archives {
            for n in &a.named {
                let _ = writeln!(out, "{}+{}", a.pak, n.name);
            }
        }
        out
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for a in &self.archives {
            let _ = writeln!(
                out,
                "{}: {} entries, {} named, {} unnamed",
                a.path,
                a.entry_count,
                a.named.len(),
                a.unnamed.len()
            );
            for n in &a.named {
                let how = if n.exact {
                    String::new()
                } else {
                    format!(" from {:?}", n.found)
                };
                let times = match n.occurrences {
                    1 => String::new(),
                    k => format!(" ({k} times)"),
                };
                let _ = writeln!(
                    out,
                    "  {} {:<32} found{how} in {} at {:#x}{times}",
                    n.hash, n.name, n.path, n.offset
                );
                if !n.rivals.is_empty() {
                    let _ = writeln!(out, "      also hashing here: {}", n.rivals.join(", "));
                }
            }
            unnamed_text(&a.unnamed, &mut out);
        }
        let s = &self.stats;
        let _ = writeln!(
            out,
            "harvest: {} archives, {} entries or files, {:.1} MB scanned, {} strings, {} candidates hashed in {:.2} s ({:.1} MB/s, {:.2} M candidates/s)",
            s.archives,
            s.files_read,
            s.bytes as f64 / 1e6,
            s.strings,
            s.candidates,
            s.seconds,
            s.mb_per_second,
            s.candidates_per_second / 1e6
        );
        if let Some(path) = &self.output {
            let lines: usize = self.archives.iter().map(|a| a.named.len()).sum();
            let _ = writeln!(out, "names written to {path} ({lines} lines)");
        }
        for k in &self.kept {
            let _ = writeln!(out, "{}", k.line());
        }
        out
    }
}

fn unnamed_text(unnamed: &[Unnamed], out: &mut String) {
    if unnamed.is_empty() {
        return;
    }
    let shown: Vec<String> = unnamed
        .iter()
        .take(UNNAMED_SHOWN)
        .map(|u| match &u.builtin {
            Some(b) => format!("{} ({b}, built in)", u.entry),
            None => u.entry.clone(),
        })
        .collect();
    let more = unnamed.len().saturating_sub(UNNAMED_SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more (--json lists all)")
    } else {
        String::new()
    };
    let _ = writeln!(out, "  unnamed: {}{tail}", shown.join(", "));
}

/// What `names guess` reports when given archives.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Guess {
    /// The pattern as given.
    pub pattern: String,
    /// Candidates it expands to (saturating at 2^64 - 1).
    pub candidates: u64,
    /// Archives searched.
    pub archives: usize,
    /// Time spent hashing and looking up.
    pub seconds: f64,
    /// Candidates per second.
    pub candidates_per_second: f64,
    /// The candidates that are entries.
    pub found: Vec<Guessed>,
}

/// A candidate that is an entry.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Guessed {
    /// The candidate name.
    pub name: String,
    /// Its MakeEntryID, eight hex digits.
    pub hash: String,
    /// `pak+name` for each archive holding it.
    pub entries: Vec<String>,
}

impl Guess {
    /// The report as text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for f in &self.found {
            for e in &f.entries {
                let _ = writeln!(out, "{} {e}", f.hash);
            }
        }
        let _ = writeln!(
            out,
            "{} candidates hashed in {:.3} s ({:.1} M/s); {} exist ({} archives searched)",
            self.candidates,
            self.seconds,
            self.candidates_per_second / 1e6,
            self.found.len(),
            self.archives
        );
        out
    }
}

/// What `pairs` reports.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Pairs {
    /// The archive.
    pub path: String,
    /// REGN objects in it.
    pub regn: usize,
    /// MCOL objects in it.
    pub mcol: usize,
    /// The pairs made, by REGN.
    pub pairs: Vec<PairRow>,
    /// REGNs the evidence does not pair.
    pub ambiguous: Vec<AmbiguousRow>,
    /// MCOLs no REGN was paired with.
    pub unpaired_mcol: Vec<String>,
    /// Entries that could not be read or decoded.
    pub errors: Vec<ErrorReport>,
    /// Where the entry names came from.
    pub names: Vec<NameSources>,
}

/// One pairing.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PairRow {
    /// The REGN entry (`ARCHIVE.pak+ENTRY` naming).
    pub regn: String,
    /// The MCOL entry.
    pub mcol: String,
    /// `name` (one stem, `.rgn` / `.col`) or `grid` (the only identical grid left).
    pub by: String,
    /// The REGN's grid (and the MCOL's when they differ), in words.
    pub grid: String,
    /// Whether the two grids are bit-identical.
    pub grids_agree: bool,
    /// The evidence, in words.
    pub evidence: String,
}

/// A REGN left unpaired.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AmbiguousRow {
    /// The REGN entry.
    pub regn: String,
    /// Its grid, in words.
    pub grid: String,
    /// Unpaired MCOLs with an identical grid.
    pub candidates: Vec<String>,
    /// Other unpaired REGNs with the same grid.
    pub rivals: Vec<String>,
    /// Why it is not paired, in words.
    pub evidence: String,
}

impl Pairs {
    /// Pairs `regns` with `mcols` ([`crate::pairs::pair`]) and words the evidence.
    pub fn of(path: &str, regns: &[Object], mcols: &[Object], errors: Vec<ErrorReport>) -> Pairs {
        let p = pair(regns, mcols);
        let pairs = p
            .pairs
            .iter()
            .map(|x| {
                let (r, m) = (&regns[x.regn], &mcols[x.mcol]);
                let grid = if x.grids_agree {
                    r.grid.describe()
                } else {
                    format!("{} / MCOL: {}", r.grid.describe(), m.grid.describe())
                };
                let evidence = match (x.by, x.grids_agree) {
                    (By::Name, true) => "one stem, .rgn / .col; the grids agree",
                    (By::Name, false) => "one stem, .rgn / .col; the grids DIFFER",
                    (By::Grid, _) => {
                        "the only unpaired MCOL with an identical bbox, cell size and grid"
                    }
                };
                PairRow {
                    regn: r.display.clone(),
                    mcol: m.display.clone(),
                    by: if x.by == By::Name { "name" } else { "grid" }.into(),
                    grid,
                    grids_agree: x.grids_agree,
                    evidence: evidence.into(),
                }
            })
            .collect();
        let ambiguous = p
            .ambiguous
            .iter()
            .map(|a| {
                let evidence = match (a.candidates.len(), a.rivals.len()) {
                    (0, _) => "no unpaired MCOL has this grid".to_string(),
                    (n, 0) => format!("{n} unpaired MCOLs share this grid"),
                    (n, k) => format!("{n} unpaired MCOLs and {} REGNs share this grid", k + 1),
                };
                AmbiguousRow {
                    regn: regns[a.regn].display.clone(),
                    grid: regns[a.regn].grid.describe(),
                    candidates: a
                        .candidates
                        .iter()
                        .map(|&m| mcols[m].display.clone())
                        .collect(),
                    rivals: a.rivals.iter().map(|&r| regns[r].display.clone()).collect(),
                    evidence,
                }
            })
            .collect();
        Pairs {
            path: path.to_string(),
            regn: regns.len(),
            mcol: mcols.len(),
            pairs,
            ambiguous,
            unpaired_mcol: p
                .unpaired_mcol
                .iter()
                .map(|&m| mcols[m].display.clone())
                .collect(),
            errors,
            names: Vec::new(),
        }
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let by_name = self.pairs.iter().filter(|p| p.by == "name").count();
        let _ = writeln!(
            out,
            "{}: {} REGN, {} MCOL: {} paired ({by_name} by name, {} by grid), {} not paired",
            self.path,
            self.regn,
            self.mcol,
            self.pairs.len(),
            self.pairs.len() - by_name,
            self.ambiguous.len()
        );
        for p in &self.pairs {
            let _ = writeln!(
                out,
                "  {:<28} <-> {:<28} by {}: {}",
                p.regn, p.mcol, p.by, p.evidence
            );
            let _ = writeln!(out, "      {}", p.grid);
        }
        for a in &self.ambiguous {
            let _ = writeln!(out, "  {:<28} AMBIGUOUS: {}", a.regn, a.evidence);
            let _ = writeln!(out, "      {}", a.grid);
            if !a.candidates.is_empty() {
                let _ = writeln!(out, "      candidates: {}", a.candidates.join(", "));
            }
        }
        if !self.unpaired_mcol.is_empty() {
            let _ = writeln!(
                out,
                "  MCOL without a REGN: {}",
                self.unpaired_mcol.join(", ")
            );
        }
        out
    }
}
