//! Which side a hull faces: the signed volume of each closed component and
//! how the components nest.
//!
//! A triangle's normal by the right-hand rule points away from the solid
//! it bounds. For a closed component that makes the signed volume
//! positive when it faces outwards (a ship part, an asteroid) and negative
//! when it faces inwards (a map's arena wall, whose solid is everything
//! outside it; the player flies inside). Which of the two a format wants
//! is not in the seeds, so no single sign is required; what must hold is
//! that all components agree: a component nested inside `d` others faces
//! the opposite way to them when `d` is odd — the same rule that makes an
//! asteroid inside an inward-facing wall face outwards. A component turned
//! over alone breaks the rule as soon as there are two.
//!
//! Only *shells* take part: components with every edge used once in each
//! direction ([`crate::topology::edge_faults`]) and a non-zero volume.
//! Nesting is decided exactly: a vertex of one shell is inside another
//! when a ray from it along +x crosses the other an odd number of times
//! (the exact, perturbed crossing test of the `inside` query).

use glam::{DVec3, Vec3};
use serde::Serialize;

use crate::topology::{EdgeFaults, triangle_components};
use sylcol_query::geometry::parity::{Crossing, crossing};

/// How the closed components of a mesh face.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Facing {
    /// Shells: closed, consistently oriented components with a volume.
    pub shells: u64,
    /// Shells with a positive signed volume (normals pointing out of them).
    pub outward: u64,
    /// Shells facing the way the majority does, once nesting is counted.
    pub agreeing: u64,
    /// The control: shells that, set against all the others, the rule
    /// would not catch (the one shell of a one-shell mesh, none otherwise).
    pub flips_undetected: u64,
    /// The first triangle of the first shell that disagrees.
    pub first_disagreeing: Option<u32>,
}

/// A closed component: its triangles, six times its signed volume, bounds.
struct Shell {
    triangles: Vec<u32>,
    volume6: f64,
    lo: Vec3,
    hi: Vec3,
}

/// Analyses the shells of a mesh; `faults` are its edge faults.
pub fn facing(vertices: &[Vec3], triangles: &[[u32; 3]], faults: &EdgeFaults) -> Facing {
    let shells = shells(vertices, triangles, faults);
    let corners = |t: u32| triangles[t as usize].map(|i| vertices[i as usize]);
    let signs: Vec<bool> = shells
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let depth = shells
                .iter()
                .enumerate()
                .filter(|&(j, d)| j != i && encloses(d, s, triangles, vertices, &corners))
                .count();
            (s.volume6 > 0.0) == depth.is_multiple_of(2)
        })
        .collect();
    let majority = majority_sign(&shells, &signs);
    let agreeing = signs.iter().filter(|&&s| s == majority).count() as u64;
    let n = signs.len() as u64;
    let first_disagreeing = signs
        .iter()
        .position(|&s| s != majority)
        .map(|i| shells[i].triangles[0]);
    // The control: each shell in turn set against all the others (made
    // to agree), decided by the same rule.
    let flips_undetected = (0..signs.len())
        .filter(|&i| {
            let planted: Vec<bool> = (0..signs.len()).map(|j| (j == i) != majority).collect();
            let m = majority_sign(&shells, &planted);
            planted.iter().all(|&s| s == m)
        })
        .count() as u64;
    Facing {
        shells: n,
        outward: shells.iter().filter(|s| s.volume6 > 0.0).count() as u64,
        agreeing,
        flips_undetected,
        first_disagreeing,
    }
}

/// The closed, oriented components with a volume, in order of their first
/// triangle.
fn shells(vertices: &[Vec3], triangles: &[[u32; 3]], faults: &EdgeFaults) -> Vec<Shell> {
    let (labels, count) = triangle_components(vertices.len(), triangles);
    let mut parts: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    for (t, &l) in labels.iter().enumerate() {
        if let Some(p) = parts.get_mut(l as usize) {
            p.push(t as u32);
        }
    }
    parts
        .into_iter()
        .filter(|p| {
            p.iter()
                .flat_map(|&t| triangles[t as usize])
                .all(|v| !faults.faulty_vertex[v as usize])
        })
        .filter_map(|p| {
            let at = |t: u32| triangles[t as usize].map(|i| vertices[i as usize]);
            let volume6 = volume6_of(p.iter().map(|&t| at(t)), at(p[0])[0].as_dvec3());
            let (lo, hi) = p
                .iter()
                .flat_map(|&t| at(t))
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                });
            (volume6 != 0.0).then_some(Shell {
                triangles: p,
                volume6,
                lo,
                hi,
            })
        })
        .collect()
}

/// Whether `outer` encloses `inner`: the first vertex of `inner` not on
/// `outer`'s surface lies inside it.
fn encloses(
    outer: &Shell,
    inner: &Shell,
    triangles: &[[u32; 3]],
    vertices: &[Vec3],
    corners: &impl Fn(u32) -> [Vec3; 3],
) -> bool {
    let probes = inner
        .triangles
        .iter()
        .flat_map(|&t| triangles[t as usize])
        .map(|v| vertices[v as usize]);
    for p in probes {
        if p.cmplt(outer.lo).any() || p.cmpgt(outer.hi).any() {
            return false;
        }
        let mut odd = false;
        let on_surface = outer.triangles.iter().any(|&t| {
            match crossing(&corners(t), p, 0, true) {
                Crossing::Cross => odd = !odd,
                Crossing::OnSurface => return true,
                Crossing::Miss => {}
            }
            false
        });
        if !on_surface {
            return odd;
        }
    }
    false
}

/// The facing most shells have; on a tie, that of the largest shell (the
/// first of equals).
fn majority_sign(shells: &[Shell], signs: &[bool]) -> bool {
    let positive = signs.iter().filter(|&&s| s).count();
    let negative = signs.len() - positive;
    if positive != negative {
        return positive > negative;
    }
    // `max_by` keeps the last of equals: reversed, the first shell wins.
    shells
        .iter()
        .zip(signs)
        .rev()
        .max_by(|a, b| a.0.volume6.abs().total_cmp(&b.0.volume6.abs()))
        .is_none_or(|(_, &s)| s)
}

/// Six times the signed volume of a closed mesh's triangles, in f64
/// around `origin` (for tests and reports).
pub fn signed_volume6(vertices: &[Vec3], triangles: &[[u32; 3]], origin: DVec3) -> f64 {
    volume6_of(
        triangles.iter().map(|t| t.map(|i| vertices[i as usize])),
        origin,
    )
}

fn volume6_of(triangles: impl Iterator<Item = [Vec3; 3]>, origin: DVec3) -> f64 {
    triangles
        .map(|t| {
            let [a, b, c] = t.map(|v| v.as_dvec3() - origin);
            a.dot(b.cross(c))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::fixtures;
    use crate::topology::edge_faults;

    fn facing_of(v: &[Vec3], t: &[[u32; 3]]) -> Facing {
        facing(v, t, &edge_faults(v.len(), t))
    }

    /// An inward-facing box (a map's wall) holding two outward boxes.
    fn arena() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut m = fixtures::cuboid(Vec3::splat(-10.0), Vec3::splat(10.0));
        for t in &mut m.triangles {
            t.swap(1, 2);
        }
        for lo in [Vec3::splat(-5.0), Vec3::splat(2.0)] {
            m = fixtures::merged(&m, &fixtures::cuboid(lo, lo + 2.0));
        }
        (m.vertices, m.triangles)
    }

    #[test]
    fn nested_shells_alternate_and_a_flipped_one_is_named() {
        let (v, mut t) = arena();
        let f = facing_of(&v, &t);
        assert_eq!((f.shells, f.outward, f.agreeing), (3, 2, 3));
        assert_eq!((f.flips_undetected, f.first_disagreeing), (0, None));
        // Turn the second box (triangles 24..36) over.
        for tri in &mut t[24..] {
            tri.swap(1, 2);
        }
        let f = facing_of(&v, &t);
        assert_eq!((f.agreeing, f.first_disagreeing), (2, Some(24)));
        // The wall alone: its facing cannot be wrong, and the control says so.
        let f = facing_of(&v, &t[..12]);
        assert_eq!((f.shells, f.agreeing, f.flips_undetected), (1, 1, 1));
        assert!(signed_volume6(&v, &t[..12], DVec3::ZERO) < 0.0);
    }

    #[test]
    fn open_components_are_no_shells() {
        let (v, t) = arena();
        let f = facing_of(&v, &t[..35]);
        assert_eq!(f.shells, 2);
    }
}
