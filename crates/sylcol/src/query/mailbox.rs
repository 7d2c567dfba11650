//! Mailboxing: each triangle is tested at most once per query, however
//! many cells list it.
//!
//! A per-thread stamp array: each query takes a fresh epoch and a triangle
//! is new to the query when its stamp differs. Epochs are unique per query
//! on a thread, so one array serves every collider without clearing; it only
//! grows (once) to the largest triangle count seen, and is cleared when the
//! 32-bit epoch wraps. Being per thread, concurrent queries on one collider
//! never see each other's stamps — which matters for the parity count of
//! `contains_point`, where a triangle counted twice would flip the answer.

use std::cell::RefCell;

/// The stamps of one thread.
#[derive(Debug, Default)]
struct Stamps {
    epoch: u32,
    stamps: Vec<u32>,
}

thread_local! {
    static STAMPS: RefCell<Stamps> = const {
        RefCell::new(Stamps {
            epoch: 0,
            stamps: Vec::new(),
        })
    };
}

/// One query's view of the stamps.
pub struct Visits<'a> {
    epoch: u32,
    stamps: &'a mut [u32],
}

impl Visits<'_> {
    /// A bit mask of the lanes of `ids` seen for the first time in this
    /// query (no data-dependent branches); marks them all seen.
    #[inline(always)]
    pub fn fresh<const N: usize>(&mut self, ids: &[u32; N]) -> u32 {
        let mut mask = 0;
        for (lane, &t) in ids.iter().enumerate() {
            let s = &mut self.stamps[t as usize];
            mask |= u32::from(*s != self.epoch) << lane;
            *s = self.epoch;
        }
        mask
    }

    /// [`Visits::fresh`] for eight lanes with one AVX2 gather: the same
    /// mask, except that an id repeated within `ids` counts as fresh in
    /// every lane holding it (the collider's packets hold distinct ids,
    /// padding aside).
    ///
    /// # Safety
    /// The CPU must have AVX2 (callers run inside
    /// `#[target_feature(enable = "avx2")]` code).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn fresh8_avx2(&mut self, ids: &[u32; 8]) -> u32 {
        use std::arch::x86_64::*;
        // The gather takes signed 32-bit indices: every id must be below
        // both the stamp count and 2^31, else the checked scalar path.
        let last = (self.stamps.len().min(1 << 31) as u32).wrapping_sub(1);
        // SAFETY: AVX2 per the contract; `ids` is 32 readable bytes.
        unsafe {
            let v = _mm256_loadu_si256(ids.as_ptr().cast());
            let lim = _mm256_set1_epi32(last as i32);
            let inside = _mm256_cmpeq_epi32(_mm256_max_epu32(v, lim), lim);
            if self.stamps.is_empty() || _mm256_movemask_epi8(inside) != -1 {
                return self.fresh(ids);
            }
            // Every id is a valid, non-negative index: gather and mark.
            let old = _mm256_i32gather_epi32::<4>(self.stamps.as_ptr().cast(), v);
            let seen = _mm256_cmpeq_epi32(old, _mm256_set1_epi32(self.epoch as i32));
            let mask = !(_mm256_movemask_ps(_mm256_castsi256_ps(seen)) as u32) & 0xff;
            for &t in ids {
                *self.stamps.get_unchecked_mut(t as usize) = self.epoch;
            }
            mask
        }
    }

    /// True the first time triangle `t` is seen in this query.
    #[inline(always)]
    pub fn first(&mut self, t: u32) -> bool {
        let s = &mut self.stamps[t as usize];
        let new = *s != self.epoch;
        *s = self.epoch;
        new
    }
}

/// Runs `f` with a fresh mailbox for triangles `0..n`.
pub fn with_visits<R>(n: usize, f: impl FnOnce(&mut Visits<'_>) -> R) -> R {
    STAMPS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut st) => {
            let st = &mut *st;
            if st.stamps.len() < n {
                st.stamps.resize(n, 0);
            }
            st.epoch = st.epoch.wrapping_add(1);
            if st.epoch == 0 {
                st.stamps.fill(0);
                st.epoch = 1;
            }
            f(&mut Visits {
                epoch: st.epoch,
                stamps: &mut st.stamps[..n],
            })
        }
        // A nested query (not done by this crate): private stamps.
        Err(_) => f(&mut Visits {
            epoch: 1,
            stamps: &mut vec![0; n],
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_per_query() {
        let seen = with_visits(4, |v| [v.first(2), v.first(2), v.first(3)]);
        assert_eq!(seen, [true, false, true]);
        // A new query starts afresh, even on a bigger set.
        let again = with_visits(8, |v| [v.first(2), v.first(7), v.first(7)]);
        assert_eq!(again, [true, true, false]);
    }

    /// The gather answers like the scalar loop, and falls back to it for
    /// ids out of range.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn gather_matches_scalar() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let packets = [[0, 1, 2, 3, 4, 5, 6, 7], [7, 8, 9, 1, 10, 11, 12, 13]];
        let scalar = with_visits(16, |v| packets.map(|p| v.fresh(&p)));
        // SAFETY: the CPU has AVX2.
        let gather = with_visits(16, |v| packets.map(|p| unsafe { v.fresh8_avx2(&p) }));
        assert_eq!(scalar, gather);
        assert_eq!(gather, [0xff, 0b1111_0110]);
        // An id past the stamps: the scalar path (which panics on it).
        let wide = std::panic::catch_unwind(|| {
            with_visits(8, |v| unsafe { v.fresh8_avx2(&[0, 1, 2, 3, 4, 5, 6, 8]) })
        });
        assert!(wide.is_err());
    }
}
