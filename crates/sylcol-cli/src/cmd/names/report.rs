//! The harvest's report: per archive, which entries a string named (and
//! where it was found), which stay unnamed; the names file; the figures.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use sylcol_format::ipfb::names::unknown_display;
use sylcol_format::ipfb::{Archive, IndexEntry, NameBook};
use sylcol_format::naming::{Hit, Stats, best_names};

use super::Found;
use super::harvest::Findings;

/// Unnamed entries the text report lists per archive (JSON lists all).
const UNNAMED_SHOWN: usize = 20;

/// Everything `names harvest` reports.
#[derive(Serialize)]
pub struct Report {
    /// One block per archive, in path order.
    pub archives: Vec<ArchiveReport>,
    /// Entries or files that could not be read.
    pub failures: Vec<String>,
    /// What was scanned and how fast.
    pub stats: Figures,
}

/// One archive's entries, named and unnamed.
#[derive(Serialize)]
pub struct ArchiveReport {
    /// The archive's path.
    pub path: String,
    /// Its name in `pak+inner` lines.
    pub pak: String,
    /// Entries in its index.
    pub entries: usize,
    /// Entries a string named.
    pub named: Vec<Named>,
    /// Entries no string named.
    pub unnamed: Vec<Unnamed>,
}

/// An entry a string named.
#[derive(Serialize)]
pub struct Named {
    /// The entry hash, 8 hex digits.
    pub hash: String,
    /// The name.
    pub name: String,
    /// The string it came from (the name itself, or the string a variant was made from).
    pub found: String,
    /// The file (archive entry or loose file) the string is in.
    pub source: String,
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
#[derive(Serialize)]
pub struct Unnamed {
    /// The entry hash.
    pub hash: String,
    /// `$XXXXXXXX[.MAGIC]`.
    pub display: String,
    /// The name sylcol's built-in list gives it, if any.
    pub builtin: Option<String>,
}

/// Harvest figures.
#[derive(Serialize)]
pub struct Figures {
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

impl Report {
    /// Assembles the report from the workers' results.
    pub fn build(
        found: &[Found],
        archives: &[Archive],
        hits: &[Hit],
        findings: &Findings,
        sources: &[Option<(usize, IndexEntry)>],
        stats: Stats,
        elapsed: Duration,
    ) -> Report {
        let best: HashMap<u32, (&Hit, Vec<&Hit>)> = best_names(hits)
            .into_iter()
            .map(|b| (b.0.hash, b))
            .collect();
        let mut magic_at = HashMap::new();
        for (job, source) in sources.iter().enumerate() {
            if let Some((a, e)) = source {
                magic_at.insert(
                    (*a, e.location(), e.stored_size),
                    findings.magics[job].clone(),
                );
            }
        }
        let builtin = NameBook::builtin();
        let blocks = found
            .iter()
            .zip(archives)
            .enumerate()
            .map(|(a, (f, archive))| {
                let mut block = ArchiveReport {
                    path: f.path.display().to_string(),
                    pak: f.pak.clone(),
                    entries: archive.entries().len(),
                    named: Vec::new(),
                    unnamed: Vec::new(),
                };
                for e in archive.entries() {
                    match best.get(&e.hash) {
                        Some((hit, rivals)) => block.named.push(named(hit, rivals, findings)),
                        None => {
                            let magic = magic_at
                                .get(&(a, e.location(), e.stored_size))
                                .cloned()
                                .flatten();
                            block.unnamed.push(Unnamed {
                                hash: format!("{:08X}", e.hash),
                                display: unknown_display(e.hash, magic.as_deref()),
                                builtin: builtin.get(e.hash).map(str::to_string),
                            });
                        }
                    }
                }
                block.named.sort_by_key(|n| n.name.to_ascii_lowercase());
                block
            })
            .collect();
        let seconds = elapsed.as_secs_f64().max(1e-9);
        Report {
            archives: blocks,
            failures: findings.failures.clone(),
            stats: Figures {
                archives: archives.len(),
                files_read: sources.len(),
                bytes: stats.bytes,
                strings: stats.strings,
                candidates: stats.candidates,
                seconds: elapsed.as_secs_f64(),
                mb_per_second: stats.bytes as f64 / 1e6 / seconds,
                candidates_per_second: stats.candidates as f64 / seconds,
            },
        }
    }

    /// The names file: `pak+inner` lines, by archive then name.
    pub fn names_file(&self) -> String {
        let named: usize = self.archives.iter().map(|a| a.named.len()).sum();
        let total: usize = self.archives.iter().map(|a| a.entries).sum();
        let mut out =
            format!("# sylcol names harvest: {named} of {total} entries named (docs/names.md)\n");
        for a in &self.archives {
            for n in &a.named {
                out.push_str(&format!("{}+{}\n", a.pak, n.name));
            }
        }
        out
    }
}

fn named(hit: &Hit, rivals: &[&Hit], findings: &Findings) -> Named {
    Named {
        hash: format!("{:08X}", hit.hash),
        name: hit.name.clone(),
        found: hit.found.clone(),
        source: findings.labels.get(hit.source).cloned().unwrap_or_default(),
        offset: hit.offset,
        exact: hit.exact,
        occurrences: hit.occurrences,
        rivals: rivals.iter().map(|h| h.name.clone()).collect(),
    }
}

/// Prints the report (text or JSON).
pub fn print(report: &Report, output: Option<&Path>, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
        return Ok(());
    }
    for a in &report.archives {
        println!(
            "{}: {} entries, {} named, {} unnamed",
            a.path,
            a.entries,
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
            println!(
                "  {} {:<32} found{how} in {} at {:#x}{times}",
                n.hash, n.name, n.source, n.offset
            );
            if !n.rivals.is_empty() {
                println!("      also hashing here: {}", n.rivals.join(", "));
            }
        }
        print_unnamed(&a.unnamed);
    }
    for f in &report.failures {
        eprintln!("sylcol: {f}");
    }
    let s = &report.stats;
    println!(
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
    if let Some(path) = output {
        let lines: usize = report.archives.iter().map(|a| a.named.len()).sum();
        println!("names written to {} ({lines} lines)", path.display());
    }
    Ok(())
}

fn print_unnamed(unnamed: &[Unnamed]) {
    if unnamed.is_empty() {
        return;
    }
    let shown: Vec<String> = unnamed
        .iter()
        .take(UNNAMED_SHOWN)
        .map(|u| match &u.builtin {
            Some(b) => format!("{} ({b}, built in)", u.display),
            None => u.display.clone(),
        })
        .collect();
    let more = unnamed.len().saturating_sub(UNNAMED_SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more (--json lists all)")
    } else {
        String::new()
    };
    println!("  unnamed: {}{tail}", shown.join(", "));
}
