//! The second floor: the kernels, the only `unsafe` code of sylcol.
//!
//! What the indexes run their queries through: the ray/packet test
//! (watertight, exact where its error bounds cannot decide:
//! [`ray_triangle`], [`exact`]), the DDA of a ray through a uniform grid
//! ([`dda`]), a ray against a BVH node's eight boxes ([`slab`]), each in a
//! portable form and an eight-lane one, compiled for AVX2 or for AVX-512
//! ([`avx`], [`avx512`], [`w8`], [`dda_avx`], [`slab_avx`]), over the
//! data layouts they read ([`packet`], [`node`]); the BVH walk's stack
//! and cache hints ([`stack`]); the entry into code compiled for a
//! kernel ([`dispatch`]); and the per-thread mailbox the point and sphere
//! queries mark triangles in ([`mailbox`]).
//!
//! The wide forms are safe by their types: each takes an
//! [`Avx2`](cpu::Avx2) or an [`Avx512`](cpu::Avx512), which only their
//! `detect` makes, after the CPU check. A kernel is a value
//! ([`kernel::Kernel`]): the wide ones hold the proof, the portable one
//! needs none; the indexes reach code compiled for a kernel only through
//! it ([`dispatch::Task`]), with safe signatures. Every `unsafe` block
//! says why it holds (`SAFETY:`), every `unsafe fn` what its caller must
//! ensure (`# Safety`); no other module of the crate holds any (the test
//! `house_rules` checks it).

pub mod cpu;
pub mod dda;
pub mod dispatch;
pub mod exact;
pub mod kernel;
pub mod lanes;
pub mod mailbox;
pub mod node;
pub mod packet;
pub mod point;
pub mod ray_triangle;
pub mod slab;
pub mod stack;
pub mod task;

#[cfg(target_arch = "x86_64")]
pub mod avx;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
#[cfg(target_arch = "x86_64")]
pub mod dda_avx;
#[cfg(target_arch = "x86_64")]
pub mod point_avx;
#[cfg(target_arch = "x86_64")]
pub mod slab_avx;
#[cfg(target_arch = "x86_64")]
pub mod w8;

#[cfg(test)]
mod tests;
