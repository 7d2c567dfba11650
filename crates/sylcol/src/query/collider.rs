//! [`Collider`]: a triangle mesh with a uniform grid over it — the file's
//! own grid for an MCOL map, a derived one for any other mesh.

use std::sync::OnceLock;

use glam::{DVec3, Vec3, Vec4};
use sylcol_format::mcol::Mcol;

use super::bvh::Bvh;
use super::closest_index::ClosestIndex;
use super::grid_walk::WalkFrame;
use super::inside_index::InsideIndex;
use super::ray_grid::RayGrid;
use super::ray_triangle::{Avx2, Packet, pack};
use super::sub_grid::{cells_per_axis_at, cubic_grid};
use crate::build::mcol::triangle_sphere;
use crate::geom::enclosing_radius;
use crate::grid::{GridSpec, build_cell_csr_of, build_cell_lists};
use crate::mesh::TriMesh;

use super::error::ColliderError;

/// Mean list length (over occupied cells) above which a grid counts as
/// too coarse for its mesh ([`GridStats::too_coarse`]).
pub const COARSE_MEAN_LIST: f64 = 16.0;

/// Largest number of cells a derived grid may have.
pub const MAX_DERIVED_CELLS: usize = 1 << 24;

/// A mesh ready for queries: a uniform grid whose cells list the
/// triangles that reach them (one flat CSR array of ids, and the same
/// lists as SIMD packets for the ray kernel), and per-triangle bounding
/// spheres.
///
/// Some parts are built on the first query that needs them (each once,
/// thread-safe): a derived grid's lists (the first grid query), the
/// grid's ray packets (the first ray that walks the grid), the packets or
/// the BVH of a small mesh (its first ray), the inside index (the first
/// `contains_point`) and the closest-point index (the first
/// `closest_point`).
#[derive(Debug, Clone)]
pub struct Collider {
    pub(crate) spec: GridSpec,
    pub(crate) frame: WalkFrame,
    /// The cell lists: a file's as soon as the collider is made, a
    /// derived grid's on first use.
    pub(crate) lists: OnceLock<CellLists>,
    /// The ray walk's packets and occupancy bits, built on the first ray
    /// that walks the grid.
    pub(crate) ray_grid: OnceLock<RayGrid>,
    /// Every triangle in index order (meshes of one or two packets, brute
    /// force), packed on first use.
    all_packets: OnceLock<Vec<Packet>>,
    /// The BVH of a mesh of more than `BVH_MIN_TRIANGLES` and at most
    /// `SMALL_MESH` triangles without [`Collider::with_bvh`]'s, built on
    /// the first ray (its rays skip the grid).
    pub(crate) small_bvh: OnceLock<Bvh>,
    /// Bounding sphere per triangle (centre xyz, radius w) and how many
    /// of a file's were replaced: built on the first query that needs
    /// them (a sphere sweep or nearest point, or `grid_stats`).
    pub(crate) spheres: OnceLock<(Vec<Vec4>, usize)>,
    /// A file's spheres as stored (checked when `spheres` is built).
    file_spheres: Option<Vec<[f32; 4]>>,
    /// Unit normal per triangle, by winding.
    pub(crate) normals: Vec<Vec3>,
    /// The box of the mesh's vertices (the ray kernel's error bounds).
    pub(crate) bounds: (Vec3, Vec3),
    pub(crate) mesh: TriMesh,
    source: GridSource,
    /// Whether the eight-lane AVX ray kernel (and the AVX2 walk) runs on
    /// this CPU.
    pub(crate) avx: Option<Avx2>,
    /// sylcol's own acceleration for rays and segments, when built
    /// ([`Collider::with_bvh`]).
    pub(crate) bvh: Option<Bvh>,
    /// The inside index, built on the first `contains_point`.
    pub(crate) inside_index: OnceLock<InsideIndex>,
    /// The closest-point index, built on the first `closest_point`.
    pub(crate) closest_index: OnceLock<ClosestIndex>,
}

/// Every cell's list in one flat array.
#[derive(Debug, Clone)]
pub(crate) struct CellLists {
    /// `items[starts[c]..starts[c + 1]]` is cell c's list.
    pub(crate) starts: Vec<u32>,
    pub(crate) items: Vec<u32>,
}

/// What a ray walk tests in a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RayCell {
    /// `packets[first..end]`, the cell's list (empty for an empty cell).
    Packets { first: u32, end: u32 },
    /// A crowded cell: the index of its sub-grid.
    SubGrid(u32),
}

/// Where a collider's grid came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridSource {
    /// The MCOL file's own grid and lists, as stored.
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
    /// ([`Collider::with_derived_grid`]) is then faster.
    pub fn too_coarse(&self) -> bool {
        self.mean_list > COARSE_MEAN_LIST
    }
}

impl Collider {
    /// A collider over an MCOL map through the file's own grid, lists and
    /// bounding spheres. The lists are copied into one flat array (and
    /// checked: a bad list is this call's error); nothing is rebuilt. The
    /// ray packets are made on the first ray that walks the grid. A sphere
    /// that does not enclose its triangle is recomputed (and counted in
    /// [`GridStats::spheres_replaced`]) when the spheres are first needed.
    pub fn from_mcol(m: &Mcol) -> Result<Self, ColliderError> {
        let spec = file_grid(m)?;
        let mesh = TriMesh::from_mcol(m);
        check_mesh(&mesh)?;
        let nt = mesh.triangles.len();
        if m.spheres.len() != nt {
            return Err(ColliderError::SphereCount {
                expected: nt,
                found: m.spheres.len(),
            });
        }
        let (starts, items) = file_lists(m, nt)?;
        let bounds = mesh.bounds().unwrap_or((Vec3::ZERO, Vec3::ZERO));
        let mut c = assemble(spec, mesh, bounds, GridSource::File);
        c.lists = OnceLock::from(CellLists { starts, items });
        c.file_spheres = Some(m.spheres.clone());
        Ok(c)
    }

    /// A collider over any mesh (a CollisionSet part, an imported model)
    /// with a derived grid sized for it ([`Collider::suggested_cells_per_axis`]),
    /// whose lists are built on the first grid query (so
    /// `from_mesh(..).with_bvh()` builds no grid for its rays).
    pub fn from_mesh(mesh: &TriMesh) -> Result<Self, ColliderError> {
        check_mesh(mesh)?;
        // The mesh's box, found once for the grid and the ray kernel.
        let bounds = mesh.bounds();
        let n = cells_for(bounds, mesh.triangles.len());
        derived(mesh.clone(), bounds, n)
    }

    /// The same mesh over a derived uniform grid with `cells_per_axis`
    /// cubic cells along its longest side (at least 1), the lists built
    /// (on the first grid query) by an exact triangle/box test with a
    /// small margin.
    pub fn with_derived_grid(&self, cells_per_axis: usize) -> Result<Self, ColliderError> {
        derived(self.mesh.clone(), self.mesh.bounds(), cells_per_axis.max(1))
    }

    /// The same collider answering rays and segments through the portable
    /// kernels only: the walk and the ray/triangle test that every CPU
    /// without AVX2 takes (an ARM one, an old x86). The answers are the
    /// same bit for bit (both kernels perform the same IEEE operations;
    /// the tests hold them to it), only slower; for comparing machines
    /// and for tests. Other queries have no AVX2 path.
    pub fn with_portable_kernels(mut self) -> Self {
        self.avx = None;
        self
    }

    /// Whether rays and segments run through the AVX2 kernels (this CPU
    /// has AVX2, and not [`Collider::with_portable_kernels`]).
    pub fn uses_avx2(&self) -> bool {
        self.avx.is_some()
    }

    /// The cells per axis [`Collider::from_mesh`] would choose for this mesh.
    pub fn suggested_cells_per_axis(&self) -> usize {
        suggested_cells_per_axis(&self.mesh)
    }

    /// The mesh being queried.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The grid being walked.
    pub fn grid(&self) -> &GridSpec {
        &self.spec
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

    /// Cell `i`'s list.
    #[inline(always)]
    pub(crate) fn list(&self, i: usize) -> &[u32] {
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
        let all = 0..self.mesh.triangles.len() as u32;
        let margin = self.spec.cell.x * 1e-5;
        let (starts, items) = build_cell_csr_of(&self.mesh, &self.spec, margin, all);
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
        RayGrid::new(&self.mesh, &l.starts, &l.items, self.spec.dims)
    }

    /// Cell `i`'s list as ray-kernel packets (none for a crowded cell:
    /// its sub-grid holds them).
    #[cfg(test)]
    pub(crate) fn cell_packets(&self, i: usize) -> &[Packet] {
        let g = self.ray_grid();
        match g.ray_cells[i] {
            RayCell::Packets { first, end } => &g.packets[first as usize..end as usize],
            RayCell::SubGrid(_) => &[],
        }
    }

    /// Every triangle as packets, in index order (each triangle once).
    pub(crate) fn all_packets(&self) -> &[Packet] {
        self.all_packets.get_or_init(|| {
            let all: Vec<u32> = (0..self.mesh.triangles.len() as u32).collect();
            let pad = all.len() as u32;
            pack(&all, pad, |t| self.mesh.corners(t as usize))
        })
    }

    /// A small mesh's own BVH (see `small_bvh`), built on first use.
    pub(crate) fn small_bvh(&self) -> &Bvh {
        self.small_bvh.get_or_init(|| Bvh::build(&self.mesh))
    }

    /// Number of triangles.
    #[inline]
    pub(crate) fn triangle_count(&self) -> usize {
        self.mesh.triangles.len()
    }

    /// Triangle `t`'s bounding sphere: centre xyz, radius w.
    #[inline(always)]
    pub(crate) fn sphere(&self, t: usize) -> Vec4 {
        self.spheres().0[t]
    }

    /// Every triangle's bounding sphere, and how many of the file's were
    /// replaced (built on the first call).
    fn spheres(&self) -> &(Vec<Vec4>, usize) {
        self.spheres.get_or_init(|| self.build_spheres())
    }

    /// A file's spheres, each checked (one that does not enclose its
    /// triangle is recomputed and counted), or computed ones.
    #[cold]
    #[inline(never)]
    fn build_spheres(&self) -> (Vec<Vec4>, usize) {
        let mut replaced = 0;
        let corners = |t| self.mesh.corners(t);
        let all = match &self.file_spheres {
            Some(file) => (0..file.len())
                .map(|t| checked_sphere(&corners(t), file[t], &mut replaced))
                .map(Vec4::from_array)
                .collect(),
            None => (0..self.triangle_count())
                .map(|t| Vec4::from_array(triangle_sphere(&corners(t))))
                .collect(),
        };
        (all, replaced)
    }

    /// List lengths and coverage of the grid.
    pub fn grid_stats(&self) -> GridStats {
        let cells = self.spec.cell_count();
        let lens = (0..cells).map(|i| self.list(i).len());
        let occupied = lens.clone().filter(|&n| n > 0).count();
        let items = &self.lists().items;
        let mut listed = vec![false; self.triangle_count()];
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
            triangles: self.triangle_count(),
            unlisted: listed.iter().filter(|&&l| !l).count(),
            spheres_replaced: self.spheres().1,
        }
    }
}

impl Collider {
    /// The (cell, triangle) pairs where the triangle touches the cell by an
    /// exact separating-axis test but the cell's list leaves it out: the
    /// places where grid queries can miss geometry (the seed counts 3 such
    /// entries in the game's 18 577). Empty for a derived grid.
    pub fn missing_entries(&self) -> Vec<(usize, u32)> {
        let exact = build_cell_lists(&self.mesh, &self.spec, 0.0);
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

/// The grid an MCOL header describes, checked against its cell array.
fn file_grid(m: &Mcol) -> Result<GridSpec, ColliderError> {
    let h = &m.header;
    if !h.prefix.cell_size.iter().all(|c| c.is_finite() && *c > 0.0) {
        return Err(ColliderError::BadCellSize(h.prefix.cell_size));
    }
    if !h.prefix.bbox_min.iter().all(|c| c.is_finite()) {
        return Err(ColliderError::BadOrigin(h.prefix.bbox_min));
    }
    let spec = GridSpec::from_header(h);
    if spec.dims.contains(&0) {
        return Err(ColliderError::EmptyGrid(spec.dims));
    }
    if m.cells.len() != spec.cell_count() {
        return Err(ColliderError::CellCount {
            dims: spec.dims,
            expected: spec.cell_count(),
            found: m.cells.len(),
        });
    }
    Ok(spec)
}

/// The file's lists in one flat array, each checked: its records in
/// range, its triangle ids below `nt`.
fn file_lists(m: &Mcol, nt: usize) -> Result<(Vec<u32>, Vec<u32>), ColliderError> {
    let mut starts = Vec::with_capacity(m.cells.len() + 1);
    let mut items: Vec<u32> = Vec::with_capacity(m.list_entries());
    starts.push(0);
    for (cell, c) in m.cells.iter().enumerate() {
        if let Some(first) = c.record() {
            let end = first.saturating_add(c.count as usize);
            let Some(records) = m.records.get(first..end) else {
                let count = m.records.len();
                return Err(ColliderError::RecordLink {
                    cell,
                    first,
                    end,
                    count,
                });
            };
            for r in records {
                let mut largest = 0;
                for &t in &r.triangles {
                    largest = largest.max(t);
                    items.push(u32::from(t));
                }
                if largest as usize >= nt {
                    let bad = r.triangles.iter().find(|&&t| t as usize >= nt);
                    return Err(ColliderError::ListEntry {
                        cell,
                        triangle: u32::from(*bad.unwrap_or(&largest)),
                        count: nt,
                    });
                }
            }
        }
        starts.push(items.len() as u32);
    }
    Ok((starts, items))
}

/// Indices in range and coordinates finite.
fn check_mesh(mesh: &TriMesh) -> Result<(), ColliderError> {
    if let Some(i) = mesh.vertices.iter().position(|v| !v.is_finite()) {
        return Err(ColliderError::NonFiniteVertex(i));
    }
    let count = mesh.vertices.len();
    for (triangle, t) in mesh.triangles.iter().enumerate() {
        if let Some(&vertex) = t.iter().find(|&&i| i as usize >= count) {
            return Err(ColliderError::VertexIndex {
                triangle,
                vertex,
                count,
            });
        }
    }
    Ok(())
}

/// The file's sphere when it encloses the triangle, else a computed one.
fn checked_sphere(c: &[Vec3; 3], s: [f32; 4], replaced: &mut usize) -> [f32; 4] {
    let centre = DVec3::new(s[0].into(), s[1].into(), s[2].into());
    let ok = s.iter().all(|v| v.is_finite()) && enclosing_radius(c, centre) <= f64::from(s[3]);
    if ok {
        s
    } else {
        *replaced += 1;
        triangle_sphere(c)
    }
}

/// Cells a triangle of a derived grid: one cell per two triangles over
/// the mesh's box. Measured on the sample maps and the spheres
/// (docs/queries-log.md, "A coarser derived grid"): rays 1-6 % faster than
/// with the two cells a triangle used before on six of the eight maps
/// that walk a grid and 2-12 % on the 4 k-65 k spheres, within the noise
/// on the rest (db066592 1-2 % slower); sphere sweeps, `inside` and
/// `closest` as fast or faster; the crowded cells a coarse grid makes
/// get sub-grids (of two cells a triangle) as before.
pub const DERIVED_CELLS_PER_TRIANGLE: f64 = 0.5;

/// About [`DERIVED_CELLS_PER_TRIANGLE`] cells per triangle over the
/// mesh's bounding box.
fn suggested_cells_per_axis(mesh: &TriMesh) -> usize {
    cells_for(mesh.bounds(), mesh.triangles.len())
}

/// [`suggested_cells_per_axis`] for `count` triangles in `bounds`.
fn cells_for(bounds: Option<(Vec3, Vec3)>, count: usize) -> usize {
    match bounds {
        Some((lo, hi)) => {
            cells_per_axis_at((hi - lo).as_dvec3(), count, DERIVED_CELLS_PER_TRIANGLE)
        }
        None => 1,
    }
}

/// A derived grid over `mesh`'s bounds.
fn derived(
    mesh: TriMesh,
    bounds: Option<(Vec3, Vec3)>,
    cells_per_axis: usize,
) -> Result<Collider, ColliderError> {
    let (lo, hi) = bounds.unwrap_or((Vec3::ZERO, Vec3::ZERO));
    let spec = cubic_grid(lo.as_dvec3(), hi.as_dvec3(), cells_per_axis);
    let dims = spec.dims;
    let total = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if total.is_none_or(|t| t > MAX_DERIVED_CELLS) {
        return Err(ColliderError::GridTooLarge(dims));
    }
    // The lists are built on first use (`Collider::lists`).
    let source = GridSource::Derived { cells_per_axis };
    Ok(assemble(spec, mesh, (lo, hi), source))
}

/// A collider without its lists (the caller sets a file's; a derived
/// grid's are built on first use) and without its ray packets (built on
/// the first ray that walks the grid).
fn assemble(spec: GridSpec, mesh: TriMesh, bounds: (Vec3, Vec3), source: GridSource) -> Collider {
    let normals = (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
            // Adding +0 turns a -0 component into +0 (printed as "0").
            (b - a).cross(c - a).normalize_or_zero().as_vec3() + Vec3::ZERO
        })
        .collect();
    Collider {
        frame: WalkFrame::new(&spec),
        spec,
        lists: OnceLock::new(),
        ray_grid: OnceLock::new(),
        all_packets: OnceLock::new(),
        small_bvh: OnceLock::new(),
        spheres: OnceLock::new(),
        file_spheres: None,
        normals,
        bounds,
        mesh,
        source,
        avx: Avx2::detect(),
        bvh: None,
        inside_index: OnceLock::new(),
        closest_index: OnceLock::new(),
    }
}
