//! The call a kernel runs ([`Task`]) and the functions compiled for a
//! kernel's target features that run it ([`compiled_for`]): below every
//! kernel and the dispatch that chooses among them.

/// A call waiting for its kernel `K`: [`Task::run`] calls the generic
/// code with `k`. Implementations mark `run` `#[inline(always)]`, so that
/// the code compiles into the kernel's own function.
pub trait Task<K> {
    /// What the call returns.
    type Out;
    /// The call, with kernel `k`.
    fn run(self, k: K) -> Self::Out;
}

/// Defines, for an eight-lane kernel type `$kernel` whose value proves
/// the CPU runs `$features`, the functions [`super::kernel::Kernel::compiled`] and
/// [`super::kernel::Kernel::apart`] enter: `$compiled` and `$apart`.
#[cfg(target_arch = "x86_64")]
macro_rules! compiled_for {
    ($kernel:ty, $features:literal, $compiled:ident, $apart:ident) => {
        /// `task` with the kernel, compiled for its target features
        /// (inlined into a caller compiled for them too).
        #[target_feature(enable = $features)]
        pub(crate) fn $compiled<T: $crate::kernels::task::Task<$kernel>>(
            k: $kernel,
            task: T,
        ) -> T::Out {
            task.run(k)
        }

        /// `task` with the kernel, out of line, compiled for its target
        /// features.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) fn $apart<T: $crate::kernels::task::Task<$kernel>>(
            k: $kernel,
            task: T,
        ) -> T::Out {
            task.run(k)
        }
    };
}

#[cfg(target_arch = "x86_64")]
pub(crate) use compiled_for;
