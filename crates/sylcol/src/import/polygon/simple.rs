//! Whether a polygon's edges cross or touch, in O(n log n), exactly.
//!
//! Three passes, each with Shewchuk's exact `orient2d`:
//!
//! 1. neighbouring edges folding back along one line (O(n));
//! 2. two corners at one point (sorted, O(n log n)): the edges leaving
//!    them meet there;
//! 3. a Shamos–Hoey sweep over the corners in (x, y) order, which keeps
//!    the edges crossing the sweep line in order ([`Status`]) and tests
//!    every two edges that become neighbours there with the exact
//!    [`segments_meet`]. Neighbouring edges of the polygon, which share a
//!    corner and (after pass 1) nothing else, are not tested.
//!
//! If two edges that are not neighbours in the polygon meet, take the
//! first such meeting point P in sweep order. Before the sweep reaches P
//! no two edges in the status cross, so their order is consistent, and
//! the edges through P are side by side in it; two of them that are not
//! polygon neighbours are next to each other there (P is the corner of at
//! most two edges, and those two are neighbours), and were tested when
//! they became so. An edge that starts at P and lies on another edge is
//! caught while it is inserted. So the sweep finds a meeting whenever
//! there is one; the order only goes wrong past P, when the answer is
//! already known. The pair named may differ from the first pair in index
//! order.

use std::cmp::Ordering;

use robust::{Coord, orient2d};

use super::error::PolygonError;
use super::order::Status;

/// Refuses crossing or touching edges, and neighbours folding back.
pub(super) fn check_simple(q: &[[f64; 2]]) -> Result<(), PolygonError> {
    let n = q.len();
    // -0 and +0 are one coordinate, in the order below too.
    let q: Vec<Coord<f64>> = q
        .iter()
        .map(|p| Coord {
            x: p[0] + 0.0,
            y: p[1] + 0.0,
        })
        .collect();
    check_folds(&q)?;
    if n < 4 {
        return Ok(());
    }
    check_shared_points(&q)?;
    Sweep::new(&q).run()
}

/// `(i + 1, i + 2)`: edge `i` named by its corners, 1-based.
fn name(i: usize, n: usize) -> (usize, usize) {
    (i + 1, (i + 1) % n + 1)
}

/// Edges `i` and `j` meet.
fn meeting(i: usize, j: usize, n: usize) -> PolygonError {
    PolygonError::SelfIntersecting {
        first: name(i.min(j), n),
        second: name(i.max(j), n),
        overlap: false,
    }
}

/// The next edge shares corner b: it may not run back along a -> b.
fn check_folds(q: &[Coord<f64>]) -> Result<(), PolygonError> {
    let n = q.len();
    for i in 0..n {
        let (a, b, c) = (q[i], q[(i + 1) % n], q[(i + 2) % n]);
        let back = (a.x - b.x) * (c.x - b.x) + (a.y - b.y) * (c.y - b.y);
        if orient2d(a, b, c) == 0.0 && back > 0.0 {
            return Err(PolygonError::SelfIntersecting {
                first: name(i, n),
                second: name((i + 1) % n, n),
                overlap: true,
            });
        }
    }
    Ok(())
}

/// The sweep order: x, then y.
fn lex(a: Coord<f64>, b: Coord<f64>) -> Ordering {
    a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y))
}

/// Two corners at one point: the edges leaving them both start there.
/// When the two are neighbours, the edge between them is a point, and the
/// edges before and after it meet there.
fn check_shared_points(q: &[Coord<f64>]) -> Result<(), PolygonError> {
    let n = q.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| lex(q[i], q[j]).then(i.cmp(&j)));
    let Some(w) = order.windows(2).find(|w| lex(q[w[0]], q[w[1]]).is_eq()) else {
        return Ok(());
    };
    let (a, b) = (w[0], w[1]);
    Err(if b == a + 1 || (a == 0 && b == n - 1) {
        // The empty edge runs from the later corner around to the other.
        let empty = if b == a + 1 { a } else { b };
        meeting((empty + n - 1) % n, (empty + 1) % n, n)
    } else {
        meeting(a, b, n)
    })
}

/// The corners of edge `e`, in sweep order.
fn ends(q: &[Coord<f64>], e: usize) -> (usize, usize) {
    let (a, b) = (e, (e + 1) % q.len());
    if lex(q[a], q[b]).is_lt() {
        (a, b)
    } else {
        (b, a)
    }
}

/// The sweep over distinct corners.
struct Sweep<'a> {
    q: &'a [Coord<f64>],
    status: Status,
}

impl<'a> Sweep<'a> {
    fn new(q: &'a [Coord<f64>]) -> Self {
        Sweep {
            q,
            status: Status::new(q.len()),
        }
    }

    fn run(&mut self) -> Result<(), PolygonError> {
        let (q, n) = (self.q, self.q.len());
        let mut corners: Vec<usize> = (0..n).collect();
        corners.sort_by(|&i, &j| lex(q[i], q[j]));
        for v in corners {
            let edges = [(v + n - 1) % n, v];
            // Edges ending at v leave the status before those starting
            // there enter it (the two edges of a corner never coexist
            // unless both start or both end there).
            for &e in &edges {
                if ends(q, e).1 == v {
                    self.leave(e)?;
                }
            }
            for &e in &edges {
                if ends(q, e).0 == v {
                    self.enter(e)?;
                }
            }
        }
        Ok(())
    }

    /// Inserts edge `e` at its first corner and tests it against its new
    /// neighbours (and against an edge its corner was found to lie on).
    fn enter(&mut self, e: usize) -> Result<(), PolygonError> {
        let q = self.q;
        let (s, t) = ends(q, e);
        let mut on = None;
        self.status.insert(e as u32, |f| {
            let (fs, ft) = ends(q, f as usize);
            if fs == s {
                // The other edge of corner s: which side it leaves on.
                return orient2d(q[s], q[ft], q[t]) < 0.0;
            }
            let side = orient2d(q[fs], q[ft], q[s]);
            if side == 0.0 {
                // Corner s lies on edge f (f spans the sweep line here).
                on = Some(f as usize);
                return orient2d(q[fs], q[ft], q[t]) < 0.0;
            }
            side < 0.0
        });
        if let Some(f) = on {
            self.test(e, f)?;
        }
        for f in [self.status.below(e as u32), self.status.above(e as u32)]
            .into_iter()
            .flatten()
        {
            self.test(e, f as usize)?;
        }
        Ok(())
    }

    /// Removes edge `e`; its two neighbours become neighbours.
    fn leave(&mut self, e: usize) -> Result<(), PolygonError> {
        let below = self.status.below(e as u32);
        let above = self.status.above(e as u32);
        self.status.remove(e as u32);
        if let (Some(a), Some(b)) = (below, above) {
            self.test(a as usize, b as usize)?;
        }
        Ok(())
    }

    /// Edges `e` and `f` must not meet unless they are polygon neighbours.
    fn test(&self, e: usize, f: usize) -> Result<(), PolygonError> {
        let n = self.q.len();
        if e == f || (e + 1) % n == f || (f + 1) % n == e {
            return Ok(());
        }
        let (a, b) = (self.q[e], self.q[(e + 1) % n]);
        let (c, d) = (self.q[f], self.q[(f + 1) % n]);
        if segments_meet(a, b, c, d) {
            return Err(meeting(e, f, n));
        }
        Ok(())
    }
}

/// Whether the closed segments a-b and c-d share a point (exact).
fn segments_meet(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>, d: Coord<f64>) -> bool {
    let apart = |lo1: f64, hi1: f64, lo2: f64, hi2: f64| {
        lo1.max(hi1) < lo2.min(hi2) || lo2.max(hi2) < lo1.min(hi1)
    };
    if apart(a.x, b.x, c.x, d.x) || apart(a.y, b.y, c.y, d.y) {
        return false;
    }
    let (o1, o2) = (orient2d(a, b, c), orient2d(a, b, d));
    let (o3, o4) = (orient2d(c, d, a), orient2d(c, d, b));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return true;
    }
    // A touch: one end on the other segment (the boxes overlap, so a
    // collinear end lies within the segment's box and on it).
    let on = |p: Coord<f64>, s: Coord<f64>, e: Coord<f64>| {
        p.x >= s.x.min(e.x) && p.x <= s.x.max(e.x) && p.y >= s.y.min(e.y) && p.y <= s.y.max(e.y)
    };
    (o1 == 0.0 && on(c, a, b))
        || (o2 == 0.0 && on(d, a, b))
        || (o3 == 0.0 && on(a, c, d))
        || (o4 == 0.0 && on(b, c, d))
}

#[cfg(test)]
#[path = "simple_tests.rs"]
mod tests;
