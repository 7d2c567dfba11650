//! The BVH's node step on AVX2: the slab test of a node's eight children
//! in one register per plane, and the order of the children entered by a
//! sorting network instead of a loop with a branch per child.
//!
//! Every function here takes an [`Avx2`], the proof that the CPU runs
//! AVX and AVX2 ([`Avx`] holds one), and each `unsafe` block names it;
//! they are `#[inline(always)]` for the walk compiled with
//! `#[target_feature(enable = "avx,avx2")]` (`index::bvh::walk`). The
//! answers are those of the portable code in `slab`: the same IEEE
//! operations lane by lane, the same keys.

use std::arch::x86_64::*;

use super::avx::Avx;
use super::avx512::Avx512Kernel;
use super::cpu::Avx2;
use super::kernel::Kernel;
use super::node::{Node, WIDTH};
use super::slab::{BoxKernel, BoxRay, ENTERED, LANE_BITS, SLACK_ULPS, TINY};

/// The slab test of node `n`'s eight children against `r` for t in
/// [0, `reach`] (the best hit's t grown by `EPS`): each child's sort key (`slab::keys`: entered ones
/// `ENTERED | t bits above | lane`, the others 0) and the mask of those
/// entered. `BITS` (a `BoxRay::finite` ray only): the values compared as
/// integers (`slab`'s module notes).
#[inline(always)]
pub fn node_keys<const BITS: bool>(avx: Avx2, r: &BoxRay, n: &Node, reach: f32) -> (__m256i, u32) {
    if BITS {
        return node_keys_bits(avx, r, n, reach);
    }
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2.
    unsafe {
        let mut near = _mm256_setzero_ps();
        let mut far = _mm256_set1_ps(reach);
        for k in 0..3 {
            let (t0, t1) = slab(avx, r, n, k);
            // vmaxps / vminps return their second operand where either is
            // NaN: the accumulator (as `boxes4` in `slab`).
            near = _mm256_max_ps(t0, near);
            far = _mm256_min_ps(t1, far);
        }
        let far = _mm256_add_ps(far, _mm256_set1_ps(TINY));
        let entered = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far));
        let keys = _mm256_and_si256(keys_of_entries(avx, _mm256_castps_si256(near)), entered);
        (
            keys,
            _mm256_movemask_ps(_mm256_castsi256_ps(entered)) as u32,
        )
    }
}

/// The ray's parameters at the near and the far planes of axis `k` of
/// node `n`'s eight children (`slab`'s module notes).
#[inline(always)]
fn slab(_: Avx2, r: &BoxRay, n: &Node, k: usize) -> (__m256, __m256) {
    // SAFETY: the `Avx2` proves the CPU has AVX; `k` < 3 and `neg` is 0
    // or 1, so both rows exist; they are 32-byte aligned (a node is
    // cache-line aligned and each row 32 bytes).
    unsafe {
        let o = _mm256_set1_ps(r.o[k]);
        let near_inv = _mm256_set1_ps(r.near_inv[k]);
        let far_inv = _mm256_set1_ps(r.far_inv[k]);
        let neg = r.neg[k] & 1;
        let lo = n.bounds.get_unchecked(k + 3 * neg).as_ptr();
        let hi = n.bounds.get_unchecked(k + 3 * (neg ^ 1)).as_ptr();
        let t0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(lo), o), near_inv);
        let t1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(hi), o), far_inv);
        (t0, t1)
    }
}

/// [`node_keys`] with the values compared as signed integers (one cycle
/// each where the float maximum, minimum and comparison take four).
#[inline(always)]
fn node_keys_bits(avx: Avx2, r: &BoxRay, n: &Node, reach: f32) -> (__m256i, u32) {
    // SAFETY: the `Avx2` proves the CPU has AVX and AVX2.
    unsafe {
        let mut near = _mm256_setzero_si256();
        let mut far = _mm256_castps_si256(_mm256_set1_ps(reach));
        for k in 0..3 {
            let (t0, t1) = slab(avx, r, n, k);
            near = _mm256_max_epi32(_mm256_castps_si256(t0), near);
            far = _mm256_min_epi32(_mm256_castps_si256(t1), far);
        }
        // Entered: near <= far + SLACK_ULPS, that is far + SLACK_ULPS + 1
        // > near (no overflow: far is at most +inf's bits), so the mask
        // comes out as it is used, with no inversion on the chain.
        let far = _mm256_add_epi32(far, _mm256_set1_epi32(SLACK_ULPS + 1));
        let entered = _mm256_cmpgt_epi32(far, near);
        let keys = _mm256_and_si256(entered, keys_of_entries(avx, near));
        (
            keys,
            _mm256_movemask_ps(_mm256_castsi256_ps(entered)) as u32,
        )
    }
}

/// The sort keys of eight entries (>= +0, as bits) were every child
/// entered: `ENTERED | t bits above | lane`.
#[inline(always)]
fn keys_of_entries(_: Avx2, near: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the CPU has AVX2.
    unsafe {
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        _mm256_or_si256(
            _mm256_and_si256(near, _mm256_set1_epi32(!LANE_BITS as i32)),
            _mm256_or_si256(lanes, _mm256_set1_epi32(ENTERED as i32)),
        )
    }
}

/// The blend mask of one layer of the bitonic network (blocks of `k`,
/// pairs `j` apart): bit i set where lane i keeps the larger of its pair,
/// so that the whole sorts descending.
const fn layer(k: usize, j: usize) -> i32 {
    let mut imm = 0;
    let mut i = 0;
    while i < WIDTH {
        let descending = i & k == 0;
        let lower = i & j == 0;
        if lower == descending {
            imm |= 1 << i;
        }
        i += 1;
    }
    imm
}

/// One layer: each lane against lane `i ^ j`.
#[inline(always)]
fn exchange<const IMM: i32>(_: Avx2, v: __m256i, partner: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the CPU has AVX2.
    unsafe {
        let p = _mm256_permutevar8x32_epi32(v, partner);
        let (lo, hi) = (_mm256_min_epu32(v, p), _mm256_max_epu32(v, p));
        _mm256_blend_epi32::<IMM>(lo, hi)
    }
}

/// The eight keys sorted descending (unsigned), by a bitonic network of
/// six layers.
#[inline(always)]
pub fn sort_keys(avx: Avx2, v: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the CPU has AVX.
    let [x1, x2, x4] = unsafe {
        [
            _mm256_setr_epi32(1, 0, 3, 2, 5, 4, 7, 6),
            _mm256_setr_epi32(2, 3, 0, 1, 6, 7, 4, 5),
            _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3),
        ]
    };
    let v = exchange::<{ layer(2, 1) }>(avx, v, x1);
    let v = exchange::<{ layer(4, 2) }>(avx, v, x2);
    let v = exchange::<{ layer(4, 1) }>(avx, v, x1);
    let v = exchange::<{ layer(8, 4) }>(avx, v, x4);
    let v = exchange::<{ layer(8, 2) }>(avx, v, x2);
    exchange::<{ layer(8, 1) }>(avx, v, x1)
}

/// Writes the keys sorted descending to `keys` and the links of their
/// children, in the same order, to `links` (eight each).
///
/// # Safety
/// `keys` and `links` must each be valid for writes of eight u32.
#[inline(always)]
pub unsafe fn push_sorted(
    avx: Avx2,
    unsorted: __m256i,
    child: &[u32; WIDTH],
    keys: *mut u32,
    links: *mut u32,
) {
    let sorted = sort_keys(avx, unsorted);
    // SAFETY: the `Avx2` proves the CPU has AVX2; `child` holds eight
    // u32 (an unaligned load), and the caller gives the room the stores
    // write.
    unsafe {
        let lane = _mm256_and_si256(sorted, _mm256_set1_epi32(LANE_BITS as i32));
        let child = _mm256_loadu_si256(child.as_ptr().cast());
        let linked = _mm256_permutevar8x32_epi32(child, lane);
        _mm256_storeu_si256(keys.cast(), sorted);
        _mm256_storeu_si256(links.cast(), linked);
    }
}

/// The smallest key of an entered child (keys not entered are 0): the
/// nearest child, found in the register by three halving minima (about
/// eight cycles) instead of through the sorted keys written to the stack
/// and read back (about thirty), so the next node's load starts sooner
/// while the sort and the pushes finish beside it.
#[inline(always)]
pub fn nearest_key(_: Avx2, keys: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the CPU has AVX2.
    unsafe {
        // Minus one: 0 (not entered) wraps to the largest key, entered
        // keys (>= ENTERED) keep their order.
        let v = _mm256_add_epi32(keys, _mm256_set1_epi32(-1));
        let v = _mm256_min_epu32(v, _mm256_permute4x64_epi64::<0x4E>(v));
        let v = _mm256_min_epu32(v, _mm256_shuffle_epi32::<0x4E>(v));
        let v = _mm256_min_epu32(v, _mm256_shuffle_epi32::<0xB1>(v));
        (_mm256_cvtsi256_si32(v) as u32).wrapping_add(1)
    }
}

/// The key of lane `lane` of `keys`.
#[inline(always)]
pub fn key_of(_: Avx2, keys: __m256i, lane: usize) -> u32 {
    let mut out = [0u32; WIDTH];
    // SAFETY: the `Avx2` proves the CPU has AVX; `out` holds eight u32
    // (an unaligned store).
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), keys) };
    out[lane & (WIDTH - 1)]
}

/// Defines [`BoxKernel`] for an eight-lane kernel (its token is the
/// [`Avx2`] proof): the node step of this module.
macro_rules! eight_lane_box_kernel {
    ($kernel:ty) => {
        impl BoxKernel for $kernel {
            type Keys = __m256i;

            #[inline(always)]
            fn node<const BITS: bool>(self, r: &BoxRay, n: &Node, reach: f32) -> (__m256i, u32) {
                node_keys::<BITS>(self.token(), r, n, reach)
            }

            #[inline(always)]
            fn key(self, keys: __m256i, lane: usize) -> u32 {
                key_of(self.token(), keys, lane)
            }

            #[inline(always)]
            fn nearest(self, keys: __m256i) -> u32 {
                nearest_key(self.token(), keys)
            }

            #[inline(always)]
            unsafe fn push_sorted(
                self,
                keys: __m256i,
                child: &[u32; WIDTH],
                keys_out: *mut u32,
                links_out: *mut u32,
            ) {
                // SAFETY: the caller gives the room (this function's contract).
                unsafe { push_sorted(self.token(), keys, child, keys_out, links_out) }
            }

            #[cfg(test)]
            fn keys_array(self, keys: __m256i) -> [u32; WIDTH] {
                let mut out = [0u32; WIDTH];
                // SAFETY: the token proves the CPU has AVX; `out` holds
                // eight u32 (an unaligned store).
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), keys) };
                out
            }

            #[cfg(test)]
            fn keys_from(self, keys: &[u32; WIDTH]) -> __m256i {
                let _ = self.token();
                // SAFETY: the token proves the CPU has AVX; `keys` holds
                // eight u32 (an unaligned load).
                unsafe { _mm256_loadu_si256(keys.as_ptr().cast()) }
            }
        }
    };
}

eight_lane_box_kernel!(Avx);
eight_lane_box_kernel!(Avx512Kernel);
