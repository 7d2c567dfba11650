//! [`Collider`]: a triangle mesh ready for every query, composed of the
//! indexes of `index` — its uniform grid (a map file's own, or derived),
//! optionally sylcol's BVH, and what the first queries of a kind build:
//! the packets or BVH of a small mesh, the inside index, the closest index.

pub(crate) mod batch;
mod queries;
pub(crate) mod script;

use std::sync::OnceLock;

use glam::Vec3;

use crate::error::{ColliderError, QueryError};
use crate::geometry::grid::GridSpec;
use crate::geometry::mesh::TriMesh;
use crate::index::bvh::shape::BVH_MIN_TRIANGLES;
use crate::index::bvh::tree::Bvh;
use crate::index::closest::index::ClosestIndex;
use crate::index::grid::{GridIndex, GridStats, StoredGrid};
use crate::index::inside::InsideIndex;
use crate::index::rays::Route;
use crate::kernels::dispatch::KernelPath;
use crate::kernels::packet::{Packet, pack};
use crate::query::Ray;

/// Meshes with at most this many triangles are cast against without the
/// grid: one or two packets (at most `BVH_MIN_TRIANGLES`) are tested
/// directly, more through a BVH of their own, built on the first ray.
pub const SMALL_MESH: usize = 64;

/// A mesh ready for queries: its uniform grid ([`GridIndex`]: the cells'
/// lists as one flat array, the same lists as SIMD packets for the ray
/// kernel, per-triangle bounding spheres), optionally sylcol's BVH for
/// rays ([`Collider::with_bvh`]), and the indexes the first query of a
/// kind builds. It answers every query ([`RayCast`](crate::RayCast),
/// [`PointQuery`](crate::PointQuery), [`SphereCast`](crate::SphereCast);
/// the same methods are inherent, so no trait need be imported).
///
/// Some parts are built on the first query that needs them (each once,
/// thread-safe): a derived grid's lists (the first grid query), the
/// grid's ray packets (the first ray that walks the grid), the packets or
/// the BVH of a small mesh (its first ray), the inside index (the first
/// `contains_point`) and the closest-point index (the first
/// `closest_point`).
#[derive(Debug, Clone)]
pub struct Collider {
    /// The mesh through its grid: every grid query, and the surface every
    /// route reads (normals, box, spheres).
    pub(crate) grid: GridIndex,
    /// sylcol's own acceleration for rays, segments, nearest points and
    /// sphere sweeps, when built ([`Collider::with_bvh`]).
    pub(crate) bvh: Option<Bvh>,
    /// The BVH of a mesh of more than `BVH_MIN_TRIANGLES` and at most
    /// [`SMALL_MESH`] triangles without [`Collider::with_bvh`]'s, built on
    /// the first ray (its rays skip the grid).
    pub(crate) small_bvh: OnceLock<Bvh>,
    /// Every triangle in index order (meshes of one or two packets, brute
    /// force), packed on first use.
    all_packets: OnceLock<Vec<Packet>>,
    /// The inside index, built on the first `contains_point`.
    pub(crate) inside_index: OnceLock<InsideIndex>,
    /// The closest-point index, built on the first `closest_point`.
    pub(crate) closest_index: OnceLock<ClosestIndex>,
}

impl Collider {
    /// A collider over a map through its stored grid, lists and bounding
    /// spheres ([`GridIndex::from_stored`]: the lists copied and checked,
    /// a bad one this call's error; nothing rebuilt). The ray packets are
    /// made on the first ray that walks the grid. A sphere that does not
    /// enclose its triangle is recomputed (and counted in
    /// [`GridStats::spheres_replaced`]) when the spheres are first needed.
    pub fn from_stored_grid(mesh: TriMesh, grid: StoredGrid) -> Result<Self, ColliderError> {
        GridIndex::from_stored(mesh, grid).map(Collider::over)
    }

    /// A collider over any mesh (a CollisionSet part, an imported model)
    /// with a derived grid sized for it ([`Collider::suggested_cells_per_axis`]),
    /// whose lists are built on the first grid query (so
    /// `from_mesh(..).with_bvh()` builds no grid for its rays).
    pub fn from_mesh(mesh: &TriMesh) -> Result<Self, ColliderError> {
        GridIndex::from_mesh(mesh).map(Collider::over)
    }

    /// The same mesh over a derived uniform grid with `cells_per_axis`
    /// cubic cells along its longest side (at least 1), the lists built
    /// (on the first grid query) by an exact triangle/box test with a
    /// small margin.
    pub fn with_derived_grid(&self, cells_per_axis: usize) -> Result<Self, ColliderError> {
        self.grid
            .with_derived_grid(cells_per_axis)
            .map(Collider::over)
    }

    /// A collider over `grid`, its other indexes still to be built.
    fn over(grid: GridIndex) -> Self {
        Collider {
            grid,
            bvh: None,
            small_bvh: OnceLock::new(),
            all_packets: OnceLock::new(),
            inside_index: OnceLock::new(),
            closest_index: OnceLock::new(),
        }
    }

    /// The same collider with sylcol's own acceleration for rays and
    /// segments: an eight-wide BVH built from the mesh ([`Bvh`]). A mesh
    /// of at most `BVH_MIN_TRIANGLES` (16) triangles gets none: its rays test
    /// its two packets, which is all a tree's root would do after a box
    /// test. Above that the tree wins even where the grid path scans every
    /// packet ([`SMALL_MESH`]): on the 60-triangle map 2cf7eb47, 84 ns a ray
    /// against the scan's 91 (`git show 1eb508f:docs/queries-log.md`,
    /// "A BVH from 17 triangles"). `closest_point` and `sweep_sphere`
    /// walk the tree too (over every triangle, with the grid path's
    /// per-triangle kernels and tie rule: the same answers wherever the
    /// grid lists every triangle); the other queries still use the grid.
    /// The answers have the same exactness as the grid's (the
    /// same kernels, the same first-hit rule; "Exactness" in
    /// `docs/queries.md`).
    pub fn with_bvh(mut self) -> Self {
        if self.triangle_count() > BVH_MIN_TRIANGLES {
            // A small mesh's first ray may have built the same tree already.
            let built = self.small_bvh.take();
            self.bvh = Some(built.unwrap_or_else(|| Bvh::build(self.grid.mesh())));
        }
        self
    }

    /// The BVH, when [`with_bvh`](Collider::with_bvh) built one (never for
    /// a mesh of at most `BVH_MIN_TRIANGLES` (16) triangles).
    pub fn bvh(&self) -> Option<&Bvh> {
        self.bvh.as_ref()
    }

    /// The same collider answering rays and segments through the portable
    /// kernels only: the walk and the ray/triangle test that every CPU
    /// without AVX2 takes (an ARM one, an old x86). The answers are the
    /// same bit for bit (both kernels perform the same IEEE operations;
    /// the tests hold them to it), only slower; for comparing machines
    /// and for tests. `closest_point` takes the same kernels (its BVH
    /// walk's bounds and a small mesh's packets); other queries have no
    /// AVX2 path.
    pub fn with_portable_kernels(mut self) -> Self {
        self.grid = self.grid.with_portable_kernels();
        self
    }

    /// Whether rays and segments run through the AVX2 kernels (this CPU
    /// has AVX2, and not [`Collider::with_portable_kernels`]).
    pub fn uses_avx2(&self) -> bool {
        self.grid.uses_avx2()
    }

    /// The same collider answering rays and segments through the kernels
    /// of `path` ([`KernelPath::available`] lists those this CPU runs),
    /// `None` where this CPU does not run them. Every path answers bit for
    /// bit alike; by default a collider takes the AVX2 kernels where the
    /// CPU has them, else the portable ones.
    ///
    /// ```
    /// use glam::Vec3;
    /// use sylcol_query::{Collider, KernelPath, TriMesh};
    ///
    /// let v = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    /// let t = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    /// let c = Collider::from_mesh(&TriMesh::new(v, t)).unwrap();
    /// for path in KernelPath::available() {
    ///     let on = c.clone().with_kernel_path(path).unwrap();
    ///     assert_eq!(on.kernel_path(), path);
    /// }
    /// ```
    pub fn with_kernel_path(mut self, path: KernelPath) -> Option<Self> {
        self.grid = self.grid.with_kernel_path(path)?;
        Some(self)
    }

    /// The kernels rays and segments run through.
    pub fn kernel_path(&self) -> KernelPath {
        self.grid.kernel_path()
    }

    /// The cells per axis [`Collider::from_mesh`] would choose for this mesh.
    pub fn suggested_cells_per_axis(&self) -> usize {
        self.grid.suggested_cells_per_axis()
    }

    /// The mesh being queried.
    pub fn mesh(&self) -> &TriMesh {
        self.grid.mesh()
    }

    /// The grid being walked.
    pub fn grid(&self) -> &GridSpec {
        self.grid.spec()
    }

    /// The mesh through its grid: the index that answers every query on
    /// its own, without this collider's other routes (the grid walk for
    /// every ray however small the mesh, the parity count through the
    /// grid's lists, the ring search through every cell).
    pub fn grid_index(&self) -> &GridIndex {
        &self.grid
    }

    /// The cell containing `p` (on a shared face, the higher cell), or
    /// `None` outside the grid — the game's `WorldToSector`.
    pub fn world_to_cell(&self, p: Vec3) -> Option<[usize; 3]> {
        self.grid.world_to_cell(p)
    }

    /// The triangles cell `c` lists — the game's `GetSectorPolygonData`.
    /// Empty for an empty cell or one outside the grid.
    pub fn cell_triangles(&self, c: [usize; 3]) -> &[u32] {
        self.grid.cell_triangles(c)
    }

    /// List lengths and coverage of the grid.
    pub fn grid_stats(&self) -> GridStats {
        self.grid.grid_stats()
    }

    /// The (cell, triangle) pairs where the triangle touches the cell by an
    /// exact separating-axis test but the cell's list leaves it out: the
    /// places where grid queries can miss geometry (the seed counts 3 such
    /// entries in the game's 18 577). Empty for a derived grid.
    pub fn missing_entries(&self) -> Vec<(usize, u32)> {
        self.grid.missing_entries()
    }

    /// The cells (x, y, z) the walk of `ray` visits for 0 <= t <= `max`
    /// ([`GridIndex::ray_cells`]).
    pub fn ray_cells(&self, ray: &Ray, max: f32) -> Result<Vec<[usize; 3]>, QueryError> {
        self.grid.ray_cells(ray, max)
    }

    /// Number of triangles.
    #[inline]
    pub(crate) fn triangle_count(&self) -> usize {
        self.grid.surface().triangle_count()
    }

    /// How this collider's rays reach the triangles: through the BVH of
    /// [`Collider::with_bvh`] when it has one; else, for a mesh of at
    /// most [`SMALL_MESH`] triangles, by testing its one or two packets
    /// or through a BVH of its own (built on the first ray: on the
    /// 60-triangle map 2cf7eb47 it beats the scan of eight packets, 84
    /// against 91 ns a ray, as the scan beats the grid walk there); else
    /// through the grid.
    #[inline(always)]
    pub(crate) fn route(&self) -> Route<'_> {
        let n = self.triangle_count();
        match &self.bvh {
            Some(bvh) => Route::Tree(bvh),
            None if n <= BVH_MIN_TRIANGLES => Route::Scan(self.all_packets()),
            None if n <= SMALL_MESH => Route::Tree(self.small_bvh()),
            None => Route::Grid,
        }
    }

    /// Every triangle as packets, in index order (each triangle once).
    pub(crate) fn all_packets(&self) -> &Vec<Packet> {
        self.all_packets.get_or_init(|| {
            let mesh = self.grid.mesh();
            let all: Vec<u32> = (0..mesh.triangles.len() as u32).collect();
            let pad = all.len() as u32;
            pack(&all, pad, |t| mesh.corners(t as usize))
        })
    }

    /// A small mesh's own BVH (see `small_bvh`), built on first use.
    pub(crate) fn small_bvh(&self) -> &Bvh {
        self.small_bvh.get_or_init(|| Bvh::build(self.grid.mesh()))
    }
}
