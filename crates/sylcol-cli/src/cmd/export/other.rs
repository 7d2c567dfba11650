//! `export` of the formats that are not meshes: a REGN's 12-byte vertex
//! section as a point cloud (`.ply`, `.gltf`, `.glb`), an IDXD / IXUD
//! table as its text form (`.txt`, what `build idxd` reads back) or as the
//! `info` JSON (`.json`).

use std::path::Path;

use sylcol::export::object_name;
use sylcol::export::points;
use sylcol::report::error::{Unsupported, UsageError};
use sylcol::report::files::{ExportReport, Written};
use sylcol::report::idxd::StringTableInfo;
use sylcol_format::idxd::{self, StringTable};
use sylcol_format::regn::Regn;

use super::{Args, MeshFormat};
use crate::input::{Input, is_archive};
use crate::output::{Dest, is_stdout};

/// How a REGN's points are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PointFormat {
    Ply,
    Gltf,
    Glb,
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn point_format(output: &Path, format: Option<MeshFormat>) -> anyhow::Result<PointFormat> {
    match (extension(output).as_str(), format) {
        ("ply", _) => Ok(PointFormat::Ply),
        ("gltf", _) | (_, Some(MeshFormat::Gltf)) => Ok(PointFormat::Gltf),
        ("glb", _) | (_, Some(MeshFormat::Glb)) => Ok(PointFormat::Glb),
        _ if is_stdout(output) => Ok(PointFormat::Ply),
        _ => anyhow::bail!(UsageError(format!(
            "{}: a REGN exports its vertex section as points: use .ply, .gltf or .glb",
            output.display()
        ))),
    }
}

/// Writes a REGN's vertex section (the one section of stride 12) as points.
pub fn export_regn(
    input: &Input,
    r: &Regn,
    args: &Args,
    output: &Dest,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    refuse_mesh_flags(input, args, "a REGN's points")?;
    let format = point_format(output.path(), args.format)?;
    let section = r.vertex_section().ok_or_else(|| Unsupported {
        path: input.name.clone(),
        detail: "no single section has stride 12, so no vertex section to export (sylcol verify says why)".into(),
    })?;
    let vertices = r.vertices().unwrap_or_default();
    let name = object_name(&input.name);
    let comment = format!(
        "sylcol: {} section {} ({} 12-byte vertices at {:#x})",
        input.name,
        section.index,
        vertices.len(),
        section.target.unwrap_or(0)
    );
    let bytes = match format {
        PointFormat::Ply => points::to_ply(&vertices, &comment).map(String::into_bytes),
        PointFormat::Gltf => points::to_gltf(&vertices, &name, false),
        PointFormat::Glb => points::to_gltf(&vertices, &name, true),
    }
    .map_err(|e| Unsupported {
        path: input.name.clone(),
        detail: e.to_string(),
    })?;
    output.write(&bytes)?;
    report
        .files
        .push(written(input, output.path(), vertices.len()));
    Ok(())
}

/// Refuses `--mesh`, `--layers` and `--scale` for `what` exported alone.
/// In a whole archive those flags are for the maps; given for one object
/// they do not apply to, they are refused rather than ignored.
fn refuse_mesh_flags(input: &Input, args: &Args, what: &str) -> anyhow::Result<()> {
    if args.mesh.is_some() || (args.gltf_only_flags() && !is_archive(&args.file)) {
        anyhow::bail!(Unsupported {
            path: input.name.clone(),
            detail: format!("--mesh, --layers and --scale do not apply to {what}"),
        });
    }
    Ok(())
}

/// The report row of a file written from `input` (no triangles).
fn written(input: &Input, output: &Path, vertices: usize) -> Written {
    Written {
        source: input.name.clone(),
        mesh: None,
        path: output.display().to_string(),
        vertices,
        triangles: 0,
    }
}

/// Writes a string table as its text form (`.txt`, `-`) or `info` JSON (`.json`).
pub fn export_table(
    input: &Input,
    t: &StringTable,
    args: &Args,
    output: &Dest,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    refuse_mesh_flags(input, args, "a string table")?;
    let path = output.path();
    let bytes = match extension(path).as_str() {
        "json" => {
            let info = StringTableInfo::of(&input.name, input.bytes.len(), t);
            let mut json = serde_json::to_vec_pretty(&info)?;
            json.push(b'\n');
            json
        }
        "txt" => idxd::text::to_text(t).into_bytes(),
        _ if is_stdout(path) => idxd::text::to_text(t).into_bytes(),
        _ => anyhow::bail!(UsageError(format!(
            "{}: a string table exports as its text form (.txt) or as JSON (.json)",
            path.display()
        ))),
    };
    output.write(&bytes)?;
    report.files.push(written(input, path, 0));
    Ok(())
}

/// The extension a whole-archive export gives a REGN (`.ply`, or `.glb`
/// / `.gltf` under `--format`) or a table (`.txt`).
pub fn archive_ext(regn: bool, format: MeshFormat) -> String {
    let ext = match (regn, format) {
        (false, _) => "txt",
        (true, MeshFormat::Obj) => "ply",
        (true, f) => f.extension(),
    };
    format!(".{ext}")
}
