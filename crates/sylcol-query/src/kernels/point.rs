//! The nearest-point walk's node step: lower bounds on the squared
//! distances from a point to a node's eight child boxes, as the sort keys
//! of the ray walk (`slab::keys`), and the mask of the children within
//! the best distance so far ([`PointKernel`]).
//!
//! **Bounds.** Per axis the gap of p outside the box (`lo - x` or
//! `x - hi`, at least 0), squared and summed in f32, and scaled down by
//! [`SHRINK`] (1 - 2^-20): each subtraction, square and sum is off by at
//! most half a unit in the last place (six of them, 2^-21.4 in all), so
//! the bound is at most the exact squared distance to the box, and so to
//! every triangle inside it (boxes are the exact min / max of the f32
//! corners). A bound that underflows only gets smaller. A child is within
//! a limit when its bound is at most the limit (a child at exactly the
//! best distance is visited, so ties are seen) and its slot is used (an
//! unused slot's box is empty: lo = +inf > hi = -inf).
//!
//! **Order.** The children within are ordered by their keys (bound bits,
//! then slot) as the ray walk orders its children: the nearest returned,
//! the others pushed farthest first ([`PointKernel::push_order`]). The
//! eight-lane form (`point_avx`) computes the same IEEE operations lane by
//! lane, so the same keys, and sorts them with `slab_avx`'s bitonic
//! network; the portable one with a network of compare-exchanges
//! ([`sort_descending`]) rather than a sort with a branch a comparison.

use glam::{Vec3, Vec4};

use super::kernel::Portable;
use super::node::{Node, WIDTH};
use super::packet::LANES;
use super::slab::{BoxKernel, LANE_BITS, keys};
use super::stack::NodeStack;

/// The factor that takes a computed f32 squared distance to a bound at
/// most the exact one: 1 - 2^-20 (module notes).
pub const SHRINK: f32 = 1.0 - 1.0 / 1_048_576.0;

/// A kernel with the nearest-point node step (module notes).
pub trait PointKernel: BoxKernel {
    /// Where the kernel's lanes start in a row of eight: `[0, 4]` for
    /// four lanes, `[0]` for eight.
    const STARTS: &'static [usize];
    /// The sort keys of node `n`'s children by their bounds from `p`
    /// (`slab::keys`; 0 for a child not within), and the mask of the
    /// used children but slot `skip` (none when it is [`WIDTH`]) whose
    /// bound is at most `limit`.
    fn point_node(self, n: &Node, p: Vec3, limit: f32, skip: usize) -> (Self::Keys, u32);
    /// The used slot of node `n` the dive takes from `p` (none when no
    /// slot is used): the least estimate of the distance to the nearest
    /// triangle inside ([`dive_keys`]).
    fn dive_slot(self, n: &Node, p: Vec3) -> Option<usize>;
    /// The sort keys of the lanes whose `bounds` are at most `limit`
    /// (`slab::keys`), sorted descending (those not within, 0, last),
    /// and how many are within.
    fn lane_order(self, bounds: &[f32; LANES], limit: f32) -> ([u32; LANES], usize);
    /// The link of the nearest of `mask`'s children (at least one) by
    /// their `keys`; the others pushed on `stack`, farthest first.
    #[inline(always)]
    fn push_order<const N: usize>(
        self,
        keys: Self::Keys,
        child: &[u32; WIDTH],
        mask: u32,
        stack: &mut NodeStack<N>,
    ) -> u32 {
        let first = mask.trailing_zeros() as usize & (WIDTH - 1);
        let rest = mask & (mask - 1);
        if rest == 0 {
            return child[first];
        }
        if rest & (rest - 1) == 0 {
            let second = rest.trailing_zeros() as usize & (WIDTH - 1);
            let (a, b) = (self.key(keys, first), self.key(keys, second));
            let (near, far) = (a.min(b), a.max(b));
            stack.push(far, child[(far & LANE_BITS) as usize]);
            return child[(near & LANE_BITS) as usize];
        }
        stack.push_sorted(self, keys, child, mask);
        child[(self.nearest(keys) & LANE_BITS) as usize]
    }
}

impl PointKernel for Portable {
    const STARTS: &'static [usize] = &[0, 4];

    #[inline(always)]
    fn point_node(self, n: &Node, p: Vec3, limit: f32, skip: usize) -> ([u32; WIDTH], u32) {
        let mut t = [0.0; WIDTH];
        let mut mask = 0;
        for at in [0, 4] {
            let row = |i: usize| Vec4::from_slice(&n.bounds[i][at..at + 4]);
            let d2 =
                (gap2(row(0), row(3), p.x) + gap2(row(1), row(4), p.y)) + gap2(row(2), row(5), p.z);
            let d2 = d2 * SHRINK;
            let within = d2.cmple(Vec4::splat(limit)) & row(0).cmple(row(3));
            mask |= within.bitmask() << at;
            d2.write_to_slice(&mut t[at..at + 4]);
        }
        let mask = mask & !(1 << skip);
        (keys(&t, mask), mask)
    }

    #[inline(always)]
    fn dive_slot(self, n: &Node, p: Vec3) -> Option<usize> {
        let mut best = u32::MAX;
        for at in [0, 4] {
            let row = |i: usize| Vec4::from_slice(&n.bounds[i][at..at + 4]);
            let est = dive_keys([0, 1, 2].map(row), [3, 4, 5].map(row), p);
            let used = row(0).cmple(row(3));
            for (lane, e) in est.into_iter().enumerate() {
                if used.test(lane) {
                    best = best.min((e & !LANE_BITS) | (at + lane) as u32);
                }
            }
        }
        (best != u32::MAX).then_some((best & LANE_BITS) as usize)
    }

    #[inline(always)]
    fn lane_order(self, bounds: &[f32; LANES], limit: f32) -> ([u32; LANES], usize) {
        let mask = (0..LANES).fold(0, |m, l| m | u32::from(bounds[l] <= limit) << l);
        (
            sort_descending(keys(bounds, mask)),
            mask.count_ones() as usize,
        )
    }

    #[inline(always)]
    fn push_order<const N: usize>(
        self,
        keys: [u32; WIDTH],
        child: &[u32; WIDTH],
        mask: u32,
        stack: &mut NodeStack<N>,
    ) -> u32 {
        let first = mask.trailing_zeros() as usize & (WIDTH - 1);
        let rest = mask & (mask - 1);
        if rest == 0 {
            return child[first];
        }
        let sorted = sort_descending(keys);
        let entered = mask.count_ones() as usize;
        for &key in &sorted[..entered - 1] {
            stack.push(key, child[(key & LANE_BITS) as usize]);
        }
        child[(sorted[(entered - 1) & (WIDTH - 1)] & LANE_BITS) as usize]
    }
}

/// Per lane, the dive's order of a box lo..hi from `p` as u32 keys (a
/// heuristic: answers do not depend on it): boxes that hold p first, by
/// the least over the axes of the squared distance to the nearer face's
/// plane plus the squared distances to the farther faces' planes along
/// the other two (a box of exact f32 corners touches a triangle on every
/// face, so in exact arithmetic no triangle inside is farther:
/// Roussopoulos et al.'s MINMAXDIST); then the others by their squared
/// distance. Each halved to 31 bits; the lowest three bits are the slot's.
/// The eight-lane form (`point_avx`) computes the same operations.
#[inline(always)]
pub fn dive_keys(lo: [Vec4; 3], hi: [Vec4; 3], p: Vec3) -> [u32; 4] {
    let mut far = [Vec4::ZERO; 3];
    let mut gain = [Vec4::ZERO; 3];
    let mut out = Vec4::ZERO;
    for k in 0..3 {
        let x = Vec4::splat(p[k]);
        let (a, b) = (lo[k] - x, x - hi[k]);
        let g = a.max(b).max(Vec4::ZERO);
        out += g * g;
        let (a2, b2) = (a * a, b * b);
        far[k] = a2.max(b2);
        gain[k] = a2.min(b2) - far[k];
    }
    let sum = (far[0] + far[1]) + far[2];
    let inside = (sum + gain[0].min(gain[1]).min(gain[2])).max(Vec4::ZERO);
    std::array::from_fn(|i| {
        if out[i] > 0.0 {
            0x8000_0000 | out[i].to_bits() >> 1
        } else {
            inside[i].to_bits() >> 1
        }
    })
}

/// The squared gap of `x` outside [lo, hi] per lane.
#[inline(always)]
pub fn gap2(lo: Vec4, hi: Vec4, x: f32) -> Vec4 {
    let x = Vec4::splat(x);
    let g = (lo - x).max(x - hi).max(Vec4::ZERO);
    g * g
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
pub fn sort_descending(mut k: [u32; WIDTH]) -> [u32; WIDTH] {
    for (i, j) in NETWORK {
        let (a, b) = (k[i], k[j]);
        k[i] = a.max(b);
        k[j] = a.min(b);
    }
    k
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
