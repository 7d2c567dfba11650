//! `sylcol build collisionset`: a CollisionSet library from a folder or
//! manifest of meshes, or an existing library edited in place.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sylcol::build::collisionset::{
    Edit, ManifestEntry, apply_edits, build_collisionset, read_manifest, scan_folder,
};
use sylcol::import::{ImportOptions, MeshFormat, import_file, import_parts_file, weld};
use sylcol::report::build::CollisionSetBuilt;
use sylcol::report::error::{Unsupported, UsageError};
use sylcol_format::Object;
use sylcol_format::collisionset::{self, CollisionSet, Endian};

use super::{print_built, refuse_two_stdouts};
use crate::input::read_input;
use crate::output::write_output;
use crate::{Context, Outcome};

/// Arguments of `sylcol build collisionset`.
#[derive(clap::Args)]
pub struct Args {
    /// A folder of meshes (file stem = record name), a manifest (text
    /// `NAME = MESH` lines, or a `.json` list of {"name", "mesh"}), or one
    /// `.glb` / `.gltf` scene whose mesh nodes are the records (the file
    /// `sylcol export LIBRARY -o lib.glb` writes, in its record order).
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
    /// Where to write the library (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// Write a new library little-endian (the game's is big-endian).
    #[arg(long, conflicts_with = "from")]
    little_endian: bool,
    /// Merge vertices with identical coordinates in every mesh read.
    #[arg(long)]
    weld: bool,
}

/// Runs the command.
pub fn run(a: Args, ctx: Context) -> anyhow::Result<Outcome> {
    refuse_two_stdouts(&a.output, ctx)?;
    let editing = !(a.replace.is_empty() && a.add.is_empty() && a.remove.is_empty());
    if editing && a.from.is_none() {
        bail!(UsageError(
            "--replace, --add and --remove edit an existing library: give it with --from".into()
        ));
    }
    let import = ImportOptions { weld: a.weld };
    let set = match (&a.from, &a.source) {
        (Some(from), _) => edited(from, &a, &import)?,
        (None, Some(source)) => fresh(source, a.little_endian, &import)?,
        (None, None) => bail!(UsageError(
            "give a folder or manifest, or --from OLD.bin".into()
        )),
    };
    let bytes = collisionset::encode(&set)
        .with_context(|| format!("{}: cannot encode the library", a.output.display()))?;
    write_output(&a.output, &bytes)?;
    let names = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|s| s.split_once('=').map_or(s.as_str(), |p| p.0).to_string())
            .collect()
    };
    let source = match (&a.from, &a.source) {
        (Some(from), _) => from.clone(),
        (None, Some(source)) => source.display().to_string(),
        (None, None) => String::new(),
    };
    let mut report =
        CollisionSetBuilt::new(&source, &a.output.display().to_string(), &set, bytes.len());
    report.replaced = names(&a.replace);
    report.added = names(&a.add);
    report.removed = a.remove.clone();
    print_built(&a.output, ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

fn fresh(source: &Path, little: bool, import: &ImportOptions) -> anyhow::Result<CollisionSet> {
    let endian = if little { Endian::Little } else { Endian::Big };
    if source.is_file() && is_scene(source) {
        let mut parts = import_parts_file(source)?;
        if import.weld {
            for (_, mesh) in &mut parts {
                *mesh = weld(mesh);
            }
        }
        return build_collisionset(&parts, endian).with_context(|| source.display().to_string());
    }
    let entries = if source.is_dir() {
        scan_folder(source)?
    } else {
        read_manifest(source)?
    };
    let meshes = entries
        .iter()
        .map(|ManifestEntry { name, mesh }| Ok((name.clone(), import_file(mesh, import)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    build_collisionset(&meshes, endian).with_context(|| source.display().to_string())
}

/// Whether `path` is a glTF scene (`.glb` / `.gltf`), read as one part per
/// mesh node rather than as a manifest.
fn is_scene(path: &Path) -> bool {
    MeshFormat::from_path(path) == Some(MeshFormat::Gltf)
}

fn edited(from: &str, a: &Args, import: &ImportOptions) -> anyhow::Result<CollisionSet> {
    let input = read_input(from)?;
    let Object::CollisionSet(mut set) = input.decode()? else {
        bail!(Unsupported {
            path: input.name.clone(),
            detail: "--from needs a CollisionSet library, this is another format".into(),
        });
    };
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
