//! `sylcol pak replace`: new content for some entries, every other stored
//! byte where it was (`sylcol_format::ipfb::rewrite`).

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use sylcol::report::error::{NotFound, UsageError};
use sylcol::report::pak::{PakReplaced, Replacement};
use sylcol_format::atomic::folder_of;
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::rewrite::{
    IndexWords, NewStored, Placement, Plan, PlannedEntry, Span, rewrite,
};
use sylcol_format::ipfb::{Archive, IndexEntry, PART_SIZE};

use super::layout::{base_of, settle_vacated, stored_form};
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
    name: String,
    file: PathBuf,
}

/// Runs `pak replace`.
pub(super) fn replace(a: ReplaceArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = ctx.open.archive(&a.archive)?;
    let requests = resolve(&archive, &a)?;
    refuse_lone_aliases(&archive, &requests, &a)?;
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
    let mut plan = Plan {
        index: IndexWords {
            alignment: archive.index.alignment,
            part_size: archive.index.part_size,
            unlisted: archive.index.declared_count - archive.entries().len() as u32,
            tail: archive.index_tail(1 << 20)?,
        },
        base: base_of(&archive),
        ..Plan::default()
    };
    let mut origins = Vec::new();
    let mut compressed = Vec::new();
    for r in &requests {
        let probe = archive.probe(&r.entry)?;
        let content =
            std::fs::read(&r.file).with_context(|| format!("{}: cannot read", r.file.display()))?;
        let (bytes, z1) = stored_form(content, probe.compressed, a.level, &r.name)?;
        compressed.push(z1);
        plan.stored.push(NewStored {
            name: r.name.clone(),
            bytes,
            vacates: None,
        });
        origins.push(Some(Span::of(&r.entry)));
    }
    for e in archive.entries() {
        let direct = requests.iter().position(|r| r.entry.slot == e.slot);
        let shared = || {
            (a.all_aliases)
                .then(|| {
                    requests
                        .iter()
                        .position(|r| Span::of(&r.entry) == Span::of(e))
                })
                .flatten()
        };
        let placement = match direct.or_else(shared) {
            Some(n) => Placement::New(n),
            None => Placement::Kept(Span::of(e)),
        };
        plan.entries.push(PlannedEntry {
            hash: e.hash,
            placement,
        });
    }
    let all: Vec<Span> = archive.entries().iter().map(Span::of).collect();
    settle_vacated(&mut plan, &all, &origins);
    let done = rewrite(&output, &plan, a.part_limit)?;
    let replaced = (requests.iter().enumerate())
        .map(|(n, r)| {
            let names = (plan.entries.iter().zip(archive.entries()))
                .filter(|(p, _)| p.placement == Placement::New(n))
                .map(|(_, e)| archive.short_display(e))
                .collect();
            let placed = done.placed[n];
            Replacement {
                entries: names,
                file: r.file.display().to_string(),
                part: placed.span.part,
                offset: placed.span.offset,
                stored_bytes: placed.span.len,
                compressed: compressed[n],
                placed: if placed.reused { "reused" } else { "appended" }.into(),
            }
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
    let mut requests: Vec<Request> = Vec::new();
    for pair in &a.pairs {
        let Some((name, file)) = pair.split_once('=') else {
            bail!(UsageError(format!(
                "{pair}: expected ENTRY=FILE (the entry's name or $XXXXXXXX, then the file with its new content)"
            )));
        };
        let hash = inner_hash(name);
        let slots: Vec<&IndexEntry> = archive
            .entries()
            .iter()
            .filter(|e| e.hash == hash)
            .collect();
        let entry = match slots[..] {
            [e] => *e,
            [] => bail!(NotFound {
                path: a.archive.clone(),
                detail: format!(
                    "no entry {name} (hash {hash:08X}) in the archive; pak replace changes entries the archive has (pak build adds new ones)"
                ),
            }),
            _ => bail!(UsageError(format!(
                "{name}: {} entries of {} have its hash {hash:08X} (an index problem); replace cannot tell which",
                slots.len(),
                a.archive
            ))),
        };
        if requests.iter().any(|r| r.entry.slot == entry.slot) {
            bail!(UsageError(format!("{name}: named twice")));
        }
        requests.push(Request {
            entry,
            name: archive.short_display(&entry),
            file: PathBuf::from(file),
        });
    }
    Ok(requests)
}

/// Refuses to replace one name of a stored copy that other entries share
/// (unless they are replaced too) without `--all-aliases` or `--split`,
/// naming the others.
fn refuse_lone_aliases(
    archive: &Archive,
    requests: &[Request],
    a: &ReplaceArgs,
) -> anyhow::Result<()> {
    if a.all_aliases || a.split {
        return Ok(());
    }
    let named: HashSet<usize> = requests.iter().map(|r| r.entry.slot).collect();
    for r in requests {
        let span = Span::of(&r.entry);
        let others: Vec<String> = (archive.entries().iter())
            .filter(|e| Span::of(e) == span && !named.contains(&e.slot))
            .map(|e| archive.short_display(e))
            .collect();
        if others.is_empty() {
            continue;
        }
        bail!(UsageError(format!(
            "{}: shares its stored bytes ({} at {:#x}) with {} other entries: {}; give them all the new content with --all-aliases, or {} a copy of its own with --split",
            r.name,
            archive.part_name(span.part),
            span.offset,
            others.len(),
            others.join(", "),
            r.name
        )));
    }
    Ok(())
}
