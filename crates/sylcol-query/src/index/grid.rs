//! [`GridIndex`]: a mesh through a uniform grid whose cells list the
//! triangles that reach them — a map file's own grid and lists as stored
//! ([`StoredGrid`]), or a grid derived from the mesh.
//!
//! The lists are kept as one flat (CSR) array; a ray walk reads them as
//! SIMD packets with sub-grids in crowded cells ([`ray_grid`]), built on
//! the first ray that walks the grid. The grid answers every query on its
//! own ([`RayCast`](crate::RayCast) in `index::rays`, [`SphereCast`](crate::SphereCast)
//! in [`spheres`], [`PointQuery`](crate::PointQuery) in [`points`]); the
//! [`Collider`](crate::Collider) adds faster routes for some.

pub mod cells;
pub mod points;
pub mod ray_grid;
pub mod rings;
pub mod spheres;
pub mod sub_grid;
pub mod walk;

use std::sync::OnceLock;

use glam::Vec3;

use self::ray_grid::RayGrid;
use super::surface::{Surface, check_mesh};
use crate::error::ColliderError;
use crate::geometry::grid::{GridSpec, build_cell_csr_of, build_cell_lists};
use crate::geometry::mesh::TriMesh;
use crate::geometry::sizing::{MAX_DERIVED_CELLS, cells_for, cubic_grid, suggested_cells_per_axis};
use crate::kernels::dda::WalkFrame;
use crate::kernels::dispatch::{KernelPath, Kernels};

/// Mean list length (over occupied cells) above which a grid counts as
/// too coarse for its mesh ([`GridStats::too_coarse`]).
pub const COARSE_MEAN_LIST: f64 = 16.0;

/// A grid as a map file stores it, with its lists and the triangles'
/// bounding spheres: what the game's runtime queries through, taken as it
/// is (nothing rebuilt). sylcol reads it from an MCOL file
/// (`Collider::from_mcol` there).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGrid {
    /// The grid's placement and dimensions.
    pub spec: GridSpec,
    /// `items[starts[c]..starts[c + 1]]` is cell c's list (cell index
    /// x + nx (y + ny z)); one more start than cells.
    pub starts: Vec<u32>,
    /// Every list's triangle ids, one list after another.
    pub items: Vec<u32>,
    /// A bounding sphere per triangle (centre xyz, radius), as stored; one
    /// that does not enclose its triangle is replaced when the spheres are
    /// first needed (and counted in [`GridStats::spheres_replaced`]).
    pub spheres: Vec<[f32; 4]>,
}

/// Every cell's list in one flat array.
#[derive(Debug, Clone)]
pub(crate) struct CellLists {
    /// `items[starts[c]..starts[c + 1]]` is cell c's list.
    pub(crate) starts: Vec<u32>,
    pub(crate) items: Vec<u32>,
}

/// Where a grid came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridSource {
    /// A map file's own grid and lists, as stored.
    File,
    /// Derived from the mesh: `cells_per_axis` along its longest side.
    Derived {
        /// Cells along the longest axis.
        cells_per_axis: usize,
    },
}

/// How well a grid fits its mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridStats {
    /// Where the grid came from.
    pub source: GridSource,
    /// Cells per axis.
    pub dims: [usize; 3],
    /// Cells in all.
    pub cells: usize,
    /// Cells with a non-empty list.
    pub occupied: usize,
    /// List entries in all.
    pub entries: usize,
    /// Mean list length over occupied cells.
    pub mean_list: f64,
    /// Longest list.
    pub max_list: usize,
    /// Triangles in the mesh.
    pub triangles: usize,
    /// Triangles no cell lists (invisible to grid queries).
    pub unlisted: usize,
    /// File spheres that did not enclose their triangle and were
    /// recomputed (0 for derived grids and for every sane file).
    pub spheres_replaced: usize,
}

impl GridStats {
    /// Whether queries would test many triangles per cell: the mean list
    /// is longer than [`COARSE_MEAN_LIST`]. A derived grid
    /// ([`GridIndex::with_derived_grid`]) is then faster.
    pub fn too_coarse(&self) -> bool {
        self.mean_list > COARSE_MEAN_LIST
    }
}

/// A mesh through a uniform grid: the grid, its cell lists (one flat
/// array; a derived grid's built on the first grid query) and what a ray
/// walk reads of them (built on the first ray that walks the grid), over
/// the mesh's [`Surface`].
#[derive(Debug, Clone)]
pub struct GridIndex {
    pub(crate) surface: Surface,
    pub(crate) spec: GridSpec,
    pub(crate) frame: WalkFrame,
    /// The cell lists: a file's as soon as the index is made, a derived
    /// grid's on first use.
    pub(crate) lists: OnceLock<CellLists>,
    /// The ray walk's packets and occupancy, built on the first ray that
    /// walks the grid.
    pub(crate) ray_grid: OnceLock<RayGrid>,
    source: GridSource,
    /// The kernels rays and segments run through (with the proof that
    /// the CPU runs them): the widest by default
    /// ([`GridIndex::with_kernel_path`]).
    pub(crate) kernels: Kernels,
}

impl GridIndex {
    /// The mesh through a stored grid, its lists and spheres as they are
    /// (the lists copied, nothing rebuilt). Checked in this order, the
    /// first failure being the error: the grid (cell sizes positive and
    /// finite, origin finite, no axis without cells, one list per cell),
    /// the mesh (coordinates finite, indices in range), one sphere per
    /// triangle, then cell by cell each list (within the entries, its
    /// triangles in range).
    pub fn from_stored(mesh: TriMesh, grid: StoredGrid) -> Result<Self, ColliderError> {
        let StoredGrid {
            spec,
            starts,
            items,
            spheres,
        } = grid;
        check_spec(&spec)?;
        if starts.len() != spec.cell_count() + 1 {
            return Err(ColliderError::CellCount {
                dims: spec.dims,
                expected: spec.cell_count(),
                found: starts.len().saturating_sub(1),
            });
        }
        check_mesh(&mesh)?;
        let nt = mesh.triangles.len();
        if spheres.len() != nt {
            return Err(ColliderError::SphereCount {
                expected: nt,
                found: spheres.len(),
            });
        }
        check_lists(&starts, &items, nt)?;
        let bounds = mesh.bounds().unwrap_or((Vec3::ZERO, Vec3::ZERO));
        let surface = Surface::new(mesh, Some(bounds), Some(spheres));
        let index = GridIndex::assemble(surface, spec, GridSource::File);
        let _ = index.lists.set(CellLists { starts, items });
        Ok(index)
    }

    /// Any mesh (a CollisionSet part, an imported model) through a grid
    /// derived from it ([`suggested_cells_per_axis`]), whose lists are
    /// built on the first grid query.
    pub fn from_mesh(mesh: &TriMesh) -> Result<Self, ColliderError> {
        check_mesh(mesh)?;
        // The mesh's box, found once for the grid and the ray kernel.
        let bounds = mesh.bounds();
        let n = cells_for(bounds, mesh.triangles.len());
        derived(mesh.clone(), bounds, n)
    }

    /// The same mesh through a derived uniform grid with `cells_per_axis`
    /// cubic cells along its longest side (at least 1), the lists built
    /// (on the first grid query) by an exact triangle/box test with a
    /// small margin.
    pub fn with_derived_grid(&self, cells_per_axis: usize) -> Result<Self, ColliderError> {
        let mesh = self.mesh();
        derived(mesh.clone(), mesh.bounds(), cells_per_axis.max(1))
    }

    /// The same index answering rays and segments through the portable
    /// kernels only (see `Collider::with_portable_kernels`).
    pub fn with_portable_kernels(mut self) -> Self {
        self.kernels = Kernels::Portable;
        self
    }

    /// The same index answering rays and segments through the kernels of
    /// `path`, where this CPU runs them (`None` where it does not).
    pub fn with_kernel_path(mut self, path: KernelPath) -> Option<Self> {
        self.kernels = Kernels::of(path)?;
        Some(self)
    }

    /// The kernels rays and segments run through.
    pub fn kernel_path(&self) -> KernelPath {
        self.kernels.path()
    }

    /// Whether rays and segments run through the AVX2 kernels (this CPU
    /// has AVX2, and not [`GridIndex::with_portable_kernels`]).
    pub fn uses_avx2(&self) -> bool {
        self.kernels.path() == KernelPath::Avx2
    }

    /// An index without its lists (the caller sets a file's; a derived
    /// grid's are built on first use) and without its ray packets (built
    /// on the first ray that walks the grid).
    fn assemble(surface: Surface, spec: GridSpec, source: GridSource) -> Self {
        GridIndex {
            surface,
            frame: WalkFrame::new(&spec),
            spec,
            lists: OnceLock::new(),
            ray_grid: OnceLock::new(),
            source,
            kernels: Kernels::widest(),
        }
    }

    /// The mesh being queried.
    #[inline(always)]
    pub fn mesh(&self) -> &TriMesh {
        self.surface.mesh()
    }

    /// The mesh with its normals, box and spheres.
    #[inline(always)]
    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    /// The grid.
    pub fn spec(&self) -> &GridSpec {
        &self.spec
    }

    /// Where the grid came from.
    pub fn source(&self) -> GridSource {
        self.source
    }

    /// The cells per axis [`GridIndex::from_mesh`] would choose for this
    /// mesh.
    pub fn suggested_cells_per_axis(&self) -> usize {
        suggested_cells_per_axis(self.mesh())
    }

    /// The cell containing `p` (on a shared face, the higher cell), or
    /// `None` outside the grid — the game's `WorldToSector`.
    pub fn world_to_cell(&self, p: Vec3) -> Option<[usize; 3]> {
        self.spec.cell_of_point(p.as_dvec3())
    }

    /// The triangles cell `c` lists — the game's `GetSectorPolygonData`.
    /// Empty for an empty cell or one outside the grid.
    pub fn cell_triangles(&self, c: [usize; 3]) -> &[u32] {
        if (0..3).any(|k| c[k] >= self.spec.dims[k]) {
            return &[];
        }
        self.list(self.spec.linear(c))
    }

    /// Cell `i`'s list (by linear index).
    #[inline(always)]
    pub fn list(&self, i: usize) -> &[u32] {
        let l = self.lists();
        &l.items[l.starts[i] as usize..l.starts[i + 1] as usize]
    }

    /// Every cell's list (a derived grid's built on the first call).
    #[inline(always)]
    pub(crate) fn lists(&self) -> &CellLists {
        self.lists.get_or_init(|| self.derived_lists())
    }

    /// A derived grid's lists: an exact triangle/box test of every
    /// triangle, each cell grown by 10^-5 of a cell (the margin absorbs
    /// the walk's rounding at cell faces).
    #[cold]
    fn derived_lists(&self) -> CellLists {
        let mesh = self.mesh();
        let all = 0..mesh.triangles.len() as u32;
        let margin = self.spec.cell.x * 1e-5;
        let (starts, items) = build_cell_csr_of(mesh, &self.spec, margin, all);
        CellLists { starts, items }
    }

    /// The ray walk's data, built from the lists on the first call.
    #[inline(always)]
    pub(crate) fn ray_grid(&self) -> &RayGrid {
        self.ray_grid.get_or_init(|| self.build_ray_grid())
    }

    /// The ray walk's data (out of the query's path).
    #[cold]
    #[inline(never)]
    fn build_ray_grid(&self) -> RayGrid {
        let l = self.lists();
        RayGrid::new(self.mesh(), &l.starts, &l.items, &self.frame)
    }

    /// List lengths and coverage of the grid.
    pub fn grid_stats(&self) -> GridStats {
        let cells = self.spec.cell_count();
        let lens = (0..cells).map(|i| self.list(i).len());
        let occupied = lens.clone().filter(|&n| n > 0).count();
        let items = &self.lists().items;
        let triangles = self.surface.triangle_count();
        let mut listed = vec![false; triangles];
        for &t in items {
            listed[t as usize] = true;
        }
        GridStats {
            source: self.source,
            dims: self.spec.dims,
            cells,
            occupied,
            entries: items.len(),
            mean_list: items.len() as f64 / occupied.max(1) as f64,
            max_list: lens.max().unwrap_or(0),
            triangles,
            unlisted: listed.iter().filter(|&&l| !l).count(),
            spheres_replaced: self.surface.spheres_replaced(),
        }
    }

    /// The (cell, triangle) pairs where the triangle touches the cell by an
    /// exact separating-axis test but the cell's list leaves it out: the
    /// places where grid queries can miss geometry (the seed counts 3 such
    /// entries in the game's 18 577). Empty for a derived grid.
    pub fn missing_entries(&self) -> Vec<(usize, u32)> {
        let exact = build_cell_lists(self.mesh(), &self.spec, 0.0);
        let mut missing = Vec::new();
        for (cell, want) in exact.iter().enumerate() {
            let mut have = self.list(cell).to_vec();
            have.sort_unstable();
            missing.extend(
                want.iter()
                    .filter(|t| have.binary_search(t).is_err())
                    .map(|&t| (cell, t)),
            );
        }
        missing
    }
}

/// A stored grid's placement: cell sizes positive and finite, the origin
/// finite, no axis without cells.
fn check_spec(spec: &GridSpec) -> Result<(), ColliderError> {
    if !spec
        .cell
        .to_array()
        .iter()
        .all(|c| c.is_finite() && *c > 0.0)
    {
        return Err(ColliderError::BadCellSize(spec.cell.as_vec3().to_array()));
    }
    if !spec.origin.is_finite() {
        return Err(ColliderError::BadOrigin(spec.origin.as_vec3().to_array()));
    }
    if spec.dims.contains(&0) {
        return Err(ColliderError::EmptyGrid(spec.dims));
    }
    Ok(())
}

/// Cell by cell, each stored list within the entries and its triangles
/// below `nt`.
fn check_lists(starts: &[u32], items: &[u32], nt: usize) -> Result<(), ColliderError> {
    for (cell, w) in starts.windows(2).enumerate() {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let Some(list) = items.get(start..end) else {
            return Err(ColliderError::ListBounds {
                cell,
                start,
                end,
                entries: items.len(),
            });
        };
        if let Some(&bad) = list.iter().find(|&&t| t as usize >= nt) {
            return Err(ColliderError::ListEntry {
                cell,
                triangle: bad,
                count: nt,
            });
        }
    }
    Ok(())
}

/// A derived grid over `mesh`'s bounds.
fn derived(
    mesh: TriMesh,
    bounds: Option<(Vec3, Vec3)>,
    cells_per_axis: usize,
) -> Result<GridIndex, ColliderError> {
    let (lo, hi) = bounds.unwrap_or((Vec3::ZERO, Vec3::ZERO));
    let spec = cubic_grid(lo.as_dvec3(), hi.as_dvec3(), cells_per_axis);
    let dims = spec.dims;
    let total = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if total.is_none_or(|t| t > MAX_DERIVED_CELLS) {
        return Err(ColliderError::GridTooLarge(dims));
    }
    // The lists are built on first use (`GridIndex::lists`).
    let source = GridSource::Derived { cells_per_axis };
    let surface = Surface::new(mesh, Some((lo, hi)), None);
    Ok(GridIndex::assemble(surface, spec, source))
}
