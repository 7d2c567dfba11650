//! `sylcol pak extract`: entries into a folder, through the one writer
//! (`crate::output::OutputDir`: no name leaves the folder, no link in it
//! is followed, control characters are mapped to `%XX`, the archive's own
//! files are never written over; `FileNames`: two entries never share a
//! file).

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::ErrorReport;
use sylcol::report::error::NotFound;
use sylcol::report::pak::{Extracted, PakExtract, index_problems};
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::{Archive, ArchiveError, EntryInfo, IndexEntry};
use sylcol_format::text::{escape, visible_file_name};

use super::outcome;
use crate::output::names::Claim;
use crate::output::{FileNames, OutputDir, file_component, refuse_stdout};
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
/// several share), each once however often it is named; unknown names
/// are failures.
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
    let mut slots = HashSet::new();
    for n in names {
        let hash = inner_hash(n);
        let matching = archive.entries().iter().filter(|e| e.hash == hash);
        let mut found = false;
        for e in matching {
            found = true;
            if slots.insert(e.slot) {
                chosen.push(*e);
            }
        }
        if !found {
            failures.push(ErrorReport::from_error(&NotFound {
                path: pak.to_string(),
                detail: format!("no entry {n} (hash {hash:08X}) in the archive"),
            }));
        }
    }
    chosen
}

/// The file each entry is written to: its display name as the writer
/// maps it or, for an entry whose file an earlier one took (a duplicated
/// hash, or names that map alike: `esc\x1b.bin` and `esc%1B.bin`), that
/// plus `~2`, `~3`... (see [`FileNames`]).
fn file_names(infos: &[EntryInfo]) -> Vec<Claim> {
    let mut taken = FileNames::reserving(infos.iter().map(|i| i.display.as_str()), "");
    infos.iter().map(|i| taken.claim(&i.display, "")).collect()
}

/// Runs `pak extract`.
pub(super) fn extract(a: ExtractArgs, ctx: Context) -> anyhow::Result<Outcome> {
    refuse_stdout(
        &a.output,
        "pak extract writes a folder of files: name one (-o DIR)",
    )?;
    let archive = ctx.open.archive(&a.archive)?;
    let mut errors = index_problems(&a.archive, &archive);
    let selected = select(&archive, &a.archive, &a.entries, &mut errors);
    let mut probed = Vec::new();
    for e in &selected {
        match archive.probe(e) {
            Ok(info) => probed.push(info),
            Err(err) => errors.push(ErrorReport::from_error(&err)),
        }
    }
    let mut out = OutputDir::create(&a.output)?;
    out.protect(&ctx.open.archive_files(&a.archive, &archive));
    let bar = progress_bar(probed.iter().map(|i| i.size).sum());
    let mut files = Vec::new();
    for (info, claim) in probed.iter().zip(file_names(&probed)) {
        match extract_one(&archive, info, &claim.file, &out, &bar) {
            Ok(path) => {
                note_renamed(info, &claim, &path, &out, ctx);
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
/// an earlier entry took its file (a duplicated hash, or a name that maps
/// alike), control characters mapped to `%XX`, a name of sylcol's own
/// files made visible (`%2E`), or empty and `.` parts dropped.
/// (`--json` shows it in each file's `path`.)
fn note_renamed(
    info: &EntryInfo,
    claim: &Claim,
    path: &std::path::Path,
    out: &OutputDir,
    ctx: Context,
) {
    let relative = path.strip_prefix(out.root()).unwrap_or(path);
    let relative = relative.to_string_lossy().replace('\\', "/");
    if ctx.json || relative == info.display.replace('\\', "/") {
        return;
    }
    let why = match &claim.taken_by {
        Some(first) if inner_hash(first) == info.entry.hash => {
            "an earlier entry has the same name (a duplicated hash)".to_string()
        }
        Some(first) => format!(
            "an earlier entry, {}, is written to the same file name",
            escape(first)
        ),
        None if info
            .display
            .split(['\\', '/'])
            .any(|p| visible_file_name(p) != p) =>
        {
            "its name has control characters".to_string()
        }
        None if info
            .display
            .split(['\\', '/'])
            .any(|p| file_component(p) != p) =>
        {
            "its name is one sylcol gives its own temporary, backup and journal files, which a later run would act on".to_string()
        }
        None => "its name has empty or \".\" parts".to_string(),
    };
    note!(
        "entry {} (hash {:08X}): {why}, written as {relative}",
        info.display,
        info.entry.hash
    );
}
