//! `sylcol pak list | extract | build`: IPFB archives (`.pak` + `.pNN`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sylcol::report::ErrorReport;
use sylcol::report::error::NotFound;
use sylcol::report::pak::{Extracted, PakBuilt, PakExtract, PakList, index_problems};
use sylcol_format::ipfb::names::{inner_hash, parse_dollar_hash};
use sylcol_format::ipfb::{
    Archive, ArchiveError, ArchiveWriter, EntryInfo, EntryKey, IndexEntry, WriteOptions,
};

use crate::input::open_archive;
use crate::output::{join_inside, write_atomic_with};
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// One row per entry: hash, name, part, offset, sizes, compression, magic.
    List(ListArgs),
    /// Write entries (all, or those named) into a folder.
    Extract(ExtractArgs),
    /// Build an archive from a folder: the inverse of extract.
    Build(BuildArgs),
}

#[derive(clap::Args)]
struct ListArgs {
    /// The archive index (`NAME.pak`, parts `NAME.p00`... beside it).
    archive: String,
    /// A name list: one name a line, `pak+inner` or bare; `#` comments.
    #[arg(long)]
    names: Option<PathBuf>,
    /// Also inflate every entry and check its size and Adler-32 values.
    #[arg(long)]
    verify: bool,
}

#[derive(clap::Args)]
struct ExtractArgs {
    /// The archive index.
    archive: String,
    /// Output folder (created if missing).
    #[arg(short, long)]
    output: PathBuf,
    /// Entries to extract (names or `$XXXXXXXX[.MAGIC]`); all when none.
    entries: Vec<String>,
    /// A name list: one name a line, `pak+inner` or bare; `#` comments.
    #[arg(long)]
    names: Option<PathBuf>,
}

#[derive(clap::Args)]
struct BuildArgs {
    /// Folder whose files become the entries (relative paths are the names).
    dir: PathBuf,
    /// The archive index to write (`NAME.pak`; parts `NAME.p00`... beside it).
    #[arg(short, long)]
    output: PathBuf,
    /// Store files matching this glob raw instead of Z1 (repeatable).
    #[arg(long)]
    store: Vec<String>,
    /// zlib level for Z1 entries (9 gives the game's `78 DA` header).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(0..=9))]
    level: u32,
    /// Largest part file in bytes (testing aid).
    #[arg(long, hide = true, default_value_t = u64::from(sylcol_format::ipfb::PART_SIZE))]
    part_limit: u64,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    match args.action {
        Action::List(a) => list(a, ctx),
        Action::Extract(a) => extract(a, ctx),
        Action::Build(a) => build(a, ctx),
    }
}

/// Exit 2 when an entry or the index could not be read, else 0.
fn outcome(errors: &[ErrorReport], ctx: Context) -> Outcome {
    print::errors(errors, ctx);
    if errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    }
}

fn list(a: ListArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = open_archive(&a.archive, a.names.as_deref())?;
    let report = PakList::new(&a.archive, &archive, a.verify);
    print::report(ctx, &report, || report.text())?;
    let mut errors = report.errors.clone();
    errors.extend(report.entries.iter().filter_map(|e| e.error.clone()));
    Ok(outcome(&errors, ctx))
}

/// The entries `names` select (all when empty); unknown names are failures.
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
        match archive.index.find(inner_hash(n)) {
            Some(e) => chosen.push(*e),
            None => failures.push(ErrorReport::from_error(&NotFound {
                path: pak.to_string(),
                detail: format!("no entry {n} (hash {:08X}) in the archive", inner_hash(n)),
            })),
        }
    }
    chosen
}

fn extract(a: ExtractArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = open_archive(&a.archive, a.names.as_deref())?;
    let mut errors = index_problems(&a.archive, &archive);
    let selected = select(&archive, &a.archive, &a.entries, &mut errors);
    let mut probed = Vec::new();
    for e in &selected {
        match archive.probe(e) {
            Ok(info) => probed.push(info),
            Err(err) => errors.push(ErrorReport::from_error(&err)),
        }
    }
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("{}: cannot create", a.output.display()))?;
    let bar = progress_bar(probed.iter().map(|i| i.size).sum());
    let mut files = Vec::new();
    for info in &probed {
        match extract_one(&archive, info, &a.output, &bar) {
            Ok(path) => files.push(Extracted {
                entry: info.display.clone(),
                path: path.display().to_string(),
                bytes: info.size,
            }),
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

fn extract_one(
    archive: &Archive,
    info: &EntryInfo,
    root: &Path,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<PathBuf> {
    let path =
        join_inside(root, &info.display).with_context(|| format!("entry {}", info.display))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create", parent.display()))?;
    }
    bar.set_message(info.display.clone());
    let mut failure: Option<ArchiveError> = None;
    let written = write_atomic_with(&path, |w| {
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
        (None, result) => result.map(|()| path),
    }
}

fn build(a: BuildArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let store = store_matcher(&a.store)?;
    let mut files = Vec::new();
    walk(&a.dir, &a.dir, &mut files)?;
    let mut keyed: Vec<(EntryKey, PathBuf, String)> = files
        .into_iter()
        .map(|(path, rel)| (key_of(&rel), path, rel))
        .collect();
    keyed.sort_by_key(|(k, _, _)| k.hash());
    let options = WriteOptions {
        part_limit: a.part_limit,
        level: a.level,
    };
    let mut writer = ArchiveWriter::create(&a.output, options);
    let mut compressed = 0usize;
    for (key, path, rel) in &keyed {
        let bytes =
            std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let mut compress = !store.is_match(rel.replace('\\', "/"));
        if !compress && bytes.starts_with(b"Z1") {
            eprintln!(
                "{rel}: starts with \"Z1\", so it is compressed (a raw copy would read back as Z1)"
            );
            compress = true;
        }
        compressed += usize::from(compress);
        writer.add(key, &bytes, compress)?;
    }
    let entries = writer.finish()?;
    let parts = entries
        .iter()
        .map(|e| usize::from(e.part) + 1)
        .max()
        .unwrap_or(0);
    let report = PakBuilt {
        path: a.dir.display().to_string(),
        output: a.output.display().to_string(),
        entries: entries.len(),
        parts,
        compressed,
    };
    print::report(ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

/// An entry key for a relative path: `$XXXXXXXX...` keeps its hash.
fn key_of(rel: &str) -> EntryKey {
    match parse_dollar_hash(rel) {
        Some(h) => EntryKey::Hash(h),
        None => EntryKey::Name(rel.to_string()),
    }
}

fn store_matcher(globs: &[String]) -> anyhow::Result<globset::GlobSet> {
    let mut set = globset::GlobSetBuilder::new();
    for g in globs {
        set.add(globset::Glob::new(g).with_context(|| format!("--store {g}: not a glob"))?);
    }
    Ok(set.build()?)
}

/// Collects the regular files under `dir` with their `\`-separated paths
/// relative to `root`, in name order.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) -> anyhow::Result<()> {
    let mut items: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read the folder", dir.display()))?
        .collect::<Result<_, _>>()?;
    items.sort_by_key(|i| i.file_name());
    for item in items {
        let path = item.path();
        let kind = item.file_type()?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if kind.is_file() {
            let rel = path.strip_prefix(root)?;
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.is_empty() {
                bail!("{}: no relative name", path.display());
            }
            out.push((path, parts.join("\\")));
        }
    }
    Ok(())
}
