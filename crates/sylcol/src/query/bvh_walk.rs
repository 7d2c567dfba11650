//! Rays through the [`Bvh`]: an ordered, stack-based traversal whose box
//! test never loses a box the ray touches.
//!
//! **The slab test.** Per child and axis the ray's parameters at the box's
//! near and far planes are `(plane - o) * (1 / d)` (the near plane chosen
//! by the sign of `d`, once per ray). Each such f32 value is within 4u of
//! the exact `(plane - o) / d` of the exact direction (the subtraction,
//! the reciprocal, the product, and for a segment the rounding of its
//! direction), and has its sign; so the largest near value (with 0, the
//! ray's start) shrunk by [`EPS`] and the smallest far value (with the best
//! hit so far) grown by [`EPS`] plus 2^-119 (products that underflow)
//! bracket the exact entry and exit. A child is entered when the first is
//! at most the second: every box the exact ray touches, also at a single
//! point or along a face, passes. A direction component of zero makes its
//! planes' values infinite (`+-0 * inf` is NaN where the ray lies in the
//! plane, which the accumulation ignores: such a ray is inside the slab).
//!
//! Boxes are the exact min / max of the f32 corners, so a triangle's exact
//! crossing lies in every box above it; a box is skipped only when its
//! exact entry lies beyond the best hit's t, where no nearer crossing can
//! be (the first-hit rule of `docs/queries.md`, "Exactness"). Leaves are
//! tested by the watertight kernels, every lane at once; each triangle is
//! in one leaf, so there is no mailbox.
//!
//! **Order.** Children hit are visited nearest entry first: the rest go
//! on a stack with their entry t and are skipped when popped beyond the
//! best hit.

use std::mem::MaybeUninit;

use glam::{Vec3, Vec4};

use super::bvh::{Bvh, COUNT_SHIFT, INDEX_MASK, LEAF, MEDIAN_DEPTH, Node, WIDTH};
use super::ray_cast::take_nearest;
#[cfg(target_arch = "x86_64")]
use super::ray_triangle::Avx;
use super::ray_triangle::{Kernel, LaneRay, Lanes, NO_TRIANGLE, Portable, RayFrame};
#[cfg(target_arch = "x86_64")]
use super::ray_triangle_avx::W8;

/// Relative slack of the slab test: 8u (4u of rounding in each value, one
/// more in the scaling, and margin).
const EPS: f32 = 8.0 / 16_777_216.0;

/// Absolute slack for products that underflow: 2^-119.
const TINY: f32 = 1.504_632_8e-36;

/// Stack entries: up to `WIDTH - 1` a level, over at most
/// `MEDIAN_DEPTH + 34` levels (the build's median splits bound the
/// depth; `Bvh::validate` checks it).
pub const STACK: usize = (WIDTH - 1) * (MEDIAN_DEPTH + 34);

/// A ray prepared for the slab test.
#[derive(Debug, Clone, Copy)]
pub struct BoxRay {
    o: [f32; 3],
    inv: [f32; 3],
    /// Per axis, 1 when d < 0 or is -0 (the near planes are then the
    /// his), else 0.
    neg: [usize; 3],
}

impl BoxRay {
    /// The ray `o + t d` (d finite, not zero).
    pub fn new(o: Vec3, d: Vec3) -> Self {
        let neg = [0, 1, 2].map(|k| usize::from(d[k].is_sign_negative()));
        BoxRay {
            o: o.to_array(),
            inv: [0, 1, 2].map(|k| 1.0 / d[k]),
            neg,
        }
    }
}

/// Box lanes: the kernel's [`Lanes`] with a maximum and minimum that keep
/// the accumulator where the new value is NaN.
pub trait BoxLanes: Lanes {
    /// `self` where it is above `acc`, else `acc` (NaN: `acc`).
    fn max_into(self, acc: Self) -> Self;
    /// `self` where it is below `acc`, else `acc` (NaN: `acc`).
    fn min_into(self, acc: Self) -> Self;
}

impl BoxLanes for Vec4 {
    #[inline(always)]
    fn max_into(self, acc: Self) -> Self {
        Vec4::select(self.cmpgt(acc), self, acc)
    }
    #[inline(always)]
    fn min_into(self, acc: Self) -> Self {
        Vec4::select(self.cmplt(acc), self, acc)
    }
}

#[cfg(target_arch = "x86_64")]
impl BoxLanes for W8 {
    #[inline(always)]
    fn max_into(self, acc: Self) -> Self {
        // vmaxps returns its second operand when either is NaN.
        self.max(acc)
    }
    #[inline(always)]
    fn min_into(self, acc: Self) -> Self {
        self.min(acc)
    }
}

/// The slab test of node `n`'s children `at..` (as many as `V` holds)
/// against `r` for t in [0, `t_far`]: each child's entry (shrunk, >= 0)
/// and the lanes entered.
#[inline(always)]
fn boxes<V: BoxLanes>(r: &BoxRay, n: &Node, at: usize, t_far: f32) -> (V, u32) {
    let mut near = V::splat(0.0);
    let mut far = V::splat(t_far);
    for k in 0..3 {
        let (o, inv) = (V::splat(r.o[k]), V::splat(r.inv[k]));
        // Rows k (lo) and 3 + k (hi); the masks keep the indices in range.
        let neg = r.neg[k] & 1;
        let t0 = V::load(&n.bounds[k + 3 * neg], at).sub(o).mul(inv);
        let t1 = V::load(&n.bounds[k + 3 * (neg ^ 1)], at).sub(o).mul(inv);
        near = t0.max_into(near);
        far = t1.min_into(far);
    }
    let near = near.mul(V::splat(1.0 - EPS));
    let far = far.mul(V::splat(1.0 + EPS)).add(V::splat(TINY));
    (near, V::bits(near.le(far)))
}

/// A ray kernel with its box test.
pub trait BoxKernel: Kernel {
    /// The entries of node `n`'s children and the mask of those entered.
    fn node(r: &BoxRay, n: &Node, t_far: f32) -> ([f32; WIDTH], u32);
}

impl BoxKernel for Portable {
    #[inline(always)]
    fn node(r: &BoxRay, n: &Node, t_far: f32) -> ([f32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let (lo, m0) = boxes::<Vec4>(r, n, 0, t_far);
        let (hi, m1) = boxes::<Vec4>(r, n, 4, t_far);
        lo.store(&mut t, 0);
        hi.store(&mut t, 4);
        (t, m0 | (m1 << 4))
    }
}

#[cfg(target_arch = "x86_64")]
impl BoxKernel for Avx {
    #[inline(always)]
    fn node(r: &BoxRay, n: &Node, t_far: f32) -> ([f32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let (near, mask) = boxes::<W8>(r, n, 0, t_far);
        near.store(&mut t, 0);
        (t, mask)
    }
}

/// A stack entry: the entry t's bits above, the child link below (entry
/// t >= 0, so the order of the bits is that of the t).
#[inline(always)]
fn key(t: f32, link: u32) -> u64 {
    (u64::from(t.to_bits()) << 32) | u64::from(link)
}

impl Bvh {
    /// The nearest (t, triangle) with 0 < t <= `max` of the ray of `f`
    /// (`r`, the same ray for the box test), with the widest kernel this
    /// CPU runs (`avx`: AVX and AVX2 are there).
    pub(crate) fn first_hit(
        &self,
        f: &RayFrame<'_>,
        r: &BoxRay,
        max: f32,
        avx: bool,
    ) -> (f32, u32) {
        #[cfg(target_arch = "x86_64")]
        if avx {
            // SAFETY: the caller found AVX and AVX2 on this CPU.
            return unsafe { self.walk_avx(f, r, max) };
        }
        let _ = avx;
        self.walk::<Portable>(f, r, max)
    }

    /// The traversal compiled for AVX and AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn walk_avx(&self, f: &RayFrame<'_>, r: &BoxRay, max: f32) -> (f32, u32) {
        self.walk::<Avx>(f, r, max)
    }

    /// The traversal with kernel `K`.
    #[inline(always)]
    fn walk<K: BoxKernel>(&self, f: &RayFrame<'_>, r: &BoxRay, max: f32) -> (f32, u32) {
        let mut best = (max, NO_TRIANGLE);
        if self.nodes.is_empty() {
            return best;
        }
        let f = &LaneRay::<K::V>::new(f);
        let mut stack = [const { MaybeUninit::<u64>::uninit() }; STACK];
        let mut sp = 0;
        let mut link = 0u32;
        loop {
            if link & LEAF != 0 {
                // SAFETY: the build links only packets and nodes that
                // exist (`Bvh::validate` checks it), and a `Bvh` is only
                // made by the build.
                let first = (link & INDEX_MASK) as usize;
                let count = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
                let leaf = unsafe { self.packets.get_unchecked(first..first + count) };
                for p in leaf {
                    take_nearest::<K>(f, p, 0xff, &mut best);
                }
            } else {
                // SAFETY: as above.
                let node = unsafe { self.nodes.get_unchecked(link as usize) };
                let (t, mask) = K::node(r, node, best.0);
                if mask != 0 {
                    link = self.order(node, &t, mask, &mut stack, &mut sp);
                    continue;
                }
            }
            // Pop the next child whose entry is not beyond the best hit.
            let bound = best.0 * (1.0 + EPS) + TINY;
            loop {
                if sp == 0 {
                    return best;
                }
                sp -= 1;
                // SAFETY: entries below `sp` were written by `order`.
                let k = unsafe { stack[sp].assume_init() };
                if f32::from_bits((k >> 32) as u32) <= bound {
                    link = k as u32;
                    break;
                }
            }
        }
    }

    /// Asks the cache for the children of `node` in `mask` (nodes and
    /// packets are a few lines each; the loads overlap the sorting and the
    /// nearest child's test).
    #[inline(always)]
    fn prefetch(&self, node: &Node, mask: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let mut m = mask;
            while m != 0 {
                let link = node.child[m.trailing_zeros() as usize];
                m &= m - 1;
                let (at, bytes) = if link & LEAF != 0 {
                    let p = self
                        .packets
                        .as_ptr()
                        .wrapping_add((link & INDEX_MASK) as usize);
                    (p.cast::<i8>(), size_of::<super::ray_triangle::Packet>())
                } else {
                    let n = self.nodes.as_ptr().wrapping_add(link as usize);
                    (n.cast::<i8>(), size_of::<Node>())
                };
                for line in (0..bytes).step_by(64) {
                    // SAFETY: a prefetch never faults; the address is
                    // inside the vectors (links are checked at build).
                    unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(line)) };
                }
            }
        }
        let _ = (node, mask);
    }

    /// The children of `node` in `mask` by entry `t`: the nearest is
    /// returned, the others pushed farthest first.
    #[inline(always)]
    fn order(
        &self,
        node: &Node,
        t: &[f32; WIDTH],
        mask: u32,
        stack: &mut [MaybeUninit<u64>; STACK],
        sp: &mut usize,
    ) -> u32 {
        let first = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        if rest == 0 {
            return node.child[first];
        }
        self.prefetch(node, rest);
        let second = rest.trailing_zeros() as usize;
        let (a, b) = (
            key(t[first], node.child[first]),
            key(t[second], node.child[second]),
        );
        if rest & (rest - 1) == 0 {
            stack[*sp] = MaybeUninit::new(a.max(b));
            *sp += 1;
            return a.min(b) as u32;
        }
        // Three or more: sort the keys, farthest first.
        let mut keys = [0u64; WIDTH];
        let mut n = 0;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let k = key(t[lane], node.child[lane]);
            let mut i = n;
            while i > 0 && keys[i - 1] < k {
                keys[i] = keys[i - 1];
                i -= 1;
            }
            keys[i] = k;
            n += 1;
        }
        for &k in &keys[..n - 1] {
            stack[*sp] = MaybeUninit::new(k);
            *sp += 1;
        }
        keys[n - 1] as u32
    }
}
