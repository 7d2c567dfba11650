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
}
