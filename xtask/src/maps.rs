//! The eleven synthetic MCOL map hulls, one per object of the MCOL seed's
//! table, with that table's vertex and triangle counts.
//!
//! Every map but the two plain boxes is an arena wall — a lumpy, rounded
//! box-shaped shell facing inward, just inside the map's box (which is how
//! the seed's maps come to occupy about half of their cells) — plus its contents:
//! asteroids, or station modules. A closed genus-0 component has
//! F = 2V - 4, so the component count is (2V - F) / 4, the Euler
//! characteristic over two.

use glam::{DQuat, DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol::TriMesh;

use crate::shapes::{
    append, cuboid, cylinder, distribute, flip, lathe, lumpy, place, random_direction,
    random_rotation, rounded_box, sphere_rings,
};

/// What a map holds besides its wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Only the map's box, faces inward (the seed's 8-vertex maps).
    Box,
    /// A single lumpy cavern wall.
    Cavern,
    /// A wall and station modules (cylinders and boxes).
    Station,
    /// A wall and an asteroid field.
    Asteroids,
}

/// One map of the seed's table.
#[derive(Debug, Clone, Copy)]
pub struct MapSpec {
    /// The seed's object id: the entry's name hash in the archive.
    pub id: u32,
    /// The bbox is -half..half on every axis.
    pub half: f32,
    /// Cell size (the seed's 0x40 value).
    pub cell: f32,
    /// The seed's vertex count.
    pub vertices: usize,
    /// The seed's triangle count.
    pub triangles: usize,
    /// What the map is made of.
    pub theme: Theme,
}

impl MapSpec {
    /// Closed components implied by V - F/2 = 2 x components.
    pub fn components(&self) -> usize {
        (2 * self.vertices - self.triangles) / 4
    }
}

const fn map(id: u32, half: f32, cell: f32, v: usize, t: usize, theme: Theme) -> MapSpec {
    MapSpec {
        id,
        half,
        cell,
        vertices: v,
        triangles: t,
        theme,
    }
}

/// The seed's eleven objects. Which three are the +-25 000 maps is not in
/// the seed beyond dc4b0896 (its worked example); the other two are chosen
/// among the many-component objects, which read as asteroid fields.
pub const MAPS: [MapSpec; 11] = [
    map(0x2CF7EB47, 50_000.0, 10_000.0, 34, 60, Theme::Station),
    map(0xCBB99D34, 250_000.0, 50_000.0, 8, 12, Theme::Box),
    map(0xD84A95FB, 50_000.0, 10_000.0, 111, 218, Theme::Cavern),
    map(0xDB066592, 50_000.0, 10_000.0, 405, 790, Theme::Asteroids),
    map(0xDB61C506, 50_000.0, 10_000.0, 73, 134, Theme::Station),
    map(0xDC44FE0C, 50_000.0, 10_000.0, 89, 174, Theme::Cavern),
    map(0xDC4B0896, 25_000.0, 10_000.0, 502, 924, Theme::Asteroids),
    map(0xDD89A110, 25_000.0, 10_000.0, 632, 1164, Theme::Asteroids),
    map(0xDF4628C2, 50_000.0, 10_000.0, 134, 260, Theme::Asteroids),
    map(0xE084C13C, 250_000.0, 50_000.0, 8, 12, Theme::Box),
    map(0xE16460CF, 25_000.0, 10_000.0, 554, 1020, Theme::Asteroids),
];

/// The wall is a rounded box this fraction of the half-extent across, with
/// lumps between -10 % and +5 %, so it stays inside the map's box.
const WALL_SIZE: f64 = 0.93;
/// How far in from the wall the contents stay (radius of their ball).
const ROOM: f64 = 0.72;

/// Generates the mesh of `spec`, deterministically.
pub fn generate(spec: &MapSpec) -> TriMesh {
    let half = spec.half as f64;
    if spec.theme == Theme::Box {
        return cuboid(Vec3::splat(-spec.half), Vec3::splat(spec.half), true);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0000_0000 ^ spec.id as u64);
    let items = spec.components() - 1;
    let wall_vertices = if items == 0 {
        spec.vertices
    } else {
        (spec.vertices / 4)
            .clamp(12, 140)
            .min(spec.vertices - 6 * items)
    };
    let mut mesh = wall(&mut rng, wall_vertices, half);
    if items > 0 {
        let weights: Vec<f64> = (0..items).map(|_| rng.random_range(0.4..1.6)).collect();
        let sizes = distribute(spec.vertices - wall_vertices, &weights, 6);
        let shapes: Vec<TriMesh> = sizes
            .iter()
            .enumerate()
            .map(|(i, &v)| item(&mut rng, spec.theme, i, v))
            .collect();
        scatter(&mut rng, &mut mesh, shapes, half * ROOM);
    }
    mesh
}

fn wall(rng: &mut ChaCha8Rng, vertices: usize, half: f64) -> TriMesh {
    let bumps = lumpy(rng, 0.08);
    let boxy = rounded_box(DVec3::splat(WALL_SIZE * half), 0.35);
    let radius = move |d: DVec3| bumps(d).clamp(0.9, 1.05) * boxy(d);
    let mut mesh = lathe(&sphere_rings(vertices, 1.0), &radius);
    flip(&mut mesh);
    mesh
}

/// One content item in unit size (bounding radius about 1).
fn item(rng: &mut ChaCha8Rng, theme: Theme, index: usize, vertices: usize) -> TriMesh {
    match (theme, index % 2) {
        (Theme::Station, 0) => {
            let shape = cylinder(2.5);
            lathe(&sphere_rings(vertices, 2.5), &shape)
        }
        (Theme::Station, _) => {
            let shape = rounded_box(DVec3::new(1.0, 0.6, 0.4), 0.15);
            lathe(&sphere_rings(vertices, 1.0), &shape)
        }
        _ => {
            let shape = lumpy(rng, 0.5);
            let mut rock = lathe(&sphere_rings(vertices, 1.0), &shape);
            let squash = DVec3::new(1.0, rng.random_range(0.6..1.0), rng.random_range(0.45..0.9));
            place(&mut rock, squash, DQuat::IDENTITY, DVec3::ZERO);
            rock
        }
    }
}

/// Places `shapes` inside a ball of radius `room` without overlapping
/// bounding spheres, each scaled by the cube root of its vertex share.
fn scatter(rng: &mut ChaCha8Rng, mesh: &mut TriMesh, shapes: Vec<TriMesh>, room: f64) {
    let total: usize = shapes.iter().map(|s| s.vertices.len()).sum();
    let mut fill = 0.2f64;
    'retry: loop {
        let mut placed: Vec<(DVec3, f64)> = Vec::new();
        let mut out = Vec::new();
        for s in &shapes {
            let share = s.vertices.len() as f64 / total as f64;
            let r = room * (fill * share).cbrt();
            let extent = s
                .vertices
                .iter()
                .map(|v| v.as_dvec3().length())
                .fold(0.0, f64::max);
            let Some(c) = (0..400).find_map(|_| {
                let c = random_direction(rng) * room * rng.random::<f64>().cbrt();
                let fits = c.length() + r <= room
                    && placed
                        .iter()
                        .all(|&(q, rq)| q.distance(c) > (r + rq) * 1.05);
                fits.then_some(c)
            }) else {
                fill *= 0.8;
                continue 'retry;
            };
            placed.push((c, r));
            let mut s = s.clone();
            place(&mut s, DVec3::splat(r / extent), random_rotation(rng), c);
            out.push(s);
        }
        for s in &out {
            append(mesh, s);
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::tests::topology;

    #[test]
    fn maps_have_the_seed_counts_and_topology() {
        for spec in &MAPS {
            let mesh = generate(spec);
            assert_eq!(mesh.vertices.len(), spec.vertices, "{:08x}", spec.id);
            assert_eq!(mesh.triangles.len(), spec.triangles, "{:08x}", spec.id);
            let (chi, closed, oriented) = topology(&mesh);
            assert_eq!(chi as usize, 2 * spec.components(), "{:08x}", spec.id);
            assert!(closed && oriented, "{:08x}", spec.id);
            let inside = mesh
                .vertices
                .iter()
                .all(|v| v.abs().max_element() <= spec.half);
            assert!(inside, "{:08x}", spec.id);
            assert!(spec.vertices <= u16::MAX as usize);
        }
        assert_eq!(MAPS.iter().filter(|m| m.half == 25_000.0).count(), 3);
        assert_eq!(MAPS.iter().filter(|m| m.half == 50_000.0).count(), 6);
        assert_eq!(
            MAPS.iter().map(|m| m.components()).collect::<Vec<_>>(),
            [2, 1, 1, 5, 3, 1, 20, 25, 2, 1, 22]
        );
    }

    #[test]
    fn maps_are_deterministic() {
        let spec = &MAPS[6];
        assert_eq!(generate(spec), generate(spec));
    }
}
