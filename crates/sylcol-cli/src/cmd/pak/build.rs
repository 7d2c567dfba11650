//! `sylcol pak build`: an archive from a folder, the inverse of extract.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sylcol::report::error::UsageError;
use sylcol::report::pak::PakBuilt;
use sylcol_atomic::folder_of;
use sylcol_format::ipfb::names::parse_dollar_hash;
use sylcol_format::ipfb::rewrite::rewrite;
use sylcol_format::ipfb::z1::is_z1;
use sylcol_format::ipfb::{ArchiveWriter, EntryKey, Finished, WriteOptions, part_number};

use super::layout::{FromManifest, plan_from_manifest};
use super::manifest::{MANIFEST_NAME, Manifest, refuse_odd};
use crate::output::{FileId, ensure_folder, refuse_stdout};
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak build`.
#[derive(clap::Args)]
pub(super) struct BuildArgs {
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
    /// Ignore the folder's manifest (`.sylcol-pak.json`, written by
    /// `pak extract`): build a new layout instead of the archive's.
    #[arg(long)]
    fresh: bool,
    /// Largest part file in bytes (testing aid).
    #[arg(long, hide = true, default_value_t = u64::from(sylcol_format::ipfb::PART_SIZE))]
    part_limit: u64,
}

/// Runs `pak build`.
pub(super) fn build(a: BuildArgs, ctx: Context) -> anyhow::Result<Outcome> {
    refuse_stdout(
        &a.output,
        "pak build writes an index and its parts: name the index (-o NAME.pak)",
    )?;
    if a.output.is_dir() {
        bail!(UsageError(format!(
            "{}: is a folder; -o names the archive index to write (NAME.pak, parts NAME.p00... beside it)",
            a.output.display()
        )));
    }
    let store = store_matcher(&a.store)?;
    let mut files = Vec::new();
    let root = std::fs::canonicalize(&a.dir)
        .with_context(|| format!("{}: cannot read the folder", a.dir.display()))?;
    walk(&root, &a.dir, &a.dir, &mut files)?;
    let manifest_path = a.dir.join(MANIFEST_NAME);
    let manifest = if a.fresh || std::fs::symlink_metadata(&manifest_path).is_err() {
        None
    } else {
        refuse_odd(&manifest_path)?;
        Some(Manifest::read(&manifest_path)?)
    };
    files.retain(|(_, rel)| rel != MANIFEST_NAME);
    let mut keyed: Vec<(EntryKey, PathBuf, String)> = files
        .into_iter()
        .map(|(path, rel)| (key_of(&rel), path, rel))
        .collect();
    keyed.sort_by_key(|(k, _, _)| k.hash());
    refuse_replacing_inputs(&a.output, &keyed)?;
    let options = WriteOptions {
        part_limit: a.part_limit,
        level: a.level,
    };
    ensure_folder(folder_of(&a.output))?;
    if let Some(m) = manifest {
        let files: Vec<(PathBuf, String)> = (keyed.into_iter())
            .map(|(_, path, rel)| (path, rel))
            .collect();
        let matcher = |rel: &str| store.is_match(rel);
        let planned = plan_from_manifest(FromManifest {
            manifest: &m,
            files: &files,
            store_raw: &matcher,
            level: a.level,
            key_of: &key_of,
        })?;
        let done = rewrite(&a.output, &planned.plan, a.part_limit)?;
        let built = Built {
            manifest: Some(manifest_path.display().to_string()),
            kept: planned.kept,
            stored_anew: planned.stored_anew,
            compressed: planned.compressed,
            notes: planned.notes,
        };
        return report(&a, done.finished, built, ctx);
    }
    let mut writer = ArchiveWriter::create(&a.output, options);
    let mut compressed = 0usize;
    for (key, path, rel) in &keyed {
        let compress = !store.is_match(rel.replace('\\', "/"));
        compressed += usize::from(add_file(&mut writer, key, path, rel, compress)?);
    }
    let done = writer.finish()?;
    let built = Built {
        manifest: None,
        kept: 0,
        stored_anew: done.entries.len(),
        compressed,
        notes: Vec::new(),
    };
    report(&a, done, built, ctx)
}

/// What a build says beyond what the writer did.
struct Built {
    manifest: Option<String>,
    kept: usize,
    stored_anew: usize,
    compressed: usize,
    notes: Vec<String>,
}

/// Prints the build's report (warnings on standard error in text mode).
fn report(a: &BuildArgs, done: Finished, built: Built, ctx: Context) -> anyhow::Result<Outcome> {
    let parts = done
        .entries
        .iter()
        .map(|e| usize::from(e.part) + 1)
        .max()
        .unwrap_or(0);
    let report = PakBuilt {
        path: a.dir.display().to_string(),
        output: a.output.display().to_string(),
        entries: done.entries.len(),
        parts,
        compressed: built.compressed,
        manifest: built.manifest,
        kept: built.kept,
        stored_anew: built.stored_anew,
        notes: built.notes,
        stale_parts_removed: (done.stale_parts_removed.iter())
            .map(|p| p.display().to_string())
            .collect(),
        warnings: done.left_behind.iter().map(|l| l.message.clone()).collect(),
    };
    // With --json the report's `warnings` carry them; standard error holds
    // only error documents.
    if !ctx.json {
        for warning in &report.warnings {
            note!("sylcol: warning: {warning}");
        }
    }
    print::report(ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

/// Refuses to build over a file being packed: the index `-o` names, or a
/// part beside it (any `NAME.pNN`, which a rebuild replaces or removes),
/// compared by identity (device and inode on Unix), before anything is
/// written.
fn refuse_replacing_inputs(
    output: &Path,
    packed: &[(EntryKey, PathBuf, String)],
) -> anyhow::Result<()> {
    let ids: Vec<FileId> = packed
        .iter()
        .filter_map(|(_, p, _)| FileId::of(p))
        .collect();
    let stem = output.file_stem().unwrap_or_default().to_string_lossy();
    let index = output.file_name().unwrap_or_default();
    let Ok(items) = std::fs::read_dir(folder_of(output)) else {
        return Ok(());
    };
    for item in items.flatten() {
        let name = item.file_name();
        let ours = name == index || part_number(&stem, &name.to_string_lossy()).is_some();
        if ours && FileId::of(&item.path()).is_some_and(|id| ids.contains(&id)) {
            bail!(UsageError(format!(
                "{}: is a file this build packs, and the archive would replace it; write the archive outside the folder",
                item.path().display()
            )));
        }
    }
    Ok(())
}

/// Streams the file at `path` into the archive (fixed buffers whatever its
/// size); returns whether it was compressed. A file to store raw that
/// starts with `Z1` is compressed instead: a raw copy would read back as Z1.
fn add_file(
    writer: &mut ArchiveWriter,
    key: &EntryKey,
    path: &Path,
    rel: &str,
    mut compress: bool,
) -> anyhow::Result<bool> {
    use std::io::Read;
    let cannot = || format!("{}: cannot read", path.display());
    let mut file = std::fs::File::open(path).with_context(cannot)?;
    let len = file.metadata().with_context(cannot)?.len();
    let mut head = Vec::with_capacity(2);
    (&mut file)
        .take(2)
        .read_to_end(&mut head)
        .with_context(cannot)?;
    if !compress && is_z1(&head) {
        note!("{rel}: starts with \"Z1\", so it is compressed (a raw copy would read back as Z1)");
        compress = true;
    }
    let mut source = (&head[..]).chain(file);
    writer.add_stream(key, &mut source, len, compress)?;
    Ok(compress)
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

/// Collects the files under `dir` with their `\`-separated paths relative
/// to `top` (whose resolved path is `root`), in name order. A symbolic
/// link to a file inside the folder is packed under the link's name; any
/// other link (out of the folder, dangling, to a folder) stops the build.
fn walk(
    root: &Path,
    top: &Path,
    dir: &Path,
    out: &mut Vec<(PathBuf, String)>,
) -> anyhow::Result<()> {
    let mut items: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read the folder", dir.display()))?
        .collect::<Result<_, _>>()?;
    items.sort_by_key(|i| i.file_name());
    for item in items {
        let path = item.path();
        let kind = item.file_type()?;
        let source = if kind.is_dir() {
            walk(root, top, &path, out)?;
            continue;
        } else if kind.is_symlink() {
            linked_file_inside(root, &path)?
        } else if kind.is_file() {
            path.clone()
        } else {
            continue;
        };
        let rel = path.strip_prefix(top)?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            bail!("{}: no relative name", path.display());
        }
        out.push((source, parts.join("\\")));
    }
    Ok(())
}

/// The file a symbolic link in the input folder resolves to, when that is
/// a regular file inside the folder (`root`, resolved); else a refusal
/// naming the link and its target.
fn linked_file_inside(root: &Path, link: &Path) -> anyhow::Result<PathBuf> {
    let target = std::fs::read_link(link)
        .with_context(|| format!("{}: cannot read the link", link.display()))?;
    let refuse = |why: &str| {
        anyhow::anyhow!(
            "{}: refused, a symbolic link to {} {why}; copy the file into the folder if it belongs in the archive",
            link.display(),
            target.display()
        )
    };
    let Ok(real) = std::fs::canonicalize(link) else {
        return Err(refuse("which does not exist"));
    };
    if !real.starts_with(root) {
        return Err(refuse("outside the input folder"));
    }
    if !real.is_file() {
        return Err(refuse("(links are followed to files only)"));
    }
    Ok(real)
}
