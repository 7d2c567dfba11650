//! The BVH's node step on AVX2: the slab test of a node's eight children
//! in one register per plane, and the order of the children entered by a
//! sorting network instead of a loop with a branch per child.
//!
//! Every function here may only run where AVX and AVX2 are there; each
//! caller is compiled with `#[target_feature(enable = "avx,avx2")]`
//! (`bvh_walk`). The answers are those of the portable code in
//! `bvh_walk`: the same IEEE operations lane by lane, the same keys.

use std::arch::x86_64::*;

use super::bvh::{Node, WIDTH};
use super::bvh_walk::{BoxRay, ENTERED, LANE_BITS, SLACK_ULPS, TINY};

/// The slab test of node `n`'s eight children against `r` for t in
/// [0, `reach`] (the best hit's t grown by `EPS`): each child's sort key (`bvh_walk::keys`: entered ones
/// `ENTERED | t bits above | lane`, the others 0) and the mask of those
/// entered. `BITS` (a `BoxRay::finite` ray only): the values compared as
/// integers (`bvh_walk`'s module notes).
#[inline(always)]
pub fn node_keys<const BITS: bool>(r: &BoxRay, n: &Node, reach: f32) -> (__m256i, u32) {
    if BITS {
        return node_keys_bits(r, n, reach);
    }
    // SAFETY: AVX and AVX2 are there (module notes).
    unsafe {
        let mut near = _mm256_setzero_ps();
        let mut far = _mm256_set1_ps(reach);
        for k in 0..3 {
            let (t0, t1) = slab(r, n, k);
            // vmaxps / vminps return their second operand where either is
            // NaN: the accumulator (`BoxLanes` in `bvh_walk`).
            near = _mm256_max_ps(t0, near);
            far = _mm256_min_ps(t1, far);
        }
        let far = _mm256_add_ps(far, _mm256_set1_ps(TINY));
        let entered = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far));
        let keys = _mm256_and_si256(keys_of_entries(_mm256_castps_si256(near)), entered);
        (
            keys,
            _mm256_movemask_ps(_mm256_castsi256_ps(entered)) as u32,
        )
    }
}

/// The ray's parameters at the near and the far planes of axis `k` of
/// node `n`'s eight children (`bvh_walk`'s module notes).
#[inline(always)]
fn slab(r: &BoxRay, n: &Node, k: usize) -> (__m256, __m256) {
    // SAFETY: AVX (module notes); `k` < 3 and `neg` is 0 or 1, so both
    // rows exist; they are 32-byte aligned (a node is cache-line aligned
    // and each row 32 bytes).
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
fn node_keys_bits(r: &BoxRay, n: &Node, reach: f32) -> (__m256i, u32) {
    // SAFETY: as in `node_keys`.
    unsafe {
        let mut near = _mm256_setzero_si256();
        let mut far = _mm256_castps_si256(_mm256_set1_ps(reach));
        for k in 0..3 {
            let (t0, t1) = slab(r, n, k);
            near = _mm256_max_epi32(_mm256_castps_si256(t0), near);
            far = _mm256_min_epi32(_mm256_castps_si256(t1), far);
        }
        // Entered: near <= far + SLACK_ULPS, that is far + SLACK_ULPS + 1
        // > near (no overflow: far is at most +inf's bits), so the mask
        // comes out as it is used, with no inversion on the chain.
        let far = _mm256_add_epi32(far, _mm256_set1_epi32(SLACK_ULPS + 1));
        let entered = _mm256_cmpgt_epi32(far, near);
        let keys = _mm256_and_si256(entered, keys_of_entries(near));
        (
            keys,
            _mm256_movemask_ps(_mm256_castsi256_ps(entered)) as u32,
        )
    }
}

/// The sort keys of eight entries (>= +0, as bits) were every child
/// entered: `ENTERED | t bits above | lane`.
#[inline(always)]
fn keys_of_entries(near: __m256i) -> __m256i {
    // SAFETY: AVX2 (module notes).
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
fn exchange<const IMM: i32>(v: __m256i, partner: __m256i) -> __m256i {
    // SAFETY: AVX2 (module notes).
    unsafe {
        let p = _mm256_permutevar8x32_epi32(v, partner);
        let (lo, hi) = (_mm256_min_epu32(v, p), _mm256_max_epu32(v, p));
        _mm256_blend_epi32::<IMM>(lo, hi)
    }
}

/// The eight keys sorted descending (unsigned), by a bitonic network of
/// six layers.
#[inline(always)]
pub fn sort_keys(v: __m256i) -> __m256i {
    // SAFETY: AVX2 (module notes).
    unsafe {
        let x1 = _mm256_setr_epi32(1, 0, 3, 2, 5, 4, 7, 6);
        let x2 = _mm256_setr_epi32(2, 3, 0, 1, 6, 7, 4, 5);
        let x4 = _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3);
        let v = exchange::<{ layer(2, 1) }>(v, x1);
        let v = exchange::<{ layer(4, 2) }>(v, x2);
        let v = exchange::<{ layer(4, 1) }>(v, x1);
        let v = exchange::<{ layer(8, 4) }>(v, x4);
        let v = exchange::<{ layer(8, 2) }>(v, x2);
        exchange::<{ layer(8, 1) }>(v, x1)
    }
}

/// Writes the keys sorted descending to `keys` and the links of their
/// children, in the same order, to `links` (eight each).
///
/// # Safety
/// `keys` and `links` must each have room for eight u32.
#[inline(always)]
pub unsafe fn push_sorted(
    unsorted: __m256i,
    child: &[u32; WIDTH],
    keys: *mut u32,
    links: *mut u32,
) {
    // SAFETY: AVX2 (module notes); the caller gives the room.
    unsafe {
        let sorted = sort_keys(unsorted);
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
pub fn nearest_key(keys: __m256i) -> u32 {
    // SAFETY: AVX2 (module notes).
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
pub fn key_of(keys: __m256i, lane: usize) -> u32 {
    let mut out = [0u32; WIDTH];
    // SAFETY: AVX (module notes); `out` holds eight u32.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), keys) };
    out[lane & (WIDTH - 1)]
}
