//! `sylcol export FILE -o OUT`: a mesh as Wavefront OBJ, glTF (`.gltf`,
//! `.glb`) or PLY (`--format` where the extension cannot say, `-o -` for
//! standard output); a REGN's points as PLY or glTF, a string table as
//! text. glTF takes debug layers (`--layers`) and a display scale
//! (`--scale`); a whole CollisionSet goes to one glTF scene, a whole
//! archive to one glTF scene (`-o NAME.glb`, `scene.rs`) or to a folder of
//! files (`archive.rs`); a CollisionSet to a folder gets a manifest of the
//! records' order beside its meshes. The report is
//! `sylcol::report::files::ExportReport`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sylcol::TriMesh;
use sylcol::build::collisionset::{ManifestEntry, write_manifest};
use sylcol::export::gltf::{Layers, Scene, SceneOptions, library_scene, map_scene, mesh_scene};
use sylcol::export::obj::write_obj;
use sylcol::export::object_name;
use sylcol::export::points::to_ply_mesh;
use sylcol::prelude::*;
use sylcol::report::error::{NotFound, Unsupported, UsageError};
use sylcol::report::files::{ExportReport, Written};
use sylcol_format::Object;
use sylcol_format::collisionset::{CollisionSet, Record};

use crate::input::{Input, is_archive};
use crate::output::names::FileNames;
use crate::output::{Dest, OutputDir, is_stdout, refuse_stdout, safe_components};

mod archive;
mod other;
mod scene;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol export`.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// The input: a file, `ARCHIVE.pak+INNER`, a whole `.pak`, or `-`.
    pub file: String,
    /// Where to write: a `.obj`, `.gltf`, `.glb` or `.ply` file, or `-`
    /// for standard output (OBJ unless `--format` says otherwise); a REGN
    /// to `.ply` / `.gltf` / `.glb` (its points), a string table to `.txt`
    /// or `.json`. A CollisionSet (without `--mesh`) or a whole archive
    /// goes to a folder of files, or to one glTF scene named `.glb` /
    /// `.gltf` (an archive's scene: a node per object).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// The mesh format, when the output's extension cannot say (`-`, a
    /// folder, another extension).
    #[arg(long, value_enum)]
    pub format: Option<MeshFormat>,
    /// CollisionSet only: export just the mesh of this name.
    #[arg(long)]
    pub mesh: Option<String>,
    /// glTF only: the layers to write, any of hull, cells, cell-spheres,
    /// tri-spheres, failures (or `all`: every layer the object has; a
    /// library has hull and failures); each is its own node.
    #[arg(long, default_value = "hull", value_parser = parse_layers)]
    pub layers: Layers,
    /// glTF only: a uniform display scale on the root node (axes stay
    /// the file's own; the coordinates underneath stay exact).
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f32,
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

impl Args {
    /// The glTF scene options for `input`: the layers (in a whole archive
    /// a library gets only those a library has: hull, failures), the
    /// scale, and what `info --json` says of it as the root's extras.
    fn scene_options(&self, input: &Input, library: bool) -> SceneOptions {
        let layers = if library && is_archive(&self.file) {
            self.layers
                .iter()
                .filter(|l| !l.map_only())
                .fold(Layers::none(), Layers::with)
        } else {
            self.layers
        };
        SceneOptions {
            layers,
            scale: self.scale,
            extras: object_extras(input),
        }
    }

    /// Whether `--layers` or `--scale` was given (they need glTF).
    fn gltf_only_flags(&self) -> bool {
        self.layers != Layers::HULL || self.scale != 1.0
    }
}

/// What `info --json` says of an object: the `extras` of its glTF root
/// node (the one place the exporter, `serve` and `view` take it from).
pub fn object_extras(input: &Input) -> Option<serde_json::Value> {
    let info = sylcol::report::info::info_of(&input.name, &input.bytes).ok()?;
    serde_json::to_value(info).ok()
}

fn is_gltf(format: MeshFormat) -> bool {
    matches!(format, MeshFormat::Gltf | MeshFormat::Glb)
}

/// Writes `scene` to `output` (`-`: standard output) as `.glb` or `.gltf`.
fn write_scene(output: &Dest, format: MeshFormat, scene: &Scene) -> anyhow::Result<()> {
    let bytes = if format == MeshFormat::Glb {
        scene.to_glb()?
    } else {
        scene.to_gltf()?
    };
    output.write(&bytes)
}

/// A mesh file format `export` writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum MeshFormat {
    /// Wavefront OBJ (text).
    Obj,
    /// glTF 2.0, one self-contained JSON file.
    Gltf,
    /// glTF 2.0 binary.
    Glb,
    /// Stanford PLY (ASCII), what `build` reads back.
    Ply,
}

impl MeshFormat {
    fn extension(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::Gltf => "gltf",
            MeshFormat::Glb => "glb",
            MeshFormat::Ply => "ply",
        }
    }

    /// The format an output file's extension names, if it names one.
    fn of_extension(path: &Path) -> Option<MeshFormat> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(MeshFormat::Obj),
            "gltf" => Some(MeshFormat::Gltf),
            "glb" => Some(MeshFormat::Glb),
            "ply" => Some(MeshFormat::Ply),
            _ => None,
        }
    }
}

/// Runs the command: one object, or every object of a whole archive.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    if is_stdout(&args.output) && ctx.json {
        anyhow::bail!(UsageError(
            "-o - writes the mesh to standard output, where --json would write the report; pick one".into()
        ));
    }
    let gltf_out = args
        .format
        .or(MeshFormat::of_extension(&args.output))
        .is_some_and(is_gltf);
    if args.gltf_only_flags() && !gltf_out {
        anyhow::bail!(UsageError(format!(
            "{}: --layers and --scale apply to glTF output (.gltf / .glb, or --format gltf|glb)",
            args.output.display()
        )));
    }
    let mut report = ExportReport::new(&args.file, &args.output.display().to_string());
    if is_archive(&args.file) {
        if args.mesh.is_some() {
            anyhow::bail!(UsageError(format!(
                "{}: --mesh picks a mesh of one CollisionSet; name the entry as ARCHIVE.pak+ENTRY",
                args.file
            )));
        }
        match archive_scene_format(&args) {
            Some(format) => scene::export_archive_scene(&args, format, ctx.open, &mut report)?,
            None => {
                refuse_archive_file(&args)?;
                archive::export_archive(&args, ctx.open, &mut report)?
            }
        }
    } else {
        let (input, object) = ctx.open.object(&args.file)?.decode()?;
        let output = Dest::Named(args.output.clone());
        export_object(&input, &object, &args, &output, &mut report)?;
    }
    finish(ctx, report)
}

/// The glTF format a whole archive is written in as one scene: an output
/// named `.glb` / `.gltf` that is not a folder.
fn archive_scene_format(args: &Args) -> Option<MeshFormat> {
    let output = &args.output;
    let named = MeshFormat::of_extension(output).filter(|f| is_gltf(*f));
    named.filter(|_| !output.is_dir())
}

/// A whole archive goes to a folder or one glTF scene: standard output
/// and a name of another file format (`.obj`, `.ply`) are refused.
fn refuse_archive_file(args: &Args) -> anyhow::Result<()> {
    refuse_stdout(
        &args.output,
        "a whole archive exports to a folder of files (-o DIR) or one glTF scene (-o NAME.glb)",
    )?;
    let named = MeshFormat::of_extension(&args.output);
    if named.is_some() && !args.output.is_dir() {
        anyhow::bail!(UsageError(format!(
            "{}: a whole archive exports to a folder of files (-o DIR, with --format for their format) or to one glTF scene (-o NAME.glb / NAME.gltf)",
            args.output.display()
        )));
    }
    Ok(())
}

fn finish(ctx: Context, mut report: ExportReport) -> anyhow::Result<Outcome> {
    report.names = ctx.open.names_used();
    if ctx.json {
        print::report(ctx, &report, String::new)?;
    } else {
        let names = print::names_lines(ctx);
        note!("{names}{}", report.text().trim_end_matches('\n'));
    }
    print::errors(&report.errors, ctx);
    Ok(if report.errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    })
}

/// The format to write `output` in: `--format`, else its extension; `-`
/// is OBJ; any other extension is refused rather than guessed.
fn file_format(output: &Path, format: Option<MeshFormat>) -> anyhow::Result<MeshFormat> {
    if let Some(f) = format {
        return Ok(f);
    }
    if is_stdout(output) {
        return Ok(MeshFormat::Obj);
    }
    MeshFormat::of_extension(output).ok_or_else(|| {
        anyhow::Error::new(UsageError(format!(
            "{}: cannot tell the mesh format from the name; use .obj, .gltf, .glb or .ply, or --format obj|gltf|glb|ply",
            output.display()
        )))
    })
}

/// Exports one decoded object to `output`: a mesh file for an MCOL, a
/// folder of meshes (or one file with `--mesh`) for a CollisionSet.
fn export_object(
    input: &Input,
    object: &Object,
    args: &Args,
    output: &Dest,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    match object {
        Object::Mcol(m) => {
            if args.mesh.is_some() {
                anyhow::bail!(Unsupported {
                    path: input.name.clone(),
                    detail: "--mesh applies to CollisionSet libraries, this is an MCOL".into(),
                });
            }
            let format = file_format(output.path(), args.format)?;
            let mesh = TriMesh::from_mcol(m);
            if is_gltf(format) {
                let opts = args.scene_options(input, false);
                let scene = map_scene(&object_name(&input.name), m, &opts)
                    .map_err(|e| UsageError(format!("{}: {e}", input.name)))?;
                write_scene(output, format, &scene)?;
            } else {
                write_mesh(output, format, &mesh, &object_name(&input.name), args.scale)?;
            }
            report
                .files
                .push(written(&input.name, None, output.path(), &mesh));
            Ok(())
        }
        Object::CollisionSet(set) => export_library(input, set, args, output, report),
        Object::Regn(r) => other::export_regn(input, r, args, output, report),
        Object::StringTable(t) => other::export_table(input, t, args, output, report),
        _ => anyhow::bail!(Unsupported {
            path: input.name.clone(),
            detail: "export does not write this format".into(),
        }),
    }
}

fn written(source: &str, mesh: Option<String>, path: &Path, m: &TriMesh) -> Written {
    Written {
        source: source.to_string(),
        mesh,
        path: path.display().to_string(),
        vertices: m.vertices.len(),
        triangles: m.triangles.len(),
    }
}

/// Writes the meshes of a CollisionSet: all of them into the folder
/// `output` (file names from the records, kept inside the folder), or with
/// `--mesh` the one named to a file (or into an existing folder).
fn export_library(
    input: &Input,
    set: &CollisionSet,
    args: &Args,
    output: &Dest,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let chosen: Vec<&Record> = match &args.mesh {
        Some(name) => {
            let r = set.get(name).ok_or_else(|| NotFound {
                path: input.name.clone(),
                detail: format!("no mesh named {name:?} among {} records", set.records.len()),
            })?;
            if !output.path().is_dir() {
                let format = file_format(output.path(), args.format)?;
                let mesh = TriMesh::from_collision_record(r);
                write_mesh(output, format, &mesh, &r.name(), args.scale)?;
                report
                    .files
                    .push(written(&input.name, Some(r.name()), output.path(), &mesh));
                return Ok(());
            }
            vec![r]
        }
        None => {
            if let Some(format) = library_scene_format(args, output.path()) {
                let opts = args.scene_options(input, true);
                let scene = library_scene(&object_name(&input.name), set, &opts)
                    .map_err(|e| UsageError(format!("{}: {e}", input.name)))?;
                write_scene(output, format, &scene)?;
                report.files.push(Written {
                    source: input.name.clone(),
                    mesh: None,
                    path: output.path().display().to_string(),
                    vertices: set.vertex_count(),
                    triangles: set.triangle_count(),
                });
                return Ok(());
            }
            refuse_library_file(input, set, output.path())?;
            set.records.iter().collect()
        }
    };
    if args.layers != Layers::HULL {
        anyhow::bail!(UsageError(format!(
            "{}: --layers applies to a whole library written as one .glb / .gltf",
            input.name
        )));
    }
    let format = args.format.unwrap_or(MeshFormat::Obj);
    // Every name is checked before anything is written.
    let names = mesh_file_names(&chosen, format);
    for (i, name) in names.iter().enumerate() {
        safe_components(name, output.path()).with_context(|| {
            format!(
                "{}: mesh {i} ({}) is not a safe file name",
                input.name,
                chosen[i].name()
            )
        })?;
    }
    let out = output.folder()?;
    // Every file is placed (a link or an input in the way refused) before
    // any is written, so a refusal leaves no half-written folder.
    let dests = chosen
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            let place = out
                .place(name)
                .with_context(|| format!("mesh {}", r.name()))?;
            Ok(Dest::from(place))
        })
        .collect::<anyhow::Result<Vec<Dest>>>()?;
    let order = match args.mesh {
        None => Some(place_order(&out, &chosen, &dests)?),
        Some(_) => None,
    };
    for (r, dest) in chosen.iter().zip(&dests) {
        let mesh = TriMesh::from_collision_record(r);
        write_mesh(dest, format, &mesh, &r.name(), args.scale)?;
        report
            .files
            .push(written(&input.name, Some(r.name()), dest.path(), &mesh));
    }
    if let Some((dest, text)) = order {
        dest.write(text.as_bytes())?;
    }
    Ok(())
}

/// The library's record order and names, as the manifest `build
/// collisionset DIR` follows (so the folder builds back to the same bytes,
/// not in file-name order), and where it goes beside the meshes `dests`.
fn place_order(
    out: &OutputDir,
    records: &[&Record],
    dests: &[Dest],
) -> anyhow::Result<(Dest, String)> {
    let entries: Vec<ManifestEntry> = records
        .iter()
        .zip(dests)
        .map(|(r, d)| ManifestEntry {
            name: r.name(),
            mesh: d.path().file_name().map(PathBuf::from).unwrap_or_default(),
        })
        .collect();
    let (file, text) = write_manifest(&entries);
    Ok((Dest::from(out.place(file)?), text))
}

/// The glTF format a whole library is written in as one scene: an output
/// named `.glb` / `.gltf` that is not a folder (`-o -` with `--format
/// gltf|glb` too).
fn library_scene_format(args: &Args, output: &Path) -> Option<MeshFormat> {
    if output.is_dir() {
        return None;
    }
    let named = MeshFormat::of_extension(output).filter(|f| is_gltf(*f));
    named.or_else(|| {
        is_stdout(output)
            .then_some(args.format?)
            .filter(|f| is_gltf(*f))
    })
}

/// A whole library goes to a folder or one glTF scene. An output that
/// names an OBJ file (`-`, `.obj`) is refused.
fn refuse_library_file(input: &Input, set: &CollisionSet, output: &Path) -> anyhow::Result<()> {
    let file_like = is_stdout(output) || MeshFormat::of_extension(output).is_some();
    if !file_like || output.is_dir() {
        return Ok(());
    }
    let n = set.records.len();
    Err(UsageError(format!(
        "{}: a CollisionSet holds {n} meshes: export them to a folder (-o DIR), to one glTF scene (-o NAME.glb), or pick one with --mesh NAME",
        input.name
    ))
    .into())
}

/// `NAME.EXT` for each record (`NAME~2.EXT` ... for repeated names,
/// `record_N.EXT` for an empty one), relative to the export folder; a `/`
/// or `\` in a name (which a library written elsewhere may hold) becomes
/// `_`, and a file name already given (letter case aside) gets the next
/// free `~N`, so that every record has a file of its own and the
/// manifest names it.
fn mesh_file_names(records: &[&Record], format: MeshFormat) -> Vec<String> {
    let ext = format!(".{}", format.extension());
    let stems: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = r.name();
            if name.is_empty() {
                format!("record_{i}")
            } else {
                name.replace(['/', '\\'], "_")
            }
        })
        .collect();
    // Compared as written (letter case ignored, controls as %XX): two
    // names one file on a case-blind disk get a file each.
    let mut files = FileNames::reserving(stems.iter().map(String::as_str), &ext);
    stems.iter().map(|s| files.claim(s, &ext).file).collect()
}

/// Writes `mesh` to `output` (`-`: standard output) in `format` (glTF
/// with the display scale `scale` on its node).
fn write_mesh(
    output: &Dest,
    format: MeshFormat,
    mesh: &TriMesh,
    name: &str,
    scale: f32,
) -> anyhow::Result<()> {
    let scene = || {
        let opts = SceneOptions {
            scale,
            ..SceneOptions::default()
        };
        mesh_scene(mesh, name, &opts)
    };
    match format {
        MeshFormat::Gltf | MeshFormat::Glb => write_scene(output, format, &scene()),
        MeshFormat::Obj if is_stdout(output.path()) => {
            let mut bytes = Vec::new();
            write_obj(&mut bytes, mesh, name)?;
            output.write(&bytes)
        }
        MeshFormat::Obj => output.write_with(|mut w| write_obj(&mut w, mesh, name)),
        MeshFormat::Ply => {
            let points: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.to_array()).collect();
            let comment = format!("sylcol: {name}");
            let text = to_ply_mesh(&points, &mesh.triangles, &comment)
                .map_err(|e| UsageError(format!("{name}: {e}")))?;
            output.write(text.as_bytes())
        }
    }
}
