//! `sylcol pak list | extract | build`: IPFB archives (`.pak` + `.pNN`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use sylcol_format::ipfb::names::{inner_hash, parse_dollar_hash};
use sylcol_format::ipfb::{
    Archive, ArchiveError, ArchiveWriter, EntryInfo, EntryKey, IndexEntry, WriteOptions,
};

use crate::Outcome;
use crate::input::open_archive;
use crate::output::{join_inside, write_atomic_with};

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
    /// Print JSON (an array of rows) instead of a table.
    #[arg(long)]
    json: bool,
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
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    match args.action {
        Action::List(a) => list(a),
        Action::Extract(a) => extract(a),
        Action::Build(a) => build(a),
    }
}

/// One `pak list` row.
#[derive(Serialize)]
struct Row {
    hash: String,
    name: Option<String>,
    display: String,
    part: u8,
    offset: u32,
    stored_size: u32,
    size: Option<u64>,
    compressed: Option<bool>,
    magic: Option<String>,
    error: Option<String>,
}

fn row(archive: &Archive, e: &IndexEntry, verify: bool) -> Row {
    let probed = archive.probe(e).and_then(|info| {
        if verify {
            archive.copy_entry(&info, &mut std::io::sink())?;
        }
        Ok(info)
    });
    let mut row = Row {
        hash: format!("{:08X}", e.hash),
        name: archive.names.get(e.hash).map(str::to_string),
        display: archive.short_display(e),
        part: e.part,
        offset: e.offset,
        stored_size: e.stored_size,
        size: None,
        compressed: None,
        magic: None,
        error: None,
    };
    match probed {
        Ok(info) => {
            row.display = info.display;
            row.size = Some(info.size);
            row.compressed = Some(info.compressed);
            row.magic = info.magic;
        }
        Err(err) => row.error = Some(err.to_string()),
    }
    row
}

fn list(a: ListArgs) -> anyhow::Result<Outcome> {
    let archive = open_archive(&a.archive, a.names.as_deref())?;
    for p in &archive.index.problems {
        eprintln!("{}: index {p}", a.archive);
    }
    let rows: Vec<Row> = archive
        .entries()
        .iter()
        .map(|e| row(&archive, e, a.verify))
        .collect();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print_table(&a.archive, &archive, &rows);
    }
    let failed = rows.iter().any(|r| r.error.is_some()) || !archive.index.problems.is_empty();
    Ok(if failed {
        Outcome::ChecksFailed
    } else {
        Outcome::Ok
    })
}

fn print_table(path: &str, archive: &Archive, rows: &[Row]) {
    println!(
        "{path}: {} entries (index declares {})",
        rows.len(),
        archive.index.declared_count
    );
    println!(
        "{:<8} {:>4} {:>10} {:>10} {:>10} {:<3} {:<5} name",
        "hash", "part", "offset", "stored", "size", "z1", "magic"
    );
    for r in rows {
        let size = r.size.map_or_else(|| "?".into(), |s| s.to_string());
        let z1 = match r.compressed {
            Some(true) => "yes",
            Some(false) => "no",
            None => "?",
        };
        let magic = r.magic.as_deref().unwrap_or("-");
        println!(
            "{} {:>4} {:>#10x} {:>10} {:>10} {:<3} {:<5} {}",
            r.hash, r.part, r.offset, r.stored_size, size, z1, magic, r.display
        );
        if let Some(err) = &r.error {
            println!("    error: {err}");
        }
    }
}

/// The entries `names` select (all when empty); unknown names are failures.
fn select(archive: &Archive, names: &[String], failures: &mut Vec<String>) -> Vec<IndexEntry> {
    if names.is_empty() {
        return archive.entries().to_vec();
    }
    let mut chosen = Vec::new();
    for n in names {
        match archive.index.find(inner_hash(n)) {
            Some(e) => chosen.push(*e),
            None => failures.push(format!("{n}: no such entry (hash {:08X})", inner_hash(n))),
        }
    }
    chosen
}

fn extract(a: ExtractArgs) -> anyhow::Result<Outcome> {
    let archive = open_archive(&a.archive, a.names.as_deref())?;
    let mut failures: Vec<String> = archive
        .index
        .problems
        .iter()
        .map(|p| format!("index {p}"))
        .collect();
    let selected = select(&archive, &a.entries, &mut failures);
    let mut probed = Vec::new();
    for e in &selected {
        match archive.probe(e) {
            Ok(info) => probed.push(info),
            Err(err) => failures.push(err.to_string()),
        }
    }
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("{}: cannot create", a.output.display()))?;
    let bar = progress_bar(probed.iter().map(|i| i.size).sum());
    let mut written = 0usize;
    for info in &probed {
        match extract_one(&archive, info, &a.output, &bar) {
            Ok(()) => written += 1,
            Err(err) => failures.push(format!("{err:#}")),
        }
    }
    bar.finish_and_clear();
    println!(
        "{}: extracted {written} of {} entries to {}",
        a.archive,
        selected.len(),
        a.output.display()
    );
    for f in &failures {
        eprintln!("{}: {f}", a.archive);
    }
    Ok(if failures.is_empty() {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
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
) -> anyhow::Result<()> {
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
        (None, result) => result,
    }
}

fn build(a: BuildArgs) -> anyhow::Result<Outcome> {
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
        writer.add(key, &bytes, compress)?;
    }
    let entries = writer.finish()?;
    let parts = entries
        .iter()
        .map(|e| usize::from(e.part) + 1)
        .max()
        .unwrap_or(0);
    println!(
        "{}: {} entries in {parts} part(s)",
        a.output.display(),
        entries.len()
    );
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
