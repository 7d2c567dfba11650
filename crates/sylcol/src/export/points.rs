//! Point clouds: a REGN's 12-byte vertex section as PLY points or a glTF
//! `POINTS` primitive, so people can look at it (docs/formats/regn.md).

use std::fmt::Write;

use glam::Vec3;

use super::gltf_doc::{Doc, GltfExportError, Ix, POINTS};
use super::layers::{LAYER_KEY, SceneOptions};
use super::scene::{Scene, root_node};

/// The layer name a point cloud's node carries in its `extras`
/// ([`LAYER_KEY`]), as a map's hull carries `hull`.
pub const POINTS_LAYER: &str = "points";

/// Why a point cloud cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum PointsError {
    /// A point has a NaN or infinite coordinate (neither format holds one).
    #[error("point {index} {point:?} is not finite")]
    NotFinite {
        /// Its index.
        index: usize,
        /// Its coordinates.
        point: [f32; 3],
    },
    /// There are no points (glTF needs at least one).
    #[error("no points to write")]
    Empty,
    /// The glTF document could not be assembled.
    #[error(transparent)]
    Gltf(#[from] GltfExportError),
}

fn check(points: &[[f32; 3]]) -> Result<(), PointsError> {
    match points.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        Some(index) => Err(PointsError::NotFinite {
            index,
            point: points[index],
        }),
        None => Ok(()),
    }
}

/// ASCII PLY of `points` (`element vertex`, float x y z), each coordinate
/// as the shortest text that parses back to the same f32.
pub fn to_ply(points: &[[f32; 3]], comment: &str) -> Result<String, PointsError> {
    to_ply_mesh(points, &[], comment)
}

/// ASCII PLY of a mesh: `points` as above, then `element face` with each
/// of `faces` as a 3-index list (none: a point cloud, no face element).
/// What `build` reads back (`import::ply`).
pub fn to_ply_mesh(
    points: &[[f32; 3]],
    faces: &[[u32; 3]],
    comment: &str,
) -> Result<String, PointsError> {
    check(points)?;
    let mut out = format!(
        "ply\nformat ascii 1.0\ncomment {}\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\n",
        comment.replace(['\n', '\r'], " "),
        points.len()
    );
    if !faces.is_empty() {
        let _ = writeln!(
            out,
            "element face {}\nproperty list uchar uint vertex_indices",
            faces.len()
        );
    }
    out.push_str("end_header\n");
    for p in points {
        let _ = writeln!(out, "{} {} {}", p[0], p[1], p[2]);
    }
    for f in faces {
        let _ = writeln!(out, "3 {} {} {}", f[0], f[1], f[2]);
    }
    Ok(out)
}

/// A glTF document of one node `name` whose mesh is one `POINTS`
/// primitive over `points`; `.glb` when `binary`.
pub fn to_gltf(points: &[[f32; 3]], name: &str, binary: bool) -> Result<Vec<u8>, PointsError> {
    let mut doc = Doc::new();
    let node = points_node(&mut doc, points, name)?;
    Ok(if binary {
        doc.to_glb(&[node])?
    } else {
        doc.to_gltf(&[node])?
    })
}

/// `points` as a node `name` of `doc` whose mesh is one `POINTS`
/// primitive; returns the node.
pub(super) fn points_node(
    doc: &mut Doc,
    points: &[[f32; 3]],
    name: &str,
) -> Result<Ix, PointsError> {
    let mesh = points_mesh(doc, points, name)?;
    Ok(doc.node(serde_json::json!({ "name": name, "mesh": mesh })))
}

/// The scene the viewer draws for a REGN: a root node `name` (with
/// `opts.extras` and scale, as a map's) whose one child, layer
/// [`POINTS_LAYER`], is one `POINTS` primitive over `points`, with the
/// count in its `extras`. `opts.layers` does not apply (one layer).
pub fn points_scene(
    points: &[[f32; 3]],
    name: &str,
    opts: &SceneOptions,
) -> Result<Scene, PointsError> {
    let mut doc = Doc::new();
    let mesh = points_mesh(&mut doc, points, POINTS_LAYER)?;
    let layer = doc.node(serde_json::json!({
        "name": POINTS_LAYER,
        "mesh": mesh,
        "extras": { LAYER_KEY: POINTS_LAYER, "points": points.len() },
    }));
    let root = root_node(&mut doc, name, opts, opts.extras.clone());
    doc.set_children(root, &[layer]);
    Ok(Scene::new(doc, vec![root]))
}

/// A mesh `name` of `doc` that is one `POINTS` primitive over `points`
/// (checked: finite, at least one).
fn points_mesh(doc: &mut Doc, points: &[[f32; 3]], name: &str) -> Result<Ix, PointsError> {
    check(points)?;
    if points.is_empty() {
        return Err(PointsError::Empty);
    }
    let positions: Vec<Vec3> = points.iter().map(|p| Vec3::from_array(*p)).collect();
    let indices: Vec<u32> = (0..points.len() as u32).collect();
    let primitive = doc.primitive(&positions, &indices, POINTS, None);
    Ok(doc.mesh(name, &[primitive]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ply_round_trips_the_floats() {
        let pts = [[0.1f32, -2.5, 3e7], [1.0 / 3.0, 0.0, -0.0]];
        let ply = to_ply(&pts, "test").unwrap();
        assert!(ply.contains("element vertex 2\n"), "{ply}");
        let body: Vec<[f32; 3]> = ply
            .split("end_header\n")
            .nth(1)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<f32> = l.split(' ').map(|t| t.parse().unwrap()).collect();
                [v[0], v[1], v[2]]
            })
            .collect();
        assert_eq!(body, pts);
        assert!(matches!(
            to_ply(&[[f32::NAN, 0.0, 0.0]], "x"),
            Err(PointsError::NotFinite { index: 0, .. })
        ));
    }

    #[test]
    fn ply_mesh_reads_back_through_the_importer() {
        let pts = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.1]];
        let ply = to_ply_mesh(&pts, &[[0, 1, 2]], "tri").unwrap();
        let opts = crate::import::ImportOptions::default();
        let ply_format = crate::import::MeshFormat::Ply;
        let mesh = crate::import::import_bytes(ply.as_bytes(), ply_format, None, &opts).unwrap();
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
        assert_eq!(mesh.vertices.len(), 3);
    }

    #[test]
    fn gltf_points_read_back() {
        let pts = [[0.0f32, 1.0, 2.0], [3.0, 4.0, 5.0], [-1.0, -2.0, -3.0]];
        for binary in [false, true] {
            let bytes = to_gltf(&pts, "verts", binary).unwrap();
            let (doc, buffers, _) = gltf::import_slice(&bytes).unwrap();
            let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
            assert_eq!(prim.mode(), gltf::mesh::Mode::Points);
            let reader = prim.reader(|b| Some(&buffers[b.index()]));
            let read: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            assert_eq!(read, pts);
        }
        assert!(matches!(to_gltf(&[], "x", false), Err(PointsError::Empty)));
    }

    #[test]
    fn a_points_scene_is_a_root_over_one_points_layer() {
        let pts = [[0.5f32, 1.0, 2.0], [3.0, -4.0, 5.25]];
        let opts = SceneOptions {
            extras: Some(serde_json::json!({ "format": "REGN" })),
            ..SceneOptions::default()
        };
        let bytes = points_scene(&pts, "cloud", &opts)
            .unwrap()
            .to_glb()
            .unwrap();
        let (doc, buffers, _) = gltf::import_slice(&bytes).unwrap();
        let root = doc.scenes().next().unwrap().nodes().next().unwrap();
        assert_eq!(root.name(), Some("cloud"));
        assert!(root.extras().as_ref().unwrap().get().contains("REGN"));
        let layer = root.children().next().unwrap();
        let extras = layer.extras().as_ref().unwrap().get();
        assert!(extras.contains(r#""sylcol_layer":"points""#), "{extras}");
        let prim = layer.mesh().unwrap().primitives().next().unwrap();
        assert_eq!(prim.mode(), gltf::mesh::Mode::Points);
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        assert_eq!(reader.read_positions().unwrap().collect::<Vec<_>>(), pts);
        assert!(matches!(
            points_scene(&[], "x", &opts),
            Err(PointsError::Empty)
        ));
    }
}
