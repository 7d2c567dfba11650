//! `sylcol names harvest | guess`: recover entry names the archives only
//! store as MakeEntryID hashes (docs/names.md).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sylcol_format::ipfb::Archive;

use crate::input::is_archive;
use crate::{Context, Outcome};

mod guess;
mod harvest;
mod report;

/// Arguments of `sylcol names`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Find names in the strings of every archive (and table) under PATH.
    Harvest(harvest::Args),
    /// Expand a pattern (`S{01..16}_x.{col,rgn}`) and report which names exist.
    Guess(guess::Args),
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    match args.action {
        Action::Harvest(a) => harvest::run(a, ctx),
        Action::Guess(a) => guess::run(a, ctx),
    }
}

/// An archive found under a PATH argument: its path, and the `pak` half of
/// the game's `pak+inner` names (its path below the argument, `\`-separated).
pub struct Found {
    /// Where it is.
    pub path: PathBuf,
    /// How the names file calls it (`MiscBin.pak`, `hidden\MiscBin.pak`).
    pub pak: String,
}

/// What a set of PATH arguments holds: archives, and other files.
#[derive(Default)]
pub struct Walk {
    /// Every IPFB archive, in path order.
    pub archives: Vec<Found>,
    /// Every other file (not an archive's `.pNN` part), in path order.
    pub loose: Vec<PathBuf>,
}

/// Walks each PATH: a `.pak` is an archive, another file is loose, a folder
/// is searched (sorted, recursively) for both.
pub fn walk(paths: &[PathBuf]) -> anyhow::Result<Walk> {
    let mut out = Walk::default();
    for path in paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?;
        if meta.is_dir() {
            walk_dir(path, path, 0, &mut out)?;
        } else {
            classify(path, path.parent().unwrap_or(Path::new("")), &mut out);
        }
    }
    let stems: Vec<PathBuf> = out
        .archives
        .iter()
        .map(|a| a.path.with_extension(""))
        .collect();
    out.loose.retain(|f| !is_part_of(f, &stems));
    Ok(out)
}

fn walk_dir(root: &Path, dir: &Path, depth: usize, out: &mut Walk) -> anyhow::Result<()> {
    if depth > 32 {
        return Ok(());
    }
    let mut items: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    items.sort();
    for item in items {
        if item.is_dir() {
            walk_dir(root, &item, depth + 1, out)?;
        } else if item.is_file() {
            classify(&item, root, out);
        }
    }
    Ok(())
}

fn classify(file: &Path, root: &Path, out: &mut Walk) {
    if is_archive(&file.to_string_lossy()) {
        let relative = file.strip_prefix(root).unwrap_or(file);
        let pak = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("\\");
        out.archives.push(Found {
            path: file.to_path_buf(),
            pak,
        });
    } else {
        out.loose.push(file.to_path_buf());
    }
}

/// Whether `file` is `<stem>.pNN` of one of the archives (`stem` = the
/// archive path without its extension), in any letter case.
fn is_part_of(file: &Path, stems: &[PathBuf]) -> bool {
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let numbered =
        ext.len() == 3 && ext.starts_with('p') && ext[1..].bytes().all(|b| b.is_ascii_digit());
    numbered
        && stems.iter().any(|stem| {
            file.with_extension("")
                .to_string_lossy()
                .eq_ignore_ascii_case(&stem.to_string_lossy())
        })
}

/// Opens every archive found (without any name list: names are what is looked for).
pub fn open_all(found: &[Found]) -> anyhow::Result<Vec<Archive>> {
    found
        .iter()
        .map(|f| Archive::open(&f.path).map_err(anyhow::Error::from))
        .collect()
}
