//! `sylcol pak list | extract | build`: IPFB archives (`.pak` + `.pNN`).
//! `list` is here; `extract.rs` and `build.rs` hold the other two.

mod build;
mod extract;

use std::path::PathBuf;

use serde::Serialize;
use sylcol_format::ipfb::{Archive, IndexEntry};
use sylcol_format::text::escape;

use crate::Outcome;
use crate::input::open_archive;

use self::build::BuildArgs;
use self::extract::ExtractArgs;

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

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    match args.action {
        Action::List(a) => list(a),
        Action::Extract(a) => extract::extract(a),
        Action::Build(a) => build::build(a),
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
        note!("{}: index {p}", a.archive);
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
    say!(
        "{path}: {} entries (index declares {})",
        rows.len(),
        archive.index.declared_count
    );
    say!(
        "{:<8} {:>4} {:>10} {:>10} {:>10} {:<3} {:<5} name",
        "hash",
        "part",
        "offset",
        "stored",
        "size",
        "z1",
        "magic"
    );
    for r in rows {
        let size = r.size.map_or_else(|| "?".into(), |s| s.to_string());
        let z1 = match r.compressed {
            Some(true) => "yes",
            Some(false) => "no",
            None => "?",
        };
        let magic = r.magic.as_deref().unwrap_or("-");
        say!(
            "{} {:>4} {:>#10x} {:>10} {:>10} {:<3} {:<5} {}",
            r.hash,
            r.part,
            r.offset,
            r.stored_size,
            size,
            z1,
            magic,
            escape(&r.display)
        );
        if let Some(err) = &r.error {
            say!("    error: {err}");
        }
    }
}
