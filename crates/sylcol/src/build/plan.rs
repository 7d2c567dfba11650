//! Choosing an MCOL grid: its box, cell size and dimensions.
//!
//! The rule, when the user gives neither:
//! - the cell size is the "round" value — 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6 or
//!   8 times a power of ten — whose grid the cost model ([`grid_cost`])
//!   expects to answer a ray fastest, among those with at most
//!   [`MAX_CELLS`] cells per axis and [`MAX_DEFAULT_CELLS`] in all;
//! - the box is the mesh bounds rounded out to multiples of the cell size
//!   (from the world origin), at least one cell on every axis. The cell
//!   indices of both ends are taken in one f64 step each, so a box
//!   symmetric about the origin gets a symmetric grid.
//!
//! With `--bbox` and no `--cell`, the cell is the round value the model
//! prefers among those that divide every axis of the box into a whole
//! number of at most [`MAX_CELLS`] cells. With `--cell` alone the box is
//! rounded out as above. Every grid has at most [`MAX_CELLS`] cells per
//! axis (the dimensions are stored as bytes), and its header satisfies, in
//! f32 arithmetic, extent = max - min and extent / cell = the cell count on
//! every axis (a `--bbox` for which that quotient is not a whole number is
//! refused; a rounded-out maximum is raised by an ulp or two until it holds).
//!
//! The cost model (derived below; the sweep that checks it:
//! `benches/README.md`, "The default grid of build mcol") estimates the
//! work of one ray through a candidate grid from the mesh's triangle
//! count, total area and total perimeter alone, so trying every
//! candidate costs nothing next to building the lists once.
//!
//! # The cost model
//!
//! [`grid_cost`] estimates the work of one ray through a candidate
//! grid from a few numbers: the triangle count T, the total area A and total
//! perimeter P of the triangles, the mesh's bounding box (volume V, surface
//! S; each side at least one cell), where the rays run, and the cell side
//! c. It is the classic uniform-grid cost — cells stepped times the cost of a
//! step, plus occupied cells visited times the cost of testing their
//! lists — with each expectation in closed form:
//!
//! - **free path** l: a random line crosses a surface of area A inside a
//!   volume V on average A / (2V) times per unit length (Cauchy–Crofton), so
//!   a ray travels l = 2V / A before its hit, at most the box's mean chord
//!   4V / S;
//! - **cells stepped**: 1 + l (1/cx + 1/cy + 1/cz) / 2 (an isotropic direction
//!   has a mean |d_k| of 1/2);
//! - **list entries**: a triangle of area a and perimeter p lands in
//!   1 + 3p / (4c) + 3a / (2c^2) cells of a randomly placed lattice of cubes
//!   (the kinematic formula), so the lists hold T + 3P / (4c) + 3A / (2c^2)
//!   entries; the **occupied cells** are the surface's own count 3A / (2c^2)
//!   (at least 1, at most the entries and the cells), and their mean list is
//!   entries / occupied;
//! - **occupied cells visited**: the cells stepped times the occupied share;
//! - **packets per occupied cell**: the queries test lists in packets of
//!   eight, mean list / 8 + 1/2 (at least 1), plus a crowding charge per 8
//!   triangles once the mean list passes a threshold (the longer lists then
//!   pass the queries' sub-grid threshold of 64);
//! - **cost** = cells stepped + occupied visits x (visit + packet x packets),
//!   in units of one empty step, with the weights of `CostWeights::FITTED`
//!   (a visit = 1 step, a packet = 0.75 step, a crowding charge of 1
//!   packet per 8 triangles past a mean list of 24), fitted to that sweep:
//!   it prints, for a range of weights, the grid each would pick on every
//!   scene against the fastest tried. In instructions a packet costs ~3 steps (~150 against
//!   ~45), but an empty step often costs a mispredicted branch.

use super::BuildError;
use crate::mesh::TriMesh;

/// Most cells on one axis (a byte in the header).
pub const MAX_CELLS: usize = 255;
/// Most cells in all the default rule may choose: 2^18, 8 MiB of 32-byte
/// cell records.
pub const MAX_DEFAULT_CELLS: usize = 1 << 18;
/// Most list entries (estimated) the default rule may choose: 2^22, 8 MiB
/// of u16 lists (a mesh of many stacked or overlapping triangles would
/// otherwise get lists far beyond its triangle count).
pub const MAX_DEFAULT_ENTRIES: f64 = (1u64 << 22) as f64;
/// The mantissas of the round cell sizes.
const ROUND_STEPS: [f64; 10] = [1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0];

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

impl GridPlan {
    /// Cells in all.
    pub fn cell_count(&self) -> usize {
        self.dims.iter().map(|&n| usize::from(n)).product()
    }
}

/// What the grid cost model knows of a mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshStats {
    /// Number of triangles.
    pub triangles: f64,
    /// Total area of the triangles.
    pub area: f64,
    /// Total perimeter of the triangles (a shared edge counts twice).
    pub perimeter: f64,
    /// The extent of the mesh's bounding box (where the rays are).
    pub extent: [f64; 3],
}

impl MeshStats {
    /// The statistics of `mesh`, in f64.
    pub fn of(mesh: &TriMesh) -> Self {
        let mut s = MeshStats {
            triangles: mesh.triangles.len() as f64,
            area: 0.0,
            perimeter: 0.0,
            extent: match mesh.bounds() {
                Some((lo, hi)) => (hi.as_dvec3() - lo.as_dvec3()).to_array(),
                None => [0.0; 3],
            },
        };
        for t in 0..mesh.triangles.len() {
            let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
            s.area += 0.5 * (b - a).cross(c - a).length();
            s.perimeter += (b - a).length() + (c - b).length() + (a - c).length();
        }
        s
    }
}

/// The model's estimate for one grid: what a ray does there on average.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridCost {
    /// Cells a ray steps through before its hit (or the grid's edge).
    pub cells: f64,
    /// How many of them are occupied.
    pub occupied_visits: f64,
    /// List entries in all.
    pub entries: f64,
    /// List length of an occupied cell.
    pub mean_list: f64,
    /// Packets of eight triangles tested per occupied cell visited.
    pub packets: f64,
    /// The work, in units of one empty cell step.
    pub cost: f64,
}

/// The weights of the cost model, in units of one empty cell step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostWeights {
    /// Visiting an occupied cell (the list test's call and mailbox).
    pub visit: f64,
    /// Testing one packet of eight triangles.
    pub packet: f64,
    /// Mean list length above which some lists pass the queries'
    /// sub-grid threshold (64) and cost more than their packets.
    pub crowding_from: f64,
    /// Extra packets per 8 listed triangles beyond `crowding_from`.
    pub crowding: f64,
}

impl CostWeights {
    /// The weights `build mcol` uses, fitted to the sweep of
    /// docs/modding.md (`sylcol-bench sweep` prints the fit).
    pub const FITTED: CostWeights = CostWeights {
        visit: 1.0,
        packet: 0.75,
        crowding_from: 24.0,
        crowding: 1.0,
    };
}

/// The expected work of a ray through `plan` over a mesh with `stats`
/// (docs/modding.md):
/// - mean free path l: a random line crosses a surface of area A inside
///   a volume V on average A / (2 V) times per unit length (Cauchy-Crofton),
///   so l = 2 V / A, at most the box's mean chord 4 V / S;
/// - cells stepped: 1 + l (1/cx + 1/cy + 1/cz) / 2 (an isotropic direction
///   has a mean |d_k| of 1/2);
/// - where: the rays run in the mesh's box (each side at least one cell);
/// - list entries: a triangle of area a and perimeter p lands in
///   1 + 3 p / (4 c) + 3 a / (2 c^2) cells of a randomly placed lattice of
///   cubes of side c (the kinematic formula); occupied cells: the surface's
///   own count 3 A / (2 c^2), at least 1, at most the entries and the cells;
/// - occupied cells visited: the cells stepped times the occupied share;
/// - per occupied cell, its packets: mean list / 8 + 1/2, at least 1,
///   plus a crowding charge once the mean list passes
///   [`CostWeights::crowding_from`];
/// - cost: cells stepped + occupied visits x (visit + packet x packets),
///   with the weights of [`CostWeights::FITTED`].
pub fn grid_cost(plan: &GridPlan, stats: &MeshStats) -> GridCost {
    grid_cost_with(plan, stats, &CostWeights::FITTED)
}

/// [`grid_cost`] with other weights (for fitting them).
pub fn grid_cost_with(plan: &GridPlan, stats: &MeshStats, w: &CostWeights) -> GridCost {
    let c = f64::from(plan.cell);
    let dims = plan.dims.map(f64::from);
    // The rays are in the mesh's box (at least a cell thick), whatever
    // margin the rounded-out grid adds around it.
    let [x, y, z] = [0, 1, 2].map(|k| stats.extent[k].max(c).min(dims[k] * c));
    let volume = x * y * z;
    let surface = 2.0 * (x * y + y * z + z * x);
    let cells_total = volume / (c * c * c);
    let chord = 4.0 * volume / surface;
    let free = if stats.area > 0.0 {
        (2.0 * volume / stats.area).min(chord)
    } else {
        chord
    };
    let cells = (1.0 + 1.5 * free / c).min(dims.iter().sum());
    let entries = stats.triangles + 0.75 * stats.perimeter / c + 1.5 * stats.area / (c * c);
    let occupied = (1.5 * stats.area / (c * c)).clamp(1.0, entries.min(cells_total).max(1.0));
    let mean_list = entries / occupied;
    let occupied_visits = cells * occupied / cells_total;
    let crowding = (mean_list - w.crowding_from).max(0.0) / 8.0 * w.crowding;
    let packets = (mean_list / 8.0 + 0.5).max(1.0) + crowding;
    GridCost {
        cells,
        occupied_visits,
        entries,
        mean_list,
        packets,
        cost: cells + occupied_visits * (w.visit + w.packet * packets),
    }
}

/// Plans the grid for a mesh with bounds `lo..hi` and cost-model
/// statistics `stats`.
pub fn plan_grid(
    lo: [f32; 3],
    hi: [f32; 3],
    stats: &MeshStats,
    bbox: Option<([f32; 3], [f32; 3])>,
    cell: Option<f32>,
) -> Result<GridPlan, BuildError> {
    if let Some(c) = cell
        && !(c.is_finite() && c > 0.0)
    {
        return Err(BuildError::BadCell(c));
    }
    match bbox {
        Some((min, max)) => plan_in_bbox(min, max, stats, cell),
        None => match cell {
            Some(c) => rounded_out(lo, hi, c),
            // Every candidate refused (no round cell makes a valid header
            // within the limits): the first round cell from the longest
            // side up that does.
            None => cheapest(default_candidates(lo, hi, stats)).map_or_else(
                || {
                    round_values(longest(lo, hi))
                        .find_map(|c| rounded_out(lo, hi, c).ok())
                        .ok_or(BuildError::NoRoundCell { min: lo, max: hi })
                },
                Ok,
            ),
        },
    }
}

/// Round cell sizes ([`ROUND_STEPS`] x 10^k) in ascending order, from the
/// decade below `from`'s.
fn round_values(from: f64) -> impl Iterator<Item = f32> {
    let start = if from > 0.0 && from.is_finite() {
        from.log10().floor() as i32 - 1
    } else {
        0
    };
    (start..start + 80).flat_map(|e| ROUND_STEPS.map(|m| (m * 10f64.powi(e)) as f32))
}

/// The longest side of `lo..hi` (1 for a point).
fn longest(lo: [f32; 3], hi: [f32; 3]) -> f64 {
    let l = (0..3)
        .map(|k| f64::from(hi[k]) - f64::from(lo[k]))
        .fold(0.0, f64::max);
    if l > 0.0 { l } else { 1.0 }
}

/// Every grid the default rule may choose for bounds `lo..hi` (at most
/// [`MAX_DEFAULT_CELLS`] cells and [`MAX_DEFAULT_ENTRIES`] estimated list
/// entries), with the model's estimate: round cells from 1/255 of the
/// longest side to the longest side, the smallest of those giving the same
/// dimensions.
pub fn default_candidates(
    lo: [f32; 3],
    hi: [f32; 3],
    stats: &MeshStats,
) -> Vec<(GridPlan, GridCost)> {
    let side = longest(lo, hi);
    let mut dims_seen = std::collections::HashSet::new();
    round_values(side / MAX_CELLS as f64)
        .take_while(|&c| f64::from(c) <= side)
        .filter_map(|c| rounded_out(lo, hi, c).ok())
        // Of the cells giving the same dimensions, the smallest: the same
        // cells over a larger box only lengthen the lists.
        .filter(|plan| dims_seen.insert(plan.dims))
        .filter(|plan| plan.cell_count() <= MAX_DEFAULT_CELLS)
        .map(|plan| (plan, grid_cost(&plan, stats)))
        .filter(|(_, cost)| cost.entries <= MAX_DEFAULT_ENTRIES)
        .collect()
}

/// The candidate of least estimated cost (the coarser on a tie).
fn cheapest(candidates: Vec<(GridPlan, GridCost)>) -> Option<GridPlan> {
    candidates
        .into_iter()
        .min_by(|a, b| {
            a.1.cost
                .total_cmp(&b.1.cost)
                .then(b.0.cell.total_cmp(&a.0.cell))
        })
        .map(|(p, _)| p)
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
        // Both ends' cell indices from the f64 quotients (floor(-x) =
        // -ceil(x): a box symmetric about the origin gets a symmetric
        // grid); the origin is the f32 nearest its index times the cell,
        // never past the mesh.
        let first = (f64::from(lo[k]) / c).floor();
        let last = (f64::from(hi[k]) / c).ceil().max(first + 1.0);
        let origin = f32_nearest(first * c).min(lo[k]);
        let o = f64::from(origin);
        let mut n = last - first;
        if o + n * c < f64::from(hi[k]) {
            // The origin's rounding left the top a hair short.
            n += 1.0;
        }
        if n > MAX_CELLS as f64 || !n.is_finite() {
            return Err(BuildError::GridTooLarge {
                axis: AXES[k],
                cells: n,
                limit: MAX_CELLS,
            });
        }
        plan.min[k] = origin;
        // The lowest f32 maximum from the grid's true top (or the mesh's,
        // if above) for which the header's f32 identity holds.
        let start = f32_nearest(o + n * c).max(hi[k]);
        plan.max[k] = exact_max(origin, cell, n as u8, start).ok_or(BuildError::NotWholeCells {
            axis: AXES[k],
            extent: n * c,
            cell,
        })?;
        plan.dims[k] = n as u8;
    }
    Ok(plan)
}

fn plan_in_bbox(
    min: [f32; 3],
    max: [f32; 3],
    stats: &MeshStats,
    cell: Option<f32>,
) -> Result<GridPlan, BuildError> {
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
        None => round_cell_for_bbox(min, max, stats).ok_or(BuildError::NoRoundCell { min, max })?,
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

/// The round cell the model prefers among those dividing every axis of
/// the box into a whole number of at most [`MAX_CELLS`] cells (and at most
/// [`MAX_DEFAULT_CELLS`] in all, unless no cell does).
fn round_cell_for_bbox(min: [f32; 3], max: [f32; 3], stats: &MeshStats) -> Option<f32> {
    let dividing: Vec<GridPlan> = round_values(longest(min, max) / MAX_CELLS as f64)
        .take_while(|&c| f64::from(c) <= longest(min, max))
        .filter_map(|cell| {
            let dims = (0..3)
                .map(|k| whole_cells(min[k], max[k], cell).filter(|&n| n <= MAX_CELLS as f64))
                .collect::<Option<Vec<f64>>>()?;
            let dims = [0, 1, 2].map(|k| dims[k] as u8);
            Some(GridPlan {
                min,
                max,
                cell,
                dims,
            })
        })
        .collect();
    let small: Vec<(GridPlan, GridCost)> = dividing
        .iter()
        .filter(|p| p.cell_count() <= MAX_DEFAULT_CELLS)
        .map(|p| (*p, grid_cost(p, stats)))
        .filter(|(_, cost)| cost.entries <= MAX_DEFAULT_ENTRIES)
        .collect();
    cheapest(small).or(dividing.last().copied()).map(|p| p.cell)
}

/// The f32 nearest `x`.
fn f32_nearest(x: f64) -> f32 {
    x as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::fixtures::{cuboid, uv_sphere};
    use glam::Vec3;

    /// The statistics of a box mesh over `lo..hi` (12 triangles).
    fn box_stats(lo: [f32; 3], hi: [f32; 3]) -> MeshStats {
        MeshStats::of(&cuboid(Vec3::from_array(lo), Vec3::from_array(hi)))
    }

    fn plan(lo: [f32; 3], hi: [f32; 3], cell: Option<f32>) -> Result<GridPlan, BuildError> {
        plan_grid(lo, hi, &box_stats(lo, hi), None, cell)
    }

    /// The case: a unit sphere of 4 096 triangles used to get a
    /// 4 x 4 x 4 grid (about 30 triangles a cell, where 10 x 10 x 10 casts
    /// 1.8x faster); the model gives it 10 to 26 cells across, and more
    /// triangles never a coarser grid.
    #[test]
    fn the_model_sizes_the_grid_to_the_mesh() {
        let mut across = Vec::new();
        for (slices, stacks) in [(32, 17), (64, 33), (128, 65), (256, 128)] {
            let mesh = uv_sphere(Vec3::ZERO, 1.0, slices, stacks);
            let (lo, hi) = mesh.bounds().unwrap();
            let stats = MeshStats::of(&mesh);
            let p = plan_grid(lo.to_array(), hi.to_array(), &stats, None, None).unwrap();
            assert_eq!(p.dims[0], p.dims[1], "{p:?}");
            across.push(p.dims[0]);
        }
        assert!((10..=26).contains(&across[1]), "{across:?}");
        assert!(across.windows(2).all(|w| w[0] <= w[1]), "{across:?}");
        // Twelve triangles: a coarse grid.
        let p = plan([-250_000.0; 3], [250_000.0; 3], None).unwrap();
        assert!(p.dims[0] <= 4, "{p:?}");
    }

    #[test]
    fn the_cheapest_candidate_is_chosen() {
        let mesh = uv_sphere(Vec3::ZERO, 1.0, 64, 33);
        let (lo, hi) = mesh.bounds().unwrap();
        let stats = MeshStats::of(&mesh);
        let all = default_candidates(lo.to_array(), hi.to_array(), &stats);
        assert!(all.len() > 5);
        let least = all.iter().map(|c| c.1.cost).fold(f64::INFINITY, f64::min);
        let p = plan_grid(lo.to_array(), hi.to_array(), &stats, None, None).unwrap();
        let chosen = all.iter().find(|c| c.0 == p).unwrap();
        assert_eq!(chosen.1.cost, least);
        // A finer grid walks more cells, with shorter lists.
        let (fine, coarse) = (&all[0].1, &all[all.len() - 1].1);
        assert!(fine.cells > coarse.cells && fine.mean_list < coarse.mean_list);
    }

    /// `--cell 0.2` on a [-1, 1]^3 mesh gave 10 x 11 x 10 (the origin was
    /// rounded outward in f32 and the count taken from it).
    #[test]
    fn a_symmetric_box_gets_a_symmetric_grid() {
        let p = plan([-1.0; 3], [1.0; 3], Some(0.2)).unwrap();
        assert_eq!(p.dims, [10, 10, 10]);
        assert_eq!(p.min, [-1.0; 3]);
        let sphere = uv_sphere(Vec3::ZERO, 1.0, 64, 33);
        let (lo, hi) = sphere.bounds().unwrap();
        let p = plan_grid(
            lo.to_array(),
            hi.to_array(),
            &MeshStats::of(&sphere),
            None,
            Some(0.2),
        );
        assert_eq!(p.unwrap().dims, [10, 10, 10]);
    }

    /// `--cell 0.1` on a unit square was refused: the f32 cell is a hair
    /// above 0.1, ten cells end a hair above 1, and the search for an f32
    /// maximum started above 1.0, where (max - min) / cell is no longer 10.
    #[test]
    fn a_cell_just_above_its_decimal_still_fits() {
        let p = plan([0.0; 3], [1.0, 1.0, 0.0], Some(0.1)).unwrap();
        assert_eq!(p.dims, [10, 10, 1]);
        assert_eq!(p.max[0], 1.0);
        // And the default rule, whatever it picks, gives a valid plan.
        assert!(plan([0.0; 3], [1.0, 1.0, 0.0], None).is_ok());
    }

    /// 65 535 copies of one triangle: every candidate fine enough to split
    /// the triangle would list all of them in every cell it covers
    /// (billions of entries); the estimate keeps the grid coarse.
    #[test]
    fn stacked_triangles_keep_their_lists_bounded() {
        let stats = MeshStats {
            triangles: 65_535.0,
            area: 65_535.0 * 0.5,
            perimeter: 65_535.0 * (2.0 + 2f64.sqrt()),
            extent: [1.0, 1.0, 0.0],
        };
        let p = plan_grid([0.0; 3], [1.0, 1.0, 0.0], &stats, None, None).unwrap();
        assert!(
            grid_cost(&p, &stats).entries <= MAX_DEFAULT_ENTRIES,
            "{p:?}"
        );
        assert!(p.dims[0] <= 10, "{p:?}");
    }

    proptest::proptest! {
        #[test]
        fn symmetric_bounds_give_symmetric_grids(
            half in proptest::array::uniform3(1.0e-3f32..1.0e5),
            cell in proptest::sample::select(vec![0.1f32, 0.2, 0.3, 0.7, 1.5, 7.0, 1234.5, 25_000.0]),
        ) {
            let lo = half.map(|h| -h);
            let Ok(p) = plan(lo, half, Some(cell)) else {
                return Ok(());
            };
            for k in 0..3 {
                proptest::prop_assert_eq!(p.dims[k] % 2, 0, "{:?}", p);
                proptest::prop_assert!(f64::from(p.min[k]) <= f64::from(lo[k]));
                let grid_max = f64::from(p.min[k]) + f64::from(p.cell) * f64::from(p.dims[k]);
                proptest::prop_assert!(grid_max >= f64::from(half[k]));
            }
        }
    }

    #[test]
    fn bounds_round_out_to_whole_cells() {
        let p = plan([-3.0, 0.5, 7.0], [41.0, 9.5, 7.0], Some(5.0)).unwrap();
        assert_eq!(p.cell, 5.0);
        assert_eq!(p.min, [-5.0, 0.0, 5.0]);
        assert_eq!(p.max, [45.0, 10.0, 10.0]);
        assert_eq!(p.dims, [10, 2, 1]);
    }

    #[test]
    fn cell_given_too_small_is_refused() {
        let e = plan([0.0; 3], [1000.0; 3], Some(1.0)).unwrap_err();
        assert!(matches!(e, BuildError::GridTooLarge { axis: 'x', .. }));
        assert!(matches!(
            plan([0.0; 3], [1.0; 3], Some(-1.0)),
            Err(BuildError::BadCell(_))
        ));
    }

    #[test]
    fn bbox_picks_a_dividing_round_cell() {
        let bbox = ([-25_000.0; 3], [25_000.0; 3]);
        // The mesh: a cube of 12 triangles filling the box.
        let p = plan_grid(
            [0.0; 3],
            [1.0; 3],
            &box_stats(bbox.0, bbox.1),
            Some(bbox),
            None,
        )
        .unwrap();
        assert_eq!(p.dims[0], p.dims[1]);
        assert_eq!(f32::from(p.dims[0]) * p.cell, 50_000.0);
        let p = plan_grid(
            [0.0; 3],
            [1.0; 3],
            &box_stats(bbox.0, bbox.1),
            Some(bbox),
            Some(10_000.0),
        )
        .unwrap();
        assert_eq!(p.dims, [5, 5, 5]);
        let odd = ([0.0; 3], [37_000.0, 10_000.0, 10_000.0]);
        let p = plan_grid(
            [0.0; 3],
            [1.0; 3],
            &box_stats(odd.0, odd.1),
            Some(odd),
            None,
        )
        .unwrap();
        assert_eq!(f32::from(p.dims[0]) * p.cell, 37_000.0, "{p:?}");
        assert_eq!(f32::from(p.dims[1]) * p.cell, 10_000.0, "{p:?}");
        assert!(matches!(
            plan_grid(
                [0.0; 3],
                [1.0; 3],
                &box_stats(bbox.0, bbox.1),
                Some(bbox),
                Some(7_000.0)
            ),
            Err(BuildError::NotWholeCells { .. })
        ));
        assert!(matches!(
            plan_grid(
                [0.0; 3],
                [1.0; 3],
                &box_stats([0.0; 3], [1.0; 3]),
                Some(([0.0; 3], [0.0, 1.0, 1.0])),
                None
            ),
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
            let Ok(p) = plan(lo, hi, cell) else {
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
