//! SIMD lanes of f32 for the ray/packet kernel: the operations it needs
//! ([`Lanes`]) and their four-lane form on glam's `Vec4`.

use std::ops::{BitAnd, BitOr, Not};

use glam::{BVec4A, Vec4};

use super::packet::LANES;

/// SIMD lanes of f32, as the kernel uses them: four (glam's `Vec4`) or
/// eight (AVX, [`super::w8::W8`]). Every operation is one IEEE operation
/// per lane.
///
/// Values are made only by [`Lanes::splat`] and [`Lanes::load`], which
/// take the lanes' [`Lanes::Token`]: for the AVX lanes an
/// [`Avx2`](super::cpu::Avx2), so that a value of them exists only on a
/// CPU that runs their instructions, and every other operation (on
/// values) inherits that proof.
pub trait Lanes: Copy {
    /// What making a value takes: nothing (`()`) for portable lanes, the
    /// proof of the CPU's features for the others.
    type Token: Copy + std::fmt::Debug;
    /// A per-lane condition.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask>;
    /// `x` in every lane.
    fn splat(token: Self::Token, x: f32) -> Self;
    /// Lanes `at..` of `row`.
    fn load(token: Self::Token, row: &[f32; LANES], at: usize) -> Self;
    /// Writes the lanes to `out[at..]`.
    fn store(self, out: &mut [f32; LANES], at: usize);
    /// `self + b`.
    fn add(self, b: Self) -> Self;
    /// `self - b`.
    fn sub(self, b: Self) -> Self;
    /// `self * b`.
    fn mul(self, b: Self) -> Self;
    /// `self / b`.
    fn div(self, b: Self) -> Self;
    /// The lane-wise minimum.
    fn min(self, b: Self) -> Self;
    /// The lane-wise maximum.
    fn max(self, b: Self) -> Self;
    /// `|self|`.
    fn abs(self) -> Self;
    /// `self` negated in the lanes where `s` is negative.
    fn sign_of(self, s: Self) -> Self;
    /// `self >= b` (false where either is NaN).
    fn ge(self, b: Self) -> Self::Mask;
    /// `self > b`.
    fn gt(self, b: Self) -> Self::Mask;
    /// `self <= b`.
    fn le(self, b: Self) -> Self::Mask;
    /// `self < b`.
    fn lt(self, b: Self) -> Self::Mask;
    /// `!a & b`.
    fn and_not(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// One bit per lane.
    fn bits(m: Self::Mask) -> u32;
    /// `if_true` in the lanes where `m` holds, `if_false` elsewhere.
    fn select(m: Self::Mask, if_true: Self, if_false: Self) -> Self;
}

/// Four lanes through glam (SSE2 on x86_64, scalar elsewhere): anywhere.
impl Lanes for Vec4 {
    type Token = ();
    type Mask = BVec4A;
    #[inline(always)]
    fn splat((): (), x: f32) -> Self {
        Vec4::splat(x)
    }
    #[inline(always)]
    fn load((): (), row: &[f32; LANES], at: usize) -> Self {
        Vec4::from_slice(&row[at..at + 4])
    }
    #[inline(always)]
    fn store(self, out: &mut [f32; LANES], at: usize) {
        self.write_to_slice(&mut out[at..at + 4]);
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self + b
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self - b
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        self * b
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        self / b
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        Vec4::min(self, b)
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        Vec4::max(self, b)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn sign_of(self, s: Self) -> Self {
        // Multiplying by +-1 is exact: the AVX kernel's sign-bit flip.
        self * Vec4::ONE.copysign(s)
    }
    #[inline(always)]
    fn ge(self, b: Self) -> BVec4A {
        self.cmpge(b)
    }
    #[inline(always)]
    fn gt(self, b: Self) -> BVec4A {
        self.cmpgt(b)
    }
    #[inline(always)]
    fn le(self, b: Self) -> BVec4A {
        self.cmple(b)
    }
    #[inline(always)]
    fn lt(self, b: Self) -> BVec4A {
        self.cmplt(b)
    }
    #[inline(always)]
    fn and_not(a: BVec4A, b: BVec4A) -> BVec4A {
        a.not() & b
    }
    #[inline(always)]
    fn select(m: BVec4A, if_true: Self, if_false: Self) -> Self {
        Vec4::select(m, if_true, if_false)
    }
    #[inline(always)]
    fn bits(m: BVec4A) -> u32 {
        m.bitmask()
    }
}
