//! Every invariant of the MCOL seed, as checks with controls.
//!
//! [`verify`] runs them on a decoded map (and, given the chunk's bytes, the
//! format-level ones: POF0 position and the relocated slots). Checks that
//! need the file layout (pointer arithmetic, block lengths) are left out for
//! a model built in memory.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sylcol_format::mcol::{CELL_SIZE, Layout, Mcol, RECORD_SIZE};

use super::geometry::{self, Broadphase, Spheres};
use super::orientation;
use super::report::{Check, CheckId, all_ok};
use crate::grid::{GridSpec, SpecFromHeader};
use crate::mesh::{MeshFromFile, TriMesh};
use crate::orientation::Facing;
use crate::topology::{Topology, topology};

pub use super::chunk::names as chunk_names;
pub use super::geometry::names as geometry_names;
pub use super::orientation::names as orientation_names;

/// Names of the structural checks (stable: tests and scripts match on them).
pub mod names {
    use crate::verify::report::CheckId;

    /// Pad words at 0x1C, 0x2C, 0x3C are 1.0, 1.0, 0.0.
    pub const PADS: CheckId = CheckId::new("mcol.header.pads", "pad words 1.0 / 1.0 / 0.0");
    /// extent == max - min per axis.
    pub const EXTENT: CheckId = CheckId::new("mcol.header.extent", "extent == max - min");
    /// grid dims == extent / cell size per axis, and grid byte 3 == 1.
    pub const GRID: CheckId = CheckId::new(
        "mcol.header.grid",
        "grid == extent / cell size (and byte 3 = 1)",
    );
    /// The cell array is dense over the grid.
    pub const CELL_COUNT: CheckId =
        CheckId::new("mcol.cells.count", "cell array holds nx*ny*nz records");
    /// Occupied cells' index byte 3 is 1.
    pub const CELL_BYTE3: CheckId = CheckId::new("mcol.cells.byte3", "cell index byte 3 = 1");
    /// Occupied cells' (x, y, z) equals their position in the array.
    pub const CELL_POSITION: CheckId =
        CheckId::new("mcol.cells.position", "cell index == its position");
    /// Occupied cells own exactly one list record.
    pub const CELL_COUNT_ONE: CheckId = CheckId::new("mcol.cells.one_record", "cell count = 1");
    /// Every list record is owned by exactly one cell.
    pub const ONE_TO_ONE: CheckId =
        CheckId::new("mcol.records.one_owner", "cell -> record one-to-one");
    /// Records follow the occupied cells in cell order.
    pub const CELL_ORDER: CheckId =
        CheckId::new("mcol.records.cell_order", "records in cell order");
    /// Empty cell records are all zero (an assumption, not a seed fact).
    pub const EMPTY_ZERO: CheckId =
        CheckId::new("mcol.cells.empty_zero", "empty cell records all zero");
    /// Consecutive list pointers differ by exactly 2 x count.
    pub const ADVANCE: CheckId =
        CheckId::new("mcol.lists.advance", "list pointers advance by 2 x count");
    /// The first list starts right after the last record.
    pub const PACKED: CheckId = CheckId::new("mcol.lists.packed", "lists packed after the records");
    /// Every list entry names a triangle (the weak bound check).
    pub const ENTRY_RANGE: CheckId =
        CheckId::new("mcol.lists.in_range", "list entries < triangle count");
    /// The largest entry is the last triangle.
    pub const ENTRY_MAX: CheckId =
        CheckId::new("mcol.lists.max", "largest list entry == triangles - 1");
    /// Every triangle appears in some list.
    pub const EVERY_LISTED: CheckId = CheckId::new(
        "mcol.lists.every_triangle",
        "every triangle listed somewhere",
    );
    /// Block lengths match the counts.
    pub const BLOCKS: CheckId = CheckId::new(
        "mcol.layout.blocks",
        "block lengths (16 nt, align16 12 nv, align16 6 nt, 32 cells)",
    );
    /// Triangle indices are below the vertex count.
    pub const INDEX_RANGE: CheckId =
        CheckId::new("mcol.mesh.indices", "triangle indices < vertex count");
    /// Edges shared by exactly two triangles.
    pub const EDGES_TWO: CheckId = CheckId::new(
        "mcol.mesh.edges_two",
        "edges shared by exactly two triangles",
    );
    /// Triangles with three distinct, non-collinear corners.
    pub const NONDEGENERATE: CheckId =
        CheckId::new("mcol.mesh.nondegenerate", "non-degenerate triangles");
    /// Vertices used by some triangle.
    pub const REFERENCED: CheckId =
        CheckId::new("mcol.mesh.referenced", "vertices referenced by a triangle");
}

/// Everything `verify` found on one MCOL object.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct McolReport {
    /// Whether every check passed.
    pub ok: bool,
    /// The seed of the randomised controls.
    pub seed: u64,
    /// The checks, in the order of the seed page.
    pub checks: Vec<Check>,
    /// Mesh topology.
    pub topology: Topology,
    /// Broad phase against the exact test (absent when indices are invalid).
    pub broadphase: Option<Broadphase>,
    /// Triangle spheres (absent when indices are invalid).
    pub spheres: Option<Spheres>,
    /// How the closed components face (absent when indices are invalid).
    pub facing: Option<Facing>,
}

/// Runs every MCOL check. `chunk` is the object's bytes when it was read
/// from a file (format-level checks); `seed` drives the controls.
pub fn verify(mcol: &Mcol, chunk: Option<&[u8]>, seed: u64) -> McolReport {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mesh = TriMesh::from_mcol(mcol);
    let spec = GridSpec::from_header(&mcol.header);
    let nt = mesh.triangles.len();
    let mut checks = header_checks(mcol);
    if let Some(bytes) = chunk {
        checks.extend(super::chunk::checks(mcol, bytes));
    }
    checks.extend(cell_checks(mcol, &spec));
    if let Some(layout) = &mcol.layout {
        checks.extend(layout_checks(mcol, layout));
    }
    checks.extend(entry_checks(mcol, nt));
    let topo = topology(&mesh.vertices, &mesh.triangles);
    let (mut spheres, mut broadphase, mut facing) = (None, None, None);
    if topo.out_of_range_triangles == 0 {
        let (c, s) = geometry::sphere_checks(mcol, &mesh, &mut rng);
        checks.extend(c);
        spheres = Some(s);
        let lists = geometry::file_lists(mcol, nt);
        checks.extend(geometry::cell_sphere_checks(mcol, &spec, &lists, &mut rng));
        checks.extend(topology_checks(&topo));
        let f = orientation::facing_of(&mesh.vertices, &mesh.triangles);
        let control =
            orientation::random_winding_control(&mesh.vertices, &mesh.triangles, &mut rng);
        checks.extend(orientation::hull_checks(&topo, &control, &f));
        facing = Some(f);
        let (c, b) = geometry::broadphase_checks(&mesh, &spec, &lists);
        checks.extend(c);
        broadphase = Some(b);
    } else {
        checks.extend(topology_checks(&topo));
    }
    McolReport {
        ok: all_ok(&checks),
        seed,
        checks,
        topology: topo,
        broadphase,
        spheres,
        facing,
    }
}

fn header_checks(mcol: &Mcol) -> Vec<Check> {
    let h = &mcol.header;
    let pads = [1f32.to_bits(), 1f32.to_bits(), 0f32.to_bits()];
    let pads_ok = (0..3).filter(|&k| h.prefix.pads[k] == pads[k]).count();
    let extent_ok = (0..3)
        .filter(|&k| h.prefix.extent[k] == h.prefix.bbox_max[k] - h.prefix.bbox_min[k])
        .count();
    let grid_ok = (0..3)
        .filter(|&k| {
            h.grid[k] > 0 && f32::from(h.grid[k]) == h.prefix.extent[k] / h.prefix.cell_size[k]
        })
        .count()
        + usize::from(h.grid[3] == 1);
    vec![
        Check::all(names::PADS, pads_ok as u64, 3),
        Check::all(names::EXTENT, extent_ok as u64, 3),
        Check::all(names::GRID, grid_ok as u64, 4)
            .with_note(format!("grid {}x{}x{}", h.grid[0], h.grid[1], h.grid[2])),
    ]
}

fn cell_checks(mcol: &Mcol, spec: &GridSpec) -> Vec<Check> {
    let n = spec.cell_count().min(mcol.cells.len());
    let cells = &mcol.cells[..n];
    let occupied: Vec<usize> = (0..n).filter(|&i| cells[i].record().is_some()).collect();
    let occ = occupied.len() as u64;
    let count_where = |f: &dyn Fn(usize) -> bool| occupied.iter().filter(|&&i| f(i)).count() as u64;
    let byte3 = count_where(&|i| cells[i].index[3] == 1);
    let position = count_where(&|i| {
        let [x, y, z] = spec.coords(i);
        let idx = cells[i].index;
        [idx[0] as usize, idx[1] as usize, idx[2] as usize] == [x, y, z]
    });
    let count_one = count_where(&|i| cells[i].count == 1);

    let nr = mcol.records.len();
    let mut owners = vec![0u32; nr];
    let mut dangling = 0u64;
    let (mut expected_next, mut in_order) = (0usize, 0u64);
    for &i in &occupied {
        let (first, count) = (cells[i].record().unwrap_or(0), cells[i].count as usize);
        in_order += u64::from(first == expected_next);
        expected_next = first.saturating_add(count);
        for r in first..first.saturating_add(count) {
            match owners.get_mut(r) {
                Some(o) => *o += 1,
                None => dangling += 1,
            }
        }
    }
    let owned_once = owners.iter().filter(|&&o| o == 1).count() as u64;
    let empty: Vec<_> = cells.iter().filter(|c| c.record().is_none()).collect();
    let zero = empty
        .iter()
        .filter(|c| c.index == [0; 4] && c.count == 0 && c.word3 == 0 && c.sphere == [0.0; 4])
        .filter(|c| matches!(c.link, sylcol_format::mcol::CellLink::Raw(0)))
        .count() as u64;
    vec![
        Check::holds(names::CELL_COUNT, mcol.cells.len() == spec.cell_count()).with_note(format!(
            "{} records for {} cells",
            mcol.cells.len(),
            spec.cell_count()
        )),
        Check::all(names::CELL_BYTE3, byte3, occ),
        Check::all(names::CELL_POSITION, position, occ),
        Check::all(names::CELL_COUNT_ONE, count_one, occ),
        Check::all(names::ONE_TO_ONE, owned_once, nr as u64 + dangling),
        Check::all(names::CELL_ORDER, in_order, occ),
        Check::info(names::EMPTY_ZERO, zero, empty.len() as u64),
    ]
}

fn layout_checks(mcol: &Mcol, layout: &Layout) -> Vec<Check> {
    let lists = &layout.lists;
    let pairs = lists.len().min(mcol.records.len()).saturating_sub(1);
    let mut first_bad = None;
    let advance = (0..pairs)
        .filter(|&i| {
            let want = 2 * mcol.records[i].triangles.len() as u64;
            let ok = lists[i + 1] as u64 == lists[i] as u64 + want;
            if !ok && first_bad.is_none() {
                first_bad = Some(i);
            }
            ok
        })
        .count() as u64;
    let records_end = layout
        .records
        .last()
        .map(|&r| r as u64 + RECORD_SIZE as u64);
    let packed = match (records_end, lists.first()) {
        (Some(end), Some(&first)) => end == first as u64,
        _ => true,
    };
    vec![
        Check::all(names::ADVANCE, advance, pairs as u64)
            .with_note_opt(first_bad.map(|i| format!("first break after record {i}"))),
        Check::holds(names::PACKED, packed),
        block_check(mcol, layout),
    ]
}

/// Each block's length (distance to the next block start) against the one
/// its count predicts, and the records at stride 32 right after the cells.
fn block_check(mcol: &Mcol, layout: &Layout) -> Check {
    let nv = mcol.vertices.len() as u64;
    let nt = mcol.triangles.len() as u64;
    let after_cells = layout.records.first().or(layout.lists.first()).copied();
    let mut starts = [
        (layout.spheres, 16 * nt),
        (layout.vertices, (12 * nv).next_multiple_of(16)),
        (layout.triangles, (6 * nt).next_multiple_of(16)),
        (layout.cells, (CELL_SIZE * mcol.cells.len()) as u64),
    ];
    starts.sort_unstable();
    let mut ends: Vec<u32> = starts[1..].iter().map(|s| s.0).collect();
    ends.extend(after_cells);
    let mut passed = starts
        .iter()
        .zip(&ends)
        .filter(|((start, want), end)| (**end as u64).checked_sub(*start as u64) == Some(*want))
        .count() as u64;
    let stride_ok = layout
        .records
        .iter()
        .enumerate()
        .all(|(i, &r)| r as u64 == layout.records[0] as u64 + (RECORD_SIZE * i) as u64);
    passed += u64::from(stride_ok);
    Check::all(names::BLOCKS, passed, ends.len() as u64 + 1)
}

fn entry_checks(mcol: &Mcol, nt: usize) -> Vec<Check> {
    let entries = mcol.records.iter().flat_map(|r| r.triangles.iter());
    let total = mcol.list_entries() as u64;
    let in_range = entries.clone().filter(|&&t| (t as usize) < nt).count() as u64;
    let max = entries.clone().max().copied();
    let mut listed = vec![false; nt];
    for &t in entries {
        if let Some(l) = listed.get_mut(t as usize) {
            *l = true;
        }
    }
    let every = listed.iter().filter(|&&l| l).count() as u64;
    vec![
        Check::all(names::ENTRY_RANGE, in_range, total),
        Check::holds(names::ENTRY_MAX, nt > 0 && max == Some(nt as u16 - 1)).with_note(format!(
            "largest {}, triangles {nt}",
            max.map_or("none".to_string(), |m| m.to_string())
        )),
        Check::all(names::EVERY_LISTED, every, nt as u64),
    ]
}

/// The pass/fail topology checks of a closed hull.
pub fn topology_checks(t: &Topology) -> Vec<Check> {
    vec![
        Check::all(
            names::INDEX_RANGE,
            t.triangles - t.out_of_range_triangles,
            t.triangles,
        ),
        Check::all(names::EDGES_TWO, t.edges_shared_by_two, t.edges).with_note(format!(
            "open {}, shared by 3+ {}",
            t.boundary_edges, t.nonmanifold_edges
        )),
        Check::all(
            names::NONDEGENERATE,
            t.triangles - t.out_of_range_triangles - t.degenerate,
            t.triangles - t.out_of_range_triangles,
        ),
        Check::all(
            names::REFERENCED,
            t.vertices - t.unreferenced_vertices,
            t.vertices,
        ),
    ]
}

/// The failing checks of a report (for tests and summaries).
pub fn failing(report: &McolReport) -> Vec<CheckId> {
    super::report::failing(&report.checks)
}
