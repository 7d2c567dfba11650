//! Rays through the [`Bvh`]: an ordered, stack-based traversal whose box
//! test never loses a box the ray touches.
//!
//! The box test is `kernels::slab`'s. Boxes are the exact min / max of
//! the f32 corners, so a triangle's exact
//! crossing lies in every box above it; a box is skipped only when its
//! exact entry lies beyond the best hit's t, where no nearer crossing can
//! be (the first-hit rule of `docs/queries.md`, "Exactness"). Leaves are
//! tested by the watertight kernels, every lane at once; each triangle is
//! in one leaf, so there is no mailbox.
//!
//! **Order.** Children hit are visited nearest entry first: the rest go
//! on a stack with their sort keys (`kernels::slab::keys`: entry t and
//! slot in one u32) and are skipped when popped beyond the best hit. Three
//! or more are sorted by a bitonic network on AVX2 (`kernels::slab_avx`),
//! by a scalar sort otherwise; the keys are the same, so is the order.

use super::shape::MEDIAN_DEPTH;
use super::tree::Bvh;
#[cfg(test)]
use crate::kernels::dispatch::{Kernels, Task};
use crate::kernels::node::{COUNT_SHIFT, INDEX_MASK, LEAF, Node, WIDTH};
use crate::kernels::packet::NO_TRIANGLE;
#[cfg(test)]
use crate::kernels::ray_triangle::RayFrame;
use crate::kernels::ray_triangle::{LaneRay, MakeFrame};
use crate::kernels::slab::{BoxKernel, BoxRay, EPS, LANE_BITS, TINY};
use crate::kernels::stack::{NodeStack, prefetch};

/// Stack entries: up to `WIDTH - 1` a level, over at most
/// `MEDIAN_DEPTH + 34` levels (the build's median splits bound the
/// depth; `Bvh::validate` checks it).
pub const STACK: usize = (WIDTH - 1) * (MEDIAN_DEPTH + 34);

/// The children waiting, the nearest on top. Room for [`WIDTH`] more than
/// [`STACK`]: a node's sorted keys are written eight at a time.
type Stack = NodeStack<{ STACK + WIDTH }>;

/// Where a walk stands: the node or leaf its next step visits and the
/// best hit's t grown by [`EPS`] (the far end of every slab test, updated
/// only after a leaf).
#[derive(Debug, Clone, Copy)]
struct Position {
    link: u32,
    reach: f32,
}

impl Position {
    /// At the root, keeping hits with t <= `max`.
    #[inline(always)]
    fn root(max: f32) -> Self {
        Position {
            link: 0,
            reach: max * (1.0 + EPS),
        }
    }
}

/// One ray's walk held between steps ([`Bvh::step`]), for `stream`,
/// which steps two rays in turn so that one's waits on memory overlap the
/// other's work.
pub(super) struct Walker<'a, K: BoxKernel> {
    k: K,
    f: LaneRay<'a, K::V>,
    r: BoxRay,
    /// The nearest (t, triangle) so far.
    pub(super) best: (f32, u32),
    at: Position,
    stack: Stack,
}

impl<'a, K: BoxKernel> Walker<'a, K> {
    /// A walk of the ray `f` (`r` for the boxes) from the root, keeping
    /// hits with t <= `max`. The hierarchy must have a root.
    #[inline(always)]
    pub(super) fn new(k: K, f: LaneRay<'a, K::V>, r: BoxRay, max: f32) -> Self {
        Walker {
            k,
            f,
            r,
            best: (max, NO_TRIANGLE),
            at: Position::root(max),
            stack: Stack::new(),
        }
    }

    /// Starts the walk of another ray in this one's place (its stack is
    /// reused, not copied).
    #[inline(always)]
    pub(super) fn restart(&mut self, f: LaneRay<'a, K::V>, r: BoxRay, max: f32) {
        self.f = f;
        self.r = r;
        self.best = (max, NO_TRIANGLE);
        self.at = Position::root(max);
        self.stack.clear();
    }

    /// One step through `bvh` (the hierarchy the walk started on); true
    /// when the walk is over and `best` is its answer.
    #[inline(always)]
    pub(super) fn step(&mut self, bvh: &Bvh) -> bool {
        let (k, f, r) = (self.k, &self.f, &self.r);
        let (best, at, stack) = (&mut self.best, &mut self.at, &mut self.stack);
        // The slab comparison is chosen at each step here (two rays take
        // turns, each with its own flag), not once a ray as in `walk`.
        if r.finite {
            bvh.step::<K, true>(k, f, r, best, at, stack)
        } else {
            bvh.step::<K, false>(k, f, r, best, at, stack)
        }
    }
}

impl Bvh {
    /// The nearest (t, triangle) with 0 < t <= `max` of the ray of `f`
    /// (`r`, the same ray for the box test), with `kernels`. The tests'
    /// entry: a cast inlines [`Bvh::walk`] into its own kernel-compiled
    /// function.
    #[cfg(test)]
    pub(crate) fn first_hit(
        &self,
        f: &RayFrame<'_>,
        r: &BoxRay,
        max: f32,
        kernels: Kernels,
    ) -> (f32, u32) {
        kernels.run(FirstHit {
            bvh: self,
            f: *f,
            r,
            max,
        })
    }

    /// The traversal with kernel `K`: the nearest (t, triangle) with
    /// 0 < t <= `max`. The watertight frame is made (`frame`) after the
    /// root's slab test and the order of its children, not before: the
    /// root's loads and chain then start without waiting behind the
    /// frame's hundred-odd instructions, which overlap them instead (on
    /// the maps and the spheres 2-4 % faster a ray; "The frame after the
    /// walk's start" in `git show 1eb508f:docs/queries-log.md`). It is
    /// made only when the root's test enters a child: a ray that misses
    /// the root's children (every ray from outside the box pointing away)
    /// returns before it, 105 instructions fewer. Made at the first leaf
    /// instead, it cost more on the rays that reach one (+34-41
    /// instructions a ray on d84a95fb and the 16 k sphere) and saved less
    /// (78) on those that miss.
    #[inline(always)]
    pub(crate) fn walk<'a, K: BoxKernel>(
        &self,
        k: K,
        r: &BoxRay,
        max: f32,
        frame: impl MakeFrame<'a>,
    ) -> (f32, u32) {
        // One walk for each slab comparison, chosen once a ray.
        if r.finite {
            self.walk_with::<K, true>(k, r, max, frame)
        } else {
            self.walk_with::<K, false>(k, r, max, frame)
        }
    }

    /// [`Bvh::walk`] with the slab comparison `BITS` ([`BoxKernel::node`]).
    #[inline(always)]
    fn walk_with<'a, K: BoxKernel, const BITS: bool>(
        &self,
        k: K,
        r: &BoxRay,
        max: f32,
        frame: impl MakeFrame<'a>,
    ) -> (f32, u32) {
        let mut best = (max, NO_TRIANGLE);
        if self.nodes.is_empty() {
            return best;
        }
        let mut stack = Stack::new();
        let mut at = Position::root(max);
        // A ray that misses the root's children never makes the frame.
        if self.node_step::<K, BITS>(k, r, &mut at, &mut stack) {
            return best;
        }
        let frame = frame.make();
        let f = &LaneRay::<K::V>::new(&frame, k.token());
        while !self.step::<K, BITS>(k, f, r, &mut best, &mut at, &mut stack) {}
        best
    }

    /// A node's step ([`Bvh::step`] at a node): true when the walk is
    /// over.
    #[inline(always)]
    fn node_step<K: BoxKernel, const BITS: bool>(
        &self,
        k: K,
        r: &BoxRay,
        at: &mut Position,
        stack: &mut Stack,
    ) -> bool {
        // `at.link` is the root (0, and a walk starts only on a tree with
        // nodes) or a node link of the build (as in `step`).
        let node = &self.nodes[at.link as usize];
        let (keys, mask) = k.node::<BITS>(r, node, at.reach);
        if mask != 0 {
            at.link = self.order(k, node, keys, mask, stack);
            return false;
        }
        Self::pop(at, stack)
    }

    /// Pops the next child whose entry is not beyond the best hit into
    /// `at.link`; true when none is left.
    #[inline(always)]
    fn pop(at: &mut Position, stack: &mut Stack) -> bool {
        match stack.pop_within((at.reach + TINY).to_bits()) {
            Some(link) => {
                at.link = link;
                false
            }
            None => true,
        }
    }

    /// One step of a walk (the ray `f`, `r` for the boxes) from `at`: a
    /// node's slab test and the push of its children, or a leaf's test,
    /// followed by the pops of children beyond the best hit. True when the
    /// walk is over and `best` is its answer.
    #[inline(always)]
    fn step<K: BoxKernel, const BITS: bool>(
        &self,
        k: K,
        f: &LaneRay<'_, K::V>,
        r: &BoxRay,
        best: &mut (f32, u32),
        at: &mut Position,
        stack: &mut Stack,
    ) -> bool {
        let link = at.link;
        if link & LEAF != 0 {
            let first = (link & INDEX_MASK) as usize;
            let count = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
            // The build links only packets and nodes that exist
            // (`Bvh::validate` checks it).
            let leaf = &self.packets[first..first + count];
            // Out of line (on AVX2), so that the walk keeps the slab
            // test's values in registers.
            k.test_packets(f, leaf, best);
            at.reach = best.0 * (1.0 + EPS);
            Self::pop(at, stack)
        } else {
            self.node_step::<K, BITS>(k, r, at, stack)
        }
    }

    /// Asks the cache for the children of `node` in `mask` (nodes and
    /// packets are a few lines each; the loads overlap the sorting and the
    /// nearest child's test). Only for a hierarchy larger than the cache
    /// ([`Bvh::prefetch`]): a small one is there already, and the requests
    /// cost ~20 instructions a child.
    #[inline(always)]
    fn prefetch(&self, node: &Node, mask: u32) {
        if !self.prefetch {
            return;
        }
        let mut m = mask;
        while m != 0 {
            let link = node.child[m.trailing_zeros() as usize];
            m &= m - 1;
            if link & LEAF != 0 {
                let p = self
                    .packets
                    .as_ptr()
                    .wrapping_add((link & INDEX_MASK) as usize);
                prefetch(p.cast(), size_of::<crate::kernels::packet::Packet>());
            } else {
                let n = self.nodes.as_ptr().wrapping_add(link as usize);
                prefetch(n.cast(), size_of::<Node>());
            }
        }
    }

    /// The children of `node` in `mask` by their sort `keys`: the nearest
    /// is returned, the others pushed farthest first.
    #[inline(always)]
    fn order<K: BoxKernel>(
        &self,
        k: K,
        node: &Node,
        keys: K::Keys,
        mask: u32,
        stack: &mut Stack,
    ) -> u32 {
        let first = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        if rest == 0 {
            return link_of(node, first);
        }
        self.prefetch(node, rest);
        if rest & (rest - 1) == 0 {
            let second = rest.trailing_zeros() as usize;
            let (a, b) = (k.key(keys, first), k.key(keys, second));
            let (near, far) = (a.min(b), a.max(b));
            stack.push(far, node.child[(far & LANE_BITS) as usize]);
            return link_of(node, (near & LANE_BITS) as usize);
        }
        // Three or more: all eight keys sorted (those not entered last)
        // and written, the top advanced over all but the nearest. The
        // nearest is found apart from the sort (`BoxKernel::nearest`), so
        // the next node's load does not wait for the sort and the stack.
        stack.push_sorted(k, keys, &node.child, mask);
        link_of(node, (k.nearest(keys) & LANE_BITS) as usize)
    }
}

/// [`Bvh::first_hit`] waiting for its kernel.
#[cfg(test)]
struct FirstHit<'b, 'a> {
    bvh: &'b Bvh,
    f: RayFrame<'a>,
    r: &'b BoxRay,
    max: f32,
}

#[cfg(test)]
impl<K: BoxKernel> Task<K> for FirstHit<'_, '_> {
    type Out = (f32, u32);
    #[inline(always)]
    fn run(self, k: K) -> (f32, u32) {
        self.bvh.walk(k, self.r, self.max, self.f)
    }
}

/// The link of `node`'s child in `slot`: an inner child's computed from
/// its slot ([`Node::inner`]: no load between the slab test's mask and the
/// next node's rows), a leaf's too where the node's leaves are single
/// packets in turn ([`Node::leaf0`]), any other read from `child`.
#[inline(always)]
fn link_of(node: &Node, slot: usize) -> u32 {
    if (slot as u32) < node.inner {
        node.first + slot as u32
    } else if node.leaf0 != 0 {
        node.leaf0.wrapping_add(slot as u32)
    } else {
        node.child[slot & (WIDTH - 1)]
    }
}
