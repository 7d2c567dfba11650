//! `sylcol pak replace`: new content for some entries, every other stored
//! byte where it was (`sylcol_format::ipfb::replace`, which Python's
//! `replace_entries` runs too).

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use sylcol::report::error::{NotFound, UsageError};
use sylcol::report::pak::{PakReplaced, Replacement};
use sylcol_atomic::folder_of;
use sylcol_format::ipfb::replace::{
    Aliases, NewContent, ReplaceError, ReplaceOptions, check_aliases, find_entry, replace_entries,
};
use sylcol_format::ipfb::{Archive, IndexEntry, PART_SIZE};

use crate::output::{ensure_folder, refuse_stdout};
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak replace`.
#[derive(clap::Args)]
pub(super) struct ReplaceArgs {
    /// The archive index (`NAME.pak`, parts beside it).
    archive: String,
    /// The entry (name or `$XXXXXXXX`) and the file whose content it gets.
    #[arg(required = true, value_name = "ENTRY=FILE")]
    pairs: Vec<String>,
    /// The archive index to write (`OUT.pak`, parts beside it).
    #[arg(
        short,
        long,
        required_unless_present = "in_place",
        conflicts_with = "in_place"
    )]
    output: Option<PathBuf>,
    /// Replace the archive itself (atomically: the earlier archive stays
    /// until the new one is complete).
    #[arg(long)]
    in_place: bool,
    /// An entry that shares its stored bytes with others: give them all
    /// the new content.
    #[arg(long, conflicts_with = "split")]
    all_aliases: bool,
    /// An entry that shares its stored bytes with others: give it a copy
    /// of its own, the others keep theirs.
    #[arg(long)]
    split: bool,
    /// zlib level for Z1 entries (9 gives the game's `78 DA` header).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(0..=9))]
    level: u32,
    /// Largest part file in bytes (testing aid).
    #[arg(long, hide = true, default_value_t = u64::from(PART_SIZE))]
    part_limit: u64,
}

/// One `ENTRY=FILE` resolved.
struct Request {
    entry: IndexEntry,
    file: PathBuf,
}

/// Runs `pak replace`.
pub(super) fn replace(a: ReplaceArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = ctx.open.archive(&a.archive)?;
    let requests = resolve(&archive, &a)?;
    let aliases = if a.all_aliases {
        Aliases::All
    } else if a.split {
        Aliases::Split
    } else {
        Aliases::Refuse
    };
    let entries: Vec<IndexEntry> = requests.iter().map(|r| r.entry).collect();
    check_aliases(&archive, &entries, aliases).map_err(|e| cli_error(e, &a.archive))?;
    let output = match &a.output {
        Some(o) => {
            refuse_stdout(
                o,
                "pak replace writes an index and its parts: name the index (-o NAME.pak)",
            )?;
            if o.is_dir() {
                bail!(UsageError(format!(
                    "{}: is a folder; -o names the archive index to write",
                    o.display()
                )));
            }
            ensure_folder(folder_of(o))?;
            o.clone()
        }
        None => archive.path().to_path_buf(),
    };
    let mut new = Vec::with_capacity(requests.len());
    for r in &requests {
        let content =
            std::fs::read(&r.file).with_context(|| format!("{}: cannot read", r.file.display()))?;
        new.push(NewContent {
            entry: r.entry,
            content,
        });
    }
    let options = ReplaceOptions {
        aliases,
        level: a.level,
        part_limit: a.part_limit,
    };
    let done =
        replace_entries(&archive, &output, new, &options).map_err(|e| cli_error(e, &a.archive))?;
    let replaced = (requests.iter().zip(&done.copies))
        .map(|(r, copy)| Replacement {
            entries: copy
                .entries
                .iter()
                .map(|e| archive.short_display(e))
                .collect(),
            file: r.file.display().to_string(),
            part: copy.placed.span.part,
            offset: copy.placed.span.offset,
            stored_bytes: copy.placed.span.len,
            compressed: copy.compressed,
            placed: if copy.placed.reused {
                "reused"
            } else {
                "appended"
            }
            .into(),
        })
        .collect();
    let finished = done.finished;
    let report = PakReplaced {
        path: a.archive.clone(),
        output: output.display().to_string(),
        entries: finished.entries.len(),
        replaced,
        stale_parts_removed: (finished.stale_parts_removed.iter())
            .map(|p| p.display().to_string())
            .collect(),
        warnings: finished
            .left_behind
            .iter()
            .map(|l| l.message.clone())
            .collect(),
    };
    if !ctx.json {
        for warning in &report.warnings {
            note!("sylcol: warning: {warning}");
        }
    }
    print::report(ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

/// Each `ENTRY=FILE` as the entry it names (exactly one slot) and the file.
fn resolve(archive: &Archive, a: &ReplaceArgs) -> anyhow::Result<Vec<Request>> {
    let mut requests = Vec::new();
    for pair in &a.pairs {
        let Some((name, file)) = pair.split_once('=') else {
            bail!(UsageError(format!(
                "{pair}: expected ENTRY=FILE (the entry's name or $XXXXXXXX, then the file with its new content)"
            )));
        };
        let entry = find_entry(archive, name).map_err(|e| cli_error(e, &a.archive))?;
        requests.push(Request {
            entry,
            file: PathBuf::from(file),
        });
    }
    Ok(requests)
}

/// The library's refusal in the CLI's words: its flags, its error kinds.
fn cli_error(e: ReplaceError, archive: &str) -> anyhow::Error {
    match e {
        ReplaceError::NoEntry { name, hash } => NotFound {
            path: archive.into(),
            detail: format!(
                "no entry {name} (hash {hash:08X}) in the archive; pak replace changes entries the archive has (pak build adds new ones)"
            ),
        }
        .into(),
        ReplaceError::AmbiguousHash { name, hash, count } => UsageError(format!(
            "{name}: {count} entries of {archive} have its hash {hash:08X} (an index problem); replace cannot tell which"
        ))
        .into(),
        ReplaceError::Shared { ref name, .. } => UsageError(format!(
            "{e}; give them all the new content with --all-aliases, or {name} a copy of its own with --split"
        ))
        .into(),
        ReplaceError::NamedTwice(_) => UsageError(e.to_string()).into(),
        other => other.into(),
    }
}
