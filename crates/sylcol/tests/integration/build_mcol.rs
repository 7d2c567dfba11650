//! Build -> check on awkward geometry: every built MCOL keeps the mesh
//! exactly, has enclosing spheres and complete cell lists.

use crate::common::{
    assert_encodes_faithfully, assert_lists_complete, assert_valid_build, asteroid, random_soup,
};
use glam::Vec3;
use proptest::prelude::*;
use sylcol::TriMesh;
use sylcol::build::BuildError;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::prelude::*;

fn build(
    mesh: &TriMesh,
    bbox: Option<([f32; 3], [f32; 3])>,
    cell: Option<f32>,
) -> sylcol::format::mcol::Mcol {
    let m = build_mcol(mesh, &McolBuildOptions { bbox, cell }).expect("build");
    assert_valid_build(mesh, &m);
    assert_encodes_faithfully(&m);
    m
}

fn tri(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> TriMesh {
    TriMesh::new(vec![a.into(), b.into(), c.into()], vec![[0, 1, 2]])
}

#[test]
fn triangles_on_cell_faces_edges_and_corners() {
    let bbox = Some(([-20.0; 3], [20.0; 3]));
    // In the plane z = 0, a face shared by two layers of cells.
    let on_face = tri(
        [-18.0, -18.0, 0.0],
        [-12.0, -18.0, 0.0],
        [-18.0, -12.0, 0.0],
    );
    let m = build(&on_face, bbox, Some(10.0));
    let spec = sylcol::grid::GridSpec::from_header(&m.header);
    let occupied: Vec<[usize; 3]> = (0..spec.cell_count())
        .filter(|&i| m.cells[i].record().is_some())
        .map(|i| spec.coords(i))
        .collect();
    assert_eq!(occupied, vec![[0, 0, 1], [0, 0, 2]]);
    assert_lists_complete(&on_face, &m);
    // Along the line x = 0, y = 0: an edge shared by four cells per layer.
    let on_edge = tri([0.0, 0.0, -15.0], [0.0, 0.0, 15.0], [0.0, 0.0, 1.0]);
    let m = build(&on_edge, bbox, Some(10.0));
    assert_eq!(m.occupied_cells(), 4 * 4);
    assert_lists_complete(&on_edge, &m);
    // A vertex exactly on a grid corner (0, 10, 10), the rest in one cell.
    let corner = tri([0.0, 10.0, 10.0], [5.0, 15.0, 15.0], [5.0, 12.0, 18.0]);
    let m = build(&corner, bbox, Some(10.0));
    assert_eq!(m.occupied_cells(), 8);
    assert_lists_complete(&corner, &m);
}

#[test]
fn slivers_and_needles() {
    let mesh = TriMesh::new(
        vec![
            Vec3::new(-19.0, -19.0, -19.0),
            Vec3::new(19.0, 19.0, 19.0),
            Vec3::new(19.0, 19.0, 19.000002),
            Vec3::new(-3.0, 4.0, 5.0),
            Vec3::new(-3.0, 4.0, 5.0),
            Vec3::new(12.0, -7.0, 1.0),
            // A zero-area triangle: all corners on one point.
            Vec3::new(1.0, 1.0, 1.0),
        ],
        vec![[0, 1, 2], [3, 4, 5], [6, 6, 6]],
    );
    let m = build(&mesh, Some(([-20.0; 3], [20.0; 3])), Some(5.0));
    assert!(assert_lists_complete(&mesh, &m) > 8);
}

#[test]
fn one_triangle_spanning_the_whole_grid() {
    let mesh = tri(
        [-50.0, -50.0, -50.0],
        [50.0, -50.0, 50.0],
        [-50.0, 50.0, 50.0],
    );
    let m = build(&mesh, None, Some(10.0));
    assert_eq!(m.header.grid, [10, 10, 10, 1]);
    let pairs = assert_lists_complete(&mesh, &m);
    assert_eq!(pairs, m.list_entries() - extras(&mesh, &m));
}

/// List entries whose triangle does not overlap the cell exactly (margin
/// extras).
fn extras(mesh: &TriMesh, m: &sylcol::format::mcol::Mcol) -> usize {
    let spec = sylcol::grid::GridSpec::from_header(&m.header);
    (0..spec.cell_count())
        .flat_map(|i| m.cell_lists(i).flatten().map(move |&t| (i, t)))
        .filter(|&(i, t)| {
            !sylcol::geom::triangle_overlaps_box(&mesh.corners(t as usize), &spec.cell_box(i))
        })
        .count()
}

#[test]
fn vertices_on_the_bbox() {
    // A box mesh whose corners are the grid's corners (like the game's
    // 8-vertex outer walls).
    let r = 25_000.0;
    let mesh = sylcol::verify::testmaps::cube(r);
    let m = build(&mesh, Some(([-r; 3], [r; 3])), Some(10_000.0));
    assert_eq!(m.header.grid, [5, 5, 5, 1]);
    // Exactly the 98 boundary cells of a 5x5x5 grid hold the walls.
    assert_eq!(m.occupied_cells(), 125 - 27);
    assert_lists_complete(&mesh, &m);
    // The default grid for the same box (the cost model's choice): the
    // walls fill exactly its boundary cells.
    let m = build(&mesh, None, None);
    let n = usize::from(m.header.grid[0]);
    assert_eq!(m.header.grid, [n as u8, n as u8, n as u8, 1]);
    assert_eq!(m.header.prefix.bbox_min, [-r; 3]);
    assert_eq!(m.occupied_cells(), n.pow(3) - n.saturating_sub(2).pow(3));
    // A vertex on the bbox max face of a grid it does not fill.
    let mut mesh2 = mesh.clone();
    mesh2.vertices[7] = Vec3::splat(r);
    build(&mesh2, Some(([-r; 3], [r + 10_000.0; 3])), Some(10_000.0));
}

#[test]
fn asteroid_is_listed_completely() {
    let mesh = asteroid(24, 13, 900.0, 0, 7);
    let m = build(&mesh, None, None);
    assert_lists_complete(&mesh, &m);
}

#[test]
fn the_u16_limits() {
    // 256 slices x 128 bands = 65 536 triangles; drop one to sit on the limit.
    let at_limit = asteroid(256, 129, 40_000.0, 1, 3);
    assert_eq!(at_limit.triangles.len(), 65_535);
    let m = build(&at_limit, None, None);
    assert_eq!(m.triangles.len(), 65_535);
    let over = asteroid(256, 129, 40_000.0, 0, 3);
    assert_eq!(
        build_mcol(&over, &McolBuildOptions::default()),
        Err(BuildError::TooMany {
            what: "triangles",
            count: 65_536,
            limit: 65_535
        })
    );
    // 21 845 separate triangles use exactly 65 535 vertices.
    let soup = random_soup(21_845, -1000.0, 1000.0, 5);
    assert_eq!(soup.vertices.len(), 65_535);
    let m = build_mcol(&soup, &McolBuildOptions::default()).unwrap();
    assert_valid_build(&soup, &m);
    let many_vertices = TriMesh::new(vec![Vec3::ZERO; 65_536], vec![[0, 1, 65_535]]);
    assert!(matches!(
        build_mcol(&many_vertices, &McolBuildOptions::default()),
        Err(BuildError::TooMany {
            what: "vertices",
            count: 65_536,
            ..
        })
    ));
}

#[test]
fn bad_meshes_and_grids_are_refused() {
    let ok = tri([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let mut nan = ok.clone();
    nan.vertices[0].x = f32::NAN;
    let opts = McolBuildOptions::default();
    assert!(matches!(build_mcol(&nan, &opts), Err(BuildError::Mesh(_))));
    assert!(matches!(
        build_mcol(&TriMesh::default(), &opts),
        Err(BuildError::Mesh(_))
    ));
    let outside = McolBuildOptions {
        bbox: Some(([0.5; 3], [2.5; 3])),
        cell: Some(1.0),
    };
    assert!(matches!(
        build_mcol(&ok, &outside),
        Err(BuildError::OutsideGrid { vertex: 0, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_soups_build_completely(seed in 0u64..1_000_000, n in 1usize..60, cell in prop::sample::select(vec![None, Some(1.0f32), Some(2.5), Some(7.0)])) {
        let mesh = random_soup(n, -10.0, 10.0, seed);
        let m = build(&mesh, None, cell);
        assert_lists_complete(&mesh, &m);
    }
}
