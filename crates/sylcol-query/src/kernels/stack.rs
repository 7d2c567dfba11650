//! The BVH walk's stack of children waiting ([`NodeStack`]: sort keys
//! and links, the nearest on top) and the cache hint for the children
//! about to be visited ([`prefetch`]).
//!
//! The stack is read unchecked: its entries below `len` are always
//! written (every push writes before it counts), so a pop needs no bounds
//! check. A push checks its room: the build bounds the depth so that
//! the checks never fail (`Bvh::validate`), and a tree that broke the
//! bound would panic, never write past the arrays.

use std::mem::MaybeUninit;

use super::node::WIDTH;
use super::slab::{BoxKernel, key_t};

/// Up to `N` children waiting, each its sort key and its link; `N` must
/// be at least [`WIDTH`] (a node's sorted keys are written eight at a
/// time).
pub struct NodeStack<const N: usize> {
    keys: [MaybeUninit<u32>; N],
    links: [MaybeUninit<u32>; N],
    /// Entries in use: those below are written.
    len: usize,
}

impl<const N: usize> Default for NodeStack<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> NodeStack<N> {
    /// An empty stack.
    #[inline(always)]
    pub fn new() -> Self {
        const { assert!(N >= WIDTH) };
        NodeStack {
            keys: [const { MaybeUninit::uninit() }; N],
            links: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    /// Empties the stack (for the next ray's walk).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Pushes one child.
    #[inline(always)]
    pub fn push(&mut self, key: u32, link: u32) {
        let len = self.len;
        // Checked: the build bounds the depth, so this never panics.
        self.keys[len].write(key);
        self.links[len].write(link);
        self.len = len + 1;
    }

    /// Pushes the children of `child` entered (`mask`, at least one bit of
    /// the low [`WIDTH`]) but the nearest, farthest first, by their sort
    /// `keys` (the kernel's sort: all eight written, the top advanced over
    /// those entered but one).
    #[inline(always)]
    pub fn push_sorted<K: BoxKernel>(
        &mut self,
        k: K,
        keys: K::Keys,
        child: &[u32; WIDTH],
        mask: u32,
    ) {
        let len = self.len;
        assert!(len <= N - WIDTH, "the BVH walk's stack is full");
        let entered = (mask & ((1 << WIDTH) - 1)).count_ones() as usize;
        // SAFETY: `len + WIDTH <= N` (checked above): both arrays have room
        // for the eight entries written from `len`.
        unsafe {
            let keys_out = self.keys.as_mut_ptr().add(len).cast::<u32>();
            let links_out = self.links.as_mut_ptr().add(len).cast::<u32>();
            k.push_sorted(keys, child, keys_out, links_out);
        }
        // At most WIDTH - 1 more: entries below the new length are written.
        self.len = len + entered.max(1) - 1;
    }

    /// Pops children until one whose entry (its key's t bits, [`key_t`])
    /// is at most `bound`, and returns its link; `None` when none is left.
    #[inline(always)]
    pub fn pop_within(&mut self, bound: u32) -> Option<u32> {
        loop {
            if self.len == 0 {
                return None;
            }
            self.len -= 1;
            let at = self.len;
            // SAFETY: `at` < the old length <= N, and every entry below the
            // length is written (the type's invariant).
            let key = unsafe { self.keys.get_unchecked(at).assume_init() };
            if key_t(key) <= bound {
                // SAFETY: as for the key: pushes write both.
                return Some(unsafe { self.links.get_unchecked(at).assume_init() });
            }
        }
    }
}

/// Asks the cache for the `bytes` from `at` (a node or a leaf about to be
/// visited). A hint: it never faults, whatever the address.
#[inline(always)]
pub fn prefetch(at: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    for line in (0..bytes).step_by(64) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch never faults and reads nothing the program
        // sees; the address need not be valid (`wrapping_add`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(line).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (at, bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::kernel::Portable;
    use crate::kernels::slab::ENTERED;

    #[test]
    fn pops_skip_entries_beyond_the_bound_and_pushes_keep_order() {
        let mut s = NodeStack::<{ 2 * WIDTH }>::new();
        assert_eq!(s.pop_within(u32::MAX), None);
        s.push(ENTERED, 7);
        let keys = crate::kernels::slab::keys(&[1.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0], 0b111);
        s.push_sorted(Portable, keys, &[10, 11, 12, 13, 14, 15, 16, 17], 0b111);
        // The nearest (slot 0) is not pushed; slot 2 is on top, then slot 1.
        assert_eq!(s.pop_within(u32::MAX), Some(12));
        assert_eq!(s.pop_within(0), Some(7));
        assert_eq!(s.pop_within(u32::MAX), None);
        s.push(u32::MAX, 1);
        assert_eq!(s.pop_within(0), None);
    }
}
