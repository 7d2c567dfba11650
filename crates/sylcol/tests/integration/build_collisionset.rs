//! CollisionSet building: folders, manifests, edits that keep every other
//! record byte for byte.

use std::path::Path;

use glam::Vec3;
use sylcol::TriMesh;
use sylcol::build::collisionset::{
    CollisionSetBuildError, Edit, ManifestEntry, apply_edits, build_collisionset,
    parse_text_manifest, read_manifest, scan_folder, write_manifest,
};
use sylcol::format::collisionset::{self, Endian};

fn tetra(scale: f32) -> TriMesh {
    TriMesh::new(
        vec![
            Vec3::ZERO,
            Vec3::new(scale, 0.0, 0.0),
            Vec3::new(0.0, scale, 0.0),
            Vec3::new(0.0, 0.0, scale),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
}

fn named(names: &[&str]) -> Vec<(String, TriMesh)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.to_string(), tetra(1.0 + i as f32)))
        .collect()
}

#[test]
fn build_encodes_names_and_geometry_in_order() {
    let set = build_collisionset(
        &named(&["rou_e101_bdy", "S01_Asteroid_cmesh_01a"]),
        Endian::Big,
    )
    .unwrap();
    let bytes = collisionset::encode(&set).unwrap();
    let back = collisionset::decode(&bytes).unwrap();
    assert_eq!(back, set);
    assert_eq!(back.records[1].name(), "S01_Asteroid_cmesh_01a");
    assert_eq!(back.records[1].name_field.len(), 24);
    assert_eq!(back.records[0].vertices[1], [1.0, 0.0, 0.0]);
    let little = build_collisionset(&named(&["a_mesh"]), Endian::Little).unwrap();
    let lb = collisionset::encode(&little).unwrap();
    assert_eq!(collisionset::decode(&lb).unwrap().endian, Endian::Little);
}

#[test]
fn build_refusals() {
    let dup = named(&["x_part", "x_part"]);
    assert!(
        matches!(build_collisionset(&dup, Endian::Big), Err(CollisionSetBuildError::DuplicateName(n)) if n == "x_part")
    );
    let spaced = named(&["has space"]);
    assert!(matches!(
        build_collisionset(&spaced, Endian::Big),
        Err(CollisionSetBuildError::Record(_))
    ));
    let mut bad = named(&["bad"]);
    bad[0].1.triangles.push([0, 1, 9]);
    assert!(matches!(
        build_collisionset(&bad, Endian::Big),
        Err(CollisionSetBuildError::Mesh { .. })
    ));
}

#[test]
fn edits_keep_every_other_record_byte_for_byte() {
    let set = build_collisionset(&named(&["a_one", "b_two", "c_three"]), Endian::Big).unwrap();
    let old = collisionset::encode(&set).unwrap();
    let offsets = set.offsets();
    let mut edited = collisionset::decode(&old).unwrap();
    apply_edits(
        &mut edited,
        &[
            Edit::Replace("b_two".into(), tetra(9.0)),
            Edit::Add("d_four".into(), tetra(4.0)),
            Edit::Remove("a_one".into()),
        ],
    )
    .unwrap();
    let new = collisionset::encode(&edited).unwrap();
    let names: Vec<String> = edited.records.iter().map(|r| r.name()).collect();
    assert_eq!(names, ["b_two", "c_three", "d_four"]);
    // c_three is untouched: its bytes sit unchanged after b_two (same size).
    let c_old = &old[offsets[2] as usize..];
    let new_offsets = edited.offsets();
    let c_new = &new[new_offsets[1] as usize..new_offsets[2] as usize];
    assert_eq!(c_new, c_old);
    assert_eq!(edited.records[0].vertices[3], [0.0, 0.0, 9.0]);
    // Errors name the record.
    let mut again = edited.clone();
    for (edit, want) in [
        (Edit::Remove("zzz".into()), "no record named \"zzz\""),
        (Edit::Replace("zzz".into(), tetra(1.0)), "no record named"),
        (Edit::Add("c_three".into(), tetra(1.0)), "already has"),
    ] {
        let e = apply_edits(&mut again, &[edit]).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
}

#[test]
fn replacing_keeps_the_name_field_verbatim() {
    let mut set = build_collisionset(&named(&["part"]), Endian::Big).unwrap();
    // A name field with non-NUL padding, as an odd file might hold.
    set.records[0].name_field = b"part\0xyzpadpadpa".to_vec();
    apply_edits(&mut set, &[Edit::Replace("part".into(), tetra(3.0))]).unwrap();
    assert_eq!(set.records[0].name_field, b"part\0xyzpadpadpa");
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const TRI_OBJ: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

#[test]
fn folders_sort_by_name_and_skip_other_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b_part.obj", TRI_OBJ);
    write(dir.path(), "a_part.OBJ", TRI_OBJ);
    write(dir.path(), "notes.txt", "not a mesh");
    std::fs::create_dir(dir.path().join("sub.obj")).unwrap();
    let entries = scan_folder(dir.path()).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a_part", "b_part"]);
    write(dir.path(), "a_part.ply", "ply\n");
    assert!(matches!(
        scan_folder(dir.path()),
        Err(CollisionSetBuildError::DuplicateName(_))
    ));
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(
        scan_folder(empty.path()),
        Err(CollisionSetBuildError::NoMeshes(_))
    ));
}

#[test]
fn manifests_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "parts.txt",
        "# parts\n\nrou_e101_bdy = meshes/body.obj\n  rob_f002=far.ply  \n",
    );
    let e = read_manifest(&dir.path().join("parts.txt")).unwrap();
    assert_eq!(e[0].name, "rou_e101_bdy");
    assert_eq!(e[0].mesh, dir.path().join("meshes/body.obj"));
    assert_eq!(e[1].name, "rob_f002");
    write(
        dir.path(),
        "parts.json",
        r#"[{"name": "x_a", "mesh": "a.glb"}, {"name": "x_b", "mesh": "/abs/b.obj"}]"#,
    );
    let e = read_manifest(&dir.path().join("parts.json")).unwrap();
    assert_eq!(e[0].mesh, dir.path().join("a.glb"));
    assert_eq!(e[1].mesh, Path::new("/abs/b.obj"));
    assert_eq!(
        parse_text_manifest("a = b\nno equals here\n")
            .unwrap_err()
            .0,
        2
    );
    write(dir.path(), "bad.json", r#"{"x_a": "a.obj"}"#);
    let err = read_manifest(&dir.path().join("bad.json")).unwrap_err();
    assert!(
        matches!(err, CollisionSetBuildError::Manifest { .. }),
        "{err}"
    );
    write(dir.path(), "dup.txt", "a = x.obj\na = y.obj\n");
    assert!(matches!(
        read_manifest(&dir.path().join("dup.txt")),
        Err(CollisionSetBuildError::DuplicateName(_))
    ));
}

#[test]
fn a_folder_manifest_fixes_order_and_names_and_extras_follow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["a.obj", "b.obj", "c.obj", "z.ply"] {
        std::fs::write(d.join(f), "").unwrap();
    }
    // Without a manifest: file-name order, stems as names.
    let stems = |es: &[ManifestEntry]| es.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    assert_eq!(stems(&scan_folder(d).unwrap()), ["a", "b", "c", "z"]);
    // The manifest export writes: its order first (however it spells the
    // paths), then the files it does not name.
    let entries = vec![
        ManifestEntry {
            name: "rou_c".into(),
            mesh: "c.obj".into(),
        },
        ManifestEntry {
            name: "rou_a".into(),
            mesh: "./a.obj".into(),
        },
    ];
    let (file, text) = write_manifest(&entries);
    assert_eq!(file, "manifest.txt");
    assert!(text.ends_with("rou_c = c.obj\nrou_a = ./a.obj\n"), "{text}");
    std::fs::write(d.join(file), &text).unwrap();
    let got = scan_folder(d).unwrap();
    assert_eq!(stems(&got), ["rou_c", "rou_a", "b", "z"]);
    assert_eq!(got[0].mesh, d.join("c.obj"));
    // Both kinds of manifest at once is ambiguous.
    std::fs::write(d.join("manifest.json"), "[]").unwrap();
    let e = scan_folder(d).unwrap_err().to_string();
    assert!(e.contains("both manifest.txt and manifest.json"), "{e}");
}

#[test]
fn names_a_text_manifest_cannot_hold_go_to_json() {
    let odd = vec![ManifestEntry {
        name: "a=b".into(),
        mesh: "a=b.obj".into(),
    }];
    let (file, text) = write_manifest(&odd);
    assert_eq!(file, "manifest.json");
    let back: Vec<ManifestEntry> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, odd);
}
