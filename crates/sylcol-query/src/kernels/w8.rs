//! Eight f32 lanes in one AVX register: the [`Lanes`] of the eight-wide
//! ray/packet kernel ([`super::avx::Avx`]).
//!
//! A [`W8`] is made only by [`Lanes::splat`] and [`Lanes::load`], which
//! take an [`Avx2`]; an [`M8`] only by comparing two `W8`. Their fields are
//! private to this module, and neither has any other constructor (no
//! `Default`, no conversion). So a value of either exists only on a CPU
//! with AVX and AVX2, and each operation below, an AVX intrinsic on such
//! values, is sound wherever it is called: that is the `SAFETY:` argument
//! of every block here ("the `W8` invariant"). Where the callers are
//! compiled with `#[target_feature(enable = "avx,avx2")]` (the AVX walks)
//! the intrinsics inline into them.

use std::arch::x86_64::*;
use std::ops::{BitAnd, BitOr};

use super::cpu::Avx2;
use super::lanes::Lanes;
use super::packet::LANES;

/// Eight f32 lanes in one AVX register. Exists only where the CPU has
/// AVX and AVX2 (module notes).
#[derive(Debug, Clone, Copy)]
pub struct W8(__m256);

/// A per-lane condition of [`W8`]: all ones or all zeros. Exists only
/// where the CPU has AVX and AVX2 (module notes).
#[derive(Debug, Clone, Copy)]
pub struct M8(__m256);

impl BitAnd for M8 {
    type Output = M8;
    #[inline(always)]
    fn bitand(self, b: M8) -> M8 {
        // SAFETY: the `W8` invariant (an `M8` exists only with AVX).
        M8(unsafe { _mm256_and_ps(self.0, b.0) })
    }
}

impl BitOr for M8 {
    type Output = M8;
    #[inline(always)]
    fn bitor(self, b: M8) -> M8 {
        // SAFETY: the `W8` invariant (an `M8` exists only with AVX).
        M8(unsafe { _mm256_or_ps(self.0, b.0) })
    }
}

impl Lanes for W8 {
    type Token = Avx2;
    type Mask = M8;
    #[inline(always)]
    fn splat(_: Avx2, x: f32) -> Self {
        // SAFETY: the `Avx2` in hand proves the CPU has AVX.
        W8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn load(_: Avx2, row: &[f32; LANES], at: usize) -> Self {
        debug_assert_eq!(at, 0);
        // SAFETY: the `Avx2` in hand proves the CPU has AVX; a row is
        // eight f32 at a 32-byte boundary (a packet is align(32) and
        // every row a multiple of 32 bytes in).
        W8(unsafe { _mm256_load_ps(row.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32; LANES], _at: usize) {
        // SAFETY: the `W8` invariant; `out` holds eight f32 (an unaligned
        // store).
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_add_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_sub_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_mul_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_div_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_min_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_max_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn sign_of(self, s: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_xor_ps(self.0, _mm256_and_ps(s.0, _mm256_set1_ps(-0.0))) })
    }
    #[inline(always)]
    fn ge(self, b: Self) -> M8 {
        // SAFETY: the `W8` invariant.
        M8(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn gt(self, b: Self) -> M8 {
        // SAFETY: the `W8` invariant.
        M8(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn le(self, b: Self) -> M8 {
        // SAFETY: the `W8` invariant.
        M8(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn lt(self, b: Self) -> M8 {
        // SAFETY: the `W8` invariant.
        M8(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, b.0) })
    }
    #[inline(always)]
    fn and_not(a: M8, b: M8) -> M8 {
        // SAFETY: the `W8` invariant.
        M8(unsafe { _mm256_andnot_ps(a.0, b.0) })
    }
    #[inline(always)]
    fn select(m: M8, if_true: Self, if_false: Self) -> Self {
        // SAFETY: the `W8` invariant.
        W8(unsafe { _mm256_blendv_ps(if_false.0, if_true.0, m.0) })
    }
    #[inline(always)]
    fn bits(m: M8) -> u32 {
        // SAFETY: the `W8` invariant.
        (unsafe { _mm256_movemask_ps(m.0) }) as u32
    }
}
