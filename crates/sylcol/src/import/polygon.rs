//! Polygons to triangles, honestly: ear clipping on the polygon's plane.
//!
//! A fan from the first corner covers area a concave polygon does not, so
//! every face of more than three corners goes through these steps:
//!
//! 1. every corner names a real vertex, and no vertex (index or position)
//!    appears twice;
//! 2. the Newell normal gives the polygon's plane; every corner must lie
//!    within [`PLANAR_TOLERANCE`] of the polygon's size off that plane,
//!    else the face is refused as non-planar (its triangulation would be a
//!    guess);
//! 3. the corners are projected along the normal's largest axis onto the
//!    coordinate plane across it — for a planar polygon an affine image of
//!    the polygon, so simplicity and winding are preserved, and the
//!    coordinates stay the file's f32 values, which keeps the exact
//!    predicates below exact;
//! 4. no two edges may cross or touch, except neighbours at their shared
//!    corner (and those may not fold back on each other): decided with
//!    Shewchuk's exact `orient2d` by a sweep in O(n log n) (`simple.rs`),
//!    a self-intersecting face is refused;
//! 5. a strictly convex polygon becomes the fan from its first corner (what
//!    every exporter expects of a quad); any other is cut by ear clipping
//!    (the `earcut` crate, georust's port of mapbox/earcut) into `n - 2`
//!    triangles that use every corner. Each triangle is wound like the
//!    polygon.
//!
//! Triangles (three corners) are passed through unchanged: the build's
//! hull checks report a degenerate one.

mod error;
mod order;
mod simple;

use glam::{DVec3, Vec3};
use robust::{Coord, orient2d};

pub use error::{PLANAR_TOLERANCE, PolygonError};
use simple::check_simple;

/// Cuts polygons into triangles, reusing its buffers between faces.
#[derive(Default)]
pub(crate) struct Triangulator {
    earcut: earcut::Earcut<f64>,
    flat: Vec<[f64; 2]>,
    local: Vec<u32>,
}

impl Triangulator {
    /// Appends the triangles of the polygon `corners` (indices into
    /// `vertices`, in the face's order) to `out`, wound like the polygon.
    pub(crate) fn triangulate(
        &mut self,
        vertices: &[Vec3],
        corners: &[u32],
        out: &mut Vec<[u32; 3]>,
    ) -> Result<(), PolygonError> {
        let n = corners.len();
        if n < 3 {
            return Err(PolygonError::TooFewCorners(n));
        }
        if let Some(corner) = corners.iter().position(|&i| i as usize >= vertices.len()) {
            return Err(PolygonError::OutOfRange {
                corner: corner + 1,
                index: u64::from(corners[corner]),
                vertices: vertices.len(),
            });
        }
        if n == 3 {
            out.push([corners[0], corners[1], corners[2]]);
            return Ok(());
        }
        let points: Vec<Vec3> = corners.iter().map(|&i| vertices[i as usize]).collect();
        check_distinct(&points)?;
        // A polygon whose loops cancel (a symmetric bow tie) has no Newell
        // normal; any two of its edges still give its plane.
        let normal = Some(newell_normal(&points))
            .filter(|n| *n != DVec3::ZERO)
            .or_else(|| any_normal(&points))
            .ok_or(PolygonError::NoArea)?;
        check_planar(&points, normal)?;
        let k = normal.abs().max_position();
        let (u, v) = ((k + 1) % 3, (k + 2) % 3);
        self.flat.clear();
        self.flat
            .extend(points.iter().map(|p| [f64::from(p[u]), f64::from(p[v])]));
        check_simple(&self.flat)?;
        let area = shoelace(&self.flat);
        if area == 0.0 {
            return Err(PolygonError::NoArea);
        }
        if strictly_convex(&self.flat, area) {
            // A fan from the first corner is a triangulation of a convex
            // polygon, and the one every exporter would expect.
            out.extend((1..n - 1).map(|k| [corners[0], corners[k], corners[k + 1]]));
            return Ok(());
        }
        self.earcut
            .earcut(self.flat.iter().copied(), &[] as &[u32], &mut self.local);
        let got = self.local.len() / 3;
        if got != n - 2 {
            return Err(PolygonError::NotTriangulated {
                expected: n - 2,
                got,
            });
        }
        for t in self.local.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            let turn = orient2d(xy(self.flat[a]), xy(self.flat[b]), xy(self.flat[c]));
            let (b, c) = if (turn > 0.0) == (area > 0.0) {
                (b, c)
            } else {
                (c, b)
            };
            out.push([corners[a], corners[b], corners[c]]);
        }
        Ok(())
    }
}

fn xy(p: [f64; 2]) -> Coord<f64> {
    Coord { x: p[0], y: p[1] }
}

/// Refuses a polygon that visits one point twice; the error names the
/// first corner that repeats an earlier one. O(n log n): the corners
/// sorted by position, equal ones side by side.
fn check_distinct(points: &[Vec3]) -> Result<(), PolygonError> {
    // -0 and +0 are one point; a NaN equals nothing (as `==` says).
    let key = |i: usize| points[i].to_array().map(|c| c + 0.0);
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (key(i), key(j));
        (0..3)
            .map(|k| a[k].total_cmp(&b[k]))
            .fold(std::cmp::Ordering::Equal, std::cmp::Ordering::then)
            .then(i.cmp(&j))
    });
    let first_repeat = order
        .chunk_by(|&i, &j| points[i] == points[j])
        .filter_map(|run| match run {
            [first, second, ..] => Some((*first, *second)),
            _ => None,
        })
        .min_by_key(|&(_, second)| second);
    match first_repeat {
        Some((first, second)) => Err(PolygonError::RepeatedCorner {
            first: first + 1,
            second: second + 1,
            position: points[second].to_array(),
        }),
        None => Ok(()),
    }
}

/// The Newell normal (twice the vector area) in f64.
fn newell_normal(points: &[Vec3]) -> DVec3 {
    let mut n = DVec3::ZERO;
    for (i, p) in points.iter().enumerate() {
        let (a, b) = (p.as_dvec3(), points[(i + 1) % points.len()].as_dvec3());
        n += DVec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n
}

/// A normal of the corners' plane, if any three are not on one line:
/// that of corner 1, the corner farthest from it, and the corner farthest
/// from the line through those two (O(n)).
fn any_normal(points: &[Vec3]) -> Option<DVec3> {
    let p = points[0].as_dvec3();
    let farthest = |score: &dyn Fn(DVec3) -> f64| {
        points
            .iter()
            .map(|q| q.as_dvec3())
            .max_by(|a, b| score(*a).total_cmp(&score(*b)))
    };
    let q = farthest(&|q| (q - p).length_squared())?;
    let r = farthest(&|r| (q - p).cross(r - p).length_squared())?;
    let n = (q - p).cross(r - p);
    (n != DVec3::ZERO && n.is_finite()).then_some(n)
}

/// Every corner within the tolerance of the plane through the corners'
/// mean with the Newell normal; the error names the farthest corner.
fn check_planar(points: &[Vec3], normal: DVec3) -> Result<(), PolygonError> {
    let unit = normal.try_normalize().ok_or(PolygonError::NoArea)?;
    let ps: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
    let mean = ps.iter().sum::<DVec3>() / ps.len() as f64;
    let (lo, hi) = ps
        .iter()
        .fold((ps[0], ps[0]), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    // Never tighter than the rounding of f32 coordinates of this size.
    let reach = lo.abs().max(hi.abs()).max_element();
    let tolerance =
        (PLANAR_TOLERANCE * (hi - lo).length()).max(8.0 * f64::from(f32::EPSILON) * reach);
    let (i, distance) = ps
        .iter()
        .map(|p| unit.dot(*p - mean).abs())
        .enumerate()
        .fold(
            (0, 0.0),
            |best, (i, d)| if d > best.1 { (i, d) } else { best },
        );
    if distance > tolerance {
        return Err(PolygonError::NonPlanar {
            corner: i + 1,
            position: points[i].to_array(),
            distance,
            tolerance,
        });
    }
    Ok(())
}

/// Every corner turns the way the polygon winds (`area`'s sign), none
/// straight on (exact).
fn strictly_convex(q: &[[f64; 2]], area: f64) -> bool {
    let n = q.len();
    (0..n).all(|i| {
        let turn = orient2d(xy(q[i]), xy(q[(i + 1) % n]), xy(q[(i + 2) % n]));
        turn != 0.0 && (turn > 0.0) == (area > 0.0)
    })
}

/// Twice the signed area of a 2-D polygon.
fn shoelace(q: &[[f64; 2]]) -> f64 {
    (0..q.len())
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % q.len()]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(points: &[[f32; 3]]) -> Result<Vec<[u32; 3]>, PolygonError> {
        let vertices: Vec<Vec3> = points.iter().map(|&p| Vec3::from_array(p)).collect();
        let corners: Vec<u32> = (0..points.len() as u32).collect();
        let mut out = Vec::new();
        Triangulator::default().triangulate(&vertices, &corners, &mut out)?;
        Ok(out)
    }

    /// The L of area 3 starting at the corner whose fan leaves the polygon.
    const L: [[f32; 3]; 6] = [
        [2.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [1.0, 2.0, 0.0],
        [0.0, 2.0, 0.0],
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
    ];

    fn area_z(points: &[[f32; 3]], t: [u32; 3]) -> f32 {
        let [a, b, c] = t.map(|i| Vec3::from_array(points[i as usize]));
        (b - a).cross(c - a).z / 2.0
    }

    #[test]
    fn concave_polygon_is_covered_exactly_and_wound_like_it() {
        // Counter-clockwise seen from +z: every triangle too, and together
        // they cover exactly the L's area 3 (a fan from corner 1 would add
        // the unit square 1..2 x 1..2 outside it).
        let tris = run(&L).unwrap();
        assert_eq!(tris.len(), 4);
        assert!(tris.iter().all(|&t| area_z(&L, t) > 0.0), "{tris:?}");
        assert_eq!(tris.iter().map(|&t| area_z(&L, t)).sum::<f32>(), 3.0);
        // Reversed, and turned into the x-z plane: the winding follows the
        // polygon's (Newell normal) in every case.
        let turned: Vec<[f32; 3]> = L.iter().rev().map(|p| [p[0], p[2], p[1]]).collect();
        let vertices: Vec<Vec3> = turned.iter().map(|&p| Vec3::from_array(p)).collect();
        let normal = newell_normal(&vertices);
        let tris = run(&turned).unwrap();
        for t in &tris {
            let [a, b, c] = t.map(|i| vertices[i as usize].as_dvec3());
            assert!((b - a).cross(c - a).dot(normal) > 0.0, "{t:?}");
        }
        let mut used: Vec<u32> = tris.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        assert_eq!(used, (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn collinear_corners_are_kept() {
        let pts = [
            [0.0, 0.0, 5.0],
            [1.0, 0.0, 5.0],
            [2.0, 0.0, 5.0],
            [2.0, 2.0, 5.0],
            [0.0, 2.0, 5.0],
        ];
        let tris = run(&pts).unwrap();
        assert_eq!(tris.len(), 3);
        assert!(tris.iter().all(|&t| area_z(&pts, t) > 0.0));
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let mut bent = L;
        bent[2][2] = 0.5;
        assert!(matches!(
            run(&bent),
            Err(PolygonError::NonPlanar { corner: 3, .. })
        ));
        // Within the tolerance (0.1 % of the 2.83 diagonal) is planar.
        let mut slight = L;
        slight[2][2] = 0.001;
        assert_eq!(run(&slight).unwrap().len(), 4);
        // Bow ties: edges 1 and 3 cross, with lobes of unequal area and
        // (no Newell normal) of equal area.
        for bow in [
            [
                [0.0, 0.0, 0.0],
                [2.0, 2.0, 0.0],
                [2.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            [
                [0.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
        ] {
            assert_eq!(
                run(&bow),
                Err(PolygonError::SelfIntersecting {
                    first: (1, 2),
                    second: (3, 4),
                    overlap: false
                })
            );
        }
        // A spike folding back along its own edge.
        let spike = [
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert!(matches!(
            run(&spike),
            Err(PolygonError::SelfIntersecting { overlap: true, .. })
        ));
        // A corner on a non-neighbouring edge (touching).
        let touch = [
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 2.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
        ];
        assert!(matches!(
            run(&touch),
            Err(PolygonError::SelfIntersecting { .. })
        ));
        let twice = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert!(matches!(
            run(&twice),
            Err(PolygonError::RepeatedCorner {
                first: 1,
                second: 4,
                ..
            })
        ));
        let line = [
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [2.0, 2.0, 2.0],
            [3.0, 3.0, 3.0],
        ];
        assert_eq!(run(&line), Err(PolygonError::NoArea));
        assert_eq!(run(&line[..2]), Err(PolygonError::TooFewCorners(2)));
    }

    /// 200 000 corners on a circle: the checks run in O(n log n) (the
    /// pairwise ones took minutes). The cut itself is earcut's, which is
    /// not: a face this size is refused by the importer's count limit
    /// before it gets there when the target is an MCOL.
    #[test]
    fn the_checks_of_a_face_of_200_000_corners_are_n_log_n() {
        let n = 200_000;
        let mut points: Vec<Vec3> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                Vec3::new((1e4 * a.cos()) as f32, (1e4 * a.sin()) as f32, 7.0)
            })
            .collect();
        let flat = |p: &[Vec3]| -> Vec<[f64; 2]> {
            p.iter().map(|v| [f64::from(v.x), f64::from(v.y)]).collect()
        };
        assert_eq!(check_distinct(&points), Ok(()));
        assert_eq!(check_simple(&flat(&points)), Ok(()));
        // Two corners a quarter turn apart swapped: their edges cross.
        points.swap(25_000, 75_000);
        assert!(matches!(
            check_simple(&flat(&points)),
            Err(PolygonError::SelfIntersecting { overlap: false, .. })
        ));
        // The last corner on the first: refused, naming both.
        points[n - 1] = points[0];
        assert!(matches!(
            check_distinct(&points),
            Err(PolygonError::RepeatedCorner { first: 1, second, .. }) if second == n
        ));
    }
}
