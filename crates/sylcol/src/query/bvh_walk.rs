//! Rays through the [`Bvh`]: an ordered, stack-based traversal whose box
//! test never loses a box the ray touches.
//!
//! **The slab test.** Per child and axis the ray's parameters at the box's
//! near and far planes are `(plane - o) * near_inv` and `(plane - o) *
//! far_inv` (the near plane chosen by the sign of `d`, once per ray), with
//! `near_inv = (1 / d) (1 - EPS)` and `far_inv = (1 / d) (1 + EPS)` rounded
//! once per ray. Before that scaling each value is within 4u of the exact
//! `(plane - o) / d` of the exact direction (the subtraction, the
//! reciprocal, the product, and for a segment the rounding of its
//! direction), the scaling's own rounding adds one more, and the sign is
//! kept; [`EPS`] (8u) exceeds the five, so a near value is at most its
//! exact value and a far value at least its own (the multiplication by
//! `1 - EPS` or `1 + EPS` that used to follow the accumulation, two
//! products per node, is folded into the ray). The largest near value
//! (with 0, the ray's start) and the smallest far value (with the best hit
//! so far grown by [`EPS`]) plus 2^-119 (products that underflow) bracket
//! the exact entry and exit. A child is entered when the first is
//! at most the second: every box the exact ray touches, also at a single
//! point or along a face, passes. A direction component of zero makes its
//! planes' values infinite (`+-0 * inf` is NaN where the ray lies in the
//! plane, which the accumulation ignores: such a ray is inside the slab).
//!
//! **Compared as integers.** When every reciprocal is finite and not zero
//! (nearly every ray: [`BoxRay::finite`]) no value can be NaN, and the
//! accumulation and the final comparison take the values' bits as signed
//! integers: `vpmaxsd` / `vpminsd` / `vpcmpgtd` take one cycle where
//! `vmaxps` / `vminps` / `vcmpps` take four, and all of them are on the
//! node step's chain (4-5 % faster rays on the maps and the small
//! spheres). For values >= +0 the integer order is the float order. A
//! value with its sign bit set (at or behind the start, -0 included)
//! reads as a negative integer: it never raises the entry above 0, and as
//! an exit it rejects the child. That is exact for hits at t > 0: the
//! computed value has the sign of the exact one (the subtraction, the
//! reciprocal and the product keep it), so a sign bit set means the exact
//! ray leaves that slab at t <= 0, and nothing in the box lies ahead. The
//! slack for products that underflow is 3 units in the last place of the
//! exit instead of [`TINY`]: below 2^-126 a product is within half a
//! subnormal ulp (2^-150) of its value, so entry and exit together drift
//! by at most 2^-149, one ulp of the smallest exit. A ray with a zero (or
//! subnormal) direction component keeps the float comparison, which
//! ignores the NaN of `0 * inf`.
//!
//! Boxes are the exact min / max of the f32 corners, so a triangle's exact
//! crossing lies in every box above it; a box is skipped only when its
//! exact entry lies beyond the best hit's t, where no nearer crossing can
//! be (the first-hit rule of `docs/queries.md`, "Exactness"). Leaves are
//! tested by the watertight kernels, every lane at once; each triangle is
//! in one leaf, so there is no mailbox.
//!
//! **Order.** Children hit are visited nearest entry first: the rest go
//! on a stack with their sort keys ([`keys`]: entry t and slot in one
//! u32) and are skipped when popped beyond the best hit. Three or more
//! are sorted by a bitonic network on AVX2 (`bvh_avx`), by a scalar sort
//! otherwise; the keys are the same, so is the order.

use std::mem::MaybeUninit;

use glam::{Vec3, Vec4};

use super::bvh::{Bvh, COUNT_SHIFT, INDEX_MASK, LEAF, MEDIAN_DEPTH, Node, WIDTH};
#[cfg(target_arch = "x86_64")]
use super::ray_triangle::Avx;
#[cfg(test)]
use super::ray_triangle::Avx2;
#[cfg(test)]
use super::ray_triangle::RayFrame;
use super::ray_triangle::{Kernel, LaneRay, MakeFrame, NO_TRIANGLE, Portable};

/// Relative slack of the slab test: 8u (4u of rounding in each value, one
/// more in the scaling of the reciprocal, and margin).
pub(super) const EPS: f32 = 8.0 / 16_777_216.0;

/// Absolute slack for products that underflow: 2^-119.
pub(super) const TINY: f32 = 1.504_632_8e-36;

/// The slack of the integer comparison: units in the last place added to
/// the exit (module notes).
pub(super) const SLACK_ULPS: i32 = 3;

/// Stack entries: up to `WIDTH - 1` a level, over at most
/// `MEDIAN_DEPTH + 34` levels (the build's median splits bound the
/// depth; `Bvh::validate` checks it).
pub const STACK: usize = (WIDTH - 1) * (MEDIAN_DEPTH + 34);

/// The bit of a sort key that marks a child entered (see [`keys`]).
pub(super) const ENTERED: u32 = 1 << 31;

/// The low bits of a sort key that hold the child's slot.
pub(super) const LANE_BITS: u32 = (WIDTH - 1) as u32;

/// A ray prepared for the slab test.
#[derive(Debug, Clone, Copy)]
pub struct BoxRay {
    pub(super) o: [f32; 3],
    /// Per axis `(1 / d) (1 - EPS)`: near values come out at most exact.
    pub(super) near_inv: [f32; 3],
    /// Per axis `(1 / d) (1 + EPS)`: far values come out at least exact.
    pub(super) far_inv: [f32; 3],
    /// Per axis, 1 when d < 0 or is -0 (the near planes are then the
    /// his), else 0.
    pub(super) neg: [usize; 3],
    /// Every `near_inv` and `far_inv` finite and not zero: no slab value
    /// can be NaN, and the walk compares them as integers (module notes).
    pub(super) finite: bool,
}

impl BoxRay {
    /// The ray `o + t d` (d finite, not zero).
    pub fn new(o: Vec3, d: Vec3) -> Self {
        let neg = [0, 1, 2].map(|k| usize::from(d[k].is_sign_negative()));
        let inv = Vec3::ONE / d;
        let (near_inv, far_inv) = (inv * (1.0 - EPS), inv * (1.0 + EPS));
        let usable = |v: Vec3| v.is_finite() && v.cmpne(Vec3::ZERO).all();
        BoxRay {
            o: o.to_array(),
            near_inv: near_inv.to_array(),
            far_inv: far_inv.to_array(),
            neg,
            finite: usable(near_inv) && usable(far_inv),
        }
    }
}

/// The slab test of node `n`'s children `at..at + 4` against `r` for t in
/// [0, `reach`] on four lanes: each child's entry (at most exact, >= 0)
/// and the lanes entered. With `BITS` (only for a [`BoxRay::finite`] ray)
/// the values are compared as integers, as `bvh_avx` does (module notes);
/// otherwise as floats, where a maximum or minimum with a NaN keeps the
/// accumulator, as `vmaxps` / `vminps` do in `bvh_avx`.
#[inline(always)]
fn boxes4<const BITS: bool>(r: &BoxRay, n: &Node, at: usize, reach: f32) -> (Vec4, u32) {
    let mut near = Vec4::ZERO;
    let mut far = Vec4::splat(reach);
    for k in 0..3 {
        let o = Vec4::splat(r.o[k]);
        let (near_inv, far_inv) = (Vec4::splat(r.near_inv[k]), Vec4::splat(r.far_inv[k]));
        // Rows k (lo) and 3 + k (hi); the masks keep the indices in range.
        let neg = r.neg[k] & 1;
        let row = |i: usize| Vec4::from_slice(&n.bounds[i][at..at + 4]);
        let t0 = (row(k + 3 * neg) - o) * near_inv;
        let t1 = (row(k + 3 * (neg ^ 1)) - o) * far_inv;
        if BITS {
            let pick = |a: Vec4, b: Vec4, f: fn(i32, i32) -> i32| {
                Vec4::from_array(std::array::from_fn(|i| {
                    f32::from_bits(f(a[i].to_bits() as i32, b[i].to_bits() as i32) as u32)
                }))
            };
            near = pick(t0, near, i32::max);
            far = pick(t1, far, i32::min);
        } else {
            near = Vec4::select(t0.cmpgt(near), t0, near);
            far = Vec4::select(t1.cmplt(far), t1, far);
        }
    }
    if BITS {
        let mask = (0..4).fold(0, |m, i| {
            let exit = (far[i].to_bits() as i32).wrapping_add(SLACK_ULPS);
            m | u32::from(near[i].to_bits() as i32 <= exit) << i
        });
        return (near, mask);
    }
    let far = far + Vec4::splat(TINY);
    (near, near.cmple(far).bitmask())
}

/// The sort keys of a node's children from their entries `t` (>= 0) and
/// the mask of those entered: `ENTERED | t's bits with the lowest three
/// cleared | slot` for a child entered (unsigned order is t order, the
/// slot breaking ties; the t read back is at most the entry, so a popped
/// child is never dropped too early), 0 for the others (they sort last).
#[inline(always)]
pub(super) fn keys(t: &[f32; WIDTH], mask: u32) -> [u32; WIDTH] {
    std::array::from_fn(|lane| {
        let key = ENTERED | (t[lane].to_bits() & !LANE_BITS) | lane as u32;
        if mask >> lane & 1 != 0 { key } else { 0 }
    })
}

/// The entry t a sort key holds (its bits, at most the entry's).
#[inline(always)]
fn key_t(key: u32) -> u32 {
    key & !(ENTERED | LANE_BITS)
}

/// A ray kernel with its node step.
pub trait BoxKernel: Kernel {
    /// A node's sort keys (eight, in the kernel's registers).
    type Keys: Copy;
    /// The slab test of node `n`'s children for t in [0, `reach`] (the
    /// best hit's t grown by [`EPS`]): their sort keys ([`keys`]) and the
    /// mask of those entered. `BITS` (only for a [`BoxRay::finite`] ray):
    /// compared as integers (module notes).
    fn node<const BITS: bool>(r: &BoxRay, n: &Node, reach: f32) -> (Self::Keys, u32);
    /// The key of slot `lane`.
    fn key(keys: Self::Keys, lane: usize) -> u32;
    /// The smallest key of a child entered (at least one is).
    fn nearest(keys: Self::Keys) -> u32;
    /// Writes the keys sorted descending to `keys_out` and the links of
    /// their children in that order to `links_out`.
    ///
    /// # Safety
    /// Both must have room for [`WIDTH`] entries.
    unsafe fn push_sorted(
        keys: Self::Keys,
        child: &[u32; WIDTH],
        keys_out: *mut u32,
        links_out: *mut u32,
    );
}

impl BoxKernel for Portable {
    type Keys = [u32; WIDTH];

    #[inline(always)]
    fn node<const BITS: bool>(r: &BoxRay, n: &Node, reach: f32) -> ([u32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let (lo, m0) = boxes4::<BITS>(r, n, 0, reach);
        let (hi, m1) = boxes4::<BITS>(r, n, 4, reach);
        lo.write_to_slice(&mut t[..4]);
        hi.write_to_slice(&mut t[4..]);
        let mask = m0 | (m1 << 4);
        (keys(&t, mask), mask)
    }

    #[inline(always)]
    fn key(keys: [u32; WIDTH], lane: usize) -> u32 {
        keys[lane & (WIDTH - 1)]
    }

    #[inline(always)]
    fn nearest(keys: [u32; WIDTH]) -> u32 {
        keys.into_iter().filter(|&k| k != 0).min().unwrap_or(0)
    }

    #[inline(always)]
    unsafe fn push_sorted(
        keys: [u32; WIDTH],
        child: &[u32; WIDTH],
        keys_out: *mut u32,
        links_out: *mut u32,
    ) {
        let mut sorted = keys;
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for (i, k) in sorted.into_iter().enumerate() {
            // SAFETY: the caller gives room for WIDTH entries.
            unsafe {
                keys_out.add(i).write(k);
                links_out.add(i).write(child[(k & LANE_BITS) as usize]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl BoxKernel for Avx {
    type Keys = std::arch::x86_64::__m256i;

    #[inline(always)]
    fn node<const BITS: bool>(r: &BoxRay, n: &Node, reach: f32) -> (Self::Keys, u32) {
        super::bvh_avx::node_keys::<BITS>(r, n, reach)
    }

    #[inline(always)]
    fn key(keys: Self::Keys, lane: usize) -> u32 {
        super::bvh_avx::key_of(keys, lane)
    }

    #[inline(always)]
    fn nearest(keys: Self::Keys) -> u32 {
        super::bvh_avx::nearest_key(keys)
    }

    #[inline(always)]
    unsafe fn push_sorted(
        keys: Self::Keys,
        child: &[u32; WIDTH],
        keys_out: *mut u32,
        links_out: *mut u32,
    ) {
        // SAFETY: as the caller's.
        unsafe { super::bvh_avx::push_sorted(keys, child, keys_out, links_out) }
    }
}

/// The children waiting: per entry its sort key and its link, the
/// nearest on top. Room for [`WIDTH`] more than [`STACK`]: a node's sorted
/// keys are written eight at a time.
struct Stack {
    keys: [MaybeUninit<u32>; STACK + WIDTH],
    links: [MaybeUninit<u32>; STACK + WIDTH],
}

impl Stack {
    #[inline(always)]
    fn new() -> Self {
        Stack {
            keys: [const { MaybeUninit::uninit() }; STACK + WIDTH],
            links: [const { MaybeUninit::uninit() }; STACK + WIDTH],
        }
    }
}

/// Where a walk stands: the node or leaf its next step visits, the
/// stack's entries in use, and the best hit's t grown by [`EPS`] (the far
/// end of every slab test, updated only after a leaf).
#[derive(Debug, Clone, Copy)]
struct Position {
    link: u32,
    len: usize,
    reach: f32,
}

impl Position {
    /// At the root, keeping hits with t <= `max`.
    #[inline(always)]
    fn root(max: f32) -> Self {
        Position {
            link: 0,
            len: 0,
            reach: max * (1.0 + EPS),
        }
    }
}

/// One ray's walk held between steps ([`Bvh::step`]), for `bvh_stream`,
/// which steps two rays in turn so that one's waits on memory overlap the
/// other's work.
pub(super) struct Walker<'a, K: BoxKernel> {
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
    pub(super) fn new(f: LaneRay<'a, K::V>, r: BoxRay, max: f32) -> Self {
        Walker {
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
    }

    /// One step through `bvh` (the hierarchy the walk started on); true
    /// when the walk is over and `best` is its answer.
    #[inline(always)]
    pub(super) fn step(&mut self, bvh: &Bvh) -> bool {
        let (f, r) = (&self.f, &self.r);
        let (best, at, stack) = (&mut self.best, &mut self.at, &mut self.stack);
        // The slab comparison is chosen at each step here (two rays take
        // turns, each with its own flag), not once a ray as in `walk`.
        if r.finite {
            bvh.step::<K, true>(f, r, best, at, stack)
        } else {
            bvh.step::<K, false>(f, r, best, at, stack)
        }
    }
}

impl Bvh {
    /// The nearest (t, triangle) with 0 < t <= `max` of the ray of `f`
    /// (`r`, the same ray for the box test), with the widest kernel this
    /// CPU runs (the AVX2 kernel with `avx`). The tests' entry: a cast
    /// inlines [`Bvh::walk`] into its own kernel-compiled function.
    #[cfg(test)]
    pub(crate) fn first_hit(
        &self,
        f: &RayFrame<'_>,
        r: &BoxRay,
        max: f32,
        avx: Option<Avx2>,
    ) -> (f32, u32) {
        #[cfg(target_arch = "x86_64")]
        if avx.is_some() {
            // SAFETY: an `Avx2` exists only where the CPU has AVX and AVX2.
            return unsafe { self.walk_avx(f, r, max) };
        }
        let _ = avx;
        self.walk::<Portable>(r, max, *f)
    }

    /// The traversal compiled for AVX and AVX2.
    #[cfg(all(test, target_arch = "x86_64"))]
    #[target_feature(enable = "avx,avx2")]
    fn walk_avx(&self, f: &RayFrame<'_>, r: &BoxRay, max: f32) -> (f32, u32) {
        self.walk::<Avx>(r, max, *f)
    }

    /// The traversal with kernel `K`: the nearest (t, triangle) with
    /// 0 < t <= `max`. The watertight frame is made (`frame`) after the
    /// root's slab test and the order of its children, not before: the
    /// root's loads and chain then start without waiting behind the
    /// frame's hundred-odd instructions, which overlap them instead (on
    /// the maps and the spheres 2-4 % faster a ray; "The frame after the
    /// walk's start" in docs/queries-log.md).
    #[inline(always)]
    pub(super) fn walk<'a, K: BoxKernel>(
        &self,
        r: &BoxRay,
        max: f32,
        frame: impl MakeFrame<'a>,
    ) -> (f32, u32) {
        // One walk for each slab comparison, chosen once a ray.
        if r.finite {
            self.walk_with::<K, true>(r, max, frame)
        } else {
            self.walk_with::<K, false>(r, max, frame)
        }
    }

    /// [`Bvh::walk`] with the slab comparison `BITS` ([`BoxKernel::node`]).
    #[inline(always)]
    fn walk_with<'a, K: BoxKernel, const BITS: bool>(
        &self,
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
        let over = self.node_step::<K, BITS>(r, &mut at, &mut stack);
        let frame = frame.make();
        let f = &LaneRay::<K::V>::new(&frame);
        if over {
            return best;
        }
        while !self.step::<K, BITS>(f, r, &mut best, &mut at, &mut stack) {}
        best
    }

    /// A node's step ([`Bvh::step`] at a node): true when the walk is
    /// over.
    #[inline(always)]
    fn node_step<K: BoxKernel, const BITS: bool>(
        &self,
        r: &BoxRay,
        at: &mut Position,
        stack: &mut Stack,
    ) -> bool {
        // SAFETY: as in `step`.
        let node = unsafe { self.nodes.get_unchecked(at.link as usize) };
        let (keys, mask) = K::node::<BITS>(r, node, at.reach);
        if mask != 0 {
            at.link = self.order::<K>(node, keys, mask, stack, &mut at.len);
            return false;
        }
        Self::pop(at, stack)
    }

    /// Pops the next child whose entry is not beyond the best hit into
    /// `at.link`; true when none is left.
    #[inline(always)]
    fn pop(at: &mut Position, stack: &mut Stack) -> bool {
        let bound = (at.reach + TINY).to_bits();
        loop {
            if at.len == 0 {
                return true;
            }
            at.len -= 1;
            // SAFETY: entries below `len` were written by `order`.
            let key = unsafe { stack.keys.get_unchecked(at.len).assume_init() };
            if key_t(key) <= bound {
                at.link = unsafe { stack.links.get_unchecked(at.len).assume_init() };
                return false;
            }
        }
    }

    /// One step of a walk (the ray `f`, `r` for the boxes) from `at`: a
    /// node's slab test and the push of its children, or a leaf's test,
    /// followed by the pops of children beyond the best hit. True when the
    /// walk is over and `best` is its answer.
    #[inline(always)]
    fn step<K: BoxKernel, const BITS: bool>(
        &self,
        f: &LaneRay<'_, K::V>,
        r: &BoxRay,
        best: &mut (f32, u32),
        at: &mut Position,
        stack: &mut Stack,
    ) -> bool {
        let link = at.link;
        if link & LEAF != 0 {
            // SAFETY: the build links only packets and nodes that exist
            // (`Bvh::validate` checks it), and a `Bvh` is only made by the
            // build.
            let first = (link & INDEX_MASK) as usize;
            let count = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
            let leaf = unsafe { self.packets.get_unchecked(first..first + count) };
            // Out of line (on AVX2), so that the walk keeps the slab
            // test's values in registers.
            K::test_packets(f, leaf, best);
            at.reach = best.0 * (1.0 + EPS);
            Self::pop(at, stack)
        } else {
            self.node_step::<K, BITS>(r, at, stack)
        }
    }

    /// Asks the cache for the children of `node` in `mask` (nodes and
    /// packets are a few lines each; the loads overlap the sorting and the
    /// nearest child's test). Only for a hierarchy larger than the cache
    /// ([`Bvh::prefetch`]): a small one is there already, and the requests
    /// cost ~20 instructions a child.
    #[inline(always)]
    fn prefetch(&self, node: &Node, mask: u32) {
        #[cfg(target_arch = "x86_64")]
        if self.prefetch {
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

    /// The children of `node` in `mask` by their sort `keys`: the nearest
    /// is returned, the others pushed farthest first.
    #[inline(always)]
    fn order<K: BoxKernel>(
        &self,
        node: &Node,
        keys: K::Keys,
        mask: u32,
        stack: &mut Stack,
        top: &mut usize,
    ) -> u32 {
        let first = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        if rest == 0 {
            return link_of(node, first);
        }
        self.prefetch(node, rest);
        let len = *top;
        debug_assert!(len + WIDTH <= STACK + WIDTH);
        if rest & (rest - 1) == 0 {
            let second = rest.trailing_zeros() as usize;
            let (a, b) = (K::key(keys, first), K::key(keys, second));
            let (near, far) = (a.min(b), a.max(b));
            // SAFETY: `len` < STACK (`Bvh::validate` checks the depth).
            unsafe {
                stack.keys.get_unchecked_mut(len).write(far);
                let far_link = node.child[(far & LANE_BITS) as usize];
                stack.links.get_unchecked_mut(len).write(far_link);
            }
            *top = len + 1;
            return link_of(node, (near & LANE_BITS) as usize);
        }
        // Three or more: all eight keys sorted (those not entered last)
        // and written, the top advanced over all but the nearest. The
        // nearest is found apart from the sort (`BoxKernel::nearest`), so
        // the next node's load does not wait for the sort and the stack.
        let n = mask.count_ones() as usize;
        // SAFETY: `len` + WIDTH is within the arrays (above).
        unsafe {
            let keys_out = stack.keys.as_mut_ptr().add(len).cast::<u32>();
            let links_out = stack.links.as_mut_ptr().add(len).cast::<u32>();
            K::push_sorted(keys, &node.child, keys_out, links_out);
        }
        *top = len + n - 1;
        link_of(node, (K::nearest(keys) & LANE_BITS) as usize)
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
