//! Every file `sylcol build` writes passes `sylcol verify` — the builder
//! checked by the seeds' own invariants, not only by its own tests.

use crate::common::asteroid;
use sylcol::TriMesh;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::format::mcol;
use sylcol::verify::mcol::{failing, verify};

/// Builds, encodes, decodes and verifies; returns the failing checks and
/// the number of missing (cell, triangle) pairs.
fn build_and_verify(mesh: &TriMesh, options: &McolBuildOptions) -> (Vec<String>, u64) {
    let built = build_mcol(mesh, options).expect("build");
    let bytes = mcol::encode(&built).unwrap();
    let decoded = mcol::decode(&bytes).unwrap();
    let report = verify(&decoded, Some(&bytes), 1);
    let missing = report.broadphase.as_ref().expect("valid indices").missing;
    (
        failing(&report)
            .into_iter()
            .map(|c| c.id.to_string())
            .collect(),
        missing,
    )
}

#[test]
fn closed_meshes_pass_every_check() {
    let mut two = asteroid(24, 13, 9_000.0, 0, 7);
    let other = asteroid(16, 9, 6_000.0, 0, 11);
    let base = two.vertices.len() as u32;
    two.vertices.extend(
        other
            .vertices
            .iter()
            .map(|v| *v + glam::Vec3::new(20_000.0, 3_000.0, -5_000.0)),
    );
    two.triangles
        .extend(other.triangles.iter().map(|t| t.map(|i| i + base)));
    let cases = [
        (
            asteroid(32, 17, 40_000.0, 0, 3),
            McolBuildOptions::default(),
        ),
        (two.clone(), McolBuildOptions::default()),
        (
            two,
            McolBuildOptions {
                bbox: Some(([-50_000.0; 3], [50_000.0; 3])),
                cell: Some(10_000.0),
            },
        ),
    ];
    for (i, (mesh, options)) in cases.iter().enumerate() {
        let (failed, missing) = build_and_verify(mesh, options);
        assert!(failed.is_empty(), "case {i}: {failed:?}");
        assert_eq!(missing, 0, "case {i}");
    }
}

#[test]
fn an_open_mesh_builds_but_fails_only_topology() {
    let open = asteroid(24, 13, 9_000.0, 5, 7);
    let (failed, missing) = build_and_verify(&open, &McolBuildOptions::default());
    assert_eq!(missing, 0);
    assert_eq!(
        failed,
        vec![
            "mcol.mesh.edges_two".to_string(),
            "mcol.mesh.oriented".to_string()
        ]
    );
}
