//! What `closest_point` builds on its first call (so a collider costs
//! nothing more to prepare): the triangles the grid lists, searched by
//! brute force when they are few, and per cell the number of empty rings
//! around it, which the ring search skips.
//!
//! The ring search itself looks only at occupied cells (one bit each) and
//! stops once a lower bound on every farther ring's distance, taken from
//! the faces of the cube of cells already searched, exceeds the best
//! triangle so far. Every cell it visits is one the search through every
//! cell visited, in the same order, so the answers are the same.

use std::collections::VecDeque;

use crate::index::grid::GridIndex;

/// Meshes whose grids list at most this many triangles are searched by
/// brute force.
pub(crate) const BRUTE_FORCE: usize = 32;

/// The closest-point search's index.
#[derive(Debug, Clone)]
pub(crate) struct ClosestIndex {
    /// Every triangle some cell lists, ascending.
    pub(crate) listed: Vec<u32>,
    /// Per cell, the Chebyshev distance (in cells) to the nearest occupied
    /// cell: the rings around it that list nothing. `u16::MAX` when no
    /// cell is occupied.
    pub(crate) empty_rings: Vec<u16>,
}

impl ClosestIndex {
    /// The index of grid `c`.
    pub(crate) fn new(c: &GridIndex) -> Self {
        let mut listed = c.lists().items.clone();
        listed.sort_unstable();
        listed.dedup();
        ClosestIndex {
            listed,
            empty_rings: empty_rings(c),
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
