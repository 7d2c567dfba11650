//! The nearest surface point through the [`Bvh`]: a dive to the likeliest
//! leaf, then the other children nearest first ([`Bvh::nearest_with`]),
//! skipping every child whose box lies farther than the best triangle so
//! far.
//!
//! **Bounds.** A node's eight children are bounded at once in f32 by the
//! kernel's node step (`kernels::point`: per axis the gap outside the
//! box, squared, summed and scaled down to at most the exact squared
//! distance), on AVX2 in one register. A child is skipped when its bound
//! exceeds the best squared distance so far rounded up to f32
//! ([`limit`]); a child at exactly the best distance is visited, so ties
//! are seen. The children within are visited nearest first, the others
//! pushed with their bounds and dropped when popped beyond the best.
//! Inside a leaf each triangle is bounded by the larger of its own box's
//! bound (the same way) and its slabs' (`planes`: its plane and edges,
//! from f32 directions with a stated error allowance), eight lanes at a
//! time, and the triangle of least bound is tested first, so that the
//! best distance is usually found by the first exact test and the
//! others' bounds exceed it.
//!
//! **Answers.** Each triangle that passes is tested by the grid path's
//! per-triangle kernel (`closest_on_triangle` in f64 from its f32
//! corners), and the nearest kept, a tie going to the lower triangle
//! index: the grid's rule. Every triangle at the best distance is
//! visited, so the answer (distance, triangle, point) is the grid
//! path's, over every triangle of the mesh (the grid's only over those
//! its cells list). A point far from the mesh is the caller's to answer
//! exactly (`index::closest::far`).

use glam::{DVec3, Vec3};

use super::planes::{Slabs, error};
use super::tree::Bvh;
use super::walk::STACK;
use crate::geometry::closest::closest_on_triangle;
use crate::kernels::dispatch::{Kernels, Task};
use crate::kernels::lanes::Lanes;
use crate::kernels::node::{COUNT_SHIFT, INDEX_MASK, LEAF, NO_CHILD, Node, WIDTH};
use crate::kernels::packet::{LANES, Packet};
pub(super) use crate::kernels::point::sort_descending;
use crate::kernels::point::{PointKernel, SHRINK};
use crate::kernels::slab::{ENTERED, LANE_BITS, key_t, keys};
use crate::kernels::stack::NodeStack;

/// The children waiting, the nearest on top (room for a node's eight
/// sorted keys beyond [`STACK`]).
pub(super) type Stack = NodeStack<{ STACK + WIDTH }>;

/// The nearest (squared distance, triangle, point) so far.
pub(crate) type Best = (f64, u32, DVec3);

impl Bvh {
    /// The nearest of this tree's triangles to `p` (squared distance,
    /// triangle, point; triangle `u32::MAX` for an empty tree), through
    /// `kernels` (the same answer with every kernel). `count` is the
    /// mesh's triangle count: unused packet lanes hold it.
    pub(crate) fn nearest(&self, kernels: Kernels, p: Vec3, count: usize) -> Best {
        if self.nodes.is_empty() {
            return (f64::INFINITY, u32::MAX, DVec3::ZERO);
        }
        let slabs = self
            .slabs
            .get_or_init(|| self.packets.iter().map(Slabs::new).collect());
        kernels.run(Nearest {
            bvh: self,
            slabs,
            p,
            count,
        })
    }

    /// The walk of [`Bvh::nearest`] with kernel `k` (the tree has
    /// nodes). First a dive from the root to a leaf, child by child
    /// (`PointKernel::dive_slot`: among the boxes that hold p the one
    /// whose farthest-face estimate is least, else the nearest box; on
    /// db066592 and e16460cf 5-14 % faster than the least bound with ties
    /// to the lowest slot), that pushes nothing but keeps the slots it
    /// took; then,
    /// from the deepest node of the dive up, each node's other children
    /// within the best distance, walked in order. A sibling is bounded
    /// against the best so far once the dive's leaf has set it, so the
    /// children beyond it are never pushed (on the maps, where the dive's
    /// leaf nearly always holds the answer, most of a node's children).
    #[inline(always)]
    fn nearest_with<K: PointKernel>(&self, k: K, slabs: &[Slabs], p: Vec3, count: usize) -> Best {
        let mut w = Walk {
            at: Near::new(p),
            slabs,
            count,
            best: (f64::INFINITY, u32::MAX, DVec3::ZERO),
            lim: f32::INFINITY,
            stack: Stack::new(),
        };
        // The dive: the node and the slot taken per level.
        let (mut nodes, mut slots) = ([0u32; DIVE], [0u32; DIVE]);
        let mut depth = 0;
        let mut link = 0u32;
        while link & LEAF == 0 && depth < DIVE {
            let node = &self.nodes[link as usize];
            let Some(slot) = k.dive_slot(node, p) else {
                break;
            };
            (nodes[depth], slots[depth]) = (link, slot as u32);
            depth += 1;
            link = node.child[slot];
        }
        // A node with no child ends the dive there: nothing below it. A
        // dive deeper than `DIVE` levels goes on as the ordered walk.
        let mut next = (link & LEAF != 0 || depth == DIVE).then_some(link);
        loop {
            if let Some(link) = next {
                self.descend(k, link, &mut w);
            }
            if depth == 0 {
                return w.best;
            }
            depth -= 1;
            let (at, slot) = (nodes[depth], slots[depth]);
            let node = &self.nodes[at as usize];
            let (keys, mask) = k.point_node(node, p, w.lim, slot as usize);
            next = (mask != 0).then(|| k.push_order(keys, &node.child, mask, &mut w.stack));
        }
    }

    /// The ordered walk from `link` until the stack is empty.
    #[inline(always)]
    fn descend<K: PointKernel>(&self, k: K, mut link: u32, w: &mut Walk<'_>) {
        loop {
            if link & LEAF != 0 {
                let first = (link & INDEX_MASK) as usize;
                let n = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
                for i in first..first + n {
                    let (packet, slab) = (&self.packets[i], &w.slabs[i]);
                    nearest_in_packet(k, packet, slab, &w.at, w.count, &mut w.best, &mut w.lim);
                }
            } else {
                let node = &self.nodes[link as usize];
                let (keys, mask) = k.point_node(node, w.at.p, w.lim, WIDTH);
                if mask != 0 {
                    link = k.push_order(keys, &node.child, mask, &mut w.stack);
                    continue;
                }
            }
            match w.stack.pop_within(w.lim.to_bits()) {
                Some(l) => link = l,
                None => return,
            }
        }
    }
}

/// The levels a dive records (more than the maps' and the spheres'
/// trees have; a deeper tree's walk goes on from there in order).
const DIVE: usize = 16;

/// A walk's state: the point, the slabs, the best so far and its bound,
/// the children waiting.
struct Walk<'a> {
    at: Near,
    slabs: &'a [Slabs],
    count: usize,
    best: Best,
    /// The best distance rounded up to f32 ([`limit`]), updated with it.
    lim: f32,
    stack: Stack,
}

/// [`Bvh::nearest`] waiting for its kernel.
struct Nearest<'a> {
    bvh: &'a Bvh,
    slabs: &'a [Slabs],
    p: Vec3,
    count: usize,
}

impl<K: PointKernel> Task<K> for Nearest<'_> {
    type Out = Best;
    #[inline(always)]
    fn run(self, k: K) -> Best {
        self.bvh.nearest_with(k, self.slabs, self.p, self.count)
    }
}

/// The nearest of the triangles of `packets` (with their `slabs`) to `p`,
/// through `kernels`, as a leaf of the walk tests them (`count`: the
/// padding id of unused lanes and above).
pub(crate) fn nearest_of_packets(
    kernels: Kernels,
    packets: &[Packet],
    slabs: &[Slabs],
    p: Vec3,
    count: usize,
) -> Best {
    kernels.run(OfPackets {
        packets,
        slabs,
        p,
        count,
    })
}

/// [`nearest_of_packets`] waiting for its kernel.
struct OfPackets<'a> {
    packets: &'a [Packet],
    slabs: &'a [Slabs],
    p: Vec3,
    count: usize,
}

impl<K: PointKernel> Task<K> for OfPackets<'_> {
    type Out = Best;
    #[inline(always)]
    fn run(self, k: K) -> Best {
        let mut best = (f64::INFINITY, u32::MAX, DVec3::ZERO);
        let mut lim = f32::INFINITY;
        let at = Near::new(self.p);
        for (packet, slab) in self.packets.iter().zip(self.slabs) {
            nearest_in_packet(k, packet, slab, &at, self.count, &mut best, &mut lim);
        }
        best
    }
}

/// The query point as the leaves read it: in f32, its rounding allowance
/// for the slabs (`planes::error`), and in f64.
struct Near {
    p: Vec3,
    err: f32,
    pd: DVec3,
}

impl Near {
    #[inline(always)]
    fn new(p: Vec3) -> Self {
        Near {
            p,
            err: error(p),
            pd: p.as_dvec3(),
        }
    }
}

/// The nearest of `mask`'s children (at least one) by their bounds `t`;
/// the others pushed on `stack`, farthest first (the sphere sweep's
/// order; the nearest-point walk's is `PointKernel::push_order`).
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

/// The slots of `node` that hold a child.
#[inline(always)]
pub(super) fn used(node: &Node) -> u32 {
    (0..WIDTH).fold(0, |m, s| m | u32::from(node.child[s] != NO_CHILD) << s)
}

/// The best squared distance `d2` (>= 0) rounded up to f32, infinite
/// from half of f32's range, where a bound's sum may overflow (as
/// `f32_at_least` there: the next f32 up taken by adding the comparison
/// to the bits, a positive finite f32's successor). Both choices are
/// selects, not branches: each went either way at random (mispredicted
/// about once a query on dc44fe0c).
#[inline(always)]
fn limit(d2: f64) -> f32 {
    let f = d2 as f32;
    let up = f.to_bits() + u32::from(f64::from(f) < d2);
    let big = d2 >= f64::from(f32::MAX) * 0.5;
    f32::from_bits(if big { f32::INFINITY.to_bits() } else { up })
}

/// Updates `best` and `lim` (its [`limit`], kept with it so that no
/// packet or leaf recomputes it) with the triangles of `packet` whose
/// bounds (the larger of their box's and their slabs', `planes`) come
/// within its distance, in the order of their bounds: the first whose
/// bound exceeds the best (so far) ends the packet.
#[inline(always)]
fn nearest_in_packet<K: PointKernel>(
    k: K,
    packet: &Packet,
    slab: &Slabs,
    at: &Near,
    count: usize,
    best: &mut Best,
    lim: &mut f32,
) {
    let token = k.token();
    let mut bounds = [0.0; LANES];
    for &start in K::STARTS {
        let b = triangle_bounds::<K::V>(token, packet, at.p, start)
            .max(slab.bounds::<K::V>(token, at.p, at.err, start));
        b.store(&mut bounds, start);
    }
    let (sorted, within) = k.lane_order(&bounds, *lim);
    // Ascending: the nearest bound is the last of those within.
    for &key in sorted[..within].iter().rev() {
        // The key's bound (its bits, the lowest three cleared) is at most
        // the lane's.
        if key_t(key) > lim.to_bits() {
            return;
        }
        let lane = (key & LANE_BITS) as usize;
        let t = packet.ids[lane];
        if (t as usize) < count {
            let corner = |i: usize| {
                let v = &packet.v[i];
                DVec3::new(v[0][lane].into(), v[1][lane].into(), v[2][lane].into())
            };
            let q = closest_on_triangle(at.pd, corner(0), corner(1), corner(2));
            let d2 = q.distance_squared(at.pd);
            if d2 < best.0 || (d2 == best.0 && t < best.1) {
                *best = (d2, t, q);
                *lim = limit(d2);
            }
        }
    }
}

/// Lower bounds on the squared distances from `p` to the boxes of the
/// packet's triangles of lanes `at..` (NaN for an unused lane).
#[inline(always)]
fn triangle_bounds<V: Lanes>(token: V::Token, packet: &Packet, p: Vec3, at: usize) -> V {
    let zero = V::splat(token, 0.0);
    let axis = |k: usize, x: f32| {
        let v = |c: usize| V::load(token, &packet.v[c][k], at);
        let (lo, hi) = (v(0).min(v(1)).min(v(2)), v(0).max(v(1)).max(v(2)));
        let x = V::splat(token, x);
        let g = lo.sub(x).max(x.sub(hi)).max(zero);
        g.mul(g)
    };
    let d2 = axis(0, p.x).add(axis(1, p.y)).add(axis(2, p.z));
    d2.mul(V::splat(token, SHRINK))
}
