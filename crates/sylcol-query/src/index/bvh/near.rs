//! The nearest surface point through the [`Bvh`]: a descent nearest child
//! first, which skips every child whose box lies farther than the best
//! triangle so far.
//!
//! **Bounds.** A child's squared distance from p is computed for the
//! eight children at once in f32 ([`box_bounds`]: per axis the gap
//! outside the box, squared and summed) and scaled down by 2^-20: each
//! subtraction, square and sum is off by at most half a unit in the last
//! place (six of them, 2^-21.4 in all), so the bound is at most the exact
//! squared distance to the box, and so to every triangle inside it
//! (boxes are the exact min / max of the f32 corners). A bound that
//! underflows only gets smaller. A child is skipped when its bound
//! exceeds the best squared distance so far rounded up to f32
//! ([`limit`]); a child at exactly the best distance is visited, so ties
//! are seen. Inside a leaf each triangle is bounded by the larger of its
//! own box's bound (the same way) and its slabs' (`planes`: its plane
//! and edges, from f32 directions with a stated error allowance), and
//! the triangle of least bound is tested first, so that the best
//! distance is usually found by the first exact test and the others'
//! bounds exceed it.
//!
//! **Answers.** Each triangle that passes is tested by the grid path's
//! per-triangle kernel (`closest_on_triangle` in f64 from its f32
//! corners), and the nearest kept, a tie going to the lower triangle
//! index: the grid's rule. Every triangle at the best distance is
//! visited, so the answer (distance, triangle, point) is the grid
//! path's, over every triangle of the mesh (the grid's only over those
//! its cells list). A point far from the mesh is the caller's to answer
//! exactly (`index::closest::far`).

use glam::{DVec3, Vec3, Vec4};

use super::planes::{Slabs, error};
use super::tree::Bvh;
use super::walk::STACK;
use crate::geometry::closest::closest_on_triangle;
use crate::geometry::primitives::f32_at_least;
use crate::kernels::node::{COUNT_SHIFT, INDEX_MASK, LEAF, NO_CHILD, Node, WIDTH};
use crate::kernels::packet::{LANES, Packet};
use crate::kernels::slab::{ENTERED, LANE_BITS, keys};
use crate::kernels::stack::NodeStack;

/// The children waiting, the nearest on top (room for a node's eight
/// sorted keys beyond [`STACK`]).
pub(super) type Stack = NodeStack<{ STACK + WIDTH }>;

/// The factor that takes a computed f32 squared distance to a bound at
/// most the exact one: 1 - 2^-20.
const SHRINK: f32 = 1.0 - 1.0 / 1_048_576.0;

impl Bvh {
    /// Updates `best` (squared distance, triangle, point) with the
    /// nearest of this tree's triangles to `p` (triangles numbered below
    /// `count`, the mesh's triangle count: unused packet lanes hold it).
    pub(crate) fn nearest(&self, p: Vec3, count: usize, best: &mut (f64, u32, DVec3)) {
        if self.nodes.is_empty() {
            return;
        }
        let pd = p.as_dvec3();
        let slabs = self
            .slabs
            .get_or_init(|| self.packets.iter().map(Slabs::new).collect());
        let err = error(p);
        let mut stack = Stack::new();
        let mut link = 0u32;
        // The best distance rounded up to f32, updated after each leaf.
        let mut lim = f32::INFINITY;
        loop {
            if link & LEAF != 0 {
                let first = (link & INDEX_MASK) as usize;
                let n = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
                for (packet, slab) in self.packets[first..first + n].iter().zip(&slabs[first..]) {
                    nearest_in_packet(packet, slab, (p, err), pd, count, best);
                }
                lim = limit(best.0);
            } else {
                let node = &self.nodes[link as usize];
                let bounds = box_bounds(node, p);
                let mut mask = within(&bounds, lim);
                // An unused slot's bound is infinite: within a finite
                // limit it never is.
                if lim == f32::INFINITY {
                    mask &= used(node);
                }
                if mask != 0 {
                    link = next_child(node, &bounds, mask, &mut stack);
                    continue;
                }
            }
            match stack.pop_within(lim.to_bits()) {
                Some(l) => link = l,
                None => return,
            }
        }
    }
}

/// The nearest of `mask`'s children (at least one) by their bounds `t`;
/// the others pushed on `stack`, farthest first. The keys (`keys`: t's
/// bits, then the slot) are sorted by a network of compare-exchanges
/// ([`sort_descending`]) rather than a sort with a branch a comparison:
/// on map dd89a110 the library sort's branches mispredicted 17 times a
/// query (callgrind's branch simulation), a third of the query's.
#[inline(always)]
pub(super) fn next_child(node: &Node, t: &[f32; WIDTH], mask: u32, stack: &mut Stack) -> u32 {
    let first = mask.trailing_zeros() as usize & (WIDTH - 1);
    let rest = mask & (mask - 1);
    if rest == 0 {
        return node.child[first];
    }
    if rest & (rest - 1) == 0 {
        let second = rest.trailing_zeros() as usize & (WIDTH - 1);
        let (a, b) = (key_of(t, first), key_of(t, second));
        let (near, far) = (a.min(b), a.max(b));
        stack.push(far, node.child[(far & LANE_BITS) as usize]);
        return node.child[(near & LANE_BITS) as usize];
    }
    let sorted = sort_descending(keys(t, mask));
    let entered = mask.count_ones() as usize;
    for &key in &sorted[..entered - 1] {
        stack.push(key, node.child[(key & LANE_BITS) as usize]);
    }
    node.child[(sorted[(entered - 1) & (WIDTH - 1)] & LANE_BITS) as usize]
}

/// Slot `slot`'s sort key (as `keys` makes it for a child entered).
#[inline(always)]
fn key_of(t: &[f32; WIDTH], slot: usize) -> u32 {
    ENTERED | (t[slot].to_bits() & !LANE_BITS) | slot as u32
}

/// The 19 compare-exchanges of an optimal sorting network for eight.
const NETWORK: [(usize, usize); 19] = [
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (2, 4),
    (3, 5),
    (1, 4),
    (3, 6),
    (1, 2),
    (3, 4),
    (5, 6),
];

/// `k` sorted from the largest down, without branches.
#[inline(always)]
pub(super) fn sort_descending(mut k: [u32; WIDTH]) -> [u32; WIDTH] {
    for (i, j) in NETWORK {
        let (a, b) = (k[i], k[j]);
        k[i] = a.max(b);
        k[j] = a.min(b);
    }
    k
}

/// The slots of `node` that hold a child.
#[inline(always)]
pub(super) fn used(node: &Node) -> u32 {
    (0..WIDTH).fold(0, |m, s| m | u32::from(node.child[s] != NO_CHILD) << s)
}

/// The lanes whose bound is at most `limit`.
#[inline(always)]
fn within(bounds: &[f32; WIDTH], limit: f32) -> u32 {
    let half = |at: usize| Vec4::from_slice(&bounds[at..at + 4]).cmple(Vec4::splat(limit));
    half(0).bitmask() | half(4).bitmask() << 4
}

/// The best squared distance `d2` rounded up to f32 (infinite from half
/// of f32's range, where a bound's sum may overflow).
#[inline(always)]
fn limit(d2: f64) -> f32 {
    if d2 >= f64::from(f32::MAX) * 0.5 {
        f32::INFINITY
    } else {
        f32_at_least(d2)
    }
}

/// Lower bounds on the squared distances from `p` to node `n`'s eight
/// child boxes (module notes); an unused slot's is infinite.
#[inline(always)]
fn box_bounds(n: &Node, p: Vec3) -> [f32; WIDTH] {
    let mut out = [0.0; WIDTH];
    for at in [0, 4] {
        let row = |i: usize| Vec4::from_slice(&n.bounds[i][at..at + 4]);
        let d2 = gap2(row(0), row(3), p.x) + gap2(row(1), row(4), p.y) + gap2(row(2), row(5), p.z);
        (d2 * SHRINK).write_to_slice(&mut out[at..at + 4]);
    }
    out
}

/// The squared gap of `x` outside [lo, hi] per lane.
#[inline(always)]
fn gap2(lo: Vec4, hi: Vec4, x: f32) -> Vec4 {
    let x = Vec4::splat(x);
    let g = (lo - x).max(x - hi).max(Vec4::ZERO);
    g * g
}

/// Updates `best` with the triangles of `packet` whose bounds (the
/// larger of their box's and their slabs', `planes`) come within its
/// distance: the lane of least bound first, then the others in lane
/// order. `err` is p's rounding allowance (`planes::error`).
#[inline(always)]
fn nearest_in_packet(
    packet: &Packet,
    slab: &Slabs,
    (p, err): (Vec3, f32),
    pd: DVec3,
    count: usize,
    best: &mut (f64, u32, DVec3),
) {
    let boxes = triangle_bounds(packet, p);
    let [s0, s1] = slab.bounds(p, err);
    let b0 = Vec4::from_slice(&boxes[..4]).max(s0);
    let b1 = Vec4::from_slice(&boxes[4..]).max(s1);
    let lim = Vec4::splat(limit(best.0));
    let mut lanes = b0.cmple(lim).bitmask() | b1.cmple(lim).bitmask() << 4;
    if lanes == 0 {
        return;
    }
    let least = Vec4::splat(b0.min(b1).min_element());
    let at_least = b0.cmple(least).bitmask() | b1.cmple(least).bitmask() << 4;
    let mut bounds = [0.0; LANES];
    b0.write_to_slice(&mut bounds[..4]);
    b1.write_to_slice(&mut bounds[4..]);
    // The least bound is within the limit when any is (a NaN p aside).
    let pick = if lanes & at_least != 0 {
        lanes & at_least
    } else {
        lanes
    };
    let mut lane = pick.trailing_zeros() as usize;
    loop {
        lane &= LANES - 1;
        lanes &= !(1 << lane);
        let t = packet.ids[lane];
        if (t as usize) < count && bounds[lane] <= limit(best.0) {
            let [a, b, c] = packet.corners(lane).map(|v| v.as_dvec3());
            let q = closest_on_triangle(pd, a, b, c);
            let d2 = q.distance_squared(pd);
            if d2 < best.0 || (d2 == best.0 && t < best.1) {
                *best = (d2, t, q);
            }
        }
        if lanes == 0 {
            return;
        }
        lane = lanes.trailing_zeros() as usize;
    }
}

/// Lower bounds on the squared distances from `p` to the boxes of the
/// packet's triangles (NaN for an unused lane).
#[inline(always)]
fn triangle_bounds(packet: &Packet, p: Vec3) -> [f32; LANES] {
    let mut out = [0.0; LANES];
    for at in [0, 4] {
        let axis = |k: usize, x: f32| {
            let v = |c: usize| Vec4::from_slice(&packet.v[c][k][at..at + 4]);
            gap2(v(0).min(v(1)).min(v(2)), v(0).max(v(1)).max(v(2)), x)
        };
        let d2 = axis(0, p.x) + axis(1, p.y) + axis(2, p.z);
        (d2 * SHRINK).write_to_slice(&mut out[at..at + 4]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input of zeros and ones comes out sorted, so every input
    /// does (the 0-1 principle).
    #[test]
    fn the_network_sorts() {
        for bits in 0u32..256 {
            let k = std::array::from_fn(|i| bits >> i & 1);
            let s = sort_descending(k);
            assert!(s.windows(2).all(|w| w[0] >= w[1]), "{k:?} -> {s:?}");
            assert_eq!(s.iter().sum::<u32>(), bits.count_ones());
        }
    }
}
