//! Mesh generators with exact vertex and triangle counts.
//!
//! Everything closed is built as a "lathe": rings of points around an axis
//! between two poles, each point pushed out along its direction by a radial
//! function. Any positive radial function gives a star-shaped, embedded
//! surface, and the counts are fixed by the ring sizes alone: rings
//! m1..mk give V = 2 + sum m, F = 2 sum m = 2V - 4 (one sphere, Euler
//! characteristic 2).
//!
//! Rings of different sizes are stitched by walking both in angle, so any
//! vertex budget >= 5 can be met exactly.

use std::f64::consts::{PI, TAU};

use glam::{DQuat, DVec3, Vec3};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;

/// Builds a closed lathe around +z with the given ring sizes (each >= 3); a
/// point in unit direction `d` lands at `d * radius(d)`. Triangles face
/// outward.
pub fn lathe(rings: &[usize], radius: &dyn Fn(DVec3) -> f64) -> TriMesh {
    assert!(rings.iter().all(|&m| m >= 3) && !rings.is_empty());
    let k = rings.len();
    let theta = |i: usize| PI * (i + 1) as f64 / (k + 1) as f64;
    let point = |d: DVec3| (d * radius(d)).as_vec3();
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    vertices.push(point(DVec3::Z));
    let mut starts = Vec::with_capacity(k);
    for (i, &m) in rings.iter().enumerate() {
        starts.push(vertices.len() as u32);
        let t = theta(i);
        let twist = 0.5 * (i % 2) as f64 / m as f64;
        for j in 0..m {
            let phi = TAU * (j as f64 / m as f64 + twist);
            let d = DVec3::new(t.sin() * phi.cos(), t.sin() * phi.sin(), t.cos());
            vertices.push(point(d));
        }
    }
    let (s, m) = (starts[0], rings[0] as u32);
    for j in 0..m {
        triangles.push([0, s + j, s + (j + 1) % m]);
    }
    for i in 0..k - 1 {
        stitch(
            &mut triangles,
            (starts[i], rings[i]),
            (starts[i + 1], rings[i + 1]),
            i,
        );
    }
    let pole = vertices.len() as u32;
    vertices.push(point(-DVec3::Z));
    let (s, m) = (starts[k - 1], rings[k - 1] as u32);
    for j in 0..m {
        triangles.push([pole, s + (j + 1) % m, s + j]);
    }
    TriMesh::new(vertices, triangles)
}

/// Triangulates the band between ring `a` (above) and ring `b` (below) with
/// a + b triangles, advancing whichever ring's next point comes first in
/// angle. Ring number `ring` decides the twist: an odd ring's points sit
/// half a step around.
pub fn stitch(out: &mut Vec<[u32; 3]>, (sa, a): (u32, usize), (sb, b): (u32, usize), ring: usize) {
    let twist = |r: usize, m: usize| 0.5 * (r % 2) as f64 / m as f64;
    let angle = |j: usize, m: usize, r: usize| j as f64 / m as f64 + twist(r, m);
    let (mut i, mut j) = (0usize, 0usize);
    while i < a || j < b {
        let next_a = angle(i + 1, a, ring);
        let next_b = angle(j + 1, b, ring + 1);
        let va = sa + (i % a) as u32;
        let vb = sb + (j % b) as u32;
        if j >= b || (i < a && next_a <= next_b) {
            out.push([va, vb, sa + ((i + 1) % a) as u32]);
            i += 1;
        } else {
            out.push([va, vb, sb + ((j + 1) % b) as u32]);
            j += 1;
        }
    }
}

/// Ring sizes for a closed lathe of exactly `vertices` points (>= 5),
/// shaped like a UV sphere; `stretch` > 1 adds rings (for long shapes).
pub fn sphere_rings(vertices: usize, stretch: f64) -> Vec<usize> {
    spread_rings(vertices - 2, stretch)
}

/// Ring sizes summing to `total` (>= 3), sized like a sphere's latitudes.
pub fn spread_rings(total: usize, stretch: f64) -> Vec<usize> {
    assert!(total >= 3);
    let k = ((total as f64 / 1.27 * stretch).sqrt().round() as usize).clamp(1, total / 3);
    let weights: Vec<f64> = (0..k)
        .map(|i| (PI * (i as f64 + 1.0) / (k as f64 + 1.0)).sin())
        .collect();
    distribute(total, &weights, 3)
}

/// Splits `total` into parts of at least `min`, proportional to `weights`
/// (largest remainder). Requires `total >= min * weights.len()`.
pub fn distribute(total: usize, weights: &[f64], min: usize) -> Vec<usize> {
    let n = weights.len();
    assert!(
        n > 0 && total >= min * n,
        "cannot split {total} into {n} parts of >= {min}"
    );
    let spare = (total - min * n) as f64;
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| spare * w / sum).collect();
    let mut parts: Vec<usize> = exact.iter().map(|e| min + e.floor() as usize).collect();
    let mut left = total - parts.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| (exact[y] - exact[y].floor()).total_cmp(&(exact[x] - exact[x].floor())));
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        parts[i] += 1;
        left -= 1;
    }
    parts
}

/// A smooth lumpy radial function: 1 plus a few Gaussian bumps and dents
/// of relative height up to `roughness`, never below 0.35.
pub fn lumpy(rng: &mut ChaCha8Rng, roughness: f64) -> impl Fn(DVec3) -> f64 + use<> {
    let bumps: Vec<(DVec3, f64, f64)> = (0..12)
        .map(|_| {
            let c = random_direction(rng);
            let h = rng.random_range(-roughness..roughness);
            let w = rng.random_range(0.3..0.9);
            (c, h, w)
        })
        .collect();
    move |d: DVec3| {
        let r: f64 = bumps
            .iter()
            .map(|&(c, h, w)| h * (-(d - c).length_squared() / (w * w)).exp())
            .sum();
        (1.0 + r).max(0.35)
    }
}

/// The radial function of a capped cylinder of radius 1 and half-length
/// `half` along z.
pub fn cylinder(half: f64) -> impl Fn(DVec3) -> f64 {
    move |d: DVec3| {
        let side = (d.x * d.x + d.y * d.y).sqrt();
        let to_side = if side > 1e-12 {
            1.0 / side
        } else {
            f64::INFINITY
        };
        let to_cap = if d.z.abs() > 1e-12 {
            half / d.z.abs()
        } else {
            f64::INFINITY
        };
        to_side.min(to_cap)
    }
}

/// The radial function of a box with half-sizes `h`, corners rounded by
/// blending with the inscribed ellipsoid (`round` in 0..1).
pub fn rounded_box(h: DVec3, round: f64) -> impl Fn(DVec3) -> f64 {
    move |d: DVec3| {
        let q = d / h;
        let boxy = 1.0 / q.abs().max_element();
        let ellipsoid = 1.0 / q.length();
        boxy * (1.0 - round) + ellipsoid * round
    }
}

/// The radial function of a unit ship hull along z: a sphere whose
/// cross-section narrows towards the bow (+z) by `taper`, cut flat at the
/// stern (z = -0.8). Scale it per axis for the hull's proportions.
pub fn hull(taper: f64) -> impl Fn(DVec3) -> f64 {
    move |d: DVec3| {
        let narrow = 1.0 - taper * d.z.max(0.0);
        let q = DVec3::new(d.x / narrow, d.y / narrow, d.z);
        let round = 1.0 / q.length();
        let stern = if d.z < -1e-9 {
            0.8 / -d.z
        } else {
            f64::INFINITY
        };
        round.min(stern)
    }
}

/// A uniformly random unit vector.
pub fn random_direction(rng: &mut ChaCha8Rng) -> DVec3 {
    let z: f64 = rng.random_range(-1.0..1.0);
    let phi: f64 = rng.random_range(0.0..TAU);
    let s = (1.0 - z * z).sqrt();
    DVec3::new(s * phi.cos(), s * phi.sin(), z)
}

/// A uniformly random rotation.
pub fn random_rotation(rng: &mut ChaCha8Rng) -> DQuat {
    let axis = random_direction(rng);
    DQuat::from_axis_angle(axis, rng.random_range(0.0..TAU))
}

/// The eight corners and twelve triangles of the box `min`..`max`, faces
/// outward (or inward when `inward`).
pub fn cuboid(min: Vec3, max: Vec3, inward: bool) -> TriMesh {
    let vertices = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect();
    // Outward-facing quads, corners counter-clockwise seen from outside.
    let quads = [
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
    ];
    let mut mesh = TriMesh::new(vertices, Vec::new());
    for [a, b, c, d] in quads {
        mesh.triangles.push([a, b, c]);
        mesh.triangles.push([a, c, d]);
    }
    if inward {
        flip(&mut mesh);
    }
    mesh
}

/// Reverses every triangle's winding.
pub fn flip(mesh: &mut TriMesh) {
    for t in &mut mesh.triangles {
        t.swap(1, 2);
    }
}

/// Applies `f` to every vertex (in f64).
pub fn map_points(mesh: &mut TriMesh, f: impl Fn(DVec3) -> DVec3) {
    for v in &mut mesh.vertices {
        *v = f(v.as_dvec3()).as_vec3();
    }
}

/// Scales by `scale` per axis, rotates by `rotation`, then moves by `offset`.
pub fn place(mesh: &mut TriMesh, scale: DVec3, rotation: DQuat, offset: DVec3) {
    map_points(mesh, |p| rotation * (p * scale) + offset);
}

/// Appends `other` to `mesh` as a separate component.
pub fn append(mesh: &mut TriMesh, other: &TriMesh) {
    let base = mesh.vertices.len() as u32;
    mesh.vertices.extend_from_slice(&other.vertices);
    mesh.triangles
        .extend(other.triangles.iter().map(|t| t.map(|i| i + base)));
}

/// The diagonal of the mesh's bounding box.
pub fn diagonal(mesh: &TriMesh) -> f64 {
    mesh.bounds()
        .map(|(lo, hi)| (hi - lo).as_dvec3().length())
        .unwrap_or(0.0)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::collections::HashMap;

    /// (V - E + F, edges used by exactly two triangles == all edges,
    /// every edge used once in each direction).
    pub fn topology(mesh: &TriMesh) -> (i64, bool, bool) {
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        for t in &mesh.triangles {
            for k in 0..3 {
                *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        let mut undirected: HashMap<(u32, u32), usize> = HashMap::new();
        for (&(a, b), &n) in &directed {
            *undirected.entry((a.min(b), a.max(b))).or_default() += n;
        }
        let closed = undirected.values().all(|&n| n == 2);
        let oriented = directed
            .iter()
            .all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)).is_none_or(|&m| m == 1));
        let chi =
            mesh.vertices.len() as i64 - undirected.len() as i64 + mesh.triangles.len() as i64;
        (chi, closed, oriented)
    }

    #[test]
    fn closed_lathes_have_exact_counts_and_are_spheres() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for v in [5, 6, 7, 17, 34, 111, 502, 1000] {
            let rings = sphere_rings(v, 1.0);
            let r = lumpy(&mut rng, 0.3);
            let mesh = lathe(&rings, &r);
            assert_eq!(mesh.vertices.len(), v);
            assert_eq!(mesh.triangles.len(), 2 * v - 4);
            assert_eq!(topology(&mesh), (2, true, true), "{v}");
        }
    }

    /// Signed volume (positive when the triangles face outward).
    fn volume(mesh: &TriMesh) -> f64 {
        mesh.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.vertices[i as usize].as_dvec3());
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn outward_orientation_and_boxes() {
        let sphere = lathe(&sphere_rings(50, 1.0), &|_| 1.0);
        let v = volume(&sphere);
        assert!(v > 3.0 && v < 4.19, "{v}");
        let b = cuboid(Vec3::splat(-1.0), Vec3::splat(1.0), false);
        assert_eq!(topology(&b), (2, true, true));
        assert_eq!(volume(&b), 8.0);
        assert_eq!(
            volume(&cuboid(Vec3::splat(-1.0), Vec3::splat(1.0), true)),
            -8.0
        );
        assert_eq!(distribute(10, &[1.0, 1.0, 1.0], 3), vec![4, 3, 3]);
    }
}
