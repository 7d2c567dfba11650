//! What `closest_point` builds on its first call (so a collider costs
//! nothing more to prepare): the triangles the grid lists, searched as
//! packets by the BVH's leaf test when they are few ([`Few`]), and per
//! cell the number of empty rings around it, which the ring search skips.
//!
//! The ring search itself looks only at occupied cells (one bit each) and
//! stops once a lower bound on every farther ring's distance, taken from
//! the faces of the cube of cells already searched, exceeds the best
//! triangle so far. Every cell it visits is one the search through every
//! cell visited, in the same order, so the answers are the same.

use std::collections::VecDeque;

use crate::index::bvh::planes::Slabs;
use crate::index::grid::GridIndex;
use crate::kernels::packet::{Packet, pack};

/// Meshes whose grids list at most this many triangles are searched
/// without the rings ([`Few`]).
pub(crate) const BRUTE_FORCE: usize = 32;

/// The listed triangles of a grid that lists at most [`BRUTE_FORCE`]:
/// packets of eight in index order with their distance slabs, searched
/// by the BVH leaves' test (`index::bvh::near`: f32 bounds, then the
/// exact test in f64 of the least bound first and of any other whose
/// bound reaches the best; the same answer as a test of each).
#[derive(Debug, Clone)]
pub(crate) struct Few {
    pub(crate) packets: Vec<Packet>,
    pub(crate) slabs: Vec<Slabs>,
    /// The mesh's triangle count: the id of the packets' unused lanes.
    pub(crate) count: usize,
}

/// The closest-point search's index.
#[derive(Debug, Clone)]
pub(crate) struct ClosestIndex {
    /// Every triangle some cell lists, ascending.
    pub(crate) listed: Vec<u32>,
    /// Per cell, the Chebyshev distance (in cells) to the nearest occupied
    /// cell: the rings around it that list nothing. `u16::MAX` when no
    /// cell is occupied.
    pub(crate) empty_rings: Vec<u16>,
    /// The listed triangles as packets, when they are few.
    pub(crate) few: Option<Few>,
}

impl ClosestIndex {
    /// The index of grid `c`.
    pub(crate) fn new(c: &GridIndex) -> Self {
        let mut listed = c.lists().items.clone();
        listed.sort_unstable();
        listed.dedup();
        let few = (listed.len() <= BRUTE_FORCE).then(|| {
            let mesh = c.surface.mesh();
            let count = mesh.triangles.len();
            let packets = pack(&listed, count as u32, |t| mesh.corners(t as usize));
            let slabs = packets.iter().map(Slabs::new).collect();
            Few {
                packets,
                slabs,
                count,
            }
        });
        ClosestIndex {
            listed,
            empty_rings: empty_rings(c),
            few,
        }
    }
}

/// A breadth-first search from every occupied cell over the 26
/// neighbours: Chebyshev distances to the nearest occupied cell.
fn empty_rings(c: &GridIndex) -> Vec<u16> {
    let spec = &c.spec;
    let mut dist = vec![u16::MAX; spec.cell_count()];
    let mut queue = VecDeque::new();
    for (i, d) in dist.iter_mut().enumerate() {
        if c.is_occupied(i) {
            *d = 0;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let cell = spec.coords(i);
        let next = dist[i].saturating_add(1);
        for dz in -1i64..=1 {
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let n = [dx, dy, dz];
                    let mut at = [0usize; 3];
                    let ok = (0..3).all(|k| {
                        let v = cell[k] as i64 + n[k];
                        at[k] = v as usize;
                        v >= 0 && (v as usize) < spec.dims[k]
                    });
                    if !ok {
                        continue;
                    }
                    let j = spec.linear(at);
                    if dist[j] == u16::MAX {
                        dist[j] = next;
                        queue.push_back(j);
                    }
                }
            }
        }
    }
    dist
}
