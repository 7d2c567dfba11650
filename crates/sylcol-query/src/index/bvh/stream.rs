//! Many rays through the [`Bvh`] on one thread, two at a time.
//!
//! A hierarchy larger than the core's caches makes a ray wait on memory:
//! each node and leaf it visits may come from the last-level cache or
//! beyond, and the next step depends on it. Here two rays walk in turn, a
//! step each ([`Walker::step`]), so that the core works on one while the
//! other's loads are under way; when one ends, the next ray of the batch
//! takes its place. Only a hierarchy larger than
//! [`super::tree::stream_bytes`] is walked so (the BVH's `stream` flag):
//! on one that stays in the caches the second ray's bookkeeping costs
//! more than the overlap gains, and a batch's rays go one at a time
//! through the ray route of `index::rays`, as through the grid.
//!
//! Each ray's answer is exactly its single walk's ([`Bvh::walk`]): the
//! steps of one ray are the same steps in the same order; only another
//! ray's steps come between them.

use glam::Vec3;

use super::tree::Bvh;
use super::walk::Walker;
use crate::index::prep::Scaled;
use crate::kernels::dispatch::{Kernels, Task};
use crate::kernels::ray_triangle::{LaneRay, RayFrame};
use crate::kernels::slab::{BoxKernel, BoxRay};

/// Rays walked in turn.
pub const SLOTS: usize = 2;

/// A ray of a stream, prepared: its frame (for the leaves), its slab
/// test and its limit.
pub(crate) struct Prepared<'a> {
    pub frame: RayFrame<'a>,
    pub boxes: BoxRay,
    pub max: f32,
}

impl<'a> Prepared<'a> {
    /// The ray `s` over a mesh in the box `bounds`.
    pub(crate) fn new(s: &'a Scaled, bounds: (Vec3, Vec3)) -> Self {
        Prepared {
            frame: s.frame(bounds),
            boxes: s.boxes(),
            max: s.max,
        }
    }
}

impl Bvh {
    /// The nearest (t, triangle) of every ray of `rays`, in order, to
    /// `out` (one slot per ray), two walks at a time, with `kernels`.
    pub(crate) fn first_hits<'a>(
        &self,
        rays: &[Prepared<'a>],
        out: &mut [(f32, u32)],
        kernels: Kernels,
    ) {
        kernels.run(Stream {
            bvh: self,
            rays,
            out,
        })
    }

    /// [`SLOTS`] walks in turn over `rays`, each slot taking the next ray
    /// when its own ends.
    #[inline(always)]
    fn stream<'a, K: BoxKernel>(&self, k: K, rays: &[Prepared<'a>], out: &mut [(f32, u32)]) {
        assert_eq!(rays.len(), out.len(), "one answer slot per ray");
        if self.nodes.is_empty() || rays.len() < SLOTS {
            for (p, o) in rays.iter().zip(out.iter_mut()) {
                *o = self.walk(k, &p.boxes, p.max, p.frame);
            }
            return;
        }
        let start = |p: &Prepared<'a>| (LaneRay::<K::V>::new(&p.frame, k.token()), p.boxes, p.max);
        let mut walks: [Walker<'a, K>; SLOTS] = std::array::from_fn(|i| {
            let (f, r, m) = start(&rays[i]);
            Walker::new(k, f, r, m)
        });
        let mut ray_of: [usize; SLOTS] = std::array::from_fn(|i| i);
        let mut busy = [true; SLOTS];
        let (mut next, mut left) = (SLOTS, SLOTS);
        while left > 0 {
            for j in 0..SLOTS {
                if busy[j] && walks[j].step(self) {
                    out[ray_of[j]] = walks[j].best;
                    if next < rays.len() {
                        let (f, r, m) = start(&rays[next]);
                        walks[j].restart(f, r, m);
                        ray_of[j] = next;
                        next += 1;
                    } else {
                        busy[j] = false;
                        left -= 1;
                    }
                }
            }
        }
    }
}

/// [`Bvh::first_hits`] waiting for its kernel.
struct Stream<'b, 'a> {
    bvh: &'b Bvh,
    rays: &'b [Prepared<'a>],
    out: &'b mut [(f32, u32)],
}

impl<K: BoxKernel> Task<K> for Stream<'_, '_> {
    type Out = ();
    #[inline(always)]
    fn run(self, k: K) {
        self.bvh.stream(k, self.rays, self.out)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::fixtures::{cuboid, icosphere, merged, uv_sphere};
    use crate::geometry::mesh::TriMesh;
    use crate::index::prep::Cast;
    use crate::kernels::cpu::kernels_tested;
    use crate::kernels::packet::NO_TRIANGLE;
    use crate::{Collider, QueryError, Ray};

    /// Meshes with a BVH, among them integer-cornered boxes that lattice
    /// rays cross through vertices and edges.
    fn colliders() -> Vec<Collider> {
        let meshes: [TriMesh; 3] = [
            icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 4),
            uv_sphere(Vec3::ZERO, 6.0, 40, 24),
            merged(
                &cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0)),
                &uv_sphere(Vec3::new(2.0, 1.0, 1.0), 2.0, 12, 8),
            ),
        ];
        meshes
            .iter()
            .map(|m| Collider::from_mesh(m).unwrap().with_bvh())
            .collect()
    }

    /// Rays of every kind a batch holds: random ones, lattice rays along
    /// axes and diagonals through vertices and edges, rays far from unit
    /// length (scaled into range), and unusable ones at `bad`.
    fn rays(n: usize, seed: u64, bad: &[usize]) -> Vec<Ray> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rays: Vec<Ray> = (0..n)
            .map(|i| {
                let mut v =
                    || Vec3::from_array(std::array::from_fn(|_| rng.random_range(-9.0..9.0)));
                match i % 4 {
                    0 | 1 => Ray::new(v(), v()),
                    2 => {
                        let o = v().round();
                        let d = v().signum()
                            * Vec3::from_array([i % 3 != 0, i % 5 != 0, true].map(f32::from));
                        Ray::new(o, d)
                    }
                    _ => Ray::new(v(), v() * 1e-20),
                }
            })
            .collect();
        for &i in bad {
            rays[i].dir = Vec3::ZERO;
        }
        rays
    }

    /// The stream's (t, triangle) against each ray's single walk, with
    /// both kernels, for batches of every length up to a few slots and a
    /// long one.
    #[test]
    fn streams_answer_like_single_walks() {
        for c in colliders() {
            let bvh = c.bvh().expect("a BVH");
            let rays = rays(2_000, 3, &[]);
            for len in [0, 1, 2, 3, 5, rays.len()] {
                for max_toi in [f32::INFINITY, 7.5] {
                    let scaled: Vec<Scaled> = rays[..len]
                        .iter()
                        .map(|r| Scaled::new(r, max_toi, Cast::Ray))
                        .collect();
                    let bounds = c.grid.surface().bounds;
                    let prepared: Vec<Prepared<'_>> =
                        scaled.iter().map(|s| Prepared::new(s, bounds)).collect();
                    for kernels in kernels_tested() {
                        let mut out = vec![(-1.0, 0); len];
                        bvh.first_hits(&prepared, &mut out, kernels);
                        let mut hits = 0;
                        for (p, got) in prepared.iter().zip(&out) {
                            let want = bvh.first_hit(&p.frame, &p.boxes, p.max, kernels);
                            assert_eq!(got.1, want.1);
                            assert_eq!(got.0.to_bits(), want.0.to_bits());
                            hits += usize::from(want.1 != NO_TRIANGLE);
                        }
                        assert!(len < 100 || hits > len / 10, "{hits} of {len} rays hit");
                    }
                }
            }
        }
    }

    /// A batch through a BVH that streams gives each ray's own answer,
    /// on pools of one thread (one serial run of the whole batch) and two,
    /// and reports the first unusable ray, also when it lies in a later
    /// run of rays.
    #[test]
    fn batches_stream_through_a_large_bvh() {
        for mut c in colliders() {
            c.bvh.as_mut().expect("a BVH").stream = true;
            let bad = [700, 1_500];
            let rays = rays(2_048, 9, &bad);
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                for max_toi in [f32::INFINITY, 7.5] {
                    let e = pool.install(|| c.cast_rays(&rays, max_toi)).unwrap_err();
                    assert_eq!(e.index, bad[0]);
                    assert!(matches!(e.error, QueryError::ZeroDirection(_)));
                    let e = pool
                        .install(|| c.cast_rays(&rays[800..], max_toi))
                        .unwrap_err();
                    assert_eq!(e.index, bad[1] - 800);
                    let mut all = vec![None; rays.len()];
                    let _ = pool.install(|| c.cast_rays_into(&rays, max_toi, &mut all));
                    let mut small = vec![None; 200];
                    c.cast_rays_into(&rays[..200], max_toi, &mut small).unwrap();
                    assert_eq!(small[..], all[..200]);
                    for (i, (r, h)) in rays.iter().zip(&all).enumerate() {
                        match c.cast_ray(r, max_toi) {
                            Ok(want) => assert_eq!(*h, want, "ray {i}"),
                            Err(_) => assert!(bad.contains(&i) && h.is_none()),
                        }
                    }
                }
            }
        }
    }
}
