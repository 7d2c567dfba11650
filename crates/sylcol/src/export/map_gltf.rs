//! An MCOL map as a glTF scene: a root node named after the object
//! (`extras`: what `info --json` says), and under it one node per layer —
//! the translucent hull, the occupied cells as wire boxes coloured by list
//! length, the cell-record and per-triangle spheres (one child node each,
//! all sharing one unit wire-sphere mesh), and the failures in red.

use glam::Vec3;
use serde_json::{Value, json};
use sylcol_format::mcol::Mcol;

use super::gltf_doc::{Doc, GltfExportError, Ix, LINES, Primitive, TRIANGLES, short};
use super::layers::{LAYER_KEY, Layer, SceneOptions};
use super::scene::{Scene, box_lines, hull_primitive, root_node, unit_sphere_mesh};
use crate::grid::{GridSpec, SpecFromHeader};
use crate::mesh::{MeshFromFile, TriMesh};
use crate::verify::flags::{Flagged, cell_corners, mcol_flags};

/// Colours of the map layers (linear RGBA).
const HULL: [f32; 4] = [0.55, 0.62, 0.72, 0.45];
const CELL_SPHERE: [f32; 4] = [0.20, 0.85, 0.90, 1.0];
const TRI_SPHERE: [f32; 4] = [0.90, 0.40, 0.95, 1.0];
/// The failures layer's red.
pub const FAILURE: [f32; 4] = [1.0, 0.05, 0.05, 1.0];

/// The scene of map `name`.
pub fn map_scene(name: &str, mcol: &Mcol, opts: &SceneOptions) -> Result<Scene, GltfExportError> {
    let mut doc = Doc::new();
    let root = map_node(&mut doc, name, mcol, opts)?;
    Ok(Scene::new(doc, vec![root]))
}

/// Map `name` as a node of `doc` (its layers below it); returns the node.
pub(super) fn map_node(
    doc: &mut Doc,
    name: &str,
    mcol: &Mcol,
    opts: &SceneOptions,
) -> Result<Ix, GltfExportError> {
    let mesh = TriMesh::from_mcol(mcol);
    let spec = GridSpec::from_header(&mcol.header);
    let mut children = Vec::new();
    for layer in opts.layers.iter() {
        let node = match layer {
            Layer::Hull => hull_node(doc, name, &mesh),
            Layer::Cells => cells_node(doc, name, mcol, &spec),
            Layer::CellSpheres => {
                let spheres = occupied(mcol, &spec).map(|(c, _, cell)| {
                    let [x, y, z] = c;
                    (format!("cell {x},{y},{z}"), cell.sphere)
                });
                spheres_node(doc, name, layer, spheres.collect(), CELL_SPHERE)
            }
            Layer::TriSpheres => {
                let spheres = mcol.spheres.iter().enumerate();
                let named = spheres.map(|(t, s)| (format!("triangle {t}"), *s));
                spheres_node(doc, name, layer, named.collect(), TRI_SPHERE)
            }
            Layer::Failures => failures_node(doc, name, &mesh, &spec, &mcol_flags(mcol)),
        };
        children.push(node);
    }
    let root = root_node(doc, name, opts, opts.extras.clone());
    doc.set_children(root, &children);
    Ok(root)
}

/// Occupied cells: coordinates, linear index, the cell record.
fn occupied<'a>(
    mcol: &'a Mcol,
    spec: &'a GridSpec,
) -> impl Iterator<Item = ([usize; 3], usize, &'a sylcol_format::mcol::Cell)> + 'a {
    let n = spec.cell_count().min(mcol.cells.len());
    mcol.cells[..n]
        .iter()
        .enumerate()
        .filter(|(_, c)| c.record().is_some())
        .map(|(i, c)| (spec.coords(i), i, c))
}

fn layer_name(name: &str, layer: Layer) -> String {
    format!("{name} {}", layer.name())
}

fn hull_node(doc: &mut Doc, name: &str, mesh: &TriMesh) -> Ix {
    let material = doc.material("hull", HULL, true);
    let mut node = json!({
        "name": layer_name(name, Layer::Hull),
        "extras": { LAYER_KEY: "hull", "triangles": mesh.triangles.len() },
    });
    if let Some(p) = hull_primitive(doc, mesh, Some(material)) {
        node["mesh"] = json!(doc.mesh(name, &[p]));
    }
    doc.node(node)
}

/// The occupied cells as wire boxes, each coloured by its list length
/// (blue short, red long); `extras` carries the grid and every list.
fn cells_node(doc: &mut Doc, name: &str, mcol: &Mcol, spec: &GridSpec) -> Ix {
    let cells: Vec<([usize; 3], Vec<u16>)> = occupied(mcol, spec)
        .map(|(c, i, _)| (c, mcol.cell_lists(i).flatten().copied().collect()))
        .collect();
    let longest = cells.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    let mut node = json!({
        "name": layer_name(name, Layer::Cells),
        "extras": {
            LAYER_KEY: "cells",
            "grid": {
                "origin": spec.origin.to_array(), "cell": spec.cell.to_array(), "dims": spec.dims,
            },
            "longest_list": longest,
            "lists": cells.iter().map(|(c, l)| json!({ "cell": c, "triangles": l })).collect::<Vec<Value>>(),
        },
    });
    if !cells.is_empty() {
        let boxes: Vec<(Vec3, Vec3)> = cells.iter().map(|(c, _)| cell_corners(spec, *c)).collect();
        let (points, indices) = box_lines(&boxes);
        let colors: Vec<[f32; 4]> = cells
            .iter()
            .flat_map(|(_, l)| [ramp(l.len() as f32 / longest.max(1) as f32); 8])
            .collect();
        let white = doc.material("cells", [1.0; 4], false);
        let p = Primitive {
            positions: doc.positions(&points),
            colors: Some(doc.colors(&colors)),
            indices: doc.indices(&indices),
            mode: LINES,
            material: Some(white),
        };
        node["mesh"] = json!(doc.mesh(&layer_name(name, Layer::Cells), &[p]));
    }
    doc.node(node)
}

/// Blue (0) through green and yellow to red (1).
pub fn ramp(t: f32) -> [f32; 4] {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        [0.15, 0.35, 1.0],
        [0.1, 0.85, 0.4],
        [1.0, 0.85, 0.1],
        [1.0, 0.15, 0.1],
    ];
    let x = t * 3.0;
    let k = (x as usize).min(2);
    let f = x - k as f32;
    let (a, b) = (stops[k], stops[k + 1]);
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
        1.0,
    ]
}

/// A layer of spheres: one child node per sphere (translation = centre,
/// scale = radius) sharing one unit wire-sphere mesh. Spheres whose
/// radius is not a positive finite number are left out (and counted).
fn spheres_node(
    doc: &mut Doc,
    name: &str,
    layer: Layer,
    spheres: Vec<(String, [f32; 4])>,
    color: [f32; 4],
) -> Ix {
    let drawable = |s: &[f32; 4]| s.iter().all(|v| v.is_finite()) && s[3] > 0.0;
    let skipped = spheres.iter().filter(|(_, s)| !drawable(s)).count();
    let mut kids = Vec::new();
    if spheres.len() > skipped {
        let material = doc.material(layer.name(), color, false);
        let mesh = unit_sphere_mesh(doc, &format!("{} unit sphere", layer.name()), material);
        for (label, s) in spheres.iter().filter(|(_, s)| drawable(s)) {
            kids.push(doc.node(json!({
                "name": label, "mesh": mesh,
                "translation": short(&s[..3]), "scale": short(&[s[3]; 3]),
            })));
        }
    }
    let node = doc.node(json!({
        "name": layer_name(name, layer),
        "extras": { LAYER_KEY: layer.name(), "spheres": kids.len(), "skipped": skipped },
    }));
    doc.set_children(node, &kids);
    node
}

/// The flagged triangles (their own copy, red, double-sided) and the
/// flagged cells (red wire boxes); `extras` lists each with its checks.
fn failures_node(doc: &mut Doc, name: &str, mesh: &TriMesh, spec: &GridSpec, f: &Flagged) -> Ix {
    let mut prims = Vec::new();
    let nv = mesh.vertices.len() as u32;
    let drawable: Vec<[Vec3; 3]> = f
        .triangles
        .iter()
        .map(|t| t.at.triangle as usize)
        .filter(|&t| mesh.triangles[t].iter().all(|&i| i < nv))
        .map(|t| mesh.corners(t))
        .collect();
    let red = (!drawable.is_empty() || !f.cells.is_empty())
        .then(|| doc.material("failures", FAILURE, true));
    if !drawable.is_empty() {
        let points: Vec<Vec3> = drawable.iter().flatten().copied().collect();
        let indices: Vec<u32> = (0..points.len() as u32).collect();
        prims.push(doc.primitive(&points, &indices, TRIANGLES, red));
    }
    let in_grid = |c: &[usize; 3]| (0..3).all(|k| c[k] < spec.dims[k]);
    let boxes: Vec<(Vec3, Vec3)> = f
        .cells
        .iter()
        .filter(|c| in_grid(&c.at.cell))
        .map(|c| cell_corners(spec, c.at.cell))
        .collect();
    if !boxes.is_empty() {
        let (points, indices) = box_lines(&boxes);
        prims.push(doc.primitive(&points, &indices, LINES, red));
    }
    let mut node = json!({
        "name": layer_name(name, Layer::Failures),
        "extras": { LAYER_KEY: "failures", "triangles": f.triangles, "cells": f.cells },
    });
    if !prims.is_empty() {
        node["mesh"] = json!(doc.mesh(&layer_name(name, Layer::Failures), &prims));
    }
    doc.node(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::layers::Layers;
    use crate::verify::testmaps;

    fn json_of(scene: &Scene) -> Value {
        let glb = scene.to_glb().unwrap();
        let glb = gltf::binary::Glb::from_slice(&glb).unwrap();
        serde_json::from_slice(&glb.json).unwrap()
    }

    #[test]
    fn every_layer_is_a_named_node_under_the_object() {
        let m = testmaps::box_map();
        let opts = SceneOptions {
            layers: Layers::all(),
            scale: 0.001,
            extras: Some(json!({ "format": "MCOL" })),
        };
        let scene = map_scene("box", &m, &opts).unwrap();
        let glb = scene.to_glb().unwrap();
        let g = gltf::Gltf::from_slice(&glb).unwrap();
        let root = g.document.default_scene().unwrap().nodes().next().unwrap();
        assert_eq!(root.name(), Some("box"));
        assert_eq!(root.transform().decomposed().2, [0.001; 3]);
        let kids: Vec<&str> = root.children().map(|c| c.name().unwrap()).collect();
        assert_eq!(
            kids,
            [
                "box hull",
                "box cells",
                "box cell-spheres",
                "box tri-spheres",
                "box failures"
            ]
        );
        let tri = root.children().nth(3).unwrap();
        assert_eq!(tri.children().count(), 12);
        let s = tri.children().nth(5).unwrap();
        let (t, _, k) = s.transform().decomposed();
        assert_eq!([t[0], t[1], t[2], k[0]], m.spheres[5]);
        let cells = root.children().nth(1).unwrap();
        let prim = cells.mesh().unwrap().primitives().next().unwrap();
        assert_eq!(prim.mode(), gltf::mesh::Mode::Lines);
        assert_eq!(prim.indices().unwrap().count(), 24 * m.occupied_cells());
        assert!(root.children().nth(4).unwrap().mesh().is_none());
    }

    #[test]
    fn cells_extras_hold_every_list_and_failures_name_their_checks() {
        let mut m = testmaps::box_map();
        m.spheres[2][3] *= 3.0;
        let opts = SceneOptions {
            layers: Layers::parse("cells,failures").unwrap(),
            ..SceneOptions::default()
        };
        let j = json_of(&map_scene("box", &m, &opts).unwrap());
        let cells = &j["nodes"][0]["extras"];
        assert_eq!(cells[LAYER_KEY], "cells");
        let lists = cells["lists"].as_array().unwrap();
        assert_eq!(lists.len(), m.occupied_cells());
        let entries: usize = lists
            .iter()
            .map(|l| l["triangles"].as_array().unwrap().len())
            .sum();
        assert_eq!(entries, m.list_entries());
        let fails = &j["nodes"][1]["extras"]["triangles"];
        assert_eq!(fails[0]["triangle"], 2);
        assert!(j["nodes"][1]["mesh"].is_u64());
    }

    #[test]
    fn ramp_runs_blue_to_red() {
        assert!(ramp(0.0)[2] > ramp(0.0)[0]);
        assert!(ramp(1.0)[0] > ramp(1.0)[2]);
        assert_eq!(ramp(2.0), ramp(1.0));
    }
}
