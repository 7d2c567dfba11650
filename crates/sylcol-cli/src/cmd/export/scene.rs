//! `export ARCHIVE -o NAME.glb` (or `.gltf`): every object of an archive
//! in one glTF scene (`sylcol::export::gltf::ArchiveScene`) — maps with
//! their layers, the library's parts, REGN vertex sections as point
//! clouds. Entries with the same bytes are one node naming them all; an
//! entry with no geometry (a string table, a REGN without a vertex
//! section) is listed as skipped, with how to export it alone. An archive
//! with nothing to show is refused, and no file written.

use std::collections::HashMap;

use sylcol::export::gltf::{ArchiveScene, ObjectNode, SceneOptions};
use sylcol::export::object_name;
use sylcol::report::Skipped;
use sylcol::report::error::{Unsupported, UsageError};
use sylcol::report::files::{ExportReport, Written};
use sylcol::report::shared::{Digest32, SharedContent};
use sylcol_format::Object;

use super::archive::decode_or_skip;
use super::{Args, MeshFormat, write_scene};
use crate::input::{Input, Item, Opener, inputs};
use crate::output::Dest;
use crate::print;

/// The nodes added so far, by the content they show, with the entries
/// each stands for.
type Added = HashMap<Digest32, (ObjectNode, Vec<String>)>;

/// Writes the whole archive `args.file` as one scene to `args.output`.
pub(super) fn export_archive_scene(
    args: &Args,
    format: MeshFormat,
    open: &Opener,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let mut scene = ArchiveScene::new();
    let mut added = Added::new();
    for item in inputs(open, &args.file)? {
        let result = item.and_then(|item| add_entry(item, args, &mut scene, &mut added, report));
        if let Err(e) = result {
            report.errors.push(print::error_report(&e));
        }
    }
    if scene.is_empty() {
        anyhow::bail!(Unsupported {
            path: args.file.clone(),
            detail: "no entry has geometry to put in a glTF scene (maps, libraries and REGN \
                     points do); export the entries to a folder instead (-o DIR)"
                .into(),
        });
    }
    for (node, entries) in added.values() {
        scene.set_entries(*node, entries);
    }
    let opts = SceneOptions {
        layers: args.layers,
        scale: args.scale,
        extras: None,
    };
    let scene = scene.finish(&object_name(&args.file), &opts);
    write_scene(&Dest::Named(args.output.clone()), format, &scene)
}

/// Adds one archive entry to the scene (or to the report's skipped list).
fn add_entry(
    item: Item,
    args: &Args,
    scene: &mut ArchiveScene,
    added: &mut Added,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let Some((input, object)) = decode_or_skip(item, report)? else {
        return Ok(());
    };
    let digest = SharedContent::digest(&input.bytes);
    if let Some((_, entries)) = added.get_mut(&digest) {
        let first = entries[0].clone();
        entries.push(input.name.clone());
        let reason = format!("same bytes as {first}: its node stands for this entry too");
        report.skipped.push(skipped(input.name.clone(), &reason));
        return Ok(());
    }
    let entry = input.name.rsplit('+').next().unwrap_or(&input.name);
    let node = match &object {
        Object::Mcol(m) => {
            let node = scene
                .add_map(entry, m, &args.scene_options(&input, false))
                .map_err(|e| UsageError(format!("{}: {e}", input.name)))?;
            let (v, t) = (m.vertices.len(), m.triangles.len());
            report.files.push(written(&input, &args.output, v, t));
            node
        }
        Object::CollisionSet(set) => {
            let node = scene
                .add_library(entry, set, &args.scene_options(&input, true))
                .map_err(|e| UsageError(format!("{}: {e}", input.name)))?;
            let (v, t) = (set.vertex_count(), set.triangle_count());
            report.files.push(written(&input, &args.output, v, t));
            node
        }
        Object::Regn(r) => {
            let Some(points) = r.vertex_section().and(r.vertices()) else {
                let reason = "no single section has stride 12, so no points to show \
                              (sylcol verify says why)";
                report.skipped.push(skipped(input.name.clone(), reason));
                return Ok(());
            };
            let extras = super::object_extras(&input);
            let node = scene
                .add_points(entry, &points, extras)
                .map_err(|e| Unsupported {
                    path: input.name.clone(),
                    detail: e.to_string(),
                })?;
            report
                .files
                .push(written(&input, &args.output, points.len(), 0));
            node
        }
        _ => {
            let reason = format!(
                "a {} has no geometry for a scene; export it alone: sylcol export '{}' -o {}.txt",
                object.kind(),
                input.name,
                object_name(&input.name)
            );
            report.skipped.push(skipped(input.name.clone(), &reason));
            return Ok(());
        }
    };
    added.insert(digest, (node, vec![input.name.clone()]));
    Ok(())
}

fn skipped(path: String, reason: &str) -> Skipped {
    Skipped {
        path,
        reason: reason.to_string(),
        magic: None,
    }
}

fn written(input: &Input, output: &std::path::Path, vertices: usize, triangles: usize) -> Written {
    Written {
        source: input.name.clone(),
        mesh: None,
        path: output.display().to_string(),
        vertices,
        triangles,
    }
}
