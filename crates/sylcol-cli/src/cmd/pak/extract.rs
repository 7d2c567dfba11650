//! `sylcol pak extract`: entries into a folder, through the one writer
//! (`crate::output::OutputDir`: no name leaves the folder, no link in it
//! is followed, control characters are mapped to `%XX`, the archive's own
//! files are never written over; `FileNames`: two entries never share a
//! file).

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context as _;
use sha2::Digest;
use sylcol::report::ErrorReport;
use sylcol::report::error::NotFound;
use sylcol::report::pak::{Extracted, PakExtract, index_problems};
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::rewrite::Span;
use sylcol_format::ipfb::{Archive, ArchiveError, EntryInfo, IndexEntry, MAX_PARTS};
use sylcol_format::text::{escape, visible_file_name};

use super::manifest::{
    EntryRecord, FORMAT, Hashing, IndexRecord, MANIFEST_NAME, Manifest, PartRecord, hex, sha256_of,
};
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

/// The most index bytes after the entry table a manifest records.
const MAX_TAIL: u64 = 1 << 20;

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
    let mut written = Vec::new();
    for (info, claim) in probed.iter().zip(file_names(&probed)) {
        match extract_one(&archive, info, &claim.file, &out, &bar) {
            Ok((path, sha256)) => {
                note_renamed(info, &claim, &path, &out, ctx);
                files.push(Extracted {
                    entry: info.display.clone(),
                    path: path.display().to_string(),
                    bytes: info.size,
                });
                written.push(Written { info, path, sha256 });
            }
            Err(err) => errors.push(print::error_report(&err)),
        }
    }
    bar.finish_and_clear();
    if a.entries.is_empty() {
        write_manifest(&archive, &written, &out, &errors, ctx)?;
    }
    let report = PakExtract {
        path: a.archive.clone(),
        output: a.output.display().to_string(),
        selected: selected.len(),
        files,
        errors,
        names: ctx.open.names_used(),
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

/// Streams one entry into `name` under `out`; returns the file written
/// and the SHA-256 of its content.
fn extract_one(
    archive: &Archive,
    info: &EntryInfo,
    name: &str,
    out: &OutputDir,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<(PathBuf, String)> {
    bar.set_message(escape(&info.display).into_owned());
    let mut failure: Option<ArchiveError> = None;
    let mut digest = String::new();
    let written = out.write_with(name, |w| {
        let mut counted = bar.wrap_write(w);
        let mut hashing = Hashing {
            inner: &mut counted,
            hasher: Default::default(),
        };
        let copied = archive.copy_entry(info, &mut hashing);
        digest = hex(&hashing.hasher.finalize());
        copied.map(|_| ()).map_err(|e| {
            failure = Some(e);
            std::io::Error::other("entry unreadable")
        })
    });
    match (failure, written) {
        (Some(err), _) => Err(err.into()),
        (None, result) => result
            .map(|path| (path, digest))
            .with_context(|| format!("entry {}", info.display)),
    }
}

/// One entry written: what [`write_manifest`] records of it.
struct Written<'a> {
    info: &'a EntryInfo,
    path: PathBuf,
    sha256: String,
}

/// Writes the manifest ([`MANIFEST_NAME`]) once every entry of the
/// archive was written and the index has no problem; else says why there
/// is none (a build of the folder then makes a new layout).
fn write_manifest(
    archive: &Archive,
    written: &[Written],
    out: &OutputDir,
    errors: &[ErrorReport],
    ctx: Context,
) -> anyhow::Result<()> {
    if !errors.is_empty() || written.len() != archive.entries().len() {
        if !ctx.json {
            note!(
                "no {MANIFEST_NAME} written: not every entry could be extracted, so `pak build` of this folder makes a new layout instead of the archive's"
            );
        }
        return Ok(());
    }
    let manifest = manifest_of(archive, written, out)?;
    out.write_own(MANIFEST_NAME, |w| w.write_all(manifest.text().as_bytes()))?;
    Ok(())
}

/// The manifest of a whole extraction: the index's words and tail, the
/// parts, and each entry with its file and hashes (the stored bytes of
/// each span read once).
fn manifest_of(
    archive: &Archive,
    written: &[Written],
    out: &OutputDir,
) -> anyhow::Result<Manifest> {
    let mut stored: HashMap<Span, String> = HashMap::new();
    let mut entries = Vec::with_capacity(written.len());
    for w in written {
        let e = &w.info.entry;
        let span = Span::of(e);
        if let std::collections::hash_map::Entry::Vacant(slot) = stored.entry(span) {
            let mut r = archive.stored_bytes(e)?;
            let digest = sha256_of(&mut r).map_err(|cause| ArchiveError::Io {
                path: archive.path().to_path_buf(),
                cause,
            })?;
            slot.insert(digest);
        }
        let rel = w.path.strip_prefix(out.root()).unwrap_or(&w.path);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        entries.push(EntryRecord {
            file: parts.join("/"),
            hash: format!("{:08X}", e.hash),
            part: e.part,
            offset: e.offset,
            stored_size: e.stored_size,
            compressed: w.info.compressed,
            size: w.info.size,
            stored_sha256: stored[&span].clone(),
            sha256: w.sha256.clone(),
        });
    }
    let parts = (0..MAX_PARTS as u8)
        .filter_map(|n| {
            let (_, length) = archive.part_file(n)?;
            Some(PartRecord { part: n, length })
        })
        .collect();
    let index = &archive.index;
    let archive_path = std::path::absolute(archive.path())?;
    Ok(Manifest {
        format: FORMAT.to_string(),
        archive: archive_path.display().to_string(),
        index: IndexRecord {
            declared_count: index.declared_count,
            alignment: index.alignment,
            part_size: index.part_size,
            tail: hex(&archive.index_tail(MAX_TAIL)?),
        },
        parts,
        entries,
        checksum: String::new(),
    }
    .sealed())
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
