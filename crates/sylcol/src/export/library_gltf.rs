//! A whole CollisionSet library as one glTF scene: a root node named after
//! the library, and under it one node per record, in record order, named
//! after the record, coloured by family and laid out on a grid by family
//! (rou_, mob_, rob_, asteroids, others side by side).
//!
//! The layout lives only in each part node's `translation` (also kept in
//! `extras.sylcol_layout`); the part's vertices are its record's, exactly.
//! [`crate::import::read_parts`] drops the translation and orders the
//! parts by `extras.sylcol_record` (or by node order when Blender did not
//! keep the extras), so `build collisionset library.glb` gives back the
//! library's records in their order.

use glam::Vec3;
use serde_json::{Value, json};
use sylcol_format::collisionset::CollisionSet;

use super::gltf_doc::{Doc, GltfExportError, Ix, short};
use super::layers::{LAYER_KEY, Layer, RECORD_KEY, SceneOptions};
use super::scene::{Scene, hull_primitive, root_node};
use crate::mesh::{MeshFromFile, TriMesh};
use crate::verify::collisionset::family;

/// The families in layout order, each with its colour (linear RGBA).
pub const FAMILIES: [(&str, [f32; 4]); 5] = [
    ("rou", [0.25, 0.50, 0.95, 1.0]),
    ("mob", [0.95, 0.55, 0.15, 1.0]),
    ("rob", [0.30, 0.80, 0.35, 1.0]),
    ("asteroid", [0.60, 0.50, 0.42, 1.0]),
    ("other", [0.70, 0.70, 0.70, 1.0]),
];

/// The scene of library `name`. Only the `hull` and `failures` layers
/// apply; `failures` lists the parts whose triangle indices are out of
/// range (the one failing check a decoded library can show per part).
pub fn library_scene(
    name: &str,
    set: &CollisionSet,
    opts: &SceneOptions,
) -> Result<Scene, GltfExportError> {
    let mut doc = Doc::new();
    let root = library_node(&mut doc, name, set, opts)?;
    Ok(Scene::new(doc, vec![root]))
}

/// Library `name` as a node of `doc` (a child per part); returns the node.
pub(super) fn library_node(
    doc: &mut Doc,
    name: &str,
    set: &CollisionSet,
    opts: &SceneOptions,
) -> Result<Ix, GltfExportError> {
    let layers = opts.layers.for_library().map_err(GltfExportError::Layer)?;
    let meshes: Vec<TriMesh> = set
        .records
        .iter()
        .map(TriMesh::from_collision_record)
        .collect();
    let names: Vec<String> = set.records.iter().map(|r| r.name()).collect();
    let mut root_extras = opts.extras.clone();
    let part_info: Vec<Value> = match root_extras.as_mut().and_then(|e| e.get_mut("meshes")) {
        Some(Value::Array(list)) => std::mem::take(list),
        _ => Vec::new(),
    };
    if let Some(Value::Object(e)) = root_extras.as_mut() {
        e.remove("meshes");
    }
    let mut children = Vec::new();
    if layers.has(Layer::Hull) {
        let offsets = layout(&names, &meshes);
        let materials: Vec<Ix> = FAMILIES
            .iter()
            .map(|(f, rgba)| doc.material(f, *rgba, true))
            .collect();
        for (i, (mesh, part)) in meshes.iter().zip(&names).enumerate() {
            let label = part_label(part, i);
            let fam = FAMILIES.iter().position(|(f, _)| *f == family(part));
            let material = materials[fam.unwrap_or(FAMILIES.len() - 1)];
            let mut extras = part_info.get(i).cloned().unwrap_or_else(|| json!({}));
            extras[RECORD_KEY] = json!(i);
            extras["sylcol_layout"] = short(&offsets[i].to_array());
            let mut node = json!({ "name": label, "extras": extras });
            if offsets[i] != Vec3::ZERO {
                node["translation"] = short(&offsets[i].to_array());
            }
            if let Some(p) = hull_primitive(doc, mesh, Some(material)) {
                node["mesh"] = json!(doc.mesh(&label, &[p]));
            }
            children.push(doc.node(node));
        }
    }
    if layers.has(Layer::Failures) {
        let bad: Vec<Value> = meshes
            .iter()
            .zip(&names)
            .enumerate()
            .filter(|(_, (m, _))| !m.indices_in_range())
            .map(|(i, (_, n))| json!({ "record": i, "name": n, "checks": [crate::verify::collisionset::names::INDICES.id] }))
            .collect();
        children.push(doc.node(json!({
            "name": format!("{name} failures"),
            "extras": { LAYER_KEY: "failures", "parts": bad },
        })));
    }
    let root = root_node(doc, name, opts, root_extras);
    doc.set_children(root, &children);
    Ok(root)
}

/// A part's node name: its record name, or `record N` when it has none.
pub fn part_label(name: &str, record: usize) -> String {
    if name.is_empty() {
        format!("record {record}")
    } else {
        name.to_string()
    }
}

/// Where each part goes: families side by side along x (rou_, mob_, rob_,
/// asteroids, others), each packed in rows in the x-z plane, in record
/// order: every part gets a square slot of its own bounding-box diagonal
/// plus 15 %, rows run to about the square root of the family's slot
/// area, and the part is centred in its slot. Returns the translation of
/// each record, in record order.
pub fn layout(names: &[String], meshes: &[TriMesh]) -> Vec<Vec3> {
    let mut offsets = vec![Vec3::ZERO; meshes.len()];
    let bounds = |i: usize| meshes[i].bounds().unwrap_or((Vec3::ZERO, Vec3::ZERO));
    let slot = |i: usize| {
        let (lo, hi) = bounds(i);
        ((hi - lo).length() * 1.15).max(1.0)
    };
    let mut x0 = 0.0f32;
    for (fam, _) in FAMILIES {
        let members: Vec<usize> = (0..meshes.len())
            .filter(|&i| family(&names[i]) == fam)
            .collect();
        if members.is_empty() {
            continue;
        }
        let area: f32 = members.iter().map(|&i| slot(i) * slot(i)).sum();
        let row_width = area
            .sqrt()
            .max(members.iter().map(|&i| slot(i)).fold(0.0, f32::max));
        let (mut x, mut z, mut row_depth, mut width) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        for &i in &members {
            let s = slot(i);
            if x > 0.0 && x + s > row_width * 1.05 {
                (x, z, row_depth) = (0.0, z + row_depth, 0.0);
            }
            let (lo, hi) = bounds(i);
            let centre = Vec3::new(x0 + x + s * 0.5, 0.0, z + s * 0.5);
            offsets[i] = (centre - (lo + hi) * 0.5).round();
            x += s;
            row_depth = row_depth.max(s);
            width = width.max(x);
        }
        x0 += width + row_width * 0.1;
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::testmaps;
    use sylcol_format::collisionset::{Endian, Record};

    fn library() -> CollisionSet {
        let mesh = testmaps::cube(10.0);
        let rec = |name: &str, k: f32| {
            let v = mesh.vertices.iter().map(|v| (*v * k).to_array()).collect();
            Record::new(name, v, mesh.triangles.clone()).unwrap()
        };
        CollisionSet {
            endian: Endian::Big,
            records: vec![
                rec("S01_Asteroid_cmesh_01", 5.0),
                rec("rou_e101_bdy_cmesh", 1.0),
                rec("mob_n040_cmesh", 2.0),
                rec("rou_e102_cmesh", 0.5),
            ],
        }
    }

    #[test]
    fn parts_keep_record_order_names_and_exact_vertices() {
        let set = library();
        let opts = SceneOptions {
            extras: Some(
                json!({ "format": "CollisionSet", "meshes": [{ "name": "a" }, {}, {}, {}] }),
            ),
            ..SceneOptions::default()
        };
        let glb = library_scene("lib", &set, &opts).unwrap().to_glb().unwrap();
        let g = gltf::Gltf::from_slice(&glb).unwrap();
        let root = g.document.default_scene().unwrap().nodes().next().unwrap();
        let names: Vec<&str> = root.children().map(|c| c.name().unwrap()).collect();
        let want: Vec<String> = set.records.iter().map(|r| r.name()).collect();
        assert_eq!(names, want);
        let raw = gltf::binary::Glb::from_slice(&glb).unwrap();
        let j: Value = serde_json::from_slice(&raw.json).unwrap();
        assert_eq!(j["nodes"][0]["extras"]["name"], "a");
        assert_eq!(j["nodes"][3]["extras"][RECORD_KEY], 3);
        assert!(j["nodes"][4]["extras"].get("meshes").is_none());
        assert_eq!(j["nodes"][4]["extras"]["format"], "CollisionSet");
    }

    #[test]
    fn layout_groups_families_without_overlap() {
        let set = library();
        let names: Vec<String> = set.records.iter().map(|r| r.name()).collect();
        let meshes: Vec<TriMesh> = set
            .records
            .iter()
            .map(TriMesh::from_collision_record)
            .collect();
        let at = layout(&names, &meshes);
        let placed: Vec<(Vec3, Vec3)> = meshes
            .iter()
            .zip(&at)
            .map(|(m, t)| {
                let (lo, hi) = m.bounds().unwrap();
                (lo + *t, hi + *t)
            })
            .collect();
        for i in 0..placed.len() {
            for j in i + 1..placed.len() {
                let (a, b) = (placed[i], placed[j]);
                let overlap = (0..3).all(|k| a.0[k] < b.1[k] && b.0[k] < a.1[k]);
                assert!(!overlap, "parts {i} and {j} overlap");
            }
        }
        // rou_ parts come first along x, the asteroid last.
        assert!(placed[1].0.x < placed[2].0.x && placed[2].0.x < placed[0].0.x);
    }

    #[test]
    fn map_layers_are_refused_for_a_library() {
        let opts = SceneOptions {
            layers: crate::export::layers::Layers::parse("hull,cells").unwrap(),
            ..SceneOptions::default()
        };
        let e = library_scene("lib", &library(), &opts).unwrap_err();
        assert!(e.to_string().contains("cells layer is a map's"), "{e}");
    }

    #[test]
    fn all_means_the_layers_a_library_has() {
        use crate::export::layers::Layers;
        let all = Layers::parse("all").unwrap();
        assert_eq!(all.for_library(), Layers::parse("hull,failures"));
        assert_eq!(
            Layers::parse("cells,all").unwrap().for_library(),
            Layers::parse("hull,failures")
        );
        let opts = SceneOptions {
            layers: all,
            ..SceneOptions::default()
        };
        let scene = library_scene("lib", &library(), &opts).unwrap();
        let with_parts = SceneOptions {
            layers: Layers::parse("hull,failures").unwrap(),
            ..SceneOptions::default()
        };
        let same = library_scene("lib", &library(), &with_parts).unwrap();
        assert_eq!(scene.to_glb().unwrap(), same.to_glb().unwrap());
    }
}
