//! What a ray walk through the grid reads: each cell's list as SIMD
//! packets (or, for a crowded cell, its sub-grid) and one occupancy bit a
//! cell. Built from the cell lists on the first ray that walks the grid
//! (a collider for a small mesh, or one with a BVH, may never need it).
//!
//! Packing starts from one [`LaneTable`]: every triangle's packet lane
//! (corners and size bound) computed once, however many cells list it, and
//! copied into packets that are filled in place.

use super::sub_grid::{CROWDED, SubGrid};
use crate::geometry::mesh::TriMesh;
use crate::kernels::dda::{Occupancy, WalkFrame};
use crate::kernels::packet::{LANES, LaneTable, Packet};

/// What a ray walk tests in a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RayCell {
    /// `packets[first..end]`, the cell's list (empty for an empty cell).
    Packets { first: u32, end: u32 },
    /// A crowded cell: the index of its sub-grid.
    SubGrid(u32),
}

/// The grid's ray-walk data.
#[derive(Debug, Clone)]
pub(crate) struct RayGrid {
    /// Bit c: cell c's list is not empty (the walk's first look).
    pub(crate) occupied: Vec<u64>,
    /// Occupancy bytes for the AVX walk, on a grid with empty cells to
    /// skip (more than [`WALK_OCCUPIED_BELOW`] of its cells empty).
    pub(crate) occupancy: Option<Occupancy>,
    /// Per cell, what a ray tests there: a run of `packets` (cell c's
    /// list) or, for a crowded cell, its sub-grid in `sub_grids`.
    pub(crate) ray_cells: Vec<RayCell>,
    pub(crate) packets: Vec<Packet>,
    pub(crate) sub_grids: Vec<SubGrid>,
}

impl RayGrid {
    /// The walk data of the lists `items[starts[c]..starts[c + 1]]` over
    /// `mesh`. A triangle a list names twice is packed once. `frame` is
    /// the grid's.
    pub(crate) fn new(mesh: &TriMesh, starts: &[u32], items: &[u32], frame: &WalkFrame) -> Self {
        let table = LaneTable::new(mesh);
        let packet_count = starts
            .windows(2)
            .map(|w| ((w[1] - w[0]) as usize).div_ceil(LANES))
            .sum();
        let mut packets = Vec::with_capacity(packet_count);
        let mut ray_cells = Vec::with_capacity(starts.len() - 1);
        let mut sub_grids = Vec::new();
        // One scratch list for every cell (no allocation per cell).
        let mut list = Vec::new();
        for w in starts.windows(2) {
            let cell = &items[w[0] as usize..w[1] as usize];
            let cell = if cell.is_sorted_by(|a, b| a < b) {
                cell
            } else {
                list.clear();
                list.extend_from_slice(cell);
                list.sort_unstable();
                list.dedup();
                &list[..]
            };
            ray_cells.push(if cell.len() > CROWDED {
                sub_grids.push(SubGrid::new(mesh, &table, cell));
                RayCell::SubGrid(sub_grids.len() as u32 - 1)
            } else {
                let first = packets.len() as u32;
                table.pack_into(&mut packets, cell);
                RayCell::Packets {
                    first,
                    end: packets.len() as u32,
                }
            });
        }
        RayGrid {
            occupied: occupancy_bits(starts),
            occupancy: occupancy_worth_it(starts, frame),
            ray_cells,
            packets,
            sub_grids,
        }
    }
}

/// The AVX walk visits only occupied cells (`kernels::dda_avx::walk_occupied`)
/// on grids of which at most this fraction is occupied; on the others
/// (the 5 x 5 x 5 file grids of the larger maps, 99-100 % occupied) the
/// branch on occupancy is predicted anyway and the plain walk is faster.
pub(crate) const WALK_OCCUPIED_BELOW: f64 = 0.9;

/// The occupancy of the lists `starts[c]..starts[c + 1]` of the grid of
/// `frame` when at most [`WALK_OCCUPIED_BELOW`] of its cells are occupied.
fn occupancy_worth_it(starts: &[u32], frame: &WalkFrame) -> Option<Occupancy> {
    let cells = starts.len() - 1;
    let occupied = starts.windows(2).filter(|w| w[0] != w[1]).count();
    (occupied as f64 <= WALK_OCCUPIED_BELOW * cells as f64).then(|| Occupancy::new(starts, frame))
}

/// One bit per cell, set when its list (`starts[c]..starts[c + 1]`) is
/// not empty.
pub(crate) fn occupancy_bits(starts: &[u32]) -> Vec<u64> {
    let cells = starts.len() - 1;
    let mut bits = vec![0u64; cells.div_ceil(64)];
    for (c, w) in starts.windows(2).enumerate() {
        bits[c / 64] |= u64::from(w[0] != w[1]) << (c % 64);
    }
    bits
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::fixtures::{cuboid, map_collider, uv_sphere};
    use crate::geometry::grid::build_cell_lists;
    use crate::index::prep::Cast;
    use crate::index::rays::Route;
    use crate::kernels::packet::pack;
    use crate::{Collider, Ray};

    /// A collider can be shared between threads (its lazily built parts
    /// are `OnceLock`s).
    #[test]
    fn collider_is_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<Collider>();
    }

    /// Rays through `c` in a fan from `o`: (t bits, triangle) each.
    fn fan(c: &Collider, o: Vec3) -> Vec<Option<(u32, u32)>> {
        (0..64)
            .map(|k| {
                let a = k as f32 * 0.37;
                let d = Vec3::new(a.cos(), a.sin(), 0.3 - k as f32 * 0.01);
                let hit = c.cast_ray(&Ray::new(o, d), f32::INFINITY).unwrap();
                hit.map(|h| (h.time_of_impact.to_bits(), h.triangle))
            })
            .collect()
    }

    /// A small mesh's rays scan its packets (a cuboid's 12 triangles): the
    /// grid's ray packets are not built until a grid walk asks, and then
    /// answer as the scan.
    #[test]
    fn small_mesh_rays_build_no_grid() {
        let mesh = cuboid(Vec3::splat(-3.0), Vec3::new(2.0, 4.0, 5.0));
        let c = map_collider(&mesh, Vec3::splat(-8.0), Vec3::splat(2.0), [8, 8, 8]);
        let scanned = fan(&c, Vec3::new(0.1, 0.2, 0.3));
        assert!(scanned.iter().all(|h| h.is_some()));
        assert!(c.grid.ray_grid.get().is_none());
        let ray = Ray::new(Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.0, 0.4, 0.2));
        let walked = c
            .grid
            .cast_with(&ray, f32::INFINITY, Cast::Ray, Route::Grid)
            .unwrap();
        assert!(c.grid.ray_grid.get().is_some());
        let hit = c.cast_ray(&ray, f32::INFINITY).unwrap().unwrap();
        assert_eq!(
            (walked.time_of_impact, walked.triangle),
            (hit.time_of_impact, hit.triangle)
        );
    }

    /// A derived grid's lists are built on first use, as the exact lists;
    /// a BVH collider's rays build neither them nor the ray packets, and
    /// every lazily built collider answers as one whose parts exist.
    #[test]
    fn derived_lists_and_packets_on_first_use() {
        let mesh = uv_sphere(Vec3::new(0.5, -0.25, 0.0), 4.0, 20, 11);
        let c = Collider::from_mesh(&mesh).unwrap();
        assert!(c.grid.lists.get().is_none() && !c.grid.surface.spheres_built());
        let bvh = c.clone().with_bvh();
        let o = Vec3::new(0.2, 0.1, -0.3);
        let through_bvh = fan(&bvh, o);
        assert!(bvh.grid.lists.get().is_none() && bvh.grid.ray_grid.get().is_none());
        // Many threads ask first at once: one build, the same answers.
        let answers: Vec<_> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4).map(|_| s.spawn(|| fan(&c, o))).collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(answers.iter().all(|a| a == &answers[0]));
        let hits = answers[0].iter().flatten().count();
        assert_eq!(hits, through_bvh.iter().flatten().count());
        assert_eq!(hits, answers[0].len());
        let spec = c.grid.spec;
        let exact = build_cell_lists(&mesh, &spec, spec.cell.x * 1e-5);
        for (i, want) in exact.iter().enumerate() {
            assert_eq!(c.grid.list(i), &want[..], "cell {i}");
        }
        assert!(c.grid.ray_grid.get().is_some());
        assert_eq!(c.grid_stats().spheres_replaced, 0);
        assert!(c.grid.surface.spheres_built());
    }

    /// A sparse grid's walk visits only occupied cells (AVX: reading the
    /// next cells' occupancy bytes ahead; portable: checking each), and
    /// answers as the walk that tests every cell's occupancy and as brute
    /// force; a grid with (nearly) every cell occupied keeps the plain walk.
    #[test]
    fn occupied_walk_answers_as_the_plain_walk() {
        let mesh = uv_sphere(Vec3::new(0.5, -0.25, 0.0), 4.0, 20, 11);
        let c = Collider::from_mesh(&mesh).unwrap();
        let portable = c.clone().with_portable_kernels();
        let mut plain = c.clone();
        let _ = plain.grid.ray_grid();
        let mut g = plain.grid.ray_grid.take().unwrap();
        assert!(g.occupancy.take().is_some());
        plain.grid.ray_grid = std::sync::OnceLock::from(g);
        for o in [Vec3::new(0.2, 0.1, -0.3), Vec3::new(-9.0, 3.0, 2.5)] {
            let want = fan(&plain, o);
            assert_eq!(fan(&c, o), want);
            assert_eq!(fan(&portable, o), want);
            for (k, hit) in want.iter().enumerate() {
                let a = k as f32 * 0.37;
                let d = Vec3::new(a.cos(), a.sin(), 0.3 - k as f32 * 0.01);
                let brute = c
                    .cast_ray_brute_force(&Ray::new(o, d), f32::INFINITY)
                    .unwrap();
                assert_eq!(
                    *hit,
                    brute.map(|h| (h.time_of_impact.to_bits(), h.triangle))
                );
            }
        }
        // 8 of 8 cells occupied: the plain walk; 4 of 8: the occupied walk.
        let frame = WalkFrame::new(&crate::geometry::grid::GridSpec {
            origin: glam::DVec3::ZERO,
            cell: glam::DVec3::ONE,
            dims: [2, 2, 2],
        });
        let full = [0u32, 1, 2, 3, 4, 5, 6, 7, 8];
        assert!(occupancy_worth_it(&full, &frame).is_none());
        let half = [0u32, 1, 1, 2, 2, 3, 3, 4, 4];
        let occ = occupancy_worth_it(&half, &frame).unwrap();
        assert_eq!(
            occ.padded().0,
            [0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0]
        );
    }

    /// The table's packets are bit for bit those of `pack`.
    #[test]
    fn table_packets_are_packed_packets() {
        let mesh = uv_sphere(Vec3::new(1.0, -2.0, 0.5), 3.3, 12, 7);
        let table = LaneTable::new(&mesh);
        let n = mesh.triangles.len() as u32;
        let ids: Vec<u32> = (0..n).rev().step_by(3).chain([5, 0, 17]).collect();
        let mut got = Vec::new();
        table.pack_into(&mut got, &ids);
        let want = pack(&ids, n, |t| mesh.corners(t as usize));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.ids, w.ids);
            assert_eq!(g.size.map(f32::to_bits), w.size.map(f32::to_bits));
            let bits = |p: &Packet| -> Vec<u32> {
                p.v.as_flattened()
                    .as_flattened()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect()
            };
            assert_eq!(bits(g), bits(w));
        }
    }
}
