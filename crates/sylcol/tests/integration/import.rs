//! Importers on small files written here: OBJ, glTF (embedded, external
//! buffer, GLB), PLY (ASCII, binary), and their errors.

use std::path::Path;

use glam::Vec3;
use sylcol::TriMesh;
use sylcol::export::gltf::{to_glb, to_gltf};
use sylcol::import::{
    CountLimit, ImportErrorKind, ImportOptions, MeshError, MeshFormat, import_bytes, import_file,
};

fn opts() -> ImportOptions {
    ImportOptions::default()
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn obj_objects_quads_and_materials() {
    let dir = tempfile::tempdir().unwrap();
    let text = "mtllib missing.mtl\no a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nusemtl x\nf 1 2 3 4\n\
                o b\nv 0 0 5\nv 1 0 5\nv 0 1 5\nf 5/1/1 6/1/1 7/1/1\nl 1 5\n";
    let mesh = import_file(&write(dir.path(), "m.OBJ", text), &opts()).unwrap();
    assert_eq!(mesh.vertices.len(), 7);
    assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 2, 3], [4, 5, 6]]);
    assert_eq!(mesh.vertices[4], Vec3::new(0.0, 0.0, 5.0));
}

#[test]
fn obj_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
    let e = import_file(&p, &opts()).unwrap_err();
    assert!(matches!(e.kind, ImportErrorKind::Parse { .. }), "{e}");
    assert!(e.to_string().contains("bad.obj"));
    let p = write(
        dir.path(),
        "inf.obj",
        "v 0 0 0\nv 1 0 0\nv 0 inf 0\nf 1 2 3\n",
    );
    let e = import_file(&p, &opts()).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ImportErrorKind::Mesh(MeshError::NonFinite { vertex: 2, .. })
        ),
        "{e}"
    );
    let p = write(dir.path(), "empty.obj", "# nothing\n");
    let e = import_file(&p, &opts()).unwrap_err();
    assert!(
        matches!(e.kind, ImportErrorKind::Mesh(MeshError::Empty { .. })),
        "{e}"
    );
    let e = import_file(&dir.path().join("absent.obj"), &opts()).unwrap_err();
    assert!(matches!(e.kind, ImportErrorKind::Io(_)), "{e}");
}

/// A glTF document over one buffer: 4 positions, then u16 indices.
fn gltf_json(uri: &str, mode: u32, indices: &[u16], node_extra: &str) -> (String, Vec<u8>) {
    let positions: [[f32; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let mut bin: Vec<u8> = positions
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"children":[1],"translation":[10,0,0]}},{{"mesh":0{node_extra}}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"mode":{mode}}}]}}],
        "buffers":[{{"byteLength":{len},"uri":"{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":48}},{{"buffer":0,"byteOffset":48,"byteLength":{ilen}}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
        {{"bufferView":1,"componentType":5123,"count":{icount},"type":"SCALAR"}}]}}"#,
        len = bin.len(),
        ilen = 2 * indices.len(),
        icount = indices.len(),
    );
    (json, bin)
}

#[test]
fn gltf_external_buffer_strips_and_transforms() {
    let dir = tempfile::tempdir().unwrap();
    // A strip over the quad, the child node scaled by 2 under a parent moved by 10 in x.
    let (json, bin) = gltf_json("quad.bin", 5, &[0, 1, 3, 2], r#","scale":[2,2,2]"#);
    write(dir.path(), "quad.bin", &bin);
    let mesh = import_file(&write(dir.path(), "quad.gltf", json), &opts()).unwrap();
    assert_eq!(mesh.triangles, vec![[0, 1, 3], [3, 1, 2]]);
    assert_eq!(mesh.vertices[2], Vec3::new(12.0, 2.0, 0.0));
    // Fans too.
    let (json, bin) = gltf_json("quad.bin", 6, &[0, 1, 2, 3], "");
    write(dir.path(), "quad.bin", &bin);
    let mesh = import_file(&write(dir.path(), "fan.gltf", json), &opts()).unwrap();
    assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(mesh.vertices[0], Vec3::new(10.0, 0.0, 0.0));
}

#[test]
fn gltf_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (1, vec![0u16, 1], "only triangles"),
        (4, vec![0, 1, 9], "index 9 out of range"),
    ];
    for (mode, indices, says) in cases {
        let (json, bin) = gltf_json("b.bin", mode, &indices, "");
        write(dir.path(), "b.bin", &bin);
        let e = import_file(&write(dir.path(), "x.gltf", json), &opts()).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
    // The buffer file is shorter than declared.
    let (json, bin) = gltf_json("short.bin", 4, &[0, 1, 2], "");
    write(dir.path(), "short.bin", &bin[..20]);
    let e = import_file(&write(dir.path(), "short.gltf", json), &opts()).unwrap_err();
    assert!(matches!(e.kind, ImportErrorKind::Parse { .. }), "{e}");
    // Not glTF at all.
    let e = import_file(
        &write(dir.path(), "junk.glb", b"glTF\x02\0\0\0junk"),
        &opts(),
    )
    .unwrap_err();
    assert!(matches!(e.kind, ImportErrorKind::Parse { .. }), "{e}");
    // External buffers need a folder to resolve against.
    let (json, _) = gltf_json("b.bin", 4, &[0, 1, 2], "");
    assert!(import_bytes(json.as_bytes(), MeshFormat::Gltf, None, &opts()).is_err());
}

#[test]
fn gltf_and_glb_from_the_exporter() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = TriMesh::new(
        vec![
            Vec3::new(0.1, 0.2, 0.3),
            Vec3::new(-4.0, 5.5, 1e-20),
            Vec3::new(7.0, 8.0, -9.0),
        ],
        vec![[2, 0, 1]],
    );
    let a = import_file(
        &write(dir.path(), "m.gltf", to_gltf(&mesh, "m").unwrap()),
        &opts(),
    )
    .unwrap();
    let b = import_file(
        &write(dir.path(), "m.glb", to_glb(&mesh, "m").unwrap()),
        &opts(),
    )
    .unwrap();
    assert_eq!(a, mesh);
    assert_eq!(b, mesh);
}

#[test]
fn ply_ascii_and_binary() {
    let dir = tempfile::tempdir().unwrap();
    let ascii = "ply\nformat ascii 1.0\ncomment quad\nelement vertex 4\nproperty double x\n\
                 property double y\nproperty double z\nproperty uchar red\nelement face 1\n\
                 property list uchar uint vertex_index\nend_header\n\
                 0 0 0 255\n1 0 0 0\n1 1 0 0\n0 1 0 0\n4 0 1 2 3\n";
    let mesh = import_file(&write(dir.path(), "q.ply", ascii), &opts()).unwrap();
    assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(mesh.vertices[2], Vec3::new(1.0, 1.0, 0.0));
    let mut bin = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n\
                    property float y\nproperty float z\nelement face 1\n\
                    property list uchar int vertex_indices\nend_header\n"
        .to_vec();
    for c in [0.0f32, 0.0, 0.0, 2.5, 0.0, 0.0, 0.0, -3.25, 1.0] {
        bin.extend(c.to_le_bytes());
    }
    bin.push(3);
    for i in [2i32, 1, 0] {
        bin.extend(i.to_le_bytes());
    }
    let mesh = import_file(&write(dir.path(), "t.ply", bin), &opts()).unwrap();
    assert_eq!(mesh.triangles, vec![[2, 1, 0]]);
    assert_eq!(mesh.vertices[2], Vec3::new(0.0, -3.25, 1.0));
}

/// Counts over `ImportOptions::limit` are refused before any polygon is
/// cut: the bent pentagon below would be refused as non-planar there.
#[test]
fn counts_over_the_limit_are_refused_before_triangulating() {
    let limit = Some(CountLimit {
        max: 4,
        why: "the test's format counts to 4",
    });
    let limited = |weld| ImportOptions { weld, limit };
    let obj = "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 3 5\nv 0 2 0\nf 1 2 3 4 5\n";
    let e = import_bytes(obj.as_bytes(), MeshFormat::Obj, None, &limited(false)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "5 vertices: the test's format counts to 4, at most 4"
    );
    // Welding may merge vertices: the polygon is then cut (and refused).
    let e = import_bytes(obj.as_bytes(), MeshFormat::Obj, None, &limited(true)).unwrap_err();
    assert!(matches!(e, ImportErrorKind::Polygon { .. }), "{e}");
    let two = format!("{obj}f 5 4 3 2 1\n");
    let e = import_bytes(two.as_bytes(), MeshFormat::Obj, None, &limited(true)).unwrap_err();
    assert!(
        matches!(
            e,
            ImportErrorKind::TooMany {
                what: "triangles",
                count: 6,
                ..
            }
        ),
        "{e}"
    );
    let ply = "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\n\
               property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
               end_header\n0 0 0\n2 0 0\n2 2 0\n1 3 5\n0 2 0\n5 0 1 2 3 4\n";
    let e = import_bytes(ply.as_bytes(), MeshFormat::Ply, None, &limited(false)).unwrap_err();
    assert!(
        matches!(
            e,
            ImportErrorKind::TooMany {
                what: "vertices",
                count: 5,
                ..
            }
        ),
        "{e}"
    );
    // Within the limit, the same files read as before.
    let roomy = ImportOptions {
        weld: false,
        limit: Some(CountLimit { max: 5, why: "" }),
    };
    let e = import_bytes(ply.as_bytes(), MeshFormat::Ply, None, &roomy).unwrap_err();
    assert!(matches!(e, ImportErrorKind::Polygon { .. }), "{e}");
}

#[test]
fn ply_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
                property float z\n";
    let cases = [
        (format!("{head}end_header\n0 0 0\n1 0 0\n0 1 0\n"), "empty"),
        (
            format!(
                "{head}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n"
            ),
            "at least 3",
        ),
        (
            format!(
                "{head}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n"
            ),
            "non-negative",
        ),
        (
            "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n0\n1\n"
                .to_string(),
            "`y`",
        ),
        (format!("{head}end_header\n0 0 0\n"), "invalid PLY"),
    ];
    for (text, says) in cases {
        let e = import_file(&write(dir.path(), "bad.ply", text), &opts()).unwrap_err();
        assert!(e.to_string().contains(says), "{says}: {e}");
    }
}

#[test]
fn weld_option_applies_after_reading() {
    let dir = tempfile::tempdir().unwrap();
    let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 4 5 6\n";
    let p = write(dir.path(), "split.obj", text);
    let welded = import_file(
        &p,
        &ImportOptions {
            weld: true,
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(welded.vertices.len(), 4);
    assert_eq!(welded.triangles, vec![[0, 1, 2], [1, 3, 2]]);
}

/// The L of area 3 in the plane y = 4, each corner as (x, z), starting at
/// the corner whose fan would cover the notch 1..2 x 1..2 the L leaves out.
const L_XZ: [[f32; 2]; 6] = [
    [2.0, 1.0],
    [1.0, 1.0],
    [1.0, 2.0],
    [0.0, 2.0],
    [0.0, 0.0],
    [2.0, 0.0],
];

/// Every triangle faces the way the polygon does (its Newell normal is
/// -y for the L as listed), and the triangles' areas add up to exactly the
/// polygon's: a fan from corner 1 has one triangle turned over, covering
/// the notch, and totals 4.
fn assert_covers_the_l(mesh: &TriMesh) {
    assert_eq!(mesh.triangles.len(), 4, "{:?}", mesh.triangles);
    let mut area = 0.0;
    for t in 0..mesh.triangles.len() {
        let [a, b, c] = mesh.corners(t);
        let n = (b - a).cross(c - a);
        assert!(n.y < 0.0 && n.x == 0.0 && n.z == 0.0, "triangle {t}: {n}");
        area += n.length() / 2.0;
    }
    assert_eq!(area, 3.0);
}

#[test]
fn concave_faces_are_cut_on_their_plane_not_fanned() {
    let dir = tempfile::tempdir().unwrap();
    let v: String = L_XZ
        .iter()
        .map(|p| format!("v {} 4 {}\n", p[0], p[1]))
        .collect();
    let obj = write(dir.path(), "l.obj", format!("{v}f 1 2 3 4 5 6\n"));
    assert_covers_the_l(&import_file(&obj, &opts()).unwrap());
    let ply = format!(
        "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\nproperty float y\n\
         property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n\
         {}6 0 1 2 3 4 5\n",
        v.replace("v ", "")
    );
    assert_covers_the_l(&import_file(&write(dir.path(), "l.ply", ply), &opts()).unwrap());
}

#[test]
fn bent_and_crossed_faces_are_refused_naming_the_face() {
    let dir = tempfile::tempdir().unwrap();
    // Line 6 is a quad with one corner lifted off the others' plane.
    let bent = "v 0 0 0\nv 1 0 0\nv 1 1 0.5\nv 0 1 0\n# the face\nf 1 2 3 4\n";
    let e = import_file(&write(dir.path(), "bent.obj", bent), &opts()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("bent.obj")
            && text.contains("face at line 6")
            && text.contains("not planar")
            && text.contains("0.1 %"),
        "{text}"
    );
    // Face 1 of a PLY is a bow tie.
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
               property float z\nelement face 2\nproperty list uchar int vertex_indices\n\
               end_header\n0 0 0\n2 2 0\n2 0 0\n0 1 0\n3 0 2 3\n4 0 1 2 3\n";
    let e = import_file(&write(dir.path(), "bow.ply", ply), &opts()).unwrap_err();
    assert!(
        matches!(&e.kind, ImportErrorKind::Polygon { face, .. } if face == "face 1"),
        "{e}"
    );
    assert!(e.to_string().contains("self-intersecting"), "{e}");
}

#[test]
fn obj_keeps_the_file_vertex_order() {
    let dir = tempfile::tempdir().unwrap();
    // The faces use the vertices in reverse; tobj renumbered them by first use.
    let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 4 3 2\nf 4 2 1\nf 4 1 3\nf 3 1 2\n";
    let mesh = import_file(&write(dir.path(), "r.obj", text), &opts()).unwrap();
    assert_eq!(mesh.vertices[1], Vec3::X);
    assert_eq!(mesh.triangles[0], [3, 2, 1]);
}

/// Six times the signed volume enclosed by a closed mesh.
fn volume6(mesh: &TriMesh) -> f32 {
    (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t);
            a.dot(b.cross(c))
        })
        .sum()
}

#[test]
fn gltf_mirrored_node_flips_the_winding() {
    let dir = tempfile::tempdir().unwrap();
    // An outward-wound tetrahedron (positive volume), away from the origin.
    let tetra = TriMesh::new(
        vec![
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(2.0, 1.0, 1.0),
            Vec3::new(1.0, 2.0, 1.0),
            Vec3::new(1.0, 1.0, 2.0),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    );
    assert_eq!(volume6(&tetra), 1.0);
    let mut doc: serde_json::Value =
        serde_json::from_slice(&to_gltf(&tetra, "t").unwrap()).unwrap();
    for (scale, name) in [([-1.0, 1.0, 1.0], "x"), ([2.0, -1.0, -1.0], "yz")] {
        doc["nodes"][0]["scale"] = serde_json::json!(scale);
        let p = write(dir.path(), &format!("{name}.gltf"), doc.to_string());
        let mesh = import_file(&p, &opts()).unwrap();
        let det: f32 = scale.iter().product();
        // Mirrored (det < 0) or not, the hull still faces outwards.
        assert_eq!(volume6(&mesh), det.abs(), "scale {scale:?}");
        if det < 0.0 {
            assert_eq!(mesh.triangles[0], [0, 1, 2]);
        }
    }
}
