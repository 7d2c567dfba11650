//! The geometric checks of an MCOL map: triangle spheres, cell spheres and
//! the broad phase against the exact triangle/box test.

use glam::DVec3;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sylcol_format::mcol::Mcol;

use super::report::{Check, median};
use crate::geom::{Aabb, enclosing_radius, sphere_reaches_box};
use crate::grid::{GridSpec, build_cell_lists};
use crate::mesh::TriMesh;

/// Names of the geometric checks (stable: tests and scripts match on them).
pub mod names {
    use crate::verify::report::CheckId;

    /// One sphere per triangle.
    pub const SPHERE_COUNT: CheckId = CheckId::new("mcol.spheres.count", "one sphere per triangle");
    /// Sphere i contains the corners of triangle i.
    pub const SPHERE_ENCLOSES: CheckId =
        CheckId::new("mcol.spheres.enclose", "sphere i encloses triangle i");
    /// Sphere centres lie inside the map's bounding box.
    pub const SPHERE_IN_BBOX: CheckId =
        CheckId::new("mcol.spheres.in_bbox", "sphere centres inside the bbox");
    /// Sphere i is no more than 1 % larger than it must be.
    pub const SPHERE_TIGHT: CheckId = CheckId::new(
        "mcol.spheres.tight",
        "sphere i is tight (max|v-c|/r >= 0.99)",
    );
    /// An occupied cell's sphere reaches the cell's box.
    pub const CELL_SPHERE: CheckId =
        CheckId::new("mcol.cells.sphere_reaches", "cell sphere reaches its cell");
    /// A listed triangle's sphere reaches the cell listing it.
    pub const LISTED_SPHERE: CheckId = CheckId::new(
        "mcol.lists.sphere_reaches",
        "listed triangle's sphere reaches its cell",
    );
    /// Every (cell, triangle) pair that overlaps exactly is listed.
    pub const MISSING: CheckId = CheckId::new(
        "mcol.broadphase.listed",
        "overlapping triangles listed (missing = failure)",
    );
    /// Listed entries that overlap their cell exactly.
    pub const EXTRA: CheckId = CheckId::new(
        "mcol.broadphase.extra",
        "listed triangles overlap their cell (extra = harmless)",
    );
    /// Cells whose list is exactly the overlapping set.
    pub const CELLS_EXACT: CheckId = CheckId::new(
        "mcol.broadphase.cells_exact",
        "cells whose list is exactly the overlapping set",
    );
    /// Pairs whose triangle AABB reaches the cell, listed.
    pub const AABB_MISSING: CheckId = CheckId::new(
        "mcol.broadphase.aabb_listed",
        "AABB-overlapping triangles listed",
    );
    /// Listed entries whose triangle AABB reaches the cell.
    pub const AABB_EXTRA: CheckId = CheckId::new(
        "mcol.broadphase.aabb_extra",
        "listed triangles' AABB reaches their cell",
    );
}

/// Sphere figures: how many enclose their triangle, how tight, and the
/// random-triangle control.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Spheres {
    /// Triangles with a sphere.
    pub triangles: u64,
    /// Spheres enclosing their own triangle.
    pub enclosing: u64,
    /// Spheres at most 1 % larger than their triangle's farthest corner.
    pub tight: u64,
    /// Median of max|v - c| / r over every triangle.
    pub median_ratio: Option<f64>,
    /// Spheres enclosing a random other triangle (the control).
    pub control: u64,
    /// Control cases tried.
    pub control_total: u64,
}

/// Broad-phase figures against the exact triangle/box test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Broadphase {
    /// Cells with a list.
    pub occupied_cells: u64,
    /// Occupied cells whose list is exactly the set of overlapping triangles.
    pub cells_exact: u64,
    /// List entries (valid indices).
    pub entries: u64,
    /// (cell, triangle) pairs that overlap exactly.
    pub overlapping: u64,
    /// Overlapping pairs absent from the cell's list: a query would miss them.
    pub missing: u64,
    /// Listed pairs that do not overlap: harmless.
    pub extra: u64,
    /// Pairs whose triangle AABB reaches the cell but absent from the list.
    pub aabb_missing: u64,
    /// Listed pairs whose triangle AABB does not reach the cell.
    pub aabb_extra: u64,
}

/// Runs the sphere checks.
pub fn sphere_checks(mcol: &Mcol, mesh: &TriMesh, rng: &mut ChaCha8Rng) -> (Vec<Check>, Spheres) {
    let nt = mesh.triangles.len();
    let n = nt.min(mcol.spheres.len());
    let mut ratios = Vec::with_capacity(n);
    let (mut enclosing, mut tight, mut control, mut control_total) = (0u64, 0u64, 0u64, 0u64);
    let mut first_open = None;
    for (i, s) in mcol.spheres.iter().take(n).enumerate() {
        let (centre, r) = (
            DVec3::new(s[0] as f64, s[1] as f64, s[2] as f64),
            s[3] as f64,
        );
        let far = enclosing_radius(&mesh.corners(i), centre);
        let ratio = far / r;
        ratios.push(if ratio.is_nan() { f64::INFINITY } else { ratio });
        if far <= r {
            enclosing += 1;
        } else if first_open.is_none() {
            first_open = Some(i);
        }
        if ratio >= 0.99 {
            tight += 1;
        }
        if nt > 1 {
            let j = (i + rng.random_range(1..nt)) % nt;
            control_total += 1;
            if enclosing_radius(&mesh.corners(j), centre) <= r {
                control += 1;
            }
        }
    }
    let median_ratio = median(&mut ratios);
    let (lo, hi) = (mcol.header.prefix.bbox_min, mcol.header.prefix.bbox_max);
    let inside = mcol
        .spheres
        .iter()
        .filter(|s| (0..3).all(|k| s[k] >= lo[k] && s[k] <= hi[k]))
        .count() as u64;
    let checks = vec![
        Check::all(names::SPHERE_COUNT, (mcol.spheres.len() == nt).into(), 1)
            .with_note(format!("{} spheres, {nt} triangles", mcol.spheres.len())),
        Check::all(names::SPHERE_IN_BBOX, inside, mcol.spheres.len() as u64),
        Check::all(names::SPHERE_ENCLOSES, enclosing, n as u64)
            .with_control(
                "sphere i encloses a random other triangle",
                control,
                control_total,
            )
            .with_note_opt(first_open.map(|i| format!("first open: triangle {i}"))),
        Check::all(names::SPHERE_TIGHT, tight, n as u64)
            .with_note_opt(median_ratio.map(|m| format!("median ratio {m}"))),
    ];
    let figures = Spheres {
        triangles: n as u64,
        enclosing,
        tight,
        median_ratio,
        control,
        control_total,
    };
    (checks, figures)
}

/// The sorted, distinct, in-range triangle list of every cell, as the file has it.
pub fn file_lists(mcol: &Mcol, nt: usize) -> Vec<Vec<u32>> {
    (0..mcol.cells.len())
        .map(|c| {
            let mut l: Vec<u32> = mcol
                .cell_lists(c)
                .flatten()
                .map(|&t| t as u32)
                .filter(|&t| (t as usize) < nt)
                .collect();
            l.sort_unstable();
            l.dedup();
            l
        })
        .collect()
}

/// Runs the cell-sphere checks: each occupied cell's sphere reaches its cell
/// (control: a random other occupied cell's sphere), and each listed
/// triangle's sphere reaches the cell listing it (control: a random sphere).
pub fn cell_sphere_checks(
    mcol: &Mcol,
    spec: &GridSpec,
    lists: &[Vec<u32>],
    rng: &mut ChaCha8Rng,
) -> Vec<Check> {
    let cells = spec.cell_count().min(mcol.cells.len());
    let occupied: Vec<usize> = (0..cells)
        .filter(|&c| mcol.cells[c].record().is_some())
        .collect();
    let reaches = |s: &[f32; 4], cell: usize| {
        let c = DVec3::new(s[0] as f64, s[1] as f64, s[2] as f64);
        sphere_reaches_box(c, s[3] as f64, &spec.cell_box(cell))
    };
    let (mut own, mut other) = (0u64, 0u64);
    for (k, &c) in occupied.iter().enumerate() {
        own += u64::from(reaches(&mcol.cells[c].sphere, c));
        if occupied.len() > 1 {
            let j = occupied[(k + rng.random_range(1..occupied.len())) % occupied.len()];
            other += u64::from(reaches(&mcol.cells[j].sphere, c));
        }
    }
    let n_occ = occupied.len() as u64;
    let ns = mcol.spheres.len();
    let (mut listed, mut listed_ctrl, mut entries) = (0u64, 0u64, 0u64);
    for (c, list) in lists.iter().enumerate().take(cells) {
        for &t in list.iter().filter(|&&t| (t as usize) < ns) {
            entries += 1;
            listed += u64::from(reaches(&mcol.spheres[t as usize], c));
            listed_ctrl += u64::from(reaches(&mcol.spheres[rng.random_range(0..ns)], c));
        }
    }
    vec![
        Check::info(names::CELL_SPHERE, own, n_occ).with_control(
            "a random other cell's sphere reaches it",
            other,
            if occupied.len() > 1 { n_occ } else { 0 },
        ),
        Check::info(names::LISTED_SPHERE, listed, entries).with_control(
            "a random triangle's sphere reaches it",
            listed_ctrl,
            entries,
        ),
    ]
}

/// Runs the broad-phase checks against the exact separating-axis test and
/// against triangle AABBs.
pub fn broadphase_checks(
    mesh: &TriMesh,
    spec: &GridSpec,
    lists: &[Vec<u32>],
) -> (Vec<Check>, Broadphase) {
    let exact = build_cell_lists(mesh, spec, 0.0);
    let aabb = aabb_cell_lists(mesh, spec);
    let mut bp = Broadphase {
        occupied_cells: 0,
        cells_exact: 0,
        entries: 0,
        overlapping: 0,
        missing: 0,
        extra: 0,
        aabb_missing: 0,
        aabb_extra: 0,
    };
    let mut aabb_pairs = 0u64;
    let mut first_missing = None;
    for (c, (want, box_want)) in exact.iter().zip(&aabb).enumerate() {
        let have = lists.get(c).map(Vec::as_slice).unwrap_or(&[]);
        let (missing, extra) = difference_counts(want, have);
        let (aabb_missing, aabb_extra) = difference_counts(box_want, have);
        if missing > 0 && first_missing.is_none() {
            first_missing = Some(c);
        }
        if !have.is_empty() {
            bp.occupied_cells += 1;
            bp.cells_exact += u64::from(missing == 0 && extra == 0);
        }
        bp.entries += have.len() as u64;
        bp.overlapping += want.len() as u64;
        bp.missing += missing;
        bp.extra += extra;
        aabb_pairs += box_want.len() as u64;
        bp.aabb_missing += aabb_missing;
        bp.aabb_extra += aabb_extra;
    }
    let checks = vec![
        Check::all(names::MISSING, bp.overlapping - bp.missing, bp.overlapping).with_note(
            match first_missing {
                Some(c) => format!("missing {}, first in cell {c}", bp.missing),
                None => "missing 0".to_string(),
            },
        ),
        Check::info(names::EXTRA, bp.entries - bp.extra, bp.entries)
            .with_note(format!("extra {}", bp.extra)),
        Check::info(names::CELLS_EXACT, bp.cells_exact, bp.occupied_cells),
        Check::info(
            names::AABB_MISSING,
            aabb_pairs - bp.aabb_missing,
            aabb_pairs,
        )
        .with_note(format!("missing {}", bp.aabb_missing)),
        Check::info(names::AABB_EXTRA, bp.entries - bp.aabb_extra, bp.entries)
            .with_note(format!("extra {}", bp.aabb_extra)),
    ];
    (checks, bp)
}

/// For every cell, the triangles whose AABB touches it, ascending.
fn aabb_cell_lists(mesh: &TriMesh, spec: &GridSpec) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); spec.cell_count()];
    for t in 0..mesh.triangles.len() {
        let b = Aabb::of_triangle(&mesh.corners(t));
        let Some((lo, hi)) = spec.cell_range(&b) else {
            continue;
        };
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    let i = spec.linear([x, y, z]);
                    if b.overlaps(&spec.cell_box(i)) {
                        lists[i].push(t as u32);
                    }
                }
            }
        }
    }
    lists
}

/// (|want \ have|, |have \ want|) for two ascending, distinct lists.
fn difference_counts(want: &[u32], have: &[u32]) -> (u64, u64) {
    let (mut i, mut j, mut only_want, mut only_have) = (0, 0, 0u64, 0u64);
    while i < want.len() && j < have.len() {
        match want[i].cmp(&have[j]) {
            std::cmp::Ordering::Less => (only_want, i) = (only_want + 1, i + 1),
            std::cmp::Ordering::Greater => (only_have, j) = (only_have + 1, j + 1),
            std::cmp::Ordering::Equal => (i, j) = (i + 1, j + 1),
        }
    }
    (
        only_want + (want.len() - i) as u64,
        only_have + (have.len() - j) as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::difference_counts;

    #[test]
    fn differences() {
        assert_eq!(difference_counts(&[1, 2, 3], &[2, 3, 4, 5]), (1, 2));
        assert_eq!(difference_counts(&[], &[7]), (0, 1));
        assert_eq!(difference_counts(&[1, 9], &[]), (2, 0));
    }
}
