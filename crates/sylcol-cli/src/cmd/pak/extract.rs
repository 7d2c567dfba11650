//! `sylcol pak extract`: entries into a folder, through the one writer
//! (`crate::output::OutputDir`: no name leaves the folder, no link in it
//! is followed, control characters are mapped to `%XX`).

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::ErrorReport;
use sylcol::report::error::NotFound;
use sylcol::report::pak::{Extracted, PakExtract, index_problems};
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::{Archive, ArchiveError, EntryInfo, IndexEntry};
use sylcol_format::text::escape;

use super::outcome;
use crate::input::open_archive;
use crate::output::OutputDir;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak extract`.
#[derive(clap::Args)]
pub(super) struct ExtractArgs {
    /// The archive index.
    archive: String,
    /// Output folder (created if missing).
    #[arg(short, long)]
    output: PathBuf,
    /// Entries to extract (names or `$XXXXXXXX[.MAGIC]`); all when none.
    entries: Vec<String>,
}

/// The entries `names` select (all when empty; every entry of a hash that
/// several share); unknown names are failures.
fn select(
    archive: &Archive,
    pak: &str,
    names: &[String],
    failures: &mut Vec<ErrorReport>,
) -> Vec<IndexEntry> {
    if names.is_empty() {
        return archive.entries().to_vec();
    }
    let mut chosen = Vec::new();
    for n in names {
        let hash = inner_hash(n);
        let before = chosen.len();
        chosen.extend(archive.entries().iter().filter(|e| e.hash == hash));
        if chosen.len() == before {
            failures.push(ErrorReport::from_error(&NotFound {
                path: pak.to_string(),
                detail: format!("no entry {n} (hash {hash:08X}) in the archive"),
            }));
        }
    }
    chosen
}

/// The name each entry is written under: its display name, or for an
/// entry whose name an earlier one has (a duplicated hash; letter case
/// ignored, as on a case-blind disk) that name plus `~2`, `~3`...
fn file_names(infos: &[EntryInfo]) -> Vec<String> {
    let key = |n: &str| n.replace('\\', "/").to_lowercase();
    let natural: HashSet<String> = infos.iter().map(|i| key(&i.display)).collect();
    let mut used = HashSet::new();
    infos
        .iter()
        .map(|i| {
            if used.insert(key(&i.display)) {
                return i.display.clone();
            }
            (2..)
                .map(|n| format!("{}~{n}", i.display))
                .find(|c| !natural.contains(&key(c)) && used.insert(key(c)))
                .expect("some suffix is free")
        })
        .collect()
}

/// Runs `pak extract`.
pub(super) fn extract(a: ExtractArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = open_archive(&a.archive)?;
    let mut errors = index_problems(&a.archive, &archive);
    let selected = select(&archive, &a.archive, &a.entries, &mut errors);
    let mut probed = Vec::new();
    for e in &selected {
        match archive.probe(e) {
            Ok(info) => probed.push(info),
            Err(err) => errors.push(ErrorReport::from_error(&err)),
        }
    }
    let out = OutputDir::create(&a.output)?;
    let bar = progress_bar(probed.iter().map(|i| i.size).sum());
    let mut files = Vec::new();
    for (info, name) in probed.iter().zip(file_names(&probed)) {
        match extract_one(&archive, info, &name, &out, &bar) {
            Ok(path) => {
                note_renamed(info, &name, &path, &out, ctx);
                files.push(Extracted {
                    entry: info.display.clone(),
                    path: path.display().to_string(),
                    bytes: info.size,
                });
            }
            Err(err) => errors.push(print::error_report(&err)),
        }
    }
    bar.finish_and_clear();
    let report = PakExtract {
        path: a.archive.clone(),
        output: a.output.display().to_string(),
        selected: selected.len(),
        files,
        errors,
    };
    print::report(ctx, &report, || report.text())?;
    Ok(outcome(&report.errors, ctx))
}

/// A byte progress bar on a terminal (hidden when stderr is not one).
pub(crate) fn progress_bar(total: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Streams one entry into `name` under `out`; returns the file written.
fn extract_one(
    archive: &Archive,
    info: &EntryInfo,
    name: &str,
    out: &OutputDir,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<PathBuf> {
    bar.set_message(escape(&info.display).into_owned());
    let mut failure: Option<ArchiveError> = None;
    let written = out.write_with(name, |w| {
        let mut counted = bar.wrap_write(w);
        archive
            .copy_entry(info, &mut counted)
            .map(|_| ())
            .map_err(|e| {
                failure = Some(e);
                std::io::Error::other("entry unreadable")
            })
    });
    match (failure, written) {
        (Some(err), _) => Err(err.into()),
        (None, result) => result.with_context(|| format!("entry {}", info.display)),
    }
}

/// Says (in text mode) when an entry's file name differs from its name:
/// a duplicated hash, or control characters mapped to `%XX`. (`--json`
/// shows it in each file's `path`.)
fn note_renamed(
    info: &EntryInfo,
    name: &str,
    path: &std::path::Path,
    out: &OutputDir,
    ctx: Context,
) {
    let relative = path.strip_prefix(out.root()).unwrap_or(path);
    let relative = relative.to_string_lossy().replace('\\', "/");
    if ctx.json || relative == info.display.replace('\\', "/") {
        return;
    }
    let why = if name == info.display {
        "its name has control characters"
    } else {
        "an earlier entry has the same name (a duplicated hash)"
    };
    note!(
        "entry {} (hash {:08X}): {why}, written as {relative}",
        info.display,
        info.entry.hash
    );
}
