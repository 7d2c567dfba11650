//! The BVH's box test: a ray against a node's eight child boxes, which
//! never loses a box the ray touches, and the sort keys that order the
//! children entered.
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
//! crossing lies in every box above it; the walk skips a box only when its
//! exact entry lies beyond the best hit's t, where no nearer crossing can
//! be. The eight-lane form on AVX2 is in `slab_avx`: the same IEEE
//! operations lane by lane, the same keys.

use glam::{Vec3, Vec4};

use super::kernel::{Kernel, Portable};
use super::node::{Node, WIDTH};

/// Relative slack of the slab test: 8u (4u of rounding in each value, one
/// more in the scaling of the reciprocal, and margin).
pub const EPS: f32 = 8.0 / 16_777_216.0;

/// Absolute slack for products that underflow: 2^-119.
pub const TINY: f32 = 1.504_632_8e-36;

/// The slack of the integer comparison: units in the last place added to
/// the exit (module notes).
pub const SLACK_ULPS: i32 = 3;

/// The bit of a sort key that marks a child entered (see [`keys`]).
pub const ENTERED: u32 = 1 << 31;

/// The low bits of a sort key that hold the child's slot.
pub const LANE_BITS: u32 = (WIDTH - 1) as u32;

/// A ray prepared for the slab test.
#[derive(Debug, Clone, Copy)]
pub struct BoxRay {
    pub o: [f32; 3],
    /// Per axis `(1 / d) (1 - EPS)`: near values come out at most exact.
    pub near_inv: [f32; 3],
    /// Per axis `(1 / d) (1 + EPS)`: far values come out at least exact.
    pub far_inv: [f32; 3],
    /// Per axis, 1 when d < 0 or is -0 (the near planes are then the
    /// his), else 0.
    pub neg: [usize; 3],
    /// Every `near_inv` and `far_inv` finite and not zero: no slab value
    /// can be NaN, and the walk compares them as integers (module notes).
    pub finite: bool,
}

impl BoxRay {
    /// The ray `o + t d` (d finite, not zero).
    pub fn new(o: Vec3, d: Vec3) -> Self {
        let neg = [0, 1, 2].map(|k| usize::from(d[k].is_sign_negative()));
        let inv = Vec3::ONE / d;
        let (near_inv, far_inv) = (inv * (1.0 - EPS), inv * (1.0 + EPS));
        // Finite and not zero, on the bits: |v| - 1 (0 wraps to the top)
        // below that of +inf; one comparison for all six (as `is_finite`
        // and `cmpne` each, 20-odd instructions more a ray).
        const ABS: u32 = 0x7fff_ffff;
        const INF: u32 = 0x7f80_0000;
        let m = |x: f32| (x.to_bits() & ABS).wrapping_sub(1);
        let top = |v: Vec3| m(v.x).max(m(v.y)).max(m(v.z));
        BoxRay {
            o: o.to_array(),
            near_inv: near_inv.to_array(),
            far_inv: far_inv.to_array(),
            neg,
            finite: top(near_inv).max(top(far_inv)) < INF - 1,
        }
    }
}

/// The slab test of node `n`'s children `at..at + 4` against `r` for t in
/// [0, `reach`] on four lanes: each child's entry (at most exact, >= 0)
/// and the lanes entered. With `BITS` (only for a [`BoxRay::finite`] ray)
/// the values are compared as integers, as `slab_avx` does (module notes);
/// otherwise as floats, where a maximum or minimum with a NaN keeps the
/// accumulator, as `vmaxps` / `vminps` do in `slab_avx`.
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
pub fn keys(t: &[f32; WIDTH], mask: u32) -> [u32; WIDTH] {
    std::array::from_fn(|lane| {
        let key = ENTERED | (t[lane].to_bits() & !LANE_BITS) | lane as u32;
        if mask >> lane & 1 != 0 { key } else { 0 }
    })
}

/// The entry t a sort key holds (its bits, at most the entry's).
#[inline(always)]
pub fn key_t(key: u32) -> u32 {
    key & !(ENTERED | LANE_BITS)
}

/// A ray kernel with its node step (a value, like [`Kernel`]: the AVX
/// kernel's holds the proof that the CPU runs it).
pub trait BoxKernel: Kernel {
    /// A node's sort keys (eight, in the kernel's registers).
    type Keys: Copy;
    /// The slab test of node `n`'s children for t in [0, `reach`] (the
    /// best hit's t grown by [`EPS`]): their sort keys ([`keys`]) and the
    /// mask of those entered. `BITS` (only for a [`BoxRay::finite`] ray):
    /// compared as integers (module notes).
    fn node<const BITS: bool>(self, r: &BoxRay, n: &Node, reach: f32) -> (Self::Keys, u32);
    /// The key of slot `lane`.
    fn key(self, keys: Self::Keys, lane: usize) -> u32;
    /// The smallest key of a child entered (at least one is).
    fn nearest(self, keys: Self::Keys) -> u32;
    /// Writes the keys sorted descending to `keys_out` and the links of
    /// their children in that order to `links_out`.
    ///
    /// # Safety
    /// Both must be valid for writes of [`WIDTH`] entries.
    unsafe fn push_sorted(
        self,
        keys: Self::Keys,
        child: &[u32; WIDTH],
        keys_out: *mut u32,
        links_out: *mut u32,
    );
    /// The keys as an array (for the tests).
    #[cfg(test)]
    fn keys_array(self, keys: Self::Keys) -> [u32; WIDTH];
    /// Keys from an array (for the tests).
    #[cfg(test)]
    fn keys_from(self, keys: &[u32; WIDTH]) -> Self::Keys;
    /// [`BoxKernel::push_sorted`] into arrays: the keys sorted and the
    /// links of their children (for the tests).
    #[cfg(test)]
    fn pushed(self, keys: Self::Keys, child: &[u32; WIDTH]) -> ([u32; WIDTH], [u32; WIDTH]) {
        let (mut k, mut l) = ([0u32; WIDTH], [0u32; WIDTH]);
        // SAFETY: eight entries of room each.
        unsafe { self.push_sorted(keys, child, k.as_mut_ptr(), l.as_mut_ptr()) };
        (k, l)
    }
}

impl BoxKernel for Portable {
    type Keys = [u32; WIDTH];

    #[inline(always)]
    fn node<const BITS: bool>(self, r: &BoxRay, n: &Node, reach: f32) -> ([u32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let (lo, m0) = boxes4::<BITS>(r, n, 0, reach);
        let (hi, m1) = boxes4::<BITS>(r, n, 4, reach);
        lo.write_to_slice(&mut t[..4]);
        hi.write_to_slice(&mut t[4..]);
        let mask = m0 | (m1 << 4);
        (keys(&t, mask), mask)
    }

    #[inline(always)]
    fn key(self, keys: [u32; WIDTH], lane: usize) -> u32 {
        keys[lane & (WIDTH - 1)]
    }

    #[inline(always)]
    fn nearest(self, keys: [u32; WIDTH]) -> u32 {
        keys.into_iter().filter(|&k| k != 0).min().unwrap_or(0)
    }

    #[inline(always)]
    unsafe fn push_sorted(
        self,
        keys: [u32; WIDTH],
        child: &[u32; WIDTH],
        keys_out: *mut u32,
        links_out: *mut u32,
    ) {
        let mut sorted = keys;
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for (i, k) in sorted.into_iter().enumerate() {
            // SAFETY: the caller gives room for WIDTH entries (i < WIDTH).
            unsafe {
                keys_out.add(i).write(k);
                links_out.add(i).write(child[(k & LANE_BITS) as usize]);
            }
        }
    }

    #[cfg(test)]
    fn keys_array(self, keys: [u32; WIDTH]) -> [u32; WIDTH] {
        keys
    }

    #[cfg(test)]
    fn keys_from(self, keys: &[u32; WIDTH]) -> [u32; WIDTH] {
        *keys
    }
}
