//! `sylcol build collisionset`: a CollisionSet library from a folder or
//! manifest of meshes, or an existing library edited in place.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sylcol::TriMesh;
use sylcol::build::collisionset::{
    Edit, ManifestEntry, apply_edits, build_collisionset, read_manifest, scan_folder,
};
use sylcol::build::hull::HullFault;
use sylcol::import::{ImportOptions, MeshFormat, SceneParts, import_file, import_parts_file, weld};
use sylcol::report::build::CollisionSetBuilt;
use sylcol::report::error::{Unsupported, UsageError};
use sylcol_format::Object;
use sylcol_format::collisionset::{self, CollisionSet, Endian};

use super::{HullOptions, print_built, refuse_two_stdouts, screen_hull};
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
    /// Merge vertices with identical coordinates (and drop unused ones) in
    /// every mesh read.
    #[arg(long)]
    weld: bool,
    /// Write parts that are degenerate or turned over anyway (a warning
    /// names what is wrong). Open parts are always written, with a warning.
    #[arg(long)]
    allow_open: bool,
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
    let import = Parts {
        options: ImportOptions {
            weld: a.weld,
            ..Default::default()
        },
        hull: HullOptions {
            allow_open: a.allow_open,
            welded: a.weld,
        },
        ctx,
        refused: Cell::new(false),
        warnings: RefCell::default(),
    };
    let set = match (&a.from, &a.source) {
        (Some(from), _) => edited(from, &a, &import)?,
        (None, Some(source)) => fresh(source, a.little_endian, &import)?,
        (None, None) => bail!(UsageError(
            "give a folder or manifest, or --from OLD.bin".into()
        )),
    };
    if import.refused.get() {
        return Ok(Outcome::ChecksFailed);
    }
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
    report.warnings = import.warnings.take();
    print_built(&a.output, ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

/// How the meshes of parts are read and screened.
struct Parts<'a> {
    options: ImportOptions,
    hull: HullOptions,
    ctx: Context<'a>,
    /// A part failed a hull check that refuses it.
    refused: Cell<bool>,
    /// What the hull checks found, `part NAME: fault` each.
    warnings: RefCell<Vec<String>>,
}

impl Parts<'_> {
    /// Reads the mesh of the part `name` from its own file and screens it.
    fn read(&self, name: &str, path: &Path) -> anyhow::Result<TriMesh> {
        let mesh = import_file(path, &self.options)?;
        self.screen(name, path, &mesh);
        Ok(mesh)
    }

    /// Runs the hull checks a part must pass
    /// ([`HullFault::refused_in_parts`]) on the part `name` read from
    /// `path`, printing what they find.
    fn screen(&self, name: &str, path: &Path, mesh: &TriMesh) {
        let label = format!("part {name:?} ({})", path.display());
        let verdict = screen_hull(
            &label,
            mesh,
            HullFault::refused_in_parts,
            &self.hull,
            self.ctx,
        );
        if verdict.refused {
            self.refused.set(true);
        }
        self.warnings.borrow_mut().extend(
            verdict
                .warnings
                .into_iter()
                .map(|w| format!("part {name:?}: {w}")),
        );
    }
}

fn fresh(source: &Path, little: bool, import: &Parts) -> anyhow::Result<CollisionSet> {
    let endian = if little { Endian::Little } else { Endian::Big };
    if source.is_file() && is_scene(source) {
        let SceneParts {
            mut parts,
            in_record_order,
        } = import_parts_file(source)?;
        if !in_record_order && parts.len() > 1 {
            let warning = format!(
                "{}: records written in the file's node order: not every part carries \
                 extras.sylcol_record (Blender writes objects sorted by name, and keeps \
                 the record marks only with Include > Custom Properties ticked on export)",
                source.display()
            );
            if !import.ctx.json {
                note!("sylcol: warning: {warning}");
            }
            import.warnings.borrow_mut().push(warning);
        }
        for (name, mesh) in &mut parts {
            if import.options.weld {
                *mesh = weld(mesh);
            }
            import.screen(name, source, mesh);
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
        .map(|ManifestEntry { name, mesh }| Ok((name.clone(), import.read(name, mesh)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    build_collisionset(&meshes, endian).with_context(|| source.display().to_string())
}

/// Whether `path` is a glTF scene (`.glb` / `.gltf`), read as one part per
/// mesh node rather than as a manifest.
fn is_scene(path: &Path) -> bool {
    MeshFormat::from_path(path) == Some(MeshFormat::Gltf)
}

fn edited(from: &str, a: &Args, import: &Parts) -> anyhow::Result<CollisionSet> {
    let input = import.ctx.open.object(from)?.whole()?;
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
            edits.push(make(name.to_string(), import.read(name, Path::new(mesh))?));
        }
    }
    edits.extend(a.remove.iter().cloned().map(Edit::Remove));
    apply_edits(&mut set, &edits).with_context(|| input.name.clone())?;
    Ok(set)
}
