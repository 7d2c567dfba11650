//! `sylcol build collisionset`: a CollisionSet library from a folder or
//! manifest of meshes, or an existing library edited in place.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use sylcol::build::collisionset::{
    Edit, ManifestEntry, apply_edits, build_collisionset, read_manifest, scan_folder,
};
use sylcol::import::{ImportOptions, import_file};
use sylcol_format::collisionset::{self, CollisionSet, Endian};

use crate::Outcome;
use crate::input::read_input;
use crate::output::write_atomic;

/// Arguments of `sylcol build collisionset`.
#[derive(clap::Args)]
pub struct Args {
    /// A folder of meshes (file stem = record name) or a manifest (text
    /// `NAME = MESH` lines, or a `.json` list of {"name", "mesh"}).
    #[arg(required_unless_present = "from", conflicts_with = "from")]
    source: Option<PathBuf>,
    /// Edit this library instead (a file or `ARCHIVE.pak+INNER`).
    #[arg(long, value_name = "OLD.bin")]
    from: Option<String>,
    /// Replace a record's mesh, keeping its place and name (repeatable).
    #[arg(long, value_name = "NAME=MESH")]
    replace: Vec<String>,
    /// Append a record (repeatable).
    #[arg(long, value_name = "NAME=MESH")]
    add: Vec<String>,
    /// Drop a record (repeatable).
    #[arg(long, value_name = "NAME")]
    remove: Vec<String>,
    /// Where to write the library.
    #[arg(short, long)]
    output: PathBuf,
    /// Write a new library little-endian (the game's is big-endian).
    #[arg(long, conflicts_with = "from")]
    little_endian: bool,
    /// Merge vertices with identical coordinates in every mesh read.
    #[arg(long)]
    weld: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// What `build collisionset` reports.
#[derive(Serialize)]
struct Summary {
    output: String,
    endian: &'static str,
    records: usize,
    vertices: usize,
    triangles: usize,
    bytes: usize,
    replaced: Vec<String>,
    added: Vec<String>,
    removed: Vec<String>,
}

/// Runs the command.
pub fn run(a: Args) -> anyhow::Result<Outcome> {
    let editing = !(a.replace.is_empty() && a.add.is_empty() && a.remove.is_empty());
    if editing && a.from.is_none() {
        bail!("--replace, --add and --remove edit an existing library: give it with --from");
    }
    let import = ImportOptions { weld: a.weld };
    let set = match (&a.from, &a.source) {
        (Some(from), _) => edited(from, &a, &import)?,
        (None, Some(source)) => fresh(source, a.little_endian, &import)?,
        (None, None) => bail!("give a folder or manifest, or --from OLD.bin"),
    };
    let bytes = collisionset::encode(&set)
        .with_context(|| format!("{}: cannot encode the library", a.output.display()))?;
    write_atomic(&a.output, &bytes)?;
    let names = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|s| s.split_once('=').map_or(s.as_str(), |p| p.0).to_string())
            .collect()
    };
    let summary = Summary {
        output: a.output.display().to_string(),
        endian: set.endian.as_str(),
        records: set.records.len(),
        vertices: set.vertex_count(),
        triangles: set.triangle_count(),
        bytes: bytes.len(),
        replaced: names(&a.replace),
        added: names(&a.add),
        removed: a.remove.clone(),
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary);
    }
    Ok(Outcome::Ok)
}

fn fresh(source: &Path, little: bool, import: &ImportOptions) -> anyhow::Result<CollisionSet> {
    let entries = if source.is_dir() {
        scan_folder(source)?
    } else {
        read_manifest(source)?
    };
    let meshes = entries
        .iter()
        .map(|ManifestEntry { name, mesh }| Ok((name.clone(), import_file(mesh, import)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let endian = if little { Endian::Little } else { Endian::Big };
    build_collisionset(&meshes, endian).with_context(|| source.display().to_string())
}

fn edited(from: &str, a: &Args, import: &ImportOptions) -> anyhow::Result<CollisionSet> {
    let input = read_input(from)?;
    let mut set = collisionset::decode(&input.bytes)
        .with_context(|| format!("{}: invalid CollisionSet", input.name))?;
    let mut edits = Vec::new();
    for (list, make) in [
        (&a.replace, Edit::Replace as fn(String, _) -> Edit),
        (&a.add, Edit::Add),
    ] {
        for spec in list {
            let (name, mesh) = spec
                .split_once('=')
                .with_context(|| format!("{spec:?}: expected NAME=MESH"))?;
            edits.push(make(
                name.to_string(),
                import_file(Path::new(mesh), import)?,
            ));
        }
    }
    edits.extend(a.remove.iter().cloned().map(Edit::Remove));
    apply_edits(&mut set, &edits).with_context(|| input.name.clone())?;
    Ok(set)
}

fn print_summary(s: &Summary) {
    say!(
        "wrote {} ({} bytes, {}-endian)",
        s.output,
        s.bytes,
        s.endian
    );
    say!(
        "  records   {} ({} vertices, {} triangles)",
        s.records,
        s.vertices,
        s.triangles
    );
    for (what, names) in [
        ("replaced", &s.replaced),
        ("added", &s.added),
        ("removed", &s.removed),
    ] {
        if !names.is_empty() {
            say!("  {what:<9} {}", names.join(", "));
        }
    }
}
