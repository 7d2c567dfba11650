//! The CPU features the AVX2 kernels need, proven once at run time and
//! carried by a value from then on.
//!
//! [`Avx2`] can only be made by [`Avx2::detect`], which checks the CPU
//! (`is_x86_feature_detected!` for AVX and AVX2; the kernels use no fused
//! multiply-add). Every AVX2 kernel takes one: the eight-lane ray/packet
//! test ([`super::avx::Avx`] holds one), the lanes it computes in
//! ([`super::w8::W8`] is made only with one), the AVX2 grid walk and the
//! BVH's node step. So the only way to reach an AVX instruction is
//! through a value that proves the CPU has it; each `unsafe` call into
//! `#[target_feature(enable = "avx,avx2")]` code names that value in its
//! `SAFETY:` comment. On any other CPU (an ARM one, an x86 without AVX2)
//! no `Avx2` exists and every query takes the portable kernels.

/// Proof that this CPU runs AVX and AVX2 instructions: made only by
/// [`Avx2::detect`], so holding one means the check passed. A zero-sized
/// value: passing it costs nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// The proof, where this CPU has AVX and AVX2; `None` elsewhere.
    pub fn detect() -> Option<Avx2> {
        avx_available().then_some(Avx2(()))
    }
}

/// Proof that this CPU runs AVX-512 F, BW, DQ and VL instructions (and
/// AVX and AVX2 with them): made only by [`Avx512::detect`]. The AVX-512
/// kernels ([`super::avx512::Avx512Kernel`], the lanes
/// [`super::w8k::W8k`]) take one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx512(Avx2);

impl Avx512 {
    /// The proof, where this CPU has AVX-512 F, BW, DQ and VL (and AVX2);
    /// `None` elsewhere.
    pub fn detect() -> Option<Avx512> {
        let avx2 = Avx2::detect()?;
        avx512_available().then_some(Avx512(avx2))
    }

    /// The proof of AVX and AVX2 this one holds.
    #[inline(always)]
    pub fn avx2(self) -> Avx2 {
        self.0
    }
}

/// Whether this CPU has AVX-512 F, BW, DQ and VL.
pub fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the eight-lane AVX kernels (and the AVX2 walks) can run on
/// this CPU.
pub fn avx_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The proof for a test of the AVX2 kernels. Such a test is ignored, with
/// the reason, where the build found no AVX2 on its CPU (`build.rs` sets
/// `avx2_tests` only where it did), so reaching this without AVX2 means
/// the tests run on another CPU than the build's: said, not passed.
#[cfg(test)]
pub fn avx2_for_tests() -> Avx2 {
    Avx2::detect().expect(
        "this CPU has no AVX2, though the build's did (build.rs): run the tests where they were built",
    )
}

/// The proof for a test that runs both kernels side by side: `Some` where
/// the build found AVX2 (then it must be here), `None` elsewhere, where
/// such a test runs its portable half only and
/// [`tests::avx2_halves_of_the_kernel_tests_run`] is ignored, with the
/// reason, to say so.
#[cfg(test)]
pub fn avx2_if_tested() -> Option<Avx2> {
    cfg!(avx2_tests).then(avx2_for_tests)
}

/// The kernels the tests run side by side: the portable ones, the AVX2
/// ones where the build found AVX2 ([`avx2_if_tested`]), the AVX-512 ones
/// where it found AVX-512 (`build.rs` sets `avx512_tests`; then this CPU
/// must have it too). Where a path is missing, the tests
/// `tests::avx2_halves_of_the_kernel_tests_run` and
/// `tests::avx512_paths_of_the_kernel_tests_run` are ignored with the
/// reason, to say so.
#[cfg(test)]
pub fn kernels_tested() -> Vec<super::dispatch::Kernels> {
    use super::dispatch::Kernels;
    let mut out = vec![Kernels::Portable];
    #[cfg(target_arch = "x86_64")]
    {
        out.extend(avx2_if_tested().map(Kernels::Avx2));
        if cfg!(avx512_tests) {
            let p = Avx512::detect().expect(
                "this CPU has no AVX-512, though the build's did (build.rs): run the tests where they were built",
            );
            out.push(Kernels::Avx512(p));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// Stands for the AVX2 halves of the tests that run both kernels
    /// ([`super::avx2_if_tested`]): ignored, with the reason, where they
    /// cannot run.
    #[test]
    #[cfg_attr(
        not(avx2_tests),
        ignore = "this CPU has no AVX2: the AVX2 halves of the kernel tests did not run"
    )]
    fn avx2_halves_of_the_kernel_tests_run() {
        assert!(super::Avx2::detect().is_some());
    }

    /// Stands for the AVX-512 paths of the tests that run every kernel
    /// ([`super::kernels_tested`]): ignored, with the reason, where they
    /// cannot run.
    #[test]
    #[cfg_attr(
        not(avx512_tests),
        ignore = "this CPU has no AVX-512 (F, BW, DQ, VL): the AVX-512 paths of the kernel tests did not run"
    )]
    fn avx512_paths_of_the_kernel_tests_run() {
        assert!(super::Avx512::detect().is_some());
    }
}
