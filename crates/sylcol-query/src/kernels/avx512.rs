//! The eight-lane kernel compiled for AVX-512 (F, BW, DQ, VL):
//! [`Avx512Kernel`], with the proof that the CPU runs it.
//!
//! Its code is the AVX2 kernel's (`avx`'s `eight_lane_kernel!`, the node
//! step of `slab_avx`): the same intrinsics, so the same IEEE operations
//! and the same answers, compiled in functions with AVX-512 enabled. The
//! compiler may then encode them with EVEX, keep masks in mask registers
//! and use thirty-two vector registers. `Kernels::widest` keeps the AVX2
//! kernel the default (`benches/queries.md`: measured only where a CPU
//! with AVX-512 was at hand); `Collider::with_kernel_path` chooses this
//! one.

use super::cpu::Avx512;

/// The eight-lane kernel compiled for AVX-512, with the proof that the
/// CPU runs it.
#[derive(Debug, Clone, Copy)]
pub struct Avx512Kernel(pub(super) Avx512);

impl Avx512Kernel {
    /// The kernel, on a CPU that `p` proves runs it.
    #[inline(always)]
    pub fn new(p: Avx512) -> Self {
        Avx512Kernel(p)
    }
}
