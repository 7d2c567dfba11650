//! The nearest-point node step on AVX2 ([`point_node`]): the bounds of a
//! node's eight child boxes in one register, the same IEEE operations
//! lane by lane as the portable step in `point` (so the same keys), and
//! the order of the children by `slab_avx`'s bitonic sort.
//!
//! Every function here takes an [`Avx2`], the proof that the CPU runs
//! AVX and AVX2, and each `unsafe` block names it; they are
//! `#[inline(always)]` for the walk compiled with
//! `#[target_feature(enable = "avx,avx2")]` (`index::bvh::near`).

use std::arch::x86_64::*;

use glam::Vec3;

use super::avx::Avx;
use super::avx512::Avx512Kernel;
use super::cpu::Avx2;
use super::kernel::Kernel;
use super::node::Node;
use super::packet::LANES;
use super::point::{PointKernel, SHRINK};
use super::slab::{ENTERED, LANE_BITS};
use super::slab_avx::sort_keys;

/// The sort keys of node `n`'s children by their bounds from `p` (those
/// not within `limit`, unused, or in slot `skip`, 0) and the mask of
/// those within (`point`'s module notes).
#[inline(always)]
pub fn point_node(avx: Avx2, n: &Node, p: Vec3, limit: f32, skip: usize) -> (__m256i, u32) {
    let row = |i: usize| -> *const f32 { n.bounds[i % 6].as_ptr() };
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2; each row is
    // eight f32 at a 32-byte boundary (a node is cache-line aligned and
    // each row 32 bytes), so the aligned loads read inside the node.
    unsafe {
        let zero = _mm256_setzero_ps();
        let gap2 = |k: usize, x: f32| {
            let x = _mm256_set1_ps(x);
            let (lo, hi) = (_mm256_load_ps(row(k)), _mm256_load_ps(row(k + 3)));
            let g = _mm256_max_ps(
                _mm256_max_ps(_mm256_sub_ps(lo, x), _mm256_sub_ps(x, hi)),
                zero,
            );
            _mm256_mul_ps(g, g)
        };
        let d2 = _mm256_add_ps(_mm256_add_ps(gap2(0, p.x), gap2(1, p.y)), gap2(2, p.z));
        let d2 = _mm256_mul_ps(d2, _mm256_set1_ps(SHRINK));
        let used = _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_load_ps(row(0)), _mm256_load_ps(row(3)));
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let skipped = _mm256_cmpeq_epi32(lanes, _mm256_set1_epi32(skip as i32));
        let used = _mm256_andnot_ps(_mm256_castsi256_ps(skipped), used);
        let within = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, _mm256_set1_ps(limit)), used);
        keys_within(avx, d2, within)
    }
}

/// The sort keys of eight bounds `d2` (`slab::keys`), 0 outside
/// `within`, and `within`'s mask.
#[inline(always)]
fn keys_within(_: Avx2, d2: __m256, within: __m256) -> (__m256i, u32) {
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2.
    unsafe {
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let keys = _mm256_or_si256(
            _mm256_and_si256(
                _mm256_castps_si256(d2),
                _mm256_set1_epi32(!LANE_BITS as i32),
            ),
            _mm256_or_si256(lanes, _mm256_set1_epi32(ENTERED as i32)),
        );
        (
            _mm256_and_si256(keys, _mm256_castps_si256(within)),
            _mm256_movemask_ps(within) as u32,
        )
    }
}

/// The sort keys of the lanes whose `bounds` are at most `limit`, sorted
/// descending (`slab_avx`'s bitonic network), and how many are within.
#[inline(always)]
pub fn lane_order(avx: Avx2, bounds: &[f32; LANES], limit: f32) -> ([u32; LANES], usize) {
    let mut out = [0u32; LANES];
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2; `bounds` and
    // `out` hold eight 32-bit values each (unaligned load and store).
    unsafe {
        let d2 = _mm256_loadu_ps(bounds.as_ptr());
        let within = _mm256_cmp_ps::<_CMP_LE_OQ>(d2, _mm256_set1_ps(limit));
        let (keys, mask) = keys_within(avx, d2, within);
        _mm256_storeu_si256(out.as_mut_ptr().cast(), sort_keys(avx, keys));
        (out, mask.count_ones() as usize)
    }
}

/// The used slot of node `n` the dive takes from `p` (`point::dive_keys`,
/// the same operations on eight lanes), none when no slot is used.
#[inline(always)]
pub fn dive_slot(_: Avx2, n: &Node, p: Vec3) -> Option<usize> {
    let row = |i: usize| -> *const f32 { n.bounds[i % 6].as_ptr() };
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2; each row is
    // eight f32 at a 32-byte boundary (as in `point_node`).
    let best = unsafe {
        let zero = _mm256_setzero_ps();
        let mut far = [zero; 3];
        let mut gain = [zero; 3];
        let mut out = zero;
        for k in 0..3 {
            let x = _mm256_set1_ps(p[k]);
            let a = _mm256_sub_ps(_mm256_load_ps(row(k)), x);
            let b = _mm256_sub_ps(x, _mm256_load_ps(row(k + 3)));
            let g = _mm256_max_ps(_mm256_max_ps(a, b), zero);
            out = _mm256_add_ps(out, _mm256_mul_ps(g, g));
            let (a2, b2) = (_mm256_mul_ps(a, a), _mm256_mul_ps(b, b));
            far[k] = _mm256_max_ps(a2, b2);
            gain[k] = _mm256_sub_ps(_mm256_min_ps(a2, b2), far[k]);
        }
        let sum = _mm256_add_ps(_mm256_add_ps(far[0], far[1]), far[2]);
        let gain = _mm256_min_ps(_mm256_min_ps(gain[0], gain[1]), gain[2]);
        let inside = _mm256_max_ps(_mm256_add_ps(sum, gain), zero);
        let half = |v: __m256| _mm256_srli_epi32::<1>(_mm256_castps_si256(v));
        let outside = _mm256_cmp_ps::<_CMP_GT_OQ>(out, zero);
        let est = _mm256_blendv_epi8(
            half(inside),
            _mm256_or_si256(half(out), _mm256_set1_epi32(i32::MIN)),
            _mm256_castps_si256(outside),
        );
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let keys = _mm256_or_si256(
            _mm256_and_si256(est, _mm256_set1_epi32(!LANE_BITS as i32)),
            lanes,
        );
        let used = _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_load_ps(row(0)), _mm256_load_ps(row(3)));
        let v = _mm256_blendv_epi8(_mm256_set1_epi32(-1), keys, _mm256_castps_si256(used));
        let v = _mm256_min_epu32(v, _mm256_permute4x64_epi64::<0x4E>(v));
        let v = _mm256_min_epu32(v, _mm256_shuffle_epi32::<0x4E>(v));
        let v = _mm256_min_epu32(v, _mm256_shuffle_epi32::<0xB1>(v));
        _mm256_cvtsi256_si32(v) as u32
    };
    (best != u32::MAX).then_some((best & LANE_BITS) as usize)
}

/// Defines [`PointKernel`] for an eight-lane kernel (its token is the
/// [`Avx2`] proof).
macro_rules! eight_lane_point_kernel {
    ($kernel:ty) => {
        impl PointKernel for $kernel {
            const STARTS: &'static [usize] = &[0];

            #[inline(always)]
            fn point_node(self, n: &Node, p: Vec3, limit: f32, skip: usize) -> (__m256i, u32) {
                point_node(self.token(), n, p, limit, skip)
            }

            #[inline(always)]
            fn dive_slot(self, n: &Node, p: Vec3) -> Option<usize> {
                dive_slot(self.token(), n, p)
            }

            #[inline(always)]
            fn lane_order(self, bounds: &[f32; LANES], limit: f32) -> ([u32; LANES], usize) {
                lane_order(self.token(), bounds, limit)
            }
        }
    };
}

eight_lane_point_kernel!(Avx);
eight_lane_point_kernel!(Avx512Kernel);

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::kernels::cpu::avx2_if_tested;
    use crate::kernels::kernel::Portable;
    use crate::kernels::node::WIDTH;
    use crate::kernels::slab::BoxKernel;

    /// A node of random boxes (some slots unused) around the origin.
    fn node(rng: &mut ChaCha8Rng) -> Node {
        let mut n = Node::empty();
        for slot in 0..WIDTH {
            if rng.random_range(0..4) == 0 {
                continue;
            }
            for k in 0..3 {
                let (a, b) = (rng.random_range(-10.0..10.0), rng.random_range(-10.0..10.0));
                n.bounds[k][slot] = f32::min(a, b);
                n.bounds[k + 3][slot] = f32::max(a, b);
            }
            n.child[slot] = slot as u32;
        }
        n
    }

    /// The eight-lane node step and lane order give the portable ones'
    /// keys and masks, bit for bit.
    #[test]
    #[cfg_attr(not(avx2_tests), ignore = "this CPU has no AVX2")]
    fn the_avx2_point_steps_are_the_portable_ones() {
        let Some(avx) = avx2_if_tested() else {
            return;
        };
        let k = Avx::new(avx);
        let mut rng = ChaCha8Rng::seed_from_u64(38);
        for _ in 0..2_000 {
            let n = node(&mut rng);
            let p = Vec3::from_array(std::array::from_fn(|_| rng.random_range(-12.0..12.0)));
            let limit = [f32::INFINITY, rng.random_range(0.0..200.0), 0.0][rng.random_range(0..3)];
            let skip = rng.random_range(0..=WIDTH);
            assert_eq!(k.dive_slot(&n, p), Portable.dive_slot(&n, p));
            let (want, mask) = Portable.point_node(&n, p, limit, skip);
            let (got, got_mask) = k.point_node(&n, p, limit, skip);
            assert_eq!((k.keys_array(got), got_mask), (want, mask));
            let bounds: [f32; LANES] = std::array::from_fn(|_| match rng.random_range(0..4) {
                0 => f32::INFINITY,
                _ => rng.random_range(0.0..100.0),
            });
            assert_eq!(
                k.lane_order(&bounds, limit),
                Portable.lane_order(&bounds, limit)
            );
        }
    }
}
