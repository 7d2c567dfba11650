//! `sylcol export FILE -o OUT`: a mesh as Wavefront OBJ, or glTF when OUT
//! ends in `.gltf` / `.glb` — with debug layers (`--layers`), a display
//! scale (`--scale`), and a whole CollisionSet or archive as glTF scenes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use sylcol::TriMesh;
use sylcol::export::gltf::{Layers, Scene, SceneOptions, library_scene, map_scene, mesh_scene};
use sylcol::export::obj::write_obj;
use sylcol::export::object_name;
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
    /// (a file with `--mesh`), or one `.glb` / `.gltf` scene of every part.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// CollisionSet only: export just the mesh of this name.
    #[arg(long)]
    pub mesh: Option<String>,
    /// glTF only: the layers to write, any of hull, cells, cell-spheres,
    /// tri-spheres, failures (or `all`); each is its own node.
    #[arg(long, default_value = "hull", value_parser = parse_layers)]
    pub layers: Layers,
    /// glTF only: a uniform display scale on the root node (axes stay
    /// the file's own; the coordinates underneath stay exact).
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f32,
    /// For a whole archive or a CollisionSet folder: the mesh format of
    /// the files written (an archive as glTF: one file per map plus one
    /// for the library).
    #[arg(long, value_enum, default_value = "obj")]
    pub format: MeshFormat,
}

/// The mesh format of files written into a folder.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MeshFormat {
    /// Wavefront OBJ.
    Obj,
    /// glTF JSON with the buffer embedded.
    Gltf,
    /// Binary glTF.
    Glb,
}

impl MeshFormat {
    fn extension(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::Gltf => "gltf",
            MeshFormat::Glb => "glb",
        }
    }
}

fn parse_layers(s: &str) -> Result<Layers, String> {
    Layers::parse(s)
}

fn parse_scale(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

/// How the objects of one run are written.
struct Plan<'a> {
    args: &'a Args,
}

impl Plan<'_> {
    /// The scene options for `input`: layers, scale, and what `info
    /// --json` says of it as the root node's extras.
    fn scene_options(&self, input: &Input) -> SceneOptions {
        SceneOptions {
            layers: self.layers_for(input),
            scale: self.args.scale,
            extras: object_extras(input),
        }
    }

    /// The layers for `input`: as asked, except that in a whole archive a
    /// CollisionSet gets only the layers a library has (hull, failures).
    fn layers_for(&self, input: &Input) -> Layers {
        let asked = self.args.layers;
        let library = matches!(sylcol_format::detect(&input.bytes), Format::CollisionSet);
        if !(library && is_archive(&self.args.file)) {
            return asked;
        }
        asked
            .iter()
            .filter(|l| !l.map_only())
            .fold(Layers::none(), Layers::with)
    }
}

/// What `info --json` says of an object: the `extras` of its glTF root
/// node (the one place the exporter, `serve` and `view` take it from).
pub fn object_extras(input: &Input) -> Option<serde_json::Value> {
    crate::cmd::info::summarize(input).ok().map(|s| s.json)
}

/// Whether `path` names a glTF file.
fn is_gltf(path: &Path) -> bool {
    gltf_kind(path).is_some()
}

/// `Some(true)` for `.glb`, `Some(false)` for `.gltf`.
fn gltf_kind(path: &Path) -> Option<bool> {
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    match ext.as_str() {
        "glb" => Some(true),
        "gltf" => Some(false),
        _ => None,
    }
}

/// Writes `scene` as `.glb` or `.gltf` by `path`'s extension.
fn write_scene(path: &Path, scene: &Scene) -> anyhow::Result<()> {
    let bytes = if gltf_kind(path) == Some(true) {
        scene.to_glb()?
    } else {
        scene.to_gltf()?
    };
    write_atomic(path, &bytes)
}

/// Runs the command: one object, or every object of a whole archive.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let gltf_out = is_gltf(&args.output) || args.format != MeshFormat::Obj;
    if !gltf_out && (args.layers != Layers::HULL || args.scale != 1.0) {
        bail!(
            "{}: --layers and --scale apply to glTF output (.gltf / .glb, or --format for a folder)",
            args.output.display()
        );
    }
    if is_archive(&args.file) {
        if args.mesh.is_some() {
            bail!(
                "{}: --mesh picks a mesh of one CollisionSet; name the entry as ARCHIVE.pak+ENTRY",
                args.file
            );
        }
        return export_archive(&Plan { args: &args }, &args.file, &args.output);
    }
    let plan = Plan { args: &args };
    let input = read_input(&args.file)?;
    export_one(&plan, &input, &args.output, args.mesh.as_deref())
}

/// Exports one decoded object to `output`: a mesh file for an MCOL, a
/// folder of meshes (or one file with `mesh`) for a CollisionSet.
fn export_one(
    plan: &Plan,
    input: &Input,
    output: &Path,
    mesh: Option<&str>,
) -> anyhow::Result<Outcome> {
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
            if is_gltf(output) {
                let name = object_name(&input.name);
                let scene = map_scene(&name, &m, &plan.scene_options(input))
                    .with_context(|| input.name.clone())?;
                write_scene(output, &scene)?;
                eprintln!(
                    "{}: wrote {} vertices, {} triangles ({}) to {}",
                    input.name,
                    m.vertices.len(),
                    m.triangles.len(),
                    layer_names(plan.args.layers),
                    output.display()
                );
                return Ok(Outcome::Ok);
            }
            TriMesh::from_mcol(&m)
        }
        Format::CollisionSet => return export_collisionset(plan, input, output, mesh),
        Format::Unknown(_) => bail!("{}: not a format sylcol can export", input.name),
    };
    let name = object_name(&input.name);
    write_mesh(output, &tri_mesh, &name, &SceneOptions::default())?;
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
fn export_archive(plan: &Plan, pak: &str, dir: &Path) -> anyhow::Result<Outcome> {
    let ext = plan.args.format.extension();
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
                &match (is_map, plan.args.format) {
                    (true, _) => format!("{entry}.{ext}"),
                    (false, MeshFormat::Obj) => entry,
                    (false, _) => format!("{}.{ext}", object_name(&entry)),
                },
            )?;
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("{}: cannot create folder", parent.display()))?;
            }
            export_one(plan, &input, &target, None).map(|_| true)
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

/// Writes the meshes of a CollisionSet: all of them into the folder
/// `output` (file names from the records, kept inside the folder), or with
/// `mesh` the one named to a file (or into an existing folder).
fn export_collisionset(
    plan: &Plan,
    input: &Input,
    output: &Path,
    mesh: Option<&str>,
) -> anyhow::Result<Outcome> {
    let set = collisionset::decode(&input.bytes)
        .with_context(|| format!("{}: invalid CollisionSet", input.name))?;
    if mesh.is_none() && is_gltf(output) {
        let name = object_name(&input.name);
        let scene = library_scene(&name, &set, &plan.scene_options(input))
            .with_context(|| input.name.clone())?;
        write_scene(output, &scene)?;
        eprintln!(
            "{}: wrote {} parts ({}) to {}",
            input.name,
            set.records.len(),
            layer_names(plan.args.layers),
            output.display()
        );
        return Ok(Outcome::Ok);
    }
    if plan.args.layers != Layers::HULL {
        bail!(
            "{}: --layers applies to a whole library written as one .glb / .gltf",
            input.name
        );
    }
    let opts = SceneOptions {
        scale: plan.args.scale,
        ..SceneOptions::default()
    };
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
                write_record(r, output, &opts)?;
                eprintln!("{}: wrote {name} to {}", input.name, output.display());
                return Ok(Outcome::Ok);
            }
            vec![r]
        }
        None => set.records.iter().collect(),
    };
    // Every name is checked before anything is written.
    let ext = plan.args.format.extension();
    let paths = mesh_paths(output, &chosen, ext)
        .with_context(|| format!("{}: a mesh name is not a safe file name", input.name))?;
    for (r, path) in chosen.iter().zip(&paths) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create folder", parent.display()))?;
        }
        write_record(r, path, &opts)?;
    }
    eprintln!(
        "{}: wrote {} meshes to {}",
        input.name,
        chosen.len(),
        output.display()
    );
    Ok(Outcome::Ok)
}

/// `DIR/NAME.obj` for each record (`NAME~2.obj` ... for repeated names,
/// `record_N.obj` for an empty one), every path inside `dir`.
fn mesh_paths(dir: &Path, records: &[&Record], ext: &str) -> anyhow::Result<Vec<PathBuf>> {
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
                format!("{stem}.{ext}")
            } else {
                format!("{stem}~{n}.{ext}")
            };
            join_inside(dir, &file).with_context(|| format!("mesh {i}"))
        })
        .collect()
}

fn write_record(r: &Record, path: &Path, opts: &SceneOptions) -> anyhow::Result<()> {
    write_mesh(path, &TriMesh::from_collision_record(r), &r.name(), opts)
}

/// Writes `mesh` as glTF when `path` ends in `.gltf` / `.glb`, else OBJ.
fn write_mesh(path: &Path, mesh: &TriMesh, name: &str, opts: &SceneOptions) -> anyhow::Result<()> {
    if is_gltf(path) {
        write_scene(path, &mesh_scene(mesh, name, opts))
    } else {
        write_atomic_with(path, |w| write_obj(w, mesh, name))
    }
}

/// `hull, cells` for messages.
fn layer_names(layers: Layers) -> String {
    layers
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}
