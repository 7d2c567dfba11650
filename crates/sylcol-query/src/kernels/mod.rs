//! The second floor: the kernels, the only `unsafe` code of sylcol.
//!
//! What the indexes run their queries through: the ray/packet test
//! (watertight, exact where its error bounds cannot decide:
//! [`ray_triangle`], [`exact`]), the DDA of a ray through a uniform grid
//! ([`dda`]), a ray against a BVH node's eight boxes ([`slab`]), each in a
//! portable form and an AVX2 one ([`avx`], [`w8`], [`dda_avx`],
//! [`slab_avx`]), over the data layouts they read ([`packet`], [`node`]);
//! and the per-thread mailbox the point and sphere queries mark triangles
//! in ([`mailbox`]).
//!
//! The AVX2 forms are safe by their types: each takes an
//! [`Avx2`](cpu::Avx2), which only [`Avx2::detect`](cpu::Avx2::detect)
//! makes, after the CPU check. A kernel is a value ([`kernel::Kernel`]):
//! the AVX one holds the proof, the portable one needs none. Every
//! `unsafe` block says why it holds (`SAFETY:`), every `unsafe fn` what
//! its caller must ensure (`# Safety`).

pub mod cpu;
pub mod dda;
pub mod exact;
pub mod kernel;
pub mod lanes;
pub mod mailbox;
pub mod node;
pub mod packet;
pub mod ray_triangle;
pub mod slab;

#[cfg(target_arch = "x86_64")]
pub mod avx;
#[cfg(target_arch = "x86_64")]
pub mod dda_avx;
#[cfg(target_arch = "x86_64")]
pub mod slab_avx;
#[cfg(target_arch = "x86_64")]
pub mod w8;

#[cfg(test)]
mod tests;
