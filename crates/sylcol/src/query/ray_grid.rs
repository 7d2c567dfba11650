//! What a ray walk through the grid reads: each cell's list as SIMD
//! packets (or, for a crowded cell, its sub-grid) and one occupancy bit a
//! cell. Built from the cell lists on the first ray that walks the grid
//! (a collider for a small mesh, or one with a BVH, may never need it).
//!
//! Packing starts from one [`LaneTable`]: every triangle's packet lane
//! (corners and size bound) computed once, however many cells list it, and
//! copied into packets that are filled in place.

use super::collider::RayCell;
use super::ray_triangle::{LANES, Packet, lane_size};
use super::sub_grid::{CROWDED, SubGrid};
use crate::mesh::TriMesh;

/// The grid's ray-walk data.
#[derive(Debug, Clone)]
pub(crate) struct RayGrid {
    /// Bit c: cell c's list is not empty (the walk's first look).
    pub(crate) occupied: Vec<u64>,
    /// Per cell, what a ray tests there: a run of `packets` (cell c's
    /// list) or, for a crowded cell, its sub-grid in `sub_grids`.
    pub(crate) ray_cells: Vec<RayCell>,
    pub(crate) packets: Vec<Packet>,
    pub(crate) sub_grids: Vec<SubGrid>,
}

impl RayGrid {
    /// The walk data of the lists `items[starts[c]..starts[c + 1]]` over
    /// `mesh`. A triangle a list names twice is packed once.
    pub(crate) fn new(mesh: &TriMesh, starts: &[u32], items: &[u32]) -> Self {
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
            ray_cells,
            packets,
            sub_grids,
        }
    }
}

/// Every triangle's packet lane, computed once.
#[derive(Debug, Clone)]
pub(crate) struct LaneTable {
    /// Corner, axis per triangle.
    corners: Vec<[[f32; 3]; 3]>,
    /// The lane's size bound per triangle ([`lane_size`]).
    sizes: Vec<f32>,
}

impl LaneTable {
    /// The lanes of every triangle of `mesh`.
    pub(crate) fn new(mesh: &TriMesh) -> Self {
        let (corners, sizes) = (0..mesh.triangles.len())
            .map(|t| {
                let c = mesh.corners(t);
                (c.map(|v| v.to_array()), lane_size(&c))
            })
            .unzip();
        LaneTable { corners, sizes }
    }

    /// The packets of `ids` (each below the triangle count), appended to
    /// `out`: the same packets as [`super::ray_triangle::pack_into`] with
    /// the triangle count as the padding id.
    pub(crate) fn pack_into(&self, out: &mut Vec<Packet>, ids: &[u32]) {
        let pad = self.sizes.len() as u32;
        for chunk in ids.chunks(LANES) {
            out.push(Packet {
                v: [[[f32::NAN; LANES]; 3]; 3],
                size: [f32::NAN; LANES],
                ids: [pad; LANES],
            });
            let p = out.last_mut().expect("just pushed");
            for (lane, &t) in chunk.iter().enumerate() {
                let c = &self.corners[t as usize];
                for (corner, v) in c.iter().enumerate() {
                    for k in 0..3 {
                        p.v[corner][k][lane] = v[k];
                    }
                }
                p.size[lane] = self.sizes[t as usize];
                p.ids[lane] = t;
            }
        }
    }
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
    use crate::query::fixtures::uv_sphere;
    use crate::query::ray_triangle::pack;

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
