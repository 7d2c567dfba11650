//! The sweep against the quadratic test it replaced: every pair of edges
//! that are not neighbours, on polygons made to touch themselves.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// The check before the sweep (O(n^2)): a fold-back at each corner, then
/// every pair of edges that share no corner.
fn reference(q: &[[f64; 2]]) -> bool {
    let n = q.len();
    let xy = |p: [f64; 2]| Coord { x: p[0], y: p[1] };
    let edge = |i: usize| (xy(q[i]), xy(q[(i + 1) % n]));
    for i in 0..n {
        let (a, b) = edge(i);
        let c = xy(q[(i + 2) % n]);
        let back = (a.x - b.x) * (c.x - b.x) + (a.y - b.y) * (c.y - b.y);
        if orient2d(a, b, c) == 0.0 && back > 0.0 {
            return false;
        }
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            let (c, d) = edge(j);
            if segments_meet(a, b, c, d) {
                return false;
            }
        }
    }
    true
}

fn agree(q: &[[f64; 2]]) {
    let want = reference(q);
    let got = check_simple(q);
    assert_eq!(got.is_ok(), want, "{q:?}: {got:?}");
    // The pair named does meet, and is no pair of neighbours.
    if let Err(PolygonError::SelfIntersecting {
        first,
        second,
        overlap: false,
    }) = got
    {
        let n = q.len();
        let (i, j) = (first.0 - 1, second.0 - 1);
        assert!(i < j && j - i >= 2 && !(i == 0 && j == n - 1), "{q:?}");
        let xy = |p: [f64; 2]| Coord { x: p[0], y: p[1] };
        assert!(
            segments_meet(xy(q[i]), xy(q[(i + 1) % n]), xy(q[j]), xy(q[(j + 1) % n])),
            "{q:?}: {first:?} {second:?}"
        );
    }
}

/// Polygons on a small lattice: corners on one another, on edges, along
/// shared lines, vertical edges, in every combination.
#[test]
fn lattice_polygons_agree_with_every_pair() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut simple, mut refused) = (0, 0);
    for round in 0..60_000 {
        let n = rng.random_range(4..11);
        let side = if round % 2 == 0 { 4 } else { 8 };
        let q: Vec<[f64; 2]> = (0..n)
            .map(|_| {
                [
                    f64::from(rng.random_range(0..side)),
                    f64::from(rng.random_range(0..side)),
                ]
            })
            .collect();
        agree(&q);
        if reference(&q) {
            simple += 1;
        } else {
            refused += 1;
        }
    }
    // Both answers are well represented.
    assert!(simple > 1_000 && refused > 1_000, "{simple} {refused}");
}

/// A star-shaped polygon of `n` corners around the origin (simple), on a
/// lattice coarse enough for ties: radial runs, corners on one line.
fn star(rng: &mut ChaCha8Rng, n: usize) -> Vec<[f64; 2]> {
    let mut q: Vec<[f64; 2]> = Vec::new();
    for i in 0..n {
        let angle = std::f64::consts::TAU * i as f64 / n as f64;
        let r = f64::from(rng.random_range(20..40));
        let p = [(r * angle.cos()).round(), (r * angle.sin()).round()];
        if q.last() != Some(&p) && q.first() != Some(&p) {
            q.push(p);
        }
    }
    q
}

/// Large polygons, mostly simple, with a few corners moved: the sweep
/// must find the one crossing among thousands of edges.
#[test]
fn big_polygons_with_a_moved_corner_agree() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..300 {
        let mut q = star(&mut rng, 300);
        agree(&q);
        let moves = rng.random_range(0..3);
        for _ in 0..moves {
            let i = rng.random_range(0..q.len());
            q[i] = [
                f64::from(rng.random_range(-40..40)),
                f64::from(rng.random_range(-40..40)),
            ];
        }
        agree(&q);
    }
}

/// Thin slivers at f32 precision: crossings decided by the last bit.
#[test]
fn near_misses_at_the_last_bit() {
    let e = f64::from(f32::EPSILON);
    for d in [-2.0, -1.0, 0.0, 1.0, 2.0] {
        // A zigzag whose middle corner sits at, just above or just below
        // the opposite edge.
        let q = [[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [2.0, d * e], [0.0, 1.0]];
        agree(&q);
        let q = [[0.0, 0.0], [1.0, 1.0 + d * e], [2.0, 0.0], [1.0, 1.0]];
        agree(&q);
    }
}

/// A comb of 50 000 teeth along x, simple: the status holds 100 000
/// edges at once (a sorted vector would move them on every insertion).
#[test]
fn a_comb_of_many_teeth_is_simple() {
    let teeth = 50_000;
    let mut q = Vec::with_capacity(2 * teeth + 2);
    for i in 0..teeth {
        let y = 2.0 * i as f64;
        q.push([0.0, y]);
        q.push([1000.0, y + 1.0]);
    }
    q.push([-10.0, 2.0 * teeth as f64]);
    q.push([-10.0, 0.0]);
    assert_eq!(check_simple(&q), Ok(()));
    // One tooth bent over two others.
    q[2 * 777 + 1] = [1000.0, 2.0 * 779.0];
    assert!(matches!(
        check_simple(&q),
        Err(PolygonError::SelfIntersecting { .. })
    ));
}
