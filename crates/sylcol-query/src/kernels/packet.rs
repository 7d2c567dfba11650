//! The ray kernels' unit of work: eight triangles side by side in
//! structure-of-arrays form ([`Packet`]), and how triangles are packed.
//!
//! A grid's cell lists and a BVH's leaves are both runs of packets; the
//! kernels test a ray against a whole packet at once.

use glam::Vec3;

use crate::geometry::mesh::TriMesh;
use crate::geometry::primitives::f32_at_least;

/// "No triangle" (no hit yet).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// Triangles per packet.
pub const LANES: usize = 8;

/// Eight triangles in structure-of-arrays form (352 bytes, 32-byte
/// aligned so each row is one AVX register).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct Packet {
    /// Corner, axis, lane. An unused lane's corners are NaN: every
    /// comparison on it is false, so it can never hit.
    pub(crate) v: [[[f32; LANES]; 3]; 3],
    /// Per lane, 2 (1 + 2^-20) times the largest coordinate difference
    /// between two corners: a bound on the spread of its corners' 2-D
    /// coordinates in any ray's frame (NaN for an unused lane).
    pub(crate) size: [f32; LANES],
    /// Triangle ids; an unused lane holds the mesh's triangle count (a
    /// spare mailbox slot).
    pub ids: [u32; LANES],
}

impl Packet {
    /// A packet of up to [`LANES`] triangles given as (id, corners);
    /// unused lanes get the id `pad`.
    pub fn new(tris: &[(u32, [Vec3; 3])], pad: u32) -> Self {
        let mut p = Packet {
            v: [[[f32::NAN; LANES]; 3]; 3],
            size: [f32::NAN; LANES],
            ids: [pad; LANES],
        };
        for (lane, (id, c)) in tris.iter().take(LANES).enumerate() {
            for (corner, v) in c.iter().enumerate() {
                for k in 0..3 {
                    p.v[corner][k][lane] = v[k];
                }
            }
            p.size[lane] = lane_size(c);
            p.ids[lane] = *id;
        }
        p
    }

    /// Corner `c` of lane `lane`.
    pub fn corner(&self, c: usize, lane: usize) -> Vec3 {
        Vec3::new(self.v[c][0][lane], self.v[c][1][lane], self.v[c][2][lane])
    }

    /// The three corners of lane `lane`.
    pub fn corners(&self, lane: usize) -> [Vec3; 3] {
        [0, 1, 2].map(|c| self.corner(c, lane))
    }
}

/// A packet lane's size bound for the triangle `c`: 2 (1 + 2^-20) times
/// the largest coordinate difference between two corners, rounded up.
pub fn lane_size(c: &[Vec3; 3]) -> f32 {
    let spread = |i: usize, j: usize| (c[i].as_dvec3() - c[j].as_dvec3()).abs().max_element();
    let m = spread(0, 1).max(spread(1, 2)).max(spread(2, 0));
    f32_at_least(2.0 * m * (1.0 + 1.0 / 1_048_576.0))
}

/// Packs triangle ids into packets, [`LANES`] at a time; unused lanes get
/// the id `pad`.
pub fn pack(ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) -> Vec<Packet> {
    let mut out = Vec::with_capacity(ids.len().div_ceil(LANES));
    pack_into(&mut out, ids, pad, corners);
    out
}

/// [`pack`] appending to `out` (no allocation but `out`'s growth).
pub fn pack_into(out: &mut Vec<Packet>, ids: &[u32], pad: u32, corners: impl Fn(u32) -> [Vec3; 3]) {
    for chunk in ids.chunks(LANES) {
        let mut tris = [(0, [Vec3::ZERO; 3]); LANES];
        for (slot, &t) in tris.iter_mut().zip(chunk) {
            *slot = (t, corners(t));
        }
        out.push(Packet::new(&tris[..chunk.len()], pad));
    }
}

/// Every triangle's packet lane, computed once.
#[derive(Debug, Clone)]
pub struct LaneTable {
    /// Corner, axis per triangle.
    corners: Vec<[[f32; 3]; 3]>,
    /// The lane's size bound per triangle ([`lane_size`]).
    sizes: Vec<f32>,
}

impl LaneTable {
    /// The lanes of every triangle of `mesh`.
    pub fn new(mesh: &TriMesh) -> Self {
        let (corners, sizes) = (0..mesh.triangles.len())
            .map(|t| {
                let c = mesh.corners(t);
                (c.map(|v| v.to_array()), lane_size(&c))
            })
            .unzip();
        LaneTable { corners, sizes }
    }

    /// The packets of `ids` (each below the triangle count), appended to
    /// `out`: the same packets as [`pack_into`] with
    /// the triangle count as the padding id.
    pub fn pack_into(&self, out: &mut Vec<Packet>, ids: &[u32]) {
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
                for (rows, v) in p.v.iter_mut().zip(c) {
                    for (row, &x) in rows.iter_mut().zip(v) {
                        row[lane] = x;
                    }
                }
                p.size[lane] = self.sizes[t as usize];
                p.ids[lane] = t;
            }
        }
    }
}
