//! The inside index: a fine grid over the mesh whose empty cells are
//! classified once as wholly inside or wholly outside the hull, built on
//! the first `contains_point` (so a collider costs nothing more to
//! prepare).
//!
//! Its lists are built from the mesh by the exact triangle/box test with a
//! margin of 10^-5 of a cell (as for derived grids), so an empty cell is
//! one that no triangle comes near: no point of its closed box lies on the
//! surface, and all of them have one parity. Face-adjacent empty cells
//! share it too (their two boxes together touch no triangle), so the empty
//! cells are flood-filled into connected regions and each region costs one
//! exact parity count, from its first cell's centre to the grid's edge.
//!
//! A point in an empty cell is answered by a lookup. A point in an occupied
//! cell counts, with the exact crossing test of
//! `geometry::parity`, the crossings of the axis ray
//! from p up to the nearest classified cell in any of the six axis
//! directions (or the grid's edge, beyond which lies the outside): the
//! ray stops at q, that cell's centre along the axis, and q's parity is
//! the cell's. Every triangle crossing the segment p..q is listed in one of
//! the cells walked before the classified one, so the count is exact.
//! Which cell that is (the first found at distance 1, 2, ... in the
//! order of [`DIRECTIONS`]) depends on the cell alone, so it is found
//! once at build and kept in a byte per cell.
//!
//! The answer is the hull's exact parity for a closed mesh, whatever the
//! file's own lists leave out.

use glam::{DVec3, Vec3};

use crate::geometry::grid::{GridSpec, build_cell_lists};
use crate::geometry::mesh::TriMesh;
use crate::geometry::parity::{Crossing, crossing_along, shortest_exit};
use crate::geometry::sizing::{cells_per_axis, cubic_grid};
use crate::kernels::mailbox::with_visits;

/// The index's cells per axis, over the builder rule's (about two cells
/// per triangle): finer cells leave fewer points in occupied cells.
const REFINE: usize = 4;
/// Most cells the index may have (a class byte, a route byte and four
/// bytes of list start each).
const MAX_CELLS: usize = 1 << 21;

/// A cell with triangles near it (or not yet classified).
const MIXED: u8 = 0;
/// An empty cell wholly outside the hull.
const OUTSIDE: u8 = 1;
/// An empty cell wholly inside the hull.
const INSIDE: u8 = 2;
/// An empty cell queued in the flood fill.
const QUEUED: u8 = 3;

/// The fine grid, its lists and the class of every cell.
#[derive(Debug, Clone)]
pub(crate) struct InsideIndex {
    pub(crate) spec: GridSpec,
    /// `items[starts[c]..starts[c + 1]]` is cell c's list.
    starts: Vec<u32>,
    items: Vec<u32>,
    class: Vec<u8>,
    /// Every triangle's corners, in the mesh's order (one load where the
    /// mesh takes four).
    corners: Vec<[Vec3; 3]>,
    /// A mixed cell's walk, found once at build ([`Route`]); 0 where none
    /// is stored (a classified cell, or a walk too long for a byte).
    route: Vec<u8>,
}

impl InsideIndex {
    /// The index over `mesh` (every triangle, listed or not in a file's
    /// grid).
    pub(crate) fn new(mesh: &TriMesh) -> Self {
        let (lo, hi) = mesh.bounds().unwrap_or((Vec3::ZERO, Vec3::ZERO));
        let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
        let spec = index_grid(lo, hi, mesh.triangles.len());
        let lists = build_cell_lists(mesh, &spec, spec.cell.x * 1e-5);
        let mut starts = Vec::with_capacity(lists.len() + 1);
        let mut items = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        starts.push(0u32);
        for l in &lists {
            items.extend_from_slice(l);
            starts.push(items.len() as u32);
        }
        let class = lists
            .iter()
            .map(|l| if l.is_empty() { QUEUED } else { MIXED })
            .collect();
        let mut index = InsideIndex {
            spec,
            starts,
            items,
            class,
            corners: (0..mesh.triangles.len()).map(|t| mesh.corners(t)).collect(),
            route: Vec::new(),
        };
        index.classify();
        index.route = (0..index.class.len())
            .map(|i| match index.class[i] {
                MIXED => Route::encode(index.nearest_classified(index.spec.coords(i))),
                _ => 0,
            })
            .collect();
        index
    }

    /// Cell `i`'s class: inside, outside, or `None` for a cell near the
    /// surface.
    #[cfg(test)]
    pub(crate) fn class_of(&self, i: usize) -> Option<bool> {
        match self.class[i] {
            INSIDE => Some(true),
            OUTSIDE => Some(false),
            _ => None,
        }
    }

    /// Cell `i`'s list.
    #[inline(always)]
    fn list(&self, i: usize) -> &[u32] {
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Flood-fills the empty cells (marked [`QUEUED`]) into regions and
    /// gives each region the parity of its first cell's centre.
    fn classify(&mut self) {
        let dims = self.spec.dims;
        let mut region = Vec::new();
        for seed in 0..self.class.len() {
            if self.class[seed] != QUEUED {
                continue;
            }
            region.clear();
            region.push(seed);
            self.class[seed] = MIXED;
            let mut next = 0;
            while next < region.len() {
                let c = self.spec.coords(region[next]);
                next += 1;
                for (k, forward) in DIRECTIONS {
                    if let Some(n) = step(c, dims, k, forward, 1) {
                        let i = self.spec.linear(n);
                        if self.class[i] == QUEUED {
                            self.class[i] = MIXED;
                            region.push(i);
                        }
                    }
                }
            }
            let c = self.spec.coords(seed);
            let b = self.spec.cell_box(seed);
            let centre = (b.min + b.max) * 0.5;
            let (k, forward) = shortest_exit(c, dims);
            let inside = self.parity_along(centre, c, (k, forward), None) == Some(true);
            let class = if inside { INSIDE } else { OUTSIDE };
            for &i in &region {
                self.class[i] = class;
            }
        }
    }

    /// Whether `p` lies inside the hull or on its surface; `None` when `p`
    /// lies outside the index's grid (and so outside the hull).
    #[inline]
    pub(crate) fn contains(&self, p: DVec3) -> Option<bool> {
        let c = self.spec.cell_of_point(p)?;
        let i = self.spec.linear(c);
        match self.class[i] {
            OUTSIDE => Some(false),
            INSIDE => Some(true),
            _ => {
                let (dir, d) = match Route::decode(self.route[i]) {
                    Some(r) => r,
                    None => self.nearest_classified(c),
                };
                let (k, forward) = DIRECTIONS[dir];
                let target = step(c, self.spec.dims, k, forward, d).map(|n| {
                    let centre = self.spec.origin[k] + self.spec.cell[k] * (n[k] as f64 + 0.5);
                    (n[k], centre)
                });
                self.parity_along(p, c, (k, forward), target)
            }
        }
    }

    /// The nearest classified cell along one of the six axis directions
    /// from `c`, or the grid's edge when that comes first: the
    /// direction's index in [`DIRECTIONS`] and the distance in cells.
    fn nearest_classified(&self, c: [usize; 3]) -> (usize, usize) {
        let dims = self.spec.dims;
        for d in 1.. {
            for (dir, (k, forward)) in DIRECTIONS.into_iter().enumerate() {
                let Some(n) = step(c, dims, k, forward, d) else {
                    return (dir, d);
                };
                if self.class[self.spec.linear(n)] != MIXED {
                    return (dir, d);
                }
            }
        }
        unreachable!("the grid's edge is reached")
    }

    /// [`Self::parity`] along axis `k`, forwards or not.
    fn parity_along(
        &self,
        p: DVec3,
        c: [usize; 3],
        (k, forward): (usize, bool),
        stop: Option<(usize, f64)>,
    ) -> Option<bool> {
        match k {
            0 => self.parity::<0>(p, c, forward, stop),
            1 => self.parity::<1>(p, c, forward, stop),
            _ => self.parity::<2>(p, c, forward, stop),
        }
    }

    /// The parity of the axis ray from `p` (in cell `c`) along axis `K`:
    /// to the grid's edge, or with `stop = (cell, coordinate)` up to the
    /// point at that coordinate in that cell, whose class it then takes.
    /// `Some(true)` for inside or on the surface.
    fn parity<const K: usize>(
        &self,
        p: DVec3,
        c: [usize; 3],
        forward: bool,
        stop: Option<(usize, f64)>,
    ) -> Option<bool> {
        let odd = match stop {
            Some((cell, _)) => {
                let mut at = c;
                at[K] = cell;
                self.class[self.spec.linear(at)] == INSIDE
            }
            None => false,
        };
        let limit = stop.map(|(_, coord)| coord);
        // The cells walked: from c up to the stop cell or the grid's edge.
        let end = match (stop, forward) {
            (Some((cell, _)), _) => cell,
            (None, true) => self.spec.dims[K],
            (None, false) => usize::MAX,
        };
        let cross = |t: u32, odd: &mut bool| match crossing_along::<K>(
            &self.corners[t as usize],
            p,
            forward,
            limit,
        ) {
            Crossing::Miss => false,
            Crossing::Cross => {
                *odd = !*odd;
                false
            }
            Crossing::OnSurface => true,
        };
        let next = |cell: usize| {
            if forward {
                cell + 1
            } else {
                cell.wrapping_sub(1)
            }
        };
        if next(c[K]) == end {
            // One cell: its list names each triangle once.
            let mut odd = odd;
            let on = self
                .list(self.spec.linear(c))
                .iter()
                .any(|&t| cross(t, &mut odd));
            return Some(on || odd);
        }
        with_visits(self.corners.len(), |seen| {
            let (mut cell, mut odd) = (c, odd);
            while cell[K] != end {
                for &t in self.list(self.spec.linear(cell)) {
                    if seen.first(t) && cross(t, &mut odd) {
                        return Some(true);
                    }
                }
                cell[K] = next(cell[K]);
            }
            Some(odd)
        })
    }
}

/// A mixed cell's walk packed in a byte: the direction's index in
/// [`DIRECTIONS`] (low 3 bits) and the distance in cells (high 5 bits,
/// 1 to 31) to the nearest classified cell or the grid's edge.
struct Route;

impl Route {
    fn encode((dir, d): (usize, usize)) -> u8 {
        if d < 32 { (d << 3 | dir) as u8 } else { 0 }
    }

    #[inline(always)]
    fn decode(b: u8) -> Option<(usize, usize)> {
        (b != 0).then_some((usize::from(b & 7), usize::from(b >> 3)))
    }
}

/// The six axis directions: (axis, forwards).
const DIRECTIONS: [(usize, bool); 6] = [
    (0, true),
    (0, false),
    (1, true),
    (1, false),
    (2, true),
    (2, false),
];

/// Cell `c` moved `d` cells along axis `k`, or `None` off the grid.
#[inline]
fn step(c: [usize; 3], dims: [usize; 3], k: usize, forward: bool, d: usize) -> Option<[usize; 3]> {
    let mut n = c;
    n[k] = if forward {
        Some(c[k] + d).filter(|&x| x < dims[k])?
    } else {
        c[k].checked_sub(d)?
    };
    Some(n)
}

/// The index's grid over the mesh box `lo..hi`: cubic cells, [`REFINE`]
/// times finer than the builder rule, at most [`MAX_CELLS`], the box
/// grown by a tenth of a cell so that the whole mesh lies strictly inside.
fn index_grid(lo: DVec3, hi: DVec3, triangles: usize) -> GridSpec {
    let mut n = cells_per_axis(hi - lo, triangles)
        .saturating_mul(REFINE)
        .max(1);
    loop {
        let longest = (hi - lo).max_element().max(f64::MIN_POSITIVE);
        let pad = DVec3::splat(longest / n as f64 * 0.1 + longest * 1e-9);
        let spec = cubic_grid(lo - pad, hi + pad, n);
        if spec.cell_count() <= MAX_CELLS || n == 1 {
            return spec;
        }
        n = (n * 4 / 5).max(1);
    }
}
