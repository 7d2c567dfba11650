//! Colliders over MCOL maps: the file's grid, lists and spheres as
//! stored, every broken part of a map refused with its error.

use glam::Vec3;

use super::fixtures::{cuboid, map_from_mesh, uv_sphere};
use super::*;
use sylcol_format::mcol::Mcol;

#[test]
fn broken_maps_are_refused() {
    let mesh = cuboid(Vec3::splat(-1.0), Vec3::ONE);
    let good = map_from_mesh(&mesh, Vec3::splat(-2.0), Vec3::ONE, [4, 4, 4]);
    let mut m = good.clone();
    m.cells.pop();
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::CellCount { .. })
    ));
    let mut m = good.clone();
    m.records[0].triangles.push(99);
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::ListEntry { triangle: 99, .. })
    ));
    let mut m = good.clone();
    m.triangles[3][1] = 50;
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::VertexIndex { vertex: 50, .. })
    ));
    let mut m = good.clone();
    (m.header.grid[2], m.cells) = (0, Vec::new());
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::EmptyGrid(_))
    ));
    let mut m = good.clone();
    m.header.prefix.cell_size[1] = 0.0;
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::BadCellSize(_))
    ));
    assert!(
        Collider::from_mcol(&good)
            .unwrap()
            .missing_entries()
            .is_empty()
    );
    let mut m = good.clone();
    let dropped = m.records[5].triangles.remove(0);
    let cell = m.cells.iter().position(|c| c.record() == Some(5)).unwrap();
    let c = Collider::from_mcol(&m).unwrap();
    assert_eq!(c.missing_entries(), vec![(cell, u32::from(dropped))]);
    let mut m = good;
    m.spheres[0][3] = 0.01;
    assert_eq!(
        Collider::from_mcol(&m)
            .unwrap()
            .grid_stats()
            .spheres_replaced,
        1
    );
}

/// A map written by sylcol's builder and read back through the file is
/// the stored grid the engine's fixture makes of the same mesh: the same
/// grid, lists and spheres, so the engine's tests on `map_grid` maps test
/// what `from_mcol` gives.
#[test]
fn a_read_map_is_the_engines_stored_grid() {
    let mesh = uv_sphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 24, 12);
    let (lo, cell, dims) = (
        Vec3::splat(-8.0),
        Vec3::new(4.0, 2.0, 16.0 / 7.0),
        [4, 8, 7],
    );
    let read = Collider::from_mcol(&map_from_mesh(&mesh, lo, cell, dims)).unwrap();
    let made = sylcol_query::fixtures::map_collider(&mesh, lo, cell, dims);
    assert_eq!(read.mesh(), made.mesh());
    assert_eq!(read.grid(), made.grid());
    for c in 0..read.grid().cell_count() {
        let at = read.grid().coords(c);
        assert_eq!(read.cell_triangles(at), made.cell_triangles(at), "cell {c}");
    }
    let want = sylcol_query::fixtures::map_grid(&mesh, lo, cell, dims).spheres;
    let m = map_from_mesh(&mesh, lo, cell, dims);
    assert_eq!(m.spheres, want);
    assert_eq!(read.grid_stats(), made.grid_stats());
}

/// A cell whose records lie outside the file is refused, after every
/// fault the engine finds in the cells before it (and in the mesh), as
/// the checks run cell by cell.
#[test]
fn a_cell_linking_past_the_records_is_refused_in_cell_order() {
    let mesh = cuboid(Vec3::splat(-1.0), Vec3::ONE);
    let good = map_from_mesh(&mesh, Vec3::splat(-2.0), Vec3::ONE, [4, 4, 4]);
    let linked: Vec<usize> = (0..good.cells.len())
        .filter(|&c| good.cells[c].record().is_some())
        .collect();
    let (early, late) = (linked[1], linked[linked.len() - 2]);
    let mut m = good.clone();
    m.cells[late].count = 1_000;
    assert!(matches!(
        Collider::from_mcol(&m),
        Err(ColliderError::RecordLink { cell, .. }) if cell == late
    ));
    // A bad entry in an earlier cell is found first; one in a later cell
    // is not reached.
    let record = |m: &Mcol, c: usize| m.cells[c].record().unwrap();
    let mut first = m.clone();
    let r = record(&first, early);
    first.records[r].triangles.push(77);
    assert!(matches!(
        Collider::from_mcol(&first),
        Err(ColliderError::ListEntry { cell, triangle: 77, .. }) if cell == early
    ));
    let mut after = m.clone();
    let r = record(&after, linked[linked.len() - 1]);
    after.records[r].triangles.push(77);
    assert!(matches!(
        Collider::from_mcol(&after),
        Err(ColliderError::RecordLink { cell, .. }) if cell == late
    ));
    // A broken mesh is found before any list.
    let mut mesh_first = m;
    mesh_first.vertices[2][0] = f32::NAN;
    assert!(matches!(
        Collider::from_mcol(&mesh_first),
        Err(ColliderError::NonFiniteVertex(2))
    ));
}
