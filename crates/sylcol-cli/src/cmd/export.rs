//! `sylcol export FILE -o OUT`: a mesh as Wavefront OBJ, or glTF when OUT
//! ends in `.gltf` / `.glb`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use sylcol::TriMesh;
use sylcol::export::gltf::{to_glb, to_gltf};
use sylcol::export::obj::write_obj;
use sylcol_format::collisionset::{self, Record};
use sylcol_format::{Format, mcol};

use crate::Outcome;
use crate::input::{Input, Item, inputs, is_archive, read_object};
use crate::output::{OutputDir, safe_components, write_atomic, write_atomic_with};

/// Arguments of `sylcol export`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
    /// Where to write: `.obj`, `.gltf` (one self-contained file) or `.glb`;
    /// for a CollisionSet a folder that receives one `NAME.obj` per mesh
    /// (a file with `--mesh`).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// CollisionSet only: export just the mesh of this name.
    #[arg(long)]
    pub mesh: Option<String>,
}

/// Runs the command: one object, or every object of a whole archive.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if is_archive(&args.file) {
        if args.mesh.is_some() {
            bail!(
                "{}: --mesh picks a mesh of one CollisionSet; name the entry as ARCHIVE.pak+ENTRY",
                args.file
            );
        }
        return export_archive(&args.file, &args.output);
    }
    let input = read_object(&args.file)?.whole("can export")?;
    export_one(&input, &args.output, args.mesh.as_deref())
}

/// Exports one decoded object to `output`: a mesh file for an MCOL, a
/// folder of meshes (or one file with `mesh`) for a CollisionSet.
fn export_one(input: &Input, output: &Path, mesh: Option<&str>) -> anyhow::Result<Outcome> {
    let tri_mesh = match sylcol_format::detect(&input.bytes) {
        Format::Mcol => {
            let m = mcol::decode(&input.bytes)
                .with_context(|| format!("{}: invalid MCOL", input.name))?;
            if mesh.is_some() {
                bail!(
                    "{}: --mesh applies to CollisionSet libraries, this is an MCOL",
                    input.name
                );
            }
            TriMesh::from_mcol(&m)
        }
        Format::CollisionSet => return export_collisionset(input, output, mesh),
        Format::Unknown(_) => bail!("{}: not a format sylcol can export", input.name),
    };
    let name = object_name(&input.name);
    write_mesh(output, &tri_mesh, &name)?;
    note!(
        "{}: wrote {} vertices, {} triangles to {}",
        input.name,
        tri_mesh.vertices.len(),
        tri_mesh.triangles.len(),
        output.display()
    );
    Ok(Outcome::Ok)
}

/// Exports every entry of an archive it can decode into the folder `dir`:
/// `ENTRY.obj` for a map, a folder `ENTRY/` of meshes for a CollisionSet.
/// A CollisionSet whose bytes repeat an earlier one (the disc stores the
/// library eighteen times) is named, not written again. Entries that
/// fail to read or decode are reported and the rest still exported (exit 1).
fn export_archive(pak: &str, dir: &Path) -> anyhow::Result<Outcome> {
    let out = OutputDir::create(dir)?;
    let mut seen: HashMap<u64, String> = HashMap::new();
    let (mut written, mut failed) = (0usize, 0usize);
    for input in inputs(pak)? {
        let result = input.and_then(|object| match object {
            Item::Whole(input) => export_entry(&input, &out, &mut seen),
            Item::Other { name, .. } => {
                note!("{name}: skipped, not a format sylcol exports");
                Ok(false)
            }
        });
        match result {
            Ok(true) => written += 1,
            Ok(false) => {}
            Err(e) => {
                failed += 1;
                note!("sylcol: error: {}", crate::message(&e));
            }
        }
    }
    note!(
        "{pak}: exported {written} objects to {}, {failed} failed",
        dir.display()
    );
    Ok(if failed == 0 {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
}

/// Exports one archive entry into `out` (see [`export_archive`]); false
/// when it was skipped.
fn export_entry(
    input: &Input,
    out: &OutputDir,
    seen: &mut HashMap<u64, String>,
) -> anyhow::Result<bool> {
    let entry = input
        .name
        .rsplit('+')
        .next()
        .unwrap_or(&input.name)
        .to_string();
    let is_map = match sylcol_format::detect(&input.bytes) {
        Format::Mcol => true,
        Format::CollisionSet => false,
        Format::Unknown(_) => {
            note!("{}: skipped, not a format sylcol exports", input.name);
            return Ok(false);
        }
    };
    if !is_map {
        let digest = fingerprint(&input.bytes);
        if let Some(first) = seen.get(&digest) {
            note!(
                "{}: same bytes as {first}, its meshes are not written again",
                input.name
            );
            return Ok(false);
        }
        seen.insert(digest, entry.clone());
    }
    let name = if is_map {
        format!("{entry}.obj")
    } else {
        entry.clone()
    };
    let target = out
        .prepare(&name)
        .with_context(|| format!("entry {entry}"))?;
    export_one(input, &target, None).map(|_| true)
}

/// A 64-bit digest of an entry's bytes, to spot repeated copies.
fn fingerprint(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The object name for an input: its file or entry name without folders.
pub fn object_name(input: &str) -> String {
    let last = input.rsplit(['/', '\\', '+']).next().unwrap_or(input);
    last.split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(last)
        .to_string()
}

/// Writes the meshes of a CollisionSet: all of them into the folder
/// `output` (file names from the records, kept inside the folder), or with
/// `mesh` the one named to a file (or into an existing folder).
fn export_collisionset(
    input: &Input,
    output: &Path,
    mesh: Option<&str>,
) -> anyhow::Result<Outcome> {
    let set = collisionset::decode(&input.bytes)
        .with_context(|| format!("{}: invalid CollisionSet", input.name))?;
    let chosen: Vec<&Record> = match mesh {
        Some(name) => {
            let r = set.get(name).with_context(|| {
                format!(
                    "{}: no mesh named {name:?} among {} records",
                    input.name,
                    set.records.len()
                )
            })?;
            if !output.is_dir() {
                write_record(r, output)?;
                note!("{}: wrote {name} to {}", input.name, output.display());
                return Ok(Outcome::Ok);
            }
            vec![r]
        }
        None => set.records.iter().collect(),
    };
    // Every name is checked before anything is written.
    let names = mesh_file_names(&chosen);
    for (i, name) in names.iter().enumerate() {
        safe_components(name, output).with_context(|| {
            format!(
                "{}: mesh {i} ({}) is not a safe file name",
                input.name,
                chosen[i].name()
            )
        })?;
    }
    let out = OutputDir::create(output)?;
    for (r, name) in chosen.iter().zip(&names) {
        let path = out
            .prepare(name)
            .with_context(|| format!("mesh {}", r.name()))?;
        write_record(r, &path)?;
    }
    note!(
        "{}: wrote {} meshes to {}",
        input.name,
        chosen.len(),
        output.display()
    );
    Ok(Outcome::Ok)
}

/// `NAME.obj` for each record (`NAME~2.obj` ... for repeated names,
/// `record_N.obj` for an empty one), relative to the export folder.
fn mesh_file_names(records: &[&Record]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = r.name();
            let stem = if name.is_empty() {
                format!("record_{i}")
            } else {
                name
            };
            let n = seen.entry(stem.clone()).or_default();
            *n += 1;
            if *n == 1 {
                format!("{stem}.obj")
            } else {
                format!("{stem}~{n}.obj")
            }
        })
        .collect()
}

fn write_record(r: &Record, path: &Path) -> anyhow::Result<()> {
    write_mesh(path, &TriMesh::from_collision_record(r), &r.name())
}

/// Writes `mesh` as glTF when `path` ends in `.gltf` / `.glb`, else OBJ.
fn write_mesh(path: &Path, mesh: &TriMesh, name: &str) -> anyhow::Result<()> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("gltf") => write_atomic(path, &to_gltf(mesh, name)?),
        Some("glb") => write_atomic(path, &to_glb(mesh, name)?),
        _ => write_atomic_with(path, |mut w| write_obj(&mut w, mesh, name)),
    }
}
