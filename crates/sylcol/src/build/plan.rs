//! Choosing an MCOL grid: its box, cell size and dimensions.
//!
//! The rule, when the user gives neither:
//! - the cell size is the smallest "round" value — 1, 2 or 5 times a power of
//!   ten — for which the mesh bounds, rounded out to whole cells, span at
//!   most [`TARGET_CELLS`] cells along every axis. The game's large maps fit
//!   this rule (±250 000 at 50 000 and ±50 000 at 10 000: ten cells across);
//! - the box is the mesh bounds rounded out to multiples of the cell size
//!   (from the world origin), at least one cell on every axis.
//!
//! With `--bbox` and no `--cell`, the cell is the smallest round value that
//! divides every axis of the box into a whole number of at most
//! [`TARGET_CELLS`] cells; failing that, the largest round value that divides
//! it into at most [`MAX_CELLS`]. With `--cell` alone the box is rounded out
//! as above. Every grid has at most [`MAX_CELLS`] cells per axis (the
//! dimensions are stored as bytes), and its header satisfies, in f32
//! arithmetic, extent = max - min and extent / cell = the cell count on
//! every axis (a `--bbox` for which that quotient is not a whole number is
//! refused; a rounded-out maximum is raised by an ulp or two until it holds).

use super::BuildError;

/// Cells along the longest axis the default cell size aims for.
pub const TARGET_CELLS: u32 = 10;
/// Most cells on one axis (a byte in the header).
pub const MAX_CELLS: usize = 255;

const AXES: [char; 3] = ['x', 'y', 'z'];

/// A planned grid, in the f32 values the header stores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPlan {
    /// Minimum corner.
    pub min: [f32; 3],
    /// Maximum corner.
    pub max: [f32; 3],
    /// Cell size (the same on every axis).
    pub cell: f32,
    /// Cells per axis.
    pub dims: [u8; 3],
}

/// Plans the grid for a mesh with bounds `lo..hi`.
pub fn plan_grid(
    lo: [f32; 3],
    hi: [f32; 3],
    bbox: Option<([f32; 3], [f32; 3])>,
    cell: Option<f32>,
) -> Result<GridPlan, BuildError> {
    if let Some(c) = cell
        && !(c.is_finite() && c > 0.0)
    {
        return Err(BuildError::BadCell(c));
    }
    match bbox {
        Some((min, max)) => plan_in_bbox(min, max, cell),
        None => {
            let cell = match cell {
                Some(c) => c,
                None => round_cell_for_bounds(lo, hi),
            };
            rounded_out(lo, hi, cell)
        }
    }
}

/// Round cell sizes (1, 2, 5 x 10^k) in ascending order from `from`'s decade.
fn round_values(from: f64) -> impl Iterator<Item = f32> {
    let start = if from > 0.0 && from.is_finite() {
        from.log10().floor() as i32 - 1
    } else {
        0
    };
    (start..start + 80).flat_map(|e| [1.0, 2.0, 5.0].map(|m| (m * 10f64.powi(e)) as f32))
}

fn round_cell_for_bounds(lo: [f32; 3], hi: [f32; 3]) -> f32 {
    let longest = (0..3)
        .map(|k| f64::from(hi[k]) - f64::from(lo[k]))
        .fold(0.0, f64::max);
    let longest = if longest > 0.0 { longest } else { 1.0 };
    round_values(longest / f64::from(TARGET_CELLS))
        .find(|&c| {
            rounded_out(lo, hi, c)
                .is_ok_and(|p| p.dims.iter().all(|&n| u32::from(n) <= TARGET_CELLS))
        })
        .unwrap_or(f32::MAX)
}

/// The box `lo..hi` rounded out to multiples of `cell`.
fn rounded_out(lo: [f32; 3], hi: [f32; 3], cell: f32) -> Result<GridPlan, BuildError> {
    let c = f64::from(cell);
    let mut plan = GridPlan {
        min: [0.0; 3],
        max: [0.0; 3],
        cell,
        dims: [0; 3],
    };
    for k in 0..3 {
        // Round the origin down in f32 so it never passes the mesh.
        let origin = f32_at_most((f64::from(lo[k]) / c).floor() * c);
        let o = f64::from(origin);
        let n = ((f64::from(hi[k]) - o) / c).ceil().max(1.0);
        if n > MAX_CELLS as f64 || !n.is_finite() {
            return Err(BuildError::GridTooLarge {
                axis: AXES[k],
                cells: n,
                limit: MAX_CELLS,
            });
        }
        plan.min[k] = origin;
        plan.max[k] = exact_max(origin, cell, n as u8, f32_at_least(o + n * c)).ok_or(
            BuildError::NotWholeCells {
                axis: AXES[k],
                extent: n * c,
                cell,
            },
        )?;
        plan.dims[k] = n as u8;
    }
    Ok(plan)
}

fn plan_in_bbox(min: [f32; 3], max: [f32; 3], cell: Option<f32>) -> Result<GridPlan, BuildError> {
    let bad = |detail: &str| BuildError::BadBbox {
        min,
        max,
        detail: detail.into(),
    };
    if min.iter().chain(&max).any(|v| !v.is_finite()) {
        return Err(bad("coordinates must be finite"));
    }
    if (0..3).any(|k| min[k] >= max[k]) {
        return Err(bad("every minimum must be below its maximum"));
    }
    let cell = match cell {
        Some(c) => c,
        None => round_cell_for_bbox(min, max).ok_or(BuildError::NoRoundCell { min, max })?,
    };
    let mut dims = [0u8; 3];
    for k in 0..3 {
        let extent = f64::from(max[k]) - f64::from(min[k]);
        let n = whole_cells(min[k], max[k], cell).ok_or(BuildError::NotWholeCells {
            axis: AXES[k],
            extent,
            cell,
        })?;
        if n > MAX_CELLS as f64 {
            return Err(BuildError::GridTooLarge {
                axis: AXES[k],
                cells: n,
                limit: MAX_CELLS,
            });
        }
        dims[k] = n as u8;
    }
    Ok(GridPlan {
        min,
        max,
        cell,
        dims,
    })
}

/// The grid's cell count along an axis, as the header states it: the f32
/// quotient (max - min) / cell, when that is a whole number of at least 1.
/// (`verify` checks exactly this identity, in f32.)
fn whole_cells(min: f32, max: f32, cell: f32) -> Option<f64> {
    let q = (max - min) / cell;
    (q >= 1.0 && q == q.round()).then_some(f64::from(q))
}

/// The first f32 from `start` up (within 64 ulps) at which the header's
/// identity (max - origin) / cell == n holds in f32.
fn exact_max(origin: f32, cell: f32, n: u8, start: f32) -> Option<f32> {
    std::iter::successors(Some(start), |m| Some(m.next_up()))
        .take(64)
        .find(|&m| (m - origin) / cell == f32::from(n))
}

fn round_cell_for_bbox(min: [f32; 3], max: [f32; 3]) -> Option<f32> {
    let longest = (0..3)
        .map(|k| f64::from(max[k]) - f64::from(min[k]))
        .fold(0.0, f64::max);
    let counts = |c: f32| -> Option<f64> {
        (0..3)
            .map(|k| whole_cells(min[k], max[k], c))
            .try_fold(0.0, |m: f64, n| n.map(|n| m.max(n)))
    };
    let candidates: Vec<(f32, f64)> = round_values(longest / MAX_CELLS as f64)
        .take_while(|&c| f64::from(c) <= longest)
        .filter_map(|c| counts(c).map(|n| (c, n)))
        .filter(|&(_, n)| n <= MAX_CELLS as f64)
        .collect();
    candidates
        .iter()
        .find(|&&(_, n)| n <= f64::from(TARGET_CELLS))
        .or(candidates.last())
        .map(|&(c, _)| c)
}

/// The largest f32 not above `x`.
fn f32_at_most(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) > x { f.next_down() } else { f }
}

/// The smallest f32 not below `x`.
pub(crate) fn f32_at_least(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f.next_up() } else { f }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_cells_match_the_game_maps() {
        let p = plan_grid([-250_000.0; 3], [250_000.0; 3], None, None).unwrap();
        assert_eq!((p.cell, p.dims), (50_000.0, [10, 10, 10]));
        let p = plan_grid([-50_000.0; 3], [50_000.0; 3], None, None).unwrap();
        assert_eq!((p.cell, p.dims), (10_000.0, [10, 10, 10]));
        assert_eq!(p.min, [-50_000.0; 3]);
        assert_eq!(p.max, [50_000.0; 3]);
    }

    #[test]
    fn bounds_round_out_to_whole_cells() {
        let p = plan_grid([-3.0, 0.5, 7.0], [41.0, 9.5, 7.0], None, None).unwrap();
        assert_eq!(p.cell, 5.0);
        assert_eq!(p.min, [-5.0, 0.0, 5.0]);
        assert_eq!(p.max, [45.0, 10.0, 10.0]);
        assert_eq!(p.dims, [10, 2, 1]);
    }

    #[test]
    fn cell_given_too_small_is_refused() {
        let e = plan_grid([0.0; 3], [1000.0; 3], None, Some(1.0)).unwrap_err();
        assert!(matches!(e, BuildError::GridTooLarge { axis: 'x', .. }));
        assert!(matches!(
            plan_grid([0.0; 3], [1.0; 3], None, Some(-1.0)),
            Err(BuildError::BadCell(_))
        ));
    }

    #[test]
    fn bbox_picks_a_dividing_round_cell() {
        let bbox = ([-25_000.0; 3], [25_000.0; 3]);
        let p = plan_grid([0.0; 3], [1.0; 3], Some(bbox), None).unwrap();
        assert_eq!((p.cell, p.dims), (5_000.0, [10, 10, 10]));
        let p = plan_grid([0.0; 3], [1.0; 3], Some(bbox), Some(10_000.0)).unwrap();
        assert_eq!(p.dims, [5, 5, 5]);
        let odd = ([0.0; 3], [37_000.0, 10_000.0, 10_000.0]);
        let p = plan_grid([0.0; 3], [1.0; 3], Some(odd), None).unwrap();
        assert_eq!((p.cell, p.dims), (1_000.0, [37, 10, 10]));
        assert!(matches!(
            plan_grid([0.0; 3], [1.0; 3], Some(bbox), Some(7_000.0)),
            Err(BuildError::NotWholeCells { .. })
        ));
        assert!(matches!(
            plan_grid([0.0; 3], [1.0; 3], Some(([0.0; 3], [0.0, 1.0, 1.0])), None),
            Err(BuildError::BadBbox { .. })
        ));
    }

    proptest::proptest! {
        #[test]
        fn planned_headers_hold_their_identities(
            lo in proptest::array::uniform3(-1.0e6f32..1.0e6),
            size in proptest::array::uniform3(0.0f32..2.0e5),
            cell in proptest::option::of(proptest::sample::select(vec![0.1f32, 0.3, 7.0, 1234.5, 25_000.0])),
        ) {
            let hi = [0, 1, 2].map(|k| lo[k] + size[k]);
            let Ok(p) = plan_grid(lo, hi, None, cell) else {
                // Only a too-fine explicit cell may be refused.
                proptest::prop_assert!(cell.is_some());
                return Ok(());
            };
            for k in 0..3 {
                let extent = p.max[k] - p.min[k];
                proptest::prop_assert_eq!(extent / p.cell, f32::from(p.dims[k]));
                proptest::prop_assert!(p.min[k] <= lo[k]);
                let grid_max = f64::from(p.min[k]) + f64::from(p.cell) * f64::from(p.dims[k]);
                proptest::prop_assert!(grid_max >= f64::from(hi[k]));
            }
        }
    }
}
