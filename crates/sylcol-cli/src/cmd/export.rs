//! `sylcol export FILE -o OUT`: a mesh as Wavefront OBJ, or glTF when OUT
//! ends in `.gltf` / `.glb`; a CollisionSet as a folder of meshes with a
//! manifest of the records' order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use sylcol::TriMesh;
use sylcol::build::collisionset::{ManifestEntry, write_manifest};
use sylcol::export::gltf::{to_glb, to_gltf};
use sylcol::export::obj::write_obj;
use sylcol_format::collisionset::{self, Record};
use sylcol_format::{Format, mcol};

use crate::Outcome;
use crate::input::{Input, inputs, is_archive, read_input};
use crate::output::{join_inside, write_atomic, write_atomic_with};

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
    let input = read_input(&args.file)?;
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
    eprintln!(
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
    let mut seen: HashMap<u64, String> = HashMap::new();
    let (mut written, mut failed) = (0usize, 0usize);
    for input in inputs(pak)? {
        let result = input.and_then(|input| {
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
                    eprintln!("{}: skipped, not a format sylcol exports", input.name);
                    return Ok(false);
                }
            };
            if !is_map {
                let digest = fingerprint(&input.bytes);
                if let Some(first) = seen.get(&digest) {
                    eprintln!(
                        "{}: same bytes as {first}, its meshes are not written again",
                        input.name
                    );
                    return Ok(false);
                }
                seen.insert(digest, entry.clone());
            }
            let target = join_inside(
                dir,
                &if is_map {
                    format!("{entry}.obj")
                } else {
                    entry
                },
            )?;
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("{}: cannot create folder", parent.display()))?;
            }
            export_one(&input, &target, None).map(|_| true)
        });
        match result {
            Ok(true) => written += 1,
            Ok(false) => {}
            Err(e) => {
                failed += 1;
                eprintln!("sylcol: error: {e:#}");
            }
        }
    }
    eprintln!(
        "{pak}: exported {written} objects to {}, {failed} failed",
        dir.display()
    );
    Ok(if failed == 0 {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
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
                eprintln!("{}: wrote {name} to {}", input.name, output.display());
                return Ok(Outcome::Ok);
            }
            vec![r]
        }
        None => set.records.iter().collect(),
    };
    // Every name is checked before anything is written.
    let paths = mesh_paths(output, &chosen)
        .with_context(|| format!("{}: a mesh name is not a safe file name", input.name))?;
    for (r, path) in chosen.iter().zip(&paths) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create folder", parent.display()))?;
        }
        write_record(r, path)?;
    }
    if mesh.is_none() {
        write_order(output, &chosen, &paths)?;
    }
    eprintln!(
        "{}: wrote {} meshes to {}",
        input.name,
        chosen.len(),
        output.display()
    );
    Ok(Outcome::Ok)
}

/// Writes the library's record order and names beside its meshes, as the
/// manifest `build collisionset DIR` follows (so the folder builds back to
/// the same bytes, not in file-name order).
fn write_order(dir: &Path, records: &[&Record], paths: &[PathBuf]) -> anyhow::Result<()> {
    let entries: Vec<ManifestEntry> = records
        .iter()
        .zip(paths)
        .map(|(r, p)| ManifestEntry {
            name: r.name(),
            mesh: p.file_name().map(PathBuf::from).unwrap_or_default(),
        })
        .collect();
    let (file, text) = write_manifest(&entries);
    write_atomic(&join_inside(dir, file)?, text.as_bytes())
}

/// `DIR/NAME.obj` for each record (`NAME~2.obj` ... for repeated names,
/// `record_N.obj` for an empty one), every path inside `dir`.
fn mesh_paths(dir: &Path, records: &[&Record]) -> anyhow::Result<Vec<PathBuf>> {
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
            let file = if *n == 1 {
                format!("{stem}.obj")
            } else {
                format!("{stem}~{n}.obj")
            };
            join_inside(dir, &file).with_context(|| format!("mesh {i}"))
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
        _ => write_atomic_with(path, |w| write_obj(w, mesh, name)),
    }
}
