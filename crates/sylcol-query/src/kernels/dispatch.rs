//! Work compiled for a kernel's instruction set, entered through safe
//! functions: the indexes' ray code is generic over the kernel ([`Task`]),
//! and the only way into its AVX2 (or AVX-512) compiled form is a kernel
//! value, which holds the proof that the CPU runs it.
//!
//! A [`Task`] is a call waiting for its kernel: a small struct holding
//! the arguments, whose [`Task::run`] (`#[inline(always)]` in every
//! implementation) calls the index's generic code. [`Kernel::compiled`]
//! runs it inside a function compiled with the kernel's target features
//! (so every `#[inline(always)]` step below it, and the intrinsics, are
//! compiled for them); [`Kernel::apart`] does the same out of line.
//! [`Kernels`] is the choice an index makes once (the widest kernels the
//! CPU runs, or the portable ones), and [`Kernels::run`] enters it.

use std::fmt;

#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
#[cfg(target_arch = "x86_64")]
use super::avx512::Avx512Kernel;
#[cfg(target_arch = "x86_64")]
use super::cpu::{Avx2, Avx512};
use super::kernel::{Kernel, Portable};

/// A call waiting for its kernel `K`: [`Task::run`] calls the generic
/// code with `k`. Implementations mark `run` `#[inline(always)]`, so that
/// the code compiles into the kernel's own function.
pub trait Task<K> {
    /// What the call returns.
    type Out;
    /// The call, with kernel `k`.
    fn run(self, k: K) -> Self::Out;
}

/// A task that runs with every kernel this build has (an implementation
/// `impl<K: BoxKernel> Task<K> for ...` is one), each returning `R`.
#[cfg(target_arch = "x86_64")]
pub trait EveryKernel<R>:
    Task<Portable, Out = R> + Task<Avx, Out = R> + Task<Avx512Kernel, Out = R>
{
}

#[cfg(target_arch = "x86_64")]
impl<R, T> EveryKernel<R> for T where
    T: Task<Portable, Out = R> + Task<Avx, Out = R> + Task<Avx512Kernel, Out = R>
{
}

/// A task that runs with every kernel this build has (here: the portable
/// one).
#[cfg(not(target_arch = "x86_64"))]
pub trait EveryKernel<R>: Task<Portable, Out = R> {}

#[cfg(not(target_arch = "x86_64"))]
impl<R, T> EveryKernel<R> for T where T: Task<Portable, Out = R> {}

/// The kernels a query runs through, as users name them
/// ([`crate::Collider::with_kernel_path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelPath {
    /// Four lanes (SSE2 through glam, or scalar): every CPU.
    Portable,
    /// Eight lanes on AVX and AVX2.
    Avx2,
    /// Eight lanes compiled for AVX-512 (F, BW, DQ, VL): mask registers,
    /// thirty-two vector registers, and the node test's AVX-512 form.
    Avx512,
}

impl KernelPath {
    /// Every path, narrowest first.
    pub const ALL: [KernelPath; 3] = [KernelPath::Portable, KernelPath::Avx2, KernelPath::Avx512];

    /// The paths this CPU runs, narrowest first (the portable one always).
    pub fn available() -> Vec<KernelPath> {
        Self::ALL
            .into_iter()
            .filter(|&p| Kernels::of(p).is_some())
            .collect()
    }

    /// The path's name: `portable`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            KernelPath::Portable => "portable",
            KernelPath::Avx2 => "avx2",
            KernelPath::Avx512 => "avx512",
        }
    }

    /// The path named `name` ([`KernelPath::name`]).
    pub fn parse(name: &str) -> Option<KernelPath> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for KernelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernels an index runs its rays through, with the proof that the
/// CPU runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// The portable kernels.
    Portable,
    /// The AVX2 kernels.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// The AVX-512 kernels.
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
}

impl Kernels {
    /// The default kernels on this CPU: AVX2 where it has AVX2 (also on
    /// a CPU with AVX-512: there the AVX-512 kernels are no faster on the
    /// benchmark's scenes, `benches/queries.md`), else the portable ones.
    pub fn widest() -> Self {
        Self::of(KernelPath::Avx2).unwrap_or(Kernels::Portable)
    }

    /// The kernels of `path`, where this CPU runs them.
    pub fn of(path: KernelPath) -> Option<Self> {
        match path {
            KernelPath::Portable => Some(Kernels::Portable),
            #[cfg(target_arch = "x86_64")]
            KernelPath::Avx2 => Avx2::detect().map(Kernels::Avx2),
            #[cfg(target_arch = "x86_64")]
            KernelPath::Avx512 => Avx512::detect().map(Kernels::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }

    /// Which kernels these are.
    pub fn path(self) -> KernelPath {
        match self {
            Kernels::Portable => KernelPath::Portable,
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2(_) => KernelPath::Avx2,
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx512(_) => KernelPath::Avx512,
        }
    }

    /// `task` with these kernels, compiled for their instruction set (the
    /// portable one out of line, so that the wide paths' callers stay
    /// small).
    #[inline(always)]
    pub fn run<R, T: EveryKernel<R>>(self, task: T) -> R {
        match self {
            Kernels::Portable => Portable.apart(task),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2(p) => Avx::new(p).compiled(task),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx512(p) => Avx512Kernel::new(p).compiled(task),
        }
    }
}

/// [`Kernel::apart`] for the portable kernel: `task` in its own function.
#[inline(never)]
pub fn portable_apart<T: Task<Portable>>(task: T) -> T::Out {
    task.run(Portable)
}

/// Defines, for an eight-lane kernel type `$kernel` whose value proves
/// the CPU runs `$features`, the functions [`Kernel::compiled`] and
/// [`Kernel::apart`] enter: `$compiled` and `$apart`.
macro_rules! compiled_for {
    ($kernel:ty, $features:literal, $compiled:ident, $apart:ident) => {
        /// `task` with the kernel, compiled for its target features
        /// (inlined into a caller compiled for them too).
        #[target_feature(enable = $features)]
        pub(crate) fn $compiled<T: $crate::kernels::dispatch::Task<$kernel>>(
            k: $kernel,
            task: T,
        ) -> T::Out {
            task.run(k)
        }

        /// `task` with the kernel, out of line, compiled for its target
        /// features.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) fn $apart<T: $crate::kernels::dispatch::Task<$kernel>>(
            k: $kernel,
            task: T,
        ) -> T::Out {
            task.run(k)
        }
    };
}

pub(crate) use compiled_for;
